# SPDX-License-Identifier: MIT
"""lx's file layer through busybox's shell: files, directories, links, pipes,
FIFOs and devices as real commands use them, and two test programs
(tests/lx/files.c, tests/lx/efault.c) that check the Linux system calls one
by one, wild pointers included.  One boot serves the whole module."""
import re
import subprocess

import pytest

from harness import TOP
from lxshell import PATHS, Shell


@pytest.fixture(scope="module", params=sorted(PATHS))
def sh(request):
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)
    shell = Shell(timeout=900, path=request.param)
    shell.expect(r"# ", 300)
    yield shell
    shell.close()


def run(sh, command, timeout=120):
    """(output, status) of a command line; waits for the next prompt so that
    the following line is typed into a shell that is reading."""
    out, status = sh.run(command, timeout)
    sh.expect(r"# ", timeout)
    return out, status


def test_missing_file_is_an_error_and_the_shell_goes_on(sh):
    out, st = run(sh, "cat /no/such/file")
    assert st == 1 and "No such file or directory" in out
    out, st = run(sh, "echo still here")
    assert (out, st) == ("still here\n", 0)


def test_cp_mv_rm_mkdir(sh):
    out, st = run(sh, "mkdir -p /tmp/t1/a/b && echo data > /tmp/t1/a/f && cp /tmp/t1/a/f "
                      "/tmp/t1/a/b/g && mv /tmp/t1/a/b /tmp/t1/c && ls /tmp/t1 /tmp/t1/c && "
                      "cat /tmp/t1/c/g")
    assert st == 0
    assert out == "/tmp/t1:\na  c\n\n/tmp/t1/c:\ng\ndata\n"
    out, st = run(sh, "rmdir /tmp/t1/c")
    assert st == 1 and "Directory not empty" in out
    out, st = run(sh, "rm -r /tmp/t1 && ls /tmp/t1")
    assert st != 0 and "No such file or directory" in out


def test_symlink_and_readlink(sh):
    out, st = run(sh, "echo linked > /tmp/target && ln -s /tmp/target /tmp/sl && "
                      "readlink /tmp/sl && cat /tmp/sl && ln /tmp/target /tmp/hl && "
                      "stat -c %h /tmp/target")
    assert (out, st) == ("/tmp/target\nlinked\n2\n", 0)
    out, st = run(sh, "rm /tmp/target; cat /tmp/sl; cat /tmp/hl")
    assert "No such file or directory" in out and out.endswith("linked\n")


def test_ls_l_shows_modes_sizes_and_links(sh):
    out, st = run(sh, "mkdir /tmp/lsd && cd /tmp/lsd && printf 12345 > five && chmod 640 five "
                      "&& ln -s five ln && mkdir sub && ls -l; cd /")
    assert st == 0
    assert re.search(r"^-rw-r----- +1 root +root +5 .* five$", out, re.M), out
    assert re.search(r"^d[rwx-]{9} +2 root .* sub$", out, re.M), out
    assert re.search(r"^lrwxrwxrwx .* ln -> five$", out, re.M), out


def test_find_walks_the_tree(sh):
    out, st = run(sh, "mkdir -p /tmp/fd/x/y && touch /tmp/fd/x/y/z /tmp/fd/w && find /tmp/fd "
                      "| sort")
    assert (out, st) == ("/tmp/fd\n/tmp/fd/w\n/tmp/fd/x\n/tmp/fd/x/y\n/tmp/fd/x/y/z\n", 0)
    out, st = run(sh, "find /tmp/fd -type f | sort")
    assert out == "/tmp/fd/w\n/tmp/fd/x/y/z\n"


def test_pipeline(sh):
    out, st = run(sh, "seq 1 1000 | sort -rn | head -3")
    assert (out, st) == ("1000\n999\n998\n", 0)


def test_pipe_larger_than_its_buffer(sh):
    # 300 KiB through a 64 KiB pipe: the writer must wait for the reader
    out, st = run(sh, "dd if=/dev/zero bs=1024 count=300 2>/dev/null | wc -c")
    assert (out.strip(), st) == ("307200", 0)
    out, st = run(sh, "cat /bin/busybox | md5sum; md5sum < /bin/busybox")
    sums = [l.split()[0] for l in out.splitlines()]
    assert len(sums) == 2 and sums[0] == sums[1]


def test_fifo_between_processes(sh):
    out, st = run(sh, "mkfifo /tmp/ff && (echo through-fifo > /tmp/ff &) && cat /tmp/ff; "
                      "rm /tmp/ff")
    assert (out, st) == ("through-fifo\n", 0)


def test_devices(sh):
    out, st = run(sh, "head -c 100 /dev/zero | wc -c; head -c 16 /dev/urandom | wc -c; "
                      "echo gone > /dev/null; cat /dev/null | wc -c")
    assert out.split() == ["100", "16", "0"]
    out, st = run(sh, "echo x > /dev/full")
    assert st != 0 and "No space left on device" in out


@pytest.mark.parametrize("program", ["files", "efault", "sockets", "shared", "abi", "procfs", "mounts",
                                     "ptimers", "atcalls", "fileedges"])
def test_program(sh, program):
    """Each check prints ok or FAIL; the program passes the same way on Linux."""
    out, st = run(sh, f"/tests/{program}", timeout=300)
    fails = [l for l in out.splitlines() if l.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert f"{program} done, 0 failed" in out and st == 0
    assert len([l for l in out.splitlines() if l.startswith("ok ")]) >= 20


@pytest.mark.parametrize("program, where", [("events", ""), ("memfd", "/tmp"), ("splice", ""),
                                             ("inotify", "/tmp"), ("inotify", "/")])
def test_event_program(sh, program, where):
    """Event descriptors, memfd and fallocate (on tmpfs), splice and inotify (on
    tmpfs and the RAM root), check by check as on Linux."""
    out, st = run(sh, f"/tests/{program} {where}", timeout=300)
    fails = [l for l in out.splitlines() if l.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert f"{program} done, 0 failed" in out and st == 0
    assert len([l for l in out.splitlines() if l.startswith("ok ")]) >= 20


def test_event_calls_survive_random_arguments(sh):
    """Random arguments to the event and splice calls (tests/lx/evfuzz.c) get
    results or errnos; lx goes on serving."""
    out, st = run(sh, "/tests/evfuzz 7 50000", timeout=600)
    assert "evfuzz survived" in out and st == 0, out
    out, st = run(sh, "echo alive")
    assert out == "alive\n" and st == 0


def test_lx_survived(sh):
    out, st = run(sh, "echo alive; ls / | wc -l")
    assert out.startswith("alive\n") and st == 0
