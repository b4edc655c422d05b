# SPDX-License-Identifier: MIT
"""Kernel entry paths that need a special boot: NMIs injected through the QEMU
monitor, and what a deadlock does with and without pecan.deadlock=poweroff."""
import pytest

from harness import TEST_KERNELS, boot, guest_cases_all_kernels

NMI_EVERY_MS = 5


@pytest.mark.parametrize("kernel,case_id", guest_cases_all_kernels("t_nmi"))
def test_nmi(kernel, case_id):
    r = boot(root="tests/t_nmi.elf", kernel=kernel, nmi_every=NMI_EVERY_MS)
    r.check_case(case_id)


@pytest.mark.parametrize("kernel", TEST_KERNELS)
def test_nmi_run_finished(kernel):
    r = boot(root="tests/t_nmi.elf", kernel=kernel, nmi_every=NMI_EVERY_MS)
    assert r.line_index(r"KERNEL FAULT") < 0, r.tail()
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()


def test_deadlock_halts_in_the_debugger_by_default():
    r = boot(root="tests/t_deadlock.elf", timeout=15, deadlock_poweroff=False)
    blocked = r.line_index(r"^deadlock: the root task blocks forever")
    report = r.line_index(r"^pecan: deadlock: no thread can run")
    assert blocked >= 0 and report > blocked, r.tail()
    # the report lists the threads: the root task waits for itself
    assert r.line_index(r"^  50\.1 root: receiving from 50\.1") > report, r.tail()
    assert r.line_index(r"kernel debugger") > report, r.tail()
    assert r.rc == 124, f"the machine did not stay up (status {r.rc})\n{r.tail()}"


def test_deadlock_debugger_keys():
    """After the report, 't' lists the threads again and 'p' powers off (status 6)."""
    r = boot(root="tests/t_deadlock.elf", timeout=30, deadlock_poweroff=False, keys="tp")
    prompt = r.line_index(r"kernel debugger: 't' lists")
    assert prompt >= 0, r.tail()
    assert r.line_index(r"^  50\.1 root: receiving from 50\.1", prompt) > prompt, r.tail()
    assert r.line_index(r"^pecan: powered off from the kernel debugger") > prompt, r.tail()
    assert r.rc == 6, r.tail()


def test_deadlock_powers_off_with_the_boot_option():
    r = boot(root="tests/t_deadlock.elf", timeout=30)
    assert r.line_index(r"^pecan: no thread can run any more; powering off") >= 0, r.tail()
    assert r.rc == 6, r.tail()


@pytest.mark.parametrize("kernel", TEST_KERNELS)
def test_unprivileged_print_is_bounded(kernel):
    """t_entry's unprivileged thread prints 300 bytes in one PrintString."""
    r = boot(root="tests/t_entry.elf", kernel=kernel, icount=True)   # the kernel-core boot
    i = r.line_index(r"^KDBLIMIT:")
    assert i >= 0, r.tail()
    assert len(r.lines[i]) == 256, f"{len(r.lines[i])} bytes printed"


def test_exit_refuses_a_non_canonical_rip():
    """pecan.selftest=badrip plants one in sigma0's first frame: the exit
    refuses it (QEMU itself would not fault in ring 0, a CPU would), sigma0
    takes a #GP (it has no handler, so it halts), the kernel runs on."""
    r = boot(root="tests/t_survivor.elf", append="pecan.selftest=badrip")
    refused = r.line_index(r"^pecan: exit to non-canonical rip 8000000000000000 refused; "
                           r"thread 48\.1 takes a #GP")
    assert refused >= 0, r.tail()
    halted = r.line_index(r"thread 48\.1 \(sigma0\) halted: #GP general protection "
                          r"\(vector 13.* at rip 8000000000000000")
    assert halted > refused, r.tail()
    assert r.line_index(r"^TEST survive\.runs_on .*: ok$") > halted, r.tail()
    assert r.line_index(r"KERNEL FAULT") < 0 and r.rc == 0, r.tail()
