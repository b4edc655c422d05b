// SPDX-License-Identifier: MIT
// Processes and threads: each Linux thread is an L4 thread, each memory
// (struct mm) an L4 space.  lx is pager and scheduler of them all; a new
// thread starts in lx's stub page, which makes lx its exception handler and
// asks for its registers (docs/lx.md "Starting a thread").
#include "../lx.h"
#include "proc.h"
#include <l4/kip.h>
#include "../../../lib/c/string.h"

#define FIRST_TNO   LX_FIRST_TNO
#define LAST_TNO    LX_LAST_TNO
#define PROC_PRIO   100                 /* below lx (255) and its drivers (250) */
/* a generous estimate of the kernel memory one process's space and thread take */

struct proc *procs;
struct proc *init_proc;
u64 procs_created;
struct thread *thread_by_tno[LAST_TNO + 1];
static uint8_t version[LAST_TNO + 1];
static int next_pid = 1;
static int nprocs;

struct proc *proc_by_pid(int pid)
{
	for (struct proc *p = procs; p; p = p->next_all)
		if (p->pid == pid)
			return p;
	return NULL;
}

int proc_count(void) { return nprocs; }

static L4_ThreadId_t tno_alloc(void)
{
	static u64 next = FIRST_TNO;
	for (int i = 0; i <= LAST_TNO - FIRST_TNO; i++) {
		u64 no = next;
		next = next == LAST_TNO ? FIRST_TNO : next + 1;
		if (!thread_by_tno[no]) {
			version[no] = (uint8_t)(version[no] % 63 + 1);     /* 1..63: never a local ID */
			return l4_global_id(no, version[no]);
		}
	}
	return L4_NILTHREAD;
}

static int utcb_alloc(struct mm *mm)
{
	for (unsigned w = 0; w < sizeof(mm->utcb_used) / 8; w++)
		if (~mm->utcb_used[w]) {
			unsigned b = (unsigned)__builtin_ctzl(~mm->utcb_used[w]);
			mm->utcb_used[w] |= 1UL << b;
			return (int)(w * 64 + b);
		}
	return -1;
}

static void utcb_release(struct mm *mm, u64 utcb)
{
	u64 slot = (utcb - LX_UTCB_AREA) / UTCB_SIZE;
	mm->utcb_used[slot / 64] &= ~(1UL << (slot % 64));
}

/*
 * A process space's kernel-memory quota, in pages: the whole pool, so that
 * a big process is bounded by the pool's shared reserve (the kernel keeps an
 * eighth from every unprivileged space) and lx's OOM killer, not by the
 * default sixteenth (1.75 MiB at 256 MiB: mapping nodes for 80 MiB).
 */
bool lx_confine = true;

static L4_Word_t kmem_quota(void)
{
	return lx_kip_word(KIP_OFF_KMEM_SIZE) / LX_PAGE_SIZE;
}

