# SPDX-License-Identifier: MIT
"""Hostile clients of sigma0 and the drivers (t_hostile, docs/architecture.md
"Trust model"): each attack gets an error or no answer, and the servers go on
serving their clients.  One boot with a small disk attached."""
import functools

import pytest

from harness import boot, fresh_image, guest_cases


@functools.lru_cache(maxsize=None)
def run():
    return boot(root="tests/t_hostile.elf", disk=fresh_image("hostile.img", 2), timeout=120, icount=True)


@pytest.mark.parametrize("case_id", guest_cases("t_hostile"))
def test_hostile(case_id):
    run().check_case(case_id)


def test_refusals_logged_once():
    """Each refused thread is logged once per server, not once per request."""
    r = run()
    assert r.summary is not None, r.tail()
    for server in ("console", "timer", "disk"):
        lines = [l for l in r.lines if l.startswith(f"{server}: refusing label")]
        assert len(lines) == 1, (server, lines, r.tail())
    assert r.line_index(r"^sigma0: refusing a request of ") >= 0, r.tail()
