# SPDX-License-Identifier: MIT
"""Fault isolation (docs/architecture.md, "Trust model"): drivers crash or are
deleted under a working client and are restarted (t_isolate); a root task
dies and the kernel, sigma0 and native tasks of other spaces go on (t_orphan)."""
import functools
import os

import pytest

from harness import BUILD, boot, fresh_image, guest_cases


@functools.lru_cache(maxsize=None)
def drivers():
    return boot(root="tests/t_isolate.elf", disk=fresh_image("isolate.img", 2), timeout=120, icount=True)


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


@functools.lru_cache(maxsize=None)
def orphan():
    return boot(root="tests/t_orphan.elf", timeout=60, icount=True)


def test_root_task_death_leaves_kernel_sigma0_and_native_tasks():
    """The root task (a personality's stand-in) dies by a wild pointer; after
    that, a native task answers another's IPC three times, sigma0 gives the
    other memory each time, and the kernel keeps time; then nothing is left
    to run and the kernel powers off (status 6)."""
    r = orphan()
    r.check_case("orphan.start")
    dies = r.line_index(r"^orphan: the root task dies now")
    refused = r.line_index(r"^sigma0: refusing page fault of 3200000001 at 10$", dies)
    assert dies >= 0 and refused > dies, r.tail()
    last = refused
    for i in (1, 2, 3):
        last = r.line_index(rf"^orphan: round {i}: echo answered, sigma0 page given, clock \d+ us$", last)
        assert last > refused, r.tail()
    assert r.line_index(r"^orphan: the kernel, sigma0 and two native tasks outlived their root task$", last) > last, r.tail()
    assert r.line_index(r"survived its own death") < 0, r.tail()
    assert r.rc == 6, r.tail()


def test_mungi_server_death_leaves_kernel_and_sigma0():
    """The Mungi server, booted with test_crash=1, crashes on its task's
    request (sigma0 refuses its fault at page 0); the task's requests then
    fail after their timeout (send phase: nobody receives) instead of hanging,
    and sigma0 and the kernel's clock still answer it.  The server's drivers
    still hold IRQ 4, so the kernel sees no deadlock: the run ends by timeout."""
    r = boot(root="servers/mungi.elf", modules=(os.path.join(BUILD, "mungi", "t_mcrash.elf"),),
             root_args="test_crash=1", timeout=20, icount=True)
    r.check_case("mcrash.alive")
    asked = r.line_index(r"^mcrash: asking the server to crash$")
    refused = r.line_index(r"^sigma0: refusing page fault of 3200000001 at 10$", asked)
    assert asked >= 0 and refused > asked, r.tail()
    after = r.line_index(r"^mcrash: after: server silent \(ErrorCode 2\), sigma0 answered, clock \d+ us$", refused)
    later = r.line_index(r"^mcrash: later: server silent \(ErrorCode 2\), sigma0 answered", after)
    assert after > refused and later > after, r.tail()
    assert r.line_index(r"^mcrash: the kernel and sigma0 outlived the Mungi server$", later) > later, r.tail()


def test_mungi_test_crash_needs_the_option():
    """Booted without test_crash=1 the server treats the request as unknown
    and lives: the same image then finds it answering."""
    r = boot(root="servers/mungi.elf", modules=(os.path.join(BUILD, "mungi", "t_mcrash.elf"),), timeout=15,
             icount=True)
    r.check_case("mcrash.alive")
    assert r.line_index(r"^mcrash: later: server answered \(ErrorCode 0\), sigma0 answered") >= 0, r.tail()
    assert r.line_index(r"^sigma0: refusing page fault of 3200000001") < 0, r.tail()
