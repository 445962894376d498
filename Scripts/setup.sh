#!/usr/bin/env bash
# Installs what yiana-tools needs that this Debian machine lacks: the C libraries it builds
# against (libzip, poppler-glib, SQLite, pkg-config, tesseract, qpdf, mimalloc) plus any extra packages named as
# arguments (the benchmark adds its reference tools). Safe to run again: it installs only
# what is missing.
set -euo pipefail

# unzip: the tests cross-check written archives with a second ZIP implementation.
# libtesseract-dev, tesseract-ocr-eng, libqpdf-dev: `yiana ocr` (tesseract and its English
# trained data, qpdf for the text layer).
# libmimalloc-dev: the allocator `yiana` is linked with (Package.swift).
# libturbojpeg0-dev: `yiana serve` sends scanned pages as JPEG (Scripts/bench/image-format.sh).
packages=(libzip-dev libpoppler-glib-dev libsqlite3-dev pkg-config unzip libtesseract-dev tesseract-ocr-eng libqpdf-dev libmimalloc-dev libturbojpeg0-dev "$@")
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH; install the Swift toolchain first (swift.org)." >&2; exit 1; }
