#!/usr/bin/env bash
# The long form of the "nothing lost" property test: random two-device histories (edits,
# conflict copies in every naming scheme, identical copies, old versions coming back),
# resolved with random strategies; after every resolve each earlier version's bytes must be
# in the library or the version store, and no conflict may remain.
# Usage: Scripts/soak/conflicts.sh [ROUNDS]   (default 1000 rounds for each of 3 seeds)
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh
YIANA_SOAK_ROUNDS="${1:-1000}" swift test --filter NothingLostPropertyTests
