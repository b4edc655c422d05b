// SPDX-License-Identifier: MIT
// Scheduling: priorities, round robin, direct switch per variant, Schedule, counters.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

static int slot;
static char log[64];
static volatile int nlog;
static volatile L4_ThreadId_t peer;
static volatile L4_Word_t spins[4];

static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
static void note(char c) { if (nlog < 63) log[nlog++] = c; log[nlog] = 0; }
static void log_reset(void) { nlog = 0; log[0] = 0; }
static L4_Word_t variant(void) { return *(volatile L4_Word_t *)PECAN_VARIANT_ADDR; }

static int streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Start t at fn with priority prio (it runs once we block). */
static int start(L4_ThreadId_t t, void (*fn)(void), L4_Word_t prio)
{
	return tt_start_local(t, fn) && L4_Set_Priority(t, prio);
}

static void high_waiter(void)
{
	L4_Wait(0);
	note('H');
	tt_park();
}

static void low_sender(void)
{
	note('a');
	L4_SetMR(0, 0);
	L4_Send(peer);
	note('b');
	tt_park();
}

TEST_CASE("sched.ipc_wakes_higher", "a low thread's send to a waiting higher one runs the higher one at once")
{
	log_reset();
	L4_ThreadId_t h = fresh(), l = fresh();
	peer = h;
	EXPECT(start(h, high_waiter, 200) && start(l, low_sender, 50), "start");
	TT_WAIT(nlog == 3, 200);
	EXPECT(streq(log, "aHb"), "order %s", log);
	tt_kill(h);
	tt_kill(l);
}

static void middle(void)
{
	note('M');
	tt_park();
}

static void low_server(void)
{
	L4_ThreadId_t from;
	L4_Wait(&from);
	note('L');
	L4_SetMR(0, 0);
	L4_Reply(from);
	tt_park();
}

static void high_caller(void)
{
	note('h');
	L4_SetMR(0, 0);
	L4_Call(peer);
	note('H');
	tt_park();
}

/*
 * High (200) calls Low (50) while Middle (100) is ready.  Direct switch runs
 * Low first (priority inversion, seed 001 §2.2); a full scheduler and
 * Benno's priority-respecting switch run Middle first.
 */
TEST_CASE("sched.direct_switch_policy", "a call to a lower-priority server: who runs next depends on the variant")
{
	log_reset();
	L4_ThreadId_t h = fresh(), m = fresh(), l = fresh();
	peer = l;
	EXPECT(start(l, low_server, 50), "start low");
	L4_Sleep(1000);       /* low now waits */
	EXPECT(start(m, middle, 100) && start(h, high_caller, 200), "start");
	TT_WAIT(nlog == 4, 200);
	L4_Word_t v = variant();
	const char *want = (v == PECAN_VARIANT_DSLQ || v == PECAN_VARIANT_DSEQ) ? "hLHM" : "hMLH";
	EXPECT(streq(log, want), "variant %lu: order %s, want %s", v, log, want);
	tt_kill(h);
	tt_kill(m);
	tt_kill(l);
}

static void rr(char c)
{
	for (int i = 0; i < 3; i++) {
		note(c);
		L4_ThreadSwitch(L4_NILTHREAD);
	}
	tt_park();
}
static void rr_a(void) { rr('A'); }
static void rr_b(void) { rr('B'); }
static void rr_c(void) { rr('C'); }

TEST_CASE("sched.yield_round_robin", "ThreadSwitch(nil) round-robins among threads of one priority")
{
	log_reset();
	L4_ThreadId_t a = fresh(), b = fresh(), c = fresh();
	EXPECT(start(a, rr_a, 100) && start(b, rr_b, 100) && start(c, rr_c, 100), "start");
	TT_WAIT(nlog == 9, 200);
	EXPECT(streq(log, "ABCABCABC"), "order %s", log);
	tt_kill(a);
	tt_kill(b);
	tt_kill(c);
}

static void spinner0(void) { for (;;) spins[0]++; }
static void spinner1(void) { for (;;) spins[1]++; }

