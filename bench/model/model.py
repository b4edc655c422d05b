#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make bench-model`: the cost model (tools/costmodel) beside the instruction count.

Boots the Linux guest, Pecan with lx, and Pecan's ping-pong under the TCG plugin
tools/costmodel, each twice: with CR3 writes flushing the TLBs (cr3=flush) and with
CR3 writes keeping them (cr3=keep: tagged TLBs, as PCID or small spaces would give).
Pairs the plugin's k-th group with the run's k-th RESULT line, turns each figure in
instructions into estimated cycles, and writes BUILD/bench/model/<run>.results
(unit=cycles method=model, not read by the main report) and the side-by-side table
(--table, docs/report-model.md).  The model and its parameters:
docs/bench-method.md, "The cost model".
"""
import argparse
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "report"))
import results  # noqa: E402

CPU = "Westmere-v1,+pdpe1gb,+rdrand"
PROGRAMS = "lat_syscall,lat_pagefault,lat_pipe,lat_proc,lat_sig,lat_vm"
# figures made of two windows, the first less the second with one divisor
DIFFERENCE = {"lmbench.pagefault", "lmbench.ctx"}

# (label, system for the row, name, params) of the table, in order
ROWS = [
    ("ipc one-way, 0 words, between spaces", "pecan-ipc", "ipc.oneway", {"words": "0", "space": "inter"}),
    ("ipc one-way, 8 words, between spaces", "pecan-ipc", "ipc.oneway", {"words": "8", "space": "inter"}),
    ("ipc one-way, 63 words, between spaces", "pecan-ipc", "ipc.oneway", {"words": "63", "space": "inter"}),
    ("ipc one-way, 0 words, within one space", "pecan-ipc", "ipc.oneway", {"words": "0", "space": "intra"}),
    ("exception round trip (`ud2` to a user handler and back)", "pecan-kbench", "exc.roundtrip", {}),
    ("foreign-syscall round trip (`syscall` to a user handler and back)", "pecan-kbench",
     "foreign_syscall.roundtrip", {}),
    ("getpid", "lx", "lmbench.getpid", {}),
    ("read 1 byte", "lx", "lmbench.read", {}),
    ("write 1 byte", "lx", "lmbench.write", {}),
    ("stat", "lx", "lmbench.stat", {}),
    ("fstat", "lx", "lmbench.fstat", {}),
    ("open+close", "lx", "lmbench.open_close", {}),
    ("page fault, file", "lx", "lmbench.pagefault", {"memory": "file"}),
    ("page fault, anonymous", "lx", "lmbench.pagefault", {"memory": "anon"}),
    ("pipe round trip", "lx", "lmbench.pipe_lat", {}),
    ("fork+exit", "lx", "lmbench.fork_exit", {}),
    ("fork+execve", "lx", "lmbench.fork_execve", {}),
    ("sigaction", "lx", "lmbench.sig_install", {}),
    ("kill to self, handled", "lx", "lmbench.sig_catch", {}),
    ("seed 000 Table 5: trap (SIGSEGV to handler)", "lx", "vm.trap", {}),
    ("seed 000 Table 5: Appel 1 (trap+prot1+unprot)", "lx", "vm.appel1", {}),
    ("seed 000 Table 5: Appel 2 (protN+trap+unprot)", "lx", "vm.appel2", {}),
]
# seed 000 Table 4: an RPC is two one-way IPCs, against Linux's pipe round trip
RPC_ROW = ("L4 RPC (2 x one-way, 0 words) vs pipe round trip", "lmbench.pipe_lat")
# a system call handled by a user-level server (kbench's handler answers getpid) against Linux's getpid
FOREIGN_ROW = ("foreign_syscall.roundtrip", "lmbench.getpid")


def parse_model(path):
    """[(windows: [dict]), ...] in group order, and the MODEL line's settings."""
    groups, settings = [], {}
    for line in open(path):
        if line.startswith("MODEL "):
            settings = dict(f.split("=", 1) for f in line.split()[1:])
        elif line.startswith("GROUP "):
            _, *windows = line.rstrip("\n").split(" | ")
            groups.append([{k: int(v) for k, v in (f.split("=") for f in w.split())} for w in windows])
    return groups, settings


