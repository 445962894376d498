#!/usr/bin/env bash
# The structure rules, measured: which files import Glibc (only the system layer), who reads
# C's errno, string-matched codes, commands without a commandName, the CLI's size, functions
# over 80 lines and files over 400 (issue 14); that Sources/ holds only what ships, the `yiana`
# program and the modules it is made of, the tools that test and measure it being in Tools/,
# and that no link in README.md or docs/ dangles (issue 46); that SQLite's C API is called by
# no module of ours (GRDB's alone), and GRDB imported by one module only, YianaSQLite, and
# there `internal`ly, by no test or tool either. Exits 1 when a rule is broken.
#
#   Scripts/checks/structure.sh [DIR]     (default: this repository)
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
status=0
glibc=$(grep -rl 'import Glibc' Sources Tools | sort)
echo "files importing Glibc: $(echo "$glibc" | grep -c . || true)"
echo "$glibc" | sed 's/^/  /'
outside=$(echo "$glibc" | grep -v '^Sources/YianaSystem/' || true)
if [ -n "$outside" ]; then echo "FAIL: Glibc imported outside the system layer: $outside"; status=1; fi
# SQLite is behind GRDB (its GRDBSQLite module, the one that includes sqlite3.h): no module of
# ours calls SQLite's C API. GRDB is behind YianaSQLite, our one way to SQLite, which imports it
# `internal`ly so that no GRDB type crosses it; nothing else imports it, tests and tools included.
sqlite_c=$(grep -rlE 'sqlite3_[a-z_]+\(|import (SQLite3|GRDBSQLite|CSQLite)' Sources Tools --include=*.swift || true)
echo "files calling SQLite's C API: $(echo -n "$sqlite_c" | grep -c . || true)"
if [ -n "$sqlite_c" ]; then echo "FAIL: SQLite's C API outside GRDB: $sqlite_c"; status=1; fi
grdb=$(grep -rlE '^(@[A-Za-z_]+ )?((public|package|internal|fileprivate|private) )?import GRDB' Sources Tools Tests --include=*.swift | sort)
echo "files importing GRDB (YianaSQLite's alone): $(echo -n "$grdb" | grep -c . || true)"
outside=$(echo "$grdb" | grep -v '^Sources/YianaSQLite/' || true)
if [ -n "$outside" ]; then echo "FAIL: GRDB imported outside YianaSQLite: $outside"; status=1; fi
leaky=$(echo "$grdb" | grep '^Sources/YianaSQLite/' | xargs -r grep -LE '^internal import GRDB$' || true)
if [ -n "$leaky" ]; then echo "FAIL: GRDB imported other than internally (its types would cross the module): $leaky"; status=1; fi
deps=$(grep -c 'product(name: "GRDB"' Package.swift || true)
if [ "$deps" != 1 ]; then echo "FAIL: $deps targets depend on GRDB in Package.swift (YianaSQLite alone)"; status=1; fi
echo "files reading errno outside the system layer: $(grep -rlw 'errno' Sources Tools --include=*.swift | grep -vc '^Sources/YianaSystem/' || true)"
matched=$(grep -rnE 'codes\.contains\("|\.code (==|!=) "|\.action (==|!=) "|codes == \["|error\.code == "' Sources --include=*.swift || true)
echo "codes matched by string literal: $(echo -n "$matched" | grep -c . || true)"
if [ -n "$matched" ]; then echo "$matched"; status=1; fi
# Every command names itself: ArgumentParser otherwise derives each name with
# String(describing:) of the type, whose protocol-conformance lookups cost about 3 ms of
# every start of yiana (issue 15).
unnamed=$(grep -rn -A1 'CommandConfiguration($' Sources/yiana | grep -E '^Sources/[^:]*-[0-9]+-' | grep -v 'commandName:' || true)
echo "commands without commandName: $(echo -n "$unnamed" | grep -c . || true)"
if [ -n "$unnamed" ]; then echo "$unnamed"; status=1; fi
python3 - <<'PY' || status=1
import glob, re, sys
def functions(path):
    lines = open(path).read().split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'^(\s*)(@\w+(\(.*?\))?\s+)*((public|private|fileprivate|internal|package|static|mutating|override|final|nonisolated|@discardableResult)\s+)*(func|init\??|deinit)\b', line)
        if not m or (line.rstrip().endswith('}') and line.count('{') == line.count('}')):
            continue
        # A protocol's requirement has no body: the next line as far in as it comes before any '{'.
        j, bodiless = i, False
        while '{' not in lines[j]:
            j += 1
            if j >= len(lines) or (lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) <= len(m.group(1))):
                bodiless = True
                break
        if bodiless:
            continue
        for j in range(i + 1, len(lines)):
            if lines[j] == m.group(1) + '}':
                yield i + 1, j - i + 1, line.strip()
                break
cli = sorted(glob.glob('Sources/yiana/*.swift'))
run_lines = 0
for path in cli:
    lines = open(path).read().split('\n')
    for start, length, text in functions(path):
        if text.startswith('func run()'):
            run_lines += sum(1 for x in lines[start:start + length - 2] if x.strip() and not x.strip().startswith('//'))
total = sum(1 for p in cli for x in open(p) if x.strip() and not x.strip().startswith('//'))
print(f"CLI: {len(cli)} files, {total} non-blank lines, {run_lines} of them in run() bodies")
files = [p for d in ('Sources', 'Tools', 'Tests') for p in glob.glob(f'{d}/**/*.swift', recursive=True)]
long_functions = [(n, p, s) for p in files for s, n, _ in functions(p) if n > 80]
long_files = [(sum(1 for _ in open(p)), p) for p in files if sum(1 for _ in open(p)) > 400]
print(f"functions over 80 lines: {len(long_functions)}")
for n, p, s in sorted(long_functions, reverse=True): print(f"  {p}:{s} {n} lines")
print(f"files over 400 lines: {len(long_files)}")
for n, p in sorted(long_files, reverse=True): print(f"  {p} {n} lines")
sys.exit(1 if long_functions or long_files else 0)
PY
# What ships, apart: every folder of Sources/ is a module (or build plugin) the `yiana` program is built from
# (from the manifest as SwiftPM reads it), and the package's only executable product is yiana.
swift package dump-package 2>/dev/null | python3 -c '
import json, os, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
def needs(name, seen):
    if name in seen or name not in targets: return
    seen.add(name)
    for dependency in targets[name]["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency: needs(dependency[kind][0], seen)
    for usage in targets[name].get("pluginUsages") or []:  # a build plugin it is built with
        if "plugin" in usage: needs(usage["plugin"][0], seen)
shipped = set(); needs("yiana", shipped)
folder = lambda t: t.get("path") or ("Sources/" + t["name"])
stray = sorted(f"Sources/{d}" for d in os.listdir("Sources")
               if not any(folder(targets[n]).rstrip("/") == f"Sources/{d}" for n in shipped))
executables = sorted(p["name"] for p in package["products"] if "executable" in p["type"])
print(f"folders in Sources/ that yiana is not built from: {len(stray)}")
for path in stray: print(f"  {path} (a tool or test goes in Tools/ or Tests/)")
print(f"executable products: {executables}")
sys.exit(1 if stray or executables != ["yiana"] else 0)
' || status=1
python3 Scripts/checks/links.py || status=1
exit $status
