#!/usr/bin/env python3
"""A clinic's library of people, with the hard cases of telling them apart planted (issue 77).

Patients with documents named the app's way (`Surname_Firstname_DDMMYY`, sometimes with a
suffix, sometimes a folder per patient) and not (`Scan 0042`, `Referral 17`), each with the
address files the app's extraction writes (`.addresses/<title>.json`: pages naming the patient
in the forms letters write them, `WHITFIELD, Eleanor (Mrs)`, `Mrs Eleanor Whitfield`; dates of
birth, NHS numbers, hospital numbers, addresses and GPs on some pages and not others; a GP who
changes; now and then a page about another patient filed in the wrong document), and the
planted cases:

- mother and daughter of one name, with NHS numbers on both sides (two people by rule), and
  without on the daughter's (a possible duplicate to list);
- twins (one surname and date of birth), likewise;
- a surname misread by OCR, with the NHS number on the page (one person) and without (listed);
- a married name with the same NHS number (one person);
- two patients of one name and date of birth with different NHS numbers (two people, never one);
- a page whose date of birth has day and month swapped, no number (listed);
- a misread name a person corrected in `.overrides.json` (one person).

Writes OUT/pdf/<path>.pdf (one small page each, for `yiana import`), OUT/addresses/ (the
address files, to copy into the library's `.addresses/`) and OUT/truth.json: each document's
path and, for each of its mentions (page 0: its file or folder name), the true patient; the
patients; the planted pairs that must be listed and those that must not be one.

Python's standard library only.

Usage: Scripts/generate/people.py OUT [--patients 300] [--documents 2000] [--seed 1]
"""
import argparse
import json
import os
import random

FIRST = {"F": ["Eleanor", "Margaret", "Susan", "Amy", "Beth", "Claire", "Joan", "Fatima", "Priya", "Zoe", "Sian", "Grace", "Olivia",
               "Hannah", "Ruth", "Aisha", "Chloe", "Irene", "Kate", "Lucy", "Mary", "Nina", "Rosa", "Tara", "Wendy", "Yvonne"],
         "M": ["John", "David", "Peter", "Mark", "Tom", "Ben", "Ali", "Raj", "Sean", "Owen", "Colin", "Derek", "Ian", "Kevin",
               "Liam", "Neil", "Oscar", "Paul", "Ravi", "Steven", "Victor", "Wayne", "Adam", "Brian", "Carl", "Gareth"]}
SURNAMES = ["Whitfield", "Okonkwo", "Patel", "Smith", "Jones", "O'Brien", "Melo-Cruz", "Nash", "Hartley", "Llewellyn", "Ahmed",
            "Brennan", "Castle", "Dunmore", "Ellison", "Fairweather", "Gallagher", "Hussain", "Ingram", "Jenkins", "Kowalski", "Lindqvist",
            "MacLeod", "Nwosu", "Osborne", "Pritchard", "Quayle", "Rahman", "Sutherland", "Thornton", "Underwood", "Vaughan", "Wainwright",
            "Yeoman", "Zielinski", "Abbott", "Barraclough", "Chowdhury", "Donnelly", "Ekwueme", "Fitzgerald", "Greenwood", "Haddad"]
STREETS = ["High Street", "Church Lane", "Mill Road", "Station Road", "Park Avenue", "Victoria Street", "The Crescent", "Meadow Way"]
TOWNS = [("LS6", "Leeds"), ("M14", "Manchester"), ("RH1", "Redhill"), ("BS7", "Bristol"), ("CF24", "Cardiff"), ("NE4", "Newcastle")]
PRACTICES = ["Meadowbank Surgery", "Park Road Medical Centre", "The Health Centre", "Riverside Practice", "Elm Tree Surgery"]
GP_NAMES = ["Dr A Patel", "Dr R Fisher", "Dr S Keane", "Dr M Lopez", "Dr J Osei", "Dr H Bloom", "Dr T Novak", "Dr C Finch"]
MISREAD = {"l": "1", "e": "c", "m": "rn", "o": "0", "i": "l", "h": "b", "u": "ii"}


