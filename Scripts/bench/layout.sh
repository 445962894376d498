#!/usr/bin/env bash
# What the synced-library layout costs (issue 12): `yiana conflicts list` and a no-op
# `yiana index` over DOCUMENTS generated documents with COPIES conflict copies, run by this
# tree's yiana and by BEFORE's (default: the commit before the new layout), interleaved in
# one run on one library; medians of 5 and their ratio.
# Usage: Scripts/bench/layout.sh [DOCUMENTS] [COPIES] [BEFORE]   (default 10000 500 9b408d8)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
documents="${1:-10000}"; copies="${2:-500}"; before="${3:-9b408d8}"
Scripts/setup.sh bc $(command -v python3 >/dev/null || echo python3) >/dev/null
new="$(release_binary yiana)"
work="$(mktemp -d /tmp/yiana-bench-layout-XXXXXX)"
trap 'git worktree remove --force "$work/before-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
# BEFORE's build is kept in .build-before-BEFORE (ignored by git), so a second run is quick.
scratch="$PWD/.build-before-$before"
git worktree add --detach "$work/before-src" "$before" >/dev/null 2>&1
(cd "$work/before-src" && swift build -c release --static-swift-stdlib --product yiana --scratch-path "$scratch" >/dev/null)
old="$scratch/release/yiana"

python3 Scripts/generate/library.py "$documents" "$work/lib"
python3 Scripts/generate/conflict-copies.py "$work/lib" "$copies"
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"
"$old" index --library "$work/lib" --index "$work/old.sqlite" >/dev/null 2>&1 || true
"$new" index --library "$work/lib" --index "$work/new.sqlite" >/dev/null 2>&1 || true
sync

co=(); cn=(); io=(); in=()
for _ in 1 2 3 4 5; do
    co+=("$(seconds "$old" conflicts list --library "$work/lib")")
    cn+=("$(seconds "$new" conflicts list --library "$work/lib")")
    io+=("$(seconds "$old" index --library "$work/lib" --index "$work/old.sqlite")")
    in+=("$(seconds "$new" index --library "$work/lib" --index "$work/new.sqlite")")
done
m() { printf '%s\n' "$@" | median; }
row() { printf '%-44s %8.3f s %8.3f s %7.2fx\n' "$1" "$2" "$3" "$(echo "$3 / $2" | bc -l)"; }
printf '%-44s %10s %10s %8s\n' "$documents documents + $copies conflict copies" "before" "after" "after/before"
row "conflicts list" "$(m "${co[@]}")" "$(m "${cn[@]}")"
row "index (nothing changed)" "$(m "${io[@]}")" "$(m "${in[@]}")"
echo "groups found: before $("$old" conflicts list --library "$work/lib" 2>/dev/null | tail -1)"
echo "              after  $("$new" conflicts list --library "$work/lib" 2>/dev/null | tail -1)"
