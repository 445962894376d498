#!/usr/bin/env bash
# `yiana watch` at library scale (issue 57): for each SIZE, a generated library
# (Scripts/generate/library.py) watched from its first pass, then
#   - ARRIVALS new documents, each written beside its place under a sync program's temporary
#     name and renamed in (as Syncthing does), timed until `yiana search` finds it (by the
#     number its title ends with): median and p95;
#   - as many documents removed, each timed until `yiana versions list --deleted` lists it;
#   - the watcher's peak RSS (VmHWM) over all of it;
# then, the watcher stopped, each median of 3: a no-op `yiana index`, `index` after one
# document changed, `yiana status`, `yiana versions list --deleted` and `versions list DOC`.
# YIANA_SETTLE_SECONDS=0: what is timed is the watcher's pass, not the settling window
# (5 s by default) a user's sync program is given.
# Usage: Scripts/bench/watch-scale.sh [SIZES] [ARRIVALS]   (default "1000 10000 100000" 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="${YIANA:-$(release_binary yiana)}"  # YIANA=: another build of it (a "before")
read -r -a sizes <<< "${1:-1000 10000 100000}"
arrivals="${2:-20}"
bench_work bench-watch-scale
watcher=""
trap '[ -n "$watcher" ] && kill "$watcher" 2>/dev/null; rm -rf "$work"' EXIT
export YIANA_SETTLE_SECONDS=0

now() { date +%s.%N; }
stats() {  # median and p95 of the numbers on stdin, in seconds with two decimals
    sort -g | awk '{v[NR] = $1} END {m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.95 + 0.999)]; printf "median %.2f s, p95 %.2f s", m, p}'
}
median3() {  # median3 COMMAND...: the median of three runs' seconds, two decimals
    for _ in 1 2 3; do seconds "$@"; done | median | xargs printf '%.2f'
}

printf '%-9s %-34s %-34s %-10s %-9s %-9s %-9s %-9s %s\n' documents "arrival -> searchable" "deletion -> listed" "peak RSS" "no-op" "1 change" status "deleted" "list DOC"
for size in "${sizes[@]}"; do
    lib="$work/lib-$size"
    export XDG_STATE_HOME="$work/state-$size" XDG_CACHE_HOME="$work/cache-$size"
    # The library and, numbered after it, the documents that will arrive (kept outside it).
    python3 Scripts/generate/library.py "$((size + arrivals))" "$lib" >/dev/null
    mkdir -p "$work/arrive-$size"
    for n in $(seq "$size" "$((size + arrivals - 1))"); do
        find "$lib" -name "* $n.yianazip" -exec mv {} "$work/arrive-$size/" \;
    done
    "$yiana" watch --library "$lib" --json > "$work/watch-$size.jsonl" 2>"$work/watch-$size.err" &
    watcher=$!
    until "$yiana" status --json --library "$lib" 2>/dev/null | python3 -c 'import json, sys; d = (json.load(sys.stdin).get("watcher") or {}).get("health") or {}; sys.exit(0 if d.get("passes", 0) >= 1 and d.get("lastPass") else 1)'; do sleep 0.5; done
    : > "$work/arrived"; : > "$work/listed"
    for file in "$work/arrive-$size"/*.yianazip; do
        name=$(basename "$file"); n=${name##* }; n=${n%.yianazip}
        folder="$lib/Folder $(printf '%02d' $((n % 50)))"
        cp "$file" "$folder/.syncthing.$name.tmp"
        start=$(now)
        mv "$folder/.syncthing.$name.tmp" "$folder/$name"
        # (Into a file, not a pipe: `grep -q` leaving early would fail the pipeline.)
        until "$yiana" search --library "$lib" --json --limit 100 "$n" > "$work/out" 2>/dev/null; grep -qF "$name" "$work/out"; do sleep 0.05; done
        echo "$(now) - $start" | bc -l >> "$work/arrived"
    done
    mapfile -d '' -t victims < <(find "$lib" -name '*.yianazip' -print0 | sort -z | head -z -n "$arrivals")
    for victim in "${victims[@]}"; do
        path=${victim#"$lib/"}
        start=$(now)
        rm "$victim"
        until "$yiana" versions list --deleted --library "$lib" --json > "$work/out" 2>/dev/null; grep -qF "\"${path}\"" "$work/out"; do sleep 0.05; done
        echo "$(now) - $start" | bc -l >> "$work/listed"
    done
    hwm=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$watcher/status")
    kill -INT "$watcher"; wait "$watcher" || true; watcher=""

    noop=$(median3 "$yiana" index --library "$lib")
    one=$(for _ in 1 2 3; do
        doc=$(find "$lib" -name '*.yianazip' | sort | sed -n "$((RANDOM % 50 + 100))p")
        cp "$(find "$lib" -name '*.yianazip' | sort | head -1)" "$doc.tmp" && mv "$doc.tmp" "$doc"
        seconds "$yiana" index --library "$lib"
    done | median | xargs printf '%.2f')
    status=$(median3 "$yiana" status --library "$lib")
    deleted=$(median3 "$yiana" versions list --deleted --library "$lib")
    some=$(find "$lib" -name '*.yianazip' | sort | sed -n 200p)
    listdoc=$(median3 "$yiana" versions list --library "$lib" "$some")
    printf '%-9s %-34s %-34s %-10s %-9s %-9s %-9s %-9s %s\n' "$size" "$(stats < "$work/arrived")" "$(stats < "$work/listed")" "$hwm MB" \
        "${noop} s" "${one} s" "${status} s" "${deleted} s" "${listdoc} s"
    rm -rf "$lib" "$work/arrive-$size" "$work/state-$size" "$work/cache-$size"
done
