#!/usr/bin/env python3
"""Word recall of the search index against pdftotext: for every page of every document,
the share of the words pdftotext finds on that page that the index holds for that page.
Scripts/bench/word-recall.py INDEX.sqlite IMPORT-REPORT.json LIBRARY

Both sides are split into words the same way (Unicode NFKC, case-folded, runs of letters and
digits), which is also how the index's tokenizer sees them."""
import json, re, sqlite3, subprocess, sys, unicodedata
from collections import defaultdict

WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text):
    return set(WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def main():
    index, report, library = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
    db = sqlite3.connect(index)
    pages = defaultdict(str)
    for path, number, body in db.execute("SELECT d.path, p.number, p.body FROM page p JOIN document d ON d.id = p.document"):
        pages[(path, number)] += " " + body
    found = total = 0
    per_page = []
    worst = []
    for item in report["imported"]:
        text = subprocess.run(["pdftotext", "-enc", "UTF-8", item["source"], "-"], capture_output=True).stdout.decode("utf-8", "replace")
        for number, page_text in enumerate(text.split("\f")[:item["pageCount"]], start=1):
            theirs = words(page_text)
            if not theirs:
                continue
            ours = words(pages.get((item["document"], number), ""))
            hit = len(theirs & ours)
            found += hit
            total += len(theirs)
            per_page.append(hit / len(theirs))
            if hit < len(theirs):
                worst.append((hit / len(theirs), item["document"], number, sorted(theirs - ours)[:8]))
    worst.sort()
    print("pages compared: %d" % len(per_page))
    print("word recall (all words):       %.4f%%" % (100.0 * found / max(total, 1)))
    print("word recall (average of pages): %.4f%%" % (100.0 * sum(per_page) / max(len(per_page), 1)))
    for share, path, number, missing in worst[:5]:
        print("  lowest: %.2f%% %s p.%d missing e.g. %s" % (100 * share, path, number, missing))


if __name__ == "__main__":
    main()
