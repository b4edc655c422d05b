// SPDX-License-Identifier: MIT
// IPC from the root task: rendezvous, message transfer, timeouts, cancellation, errors.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/c/string.h"

static volatile L4_ThreadId_t main_id;
static volatile L4_Word_t seen[64];
static volatile L4_Word_t seen_tag, seen_from, seen_err;
static int slot;

static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
/* What Schedule says t is doing (we are every test thread's scheduler). */
static L4_Word_t state(L4_ThreadId_t t) { return L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0); }

/* Echo server: receives from anyone, replies with label+1 and every word +1, forever. */
static void echo(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_Word_t u = L4_TAG_U(tag);
		for (L4_Word_t i = 1; i <= u; i++)
			L4_SetMR(i, L4_MR(i) + 1);
		L4_SetMR(0, L4_TAG_MAKE(L4_TAG_LABEL(tag) + 1, u, 0));
		seen_from = from;
		tag = L4_ReplyWait(from, &from);
	}
}

/* Check one Call of u words with label `label` against the echo server. */
static int call_echo(L4_ThreadId_t srv, L4_Word_t u, L4_Word_t label)
{
	for (L4_Word_t i = 1; i <= u; i++)
		L4_SetMR(i, i * 1000 + u);
	L4_SetMR(0, L4_TAG_MAKE(label, u, 0));
	L4_MsgTag_t tag = L4_Call(srv);
	if (L4_IpcFailed(tag) || L4_TAG_U(tag) != u || L4_TAG_LABEL(tag) != label + 1)
		return 0;
	for (L4_Word_t i = 1; i <= u; i++)
		if (L4_MR(i) != i * 1000 + u + 1)
			return 0;
	return 1;
}

static void echo_all_lengths(L4_ThreadId_t srv)
{
	for (L4_Word_t u = 0; u < 64; u++)
		EXPECT(call_echo(srv, u, 0x100 + u), "Call with %lu words failed (ErrorCode %lx)",
		       u, L4_ErrorCode());
}

TEST_CASE("ipc.call_intra", "Call/ReplyWait of 0..63 words and labels within one space")
{
	L4_ThreadId_t srv = fresh();
	EXPECT(tt_start_local(srv, echo), "start failed: %lx", L4_ErrorCode());
	echo_all_lengths(srv);
	EXPECT(tt_kill(srv), "kill failed");
}

TEST_CASE("ipc.call_inter", "Call/ReplyWait of 0..63 words and labels between spaces")
{
	L4_ThreadId_t srv = fresh();
	EXPECT(tt_start_space(srv, echo), "start failed: %lx", L4_ErrorCode());
	echo_all_lengths(srv);
	EXPECT(tt_kill(srv), "kill failed");
}

TEST_CASE("ipc.from_global_local", "From is the local ID within a space, the global ID across spaces")
{
	L4_ThreadId_t a = fresh(), b = fresh();
	EXPECT(tt_start_local(a, echo) && tt_start_space(b, echo), "start failed");
	L4_ThreadId_t from;
	L4_SetMR(0, 0);
	L4_Ipc(a, a, 0, &from);
	EXPECT(from == tt_utcb(a) + UTCB_P_OFFSET, "intra: From %lx", from);
	EXPECT(seen_from == (L4_Word_t)L4_Utcb(), "server saw %lx, not our local ID", seen_from);
	L4_SetMR(0, 0);
	L4_Ipc(b, b, 0, &from);
	EXPECT(from == b, "inter: From %lx", from);
	EXPECT(seen_from == L4_MyGlobalId(), "server saw %lx, not our global ID", seen_from);
	tt_kill(a);
	tt_kill(b);
}

TEST_CASE("ipc.local_dest", "a local thread ID works as destination")
{
	L4_ThreadId_t a = fresh();
	EXPECT(tt_start_local(a, echo), "start failed");
	L4_Word_t local = tt_utcb(a) + UTCB_P_OFFSET;
	L4_SetMR(0, L4_TAG_MAKE(7, 0, 0));
	L4_MsgTag_t tag = L4_Call(local);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 8, "tag %lx err %lx", tag, L4_ErrorCode());
	tt_kill(a);
}

TEST_CASE("ipc.local_dest_deleted", "a local ID names no one once its thread is deleted, right after calls to it")
{
	L4_ThreadId_t a = fresh();
	EXPECT(tt_start_local(a, echo), "start failed");
	L4_Word_t local = tt_utcb(a) + UTCB_P_OFFSET;
	for (int i = 0; i < 3; i++) {
		L4_SetMR(0, L4_TAG_MAKE(7, 0, 0));
		L4_MsgTag_t tag = L4_Call(local);
		EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 8, "tag %lx err %lx", tag, L4_ErrorCode());
	}
	tt_kill(a);
	L4_SetMR(0, L4_TAG_MAKE(7, 0, 0));
	L4_MsgTag_t tag = L4_Call(local);
	EXPECT(L4_IpcFailed(tag) && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_NOPARTNER,
	       "call to a deleted thread's local ID: tag %lx err %lx", tag, L4_ErrorCode());
}

