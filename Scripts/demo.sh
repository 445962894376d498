#!/usr/bin/env bash
# Installs what is missing, builds yiana, and runs its main job on SampleDocs/: import the
# sample PDFs into a fresh demo library, then show and export what was made.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh
swift build --product yiana
yiana="$(swift build --show-bin-path)/yiana"

library="${DEMO_LIBRARY:-$(mktemp -d /tmp/yiana-demo-XXXXXX)}"
mkdir -p "$library"
say() { printf '\n== %s\n' "$*"; }

say "Importing SampleDocs/pdfs into the library $library"
echo "   (two of the samples are meant to fail: one is encrypted, one is a damaged download)"
set +e
"$yiana" import --library "$library" --tag sample SampleDocs/pdfs
status=$?
set -e
echo "   import exited with $status: 1 means some files were reported, the rest imported."

say "Importing the same folder again: every PDF is already there, so each is skipped"
"$yiana" import --library "$library" SampleDocs/pdfs/*statement*.pdf SampleDocs/pdfs/Flow*.pdf

say "What one document holds"
"$yiana" info --library "$library" "pdfs/Flow control paper"

say "Documents in the two legacy formats are read too"
"$yiana" info "SampleDocs/archives/Legacy Separator.yianazip"

say "Exporting a PDF back out (every byte CRC-checked on the way)"
"$yiana" export --library "$library" "pdfs/Bank statement reminder" --pdf "$library.exported.pdf" --force
cmp "$library.exported.pdf" "SampleDocs/pdfs/Bank statement reminder.pdf" && echo "   identical to the original PDF."

say "The library now holds"
(cd "$library" && find . -name '*.yianazip' | sort)
