// SPDX-License-Identifier: MIT
// Starting the network server in a space of its own (lib/task): its memory
// is private, so neither a bug in it nor a hostile frame that corrupts the
// stack's state can reach the task that started it.
#include "net.h"
#include "../../lib/net/client.h"
#include "../../lib/task/task.h"

#define STACK (512 * 1024)        /* smoltcp builds frames on the stack, and stack_init its
                                     interface (with 128 KiB of fragment buffers) */

static char stack[STACK] __attribute__((aligned(16)));

struct driver_clients net_clients;

int net_start(L4_ThreadId_t server, const char *args, const struct driver_clients *c)
{
	net_clients = c ? *c : (struct driver_clients){ 0 };
	if (net_set_config(args) != 0 || !task_start(server, net_server, stack, STACK, 240))
		return 0;
	pecan_net = server;
	return 1;
}
