#!/usr/bin/env bash
# The Debian package on a machine that never saw Swift: a minimal Debian 12 root made with
# debootstrap from the Debian archive this machine's apt uses, the package installed into it
# with `apt-get install ./yiana-tools_….deb` (its dependencies resolved by apt), then, as an
# ordinary user there: yiana --version (the package's version, as the man page and /api/health say), man yiana, import of the sample PDFs, ocr --all, index,
# a search finding a word only in a scan, verify, and `yiana serve` answering its search page.
# It checks that the program needs no library from outside Debian (ldd, and each library it
# opens on first use present), that no Swift is in the root, and that `apt-get remove` leaves
# no file of the package behind. Prints each step's time; exits 1 on any failure.
# Usage: Scripts/package/chroot-test.sh [DEB]   (default: build it with Scripts/package.sh)
#        Scripts/package/chroot-test.sh --prepare DIR     only makes the fresh root, in DIR (while
#                                                         the package builds: Scripts/test.sh)
#        Scripts/package/chroot-test.sh --root DIR [DEB]  uses that root (and removes it after)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" -eq 0 ] || exec sudo "$0" "$@"  # debootstrap, mount and chroot need root
started=$SECONDS
Scripts/setup.sh debootstrap curl >/dev/null

# The archive this machine's apt uses (deb822 or one-line sources).
mirror="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | awk 'NR == 1 {print $2}')"
[ -n "$mirror" ] || mirror="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | grep -v security | awk 'NR == 1 {print $2}')"
mirror="${mirror:-http://deb.debian.org/debian}"

# make_root DIR: a minimal Debian 12 in DIR, with this machine's archive as its sources.
make_root() {
    debootstrap --variant=minbase bookworm "$1" "$mirror" >/dev/null
    cat > "$1/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
EOF
    touch "$1/.yiana-root-complete"
}
if [ "${1:-}" = "--prepare" ]; then
    mkdir -p "$2"
    make_root "$2"
    echo "a fresh Debian 12 root (debootstrap --variant=minbase) in $2: $((SECONDS - started)) s"
    exit 0
fi
prepared=""
if [ "${1:-}" = "--root" ]; then
    prepared="$2"
    shift 2
    [ -f "$prepared/.yiana-root-complete" ] || { echo "deb-chroot-test: $prepared is not a root made by --prepare" >&2; exit 1; }
fi
deb="${1:-$(Scripts/package.sh | tail -1)}"
echo "package: $deb ($(du -h "$deb" | cut -f1)) in $((SECONDS - started)) s"

root="${prepared:-$(mktemp -d "$PWD/.build/deb-root-XXXXXX")}"
chmod 755 "$root"  # its / for every user in it
server=""
cleanup() {
    [ -z "$server" ] || kill "$server" 2>/dev/null || true
    for mount in dev/pts dev proc; do umount -l "$root/$mount" 2>/dev/null || true; done
    # Never remove through a mount still in place (the host's /dev is bound into the root).
    for mount in dev/pts dev proc; do
        if mountpoint -q "$root/$mount"; then echo "deb-chroot-test: $root/$mount is still mounted; the root is left as it is" >&2; return; fi
    done
    rm -rf "$root"
}
trap cleanup EXIT
step=$SECONDS
[ -n "$prepared" ] || make_root "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
[ -n "$prepared" ] && echo "a fresh Debian 12 root: made beforehand in $prepared (--prepare)" \
    || echo "a fresh Debian 12 root (debootstrap --variant=minbase): $((SECONDS - step)) s"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
step=$SECONDS
cp "$deb" "$root/tmp/"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" man-db >/dev/null
echo "apt-get install ./$(basename "$deb") (and man-db): $((SECONDS - step)) s"

