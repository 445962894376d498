#!/usr/bin/env bash
# Index and search benchmarks for issue 3, references run in the same run:
#   1. extraction pages/s, `yiana index --full --jobs 1` vs `pdftotext` run file after file
#      on the same PDFs (Debian's texlive-latex-base-doc, ~270 PDFs, ~8,000 pages)  >= 1.0x
#   2. the same with all cores (`yiana index --full`) vs the same pdftotext run    >= 1.7x
#   3. word recall: of the words pdftotext finds on a page, the share the index holds for
#      that page                                                                      >= 99%
#   4. a no-op `yiana index` over 10,000 generated documents                          < 1 s
#   5. query latency of 100 varied queries on that index (words, phrases, prefixes,
#      numbers, tag/folder/date filters), the index opened once (yiana-bench)       p99 < 50 ms
#      Also shown, no target: the same queries as whole `yiana search` commands, which add
#      the process start (~20 ms: Swift, Foundation and poppler's libraries loading).
# Usage: Scripts/bench/index.sh [RUNS]   (default 3; tool and reference alternate, medians)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh texlive-latex-base-doc poppler-utils bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
bench="$(release_binary yiana-bench)"
runs="${1:-3}"
bench_work bench-index

ratio() { echo "scale=2; $1 / $2" | bc -l; }

# The corpus, imported as documents.
mapfile -t corpus < <(dpkg -L texlive-latex-base-doc | grep '\.pdf$' | sort)
mkdir "$work/lib"
"$yiana" import --library "$work/lib" --allow-duplicates --json "${corpus[@]}" > "$work/import.json" || true
mapfile -t sources < <(python3 -c 'import json,sys; [print(i["source"]) for i in json.load(open(sys.argv[1]))["imported"]]' "$work/import.json")
pages=$(python3 -c 'import json,sys; print(sum(i["pageCount"] for i in json.load(open(sys.argv[1]))["imported"]))' "$work/import.json")
echo "corpus: ${#sources[@]} PDFs, $pages pages imported"

pdftotext_all() { for f in "${sources[@]}"; do pdftotext -enc UTF-8 "$f" - > /dev/null 2>&1 || true; done; }
one=(); all=(); ref=()
for _ in $(seq "$runs"); do
    one+=("$(seconds "$yiana" index --library "$work/lib" --index "$work/one.sqlite" --full --jobs 1)")
    ref+=("$(seconds pdftotext_all)")
    all+=("$(seconds "$yiana" index --library "$work/lib" --index "$work/all.sqlite" --full)")
done
t_one=$(printf '%s\n' "${one[@]}" | median); t_all=$(printf '%s\n' "${all[@]}" | median); t_ref=$(printf '%s\n' "${ref[@]}" | median)

echo; python3 Scripts/bench/word-recall.py "$work/one.sqlite" "$work/import.json" "$work/lib" | tee "$work/recall.txt"

# 10,000 generated documents.
python3 Scripts/generate/library.py 10000 "$work/big"
t_first=$(seconds "$yiana" index --library "$work/big" --index "$work/big.sqlite")
noop=(); for _ in $(seq 5); do noop+=("$(seconds "$yiana" index --library "$work/big" --index "$work/big.sqlite")"); done
t_noop=$(printf '%s\n' "${noop[@]}" | median)

# 100 varied queries: words, two words, phrases, prefixes, codes, filters.
python3 - "$work/queries.txt" <<'PY'
import random, sys
words = ("account balance invoice statement tax return annual report meeting minutes letter contract insurance policy "
         "claim receipt payment refund order delivery warranty service repair energy water council school medical").split()
rng = random.Random(7)
queries = []
queries += [[w] for w in rng.sample(words, 25)]
queries += [[rng.choice(words), rng.choice(words)] for _ in range(25)]
queries += [['"%s %s"' % (rng.choice(words), rng.choice(words))] for _ in range(15)]
queries += [[rng.choice(words)[:4] + "*"] for _ in range(10)]
queries += [[str(rng.randrange(100000))] for _ in range(5)]
queries += [["--tag", rng.choice(["tax", "home", "work", "health"]), rng.choice(words)] for _ in range(10)]
queries += [["--folder", "Folder %02d" % rng.randrange(50), rng.choice(words)] for _ in range(5)]
queries += [["--since", "2023-01-01", rng.choice(words)] for _ in range(5)]
with open(sys.argv[1], "w") as f:
    for q in queries[:100]:
        f.write("\t".join(q) + "\n")
PY
"$bench" search-latency "$work/big.sqlite" "$work/queries.txt" > "$work/latency.txt"
q50=$(awk '/^queries/ {print $4}' "$work/latency.txt"); q99=$(awk '/^queries/ {print $7}' "$work/latency.txt")
latencies=()
while IFS=$'\t' read -r -a q; do
    latencies+=("$(seconds "$yiana" search --library "$work/big" --index "$work/big.sqlite" --limit 20 "${q[@]}")")
done < "$work/queries.txt"
p50=$(printf '%s\n' "${latencies[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int(NR*0.50)]}')
p99=$(printf '%s\n' "${latencies[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int(NR*0.99)]}')

pps() { echo "scale=0; $pages / $1" | bc -l; }
printf '\n%-58s %12s %12s %8s %10s\n' "benchmark (median of $runs alternating runs)" "yiana" "reference" "ratio" "target"
printf '%-58s %8s p/s %8s p/s %8s %10s\n' "extraction, --jobs 1 vs pdftotext file after file" "$(pps "$t_one")" "$(pps "$t_ref")" "$(ratio "$t_ref" "$t_one")x" ">=1.0x"
printf '%-58s %8s p/s %8s p/s %8s %10s\n' "extraction, all $(nproc) cores vs the same pdftotext run" "$(pps "$t_all")" "$(pps "$t_ref")" "$(ratio "$t_ref" "$t_all")x" ">=1.7x"
printf '%-58s %12s %12s %8s %10s\n' "word recall vs pdftotext, all words" "$(awk '/all words/ {print $NF}' "$work/recall.txt")" "-" "-" ">=99%"
printf '%-58s %10.3f s %12s %8s %10s\n' "no-op yiana index, 10,000 documents (first run $(printf '%.1f' "$t_first") s)" "$t_noop" "-" "-" "<1 s"
printf '%-58s %7.1f ms p50 %7.1f ms p99 %5s %10s\n' "query latency, 100 varied queries, index open" "$q50" "$q99" "" "p99<50 ms"
printf '%-58s %7.0f ms p50 %7.0f ms p99 %5s %10s\n' "  the same as whole yiana search commands" "$(echo "$p50 * 1000" | bc)" "$(echo "$p99 * 1000" | bc)" "" "-"
