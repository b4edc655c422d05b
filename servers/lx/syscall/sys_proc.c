// SPDX-License-Identifier: MIT
// System calls on processes and threads: fork, clone, execve, exit, wait.
#include "syscall.h"
#include "../proc/proc.h"
#include "../../../lib/c/string.h"

#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_VFORK          0x00004000
#define CLONE_PARENT         0x00008000
#define CLONE_THREAD         0x00010000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID   0x01000000

#define WNOHANG    1
#define WUNTRACED  2
#define WEXITED    4
#define WNOWAIT    0x01000000
#define WSTOPPED   WUNTRACED
#define WCONTINUED 8
#define WNOTHREAD  0x20000000
#define WALL       0x40000000
#define WCLONE     0x80000000

/* --- fork and clone --- */

/* The new process's share of the parent's state; NULL without memory. */
static struct proc *fork_proc(struct thread *t, u64 flags, int *err)
{
	struct proc *p = t->proc, *c = proc_new(p);
	*err = -LX_EAGAIN;
	if (!c)
		return NULL;
	*err = -LX_ENOMEM;
	c->mm = (flags & CLONE_VM) ? p->mm : mm_fork(p->mm);
	if (!c->mm)
		goto fail;
	if (flags & CLONE_VM)
		c->mm->refs++;                      /* the creation reference, dropped below */
	c->fds = (flags & CLONE_FILES) ? p->fds : fdtable_dup(p->fds);
	c->sig = (flags & CLONE_SIGHAND) ? p->sig : sighand_dup(p->sig);
	if (!c->fds || !c->sig)
		goto fail;
	if (flags & CLONE_FILES)
		p->fds->refs++;
	if (flags & CLONE_SIGHAND)
		p->sig->refs++;
	c->cwd = p->cwd;
	c->root = p->root;
	fs_get(c->cwd);
	fs_get(c->root);
	if (p->cmdline && (c->cmdline = lx_malloc(p->cmdline_len))) {
		memcpy(c->cmdline, p->cmdline, p->cmdline_len);
		c->cmdline_len = p->cmdline_len;
	}
	return c;
fail:
	if (c->mm)
		mm_put(c->mm);
	c->mm = NULL;
	c->zombie = true;
	if (c->fds)
		fdtable_put(c->fds);
	if (c->sig)
		sighand_put(c->sig);
	proc_free(c);
	return NULL;
}

/* The child's first registers: the parent's, returning 0 from the call. */
static void child_regs(struct thread *t, struct thread *n, u64 flags, u64 sp, u64 tls)
{
	n->regs = t->regs;
	n->regs.rax = 0;
	n->regs.rcx = n->regs.rip;
	n->regs.r11 = n->regs.rflags;
	if (sp)
		n->regs.rsp = sp;
	n->fs_base = (flags & CLONE_SETTLS) ? tls : t->fs_base;
	n->fs_dirty = true;
	n->sigmask = t->sigmask;
}

static long clone_thread(struct thread *t, u64 flags, u64 sp, u64 ptid, u64 ctid, u64 tls)
{
	struct proc *p = t->proc;
	if ((flags & (CLONE_VM | CLONE_SIGHAND)) != (CLONE_VM | CLONE_SIGHAND))
		return -LX_EINVAL;
	int err;
	struct thread *n = thread_new(p, &err);
	if (!n)
		return err;
	n->tid_linux = proc_new_tid();
	child_regs(t, n, flags, sp, tls);
	int32_t tid = n->tid_linux;
	if (flags & CLONE_PARENT_SETTID)
		copyout(p, ptid, &tid, 4);
	if (flags & CLONE_CHILD_SETTID)
		copyout(p, ctid, &tid, 4);
	if (flags & CLONE_CHILD_CLEARTID)
		n->clear_child_tid = ctid;
	if (thread_start(n)) {
		thread_destroy(n);
		return -LX_EAGAIN;
	}
	return tid;
}

