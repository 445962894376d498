#!/usr/bin/env python3
"""Clinical paperwork in layouts drawn at random, with known people in them (issue 76).

Where Scripts/generate/letters.py repeats two layouts, this one draws each document from its
parts: who sends it (a hospital consultant, an electronic record's letter, a GP practice, an
optometrist, a clinic's summary), whom it is to (the GP, the patient, a consultant, no one),
how the patient's details are set out (a `Re:` line, labelled lines, a two-column table with
or without rules, labels above their values in form boxes, `Surname` / `Forename(s)` /
`Title` fields, a reference column beside the window, a details block beside the
consultant's), where the GP is named (a `GP:` label, a table row, the window, a `cc:` line,
the letterhead of a letter the GP sends), the label words (each field's synonyms), the name
and date formats, one-line or multi-line addresses, the people who are not the patient (the
GP, the consultant, the optometrist, the secretary, a relative named in the body with an
address of their own), the letterhead's and footer's places and the fonts. Each draw's
choices are its layout key; documents are grouped into families by who sends them.

Writes OUT/pdf/<name>.pdf and OUT/truth.json (per document: its family, layout key, pages,
the patient, the GP, the names that are not the patient). --scans N makes N of them again as
page images (200 dpi, grey, a little rotated, specks, blur) in image-only PDFs named
<name>-scan.pdf, for `yiana ocr` to read as a scanner's.

Typst and Pillow from PyPI: Scripts/bench/layouts.sh makes the virtual environment.

Usage: .build/typst-venv/bin/python Scripts/generate/layouts.py OUT [--count 1000] [--scans 100] [--seed 1]
"""
import argparse
import io
import json
import os
import random
import sys
import tempfile

import typst

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from letters import People, nhs_number, TIMESTAMP, STREETS, GP_SURNAMES, CONSULTANTS, HOSPITALS, TRUSTS, SECRETARIES  # noqa: E402

