#!/usr/bin/env bash
# Index costs at library scale, each against its reference in the same run (issue 15):
#   1. `index --full` on an existing index vs a fresh index of the same library   <= 1.2x
#   2. reindex per changed document (50 documents replaced by another's bytes):
#      (reindex - no-op) / 50, at each size                                        flat in size
#   3. a no-op `index` vs a `find -printf` stat walk of the library                <= 4x; 100k < 1 s
# for 2,500, 10,000 and 20,000 generated one-page documents (and 100,000 for the no-op),
# then one line per measure on how its cost grows with the library's size, and the peak
# memory of indexing the largest library afresh (anonymous and file-backed apart).
# Usage: Scripts/bench/scale.sh [RUNS] [SIZES]   (default 3 alternating runs; "2500 10000 20000")
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
runs="${1:-3}"
read -r -a sizes <<< "${2:-2500 10000 20000}"
noop_only="${NOOP_ONLY_SIZE:-100000}"
bench_work bench-scale

ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
statwalk() { find "$1" -printf '%s %T@ %i\n' > /dev/null; }

declare -A full_ratio per_doc noop_ratio noop_time
for n in "${sizes[@]}" "$noop_only"; do
    lib="$work/lib-$n"; idx="$work/index-$n.sqlite"
    python3 Scripts/generate/library.py "$n" "$lib" >/dev/null
    fresh=(); full=()
    for r in $(seq "$runs"); do
        rm -f "$idx"*
        if [ "$n" = "$noop_only" ] && [ "$r" -gt 1 ]; then break; fi
        fresh+=("$(seconds "$yiana" index --library "$lib" --index "$idx" --jobs 2)")
        [ "$n" = "$noop_only" ] && break
        full+=("$(seconds "$yiana" index --library "$lib" --index "$idx" --jobs 2 --full)")
    done
    if [ "$n" = "${sizes[-1]}" ]; then
        memory=$(python3 Scripts/bench/peak-memory.py "index of $n documents into a fresh index, --jobs 2" -- \
            "$yiana" index --library "$lib" --index "$work/memory.sqlite" --jobs 2)
        rm -f "$work/memory.sqlite"*
    fi
    noop=(); walk=()
    for _ in $(seq 5); do
        noop+=("$(seconds "$yiana" index --library "$lib" --index "$idx")")
        walk+=("$(seconds statwalk "$lib")")
    done
    t_noop=$(printf '%s\n' "${noop[@]}" | median); t_walk=$(printf '%s\n' "${walk[@]}" | median)
    noop_ratio[$n]=$(ratio "$t_noop" "$t_walk"); noop_time[$n]=$t_noop
    if [ "$n" != "$noop_only" ]; then
        t_fresh=$(printf '%s\n' "${fresh[@]}" | median); t_full=$(printf '%s\n' "${full[@]}" | median)
        full_ratio[$n]=$(ratio "$t_full" "$t_fresh")
        # 50 documents replaced by another document's bytes: their pages are deleted and
        # copied from the document that has the same PDF.
        mapfile -t docs < <(find "$lib" -name '*.yianazip' | sort | head -51)
        changed=()
        for r in $(seq "$runs"); do
            for d in "${docs[@]:1:50}"; do cp "${docs[0]}" "$d.tmp" && mv "$d.tmp" "$d"; done
            changed+=("$(seconds "$yiana" index --library "$lib" --index "$idx")")
        done
        t_changed=$(printf '%s\n' "${changed[@]}" | median)
        per_doc[$n]=$(printf '%.2f' "$(echo "($t_changed - $t_noop) * 1000 / 50" | bc -l)")
        printf '%7d docs: fresh %6.2f s, --full %6.2f s (%sx); 50 changed %6.3f s; no-op %6.3f s, stat walk %6.3f s (%sx)\n' \
            "$n" "$t_fresh" "$t_full" "${full_ratio[$n]}" "$t_changed" "$t_noop" "$t_walk" "${noop_ratio[$n]}"
    else
        printf '%7d docs: no-op %6.3f s, stat walk %6.3f s (%sx)\n' "$n" "$t_noop" "$t_walk" "${noop_ratio[$n]}"
    fi
    rm -rf "$lib" "$idx"*
done

first=${sizes[0]}; last=${sizes[-1]}
printf '\n%-52s' "measure (median of $runs)"; for n in "${sizes[@]}"; do printf '%10s' "$n"; done; printf '%10s %10s\n' "$noop_only" "target"
printf '%-52s' "index --full on an existing index / fresh index"; for n in "${sizes[@]}"; do printf '%9sx' "${full_ratio[$n]}"; done; printf '%10s %10s\n' "-" "<=1.2x"
printf '%-52s' "reindex per changed document, ms"; for n in "${sizes[@]}"; do printf '%10s' "${per_doc[$n]}"; done; printf '%10s %10s\n' "-" "flat"
printf '%-52s' "no-op index / find stat walk"; for n in "${sizes[@]}" "$noop_only"; do printf '%9sx' "${noop_ratio[$n]}"; done; printf ' %10s\n' "<=4x"
printf '%-52s' "no-op index, s"; for n in "${sizes[@]}" "$noop_only"; do printf '%10.3f' "${noop_time[$n]}"; done; printf ' %10s\n' "100k <1 s"
grow() { printf '%.2f' "$(echo "$2 / $1" | bc -l)"; }
echo
echo "growth from $first to $last documents ($(grow "$first" "$last")x the size):"
echo "  --full / fresh ratio:      ${full_ratio[$first]}x -> ${full_ratio[$last]}x (flat means --full grows as a fresh index does: linearly)"
echo "  per changed document:      ${per_doc[$first]} ms -> ${per_doc[$last]} ms ($(grow "${per_doc[$first]}" "${per_doc[$last]}")x)"
printf '  no-op:                     %.3f s -> %.3f s at %s (%sx for %sx the size)\n' "${noop_time[$first]}" "${noop_time[$noop_only]}" "$noop_only" \
    "$(grow "${noop_time[$first]}" "${noop_time[$noop_only]}")" "$(grow "$first" "$noop_only")"
echo "$memory"
