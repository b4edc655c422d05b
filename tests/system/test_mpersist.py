# SPDX-License-Identifier: MIT
"""Mungi's orthogonal persistence (docs/mungi.md, "Persistence"): the Mungi
server on a disk image, booted twice with tests/mungi/t_mpersist.c.  The
first boot checkpoints objects and then changes more; the second must find
exactly the checkpointed state.  Capabilities go from one boot to the next
through the host (the guest prints an MPERSIST line, the host passes its
fields on in the next boot's command line).  Other pairs fill a small disk
and rely on periodic checkpoints; single boots are SIGKILLed inside a
checkpoint and checked by the next."""
import functools
import os
import re
import subprocess

import pytest

import harness
from harness import BUILD, RUN, Result, boot, fresh_image, kill_group

SRC = os.path.join(harness.TOP, "tests", "mungi", "t_mpersist.c")
IMAGE = os.path.join(BUILD, "mungi", "t_mpersist.elf")


def mungi_boot(args, disk):
    return boot(root="servers/mungi.elf", modules=(IMAGE,), root_args=args, disk=disk, timeout=120)


def handed_on(result):
    """The fields of the boot's MPERSIST line, as the next boot's arguments."""
    i = result.line_index(r"^MPERSIST ")
    return result.lines[i][len("MPERSIST "):].strip() if i >= 0 else "missing=1"


@functools.lru_cache(maxsize=None)
def boots(first, second, mb, extra=""):
    img = fresh_image(f"mpersist-{first}.img", mb)
    one = mungi_boot(f"mode={first} {extra}", img)
    two = mungi_boot(f"mode={second} " + handed_on(one), img)
    return {first: one, second: two}


PAIRS = {"write": ("write", "check", 8), "check": ("write", "check", 8),
         "full": ("full", "fullcheck", 2), "fullcheck": ("full", "fullcheck", 2),
         "period": ("period", "pcheck", 4, "ckpt_ms=100"), "pcheck": ("period", "pcheck", 4, "ckpt_ms=100")}
PAIRED = [pytest.param(c, id=c) for c, _ in harness.case_ids(SRC) if c.split(".")[0] in PAIRS]


@pytest.mark.parametrize("case_id", PAIRED)
def test_case(case_id):
    mode = case_id.split(".")[0]
    boots(*PAIRS[mode])[mode].check_case(case_id)


# Where the server stops inside generation 2's checkpoint (kill_at=2.W), and
# what the next boot must find: before the superblock generation 1, after it 2.
KILLS = [("data", "2.3", 1), ("superblock", "2.s", 1), ("after-superblock", "2.f", 2)]


def boot_until_killed(args, disk, timeout=60):
    """Boot until the server prints KILL-POINT, then SIGKILL QEMU (and tools/run)."""
    cmd = [RUN, "--timeout", str(timeout), "--root", os.path.join(BUILD, "servers", "mungi.elf"),
           "--module", IMAGE, "--root-args", args, "--disk", disk, "--append", "pecan.deadlock=poweroff"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True, text=True, errors="replace")
    lines = []
    try:
        for line in p.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("KILL-POINT"):
                break
    finally:
        kill_group(p.pid)
        lines += p.stdout.read().splitlines()
        p.wait()
    return Result(p.returncode, "\n".join(lines))


@functools.lru_cache(maxsize=None)
def killed(kill_at):
    img = fresh_image(f"mpersist-kill-{kill_at}.img", 4)
    one = boot_until_killed(f"mode=kill kill_at={kill_at}", img)
    return one, mungi_boot("mode=kcheck " + handed_on(one), img)


@pytest.mark.parametrize("where,kill_at,want", KILLS, ids=[k[0] for k in KILLS])
def test_kill_in_checkpoint(where, kill_at, want):
    """QEMU SIGKILLed inside a Mungi checkpoint: the next boot finds the
    checkpoint before it or, once the superblock is written, the new one;
    never a mixture (P's pages and the objects agree on one generation)."""
    one, two = killed(kill_at)
    assert one.line_index(r"^KILL-POINT ") >= 0, one.tail()
    two.check_case("kcheck.consistent")
    i = two.line_index(r"^MPERSIST-FOUND generation=")
    assert i >= 0 and two.lines[i].endswith(f"={want}"), two.tail()


@pytest.mark.parametrize("mode", list(PAIRS))
def test_boot_finished(mode):
    """Each boot reported all its cases, and said what the store held."""
    r = boots(*PAIRS[mode])[mode]
    n = sum(1 for c, _ in harness.case_ids(SRC) if c.startswith(mode + "."))
    assert r.summary == (n, 0), r.tail()
    first = mode in ("write", "full", "period")
    want = r"no checkpoint of Mungi's yet" if first else r"recovering the last checkpoint"
    assert r.line_index(r"^mungi: page store on disk: .*" + want) >= 0, r.tail()
    assert r.rc == 0, r.tail()


def test_no_disk_says_so():
    """Without a disk the server keeps objects in memory and says so at boot."""
    r = boot(root="servers/mungi.elf", modules=(IMAGE,), root_args="mode=none", timeout=60)
    assert r.line_index(r"^mungi: no disk .*nothing survives a reboot") >= 0, r.tail()
    assert r.rc == 0, r.tail()


@pytest.mark.parametrize("what", ["garbage", "foreign_store"])
def test_refuses_a_disk_not_its_own(what):
    """A disk holding something that is not Mungi's store (random bytes, or
    another program's page store) is refused with a clear message and left
    byte for byte as it was; format_disk=1 formats it."""
    img = fresh_image(f"mpersist-{what}.img", 2)
    if what == "garbage":
        with open(img, "r+b") as f:
            f.write(os.urandom(64 << 10))
    else:
        boot(root="tests/t_store.elf", root_args="mode=write sectors=4096", disk=img, timeout=60)
    with open(img, "rb") as f:
        before = f.read()
    r = mungi_boot("mode=none", img)
    assert r.line_index(r"^mungi: the disk.*nothing was written\. format_disk=1 formats it") >= 0, r.tail()
    assert r.rc != 0, r.tail()
    with open(img, "rb") as f:
        assert f.read() == before, "the refused disk was written"
    r = mungi_boot("mode=none format_disk=1", img)
    assert r.line_index(r"^mungi: formatting the disk") >= 0 and r.rc == 0, r.tail()
