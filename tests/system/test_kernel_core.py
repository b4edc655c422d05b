# SPDX-License-Identifier: MIT
"""Booted under icount: guest time then follows executed instructions, so
timeout and time-slice checks are exact and immune to a loaded host.

The kernel-core suites (IPC, string IPC, threads and spaces, scheduling,
random hostile system calls) on
every scheduler variant and with the fastpath off: each TEST_CASE of each
program on each kernel is one item."""
import pytest

from harness import TEST_KERNELS, boot, guest_cases_all_kernels

PROGRAMS = ("t_ipc", "t_string", "t_thread", "t_sched", "t_fuzz", "t_exc", "t_irq", "t_mem", "t_abi", "t_progs",
            "t_entry", "t_kmem")


def params():
    return [p for prog in PROGRAMS for p in
            (pytest.param(prog, *pp.values, id=f"{prog}:{pp.id}")
             for pp in guest_cases_all_kernels(prog))]


@pytest.mark.parametrize("program,kernel,case_id", params())
def test_case(program, kernel, case_id):
    boot(root=f"tests/{program}.elf", kernel=kernel, icount=True).check_case(case_id)


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("kernel", TEST_KERNELS)
def test_program_finished(program, kernel):
    """Every case reported, none failed, and the root task powered off cleanly."""
    r = boot(root=f"tests/{program}.elf", kernel=kernel, icount=True)
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()