failed=0
check() {  # NAME COMMAND...
    local name="$1"; shift
    if "$@"; then echo "ok    $name"; else echo "FAIL  $name"; failed=1; fi
}
check "no Swift in the root" bash -c "! chroot '$root' sh -c 'command -v swift' >/dev/null && [ ! -e '$root/opt/swift' ]"
check "the program needs no library from outside Debian (ldd)" bash -c "! chroot '$root' ldd /usr/bin/yiana | grep -q 'not found\|libswift'"
for soname in $(grep -ho 'YIANA_LAZY_LIBRARY([a-z0-9]*, "[^"]*"' Sources/C*/shim.h | sed 's/.*"\(.*\)"/\1/'); do
    check "what it opens on first use is installed: $soname" bash -c "chroot '$root' /sbin/ldconfig -p | grep -q '$soname '"
done

# As an ordinary user, the whole job.
in_root useradd -m -s /bin/bash reader
cp -r SampleDocs "$root/home/reader/samples"
chroot "$root" chown -R reader:reader /home/reader/samples
as_reader() { chroot --userspec=reader:reader "$root" env -i HOME=/home/reader PATH=/usr/bin:/bin LANG=C.UTF-8 bash -c "cd ~ && $1"; }
step=$SECONDS
packaged="$(in_root dpkg-query -W -f '${Version}' yiana-tools)"
check "yiana --version is the package's version ($packaged)" as_reader "[ \"\$(yiana --version)\" = '$packaged' ]"
check "the man page says the same version" as_reader "MANPAGER=cat man yiana 2>/dev/null | grep -qF '$packaged'"
check "man yiana" as_reader 'MANPAGER=cat man yiana 2>/dev/null | grep -q "yiana"'
check "man yiana.versions.restore" as_reader 'MANPAGER=cat man yiana.versions.restore 2>/dev/null | grep -q "versions restore"'
check "yiana import of the sample PDFs" as_reader 'yiana import --library ~/Yiana ~/samples/pdfs ~/samples/scans >/dev/null 2>&1; [ $(find ~/Yiana -name "*.yianazip" | wc -l) -ge 8 ]'
check "yiana ocr --all recognises the scans" as_reader 'yiana ocr --library ~/Yiana --all | tee /tmp/ocr.out | grep -qE ": [1-9][0-9]* recognised"'
tail -2 "$root/tmp/ocr.out" | sed "s/^/      /"
check "yiana index" as_reader 'yiana index --library ~/Yiana >/dev/null'
check "yiana search finds a word only in a scan" as_reader 'yiana search --library ~/Yiana masking | grep -q "Hardware receipt (scan)"'
check "yiana verify" as_reader 'yiana verify --library ~/Yiana >/dev/null'
check "yiana extract finds the people (the postcode table installed)" as_reader 'yiana extract --library ~/Yiana --all >/dev/null && ls ~/Yiana/.addresses/*.json >/dev/null'
# The server's own pid, from the shell it replaces: $! names a shell between them, and killing
# that one left the server running after the test.
as_reader 'echo $$ > /tmp/serve.pid; exec yiana serve --library ~/Yiana --listen 127.0.0.1:0 > /tmp/serve.out 2>/tmp/serve.err' &
for _ in $(seq 100); do grep -q http "$root/tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
server="$(cat "$root/tmp/serve.pid")"
url="$(grep -o 'http://127.0.0.1:[0-9]*/' "$root/tmp/serve.out" | sed -n 1p)"
check "yiana serve answers its search page" bash -c "curl -sf '${url}?q=masking' | grep -q 'Hardware receipt (scan)'"
check "/api/health says the package's version" bash -c "[ \"\$(curl -sf '${url}api/health' | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"version\"])')\" = '$packaged' ]"
kill "$server" 2>/dev/null || true
for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
echo "the job as an ordinary user: $((SECONDS - step)) s"

# Removed: no file of the package left.
files="$(in_root dpkg -L yiana-tools | while read -r path; do [ -f "$root$path" ] && echo "$path"; done)"
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq yiana-tools >/dev/null
left="$(for path in $files; do [ -e "$root$path" ] && echo "$path"; done || true)"
check "apt-get remove leaves no file of the package ($(echo "$files" | wc -l) files)" test -z "$left"
[ -z "$left" ] || echo "$left"

echo "deb-chroot-test: $((SECONDS - started)) s in all"
[ "$failed" -eq 0 ] && echo "deb-chroot-test: pass" || { echo "deb-chroot-test: FAILED"; exit 1; }
