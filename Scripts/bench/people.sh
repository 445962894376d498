#!/usr/bin/env bash
# The register of people (issue 77) on a clinic's library from Scripts/generate/people.py:
# PATIENTS patients in DOCUMENTS documents (named the app's way and not, a folder per patient
# for some, the hard cases planted), imported and indexed; the register scored against the
# truth (Scripts/bench/people-score.py: wrong merges 0, every split listed, the planted pairs);
# then CHANGES random changes (Scripts/generate/people-changes.py: add, edit, delete, rename,
# override, an address file deleted), and after every EVERY of them `yiana index` and the
# register compared with one rebuilt from scratch (a new index of the same library): equal,
# people, their documents and mentions, and the possible duplicates.
#   Tune on some seeds, measure on seeds never looked at: SEED picks them (default 1).
# Usage: [SEED=N] [EVERY=20] [YIANA=path] Scripts/bench/people.sh [PATIENTS] [DOCUMENTS] [CHANGES]
#        (defaults 300, 2000, 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
yiana="$(release_binary yiana)"
patients="${1:-300}" documents="${2:-2000}" changes="${3:-200}" seed="${SEED:-1}" every="${EVERY:-20}"
bench_work people
export YIANA_KEEP=off

python3 Scripts/generate/people.py "$work/gen" --patients "$patients" --documents "$documents" --seed "$seed"
mkdir -p "$work/lib/.addresses"
# In batches: a hundred thousand names are more than one command line holds.
(cd "$work/gen/pdf" && ls | xargs -d '\n' -n 5000 "$yiana" import --library "$work/lib" >/dev/null)
find "$work/gen/addresses" -name '*.json' -print0 | xargs -0 cp -t "$work/lib/.addresses/"
start=$(date +%s.%N)
"$yiana" index --library "$work/lib" >/dev/null 2>&1
echo "index with the register: $(echo "$(date +%s.%N) - $start" | bc -l | xargs printf '%.2f') s"
"$yiana" people list --library "$work/lib" --json > "$work/people.json"
"$yiana" people duplicates --library "$work/lib" --json > "$work/duplicates.json" || true
python3 Scripts/bench/people-score.py "$work/gen/truth.json" "$work/people.json" "$work/duplicates.json" "${SCORE_FORMAT:-}"

# register INDEX OUT: the register as `people list` and `people duplicates` give it, in one
# canonical JSON file.
register() {
    "$yiana" people list --library "$work/lib" --index "$1" --json > "$work/list.json"
    "$yiana" people duplicates --library "$work/lib" --index "$1" --json > "$work/dups.json" || true
    python3 -c 'import json, sys
people = sorted(json.load(open(sys.argv[1])), key=lambda p: p["id"])
for p in people: p["documents"].sort()
dups = sorted(json.load(open(sys.argv[2])), key=lambda d: (d["a"], d["b"]))
json.dump({"people": people, "duplicates": dups}, open(sys.argv[3], "w"), indent=1, sort_keys=True)' "$work/list.json" "$work/dups.json" "$2"
}
done_changes=0 round=0
while [ "$done_changes" -lt "$changes" ]; do
    round=$((round + 1))
    python3 Scripts/generate/people-changes.py "$work/lib" --yiana "$yiana" --count "$every" --seed "$((seed * 1000 + round))" > "$work/changes-$round.txt"
    done_changes=$((done_changes + every))
    "$yiana" index --library "$work/lib" >/dev/null 2>&1
    register "$work/cache/yiana-tools/index-lib-"*.sqlite "$work/kept.json"
    rm -f "$work/fresh.sqlite"*
    "$yiana" index --library "$work/lib" --index "$work/fresh.sqlite" >/dev/null 2>&1
    register "$work/fresh.sqlite" "$work/rebuilt.json"
    if ! cmp -s "$work/kept.json" "$work/rebuilt.json"; then
        echo "after $done_changes changes the register differs from a rebuild:"
        diff <(python3 -m json.tool "$work/kept.json") <(python3 -m json.tool "$work/rebuilt.json") | head -40
        cat "$work/changes-$round.txt"
        exit 1
    fi
done
echo "after $done_changes changes ($round rounds of $every, each followed by \`yiana index\`): the register equals a rebuild from scratch"
