// SPDX-License-Identifier: MIT
// AF_UNIX sockets: stream, datagram and sequenced-packet, in pairs
// (socketpair) or bound to a path or an abstract name (bind, listen,
// accept, connect), with Linux's shutdown, peeking, truncation and address
// rules.
//
// Each socket has one receive queue of buffers (struct skb) whose bytes
// live in pool pages; a stream's writes fill the last buffer, a datagram is
// a buffer of its own.  Waiting follows lx's rule (vfs/vfs.h): a call that
// cannot go on consumes nothing, parks on the socket whose queue it needs
// to change, and runs again from the start; every change to a socket's
// queue or state wakes that socket.
#include "../vfs/vfs.h"
#include "net.h"
#include "../syscall/syscall.h"
#include "../../../lib/c/string.h"


#define SHUT_RCV  1                    /* Linux's RCV_SHUTDOWN */
#define SHUT_SEND 2                    /* SEND_SHUTDOWN */

#define SUN_PATH   108
#define ADDR_HDR   2                   /* sun_family */

/* A receive queue holds at most this much (Linux's default socket buffer). */
#define QUEUE_BYTES (208 * 1024)
#define SKB_PAGES   (BOUNCE_SIZE / LX_PAGE_SIZE)
/* one datagram comes in one bounce buffer, and a do_read of exactly a full one would go on */
#define DGRAM_MAX   (BOUNCE_SIZE - 1)

struct sock;

struct skb {
	struct skb *next;
	struct sock *from;              /* a datagram's sender (a reference), for recvfrom */
	u32 len, off;                   /* bytes held; bytes a stream reader has taken */
	void *page[SKB_PAGES];
	struct scm_files scm;           /* SCM_RIGHTS: go to whoever reads its first byte */
	u32 cred[3];                    /* the sending process's pid, uid, gid (SO_PASSCRED) */
};

struct sockaddr_k {
	u32 len;                        /* bytes of path used; 0: unnamed */
	char path[SUN_PATH];            /* abstract names start with a NUL */
};

enum sstate { SS_UNCONNECTED, SS_LISTENING, SS_CONNECTED };

struct ucred_k {                        /* SO_PEERCRED's struct ucred */
	int32_t pid;
	u32 uid, gid;
};

struct sock {
	u32 refs;                       /* its file, peers, queued buffers, a listener */
	int type;
	enum sstate state;
	u32 shut;                       /* SHUT_RCV | SHUT_SEND */
	bool dead;                      /* its file is gone */
	struct ucred_k who;             /* SO_PEERCRED: who made, connected or listened */
	struct sock *peer;              /* connected: the other end, or a datagram's default */
	struct skb *head, *tail;        /* the receive queue */
	u32 qbytes, qcost, qmsgs;       /* data bytes, their cost (cost()), buffers */
	struct sock *pending;           /* listening: connections accept has not taken */
	struct sock *next_pending;
	u32 npending, backlog;
	struct sockaddr_k name;
	struct inode *node;             /* bound to a path: its socket node (a reference) */
	struct sock *next_abstract;
	void *wchan;                    /* where the last call that could not go on waits */
	u32 last_read;                  /* bytes the last read op put in the bounce buffer */
	bool passcred;                  /* SO_PASSCRED: reads get the sender's credentials */
};

static struct sock *abstract_names;


static bool is_msgs(const struct sock *sk)
{
	return sk->type != LX_SOCK_STREAM;
}

static bool is_connection(const struct sock *sk)
{
	return sk->type != LX_SOCK_DGRAM;
}

/* --- buffers --- */

static void sock_put(struct sock *sk);

static void skb_free(struct skb *b)
{
	for (unsigned i = 0; i < SKB_PAGES; i++)
		if (b->page[i])
			page_free(b->page[i]);
	if (b->from)
		sock_put(b->from);
	scm_release(&b->scm);
	lx_free(b);
}

/* Copy between buf and the buffer's bytes [at, at + n), allocating pages when writing. */
static bool skb_copy(struct skb *b, u32 at, char *buf, size_t n, bool to_skb)
{
	while (n) {
		u32 pg = at / LX_PAGE_SIZE, off = at % LX_PAGE_SIZE;
		size_t c = LX_PAGE_SIZE - off < n ? LX_PAGE_SIZE - off : n;
		if (!b->page[pg] && (!to_skb || !(b->page[pg] = page_alloc_nozero())))
			return false;
		if (to_skb)
			memcpy((char *)b->page[pg] + off, buf, c);
		else
			memcpy(buf, (char *)b->page[pg] + off, c);
		buf += c;
		at += (u32)c;
		n -= c;
	}
	return true;
}

/* The calling process's pid, real uid and gid, as Linux's scm_set_cred takes them. */
static void cred_now(u32 c[3])
{
	const struct proc *p = lx_current->proc;
	c[0] = (u32)p->pid, c[1] = p->cred.uid, c[2] = p->cred.gid;
}

