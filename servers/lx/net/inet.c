// SPDX-License-Identifier: MIT
// AF_INET and AF_INET6 sockets: TCP (SOCK_STREAM) and UDP (SOCK_DGRAM) on
// the network server (servers/net/, include/l4/net.h), one server handle
// per socket.  Every request to the server is answered at once (server.c
// bounds it with a timeout), so lx's thread never waits for the network: a
// call that cannot go on (NET_ERR_AGAIN) parks on its handle's channel, and
// the server's WATCH (server.c's thread) wakes the channel when the handle's
// readiness changes; the call then runs again from the start.
//
// Bytes taken from the server that the process did not get (MSG_PEEK, a
// stream's copyout that failed, MSG_WAITALL waiting for more) wait in the
// socket's stash and come first at the next receive.  A datagram the process
// could not take (a bad buffer) is gone, as on Linux.  A SEND's answer may
// bring a datagram that the send delivered over the loopback (fetch_buf): it
// is then its socket's, as if in its stash, and its reader needs no RECV.
#include "../vfs/vfs.h"
#include "net.h"
#include "../syscall/syscall.h"
#include "../../../lib/c/string.h"
#include "../../../lib/fmt/fmt.h"
#include "../../../lib/net/client.h"

#define IPPROTO_IP    0
#define IPPROTO_ICMP  1
#define IPPROTO_TCP   6
#define IPPROTO_UDP   17
#define IPPROTO_IPV6  41
#define TCP_NODELAY   1
#define IPV6_V6ONLY   26
#define SO_REUSEADDR  2
#define SO_TYPE       3
#define SO_ERROR      4
#define SO_BROADCAST  6
#define SO_SNDBUF     7
#define SO_RCVBUF     8
#define SO_KEEPALIVE  9
#define SO_LINGER     13
#define SO_REUSEPORT  15
#define SO_ACCEPTCONN 30
#define SO_PROTOCOL   38
#define SO_DOMAIN     39

#define SIN_LEN   16                  /* sizeof(struct sockaddr_in) */
#define SIN6_LEN  28                  /* sizeof(struct sockaddr_in6) */
#define SIN6_MIN  24                  /* Linux takes sockaddr_in6 without its scope id */
/*
 * The largest datagrams: Linux's on IPv4 (IP's 65,535 bytes less the
 * headers); on IPv6 one Ethernet frame's (the server cannot fragment IPv6;
 * Linux: 65,527).
 */
#define UDP4_MAX  (65535 - 20 - 8)
#define UDP6_MAX  (1500 - 40 - 8)
#define BUF_DEFAULT 65536             /* the server's socket buffers */
#define TCP_CHUNK   65536             /* a SEND offers no more than a TCP buffer takes (each
					 SEND copies its whole string to the server) */

#define SHUT_RD_DONE 1
#define SHUT_WR_DONE 2

struct inet_sock {
	long h;                        /* the server's handle */
	int family, type, proto;
	bool bound, listening, connecting, connected;
	bool has_peer;                 /* UDP: connect() named a default destination */
	bool reuseaddr, reuseport, keepalive, nodelay, v6only;
	int err;                       /* SO_ERROR to report */
	u32 shut;                      /* SHUT_*_DONE */
	int rcvbuf, sndbuf;
	struct net_addr peer;          /* UDP's default destination */
	char *stash;                   /* bytes taken from the server the process has not had */
	u32 stash_len;
	bool stash_dgram;              /* UDP: the stash holds one datagram (perhaps empty) */
	struct net_addr stash_from;
	u32 last_read;                 /* bytes the last read op gave (for unread) */
	struct inet_sock *next;        /* every open one, for /proc/net */
	/*
	 * The server had nothing to read, and its WATCH has told of nothing new
	 * since: a blocking read parks without asking (every gain of events is
	 * told, inet_changed).  A non-blocking one still asks: what a writer sent
	 * is there before the WATCH that tells of it reaches lx.
	 */
	bool quiet;
};

static struct inet_sock *all;
static struct inet_sock *by_handle[NET_MAX_HANDLES];
/*
 * The datagram the last SEND's answer brought (net_send_fetch), fetch_owner's
 * next; one at a time: before the next SEND an unread one moves to its
 * socket's stash.  Page-aligned, as the server's buffer: the kernel's
 * short-string path takes strings of up to a page.
 */
static char fetch_buf[NET_IO_MAX] __attribute__((aligned(4096)));
static struct inet_sock *fetch_owner;
static long fetch_len;
static struct net_addr fetch_from;
/* The handles of UDP sockets (bit h), and of those the ones whose next datagram lx holds. */
static u64 dgram_open, dgram_held;
static size_t dgram_max(const struct inet_sock *sk);
static char chans[NET_MAX_HANDLES];   /* a handle's wait channel */
static const struct file_ops inet_fops, dgram_fops;

void inet_changed(u64 handles)
{
	for (; handles; handles &= handles - 1) {
		int h = __builtin_ctzll(handles);
		if (by_handle[h])
			by_handle[h]->quiet = false;
		wake(&chans[h]);
	}
}

/* A server reason as the errno Linux gives (include/l4/net.h's brackets). */
static long errno_of(long r)
{
	switch (-r) {
	case NET_ERR_HANDLE: return -LX_EBADF;
	case NET_ERR_AGAIN: return -LX_EAGAIN;
	case NET_ERR_NOBUFS: return -LX_ENOBUFS;
	case NET_ERR_ADDRINUSE: return -LX_EADDRINUSE;
	case NET_ERR_NOTCONN: return -LX_ENOTCONN;
	case NET_ERR_CONNREFUSED: return -LX_ECONNREFUSED;
	case NET_ERR_AFNOSUPPORT: return -LX_EAFNOSUPPORT;
	case NET_ERR_ISCONN: return -LX_EISCONN;
	case NET_ERR_UNREACH: return -LX_ENETUNREACH;
	case NET_ERR_MSGSIZE: return -LX_EMSGSIZE;
	case NET_ERR_OPNOTSUPP: return -LX_EOPNOTSUPP;
	case NET_ERR_NODEV: return -LX_ENETDOWN;
	case NET_ERR_INVAL: return -LX_EINVAL;
	default: return -LX_EIO;        /* the server did not answer (NET_ERR_IPC) or refused */
	}
}

