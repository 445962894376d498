#!/usr/bin/env python3
"""Makes SampleDocs/scans/: scanned-looking PDFs with no text layer, and beside each the text
it shows (<name>.txt), for `yiana ocr` and Scripts/bench-ocr.sh. Reproducible: the text is
laid out as a PDF (sample-docs.py's writer, standard fonts), drawn to grey pixels by
pdftoppm (poppler-utils), then given what a scanner and a phone camera add — a slight skew,
grain, a grey cast and dust — with a fixed random seed, and stored as JPEG (cjpeg, from
libjpeg-turbo-progs, at a low quality: its blocking and ringing are part of the test).

    Scripts/generate/scans.py [OUT_FOLDER] [--dpi 300] [--clean]
    Scripts/generate/scans.py --pages-of PDF FIRST LAST OUT [DPI]

--clean: no skew, grain or JPEG (a clean scan at --dpi), for the accuracy bench.
--pages-of: pages of a real PDF as clean image-only PDFs, the page's text layer as the truth.
"""
import math, os, random, subprocess, sys, tempfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import importlib.util
spec = importlib.util.spec_from_file_location("samples", os.path.join(HERE, "sample-docs.py"))
samples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(samples)

LETTER = [
    ("F2", 12, "Riverside Medical Practice, 14 Mill Lane, Exeter EX2 4PL"),
    ("F2", 12, "Telephone 01392 555 0142"),
    ("F2", 12, ""),
    ("F2", 12, "3 March 2026"),
    ("F2", 12, ""),
    ("F2", 12, "Dear Mrs Hartley,"),
    ("F2", 12, ""),
    ("F2", 12, "Thank you for attending the clinic on Tuesday. Your blood tests were normal"),
    ("F2", 12, "and the scan showed nothing of concern. We would like to see you again in"),
    ("F2", 12, "six months, when we will repeat the cholesterol test. Please bring a list"),
    ("F2", 12, "of your current medicines and arrive ten minutes early for the nurse."),
    ("F2", 12, ""),
    ("F2", 12, "If your symptoms return before then, telephone the surgery and ask for an"),
    ("F2", 12, "earlier appointment with Doctor Okafor."),
    ("F2", 12, ""),
    ("F2", 12, "Yours sincerely,"),
    ("F2", 12, "Margaret Okafor, General Practitioner"),
]

# A hospital's letter to a patient: the address block of an envelope window, for `yiana extract`.
REFERRAL = [
    ("F2", 12, "Royal Devon Eye Clinic, Barrack Road, Exeter EX2 5DW"),
    ("F2", 12, "Telephone 01392 411 611"),
    ("F2", 12, ""),
    ("F2", 12, "12 May 2026"),
    ("F2", 12, ""),
    ("F2", 12, "PRIVATE AND CONFIDENTIAL"),
    ("F2", 12, "Mrs Eleanor Hartley"),
    ("F2", 12, "27 Orchard Way"),
    ("F2", 12, "Heavitree"),
    ("F2", 12, "Exeter"),
    ("F2", 12, "EX1 2QT"),
    ("F2", 12, "Date of birth: 14/06/1952"),
    ("F2", 12, ""),
    ("F2", 12, "Dear Mrs Hartley,"),
    ("F2", 12, ""),
    ("F2", 12, "Your cataract assessment is booked for Thursday 4 June at 10.30 in the"),
    ("F2", 12, "outpatient department. Please bring your glasses and a list of your"),
    ("F2", 12, "medicines. The appointment will take about two hours."),
    ("F2", 12, ""),
    ("F2", 12, "Yours sincerely,"),
    ("F2", 12, "Ophthalmology Bookings Team"),
]

