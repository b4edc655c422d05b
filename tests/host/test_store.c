// SPDX-License-Identifier: MIT
// Host tests of the checkpointed page store (lib/store/) over a RAM block
// device: random operations against a reference model, crashes cut into the
// write stream of a checkpoint at every sector (in order, torn, reordered
// between flushes), a full disk, failing devices and damaged superblocks.
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../lib/store/impl.h"
#include "../../lib/test/test.h"

/* --- a RAM block device that logs writes and fails on demand --- */

struct wrec {
	uint64_t lba;
	uint32_t count;          /* 0: a flush */
	uint8_t *data;
};

struct ramdev {
	struct store_dev dev;
	uint8_t *img;
	int logging;
	struct wrec *log;
	size_t nlog, caplog;
	long writes, reads, flushes;            /* calls so far */
	long fail_write, fail_read, fail_flush; /* fail the call with this number (-1: never) */
};

static int ram_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct ramdev *d = ctx;
	if (d->reads++ == d->fail_read || lba + count > d->dev.sectors)
		return -1;
	memcpy(buf, d->img + lba * STORE_SECTOR, (size_t)count * STORE_SECTOR);
	return 0;
}

static void log_op(struct ramdev *d, uint64_t lba, uint32_t count, const void *buf)
{
	if (!d->logging)
		return;
	if (d->nlog == d->caplog) {
		d->caplog = d->caplog ? 2 * d->caplog : 256;
		d->log = realloc(d->log, d->caplog * sizeof(*d->log));
	}
	struct wrec *w = &d->log[d->nlog++];
	*w = (struct wrec){ lba, count, NULL };
	if (count) {
		w->data = malloc((size_t)count * STORE_SECTOR);
		memcpy(w->data, buf, (size_t)count * STORE_SECTOR);
	}
}

static int ram_write(void *ctx, uint64_t lba, uint32_t count, const void *buf)
{
	struct ramdev *d = ctx;
	if (d->writes++ == d->fail_write || lba + count > d->dev.sectors)
		return -1;
	memcpy(d->img + lba * STORE_SECTOR, buf, (size_t)count * STORE_SECTOR);
	log_op(d, lba, count, buf);
	return 0;
}

static int ram_flush(void *ctx)
{
	struct ramdev *d = ctx;
	if (d->flushes++ == d->fail_flush)
		return -1;
	log_op(d, 0, 0, NULL);
	return 0;
}

static void log_clear(struct ramdev *d)
{
	for (size_t i = 0; i < d->nlog; i++)
		free(d->log[i].data);
	d->nlog = 0;
}

static struct ramdev *ram_new(uint64_t blocks)
{
	struct ramdev *d = calloc(1, sizeof(*d));
	d->dev = (struct store_dev){ d, blocks * BLOCK_SECTORS, ram_read, ram_write, ram_flush };
	d->img = calloc(blocks, STORE_PAGE);
	d->fail_write = d->fail_read = d->fail_flush = -1;
	return d;
}

static void ram_free(struct ramdev *d)
{
	log_clear(d);
	free(d->log);
	free(d->img);
	free(d);
}

/* --- the reference model: a universe of keys, each absent or holding a page made from a seed --- */

#define UNIVERSE 3000

static uint64_t keys[UNIVERSE];          /* sorted, distinct */

struct model {
	uint32_t seed[UNIVERSE];             /* 0: absent */
	uint8_t rec[STORE_ROOT_MAX];
	uint32_t rec_len;
};

static uint64_t rng_state = 1;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Dense runs (object pages), scattered keys and the extremes 0 and ~0. */
static void make_universe(void)
{
	uint64_t saved = rng_state;
	rng_state = 42;
	for (int i = 0; i < UNIVERSE; i++)
		keys[i] = i < 1500 ? 0x100000000ULL + (uint64_t)i : i < 2990 ? rnd() : (uint64_t)(i - 2990);
	keys[UNIVERSE - 1] = ~0ULL;
	qsort(keys, UNIVERSE, sizeof(keys[0]), cmp_u64);
	for (int i = 1; i < UNIVERSE; i++)
		if (keys[i] == keys[i - 1])
			keys[i]++;                   /* (astronomically unlikely) */
	rng_state = saved;
}

static void fill(uint64_t *page, uint64_t key, uint32_t seed)
{
	for (int i = 0; i < 512; i++)
		page[i] = key * 0x9e3779b97f4a7c15ULL + seed * 0x632be59bd9b4e019ULL + (uint64_t)i;
}

static uint64_t page[512], got[512];

/* --- the store under test --- */

#define BIG_CACHE 1024          /* no ENOMEM in changes between checkpoints, unless a test wants it */

struct tstore {
	struct store s;
	struct ramdev *d;
	void *mem;
	uint32_t fanout, cache;
};

