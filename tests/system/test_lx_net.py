# SPDX-License-Identifier: MIT
"""lx's AF_INET and AF_INET6 sockets on the network server (docs/lx.md,
"Networking").  tests/lx/inet.c runs as init over the loopback, without a
NIC, with the issue's sizes: 10,000 connections opened and closed and
100 MiB streamed with its checksum compared, and tcpstream.c's streams checked
byte by byte (reads and writes of many sizes, 64 KiB socket buffers).  Then a shell boots with a NIC on
QEMU's restricted user network: busybox httpd under lx serves a 10 MiB file that
this host fetches through a port QEMU forwards from 127.0.0.1 (and that the
guest fetches over its loopback, by name through /etc/hosts); busybox wget
under lx fetches 10 MiB from an HTTP server on this host's 127.0.0.1 through
QEMU's guestfwd rule; netstat reads
/proc/net, garbage and abandoned connections from the host leave lx and the
server serving, and inet.c passes again with the NIC and IPv6 configured.
Last, the NIC on a UDP socket of this host takes raw frames from the test:
malformed and hostile ones, after which the guest still answers ARP and
inet.c still passes."""
import hashlib
import os
import re
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from harness import BUILD, RUN, TOP
from lxshell import Shell

LX = os.path.join(BUILD, "servers", "lx.elf")
LXFS = os.path.join(BUILD, "lx", "rootfs.cpio")
GUEST_PORT = 8080
FILE_SIZE = 10 << 20              # the issue's size for fetches between host and guest


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


def test_tcp_stream_every_byte_in_order():
    """tcpstream.c under lx, no NIC: 2 x 32 MiB over the loopback in writes of 1 byte to
    128 KiB and reads of other sizes, every byte checked in order, the end of stream only
    after the last, every write succeeding; once with the reader keeping up, once late."""
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    r = subprocess.run([RUN, "--root", LX, "--module", LXFS, "--timeout", "600",
                        "--root-args", "/tests/tcpstream 32768"],
                       capture_output=True, text=True, timeout=700)
    fails = [l for l in r.stdout.splitlines() if l.startswith("FAIL")]
    assert not fails, "\n".join(fails) + r.stdout[-2000:]
    assert "tcpstream done, 0 failed" in r.stdout and r.returncode == 0, r.stdout[-2000:]


class HostServer:
    """An HTTP server on this host's 127.0.0.1 for QEMU's guestfwd rule: QEMU connects
    to it once, when it starts, and that one connection carries the guest's request.
    It answers the first request with `data` and records the request line."""

    def __init__(self, data):
        self.data, self.request = data, None
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.sock.accept()
        with conn:
            req = b""
            while b"\r\n\r\n" not in req:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                req += chunk
            self.request = req.split(b"\r\n")[0].decode(errors="replace")
            conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(self.data) + self.data)

    def close(self):
        self.sock.close()


@pytest.fixture(scope="module")
def host_server():
    import random
    srv = HostServer(random.Random(2424).randbytes(FILE_SIZE))
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def net(host_server):
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    port = free_port()
    sh = Shell(timeout=900, root_args="/bin/sh",
               extra=["--net", "--nic-forward", f"tcp:{port}:{GUEST_PORT}",
                      "--nic-guestfwd", f"80:{host_server.port}"])
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
    """A 10 MiB file of random bytes under httpd; its MD5 as the guest computed it."""
    out, st = run(net, f"mkdir -p /tmp/www && head -c {FILE_SIZE} /dev/urandom > /tmp/www/f && "
                       "md5sum /tmp/www/f")
    assert st == 0, out
    out2, st = run(net, f"httpd -p {GUEST_PORT} -h /tmp/www && echo started")
    assert st == 0 and "started" in out2, out2
    return out.split()[0]


def test_host_fetches_file_from_httpd(net, served):
    data = fetch(net.port, "/f", time.time() + 120)
    assert len(data) == FILE_SIZE
    assert hashlib.md5(data).hexdigest() == served


def test_guest_fetches_file_from_host(net, host_server):
    """busybox wget under lx fetches 10 MiB from this host's 127.0.0.1 through guestfwd."""
    out, st = run(net, "wget -q -O - http://10.0.2.100/f | md5sum", timeout=300)
    assert host_server.request == "GET /f HTTP/1.1", host_server.request
    assert st == 0 and out.split()[0] == hashlib.md5(host_server.data).hexdigest(), out


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