static bool same_sender(const struct skb *b)
{
	u32 c[3] = { 0, 0, 0 };
	if (lx_current)
		cred_now(c);
	return !memcmp(c, b->cred, sizeof(c));
}

static struct skb *skb_new(struct sock *from)
{
	struct skb *b = lx_zalloc(sizeof(*b));
	if (b && lx_current)
		cred_now(b->cred);
	if (b && from) {
		from->refs++;
		b->from = from;
	}
	return b;
}

/* What a buffer of n bytes costs its queue: a stream's bytes, a datagram's pages and header. */
static u32 cost(const struct sock *sk, size_t n)
{
	if (!is_msgs(sk))
		return (u32)n;
	return (u32)((n + LX_PAGE_SIZE - 1) / LX_PAGE_SIZE * LX_PAGE_SIZE + sizeof(struct skb));
}

static void queue_append(struct sock *sk, struct skb *b)
{
	if (sk->tail)
		sk->tail->next = b;
	else
		sk->head = b;
	sk->tail = b;
	sk->qmsgs++;
}

static void queue_pop(struct sock *sk)
{
	struct skb *b = sk->head;
	sk->head = b->next;
	if (!sk->head)
		sk->tail = NULL;
	sk->qbytes -= b->len - b->off;
	sk->qcost -= cost(sk, b->len - b->off);
	sk->qmsgs--;
	skb_free(b);
}

/* Room left in sk's queue, in its cost. */
static size_t queue_room(const struct sock *sk)
{
	return sk->qcost < QUEUE_BYTES ? QUEUE_BYTES - sk->qcost : 0;
}

static void account(struct sock *sk, size_t n)
{
	sk->qbytes += (u32)n;
	sk->qcost += cost(sk, n);
}

/*
 * Put n bytes from buf on `to`'s queue, sent by `from`: a datagram whole, a
 * stream's what fits (its last buffer filled first).  The count, -EAGAIN
 * without room, -ENOMEM.
 */
static long enqueue(struct sock *to, struct sock *from, const char *buf, size_t n,
		    struct scm_files *scm)
{
	size_t room = queue_room(to);
	if (is_msgs(to)) {
		if (room < cost(to, n))
			return -LX_EAGAIN;
		struct skb *b = skb_new(from);
		if (!b || !skb_copy(b, 0, (char *)buf, n, true)) {
			if (b)
				skb_free(b);
			return -LX_ENOMEM;
		}
		b->len = (u32)n;
		if (scm) {
			b->scm = *scm;
			*scm = (struct scm_files){ .f = NULL };
		}
		queue_append(to, b);
		account(to, n);
		wake(to);
		return (long)n;
	}
	if (!room)
		return -LX_EAGAIN;
	size_t done = 0, want = n < room ? n : room;
	while (done < want) {
		struct skb *b = to->tail;
		bool carry = scm && scm->n;     /* descriptors start a buffer of their own */
		if (!b || b->len == SKB_PAGES * LX_PAGE_SIZE || b->scm.n || carry || !same_sender(b)) {
			if (!(b = skb_new(NULL)))
				break;
			queue_append(to, b);
			if (carry) {
				b->scm = *scm;
				*scm = (struct scm_files){ .f = NULL };
			}
		}
		size_t c = SKB_PAGES * LX_PAGE_SIZE - b->len;
		if (c > want - done)
			c = want - done;
		if (!skb_copy(b, b->len, (char *)buf + done, c, true))
			break;
		b->len += (u32)c;
		account(to, c);
		done += c;
	}
	if (!done)
		return -LX_ENOMEM;
	wake(to);
	return (long)done;
}

/*
 * Copy up to n bytes at the front of sk's (non-empty) queue to buf without
 * taking them: a stream's across buffers, or the first datagram, whose
 * length *full gets.  *from: the sender of the first buffer (no reference).
 */
static size_t peek(struct sock *sk, char *buf, size_t n, size_t *full, struct sock **from)
{
	struct skb *b = sk->head;
	*from = b->from;
	if (is_msgs(sk)) {
		*full = b->len;
		size_t c = b->len < n ? b->len : n;
		skb_copy(b, 0, buf, c, false);
		return c;
	}
	size_t done = 0;
	for (; b && done < n; b = b->next) {
		size_t c = b->len - b->off < n - done ? b->len - b->off : n - done;
		skb_copy(b, b->off, buf + done, c, false);
		done += c;
		if (b->scm.n)
			break;                      /* a read ends with the descriptors it took */
		if (sk->passcred && b->next && memcmp(b->cred, b->next->cred, sizeof(b->cred)))
			break;                      /* and where the sender changes */
	}
	*full = done;
	return done;
}