/* Every call to the server goes through here: the deferred reply first (server.c). */
#define NET(call) (netsrv_prepare(), (call))

/* Note whether lx holds sk's next datagram (dgram_held; sk->h < NET_MAX_HANDLES, as for chans). */
static void set_held(struct inet_sock *sk, bool held)
{
	u64 bit = 1UL << sk->h;
	dgram_held = held ? dgram_held | bit : dgram_held & ~bit;
}

static long dgram_keep(struct inet_sock *sk, const char *buf, long r, const struct net_addr *from);
static bool dgram_wanted(struct inet_sock *sk, const struct net_addr *from);

/*
 * The UDP handles a SEND may bring a datagram for: those whose next datagram
 * lx does not hold already (it comes first), once fetch_buf is free (none if
 * its datagram could not move to its socket's stash).
 */
static inline u64 fetch_handles(void)
{
	struct inet_sock *sk = fetch_owner;
	if (__builtin_expect(sk != NULL, 0)) {
		if (!sk->stash && !(sk->stash = lx_malloc(BOUNCE_SIZE)))
			return 0;
		fetch_owner = NULL;
		dgram_keep(sk, fetch_buf, fetch_len, &fetch_from);
	}
	return dgram_open & ~dgram_held;
}

/* The datagram a SEND's answer brought becomes its socket's next (unless Linux would drop it). */
static void fetch_keep(const struct net_fetch *fe)
{
	struct inet_sock *sk = fe->h >= 0 && fe->h < NET_MAX_HANDLES ? by_handle[fe->h] : NULL;
	if (!sk || sk->type != LX_SOCK_DGRAM)
		return;
	sk->quiet = fe->drained;
	if (!dgram_wanted(sk, &fe->from))
		return;
	fetch_owner = sk;
	fetch_len = fe->len;
	fetch_from = fe->from;
	set_held(sk, true);
}

/*
 * A SEND (to: NULL on a stream), whose answer tells the handles that gained
 * events in the run it caused: their calls are woken now, not after a
 * round through the watch thread (a datagram to a waiting reader over the
 * loopback has arrived when the answer comes, and one such comes along).
 */
static long send_tell(struct inet_sock *sk, const void *buf, size_t n, const struct net_addr *to)
{
	uint64_t gained = 0, want = fetch_handles();
	if (!want) {
		long r = NET(net_send_tell(sk->h, buf, n, to, &gained));
		inet_changed(gained);
		return r;
	}
	struct net_fetch fe = { fetch_buf, want, -1, 0, false, { 0 } };
	long r = NET(net_send_fetch(sk->h, buf, n, to, &gained, &fe));
	inet_changed(gained);
	if (fe.h >= 0)
		fetch_keep(&fe);
	return r;
}

static bool nonblocking(const struct file *f, u64 flags)
{
	return (f->flags & LX_O_NONBLOCK) || (flags & LX_MSG_DONTWAIT);
}

/* Park t on sk's handle unless the call may not wait. */
static long wait_on(struct thread *t, struct inet_sock *sk, bool nonblock)
{
	if (nonblock)
		return -LX_EAGAIN;
	block_on(t, &chans[sk->h], 0);
	return SYS_BLOCK;
}

/* The handle's events now (NET_EV_*), asked with a zero timeout; NET_EV_NVAL if unknown. */
static unsigned events(struct inet_sock *sk, unsigned want)
{
	unsigned ev = 0;
	if (NET(net_poll(&sk->h, &want, &ev, 1, 0)) < 0)
		return NET_EV_NVAL;
	return ev;
}

/* --- addresses --- */

static uint16_t be16(uint16_t v) { return (uint16_t)(v << 8 | v >> 8); }

static void loopback6(struct net_addr *a);

/* Is a an IPv4 address in IPv6's clothes, ::ffff:a.b.c.d (the server takes it as IPv4)? */
static bool v4_mapped(const struct net_addr *a)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };
	return a->family == LX_AF_INET6 && !memcmp(a->addr, prefix, 12);
}

/* A sockaddr_in/in6 of the socket's family from the process: 0 or -errno. */
static long addr_in(struct thread *t, struct inet_sock *sk, u64 uaddr, u64 len, struct net_addr *a)
{
	uint8_t raw[SIN6_LEN] = { 0 };
	if ((int)len < 2 || !uaddr)
		return -LX_EINVAL;
	if (!copyin(t->proc, raw, uaddr, len < sizeof(raw) ? len : sizeof(raw)))
		return -LX_EFAULT;
	uint16_t fam = *(uint16_t *)raw;
	if (fam != sk->family)
		return -LX_EAFNOSUPPORT;
	if ((int)len < (fam == LX_AF_INET ? SIN_LEN : SIN6_MIN))
		return -LX_EINVAL;
	memset(a, 0, sizeof(*a));
	a->family = fam;
	a->port = be16(*(uint16_t *)(raw + 2));
	if (fam == LX_AF_INET) {
		memcpy(a->addr, raw + 4, 4);
	} else {
		memcpy(&a->flowinfo, raw + 4, 4);
		memcpy(a->addr, raw + 8, 16);
		loopback6(a);
		if (sk->v6only && v4_mapped(a))
			return -LX_ENETUNREACH; /* IPV6_V6ONLY: no IPv4 peers (bind says EINVAL) */
	}
	return 0;
}

/* Give an address to the process (uaddr 0: not wanted), truncated to its room as Linux does. */
static long addr_out(struct thread *t, u64 uaddr, u64 ulen, const struct net_addr *a, int family)
{
	if (!uaddr || !ulen)
		return 0;
	int room;
	if (!copyin(t->proc, &room, ulen, sizeof(room)))
		return -LX_EFAULT;
	if (room < 0)
		return -LX_EINVAL;
	uint8_t raw[SIN6_LEN] = { 0 };
	int len = family == LX_AF_INET ? SIN_LEN : SIN6_LEN;
	*(uint16_t *)raw = (uint16_t)family;
	*(uint16_t *)(raw + 2) = be16(a->port);
	if (family == LX_AF_INET) {
		memcpy(raw + 4, a->addr, 4);
	} else if (a->family == LX_AF_INET) {
		raw[18] = raw[19] = 0xff;       /* an IPv4 peer of a dual-stack socket: ::ffff:a.b.c.d */
		memcpy(raw + 20, a->addr, 4);
	} else {
		memcpy(raw + 4, &a->flowinfo, 4);
		memcpy(raw + 8, a->addr, 16);
	}
	return sock_put_sized(t, uaddr, ulen, room, raw, len, true);
}

