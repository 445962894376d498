#!/usr/bin/env bash
# Mutation fuzzing of the document reader (open, metadata, every CRC, the PDF's bytes):
# valid documents from SampleDocs and generated ones, damaged in the ways files get damaged
# and in hostile ways, half of them byte by byte and half rebuilt with a damaged structure
# (bytes inserted before the end record, appended data behind a copied end record, deflated
# entries inflating up to 256 MiB with true or lying sizes). Errors are expected; a crash, a
# hang (10 s on one input) or a peak RSS over 64 MB fails, and a crash or hang leaves its
# input in the work folder.
# Usage: Scripts/soak/fuzz-reader.sh [SECONDS] [SEED]   (default 600 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh time >/dev/null
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana-bench >/dev/null
YIANA_STATIC_RUNTIME=1 swift build -c release --product yiana >/dev/null
bin="$(swift build -c release --show-bin-path)"
seconds="${1:-600}"; seed="${2:-$(date +%s)}"
work="$(mktemp -d /tmp/yiana-fuzz-XXXXXX)"
# This machine's state for the run's library (the keeper's copies of every input among it) in the
# work folder, not ~/.local/state.
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
mkdir -p "$work/corpus" "$work/lib"
cp SampleDocs/archives/*.yianazip "$work/corpus/"
"$bin/yiana" import --library "$work/lib" SampleDocs/pdfs > /dev/null 2>&1 || true
find "$work/lib" -name '*.yianazip' -exec cp {} "$work/corpus/" \;
limit_kb=$((64 * 1024))
if /usr/bin/time -f '%M' -o "$work/rss" "$bin/yiana-bench" fuzz-reader "$seconds" "$work/corpus" "$work/run" "$seed"; then
    rss=$(tail -1 "$work/rss")
    echo "fuzz-reader: peak RSS $((rss / 1024)) MB (limit $((limit_kb / 1024)) MB)"
    if [ "$rss" -gt "$limit_kb" ]; then
        echo "fuzz-reader FAILED: peak RSS $rss kB over $limit_kb kB; the work folder is $work" >&2
        exit 1
    fi
    rm -rf "$work"
else
    status=$?
    echo "fuzz-reader FAILED (exit $status; a signal means a crash); the input is in $work/run/current.yianazip" >&2
    exit 1
fi
