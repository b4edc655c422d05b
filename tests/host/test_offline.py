# SPDX-License-Identifier: MIT
"""Offline, the fetching steps of make and make test say what they could not fetch."""
import os
import shutil
import subprocess

from harness import TOP


def fake_bin(tmp_path, tools, scripts):
    """A PATH directory with only the given host tools and the given fake scripts."""
    d = tmp_path / "bin"
    d.mkdir()
    for t in tools:
        os.symlink(shutil.which(t), d / t)
    for name, body in scripts.items():
        (d / name).write_text("#!/bin/sh\n" + body + "\n")
        (d / name).chmod(0o755)
    return str(d)


def test_kernel_package_offline(tmp_path):
    path = fake_bin(tmp_path, ["sh", "awk", "ls", "head", "id", "mkdir", "rm"], {
        "apt-cache": 'echo "  Depends: linux-image-6.1.0-99-cloud-amd64"',
        "apt-get": "exit 100",                     # no network
    })
    p = subprocess.run([os.path.join(TOP, "bench", "linux", "fetch-kernel.sh"), str(tmp_path / "out")],
                       capture_output=True, text=True, env=dict(os.environ, PATH=path))
    assert p.returncode != 0
    assert "could not fetch Debian's cloud kernel package (linux-image-6.1.0-99-cloud-amd64" in p.stderr


def test_deps_offline(tmp_path):
    path = fake_bin(tmp_path, ["sh", "id", "grep", "dpkg-query"], {"apt-get": "exit 100"})
    p = subprocess.run([os.path.join(TOP, "tools", "deps.sh")], capture_output=True, text=True,
                       env=dict(os.environ, PATH=path))
    assert p.returncode != 0
    assert "tools/deps.sh: could not install: qemu-system-x86 gcc" in p.stderr, p.stderr