def estimate(name, value, windows):
    """Estimated cycles for one figure and whether it is exact within the model."""
    cyc = [w["insns"] + w["pen"] for w in windows]
    ins = [w["insns"] for w in windows]
    if len(windows) == 1 and ins[0]:
        return value * cyc[0] / ins[0], True
    if len(windows) == 2 and name in DIFFERENCE and ins[0] != ins[1]:
        return value * (cyc[0] - cyc[1]) / (ins[0] - ins[1]), True
    if windows and sum(ins):
        return value * sum(cyc) / sum(ins), False
    return None, False


def pair(results_path, model_path):
    """[(Result, windows)] for every figure of the run, in order (one group mark each)."""
    res = []
    for line in open(results_path, errors="replace"):
        if line.startswith("RESULT ") and not line.startswith("RESULT name=sched.counter "):
            res.append(results.parse_result(line.strip()))   # counters: no mark, no window
    groups, settings = parse_model(model_path)
    if len(groups) != len(res):
        raise SystemExit(f"model: {results_path}: {len(res)} figures but {len(groups)} groups")
    return list(zip(res, groups)), settings


# ---- the runs ----

SITES = False   # --sites: the plugin also writes SITE lines (tools/costsites.py)


def plugin_arg(so, out, cr3, glob):
    return f"{so},out={out},cr3={cr3},global={glob}" + (",sites=on" if SITES else "")


def run_linux(a, so, cr3):
    base = os.path.join(a.out_dir, f"linux-{cr3}")
    # Linux on this CPU model isolates its page tables (PTI: two CR3 writes per entry)
    # and then maps nothing global but its entry code: global=none
    env = dict(os.environ, BENCH_QEMU_ARGS="-plugin " + plugin_arg(so, base + ".model", cr3, "none"),
               BENCH_APPEND=f"bench.only={a.programs}")
    subprocess.run([os.path.join(TOP, "bench", "linux", "boot.sh"), os.path.join(a.build, "bench", "linux"),
                    str(a.scale), base + ".results"], env=env, check=True, stdin=subprocess.DEVNULL)
    return base


def run_lx(a, so, cr3):
    base = os.path.join(a.out_dir, f"lx-{cr3}")
    env = dict(os.environ, BENCH_PLUGIN=plugin_arg(so, base + ".model", cr3, "upper"))
    subprocess.run([os.path.join(TOP, "bench", "lx", "boot.sh"),
                    os.path.join(a.build, "kernels", "bench-dslq-fast", "pecan.bin"),
                    os.path.join(a.build, "servers", "lx.elf"), os.path.join(a.build, "lx", "rootfs.cpio"),
                    str(a.scale), base + ".results", f"only={a.programs}"],
                   env=env, check=True, stdin=subprocess.DEVNULL)
    return base


def run_root(a, so, cr3, system, program, root_args=""):
    """Pecan with build/bench/PROGRAM.elf as its root task, which prints `PROGRAM: done`."""
    base = os.path.join(a.out_dir, f"{system}-{cr3}")
    cmd = [os.path.join(TOP, "tools", "run"), "--icount", "--cpu", CPU, "--timeout", "1500",
           "--kernel", os.path.join(a.build, "kernels", "bench-dslq-fast", "pecan.bin"),
           "--root", os.path.join(a.build, "bench", program + ".elf"), "--root-args", root_args,
           "--qemu-arg=-plugin", "--qemu-arg=" + plugin_arg(so, base + ".model", cr3, "upper")]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    with open(base + ".results", "w") as f:
        f.write("".join(l + "\n" for l in p.stdout.splitlines() if l.startswith(("RESULT ", "META "))))
    if p.returncode != 0 or f"{program}: done" not in p.stdout:
        raise SystemExit(f"model: {program} failed (status {p.returncode}):\n{p.stdout[-2000:]}")
    return base


def run_ipc(a, so, cr3):
    return run_root(a, so, cr3, "pecan-ipc", "pingpong")


def run_kbench(a, so, cr3):
    """kbench's two round trips only (root argument `roundtrips`)."""
    return run_root(a, so, cr3, "pecan-kbench", "kbench", "roundtrips")


def build_plugin(out_dir):
    so = os.path.join(out_dir, "costmodel.so")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", so,
                    os.path.join(TOP, "tools", "costmodel", "costmodel.c")], check=True)
    return so


# ---- output ----

