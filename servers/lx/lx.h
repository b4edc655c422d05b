/* SPDX-License-Identifier: MIT */
/*
 * lx, Pecan's Linux personality: one L4 task that runs unmodified static
 * Linux x86-64 programs.  Each Linux process is an L4 space and each of its
 * threads an L4 thread; lx is their pager and exception handler, so their
 * page faults and `syscall`s arrive here as IPC (docs/lx.md).
 */
#ifndef LX_LX_H
#define LX_LX_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "../../lib/l4/l4.h"
#include "linux.h"
#include "mm/mm.h"
#include "vfs/vfs.h"
#include "vdso/vdso.h"

typedef uint64_t u64;
typedef uint32_t u32;

/* A Linux process's address space, as lx lays it out. */
#define LX_PIE_BASE      0x0000555555554000UL   /* ET_DYN static programs */
#define LX_MMAP_TOP      0x00007f0000000000UL   /* mmap grows down from here */
#define LX_STACK_TOP     0x00007ffff0000000UL
#define LX_STACK_SIZE    (8UL << 20)
#define LX_UTCB_AREA     0x00007fffffc00000UL   /* 1 KiB per thread */
#define LX_UTCB_LOG2     20
#define LX_STUB_PAGE     0x00007fffffffd000UL   /* lx's start and signal stub */
#define LX_KIP_AREA      0x00007fffffffe000UL
#define LX_USER_END      LX_UTCB_AREA           /* Linux mappings stay below */
#define LX_CANONICAL_END 0x0000800000000000UL   /* a thread's RIP stays below */

/*
 * The fast library path (l4/fast.c, l4/stub.S lx_fast): a process's fast area is
 * the stub page mapped again at LX_FAST_BASE, then one 32-byte slot per
 * rewritten system-call site.  A site becomes `jmp *slot` (ff 24 25 +
 * the slot's 32-bit address): every slot address has 0x06 as its third
 * byte, so the byte where the `syscall` was is an invalid instruction and a
 * jump straight to it traps (#UD) instead of running the rest of the jmp.
 */
#define LX_FAST_BASE        0x0000000000060000UL
#define LX_FAST_SLOTS_START (LX_FAST_BASE + LX_PAGE_SIZE)
#define LX_FAST_END         0x0000000000070000UL
#define LX_FAST_SLOT_SIZE   32
#define LX_FAST_SLOTS       ((LX_FAST_END - LX_FAST_SLOTS_START) / LX_FAST_SLOT_SIZE)
#define LX_FAST_LABEL       0x4c58              /* a fast call's IPC label (l4/stub.S) */
#define LX_FAST_WORDS       18                  /* its untyped words (l4/stub.S) */
#define LX_FAST_TRAP        0x1000              /* reply label: trap to lx for a full answer */
#define LX_PURE_LABEL       0x4c5a              /* the short fast call's label (l4/stub.S) */
#define LX_PURE_WORDS       7                   /* its untyped words */
#define LX_LEAN_LABEL       0x4c5b              /* the short call with arguments (l4/stub.S) */
#define LX_LEAN_WORDS       10
enum { SHORT_PURE = 1, SHORT_LEAN };            /* struct thread's fast_short */

/* Private system calls the stub makes (outside Linux's numbers). */
#define LX_SYS_START     0x4c580001              /* a new thread asks for its registers */
#define STUB_SIGNAL_OFF  0x40                    /* lx_stub_signal in the stub page (l4/stub.S) */
#define LX_MAX_PROCS     1200
#define LX_MAX_CPUS      64             /* affinity masks are one word (proc/cpu.c) */
#define LX_CMDLINE_MAX   4096                    /* lx's boot command line, NUL included */
#define LX_RLIMIT_CPU    0
#define LX_RLIMIT_FSIZE  1
#define LX_RLIMIT_DATA   2
#define LX_RLIMIT_STACK  3
#define LX_RLIMIT_CORE   4
#define LX_RLIMIT_NPROC  6
#define LX_RLIMIT_NOFILE 7
#define LX_RLIMIT_AS     9
#define LX_RLIMIT_NLIMITS 16
#define LX_RLIM_INFINITY (~0UL)
#define LX_FIRST_TNO     64                      /* L4 thread numbers lx gives out */
#define LX_LAST_TNO      2047
#define LX_MAX_THREADS   (LX_LAST_TNO - LX_FIRST_TNO + 1)
#define LX_KMEM_PER_PROC (64UL << 10)            /* kernel memory a small process takes */
/* How lx names itself: uname(2) and /proc/version, /proc/sys/kernel */
#define LX_UTS_NODENAME  "pecan"
#define LX_UTS_RELEASE   "6.1.0-lx"
#define LX_UTS_VERSION   "#1 Pecan lx"
#define LX_EPOCH_AT_BOOT 1767225600UL            /* wall time at boot: 2026-01-01 00:00 UTC */

