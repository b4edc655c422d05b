// SPDX-License-Identifier: MIT
// String IPC (long IPC): simple, substrings, compound, scatter/gather, error offsets.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/c/string.h"

#define BUF 256

static unsigned char src[2][BUF], dst[2][BUF] __attribute__((aligned(64)));
static volatile L4_Word_t rx_tag, rx_err;
static volatile int rx_done;
static volatile L4_Word_t rx_mr[8];      /* the receiver's MR0..MR7 */
static int slot;

/* Receive-buffer layout the receiver installs before waiting (set by each test). */
static L4_Word_t rx_brs[8];
static int rx_nbrs;

static void receiver(void)
{
	for (;;) {
		for (int i = 0; i < rx_nbrs; i++)
			L4_SetBR(i, rx_brs[i]);
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Wait(&from);
		rx_tag = tag;
		for (int i = 0; i < 8; i++)
			rx_mr[i] = L4_MR(i);
		rx_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
		rx_done = 1;
	}
}

static L4_ThreadId_t rx;

static void setup(int inter)
{
	for (int b = 0; b < 2; b++)
		for (int i = 0; i < BUF; i++) {
			src[b][i] = (unsigned char)(i + 1 + 100 * b);
			dst[b][i] = 0xff;
		}
	rx_done = 0;
	if (!rx) {
		rx = tt_id(slot++, 1);
		if (inter)
			tt_start_space(rx, receiver);
		else
			tt_start_local(rx, receiver);
	}
}

static void teardown(void)
{
	tt_kill(rx);
	rx = 0;
}

/* Send with typed words w[0..t-1]; returns the sender's ErrorCode (0 = ok). */
static L4_Word_t send_items(const L4_Word_t *w, int t)
{
	rx_done = 0;
	L4_SetMR(0, L4_TAG_MAKE(0x77, 0, t));
	for (int i = 0; i < t; i++)
		L4_SetMR(1 + i, w[i]);
	L4_MsgTag_t tag = L4_Send(rx);
	L4_Word_t err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	TT_WAIT(rx_done, 200);     /* let the receiver record the result */
	return err;
}

/* Make the waiting receiver install rx_brs anew (an empty message wakes it). */
static void rx_reload(void)
{
	L4_SetMR(0, 0);
	L4_Send(rx);
	L4_Sleep(1000);
}

static int bytes_ok(int b, int from, int to, int base)
{
	for (int i = from; i < to; i++)
		if (dst[b][i] != (unsigned char)(base + i))
			return 0;
	return 1;
}

static int bytes_untouched(int b, int from)
{
	for (int i = from; i < BUF; i++)
		if (dst[b][i] != 0xff)
			return 0;
	return 1;
}

/* The receiver accepts strings into one buffer of len bytes at dst[0]. */
static void one_buffer(L4_Word_t len)
{
	rx_brs[0] = L4_ACCEPT_STRINGS;
	rx_brs[1] = L4_STRING_MAKE(len, 1, 0, 0);
	rx_brs[2] = (L4_Word_t)dst[0];
	rx_nbrs = 3;
	L4_Sleep(1000);      /* let the receiver (re)install its buffers */
}

static void simple(int inter)
{
	setup(inter);
	one_buffer(BUF);
	L4_Word_t w[] = { L4_STRING_MAKE(BUF, 1, 0, 0), (L4_Word_t)src[0] };
	L4_Word_t err = send_items(w, 2);
	EXPECT(!err && rx_done && !rx_err, "send %lx receive %lx", err, rx_err);
	EXPECT(L4_TAG_T(rx_tag) == 2 && L4_TAG_LABEL(rx_tag) == 0x77, "tag %lx", rx_tag);
	EXPECT(bytes_ok(0, 0, BUF, 1), "data differ");
	teardown();
}

TEST_CASE("string.simple_intra", "one 256-byte string within a space")
{
	simple(0);
}

TEST_CASE("string.simple_inter", "one 256-byte string between spaces")
{
	simple(1);
}

TEST_CASE("string.gather_scatter", "4 send substrings of 64 gathered into 2 receive substrings of 128")
{
	setup(0);
	rx_brs[0] = L4_ACCEPT_STRINGS;
	rx_brs[1] = L4_STRING_MAKE(128, 2, 0, 0);
	rx_brs[2] = (L4_Word_t)dst[0];
	rx_brs[3] = (L4_Word_t)dst[1];
	rx_nbrs = 4;
	L4_Sleep(1000);
	L4_Word_t w[] = { L4_STRING_MAKE(64, 4, 0, 0), (L4_Word_t)src[0], (L4_Word_t)src[0] + 64,
			  (L4_Word_t)src[0] + 128, (L4_Word_t)src[0] + 192 };
	L4_Word_t err = send_items(w, 5);
	EXPECT(!err && !rx_err, "send %lx receive %lx", err, rx_err);
	EXPECT(bytes_ok(0, 0, 128, 1), "first receive substring differs");
	for (int i = 0; i < 128; i++)
		EXPECT(dst[1][i] == (unsigned char)(129 + i), "second substring byte %d: %x", i, dst[1][i]);
	teardown();
}

TEST_CASE("string.compound", "a compound send string (two items chained by c) into one buffer")
{
	setup(0);
	one_buffer(BUF);
	L4_Word_t w[] = { L4_STRING_MAKE(100, 1, 1, 0), (L4_Word_t)src[0],
			  L4_STRING_MAKE(156, 1, 0, 0), (L4_Word_t)src[0] + 100 };
	L4_Word_t err = send_items(w, 4);
	EXPECT(!err && !rx_err, "send %lx receive %lx", err, rx_err);
	EXPECT(bytes_ok(0, 0, BUF, 1), "data differ");
	teardown();
}

TEST_CASE("string.two_strings", "two strings go into two receive buffers (C bit on the first)")
{
	setup(0);
	rx_brs[0] = L4_ACCEPT_STRINGS;
	rx_brs[1] = L4_STRING_MAKE(BUF, 1, 0, 1);
	rx_brs[2] = (L4_Word_t)dst[0];
	rx_brs[3] = L4_STRING_MAKE(BUF, 1, 0, 0);
	rx_brs[4] = (L4_Word_t)dst[1];
	rx_nbrs = 5;
	L4_Sleep(1000);
	L4_Word_t w[] = { L4_STRING_MAKE(10, 1, 0, 0), (L4_Word_t)src[0],
			  L4_STRING_MAKE(20, 1, 0, 0), (L4_Word_t)src[1] };
	L4_Word_t err = send_items(w, 4);
	EXPECT(!err && !rx_err, "send %lx receive %lx", err, rx_err);
	EXPECT(bytes_ok(0, 0, 10, 1) && bytes_untouched(0, 10), "first buffer wrong");
	EXPECT(bytes_ok(1, 0, 20, 101) && bytes_untouched(1, 20), "second buffer wrong");
	teardown();
}

