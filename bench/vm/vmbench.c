// SPDX-License-Identifier: MIT
// Virtual-memory benchmarks of seed 000 §6.2 (Fault, Trap, Appel1, Appel2), mapping RPC,
// map/unmap by size, thread and task create/delete.  Guest instructions (rdtsc under icount).
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/fmt/fmt.h"
#include "../../lib/test/tthread.h"
#include "tasks.h"

#define PAGE     4096UL
#define SRC      0x4000000UL     /* 64 MiB: our memory to map from (16 MiB from sigma0) */
#define WIN      0x40000000UL    /* where the worker receives pages */
#define FAULTS   200
#define APPEL_N  100

enum { W_TOUCH = 1, W_WRITE_RO, W_APPEL1, W_APPEL2, W_RECV };

static volatile L4_Word_t stamp, result, mode;
static L4_ThreadId_t pager_id, worker_id, main_id;

static inline L4_Word_t rdtsc(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

static void print(const char *name, const char *param, L4_Word_t tenths)
{
	printf("RESULT name=%s%s%s value=%lu.%lu unit=instructions method=icount\n", name,
	       *param ? " " : "", param, tenths / 10, tenths % 10);
}

static void reply_map(L4_ThreadId_t to, L4_Word_t src, L4_Word_t dst, L4_Word_t rights)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, dst | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(src, 12, rights));
	L4_Reply(to);
}

static void unmap_one(L4_Word_t fpage, L4_Word_t control)
{
	L4_SetMR(0, fpage);
	L4_Unmap(control);
}

/*
 * The worker's pager: faults in the window are answered with our page SRC
 * (Fault), after taking a time stamp (Trap), after protecting the next page
 * (Appel1), or plainly (Appel2).  Other faults map our own page 1:1.
 */
static void pager(void)
{
	L4_ThreadId_t from;
	L4_Wait(&from);
	for (;;) {
		L4_Word_t addr = L4_MR(1) & ~(PAGE - 1);
		if (addr < WIN) {
			reply_map(from, addr, addr, 7);
		} else {
			stamp = rdtsc();
			L4_Word_t i = (addr - WIN) / PAGE;
			if (mode == W_APPEL1)      /* prot1: take write access to the next page away */
				unmap_one(L4_FPAGE_MAKE(SRC + (i + 1) * PAGE, 12, 2), 0);
			reply_map(from, SRC + i * PAGE, addr, 7);
		}
		L4_Wait(&from);
	}
}

static void worker(void)
{
	L4_SetTcr(UTCB_BR(0), L4_COMPLETE_SPACE);
	for (;;) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Wait(&from);
		L4_Word_t what = L4_TAG_LABEL(tag), n = what == W_RECV ? 0 : L4_MR(1), t0 = rdtsc(), lat = 0;
		volatile L4_Word_t *w = (volatile L4_Word_t *)WIN;
		for (L4_Word_t i = 0; i < n; i++) {
			if (what == W_TOUCH) {
				(void)w[i * PAGE / 8];                     /* fault: mapped by the pager */
			} else if (what == W_WRITE_RO) {
				L4_Word_t t = rdtsc();
				w[i * PAGE / 8] = i;                       /* the page is mapped read-only */
				lat += stamp - t;
			} else {
				w[i * PAGE / 8] = i;                       /* Appel1 / Appel2 traps */
			}
		}
		if (n)
			result = what == W_WRITE_RO ? lat * 10 / n : (rdtsc() - t0) * 10 / n;
		L4_SetMR(0, 0);
		L4_Reply(from);
	}
}

static void run(L4_Word_t what, L4_Word_t n)
{
	mode = what;
	L4_SetMR(0, L4_TAG_MAKE(what, 1, 0));
	L4_SetMR(1, n);
	L4_Call(worker_id);
}

