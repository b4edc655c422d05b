# SPDX-License-Identifier: MIT
"""Per-thread FPU/SSE state, against a second thread that overwrites it (abi.md §0.9)."""
import pytest

from harness import boot, guest_cases


def sse_boot():
    return boot(root="tests/t_sse.elf", sigma0="tests/s_sse_clobber.elf")


@pytest.mark.parametrize("case_id", guest_cases("t_sse"))
def test_sse_guest(case_id):
    sse_boot().check_case(case_id)


def test_clobber_thread_ran():
    r = sse_boot()
    assert r.line_index(r"^s_sse_clobber: clobbering") >= 0, r.tail()
    assert r.rc == 0, r.tail()
