// SPDX-License-Identifier: MIT
// The NIC driver and the network server (docs/net.md), booted with a
// virtio-net device on QEMU's user network (tests/system/test_net.py): the
// server's answers to bad input, loopback TCP, UDP and ICMP echo on IPv4 and
// IPv6, an ICMP echo to the user network's gateway, and last an echo
// service (TCP and UDP port 7) that the host talks to through forwarded
// ports on 127.0.0.1.
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"
#include "../../../lib/c/string.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/drivers/client.h"
#include "../../../lib/nic/client.h"
#include "../../../lib/net/client.h"
#include "../../../lib/task/task.h"
#include "../../../servers/drivers/drivers.h"
#include "../../../servers/nic/nic.h"
#include "../../../servers/net/net.h"
#include "../../../lib/c/portio.h"
#include <l4/drivers.h>
#include <l4/nic.h>

#define SECOND 1000000UL
#define ECHO_PORT 7

static char args[512];
static const uint8_t lo4[4] = { 127, 0, 0, 1 };
static struct net_info info;
static char buf[NET_IO_MAX + 64];

/* The raw message words of a request, for malformed ones: the reply's label, or ~0 on IPC failure. */
static L4_Word_t raw_call(L4_ThreadId_t to, L4_Word_t tag, L4_Word_t mr1, L4_Word_t mr2)
{
	L4_SetMR(0, tag);
	L4_SetMR(1, mr1);
	L4_SetMR(2, mr2);
	L4_MsgTag_t r = L4_Call(to);
	return L4_IpcFailed(r) ? ~0UL : L4_TAG_LABEL(r);
}

TEST_CASE("net.info", "the server is up on the NIC: the MAC is the device's, the address the boot line's")
{
	uint8_t mac[6];
	EXPECT(nic_info(mac) == 0, "NIC_INFO failed: no virtio-net device found?");
	EXPECT(net_info(&info) == 0, "NET_INFO failed");
	EXPECT(memcmp(mac, info.mac, 6) == 0, "server MAC differs from the NIC's");
	EXPECT(mac[0] == 0x52 && mac[1] == 0x54, "not QEMU's MAC: %x:%x", mac[0], mac[1]);
	EXPECT(info.ip4[0] == 10 && info.ip4[3] == 15 && info.ip4_prefix == 24, "ipv4 %d.%d.%d.%d/%u",
	       info.ip4[0], info.ip4[1], info.ip4[2], info.ip4[3], info.ip4_prefix);
	EXPECT(info.ip6[0] == 0xfe && info.ip6_prefix == 64, "ipv6 not configured");
}

TEST_CASE("net.own_space", "the server runs in a space of its own: its memory is a private copy, our later writes do not reach it")
{
	EXPECT(task_faults > 0, "the server's pager answered no page fault");
	EXPECT(net_set_config("net.ip4=1.2.3.4/8") == 0, "parse");     /* our copy of its configuration */
	struct net_info now;
	EXPECT(net_info(&now) == 0, "NET_INFO");
	EXPECT(now.ip4[0] == 10 && now.ip4_prefix == 24, "the server saw our write: %d.%d.%d.%d/%u", now.ip4[0],
	       now.ip4[1], now.ip4[2], now.ip4[3], now.ip4_prefix);
}

/* ---- ports above the ISA range follow the space (kernel: the TSS bitmap's used part) ---- */

static volatile L4_Word_t probe_stage, probe_io_faults, probe_last_fpage;

/* In a space of its own: a COM2 port (so the space has a bitmap), then PCI's data port. */
static void port_probe(void)
{
	probe_stage = 1;
	(void)inb(0x2ff);
	probe_stage = 2;
	(void)inl(0xcfc);                    /* never granted: this must fault, and stay blocked */
	probe_stage = 3;
	tt_park();
}

