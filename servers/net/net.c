// SPDX-License-Identifier: MIT
// The network server: the socket protocol of include/l4/net.h served by IPC
// over the TCP/IP stack (stack.h, smoltcp), whose frames go to and come from
// the NIC driver (lib/nic).  One thread does everything: it waits for a
// request, a NIC notification or the stack's next timer, then drains the
// NIC, runs the stack and answers the POLLs whose handles became ready.
#include "net.h"
#include "stack.h"
#include <l4/drivers.h>
#include <l4/nic.h>
#include "../../lib/c/stdio.h"
#include "../../lib/c/string.h"
#include "../../lib/nic/client.h"

#define MAX_WAITERS  16
#define RX_CHECK_MS  20       /* the NIC is asked at least this often (lost notifications) */

/* A POLL waiting for readiness or its deadline. */
struct waiter {
	L4_ThreadId_t client;     /* 0: free slot */
	L4_Word_t deadline_us;    /* NET_POLL_FOREVER: none */
	unsigned n;
	L4_Word_t req[NET_POLL_MAX];
};

static struct waiter waiters[MAX_WAITERS];
static int waiting;                /* waiters in use: none, and the rounds skip the table */
/* page-aligned: a SEND or RECV string of up to a page lies in one page, which the
 * kernel's short-string path takes (lx's bounce buffer is aligned so too) */
static uint8_t io[NET_IO_MAX] __attribute__((aligned(4096)));
static uint8_t frame[NIC_FRAME_MAX] __attribute__((aligned(16)));
static struct stack_config config;
static int have_nic;
/* WATCH: the handles that gained events since the last answer (stack_changed) */
static L4_ThreadId_t watcher;
static uint64_t changed;
static uint64_t frames_in, frames_refused;

static uint64_t now_ms(void)
{
	return L4_SystemClock() / 1000;
}

static void tx(const uint8_t *f, size_t len)
{
	if (have_nic && nic_send(f, (uint32_t)len) < 0)
		frames_refused++;
}

/*
 * What the Rust core library in the stack needs beyond lib/c: bcmp (its
 * slice compares), and the unwinding personality its precompiled objects
 * name, which panic=abort never calls.
 */
int bcmp(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n);
}

void rust_eh_personality(void)
{
	stack_panic();
}

void stack_panic(void)
{
	printf("net: the TCP/IP stack panicked; the server stops\n");
	for (;;)
		L4_Sleep(~0UL >> 1);
}

/* Everything the NIC has, into the stack (bounded by the stack's receive ring). */
static void drain_nic(void)
{
	while (have_nic && stack_input_room() > 0) {
		long n = nic_recv(frame);
		if (n < 0)
			return;
		frames_in++;
		stack_input(frame, (size_t)n);
	}
}

/* ---- addresses in messages: three words ("A" in include/l4/net.h) ---- */

static struct net_addr get_addr(int mr)
{
	struct net_addr a;
	L4_Word_t w0 = L4_MR(mr), w[2] = { L4_MR(mr + 1), L4_MR(mr + 2) };
	a.family = (uint16_t)w0;
	a.port = (uint16_t)(w0 >> 16);
	a.flowinfo = (uint32_t)(w0 >> 32);
	memcpy(a.addr, w, 16);
	return a;
}

static void set_addr(int mr, const struct net_addr *a)
{
	L4_Word_t w[2];
	memcpy(w, a->addr, 16);
	L4_SetMR(mr, a->family | (L4_Word_t)a->port << 16 | (L4_Word_t)a->flowinfo << 32);
	L4_SetMR(mr + 1, w[0]);
	L4_SetMR(mr + 2, w[1]);
}

static void reply_error(L4_ThreadId_t to, L4_Word_t code)
{
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_ERROR, 1, 0));
	L4_SetMR(1, code);
	L4_Reply(to);
}

/* Answer r < 0 as an error, else with label and u words already in MR1... */
static void reply(L4_ThreadId_t to, int64_t r, L4_Word_t label, L4_Word_t u)
{
	if (r < 0)
		return reply_error(to, (L4_Word_t)-r);
	L4_SetMR(0, L4_TAG_MAKE(label, u, 0));
	L4_Reply(to);
}

static void answer_waiters(void);

/* Set by run_stack: the loop need not run the stack again this round. */
static int stack_ran;
/* Set by a SEND that took stack_changed after its run: nothing changed since. */
static int changes_taken;

/* The NIC's frames in, the stack run, the POLLs it made ready answered. */
static void run_stack(void)
{
	drain_nic();
	stack_poll(now_ms());
	answer_waiters();
	stack_ran = 1;
}

/* ---- requests ---- */

/*
 * A datagram of the first of `handles` that has one into io, as the rest of
 * SEND's answer (MR3 on, include/l4/net.h): its u, or 0 if none had one.
 */