TEST_CASE("sched.timeslice", "two endless loops of one priority share the CPU through time slices")
{
	spins[0] = spins[1] = 0;
	L4_ThreadId_t a = fresh(), b = fresh();
	EXPECT(start(a, spinner0, 100) && start(b, spinner1, 100), "start");
	/* one sleep of five time slices (CONFIG_TIMESLICE_US): no wake-up of ours in between
	 * could make room for the second loop, only the end of the first one's slice can */
	L4_Sleep(50000);
	EXPECT(spins[0] > 0 && spins[1] > 0, "spins %lu %lu", spins[0], spins[1]);
	tt_kill(a);
	tt_kill(b);
}

static void signalling_spinner(void)
{
	*(volatile unsigned char *)((char *)L4_Utcb() + UTCB_PREEMPT_FLAGS) |= L4_PREEMPT_SIGNAL;
	for (;;)
		spins[2]++;
}

TEST_CASE("sched.preemption_message", "a thread that asked for it tells its scheduler when its slice ends")
{
	spins[2] = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(start(t, signalling_spinner, 100), "start");
	L4_Word_t prev = 0;
	for (int i = 0; i < 3; i++) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Receive_Timeout(t, L4_TimePeriod(200000), &from);
		EXPECT(!L4_IpcFailed(tag), "message %d: ErrorCode %lx", i, L4_ErrorCode());
		EXPECT((L4_TAG_LABEL(tag) >> 4) == (L4_LABEL_PREEMPTION >> 4) && L4_TAG_U(tag) == 2,
		       "message %d: tag %lx", i, tag);
		EXPECT(L4_MR(1) > prev && L4_MR(2) == 0, "time %lu after %lu", L4_MR(1), prev);
		prev = L4_MR(1);
		L4_Word_t before = spins[2];
		L4_SetMR(0, 0);
		L4_Reply(t);
		EXPECT(i == 0 || before > 0, "the thread did not run between messages");
	}
	tt_kill(t);
}

static void spinner3(void) { for (;;) spins[3]++; }

TEST_CASE("sched.total_quantum", "a thread that used up its total quantum stops until its scheduler gives it more")
{
	spins[3] = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(start(t, spinner3, 100), "start");
	L4_Word_t q = L4_TimePeriod(20000);
	EXPECT(L4_Schedule(t, (0xffffUL << 16) | q, ~0UL, ~0UL, ~0UL, 0), "set quantum: %lx", L4_ErrorCode());
	L4_Sleep(60000);                       /* it can only have run for about 20 ms of it */
	L4_Word_t s1 = spins[3];
	L4_Sleep(20000);
	EXPECT(s1 > 0 && spins[3] == s1, "spins %lu then %lu: it ran past its quantum", s1, spins[3]);
	EXPECT(L4_Schedule(t, (0xffffUL << 16) | q, ~0UL, ~0UL, ~0UL, 0), "refill");
	TT_WAIT(spins[3] > s1, 100);
	EXPECT(spins[3] > s1, "it did not run again after the refill");
	tt_kill(t);
}

static volatile L4_Word_t sched_result[4];

static void scheduler_thread(void)
{
	L4_ThreadId_t t = peer;
	sched_result[0] = L4_Set_Priority(t, 200) ? 99 : L4_ErrorCode();  /* above our own 100 */
	sched_result[1] = L4_Set_Priority(t, 60);
	sched_result[2] = 1;
	tt_park();
}

TEST_CASE("sched.schedule_call", "Schedule: only the scheduler may call it, never above its own priority; results")
{
	L4_ThreadId_t s = fresh(), t = fresh(), me = L4_MyGlobalId();
	EXPECT(start(s, scheduler_thread, 100), "start scheduler");
	EXPECT(L4_ThreadControl(t, me, s, me, tt_utcb(t)), "create with scheduler s");
	EXPECT(!L4_Set_Priority(t, 10) && L4_ErrorCode() == L4_ERR_NO_PRIVILEGE,
	       "not its scheduler: %lx", L4_ErrorCode());
	peer = t;
	sched_result[2] = 0;
	TT_WAIT(sched_result[2] == 1, 200);
	EXPECT(sched_result[2] == 1, "scheduler thread did not finish");
	EXPECT(sched_result[0] == L4_ERR_INVALID_PARAM, "above own priority: %lx", sched_result[0]);
	EXPECT(sched_result[1] == L4_SCHED_WAITING, "state of a thread waiting to start: %lu", sched_result[1]);
	EXPECT(!L4_Schedule(tt_id(144, 1), ~0UL, ~0UL, 10, ~0UL, 0) && L4_ErrorCode() == L4_ERR_INVALID_THREAD,
	       "nonexistent thread: %lx", L4_ErrorCode());
	L4_Word_t old;
	EXPECT(L4_Schedule(s, (L4_TimePeriod(5000) << 16) | 0, ~0UL, ~0UL, ~0UL, &old), "set time slice");
	EXPECT(L4_Schedule(s, ~0UL, ~0UL, ~0UL, ~0UL, &old) && (old >> 16) == L4_TimePeriod(5000),
	       "time control read back %lx", old);
	L4_Word_t ncpu = (((const L4_Word_t *)__L4_KIP)[KIP_OFF_PROC_INFO / 8] & 0xffff) + 1;
	EXPECT(!L4_Schedule(s, ~0UL, ncpu, ~0UL, ~0UL, 0) && L4_ErrorCode() == L4_ERR_INVALID_PARAM,
	       "processor %lu of %lu: %lx", ncpu, ncpu, L4_ErrorCode());
	tt_kill(s);
	tt_kill(t);
}

