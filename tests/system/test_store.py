# SPDX-License-Identifier: MIT
"""The disk driver and the checkpointed page store on disk images (t_store,
docs/store.md): two boots on one image (what was checkpointed is back, what
was not is gone), a chain of boots each SIGKILLed inside a checkpoint and
checked by the next, and a boot without a disk."""
import functools
import os
import re
import subprocess
import time

import pytest

from harness import BUILD, DISK_DIR, RUN, Result, boot, fresh_image, guest_cases, kill_group

PROGRAM = "tests/t_store.elf"
PERSIST_MB, PERSIST_SECTORS = 2, 2 * 2048
KILL_MB = 8
BIG_MB = 160 << 10


@functools.lru_cache(maxsize=None)
def persistence_boots():
    """Boot twice on one fresh image: write (and power off), then check."""
    img = fresh_image("persist.img", PERSIST_MB)
    first = boot(root=PROGRAM, root_args=f"mode=write sectors={PERSIST_SECTORS}", disk=img)
    second = boot(root=PROGRAM, root_args=f"mode=check sectors={PERSIST_SECTORS}", disk=img)
    return {"write": first, "check": second}


@functools.lru_cache(maxsize=None)
def no_disk_boot():
    return boot(root=PROGRAM, root_args="mode=nodisk")


BIG_SPOTS = ((1 << 28) - 24, 16), ((1 << 28) - 5, 9), ((1 << 28) + 4, 3)   # as in t_store's big.lba48


def pattern(lba, count):
    """t_store's pattern() with seed 1: what the guest wrote at sector lba."""
    return bytes(((lba * 131 + i * 7 + 29) ^ (i >> 9)) & 0xff for i in range(count * 512))


@functools.lru_cache(maxsize=None)
def big_disk_boot():
    """A sparse 160 GiB image: sectors past 2^28 need LBA48 (it takes almost no host space).
    Returns the boot and the spots whose bytes are not at lba * 512 in the image."""
    img = fresh_image("big.img", BIG_MB)
    r = boot(root=PROGRAM, root_args=f"mode=big sectors={BIG_MB * 2048}", disk=img)
    misplaced = []
    with open(img, "rb") as f:
        for lba, count in BIG_SPOTS:
            f.seek(lba * 512)
            if f.read(count * 512) != pattern(lba, count):
                misplaced.append((lba, count))
    os.unlink(img)
    return r, misplaced


def test_lba48_sectors_land_where_ata_says():
    """Read back from the image file on the host: each sector the guest wrote
    around 2^28 is at byte lba * 512, not merely readable by the same driver."""
    r, misplaced = big_disk_boot()
    assert r.summary == (1, 0), r.tail()
    assert not misplaced, f"sectors not where they were written: {misplaced}"


@pytest.mark.parametrize("case_id", guest_cases("t_store"))
def test_store(case_id):
    mode = case_id.split(".")[0]
    boots = {"nodisk": no_disk_boot, "big": lambda: big_disk_boot()[0]}
    r = boots[mode]() if mode in boots else persistence_boots()[mode]
    r.check_case(case_id)


def boot_until(args, disk, marker, kill_after=0.0, timeout=60):
    """Boot until a console line matches marker, wait kill_after seconds, then
    SIGKILL QEMU (and tools/run) at once.  Returns (matched line or None, Result)."""
    cmd = [RUN, "--timeout", str(timeout), "--root", os.path.join(BUILD, PROGRAM),
           "--root-args", args, "--disk", disk, "--append", "pecan.deadlock=poweroff"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True, text=True,
                         errors="replace")
    lines, hit = [], None
    try:
        for line in p.stdout:
            lines.append(line.rstrip("\n"))
            if re.search(marker, line):
                hit = line.strip()
                break
        if hit and kill_after:
            time.sleep(kill_after)
    finally:
        kill_group(p.pid)
        lines += p.stdout.read().splitlines()
        p.wait()
    return hit, Result(p.returncode, "\n".join(lines))


