# SPDX-License-Identifier: MIT
"""The portable suite on the native Linux guest, once, with tiny iteration
counts: every program must run to completion and print well-formed RESULT
lines, and every figure the report needs must be there.  No timing is checked."""
import functools
import os
import subprocess

import pytest

from benchlib import (BUILD, TOP, assert_every_figure, assert_program_ran, assert_well_formed,
                      programs, results)
from harness import run_group

GUEST = os.path.join(BUILD, "bench", "linux")
SMOKE = os.path.join(BUILD, "bench", "smoke")
BOOT = os.path.join(TOP, "bench", "linux", "boot.sh")


@functools.lru_cache(maxsize=None)
def smoke_run():
    """Boots the guest once at BENCH_SCALE=1; returns (exit status, results path, log text)."""
    out = os.path.join(SMOKE, "linux.results")
    env = dict(os.environ, BENCH_TIMEOUT="600")
    p = run_group([BOOT, GUEST, "1", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  text=True, env=env, stdin=subprocess.DEVNULL)
    with open(out + ".log", errors="replace") as f:
        log = f.read()
    return p.returncode, out, log


def read_smoke():
    rc, out, log = smoke_run()
    assert rc == 0, f"guest did not finish (boot.sh status {rc}):\n" + "\n".join(log.splitlines()[-30:])
    return results.Results().read_file(out), log


def test_guest_finishes():
    rc, _, log = smoke_run()
    assert rc == 0 and "BENCH DONE" in log, "\n".join(log.splitlines()[-30:])


@pytest.mark.parametrize("prog", programs())
def test_program_runs(prog):
    res, log = read_smoke()
    assert_program_ran(res, log, "linux", prog)


def test_results_well_formed():
    _, log = read_smoke()
    assert_well_formed(log, "linux")


def test_every_report_figure_present():
    res, _ = read_smoke()
    assert_every_figure(res, "linux")


def test_broken_guest_fails(tmp_path):
    """A guest whose /init dies (kernel panic, reboot refused) must fail boot.sh."""
    init = tmp_path / "init"
    init.write_text("#!/bin/busybox sh\necho dying\n")
    guest = tmp_path / "guest"
    guest.mkdir()
    os.symlink(os.path.join(GUEST, "vmlinuz"), guest / "vmlinuz")
    (guest / "kernel-version").write_text("test\n")
    subprocess.run([os.path.join(TOP, "bench", "linux", "mkinitramfs.sh"), str(guest / "initramfs.cpio.gz"),
                    str(init), "/bin/busybox"], check=True)
    p = run_group([BOOT, str(guest), "1", str(tmp_path / "out.results")], stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE, text=True, env=dict(os.environ, BENCH_TIMEOUT="120"),
                  stdin=subprocess.DEVNULL)
    assert p.returncode != 0
    assert "did not finish" in p.stderr
