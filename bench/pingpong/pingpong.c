// SPDX-License-Identifier: MIT
// Ping-pong IPC benchmark, measured as Pistachio's pingpong measures: ping does
// 1000 Calls to pong, pong answers each with a Call to ping; rdtsc over the loop / 2000
// is one one-way IPC.  Under QEMU icount rdtsc counts guest instructions.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/fmt/fmt.h"
#include "../../lib/test/tthread.h"
#include "../../lib/c/string.h"
#include "ppcall.h"

#define ROUNDS   1000
#define MAXSTR   65536

static volatile L4_ThreadId_t ping_id, pong_id, main_id;
static volatile L4_Word_t words, strbytes, result, lipc;
static unsigned char sbuf[2][MAXSTR] __attribute__((aligned(4096)));
static unsigned char rbuf[2][MAXSTR] __attribute__((aligned(4096)));

static inline L4_Word_t rdtsc(void)
{
	unsigned lo, hi;
	/* rex.W rdtsc: the cost model's stamp (tools/costmodel); no extra instruction */
	__asm__ __volatile__(".byte 0x48, 0x0f, 0x31" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

/* The string message for this round: one string item each way. */
static void load_strings(int side)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(strbytes, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)rbuf[side]);
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(strbytes, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)sbuf[side]);
}

/* Touch both buffers so no page fault happens during the measured copies. */
static void touch(int side)
{
	for (L4_Word_t i = 0; i < MAXSTR; i += 4096) {
		sbuf[side][i] = 1;
		rbuf[side][i] = 1;
	}
}

/* The partner as this round names it: by global ID, or by local ID for Lipc. */
static L4_ThreadId_t partner(L4_ThreadId_t t)
{
	struct L4_ExRegs r = { 0 };
	return lipc ? pecan_exregs(t, &r) : t;     /* control 0: only translates the ID */
}

/*
 * Pong takes each round's first Call with a receive, then answers every
 * Call with a Call until ping's label-1 message ends the round.
 */
static void pong(void)
{
	touch(1);
	for (;;) {
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(MAXSTR, 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)rbuf[1]);
		L4_Receive(ping_id);
		if (strbytes) {
			do
				load_strings(1);
			while (L4_TAG_LABEL(L4_Call(ping_id)) != 1);
			continue;
		}
		L4_Word_t *utcb = L4_Utcb();
		L4_Word_t stub = lipc ? __L4_Lipc : __L4_Ipc, tag = L4_TAG_MAKE(0, words, 0);
		L4_ThreadId_t to = partner(ping_id);
		while (L4_TAG_LABEL(pp_call(stub, to, tag, utcb)) != 1)
			;
	}
}

/* One round: a warm-up Call, then `rounds` timed Calls. */
static L4_Word_t ping_round(L4_Word_t rounds)
{
	L4_Word_t t0, t1;
	if (strbytes) {
		load_strings(0);
		L4_Call(pong_id);
		t0 = rdtsc();
		for (L4_Word_t i = 0; i < rounds; i++) {
			load_strings(0);
			L4_Call(pong_id);
		}
		t1 = rdtsc();
	} else {
		L4_Word_t *utcb = L4_Utcb();
		L4_Word_t stub = lipc ? __L4_Lipc : __L4_Ipc, tag = L4_TAG_MAKE(0, words, 0);
		L4_ThreadId_t to = partner(pong_id);
		pp_call(stub, to, tag, utcb);
		t0 = rdtsc();
		for (L4_Word_t i = 0; i < rounds; i++)
			pp_call(stub, to, tag, utcb);
		t1 = rdtsc();
	}
	return (t1 - t0) * 10 / (2 * rounds);   /* tenths of an instruction */
}

static void ping(void)
{
	touch(0);
	for (;;) {
		L4_Receive(main_id);       /* main says: run one round with words/strbytes/lipc */
		result = ping_round(strbytes >= 4096 ? ROUNDS / 10 : ROUNDS);
		L4_SetMR(0, L4_TAG_MAKE(1, 0, 0));
		L4_Send(pong_id);          /* pong goes back to waiting for the next round */
		L4_SetMR(0, 0);
		L4_Send(main_id);
	}
}

