/* SPDX-License-Identifier: MIT */
/*
 * Pecan's sigma0 extension (abi.md §7.7, docs/architecture.md "Trust model"):
 * label -1001 << 4, MR1 = the operation.  Only the root task's first thread
 * and kernel threads may use it; anyone else gets no reply.
 */
#ifndef L4_SIGMA0_H
#define L4_SIGMA0_H

#include <l4/types.h>

#define SIGMA0_LABEL_EXT   (((L4_Word_t)-1001 << 4) & 0xffffffffffffUL)
#define SIGMA0_EXT_VERBOSE 1   /* MR2 = verbosity (0 off); no reply */
#define SIGMA0_EXT_DUMP    2   /* print the pools; reply (u = 0) if MR2 != 0 */
/*
 * Root task only: threads with numbers [MR2, MR2 + MR3) become sigma0's
 * clients (the root task creates every thread, so it knows the numbers it
 * gives its own space and the servers it trusts).  Reply u = 1: MR1 = 1
 * admitted, 0 refused (table full, or numbers below UserBase + 3).
 */
#define SIGMA0_EXT_ADMIT   3
#define SIGMA0_MAX_RANGES  16

#endif