static long do_clone(struct thread *t, u64 flags, u64 sp, u64 ptid, u64 ctid, u64 tls)
{
	if (flags & CLONE_THREAD)
		return clone_thread(t, flags, sp, ptid, ctid, tls);
	int err;
	struct proc *c = fork_proc(t, flags, &err);
	if (!c)
		return err;
	struct thread *n = thread_new(c, &err);
	mm_put(c->mm);                              /* the creation reference */
	if (!n) {
		proc_exit(c, 0);
		proc_free(c);
		return err;
	}
	n->tid_linux = c->pid;
	child_regs(t, n, flags, sp, tls);
	int32_t pid = c->pid;
	if (flags & CLONE_PARENT_SETTID)
		copyout(t->proc, ptid, &pid, 4);
	if (flags & CLONE_CHILD_SETTID)
		copyout(c, ctid, &pid, 4);
	if (flags & CLONE_CHILD_CLEARTID)
		n->clear_child_tid = ctid;
	c->vforked = flags & CLONE_VM;
	if (thread_start(n)) {
		proc_exit(c, 0);
		proc_free(c);
		return -LX_EAGAIN;
	}
	if (flags & CLONE_VFORK) {
		c->vfork_parent = t;
		t->vfork_child = c->pid;
		return SYS_NOREPLY;                 /* answered by vfork_release */
	}
	return pid;
}

long sys_clone(struct thread *t, u64 flags, u64 sp, u64 ptid, u64 ctid, u64 tls, u64 a5)
{
	(void)a5;
	return do_clone(t, flags & ~0xffUL, sp, ptid, ctid, tls);
}

long sys_fork(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return do_clone(t, 0, 0, 0, 0, 0);
}

long sys_vfork(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return do_clone(t, CLONE_VM | CLONE_VFORK, 0, 0, 0, 0);
}

/* The vfork child execs or exits: its parent's call returns the child's pid. */
void vfork_release(struct proc *c)
{
	struct thread *t = c->vfork_parent;
	c->vfork_parent = NULL;
	c->vforked = false;
	if (!t)
		return;
	t->vfork_child = 0;
	t->regs.rax = (u64)c->pid;
	t->regs.rcx = t->regs.rip;
	t->regs.r11 = t->regs.rflags;
	if (signal_deliver(t))
		thread_reply(t);
}

/* A thread going away no longer waits for a vfork child. */
void vfork_forget(struct thread *t)
{
	if (!t->vfork_child)
		return;
	struct proc *c = proc_by_pid(t->vfork_child);
	if (c && c->vfork_parent == t)
		c->vfork_parent = NULL;
}

/* --- execve --- */

/*
 * One execve runs at a time (lx serves one call at a time), so its arguments
 * live in one static buffer: 144 KiB from lx_malloc per call cost 24,000
 * instructions of zeroing, and large blocks come only from the pool's
 * never-used part, which one exec after another would have used up.
 */
static struct exec_args args;
static char args_buf[EXEC_MAX_BYTES];
static bool args_busy;

struct exec_args *exec_args_new(void)
{
	if (args_busy)
		return NULL;
	args_busy = true;
	args.buf = args_buf;
	args.used = 0;
	args.argc = args.envc = 0;
	args.argv[0] = args.envp[0] = NULL;
	args.path[0] = 0;
	args.exe = NULL;
	return &args;
}

void exec_args_free(struct exec_args *a)
{
	file_put(a->exe);
	a->exe = NULL;
	if (a == &args)
		args_busy = false;
}

int exec_args_add(struct exec_args *a, char **vec, int *count, const char *s)
{
	size_t n = strlen(s) + 1;
	if (*count >= EXEC_MAX_ARGS || a->used + n > EXEC_MAX_BYTES)
		return -LX_E2BIG;
	vec[(*count)++] = memcpy(a->buf + a->used, s, n);
	vec[*count] = NULL;
	a->used += n;
	return 0;
}

