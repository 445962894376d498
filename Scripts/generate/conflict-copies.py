#!/usr/bin/env python3
"""Adds COUNT conflict copies to a generated library (Scripts/generate/library.py), each an edited
version of a random document, named in the styles sync services use: Dropbox, Syncthing,
Nextcloud new and old, iCloud's "Name 2", unison, rclone bisync (the extension mangled).
Scripts/generate/conflict-copies.py LIBRARY COUNT. Deterministic."""
import json, os, random, sys, zipfile

root, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(3)
docs = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".yianazip"))
styles = [" (Bob's conflicted copy 2026-03-01)", ".sync-conflict-20260301-101010-AB", " (conflicted copy 2026-03-02 101010)",
          "_conflict-20260301-101010", " 2", " (conflict_on_2026-11-23)", "..path1"]
for i, path in enumerate(rng.sample(docs, count)):
    with zipfile.ZipFile(path) as z:
        meta, pdf = json.loads(z.read("metadata.json")), z.read("content.pdf")
    meta["modified"] += 60
    style = styles[i % len(styles)]
    name = path + style if style.startswith("..") else path[:-len(".yianazip")] + style + ".yianazip"
    with zipfile.ZipFile(name, "w", zipfile.ZIP_STORED) as out:
        out.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
        out.writestr("content.pdf", pdf + b"% edited on another device\n")
        out.writestr("format.json", '{"formatVersion":2}')
