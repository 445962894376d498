#!/usr/bin/env python3
"""Writes hostile .yianazip files with ~100,000 entries into OUT, each holding a real
document's three entries (from SOURCE, a .yianazip) among the crowd, for the memory benchmark
(Scripts/bench/hostile.sh) and the tests:
    Scripts/generate/hostile-archives.py SOURCE OUT [ENTRIES]   (default 100000)

- many-entries: ENTRIES stored entries of a few bytes beside the document's own, a valid
  ZIP64 (its central directory over the reader's 4 MiB limit, so repair salvages it);
- many-entries-no-directory: the same cut at its central directory (found by scanning only);
- many-deflated: ENTRIES deflated entries (each a little bomb of 64 KiB from 100 bytes);
- same-name: as many entries named "x" as fit a central directory under 4 MiB (every one read);
- many-names: as many different names as fit under 4 MiB (every pair of names compared?);
- many-pdfs: ENTRIES // 10 local headers named content.pdf, each claiming the rest of the file;
- many-headers-garbage: ENTRIES local-header signatures with lying sizes in 1 MB of junk,
  then the document's entries, no central directory;
- long-names: ENTRIES // 20 entries with names of 255 bytes (the longest a scan accepts)."""
import os, random, struct, sys, warnings, zipfile, zlib

warnings.filterwarnings("ignore", "Duplicate name")  # same-name: on purpose

source, out = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
os.makedirs(out, exist_ok=True)
with zipfile.ZipFile(source) as z:
    own = [(name, z.read(name)) for name in ("metadata.json", "content.pdf", "format.json") if name in z.namelist()]


def write(name, extras, method=zipfile.ZIP_STORED, own_first=True):
    path = os.path.join(out, name + ".yianazip")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        if own_first:
            for entry, data in own:
                z.writestr(entry, data)
        for entry, data in extras:
            info = zipfile.ZipInfo(entry, date_time=(2026, 11, 27, 12, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
        if not own_first:
            for entry, data in own:
                z.writestr(entry, data)
    return path


write("many-entries", ((f"e{i}", b"%d" % i) for i in range(count)))
path = write("many-entries-no-directory", ((f"e{i}", b"%d" % i) for i in range(count)))
with zipfile.ZipFile(path) as z:
    directory = z.start_dir
os.truncate(path, directory)
write("many-deflated", ((f"d{i}", b"\0" * 65_536) for i in range(count)), method=zipfile.ZIP_DEFLATED, own_first=False)
# 47 bytes a central header with a one-byte name: as many as fit 4 MiB.
write("same-name", (("x", b"") for _ in range((4 << 20) // 47 - 10)))
write("many-names", ((f"e{i}", b"") for i in range((4 << 20) // 52 - 10)))
write("long-names", ((("n%05d" % i).ljust(255, "n"), b"") for i in range(count // 20)))

rng = random.Random(54)
with open(os.path.join(out, "many-headers-garbage.yianazip"), "wb") as f:
    for i in range(count):
        name = b"g%d" % i
        # A local header whose sizes lie (up to 4 GB), its name, then a few bytes of junk.
        f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, rng.getrandbits(32), rng.getrandbits(32),
                            rng.getrandbits(32), len(name), 0) + name + os.urandom(rng.randrange(0, 8)))
    for entry, data in own:
        name = entry.encode()
        f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, zlib.crc32(data), len(data), len(data), len(name), 0)
                + name + data)
with open(os.path.join(out, "many-pdfs.yianazip"), "wb") as f:
    name = b"content.pdf"
    size = (count // 10) * (30 + len(name))
    for i in range(count // 10):
        f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, rng.getrandbits(32), size, size, len(name), 0) + name)
        size -= 30 + len(name)
print(out)
