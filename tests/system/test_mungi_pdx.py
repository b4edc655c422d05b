# SPDX-License-Identifier: MIT
"""The PDX direct path (docs/mungi.md, "PDX"): one boot of the Mungi server
with the test image tests/mungi/t_mpdx.c, whose first task runs every case
and prints one TEST line each; here each case is one pytest item."""
import os

import pytest

import harness

SRC = os.path.join(harness.TOP, "tests", "mungi", "t_mpdx.c")
CASES = [pytest.param(cid, id=cid) for cid, _ in harness.case_ids(SRC)]


def boot():
    """Under icount, so that direct.expires' sleep of 2 dt is guest time whatever the host does."""
    return harness.boot(root="servers/mungi.elf", modules=(os.path.join(harness.BUILD, "mungi", "t_mpdx.elf"),),
                        timeout=120, icount=True)


@pytest.mark.parametrize("case_id", CASES)
def test_case(case_id):
    boot().check_case(case_id)


def test_finished():
    """Every case reported, the first task's status was 0, the server powered off."""
    r = boot()
    assert r.summary == (len(CASES), 0), r.tail()
    assert r.rc == 0, r.tail()
