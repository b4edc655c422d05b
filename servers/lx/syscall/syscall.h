/* SPDX-License-Identifier: MIT */
/*
 * lx's system-call table: (number, name) pairs in lists by subject; each
 * list's comment names the file that defines its sys_<name> functions.
 * Numbers are Linux x86-64's.  A call not listed returns -ENOSYS and is logged once.
 */
#ifndef LX_SYS_H
#define LX_SYS_H

#include "../lx.h"

typedef long (*sys_fn)(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
#define SYS_MAX 512

#define SYS_DECL(nr, name) long sys_##name(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, \
					    u64 a4, u64 a5);

/* syscall/sys_proc.c: execve from a directory descriptor, or of a descriptor's file */
#define SYSCALLS_EXECAT(X) X(322, execveat)

/* syscall/sys_proc.c (processes, threads) and syscall/sys_misc.c (identity, time, limits, the rest) */
#define SYSCALLS_PROC(X) \
	X(24, sched_yield) X(35, nanosleep) X(39, getpid) X(56, clone) X(57, fork) X(58, vfork) \
	X(59, execve) X(60, exit) X(61, wait4) X(63, uname) X(96, gettimeofday) \
	X(97, getrlimit) X(98, getrusage) X(99, sysinfo) X(100, times) X(102, getuid) \
	X(104, getgid) X(105, setuid) X(106, setgid) X(107, geteuid) X(108, getegid) \
	X(109, setpgid) X(110, getppid) X(111, getpgrp) X(112, setsid) X(113, setreuid) \
	X(114, setregid) X(115, getgroups) X(116, setgroups) X(117, setresuid) \
	X(118, getresuid) X(119, setresgid) X(120, getresgid) X(121, getpgid) X(124, getsid) \
	X(140, getpriority) X(141, setpriority) X(157, prctl) X(158, arch_prctl) \
	X(160, setrlimit) X(186, gettid) X(201, time) X(202, futex) X(203, sched_setaffinity) \
	X(204, sched_getaffinity) X(218, set_tid_address) X(228, clock_gettime) \
	X(229, clock_getres) X(230, clock_nanosleep) X(231, exit_group) X(247, waitid) \
	X(273, set_robust_list) X(274, get_robust_list) X(302, prlimit64) X(309, getcpu) \
	X(318, getrandom) X(324, membarrier) X(334, rseq)

/* syscall/sys_mem.c */
#define SYSCALLS_MEM(X) \
	X(9, mmap) X(10, mprotect) X(11, munmap) X(12, brk) X(25, mremap) X(26, msync) \
	X(28, madvise)

/* syscall/sys_file.c: descriptors and I/O */
#define SYSCALLS_FILE(X) \
	X(0, read) X(1, write) X(3, close) X(16, ioctl) X(17, pread64) X(18, pwrite64) \
	X(19, readv) X(20, writev) X(8, lseek) X(22, pipe) X(32, dup) X(33, dup2) \
	X(72, fcntl) X(292, dup3) X(293, pipe2) X(7, poll) X(23, select) X(270, pselect6) \
	X(271, ppoll) X(40, sendfile) X(436, close_range) X(74, fsync) X(75, fdatasync) \
	X(73, flock) X(295, preadv) X(296, pwritev)

/* syscall/sys_path.c: names in the file system */
#define SYSCALLS_PATH(X) \
	X(2, open) X(257, openat) X(85, creat) X(4, stat) X(5, fstat) X(6, lstat) \
	X(262, newfstatat) X(332, statx) X(21, access) X(269, faccessat) X(439, faccessat2) \
	X(78, getdents) X(217, getdents64) X(79, getcwd) X(80, chdir) X(81, fchdir) \
	X(83, mkdir) X(258, mkdirat) X(84, rmdir) X(87, unlink) X(263, unlinkat) \
	X(82, rename) X(264, renameat) X(316, renameat2) X(86, link) X(265, linkat) \
	X(88, symlink) X(266, symlinkat) X(89, readlink) X(267, readlinkat) X(90, chmod) \
	X(91, fchmod) X(268, fchmodat) X(92, chown) X(93, fchown) X(94, lchown) \
	X(260, fchownat) X(95, umask) X(280, utimensat) X(235, utimes) X(132, utime) \
	X(76, truncate) X(77, ftruncate) X(133, mknod) X(259, mknodat) X(137, statfs) \
	X(138, fstatfs) X(162, sync) X(188, setxattr) X(189, lsetxattr) X(190, fsetxattr) \
	X(191, getxattr) X(192, lgetxattr) X(193, fgetxattr) X(194, listxattr) X(195, llistxattr) \
	X(196, flistxattr) X(197, removexattr) X(198, lremovexattr) X(199, fremovexattr)