def write_results(base, paired, settings):
    with open(base + ".model.results", "w") as f:
        f.write(f"META model cr3={settings.get('cr3')} global={settings.get('global')}\n")
        for r, windows in paired:
            cycles, exact = estimate(r.name, r.value, windows)
            if cycles is None or r.unit != "instructions":
                continue
            params = " ".join(f"{k}={v}" for k, v in r.params.items())
            sysp = f" system={r.system}" if r.system else ""
            f.write(f"RESULT name={r.name}{sysp}{' ' + params if params else ''} value={cycles:.1f} "
                    f"unit=cycles method=model{'' if exact else '_approx'}\n")


def index(paired):
    """(name, params subset match) -> (instructions, cycles, per-op misses)."""
    out = []
    for r, windows in paired:
        cycles, exact = estimate(r.name, r.value, windows)
        out.append((r, windows, cycles, exact))
    return out


def find(idx, name, params):
    """(instructions, estimated cycles, windows, exact) of one figure, or None."""
    for r, windows, cycles, exact in idx:
        if r.name == name and all(r.params.get(k) == v for k, v in params.items()):
            if r.name != "ipc.oneway" or (r.params.get("variant") == "dslq" and r.params.get("fastpath") == "on"):
                return r.value, cycles, windows, exact
    return None


def cyc(found):
    """The estimate's cell value; model_approx ones are marked by fmt_cycles."""
    return found and found[1]


def fmt_cycles(found):
    return fmt(cyc(found)) if cyc(found) is None or found[3] else "≈" + fmt(cyc(found))


def per_op(value, windows, key):
    """Events of one kind per operation: the window's (or the difference of two
    windows') count scaled as its instructions are to the figure."""
    if len(windows) == 1 and windows[0]["insns"]:
        return windows[0][key] * value / windows[0]["insns"]
    if len(windows) == 2 and windows[0]["insns"] != windows[1]["insns"]:
        return (windows[0][key] - windows[1][key]) * value / (windows[0]["insns"] - windows[1]["insns"])
    return None


def fmt(v, digits=0):
    return "—" if v is None else f"{v:,.{digits}f}"


def ratio(a, b):
    return "—" if a is None or b is None or not b else f"{a / b:.2f}"


