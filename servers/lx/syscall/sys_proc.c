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

static int procs_of_user(u32 uid)
{
	int n = 0;
	for (struct proc *q = procs; q; q = q->next_all)
		n += !q->zombie && q->cred.uid == uid;
	return n;
}

/* The new process's share of the parent's state; NULL without memory. */
static struct proc *fork_proc(struct thread *t, u64 flags, int *err)
{
	struct proc *p = t->proc, *c;
	*err = -LX_EAGAIN;
	/* RLIMIT_NPROC counts the processes of the caller's real user, as Linux */
	if (!lx_privileged(p) && (u64)procs_of_user(p->cred.uid) >= p->rlim[LX_RLIMIT_NPROC][0])
		return NULL;
	if (!(c = proc_new(p)))
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
	n->seccomp_strict = t->seccomp_strict;
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
	cpu_inherit(n, t);
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
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -LX_EINVAL;                  /* shared handlers need shared memory, as Linux */
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
	cpu_inherit(n, t);
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

/* clone3(2)'s argument, up to CLONE_ARGS_SIZE_VER2 */
struct clone_args {
	u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size, cgroup;
};
#define CLONE_ARGS_SIZE_VER0 64
#define CLONE_PIDFD          0x00001000
#define CLONE_CLEAR_SIGHAND  0x100000000UL
#define CLONE_INTO_CGROUP    0x200000000UL

/* The caller's struct of `size` bytes; bytes past the ones lx knows must be zero (E2BIG). */
static long clone_args_in(struct thread *t, u64 uargs, u64 size, struct clone_args *ca)
{
	if (size < CLONE_ARGS_SIZE_VER0)
		return -LX_EINVAL;
	if (size > LX_PAGE_SIZE)
		return -LX_E2BIG;
	memset(ca, 0, sizeof(*ca));
	u64 known = size < sizeof(*ca) ? size : sizeof(*ca);
	if (!copyin(t->proc, ca, uargs, known))
		return -LX_EFAULT;
	for (u64 at = known; at < size; at += 8) {
		u64 w = 0, n = size - at < 8 ? size - at : 8;
		if (!copyin(t->proc, &w, uargs + at, n))
			return -LX_EFAULT;
		if (w)
			return -LX_E2BIG;
	}
	return 0;
}

/*
 * clone3(2): clone's flags with their arguments in a struct.  A new
 * process's pidfd (CLONE_PIDFD), a chosen pid (set_tid) and cgroups are
 * not offered (EINVAL; docs/lx.md "Limits").
 */
long sys_clone3(struct thread *t, u64 uargs, u64 size, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct clone_args ca;
	long r = clone_args_in(t, uargs, size, &ca);
	if (r)
		return r;
	if ((ca.flags & 0xff) || (ca.exit_signal & ~0xffUL) || ca.exit_signal > LX_NSIG)
		return -LX_EINVAL;
	if ((ca.stack == 0) != (ca.stack_size == 0))
		return -LX_EINVAL;
	if ((ca.flags & CLONE_THREAD) && ca.exit_signal)
		return -LX_EINVAL;
	if (ca.set_tid_size || ca.set_tid)
		return ca.set_tid_size > 32 ? -LX_EINVAL : lx_privileged(t->proc) ? -LX_EINVAL : -LX_EPERM;
	if (ca.flags & (CLONE_PIDFD | CLONE_INTO_CGROUP | CLONE_CLEAR_SIGHAND | ~0xffffffffUL))
		return -LX_EINVAL;
	u64 sp = ca.stack ? ca.stack + ca.stack_size : 0;
	return do_clone(t, ca.flags, sp, ca.parent_tid, ca.child_tid, ca.tls);
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
 * One execve runs at a time (lx serves one call at a time), so its
 * arguments live in one static structure.  The caller's strings are only
 * counted here and copied straight onto the new stack (exec_arg_copy).
 */
static struct exec_args args;
static char args_buf[EXEC_K_BYTES];
static bool args_busy;

struct exec_args *exec_args_new(void)
{
	if (args_busy)
		return NULL;
	args_busy = true;
	memset(&args, 0, sizeof(args));
	args.buf = args_buf;
	return &args;
}

void exec_args_free(struct exec_args *a)
{
	file_put(a->exe);
	a->exe = NULL;
	if (a == &args)
		args_busy = false;
}

int exec_args_add(struct exec_args *a, struct exec_vec *v, const char *s)
{
	size_t n = strlen(s) + 1;
	if (v->kc >= EXEC_K_MAX || a->used + n > EXEC_K_BYTES)
		return -LX_E2BIG;
	v->k[v->kc++] = memcpy(a->buf + a->used, s, n);
	v->k[v->kc] = NULL;
	a->used += n;
	a->bytes += n;
	return 0;
}

/* argv becomes interp [arg] path argv[1..] (the script's own path replaces argv[0]). */
int exec_args_interp(struct exec_args *a, const char *interp, const char *arg)
{
	struct exec_vec *v = &a->arg;
	char *rest[EXEC_K_MAX + 1];
	int nrest = v->kc > 1 ? v->kc - 1 : 0;
	memcpy(rest, v->k + 1, (size_t)nrest * sizeof(char *));
	if (v->kc)
		a->bytes -= strlen(v->k[0]) + 1;    /* argv[0] goes (its bytes stay in buf) */
	else if (v->uc)
		v->skip++, v->uc--;                 /* the caller's argv[0] goes */
	v->kc = 0;
	int err = exec_args_add(a, v, interp);
	if (!err && arg)
		err = exec_args_add(a, v, arg);
	if (!err)
		err = exec_args_add(a, v, a->path);
	if (!err && v->kc + nrest > EXEC_K_MAX)
		err = -LX_E2BIG;
	if (err)
		return err;
	memcpy(v->k + v->kc, rest, (size_t)nrest * sizeof(char *));
	v->kc += nrest;
	v->k[v->kc] = NULL;
	if (strlen(interp) >= sizeof(a->path))
		return -LX_ENAMETOOLONG;
	a->bytes += strlen(interp) - strlen(a->path);   /* the new program's path replaces the old */
	memcpy(a->path, interp, strlen(interp) + 1);
	return 0;
}

/*
 * Copy the string at u in p to `to`'s memory at `at` (to NULL: only
 * measure), up to `max` bytes with its NUL: the length with the NUL,
 * max + 1 when it is longer, or -EFAULT.
 */
static long user_string(struct proc *p, u64 u, u64 max, struct proc *to, u64 at)
{
	static char chunk[LX_PAGE_SIZE];
	for (u64 n = 0; n <= max;) {
		size_t c = LX_PAGE_SIZE - ((u + n) & (LX_PAGE_SIZE - 1));
		size_t got = copyin_part(p, chunk, u + n, c);
		size_t len = 0;
		while (len < got && chunk[len])
			len++;
		if (len == got && got < c)
			return -LX_EFAULT;
		bool end = len < got;
		size_t keep = end ? len + 1 : got;
		if (end ? n + keep > max : n + keep >= max)
			return (long)max + 1;
		if (to && copyout_part(to, at + n, chunk, keep) < keep)
			return -LX_EFAULT;
		n += keep;
		if (end)
			return (long)n;
	}
	return (long)max + 1;
}

/* Linux's room for the strings and pointers: a quarter of RLIMIT_STACK, within 128 KiB..6 MiB. */
static u64 exec_room(struct proc *p)
{
	u64 lim = p->rlim[LX_RLIMIT_STACK][0] / 4;
	if (lim > (6UL << 20))
		lim = 6UL << 20;
	return lim < (128UL << 10) ? 128UL << 10 : lim;
}

int exec_args_user(struct exec_args *a, struct exec_vec *v, u64 uvec)
{
	struct proc *p = a->from;
	u64 room = exec_room(p);
	v->uvec = uvec;
	for (u64 i = 0; uvec; i++) {
		u64 ptr;
		if (!copyin(p, &ptr, uvec + i * 8, 8))
			return -LX_EFAULT;
		if (!ptr)
			return 0;
		long n = user_string(p, ptr, EXEC_MAX_STRLEN, NULL, 0);
		if (n < 0)
			return (int)n;
		u64 ptrs = (u64)(a->arg.kc + a->arg.uc + a->env.kc + a->env.uc + 1) * 8;
		if (n > EXEC_MAX_STRLEN || a->bytes + (u64)n + ptrs > room || v->uc == 0x7fffffff)
			return -LX_E2BIG;
		a->bytes += (u64)n;
		v->uc++;
	}
	return 0;
}

long exec_arg_copy(struct exec_args *a, struct exec_vec *v, int i, struct proc *to, u64 at, u64 room)
{
	if (i < v->kc) {
		size_t n = strlen(v->k[i]) + 1;
		if (n > room || !copyout(to, at, v->k[i], n))
			return -LX_EFAULT;
		return (long)n;
	}
	u64 ptr;
	if (!copyin(a->from, &ptr, v->uvec + (u64)(v->skip + i - v->kc) * 8, 8) || !ptr)
		return -LX_EFAULT;
	long n = user_string(a->from, ptr, room, to, at);
	return n > (long)room ? -LX_E2BIG : n;      /* it grew since it was counted */
}

/* execveat's name for a program found from a descriptor: /dev/fd/N, then /rest if any. */
static long fd_path(char *out, int fd, const char *rest)
{
	char num[12];
	int n = 0;
	do
		num[n++] = (char)('0' + fd % 10);
	while ((fd /= 10));
	size_t len = 8 + (size_t)n + (*rest ? 1 + strlen(rest) : 0);
	if (len >= LX_PATH_MAX)
		return -LX_ENAMETOOLONG;
	memcpy(out, "/dev/fd/", 8);
	for (int i = 0; i < n; i++)
		out[8 + i] = num[n - 1 - i];
	out[8 + n] = 0;
	if (*rest) {
		out[8 + n] = '/';
		memcpy(out + 9 + n, rest, strlen(rest) + 1);
	}
	return (long)len;
}

/*
 * Where execveat's lookup starts (exec_args.at), after the arguments were
 * counted, as Linux's do_open_execat: 0 or -errno.  An absolute path or
 * AT_FDCWD starts as execve's; otherwise the program's name becomes
 * /dev/fd/N[/path] (AT_EXECFN, a script's argument).
 */
static long exec_at(struct thread *t, struct exec_args *a, u64 dirfd, u64 flags)
{
	static char first[LX_PATH_MAX];         /* one execve at a time, as args */
	if (flags & ~(u64)(LX_AT_EMPTY_PATH | LX_AT_SYMLINK_NOFOLLOW))
		return -LX_EINVAL;
	bool empty = !a->path[0];
	if (empty && !(flags & LX_AT_EMPTY_PATH))
		return -LX_ENOENT;
	memcpy(first, a->path, strlen(a->path) + 1);
	a->at.nofollow = flags & LX_AT_SYMLINK_NOFOLLOW;
	a->at.first = empty ? NULL : first;
	if (!empty && (a->path[0] == '/' || (int)dirfd == LX_AT_FDCWD))
		return 0;
	if (empty && (int)dirfd == LX_AT_FDCWD)
		return -LX_EACCES;                  /* the cwd itself: a directory */
	struct file *f = fd_get(t->proc, (int)dirfd);
	if (!f)
		return -LX_EBADF;
	if (!empty && (!f->ip || !LX_S_ISDIR(f->ip->mode)))
		return -LX_ENOTDIR;
	a->at.dir = empty ? NULL : f->ip;
	a->at.self = empty ? f : NULL;
	a->at.path_gone = fd_cloexec(t->proc, (int)dirfd);
	long len = fd_path(a->path, (int)dirfd, first);
	if (len < 0)
		return len;
	a->bytes += (u64)len - strlen(first);   /* the name on the new stack (AT_EXECFN) */
	return 0;
}

/* execve and execveat: the path and both vectors counted, then the program run. */
static long exec_common(struct thread *t, u64 dirfd, u64 path, u64 argv, u64 envp, u64 flags)
{
	struct exec_args *a = exec_args_new();
	if (!a)
		return -LX_ENOMEM;
	a->from = t->proc;
	long err = copyin_str(t->proc, a->path, path, sizeof(a->path));
	if (err >= 0) {
		a->bytes = (u64)err + 1;
		err = exec_args_user(a, &a->arg, argv);
	}
	if (err >= 0)
		err = exec_args_user(a, &a->env, envp);
	if (err >= 0)
		err = exec_at(t, a, dirfd, flags);
	if (err >= 0)
		err = do_execve(t, a);
	exec_args_free(a);
	return err;
}

long sys_execve(struct thread *t, u64 path, u64 argv, u64 envp, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return exec_common(t, (u64)(int64_t)LX_AT_FDCWD, path, argv, envp, 0);
}

long sys_execveat(struct thread *t, u64 dirfd, u64 path, u64 argv, u64 envp, u64 flags, u64 a5)
{
	(void)a5;
	return exec_common(t, dirfd, path, argv, envp, flags);
}

/* /proc's cmdline: argv's strings from the new stack, at most a page (Linux's before 4.2). */
static void set_cmdline(struct proc *p, struct mm *mm, struct exec_args *a)
{
	size_t n = a->arg_bytes < LX_PAGE_SIZE ? a->arg_bytes : LX_PAGE_SIZE;
	struct proc tmp = { .mm = mm };
	lx_free(p->cmdline);
	p->cmdline = lx_malloc(n ? n : 1);
	p->cmdline_len = p->cmdline && copyin(&tmp, p->cmdline, a->arg_start, n) ? n : 0;
	if (n == LX_PAGE_SIZE && p->cmdline_len)
		p->cmdline[n - 1] = 0;
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
	p->execed = true;
	cpu_inherit(n, t);                          /* execve keeps the affinity, as Linux */
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
	aio_exit(p);
	ptimer_exit(p);
	if (p->sig->refs > 1) {
		struct sighand *h = sighand_dup(p->sig);
		if (h) {
			sighand_put(p->sig);
			p->sig = h;
		}
	}
	sighand_exec(p->sig);
	set_cmdline(p, mm, a);
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

/* waitid(P_PGID, g) asks for -(WAIT_PGID + g): -1 would be any child, not group 1 */
#define WAIT_PGID (1L << 32)

static bool wait_matches(struct proc *p, struct proc *c, long pid)
{
	if (pid <= -WAIT_PGID)
		return c->pgid == -pid - WAIT_PGID;
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
	if ((int)pid == INT32_MIN)
		return -LX_ESRCH;                   /* -pid would overflow, as Linux */
	bool any;
	enum report kind;
	struct proc *c = find_report(p, (long)(int)pid, options | WEXITED, &kind, &any);
	if (!c)
		return wait_more(t, any, options);
	int32_t st = kind == REPORT_EXIT ? c->exit_status :
		     kind == REPORT_STOP ? (c->stop_sig << 8) | 0x7f : 0xffff;
	/* as Linux, the report is consumed (a zombie reaped) even when storing it fails */
	bool fault = (status && !copyout(p, status, &st, 4)) ||
		     (rusage && rusage_put(t, rusage, c, false));
	long r = c->pid;
	if (kind == REPORT_EXIT)
		proc_free(c);
	else
		c->wait_report = 0;
	return fault ? -LX_EFAULT : r;
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
	(void)a5;
	struct proc *p = t->proc;
	long pid = idtype == 0 ? -1 : idtype == 1 && (int)id > 0 ? (long)(int)id :
		   idtype == 2 && (int)id >= 0 ? -(WAIT_PGID + ((int)id ? (int)id : p->pgid)) : -2;
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
	if (rusage && rusage_put(t, rusage, c, false))
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

/* sched_yield: the IPC to lx and its answer are the yield; nothing more to do. */
#define NOP_CALL(name) \
	long sys_##name(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) \
	{ (void)t; NOARGS; return 0; }
NOP_CALL(sched_yield)

/* Whether process group pgid has a member in session sid (setpgid may join only such). */
static bool group_in_session(int pgid, int sid)
{
	for (struct proc *o = procs; o; o = o->next_all)
		if (o->pgid == pgid && o->sid == sid && !o->zombie)
			return true;
	return false;
}

long sys_setpgid(struct thread *t, u64 pid, u64 pgid, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct proc *self = t->proc;
	if ((int)pgid < 0 || (int)pid < 0)
		return -LX_EINVAL;
	struct proc *p = (int)pid == 0 ? self : proc_by_pid((int)pid);
	if (!p || (p != self && p->parent != self))
		return -LX_ESRCH;
	if (p->sid != self->sid || p->sid == p->pid)
		return -LX_EPERM;
	if (p != self && p->execed)
		return -LX_EACCES;
	int to = (int)pgid ? (int)pgid : p->pid;
	if (to != p->pid && !group_in_session(to, self->sid))
		return -LX_EPERM;
	p->pgid = to;
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