static int ts_open(struct tstore *t)
{
	uint32_t cache = t->cache ? t->cache : BIG_CACHE;
	size_t size = store_mem_size(t->d->dev.sectors, cache);
	if (!t->mem)
		t->mem = malloc(size);
	int err = store_open(&t->s, &t->d->dev, t->mem, size, cache);
	if (!err && t->fanout)
		t->s.fanout = t->fanout;
	return err;
}

/* A formatted, open store of `blocks` blocks; fanout 0 keeps the default, cache 0 is BIG_CACHE. */
static int ts_new(struct tstore *t, uint64_t blocks, uint32_t fanout, uint32_t cache)
{
	*t = (struct tstore){ .d = ram_new(blocks), .fanout = fanout, .cache = cache };
	int err = store_format(&t->d->dev);
	return err ? err : ts_open(t);
}

static void ts_free(struct tstore *t)
{
	ram_free(t->d);
	free(t->mem);
}

static char why[200];

/* Does the store hold exactly model m? (why says how it differs) */
static int matches(struct store *s, const struct model *m)
{
	uint64_t k = 0;
	int i = 0, err;
	uint32_t n = 0;
	uint8_t rec[STORE_ROOT_MAX];
	for (int more = 1; more && (err = store_next(s, k, &k)) == STORE_OK; n++) {
		while (i < UNIVERSE && !m->seed[i])
			i++;
		if (i == UNIVERSE || keys[i] != k)
			return snprintf(why, sizeof(why), "key %lx, model %lx", k, i < UNIVERSE ? keys[i] : 0), 0;
		if ((err = store_get(s, k, got)))
			return snprintf(why, sizeof(why), "get %lx: %s", k, store_strerror(err)), 0;
		fill(page, k, m->seed[i]);
		if (memcmp(page, got, STORE_PAGE))
			return snprintf(why, sizeof(why), "key %lx: wrong data", k), 0;
		i++;
		more = k != ~0ULL;
		k++;
	}
	while (i < UNIVERSE && !m->seed[i])
		i++;
	if (i != UNIVERSE || (err != STORE_OK && err != STORE_ENOENT))
		return snprintf(why, sizeof(why), "missing key %lx (%s)", keys[i % UNIVERSE], store_strerror(err)), 0;
	struct store_info info;
	store_get_info(s, &info);
	if (info.keys != n)
		return snprintf(why, sizeof(why), "info says %lu keys, found %u", info.keys, n), 0;
	if (store_root(s, rec, sizeof(rec)) != m->rec_len || memcmp(rec, m->rec, m->rec_len))
		return snprintf(why, sizeof(why), "root record differs"), 0;
	return 1;
}

/*
 * The tree's invariants, checked from outside: every key below an inner
 * node's entry i >= 1 is >= its key and below entry i + 1's; keys in [lo, hi];
 * every reachable block used and not released; the key count.
 */
static int check_node(struct store *s, uint64_t blk, uint32_t sum, unsigned level, uint64_t lo,
		      uint64_t hi, uint64_t *nkeys)
{
	int err;
	struct node *n = cache_get(s, blk, sum, level, &err);
	if (!n)
		return snprintf(why, sizeof(why), "node %lu: %s", blk, store_strerror(err)), 0;
	if (!bit_get(s->used, blk) || bit_get(s->pending, blk) || bit_get(s->retired, blk))
		return snprintf(why, sizeof(why), "node %lu is not in use", blk), 0;
	cache_pin(s, n, 1);
	int ok = 1;
	for (unsigned i = 0; i < n->count && ok; i++) {
		uint64_t k = n->e[i].key, l = level && i == 0 ? lo : k;
		uint64_t h = i + 1 < n->count ? n->e[i + 1].key - 1 : hi;
		if (l < lo || l > hi)
			ok = 0, snprintf(why, sizeof(why), "key %lx out of [%lx, %lx] at level %u", k, lo, hi, level);
		else if (level)
			ok = check_node(s, n->e[i].blk, n->e[i].sum, level - 1, l, h, nkeys);
		else if (!bit_get(s->used, n->e[i].blk) || bit_get(s->pending, n->e[i].blk))
			ok = 0, snprintf(why, sizeof(why), "data block %u is not in use", n->e[i].blk);
		else
			++*nkeys;
	}
	cache_pin(s, n, -1);
	return ok;
}

static int check_tree(struct store *s)
{
	uint64_t nkeys = 0, free_now = s->nfree;
	if (s->height && !check_node(s, s->root, s->root_sum, s->height - 1, 0, ~0ULL, &nkeys))
		return 0;
	space_count_free(s);
	if (nkeys != s->keys || s->nfree != free_now)
		return snprintf(why, sizeof(why), "%lu keys (%lu counted), %lu free (%lu counted)", s->keys,
				nkeys, free_now, s->nfree), 0;
	return 1;
}

