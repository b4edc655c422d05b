/* SPDX-License-Identifier: MIT */
/*
 * Pecan extensions to the L4 X.2 ABI (docs/abi.md).  The kernel's event
 * counters are readable from user mode in the per-CPU page that %gs points
 * at (mapped read-only into every space); a kernel built with
 * CONFIG_COUNTERS=0 leaves them at zero.
 */
#ifndef L4_PECAN_H
#define L4_PECAN_H

#include <l4/syscalls.h>

#define PECAN_COUNTERS_ADDR   (USER_GS_PAGE + 0x800)

/* X(index, name): seed 001 Table 2's work-avoidance counters. */
#define PECAN_COUNTER_TABLE(X) \
	X(0, ipcs) \
	X(1, eager_enqueue) \
	X(2, actual_enqueue) \
	X(3, deferred_enqueue) \
	X(4, eager_dequeue) \
	X(5, actual_dequeue) \
	X(6, deferred_dequeue) \
	X(7, context_switches) \
	X(8, queue_lookups) \
	X(9, fastpath_ipcs)

#define PECAN_COUNTER_ENUM(i, n) PECAN_CTR_##n = i,
enum pecan_counter { PECAN_COUNTER_TABLE(PECAN_COUNTER_ENUM) PECAN_NUM_COUNTERS };
#undef PECAN_COUNTER_ENUM

/*
 * The IPC fastpaths bump only fastpath_ipcs (one store instead of five);
 * each of them is also an IPC, an eager enqueue and an eager dequeue and a
 * context switch, which the words in the page leave out: a counter's value
 * is its word plus, for those four, the fastpath_ipcs word.
 */
#define PECAN_CTR_WITH_FASTPATH(i) \
	((i) == PECAN_CTR_ipcs || (i) == PECAN_CTR_eager_enqueue || (i) == PECAN_CTR_eager_dequeue || \
	 (i) == PECAN_CTR_context_switches)

/*
 * SpaceControl control bit 32 (docs/abi.md): the space is strictly confined
 * while it has a redirector.
 * Its page faults and exceptions go to its redirector whenever their handler
 * lies outside the space (the Pager and ExceptionHandler TCRs are
 * user-writable), and it reaches no kernel debugger.  Once set it stays set.
 */
#define PECAN_SPACE_STRICT    (1UL << 32)

/* Word 1 of the %gs page: the scheduler variant the kernel was built with. */
#define PECAN_VARIANT_ADDR    (USER_GS_PAGE + 0x8)
#define PECAN_VARIANT_DSLQ    1
#define PECAN_VARIANT_DSEQ    2
#define PECAN_VARIANT_FSLQ    3
#define PECAN_VARIANT_FSEQ    4
#define PECAN_VARIANT_BENNO   5
/* Word 2: bit 0 fastpath built in, bit 1 counters built in. */
#define PECAN_BUILD_ADDR      (USER_GS_PAGE + 0x10)
/* Words 3 and 4: NMIs the kernel handled that interrupted user mode, and kernel mode. */
#define PECAN_NMI_USER_ADDR   (USER_GS_PAGE + 0x18)
#define PECAN_NMI_KERNEL_ADDR (USER_GS_PAGE + 0x20)

#endif
