// SPDX-License-Identifier: MIT
// The default root task: starts the user-level console driver and timer
// service, greets through them, then powers the machine off.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/drivers/client.h"
#include "../drivers/drivers.h"

int main(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	if (!drivers_start(l4_global_id(l4_thread_no(me) + 1, 1), l4_global_id(l4_thread_no(me) + 2, 1)))
		printf("root: could not start the drivers (ErrorCode %lx)\n", L4_ErrorCode());
	printf("root: hello from the Pecan root task, thread %lu.%lu, KIP at %p\n",
	       l4_thread_no(me), l4_version(me), __L4_KIP);
	L4_Word_t t0 = L4_SystemClock();
	timer_sleep(10000);
	printf("root: this line came through the user-level console driver (thread %lu.%lu), "
	       "after a %lu us sleep in the timer service\n", l4_thread_no(pecan_console),
	       l4_version(pecan_console), L4_SystemClock() - t0);
	pecan_kdb_power_off(0);
	return 0;
}
