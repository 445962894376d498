#!/usr/bin/env python3
"""Regenerates SampleDocs/ (Scripts/generate/sample-docs.py): small PDFs with real text, an image-only scan, an encrypted PDF,
a damaged PDF, and sample documents in the current .yianazip format and both legacy formats.

Everything here is written by this script (text, images, layout), so it carries the project's
licence. Needs python3 and qpdf (for the encrypted PDF). Output is deterministic.
"""
import hashlib, json, os, plistlib, struct, subprocess, sys, zipfile, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "SampleDocs")
PDFS = os.path.join(ROOT, "pdfs")
ARCHIVES = os.path.join(ROOT, "archives")
PLACEHOLDERS = os.path.join(ROOT, "placeholders")


def pdf_string(text):
    data = text.encode("cp1252") if isinstance(text, str) else text
    return b"(" + data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


class PDF:
    def __init__(self):
        self.objects = []

    def add(self, body):
        self.objects.append(body if isinstance(body, bytes) else body.encode("latin-1"))
        return len(self.objects)

    def stream(self, data, extra=""):
        return self.add(b"<< /Length %d %s>>\nstream\n" % (len(data), extra.encode()) + data + b"\nendstream")

    def write(self, path, root, info=None):
        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for number, body in enumerate(self.objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objects) + 1)
        for offset in offsets:
            out += b"%010d 00000 n \n" % offset
        trailer = "trailer\n<< /Size %d /Root %d 0 R" % (len(self.objects) + 1, root)
        if info:
            trailer += " /Info %d 0 R" % info
        out += trailer.encode() + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
        with open(path, "wb") as f:
            f.write(out)
        return bytes(out)


FONTS = {
    "F1": "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    "F2": "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
    "F3": "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
    "F4": "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Bold /Encoding "
          "<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi 2 /fl] >> >>",
    "F5": "<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>",
    "F6": "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding "
          "<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi 2 /fl] >> >>",
}


def text_document(path, title, pages):
    """pages: list of lists of (font, size, text) lines, laid out top to bottom; None for a
    page holding only a scanned image (no text layer)."""
    pdf = PDF()
    catalog = pdf.add("")  # filled below
    pages_obj = pdf.add("")
    font_ids = {name: pdf.add(body) for name, body in FONTS.items()}
    resources = "<< /Font << %s >> >>" % " ".join("/%s %d 0 R" % (n, i) for n, i in font_ids.items())
    kids = []
    for lines in pages:
        if lines is None:
            image = pdf.stream(zlib.compress(scan_pixels(), 9),
                               "/Type /XObject /Subtype /Image /Width 240 /Height 120 /ColorSpace /DeviceGray "
                               "/BitsPerComponent 8 /Filter /FlateDecode ")
            content = pdf.stream(b"q 480 0 0 240 56 500 cm /Im1 Do Q\n")
            kids.append(pdf.add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 %d 0 R >> >> "
                                "/Contents %d 0 R >>" % (pages_obj, image, content)))
            continue
        y = 770
        content = bytearray()
        for font, size, text in lines:
            content += b"BT /%s %d Tf 56 %d Td " % (font.encode(), size, y) + pdf_string(text) + b" Tj ET\n"
            y -= int(size * 1.6)
        stream = pdf.stream(bytes(content))
        kids.append(pdf.add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources %s /Contents %d 0 R >>"
                            % (pages_obj, resources, stream)))
    pdf.objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    pdf.objects[pages_obj - 1] = ("<< /Type /Pages /Kids [%s] /Count %d >>"
                                  % (" ".join("%d 0 R" % k for k in kids), len(kids))).encode()
    info = pdf.add(b"<< /Title " + pdf_string(title) + b" /Producer (yiana-tools make-sample-docs.py) >>")
    return pdf.write(path, catalog, info)


