# SPDX-License-Identifier: MIT
"""lx, the Linux personality: Debian's static busybox and static musl programs,
unmodified, driven over the serial console as a user would (docs/lx.md).

One boot serves the whole module (a shell is a long-lived thing); the tests
run in order and the later ones check that lx survived the earlier abuse.
"""
import re
import time

import pytest

from lxshell import PATHS, Shell


@pytest.fixture(scope="module", params=sorted(PATHS))
def sh(request):
    s = Shell(timeout=900, path=request.param)
    s.expect(r"# $|# \n|# ", 120)
    yield s
    s.close(30)


def run(sh, cmd, status=0, timeout=120):
    out, st = sh.run(cmd, timeout)
    assert st == status, f"{cmd!r} exited {st}, wanted {status}; output:\n{out}"
    return out


def lines(out):
    """Output lines, less lx's own log lines and the shell's job notices."""
    return [l for l in out.split("\n")
            if l and not l.startswith("lx: ") and not re.match(r"\[\d+\][+-]? ", l)]


# --- the shell itself ---

def test_pipeline(sh):
    assert lines(run(sh, "seq 1 1000 | sort -rn | head -3")) == ["1000", "999", "998"]


def test_redirection_and_append(sh):
    run(sh, "echo one > /tmp/r; echo two >> /tmp/r; echo three >> /tmp/r")
    assert lines(run(sh, "cat /tmp/r")) == ["one", "two", "three"]
    assert lines(run(sh, "wc -l < /tmp/r")) == ["3"]
    assert lines(run(sh, "echo four > /tmp/r; cat /tmp/r")) == ["four"]     # > truncates
    run(sh, "ls /nonexistent 2> /tmp/err", status=1)
    assert "nonexistent" in run(sh, "cat /tmp/err")


def test_sh_c_and_exit_codes(sh):
    run(sh, "sh -c 'exit 42'", status=42)
    assert lines(run(sh, "sh -c 'false; echo $?'")) == ["1"]
    assert lines(run(sh, "sh -c 'sh -c \"exit 3\"; echo inner=$?'")) == ["inner=3"]


def test_here_document(sh):
    out = run(sh, "cat <<EOF\nalpha $((6*7))\nbeta\nEOF")
    assert "alpha 42" in out and "beta" in out
    assert lines(run(sh, "cat <<'EOF' > /tmp/hd\n$HOME\nbeta\nEOF\ncat /tmp/hd")) == ["$HOME", "beta"]


def test_command_substitution(sh):
    assert lines(run(sh, 'x=$(echo inner; echo more | tr a-z A-Z); echo "[$x]"')) == \
        ["[inner", "MORE]"]


def test_background_and_wait(sh):
    out = run(sh, "(sleep 1; echo bg-done) & echo started; wait; echo waited")
    assert lines(out) == ["started", "bg-done", "waited"]


def test_kill_running_loop(sh):
    out = run(sh, "sh -c 'while :; do :; done' & p=$!; sleep 1; kill $p; wait $p; echo st=$?")
    assert lines(out)[-1] == "st=143"       # 128 + SIGTERM


def test_trap_handler(sh):
    out = run(sh, "sh -c 'trap \"echo caught USR1\" USR1; kill -USR1 $$; echo after'")
    assert lines(out) == ["caught USR1", "after"]


def test_ctrl_c_interrupts_foreground(sh):
    sh.send("sleep 30; echo not-interrupted\n")
    time.sleep(3)
    sh.send("\x03")
    sh.expect(r"\^C", 30)
    out = run(sh, "echo alive")
    assert "alive" in out and "not-interrupted" not in sh.log().split("\n")


def test_ctrl_z_stops_foreground_job_and_fg_continues_it(sh):
    """^Z on the console sends SIGTSTP to the foreground process group: the job
    stops (not killed), the shell reports it, and `fg` continues it (SIGCONT)."""
    sh.send("sh -c 'echo started; sleep 3; echo finished-$((6*7))'\n")
    sh.expect(r"started", 60)
    time.sleep(0.5)
    sh.send("\x1a")
    sh.expect(r"\^Z", 30)
    sh.expect(r"Stopped", 30)
    assert "Stopped" in run(sh, "jobs")
    out = run(sh, "fg", timeout=60)
    assert "finished-42" in out, out


