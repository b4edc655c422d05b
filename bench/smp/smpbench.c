// SPDX-License-Identifier: MIT
// IPC on several processors (boot with -smp 4): one-way IPC between two threads on one
// processor (the boot CPU, which has the fastpath, and another, which has not), between two
// processors, and ping-pong throughput with one pair per processor on 1, 2 and 4 processors.
// Under QEMU icount rdtsc counts guest instructions of all virtual CPUs together (QEMU runs
// them round-robin on one host thread): a figure per IPC that stays flat as pairs are added
// is linear scaling in instructions, not in time.  Without icount (-accel tcg,thread=multi)
// rdtsc is the host's clock: wall-clock and noisy.
#include "../../lib/l4/l4.h"
#include "../../lib/test/tthread.h"
#include "../../lib/c/stdio.h"
#include "../../lib/fmt/fmt.h"
#include "../pingpong/ppcall.h"

#define ROUNDS 2000
#define MAXPAIRS 4

static L4_ThreadId_t main_id, pings[MAXPAIRS], pongs[MAXPAIRS];
static volatile L4_Word_t elapsed[MAXPAIRS];
static int slot;

static int index_of(const L4_ThreadId_t *ids)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	for (int i = 0; i < MAXPAIRS; i++)
		if (ids[i] == me)
			return i;
	return 0;
}

/* Answer ping's Calls for ever (each answer is a Call back: one one-way IPC each way). */
static void pong(void)
{
	int i = index_of(pongs);
	L4_Receive(pings[i]);
	L4_Word_t *utcb = L4_Utcb();
	for (;;)
		pp_call(__L4_Ipc, pings[i], 0, utcb);
}

/* On main's word: a warm-up Call, ROUNDS timed Calls, then tell main. */
static void ping(void)
{
	int i = index_of(pings);
	L4_Word_t *utcb = L4_Utcb();
	for (;;) {
		L4_Receive(main_id);
		pp_call(__L4_Ipc, pongs[i], 0, utcb);
		L4_Word_t t0 = bench_rdtsc();
		for (int k = 0; k < ROUNDS; k++)
			pp_call(__L4_Ipc, pongs[i], 0, utcb);
		elapsed[i] = bench_rdtsc() - t0;
		L4_SetMR(0, 0);
		L4_Send(main_id);
	}
}

static void to_cpu(L4_ThreadId_t t, L4_Word_t cpu)
{
	if (!L4_Schedule(t, ~0UL, cpu, ~0UL, ~0UL, 0))
		printf("smpbench: Schedule to cpu %lu failed (ErrorCode %lu)\n", cpu, L4_ErrorCode());
}

/* Pair i: ping on cpu a, pong on cpu b. */
static void make_pair(int i, L4_Word_t a, L4_Word_t b)
{
	pings[i] = tt_id(slot++, 1);
	pongs[i] = tt_id(slot++, 1);
	tt_start_local(pongs[i], pong);
	tt_start_local(pings[i], ping);
	to_cpu(pongs[i], b);
	to_cpu(pings[i], a);
}

static void kill_pairs(int n)
{
	for (int i = 0; i < n; i++) {
		tt_kill(pings[i]);
		tt_kill(pongs[i]);
	}
}

/* Start pairs 0..n-1 together; the rdtsc span from the first start to the last finish. */
static L4_Word_t run_pairs(int n)
{
	L4_Word_t t0 = bench_rdtsc();
	for (int i = 0; i < n; i++) {
		L4_SetMR(0, 0);
		L4_Send(pings[i]);
	}
	for (int i = 0; i < n; i++)
		L4_Receive(pings[i]);
	return bench_rdtsc() - t0;
}

static const char *method;

static void result(const char *name, const char *param, L4_Word_t tenths)
{
	printf("RESULT name=%s %s value=%lu.%lu unit=%s method=%s\n", name, param, tenths / 10,
	       tenths % 10, method[0] == 'i' ? "instructions" : "cycles", method);
}

static void oneway(const char *param, L4_Word_t a, L4_Word_t b)
{
	make_pair(0, a, b);
	run_pairs(1);
	result("smp.ipc.oneway", param, elapsed[0] * 10 / (2 * ROUNDS));
	kill_pairs(1);
}

int main(void)
{
	main_id = L4_MyGlobalId();
	char args[32] = "";
	pecan_boot_args(args, sizeof args);
	method = args[0] == 'w' ? "wallclock-tcg-multi" : "icount";
	L4_Word_t n = (((const L4_Word_t *)__L4_KIP)[KIP_OFF_PROC_INFO / 8] & 0xffff) + 1;
	printf("smpbench: %lu processors, %d round trips per figure, %s\n", n, ROUNDS, method);
	oneway("placement=same-cpu0", 0, 0);
	if (n >= 2) {
		oneway("placement=same-cpu1", 1, 1);
		oneway("placement=cross-cpu0-cpu1", 0, 1);
	}
	for (int pairs = 1; pairs <= MAXPAIRS && (L4_Word_t)pairs <= n; pairs *= 2) {
		for (int i = 0; i < pairs; i++)
			make_pair(i, (L4_Word_t)i, (L4_Word_t)i);
		L4_Word_t span = run_pairs(pairs);
		char p[32];
		snfmt(p, sizeof p, "pairs=%d", pairs);
		/* per IPC, all processors together: flat = linear scaling */
		result("smp.pingpong.span_per_ipc", p, span * 10 / (2 * ROUNDS * (L4_Word_t)pairs));
		for (int i = 0; i < pairs; i++) {
			snfmt(p, sizeof p, "pairs=%d cpu=%d", pairs, i);
			result("smp.pingpong.oneway", p, elapsed[i] * 10 / (2 * ROUNDS));
		}
		kill_pairs(pairs);
	}
	printf("smpbench: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
