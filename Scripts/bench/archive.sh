#!/usr/bin/env bash
# Archive benchmarks for issue 2, each against a reference tool on the same file in the same
# run (these machines are noisy, so only the ratio means anything):
#   1. write: a 200 MB PDF written into a new archive by the coordinated writer (lock, temp
#      file, copy + CRC, fsync and libzip verification, link, folder fsync; `yiana-stress
#      write-pdf`) vs `cp` + `sync` of the same file.                       target: >= 0.8
#   2. the whole `yiana import` of the same PDF (page count from poppler, SHA-256 for pdfHash
#      computed during the copy, history record) vs the same `cp` + `sync`, as a time ratio.
#                                                                           target: <= 1.2x
#      Also shown: `openssl dgst -sha256` of the file alone (SHA extensions), the floor for
#      any import that records the app's pdfHash, and the import's time against it.
#      And what keeping costs: the import with the keeper vs YIANA_KEEP=off, and an edit of the
#      200 MB document's title with and without it (an edit's new file is hashed as it is
#      written and handed to the keeper; an import must hash the PDF for metadata.json's
#      pdfHash before the file's own bytes can be hashed in order, so it hashes twice).
#   3. read:  `yiana export --pdf -` (every byte CRC-checked) vs `unzip -tq`.  target >= 1.0
#   4. memory: peak RSS of `yiana import` of a 1 GB PDF (/usr/bin/time -v), anonymous and
#      file-backed apart (a container's limit counts both).                target < 64 MB
# Usage: Scripts/bench/archive.sh [RUNS]   (default 9; tool and reference alternate, medians compared)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh time unzip bc openssl $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=: another build of it (a "before")
stress="$(release_binary yiana-stress)"
runs="${1:-9}"
bench_work bench

python3 Scripts/generate/big-pdf.py 200 "$work/200mb.pdf"
python3 Scripts/generate/big-pdf.py 1000 "$work/1gb.pdf"

# Seconds one run of "$@" takes.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "benchmark command failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}


# pair PREPARE_A "CMD_A" PREPARE_B "CMD_B": runs A then B, $runs times in turn (so both see
# the same machine state each round), each after its untimed PREPARE; prints both medians.
pair() {
    local a=() b=()
    for _ in $(seq "$runs"); do
        eval "$1"; a+=("$(seconds sh -c "$2")")
        eval "$3"; b+=("$(seconds sh -c "$4")")
    done
    printf 'runs: %s | %s\n' "$(printf '%.3f ' "${a[@]}")" "$(printf '%.3f ' "${b[@]}")" >&2  # the spread, on stderr
    echo "$(printf '%s\n' "${a[@]}" | median) $(printf '%s\n' "${b[@]}" | median)"
}

sync
read -r t_write t_cp < <(pair \
    'rm -rf "$work/w" && mkdir "$work/w" && sync' "'$stress' write-pdf '$work/200mb.pdf' '$work/w/200mb.yianazip'" \
    'rm -rf "$work/cp" && mkdir "$work/cp" && sync' "cp '$work/200mb.pdf' '$work/cp/' && sync")
read -r t_yiana t_cp2 < <(pair \
    'rm -rf "$work/lib" && mkdir "$work/lib" && sync' "'$yiana' import --library '$work/lib' '$work/200mb.pdf'" \
    'rm -rf "$work/cp" && mkdir "$work/cp" && sync' "cp '$work/200mb.pdf' '$work/cp/' && sync")

read -r t_sha t_cp3 < <(pair ":" "openssl dgst -sha256 '$work/200mb.pdf'" \
    'rm -rf "$work/cp" && mkdir "$work/cp" && sync' "cp '$work/200mb.pdf' '$work/cp/' && sync")
# What keeping costs: the same import without the keeper (YIANA_KEEP=off), beside the import
# with it; and an edit of the 200 MB document's title with and without it (each a new title).
read -r t_keep t_nokeep < <(pair \
    'rm -rf "$work/lib" && mkdir "$work/lib" && sync' "'$yiana' import --library '$work/lib' '$work/200mb.pdf'" \
    'rm -rf "$work/lib" && mkdir "$work/lib" && sync' "YIANA_KEEP=off '$yiana' import --library '$work/lib' '$work/200mb.pdf'")
rm -rf "$work/edit" && "$yiana" import --library "$work/edit" "$work/200mb.pdf" >/dev/null
read -r t_edit t_edit_off < <(pair "sync" "'$yiana' edit --library '$work/edit' 200mb --title \"Title \$\$\"" \
    "sync" "YIANA_KEEP=off '$yiana' edit --library '$work/edit' 200mb --title \"Title \$\$\"")

doc="$work/lib/200mb.yianazip"
read -r t_export t_unzip < <(pair ":" "'$yiana' export --pdf - '$doc' > /dev/null" ":" "unzip -tq '$doc'")

rm -rf "$work/lib1g" && mkdir "$work/lib1g"
memory=$(python3 Scripts/bench/peak-memory.py "import of a 1 GB PDF" -- "$yiana" import --library "$work/lib1g" "$work/1gb.pdf")

ratio() { echo "scale=2; $1 / $2" | bc -l; }
printf '\n%-52s %10s %10s %8s %8s\n' "benchmark (median of $runs alternating runs)" "yiana s" "ref s" "ratio" "target"
printf '%-52s %10.3f %10.3f %8s %8s\n' "write 200 MB PDF into an archive vs cp + sync" "$t_write" "$t_cp" "$(ratio "$t_cp" "$t_write")x" ">=0.8x"
printf '%-52s %10.3f %10.3f %8s %8s\n' "whole yiana import, time ratio to cp + sync" "$t_yiana" "$t_cp2" "$(ratio "$t_yiana" "$t_cp2")x" "<=1.2x"
printf '%-52s %10.3f %10.3f %8s %8s\n' "  floor: openssl dgst -sha256 alone, time ratio" "$t_sha" "$t_cp3" "$(ratio "$t_sha" "$t_cp3")x" "-"
printf '%-52s %10.3f %10.3f %8s %8s\n' "  whole yiana import vs openssl dgst -sha256 alone" "$t_yiana" "$t_sha" "$(ratio "$t_yiana" "$t_sha")x" "-"
printf '%-52s %10.3f %10.3f %8s %8s\n' "  import with the keeper vs YIANA_KEEP=off" "$t_keep" "$t_nokeep" "$(ratio "$t_keep" "$t_nokeep")x" "-"
printf '%-52s %10.3f %10.3f %8s %8s\n' "  without the keeper, time ratio to cp + sync" "$t_nokeep" "$t_cp2" "$(ratio "$t_nokeep" "$t_cp2")x" "-"
printf '%-52s %10.3f %10.3f %8s %8s\n' "edit a 200 MB document's title: keeper vs off" "$t_edit" "$t_edit_off" "$(ratio "$t_edit" "$t_edit_off")x" "-"
printf '%-52s %10.3f %10.3f %8s %8s\n' "read back with CRC: yiana export vs unzip -tq" "$t_export" "$t_unzip" "$(ratio "$t_unzip" "$t_export")x" ">=1.0x"
echo "$memory   (target: peak RSS < 64 MB)"
