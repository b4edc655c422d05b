// SPDX-License-Identifier: MIT
// Kernel entry and exit: per-thread %fs/%gs, exception messages and replies, KDB input.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }

static inline unsigned read_ds(void)
{
	unsigned v;
	__asm__ __volatile__("movl %%ds, %0" : "=r"(v));
	return v & 0xffff;
}
static inline unsigned read_es(void)
{
	unsigned v;
	__asm__ __volatile__("movl %%es, %0" : "=r"(v));
	return v & 0xffff;
}
static inline unsigned read_fs(void)
{
	unsigned v;
	__asm__ __volatile__("movl %%fs, %0" : "=r"(v));
	return v & 0xffff;
}
static inline unsigned read_gs(void)
{
	unsigned v;
	__asm__ __volatile__("movl %%gs, %0" : "=r"(v));
	return v & 0xffff;
}

/* ---- %fs and %gs belong to the thread that loads them ---- */

static volatile L4_ThreadId_t seg_handler_id, seg_checker_id;
static volatile L4_Word_t seg_done[2], seg_stop, seg_faults, seg_checks, seg_bad_handler, seg_bad_checker;
static volatile L4_Word_t seg_bad_value, seg_utcb_offset;

/* %ds, %es, %fs and %gs in one word. */
static L4_Word_t selectors(void)
{
	return (L4_Word_t)read_ds() << 48 | (L4_Word_t)read_es() << 32 | read_fs() << 16 | read_gs();
}

/*
 * Is this thread's view what it was: %gs:0 its own UTCB, the data-segment
 * selectors as it had them?  Records the first wrong view.
 */
static int own_view_ok(L4_Word_t utcb, L4_Word_t sels)
{
	L4_Word_t p;
	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(p));
	if (p == utcb && selectors() == sels)
		return 1;
	if (!seg_bad_value)
		seg_bad_value = p ^ selectors();
	return 0;
}

/* Length of the `mov r, %gs/%fs` at p (optional 66 and REX prefixes, 8E /r). */
static int mov_sreg_len(const unsigned char *p)
{
	int n = 0;
	if (p[n] == 0x66)
		n++;
	if ((p[n] & 0xf0) == 0x40)
		n++;
	return p[n] == 0x8e ? n + 2 : 0;
}

/* The attackers' exception handler (root task): skips every faulting segment load. */
static void seg_handler(void)
{
	L4_Word_t utcb = L4_MyLocalId(), sels = selectors();
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		if (!own_view_ok(utcb, sels))
			seg_bad_handler++;
		int len = mov_sreg_len((const unsigned char *)L4_MR(1));
		if (L4_IpcFailed(tag) || L4_TAG_U(tag) != 19 || L4_MR(19) != 13 || !len) {
			seg_bad_handler += 1000;     /* something other than a #GP on a segment load */
			tag = L4_Wait(&from);
			continue;
		}
		seg_faults++;
		L4_SetMR(1, L4_MR(1) + len);
		L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
		tag = L4_ReplyWait(from, &from);
	}
}

/* Unprivileged: load every selector into each data-segment register (the handler skips faulting loads). */
static void seg_attack(int half)
{
	L4_SetTcr(UTCB_EXC_HANDLER, seg_handler_id);
	for (L4_Word_t sel = half * 0x8000UL; sel < (half + 1) * 0x8000UL; sel++)
		__asm__ __volatile__("movl %k0, %%gs\n\tmovl %k0, %%fs\n\tmovl %k0, %%ds\n\tmovl %k0, %%es"
				     : : "r"(sel) : "memory");
	/* Our own %gs:0 may be gone now: no more UTCB use, only system calls. */
	seg_done[half] = 1;
	for (;;)
		L4_ThreadSwitch(L4_NILTHREAD);
}
static void seg_attack0(void) { seg_attack(0); }
static void seg_attack1(void) { seg_attack(1); }

/* In a third space: keep reading our own view while the attackers run. */
static void seg_checker(void)
{
	L4_Word_t utcb = tt_utcb(seg_checker_id) + seg_utcb_offset, sels = selectors();
	while (!seg_stop) {
		if (!own_view_ok(utcb, sels))
			seg_bad_checker++;
		if (++seg_checks % 64 == 0)
			L4_ThreadSwitch(L4_NILTHREAD);
	}
	tt_park();
}

