# SPDX-License-Identifier: MIT
"""The kernel-core suites (IPC, threads and spaces, scheduling) on every scheduler
variant and with the fastpath off: each TEST_CASE of each program is one item."""
import pytest

from harness import boot, guest_cases_all_kernels

PROGRAMS = ("t_ipc",)


@pytest.mark.parametrize("kernel,case_id", guest_cases_all_kernels("t_ipc"))
def test_ipc(kernel, case_id):
    boot(root="tests/t_ipc.elf", kernel=kernel).check_case(case_id)


@pytest.mark.parametrize("kernel", ["dslq", "dslq-nofast"])
def test_ipc_all_passed_and_powered_off(kernel):
    r = boot(root="tests/t_ipc.elf", kernel=kernel)
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()
