# SPDX-License-Identifier: MIT
"""A boot module of hundreds of MiB: the loader puts modules right after the
kernel, so a big one covers the physical addresses sigma0 and the root task
are linked for (15 and 16 MiB).  The kernel moves it out of their way and
tells the root task where it went (docs/architecture.md, boot flow); lx then
reads the archive from its new place.  The files' checksums, computed here,
show that every part of it arrived."""
import hashlib
import os
import re

from harness import BUILD, boot
from lxshell import Shell

MIB = 1 << 20


def newc(name, data, mode, ino):
    """One cpio "newc" entry: header, name and data, each padded to 4 bytes."""
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0]
    head = b"070701" + b"".join(b"%08X" % f for f in fields) + name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return pad(head) + pad(data)


def write_archive(path, files):
    """A cpio archive of directory big/ and the (name, data) files, in that order."""
    with open(path, "wb") as f:
        f.write(newc("big", b"", 0o40755, 1))
        for i, (name, data) in enumerate(files):
            f.write(newc("big/" + name, data, 0o100644, i + 2))
        f.write(newc("TRAILER!!!", b"", 0, 0))


def test_module_of_240_mib_arrives_whole(tmp_path):
    rng = os.urandom
    files = [("first", rng(64 * 1024))]
    files += [("fill%02d" % i, rng(8 * MIB)) for i in range(30)]
    files += [("last", rng(100 * 1000 + 7))]        # ends in the archive's last page
    archive = tmp_path / "big.cpio"
    write_archive(archive, files)
    assert os.path.getsize(archive) > 240 * MIB
    sh = Shell(timeout=900, mem=1024, modules=[str(archive)])
    try:
        sh.expect(r"# ", 600)
        log = sh.log()
        m = re.search(r"pecan: module (\d+) moved from ([0-9a-f]+)-([0-9a-f]+) to ([0-9a-f]+)-", log)
        assert m and m.group(1) == "3", log[-3000:]       # sigma0, lx, rootfs.cpio, big.cpio
        assert int(m.group(3), 16) - int(m.group(2), 16) == os.path.getsize(archive)
        for name in ("first", "fill15", "last"):
            want = hashlib.md5(dict(files)[name]).hexdigest()
            out, st = sh.run(f"md5sum /big/{name}", 300)
            assert st == 0 and f"{want}  /big/{name}" in out, (name, want, out)
        out, st = sh.run("ls /big | wc -l", 60)
        assert st == 0 and re.search(r"^32$", out, re.M), out
    finally:
        sh.close(60)


def test_root_image_in_its_own_way(tmp_path):
    """The root task's own ELF file padded to 15 MiB covers the addresses its
    segments and sigma0's load at: it is moved first, then loaded from its new place."""
    with open(os.path.join(BUILD, "servers", "root.elf"), "rb") as f:
        elf = f.read()
    padded = tmp_path / "root.elf"
    padded.write_bytes(elf + bytes(15 * MIB))       # bytes past the segments: no ELF reads them
    r = boot(root=str(padded))
    assert r.rc == 0, r.tail()
    assert r.line_index(r"^pecan: module 1 moved from [0-9a-f]+-[0-9a-f]+ to ") >= 0, r.tail()
    assert r.line_index(r"^root: hello from the Pecan root task") >= 0, r.tail()