/*
 * Replies with label + 1 and MR1 + 1; label bit 1 asks for the reply by the
 * slowpath (an open receive from anylocalthread after a send to a global
 * ID, which the fastpath leaves alone), else by the fastpath (to From, then
 * an open receive).
 */
static void mixed_server(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_Word_t label = L4_TAG_LABEL(tag), slow = label & 2;
		L4_SetMR(1, L4_MR(1) + 1);
		L4_SetMR(0, L4_TAG_MAKE(label + 1, 1, 0));
		tag = L4_Ipc(slow ? main_id : from, slow ? L4_ANYLOCALTHREAD : L4_ANYTHREAD, 0, &from);
	}
}

TEST_CASE("ipc.slow_fast_mixed", "Calls and replies alternate between the slowpath and the fastpath: each caller resumes with its own reply, also when the fastpath took it out of a slowpath wait and the slowpath wakes it from a fastpath wait")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t srv = fresh();
	EXPECT(tt_start_local(srv, mixed_server), "start failed: %lx", L4_ErrorCode());
	for (L4_Word_t i = 0; i < 64; i++) {
		/* label bit 0: our Call by the slowpath (a receive from anylocalthread), bit 1: the reply's */
		L4_ThreadId_t from = 0;
		L4_SetMR(1, 1000 + i);
		L4_SetMR(0, L4_TAG_MAKE(i, 1, 0));
		L4_MsgTag_t tag = L4_Ipc(srv, (i & 1) ? L4_ANYLOCALTHREAD : srv, 0, &from);
		EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == i + 1 && L4_MR(1) == 1001 + i,
		       "round %lu: tag %lx MR1 %lu err %lx", i, tag, L4_MR(1), L4_ErrorCode());
		EXPECT(from == tt_utcb(srv) + UTCB_P_OFFSET, "round %lu: From %lx", i, from);
	}
	EXPECT(tt_kill(srv), "kill failed");
}

static void receiver_once(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(main_id, L4_TIMEOUT_NEVER, &from);
	seen_tag = tag;
	seen_from = from;
	for (int i = 0; i < 64; i++)
		seen[i] = L4_MR(i);
	tt_park();
}

TEST_CASE("ipc.send_receive", "Send to a thread in a closed receive from us")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t r = fresh();
	EXPECT(tt_start_local(r, receiver_once), "start failed");
	L4_SetMR(0, L4_TAG_MAKE(0x55, 3, 0));
	L4_SetMR(1, 11); L4_SetMR(2, 22); L4_SetMR(3, 33);
	L4_MsgTag_t tag = L4_Send(r);
	EXPECT(!L4_IpcFailed(tag), "send failed %lx", L4_ErrorCode());
	TT_WAIT(seen_tag != 0, 200);     /* the receiver runs at a lower priority */
	EXPECT(L4_TAG_LABEL(seen_tag) == 0x55 && L4_TAG_U(seen_tag) == 3, "tag %lx", seen_tag);
	EXPECT(seen[1] == 11 && seen[2] == 22 && seen[3] == 33, "words %lx %lx %lx", seen[1], seen[2], seen[3]);
	tt_kill(r);
}

TEST_CASE("ipc.send_timeout_zero", "Send with a zero timeout to a thread not receiving fails at once")
{
	L4_ThreadId_t r = fresh();
	EXPECT(tt_start_local(r, tt_park), "start failed");
	TT_WAIT(state(r) == L4_SCHED_WAITING, 200);    /* now parked: waiting for itself */
	L4_SetMR(0, 0);
	L4_Word_t t0 = L4_SystemClock();
	L4_MsgTag_t tag = L4_Send_Timeout(r, L4_TIMEOUT_ZERO);
	L4_Word_t dt = L4_SystemClock() - t0;
	EXPECT(L4_IpcFailed(tag), "send succeeded");
	EXPECT(L4_ErrorCode() == L4_IPC_TIMEOUT, "ErrorCode %lx, want send-phase timeout", L4_ErrorCode());
	EXPECT(dt < 1000, "a zero send timeout waited %lu us", dt);
	tt_kill(r);
}

TEST_CASE("ipc.send_timeout_relative", "Send with a 20 ms timeout to a thread not receiving times out after it")
{
	L4_ThreadId_t r = fresh();
	EXPECT(tt_start_local(r, tt_park), "start failed");
	TT_WAIT(state(r) == L4_SCHED_WAITING, 200);
	L4_SetMR(0, 0);
	L4_Word_t t0 = L4_SystemClock();
	L4_MsgTag_t tag = L4_Send_Timeout(r, L4_TimePeriod(20000));
	L4_Word_t dt = L4_SystemClock() - t0;
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_TIMEOUT, "ErrorCode %lx", L4_ErrorCode());
	EXPECT(dt >= 20000 && dt < 25000, "took %lu us", dt);
	tt_kill(r);
}