/* Expect message overflow at `off` bytes on both sides. */
static int overflow_at(L4_Word_t serr, L4_Word_t off)
{
	return serr == ((off << 4) | L4_IPC_OVERFLOW) &&
	       rx_err == ((off << 4) | L4_IPC_OVERFLOW | L4_IPC_PHASE_RECV);
}

TEST_CASE("string.no_buffer", "a string to a receiver that accepts none: overflow at offset 0")
{
	setup(0);
	rx_brs[0] = 0;
	rx_nbrs = 1;
	L4_Sleep(1000);
	L4_Word_t w[] = { L4_STRING_MAKE(BUF, 1, 0, 0), (L4_Word_t)src[0] };
	L4_Word_t err = send_items(w, 2);
	EXPECT(overflow_at(err, 0), "send %lx receive %lx", err, rx_err);
	EXPECT(bytes_untouched(0, 0), "bytes were written");
	teardown();
}

TEST_CASE("string.too_short", "256 bytes into a 252-byte buffer: overflow at 252, nothing beyond")
{
	setup(0);
	one_buffer(252);
	L4_Word_t w[] = { L4_STRING_MAKE(BUF, 1, 0, 0), (L4_Word_t)src[0] };
	L4_Word_t err = send_items(w, 2);
	EXPECT(overflow_at(err, 252), "send %lx receive %lx", err, rx_err);
	EXPECT(bytes_ok(0, 0, 252, 1) && bytes_untouched(0, 252), "buffer contents wrong");
	teardown();
}

TEST_CASE("string.missing_buffer", "two strings, one buffer: overflow at 128")
{
	setup(0);
	one_buffer(BUF);
	L4_Word_t w[] = { L4_STRING_MAKE(128, 1, 0, 0), (L4_Word_t)src[0],
			  L4_STRING_MAKE(128, 1, 0, 0), (L4_Word_t)src[1] };
	L4_Word_t err = send_items(w, 4);
	EXPECT(overflow_at(err, 128), "send %lx receive %lx", err, rx_err);
	teardown();
}

TEST_CASE("string.bad_memory", "with zero xfer timeouts, strings from unmapped or kernel memory and into kernel memory fail; nothing breaks")
{
	setup(0);
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_ZERO));
	one_buffer(BUF);
	L4_Word_t w[] = { L4_STRING_MAKE(64, 1, 0, 0), 0x7f0000000000UL };
	L4_Word_t err = send_items(w, 2);
	EXPECT(err == L4_IPC_XFER_TO_OWN && rx_err == (L4_IPC_XFER_TO_PARTNER | L4_IPC_PHASE_RECV),
	       "unmapped source: send %lx receive %lx", err, rx_err);
	L4_Word_t k[] = { L4_STRING_MAKE(64, 1, 0, 0), 0xffffffff80100000UL };
	err = send_items(k, 2);
	EXPECT(L4_IPC_CODE(err) == L4_IPC_XFER_TO_OWN && (err >> 4) == 0, "kernel source: %lx", err);
	rx_brs[2] = 0xffff800000001000UL;    /* the receiver names kernel memory as its buffer */
	rx_reload();
	L4_Word_t ok[] = { L4_STRING_MAKE(64, 1, 0, 0), (L4_Word_t)src[0] };
	err = send_items(ok, 2);
	EXPECT(L4_IPC_CODE(err) == L4_IPC_XFER_TO_OWN, "kernel destination: %lx", err);
	rx_brs[2] = (L4_Word_t)dst[0];
	rx_reload();
	err = send_items(ok, 2);
	L4_SetTcr(UTCB_XFER_TIMEOUTS, 0);
	EXPECT(!err && bytes_ok(0, 0, 64, 1), "a good string afterwards: %lx", err);
	teardown();
}

/*
 * Strings within one page on each side, both pages present: the kernel's
 * short string path (ipc_short_string).  Each case also has a twin one
 * byte or one condition away that the general path takes; both must give
 * what X.2 says.
 */
#define PG 4096
static unsigned char pg_src[2 * PG] __attribute__((aligned(PG)));
static unsigned char pg_dst[2 * PG] __attribute__((aligned(PG)));

static void pages_reset(void)
{
	for (int i = 0; i < 2 * PG; i++) {
		pg_src[i] = (unsigned char)(i * 7 + 3);
		pg_dst[i] = 0xff;
	}
}

/* pg_dst holds pg_src[from..from+n) at `at` and 0xff everywhere else. */
static int pg_exact(int at, int from, int n)
{
	for (int i = 0; i < 2 * PG; i++) {
		unsigned char want = i >= at && i < at + n ? pg_src[from + i - at] : 0xff;
		if (pg_dst[i] != want)
			return 0;
	}
	return 1;
}

/* The receiver accepts one buffer of len bytes at pg_dst + at. */
static void pg_buffer(int at, L4_Word_t len)
{
	rx_brs[0] = L4_ACCEPT_STRINGS;
	rx_brs[1] = L4_STRING_MAKE(len, 1, 0, 0);
	rx_brs[2] = (L4_Word_t)(pg_dst + at);
	rx_nbrs = 3;
	rx_reload();
}

/* Three untyped words, then a string of n bytes from pg_src + from; the sender's ErrorCode. */
static L4_Word_t pg_send(int from, L4_Word_t n)
{
	rx_done = 0;
	L4_SetMR(0, L4_TAG_MAKE(0x78, 3, 2));
	L4_SetMR(1, 0x1111);
	L4_SetMR(2, 0x2222);
	L4_SetMR(3, 0x3333);
	L4_SetMR(4, L4_STRING_MAKE(n, 1, 0, 0));
	L4_SetMR(5, (L4_Word_t)(pg_src + from));
	L4_MsgTag_t tag = L4_Send(rx);
	L4_Word_t err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	TT_WAIT(rx_done, 200);
	return err;
}

