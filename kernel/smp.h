/* SPDX-License-Identifier: MIT */
/*
 * Several processors: per-CPU kernel data, the big kernel lock, cross-CPU
 * requests (docs/architecture.md, "Several processors").
 */
#ifndef PECAN_SMP_H
#define PECAN_SMP_H

#include "types.h"
#include "config.h"

struct tcb;

/* One processor's ready queues (sched.c): 256 priority rings and their bitmaps. */
struct runq {
	struct tcb *head[256];
	u64 bitmap[4];               /* bit p: priority p's ring is not empty */
	unsigned summary;            /* bit w: bitmap[w] is not 0 */
	int top;                     /* the highest priority with a thread queued, or -1 */
};

/*
 * What the kernel keeps per processor.  The boot fields (index .. wakeups)
 * are written by their own processor only.  The scheduling fields
 * (current .. mig_head) belong to the big kernel lock: any processor that
 * holds it may read and change any processor's (to queue a thread there),
 * and the holder's `current` lives in the global `current` while it holds
 * the lock (smp.c saves it when another processor takes the lock).
 */
struct cpu {
	unsigned index;
	unsigned hw_id;              /* the firmware's ID (x86: local APIC ID) */
	volatile bool online;        /* it runs its idle loop */
	volatile u64 ticks;          /* its local timer's ticks */
	volatile u64 wakeups;        /* inter-processor interrupts it took */
	/* under the big kernel lock */
	struct tcb *current;         /* its running thread while another holds the lock */
	struct tcb *idle;            /* its idle thread */
	struct runq rq;
	struct tcb *mig_head;        /* its mailbox: threads to move elsewhere (sched_migrate) */
	paddr_t loaded_root;         /* the page table its CR3 holds */
	bool timer_on;               /* its local timer ticks (it has threads of its own) */
	/* lock-free */
	volatile bool parked;        /* it waits for the lock, its thread's user state in the frame */
	volatile u64 flushed;        /* the last TLB shootdown generation it has done */
	volatile bool drop_root;     /* with the shootdown: load the kernel's own page table */
};

extern struct cpu cpus[CONFIG_MAX_CPUS];
extern unsigned cpu_count;       /* processors online: 0..cpu_count-1 */
/* Threads run on several processors: the lock is taken and released (0 on one processor). */
extern bool smp_active;
/* The processor that holds the big kernel lock (0 whenever !smp_active). */
extern unsigned this_cpu;
/*
 * The big kernel lock's word (smp.c): byte 0 the holder's index + 1 (0:
 * free; entry.S releases it with one byte store on every exit to user
 * mode), byte 1 how many processors wait for it, byte 2 the last holder.
 * Processor k takes it with one cmpxchg from BKL_FREE(k) to BKL_HELD(k)
 * when it is free, nobody waits and k held it last (its globals are loaded).
 */
extern volatile u32 bkl_word;
#define BKL_FREE(k) ((u32)(k) << 16)
#define BKL_HELD(k) ((u32)(k) << 16 | ((u32)(k) + 1))
#define BKL_WAITER  0x100u
/* Does processor k hold the lock? */
static inline bool smp_holds(unsigned k)
{
	return (__atomic_load_n(&bkl_word, __ATOMIC_RELAXED) & 0xff) == k + 1;
}

/* On the boot CPU, clock calibrated: start and check the other processors, fill in the KIP. */
void smp_init(word_t tick_us);
/* A started processor's first generic code: after the check it schedules its own threads. */
void smp_ap_main(unsigned index) __attribute__((noreturn));
/* The local timer's and the IPI's handler (full trap frame; the lock is held when smp_active). */
void smp_interrupt(bool timer);

/* Every kernel entry: take the big kernel lock unless this processor holds it already. */
void smp_lock_slow(void);
static inline void smp_enter(void)
{
	if (CONFIG_SMP && __builtin_expect(smp_active, 0))
		smp_lock_slow();
}
/* Let the lock go around a halt (the idle loop) and take it again. */
void smp_unlock(void);
/* Debug builds: the caller must hold the lock (smp.c panics otherwise). */
void smp_assert_held(const char *where);

/* Interrupt processor i (it reschedules and reads its mailbox). */
void smp_kick(unsigned i);
/* The processor t runs on now, or -1: t is no processor's current (another than the holder's). */
int smp_running_elsewhere(const struct tcb *t);
/*
 * t runs on another processor: interrupt it and wait until it waits for
 * the lock with t's user state saved in its frame, so that the frame may
 * be read and changed (ExchangeRegisters).  It goes on with t afterwards.
 */
void smp_park(const struct tcb *t);
/*
 * t runs on another processor and is about to be deleted: make that
 * processor give it up (t stays stopped) and wait, letting the lock go
 * meanwhile.  On return t runs nowhere; the caller revalidates what it held.
 */
void smp_evict(struct tcb *t);
/* The TLB entries of the page table `root` may be stale: flush them on every other processor that holds it. */
void smp_tlb_shootdown(paddr_t root);
/* The page table `root` is about to be freed: no other processor may keep it in CR3. */
void smp_root_gone(paddr_t root);
/* An idle-bound processor's local timer ticks only while it has threads of its own. */
void smp_timer_follow(void);

#endif