static int do_put(struct tstore *t, struct model *m, int i, uint32_t seed)
{
	fill(page, keys[i], seed);
	int err = store_put(&t->s, keys[i], page);
	if (!err)
		m->seed[i] = seed;
	return err;
}

static int do_delete(struct tstore *t, struct model *m, int i)
{
	int err = store_delete(&t->s, keys[i]);
	if (!err)
		m->seed[i] = 0;
	return err;
}

static void set_rec(struct tstore *t, struct model *m, uint32_t v)
{
	m->rec_len = 4 + v % 200;
	for (uint32_t j = 0; j < m->rec_len; j++)
		m->rec[j] = (uint8_t)(v + j);
	store_set_root(&t->s, m->rec, m->rec_len);
}

/* A random key index: mostly from a window (neighbouring keys), sometimes anywhere. */
static int pick(int window)
{
	return rnd() % 4 ? (int)(rnd() % 300) + window : (int)(rnd() % UNIVERSE);
}

static int spill_on_enomem;             /* ENOMEM: spill instead of checkpointing */
static long spills;

/* The cache is full of changed nodes: write them out, no checkpoint. */
static int spill(struct tstore *t)
{
	spills++;
	return store_spill(&t->s);
}

/*
 * n random changes: puts (puts tenths of them), deletes, and one tenth root
 * records.  ENOMEM makes it checkpoint (committed, if given, follows), or
 * spill with spill_on_enomem.
 */
static int mutate_mix(struct tstore *t, struct model *m, struct model *committed, int n, unsigned puts)
{
	int window = (int)(rnd() % (UNIVERSE - 300));
	for (int op = 0; op < n; op++) {
		int i = pick(window), err;
		uint64_t r = rnd() % 10;
		err = r < puts ? do_put(t, m, i, (uint32_t)rnd() | 1) : r < 9 ? do_delete(t, m, i) : 0;
		if (r == 9)
			set_rec(t, m, (uint32_t)rnd());
		if (err == STORE_ENOMEM && spill_on_enomem) {
			err = spill(t);
		} else if (err == STORE_ENOMEM) {
			if ((err = store_checkpoint(&t->s)))
				return err;
			if (committed)
				*committed = *m;
		} else if (err == STORE_ENOENT && !m->seed[i]) {
			err = 0;
		}
		if (err)
			return snprintf(why, sizeof(why), "op %d on %lx: %s", op, keys[i], store_strerror(err)), err;
	}
	return 0;
}

/*
 * Empty a run of neighbouring keys, then refill part of it: inner nodes
 * drain to one entry, lose their first child and merge, the cases that
 * keep separators right.
 */
static int carve_run(struct tstore *t, struct model *m, struct model *committed)
{
	int start = (int)(rnd() % (UNIVERSE - 200)), len = 40 + (int)(rnd() % 160), err = 0;
	for (int i = start; i < start + len && !err; i++)
		if (m->seed[i] && (err = do_delete(t, m, i)) == STORE_ENOMEM && !(err = store_checkpoint(&t->s))) {
			*committed = *m;
			err = do_delete(t, m, i);
		}
	for (int j = 0; j < len / 3 && !err; j++)
		err = do_put(t, m, start + (int)(rnd() % (unsigned)len), (uint32_t)rnd() | 1);
	return err ? snprintf(why, sizeof(why), "carving: %s", store_strerror(err)), err : 0;
}

static int mutate(struct tstore *t, struct model *m, struct model *committed, int n)
{
	return mutate_mix(t, m, committed, n, 6);
}

static struct model m1, m2, m3;

/* A test's start: an empty model m1, the random sequence `seed`, a new store. */
static int begin(struct tstore *t, uint64_t seed, uint64_t blocks, uint32_t fanout, uint32_t cache)
{
	memset(&m1, 0, sizeof(m1));
	rng_state = seed;
	spill_on_enomem = 0;                 /* (a failed test may have left it on) */
	return ts_new(t, blocks, fanout, cache);
}

TEST_CASE("store.empty", "a new store is empty at checkpoint 1, keeps a root record and gives ENOENT for every key")
{
	struct tstore t;
	EXPECT(begin(&t, 1, 256, 0, 0) == STORE_OK, "format and open");
	EXPECT(t.s.seq == 1 && matches(&t.s, &m1), "not empty: %s", why);
	EXPECT(store_get(&t.s, 5, got) == STORE_ENOENT && store_delete(&t.s, 5) == STORE_ENOENT, "a missing key");
	uint64_t k;
	EXPECT(store_next(&t.s, 0, &k) == STORE_ENOENT, "next in an empty store");
	set_rec(&t, &m1, 7);
	EXPECT(store_set_root(&t.s, page, STORE_ROOT_MAX + 1) == STORE_EINVAL, "a record too long");
	EXPECT(store_checkpoint(&t.s) == STORE_OK && ts_open(&t) == STORE_OK, "checkpoint, reopen");
	EXPECT(t.s.seq == 2 && matches(&t.s, &m1), "after reopen: %s", why);
	ts_free(&t);
}

