// SPDX-License-Identifier: MIT
// Several processors (boot with -smp 4): migration by Schedule, IPC between processors, timeouts,
// aborts, deletion of threads blocked in a cross-processor IPC, TLB shootdown, bad Schedule calls.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/c/stdio.h"
#include <l4/errors.h>
#include <l4/syscalls.h>

#define PAGE 4096UL

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }

static L4_Word_t nprocs(void) { return (((const L4_Word_t *)__L4_KIP)[KIP_OFF_PROC_INFO / 8] & 0xffff) + 1; }

/* Schedule's processor control alone: its result word (0: refused, ErrorCode says why). */
static L4_Word_t to_cpu(L4_ThreadId_t t, L4_Word_t cpu)
{
	return L4_Schedule(t, ~0UL, cpu, ~0UL, ~0UL, 0);
}

static L4_Word_t my_cpu(void) { return L4_Tcr(UTCB_PROCESSOR_NO); }

/* Microseconds since boot, without blocking. */
static L4_Word_t now(void) { return L4_SystemClock(); }

/* ---------- migration ---------- */

static volatile L4_Word_t spins, spin_cpu;

static void spinner(void)
{
	for (;;) {
		spin_cpu = my_cpu();
		spins++;
	}
}

TEST_CASE("smpipc.migrate", "a thread below our priority runs on another processor while we spin")
{
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, spinner), "start");
	L4_Set_Priority(t, 10);
	for (L4_Word_t cpu = 1; cpu < nprocs(); cpu++) {
		EXPECT(to_cpu(t, cpu) != 0, "Schedule to %lu refused: ErrorCode %lu", cpu, L4_ErrorCode());
		L4_Word_t s0 = spins, end = now() + 3000000;
		while ((spins == s0 || spin_cpu != cpu) && now() < end)
			;       /* never blocks: on our processor the spinner could not run */
		EXPECT(spins != s0 && spin_cpu == cpu, "on cpu %lu: spins %lu -> %lu, ProcessorNo %lu", cpu, s0,
		       spins, spin_cpu);
	}
	EXPECT(tt_kill(t), "deleting a thread that runs on another processor");
	L4_Word_t s1 = spins;
	L4_Sleep(20000);
	EXPECT(spins == s1, "the deleted spinner went on: %lu -> %lu", s1, spins);
}

/* ---------- ping-pong ---------- */

/* Echo every untyped word + 1, label + 1, for ever. */
static void echo(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_Word_t u = L4_TAG_U(tag);
		for (L4_Word_t i = 1; i <= u; i++)
			L4_SetMR(i, L4_MR(i) + 1);
		L4_SetMR(0, L4_TAG_MAKE(L4_TAG_LABEL(tag) + 1, u, 0));
		tag = L4_ReplyWait(from, &from);
	}
}

/* n Calls to t with u words each; the number that came back wrong. */
static int calls(L4_ThreadId_t t, int n, L4_Word_t u)
{
	int bad = 0;
	for (int k = 0; k < n; k++) {
		for (L4_Word_t i = 1; i <= u; i++)
			L4_SetMR(i, i * 1000 + (L4_Word_t)k);
		L4_SetMR(0, L4_TAG_MAKE(0x40, u, 0));
		L4_MsgTag_t tag = L4_Call(t);
		int ok = !L4_IpcFailed(tag) && L4_TAG_U(tag) == u && L4_TAG_LABEL(tag) == 0x41;
		for (L4_Word_t i = 1; ok && i <= u; i++)
			ok = L4_MR(i) == i * 1000 + (L4_Word_t)k + 1;
		bad += !ok;
	}
	return bad;
}

static L4_ThreadId_t client_server;
static volatile int client_rounds, client_bad, client_done;
static volatile L4_Word_t client_cpu;

static void client(void)
{
	client_cpu = my_cpu();
	client_bad = calls(client_server, client_rounds, 5);
	client_done = 1;
	tt_park();
}