/* argv becomes interp [arg] path argv[1..] (the script's own path replaces argv[0]). */
int exec_args_interp(struct exec_args *a, const char *interp, const char *arg)
{
	int old = a->argc, n = 0;
	char *saved[EXEC_MAX_ARGS + 1];
	memcpy(saved, a->argv, sizeof(saved));
	a->argc = 0;
	int err = exec_args_add(a, a->argv, &a->argc, interp);
	if (!err && arg)
		err = exec_args_add(a, a->argv, &a->argc, arg);
	if (!err)
		err = exec_args_add(a, a->argv, &a->argc, a->path);
	for (n = 1; !err && n < old; n++) {
		if (a->argc >= EXEC_MAX_ARGS)
			return -LX_E2BIG;
		a->argv[a->argc++] = saved[n];
		a->argv[a->argc] = NULL;
	}
	if (err)
		return err;
	if (strlen(interp) >= sizeof(a->path))
		return -LX_ENAMETOOLONG;
	memcpy(a->path, interp, strlen(interp) + 1);
	return 0;
}

/* Copy a NULL-terminated vector of strings from the process. */
static int copy_vector(struct proc *p, struct exec_args *a, u64 uvec, char **vec, int *count)
{
	char tmp[LX_PAGE_SIZE];
	for (u64 i = 0; uvec; i++) {
		u64 ptr;
		if (!copyin(p, &ptr, uvec + i * 8, 8))
			return -LX_EFAULT;
		if (!ptr)
			return 0;
		long n = copyin_str(p, tmp, ptr, sizeof(tmp));
		if (n < 0)
			return n == -LX_ENAMETOOLONG ? -LX_E2BIG : (int)n;
		int err = exec_args_add(a, vec, count, tmp);
		if (err)
			return err;
	}
	return 0;
}

long sys_execve(struct thread *t, u64 path, u64 argv, u64 envp, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	struct exec_args *a = exec_args_new();
	if (!a)
		return -LX_ENOMEM;
	long err = copyin_str(t->proc, a->path, path, sizeof(a->path));
	if (err >= 0)
		err = copy_vector(t->proc, a, argv, a->argv, &a->argc);
	if (err >= 0)
		err = copy_vector(t->proc, a, envp, a->envp, &a->envc);
	if (err >= 0 && !a->path[0])
		err = -LX_ENOENT;
	if (err >= 0)
		err = do_execve(t, a);
	exec_args_free(a);
	return err;
}

static void set_cmdline(struct proc *p, struct exec_args *a)
{
	size_t n = 0;
	for (int i = 0; i < a->argc; i++)
		n += strlen(a->argv[i]) + 1;
	lx_free(p->cmdline);
	p->cmdline = lx_malloc(n ? n : 1);
	p->cmdline_len = p->cmdline ? n : 0;
	for (int i = 0, at = 0; p->cmdline && i < a->argc; i++) {
		size_t l = strlen(a->argv[i]) + 1;
		memcpy(p->cmdline + at, a->argv[i], l);
		at += (int)l;
	}
	memcpy(p->comm, a->comm, sizeof(p->comm));
	file_put(p->exe);
	p->exe = a->exe;
	a->exe = NULL;
}

long exec_commit(struct thread *t, struct mm *mm, u64 entry, u64 sp, struct exec_args *a)
{
	struct proc *p = t->proc;
	struct mm *old = p->mm;
	p->mm = mm;
	int err;
	struct thread *n = thread_new(p, &err);
	mm_put(mm);                                 /* the creation reference */
	if (!n) {
		p->mm = old;
		return err;
	}
	p->mm = old;                                /* robust locks live in the old memory */
	for (struct thread *o = p->threads; o; o = o->next_in_proc)
		if (o != n)
			futex_exit_robust(o);
	p->mm = mm;
	for (struct thread *o = p->threads, *next; o; o = next) {
		next = o->next_in_proc;
		if (o != n && o != t)
			thread_destroy(o);
	}
	n->tid_linux = p->pid;
	n->sigmask = t->sigmask;
	n->sigq = t->sigq;                          /* its pending signals stay pending */
	n->sigpending = t->sigpending;
	t->sigq = NULL;
	t->sigpending = 0;
	n->regs = (struct regs){ .rip = entry, .rsp = sp, .rflags = 0x202 };
	n->fs_dirty = true;
	thread_destroy(t);
	vfork_release(p);
	fd_close_on_exec(p);
	if (p->sig->refs > 1) {
		struct sighand *h = sighand_dup(p->sig);
		if (h) {
			sighand_put(p->sig);
			p->sig = h;
		}
	}
	sighand_exec(p->sig);
	set_cmdline(p, a);
	if (thread_start(n))
		proc_exit(p, LX_SIGKILL);
	return SYS_NOREPLY;
}