/* Create the L4 thread t in mm's space (a new space if mm has none yet). */
static int l4_create(struct thread *t, struct mm *mm)
{
	int slot = utcb_alloc(mm);
	if (slot < 0) {
		lx_exhausted(RES_UTCB_SLOTS);
		return -LX_EAGAIN;
	}
	t->utcb = LX_UTCB_AREA + (u64)slot * UTCB_SIZE;
	bool fresh = mm->space_tid == L4_NILTHREAD;
	L4_ThreadId_t space = fresh ? t->tid : mm->space_tid;
	if (fresh && (!L4_ThreadControl(t->tid, t->tid, lx_id, L4_NILTHREAD, ~0UL) ||
		      !L4_SpaceControl(t->tid, (lx_confine ? PECAN_SPACE_STRICT : 0) | kmem_quota(),
				       L4_FPAGE_MAKE(LX_KIP_AREA, 12, 0), L4_FPAGE_MAKE(LX_UTCB_AREA, LX_UTCB_LOG2, 0),
				       lx_confine ? lx_id : L4_NILTHREAD, 0)))
		goto fail;
	if (!L4_ThreadControl(t->tid, space, lx_id, lx_id, t->utcb))
		goto fail;
	if (fresh)
		mm->space_tid = t->tid;
	L4_Set_Priority(t->tid, PROC_PRIO);
	mm->nthreads++;
	return 0;
fail:
	if (fresh)
		L4_ThreadControl(t->tid, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
	utcb_release(mm, t->utcb);
	if (L4_ErrorCode() != 8)
		return -LX_EAGAIN;
	lx_exhausted(RES_KMEM_QUOTA);
	return -LX_ENOMEM;
}

/* A new thread of p in p->mm, not yet started; NULL with *err set. */
struct thread *thread_new(struct proc *p, int *err)
{
	struct thread *t = lx_zalloc(sizeof(*t));
	*err = -LX_ENOMEM;
	if (!t)
		return NULL;
	t->tid = tno_alloc();
	*err = -LX_EAGAIN;
	if (t->tid == L4_NILTHREAD) {
		lx_exhausted(RES_THREAD_NOS);
		lx_free(t);
		return NULL;
	}
	t->proc = p;
	*err = l4_create(t, p->mm);
	if (*err) {
		lx_free(t);
		return NULL;
	}
	thread_by_tno[l4_thread_no(t->tid)] = t;
	t->mm = p->mm;
	t->mm->refs++;
	t->next_in_proc = p->threads;
	p->threads = t;
	p->nthreads++;
	t->state = T_STARTING;
	return t;
}

/* The start message: the thread runs lx's stub, which asks for its registers. */
int thread_start(struct thread *t)
{
	reply_flush();
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, LX_STUB_PAGE);
	L4_SetMR(2, 0);
	return L4_IpcFailed(L4_Reply(t->tid)) ? -LX_EAGAIN : 0;
}