/* The message arrived whole: tag, the three words, the string item as sent. */
static int pg_words_ok(int from, L4_Word_t n)
{
	return L4_TAG_LABEL(rx_tag) == 0x78 && L4_TAG_U(rx_tag) == 3 && L4_TAG_T(rx_tag) == 2 &&
	       rx_mr[1] == 0x1111 && rx_mr[2] == 0x2222 && rx_mr[3] == 0x3333 &&
	       rx_mr[4] == L4_STRING_MAKE(n, 1, 0, 0) && rx_mr[5] == (L4_Word_t)(pg_src + from);
}

TEST_CASE("string.page_end", "strings ending exactly at a page end on both sides arrive whole with the words before them; one byte more crosses the page and arrives as well")
{
	setup(0);
	pages_reset();
	pg_buffer(PG - 16, 16);
	L4_Word_t err = pg_send(PG - 16, 16);
	EXPECT(!err && rx_done && !rx_err, "16 bytes: send %lx receive %lx", err, rx_err);
	EXPECT(pg_words_ok(PG - 16, 16), "16 bytes: tag %lx MR4 %lx MR5 %lx", rx_tag, rx_mr[4], rx_mr[5]);
	EXPECT(pg_exact(PG - 16, PG - 16, 16), "16 bytes: buffer contents wrong");
	pages_reset();
	pg_buffer(PG - 16, 17);
	err = pg_send(PG - 16, 17);
	EXPECT(!err && rx_done && !rx_err, "17 bytes: send %lx receive %lx", err, rx_err);
	EXPECT(pg_words_ok(PG - 16, 17), "17 bytes: tag %lx", rx_tag);
	EXPECT(pg_exact(PG - 16, PG - 16, 17), "17 bytes: buffer contents wrong");
	pages_reset();
	pg_buffer(PG - 8, 64);                 /* only the receive side crosses */
	err = pg_send(100, 64);
	EXPECT(!err && rx_done && !rx_err && pg_exact(PG - 8, 100, 64), "receive side crosses: %lx %lx", err, rx_err);
	pages_reset();
	pg_buffer(0, PG);                      /* a whole page into a whole page */
	err = pg_send(PG, PG);
	EXPECT(!err && rx_done && !rx_err && pg_exact(0, PG, PG), "a whole page: %lx %lx", err, rx_err);
	teardown();
}

TEST_CASE("string.short_overflow", "within one page, 16 bytes into a 12-byte buffer: overflow at 12 for both sides, nothing beyond; no buffer accepted: overflow at 0")
{
	setup(0);
	pages_reset();
	pg_buffer(64, 12);
	L4_Word_t err = pg_send(200, 16);
	EXPECT(overflow_at(err, 12), "send %lx receive %lx", err, rx_err);
	EXPECT(pg_exact(64, 200, 12), "buffer contents wrong");
	pages_reset();
	rx_brs[0] = 0;                         /* the buffer stays, strings are not accepted */
	rx_reload();
	err = pg_send(200, 16);
	EXPECT(overflow_at(err, 0), "not accepted: send %lx receive %lx", err, rx_err);
	EXPECT(pg_exact(0, 0, 0), "not accepted: bytes were written");
	teardown();
}

TEST_CASE("string.zero_length", "an empty string within one page: delivered, no byte written")
{
	setup(0);
	pages_reset();
	pg_buffer(64, 16);
	L4_Word_t err = pg_send(200, 0);
	EXPECT(!err && rx_done && !rx_err && pg_words_ok(200, 0), "send %lx receive %lx tag %lx", err, rx_err, rx_tag);
	EXPECT(pg_exact(0, 0, 0), "bytes were written");
	teardown();
}

/*
 * Calls and replies that carry one short string each: where the kernel has
 * the fastpath (DS variants, fastpath built), it takes them both ways.
 * The client's strings come from page 0's end into page 1 of pg_dst, the
 * server's from page 1's end into the end of page 0.
 */
static volatile L4_Word_t echo_bad;      /* calls whose string or words the server found wrong */

static void echo_server(void)
{
	L4_ThreadId_t from;
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(PG, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)(pg_dst + PG));
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_Word_t n = L4_STRING_LEN(L4_MR(1));
		if (L4_IpcFailed(tag) || L4_TAG_LABEL(tag) != 0x7a || L4_TAG_T(tag) != 2 ||
		    L4_MR(2) != (L4_Word_t)(pg_src + PG - n) || memcmp(pg_dst + PG, pg_src + PG - n, n))
			echo_bad++;
		L4_SetMR(0, L4_TAG_MAKE(0x7b, 0, 2));
		L4_SetMR(1, L4_STRING_MAKE(n, 1, 0, 0));
		L4_SetMR(2, (L4_Word_t)(pg_src + 2 * PG - n));
		tag = L4_ReplyWait(from, &from);
	}
}

TEST_CASE("string.fastpath_call", "short strings both ways in Call and ReplyWait arrive whole, through the fastpath where the kernel has one")
{
	pages_reset();
	echo_bad = 0;
	L4_ThreadId_t srv = tt_id(slot++, 1);
	EXPECT(tt_start_local(srv, echo_server), "start");
	L4_Set_Priority(srv, 255);
	L4_Word_t before = 0, ipcs = 0;
	int bad = 0;
	for (L4_Word_t n = 0; n <= 64; n++) {   /* n = 0: a warm-up Call of 1 byte, not counted */
		if (n == 1) {
			before = pecan_counter(PECAN_CTR_fastpath_ipcs);
			ipcs = pecan_counter(PECAN_CTR_ipcs);
		}
		L4_Word_t len = n ? n : 1;
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(64, 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)(pg_dst + PG - len));
		L4_SetMR(0, L4_TAG_MAKE(0x7a, 0, 2));
		L4_SetMR(1, L4_STRING_MAKE(len, 1, 0, 0));
		L4_SetMR(2, (L4_Word_t)(pg_src + PG - len));
		L4_MsgTag_t tag = L4_Call(srv);
		if (L4_IpcFailed(tag) || L4_TAG_LABEL(tag) != 0x7b || L4_TAG_T(tag) != 2 ||
		    L4_MR(1) != L4_STRING_MAKE(len, 1, 0, 0) || L4_MR(2) != (L4_Word_t)(pg_src + 2 * PG - len) ||
		    memcmp(pg_dst + PG - len, pg_src + 2 * PG - len, len))
			bad++;
	}
	L4_Word_t fastd = pecan_counter(PECAN_CTR_fastpath_ipcs) - before;
	L4_Word_t v = *(volatile L4_Word_t *)PECAN_VARIANT_ADDR, build = *(volatile L4_Word_t *)PECAN_BUILD_ADDR;
	EXPECT(!bad && !echo_bad, "%d replies and %lu calls arrived wrong", bad, echo_bad);
	EXPECT(pg_dst[PG - 65] == 0xff && pg_dst[PG + 64] == 0xff, "bytes beyond the buffers written");
	EXPECT(build & 2, "kernel built without counters");
	EXPECT(pecan_counter(PECAN_CTR_ipcs) - ipcs == 128, "ipcs %lu", pecan_counter(PECAN_CTR_ipcs) - ipcs);
	int fast = (build & 1) && v != PECAN_VARIANT_FSLQ && v != PECAN_VARIANT_FSEQ;
	EXPECT(fast ? fastd == 128 : fastd == 0, "fastpath IPCs %lu of 128", fastd);
	tt_kill(srv);
}