def test_background_job_control(sh):
    """A background read of the console stops the job with SIGTTIN, a background
    write with TOSTOP set or a change of the settings with SIGTTOU; a job stopped
    with SIGTSTP goes on in the background with `bg`."""
    out = run(sh, "cat & sleep 1; jobs; kill -9 %1; sleep 1; echo killed")
    assert "Stopped (tty input)" in out and "killed" in out, out
    out = run(sh, "stty tostop; (echo from-bg) & sleep 1; jobs; stty -tostop; kill -9 %1; sleep 1")
    assert "Stopped (tty output)" in out and "from-bg" not in lines(out), out
    out = run(sh, "sh -c 'stty -echo; echo set' & sleep 1; jobs; kill -9 %1; sleep 1")
    assert "Stopped (tty output)" in out and "set" not in lines(out), out
    out = run(sh, "sh -c 'sleep 2; echo bg-finished' & sleep 1; kill -TSTP $!; sleep 1; jobs; "
                  "bg; wait; echo waited")
    assert lines(out)[-2:] == ["bg-finished", "waited"] and "Stopped" in out, out


# --- programs on files the test creates ---

def test_file_tools(sh):
    run(sh, "mkdir -p /tmp/w/a/b && cd /tmp/w && printf 'pear\\napple\\nfig\\napple\\n' > a/f")
    run(sh, "cp a/f a/b/g && mv a/b/g a/h && ln -s h a/link && test -L a/link")
    assert lines(run(sh, "cd /tmp/w && find . -type f | sort")) == ["./a/f", "./a/h"]
    assert lines(run(sh, "sort /tmp/w/a/f | uniq -c | sed 's/^ *//'")) == \
        ["2 apple", "1 fig", "1 pear"]
    assert lines(run(sh, "grep -c apple /tmp/w/a/link")) == ["2"]
    assert lines(run(sh, "awk '{n += length($0)} END {print n}' /tmp/w/a/f")) == ["17"]
    assert lines(run(sh, "echo a:b:c | cut -d: -f2 | tr b B")) == ["B"]
    assert lines(run(sh, "wc -c < /tmp/w/a/f")) == ["21"]
    run(sh, "rm /tmp/w/a/h /tmp/w/a/link && rmdir /tmp/w/a/b")
    assert lines(run(sh, "ls /tmp/w/a")) == ["f"]


def test_compression_and_archives(sh):
    run(sh, "cd /tmp && seq 1 5000 > big && md5sum big > big.md5 && gzip -k big && "
            "mv big big.orig && gunzip big.gz && md5sum -c big.md5")
    out = run(sh, "cd /tmp && mkdir -p t/d && echo x > t/d/y && tar cf t.tar t && rm -r t && "
                  "tar xf t.tar && cat t/d/y")
    assert lines(out) == ["x"], out


def test_ps_lists_itself(sh):
    out = run(sh, "ps")
    assert re.search(r"\bps\b", out) and re.search(r"\bsh\b", out), out


def test_ps_and_top_follow_the_process_table(sh):
    """A background sleep shows in ps and top (pid, parent, state, command) and
    in /proc's listing, and is gone from all three once it is killed and reaped."""
    # the child has exec'd sleep and sleeps in it before ps looks
    pid = lines(run(sh, "sleep 300 & p=$!; until grep -q '^sleep$' /proc/$p/comm && "
                        "grep -q 'sleeping' /proc/$p/status; do sleep 0.1; done; echo $p"))[0]
    ps = [l.split() for l in lines(run(sh, "ps -o pid,ppid,stat,args"))]
    assert [pid, "1", "S", "sleep", "300"] in ps, ps
    top = [l.split() for l in lines(run(sh, "top -bn1"))]
    assert any(t[0] == pid and t[1] == "1" and t[-2:] == ["sleep", "300"] for t in top), top
    assert pid in lines(run(sh, "ls -1 /proc"))
    run(sh, f"kill {pid}; wait {pid}", status=143)
    assert not any(l.split()[0] == pid for l in lines(run(sh, "ps -o pid,args"))[1:])
    assert pid not in lines(run(sh, "ls -1 /proc"))
    out, st = sh.run(f"cat /proc/{pid}/stat", 60)
    assert st == 1 and "No such file or directory" in out, out


def test_mount_lists_lx_mounts(sh):
    out = lines(run(sh, "mount"))
    for want in ["proc on /proc type proc (rw,relatime)", "sysfs on /sys type sysfs (rw,relatime)",
                 "tmpfs on /tmp type tmpfs (rw,relatime)"]:
        assert want in out, out