/* A thread's registers in the order of the exception message's MR1..MR18. */
struct regs {
	u64 rip, rbx, r10, r12, r13, r14, r15, rax, rcx, rdx, rsi, rdi, rbp, r8, r9, r11, rsp,
	    rflags;
};
#define REGS_WORDS 18

/* --- memory: lx's logical page tables (mm/vm.c) --- */
#define VM_READ   1
#define VM_WRITE  2
#define VM_EXEC   4
#define VM_SHARED 8          /* MAP_SHARED: children share, not copy */
#define VM_STACK  16
#define VM_HEAP   32
#define VM_CHARGED 64        /* counted in the commit limit (mm/vm.c) */
#define VM_NOWRITE 128       /* a shared file opened read-only: never made writable */
#define VM_FAST   256        /* the fast area: lx's, the process cannot change it */
/* the vDSO and its data page (vdso/vdso.c): lx's pages, shared by every process */
#define VM_VDSO   512
#define VM_VVAR   1024
/* an mmap of a regular file: its pages past the file's end give SIGBUS, as Linux (mm/vm.c) */
#define VM_FILEBUS 2048
/* madvise(2)'s and mlock(2)'s marks (syscall/sys_mem.c, sys_sys.c): the area is not
 * inherited by a fork child (MADV_DONTFORK), the child gets it without its pages
 * (MADV_WIPEONFORK), it is locked (mlock: MADV_DONTNEED and the like refuse it) */
#define VM_DONTCOPY   4096
#define VM_WIPEONFORK 8192
#define VM_LOCKED     16384

struct vma {
	struct vma *next;               /* sorted by start */
	u64 start, end;
	u32 prot;                       /* VM_READ | VM_WRITE | VM_EXEC, flags */
	struct inode *file;             /* file mapping: private copies, or (VM_SHARED) its pages */
	u64 off;                        /* file offset of start */
	u64 file_end;                   /* bytes beyond this (virtual) come zero */
	/* the open file it was mapped from, which names it in /proc/PID/maps (a reference), or NULL */
	struct file *named;
};

struct mm {
	u32 refs;                       /* threads sharing it (CLONE_VM) */
	u64 *pgd;                       /* 4-level radix of pool pages | PTE flags */
	u64 pgd_sum;                    /* which eighths of pgd are in use (mm/vm.c) */
	struct vma *vmas;
	struct vma *vma_hint;           /* the area last found (mm/vm.c) */
	u64 brk_start, brk;
	u64 mmap_top;                   /* next top-down search start */
	u64 pages;                      /* resident pages, for /proc */
	u64 committed;                  /* pages its writable areas may need */
	/* the L4 space holding this memory: one of its threads names it */
	L4_ThreadId_t space_tid;
	struct fastimg *fast;           /* the rewritten sites, or NULL (l4/fast.c) */
	int nthreads;                   /* Linux threads in the space */
	struct thread *sigthread;       /* its signal thread, made when first needed */
	bool sig_waiting;               /* the signal thread waits for a request */
	struct thread *kickq;           /* threads waiting to be redirected by it */
	u64 utcb_used[(1UL << LX_UTCB_LOG2) / UTCB_SIZE / 64];
	/* where exec put the arguments and environment, for /proc/PID/{stat,environ} */
	u64 arg_start, arg_end, env_start, env_end, start_stack;
};

/* --- signals --- */
#define LX_NSIG 64
struct sigaction_k {
	u64 handler, flags, restorer, mask;
};
struct sighand {
	u32 refs;
	struct sigaction_k act[LX_NSIG + 1];
};

/* --- processes and threads (proc/proc.c) --- */
/* STARTING: runs the stub; RUNNING: its own code; INCALL: lx handles its message now */
enum tstate { T_STARTING, T_RUNNING, T_INCALL, T_BLOCKED, T_RETRY };