/* proc/signal.c */
#define SYSCALLS_SIGNAL(X) \
	X(13, rt_sigaction) X(14, rt_sigprocmask) X(15, rt_sigreturn) X(34, pause) \
	X(36, getitimer) X(37, alarm) X(38, setitimer) X(62, kill) X(127, rt_sigpending) \
	X(128, rt_sigtimedwait) X(130, rt_sigsuspend) X(131, sigaltstack) X(200, tkill) \
	X(234, tgkill)

/* proc/signal.c: queued signals with a value */
#define SYSCALLS_SIGQUEUE(X) X(129, rt_sigqueueinfo) X(297, rt_tgsigqueueinfo)

/* net/: sockets (socket.c picks the family, unix.c has AF_UNIX and every later call) */
#define SYSCALLS_NET(X) \
	X(41, socket) X(42, connect) X(43, accept) X(44, sendto) X(45, recvfrom) X(46, sendmsg) \
	X(47, recvmsg) X(48, shutdown) X(49, bind) X(50, listen) X(51, getsockname) \
	X(52, getpeername) X(53, socketpair) X(54, setsockopt) X(55, getsockopt) X(288, accept4)

/* net/mmsg.c: sendmsg and recvmsg over arrays of messages */
#define SYSCALLS_MMSG(X) X(307, sendmmsg) X(299, recvmmsg)

/* syscall/sys_ipc.c: what /proc shows of System V IPC (fs/procfs.c) */
void ipc_limits(u64 lim[3]);                    /* shmmax, shmall, shmmni */
void ipc_proc_lines(int which, void (*put)(void *arg, const char *line), void *arg);

/* syscall/sys_ipc.c: System V shared memory, semaphores and message queues */
#define SYSCALLS_IPC(X) \
	X(29, shmget) X(30, shmat) X(31, shmctl) X(64, semget) X(65, semop) X(66, semctl) \
	X(67, shmdt) X(220, semtimedop) X(68, msgget) X(69, msgsnd) X(70, msgrcv) X(71, msgctl)

/* syscall/sys_cred.c: users and groups; it also defines the id calls listed
 * with the processes above (getuid ... getresgid, 102-120) */
#define SYSCALLS_CRED(X) \
	X(122, setfsuid) X(123, setfsgid)

/* fs/: event files, each in its own file (epoll.c, eventfd.c, timerfd.c, signalfd.c,
 * pidfd.c, memfd.c, inotify.c), and syscall/sys_splice.c: data between descriptors */
#define SYSCALLS_EVENT(X) \
	X(213, epoll_create) X(291, epoll_create1) X(233, epoll_ctl) X(232, epoll_wait) \
	X(281, epoll_pwait) X(441, epoll_pwait2) X(284, eventfd) X(290, eventfd2) \
	X(283, timerfd_create) X(286, timerfd_settime) X(287, timerfd_gettime) \
	X(282, signalfd) X(289, signalfd4) X(434, pidfd_open) X(424, pidfd_send_signal) \
	X(319, memfd_create) X(285, fallocate) X(275, splice) X(276, tee) X(278, vmsplice) \
	X(326, copy_file_range) X(253, inotify_init) X(294, inotify_init1) \
	X(254, inotify_add_watch) X(255, inotify_rm_watch)

/* syscall/sys_sys.c (attributes, the machine), with clone3 (sys_proc.c), the clocks
 * (sys_misc.c), file advice (sys_file.c) and futimesat, name_to_handle_at (sys_path.c) */
#define SYSCALLS_SYS(X) \
	X(135, personality) X(125, capget) X(126, capset) X(142, sched_setparam) \
	X(143, sched_getparam) X(144, sched_setscheduler) X(145, sched_getscheduler) \
	X(146, sched_get_priority_max) X(147, sched_get_priority_min) X(148, sched_rr_get_interval) \
	X(251, ioprio_set) X(252, ioprio_get) X(149, mlock) X(150, munlock) X(151, mlockall) \
	X(152, munlockall) X(325, mlock2) X(27, mincore) X(329, pkey_mprotect) X(330, pkey_alloc) \
	X(331, pkey_free) X(272, unshare) X(308, setns) X(170, sethostname) X(171, setdomainname) \
	X(172, iopl) X(173, ioperm) X(153, vhangup) X(161, chroot) X(312, kcmp) \
	X(310, process_vm_readv) X(311, process_vm_writev) X(435, clone3) X(227, clock_settime) \
	X(164, settimeofday) X(159, adjtimex) X(305, clock_adjtime) X(221, fadvise64) \
	X(187, readahead) X(277, sync_file_range) X(306, syncfs) X(261, futimesat) \
	X(303, name_to_handle_at) X(314, sched_setattr) X(315, sched_getattr) \
	X(237, mbind) X(238, set_mempolicy) X(239, get_mempolicy) X(169, reboot) X(103, syslog) \
	X(219, restart_syscall) X(452, fchmodat2) X(317, seccomp) X(256, migrate_pages) \
	X(279, move_pages)

