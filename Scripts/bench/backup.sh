#!/usr/bin/env bash
# `yiana backup` against restic's own `restic backup` of the same library folder alone (issue 58),
# in one run, on N generated documents (default 10,000), ROUNDS rounds (default 3), each into
# new repositories, the two programs' order alternating:
# - the first run (everything new; yiana's backup folder made anew each round, the keeper having
#   looked at the library before, as the watcher does): goal <= 1.3x restic's;
# - the second run, nothing changed: goal <= 1.1x;
# - a third after one document changed (yiana's: what it added);
# - each repository's size against the library's (du), yiana's holding the keeper's journal too.
# Usage: Scripts/bench/backup.sh [DOCUMENTS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh bc restic $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"  # YIANA=: another build of it (a "before")
documents="${1:-10000}"
rounds="${2:-3}"
work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-bench-backup-XXXXXX")"
trap 'rm -rf "$work"' EXIT
python3 Scripts/generate/library.py "$documents" "$work/lib" >/dev/null
echo "a benchmark's password" > "$work/password"
export RESTIC_PASSWORD_FILE="$work/password" XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" RESTIC_CACHE_DIR="$work/restic-cache"
# The keeper's look at the whole library, as the watcher makes it.
"$yiana" versions list --deleted --library "$work/lib" >/dev/null
view="$(ls -d "$work"/state/yiana-tools/libraries/*/keeper)/backup"

# Seconds a command took; it must succeed.
timed() {
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/err" || { echo "failed: $* ($(tail -3 "$work/err"))" >&2; exit 1; }
    e=$(date +%s.%N)
    echo "$e - $s" | bc -l
}
restic_backup() { restic -q -r "$work/ref" backup "$work/lib"; }
yiana_backup() { "$yiana" backup --library "$work/lib" --repo "$work/yiana"; }
ratio() { echo "$1 / $2" | bc -l | cut -c1-4; }

r1=(); y1=(); r2=(); y2=()
for round in $(seq "$rounds"); do
    rm -rf "$work/ref" "$work/yiana" "$view"
    restic -q -r "$work/ref" init; restic -q -r "$work/yiana" init
    if (( round % 2 )); then
        r1+=("$(timed restic_backup)"); y1+=("$(timed yiana_backup)")
        r2+=("$(timed restic_backup)"); y2+=("$(timed yiana_backup)")
    else
        y1+=("$(timed yiana_backup)"); r1+=("$(timed restic_backup)")
        y2+=("$(timed yiana_backup)"); r2+=("$(timed restic_backup)")
    fi
    echo "round $round: first run restic ${r1[-1]} s, yiana ${y1[-1]} s ($(ratio "${y1[-1]}" "${r1[-1]}")x); second run restic ${r2[-1]} s, yiana ${y2[-1]} s ($(ratio "${y2[-1]}" "${r2[-1]}")x)"
done
a=$(printf '%s\n' "${y1[@]}" | median); b=$(printf '%s\n' "${r1[@]}" | median)
c=$(printf '%s\n' "${y2[@]}" | median); d=$(printf '%s\n' "${r2[@]}" | median)
echo "$documents documents, medians of $rounds rounds:"
echo "  first run:  yiana backup $a s, restic backup $b s: $(ratio "$a" "$b")x (goal <= 1.3x)"
echo "  second run: yiana backup $c s, restic backup $d s: $(ratio "$c" "$d")x (goal <= 1.1x)"

# One document changed: what the third snapshot adds.
python3 - "$work/lib" <<'PY'
import os, sys, zipfile
root = sys.argv[1]
name = sorted(f for d, _, fs in os.walk(root) for f in [os.path.join(d, x) for x in fs] if f.endswith(".yianazip"))[0]
with zipfile.ZipFile(name) as z:
    entries = {i.filename: z.read(i.filename) for i in z.infolist()}
entries["metadata.json"] = entries["metadata.json"].replace(b'"title"', b'"title" ', 1)
temp = name + ".tmp"
with zipfile.ZipFile(temp, "w", zipfile.ZIP_DEFLATED) as z:
    for filename, data in entries.items():
        z.writestr(filename, data)
os.replace(temp, name)
PY
sleep 6  # past the settle window: the change is a document, not one still arriving
"$yiana" backup --library "$work/lib" --repo "$work/yiana" --json > "$work/third.json"
added=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["dataAdded"], r["filesNew"], r["filesChanged"])' "$work/third.json")
first_added=$(restic -r "$work/yiana" stats --json --mode raw-data latest 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_size"])')
echo "  one document changed: the third snapshot adds $(echo "$added" | cut -d' ' -f1) bytes (files new, changed: $(echo "$added" | cut -d' ' -f2-)), against $first_added bytes the repository holds"
echo "  sizes: the library $(du -sk "$work/lib" | cut -f1) KiB; restic's repository $(du -sk "$work/ref" | cut -f1) KiB; yiana's $(du -sk "$work/yiana" | cut -f1) KiB (three snapshots, the journal and the changed document's earlier state among them)"
