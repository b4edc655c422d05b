# SPDX-License-Identifier: MIT
"""lx's AF_INET and AF_INET6 sockets on the network server (docs/lx.md,
"Networking").  tests/lx/inet.c runs as init over the loopback, without a
NIC, with the issue's sizes: 10,000 connections opened and closed and
100 MiB streamed with its checksum compared.  Then a shell boots with a NIC on
QEMU's restricted user network: busybox httpd under lx serves a file that
this host fetches through a port QEMU forwards from 127.0.0.1 (and that the
guest fetches over its loopback, by name through /etc/hosts), netstat reads
/proc/net, garbage and abandoned connections from the host leave lx and the
server serving, and inet.c passes again with the NIC and IPv6 configured."""
import hashlib
import os
import re
import socket
import subprocess
import time
import urllib.request

import pytest

from harness import BUILD, RUN, TOP
from lxshell import Shell

LX = os.path.join(BUILD, "servers", "lx.elf")
LXFS = os.path.join(BUILD, "lx", "rootfs.cpio")
GUEST_PORT = 8080


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_inet_program_loopback_issue_sizes():
    """inet.c with 10,000 connections and a 100 MiB stream (KiB: 102400), no NIC: loopback only."""
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    r = subprocess.run([RUN, "--root", LX, "--module", LXFS, "--timeout", "900",
                        "--root-args", "/tests/inet 10000 102400"],
                       capture_output=True, text=True, timeout=1000)
    fails = [l for l in r.stdout.splitlines() if l.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert "inet done, 0 failed" in r.stdout and r.returncode == 0, r.stdout[-2000:]
    assert "net: up, no NIC" in r.stdout


@pytest.fixture(scope="module")
def net():
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    port = free_port()
    sh = Shell(timeout=900, root_args="/bin/sh",
               extra=["--net", "--nic-forward", f"tcp:{port}:{GUEST_PORT}"])
    sh.expect(r"# ", 300)
    sh.port = port
    yield sh
    sh.close()


def run(sh, command, timeout=120):
    out, status = sh.run(command, timeout)
    sh.expect(r"# ", timeout)
    return out, status


def fetch(port, path, deadline):
    """GET http://127.0.0.1:port/path, retrying while QEMU's forward finds no guest yet."""
    while True:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60).read()
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(1)


@pytest.fixture(scope="module")
def served(net):
    """A 1 MiB file of random bytes under httpd; its MD5 as the guest computed it."""
    out, st = run(net, "mkdir -p /tmp/www && head -c 1048576 /dev/urandom > /tmp/www/f && "
                       "md5sum /tmp/www/f")
    assert st == 0, out
    out2, st = run(net, f"httpd -p {GUEST_PORT} -h /tmp/www && echo started")
    assert st == 0 and "started" in out2, out2
    return out.split()[0]


def test_host_fetches_file_from_httpd(net, served):
    data = fetch(net.port, "/f", time.time() + 120)
    assert len(data) == 1048576
    assert hashlib.md5(data).hexdigest() == served


def test_guest_fetches_by_name_over_loopback(net, served):
    out, st = run(net, f"wget -q -O - http://localhost:{GUEST_PORT}/f | md5sum")
    assert st == 0 and out.split()[0] == served, out


def test_netstat_shows_the_listener(net, served):
    out, st = run(net, "netstat -tln")
    assert st == 0
    # busybox httpd listens on IPv6's wildcard (dual-stack), as on Linux
    assert re.search(rf"tcp\s+0\s+0\s+(0\.0\.0\.0|::):{GUEST_PORT}\s+(0\.0\.0\.0|::):\*\s+LISTEN", out), out


def test_garbage_from_host_leaves_lx_serving(net, served):
    """Random bytes, a half-sent request, connections closed at once and reset: then a fetch works."""
    junk = bytes((i * 151 + 7) & 0xff for i in range(20000))
    for i in range(20):
        try:
            with socket.create_connection(("127.0.0.1", net.port), timeout=30) as s:
                if i % 4 == 0:
                    s.sendall(junk)
                elif i % 4 == 1:
                    s.sendall(b"GET /f HTTP/1.0\r\nHost: x")        # never finished
                elif i % 4 == 2:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # RST
        except OSError:
            pass
    data = fetch(net.port, "/f", time.time() + 120)
    assert hashlib.md5(data).hexdigest() == served
    out, st = run(net, "echo alive")
    assert out == "alive\n" and st == 0


def test_inet_program_with_nic(net):
    """inet.c again with the NIC up and an IPv6 address (::1 stands for it)."""
    out, st = run(net, "/tests/inet 300 8192", timeout=600)
    fails = [l for l in out.splitlines() if l.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert "inet done, 0 failed" in out and st == 0
