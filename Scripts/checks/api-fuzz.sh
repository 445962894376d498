#!/usr/bin/env bash
# schemathesis (PyPI, in a virtual environment under .build/) against the OpenAPI document that
# `yiana serve` serves, on a library of the sample PDFs, indexed: every operation with examples,
# the coverage phase and fuzzing, and every check schemathesis has (no 5xx; status codes,
# content types, headers and bodies as the document describes them; 405 for undeclared
# methods; valid data accepted) but one: `negative_data_rejection` takes `tag=0` for an integer
# where an array of strings is declared, which a query string cannot tell apart from the tag "0".
# With `postgres`, the index is on a PostgreSQL server of the script's own (initdb in the work
# folder): a query PostgreSQL cannot take must be answered too (a NUL, which it takes in no
# text, was its error, a 503, where the SQLite index gave a 500).
# Exits 1 on any failure; the seed is printed so that a failure can be replayed.
# Usage: Scripts/checks/api-fuzz.sh YIANA_BINARY [EXAMPLES per operation, default 200] [postgres]
#        Scripts/checks/api-fuzz.sh --install   (only installs schemathesis)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
venv=.build/schemathesis-venv
if [ ! -x "$venv/bin/schemathesis" ]; then
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis>=4.3,<5"
fi
[ "$1" != --install ] || exit 0
yiana="$(realpath "$1")"
examples="${2:-200}"
backend="${3:-sqlite}"
BENCH_DIR="${TMPDIR:-/tmp}" serve_work api-fuzz
index=()
if [ "$backend" = postgres ]; then
    start_postgres
    psql_ -d postgres -c "CREATE DATABASE fuzz"
    index=(--index "postgres://yiana@$socket:$port/fuzz")
fi
# The damaged and encrypted samples are refused (exit 1); the others make the library.
"$yiana" import --library "$work/lib" SampleDocs/pdfs/*.pdf SampleDocs/scans/*.pdf >/dev/null 2>&1 || true
test -f "$work/lib/Bank statement reminder.yianazip"
"$yiana" index --library "$work/lib" "${index[@]}" >/dev/null
start_serve "$work" "$yiana" --library "$work/lib" "${index[@]}"
cd "$work"
# Real documents and pages for `path` and `n` most of the time, so that /api/hits reaches its
# page and its matching instead of answering 404 to made-up names and pages (which it still
# gets the rest of the time).
documents=$(cd lib && find . -name '*.yianazip' -printf '"%P", ' | sed 's/, $//')
cat > schemathesis.toml <<TOML
[dictionaries.documents]
values = [$documents]

[dictionaries.pages]
values = [1, 2]

[parameters]
"query.path" = { dictionary = "documents", probability = 0.8 }
"query.n" = { dictionary = "pages", probability = 0.8 }
TOML
status=0
"$OLDPWD/$venv/bin/schemathesis" run "${url}api/openapi.json" --checks all --exclude-checks negative_data_rejection \
    --max-examples "$examples" --workers 2 --no-color > "$work/schemathesis.txt" 2>&1 || status=$?
grep -v '^$' "$work/schemathesis.txt" | tail -40
kill -0 "$server" || { echo "api-fuzz: the server is no longer running"; cat "$work/serve.err"; exit 1; }
exit "$status"
