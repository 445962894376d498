#!/usr/bin/env bash
# Search that forgives (issue 56), proven on clinic letters made by Scripts/generate/letters.py
# (the app's own letters in their three copies, other hospitals' letters, scans of some of each
# recognised by `yiana ocr` with tesseract): about four in ten patients get letters whose text
# layer misreads their surname as OCR misreads it (rn for m, i for l, 1 for l, cl for d, ...),
# and every name is searched as typed, with a slip of the keyboard, and made-up words
# (Scripts/bench/forgiving.py says which goals; exit 1 when one fails). The library is
# indexed and `yiana extract` finds its people, as a user's would be.
# Usage: [SCAN_DPI=150] Scripts/bench/forgiving.sh [APP-LETTERS] [OTHER-LETTERS] [SCANS]   (defaults 30, 30, 16)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh poppler-utils python3-venv >/dev/null
yiana="$(release_binary yiana)"
app="${1:-30}" other="${2:-30}" scans="${3:-16}"
python="$(typst_python)"
bench_work bench-forgiving
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" YIANA_KEEP=off

# The scans at 150 dpi, as a phone's or a cheap scanner's: some names for tesseract to misread.
"$python" Scripts/generate/letters.py "$work/letters" --app "$app" --other "$other" --scans "$scans" --scan-dpi "${SCAN_DPI:-150}"
python3 Scripts/bench/forgiving.py misread "$work/letters" 56
"$yiana" import --allow-duplicates --library "$work/lib" "$work/letters/pdf" >/dev/null
"$yiana" ocr --all --library "$work/lib" >/dev/null
"$yiana" extract --all --library "$work/lib" >/dev/null
"$yiana" index --library "$work/lib" >/dev/null
python3 Scripts/bench/forgiving.py score "$work/letters" "$yiana" "$work/lib"