def nhs_number(rng):
    while True:
        digits = [rng.randint(4, 7)] + [rng.randint(0, 9) for _ in range(8)]
        check = 11 - sum(d * (10 - i) for i, d in enumerate(digits)) % 11
        check = 0 if check == 11 else check
        if check != 10:
            s = "".join(map(str, digits + [check]))
            return f"{s[:3]} {s[3:6]} {s[6:]}"


class Library:
    def __init__(self, rng):
        self.rng = rng
        self.patients = {}
        self.documents = []  # {path, title, mentions: [(page, pid)], pages: [...], overrides: [...]}
        self.listed = []     # planted pairs that must be listed (pid, pid, kind)
        self.apart = []      # planted pairs that must never be one person
        self.gps = [(g, rng.choice(PRACTICES), self.postcode()) for g in GP_NAMES]
        self.used_names = set()
        self.counter = 0

    def postcode(self):
        district, town = self.rng.choice(TOWNS)
        return f"{district} {self.rng.randint(1, 9)}{self.rng.choice('ABDEFGHJLNPQRSTUWXYZ')}{self.rng.choice('ABDEFGHJLNPQRSTUWXYZ')}", town

    def patient(self, first=None, surname=None, dob=None, nhs=True, like=None):
        rng = self.rng
        sex = rng.choice("FM")
        for attempt in range(50):
            if first is not None and surname is not None:
                break
            f, s = rng.choice(FIRST[sex]), rng.choice(SURNAMES)
            # Unique names while there are some to spare; then shared, as in a large clinic.
            if (f, s) not in self.used_names or attempt == 49:
                first, surname = f, s
        self.used_names.add((first, surname))
        pid = f"P{len(self.patients) + 1:05d}"
        postcode, town = (like["postcode"], like["town"]) if like else self.postcode()
        self.patients[pid] = {
            "id": pid, "first": first, "surname": surname, "title": rng.choice(["Mrs", "Ms", "Miss"] if sex == "F" else ["Mr"]),
            "dob": dob or f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1930, 2015)}",
            "nhs": nhs_number(rng) if nhs else None, "mrn": f"H{rng.randint(100000, 999999)}" if rng.random() < 0.6 else None,
            "line_1": like["line_1"] if like else f"{rng.randint(1, 200)} {rng.choice(STREETS)}", "town": town, "postcode": postcode,
            "gps": [rng.choice(self.gps)] + ([rng.choice(self.gps)] if rng.random() < 0.3 else []),
        }
        return pid

    def written(self, p, name=None):
        first, surname = (name or (p["first"], p["surname"]))
        return self.rng.choice([f"{first} {surname}", f"{p['title']} {first} {surname}", f"{surname.upper()}, {first} ({p['title']})",
                                f"{surname.upper()} {first}", f"{p['title']} {first} {surname.upper()}"])

    def page(self, number, p, *, name=None, dob=None, nhs=None, mrn=True, gp_index=0):
        rng = self.rng
        entry = {"page_number": number, "address_type": "patient", "extraction": {"method": rng.choice(["letter", "form", "label"]), "confidence": 0.8},
                 "patient": {"full_name": self.written(p, name), "phones": {"home": None, "work": None, "mobile": None}, "mrn": None}}
        if rng.random() < 0.95 or dob:
            entry["patient"]["date_of_birth"] = dob or p["dob"]
        number_given = nhs if nhs is not None else (p["nhs"] if rng.random() < 0.6 else None)
        if number_given:
            entry["patient"]["nhs_number"] = number_given
        if mrn and p["mrn"] and rng.random() < 0.4:
            entry["patient"]["mrn"] = p["mrn"]
        if rng.random() < 0.8:
            entry["address"] = {"line_1": p["line_1"], "city": p["town"], "postcode": p["postcode"]}
        if rng.random() < 0.7:
            gp, practice, (postcode, _) = p["gps"][min(gp_index, len(p["gps"]) - 1)]
            entry["gp"] = {"name": gp, "practice": practice, "postcode": postcode}
        return entry

    def name_for(self, p, suffix=""):
        d, m, y = p["dob"].split("/")
        return f"{p['surname']}_{p['first']}_{d}{m}{y[2:]}{suffix}"

    def document(self, pid, *, pages=None, named=None, folder=None, extra=None, overrides=None):
        """A document of patient `pid`; `pages`: page entries (made when None)."""
        rng = self.rng
        p = self.patients[pid]
        self.counter += 1
        title = named or rng.choice([f"Scan {self.counter:05d}", f"Referral {self.counter}", f"Clinic letter {self.counter}", f"Results {self.counter}"])
        if pages is None:
            pages = [self.page(n, p, gp_index=(1 if n > 1 and rng.random() < 0.5 else 0)) for n in range(1, rng.randint(1, 3) + 1)]
        mentions = [(e["page_number"], pid) for e in pages]
        if folder or (named or "").startswith(f"{p['surname']}_{p['first']}_"):
            mentions.append((0, pid))
        for entry, other in extra or []:
            pages.append(entry)
            mentions.append((entry["page_number"], other))
        path = f"{folder}/{title}.yianazip" if folder else f"{title}.yianazip"
        self.documents.append({"path": path, "title": title, "mentions": mentions, "pages": pages, "overrides": overrides or []})
        return path


