// SPDX-License-Identifier: MIT
// How the kernel's paths scale with what exists: one-way IPC with 2 to 10,000 threads
// alive, map and unmap per page with 10^3 to 10^5 mappings in the database, task
// create+delete with 1 to 1,000 spaces alive.  Guest instructions (rdtsc under icount);
// the figures should not depend on these counts.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/fmt/fmt.h"
#include "../../lib/test/tthread.h"
#include "../pingpong/ppcall.h"
#include "../vm/tasks.h"

#define PAGE      4096UL
#define SRC       0x4000000UL     /* our memory to map from: 16 MiB from sigma0 */
#define SRC_PAGES 4096UL
#define MAP_PAGES 64UL            /* the measured map: SRC's first pages */
#define WIN       0x40000000UL    /* where the receivers take pages */
#define ROUNDS    1000
#define FILL_BASE (L4_USER_BASE + 200)   /* thread numbers of the fillers */
#define FILL_UTCB 0x10000000UL    /* their space's UTCB area: 2^24 bytes, 16384 UTCBs */
#define FILL_UTCB_LOG2 24

static volatile L4_ThreadId_t ping_id, pong_id, main_id;
static volatile L4_Word_t result;
static L4_ThreadId_t fill_space;  /* the fillers' space: its first thread */
static L4_Word_t nfill;           /* filler threads alive */

static void print(const char *name, const char *param, L4_Word_t tenths)
{
	printf("RESULT name=%s %s fastpath=%s value=%lu.%lu unit=instructions method=icount\n",
	       name, param, (*(volatile L4_Word_t *)PECAN_BUILD_ADDR & 1) ? "on" : "off",
	       tenths / 10, tenths % 10);
}

/* --- IPC: ping and pong in two spaces, as bench/pingpong's 0-word figure --- */

static void pong(void)
{
	L4_Receive(ping_id);
	L4_Word_t *utcb = L4_Utcb();
	for (;;)
		pp_call(__L4_Ipc, ping_id, 0, utcb);
}

static void ping(void)
{
	L4_Word_t *utcb = L4_Utcb();
	for (;;) {
		L4_Receive(main_id);
		pp_call(__L4_Ipc, pong_id, 0, utcb);          /* warm up */
		L4_Word_t t0 = bench_rdtsc();
		for (int i = 0; i < ROUNDS; i++)
			pp_call(__L4_Ipc, pong_id, 0, utcb);
		result = (bench_rdtsc() - t0) * 10 / (2 * ROUNDS);
		L4_SetMR(0, 0);
		L4_Send(main_id);
	}
}

static L4_ThreadId_t fill_id(L4_Word_t i)
{
	return l4_global_id(FILL_BASE + i, 1);
}

/* One more thread alive: in the fillers' space, blocked waiting for our start message. */
static int fill_one(void)
{
	L4_ThreadId_t t = fill_id(nfill), me = L4_MyGlobalId();
	if (!nfill) {
		fill_space = t;
		/* control: a quota of 2^20 pages (the default share of the pool holds ~1000 threads) */
		if (!L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL) ||
		    !L4_SpaceControl(t, 1UL << 20, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
				     L4_FPAGE_MAKE(FILL_UTCB, FILL_UTCB_LOG2, 0), L4_NILTHREAD, 0))
			return 0;
	}
	if (!L4_ThreadControl(t, fill_space, me, me, FILL_UTCB + nfill * UTCB_SIZE))
		return 0;
	nfill++;
	return 1;
}

static void fill_clear(void)
{
	while (nfill)
		tt_kill(fill_id(--nfill));          /* the space goes with its first thread, last */
}

static void ipc_scale(void)
{
	static const L4_Word_t alive[] = { 2, 100, 1000, 10000 };
	main_id = L4_MyGlobalId();
	ping_id = tt_id(0, 1);
	pong_id = tt_id(1, 1);
	tt_start_space(ping_id, ping);
	tt_start_space(pong_id, pong);
	char p[32];
	for (unsigned k = 0; k < sizeof(alive) / sizeof(alive[0]); k++) {
		while (nfill + 2 < alive[k])
			if (!fill_one()) {
				printf("scale: thread %lu refused (ErrorCode %lu)\n", nfill, L4_ErrorCode());
				break;
			}
		L4_SetMR(0, 0);
		L4_Send(ping_id);
		L4_Receive(ping_id);
		snfmt(p, sizeof(p), "threads=%lu", nfill + 2);
		print("scale.ipc.oneway", p, result);
	}
	fill_clear();
	tt_kill(ping_id);
	tt_kill(pong_id);
}