static bool all_zero(const uint8_t *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static struct net_info info;        /* the server's addresses */

static const struct net_info *server_info(void)
{
	static bool have;
	if (!have)
		have = NET(net_info(&info)) == 0;
	return &info;
}

/*
 * ::1 stands for the interface's own IPv6 address (its link-local one when
 * it has none): the server has no IPv6 loopback yet (docs/net.md), and its
 * own addresses loop back.  getsockname and getpeername then tell that address.
 */
static void loopback6(struct net_addr *a)
{
	static const uint8_t one[16] = { [15] = 1 };
	if (a->family != LX_AF_INET6 || memcmp(a->addr, one, 16))
		return;
	const struct net_info *i = server_info();
	if (!all_zero(i->ip6, 16)) {
		memcpy(a->addr, i->ip6, 16);
		return;
	}
	static const uint8_t ll[8] = { 0xfe, 0x80 };
	memcpy(a->addr, ll, 8);
	uint8_t eui[8] = { (uint8_t)(i->mac[0] ^ 2), i->mac[1], i->mac[2], 0xff, 0xfe, i->mac[3], i->mac[4], i->mac[5] };
	memcpy(a->addr + 8, eui, 8);
}

/* Is a the wildcard, a loopback or one of the server's own addresses (bind)? */
static bool local_address(const struct net_addr *a)
{
	server_info();
	if (v4_mapped(a))
		return a->addr[12] == 127 || !memcmp(a->addr + 12, info.ip4, 4);
	if (a->family == LX_AF_INET)
		return all_zero(a->addr, 4) || a->addr[0] == 127 || !memcmp(a->addr, info.ip4, 4);
	return all_zero(a->addr, 16) || !memcmp(a->addr, info.ip6, 16) ||
	       (a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80);
}

/* --- sockets --- */

static struct inet_sock *isock_new(long h, int family, int type, int proto)
{
	struct inet_sock *sk = lx_zalloc(sizeof(*sk));
	if (!sk)
		return NULL;
	sk->h = h;
	sk->family = family;
	sk->type = type;
	sk->proto = proto;
	sk->rcvbuf = sk->sndbuf = BUF_DEFAULT;
	sk->next = all;
	all = sk;
	if (h >= 0 && h < NET_MAX_HANDLES)
		by_handle[h] = sk;
	if (h >= 0 && h < NET_MAX_HANDLES && type == LX_SOCK_DGRAM)
		dgram_open |= 1UL << h;
	return sk;
}

/* The socket and its server handle go. */
static void isock_free(struct inet_sock *sk)
{
	NET(net_close(sk->h));
	wake(&chans[sk->h]);             /* a poll that named it */
	if (sk->h >= 0 && sk->h < NET_MAX_HANDLES && by_handle[sk->h] == sk) {
		by_handle[sk->h] = NULL;
		dgram_open &= ~(1UL << sk->h);
		dgram_held &= ~(1UL << sk->h);
	}
	if (fetch_owner == sk)
		fetch_owner = NULL;
	for (struct inet_sock **pp = &all; *pp; pp = &(*pp)->next)
		if (*pp == sk) {
			*pp = sk->next;
			break;
		}
	lx_free(sk->stash);
	lx_free(sk);
}

static void inet_release(struct file *f)
{
	isock_free(f->priv);
}

/* The protocol of a new socket: the server's type, or -errno as Linux's inet_create. */
static long net_type(u64 base, u64 proto)
{
	switch (base) {
	case LX_SOCK_STREAM:
		return proto == 0 || proto == IPPROTO_TCP ? NET_SOCK_STREAM : -LX_EPROTONOSUPPORT;
	case LX_SOCK_DGRAM:
		if (proto == IPPROTO_ICMP)
			return -LX_EACCES;      /* ping sockets: Linux's default ping_group_range */
		return proto == 0 || proto == IPPROTO_UDP ? NET_SOCK_DGRAM : -LX_EPROTONOSUPPORT;
	case LX_SOCK_RAW:
		/* root: Linux gives raw sockets (others get EPERM above); the server has none */
		return -LX_EPROTONOSUPPORT;
	default:
		return -LX_ESOCKTNOSUPPORT;
	}
}

static long inet_socket(struct thread *t, u64 domain, u64 type, u64 proto)
{
	u64 base = type & ~(u64)(LX_SOCK_NONBLOCK | LX_SOCK_CLOEXEC);
	if (base == LX_SOCK_RAW && !lx_privileged(t->proc))
		return -LX_EPERM;               /* CAP_NET_RAW, as Linux's inet_create */
	long nt = net_type(base, proto);
	if (nt < 0)
		return nt;
	if (!netsrv_up())
		return -LX_EAFNOSUPPORT;        /* no network server: as a kernel without IPv4 */
	long h = NET(net_socket((unsigned)domain, (unsigned)nt));
	if (h < 0)
		return errno_of(h);
	struct inet_sock *sk = isock_new(h, (int)domain, (int)base,
					 base == LX_SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP);
	long fd = sk ? sock_new_fd(t, base == LX_SOCK_DGRAM ? &dgram_fops : &inet_fops, sk, (u32)type)
		     : -LX_ENOMEM;
	if (fd < 0 && sk)
		isock_free(sk);
	else if (fd < 0)
		NET(net_close(h));
	return fd;
}

static long inet_socketpair(struct thread *t, u64 domain, u64 type, u64 proto, u64 usv)
{
	(void)t, (void)domain, (void)usv;
	long nt = net_type(type & ~(u64)(LX_SOCK_NONBLOCK | LX_SOCK_CLOEXEC), proto);
	return nt < 0 ? nt : -LX_EOPNOTSUPP;
}

static long inet_bind(struct thread *t, struct file *f, u64 uaddr, u64 len)
{
	struct inet_sock *sk = f->priv;
	struct net_addr a;
	long r = addr_in(t, sk, uaddr, len, &a);
	if (r < 0)
		return r == -LX_ENETUNREACH ? -LX_EINVAL : r;
	if (sk->bound || sk->listening || sk->connected || sk->connecting)
		return -LX_EINVAL;
	if (!local_address(&a))
		return -LX_EADDRNOTAVAIL;
	if (a.port && a.port < 1024 && !lx_privileged(t->proc))
		return -LX_EACCES;              /* CAP_NET_BIND_SERVICE */
	if ((r = NET(net_bind(sk->h, &a))) < 0)
		return errno_of(r);
	sk->bound = true;
	return 0;
}

static long inet_listen(struct thread *t, struct file *f, int backlog)
{
	(void)t;
	struct inet_sock *sk = f->priv;
	if (sk->type != LX_SOCK_STREAM)
		return -LX_EOPNOTSUPP;
	if (sk->connected || sk->connecting)
		return -LX_EINVAL;
	long r;
	if (!sk->bound) {                /* Linux binds an ephemeral port */
		struct net_addr any = { (uint16_t)sk->family, 0, 0, { 0 } };
		if ((r = NET(net_bind(sk->h, &any))) < 0)
			return errno_of(r);
		sk->bound = true;
	}
	unsigned b = backlog < 1 ? 1 : backlog > 8 ? 8 : (unsigned)backlog;
	if ((r = NET(net_listen(sk->h, b))) < 0)
		return errno_of(r);
	sk->listening = true;
	return 0;
}

static long inet_accept(struct thread *t, struct file *f, u64 uaddr, u64 ulen, u32 flags)
{
	struct inet_sock *l = f->priv;
	if (l->type != LX_SOCK_STREAM)
		return -LX_EOPNOTSUPP;
	if (!l->listening)
		return -LX_EINVAL;
	struct net_addr peer = { 0 };
	long h = NET(net_accept(l->h, &peer));
	while (h >= 0 && l->v6only && peer.family == LX_AF_INET) {
		NET(net_close(h));              /* IPV6_V6ONLY: an IPv4 peer is reset (docs/lx.md) */
		h = NET(net_accept(l->h, &peer));
	}
	if (h == -NET_ERR_AGAIN)
		return wait_on(t, l, nonblocking(f, 0));
	if (h < 0)
		return errno_of(h);
	/* the address first: as on Linux, a connection accept cannot hand over is lost */
	struct inet_sock *sk = isock_new(h, l->family, LX_SOCK_STREAM, IPPROTO_TCP);
	long fd = !sk ? -LX_ENOMEM : addr_out(t, uaddr, ulen, &peer, l->family);
	if (fd == 0)
		fd = sock_new_fd(t, &inet_fops, sk, flags);
	if (fd < 0) {
		if (sk)
			isock_free(sk);
		else
			NET(net_close(h));
		return fd;
	}
	sk->bound = sk->connected = true;
	return fd;
}

/* A connect under way that finished: established, or refused (SO_ERROR). */
static void settle(struct inet_sock *sk)
{
	if (!sk->connecting)
		return;
	unsigned ev = events(sk, NET_EV_OUT);
	if (ev & (NET_EV_ERR | NET_EV_HUP | NET_EV_NVAL)) {
		sk->connecting = false;
		sk->err = LX_ECONNREFUSED;
	} else if (ev & NET_EV_OUT) {
		sk->connecting = false;
		sk->connected = true;
	}
}

/* A connect under way: 0 once established, -ECONNREFUSED, or it waits. */
static long connect_wait(struct thread *t, struct file *f, struct inet_sock *sk, bool again)
{
	settle(sk);
	if (sk->err) {
		long e = -sk->err;
		sk->err = 0;
		return e;
	}
	if (sk->connected)
		return 0;
	if (nonblocking(f, 0))
		return again ? -LX_EALREADY : -LX_EINPROGRESS;
	return wait_on(t, sk, false);
}

static long connect_udp(struct inet_sock *sk, const struct net_addr *a, u64 len)
{
	if (len >= 2 && a->family == 0) {   /* AF_UNSPEC: forget the peer */
		sk->has_peer = false;
		return 0;
	}
	sk->peer = *a;
	sk->has_peer = true;
	if (!sk->bound) {
		struct net_addr any = { (uint16_t)sk->family, 0, 0, { 0 } };
		long r = NET(net_bind(sk->h, &any));
		if (r < 0)
			return errno_of(r);
		sk->bound = true;
	}
	return 0;
}

static long inet_connect(struct thread *t, struct file *f, u64 uaddr, u64 len)
{
	struct inet_sock *sk = f->priv;
	struct net_addr a;
	if (sk->type == LX_SOCK_STREAM && sk->connecting)
		return connect_wait(t, f, sk, t->fresh);
	long r = addr_in(t, sk, uaddr, len, &a);
	if (sk->type == LX_SOCK_DGRAM) {
		uint16_t fam = 0;
		if (r == -LX_EAFNOSUPPORT && copyin(t->proc, &fam, uaddr, 2) && fam == 0) {
			a.family = 0;             /* AF_UNSPEC */
			r = 0;
		}
		return r < 0 ? r : connect_udp(sk, &a, len);
	}
	if (r < 0)
		return r;
	if (sk->connected || sk->listening)
		return -LX_EISCONN;
	sk->err = 0;
	if ((r = NET(net_connect(sk->h, &a))) < 0)
		return errno_of(r);
	sk->bound = sk->connecting = true;
	return connect_wait(t, f, sk, false);
}

/* --- moving data --- */

/* Keep n bytes at buf (from `from`) for the next receive, in front of nothing (the stash was used). */
static void stash_put(struct inet_sock *sk, const char *buf, size_t n, const struct net_addr *from)
{
	sk->stash_len = 0;
	if (from)
		sk->stash_from = *from;
	if (!n)
		return;
	if (!sk->stash && !(sk->stash = lx_malloc(BOUNCE_SIZE)))
		return;                   /* lost, as a datagram is on Linux's failed copy */
	memmove(sk->stash, buf, n);
	sk->stash_len = (u32)n;
}

/*
 * Up to want bytes of a stream into buf: the stash, then the server.  The
 * count (0: end of stream), or -EAGAIN when nothing is there.
 */
static long stream_take(struct inet_sock *sk, char *buf, size_t want, bool *open, bool nonblock)
{
	size_t got = 0;
	*open = true;
	if (sk->quiet && !nonblock && !sk->stash_len)
		return -LX_EAGAIN;
	if (sk->stash_len) {
		got = sk->stash_len < want ? sk->stash_len : want;
		memcpy(buf, sk->stash, got);
		memmove(sk->stash, sk->stash + got, sk->stash_len - got);
		sk->stash_len -= (u32)got;
	}
	while (got < want) {
		bool drained = false;
		long r = NET(net_recv_drained(sk->h, buf + got, want - got, NULL, &drained));
		sk->quiet = drained || r == -NET_ERR_AGAIN;
		if (r <= 0) {
			*open = r == -NET_ERR_AGAIN;
			if (got)
				break;
			if (r == 0 || r == -NET_ERR_NOTCONN)
				return sk->connected ? 0 : -LX_ENOTCONN;
			return errno_of(r);
		}
		got += (size_t)r;
		if (drained)
			break;                    /* asking again would only say EAGAIN */
	}
	return (long)got;
}

/* Is `from` (as the server tells it: IPv4 peers as IPv4) the connected peer p? */
static bool same_peer(const struct net_addr *from, const struct net_addr *p)
{
	if (from->port != p->port)
		return false;
	if (v4_mapped(p))
		return from->family == LX_AF_INET && !memcmp(from->addr, p->addr + 12, 4);
	return !memcmp(from->addr, p->addr, 16);
}

/* Is a datagram from `from` the socket's?  Linux drops the others on arrival. */
static bool dgram_wanted(struct inet_sock *sk, const struct net_addr *from)
{
	if (sk->has_peer && !same_peer(from, &sk->peer))
		return false;                 /* not from the connected peer */
	return !(sk->v6only && from->family == LX_AF_INET);   /* IPV6_V6ONLY: not IPv4 traffic */
}

/*
 * One datagram: the stash's first, else the one a SEND's answer brought,
 * else the server's (into file_bounce); *data = where it is, valid until
 * the next call to the server, and its sender in *from: its length, or
 * -errno.  None is copied on the way.
 */
static long dgram_take(struct inet_sock *sk, const char **data, struct net_addr *from, bool nonblock)
{
	if (sk->stash_dgram || fetch_owner == sk) {
		bool stash = sk->stash_dgram;
		long n = stash ? (long)sk->stash_len : fetch_len;
		*data = stash ? sk->stash : fetch_buf;
		*from = stash ? sk->stash_from : fetch_from;
		if (stash)
			sk->stash_dgram = false, sk->stash_len = 0;
		else
			fetch_owner = NULL;
		set_held(sk, false);
		return n;
	}
	if (sk->quiet && !nonblock)
		return -LX_EAGAIN;
	*data = file_bounce;
	for (int tries = 0; tries < 64; tries++) {
		bool drained = false;
		*from = (struct net_addr){ 0 };
		long r = NET(net_recv_drained(sk->h, file_bounce, NET_IO_MAX, from, &drained));
		sk->quiet = drained || r == -NET_ERR_AGAIN;
		if (r < 0)
			return errno_of(r);
		if (dgram_wanted(sk, from))
			return r;
	}
	return -LX_EAGAIN;
}

/* A datagram (r >= 0 bytes at buf, from) back for the next receive: -ENOMEM if it could not be kept. */
static long dgram_keep(struct inet_sock *sk, const char *buf, long r, const struct net_addr *from)
{
	stash_put(sk, buf, (size_t)r, from);
	if (r && !sk->stash_len)
		return -LX_ENOMEM;
	sk->stash_dgram = true;
	set_held(sk, true);
	return r;
}

/* Nothing to read on a stream now: 0 at its end, -errno, or -EAGAIN. */
static long stream_state(struct inet_sock *sk)
{
	settle(sk);
	if (sk->listening || (!sk->connected && !sk->connecting))
		return -LX_ENOTCONN;
	if (sk->shut & SHUT_RD_DONE)
		return 0;
	return -LX_EAGAIN;
}

static long inet_read(struct file *f, void *buf, size_t n)
{
	struct inet_sock *sk = f->priv;
	sk->last_read = 0;
	bool nonblock = nonblocking(f, 0);
	if (sk->type == LX_SOCK_DGRAM) {
		struct net_addr from;
		const char *data;
		long r = dgram_take(sk, &data, &from, nonblock);
		if (r < 0)
			return r;
		size_t c = n < (size_t)r ? n : (size_t)r;   /* the rest is dropped, as Linux's read */
		if (buf != data)
			memmove(buf, data, c);
		return (long)c;
	}
	long s = stream_state(sk);
	if (s != -LX_EAGAIN)
		return s;
	bool open;
	long r = stream_take(sk, buf, n < BOUNCE_SIZE ? n : BOUNCE_SIZE, &open, nonblock);
	if (r > 0)
		sk->last_read = (u32)r;
	return r;
}

/* Bytes of the last read the process could not take go back in front. */
static void inet_unread(struct file *f, size_t n)
{
	struct inet_sock *sk = f->priv;
	if (sk->type != LX_SOCK_STREAM || n > sk->last_read || sk->stash_len)
		return;
	stash_put(sk, file_bounce + sk->last_read - n, n, NULL);
}

/*
 * read(2) on a datagram socket: the datagram straight from where it is
 * (dgram_take) to the process, not through the bounce buffer; -EFAULT if
 * the buffer is bad, and the datagram is gone, as recv's.  A read of 0
 * bytes takes nothing (Linux's sock_read_iter).
 */
static long dgram_read_user(struct file *f, struct proc *p, u64 uaddr, size_t n)
{
	struct inet_sock *sk = f->priv;
	if (!n)
		return 0;
	struct net_addr from;
	const char *data;
	long r = dgram_take(sk, &data, &from, nonblocking(f, 0));
	if (r < 0)
		return r;
	size_t c = n < (size_t)r ? n : (size_t)r;   /* the rest is dropped, as Linux's read */
	return copyout_part(p, uaddr, data, c) == c ? (long)c : -LX_EFAULT;
}

/* Send n bytes from buf on a stream: the count, or -errno (-EAGAIN: no room at all). */
static long stream_send(struct inet_sock *sk, const char *buf, size_t n)
{
	settle(sk);
	if (sk->shut & SHUT_WR_DONE)
		return -LX_EPIPE;
	if (!sk->connected)             /* Linux: EPIPE (and SIGPIPE) before a connection too */
		return sk->connecting ? -LX_EAGAIN : -LX_EPIPE;
	if (!n)
		return 0;
	size_t done = 0;
	while (done < n) {
		size_t c = n - done < TCP_CHUNK ? n - done : TCP_CHUNK;
		long r = send_tell(sk, buf + done, c, NULL);
		if (r < 0) {
			if (done)
				break;
			return r == -NET_ERR_NOTCONN ? -LX_EPIPE : errno_of(r);
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return done ? (long)done : -LX_EAGAIN;
}

static long inet_write(struct file *f, const void *buf, size_t n)
{
	struct inet_sock *sk = f->priv;
	if (sk->type == LX_SOCK_STREAM)
		return stream_send(sk, buf, n);
	if (!sk->has_peer)
		return -LX_EDESTADDRREQ;
	if (n > dgram_max(sk))
		return -LX_EMSGSIZE;
	long r = send_tell(sk, buf, n, &sk->peer);
	return r < 0 ? errno_of(r) : r;
}

/* The most a datagram of this socket holds. */
static size_t dgram_max(const struct inet_sock *sk)
{
	return sk->family == LX_AF_INET ? UDP4_MAX : UDP6_MAX;
}

/* A datagram to the address the call names (sendto, sendmsg with a name). */
static long send_to(struct thread *t, struct file *f, struct inet_sock *sk, struct sock_msg *m)
{
	struct net_addr to;
	long r = addr_in(t, sk, m->addr, m->addrlen, &to);
	if (r < 0)
		return r;
	if (m->total > dgram_max(sk))
		return -LX_EMSGSIZE;
	if (!sock_gather(t, m->iov, m->cnt, 0, file_bounce, m->total))
		return -LX_EFAULT;
	r = send_tell(sk, file_bounce, m->total, &to);
	if (r == -NET_ERR_AGAIN)
		return wait_on(t, sk, nonblocking(f, m->flags));
	if (r < 0)
		return errno_of(r);
	sk->bound = true;                 /* the server bound an ephemeral port if need be */
	return r;
}

/* A stream takes what fits of the first 64 KiB; a datagram (at most 64 KiB) goes whole. */
static long inet_send(struct thread *t, struct file *f, struct sock_msg *m)
{
	struct inet_sock *sk = f->priv;
	if (sk->type == LX_SOCK_DGRAM && m->addr && m->addrlen)
		return send_to(t, f, sk, m);
	size_t want = m->total < BOUNCE_SIZE ? m->total : BOUNCE_SIZE;
	if (sk->type == LX_SOCK_DGRAM && m->total > dgram_max(sk))
		return -LX_EMSGSIZE;
	if (!sock_gather(t, m->iov, m->cnt, 0, file_bounce, want))
		return -LX_EFAULT;
	long r = inet_write(f, file_bounce, want);
	if (r == -LX_EAGAIN)
		return wait_on(t, sk, nonblocking(f, m->flags));
	return r;
}

static long recv_dgram(struct thread *t, struct file *f, struct inet_sock *sk, struct sock_msg *m)
{
	struct net_addr from;
	const char *data;
	long r = dgram_take(sk, &data, &from, nonblocking(f, m->flags));
	if (r == -LX_EAGAIN)
		return wait_on(t, sk, nonblocking(f, m->flags));
	if (r < 0)
		return r;
	size_t full = (size_t)r, want = full < m->total ? full : m->total;
	if (m->flags & LX_MSG_PEEK)
		dgram_keep(sk, data, r, &from);
	/* a bad buffer or address: -EFAULT, and the datagram is gone (as Linux's udp_recvmsg) */
	size_t got = sock_scatter(t, m->iov, m->cnt, data, want);
	if (got < want)
		return -LX_EFAULT;
	m->mflags = full > m->total ? LX_MSG_TRUNC : 0;
	long a = addr_out(t, m->addr, m->addrlen, &from, sk->family);
	if (a < 0)
		return a;
	return (long)((m->flags & LX_MSG_TRUNC) ? full : got);
}

static long recv_stream(struct thread *t, struct file *f, struct inet_sock *sk, struct sock_msg *m)
{
	bool nonblock = nonblocking(f, m->flags);
	long r = stream_state(sk);
	if (r != -LX_EAGAIN)
		return r;
	size_t want = m->total < BOUNCE_SIZE ? m->total : BOUNCE_SIZE;
	if (!want)
		return 0;
	bool open;
	r = stream_take(sk, file_bounce, want, &open, nonblock);
	if (r == -LX_EAGAIN)
		return wait_on(t, sk, nonblock);
	if (r <= 0)
		return r;
	if ((m->flags & LX_MSG_WAITALL) && (size_t)r < want && open && !nonblock &&
	    !(m->flags & LX_MSG_PEEK)) {
		stash_put(sk, file_bounce, (size_t)r, NULL);   /* all of it, once all is there */
		if (sk->stash_len == (u32)r)
			return wait_on(t, sk, false);
	}
	size_t got = sock_scatter(t, m->iov, m->cnt, file_bounce, (size_t)r);
	if (!got) {
		stash_put(sk, file_bounce, (size_t)r, NULL);
		return -LX_EFAULT;
	}
	if (m->flags & LX_MSG_PEEK)
		stash_put(sk, file_bounce, (size_t)r, NULL);
	else if (got < (size_t)r)
		stash_put(sk, file_bounce + got, (size_t)r - got, NULL);
	if (m->addr && m->addrlen) {
		int zero = 0;                   /* a stream's recvfrom names no sender */
		if (!copyout(t->proc, m->addrlen, &zero, sizeof(zero)))
			return -LX_EFAULT;
	}
	return (long)got;
}

static long inet_recv(struct thread *t, struct file *f, struct sock_msg *m)
{
	struct inet_sock *sk = f->priv;
	if (sk->type == LX_SOCK_DGRAM)
		return recv_dgram(t, f, sk, m);
	return recv_stream(t, f, sk, m);
}

static int inet_poll(struct file *f)
{
	struct inet_sock *sk = f->priv;
	int ev = 0;
	settle(sk);
	if (sk->stash_len || sk->stash_dgram || fetch_owner == sk || (sk->shut & SHUT_RD_DONE))
		ev |= LX_POLLIN;
	if (sk->type == LX_SOCK_STREAM && !sk->connected && !sk->connecting && !sk->listening)
		return ev | LX_POLLOUT | LX_POLLHUP;    /* as Linux's tcp_poll in TCP_CLOSE */
	unsigned e = events(sk, NET_EV_IN | NET_EV_OUT);
	if (e & NET_EV_NVAL)
		return ev | LX_POLLERR;
	ev |= (e & NET_EV_IN ? LX_POLLIN : 0) | (e & NET_EV_OUT ? LX_POLLOUT : 0) |
	      (e & NET_EV_ERR ? LX_POLLERR : 0) | (e & NET_EV_HUP ? LX_POLLHUP : 0);
	if (sk->shut & SHUT_WR_DONE)
		ev &= ~LX_POLLOUT;
	return ev;
}

static void *inet_wchan(struct file *f)
{
	return &chans[((struct inet_sock *)f->priv)->h];
}

#define LX_FIONREAD 0x541b

static long inet_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	struct inet_sock *sk = f->priv;
	if ((u32)cmd != LX_FIONREAD)
		return -LX_ENOTTY;
	int n = (int)(fetch_owner == sk ? fetch_len : sk->stash_len);   /* at least what lx holds */
	if (!n && !sk->stash_dgram && fetch_owner != sk && (events(sk, NET_EV_IN) & NET_EV_IN)) {
		bool open;
		struct net_addr from;
		const char *data = file_bounce;
		long r = sk->type == LX_SOCK_DGRAM ? dgram_take(sk, &data, &from, true)
						   : stream_take(sk, file_bounce, NET_IO_MAX, &open, true);
		if (sk->type == LX_SOCK_DGRAM && r >= 0)
			r = dgram_keep(sk, data, r, &from);
		else if (r > 0)
			stash_put(sk, file_bounce, (size_t)r, NULL);
		n = r > 0 ? (int)r : 0;
	}
	return copyout(t->proc, arg, &n, sizeof(n)) ? 0 : -LX_EFAULT;
}

static const struct file_ops inet_fops = {
	.read = inet_read, .write = inet_write, .poll = inet_poll, .wchan = inet_wchan,
	.ioctl = inet_ioctl, .release = inet_release, .unread = inet_unread,
};

/* UDP sockets' (inet_family.fops2): read(2) without the bounce buffer */
static const struct file_ops dgram_fops = {
	.read = inet_read, .write = inet_write, .poll = inet_poll, .wchan = inet_wchan,
	.ioctl = inet_ioctl, .release = inet_release, .unread = inet_unread, .read_user = dgram_read_user,
};

/* --- the rest --- */

static long inet_shutdown(struct thread *t, struct file *f, int how)
{
	(void)t;
	struct inet_sock *sk = f->priv;
	if (sk->type == LX_SOCK_STREAM ? !sk->connected && !sk->listening : !sk->has_peer)
		return -LX_ENOTCONN;
	u32 mode = (u32)how + 1;          /* SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2 */
	if ((mode & SHUT_WR_DONE) && sk->type == LX_SOCK_STREAM && sk->connected &&
	    !(sk->shut & SHUT_WR_DONE))
		NET(net_shutdown(sk->h, NET_SHUT_WR));
	sk->shut |= mode;
	wake(&chans[sk->h]);
	return 0;
}

static long inet_name(struct thread *t, struct file *f, u64 uaddr, u64 ulen, bool peer)
{
	struct inet_sock *sk = f->priv;
	struct net_addr a = { (uint16_t)sk->family, 0, 0, { 0 } };
	if (peer && sk->type == LX_SOCK_DGRAM) {
		if (!sk->has_peer)
			return -LX_ENOTCONN;
		a = sk->peer;
	} else if (peer && (settle(sk), !sk->connected)) {
		return -LX_ENOTCONN;
	} else {
		long r = NET(net_name(sk->h, peer, &a));
		if (r < 0 && !(r == -NET_ERR_NOTCONN && !peer))
			return errno_of(r);
	}
	return addr_out(t, uaddr, ulen, &a, sk->family);
}

/* The int option of setsockopt, or -errno. */
static long opt_int(struct thread *t, u64 val, u64 len, int *v)
{
	if ((int)len < (int)sizeof(*v))
		return -LX_EINVAL;
	return copyin(t->proc, v, val, sizeof(*v)) ? 0 : -LX_EFAULT;
}

static long inet_setsockopt(struct thread *t, struct file *f, int level, int name, u64 val, u64 len)
{
	struct inet_sock *sk = f->priv;
	int v;
	long r = opt_int(t, val, len, &v);
	if (r < 0)
		return r;
	if (level == LX_SOL_SOCKET) {
		switch (name) {
		case SO_REUSEADDR: sk->reuseaddr = v != 0; return 0;
		case SO_REUSEPORT: sk->reuseport = v != 0; return 0;
		case SO_KEEPALIVE: sk->keepalive = v != 0; return 0;
		case SO_BROADCAST: case SO_LINGER: return 0;
		case SO_RCVBUF: sk->rcvbuf = v < 1152 ? 2304 : v > 0x3fffffff ? 0x7ffffffe : 2 * v; return 0;
		case SO_SNDBUF: sk->sndbuf = v < 2304 ? 4608 : v > 0x3fffffff ? 0x7ffffffe : 2 * v; return 0;
		default: return -LX_ENOPROTOOPT;
		}
	}
	if (level == IPPROTO_TCP && sk->type == LX_SOCK_STREAM && name == TCP_NODELAY) {
		if ((r = NET(net_setopt(sk->h, NET_OPT_NODELAY, v != 0))) < 0)
			return errno_of(r);
		sk->nodelay = v != 0;
		return 0;
	}
	if (level == IPPROTO_IPV6 && sk->family == LX_AF_INET6 && name == IPV6_V6ONLY) {
		if (sk->bound)
			return -LX_EINVAL;      /* as Linux: fixed once the socket has a port */
		sk->v6only = v != 0;
		return 0;
	}
	return -LX_ENOPROTOOPT;
}

/* The value of an int option, or -ENOPROTOOPT. */
static long opt_value(struct inet_sock *sk, int level, int name)
{
	if (level == IPPROTO_TCP && sk->type == LX_SOCK_STREAM && name == TCP_NODELAY)
		return sk->nodelay;
	if (level == IPPROTO_IPV6 && sk->family == LX_AF_INET6 && name == IPV6_V6ONLY)
		return sk->v6only;
	if (level != LX_SOL_SOCKET)
		return -LX_ENOPROTOOPT;
	switch (name) {
	case SO_TYPE: return sk->type;
	case SO_DOMAIN: return sk->family;
	case SO_PROTOCOL: return sk->proto;
	case SO_ACCEPTCONN: return sk->listening;
	case SO_REUSEADDR: return sk->reuseaddr;
	case SO_REUSEPORT: return sk->reuseport;
	case SO_KEEPALIVE: return sk->keepalive;
	case SO_RCVBUF: return sk->rcvbuf;
	case SO_SNDBUF: return sk->sndbuf;
	case SO_ERROR: {
		settle(sk);                     /* a refused non-blocking connect is told once */
		int e = sk->err;
		sk->err = 0;
		return e;
	}
	default: return -LX_ENOPROTOOPT;
	}
}

static long inet_getsockopt(struct thread *t, struct file *f, int level, int name, u64 uval, u64 ulen)
{
	int room;
	if (!copyin(t->proc, &room, ulen, sizeof(room)))
		return -LX_EFAULT;
	if (room < 0)
		return -LX_EINVAL;
	long v = opt_value(f->priv, level, name);
	if (v < 0)
		return v;
	int iv = (int)v;
	return sock_put_sized(t, uval, ulen, room, &iv, (int)sizeof(iv), false);
}

static const struct sock_ops inet_ops = {
	.bind = inet_bind, .listen = inet_listen, .accept = inet_accept, .connect = inet_connect,
	.send = inet_send, .recv = inet_recv, .shutdown = inet_shutdown, .name = inet_name,
	.setsockopt = inet_setsockopt, .getsockopt = inet_getsockopt,
};

const struct sock_family inet_family = {
	.domain = LX_AF_INET, .domain2 = LX_AF_INET6, .socket = inet_socket,
	.socketpair = inet_socketpair, .fops = &inet_fops, .ops = &inet_ops, .fops2 = &dgram_fops,
};

/* --- /proc/net --- */

/* n upper-case hex digits of v (Linux's /proc/net format) at out. */
static char *hex(char *out, u64 v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 4)
		out[i] = "0123456789ABCDEF"[v & 15];
	return out + n;
}

/* ADDR:PORT as /proc/net/tcp{,6} write them: the address's 32-bit words in memory order. */
static char *proc_addr(char *out, const struct net_addr *a, bool six)
{
	for (int w = 0; w < (six ? 4 : 1); w++) {
		uint32_t v;
		memcpy(&v, a->addr + 4 * w, 4);
		out = hex(out, v, 8);
	}
	*out++ = ':';
	return hex(out, a->port, 4);
}

/* Linux's TCP states: 01 established, 02 SYN sent, 07 closed, 0A listening. */
static int proc_state(struct inet_sock *sk)
{
	if (sk->type == LX_SOCK_DGRAM)
		return sk->has_peer ? 1 : 7;
	settle(sk);
	return sk->listening ? 10 : sk->connected ? 1 : sk->connecting ? 2 : 7;
}

/* One socket's line: "sl: local remote st tx:rx tr:when retr uid timeout inode". */
static size_t proc_line(char *out, int sl, struct inet_sock *sk, bool six)
{
	struct net_addr l = { 0 }, r = { 0 };
	NET(net_name(sk->h, 0, &l));
	if (sk->type == LX_SOCK_DGRAM && sk->has_peer)
		r = sk->peer;
	else if (sk->connected)
		NET(net_name(sk->h, 1, &r));
	char *p = out + snfmt(out, 16, "%4d: ", sl);
	p = proc_addr(p, &l, six);
	*p++ = ' ';
	p = proc_addr(p, &r, six);
	*p++ = ' ';
	p = hex(p, (u64)proc_state(sk), 2);
	p += snfmt(p, 96, " 00000000:%08d 00:00000000 00000000 %5d %8d %lu 1\n", 0, 0, 0,
		   1000 + (unsigned long)sk->h);
	return (size_t)(p - out);
}

static long proc_sockets(char *buf, size_t len, int type, int family)
{
	static const char head[] = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
				   "retrnsmt   uid  timeout inode\n";
	bool six = family == LX_AF_INET6;
	size_t n = sizeof(head) - 1, line = six ? 200 : 160;
	if (len < n)
		return -LX_EINVAL;
	memcpy(buf, head, n);
	int sl = 0;
	for (struct inet_sock *sk = all; sk && n + line <= len; sk = sk->next)
		if (sk->type == type && sk->family == family)
			n += proc_line(buf + n, sl++, sk, six);
	return (long)n;
}

/* The interfaces: what the server counts (frames in, dropped, refused); bytes are not counted. */
static long proc_dev(char *buf, size_t len)
{
	struct net_info i = { 0 };
	NET(net_info(&i));
	return snfmt(buf, len,
		     "Inter-|   Receive                                                |  Transmit\n"
		     " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
		     "errs drop fifo colls carrier compressed\n"
		     "    lo:       0       0    0    0    0     0          0         0        0       0 "
		     "   0    0    0     0       0          0\n"
		     "  eth0:       0 %7lu    0 %4lu    0     0          0         0        0       0 "
		     "%4lu    0    0     0       0          0\n",
		     i.frames_in, i.dropped, i.refused);
}

long net_proc_read(const char *name, char *buf, size_t len)
{
	if (!netsrv_up())
		return -LX_ENOENT;
	if (!strcmp(name, "tcp"))
		return proc_sockets(buf, len, LX_SOCK_STREAM, LX_AF_INET);
	if (!strcmp(name, "tcp6"))
		return proc_sockets(buf, len, LX_SOCK_STREAM, LX_AF_INET6);
	if (!strcmp(name, "udp"))
		return proc_sockets(buf, len, LX_SOCK_DGRAM, LX_AF_INET);
	if (!strcmp(name, "udp6"))
		return proc_sockets(buf, len, LX_SOCK_DGRAM, LX_AF_INET6);
	if (!strcmp(name, "dev"))
		return proc_dev(buf, len);
	return -LX_ENOENT;
}