struct thread {
	L4_ThreadId_t tid;
	u64 utcb;                       /* its UTCB slot in the space */
	struct proc *proc;
	struct mm *mm;                  /* the memory (L4 space) it runs in */
	struct thread *next_in_proc;
	enum tstate state;
	int tid_linux;                  /* Linux thread ID */
	struct regs regs;               /* state at the last exception, reply from here */
	bool fast;                      /* waits in a fast call (its answer is a fast reply) */
	bool regs_dirty;                /* regs changed beyond RAX: a fast call must trap */
	bool fast_trap;                 /* told to trap at lx_fast_trap for its registers */
	/* l4/fast.c: a pure call's answer left regs as they were (its state is in its UTCB) */
	bool regs_stale;                /* regs are not its state: it answered a pure call since */
	bool fast_sync;                 /* sent to lx_fast_sync: its #UD there brings the state */
	uint8_t fast_short;             /* its last fast call's stub: 0 lx_fast, SHORT_PURE, SHORT_LEAN */
	bool sync_call;                 /* at that #UD, its short call is still to run */
	bool is_sigthread;              /* a space's signal thread, not a Linux thread */
	/* redirection (l4/sigthread.c); COMING: stopped on its way to lx, it will bring the call */
	enum { KICK_NONE, KICK_QUEUED, KICK_SENT, KICK_EARLY, KICK_COMING } kick;
	struct thread *next_kick;
	struct regs stopped;            /* KICK_EARLY: its registers at the stub's #UD */
	u64 fs_base;
	bool fs_dirty;                  /* the next reply must set FS.base */
	u64 clear_child_tid;
	u64 sigmask, sigpending;
	u64 altstack_sp, altstack_size;
	u64 sysno;                      /* the call in progress (RAX at entry) */
	/* blocked in a system call: retried when wchan is woken or the deadline passes */
	void *wchan;
	bool timed_out;                 /* the retry is because the deadline passed */
	bool woken;                     /* futex: a FUTEX_WAKE chose this thread */
	bool fresh;                     /* the call runs for the first time (not a retry) */
	u64 call_deadline;              /* a relative timeout, fixed at the first run */
	const void *futex_obj;          /* the futex it waits on: (mm or file, offset) */
	u64 futex_off;
	uint32_t futex_bitset;
	int vfork_child;                /* pid of the vfork child it waits for */
	u64 robust_list;
	int fault_sig;                  /* redirected to the signal stub: a fault's signal, or 0 */
	u64 last_fault;                 /* page | access of its last fault (main.c map_refused) */
	u32 fault_repeats;
	u64 fault_rip, fault_flags, fault_addr;
	u64 deadline;                   /* µs of SystemClock, 0 = none */
	struct thread *next_blocked;
	u64 saved_sigmask;              /* rt_sigsuspend / pselect restore it */
	bool restore_sigmask;
	/* CPU time, sampled (proc/cputime.c) */
	u64 utime_us;
	/* queued signals, job control, PI futexes (proc/signal.c, syscall/sys_misc.c) */
	struct sigq *sigq;              /* thread-directed signals with their siginfo */
	bool held;                      /* its process is stopped: lx keeps its answer */
	bool resume;                    /* held, now on the retry list to be answered */
	bool held_call;                 /* its call came while its process was stopped: not run yet */
	bool futex_pi;                  /* waits in FUTEX_LOCK_PI (a wake retries, grants nothing) */
	u64 futex_seq;                  /* when it began to wait: wakes go first come first */
	/* proc/futex.c: futex_waitv's futexes while it waits on several (NULL: none) */
	struct futex_vec *futex_vec;
	/* vfs/lock.c: parked on a record lock held by this POSIX owner's pid (0: none) */
	int lock_blocker;
	bool seccomp_strict;            /* syscall/sys_sys.c: only read, write, exit, rt_sigreturn */
	/* home processor and affinity (proc/cpu.c); rseq: its registered area, 0 = none */
	uint8_t cpu;
	u64 cpus_allowed;
	u64 rseq;
	/* net/mmsg.c: the messages sendmmsg/recvmmsg finished before the call parked */
	u32 mmsg_done;
	u64 mmsg_end;                   /* recvmmsg's end of the timeout (µs; 0: none) */
};

