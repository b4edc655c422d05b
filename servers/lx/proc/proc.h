/* SPDX-License-Identifier: MIT */
/*
 * execve's arguments.  The caller's strings stay in its memory until the new
 * stack is built (there may be megabytes of them, as on Linux); only lx's
 * own strings (init's, a script's interpreter line) are kept here.
 */
#ifndef LX_EXEC_H
#define LX_EXEC_H

#include "../lx.h"

#define EXEC_MAX_STRLEN (128 * 1024)        /* Linux's MAX_ARG_STRLEN, the NUL included */
#define EXEC_K_MAX      256                 /* lx's own strings per vector */
#define EXEC_K_BYTES    (16 * 1024)

/* argv or envp: lx's strings k[0..kc), then the caller's uvec[skip..skip+uc) */
struct exec_vec {
	char *k[EXEC_K_MAX + 1];
	int kc;
	u64 uvec;
	int skip, uc;
};

struct exec_args {
	char path[LX_PATH_MAX];
	struct exec_vec arg, env;
	struct proc *from;              /* whose memory uvec and its strings are in */
	char *buf;                      /* the k strings: EXEC_K_BYTES */
	size_t used;
	/* the process's new name (the basename of the path execve was given, a
	 * script's rather than its interpreter's, as Linux's) and its program */
	char comm[16];
	struct file *exe;
	u64 bytes;                      /* every string of both vectors, NULs included */
	u64 arg_start, arg_bytes;       /* argv's strings on the new stack (build_stack) */
	u64 stack_size;                 /* the new stack area: RLIMIT_STACK within 128 KiB..8 MiB */
	/* the credentials the program will run with, for the auxiliary vector (AT_UID...) */
	struct cred cred;
	/* execveat(2) (syscall/sys_proc.c): the program's own lookup, not a script
	 * interpreter's, is `first` from dir (NULL: the cwd), a last symlink refused
	 * (nofollow: ELOOP), or the file `self` itself (AT_EMPTY_PATH); path is then
	 * Linux's name for the program, /dev/fd/N[/first], which a script cannot run
	 * by when N is close-on-exec (path_gone: ENOENT, as Linux) */
	struct {
		struct inode *dir;
		const char *first;
		struct file *self;
		bool nofollow, path_gone;
	} at;
};

struct exec_args *exec_args_new(void);
void exec_args_free(struct exec_args *a);
int exec_args_add(struct exec_args *a, struct exec_vec *v, const char *s);   /* one of lx's */
/* the caller's vector at uvec: counted and checked against Linux's limits (E2BIG) */
int exec_args_user(struct exec_args *a, struct exec_vec *v, u64 uvec);
/* argv[i]'s string onto the new stack at `to` (at most `room` bytes): its length, or -errno */
long exec_arg_copy(struct exec_args *a, struct exec_vec *v, int i, struct proc *to, u64 at, u64 room);
int exec_args_interp(struct exec_args *a, const char *interp, const char *arg);
long do_execve(struct thread *t, struct exec_args *a);
/* The point of no return: t's process runs mm from entry with stack sp. */
long exec_commit(struct thread *t, struct mm *mm, u64 entry, u64 sp, struct exec_args *a);

/* proc/proc.c */
extern struct thread *thread_by_tno[LX_LAST_TNO + 1];   /* by L4 thread number */
/* The thread tid names, or NULL (inline: every message lx gets asks it) */
static inline struct thread *thread_by_tid(L4_ThreadId_t tid)
{
	u64 no = l4_thread_no(tid);
	struct thread *t = no >= LX_FIRST_TNO && no <= LX_LAST_TNO ? thread_by_tno[no] : NULL;
	return t && t->tid == tid ? t : NULL;
}
struct proc *proc_by_pid(int pid);
struct thread *thread_by_linux_tid(int tid);       /* proc/signal.c */
int proc_count(void);
struct proc *proc_new(struct proc *parent);        /* NULL: too many or no memory */
void proc_free(struct proc *p);                    /* a reaped zombie */
struct thread *thread_new(struct proc *p, int *err); /* an L4 thread in p->mm's space */
int thread_start(struct thread *t);                /* it runs the stub, then t->regs */
void thread_destroy(struct thread *t);
void proc_exit(struct proc *p, int status);        /* status: a wait status */
bool oom_kill(struct proc *faulter);                /* false: the faulter was the victim */
extern bool lx_confine;                             /* lx.confine=0: no redirector (to measure its cost) */
void thread_exit(struct thread *t, int code);
void vfork_release(struct proc *child);            /* a vfork parent may go on */
void vfork_forget(struct thread *t);
void futex_forget(struct thread *t);
int proc_new_tid(void);                            /* a Linux thread ID, from the pid space */
bool start_init(const char *cmdline);              /* the first process, from lx's command line */
extern struct thread *lx_current;                  /* whose call runs now */
void futex_wake_addr(struct proc *p, u64 uaddr, int n);   /* a shared key, as clear_child_tid's */
void futex_exit_robust(struct thread *t);          /* its robust list: owners died (sys_misc.c) */

/* proc/cputime.c: CPU time sampled every 10 ms while any thread runs its own code */
extern bool cpu_busy;                               /* sampling runs (a thread was answered) */
void cpu_start(void);                               /* lx answers a thread: sample from now on */
u64 cpu_next_tick(void);                            /* the next sample's deadline; 0: none */
void cpu_tick(u64 now);                             /* a deadline passed: sample if due */
u64 cpu_user_us(void);                              /* all threads' time since boot */
void cpu_load(u64 load[3]);                         /* 1, 5, 15 minutes, in hundredths */
void cpu_times(struct proc *p, bool children, u64 *user_us, u64 *sys_us);
void cpu_limit_changed(struct proc *p);             /* RLIMIT_CPU was set */
u64 cpu_next_check(void);                           /* RLIMIT_CPU's next check, 0 = none */
void cpu_check(u64 now);