def test_free_and_uptime(sh):
    """free's total is lx's page pool (the figure lx prints at boot); uptime grows."""
    pool_kib = int(re.search(r"lx: Linux personality on Pecan: \d+ MiB \((\d+) KiB\)", sh.buf).group(1))
    total = lines(run(sh, "free"))[1].split()
    assert total[0] == "Mem:" and int(total[1]) == pool_kib, total
    meminfo = dict(l.split(":") for l in lines(run(sh, "cat /proc/meminfo")))
    assert int(meminfo["MemTotal"].split()[0]) == pool_kib, meminfo
    used, free = int(total[2]), int(total[3])
    assert used + free == pool_kib and 0 < used < pool_kib, total
    first = float(lines(run(sh, "cat /proc/uptime"))[0].split()[0])
    assert re.search(r"up +\d+ min|up +\d+:\d\d", run(sh, "sleep 1; uptime"))
    assert float(lines(run(sh, "cat /proc/uptime"))[0].split()[0]) >= first + 1


def test_threads(sh):
    assert "joined 10, total 10000" in run(sh, "/tests/threads")


def test_signals_to_running_threads(sh):
    """Handlers for threads that run their own code, which their space's signal
    thread redirects: in a computation, in a spin loop signalled by another
    process, and in a loop of system calls (stopped inside lx's entry code)."""
    out = run(sh, "/tests/sigrun", timeout=300)
    assert "sigrun: all ok" in out, out


def test_signal_fpu_state(sh):
    """A handler that changes XMM registers and MXCSR leaves the interrupted
    code's as they were; it starts from the default state; fpregs shows them."""
    out = run(sh, "/tests/sigfpu", timeout=120)
    assert "sigfpu: all ok" in out, out


def test_fast_path_sites(sh):
    """Linux's register contract at `mov $n,%eax; syscall` sites and at musl's
    __syscall_cp_c idiom, rewritten or not, also for calls a fast timer's
    signals interrupt; reads and writes through the idiom give the same bytes
    and errors on both paths."""
    out, st = sh.run("/tests/fastpath", 120)
    state = "rewritten" if sh.path == "fast" else "original"
    assert f"fastpath: site {state}" in out and f"cp site {state}" in out, out
    assert st == 0 and "fastpath: all ok" in out, out


@pytest.mark.parametrize("program", ["futexes", "sigqueue", "sigeintr", "jobctl", "mremap",
                                     "mmedge", "procs", "unixmsg", "unixscm", "timecalls",
                                     "ttyio", "pipecopy",
                                     "madvise", "mmsg", "execveat",
                                     "sigmask", "pidfd_getfd", "futex_waitv", "openat2",
                                     "dangling"])
def test_linux_semantics_program(sh, program):
    """tests/lx/<program>.c checks futexes across processes, queued signals and
    their siginfo, EINTR against restarts, job control, mremap, memory-call
    edges, process calls, AF_UNIX details and control messages, clocks and
    interval timers, the console's termios call by call, pipe reads and
    writes copied straight to and from the caller (pipecopy), and madvise's
    effects on private, shared and forked memory (madvise), sendmmsg and
    recvmmsg on AF_UNIX and UDP sockets (mmsg), execveat from
    descriptors (execveat), rt_sigprocmask's order of checks and its
    words anywhere (sigmask), pidfd_getfd (pidfd_getfd), waits on several
    futexes (futex_waitv), openat2's checks and restricted walks
    (openat2), and O_CREAT and the naming calls on dangling symbolic
    links on the RAM root and tmpfs (dangling); the same binary
    passes on Linux (tests/host/test_lx_native.py)."""
    out = run(sh, f"/tests/{program}", timeout=300)
    assert f"{program} done, 0 failed" in out and "FAIL" not in out, out


def test_vdso(sh):
    """tests/lx/vdso.c: AT_SYSINFO_EHDR names lx's vDSO with Linux's five
    LINUX_2.6 functions, [vdso] and [vvar] in /proc/self/maps, its clocks
    agree with the system calls' and clock_settime moves its realtime (run
    here only: on a host it would step the clock), bad ids fall back to the
    system call's EINVAL, fork keeps it, execve renews it, munmap removes it;
    the same binary passes on Linux (tests/host/test_lx_native.py)."""
    out = run(sh, "/tests/vdso settime", timeout=300)
    assert "vdso done, 0 failed" in out and "FAIL" not in out, out
    assert "ok clock_settime moves the vDSO realtime" in out, out


