/* SPDX-License-Identifier: MIT */
/* The network server (include/l4/net.h for its protocol, docs/net.md). */
#ifndef PECAN_NET_H
#define PECAN_NET_H

#include "../../lib/l4/l4.h"
#include "config.h"
#include "../drivers/drivers.h"

void net_server(void);
/* Take the static configuration from a command line (config.h); 0, or -1 if malformed. */
int net_set_config(const char *args);
/*
 * Start the server as thread `server` in a space of its own (lib/task: the
 * caller, a root task, must have started the pager with task_pager_start),
 * over the NIC driver (lib/nic's pecan_nic; nil: loopback only), configured
 * from args (the boot command line's net.* words).  It serves the threads
 * whose numbers c names (a personality names its own); anyone else gets
 * DRIVER_ERR_DENIED.  Returns 0 on failure.
 */
int net_start(L4_ThreadId_t server, const char *args, const struct driver_clients *c);
extern struct driver_clients net_clients;

#endif