TEST_CASE("entry.segment_loads", "unprivileged threads load every selector into %ds, %es, %fs, %gs; no other thread's view changes")
{
	L4_Word_t utcb = L4_MyLocalId(), sels = selectors();
	L4_ThreadId_t h = fresh(), c = fresh(), a0 = fresh(), a1 = fresh();
	seg_utcb_offset = utcb - tt_utcb(L4_MyGlobalId());     /* UTCB pointer - UTCB location */
	seg_handler_id = h;
	seg_checker_id = c;
	EXPECT(tt_start_local(h, seg_handler), "handler");
	EXPECT(tt_start_space(c, seg_checker), "checker");
	EXPECT(tt_start_space(a0, seg_attack0) && tt_start_space(a1, seg_attack1), "attackers");
	int bad_main = 0;
	for (int i = 0; i < 60000 && !(seg_done[0] && seg_done[1]); i++) {
		L4_Sleep(1000);
		bad_main += !own_view_ok(utcb, sels);
	}
	seg_stop = 1;
	EXPECT(seg_done[0] && seg_done[1], "the attackers did not finish (%lu faults handled)", seg_faults);
	EXPECT(!bad_main && !seg_bad_handler && !seg_bad_checker,
	       "a view changed: root %d, handler %lu, checker %lu (first bad: %lx)",
	       bad_main, seg_bad_handler, seg_bad_checker, seg_bad_value);
	EXPECT(seg_faults > 2 * 0xfff0 && seg_checks > 0, "faults %lu, checks %lu", seg_faults, seg_checks);
	tt_kill(a0);
	tt_kill(a1);
	tt_kill(c);
	tt_kill(h);
}

static volatile L4_Word_t lone_after;

/* Unprivileged, no exception handler: a faulting segment load stops only this thread. */
static void seg_lone(void)
{
	__asm__ __volatile__("movl %k0, %%gs" : : "r"(0xfff8UL) : "memory");
	lone_after = 1;
	tt_park();
}

TEST_CASE("entry.segment_fault_halts", "a faulting segment load without a handler halts only that thread")
{
	lone_after = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, seg_lone), "start");
	L4_Sleep(5000);
	EXPECT(lone_after == 0, "the thread ran past the faulting load");
	EXPECT(L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE, "not halted");
	tt_kill(t);
}

/* ---- `syscall` from 32-bit compatibility mode ---- */

/* 32-bit code: a `syscall` (0f 05), then what a thread would run if it returned. */
__asm__(".pushsection .text\n.code32\ncompat_syscall_code:\n\tsyscall\n1:\tjmp 1b\n.code64\n.popsection");
extern char compat_syscall_code[];
static L4_ThreadId_t compat_handler;

static void compat_syscaller(void)
{
	static struct { unsigned int offset; unsigned short selector; } __attribute__((packed)) far;
	far.offset = (unsigned int)(L4_Word_t)compat_syscall_code;
	far.selector = 0x1b;          /* the 32-bit user code segment (abi.md: sysret's) */
	L4_SetTcr(UTCB_EXC_HANDLER, compat_handler);
	__asm__ __volatile__("ljmpl *%0" : : "m"(far) : "memory");
}

TEST_CASE("entry.compat_syscall", "a syscall from 32-bit code is a #UD for that thread, at the instruction")
{
	compat_handler = L4_MyGlobalId();
	L4_ThreadId_t t = fresh(), from;
	EXPECT((L4_Word_t)compat_syscall_code < 0x100000000UL, "32-bit code above 4 GiB");
	EXPECT(tt_start_space(t, compat_syscaller), "start");
	L4_MsgTag_t tag = L4_Receive_Timeout(t, L4_TimePeriod(1000000), &from);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_U(tag) == 19, "no exception message: %lx (ErrorCode %lx)",
	       tag, L4_ErrorCode());
	EXPECT(L4_MR(19) == 6 && L4_MR(1) == (L4_Word_t)compat_syscall_code,
	       "vector %lu at %lx, expected 6 at %lx", L4_MR(19), L4_MR(1), (L4_Word_t)compat_syscall_code);
	tt_kill(t);
}

/* ---- an exception reply is installed as it was checked ---- */

static volatile L4_Word_t race_resumed, race_evil, race_stop;
static volatile L4_Word_t *race_victim_mrs;

static void race_evil_landing(void)
{
	race_evil++;
	tt_park();
}

