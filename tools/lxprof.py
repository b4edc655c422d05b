#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Profile a stretch of a program run under lx from QEMU's instruction trace.

    tools/lxprof.py [--per NAME] [--top N] [--lx-args OPTS] OP [N]
    tools/lxprof.py --count [--lx-args OPTS] OP [N]    # the figure only, under lx
    tools/lxprof.py --linux OP [N]                     # the same workload on native Linux

Builds tools/lxprof.c (static musl) into a cpio module as /prof/lxprof and
boots Pecan with lx (--icount, one instruction per translation block) and
`/prof/lxprof OP N` as process 1.  When the console shows `PROF START`,
QEMU's exec log is switched on through its monitor, and off again at
`PROF END`: lxprof brackets N runs of OP with these lines (after one untimed run, so
the window holds only steady state).  Every logged instruction is
attributed to the function it lies in, from the symbols of the kernel, lx
and lxprof itself, and the histogram is printed.  --count skips the trace;
--linux runs the workload in the Linux baseline guest (bench/linux: its
kernel must have been fetched, `make bench-linux` does it) for comparison.  With --per
NAME the counts are divided by the number of times the function NAME was
entered: instructions per operation when NAME runs once per operation.
A developer's tool (docs/lx.md "Profiling"); no test depends on it.
"""
import argparse
import bisect
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")


def build(tmp):
    """tools/lxprof.c as /prof/lxprof in a cpio archive; (archive, binary)."""
    stage = os.path.join(tmp, "stage")
    os.makedirs(os.path.join(stage, "prof"))
    exe = os.path.join(stage, "prof", "lxprof")
    subprocess.run(["musl-gcc", "-static", "-O2", "-o", exe,
                    os.path.join(ROOT, "tools", "lxprof.c")], check=True)
    cpio = os.path.join(tmp, "prof.cpio")
    names = subprocess.run(["find", "."], cwd=stage, capture_output=True, check=True).stdout
    with open(cpio, "wb") as out:
        subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=stage,
                       input=names, stdout=out, check=True)
    return cpio, exe


def linux(exe, op, n):
    """Run lxprof_OP in the Linux guest under icount; its console."""
    tmp = tempfile.mkdtemp(prefix="lxprof-linux-")
    try:
        prog = os.path.join(tmp, f"lxprof_{op}")
        shutil.copy(exe, prog)
        guest = os.path.join(BUILD, "bench", "linux")
        initrd = os.path.join(tmp, "initramfs.cpio.gz")
        subprocess.run([os.path.join(ROOT, "bench", "linux", "mkinitramfs.sh"), initrd,
                        os.path.join(ROOT, "bench", "linux", "init"), "/bin/busybox", prog],
                       check=True)
        return subprocess.run(
            ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "Westmere-v1,+pdpe1gb",
             "-icount", "shift=0,align=off,sleep=off", "-m", "256M", "-serial", "stdio",
             "-display", "none", "-monitor", "none", "-no-reboot", "-nodefaults", "-seed", "1",
             "-rtc", "base=2026-01-01T00:00:00,clock=vm", "-kernel",
             os.path.join(guest, "vmlinuz"), "-initrd", initrd, "-append",
             "console=ttyS0 panic=-1 nokaslr norandmaps quiet loglevel=1"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600).stdout
    finally:
        shutil.rmtree(tmp)


def symbols(elf):
    """Sorted (address, name) of the ELF's functions."""
    out = subprocess.run(["nm", "-n", "--defined-only", elf], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


class Symbolizer:
    def __init__(self, elfs):
        table = []
        for tag, elf in elfs:
            table += [(a, f"{tag}:{n}") for a, n in symbols(elf)]
        table.sort()
        self.addrs = [a for a, _ in table]
        self.names = [n for _, n in table]

    def lookup(self, pc):
        """(function name, whether pc is its first instruction)."""
        if 0x7fffffffd000 <= pc < 0x7fffffffe000:
            return "lx:stub_page", False
        i = bisect.bisect_right(self.addrs, pc) - 1
        return (self.names[i], self.addrs[i] == pc) if i >= 0 else (f"?{pc:#x}", False)


def monitor(path, cmd):
    for _ in range(100):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            break
        except OSError:
            time.sleep(0.05)
    s.sendall(cmd.encode() + b"\n")
    time.sleep(0.2)
    s.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--per", help="divide by the entries into this function")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--annotate", help="also count each instruction of these functions (tag:name,...)")
    p.add_argument("--lx-args", default="", help="lx options before the program (lx.trace ...)")
    p.add_argument("--count", action="store_true", help="no trace: the figure only")
    p.add_argument("--linux", action="store_true", help="on native Linux (the bench guest)")
    p.add_argument("op")
    p.add_argument("n", nargs="?", default="200")
    opts = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="lxprof-")
    cpio, exe = build(tmp)
    if opts.linux:
        if opts.n != "200":
            sys.exit("lxprof: --linux runs 200 operations (the guest passes no arguments)")
        out = linux(exe, opts.op, opts.n)
        shutil.rmtree(tmp)
        print("\n".join(l for l in out.splitlines() if l.startswith("lxprof:")))
        return
    mon, log = os.path.join(tmp, "mon"), os.path.join(tmp, "trace.log")
    # tools/run itself (it runs QEMU among links to the modules); QEMU takes a second monitor
    cmd = [os.path.join(ROOT, "tools", "run"), "--icount", "--timeout", "3000",
           "--root", os.path.join(BUILD, "servers", "lx.elf"),
           "--module", os.path.join(BUILD, "lx", "rootfs.cpio"),
           "--root-args", f"{opts.lx_args} /prof/lxprof {opts.op} {opts.n}".strip(),
           "--module", cpio]
    if opts.count:
        out = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True).stdout
        shutil.rmtree(tmp)
        print("\n".join(l for l in out.splitlines() if l.startswith("lxprof:")))
        return
    cmd += [f"--qemu-arg={a}" for a in ("-monitor", f"unix:{mon},server=on,wait=off",
                                        "-singlestep", "-D", log)]
    q = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    seen = b""
    for chunk in iter(lambda: q.stdout.read1(4096), b""):
        sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
        seen += chunk
        if b"PROF START" in seen:
            monitor(mon, "log exec,nochain")
            seen = seen[seen.index(b"PROF START") + 10:]
        if b"PROF END" in seen:
            monitor(mon, "log none")
            seen = b""
    q.wait()
    elfs = [("k", os.path.join(BUILD, "kernel.elf")), ("lx", os.path.join(BUILD, "servers", "lx.elf"))]
    elfs.append(("prog", exe))
    sym = Symbolizer(elfs)
    hist, entries, total, pcs = Counter(), 0, 0, Counter()
    rx = re.compile(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
    with open(log, errors="replace") as f:
        for line in f:
            m = rx.match(line)
            if not m:
                continue
            name, first = sym.lookup(int(m.group(1), 16))
            hist[name] += 1
            if opts.annotate and name in opts.annotate.split(","):
                pcs[int(m.group(1), 16)] += 1
            total += 1
            if first and opts.per and name.endswith(":" + opts.per):
                entries += 1
    div = entries if opts.per and entries else 1
    print(f"lxprof: {total} instructions traced" +
          (f", {entries} entries into {opts.per}: {total / div:.1f} per entry" if opts.per else ""))
    for name, n in hist.most_common(opts.top):
        print(f"{n / div:12.1f}  {name}")
    for pc in sorted(pcs):
        print(f"{pcs[pc] / div:12.1f}  {pc:#x}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