TEST_CASE("smpipc.pingpong_words", "Calls with 0..63 untyped words to another processor, and between two others")
{
	L4_ThreadId_t srv = fresh(), srv2 = fresh(), cl = fresh();
	EXPECT(tt_start_local(srv, echo) && to_cpu(srv, 1), "server on cpu 1");
	for (L4_Word_t u = 0; u < 64; u++)
		EXPECT(calls(srv, 3, u) == 0, "u = %lu came back wrong", u);
	EXPECT(tt_start_space(srv2, echo) && to_cpu(srv2, 3 % nprocs()), "server in its own space on cpu 3");
	client_server = srv2;
	client_rounds = 500;
	client_done = 0;
	EXPECT(tt_start_local(cl, client) && to_cpu(cl, 2 % nprocs()), "client on cpu 2");
	TT_WAIT(client_done, 20000);
	EXPECT(client_done && client_bad == 0, "client done %d, %d of 500 wrong", client_done, client_bad);
	tt_kill(cl);
	tt_kill(srv);
	tt_kill(srv2);
}

/* ---------- string and map items ---------- */

static unsigned char src_buf[512], dst_buf[512];
static volatile L4_Word_t rx_tag, rx_err, rx_cpu;
static volatile int rx_done;

static void string_receiver(void)
{
	for (;;) {
		L4_SetTcr(UTCB_BR(0), L4_ACCEPT_STRINGS);
		L4_SetTcr(UTCB_BR(1), L4_STRING_MAKE(sizeof dst_buf, 1, 0, 0));
		L4_SetTcr(UTCB_BR(2), (L4_Word_t)dst_buf);
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Wait(&from);
		rx_tag = tag;
		rx_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
		rx_cpu = my_cpu();
		rx_done = 1;
	}
}

TEST_CASE("smpipc.string", "a 512-byte string item to a thread of another space on another processor")
{
	L4_ThreadId_t rx = fresh();
	for (unsigned i = 0; i < sizeof src_buf; i++)
		src_buf[i] = (unsigned char)(i * 7 + 3), dst_buf[i] = 0;
	EXPECT(tt_start_space(rx, string_receiver) && to_cpu(rx, 2 % nprocs()), "receiver on cpu 2");
	L4_Sleep(2000);             /* it installs its buffers and waits (a first message would overflow otherwise) */
	rx_done = 0;
	L4_SetMR(0, L4_TAG_MAKE(0x55, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(sizeof src_buf, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)src_buf);
	L4_MsgTag_t tag = L4_Send(rx);
	EXPECT(!L4_IpcFailed(tag), "send: ErrorCode %lx", L4_ErrorCode());
	TT_WAIT(rx_done, 2000);
	EXPECT(rx_done && !rx_err && L4_TAG_T(rx_tag) == 2, "received %d, tag %lx, error %lx", rx_done, rx_tag, rx_err);
	EXPECT(rx_cpu == 2 % nprocs(), "the receiver ran on cpu %lu", rx_cpu);
	int same = 1;
	for (unsigned i = 0; i < sizeof src_buf; i++)
		same &= dst_buf[i] == src_buf[i];
	EXPECT(same, "the string arrived different");   /* the receiver's space maps our pages (tt pager) */
	tt_kill(rx);
}

static unsigned char map_src[PAGE] __attribute__((aligned(4096)));
#define MAP_DST 0x200000000000UL

/* Answer any Call with a map item of our page map_src. */
static void mapper(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		(void)tag;
		(void)*(volatile unsigned char *)map_src;   /* our space gets the page (tt pager) to pass on */
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, 0 | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE((L4_Word_t)map_src, 12, 7));
		tag = L4_ReplyWait(from, &from);
	}
}

