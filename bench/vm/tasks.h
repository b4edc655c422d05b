/* SPDX-License-Identifier: MIT */
/* The task create+delete loop bench/vm and bench/scale time. */
#ifndef PECAN_BENCH_TASKS_H
#define PECAN_BENCH_TASKS_H

#include "../../lib/test/tthread.h"
#include "../pingpong/ppcall.h"

/*
 * `rounds` times: a new space with one thread (test slot `slot`, a new
 * version each round), configured as the root task's, made active, then
 * deleted.  Tenths of a guest instruction per round.
 */
static inline L4_Word_t bench_tasks_create_delete(int slot, int rounds)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	L4_Word_t t0 = bench_rdtsc();
	for (int i = 0; i < rounds; i++) {
		L4_ThreadId_t t = tt_id(slot, 1 + i);
		L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL);
		L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
				L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0);
		L4_ThreadControl(t, t, me, me, tt_utcb(t));
		L4_ThreadControl(t, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
	}
	return (bench_rdtsc() - t0) * 10 / rounds;
}

#endif
