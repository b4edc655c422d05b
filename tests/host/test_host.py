# SPDX-License-Identifier: MIT
"""Host unit tests: each TEST_CASE of tests/host/test_*.c becomes one pytest item."""
import glob
import os

import pytest

from harness import BUILD, TOP, case_ids, run_host

SOURCES = sorted(glob.glob(os.path.join(TOP, "tests", "host", "test_*.c")))


def binary(src):
    return os.path.join(BUILD, "host", os.path.splitext(os.path.basename(src))[0])


PARAMS = [pytest.param(src, cid, id=f"{os.path.basename(src)[5:-2]}:{cid}")
          for src in SOURCES for cid, _ in case_ids(src)]


@pytest.mark.parametrize("src,case_id", PARAMS)
def test_host(src, case_id):
    run_host(binary(src)).check_case(case_id)


@pytest.mark.parametrize("src", SOURCES, ids=[os.path.basename(s) for s in SOURCES])
def test_host_program_clean_exit(src):
    """Every case reported, summary printed, no sanitizer report, exit 0."""
    r = run_host(binary(src))
    assert r.summary == (len(case_ids(src)), 0), r.tail()
    assert "Sanitizer" not in r.output, r.tail()
    assert r.rc == 0