TEST_CASE("ipc.receive_timeout", "receive timeouts: zero fails at once, 10 ms after about 10 ms")
{
	L4_Word_t t0 = L4_SystemClock();
	L4_MsgTag_t tag = L4_Receive_Timeout(L4_ANYTHREAD, L4_TIMEOUT_ZERO, 0);
	L4_Word_t dt = L4_SystemClock() - t0;
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV),
	       "zero: ErrorCode %lx", L4_ErrorCode());
	EXPECT(tag == L4_TAG_ERROR, "zero: tag %lx", tag);
	EXPECT(dt < 1000, "zero: waited %lu us", dt);
	t0 = L4_SystemClock();
	tag = L4_Receive_Timeout(L4_ANYTHREAD, L4_TimePeriod(10000), 0);
	dt = L4_SystemClock() - t0;
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV),
	       "10 ms: ErrorCode %lx", L4_ErrorCode());
	EXPECT(dt >= 10000 && dt < 12500, "10 ms: took %lu us", dt);
}

static void sleeper(void)
{
	L4_Word_t t0 = L4_SystemClock();
	L4_Sleep(5000);
	seen[0] = L4_SystemClock() - t0;
	seen_err = L4_ErrorCode();
	tt_park();
}

TEST_CASE("ipc.sleep", "L4_Sleep (receive from self with a timeout) ends in a receive timeout")
{
	seen[0] = 0;
	L4_ThreadId_t s = fresh();
	EXPECT(tt_start_local(s, sleeper), "start failed");
	TT_WAIT(seen[0] != 0, 200);
	EXPECT(seen[0] >= 5000 && seen[0] < 7000, "slept %lu us", seen[0]);
	EXPECT(seen_err == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV), "ErrorCode %lx", seen_err);
	tt_kill(s);
}

static void wait_any_record(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	seen_tag = tag;
	seen_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	tt_park();
}

TEST_CASE("ipc.cancel_receive", "ExchangeRegisters aborts a receive: the receiver sees 'canceled'")
{
	seen_err = 0;
	L4_ThreadId_t r = fresh();
	EXPECT(tt_start_local(r, wait_any_record), "start failed");
	TT_WAIT(state(r) == L4_SCHED_WAITING, 200);
	struct L4_ExRegs x = { .control = L4_EXREG_ABORT_RECV | L4_EXREG_ABORT_SEND };
	EXPECT(pecan_exregs(r, &x) != L4_NILTHREAD, "exregs failed");
	EXPECT(x.control & 2, "old control %lx does not say receiving", x.control);
	TT_WAIT(seen_err != 0, 200);
	EXPECT(seen_err == (L4_IPC_CANCELED | L4_IPC_PHASE_RECV), "ErrorCode %lx", seen_err);
	tt_kill(r);
}

static void send_record(void)
{
	L4_SetMR(0, L4_TAG_MAKE(1, 0, 0));
	L4_MsgTag_t tag = L4_Send(main_id);
	seen_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	seen_tag = tag;
	tt_park();
}

TEST_CASE("ipc.cancel_send", "ExchangeRegisters aborts a blocked send: the sender sees 'canceled'")
{
	main_id = L4_MyGlobalId();
	seen_err = 0;
	L4_ThreadId_t s = fresh();
	EXPECT(tt_start_local(s, send_record), "start failed");
	TT_WAIT(state(s) == L4_SCHED_PENDING_SEND, 200);   /* s now waits to send to us */
	seen_err = 0;
	struct L4_ExRegs x = { .control = L4_EXREG_ABORT_SEND };
	pecan_exregs(s, &x);
	EXPECT(x.control & 4, "old control %lx does not say sending", x.control);
	TT_WAIT(seen_err != 0, 200);
	EXPECT(seen_err == L4_IPC_CANCELED, "ErrorCode %lx", seen_err);
	EXPECT(L4_TAG_LABEL(seen_tag) == 1, "a canceled send keeps its tag: %lx", seen_tag);
	tt_kill(s);
}

TEST_CASE("ipc.pending_sender", "a sender that blocked first is received from later (open and closed)")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t s = fresh();
	EXPECT(tt_start_local(s, send_record), "start failed");
	TT_WAIT(state(s) == L4_SCHED_PENDING_SEND, 200);
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(s, L4_TIMEOUT_ZERO, &from);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 1, "tag %lx err %lx", tag, L4_ErrorCode());
	EXPECT(from == tt_utcb(s) + UTCB_P_OFFSET, "From %lx", from);
	tt_kill(s);
}

