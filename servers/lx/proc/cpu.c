// SPDX-License-Identifier: MIT
// Home processors (docs/lx.md "Processors"): the processors the kernel
// lists in the KIP are Linux's online CPUs.  Each Linux thread has a home
// processor, where the kernel runs it, and an affinity mask; lx moves a
// thread (Schedule's processor control: lx is every thread's scheduler) only
// when its mask comes to exclude its home.  New threads start on their
// creator's home with its mask (as Linux inherits affinity); init starts on
// processor 0, beside lx, because every system call is an IPC to lx there and
// one across processors costs about ten times one on the same processor.
#include "../lx.h"

/* The processors online (the KIP's count), at most LX_MAX_CPUS. */
unsigned cpu_count(void)
{
	static unsigned n;
	if (!n) {
		n = (unsigned)(lx_kip_word(KIP_OFF_PROC_INFO) & 0xffff) + 1;
		if (n > LX_MAX_CPUS)
			n = LX_MAX_CPUS;
	}
	return n;
}

u64 cpu_online_mask(void)
{
	return cpu_count() >= 64 ? ~0UL : (1UL << cpu_count()) - 1;
}

/* The rseq area's CPU fields (cpu_id_start, cpu_id) follow t's home, as Linux's do. */
static void rseq_update(struct thread *t)
{
	uint32_t cpu[2] = { t->cpu, t->cpu };
	if (t->rseq && !t->is_sigthread)
		copyout(t->proc, t->rseq, cpu, sizeof(cpu));
}

/* t's home becomes cpu; false if the kernel refused (t keeps its old home). */
static bool cpu_move(struct thread *t, unsigned cpu)
{
	if (t->cpu == cpu)
		return true;
	if (!L4_Schedule(t->tid, ~0UL, cpu, ~0UL, ~0UL, 0))
		return false;
	t->cpu = (uint8_t)cpu;
	rseq_update(t);
	return true;
}

/* A new thread n of `from` (NULL: init) gets from's mask and home. */
void cpu_inherit(struct thread *n, const struct thread *from)
{
	n->cpu = 0;
	n->cpus_allowed = from ? from->cpus_allowed : cpu_online_mask();
	if (from)
		cpu_move(n, from->cpu);
}

/*
 * sched_setaffinity's effect: mask (bits of any CPU, online or not) limited
 * to the online ones; -EINVAL if none is left, as Linux.  t moves to the
 * lowest allowed processor only if its home is no longer allowed.
 */
long cpu_set_affinity(struct thread *t, u64 mask)
{
	mask &= cpu_online_mask();
	if (!mask)
		return -LX_EINVAL;
	t->cpus_allowed = mask;
	if (mask >> t->cpu & 1)
		return 0;
	return cpu_move(t, (unsigned)__builtin_ctzl(mask)) ? 0 : -LX_EINVAL;
}
