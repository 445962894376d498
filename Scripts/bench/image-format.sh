#!/usr/bin/env bash
# Which image format `yiana serve` should send pages in, measured: for text pages and scans
# of SampleDocs at the thumbnail and page widths (320, 960), the size and the time of
#   - yiana serve's image (poppler + cairo; JPEG by libjpeg-turbo when images cover most of the
#     page, else PNG by cairo: the choice this measurement made; first render, cache emptied),
#   - pdftoppm -png, pdftoppm -jpeg (quality 85, the same poppler render, libjpeg-turbo),
#   - WebP (cwebp -q 85 of pdftoppm's PNG: its encode time added to pdftoppm's render).
# Medians of 5. Usage: Scripts/bench/image-format.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/common.sh
Scripts/setup.sh poppler-utils webp curl $(command -v python3 >/dev/null || echo python3) >/dev/null
yiana="$(release_binary yiana)"
serve_work bench-image
pages=("pdfs/Flow control paper.pdf" "pdfs/Bank statement reminder.pdf" "scans/Clinic letter (scan).pdf"
       "scans/Hardware receipt (scan).pdf" "scans/Parish newsletter, two columns (scan).pdf")
for page in "${pages[@]}"; do "$yiana" import --library "$work/lib" "SampleDocs/$page" >/dev/null; done
start_serve "$work" "$yiana" --library "$work/lib"
python3 - "$url" "$work" "${pages[@]}" <<'PY'
import glob, http.client, os, shutil, statistics, subprocess, sys, time, urllib.parse
url, work, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
host = urllib.parse.urlparse(url)
connection = http.client.HTTPConnection(host.hostname, host.port)
def timed(command):
    start = time.perf_counter(); subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start
def ours(name, width):
    times, size = [], 0
    for _ in range(5):
        for folder in glob.glob(f"{work}/cache/yiana-tools/libraries/*/pages"): shutil.rmtree(folder)
        start = time.perf_counter()
        connection.request("GET", "/page-image?path=" + urllib.parse.quote(name) + f"&n=1&w={width}")
        response = connection.getresponse(); body = response.read()
        times.append(time.perf_counter() - start); size = len(body)
        assert response.status == 200
        kind = "JPEG" if response.getheader("Content-Type") == "image/jpeg" else "PNG"
    return statistics.median(times), size, kind
print("%-44s %5s  %-21s %-16s %-16s %-16s" % ("page (first page)", "width", "yiana (its format)", "pdftoppm PNG", "pdftoppm JPEG 85", "WebP 85"))
for page in pages:
    pdf = "SampleDocs/" + page
    name = os.path.splitext(os.path.basename(page))[0] + ".yianazip"
    for width in (320, 960):
        mine = ours(name, width)
        row = [mine[:2]]
        for kind, extra in (("png", ["-png"]), ("jpg", ["-jpeg", "-jpegopt", "quality=85"])):
            out = f"{work}/ref-{kind}"
            command = ["pdftoppm", *extra, "-f", "1", "-l", "1", "-scale-to-x", str(width), "-scale-to-y", "-1", "-singlefile", pdf, out]
            t = statistics.median(timed(command) for _ in range(5))
            row.append((t, os.path.getsize(glob.glob(out + ".*")[0])))
        png = glob.glob(f"{work}/ref-png.*")[0]
        encode = statistics.median(timed(["cwebp", "-quiet", "-q", "85", png, "-o", f"{work}/ref.webp"]) for _ in range(5))
        row.append((row[1][0] + encode, os.path.getsize(f"{work}/ref.webp")))
        cells = ["%6.1f ms %5.0f KB" % (t * 1000, s / 1024) for t, s in row]
        print("%-44s %5d  %-4s " % (page[:44], width, mine[2]) + " ".join(cells))
PY
