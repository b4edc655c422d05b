# SPDX-License-Identifier: MIT
"""Boot Pecan in QEMU: the default system, the root task's boot tests, kernel faults."""
import pytest

from harness import boot, guest_cases


def test_make_run_boots_to_greeting():
    r = boot()
    assert r.rc == 0, r.tail()
    banner = r.line_index(r"^Pecan microkernel \(L4 X\.2, x86-64\) booting$")
    greeting = r.line_index(r"^root: hello from the Pecan root task, thread 50\.1, KIP at 0xbff00000$")
    assert 0 <= banner < greeting, r.tail()
    assert r.line_index(r"power off requested by root \(status 0\)") > greeting


@pytest.mark.parametrize("case_id", guest_cases("t_boot"))
def test_boot_guest(case_id):
    boot(root="tests/t_boot.elf").check_case(case_id)


def test_boot_guest_summary_and_exit():
    r = boot(root="tests/t_boot.elf")
    assert r.summary is not None and r.summary[1] == 0, r.tail()
    assert r.rc == 0


def test_kdb_enter_prints_message():
    r = boot(root="tests/t_boot.elf")
    assert r.line_index(r"^--- KDB: t_boot says hello to KDB ---$") >= 0, r.tail()


def test_kernel_fault_dumps_registers_and_exits_nonzero():
    r = boot(append="pecan.selftest=kfault")
    assert r.rc == 4, r.tail()
    fault = r.line_index(r"KERNEL FAULT: #PF page fault \(vector 14\) at rip ffffffff8[0-9a-f]+, address ffffc00000000000")
    assert fault >= 0, r.tail()
    for reg in ("rip", "rax", "r15", "cr2"):
        assert r.line_index(rf"^  .*\b{reg} [0-9a-f]{{16}}") > fault, f"no {reg} in dump\n{r.tail()}"
    assert r.line_index(r"^root: hello") < 0, "the root task ran after a kernel fault"
