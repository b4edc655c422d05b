# SPDX-License-Identifier: MIT
"""Running out of memory under lx is an error, not a hang (docs/lx.md, memory):
a full RAM file system gives ENOSPC (and RLIMIT_FSIZE SIGXFSZ), a page fault
lx cannot serve meets the OOM killer, which ends the biggest process with
SIGKILL while everything else goes on, and every page comes back.  One boot
with 64 MiB of RAM, so that running out is quick."""
import re

import pytest

from lxshell import Shell


@pytest.fixture(scope="module")
def sh():
    s = Shell(timeout=900, mem=64)
    s.expect(r"# ", 120)
    yield s
    s.close(30)


def run(sh, cmd, status=0, timeout=300):
    out, st = sh.run(cmd, timeout)
    assert st == status, f"{cmd!r} exited {st}, wanted {status}; output:\n{out}"
    return out


def mem_free(sh):
    """MemFree in KiB, read by the shell itself (no fork needed)."""
    out = run(sh, "while read k v u; do [ $k = MemFree: ] && echo $v; done < /proc/meminfo; true")
    return int(out.split()[0])


def test_full_tmpfs_is_enospc_and_rm_gives_it_back(sh):
    start = mem_free(sh)
    out = run(sh, "dd if=/dev/zero of=/tmp/big bs=64k; echo dd=$?")
    assert "No space left on device" in out and "dd=1" in out, out
    assert "Killed" not in out and "out of memory" not in out, out
    assert "forked" in run(sh, "echo forked | cat")          # lx kept its reserve
    run(sh, "rm /tmp/big")
    assert abs(mem_free(sh) - start) <= 64, (start, mem_free(sh))


def test_rlimit_fsize_sigxfsz(sh):
    """setrlimit(RLIMIT_FSIZE) as write(2) and setrlimit(2) say: a write that
    would cross the limit stores what lies below it, one at the limit fails
    with EFBIG and raises SIGXFSZ (status 128 + 25; dd ignores nothing)."""
    out = run(sh, "(ulimit -f 2; dd if=/dev/zero of=/tmp/f bs=1k count=4 2>/dev/null); echo st=$?; "
                  "wc -c < /tmp/f; rm /tmp/f")
    assert "st=153" in out and re.search(r"^1024$", out, re.M), out


def test_memory_hog_killed_while_heartbeat_runs(sh):
    run(sh, "(i=0; while true; do i=$((i+1)); echo $i > /tmp/hb; sleep 1; done) & echo $! > /tmp/hbpid")
    out = run(sh, "/tests/memhog > /dev/null; echo hog=$?")
    assert "hog=137" in out, out                                  # SIGKILL
    assert re.search(r"lx: out of memory: killed process \d+ \(memhog\), \d+ KiB resident", out), out
    before = int(run(sh, "cat /tmp/hb").split()[0])
    after = int(run(sh, "sleep 3; cat /tmp/hb").split()[0])
    assert after > before, (before, after)
    run(sh, "kill $(cat /tmp/hbpid)")


def test_hog_then_fork_rounds_leak_nothing(sh):
    """100 rounds of a hog killed by the OOM killer, then a fork: every fork
    works and lx's free pages come back to where they started."""
    run(sh, "sleep 1")                  # the heartbeat's last pages are gone
    start = mem_free(sh)
    out = run(sh, "n=0; for i in $(seq 100); do /tests/memhog > /dev/null; "
                  "[ \"$(echo ok | cat)\" = ok ] && n=$((n+1)); done; echo rounds=$n", timeout=900)
    assert "rounds=100" in out, out[-2000:]
    assert abs(mem_free(sh) - start) <= 64, (start, mem_free(sh))
    assert "alive" in run(sh, "echo alive")
