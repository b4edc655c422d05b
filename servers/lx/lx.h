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
#include "mem.h"
#include "fs.h"

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
 * The fast library path (fast.c, stub.S lx_fast): a process's fast area is
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
#define LX_FAST_LABEL       0x4c58              /* a fast call's IPC label (stub.S) */
#define LX_FAST_WORDS       31                  /* its untyped words (stub.S) */
#define LX_FAST_TRAP        0x1000              /* reply label: trap to lx for a full answer */

/* Private system calls the stub makes (outside Linux's numbers). */
#define LX_SYS_START     0x4c580001              /* a new thread asks for its registers */
#define STUB_SIGNAL_OFF  0x40                    /* lx_stub_signal in the stub page (stub.S) */
#define LX_MAX_PROCS     1200
#define LX_CMDLINE_MAX   4096                    /* lx's boot command line, NUL included */
#define LX_RLIMIT_FSIZE  1
#define LX_RLIMIT_NLIMITS 16
#define LX_RLIM_INFINITY (~0UL)
#define LX_FIRST_TNO     64                      /* L4 thread numbers lx gives out */
#define LX_LAST_TNO      2047
#define LX_MAX_THREADS   (LX_LAST_TNO - LX_FIRST_TNO + 1)
#define LX_KMEM_PER_PROC (64UL << 10)            /* kernel memory a small process takes */

/* A thread's registers in the order of the exception message's MR1..MR18. */
struct regs {
	u64 rip, rbx, r10, r12, r13, r14, r15, rax, rcx, rdx, rsi, rdi, rbp, r8, r9, r11, rsp,
	    rflags;
};
#define REGS_WORDS 18

/* --- memory: lx's logical page tables (vm.c) --- */
#define VM_READ   1
#define VM_WRITE  2
#define VM_EXEC   4
#define VM_SHARED 8          /* MAP_SHARED: children share, not copy */
#define VM_STACK  16
#define VM_HEAP   32
#define VM_CHARGED 64        /* counted in the commit limit (vm.c) */
#define VM_NOWRITE 128       /* a shared file opened read-only: never made writable */
#define VM_FAST   256        /* the fast area: lx's, the process cannot change it */

struct vma {
	struct vma *next;               /* sorted by start */
	u64 start, end;
	u32 prot;                       /* VM_READ | VM_WRITE | VM_EXEC, flags */
	struct inode *file;             /* file mapping: private copies, or (VM_SHARED) its pages */
	u64 off;                        /* file offset of start */
	u64 file_end;                   /* bytes beyond this (virtual) come zero */
};

struct mm {
	u32 refs;                       /* threads sharing it (CLONE_VM) */
	u64 *pgd;                       /* 4-level radix of pool pages | PTE flags */
	u64 pgd_sum;                    /* which eighths of pgd are in use (vm.c) */
	struct vma *vmas;
	struct vma *vma_hint;           /* the area last found (vm.c) */
	u64 brk_start, brk;
	u64 mmap_top;                   /* next top-down search start */
	u64 pages;                      /* resident pages, for /proc */
	u64 committed;                  /* pages its writable areas may need */
	/* the L4 space holding this memory: one of its threads names it */
	L4_ThreadId_t space_tid;
	struct fastimg *fast;           /* the rewritten sites, or NULL (fast.c) */
	int nthreads;                   /* Linux threads in the space */
	struct thread *sigthread;       /* its signal thread, made when first needed */
	bool sig_waiting;               /* the signal thread waits for a request */
	struct thread *kickq;           /* threads waiting to be redirected by it */
	u64 utcb_used[(1UL << LX_UTCB_LOG2) / UTCB_SIZE / 64];
};

/* --- files (file.c) --- */
struct file;
struct thread;
struct fastimg;
/*
 * Operations of an open file.  read/write move bytes between lx's buffer
 * and the object; they return the count or -errno, and -LX_EAGAIN when
 * nothing can move now: the system-call layer then parks the thread on
 * wchan(f) (unless O_NONBLOCK) and runs the call again when the object
 * calls wake() on that channel.
 */
struct file_ops {
	long (*read)(struct file *f, void *buf, size_t n);
	long (*write)(struct file *f, const void *buf, size_t n);
	int (*poll)(struct file *f);    /* LX_POLL* that hold now */
	void *(*wchan)(struct file *f);
	long (*ioctl)(struct thread *t, struct file *f, u64 cmd, u64 arg);
	void (*release)(struct file *f);
	/* optional: take back the last n bytes read returned (file_unread) */
	void (*unread)(struct file *f, size_t n);
};
#define LX_POLLIN   0x001
#define LX_POLLPRI  0x002
#define LX_POLLOUT  0x004
#define LX_POLLERR  0x008
#define LX_POLLHUP  0x010
#define LX_POLLNVAL 0x020