TEST_CASE("ipc.anylocal", "anylocalthread takes senders of our space only")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t far = fresh(), near = fresh();
	EXPECT(tt_start_space(far, send_record), "start far failed");
	TT_WAIT(state(far) == L4_SCHED_PENDING_SEND, 300);
	L4_MsgTag_t tag = L4_Receive_Timeout(L4_ANYLOCALTHREAD, L4_TIMEOUT_ZERO, 0);
	EXPECT(L4_IpcFailed(tag), "took a message from another space");
	EXPECT(tt_start_local(near, send_record), "start near failed");
	TT_WAIT(state(near) == L4_SCHED_PENDING_SEND, 200);
	L4_ThreadId_t from;
	tag = L4_Receive_Timeout(L4_ANYLOCALTHREAD, L4_TIMEOUT_ZERO, &from);
	EXPECT(!L4_IpcFailed(tag) && from == tt_utcb(near) + UTCB_P_OFFSET, "From %lx err %lx", from, L4_ErrorCode());
	tag = L4_Receive_Timeout(L4_ANYTHREAD, L4_TIMEOUT_ZERO, &from);
	EXPECT(!L4_IpcFailed(tag) && from == far, "open receive: From %lx", from);
	tt_kill(far);
	tt_kill(near);
}

TEST_CASE("ipc.bad_partner", "nonexistent, stale, nil-version and own IDs fail with 'no partner'")
{
	L4_ThreadId_t t = fresh();
	L4_SetMR(0, 0);
	L4_MsgTag_t tag = L4_Send_Timeout(t, L4_TIMEOUT_ZERO);
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_NOPARTNER, "nonexistent: %lx", L4_ErrorCode());
	EXPECT(tt_start_local(t, tt_park), "start failed");
	L4_ThreadId_t stale = l4_global_id(l4_thread_no(t), 2);
	tag = L4_Send_Timeout(stale, L4_TIMEOUT_NEVER);
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_NOPARTNER, "stale: %lx", L4_ErrorCode());
	tag = L4_Receive_Timeout(stale, L4_TIMEOUT_NEVER, 0);
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == (L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV),
	       "receive from stale: %lx", L4_ErrorCode());
	tag = L4_Send_Timeout(l4_global_id(l4_thread_no(t), 0), L4_TIMEOUT_NEVER);   /* t's number, nil version */
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_NOPARTNER, "nil version: %lx", L4_ErrorCode());
	tag = L4_Send_Timeout(L4_MyGlobalId(), L4_TIMEOUT_NEVER);
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_NOPARTNER, "self: %lx", L4_ErrorCode());
	tag = L4_Send_Timeout(0x12345640UL, L4_TIMEOUT_NEVER);   /* a local ID that is no UTCB */
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_NOPARTNER, "bad local: %lx", L4_ErrorCode());
	tag = L4_Send_Timeout(0xffffffffc0800040UL, L4_TIMEOUT_NEVER);   /* a kernel address */
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_NOPARTNER, "kernel local: %lx", L4_ErrorCode());
	tt_kill(t);
}

TEST_CASE("ipc.too_many_words", "u + t above 63 is a message overflow for both sides; the receiver survives")
{
	L4_ThreadId_t srv = fresh();
	EXPECT(tt_start_local(srv, echo), "start failed");
	L4_SetMR(0, L4_TAG_MAKE(1, 40, 30));
	L4_MsgTag_t tag = L4_Call(srv);
	EXPECT(L4_IpcFailed(tag) && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_OVERFLOW &&
	       !(L4_ErrorCode() & L4_IPC_PHASE_RECV), "ErrorCode %lx", L4_ErrorCode());
	EXPECT(call_echo(srv, 5, 9), "the server is broken afterwards");
	tt_kill(srv);
}

TEST_CASE("ipc.deleted_partner", "a sender waiting for a thread that is deleted gets 'no partner'")
{
	main_id = L4_MyGlobalId();
	seen_err = 0;
	L4_ThreadId_t victim = fresh(), s = fresh();
	EXPECT(tt_start_local(victim, tt_park), "start failed");
	main_id = victim;
	EXPECT(tt_start_local(s, send_record), "start failed");
	TT_WAIT(state(s) == L4_SCHED_PENDING_SEND, 200);
	tt_kill(victim);
	TT_WAIT(seen_err != 0, 200);
	EXPECT(seen_err == L4_IPC_NOPARTNER, "ErrorCode %lx", seen_err);
	tt_kill(s);
}

/* Receive from main_id (a thread that has never taken part in an IPC) and record the result. */
static void receive_record(void)
{
	L4_MsgTag_t tag = L4_Receive(main_id);
	seen_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	tt_park();
}

/* Take one Call, say so, and never answer it. */
static void take_call(void)
{
	L4_ThreadId_t from;
	L4_Wait(&from);
	seen_tag = 1;
	tt_park();
}

