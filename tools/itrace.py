#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Trace the guest instructions of one window of a Pecan run and say where they go.

    tools/itrace.py --kernel build/kernels/bench-dslq-fast/pecan.bin \\
        --root build/bench/pingpong.elf --start ustub --skip 1500 --stop ustub --stophits 2

runs the root task under QEMU TCG with tools/itrace/itrace.so (a TCG plugin, built
here on first use), logs every instruction from the (skip+1)-th execution of --start
until --stop has executed --stophits times (that last instruction not counted), and
prints the instructions, then a count per function (kernel functions after inlining
are named by addr2line, innermost first) and the total.  Addresses: a number, a
symbol of the kernel or the root task (optionally +offset), or `ustub` (the Ipc
stub's `syscall`).  A developer's tool: nothing in `make test` uses it.
"""
import argparse
import bisect
import collections
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN_SRC = os.path.join(TOP, "tools", "itrace", "itrace.c")
USTUB_IPC = 0xffffffffc0800000
KERNEL_HALF = 0xffff800000000000


def plugin(build):
    so = os.path.join(build, "itrace", "itrace.so")
    if not os.path.exists(so) or os.path.getmtime(so) < os.path.getmtime(PLUGIN_SRC):
        os.makedirs(os.path.dirname(so), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", so, PLUGIN_SRC], check=True)
    return so


class Symbols:
    """Function symbols of one ELF, and addr2line for inlined code."""

    def __init__(self, elf):
        self.elf = elf
        out = subprocess.run(["nm", "-n", "--defined-only", elf], capture_output=True,
                             text=True, check=True).stdout
        self.addrs, self.names = [], []
        for line in out.splitlines():
            a, kind, name = line.split()[:3]
            if kind.lower() in "tw":
                self.addrs.append(int(a, 16))
                self.names.append(name)
        self.lookup = dict(zip(self.names, self.addrs))

    def add(self, other):
        """Another program's symbols beside these (Mungi's image in the server's address space)."""
        pairs = sorted(zip(self.addrs + other.addrs, self.names + other.names))
        self.addrs, self.names = [a for a, _ in pairs], [n for _, n in pairs]
        self.lookup.update(other.lookup)

    def function(self, a):
        i = bisect.bisect_right(self.addrs, a) - 1
        return self.names[i] if i >= 0 else "?"

    def inlined(self, addrs):
        """addr -> innermost function (after inlining) for every address."""
        if not addrs:
            return {}
        out = subprocess.run(["addr2line", "-f", "-i", "-a", "-e", self.elf] +
                             [hex(a) for a in addrs], capture_output=True, text=True).stdout
        res, cur, first = {}, None, False
        for line in out.splitlines():
            if line.startswith("0x"):
                cur, first = int(line, 16), True
            elif first and cur is not None and not line.startswith(("/", "?")) and ":" not in line:
                res[cur], first = line, False
        return res


def resolve(spec, ksyms, usyms):
    if spec == "ustub":
        return USTUB_IPC
    name, _, off = spec.partition("+")
    for syms in (ksyms, usyms):
        if name in syms.lookup:
            return syms.lookup[name] + (int(off, 0) if off else 0)
    return int(spec, 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--start", required=True)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--stop", default=None)
    ap.add_argument("--stophits", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000000)
    ap.add_argument("--mem", type=int, default=256)
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--quiet", action="store_true", help="only the per-function counts")
    ap.add_argument("--module", action="append", default=[],
                    help="a boot module (as tools/run takes it); its symbols name user code too")
    opts = ap.parse_args()
    kelf = os.path.join(os.path.dirname(opts.kernel), "kernel.elf")
    ksyms, usyms = Symbols(kelf), Symbols(opts.root)
    for m in opts.module:
        usyms.add(Symbols(m))
    start = resolve(opts.start, ksyms, usyms)
    stop = resolve(opts.stop, ksyms, usyms) if opts.stop else None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace")
        args = f"{plugin(opts.build)},start={start},skip={opts.skip},count={opts.count},out={path}"
        if stop is not None:
            args += f",stop={stop},stophits={opts.stophits}"
        subprocess.run([os.path.join(TOP, "tools", "run"), "--icount", "--timeout", "600",
                        "--mem", str(opts.mem), "--kernel", opts.kernel, "--root", opts.root,
                        *[f"--module={m}" for m in opts.module],
                        "--qemu-arg=-plugin", f"--qemu-arg={args}"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        with open(path) as f:
            trace = [(int(line[:16], 16), line[17:].rstrip()) for line in f]
    if stop is not None and trace and trace[-1][0] == stop:
        trace.pop()
    kaddrs = sorted({a for a, _ in trace if a >= KERNEL_HALF and a < USTUB_IPC})
    inl = ksyms.inlined(kaddrs)
    where = {}
    for a, _ in trace:
        if a in where:
            continue
        if a >= USTUB_IPC and a < USTUB_IPC + 0x2000:
            where[a] = "kernel:ustub"
        elif a >= KERNEL_HALF:
            where[a] = f"kernel:{ksyms.function(a)}/{inl.get(a, '?')}"
        else:
            where[a] = f"user:{usyms.function(a)}"
    if not opts.quiet:
        for a, text in trace:
            print(f"{a:016x} {where[a]:50} {text}")
    counts = collections.Counter(where[a] for a, _ in trace)
    print("\ninstructions by function (kernel: symbol/innermost inlined function)")
    for name, n in counts.most_common():
        print(f"{n:8} {name}")
    print(f"{len(trace):8} total")
    return 0 if trace else 1


if __name__ == "__main__":
    sys.exit(main())
