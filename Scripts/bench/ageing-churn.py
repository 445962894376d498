#!/usr/bin/env python3
"""One round of a library's year on another device's copy of it (Scripts/bench/ageing.sh):
    Scripts/bench/ageing-churn.py DEVICE ATTIC ROUND [DELETE-SHARE]
    Scripts/bench/ageing-churn.py --edit DOCUMENT ROUND     (one document edited, as below)

In DEVICE, a copy of a library Scripts/generate/library.py wrote:
  - the documents the previous round deleted come back (moved back from ATTIC): half of
    them as they were, half edited;
  - DELETE-SHARE of the others (default 0.02) are deleted (moved to ATTIC, outside the
    library, to come back next round);
  - every other document is edited: its page gains a line, its metadata's `modified` moves on
    five weeks (ten rounds: a year), written as the app writes (a temporary file beside it,
    then renamed over it).
Prints what it did. Deterministic for a ROUND."""
import json, os, random, re, shutil, sys, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generate"))
from importlib import import_module
make_library = import_module("library")

FIVE_WEEKS = 35 * 86400


def documents(root):
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [s for s in subfolders if not s.startswith(".")]
        found += [os.path.join(folder, f) for f in files if f.endswith(".yianazip") and not f.startswith(".")]
    return sorted(found)


def edit(path, round_number):
    with zipfile.ZipFile(path) as z:
        meta = json.loads(z.read("metadata.json"))
        content = z.read("content.pdf")
    lines = [line.decode("latin-1") for line in re.findall(rb"\((.*?)\) Tj", content)]
    lines.append("revision %d of this document" % round_number)
    meta["modified"] = meta.get("modified", 700_000_000) + FIVE_WEEKS
    temp = os.path.join(os.path.dirname(path), ".%s.ageing.tmp" % os.path.basename(path))
    with zipfile.ZipFile(temp, "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
        z.writestr("content.pdf", make_library.pdf(lines))
        z.writestr("format.json", '{"formatVersion":2}')
    os.replace(temp, path)


def main():
    device, attic, round_number = sys.argv[1], sys.argv[2], int(sys.argv[3])
    share = float(sys.argv[4]) if len(sys.argv) > 4 else 0.02
    rng = random.Random(round_number)
    os.makedirs(attic, exist_ok=True)
    # Back from the attic (its names are the relative paths with "/" as "%2F").
    restored = []
    for name in sorted(os.listdir(attic)):
        relative = name.replace("%2F", "/")
        target = os.path.join(device, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.move(os.path.join(attic, name), target)
        restored.append(target)
    docs = documents(device)
    here = set(restored)
    victims = set(rng.sample([d for d in docs if d not in here], int(len(docs) * share)))
    for victim in sorted(victims):
        shutil.move(victim, os.path.join(attic, os.path.relpath(victim, device).replace("/", "%2F")))
    edited = 0
    for i, doc in enumerate(docs):
        if doc in victims or (doc in here and i % 2 == 0):
            continue
        edit(doc, round_number)
        edited += 1
    print("round %d: %d edited, %d deleted, %d back" % (round_number, edited, len(victims), len(restored)))


if __name__ == "__main__":
    if sys.argv[1] == "--edit":
        edit(sys.argv[2], int(sys.argv[3]))
    else:
        main()
