#!/usr/bin/env bash
# The long form of the cloud soak: thousands of random evict / download (with faults) /
# edit / create / sync steps over two devices; at the end every document on both devices
# verifies and is the cloud's or a kept version, and nothing that existed is lost.
# Usage: Scripts/soak/cloud.sh [STEPS]   (default 3000 steps for each of 2 seeds)
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh
YIANA_SOAK_STEPS="${1:-3000}" swift test --filter CloudSoakTests
