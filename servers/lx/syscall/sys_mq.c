// SPDX-License-Identifier: MIT
// POSIX message queues (mq_overview(7)): named queues of prioritised
// messages, opened as descriptors.  A queue lives while it has a name or
// an open descriptor.  Senders and receivers that must wait park on the
// queue (the descriptor's wait channel, so poll and select see it too) and
// run again when it changes; their timeouts are CLOCK_REALTIME points.
// mq_notify delivers SIGEV_SIGNAL and SIGEV_NONE; SIGEV_THREAD, which the C
// libraries build on a netlink socket, is refused with the socket (lx has
// no AF_NETLINK).
#include "syscall.h"
#include "../../../lib/c/string.h"

#define MQ_PRIO_MAX 32768
#define DFLT_MAXMSG 10                      /* /proc/sys/fs/mqueue/msg_default, msg_max */
#define DFLT_MSGSIZE 8192                   /* msgsize_default, msgsize_max */
#define HARD_MAXMSG 65536
#define HARD_MSGSIZE (16 << 20)
#define SIGEV_SIGNAL 0
#define SIGEV_NONE 1

struct mq_attr { int64_t flags, maxmsg, msgsize, curmsgs, pad[4]; };

struct mqmsg {
	struct mqmsg *next;
	u32 prio;
	size_t len;
	char data[];
};

struct mqueue {
	struct mqueue *next;                /* in the names' list while it has a name */
	char name[LX_NAME_MAX + 1];
	u32 opens;
	bool named;
	u32 mode;
	int64_t maxmsg, msgsize, curmsgs;
	struct mqmsg *msgs;                 /* highest priority first, FIFO within one */
	int notify_pid, notify_sig;         /* mq_notify's registration: pid 0 = none */
};

static struct mqueue *names;

static struct mqueue *mq_find(const char *name)
{
	for (struct mqueue *q = names; q; q = q->next)
		if (!strcmp(q->name, name))
			return q;
	return NULL;
}

static void mq_drop(struct mqueue *q)
{
	if (q->opens || q->named)
		return;
	while (q->msgs) {
		struct mqmsg *m = q->msgs;
		q->msgs = m->next;
		lx_free(m);
	}
	lx_free(q);
}

static void unname(struct mqueue *q)
{
	for (struct mqueue **pp = &names; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	q->named = false;
}

/* --- the descriptor --- */

static int mq_poll(struct file *f)
{
	struct mqueue *q = f->priv;
	return (q->curmsgs ? LX_POLLIN : 0) | (q->curmsgs < q->maxmsg ? LX_POLLOUT : 0);
}

static long mq_no_rw(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EBADF;                       /* data moves by mq_timedsend/receive */
}

static long mq_no_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EBADF;
}

static void mq_release(struct file *f)
{
	struct mqueue *q = f->priv;
	q->opens--;
	mq_drop(q);
}

/* The queue is the wait channel of every descriptor of it. */
static void *mq_wchan(struct file *f)
{
	return f->priv;
}

static const struct file_ops mq_ops = {
	.read = mq_no_rw, .write = mq_no_write, .poll = mq_poll, .wchan = mq_wchan,
	.ioctl = file_no_ioctl, .release = mq_release,
};

static struct file *mq_file(struct thread *t, u64 fd)
{
	struct file *f = fd_get(t->proc, (int)fd);
	return f && f->ops == &mq_ops ? f : NULL;
}

/* --- mq_open, mq_unlink --- */

/* The name the C library passes (its leading slash removed): 0 or -errno. */
static long mq_name(struct thread *t, u64 uname, char name[LX_NAME_MAX + 1])
{
	long n = copyin_str(t->proc, name, uname, LX_NAME_MAX + 1);
	if (n < 0)
		return n;
	if (!n)
		return -LX_ENOENT;
	for (long i = 0; i < n; i++)
		if (name[i] == '/')
			return -LX_EACCES;
	return 0;
}