static const char *variant_name(void)
{
	switch (*(volatile L4_Word_t *)PECAN_VARIANT_ADDR) {
	case PECAN_VARIANT_DSLQ: return "dslq";
	case PECAN_VARIANT_DSEQ: return "dseq";
	case PECAN_VARIANT_FSLQ: return "fslq";
	case PECAN_VARIANT_FSEQ: return "fseq";
	case PECAN_VARIANT_BENNO: return "benno";
	default: return "unknown";
	}
}

static void run_round(L4_Word_t w, L4_Word_t bytes, L4_Word_t local)
{
	words = w;
	strbytes = bytes;
	lipc = local;
	L4_SetMR(0, 0);
	L4_Send(ping_id);
	L4_Receive(ping_id);
}

static void print(const char *name, const char *param, L4_Word_t v, const char *space)
{
	const char *fast = (*(volatile L4_Word_t *)PECAN_BUILD_ADDR & 1) ? "on" : "off";
	/* the cost model's group mark (a multi-byte NOP): the round's window is this figure */
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4d, 0x4f, 0x44, 0x4c" ::: "memory");
	printf("RESULT name=%s %s space=%s variant=%s fastpath=%s value=%lu.%lu unit=instructions method=icount\n",
	       name, param, space, variant_name(), fast, v / 10, v % 10);
}

static const char *const counter_names[] = {
#define NAME(i, n) #n,
	PECAN_COUNTER_TABLE(NAME)
#undef NAME
};

static void series(const char *space)
{
	char p[32];
	L4_Word_t c0[PECAN_NUM_COUNTERS];
	for (int i = 0; i < PECAN_NUM_COUNTERS; i++)
		c0[i] = pecan_counter(i);
	for (L4_Word_t w = 0; w < 64; w++) {
		run_round(w, 0, 0);
		snfmt(p, sizeof(p), "words=%lu", w);
		print("ipc.oneway", p, result, space);
		if (w == 0 && (*(volatile L4_Word_t *)PECAN_BUILD_ADDR & 2))
			for (int i = 0; i < PECAN_NUM_COUNTERS; i++)
				printf("RESULT name=sched.counter variant=%s space=%s counter=%s value=%lu unit=count method=icount\n",
				       variant_name(), space, counter_names[i], pecan_counter(i) - c0[i]);
	}
	for (L4_Word_t w = 0; w < 64 && !strcmp(space, "intra"); w++) {
		run_round(w, 0, 1);
		snfmt(p, sizeof(p), "words=%lu", w);
		print("ipc.oneway.lipc", p, result, space);
	}
	for (L4_Word_t b = 4; b <= MAXSTR; b *= 4) {
		run_round(0, b, 0);
		snfmt(p, sizeof(p), "bytes=%lu", b);
		print("ipc.string", p, result, space);
	}
}

static void setup(int inter)
{
	ping_id = tt_id(inter ? 0 : 2, 1);
	pong_id = tt_id(inter ? 1 : 3, 1);
	if (inter) {
		tt_start_space(ping_id, ping);
		tt_start_space(pong_id, pong);
	} else {
		/* both in one new space: pong joins ping's space */
		L4_ThreadId_t me = L4_MyGlobalId();
		tt_start_space(ping_id, ping);
		L4_ThreadControl(pong_id, ping_id, me, me, tt_utcb(pong_id));
		tt_send_start(pong_id, pong, tt_stack());
		L4_ThreadControl(pong_id, ping_id, L4_NILTHREAD, tt_pager(), ~0UL);
	}
}

int main(void)
{
	main_id = L4_MyGlobalId();
	printf("pingpong: one-way IPC, %d round trips per figure, rdtsc / 2000\n", ROUNDS);
	setup(1);
	series("inter");
	tt_kill(ping_id);
	tt_kill(pong_id);
	setup(0);
	series("intra");
	printf("pingpong: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
