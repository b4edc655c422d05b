#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The table of every x86-64 Linux system call and what lx does with it, in
docs/lx.md between the markers below.

The calls lx implements are the X(number, name) entries of
servers/lx/syscall/syscall.h; the x86-64 numbers and names come from the
host's kernel headers (linux-libc-dev's asm/unistd_64.h, tools/deps.sh).  A
call is "full" unless PARTIAL below says what it lacks; a call not in lx's
table answers ENOSYS.

    tools/lx_syscalls.py           # print the table
    tools/lx_syscalls.py --write   # put it into docs/lx.md
    tools/lx_syscalls.py --check   # exit 1 if docs/lx.md's table is stale
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSCALL_H = os.path.join(TOP, "servers", "lx", "syscall", "syscall.h")
DOC = os.path.join(TOP, "docs", "lx.md")
UNISTD = ["/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"]
BEGIN = "<!-- lx syscall table: tools/lx_syscalls.py --write -->"
END = "<!-- end of the lx syscall table -->"

# What an implemented call lacks, by name (kept next to the table's generator so
# the docs cannot drift from it; a helper that adds a partial call adds its line).
PARTIAL = {
    "getrusage": "CPU times only (as proc/cputime.c counts them) and maxrss; no fault, I/O or switch counts",
    "times": "CPU times as proc/cputime.c counts them (user time includes time the CPU gave others)",
    "setpriority": "nice values kept and reported, not applied (one scheduling class)",
    "madvise": "performance hints (WILLNEED, RANDOM, MERGEABLE, HUGEPAGE, COLD, PAGEOUT...) accepted without effect; MADV_HWPOISON and SOFT_OFFLINE do nothing",
    "sched_setscheduler": "policies kept and reported, lx does not schedule by them",
    "sched_setparam": "kept and reported, not applied",
    "rseq": "critical sections are not restarted on preemption",
    "membarrier": "only MEMBARRIER_CMD_QUERY, which offers no command",
    "ioctl": "terminals, FIONREAD, FIONBIO, FIOCLEX; devices' own",
    "fcntl": "F_SETOWN/F_GETOWN accepted without signals (no SIGIO)",
    "prctl": "PR_SET/GET_NAME, PDEATHSIG, DUMPABLE, NO_NEW_PRIVS, CHILD_SUBREAPER, SECCOMP (strict) only",
    "seccomp": "strict mode only; no filters (EINVAL, as a kernel without CONFIG_SECCOMP_FILTER)",
    "unshare": "no namespaces (EINVAL, as a kernel built without them)",
    "setns": "no namespaces: no descriptor names one",
    "clone3": "no CLONE_PIDFD, set_tid, or CLONE_INTO_CGROUP (EINVAL)",
    "adjtimex": "read-only (changes: EPERM)",
    "clock_adjtime": "read-only, CLOCK_REALTIME only",
    "iopl": "raising the level is refused (EPERM) even for root",
    "ioperm": "granting ports is refused (EPERM) even for root",
    "sendmsg": "no control messages (SCM_RIGHTS, credentials)",
    "semop": "no SEM_UNDO",
    "statfs": "ext2 answers the RAM root's figures",
    "name_to_handle_at": "no file system exports handles (EOPNOTSUPP)",
    "pkey_alloc": "no protection keys (ENOSPC, as a CPU without PKU)",
    "capset": "capabilities kept and reported; lx checks privilege as root or not",
    "mbind": "checks and accepts; areas keep no policy of their own (one node)",
    "get_mempolicy": "MPOL_F_ADDR answers the process's policy",
    "reboot": "every command that stops the machine powers it off (no restart)",
    "mq_notify": "SIGEV_SIGNAL and SIGEV_NONE (SIGEV_THREAD needs AF_NETLINK)",
    "mq_open": "a queue descriptor's read (the status line) is not offered",
    "syslog": "lx's own log lines (16 KiB kept) are the kernel log",
    "sysinfo": "uptime, memory and process count; no loads, no swap",
    "mlockall": "MCL_CURRENT marks the areas locked without making every page resident (lx never pages out); MCL_FUTURE does not mark later areas",
    "sched_setattr": "no SCHED_DEADLINE; kept and reported, not applied",
}

PARTIAL.update({
    "futex": "no FUTEX_WAIT_REQUEUE_PI/CMP_REQUEUE_PI (ENOSYS); PI locks without priority inheritance",
    "timerfd_settime": "TFD_TIMER_CANCEL_ON_SET accepted, never cancels",
    "signalfd4": "no ssi_utime/ssi_stime",
    "fallocate": "ext2: punched holes are zeroed, blocks stay allocated",
})

