#!/usr/bin/env bash
# The cost of the app's companion files to commands that walk the library (issue 30):
# `yiana conflicts list` and a no-op `yiana index` over 10,000 documents with 10,000
# extraction files (.addresses/<title>.json) and 2,000 correction files
# (.addresses/<title>.overrides.json), against the same library without them, in one run,
# alternating, medians. Target: <= 1.2x.
# Usage: Scripts/bench/companions.sh [RUNS] [DOCUMENTS]   (default 7; 10000)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
runs="${1:-7}"; size="${2:-10000}"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-companions-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state" YIANA_SETTLE_SECONDS=0

python3 Scripts/generate/library.py "$size" "$work/plain" > /dev/null
cp -a "$work/plain" "$work/with"
python3 - "$work/with" <<'PY'
import json, os, sys
root = sys.argv[1]
os.makedirs(os.path.join(root, ".addresses"), exist_ok=True)
titles = sorted(name[:-9] for _, _, files in os.walk(root) for name in files if name.endswith(".yianazip"))
for i, title in enumerate(titles):
    page = {"page_number": 1, "address_type": "patient", "is_prime": True,
            "patient": {"full_name": "Jane Smith %d" % i}, "address": {"line_1": "%d Park Road" % i, "postcode": "LS6 1AA"}}
    extraction = {"schema_version": 1, "document_id": title, "extracted_at": "2026-03-01T09:00:00Z",
                  "page_count": 1, "pages": [page], "overrides": []}
    with open(os.path.join(root, ".addresses", title + ".json"), "w") as f:
        json.dump(extraction, f, indent=2, sort_keys=True)
    if i % 5 == 0:
        correction = {"page_number": 1, "match_address_type": "patient", "override_date": "2026-03-02T10:00:00Z", "is_prime": True}
        with open(os.path.join(root, ".addresses", title + ".overrides.json"), "w") as f:
            json.dump({"schema_version": 1, "document_id": title, "overrides": [correction]}, f, indent=2, sort_keys=True)
PY
echo "library: $size documents; with companions: $(ls -A "$work/with/.addresses" | wc -l) files in .addresses"
for lib in plain with; do "$yiana" index --library "$work/$lib" > /dev/null; done
sync

printf '%-34s %10s %10s %8s %8s\n' "median of $runs alternating runs" "plain s" "with s" "ratio" "target"
for command in "conflicts list" "index"; do
    plain=(); with=()
    for ((i = 0; i < runs; i++)); do
        plain+=("$(seconds "$yiana" $command --library "$work/plain")")
        with+=("$(seconds "$yiana" $command --library "$work/with")")
    done
    p=$(printf '%s\n' "${plain[@]}" | median); w=$(printf '%s\n' "${with[@]}" | median)
    printf '%-34s %10.3f %10.3f %7.2fx %8s\n' "yiana $command" "$p" "$w" "$(echo "$w / $p" | bc -l)" "<= 1.2x"
done