def frames(rng):
    """Malformed and hostile Ethernet frames for the guest (MAC 52:54:00:12:34:56)."""
    guest, me = bytes.fromhex("525400123456"), bytes.fromhex("525400aabbcc")
    ip4 = lambda proto, body, flags_frag=0, ihl=5, total=None: (
        bytes([0x40 | ihl, 0]) + (total if total is not None else 20 + len(body)).to_bytes(2, "big") +
        b"\x12\x34" + flags_frag.to_bytes(2, "big") + bytes([64, proto]) + b"\0\0" +
        bytes([10, 0, 2, 2, 10, 0, 2, 15]) + body)
    eth = lambda ethertype, payload, dst=guest: dst + me + ethertype.to_bytes(2, "big") + payload
    # short frames (not an empty one: QEMU's socket backend stops reading at an empty datagram)
    out = [b"\xff", b"\xff" * 5, guest + me, guest + me + b"\x08\x00"]
    out += [rng.randbytes(rng.randrange(14, 1514)) for _ in range(200)]        # noise
    out += [eth(0x0800, rng.randbytes(rng.randrange(0, 60))) for _ in range(100)]
    out += [eth(0x86dd, rng.randbytes(rng.randrange(0, 100))) for _ in range(100)]
    out += [eth(0x0806, rng.randbytes(28)) for _ in range(50)]
    out += [eth(0x0800, ip4(17, rng.randbytes(40), ihl=15)),                  # header past the end
            eth(0x0800, ip4(17, rng.randbytes(40), total=65535)),            # length past the end
            eth(0x0800, ip4(6, b"\x00\x50\x1f\x90" + rng.randbytes(16))),    # TCP to port 8080
            eth(0x0800, ip4(1, b"\x08\x00" + rng.randbytes(30)))]            # ICMP, bad checksum
    # fragments: overlapping, out of range, a first one never completed
    for off in (0, 1, 8191, 100, 100, 8000):
        out.append(eth(0x0800, ip4(17, rng.randbytes(64), flags_frag=0x2000 | off)))
    return out


def arp_request():
    me = bytes.fromhex("525400aabbcc")
    body = (b"\x00\x01\x08\x00\x06\x04\x00\x01" + me + bytes([10, 0, 2, 2]) + b"\0" * 6 +
            bytes([10, 0, 2, 15]))
    return b"\xff" * 6 + me + b"\x08\x06" + body


def test_malformed_frames_leave_lx_and_the_server_serving():
    """The NIC on a UDP socket of this host (QEMU's socket backend): we send the guest raw
    frames, garbage, truncated and hostile headers and fragments; then it still answers an
    ARP request on the wire, and inet.c passes over the loopback."""
    import random
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    mine = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    mine.bind(("127.0.0.1", 0))
    theirs = free_port()
    dev = f"socket,id=nic0,udp=127.0.0.1:{mine.getsockname()[1]},localaddr=127.0.0.1:{theirs}"
    sh = Shell(timeout=900, root_args="net.ip4=10.0.2.15/24 net.ip6=fec0::15/64 /bin/sh",
               extra=["--qemu-arg=-netdev", f"--qemu-arg={dev}", "--qemu-arg=-device",
                      "--qemu-arg=virtio-net-pci,netdev=nic0,disable-modern=on,mac=52:54:00:12:34:56"])
    try:
        sh.expect(r"# ", 300)
        out, st = run(sh, "echo up")
        for f in frames(random.Random(24)):
            mine.sendto(f, ("127.0.0.1", theirs))
        mine.settimeout(2)
        deadline, answered = time.time() + 60, False
        while not answered and time.time() < deadline:
            mine.sendto(arp_request(), ("127.0.0.1", theirs))
            try:
                while not answered:
                    f = mine.recv(2048)
                    answered = f[12:14] == b"\x08\x06" and f[20:22] == b"\x00\x02" and f[28:32] == bytes([10, 0, 2, 15])
            except socket.timeout:
                pass
        assert answered, "no ARP reply after the garbage:\n" + sh.log()[-2000:]
        out, st = run(sh, "/tests/inet 100 1024", timeout=600)
        assert "inet done, 0 failed" in out and st == 0, out
        assert "panicked" not in sh.log()
    finally:
        sh.close()
        mine.close()
