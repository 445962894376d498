# The watcher's figures at scale (issue 57), shared by watch-scale.sh and ageing.sh; sourced,
# not run. Needs common.sh sourced first, `yiana` (the binary) and `work` set, and
# YIANA_SETTLE_SECONDS=0 exported: what is timed is the watcher's pass, not the settling
# window (5 s by default) a user's sync program is given.

now() { date +%s.%N; }
# Three decimals: the fresh processes' figures are 20-60 ms, where two decimals (a 10 ms
# step) would make a ratio of one step a 1.5x.
stats() {  # median and p95 of the numbers on stdin, in seconds with three decimals
    sort -g | awk '{v[NR] = $1} END {m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.95 + 0.999)]; printf "median %.3f s, p95 %.3f s", m, p}'
}
median5() {  # median5 COMMAND...: the median of five runs' seconds, three decimals
    for _ in 1 2 3 4 5; do seconds "$@"; done | median | xargs printf '%.3f'
}
watcher=""
stop_watcher() { [ -n "$watcher" ] && kill "$watcher" 2>/dev/null; watcher=""; }

watch_header() {
    printf '%-10s %-34s %-34s %-10s %-9s %-9s %-9s %-9s %s\n' library "arrival -> searchable" "deletion -> listed" "peak RSS" "no-op" "1 change" status "deleted" "list DOC"
}

# watch_measure LABEL LIB ARRIVE: one row of figures for the library LIB (documents dealt
# out among "Folder NN" folders, as Scripts/generate/library.py writes them), with the
# documents in the folder ARRIVE (named "... N.yianazip") brought in one at a time:
#   - `yiana watch` started on LIB (with whatever state this machine has of it) and, after
#     its first pass, each document of ARRIVE written beside its place under a sync
#     program's temporary name and renamed in (as Syncthing does), timed until
#     `yiana search` finds it (by the number its title ends with): median and p95;
#   - as many documents removed, each timed until `yiana versions list --deleted` lists it
#     (put back once the row is measured: a library measured twice lists only its own);
#   - the watcher's peak RSS (VmHWM) over all of it;
# then, the watcher stopped, each median of 5: a no-op `yiana index`, `index` after one
# document changed, `yiana status`, `yiana versions list --deleted` and `versions list DOC`.
watch_measure() {
    local label="$1" lib="$2" arrive="$3" file name n folder start path hwm noop one status deleted some listdoc
    "$yiana" watch --library "$lib" --json > "$work/watch-$label.jsonl" 2>"$work/watch-$label.err" &
    watcher=$!
    until "$yiana" status --json --library "$lib" 2>/dev/null | python3 -c 'import json, sys; d = (json.load(sys.stdin).get("watcher") or {}).get("health") or {}; sys.exit(0 if d.get("passes", 0) >= 1 and d.get("lastPass") else 1)'; do sleep 0.5; done
    : > "$work/arrived"; : > "$work/listed"
    local count=0
    for file in "$arrive"/*.yianazip; do
        name=$(basename "$file"); n=${name##* }; n=${n%.yianazip}
        folder="$lib/Folder $(printf '%02d' $((n % 50)))"
        cp "$file" "$folder/.syncthing.$name.tmp"
        start=$(now)
        mv "$folder/.syncthing.$name.tmp" "$folder/$name"
        # (Into a file, not a pipe: `grep -q` leaving early would fail the pipeline.)
        until "$yiana" search --library "$lib" --json --limit 100 "$n" > "$work/out" 2>/dev/null; grep -qF "$name" "$work/out"; do sleep 0.05; done
        echo "$(now) - $start" | bc -l >> "$work/arrived"
        count=$((count + 1))
    done
    local victims victim aside="$work/victims-$label"
    mkdir -p "$aside"
    mapfile -d '' -t victims < <(find "$lib" -name '*.yianazip' -print0 | sort -z | head -z -n "$count")
    for victim in "${victims[@]}"; do
        path=${victim#"$lib/"}
        local away; away="$aside/$(echo "$path" | sed 's#/#%2F#g')"
        start=$(now)
        mv "$victim" "$away"
        until "$yiana" versions list --deleted --library "$lib" --json > "$work/out" 2>/dev/null; grep -qF "\"${path}\"" "$work/out"; do sleep 0.05; done
        echo "$(now) - $start" | bc -l >> "$work/listed"
    done
    hwm=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$watcher/status")
    kill -INT "$watcher"; wait "$watcher" || true; watcher=""

    noop=$(median5 "$yiana" index --library "$lib")
    # The change: a document edited as the app writes (new bytes of its own, not a copy of
    # another document's, which would leave the library holding one document twice).
    one=$(for round in 1 2 3; do
        doc=$(find "$lib" -name '*.yianazip' | sort | sed -n "$((RANDOM % 50 + 100))p")
        python3 Scripts/bench/ageing-churn.py --edit "$doc" "$((1000 + round))"
        seconds "$yiana" index --library "$lib"
    done | median | xargs printf '%.3f')
    status=$(median5 "$yiana" status --library "$lib")
    deleted=$(median5 "$yiana" versions list --deleted --library "$lib")
    some=$(find "$lib" -name '*.yianazip' | sort | sed -n 200p)
    listdoc=$(median5 "$yiana" versions list --library "$lib" "$some")
    for victim in "$aside"/*.yianazip; do
        mv "$victim" "$lib/$(basename "$victim" | sed 's#%2F#/#g')"
    done
    printf '%-10s %-34s %-34s %-10s %-9s %-9s %-9s %-9s %s\n' "$label" "$(stats < "$work/arrived")" "$(stats < "$work/listed")" "$hwm MB" \
        "${noop} s" "${one} s" "${status} s" "${deleted} s" "${listdoc} s"
    # The same figures for a caller that compares two rows (the medians of the first two).
    measured=("$(median < "$work/arrived")" "$(median < "$work/listed")" "$hwm" "$noop" "$one" "$status" "$deleted" "$listdoc")
}

# set_aside LIB OUT FIRST COUNT: moves the documents numbered FIRST … FIRST+COUNT-1 (by the
# number their titles end with) out of LIB into OUT, to arrive later.
set_aside() {
    local lib="$1" out="$2" n
    mkdir -p "$out"
    for n in $(seq "$3" "$(($3 + $4 - 1))"); do
        find "$lib" -name "* $n.yianazip" -exec mv {} "$out/" \;
    done
}
