#!/usr/bin/env python3
"""Writes N one-page .yianazip documents of pseudo-random English-like text into a folder
tree (for index and search benchmarks): Scripts/generate/library.py N OUT [SEED] [FOLDERS] (default 50
folders, documents dealt out among them in turn). Deterministic.

NAMES=1 in the environment: each page also opens with a patient's name ("Re: Mrs Ada
Thorneby"), drawn from a few thousand surnames (``surnames()``), one in ten of them misread as
OCR misreads (rn for m, i for l, ...), and ends with three words of OCR noise, so that the
index's vocabulary grows with the library as a scanned one's does (search that forgives, issue 56)."""
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


SYLLABLES = ("ash bar bel bram brook cal car chester cliff court dale dar den don ford gar ham har hart hay hol "
             "ing kirk lam ley lin low mar mer mill mont mor nor ock ow pen rid row sal shaw stan stead ston "
             "thorn ton vale wain wick win wood worth wright").split()
FIRST = ("Ada Alan Alice Amelia Arthur Beatrice Clare Daniel Edith Eleanor Frank George Grace Harold Helen Ian Jane "
         "John Joseph Kate Laura Margaret Mary Nathan Oliver Peter Rose Sarah Thomas William").split()
OCR_SLIPS = (("m", "rn"), ("l", "i"), ("l", "1"), ("d", "cl"), ("w", "vv"), ("h", "li"), ("e", "c"), ("o", "0"))


def surnames():
    """Every surname the generator uses (two or three syllables), in a fixed order."""
    rng = random.Random(56)
    names = set()
    for a in SYLLABLES:
        for b in SYLLABLES:
            if a != b:
                names.add((a + b).capitalize())
    for _ in range(3000):
        names.add("".join(rng.sample(SYLLABLES, 3)).capitalize())
    return sorted(names)


def misread(word, rng):
    """The word as OCR might misread it: one of its letters read as a known confusion."""
    slips = [(i, b) for i, ch in enumerate(word) for a, b in OCR_SLIPS if ch == a]
    if not slips:
        return word
    i, b = rng.choice(slips)
    return word[:i] + b + word[i + 1:]


def main():
    count, root = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    folders = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    names = surnames() if os.environ.get("NAMES") == "1" else None
    for n in range(count):
        folder = os.path.join(root, "Folder %02d" % (n % folders))
        os.makedirs(folder, exist_ok=True)
        words = [rng.choice(WORDS) for _ in range(120)]
        lines = [" ".join(words[i:i + 12]) + " %d" % (n * 10 + i) for i in range(0, 120, 12)]
        if names:
            surname = rng.choice(names)
            if rng.random() < 0.1:
                surname = misread(surname, rng)
            lines.insert(0, "Re: %s %s %s" % (rng.choice(["Mr", "Mrs", "Ms", "Dr"]), rng.choice(FIRST), surname))
            lines.append(" ".join("".join(rng.choice("abcdefghiklmnoprstuvw") for _ in range(rng.randint(4, 9))) for _ in range(3)))
        title = "%s %s %d" % (rng.choice(WORDS).capitalize(), rng.choice(WORDS), n)
        meta = {"id": str(uuid.UUID(int=rng.getrandbits(128))).upper(), "title": title,
                # Seconds since 2001 (as the app writes them), ten minutes apart from March 2023:
                # always in the past. An hour apart put every document past the 32,000th in the
                # future, a clock that conflict detection questions on every pass.
                "created": 700_000_000 + n * 600, "modified": 700_000_000 + n * 600,
                "pageCount": 1, "tags": [rng.choice(["tax", "home", "work", "health"])], "ocrCompleted": False}
        with zipfile.ZipFile(os.path.join(folder, title + ".yianazip"), "w", zipfile.ZIP_STORED) as z:
            z.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
            z.writestr("content.pdf", pdf(lines))
            z.writestr("format.json", '{"formatVersion":2}')


if __name__ == "__main__":
    main()
