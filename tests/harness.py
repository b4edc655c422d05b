# SPDX-License-Identifier: MIT
"""Shared by host and system tests: run a test binary or boot Pecan, read TEST lines.

Test programs (host binaries and in-guest programs alike) print
    TEST <id> <description>: ok
    TEST <id> <description>: FAIL <why>
    TESTS DONE: <n> passed, <m> failed
Each TEST_CASE in a program's C source becomes one pytest item, so a test that
never reports (the program crashed or hung) fails with the console tail.
"""
import functools
import os
import re
import signal
import subprocess

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
RUN = os.path.join(TOP, "tools", "run")

CASE_RE = re.compile(r'TEST_CASE\("([^"]+)",\s*"([^"]+)"\)')
LINE_RE = re.compile(r"^TEST (\S+) (.*?): (ok|FAIL)(?: (.*))?$")
SUMMARY_RE = re.compile(r"^TESTS DONE: (\d+) passed, (\d+) failed$")


def case_ids(source):
    """[(id, description)] of the TEST_CASEs in a C source file."""
    with open(source) as f:
        return CASE_RE.findall(f.read())


class Result:
    def __init__(self, rc, output):
        self.rc = rc
        self.output = output
        self.lines = [l.rstrip("\r") for l in output.splitlines()]
        self.cases = {}
        self.summary = None
        for line in self.lines:
            m = LINE_RE.match(line)
            if m:
                self.cases[m.group(1)] = (m.group(3), m.group(4) or "")
            m = SUMMARY_RE.match(line)
            if m:
                self.summary = (int(m.group(1)), int(m.group(2)))

    def tail(self, n=25):
        return "\n".join(self.lines[-n:])

    def line_index(self, pattern, after=-1):
        """Index of the first console line after `after` matching the regex, or -1."""
        rx = re.compile(pattern)
        return next((i for i, l in enumerate(self.lines) if i > after and rx.search(l)), -1)

    def check_case(self, case_id):
        if case_id not in self.cases:
            pytest.fail(f"{case_id}: not reported (exit status {self.rc})\n{self.tail()}")
        status, why = self.cases[case_id]
        if status != "ok":
            pytest.fail(f"{case_id}: {why}")


def kill_group(pgid):
    """Kill every process of a process group (QEMU under tools/run included)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_group(cmd, timeout=None, input=None, **kwargs):
    """subprocess.run in a new process group that is killed afterwards, pass or
    fail (a timeout, an interrupted test), so no QEMU outlives the test."""
    p = subprocess.Popen(cmd, start_new_session=True, **kwargs)
    try:
        out, err = p.communicate(input=input, timeout=timeout)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)
    finally:
        kill_group(p.pid)
        p.wait()


@functools.lru_cache(maxsize=None)
def run_host(binary, timeout=120):
    p = subprocess.run([binary], capture_output=True, text=True, timeout=timeout)
    return Result(p.returncode, p.stdout + p.stderr)


@functools.lru_cache(maxsize=None)
def boot(root=None, sigma0=None, modules=(), append="", timeout=60, icount=False, kernel=None,
         nmi_every=0, deadlock_poweroff=True, keys=None, mem=None, root_args="", disk=None,
         smp=None):
    """Boot Pecan once per distinct configuration; paths are relative to BUILD.

    kernel: a test-kernel name (Makefile TEST_KERNELS, e.g. "fseq" or
    "dslq-nofast"); None boots the default build.  nmi_every: inject an NMI
    every so many milliseconds.  deadlock_poweroff: boot with
    pecan.deadlock=poweroff, so a deadlock ends the run with status 6
    instead of halting in the kernel debugger.  keys: text piped into the
    serial console.  mem: guest RAM in MiB.  root_args: the root task's
    command line after its path.  disk: a disk image to attach (a path).
    smp: processors (QEMU -smp); None leaves it to tools/run's default, PECAN_SMP
    (`make test-smp`), so only a boot that needs a count names one."""
    cmd = [RUN, "--timeout", str(timeout)]
    if kernel:
        cmd += ["--kernel", os.path.join(BUILD, "kernels", kernel, "pecan.bin")]
    if root:
        cmd += ["--root", root if root == "none" else os.path.join(BUILD, root)]
    if sigma0:
        cmd += ["--sigma0", os.path.join(BUILD, sigma0)]
    for m in modules:
        cmd += ["--module", m]
    cmdline = " ".join(filter(None, ("pecan.deadlock=poweroff" if deadlock_poweroff else "", append)))
    if cmdline:
        cmd += ["--append", cmdline]
    if nmi_every:
        cmd += ["--nmi-every", str(nmi_every)]
    if icount:
        cmd.append("--icount")
    if mem:
        cmd += ["--mem", str(mem)]
    if root_args:
        cmd += ["--root-args", root_args]
    if disk:
        cmd += ["--disk", disk]
    if smp is not None:
        cmd += ["--smp", str(smp)]
    p = run_group(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  stdin=subprocess.PIPE if keys else subprocess.DEVNULL, input=keys,
                  errors="replace")
    return Result(p.returncode, p.stdout + p.stderr)


DISK_DIR = os.path.join(BUILD, "tests", "disk")


def fresh_image(name, mb):
    """A new zero-filled (sparse) raw disk image of mb MiB under build/tests/disk."""
    os.makedirs(DISK_DIR, exist_ok=True)
    path = os.path.join(DISK_DIR, name)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.truncate(mb << 20)
    return path


def guest_cases(program):
    """pytest parameters for every TEST_CASE of tests/system/progs/<program>.c."""
    src = os.path.join(TOP, "tests", "system", "progs", program + ".c")
    return [pytest.param(cid, id=cid) for cid, _ in case_ids(src)]


# Every kernel configuration the kernel-core suites run on (Makefile TEST_KERNELS).
TEST_KERNELS = ("dslq", "dseq", "fslq", "fseq", "benno", "dslq-nofast")


def guest_cases_all_kernels(program):
    """pytest parameters (kernel, case) for every TEST_CASE on every test kernel."""
    src = os.path.join(TOP, "tests", "system", "progs", program + ".c")
    return [pytest.param(k, cid, id=f"{k}:{cid}")
            for k in TEST_KERNELS for cid, _ in case_ids(src)]
