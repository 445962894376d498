#!/usr/bin/env bash
# The keeper's cost (every document state seen kept, outside the synced folder):
# 1. a no-op `yiana index` of N generated documents (default 10,000) with the keeper and
#    without it (YIANA_KEEP=off), alternating, medians of RUNS: the ratio (goal ≤ 1.1×);
# 2. the first run that keeps every document, against the same first run without the keeper,
#    beside the floor of what keeping must do: `cp -al` (a link per file) plus `sha256sum`
#    (every byte hashed);
# 3. the keeper's extra disk before any change on libraries of 1,000 documents (generated
#    one-page letters, and scanned letters): `du` of the library and the store together (links
#    counted once) against the library alone (goal ≤ 1% with links), beside the floor of any
#    link per document (`cp -al`); in copy mode every state is a copy: the library's size.
# Usage: Scripts/bench/keeper.sh [DOCUMENTS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=: another build of it (a "before")
documents="${1:-10000}"
runs="${2:-7}"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-keeper-XXXXXX")"
trap 'rm -rf "$work"' EXIT
python3 Scripts/generate/library.py "$documents" "$work/lib" >/dev/null
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

# Disk before any change, 1,000 documents: generated one-page letters (about 4 KB each), and
# scanned letters (the sample scans, 320-465 KB each, each document its own metadata). The
# floor: a tree of hard links to the library's files (`cp -al`), what a link per document
# costs in directory entries whatever keeps them.
disk() {
    local lib="$1" what="$2"
    XDG_STATE_HOME="$work/$what-state" XDG_CACHE_HOME="$work/$what-cache" "$yiana" index --library "$lib" >/dev/null || true
    local store library_kb both_kb extra floor_kb
    store=$(ls -d "$work/$what-state"/yiana-tools/libraries/*/keeper)
    library_kb=$(du -sk "$lib" | cut -f1)
    both_kb=$(du -sk "$lib" "$store" | awk '{s += $1} END {print s}')
    extra=$((both_kb - library_kb))
    cp -al "$lib" "$work/$what-links"
    floor_kb=$(( $(du -sk "$lib" "$work/$what-links" | awk '{s += $1} END {print s}') - library_kb ))
    echo "disk, 1000 $what: library ${library_kb} KiB; the keeper's extra ${extra} KiB with links" \
         "($(echo "100 * $extra / $library_kb" | bc -l | cut -c1-5)% of the library; goal <= 1%); floor (cp -al) ${floor_kb} KiB" \
         "($(echo "100 * $floor_kb / $library_kb" | bc -l | cut -c1-5)%); in copy mode the states take the library's size again (100%)"
}
python3 Scripts/generate/library.py 1000 "$work/small" >/dev/null
disk "$work/small" "generated one-page documents"
python3 - "$work/scans" SampleDocs/scans/*.pdf <<'PY'
import json, os, sys, uuid, zipfile
out, pdfs = sys.argv[1], sys.argv[2:]
os.makedirs(out, exist_ok=True)
for n in range(1000):
    meta = {"id": str(uuid.UUID(int=n + 1)).upper(), "title": "Scanned letter %d" % n, "created": 8.1e8 + n,
            "modified": 8.1e8 + n, "pageCount": 1, "tags": [], "ocrCompleted": False}
    with zipfile.ZipFile(os.path.join(out, "Scanned letter %d.yianazip" % n), "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
        z.write(pdfs[n % len(pdfs)], "content.pdf")
        z.writestr("format.json", '{"formatVersion":2}')
PY
disk "$work/scans" "scanned letters"

# 4. Under `yiana watch`: from a deletion arriving (a document removed, as a sync program
# removes it) to `versions list --deleted` listing it; median of RUNS deletions, one at a time.
export XDG_STATE_HOME="$work/watch-state" XDG_CACHE_HOME="$work/watch-cache"
python3 Scripts/generate/library.py 1000 "$work/watched" >/dev/null
"$yiana" index --library "$work/watched" >/dev/null
"$yiana" watch --library "$work/watched" >/dev/null 2>&1 &
watcher=$!
trap 'kill $watcher 2>/dev/null; rm -rf "$work"' EXIT
sleep 2
latencies=()
mapfile -t victims < <(find "$work/watched" -name '*.yianazip' | sort | head -"$runs")
for victim in "${victims[@]}"; do
    name="${victim#"$work/watched/"}"
    start=$(date +%s.%N)
    rm "$victim"
    until "$yiana" versions list --deleted --json --library "$work/watched" | grep -qF "\"path\" : \"$name\""; do sleep 0.05; done
    latencies+=("$(echo "$(date +%s.%N) - $start" | bc -l)")
done
kill $watcher 2>/dev/null || true
echo "under watch, 1000 documents: a deletion listed by versions list --deleted after $(printf '%s\n' "${latencies[@]}" | median | cut -c1-5) s (median of $runs; the watcher waits for 0.5 s without events, then looks)"
