# SPDX-License-Identifier: MIT
"""Several processors (QEMU -smp N): the kernel finds them in the ACPI MADT,
starts each (INIT-SIPI-SIPI), checks that its local timer ticks and that it
answers an inter-processor interrupt, and lists them in the KIP; the system
then runs as on one processor.  Also under icount, where QEMU runs the
virtual CPUs round-robin on one host thread."""
import os
import re

import pytest

from harness import BUILD, boot, guest_cases

CPU_LINE = re.compile(r"^pecan: cpu (\d+) \(apic (\d+)\) online: timer (\S+), IPI (\S+)$")


def cpu_lines(r):
    return [m.groups() for m in map(CPU_LINE.match, r.lines) if m]


@pytest.mark.parametrize("icount", [False, True], ids=["tcg", "icount"])
@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_every_processor_comes_up(n, icount):
    r = boot(smp=n, icount=icount)
    assert r.rc == 0, r.tail()
    online = r.line_index(rf"^pecan: {n} processors? online$")
    assert online >= 0, r.tail()
    lines = cpu_lines(r)
    assert [int(c) for c, _, _, _ in lines] == list(range(1, n)), r.tail()
    assert all(t == "ticking" and i == "answered" for _, _, t, i in lines), r.tail()
    assert len({a for _, a, _, _ in lines}) == n - 1, "two processors share an APIC ID"
    assert r.line_index(r"^root: hello from the Pecan root task", online) > online, r.tail()


def test_more_processors_than_configured_are_left_idle():
    r = boot(smp=9)
    assert r.rc == 0, r.tail()
    assert r.line_index(r"^pecan: processors: 1 beyond CONFIG_MAX_CPUS \(8\) left idle$") >= 0, r.tail()
    assert r.line_index(r"^pecan: 8 processors online$") >= 0, r.tail()


@pytest.mark.parametrize("case_id", guest_cases("t_smp"))
@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_kip_describes_processors(n, case_id):
    r = boot(root="tests/t_smp.elf", root_args=f"cpus={n}", smp=n)
    assert r.line_index(rf"^t_smp: the KIP lists {n} processor\(s\), QEMU has {n}$") >= 0, r.tail()
    r.check_case(case_id)


# The kernel-core suites (test_kernel_core.py) on a four-processor boot of the default kernel.
CORE = ("t_ipc", "t_string", "t_thread", "t_sched", "t_fuzz", "t_exc", "t_irq", "t_mem", "t_abi",
        "t_progs", "t_entry", "t_kmem", "t_boot", "t_drivers")


# The default kernel keeps the 8259 (through the boot CPU's LINT0); dslq-ioapic
# (CONFIG_IOAPIC) moves the ISA lines to the I/O APIC.
KERNELS = [pytest.param(None, id="8259"), pytest.param("dslq-ioapic", id="ioapic")]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("program", CORE)
def test_kernel_suites_on_four_processors(program, kernel):
    r = boot(root=f"tests/{program}.elf", icount=True, smp=4, kernel=kernel)
    assert r.line_index(r"^pecan: 4 processors online$") >= 0, r.tail()
    ioapic = r.line_index(r"^pecan: interrupts: I/O APIC at fec00000 \(24 lines\), the 8259s masked$")
    assert (ioapic >= 0) == (kernel == "dslq-ioapic"), r.tail()
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()


@pytest.mark.parametrize("kernel", KERNELS)
def test_one_processor_keeps_the_8259(kernel):
    r = boot(kernel=kernel, smp=1)
    assert r.rc == 0 and r.line_index(r"^pecan: 1 processor online$") >= 0, r.tail()
    assert r.line_index(r"I/O APIC") < 0, r.tail()


# The servers run unchanged on processor 0 of an SMP boot (issue 26, item 5).
@pytest.mark.parametrize("kernel", KERNELS)
def test_lx_shell_on_four_processors(kernel):
    r = boot(root="servers/lx.elf", modules=(os.path.join(BUILD, "lx", "rootfs.cpio"),), smp=4,
             kernel=kernel, keys="echo smp-ok $((6*7))\nls /\nexit\n", timeout=300)
    assert r.line_index(r"^pecan: 4 processors online$") >= 0, r.tail()
    assert r.line_index(r"^smp-ok 42$") >= 0, r.tail()
    assert r.line_index(r"\blinuxrc\b") >= 0, r.tail()
    assert r.line_index(r"^lx: init exited with status 0; powering off$") >= 0 and r.rc == 0, r.tail()


# Under icount, as test_mungi.py: t_mungi's cases bound times (dt plus a tick) in the
# guest's clock, which without icount jumps by any stall of QEMU on a loaded host.
@pytest.mark.parametrize("kernel", KERNELS)
def test_mungi_on_four_processors(kernel):
    r = boot(root="servers/mungi.elf", modules=(os.path.join(BUILD, "mungi", "t_mungi.elf"),), smp=4,
             kernel=kernel, icount=True, timeout=300)
    assert r.line_index(r"^pecan: 4 processors online$") >= 0, r.tail()
    assert r.summary is not None and r.summary[1] == 0 and r.summary[0] > 0 and r.rc == 0, r.tail()


# Threads on several processors (issue 26, items 2-4): Schedule's processor control, IPC of
# every message type across processors, timeouts, aborts, migration under load, TLB shootdown
# on unmap, deletion of threads blocked in cross-processor IPC, bad Schedule calls.  Each
# scheduler variant, and icount (QEMU runs the four virtual CPUs round-robin on one thread).
SMP_KERNELS = [pytest.param(None, False, id="dslq"), pytest.param(None, True, id="dslq-icount"),
               pytest.param("dseq", False, id="dseq"), pytest.param("benno", False, id="benno"),
               pytest.param("fseq", False, id="fseq")]


@pytest.mark.parametrize("kernel,icount", SMP_KERNELS)
@pytest.mark.parametrize("case_id", guest_cases("t_smpipc"))
def test_threads_on_four_processors(case_id, kernel, icount):
    r = boot(root="tests/t_smpipc.elf", smp=4, kernel=kernel, icount=icount, timeout=300)
    assert r.line_index(r"^t_smpipc: 4 processors$") >= 0, r.tail()
    r.check_case(case_id)
    assert r.line_index(r"^t_smpipc: kernel check 0$") >= 0 and r.rc == 0, r.tail()


# lx's home processors (issue 26, item 5): tests/lx/affinity (it passes natively too) under lx on
# four processors: sched_setaffinity moves threads, getcpu follows, threads and children inherit;
# a signal stops a loop that spins on processor 1 (lx's signal thread is on processor 0).
def test_lx_affinity_on_four_processors():
    spin = "taskset 2 sh -c 'while :; do :; done' & p=$!; sleep 1; kill $p; wait $p; echo st=$?\n"
    r = boot(root="servers/lx.elf", modules=(os.path.join(BUILD, "lx", "rootfs.cpio"),), smp=4,
             keys="/tests/affinity\nnproc; cat /sys/devices/system/cpu/online\n" + spin + "exit\n",
             timeout=300)
    fails = [l for l in r.lines if l.startswith("FAIL")]
    assert not fails and r.line_index(r"^affinity done, 0 failed$") >= 0, r.tail(40)
    assert r.line_index(r"^skip moves") < 0, r.tail(40)
    assert r.line_index(r"^4$") >= 0 and r.line_index(r"^0-3$") >= 0, r.tail(40)
    assert r.line_index(r"^st=143$") >= 0, r.tail(40)
