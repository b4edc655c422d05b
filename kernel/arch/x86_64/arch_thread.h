/* SPDX-License-Identifier: MIT */
/*
 * Inline per-thread context operations for the IPC paths (thread.h includes
 * this after struct tcb).  The out-of-line rest is in context.c.
 */
#ifndef ARCH_THREAD_H
#define ARCH_THREAD_H


/* A tag no other thread's TCB gives: TCBs are distinct pages, none at physical 0. */
static inline u32 arch_fs_tag(const struct tcb *t)
{
	return (u32)(virt_to_phys_direct(t) >> 12);
}

static inline struct trapframe *arch_user_frame(const struct tcb *t)
{
	return (struct trapframe *)t->kstack_top - 1;
}

/* t's TLS base (FS.base) from its next switch-in on; b passed arch_tls_base_valid. */
static inline void arch_set_tls_base(struct tcb *t, word_t b)
{
	t->arch.fs_base = b;
	t->arch.fs_tag = b ? arch_fs_tag(t) : 0;
}

/*
 * Make t's next switch-in run fn(frame) (fn not NULL) and return to user
 * mode, dropping whatever kernel context t had.  Only for threads blocked
 * where no kernel state is live on their stack (IPC waits, new threads).
 * One store, since the fastpaths' commit makes it: a thread resumes from
 * its continuation while it has a function, and from its saved ksp once
 * arch_switch_to has cleared it.
 */
static inline void arch_set_continuation(struct tcb *t, void (*fn)(struct trapframe *))
{
	t->arch.cont[4] = (word_t)fn;
}

/*
 * A tick found t running: t's use of ports (io_user) is forgotten, so a
 * thread that used them once (a probe at start-up) stops putting them in
 * force at every switch-in.  One that goes on using them faults once more
 * (arch_io_lazy) at the first `in` or `out` after its next switch-in that
 * finds them off: one fault per tick at most.
 */
static inline void arch_thread_tick(struct tcb *t)
{
	t->arch.io_user = 0;
}

#endif
