#!/usr/bin/env bash
# `yiana watch` at library scale (issue 57): for each SIZE, a generated library
# (Scripts/generate/library.py) watched from its first pass (nothing of it known yet), and
# the figures Scripts/bench/watch-measure.sh takes: ARRIVALS new documents renamed in, each
# timed until `yiana search` finds it; as many removed, each timed until `yiana versions
# list --deleted` lists it; the watcher's peak RSS; then a no-op `yiana index`, `index` after
# one change, `status`, `versions list --deleted` and `versions list DOC`.
# Usage: Scripts/bench/watch-scale.sh [SIZES] [ARRIVALS]   (default "1000 10000 100000" 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
source Scripts/bench/watch-measure.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=: another build of it (a "before")
read -r -a sizes <<< "${1:-1000 10000 100000}"
arrivals="${2:-20}"
bench_work bench-watch-scale
trap 'stop_watcher; rm -rf "$work"' EXIT
export YIANA_SETTLE_SECONDS=0

watch_header
for size in "${sizes[@]}"; do
    lib="$work/lib-$size"
    export XDG_STATE_HOME="$work/state-$size" XDG_CACHE_HOME="$work/cache-$size"
    # The library and, numbered after it, the documents that will arrive (kept outside it).
    python3 Scripts/generate/library.py "$((size + arrivals))" "$lib" >/dev/null
    set_aside "$lib" "$work/arrive-$size" "$size" "$arrivals"
    watch_measure "$size" "$lib" "$work/arrive-$size"
    rm -rf "$lib" "$work/arrive-$size" "$work/state-$size" "$work/cache-$size"
done
