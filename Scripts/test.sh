#!/usr/bin/env bash
# Installs what is missing, then builds and runs every check: the swift-testing suite, yiana
# serve in a real browser, the API fuzzed, the HTTPS example, and the Debian package installed
# into a fresh Debian root. The dependencies are compiled once: the suite is built for release
# (the toolkit's own modules with -enable-testing, YIANA_TESTABLE=1), and the package's build
# reuses them, compiling only the toolkit's modules again. Work that waits on the network or a
# browser runs beside the work that needs both cores, and each phase's time is printed at the
# end (docs/DEVELOPMENT.md says where the time goes):
#   beside the suite's build: the fresh Debian root (debootstrap) and the Python environments of
#     the browser and API checks;
#   the suite, alone on the machine (some of its tests time real sync programs);
#   the package's build beside the browser test and the API fuzzing and HTTPS example;
#   lintian, and the package installed and used in the fresh root.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3: Scripts/checks/structure.sh; systemd: systemd-analyze checks the watch unit; chromium,
# chromium-driver, python3-selenium: `yiana serve` driven in a real browser (Scripts/checks/browser.py);
# python3-venv: schemathesis from PyPI in a virtual environment (Scripts/checks/api-fuzz.sh);
# postgresql: the index on PostgreSQL, against servers the tests start themselves (initdb, pg_ctl);
# lintian, debootstrap, curl, dpkg-dev, binutils, patchelf: the package, its checks and its fresh root;
# nginx, openssl: the HTTPS example; apprise: notifications (`watch --notify`); python3-aiosmtpd: the
# SMTP server that receives them by email; restic: the repositories a library's history is kept in off
# this machine (the keeper's restic side); openssh-server: a repository over SFTP, on a server the test starts on
# loopback. All here, before anything runs beside anything else: two apt installs at
# once would wait on each other's lock.
Scripts/setup.sh unison syncthing libtasn1-doc python3 systemd chromium chromium-driver python3-selenium python3-venv postgresql \
    lintian debootstrap curl dpkg-dev binutils patchelf nginx openssl apprise python3-aiosmtpd restic openssh-server
Scripts/checks/structure.sh >/dev/null || { Scripts/checks/structure.sh; exit 1; }  # the layering and size rules

logs=.build/test-logs
rm -rf "$logs" .build/deb-root-prepared
mkdir -p "$logs"
started=$SECONDS
phases=()
# phase NAME SECONDS-AT-START: records how long NAME took, until now.
phase() { phases+=("$(printf '%-64s %5d s' "$1" $((SECONDS - $2)))"); }
# background NAME CMD...: runs CMD beside what follows, its output in .build/test-logs/NAME.log;
# finish NAME waits for it, records how long it took, and on a failure prints its log and stops.
declare -A jobs_started
background() {
    local name="$1"
    shift
    # Not `"$@" || …`: a function run as part of an || list runs without set -e.
    { local s=$SECONDS status; set +e; (set -e; "$@"); status=$?; echo "$status $((SECONDS - s))" > "$logs/$name.done"; } > "$logs/$name.log" 2>&1 &
    jobs_started[$name]=$!
}
finish() {
    wait "${jobs_started[$1]}" || true
    local status seconds
    read -r status seconds < "$logs/$1.done"
    phases+=("$(printf '%-64s %5d s' "$2" "$seconds")")
    if [ "$status" -ne 0 ]; then
        echo "test.sh: $2 FAILED (exit $status):"
        cat "$logs/$1.log"
        exit "$status"
    fi
}
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

# Beside the suite's build: network and disk, little CPU.
background root Scripts/package/chroot-test.sh --prepare "$PWD/.build/deb-root-prepared"
venvs() {
    # The browser test: Debian's python3-selenium (it belongs to /usr/bin/python3) and PyPI's
    # axe-selenium-python in a virtual environment that sees the system's packages.
    if [ ! -x .build/axe-venv/bin/python ] || ! .build/axe-venv/bin/python -c "import axe_selenium_python, selenium" 2>/dev/null; then
        rm -rf .build/axe-venv
        /usr/bin/python3 -m venv --system-site-packages .build/axe-venv
        .build/axe-venv/bin/pip install -q --disable-pip-version-check "axe-selenium-python>=2.1,<3"
    fi
    Scripts/checks/api-fuzz.sh --install
}
background venvs venvs
t=$SECONDS
YIANA_TESTABLE=1 swift build -c release --build-tests
phase "the suite's release build (beside it: the fresh root, the Python environments)" "$t"
# The program the browser and API checks serve, kept apart: the package's build links its own
# (without -enable-testing, the runtime linked in) in the same place meanwhile.
install -D -m 755 "$(swift build -c release --show-bin-path)/yiana" .build/checks-bin/yiana
yiana="$PWD/.build/checks-bin/yiana"

t=$SECONDS
YIANA_TESTABLE=1 swift test -c release --skip-build
phase "swift test: the suite, alone on the machine" "$t"

# The package's build (Scripts/package.sh: the toolkit's own modules again, both cores, at a
# lower priority) beside the browser test, which mostly waits on the browser, and the API
# fuzzing (schemathesis on the SQLite index, then on a PostgreSQL one) and the HTTPS example of
# docs/BROWSER.md (nginx in front, on loopback); screenshots in .build/browser-test/.
finish venvs "Python environments (beside the suite's build)"
background package nice -n 10 Scripts/package.sh
background browser .build/axe-venv/bin/python Scripts/checks/browser.py "$yiana" .build/browser-test
api() {
    Scripts/checks/api-fuzz.sh "$yiana" 200
    Scripts/checks/api-fuzz.sh "$yiana" 200 postgres
    Scripts/checks/tls-proxy.sh "$yiana"
}
background api api
finish api "API fuzzing (SQLite, PostgreSQL) and HTTPS (beside the package's build)"
cat "$logs/api.log"
finish browser "the browser test, Chromium and axe-core (beside the package's build)"
cat "$logs/browser.log"
finish package "the package's release build and the .deb"
deb="$(tail -1 "$logs/package.log")"

# The Debian package: lintian-clean, then installed with apt into the fresh Debian 12 root and used there.
t=$SECONDS
lintian --fail-on error,warning --tag-display-limit 0 "$deb"
finish root "the fresh Debian root (beside the suite's build)"
Scripts/package/chroot-test.sh --root "$PWD/.build/deb-root-prepared" "$deb"
phase "lintian, the package installed and used in the fresh root" "$t"

echo
echo "Scripts/test.sh, where the time went:"
printf '  %s\n' "${phases[@]}"
echo "  all, after the packages were installed: $((SECONDS - started)) s"