/* Call main_id (waiting for us, so the fastpath takes it where built) and record the result. */
static void call_record(void)
{
	L4_SetMR(0, 0);
	L4_MsgTag_t tag = L4_Call(main_id);
	seen_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	tt_park();
}

/*
 * waiter ends up in a receive from victim (main_id) and victim is deleted:
 * the receive fails with "no partner".  `called`: wait for victim to have
 * taken waiter's Call first.
 */
static void expect_no_partner(L4_ThreadId_t victim, void (*waiter)(void), int called)
{
	seen_err = seen_tag = 0;
	main_id = victim;
	L4_ThreadId_t w = fresh();
	EXPECT(tt_start_local(w, waiter), "start failed");
	TT_WAIT(state(w) == L4_SCHED_WAITING && (!called || seen_tag), 200);
	tt_kill(victim);
	TT_WAIT(seen_err != 0, 200);
	EXPECT(seen_err == (L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV), "ErrorCode %lx", seen_err);
	tt_kill(w);
}

TEST_CASE("ipc.deleted_partner_receiver", "a closed receive from a thread that is deleted (one never in an IPC) gets 'no partner'")
{
	L4_ThreadId_t victim = fresh();
	EXPECT(tt_start_local(victim, tt_park), "start failed");
	expect_no_partner(victim, receive_record, 0);
}

TEST_CASE("ipc.deleted_callee", "a Call whose callee is deleted before it replies gets 'no partner' in its receive phase")
{
	L4_ThreadId_t callee = fresh();
	EXPECT(tt_start_local(callee, take_call), "start failed");
	TT_WAIT(state(callee) == L4_SCHED_WAITING, 200);
	expect_no_partner(callee, call_record, 1);
}

static void late_receiver(void)
{
	L4_Sleep(5000);             /* the caller's send blocks first */
	receiver_once();
}

/*
 * Ipc to `r` with an invalid receive specifier (a stale global ID): the send
 * completes, the receive phase fails with "no partner" (abi.md §6.1, as
 * Pistachio), whether the partner was already waiting or not.
 */
static void invalid_from(void (*rcv)(void), int wait_first)
{
	main_id = L4_MyGlobalId();
	seen_tag = 0;
	L4_ThreadId_t r = fresh(), gone = fresh();
	EXPECT(tt_start_local(r, rcv), "start failed");
	if (wait_first)
		TT_WAIT(state(r) == L4_SCHED_WAITING, 200);
	L4_ThreadId_t stale = l4_global_id(l4_thread_no(gone), 7);
	L4_SetMR(0, L4_TAG_MAKE(0x66, 1, 0));
	L4_SetMR(1, 4242);
	L4_ThreadId_t from = 1;
	L4_MsgTag_t tag = L4_Ipc(r, stale, L4_TIMEOUTS(L4_TIMEOUT_NEVER, L4_TIMEOUT_NEVER), &from);
	EXPECT(L4_IpcFailed(tag), "the Ipc succeeded: tag %lx", tag);
	EXPECT(L4_ErrorCode() == (L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV), "ErrorCode %lx", L4_ErrorCode());
	TT_WAIT(seen_tag != 0, 200);
	EXPECT(L4_TAG_LABEL(seen_tag) == 0x66 && seen[1] == 4242, "the send did not arrive: tag %lx", seen_tag);
	tt_kill(r);
}

TEST_CASE("ipc.invalid_from_waiting", "invalid receive specifier, partner waiting: send done, receive 'no partner'")
{
	invalid_from(receiver_once, 1);
}

TEST_CASE("ipc.invalid_from_blocked", "invalid receive specifier after a blocked send: send done, receive 'no partner'")
{
	invalid_from(late_receiver, 0);
}

/* The X.2 point timeout for clock value `at` with exponent e (abi.md §6.3). */
static L4_Word_t time_point(L4_Word_t at, unsigned e)
{
	return 0x8000 | (e << 11) | (((at >> (e + 10)) & 1) << 10) | ((at >> e) & 0x3ff);
}

