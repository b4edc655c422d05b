/* SPDX-License-Identifier: MIT */
/*
 * Inline per-thread context operations for the IPC paths (thread.h includes
 * this after struct tcb).  The out-of-line rest is in context.c.
 */
#ifndef ARCH_THREAD_H
#define ARCH_THREAD_H


static inline struct trapframe *arch_user_frame(const struct tcb *t)
{
	return (struct trapframe *)t->kstack_top - 1;
}

/* t's TLS base (FS.base) from its next switch-in on; b passed arch_tls_base_valid. */
static inline void arch_set_tls_base(struct tcb *t, word_t b)
{
	t->arch.fs_base = b;
}

/*
 * Make t's next switch-in run fn(frame) (fn may be NULL) and return to user
 * mode, dropping whatever kernel context t had.  Only for threads blocked
 * where no kernel state is live on their stack (IPC waits, new threads).
 */
static inline void arch_set_continuation(struct tcb *t, void (*fn)(struct trapframe *))
{
	t->arch.cont[4] = (word_t)fn;
	t->arch.ksp = (word_t)t->arch.cont;
}

#endif
