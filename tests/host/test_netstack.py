# SPDX-License-Identifier: MIT
"""The network server's stack glue on the host (servers/net/stack, cargo test): the real
smoltcp over the loopback device, every socket type on IPv4 and IPv6, and bad input."""
import os
import subprocess

from harness import BUILD, TOP


def test_netstack_cargo_test():
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(os.path.abspath(BUILD), "net", "cargo-test"))
    p = subprocess.run(["cargo", "test", "--release", "--lib", "--locked", "-q"],
                       cwd=os.path.join(TOP, "servers", "net", "stack"), env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, (p.stdout + p.stderr)[-4000:]
    assert "1 passed" in p.stdout, p.stdout[-2000:]
