#!/usr/bin/env python3
"""Scores the address files `yiana extract` wrote against the letters' truth, field by field.

Usage: Scripts/bench/letters-score.py TRUTH.json LIBRARY [--json] [--misses]

Each letter is a document titled by its file name (Scripts/generate/letters.py), so its
address file is LIBRARY/.addresses/<name>.json. Every page of a letter is scored: the page's
patient entry (address_type "patient") against the letter's patient, its `gp` object against
the letter's GP, and the page's other entries (optician, specialist) against its other
recipients. "signer as patient" counts the pages whose patient is the consultant who signed or
sent the letter: the one figure that must be 0. Groups: the app's letters by copy, other
hospitals' letters by layout, and the scans (OCR'd) apart.
"""
import json
import os
import re
import sys

FIELDS = ["name", "date of birth", "mrn", "nhs number", "postcode", "line_1", "city", "county", "phone", "gp name",
          "gp practice", "gp postcode", "others", "signer as patient"]
TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "professor", "sir", "dame"}


def bare_name(name):
    words = [w for w in (name or "").replace(".", " ").split() if w]
    while len(words) > 1 and words[0].lower() in TITLES:
        words = words[1:]
    return " ".join(words)


def norm(value, fold=True):
    value = re.sub(r"[\s,]+", " ", (value or "").replace("\u00ad", "")).strip()
    return value.lower() if fold else value


def group_of(name, letter):
    if letter.get("scan"):
        return "scans (" + ("app" if letter["layout"] == "app" else "other") + ")"
    if letter["layout"] == "app":
        return "app: " + letter["copy"]
    return letter["layout"] + " " + letter["copy"]


def score(truth, library):
    counts = {}  # group -> field -> [right, of]
    misses = []

    def tally(group, field, ok, detail=""):
        for g in (group, "all"):
            cell = counts.setdefault(g, {}).setdefault(field, [0, 0])
            cell[0] += int(bool(ok))
            cell[1] += 1
        if not ok:
            misses.append(f"{group} {field}: {detail}")

    for name, letter in sorted(truth.items()):
        group = group_of(name, letter)
        path = os.path.join(library, ".addresses", name + ".json")
        try:
            pages = json.load(open(path)).get("pages", [])
        except (OSError, ValueError):
            pages = []
        want = letter["patient"]
        caps = letter["layout"] == "other-caps"
        signers = {bare_name(n).lower() for n in letter["not_patient"]}
        for number in range(1, letter["pages"] + 1):
            entries = [p for p in pages if p.get("page_number") == number]
            patient = next((p for p in entries if p.get("address_type", "patient") == "patient"), {})
            person, address, gp = patient.get("patient") or {}, patient.get("address") or {}, patient.get("gp") or {}
            where = f"{name} p{number}"
            got = person.get("full_name")
            tally(group, "name", norm(got, caps) == norm(want["full_name"], caps), f"{where}: {got!r} for {want['full_name']!r}")
            tally(group, "date of birth", person.get("date_of_birth") == want["date_of_birth"], f"{where}: {person.get('date_of_birth')!r}")
            if want.get("mrn"):
                tally(group, "mrn", person.get("mrn") == want["mrn"], f"{where}: {person.get('mrn')!r} for {want['mrn']!r}")
            if want.get("nhs_number"):
                tally(group, "nhs number", person.get("nhs_number") == want["nhs_number"], f"{where}: {person.get('nhs_number')!r} for {want['nhs_number']!r}")
            tally(group, "postcode", address.get("postcode") == want["postcode"], f"{where}: {address.get('postcode')!r} for {want['postcode']!r}")
            tally(group, "line_1", norm(address.get("line_1")) == norm(want["line_1"]), f"{where}: {address.get('line_1')!r} for {want['line_1']!r}")
            tally(group, "city", norm(address.get("city")) == norm(want["city"]), f"{where}: {address.get('city')!r} for {want['city']!r}")
            if want.get("county"):
                tally(group, "county", norm(address.get("county")) == norm(want["county"]), f"{where}: {address.get('county')!r} for {want['county']!r}")
            if want.get("phone"):
                phones = person.get("phones") or {}
                digits = re.sub(r"\D", "", want["phone"])
                tally(group, "phone", any(re.sub(r"\D", "", v or "") == digits for v in phones.values()), f"{where}: {phones!r} for {want['phone']!r}")
            if letter.get("gp"):
                tally(group, "gp name", norm(bare_name(gp.get("name"))) == norm(bare_name(letter["gp"]["name"])),
                      f"{where}: {gp.get('name')!r} for {letter['gp']['name']!r}")
                tally(group, "gp practice", norm(gp.get("practice")) == norm(letter["gp"]["practice"]),
                      f"{where}: {gp.get('practice')!r} for {letter['gp']['practice']!r}")
                tally(group, "gp postcode", gp.get("postcode") == letter["gp"]["postcode"], f"{where}: {gp.get('postcode')!r}")
            for other in letter["others"]:
                found = any(e.get("address_type") == other["address_type"] and (e.get("address") or {}).get("postcode") == other["postcode"]
                            and norm(bare_name((e.get("patient") or {}).get("full_name"))) == norm(bare_name(other["name"])) for e in entries)
                tally(group, "others", found, f"{where}: no {other['address_type']} {other['name']} {other['postcode']} in {entries!r}")
            wrong = [e for e in entries if e.get("address_type", "patient") == "patient"
                     and bare_name((e.get("patient") or {}).get("full_name")).lower() in signers]
            # Counted as right when no signer is the patient: the goal is 0 wrong.
            tally(group, "signer as patient", not wrong, f"{where}: {wrong!r}")
    return counts, misses


def main():
    truth = json.load(open(sys.argv[1]))
    counts, misses = score(truth, sys.argv[2])
    if "--json" in sys.argv:
        print(json.dumps(counts, indent=1, sort_keys=True))
    else:
        groups = sorted(g for g in counts if g != "all") + ["all"]
        width = max(len(g) for g in groups)
        print(f"{'':{width}}  " + "  ".join(f"{f:>12}" for f in FIELDS))
        for g in groups:
            cells = []
            for f in FIELDS:
                right, of = counts[g].get(f, [0, 0])
                if f == "signer as patient":
                    cells.append(f"{of - right:>4} of {of:<4}" if of else f"{'-':>12}")
                else:
                    cells.append(f"{right:>4}/{of:<4}{100 * right / of:3.0f}%" if of else f"{'-':>12}")
            print(f"{g:{width}}  " + "  ".join(f"{c:>12}" for c in cells))
        print("(signer as patient: pages whose patient is the letter's signer or sender, of all pages; the goal is 0)")
    if "--misses" in sys.argv:
        for miss in misses:
            print("  miss:", miss)


if __name__ == "__main__":
    main()
