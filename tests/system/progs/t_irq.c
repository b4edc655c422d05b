// SPDX-License-Identifier: MIT
// Interrupts as IPC, driven by the serial ports' transmitter-empty interrupts (COM1 IRQ 4, COM2 IRQ 3).
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/c/portio.h"

#define COM1 0x3f8
#define COM2 0x2f8
#define IER  1
#define IIR  2
#define IER_THRE 0x02

static int slot;
static volatile L4_Word_t irq_count[2], stage, seen_before_reply;
static volatile L4_ThreadId_t handler_ids[2];

static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
static L4_ThreadId_t irq_thread(int n) { return l4_global_id(n, 1); }


/* A transmitter-empty interrupt: enabling THRE while the transmitter is empty raises it. */
static void trigger(unsigned short port)
{
	outb(port + IER, 0);
	outb(port + IER, IER_THRE);
}

static void quiet(unsigned short port)
{
	outb(port + IER, 0);
	(void)inb(port + IIR);
}

static int associate(int irq, L4_ThreadId_t handler)
{
	return L4_ThreadControl(irq_thread(irq), irq_thread(irq), L4_NILTHREAD, handler, ~0UL) != 0;
}

/* Handler for IRQ 4 that retriggers its own line before replying. */
static void masking_handler(void)
{
	L4_ThreadId_t from;
	for (;;) {
		L4_MsgTag_t tag = L4_Receive(irq_thread(4));
		if (L4_IpcFailed(tag) || (L4_TAG_LABEL(tag) >> 4) != (L4_LABEL_INTERRUPT >> 4))
			continue;
		irq_count[0]++;
		quiet(COM1);
		if (stage == 0) {
			stage = 1;
			trigger(COM1);              /* fires again while the line is masked */
			L4_Sleep(3000);
			seen_before_reply = irq_count[0];
		} else {
			stage = 2;
		}
		L4_SetMR(0, 0);
		L4_Reply(irq_thread(4));     /* unmask */
		(void)from;
	}
}

TEST_CASE("irq.masked_until_reply", "an interrupt arrives as IPC; the line stays masked until the handler replies")
{
	L4_ThreadId_t h = fresh();
	EXPECT(tt_start_local(h, masking_handler), "start");
	L4_Set_Priority(h, 200);
	EXPECT(associate(4, h), "associate IRQ 4: ErrorCode %lx", L4_ErrorCode());
	L4_Sleep(1000);
	trigger(COM1);
	TT_WAIT(stage == 2, 200);
	EXPECT(seen_before_reply == 1, "%lu interrupts delivered before the reply", seen_before_reply);
	EXPECT(irq_count[0] == 2 && stage == 2, "%lu interrupts in all (stage %lu)", irq_count[0], stage);
	quiet(COM1);
	EXPECT(associate(4, irq_thread(4)), "release IRQ 4");
	tt_kill(h);
}

static void counting_handler(int k, int irq, unsigned short port)
{
	for (;;) {
		L4_MsgTag_t tag = L4_Receive(irq_thread(irq));
		if (L4_IpcFailed(tag))
			continue;
		irq_count[k]++;
		quiet(port);
		L4_SetMR(0, 0);
		L4_Reply(irq_thread(irq));
	}
}
static void com1_handler(void) { counting_handler(0, 4, COM1); }
static void com2_handler(void) { counting_handler(1, 3, COM2); }

TEST_CASE("irq.two_lines", "two handlers on two lines each get exactly their own interrupts")
{
	irq_count[0] = irq_count[1] = 0;
	L4_ThreadId_t h1 = fresh(), h2 = fresh();
	EXPECT(tt_start_local(h1, com1_handler) && tt_start_local(h2, com2_handler), "start");
	EXPECT(associate(4, h1) && associate(3, h2), "associate: ErrorCode %lx", L4_ErrorCode());
	L4_Sleep(1000);
	for (L4_Word_t i = 1; i <= 3; i++) {
		trigger(COM1);
		TT_WAIT(irq_count[0] == i, 200);
	}
	trigger(COM2);
	TT_WAIT(irq_count[0] == 3 && irq_count[1] == 1, 200);
	EXPECT(irq_count[0] == 3 && irq_count[1] == 1, "COM1 %lu, COM2 %lu", irq_count[0], irq_count[1]);
	EXPECT(associate(4, irq_thread(4)) && associate(3, irq_thread(3)), "release");
	trigger(COM1);
	trigger(COM2);
	L4_Sleep(2000);
	EXPECT(irq_count[0] == 3 && irq_count[1] == 1, "after release: COM1 %lu, COM2 %lu",
	       irq_count[0], irq_count[1]);
	quiet(COM1);
	quiet(COM2);
	tt_kill(h1);
	tt_kill(h2);
}

