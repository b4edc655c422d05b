# SPDX-License-Identifier: MIT
"""User-level console driver and timer service (t_drivers), and the default
root task printing through them (`make run`)."""
import pytest

from harness import boot, guest_cases


@pytest.mark.parametrize("case_id", guest_cases("t_drivers"))
def test_drivers(case_id):
    boot(root="tests/t_drivers.elf", icount=True).check_case(case_id)


def test_loopback_output_never_reached_the_console():
    """The printf done in loopback went through the driver: the UART kept it."""
    r = boot(root="tests/t_drivers.elf", icount=True)
    assert r.summary is not None, r.tail()
    assert r.line_index("LOOPBACK-MARKER") < 0, r.tail()
    assert r.line_index(r"^drivers: written by the console driver$") >= 0, r.tail()


def test_make_run_prints_through_the_console_driver():
    r = boot()
    line = r.line_index(r"^root: this line came through the user-level console driver "
                        r"\(thread 51\.1\), after a (\d+) us sleep in the timer service$")
    assert line >= 0, r.tail()
    assert int(r.lines[line].split("after a ")[1].split()[0]) >= 10000
