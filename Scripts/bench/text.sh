#!/usr/bin/env bash
# Extraction speed on a few real PDFs where one long document dominates: 39 PDFs of under
# 100 pages from Debian's texlive-latex-base-doc plus hyperref's 516-page manual, imported
# as documents. `yiana index --full` with --jobs 1 and --jobs 2 against `pdftotext` run file
# after file on the same PDFs, alternating, medians (pages per second; only ratios mean
# anything on a shared machine):
#   --jobs 1 vs pdftotext                                                        >= 1.0x
#   --jobs 2 vs pdftotext (a long document's pages are shared out between cores) >= 1.8x
# Usage: Scripts/bench/text.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh texlive-latex-base-doc poppler-utils bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
runs="${1:-5}"
bench_work bench-text

long=$(dpkg -L texlive-latex-base-doc | grep '/hyperref/hyperref\.pdf$')
mapfile -t short < <(for f in $(dpkg -L texlive-latex-base-doc | grep '\.pdf$' | sort); do
    pages=$(pdfinfo "$f" 2>/dev/null | awk '/^Pages:/ {print $2}')
    [ -n "$pages" ] && [ "$pages" -lt 100 ] && echo "$f"
done | head -39)
corpus=("${short[@]}" "$long")
mkdir "$work/lib"
"$yiana" import --library "$work/lib" --allow-duplicates --json "${corpus[@]}" > "$work/import.json"
pages=$(python3 -c 'import json,sys; print(sum(i["pageCount"] for i in json.load(open(sys.argv[1]))["imported"]))' "$work/import.json")
echo "corpus: ${#corpus[@]} PDFs, $pages pages ($(pdfinfo "$long" | awk '/^Pages:/ {print $2}') in $(basename "$long"))"

pdftotext_all() { for f in "${corpus[@]}"; do pdftotext -enc UTF-8 "$f" - > /dev/null 2>&1 || true; done; }
one=(); two=(); ref=()
for _ in $(seq "$runs"); do
    one+=("$(seconds "$yiana" index --library "$work/lib" --index "$work/one.sqlite" --full --jobs 1)")
    ref+=("$(seconds pdftotext_all)")
    two+=("$(seconds "$yiana" index --library "$work/lib" --index "$work/two.sqlite" --full --jobs 2)")
done
t_one=$(printf '%s\n' "${one[@]}" | median); t_two=$(printf '%s\n' "${two[@]}" | median); t_ref=$(printf '%s\n' "${ref[@]}" | median)
pps() { echo "scale=0; $pages / $1" | bc -l; }
ratio() { echo "scale=2; $1 / $2" | bc -l; }
printf '\n%-50s %12s %12s %8s %8s\n' "extraction (median of $runs alternating runs)" "yiana" "pdftotext" "ratio" "target"
printf '%-50s %8s p/s %8s p/s %8s %8s\n' "--jobs 1 vs pdftotext file after file" "$(pps "$t_one")" "$(pps "$t_ref")" "$(ratio "$t_ref" "$t_one")x" ">=1.0x"
printf '%-50s %8s p/s %8s p/s %8s %8s\n' "--jobs 2 vs the same pdftotext run" "$(pps "$t_two")" "$(pps "$t_ref")" "$(ratio "$t_ref" "$t_two")x" ">=1.8x"