static void race_faulter(void)
{
	race_victim_mrs = L4_Utcb();
	for (;;) {
		__asm__ __volatile__("ud2" : : : "memory");
		race_resumed++;
	}
}

/* A second thread of the faulter's space: rewrites its MR1 whenever it runs. */
static void race_rewriter(void)
{
	for (L4_Word_t i = 0; !race_stop; i++) {
		if (race_victim_mrs)
			race_victim_mrs[1] = (i & 1) ? 0x8000000000000000UL : (L4_Word_t)race_evil_landing;
		L4_ThreadSwitch(L4_NILTHREAD);
	}
	tt_park();
}

static L4_ThreadId_t race_handler;

static void race_faulter_start(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, race_handler);
	race_faulter();
}

TEST_CASE("entry.exc_reply_rewritten", "a sibling rewriting the faulter's MR1 after the reply changes nothing")
{
	enum { ROUNDS = 200 };
	race_handler = L4_MyGlobalId();
	race_resumed = race_evil = race_stop = 0;
	race_victim_mrs = 0;
	L4_ThreadId_t f = fresh(), r = fresh();
	EXPECT(tt_start_local(r, race_rewriter), "rewriter");
	EXPECT(tt_start_local(f, race_faulter_start), "faulter");
	int n = 0;
	for (; n < ROUNDS; n++) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Receive_Timeout(f, L4_TimePeriod(200000), &from);
		if (L4_IpcFailed(tag) || L4_MR(19) != 6 || *(unsigned short *)L4_MR(1) != 0x0b0f)
			break;
		L4_SetMR(1, L4_MR(1) + 2);
		L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
		if (L4_IpcFailed(L4_Reply(f)))
			break;
		L4_ThreadSwitch(r);        /* the sibling runs before the faulter resumes */
	}
	race_stop = 1;
	EXPECT(n == ROUNDS, "round %d: no ud2 exception (vector %lu, rip %lx, ErrorCode %lx)",
	       n, L4_MR(19), L4_MR(1), L4_ErrorCode());
	EXPECT(race_evil == 0, "the faulter ran the rewritten RIP");
	EXPECT(race_resumed >= ROUNDS - 1, "resumed %lu times", race_resumed);
	tt_kill(f);
	tt_kill(r);
}

/* ---- one exception message on both paths ---- */

enum { PATTERN = 0x5a00, SEEN = 31 };
#define BAD_SELECTOR 0xfff8UL          /* far beyond the GDT: #GP with the selector as error code */
static volatile L4_Word_t msg_seen[SEEN], msg_rbx, msg_done;
static L4_ThreadId_t msg_handler;

static void msg_faulter(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, msg_handler);
	L4_Word_t *mr = L4_Utcb();
	for (int i = 0; i < SEEN; i++)
		mr[i] = PATTERN + i;
	L4_Word_t rbx = 0x1111;
	__asm__ __volatile__("movl %k1, %%fs" : "+b"(rbx) : "a"(BAD_SELECTOR) : "memory");
	msg_rbx = rbx;
	for (int i = 0; i < SEEN; i++)
		msg_seen[i] = mr[i];
	msg_done = 1;
	L4_SetMR(0, 0);
	L4_Send(msg_handler);         /* ends the handler's Call, if it made one */
	tt_park();
}

/* waiting: the handler waits before the fault (the fastpath where built), else after. */
static void exception_message_path(int waiting)
{
	msg_handler = L4_MyGlobalId();
	msg_done = 0;
	L4_ThreadId_t f = fresh();
	L4_SetMR(19, 0xdead19);
	L4_SetMR(20, 0xdead20);
	EXPECT(tt_start_local(f, msg_faulter), "start");
	if (!waiting)
		L4_Sleep(5000);      /* the faulter sends first and waits in our queue */
	/* no timeout when waiting: a receive with one never takes the fastpath */
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(f, waiting ? L4_TIMEOUT_NEVER : L4_TimePeriod(200000), &from);
	L4_Word_t got[21];
	for (int i = 0; i < 21; i++)
		got[i] = L4_MR(i);
	EXPECT(!L4_IpcFailed(tag) && tag == L4_TAG_MAKE(L4_LABEL_EXCEPTION, 19, 0),
	       "tag %lx (ErrorCode %lx)", tag, L4_ErrorCode());
	EXPECT(got[19] == 13 && got[20] == BAD_SELECTOR, "MR19 %lx MR20 %lx", got[19], got[20]);
	int len = mov_sreg_len((const unsigned char *)got[1]);
	EXPECT(got[2] == 0x1111 && len, "MR1 %lx MR2 %lx", got[1], got[2]);
	L4_SetMR(1, got[1] + len);
	L4_SetMR(2, 0x2222);
	L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
	/* waiting: reply with a Call (the fastpath's reply where built), else a plain reply */
	tag = waiting ? L4_Call(f) : L4_Reply(f);
	EXPECT(!L4_IpcFailed(tag), "reply: %lx", L4_ErrorCode());
	TT_WAIT(msg_done, 1000);
	EXPECT(msg_done && msg_rbx == 0x2222, "resumed %lu, RBX %lx", msg_done, msg_rbx);
	for (int i = 0; i < SEEN; i++) {
		L4_Word_t want = i < 21 ? got[i] : (L4_Word_t)PATTERN + i;
		EXPECT(msg_seen[i] == want, "faulter's MR%d %lx, expected %lx", i, msg_seen[i], want);
	}
	tt_kill(f);
}