TEST_CASE("store.bad_open", "unformatted devices, too little memory or cache, devices too small: clear errors")
{
	struct tstore t = { .d = ram_new(256) };
	EXPECT(ts_open(&t) == STORE_ENOSTORE, "a zeroed device opened");
	size_t size = store_mem_size(t.d->dev.sectors, BIG_CACHE);
	EXPECT(store_open(&t.s, &t.d->dev, t.mem, size - 1, BIG_CACHE) == STORE_EINVAL, "memory too small");
	EXPECT(store_open(&t.s, &t.d->dev, t.mem, size, STORE_MIN_CACHE - 1) == STORE_EINVAL, "cache too small");
	EXPECT(store_open(&t.s, &t.d->dev, (char *)t.mem + 1, size, BIG_CACHE) == STORE_EINVAL, "misaligned memory");
	EXPECT(store_format(&t.d->dev) == STORE_OK, "format");
	t.d->fail_read = t.d->reads + 1;
	EXPECT(ts_open(&t) == STORE_EIO, "an unreadable superblock did not give EIO");
	EXPECT(ts_open(&t) == STORE_OK, "open");
	struct ramdev *tiny = ram_new(32);
	EXPECT(store_format(&tiny->dev) == STORE_EINVAL, "a 128 KiB device was formatted");
	ram_free(tiny);
	ts_free(&t);
}

TEST_CASE("store.random_model", "20000 random puts, deletes and records, checkpoints and reopens, against a model; deep trees (fanout 8)")
{
	struct tstore t;
	EXPECT(begin(&t, 7, 4096, 8, 0) == STORE_OK, "format and open");
	m2 = m1;                             /* m1: current, m2: last checkpoint */
	uint32_t max_height = 0;
	for (int round = 0; round < 200; round++) {
		unsigned puts = round % 4 == 3 ? 2 : 7;  /* growing and shrinking regions */
		EXPECT(mutate_mix(&t, &m1, &m2, 100, puts) == 0, "round %d: %s", round, why);
		EXPECT(round % 3 || carve_run(&t, &m1, &m2) == 0, "round %d: %s", round, why);
		max_height = t.s.height > max_height ? t.s.height : max_height;
		uint64_t r = rnd() % 4;
		if (r == 0) {                    /* reopen without a checkpoint: back to the last one */
			EXPECT(ts_open(&t) == STORE_OK, "reopen");
			m1 = m2;
		} else if (r < 3) {
			EXPECT(store_checkpoint(&t.s) == STORE_OK, "checkpoint");
			m2 = m1;
		}
		EXPECT(matches(&t.s, &m1) && check_tree(&t.s), "round %d: %s", round, why);
	}
	EXPECT(max_height >= 4, "the tree never grew deep: height %u", max_height);
	EXPECT(store_checkpoint(&t.s) == STORE_OK && ts_open(&t) == STORE_OK && matches(&t.s, &m1), "final: %s", why);
	ts_free(&t);
}

TEST_CASE("store.space_returns", "deleting everything and checkpointing twice gives every block back")
{
	struct tstore t;
	EXPECT(begin(&t, 9, 1024, 8, 0) == STORE_OK, "format and open");
	struct store_info a, b;
	store_get_info(&t.s, &a);
	for (int i = 0; i < 600; i++)
		EXPECT(do_put(&t, &m1, i * 5 % UNIVERSE, (uint32_t)i + 1) == STORE_OK, "put %d", i);
	EXPECT(store_checkpoint(&t.s) == STORE_OK, "checkpoint");
	for (int i = 0; i < UNIVERSE; i++)
		if (m1.seed[i])
			EXPECT(do_delete(&t, &m1, i) == STORE_OK || store_checkpoint(&t.s) == STORE_OK, "delete %d", i);
	for (int i = 0; i < UNIVERSE; i++)
		if (m1.seed[i])
			EXPECT(do_delete(&t, &m1, i) == STORE_OK, "second delete %d", i);
	EXPECT(store_checkpoint(&t.s) == STORE_OK && store_checkpoint(&t.s) == STORE_OK, "checkpoints");
	store_get_info(&t.s, &b);
	EXPECT(b.free_blocks == a.free_blocks && b.height == 0 && b.keys == 0,
	       "free %lu -> %lu, height %u", a.free_blocks, b.free_blocks, b.height);
	EXPECT(ts_open(&t) == STORE_OK, "reopen");
	store_get_info(&t.s, &b);
	EXPECT(b.free_blocks == a.free_blocks, "after reopen: free %lu, want %lu", b.free_blocks, a.free_blocks);
	ts_free(&t);
}