/* The probe's pager: our own pages (so it shares probe_*), and COM2's ports; PCI's never. */
static void probe_pager(void)
{
	L4_ThreadId_t from;
	for (;;) {
		L4_MsgTag_t tag = L4_Wait(&from);
		L4_Word_t label = L4_TAG_LABEL(tag) & ~0xfUL, a = L4_MR(1);
		if (L4_IpcFailed(tag))
			continue;
		if (label == (L4_LABEL_IO_PAGEFAULT & ~0xfUL)) {
			probe_io_faults++;
			probe_last_fpage = a;
			if (((a >> 16) & 0xffff) != 0x2ff)
				continue;            /* no reply: the prober waits for good */
			L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
			L4_SetMR(1, L4_ITEM_MAP);
			L4_SetMR(2, L4_IO_FPAGE(0x2f8, 3, 7));
		} else {
			L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
			L4_SetMR(1, (a & ~0xfffUL) | L4_ITEM_MAP);
			L4_SetMR(2, L4_FPAGE_MAKE(a & ~0xfffUL, 12, 7));
		}
		L4_Reply(from);
	}
}

TEST_CASE("net.high_ports", "a space with only ISA ports cannot use PCI's ports (0xCFC) that the task switched from held")
{
	L4_ThreadId_t pager = tt_id(1, 1), probe = tt_id(2, 1);
	(void)inl(0xcfc);                    /* ours: the TSS bitmap now has our high ports loaded */
	EXPECT(tt_start_local(pager, probe_pager), "pager");
	L4_Set_Priority(pager, 254);
	EXPECT(tt_start_space_paged(probe, port_probe, pager), "probe");
	TT_WAIT(probe_stage >= 2 && probe_io_faults >= 2, 2000);
	L4_Word_t stage = probe_stage, faults = probe_io_faults, fp = probe_last_fpage;
	tt_kill(probe);
	tt_kill(pager);
	EXPECT(stage == 2, "the probe got to stage %lu (3: it read port 0xCFC)", stage);
	EXPECT(faults == 2 && ((fp >> 16) & 0xffff) == 0xcfc, "%lu I/O faults, the last for %lx", faults, fp);
}

/* A thread of another space that is no client: what NET_INFO and NIC_INFO answer it. */
static volatile L4_Word_t stranger_net, stranger_nic, stranger_done;

static void stranger(void)
{
	stranger_net = raw_call(pecan_net, L4_TAG_MAKE(NET_INFO, 0, 0), 0, 0) == DRIVER_ERROR ? L4_MR(1) : 0;
	stranger_nic = raw_call(pecan_nic, L4_TAG_MAKE(NIC_INFO, 0, 0), 0, 0) == DRIVER_ERROR ? L4_MR(1) : 0;
	stranger_done = 1;
	tt_park();
}

TEST_CASE("net.strangers_refused", "a thread the root task did not name gets DRIVER_ERR_DENIED from the server and the NIC driver")
{
	L4_ThreadId_t t = tt_id(3, 1);
	EXPECT(tt_start_space(t, stranger), "start the stranger");
	TT_WAIT(stranger_done, 3000);
	tt_kill(t);
	EXPECT(stranger_done, "the stranger did not finish");
	EXPECT(stranger_net == DRIVER_ERR_DENIED, "the server answered %lu", stranger_net);
	EXPECT(stranger_nic == DRIVER_ERR_DENIED, "the NIC driver answered %lu", stranger_nic);
	struct net_info i;
	EXPECT(net_info(&i) == 0, "we were refused too");
}

TEST_CASE("net.bad_nic", "the NIC driver refuses bad frames and requests and goes on")
{
	EXPECT(nic_send(buf, 5) == -NIC_ERR_LENGTH, "a 5-byte frame was sent");
	EXPECT(nic_send(buf, NIC_FRAME_MAX + 1) < 0, "an oversized frame was sent");
	EXPECT(raw_call(pecan_nic, L4_TAG_MAKE(0x7777, 0, 0), 0, 0) == DRIVER_ERROR, "unknown label");
	EXPECT(raw_call(pecan_nic, L4_TAG_MAKE(NIC_RECV, 2, 0), 0, 0) == DRIVER_ERROR, "RECV with u = 2");
	uint8_t mac[6];
	EXPECT(nic_info(mac) == 0, "the driver stopped answering");
}