TEST_CASE("ipc.point_timeout", "an absolute (point) receive timeout ends at that clock value; a point already passed is zero")
{
	L4_Word_t now = L4_SystemClock(), at = now + 30000;
	L4_MsgTag_t tag = L4_Receive_Timeout(L4_MyGlobalId(), time_point(at, 5), 0);
	L4_Word_t end = L4_SystemClock();
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV),
	       "ErrorCode %lx", L4_ErrorCode());
	EXPECT(end + 32 >= at && end < at + 3000, "asked for %lu, woke at %lu (started %lu)", at, end, now);
	/* a point in the next 2^16 us window: c (bit 15 of it) differs from the clock's bit 15 */
	TT_WAIT((L4_SystemClock() & 0xffff) >= 40000, 100);
	now = L4_SystemClock();
	at = now + 30000;
	tag = L4_Receive_Timeout(L4_MyGlobalId(), time_point(at, 5), 0);
	end = L4_SystemClock();
	EXPECT(((now >> 15) & 1) && !((at >> 15) & 1), "no window crossing: %lx %lx", now, at);
	EXPECT(end + 32 >= at && end < at + 3000, "next window: asked for %lu, woke at %lu", at, end);
	/* the start of the current 2^16 us window is behind (or now): zero */
	now = L4_SystemClock();
	L4_Word_t past = now & ~0x7fffUL;
	tag = L4_Receive_Timeout(L4_MyGlobalId(), time_point(past, 5), 0);
	end = L4_SystemClock();
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV) && end - now < 1000,
	       "a passed point waited %lu us (ErrorCode %lx)", end - now, L4_ErrorCode());
	/* as a send timeout to a thread that never receives */
	L4_ThreadId_t r = fresh();
	EXPECT(tt_start_local(r, tt_park), "start failed");
	now = L4_SystemClock();
	at = now + 20000;
	L4_SetMR(0, 0);
	tag = L4_Send_Timeout(r, time_point(at, 5));
	end = L4_SystemClock();
	EXPECT(L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_TIMEOUT && end + 32 >= at && end < at + 3000,
	       "send: ErrorCode %lx, asked for %lu, woke at %lu", L4_ErrorCode(), at, end);
	tt_kill(r);
}

/*
 * Propagation (X.2): a proxy forwards a client's request to a server on the
 * client's behalf; the server sees the client as From, p set and the proxy
 * as ActualSender, and its reply reaches the client, which waited for the
 * proxy.
 */
static volatile L4_ThreadId_t pr_server;
static volatile L4_Word_t pr_tag, pr_from, pr_actual, pr_word, cl_tag, cl_from, cl_word;

static void prop_client(void)
{
	L4_SetMR(0, L4_TAG_MAKE(0x31, 1, 0));
	L4_SetMR(1, 1234);
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(main_id, main_id, 0, &from);     /* Call the proxy (main) */
	cl_word = L4_MR(1);
	cl_from = from;
	cl_tag = tag;
	tt_park();
}

static void prop_server(void)
{
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, L4_ANYTHREAD, 0, &from);
	pr_tag = tag;
	pr_from = from;
	pr_actual = L4_Tcr(UTCB_VIRTUAL_SENDER);
	pr_word = L4_MR(1);
	L4_SetMR(0, L4_TAG_MAKE(0x32, 1, 0));
	L4_SetMR(1, pr_word + 1);
	L4_Reply(from);
	tt_park();
}

TEST_CASE("ipc.propagation", "a proxy propagates a Call: the server sees the client (p set, ActualSender = proxy) and replies to it directly")
{
	main_id = L4_MyGlobalId();
	pr_tag = cl_tag = 0;
	L4_ThreadId_t c = fresh(), srv = fresh();
	EXPECT(tt_start_local(srv, prop_server), "start failed");
	EXPECT(tt_start_local(c, prop_client), "start failed");
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, c, L4_TIMEOUTS(0, L4_TimePeriod(500000)), &from);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x31, "the client's call: %lx", L4_ErrorCode());
	L4_SetTcr(UTCB_VIRTUAL_SENDER, c);
	L4_SetMR(0, L4_TAG_MAKE(0x31, 1, 0) | L4_TAG_PROPAGATE);
	L4_SetMR(1, 1234);
	tag = L4_Send(srv);
	EXPECT(!L4_IpcFailed(tag), "the propagated send: %lx", L4_ErrorCode());
	TT_WAIT(cl_tag != 0, 300);
	EXPECT(pr_from == c && (pr_tag & L4_TAG_PROPAGATE) && pr_actual == main_id && pr_word == 1234,
	       "server saw from %lx tag %lx actual %lx word %lu", pr_from, pr_tag, pr_actual, pr_word);
	EXPECT(!L4_IpcFailed(cl_tag) && L4_TAG_LABEL(cl_tag) == 0x32 && cl_word == 1235 && cl_from == tt_utcb(srv) + UTCB_P_OFFSET,
	       "client got tag %lx word %lu from %lx", cl_tag, cl_word, cl_from);
	tt_kill(c);
	tt_kill(srv);
}

static void prop_forger(void)
{
	L4_SetTcr(UTCB_VIRTUAL_SENDER, pr_server);    /* claims to be a thread of another space */
	L4_SetMR(0, L4_TAG_MAKE(0x33, 0, 0) | L4_TAG_PROPAGATE);
	L4_Send(main_id);
	tt_park();
}