struct proc {
	int pid, ppid, pgid, sid;
	struct proc *parent, *children, *sibling;
	struct proc *next_all;
	struct thread *threads;
	int nthreads;
	struct mm *mm;
	struct fdtable *fds;
	struct sighand *sig;
	u64 sigpending;                 /* process-directed */
	struct inode *cwd, *root;
	u32 umask;
	bool zombie;
	bool warned_state;              /* a message out of turn was logged once */
	int exit_status;                /* wait status once a zombie */
	u64 start_time;
	u64 rlim[LX_RLIMIT_NLIMITS][2];   /* getrlimit(2): soft and hard, inherited */
	char comm[16];
	char *cmdline;                  /* argv NUL-separated, for /proc */
	size_t cmdline_len;
	u64 alarm_at;                   /* µs, 0 = none */
	u64 itimer_interval;
	/* ITIMER_VIRTUAL and ITIMER_PROF (proc/signal.c): the next expiry in utime_us (0: off)
	 * and the interval */
	u64 cpu_itimer[2][2];
	u64 utime_us;                   /* sampled CPU time (proc/cputime.c) */
	struct thread *vfork_parent;    /* a vfork parent waits until exec or exit */
	bool vforked;                   /* shares its parent's memory until exec or exit */
	/* users and groups (vfs/perm.c, syscall/sys_cred.c): inherited by fork, kept by exec
	 * but for set-user-ID and set-group-ID files; one set for all the process's threads */
	struct cred cred;
	/* for /proc (fs/procfs.c): the program exec ran (opened read-only, named by
	 * the path it was found by), and the CPU time of reaped children */
	struct file *exe;
	u64 cutime_us;
	/* queued signals and job control (proc/signal.c) */
	struct sigq *sigq;              /* process-directed signals with their siginfo */
	int nqueued;                    /* real-time signals queued on its lists */
	bool stopped;                   /* a job-control stop: its threads are held */
	int stop_sig;
	int wait_report;                /* WAIT_REPORT_*: what its parent's wait may still see */
	int pdeath_sig;                 /* prctl(PR_SET_PDEATHSIG) */
	/* syscall/sys_sys.c: what a child inherits (personality, capabilities, scheduling) */
	struct proc_attrs {
		u32 personality;
		u32 dumpable;               /* prctl PR_SET_DUMPABLE */
		bool no_new_privs;
		int sched_policy, sched_prio;
		int ioprio;
		int mempolicy;              /* set_mempolicy's mode and mode flags */
		int nice;                   /* setpriority(2) */
		u64 caps[3];                /* effective, permitted, inheritable */
	} attrs;
	bool subreaper;                 /* PR_SET_CHILD_SUBREAPER: not inherited */
	u64 cpu_xcpu_at;                /* proc/cputime.c: CPU seconds at which the next SIGXCPU goes */
	/* setpgid(2): a child that has exec'd may no longer be moved by its parent (EACCES) */
	bool execed;
};

extern struct proc *procs;          /* all processes, for /proc and kill */
extern u64 procs_created;           /* forks since boot (/proc/stat's "processes") */
extern struct proc *init_proc;
extern L4_ThreadId_t lx_id;

/* --- lx's internals --- */
/* A system call's handler returns the result, or SYS_BLOCK to wait and retry. */
#define SYS_BLOCK  ((long)0x8000000000000000L)
#define SYS_NOREPLY ((long)0x8000000000000001L)   /* the thread was stopped or exited */

u64 lx_now_us(void);
void lx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Resources whose exhaustion makes fork, clone, mmap or exec fail: lx_exhausted
 * logs once, for each, which one ran out and its limit (l4/main.c). */
enum lx_resource { RES_KMEM_POOL, RES_KMEM_QUOTA, RES_PAGE_POOL, RES_THREAD_NOS, RES_PROC_TABLE,
		   RES_UTCB_SLOTS, RES_COUNT };
void lx_exhausted(enum lx_resource r);
u64 lx_kip_word(unsigned off);                  /* a word of the KIP (KIP_OFF_*), e.g. the kernel pool */
void rlimits_default(struct proc *p);           /* syscall/sys_misc.c: init's limits */
void attrs_default(struct proc *p);             /* syscall/sys_sys.c: init's attributes */
void lx_panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Each folder's interface (docs/lx.md, "Which file owns what"). */
#include "l4/glue.h"
#include "fs/fs.h"
#include "net/net.h"
#include "proc/proc.h"
#include "syscall/syscall.h"

#endif
