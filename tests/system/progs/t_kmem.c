// SPDX-License-Identifier: MIT
// Kernel memory: the pool in the KIP, nothing leaks, quotas stop a space from
// starving others, out of memory is ErrorCode 8.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

#define PAGE      4096UL
#define SINK_VA   0x50000000UL          /* where the sink receives: tables of its own */
#define ATT_BASE  0x100000000UL         /* the attacker's buffer, aligned for 15 doublings */
#define ATT_LOG2  16                    /* 64 KiB */
#define ATT_ROUNDS 15
#define CROWD     400                   /* threads the root task creates during the attack */
#define CROWD_NO  (L4_USER_BASE + 200)  /* their thread numbers, clear of the tt_id slots */

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }

static L4_Word_t kip_word(L4_Word_t off) { return *(volatile L4_Word_t *)(ROOT_KIP_AREA + off); }
static L4_Word_t pool_free(void) { return kip_word(KIP_OFF_KMEM_FREE); }

static char sinkbuf[4 * PAGE] __attribute__((aligned(4 * PAGE)));
static char attbuf[1UL << ATT_LOG2] __attribute__((aligned(PAGE)));

static void touch(char *p, L4_Word_t n)
{
	for (L4_Word_t i = 0; i < n; i += PAGE)
		((volatile char *)p)[i] = 1;
}

TEST_CASE("kmem.kip", "the KIP gives the pool's size (a Reserved descriptor of that size) and its free bytes")
{
	L4_Word_t size = kip_word(KIP_OFF_KMEM_SIZE), free = pool_free();
	EXPECT(size >= (2UL << 20) && size % (2UL << 20) == 0, "pool size %lx", size);
	EXPECT(free > 0 && free < size && free % PAGE == 0, "free %lx of %lx", free, size);
	L4_Word_t info = kip_word(KIP_OFF_MEMORY_INFO), n = info & 0xffffffff, found = 0;
	const L4_Word_t *d = (const L4_Word_t *)(ROOT_KIP_AREA + (info >> 32));
	for (L4_Word_t i = 0; i < n; i++, d += 2)
		if ((d[0] & 0xf) == MEMDESC_RESERVED &&
		    (d[1] | 0x3ff) + 1 - (d[0] & ~0x3ffUL) == size)
			found++;
	EXPECT(found == 1, "%lu Reserved descriptors of the pool's size", found);
	L4_ThreadId_t t = fresh();
	EXPECT(L4_ThreadControl(t, t, L4_MyGlobalId(), L4_NILTHREAD, ~0UL), "create: %lx", L4_ErrorCode());
	EXPECT(pool_free() < free, "a new space and thread took nothing: %lx", pool_free());
	EXPECT(tt_kill(t), "delete");
	EXPECT(pool_free() == free, "the free count did not come back: %lx, was %lx", pool_free(), free);
}

/* Receives one map item at SINK_VA per Call, then answers; the root task does the rest. */
static void sink(void)
{
	L4_ThreadId_t from;
	L4_SetTcr(UTCB_BR(0), L4_FPAGE_MAKE(SINK_VA, 14, 0));
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		(void)tag;
		L4_SetMR(0, 0);
		L4_SetTcr(UTCB_BR(0), L4_FPAGE_MAKE(SINK_VA, 14, 0));
		tag = L4_ReplyWait(from, &from);
	}
}

static L4_Word_t map_to_sink(L4_ThreadId_t t)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, SINK_VA | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE((L4_Word_t)sinkbuf, 14, 7));
	return !L4_IpcFailed(L4_Call(t));
}

/* tt_start_space with one stack for every sink: tt_stack() recycles its stacks after 48. */
static char sink_stack[TT_STACK_SIZE] __attribute__((aligned(16)));

static int start_sink(L4_ThreadId_t t)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	return L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL) &&
	       L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			       L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0) &&
	       L4_ThreadControl(t, t, me, me, tt_utcb(t)) &&
	       tt_send_start(t, sink, (L4_Word_t)sink_stack + TT_STACK_SIZE - 8) &&
	       L4_ThreadControl(t, t, L4_NILTHREAD, tt_pager(), ~0UL);
}

