// SPDX-License-Identifier: MIT
// Several processors: bring-up, the big kernel lock, cross-CPU requests, TLB shootdown.
#include "smp.h"
#include "kip.h"
#include "printk.h"
#include "sched.h"
#include "thread.h"
#include <arch.h>

#define START_TIMEOUT_US 2000000     /* generous: a loaded host may run a new vCPU late */
#define CHECK_TIMEOUT_US 1000000
#define CHECK_TICKS      2

unsigned cpu_count = 1;
bool smp_active;
unsigned this_cpu;
volatile int bkl_owner = -1;
unsigned bkl_last;                   /* the last holder: its globals are still loaded (entry.S reads it) */
static volatile u64 flush_gen;       /* TLB shootdown generation */
static word_t ap_tick_us;

/* Spin until *v reaches at_least or timeout_us have passed; false on timeout. */
static bool wait_for(volatile u64 *v, u64 at_least, u64 timeout_us)
{
	u64 end = arch_clock_us() + timeout_us;
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < at_least) {
		if (arch_clock_us() > end)
			return false;
		arch_cpu_relax();
	}
	return true;
}

static bool start_one(unsigned i)
{
	cpus[i].index = i;
	cpus[i].hw_id = arch_cpu_hw_id(i);
	arch_cpu_start(i);
	u64 end = arch_clock_us() + START_TIMEOUT_US;
	while (!__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE)) {
		if (arch_clock_us() > end) {
			printk("pecan: cpu %u (apic %u) did not start\n", i, cpus[i].hw_id);
			return false;
		}
		arch_cpu_relax();
	}
	return true;
}

/* A started processor must tick on its own timer (then it stops) and answer an inter-processor interrupt. */
static bool check_one(unsigned i)
{
	arch_cpu_wake(i);
	bool woke = wait_for(&cpus[i].wakeups, 1, CHECK_TIMEOUT_US);
	bool ticks = wait_for(&cpus[i].ticks, CHECK_TICKS, CHECK_TIMEOUT_US);
	printk("pecan: cpu %u (apic %u) online: timer %s, IPI %s\n", i, cpus[i].hw_id,
	       ticks ? "ticking" : "SILENT", woke ? "answered" : "UNANSWERED");
	return woke && ticks;
}

static struct tcb idle_tcbs[CONFIG_MAX_CPUS];

/* Processor i's scheduling state before it first takes the lock. */
static void cpu_sched_init(unsigned i)
{
	idle_tcbs[i] = (struct tcb){ .name = "idle", .state = TS_IDLE, .cpu = (u8)i };
	cpus[i].idle = cpus[i].current = &idle_tcbs[i];
	cpus[i].rq.top = -1;
	cpus[i].loaded_root = arch_kernel_root();
}

/*
 * Processors start one at a time (they share the trampoline); the first
 * that fails ends the bring-up, so the online ones are always 0..n-1.
 * With more than one the big kernel lock comes into force (the boot CPU
 * takes it here, before any thread runs).
 */
void smp_init(word_t tick_us)
{
	unsigned found = arch_cpus_probe();
	cpus[0].index = 0;                  /* its queues are in use already (sched.c) */
	cpus[0].hw_id = arch_cpu_hw_id(0);
	cpus[0].online = true;
	ap_tick_us = tick_us;
	unsigned n = 1;
	while (n < found && start_one(n) && check_one(n))
		n++;
	cpu_count = n;
	kip_set_processors(n);
	printk("pecan: %u processor%s online\n", n, n == 1 ? "" : "s");
	if (n == 1)
		return;
	for (unsigned i = 1; i < n; i++)
		cpu_sched_init(i);
	bkl_owner = 0;
	__atomic_store_n(&smp_active, true, __ATOMIC_RELEASE);
	arch_smp_entry();
	for (unsigned i = 1; i < n; i++)
		arch_cpu_wake(i);           /* out of the boot check's halt, into the scheduler */
}

void smp_ap_main(unsigned index)
{
	arch_cpu_timer_start(ap_tick_us);
	__atomic_store_n(&cpus[index].online, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&smp_active, __ATOMIC_ACQUIRE))
		arch_idle_wait();
	smp_lock_slow();
	sched_start_ap();
}

