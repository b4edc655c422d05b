# SPDX-License-Identifier: MIT
"""Missing, truncated or non-ELF boot modules: a clear message and a non-zero exit."""
import os
import struct
import subprocess

import pytest

from harness import BUILD, RUN, Result, run_group

BAD_BOOT = 5


def run(tmp_path, root_bytes=None, root="file", sigma0=None, modules=()):
    cmd = [RUN, "--timeout", "30"]
    for m in modules:
        cmd += ["--module", str(m)]
    if root == "file":
        path = tmp_path / "root.img"
        path.write_bytes(root_bytes)
        cmd += ["--root", str(path)]
    else:
        cmd += ["--root", root]
    if sigma0 is not None:
        s0 = tmp_path / "sigma0.img"
        s0.write_bytes(sigma0)
        cmd += ["--sigma0", str(s0)]
    p = run_group(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  stdin=subprocess.DEVNULL)
    return Result(p.returncode, p.stdout + p.stderr)


def root_elf():
    with open(os.path.join(BUILD, "servers", "root.elf"), "rb") as f:
        return f.read()


@pytest.mark.parametrize("name,data,message", [
    ("text", b"#!/bin/sh\necho this is not an ELF file\n", r"not an ELF file \(bad magic\)"),
    ("empty", b"", r"not an ELF file \(too short\)"),
    ("header_only", None, r"program headers lie outside the file"),
    ("truncated", None, r"segment data lies outside the file"),
], ids=["text", "empty", "header_only", "truncated"])
def test_bad_root_module(tmp_path, name, data, message):
    if name == "header_only":
        data = root_elf()[:64]
    elif name == "truncated":
        data = root_elf()[:4200]
    r = run(tmp_path, data)
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"pecan: boot failed: module 1 \(root, .*\): " + message) >= 0, r.tail()
    assert r.line_index(r"^root: hello") < 0


def test_missing_root_module(tmp_path):
    r = run(tmp_path, root="none")
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"boot failed: need the sigma0 and root-task modules, got 1 module") >= 0, r.tail()


def test_bad_sigma0_module(tmp_path):
    r = run(tmp_path, root_elf(), sigma0=b"\x7fELF\x01\x01\x01" + bytes(80))
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"boot failed: module 0 \(sigma0, .*\): not a 64-bit ELF file") >= 0, r.tail()


def test_overlapping_modules(tmp_path):
    """Two images that load at the same physical address cannot both be loaded."""
    r = run(tmp_path, root_elf(), sigma0=root_elf())
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"boot failed: module 1 \(root, \"root\.img\"\): segment at physical .* "
                        r"is not free RAM") >= 0, r.tail()


def relocated(elf, offset):
    """The ELF with its entry and every PT_LOAD segment moved up by offset."""
    data = bytearray(elf)
    entry, phoff = struct.unpack_from("<QQ", data, 24)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    struct.pack_into("<Q", data, 24, entry + offset)
    for i in range(phnum):
        at = phoff + i * phentsize
        if struct.unpack_from("<I", data, at)[0] == 1:        # PT_LOAD: vaddr, paddr
            vaddr, paddr = struct.unpack_from("<QQ", data, at + 16)
            struct.pack_into("<QQ", data, at + 16, vaddr + offset, paddr + offset)
    return bytes(data)


def test_segment_beyond_ram(tmp_path):
    """A root task linked at 1 GiB on a 256 MiB machine: named, and said to lie beyond RAM."""
    r = run(tmp_path, relocated(root_elf(), 0x40000000))
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"boot failed: module 1 \(root, \"root\.img\"\): segment at physical "
                        r"41000000-[0-9a-f]+ lies beyond RAM \(RAM ends at [0-9a-f]+") >= 0, r.tail()


def test_segment_over_kernel(tmp_path):
    """A root task linked at 1 MiB, where the kernel image lies: refused, not loaded over it."""
    r = run(tmp_path, relocated(root_elf(), -0xf00000))
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"boot failed: module 1 \(root, \"root\.img\"\): segment at physical "
                        r"100000-[0-9a-f]+ is not free RAM \(overlaps low memory, the kernel") >= 0, r.tail()


def test_module_with_no_room_to_move(tmp_path):
    """A 245 MiB module on a 256 MiB machine covers the servers' load addresses
    (the loader puts it right after the kernel) and no free RAM above them holds it."""
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(245 << 20)
    r = run(tmp_path, root_elf(), modules=[big])
    assert r.rc == BAD_BOOT, r.tail()
    assert r.line_index(r"boot failed: module 2 \(\"big\.bin\"\): lies where the root servers load, "
                        r"and no free RAM below 4 GiB holds its 250880 KiB") >= 0, r.tail()


def test_runner_rejects_missing_file(tmp_path):
    p = subprocess.run([RUN, "--root", str(tmp_path / "nonexistent.elf")],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 102
    assert "module not found" in p.stderr


def test_runner_rejects_directory(tmp_path):
    p = subprocess.run([RUN, "--root", str(tmp_path)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 102
    assert f"{tmp_path} is a directory; a module must be an ELF file" in p.stderr
    assert "not found" not in p.stderr