/* Pages of ours that the threads in other spaces have not touched yet. */
static unsigned char fresh_dst[2 * 4096] __attribute__((aligned(4096)));
static unsigned char fresh_src[2 * 4096] __attribute__((aligned(4096)));

TEST_CASE("string.receiver_pagefault", "a receive buffer not yet mapped: the receiver's pager maps it and the copy completes")
{
	setup(1);
	L4_Word_t before = tt_pager_faults;
	rx_brs[0] = L4_ACCEPT_STRINGS;
	rx_brs[1] = L4_STRING_MAKE(6000, 1, 0, 0);
	rx_brs[2] = (L4_Word_t)fresh_dst + 100;       /* spans two pages the receiver never touched */
	rx_nbrs = 3;
	rx_reload();
	for (int i = 0; i < 6000; i++)
		fresh_src[i] = (unsigned char)(i * 7);
	L4_Word_t w[] = { L4_STRING_MAKE(6000, 1, 0, 0), (L4_Word_t)fresh_src };
	L4_Word_t err = send_items(w, 2);
	EXPECT(!err && !rx_err, "send %lx receive %lx", err, rx_err);
	for (int i = 0; i < 6000; i++)
		EXPECT(fresh_dst[100 + i] == (unsigned char)(i * 7), "byte %d: %x", i, fresh_dst[100 + i]);
	EXPECT(tt_pager_faults >= before + 2, "the receiver's pager saw %lu faults", tt_pager_faults - before);
	teardown();
}

static volatile L4_Word_t s_err = 1;
static L4_ThreadId_t main_tid;

static void string_sender(void)
{
	L4_SetMR(0, L4_TAG_MAKE(0x78, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(5000, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)fresh_src + 3000);      /* pages this space never touched */
	L4_MsgTag_t tag = L4_Send(main_tid);
	s_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	tt_park();
}

/* 5000 bytes land here; the guard after them must stay untouched. */
#define SPF_LEN 5000
#define SPF_GUARD 64
static unsigned char spf_dst[SPF_LEN + SPF_GUARD] __attribute__((aligned(64)));

TEST_CASE("string.sender_pagefault", "a waiting sender's string not yet mapped: its pager maps it and the copy completes")
{
	for (int i = 0; i < SPF_LEN + SPF_GUARD; i++)
		spf_dst[i] = 0xee;
	main_tid = L4_MyGlobalId();
	for (int i = 0; i < 5000; i++)
		fresh_src[3000 + i] = (unsigned char)(i * 3 + 1);
	L4_ThreadId_t s = tt_id(120, 1);
	L4_Word_t before = tt_pager_faults;
	EXPECT(tt_start_space(s, string_sender), "start");
	TT_WAIT(L4_Schedule(s, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_PENDING_SEND, 300);
	L4_SetTcr(UTCB_BR(0), L4_ACCEPT_STRINGS);
	L4_SetTcr(UTCB_BR(1), L4_STRING_MAKE(5000, 1, 0, 0));
	L4_SetTcr(UTCB_BR(2), (L4_Word_t)spf_dst);
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(s, L4_TimePeriod(200000), &from);
	L4_SetTcr(UTCB_BR(0), 0);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x78, "receive: %lx", L4_ErrorCode());
	for (int i = 0; i < SPF_LEN; i++)
		EXPECT(spf_dst[i] == (unsigned char)(i * 3 + 1), "byte %d: %x", i, spf_dst[i]);
	for (int i = SPF_LEN; i < SPF_LEN + SPF_GUARD; i++)
		EXPECT(spf_dst[i] == 0xee, "guard byte %d written: %x", i, spf_dst[i]);
	TT_WAIT(s_err != 1, 200);
	EXPECT(s_err == 0, "the sender saw %lx", s_err);
	EXPECT(tt_pager_faults >= before + 2, "the sender's pager saw %lu faults", tt_pager_faults - before);
	tt_kill(s);
}

/*
 * Page faults during a transfer, X.2 style: the copy stops, the pager of
 * the thread whose memory faulted maps it (the fault IPC comes from that
 * thread), the copy goes on, all within the xfer timeouts.
 */
static unsigned char rp_buf[2 * PG] __attribute__((aligned(PG)));   /* never touched by the clients */
static unsigned char rp_src[2 * PG] __attribute__((aligned(PG)));
static volatile L4_Word_t c_err, c_done, c_tag;

static void fill_src(unsigned char *b, L4_Word_t n, int mul)
{
	for (L4_Word_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * mul + 5);
}

/* MR0..MR2: one string of n bytes at src, label 0x79. */
static void load_string(const void *src, L4_Word_t n)
{
	L4_SetMR(0, L4_TAG_MAKE(0x79, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(n, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)src);
}

static void accept_into(void *buf, L4_Word_t n)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(n, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)buf);
}

