#!/usr/bin/env bash
# `yiana verify` vs `unzip -tq` on the same archives in the same run (alternating, medians):
# 200 documents of ~2 MB plus one of 200 MB. verify checks more (structure, every CRC,
# metadata, format, the PDF opened with poppler, page count, pdfHash); target ratio >= 1.0.
# Then the peak memory of `yiana verify` of one 1 GB document, anonymous and file-backed
# apart (Scripts/bench/peak-memory.py): verify maps the archive, so its pages show as file-backed.
# Usage: Scripts/bench/verify.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh unzip bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
runs="${1:-5}"
bench_work bench-verify

mkdir -p "$work/lib" "$work/pdfs"
for i in $(seq 200); do python3 Scripts/generate/big-pdf.py 2 "$work/pdfs/doc $i.pdf"; done
python3 Scripts/generate/big-pdf.py 200 "$work/pdfs/big.pdf"
"$yiana" import --library "$work/lib" --allow-duplicates "$work/pdfs" > /dev/null
mapfile -t archives < <(find "$work/lib" -name '*.yianazip' | sort)
echo "archives: ${#archives[@]}, $(du -sh "$work/lib" | cut -f1)"

unzip_all() { for a in "${archives[@]}"; do unzip -tq "$a" > /dev/null; done; }
ours=(); ref=()
for _ in $(seq "$runs"); do
    ours+=("$(seconds "$yiana" verify --library "$work/lib")")
    ref+=("$(seconds unzip_all)")
done
t_ours=$(printf '%s\n' "${ours[@]}" | median); t_ref=$(printf '%s\n' "${ref[@]}" | median)
printf '\n%-50s %10s %10s %8s %8s\n' "benchmark (median of $runs alternating runs)" "yiana s" "unzip s" "ratio" "target"
printf '%-50s %10.3f %10.3f %8s %8s\n' "verify ${#archives[@]} archives vs unzip -tq" "$t_ours" "$t_ref" "$(echo "scale=2; $t_ref / $t_ours" | bc -l)x" ">=1.0x"

mkdir "$work/big"
python3 Scripts/generate/big-pdf.py 1000 "$work/1gb.pdf"
"$yiana" import --library "$work/big" "$work/1gb.pdf" > /dev/null
python3 Scripts/bench/peak-memory.py "verify of a 1 GB document" -- "$yiana" verify --library "$work/big"
