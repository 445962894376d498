#!/usr/bin/env bash
# `yiana status` (its summary of the whole library) on N generated documents (default 10,000)
# with a fresh search index, against the floor of what it must read, in the same run: `find`
# listing every file with its size, time and inode, plus `sqlite3` reading the index's record
# of every document. Alternating, medians of RUNS; then the summary's own account of what it read.
# Usage: Scripts/bench/status.sh [DOCUMENTS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh sqlite3 bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
documents="${1:-10000}"
runs="${2:-7}"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-status-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"

python3 Scripts/generate/library.py "$documents" "$work/lib" >/dev/null
"$yiana" index --library "$work/lib" >/dev/null
index=$(ls "$work"/cache/yiana-tools/index-*.sqlite)
floor() {
    find "$work/lib" -printf '%s %T@ %i %p\n' >/dev/null
    sqlite3 -readonly "$index" "SELECT path, status, fileSize, fileModified, fileInode FROM document" >/dev/null
}
ours=(); reference=()
for _ in $(seq "$runs"); do
    ours+=("$(seconds "$yiana" status --library "$work/lib")")
    reference+=("$(seconds floor)")
done
a=$(printf '%s\n' "${ours[@]}" | median); b=$(printf '%s\n' "${reference[@]}" | median)
printf '\n%-58s %10s %10s %8s\n' "yiana status on $documents documents (median of $runs)" "yiana s" "floor s" "ratio"
printf '%-58s %10.3f %10.3f %7.2fx\n' "summary vs find + sqlite3 reading the same records" "$a" "$b" "$(echo "$a / $b" | bc -l)"
"$yiana" status --library "$work/lib" --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
print("its summary: %d documents, %d fine, states %s; gathered in %.3f s; read: %s" % (
    s["documents"], s["fine"], {x["state"]: x["count"] for x in s["states"]}, s["seconds"], s["read"]))'