PARTIAL.update({
    "futex_waitv": "FUTEX2_NUMA and FUTEX2_MPOL refused (EINVAL); a futex listed twice is one waiter",
    "openat2": "RESOLVE_CACHED always EAGAIN (no lookup cache)",
})

# net/mmsg.c
PARTIAL.update({
    "recvmmsg": "an error after some datagrams is not kept for the socket's next call (Linux's sk_err)",
})

# syscall/sys_mount.c (docs/lx.md, "Mounting")
PARTIAL.update({
    "mount": "tmpfs, ramfs, proc, sysfs, devtmpfs, the disk's ext2; no bind, move or read-only mounts (EINVAL)",
    "umount2": "MNT_DETACH frees the file system with its last reference; MNT_FORCE is plain",
})

# proc/ptimer.c, syscall/sys_misc.c (docs/lx.md, "POSIX timers")
PARTIAL.update({
    "clock_nanosleep": "CLOCK_PROCESS_CPUTIME_ID sleeps in wall time",
    "clock_gettime": "CPU-time clocks read the CPU time lx samples every 10 ms",
    "getitimer": "ITIMER_VIRTUAL and ITIMER_PROF both count the sampled CPU time (no system time apart)",
    "setitimer": "as getitimer: ITIMER_VIRTUAL and ITIMER_PROF fire at the 10 ms sample after their time",
})

# In lx's table only so that they are not logged as unknown: they answer ENOSYS,
# as a Linux built without them does, and count as ENOSYS here.
ENOSYS_LISTED = {"add_key", "request_key", "keyctl"}

for _x in ("setxattr", "lsetxattr", "fsetxattr", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
           "llistxattr", "flistxattr", "removexattr", "lremovexattr", "fremovexattr"):
    PARTIAL[_x] = "no extended attributes: EOPNOTSUPP once the file is found"


def lx_calls(path=SYSCALL_H):
    """{number: name} of lx's table."""
    text = open(path).read()
    return {int(n): name for n, name in re.findall(r"X\(\s*(\d+)\s*,\s*(\w+)\s*\)", text)}


def linux_calls():
    """{number: name} of x86-64 Linux, from the host's kernel headers."""
    for path in UNISTD:
        if os.path.exists(path):
            text = open(path).read()
            return {int(n): name for name, n in re.findall(r"#define\s+__NR_(\w+)\s+(\d+)", text)}
    sys.exit("tools/lx_syscalls.py: no asm/unistd_64.h: install linux-libc-dev (tools/deps.sh)")


def table(lx, linux):
    rows = []
    counts = {"full": 0, "partial": 0, "ENOSYS": 0}
    newer = {nr: name for nr, name in lx.items() if nr not in linux}   # calls newer than the headers
    linux = {**linux, **newer}
    for nr in sorted(linux):
        name = linux[nr]
        if nr in lx and lx[nr] != name:
            sys.exit(f"tools/lx_syscalls.py: syscall.h has {nr} as {lx[nr]}, Linux as {name}")
        if nr not in lx:
            state, note = "ENOSYS", ""
        elif name in ENOSYS_LISTED:
            state, note = "ENOSYS", "listed so that it is not logged as unknown"
        elif name in PARTIAL:
            state, note = "partial", PARTIAL[name]
        else:
            state, note = "full", ""
        if nr in newer:
            note = (note + "; " if note else "") + "newer than the host's unistd_64.h"
        counts[state] += 1
        rows.append(f"| {nr} | `{name}` | {state} | {note} |")
    head = [BEGIN, "",
            f"{counts['full'] + counts['partial']} of {len(linux)} x86-64 system calls are "
            f"implemented ({counts['full']} full, {counts['partial']} partial); "
            f"{counts['ENOSYS']} answer ENOSYS.", "",
            "| nr | call | state | what is missing |", "| --- | --- | --- | --- |"]
    return "\n".join(head + rows + ["", END])


def replace_in(doc, new):
    if BEGIN not in doc or END not in doc:
        sys.exit(f"tools/lx_syscalls.py: docs/lx.md lacks the markers {BEGIN!r} ... {END!r}")
    a = doc.index(BEGIN)
    b = doc.index(END) + len(END)
    return doc[:a] + new + doc[b:]


def main(argv):
    new = table(lx_calls(), linux_calls())
    if "--write" in argv or "--check" in argv:
        doc = open(DOC).read()
        updated = replace_in(doc, new)
        if "--check" in argv:
            if updated != doc:
                print("docs/lx.md's system-call table is stale: run tools/lx_syscalls.py --write")
                return 1
            return 0
        open(DOC, "w").write(updated)
        return 0
    print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