struct file {
	u32 refs;
	u32 flags;                      /* open flags (O_APPEND, O_NONBLOCK, access mode) */
	u64 pos;
	struct inode *ip;               /* NULL for pipes' and sockets' anonymous ends */
	const struct file_ops *ops;
	void *priv;
};

#define LX_NFD 256
struct fdtable {
	u32 refs;
	u32 top;                        /* no descriptor at or above this (file.c) */
	struct file *fd[LX_NFD];
	uint8_t cloexec[LX_NFD];
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

/* --- processes and threads (proc.c) --- */
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
	bool is_sigthread;              /* a space's signal thread, not a Linux thread */
	/* redirection (sigthread.c); COMING: stopped on its way to lx, it will bring the call */
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
	struct mm *futex_mm;            /* the futex it waits on */
	u64 futex_addr;
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
	u64 utime_us;
	struct thread *vfork_parent;    /* a vfork parent waits until exec or exit */
	bool vforked;                   /* shares its parent's memory until exec or exit */
};

extern struct proc *procs;          /* all processes, for /proc and kill */
extern struct proc *init_proc;
extern L4_ThreadId_t lx_id;

/* --- lx's internals --- */
/* A system call's handler returns the result, or SYS_BLOCK to wait and retry. */
#define SYS_BLOCK  ((long)0x8000000000000000L)
#define SYS_NOREPLY ((long)0x8000000000000001L)   /* the thread was stopped or exited */

u64 lx_now_us(void);
void lx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Resources whose exhaustion makes fork, clone, mmap or exec fail: lx_exhausted
 * logs once, for each, which one ran out and its limit (main.c). */
enum lx_resource { RES_KMEM_POOL, RES_KMEM_QUOTA, RES_PAGE_POOL, RES_THREAD_NOS, RES_PROC_TABLE,
		   RES_UTCB_SLOTS, RES_COUNT };
void lx_exhausted(enum lx_resource r);
void rlimits_default(struct proc *p);           /* sys_misc.c: init's limits */
void lx_panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* vm.c */
/* The RAM file system's pages count against the same commit limit as writable
 * mappings: false when the pool has no page left to promise (ENOSPC). */
bool mem_charge_file_page(void);
void mem_uncharge_file_page(void);
struct mm *mm_new(void);
void mm_put(struct mm *mm);
struct mm *mm_fork(struct mm *parent);      /* copy on write; NULL without memory */
int vm_fault(struct proc *p, u64 addr, u32 access, u64 *page_out, u32 *rights_out);
/* lx's address of user byte va, made present for reading; NULL if not mapped readable */
uint8_t *vm_kaddr(struct mm *mm, u64 va);
bool vm_is_text(struct mm *mm, u64 va);     /* in a private, read-only, executable file mapping */
/* file: NULL for anonymous memory; file_writable: its descriptor was opened for writing */
long vm_mmap(struct proc *p, u64 addr, u64 len, u32 prot, u32 flags, struct inode *file,
	     u64 off, bool file_writable);
/* Unmap the areas in [addr, addr + len) that map file (System V detach). */
long vm_unmap_file(struct proc *p, u64 addr, u64 len, struct inode *file);
/* The file an area starting at addr maps, or NULL. */
struct inode *vm_file_at(struct proc *p, u64 addr);
long vm_msync(struct proc *p, u64 addr, u64 len);
long vm_munmap(struct proc *p, u64 addr, u64 len);
long vm_mprotect(struct proc *p, u64 addr, u64 len, u32 prot);
long vm_brk(struct proc *p, u64 brk);
/* copy to/from a process's memory through lx's tables; false on a bad address */
bool copyin(struct proc *p, void *dst, u64 src, size_t n);
bool copyout(struct proc *p, u64 dst, const void *src, size_t n);
long copyin_str(struct proc *p, char *dst, u64 src, size_t max);  /* length, or -errno */
void vm_unmap_all(struct mm *mm);
long vm_map_fixed(struct mm *mm, u64 start, u64 end, u32 vmprot, struct inode *file, u64 off,
		  u64 file_end);

