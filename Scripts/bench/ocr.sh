#!/usr/bin/env bash
# Accuracy and speed of `yiana ocr` (issue 16), each beside its reference in the same run.
#   Scripts/bench/ocr.sh [RUNS]      (RUNS: timed runs per measure, median shown; default 3)
# Accuracy: word recall and character error rate (Scripts/bench/ocr-accuracy.py) against the known
#   text: the SampleDocs scans (skewed, grainy, JPEG), clean 300-dpi scans of the same kind,
#   and pages of real PDFs drawn to images (pdftoppm, 300 dpi) whose text layer is the truth;
#   the real pages also at 150 and 200 dpi, for the choice of resolution; beside each set, the
#   tesseract command's own text of the same pages (pdftoppm, 300 dpi), scored the same way.
# Speed: pages per second of `yiana ocr --jobs 1` and `--jobs 2` (the whole job: drawing the
#   page, recognition, text layer, rewrite, results files) against the tesseract command on
#   the same pages as 300-dpi images (one process over a list for one core; two processes,
#   half the list each, for two), and ocrmypdf on the same PDFs when it installs.
# Memory: peak RSS of --jobs 1 and --jobs 2 (anonymous and file-backed apart).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
runs=${1:-3}
Scripts/setup.sh tesseract-ocr poppler-utils libjpeg-turbo-progs bc
command -v ocrmypdf >/dev/null || Scripts/setup.sh ocrmypdf >/dev/null 2>&1 || echo "(ocrmypdf did not install: its row is left out)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache YIANA_SETTLE_SECONDS=0
# One thread per tesseract: the reference runs get the same setting yiana uses.
export OMP_THREAD_LIMIT=1
yiana=$(release_binary yiana)

