#!/usr/bin/env python3
"""Queries for search that forgives (issue 56) on a library made by Scripts/generate/library.py
with NAMES=1: surnames it holds, each with one slip of the keyboard (a letter dropped, doubled,
two swapped, one substituted; two slips in a name of nine letters or more, when the word typed
still has nine), never a word the index holds, beside the same names spelt right. Writes OUT: `typo<TAB>right` lines.

    typo-queries.py INDEX.sqlite OUT [COUNT]   (default 100; deterministic)"""
import os, random, sqlite3, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generate"))
import library  # noqa: E402


def slip(word, kind, rng):
    i = rng.randrange(1, len(word) - 1)
    if kind == 0:
        return word[:i] + word[i + 1:]                      # dropped
    if kind == 1:
        return word[:i] + word[i] + word[i:]                # doubled
    if kind == 2:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:] if word[i] != word[i + 1] else None  # swapped
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return word[:i] + letter + word[i + 1:] if letter != word[i] else None  # substituted


def main():
    index, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    vocabulary = {w for (w,) in sqlite3.connect(index).execute("SELECT word FROM word UNION SELECT word FROM word_new")}
    names = [n for n in library.surnames() if n.lower() in vocabulary]
    rng = random.Random(56)
    rng.shuffle(names)
    pairs = []
    for name in names:
        word = name.lower()
        typo = word
        slips = 2 if len(word) >= 9 else 1
        for _ in range(slips):
            typo = typo and slip(typo, len(pairs) % 4, rng)
        # Within the rule, which goes by the word as typed: five letters for one slip, nine for two.
        if typo and typo != word and typo not in vocabulary and len(typo) >= (9 if slips == 2 else 5):
            pairs.append((typo.capitalize(), name))
        if len(pairs) == count:
            break
    with open(out, "w") as f:
        f.writelines(f"{t}\t{r}\n" for t, r in pairs)


if __name__ == "__main__":
    main()
