#!/usr/bin/env python3
"""Clinic letters with known people in them, for `yiana extract` (issue 53).

Writes OUT/pdf/<name>.pdf and OUT/truth.json: every letter's patient (name, date of birth,
MRN, NHS number, address, phone), GP, other recipients and signer, so that what `yiana
extract` finds can be scored field by field (Scripts/bench/letters.sh).

- The app's own letters (--app N): laid out as the Yiana app's letter module renders them
  (Scripts/generate/letters/app-letter.typ, written from lh/Yiana's letter spec and template),
  each in its three copies: the patient's ("Dear Mrs Smith,"), a GP's or an optician's copy
  and the hospital-records copy (the one the inject folder appends to the patient's
  document); some run to a second page.
- Other hospitals' letters (--other N): a trust's letterhead, the addressee in the window (the
  patient, or the GP), a Re: line, a labelled block ("Patient:", "Name:") or none, hospital
  and NHS numbers, "Yours sincerely" with the signer's name and role, cc: lines
  (Scripts/generate/letters/hospital-letter.typ).
- Scans (--scans N): that many of the letters again as page images (pdftoppm, 300 dpi,
  grey) in an image-only PDF, for `yiana ocr` to recognise as a scanner's would be.

Names: titles, hyphenated and apostrophe surnames; addresses of 2-5 lines with and without a
county, at postcodes whose sector the shipped table knows (the town and county are the
table's); bodies that name other people and other addresses. Typst from PyPI renders them:
Scripts/bench/letters.sh makes its virtual environment (.build/typst-venv).

Usage: .build/typst-venv/bin/python Scripts/generate/letters.py OUT [--app 40] [--other 24]
       [--scans 12] [--seed 53] [--scan-dpi 300]
       .build/typst-venv/bin/python Scripts/generate/letters.py SampleDocs/letters --samples
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import typst

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SECTORS = os.path.join(ROOT, "Sources", "YianaExtract", "Data", "postcode-sectors.tsv")

FIRST = {"F": ["Jane", "Margaret", "Aisha", "Siobhan", "Priya", "Eleanor", "Grace", "Olwen", "Mary-Anne", "Chloe", "Fatima",
               "Joan", "Beatrice", "Zofia", "Imogen", "Ruth", "Nkechi", "Harriet"],
         "M": ["John", "Peter", "Rajesh", "Declan", "Tomasz", "William", "Oliver", "Kwame", "Jean-Luc", "Arthur", "Hamish",
               "George", "Dylan", "Ibrahim", "Stanley", "Rhys", "Callum", "Edward"]}
SURNAMES = ["Smith", "Hartley", "O'Brien", "Anderson-Dixon", "Okonkwo", "D'Souza", "Fairweather", "MacLeod", "Nowak",
            "Patel-Shah", "Whitmore", "O'Neill", "Bradshaw", "Llewellyn", "Ashworth", "St John", "Kowalczyk",
            "Featherstonehaugh", "Ng", "Cole", "Greaves", "Ellis-Morgan", "Daly", "Pemberton", "Rahman", "Quigley",
            "Thistlethwaite", "Mbeki", "Sandoval", "Hughes"]
STREETS = ["Oak Lane", "Church Road", "Station Road", "Mill Lane", "Victoria Avenue", "Orchard Close", "The Crescent",
           "Meadow Way", "Kingsway", "Priory Gardens", "Chestnut Grove", "High Street", "Bell Street", "Canterbury Road",
           "St Mary's Walk", "Foxglove Drive", "Beech Court", "Queens Terrace", "Holly Rise", "Park View"]
HOUSES = ["Rose Cottage", "The Old Forge", "Mill House", "Willow Barn", "Ivy Lodge", "Hillcrest Farm"]
LOCALITIES = ["Little Snoring", "Upper Beeding", "Nutfield", "Merstham", "Lower Kingswood", "South Park", "Woodhatch"]
GP_FIRST = ["A", "J", "S", "R", "M", "K", "Helen", "Anil", "Sarah", "David", "Olusegun", "Claire"]
GP_SURNAMES = ["Patel", "Shaw", "Okafor", "McKenzie", "Hughes", "Brennan", "Lim", "Fraser", "O'Connor", "Williams"]
PRACTICE_KINDS = ["Surgery", "Medical Centre", "Health Centre", "Medical Practice", "Family Practice"]
PRACTICE_HEADS = ["Thornton", "Riverside", "The Birches", "Oak Tree", "Whitehall", "Elmwood", "Station Road", "Holmhurst",
                  "Greystone", "Brockwood"]
OPTICIANS = [("Mr B Jones", "Reigate Opticians"), ("Ms K Adeyemi", "Vision Plus Optometrists"),
             ("Mrs L Carter", "Carter & Hale Opticians")]
CONSULTANTS = [("Mr Luke Herbert", "MBBS BSc FRCOphth", "Consultant Ophthalmologist", "Ophthalmology Department"),
               ("Mr L Arblaster", "FRCOphth", "Consultant Ophthalmologist", "Ophthalmology Department"),
               ("Dr Amelia Stone", "MD FRCP", "Consultant Cardiologist", "Department of Cardiology"),
               ("Miss Rachel Ogunleye", "FRCS (ORL-HNS)", "Consultant ENT Surgeon", ""),
               ("Professor David Marsh", "PhD FRCP", "Consultant Rheumatologist", "Rheumatology")]
HOSPITALS = [("East Surrey Hospital", ["Canada Avenue", "Redhill", "Surrey"], "RH1 5RH", "01737 768511"),
             ("Gatwick Park Hospital", ["Povey Cross Road", "Horley", "Surrey"], "RH6 0BB", "01293 785511"),
             ("Royal Sussex County Hospital", ["Eastern Road", "Brighton"], "BN2 5BE", "01273 696955"),
             ("St Peter's Hospital", ["Guildford Road", "Chertsey", "Surrey"], "KT16 0PZ", "01932 872000"),
             ("Frimley Park Hospital", ["Portsmouth Road", "Frimley", "Camberley"], "GU16 7UJ", "0300 614 5000")]
TRUSTS = ["Surrey and Sussex Healthcare NHS Trust", "University Hospitals Sussex NHS Foundation Trust",
          "Ashford and St Peter's Hospitals NHS Foundation Trust", "Frimley Health NHS Foundation Trust"]
SECRETARIES = ["Mrs J Davies", "Ms Liz Matthews", "Mr Tom Reeve"]
FONTS = ["New Computer Modern", "Libertinus Serif", "DejaVu Sans Mono"]
# The PDFs' creation date (3 March 2026): the same input gives the same bytes.
TIMESTAMP = 1772496000


def render(template, pdf, data=None, root=None):
    """Typst's PDF of `template` (a file in letters/, or a path) with `data` as sys.inputs.data."""
    path = template if os.path.isabs(template) else os.path.join(HERE, "letters", template)
    typst.compile(path, output=pdf, root=root, timestamp=TIMESTAMP, sys_inputs={"data": json.dumps(data)} if data is not None else {})


