#!/usr/bin/env bash
# Makes the suite's layout fixtures (Tests/YianaExtractTests/Fixtures/layouts): documents of
# Scripts/generate/layouts.py (seed 11, a tuning seed: 42 documents in the seven families, 8
# of them scanned at 200 dpi), imported, the scans recognised by `yiana ocr`, and each page's
# text and words with their places as `yiana extract` lays them out (pages.json: poppler's
# boxes for the text PDFs, tesseract's for the scans), beside what is true of each
# (truth.json). The suite lays the pages out, reads them and scores them with
# Scripts/bench/layouts-score.py, so it needs neither Typst nor tesseract; run this again
# when the generator or the layout's input changes.
# Usage: Scripts/generate/layout-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh poppler-utils python3-venv >/dev/null
venv=.build/typst-venv
if ! "$venv/bin/python" -c "import typst, PIL" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "typst>=0.13,<1" "pillow>=10"
fi
swift build --product yiana >/dev/null
swift build --product yiana-bench >/dev/null
bin="$(swift build --show-bin-path)"
work="$(mktemp -d /tmp/yiana-layout-fixtures-XXXXXX)"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" YIANA_KEEP=off
"$venv/bin/python" Scripts/generate/layouts.py "$work/docs" --count 42 --scans 8 --seed 11
"$bin/yiana" import --allow-duplicates --library "$work/lib" "$work/docs/pdf" >/dev/null
"$bin/yiana" ocr --all --library "$work/lib" >/dev/null
out=Tests/YianaExtractTests/Fixtures/layouts
mkdir -p "$out"
"$bin/yiana-bench" layout-pages "$work/lib" "$out/pages.json"
cp "$work/docs/truth.json" "$out/truth.json"