static L4_Word_t fetch_datagram(L4_Word_t handles)
{
	for (; handles; handles &= handles - 1) {
		int64_t h = __builtin_ctzl(handles);
		struct net_addr a = { 0 };
		int64_t r = stack_recv_datagram(h, io, NET_IO_MAX, &a);
		if (r < 0)
			continue;
		int64_t ev = stack_events(h);
		L4_SetMR(3, (L4_Word_t)h);
		L4_SetMR(4, (L4_Word_t)r | (ev >= 0 && !(ev & NET_EV_IN) ? NET_RECV_DRAINED : 0));
		set_addr(5, &a);
		L4_SetMR(8, L4_STRING_MAKE((L4_Word_t)r, 1, 0, 0));
		L4_SetMR(9, (L4_Word_t)io);
		return 7;
	}
	return 0;
}

/*
 * SEND runs the stack before it answers, so that the answer can tell the
 * handles that gained events in that run (NET_SEND_TELL): a datagram or a
 * segment over the loopback has then reached its receiver, whose waiting
 * calls the client wakes without a WATCH answer in between; and with u = 5
 * one such datagram comes along, so that its reader needs no RECV.
 */
static void do_send(L4_ThreadId_t from, L4_Word_t u)
{
	L4_Word_t h = L4_MR(1) & ~NET_SEND_TELL, tell = L4_MR(1) & NET_SEND_TELL, item = L4_MR(u + 1);
	L4_Word_t fetch = u == 5 && tell ? L4_MR(5) : 0;
	struct net_addr a = get_addr(2);
	if (!L4_STRING_IS(item) || L4_STRING_LEN(item) > NET_IO_MAX)
		return reply_error(from, DRIVER_ERR_REQUEST);
	int64_t r = stack_send((int64_t)h, io, L4_STRING_LEN(item), a.family ? &a : NULL);
	run_stack();                     /* sends to the NIC and answers POLLs: MRs are free after */
	if (r < 0)
		return reply_error(from, (L4_Word_t)-r);
	changed |= stack_changed();
	changes_taken = 1;
	L4_Word_t fetched = fetch ? fetch_datagram(changed & fetch) : 0;
	L4_SetMR(0, fetched ? L4_TAG_MAKE(NET_SEND, fetched, 2) : L4_TAG_MAKE(NET_SEND, 2, 0));
	L4_SetMR(1, (L4_Word_t)r);
	L4_SetMR(2, tell ? changed : 0);
	if (!L4_IpcFailed(L4_Reply(from)) && tell)
		changed = 0;                 /* told: not to WATCH */
}

static void do_recv(L4_ThreadId_t from)
{
	L4_Word_t h = L4_MR(1), max = L4_MR(2);
	struct net_addr a = { 0 };
	if (max > NET_IO_MAX)
		max = NET_IO_MAX;
	int64_t r = stack_recv((int64_t)h, io, max, &a);
	if (r < 0)
		return reply_error(from, (L4_Word_t)-r);
	int64_t ev = stack_events((int64_t)h);
	L4_SetMR(0, L4_TAG_MAKE(NET_RECV, 4, 2));
	L4_SetMR(1, (L4_Word_t)r | (ev >= 0 && !(ev & NET_EV_IN) ? NET_RECV_DRAINED : 0));
	set_addr(2, &a);
	L4_SetMR(5, L4_STRING_MAKE((L4_Word_t)r, 1, 0, 0));
	L4_SetMR(6, (L4_Word_t)io);
	L4_Reply(from);
}

static void do_accept(L4_ThreadId_t from)
{
	struct net_addr a = { 0 };
	int64_t r = stack_accept((int64_t)L4_MR(1), &a);
	L4_SetMR(1, (L4_Word_t)r);
	set_addr(2, &a);
	reply(from, r, NET_ACCEPT, 4);
}

static void do_name(L4_ThreadId_t from)
{
	struct net_addr a = { 0 };
	L4_Word_t which = L4_MR(2);
	int64_t r = which > 1 ? -NET_ERR_INVAL : stack_name((int64_t)L4_MR(1), (uint32_t)which, &a);
	set_addr(1, &a);
	reply(from, r, NET_NAME, 3);
}

static void do_info(L4_ThreadId_t from)
{
	L4_Word_t mac = 0, ip4 = 0, ip6[2];
	for (int i = 0; i < 6; i++)
		mac |= (L4_Word_t)config.mac[i] << (8 * i);
	memcpy(&ip4, config.ip4, 4);
	memcpy(ip6, config.ip6, 16);
	L4_SetMR(0, L4_TAG_MAKE(NET_INFO, 8, 0));
	L4_SetMR(1, mac);
	L4_SetMR(2, ip4 | (L4_Word_t)config.ip4_prefix << 32);
	L4_SetMR(3, ip6[0]);
	L4_SetMR(4, ip6[1]);
	L4_SetMR(5, config.ip6_prefix);
	L4_SetMR(6, frames_in);
	L4_SetMR(7, stack_dropped());
	L4_SetMR(8, frames_refused);
	L4_Reply(from);
}

