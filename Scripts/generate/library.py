#!/usr/bin/env python3
"""Writes N one-page .yianazip documents of pseudo-random English-like text into a folder
tree (for index and search benchmarks): Scripts/generate/library.py N OUT [SEED] [FOLDERS] (default 50
folders, documents dealt out among them in turn). Deterministic."""
import json, os, random, sys, uuid, zipfile

WORDS = ("account balance invoice statement tax return annual report meeting minutes letter contract "
         "insurance policy claim receipt payment refund order delivery warranty service repair energy "
         "water council school medical appointment prescription bank loan mortgage salary pension travel "
         "ticket booking hotel flight visa passport licence vehicle registration garden kitchen project "
         "budget plan schedule review audit summary research paper thesis chapter appendix figure table "
         "reference index notes draft final revised approved pending urgent archive quarterly monthly").split()


def pdf(lines):
    content = "BT /F1 11 Tf 50 780 Td 13 TL " + " ".join("(%s) Tj T*" % l for l in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out, offsets = "%PDF-1.4\n", []
    for i, body in enumerate(objects):
        offsets.append(len(out))
        out += "%d 0 obj\n%s\nendobj\n" % (i + 1, body)
    xref = len(out)
    out += "xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + "".join("%010d 00000 n \n" % o for o in offsets)
    out += "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out.encode("latin-1")


def main():
    count, root = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    folders = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    for n in range(count):
        folder = os.path.join(root, "Folder %02d" % (n % folders))
        os.makedirs(folder, exist_ok=True)
        words = [rng.choice(WORDS) for _ in range(120)]
        lines = [" ".join(words[i:i + 12]) + " %d" % (n * 10 + i) for i in range(0, 120, 12)]
        title = "%s %s %d" % (rng.choice(WORDS).capitalize(), rng.choice(WORDS), n)
        meta = {"id": str(uuid.UUID(int=rng.getrandbits(128))).upper(), "title": title,
                "created": 700_000_000 + n * 3600, "modified": 700_000_000 + n * 3600,
                "pageCount": 1, "tags": [rng.choice(["tax", "home", "work", "health"])], "ocrCompleted": False}
        with zipfile.ZipFile(os.path.join(folder, title + ".yianazip"), "w", zipfile.ZIP_STORED) as z:
            z.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
            z.writestr("content.pdf", pdf(lines))
            z.writestr("format.json", '{"formatVersion":2}')


if __name__ == "__main__":
    main()
