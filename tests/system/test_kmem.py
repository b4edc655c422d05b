# SPDX-License-Identifier: MIT
"""The kernel pool is sized from the machine's RAM (a sixteenth, at least
16 MiB: kernel/config.h) and the kernel-memory cases hold at every size."""
import re

import pytest

from harness import boot, guest_cases


@pytest.mark.parametrize("mem,pool_kib", [(128, 16384), (1024, 65536), (2048, 131072)])
def test_pool_follows_ram(mem, pool_kib):
    r = boot(root="tests/t_kmem.elf", icount=True, mem=mem)
    m = re.search(r"kernel pool (\d+) KiB", r.output)
    assert m and int(m.group(1)) == pool_kib, r.tail()
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()


@pytest.mark.parametrize("case_id", guest_cases("t_kmem"))
def test_case_big_machine(case_id):
    boot(root="tests/t_kmem.elf", icount=True, mem=2048).check_case(case_id)