def test_file_pages_shared_by_processes(sh):
    """A RAM file's pages as processes see them (tests/lx/pagecache.c, passes on
    Linux): another process's write() shows in a private mapping until a store
    copies the page; a store reaches neither the file nor other mappings; a
    program run twice from a file in /tmp leaves the file unchanged (lx's
    rewritten system-call sites stay in the process's own text pages); shared
    mappings against read() and write() of other processes; SIGBUS past the
    end, also after a truncation."""
    out = run(sh, "/tests/pagecache /tmp", timeout=300)
    assert "pagecache done, 0 failed" in out, out


def test_advisory_locks(sh):
    """flock, fcntl record and OFD locks between processes: conflicts, waiting,
    F_GETLK's holder, release on closing another descriptor, EDEADLK, EINTR."""
    out = run(sh, "cd /tmp && /tests/locks; cd /", timeout=300)
    assert "locks done, 0 failed" in out, out


def test_resource_limits(sh):
    """RLIMIT_NOFILE's table (dup2 to 1000, EMFILE/EBADF/EINVAL at the limit),
    setrlimit's errors, RLIMIT_AS/DATA/CPU, pipe sizes, CPU times."""
    out = run(sh, "cd /tmp && /tests/limits; cd /", timeout=300)
    assert "limits done, 0 failed" in out, out


def test_ulimit_values_kept(sh):
    """The shell's ulimit -n and -c set limits that getrlimit reports back,
    and a descriptor past the new -n cannot be made."""
    out = run(sh, "(ulimit -n 2000; ulimit -n; ulimit -c 100; ulimit -c; ulimit -Hn)")
    assert lines(out)[-3:] == ["2000", "100", "2000"], out   # ash sets both limits
    out, st = sh.run("(ulimit -n 10; exec 12>&1; echo reached)", 120)
    assert st != 0 and "reached" not in out, out


def test_exec_argument_limits(sh):
    """A 100 KiB environment string and 5,000 arguments pass execve; a string
    over 128 KiB or more than a quarter of RLIMIT_STACK in all is E2BIG."""
    out = run(sh, "/tests/bigexec", timeout=300)
    assert "bigexec done, 0 failed" in out, out


def test_process_attributes_and_machine_calls(sh):
    """personality, capabilities, sched_*, ioprio, mlock, mincore, pkeys,
    unshare, chroot, kcmp, process_vm_*, clone3, clocks, prctl, file advice."""
    out = run(sh, "cd /tmp && /tests/sysattrs; cd /", timeout=300)
    assert "sysattrs done, 0 failed" in out, out


def test_sethostname_seen_by_uname(sh):
    """uname(2) reports a name sethostname set (busybox hostname), each time it
    changes, and /proc/sys/kernel/hostname with it."""
    old = lines(run(sh, "uname -n"))[0]
    for name in ("lxname1", "lxname2"):
        run(sh, f"hostname {name}")
        assert lines(run(sh, "uname -n; cat /proc/sys/kernel/hostname")) == [name, name]
    run(sh, f"hostname {old}")
    assert lines(run(sh, "uname -n")) == [old]


def test_dmesg_reads_lx_log(sh):
    """syslog(2) serves lx's own log lines, so busybox dmesg shows lx's boot line."""
    assert "Linux personality on Pecan" in run(sh, "dmesg")


def test_posix_message_queues(sh):
    """mq_open/unlink/send/receive/notify/getsetattr: priorities, full and empty
    queues, waiting and timeouts, the notification signal."""
    out = run(sh, "/tests/mqueue", timeout=300)
    assert "mqueue done, 0 failed" in out, out


# --- bad input: clear errors, and lx goes on ---

def test_not_elf_is_enoexec(sh):
    run(sh, "printf 'garbage' > /tmp/junk; chmod +x /tmp/junk")
    out = run(sh, "/tests/execve /tmp/junk", status=126)
    assert "errno 8 " in out, out                       # ENOEXEC
    assert "alive" in run(sh, "echo alive")


def test_dynamic_binary_without_its_loader_is_enoent(sh):
    # the RAM root has no /lib/ld-musl-x86_64.so.1: ENOENT, as Linux says
    # (test_lx_ext2.py runs dynamic programs with their loaders)
    out = run(sh, "/tests/execve /tests/dyn_hello", status=126)
    assert "errno 2 " in out, out
    out = run(sh, "/tests/execve /nonexistent", status=126)
    assert "errno 2 " in out, out                       # ENOENT