/*
 * The descriptors of the buffers the next n bytes (n > 0) start in, to `to`
 * (a copy with peek) or closed (to NULL); peek() stops after one such buffer.
 */
static void take_files(struct sock *sk, size_t n, struct scm_files *to, bool peek)
{
	for (struct skb *b = sk->head; b && n; b = b->next) {
		if (b->scm.n && to && !to->n && peek)
			scm_dup(&b->scm, to);
		else if (b->scm.n && to && !to->n) {
			to->f = b->scm.f, to->n = b->scm.n;
			b->scm.f = NULL, b->scm.n = 0;
		}
		else if (!peek)
			scm_release(&b->scm);
		size_t c = b->len - b->off;
		n = is_msgs(sk) ? 0 : c < n ? n - c : 0;
	}
}

/* Take n bytes of a stream (or the first datagram) off the queue; its pages go as read. */
static void consume(struct sock *sk, size_t n)
{
	if (is_msgs(sk)) {
		queue_pop(sk);
	} else {
		while (n) {
			struct skb *b = sk->head;
			size_t c = b->len - b->off < n ? b->len - b->off : n;
			b->off += (u32)c;
			sk->qbytes -= (u32)c;
			sk->qcost -= (u32)c;
			n -= c;
			for (u32 i = 0; i < b->off / LX_PAGE_SIZE; i++)
				if (b->page[i]) {
					page_free(b->page[i]);
					b->page[i] = NULL;
				}
			if (b->off == b->len)
				queue_pop(sk);
		}
	}
	wake(sk);
}

/* --- sockets --- */

/* struct ucred: a process and its effective user and group */
static struct ucred_k who_of(const struct proc *p)
{
	return (struct ucred_k){p->pid, p->cred.euid, p->cred.egid};
}

static struct sock *sock_new(int type, struct ucred_k who)
{
	struct sock *sk = lx_zalloc(sizeof(*sk));
	if (!sk)
		return NULL;
	sk->refs = 1;
	sk->type = type;
	sk->who = who;
	sk->wchan = sk;
	return sk;
}

static void sock_put(struct sock *sk)
{
	if (!sk || --sk->refs)
		return;
	while (sk->head)
		queue_pop(sk);
	lx_free(sk);
}

static void unlink_abstract(struct sock *sk)
{
	for (struct sock **pp = &abstract_names; *pp; pp = &(*pp)->next_abstract)
		if (*pp == sk) {
			*pp = sk->next_abstract;
			return;
		}
}

/* Join a and b as the two ends of a connection (each holds the other). */
static void join(struct sock *a, struct sock *b)
{
	a->peer = b;
	b->peer = a;
	a->refs++;
	b->refs++;
	a->state = b->state = SS_CONNECTED;
}

/* sk lets go of its peer: a connection's other end sees end-of-file and EPIPE. */
static void disconnect(struct sock *sk)
{
	struct sock *p = sk->peer;
	if (!p)
		return;
	sk->peer = NULL;
	if (is_connection(sk) && p->peer == sk) {
		p->peer = NULL;
		p->shut = SHUT_RCV | SHUT_SEND;
		sock_put(sk);
	}
	wake(p);
	sock_put(p);
}

/* The file is closed: names go, queued data and unaccepted connections with it. */
static void sock_release(struct file *f)
{
	struct sock *sk = f->priv;
	sk->dead = true;
	sk->shut = SHUT_RCV | SHUT_SEND;
	if (sk->node) {
		if (sk->node->priv == sk)
			sk->node->priv = NULL;
		fs_put(sk->node);
		sk->node = NULL;
	}
	if (sk->name.len && !sk->name.path[0])
		unlink_abstract(sk);
	while (sk->pending) {
		struct sock *c = sk->pending;
		sk->pending = c->next_pending;
		c->dead = true;
		disconnect(c);
		sock_put(c);
	}
	disconnect(sk);
	while (sk->head)
		queue_pop(sk);
	wake(sk);
	sock_put(sk);
}

/* --- addresses --- */

/* A sockaddr_un from the process: 0 or -errno.  An empty name (len 0) asks for autobind. */
static long addr_in(struct thread *t, u64 uaddr, u64 len, struct sockaddr_k *a)
{
	char raw[ADDR_HDR + SUN_PATH];
	if ((int)len < ADDR_HDR || len > sizeof(raw))
		return -LX_EINVAL;
	if (!copyin(t->proc, raw, uaddr, len))
		return -LX_EFAULT;
	if (*(uint16_t *)raw != LX_AF_UNIX)
		return -LX_EINVAL;
	memset(a, 0, sizeof(*a));
	u32 n = (u32)len - ADDR_HDR;
	memcpy(a->path, raw + ADDR_HDR, n);
	if (n && a->path[0]) {          /* a path: up to its NUL, which getsockname counts */
		u32 l = 0;
		while (l < n && a->path[l])
			l++;
		if (l == SUN_PATH)
			return -LX_EINVAL;
		a->path[l] = 0;
		n = l + 1;
	}
	a->len = n;
	return 0;
}

