# SPDX-License-Identifier: MIT
"""Users, groups and permissions under lx (tests/lx/perms.c): the program
makes files of many modes and owners as root, then tries every operation as
other users; its lines (a result or an errno's name per case) must equal the
host Linux's, on lx's RAM root and on its ext2 root."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from harness import BUILD, TOP
from lxshell import Shell

PERMS = os.path.join(BUILD, "lx", "tests", "perms")
IMG = os.path.join(BUILD, "lx", "rootfs.img")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the native run must start as root")


@pytest.fixture(scope="module")
def native():
    """The host's lines, from a scratch directory everyone can search (pytest's own
    temporary directories sit below one only root may enter)."""
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    base = tempfile.mkdtemp(prefix="lxperms", dir="/tmp")
    try:
        os.chmod(base, 0o755)
        p = subprocess.run([PERMS, base], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stdout.endswith("perms done\n"), p.stdout + p.stderr
        return p.stdout.splitlines()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def lx_lines(sh):
    out, status = sh.run("/tests/perms /", 900)
    sh.expect(r"# ", 60)
    assert status == 0, out
    return [l for l in out.splitlines() if l and not l.startswith("lx: ")]


def protected_hardlinks():
    try:
        with open("/proc/sys/fs/protected_hardlinks") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def compare(want, got):
    """lx behaves as fs.protected_hardlinks=1 (docs/lx.md); a host set otherwise
    answers the one case that depends on it differently."""
    assert len(want) > 150
    if not protected_hardlinks():
        want = [l for l in want if not l.startswith("nobody link f600 ")]
        got = [l for l in got if not l.startswith("nobody link f600 ")]
    diff = [f"line {i}: linux {w!r}, lx {g!r}" for i, (w, g) in enumerate(zip(want, got)) if w != g]
    assert not diff and len(got) == len(want), "\n".join(diff[:40]) + f"\n{len(got)} vs {len(want)}"


def test_ram_root_matches_linux(native):
    sh = Shell(timeout=900)
    sh.expect(r"# ", 300)
    try:
        compare(native, lx_lines(sh))
    finally:
        sh.close(120)


def test_ext2_root_matches_linux(native, tmp_path):
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = Shell(timeout=900, root_args="lx.root=disk /bin/sh", disk=img)
    sh.expect(r"# ", 300)
    try:
        compare(native, lx_lines(sh))
    finally:
        sh.close(120)
    # the owners and modes lx gave new files are on the disk, as the host reads them
    env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/sbin:/usr/sbin")
    for path, user, group, mode in [("dsg/m", 65534, 1001, "02755"), ("dsg/f", 65534, 1001, "0644"),
                                    ("d777/p", 65534, 65534, "0644"), ("f060", 1000, 1001, "02775"),
                                    ("s6755", 1002, 1001, "0755")]:
        out = subprocess.run(["debugfs", "-R", "stat /perms.d/" + path, img], capture_output=True,
                             text=True, env=env).stdout
        assert re.search(rf"Mode:\s+{mode}\b", out) and re.search(rf"User:\s+{user}\s+Group:\s+{group}\b", out), \
            path + ": " + out[:300]