/* proc.c */
struct thread *thread_by_tid(L4_ThreadId_t tid);
struct proc *proc_by_pid(int pid);
int proc_count(void);
struct proc *proc_new(struct proc *parent);        /* NULL: too many or no memory */
void proc_free(struct proc *p);                    /* a reaped zombie */
struct thread *thread_new(struct proc *p, int *err); /* an L4 thread in p->mm's space */
int thread_start(struct thread *t);                /* it runs the stub, then t->regs */
void thread_destroy(struct thread *t);
void proc_exit(struct proc *p, int status);        /* status: a wait status */
bool oom_kill(struct proc *faulter);                /* false: the faulter was the victim */
void thread_exit(struct thread *t, int code);
void vfork_release(struct proc *child);            /* a vfork parent may go on */
void vfork_forget(struct thread *t);
void futex_forget(struct thread *t);
int proc_new_tid(void);                            /* a Linux thread ID, from the pid space */
bool start_init(const char *cmdline);              /* the first process, from lx's command line */
void proc_fs_init(void);                           /* /proc */
extern struct thread *lx_current;                  /* whose call runs now */
void futex_wake_addr(struct proc *p, u64 uaddr, int n);

/* syscall.c: running calls, parking threads */
void syscall_dispatch(struct thread *t);   /* t->regs hold the caller's registers */
void syscall_run(struct thread *t);
extern bool lx_trace;                      /* log every call (the lx.trace option) */
void block_on(struct thread *t, void *wchan, u64 deadline);  /* then return SYS_BLOCK */
void unblock(struct thread *t);
void wake(void *wchan);                    /* every thread parked on wchan runs its call again */
void wake_thread(struct thread *t);
extern char poll_any[];                    /* wchan of poll/select: woken by every wake() */
bool retry_pending(void);
void retry_blocked(void);
u64 next_deadline(void);
void deadlines_changed(void);              /* an alarm or a parked thread's deadline changed */
void expire_deadlines(u64 now);

/* sigthread.c: redirection of running threads by each space's signal thread */
void kick(struct thread *t);               /* get a thread running its own code to lx */
void kick_forget(struct thread *t);
void sigthread_message(struct thread *st, L4_Word_t label, L4_MsgTag_t tag);
bool kick_early(struct thread *t);         /* t reached the stub's #UD before the report */
void redirect_direct(struct thread *t);    /* lx redirects t itself (a thread that waits in lx) */
/* proc.c */
struct thread *sigthread_create(struct mm *mm);
void sigthread_delete(struct mm *mm);
#define STUB_SIGNAL_RIP (LX_STUB_PAGE + STUB_SIGNAL_OFF)

/* fast.c: the fast library path */
extern bool lx_fast_on;                    /* the lx.fast option (default on) */
extern bool lx_confine;                    /* lx.confine=0: no redirector (to measure its cost) */
struct fastimg *fast_new(void);
void fast_put(struct fastimg *f);
struct fastimg *fast_get(struct fastimg *f);
int fast_map(struct mm *mm);               /* give a new image its fast area */
void fast_patch(struct thread *t);         /* after a trapped `syscall`: rewrite its site (mm->fast) */
bool fast_ud(struct thread *t);            /* #UD: a jump into a rewritten site's `syscall` */
void fast_call(struct thread *t);          /* the fast call message */
void fast_reply(struct thread *t);         /* answer a fast call from t->regs */
extern u64 fast_trap_ip;                   /* the #UD a fast call's trap reply leads to */
enum fast_where { FAST_NONE, FAST_BEFORE, FAST_AFTER };
enum fast_where fast_where(u64 ip);        /* where a thread stopped in the fast path */
void fast_init(void *stub_page);

/* main.c */
void thread_reply(struct thread *t);       /* answer t with t->regs (and FS.base if dirty) */
void map_stub(struct thread *t);           /* answer a page fault on the stub page */
/* t was redirected to the stub's #UD; msg: its registers there */
void redirected(struct thread *t, const struct regs *msg);
void reply_flush(void);                    /* send a deferred reply before using the MRs */
void lx_init_exited(int status) __attribute__((noreturn));

