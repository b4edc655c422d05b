// SPDX-License-Identifier: MIT
// Host tests of object address allocation and the stale list (servers/mungi/addr.c) against a page model.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../servers/mungi/addr.h"
#include "../../lib/test/test.h"
#include "xorshift.h"

static long live;

static struct bt_node *n_alloc(void *ctx) { (void)ctx; live++; return malloc(sizeof(struct bt_node)); }
static void n_free(void *ctx, struct bt_node *n) { (void)ctx; live--; free(n); }
static struct stale *s_alloc(void *ctx) { (void)ctx; live++; return malloc(sizeof(struct stale)); }
static void s_free(void *ctx, struct stale *s) { (void)ctx; live--; free(s); }

#define BASE   0x100000000UL
#define PAGES  2048
#define DT     100
#define FREE   0
#define USED   1
#define STALE  2
#define P(i)   (BASE + (uint64_t)(i) * ADDR_PAGE)

/* The model: each page's state, and for stale pages when they were released. */
static int state[PAGES];
static uint64_t released[PAGES];

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) { return xorshift64(&rng); }

/* The model's first fit: the lowest run of n free pages, or -1. */
static long model_fit(uint64_t n)
{
	uint64_t run = 0;
	for (long i = 0; i < PAGES; i++) {
		run = state[i] == FREE ? run + 1 : 0;
		if (run == n)
			return i - (long)n + 1;
	}
	return -1;
}

static uint64_t model_runs(void)
{
	uint64_t runs = 0;
	for (int i = 0; i < PAGES; i++)
		runs += state[i] == FREE && (i == 0 || state[i - 1] != FREE);
	return runs;
}

/* Allocated ranges, to free some of them later. */
static struct { uint64_t page, n; } held[PAGES];
static int nheld;

static void setup(struct addr_space *a)
{
	memset(state, 0, sizeof(state));
	nheld = 0;
	addr_init(a, BASE, PAGES, DT, n_alloc, n_free, s_alloc, s_free, NULL);
}

static void teardown(struct addr_space *a)
{
	while (a->stale) {
		struct stale *s = a->stale;
		a->stale = s->next;
		s_free(NULL, s);
	}
	bt_clear(&a->free);
}

TEST_CASE("addr.stale_delay", "a released range is not handed out again before dt has passed, then it is; a reap returns no more ranges than it may")
{
	struct addr_space a;
	setup(&a);
	uint64_t x = addr_alloc(&a, PAGES);
	EXPECT(x == BASE && !addr_alloc(&a, 1), "the whole range: %lx", x);
	EXPECT(addr_release(&a, BASE + 10 * ADDR_PAGE, 5, 1000) == 0, "release");
	addr_reap(&a, 1000 + DT - 1, ~0UL);
	EXPECT(!addr_alloc(&a, 1), "reused before dt");
	addr_reap(&a, 1000 + DT, ~0UL);
	EXPECT(addr_alloc(&a, 5) == BASE + 10 * ADDR_PAGE, "not reused after dt");
	for (int i = 0; i < 10; i++)
		addr_release(&a, BASE + (uint64_t)(20 + 2 * i) * ADDR_PAGE, 1, 2000);
	addr_reap(&a, 2000 + DT, 3);
	EXPECT(a.stale_pages == 7 && a.free_pages == 3, "a reap of at most 3: %lu stale, %lu free", a.stale_pages,
	       a.free_pages);
	teardown(&a);
	EXPECT(live == 0, "leaked %ld", live);
}

TEST_CASE("addr.reserve", "a fixed range comes out of the middle of an extent; overlapping or used ranges are refused")
{
	struct addr_space a;
	setup(&a);
	EXPECT(addr_reserve(&a, P(100), 10) == 0, "reserve");
	EXPECT(addr_reserve(&a, P(105), 10) == -1 && addr_reserve(&a, P(95), 10) == -1, "overlap taken");
	EXPECT(addr_reserve(&a, P(PAGES - 1), 2) == -1 && addr_reserve(&a, P(0), 0) == -1, "outside or empty taken");
	EXPECT(addr_extents(&a) == 2 && a.free_pages == PAGES - 10, "extents %lu", addr_extents(&a));
	EXPECT(addr_alloc(&a, 100) == P(0) && addr_alloc(&a, 1) == P(110), "first fit around the hole");
	teardown(&a);
}

TEST_CASE("addr.random", "2*10^4 random allocations, releases and reaps agree with the page model")
{
	struct addr_space a;
	setup(&a);
	uint64_t now = 0;
	for (int op = 0; op < 20000; op++) {
		now += next() % 7;
		int what = (int)(next() % 10);
		if (what < 5) {
			uint64_t n = 1 + (next() % 3 ? next() % 4 : next() % 64);
			uint64_t got = addr_alloc(&a, n);
			long want = model_fit(n);
			EXPECT(want < 0 ? got == 0 : got == P(want), "op %d: alloc %lu gave %lx, model page %ld", op, n, got,
			       want);
			if (got) {
				for (uint64_t i = 0; i < n; i++)
					state[want + i] = USED;
				held[nheld].page = (uint64_t)want;
				held[nheld++].n = n;
			}
		} else if (what < 8 && nheld) {
			int k = (int)(next() % nheld);
			EXPECT(addr_release(&a, P(held[k].page), held[k].n, now) == 0, "release");
			for (uint64_t i = 0; i < held[k].n; i++) {
				state[held[k].page + i] = STALE;
				released[held[k].page + i] = now;
			}
			held[k] = held[--nheld];
		} else {
			addr_reap(&a, now, ~0UL);
			for (int i = 0; i < PAGES; i++)
				if (state[i] == STALE && now - released[i] >= DT)
					state[i] = FREE;
			EXPECT(addr_extents(&a) == model_runs(), "op %d: %lu extents, model %lu", op, addr_extents(&a),
			       model_runs());
		}
		uint64_t nfree = 0;
		for (int i = 0; i < PAGES; i++)
			nfree += state[i] == FREE;
		EXPECT(a.free_pages == nfree, "op %d: free pages %lu, model %lu", op, a.free_pages, nfree);
	}
	EXPECT(!bt_check(&a.free), "%s", bt_check(&a.free));
	teardown(&a);
	EXPECT(live == 0, "leaked %ld", live);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
