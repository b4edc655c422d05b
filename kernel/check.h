/* SPDX-License-Identifier: MIT */
/*
 * Whole-kernel consistency checks (debugging and tests; CONFIG_CHECK).
 * Each walks one structure and returns NULL if its invariants hold, else
 * the first violation found; *count says how much it examined.
 */
#ifndef PECAN_CHECK_H
#define PECAN_CHECK_H

#include "types.h"

struct space;

/* The thread table: IDs in their slots, states, space thread counts, send queues. */
const char *check_threads(word_t *count);
/* The ready queues: links, bitmaps, priorities, each thread once, the variant's rule. */
const char *check_ready_queues(word_t *count);
/* The wakeup queue: links, sorted deadlines, only blocked threads, every deadline queued. */
const char *check_wakeup_queue(word_t *count);
/* Is s the space of some thread (a live space)? */
bool check_space_live(const struct space *s);

/*
 * Run every check (mapping database and page tables included), print one
 * line per check and a verdict line on the console.  Returns a bit mask of
 * the checks that failed (0: all hold); *pool_free gets the kernel pool's
 * free frames.
 */
word_t check_kernel(word_t *pool_free);

#endif
