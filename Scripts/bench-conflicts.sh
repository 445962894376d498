#!/usr/bin/env bash
# `yiana conflicts list` over 10,000 generated documents plus 500 conflict copies in the
# five naming styles (Dropbox, Syncthing, Nextcloud new and old, iCloud's "Name 2"): the
# time should be bound by reading metadata, not PDFs. Prints time, peak RSS and the count.
# Usage: Scripts/bench-conflicts.sh [DOCUMENTS] [COPIES]   (default 10000 500)
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh time $(command -v python3 >/dev/null || echo python3) >/dev/null
swift build -c release --static-swift-stdlib --product yiana >/dev/null
yiana="$(swift build -c release --show-bin-path)/yiana"
documents="${1:-10000}"; copies="${2:-500}"
work="$(mktemp -d /tmp/yiana-bench-conflicts-XXXXXX)"
trap 'rm -rf "$work"' EXIT

python3 Scripts/make-library.py "$documents" "$work/lib"
python3 Scripts/make-conflict-copies.py "$work/lib" "$copies"
sync
for _ in 1 2 3; do
    /usr/bin/time -f "conflicts list: %e s, peak RSS %M KB" "$yiana" conflicts list --library "$work/lib" > "$work/out.txt" || true
    tail -1 "$work/out.txt"
done