TEST_CASE("smpipc.map", "a map item from a thread of another space on another processor")
{
	L4_ThreadId_t m = fresh();
	for (unsigned i = 0; i < PAGE; i += 8)
		*(volatile L4_Word_t *)(map_src + i) = 0x5a5a0000 + i;
	EXPECT(tt_start_space(m, mapper) && to_cpu(m, 3 % nprocs()), "mapper on cpu 3");
	L4_SetTcr(UTCB_BR(0), L4_FPAGE_MAKE(MAP_DST, 12, 0));
	L4_SetMR(0, 0);
	L4_MsgTag_t tag = L4_Call(m);
	L4_SetTcr(UTCB_BR(0), 0);
	int mapped = !L4_IpcFailed(tag) && L4_TAG_T(tag) == 2;
	EXPECT(mapped, "tag %lx ErrorCode %lx", tag, L4_ErrorCode());
	int same = mapped;
	for (unsigned i = 0; mapped && i < PAGE; i += 8)
		same &= *(volatile L4_Word_t *)(MAP_DST + i) == 0x5a5a0000 + i;
	EXPECT(same, "the mapped page differs");
	tt_kill(m);
	L4_SetMR(0, L4_FPAGE_MAKE(MAP_DST, 12, 7));
	L4_Unmap(0x40);                 /* flush it from our space too */
}

/* ---------- timeouts and aborts ---------- */

static volatile L4_Word_t waiter_err;
static volatile int waiter_done;
static L4_ThreadId_t main_id;

static void timed_waiter(void)
{
	L4_MsgTag_t tag = L4_Receive_Timeout(main_id, L4_TimePeriod(5000), 0);
	waiter_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	waiter_done = 1;
	tt_park();
}

static void forever_waiter(void)
{
	L4_MsgTag_t tag = L4_Receive(main_id);
	waiter_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	waiter_done = 1;
	tt_park();
}

TEST_CASE("smpipc.timeouts", "receive and send timeouts end IPCs with threads on other processors")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t w = fresh(), busy = fresh();
	waiter_done = 0;
	EXPECT(tt_start_local(w, timed_waiter) && to_cpu(w, 2 % nprocs()), "waiter on cpu 2");
	TT_WAIT(waiter_done, 2000);
	EXPECT(waiter_done && waiter_err == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV), "receive: done %d error %lx",
	       waiter_done, waiter_err);
	EXPECT(tt_start_local(busy, spinner) && to_cpu(busy, 1), "spinner on cpu 1");
	L4_SetMR(0, 0);
	L4_MsgTag_t tag = L4_Send_Timeout(busy, L4_TimePeriod(5000));
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_TIMEOUT, "send to a spinner: ErrorCode %lx",
	       L4_ErrorCode());
	tt_kill(w);
	tt_kill(busy);
}

TEST_CASE("smpipc.abort", "ExchangeRegisters aborts a receive on another processor")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t w = fresh();
	waiter_done = 0;
	EXPECT(tt_start_local(w, forever_waiter) && to_cpu(w, 3 % nprocs()), "waiter on cpu 3");
	L4_Sleep(5000);
	EXPECT(!waiter_done, "the waiter did not wait");
	struct L4_ExRegs x = { .control = L4_EXREG_ABORT_RECV | L4_EXREG_ABORT_SEND };
	pecan_exregs(w, &x);
	TT_WAIT(waiter_done, 2000);
	EXPECT(waiter_done && L4_IPC_CODE(waiter_err) == L4_IPC_CANCELED, "done %d error %lx", waiter_done,
	       waiter_err);
	tt_kill(w);
}

/* ---------- migration under IPC load ---------- */

TEST_CASE("smpipc.migrate_under_load", "a server moves between all processors while a client Calls it")
{
	L4_ThreadId_t srv = fresh(), cl = fresh();
	EXPECT(tt_start_local(srv, echo) && to_cpu(srv, 1), "server");
	client_server = srv;
	client_rounds = 3000;
	client_done = 0;
	EXPECT(tt_start_local(cl, client) && to_cpu(cl, 2 % nprocs()), "client");
	int moves = 0;
	for (L4_Word_t end = now() + 60000000; !client_done && now() < end; moves++) {
		EXPECT(to_cpu(srv, (L4_Word_t)moves % nprocs()) != 0, "move %d refused", moves);
		if (moves % 3 == 0)
			to_cpu(cl, (L4_Word_t)(moves / 3 + 2) % nprocs());
		L4_Sleep(1000);
	}
	EXPECT(client_done && client_bad == 0, "client done %d, %d of 3000 wrong after %d moves", client_done,
	       client_bad, moves);
	EXPECT(moves > 2, "only %d moves", moves);
	tt_kill(cl);
	tt_kill(srv);
}

