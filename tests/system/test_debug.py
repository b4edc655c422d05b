# SPDX-License-Identifier: MIT
"""make debug: QEMU waits for gdb on the loopback address only, and the printed
command line reaches kmain.  No QEMU outlives the test, pass or fail."""
import re
import shlex
import socket
import subprocess
import time

from harness import RUN, kill_group


def free_port():
    """A loopback port nobody listens on now (tests of other checkouts may hold 1234)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening_addresses(port):
    """Local addresses with a TCP socket listening on port (IPv4 and IPv6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, p = local.split(":")
                if state == "0A" and int(p, 16) == port:
                    found.append(addr)
    return found


def test_gdb_stops_in_kmain():
    port = free_port()
    qemu = subprocess.Popen([RUN, "--gdb", "--gdb-port", str(port), "--timeout", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        hint = ""
        while "target remote" not in hint:
            line = qemu.stderr.readline()
            assert line, "tools/run --gdb printed no gdb command line"
            hint += line
        cmd = shlex.split(re.search(r"^\s*(gdb .*)$", hint, re.M).group(1))
        assert f"127.0.0.1:{port}" in cmd[-2]
        gdb = subprocess.run(cmd[:1] + ["-batch", "-nx"] + cmd[1:] +
                             ["-ex", "hbreak kmain", "-ex", "continue", "-ex", "info symbol $pc",
                              "-ex", "kill"],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert re.search(r"^kmain in section \.text", gdb.stdout, re.M), gdb.stdout + gdb.stderr
    finally:
        kill_group(qemu.pid)
        qemu.wait()


def test_gdb_stub_listens_on_loopback_only():
    port = free_port()
    qemu = subprocess.Popen([RUN, "--gdb", "--gdb-port", str(port), "--timeout", "60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        while "target remote" not in qemu.stderr.readline():
            pass
        addrs = []
        for _ in range(100):             # QEMU opens the socket after tools/run's hint
            addrs = listening_addresses(port)
            if addrs:
                break
            time.sleep(0.1)
        assert addrs == ["0100007F"], f"gdb stub listens on {addrs} (want 127.0.0.1 only)"
    finally:
        kill_group(qemu.pid)
        qemu.wait()
