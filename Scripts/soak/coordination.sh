#!/usr/bin/env bash
# The long form of the multi-process coordination test: WRITERS processes replace one
# document and READERS processes read it, ITERATIONS times each, all at once. Every read
# must see one whole version (CRCs pass, and the PDF is exactly the one its metadata names),
# the document must verify at the end, and no temporary or lock file may be left behind.
# Usage: Scripts/soak/coordination.sh [WRITERS] [READERS] [ITERATIONS]   (default 4 4 500)
set -euo pipefail
cd "$(dirname "$0")/../.."
writers="${1:-4}"; readers="${2:-4}"; iterations="${3:-500}"
Scripts/setup.sh
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana-stress >/dev/null
stress="$(swift build -c release --show-bin-path)/yiana-stress"
work="$(mktemp -d /tmp/yiana-soak-XXXXXX)"
trap 'rm -rf "$work"' EXIT
doc="$work/Shared.yianazip"

"$stress" write "$doc" --iterations 1 --seed 1 >/dev/null
pids=()
for i in $(seq "$writers"); do "$stress" write "$doc" --iterations "$iterations" --seed "$((i * 7919))" > "$work/w$i.json" & pids+=($!); done
for i in $(seq "$readers"); do "$stress" read "$doc" --iterations "$iterations" > "$work/r$i.json" & pids+=($!); done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
cat "$work"/w*.json "$work"/r*.json
"$stress" read "$doc" --iterations 1 >/dev/null || failed=1
leftovers=$(find "$work" -name '.*' -type f | wc -l)
echo "writers=$writers readers=$readers iterations=$iterations leftover temp/lock files=$leftovers"
[ "$failed" -eq 0 ] && [ "$leftovers" -eq 0 ] && echo "soak: passed" || { echo "soak: FAILED"; exit 1; }
