#!/usr/bin/env bash
# The search index on PostgreSQL against the SQLite index, on the same machine, the same
# generated library and in the same run (issue 34). A PostgreSQL server of the script's own
# (initdb in the work folder, a socket there, the distribution's default settings).
#   1. fresh `yiana index` of N documents into each: seconds, PostgreSQL / SQLite   goal <= 2x
#      and the index's size on disk (the SQLite file; the yiana tables with their indexes)
#   2. reindex per changed document: 200 documents given new contents, then (reindex - no-op)
#      / 200 for each index, at each size, the median of three rounds               goal flat
#   3. at the largest size, bench-search's 200 queries as `yiana search --json --limit 10`:
#      the top-10 documents of each index compared (overlap, the queries that differ)
#                                                                                   goal >= 90%
#   4. at the largest size, search p50/p99 with 1, 8 and 32 clients at once: whole `yiana
#      search` commands (the 200 queries), and `yiana serve` under wrk (1,560 two-word
#      queries in turn, none of them kept by the server), for each index          goal p99 <= 50 ms at 32
#      beside the floor: the engines' own tools running the bare ranked query (top 200 pages) of
#      200 of those two-word queries, 1, 8 and 32 at once (`sqlite3` with FTS5's bm25; `psql`
#      with the ranking `yiana search` asks for)
# Usage: Scripts/bench/postgres.sh [SIZES] [SECONDS per wrk run]   (default "10000 100000", 15)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh postgresql wrk bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
read -r -a sizes <<< "${1:-10000 100000}"
duration="${2:-15}"
serve_work bench-postgres
start_postgres
echo "PostgreSQL $(psql_ -d postgres -c 'SHOW server_version'), shared_buffers $(psql_ -d postgres -c 'SHOW shared_buffers'), fsync $(psql_ -d postgres -c 'SHOW fsync'); SQLite $(sqlite3 -version 2>/dev/null | cut -d' ' -f1)"

index_seconds() {  # index_seconds LIBRARY INDEX: seconds of one `yiana index`, which must succeed
    local s e
    s=$(date +%s.%N)
    "$yiana" index --library "$1" --index "$2" --jobs 2 >/dev/null 2>"$work/index.err" || { cat "$work/index.err" >&2; exit 1; }
    e=$(date +%s.%N)
    echo "$e - $s" | bc -l
}
declare -A fresh_sqlite fresh_pg size_sqlite size_pg per_doc_sqlite per_doc_pg
for n in "${sizes[@]}"; do
    lib="$work/lib-$n"
    python3 Scripts/generate/library.py "$n" "$lib" >/dev/null
    psql_ -d postgres -c "CREATE DATABASE lib_$n"
    sqlite="$work/index-$n.sqlite" pg="postgres://yiana@$socket:$port/lib_$n"
    fresh_sqlite[$n]=$(index_seconds "$lib" "$sqlite")
    fresh_pg[$n]=$(index_seconds "$lib" "$pg")
    size_sqlite[$n]=$(du -cb "$sqlite"* | tail -1 | cut -f1)
    size_pg[$n]=$(psql_ -d "lib_$n" -c "CHECKPOINT; SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c WHERE c.relname LIKE 'yiana\_%' AND c.relkind = 'r'")
    # Reindex per changed document: three rounds, each 200 documents given new contents (another
    # generated library's files: new text, extracted) and indexed, against the median no-op run;
    # the median round. 200 and not a handful: a no-op run at 100,000 varies by a tenth of a second
    # (a third of the library when that is fewer).
    per=$(( n / 3 < 200 ? n / 3 : 200 ))
    noop_sqlite=$(for _ in 1 2 3; do index_seconds "$lib" "$sqlite"; done | median)
    noop_pg=$(for _ in 1 2 3; do index_seconds "$lib" "$pg"; done | median)
    python3 Scripts/generate/library.py $((per * 3)) "$work/changes-$n" 2 >/dev/null
    mapfile -t docs < <(find "$lib" -name '*.yianazip' | sort | head -$((per * 3)))
    mapfile -t changes < <(find "$work/changes-$n" -name '*.yianazip' | sort)
    rounds_sqlite=() rounds_pg=()
    for round in 0 1 2; do
        for i in $(seq $((round * per)) $((round * per + per - 1))); do cp "${changes[$i]}" "${docs[$i]}.tmp" && mv "${docs[$i]}.tmp" "${docs[$i]}"; done
        changed_sqlite=$(index_seconds "$lib" "$sqlite")
        changed_pg=$(index_seconds "$lib" "$pg")
        rounds_sqlite+=("$(echo "($changed_sqlite - $noop_sqlite) * 1000 / $per" | bc -l)")
        rounds_pg+=("$(echo "($changed_pg - $noop_pg) * 1000 / $per" | bc -l)")
    done
    per_doc_sqlite[$n]=$(printf '%.2f' "$(printf '%s\n' "${rounds_sqlite[@]}" | median)")
    per_doc_pg[$n]=$(printf '%.2f' "$(printf '%s\n' "${rounds_pg[@]}" | median)")
    printf '%7d documents: fresh index SQLite %7.2f s, PostgreSQL %7.2f s (%.2fx); size %s MB vs %s MB; per changed document %s ms vs %s ms (no-op %.2f s vs %.2f s)\n' \
        "$n" "${fresh_sqlite[$n]}" "${fresh_pg[$n]}" "$(echo "${fresh_pg[$n]} / ${fresh_sqlite[$n]}" | bc -l)" \
        "$((size_sqlite[$n] / 1000000))" "$((size_pg[$n] / 1000000))" "${per_doc_sqlite[$n]}" "${per_doc_pg[$n]}" "$noop_sqlite" "$noop_pg"