def scan_pixels(width=240, height=120):
    rows = bytearray()
    for y in range(height):
        rows += bytes(((x * 7 + y * 3) ^ (x // 16 * 40)) & 0xFF for x in range(width))
    return bytes(rows)


def image_only(path):
    width, height = 240, 120
    rows = scan_pixels(width, height)
    pdf = PDF()
    catalog = pdf.add("")
    pages_obj = pdf.add("")
    image = pdf.stream(zlib.compress(bytes(rows), 9),
                       "/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                       "/BitsPerComponent 8 /Filter /FlateDecode " % (width, height))
    content = pdf.stream(b"q 480 0 0 240 56 500 cm /Im1 Do Q\n")
    page = pdf.add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 %d 0 R >> >> "
                   "/Contents %d 0 R >>" % (pages_obj, image, content))
    pdf.objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    pdf.objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page
    return pdf.write(path, catalog)


def filled_form(path):
    """A one-page form whose only text is its filled fields (AcroForm text fields and a
    choice field with values and appearance streams, as a PDF form filler saves them)."""
    pdf = PDF()
    catalog = pdf.add("")
    pages_obj = pdf.add("")
    font = pdf.add(FONTS["F1"])
    fields = [("name", "Tx", "Margarethe Quellenhof", 700), ("reference", "Tx", "Claim QX-58213", 660),
              ("clinic", "Ch", "Riverside physiotherapy", 620)]
    widgets = []
    for name, kind, value, y in fields:
        appearance = pdf.stream(b"/Tx BMC BT /F1 11 Tf 2 6 Td " + pdf_string(value) + b" Tj ET EMC",
                                "/Type /XObject /Subtype /Form /BBox [0 0 300 20] /Resources << /Font << /F1 %d 0 R >> >> " % font)
        extra = " /Opt [(Riverside physiotherapy) (Harbour dental)]" if kind == "Ch" else ""
        widgets.append(pdf.add(("<< /Type /Annot /Subtype /Widget /FT /%s /T (%s) /V %s /DA (/F1 11 Tf 0 g) /Rect [56 %d 356 %d] "
                                "/F 4 /AP << /N %d 0 R >>%s >>") % (kind, name, pdf_string(value).decode("latin-1"), y, y + 20, appearance, extra)))
    content = pdf.stream(b"0.8 G 56 600 300 120 re S\n")
    page = pdf.add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> "
                   "/Contents %d 0 R /Annots [%s] >>" % (pages_obj, font, content, " ".join("%d 0 R" % w for w in widgets)))
    for widget in widgets:
        pdf.objects[widget - 1] = pdf.objects[widget - 1][:-2] + b" /P %d 0 R >>" % page
    form = "<< /Fields [%s] /DA (/F1 11 Tf 0 g) /DR << /Font << /F1 %d 0 R >> >> >>" % (" ".join("%d 0 R" % w for w in widgets), font)
    pdf.objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R /AcroForm %s >>" % (pages_obj, form.encode())
    pdf.objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page
    return pdf.write(path, catalog)


LETTER = [
    [("F1", 16, "Bank statement reminder"),
     ("F2", 11, "Dear Ms. Lef\u00e8vre,"),
     ("F2", 11, "your account summary for March shows a balance of \u20ac 1.234,56 (about \u00a3 1,050)."),
     ("F2", 11, "Please check the entries marked with reference A-1312/B before the 30th."),
     ("F3", 10, "Ref: ACC-2026-0042   IBAN DE89 3704 0044 0532 0130 00"),
     ("F2", 11, "Mit freundlichen Gr\u00fc\u00dfen, \u00c9lodie M\u00fcller"),
     ("F2", 11, "Caf\u00e9 cr\u00e8me, na\u00efve fa\u00e7ade, \u00e5ngstr\u00f6m, S\u00e3o Paulo.")],
    [("F1", 14, "Page two: terms"),
     ("F2", 11, "Fees are charged monthly. Interest accrues daily at the agreed rate."),
     ("F3", 10, "Contact: service@example.org, +44 20 7946 0000"),
     ("F2", 11, "This letter was produced for testing; every name in it is invented.")],
]

PAPER = [
    [("F4", 16, b"Ef\x01cient \x02ow control in synced document libraries"),
     ("F2", 11, "Abstract. We study how interrupted writes damage archives on mobile de-"),
     ("F6", 11, "vices and how atomic replacement avoids it. The \x01nal section is brief.".encode("cp1252")),
     ("F5", 12, "a b g d"),
     ("F2", 11, "The symbols above are the Greek letters alpha, beta, gamma and delta.")],
    [("F4", 14, "1 Introduction"),
     ("F2", 11, "Sync services copy files between devices while applications write them."),
     ("F2", 11, "A reader that sees half a file reports a damaged document; a writer that"),
     ("F2", 11, "renames a complete temporary file over the old one never exposes that state.")],
    [("F4", 14, "2 Results"),
     ("F2", 11, "Across 500 killed writes no document was lost; each held its old or new version."),
     ("F3", 10, "crc32 mismatch: 0 / 500")],
]


def metadata(doc_id, title, pages, pdf_bytes, created, extra=None):
    # Key order and shapes as the app's JSONEncoder writes them; dates in seconds since 2001.
    m = {"id": doc_id, "title": title, "created": created, "modified": created + 3600.5,
         "pageCount": pages, "tags": ["sample"], "ocrCompleted": False}
    if pdf_bytes is not None:
        m["pdfHash"] = hashlib.sha256(pdf_bytes).hexdigest()
    m.update(extra or {})
    return json.dumps(m, separators=(",", ":"), ensure_ascii=False).replace("/", "\\/").encode()


def stored_zip(path, entries):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 3, 1, 12, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o100644 << 16
            z.writestr(info, data)


def main():
    os.makedirs(PDFS, exist_ok=True)
    os.makedirs(ARCHIVES, exist_ok=True)
    letter = text_document(os.path.join(PDFS, "Bank statement reminder.pdf"), "Bank statement reminder", LETTER)
    paper = text_document(os.path.join(PDFS, "Flow control paper.pdf"), "Efficient flow control", PAPER)
    image_only(os.path.join(PDFS, "Noise pattern (image only, no words).pdf"))
    filled_form(os.path.join(PDFS, "Filled form.pdf"))
    # A letter whose second page was scanned in (an image, no text layer): the app OCRs it.
    text_document(os.path.join(PDFS, "Letter with scanned page.pdf"), "Letter with scanned page", [LETTER[0], None])
    subprocess.run(["qpdf", "--static-id", "--allow-weak-crypto", "--encrypt", "user-secret", "owner-secret", "128", "--use-aes=n", "--",
                    os.path.join(PDFS, "Bank statement reminder.pdf"), os.path.join(PDFS, "Encrypted letter.pdf")],
                   check=True)
    # Damaged: an interrupted download, cut off inside the page tree, before any page.
    with open(os.path.join(PDFS, "Damaged download.pdf"), "wb") as f:
        f.write(letter[:letter.index(b"2 0 obj") + 30])

    created = 794_000_000.25  # 2026-02-27
    stored_zip(os.path.join(ARCHIVES, "Sample Letter.yianazip"), [
        ("metadata.json", metadata("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "Sample Letter", 2, letter, created,
                                   {"fullText": "Bank statement reminder", "ocrSource": "embedded",
                                    "futureAppField": {"kept": True}})),
        ("content.pdf", letter),
        ("format.json", b'{"formatVersion":2}'),
    ])
    with open(os.path.join(ARCHIVES, "Legacy Separator.yianazip"), "wb") as f:
        f.write(metadata("0F4B1C9E-2D7A-4E11-9B1A-7C3D5E6F8A90", "Legacy Separator", 3, None, created)
                + b"\xff\xff\xff\xff" + paper)
    # iCloud stubs of evicted documents, written by Python's plistlib (not by the toolkit):
    # a binary one in the current naming, an XML one in the older "-tef" naming.
    os.makedirs(PLACEHOLDERS, exist_ok=True)
    stub = {"NSURLNameKey": "Quarterly report.yianazip", "NSURLFileSizeKey": 184320,
            "NSURLFileResourceTypeKey": "NSURLFileResourceTypeRegular"}
    with open(os.path.join(PLACEHOLDERS, ".Quarterly report.yianazip.icloud"), "wb") as f:
        f.write(plistlib.dumps(stub, fmt=plistlib.FMT_BINARY))
    stub = {"NSURLNameKey": "Old scan.yianazip", "NSURLFileSizeKey": 52000,
            "NSURLFileResourceTypeKey": "NSURLFileResourceTypeRegular"}
    with open(os.path.join(PLACEHOLDERS, ".Old scan.yianazip-tef.icloud"), "wb") as f:
        f.write(plistlib.dumps(stub, fmt=plistlib.FMT_XML))
    with open(os.path.join(ARCHIVES, "Legacy Metadata Only.yianazip"), "wb") as f:
        f.write(metadata("7A9C3E21-5B8D-4F60-A1E2-3C4D5E6F7081", "Legacy Metadata Only", 0, None, created))


if __name__ == "__main__":
    sys.exit(main())