/* syscall/sys_aio.c: native asynchronous I/O, done at submission */
#define SYSCALLS_AIO(X) \
	X(206, io_setup) X(207, io_destroy) X(208, io_getevents) X(209, io_submit) X(210, io_cancel) \
	X(333, io_pgetevents)

/* syscall/sys_mq.c: POSIX message queues */
#define SYSCALLS_MQ(X) \
	X(240, mq_open) X(241, mq_unlink) X(242, mq_timedsend) X(243, mq_timedreceive) \
	X(244, mq_notify) X(245, mq_getsetattr)

/* syscall/sys_misc.c: the kernel keyrings, which lx lacks (ENOSYS, not logged) */
#define SYSCALLS_KEYS(X) X(248, add_key) X(249, request_key) X(250, keyctl)

/* proc/ptimer.c: POSIX per-process timers */
#define SYSCALLS_PTIMER(X) \
	X(222, timer_create) X(223, timer_settime) X(224, timer_gettime) X(225, timer_getoverrun) \
	X(226, timer_delete)

/* syscall/sys_file.c: vectored I/O with flags */
#define SYSCALLS_RWV2(X) X(327, preadv2) X(328, pwritev2)

/* fs/pidfd.c: another process's descriptor; proc/futex.c: a wait on several futexes;
 * syscall/sys_path.c: open with its arguments checked and its path walk restricted */
#define SYSCALLS_NEWER(X) X(438, pidfd_getfd) X(449, futex_waitv) X(437, openat2)

/* syscall/sys_mount.c: mounting file systems */
#define SYSCALLS_MOUNT(X) X(165, mount) X(166, umount2)

#define SYSCALLS(X) SYSCALLS_PROC(X) SYSCALLS_MEM(X) SYSCALLS_FILE(X) SYSCALLS_PATH(X) \
	SYSCALLS_SIGNAL(X) SYSCALLS_NET(X) SYSCALLS_IPC(X) SYSCALLS_CRED(X) SYSCALLS_SIGQUEUE(X) \
	SYSCALLS_EVENT(X) SYSCALLS_SYS(X) SYSCALLS_AIO(X) SYSCALLS_MQ(X) SYSCALLS_KEYS(X) \
	SYSCALLS_MOUNT(X) SYSCALLS_PTIMER(X) SYSCALLS_RWV2(X) \
	SYSCALLS_MMSG(X) SYSCALLS_EXECAT(X) \
	SYSCALLS_NEWER(X)

SYSCALLS(SYS_DECL)

/* syscall/sys_misc.c: p may exceed limits and act for others (CAP_SYS_RESOURCE, CAP_SYS_ADMIN...) */
bool lx_privileged(struct proc *p);
void aio_exit(struct proc *p);              /* syscall/sys_aio.c: p's AIO contexts go (exec, exit) */
u64 wall_to_boot_us(u64 wall_us);          /* syscall/sys_misc.c: a CLOCK_REALTIME point as lx_now_us's */
extern char lx_hostname[65], lx_domainname[65];   /* syscall/sys_sys.c: uname(2) reports them */
#define LX_UTS_FIELDS 6                            /* struct utsname: six fields of 65 bytes */
const void *lx_uts(void);                          /* uname(2)'s struct utsname, as the names are now */
/* struct rusage of p (or its reaped children) to the caller at buf: 0 or -EFAULT */
long rusage_put(struct thread *t, u64 buf, struct proc *p, bool children);

/* syscall/sys_sys.c: seccomp's strict mode (seccomp(2)) */
bool seccomp_strict_allows(u64 nr);
long seccomp_strict_kill(struct thread *t);     /* SYS_NOREPLY */
long seccomp_set_strict(struct thread *t);

/* syscall/syscall.c: running calls, parking threads */
void syscall_dispatch(struct thread *t);   /* t->regs hold the caller's registers */
void syscall_begin(struct thread *t);      /* the same, for a call known not to be lean */
/*
 * The lean calls (syscall.c, syscall_dispatch): handlers that read only their
 * arguments, t and its process, answer in RAX alone, never wait and need
 * neither fs_cred nor the walk root.  Their calls skip syscall_run's general
 * steps (the calls programs make most: issue 25).  The pure ones touch no
 * user memory either, so lx makes no IPC while they run (a fault on a
 * file's page can read the disk), and their answers reuse the message's MRs.
 * A lean call takes at most four arguments (RDI RSI RDX R10: the short
 * fast call with arguments sends no more, l4/stub.S lx_fast_lean).
 */
