#!/usr/bin/env bash
# `yiana serve`'s /api/search under load on real documents (issue 47), beside the engine's
# floor in the same run:
#   - the corpus: every PDF of Debian's texlive-latex-base-doc (~270 manuals and papers,
#     ~8,000 pages), imported COPIES times into as many folders, indexed;
#   - QUERIES two-word queries taken from the indexed text (two words that stand side by side
#     on a page), all different, cycled by wrk with more of them than the server keeps answers
#     for, so that every request is searched;
#   - wrk at 1, 8 and 32 connections for SECONDS each: requests/s, p50, p99, and the bytes of an
#     answer (curl, the first 100 queries);
#   - the floor: for the same queries, the bare FTS5 top-200 statement and the same with the
#     snippets an answer carries (20 documents, 3 pages each): p50 and p99 one at a time
#     (Debian's libsqlite3), queries/s of two `sqlite3` processes at once (one per core), and
#     queries/s, p50 and p99 of 32 at once (as 32 people searching meet the engine);
#   - the same server on a PostgreSQL index of the same library (a server of the run's own),
#     beside PostgreSQL's floor: pgbench running the ranked statement with the headlines an
#     answer carries, at 1 and 32 clients.
#   - each server also with exact=1 (no word matched through a slip, issue 56), to show what
#     search that forgives costs queries whose words are all in the index.
# BEFORE=path/to/an/older/yiana runs its server too, on the same queries: on the same SQLite
# index, and on a PostgreSQL index of its own making (stored as it stored it).
# Usage: Scripts/bench/search-load.sh [COPIES] [SECONDS] [QUERIES]   (default 2 20 800)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh texlive-latex-base-doc wrk sqlite3 curl bc postgresql $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
copies="${1:-2}"
duration="${2:-20}"
count="${3:-800}"
serve_work bench-search-load
errors=0  # loads with answers other than 2xx: the figures of those are not of searches

mapfile -t corpus < <(dpkg -L texlive-latex-base-doc | grep '\.pdf$' | sort)
for copy in $(seq 1 "$copies"); do
    "$yiana" import --library "$work/lib" --into "Copy $copy" --allow-duplicates "${corpus[@]}" >/dev/null 2>&1 || true
done
index="$work/index.sqlite"
"$yiana" index --library "$work/lib" --index "$index" --jobs 2 >/dev/null 2>&1 || true
read -r documents pages < <(sqlite3 -separator " " "$index" "SELECT (SELECT count(*) FROM document), (SELECT count(*) FROM page)")
echo "corpus: ${#corpus[@]} PDFs x $copies folders = $documents documents, $pages indexed pages; $count queries, all different"

# Two words side by side on a page, each of three letters or more, every pair once.
python3 - "$index" "$count" > "$work/queries.txt" <<'PY'
import random, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT body FROM page WHERE length(body) > 200").fetchall()
rng, seen, out = random.Random(47), set(), []
while len(out) < int(sys.argv[2]):
    words = re.findall(r"[a-z]{3,}", rng.choice(rows)[0].lower())
    if len(words) < 2: continue
    i = rng.randrange(len(words) - 1)
    pair = f"{words[i]} {words[i + 1]}"
    if words[i] != words[i + 1] and pair not in seen:
        seen.add(pair); out.append(pair)
