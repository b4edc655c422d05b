/* SPDX-License-Identifier: MIT */
/*
 * Threads for in-guest tests, run from the root task: in its own space, or
 * each in a new space paged by a pager thread that maps the root task's own
 * pages at the same addresses (so code and globals are shared).
 */
#ifndef PECAN_TTHREAD_H
#define PECAN_TTHREAD_H

#include "../l4/l4.h"

#define TT_STACK_SIZE 8192

/* The global ID of test thread slot n (0 <= n < 150), version v. */
L4_ThreadId_t tt_id(int n, int v);
/* UTCB location for thread number no, in the root layout (shared by new spaces). */
L4_Word_t tt_utcb(L4_ThreadId_t t);
/* A fresh stack for a thread (never reused); top of stack ready for `call`. */
L4_Word_t tt_stack(void);

/* Create t in the caller's space, start it at fn with a fresh stack; 0 on failure. */
int tt_start_local(L4_ThreadId_t t, void (*fn)(void));
/* Create t in a new space, paged by the test pager; 0 on failure (ErrorCode says why). */
int tt_start_space(L4_ThreadId_t t, void (*fn)(void));
/* The same with page faults going to `pager` (which must map code, data and stack). */
int tt_start_space_paged(L4_ThreadId_t t, void (*fn)(void), L4_ThreadId_t pager);
/* Send the start message (MR1 = ip, MR2 = sp) to a thread waiting for its pager (us). */
int tt_send_start(L4_ThreadId_t t, void (*fn)(void), L4_Word_t sp);
/* Delete t (and its space with its last thread). */
int tt_kill(L4_ThreadId_t t);
/*
 * Wait (1 ms sleeps) until cond holds, for at most about ms milliseconds.
 * Tests wait for what another thread must do this way, not for a fixed
 * time: under an unloaded or a loaded host alike the thread gets the time.
 */
#define TT_WAIT(cond, ms) \
	do { for (int tt_i_ = 0; !(cond) && tt_i_ < (ms); tt_i_++) L4_Sleep(1000); } while (0)

/* Block forever (a finished test thread waits here until deleted). */
void tt_park(void) __attribute__((noreturn));
/* The test pager's thread ID (started on first use) and the faults it served. */
L4_ThreadId_t tt_pager(void);
extern volatile L4_Word_t tt_pager_faults;
/*
 * Serve page faults for ever: a fault at page is answered with a map of our
 * own page source(page, from); a source of 0 leaves it unanswered.
 */
void tt_pager_serve(L4_Word_t (*source)(L4_Word_t page, L4_ThreadId_t from));

#endif
