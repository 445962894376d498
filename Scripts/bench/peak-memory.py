#!/usr/bin/env python3
"""Runs a command and prints its peak memory, anonymous and file-backed apart, on one line:
    Scripts/bench/peak-memory.py LABEL -- COMMAND [ARGS...]
prints `LABEL: peak RSS N MB (anonymous A MB, file-backed F MB), exit E`.

The peak RSS is the kernel's own high-water mark (VmHWM). The kernel keeps no peak of each
kind, so RssAnon and RssFile are sampled from /proc/PID/status every millisecond and their
largest values shown: a container's memory limit counts both, and a memory-mapped document
shows up as file-backed pages, which the kernel can drop under pressure, unlike anonymous
ones. The command's output goes to /dev/null. With PEAK_MEMORY_TIMEOUT=SECONDS in the
environment, a command still running then is killed and its exit shown as `timeout`."""
import subprocess, sys, time

label, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peak = {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}

def sample():
    try:
        with open(f"/proc/{process.pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in peak:
                    peak[key] = max(peak[key], int(value.split()[0]))
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass

import os
deadline = time.time() + float(os.environ.get("PEAK_MEMORY_TIMEOUT", "inf"))
timed_out = False
while process.poll() is None:
    sample()
    if time.time() > deadline:
        process.kill()
        process.wait()
        timed_out = True
        break
    time.sleep(0.001)
mb = lambda kb: kb // 1024
print(f"{label}: peak RSS {mb(peak['VmHWM'])} MB (anonymous {mb(peak['RssAnon'])} MB, "
      f"file-backed {mb(peak['RssFile'])} MB), exit {'timeout' if timed_out else process.returncode}")
