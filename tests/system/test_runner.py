# SPDX-License-Identifier: MIT
"""tools/run builds the QEMU command line the docs promise."""
import subprocess

from harness import RUN


def dry_run(*args):
    p = subprocess.run([RUN, "--dry-run", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_measurement_configuration():
    cmd = dry_run("--icount")
    assert "-icount shift=0,align=off,sleep=off" in cmd
    assert "-accel tcg -cpu max" in cmd
    assert "isa-debug-exit,iobase=0xf4,iosize=0x04" in cmd


def test_gdb_and_modules():
    cmd = dry_run("--gdb", "--module", "build/servers/root.elf", "arg1", "arg2")
    assert " -s -S" in cmd
    assert "build/servers/root.elf arg1 arg2'" in cmd
    assert "-icount" not in cmd