/* --- crash injection --- */

/* Apply the first `sectors` sectors of log records [from, to) to img. */
static void apply(uint8_t *img, const struct ramdev *d, size_t from, size_t to, long sectors)
{
	for (size_t r = from; r < to && sectors > 0; r++) {
		const struct wrec *w = &d->log[r];
		long n = (long)w->count < sectors ? (long)w->count : sectors;
		if (n)
			memcpy(img + w->lba * STORE_SECTOR, w->data, (size_t)n * STORE_SECTOR);
		sectors -= n;
	}
}

static int is_superblock(const struct wrec *w)
{
	return w->count == 1 && (w->lba == 0 || w->lba == BLOCK_SECTORS);
}

/* The device crash images are opened on, with a small cache. */
static struct tstore probe;

static uint8_t *probe_new(uint64_t blocks, uint32_t fanout)
{
	probe = (struct tstore){ .d = ram_new(blocks), .fanout = fanout, .cache = 64 };
	return probe.d->img;
}

/* Open a store on the probe's image and say which model it holds: 1 a, 2 b, 0 neither. */
static int which(const struct model *a, const struct model *b)
{
	int err = ts_open(&probe), r = 0;
	if (err)
		snprintf(why, sizeof(why), "open: %s", store_strerror(err));
	else if (probe.s.fell_back)          /* a crash never damages a checkpoint */
		snprintf(why, sizeof(why), "opened the checkpoint before the newest");
	else
		r = matches(&probe.s, a) ? 1 : matches(&probe.s, b) ? 2 : 0;
	/* the recovered store must go on working: one more change and a checkpoint */
	if (r && (do_put(&probe, &m3, 0, 99) || store_checkpoint(&probe.s) || ts_open(&probe)))
		r = 0, snprintf(why, sizeof(why), "the recovered store cannot go on");
	return r;
}

struct crash {
	struct tstore t;
	uint8_t *base;          /* the device at checkpoint a */
	uint64_t blocks;
	size_t sb_rec;          /* log index of the superblock write */
	long sb_sector;         /* sectors written before it */
	long total;
};

/* Checkpoint m1 (a), then change it into m2 (b) and checkpoint, logging the writes of the second. */
static int record(struct crash *c, uint64_t seed, uint64_t blocks, uint32_t fanout, uint32_t cache, int changes)
{
	rng_state = seed;
	memset(&m1, 0, sizeof(m1));
	memset(&m3, 0, sizeof(m3));
	if (ts_new(&c->t, blocks, fanout, cache) || mutate(&c->t, &m1, NULL, 400) ||
	    store_checkpoint(&c->t.s) || mutate(&c->t, &m1, NULL, 400) || store_checkpoint(&c->t.s))
		return 0;
	c->blocks = blocks;
	c->base = malloc(blocks * STORE_PAGE);
	memcpy(c->base, c->t.d->img, blocks * STORE_PAGE);
	m2 = m1;
	c->t.d->logging = 1;
	uint64_t seq = c->t.s.seq;
	if (mutate(&c->t, &m2, NULL, changes) || store_checkpoint(&c->t.s) || c->t.s.seq != seq + 1)
		return 0;
	c->total = 0;
	for (size_t r = 0; r < c->t.d->nlog; r++) {
		if (is_superblock(&c->t.d->log[r]))
			c->sb_rec = r, c->sb_sector = c->total;
		c->total += c->t.d->log[r].count;
	}
	return 1;
}

/* The device as checkpoint a left it plus the first `sectors` sectors of the first `records` writes. */
static void image_at(const struct crash *c, uint8_t *img, size_t records, long sectors)
{
	memcpy(img, c->base, c->blocks * STORE_PAGE);
	apply(img, c->t.d, 0, records, sectors);
}

static void crash_free(struct crash *c)
{
	ts_free(&c->t);
	ts_free(&probe);
	free(c->base);
}

static char cut_why[300];

/*
 * Cut the logged writes after sector k, for k = 0, stride, 2 stride ...
 * (every k near the end): the old state up to the superblock's sector, the
 * new one after it.
 */
static int cut_in_order(struct crash *c, uint32_t fanout, long stride)
{
	uint8_t *img = probe_new(c->blocks, fanout);
	for (long k = 0; k <= c->total; k += k < c->total - 40 ? stride : 1) {
		image_at(c, img, c->t.d->nlog, k);
		int want = k <= c->sb_sector ? 1 : 2, s = which(&m1, &m2);
		if (s != want)
			return snprintf(cut_why, sizeof(cut_why), "cut after %ld of %ld sectors: state %d, want %d (%s)",
					k, c->total, s, want, why), 0;
	}
	return 1;
}