/* Give an address to the process (uaddr/ulen may be 0: not wanted); 0 or -EFAULT/-EINVAL. */
static long addr_out(struct thread *t, u64 uaddr, u64 ulen, const struct sockaddr_k *a,
		     bool empty_is_zero)
{
	if (!uaddr || !ulen)
		return 0;
	int room;
	if (!copyin(t->proc, &room, ulen, sizeof(room)))
		return -LX_EFAULT;
	if (room < 0)
		return -LX_EINVAL;
	char raw[ADDR_HDR + SUN_PATH];
	*(uint16_t *)raw = LX_AF_UNIX;
	memcpy(raw + ADDR_HDR, a->path, a->len);
	int len = a->len || !empty_is_zero ? ADDR_HDR + (int)a->len : 0;
	return sock_put_sized(t, uaddr, ulen, room, raw, len, true);
}

/* The socket a name is bound to (no reference), or -errno in *err. */
static struct sock *lookup_name(struct thread *t, const struct sockaddr_k *a, long *err)
{
	*err = -LX_ECONNREFUSED;
	if (!a->len) {
		*err = -LX_EINVAL;
		return NULL;
	}
	if (!a->path[0]) {
		for (struct sock *s = abstract_names; s; s = s->next_abstract)
			if (s->name.len == a->len && !memcmp(s->name.path, a->path, a->len))
				return s;
		return NULL;
	}
	struct inode *ip;
	long r = fs_lookup(t->proc->cwd, a->path, FS_FOLLOW, &ip);
	if (r < 0) {
		*err = r;
		return NULL;
	}
	r = fs_permission(ip, FS_MAY_WRITE);          /* connecting writes to it */
	struct sock *s = r == 0 && LX_S_ISSOCK(ip->mode) ? ip->priv : NULL;
	fs_put(ip);
	if (r < 0)
		*err = r;
	return s;
}

static long bind_path(struct thread *t, struct sock *sk, const struct sockaddr_k *a)
{
	struct inode *dir, *ip;
	char last[LX_NAME_MAX + 1];
	long r = fs_lookup_parent(t->proc->cwd, a->path, &dir, last);
	if (r < 0)
		return r;
	u32 mode = LX_S_IFSOCK | (0777 & ~t->proc->umask);
	r = last[0] ? fs_create(dir, last, mode, 0, &ip) : -LX_EINVAL;
	fs_put(dir);
	if (r == -LX_EEXIST)
		return -LX_EADDRINUSE;
	if (r < 0)
		return r;
	ip->priv = sk;
	sk->node = ip;
	return 0;
}

/* An abstract name of its own for a socket bound with an empty address (Linux's autobind). */
static void autobind_name(struct sockaddr_k *a)
{
	static u32 next;
	static const char hex[] = "0123456789abcdef";
	long err;
	do {
		u32 n = next++ & 0xfffff;
		a->path[0] = 0;
		for (int i = 0; i < 5; i++)
			a->path[5 - i] = hex[(n >> (4 * i)) & 15];
		a->len = 6;
	} while (lookup_name(NULL, a, &err));
}

static long unix_bind(struct thread *t, struct file *f, u64 uaddr, u64 len)
{
	long r;
	struct sock *sk = f->priv;
	struct sockaddr_k a;
	if ((r = addr_in(t, uaddr, len, &a)) < 0)
		return r;
	if (sk->name.len)
		return -LX_EINVAL;
	if (!a.len)
		autobind_name(&a);
	if (a.path[0]) {
		if ((r = bind_path(t, sk, &a)) < 0)
			return r;
	} else {
		if (lookup_name(t, &a, &r))
			return -LX_EADDRINUSE;
		sk->next_abstract = abstract_names;
		abstract_names = sk;
	}
	sk->name = a;
	return 0;
}

static long unix_listen(struct thread *t, struct file *f, int b)
{
	struct sock *sk = f->priv;
	if (!is_connection(sk))
		return -LX_EOPNOTSUPP;
	if (sk->state == SS_CONNECTED || !sk->name.len)
		return -LX_EINVAL;
	sk->backlog = b < 0 ? 0 : b > 4096 ? 4096 : (u32)b;
	sk->state = SS_LISTENING;
	sk->who = who_of(t->proc);
	wake(sk);
	return 0;
}

/* Wait on a socket (the one that must change for the call to go on), unless the call may not. */
static long wait_for(struct thread *t, void *sk, bool nonblock)
{
	if (nonblock)
		return -LX_EAGAIN;
	block_on(t, sk, 0);
	return SYS_BLOCK;
}

