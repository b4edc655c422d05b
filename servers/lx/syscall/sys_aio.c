// SPDX-License-Identifier: MIT
// Linux's native asynchronous I/O (io_setup(2) and its family), done at
// submission: lx runs each request to its end in io_submit (its files never
// make a read or write of a regular file wait) and queues the completion,
// which io_getevents hands out.  A context's id is the address of a page
// mapped read-only in the process, as Linux's ring is; the page holds no
// ring (its magic is 0), so libaio takes the system call to read events.
// Contexts belong to the process: fork does not pass them on, exec and exit
// destroy them.
#include "syscall.h"
#include "../../../lib/c/string.h"

struct io_event { u64 data, obj; int64_t res, res2; };
struct iocb {
	u64 aio_data;
	u32 aio_key, aio_rw_flags;
	uint16_t aio_lio_opcode;
	int16_t aio_reqprio;
	u32 aio_fildes;
	u64 aio_buf, aio_nbytes;
	int64_t aio_offset;
	u64 aio_reserved2;
	u32 aio_flags, aio_resfd;
};
_Static_assert(sizeof(struct iocb) == 64, "struct iocb");

enum { IOCB_CMD_PREAD = 0, IOCB_CMD_PWRITE = 1, IOCB_CMD_FSYNC = 2, IOCB_CMD_FDSYNC = 3,
       IOCB_CMD_NOOP = 6, IOCB_CMD_PREADV = 7, IOCB_CMD_PWRITEV = 8 };
#define AIO_MAX_NR 65536                    /* /proc/sys/fs/aio-max-nr */

struct aio_ctx {
	struct aio_ctx *next;
	struct proc *owner;
	u64 id;                                 /* the user address of its page */
	u32 max, head, count;                   /* a ring of max completions */
	struct io_event *ev;
};

static struct aio_ctx *contexts;
static u32 aio_nr;                          /* events reserved by every context */

static struct aio_ctx *ctx_of(struct proc *p, u64 id)
{
	for (struct aio_ctx *c = contexts; c; c = c->next)
		if (c->owner == p && c->id == id)
			return c;
	return NULL;
}

static void ctx_free(struct aio_ctx *c, bool unmap)
{
	for (struct aio_ctx **pp = &contexts; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (unmap && c->owner->mm)
		vm_munmap(c->owner, c->id, LX_PAGE_SIZE);
	aio_nr -= c->max;
	wake(c);
	lx_free(c->ev);
	lx_free(c);
}

/* p's contexts go (exec, exit); their pages go with its memory. */
void aio_exit(struct proc *p)
{
	for (struct aio_ctx *c = contexts, *n; c; c = n) {
		n = c->next;
		if (c->owner == p)
			ctx_free(c, false);
	}
}

long sys_io_setup(struct thread *t, u64 nr, u64 uctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	u64 cur;
	if (!copyin(t->proc, &cur, uctx, 8))
		return -LX_EFAULT;
	if (cur || !(u32)nr || (u32)nr > 0x10000000U)
		return -LX_EINVAL;
	if (aio_nr + (u32)nr > AIO_MAX_NR)
		return -LX_EAGAIN;
	struct aio_ctx *c = lx_zalloc(sizeof(*c));
	if (c)
		c->ev = lx_malloc((size_t)(u32)nr * sizeof(struct io_event));
	long addr = c && c->ev ? vm_mmap(t->proc, 0, LX_PAGE_SIZE, 1, 0x22, NULL, 0, false) : -LX_ENOMEM;
	if (addr < 0 || !copyout(t->proc, uctx, &addr, 8)) {
		if (addr >= 0)
			vm_munmap(t->proc, (u64)addr, LX_PAGE_SIZE);
		if (c)
			lx_free(c->ev);
		lx_free(c);
		return addr < 0 ? addr : -LX_EFAULT;
	}
	*c = (struct aio_ctx){ contexts, t->proc, (u64)addr, (u32)nr, 0, 0, c->ev };
	contexts = c;
	aio_nr += c->max;
	return 0;
}

long sys_io_destroy(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	struct aio_ctx *c = ctx_of(t->proc, id);
	if (!c)
		return -LX_EINVAL;
	ctx_free(c, true);
	return 0;
}

/* Run one request to its end: its result (a count or -errno), or -errno refusing it. */
static long run_iocb(struct thread *t, const struct iocb *cb, bool *refused)
{
	*refused = true;
	if (cb->aio_reserved2 || (cb->aio_flags & 1))   /* IOCB_FLAG_RESFD: no eventfd here */
		return -LX_EINVAL;
	if (!fd_get(t->proc, (int)cb->aio_fildes))
		return -LX_EBADF;
	*refused = false;
	u64 fd = cb->aio_fildes, off = (u64)cb->aio_offset;
	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PREAD:
		return sys_pread64(t, fd, cb->aio_buf, cb->aio_nbytes, off, 0, 0);
	case IOCB_CMD_PWRITE:
		return sys_pwrite64(t, fd, cb->aio_buf, cb->aio_nbytes, off, 0, 0);
	case IOCB_CMD_PREADV:
		return sys_preadv(t, fd, cb->aio_buf, cb->aio_nbytes, off, 0, 0);
	case IOCB_CMD_PWRITEV:
		return sys_pwritev(t, fd, cb->aio_buf, cb->aio_nbytes, off, 0, 0);
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		return sys_fsync(t, fd, 0, 0, 0, 0, 0);
	case IOCB_CMD_NOOP:
	default:
		*refused = true;
		return -LX_EINVAL;
	}
}

