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

/* ---- a reply that sets every register, fast and slow, with hostile flags ---- */

/*
 * The faulter's registers after each of its two ud2s, MR-indexed (2..17 the
 * registers of MR2..MR17, 18 the flags); the asm below names it.
 */
L4_Word_t exc_regs_out[2][21];
static L4_Word_t exc_stack[2][512] __attribute__((aligned(16)));
static L4_ThreadId_t regs_handler;
static volatile L4_Word_t regs_done, regs_fast_before;
#define REGS_K(i) (0x1000UL + (i))           /* the registers at the first ud2 */
/* IOPL 3, TF, NT, RF, VM, AC clear IF: iretq with NT set or TF would fault or trap */
#define HOSTILE_FLAGS 0x73100UL
#define USER_FLAGS 0x8d5UL

static L4_Word_t reply_value(int round, int i)
{
	if (i == 17)
		return (L4_Word_t)&exc_stack[round][512];
	return 0x7e00000000000000UL + ((L4_Word_t)round << 32) + i;
}

void exc_regs_finish(void) __attribute__((noreturn));
void exc_regs_finish(void)
{
	regs_done = 1;
	L4_SetMR(0, 0);
	L4_Send(regs_handler);       /* ends the handler's Call, if it made one */
	tt_park();
	for (;;)
		;
}

#define ST(reg, i, r) "mov %" #reg ", exc_regs_out+" #r "*168+" #i "*8(%rip)\n\t"
#define STORE_ROUND(r) ST(rbx, 2, r) ST(r10, 3, r) ST(r12, 4, r) ST(r13, 5, r) ST(r14, 6, r) \
	ST(r15, 7, r) ST(rax, 8, r) ST(rcx, 9, r) ST(rdx, 10, r) ST(rsi, 11, r) ST(rdi, 12, r) \
	ST(rbp, 13, r) ST(r8, 14, r) ST(r9, 15, r) ST(r11, 16, r) ST(rsp, 17, r) \
	"pushfq\n\tpopq exc_regs_out+" #r "*168+18*8(%rip)\n\t"

/* Two ud2s; every register is the reply's after each (the second runs on exc_stack[0]). */
static void regs_faulter(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, regs_handler);
	L4_Receive(regs_handler);              /* go */
	regs_fast_before = pecan_counter(PECAN_CTR_fastpath_ipcs);
	__asm__ __volatile__(
		"mov $0x1002, %rbx; mov $0x1003, %r10; mov $0x1004, %r12; mov $0x1005, %r13\n\t"
		"mov $0x1006, %r14; mov $0x1007, %r15; mov $0x1008, %rax; mov $0x1009, %rcx\n\t"
		"mov $0x100a, %rdx; mov $0x100b, %rsi; mov $0x100c, %rdi; mov $0x100d, %rbp\n\t"
		"mov $0x100e, %r8; mov $0x100f, %r9; mov $0x1010, %r11\n\t"
		"ud2\n\t" STORE_ROUND(0)
		"ud2\n\t" STORE_ROUND(1)
		"call exc_regs_finish");
	__builtin_unreachable();
}

/* Check message `round` (MR1..MR20 as received) against what the faulter had. */
static void check_regs_message(int round, const L4_Word_t *mr)
{
	EXPECT(*(const unsigned short *)mr[1] == 0x0b0f && mr[19] == 6 && mr[20] == 0,
	       "round %d: MR1 %lx MR19 %lx MR20 %lx", round, mr[1], mr[19], mr[20]);
	for (int i = 2; i <= 17; i++) {
		L4_Word_t want = round ? reply_value(0, i) : REGS_K(i);
		EXPECT((round == 0 && i == 17) || mr[i] == want, "round %d: MR%d %lx, the faulter had %lx",
		       round, i, mr[i], want);
	}
	EXPECT(round == 0 || mr[18] == exc_regs_out[0][18], "round 1: MR18 %lx, the faulter had %lx",
	       mr[18], exc_regs_out[0][18]);
}

/* The reply for round: every register changed, RIP past the ud2, hostile flags. */
static void set_regs_reply(int round, const L4_Word_t *mr)
{
	L4_SetMR(1, mr[1] + 2);
	for (int i = 2; i <= 17; i++)
		L4_SetMR(i, reply_value(round, i));
	L4_SetMR(18, HOSTILE_FLAGS | (round ? 0x41 : 0x884));   /* CF ZF, or PF SF OF */
	L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
}

/* The message that ended an Ipc (tag) in mr. */
static void take_regs_message(int round, L4_MsgTag_t tag, L4_Word_t *mr)
{
	EXPECT(!L4_IpcFailed(tag) && tag == L4_TAG_MAKE(L4_LABEL_EXCEPTION, 19, 0),
	       "round %d: tag %lx (ErrorCode %lx)", round, tag, L4_ErrorCode());
	for (int i = 0; i <= 20; i++)
		mr[i] = L4_MR(i);
}