/* One cycle; counts where the free count did not come back after the unmap. */
static int cycle(L4_ThreadId_t t, L4_Word_t *unmap_leaks)
{
	if (!start_sink(t))
		return 0;
	L4_SetMR(0, 0);
	if (L4_IpcFailed(L4_Call(t)))          /* the sink has faulted in all it touches */
		return 0;
	L4_Word_t before = pool_free();
	if (!map_to_sink(t))
		return 0;
	L4_SetMR(0, L4_FPAGE_MAKE((L4_Word_t)sinkbuf, 14, 7));
	L4_Unmap(0);                            /* revoke the sink's copy; ours stays */
	if (pool_free() != before)
		++*unmap_leaks;
	return tt_kill(t);
}

TEST_CASE("kmem.cycles", "10^4 create/map/unmap/delete cycles: the pool ends where it started, unmap alone gives back")
{
	touch(sinkbuf, sizeof(sinkbuf));
	L4_Word_t leaks = 0, t0 = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(cycle(t, &leaks), "warm-up cycle failed: %lx", L4_ErrorCode());
	t0 = pool_free();
	EXPECT(t0 != 0, "the KIP shows no free count");
	for (int i = 0; i < 10000; i++) {
		t = tt_id(slot, 1 + (i % 60));
		if (!cycle(t, &leaks)) {
			EXPECT(0, "cycle %d failed: ErrorCode %lx, free %lx", i, L4_ErrorCode(), pool_free());
			break;
		}
	}
	slot++;
	EXPECT(leaks == 0, "%lu unmaps left page tables or nodes behind", leaks);
	EXPECT(pool_free() == t0, "pool free %lx after the cycles, %lx before", pool_free(), t0);
	EXPECT(pecan_kdb_check_mappings() == 0, "mapping database inconsistent (see the console)");
}

TEST_CASE("kmem.quota_errors", "a space over its quota gets ErrorCode 8 from SpaceControl and ThreadControl, then works with more")
{
	L4_ThreadId_t me = L4_MyGlobalId(), t = fresh();
	L4_Word_t free0 = pool_free(), old = 0;
	L4_Word_t kip = L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0), utcb = L4_FPAGE_MAKE(ROOT_UTCB_AREA, 18, 0);
	EXPECT(L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL), "create: %lx", L4_ErrorCode());
	/* space, top-level table, TCB, stack: 5 pages; the KIP's tables do not fit in 5 */
	EXPECT(!L4_SpaceControl(t, 5, kip, utcb, L4_NILTHREAD, 0) && L4_ErrorCode() == L4_ERR_NO_MEM,
	       "configured in 5 pages: %lx", L4_ErrorCode());
	EXPECT(L4_SpaceControl(t, 32, kip, utcb, L4_NILTHREAD, &old), "32 pages: %lx", L4_ErrorCode());
	EXPECT(old != 0 && old != 32, "old control (the default quota) %lx", old);
	EXPECT(L4_SpaceControl(t, ~0UL, 0, 0, L4_NILTHREAD, &old) && old == 32, "quota read back %lx", old);
	int made = 0;
	L4_Word_t err = 0;
	for (int i = 0; i < 20; i++) {          /* 3 pages each: the quota runs out before 20 */
		L4_ThreadId_t u = tt_id(slot + i, 1);
		if (!L4_ThreadControl(u, t, me, L4_NILTHREAD, ~0UL)) {
			err = L4_ErrorCode();
			break;
		}
		made++;
	}
	EXPECT(made > 0 && made < 20 && err == L4_ERR_NO_MEM, "made %d, then ErrorCode %lx", made, err);
	EXPECT(L4_SpaceControl(t, 64, 0, 0, L4_NILTHREAD, 0), "raise the quota: %lx", L4_ErrorCode());
	EXPECT(L4_ThreadControl(tt_id(slot + made, 1), t, me, L4_NILTHREAD, ~0UL),
	       "no thread after raising the quota: %lx", L4_ErrorCode());
	for (int i = 0; i <= made; i++)
		EXPECT(tt_kill(tt_id(slot + i, 1)), "delete %d", i);
	slot += made + 1;
	EXPECT(tt_kill(t), "delete");
	EXPECT(pool_free() == free0, "pool free %lx, was %lx", pool_free(), free0);
}

/*
 * The attack of issue 11: two threads of an unprivileged space map a 64 KiB
 * buffer onto themselves 15 times, doubling it each time (2 GiB of
 * mappings, more node memory than the whole pool of a 256 MiB machine).
 */
static L4_ThreadId_t att_a, att_b, att_pager;
static volatile L4_Word_t att_rounds;