/* ---------- unmap while the space runs elsewhere ---------- */

static unsigned char shared_page[PAGE] __attribute__((aligned(4096)));
static volatile int page_gone;                 /* the pager answers no fault at shared_page */
static volatile L4_Word_t reads[4], faults_seen;

static L4_Word_t race_source(L4_Word_t page, L4_ThreadId_t from)
{
	(void)from;
	if (page == (L4_Word_t)shared_page && page_gone) {
		faults_seen++;
		return 0;                               /* the reader stays blocked in its fault */
	}
	return page;
}

static void race_pager(void) { tt_pager_serve(race_source); }

static void reader(void)
{
	L4_Word_t i = my_cpu();
	for (;;) {
		(void)*(volatile L4_Word_t *)shared_page;
		reads[i]++;
	}
}

TEST_CASE("smpipc.unmap_shootdown", "after Unmap returns, readers of the page on three other processors fault")
{
	L4_ThreadId_t pg = fresh(), r[4];
	EXPECT(tt_start_local(pg, race_pager), "pager");
	L4_Set_Priority(pg, 200);
	page_gone = 0;
	shared_page[0] = 1;
	/* three threads of one new space, each on its own processor (the first creates the space) */
	for (int i = 1; i < 4; i++) {
		r[i] = fresh();
		int ok = i == 1 ? tt_start_space_paged(r[i], reader, pg)
				: L4_ThreadControl(r[i], r[1], L4_MyGlobalId(), L4_MyGlobalId(), tt_utcb(r[i])) &&
					  tt_send_start(r[i], reader, tt_stack()) &&
					  L4_ThreadControl(r[i], r[1], L4_NILTHREAD, pg, ~0UL);
		EXPECT(ok, "reader %d", i);
		L4_Set_Priority(r[i], 10);
		EXPECT(to_cpu(r[i], (L4_Word_t)i % nprocs()), "reader %d to its processor", i);
	}
	L4_Word_t end = now() + 5000000;
	while ((!reads[1] || !reads[2] || !reads[3]) && now() < end)
		L4_Sleep(1000);
	EXPECT(reads[1] && reads[2] && reads[3], "readers ran %lu %lu %lu", reads[1], reads[2], reads[3]);
	page_gone = 1;
	L4_SetMR(0, L4_FPAGE_MAKE((L4_Word_t)shared_page, 12, 7));
	L4_Unmap(0);                                /* from the readers' space, not ours */
	L4_Word_t after[4] = { 0, reads[1], reads[2], reads[3] };
	L4_Sleep(20000);
	for (int i = 1; i < 4; i++)
		EXPECT(reads[i] <= after[i] + 1, "reader on cpu %d read %lu times after the unmap", i,
		       reads[i] - after[i]);
	TT_WAIT(faults_seen >= 3, 2000);
	EXPECT(faults_seen >= 3, "%lu of 3 readers faulted", faults_seen);
	for (int i = 3; i >= 1; i--)
		EXPECT(tt_kill(r[i]), "delete reader %d", i);
	tt_kill(pg);
}

/* The same for a range: eight pages, one Unmap of their 32 KiB block, one shootdown for all. */
#define BLOCK_PAGES 8
static unsigned char shared_block[BLOCK_PAGES * PAGE] __attribute__((aligned(BLOCK_PAGES * 4096)));
static volatile int block_gone;
static volatile L4_Word_t block_reads[4], block_faults;

static L4_Word_t block_source(L4_Word_t page, L4_ThreadId_t from)
{
	(void)from;
	if (page - (L4_Word_t)shared_block < sizeof(shared_block) && block_gone) {
		block_faults++;
		return 0;                               /* the reader stays blocked in its fault */
	}
	return page;
}

