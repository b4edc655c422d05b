# SPDX-License-Identifier: MIT
"""tools/run: the QEMU command line the docs promise, and every exit path.

A guest's power-off status must never be confused with a QEMU failure, and no
QEMU may outlive tools/run.  Paths QEMU cannot be made to take on demand (a
crash, an out-of-range status) are driven by a stand-in qemu-system-x86_64."""
import os
import signal
import subprocess
import sys
import time

import pytest

from harness import BUILD, RUN, kill_group, run_group

PROG = os.path.join(BUILD, "prog")


def dry_run(*args, env=None):
    p = subprocess.run([RUN, "--dry-run", *args], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def run(*args, env=None, timeout=120):
    return run_group([RUN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=env, stdin=subprocess.DEVNULL, timeout=timeout, errors="replace")


def prog(name):
    """A program from tests/system/ordinary/, built with the documented line."""
    return os.path.join(PROG, name + ".elf")


def fake_qemu(tmp_path, script):
    """An environment whose qemu-system-x86_64 is the given shell script."""
    exe = tmp_path / "qemu-system-x86_64"
    exe.write_text("#!/bin/sh\n" + script + "\n")
    exe.chmod(0o755)
    return dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}")


def test_measurement_configuration():
    cmd = dry_run("--icount")
    assert "-icount shift=0,align=off,sleep=off" in cmd
    assert "-accel tcg -cpu Westmere-v1,+pdpe1gb,+rdrand " in cmd
    assert "isa-debug-exit,iobase=0xf4,iosize=0x04" in cmd


def test_gdb_and_modules():
    cmd = dry_run("--gdb", "--module", "build/servers/root.elf", "arg1", "arg2")
    assert " -gdb tcp:127.0.0.1:1234 -S" in cmd
    assert " -s " not in cmd + " "          # -s listens on every interface
    # the guest sees base names, never host paths (two root.elf: numbered by position)
    assert "2-root.elf arg1 arg2'" in cmd and "1-root.elf," in cmd
    initrd = cmd.split("-initrd ")[1].split(" -")[0]
    assert "/" not in initrd, initrd
    assert "-icount" not in cmd
    assert "-gdb tcp:127.0.0.1:4321 -S" in dry_run("--gdb", "--gdb-port", "4321")


def test_processor_count_from_the_environment():
    """PECAN_SMP (make test-smp) sets the processors of a boot that names none."""
    env = {k: v for k, v in os.environ.items() if k != "PECAN_SMP"}
    assert "-smp" not in dry_run(env=env)
    assert " -smp 4" in dry_run(env=dict(env, PECAN_SMP="4"))
    assert "-smp" not in dry_run("--smp", "1", env=dict(env, PECAN_SMP="4"))
    assert " -smp 2" in dry_run("--smp", "2", env=dict(env, PECAN_SMP="4"))
    p = run("--dry-run", env=dict(env, PECAN_SMP="four"))
    assert p.returncode == 102 and "PECAN_SMP wants a processor count" in p.stderr, p.stderr


def test_help_lists_exit_codes():
    p = run("--help")
    assert p.returncode == 0
    for code in ("0-99", "100", "101", "102", "124"):
        assert f"\n  {code} " in p.stdout, p.stdout


# --- exit paths with the real QEMU ---

def test_orderly_power_off_is_0():
    p = run("--timeout", "60")
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    assert "power off requested by root (status 0)" in p.stdout


def test_guest_status_passes_through():
    p = run("--timeout", "60", "--root", prog("status"))
    assert p.returncode == 42, p.stdout[-2000:] + p.stderr


def test_kernel_status_passes_through():
    p = run("--timeout", "60", "--root", "none")
    assert p.returncode == 5, p.stdout[-2000:] + p.stderr


def test_kernel_qemu_cannot_load_is_101():
    p = run("--timeout", "60", "--kernel", "/etc/passwd")
    assert p.returncode == 101, p.stderr
    assert "QEMU failed (exit status 1)" in p.stderr


def test_bad_qemu_option_is_101():
    p = run("--timeout", "60", "--qemu-arg=-bogus-option")
    assert p.returncode == 101, p.stderr
    assert "-bogus-option" in p.stderr and "QEMU failed" in p.stderr


def test_bad_runner_option_is_102():
    p = run("--bogus-option")
    assert p.returncode == 102, p.stderr
    assert "unrecognized arguments: --bogus-option" in p.stderr


def test_missing_kernel_is_102(tmp_path):
    p = run("--kernel", str(tmp_path / "none.bin"))
    assert p.returncode == 102 and "kernel not found" in p.stderr, p.stderr


def test_timeout_is_124_and_kills_qemu():
    """-S keeps the guest stopped forever; the timeout must end it and QEMU
    (its message says it did; no wall-clock bound is asserted)."""
    p = subprocess.Popen([RUN, "--timeout", "2", "--qemu-arg=-S"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 124, err
        assert "timeout after 2 s" in err
        assert_group_gone(p.pid)
    finally:
        kill_group(p.pid)


def test_default_timeout_when_not_interactive():
    """No --timeout and standard input not a terminal: the default (here 2 s) applies."""
    p = run("--qemu-arg=-S", env=dict(os.environ, PECAN_RUN_TIMEOUT="2"), timeout=60)
    assert p.returncode == 124, p.stderr
    assert "timeout after 2 s" in p.stderr


def test_reset_without_power_off_is_100(tmp_path):
    """A kernel that triple-faults: QEMU (-no-reboot) stops without a power-off."""
    kernel = tmp_path / "triple.bin"
    kernel.write_bytes(triple_fault_kernel())
    p = run("--timeout", "60", "--kernel", str(kernel))
    assert p.returncode == 100, p.stderr
    assert "without a guest power-off" in p.stderr


def test_sigterm_kills_qemu():
    p = subprocess.Popen([RUN, "--timeout", "60", "--qemu-arg=-S"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        time.sleep(1.5)
        qemu = children(p.pid)
        assert qemu, "no QEMU started"
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == 128 + signal.SIGTERM
        for pid in qemu:
            assert not os.path.exists(f"/proc/{pid}"), "QEMU outlived tools/run"
    finally:
        kill_group(p.pid)


def test_stdin_reaches_the_guest():
    """Keys piped into tools/run reach a guest reading with KDB ReadChar."""
    p = subprocess.Popen([RUN, "--timeout", "60", "--root", prog("echo")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out = ""
        while "echo: ready" not in out:
            line = p.stdout.readline()
            assert line, out
            out += line
        p.stdin.write("pecan\n")
        p.stdin.flush()
        rest, _ = p.communicate(timeout=60)
        assert 'echo: got "pecan"' in rest, out + rest
        assert p.returncode == 0
    finally:
        kill_group(p.pid)


def test_keys_piped_before_boot_arrive():
    """Bytes waiting before the kernel sets the UART up are not lost when its FIFO goes on."""
    p = subprocess.Popen([RUN, "--timeout", "60", "--root", prog("echo")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate("pecan\n", timeout=90)
        assert 'echo: got "pecan"' in out, out
        assert p.returncode == 0
    finally:
        kill_group(p.pid)


# --- exit paths through a stand-in QEMU ---

@pytest.mark.parametrize("script,status,message", [
    ("exit 1", 101, "QEMU failed (exit status 1)"),      # QEMU's own error, never guest 0
    ("exit 0", 100, "without a guest power-off"),
    ("exit 3", 0, ""),                                    # guest wrote 0 + 1
    ("exit 201", 99, ""),                                 # guest wrote 99 + 1
    ("exit 203", 101, "guest status 100 is out of range"),
    ("exit 2", 101, "QEMU failed (exit status 2)"),
    ("kill -SEGV $$", 101, "QEMU failed (killed by signal 11)"),
], ids=["error", "no-poweroff", "status0", "status99", "status100", "even", "crash"])
def test_qemu_exit_decoding(tmp_path, script, status, message):
    p = run("--timeout", "30", env=fake_qemu(tmp_path, script))
    assert p.returncode == status, p.stderr
    if message:
        assert message in p.stderr, p.stderr
    else:                                                 # a guest's status: nothing to say
        assert p.stderr == "", p.stderr


def test_qemu_missing_is_101(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))
    p = subprocess.run([sys.executable, RUN, "--timeout", "30"], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL)
    assert p.returncode == 101, p.stderr
    assert "qemu-system-x86_64 not found" in p.stderr


# --- helpers ---

def triple_fault_kernel():
    """A Multiboot kernel (a.out kludge) that loads an empty IDT and traps."""
    import struct
    base, flags = 0x100000, 0x00010000
    code = bytes([0xfa,                                     # cli
                  0x0f, 0x01, 0x1d]) + struct.pack("<I", base + 64) + bytes([  # lidt [idtr]
                  0xcc,                                     # int3: #GP, #DF, triple fault
                  0xf4, 0xeb, 0xfd])                        # hlt; jmp hlt
    header = struct.pack("<IIIIIIII", 0x1BADB002, flags, (-(0x1BADB002 + flags)) & 0xffffffff,
                         base, base, 0, 0, base + 32)
    image = header.ljust(32, b"\0") + code
    return image.ljust(64, b"\0") + bytes(6) + bytes(4096)


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except FileNotFoundError:
        return []


def assert_group_gone(pgid):
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail(f"processes of group {pgid} outlived tools/run")



def test_guest_sees_the_pinned_cpu():
    """The guest's CPUID is the pinned model's (Westmere, family 6 model 44), with the
    1 GiB pages the kernel needs and RDRAND (the Mungi server keys its password
    generator from it; docs/mungi.md)."""
    p = run("--timeout", "60", "--root", prog("cpuid"))
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    assert "cpuid: vendor=GenuineIntel family=6 model=44 pdpe1gb=1 nx=1 rdrand=1" in p.stdout, \
        p.stdout[-2000:]