TEST_CASE("ipc.propagation_refused", "a thread of another space cannot propagate for a thread that is neither in its space nor the receiver's: p is cleared")
{
	main_id = L4_MyGlobalId();
	L4_ThreadId_t victim = fresh(), forger = fresh();
	EXPECT(tt_start_space(victim, tt_park), "start failed");
	pr_server = victim;
	EXPECT(tt_start_space(forger, prop_forger), "start failed");
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, L4_ANYTHREAD, L4_TIMEOUTS(0, L4_TimePeriod(500000)), &from);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x33, "receive: %lx", L4_ErrorCode());
	EXPECT(from == forger && !(tag & L4_TAG_PROPAGATE), "From %lx tag %lx", from, tag);
	tt_kill(forger);
	tt_kill(victim);
}

/*
 * Redirection (X.2): a space whose redirector is a monitor; its threads'
 * IPC to anyone outside goes to the monitor (r set, IntendedReceiver), which
 * forwards it by propagation; with the monitor gone, sends fail.
 */
static volatile L4_Word_t mon_tag, mon_from, mon_intended, mon_tag2, mon_intended2;
static volatile L4_Word_t rd_phase, rd_err2, echo_seen, cl_tag2, cl_from2;
static volatile L4_ThreadId_t rd_echo;

/* The monitor: forwards the first message by propagation, answers the second itself. */
static void monitor(void)
{
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, L4_ANYTHREAD, 0, &from);
	mon_tag = tag;
	mon_from = from;
	mon_intended = L4_Tcr(UTCB_INTENDED_RECV);
	L4_SetTcr(UTCB_VIRTUAL_SENDER, from);
	L4_SetMR(0, (tag & ~L4_TAG_FLAGS_MASK) | L4_TAG_PROPAGATE);
	L4_Send(mon_intended);
	tag = L4_Ipc(L4_NILTHREAD, L4_ANYTHREAD, 0, &from);
	mon_tag2 = tag;
	mon_intended2 = L4_Tcr(UTCB_INTENDED_RECV);
	L4_SetTcr(UTCB_VIRTUAL_SENDER, mon_intended2);    /* answer as the intended receiver */
	L4_SetMR(0, L4_TAG_MAKE(0x99, 0, 0) | L4_TAG_PROPAGATE);
	L4_Send(from);
	tt_park();
}

/* A server of our space that waits without a timeout: the fastpath could reach it. */
static void rd_echo_server(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	echo_seen++;
	L4_SetMR(0, L4_TAG_MAKE(L4_TAG_LABEL(tag) + 1, 0, 0));
	L4_Reply(from);
	tt_park();
}

static void confined(void)
{
	L4_SetMR(0, L4_TAG_MAKE(0x44, 1, 0));
	L4_SetMR(1, 77);
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(main_id, main_id, 0, &from);
	cl_tag = tag;
	cl_word = L4_MR(1);
	cl_from = from;
	L4_SetMR(0, L4_TAG_MAKE(0x50, 0, 0));
	tag = L4_Ipc(rd_echo, rd_echo, 0, &from);         /* a Call the fastpath would take */
	cl_tag2 = tag;
	cl_from2 = from;
	while (rd_phase != 2)
		L4_Sleep(1000);
	L4_SetMR(0, 0);
	tag = L4_Send_Timeout(main_id, L4_TIMEOUT_ZERO);
	rd_err2 = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	rd_phase = 3;
	tt_park();
}

