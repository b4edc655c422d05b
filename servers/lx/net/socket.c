// SPDX-License-Identifier: MIT
// The socket system calls: the one place that knows every socket family.
// socket(2) and socketpair(2) pick a family from the table; every later call
// finds the family of its descriptor and runs the family's operation.  The
// message calls are decoded here once (iovecs, addresses, SIGPIPE).
#include "../vfs/vfs.h"
#include "net.h"
#include "../syscall/syscall.h"
#include "../../../lib/c/string.h"

static const struct sock_family *const families[] = { &unix_family, &inet_family };
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* The type is checked first, as Linux does, then the family decides the rest. */
static const struct sock_family *family(u64 domain, u64 type, long *err)
{
	u64 base = type & ~(u64)(LX_SOCK_NONBLOCK | LX_SOCK_CLOEXEC);
	*err = -LX_EINVAL;
	if (base >= LX_SOCK_TYPES || (int)type < 0)
		return NULL;
	*err = -LX_EAFNOSUPPORT;
	for (unsigned i = 0; i < NFAMILIES; i++)
		if ((u64)families[i]->domain == domain || (families[i]->domain2 && (u64)families[i]->domain2 == domain))
			return families[i];
	return NULL;
}

long sys_socket(struct thread *t, u64 domain, u64 type, u64 proto, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	long err;
	const struct sock_family *f = family(domain, type, &err);
	return f ? f->socket(t, domain, type, proto) : err;
}

long sys_socketpair(struct thread *t, u64 domain, u64 type, u64 proto, u64 usv, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	long err;
	const struct sock_family *f = family(domain, type, &err);
	return f ? f->socketpair(t, domain, type, proto, usv) : err;
}

long sock_new_fd(struct thread *t, const struct file_ops *ops, void *priv, u32 flags)
{
	struct file *f = file_new(NULL, LX_O_RDWR | (flags & LX_SOCK_NONBLOCK));
	if (!f)
		return -LX_ENOMEM;
	int fd = fd_install(t->proc, f, 0, flags & LX_SOCK_CLOEXEC);
	if (fd < 0) {
		file_put(f);
		return fd;
	}
	f->ops = ops;
	f->priv = priv;
	return fd;
}

/* The socket behind fd and its family's calls; NULL with -EBADF or -ENOTSOCK in *err. */
static struct file *sock_file(struct thread *t, u64 fd, const struct sock_ops **ops, long *err)
{
	struct file *f = fd_get(t->proc, (int)fd);
	*err = -LX_EBADF;
	if (!f)
		return NULL;
	for (unsigned i = 0; i < NFAMILIES; i++)
		if (f->ops == families[i]->fops || (families[i]->fops2 && f->ops == families[i]->fops2)) {
			*ops = families[i]->ops;
			return f;
		}
	*err = -LX_ENOTSOCK;
	return NULL;
}

/* Decode fd for a socket call: f and ops, or return the error. */
#define SOCK_CALL(t, fd, f, ops)                                  \
	long err_;                                                \
	const struct sock_ops *ops;                               \
	struct file *f = sock_file(t, fd, &ops, &err_);           \
	if (!f)                                                   \
		return err_

long sys_bind(struct thread *t, u64 fd, u64 uaddr, u64 len, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->bind(t, f, uaddr, len);
}

long sys_listen(struct thread *t, u64 fd, u64 backlog, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->listen(t, f, (int)backlog);
}

static long do_accept(struct thread *t, u64 fd, u64 uaddr, u64 ulen, u64 flags)
{
	SOCK_CALL(t, fd, f, ops);
	if (flags & ~(u64)(LX_SOCK_NONBLOCK | LX_SOCK_CLOEXEC))
		return -LX_EINVAL;
	return ops->accept(t, f, uaddr, ulen, (u32)flags);
}

long sys_accept(struct thread *t, u64 fd, u64 uaddr, u64 ulen, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return do_accept(t, fd, uaddr, ulen, 0);
}