/* Map our pages SRC.. to the worker read-only (for Trap) or writable, one item each. */
static void map_to_worker(L4_Word_t pages, L4_Word_t rights)
{
	for (L4_Word_t i = 0; i < pages; i++) {
		L4_SetMR(0, L4_TAG_MAKE(W_RECV, 0, 2));
		L4_SetMR(1, (WIN + i * PAGE) | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE(SRC + i * PAGE, 12, rights));
		L4_Call(worker_id);
	}
}

static void vm_tests(void)
{
	unmap_one(L4_FPAGE_MAKE(SRC, 24, 7), 0);            /* nothing in the worker's window */
	run(W_TOUCH, FAULTS);
	print("vm.fault", "", result);
	unmap_one(L4_FPAGE_MAKE(SRC, 24, 7), 0);
	map_to_worker(FAULTS, 4);
	run(W_WRITE_RO, FAULTS);
	print("vm.trap", "", result);
	unmap_one(L4_FPAGE_MAKE(SRC, 24, 7), 0);
	map_to_worker(APPEL_N + 1, 4);
	run(W_APPEL1, APPEL_N);
	print("vm.appel1", "", result);
	unmap_one(L4_FPAGE_MAKE(SRC, 24, 7), 0);
	map_to_worker(APPEL_N, 7);
	L4_Word_t t0 = rdtsc();
	unmap_one(L4_FPAGE_MAKE(SRC, 19, 2), 0);             /* protN: 128 >= N pages, one call */
	L4_Word_t prot = rdtsc() - t0;
	run(W_APPEL2, APPEL_N);
	print("vm.appel2", "", result + prot * 10 / APPEL_N);
}

/* The worker receives one map item of `pages` pages; then we unmap them again. */
static void map_unmap(L4_Word_t log2pages)
{
	L4_Word_t pages = 1UL << log2pages, t0, t1, t2;
	char p[32];
	unmap_one(L4_FPAGE_MAKE(SRC, 24, 7), 0);
	L4_SetMR(0, L4_TAG_MAKE(W_RECV, 0, 2));
	L4_SetMR(1, WIN | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(SRC, 12 + log2pages, 7));
	t0 = rdtsc();
	L4_Call(worker_id);
	t1 = rdtsc();
	unmap_one(L4_FPAGE_MAKE(SRC, 12 + log2pages, 7), 0);
	t2 = rdtsc();
	snfmt(p, sizeof(p), "pages=%lu", pages);
	print("vm.map", p, (t1 - t0) * 10);
	print("vm.unmap", p, (t2 - t1) * 10);
	if (pages == 1 || pages == 16) {          /* 000 Table 4: mapping RPC of 4 KiB and 64 KiB */
		snfmt(p, sizeof(p), "bytes=%lu", pages * PAGE);
		print("vm.maprpc", p, (t2 - t0) * 10);
	}
}

static void create_delete(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	L4_Word_t t0 = rdtsc();
	for (int i = 0; i < 100; i++) {
		L4_ThreadId_t t = tt_id(10, 1 + i);
		L4_ThreadControl(t, me, me, me, tt_utcb(t));
		L4_ThreadControl(t, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
	}
	print("thread.create_delete", "", (rdtsc() - t0) * 10 / 100);
	print("task.create_delete", "", bench_tasks_create_delete(11, 100));
}

int main(void)
{
	main_id = L4_MyGlobalId();
	if (!pecan_sigma0_request(L4_FPAGE_MAKE(SRC, 24, 7), L4_COMPLETE_SPACE))
		printf("vmbench: sigma0 refused 16 MiB at %lx\n", SRC);
	for (L4_Word_t i = 0; i < 4096; i++)
		*(volatile L4_Word_t *)(SRC + i * PAGE) = i;
	pager_id = tt_id(0, 1);
	worker_id = tt_id(1, 1);
	tt_start_local(pager_id, pager);
	L4_Set_Priority(pager_id, 200);
	tt_start_space_paged(worker_id, worker, pager_id);
	L4_Set_Priority(worker_id, 150);
	vm_tests();
	for (L4_Word_t l = 0; l <= 12; l += 2)
		map_unmap(l);
	create_delete();
	printf("vmbench: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