# Each boot recovers generation G, makes G + 1, starts G + 2 and is killed:
# (name, where, the generation the next boot must find: "old" G + 1, "new" G + 2).
KILLS = [
    ("put", "put=60", r"^KILL-POINT put ", "old"),              # before the 60th data page
    ("node", "node=1", r"^KILL-POINT node ", "old"),            # before the first tree node
    ("super", "at=super", r"^KILL-POINT super ", "old"),        # before the superblock
    ("flushed", "at=flushed", r"^KILL-POINT flushed ", "new"),  # after it, before the flush
    ("timed", "at=timed", r"^STORE GEN \d+ BEGIN", "either"),   # 0.4 s into the generation
]
RECOVERED = re.compile(r"^STORE RECOVERED gen=(\d+) keys=\d+ seq=\d+ fell_back=0 ok$")  # a crash never needs the fallback


def recovered(result):
    i = result.line_index(r"^STORE RECOVERED")
    m = RECOVERED.match(result.lines[i]) if i >= 0 else None
    return int(m.group(1)) if m else None


@functools.lru_cache(maxsize=None)
def kill_chain():
    """The boots of KILLS on one image, then a last boot that only recovers."""
    img = fresh_image("kill.img", KILL_MB)
    steps = []
    for i, (name, where, marker, _) in enumerate(KILLS):
        args = f"mode=kill {where}" + (" format=1" if i == 0 else "")
        steps.append(boot_until(args, img, marker, kill_after=0.4 if name == "timed" else 0))
    final = boot(root=PROGRAM, root_args="mode=recover", disk=img)
    return steps, final


@pytest.mark.parametrize("step", range(len(KILLS)), ids=[k[0] for k in KILLS])
def test_kill_in_checkpoint(step):
    """QEMU SIGKILLed at this point of a checkpoint: the next boot finds the
    generation before it (nothing of the interrupted one) or, once the new
    superblock is written, the new one, each complete."""
    steps, final = kill_chain()
    name, _, _, expect = KILLS[step]
    hit, r = steps[step]
    g = recovered(r)
    assert g is not None, f"this boot did not recover a store:\n{r.tail()}"
    assert hit, f"the kill point never came:\n{r.tail()}"
    assert r.line_index(rf"^STORE GEN {g + 1} DONE$") >= 0, r.tail()
    after = steps[step + 1][1] if step + 1 < len(steps) else final
    found = recovered(after)
    want = {"old": {g + 1}, "new": {g + 2}, "either": {g + 1, g + 2}}[expect]
    assert found in want, f"killed at {hit!r}: the next boot found generation {found}, " \
                          f"want {sorted(want)}:\n{after.tail()}"
    if step == len(KILLS) - 1:
        assert final.rc == 0, final.tail()


def test_run_disk_option():
    """tools/run --disk: a raw image as the primary IDE master with
    cache=writethrough; a missing image is created at --disk-mb MiB; a
    directory or a bad size is refused before QEMU starts (status 102)."""
    os.makedirs(DISK_DIR, exist_ok=True)
    img = os.path.join(DISK_DIR, "option,test.img")
    if os.path.exists(img):
        os.unlink(img)
    dry = subprocess.run([RUN, "--dry-run", "--disk", img], capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    drive = dry.stdout.split("-drive ")[1].split()[0]
    assert drive == f"file={img.replace(',', ',,')},format=raw,if=ide,index=0,media=disk," \
                    "cache=writethrough", drive
    assert not os.path.exists(img), "--dry-run created the image"
    r = subprocess.run([RUN, "--timeout", "30", "--disk", img, "--disk-mb", "3"],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 0 and os.path.getsize(img) == 3 << 20, (r.returncode, r.stderr)
    for bad, why in ((["--disk", DISK_DIR], f"disk image {DISK_DIR} is not a regular file"),
                     (["--disk", img + ".new", "--disk-mb", "0"], "--disk-mb must be positive, not 0")):
        r = subprocess.run([RUN, "--timeout", "30"] + bad, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 102 and why in r.stderr, (bad, r.returncode, r.stderr)
        assert not os.path.exists(img + ".new"), "a refused image was created"
    os.unlink(img)
