#!/usr/bin/env python3
"""Accuracy of `yiana ocr` against known text: word recall and character error rate.
    Scripts/bench/ocr-accuracy.py LIBRARY TRUTH_FOLDER
For every TRUTH_FOLDER/<name>.txt, the results the OCR wrote for document <name>
(LIBRARY/.ocr_results/<name>.json, its pages' text) are compared with it:
- word recall: the share of the true words (with repeats: a multiset) that the OCR found,
  words as runs of letters and digits, case-folded;
- CER: the edit distance between the two texts with runs of white space made one space,
  divided by the true text's length.
Prints one line per document and the totals (recall over all words, CER over all characters)."""
import collections, json, os, re, sys, unicodedata

WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text):
    return collections.Counter(WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def squeeze(text):
    return " ".join(unicodedata.normalize("NFKC", text).split())


def distance(a, b):
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def main():
    library, truth = sys.argv[1], sys.argv[2]
    found = total = edits = chars = 0
    for name in sorted(os.listdir(truth)):
        if not name.endswith(".txt"):
            continue
        stem = name[:-4]
        expected = open(os.path.join(truth, name), encoding="utf-8").read()
        path = os.path.join(library, ".ocr_results", stem + ".json")
        got = ""
        if os.path.exists(path):
            got = "\n".join(page["text"] for page in json.load(open(path, encoding="utf-8"))["pages"])
        want, have = words(expected), words(got)
        hit = sum(min(count, have[word]) for word, count in want.items())
        n = sum(want.values())
        a, b = squeeze(expected), squeeze(got)
        d = distance(a, b)
        found, total, edits, chars = found + hit, total + n, edits + d, chars + len(a)
        print(f"  {stem}: word recall {100 * hit / max(n, 1):.1f}% ({hit}/{n}), CER {100 * d / max(len(a), 1):.1f}%")
    print(f"TOTAL word recall {100 * found / max(total, 1):.1f}% ({found}/{total}), CER {100 * edits / max(chars, 1):.1f}%")


if __name__ == "__main__":
    main()
