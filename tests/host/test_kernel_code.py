# SPDX-License-Identifier: MIT
"""Properties of the built kernels' machine code that C cannot promise by itself."""
import glob
import os
import re
import subprocess

import pytest

from harness import BUILD


def kernels():
    return sorted(glob.glob(os.path.join(BUILD, "kernels", "*", "kernel.elf")))


@pytest.mark.parametrize("elf", kernels() or [None])
def test_ipc_exit_reached_by_tail_calls(elf):
    """ipc_exit (entry.S) sysrets with RBX and R12-R15 as they are: the C fastpaths
    must reach it by a tail call, which restores the callee-saved registers (the
    user's MR2, MR4-7) first; a real call would leave whatever C put there."""
    if elf is None:
        pytest.skip("no kernel built")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], capture_output=True,
                         text=True, check=True).stdout
    refs = re.findall(r"^\s*[0-9a-f]+:\s+(\w+)\s+[0-9a-f]+ <ipc_exit>", dis, re.M)
    assert refs, "no reference to ipc_exit"
    assert set(refs) == {"jmp"}, f"ipc_exit reached by {sorted(set(refs))}"


@pytest.mark.parametrize("exit_label", ["exc_deliver_exit_live", "exc_reply_exit"])
@pytest.mark.parametrize("elf", kernels() or [None])
def test_exception_exits_reached_by_tail_calls(elf, exit_label):
    """The exception fastpath's exits (entry.S) leave with RBX and R12-R15 as they
    are: the faulter's MR2, MR4-7 into the handler (trap_exc and foreign_entry
    call C with them in place), the replier's into the faulter; so the C fastpaths
    reach them by tail calls only."""
    if elf is None:
        pytest.skip("no kernel built")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], capture_output=True,
                         text=True, check=True).stdout
    refs = re.findall(r"^\s*[0-9a-f]+:[ \t]+(\w+)[ \t]+[0-9a-f]+ <%s>$" % exit_label, dis, re.M)
    if not refs:
        pytest.skip("a kernel without the exception fastpath")
    assert set(refs) == {"jmp"}, f"{exit_label} reached by {sorted(set(refs))}"


def _refs_by_function(dis):
    """(function, mnemonic, target symbol) for every direct call or jump to a symbol's start."""
    refs, fn = [], None
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            fn = m.group(1)
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+(\w+)\s+[0-9a-f]+ <([^>+]+)>$", line)
        if m and fn:
            refs.append((fn, m.group(1), m.group(2)))
    return refs


@pytest.mark.parametrize("elf", kernels() or [None])
def test_ipc_exit_finds_the_callers_frame_above_rsp(elf):
    """ipc_exit takes the caller's MR1 and MR3 from its frame just above RSP, where the
    Ipc entry's call into the fastpath left it: every C function from which ipc_exit is
    reached must itself be entered by a jump (a tail call, conditional or not, leaves
    RSP as the function found it), except the fastpath itself, which only the Ipc entries call."""
    if elf is None:
        pytest.skip("no kernel built")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], capture_output=True,
                         text=True, check=True).stdout
    refs = _refs_by_function(dis)
    reach = {"ipc_exit"}
    while True:
        more = {fn for fn, op, target in refs if target in reach and op.startswith("j")} - reach
        if not more:
            break
        reach |= more
    entries = re.compile(r"^(ipc_entry|syscall_entry_smp|ap_ipc_\d+|ap_syscall_\d+|syscall_entry)$")
    for fn, op, target in refs:
        if target not in reach or op.startswith("j"):
            continue
        assert target in ("ipc_fastpath", "ipc_fastpath_ap") and op == "call" and entries.match(fn), \
            f"{fn} reaches {target} by {op}"
