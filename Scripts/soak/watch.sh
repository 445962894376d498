#!/usr/bin/env bash
# Soak of `yiana watch` (Scripts/soak/watch.py says what it does and checks): WRITERS
# processes change a library of DOCUMENTS documents at random for SECONDS while the watcher
# runs; then the index must equal a fresh `yiana index`, nothing damaged or lost, and the
# latency, operations per second, RSS (start / end) and idle CPU are printed.
# Usage: Scripts/soak/watch.sh [SECONDS] [WRITERS] [DOCUMENTS] [SEED]   (default 600 3 2000 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh python3 >/dev/null
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana >/dev/null
bin="$(swift build -c release --show-bin-path)"
python3 Scripts/soak/watch.py "$bin/yiana" "${1:-600}" "${2:-3}" "${3:-2000}" "${4:-1}"