static bool nonblocking(const struct file *f)
{
	return f->flags & LX_O_NONBLOCK;
}

/* A stream connects: a new socket joins it and waits in the listener's queue for accept. */
static long connect_stream(struct thread *t, struct sock *sk, struct sock *l, bool nonblock)
{
	if (sk->state == SS_CONNECTED)
		return -LX_EISCONN;
	if (sk->state == SS_LISTENING)
		return -LX_EINVAL;
	if (l->state != SS_LISTENING || l->dead)
		return -LX_ECONNREFUSED;
	if (l->npending > l->backlog)
		return wait_for(t, l, nonblock);
	struct sock *s = sock_new(l->type, l->who);
	if (!s)
		return -LX_ENOMEM;
	s->name = l->name;
	join(sk, s);
	sk->who = who_of(t->proc);
	s->next_pending = NULL;
	struct sock **pp = &l->pending;
	while (*pp)
		pp = &(*pp)->next_pending;
	*pp = s;                        /* the listener's queue holds the creation reference */
	l->npending++;
	wake(l);
	return 0;
}

static long unix_connect(struct thread *t, struct file *f, u64 uaddr, u64 len)
{
	long r;
	struct sock *sk = f->priv;
	struct sockaddr_k a;
	if ((r = addr_in(t, uaddr, len, &a)) < 0)
		return r;
	struct sock *to = lookup_name(t, &a, &r);
	if (!to)
		return r;
	if (to->type != sk->type)
		return -LX_EPROTOTYPE;
	if (is_connection(sk))
		return connect_stream(t, sk, to, nonblocking(f));
	if (to->dead)
		return -LX_ECONNREFUSED;
	to->refs++;                     /* a datagram socket's default destination */
	if (sk->peer)
		sock_put(sk->peer);
	sk->peer = to;
	sk->state = SS_CONNECTED;
	return 0;
}

/* A descriptor for sk, which it then holds (the caller's reference); -errno leaves sk alone. */
static const struct file_ops unix_fops;

static long new_fd(struct thread *t, struct sock *sk, u32 flags)
{
	return sock_new_fd(t, &unix_fops, sk, flags);
}

static long unix_accept(struct thread *t, struct file *f, u64 uaddr, u64 ulen, u32 flags)
{
	long r;
	struct sock *l = f->priv;
	if (!is_connection(l))
		return -LX_EOPNOTSUPP;
	if (l->state != SS_LISTENING)
		return -LX_EINVAL;
	struct sock *s = l->pending;
	if (!s)
		return wait_for(t, l, nonblocking(f));
	struct sockaddr_k peer = s->peer ? s->peer->name : (struct sockaddr_k){0};
	if ((r = addr_out(t, uaddr, ulen, &peer, false)) < 0)
		return r;
	long nfd = new_fd(t, s, (u32)flags);
	if (nfd < 0)
		return nfd;                     /* the connection stays for a later accept */
	l->pending = s->next_pending;       /* its reference goes to the new descriptor */
	l->npending--;
	wake(l);
	return nfd;
}

static long check_create(u64 domain, u64 type, u64 proto)
{
	u64 base = type & ~(u64)(LX_SOCK_NONBLOCK | LX_SOCK_CLOEXEC);
	if (base >= LX_SOCK_TYPES || (int)type < 0)
		return -LX_EINVAL;
	if (domain != LX_AF_UNIX)
		return -LX_EAFNOSUPPORT;
	if (proto != 0 && proto != LX_AF_UNIX)
		return -LX_EPROTONOSUPPORT;
	if (base != LX_SOCK_STREAM && base != LX_SOCK_DGRAM && base != LX_SOCK_SEQPACKET)
		return -LX_ESOCKTNOSUPPORT;
	return (long)base;
}

static long unix_socket(struct thread *t, u64 domain, u64 type, u64 proto)
{
	long base = check_create(domain, type, proto);
	if (base < 0)
		return base;
	struct sock *sk = sock_new((int)base, who_of(t->proc));
	if (!sk)
		return -LX_ENOMEM;
	long fd = new_fd(t, sk, (u32)type);
	if (fd < 0)
		sock_put(sk);
	return fd;
}

static long unix_socketpair(struct thread *t, u64 domain, u64 type, u64 proto, u64 usv)
{
	long base = check_create(domain, type, proto);
	if (base < 0)
		return base;
	struct sock *a = sock_new((int)base, who_of(t->proc)), *b = sock_new((int)base, who_of(t->proc));
	if (!a || !b) {
		sock_put(a);
		sock_put(b);
		return -LX_ENOMEM;
	}
	join(a, b);
	int fd[2];
	fd[0] = (int)new_fd(t, a, (u32)type);
	if (fd[0] < 0) {
		disconnect(a);
		sock_put(a);
		sock_put(b);
		return fd[0];
	}
	fd[1] = (int)new_fd(t, b, (u32)type);
	if (fd[1] < 0) {
		fd_close(t->proc, fd[0]);       /* a's release lets go of b's link */
		sock_put(b);
		return fd[1];
	}
	if (!copyout(t->proc, usv, fd, sizeof(fd))) {
		fd_close(t->proc, fd[0]);
		fd_close(t->proc, fd[1]);
		return -LX_EFAULT;
	}
	return 0;
}