TEST_CASE("irq.pending_until_received", "an interrupt that fires while the handler is busy waits for its receive")
{
	L4_ThreadId_t me = L4_MyGlobalId();
	EXPECT(associate(4, me), "associate with the test thread");
	trigger(COM1);                    /* we are not receiving: it is queued */
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(L4_ANYTHREAD, L4_TIMEOUT_ZERO, &from);
	EXPECT(!L4_IpcFailed(tag) && from == irq_thread(4), "tag %lx from %lx err %lx", tag, from, L4_ErrorCode());
	EXPECT((L4_TAG_LABEL(tag) >> 4) == (L4_LABEL_INTERRUPT >> 4) && L4_TAG_U(tag) == 0, "tag %lx", tag);
	quiet(COM1);
	L4_SetMR(0, 0);
	EXPECT(!L4_IpcFailed(L4_Reply(irq_thread(4))), "acknowledge: %lx", L4_ErrorCode());
	EXPECT(associate(4, irq_thread(4)), "release");
}

TEST_CASE("irq.schedule_needs_association", "Schedule on an interrupt thread fails unassociated, works associated")
{
	L4_ThreadId_t me = L4_MyGlobalId();
	EXPECT(!L4_Set_Priority(irq_thread(3), 100), "unassociated IRQ 3 accepted a priority");
	EXPECT(associate(3, me), "associate IRQ 3");
	EXPECT(L4_Set_Priority(irq_thread(3), 100), "associated IRQ 3 refused: %lx", L4_ErrorCode());
	EXPECT(associate(3, irq_thread(3)), "release");
}

static volatile L4_Word_t unpriv_result[3];

static void unprivileged(void)
{
	unpriv_result[0] = associate(5, L4_MyGlobalId()) ? 99 : L4_ErrorCode();
	L4_SetMR(0, 0);
	L4_MsgTag_t tag = L4_Send_Timeout(irq_thread(4), L4_TIMEOUT_ZERO);
	unpriv_result[1] = L4_IpcFailed(tag) ? L4_ErrorCode() : 99;
	unpriv_result[2] = 1;
	tt_park();
}

TEST_CASE("irq.bad_requests", "nonexistent, kernel-owned and taken lines, strangers' replies and unprivileged callers are refused")
{
	L4_ThreadId_t me = L4_MyGlobalId(), h = fresh(), other = fresh();
	EXPECT(!associate(16, me) && L4_ErrorCode() == L4_ERR_INVALID_THREAD, "line 16: %lx", L4_ErrorCode());
	EXPECT(!L4_ThreadControl(l4_global_id(20, 1), l4_global_id(20, 1), 0, me, ~0UL) &&
	       L4_ErrorCode() == L4_ERR_INVALID_THREAD, "kernel thread 20: %lx", L4_ErrorCode());
	EXPECT(!associate(0, me) && L4_ErrorCode() == L4_ERR_INVALID_THREAD, "timer line: %lx", L4_ErrorCode());
	EXPECT(!associate(2, me), "cascade line accepted");
	EXPECT(!associate(5, tt_id(143, 1)) && L4_ErrorCode() == L4_ERR_INVALID_THREAD, "nonexistent handler");
	EXPECT(tt_start_local(h, tt_park) && tt_start_local(other, tt_park), "start");
	EXPECT(associate(5, h), "associate IRQ 5");
	EXPECT(!associate(5, other) && L4_ErrorCode() == L4_ERR_INVALID_PARAM, "taken line: %lx", L4_ErrorCode());
	L4_SetMR(0, 0);
	EXPECT(L4_IpcFailed(L4_Send_Timeout(irq_thread(5), L4_TIMEOUT_ZERO)) && L4_ErrorCode() == L4_IPC_NOPARTNER,
	       "a stranger acknowledged IRQ 5: %lx", L4_ErrorCode());
	EXPECT(tt_kill(h), "delete the handler");
	EXPECT(associate(5, other), "the line is free once its handler is gone: %lx", L4_ErrorCode());
	EXPECT(associate(5, irq_thread(5)), "release");
	tt_kill(other);
	L4_ThreadId_t u = fresh();
	unpriv_result[2] = 0;
	EXPECT(tt_start_space(u, unprivileged), "start unprivileged");
	TT_WAIT(unpriv_result[2] == 1, 300);
	EXPECT(unpriv_result[2] == 1, "unprivileged thread did not finish");
	EXPECT(unpriv_result[0] == L4_ERR_NO_PRIVILEGE, "unprivileged association: %lx", unpriv_result[0]);
	EXPECT(unpriv_result[1] == L4_IPC_NOPARTNER, "unprivileged acknowledgement: %lx", unpriv_result[1]);
	tt_kill(u);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
