# SPDX-License-Identifier: MIT
"""A user thread that faults with no exception handler is halted; the system runs on.

Each victim program runs in sigma0's slot and faults first; the root task
(t_survivor) must then still run its test and power off cleanly.
"""
import pytest

from harness import boot

SIGMA0 = r"thread 48\.1 \(sigma0\) halted: "
VICTIMS = {
    "kread": r"#PF page fault \(vector 14, error 5\).* address ffffffff80100000",
    "kwrite": r"#PF page fault \(vector 14, error 7\).* address ffff800000100000",
    "stubwrite": r"#PF page fault \(vector 14, error 7\).* address ffffffffc0800000",
    "kipwrite": r"#PF page fault \(vector 14, error 7\).* address bff00100",
    "hlt": r"#GP general protection \(vector 13",
    "cr3": r"#GP general protection \(vector 13",
    "port": r"#GP general protection \(vector 13",
    "ud2": r"#UD invalid opcode \(vector 6",
    "div0": r"#DE divide error \(vector 0",
    "int3": r"#BP breakpoint \(vector 3",
    "int80": r"#GP general protection \(vector 13",
    "noncanon": r"#GP general protection \(vector 13.* at rip 8000000000000000",
}


@pytest.mark.parametrize("victim", sorted(VICTIMS))
def test_victim_halted_system_continues(victim):
    r = boot(root="tests/t_survivor.elf", sigma0=f"tests/v_{victim}.elf")
    about = r.line_index(r"^victim: about to ")
    halted = r.line_index(SIGMA0 + VICTIMS[victim])
    survived = r.line_index(r"^TEST survive\.runs_on .*: ok$")
    assert about >= 0 and halted > about, r.tail()
    assert survived > halted, r.tail()
    assert r.line_index(r"^victim: survived") < 0, "the faulting instruction was skipped"
    assert r.rc == 0, r.tail()