/* --- moving data --- */

/*
 * Where sk's data goes: its peer, or for a datagram the socket `to` names.
 * NULL with -errno in *err.  A datagram peer that has gone is forgotten
 * (ECONNREFUSED once, ENOTCONN after), as Linux does.
 */
static struct sock *destination(struct sock *sk, struct sock *to, long *err)
{
	*err = 0;
	if (sk->shut & SHUT_SEND) {
		*err = -LX_EPIPE;
		return NULL;
	}
	if (is_connection(sk)) {
		if (sk->state != SS_CONNECTED)
			*err = -LX_ENOTCONN;
		else if (!sk->peer || (sk->peer->shut & SHUT_RCV))
			*err = -LX_EPIPE;
		return *err ? NULL : sk->peer;
	}
	if (!to)
		to = sk->peer;
	if (!to) {
		*err = -LX_ENOTCONN;
	} else if (to->dead) {
		if (to == sk->peer) {
			sk->peer = NULL;
			sk->state = SS_UNCONNECTED;
			sock_put(to);
		}
		*err = -LX_ECONNREFUSED;
	} else if (to->peer && to->peer != sk) {
		*err = -LX_EPERM;               /* connected to someone else */
	} else if (to->shut & SHUT_RCV) {
		*err = -LX_EPIPE;
	}
	return *err ? NULL : to;
}

/* n bytes from the bounce buffer to the destination: the count, or -errno (-EAGAIN: no room). */
static long sock_send(struct sock *sk, struct sock *to, const char *buf, size_t n,
		      struct scm_files *scm)
{
	long err;
	if (is_msgs(sk) && n > DGRAM_MAX)
		return -LX_EMSGSIZE;
	struct sock *d = destination(sk, to, &err);
	if (!d)
		return err;
	long r = enqueue(d, sk, buf, n, scm);
	if (r == -LX_EAGAIN)
		sk->wchan = d;
	return r;
}

/* Nothing to read now: 0 at end of data, -EAGAIN to wait, or -errno. */
static long nothing_to_read(struct sock *sk)
{
	if (sk->state == SS_LISTENING)
		return -LX_EINVAL;
	if (sk->shut & SHUT_RCV)
		return 0;
	if (is_connection(sk) && sk->state != SS_CONNECTED)
		return -LX_ENOTCONN;
	sk->wchan = sk;
	return -LX_EAGAIN;
}

static long sock_read(struct file *f, void *buf, size_t n)
{
	struct sock *sk = f->priv;
	sk->last_read = 0;
	if (!sk->qmsgs)
		return nothing_to_read(sk);
	size_t full;
	struct sock *from;
	size_t c = peek(sk, buf, n, &full, &from);
	if (c || is_msgs(sk))
		take_files(sk, c ? c : 1, NULL, false);      /* read(2) closes what came */
	consume(sk, c);
	sk->last_read = is_msgs(sk) ? 0 : (u32)c;
	return (long)c;
}

static long sock_write(struct file *f, const void *buf, size_t n)
{
	return sock_send(f->priv, NULL, buf, n, NULL);
}

/* A stream's bytes that could not reach the process go back to the front of its queue. */
static void sock_unread(struct file *f, size_t n)
{
	struct sock *sk = f->priv;
	if (is_msgs(sk) || n > sk->last_read)
		return;                         /* a datagram is gone, as on Linux */
	struct skb *b = skb_new(NULL);
	if (!b || !skb_copy(b, 0, file_bounce + sk->last_read - n, n, true)) {
		if (b)
			skb_free(b);
		return;
	}
	b->len = (u32)n;
	b->next = sk->head;
	sk->head = b;
	if (!sk->tail)
		sk->tail = b;
	sk->qmsgs++;
	account(sk, n);
}

static int sock_poll(struct file *f)
{
	struct sock *sk = f->priv;
	int ev = 0;
	if (sk->state == SS_LISTENING)
		return sk->pending ? LX_POLLIN : 0;
	if (sk->qmsgs || (sk->shut & SHUT_RCV))
		ev |= LX_POLLIN;
	if (sk->shut & SHUT_RCV)
		ev |= LX_POLLRDHUP;
	if (sk->shut == (SHUT_RCV | SHUT_SEND))
		ev |= LX_POLLHUP;
	if (is_connection(sk) && sk->state != SS_CONNECTED)
		return ev;
	/* writable when a write would not wait (it may fail at once) */
	struct sock *d = sk->shut & SHUT_SEND ? NULL : sk->peer;
	if (!d || d->dead || queue_room(d) >= cost(d, LX_PAGE_SIZE))
		ev |= LX_POLLOUT;
	return ev;
}