TEST_CASE("store.crash_every_sector", "a crash after every sector write of a checkpoint recovers the old state before the superblock and the new one after, never a mixture")
{
	struct crash c;
	EXPECT(record(&c, 11, 2048, 8, 0, 150), "record: %s", why);
	EXPECT(c.total > 200 && c.sb_sector > 0, "too few writes to cut: %ld", c.total);
	EXPECT(cut_in_order(&c, 8, 1), "%s", cut_why);
	crash_free(&c);
}

TEST_CASE("store.crash_torn", "a crash tearing a multi-sector write (later sectors landed, earlier not) or half a sector recovers old or new")
{
	struct crash c;
	EXPECT(record(&c, 12, 2048, 8, 0, 150), "record: %s", why);
	uint8_t *img = probe_new(c.blocks, 8);
	long sector = 0;
	for (size_t r = 0; r < c.t.d->nlog; r++) {
		const struct wrec *w = &c.t.d->log[r];
		for (uint32_t j = 0; j < w->count; j++) {
			/* all before this write, then only sectors j.. of it, the first of them half */
			image_at(&c, img, r, sector);
			memcpy(img + (w->lba + j) * STORE_SECTOR, w->data + j * STORE_SECTOR, STORE_SECTOR / 2);
			if (j + 1 < w->count)
				memcpy(img + (w->lba + j + 1) * STORE_SECTOR, w->data + (j + 1) * STORE_SECTOR,
				       (w->count - j - 1) * STORE_SECTOR);
			int s = which(&m1, &m2);
			EXPECT(s == 1, "write %zu torn at sector %u: state %d (%s)", r, j, s, why);
		}
		sector += w->count;
	}
	crash_free(&c);
}

TEST_CASE("store.crash_reordered", "writes between two flushes landing in any order (random subsets of sectors) recover old or new")
{
	struct crash c;
	EXPECT(record(&c, 13, 2048, 8, 0, 150), "record: %s", why);
	uint8_t *img = probe_new(c.blocks, 8);
	size_t epoch = 0;
	int seen[3] = { 0 };
	for (size_t r = 0; r <= c.t.d->nlog; r++) {
		if (r < c.t.d->nlog && c.t.d->log[r].count)
			continue;
		for (int trial = 0; trial < 40; trial++) {       /* crash inside epoch [epoch, r) */
			image_at(&c, img, epoch, c.total);
			for (size_t q = epoch; q < r; q++)
				for (uint32_t j = 0; j < c.t.d->log[q].count; j++)
					if (rnd() & 1)
						memcpy(img + (c.t.d->log[q].lba + j) * STORE_SECTOR,
						       c.t.d->log[q].data + j * STORE_SECTOR, STORE_SECTOR);
			int s = which(&m1, &m2);
			EXPECT(s != 0, "epoch [%zu, %zu) trial %d: neither state (%s)", epoch, r, trial, why);
			seen[s]++;
		}
		epoch = r + 1;
	}
	EXPECT(seen[1] && seen[2], "only one outcome ever: old %d, new %d", seen[1], seen[2]);
	crash_free(&c);
}

TEST_CASE("store.crash_default_fanout", "the crash cut at every seventh sector (every one near the end) with full-size nodes (fanout 255) and many pages")
{
	struct crash c;
	EXPECT(record(&c, 14, 4096, 0, 0, 600), "record: %s", why);
	EXPECT(c.t.s.height >= 2, "height %u", c.t.s.height);
	EXPECT(cut_in_order(&c, 0, 7), "%s", cut_why);
	crash_free(&c);
}

TEST_CASE("store.crash_spilled", "a checkpoint whose changes were spilled several times on the way (a cache of 32 nodes): a crash after every sector recovers old before the superblock, new after")
{
	struct crash c;
	long before = spills;
	spill_on_enomem = 1;
	int ok = record(&c, 15, 2048, 8, STORE_MIN_CACHE, 200);
	spill_on_enomem = 0;
	EXPECT(ok, "record: %s", why);
	EXPECT(spills - before >= 3, "only %ld spills while recording", spills - before);
	EXPECT(cut_in_order(&c, 8, 5), "%s", cut_why);
	crash_free(&c);
}

