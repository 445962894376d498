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
source Scripts/bench/common.sh
generated_library letters-fixtures Scripts/generate/letters.py --seed 53
out=Tests/YianaExtractTests/Fixtures/letters
mkdir -p "$out"
"$bin/yiana-bench" letter-texts "$work/lib" "$out/pages.json"
cp "$work/docs/truth.json" "$out/truth.json"
