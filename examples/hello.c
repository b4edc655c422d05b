// SPDX-License-Identifier: MIT
// The smallest root task: print through the kernel debugger, then power off.
#include <l4/l4.h>
#include <c/stdio.h>

int main(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	printf("hello: I am thread %lu.%lu, the root task\n", l4_thread_no(me), l4_version(me));
	pecan_kdb_power_off(0);     /* a root task ends the system; returning would stop in KDB */
	return 0;
}
