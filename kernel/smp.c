// SPDX-License-Identifier: MIT
// Several processors: bring-up, the boot-time check, per-CPU data, the idle loop of the others.
#include "smp.h"
#include "kip.h"
#include "printk.h"
#include <arch.h>

#define START_TIMEOUT_US 2000000     /* generous: a loaded host may run a new vCPU late */
#define CHECK_TIMEOUT_US 1000000
#define CHECK_TICKS      2

struct cpu cpus[CONFIG_MAX_CPUS];
unsigned cpu_count = 1;
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

/*
 * Processors start one at a time (they share the trampoline); the first
 * that fails ends the bring-up, so the online ones are always 0..n-1.
 */
void smp_init(word_t tick_us)
{
	unsigned found = arch_cpus_probe();
	cpus[0] = (struct cpu){ .index = 0, .hw_id = arch_cpu_hw_id(0), .online = true };
	ap_tick_us = tick_us;
	unsigned n = 1;
	while (n < found && start_one(n) && check_one(n))
		n++;
	cpu_count = n;
	kip_set_processors(n);
	printk("pecan: %u processor%s online\n", n, n == 1 ? "" : "s");
}

void smp_ap_main(unsigned index)
{
	arch_cpu_timer_start(ap_tick_us);
	__atomic_store_n(&cpus[index].online, true, __ATOMIC_RELEASE);
	for (;;)
		arch_idle_wait();
}

/*
 * A processor's local timer runs only for the boot check: with no thread
 * of its own to preempt or time out it then halts without ticks (which
 * would also cost the emulator a host thread's time, and under icount the
 * boot CPU's instructions: there the virtual CPUs share one clock).
 */
void smp_tick(void)
{
	struct cpu *c = &cpus[arch_cpu_index()];
	if (++c->ticks >= CHECK_TICKS)
		arch_cpu_timer_stop();
}

void smp_wakeup(void)
{
	cpus[arch_cpu_index()].wakeups++;
}
