# Helpers the benchmark scripts share; sourced, not run.
# seconds CMD...: wall seconds one run of CMD takes (its output and failure ignored).
seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
# median: the median of the numbers on standard input, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# release_binary PRODUCT: builds PRODUCT for release, with the Swift runtime linked in as
# users get it (Scripts/install.sh, Scripts/package.sh), and prints its path. YIANA=PATH: that
# build of yiana instead (one already built, or a "before" to compare).
release_binary() {
    if [ "$1" = yiana ] && [ -n "${YIANA:-}" ]; then echo "$YIANA"; return; fi
    YIANA_STATIC_RUNTIME=1 swift build -c release --product "$1" >/dev/null
    echo "$(swift build -c release --show-bin-path)/$1"
}
# start_serve WORK YIANA SERVE-ARGUMENTS...: starts `yiana serve ARGUMENTS --listen 127.0.0.1:0`
# in the background (its output in WORK/serve.out and WORK/serve.err) and, once it listens,
# sets `server` (its pid) and `url` (http://127.0.0.1:PORT/).
start_serve() {
    local work="$1" yiana="$2"
    shift 2
    "$yiana" serve "$@" --listen 127.0.0.1:0 > "$work/serve.out" 2>"$work/serve.err" &
    server=$!
    for _ in $(seq 100); do grep -q "http://" "$work/serve.out" && break; sleep 0.1; done
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/serve.out")
}
# rss_mb PID: a process's resident memory in MB.
rss_mb() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
# bench_work NAME: a new work folder (`work`) holding this machine's state and cache for the
# run (the keeper's copies of every document a run writes among them, which would otherwise
# pile up in ~/.local/state), removed at exit.
bench_work() {
    work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-$1-XXXXXX")"
    export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
    trap 'rm -rf "$work"' EXIT
}
# serve_work NAME: bench_work, and the server start_serve started stopped at exit too.
serve_work() {
    bench_work "$1"
    server=""
    trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
}
# start_postgres: a PostgreSQL server of the run's own in WORK/pg (initdb, the distribution's
# default settings; a socket there and no TCP; as the `postgres` user when this is root, which
# initdb refuses), stopped at exit together with the server start_serve started; sets `port`,
# `socket` (the folder, escaped for a URL: postgres://yiana@$socket:$port/DB); psql_ runs psql
# on it (psql_ -d DB -c SQL).
start_postgres() {
    pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    chmod 755 "$work"
    mkdir -p "$work/pg"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$work/pg"; fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_server "$pgbin/initdb" -D "$work/pg/data" -U yiana -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
    as_server "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w -o "-k $work/pg -p $port -c listen_addresses=''" start >/dev/null
    trap 'as_server "$pgbin/pg_ctl" -D "$work/pg/data" -m fast -w stop >/dev/null 2>&1; [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
    socket=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$work/pg")
}
as_server() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql_() { psql -h "$work/pg" -p "$port" -U yiana -X -q -A -t "$@"; }
# typst_python: the Python of the virtual environment the letter and layout generators run in
# (.build/typst-venv, with Typst and Pillow from PyPI), made when it is missing or lacks either.
typst_python() {
    local venv=.build/typst-venv
    if ! "$venv/bin/python" -c "import typst, PIL" 2>/dev/null; then
        rm -rf "$venv"
        python3 -m venv "$venv" >&2
        "$venv/bin/pip" install -q --disable-pip-version-check "typst>=0.13,<1" "pillow>=10" >&2
    fi
    echo "$venv/bin/python"
}
# generated_library NAME GENERATOR ARGS...: for the suite's fixture scripts: the debug builds of
# yiana and yiana-bench (`bin`), the generator's Python (`python`), a work folder (`work`, removed
# at exit) holding this machine's state, and in it the generator's documents (`$work/docs`, from
# `GENERATOR $work/docs ARGS...`) imported into `$work/lib` and recognised by `yiana ocr`.
generated_library() {
    local name="$1" generator="$2"
    shift 2
    Scripts/setup.sh poppler-utils python3-venv >/dev/null
    python="$(typst_python)"
    swift build --product yiana >/dev/null
    swift build --product yiana-bench >/dev/null
    bin="$(swift build --show-bin-path)"
    bench_work "$name"
    export YIANA_KEEP=off
    "$python" "$generator" "$work/docs" "$@"
    "$bin/yiana" import --allow-duplicates --library "$work/lib" "$work/docs/pdf" >/dev/null
    "$bin/yiana" ocr --all --library "$work/lib" >/dev/null
}