static void block_pager(void) { tt_pager_serve(block_source); }

/* Reads the block's pages in turn, each processor starting at another one. */
static void block_reader(void)
{
	L4_Word_t i = my_cpu();
	for (L4_Word_t k = i;; k++) {
		(void)*(volatile L4_Word_t *)&shared_block[k % BLOCK_PAGES * PAGE];
		block_reads[i]++;
	}
}

TEST_CASE("smpipc.unmap_range_shootdown", "after an Unmap of an 8-page block returns, readers of its pages on three other processors fault")
{
	L4_ThreadId_t pg = fresh(), r[4];
	EXPECT(tt_start_local(pg, block_pager), "pager");
	L4_Set_Priority(pg, 200);
	block_gone = 0;
	for (int k = 0; k < BLOCK_PAGES; k++)
		shared_block[k * PAGE] = 1;
	for (int i = 1; i < 4; i++) {
		r[i] = fresh();
		int ok = i == 1 ? tt_start_space_paged(r[i], block_reader, pg)
				: L4_ThreadControl(r[i], r[1], L4_MyGlobalId(), L4_MyGlobalId(), tt_utcb(r[i])) &&
					  tt_send_start(r[i], block_reader, tt_stack()) &&
					  L4_ThreadControl(r[i], r[1], L4_NILTHREAD, pg, ~0UL);
		EXPECT(ok, "reader %d", i);
		L4_Set_Priority(r[i], 10);
		EXPECT(to_cpu(r[i], (L4_Word_t)i % nprocs()), "reader %d to its processor", i);
	}
	L4_Word_t end = now() + 5000000;
	while ((block_reads[1] < 2 * BLOCK_PAGES || block_reads[2] < 2 * BLOCK_PAGES ||
		block_reads[3] < 2 * BLOCK_PAGES) && now() < end)
		L4_Sleep(1000);
	EXPECT(block_reads[1] >= 2 * BLOCK_PAGES && block_reads[2] >= 2 * BLOCK_PAGES &&
	       block_reads[3] >= 2 * BLOCK_PAGES, "readers ran %lu %lu %lu", block_reads[1],
	       block_reads[2], block_reads[3]);
	block_gone = 1;
	L4_SetMR(0, L4_FPAGE_MAKE((L4_Word_t)shared_block, 15, 7));
	L4_Unmap(0);                                /* from the readers' space, not ours */
	L4_Word_t after[4] = { 0, block_reads[1], block_reads[2], block_reads[3] };
	L4_Sleep(20000);
	for (int i = 1; i < 4; i++)
		EXPECT(block_reads[i] <= after[i] + 1, "reader on cpu %d read %lu times after the unmap", i,
		       block_reads[i] - after[i]);
	TT_WAIT(block_faults >= 3, 2000);
	EXPECT(block_faults >= 3, "%lu of 3 readers faulted", block_faults);
	for (int i = 3; i >= 1; i--)
		EXPECT(tt_kill(r[i]), "delete reader %d", i);
	tt_kill(pg);
}

/* ---------- deletion ---------- */

static volatile int srv_got, srv_reply_err_set;
static volatile L4_Word_t srv_reply_err, srv_wait_err;
static volatile int srv_go;

/* Take one Call, wait for srv_go, reply to the (deleted) caller, then try to receive once more. */
static void slow_server(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	srv_got = !L4_IpcFailed(tag);
	while (srv_go != 1)
		;
	L4_SetMR(0, 0);
	tag = L4_Send_Timeout(from, L4_TIMEOUT_ZERO);
	srv_reply_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	srv_reply_err_set = 1;
	while (srv_go != 2)
		;
	tag = L4_Receive_Timeout(L4_ANYTHREAD, L4_TimePeriod(2000), &from);
	srv_wait_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	srv_go = 3;
	tt_park();
}

static L4_ThreadId_t victim_target;
static void caller(void)
{
	L4_SetMR(0, 0);
	L4_Call(victim_target);
	tt_park();
}

