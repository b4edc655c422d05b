# SPDX-License-Identifier: MIT
"""The kernel pool is sized from the machine's RAM (a sixteenth, plus 176
bytes a page for mapping all of it once, at least 16 MiB, in 2 MiB steps:
kernel/config.h) and the kernel-memory cases hold at every size."""
import re

import pytest

from harness import boot, guest_cases


def pool_kib(mem):
    """What kernel/config.h's rule gives for mem MiB of RAM (firmware's holes are under a step)."""
    size = (mem << 20) // 16 + (mem << 20) // 4096 * 176
    return max(16 << 10, -(-size // (2 << 20)) * 2 << 10)


@pytest.mark.parametrize("mem,pool_kib", [(m, pool_kib(m)) for m in (128, 1024, 2048)])
def test_pool_follows_ram(mem, pool_kib):
    r = boot(root="tests/t_kmem.elf", icount=True, mem=mem)
    m = re.search(r"kernel pool (\d+) KiB", r.output)
    assert m and int(m.group(1)) == pool_kib, r.tail()
    assert r.summary is not None and r.summary[1] == 0 and r.rc == 0, r.tail()


@pytest.mark.parametrize("case_id", guest_cases("t_kmem"))
def test_case_big_machine(case_id):
    boot(root="tests/t_kmem.elf", icount=True, mem=2048).check_case(case_id)
