#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make soak: run lx's workloads, the benchmark suite and the Mungi tests in
a loop for SOAK_MINUTES (default 10) with the kernel fuzzer beside them, then
check that nothing leaked.

- lx: one long boot of lx's shell runs rounds of lx's test programs (files,
  sockets, threads, shared memory, the ABI checks, the hostile L4 caller, a
  fork bomb, a memory hog the OOM killer ends) and the benchmark suite at
  scale 1.  After the first round it records lx's free pages and the kernel
  pool's free bytes (/proc/meminfo: MemFree, PecanKernelPoolFree); after
  every later round both must be back within SLACK_KIB of them (a page or
  two of /proc and shell state; a leak per round grows past it).
- Mungi: its test image boots again and again; every boot must pass.  (Its
  store's figures are not read: the Mungi server reports none yet.)
- beside them, t_fuzz boots again and again (hostile L4 calls on the kernel,
  with its invariant checks); every boot must pass.

Prints one line per round and exits 0 only if every round passed and every
figure came back.  Not part of make test (it runs for minutes by design)."""
import os
import re
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import BUILD, RUN, run_group  # noqa: E402
from lxshell import Shell  # noqa: E402

LX_ROUND = ("cd /tmp && /tests/files >/dev/null && /tests/sockets >/dev/null && /tests/threads >/dev/null"
            " && /tests/shared >/dev/null && /tests/abi >/dev/null && /tests/l4_hostile >/dev/null"
            " && { /tests/forkbomb >/dev/null; /tests/memhog >/dev/null; true; }"
            " && /bench/init scale=1 skip=lat_scale timeout=120 > /tmp/bench.out"
            " && grep -q 'BENCH DONE' /tmp/bench.out && ! grep -v 'status=0' /tmp/bench.out | grep -q STATUS"
            " && rm -f /tmp/bench.out && cd /")
FIGURES = ("MemFree", "PecanKernelPoolFree")
# How far a figure may stand from the first round's: lx's /proc keeps a few
# directories of processes gone (pruned 64 a refresh) and the shell's own
# heap moves by a page or two; a leak of anything per round grows past this.
SLACK_KIB = {"MemFree": 64, "PecanKernelPoolFree": 32}


def figures(sh):
    """After the round's stragglers (children of killed processes) are gone."""
    out, st = sh.run("sleep 2; cat /proc/meminfo", 60)
    return {k: int(v) for k, v in re.findall(r"^(\w+): +(\d+) kB", out, re.M) if k in FIGURES}


def soak_lx(deadline, report):
    sh = Shell(timeout=int(deadline - time.monotonic()) + 600)
    sh.expect(r"# ", 120)
    ok, start, n = True, None, 0
    while time.monotonic() < deadline:
        out, st = sh.run(LX_ROUND, 1800)
        n += 1
        now = figures(sh)
        start = start or now
        good = st == 0 and set(now) == set(FIGURES) and \
            all(abs(now[k] - start[k]) <= SLACK_KIB[k] for k in FIGURES)
        report(f"lx round {n}: status {st}, {now}" + ("" if good else f" (start {start})"))
        ok &= good
    sh.close(60)
    return ok and n > 1


def loop_boots(name, cmd, deadline, report, check):
    ok, n = True, 0
    while time.monotonic() < deadline:
        p = run_group(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                      stdin=subprocess.DEVNULL, errors="replace", timeout=900)
        n += 1
        good = check(p)
        report(f"{name} boot {n}: {'ok' if good else 'FAILED (status %d)' % p.returncode}")
        if not good:
            report(p.stdout[-3000:])
        ok &= good
    return ok and n > 0


def main():
    minutes = float(os.environ.get("SOAK_MINUTES", "10"))
    deadline = time.monotonic() + minutes * 60
    lock = threading.Lock()

    def report(line):
        with lock:
            print(line, flush=True)

    mungi = [RUN, "--timeout", "300", "--icount", "--root", os.path.join(BUILD, "servers", "mungi.elf"),
             "--module", os.path.join(BUILD, "mungi", "t_mungi.elf")]
    fuzz = [RUN, "--timeout", "600", "--root", os.path.join(BUILD, "tests", "t_fuzz.elf"),
            "--append", "pecan.deadlock=poweroff"]
    results = {}
    jobs = [("lx", lambda: soak_lx(deadline, report)),
            ("mungi", lambda: loop_boots("mungi", mungi, deadline, report,
                                         lambda p: p.returncode == 0 and " 0 failed" in p.stdout)),
            ("fuzz", lambda: loop_boots("fuzz", fuzz, deadline, report,
                                        lambda p: p.returncode == 0 and "check verdict: ok" in p.stdout))]
    threads = [threading.Thread(target=lambda n=n, f=f: results.__setitem__(n, f())) for n, f in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, _ in jobs:
        report(f"soak {name}: {'passed' if results.get(name) else 'FAILED'}")
    return 0 if all(results.get(n) for n, _ in jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
