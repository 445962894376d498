#!/usr/bin/env bash
# Notifications (issue 55), two measures:
#   1. a fifth of the library deleted on the other device (unison, loopback) -> the alert at a
#      webhook on loopback: median and max over RUNS runs of `yiana-realsync --scenario notify`
#      (each run also checks the heartbeat, the resolved message, delivery after the receiver
#      was down and a restart that repeats nothing);
#   2. `yiana watch` on a generated library of SIZE documents, with and without --notify: CPU
#      seconds and peak RSS of the watcher over the same script (start, first pass, 20
#      documents overwritten with garbage, their pass and its message, 30 s idle).
# Usage: Scripts/bench/notify.sh [RUNS] [SIZE]   (default 10 runs, 10,000 documents; RUNS 0: the watcher alone;
#        MODES="with without" to measure in the other order)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh unison apprise bc >/dev/null
runs="${1:-10}" size="${2:-10000}"
yiana="$(release_binary yiana)"
realsync="$(release_binary yiana-realsync)"
bench_work bench-notify

if [ "$runs" -gt 0 ]; then
    echo "1. deletion on the other device -> alert ($runs runs of yiana-realsync --program unison --scenario notify)"
    for r in $(seq "$runs"); do
        "$realsync" --program unison --scenario notify --samples SampleDocs --json > "$work/run-$r.json" || { echo "run $r failed:"; cat "$work/run-$r.json"; exit 1; }
        python3 -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["secondsToAlert"], 2))' "$work/run-$r.json" >> "$work/latency"
    done
    sort -g "$work/latency" | tr '\n' ' ' | sed 's/^/   seconds: /'; echo
    echo "   median $(median < "$work/latency") s, max $(sort -g "$work/latency" | tail -1) s"
fi

echo "2. yiana watch on $size documents, with and without --notify"
python3 Scripts/generate/library.py "$size" "$work/lib" > /dev/null
# A webhook that answers 200 to everything (apprise's json://).
python3 - "$work/hook.port" <<'PY' &
import http.server, sys
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.end_headers()
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Hook)
open(sys.argv[1], "w").write(str(server.server_port))
server.serve_forever()
PY
hook=$!
trap 'kill $hook 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/hook.port" ] && break; sleep 0.1; done
hook_url="json://127.0.0.1:$(cat "$work/hook.port")/hook"
ticks=$(getconf CLK_TCK)
for mode in ${MODES:-without with}; do
    lib="$work/lib-$mode"
    rm -rf "$lib" "$work/state" "$work/cache"
    cp -r "$work/lib" "$lib"
    args=(watch --library "$lib" --json)
    [ "$mode" = with ] && args+=(--notify "$hook_url")
    YIANA_SETTLE_SECONDS=1 "$yiana" "${args[@]}" > "$work/watch-$mode.jsonl" 2>/dev/null &
    pid=$!
    started=$(date +%s.%N)
    # The first pass is done once the index holds every document (status says so).
    until "$yiana" status --json --library "$lib" 2>/dev/null | python3 -c 'import json, sys; d = (json.load(sys.stdin).get("watcher") or {}).get("health") or {}; sys.exit(0 if d.get("passes", 0) >= 1 and d.get("lastPass") else 1)'; do sleep 0.5; done
    first=$(echo "$(date +%s.%N) - $started" | bc -l)
    mapfile -d '' -t documents < <(find "$lib" -name '*.yianazip' -print0 | sort -z)
    for f in "${documents[@]:0:20}"; do head -c 3000 /dev/urandom > "$f.new"; mv "$f.new" "$f"; done
    until [ "$(grep -c '"code":"damaged"' "$work/watch-$mode.jsonl")" -ge 20 ]; do sleep 0.5; done
    sleep 30
    read -r utime stime < <(awk '{print $14, $15}' "/proc/$pid/stat")
    hwm=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")
    kill -INT "$pid"; wait "$pid" || true
    cpu=$(echo "($utime + $stime) / $ticks" | bc -l)
    printf '   %-7s --notify: first pass %.1f s; CPU %.2f s in all; peak RSS %s MB\n' "$mode" "$first" "$cpu" "$hwm"
    if [ "$mode" = with ]; then
        told=$("$yiana" status --json --library "$lib" | python3 -c 'import json, sys; n = json.load(sys.stdin)["summary"].get("notifications") or {}; print((n.get("lastSent") or {}).get("title", "nothing"))')
        echo "            the last message sent: $told"
    fi
done