/* The faulter sends first and waits in our queue: the slowpath's delivery. */
static void receive_regs_message(int round, L4_ThreadId_t f, L4_Word_t *mr)
{
	L4_ThreadId_t from;
	L4_Sleep(5000);
	take_regs_message(round, L4_Receive_Timeout(f, L4_TimePeriod(200000), &from), mr);
}

/*
 * fast: the go by Call, so that we wait for the faulter when it faults (the
 * exception fastpath), reply 0 by ReplyWait (the reply fastpath; we wait
 * again for the second fault), reply 1 by Call: four fastpath IPCs from the
 * faulter's first fault on, where the fastpath is built (counted on DS/LQ).
 * Slow: queued faults and plain replies, none.
 */
static void exception_reply_registers(int fast)
{
	regs_handler = L4_MyGlobalId();
	regs_done = 0;
	L4_ThreadId_t f = fresh(), from;
	L4_Word_t mr[21];
	EXPECT(tt_start_space(f, regs_faulter), "start");
	L4_SetMR(0, 0);
	if (fast) {
		take_regs_message(0, L4_Call(f), mr);
	} else {
		EXPECT(!L4_IpcFailed(L4_Send(f)), "go: ErrorCode %lx", L4_ErrorCode());
		receive_regs_message(0, f, mr);
	}
	check_regs_message(0, mr);
	set_regs_reply(0, mr);
	if (fast) {
		take_regs_message(1, L4_ReplyWait(f, &from), mr);
		EXPECT(from == f, "message 1 from %lx", from);
	} else {
		EXPECT(!L4_IpcFailed(L4_Reply(f)), "reply 0: ErrorCode %lx", L4_ErrorCode());
		receive_regs_message(1, f, mr);
	}
	check_regs_message(1, mr);
	set_regs_reply(1, mr);
	EXPECT(!L4_IpcFailed(fast ? L4_Call(f) : L4_Reply(f)), "reply 1: ErrorCode %lx", L4_ErrorCode());
	TT_WAIT(regs_done, 1000);
	L4_Word_t fastd = pecan_counter(PECAN_CTR_fastpath_ipcs) - regs_fast_before;
	EXPECT(regs_done, "the faulter did not finish");
	for (int r = 0; r < 2; r++) {
		for (int i = 2; i <= 17; i++)
			EXPECT(exc_regs_out[r][i] == reply_value(r, i), "reply %d: register of MR%d %lx, replied %lx",
			       r, i, exc_regs_out[r][i], reply_value(r, i));
		L4_Word_t fl = exc_regs_out[r][18], want = r ? 0x41 : 0x884;
		EXPECT((fl & USER_FLAGS) == want && (fl & 0x200) && !(fl & HOSTILE_FLAGS),
		       "reply %d: flags %lx", r, fl);
	}
	L4_Word_t build = *(volatile L4_Word_t *)PECAN_BUILD_ADDR, v = *(volatile L4_Word_t *)PECAN_VARIANT_ADDR;
	int one_cpu = (((const L4_Word_t *)__L4_KIP)[KIP_OFF_PROC_INFO / 8] & 0xffff) == 0;
	/* DS/LQ: the fastpaths ask nothing of the priorities (eager queueing would want equal ones) */
	int counted = (build & 2) && one_cpu && v == PECAN_VARIANT_DSLQ;
	EXPECT(!counted || fastd == (fast && (build & 1) ? 4 : 0), "fastpath IPCs %lu", fastd);
	tt_kill(f);
}

TEST_CASE("entry.exc_reply_registers_fast", "every register of a fastpath reply is installed, flags only the user's (IOPL, NT, TF, VM stay clear)")
{
	exception_reply_registers(1);
}

TEST_CASE("entry.exc_reply_registers_slow", "the same on the slowpath: queued faults, plain replies")
{
	exception_reply_registers(0);
}

static volatile L4_Word_t bad_rip_after;

static void bad_rip_faulter(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, regs_handler);
	L4_Receive(regs_handler);              /* go */
	__asm__ __volatile__("ud2");
	bad_rip_after = 1;
	tt_park();
}

TEST_CASE("entry.exc_reply_bad_rip_fast", "a non-canonical RIP in a reply the fastpath would take fails it (overflow) and halts the faulter")
{
	regs_handler = L4_MyGlobalId();
	bad_rip_after = 0;
	L4_ThreadId_t f = fresh(), from;
	L4_Word_t mr[21];
	EXPECT(tt_start_space(f, bad_rip_faulter), "start");
	L4_SetMR(0, 0);
	take_regs_message(0, L4_Call(f), mr);
	L4_SetMR(1, 0x0000800000000000UL);
	L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
	L4_MsgTag_t tag = L4_ReplyWait(f, &from);
	EXPECT(L4_IpcFailed(tag) && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_OVERFLOW, "reply: tag %lx ErrorCode %lx",
	       tag, L4_ErrorCode());
	L4_Sleep(2000);
	EXPECT(bad_rip_after == 0 && L4_Schedule(f, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE,
	       "the faulter ran on or was not halted");
	tt_kill(f);
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