long sys_accept4(struct thread *t, u64 fd, u64 uaddr, u64 ulen, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_accept(t, fd, uaddr, ulen, flags);
}

long sys_connect(struct thread *t, u64 fd, u64 uaddr, u64 len, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->connect(t, f, uaddr, len);
}

long sys_shutdown(struct thread *t, u64 fd, u64 how, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	SOCK_CALL(t, fd, f, ops);
	if (how > 2)
		return -LX_EINVAL;
	return ops->shutdown(t, f, (int)how);
}

long sys_getsockname(struct thread *t, u64 fd, u64 uaddr, u64 ulen, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->name(t, f, uaddr, ulen, false);
}

long sys_getpeername(struct thread *t, u64 fd, u64 uaddr, u64 ulen, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->name(t, f, uaddr, ulen, true);
}

long sys_setsockopt(struct thread *t, u64 fd, u64 level, u64 name, u64 val, u64 len, u64 a5)
{
	(void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->setsockopt(t, f, (int)level, (int)name, val, len);
}

long sys_getsockopt(struct thread *t, u64 fd, u64 level, u64 name, u64 uval, u64 ulen, u64 a5)
{
	(void)a5;
	SOCK_CALL(t, fd, f, ops);
	return ops->getsockopt(t, f, (int)level, (int)name, uval, ulen);
}

/* --- messages --- */

struct lx_msghdr {
	u64 name;
	u32 namelen, pad0;
	u64 iov, iovlen;
	u64 control, controllen;
	int32_t flags, pad1;
};

#define IOV_MAX 1024

static struct sock_iovec msg_iov[IOV_MAX];

/* The iovec array of a message; its total in *total.  0 or -errno. */
static long get_iov(struct thread *t, u64 uiov, u64 cnt, struct sock_iovec *iov, size_t *total)
{
	if (cnt > IOV_MAX)
		return -LX_EMSGSIZE;
	if (!copyin(t->proc, iov, uiov, cnt * sizeof(*iov)))
		return -LX_EFAULT;
	*total = 0;
	for (u64 i = 0; i < cnt; i++) {
		if ((int64_t)iov[i].len < 0 || *total + iov[i].len > 0x7ffff000UL)
			return -LX_EINVAL;
		*total += iov[i].len;
	}
	return 0;
}

/*
 * The out-parameters of getsockname/getpeername/accept (report: the whole
 * length, as Linux reports an address's) and of getsockopt (report: what was
 * copied): min(room, len) bytes of data to ubuf, then the length to ulen.
 */
long sock_put_sized(struct thread *t, u64 ubuf, u64 ulen, int room, const void *data, int len, bool whole)
{
	int c = room < len ? room : len, told = whole ? len : c;
	if ((c && !copyout(t->proc, ubuf, data, (size_t)c)) || !copyout(t->proc, ulen, &told, sizeof(told)))
		return -LX_EFAULT;
	return 0;
}

bool sock_gather(struct thread *t, const struct sock_iovec *iov, u64 cnt, size_t skip, char *buf, size_t n)
{
	for (u64 i = 0; i < cnt && n; i++) {
		if (skip >= iov[i].len) {
			skip -= iov[i].len;
			continue;
		}
		size_t c = iov[i].len - skip < n ? iov[i].len - skip : n;
		if (copyin_part(t->proc, buf, iov[i].base + skip, c) != c)
			return false;
		buf += c;
		n -= c;
		skip = 0;
	}
	return true;
}

size_t sock_scatter(struct thread *t, const struct sock_iovec *iov, u64 cnt, const char *buf, size_t n)
{
	size_t done = 0;
	for (u64 i = 0; i < cnt && done < n; i++) {
		size_t c = iov[i].len < n - done ? iov[i].len : n - done;
		size_t got = copyout_part(t->proc, iov[i].base, buf + done, c);
		done += got;
		if (got < c)
			break;
	}
	return done;
}

/* Send m on fd; a broken connection raises SIGPIPE unless MSG_NOSIGNAL. */
static long do_send(struct thread *t, u64 fd, struct sock_msg *m)
{
	SOCK_CALL(t, fd, f, ops);
	long r = ops->send(t, f, m);
	if (r == -LX_EPIPE && !(m->flags & LX_MSG_NOSIGNAL))
		signal_send_thread(t, LX_SIGPIPE);
	return r;
}

long sys_sendto(struct thread *t, u64 fd, u64 buf, u64 n, u64 flags, u64 uaddr, u64 len)
{
	struct sock_iovec iov = { buf, n };
	if ((int64_t)n < 0)
		return -LX_EINVAL;
	struct sock_msg m = { &iov, 1, n, uaddr, uaddr ? len : 0, flags, 0, NULL };
	return do_send(t, fd, &m);
}

long sys_sendmsg(struct thread *t, u64 fd, u64 umsg, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	size_t total;
	return sock_sendmsg(t, fd, umsg, flags, &total);
}

long sock_check(struct thread *t, u64 fd)
{
	SOCK_CALL(t, fd, f, ops);
	(void)f, (void)ops;
	return 0;
}

long sock_sendmsg(struct thread *t, u64 fd, u64 umsg, u64 flags, size_t *totalp)
{
	struct lx_msghdr h;
	size_t total = *totalp = 0;
	if (!copyin(t->proc, &h, umsg, sizeof(h)))
		return -LX_EFAULT;
	long r = get_iov(t, h.iov, h.iovlen, msg_iov, &total);
	*totalp = total;
	if (r < 0)
		return r;
	struct sock_msg m = { msg_iov, h.iovlen, total, h.name, h.name ? h.namelen : 0, flags, 0,
			      NULL };
	struct scm_files scm = { .f = NULL };
	if (h.controllen) {                 /* control messages: AF_UNIX's only (net/scm.c) */
		SOCK_CALL(t, fd, f, ops);
		if (ops != unix_family.ops)
			return -LX_EOPNOTSUPP;
		if ((r = scm_send_parse(t, h.control, h.controllen, &scm)) < 0)
			return r;
		m.scm = &scm;
	}
	r = do_send(t, fd, &m);
	scm_release(&scm);                  /* what the family did not take */
	return r;
}

long sys_recvfrom(struct thread *t, u64 fd, u64 buf, u64 n, u64 flags, u64 uaddr, u64 ulen)
{
	struct sock_iovec iov = { buf, n };
	if ((int64_t)n < 0)
		return -LX_EINVAL;
	SOCK_CALL(t, fd, f, ops);
	struct sock_msg m = { &iov, 1, n, uaddr, uaddr ? ulen : 0, flags, 0, NULL };
	return ops->recv(t, f, &m);
}

long sys_recvmsg(struct thread *t, u64 fd, u64 umsg, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct lx_msghdr h;
	size_t total;
	SOCK_CALL(t, fd, f, ops);
	if (!copyin(t->proc, &h, umsg, sizeof(h)))
		return -LX_EFAULT;
	long r = get_iov(t, h.iov, h.iovlen, msg_iov, &total);
	if (r < 0)
		return r;
	struct scm_files scm = { .f = NULL };
	struct sock_msg m = { msg_iov, h.iovlen, total, h.name,
			      h.name ? umsg + __builtin_offsetof(struct lx_msghdr, namelen) : 0, flags, 0,
			      &scm };
	r = ops->recv(t, f, &m);
	if (r < 0 || r == SYS_BLOCK)
		return r;
	u64 used = 0;
	long e = scm_recv_put(t, h.control, h.control ? h.controllen : 0, &scm,
			      flags & LX_MSG_CMSG_CLOEXEC, &used, &m.mflags);
	if (e < 0)
		return e;
	h.controllen = used;
	h.flags = m.mflags;
	if (!copyout(t->proc, umsg + __builtin_offsetof(struct lx_msghdr, controllen), &h.controllen,
		     sizeof(h.controllen) + sizeof(h.flags)))
		return -LX_EFAULT;
	return r;
}
