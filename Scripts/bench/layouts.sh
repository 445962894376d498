#!/usr/bin/env bash
# `yiana extract` on clinical paperwork in layouts drawn at random (issue 76): COUNT documents
# from Scripts/generate/layouts.py (seven families: an electronic record's table, a clinic
# summary, an optometrist's referral form, a two-column header, a GP's referral, a letter to
# the patient with a reference column, another hospital's Re: letter; each document's parts,
# labels, formats and people drawn), SCANS of them again as 200-dpi scans read by `yiana ocr`.
# Each is imported as a document titled by its file name, extracted with `yiana extract --all`,
# and scored field by field as right, missing or WRONG (Scripts/bench/layouts-score.py). With
# BEFORE=<an older yiana>, the same library is extracted by it too and scored beside; the time
# of `extract --all` is printed for both.
#   Goals (issue 76): wrong facts 0; name, date of birth, MRN or NHS number and postcode >= 97%;
#   line_1 and town >= 95%; the GP >= 95%; someone else as the patient 0; extraction per page
#   <= 1.2x before's (ROUNDS rounds of `extract --all`, the builds taking turns; the median ratio).
# Tune on some seeds, measure on seeds never looked at: SEED picks them (default 1). OCR_WITH=<a
# yiana> recognises the library with that build (an older one keeps no boxes for a PDF's own
# text, and this build's extract then reads them from the PDF).
# Usage: [BEFORE=path/to/yiana] [SEED=N] [ROUNDS=5] [OCR_WITH=yiana] Scripts/bench/layouts.sh [COUNT] [SCANS] [--misses|--wrong]
#        (defaults 1000, 100)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh poppler-utils python3-venv bc >/dev/null
yiana="$(release_binary yiana)"
count="${1:-1000}" scans="${2:-100}" misses="${3:-}" seed="${SEED:-1}"
python="$(typst_python)"
bench_work layouts
export YIANA_KEEP=off

"$python" Scripts/generate/layouts.py "$work/docs" --count "$count" --scans "$scans" --seed "$seed"
"$yiana" import --allow-duplicates --library "$work/lib" "$work/docs/pdf" >/dev/null
start=$(date +%s.%N)
"${OCR_WITH:-$yiana}" ocr --all --library "$work/lib" >/dev/null
printf 'yiana ocr (%s: the scans recognised, every text layer recorded): %.1f s\n' "${OCR_WITH:-this build}" "$(echo "$(date +%s.%N) - $start" | bc -l)"
pages=$(python3 -c "import json,sys; print(sum(d['pages'] for d in json.load(open(sys.argv[1])).values()))" "$work/docs/truth.json")

extract() {  # YIANA: address files made anew by YIANA (every document read again); prints the seconds
    rm -rf "$work/lib/.addresses" "$work/state"
    seconds "$1" extract --all --now --library "$work/lib"
}
score() {  # LABEL: the address files there are, scored
    echo
    echo "== $1"
    python3 Scripts/bench/layouts-score.py "$work/docs/truth.json" "$work/lib" $misses
}
if [ -n "${BEFORE:-}" ]; then
    extract "$BEFORE" >/dev/null
    score "before ($BEFORE)"
fi
extract "$yiana" >/dev/null
score "this build"
# Speed, the builds taking turns, ROUNDS rounds: `extract --all` writing every address file anew
# (the disk's fsyncs are most of it), and `extract --all --dry-run` with this machine's state
# forgotten (every document read and extracted, nothing written: the work of reading alone).
echo
timed() {  # YIANA [--dry-run]: the seconds of one run
    if [ "${2:-}" = --dry-run ]; then rm -rf "$work/state"; seconds "$1" extract --all --now --dry-run --library "$work/lib"; else extract "$1"; fi
}
for kind in write --dry-run; do
    rm -f "$work/ratios"
    for round in $(seq "${ROUNDS:-5}"); do
        after=$(timed "$yiana" "$kind")
        if [ -n "${BEFORE:-}" ]; then
            before=$(timed "$BEFORE" "$kind")
            printf '%s round %d: before %.2f s, this build %.2f s (%.3f and %.3f ms per page): %.2fx\n' "$kind" "$round" "$before" "$after" \
                "$(echo "$before * 1000 / $pages" | bc -l)" "$(echo "$after * 1000 / $pages" | bc -l)" "$(echo "$after / $before" | bc -l)"
            echo "$after / $before" | bc -l >> "$work/ratios"
        else
            printf '%s round %d: %.2f s (%.3f ms per page, %d pages)\n' "$kind" "$round" "$after" "$(echo "$after * 1000 / $pages" | bc -l)" "$pages"
        fi
    done
    [ -f "$work/ratios" ] && printf '%s: median, this build takes %.2fx the time per page of before\n' "$kind" "$(median < "$work/ratios")"
done
exit 0
