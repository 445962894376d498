#!/usr/bin/env bash
# Builds the Debian package yiana-tools_<version>_<arch>.deb (into .build/deb/, its path printed
# last): the release binary with the Swift runtime linked in (as --static-swift-stdlib does), so that
# installing it needs no Swift; Depends: the Debian libraries it loads, those it links (from
# dpkg-shlibdeps) and those it opens on first use (each Sources/C*/shim.h's YIANA_LAZY_LIBRARY,
# through the shlibs file of the package that holds it), and tesseract's English data; a man
# page per command (swift-argument-parser's generate-manual), bash, zsh and fish completions,
# the systemd user units of `watch` and `serve`, the README and the manual, a changelog and a copyright file
# naming every component compiled in (Scripts/package/copyright.py). The version is
# Scripts/version.sh's (from git), the one compiled into the program and shown in its man pages.
# The runtime is linked in by the link alone (YIANA_STATIC_RUNTIME=1, Package.swift), so that
# the dependencies are compiled as in any release build: after Scripts/test.sh's release build of
# the suite, only the toolkit's own modules are compiled again (without -enable-testing).
# Usage: Scripts/package.sh   (then: apt install ./.build/deb/yiana-tools_*.deb)
# YIANA_PACKAGE_SCRATCH=DIR builds in DIR instead of .build (Scripts/test.sh builds the package
# there while the tests' debug build runs in .build: SwiftPM builds one at a time in a folder).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh dpkg-dev binutils patchelf >/dev/null

scratch=(--scratch-path "${YIANA_PACKAGE_SCRATCH:-.build}")
bin="$(swift build "${scratch[@]}" -c release --show-bin-path)"
# Linked again every time: another release build (the suite's, a plugin's) leaves a program of
# the same name that needs the toolchain's libraries.
rm -f "$bin/yiana"
build() { env -u YIANA_TESTABLE YIANA_STATIC_RUNTIME=1 swift build "${scratch[@]}" -c release "$@" >/dev/null; }
build --product yiana
build --product generate-manual
toolchain='libswift\|libFoundation\|lib_Foundation\|libCoreFoundation\|libdispatch\|libBlocksRuntime\|not found'
if ldd "$bin/yiana" | grep "$toolchain" >/dev/null; then  # not -q: an early exit would SIGPIPE ldd and, under pipefail, hide a match
    echo "package: $bin/yiana needs libraries Debian does not have:" >&2
    ldd "$bin/yiana" | grep "$toolchain" >&2
    exit 1
fi
arch="$(dpkg --print-architecture)"
# One version: Scripts/version.sh's, which the build compiled into the program.
version="$(Scripts/version.sh)"
if [ "$("$bin/yiana" --version)" != "$version" ]; then
    echo "package: $bin/yiana says it is $("$bin/yiana" --version), but this tree is $version (built before a commit?)" >&2
    exit 1
fi

out=.build/deb
root="$out/root"
rm -rf "$root" "$out/man"
mkdir -p "$root/DEBIAN" "$out/man"
install -d "$root/usr/bin" "$root/usr/share/yiana-tools" "$root/usr/share/man/man1" "$root/usr/share/doc/yiana-tools" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" \
    "$root/usr/lib/systemd/user"

# The program, stripped as Debian's dh_strip does; its data beside it (found by the program
# at ../share/yiana-tools/ from where it runs).
install -m 755 "$bin/yiana" "$root/usr/bin/yiana"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/yiana"
# The toolchain's library folder, which the linker records though nothing is loaded from it.
patchelf --remove-rpath "$root/usr/bin/yiana"
install -m 644 Sources/YianaExtract/Data/postcode-sectors.tsv "$root/usr/share/yiana-tools/"

# Man pages, one per command; completions from the program itself.
"$bin/generate-manual" "$bin/yiana" --multi-page --output-directory "$out/man" --authors "the yiana-tools authors" --section 1 >/dev/null
# As man-db reads them: the NAME a single word (yiana.versions.restore, the page's own name;
# the synopsis still says `yiana versions restore`), paragraphs by .Pp, not blank lines.
for page in "$out"/man/yiana.1 "$out"/man/yiana.*.1; do
    python3 - "$page" "$version" <<'PY'
import re, sys
path = sys.argv[1]
page = open(path).read()
found = re.search(r'^\.Nm "([^"]*)"$', page, re.M) or re.search(r'^\.Nm (\S+)$', page, re.M)
words = found.group(1).split(" ")
page = page.replace(found.group(0), ".Nm " + ".".join(words), 1)
page = re.sub(r'^\.Nd "(.*)"$', r'.Nd \1', page, flags=re.M)
if len(words) > 1:
    page = re.sub(r'^\.Nm$', ".Nm " + words[0] + "\n.Cm " + " ".join(words[1:]), page, flags=re.M)
page = re.sub(r'\n\n+', '\n.Pp\n', page)
page = re.sub(r'^\.Os$', '.Os yiana-tools ' + sys.argv[2], page, flags=re.M)
open(path, "w").write(page)
PY
    gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"