TEST_CASE("store.full_disk", "puts on a full disk fail with ENOSPC and change nothing; the store checkpoints, reopens and recovers space")
{
	struct tstore t;
	EXPECT(begin(&t, 1, 128, 8, 0) == STORE_OK, "format and open");
	int i, err = 0;
	for (i = 0; i < UNIVERSE && !(err = do_put(&t, &m1, i, (uint32_t)i + 1)); i++)
		;
	EXPECT(err == STORE_ENOSPC, "put %d: %s", i, store_strerror(err));
	EXPECT(i > 40 && i < 128, "%d pages fit on 128 blocks", i);
	EXPECT(matches(&t.s, &m1), "after ENOSPC: %s", why);
	m2 = m1;
	EXPECT(store_checkpoint(&t.s) == STORE_OK, "checkpoint on a full disk");
	EXPECT(do_put(&t, &m1, i, 5) == STORE_ENOSPC, "still full");
	EXPECT(ts_open(&t) == STORE_OK && matches(&t.s, &m2), "reopen: %s", why);
	for (int j = 0; j < i; j += 2)
		EXPECT(do_delete(&t, &m1, j) == STORE_OK, "delete %d on a full disk", j);
	EXPECT(store_checkpoint(&t.s) == STORE_OK, "checkpoint");
	EXPECT(do_put(&t, &m1, i, 5) == STORE_ENOSPC, "space came back one checkpoint early");
	EXPECT(store_checkpoint(&t.s) == STORE_OK, "second checkpoint");
	EXPECT(do_put(&t, &m1, i, 5) == STORE_OK, "no space after two checkpoints");
	EXPECT(store_checkpoint(&t.s) == STORE_OK && ts_open(&t) == STORE_OK && matches(&t.s, &m1), "end: %s", why);
	ts_free(&t);
}

TEST_CASE("store.enomem", "more changed nodes than the cache holds: ENOMEM, nothing changed; a checkpoint makes room")
{
	struct tstore t;
	EXPECT(begin(&t, 5, 4096, 8, 64) == STORE_OK, "format and open");
	for (int i = 0; i < 1000; i++)
		if (do_put(&t, &m1, i * 3, 1) == STORE_ENOMEM)
			EXPECT(store_checkpoint(&t.s) == STORE_OK && do_put(&t, &m1, i * 3, 1) == STORE_OK, "put %d", i);
	EXPECT(store_checkpoint(&t.s) == STORE_OK, "checkpoint");
	int err = 0, n;
	for (n = 0; n < 1000 && !(err = do_put(&t, &m1, (n * 7919) % 3000, 2)); n++)
		;
	EXPECT(err == STORE_ENOMEM, "scattered puts: %s after %d", store_strerror(err), n);
	EXPECT(matches(&t.s, &m1), "after ENOMEM: %s", why);
	EXPECT(store_checkpoint(&t.s) == STORE_OK && do_put(&t, &m1, (n * 7919) % 3000, 2) == STORE_OK, "retry");
	EXPECT(store_checkpoint(&t.s) == STORE_OK && ts_open(&t) == STORE_OK && matches(&t.s, &m1), "reopen: %s", why);
	ts_free(&t);
}

TEST_CASE("store.spill_model", "a cache of 32 nodes: ENOMEM answered by spills, not checkpoints, lets thousands of changes wait for one checkpoint; against a model, with reopens that drop what was spilled")
{
	struct tstore t;
	EXPECT(begin(&t, 16, 4096, 8, STORE_MIN_CACHE) == STORE_OK, "format and open");
	m2 = m1;                             /* m1: current, m2: last checkpoint */
	long before = spills;
	spill_on_enomem = 1;
	for (int round = 0; round < 12; round++) {
		unsigned puts = round % 4 == 3 ? 2 : 7;
		EXPECT(mutate_mix(&t, &m1, NULL, 300, puts) == 0, "round %d: %s", round, why);
		EXPECT(matches(&t.s, &m1) && check_tree(&t.s), "round %d: %s", round, why);
		if (round % 6 == 5) {            /* reopen: every spilled change is gone */
			EXPECT(ts_open(&t) == STORE_OK && matches(&t.s, &m2), "reopen in round %d: %s", round, why);
			m1 = m2;
		} else if (round % 3 == 2) {
			EXPECT(store_checkpoint(&t.s) == STORE_OK, "checkpoint");
			m2 = m1;
			EXPECT(ts_open(&t) == STORE_OK && matches(&t.s, &m2), "after a checkpoint: %s", why);
		}
	}
	spill_on_enomem = 0;
	EXPECT(spills - before >= 20, "only %ld spills", spills - before);
	ts_free(&t);
}