#define SYSCALLS_LEAN_PURE0(X) \
	X(39, getpid) X(186, gettid) X(110, getppid) X(102, getuid) X(107, geteuid) \
	X(104, getgid) X(108, getegid)
#define SYSCALLS_LEAN_PURE(X) X(95, umask)
#define SYSCALLS_LEAN_MEM(X) X(63, uname) X(14, rt_sigprocmask)
/* the kinds; PURE0: pure, without arguments (their sites take l4/stub.S lx_fast_pure) */
enum { LEAN_MEM = 1, LEAN_PURE, LEAN_PURE0 };
extern const uint8_t syscall_lean[SYS_MAX];   /* each call's kind: LEAN_*, 0 */
/* a fast call (its message in the MRs, mr) of a lean one, run and answered; false if none */
bool syscall_fast(struct thread *t, const L4_Word_t *mr);
/* a short fast call (l4/stub.S lx_fast_pure) of PURE0 call nr, run and answered; false if not */
bool syscall_short(struct thread *t, u64 nr);
/* the same from lx_fast_lean (its message in the MRs, mr) of any lean call */
bool syscall_short_args(struct thread *t, const L4_Word_t *mr);
/* lx's receive answers the short calls itself (l4/recv.S): t's handler, or t NULL; after
 * a lean one, the answer (RAX) and how (QUICK_*, recv.S) */
struct quick_call { struct thread *t; sys_fn fn; };
struct quick_call syscall_quick_pure(u64 nr, L4_ThreadId_t from);
struct quick_call syscall_quick_lean(u64 nr, L4_ThreadId_t from);
struct quick { long res; u64 how; };
enum { QUICK_DONE, QUICK_LOADED };
struct quick syscall_quick_lean_end(struct thread *t, long res);
void syscall_run(struct thread *t);
extern bool lx_trace;                      /* log every call (the lx.trace option) */
void block_on(struct thread *t, void *wchan, u64 deadline);  /* then return SYS_BLOCK */
void unblock(struct thread *t);
void wake(void *wchan);                    /* every thread parked on wchan runs its call again */
void wake_key(void *wchan, int key);       /* the same; key: the LX_POLL* bits that may now hold */
void wake_thread(struct thread *t);
void resume_thread(struct thread *t);      /* a held thread: the loop passes it through signal_deliver */
void rerun_thread(struct thread *t);       /* a held call (t->held_call): the loop runs it again */
extern char poll_any[];                    /* wchan of poll/select: woken by every wake() */
void retry_blocked(void);
/* the loop asks these before every receive: inline (syscall.c owns the variables) */
extern struct thread *sys_retry;
extern bool deadlines_stale;
extern u64 deadline_cached;
u64 next_deadline_compute(void);
static inline bool retry_pending(void) { return sys_retry != NULL; }
static inline u64 next_deadline(void)
{
	return deadlines_stale ? next_deadline_compute() : deadline_cached;
}
/* syscall/sys_file.c: waiting the way poll does, for other waiting calls (fs/epoll.c) */
#define WAIT_FOREVER (~0UL)
u64 wait_deadline(struct thread *t, u64 us);        /* absolute, fixed by the first run; 0: none */
bool wait_expired(struct thread *t, u64 us);        /* us == 0 or the deadline passed */
long wait_timeout(struct thread *t, u64 uts, u64 *us);   /* a timespec (NULL: forever) as µs */
long wait_sigmask(struct thread *t, u64 umask, u64 size); /* a mask for the wait (epoll_pwait) */
long wait_end(struct thread *t, bool masked, long res);  /* the call answers: mask undone */
long wait_ready(struct thread *t, u64 us);      /* park on poll_any (SYS_BLOCK), or EINTR */
void deadlines_changed(void);              /* an alarm or a parked thread's deadline changed */
void expire_deadlines(u64 now);

/* syscall/sys_misc.c: time */
u64 lx_clock_us(u64 clk);                  /* clock clk now, µs */
/* CPU-time clocks (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, and the ids
 * clock_getcpuclockid makes): whose time clk counts (tid 0: the process's), or -EINVAL;
 * that time now (µs, sampled: proc/cputime.c), false once its owner is gone */
int cpu_clock_target(struct thread *t, u64 clk, int *pid, int *tid);
bool cpu_clock_now(int pid, int tid, u64 *us);
/* A struct timespec at uaddr as µs, rounded up (a timeout never ends early; past ~73,000
 * years: that far): 0, -EFAULT, or -EINVAL for tv_sec < 0 or tv_nsec outside a second. */
long copyin_timespec_us(struct thread *t, u64 uaddr, u64 *us);

#endif
