// SPDX-License-Identifier: MIT
// Host tests of the object table (servers/mungi/ot.c): lookups, passwords, and saving
// to and loading from a page store.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../servers/mungi/ot.h"
#include "../../lib/test/test.h"
#include "xorshift.h"

static long live;
static struct bt_node *n_alloc(void *c) { (void)c; live++; return malloc(sizeof(struct bt_node)); }
static void n_free(void *c, struct bt_node *n) { (void)c; live--; free(n); }
static struct ot_obj *o_alloc(void *c) { (void)c; live++; return calloc(1, sizeof(struct ot_obj)); }
static void o_free(void *c, struct ot_obj *o) { (void)c; live--; free(o); }
static struct ot_pw *p_alloc(void *c) { (void)c; live++; return malloc(sizeof(struct ot_pw)); }
static void p_free(void *c, struct ot_pw *p) { (void)c; live--; free(p); }

/* A page store in an array; `room` pages at most. */
#define STORE_MAX 256
static struct { uint64_t key; uint8_t data[STORE_PAGE]; } slots[STORE_MAX];
static int nslots, room = STORE_MAX;

static int find(uint64_t key)
{
	for (int i = 0; i < nslots; i++)
		if (slots[i].key == key)
			return i;
	return -1;
}
static int s_put(void *c, uint64_t key, const void *page)
{
	(void)c;
	int i = find(key);
	if (i < 0) {
		if (nslots >= room)
			return -1;
		i = nslots++;
	}
	slots[i].key = key;
	memcpy(slots[i].data, page, STORE_PAGE);
	return 0;
}
static int s_get(void *c, uint64_t key, void *page)
{
	(void)c;
	int i = find(key);
	if (i < 0)
		return -1;
	memcpy(page, slots[i].data, STORE_PAGE);
	return 0;
}
static int s_del(void *c, uint64_t key) { (void)c; (void)key; return -1; }
static int s_checkpoint(void *c) { (void)c; return 0; }
static const struct pagestore store = { s_put, s_get, s_del, s_checkpoint, NULL };

static void table(struct ot *ot)
{
	ot_init(ot, n_alloc, n_free, o_alloc, o_free, p_alloc, p_free, NULL);
}

static void clear(struct ot *ot)
{
	struct ot_obj *o;
	while ((o = ot_next(ot, 0))) {
		ot_remove(ot, o->base);
		ot_destroy(ot, o);
	}
}

static struct ot_obj *make(struct ot *ot, uint64_t base, uint64_t npages)
{
	struct ot_obj *o = o_alloc(NULL);
	o->base = base;
	o->npages = npages;
	if (ot_insert(ot, o)) {
		o_free(NULL, o);
		return NULL;
	}
	return o;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) { return xorshift64(&rng); }

TEST_CASE("ot.lookup", "an address finds the object containing it and no other; overlaps are refused")
{
	struct ot ot;
	table(&ot);
	EXPECT(make(&ot, 0x10000, 4) && make(&ot, 0x20000, 1), "insert");
	EXPECT(!make(&ot, 0x13000, 2) && !make(&ot, 0xf000, 2) && !make(&ot, 0x10000, 1), "overlap taken");
	EXPECT(!make(&ot, 0x30001, 1) && !make(&ot, 0x40000, 0), "unaligned or empty taken");
	EXPECT(ot_lookup(&ot, 0x10000)->base == 0x10000 && ot_lookup(&ot, 0x13fff)->base == 0x10000, "inside");
	EXPECT(!ot_lookup(&ot, 0x14000) && !ot_lookup(&ot, 0xffff) && !ot_lookup(&ot, 0x21000), "outside found");
	EXPECT(ot_next(&ot, 0x10001)->base == 0x20000 && !ot_next(&ot, 0x20001), "next");
	clear(&ot);
	EXPECT(live == 0, "leaked %ld", live);
}

TEST_CASE("ot.passwords", "rights come from the password alone; revocation removes it and changes gen; bad registrations are refused")
{
	struct ot ot;
	table(&ot);
	struct ot_obj *o = make(&ot, 0x100000, 16);
	uint64_t entries[2] = { 0x100010, 0x101000 }, outside = 0x110000;
	EXPECT(ot_pw_add(&ot, o, 111, MUNGI_OWNER, NULL, 0, 0, 0) == MUNGI_EOK, "owner");
	EXPECT(ot_pw_add(&ot, o, 222, MUNGI_R, NULL, 0, 0, 0) == MUNGI_EOK, "read");
	EXPECT(ot_pw_add(&ot, o, 333, MUNGI_PDX, entries, 2, 0x5000, 77) == MUNGI_EOK, "pdx");
	EXPECT(ot_pw_add(&ot, o, 222, MUNGI_W, NULL, 0, 0, 0) == MUNGI_EEXIST, "duplicate password");
	EXPECT(ot_pw_add(&ot, o, 0, MUNGI_R, NULL, 0, 0, 0) == MUNGI_EINVAL, "password 0");
	EXPECT(ot_pw_add(&ot, o, 444, 0x40, NULL, 0, 0, 0) == MUNGI_EINVAL, "unknown right");
	EXPECT(ot_pw_add(&ot, o, 444, MUNGI_PDX, &outside, 1, 0, 0) == MUNGI_EINVAL, "entry outside");
	EXPECT(ot_pw_add(&ot, o, 444, MUNGI_R, entries, 1, 0, 0) == MUNGI_EINVAL, "entries without PDX");
	EXPECT(ot_rights(o, 111) == MUNGI_OWNER && ot_rights(o, 222) == MUNGI_R && ot_rights(o, 999) == 0 &&
	       ot_rights(o, 0) == 0, "rights");
	struct ot_pw *p = ot_pw_find(o, 333);
	EXPECT(p && p->nentries == 2 && p->entry[1] == 0x101000 && p->clist_pw == 77, "pdx record");
	uint64_t gen = o->gen;
	EXPECT(ot_pw_revoke(&ot, o, 222) == MUNGI_EOK && ot_rights(o, 222) == 0 && o->gen != gen, "revoke");
	EXPECT(ot_pw_revoke(&ot, o, 222) == MUNGI_ENOENT, "revoked twice");
	clear(&ot);
	EXPECT(live == 0, "leaked %ld", live);
}

