/* SPDX-License-Identifier: MIT */
/*
 * Preemption points of long kernel operations (docs/architecture.md).  The
 * kernel runs with interrupts off; an operation whose length user code
 * chooses (map, unmap, revocation) asks every few steps whether an
 * interrupt waits, and where it holds nothing (or can start over) takes it.
 */
#ifndef PECAN_PREEMPT_H
#define PECAN_PREEMPT_H

#include <arch.h>

/* Is an interrupt waiting?  Cheap enough to ask every few pages. */
static inline bool preempt_wanted(void)
{
	return arch_irq_pending();
}

/*
 * Take the waiting interrupts now; their handlers may run before we go on.
 * Only where the caller holds nothing that another thread could need
 * consistent: the thread may be switched out here, even deleted.
 */
static inline void preempt_point(void)
{
	if (arch_irq_pending())
		arch_irq_window();
}

#endif
