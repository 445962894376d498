#!/bin/sh
# The one version of yiana-tools, derived from git: a tag vX.Y.Z on the commit makes X.Y.Z;
# after such a tag, X.Y.Z+git<commits since>.<commit>; before any tag, <base>~git<commit
# date>.<commit> (Debian sorts ~ before the release it leads to); outside git, <base>+dev.
# The program has it compiled in (the YianaVersion plugin runs this at every build), and
# Scripts/package.sh names the package by it, so `yiana --version` is the package's version.
# Usage: Scripts/version.sh             prints the version
#        Scripts/version.sh --swift OUT  writes it as Swift source to OUT (only when it changed)
set -eu
base=0.1.0
cd "$(dirname "$0")/.."
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1 || ! commit="$(git rev-parse --short=10 HEAD 2>/dev/null)"; then
    version="$base+dev"
elif tag="$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null)"; then
    version="${tag#v}"
elif tag="$(git describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null)"; then
    version="${tag#v}+git$(git rev-list --count "$tag"..HEAD).$commit"
else
    version="$base~git$(git log -1 --format=%cd --date=format:%Y%m%d).$commit"
fi
if [ "${1:-}" = "--swift" ]; then
    out="$2"
    text="// Written by Scripts/version.sh at build time; not in git.
extension YianaVersion {
    static let generated = \"$version\"
}"
    # Rewritten only when it changed: an unchanged file compiles nothing again.
    if [ ! -f "$out" ] || [ "$(cat "$out")" != "$text" ]; then
        printf '%s\n' "$text" > "$out.tmp" && mv "$out.tmp" "$out"
    fi
else
    echo "$version"
fi
