#!/usr/bin/env bash
# `yiana serve` under load and its page images, each against a reference in the same run:
#   1. wrk (32 connections, 2 threads) against /api/search on an index of N generated documents
#      (default 10,000), 20 queries in turn: requests/s and p50/p99 (target p99 <= 50 ms);
#      the same against the search page's HTML. Repeated queries are answered from the
#      server's kept answers (dropped when the index changes), so it runs once more with 1,560
#      two-word queries in turn, every one a miss, beside its floor: `sqlite3` running the same
#      FTS5 top-200 statements in two processes (one per core), queries/s;
#   2. a page image's first render (empty cache) vs `pdftoppm -png -scale-to-x 960` of the same
#      page, alternating, medians (target: as fast or faster), and served from the cache (target
#      >= 50x faster than the first render);
#   3. the server's RSS idle and after the load (target < 200 MB, flat);
#   4. a 200 MB PDF downloaded (streamed, CRC-checked): time against `unzip -p` of the same PDF
#      to /dev/null, and the server's peak RSS (VmHWM) after it.
# Usage: Scripts/bench/serve.sh [DOCUMENTS] [SECONDS per wrk run, default 20]
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh wrk poppler-utils bc curl sqlite3 $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=path measures another build (an older one, say)
bench="$(release_binary yiana-bench)"
documents="${1:-10000}"
duration="${2:-20}"
serve_work bench-serve

python3 Scripts/generate/library.py "$documents" "$work/lib" >/dev/null
"$yiana" import --library "$work/lib" --into Samples SampleDocs/pdfs/Flow\ control\ paper.pdf >/dev/null
"$yiana" index --library "$work/lib" >/dev/null
start_serve "$work" "$yiana" --library "$work/lib"
rss() { rss_mb "$server"; }
idle=$(rss)

cat > "$work/queries.lua" <<'LUA'
local words = {"account", "invoice", "statement", "tax return", "meeting minutes", "insurance", "receipt", "payment",
               "refund", "delivery", "warranty", "repair", "energy", "council", "school", "medical", "bank loan", "pension", "travel", "hotel"}
local i = 0
request = function()
  i = i % #words + 1
  return wrk.format("GET", os.getenv("BENCH_PATH") .. words[i]:gsub(" ", "%%20"))
end
LUA
cp Scripts/bench/wrk/misses.lua "$work/misses.lua"  # 1,560 two-word queries: none kept
load() {  # load PATH-PREFIX [SCRIPT]: requests/s, p50 and p99 in ms
    BENCH_PATH="$1" wrk -t2 -c32 -d"${duration}s" --latency -s "$work/${2:-queries}.lua" "$url" > "$work/wrk.txt"
    local rps p50 p99
    rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
    echo "$rps $p50 $p99 $(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")"
}
read -r api_rps api_p50 api_p99 api_bad < <(load "/api/search?limit=20&q=")
read -r page_rps page_p50 page_p99 page_bad < <(load "/?q=")
read -r miss_rps miss_p50 miss_p99 miss_bad < <(load "/api/search?limit=20&q=" misses)
loaded=$(rss)

# The floor of a miss: the same queries' FTS5 top-200 statement (as Scripts/bench/search.sh runs it)
# in sqlite3, one process per core, each all 1,560 in one process: queries per second.
python3 - "$work/misses.lua" > "$work/pairs.txt" <<'PY'
import re, sys
words = re.findall(r'"([a-z]+)"', open(sys.argv[1]).read().split("queries = {}")[0])
for a in words:
    for b in words:
        if a != b: print(a + "\t" + b)
PY
"$bench" fts5 "$work/pairs.txt" > "$work/pairs-fts5.txt"
index_file=$(ls "$work"/cache/yiana-tools/index-*.sqlite | head -1)
weights=$(grep -o 'bm25Weights = "[^"]*"' Sources/YianaSearch/SearchIndex.swift | cut -d'"' -f2)
sed "s/'/''/g; s/.*/SELECT rowid, rowid >> 20, bm25(page, $weights) AS score FROM page WHERE page MATCH '&' ORDER BY score LIMIT 200;/" \
    "$work/pairs-fts5.txt" > "$work/pairs.sql"
start=$(date +%s.%N)
sqlite3 -readonly "$index_file" < "$work/pairs.sql" > /dev/null & one=$!
sqlite3 -readonly "$index_file" < "$work/pairs.sql" > /dev/null & two=$!
wait "$one" "$two"
floor_qps=$(echo "2 * $(wc -l < "$work/pairs.sql") / ($(date +%s.%N) - $start)" | bc -l)

