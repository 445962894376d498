#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3: Scripts/checks/structure.sh; systemd: systemd-analyze checks the watch unit; chromium,
# chromium-driver, python3-selenium: `yiana serve` driven in a real browser (Scripts/checks/browser.py);
# python3-venv: schemathesis from PyPI in a virtual environment (Scripts/checks/api-fuzz.sh);
# postgresql: the index on PostgreSQL, against servers the tests start themselves (initdb, pg_ctl).
Scripts/setup.sh unison syncthing libtasn1-doc python3 systemd chromium chromium-driver python3-selenium python3-venv postgresql
Scripts/checks/structure.sh >/dev/null || { Scripts/checks/structure.sh; exit 1; }  # the layering and size rules
swift build --build-tests
swift test
# `yiana serve` in headless Chromium, every page audited by axe-core: Debian's python3-selenium
# (it belongs to /usr/bin/python3) and PyPI's axe-selenium-python in a virtual environment that
# sees the system's packages; screenshots in .build/browser-test/.
if [ ! -x .build/axe-venv/bin/python ] || ! .build/axe-venv/bin/python -c "import axe_selenium_python, selenium" 2>/dev/null; then
    rm -rf .build/axe-venv
    /usr/bin/python3 -m venv --system-site-packages .build/axe-venv
    .build/axe-venv/bin/pip install -q --disable-pip-version-check "axe-selenium-python>=2.1,<3"
fi
.build/axe-venv/bin/python Scripts/checks/browser.py "$(swift build --show-bin-path)/yiana" .build/browser-test
# schemathesis against the OpenAPI document the server serves: no 5xx, every answer as described;
# on the SQLite index, then on a PostgreSQL one.
Scripts/checks/api-fuzz.sh "$(swift build --show-bin-path)/yiana" 200
Scripts/checks/api-fuzz.sh "$(swift build --show-bin-path)/yiana" 200 postgres
# The HTTPS example of docs/BROWSER.md (nginx in front, a password, Secure cookies), run on loopback.
Scripts/checks/tls-proxy.sh "$(swift build --show-bin-path)/yiana"
# The Debian package (Scripts/package.sh, release build with the Swift runtime linked in):
# lintian-clean, then installed with apt into a fresh Debian 12 root and used there.
Scripts/setup.sh lintian >/dev/null
deb="$(Scripts/package.sh | tail -1)"
lintian --fail-on error,warning --tag-display-limit 0 "$deb"
Scripts/package/chroot-test.sh "$deb"
