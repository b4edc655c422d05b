# SPDX-License-Identifier: MIT
"""The NIC driver and the network server (t_net, docs/net.md) on a virtio-net
device and QEMU's user network.  The guest's own cases run first
(bad input, loopback TCP/UDP/ICMP on IPv4 and IPv6, ICMP echo to the
gateway); then it serves TCP and UDP echo on port 7, which this test reaches
through ports QEMU forwards from 127.0.0.1.  All traffic stays on this
machine: the guest has no gateway (so no route beyond QEMU's 10.0.2.0/24 and
fec0::/64) and forwards listen on 127.0.0.1."""
import functools
import os
import re
import socket
import subprocess
import threading
import time

import pytest

from harness import BUILD, RUN, Result, guest_cases, kill_group

PROGRAM = os.path.join(BUILD, "tests", "t_net.elf")
# No gateways: with QEMU's restriction lifted (its UDP answers need that) the guest can
# still reach nothing but 10.0.2.0/24 and fec0::/64, that is QEMU and this host's 127.0.0.1.
ARGS = "net.ip4=10.0.2.15/24 net.ip6=fec0::15/64"
READY = re.compile(r"^NET ECHO READY")
BOOT_TIMEOUT = 240                # seconds for the whole boot, on a loaded 2-core host
STREAM = bytes((i * 7 + 3) & 0xff for i in range(200_000))


def free_port(kind):
    """A port nothing on 127.0.0.1 uses now (QEMU takes it a moment later)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Longer than a frame: it reaches the guest in QEMU's fragments and comes back in the
# device glue's (the interface's frames are larger than the wire's: docs/net.md).
UDP_PAYLOAD = bytes((i * 7 + 3) & 0xff for i in range(6000))


def udp_echo(port, deadline):
    """Send a datagram every 2 s until it comes back; the reply, or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2)
        while time.time() < deadline:
            s.sendto(UDP_PAYLOAD, ("127.0.0.1", port))
            try:
                return s.recvfrom(65536)[0]
            except socket.timeout:
                continue
    return None


def tcp_echo(port, deadline):
    """Connect (retrying while QEMU's forward has no guest yet), send STREAM, half-close,
    read everything back until the guest closes."""
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(1)
    def send():                  # while we read: an echo fills both ways' buffers otherwise
        s.sendall(STREAM)
        s.shutdown(socket.SHUT_WR)

    with s:
        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        got = bytearray()
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return bytes(got)
            got += chunk


@functools.lru_cache(maxsize=None)
def net_boot():
    """Boot t_net, talk to its echo service once it says so; (Result, udp reply, tcp bytes)."""
    tcp_port, udp_port = free_port(socket.SOCK_STREAM), free_port(socket.SOCK_DGRAM)
    cmd = [RUN, "--timeout", str(BOOT_TIMEOUT), "--root", PROGRAM, "--root-args", ARGS,
           "--nic", "--nic-unrestricted", "--nic-forward", f"tcp:{tcp_port}:7", "--nic-forward", f"udp:{udp_port}:7",
           "--append", "pecan.deadlock=poweroff"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True, text=True, errors="replace")
    lines, udp, tcp = [], None, None
    try:
        for line in p.stdout:
            lines.append(line.rstrip("\n"))
            if READY.search(line):
                deadline = time.time() + 120
                try:
                    udp = udp_echo(udp_port, deadline)
                    tcp = tcp_echo(tcp_port, deadline)
                except OSError as e:         # reported by the tests below, with the console
                    lines.append(f"test_net.py: {e!r}")
                break
        lines += p.stdout.read().splitlines()
        p.wait(timeout=BOOT_TIMEOUT)
    finally:
        kill_group(p.pid)
        p.wait()
    return Result(p.returncode, "\n".join(lines)), udp, tcp


@pytest.mark.parametrize("case_id", guest_cases("t_net"))
def test_net(case_id):
    net_boot()[0].check_case(case_id)


def test_udp_echo_from_host():
    r, udp, _ = net_boot()
    assert udp == UDP_PAYLOAD, r.tail()


def test_tcp_echo_from_host():
    r, _, tcp = net_boot()
    assert tcp is not None, r.tail()
    assert len(tcp) == len(STREAM) and tcp == STREAM, f"{len(tcp)} of {len(STREAM)} bytes, or changed"
    assert r.line_index(rf"^NET ECHO DONE tcp_bytes={len(STREAM)}$") >= 0, r.tail()


def test_clean_power_off():
    r = net_boot()[0]
    assert r.summary == (len(guest_cases("t_net")), 0) and r.rc == 0, r.tail()