def test_wild_pointers_efault(sh):
    out = run(sh, "/tests/efault_proc")
    assert "efault_proc: all ok" in out, out


def test_fadvise_and_mincore(sh):
    """The advice calls of Debian's coreutils and libsigsegv (tests/lx/advice.c)."""
    out = run(sh, "/tests/advice")
    assert "advice done, 0 failed" in out, out


def test_segv_status_seen_by_parent(sh):
    out = run(sh, "/tests/segv; echo st=$?")
    assert "st=139" in out, out
    out = run(sh, "/tests/segv catch; echo st=$?")
    assert "caught signal 11 at 0x1000" in out and "st=7" in out, out


def test_fork_bomb_stopped_with_eagain(sh):
    out = run(sh, "/tests/forkbomb", timeout=600)
    assert "EAGAIN" in out, out
    # lx says once which resource ran out, and its limit
    said = re.findall(r"lx: (?:the process table is full \(\d+ processes\)|out of kernel memory: \d+ of \d+ KiB"
                      r"|all \d+ L4 thread numbers)", out)
    kinds = [re.sub(r"\d+", "N", m) for m in said]
    assert said and len(kinds) == len(set(kinds)), out
    assert "alive" in run(sh, "echo alive")


def test_out_of_memory_enomem(sh):
    """mmap fails with ENOMEM for the one asking, and what it had comes back when it
    exits (tests/lx/oom.c): a second run gets as far as the first."""
    out = run(sh, "/tests/oom", timeout=600)
    assert "ENOMEM" in out, out
    again = run(sh, "/tests/oom", timeout=600)
    got = [re.search(r"oom: (\d+) MiB, then errno 12 \(ENOMEM\)", o) for o in (out, again)]
    assert got[0] and got[1] and int(got[1].group(1)) >= int(got[0].group(1)), out + again
    assert "alive" in run(sh, "echo alive")


def test_hostile_l4_ipc_confined(sh):
    """A process that speaks L4 (tests/lx/l4_hostile.c) reaches nothing past lx:
    sigma0, the drivers, lx's threads, another process; forged and propagated
    messages; rewritten Pager/ExceptionHandler TCRs; privileged calls; the kernel
    debugger.  A heartbeat process and the shell keep working through it."""
    run(sh, "(i=0; while true; do i=$((i+1)); echo $i > /tmp/hb; sleep 1; done) & echo $! > /tmp/hbpid")
    out = run(sh, "/tests/l4_hostile", timeout=300)
    assert "hostile done, 0 failed" in out and "FAIL" not in out, out
    before = int(lines(run(sh, "cat /tmp/hb"))[0])
    after = int(lines(run(sh, "sleep 3; cat /tmp/hb"))[0])
    assert after > before, (before, after)
    run(sh, "kill $(cat /tmp/hbpid)")
    assert "alive" in run(sh, "echo alive")


def test_spinning_process_preempted(sh):
    sh.send("/tests/spin\n")
    time.sleep(3)
    sh.send("\x03")
    sh.expect(r"\^C", 30)
    assert "still here" in run(sh, "echo still here")


def test_unknown_syscall_enosys(sh):
    """Unknown numbers (1000, -1, getpmsg) and a call Linux has but lx lacks
    (init_module, 175: lx loads no kernel modules) return -1/ENOSYS, and lx
    logs each number once."""
    out = run(sh, "/tests/enosys")
    assert "enosys done, 0 failed" in out, out
    out += run(sh, "/tests/enosys 175; /tests/enosys")
    assert lines(out).count("syscall 175: -1 errno 38") == 2, out
    assert out.count("lx: system call 175 not implemented (ENOSYS)") == 1, out
    assert out.count("lx: system call 1000 not implemented (ENOSYS)") == 1, out
    assert "alive" in run(sh, "echo alive")


def test_many_execs_in_little_memory():
    """execve after execve in 64 MiB: its argument buffer came from the part of
    lx's pool that freed pages never return to, and the 246th exec failed."""
    s = Shell(timeout=300, mem=64)
    try:
        s.expect(r"# ", 120)
        out, _ = s.run("i=0; while [ $i -lt 400 ]; do /bench/hello || echo FAIL $i; "
                       "i=$((i+1)); done; echo loops=$i", 240)
        assert "FAIL" not in out and "loops=400" in out, out
    finally:
        s.close(30)


def test_end_of_input_powers_off(sh):
    assert sh.close(60) == 0
