/* SPDX-License-Identifier: MIT */
/*
 * Servers in address spaces of their own, started by the root task from its
 * own image: the new space runs the same program, but only its code is
 * shared (read-only); every other page it touches is a private copy of the
 * root task's page as it was at that moment.  A server started this way
 * cannot write the root task's memory or another server's, and a fault in it
 * halts its own thread only.  Ports it touches are mapped from the root
 * task's (I/O page faults), and ranges the root task marks shared (DMA
 * memory) are mapped as they are.  docs/net.md tells why (the network server).
 */
#ifndef PECAN_TASK_H
#define PECAN_TASK_H

#include "../l4/l4.h"

/*
 * Start the pager of such spaces as thread `pager` of the calling task, which must
 * be the root task's first thread (it makes the pager sigma0's client); 0 on failure.
 */
int task_pager_start(L4_ThreadId_t pager);
/* Map [base, base + size) (page-aligned, the root task's) into every such space as it is. */
int task_share(L4_Word_t base, L4_Word_t size);
/*
 * Create thread t in a new space paged by the pager, start it at fn on
 * stack (size bytes, in the image: the space gets its own copy) with
 * priority prio.  0 on failure.
 */
int task_start(L4_ThreadId_t t, void (*fn)(void), char *stack, L4_Word_t size, L4_Word_t prio);
/*
 * Take 2^log2 bytes of memory from sigma0 now for the copies the pager
 * makes later (it asks sigma0 page by page once they are used up): a root
 * task that then takes all of sigma0's memory for itself (lx) calls this
 * first; further calls add to the reserve.  Call it before task_start, from
 * the thread sigma0 knows; 0 on failure.
 */
int task_reserve(unsigned log2);
/* Page faults the pager answered so far (copies and shared pages). */
extern volatile L4_Word_t task_faults;

#endif