def plant(lib):
    rng = lib.rng
    # Mother and daughter: numbers on both (two people), then without on the daughter (listed).
    for with_numbers in (True, False):
        mother = lib.patient(first="Eleanor", surname="Whitfield" if with_numbers else "Hartley", dob=f"14/03/195{2 if with_numbers else 4}")
        daughter = lib.patient(first="Eleanor", surname=lib.patients[mother]["surname"], dob=f"22/07/197{9 if with_numbers else 8}",
                               nhs=with_numbers, like=lib.patients[mother])
        for pid in (mother, daughter):
            p = lib.patients[pid]
            lib.document(pid, pages=[lib.page(1, p, nhs=p["nhs"] or "", mrn=False)])
        (lib.apart if with_numbers else lib.listed).append((mother, daughter, "mother and daughter"))
    # Twins.
    for with_numbers in (True, False):
        a = lib.patient(first="Amy", surname="Castle" if with_numbers else "Dunmore", dob="01/01/1990" if with_numbers else "02/02/1991")
        b = lib.patient(first="Beth", surname=lib.patients[a]["surname"], dob=lib.patients[a]["dob"], nhs=with_numbers, like=lib.patients[a])
        for pid in (a, b):
            p = lib.patients[pid]
            lib.document(pid, pages=[lib.page(1, p, nhs=p["nhs"] or "", mrn=False)])
        (lib.apart if with_numbers else lib.listed).append((a, b, "twins"))
    # Same name and date of birth, different NHS numbers: never one person.
    a = lib.patient(first="John", surname="Smith", dob="01/06/1950")
    b = lib.patient(first="John", surname="Smith", dob="01/06/1950")
    for pid in (a, b):
        p = lib.patients[pid]
        lib.document(pid, pages=[lib.page(1, p, nhs=p["nhs"], mrn=False)], named=lib.name_for(p, f"_{pid[-2:]}"))
    lib.apart.append((a, b, "same name and birth date, different NHS numbers"))


