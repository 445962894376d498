# Helpers the benchmark scripts share; sourced, not run.
# seconds CMD...: wall seconds one run of CMD takes (its output and failure ignored).
seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
# median: the median of the numbers on standard input, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# release_binary PRODUCT: builds PRODUCT for release, with the Swift runtime linked in as
# users get it (README), and prints its path.
release_binary() {
    swift build -c release --static-swift-stdlib --product "$1" >/dev/null
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
# serve_work NAME: a new work folder (`work`) holding this machine's state and cache for the
# run, removed at exit together with the server start_serve started.
serve_work() {
    work="$(mktemp -d "${BENCH_DIR:-/tmp}/yiana-$1-XXXXXX")"
    export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
    server=""
    trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
}
