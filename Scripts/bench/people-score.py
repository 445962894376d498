#!/usr/bin/env python3
"""Scores the register of people against Scripts/generate/people.py's truth (issue 77).

Reads TRUTH (truth.json), PEOPLE (`yiana people list --json`) and DUPLICATES
(`yiana people duplicates --json`) and counts, by the mentions each register person holds
(document and page; page 0 the file or folder name):
- wrong merges: register people whose mentions are of two or more true patients (goal 0);
- true patients found exactly once, and those split over several register people, each split
  required to be listed as possible duplicates (every part reachable from every other);
- the planted pairs that must be listed, and those that must never be one person.

Prints a summary, or with --json the counts; exits 1 when a goal is missed.

Usage: Scripts/bench/people-score.py TRUTH PEOPLE DUPLICATES [--json]
"""
import json
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    truth, people, duplicates = (json.load(open(path)) for path in args[:3])
    owner = {}
    for document in truth["documents"]:
        for page, pid in document["mentions"]:
            owner[(document["path"], page)] = pid
    holders, wrong, unexplained = {}, [], 0
    for person in people:
        pids = set()
        for mention in person["mentions"]:
            pid = owner.get((mention["document"], mention["page"]))
            if pid is None:
                unexplained += 1
                continue
            pids.add(pid)
            holders.setdefault(pid, set()).add(person["id"])
        if len(pids) > 1:
            wrong.append((person["id"], person["name"], sorted(pids)))
    graph = {}
    for pair in duplicates:
        graph.setdefault(pair["a"], set()).add(pair["b"])
        graph.setdefault(pair["b"], set()).add(pair["a"])

    def reachable(start):
        seen, stack = {start}, [start]
        while stack:
            for other in graph.get(stack.pop(), ()):
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        return seen

    once = sum(1 for ids in holders.values() if len(ids) == 1)
    splits = {pid: ids for pid, ids in holders.items() if len(ids) > 1}
    unlisted_splits = [pid for pid, ids in splits.items() if not ids <= reachable(next(iter(ids)))]
    missing = [pid for pid in truth["patients"] if pid not in holders]
    listed_missed = []
    for a, b, kind in truth["listed"]:
        pa, pb = holders.get(a, set()), holders.get(b, set())
        if not any(y in graph.get(x, ()) for x in pa for y in pb):
            listed_missed.append((a, b, kind))
    merged_apart = [(a, b, kind) for a, b, kind in truth["apart"] if holders.get(a, set()) & holders.get(b, set())]
    counts = {"true patients": len(truth["patients"]), "register people": len(people), "wrong merges": len(wrong),
              "found exactly once": once, "split": len(splits), "splits not listed": len(unlisted_splits), "not found": len(missing),
              "planted pairs to list": len(truth["listed"]), "planted pairs missed": len(listed_missed),
              "planted pairs never one": len(truth["apart"]), "planted pairs merged": len(merged_apart),
              "possible duplicates": len(duplicates), "mentions unexplained": unexplained}
    if "--json" in sys.argv:
        print(json.dumps(counts, indent=1))
    else:
        for key, value in counts.items():
            print(f"{key:>24}: {value}")
        for item in wrong[:10]:
            print("wrong merge:", item)
        for pid in unlisted_splits[:10]:
            print("split, not listed:", pid, truth["patients"][pid]["first"], truth["patients"][pid]["surname"], sorted(splits[pid]))
        for item in listed_missed + merged_apart:
            print("planted pair:", item)
    failed = wrong or unlisted_splits or missing or listed_missed or merged_apart or unexplained
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