TEST_CASE("smpipc.delete_blocked", "deleting threads blocked in IPCs with a thread on another processor")
{
	L4_ThreadId_t s = fresh(), v1 = fresh(), v2 = fresh();
	srv_got = srv_go = srv_reply_err_set = 0;
	EXPECT(tt_start_space(s, slow_server) && to_cpu(s, 3 % nprocs()), "server on cpu 3");
	victim_target = s;
	EXPECT(tt_start_local(v1, caller) && to_cpu(v1, 2 % nprocs()), "caller on cpu 2");
	TT_WAIT(srv_got, 2000);
	EXPECT(srv_got, "the server got no Call");
	EXPECT(tt_start_local(v2, caller) && to_cpu(v2, 1), "second caller on cpu 1");
	L4_Sleep(5000);                             /* v2 waits in the busy server's send queue */
	EXPECT(tt_kill(v1), "delete v1 (waiting for the reply)");
	EXPECT(tt_kill(v2), "delete v2 (waiting to send)");
	srv_go = 1;
	TT_WAIT(srv_reply_err_set, 2000);
	EXPECT(srv_reply_err_set && L4_IPC_CODE(srv_reply_err) == L4_IPC_NOPARTNER,
	       "reply to the deleted caller: %lx", srv_reply_err);
	srv_go = 2;
	TT_WAIT(srv_go == 3, 2000);
	EXPECT(srv_go == 3 && srv_wait_err == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV),
	       "a receive after the deleted sender: %lx", srv_wait_err);
	tt_kill(s);
	L4_Word_t pool = 0;
	EXPECT(pecan_kdb_check_kernel(&pool) == 0, "kernel invariants");
}

/* ---------- the fastpath on every processor ---------- */

#define FP_PAIRS 3
static L4_ThreadId_t fp_main, fp_srv[FP_PAIRS], fp_cl[FP_PAIRS];
static volatile int fp_bad[FP_PAIRS], fp_done[FP_PAIRS];
static volatile L4_Word_t fp_cpu[FP_PAIRS];

/* Client i: on main's word, 40 Calls with each of 0..7 words to fp_srv[i]. */
static void fp_client(void)
{
	int i = 0;
	while (i < FP_PAIRS - 1 && fp_cl[i] != L4_MyGlobalId())
		i++;
	L4_Receive(fp_main);
	fp_cpu[i] = my_cpu();
	int bad = 0;
	for (L4_Word_t u = 0; u < 8; u++)
		bad += calls(fp_srv[i], 40, u);
	fp_bad[i] = bad;
	fp_done[i] = 1;
	tt_park();
}

static L4_Word_t variant(void) { return *(volatile L4_Word_t *)PECAN_VARIANT_ADDR; }

TEST_CASE("smpipc.fastpath_every_cpu",
	  "pairs on cpu 1 and on cpu 2 Call each other while a pair Calls across cpus 3 and 0: all answers right, the same-cpu ones by the fastpath")
{
	static const L4_Word_t at[FP_PAIRS][2] = { { 1, 1 }, { 2, 2 }, { 3, 0 } };   /* client, server */
	fp_main = L4_MyGlobalId();
	for (int i = 0; i < FP_PAIRS; i++) {
		fp_srv[i] = fresh();
		fp_cl[i] = fresh();
		fp_done[i] = 0;
		EXPECT(tt_start_local(fp_srv[i], echo) && to_cpu(fp_srv[i], at[i][1] % nprocs()), "server %d", i);
		EXPECT(tt_start_local(fp_cl[i], fp_client) && to_cpu(fp_cl[i], at[i][0] % nprocs()), "client %d", i);
	}
	L4_Sleep(5000);                             /* every client waits for our word on its processor */
	L4_Word_t before = pecan_counter(PECAN_CTR_fastpath_ipcs);
	for (int i = 0; i < FP_PAIRS; i++) {
		L4_SetMR(0, 0);
		EXPECT(!L4_IpcFailed(L4_Send(fp_cl[i])), "go to client %d", i);
	}
	TT_WAIT(fp_done[0] && fp_done[1] && fp_done[2], 30000);
	L4_Word_t fast = pecan_counter(PECAN_CTR_fastpath_ipcs) - before;
	for (int i = 0; i < FP_PAIRS; i++)
		EXPECT(fp_done[i] && fp_bad[i] == 0 && fp_cpu[i] == at[i][0] % nprocs(),
		       "pair %d: done %d, %d of 320 wrong, client on cpu %lu", i, fp_done[i], fp_bad[i], fp_cpu[i]);
	/* the two same-cpu pairs make 1,280 IPCs; processors other than 0 once took none fast */
	L4_Word_t v = variant(), build = *(volatile L4_Word_t *)PECAN_BUILD_ADDR;
	if ((build & 3) == 3 && v != PECAN_VARIANT_FSLQ && v != PECAN_VARIANT_FSEQ)
		EXPECT(fast >= 1000, "only %lu fastpath IPCs", fast);
	for (int i = 0; i < FP_PAIRS; i++) {
		tt_kill(fp_cl[i]);
		tt_kill(fp_srv[i]);
	}
	L4_Word_t pool = 0;
	EXPECT(pecan_kdb_check_kernel(&pool) == 0, "kernel invariants");
}