/* --- map and unmap: the worker takes MAP_PAGES pages; a holder keeps the rest --- */

static L4_ThreadId_t worker_id, holder_id;

/* Take whatever is sent into the window, answer, forever. */
static void receiver(void)
{
	L4_SetTcr(UTCB_BR(0), L4_COMPLETE_SPACE);
	L4_ThreadId_t from;
	L4_Wait(&from);
	for (;;) {
		L4_SetMR(0, 0);
		L4_ReplyWait(from, &from);
	}
}

/* Map `pages` (a power of two) of SRC from page `first` to `to` at WIN + dst. */
static void map_to(L4_ThreadId_t to, L4_Word_t first, L4_Word_t log2pages, L4_Word_t dst)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, (WIN + dst) | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(SRC + first * PAGE, 12 + log2pages, 7));
	L4_Call(to);
}

static void unmap_pages(L4_Word_t first, L4_Word_t log2pages)
{
	L4_SetMR(0, L4_FPAGE_MAKE(SRC + first * PAGE, 12 + log2pages, 7));
	L4_Unmap(0);
}

static void map_scale(void)
{
	static const L4_Word_t held[] = { 1000, 10000, 100000 };
	worker_id = tt_id(2, 1);
	holder_id = tt_id(3, 1);
	tt_start_space(worker_id, receiver);
	tt_start_space(holder_id, receiver);
	L4_Word_t nheld = 0;
	char p[48];
	for (unsigned k = 0; k < sizeof(held) / sizeof(held[0]); k++) {
		/* SRC's pages from MAP_PAGES on, 64 at a time, again and again to new places */
		for (; nheld + MAP_PAGES <= held[k]; nheld += 64)
			map_to(holder_id, MAP_PAGES + nheld % (SRC_PAGES - MAP_PAGES), 6, nheld * PAGE);
		map_to(worker_id, 0, 0, 0);               /* warm up: the worker's tables */
		unmap_pages(0, 0);
		L4_Word_t t0 = bench_rdtsc();
		map_to(worker_id, 0, 6, 0);
		L4_Word_t t1 = bench_rdtsc();
		unmap_pages(0, 6);
		L4_Word_t t2 = bench_rdtsc();
		snfmt(p, sizeof(p), "mappings=%lu pages=%lu", nheld + MAP_PAGES, MAP_PAGES);
		print("scale.vm.map", p, (t1 - t0) * 10 / MAP_PAGES);
		print("scale.vm.unmap", p, (t2 - t1) * 10 / MAP_PAGES);
	}
	tt_kill(worker_id);
	tt_kill(holder_id);
}

/* --- task create+delete with spaces alive (the fillers now stand one in each) --- */

static int space_one(L4_Word_t i)
{
	L4_ThreadId_t t = fill_id(i), me = L4_MyGlobalId();
	return L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL) &&
	       L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			       L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0) &&
	       L4_ThreadControl(t, t, me, me, tt_utcb(tt_id(4, 1)));
}

static void task_scale(void)
{
	static const L4_Word_t alive[] = { 1, 100, 1000 };
	L4_Word_t spaces = 0;
	char p[32];
	for (unsigned k = 0; k < sizeof(alive) / sizeof(alive[0]); k++) {
		for (; spaces + 1 < alive[k]; spaces++)
			if (!space_one(spaces)) {
				printf("scale: space %lu refused (ErrorCode %lu)\n", spaces, L4_ErrorCode());
				break;
			}
		snfmt(p, sizeof(p), "spaces=%lu", spaces + 1);
		print("scale.task.create_delete", p, bench_tasks_create_delete(5, 100));
	}
	while (spaces)
		tt_kill(fill_id(--spaces));
}

int main(void)
{
	if (!pecan_sigma0_request(L4_FPAGE_MAKE(SRC, 24, 7), L4_COMPLETE_SPACE))
		printf("scale: sigma0 refused 16 MiB at %lx\n", SRC);
	for (L4_Word_t i = 0; i < SRC_PAGES; i++)
		*(volatile L4_Word_t *)(SRC + i * PAGE) = i;
	ipc_scale();
	map_scale();
	task_scale();
	printf("scale: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