static void *sock_wchan(struct file *f)
{
	return ((struct sock *)f->priv)->wchan;
}

#define LX_FIONREAD 0x541b

static long sock_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	struct sock *sk = f->priv;
	if ((u32)cmd != LX_FIONREAD)
		return -LX_ENOTTY;
	int n = (int)(is_msgs(sk) ? (sk->head ? sk->head->len : 0) : sk->qbytes);
	return copyout(t->proc, arg, &n, sizeof(n)) ? 0 : -LX_EFAULT;
}

static const struct file_ops unix_fops = {
	.read = sock_read, .write = sock_write, .poll = sock_poll, .wchan = sock_wchan,
	.ioctl = sock_ioctl, .release = sock_release, .unread = sock_unread,
};

/* --- send and receive calls --- */

/*
 * Send the iovecs' bytes to the destination (to_addr/to_len: an address, or
 * 0).  A stream takes what fits; a datagram goes whole.  The count, or -errno.
 */
static long unix_send(struct thread *t, struct file *f, struct sock_msg *m)
{
	long r;
	struct sock *sk = f->priv;
	const struct sock_iovec *iov = m->iov;
	u64 cnt = m->cnt, to_addr = m->addr, to_len = m->addrlen, flags = m->flags;
	size_t total = m->total;
	struct sock *to = NULL;
	if (to_addr && to_len) {
		struct sockaddr_k a;
		if (is_connection(sk))
			return sk->state == SS_CONNECTED ? -LX_EISCONN : -LX_EOPNOTSUPP;
		if ((r = addr_in(t, to_addr, to_len, &a)) < 0 || !(to = lookup_name(t, &a, &r)))
			return r;
		if (to->type != sk->type)
			return -LX_EPROTOTYPE;
	}
	if (is_msgs(sk) && total > DGRAM_MAX)
		return -LX_EMSGSIZE;
	size_t done = 0;
	do {
		size_t want = total - done < BOUNCE_SIZE ? total - done : BOUNCE_SIZE;
		if (!sock_gather(t, iov, cnt, done, file_bounce, want))
			return done ? (long)done : -LX_EFAULT;
		r = sock_send(sk, to, file_bounce, want, m->scm);
		if (r < 0)
			break;
		done += (size_t)r;
		if ((size_t)r < want)
			break;
	} while (done < total);
	if (done)
		return (long)done;
	if (r == -LX_EAGAIN)
		return wait_for(t, sk->wchan, nonblocking(f) || (flags & LX_MSG_DONTWAIT));
	return r;
}

/*
 * Receive into the iovecs: the count (for MSG_TRUNC a datagram's full
 * length), or -errno.  Bytes the process cannot take stay queued.
 * *mflags gets MSG_TRUNC when a datagram was cut.
 */
static long unix_recv(struct thread *t, struct file *f, struct sock_msg *m)
{
	long r;
	struct sock *sk = f->priv;
	const struct sock_iovec *iov = m->iov;
	u64 cnt = m->cnt, from_addr = m->addr, from_len = m->addrlen, flags = m->flags;
	size_t total = m->total;
	int *mflags = &m->mflags;
	bool nonblock = nonblocking(f) || (flags & LX_MSG_DONTWAIT);
	size_t want = total < BOUNCE_SIZE ? total : BOUNCE_SIZE;
	if (!sk->qmsgs || ((flags & LX_MSG_WAITALL) && !is_msgs(sk) && sk->qbytes < want &&
			   !(sk->shut & SHUT_RCV))) {
		if (!sk->qmsgs && (r = nothing_to_read(sk)) != -LX_EAGAIN)
			return r;
		return wait_for(t, sk, nonblock);
	}
	size_t full;
	struct sock *from;
	size_t c = peek(sk, file_bounce, want, &full, &from);
	struct sockaddr_k name = from ? from->name : (struct sockaddr_k){0};
	size_t got = sock_scatter(t, iov, cnt, file_bounce, c);
	if (!got && c)
		return -LX_EFAULT;
	if (sk->passcred && m->scm) {
		m->scm->has_cred = true;
		memcpy(m->scm->cred, sk->head->cred, sizeof(m->scm->cred));
	}
	if (got || is_msgs(sk))
		take_files(sk, got ? got : 1, m->scm, flags & LX_MSG_PEEK);
	if (!(flags & LX_MSG_PEEK))
		consume(sk, got);               /* what reached the process */
	*mflags = is_msgs(sk) && full > c ? LX_MSG_TRUNC : 0;
	if ((r = addr_out(t, from_addr, from_len, &name, true)) < 0)
		return r;
	return (long)(is_msgs(sk) && (flags & LX_MSG_TRUNC) ? full : got);
}