/* ---------- two threads delete each other ---------- */

static L4_ThreadId_t md_ids[2];
static volatile int md_go, md_done[2], md_ready[2];
/*
 * Two thread numbers and stacks of their own for all rounds (a new version
 * each round): tt_stack's ring of 48 would come round to stacks still in
 * use, the test pager's among them.
 */
static char md_stacks[2][TT_STACK_SIZE] __attribute__((aligned(16)));
static int md_slot = -1;


/* On md_go, delete the other one; done: 1 if that worked, 2 if it did not. */
static void mutual_deleter(void)
{
	int me = md_ids[1] == L4_MyGlobalId();
	md_ready[me] = 1;
	while (!md_go)
		;
	md_done[me] = tt_kill(md_ids[1 - me]) ? 1 : 2;
	tt_park();
}

static int md_start(int k, L4_Word_t version)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	md_ids[k] = tt_id(md_slot + k, (int)version);
	return L4_ThreadControl(md_ids[k], me, me, me, tt_utcb(md_ids[k])) &&
	       tt_send_start(md_ids[k], mutual_deleter, (L4_Word_t)md_stacks[k] + TT_STACK_SIZE - 8) &&
	       to_cpu(md_ids[k], (L4_Word_t)(1 + k) % nprocs());
}

TEST_CASE("smpipc.mutual_delete",
	  "two threads on cpus 1 and 2 delete each other at once, 20 times: each time exactly one wins and returns")
{
	if (md_slot < 0) {
		md_slot = slot;
		slot += 2;
	}
	for (int round = 0; round < 20; round++) {
		md_go = md_done[0] = md_done[1] = md_ready[0] = md_ready[1] = 0;
		for (int k = 0; k < 2; k++)
			EXPECT(md_start(k, (L4_Word_t)round + 1), "deleter %d", k);
		TT_WAIT(md_ready[0] && md_ready[1], 2000);
		md_go = 1;
		TT_WAIT(md_done[0] || md_done[1], 3000);
		L4_Sleep(2000);                     /* time for the loser to return too, if it wrongly could */
		EXPECT((md_done[0] == 1) + (md_done[1] == 1) == 1 && md_done[0] + md_done[1] == 1,
		       "round %d: done %d and %d", round, md_done[0], md_done[1]);
		tt_kill(md_ids[0]);
		tt_kill(md_ids[1]);
		if (md_done[0] + md_done[1] != 1)
			break;
	}
	L4_Word_t pool = 0;
	EXPECT(pecan_kdb_check_kernel(&pool) == 0, "kernel invariants");
}

/* ---------- I/O ports on every processor ---------- */

#define COM2_SCR 0x2ff          /* the second UART's scratch register: reads back what was written */
static L4_ThreadId_t io_srv;
static volatile int io_done, io_bad, io_echo_bad;
static volatile L4_Word_t io_cpu;

