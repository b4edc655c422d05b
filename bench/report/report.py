#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes docs/report.md and its SVG plots from benchmark result files.

    report.py --out docs/report.md --svg-dir docs/report build/bench/*.results

Each table has the shape of a seed's table: the seed's figure, native Linux
here, Pecan here, and where both are present the ratio (Pecan / Linux), the
delta (Pecan - Linux) and the overhead in %.  A figure that is absent reads
"not yet run on Pecan"; one whose program exited non-zero reads "failed".
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seeds  # noqa: E402
import svg  # noqa: E402
from results import Results  # noqa: E402

DASH = "—"
HIGHER_IS_BETTER = {"MB_per_s", "ops_per_s"}


def fmt(v, unit="instructions"):
    if v is None:
        return DASH
    if unit == "count":
        return f"{v:,.0f}"
    if unit in ("instructions", "ops_per_s", "count") and abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:,.1f}" if abs(v) >= 10 else f"{v:,.2f}"


class Table:
    """Looks figures up, remembers which were shown, and renders rows."""

    def __init__(self, res):
        self.res = res
        self.shown = set()

    def cell(self, system, name, exact=False, **params):
        """(value, text, unit): the figure, or None and why it is missing.
        exact: only a figure that names its system (Pecan's Linux personality, not native)."""
        r = self.res.get(name, system, exact, **params)
        if r is not None:
            self.shown.add(r.key())
            text = fmt(r.value, r.unit) + (" (wall)" if r.method == "wall" else "")
            return r.value, text, r.unit
        return None, self.why_missing(system, name), None

    def cell_native(self, name, **params):
        """cell() for Pecan's native benchmarks only (not the Linux personality's figure)."""
        r = self.res.get_native(name, **params)
        if r is not None:
            self.shown.add(r.key())
            return r.value, fmt(r.value, r.unit), r.unit
        st = self.res.failure("pecan", name.split(".")[0])
        return None, f"**failed** (exit {st})" if st is not None else "not yet run on Pecan", None

    def cell_any(self, system, name, param_sets):
        """cell() for the first parameter set that has a figure (else the last's reason)."""
        for params in param_sets:
            found = self.cell(system, name, **params)
            if found[0] is not None:
                return found
        return found

    def cover(self, name):
        """Counts every figure of a benchmark as shown (a section plots them all)."""
        self.shown |= {k for k in self.res.results if k[0] == name}

    def why_missing(self, system, name):
        prog = seeds.PROG_OF.get(name) or ("reaim" if name.startswith("reaim.") else None)
        for p in (prog, name.split(".")[0], name):
            st = self.res.failure(system, p) if p else None
            if st is not None:
                return f"**failed** (exit {st})"
        return "not yet run on Pecan" if system == "pecan" else "missing"


def compare(linux, pecan, unit):
    """Ratio, delta and overhead % of Pecan against Linux, as text cells.
    For bandwidths (higher is better) the ratio is Linux / Pecan, a slowdown."""
    if linux is None or pecan is None or linux == 0 or pecan == 0:
        return [DASH, DASH, DASH]
    ratio = linux / pecan if unit in HIGHER_IS_BETTER else pecan / linux
    return [f"{ratio:.2f}", fmt(pecan - linux, unit), f"{(ratio - 1) * 100:.1f}"]


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def seed_num(v):
    return DASH if v is None else f"{v:g}"


# --- sections, one per seed table -------------------------------------------

def sec_getpid(t, plots):
    lv, lt, _ = t.cell("linux", "lmbench.getpid")
    pv, pt, _ = t.cell("pecan", "lmbench.getpid")
    _, trap_t, _ = t.cell("pecan", "lmbench.getpid", exact=True, path="trap")
    rows = []
    for system, cycles in seeds.T000_2.items():
        here = {"Linux": lt, "L4Linux": pt, "L4Linux (trampoline)": trap_t}.get(system, DASH)
        if system == "L4Linux":
            system += " (here: lx, the fast library path)"
        elif system == "L4Linux (trampoline)":
            system += " (here: lx, every call trapping, `lx.fast=0`)"
        rows.append([system, cycles, here])
    ratio = compare(lv, pv, "instructions")[0]
    return (["## Seed 000, Table 2: `getpid`", "",
             "Seed: cycles on a 133 MHz Pentium. Here: guest instructions per call, "
             "a static musl program in a tight loop. Pecan's rows are the Linux personality "
             "(L4Linux's place): the seed's L4Linux called the server from a modified C library, "
             "as lx's fast library path does from unmodified binaries by rewriting their "
             "`syscall` sites; its trampoline reflected each trap, as lx does with the path "
             f"turned off. Ratio Pecan / Linux here: {ratio} "
             f"(seed L4Linux / Linux: {526 / 223:.2f}).", ""]
            + md_table(["System", "seed [cycles]", "here [instructions]"], rows))


def sec_lmbench(t, plots):
    rows, labels, seed_r, here_r = [], [], [], []
    for label, name, params, s_linux, s_l4 in seeds.T000_3:
        lv, lt, unit = t.cell("linux", name, **params)
        pv, pt, _ = t.cell("pecan", name, **params)
        unit = unit or ("MB_per_s" if "MB/s" in label else "instructions")
        seed_ratio = s_linux / s_l4 if unit in HIGHER_IS_BETTER else s_l4 / s_linux
        here_unit = "MB/s (icount)" if unit == "MB_per_s" else "instr."
        rows.append([label, seed_num(s_linux), seed_num(s_l4), f"{seed_ratio:.2f}",
                     f"{lt} {here_unit}" if lv is not None else lt, pt] + compare(lv, pv, unit))
        labels.append(label.split(" [")[0])
        seed_r.append(seed_ratio)
        ratio = compare(lv, pv, unit)[0]
        here_r.append(float(ratio) if ratio != DASH else None)
    plots["slowdown.svg"] = svg.bars("000 Figure 6: slowdown normalised to native Linux", labels,
                                     ["seed: L4Linux / Linux", "here: Pecan / Linux"], [seed_r, here_r],
                                     "slowdown (1 = as fast as Linux; bandwidths inverted)")
    return (["## Seed 000, Table 3: lmbench and hbench:OS", "",
             "Seed columns: microseconds (or MB/s) on a 133 MHz Pentium, native Linux and "
             "L4Linux with libc.so; seed ratio is L4Linux / Linux (Linux / L4Linux for "
             "bandwidths). Here: guest instructions, or MB per guest second "
             "(10^9 instructions) for bandwidths.", ""]
            + md_table(["Test", "seed Linux", "seed L4Linux", "seed ratio", "Linux here",
                        "Pecan here", "Ratio", "Delta", "% overhead"], rows)
            + ["The network rows run over 127.0.0.1 inside the guest (`bench/posix/lat_inet.c`; "
               "RPC: Sun RPC's call and reply messages without an RPC library). "
               "Not measured here (they need a disk benchmark): "
               + "; ".join(seeds.T000_3_OMITTED) + ".", "", "![slowdown](report/slowdown.svg)", ""])


def _bw_from(v, nbytes):
    """MB per guest second for nbytes moved in v instructions."""
    return None if v is None or v <= 0 else nbytes / v * 1e3


def sec_pipes(t, plots):
    lat_l, lat_lt, _ = t.cell("linux", "lmbench.pipe_lat")
    bw_l, bw_lt, _ = t.cell("linux", "lmbench.pipe_bw", chunk_kb=64)
    lat_p, lat_pt, _ = t.cell("pecan", "lmbench.pipe_lat")
    bw_p, bw_pt, _ = t.cell("pecan", "lmbench.pipe_bw", chunk_kb=64)
    ow, ow_t, _ = t.cell("pecan", "ipc.oneway", words=0, space="inter", variant="dslq", fastpath="on")
    st, st_t, _ = t.cell_any("pecan", "ipc.string", [dict(bytes=65536, space="inter", variant="dslq",
                                                          fastpath="on"), dict(bytes=65536, space="inter")])
    l4l, l4l_t, _ = t.cell_native("l4pipe.lat")
    l4b, l4b_t, _ = t.cell_native("l4pipe.bw", chunk_kb=64)
    m4, m4_t, _ = t.cell("pecan", "vm.maprpc", bytes=4096)
    m64, m64_t, _ = t.cell("pecan", "vm.maprpc", bytes=65536)
    here = {
        "linux_pipe": (lat_l, lat_lt, bw_lt),
        "l4linux_pipe": (lat_p, lat_pt, bw_pt),
        "l4_pipe": (l4l, l4l_t, l4b_t),
        "l4_rpc": (2 * ow if ow is not None else None, fmt(2 * ow) if ow is not None else ow_t,
                   fmt(_bw_from(st, 65536), "MB_per_s") if st is not None else st_t),
        "map_rpc": (m4, m4_t, fmt(_bw_from(m64, 65536), "MB_per_s") if m64 is not None else m64_t),
    }
    rows = []
    for key, (label, s_lat, s_bw) in seeds.T000_4.items():
        lat, lat_text, bw_text = here[key]
        vs = f"{lat / lat_l:.2f}" if lat is not None and lat_l else DASH
        rows.append([label, s_lat, s_bw, lat_text, bw_text, vs])
    return (["## Seed 000, Table 4: pipes and RPC", "",
             "Latency is a round trip of one byte (one page for mapping RPC); bandwidth moves "
             "64 KiB blocks. Seed: microseconds and MB/s on a 133 MHz Pentium. Here: guest "
             "instructions per round trip and MB per guest second. (1a) is the Linux "
             "personality's pipe; (2) is `bench/l4pipe`, a pipe on bare L4 IPC with a buffer "
             "thread in the reader's space (`l4pipe.lat`, `l4pipe.bw`); (3) is twice Pecan's one-way IPC "
             "(`ipc.oneway words=0 space=inter variant=dslq fastpath=on`) and its bandwidth "
             "`ipc.string bytes=65536`; (4) is `vm.maprpc`.", ""]
            + md_table(["System", "seed latency [us]", "seed bandwidth [MB/s]",
                        "latency here [instr.]", "bandwidth here [MB/s]",
                        "latency / Linux pipe here"], rows))


def sec_vm(t, plots):
    rows = []
    for name, label, s_l4, s_linux in seeds.T000_5:
        pv, pt, _ = t.cell_native(name)
        if s_linux is None:
            lv, lt, xv, xt = None, "n/a (no user-level pager on Linux)", None, DASH
        else:
            lv, lt, _ = t.cell("linux", name)
            xv, xt, _ = t.cell("pecan", name, exact=True)
        rows.append([label, seed_num(s_l4), seed_num(s_linux), pt, lt] + compare(lv, pv, "instructions")
                    + [xt, compare(lv, xv, "instructions")[0]])
    return (["## Seed 000, Table 5: virtual-memory operations", "",
             "Seed: microseconds on a 133 MHz Pentium, L4 with a user-level pager against "
             "Linux with mprotect and a SIGSEGV handler (Appel and Li). Here: guest "
             "instructions per operation; Pecan's figures are its native L4 benchmarks, "
             "Linux's are `bench/posix/lat_vm`, which the last two columns also run on "
             "Pecan's Linux personality (mprotect and SIGSEGV through lx).", ""]
            + md_table(["Test", "seed L4", "seed Linux", "Pecan here", "Linux here",
                        "Ratio", "Delta", "% overhead", "lat_vm on the Linux personality",
                        "personality / Linux"], rows))


VARIANT_LABEL = {"dslq": "DS/LQ", "dseq": "DS/EQ", "fslq": "FS/LQ", "fseq": "FS/EQ"}
IPC_WORDS_SHOWN = [0, 1, 2, 4, 8, 16, 32, 63]


def _variants(t, name):
    """Scheduler variants with results for name: the seed's four first, then the rest."""
    found = {r.params.get("variant") for r in t.res.values(name, "pecan")} - {None}
    return [v for v in VARIANT_LABEL if v in found] + sorted(found - set(VARIANT_LABEL))


def _ipc_grid(t, words, variants, space, fastpath):
    return [[t.cell("pecan", "ipc.oneway", words=w, space=space, variant=v, fastpath=fastpath)
             for v in variants] for w in words]


def _ipc_table(grid, words, variants, seed_row):
    rows = ([seed_row] if seed_row else []) + [[f"{w} words"] + [c[1] for c in row]
                                               for w, row in zip(words, grid)]
    return md_table(["Message"] + [VARIANT_LABEL.get(v, v) for v in variants], rows)


def sec_ipc(t, plots):
    variants = _variants(t, "ipc.oneway") or list(VARIANT_LABEL)
    words = sorted({int(r.params["words"]) for r in t.res.values("ipc.oneway", "pecan")
                    if r.params.get("words", "").isdigit()} | {0})
    shown = [w for w in words if w in IPC_WORDS_SHOWN]
    slow_seed = ["seed, 0 words [cycles, PXA255]"] + [seeds.F001_3.get(v, DASH) for v in variants]
    fast_seed = ["seed Unmod, 0 words [cycles]"] + [seeds.F001_3["unmod"] if v == "dslq" else DASH
                                                     for v in variants]
    out = ["## Seed 001, Figure 3: IPC cost by message length and scheduler variant", "",
           "One-way IPC (ping-pong / 2), `ipc.oneway`. Seed: cycles on a PXA255, zero-length "
           "messages only (the figure's other points are not in its text): the unmodified "
           "kernel's assembly fastpath (Unmod) and the four C-path variants. Here: guest "
           "instructions; the seed's C paths correspond to `fastpath=off`, Unmod to "
           f"`fastpath=on`. Rows show {', '.join(map(str, IPC_WORDS_SHOWN))} words; the plot and "
           "`build/bench/*.results` have every length. Native Linux has no counterpart.", ""]
    for title, space, fast, seed_row in (("Between spaces, fastpath off", "inter", "off", slow_seed),
                                         ("Between spaces, fastpath on", "inter", "on", fast_seed),
                                         ("Within a space, fastpath off", "intra", "off", None),
                                         ("Within a space, fastpath on", "intra", "on", None)):
        grid = _ipc_grid(t, shown, variants, space, fast)
        if seed_row or any(c[0] is not None for row in grid for c in row):
            out += [f"**{title}**", ""] + _ipc_table(grid, shown, variants, seed_row)
    full = _ipc_grid(t, words, variants, "inter", "off")
    fast = _ipc_grid(t, words, ["dslq"], "inter", "on")
    series = ["DS/LQ fastpath"] + [VARIANT_LABEL.get(v, v) for v in variants]
    values = [[row[0][0] for row in fast]] + [[row[i][0] for row in full] for i in range(len(variants))]
    plots["ipc.svg"] = svg.lines("001 Figure 3: one-way IPC between spaces (Pecan)", words, series,
                                 values, "message words", "guest instructions", "no Pecan IPC results yet")
    t.cover("ipc.oneway")
    return out + ["![IPC by message length](report/ipc.svg)", ""]


def _counter(t, variant, name):
    return t.cell_any("pecan", "sched.counter", [dict(variant=variant, space="inter", counter=name),
                                                 dict(variant=variant, counter=name)])


def _counter_text(t, variant, counter):
    if not isinstance(counter, tuple):
        return _counter(t, variant, counter)[1]
    eager, actual = (_counter(t, variant, c)[0] for c in counter)
    return f"{(1 - actual / eager) * 100:.2f}%" if eager and actual is not None else DASH


def sec_counters(t, plots):
    variants = _variants(t, "sched.counter") or ["dslq"]
    rows = [[label, seed] + [_counter_text(t, v, counter) for v in variants]
            for label, counter, seed in seeds.T001_2]
    t.cover("sched.counter")
    return (["## Seed 001, Table 2: work avoided by lazy queueing and direct switch", "",
             "Seed: the Re-aim multi-user run on L4 (DS/LQ, instrumented). Here: "
             "`sched.counter space=inter counter=<name>` from Pecan's ping-pong benchmark on each "
             "scheduler variant; counts, not timings. Native Linux has no counterpart.", ""]
            + md_table(["Operation", "seed (DS/LQ)"] + [f"Pecan {VARIANT_LABEL.get(v, v)}" for v in variants],
                       rows))


def sec_reaim(t, plots):
    rows, names, lin, pec = [], [], [], []
    for task, what in seeds.REAIM_TASKS:
        lv, lt, _ = t.cell("linux", "reaim." + task)
        pv, pt, _ = t.cell("pecan", "reaim." + task)
        tput = (lambda v: 1e9 / v if v else None)
        norm = f"{lv / pv:.3f}" if lv and pv else DASH
        rows.append([f"`{task}`", what, lt, fmt(tput(lv), "ops_per_s"), pt, fmt(tput(pv), "ops_per_s"), norm]
                    + compare(lv, pv, "instructions")[1:])
        names.append(task)
        lin.append(tput(lv))
        pec.append(tput(pv))
    plots["reaim.svg"] = svg.bars("Re-aim single-user tasks: activities per guest second", names,
                                  ["native Linux", "Pecan"], [lin, pec], "activities per 10^9 instructions",
                                  log=True)
    return (["## Seed 001, Table 1 and Figure 4: Re-aim single-user tasks", "",
             "Each task re-implemented after Table 1's description (`bench/posix/reaim.c`); "
             "`udp_test` over 127.0.0.1. Here: guest instructions per "
             "activity and activities per guest second (10^9 instructions). The seed's "
             "Figure 4 normalises throughput to a reference kernel; here Pecan's throughput "
             "is normalised to native Linux's (1.000 = as fast).", ""]
            + md_table(["Task", "Activity", "Linux [instr.]", "Linux [per s]", "Pecan [instr.]",
                        "Pecan [per s]", "Pecan / Linux throughput", "Delta", "% overhead"], rows)
            + ["![Re-aim](report/reaim.svg)", ""])


def sec_004(t, plots):
    rows, labels, lin, pec = [], [], [], []
    for label, name, params, (wom, wl), (l4l, ll) in seeds.T004_1:
        lv, lt, _ = t.cell("linux", name, **params)
        pv, pt, _ = t.cell("pecan", name, **params)
        rows.append([label, f"{wom / wl:.2f}", f"{l4l / ll:.2f}", lt, pt] + compare(lv, pv, "instructions"))
        labels.append(label)
        lin.append(lv)
        pec.append(pv)
    plots["lmbench.svg"] = svg.bars("lmbench process operations and communication", labels,
                                    ["native Linux", "Pecan"], [lin, pec], "guest instructions", log=True)
    return (["## Seed 004, Tables 5.1 and 5.2: process operations and communication", "",
             "Seed: the thesis's ratios Wombat / Linux (Table 5.1) and L4Linux / Linux "
             "(Table 5.2), each against native Linux on the same machine. Here: guest "
             "instructions; Ratio = Pecan / Linux, Delta = Pecan - Linux, % overhead = "
             "(Ratio - 1) x 100, as the thesis defines them. Lower is better.", ""]
            + md_table(["Test", "seed Wombat ratio", "seed L4Linux ratio", "Linux here",
                        "Pecan here", "Ratio", "Delta", "% overhead"], rows)
            + ["![lmbench](report/lmbench.svg)", ""])


def _ctx_grid(t, system):
    return [[t.cell(system, "lmbench.ctx", procs=p, size_kb=s) for s in seeds.CTX_SIZES]
            for p in seeds.CTX_PROCS]


def _grid_table(head, grid, text):
    """A procs x sizes table, or one line when no cell has a figure."""
    if all(c[0] is None for row in grid for c in row):
        reasons = sorted({c[1] for row in grid for c in row})
        return ["All cells: " + "; ".join(reasons) + ".", ""]
    return md_table(head, [[p] + [text(c) for c in row] for p, row in zip(seeds.CTX_PROCS, grid)])


def sec_ctx(t, plots):
    head = ["Procs"] + [f"{s}k" for s in seeds.CTX_SIZES]
    out = ["## Seed 004, Tables 5.3-5.6: context switch by processes and size", "",
           "lmbench `lat_ctx`: a token passed around a ring of processes through pipes, each "
           "summing its own data of the given size; the figure is one switch, the pipe and "
           "summing work removed. Under icount caches are not modelled, so process size "
           "adds no misses here; on real hardware it dominates the 512k column.", ""]
    lin, pec = _ctx_grid(t, "linux"), _ctx_grid(t, "pecan")
    for title, grid in (("Native Linux here [instructions]", lin), ("Pecan here [instructions]", pec)):
        out += [f"**{title}**", ""] + _grid_table(head, grid, lambda c: c[1])
    if any(c[0] is not None for row in pec for c in row):
        out += ["**Ratio Pecan / Linux**", ""]
        out += md_table(head, [[p] + [compare(a[0], b[0], "instructions")[0] for a, b in zip(lr, pr)]
                               for p, lr, pr in zip(seeds.CTX_PROCS, lin, pec)])
    out += ["<details><summary>The thesis's tables (microseconds)</summary>", ""]
    for name, table in seeds.T004_CTX.items():
        out += [f"Table {name}", ""]
        out += md_table(head, [[p] + [seed_num(v) for v in vals] for p, vals in table.items()])
    out += ["</details>", "", "![context switch](report/ctx.svg)", ""]
    series, values = [], []
    for system, grid in (("Linux", lin), ("Pecan", pec)):
        for j, s in enumerate(seeds.CTX_SIZES):
            col = [row[j][0] for row in grid]
            if any(v is not None for v in col):
                series.append(f"{system} {s}k")
                values.append(col)
    plots["ctx.svg"] = svg.lines("Context switch by number of processes (004 Figures 5.1, 5.2)",
                                 seeds.CTX_PROCS, series, values, "processes", "guest instructions")
    return out


def _goal_met(ratio_text, most):
    if most is None or ratio_text == DASH:
        return DASH
    return "yes" if float(ratio_text) <= most else "no"


def sec_lx(t, plots):
    """Issue 12's table: every measure of the Linux personality as a ratio to native Linux."""
    rows = []
    for label, name, params, goal, most in seeds.LX_GOALS:
        lv, lt, unit = t.cell("linux", name, **params)
        pv, pt, punit = t.cell("pecan", name, exact=True, **params)
        ratio = compare(lv, pv, unit or punit or "instructions")[0]
        rows.append([label, lt, pt, ratio, goal, _goal_met(ratio, most)])
        if name in seeds.LX_TRAP_ROWS:
            tv, tt, _ = t.cell("pecan", name, exact=True, path="trap", **params)
            rows.append([label + ", every call trapping (`lx.fast=0`)", lt, tt,
                         compare(lv, tv, unit or "instructions")[0], DASH, DASH])
            uv, ut, _ = t.cell("pecan", name, exact=True, confine="off", **params)
            rows.append([label + ", processes not confined (`lx.confine=0`, the cost of confinement)",
                         lt, ut, compare(lv, uv, unit or "instructions")[0], DASH, DASH])
    for task, _ in seeds.REAIM_TASKS:
        lv, lt, _ = t.cell("linux", "reaim." + task)
        pv, pt, _ = t.cell("pecan", "reaim." + task, exact=True)
        tput = f"{lv / pv:.2f}" if lv and pv else DASH
        met = DASH if tput == DASH else ("yes" if float(tput) >= seeds.LX_REAIM_GOAL else "no")
        rows.append([f"Re-aim `{task}` (throughput Pecan / Linux)", lt, pt, tput,
                     f">= {seeds.LX_REAIM_GOAL}", met])
    return (["## Pecan's Linux personality against native Linux", "",
             "The same static binaries at the same scale on native Linux and on lx "
             "(`make bench-lx`), guest instructions per operation (MB per guest second for "
             "bandwidth). Ratio = Pecan / Linux (for bandwidth Linux / Pecan, a slowdown; for "
             "Re-aim the throughput ratio Pecan / Linux, higher is better). Goals are issue 12's; "
             "the seeds' L4Linux reached 2.4x for getpid and 4.7x / 5.3x for fork+exit / "
             "fork+execve (000 Table 2, 004 Table 5.2).", ""]
            + md_table(["Measure", "Linux here", "Pecan here", "Ratio", "goal", "met"], rows))


def sec_scale(t, plots):
    rows = []
    for n in seeds.SCALE_ALIVE:
        lv, lt, _ = t.cell("linux", "scale.fork_exit", alive=n)
        pv, pt, _ = t.cell("pecan", "scale.fork_exit", exact=True, alive=n)
        rows.append([f"{n:,}", lt, pt] + compare(lv, pv, "instructions"))
    return (["## Process creation with many processes alive", "",
             "`bench/posix/lat_scale`: fork+exit (as `lat_proc`) while this many processes of "
             "the benchmark exist, itself and idle children blocked in a read of a pipe. Guest "
             "instructions per fork+exit. On Pecan it runs in its own boot whose kernel pool is "
             "half the RAM instead of a sixteenth (1,000 Linux processes need about 56 MiB of "
             "kernel memory; `docs/lx.md`).", ""]
            + md_table(["Processes alive", "Linux here", "Pecan here", "Ratio", "Delta",
                        "% overhead"], rows))



def _speedup(linux, mungi):
    return f"{linux / mungi:.1f}x" if linux and mungi else DASH


def sec_002_t1(t, plots):
    rows = []
    for label, mungi, linux, s_m, s_l in seeds.T002_1:
        mv, mt, _ = t.cell("mungi", mungi[0], **mungi[1])
        lv, lt, _ = t.cell("linux", linux[0], **linux[1]) if linux else (None, "N/A", None)
        rows.append([label, s_m, s_l, mt, lt, _speedup(lv, mv)] + compare(lv, mv, "instructions")[:1])
    pdx, _, _ = t.cell("mungi", "mungi.pdx")
    rpc, _, _ = t.cell("linux", "rpc.pipe")
    restricted, _, _ = t.cell("mungi", "mungi.pdx", restricted=1)
    goals = ["Goals (measured, never asserted): a PDX call at least 20x faster than a Linux RPC "
             f"over pipes: **{_speedup(rpc, pdx)}**; confinement at no measurable cost: a confined "
             f"caller's PDX call costs **{restricted / pdx:.3f}** times an unconfined one's."
             if pdx and rpc and restricted else "Goals: not all figures are there.", ""]
    return (["## Seed 002, Table 1: Mungi microbenchmarks", "",
             "Seed: microseconds on a 100 MHz MIPS R4600 (Mungi on L4, and Linux on the same Indy). "
             "Here: guest instructions per operation, Mungi on Pecan (`bench/mungi/mbench.c`) against "
             "native Linux (`bench/posix`), each row's Linux counterpart named in the row as the seed chose it. "
             "Speedup = Linux / Mungi; Ratio = Mungi / Linux.", ""]
            + md_table(["Operation", "seed Mungi [us]", "seed Linux [us]", "Mungi here", "Linux here",
                        "Speedup", "Ratio"], rows) + goals)


def _oo1_row(t, system, variant):
    return [t.cell(system, "oo1." + op, variant=variant) for op in seeds.OO1_OPS]


def _oo1_table(t, title, seed_rows, here_rows):
    rows = [[f"seed: {label} [ms]"] + vals for label, vals in seed_rows]
    rows += [[label] + [c[1] for c in cells] for label, cells in here_rows]
    return [f"**{title}**", ""] + md_table(["System"] + seeds.OO1_OPS, rows)


def sec_002_t2(t, plots):
    here = [("Linux here [instr.]", _oo1_row(t, "linux", "single")),
            ("Mungi here [instr.]", _oo1_row(t, "mungi", "single"))]
    return (["## Seed 002, Table 2: OO1, single process", "",
             "The OO1 database of its appendix (`bench/oo1/oo1.h`, the same code and random numbers "
             "everywhere): 20,000 parts; lookup is 1,000 random parts, forward one traversal to depth 7 "
             "(3,280 parts), reverse one reverse traversal scaled to 3,280 parts, insert 100 parts with "
             "3 connections each. The database is in the client's own address space (Linux) or protection "
             "domain (Mungi). Seed: milliseconds on the Indy; here: guest instructions.", ""]
            + _oo1_table(t, "OO1 single process", seeds.T002_2, here))


def sec_002_t3(t, plots):
    variants = [("Linux here, RPC over pipes", "linux", "pipe"),
                ("Linux here, RPC over SysV message queues", "linux", "msgq"),
                ("Mungi here, PDX", "mungi", "pdx"),
                ("Mungi here, PDX, restricted (confined client)", "mungi", "pdx_restricted")]
    here = [(label + " [instr.]", _oo1_row(t, system, v)) for label, system, v in variants]
    totals = {v: t.cell(system, "oo1.total", variant=v)[0] for _, system, v in variants}
    goal = (f"Goal (measured, never asserted): OO1 multi-domain at least 10x faster than Linux: "
            f"**{_speedup(totals['pipe'], totals['pdx'])}** against pipes, "
            f"**{_speedup(totals['msgq'], totals['pdx'])}** against message queues; the restricted "
            f"(confined) run costs **{totals['pdx_restricted'] / totals['pdx']:.3f}** times the other."
            if all(totals.values()) else "Goal: not all figures are there.")
    return (["## Seed 002, Table 3: OO1, database in its own protection domain", "",
             "The client calls the database for every lookup, traversal, new part and connection; the "
             "database returns each part by calling a procedure the client supplied: on Mungi a PDX call "
             "with the client's APD, the database calling back by a nested PDX call with an empty APD; on "
             "Linux an RPC to a server process, which calls back by another RPC (the seed's appendix).", ""]
            + _oo1_table(t, "OO1 multi-domain", seeds.T002_3, here) + [goal, ""])


def _scale_counts(t, name, param):
    return sorted({int(r.params[param]) for r in t.res.values(name, "pecan")
                   if r.params.get(param, "").isdigit()})


def sec_kernel_scale(t, plots):
    """bench/scale: Pecan's kernel paths against what exists (no seed, no Linux row)."""
    threads = _scale_counts(t, "scale.ipc.oneway", "threads")
    maps = _scale_counts(t, "scale.vm.map", "mappings")
    spaces = _scale_counts(t, "scale.task.create_delete", "spaces")
    if not (threads or maps or spaces):
        return []
    out = ["## Scaling of Pecan's kernel paths", "",
           "`bench/scale` (`make bench-scale`), DS/LQ: the same operation while more threads, "
           "mappings or spaces exist; the goal is a flat row. Guest instructions per operation "
           "(map and unmap: per page of a 64-page fpage).", ""]
    ipc = [[t.cell("pecan", "scale.ipc.oneway", threads=n, fastpath=f) for f in ("on", "off")]
           for n in threads]
    out += md_table(["Threads alive", "one-way IPC, fastpath", "one-way IPC, slowpath"],
                    [[str(n)] + [c[1] for c in row] for n, row in zip(threads, ipc)])
    vm = [[t.cell("pecan", f"scale.vm.{op}", mappings=n, pages=64, fastpath="on") for op in ("map", "unmap")]
          for n in maps]
    out += [""] + md_table(["Mappings in the database", "map per page", "unmap per page"],
                           [[str(n)] + [c[1] for c in row] for n, row in zip(maps, vm)])
    task = [t.cell("pecan", "scale.task.create_delete", spaces=n, fastpath="on") for n in spaces]
    out += [""] + md_table(["Spaces alive", "task create+delete"],
                           [[str(n), c[1]] for n, c in zip(spaces, task)])
    # one plot: each series against its own count, as the count's position 1..4
    series = ["IPC fastpath", "IPC slowpath", "map / page", "unmap / page", "task create+delete / 10"]
    cols = max(len(threads), len(maps), len(spaces))
    values = [[row[0][0] for row in ipc], [row[1][0] for row in ipc], [row[0][0] for row in vm],
              [row[1][0] for row in vm], [c[0] / 10 if c[0] is not None else None for c in task]]
    values = [v + [None] * (cols - len(v)) for v in values]
    plots["scale.svg"] = svg.lines("Pecan: cost as the system grows", list(range(1, cols + 1)), series,
                                   values, "step: threads 2/100/1k/10k, mappings 1k/10k/100k, "
                                   "spaces 1/100/1k", "guest instructions")
    for name in ("scale.ipc.oneway", "scale.vm.map", "scale.vm.unmap", "scale.task.create_delete"):
        t.cover(name)
    return out + ["", "![Scaling](report/scale.svg)", ""]


SECTIONS = [sec_lx, sec_getpid, sec_lmbench, sec_pipes, sec_vm, sec_ipc, sec_counters, sec_reaim, sec_004,
            sec_ctx, sec_scale, sec_kernel_scale, sec_002_t1, sec_002_t2, sec_002_t3]


def sec_runs(res):
    runs = {os.path.basename(src): {} for src in res.sources}
    for source, k, v in res.meta:
        runs.setdefault(os.path.basename(source), {})[k] = v
    rows = [[src, m.get("commit", DASH), m.get("qemu", DASH), m.get("kernel", DASH),
             m.get("cpu", DASH), m.get("host_cpu", DASH).replace("_", " "),
             m.get("scale", DASH), m.get("host_seconds", DASH)] for src, m in sorted(runs.items())]
    return (["## Runs", ""]
            + md_table(["results file", "commit", "QEMU", "guest kernel", "guest CPU", "host CPU",
                        "scale [%]", "host wall-clock [s]"], rows)
            + ["**Method** (`docs/bench-method.md`): every system runs in "
               "`qemu-system-x86_64 -accel tcg -cpu Westmere-v1,+pdpe1gb,+rdrand -icount shift=0,align=off,sleep=off` "
               "(a pinned CPU model: the guests see the same CPU on every host), "
               "where the guest's time-stamp counter advances one tick per executed guest "
               "instruction. Figures marked `icount` (all of them unless a cell says "
               "\"(wall)\") are **exact guest-instruction counts**: they repeat identically "
               "run after run, and they count instructions, not cycles (cache misses, TLB "
               "refills and the true price of privileged instructions are invisible). Bandwidths "
               "and throughputs are per guest second, 10^9 instructions. The only wall-clock "
               "figure is each run's host time above, which varies with the host's load. "
               "Seed figures are the papers' own, in their units on their hardware: compare "
               "ratios with ratios, never absolute values across the columns.", ""])


OTHER_MAX_ROWS = 8   # a benchmark with more unshown figures gets one summary line


def sec_other(t):
    groups = {}
    for key, r in sorted(t.res.results.items()):
        if key not in t.shown:
            groups.setdefault((r.name, r.system), []).append(r)
    rows = []
    for (name, system), rs in sorted(groups.items()):
        if len(rs) > OTHER_MAX_ROWS:
            lo, hi = min(r.value for r in rs), max(r.value for r in rs)
            rows.append([name, system or DASH, f"{len(rs)} parameter sets",
                         f"{fmt(lo, rs[0].unit)} to {fmt(hi, rs[0].unit)}", rs[0].unit, rs[0].method])
            continue
        rows += [[name, system or DASH, " ".join(f"{k}={v}" for k, v in sorted(r.params.items())) or DASH,
                  fmt(r.value, r.unit), r.unit, r.method] for r in rs]
    if not rows:
        return []
    return (["## Other results", "", "Figures no seed table above shows (all of them are in "
             "`build/bench/*.results`).", ""]
            + md_table(["benchmark", "system", "parameters", "value", "unit", "method"], rows))


def sec_problems(res):
    lines = [f"- program `{prog}` on {system} exited with status {st}"
             for (system, prog), st in sorted(res.status.items()) if st != 0]
    lines += [f"- malformed line: {e}" for e in res.errors]
    return ["## Problems", ""] + (lines or ["None: every program ran to completion."]) + [""]


def render(res):
    """(markdown text, {svg file name: svg text}) for all results read."""
    t, plots = Table(res), {}
    out = ["# Pecan benchmark report", "",
           "Generated by `make bench` (`bench/report/report.py`) from `build/bench/*.results`; "
           "do not edit by hand. Ratio = Pecan / native Linux here (a slowdown for "
           "bandwidths, Linux / Pecan), Delta = Pecan - Linux, % overhead = (Ratio - 1) x 100.", ""]
    out += sec_runs(res)
    for section in SECTIONS:
        out += section(t, plots)
    out += sec_other(t)
    out += sec_problems(res)
    return "\n".join(out).rstrip("\n") + "\n", plots


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the markdown report to write")
    ap.add_argument("--svg-dir", required=True, help="folder for the SVG plots")
    ap.add_argument("results", nargs="*", help="result files (RESULT/STATUS/META lines)")
    args = ap.parse_args(argv)
    res = Results()
    for path in args.results:
        if os.path.exists(path):
            res.read_file(path)
    text, plots = render(res)
    os.makedirs(args.svg_dir, exist_ok=True)
    for name, body in plots.items():
        with open(os.path.join(args.svg_dir, name), "w") as f:
            f.write(body)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"report.py: wrote {args.out} and {len(plots)} plots from {len(res.results)} results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
