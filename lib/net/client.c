// SPDX-License-Identifier: MIT
// Client side of the network server.
#include "client.h"
#include <l4/drivers.h>
#include "../c/string.h"

L4_ThreadId_t pecan_net;
L4_Word_t net_call_timeouts;

/* The server's answer tag to a request with this label: 0, or minus the reason. */
static long answer(L4_MsgTag_t tag, L4_Word_t label)
{
	if (L4_IpcFailed(tag))
		return -NET_ERR_IPC;
	if (L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_TAG_U(tag) == 1)
		return -(long)L4_MR(1);
	return L4_TAG_LABEL(tag) == label ? 0 : -DRIVER_ERR_REQUEST;
}

/* Call the server with the message in the MRs and these timeouts: 0, or minus the reason. */
static long call_timeouts(L4_Word_t label, L4_Word_t timeouts)
{
	return answer(L4_Ipc(pecan_net, pecan_net, timeouts, 0), label);
}

/* A call that the server answers at once: bounded by net_call_timeouts. */
static long call(L4_Word_t label)
{
	return call_timeouts(label, net_call_timeouts);
}

static void put_addr(int mr, const struct net_addr *a)
{
	L4_Word_t w[2] = { 0, 0 };
	struct net_addr none = { 0 };
	if (!a)
		a = &none;
	memcpy(w, a->addr, 16);
	L4_SetMR(mr, a->family | (L4_Word_t)a->port << 16 | (L4_Word_t)a->flowinfo << 32);
	L4_SetMR(mr + 1, w[0]);
	L4_SetMR(mr + 2, w[1]);
}

static void get_addr(int mr, struct net_addr *a)
{
	if (!a)
		return;
	L4_Word_t w0 = L4_MR(mr), w[2] = { L4_MR(mr + 1), L4_MR(mr + 2) };
	a->family = (uint16_t)w0;
	a->port = (uint16_t)(w0 >> 16);
	a->flowinfo = (uint32_t)(w0 >> 32);
	memcpy(a->addr, w, 16);
}

struct net_addr net_addr4(const uint8_t *ip4, uint16_t port)
{
	struct net_addr a = { NET_AF_INET, port, 0, { 0 } };
	if (ip4)
		memcpy(a.addr, ip4, 4);
	return a;
}

struct net_addr net_addr6(const uint8_t *ip6, uint16_t port)
{
	struct net_addr a = { NET_AF_INET6, port, 0, { 0 } };
	if (ip6)
		memcpy(a.addr, ip6, 16);
	return a;
}

static long simple(L4_Word_t label, L4_Word_t u, L4_Word_t a, L4_Word_t b, L4_Word_t c)
{
	L4_SetMR(0, L4_TAG_MAKE(label, u, 0));
	L4_SetMR(1, a);
	L4_SetMR(2, b);
	L4_SetMR(3, c);
	return call(label);
}

long net_socket(unsigned family, unsigned type)
{
	long err = simple(NET_SOCKET, 2, family, type, 0);
	return err ? err : (long)L4_MR(1);
}

static long with_addr(L4_Word_t label, long h, const struct net_addr *a)
{
	L4_SetMR(0, L4_TAG_MAKE(label, 4, 0));
	L4_SetMR(1, (L4_Word_t)h);
	put_addr(2, a);
	return call(label);
}

long net_bind(long h, const struct net_addr *a) { return with_addr(NET_BIND, h, a); }
long net_connect(long h, const struct net_addr *a) { return with_addr(NET_CONNECT, h, a); }
long net_listen(long h, unsigned backlog) { return simple(NET_LISTEN, 2, (L4_Word_t)h, backlog, 0); }
long net_shutdown(long h, unsigned how) { return simple(NET_SHUTDOWN, 2, (L4_Word_t)h, how, 0); }
long net_close(long h) { return simple(NET_CLOSE, 1, (L4_Word_t)h, 0, 0); }
long net_setopt(long h, unsigned opt, uint64_t v) { return simple(NET_SETOPT, 3, (L4_Word_t)h, opt, v); }

long net_accept(long h, struct net_addr *peer)
{
	long err = simple(NET_ACCEPT, 1, (L4_Word_t)h, 0, 0);
	if (err)
		return err;
	get_addr(2, peer);
	return (long)L4_MR(1);
}

long net_name(long h, int peer, struct net_addr *out)
{
	long err = simple(NET_NAME, 2, (L4_Word_t)h, peer != 0, 0);
	if (!err)
		get_addr(1, out);
	return err;
}

long net_send(long h, const void *buf, unsigned long len, const struct net_addr *to)
{
	return net_send_tell(h, buf, len, to, 0);
}

long net_send_tell(long h, const void *buf, unsigned long len, const struct net_addr *to,
		   uint64_t *changed)
{
	return net_send_fetch(h, buf, len, to, changed, 0);
}

/* The datagram of a SEND's answer (u = 7), if one came, into *f. */
static void fetched(L4_MsgTag_t tag, struct net_fetch *f)
{
	f->h = -1;
	if (L4_TAG_U(tag) != 7 || L4_TAG_T(tag) != 2)
		return;
	f->h = (long)L4_MR(3);
	f->len = (long)(L4_MR(4) & ~NET_RECV_DRAINED);
	f->drained = (L4_MR(4) & NET_RECV_DRAINED) != 0;
	get_addr(5, &f->from);
}

