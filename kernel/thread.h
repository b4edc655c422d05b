/* SPDX-License-Identifier: MIT */
/* Threads: identity, state, UTCB and kernel stack. */
#ifndef PECAN_THREAD_H
#define PECAN_THREAD_H

#include "types.h"
#include <arch.h>

enum thread_state {
	TS_INACTIVE,
	TS_READY,       /* running or runnable */
	TS_HALTED,      /* stopped by an unhandled exception */
};

struct space;

struct tcb {
	word_t id;                  /* global thread ID */
	enum thread_state state;
	struct space *space;
	word_t utcb;                /* user address of the UTCB pointer P (= local ID) */
	u8 *utcb_k;                 /* kernel address of P */
	const char *name;
	struct tcb *ready_next;     /* the scheduler's queue link */
	word_t kstack_top;
	struct arch_thread arch;
};

/* The thread with exactly this global ID (number and version), or NULL. */
struct tcb *tcb_lookup(word_t gid);
/*
 * Create thread gid in space s with its UTCB at utcb_location (1 KiB aligned,
 * inside the space's UTCB area).  The thread starts at ip/sp once readied.
 */
struct tcb *thread_create(word_t gid, struct space *s, word_t utcb_location,
			  word_t ip, word_t sp, const char *name);
void utcb_set(struct tcb *t, int offset, word_t value);

#endif