/* ---- POLL ---- */

static L4_Word_t revents(L4_Word_t req)
{
	int64_t ev = stack_events((int64_t)(uint32_t)req);
	if (ev < 0)
		return NET_EV_NVAL;
	return (L4_Word_t)ev & ((req >> 32) | NET_EV_ERR | NET_EV_HUP);
}

/* Answer w if a handle is ready or its time is up (force: answer anyway); 1 if answered. */
static int poll_answer(struct waiter *w, int force)
{
	L4_Word_t ev[NET_POLL_MAX], any = 0;
	for (unsigned i = 0; i < w->n; i++)
		any |= ev[i] = revents(w->req[i]);
	if (!any && !force && (w->deadline_us == NET_POLL_FOREVER || L4_SystemClock() < w->deadline_us))
		return 0;
	L4_SetMR(0, L4_TAG_MAKE(NET_POLL, w->n, 0));
	for (unsigned i = 0; i < w->n; i++)
		L4_SetMR((int)i + 1, ev[i]);
	L4_Reply(w->client);
	w->client = 0;
	return 1;
}

static void do_poll(L4_ThreadId_t from, L4_Word_t u)
{
	struct waiter w = { from, L4_MR(1), (unsigned)(u - 1), { 0 } };
	if (u < 2 || u - 1 > NET_POLL_MAX)
		return reply_error(from, DRIVER_ERR_REQUEST);
	for (unsigned i = 0; i < w.n; i++)
		w.req[i] = L4_MR((int)i + 2);
	if (w.deadline_us != NET_POLL_FOREVER)
		w.deadline_us = L4_SystemClock() + (w.deadline_us < (1UL << 40) ? w.deadline_us : 1UL << 40);
	if (poll_answer(&w, L4_MR(1) == 0))
		return;
	for (int i = 0; i < MAX_WAITERS; i++)
		if (!waiters[i].client || waiters[i].client == from) {
			waiting += !waiters[i].client;
			waiters[i] = w;        /* a client's new POLL replaces one it abandoned */
			return;
		}
	reply_error(from, DRIVER_ERR_BUSY);
}

static void answer_waiters(void)
{
	for (int i = 0; waiting && i < MAX_WAITERS; i++)
		if (waiters[i].client)
			waiting -= poll_answer(&waiters[i], 0);
}

/* ---- WATCH ---- */

/* Note every handle that gained events since the last round; answer the watcher if any did. */
static void watch_round(void)
{
	if (!changes_taken)
		changed |= stack_changed();
	if (!watcher || !changed)
		return;
	L4_SetMR(0, L4_TAG_MAKE(NET_WATCH, 1, 0));
	L4_SetMR(1, changed);
	L4_ThreadId_t to = watcher;
	watcher = 0;
	if (!L4_IpcFailed(L4_Reply(to)))
		changed = 0;                 /* else kept for the next WATCH */
}

/* ---- dispatch ---- */

/* Requests without a string: label, the u they need, and how they run. */
static void handle(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag), u = L4_TAG_U(tag), t = L4_TAG_T(tag);
	int64_t h = (int64_t)L4_MR(1);
	struct net_addr a;
	if (label == NET_SEND && (u == 4 || u == 5) && t == 2)
		return do_send(from, u);
	if (t != 0)
		return reply_error(from, DRIVER_ERR_REQUEST);
	switch (label) {
	case NET_SOCKET:
		if (u != 2)
			break;
		h = stack_socket((uint16_t)L4_MR(1), (uint32_t)L4_MR(2));
		L4_SetMR(1, (L4_Word_t)h);
		return reply(from, h, label, 1);
	case NET_BIND:
	case NET_CONNECT:
		if (u != 4)
			break;
		a = get_addr(2);
		return reply(from, label == NET_BIND ? stack_bind(h, &a) : stack_connect(h, &a), label, 0);
	case NET_LISTEN:
		return u != 2 ? reply_error(from, DRIVER_ERR_REQUEST)
			      : reply(from, stack_listen(h, (uint32_t)(L4_MR(2) > 8 ? 8 : L4_MR(2))), label, 0);
	case NET_ACCEPT:
		return u != 1 ? reply_error(from, DRIVER_ERR_REQUEST) : do_accept(from);
	case NET_RECV:
		return u != 2 ? reply_error(from, DRIVER_ERR_REQUEST) : do_recv(from);
	case NET_SHUTDOWN:
		return u != 2 ? reply_error(from, DRIVER_ERR_REQUEST)
			      : reply(from, stack_shutdown(h, (uint32_t)L4_MR(2)), label, 0);
	case NET_CLOSE:
		return u != 1 ? reply_error(from, DRIVER_ERR_REQUEST) : reply(from, stack_close(h), label, 0);
	case NET_NAME:
		return u != 2 ? reply_error(from, DRIVER_ERR_REQUEST) : do_name(from);
	case NET_SETOPT:
		return u != 3 ? reply_error(from, DRIVER_ERR_REQUEST)
			      : reply(from, stack_setopt(h, (uint32_t)L4_MR(2), L4_MR(3)), label, 0);
	case NET_POLL:
		return do_poll(from, u);
	case NET_INFO:
		return u != 0 ? reply_error(from, DRIVER_ERR_REQUEST) : do_info(from);
	case NET_WATCH:
		if (u != 0)
			break;
		watcher = from;              /* answered by watch_round, after this round */
		return;
	}
	reply_error(from, DRIVER_ERR_REQUEST);
}

