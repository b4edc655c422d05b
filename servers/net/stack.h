/* SPDX-License-Identifier: MIT */
/*
 * The TCP/IP stack's C interface: smoltcp in Rust (servers/net/stack/,
 * table.rs has each function's contract).  Handles are the protocol's
 * (include/l4/net.h); every function checks its handle and arguments and
 * returns minus a NET_ERR_* reason for bad ones.  One thread calls in.
 */
#ifndef PECAN_NET_STACK_H
#define PECAN_NET_STACK_H

#include <stddef.h>
#include <stdint.h>
#include <l4/net.h>

struct stack_config {
	uint8_t mac[6];
	uint8_t ip4_prefix, ip6_prefix;
	uint8_t ip4[4], gw4[4];
	uint8_t ip6[16], gw6[16];
	uint64_t seed;
};

/* The server's: sends one frame to the NIC (may drop it: TCP retransmits). */
typedef void (*stack_tx_fn)(const uint8_t *frame, size_t len);

int64_t stack_init(const struct stack_config *cfg, stack_tx_fn tx, uint64_t now_ms);
int32_t stack_input(const uint8_t *frame, size_t len);
size_t stack_input_room(void);
int32_t stack_poll(uint64_t now_ms);
uint64_t stack_poll_delay(uint64_t now_ms);
/* 0 if no stack_poll is due until a request or a frame comes (no timer, nothing queued) */
int32_t stack_timer_pending(void);
uint64_t stack_dropped(void);

int64_t stack_socket(uint16_t family, uint32_t type);
int64_t stack_bind(int64_t h, const struct net_addr *a);
int64_t stack_listen(int64_t h, uint32_t backlog);
int64_t stack_accept(int64_t h, struct net_addr *peer);
int64_t stack_connect(int64_t h, const struct net_addr *a);
int64_t stack_send(int64_t h, const uint8_t *data, size_t len, const struct net_addr *to);
int64_t stack_recv(int64_t h, uint8_t *data, size_t len, struct net_addr *from);
/* stack_recv for datagram sockets only (-NET_ERR_OPNOTSUPP for others) */
int64_t stack_recv_datagram(int64_t h, uint8_t *data, size_t len, struct net_addr *from);
int64_t stack_events(int64_t h);
/* The handles (bit h) whose events (NET_EV_NVAL: not open) changed since the last call. */
uint64_t stack_changed(void);
int64_t stack_shutdown(int64_t h, uint32_t how);
int64_t stack_close(int64_t h);
int64_t stack_name(int64_t h, uint32_t which, struct net_addr *out);
int64_t stack_setopt(int64_t h, uint32_t opt, uint64_t value);

/* Called by the stack's panic handler (a bug): says so and stops the server thread. */
void stack_panic(void) __attribute__((noreturn));

#endif