/* --- exit and wait --- */

long sys_exit(struct thread *t, u64 code, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	thread_exit(t, (int)code);
	return SYS_NOREPLY;
}

long sys_exit_group(struct thread *t, u64 code, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	proc_exit(t->proc, (int)(code & 0xff) << 8);
	return SYS_NOREPLY;
}

static bool wait_matches(struct proc *p, struct proc *c, long pid)
{
	if (pid > 0)
		return c->pid == pid;
	if (pid == 0)
		return c->pgid == p->pgid;
	if (pid < -1)
		return c->pgid == -pid;
	return true;
}

enum report { REPORT_EXIT, REPORT_STOP, REPORT_CONT };

/* A child matching pid with an exit, stop or continue that options ask for; *any: a child matches. */
static struct proc *find_report(struct proc *p, long pid, u64 options, enum report *kind,
				bool *any)
{
	*any = false;
	for (struct proc *c = p->children; c; c = c->sibling) {
		if (!wait_matches(p, c, pid))
			continue;
		*any = true;
		*kind = c->zombie ? REPORT_EXIT : c->wait_report == WAIT_REPORT_STOPPED ? REPORT_STOP :
			REPORT_CONT;
		if (c->zombie ? (options & WEXITED) :
		    c->wait_report == WAIT_REPORT_STOPPED ? (options & WSTOPPED) :
		    c->wait_report == WAIT_REPORT_CONTINUED && (options & WCONTINUED))
			return c;
	}
	return NULL;
}

/* Nothing to report now: ECHILD without a matching child, 0 with WNOHANG, else wait. */
static long wait_more(struct thread *t, bool any, u64 options)
{
	if (!any)
		return -LX_ECHILD;
	if (options & WNOHANG)
		return 0;
	block_on(t, t->proc, 0);
	return SYS_BLOCK;
}

long sys_wait4(struct thread *t, u64 pid, u64 status, u64 options, u64 rusage, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	struct proc *p = t->proc;
	if (options & ~(u64)(WNOHANG | WUNTRACED | WCONTINUED | WNOTHREAD | WALL | WCLONE))
		return -LX_EINVAL;
	bool any;
	enum report kind;
	struct proc *c = find_report(p, (long)(int)pid, options | WEXITED, &kind, &any);
	if (!c)
		return wait_more(t, any, options);
	int32_t st = kind == REPORT_EXIT ? c->exit_status :
		     kind == REPORT_STOP ? (c->stop_sig << 8) | 0x7f : 0xffff;
	if (status && !copyout(p, status, &st, 4))
		return -LX_EFAULT;
	if (rusage) {
		u64 ru[18];
		rusage_of(c->utime_us + c->cutime_us, ru);
		if (!copyout(p, rusage, ru, sizeof(ru)))
			return -LX_EFAULT;
	}
	long r = c->pid;
	if (kind == REPORT_EXIT)
		proc_free(c);
	else
		c->wait_report = 0;
	return r;
}

