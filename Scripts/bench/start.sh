#!/usr/bin/env bash
# Start time of the packaged program: `yiana --version` of the binary Scripts/package.sh put in
# the package (.build/deb/root/usr/bin/yiana: stripped, the Swift runtime linked in) against
# `sqlite3 -version`, each run RUNS times alternately in the same run; prints the mean and the
# median of each and their ratio.
# Usage: Scripts/bench/start.sh [RUNS]   (default 200; after Scripts/package.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/setup.sh sqlite3 >/dev/null
runs="${1:-200}"
yiana=.build/deb/root/usr/bin/yiana
[ -x "$yiana" ] || { echo "bench-start: run Scripts/package.sh first" >&2; exit 1; }
python3 - "$yiana" "$runs" <<'PY'
import statistics, subprocess, sys, time
yiana, runs = sys.argv[1], int(sys.argv[2])
commands = {"yiana --version": [yiana, "--version"], "sqlite3 -version": ["sqlite3", "-version"]}
times = {name: [] for name in commands}
for _ in range(runs):
    for name, command in commands.items():
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter() - start) * 1000)
for name, values in times.items():
    print(f"{name:18} mean {statistics.mean(values):6.2f} ms, median {statistics.median(values):6.2f} ms")
ratio = statistics.median(times["yiana --version"]) / statistics.median(times["sqlite3 -version"])
print(f"ratio (medians): {ratio:.2f}x")
PY