/* A client that Calls main expecting a string reply into rp_buf (unmapped in its space). */
static void reply_client(void)
{
	accept_into(rp_buf + 100, 6000);
	L4_SetMR(0, L4_TAG_MAKE(0x7a, 0, 0));
	L4_MsgTag_t tag = L4_Call(main_tid);
	c_tag = tag;
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

TEST_CASE("string.reply_unmapped", "a Reply (zero send timeout) whose string lands in a buffer the caller never touched: the caller's pager maps it, the Reply succeeds")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	c_err = 1;
	fill_src(rp_src, 6000, 3);
	for (int i = 0; i < 2 * PG; i++)
		rp_buf[i] = 0xee;
	L4_ThreadId_t c = tt_id(121, 1);
	L4_Word_t before = tt_pager_faults;
	EXPECT(tt_start_space(c, reply_client), "start");
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(c, L4_TimePeriod(500000), &from);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x7a, "the call: %lx", L4_ErrorCode());
	load_string(rp_src, 6000);
	tag = L4_Reply(c);
	EXPECT(!L4_IpcFailed(tag), "the Reply failed: ErrorCode %lx", L4_ErrorCode());
	TT_WAIT(c_done, 300);
	EXPECT(c_done && c_err == 0, "the caller: done %lu ErrorCode %lx", c_done, c_err);
	EXPECT(L4_TAG_LABEL(c_tag) == 0x79 && L4_TAG_T(c_tag) == 2, "the caller's tag %lx", c_tag);
	for (int i = 0; i < 6000; i++)
		EXPECT(rp_buf[100 + i] == (unsigned char)(i * 3 + 5), "byte %d: %x", i, rp_buf[100 + i]);
	EXPECT(rp_buf[99] == 0xee && rp_buf[6100] == 0xee, "bytes around the buffer written");
	EXPECT(tt_pager_faults >= before + 2, "the caller's pager saw %lu faults", tt_pager_faults - before);
	tt_kill(c);
}

/* Serve page faults from c ourselves until it sends something else; returns that tag. */
static L4_MsgTag_t serve_faults(L4_ThreadId_t c)
{
	for (;;) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Receive_Timeout(c, L4_TimePeriod(50000), &from);
		if (L4_IpcFailed(tag) || (L4_TAG_LABEL(tag) >> 4) != (L4_LABEL_PAGEFAULT >> 4))
			return tag;
		L4_Word_t page = L4_MR(1) & ~0xfffUL;
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, page | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE(page, 12, 7));
		L4_Reply(c);
	}
}

TEST_CASE("string.pager_to_own_client", "a pager replying with a string into its client's unmapped buffer: no deadlock, xfer error 6 for the pager, 5 for the client")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	c_err = 1;
	L4_ThreadId_t c = tt_id(122, 1);
	EXPECT(tt_start_space_paged(c, reply_client, main_tid), "start");
	L4_MsgTag_t tag = serve_faults(c);      /* its code, stack and data, then its Call */
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x7a, "the call: %lx %lx", tag, L4_ErrorCode());
	fill_src(rp_src, 6000, 3);
	load_string(rp_src, 6000);
	tag = L4_Reply(c);
	L4_Word_t err = L4_ErrorCode();
	EXPECT(L4_IpcFailed(tag) && err == L4_IPC_XFER_TO_PARTNER, "the pager's Reply: tag %lx ErrorCode %lx", tag, err);
	serve_faults(c);                        /* it writes its result to pages it never touched */
	EXPECT(c_done && c_err == (L4_IPC_XFER_TO_OWN | L4_IPC_PHASE_RECV), "the client: done %lu ErrorCode %lx",
	       c_done, c_err);
	tt_kill(c);
}

/*
 * A pager that serves faults by mapping our own pages, except at bp_block
 * (never answered) and bp_abort (it aborts the faulting thread's IPC with
 * ExchangeRegisters, as l4test's pager does; only for threads of our space).
 */
static volatile L4_Word_t bp_block, bp_abort, bp_seen;
static L4_ThreadId_t bpager;

static L4_Word_t blocking_source(L4_Word_t page, L4_ThreadId_t from)
{
	if (page != bp_block && page != bp_abort)
		return page;
	bp_seen = page;
	if (page == bp_abort) {
		struct L4_ExRegs x = { .control = L4_EXREG_ABORT_SEND | L4_EXREG_ABORT_RECV };
		pecan_exregs(from, &x);
	}
	return 0;
}

static void blocking_pager(void)
{
	tt_pager_serve(blocking_source);
}

static L4_ThreadId_t the_bpager(void)
{
	if (!bpager) {
		bpager = tt_id(140, 1);
		tt_start_local(bpager, blocking_pager);
		L4_Set_Priority(bpager, 254);
	}
	return bpager;
}

static volatile L4_Word_t s_xfer;           /* the sender's XferTimeouts word */

/* Sends 2 pages from rp_src (page 1 unmapped and blocked in its space) to main. */
static void blocked_sender(void)
{
	L4_SetTcr(UTCB_XFER_TIMEOUTS, s_xfer);
	load_string(rp_src, 2 * PG);
	L4_MsgTag_t tag = L4_Send(main_tid);
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

/*
 * l4test's xfer-timeout cases: the sender's second page faults and its pager
 * never answers; the earlier of the sender's send-xfer and the receiver's
 * receive-xfer timeout ends the copy after the first page, reporting 5 to
 * its owner and 6 to the other side, both with offset 4096.
 */
static void xfer_timeout_case(L4_Word_t snd_us, L4_Word_t rcv_us, int snd_expires)
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	c_err = 1;
	fill_src(rp_src, 2 * PG, 1);
	bp_block = (L4_Word_t)rp_src + PG;
	s_xfer = L4_TIMEOUTS(L4_TimePeriod(snd_us), L4_TIMEOUT_NEVER);
	L4_ThreadId_t s = tt_id(123, 1);
	EXPECT(tt_start_space_paged(s, blocked_sender, the_bpager()), "start");
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TIMEOUT_NEVER, L4_TimePeriod(rcv_us)));
	accept_into(rp_buf, 2 * PG);
	L4_Word_t t0 = L4_SystemClock();
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(s, L4_TimePeriod(2000000), &from);
	L4_Word_t waited = L4_SystemClock() - t0, err = L4_ErrorCode();
	L4_SetTcr(UTCB_XFER_TIMEOUTS, 0);
	L4_SetBR(0, 0);
	bp_block = 0;
	L4_Word_t own = L4_IPC_XFER_TO_OWN, partner = L4_IPC_XFER_TO_PARTNER;
	EXPECT(L4_IpcFailed(tag) && err == ((PG << 4) | (snd_expires ? partner : own) | L4_IPC_PHASE_RECV),
	       "receiver: tag %lx ErrorCode %lx", tag, err);
	TT_WAIT(c_done, 300);
	EXPECT(c_err == ((PG << 4) | (snd_expires ? own : partner)), "sender: ErrorCode %lx", c_err);
	L4_Word_t limit = snd_expires ? snd_us : rcv_us;
	EXPECT(waited >= limit && waited < limit + 200000, "the copy ended after %lu us (timeout %lu us)", waited, limit);
	EXPECT(bp_seen == (L4_Word_t)rp_src + PG, "the sender's pager saw %lx", bp_seen);
	for (int i = 0; i < PG; i++)
		EXPECT(rp_buf[i] == (unsigned char)(i + 5), "first page byte %d: %x", i, rp_buf[i]);
	tt_kill(s);
}