long sys_io_submit(struct thread *t, u64 id, u64 nr, u64 uiocbpp, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	struct aio_ctx *c = ctx_of(t->proc, id);
	if (!c || (int64_t)nr < 0)
		return -LX_EINVAL;
	long done = 0;
	for (; done < (long)nr; done++) {
		u64 ucb;
		struct iocb cb;
		if (!copyin(t->proc, &ucb, uiocbpp + (u64)done * 8, 8) || !copyin(t->proc, &cb, ucb, sizeof(cb)))
			return done ? done : -LX_EFAULT;
		if (c->count == c->max)
			return done ? done : -LX_EAGAIN;
		bool refused;
		long res = run_iocb(t, &cb, &refused);
		if (res == SYS_BLOCK) {
			unblock(t);                 /* a pipe or socket would wait: not here */
			res = -LX_EAGAIN;
		}
		if (refused)
			return done ? done : res;
		c->ev[(c->head + c->count++) % c->max] = (struct io_event){ cb.aio_data, ucb, res, 0 };
	}
	wake(c);
	return done;
}

/* io_getevents(2): at least min_nr events (waiting until the timeout), at most nr. */
long sys_io_getevents(struct thread *t, u64 id, u64 min_nr, u64 nr, u64 uev, u64 uts, u64 a5)
{
	(void)a5;
	struct aio_ctx *c = ctx_of(t->proc, id);
	if (!c || (int64_t)min_nr < 0 || (int64_t)nr < 0 || min_nr > nr)
		return -LX_EINVAL;
	if (t->fresh) {
		u64 us = 0;
		long r = uts ? copyin_timespec_us(t, uts, &us) : 0;
		if (r < 0)
			return r;
		t->call_deadline = uts ? lx_now_us() + us + 1 : 0;     /* 0: none */
	}
	if (c->count < min_nr && !t->timed_out) {
		block_on(t, c, t->call_deadline);
		return SYS_BLOCK;
	}
	long n = 0;
	for (; (u64)n < nr && c->count; n++) {
		if (!copyout(t->proc, uev + (u64)n * sizeof(struct io_event), &c->ev[c->head], sizeof(c->ev[0])))
			return n ? n : -LX_EFAULT;
		c->head = (c->head + 1) % c->max;
		c->count--;
	}
	return n;
}

/* Every request has ended by the time io_submit returns: none is left to cancel. */
long sys_io_cancel(struct thread *t, u64 id, u64 iocb, u64 result, u64 a3, u64 a4, u64 a5)
{
	(void)iocb; (void)result; (void)a3; (void)a4; (void)a5;
	(void)t; (void)id;
	return -LX_EINVAL;                          /* as Linux for a request not in flight */
}

/* io_pgetevents(2): io_getevents under a temporary signal mask (as ppoll's). */
long sys_io_pgetevents(struct thread *t, u64 id, u64 min_nr, u64 nr, u64 uev, u64 uts, u64 usig)
{
	struct { u64 mask, size; } sig = { 0, 0 };
	if (usig && !copyin(t->proc, &sig, usig, sizeof(sig)))
		return -LX_EFAULT;
	if (sig.mask) {
		u64 m;
		if (sig.size != sizeof(m))
			return -LX_EINVAL;
		if (!copyin(t->proc, &m, sig.mask, sizeof(m)))
			return -LX_EFAULT;
		if (!t->restore_sigmask) {
			t->saved_sigmask = t->sigmask;
			t->restore_sigmask = true;
		}
		t->sigmask = m & ~(SIGBIT(LX_SIGKILL) | SIGBIT(LX_SIGSTOP));
	}
	long r = sys_io_getevents(t, id, min_nr, nr, uev, uts, 0);
	if (r != SYS_BLOCK && sig.mask && t->restore_sigmask) {
		t->sigmask = t->saved_sigmask;      /* returned, not interrupted: the mask goes back now */
		t->restore_sigmask = false;
	}
	return r;
}