done

largest="${sizes[-1]}"
lib="$work/lib-$largest" sqlite="$work/index-$largest.sqlite" pg="postgres://yiana@$socket:$port/lib_$largest"
python3 Scripts/bench/queries.py "$work/queries.txt"
python3 - "$yiana" "$lib" "$sqlite" "$pg" "$work/queries.txt" "$work/pg" "$port" "lib_$largest" <<'PY'
import itertools, json, re, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
yiana, lib, sqlite, pg, queries_file, pg_socket, pg_port, pg_db = sys.argv[1:]
queries = [l.rstrip("\n").split("\t") for l in open(queries_file)]

def search(index, query, limit="10", scores=False):
    start = time.perf_counter()
    run = subprocess.run([yiana, "search", "--library", lib, "--index", index, "--json", "--limit", limit, *query], capture_output=True, text=True)
    took = time.perf_counter() - start
    hits = json.loads(run.stdout) if run.stdout.strip().startswith("[") else []
    paths = [(hit["path"], hit["score"]) if scores else hit["path"] for hit in hits]
    return took, paths, run.returncode, run.stderr.strip()

# Top ten against top ten. Every generated page has the same length, so pages with the same
# counts of the query's words have exactly the same bm25 score, and which of them make SQLite's
# top ten is its sort's accident: a PostgreSQL hit outside SQLite's top ten whose SQLite score
# equals SQLite's tenth is counted apart, as a tie.
overlaps, with_ties, differ, tied_places, places = [], [], [], 0, 0
for query in queries:
    _, wide, _, _ = search(sqlite, query, "200", scores=True)
    a = [path for path, _ in wide[:10]]
    _, b, status, error = search(pg, query)
    if status not in (0, 1):
        differ.append((query, "error: " + error[:100]))
        overlaps.append(0.0)
        with_ties.append(0.0)
        continue
    score = dict(wide)
    tenth = wide[min(len(wide), 10) - 1][1] if wide else None
    ties = sum(1 for path in set(b) - set(a) if path in score and score[path] == tenth)
    shared, most = len(set(a) & set(b)), max(len(a), len(b))
    overlaps.append(1.0 if most == 0 else shared / most)
    with_ties.append(1.0 if most == 0 else (shared + ties) / most)
    tied_places += ties
    places += most - shared
    if shared < most:
        differ.append((query, "%d of %d shared, %d of the others tied in SQLite (SQLite %d hits, PostgreSQL %d)" % (shared, most, ties, len(a), len(b))))
print("\ntop-10 overlap with the SQLite index, %d queries: %.1f%% on average (goal >= 90%%); %d the same, %d differ"
      % (len(queries), 100 * sum(overlaps) / len(overlaps), sum(1 for o in overlaps if o == 1), len(differ)))
print("   of the %d places that differ, %d are ties in SQLite's own ranking; counting those as agreeing: %.1f%%"
      % (places, tied_places, 100 * sum(with_ties) / len(with_ties)))
for query, why in differ[:20]:
    print("   %-40s %s" % (" ".join(query), why))

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] * 1000

