#!/usr/bin/env bash
# The keeper's cost (every document state seen kept, outside the synced folder):
# 1. a no-op `yiana index` of N generated documents (default 10,000) with the keeper and
#    without it (YIANA_KEEP=off), alternating, medians of RUNS: the ratio (goal ≤ 1.1×);
# 2. the first run that keeps every document, against the same first run without the keeper,
#    beside the floor of what keeping must do: `cp -al` (a link per file) plus `sha256sum`
#    (every byte hashed);
# 3. the keeper's extra disk before any change on a library of 1,000 documents: `du` of the
#    library and the store together (links counted once) against the library alone (goal
#    ≤ 1% with links); in copy mode every state is a copy, so the cost is the library's size.
# Usage: Scripts/bench-keeper.sh [DOCUMENTS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/bench-common.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
documents="${1:-10000}"
runs="${2:-7}"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-keeper-XXXXXX")"
trap 'rm -rf "$work"' EXIT
python3 Scripts/make-library.py "$documents" "$work/lib" >/dev/null
cp -a "$work/lib" "$work/lib-off"

# First runs: one that keeps every document, one without the keeper (each its own state).
first_on=$(XDG_STATE_HOME="$work/on/state" XDG_CACHE_HOME="$work/on/cache" seconds "$yiana" index --library "$work/lib")
first_off=$(YIANA_KEEP=off XDG_STATE_HOME="$work/off/state" XDG_CACHE_HOME="$work/off/cache" seconds "$yiana" index --library "$work/lib-off")
floor() { cp -al "$work/lib" "$work/links"; find "$work/lib" -name '*.yianazip' -print0 | xargs -0 sha256sum >/dev/null; rm -rf "$work/links"; }
first_floor=$(seconds floor)
store=$(ls -d "$work"/on/state/yiana-tools/libraries/*/keeper)
echo "first run, $documents documents: with the keeper ${first_on} s, without ${first_off} s ($(echo "$first_on / $first_off" | bc -l | cut -c1-4)x);" \
     "the keeping itself $(echo "$first_on - $first_off" | bc -l | cut -c1-5) s against cp -al + sha256sum ${first_floor} s"
echo "objects kept: $(ls "$store/objects" | wc -l), journal $(du -k "$store/journal.tsv" | cut -f1) KiB"

# No-op runs, alternating.
on=(); off=()
for _ in $(seq "$runs"); do
    on+=("$(XDG_STATE_HOME="$work/on/state" XDG_CACHE_HOME="$work/on/cache" seconds "$yiana" index --library "$work/lib")")
    off+=("$(YIANA_KEEP=off XDG_STATE_HOME="$work/off/state" XDG_CACHE_HOME="$work/off/cache" seconds "$yiana" index --library "$work/lib-off")")
done
a=$(printf '%s\n' "${on[@]}" | median); b=$(printf '%s\n' "${off[@]}" | median)
echo "no-op index, $documents documents (median of $runs): with the keeper $a s, without $b s: $(echo "$a / $b" | bc -l | cut -c1-4)x (goal <= 1.1x)"

# Disk before any change, 1,000 documents.
python3 Scripts/make-library.py 1000 "$work/small" >/dev/null
XDG_STATE_HOME="$work/small-state" XDG_CACHE_HOME="$work/small-cache" "$yiana" index --library "$work/small" >/dev/null
small_store=$(ls -d "$work"/small-state/yiana-tools/libraries/*/keeper)
library_kb=$(du -sk "$work/small" | cut -f1)
both_kb=$(du -sk "$work/small" "$small_store" | awk '{s += $1} END {print s}')
extra=$((both_kb - library_kb))
echo "disk, 1000 documents: library ${library_kb} KiB, keeper's extra ${extra} KiB with links ($(echo "100 * $extra / $library_kb" | bc -l | cut -c1-4)% of the library; goal <= 1%);" \
     "in copy mode the states would take the library's size again (${library_kb} KiB, 100%) plus the same journal"
