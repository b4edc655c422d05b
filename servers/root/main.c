// SPDX-License-Identifier: MIT
// The default root task: greets, then powers the machine off.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"

int main(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	printf("root: hello from the Pecan root task, thread %lx.%lx, KIP at %p\n",
	       l4_thread_no(me), l4_version(me), __L4_KIP);
	pecan_kdb_power_off(0);
	return 0;
}
