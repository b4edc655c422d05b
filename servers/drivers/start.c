// SPDX-License-Identifier: MIT
// Starting the user-level drivers as threads of the root task.
#include "drivers.h"
#include "../../lib/drivers/client.h"
#include <l4/drivers.h>

#define STACK 8192

static char stacks[2][STACK] __attribute__((aligned(16)));

int drivers_thread_start(L4_ThreadId_t t, void (*fn)(void), char *stack, L4_Word_t size,
			 L4_Word_t prio)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	L4_Word_t utcb = (L4_MyLocalId() & ~((1UL << ROOT_UTCB_AREA_LOG2) - 1)) +
			 UTCB_SIZE * (l4_thread_no(t) - l4_thread_no(me));
	if (!L4_ThreadControl(t, me, me, me, utcb))
		return 0;
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, (L4_Word_t)fn);
	L4_SetMR(2, (L4_Word_t)stack + size - 8);
	return !L4_IpcFailed(L4_Send(t)) && L4_Set_Priority(t, prio);
}

int drivers_start(L4_ThreadId_t serial, L4_ThreadId_t timer)
{
	L4_ThreadId_t irq = l4_global_id(CONSOLE_IRQ, 1);
	if (!drivers_thread_start(serial, serial_driver, stacks[0], STACK, 250) ||
	    !drivers_thread_start(timer, timer_service, stacks[1], STACK, 250) ||
	    !L4_ThreadControl(irq, irq, L4_NILTHREAD, serial, ~0UL))
		return 0;
	pecan_console = serial;
	pecan_timer = timer;
	return 1;
}
