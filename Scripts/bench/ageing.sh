#!/usr/bin/env bash
# A library that has lived (issue 57): the watcher's figures (Scripts/bench/watch-measure.sh:
# arrival -> searchable, deletion -> listed, peak RSS, a no-op `index` and one with one
# change, `status`, `versions list --deleted`, `versions list DOC`) on a generated library of
# DOCUMENTS when it is young (indexed once: every document one state), then again after
# ROUNDS rounds of churn (Scripts/bench/ageing-churn.py) on another device's copy of it,
# each carried in by unison, indexed as the watcher does (`yiana index`, which keeps every
# state it sees) and followed by the keeper's prune (`yiana versions prune`, as the watcher's
# daily one): every document edited each round, 2% deleted and brought back the round after.
# Ten rounds are a year of five-weekly edits: at least 10 states per document (an eleventh,
# deleting nothing, brings the last deletions back).
# The states' times are the run's own minutes, so retention's thinning by age drops none of
# them: the history kept is the most a year can leave, not less. Prints each round's time,
# the history the keeper holds at the end, both rows, and each aged figure over its young one
# (goal ≤ 1.2×).
# Usage: Scripts/bench/ageing.sh [DOCUMENTS] [ROUNDS] [ARRIVALS]   (default 10000 10 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
source Scripts/bench/watch-measure.sh
Scripts/setup.sh bc unison $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=: another build of it (a "before")
documents="${1:-10000}"
rounds="${2:-10}"
arrivals="${3:-20}"
bench_work bench-ageing
trap 'stop_watcher; rm -rf "$work"' EXIT
export YIANA_SETTLE_SECONDS=0 UNISON="$work/unison"
lib="$work/lib"

python3 Scripts/generate/library.py "$((documents + 2 * arrivals))" "$lib" >/dev/null
set_aside "$lib" "$work/arrive-young" "$documents" "$arrivals"
set_aside "$lib" "$work/arrive-aged" "$((documents + arrivals))" "$arrivals"
"$yiana" index --library "$lib" >/dev/null
watch_header
watch_measure young "$lib" "$work/arrive-young"
young=("${measured[@]}")

# Another device's copy, kept in step by unison (its archives in the run's folder).
cp -a "$lib" "$work/device"
carry_in() {
    for _ in 1 2 3 4 5; do
        out=$(unison "$work/device" "$lib" -batch -times -confirmbigdel=false -ui text 2>&1 || true)
        grep -q "Nothing to do" <<< "$out" && return 0
    done
    echo "unison did not settle: $out" >&2
    return 1
}
carry_in
# The rounds, then one more that deletes nothing: what the last round deleted comes back, and
# the library lists as lost only what the measurement deletes, as it did young.
for round in $(seq "$((rounds + 1))"); do
    start=$(now)
    did=$(python3 Scripts/bench/ageing-churn.py "$work/device" "$work/attic" "$round" "$([ "$round" -le "$rounds" ] && echo 0.02 || echo 0)")
    carry_in
    "$yiana" index --library "$lib" >/dev/null
    "$yiana" versions prune --library "$lib" >/dev/null
    printf '%s; carried in, indexed and pruned in %.0f s\n' "$did" "$(echo "$(now) - $start" | bc -l)"
done
keeper=$(ls -d "$XDG_STATE_HOME"/yiana-tools/libraries/*/keeper)
states=$(grep -c '^[^#]' "$keeper/journal.tsv" || true)
echo "history: $(find "$lib" -name '*.yianazip' | wc -l) documents; journal $states lines ($(du -m "$keeper/journal.tsv" | cut -f1) MB)," \
     "catalog $(du -mc "$keeper"/catalog.sqlite* | tail -1 | cut -f1) MB, $(find "$keeper/objects" -type f | wc -l) objects, store $(du -sm "$keeper/objects" | cut -f1) MB"
watch_measure aged "$lib" "$work/arrive-aged"
aged=("${measured[@]}")
names=("arrival -> searchable" "deletion -> listed" "peak RSS" "no-op index" "index, 1 change" status "versions list --deleted" "versions list DOC")
for i in "${!names[@]}"; do
    printf '%-24s young %7.3f  aged %7.3f  %.2fx\n' "${names[$i]}" "${young[$i]}" "${aged[$i]}" "$(echo "${aged[$i]} / ${young[$i]}" | bc -l)"
done