/* proc/cpu.c: home processors and affinity masks */
unsigned cpu_count(void);                           /* processors online (the KIP's) */
u64 cpu_online_mask(void);
void cpu_inherit(struct thread *n, const struct thread *from);   /* from NULL: init */
long cpu_set_affinity(struct thread *t, u64 mask);  /* 0 or -EINVAL (no online CPU in it) */

/* proc/proc.c */
struct thread *sigthread_create(struct mm *mm);
void sigthread_delete(struct mm *mm);
#define STUB_SIGNAL_RIP (LX_STUB_PAGE + STUB_SIGNAL_OFF)


/* proc/signal.c */
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
#define LX_SIGXCPU 24
#define LX_SIGXFSZ 25
#define LX_SIGVTALRM 26
#define LX_SIGPROF 27
#define LX_SIGSYS  31
#define LX_SIG_DFL 0
#define LX_SIG_IGN 1
#define LX_SIGRTMIN 32
#define SIGBIT(s) (1UL << ((s) - 1))

/* siginfo_t as Linux x86-64 lays it out (128 bytes). */
struct lx_siginfo {
	int32_t signo, err, code, pad;
	union {
		struct {
			int32_t pid;
			uint32_t uid;
			union {
				int32_t status;         /* SIGCHLD */
				u64 value;              /* sigqueue's sigval */
			};
		};
		u64 addr;                       /* faults */
		char raw[112];
	};
};
#define LX_SI_USER    0
#define LX_SI_KERNEL  0x80
#define LX_SI_QUEUE   (-1)
#define LX_SI_TKILL   (-6)
#define LX_SI_TIMER   (-2)      /* pid: the timer's id, uid: si_overrun, value: sigev_value */
#define LX_CLD_EXITED 1
#define LX_CLD_KILLED 2
#define LX_CLD_DUMPED 3
#define LX_CLD_STOPPED 5
#define LX_CLD_CONTINUED 6
/* proc->wait_report: a stop or a continue not yet seen by the parent's wait */
#define WAIT_REPORT_STOPPED 1
#define WAIT_REPORT_CONTINUED 2
struct sighand *sighand_new(void);
struct sighand *sighand_dup(struct sighand *h);
void sighand_put(struct sighand *h);
void sighand_exec(struct sighand *h);       /* handlers back to default, ignored stay */
bool sigchld_ignored(struct proc *p);
void signal_send_proc(struct proc *p, int sig);
void signal_send_thread(struct thread *t, int sig);
void signal_send_pgrp(int pgid, int sig);
/* With a siginfo (kill, sigqueue, SIGCHLD): 0, or -EAGAIN when a real-time queue is full. */
int signal_send_proc_info(struct proc *p, const struct lx_siginfo *si);
int signal_send_thread_info(struct thread *t, const struct lx_siginfo *si);
void signal_forget(struct thread *t);       /* a thread going away: its queue */
void signal_proc_gone(struct proc *p);      /* an exiting process: its queue */
/* The wait status of death by sig: the core bit as Linux sets it when RLIMIT_CORE allows a dump. */
int signal_death_status(struct proc *p, int sig);
bool pgrp_orphaned(int pgid);               /* no member has a parent outside it in its session */
void job_orphaned(int pgid);                /* an exit may have orphaned it: SIGHUP+SIGCONT if stopped */
bool signal_refused(struct thread *t, int sig);  /* t blocks sig or its process ignores it */
bool signal_pending(struct thread *t);      /* a deliverable signal waits */
/* Before a reply: a handler's frame, or the default action; false if t is gone or held
 * (its process is stopped: lx answers it when the process continues). */
bool signal_deliver(struct thread *t);
/* Has signal_deliver anything to do (a signal, a restart, a mask to restore, a stopped
 * process whose thread it holds)?  (The mask never holds SIGKILL or SIGSTOP.) */
static inline bool signal_work(const struct thread *t)
{
	return ((t->sigpending | t->proc->sigpending) & ~t->sigmask) ||
	       t->regs.rax == (u64)-LX_ERESTART || t->restore_sigmask || t->proc->stopped;
}
/* A fault at t->fault_rip: a handler's frame (regs: lx has t's registers), or death. */
bool signal_fault(struct thread *t, int sig, u64 addr, bool regs);
bool signal_trap(struct thread *t, int sig, u64 vec);  /* a CPU exception other than a page fault */
/* signalfd (fs/signalfd.c): the lowest signal of mask pending for t (its own first), taken off its
 * queue into *si; 0 if none */
int signal_dequeue(struct thread *t, u64 mask, struct lx_siginfo *si);
u64 signal_next_timer(void);
/* POSIX timers (proc/ptimer.c): is timer id's signal still queued for p (signal.c)?  A
 * delivered SI_TIMER signal takes its overruns; exec and exit delete p's timers. */
bool signal_timer_queued(struct proc *p, int id);
void ptimer_delivered(struct proc *p, struct lx_siginfo *si);
void ptimer_exit(struct proc *p);
void ptimer_cpu_tick(void);                 /* CPU time moved (proc/cputime.c): CPU-clock timers */
void signal_cpu_timers(void);               /* ... and ITIMER_VIRTUAL/ITIMER_PROF */
void signal_init(void);                     /* learns the CPU's MXCSR mask */
void signal_timers(u64 now);

#endif
