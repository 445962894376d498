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