sets=$work/sets
mkdir -p "$sets/samples" "$sets/clean" "$sets/real"
cp SampleDocs/scans/*.pdf SampleDocs/scans/*.txt "$sets/samples/"
python3 Scripts/generate/scans.py "$sets/clean" --clean --dpi 300 >/dev/null
python3 Scripts/generate/scans.py --pages-of "SampleDocs/pdfs/Bank statement reminder.pdf" 1 2 "$sets/real"
python3 Scripts/generate/scans.py --pages-of "SampleDocs/pdfs/Flow control paper.pdf" 1 3 "$sets/real"
manual=/usr/share/doc/libtasn1-doc/libtasn1.pdf
[ -f "$manual" ] && python3 Scripts/generate/scans.py --pages-of "$manual" 6 8 "$sets/real"

library() {  # library NAME SET...: a library of the image-only PDFs of the sets
    local lib=$work/lib-$1; shift
    mkdir -p "$lib"
    for set in "$@"; do "$yiana" import --library "$lib" "$sets/$set"/*.pdf >/dev/null; done
    echo "$lib"
}

echo "== accuracy (word recall, CER) =="
for set in samples clean real; do
    lib=$(library "acc-$set" "$set")
    "$yiana" ocr --library "$lib" --all --jobs 2 >/dev/null || true
    echo "$set:"
    python3 Scripts/bench/ocr-accuracy.py "$lib" "$sets/$set"
done
# The reference: the tesseract command itself on the same pages drawn at 300 dpi by
# pdftoppm, its text scored the same way (what the engine and its model can do).
for set in samples clean real; do
    cli=$work/cli-$set
    mkdir -p "$cli/.ocr_results"
    for pdf in "$sets/$set"/*.pdf; do
        stem=$(basename "$pdf" .pdf)
        pdftoppm -gray -r 300 "$pdf" "$cli/page"
        : > "$cli/text.txt"
        for image in "$cli"/page-*.pgm; do tesseract "$image" - -l eng 2>/dev/null >> "$cli/text.txt"; done
        rm -f "$cli"/page-*.pgm
        python3 -c 'import json, sys; json.dump({"pages": [{"text": open(sys.argv[1]).read()}]}, open(sys.argv[2], "w"))' \
            "$cli/text.txt" "$cli/.ocr_results/$stem.json"
    done
    echo "$set, the tesseract command on the same 300-dpi pages: $(python3 Scripts/bench/ocr-accuracy.py "$cli" "$sets/$set" | tail -1)"
done
for dpi in 150 200; do
    for set in samples real; do
        lib=$(library "dpi-$dpi-$set" "$set")
        "$yiana" ocr --library "$lib" --all --jobs 2 --dpi "$dpi" >/dev/null || true
        echo "$set at $dpi dpi: $(python3 Scripts/bench/ocr-accuracy.py "$lib" "$sets/$set" | tail -1)"
    done
done

echo "== speed =="
pristine=$(library speed clean real)
pages=0
: > "$work/list.txt"
for pdf in "$sets/clean"/*.pdf "$sets/real"/*.pdf; do
    n=$(pdfinfo "$pdf" | awk '/^Pages:/ {print $2}')
    pages=$((pages + n))
    base=$work/img/$(basename "$pdf" .pdf)
    mkdir -p "$work/img"
    pdftoppm -gray -r 300 "$pdf" "$base"
done
ls "$work/img"/*.pgm > "$work/list.txt"
half=$(( ($(wc -l < "$work/list.txt") + 1) / 2 ))
head -n "$half" "$work/list.txt" > "$work/list1.txt"
tail -n +"$((half + 1))" "$work/list.txt" > "$work/list2.txt"
echo "$pages pages"

ours() {  # ours JOBS: seconds of yiana ocr on a fresh copy of the library
    rm -rf "$work/run"; cp -a "$pristine" "$work/run"
    seconds "$yiana" ocr --library "$work/run" --all --jobs "$1"
}
two_tesseracts() { tesseract "$work/list1.txt" "$work/t1" & tesseract "$work/list2.txt" "$work/t2"; wait; }
for i in $(seq "$runs"); do
    echo "$(ours 1)" >> "$work/y1"
    echo "$(seconds tesseract "$work/list.txt" "$work/t")" >> "$work/t1s"
    echo "$(ours 2)" >> "$work/y2"
    echo "$(seconds two_tesseracts)" >> "$work/t2s"
done
y1=$(median < "$work/y1"); t1=$(median < "$work/t1s"); y2=$(median < "$work/y2"); t2=$(median < "$work/t2s")
printf 'tesseract CLI, 1 process:   %6.2f s  %5.2f pages/s\n' "$t1" "$(echo "$pages / $t1" | bc -l)"
printf 'yiana ocr --jobs 1:         %6.2f s  %5.2f pages/s  = %.2fx tesseract (goal >= 1.0x)\n' "$y1" "$(echo "$pages / $y1" | bc -l)" "$(echo "$t1 / $y1" | bc -l)"
printf 'tesseract CLI, 2 processes: %6.2f s  %5.2f pages/s\n' "$t2" "$(echo "$pages / $t2" | bc -l)"
printf 'yiana ocr --jobs 2:         %6.2f s  %5.2f pages/s  = %.2fx tesseract on one core (goal >= 1.8x), %.2fx two tesseracts\n' \
    "$y2" "$(echo "$pages / $y2" | bc -l)" "$(echo "$t1 / $y2" | bc -l)" "$(echo "$t2 / $y2" | bc -l)"
if command -v ocrmypdf >/dev/null; then
    ocrmypdf_all() { for pdf in "$sets/clean"/*.pdf "$sets/real"/*.pdf; do ocrmypdf -q --jobs 2 "$pdf" "$work/o.pdf"; done; }
    for i in $(seq "$runs"); do echo "$(seconds ocrmypdf_all)" >> "$work/om"; done
    om=$(median < "$work/om")
    printf 'ocrmypdf --jobs 2:          %6.2f s  %5.2f pages/s  (yiana ocr --jobs 2 is %.2fx as fast)\n' "$om" "$(echo "$pages / $om" | bc -l)" "$(echo "$om / $y2" | bc -l)"
fi

echo "== memory =="
for jobs in 1 2; do
    rm -rf "$work/run"; cp -a "$pristine" "$work/run"
    python3 Scripts/bench/peak-memory.py "yiana ocr --jobs $jobs, $pages pages" -- "$yiana" ocr --library "$work/run" --all --jobs "$jobs"
done