RECEIPT = [
    ("F3", 11, "HARBOUR HARDWARE LTD"),
    ("F3", 11, "22 Quay Street, Bristol BS1 4DJ"),
    ("F3", 11, "VAT No 318 4471 29"),
    ("F3", 11, ""),
    ("F3", 11, "Wood screws 4x40 box        6.49"),
    ("F3", 11, "Wall plugs brown 100        3.25"),
    ("F3", 11, "Masking tape 25mm           2.80"),
    ("F3", 11, "Sandpaper assorted pack     4.15"),
    ("F3", 11, "Paint brush 50mm            5.99"),
    ("F3", 11, ""),
    ("F3", 11, "TOTAL                      22.68"),
    ("F3", 11, "Card payment               22.68"),
    ("F3", 11, ""),
    ("F3", 11, "Thank you for shopping with us"),
    ("F3", 11, "Receipt 000481  12/02/2026 14:37"),
]

LEFT = ["Rainfall in the upper valley", "was measured at twelve sites",
        "during the winter months. The", "average was higher than in any", "year since records began,",
        "and two sites flooded twice.", "Farmers reported damage to", "fences and drainage ditches."]
RIGHT = ["The council will publish a", "report on flood defences in", "the spring. Residents may",
         "comment on the proposals at", "the library or online before", "the end of April. A public",
         "meeting is planned for May", "in the village hall."]


def two_column(path):
    """A page set in two columns (Helvetica 11), the heading across both."""
    pdf = samples.PDF()
    catalog = pdf.add("")
    pages_obj = pdf.add("")
    font = pdf.add(samples.FONTS["F1"])
    content = bytearray(b"BT /F1 16 Tf 56 770 Td " + samples.pdf_string("Valley Parish Newsletter") + b" Tj ET\n")
    for x, lines in ((56, LEFT), (310, RIGHT)):
        y = 730
        for line in lines:
            content += b"BT /F1 11 Tf %d %d Td " % (x, y) + samples.pdf_string(line) + b" Tj ET\n"
            y -= 17
    stream = pdf.stream(bytes(content))
    page = pdf.add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
                   % (pages_obj, font, stream))
    pdf.objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    pdf.objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page
    pdf.write(path, catalog)
    return "Valley Parish Newsletter\n" + "\n".join(LEFT) + "\n" + "\n".join(RIGHT) + "\n"


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts, pos = [], 0
    while len(parts) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        parts.append(data[pos:end])
        pos = end
    pos += 1
    width, height = int(parts[1]), int(parts[2])
    return width, height, bytearray(data[pos:pos + width * height])