static void echo0(void)
{
	L4_ThreadId_t from;
	L4_Wait(&from);
	for (;;) {
		L4_SetMR(0, 0);
		L4_ReplyWait(from, &from);
	}
}

TEST_CASE("sched.lipc_fastpath", "Calls by local IDs within a space take the fastpath both ways")
{
	L4_ThreadId_t srv = fresh();
	EXPECT(tt_start_local(srv, echo0), "start");
	L4_Set_Priority(srv, 255);
	L4_Word_t local = tt_utcb(srv) + UTCB_P_OFFSET;
	L4_SetMR(0, 0);
	EXPECT(!L4_IpcFailed(L4_Call(local)), "warm-up: ErrorCode %lx", L4_ErrorCode());
	L4_Word_t before = pecan_counter(PECAN_CTR_fastpath_ipcs), ipcs = pecan_counter(PECAN_CTR_ipcs);
	for (int i = 0; i < 100; i++) {
		L4_SetMR(0, 0);
		EXPECT(!L4_IpcFailed(L4_Call(local)), "call %d: ErrorCode %lx", i, L4_ErrorCode());
	}
	L4_Word_t fastd = pecan_counter(PECAN_CTR_fastpath_ipcs) - before;
	L4_Word_t v = variant(), build = *(volatile L4_Word_t *)PECAN_BUILD_ADDR;
	EXPECT(build & 2, "kernel built without counters");
	EXPECT(pecan_counter(PECAN_CTR_ipcs) - ipcs == 200, "ipcs %lu", pecan_counter(PECAN_CTR_ipcs) - ipcs);
	int fast = (build & 1) && v != PECAN_VARIANT_FSLQ && v != PECAN_VARIANT_FSEQ;
	EXPECT(fast ? fastd == 200 : fastd == 0, "fastpath IPCs %lu", fastd);
	tt_kill(srv);
}

static volatile L4_Word_t rd_calls_ok, rd_fast;
static volatile L4_ThreadId_t rd_server;

/* In a space whose redirector is rd_server: 100 Calls to it, counting fastpath IPCs. */
static void redirected_caller(void)
{
	L4_SetMR(0, 0);
	L4_Call(rd_server);               /* warm up: the server is now waiting */
	L4_Word_t before = pecan_counter(PECAN_CTR_fastpath_ipcs);
	L4_Word_t ok = 0;
	for (int i = 0; i < 100; i++) {
		L4_SetMR(0, 0);
		ok += !L4_IpcFailed(L4_Call(rd_server));
	}
	rd_fast = pecan_counter(PECAN_CTR_fastpath_ipcs) - before;
	rd_calls_ok = ok;
	tt_park();
}

