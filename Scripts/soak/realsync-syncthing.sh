#!/usr/bin/env bash
# The toolkit under real sync programs, the long form of the suite's RealSyncTests:
# ROUNDS runs of the scenario (import, sync, a tag on one device and a new title on the
# other while apart, reconnect, `conflicts resolve --strategy merge`, sync again) with two
# Syncthing instances on 127.0.0.1 (discovery, relays, NAT, upgrades, reports off), then
# with unison -copyonconflict; then the ocr scenario the same way (a scan recognised by
# `yiana ocr` on both devices while apart; merge; the results' conflict copies settled),
# and the companions, inject, keeper, extract, letter, organize and notify scenarios (`yiana-realsync --help`).
# Prints one line per run and a summary; exits 1 if any failed.
#
#   Scripts/soak/realsync-syncthing.sh [ROUNDS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
Scripts/setup.sh syncthing unison apprise
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana >/dev/null
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana-realsync >/dev/null  # the same flags: one build, not two
bin=$(swift build -c release --show-bin-path)
failed=0 runs=0
for scenario in edit ocr companions inject keeper extract letter organize notify; do
    for program in syncthing unison; do
        for ((i = 1; i <= rounds; i++)); do
            runs=$((runs + 1))
            if ! "$bin/yiana-realsync" --program "$program" --scenario "$scenario" --samples SampleDocs; then failed=$((failed + 1)); fi
        done
    done
done
echo "$runs runs, $failed failed."
[ "$failed" -eq 0 ]
