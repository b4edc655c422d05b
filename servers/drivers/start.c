// SPDX-License-Identifier: MIT
// Starting the user-level drivers as threads of the root task, and starting
// them again after a death (docs/architecture.md, "Trust model").
#include "drivers.h"
#include "../../lib/drivers/client.h"
#include <l4/drivers.h>
#include "../../lib/c/stdio.h"

#define STACK 8192

static char stacks[2][STACK] __attribute__((aligned(16)));
/* Each driver's clients, fixed before its thread starts (it only reads them). */
struct driver_clients serial_clients, timer_clients;

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

/* Delete t if it exists (a dead or stuck driver), so that its ID can be started afresh. */
void drivers_thread_kill(L4_ThreadId_t t)
{
	L4_ThreadControl(t, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
}

static int start_serial(void)
{
	L4_ThreadId_t irq = l4_global_id(CONSOLE_IRQ, 1);
	return drivers_thread_start(pecan_console, serial_driver, stacks[0], STACK, 250) &&
	       L4_ThreadControl(irq, irq, L4_NILTHREAD, pecan_console, ~0UL);
}

static int start_timer(void)
{
	return drivers_thread_start(pecan_timer, timer_service, stacks[1], STACK, 250);
}

int drivers_restart_serial(void)
{
	drivers_thread_kill(pecan_console);
	return start_serial();
}

int drivers_restart_timer(void)
{
	drivers_thread_kill(pecan_timer);
	return start_timer();
}

/* The global ID of thread t of our space, named by its local or its global ID (nil if none). */
static L4_ThreadId_t global_of(L4_ThreadId_t t)
{
	struct L4_ExRegs x = { 0 };
	return l4_is_local_id(t) ? pecan_exregs(t, &x) : t;
}

int driver_died(L4_ThreadId_t from, L4_MsgTag_t tag, L4_ThreadId_t driver)
{
	L4_Word_t label = L4_TAG_LABEL(tag);
	if (!driver || global_of(from) != driver)
		return 0;
	if ((label >> 4) != (L4_LABEL_PAGEFAULT >> 4) && label != L4_LABEL_EXCEPTION)
		return 0;
	printf("drivers: driver %lx died (%s at %lx); starting it again\n", driver,
	       label == L4_LABEL_EXCEPTION ? "exception" : "page fault", L4_MR(1));
	return 1;
}

int drivers_supervise(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	if (driver_died(from, tag, pecan_console))
		return drivers_restart_serial() || 1;
	if (driver_died(from, tag, pecan_timer))
		return drivers_restart_timer() || 1;
	return 0;
}

int drivers_start_for(L4_ThreadId_t serial, L4_ThreadId_t timer, const struct driver_clients *c)
{
	serial_clients = timer_clients = c ? *c : (struct driver_clients){ 0 };
	pecan_console = serial;
	pecan_timer = timer;
	if (!start_serial() || !start_timer()) {
		pecan_console = pecan_timer = L4_NILTHREAD;
		return 0;
	}
	return 1;
}

int drivers_start(L4_ThreadId_t serial, L4_ThreadId_t timer)
{
	return drivers_start_for(serial, timer, 0);
}
