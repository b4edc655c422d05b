# SPDX-License-Identifier: MIT
"""Missing, truncated or non-ELF boot modules: a clear message and a non-zero exit."""
import os
import subprocess

import pytest

from harness import BUILD, RUN, Result

BAD_BOOT = 5


def run(tmp_path, root_bytes=None, root="file", sigma0=None):
    cmd = [RUN, "--timeout", "30"]
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
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
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
    assert r.line_index(r"boot failed: module 1 \(root\): segment at physical .* is not free RAM") >= 0, r.tail()


def test_runner_rejects_missing_file(tmp_path):
    p = subprocess.run([RUN, "--root", str(tmp_path / "nonexistent.elf")],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode != 0
    assert "module not found" in p.stderr