FONTS = ["New Computer Modern", "Libertinus Serif", "DejaVu Sans Mono", "DejaVu Sans", "DejaVu Serif"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
# The label words of each field, as UK clinical paperwork writes them (the reader's lexicon must not be tuned on these alone).
LABELS = {
    "name": ["Patient", "Patient name", "Name", "Patient Name", "Full name"],
    "surname": ["Surname", "Family name", "Last name"],
    "forename": ["Forename(s)", "Forenames", "First name(s)", "Forename", "Given name"],
    "title": ["Title"],
    "dob": ["Date of birth", "DOB", "D.O.B.", "Date of Birth", "Born"],
    "mrn": ["Hospital number", "Hosp No", "Hospital No", "MRN", "Unit number", "Case note number", "K number", "Hospital Number"],
    "nhs": ["NHS number", "NHS No", "NHS No.", "NHS Number"],
    "address": ["Address", "Home address", "Patient address"],
    "postcode": ["Postcode", "Post code"],
    "phone": ["Telephone", "Tel", "Phone", "Mobile", "Tel No"],
    "gp": ["GP", "Registered GP", "GP name and address", "General Practitioner", "GP details"],
}
RELATIVES = ["daughter", "son", "husband", "wife", "carer", "sister", "neighbour"]
OPTOMETRISTS = [("Mr Ben Jones", "Reigate Opticians"), ("Ms Kemi Adeyemi", "Vision Plus Optometrists"),
                ("Mrs Laura Carter", "Carter & Hale Opticians"), ("Mr Sunil Mehta", "Mehta Eyecare")]
TYPISTS = ["JD", "lm", "TR/ak", "SB"]


class Patients(People):
    """`People` whose names may come again once most have been drawn: a run of a thousand
    documents draws two people each (the patient and a relative) from 1,080 names."""

    def patient(self):
        if len(self.used) > 900:
            self.used.clear()
        return super().patient()


def s(text):
    """`text` as a Typst string in markup: nothing in it is read as markup."""
    return '#"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def q(text):
    """`text` as a Typst string where code is expected (a function's argument)."""
    return s(text)[1:]


def lines(items):
    """Typst markup of `items`, one a line."""
    return " \\\n".join(s(i) for i in items)


def date_text(rng, day, month, year, style=None):
    style = style or rng.choice(["slash", "dots", "long", "short-month", "dash-month", "iso"])
    return {"slash": f"{day:02d}/{month:02d}/{year}", "dots": f"{day:02d}.{month:02d}.{year}",
            "long": f"{day} {MONTHS[month - 1]} {year}", "short-month": f"{day} {MONTHS[month - 1][:3]} {year}",
            "dash-month": f"{day:02d}-{MONTHS[month - 1][:3]}-{year}", "iso": f"{year}-{month:02d}-{day:02d}"}[style], style


def name_text(rng, p, style=None):
    style = style or rng.choice(["title-first-surname", "caps-comma-title", "caps-comma", "caps-first", "first-caps", "title-first-caps", "all-caps"])
    up = p["surname"].upper()
    return {"title-first-surname": f"{p['title']} {p['first']} {p['surname']}",
            "caps-comma-title": f"{up}, {p['first']} ({p['title']})", "caps-comma": f"{up}, {p['first']}",
            "caps-first": f"{up} {p['first']}", "first-caps": f"{p['first']} {up}",
            "title-first-caps": f"{p['title']} {p['first']} {up}", "all-caps": f"{p['first'].upper()} {up}"}[style], style


class Draw:
    """One document's choices, recorded as its layout key."""

    def __init__(self, rng):
        self.rng = rng
        self.key = []

    def pick(self, name, options, weights=None):
        value = self.rng.choices(options, weights=weights)[0] if weights else self.rng.choice(options)
        self.key.append(f"{name}={value}")
        return value

    def chance(self, name, p):
        value = self.rng.random() < p
        self.key.append(f"{name}={'y' if value else 'n'}")
        return value


def label(draw, field, rng):
    word = rng.choice(LABELS[field])
    return word + draw.punct


def address_lines(p):
    return p["lines"] + [p["town"]] + ([p["county"]] if p["county"] else []) + [p["postcode"]]


def gp_lines(gp):
    return [gp["name"], gp["practice"], gp["street"], gp["town"], gp["postcode"]]


def body(rng, p, relative, consultant):
    sentences = [
        f"I saw {p['title']} {p['surname']} in clinic today, accompanied by {relative['who']}.",
        f"{relative['name']} has recently moved to {relative['address']} and will help with transport.",
        "On examination the findings were stable and the pressures were within the normal range.",
        f"My colleague {consultant} reviewed the imaging and agreed with the plan.",
        "We discussed the options, including the risks and the expected benefits of treatment.",
        "I would be grateful if the repeat prescription could be continued at the current dose.",
        "A review has been arranged in four months, sooner if there is any deterioration.",
    ]
    rng.shuffle(sentences)
    return [" ".join(sentences[:4]), " ".join(sentences[4:])]


def details_rows(draw, rng, p, fields):
    """(label, value lines) for the patient's details, in the draw's formats."""
    rows = []
    for field in fields:
        if field == "name":
            rows.append((label(draw, "name", rng), [draw.name]))
        elif field == "split-name":
            rows += [(label(draw, "surname", rng), [p["surname"].upper() if draw.caps else p["surname"]]),
                     (label(draw, "forename", rng), [p["first"]]), (label(draw, "title", rng), [p["title"]])]
        elif field == "dob":
            rows.append((label(draw, "dob", rng), [draw.dob]))
        elif field == "mrn" and p["shown_mrn"]:
            rows.append((label(draw, "mrn", rng), [p["mrn"]]))
        elif field == "nhs" and p["shown_nhs"]:
            rows.append((label(draw, "nhs", rng), [p["nhs"]]))
        elif field == "address":
            if draw.address_split:
                rows.append((label(draw, "address", rng), address_lines(p)[:-1]))
                rows.append((label(draw, "postcode", rng), [p["postcode"]]))
            elif draw.one_line:
                rows.append((label(draw, "address", rng), [", ".join(address_lines(p)[:-1]) + " " + p["postcode"]]))
            else:
                rows.append((label(draw, "address", rng), address_lines(p)))
        elif field == "phone" and p["shown_phone"]:
            rows.append((label(draw, "phone", rng), [p["phone"]]))
    return rows


def render_rows(draw, rows, style):
    """The rows as the draw sets them out: a table (ruled or not), a label column beside the values, labels above values
    in boxes, or `Label: value` lines."""
    if style == "inline":
        out = []
        for lab, values in rows:
            out.append(s(f"{lab} {values[0]}") + "".join(" \\\n" + s(v) for v in values[1:]))
        return " \\\n".join(out)
    if style in ("table-ruled", "table-plain", "label-column"):
        stroke = "0.5pt" if style == "table-ruled" else "none"
        cells = ", ".join(f"[{s(lab)}], [{lines(values)}]" for lab, values in rows)
        return f"#table(columns: (auto, auto), stroke: {stroke}, inset: (x: 4pt, y: 3pt), align: left, {cells})"
    if style == "boxes":
        per_row = draw.boxes_per_row
        cells = ", ".join(f"[#text(size: 7.5pt, {q(lab.rstrip(':'))}) \\ {lines(values)}]" for lab, values in rows)
        return f"#table(columns: {per_row}, stroke: 0.6pt, inset: 5pt, align: left, {cells})"
    raise ValueError(style)


def letterhead(draw, rng, org_lines):
    where = draw.pick("letterhead", ["left", "right", "centre"])
    first = f'#text(weight: "bold", size: 12pt, {q(org_lines[0])})'
    rest = lines(org_lines[1:])
    block = f"[{first} \\\n #text(size: 9pt)[{rest}]]"
    return {"left": f"#align(left, {block})", "right": f"#align(right, {block})", "centre": f"#align(center, {block})"}[where]


def document(rng, people, number):
    draw = Draw(rng)
    p = people.patient()
    p["shown_mrn"] = rng.random() < 0.85
    p["shown_nhs"] = rng.random() < 0.85 or not p["shown_mrn"]
    p["shown_phone"] = p["phone"] and rng.random() < 0.5
    gp = people.gp()
    consultant, credentials, role, department = rng.choice(CONSULTANTS)
    hospital, h_address, h_postcode, h_phone = rng.choice(HOSPITALS)
    other = people.patient()
    relative = {"who": f"{rng.choice(['her', 'his'])} {rng.choice(RELATIVES)}, {other['title']} {other['first']} {other['surname']}",
                "name": f"{other['title']} {other['surname']}",
                "address": f"{rng.randint(2, 90)} {rng.choice(STREETS)}, {other['town']} {other['postcode']}"}
    letter_year = 2026
    day, month = rng.randint(1, 28), rng.randint(1, 12)
    dob_day, dob_month, dob_year = (int(x) for x in p["dob"].split("/"))
    draw.dob, _ = date_text(rng, dob_day, dob_month, dob_year, draw.pick("dob", ["slash", "dots", "long", "short-month", "dash-month"]))
    draw.name, name_style = name_text(rng, p, draw.pick("name", ["title-first-surname", "caps-comma-title", "caps-comma", "caps-first",
                                                               "first-caps", "title-first-caps", "all-caps"]))
    draw.caps = name_style != "title-first-surname"
    draw.punct = draw.pick("punct", [":", ":", "", " :", ":"])
    draw.one_line = draw.chance("one-line-address", 0.3)
    draw.address_split = False
    letter_date, _ = date_text(rng, day, month, letter_year, rng.choice(["long", "slash"]))
    font = draw.pick("font", FONTS)
    family = draw.pick("family", ["ehr-table", "clinic-summary", "optom-form", "two-column-header", "gp-referral", "patient-refcol", "hospital-re"])
    not_patient = [consultant, gp["name"], relative["name"], f"{other['title']} {other['first']} {other['surname']}"]
    truth_gp = gp
    parts = []
    footer = None
    fields = ["name", "dob", "mrn", "nhs", "address", "phone"]
    if draw.chance("shuffle-fields", 0.3):
        head, tail = fields[:1], fields[1:]
        rng.shuffle(tail)
        fields = head + tail
    secretary = rng.choice(SECRETARIES)
    not_patient.append(secretary)
    signer_lines = [f"{consultant} {credentials}" if rng.random() < 0.5 else consultant, role]
    closing = rng.choice(["Yours sincerely,", "Yours sincerely", "Kind regards,", "Yours faithfully,", "With best wishes,"])
    cc = []
    to = None  # the window's lines
    salutation = None
    details = None
    refs = [letter_date]
    gp_line = None

    if family in ("ehr-table", "hospital-re", "two-column-header", "patient-refcol", "clinic-summary"):
        head = [rng.choice(TRUSTS), hospital, department or role] + h_address + [h_postcode, f"Tel: {h_phone}"]
        parts.append(letterhead(draw, rng, head if rng.random() < 0.6 else [hospital] + h_address + [h_postcode]))
        if draw.chance("footer", 0.5):
            footer = f"{hospital}, {', '.join(h_address)} {h_postcode} · Switchboard {h_phone}"

    if family == "ehr-table":
        to = gp_lines(gp)
        salutation = f"Dear {gp['name']},"
        style = draw.pick("table", ["table-ruled", "table-plain", "label-column"])
        details = render_rows(draw, details_rows(draw, rng, p, fields), style)
        if draw.chance("gp-row", 0.3):
            gp_line = None  # the window already names the GP
        refs += [f"Clinic: {rng.choice(['Glaucoma', 'Cataract', 'General', 'Retina'])}"]
        draw.details_first = draw.chance("details-before-dear", 0.6)
    elif family == "clinic-summary":
        draw.name, _ = name_text(rng, p, "caps-comma-title")
        to = None
        parts.append(f'#align(center, text(weight: "bold", size: 13pt, {q(rng.choice(["Clinic Summary", "Outpatient Clinic Summary", "CLINIC LETTER", "Attendance Summary"]))}))')
        style = draw.pick("summary", ["label-column", "inline", "table-plain"])
        rows = details_rows(draw, rng, p, fields)
        gp_text = [f"{gp['name']}, {gp['practice']}", f"{gp['street']}, {gp['town']} {gp['postcode']}"] if rng.random() < 0.5 else \
                  [gp["name"], gp["practice"], gp["street"], f"{gp['town']} {gp['postcode']}"]
        rows.append((label(draw, "gp", rng), gp_text))
        rows += [(f"Consultant{draw.punct}", [consultant]), (f"Clinic date{draw.punct}", [letter_date])]
        details = render_rows(draw, rows, style)
        draw.details_first = True
        salutation = None
    elif family == "optom-form":
        optom, practice = rng.choice(OPTOMETRISTS)
        o_postcode, o_town, _ = people.place()
        not_patient.append(optom)
        parts.append(f'#align(center, text(weight: "bold", size: 14pt, {q(rng.choice(["Optometrist Referral", "GOS 18 Referral", "Referral to Hospital Eye Service"]))}))')
        draw.address_split = draw.chance("postcode-box", 0.7)
        draw.boxes_per_row = draw.pick("boxes", [2, 3, 1])
        name_fields = ["split-name"] if draw.chance("split-name", 0.75) else ["name"]
        rows = details_rows(draw, rng, p, name_fields + [f for f in fields if f != "name"])
        style = draw.pick("form", ["boxes", "table-ruled", "label-column"])
        parts.append(f'#text(weight: "bold", {q("Patient details")})')
        parts.append(render_rows(draw, rows, style))
        parts.append(f'#text(weight: "bold", {q("GP details")})')
        gp_rows = [(f"GP name{draw.punct}", [gp["name"]]), (f"Practice{draw.punct}", [gp["practice"]]),
                   (f"Address{draw.punct}", [gp["street"], gp["town"], gp["postcode"]])]
        parts.append(render_rows(draw, gp_rows, style))
        parts.append(f'#text(weight: "bold", {q("Referring optometrist")})')
        o_rows = [(f"Name{draw.punct}", [optom]), (f"Practice{draw.punct}", [practice]),
                  (f"Address{draw.punct}", [f"{rng.randint(1, 80)} {rng.choice(STREETS)}", o_town, o_postcode]),
                  (f"GOC number{draw.punct}", [f"01-{rng.randint(10000, 99999)}"])]
        parts.append(render_rows(draw, o_rows, style))
        parts.append(s(f"Reason for referral: {rng.choice(['raised intraocular pressure', 'cataract affecting vision', 'suspected wet AMD'])}."))
        parts.append(s(f"Signed: {optom}") + " #h(2em) " + s(f"Date: {letter_date}"))
        draw.details_first = True
        signer_lines = []
        closing = None
    elif family == "two-column-header":
        to = gp_lines(gp)
        salutation = f"Dear {gp['name']},"
        rows = details_rows(draw, rng, p, fields)
        left = render_rows(draw, rows, draw.pick("left", ["inline", "label-column"]))
        right_rows = [(f"Consultant{draw.punct}", [consultant]), (f"Clinic date{draw.punct}", [letter_date]),
                      (f"Typed by{draw.punct}", [rng.choice(TYPISTS)]), (f"Dictated{draw.punct}", [letter_date])]
        right = render_rows(draw, right_rows, "inline")
        details = f"#grid(columns: (1fr, 1fr), gutter: 1cm, [{left}], [{right}])"
        draw.details_first = draw.chance("details-before-window", 0.5)
        if draw.details_first:
            parts.append(details)
            details = None
    elif family == "gp-referral":
        g_phone = f"01{rng.randint(200, 999)} {rng.randint(100000, 999999)}"
        parts.append(letterhead(draw, rng, [gp["practice"], gp["street"], gp["town"], gp["postcode"], f"Tel: {g_phone}"]))
        to = [f"{consultant}", role, hospital] + h_address + [h_postcode]
        salutation = f"Dear {consultant.split()[0]} {consultant.split()[-1]},"
        re_style = draw.pick("re", ["re-line", "re-two-lines", "labelled"])
        numbers = ([f"{rng.choice(LABELS['nhs'])}{draw.punct} {p['nhs']}"] if p["shown_nhs"] else []) + \
                  ([f"{rng.choice(LABELS['mrn'])}{draw.punct} {p['mrn']}"] if p["shown_mrn"] else [])
        if re_style == "labelled":
            details = render_rows(draw, details_rows(draw, rng, p, fields), "inline")
        else:
            first = f"Re: {draw.name}, {rng.choice(LABELS['dob'])}{draw.punct} {draw.dob}" + ("" if re_style == "re-two-lines" else ", " + ", ".join(numbers))
            second = ", ".join(address_lines(p)[:-1]) + " " + p["postcode"]
            re = [first] + (["   ".join(numbers)] if re_style == "re-two-lines" and numbers else []) + [second]
            details = f'#text(weight: "bold")[{lines(re)}]'
        draw.details_first = False
        signer_lines = [gp["name"], "General Practitioner", gp["practice"]]
        not_patient.remove(consultant)
        not_patient += [consultant]
    elif family == "patient-refcol":
        to = [draw.name if draw.name.startswith(p["title"]) else f"{p['title']} {p['first']} {p['surname']}"] + address_lines(p)
        salutation = f"Dear {p['title']} {p['surname']},"
        refs = [f"Our ref{draw.punct} {rng.choice('ABCDEFG')}{rng.randint(10, 99)}/{rng.randint(1000, 9999)}"]
        if p["shown_nhs"]:
            refs.append(f"{rng.choice(LABELS['nhs'])}{draw.punct} {p['nhs']}")
        refs.append(f"{rng.choice(LABELS['dob'])}{draw.punct} {draw.dob}")
        if p["shown_mrn"]:
            refs.append(f"{rng.choice(LABELS['mrn'])}{draw.punct} {p['mrn']}")
        refs.append(letter_date)
        cc.append(f"cc: {gp['name']}, {gp['practice']}, {gp['street']}, {gp['town']} {gp['postcode']}")
        draw.details_first = False
    else:  # hospital-re
        to_gp = draw.chance("to-gp", 0.6)
        to = gp_lines(gp) if to_gp else [f"{p['title']} {p['first']} {p['surname']}"] + address_lines(p)
        salutation = f"Dear {gp['name'].split()[0]} {gp['name'].split()[-1]}," if to_gp else f"Dear {p['title']} {p['surname']},"
        numbers = ([f"{rng.choice(LABELS['mrn'])}{draw.punct} {p['mrn']}"] if p["shown_mrn"] else []) + \
                  ([f"{rng.choice(LABELS['nhs'])}{draw.punct} {p['nhs']}"] if p["shown_nhs"] else [])
        re = [f"Re: {draw.name}   {rng.choice(LABELS['dob'])}{draw.punct} {draw.dob}", "   ".join(numbers),
              ", ".join(address_lines(p)[:-1]) + " " + p["postcode"]]
        details = f'#text(weight: "bold")[{lines([r for r in re if r])}]'
        draw.details_first = draw.chance("re-before-dear", 0.4)
        if to_gp:
            cc.append(f"cc: {p['title']} {p['first']} {p['surname']}, {', '.join(address_lines(p)[:-1])} {p['postcode']}")
        else:
            cc.append(f"cc: {gp['name']}, {gp['practice']}, {gp['street']}, {gp['town']} {gp['postcode']}")

    if to is not None:
        if draw.chance("window-left", 0.8):
            window = f"#grid(columns: (1fr, auto), gutter: 1cm, [{lines(to)}], align(right)[{lines(refs)}])"
        else:
            window = f"#grid(columns: (auto, 1fr), gutter: 1cm, [{lines(refs)}], align(right)[{lines(to)}])"
        parts.append("#v(1cm)\n" + window + "\n#v(0.6cm)")
    if details is not None and draw.details_first:
        parts.append(details)
    if salutation:
        parts.append(s(salutation))
    if details is not None and not draw.details_first:
        parts.append(details)
    if gp_line:
        parts.append(gp_line)
    if family != "optom-form":
        for para in body(rng, p, relative, rng.choice(CONSULTANTS)[0]):
            parts.append(s(para))
    if closing:
        parts.append(s(closing) + "\n#v(1.8em)\n" + lines(signer_lines))
    if family not in ("gp-referral", "optom-form") and draw.chance("secretary-line", 0.4):
        parts.append(s(f"Typed by {secretary}, secretary to {consultant}"))
    for line in cc:
        parts.append(f"#text(size: 9.5pt, {q(line)})")

    margin = rng.choice(["2cm", "2.5cm", "1.8cm"])
    size = rng.choice(["10pt", "10.5pt", "11pt"])
    footer_markup = f"footer: align(center, text(size: 7.5pt, {q(footer)}))," if footer else ""
    source = (f'#set page(paper: "a4", margin: {margin}, {footer_markup})\n'
              f'#set text(font: "{font}", size: {size}, lang: "en", region: "gb")\n'
              f"#set par(justify: false, spacing: 1em)\n\n" + "\n\n".join(parts) + "\n")
    gp_truth = {"name": truth_gp["name"], "practice": truth_gp["practice"], "postcode": truth_gp["postcode"]}
    truth = {
        "family": family, "layout": " ".join(draw.key), "pages": 1,
        "patient": {"full_name": p["name"], "date_of_birth": p["dob"], "mrn": p["mrn"] if p["shown_mrn"] else None,
                    "nhs_number": p["nhs"] if p["shown_nhs"] else None, "phone": p["phone"] if p["shown_phone"] else None,
                    "line_1": p["lines"][0], "line_2": ", ".join(p["lines"][1:]) or None, "city": p["town"],
                    "county": p["county"] or p["table_county"] or None, "postcode": p["postcode"]},
        "gp": gp_truth,
        "not_patient": sorted(set(not_patient)),
    }
    return source, truth


def compile_pdf(source, pdf):
    with tempfile.NamedTemporaryFile("w", suffix=".typ", delete=False) as f:
        f.write(source)
        path = f.name
    try:
        typst.compile(path, output=pdf, timestamp=TIMESTAMP)
    finally:
        os.unlink(path)


def scan(pdf, out_pdf, rng, dpi=200):
    """The PDF as a scanner gives it: grey page images, a little rotated, with specks and blur; no text."""
    import subprocess
    from PIL import Image, ImageFilter
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-png", pdf, os.path.join(tmp, "p")], check=True)
        pages = []
        for name in sorted(f for f in os.listdir(tmp) if f.endswith(".png")):
            image = Image.open(os.path.join(tmp, name)).convert("L")
            image = image.rotate(rng.uniform(-0.8, 0.8), resample=Image.BICUBIC, fillcolor=255, expand=False)
            pixels = image.load()
            width, height = image.size
            for _ in range(width * height // 4000):
                x, y = rng.randrange(width), rng.randrange(height)
                pixels[x, y] = rng.choice([0, 60, 120])
            if rng.random() < 0.5:
                image = image.filter(ImageFilter.GaussianBlur(radius=rng.uniform(0.3, 0.7)))
            pages.append(image)
        buffer = io.BytesIO()
        pages[0].save(buffer, format="PDF", resolution=dpi, save_all=True, append_images=pages[1:])
        with open(out_pdf, "wb") as f:
            f.write(buffer.getvalue())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--scans", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scan-dpi", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    people = Patients(rng)
    os.makedirs(os.path.join(args.out, "pdf"), exist_ok=True)
    truth = {}
    for n in range(args.count):
        source, known = document(rng, people, n)
        stem = f"doc-{args.seed}-{n:04d}-{known['family']}"
        compile_pdf(source, os.path.join(args.out, "pdf", stem + ".pdf"))
        truth[stem] = known
    for stem in list(truth)[: args.scans]:
        scan(os.path.join(args.out, "pdf", stem + ".pdf"), os.path.join(args.out, "pdf", stem + "-scan.pdf"), rng, args.scan_dpi)
        truth[stem + "-scan"] = dict(truth[stem], scan=True)
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
    layouts = {t["layout"] for t in truth.values()}
    print(f"{len(truth)} documents ({args.scans} of them scans) from {len(layouts)} layout draws in "
          f"{len({t['family'] for t in truth.values()})} families, seed {args.seed}, in {args.out}")


if __name__ == "__main__":
    sys.exit(main())
