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
