#!/usr/bin/env python3
"""Scores the address files `yiana extract` wrote for generated layouts (Scripts/generate/layouts.py),
counting each field as right, missing or WRONG: a field written with a value that is not the
document's is a wrong fact, the failure that matters (issue 76's goal: 0).

Usage: Scripts/bench/layouts-score.py TRUTH.json LIBRARY [--json] [--misses] [--wrong]

Each document is titled by its file name, so its address file is LIBRARY/.addresses/<name>.json.
Its first page's patient entry is scored against the patient; its `gp` object against the GP.
"someone else" counts the documents whose patient is one of the people who are not the patient
(the signer, the sender, the addressee when a doctor, the GP, the optometrist, the secretary, a
relative named in the body). Groups: each family, text and scans apart, and all.
"""
import json
import os
import re
import sys

FIELDS = ["name", "date of birth", "mrn", "nhs number", "postcode", "line_1", "city", "county", "phone", "gp name", "gp postcode"]
TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "professor", "sir", "dame", "rev", "master"}


def bare(name):
    words = [w for w in re.split(r"[\s.,()]+", name or "") if w]
    words = [w for w in words if w.lower() not in TITLES]
    return " ".join(words).lower()


def norm(value):
    return re.sub(r"[\s,]+", " ", (value or "")).strip().lower()


def digits(value):
    return re.sub(r"\D", "", value or "")


def judge(field, got, want):
    """'right', 'missing' or 'wrong' (a value written that is not the document's)."""
    if got in (None, "", {}):
        return "missing"
    if field == "name" or field == "gp name":
        if field == "name":
            return "right" if bare(got) == bare(want) else "wrong"
        # A GP's name is right when its surname and any initial agree (`Dr A Patel` for `Dr Anil Patel`).
        g, w = bare(got).split(), bare(want).split()
        if not g or g[-1] != w[-1]:
            return "wrong"
        return "right" if len(g) == 1 or g[0][0] == w[0][0] else "wrong"
    if field in ("nhs number", "phone"):
        return "right" if digits(got) == digits(want) else "wrong"
    if field in ("date of birth", "mrn", "postcode", "gp postcode"):
        return "right" if norm(got).replace(" ", "") == norm(want).replace(" ", "") else "wrong"
    return "right" if norm(got) == norm(want) else "wrong"


def score(truth, library):
    counts = {}  # group -> field -> {"right", "missing", "wrong"}
    problems = []

    def tally(groups, field, verdict, detail):
        for g in groups:
            cell = counts.setdefault(g, {}).setdefault(field, {"right": 0, "missing": 0, "wrong": 0})
            cell[verdict] += 1
        if verdict != "right":
            problems.append((verdict, f"{field}: {detail}"))

    for name, doc in sorted(truth.items()):
        kind = "scans" if doc.get("scan") else "text"
        groups = [f"{doc['family']} ({kind})", f"all ({kind})", "all"]
        try:
            pages = json.load(open(os.path.join(library, ".addresses", name + ".json"))).get("pages", [])
        except (OSError, ValueError):
            pages = []
        entries = [p for p in pages if p.get("page_number") == 1]
        patient = next((p for p in entries if p.get("address_type", "patient") == "patient"), {})
        person, address, gp = patient.get("patient") or {}, patient.get("address") or {}, patient.get("gp") or {}
        want = doc["patient"]
        checks = [("name", person.get("full_name"), want["full_name"]), ("date of birth", person.get("date_of_birth"), want["date_of_birth"]),
                  ("postcode", address.get("postcode"), want["postcode"]), ("line_1", address.get("line_1"), want["line_1"]),
                  ("city", address.get("city"), want["city"])]
        if want.get("mrn"):
            checks.append(("mrn", person.get("mrn"), want["mrn"]))
        elif person.get("mrn"):
            tally(groups, "mrn", "wrong", f"{name}: {person.get('mrn')!r} where the document shows none")
        if want.get("nhs_number"):
            checks.append(("nhs number", person.get("nhs_number"), want["nhs_number"]))
        elif person.get("nhs_number"):
            tally(groups, "nhs number", "wrong", f"{name}: {person.get('nhs_number')!r} where the document shows none")
        if want.get("county"):
            checks.append(("county", address.get("county"), want["county"]))
        if want.get("phone"):
            phones = person.get("phones") or {}
            found = [v for v in phones.values() if v]
            got = next((v for v in found if digits(v) == digits(want["phone"])), found[0] if found else None)
            checks.append(("phone", got, want["phone"]))
        if doc.get("gp"):
            checks += [("gp name", gp.get("name"), doc["gp"]["name"]), ("gp postcode", gp.get("postcode"), doc["gp"]["postcode"])]
        for field, got, expected in checks:
            tally(groups, field, judge(field, got, expected), f"{name}: {got!r} for {expected!r}")
        others = {bare(n) for n in doc["not_patient"]}
        someone_else = person.get("full_name") and bare(person.get("full_name")) in others
        tally(groups, "someone else", "wrong" if someone_else else "right", f"{name}: {person.get('full_name')!r} is not the patient")
    return counts, problems


def main():
    truth = json.load(open(sys.argv[1]))
    counts, problems = score(truth, sys.argv[2])
    if "--json" in sys.argv:
        print(json.dumps(counts, indent=1, sort_keys=True))
        return
    groups = sorted(g for g in counts if not g.startswith("all")) + sorted(g for g in counts if g.startswith("all ")) + ["all"]
    width = max(len(g) for g in groups)
    fields = FIELDS + ["someone else"]
    print("Each cell: right % (wrong facts). A wrong fact is a field written with another value; a field left out is not one.")
    print(f"{'':{width}}  {'docs':>5} {'WRONG':>6}  " + "  ".join(f"{f:>13}" for f in fields))
    for g in groups:
        cells = []
        wrong_total = 0
        docs = counts[g]["someone else"]["right"] + counts[g]["someone else"]["wrong"]
        for f in fields:
            cell = counts[g].get(f)
            if not cell:
                cells.append(f"{'-':>13}")
                continue
            of = sum(cell.values())
            wrong_total += cell["wrong"]
            if f == "someone else":
                cells.append(f"{cell['wrong']:>6} of {of:<5}")
            else:
                cells.append(f"{100 * cell['right'] / of:5.1f}% ({cell['wrong']:>3})")
        print(f"{g:{width}}  {docs:>5} {wrong_total:>6}  " + "  ".join(f"{c:>13}" for c in cells))
    if "--misses" in sys.argv or "--wrong" in sys.argv:
        for verdict, detail in problems:
            if verdict == "wrong" or "--misses" in sys.argv:
                print(f"  {verdict}: {detail}")


if __name__ == "__main__":
    main()