TEST_CASE("string.sender_xfer_timeout", "the sender's 20 ms send-xfer timeout (receiver's 1 s) ends a copy stuck in the sender's pager: 5 for the sender, 6 for the receiver")
{
	xfer_timeout_case(20000, 1000000, 1);
}

TEST_CASE("string.receiver_xfer_timeout", "the receiver's 20 ms receive-xfer timeout (sender's 1 s) ends a copy stuck in the sender's pager: 5 for the receiver, 6 for the sender")
{
	xfer_timeout_case(1000000, 20000, 0);
}

/* Receives 2 pages into rp_buf (page 1 unmapped and blocked in its space) from main. */
static void blocked_receiver(void)
{
	L4_SetTcr(UTCB_XFER_TIMEOUTS, s_xfer);
	accept_into(rp_buf, 2 * PG);
	L4_MsgTag_t tag = L4_Receive(main_tid);
	c_tag = tag;
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

TEST_CASE("string.tunnel_timeout", "a fault in the receiver's memory goes to its pager from the receiver itself; the sender's 20 ms xfer timeout ends it")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	c_err = 1;
	bp_seen = 0;
	fill_src(rp_src, 2 * PG, 1);
	bp_block = (L4_Word_t)rp_buf + PG;
	s_xfer = 0;
	L4_ThreadId_t r = tt_id(124, 1);
	EXPECT(tt_start_space_paged(r, blocked_receiver, the_bpager()), "start");
	TT_WAIT(L4_Schedule(r, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_WAITING, 300);
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TimePeriod(20000), L4_TIMEOUT_NEVER));
	load_string(rp_src, 2 * PG);
	L4_MsgTag_t tag = L4_Send(r);
	L4_Word_t err = L4_ErrorCode();
	L4_SetTcr(UTCB_XFER_TIMEOUTS, 0);
	bp_block = 0;
	EXPECT(L4_IpcFailed(tag) && err == ((PG << 4) | L4_IPC_XFER_TO_OWN), "sender: tag %lx ErrorCode %lx", tag, err);
	TT_WAIT(c_done, 300);
	EXPECT(c_err == ((PG << 4) | L4_IPC_XFER_TO_PARTNER | L4_IPC_PHASE_RECV), "receiver: ErrorCode %lx", c_err);
	EXPECT(bp_seen == (L4_Word_t)rp_buf + PG, "the receiver's pager saw %lx", bp_seen);
	tt_kill(r);
}

/* An address of our space where nothing is mapped (and sigma0 gives nothing). */
#define HOLE 0x30000000UL

