#!/usr/bin/env bash
# The crash, fault and concurrency harness over every write path (yiana-harness): each path
# is killed with SIGKILL (at random moments, and just before random I/O calls) and given I/O
# faults (EIO, ENOSPC, short writes and reads, through the LD_PRELOAD shim libFaultShim.so)
# until it has KILLS kills and FAULTS faults; after each run everything must verify and no
# byte may be lost. Then ROUNDS rounds of 10 processes at once in one library. Prints a table.
# Usage: Scripts/soak/crash-harness.sh [KILLS] [FAULTS] [ROUNDS] [SEED]   (default 64 64 10 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh >/dev/null
# The harness compiles its LD_PRELOAD shim (Tools/FaultShim) beside itself when it needs it.
for product in yiana yiana-harness; do YIANA_STATIC_RUNTIME=1 swift build -c release --product "$product" >/dev/null; done
bin="$(swift build -c release --show-bin-path)"
"$bin/yiana-harness" --kills "${1:-64}" --faults "${2:-64}" --rounds "${3:-10}" --seed "${4:-1}" --samples SampleDocs
