#!/usr/bin/env bash
# `yiana serve` under a long mixed load, its memory watched: wrk (2 threads, 32 connections)
# for MINUTES one-minute rounds (default 10) against a mix of the kept search answers, searches
# no answer is kept for, the search page, page images of several widths and hit boxes, on an
# index of N documents (default 10,000); the server's RSS after each round. Passes when the
# RSS stays under 200 MB and the last round's is within 10% (or 8 MB) of the second's (flat).
# Usage: Scripts/soak/serve.sh [MINUTES] [DOCUMENTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh wrk $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
minutes="${1:-10}"
documents="${2:-10000}"
serve_work soak-serve

python3 Scripts/generate/library.py "$documents" "$work/lib" >/dev/null
"$yiana" import --library "$work/lib" --into Samples SampleDocs/pdfs/Flow\ control\ paper.pdf SampleDocs/pdfs/Bank\ statement\ reminder.pdf >/dev/null
"$yiana" index --library "$work/lib" >/dev/null
start_serve "$work" "$yiana" --library "$work/lib"
rss() { rss_mb "$server"; }

cat > "$work/mix.lua" <<'LUA'
local words = {"account", "invoice", "statement", "tax", "meeting", "insurance", "receipt", "payment", "refund", "delivery",
               "warranty", "repair", "energy", "council", "school", "medical", "bank", "loan", "pension", "travel"}
local paper, bank = "Samples/Flow%20control%20paper.yianazip", "Samples/Bank%20statement%20reminder.yianazip"
local widths = {160, 320, 640, 960}
local threads = 0
function setup(thread) thread:set("seed", threads * 7919 + 17); threads = threads + 1 end
local n = nil
request = function()
  n = (n or seed or 1) + 1
  local kind = n % 10
  local word, other = words[n % #words + 1], words[(n * 7) % #words + 1]
  if kind < 3 then return wrk.format("GET", "/api/search?limit=20&q=" .. word) end
  if kind < 5 then return wrk.format("GET", "/api/search?limit=20&q=" .. word .. "%20" .. other .. "%20" .. (n % 97)) end
  if kind < 7 then return wrk.format("GET", "/?q=" .. word) end
  if kind < 9 then return wrk.format("GET", "/page-image?path=" .. paper .. "&n=" .. (n % 3 + 1) .. "&w=" .. widths[n % #widths + 1]) end
  return wrk.format("GET", "/api/hits?path=" .. bank .. "&n=1&q=statement")
end
LUA
idle=$(rss)
series=()
for round in $(seq "$minutes"); do
    wrk -t2 -c32 -d60s -s "$work/mix.lua" "$url" > "$work/wrk.txt"
    series+=("$(rss)")
    printf 'round %2d: %8s requests/s, non-2xx %s, RSS %s MB\n' "$round" "$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")" \
        "$(awk '/Non-2xx/ {print $5}' "$work/wrk.txt" | grep . || echo 0)" "${series[-1]}"
done
second=${series[1]:-${series[0]}}; last=${series[-1]}
max=$(printf '%s\n' "${series[@]}" | sort -n | tail -1)
limit=$(( second + (second / 10 > 8 ? second / 10 : 8) ))
printf '\nRSS of yiana serve: %s MB idle; after each minute: %s MB; peak %s MB (target < 200 MB, flat)\n' "$idle" "${series[*]}" "$max"
if (( max >= 200 )) || (( last > limit )); then echo "soak-serve: FAIL (peak $max MB, last $last MB against $second MB in round 2)"; exit 1; fi
echo "soak-serve: pass"
