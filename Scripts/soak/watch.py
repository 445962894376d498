#!/usr/bin/env python3
"""Soak of `yiana watch` (issue 17): WRITERS processes make random changes to a library for
SECONDS while the watcher runs, the way sync programs deliver them, then everything is checked.
    Scripts/soak/watch.py YIANA SECONDS [WRITERS] [DOCUMENTS] [SEED]

Each writer owns a folder of the library and, at random: brings a new document in (written
beside it under a sync program's temporary name, then renamed: Syncthing's way), renames or
moves one into a sub-folder, deletes one (as often as one arrives, so the library keeps its
size), rewrites one slowly in place (rclone's way, over about a second), or touches one. Each
new document holds a word of its own.

Measured: the latency from a document's arrival (its rename) to its `indexed` event (written
after the index's commit: searchable from then on), p50/p99; file-system operations per
second sustained; the
watcher's RSS at start and at the end (sampled every 5 s), and its CPU while idle after the
soak (30 s). Checked at the end: the watcher's index holds exactly what a fresh `yiana index`
of the library holds (path, status, pages), `yiana verify` is clean, every document each
writer left is in the library with its bytes, and the RSS at the end is within half again of
the start's. Exits 1 if a check fails."""
import json, os, random, shutil, signal, sqlite3, statistics, subprocess, sys, tempfile, threading, time, uuid, zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generate"))
from importlib import import_module
make_library = import_module("library")


def document(path, word, rng):
    words = [rng.choice(make_library.WORDS) for _ in range(60)] + [word]
    lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
    meta = {"id": str(uuid.uuid4()).upper(), "title": word, "created": 800_000_000, "modified": 800_000_000,
            "pageCount": 1, "tags": [], "ocrCompleted": False}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", json.dumps(meta, separators=(",", ":")))
        z.writestr("content.pdf", make_library.pdf(lines))
        z.writestr("format.json", '{"formatVersion":2}')