def degrade(width, height, pixels, rng, degrees):
    """Skew by `degrees` (nearest pixel, white outside), then a grey cast, grain and dust."""
    out = bytearray(b"\xff" * (width * height))
    angle = math.radians(degrees)
    cos, sin = math.cos(angle), math.sin(angle)
    cx, cy = width / 2, height / 2
    for y in range(height):
        dy = y - cy
        sx0, sy0 = cx - dy * sin - cx * cos, cy + dy * cos - cx * sin
        row = y * width
        for x in range(width):
            sx, sy = int(sx0 + x * cos), int(sy0 + x * sin)
            if 0 <= sx < width and 0 <= sy < height:
                out[row + x] = pixels[sy * width + sx]
    for i in range(len(out)):
        v = 24 + out[i] * 215 // 255 + int(rng.gauss(0, 9))
        out[i] = 0 if v < 0 else 255 if v > 255 else v
    for _ in range(width * height // 4000):
        x, y = rng.randrange(width - 3), rng.randrange(height - 3)
        for dx in range(rng.randrange(1, 3)):
            out[(y + dx) * width + x] = 40
    return out


def image_pdf(path, width, height, dpi, data, jpeg):
    pdf = samples.PDF()
    catalog = pdf.add("")
    pages_obj = pdf.add("")
    filter_ = "/DCTDecode" if jpeg else "/FlateDecode"
    image = pdf.stream(data, "/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                             "/BitsPerComponent 8 /Filter %s " % (width, height, filter_))
    w, h = width * 72.0 / dpi, height * 72.0 / dpi
    content = pdf.stream(b"q %.2f 0 0 %.2f 0 0 cm /Im1 Do Q\n" % (w, h))
    page = pdf.add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im1 %d 0 R >> >> /Contents %d 0 R >>"
                   % (pages_obj, w, h, image, content))
    pdf.objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    pdf.objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page
    info = pdf.add(b"<< /Producer (yiana-tools make-scans.py) >>")
    pdf.write(path, catalog, info)


def scan(text_pdf, out_pdf, dpi, seed, degrees, clean):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-gray", "-r", str(dpi), "-singlefile", text_pdf, os.path.join(tmp, "page")], check=True)
        width, height, pixels = read_pgm(os.path.join(tmp, "page.pgm"))
        if clean:
            image_pdf(out_pdf, width, height, dpi, zlib.compress(bytes(pixels), 6), jpeg=False)
            return
        pixels = degrade(width, height, pixels, random.Random(seed), degrees)
        pgm = os.path.join(tmp, "scan.pgm")
        with open(pgm, "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (width, height) + bytes(pixels))
        jpeg = subprocess.run(["cjpeg", "-quality", "45", "-grayscale", pgm], check=True, capture_output=True).stdout
        image_pdf(out_pdf, width, height, dpi, jpeg, jpeg=True)


def pages_of(pdf, first, last, out, dpi):
    """Pages first..last of a real PDF as clean image-only PDFs (<stem> p<N>.pdf), with the
    page's own text layer (pdftotext) as the truth beside each."""
    stem = os.path.splitext(os.path.basename(pdf))[0]
    for number in range(first, last + 1):
        name = os.path.join(out, "%s p%d" % (stem, number))
        text = subprocess.run(["pdftotext", "-f", str(number), "-l", str(number), "-enc", "UTF-8", pdf, "-"],
                              check=True, capture_output=True).stdout.decode("utf-8", "replace")
        if not text.strip():
            continue
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["pdftoppm", "-gray", "-r", str(dpi), "-f", str(number), "-l", str(number), "-singlefile", pdf,
                            os.path.join(tmp, "page")], check=True)
            width, height, pixels = read_pgm(os.path.join(tmp, "page.pgm"))
            image_pdf(name + ".pdf", width, height, dpi, zlib.compress(bytes(pixels), 6), jpeg=False)
        with open(name + ".txt", "w", encoding="utf-8") as f:
            f.write(text)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--pages-of":
        # Scripts/generate/scans.py --pages-of PDF FIRST LAST OUT [DPI]
        pdf, first, last, out = args[1], int(args[2]), int(args[3]), args[4]
        os.makedirs(out, exist_ok=True)
        pages_of(pdf, first, last, out, int(args[5]) if len(args) > 5 else 300)
        return
    clean = "--clean" in args
    dpi = 300
    if "--dpi" in args:
        dpi = int(args[args.index("--dpi") + 1])
    rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--dpi")]
    out = rest[0] if rest else os.path.join(HERE, "..", "..", "SampleDocs", "scans")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        path = os.path.join(tmp, "letter.pdf")
        samples.text_document(path, "Clinic letter", [LETTER])
        jobs.append(("Clinic letter (scan)", path, "\n".join(t for _, _, t in LETTER if t) + "\n", 0.8, 200))
        path = os.path.join(tmp, "referral.pdf")
        samples.text_document(path, "Referral letter", [REFERRAL])
        jobs.append(("Eye clinic appointment (scan)", path, "\n".join(t for _, _, t in REFERRAL if t) + "\n", -0.3, 300))
        path = os.path.join(tmp, "receipt.pdf")
        samples.text_document(path, "Receipt", [RECEIPT])
        jobs.append(("Hardware receipt (scan)", path, "\n".join(t for _, _, t in RECEIPT if t) + "\n", -1.2, 250))
        path = os.path.join(tmp, "columns.pdf")
        text = two_column(path)
        jobs.append(("Parish newsletter, two columns (scan)", path, text, 0.5, 300))
        for name, source, text, degrees, resolution in jobs:
            scan(source, os.path.join(out, name + ".pdf"), dpi if clean else resolution, seed=len(name), degrees=degrees, clean=clean)
            with open(os.path.join(out, name + ".txt"), "w") as f:
                f.write(text)
            print("made", os.path.join(out, name + ".pdf"))


if __name__ == "__main__":
    main()
