#!/usr/bin/env python3
"""Every relative link in README.md and docs/ points at something that exists: the file or
folder, and, for a `#fragment` into a Markdown file, one of its headings (GitHub's anchors:
lower case, punctuation dropped, spaces as hyphens). Web links (http:, https:, mailto:) are
not followed. Prints each dangling link as FILE:LINE: LINK (why) and exits 1 if there is one.

    Scripts/checks/links.py [ROOT]        (default: this repository)
"""
import os, re, sys

LINK = re.compile(r'\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
FENCE = re.compile(r'^\s*(```|~~~)')


def anchors(path):
    """The anchors GitHub makes for a Markdown file's headings (repeats get -1, -2, ...)."""
    seen, result, fenced = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip()
        text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)          # a link's text only
        slug = re.sub(r'[^\w\- ]', '', text.lower().replace('`', '')).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else f"{slug}-{n}")
    return result


def links(path):
    fenced = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r'`[^`]*`', '', line)                               # code spans hold no links
        for match in LINK.finditer(line):
            yield number, match.group(1)


def check(root):
    pages = [os.path.join(root, "README.md")]
    for folder, _, names in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    broken = []
    for page in pages:
        if not os.path.exists(page):
            continue
        for number, link in links(page):
            if re.match(r'^[a-z][a-z0-9+.-]*:', link):
                continue
            target, _, fragment = link.partition("#")
            path = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
            where = f"{os.path.relpath(page, root)}:{number}: {link}"
            if not os.path.abspath(path).startswith(os.path.abspath(root) + os.sep):
                broken.append(f"{where} (outside the repository)")
            elif not os.path.exists(path):
                broken.append(f"{where} (no such file)")
            elif fragment and path.endswith(".md") and fragment not in anchors(path):
                broken.append(f"{where} (no heading #{fragment} in {os.path.relpath(path, root)})")
    return len(pages), broken


if __name__ == "__main__":
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    count, broken = check(root)
    print(f"dangling links in README.md and docs/ ({count} pages): {len(broken)}")
    for line in broken:
        print(f"  {line}")
    sys.exit(1 if broken else 0)