static L4_Word_t att_window(L4_Word_t k) { return L4_FPAGE_MAKE(ATT_BASE + (1UL << (ATT_LOG2 + k)), ATT_LOG2 + k, 0); }

static void attack_b(void)
{
	L4_ThreadId_t from;
	L4_Word_t k = 0;
	L4_SetTcr(UTCB_BR(0), att_window(k));
	L4_Wait(&from);
	for (;;) {
		L4_SetTcr(UTCB_BR(0), att_window(++k));
		L4_SetMR(0, 0);
		L4_ReplyWait(from, &from);
	}
}

static void attack_a(void)
{
	for (L4_Word_t i = 0; i < sizeof(attbuf); i += PAGE)
		(void)*(volatile char *)(ATT_BASE + i);
	for (L4_Word_t k = 0; k < ATT_ROUNDS; k++) {
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, ATT_BASE | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE(ATT_BASE, ATT_LOG2 + k, 7));
		L4_Call(att_b);
		att_rounds = k + 1;
	}
	tt_park();
}

/* The attacker's pager: our buffer at ATT_BASE, anything else our own page at its address. */
static L4_Word_t att_source(L4_Word_t page, L4_ThreadId_t from)
{
	(void)from;
	return page - ATT_BASE < sizeof(attbuf) ? (L4_Word_t)attbuf + (page - ATT_BASE) : page;
}

static void att_pager_loop(void)
{
	tt_pager_serve(att_source);
}

static int start_attack(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	att_a = fresh();
	att_b = fresh();
	if (!tt_start_space_paged(att_a, attack_a, att_pager))
		return 0;
	return L4_ThreadControl(att_b, att_a, me, me, tt_utcb(att_b)) &&
	       tt_send_start(att_b, attack_b, tt_stack()) &&
	       L4_ThreadControl(att_b, att_a, L4_NILTHREAD, att_pager, ~0UL);
}

TEST_CASE("kmem.attack", "while a space maps a 64 KiB buffer onto itself 15 times, the root task still creates 400 threads")
{
	touch(attbuf, sizeof(attbuf));
	att_pager = fresh();
	EXPECT(tt_start_local(att_pager, att_pager_loop), "start the attacker's pager");
	L4_Word_t free0 = pool_free();
	EXPECT(start_attack(), "start the attacker: %lx", L4_ErrorCode());
	TT_WAIT(att_rounds == ATT_ROUNDS, 20000);
	EXPECT(att_rounds == ATT_ROUNDS, "the attacker finished %lu rounds", att_rounds);
	L4_ThreadId_t me = L4_MyGlobalId(), extra = fresh();
	EXPECT(!L4_ThreadControl(extra, att_a, me, L4_NILTHREAD, ~0UL) && L4_ErrorCode() == L4_ERR_NO_MEM,
	       "a third attacker thread: ErrorCode %lx", L4_ErrorCode());
	int made = 0;
	for (; made < CROWD; made++) {
		L4_ThreadId_t t = l4_global_id(CROWD_NO + made, 1);
		if (!L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL))
			break;
	}
	EXPECT(made == CROWD, "the root task created %d of %d threads: ErrorCode %lx, free %lx",
	       made, CROWD, L4_ErrorCode(), pool_free());
	for (int i = 0; i < made; i++)
		tt_kill(l4_global_id(CROWD_NO + i, 1));
	EXPECT(tt_kill(att_b) && tt_kill(att_a), "delete the attacker");
	EXPECT(pool_free() == free0, "pool free %lx after the attack, %lx before", pool_free(), free0);
	EXPECT(pecan_kdb_check_mappings() == 0, "mapping database inconsistent (see the console)");
}

/*
 * Preemption points: a space doubles a 64 KiB buffer into 256 MiB of
 * mappings; its last round maps 128 MiB in one item (long enough for
 * several 1 ms sleeps at about 220 instructions a page), then one Unmap of
 * the original 16 pages revokes the 64 Ki mappings derived from them.  A
 * higher-priority thread sleeping 1 ms at a time must keep waking up
 * during each of these two system calls, not only once after it.
 */
#define PRE_ROUNDS 12
static L4_ThreadId_t pre_a, pre_b;
static volatile L4_Word_t pre_phase, pre_wakes[4], pre_done, pre_deleted;

