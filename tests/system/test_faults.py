# SPDX-License-Identifier: MIT
"""Victims: unprivileged tasks that touch what is not theirs; the system runs on.

t_victims (the root task) runs each victim in a space of its own with a pager:
page faults must reach that pager with the true address and access (checked
in the guest); other faults halt the thread, which has no exception handler,
and the console says why (checked here).  After each victim the kernel's
invariants hold and a new task still runs.
"""
import re

import pytest

from harness import boot, guest_cases

HALTED = r"^pecan: thread [0-9]+\.[0-9]+ \(user\) halted: "
HALTS = {
    "hlt": r"#GP general protection \(vector 13",
    "cr3": r"#GP general protection \(vector 13",
    "ud2": r"#UD invalid opcode \(vector 6",
    "div0": r"#DE divide error \(vector 0",
    "int3": r"#BP breakpoint \(vector 3",
    "int80": r"#GP general protection \(vector 13",
    "noncanon": r"#GP general protection \(vector 13.* at rip 8000000000000000",
}


def run():
    """Under icount the cases' waits (TT_WAIT) count guest time, which a busy host
    cannot cut short: without it victim.kread once saw no fault within its 2 s."""
    return boot(root="tests/t_victims.elf", icount=True)


@pytest.mark.parametrize("case", guest_cases("t_victims"))
def test_victim(case):
    r = run()
    r.check_case(case)
    name = case.split(".", 1)[1]
    about = r.line_index(rf"^victim {name}: about to act")
    done = r.line_index(rf"^TEST {case} ")
    assert 0 <= about < done, r.tail()
    halted = [i for i, l in enumerate(r.lines[about:done], about) if l.startswith("pecan: thread")]
    if name in HALTS:
        rx = re.compile(HALTED + HALTS[name])
        assert len(halted) == 1 and rx.search(r.lines[halted[0]]), r.tail()
    else:
        assert not halted, r.lines[halted[0]]
    assert r.line_index(rf"^victim {name}: survived") < 0, "the faulting instruction was skipped"


def test_victims_finished():
    r = run()
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()


# The registers ALL_REGS_THEN (t_exc.c) loads: RCX and R11 only where `syscall` keeps them.
ALL_REGS = {"rax": 39, "rbx": 7, "rdx": 0xd, "rsi": 0x51, "rdi": 0xd1, "rbp": 0xb9, "r8": 8, "r9": 9,
            "r10": 0x10, "r12": 0x12, "r13": 0x13, "r14": 0x14, "r15": 0x15}


def dumped_registers(lines):
    """The registers of a halted thread's dump (traps.c, arch_dump_frame) from the lines after its halt line."""
    regs = {}
    for line in lines[:6]:
        for name, value in re.findall(r"\b(r[a-z0-9]+)\s+([0-9a-f]{16})\b", line):
            regs[name] = int(value, 16)
    return regs


def test_halted_thread_keeps_its_registers():
    """exc.halted_keeps_registers: a ud2, then a foreign syscall, with a known value in every register,
    to a handler waiting without timeout (the exception fastpath) that answers with no register state;
    the halted thread's dump shows the registers it had."""
    r = boot(root="tests/t_exc.elf", icount=True)
    case = "exc.halted_keeps_registers"
    r.check_case(case)
    done = r.line_index(rf"^TEST {case} ")
    start = max(i for i, l in enumerate(r.lines[:done]) if l.startswith("TEST "))
    halted = [i for i, l in enumerate(r.lines[start:done], start) if re.match(HALTED, l)]
    assert len(halted) == 2, r.lines[start:done]
    for i, foreign in zip(halted, (False, True)):
        assert "its exception IPC failed" in r.lines[i], r.lines[i]
        regs = dumped_registers(r.lines[i + 1:])
        want = dict(ALL_REGS, **({} if foreign else {"rcx": 0xc, "r11": 0x11}))
        assert {k: regs.get(k) for k in want} == want, r.lines[i:i + 7]
        if foreign:
            assert regs["rcx"] == regs["rip"] and regs["r11"] == regs["rflags"], r.lines[i:i + 7]
