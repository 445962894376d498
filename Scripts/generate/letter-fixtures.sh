#!/usr/bin/env bash
# Makes the suite's letter fixtures (Tests/YianaExtractTests/Fixtures/letters): the letters of
# Scripts/generate/letters.py (seed 53: 40 of the app's in three copies, 24 of other
# hospitals', 12 scans), imported, the scans recognised by `yiana ocr`, and each page's text
# as `yiana extract` reads it (pages.json), beside what is true of each (truth.json). The suite
# reads the pages through the cascade and scores them with Scripts/bench/letters-score.py, so
# it needs neither Typst nor tesseract; run this again when the generator changes.
# Usage: Scripts/generate/letter-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh poppler-utils python3-venv >/dev/null
venv=.build/typst-venv
if ! "$venv/bin/python" -c "import typst" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "typst>=0.13,<1"
fi
swift build --product yiana >/dev/null
swift build --product yiana-bench >/dev/null
bin="$(swift build --show-bin-path)"
work="$(mktemp -d /tmp/yiana-letter-fixtures-XXXXXX)"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" YIANA_KEEP=off
"$venv/bin/python" Scripts/generate/letters.py "$work/letters" --seed 53
"$bin/yiana" import --allow-duplicates --library "$work/lib" "$work/letters/pdf" >/dev/null
"$bin/yiana" ocr --all --library "$work/lib" >/dev/null
out=Tests/YianaExtractTests/Fixtures/letters
mkdir -p "$out"
"$bin/yiana-bench" letter-texts "$work/lib" "$out/pages.json"
cp "$work/letters/truth.json" "$out/truth.json"
