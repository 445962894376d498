#!/usr/bin/env python3
"""The search benchmarks' 200 varied queries (words, two words, phrases, prefixes, numbers,
tag/folder/date filters), one per line, its arguments to `yiana search` separated by tabs:
bench-queries.py OUT. Deterministic (Scripts/bench/search.sh, Scripts/bench/postgres.sh)."""
import random, sys

words = ("account balance invoice statement tax return annual report meeting minutes letter contract insurance policy "
         "claim receipt payment refund order delivery warranty service repair energy water council school medical "
         "appointment prescription bank loan mortgage salary pension travel ticket booking hotel flight").split()
rng = random.Random(7)
queries = []
queries += [[w] for w in rng.sample(words, 40)]
queries += [[rng.choice(words), rng.choice(words)] for _ in range(50)]
queries += [['"%s %s"' % (rng.choice(words), rng.choice(words))] for _ in range(30)]
queries += [[rng.choice(words)[:n] + "*"] for n in (2, 3, 4, 5) for _ in range(10)]
queries += [[str(rng.randrange(100000))] for _ in range(10)]
queries += [["--tag", rng.choice(["tax", "home", "work", "health"]), rng.choice(words)] for _ in range(10)]
queries += [["--folder", "Folder %02d" % rng.randrange(50), rng.choice(words)] for _ in range(10)]
queries += [["--since", "2023-01-01", rng.choice(words)] for _ in range(10)]
with open(sys.argv[1], "w") as f:
    for q in queries:
        f.write("\t".join(q) + "\n")