/* Two tables hold the same descriptors and passwords. */
static const char *same(struct ot *a, struct ot *b)
{
	if (a->objects != b->objects)
		return "object count";
	for (struct ot_obj *o = ot_next(a, 0); o; o = ot_next(a, o->base + 1)) {
		struct ot_obj *q = ot_lookup(b, o->base);
		if (!q || q->base != o->base || q->npages != o->npages || q->flags != o->flags || q->gen != o->gen ||
		    q->account != o->account || q->pager != o->pager || q->pager_pw != o->pager_pw ||
		    q->balance != o->balance || q->charged_pages != o->charged_pages || q->creator != o->creator ||
		    q->npw != o->npw)
			return "descriptor fields";
		for (struct ot_pw *p = o->pw; p; p = p->next) {
			struct ot_pw *r = ot_pw_find(q, p->password);
			if (!r || r->rights != p->rights || r->nentries != p->nentries || r->clist_base != p->clist_base ||
			    r->clist_pw != p->clist_pw || memcmp(r->entry, p->entry, sizeof(p->entry)))
				return "password record";
		}
	}
	return NULL;
}

/* n random objects with random passwords. */
static void fill(struct ot *ot, int n)
{
	uint64_t base = 0x100000000UL;
	for (int i = 0; i < n; i++) {
		base += (1 + next() % 64) * STORE_PAGE;
		uint64_t npages = 1 + next() % 32;
		struct ot_obj *o = make(ot, base, npages);
		base += npages * STORE_PAGE;
		o->flags = next() % 16;
		o->account = next();
		o->pager = next() % 3 ? 0 : o->base + 8;
		o->pager_pw = next();
		o->balance = (int64_t)(next() % 2000) - 1000;
		o->charged_pages = next() % 100;
		o->creator = next() % 50;
		for (unsigned k = next() % OT_MAX_PASSWORDS + 1; k; k--) {
			uint64_t e[MUNGI_MAX_ENTRIES];
			unsigned ne = (unsigned)(next() % (MUNGI_MAX_ENTRIES + 1));
			for (unsigned j = 0; j < ne; j++)
				e[j] = o->base + next() % (npages * STORE_PAGE);
			ot_pw_add(ot, o, next() | 1, ne ? MUNGI_PDX | (uint32_t)(next() % 16) : 1 + (uint32_t)(next() % 31),
				  e, ne, next(), next());
		}
		o->gen = next() % 5;
	}
}

TEST_CASE("ot.save_load", "400 random descriptors with up to 16 passwords each survive ot_save and ot_load exactly")
{
	struct ot a, b;
	table(&a);
	table(&b);
	nslots = 0;
	room = STORE_MAX;
	fill(&a, 400);
	long pages = ot_save(&a, &store);
	EXPECT(pages > 2 && pages == nslots, "%ld pages written, store holds %d", pages, nslots);
	EXPECT(ot_load(&b, &store) == 0, "load failed");
	const char *e = same(&a, &b);
	EXPECT(!e, "%s", e);
	clear(&a);
	clear(&b);
	EXPECT(live == 0, "leaked %ld", live);
}

TEST_CASE("ot.load_bad", "a missing, truncated or corrupt saved table loads as nothing; a full store fails the save")
{
	struct ot a, b;
	table(&a);
	table(&b);
	nslots = 0;
	room = STORE_MAX;
	EXPECT(ot_load(&b, &store) == -1 && b.objects == 0, "an empty store loaded");
	fill(&a, 200);
	EXPECT(ot_save(&a, &store) > 0, "save");
	uint64_t *w = (uint64_t *)slots[0].data;
	w[10] = 99;                                     /* a password count beyond the limit */
	EXPECT(ot_load(&b, &store) == -1 && b.objects == 0, "corrupt record loaded");
	EXPECT(ot_save(&a, &store) > 0, "save again");
	w = (uint64_t *)slots[find(STORE_OT_KEY)].data;
	w[1]++;                                         /* the header counts one object more */
	EXPECT(ot_load(&b, &store) == -1 && b.objects == 0, "wrong count loaded");
	nslots = 0;
	room = 2;
	EXPECT(ot_save(&a, &store) == -1, "a full store took the table");
	clear(&a);
	EXPECT(live == 0, "leaked %ld", live);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