TEST_CASE("net.bad_handles", "bad handles, families, types and lengths get errors, and the server goes on")
{
	struct net_addr a = net_addr4(lo4, 9);
	long bad[] = { -1, NET_MAX_HANDLES, 1L << 40, 63 };
	for (unsigned i = 0; i < 4; i++) {
		EXPECT(net_close(bad[i]) == -NET_ERR_HANDLE, "close %ld", bad[i]);
		EXPECT(net_recv(bad[i], buf, 10, NULL) == -NET_ERR_HANDLE, "recv %ld", bad[i]);
		EXPECT(net_send(bad[i], buf, 10, &a) == -NET_ERR_HANDLE, "send %ld", bad[i]);
		EXPECT(net_bind(bad[i], &a) == -NET_ERR_HANDLE, "bind %ld", bad[i]);
		EXPECT(net_accept(bad[i], NULL) == -NET_ERR_HANDLE, "accept %ld", bad[i]);
	}
	EXPECT(net_socket(99, NET_SOCK_DGRAM) == -NET_ERR_AFNOSUPPORT, "family 99");
	EXPECT(net_socket(NET_AF_INET, 77) == -NET_ERR_INVAL, "type 77");
	long h = net_socket(NET_AF_INET, NET_SOCK_DGRAM);
	EXPECT(h >= 0, "socket: %ld", h);
	struct net_addr six = net_addr6(NULL, 5);
	EXPECT(net_bind(h, &six) == -NET_ERR_AFNOSUPPORT, "IPv6 address on an IPv4 socket");
	EXPECT(net_send(h, buf, 10, NULL) == -NET_ERR_NOTCONN, "datagram without destination");
	EXPECT(net_listen(h, 1) == -NET_ERR_OPNOTSUPP, "listen on UDP");
	EXPECT(net_name(h, 5, &a) < 0, "NAME which = 5");
	EXPECT(raw_call(pecan_net, L4_TAG_MAKE(NET_BIND, 1, 0), (L4_Word_t)h, 0) == DRIVER_ERROR, "BIND with u = 1");
	EXPECT(raw_call(pecan_net, L4_TAG_MAKE(0x7777, 0, 0), 0, 0) == DRIVER_ERROR, "unknown label");
	EXPECT(raw_call(pecan_net, L4_TAG_MAKE(NET_POLL, 1, 0), 0, 0) == DRIVER_ERROR, "POLL of no handle");
	/* a string longer than the server's buffer: the IPC fails, the server goes on */
	EXPECT(net_send(h, buf, sizeof(buf), &a) != -NET_ERR_HANDLE, "long send");
	L4_SetMR(0, L4_TAG_MAKE(NET_SEND, 4, 2));
	L4_SetMR(1, (L4_Word_t)h);
	L4_SetMR(2, 0); L4_SetMR(3, 0); L4_SetMR(4, 0);
	L4_SetMR(5, L4_STRING_MAKE(sizeof(buf), 1, 0, 0));
	L4_SetMR(6, (L4_Word_t)buf);
	EXPECT(L4_IpcFailed(L4_Call(pecan_net)), "a %lu-byte string was taken", (unsigned long)sizeof(buf));
	EXPECT(net_close(h) == 0, "close");
	EXPECT(net_close(h) == -NET_ERR_HANDLE, "second close");
	EXPECT(net_info(&info) == 0, "the server stopped answering");
}

/* One datagram from b to a's port on address `to`, and back its content. */
static int udp_round(unsigned family, const struct net_addr *to)
{
	long a = net_socket(family, NET_SOCK_DGRAM), b = net_socket(family, NET_SOCK_DGRAM);
	struct net_addr any = family == NET_AF_INET ? net_addr4(NULL, to->port) : net_addr6(NULL, to->port), from;
	int ok = a >= 0 && b >= 0 && net_bind(a, &any) == 0 &&
		 net_wait_send(b, "datagram", 8, to, SECOND) == 8 &&
		 net_wait_recv(a, buf, sizeof(buf), &from, 5 * SECOND) == 8 && memcmp(buf, "datagram", 8) == 0 &&
		 from.family == family;
	net_close(a);
	net_close(b);
	return ok;
}

TEST_CASE("net.loop_udp", "UDP over the loopback: to 127.0.0.1 and to the interface's own IPv4 and IPv6 addresses")
{
	struct net_addr to = net_addr4(lo4, 5001);
	EXPECT(udp_round(NET_AF_INET, &to), "127.0.0.1");
	to = net_addr4(info.ip4, 5002);
	EXPECT(udp_round(NET_AF_INET, &to), "own IPv4 address");
	to = net_addr6(info.ip6, 5003);
	EXPECT(udp_round(NET_AF_INET6, &to), "own IPv6 address");
}

