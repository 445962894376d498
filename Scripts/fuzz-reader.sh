#!/usr/bin/env bash
# Mutation fuzzing of the document reader (open, metadata, every CRC, the PDF's bytes):
# valid documents from SampleDocs and generated ones, damaged in the ways files get damaged
# and in hostile ways. Errors are expected; a crash or a hang (10 s on one input) fails,
# and leaves its input in the work folder.
# Usage: Scripts/fuzz-reader.sh [SECONDS] [SEED]   (default 600 s)
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh >/dev/null
swift build -c release --product yiana-bench >/dev/null
swift build -c release --product yiana >/dev/null
bin="$(swift build -c release --show-bin-path)"
seconds="${1:-600}"; seed="${2:-$(date +%s)}"
work="$(mktemp -d /tmp/yiana-fuzz-XXXXXX)"
mkdir -p "$work/corpus" "$work/lib"
cp SampleDocs/archives/*.yianazip "$work/corpus/"
"$bin/yiana" import --library "$work/lib" SampleDocs/pdfs > /dev/null 2>&1 || true
find "$work/lib" -name '*.yianazip' -exec cp {} "$work/corpus/" \;
if "$bin/yiana-bench" fuzz-reader "$seconds" "$work/corpus" "$work/run" "$seed"; then
    rm -rf "$work"
else
    status=$?
    echo "fuzz-reader FAILED (exit $status; a signal means a crash); the input is in $work/run/current.yianazip" >&2
    exit 1
fi
