#!/usr/bin/env bash
# `yiana conflicts list` over 10,000 generated documents plus 500 conflict copies in the
# five naming styles (Dropbox, Syncthing, Nextcloud new and old, iCloud's "Name 2"): the
# time should be bound by reading metadata, not PDFs. Prints time, peak RSS and the count.
# Usage: Scripts/bench-conflicts.sh [DOCUMENTS] [COPIES]   (default 10000 500)
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh time $(command -v python3 >/dev/null || echo python3) >/dev/null
swift build -c release --product yiana >/dev/null
yiana="$(swift build -c release --show-bin-path)/yiana"
documents="${1:-10000}"; copies="${2:-500}"
work="$(mktemp -d /tmp/yiana-bench-conflicts-XXXXXX)"
trap 'rm -rf "$work"' EXIT

python3 Scripts/make-library.py "$documents" "$work/lib"
python3 - "$work/lib" "$copies" <<'PY'
import json, os, random, sys, zipfile
root, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(3)
docs = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".yianazip"))
styles = [" (Bob's conflicted copy 2026-03-01)", ".sync-conflict-20260301-101010-AB", " (conflicted copy 2026-03-02 101010)",
          "_conflict-20260301-101010", " 2"]
for i, path in enumerate(rng.sample(docs, count)):
    with zipfile.ZipFile(path) as z:
        meta, pdf = json.loads(z.read("metadata.json")), z.read("content.pdf")
    meta["modified"] += 60
    with zipfile.ZipFile(path[:-len(".yianazip")] + styles[i % len(styles)] + ".yianazip", "w", zipfile.ZIP_STORED) as out:
        out.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
        out.writestr("content.pdf", pdf + b"% edited on another device\n")
        out.writestr("format.json", '{"formatVersion":2}')
PY
sync
for _ in 1 2 3; do
    /usr/bin/time -f "conflicts list: %e s, peak RSS %M KB" "$yiana" conflicts list --library "$work/lib" > "$work/out.txt" || true
    tail -1 "$work/out.txt"
done