static long attr_ok(struct thread *t, u64 uattr, struct mq_attr *a)
{
	a->maxmsg = DFLT_MAXMSG;
	a->msgsize = DFLT_MSGSIZE;
	if (!uattr)
		return 0;
	if (!copyin(t->proc, a, uattr, sizeof(*a)))
		return -LX_EFAULT;
	if (a->maxmsg <= 0 || a->msgsize <= 0)
		return -LX_EINVAL;
	bool big = a->maxmsg > DFLT_MAXMSG || a->msgsize > DFLT_MSGSIZE;
	if ((big && !lx_privileged(t->proc)) || a->maxmsg > HARD_MAXMSG || a->msgsize > HARD_MSGSIZE)
		return -LX_EINVAL;
	return 0;
}

static long mq_create(struct thread *t, const char *name, u64 mode, u64 uattr, struct mqueue **out)
{
	struct mq_attr a;
	long r = attr_ok(t, uattr, &a);
	if (r)
		return r;
	struct mqueue *q = lx_zalloc(sizeof(*q));
	if (!q)
		return -LX_ENOMEM;
	memcpy(q->name, name, strlen(name) + 1);
	q->named = true;
	q->mode = (u32)mode & 07777 & ~t->proc->umask;
	q->maxmsg = a.maxmsg;
	q->msgsize = a.msgsize;
	q->next = names;
	names = q;
	*out = q;
	return 0;
}

long sys_mq_open(struct thread *t, u64 uname, u64 oflag, u64 mode, u64 uattr, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	char name[LX_NAME_MAX + 1];
	long r = mq_name(t, uname, name);
	if (r)
		return r;
	if ((oflag & LX_O_ACCMODE) == LX_O_ACCMODE)
		return -LX_EINVAL;
	struct mqueue *q = mq_find(name);
	if (q && (oflag & LX_O_CREAT) && (oflag & LX_O_EXCL))
		return -LX_EEXIST;
	if (!q && !(oflag & LX_O_CREAT))
		return -LX_ENOENT;
	bool made = !q;
	if (made && (r = mq_create(t, name, mode, uattr, &q)))
		return r;
	struct file *f = file_new(&mq_ops, (u32)oflag & (LX_O_ACCMODE | LX_O_NONBLOCK));
	if (!f) {
		if (made) {
			unname(q);
			mq_drop(q);
		}
		return -LX_ENFILE;
	}
	f->priv = q;
	q->opens++;
	int fd = fd_install(t->proc, f, 0, oflag & LX_O_CLOEXEC);
	if (fd < 0) {
		if (made)
			unname(q);
		file_put(f);
	}
	return fd;
}

long sys_mq_unlink(struct thread *t, u64 uname, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	char name[LX_NAME_MAX + 1];
	long r = mq_name(t, uname, name);
	if (r)
		return r;
	struct mqueue *q = mq_find(name);
	if (!q)
		return -LX_ENOENT;
	unname(q);
	mq_drop(q);
	return 0;
}

/* --- sending and receiving --- */

/* Park until the queue changes or the CLOCK_REALTIME point at uts: SYS_BLOCK or -errno. */
static long mq_wait(struct thread *t, struct file *f, u64 uts)
{
	if (f->flags & LX_O_NONBLOCK)
		return -LX_EAGAIN;
	if (t->timed_out)
		return -LX_ETIMEDOUT;
	if (t->fresh) {
		t->call_deadline = 0;
		if (uts) {
			u64 us;
			long r = copyin_timespec_us(t, uts, &us);
			if (r < 0)
				return r;
			u64 at = wall_to_boot_us(us);
			if (at <= lx_now_us())
				return -LX_ETIMEDOUT;
			t->call_deadline = at;
		}
	}
	block_on(t, f->priv, t->call_deadline);
	return SYS_BLOCK;
}

/* A message to an empty queue with nobody waiting to receive: the registered process's signal. */
static void mq_notify_now(struct mqueue *q)
{
	if (!q->notify_pid)
		return;
	struct proc *p = proc_by_pid(q->notify_pid);
	if (p && !p->zombie && q->notify_sig)
		signal_send_proc(p, q->notify_sig);
	q->notify_pid = 0;
}