/*
 * Requests after which the stack must run: they may have queued something to
 * send or changed what a socket listens for.  After any other (RECV, POLL,
 * NAME, INFO, WATCH) it runs only when its timers say so (wait_timeout): a
 * window update a RECV made due is "now" there.
 */
static int changes_stack(L4_MsgTag_t tag)
{
	switch (L4_TAG_LABEL(tag)) {
	case NET_SOCKET: case NET_BIND: case NET_CONNECT: case NET_LISTEN: case NET_ACCEPT:
	case NET_SEND: case NET_SHUTDOWN: case NET_CLOSE: case NET_SETOPT:
		return 1;
	}
	return 0;
}

/* The receive timeout: the stack's next timer, a POLL's deadline, the NIC check. */
static L4_Word_t wait_timeout(void)
{
	if (!waiting && !stack_timer_pending())
		return L4_TimePeriod(RX_CHECK_MS * 1000);   /* no clock needed */
	L4_Word_t now_us = L4_SystemClock();
	uint64_t ms = stack_poll_delay(now_us / 1000);
	if (ms > RX_CHECK_MS)
		ms = RX_CHECK_MS;
	for (int i = 0; waiting && i < MAX_WAITERS; i++)
		if (waiters[i].client && waiters[i].deadline_us != NET_POLL_FOREVER) {
			L4_Word_t d = waiters[i].deadline_us > now_us ? (waiters[i].deadline_us - now_us) / 1000 : 0;
			if (d < ms)
				ms = d;
		}
	return ms ? L4_TimePeriod(ms * 1000) : L4_TIMEOUT_ZERO;
}

static int setup(void)
{
	uint8_t mac[6];
	have_nic = nic_info(mac) == 0;
	if (have_nic) {
		memcpy(config.mac, mac, 6);
		have_nic = nic_notify() == 0;
	} else {
		memcpy(config.mac, "\x02\0\0\0\0\x01", 6);   /* loopback only: a local MAC */
	}
	config.seed = L4_SystemClock();
	if (stack_init(&config, tx, now_ms()) != 0)
		return 0;
	printf("net: up, %s, mac %x:%x:%x:%x:%x:%x, ipv4 %d.%d.%d.%d/%d\n", have_nic ? "virtio-net" : "no NIC",
	       config.mac[0], config.mac[1], config.mac[2], config.mac[3], config.mac[4], config.mac[5],
	       config.ip4[0], config.ip4[1], config.ip4[2], config.ip4[3], config.ip4_prefix);
	return 1;
}

void net_server(void)
{
	/* a client whose buffer faults and whose pager never answers cannot hold us */
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TimePeriod(100000), L4_TimePeriod(100000)));
	if (!setup()) {
		printf("net: the stack did not start\n");
		stack_panic();
	}
	for (;;) {
		L4_ThreadId_t from;
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(sizeof(io), 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)io);
		L4_MsgTag_t tag = L4_Receive_Timeout(L4_ANYTHREAD, wait_timeout(), &from);
		/*
		 * The request first: its words are in our MRs, which a stack_poll
		 * would overwrite (it sends frames to the NIC by IPC).  No stack_*
		 * call but stack_poll sends.
		 */
		int run = 1;                   /* a timer, the NIC's notification, or a request that needs it */
		stack_ran = changes_taken = 0;
		if (L4_IpcFailed(tag) || (from == pecan_nic && L4_TAG_LABEL(tag) == NIC_RX_READY))
			;                          /* nothing, or the NIC's notification: drained below */
		else if (!driver_client_ok(&net_clients, from))
			driver_refuse("net", from, tag), run = 0;
		else
			handle(from, tag), run = changes_stack(tag);
		if (run && !stack_ran)
			run_stack();
		watch_round();
	}
}

int net_set_config(const char *args)
{
	return net_config_parse(args, &config);
}