# Page images: page 1 of the flow-control paper, 960 pixels wide.
doc="Samples/Flow%20control%20paper.yianazip"
"$yiana" export --library "$work/lib" "Samples/Flow control paper" --pdf "$work/paper.pdf" >/dev/null
# One HTTP client kept open (no process start in the figures): the first render with the
# cache emptied before it, and the same image from the cache.
image() {  # image N-TIMES CLEAR(0/1): median seconds of one request
    python3 - "$url" "page-image?path=$doc&n=1&w=960" "$1" "$2" "$work"/cache/yiana-tools/libraries <<'PY'
import glob, http.client, shutil, statistics, sys, time, urllib.parse
base, path, times, clear, cache = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
host = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(host.hostname, host.port)
seconds = []
for _ in range(times):
    if clear:
        for folder in glob.glob(cache + "/*/pages"): shutil.rmtree(folder)
    start = time.perf_counter()
    connection.request("GET", "/" + path)
    response = connection.getresponse(); response.read()
    assert response.status == 200
    seconds.append(time.perf_counter() - start)
print("%.6f" % statistics.median(seconds))
PY
}
reference=()
for _ in $(seq 7); do reference+=("$(seconds pdftoppm -png -f 1 -l 1 -scale-to-x 960 -scale-to-y -1 "$work/paper.pdf" "$work/ref")"); done
a=$(image 7 1); b=$(printf '%s\n' "${reference[@]}" | median); c=$(image 51 0)
ours_png=$(curl -sf "${url}page-image?path=$doc&n=1&w=960" | wc -c); ref_png=$(stat -c %s "$work"/ref*.png)

printf '\n%-62s %s\n' "yiana serve, $documents documents, wrk -t2 -c32 -d${duration}s" "requests/s   p50      p99     non-2xx   target"
printf '%-62s %10s %8s %8s %8s   p99 <= 50 ms\n' "/api/search (20 queries in turn)" "$api_rps" "$api_p50" "$api_p99" "${api_bad:-0}"
printf '%-62s %10s %8s %8s %8s   -\n' "the search page's HTML (/?q=)" "$page_rps" "$page_p50" "$page_p99" "${page_bad:-0}"
printf '%-62s %10s %8s %8s %8s   -\n' "/api/search, 1,560 two-word queries in turn (all misses)" "$miss_rps" "$miss_p50" "$miss_p99" "${miss_bad:-0}"
printf '%-62s %10.0f   (32 connections at that rate: >= %.0f ms each, Little)\n' "  floor: sqlite3, the same FTS5 top-200 statements, 2 processes" "$floor_qps" "$(echo "32000 / $floor_qps" | bc -l)"
printf '%-62s %10s\n' "page image, first render (cache empty; one HTTP client), median of 7, s" "$a"
printf '%-62s %10s   ratio %.2fx (pdftoppm / yiana, target >= 1.0x)\n' "pdftoppm -png -scale-to-x 960 of the same page, s" "$b" "$(echo "$b / $a" | bc -l)"
printf '%-62s %10s   ratio %.0fx (first / cached, target >= 50x)\n' "page image from the cache, median of 51, s" "$c" "$(echo "$a / $c" | bc -l)"
printf '%-62s %10s bytes (pdftoppm %s)\n' "PNG size" "$ours_png" "$ref_png"
# A 200 MB PDF downloaded: streamed, so the server's peak RSS stays far below the PDF's size.
python3 Scripts/generate/big-pdf.py 200 "$work/200mb.pdf"
"$yiana" import --library "$work/lib" --into Big "$work/200mb.pdf" >/dev/null
big="Big/200mb.yianazip"
download=(); reference_unzip=()
for _ in 1 2 3; do
    download+=("$(seconds curl -sf -o /dev/null "${url}pdf?path=Big/200mb.yianazip")")
    reference_unzip+=("$(seconds sh -c "unzip -p '$work/lib/$big' content.pdf > /dev/null")")
done
d=$(printf '%s\n' "${download[@]}" | median); u=$(printf '%s\n' "${reference_unzip[@]}" | median)
peak=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$server/status")

printf '%-62s %s MB idle, %s MB after the load (target < 200 MB)\n' "RSS of yiana serve" "$idle" "$loaded"
printf '%-62s %10.3f   unzip -p to /dev/null %.3f s (ratio %.2fx); peak RSS of the server %s MB\n' \
    "a 200 MB PDF downloaded (curl, loopback), median of 3, s" "$d" "$u" "$(echo "$d / $u" | bc -l)" "$peak"