static void write_kernel_root(void)
{
	__asm__ __volatile__("mov %0, %%cr3" : : "r"(arch_kernel_root()) : "memory");
}

/* Do the TLB shootdown another processor asked for (it waits for this, holding the lock). */
static void flush_service(unsigned me)
{
	u64 gen = __atomic_load_n(&flush_gen, __ATOMIC_ACQUIRE);
	if (cpus[me].flushed != gen) {
		if (cpus[me].drop_root) {
			cpus[me].drop_root = false;
			write_kernel_root();
		}
		arch_flush_tlb();
		__atomic_store_n(&cpus[me].flushed, gen, __ATOMIC_RELEASE);
	}
}

/* The holder's globals go back to its struct cpu, ours come in. */
static void swap_globals(unsigned me)
{
	cpus[bkl_last].current = current;
	cpus[bkl_last].loaded_root = arch_loaded_root;
	current = cpus[me].current;
	arch_loaded_root = cpus[me].loaded_root;
	this_cpu = me;
	rq = &cpus[me].rq;
	arch_cpu_globals(me);
	bkl_last = me;
}

/*
 * A ticket lock: processors get the lock in the order they asked for it.
 * Under icount QEMU runs the virtual CPUs round-robin, and a `pause` ends
 * a spinning one's turn; without the order, a thread that enters the
 * kernel over and over could take the lock back every time before the
 * others' turns come.  The holder takes the next ticket off the queue when
 * it gets the lock, so that entry.S releases it with one store (bkl_owner).
 */
volatile u32 bkl_next, bkl_serving;   /* entry.S reads them too */

