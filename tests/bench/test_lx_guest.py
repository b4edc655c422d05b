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

from benchlib import (BUILD, TOP, assert_every_figure, assert_program_ran, assert_well_formed,
                      programs, results)
from harness import run_group

SMOKE = os.path.join(BUILD, "bench", "smoke")
BOOT = os.path.join(TOP, "bench", "lx", "boot.sh")
LX = os.path.join(BUILD, "servers", "lx.elf")
LXFS = os.path.join(BUILD, "lx", "rootfs.cpio")
# (kernel, results file, bench/lx/init arguments), as mk/bench.mk's bench-lx
BOOTS = [("bench-dslq-fast", "pecan-lx.results", "skip=lat_scale"),
         ("bench-dslq-fast-bigpool", "pecan-lx-scale.results", "only=lat_scale")]


def boot(kernel, out, args, timeout="900", scale="1"):
    p = run_group([BOOT, os.path.join(BUILD, "kernels", kernel, "pecan.bin"), LX, LXFS, scale, out, args],
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
    assert_program_ran(res, log, "pecan", prog)


def test_results_well_formed():
    _, log = read_smoke()
    # lat_ctx subtracts its one-process overhead; with two iterations a switch on lx
    # can come out at or below it, so only its sign is free
    assert_well_formed(log, "pecan", sign_free=("lmbench.ctx",))


def test_every_report_figure_present():
    res, _ = read_smoke()
    assert_every_figure(res, "pecan")


def test_figures_independent_of_checkout_path(tmp_path):
    """The same images booted from a short and a long directory give the same
    figures: the guest sees modules by base name (tools/run), so nothing of the
    host's layout moves the boot's instruction count and with it the tick
    phase (lat_ctx's figures and its 40th fork once depended on it)."""
    import shutil
    images = {"pecan.bin": os.path.join(BUILD, "kernels", BOOTS[0][0], "pecan.bin"),
              "sigma0.elf": os.path.join(BUILD, "servers", "sigma0.elf"), "lx.elf": LX, "rootfs.cpio": LXFS}
    dirs = [tmp_path / "a", tmp_path / ("a-long-directory-name-" + "x" * 60)]
    cmds = []
    for d in dirs:
        d.mkdir()
        for name, src in images.items():
            shutil.copy(src, d / name)
        cmds.append([os.path.join(TOP, "tools", "run"), "--icount", "--mem", "256", "--timeout", "900",
                     "--kernel", str(d / "pecan.bin"), "--sigma0", str(d / "sigma0.elf"),
                     "--root", str(d / "lx.elf"), "--module", str(d / "rootfs.cpio"),
                     "--root-args", "/bench/init scale=1 only=lat_ctx"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        outs = list(pool.map(lambda c: run_group(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                                 stdin=subprocess.DEVNULL, errors="replace").stdout, cmds))
    figures = [[l for l in out.splitlines() if l.startswith("RESULT ")] for out in outs]
    assert len(figures[0]) > 10 and "BENCH DONE" in outs[0], outs[0][-2000:]
    assert figures[0] == figures[1]


def test_unfinished_run_fails(tmp_path):
    """A suite that does not reach BENCH DONE (here: stopped after 5 s, with lat_ctx at a
    thousand times its full iteration counts, hours of guest time) must fail boot.sh."""
    rc, err, _ = boot("bench-dslq-fast", str(tmp_path / "cut.results"), "only=lat_ctx", timeout="5",
                      scale="100000")
    assert rc != 0 and "did not finish" in err
