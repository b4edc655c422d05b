# SPDX-License-Identifier: MIT
"""The portable suite under lx, Pecan's Linux personality, once, with tiny
iteration counts, booted as `make bench-lx` boots it (the suite on the kernel
of record, lat_scale's 1,000 processes on the same kernel with the larger
pool; the two boots run side by side): every program must run to completion
and print well-formed RESULT lines, and every figure the report needs must be
there.  No timing is checked."""
import functools
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchlib import BUILD, TOP, expected_linux_names, results
from harness import run_group

SMOKE = os.path.join(BUILD, "bench", "smoke")
BOOT = os.path.join(TOP, "bench", "lx", "boot.sh")
LX = os.path.join(BUILD, "servers", "lx.elf")
LXFS = os.path.join(BUILD, "lx", "rootfs.cpio")
# (kernel, results file, bench/lx/init arguments), as mk/bench.mk's bench-lx
BOOTS = [("bench-dslq-fast", "pecan-lx.results", "skip=lat_scale"),
         ("bench-dslq-fast-bigpool", "pecan-lx-scale.results", "only=lat_scale")]


def programs():
    src = os.path.join(TOP, "bench", "posix")
    return sorted(f[:-2] for f in os.listdir(src)
                  if f.endswith(".c") and f not in ("bench.c", "hello.c"))


def boot(kernel, out, args, timeout="900"):
    p = run_group([BOOT, os.path.join(BUILD, "kernels", kernel, "pecan.bin"), LX, LXFS, "1", out, args],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  env=dict(os.environ, BENCH_TIMEOUT=timeout), stdin=subprocess.DEVNULL)
    with open(out + ".log", errors="replace") as f:
        return p.returncode, p.stderr, f.read()


@functools.lru_cache(maxsize=None)
def smoke_run():
    """Both boots at BENCH_SCALE=1, in parallel; [(status, results path, log)]."""
    outs = [os.path.join(SMOKE, name) for _, name, _ in BOOTS]
    with ThreadPoolExecutor(max_workers=len(BOOTS)) as pool:
        runs = list(pool.map(lambda b: boot(b[0], b[1], b[2]), [(k, o, a) for (k, _, a), o in zip(BOOTS, outs)]))
    return [(rc, out, log) for (rc, _, log), out in zip(runs, outs)]


def read_smoke():
    res, logs = results.Results(), ""
    for rc, out, log in smoke_run():
        assert rc == 0, f"the suite on lx did not finish (boot.sh status {rc}):\n" + "\n".join(log.splitlines()[-30:])
        res.read_file(out)
        logs += log
    return res, logs


@pytest.mark.parametrize("which", [b[1] for b in BOOTS])
def test_suite_finishes(which):
    rc, _, log = smoke_run()[[b[1] for b in BOOTS].index(which)]
    assert rc == 0 and "BENCH DONE" in log, "\n".join(log.splitlines()[-30:])


@pytest.mark.parametrize("prog", programs())
def test_program_runs(prog):
    res, log = read_smoke()
    assert ("pecan", prog) in res.status, f"{prog} never reported:\n" + log[-3000:]
    assert res.status[("pecan", prog)] == 0, f"{prog} exited {res.status[('pecan', prog)]}:\n" + log[-3000:]


def test_results_well_formed():
    _, log = read_smoke()
    lines = [l.strip() for l in log.splitlines() if l.strip().startswith("RESULT")]
    assert lines
    for line in lines:
        r = results.parse_result(line)      # raises on a malformed line
        # lat_ctx subtracts its one-process overhead; with two iterations a switch on lx can come
        # out at or below it, so only its sign is free
        assert r.system == "pecan" and r.method == "icount" and (r.value > 0 or r.name == "lmbench.ctx"), line


def test_every_report_figure_present():
    res, _ = read_smoke()
    got = {(r.name, tuple(sorted(r.params.items()))) for r in res.results.values() if r.system == "pecan"}
    assert not expected_linux_names() - got, sorted(expected_linux_names() - got)
    assert not res.errors


def test_unfinished_run_fails(tmp_path):
    """A suite that does not reach BENCH DONE (here: stopped after 5 s) must fail boot.sh."""
    rc, err, _ = boot("bench-dslq-fast", str(tmp_path / "cut.results"), "only=lat_ctx", timeout="5")
    assert rc != 0 and "did not finish" in err