print("\n".join(out))
PY
cat > "$work/queries.lua" <<LUA
queries = {}
for line in io.lines("$work/queries.txt") do queries[#queries + 1] = line end
local threads = 0
function setup(thread) thread:set("offset", threads * math.floor(#queries / 2)); threads = threads + 1 end
local i = nil
request = function()
  i = (i or offset or 0) % #queries + 1
  return wrk.format("GET", "/api/search?limit=20" .. (os.getenv("EXTRA_QUERY") or "") .. "&q=" .. queries[i]:gsub(" ", "%%20"))
end
LUA

load() {  # load CONNECTIONS: requests/s, p50 ms, p99 ms, non-2xx
    local threads=$(( $1 < 2 ? 1 : 2 ))
    EXTRA_QUERY="${extra:-}" wrk -t"$threads" -c"$1" -d"${duration}s" --latency -s "$work/queries.lua" "$url" > "$work/wrk.txt"
    awk '/Requests\/sec/ {r = $2} $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2} /Non-2xx/ {bad = $5}
         END {printf "%s %s %s %s\n", r, p50, p99, bad == "" ? 0 : bad}' "$work/wrk.txt"
}
bytes() {  # the mean bytes of an answer to the first 100 queries
    head -100 "$work/queries.txt" | while read -r q; do
        curl -s -o /dev/null -w '%{size_download}\n' "${url}api/search?limit=20${extra:-}&q=${q// /%20}"
    done | awk '{s += $1} END {printf "%.0f", s / NR}'
}
measure() {  # measure LABEL YIANA SERVE-ARGUMENTS...: one line per load, and the bytes
    local label="$1" binary="$2"
    shift 2
    start_serve "$work" "$binary" "$@"
    curl -s -o /dev/null "${url}api/search?q=warm%20up"
    local size; size=$(bytes)
    for connections in 1 8 32; do
        read -r rps p50 p99 bad < <(load "$connections")
        printf '%-26s %3d connections: %8s req/s  p50 %8s  p99 %8s  non-2xx %s  bytes/answer %s\n' \
            "$label" "$connections" "$rps" "$p50" "$p99" "$bad" "$size"
        if [ "$bad" != 0 ]; then errors=$((errors + 1)); fi
    done
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
}

# The floor: the same searches in the sqlite3 CLI (bm25 weights and tokenizer as yiana's).
python3 - "$work/queries.txt" "$work" <<'PY'
import os, subprocess, sys
queries, work = sys.argv[1], sys.argv[2]
yiana_fts = []
for line in open(queries):
    words = line.split()
    yiana_fts.append(" ".join('"' + w.replace('"', '""') + '"' for w in words))
weights = "10.0, 1.0, 5.0, 2.0, 0.0, 0.0, 0.0"
bare = [f"SELECT rowid, bm25(page, {weights}) AS s FROM page WHERE page MATCH '{q}' ORDER BY s LIMIT 200;" for q in yiana_fts]
snip = [f"""WITH top AS (SELECT rowid AS r, rowid >> 20 AS d, bm25(page, {weights}) AS s FROM page WHERE page MATCH '{q}' ORDER BY s LIMIT 200),
docs AS (SELECT d FROM top GROUP BY d ORDER BY min(s) LIMIT 20),
chosen AS (SELECT r FROM (SELECT r, row_number() OVER (PARTITION BY d ORDER BY s) AS k FROM top WHERE d IN (SELECT d FROM docs)) WHERE k <= 3)
SELECT rowid, snippet(page, 1, char(2), char(3), '…', 12), snippet(page, -1, char(2), char(3), '…', 12)
FROM page WHERE page MATCH '{q}' AND +rowid IN (SELECT r FROM chosen);""" for q in yiana_fts]
for name, statements in (("bare", bare), ("snippets", snip)):
    with open(os.path.join(work, f"floor-{name}.sql"), "w") as f:
        f.write(".output /dev/null\n" + "\n".join(statements) + "\n")
PY
floor() {  # floor NAME: p50 and p99 ms one statement at a time, queries/s of two processes at once
    local p50 p99 start end
    # One at a time through Debian's libsqlite3 (/usr/bin/python3's module: the CLI's timer
    # counts whole milliseconds), each statement run to its last row.
    read -r p50 p99 < <(/usr/bin/python3 -c '
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
statements = [s for s in open(sys.argv[2]).read().split(";\n") if s.strip() and not s.lstrip().startswith(".")]
times = []
for statement in statements:
    start = time.perf_counter()
    db.execute(statement).fetchall()
    times.append((time.perf_counter() - start) * 1000)
times.sort()
print(f"{times[len(times) // 2]:.2f} {times[min(len(times) - 1, int(len(times) * 0.99))]:.2f}")
' "$index" "$work/floor-$1.sql")
    start=$(date +%s.%N)
    sqlite3 "$index" < "$work/floor-$1.sql" >/dev/null 2>&1 & local a=$!
    sqlite3 "$index" < "$work/floor-$1.sql" >/dev/null 2>&1 & local b=$!
    wait "$a" "$b"
    end=$(date +%s.%N)
    printf 'floor, sqlite3 %-10s one at a time: p50 %s ms  p99 %s ms; two processes: %.0f queries/s\n' \
        "$1:" "$p50" "$p99" "$(echo "2 * $count / ($end - $start)" | bc -l)"
}
floor bare
floor snippets
# The floor as 32 people searching at once meet it: 32 processes, each running the snippets
# statements one after another for SECONDS (Debian's libsqlite3): queries/s, p50 and p99.
for k in $(seq 0 31); do
    /usr/bin/python3 -c '
import sqlite3, sys, time
statements = [s for s in open(sys.argv[2]).read().split(";\n") if s.strip() and not s.lstrip().startswith(".")]
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
deadline, i = time.time() + float(sys.argv[4]), int(sys.argv[3]) * 25
while time.time() < deadline:
    start = time.perf_counter()
    db.execute(statements[i % len(statements)]).fetchall()
    print(f"{(time.perf_counter() - start) * 1000:.3f}")
    i += 1
' "$index" "$work/floor-snippets.sql" "$k" "$duration" > "$work/floor32.$k" &
done
wait
cat "$work"/floor32.* | sort -g | awk -v s="$duration" '{a[NR] = $1}
    END {printf "floor, sqlite3 snippets:  32 at once: %.0f queries/s  p50 %.1f ms  p99 %.1f ms\n", NR / s, a[int(NR * 0.5) + 1], a[int(NR * 0.99) + 1]}'

measure "yiana serve, SQLite" "$yiana" --library "$work/lib" --index "$index" --read-only
# The same with exact=1: what search that forgives (issue 56) costs these queries, which all
# have their words as typed somewhere (many in fewer documents than the 20 asked for: then the
# approximate ones are looked for too).
extra="&exact=1" measure "yiana serve, SQLite, exact=1" "$yiana" --library "$work/lib" --index "$index" --read-only
if [ -n "${BEFORE:-}" ]; then
    measure "before ($(basename "$BEFORE")), SQLite" "$BEFORE" --library "$work/lib" --index "$index" --read-only
fi

start_postgres
psql_ -d postgres -c "CREATE DATABASE lib" >/dev/null
pg="postgres://yiana@$socket:$port/lib"
"$yiana" index --library "$work/lib" --index "$pg" --jobs 2 >/dev/null 2>&1 || true
# PostgreSQL's own floor, by pgbench on the same server and index: the ranked top-200 statement
# and the headlines an answer carries (20 documents, 3 pages), a query drawn at random from the
# same ones per transaction, at 1 and 32 clients for SECONDS: transactions/s, p50 and p99.
awk -v q="'" '{printf "%d\t%s%s%s & %s%s%s\t%s%s%s | %s%s%s\n", NR, q, $1, q, q, $2, q, q, $1, q, q, $2, q}' "$work/queries.txt" > "$work/bench_q.tsv"
psql_ -d lib -c "CREATE TABLE bench_q (i int PRIMARY KEY, a text, o text)" -c "\copy bench_q FROM '$work/bench_q.tsv'"
library_id=$(psql_ -d lib -c "SELECT id FROM yiana_library LIMIT 1")
cat > "$work/pg-floor.sql" <<SQL
\set i random(1, $count)
WITH q AS (SELECT to_tsquery('yiana_english', a) AS q, to_tsquery('yiana_english', o) AS r FROM bench_q WHERE i = :i),
top AS (SELECT p.document, p.number, p.source, ts_rank('{0.15, 0.2, 0.5, 1.0}', p.search, q.r, 1)::float8 AS s
        FROM yiana_page p, q WHERE p.library = $library_id AND p.search @@ q.q ORDER BY s DESC LIMIT 200),
docs AS (SELECT document FROM top GROUP BY document ORDER BY max(s) DESC LIMIT 20),
chosen AS (SELECT document, number, source FROM (SELECT *, row_number() OVER (PARTITION BY document ORDER BY s DESC) AS k
           FROM top WHERE document IN (SELECT document FROM docs)) t WHERE k <= 3)
SELECT ts_headline('yiana_english', p.body, q.q, 'MaxWords=24, MinWords=10, ShortWord=2, HighlightAll=false, MaxFragments=1')
FROM chosen c JOIN yiana_page p ON p.document = c.document AND p.number = c.number AND p.source = c.source, q;
SQL
for clients in 1 32; do
    rm -f "$work"/pgl.*
    (cd "$work" && pgbench -h "$work/pg" -p "$port" -U yiana -n -f pg-floor.sql -c "$clients" -j $(( clients < 2 ? 1 : 2 )) -T "$duration" -l --log-prefix=pgl lib) > "$work/pgbench.txt" 2>&1
    tps=$(awk '/^tps/ {printf "%.0f", $3}' "$work/pgbench.txt")
    cat "$work"/pgl.* | awk '{print $3 / 1000}' | sort -g | awk -v c="$clients" -v t="$tps" '{a[NR] = $1}
        END {printf "floor, PostgreSQL (pgbench) %2d clients: %s queries/s  p50 %.1f ms  p99 %.1f ms\n", c, t, a[int(NR * 0.5) + 1], a[int(NR * 0.99) + 1]}'
done
measure "yiana serve, PostgreSQL" "$yiana" --library "$work/lib" --index "$pg" --read-only
extra="&exact=1" measure "yiana serve, PostgreSQL, exact=1" "$yiana" --library "$work/lib" --index "$pg" --read-only
if [ -n "${BEFORE:-}" ]; then
    # On an index of its own making, as it stored it (an older yiana kept the pages' word lists
    # out of their rows; this one's index has them in).
    psql_ -d postgres -c "CREATE DATABASE before" >/dev/null
    "$BEFORE" index --library "$work/lib" --index "postgres://yiana@$socket:$port/before" --jobs 2 >/dev/null 2>&1 || true
    measure "before, PostgreSQL" "$BEFORE" --library "$work/lib" --index "postgres://yiana@$socket:$port/before" --read-only
fi
if [ "$errors" != 0 ]; then
    echo "FAILED: $errors of the loads had answers other than 2xx (their figures are not of searches)" >&2
    exit 1
fi
