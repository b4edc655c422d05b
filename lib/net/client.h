/* SPDX-License-Identifier: MIT */
/*
 * Clients of the network server (include/l4/net.h for the protocol,
 * docs/net.md).  Each call returns a value >= 0 or minus a reason
 * (DRIVER_ERR_*, NET_ERR_*, NET_ERR_IPC).  The net_* calls never block
 * (NET_ERR_AGAIN); the net_wait_* ones wait with POLL, up to timeout_us
 * microseconds (NET_POLL_FOREVER: no limit), as a blocking socket would.
 */
#ifndef PECAN_NET_CLIENT_H
#define PECAN_NET_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <l4/net.h>
#include "../l4/l4.h"

/* The server thread; nil until net_start (servers/net/net.h). */
extern L4_ThreadId_t pecan_net;
/*
 * The IPC timeouts (L4_TIMEOUTS) of every call the server answers at once
 * (all but WATCH and a POLL that may wait); 0, the default: none.  A client
 * that must not hang on a dead server (lx) sets them.
 */
extern L4_Word_t net_call_timeouts;

/* Beyond include/l4/net.h's reasons: the IPC itself failed (ErrorCode says why). */
#define NET_ERR_IPC 30

struct net_info {
	uint8_t mac[6], ip4[4], ip6[16];
	unsigned ip4_prefix, ip6_prefix;
	uint64_t frames_in, dropped, refused;
};

/* An address from its parts: ip4 4 bytes, ip6 16 bytes (NULL: unspecified). */
struct net_addr net_addr4(const uint8_t *ip4, uint16_t port);
struct net_addr net_addr6(const uint8_t *ip6, uint16_t port);

long net_socket(unsigned family, unsigned type);
long net_bind(long h, const struct net_addr *a);
long net_listen(long h, unsigned backlog);
long net_accept(long h, struct net_addr *peer);               /* peer may be NULL */
long net_connect(long h, const struct net_addr *a);
/* to: NULL for TCP.  At most NET_IO_MAX bytes move per call. */
long net_send(long h, const void *buf, unsigned long len, const struct net_addr *to);
/* net_send, and *changed = the handles that gained events (NET_SEND_TELL: the caller, which
 * also WATCHes, acts on them as on WATCH's answer) */
long net_send_tell(long h, const void *buf, unsigned long len, const struct net_addr *to,
		   uint64_t *changed);
/* A datagram that came with a SEND's answer (net_send_fetch). */
struct net_fetch {
	void *buf;             /* in: where it lands, NET_IO_MAX bytes */
	uint64_t handles;      /* in: the datagram handles it may be for */
	long h;                /* out: its handle, or -1: none came */
	long len;
	bool drained;          /* nothing more to read on h then */
	struct net_addr from;
};
/* net_send_tell, and one datagram for a handle of f->handles that gained events (or f->h = -1) */
long net_send_fetch(long h, const void *buf, unsigned long len, const struct net_addr *to,
		    uint64_t *changed, struct net_fetch *f);
long net_recv(long h, void *buf, unsigned long max, struct net_addr *from);   /* from may be NULL */
/* net_recv, and *drained = whether the handle had nothing more to read then */
long net_recv_drained(long h, void *buf, unsigned long max, struct net_addr *from, bool *drained);
long net_shutdown(long h, unsigned how);
long net_close(long h);
long net_name(long h, int peer, struct net_addr *out);
long net_setopt(long h, unsigned opt, uint64_t value);
/* POLL: n handles with their wanted events in, their events out (ev[i]). */
long net_poll(const long *h, const unsigned *want, unsigned *ev, unsigned n, uint64_t timeout_us);
long net_info(struct net_info *out);
/* WATCH: waits until some handles' events changed; their bitmap in *changed. */
long net_watch(uint64_t *changed);

/* Blocking forms: wait for readiness (POLL) while the call says NET_ERR_AGAIN. */
long net_wait_accept(long h, struct net_addr *peer, uint64_t timeout_us);
long net_wait_connect(long h, const struct net_addr *a, uint64_t timeout_us);
long net_wait_recv(long h, void *buf, unsigned long max, struct net_addr *from, uint64_t timeout_us);
/* Sends all len bytes (TCP) or the datagram; len, or minus a reason. */
long net_wait_send(long h, const void *buf, unsigned long len, const struct net_addr *to, uint64_t timeout_us);

#endif
