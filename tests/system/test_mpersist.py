# SPDX-License-Identifier: MIT
"""Mungi's orthogonal persistence (docs/mungi.md, "Persistence"): the Mungi
server on a disk image, booted twice with tests/mungi/t_mpersist.c.  The
first boot checkpoints objects and then changes more; the second must find
exactly the checkpointed state.  Capabilities go from one boot to the next
through the host (the guest prints an MPERSIST line, the host passes its
fields on in the next boot's command line).  A second pair of boots on a
small image fills the disk."""
import functools
import os
import re

import pytest

import harness
from harness import BUILD, boot

SRC = os.path.join(harness.TOP, "tests", "mungi", "t_mpersist.c")
IMAGE = os.path.join(BUILD, "mungi", "t_mpersist.elf")
DISK_DIR = os.path.join(BUILD, "tests", "disk")


def fresh_image(name, mb):
    os.makedirs(DISK_DIR, exist_ok=True)
    path = os.path.join(DISK_DIR, name)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.truncate(mb << 20)
    return path


def mungi_boot(args, disk):
    return boot(root="servers/mungi.elf", modules=(IMAGE,), root_args=args, disk=disk, timeout=120)


def handed_on(result):
    """The fields of the boot's MPERSIST line, as the next boot's arguments."""
    i = result.line_index(r"^MPERSIST ")
    return result.lines[i][len("MPERSIST "):].strip() if i >= 0 else "missing=1"


@functools.lru_cache(maxsize=None)
def boots(first, second, mb):
    img = fresh_image(f"mpersist-{first}.img", mb)
    one = mungi_boot(f"mode={first}", img)
    two = mungi_boot(f"mode={second} " + handed_on(one), img)
    return {first: one, second: two}


PAIRS = {"write": ("write", "check", 8), "check": ("write", "check", 8),
         "full": ("full", "fullcheck", 2), "fullcheck": ("full", "fullcheck", 2)}


@pytest.mark.parametrize("case_id", [pytest.param(c, id=c) for c, _ in harness.case_ids(SRC)])
def test_case(case_id):
    mode = case_id.split(".")[0]
    boots(*PAIRS[mode])[mode].check_case(case_id)


@pytest.mark.parametrize("mode", list(PAIRS))
def test_boot_finished(mode):
    """Each boot reported all its cases, and said what the store held."""
    r = boots(*PAIRS[mode])[mode]
    n = sum(1 for c, _ in harness.case_ids(SRC) if c.startswith(mode + "."))
    assert r.summary == (n, 0), r.tail()
    first = mode in ("write", "full")
    want = r"no checkpoint of Mungi's yet" if first else r"recovering the last checkpoint"
    assert r.line_index(r"^mungi: page store on disk: .*" + want) >= 0, r.tail()
    assert r.rc == 0, r.tail()


def test_no_disk_says_so():
    """Without a disk the server keeps objects in memory and says so at boot."""
    r = boot(root="servers/mungi.elf", modules=(IMAGE,), root_args="mode=none", timeout=60)
    assert r.line_index(r"^mungi: no disk .*nothing survives a reboot") >= 0, r.tail()
    assert r.rc == 0, r.tail()