/* waitid's siginfo for what c reports. */
static void wait_info(struct proc *c, enum report kind, struct lx_siginfo *si)
{
	int st = c->exit_status, sig = st & 0x7f;
	*si = (struct lx_siginfo){ .signo = LX_SIGCHLD, .pid = c->pid, .uid = c->cred.uid };
	if (kind == REPORT_STOP) {
		si->code = LX_CLD_STOPPED;
		si->status = c->stop_sig;
	} else if (kind == REPORT_CONT) {
		si->code = LX_CLD_CONTINUED;
		si->status = LX_SIGCONT;
	} else {
		si->code = !sig ? LX_CLD_EXITED : (st & 0x80) ? LX_CLD_DUMPED : LX_CLD_KILLED;
		si->status = sig ? sig : (st >> 8) & 0xff;
	}
}

long sys_waitid(struct thread *t, u64 idtype, u64 id, u64 info, u64 options, u64 rusage, u64 a5)
{
	(void)rusage; (void)a5;
	struct proc *p = t->proc;
	long pid = idtype == 0 ? -1 : idtype == 1 && (int)id > 0 ? (long)(int)id :
		   idtype == 2 && (int)id >= 0 ? -(long)((int)id ? (int)id : p->pgid) : -2;
	if (idtype == 3 && (pid = pidfd_pid(p, (int)id)) < 0)      /* P_PIDFD */
		return pid;
	if (pid == -2 || (options & ~(u64)(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED |
					    WNOTHREAD | WALL | WCLONE)) ||
	    !(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -LX_EINVAL;
	bool any;
	enum report kind;
	struct proc *c = find_report(p, pid, options, &kind, &any);
	if (!c) {
		long r = wait_more(t, any, options);
		char zero[128] = { 0 };
		return !r && info && !copyout(p, info, zero, sizeof(zero)) ? -LX_EFAULT : r;
	}
	struct lx_siginfo si;
	wait_info(c, kind, &si);
	if (info && !copyout(p, info, &si, sizeof(si)))
		return -LX_EFAULT;
	if (!(options & WNOWAIT) && kind == REPORT_EXIT)
		proc_free(c);
	else if (!(options & WNOWAIT))
		c->wait_report = 0;
	return 0;
}

/* --- identity --- */

#define NOARGS (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5

long sys_getpid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	NOARGS;
	return t->proc->pid;
}

long sys_gettid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	NOARGS;
	return t->tid_linux;
}

long sys_getppid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	NOARGS;
	return t->proc->parent ? t->proc->parent->pid : 0;
}

/* One processor: affinity and yielding change nothing. */
#define NOP_CALL(name) \
	long sys_##name(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) \
	{ (void)t; NOARGS; return 0; }
NOP_CALL(sched_setaffinity) NOP_CALL(sched_yield)

long sys_setpgid(struct thread *t, u64 pid, u64 pgid, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct proc *self = t->proc;
	struct proc *p = (int)pid == 0 ? self : proc_by_pid((int)pid);
	if ((int)pgid < 0)
		return -LX_EINVAL;
	if (!p || (p != self && p->parent != self))
		return -LX_ESRCH;
	if (p->sid != self->sid || p->sid == p->pid)
		return -LX_EPERM;
	p->pgid = (int)pgid ? (int)pgid : p->pid;
	return 0;
}

long sys_getpgid(struct thread *t, u64 pid, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	struct proc *p = (int)pid == 0 ? t->proc : proc_by_pid((int)pid);
	return p ? p->pgid : -LX_ESRCH;
}

long sys_getpgrp(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	NOARGS;
	return t->proc->pgid;
}

long sys_getsid(struct thread *t, u64 pid, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	struct proc *p = (int)pid == 0 ? t->proc : proc_by_pid((int)pid);
	return p ? p->sid : -LX_ESRCH;
}

long sys_setsid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	NOARGS;
	struct proc *p = t->proc;
	/* a process group named by the caller's pid exists (its own included): EPERM */
	for (struct proc *o = procs; o; o = o->next_all)
		if (o->pgid == p->pid)
			return -LX_EPERM;
	p->sid = p->pgid = p->pid;
	return p->pid;
}
