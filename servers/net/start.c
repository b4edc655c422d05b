// SPDX-License-Identifier: MIT
// Starting the network server as a thread of any root task.
#include "net.h"
#include "../drivers/drivers.h"
#include "../../lib/net/client.h"

#define STACK 65536               /* smoltcp's poll builds frames on the stack */

static char stack[STACK] __attribute__((aligned(16)));

int net_start(L4_ThreadId_t server, const char *args)
{
	if (net_set_config(args) != 0 || !drivers_thread_start(server, net_server, stack, STACK, 240))
		return 0;
	pecan_net = server;
	return 1;
}