static void hole_receiver(void)
{
	L4_SetTcr(UTCB_XFER_TIMEOUTS, 0);
	accept_into((void *)HOLE, 2 * PG);
	L4_MsgTag_t tag = L4_Receive(main_tid);
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

TEST_CASE("string.receiver_abort", "the receiver's pager aborts it (ExchangeRegisters) in the fault IPC it makes during a copy: 7 for both sides")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	c_err = 1;
	L4_ThreadId_t r = tt_id(125, 1);
	L4_ThreadId_t me = L4_MyGlobalId();
	EXPECT(tt_start_local(r, hole_receiver) && L4_ThreadControl(r, me, L4_NILTHREAD, the_bpager(), ~0UL),
	       "start");
	TT_WAIT(L4_Schedule(r, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_WAITING, 300);
	bp_abort = HOLE;
	bp_seen = 0;
	load_string(rp_src, 2 * PG);
	L4_MsgTag_t tag = L4_Send(r);
	L4_Word_t err = L4_ErrorCode();
	bp_abort = 0;
	EXPECT(L4_IpcFailed(tag) && err == L4_IPC_ABORTED, "sender: tag %lx ErrorCode %lx", tag, err);
	TT_WAIT(c_done, 300);
	EXPECT(c_err == (L4_IPC_ABORTED | L4_IPC_PHASE_RECV), "receiver: ErrorCode %lx", c_err);
	EXPECT(bp_seen == HOLE, "the receiver's pager saw %lx", bp_seen);
	tt_kill(r);
}

/* Sends one string of 2 pages from HOLE (its pager decides what happens there) to main. */
static void hole_sender(void)
{
	L4_SetTcr(UTCB_XFER_TIMEOUTS, 0);
	load_string((void *)HOLE, 2 * PG);
	L4_MsgTag_t tag = L4_Send(main_tid);
	s_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

/* Start a thread of our space paged by the blocking pager. */
static int start_bpaged(L4_ThreadId_t t, void (*fn)(void))
{
	L4_ThreadId_t me = L4_MyGlobalId();
	return tt_start_local(t, fn) && L4_ThreadControl(t, me, L4_NILTHREAD, the_bpager(), ~0UL);
}

TEST_CASE("string.sender_abort", "the sender's pager aborts it (ExchangeRegisters) in its fault IPC during a copy: 7 for both sides")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	s_err = 1;
	bp_seen = 0;
	bp_abort = HOLE;
	L4_ThreadId_t snd = tt_id(129, 1);
	EXPECT(start_bpaged(snd, hole_sender), "start");
	accept_into(rp_buf, 2 * PG);
	L4_MsgTag_t tag = L4_Receive_Timeout(snd, L4_TimePeriod(500000), 0);
	L4_Word_t err = L4_ErrorCode();
	L4_SetBR(0, 0);
	bp_abort = 0;
	EXPECT(L4_IpcFailed(tag) && err == (L4_IPC_ABORTED | L4_IPC_PHASE_RECV), "receiver: tag %lx ErrorCode %lx", tag, err);
	TT_WAIT(c_done, 300);
	EXPECT(s_err == L4_IPC_ABORTED, "sender: ErrorCode %lx", s_err);
	EXPECT(bp_seen == HOLE, "the sender's pager saw %lx", bp_seen);
	tt_kill(snd);
}

/* Waits for the blocking pager to hold a fault at kill_when, then aborts or deletes kill_target. */
static volatile L4_ThreadId_t kill_target;
static volatile L4_Word_t kill_when, kill_abort, kill_done;

static void killer(void)
{
	while (bp_seen != kill_when)
		L4_Sleep(1000);
	if (kill_abort) {
		struct L4_ExRegs x = { .control = L4_EXREG_ABORT_SEND | L4_EXREG_ABORT_RECV };
		pecan_exregs(kill_target, &x);
		kill_abort = x.control;
	} else {
		tt_kill(kill_target);
	}
	kill_done = 1;
	tt_park();
}

static L4_ThreadId_t start_killer(L4_ThreadId_t target, L4_Word_t when, int abort)
{
	L4_ThreadId_t k = tt_id(130, 1);
	tt_kill(k);                      /* left over if an earlier case failed */
	kill_target = target;
	kill_when = when;
	kill_abort = abort;
	kill_done = 0;
	tt_start_local(k, killer);
	return k;
}

TEST_CASE("string.abort_locked_receiver", "ExchangeRegisters aborts a receiver locked in a copy whose sender waits for its pager: 7 for both")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	s_err = 1;
	bp_seen = 0;
	bp_block = HOLE;
	L4_ThreadId_t snd = tt_id(131, 1);
	EXPECT(start_bpaged(snd, hole_sender), "start");
	TT_WAIT(L4_Schedule(snd, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_PENDING_SEND, 300);
	L4_ThreadId_t k = start_killer(L4_MyGlobalId(), HOLE, 1);
	accept_into(rp_buf, 2 * PG);
	L4_MsgTag_t tag = L4_Receive_Timeout(snd, L4_TimePeriod(500000), 0);
	L4_Word_t err = L4_ErrorCode();
	L4_SetBR(0, 0);
	bp_block = 0;
	EXPECT(kill_done && (kill_abort & 2), "the abort did not happen or did not say receiving: %lx", kill_abort);
	EXPECT(L4_IpcFailed(tag) && err == (L4_IPC_ABORTED | L4_IPC_PHASE_RECV), "receiver: tag %lx ErrorCode %lx", tag, err);
	TT_WAIT(c_done, 300);
	EXPECT(s_err == L4_IPC_ABORTED, "sender: ErrorCode %lx", s_err);
	tt_kill(k);
	tt_kill(snd);
}

TEST_CASE("string.delete_sender_in_copy", "deleting a sender blocked in its fault IPC during a copy: the locked receiver gets 'no partner'")
{
	main_tid = L4_MyGlobalId();
	bp_seen = 0;
	bp_block = HOLE;
	L4_ThreadId_t snd = tt_id(132, 1);
	EXPECT(start_bpaged(snd, hole_sender), "start");
	TT_WAIT(L4_Schedule(snd, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_PENDING_SEND, 300);
	L4_ThreadId_t k = start_killer(snd, HOLE, 0);
	accept_into(rp_buf, 2 * PG);
	L4_MsgTag_t tag = L4_Receive_Timeout(snd, L4_TimePeriod(500000), 0);
	L4_Word_t err = L4_ErrorCode();
	L4_SetBR(0, 0);
	bp_block = 0;
	EXPECT(kill_done, "the sender was not deleted");
	EXPECT(L4_IpcFailed(tag) && err == (L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV), "receiver: tag %lx ErrorCode %lx", tag, err);
	EXPECT(L4_Schedule(snd, ~0UL, ~0UL, ~0UL, ~0UL, 0) == 0, "the sender still exists");
	tt_kill(k);
}

TEST_CASE("string.delete_receiver_in_copy", "deleting a receiver in its tunnelled fault IPC during a copy: the sender gets 'no partner'")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	bp_seen = 0;
	bp_block = HOLE;
	L4_ThreadId_t r = tt_id(133, 1);
	EXPECT(start_bpaged(r, hole_receiver), "start");
	TT_WAIT(L4_Schedule(r, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_WAITING, 300);
	L4_ThreadId_t k = start_killer(r, HOLE, 0);
	load_string(rp_src, 2 * PG);
	L4_MsgTag_t tag = L4_Send_Timeout(r, L4_TimePeriod(500000));
	L4_Word_t err = L4_ErrorCode();
	bp_block = 0;
	EXPECT(kill_done, "the receiver was not deleted");
	EXPECT(L4_IpcFailed(tag) && err == L4_IPC_NOPARTNER, "sender: tag %lx ErrorCode %lx", tag, err);
	EXPECT(!c_done, "the deleted receiver ran on");
	tt_kill(k);
}

/* Calls main with a 2-page string from rp_src; records main's reply. */
static void string_caller(void)
{
	load_string(rp_src, 2 * PG);
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(main_tid, main_tid, 0, &from);
	c_tag = tag;
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

TEST_CASE("string.call_pending_sender", "a Call with a string whose server receives later: the caller copies, is then in its receive, and the server's zero-timeout Reply reaches it")
{
	main_tid = L4_MyGlobalId();
	c_done = 0;
	c_err = 1;
	fill_src(rp_src, 2 * PG, 7);
	for (int i = 0; i < 2 * PG; i++)
		rp_buf[i] = 0xee;
	L4_ThreadId_t c = tt_id(134, 1);
	EXPECT(tt_start_space(c, string_caller), "start");
	TT_WAIT(L4_Schedule(c, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_PENDING_SEND, 300);
	accept_into(rp_buf, 2 * PG);
	L4_ThreadId_t from = 0;
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, c, 0, &from);
	L4_SetBR(0, 0);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == 0x79 && from == c, "receive: tag %lx ErrorCode %lx from %lx",
	       tag, L4_ErrorCode(), from);
	for (int i = 0; i < 2 * PG; i++)
		EXPECT(rp_buf[i] == (unsigned char)(i * 7 + 5), "byte %d: %x", i, rp_buf[i]);
	L4_SetMR(0, L4_TAG_MAKE(0x7c, 0, 0));
	tag = L4_Reply(c);
	EXPECT(!L4_IpcFailed(tag), "the Reply: ErrorCode %lx", L4_ErrorCode());
	TT_WAIT(c_done, 300);
	EXPECT(c_done && !c_err && L4_TAG_LABEL(c_tag) == 0x7c, "the caller: tag %lx ErrorCode %lx", c_tag, c_err);
	tt_kill(c);
}

static L4_ThreadId_t both_rx;

static void both_sender(void)
{
	load_string(rp_src + 300, PG + 1000);       /* 2 source pages, untouched in this space */
	L4_MsgTag_t tag = L4_Send(both_rx);
	s_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	tt_park();
}

static void both_receiver(void)
{
	accept_into(rp_buf + 3000, PG + 1000);      /* 2 receive pages, untouched in this space */
	L4_MsgTag_t tag = L4_Receive(L4_ANYTHREAD);
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

TEST_CASE("string.both_sides_fault", "sender and receiver in two new spaces, neither side's string pages mapped: the copy resolves the faults of both and completes")
{
	c_done = 0;
	c_err = s_err = 1;
	fill_src(rp_src, 2 * PG, 11);
	for (int i = 0; i < 2 * PG; i++)
		rp_buf[i] = 0xee;
	both_rx = tt_id(135, 1);
	L4_ThreadId_t snd = tt_id(136, 1);
	L4_Word_t before = tt_pager_faults;
	EXPECT(tt_start_space(both_rx, both_receiver), "start");
	TT_WAIT(L4_Schedule(both_rx, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_WAITING, 300);
	L4_Word_t mid = tt_pager_faults;
	EXPECT(tt_start_space(snd, both_sender), "start");
	TT_WAIT(c_done, 300);
	EXPECT(c_done && !c_err && !s_err, "receiver %lx sender %lx", c_err, s_err);
	for (int i = 0; i < PG + 1000; i++)
		EXPECT(rp_buf[3000 + i] == (unsigned char)((300 + i) * 11 + 5), "byte %d: %x", i, rp_buf[3000 + i]);
	EXPECT(rp_buf[2999] == 0xee && rp_buf[3000 + PG + 1000] == 0xee, "bytes around the buffer written");
	EXPECT(tt_pager_faults >= mid + 4, "faults: %lu before, %lu during the copy", mid - before, tt_pager_faults - mid);
	tt_kill(snd);
	tt_kill(both_rx);
}

static void kip_receiver(void)
{
	accept_into((void *)ROOT_KIP_AREA, 64);      /* its own KIP as the receive buffer */
	L4_MsgTag_t tag = L4_Receive(L4_ANYTHREAD);
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	c_done = 1;
	tt_park();
}

TEST_CASE("string.kip_buffer", "a receiver naming its own KIP as a buffer (no pager can make it writable): 5 for it, 6 for the sender, no endless faults")
{
	c_done = 0;
	c_err = 1;
	L4_ThreadId_t r = tt_id(137, 1);
	EXPECT(tt_start_space(r, kip_receiver), "start");
	TT_WAIT(L4_Schedule(r, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_WAITING, 300);
	load_string(rp_src, 64);
	L4_MsgTag_t tag = L4_Send_Timeout(r, L4_TimePeriod(500000));
	L4_Word_t err = L4_ErrorCode();
	EXPECT(L4_IpcFailed(tag) && err == L4_IPC_XFER_TO_PARTNER, "sender: tag %lx ErrorCode %lx", tag, err);
	TT_WAIT(c_done, 300);
	EXPECT(c_err == (L4_IPC_XFER_TO_OWN | L4_IPC_PHASE_RECV), "receiver: ErrorCode %lx", c_err);
	tt_kill(r);
}

/*
 * A long copy lets interrupts in: while a priority-100 thread copies 64 MiB
 * (16 receive and send substrings of 4 MiB over the same buffers), a
 * priority-254 thread sleeping 1 ms at a time keeps waking up.
 */
#define BIG (4UL << 20)
#define BIG_SUBS 16
static unsigned char big_src[BIG] __attribute__((aligned(4096)));
static unsigned char big_dst[BIG] __attribute__((aligned(4096)));
static volatile L4_Word_t copy_start, copy_end, tick_n, tick_at[256];
static L4_ThreadId_t big_rx;

static void ticker(void)
{
	for (;;) {
		L4_Sleep(1000);
		if (tick_n < 256)
			tick_at[tick_n++] = L4_SystemClock();
	}
}

static void big_receiver(void)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(BIG, BIG_SUBS, 0, 0));
	for (int i = 0; i < BIG_SUBS; i++)
		L4_SetBR(2 + i, (L4_Word_t)big_dst);
	L4_MsgTag_t tag = L4_Receive(L4_ANYTHREAD);
	c_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	copy_end = L4_SystemClock();
	c_done = 1;
	tt_park();
}

static void big_sender(void)
{
	L4_SetMR(0, L4_TAG_MAKE(0x7b, 0, 1 + BIG_SUBS));
	L4_SetMR(1, L4_STRING_MAKE(BIG, BIG_SUBS, 0, 0));
	for (int i = 0; i < BIG_SUBS; i++)
		L4_SetMR(2 + i, (L4_Word_t)big_src);
	copy_start = L4_SystemClock();
	L4_MsgTag_t tag = L4_Send(big_rx);
	s_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	tt_park();
}

TEST_CASE("string.preemptible_copy", "a 64 MiB string copy at priority 100 is preempted: a priority-254 thread sleeping 1 ms keeps running during it")
{
	for (L4_Word_t i = 0; i < BIG; i++)
		big_src[i] = (unsigned char)(i ^ (i >> 12));
	c_done = 0;
	c_err = s_err = 1;
	tick_n = 0;
	big_rx = tt_id(126, 1);
	L4_ThreadId_t tk = tt_id(127, 1), s = tt_id(128, 1);
	EXPECT(tt_start_local(big_rx, big_receiver), "start receiver");
	TT_WAIT(L4_Schedule(big_rx, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_WAITING, 300);
	EXPECT(tt_start_local(tk, ticker) && L4_Set_Priority(tk, 254), "start ticker");
	EXPECT(tt_start_local(s, big_sender), "start sender");
	TT_WAIT(c_done, 5000);
	EXPECT(c_done && c_err == 0 && s_err == 0, "copy: done %lu receiver %lx sender %lx", c_done, c_err, s_err);
	int during = 0;
	for (L4_Word_t i = 0; i < tick_n; i++)
		during += tick_at[i] > copy_start && tick_at[i] < copy_end;
	EXPECT(during >= 5, "the ticker ran %d times during the %lu us copy", during, copy_end - copy_start);
	EXPECT(memcmp(big_dst, big_src, BIG) == 0, "data differ");
	tt_kill(tk);
	tt_kill(s);
	tt_kill(big_rx);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