static void port_out(unsigned char v) { __asm__ __volatile__("outb %b0, %w1" : : "a"(v), "d"(COM2_SCR)); }
static unsigned char port_in(void)
{
	unsigned char v;
	__asm__ __volatile__("inb %w1, %b0" : "=a"(v) : "d"(COM2_SCR));
	return v;
}

/* 50 writes and reads of the scratch register, each after a Call to a space without ports. */
static void port_user(void)
{
	io_cpu = my_cpu();
	int bad = 0, echo_bad = 0;
	for (int k = 0; k < 50; k++) {
		echo_bad += calls(io_srv, 1, 1);        /* the processor switches to it and back */
		unsigned char v = (unsigned char)(io_cpu * 50 + (L4_Word_t)k);
		port_out(v);
		bad += port_in() != v;
	}
	io_bad = bad;
	io_echo_bad = echo_bad;
	io_done = 1;
	tt_park();
}

TEST_CASE("smpipc.io_ports", "a thread of a space with I/O ports uses them on cpus 1, 2 and 3, switching to a space without ports between accesses")
{
	port_out(0x5a);
	EXPECT(port_in() == 0x5a, "the scratch register on cpu 0");
	for (L4_Word_t cpu = 1; cpu < nprocs(); cpu++) {
		L4_ThreadId_t srv = fresh(), t = fresh();
		io_srv = srv;
		io_done = 0;
		io_cpu = ~0UL;
		EXPECT(tt_start_space(srv, echo) && to_cpu(srv, cpu), "echo server on cpu %lu", cpu);
		EXPECT(tt_start_local(t, port_user) && to_cpu(t, cpu), "port user on cpu %lu", cpu);
		TT_WAIT(io_done, 5000);
		EXPECT(io_done && io_bad == 0 && io_echo_bad == 0 && io_cpu == cpu,
		       "on cpu %lu: done %d, %d of 50 reads wrong, %d echoes wrong, ran on %lu", cpu, io_done, io_bad,
		       io_echo_bad, io_cpu);
		tt_kill(t);
		tt_kill(srv);
	}
	port_out(0xa5);
	EXPECT(port_in() == 0xa5, "the scratch register on cpu 0 afterwards");
}

/* ---------- bad input ---------- */

static volatile L4_Word_t foreign_res = 7, foreign_err;
static L4_ThreadId_t foreign_target;

static void foreign_scheduler(void)
{
	foreign_res = to_cpu(foreign_target, 1);
	foreign_err = L4_ErrorCode();
	tt_park();
}

TEST_CASE("smpipc.bad_schedule", "Schedule to a processor that does not exist, and by a thread not the scheduler")
{
	L4_ThreadId_t t = fresh(), f = fresh();
	EXPECT(tt_start_local(t, tt_park), "target");
	EXPECT(to_cpu(t, nprocs()) == 0 && L4_ErrorCode() == L4_ERR_INVALID_PARAM,
	       "processor %lu: ErrorCode %lu", nprocs(), L4_ErrorCode());
	EXPECT(to_cpu(t, 0xffff) == 0 && L4_ErrorCode() == L4_ERR_INVALID_PARAM, "processor 0xffff accepted");
	foreign_target = t;
	EXPECT(tt_start_space(f, foreign_scheduler), "a thread of another space");
	TT_WAIT(foreign_res != 7, 2000);
	EXPECT(foreign_res == 0 && foreign_err == L4_ERR_NO_PRIVILEGE, "its Schedule: %lu, ErrorCode %lu",
	       foreign_res, foreign_err);
	tt_kill(f);
	tt_kill(t);
}

int main(void)
{
	printf("t_smpipc: %lu processors\n", nprocs());
	if (nprocs() < 4)
		printf("t_smpipc: expects 4 processors\n");
	test_run_all();
	L4_Word_t pool = 0;
	printf("t_smpipc: kernel check %lx\n", pecan_kdb_check_kernel(&pool));
	pecan_kdb_power_off(0);
	return 0;
}