/* A TCP connection to `to`: data one way, FIN, the answer back, end of stream both ways. */
static const char *tcp_round(unsigned family, const struct net_addr *to)
{
	struct net_addr any = family == NET_AF_INET ? net_addr4(NULL, to->port) : net_addr6(NULL, to->port);
	long l = net_socket(family, NET_SOCK_STREAM), c = net_socket(family, NET_SOCK_STREAM), s = -1;
	const char *why = NULL;
	if (l < 0 || c < 0 || net_bind(l, &any) || net_listen(l, 2))
		why = "listen";
	else if (net_wait_connect(c, to, 5 * SECOND))
		why = "connect";
	else if ((s = net_wait_accept(l, NULL, 5 * SECOND)) < 0)
		why = "accept";
	else if (net_wait_send(c, "stream", 6, NULL, SECOND) != 6 || net_shutdown(c, NET_SHUT_WR))
		why = "send";
	else if (net_wait_recv(s, buf, sizeof(buf), NULL, 5 * SECOND) != 6 || memcmp(buf, "stream", 6) ||
		 net_wait_recv(s, buf, sizeof(buf), NULL, 5 * SECOND) != 0)
		why = "receive, or no end of stream";
	else if (net_wait_send(s, "back", 4, NULL, SECOND) != 4 || net_close(s) ||
		 net_wait_recv(c, buf, sizeof(buf), NULL, 5 * SECOND) != 4 ||
		 net_wait_recv(c, buf, sizeof(buf), NULL, 5 * SECOND) != 0)
		why = "the answer";
	if (why && s >= 0)
		net_close(s);
	net_close(c);
	net_close(l);
	return why;
}

TEST_CASE("net.loop_tcp", "TCP over the loopback, IPv4 (127.0.0.1) and IPv6 (own address): connect, accept, data, FIN both ways")
{
	struct net_addr to = net_addr4(lo4, 6001);
	const char *why = tcp_round(NET_AF_INET, &to);
	EXPECT(!why, "127.0.0.1: %s", why);
	to = net_addr6(info.ip6, 6002);
	why = tcp_round(NET_AF_INET6, &to);
	EXPECT(!why, "IPv6: %s", why);
}

/* An echo request to `to` on an ICMP socket; 1 if the reply came. */
static int ping(unsigned family, const struct net_addr *to, uint16_t ident)
{
	long h = net_socket(family, NET_SOCK_ICMP);
	struct net_addr id = family == NET_AF_INET ? net_addr4(NULL, ident) : net_addr6(NULL, ident);
	uint8_t req[16] = { family == NET_AF_INET ? 8 : 128, 0, 0, 0, (uint8_t)(ident >> 8), (uint8_t)ident, 0, 1,
			    'p', 'e', 'c', 'a', 'n', '!', '!', '!' };
	uint8_t want = family == NET_AF_INET ? 0 : 129;
	int got = 0;
	if (h >= 0 && net_bind(h, &id) == 0 && net_wait_send(h, req, sizeof(req), to, SECOND) == sizeof(req))
		for (int i = 0; i < 4 && !got; i++) {     /* a looped-back request comes in too */
			long n = net_wait_recv(h, buf, sizeof(buf), NULL, 3 * SECOND);
			if (n < 0)
				break;
			got = n == sizeof(req) && (uint8_t)buf[0] == want && memcmp(buf + 8, req + 8, 8) == 0;
		}
	net_close(h);
	return got;
}

TEST_CASE("net.loop_icmp", "the server answers ICMP echo to its own IPv4 and IPv6 addresses")
{
	struct net_addr to = net_addr4(info.ip4, 0);
	EXPECT(ping(NET_AF_INET, &to, 0x101), "IPv4");
	to = net_addr6(info.ip6, 0);
	EXPECT(ping(NET_AF_INET6, &to, 0x102), "IPv6");
}

TEST_CASE("net.gateway_icmp", "an ICMP echo over the NIC to QEMU's user-network gateway (10.0.2.2, ARP first) is answered")
{
	uint8_t gw[4] = { 10, 0, 2, 2 };
	struct net_addr to = net_addr4(gw, 0);
	EXPECT(ping(NET_AF_INET, &to, 0x103), "no echo reply from 10.0.2.2");
}