/* B receives the doublings; a message labelled 1 starts them over. */
static void pre_b_loop(void)
{
	L4_ThreadId_t from;
	L4_Word_t k = 0;
	L4_SetTcr(UTCB_BR(0), att_window(k));
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		k = L4_TAG_LABEL(tag) == 1 ? 0 : k + 1;
		L4_SetTcr(UTCB_BR(0), att_window(k));
		L4_SetMR(0, 0);
		tag = L4_ReplyWait(from, &from);
	}
}

static void pre_double(void)
{
	for (L4_Word_t k = 0; k < PRE_ROUNDS; k++) {
		pre_phase = k == PRE_ROUNDS - 1 && !pre_done ? 1 : 0;
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, ATT_BASE | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE(ATT_BASE, ATT_LOG2 + k, 7));
		L4_Call(pre_b);
	}
	pre_phase = 0;
}

static void pre_a_loop(void)
{
	for (L4_Word_t i = 0; i < sizeof(attbuf); i += PAGE)
		(void)*(volatile char *)(ATT_BASE + i);
	pre_double();
	pre_phase = 2;
	L4_SetMR(0, L4_FPAGE_MAKE(ATT_BASE, ATT_LOG2, 7));
	L4_Unmap(0);
	pre_phase = 0;
	L4_SetMR(0, L4_TAG_MAKE(1, 0, 0));
	L4_Call(pre_b);                         /* B starts over; the space fills up again */
	pre_done = 1;                           /* (so this round is not counted) */
	pre_double();
	pre_done = 2;
	tt_park();
}

/* Deletes the space (all its mappings again) at a priority below the watcher's. */
static void pre_delete(void)
{
	pre_phase = 3;
	tt_kill(pre_b);
	tt_kill(pre_a);
	pre_phase = 0;
	pre_deleted = 1;
	tt_park();
}

static void pre_watch(void)
{
	while (!pre_deleted) {
		L4_Sleep(1000);
		pre_wakes[pre_phase]++;
	}
	tt_park();
}

TEST_CASE("kmem.preempt", "a thread sleeping 1 ms keeps waking up during a 128 MiB map item, a 64 Ki-mapping revocation, a space deletion")
{
	L4_ThreadId_t me = L4_MyGlobalId(), watch = fresh();
	touch(attbuf, sizeof(attbuf));
	if (!att_pager) {
		att_pager = fresh();
		EXPECT(tt_start_local(att_pager, att_pager_loop), "start the pager");
	}
	pre_a = fresh();
	pre_b = fresh();
	EXPECT(L4_ThreadControl(pre_a, pre_a, me, L4_NILTHREAD, ~0UL) &&
	       L4_SpaceControl(pre_a, 2048, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			       L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0),
	       "space with an 8 MiB quota: %lx", L4_ErrorCode());
	EXPECT(L4_ThreadControl(pre_a, pre_a, me, me, tt_utcb(pre_a)) &&
	       tt_send_start(pre_a, pre_a_loop, tt_stack()) &&
	       L4_ThreadControl(pre_a, pre_a, L4_NILTHREAD, att_pager, ~0UL), "start A");
	EXPECT(L4_ThreadControl(pre_b, pre_a, me, me, tt_utcb(pre_b)) &&
	       tt_send_start(pre_b, pre_b_loop, tt_stack()) &&
	       L4_ThreadControl(pre_b, pre_a, L4_NILTHREAD, att_pager, ~0UL), "start B");
	EXPECT(tt_start_local(watch, pre_watch), "start the watcher");
	L4_Set_Priority(watch, 200);
	TT_WAIT(pre_done == 2, 20000);
	EXPECT(pre_done == 2, "the mapping space did not finish");
	EXPECT(pre_wakes[1] >= 3, "the watcher woke %lu times during the 128 MiB map", pre_wakes[1]);
	EXPECT(pre_wakes[2] >= 3, "the watcher woke %lu times during the revocation", pre_wakes[2]);
	/* map it all again, then have a thread below the watcher delete the space */
	L4_ThreadId_t deleter = fresh();
	EXPECT(tt_start_local(deleter, pre_delete), "start the deleter");
	L4_Set_Priority(deleter, 150);
	TT_WAIT(pre_deleted, 20000);
	EXPECT(pre_deleted, "the space was not deleted");
	EXPECT(pre_wakes[3] >= 3, "the watcher woke %lu times during the deletion", pre_wakes[3]);
	tt_kill(deleter);
	tt_kill(watch);
	EXPECT(pecan_kdb_check_mappings() == 0, "mapping database inconsistent (see the console)");
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