def split_cases(lib, pid):
    """The hard cases of one patient's own documents: a misread surname, a married name, a
    swapped date of birth, a corrected name. Returns the kinds planted."""
    rng = lib.rng
    p = lib.patients[pid]
    kind = rng.choice(["misread", "misread-bare", "married", "swapped", "corrected"])
    surname = p["surname"]
    letter = next((c for c in surname[1:] if c in MISREAD), None)
    if kind.startswith("misread") and letter:
        misread = surname[0] + surname[1:].replace(letter, MISREAD[letter], 1)
        bare = kind == "misread-bare"
        lib.document(pid, pages=[lib.page(1, p, name=(p["first"], misread), nhs=("" if bare else p["nhs"]), mrn=not bare)])
        return ["misread surname, split and listed"] if bare else []
    if kind == "married" and p["nhs"]:
        lib.document(pid, pages=[lib.page(1, p, name=(p["first"], "Marsh"), nhs=p["nhs"], mrn=False)])
        return []
    if kind == "swapped":
        d, m, y = p["dob"].split("/")
        if d != m and int(d) <= 12:
            lib.document(pid, pages=[lib.page(1, p, dob=f"{m}/{d}/{y}", nhs="", mrn=False)])
            return ["birth date swapped, split and listed"]
        return []
    if kind == "corrected" and letter:
        misread = surname[0] + surname[1:].replace(letter, MISREAD[letter], 1)
        entry = lib.page(1, p, name=(p["first"], misread), nhs="", mrn=False)
        correction = {"page_number": 1, "match_address_type": "patient", "address_type": "patient", "is_dismissed": False,
                      "override_date": "2026-03-02T10:00:00Z", "patient": {"full_name": f"{p['first']} {surname}", "date_of_birth": p["dob"]}}
        lib.document(pid, pages=[entry], overrides=[correction])
    return []


def generate(lib, patients, documents):
    rng = lib.rng
    plant(lib)
    while len(lib.patients) < patients:
        lib.patient(nhs=rng.random() < 0.85)
    pids = sorted(lib.patients)
    # Every patient one document at least; the app's name for 70%, a folder for 15%.
    for pid in pids:
        p = lib.patients[pid]
        roll = rng.random()
        if roll < 0.7:
            lib.document(pid, named=lib.name_for(p, rng.choice(["", "", "", "_letter", "_2"])))
        elif roll < 0.85:
            lib.document(pid, folder=lib.name_for(p), named=f"Referral {lib.counter + 1}")
        else:
            lib.document(pid)
    kinds = []
    while len(lib.documents) < documents:
        pid = rng.choice(pids)
        roll = rng.random()
        if roll < 0.05:
            kinds += split_cases(lib, pid)
        elif roll < 0.08:
            other = rng.choice(pids)
            if other != pid and lib.patients[other]["dob"] != lib.patients[pid]["dob"]:
                q = lib.patients[other]
                lib.document(pid, named=lib.name_for(lib.patients[pid], f"_{lib.counter}"), extra=[(lib.page(9, q, nhs=q["nhs"] or ""), other)])
        else:
            lib.document(pid)
    return kinds


def minimal_pdf(text):
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def write(lib, out):
    for document in lib.documents:
        pdf = os.path.join(out, "pdf", document["path"][: -len(".yianazip")] + ".pdf")
        os.makedirs(os.path.dirname(pdf), exist_ok=True)
        with open(pdf, "wb") as f:
            f.write(minimal_pdf(f"Document {document['title']}"))
        folder = os.path.join(out, "addresses")
        os.makedirs(folder, exist_ok=True)
        extraction = {"schema_version": 1, "document_id": document["title"], "extracted_at": "2026-03-01T09:00:00Z",
                      "page_count": max([e["page_number"] for e in document["pages"]] + [1]), "pages": document["pages"], "overrides": []}
        with open(os.path.join(folder, document["title"] + ".json"), "w") as f:
            json.dump(extraction, f, indent=2, sort_keys=True)
        if document["overrides"]:
            with open(os.path.join(folder, document["title"] + ".overrides.json"), "w") as f:
                json.dump({"schema_version": 1, "document_id": document["title"], "overrides": document["overrides"]}, f, indent=2, sort_keys=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--patients", type=int, default=300)
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    lib = Library(random.Random(args.seed))
    kinds = generate(lib, args.patients, args.documents)
    write(lib, args.out)
    truth = {"patients": lib.patients, "listed": lib.listed, "apart": lib.apart, "split_cases": kinds,
             "documents": [{"path": d["path"], "mentions": d["mentions"]} for d in lib.documents]}
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
    print(f"{len(lib.patients)} patients, {len(lib.documents)} documents, {len(lib.listed)} planted pairs to list, "
          f"{len(lib.apart)} never to merge, {len(kinds)} planted splits", flush=True)


if __name__ == "__main__":
    main()
