/* SPDX-License-Identifier: MIT */
/*
 * lx's sockets: socket(2) and socketpair(2) pick the family from a table
 * (socket.c); a family creates its sockets, and every later call reaches
 * them through their descriptors.  One family so far: AF_UNIX stream,
 * datagram and sequenced-packet sockets (unix.c).
 */
#ifndef LX_NET_H
#define LX_NET_H

#include "../lx.h"

#define LX_AF_UNIX        1
#define LX_SOCK_STREAM    1
#define LX_SOCK_DGRAM     2
#define LX_SOCK_SEQPACKET 5
#define LX_SOCK_TYPES     11           /* Linux's SOCK_MAX: beyond it, EINVAL */
#define LX_SOCK_NONBLOCK  LX_O_NONBLOCK
#define LX_SOCK_CLOEXEC   LX_O_CLOEXEC

/* A socket family: its calls have the system calls' arguments, checked for the family. */
struct sock_family {
	int domain;
	long (*socket)(struct thread *t, u64 domain, u64 type, u64 proto);
	long (*socketpair)(struct thread *t, u64 domain, u64 type, u64 proto, u64 usv);
};

extern const struct sock_family unix_family;
extern const struct file_ops sock_ops;          /* AF_UNIX sockets' descriptors */

#endif
