#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where one figure's modelled misses come from, by function.

    tools/costsites.py --results R --model M lmbench.pagefault memory=file \\
        --elf build/kernels/bench-dslq-fast/kernel.elf --elf build/servers/lx.elf \\
        --elf build/bench/posix/lat_pagefault

reads a run of the cost model with `sites=on` (tools/costmodel/costmodel.c: its
SITE lines give each instruction address's misses inside a group's windows),
pairs the figure's RESULT line with its group as bench/model/model.py does, and
prints the penalty and misses per operation by function: a one-window figure's
counts scaled to the figure, a two-window one's (lat_pagefault's touched and bare
regions) first window less the others.  Each --elf names the functions of the
addresses its LOAD segments cover (addr2line -f -i: the innermost function after
inlining; --outer: the symbol the address lies in).  A developer's tool: nothing
in `make test` uses it.
"""
import argparse
import bisect
import collections
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench", "model"))
sys.path.insert(0, os.path.join(TOP, "bench", "report"))
import model  # noqa: E402

KEYS = ("pen", "l1i", "l1d", "l2", "itlb", "dtlb", "walk")


def parse_sites(path):
    """{group seq: {va: ([counts of window 1], [counts of the others])}}"""
    sites = collections.defaultdict(dict)
    for line in open(path):
        if not line.startswith("SITE "):
            continue
        head, *ws = line.rstrip("\n").split(" | ")
        f = dict(x.split("=") for x in head.split()[1:])
        sites[int(f["seq"])][int(f["va"], 16)] = [
            {k: int(v) for k, v in (x.split("=") for x in w.split())} for w in ws]
    return sites


class Elf:
    """The address ranges of one ELF's LOAD segments and its function names."""

    def __init__(self, path, outer):
        self.path, self.outer = path, outer
        out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True).stdout
        self.ranges = []
        for line in out.splitlines():
            p = line.split()
            if p and p[0] == "LOAD":
                va, memsz = int(p[2], 16), int(p[5], 16)
                self.ranges.append((va, va + memsz))
        nm = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True,
                            check=True).stdout
        self.addrs, self.names = [], []
        for line in nm.splitlines():
            a, kind, name = line.split()[:3]
            if kind.lower() in "tw":
                self.addrs.append(int(a, 16))
                self.names.append(name)

    def covers(self, a):
        return any(lo <= a < hi for lo, hi in self.ranges)

    def names_of(self, addrs):
        if self.outer:
            return {a: self.names[bisect.bisect_right(self.addrs, a) - 1] for a in addrs}
        out = subprocess.run(["addr2line", "-f", "-i", "-a", "-e", self.path] + [hex(a) for a in addrs],
                             capture_output=True, text=True).stdout
        res, cur = {}, None
        for line in out.splitlines():
            if line.startswith("0x"):
                cur = int(line, 16)
            elif cur is not None and cur not in res and ":" not in line and not line.startswith("?"):
                res[cur] = line
        return res


def per_op(windows, value, counts):
    """counts ([first window], [others]) per operation of the figure."""
    if len(windows) == 2 and windows[0]["insns"] != windows[1]["insns"]:
        scale = value / (windows[0]["insns"] - windows[1]["insns"])
        return {k: (counts[0][k] - counts[1][k]) * scale for k in KEYS}
    if len(windows) == 1 and windows[0]["insns"]:
        return {k: counts[0][k] * value / windows[0]["insns"] for k in KEYS}
    raise SystemExit("costsites: only one-window figures and two-window differences")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--model", required=True, help="the plugin's output, run with sites=on")
    ap.add_argument("--elf", action="append", default=[])
    ap.add_argument("--outer", action="store_true", help="name the symbol, not the inlined function")
    ap.add_argument("--sites", action="store_true", help="one row per address, not per function")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("name")
    ap.add_argument("params", nargs="*", help="k=v of the RESULT line")
    a = ap.parse_args()
    paired, _ = model.pair(a.results, a.model)
    want = dict(p.split("=", 1) for p in a.params)
    seq = next((i + 1 for i, (r, _) in enumerate(paired)
                if r.name == a.name and all(r.params.get(k) == v for k, v in want.items())), None)
    if seq is None:
        sys.exit(f"costsites: no figure {a.name} {want}")
    r, windows = paired[seq - 1]
    sites = parse_sites(a.model)[seq]
    elfs = [Elf(p, a.outer) for p in a.elf]
    names = {}
    for e in elfs:
        mine = [va for va in sites if va not in names and e.covers(va)]
        names.update(e.names_of(mine))
    rows = collections.defaultdict(lambda: dict.fromkeys(KEYS, 0.0))
    for va, counts in sites.items():
        key = f"{va:#x} {names.get(va, '?')}" if a.sites else names.get(va, f"? {va:#x}")
        for k, v in per_op(windows, r.value, counts).items():
            rows[key][k] += v
    total = dict.fromkeys(KEYS, 0.0)
    print(f"{r.name} {' '.join(f'{k}={v}' for k, v in r.params.items())}: {r.value:,.1f} instructions;"
          " per operation:")
    print(f"{'penalty':>9} {'L1i':>7} {'L1d':>7} {'L2':>7} {'ITLB':>6} {'DTLB':>6} {'walks':>6}  where")
    for key, c in sorted(rows.items(), key=lambda kv: -kv[1]["pen"]):
        for k in KEYS:
            total[k] += c[k]
    for key, c in sorted(rows.items(), key=lambda kv: -kv[1]["pen"])[:a.top]:
        print(f"{c['pen']:9.1f} {c['l1i']:7.2f} {c['l1d']:7.2f} {c['l2']:7.2f} {c['itlb']:6.2f} "
              f"{c['dtlb']:6.2f} {c['walk']:6.2f}  {key}")
    c = total
    print(f"{c['pen']:9.1f} {c['l1i']:7.2f} {c['l1d']:7.2f} {c['l2']:7.2f} {c['itlb']:6.2f} "
          f"{c['dtlb']:6.2f} {c['walk']:6.2f}  total")


if __name__ == "__main__":
    main()