long sys_mq_timedsend(struct thread *t, u64 fd, u64 umsg, u64 len, u64 prio, u64 uts, u64 a5)
{
	(void)a5;
	struct file *f = mq_file(t, fd);
	if (!f || !file_writable(f))
		return -LX_EBADF;
	struct mqueue *q = f->priv;
	if (prio >= MQ_PRIO_MAX)
		return -LX_EINVAL;
	if ((int64_t)len > q->msgsize)
		return -LX_EMSGSIZE;
	if (q->curmsgs >= q->maxmsg)
		return mq_wait(t, f, uts);
	struct mqmsg *m = lx_malloc(sizeof(*m) + len);
	if (!m)
		return -LX_ENOMEM;
	if (!copyin(t->proc, m->data, umsg, len)) {
		lx_free(m);
		return -LX_EFAULT;
	}
	m->prio = (u32)prio;
	m->len = len;
	struct mqmsg **pp = &q->msgs;
	while (*pp && (*pp)->prio >= m->prio)
		pp = &(*pp)->next;
	m->next = *pp;
	*pp = m;
	if (q->curmsgs++ == 0)
		mq_notify_now(q);
	wake(q);
	return 0;
}

long sys_mq_timedreceive(struct thread *t, u64 fd, u64 ubuf, u64 len, u64 uprio, u64 uts, u64 a5)
{
	(void)a5;
	struct file *f = mq_file(t, fd);
	if (!f || !file_readable(f))
		return -LX_EBADF;
	struct mqueue *q = f->priv;
	if ((int64_t)len < q->msgsize)
		return -LX_EMSGSIZE;
	if (!q->msgs)
		return mq_wait(t, f, uts);
	struct mqmsg *m = q->msgs;
	u32 prio = m->prio;
	if (!copyout(t->proc, ubuf, m->data, m->len) || (uprio && !copyout(t->proc, uprio, &prio, 4)))
		return -LX_EFAULT;
	long n = (long)m->len;
	q->msgs = m->next;
	q->curmsgs--;
	lx_free(m);
	wake(q);
	return n;
}

/* --- mq_notify, mq_getsetattr --- */

long sys_mq_notify(struct thread *t, u64 fd, u64 usev, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = mq_file(t, fd);
	if (!f)
		return -LX_EBADF;
	struct mqueue *q = f->priv;
	if (!usev) {
		if (q->notify_pid == t->proc->pid)
			q->notify_pid = 0;
		return 0;
	}
	struct { u64 value; int32_t signo, notify; } sev;
	if (!copyin(t->proc, &sev, usev, sizeof(sev)))
		return -LX_EFAULT;
	if (sev.notify != SIGEV_SIGNAL && sev.notify != SIGEV_NONE)
		return -LX_EINVAL;
	if (sev.notify == SIGEV_SIGNAL && (sev.signo <= 0 || sev.signo > LX_NSIG))
		return -LX_EINVAL;
	if (q->notify_pid && proc_by_pid(q->notify_pid))
		return -LX_EBUSY;
	q->notify_pid = t->proc->pid;
	q->notify_sig = sev.notify == SIGEV_SIGNAL ? sev.signo : 0;
	return 0;
}

long sys_mq_getsetattr(struct thread *t, u64 fd, u64 unew, u64 uold, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct file *f = mq_file(t, fd);
	if (!f)
		return -LX_EBADF;
	struct mqueue *q = f->priv;
	struct mq_attr n;
	if (unew) {
		if (!copyin(t->proc, &n, unew, sizeof(n)))
			return -LX_EFAULT;
		if (n.flags & ~(int64_t)LX_O_NONBLOCK)
			return -LX_EINVAL;
	}
	struct mq_attr old = { .flags = f->flags & LX_O_NONBLOCK, .maxmsg = q->maxmsg,
			       .msgsize = q->msgsize, .curmsgs = q->curmsgs };
	if (uold && !copyout(t->proc, uold, &old, sizeof(old)))
		return -LX_EFAULT;
	if (unew)
		f->flags = (f->flags & ~(u32)LX_O_NONBLOCK) | ((u32)n.flags & LX_O_NONBLOCK);
	return 0;
}
