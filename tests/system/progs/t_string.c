// SPDX-License-Identifier: MIT
// String IPC (long IPC): simple, substrings, compound, scatter/gather, error offsets.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

#define BUF 256

static unsigned char src[2][BUF], dst[2][BUF] __attribute__((aligned(64)));
static volatile L4_Word_t rx_tag, rx_err;
static volatile int rx_done;
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

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
