/* SPDX-License-Identifier: MIT */
/* lx's sockets: AF_UNIX stream and datagram sockets (unix.c); the calls are syscall.h's. */
#ifndef LX_NET_H
#define LX_NET_H

#include "../lx.h"

extern const struct file_ops sock_ops;

#endif
