// SPDX-License-Identifier: MIT
// pidfd: a descriptor naming a process (pidfd_open(2)), readable (POLLIN)
// once it has exited, a target for pidfd_send_signal, and the way to
// duplicate one of the process's descriptors (pidfd_getfd).  It names the
// process by pid and start time, so a reused pid is another process.
// Exit wakes pollers through proc_exit's wake of the parent (every wake()
// runs poll_any's waiters again).
#include "../lx.h"
#include "../../../lib/c/string.h"

struct pidfd {
	int pid;
	u64 start_time;
};

static const struct file_ops pidfd_ops;

/* The process the pidfd names, zombie or not; NULL once reaped. */
static struct proc *target(const struct pidfd *pf)
{
	struct proc *p = proc_by_pid(pf->pid);
	return p && p->start_time == pf->start_time ? p : NULL;
}

static long pidfd_rw(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static long pidfd_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static int pidfd_poll(struct file *f)
{
	struct proc *p = target(f->priv);
	if (!p)
		return LX_POLLIN | LX_POLLHUP;
	return p->zombie ? LX_POLLIN : 0;
}

static void pidfd_release(struct file *f)
{
	lx_free(f->priv);
}

static const struct file_ops pidfd_ops = {
	.read = pidfd_rw, .write = pidfd_write, .poll = pidfd_poll, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl, .release = pidfd_release,
};

long sys_pidfd_open(struct thread *t, u64 pid, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	if ((flags & ~(u64)LX_O_NONBLOCK) || (int)pid <= 0)
		return -LX_EINVAL;
	struct proc *p = proc_by_pid((int)pid);
	if (!p)
		return -LX_ESRCH;
	struct pidfd *pf = lx_zalloc(sizeof(*pf));
	struct file *f = pf ? file_new(&pidfd_ops, LX_O_RDWR | ((u32)flags & LX_O_NONBLOCK)) : NULL;
	if (!f) {
		lx_free(pf);
		return -LX_ENOMEM;
	}
	*pf = (struct pidfd){ p->pid, p->start_time };
	f->priv = pf;
	int fd = fd_install(t->proc, f, 0, true);      /* a pidfd is always close-on-exec */
	if (fd < 0)
		file_put(f);
	return fd;
}

long pidfd_pid(struct proc *p, int fd)
{
	struct file *f = fd_get(p, fd);
	if (!f || f->ops != &pidfd_ops)
		return -LX_EBADF;
	return ((struct pidfd *)f->priv)->pid;
}

struct siginfo_head {
	int32_t signo, err, code;
};

long sys_pidfd_send_signal(struct thread *t, u64 fd, u64 sig, u64 uinfo, u64 flags, u64 a4,
			   u64 a5)
{
	(void)a4, (void)a5;
	if (flags)
		return -LX_EINVAL;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f || f->ops != &pidfd_ops)
		return -LX_EBADF;
	if (sig > LX_NSIG)
		return -LX_EINVAL;
	struct proc *p = target(f->priv);
	if (uinfo) {
		struct siginfo_head si;
		if (!copyin(t->proc, &si, uinfo, sizeof(si)))
			return -LX_EFAULT;
		if (si.signo != (int32_t)sig)
			return -LX_EINVAL;
		if (p != t->proc && (si.code >= 0 || si.code == -6 /* SI_TKILL */))
			return -LX_EPERM;
	}
	if (!p)
		return -LX_ESRCH;
	if (sig && !p->zombie)
		signal_send_proc(p, (int)sig);
	return 0;
}

/*
 * Linux's ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS) without Yama or
 * LSMs: the caller itself, a caller with CAP_SYS_PTRACE (root, as lx's
 * capabilities go), or one whose real uid and gid are each of p's real,
 * effective and saved ids while p is dumpable.
 */
static bool may_attach(struct proc *caller, const struct proc *p)
{
	const struct cred *c = &caller->cred, *o = &p->cred;
	if (caller == p || lx_privileged(caller))
		return true;
	return c->uid == o->uid && c->uid == o->euid && c->uid == o->suid && c->gid == o->gid &&
	       c->gid == o->egid && c->gid == o->sgid && p->attrs.dumpable == 1;
}

/* pidfd_getfd(2): a duplicate of descriptor targetfd of the process, close-on-exec. */
long sys_pidfd_getfd(struct thread *t, u64 pidfd, u64 targetfd, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	if (flags)
		return -LX_EINVAL;
	struct file *pf = fd_get(t->proc, (int)pidfd);
	if (!pf || pf->ops != &pidfd_ops)
		return -LX_EBADF;
	struct proc *p = target(pf->priv);
	if (!p || p->zombie)
		return -LX_ESRCH;       /* gone, or its descriptors closed by exit */
	if (!may_attach(t->proc, p))
		return -LX_EPERM;
	struct file *f = fd_get(p, (int)targetfd);
	if (!f)
		return -LX_EBADF;
	file_get(f);
	int fd = fd_install(t->proc, f, 0, true);
	if (fd < 0)
		file_put(f);
	return fd;
}