TEST_CASE("ipc.redirection", "a space's redirector gets its outgoing IPC (r, IntendedReceiver; fastpath Calls too) and forwards or answers it by propagation; once it is gone, sends fail")
{
	main_id = L4_MyGlobalId();
	cl_tag = cl_tag2 = mon_tag = 0;
	echo_seen = 0;
	rd_phase = 1;
	L4_ThreadId_t m = fresh(), x = fresh(), e = fresh();
	rd_echo = e;
	EXPECT(tt_start_local(e, rd_echo_server), "start failed");
	EXPECT(tt_start_local(m, monitor), "start failed");
	EXPECT(tt_start_space(x, confined), "start failed");
	EXPECT(L4_SpaceControl(x, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			       L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), m, 0) == 1,
	       "SpaceControl with a redirector: ErrorCode %lx", L4_ErrorCode());
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, x, L4_TIMEOUTS(0, L4_TimePeriod(500000)), &from);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x44 && L4_MR(1) == 77, "receive: tag %lx ErrorCode %lx",
	       tag, L4_ErrorCode());
	EXPECT(from == x && (tag & L4_TAG_PROPAGATE) && !(tag & L4_TAG_REDIRECTED) &&
	       L4_Tcr(UTCB_VIRTUAL_SENDER) == m, "From %lx tag %lx actual %lx", from, tag, L4_Tcr(UTCB_VIRTUAL_SENDER));
	EXPECT((mon_tag & L4_TAG_REDIRECTED) && mon_from == x && mon_intended == main_id,
	       "the monitor saw tag %lx from %lx intended %lx", mon_tag, mon_from, mon_intended);
	L4_SetMR(0, L4_TAG_MAKE(0x45, 1, 0));
	L4_SetMR(1, 78);
	tag = L4_Reply(x);
	EXPECT(!L4_IpcFailed(tag), "reply: %lx", L4_ErrorCode());
	TT_WAIT(cl_tag2 != 0, 300);
	EXPECT(L4_TAG_LABEL(cl_tag) == 0x45 && cl_word == 78 && cl_from == main_id, "the confined thread got %lx %lu from %lx",
	       cl_tag, cl_word, cl_from);
	EXPECT(echo_seen == 0 && (mon_tag2 & L4_TAG_REDIRECTED) && mon_intended2 == e,
	       "the Call to a waiting server bypassed the monitor: seen %lu, monitor tag %lx intended %lx",
	       echo_seen, mon_tag2, mon_intended2);
	EXPECT(L4_TAG_LABEL(cl_tag2) == 0x99 && (cl_tag2 & L4_TAG_PROPAGATE) && cl_from2 == e,
	       "the monitor's answer as the server: tag %lx from %lx", cl_tag2, cl_from2);
	tt_kill(m);
	rd_phase = 2;
	TT_WAIT(rd_phase == 3, 300);
	EXPECT(rd_err2 == L4_IPC_NOPARTNER, "with the monitor gone: ErrorCode %lx", rd_err2);
	EXPECT(L4_SpaceControl(x, 0, 0, 0, 0x12345640UL, 0) == 0 && L4_ErrorCode() == 2,
	       "a redirector that is no thread: ErrorCode %lx", L4_ErrorCode());
	tt_kill(x);
	tt_kill(e);
}

/*
 * Strict confinement (PECAN_SPACE_STRICT, docs/abi.md): a confined thread's
 * page fault and its int3 go to the redirector although its Pager and
 * ExceptionHandler TCRs name a thread outside (here: ours).
 */
static char st_untouched[2 * 4096] __attribute__((aligned(4096)));
static volatile L4_Word_t st_phase, st_tag[2], st_from[2], st_mr1[2], st_seen;

static void strict_monitor(void)
{
	for (int i = 0; i < 2; i++) {
		L4_ThreadId_t from = 0;
		L4_MsgTag_t tag = L4_Wait(&from);
		st_tag[i] = tag;
		st_from[i] = from;
		st_mr1[i] = L4_MR(1);
		st_seen = (L4_Word_t)i + 1;
	}
	tt_park();                      /* neither is answered: the thread stays where it is */
}

static void strict_thread(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, main_id);
	while (st_phase == 0)
		L4_ThreadSwitch(L4_NILTHREAD);
	L4_KDB_Enter("a strictly confined thread must not reach the kernel debugger");
}

static void strict_faulter(void)
{
	while (st_phase == 0)
		L4_ThreadSwitch(L4_NILTHREAD);
	st_untouched[4096] = 1;
	tt_park();
}

TEST_CASE("ipc.strict_confinement", "a strictly confined space's page faults and int3 go to its redirector, not to the pager or exception handler its TCRs name")
{
	main_id = L4_MyGlobalId();
	st_phase = 0;
	st_seen = 0;
	L4_ThreadId_t m = fresh(), x = fresh(), y = fresh();
	EXPECT(tt_start_local(m, strict_monitor), "start failed");
	EXPECT(tt_start_space(x, strict_faulter) && tt_start_space(y, strict_thread), "start failed");
	L4_Sleep(20000);                /* both wait for the phase, their start-up faults served */
	for (L4_ThreadId_t s = x; s; s = s == x ? y : 0)
		EXPECT(L4_SpaceControl(s, PECAN_SPACE_STRICT, 0, 0, m, 0) == 1, "SpaceControl: ErrorCode %lx",
		       L4_ErrorCode());
	st_phase = 1;
	TT_WAIT(st_seen == 2, 300);
	int fi = st_from[0] == x ? 0 : 1, ei = 1 - fi;
	EXPECT(st_from[fi] == x && (L4_TAG_LABEL(st_tag[fi]) >> 4) == (L4_LABEL_PAGEFAULT >> 4) &&
	       st_mr1[fi] == (L4_Word_t)&st_untouched[4096] && !(st_tag[fi] & L4_TAG_REDIRECTED),
	       "the monitor saw from %lx tag %lx MR1 %lx", st_from[fi], st_tag[fi], st_mr1[fi]);
	EXPECT(st_from[ei] == y && L4_TAG_LABEL(st_tag[ei]) == L4_LABEL_EXCEPTION,
	       "the int3: from %lx tag %lx", st_from[ei], st_tag[ei]);
	tt_kill(x);
	tt_kill(y);
	tt_kill(m);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