def sectors():
    """(sector, town, county) of every sector with a town, from the shipped table."""
    rows = []
    for line in open(SECTORS, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        sector, town, county = (line.rstrip("\n").split("\t") + ["", ""])[:3]
        if town:
            rows.append((sector, town, county))
    return rows


def nhs_number(rng):
    """A 10-digit NHS number with a valid modulus-11 check digit, as 3-3-4."""
    while True:
        digits = [rng.randint(0, 9) for _ in range(9)]
        digits[0] = rng.randint(4, 7)
        check = 11 - sum(d * (10 - i) for i, d in enumerate(digits)) % 11
        check = 0 if check == 11 else check
        if check != 10:
            s = "".join(map(str, digits + [check]))
            return f"{s[:3]} {s[3:6]} {s[6:]}"


def postcode_in(rng, sector):
    return f"{sector}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"


class People:
    def __init__(self, rng):
        self.rng = rng
        self.places = sectors()
        self.used = set()

    def place(self):
        sector, town, county = self.rng.choice(self.places)
        return postcode_in(self.rng, sector), town, county

    def patient(self):
        rng = self.rng
        while True:
            sex = rng.choice("FM")
            first, surname = rng.choice(FIRST[sex]), rng.choice(SURNAMES)
            if (first, surname) not in self.used:
                self.used.add((first, surname))
                break
        title = rng.choice(["Mrs", "Ms", "Miss", "Dr"] if sex == "F" else ["Mr", "Mr", "Dr"])
        postcode, town, county = self.place()
        shape = rng.choice(["street", "street", "street", "locality", "house", "flat"])
        street = f"{rng.randint(1, 220)}{rng.choice(['', '', '', 'A'])} {rng.choice(STREETS)}"
        lines = {"street": [street], "locality": [street, rng.choice(LOCALITIES)],
                 "house": [rng.choice(HOUSES), rng.choice(STREETS)], "flat": [f"Flat {rng.randint(1, 30)}", street]}[shape]
        with_county = bool(county) and rng.random() < 0.5
        year = rng.randint(1925, 2015)
        return {
            "title": title, "first": first, "surname": surname, "name": f"{first} {surname}",
            "dob": f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{year}",
            "mrn": rng.choice([f"H{rng.randint(100000, 999999)}", f"{rng.randint(0, 99999999):010d}", f"K{rng.randint(1000000, 9999999)}",
                               f"RH{rng.randint(10000000, 99999999)}"]),
            "nhs": nhs_number(rng),
            "lines": lines, "town": town, "county": county if with_county else "", "table_county": county, "postcode": postcode,
            "phone": rng.choice([f"01{rng.randint(200, 999)} {rng.randint(100000, 999999)}", f"07{rng.randint(100, 999)} {rng.randint(100000, 999999)}", ""]),
        }

    def gp(self):
        rng = self.rng
        postcode, town, county = self.place()
        head = rng.choice(PRACTICE_HEADS + [town])
        return {"name": f"Dr {rng.choice(GP_FIRST)} {rng.choice(GP_SURNAMES)}", "practice": f"{head} {rng.choice(PRACTICE_KINDS)}",
                "street": f"{rng.randint(1, 120)} {rng.choice(STREETS)}", "town": town, "postcode": postcode}

    def optician(self):
        name, practice = self.rng.choice(OPTICIANS)
        postcode, town, _ = self.place()
        return {"name": name, "practice": practice, "street": f"{self.rng.randint(1, 80)} {self.rng.choice(STREETS)}",
                "town": town, "postcode": postcode}


def body(rng, patient, people, paragraphs):
    """Prose that names other people and other places, as clinic letters do."""
    other = people.patient()
    relative = f"{rng.choice(['her', 'his'])} {rng.choice(['daughter', 'son', 'husband', 'wife', 'carer'])}, {other['title']} {other['name']}"
    moved = f"{rng.randint(2, 90)} {rng.choice(STREETS)}, {other['town']} {other['postcode']}"
    colleague = rng.choice(CONSULTANTS)
    sentences = [
        f"Thank you for asking me to see {patient['title']} {patient['surname']}, who attended the clinic today with {relative}.",
        f"{patient['first']} reports a gradual change over the last six months and has recently moved from {moved}.",
        "On examination the findings were stable and the pressures were within the normal range.",
        f"I have also written to my colleague {colleague[0]}, {colleague[2]}, who saw {patient['first']} last year.",
        "We discussed the options at length, including the risks and the expected benefits of treatment.",
        "I would be grateful if the repeat prescription could be continued at the current dose.",
        "I have arranged a review in the clinic in four months, sooner if there is any deterioration.",
    ]
    text = []
    for _ in range(paragraphs):
        rng.shuffle(sentences)
        text.append(" ".join(sentences[:4]))
    return "\n\n".join(text)


def truth(patient, gp=None, others=(), signer=None, sender=None, layout="", copy="", pages=1):
    address = patient["lines"]
    return {
        "layout": layout, "copy": copy, "pages": pages,
        "patient": {"full_name": patient["name"], "date_of_birth": patient["dob"], "mrn": patient.get("shown_mrn"),
                    "nhs_number": patient.get("shown_nhs"), "phone": patient.get("shown_phone") or None,
                    "line_1": address[0], "line_2": ", ".join(address[1:]) or None, "city": patient["town"],
                    "county": patient["county"] or patient["table_county"] or None, "postcode": patient["postcode"]},
        "gp": gp and {"name": gp["name"], "practice": gp["practice"], "postcode": gp["postcode"]},
        "others": [{"address_type": kind, "name": person["name"], "postcode": person["postcode"]} for kind, person in others],
        "not_patient": [n for n in (signer, sender) if n],
    }


def app_letter(rng, people, number, out):
    patient = people.patient()
    patient["shown_mrn"] = patient["mrn"]
    patient["shown_phone"] = patient["phone"]
    name, credentials, role, department = rng.choice(CONSULTANTS)
    hospital, address, postcode, phone = rng.choice(HOSPITALS)
    gp = people.gp()
    optician = people.optician() if rng.random() < 0.3 else None
    shown_address = patient["lines"] + [patient["town"]] + ([patient["county"]] if patient["county"] else []) + [patient["postcode"]]
    secretary = rng.choice(SECRETARIES)
    cc = [{"role": "cc", "name": gp["name"], "practice": gp["practice"], "address": [f"{gp['street']}, {gp['town']}", gp["postcode"]]}]
    if optician:
        cc.append({"role": "cc", "name": optician["name"], "practice": optician["practice"],
                   "address": [f"{optician['street']}, {optician['town']}", optician["postcode"]]})
    long = rng.random() < 0.25
    data = {
        "sender": {"name": f"{name} {credentials}", "role": role, "department": department, "hospital": hospital,
                   "address": address + [postcode], "phone": phone,
                   "secretary": {"name": secretary, "phone": f"{phone} ext {rng.randint(1000, 9999)}", "email": "secretaries@nhs.net"}},
        "patient": {"name": f"{patient['title']} {patient['name']}", "title": patient["title"], "surname": patient["surname"],
                    "dob": patient["dob"], "mrn": patient["mrn"], "address": shown_address,
                    "phones": [patient["phone"]] if patient["phone"] else []},
        "date": rng.choice(["Monday, 3rd March 2026", "Friday, 27th November 2026", "Wednesday, 21st January 2026"]),
        "body": body(rng, patient, people, 7 if long else 2),
        "signer": name,
        "cc": cc,
    }
    entries = []
    for copy in ["hospital_records", "cc", "to"]:
        data["copy"] = copy
        stem = f"app-{number:03d}-{copy}"
        pdf = os.path.join(out, "pdf", stem + ".pdf")
        render("app-letter.typ", pdf, data)
        pages = page_count(pdf)
        others = [("optician", optician)] if optician else []
        entries.append((stem, truth(patient, gp, others, name, f"{name} {credentials}", "app", copy, pages)))
    return entries


def hospital_letter(rng, people, number, out):
    patient = people.patient()
    name, credentials, role, department = rng.choice(CONSULTANTS)
    hospital, address, postcode, phone = rng.choice(HOSPITALS)
    gp = people.gp()
    to_gp = rng.random() < 0.5
    re_kind = rng.choice(["re-line", "re-block", "labelled", "caps"] + ([] if to_gp else ["none"]))
    full_title = f"{patient['title']} {patient['name']}"
    one_line_address = ", ".join(patient["lines"] + [patient["town"]] + ([patient["county"]] if patient["county"] else [])) + " " + patient["postcode"]
    window_patient = [full_title] + patient["lines"] + [patient["town"]] + ([patient["county"]] if patient["county"] else []) + [patient["postcode"]]
    window_gp = [gp["name"], gp["practice"], gp["street"], gp["town"], gp["postcode"]]
    show_nhs = rng.random() < 0.8
    show_mrn = rng.random() < 0.8 or not show_nhs
    patient["shown_nhs"] = patient["nhs"] if show_nhs else None
    patient["shown_mrn"] = patient["mrn"] if show_mrn else None
    patient["shown_phone"] = patient["phone"] if rng.random() < 0.5 else ""
    numbers = ([f"Hospital No: {patient['mrn']}"] if show_mrn else []) + ([f"NHS No: {patient['nhs']}"] if show_nhs else []) + \
              ([f"Tel: {patient['shown_phone']}"] if patient["shown_phone"] else [])
    gp_surname = gp["name"].split()[-1]
    if re_kind == "re-line":
        re = [f"Re: {full_title}, DOB {patient['dob']}, " + ", ".join(numbers), one_line_address]
    elif re_kind == "re-block":
        re = [f"RE: {full_title}   DOB: {patient['dob']}", "   ".join(numbers), one_line_address]
    elif re_kind == "labelled":
        re = [f"Patient: {full_title}", f"Date of birth: {patient['dob']}"] + \
             ([f"Hospital number: {patient['mrn']}"] if show_mrn else []) + ([f"NHS number: {patient['nhs']}"] if show_nhs else []) + \
             [f"Address: {one_line_address}"] + ([f"Telephone: {patient['shown_phone']}"] if patient["shown_phone"] else [])
    elif re_kind == "caps":
        re = [f"RE: {patient['name'].upper()}  D.O.B. {patient['dob'].replace('/', '.')}  " + "  ".join(numbers).upper(),
              one_line_address.upper()]
    else:
        re = []
    refs = [rng.choice(["Monday 3 March 2026", "27 November 2026", "21/01/2026"]), f"Our ref: {rng.choice('ABCDEFG')}{rng.randint(10, 99)}/{rng.randint(1000, 9999)}"]
    if re_kind == "none":
        refs += [f"DOB: {patient['dob']}"] + numbers  # a letter to the patient, its numbers in the reference block
    others = []
    cc = []
    if to_gp:
        salutation = f"Dear Dr {gp_surname},"
        cc.append(f"cc: {full_title}, {one_line_address}")
    else:
        salutation = f"Dear {patient['title']} {patient['surname']},"
        cc.append(f"cc: {gp['name']}, {gp['practice']}, {gp['street']}, {gp['town']} {gp['postcode']}")
    if rng.random() < 0.3:
        optician = people.optician()
        others.append(("optician", optician))
        cc.append(f"cc: {optician['name']}, {optician['practice']}, {optician['street']}, {optician['town']} {optician['postcode']}")
    trust = rng.choice(TRUSTS)
    head = [trust, hospital, department or role.replace("Consultant ", "") + " Service"] + address + [postcode, f"Tel: {phone}"]
    data = {
        "font": rng.choice(FONTS), "letterhead-side": rng.choice(["right", "centre"]),
        "letterhead": head if rng.random() < 0.5 else [hospital] + address + [postcode, f"Switchboard: {phone}"],
        "window": window_gp if to_gp else window_patient, "refs": refs,
        "salutation": salutation, "re": re, "re-before-dear": rng.random() < 0.4,
        "body": body(rng, patient, people, 2),
        "closing": rng.choice(["Yours sincerely,", "Yours sincerely", "Kind regards,", "Yours faithfully,"]),
        "signer": f"{name} {credentials}" if rng.random() < 0.5 else name,
        "signer-lines": [role, department or hospital],
        "cc": cc,
        "footer": rng.choice([None, f"{trust} · {hospital}, {', '.join(address)} {postcode} · Chair: Sir Ian Mortimer"]),
    }
    stem = f"other-{number:03d}-{re_kind}-{'to-gp' if to_gp else 'to-patient'}"
    pdf = os.path.join(out, "pdf", stem + ".pdf")
    render("hospital-letter.typ", pdf, data)
    return [(stem, truth(patient, gp, others, name, f"{name} {credentials}", "other-" + re_kind, "to-gp" if to_gp else "to-patient"))]


def samples(out):
    """SampleDocs/letters: the spec's own example letter (Mrs Jane Smith, `Smith_Jane_120345`) as
    the app renders its hospital-records copy, the one the inject folder appends; and a letter
    from another hospital to her GP."""
    os.makedirs(out, exist_ok=True)
    rng = random.Random(12)
    patient = {"title": "Mrs", "first": "Jane", "surname": "Smith", "name": "Jane Smith"}
    text = body(rng, patient, People(rng), 6)
    sender = {"name": "Mr L Arblaster FRCOphth", "role": "Consultant Ophthalmologist", "department": "Ophthalmology Department",
              "hospital": "East Surrey Hospital", "address": ["Canada Avenue", "Redhill", "Surrey", "RH1 5RH"], "phone": "01737 768511",
              "secretary": {"name": "Mrs J Davies", "phone": "01737 768511 ext 1234", "email": "j.davies@nhs.net"}}
    data = {"sender": sender, "copy": "hospital_records",
            "patient": {"name": "Mrs Jane Smith", "title": "Mrs", "surname": "Smith", "dob": "12/03/1945", "mrn": "H123456",
                        "address": ["14 Oak Lane", "Reigate", "Surrey", "RH2 7AA"], "phones": ["01737 123456"]},
            "date": "Tuesday, 3rd March 2026", "body": text, "signer": "Mr L Arblaster",
            "cc": [{"role": "cc", "name": "Dr A Patel", "practice": "Reigate Medical Centre", "address": ["12 High Street, Reigate", "RH2 9AE"]},
                   {"role": "cc", "name": "Mr B Jones", "practice": "Reigate Opticians", "address": ["5 Bell Street, Reigate", "RH2 7AB"]}]}
    render("app-letter.typ", os.path.join(out, "Smith_Jane_120345 letter, hospital records copy.pdf"), data)
    other = {"font": "Libertinus Serif", "letterhead-side": "right",
             "letterhead": ["Surrey and Sussex Healthcare NHS Trust", "East Surrey Hospital", "Department of Cardiology", "Canada Avenue",
                            "Redhill", "RH1 5RH", "Tel: 01737 768511"],
             "window": ["Dr A Patel", "Reigate Medical Centre", "12 High Street", "Reigate", "RH2 9AE"],
             "refs": ["27 November 2026", "Our ref: AS/2231"], "salutation": "Dear Dr Patel,", "re-before-dear": False,
             "re": ["Re: Mrs Jane Smith, DOB 12/03/1945, Hospital No: H123456, NHS No: 943 476 5919", "14 Oak Lane, Reigate, Surrey RH2 7AA"],
             "body": text.split("\n\n")[0], "closing": "Yours sincerely,", "signer": "Dr Amelia Stone MD FRCP",
             "signer-lines": ["Consultant Cardiologist", "Department of Cardiology"], "cc": ["cc: Mrs Jane Smith, 14 Oak Lane, Reigate, Surrey RH2 7AA"],
             "footer": "Surrey and Sussex Healthcare NHS Trust · East Surrey Hospital, Canada Avenue, Redhill RH1 5RH"}
    render("hospital-letter.typ", os.path.join(out, "Cardiology letter to the GP.pdf"), other)
    print(f"2 sample letters in {out}")


def page_count(pdf):
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def scan(pdf, out_pdf, rng, dpi=300):
    """The PDF as a scanner gives it: each page a grey image (300 dpi), no text."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-png", pdf, os.path.join(tmp, "p")], check=True)
        images = sorted(f for f in os.listdir(tmp) if f.endswith(".png"))
        source = "#set page(width: 210mm, height: 297mm, margin: 0pt)\n" + "\n#pagebreak()\n".join(
            f'#image("{f}", width: 100%, height: 100%)' for f in images)
        with open(os.path.join(tmp, "scan.typ"), "w") as f:
            f.write(source)
        render(os.path.join(tmp, "scan.typ"), out_pdf, root=tmp)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--app", type=int, default=40)
    parser.add_argument("--other", type=int, default=24)
    parser.add_argument("--scans", type=int, default=12)
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--scan-dpi", type=int, default=300, help="the scans' resolution (lower: more for OCR to misread)")
    parser.add_argument("--samples", action="store_true", help="write SampleDocs/letters' two letters to OUT instead")
    args = parser.parse_args()
    if args.samples:
        return samples(args.out)
    rng = random.Random(args.seed)
    people = People(rng)
    os.makedirs(os.path.join(args.out, "pdf"), exist_ok=True)
    letters = {}
    for n in range(args.app):
        letters.update(app_letter(rng, people, n + 1, args.out))
    for n in range(args.other):
        letters.update(hospital_letter(rng, people, n + 1, args.out))
    # Scans: half of them app letters' hospital-records copies, half other hospitals'.
    app = [s for s in letters if s.startswith("app-") and s.endswith("hospital_records")]
    other = [s for s in letters if s.startswith("other-")]
    chosen = app[: args.scans // 2] + other[: args.scans - args.scans // 2]
    for stem in chosen:
        scan(os.path.join(args.out, "pdf", stem + ".pdf"), os.path.join(args.out, "pdf", stem + "-scan.pdf"), rng, args.scan_dpi)
        letters[stem + "-scan"] = dict(letters[stem], scan=True)
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(letters, f, indent=1, sort_keys=True)
    print(f"{len(letters)} letters ({args.app} of the app's in three copies, {args.other} of other hospitals', {len(chosen)} scanned) in {args.out}")


if __name__ == "__main__":
    sys.exit(main())