/* Wait for our ticket with the frame saved (parked), doing the shootdowns the holder asks for. */
static void lock_wait(unsigned me, u32 ticket)
{
	__atomic_store_n(&cpus[me].parked, true, __ATOMIC_RELEASE);
	for (;;) {
		int free = -1;
		if (__atomic_load_n(&bkl_serving, __ATOMIC_ACQUIRE) == ticket && bkl_owner == -1 &&
		    __atomic_compare_exchange_n(&bkl_owner, &free, (int)me, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		flush_service(me);
		arch_cpu_relax();
	}
	__atomic_store_n(&bkl_serving, ticket + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&cpus[me].parked, false, __ATOMIC_RELAXED);
	flush_service(me);
	if (bkl_last != me)
		swap_globals(me);
}

void smp_lock_slow(void)
{
	unsigned me = arch_cpu_index();
	if (bkl_owner == (int)me)
		return;
	lock_wait(me, __atomic_fetch_add(&bkl_next, 1, __ATOMIC_RELAXED));
}

/*
 * entry.S: the boot CPU's Ipc entry while several processors run (never
 * nested: it comes from user mode).  Free, and last held here: nothing to
 * wait for, no shootdown pending (its holder would still hold the lock),
 * no globals to change.
 */
/* entry.S: processor 0 got the lock with its cmpxchg after another held it: its globals come in. */
__attribute__((no_caller_saved_registers)) void smp_locked_boot(void)
{
	flush_service(0);
	swap_globals(0);
}

__attribute__((no_caller_saved_registers)) void smp_lock_boot(void)
{
	u32 ticket = __atomic_fetch_add(&bkl_next, 1, __ATOMIC_ACQUIRE);
	if (__builtin_expect(bkl_serving == ticket && bkl_owner == -1 && bkl_last == 0, 1)) {
		bkl_owner = 0;
		__atomic_store_n(&bkl_serving, ticket + 1, __ATOMIC_RELEASE);
		return;
	}
	lock_wait(0, ticket);
}

void smp_unlock(void)
{
	smp_assert_held("smp_unlock");
	__atomic_store_n(&bkl_owner, -1, __ATOMIC_RELEASE);
}

void smp_assert_held(const char *where)
{
	if (CONFIG_CHECK && smp_active && bkl_owner != (int)arch_cpu_index())
		panic("smp: %s without the big kernel lock (owner %d, cpu %u)", where, bkl_owner,
		      arch_cpu_index());
}

void smp_kick(unsigned i)
{
	if (i != this_cpu)
		arch_cpu_wake(i);
}

int smp_running_elsewhere(const struct tcb *t)
{
	if (!smp_active)
		return -1;
	for (unsigned i = 0; i < cpu_count; i++)
		if (i != this_cpu && cpus[i].current == t)
			return (int)i;
	return -1;
}

void smp_park(const struct tcb *t)
{
	smp_assert_held("smp_park");
	int x = smp_running_elsewhere(t);
	if (x < 0)
		return;
	arch_cpu_wake((unsigned)x);
	while (!__atomic_load_n(&cpus[x].parked, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

void smp_evict(struct tcb *t)
{
	smp_assert_held("smp_evict");
	int x = smp_running_elsewhere(t);
	if (x < 0)
		return;
	t->stopped = t->exregs_stopped = true;
	do {
		arch_cpu_wake((unsigned)x);
		smp_unlock();
		for (int spin = 0; spin < 1000; spin++)
			arch_cpu_relax();
		smp_lock_slow();
	} while (smp_running_elsewhere(t) == x);
}

/*
 * Without PCIDs a processor's TLB holds entries of the page table its CR3
 * holds only (cpus[i].loaded_root: exact for every processor but the
 * holder, whose own the caller flushed).  Those processors flush when the
 * IPI arrives, or while they wait for the lock; the holder waits for them.
 */
static void shootdown(paddr_t root, bool drop)
{
	smp_assert_held("shootdown");
	u8 wait[CONFIG_MAX_CPUS] = { 0 };
	for (unsigned i = 0; i < cpu_count; i++)
		if (i != this_cpu && cpus[i].loaded_root == root) {
			wait[i] = 1;
			if (drop) {                 /* before the new generation: whoever sees it sees this */
				cpus[i].drop_root = true;
				cpus[i].loaded_root = arch_kernel_root();
			}
		}
	u64 gen = __atomic_add_fetch(&flush_gen, 1, __ATOMIC_ACQ_REL);
	cpus[this_cpu].flushed = gen;
	for (unsigned i = 0; i < cpu_count; i++)
		if (wait[i])
			arch_cpu_wake(i);
	for (unsigned i = 0; i < cpu_count; i++)
		if (wait[i])
			wait_for(&cpus[i].flushed, gen, ~0ULL >> 2);
}

void smp_tlb_shootdown(paddr_t root)
{
	if (smp_active)
		shootdown(root, false);
}

void smp_root_gone(paddr_t root)
{
	if (smp_active)
		shootdown(root, true);
}

/*
 * The boot check: a processor's timer ticks twice, then stops until the
 * processor has threads of its own (with nothing to preempt or time out,
 * ticks would only cost the emulator a host thread's time, and under icount
 * the boot CPU's instructions: there the virtual CPUs share one clock).
 * Afterwards: the tick's time slice, the IPI's mailbox, and either may
 * make the processor reschedule.
 */
void smp_interrupt(bool timer)
{
	unsigned me = arch_cpu_index();
	struct cpu *c = &cpus[me];
	if (timer)
		c->ticks++;
	else
		c->wakeups++;
	flush_service(me);
	if (!__atomic_load_n(&smp_active, __ATOMIC_ACQUIRE)) {
		if (c->ticks >= CHECK_TICKS)
			arch_cpu_timer_stop();
		return;
	}
	smp_lock_slow();
	if (timer)
		sched_tick(ap_tick_us);
	sched_mailbox();
	smp_timer_follow();                 /* time slices while it has threads */
	sched_reconsider();
}

void smp_timer_follow(void)
{
	struct cpu *c = &cpus[this_cpu];
	bool want = this_cpu && (c->rq.top >= 0 || c->current != c->idle);
	if (want != c->timer_on) {
		c->timer_on = want;
		if (want)
			arch_cpu_timer_start(ap_tick_us);
		else
			arch_cpu_timer_stop();
	}
}
