#!/usr/bin/env bash
# `yiana extract` on clinic letters (issue 53): the app's own letters in their three copies,
# other hospitals' letters in several layouts, and scans of some of each recognised by
# `yiana ocr`, all made by Scripts/generate/letters.py with known people in them. Each is
# imported as a document of its own, titled by its file name (so the app's
# Surname_Firstname_DDMMYY convention gives nothing away), extracted with `yiana extract
# --all`, and its address file scored field by field (Scripts/bench/letters-score.py), per
# copy and layout. With BEFORE=<an older yiana>, the same library is extracted by it too and
# scored beside; the time of `extract --all` (every document read again) is printed for both.
#   Goals (issue 53): name, date of birth, MRN, postcode and GP name 100%; line_1 and town
#   >= 95%; the signer or sender named as the patient on 0 pages.
# Usage: [BEFORE=path/to/yiana] Scripts/bench/letters.sh [APP-LETTERS] [OTHER-LETTERS] [SCANS] [--misses]
#        (defaults 40, 24, 12)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh poppler-utils python3-venv >/dev/null
yiana="$(release_binary yiana)"
app="${1:-40}" other="${2:-24}" scans="${3:-12}" misses="${4:-}"
python="$(typst_python)"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-letters-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" YIANA_KEEP=off

"$python" Scripts/generate/letters.py "$work/letters" --app "$app" --other "$other" --scans "$scans"
"$yiana" import --allow-duplicates --library "$work/lib" "$work/letters/pdf" >/dev/null
start=$(date +%s.%N)
"$yiana" ocr --all --library "$work/lib" >/dev/null
printf 'yiana ocr of the scans: %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc -l)"
pages=$(python3 -c "import json,sys; print(sum(l['pages'] for l in json.load(open(sys.argv[1])).values()))" "$work/letters/truth.json")

extract() {  # YIANA LABEL: address files made anew by YIANA, scored
    rm -rf "$work/lib/.addresses" "$work/state"
    local time
    time=$(seconds "$1" extract --all --now --library "$work/lib")
    echo
    printf '== %s: extract --all, %d documents, %d pages: %.2f s (%.2f ms per page, the PDF text read included)\n' \
        "$2" "$(ls "$work/letters/pdf" | wc -l)" "$pages" "$time" "$(echo "$time * 1000 / $pages" | bc -l)"
    python3 Scripts/bench/letters-score.py "$work/letters/truth.json" "$work/lib" $misses
}
[ -n "${BEFORE:-}" ] && extract "$BEFORE" "before ($BEFORE)"
extract "$yiana" "this build"
