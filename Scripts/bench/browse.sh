#!/usr/bin/env bash
# The start page without a query (issue 44): `yiana serve`'s listing of a library of DOCS
# generated documents (default 100,000, in 10 folders of 10,000, four tags), from its index.
# Each view is asked for REQUESTS times one after the other over loopback (curl); printed: the
# server's time per answer (curl's time to the first byte) p50 / p99, and the bytes sent. Beside
# it, in the same run, the floor: `sqlite3` running the same queries on the same index (the
# count and the page; the outline's two GROUP BYs the server keeps while the index is
# unchanged) in one process per view.
#   Goal: the first page of 100,000 documents in <= 100 ms p99.
# Usage: Scripts/bench/browse.sh [DOCS] [REQUESTS]   (defaults 100000, 50)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh sqlite3 curl $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
docs="${1:-100000}"
requests="${2:-50}"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-browse-XXXXXX")"
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" YIANA_KEEP=off

python3 Scripts/generate/library.py "$docs" "$work/lib" 1 10
index="$work/index.sqlite"
"$yiana" index --library "$work/lib" --index "$index" --jobs 2 >/dev/null
start_serve "$work" "$yiana" --library "$work/lib" --index "$index"

percentiles() { sort -n | awk '{a[NR]=$1} END {m=int(NR*0.5)+1; h=int(NR*0.99)+1; if (h > NR) h=NR; printf "p50 %.1f ms, p99 %.1f ms", a[m]*1000, a[h]*1000}'; }
view() {  # NAME QUERY SQL-FILTER SQL-ORDER OFFSET
    local name="$1" query="$2" filter="$3" order="$4" offset="$5" times bytes
    times=$(for _ in $(seq "$requests"); do curl -s -o /dev/null -w '%{time_starttransfer}\n' "${url}${query}"; done | percentiles)
    bytes=$(curl -s "${url}${query}" | wc -c)
    local sql="SELECT count(*) FROM document d WHERE 1 $filter; SELECT d.path, d.folder, d.title, d.tags, d.modified, d.status, d.pageCount FROM document d WHERE 1 $filter ORDER BY $order LIMIT 50 OFFSET $offset;"
    local floor
    floor=$(for _ in $(seq 10); do s=$(date +%s.%N); sqlite3 "$index" "$sql" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; done | percentiles)
    printf '%-44s server %s, %s bytes | sqlite3, same queries: %s\n' "$name" "$times" "$bytes" "$floor"
}
echo "== the start page of $docs documents ($requests requests each)"
view "first page, newest first" "" "" "d.modified DESC, d.path" 0
view "by title, page 100" "?sort=title&page=100" "" "d.title COLLATE NOCASE, d.path" 4950
view "a folder of $((docs / 10)), first page" "?folder=Folder%2003" "AND (d.folder = 'Folder 03' OR (d.folder >= 'Folder 03/' AND d.folder < 'Folder 030'))" "d.modified DESC, d.path" 0
view "a folder of $((docs / 10)), last page" "?folder=Folder%2003&page=$((docs / 10 / 50))" "AND (d.folder = 'Folder 03' OR (d.folder >= 'Folder 03/' AND d.folder < 'Folder 030'))" "d.modified DESC, d.path" $((docs / 10 - 50))
view "a tag (a quarter of them), oldest first" "?tag=tax&sort=oldest" "AND d.id IN (SELECT document FROM document_tag WHERE tag = 'tax')" "d.modified ASC, d.path" 0
