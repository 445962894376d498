#!/usr/bin/env python3
"""Random changes to a library of Scripts/generate/people.py, as people and sync programs make
them (issue 77): a document added (imported with `yiana import`, with its address file), an
address file edited (a name misread, a number added, a page removed), a document deleted, a
document renamed (its title, the address files' key, kept), a name corrected in
`.overrides.json`, an address file deleted.

Usage: Scripts/generate/people-changes.py LIBRARY --yiana PATH [--count 20] [--seed 1]
Prints one line per change.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from people import minimal_pdf, nhs_number  # noqa: E402

NAMES = ["Eleanor Whitfield", "John Smith", "Priya Patel", "Sean O'Brien", "Ana Melo-Cruz", "Tom Archer", "Kate Nash"]


def documents(library):
    found = []
    for folder, _, files in os.walk(library):
        if "/." in folder[len(library):]:
            continue
        found += [os.path.join(folder, f) for f in files if f.endswith(".yianazip")]
    return sorted(found)


def address_files(library):
    folder = os.path.join(library, ".addresses")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json") and not f.endswith(".overrides.json"))


def page(rng, number):
    name = rng.choice(NAMES)
    entry = {"page_number": number, "address_type": "patient", "patient": {"full_name": rng.choice([name, name.upper(), "Mrs " + name])}}
    if rng.random() < 0.8:
        entry["patient"]["date_of_birth"] = f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1940, 2010)}"
    if rng.random() < 0.5:
        entry["patient"]["nhs_number"] = nhs_number(rng)
    return entry


def write_json(path, value):
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(value, f, indent=2, sort_keys=True)
    os.replace(temporary, path)


def change(rng, library, yiana, number):
    kind = rng.choice(["add", "edit", "delete", "rename", "override", "forget"])
    docs, files = documents(library), address_files(library)
    if kind == "add" or not docs or not files:
        title = f"Added {number:04d} {rng.randint(0, 10**6)}"
        with tempfile.TemporaryDirectory() as folder:
            pdf = os.path.join(folder, title + ".pdf")
            with open(pdf, "wb") as f:
                f.write(minimal_pdf(f"Added document {title}"))
            subprocess.run([yiana, "import", "--library", library, pdf], check=True, capture_output=True)
        write_json(os.path.join(library, ".addresses", title + ".json"),
                   {"schema_version": 1, "document_id": title, "extracted_at": "2026-03-01T09:00:00Z", "page_count": 1, "pages": [page(rng, 1)], "overrides": []})
        return f"add {title}"
    if kind == "edit":
        path = rng.choice(files)
        value = json.load(open(path))
        pages = value.get("pages", [])
        roll = rng.random()
        if pages and roll < 0.4:
            pages[rng.randrange(len(pages))]["patient"] = page(rng, 1)["patient"]
        elif pages and roll < 0.6:
            pages.pop(rng.randrange(len(pages)))
        else:
            pages.append(page(rng, len(pages) + 1))
        write_json(path, value)
        return f"edit {os.path.basename(path)}"
    if kind == "delete":
        path = rng.choice(docs)
        os.remove(path)
        return f"delete {os.path.relpath(path, library)}"
    if kind == "rename":
        path = rng.choice(docs)
        target = os.path.join(os.path.dirname(path), f"Renamed {number:04d} {rng.randint(0, 10**6)}.yianazip")
        os.rename(path, target)
        return f"rename {os.path.relpath(path, library)} -> {os.path.basename(target)}"
    if kind == "override":
        path = rng.choice(files)
        title = os.path.basename(path)[: -len(".json")]
        correction = {"page_number": 1, "match_address_type": "patient", "address_type": "patient", "is_dismissed": rng.random() < 0.2,
                      "override_date": f"2026-04-{rng.randint(1, 28):02d}T10:00:00Z", "patient": page(rng, 1)["patient"]}
        write_json(os.path.join(library, ".addresses", title + ".overrides.json"), {"schema_version": 1, "document_id": title, "overrides": [correction]})
        return f"override {title}"
    path = rng.choice(files)
    os.remove(path)
    return f"forget {os.path.basename(path)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library")
    parser.add_argument("--yiana", required=True)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for number in range(args.count):
        print(change(rng, args.library, args.yiana, number), flush=True)


if __name__ == "__main__":
    main()
