# SPDX-License-Identifier: MIT
"""Fault isolation (docs/architecture.md, "Trust model"): drivers crash or are
deleted under a working client and are restarted (t_isolate); a root task
dies and the kernel, sigma0 and native tasks of other spaces go on (t_orphan)."""
import functools

import pytest

from harness import boot, fresh_image, guest_cases


@functools.lru_cache(maxsize=None)
def drivers():
    return boot(root="tests/t_isolate.elf", disk=fresh_image("isolate.img", 2), timeout=120)


@pytest.mark.parametrize("case_id", guest_cases("t_isolate"))
def test_driver_death(case_id):
    drivers().check_case(case_id)


def test_console_death_loses_no_output():
    """While the console driver was dead printf went to the kernel debugger;
    after the restart it goes through the driver again."""
    r = drivers()
    assert r.summary is not None, r.tail()
    dead = r.line_index(r"^isolate: this line went to the kernel debugger while the console driver was dead$")
    again = r.line_index(r"^isolate: and this one through the restarted console driver$", dead)
    assert dead >= 0 and again > dead, r.tail()