/* --- the rest --- */

static long unix_shutdown(struct thread *t, struct file *f, int how)
{
	(void)t;
	struct sock *sk = f->priv;
	u32 mode = (u32)how + 1;        /* SHUT_RD 0 -> RCV, SHUT_WR 1 -> SEND, both */
	sk->shut |= mode;
	struct sock *p = sk->peer;
	if (p && is_connection(sk)) {
		/* what this end stops doing, the other end stops expecting */
		p->shut |= ((mode & SHUT_RCV) ? SHUT_SEND : 0) | ((mode & SHUT_SEND) ? SHUT_RCV : 0);
		wake(p);
	}
	wake(sk);
	return 0;
}

static long unix_name(struct thread *t, struct file *f, u64 uaddr, u64 ulen, bool peer)
{
	struct sock *sk = f->priv;
	if (!peer)
		return addr_out(t, uaddr, ulen, &sk->name, false);
	if (!sk->peer)
		return -LX_ENOTCONN;
	return addr_out(t, uaddr, ulen, &sk->peer->name, false);
}

#define LX_SO_REUSEADDR  2
#define LX_SO_TYPE       3
#define LX_SO_ERROR      4
#define LX_SO_SNDBUF     7
#define LX_SO_RCVBUF     8
#define LX_SO_KEEPALIVE  9
#define LX_SO_PASSCRED   16
#define LX_SO_PEERCRED   17
#define LX_SO_ACCEPTCONN 30
#define LX_SO_PROTOCOL   38
#define LX_SO_DOMAIN     39

/* SO_PASSCRED is kept; the other options are accepted and change nothing, as Linux
 * accepts them for AF_UNIX. */
static long unix_setsockopt(struct thread *t, struct file *f, int level, int name, u64 val, u64 len)
{
	int v;
	if (level != LX_SOL_SOCKET)
		return -LX_EOPNOTSUPP;
	if ((int)len < (int)sizeof(v))
		return -LX_EINVAL;
	if (!copyin(t->proc, &v, val, sizeof(v)))
		return -LX_EFAULT;
	switch (name) {
	case LX_SO_REUSEADDR:
	case LX_SO_SNDBUF:
	case LX_SO_RCVBUF:
	case LX_SO_KEEPALIVE:
		return 0;
	case LX_SO_PASSCRED:
		((struct sock *)f->priv)->passcred = v != 0;
		return 0;
	default:
		return -LX_ENOPROTOOPT;
	}
}

static long unix_getsockopt(struct thread *t, struct file *f, int level, int name, u64 uval, u64 ulen)
{
	struct sock *sk = f->priv;
	int room;
	if (level != LX_SOL_SOCKET)
		return -LX_EOPNOTSUPP;
	if (!copyin(t->proc, &room, ulen, sizeof(room)))
		return -LX_EFAULT;
	if (room < 0)
		return -LX_EINVAL;
	int v[3] = { 0, 0, 0 };
	int len = sizeof(int);
	switch (name) {
	case LX_SO_TYPE: v[0] = sk->type; break;
	case LX_SO_ERROR: v[0] = 0; break;
	case LX_SO_SNDBUF:
	case LX_SO_RCVBUF: v[0] = QUEUE_BYTES; break;
	case LX_SO_ACCEPTCONN: v[0] = sk->state == SS_LISTENING; break;
	case LX_SO_PROTOCOL: v[0] = 0; break;
	case LX_SO_DOMAIN: v[0] = LX_AF_UNIX; break;
	case LX_SO_REUSEADDR:
	case LX_SO_KEEPALIVE: v[0] = 0; break;
	case LX_SO_PASSCRED: v[0] = sk->passcred; break;
	case LX_SO_PEERCRED:            /* struct ucred: pid, uid, gid */
		if (sk->peer)
			memcpy(v, &sk->peer->who, sizeof(sk->peer->who));
		else
			v[1] = v[2] = -1;       /* no peer: no credentials, as Linux */
		len = sizeof(v);
		break;
	default:
		return -LX_ENOPROTOOPT;
	}
	return sock_put_sized(t, uval, ulen, room, v, len, false);
}

static const struct sock_ops unix_ops = {
	.bind = unix_bind, .listen = unix_listen, .accept = unix_accept, .connect = unix_connect,
	.send = unix_send, .recv = unix_recv, .shutdown = unix_shutdown, .name = unix_name,
	.setsockopt = unix_setsockopt, .getsockopt = unix_getsockopt,
};

const struct sock_family unix_family = {
	.domain = LX_AF_UNIX, .socket = unix_socket, .socketpair = unix_socketpair,
	.fops = &unix_fops, .ops = &unix_ops,
};