done
"$bin/yiana" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/yiana"  # sourced, not run
"$bin/yiana" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_yiana"
"$bin/yiana" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/yiana.fish"
chmod 644 "$root"/usr/share/*/completions/yiana "$root/usr/share/zsh/vendor-completions/_yiana" "$root/usr/share/fish/vendor_completions.d/yiana.fish"

# The systemd user units, pointing at the installed program.
for unit in Scripts/service/systemd/*.service Scripts/service/systemd/*.timer; do
    sed "s|@BIN@|/usr/bin|g" "$unit" > "$root/usr/lib/systemd/user/$(basename "$unit")"
    chmod 644 "$root/usr/lib/systemd/user/$(basename "$unit")"
done

# Documentation: the README and the manual (docs/), the changelog, the copyright file.
doc="$root/usr/share/doc/yiana-tools"
gzip -9n < README.md > "$doc/README.md.gz"
mkdir -p "$doc/docs"
for page in docs/*.md; do gzip -9n < "$page" > "$doc/docs/$(basename "$page").gz"; done
{
    echo "yiana-tools ($version) unstable; urgency=medium"
    echo
    echo "  * Built from commit $(git rev-parse HEAD)."
    # Each subject cut at a word's end within 78 columns (a word cut in two is a misspelling to lintian).
    git log -20 --format='%s' | awk '{ s = $0; if (length(s) > 74) { s = substr(s, 1, 71); sub(/ [^ ]*$/, "", s); s = s " ..." } print "  * " s }'
    echo
    echo " -- yiana-tools maintainers <yiana-tools@users.noreply.github.com>  $(git log -1 --format=%cD)"
} | gzip -9n > "$doc/changelog.gz"  # a native package: its changelog is the upstream one
python3 Scripts/package/copyright.py "$bin/yiana.product/Objects.LinkFileList" "${YIANA_PACKAGE_SCRATCH:-.build}/checkouts" > "$doc/copyright"
chmod 644 "$doc"/*

# Depends: what the binary links (dpkg-shlibdeps), what it opens on first use (the shlibs
# line of the package that holds each library), and tesseract's English data.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: yiana-tools\n\nPackage: yiana-tools\nArchitecture: any\n' > "$work/debian/control"
linked="$(cd "$work" && dpkg-shlibdeps -O "$OLDPWD/$root/usr/bin/yiana" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
lazy=()
for soname in $(grep -ho 'YIANA_LAZY_LIBRARY([a-z0-9]*, "[^"]*"' Sources/C*/shim.h | sed 's/.*"\(.*\)"/\1/'); do
    # Every reader below reads its input to the end: one that stops early (head, awk's exit)
    # leaves the writer a SIGPIPE, which pipefail makes the script's failure once the
    # writer's output outgrows the pipe (ldconfig -p on a machine with many libraries).
    file="$(ldconfig -p | awk -v so="$soname" '$1 == so && !found { print $NF; found = 1 }')"
    [ -n "$file" ] || { echo "package: $soname is not installed (Scripts/setup.sh installs it)" >&2; exit 1; }
    owner="$(dpkg -S "$(readlink -f "$file")" | awk -F: 'NR == 1 { print $1 }')"
    name="${soname%%.so.*}"; major="${soname##*.so.}"
    line="$(dpkg-query --control-show "$owner" shlibs 2>/dev/null | awk -v n="$name" -v m="$major" '$1 == n && $2 == m && !found { $1 = ""; $2 = ""; print; found = 1 }' | sed 's/^ *//')"
    lazy+=("${line:-$owner}")
done
depends="$(printf '%s\n' "$linked" | tr ',' '\n'; printf '%s\n' "${lazy[@]}" tesseract-ocr-eng)"
depends="$(printf '%s\n' "$depends" | sed 's/^ *//; /^$/d' | sort -u | paste -sd, | sed 's/,/, /g')"

size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat > "$root/DEBIAN/control" <<EOF
Package: yiana-tools
Version: $version
Architecture: $arch
Maintainer: yiana-tools maintainers <yiana-tools@users.noreply.github.com>
Installed-Size: $size
Depends: $depends
Recommends: apprise
Section: utils
Priority: optional
Description: keeps libraries of Yiana documents healthy while they sync
 yiana reads and writes the Yiana app's .yianazip documents (a ZIP of metadata,
 the PDF and its format) crash-safely, and keeps a library of them healthy while
 a sync program (iCloud Drive, Syncthing, Dropbox, Nextcloud, unison, rclone)
 copies it between devices: conflict copies resolved without losing a byte,
 every document state this machine has seen kept, damaged files verified and
 repaired, scans recognised (OCR) as the app does, the people in each document
 found, a full-text search index with page hits, a watcher, and the library in a
 browser (yiana serve).
EOF
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +

deb="$out/yiana-tools_${version}_${arch}.deb"
rm -f "$out"/yiana-tools_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
