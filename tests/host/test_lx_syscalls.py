# SPDX-License-Identifier: MIT
"""docs/lx.md's table of system calls is what tools/lx_syscalls.py makes of
lx's syscall.h and the host's x86-64 syscall list, so it cannot go stale."""
import os
import subprocess
import sys

from harness import TOP

TOOL = os.path.join(TOP, "tools", "lx_syscalls.py")


def test_docs_syscall_table_is_current():
    p = subprocess.run([sys.executable, TOOL, "--check"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


def test_every_lx_call_is_a_linux_call_of_that_number():
    sys.path.insert(0, os.path.join(TOP, "tools"))
    import lx_syscalls
    lx, linux = lx_syscalls.lx_calls(), lx_syscalls.linux_calls()
    assert {nr: name for nr, name in lx.items() if nr in linux and linux[nr] != name} == {}
    assert set(lx_syscalls.PARTIAL) <= set(lx.values()), set(lx_syscalls.PARTIAL) - set(lx.values())
