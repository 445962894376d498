#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh unison syncthing libtasn1-doc
swift build --build-tests
swift test
