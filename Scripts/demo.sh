#!/usr/bin/env bash
# The whole toolkit on SampleDocs/, as a new user would meet it: installs what is missing,
# builds yiana, then imports the sample PDFs, indexes and searches them, evicts a document
# to a simulated iCloud and downloads it through injected faults, makes a conflict between
# two devices and merges it, merges the app's address corrections that sync conflict-copied and
# searches the corrected name, and damages archives and repairs them. Each step says in plain
# words what it does and what to look for.
# Usage: Scripts/demo.sh            (DEMO_DIR=folder to keep everything somewhere you choose)
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh
swift build --product yiana
yiana="$(swift build --show-bin-path)/yiana"

work="${DEMO_DIR:-$(mktemp -d /tmp/yiana-demo-XXXXXX)}"
mkdir -p "$work"
laptop="$work/laptop" phone="$work/phone" cloud="$work/cloud"
# This machine's cache (the search index, scratch files) in the demo's folder too.
export XDG_CACHE_HOME="$work/cache"
mkdir -p "$laptop" "$phone"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say() { printf '   %s\n' "$*"; }
# Shows a command as one would type it (arguments with spaces in quotes).
show() {
    local line="$ yiana" arg
    for arg in "$@"; do
        case "$arg" in *[[:space:]\'\(\)]*) line+=" \"$arg\"" ;; *) line+=" $arg" ;; esac
    done
    printf '\n%s\n' "${line//$work\//}"
}
# Runs yiana and shows the command; a non-zero exit is expected only where it is said.
run() { show "$@"; "$yiana" "$@"; }
expect() {  # expect STATUS WHY yiana-arguments…
    local want=$1 why=$2; shift 2
    show "$@"
    set +e; "$yiana" "$@"; local got=$?; set -e
    if [ "$got" -ne "$want" ]; then echo "demo: expected exit $want, got $got" >&2; exit 1; fi
    say "(exit $got: $why)"
}

printf '\nEverything happens in %s; the commands below are shown relative to it.\n' "$work"

step "1. Import the sample PDFs into a library (the laptop's)"
say "Two samples are meant to fail: one is encrypted, one is a damaged download."
say "Each is reported by name with what to do; the others are imported."
expect 1 "some files were reported, the rest imported" import --library "$laptop" --tag sample SampleDocs/pdfs
say "Importing again skips every PDF the library already holds (by SHA-256):"
run import --library "$laptop" SampleDocs/pdfs/Flow*.pdf
run info --library "$laptop" "pdfs/Flow control paper"

step "1b. Recognise scanned pages with tesseract, as the app's OCR service does"
say "Four scans with no text layer (two letters, a receipt, a two-column page; skewed, grainy, JPEG):"
run import --library "$laptop" SampleDocs/scans
say "Pages with their own text keep it; the others are recognised, the document rewritten with the"
say "service's metadata keys and an invisible text layer, the results in .ocr_results/. The documents"
say "were written a moment ago, by this machine's yiana: not a sync program's half-written file."
run ocr --library "$laptop" --all
say "Run again, nothing is left to do:"
run ocr --library "$laptop" --all

step "2. Index the text with poppler into SQLite FTS5, and search it"
say "(The index lives outside the synced folder, in this machine's cache: here $work/cache/yiana-tools/.)"
run index --library "$laptop"
run search --library "$laptop" flow control
run search --library "$laptop" --tag sample "statement"
say "A word that is only in a scan is found on its page:"
run search --library "$laptop" cholesterol
say "Two clinic letters about Mrs Jane Smith: the app's own (its sender block and its signature are the"
say "consultant's) and another hospital's letter about her to her GP."
run import --library "$laptop" SampleDocs/letters
say "The people on each page, as the app's extraction service finds them, written as the app's"
say "address files (.addresses/<title>.json): the app shows them; the index finds them by name."
say "Each page of a letter names the patient of its Re: line (her MRN, address and GP from the Cc: line),"
say "never the consultant who signed it; the optician it was copied to is an entry of his own."
run extract --library "$laptop" --all
run search --library "$laptop" Orchard Way
run search --library "$laptop" H123456
say "Every command that writes documents keeps the index current: a new title is found at once."
run edit --library "$laptop" "pdfs/Filled form" --title "Physiotherapy claim, Quellenhof"
run search --library "$laptop" physiotherapy claim

step "3. Evict a document to the (simulated) iCloud and download it through faults"
run cloud init --library "$laptop" --device laptop "$cloud"
run sync --library "$laptop"
run evict --library "$laptop" "pdfs/Flow control paper"
say "Only a placeholder is left; the document is 'not downloaded', never 'missing':"
run status --library "$laptop"
expect 1 "the document is not downloaded" info --library "$laptop" "pdfs/Flow control paper"
say "A damaged copy in the cloud is caught by verification and never placed:"
expect 1 "the download was refused" download --library "$laptop" --all --damaged --attempts 2
say "A flaky connection: attempts break part-way and resume where they stopped:"
run download --library "$laptop" --all --flaky 0.7 --seed 4 --bandwidth 4MB
run status --library "$laptop"

step "4. Two devices edit the same document; sync makes a conflict copy; merge resolves it"
run cloud init --library "$phone" --device phone "$cloud"
run sync --library "$phone"
say "On the laptop, a tag; on the phone, a new title:"
run edit --library "$laptop" "pdfs/Bank statement reminder" --tag paid
run edit --library "$phone" "pdfs/Bank statement reminder" --title "Bank reminder, March"
run sync --library "$phone"
say "The laptop syncs second: its version stays, the phone's arrives as 'Name 2', as iCloud does it."
run sync --library "$laptop"
expect 1 "a conflict needs resolving" conflicts list --library "$laptop"
expect 1 "the two copies differ" diff --library "$laptop" "pdfs/Bank statement reminder" "pdfs/Bank statement reminder 2"
run conflicts resolve --library "$laptop" --strategy merge --dry-run
say "A three-way merge against the version both edits came from: each side's change is kept."
run conflicts resolve --library "$laptop" --strategy merge
run info --library "$laptop" "pdfs/Bank statement reminder"
run sync --library "$laptop"
run sync --library "$phone"
say "The phone now has the merged document too; every replaced version is in the version store:"
run versions list --library "$laptop" "pdfs/Bank statement reminder"

step "4b. The app's own files sync and conflict too: address corrections typed by a person"
say "Beside each document the app keeps the people it found in it (.addresses/<title>.json) and a"
say "person's corrections (.addresses/<title>.overrides.json). Both devices corrected the patient on"
say "page 1 while apart; unison kept one and left the other as a conflict copy, which the app never reads."
title=$("$yiana" info --library "$laptop" --json "pdfs/Flow control paper" | grep -o '"title" : "[^"]*"' | head -1 | sed 's/.*: "//; s/"$//')
mkdir -p "$laptop/.addresses"
correction() {  # correction DATE NAME: one correction as the app writes it
    printf '{\n      "match_address_type" : "patient",\n      "override_date" : "%s",\n      "override_reason" : "manual",\n      "page_number" : 1,\n      "patient" : {\n        "full_name" : "%s"\n      }\n    }' "$1" "$2"
}
corrections() {  # corrections FILE ENTRY: an .overrides.json holding one correction
    printf '{\n  "document_id" : "%s",\n  "overrides" : [\n    %s\n  ],\n  "schema_version" : 1\n}\n' "$title" "$2" > "$1"
}
printf '{\n  "document_id" : "%s",\n  "extracted_at" : "2026-03-01T09:00:00Z",\n  "overrides" : [],\n  "page_count" : 3,\n  "pages" : [\n    {\n      "address_type" : "patient",\n      "page_number" : 1,\n      "patient" : {\n        "full_name" : "Elodie Mular"\n      }\n    }\n  ],\n  "schema_version" : 1\n}\n' "$title" > "$laptop/.addresses/$title.json"
corrections "$laptop/.addresses/$title.overrides.json" "$(correction 2026-03-02T10:00:00Z "Élodie Muller")"
corrections "$laptop/.addresses/$title.overrides (conflict_on_2026-03-03).json" "$(correction 2026-03-03T11:00:00Z "Élodie Müller-Roth")"
expect 1 "the app would never see the phone's correction" verify --library "$laptop"
expect 1 "a companion file needs resolving" conflicts list --library "$laptop"
say "Every correction of both devices is kept once; the app shows the newest for page 1:"
run conflicts resolve --library "$laptop" --strategy merge
cat "$laptop/.addresses/$title.overrides.json"; echo
say "The people the app shows are searchable with their document, listed as 'addresses':"
run index --library "$laptop"
run search --library "$laptop" "Müller-Roth"
run versions list --library "$laptop" "pdfs/Flow control paper"

step "5. Damage archives as interrupted writes and bad disks do, and repair them"
pattern="$laptop/pdfs/Noise pattern (image only, no words).yianazip"
flow="$laptop/pdfs/Flow control paper.yianazip"
size=$(stat -c %s "$pattern")
truncate -s $((size - 400)) "$pattern"
say "Cut the last 400 bytes off 'Noise pattern' (its end and central directory are gone)."
# Overwrite the signature of the PDF's local header in 'Flow control paper'.
offset=$(grep -obUaP 'PK\x03\x04' "$flow" | sed -n 2p | cut -d: -f1)
printf '\x00' | dd of="$flow" bs=1 seek="$offset" conv=notrunc status=none
say "Overwrote the local header signature of the PDF in 'Flow control paper' (offset $offset)."
say "Just now, these files look like ones a sync program is still writing: verify and repair leave them be."
run verify --library "$laptop"
say "A few seconds later they have not changed again: that is damage."
sleep "${YIANA_SETTLE_SECONDS:-5}"
expect 1 "problems found, each with a code" verify --library "$laptop"
run repair --library "$laptop" --dry-run
run repair --library "$laptop"
run verify --library "$laptop"
say "The PDF cut off in 'Noise pattern' went to a side file beside it, never into the document:"
(cd "$laptop/pdfs" && ls -1 ./*.pdf)
say "And the damaged originals are kept, byte for byte, in the version store:"
run versions list --library "$laptop" "pdfs/Flow control paper"

step "Done"
say "Everything is in $work: the laptop's and the phone's libraries, the cloud store, the index."
say "Next: yiana --help, the README and the manual in docs/."