TEST_CASE("store.io_errors", "failing writes, reads and flushes: clear errors, nothing lost, the last checkpoint survives")
{
	struct tstore t;
	EXPECT(begin(&t, 6, 2048, 8, 0) == STORE_OK, "format and open");
	EXPECT(mutate(&t, &m1, NULL, 300) == 0 && store_checkpoint(&t.s) == STORE_OK, "setup: %s", why);
	m2 = m1;
	t.d->fail_write = t.d->writes;
	EXPECT(do_put(&t, &m1, 17, 3) == STORE_EIO, "a failed data write");
	EXPECT(matches(&t.s, &m1), "after a failed put: %s", why);
	EXPECT(mutate(&t, &m1, NULL, 100) == 0, "changes: %s", why);
	t.d->fail_write = t.d->writes;      /* the first node write of the checkpoint */
	EXPECT(store_checkpoint(&t.s) == STORE_EIO, "a failed node write");
	t.d->fail_flush = t.d->flushes;
	EXPECT(store_checkpoint(&t.s) == STORE_EIO, "a failed flush");
	EXPECT(store_checkpoint(&t.s) == STORE_OK, "the retry");
	m2 = m1;
	EXPECT(matches(&t.s, &m1) && ts_open(&t) == STORE_OK && matches(&t.s, &m2), "after the retry: %s", why);
	EXPECT(mutate(&t, &m1, NULL, 100) == 0, "changes: %s", why);
	t.d->fail_flush = t.d->flushes + 1; /* the flush after the superblock */
	EXPECT(store_checkpoint(&t.s) == STORE_EIO, "a failed superblock flush");
	EXPECT(do_put(&t, &m1, 3, 3) == STORE_EBROKEN && store_checkpoint(&t.s) == STORE_EBROKEN, "not broken");
	EXPECT(ts_open(&t) == STORE_OK && (matches(&t.s, &m1) || matches(&t.s, &m2)), "reopen: %s", why);
	t.d->fail_read = t.d->reads;
	EXPECT(ts_open(&t) == STORE_EIO, "an unreadable superblock did not give EIO");
	EXPECT(ts_open(&t) == STORE_OK, "reopen");
	uint64_t k;
	EXPECT(store_next(&t.s, 0, &k) == STORE_OK, "a key");
	t.d->fail_read = t.d->reads;
	EXPECT(store_get(&t.s, k, got) == STORE_EIO, "a failed data read");
	ts_free(&t);
}

/* Flip one byte of the block `blk` on the device. */
static void damage(struct tstore *t, uint64_t blk, size_t offset)
{
	t->d->img[blk * STORE_PAGE + offset] ^= 0x40;
}

TEST_CASE("store.damaged_superblocks", "a damaged newest superblock or tree falls back to the checkpoint before, intact; both damaged: ENOSTORE")
{
	struct tstore t;
	EXPECT(begin(&t, 8, 2048, 8, 0) == STORE_OK, "format and open");
	EXPECT(mutate(&t, &m1, NULL, 300) == 0 && store_checkpoint(&t.s) == STORE_OK, "a: %s", why);
	m2 = m1;
	EXPECT(mutate(&t, &m1, NULL, 300) == 0 && store_checkpoint(&t.s) == STORE_OK, "b: %s", why);
	int slot_b = t.s.slot;
	uint64_t root_b = t.s.root;
	m3 = m1;                             /* fill the disk after b: no write may touch a */
	int i, err = 0;
	for (i = 0; i < UNIVERSE && !(err = do_put(&t, &m3, i, 77)); i++)
		;
	EXPECT(err == STORE_ENOSPC, "filling after b: %s", store_strerror(err));
	uint8_t *saved = malloc(2048 * STORE_PAGE);
	memcpy(saved, t.d->img, 2048 * STORE_PAGE);
	static const size_t offsets[] = { 0, 8, 16, 40, 300, 320 };   /* magic .. checksum */
	for (unsigned o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
		memcpy(t.d->img, saved, 2048 * STORE_PAGE);
		damage(&t, (uint64_t)slot_b, offsets[o]);
		EXPECT(ts_open(&t) == STORE_OK && matches(&t.s, &m2), "superblock byte %zu: %s", offsets[o], why);
		EXPECT(!t.s.fell_back, "a damaged superblock is no damaged tree");
	}
	memcpy(t.d->img, saved, 2048 * STORE_PAGE);
	damage(&t, root_b, 100);
	EXPECT(ts_open(&t) == STORE_OK && matches(&t.s, &m2), "a damaged root node: %s", why);
	EXPECT(t.s.fell_back, "fell_back not set");
	EXPECT(mutate(&t, &m2, NULL, 100) == 0 && store_checkpoint(&t.s) == STORE_OK, "going on: %s", why);
	EXPECT(ts_open(&t) == STORE_OK && matches(&t.s, &m2), "after going on: %s", why);
	damage(&t, 0, 16);
	damage(&t, 1, 16);
	EXPECT(ts_open(&t) == STORE_ENOSTORE, "both superblocks damaged");
	memcpy(t.d->img, saved, 2048 * STORE_PAGE);
	EXPECT(ts_open(&t) == STORE_OK, "reopen");
	struct entry e;
	uint64_t k;
	EXPECT(store_next(&t.s, 0, &k) == STORE_OK && tree_lookup(&t.s, k, &e) == STORE_OK, "a key");
	damage(&t, e.blk, 4000);
	EXPECT(store_get(&t.s, k, got) == STORE_EDAMAGED, "a damaged data page read back");
	free(saved);
	ts_free(&t);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);    /* a failed case leaks; the leak report must not swallow the lines */
	make_universe();
	return test_run_all() ? 1 : 0;
}
