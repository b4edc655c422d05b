#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host-to-guest HTTP throughput (issue 24): the same busybox httpd serves a 1 KiB
page on Pecan (under lx, through the NIC driver and the network server) and on the
native Linux guest (virtio-net), each in QEMU with -icount shift=0,align=off,sleep=on
on QEMU's restricted user network with one port forwarded from this host's 127.0.0.1.
This host sends N sequential GETs (one connection each, as busybox httpd closes
them).  No guest program can mark the window, so tools/insncount (a TCG plugin)
publishes the guest's executed-instruction count; the figure is the count's growth
over the N requests, less the idle guest's timer ticks over as long (the idle rate,
measured over a quiet second just before and reported beside the figure), divided
by N; requests per guest second = 10^9 / that (one instruction is one nanosecond
of guest time at shift=0).  A model-free figure, but not noise-free: the idle
rate is subtracted, not excluded.

    bench/http/throughput.py --build build --out build/bench/http.results [--requests N]
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPU = "Westmere-v1,+pdpe1gb,+rdrand"
GUEST_PORT = 8080
# sleep=on, unlike the other benchmarks: an idle guest's clock then runs at the host's
# pace, so the timer ticks counted while this host's requests travel are few
# (sleep=off races the idle clock ahead, ticks by the thousand); the work of a
# request executes the same instructions either way.
ICOUNT = "shift=0,align=off,sleep=on"
PAGE = 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_plugin(out_dir):
    so = os.path.join(out_dir, "insncount.so")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-pthread",
                    "-o", so, os.path.join(TOP, "tools", "insncount", "insncount.c")], check=True)
    return so


def count(path):
    for _ in range(100):
        try:
            with open(path) as f:
                return int(f.read())
        except (OSError, ValueError):
            time.sleep(0.02)
    raise SystemExit(f"http: no instruction count in {path}")


def wait_for(proc, pattern, timeout):
    """Read the guest's console until pattern; the text read."""
    seen, end = b"", time.time() + timeout
    os.set_blocking(proc.stdout.fileno(), False)
    while time.time() < end:
        chunk = proc.stdout.read(4096)
        if chunk:
            seen += chunk
            if re.search(pattern, seen):
                return seen
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.05)
    raise SystemExit(f"http: no {pattern!r} from the guest:\n{seen[-2000:].decode(errors='replace')}")


def get(port, deadline):
    while True:
        try:
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=60).read()
            if len(body) != PAGE:
                raise SystemExit(f"http: the page came back {len(body)} bytes, not {PAGE}")
            return
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)


def measure(proc, port, counter, n):
    """(instructions per request, idle instructions per host second)."""
    deadline = time.time() + 300
    for _ in range(5):                  # warm: the forward, httpd's first fork, caches
        get(port, deadline)
    time.sleep(0.5)
    c0, t0 = count(counter), time.time()
    time.sleep(1.0)
    idle = (count(counter) - c0) / (time.time() - t0)
    c1, t1 = count(counter), time.time()
    for _ in range(n):
        get(port, deadline)
    time.sleep(0.1)                     # the plugin publishes every 20 ms
    spent = count(counter) - c1 - idle * (time.time() - t1)      # the idle ticks taken out
    return spent / n, idle


# lx's shell (its console is this script's pipe) starts the same httpd on the same page
PECAN_SCRIPT = (f"mkdir -p /tmp/www && head -c {PAGE} /dev/zero | tr '\\0' x > /tmp/www/index.html && "
                f"httpd -p {GUEST_PORT} -h /tmp/www && echo HTTP_$((1+1))_READY\n")


def pecan_cmd(a, port):
    return [os.path.join(TOP, "tools", "run"), "--qemu-arg=-icount", f"--qemu-arg={ICOUNT}",
            "--timeout", "1800",
            "--kernel", os.path.join(a.build, "kernels", "bench-dslq-fast", "pecan.bin"),
            "--root", os.path.join(a.build, "servers", "lx.elf"),
            "--module", os.path.join(a.build, "lx", "rootfs.cpio"),
            "--net", "--nic-forward", f"tcp:{port}:{GUEST_PORT}",
            "--root-args", "/bin/sh"]


def linux_cmd(a, port):
    return ["timeout", "1800", "qemu-system-x86_64", "-accel", "tcg", "-cpu", CPU,
            "-icount", ICOUNT, "-m", "256M", "-serial", "stdio",
            "-display", "none", "-nodefaults", "-no-reboot",
            "-kernel", os.path.join(a.build, "bench", "linux", "vmlinuz"),
            "-initrd", os.path.join(a.build, "bench", "http", "initramfs.cpio.gz"),
            "-append", "console=ttyS0 panic=-1 quiet loglevel=1",
            "-netdev", f"user,id=n0,restrict=on,net=10.0.2.0/24,hostfwd=tcp:127.0.0.1:{port}-:{GUEST_PORT}",
            "-device", "virtio-net-pci,netdev=n0"]


def run(a, system, so, tmp):
    port, counter = free_port(), os.path.join(tmp, system + ".count")
    plugin = f"{so},out={counter}"
    cmd = pecan_cmd(a, port) if system == "pecan" else linux_cmd(a, port)
    cmd += ["--qemu-arg=-plugin", f"--qemu-arg={plugin}"] if system == "pecan" else ["-plugin", plugin]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        if system == "pecan":
            wait_for(proc, rb"# ", 600)
            proc.stdin.write(PECAN_SCRIPT.encode())
            proc.stdin.flush()
        wait_for(proc, rb"HTTP_2_READY", 600)
        per, idle = measure(proc, port, counter, a.requests)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)      # QEMU too, under tools/run or timeout
        proc.wait()
    return per, idle


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--systems", default="linux,pecan")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        so = build_plugin(tmp)
        for system in a.systems.split(","):
            per, idle = run(a, system, so, tmp)
            tag = "linux" if system == "linux" else "pecan"
            lines.append(f"RESULT name=http.request system={tag} page={PAGE} value={per:.0f} "
                         f"unit=instructions method=insncount")
            lines.append(f"META http.{tag}.requests={a.requests} http.{tag}.per_guest_s={1e9 / per:.1f} "
                         f"http.{tag}.idle_per_host_s={idle:.0f}")
    with open(a.out, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
