/* SPDX-License-Identifier: MIT */
/* User-level drivers that run as threads of the root task (include/l4/drivers.h). */
#ifndef PECAN_DRIVERS_H
#define PECAN_DRIVERS_H

#include "../../lib/l4/l4.h"

void serial_driver(void);
void timer_service(void);
/*
 * Start both as threads of the calling (privileged) task with the given
 * IDs, give the serial driver IRQ 4, and route printf through it.
 * Returns 0 on failure.
 */
int drivers_start(L4_ThreadId_t serial, L4_ThreadId_t timer);
/*
 * Start thread t of the calling task at fn on stack (size bytes) with
 * priority prio; its UTCB follows the root task's layout.  0 on failure.
 */
int drivers_thread_start(L4_ThreadId_t t, void (*fn)(void), char *stack, L4_Word_t size,
			 L4_Word_t prio);

#endif
