// SPDX-License-Identifier: MIT
// Host tests of the object table's B+-tree (servers/mungi/btree.c) against a sorted-array model.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../servers/mungi/btree.h"
#include "../../lib/test/test.h"
#include "xorshift.h"

static long live;
static int fail_after = -1;       /* allocations left before one fails; -1: never */

static struct bt_node *t_alloc(void *ctx)
{
	(void)ctx;
	if (fail_after == 0)
		return NULL;
	if (fail_after > 0)
		fail_after--;
	live++;
	struct bt_node *n = malloc(sizeof(*n));
	memset(n, 0xa5, sizeof(*n));    /* nothing may rely on fresh nodes being zero */
	return n;
}

static void t_free(void *ctx, struct bt_node *n)
{
	(void)ctx;
	live--;
	free(n);
}

/* The model: keys in order, each with its value. */
#define MODEL_MAX 30000
static uint64_t mkey[MODEL_MAX];
static void *mval[MODEL_MAX];
static int mn;

static int m_lower(uint64_t k)
{
	int lo = 0, hi = mn;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (mkey[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int m_insert(uint64_t k, void *v)
{
	int i = m_lower(k);
	if (i < mn && mkey[i] == k)
		return -1;
	memmove(&mkey[i + 1], &mkey[i], (mn - i) * sizeof(mkey[0]));
	memmove(&mval[i + 1], &mval[i], (mn - i) * sizeof(mval[0]));
	mkey[i] = k;
	mval[i] = v;
	mn++;
	return 0;
}

static void *m_remove(uint64_t k)
{
	int i = m_lower(k);
	if (i == mn || mkey[i] != k)
		return NULL;
	void *v = mval[i];
	memmove(&mkey[i], &mkey[i + 1], (mn - i - 1) * sizeof(mkey[0]));
	memmove(&mval[i], &mval[i + 1], (mn - i - 1) * sizeof(mval[0]));
	mn--;
	return v;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next(void) { return xorshift64(&rng); }

#define VAL(k) ((void *)(uintptr_t)((k) * 2 + 1))

/* Compare every lookup kind at key k with the model; NULL or what differs. */
static const char *agree(struct btree *t, uint64_t k)
{
	int i = m_lower(k);
	void *want = i < mn && mkey[i] == k ? mval[i] : NULL;
	if (bt_find(t, k) != want)
		return "find";
	uint64_t f;
	void *v;
	bool has = bt_floor(t, k, &f, &v);
	int fi = i < mn && mkey[i] == k ? i : i - 1;
	if (has != (fi >= 0) || (has && (f != mkey[fi] || v != mval[fi])))
		return "floor";
	has = bt_ceil(t, k, &f, &v);
	if (has != (i < mn) || (has && (f != mkey[i] || v != mval[i])))
		return "ceil";
	return NULL;
}

/* n random operations with keys below range; checks structure every `every` ops. */
static const char *random_run(struct btree *t, int n, uint64_t range, int insert_pct, int every)
{
	static char why[160];
	for (int op = 0; op < n; op++) {
		uint64_t k = next() % range;
		if ((int)(next() % 100) < insert_pct) {
			int a = bt_insert(t, k, VAL(k)), b = mn < MODEL_MAX ? m_insert(k, VAL(k)) : -1;
			if (a != b) {
				snprintf(why, sizeof(why), "op %d: insert %lu gave %d, model %d", op, k, a, b);
				return why;
			}
		} else if (bt_remove(t, k) != m_remove(k)) {
			snprintf(why, sizeof(why), "op %d: remove %lu disagrees", op, k);
			return why;
		}
		const char *e = agree(t, k);
		if (!e)
			e = agree(t, next() % range);
		if (!e && (op % every == 0 || op == n - 1))
			e = bt_check(t);
		if (!e && t->count != (uint64_t)mn)
			e = "count";
		if (e) {
			snprintf(why, sizeof(why), "op %d key %lu: %s", op, k, e);
			return why;
		}
	}
	return NULL;
}

static void reset(struct btree *t)
{
	bt_clear(t);
	mn = 0;
}

TEST_CASE("btree.empty", "an empty tree finds nothing and removes nothing")
{
	struct btree t;
	bt_init(&t, t_alloc, t_free, NULL);
	uint64_t f;
	void *v;
	EXPECT(!bt_find(&t, 5) && !bt_floor(&t, 5, &f, &v) && !bt_ceil(&t, 5, &f, &v), "found something");
	EXPECT(!bt_remove(&t, 5) && !bt_check(&t), "remove or check");
}

TEST_CASE("btree.ascending", "10^4 ascending inserts, then removal of all in ascending order")
{
	struct btree t;
	bt_init(&t, t_alloc, t_free, NULL);
	for (uint64_t k = 0; k < 10000; k++)
		EXPECT(bt_insert(&t, k << 12, VAL(k)) == 0, "insert %lu", k);
	EXPECT(!bt_check(&t), "%s", bt_check(&t));
	EXPECT(t.height >= 3, "height %u for 10^4 keys", t.height);
	EXPECT(bt_insert(&t, 77 << 12, VAL(1)) == -1, "a duplicate was taken");
	for (uint64_t k = 0; k < 10000; k++) {
		uint64_t f;
		void *v;
		EXPECT(bt_floor(&t, (k << 12) + 4095, &f, &v) && f == k << 12 && v == VAL(k), "floor in %lu", k);
	}
	for (uint64_t k = 0; k < 10000; k++)
		EXPECT(bt_remove(&t, k << 12) == VAL(k), "remove %lu", k);
	EXPECT(!t.root && t.count == 0 && live == 0, "left: count %lu, nodes %ld", t.count, live);
}

TEST_CASE("btree.random_small_range", "5*10^4 random inserts and removals over 3000 keys agree with the model")
{
	struct btree t;
	bt_init(&t, t_alloc, t_free, NULL);
	const char *e = random_run(&t, 50000, 3000, 55, 251);
	EXPECT(!e, "%s", e);
	reset(&t);
	EXPECT(live == 0, "nodes leaked: %ld", live);
}

TEST_CASE("btree.random_grow_shrink", "the tree grows to about 18000 keys and shrinks to none, in random order")
{
	struct btree t;
	bt_init(&t, t_alloc, t_free, NULL);
	const char *e = random_run(&t, 20000, 1UL << 40, 90, 2003);
	EXPECT(!e, "grow: %s", e);
	e = random_run(&t, 30000, 1UL << 40, 0, 2003);
	EXPECT(!e, "shrink: %s", e);
	while (mn) {
		uint64_t k = mkey[next() % mn];
		EXPECT(bt_remove(&t, k) == m_remove(k), "remove %lu", k);
	}
	EXPECT(!bt_check(&t) && !t.root && live == 0, "not empty: %ld nodes", live);
}

TEST_CASE("btree.alloc_failure", "an insert that cannot get its nodes fails and changes nothing")
{
	struct btree t;
	bt_init(&t, t_alloc, t_free, NULL);
	mn = 0;
	for (int round = 0; round < 3000; round++) {
		uint64_t k = next() % 100000;
		fail_after = (int)(next() % 4);
		int a = bt_insert(&t, k, VAL(k));
		fail_after = -1;
		if (a == 0)
			EXPECT(m_insert(k, VAL(k)) == 0, "insert %lu succeeded in the tree only", k);
		const char *e = bt_check(&t);
		EXPECT(!e, "round %d: %s", round, e);
		EXPECT(t.count == (uint64_t)mn && !agree(&t, k), "round %d: contents differ", round);
	}
	reset(&t);
	EXPECT(live == 0, "nodes leaked: %ld", live);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
