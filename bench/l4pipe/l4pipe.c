// SPDX-License-Identifier: MIT
// Seed 000's "asynchronous pipes on L4" (§6.1, Table 4 row 2): a pipe built
// on bare L4 IPC, no Linux server.  L4 IPC is synchronous, so each pipe has
// a buffer thread in the reader's address space: a write is a call to it that
// returns as soon as the bytes are in its buffer (the writer does not wait
// for the reader), a read is a call it answers when there are bytes.  Up to
// SMALL bytes travel in message registers, more as a string item straight
// into (and out of) the buffer thread's 64 KiB buffer.
//
// Measured as lmbench measures pipes: latency is a 1-byte round trip over
// two pipes between two address spaces; bandwidth moves 64 KiB chunks from
// one space to the other.  Under QEMU icount rdtsc counts guest
// instructions.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/test/tthread.h"

#define PIPE_SIZE   65536
#define SMALL       (8 * 8)          /* bytes sent in message registers */
#define ROUNDS      1000
#define BW_CHUNKS   400              /* 25 MiB */

enum { OP_WRITE = 1, OP_READ = 2 };

struct l4pipe {
	volatile L4_ThreadId_t server, reader;
	unsigned char buf[PIPE_SIZE] __attribute__((aligned(4096)));
	L4_Word_t head, count;          /* the server's: bytes buffered from buf[head] */
};

static struct l4pipe pipes[2];      /* 0: space A -> B, 1: B -> A */
static volatile L4_ThreadId_t main_id, a_id, b_id;
static volatile L4_Word_t lat_result, bw_start, bw_end, bad;   /* bad: bytes came wrong */
static unsigned char src[PIPE_SIZE] __attribute__((aligned(4096)));
static unsigned char dst[PIPE_SIZE] __attribute__((aligned(4096)));

static inline L4_Word_t rdtsc(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

static L4_Word_t words_of(L4_Word_t n)
{
	return (n + 7) / 8;
}

/* --- the client side: write and read are calls to the buffer thread --- */

static void pipe_write(struct l4pipe *p, const void *data, L4_Word_t n)
{
	if (n <= SMALL) {
		L4_SetMR(0, L4_TAG_MAKE(OP_WRITE, 1 + words_of(n), 0));
		L4_SetMR(1, n);
		__builtin_memcpy(&L4_Utcb()[2], data, n);
	} else {
		L4_SetMR(0, L4_TAG_MAKE(OP_WRITE, 1, 2));
		L4_SetMR(1, n);
		L4_SetMR(2, L4_STRING_MAKE(n, 1, 0, 0));
		L4_SetMR(3, (L4_Word_t)data);
	}
	L4_Call(p->server);
}

/* Up to n bytes into data (n <= PIPE_SIZE); returns how many came. */
static L4_Word_t pipe_read(struct l4pipe *p, void *data, L4_Word_t n)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(n, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)data);
	L4_SetMR(0, L4_TAG_MAKE(OP_READ, 1, 0));
	L4_SetMR(1, n);
	L4_MsgTag_t tag = L4_Call(p->server);
	L4_Word_t got = L4_MR(1);
	if (L4_TAG_T(tag) == 0)
		__builtin_memcpy(data, &L4_Utcb()[2], got);
	return got;
}

/* --- the buffer thread --- */

/* Answer the waiting reader with up to `want` buffered bytes. */
static void give(struct l4pipe *p, L4_ThreadId_t reader, L4_Word_t want)
{
	L4_Word_t n = want < p->count ? want : p->count;
	unsigned char *at = p->buf + p->head;
	if (n <= SMALL) {
		L4_SetMR(0, L4_TAG_MAKE(0, 1 + words_of(n), 0));
		L4_SetMR(1, n);
		__builtin_memcpy(&L4_Utcb()[2], at, n);
	} else {
		L4_SetMR(0, L4_TAG_MAKE(0, 1, 2));
		L4_SetMR(1, n);
		L4_SetMR(2, L4_STRING_MAKE(n, 1, 0, 0));
		L4_SetMR(3, (L4_Word_t)at);
	}
	L4_Reply(reader);
	p->head += n;
	p->count -= n;
}

/*
 * Take a write into the (empty) buffer: small ones from the message
 * registers; a string item has already landed at buf[0].
 */
static void take(struct l4pipe *p, L4_MsgTag_t tag)
{
	L4_Word_t n = L4_MR(1);
	if (L4_TAG_T(tag) == 0)
		__builtin_memcpy(p->buf, &L4_Utcb()[2], n);
	p->head = 0;
	p->count = n;
}

static struct l4pipe *my_pipe(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	return pipes[0].server == me ? &pipes[0] : &pipes[1];
}

/*
 * While the buffer holds bytes it listens to the reader only, so writers
 * wait in their calls (flow control by L4's synchronous IPC); while empty it
 * takes a write, answering the writer at once.
 */