def table(runs, scale):
    lines = ["# The cost model beside the instruction count", "",
             "Generated by `make bench-model` (bench/model/model.py); the model and its parameters are in",
             "docs/bench-method.md, \"The cost model\".  Estimated cycles are a model's output, not a",
             "measurement: instructions plus fixed penalties for TLB and cache misses.",
             f"All runs at BENCH_SCALE={scale}, programs {PROGRAMS.replace(',', ', ')}.",
             "`flush`: every CR3 write flushes the non-global TLB entries (no PCID; the Linux guest",
             "runs with page-table isolation, two CR3 writes per kernel entry); `keep`: CR3 writes flush",
             "nothing (PCID, or L4 small spaces).  Ratios are Pecan over Linux.  ≈: a figure of",
             "several windows estimated with the ratio of their sums.  vm.trap times its traps with",
             "reads the model ignores (docs/bench-method.md): no estimate.", ""]
    head = ("| figure | Linux instr. | Pecan instr. | ratio | Linux cycles (flush) | Pecan cycles (flush) | ratio "
            "| Linux cycles (keep) | Pecan cycles (keep) | ratio |")
    lines += [head, "|" + " --- |" * 10]
    why = ["", "Where the penalties come from, per operation, `flush` runs (Linux / Pecan):", "",
           "| figure | CR3 writes | page walks | L1 misses (i+d) | L2 misses |", "| --- | --- | --- | --- | --- |"]
    for label, sysname, name, params in ROWS:
        pf = find(runs.get((sysname, "flush"), []), name, params)
        pk = find(runs.get((sysname, "keep"), []), name, params)
        lf = find(runs.get(("linux", "flush"), []), name, params) if sysname == "lx" else None
        lk = find(runs.get(("linux", "keep"), []), name, params) if sysname == "lx" else None
        li, pi = lf and lf[0], pf and pf[0]
        lines.append(f"| {label} | {fmt(li)} | {fmt(pi)} | {ratio(pi, li)} | {fmt_cycles(lf)} | "
                     f"{fmt_cycles(pf)} | {ratio(cyc(pf), cyc(lf))} | {fmt_cycles(lk)} | "
                     f"{fmt_cycles(pk)} | {ratio(cyc(pk), cyc(lk))} |")
        cells = []
        for keys in (("cr3",), ("walk",), ("l1i", "l1d"), ("l2",)):
            ev = [None if not r or None in (per_op(r[0], r[2], k) for k in keys)
                  else sum(per_op(r[0], r[2], k) for k in keys) for r in (lf, pf)]
            cells.append(f"{fmt(ev[0], 1)} / {fmt(ev[1], 1)}")
        why.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += why
    label, pipe = RPC_ROW
    cells = []
    for variant in ("flush", "keep"):
        ipc = find(runs.get(("pecan-ipc", variant), []), "ipc.oneway", {"words": "0", "space": "inter"})
        lin = find(runs.get(("linux", variant), []), pipe, {})
        cells.append((ipc and 2 * ipc[0], lin and lin[0], ipc and 2 * ipc[1], lin and lin[1]))
    (ri, li, rc, lc), (_, _, rck, lck) = cells
    lines += ["", "Seed 000 Table 4 (an L4 RPC against Linux's pipe round trip):", "",
              "| | L4 RPC | Linux pipe | ratio |", "| --- | --- | --- | --- |",
              f"| instructions | {fmt(ri)} | {fmt(li)} | {ratio(ri, li)} |",
              f"| cycles, flush | {fmt(rc)} | {fmt(lc)} | {ratio(rc, lc)} |",
              f"| cycles, keep | {fmt(rck)} | {fmt(lck)} | {ratio(rck, lck)} |"]
    exc, pid = FOREIGN_ROW
    rows = []
    for variant in ("flush", "keep"):
        fs = find(runs.get(("pecan-kbench", variant), []), exc, {})
        lg = find(runs.get(("linux", variant), []), pid, {})
        rows.append((fs, lg))
    (ff, lf), (fk, lk) = rows
    lines += ["", "A Linux `getpid` answered by a user-level handler over exception IPC (kbench's",
              "foreign-syscall round trip, no lx) against Linux's own `getpid`:", "",
              "| | foreign syscall | Linux getpid | ratio |", "| --- | --- | --- | --- |",
              f"| instructions | {fmt(ff and ff[0])} | {fmt(lf and lf[0])} | {ratio(ff and ff[0], lf and lf[0])} |",
              f"| cycles, flush | {fmt(cyc(ff))} | {fmt(cyc(lf))} | {ratio(cyc(ff), cyc(lf))} |",
              f"| cycles, keep | {fmt(cyc(fk))} | {fmt(cyc(lk))} | {ratio(cyc(fk), cyc(lk))} |"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--out-dir", default=None)
    ap.add_argument("--table", default=None, help="markdown file for the table")
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--programs", default=PROGRAMS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-run", action="store_true", help="only pair and tabulate earlier runs")
    ap.add_argument("--systems", default="linux,lx,pecan-ipc,pecan-kbench", help="which systems to boot")
    ap.add_argument("--sites", action="store_true", help="misses by instruction (tools/costsites.py)")
    a = ap.parse_args()
    global SITES
    SITES = a.sites
    a.build = os.path.abspath(a.build)      # tools/run starts QEMU in a directory of its own
    a.out_dir = os.path.abspath(a.out_dir or os.path.join(a.build, "bench", "model"))
    os.makedirs(a.out_dir, exist_ok=True)
    jobs = [(s, f, v) for s, f in (("linux", run_linux), ("lx", run_lx), ("pecan-ipc", run_ipc),
                                   ("pecan-kbench", run_kbench))
            for v in ("flush", "keep")]
    if not a.no_run:
        so = build_plugin(a.out_dir)
        wanted = a.systems.split(",")
        with ThreadPoolExecutor(a.jobs) as ex:
            futs = [ex.submit(f, a, so, v) for s, f, v in jobs if s in wanted]
            failed = [fut.exception() for fut in futs if fut.exception()]
    else:
        failed = []
    runs = {}
    for s, _, v in jobs:
        base = os.path.join(a.out_dir, f"{s}-{v}")
        if os.path.exists(base + ".model"):
            paired, settings = pair(base + ".results", base + ".model")
            write_results(base, paired, settings)
            runs[(s, v)] = index(paired)
    text = table(runs, a.scale)
    if a.table:
        with open(a.table, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    if failed:
        sys.exit(f"model: {len(failed)} runs failed: {failed}")


if __name__ == "__main__":
    main()