TEST_CASE("entry.exc_message_waiting", "handler waiting, reply by Call: MR20 arrives; the faulter's MR0..20 hold the message, the rest kept")
{
	exception_message_path(1);
}

TEST_CASE("entry.exc_message_queued", "faulter queued, plain reply: the same message, MR20 included, and the same faulter MRs")
{
	exception_message_path(0);
}

/* ---- KDB input: never busy-waits, and only for privileged spaces ---- */

static volatile L4_Word_t kdb_reading, kdb_unpriv_result, kdb_unpriv_done, kdb_unpriv_us;

static void kdb_reader(void)
{
	kdb_reading = 1;
	L4_KDB_ReadChar_Blocked();      /* nothing ever arrives on the console */
	kdb_reading = 2;
	tt_park();
}

static void kdb_unprivileged(void)
{
	L4_Word_t t0 = L4_SystemClock();
	kdb_unpriv_result = (L4_Word_t)(long)L4_KDB_ReadChar_Blocked();
	kdb_unpriv_us = L4_SystemClock() - t0;
	kdb_unpriv_done = 1;
	tt_park();
}

TEST_CASE("entry.kdb_read_blocked", "a 10 ms sleep ends while another thread waits in ReadChar_Blocked")
{
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, kdb_reader), "start");
	TT_WAIT(kdb_reading, 1000);
	L4_Sleep(1000);       /* it is in the kernel now */
	L4_Word_t t0 = L4_SystemClock();
	L4_Sleep(10000);
	L4_Word_t slept = L4_SystemClock() - t0;
	EXPECT(kdb_reading == 1, "the reader returned (%lu) without input", kdb_reading);
	EXPECT(slept >= 10000 && slept < 100000, "slept %lu us", slept);
	tt_kill(t);
}

TEST_CASE("entry.kdb_read_unprivileged", "ReadChar_Blocked from an unprivileged space returns -1 at once")
{
	L4_ThreadId_t t = fresh();
	kdb_unpriv_done = 0;
	EXPECT(tt_start_space(t, kdb_unprivileged), "start");
	TT_WAIT(kdb_unpriv_done, 1000);
	EXPECT(kdb_unpriv_done && kdb_unpriv_result == ~0UL, "done %lu result %lx",
	       kdb_unpriv_done, kdb_unpriv_result);
	EXPECT(kdb_unpriv_us < 1000, "ReadChar_Blocked took %lu us", kdb_unpriv_us);
	tt_kill(t);
}

static volatile L4_Word_t print_done;

/* The kernel reads the string without faulting it in: it is built on our (mapped) stack. */
static void kdb_long_print(void)
{
	char line[301], nl[2] = "\n";
	for (int i = 0; i < 300; i++)
		line[i] = i < 9 ? "KDBLIMIT:"[i] : 'x';
	line[300] = 0;
	L4_KDB_PrintString(line);
	L4_KDB_PrintString(nl);
	print_done = 1;
	tt_park();
}

TEST_CASE("entry.kdb_print_unprivileged", "an unprivileged PrintString prints at most 256 bytes (test_entry.py counts them)")
{
	print_done = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, kdb_long_print), "start");
	TT_WAIT(print_done, 1000);
	EXPECT(print_done, "the thread did not print");
	tt_kill(t);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