def writer(index, root, seconds, seed, out):
    """One writer's random changes in root/W<index>; writes its log (arrivals, final files) to out."""
    rng = random.Random(seed)
    mine = os.path.join(root, "W%d" % index)
    os.makedirs(os.path.join(mine, "sub"), exist_ok=True)
    docs, arrivals, deletions, operations, n = [], {}, [], 0, 0
    end = time.time() + seconds
    while time.time() < end:
        # As many arrivals as deletions, so the library keeps its size and the RSS can be
        # compared over the run.
        op = rng.random()
        if op < 0.25 or len(docs) < 3:
            n += 1
            word = "soakword%dx%d" % (index, n)
            name = os.path.join(mine, "Doc %d.yianazip" % n)
            temp = os.path.join(mine, ".syncthing.Doc %d.yianazip.tmp" % n)
            document(temp, word, rng)
            os.rename(temp, name)
            arrivals[os.path.relpath(name, root)] = (time.time(), word)
            docs.append(name)
        elif op < 0.4:
            old = rng.choice(docs)
            new = os.path.join(mine, "sub" if rng.random() < 0.5 else "", "Moved %d %s" % (rng.randrange(10**6), os.path.basename(old)))
            os.rename(old, new)
            docs[docs.index(old)] = new
        elif op < 0.65:
            old = rng.choice(docs)
            os.remove(old)
            docs.remove(old)
            deletions.append(time.time())
        elif op < 0.75:
            # Rewritten in place, slowly: a new version arriving the way rclone writes it.
            target = rng.choice(docs)
            n += 1
            staged = os.path.join(root, "..", "staging-%d-%d" % (index, n))
            document(staged, "soakword%dx%d" % (index, n), rng)
            data = open(staged, "rb").read()
            os.remove(staged)
            with open(target, "wb") as f:
                for start in range(0, len(data), max(1, len(data) // 5)):
                    f.write(data[start:start + max(1, len(data) // 5)])
                    f.flush()
                    time.sleep(0.2)
        else:
            os.utime(rng.choice(docs))
        operations += 1
        time.sleep(rng.uniform(0.0, 0.05))
    final = {os.path.relpath(d, root): open(d, "rb").read().hex()[:64] + str(os.path.getsize(d)) for d in docs}
    json.dump({"arrivals": arrivals, "deletions": deletions, "operations": operations, "final": final}, open(out, "w"))


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_pass_done(yiana, root, env):
    out = subprocess.run([yiana, "status", "--json", "--library", root], env=env, capture_output=True, text=True).stdout
    try:
        health = (json.loads(out).get("watcher") or {}).get("health") or {}
    except ValueError:
        return False
    return health.get("passes", 0) >= 1 and bool(health.get("lastPass"))


def rows(index):
    db = sqlite3.connect(index)
    return sorted(db.execute("SELECT path, status, pageCount FROM document").fetchall())


def main():
    yiana, seconds = sys.argv[1], float(sys.argv[2])
    writers = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    documents = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    work = tempfile.mkdtemp(prefix="yiana-soak-watch-")
    root, index = os.path.join(work, "lib"), os.path.join(work, "index.sqlite")
    os.makedirs(root)
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(work, "state"), XDG_CACHE_HOME=os.path.join(work, "cache"), YIANA_SETTLE_SECONDS="2")
    env.pop("YIANA_LIBRARY", None)
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generate", "library.py"), str(documents), os.path.join(root, "Existing")], check=True)

    events, lock = [], threading.Lock()
    watcher = subprocess.Popen([yiana, "watch", "--json", "--library", root, "--index", index], stdout=subprocess.PIPE, env=env, text=True)

    def read():
        for line in watcher.stdout:
            event = json.loads(line)
            event["seen"] = time.time()
            with lock:
                events.append(event)
    threading.Thread(target=read, daemon=True).start()
    # The soak starts when the first pass is over (the health record counts a pass): at
    # 100,000 documents that pass takes minutes, and RSS measured during it is not the start's.
    first_pass_ends = time.time() + max(120, documents / 100)
    while not first_pass_done(yiana, root, env) and time.time() < first_pass_ends:
        time.sleep(0.5)
    time.sleep(2)
    rss = [(0.0, rss_kb(watcher.pid))]
    started = time.time()
    logs = [os.path.join(work, "w%d.json" % i) for i in range(writers)]
    procs = [subprocess.Popen([sys.executable, __file__, "--writer", str(i), root, str(seconds), str(seed * 1000 + i), logs[i]]) for i in range(writers)]
    while any(p.poll() is None for p in procs):
        time.sleep(5)
        rss.append((time.time() - started, rss_kb(watcher.pid)))
    elapsed = time.time() - started
    # Wait for the watcher to go quiet (no event for settle + 5 s).
    while True:
        with lock:
            last = events[-1]["seen"] if events else 0
        if time.time() - last > 7:
            break
        time.sleep(1)
    idle_from = cpu_seconds(watcher.pid)
    time.sleep(30)
    idle_cpu = (cpu_seconds(watcher.pid) - idle_from) / 30
    rss.append((time.time() - started, rss_kb(watcher.pid)))
    watcher.send_signal(signal.SIGTERM)
    code = watcher.wait(timeout=60)

    results = [json.load(open(log)) for log in logs]
    operations = sum(r["operations"] for r in results)
    indexed = {}
    with lock:
        for e in events:
            if e["kind"] == "indexed" and e.get("path") not in indexed:
                indexed[e["path"]] = e["seen"]
    latencies = sorted(indexed[p] - t for r in results for p, (t, _) in r["arrivals"].items() if p in indexed and indexed[p] >= t)
    problems = []
    fresh = os.path.join(work, "fresh.sqlite")
    subprocess.run([yiana, "index", "--library", root, "--index", fresh], env=env, stdout=subprocess.DEVNULL)
    if rows(index) != rows(fresh):
        a, b = set(rows(index)), set(rows(fresh))
        problems.append("the watcher's index differs from a fresh one: only in the watcher's %s; only in the fresh one %s" % (sorted(a - b)[:5], sorted(b - a)[:5]))
    verify = subprocess.run([yiana, "verify", "--library", root], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if verify.returncode != 0:
        problems.append("verify: " + verify.stdout[-800:])
    for r in results:
        for path, fingerprint in r["final"].items():
            full = os.path.join(root, path)
            if not os.path.exists(full) or open(full, "rb").read().hex()[:64] + str(os.path.getsize(full)) != fingerprint:
                problems.append("lost or changed: " + path)
    if code != 0:
        problems.append("the watcher exited %d on SIGTERM" % code)
    # Flat: the end within half again of the start (plus 30 MB for SQLite's and the
    # allocator's caches filling), whatever the length of the soak.
    if rss[-1][1] > max(rss[0][1] * 1.5, rss[0][1] + 30 * 1024):
        problems.append("RSS grew from %d MB to %d MB" % (rss[0][1] // 1024, rss[-1][1] // 1024))
    # The writers delete as often as documents arrive: over a long soak they delete more of
    # the library within an hour than the keeper's mass-loss rule allows (more than 10%, at
    # least 5), and its alarm must then be raised, once; well below the rule, never. (Near
    # the rule, 8-12%, either: the rule counts what the keeper saw go, at its passes.)
    deleted = sorted(t for r in results for t in r["deletions"])
    most, first = 0, 0
    for last, t in enumerate(deleted):  # the most deletions in an hour, a sliding window
        while deleted[first] <= t - 3600:
            first += 1
        most = max(most, last - first + 1)
    alarms = [e for e in events if e["kind"] == "error" and e.get("code") == "mass-loss"]
    if most > 0.12 * documents and most >= 5 and len(alarms) != 1:
        problems.append("%d documents deleted within an hour (of %d): %d mass-loss alarms, not 1" % (most, documents, len(alarms)))
    if (most < 0.08 * documents or most < 5) and alarms:
        problems.append("a mass-loss alarm with only %d documents deleted within an hour (of %d): %s" % (most, documents, alarms[0]))
    errors = [e for e in events if e["kind"] == "error" and e.get("code") != "mass-loss"]
    if errors:
        problems.append("%d error events, the first: %s" % (len(errors), errors[0]))

    def pct(values, q):
        return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")
    print("soak: %d writers for %.0f s beside %d documents: %d operations (%.1f/s), %d arrivals, %d deletions (at most %d within an hour: %d mass-loss alarm%s), %d indexed events, %d watcher events in all"
          % (writers, elapsed, documents, operations, operations / elapsed, sum(len(r["arrivals"]) for r in results), len(deleted), most,
             len(alarms), "" if len(alarms) == 1 else "s", len(indexed), len(events)))
    print("latency, arrival to indexed: p50 %.2f s, p99 %.2f s, max %.2f s (%d arrivals still there at their event)"
          % (pct(latencies, 0.5), pct(latencies, 0.99), latencies[-1] if latencies else float("nan"), len(latencies)))
    print("watcher RSS: %d MB at start, %d MB at the end (max %d MB); idle CPU after the soak: %.2f%% of a core"
          % (rss[0][1] // 1024, rss[-1][1] // 1024, max(k for _, k in rss) // 1024, idle_cpu * 100))
    # The trace, about ten samples over the soak: flat, or where it climbed.
    step = max(1, len(rss) // 10)
    print("watcher RSS over the soak: " + ", ".join("%.0f min %d MB" % (t / 60, k // 1024) for t, k in rss[::step] + [rss[-1]]))
    for problem in problems:
        print("FAILED:", problem)
    if problems:
        print("work folder kept:", work)
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("soak: passed")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":
        writer(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        main()