long net_send_fetch(long h, const void *buf, unsigned long len, const struct net_addr *to,
		    uint64_t *changed, struct net_fetch *f)
{
	unsigned u = f && changed && f->handles ? 5 : 4;
	if (len > NET_IO_MAX)
		len = NET_IO_MAX;
	L4_SetMR(0, L4_TAG_MAKE(NET_SEND, u, 2));
	L4_SetMR(1, (L4_Word_t)h | (changed ? NET_SEND_TELL : 0));
	put_addr(2, to);
	L4_SetMR(u + 1, L4_STRING_MAKE(len, 1, 0, 0));
	L4_SetMR(u + 2, (L4_Word_t)buf);
	if (u == 5) {
		L4_SetMR(5, f->handles);
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(NET_IO_MAX, 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)f->buf);
	}
	L4_MsgTag_t tag = L4_Ipc(pecan_net, pecan_net, net_call_timeouts, 0);
	long err = answer(tag, NET_SEND);
	if (u == 5)
		L4_SetBR(0, 0);
	if (changed)
		*changed = err ? 0 : L4_MR(2);
	if (f)
		fetched(err ? 0 : tag, f);
	return err ? err : (long)L4_MR(1);
}

long net_recv(long h, void *buf, unsigned long max, struct net_addr *from)
{
	bool drained;
	return net_recv_drained(h, buf, max, from, &drained);
}

long net_recv_drained(long h, void *buf, unsigned long max, struct net_addr *from, bool *drained)
{
	if (max > NET_IO_MAX)
		max = NET_IO_MAX;
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(max, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)buf);
	long err = simple(NET_RECV, 2, (L4_Word_t)h, max, 0);
	L4_SetBR(0, 0);
	if (err)
		return err;
	get_addr(2, from);
	*drained = (L4_MR(1) & NET_RECV_DRAINED) != 0;
	return (long)(L4_MR(1) & ~NET_RECV_DRAINED);
}

long net_poll(const long *h, const unsigned *want, unsigned *ev, unsigned n, uint64_t timeout_us)
{
	if (n == 0 || n > NET_POLL_MAX)
		return -NET_ERR_INVAL;
	L4_SetMR(0, L4_TAG_MAKE(NET_POLL, 1 + n, 0));
	L4_SetMR(1, timeout_us);
	for (unsigned i = 0; i < n; i++)
		L4_SetMR((int)i + 2, (L4_Word_t)(uint32_t)h[i] | (L4_Word_t)want[i] << 32);
	long err = call_timeouts(NET_POLL, timeout_us ? 0 : net_call_timeouts);
	long ready = 0;
	for (unsigned i = 0; !err && i < n; i++)
		ready += (ev[i] = (unsigned)L4_MR((int)i + 1)) != 0;
	return err ? err : ready;
}

long net_info(struct net_info *out)
{
	L4_SetMR(0, L4_TAG_MAKE(NET_INFO, 0, 0));
	long err = call(NET_INFO);
	if (err)
		return err;
	L4_Word_t mac = L4_MR(1), ip4 = L4_MR(2), ip6[2] = { L4_MR(3), L4_MR(4) };
	for (int i = 0; i < 6; i++)
		out->mac[i] = (uint8_t)(mac >> (8 * i));
	memcpy(out->ip4, &ip4, 4);
	out->ip4_prefix = (unsigned)(ip4 >> 32);
	memcpy(out->ip6, ip6, 16);
	out->ip6_prefix = (unsigned)L4_MR(5);
	out->frames_in = L4_MR(6);
	out->dropped = L4_MR(7);
	out->refused = L4_MR(8);
	return 0;
}

long net_watch(uint64_t *changed)
{
	L4_SetMR(0, L4_TAG_MAKE(NET_WATCH, 0, 0));
	long err = call_timeouts(NET_WATCH, 0);
	if (!err)
		*changed = L4_MR(1);
	return err;
}

/* Wait for `want` on h; 0 when it (or an error/hang-up) came, -NET_ERR_AGAIN on timeout. */
static long wait_for(long h, unsigned want, uint64_t timeout_us)
{
	unsigned ev;
	long r = net_poll(&h, &want, &ev, 1, timeout_us);
	if (r < 0)
		return r;
	if (ev & NET_EV_NVAL)
		return -NET_ERR_HANDLE;
	return r ? 0 : -NET_ERR_AGAIN;
}

long net_wait_accept(long h, struct net_addr *peer, uint64_t timeout_us)
{
	long r;
	while ((r = net_accept(h, peer)) == -NET_ERR_AGAIN)
		if ((r = wait_for(h, NET_EV_IN, timeout_us)) < 0)
			return r;
	return r;
}

long net_wait_connect(long h, const struct net_addr *a, uint64_t timeout_us)
{
	long r = net_connect(h, a);
	if (r < 0)
		return r;
	unsigned want = NET_EV_OUT, ev;
	r = net_poll(&h, &want, &ev, 1, timeout_us);
	if (r < 0)
		return r;
	if (ev & (NET_EV_ERR | NET_EV_HUP))
		return -NET_ERR_CONNREFUSED;
	return ev & NET_EV_OUT ? 0 : -NET_ERR_AGAIN;
}

long net_wait_recv(long h, void *buf, unsigned long max, struct net_addr *from, uint64_t timeout_us)
{
	long r;
	while ((r = net_recv(h, buf, max, from)) == -NET_ERR_AGAIN)
		if ((r = wait_for(h, NET_EV_IN, timeout_us)) < 0)
			return r;
	return r;
}

long net_wait_send(long h, const void *buf, unsigned long len, const struct net_addr *to, uint64_t timeout_us)
{
	unsigned long done = 0;
	while (done < len || (len == 0 && done == 0)) {
		long r = net_send(h, (const char *)buf + done, len - done, to);
		if (r == -NET_ERR_AGAIN) {
			if ((r = wait_for(h, NET_EV_OUT, timeout_us)) < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		done += (unsigned long)r;
		if (len == 0 || to)
			break;                 /* a datagram goes whole */
	}
	return (long)done;
}