print("\n%-44s %22s %22s" % ("yiana search, whole commands, 200 queries", "SQLite p50/p99", "PostgreSQL p50/p99"))
for clients in (1, 8, 32):
    row = []
    for index in (sqlite, pg):
        with ThreadPoolExecutor(clients) as pool:
            times = [r[0] for r in pool.map(lambda q: search(index, q, "20"), queries * (2 if clients > 1 else 1))]
        row.append("%8.1f / %7.1f ms" % (pct(times, .5), pct(times, .99)))
    print("%-44s %22s %22s" % ("  %d at once" % clients, *row))

# The floor: each engine's own tool, one process per query, the bare ranked query.
# The words of the serve benchmark's queries (Scripts/bench/wrk/misses.lua), its pairs in its order.
lua = open("Scripts/bench/wrk/misses.lua").read()
words = re.findall(r'"(\w+)"', lua[lua.index("local words"):lua.index("queries = {}")])
pairs = list(itertools.permutations(words, 2))[::8][:200]
def bare(tool, pair):
    a, b = pair
    if tool == "sqlite3":
        command = ["sqlite3", "-cmd", ".timeout 10000", sqlite, "SELECT count(*) FROM (SELECT page.rowid, bm25(page, 10.0, 1.0, 5.0, 2.0, 0.0, 0.0, 0.0) AS score "
                   f"FROM page WHERE page MATCH '\"{a}\" \"{b}\"' ORDER BY score LIMIT 200)"]
    else:
        command = ["psql", "-h", pg_socket, "-p", pg_port, "-U", "yiana", "-d", pg_db, "-X", "-q", "-A", "-t", "-c",
                   "SELECT count(*) FROM (SELECT p.document, ts_rank('{0.15, 0.2, 0.5, 1.0}', p.search, r, 1) AS score "
                   f"FROM yiana_page p, to_tsquery('yiana_english', '{a} & {b}') q, "
                   f"to_tsquery('yiana_english', '{a} | {b}') r WHERE p.library = (SELECT min(id) FROM yiana_library) AND p.search @@ q "
                   "ORDER BY score DESC, p.document LIMIT 200) s"]
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        print("   %s failed: %s" % (tool, run.stderr.strip()[:200]))
    return time.perf_counter() - start
print("\n%-44s %22s %22s" % ("floor: the bare query by the engine's tool", "sqlite3 p50/p99", "psql p50/p99"))
for clients in (1, 8, 32):
    row = []
    for tool in ("sqlite3", "psql"):
        with ThreadPoolExecutor(clients) as pool:
            times = list(pool.map(lambda pair: bare(tool, pair), pairs))
        row.append("%8.1f / %7.1f ms" % (pct(times, .5), pct(times, .99)))
    print("%-44s %22s %22s" % ("  %d at once" % clients, *row))
PY

# Through the server: one `yiana serve` per index, wrk with 1, 8 and 32 connections.
printf '\n%-44s %30s %30s\n' "yiana serve /api/search, wrk ${duration} s" "SQLite req/s p50 p99" "PostgreSQL req/s p50 p99"
cp Scripts/bench/wrk/misses.lua "$work/misses.lua"
load() {  # load CONNECTIONS: requests/s, p50, p99 (ms) and non-2xx of /api/search at `url`
    local threads=$(( $1 < 2 ? 1 : 2 ))
    BENCH_PATH="/api/search?limit=20&q=" wrk -t"$threads" -c"$1" -d"${duration}s" --latency -s "$work/misses.lua" "$url" > "$work/wrk.txt"
    echo "$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt") $(awk '$1 == "50%" {print $2}' "$work/wrk.txt") $(awk '$1 == "99%" {print $2}' "$work/wrk.txt") $(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")"
}
declare -A served
for which in sqlite pg; do
    [ "$which" = sqlite ] && index="$sqlite" || index="$pg"
    start_serve "$work" "$yiana" --library "$lib" --index "$index"
    for c in 1 8 32; do served[$which-$c]=$(load "$c"); done
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
done
for c in 1 8 32; do
    read -r a_rps a_p50 a_p99 a_bad <<< "${served[sqlite-$c]}"
    read -r b_rps b_p50 b_p99 b_bad <<< "${served[pg-$c]}"
    printf '%-44s %9s %8s %8s%s %9s %8s %8s%s\n' "  $c connections" "$a_rps" "$a_p50" "$a_p99" "${a_bad:+ ($a_bad non-2xx)}" \
        "$b_rps" "$b_p50" "$b_p99" "${b_bad:+ ($b_bad non-2xx)}"
done
