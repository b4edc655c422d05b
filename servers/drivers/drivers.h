/* SPDX-License-Identifier: MIT */
/* User-level drivers that run as threads of the root task (include/l4/drivers.h). */
#ifndef PECAN_DRIVERS_H
#define PECAN_DRIVERS_H

#include "../../lib/l4/l4.h"

/*
 * Who may call a driver besides the threads of its own space (the starting
 * root task's): threads whose numbers lie in one of the ranges.  Threads of
 * other spaces are named by number because the kernel lets only privileged
 * spaces create threads: the root task knows which numbers it gave whom.
 */
#define DRIVER_MAX_RANGES 8
struct driver_clients {
	int nranges;
	struct { L4_Word_t first, last; } range[DRIVER_MAX_RANGES];   /* thread numbers, inclusive */
	int test_requests;     /* 1: accept DRIVER_TEST_CRASH (fault-isolation tests only) */
};

/* 1 if `from` may call a driver started with c (c NULL: its own space only). */
int driver_client_ok(const struct driver_clients *c, L4_ThreadId_t from);
/* Answer a refused sender DRIVER_ERROR / DRIVER_ERR_DENIED; log it once. */
void driver_refuse(const char *driver, L4_ThreadId_t from, L4_MsgTag_t tag);
#define DRIVER_CRASH_ADDR 0x10     /* page 0: never mapped in a driver's space */
/* Fault through a wild pointer (DRIVER_TEST_CRASH, where test_requests allows it). */
void driver_test_crash(void);
/* The transfer timeouts of every driver: a client's string copy that faults ends within this. */
#define DRIVER_XFER_US 100000

void serial_driver(void);
void timer_service(void);
extern struct driver_clients serial_clients, timer_clients;
/*
 * Start both as threads of the calling (privileged) task with the given
 * IDs, give the serial driver IRQ 4, and route printf through it.  They
 * serve the threads of the calling task's space and, with drivers_start_for,
 * the clients c names (copied; NULL: none).  A driver's page faults and
 * exceptions go to the calling thread, which supervises it (docs/architecture.md).
 * Returns 0 on failure.
 */
int drivers_start(L4_ThreadId_t serial, L4_ThreadId_t timer);
int drivers_start_for(L4_ThreadId_t serial, L4_ThreadId_t timer, const struct driver_clients *c);
/* Start (again, after a death) one of them alone, with the clients it had. */
int drivers_restart_serial(void);
int drivers_restart_timer(void);
/*
 * For the supervisor's message loop (the thread that started the drivers is
 * their pager): if tag from `from` is a page fault or exception of the
 * console or timer thread, that driver died; start it afresh (its clients'
 * waiting calls failed when it was deleted) and return 1.  0: not a driver's
 * death, handle the message as usual.
 */
int drivers_supervise(L4_ThreadId_t from, L4_MsgTag_t tag);
/* 1 (and a log line) if tag from `from` is the death of thread `driver` of our space. */
int driver_died(L4_ThreadId_t from, L4_MsgTag_t tag, L4_ThreadId_t driver);
/*
 * Start thread t of the calling task at fn on stack (size bytes) with
 * priority prio; its UTCB follows the root task's layout.  0 on failure.
 */
int drivers_thread_start(L4_ThreadId_t t, void (*fn)(void), char *stack, L4_Word_t size,
			 L4_Word_t prio);
/* Delete thread t of the calling task if it exists (a driver that died or hangs). */
void drivers_thread_kill(L4_ThreadId_t t);

#endif