static void pipe_server(void)
{
	struct l4pipe *p = my_pipe();
	L4_ThreadId_t from, waiting = L4_NILTHREAD;
	L4_Word_t want = 0;
	for (;;) {
		L4_MsgTag_t tag;
		if (p->count) {
			tag = L4_Receive(p->reader);
			from = p->reader;
		} else {
			L4_SetBR(0, L4_ACCEPT_STRINGS);
			L4_SetBR(1, L4_STRING_MAKE(PIPE_SIZE, 1, 0, 0));
			L4_SetBR(2, (L4_Word_t)p->buf);
			tag = L4_Wait(&from);
		}
		if (L4_IpcFailed(tag))
			continue;
		if (L4_TAG_LABEL(tag) == OP_READ) {
			waiting = from;
			want = L4_MR(1);
		} else {
			take(p, tag);
			L4_SetMR(0, 0);
			L4_Reply(from);
		}
		if (waiting != L4_NILTHREAD && p->count) {
			give(p, waiting, want);
			waiting = L4_NILTHREAD;
		}
	}
}

/* --- the two sides --- */

static void side_a(void)
{
	unsigned char c = 'x';
	L4_Receive(main_id);                    /* both buffer threads run */
	pipe_write(&pipes[0], &c, 1);           /* warm-up round trip */
	pipe_read(&pipes[1], &c, 1);
	L4_Word_t t0 = rdtsc();
	for (int i = 0; i < ROUNDS; i++) {
		unsigned char sent = (unsigned char)i;
		pipe_write(&pipes[0], &sent, 1);
		if (pipe_read(&pipes[1], &c, 1) != 1 || c != sent)
			bad++;
	}
	lat_result = (rdtsc() - t0) * 10 / ROUNDS;
	for (L4_Word_t i = 0; i < PIPE_SIZE; i += 4096)
		src[i] = (unsigned char)(i / 4096 + 1);
	pipe_write(&pipes[0], src, PIPE_SIZE);   /* warm-up chunk */
	bw_start = rdtsc();
	for (int i = 0; i < BW_CHUNKS; i++)
		pipe_write(&pipes[0], src, PIPE_SIZE);
	L4_SetMR(0, 0);
	L4_Send(main_id);
	tt_park();
}

static void side_b(void)
{
	unsigned char c;
	L4_Receive(main_id);
	for (int i = 0; i < ROUNDS + 1; i++) {
		pipe_read(&pipes[0], &c, 1);
		pipe_write(&pipes[1], &c, 1);
	}
	for (L4_Word_t i = 0; i < PIPE_SIZE; i += 4096)
		dst[i] = 0;
	for (L4_Word_t got = 0; got < PIPE_SIZE; got += pipe_read(&pipes[0], dst, PIPE_SIZE))
		;
	for (L4_Word_t got = 0; got < (L4_Word_t)BW_CHUNKS * PIPE_SIZE;)
		got += pipe_read(&pipes[0], dst, PIPE_SIZE);
	bw_end = rdtsc();
	for (L4_Word_t i = 0; i < PIPE_SIZE; i += 4096)
		bad += dst[i] != (unsigned char)(i / 4096 + 1);
	L4_SetMR(0, 0);
	L4_Send(main_id);
	tt_park();
}

/* A buffer thread in the space of `owner` (the pipe's reader). */
static void start_server(L4_ThreadId_t t, L4_ThreadId_t owner)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	L4_ThreadControl(t, owner, me, me, tt_utcb(t));
	tt_send_start(t, pipe_server, tt_stack());
	L4_ThreadControl(t, owner, L4_NILTHREAD, tt_pager(), ~0UL);
}

int main(void)
{
	main_id = L4_MyGlobalId();
	a_id = tt_id(0, 1);
	b_id = tt_id(1, 1);
	pipes[0].server = tt_id(2, 1);
	pipes[0].reader = b_id;
	pipes[1].server = tt_id(3, 1);
	pipes[1].reader = a_id;
	printf("l4pipe: pipes on L4 IPC, %d round trips, %d chunks of 64 KiB\n", ROUNDS, BW_CHUNKS);
	/* B's space with pipe 0's buffer thread, A's with pipe 1's; then the two sides run */
	tt_start_space(b_id, side_b);
	start_server(pipes[0].server, b_id);
	tt_start_space(a_id, side_a);
	start_server(pipes[1].server, a_id);
	L4_SetMR(0, 0);
	L4_Send(b_id);
	L4_SetMR(0, 0);
	L4_Send(a_id);
	L4_Receive(a_id);
	L4_Receive(b_id);
	if (bad) {
		printf("l4pipe: FAILED, %lu transfers came wrong\n", bad);
		pecan_kdb_power_off(1);
	}
	printf("RESULT name=l4pipe.lat value=%lu.%lu unit=instructions method=icount\n",
	       lat_result / 10, lat_result % 10);
	L4_Word_t bw = (L4_Word_t)BW_CHUNKS * PIPE_SIZE * 10000 / (bw_end - bw_start);
	printf("RESULT name=l4pipe.bw chunk_kb=64 value=%lu.%lu unit=MB_per_s method=icount\n",
	       bw / 10, bw % 10);
	printf("l4pipe: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
