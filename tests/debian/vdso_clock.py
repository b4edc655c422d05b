# SPDX-License-Identifier: MIT
"""python3's clocks (glibc's clock_gettime, through the vDSO) against the
kernel's own: time.clock_gettime(CLOCK_BOOTTIME) lies between /proc/uptime
reads around it (the system's clock, to its 10 ms), time.monotonic() never
goes back, and `date +%s` (coreutils, glibc's clock too) lies between
time.time() reads around it.  Prints the same lines on Linux and lx."""
import subprocess
import time


def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


ok = True
for _ in range(50):
    a = uptime()
    v = time.clock_gettime(time.CLOCK_BOOTTIME)
    b = uptime()
    ok = ok and a <= v + 0.005 and v <= b + 0.015
print("boottime between /proc/uptime reads", ok)
last, ok = 0, True
for _ in range(20000):
    m = time.monotonic_ns()
    ok = ok and m >= last
    last = m
print("monotonic non-decreasing", ok)
before = int(time.time())
date = int(subprocess.run(["date", "+%s"], capture_output=True, text=True).stdout)
print("date between time.time() reads", before <= date <= int(time.time()))
print("vdso mapped", any(l.rstrip().endswith("[vdso]") for l in open("/proc/self/maps")))