/* Delete t's L4 thread; its space goes with its last thread. */
static void l4_delete(struct thread *t)
{
	struct mm *mm = t->mm;
	L4_ThreadControl(t->tid, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
	thread_by_tno[l4_thread_no(t->tid)] = NULL;
	utcb_release(mm, t->utcb);
	if (!--mm->nthreads)
		sigthread_delete(mm);           /* the space ends with its last Linux thread */
	if (mm->space_tid == t->tid) {
		mm->space_tid = L4_NILTHREAD;
		for (struct proc *p = procs; p; p = p->next_all)
			for (struct thread *o = p->threads; o; o = o->next_in_proc)
				if (o != t && o->mm == mm)
					mm->space_tid = o->tid;
	}
}

static void unlink_thread(struct thread *t)
{
	struct proc *p = t->proc;
	for (struct thread **pp = &p->threads; *pp; pp = &(*pp)->next_in_proc)
		if (*pp == t) {
			*pp = t->next_in_proc;
			break;
		}
	p->nthreads--;
}

/* Forget t entirely (its L4 thread, lx's record, its share of the memory). */
void thread_destroy(struct thread *t)
{
	unblock(t);
	kick_forget(t);
	futex_forget(t);
	signal_forget(t);
	l4_delete(t);
	unlink_thread(t);
	vfork_forget(t);
	mm_put(t->mm);
	lx_free(t);
}

/*
 * The signal thread of mm's space (docs/lx.md "Signals"): an L4 thread in
 * the space, above its Linux threads, running lx_sigthread in the stub page.
 * Not a Linux thread: in no process's list.  NULL without a thread number
 * or kernel memory.
 */
struct thread *sigthread_create(struct mm *mm)
{
	extern const char lx_stub_start[], lx_sigthread[];
	struct thread *t = lx_zalloc(sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tno_alloc();
	if (t->tid == L4_NILTHREAD || mm->space_tid == L4_NILTHREAD || l4_create(t, mm)) {
		lx_free(t);
		return NULL;
	}
	mm->nthreads--;                         /* l4_create counted it */
	thread_by_tno[l4_thread_no(t->tid)] = t;
	t->mm = mm;
	t->is_sigthread = true;
	t->state = T_STARTING;
	t->regs = (struct regs){ .rip = LX_STUB_PAGE + (u64)(lx_sigthread - lx_stub_start),
				 .rflags = 0x202 };
	L4_Set_Priority(t->tid, PROC_PRIO + 1);     /* it runs before the thread it stops */
	mm->sigthread = t;
	mm->sig_waiting = false;
	if (thread_start(t)) {
		sigthread_delete(mm);
		return NULL;
	}
	return t;
}

void sigthread_delete(struct mm *mm)
{
	struct thread *t = mm->sigthread;
	if (!t)
		return;
	mm->sigthread = NULL;
	while (mm->kickq)
		kick_forget(mm->kickq);
	L4_ThreadControl(t->tid, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
	thread_by_tno[l4_thread_no(t->tid)] = NULL;
	utcb_release(mm, t->utcb);
	lx_free(t);
}

/* --- processes --- */

/*
 * Room for another process?  A count limit, and the kernel's memory pool:
 * spaces get nothing from its last eighth, so stop well before that, with
 * EAGAIN for the one forking instead of an L4 error halfway through.
 */
static bool room_for_process(void)
{
	u64 size = lx_kip_word(KIP_OFF_KMEM_SIZE), free = lx_kip_word(KIP_OFF_KMEM_FREE);
	if (nprocs >= LX_MAX_PROCS) {
		lx_exhausted(RES_PROC_TABLE);
		return false;
	}
	if (free <= size / 8 + LX_KMEM_PER_PROC * 4) {
		lx_exhausted(RES_KMEM_POOL);
		return false;
	}
	return true;
}

struct proc *proc_new(struct proc *parent)
{
	if (!room_for_process())
		return NULL;
	struct proc *p = lx_zalloc(sizeof(*p));
	if (!p)
		return NULL;
	while (proc_by_pid(next_pid))
		next_pid = next_pid >= 32767 ? 2 : next_pid + 1;
	p->pid = next_pid;
	next_pid = next_pid >= 32767 ? 2 : next_pid + 1;
	p->parent = parent;
	if (parent) {
		p->ppid = parent->pid;
		p->pgid = parent->pgid;
		p->sid = parent->sid;
		p->umask = parent->umask;
		p->sibling = parent->children;
		parent->children = p;
		memcpy(p->comm, parent->comm, sizeof(p->comm));
		memcpy(p->rlim, parent->rlim, sizeof(p->rlim));
		p->cred = parent->cred;
		if (p->cred.groups)
			p->cred.groups->refs++;
		if ((p->exe = parent->exe))
			file_get(p->exe);
		p->attrs = parent->attrs;
	} else {
		p->pgid = p->sid = p->pid;
		p->umask = 022;
		rlimits_default(p);
		attrs_default(p);
	}
	p->start_time = lx_now_us();
	p->next_all = procs;
	procs = p;
	nprocs++;
	procs_created++;
	return p;
}

static void unlink_child(struct proc *p)
{
	if (!p->parent)
		return;
	for (struct proc **pp = &p->parent->children; *pp; pp = &(*pp)->sibling)
		if (*pp == p) {
			*pp = p->sibling;
			break;
		}
}

/* Free a reaped zombie. */
void proc_free(struct proc *p)
{
	unlink_child(p);
	for (struct proc **pp = &procs; *pp; pp = &(*pp)->next_all)
		if (*pp == p) {
			*pp = p->next_all;
			break;
		}
	nprocs--;
	deadlines_changed();
	if (p->parent)
		p->parent->cutime_us += p->utime_us + p->cutime_us;
	file_put(p->exe);
	lx_free(p->cmdline);
	groups_put(p->cred.groups);
	lx_free(p);
}

/* p's children go to its nearest living ancestor that is a subreaper
 * (prctl PR_SET_CHILD_SUBREAPER), else to init; zombies among them are its to reap.
 * A process group the exit orphans with a stopped member gets SIGHUP and SIGCONT
 * (job_orphaned). */
static void reparent_children(struct proc *p)
{
	struct proc *to = p->parent;
	while (to && (to->zombie || !to->subreaper))
		to = to->parent;
	if (!to)
		to = init_proc;
	while (p->children) {
		struct proc *c = p->children;
		p->children = c->sibling;
		if (c->pdeath_sig && !c->zombie) {
			struct lx_siginfo si = { .signo = c->pdeath_sig, .code = LX_SI_USER, .pid = p->pid,
						 .uid = p->cred.uid };
			signal_send_proc_info(c, &si);
		}
		c->parent = to;
		c->ppid = to ? to->pid : 0;
		if (to) {
			c->sibling = to->children;
			to->children = c;
		}
		if (c->pgid != p->pgid && c->sid == p->sid)
			job_orphaned(c->pgid);
	}
	struct proc *q = p->parent;
	if (q && q->pgid != p->pgid && q->sid == p->sid)
		job_orphaned(p->pgid);
	if (to)
		wake(to);
}

static void release_resources(struct proc *p)
{
	lock_exit(p);
	aio_exit(p);
	ptimer_exit(p);
	fdtable_put(p->fds);
	p->fds = NULL;
	if (p->cwd)
		fs_put(p->cwd);
	if (p->root)
		fs_put(p->root);
	p->cwd = p->root = NULL;
	sighand_put(p->sig);
	p->sig = NULL;
}

/* The SIGCHLD of a child that ended with wait status `status`. */
static void notify_exit(struct proc *p, int status)
{
	int sig = status & 0x7f;
	struct lx_siginfo si = { .signo = LX_SIGCHLD, .pid = p->pid, .uid = p->cred.uid,
				 .code = !sig ? LX_CLD_EXITED : (status & 0x80) ? LX_CLD_DUMPED : LX_CLD_KILLED,
				 .status = sig ? sig : (status >> 8) & 0xff };
	signal_send_proc_info(p->parent, &si);
}

/* Every thread of p goes; p becomes a zombie with wait status `status`. */
void proc_exit(struct proc *p, int status)
{
	if (p->zombie)
		return;
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		futex_exit_robust(t);
	while (p->threads)
		thread_destroy(p->threads);
	p->zombie = true;
	p->stopped = false;
	p->wait_report = 0;
	signal_proc_gone(p);
	p->exit_status = status;
	deadlines_changed();                    /* its alarm no longer counts */
	release_resources(p);
	vfork_release(p);
	if (p == init_proc)
		lx_init_exited(status);
	reparent_children(p);
	if (p->parent) {
		notify_exit(p, status);
		wake(p->parent);
		if (sigchld_ignored(p->parent))
			proc_free(p);
	}
}

/*
 * The out-of-memory killer, for a page fault lx cannot serve: it kills the
 * process with the most resident pages, as Linux's chooses by size, and
 * never init while another process holds memory; it logs its choice.  True
 * if the victim was another process (the faulter may try again); false if
 * the faulter itself died, whose threads are then gone.
 */
bool oom_kill(struct proc *faulter)
{
	struct proc *victim = NULL;
	for (struct proc *p = procs; p; p = p->next_all)
		if (!p->zombie && p->mm && p->mm->pages && p != init_proc &&
		    (!victim || p->mm->pages > victim->mm->pages))
			victim = p;
	if (!victim)
		victim = faulter;
	lx_log("lx: out of memory: killed process %d (%s), %lu KiB resident\n", victim->pid,
	       victim->comm, (unsigned long)(victim->mm->pages * (LX_PAGE_SIZE >> 10)));
	proc_exit(victim, LX_SIGKILL);
	return victim != faulter;
}

/* One thread leaves (exit, not exit_group): the last one ends the process. */
void thread_exit(struct thread *t, int code)
{
	struct proc *p = t->proc;
	if (p->nthreads == 1) {
		proc_exit(p, (code & 0xff) << 8);
		return;
	}
	futex_exit_robust(t);
	if (t->clear_child_tid) {
		uint32_t zero = 0;
		if (copyout(p, t->clear_child_tid, &zero, 4))
			futex_wake_addr(p, t->clear_child_tid, 1);
	}
	thread_destroy(t);
}

int proc_new_tid(void)
{
	while (proc_by_pid(next_pid))
		next_pid = next_pid >= 32767 ? 2 : next_pid + 1;
	int tid = next_pid;
	next_pid = next_pid >= 32767 ? 2 : next_pid + 1;
	return tid;
}

/* --- the first process --- */

static const char *const init_env[] = { "HOME=/", "PATH=/bin:/sbin:/usr/bin:/usr/sbin",
					"TERM=vt100", "SHELL=/bin/sh", "USER=root", NULL };

/* lx's command line: its own path, then the first program's argv (default /bin/sh). */
static int init_args(struct exec_args *a, const char *cmdline)
{
	char word[256];
	const char *s = cmdline;
	bool first = true;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = 0;
		while (*s && *s != ' ' && n < sizeof(word) - 1)
			word[n++] = *s++;
		word[n] = 0;
		if (!n)
			break;
		if (first) {
			first = false;                  /* lx's own path */
			continue;
		}
		if (!a->arg.kc && (!memcmp(word, "lx.root=", 8) || !memcmp(word, "lx.disk=", 8)))
			continue;                       /* file systems (l4/main.c) */
		if (!a->arg.kc && !memcmp(word, "net.", 4))
			continue;                       /* the network server's (net/server.c) */
		if (!a->arg.kc && !strcmp(word, "lx.trace")) {
			lx_trace = true;                /* log every system call (docs/lx.md) */
			continue;
		}
		if (!a->arg.kc && (!strcmp(word, "lx.confine=0") || !strcmp(word, "lx.confine=1"))) {
			lx_confine = word[11] == '1';   /* only to measure confinement (docs/lx.md) */
			continue;
		}
		if (!a->arg.kc && (!strcmp(word, "lx.fast=0") || !strcmp(word, "lx.fast=1"))) {
			lx_fast_on = word[8] == '1';    /* the fast library path (docs/lx.md) */
			continue;
		}
		if (!a->arg.kc && (!strcmp(word, "lx.vdso=0") || !strcmp(word, "lx.vdso=1"))) {
			lx_vdso_on = word[8] == '1';    /* the vDSO (docs/lx.md): off to measure without it */
			continue;
		}
		if (exec_args_add(a, &a->arg, word))
			return -LX_E2BIG;
	}
	if (!a->arg.kc && exec_args_add(a, &a->arg, "/bin/sh"))
		return -LX_E2BIG;
	for (int i = 0; init_env[i]; i++)
		if (exec_args_add(a, &a->env, init_env[i]))
			return -LX_E2BIG;
	memcpy(a->path, a->arg.k[0], strlen(a->arg.k[0]) + 1);
	a->bytes += strlen(a->path) + 1;
	return 0;
}

static bool init_files(struct proc *p)
{
	struct inode *ip;
	struct file *f;
	struct fs_name where;
	int e = fs_lookup_named(fs_root(), "/dev/console", FS_FOLLOW, &ip, &where);
	if (e) {
		lx_log("lx: /dev/console: error %d\n", e);
		return false;
	}
	p->fds = fdtable_new();
	struct thread dummy = { .proc = p };
	int err = p->fds ? file_open_inode(&dummy, ip, LX_O_RDWR, &f) : -LX_ENOMEM;
	fs_put(ip);
	if (err) {
		fs_name_drop(&where);
		return false;
	}
	file_set_name(f, &where);
	for (int fd = 0; fd < 3; fd++) {
		if (fd)
			file_get(f);
		fd_install(p, f, fd, false);
	}
	return true;
}

bool start_init(const char *cmdline)
{
	struct proc *p = proc_new(NULL);
	struct exec_args *a = exec_args_new();
	if (!p || !a || init_args(a, cmdline))
		return false;
	init_proc = p;
	p->cwd = p->root = fs_root();
	fs_get(p->cwd);
	fs_get(p->root);
	p->sig = sighand_new();
	p->mm = mm_new();
	if (!p->sig || !p->mm || !init_files(p)) {
		lx_log("lx: no memory or no /dev/console for init\n");
		return false;
	}
	tty_set_fg_pgrp(p->pgid);
	int err;
	struct thread *t = thread_new(p, &err);
	mm_put(p->mm);                              /* the creation reference */
	if (!t) {
		lx_log("lx: cannot create init's thread (error %d, ErrorCode %lu)\n", err, L4_ErrorCode());
		return false;
	}
	t->tid_linux = p->pid;
	cpu_inherit(t, NULL);
	long r = do_execve(t, a);
	if (r != SYS_NOREPLY)
		lx_log("lx: cannot run %s (error %ld)\n", a->path, -r);
	exec_args_free(a);
	return r == SYS_NOREPLY;
}
