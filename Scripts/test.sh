#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh unison syncthing libtasn1-doc python3 systemd  # python3: Scripts/structure.sh; systemd: systemd-analyze checks the watch unit
Scripts/structure.sh >/dev/null || { Scripts/structure.sh; exit 1; }  # the layering and size rules
swift build --build-tests
swift test
