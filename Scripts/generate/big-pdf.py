#!/usr/bin/env python3
"""Writes a valid one-page PDF of about SIZE_MB megabytes (a large uncompressed image of
pseudo-random bytes) for the benchmarks: Scripts/generate/big-pdf.py SIZE_MB OUT."""
import os, sys

size_mb, out = int(sys.argv[1]), sys.argv[2]
width = 4096
height = max(1, size_mb * 1_000_000 // width)
with open(out, "wb") as f:
    offsets = []
    def obj(body):
        offsets.append(f.tell())
        f.write(b"%d 0 obj\n" % len(offsets) + body + b"\nendobj\n")
    f.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    obj(b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    obj(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>")
    offsets.append(f.tell())
    f.write(b"4 0 obj\n<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Length %d >>\nstream\n" % (width, height, width * height))
    block = os.urandom(1 << 20)
    left = width * height
    while left:
        n = min(left, len(block))
        f.write(block[:n])
        left -= n
    f.write(b"\nendstream\nendobj\n")
    obj(b"<< /Length 35 >>\nstream\nq 595 0 0 842 0 0 cm /Im1 Do Q\nendstream")
    xref = f.tell()
    f.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
    for offset in offsets:
        f.write(b"%010d 00000 n \n" % offset)
    f.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