TEST_CASE("net.nic_interrupts", "the device's interrupts reach the driver as IPC, and frames came in")
{
	uint64_t frames = 0, irqs = 0;
	EXPECT(nic_counts(&frames, &irqs) == 0, "NIC_INFO");
	EXPECT(frames > 0, "no frame received");
	EXPECT(irqs > 0, "no interrupt in %lu frames: the driver was only polled", (unsigned long)frames);
}

/* Serve one TCP connection (echo until the peer's FIN) and one UDP datagram (echo it). */
TEST_CASE("net.host_echo", "the host reaches an echo service (TCP and UDP port 7) through forwarded ports; data comes back unchanged")
{
	struct net_addr any = net_addr4(NULL, ECHO_PORT), from;
	long l = net_socket(NET_AF_INET, NET_SOCK_STREAM), u = net_socket(NET_AF_INET, NET_SOCK_DGRAM);
	long r;
	EXPECT(l >= 0 && u >= 0, "sockets: %ld %ld", l, u);
	EXPECT((r = net_bind(l, &any)) == 0, "bind TCP port 7: %ld", r);
	EXPECT((r = net_listen(l, 2)) == 0, "listen: %ld", r);
	EXPECT((r = net_bind(u, &any)) == 0, "bind UDP port 7: %ld", r);
	printf("NET ECHO READY tcp=%d udp=%d\n", ECHO_PORT, ECHO_PORT);
	long n = net_wait_recv(u, buf, sizeof(buf), &from, 60 * SECOND);
	EXPECT(n > 0, "no datagram: %ld", n);
	EXPECT(net_wait_send(u, buf, (unsigned long)n, &from, SECOND) == n, "UDP echo");
	long s = net_wait_accept(l, NULL, 60 * SECOND);
	EXPECT(s >= 0, "no connection: %ld", s);
	unsigned long total = 0;
	while ((n = net_wait_recv(s, buf, sizeof(buf), NULL, 30 * SECOND)) > 0) {
		long sent = net_wait_send(s, buf, (unsigned long)n, NULL, 10 * SECOND);
		if (sent != n) {
			unsigned want = NET_EV_IN | NET_EV_OUT, ev = 0;
			net_poll(&s, &want, &ev, 1, 0);
			net_info(&info);
			EXPECT(0, "TCP echo: %ld of %ld bytes after %lu (events %x; frames in %lu, dropped %lu, "
			       "refused by the NIC %lu)", sent, n, total, ev, (unsigned long)info.frames_in,
			       (unsigned long)info.dropped, (unsigned long)info.refused);
		}
		total += (unsigned long)n;
	}
	EXPECT(n == 0, "the stream ended with %ld after %lu bytes", n, total);
	/* our FIN, and its ACK, before we go on (and power off): the peer sees all the data */
	EXPECT(net_shutdown(s, NET_SHUT_WR) == 0, "shutdown");
	unsigned want = 0, ev = 0;
	for (int i = 0; i < 100 && !(ev & NET_EV_HUP); i++)
		net_poll(&s, &want, &ev, 1, SECOND / 10);
	EXPECT(ev & NET_EV_HUP, "the connection did not close: events %x", ev);
	printf("NET ECHO DONE tcp_bytes=%lu\n", total);
	net_close(s);
	net_close(l);
	net_close(u);
}

int main(void)
{
	L4_Word_t me = l4_thread_no(L4_MyGlobalId());
	pecan_boot_args(args, sizeof(args));
	/* the NIC driver (me + 3) and the server (me + 4) print; the server calls the NIC; we call both */
	struct driver_clients printers = { 1, { { me + 3, me + 4 } }, 0 };
	struct driver_clients nic = { 2, { { me, me }, { me + 4, me + 4 } }, 0 }, net = { 1, { { me, me } }, 0 };
	if (!drivers_start_for(l4_global_id(me + 1, 1), l4_global_id(me + 2, 1), &printers) ||
	    !task_pager_start(l4_global_id(me + 5, 1)) || !nic_start(l4_global_id(me + 3, 1), &nic) ||
	    !net_start(l4_global_id(me + 4, 1), args, &net)) {
		printf("t_net: the drivers did not start\n");
		pecan_kdb_power_off(2);
	}
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
