#!/usr/bin/env bash
# `yiana conflicts list` over generated libraries (2,500, 10,000 and 20,000 documents, plus
# conflict copies as 5% more files, in the five naming styles: Dropbox, Syncthing,
# Nextcloud new and old, iCloud's "Name 2"), against Python's zipfile reading every
# document's metadata.json in the same run (alternating, medians): the least any tool that
# tells copies apart by their metadata must do. Target: yiana <= 0.5x Python's time.
# Also prints yiana's peak memory at the largest size.
# Usage: Scripts/bench/conflicts.sh [RUNS] [SIZES...]   (default 3; 2500 10000 20000)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
runs="${1:-3}"; shift || true
sizes=("${@:-2500 10000 20000}"); sizes=(${sizes[@]})
bench_work bench-conflicts

cat > "$work/reference.py" <<'PY'
import json, os, sys, zipfile
read = 0
for root, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for name in files:
        if name.endswith(".yianazip") and not name.startswith("."):
            try:
                with zipfile.ZipFile(os.path.join(root, name)) as archive:
                    json.loads(archive.read("metadata.json"))
                    read += 1
            except Exception:
                pass
print(read)
PY

printf '%-44s %10s %10s %8s %8s\n' "conflicts list (median of $runs alternating runs)" "yiana s" "python s" "ratio" "target"
for size in "${sizes[@]}"; do
    python3 Scripts/generate/library.py "$size" "$work/lib-$size" > /dev/null
    python3 Scripts/generate/conflict-copies.py "$work/lib-$size" $((size / 20)) > /dev/null
    sync
    ours=(); ref=()
    for _ in $(seq "$runs"); do
        ours+=("$(seconds "$yiana" conflicts list --library "$work/lib-$size")")
        ref+=("$(seconds python3 "$work/reference.py" "$work/lib-$size")")
    done
    t_ours=$(printf '%s\n' "${ours[@]}" | median); t_ref=$(printf '%s\n' "${ref[@]}" | median)
    printf '%-44s %10.3f %10.3f %7sx %8s\n' "$size documents + $((size / 20)) copies" "$t_ours" "$t_ref" "$(echo "scale=2; $t_ours / $t_ref" | bc -l)" "<=0.5x"
    last="$work/lib-$size"
done
python3 Scripts/bench/peak-memory.py "conflicts list, ${sizes[-1]} documents" -- "$yiana" conflicts list --library "$last"
