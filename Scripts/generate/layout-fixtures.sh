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
source Scripts/bench/common.sh
generated_library layouts-fixtures Scripts/generate/layouts.py --count 42 --scans 8 --seed 11
out=Tests/YianaExtractTests/Fixtures/layouts
mkdir -p "$out"
"$bin/yiana-bench" layout-pages "$work/lib" "$out/pages.json"
cp "$work/docs/truth.json" "$out/truth.json"