TEST_CASE("sched.redirector_fastpath", "Calls from a space with a redirector to that redirector take the fastpath (confinement costs nothing on them)")
{
	L4_ThreadId_t srv = fresh(), c = fresh();
	rd_calls_ok = 0;
	rd_fast = ~0UL;
	rd_server = srv;
	EXPECT(tt_start_local(srv, echo0), "start");
	L4_Set_Priority(srv, 255);
	EXPECT(tt_start_space(c, redirected_caller), "start");
	EXPECT(L4_SpaceControl(c, 0, 0, 0, srv, 0) == 1, "SpaceControl: ErrorCode %lx", L4_ErrorCode());
	L4_Set_Priority(c, 255);        /* DS/EQ's fastpath hands over the ring slot: equal priorities */
	TT_WAIT(rd_calls_ok == 100, 500);
	EXPECT(rd_calls_ok == 100, "calls that succeeded: %lu", rd_calls_ok);
	L4_Word_t v = variant(), build = *(volatile L4_Word_t *)PECAN_BUILD_ADDR;
	int fast = (build & 1) && v != PECAN_VARIANT_FSLQ && v != PECAN_VARIANT_FSEQ;
	EXPECT(fast ? rd_fast == 200 : rd_fast == 0, "fastpath IPCs %lu", rd_fast);
	tt_kill(c);
	tt_kill(srv);
}

TEST_CASE("sched.counters", "the seed 001 counters move as the variant says during 100 calls")
{
	L4_ThreadId_t srv = fresh();
	EXPECT(tt_start_space(srv, echo0), "start");
	L4_Set_Priority(srv, 255);
	L4_SetMR(0, 0);
	L4_Call(srv);         /* warm up: the server is now waiting */
	L4_Word_t before[PECAN_NUM_COUNTERS], d[PECAN_NUM_COUNTERS];
	for (int i = 0; i < PECAN_NUM_COUNTERS; i++)
		before[i] = pecan_counter(i);
	for (int i = 0; i < 100; i++) {
		L4_SetMR(0, 0);
		L4_Call(srv);
	}
	for (int i = 0; i < PECAN_NUM_COUNTERS; i++)
		d[i] = pecan_counter(i) - before[i];
	L4_Word_t v = variant(), build = *(volatile L4_Word_t *)PECAN_BUILD_ADDR;
	EXPECT(build & 2, "kernel built without counters");
	EXPECT(d[PECAN_CTR_ipcs] == 200, "ipcs %lu", d[PECAN_CTR_ipcs]);
	EXPECT(d[PECAN_CTR_context_switches] == 200, "context switches %lu", d[PECAN_CTR_context_switches]);
	EXPECT(d[PECAN_CTR_eager_enqueue] == 200 && d[PECAN_CTR_eager_dequeue] == 200,
	       "eager enqueue %lu dequeue %lu", d[PECAN_CTR_eager_enqueue], d[PECAN_CTR_eager_dequeue]);
	int fast = (build & 1) && v != PECAN_VARIANT_FSLQ && v != PECAN_VARIANT_FSEQ;
	EXPECT(fast ? d[PECAN_CTR_fastpath_ipcs] == 200 : d[PECAN_CTR_fastpath_ipcs] == 0,
	       "fastpath IPCs %lu", d[PECAN_CTR_fastpath_ipcs]);
	if (v == PECAN_VARIANT_DSLQ || v == PECAN_VARIANT_BENNO)
		EXPECT(d[PECAN_CTR_actual_enqueue] == 0 && d[PECAN_CTR_actual_dequeue] == 0 &&
		       d[PECAN_CTR_queue_lookups] == 0, "queue work %lu/%lu/%lu",
		       d[PECAN_CTR_actual_enqueue], d[PECAN_CTR_actual_dequeue], d[PECAN_CTR_queue_lookups]);
	if (v == PECAN_VARIANT_DSEQ)
		EXPECT(d[PECAN_CTR_actual_enqueue] == 200 && d[PECAN_CTR_actual_dequeue] == 200 &&
		       d[PECAN_CTR_queue_lookups] == 0, "queue work %lu/%lu/%lu",
		       d[PECAN_CTR_actual_enqueue], d[PECAN_CTR_actual_dequeue], d[PECAN_CTR_queue_lookups]);
	if (v == PECAN_VARIANT_FSLQ || v == PECAN_VARIANT_FSEQ)
		EXPECT(d[PECAN_CTR_queue_lookups] == 200 && d[PECAN_CTR_actual_enqueue] >= 200,
		       "lookups %lu enqueues %lu", d[PECAN_CTR_queue_lookups], d[PECAN_CTR_actual_enqueue]);
	if (v == PECAN_VARIANT_FSLQ)
		EXPECT(d[PECAN_CTR_deferred_dequeue] == 200, "deferred dequeues %lu", d[PECAN_CTR_deferred_dequeue]);
	tt_kill(srv);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