/* signal.c */
#define LX_SIGHUP  1
#define LX_SIGINT  2
#define LX_SIGQUIT 3
#define LX_SIGILL  4
#define LX_SIGTRAP 5
#define LX_SIGABRT 6
#define LX_SIGBUS  7
#define LX_SIGFPE  8
#define LX_SIGKILL 9
#define LX_SIGUSR1 10
#define LX_SIGSEGV 11
#define LX_SIGUSR2 12
#define LX_SIGPIPE 13
#define LX_SIGALRM 14
#define LX_SIGTERM 15
#define LX_SIGCHLD 17
#define LX_SIGCONT 18
#define LX_SIGSTOP 19
#define LX_SIGTSTP 20
#define LX_SIGTTIN 21
#define LX_SIGTTOU 22
#define LX_SIGWINCH 28
#define LX_SIGXFSZ 25
#define LX_SIGSYS  31
#define LX_SIG_DFL 0
#define LX_SIG_IGN 1
#define SIGBIT(s) (1UL << ((s) - 1))
struct sighand *sighand_new(void);
struct sighand *sighand_dup(struct sighand *h);
void sighand_put(struct sighand *h);
void sighand_exec(struct sighand *h);       /* handlers back to default, ignored stay */
bool sigchld_ignored(struct proc *p);
void signal_send_proc(struct proc *p, int sig);
void signal_send_thread(struct thread *t, int sig);
void signal_send_pgrp(int pgid, int sig);
bool signal_pending(struct thread *t);      /* a deliverable signal waits */
/* Before a reply: a handler's frame, or the default action; false if t is gone. */
bool signal_deliver(struct thread *t);
/* Has signal_deliver anything to do (a signal, a restart, a mask to restore)?  (The
 * mask never holds SIGKILL or SIGSTOP.) */
static inline bool signal_work(const struct thread *t)
{
	return ((t->sigpending | t->proc->sigpending) & ~t->sigmask) ||
	       t->regs.rax == (u64)-LX_ERESTART || t->restore_sigmask;
}
/* A fault at t->fault_rip: a handler's frame (regs: lx has t's registers), or death. */
bool signal_fault(struct thread *t, int sig, u64 addr, bool regs);
u64 signal_next_timer(void);
void signal_init(void);                     /* learns the CPU's MXCSR mask */
void signal_timers(u64 now);

/* file.c: open files and descriptor tables */
struct file *file_new(const struct file_ops *ops, u32 flags);   /* refs = 1 */
void file_get(struct file *f);
void file_put(struct file *f);
/* Open an inode (regular file, directory, device, FIFO) with open flags. */
int file_open_inode(struct thread *t, struct inode *ip, u32 flags, struct file **out);
struct fdtable *fdtable_new(void);
struct fdtable *fdtable_dup(struct fdtable *t);
void fdtable_put(struct fdtable *t);
int fd_install(struct proc *p, struct file *f, int min, bool cloexec);  /* the fd, or -EMFILE */
struct file *fd_get(struct proc *p, int fd);        /* no reference taken; NULL: EBADF */
void fd_close_on_exec(struct proc *p);
/* device numbers (st_rdev) of the character devices lx provides */
#define LX_MKDEV(ma, mi) (((ma) << 8) | (mi))
#define DEV_NULL    LX_MKDEV(1, 3)
#define DEV_ZERO    LX_MKDEV(1, 5)
#define DEV_FULL    LX_MKDEV(1, 7)
#define DEV_RANDOM  LX_MKDEV(1, 8)
#define DEV_URANDOM LX_MKDEV(1, 9)
#define DEV_TTY     LX_MKDEV(5, 0)
#define DEV_CONSOLE LX_MKDEV(5, 1)
long lx_random(void *buf, size_t n);                /* getrandom's bytes */

/* tty.c: the console through the user-level serial driver, with a line discipline */
void tty_init(L4_ThreadId_t reader);         /* starts the console reader thread */
L4_ThreadId_t tty_reader_id(void);
void tty_message(void);                      /* the reader's message: input bytes */

/* main.c: a thread of lx's own space; returns its local ID */
L4_ThreadId_t lx_thread_start(L4_ThreadId_t tid, void (*ip)(void), char *stack, size_t size,
			      L4_Word_t prio);

/* clock.c: the thread that wakes lx at the earliest deadline */
void clock_init(L4_ThreadId_t c);
L4_Word_t clock_update(u64 deadline);       /* 0: none; the receive timeout lx needs */
bool clock_is(L4_ThreadId_t from);
void clock_message(void);                   /* its tick */
int tty_fg_pgrp(void);
void tty_set_fg_pgrp(int pgrp);
extern const struct file_ops tty_ops;        /* /dev/console and /dev/tty */
long console_out(const void *buf, size_t n);

#endif
