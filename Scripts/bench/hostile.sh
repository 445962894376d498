#!/usr/bin/env bash
# Peak memory of `yiana verify`, `repair --dry-run` and `repair` on hostile archives of about
# 100,000 entries (Scripts/generate/hostile-archives.py: many entries beside a real document's
# three, with and without a central directory, deflated ones, one name 89,000 times, 80,000
# different names, lying local headers, long names, 10,000 entries named content.pdf), each on
# its own in a library, with the reference `unzip -l` beside it. Each must stay under 64 MB and
# its report under 4 KB (the first names and a count, not every name); exits 1 otherwise.
# A command that takes over 120 s (HOSTILE_TIMEOUT) is stopped and fails (exit "timeout").
# Usage: [YIANA=BINARY] Scripts/bench/hostile.sh [ENTRIES]   (default 100000)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh unzip $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=: another build of it (a "before")
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-hostile-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
python3 Scripts/generate/hostile-archives.py "SampleDocs/archives/Sample Letter.yianazip" "$work/inputs" "${1:-100000}" >/dev/null
limit=64
status=0
printf '%-28s %-22s %10s %10s %8s %s\n' "archive" "command" "peak MB" "report B" "exit" "unzip -l peak MB"
for archive in "$work"/inputs/*.yianazip; do
    name="$(basename "$archive" .yianazip)"
    reference="$(python3 Scripts/bench/peak-memory.py unzip -- unzip -l "$archive" | sed 's/.*peak RSS \([0-9]*\) MB.*/\1/')"
    for command in "verify" "repair --dry-run" "repair"; do
        rm -rf "$work/lib" "$work/state" "$work/cache"
        mkdir -p "$work/lib"
        cp "$archive" "$work/lib/"
        # shellcheck disable=SC2086
        line="$(PEAK_MEMORY_TIMEOUT="${HOSTILE_TIMEOUT:-120}" python3 Scripts/bench/peak-memory.py "$name" -- "$yiana" $command --now --library "$work/lib")"
        peak="$(echo "$line" | sed 's/.*peak RSS \([0-9]*\) MB.*/\1/')"
        exit_code="$(echo "$line" | sed 's/.*exit \(-*[0-9a-z]*\)$/\1/')"
        bytes=0
        if [ "$exit_code" != timeout ]; then
            rm -rf "$work/lib" "$work/state" "$work/cache"
            mkdir -p "$work/lib"
            cp "$archive" "$work/lib/"
            # shellcheck disable=SC2086
            bytes="$( ("$yiana" $command --now --library "$work/lib" 2>&1 || true) | wc -c)"
        fi
        printf '%-28s %-22s %10s %10s %8s %s\n' "$name" "$command" "$peak" "$bytes" "$exit_code" "$reference"
        if [ "$peak" -ge "$limit" ] || [ "$bytes" -gt 4096 ] || ! [[ "$exit_code" =~ ^[01]$ ]]; then
            echo "hostile FAILED: $name, $command: peak $peak MB (limit $limit), report $bytes bytes (limit 4096), exit $exit_code" >&2
            status=1
        fi
    done
done
exit "$status"
