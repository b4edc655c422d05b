// SPDX-License-Identifier: MIT
// Host tests of the mapping database (kernel/mdb.c): fixed cases, then random sequences against a naive model.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdb.h"
#include "../../lib/test/test.h"

#define NSPACES  4
#define NPAGES   8
#define NBUCKETS 8              /* few buckets: long chains, many collisions */

static struct mdb_space spaces[NSPACES];    /* their addresses are the space pointers */
#define SP(i) ((const void *)&spaces[i])
#define VA(p) ((word_t)(p) * PAGE_SIZE)
#define PA(f) (0x100000UL + (word_t)(f) * PAGE_SIZE)
#define RW  (MDB_R | MDB_W)
#define RX  (MDB_R | MDB_X)

static char why[256];           /* the first problem a hook or a check saw */

static void note(const char *what, int s, word_t p, unsigned a, unsigned b)
{
	if (!why[0])
		snprintf(why, sizeof(why), "%s: space %d page %lu (%u, %u)", what, s, p, a, b);
}

/* --- the "kernel" around the mdb: a node allocator and page tables --- */

static long live, alloc_calls, updates;
static bool fail_alloc;

static void *t_alloc(void *ctx, const void *space)
{
	(void)space;
	(void)ctx;
	alloc_calls++;
	if (fail_alloc)
		return NULL;
	live++;
	return malloc(sizeof(struct mdb_node));
}

static void t_free(void *ctx, void *node)
{
	(void)ctx;
	live--;
	free(node);
}

/* A page-table entry: rights, and accessed status as rwx bits. */
struct pte { unsigned rights, status; };
static struct pte pt[NSPACES][NPAGES];

/* The update hook: page table must hold old_rights; rights never grow here. */
static unsigned t_update(void *ctx, const void *space, word_t va, unsigned old, unsigned new)
{
	(void)ctx;
	long s = (const struct mdb_space *)space - spaces;
	word_t p = va / PAGE_SIZE;
	updates++;
	if (s < 0 || s >= NSPACES || p >= NPAGES || va % PAGE_SIZE) {
		note("update of an unknown place", (int)s, p, old, new);
		return 0;
	}
	struct pte *e = &pt[s][p];
	if (e->rights != old || (new & ~old) || !old)
		note("update disagrees with the page table", (int)s, p, e->rights, old);
	unsigned status = e->status;
	*e = (struct pte){ new, 0 };
	return status;
}

static const struct mdb_ops ops = { t_alloc, t_free, t_update, NULL };
static struct mdb db;
static struct mdb_node *buckets[NBUCKETS];

/* A fresh, empty mdb; the previous test's nodes are freed first. */
static void setup(void)
{
	for (int s = 0; db.buckets && s < NSPACES; s++)
		mdb_remove_space(&db, SP(s));
	memset(pt, 0, sizeof(pt));
	memset(spaces, 0, sizeof(spaces));
	why[0] = 0;
	live = alloc_calls = updates = 0;
	fail_alloc = false;
	mdb_init(&db, &ops, buckets, NBUCKETS);
}

static unsigned rights_at(int s, int p)
{
	unsigned r = 0;
	mdb_lookup(&db, SP(s), VA(p), NULL, &r);
	return r;
}

/* What the kernel does after a successful map or grant: write the entry (status stays). */
static void pt_write(int s, int p) { pt[s][p].rights = rights_at(s, p); }

static enum mdb_err root(int s, int p, int f, unsigned r)
{
	enum mdb_err e = mdb_insert_root(&db, SP(s), VA(p), PA(f), r);
	if (!e)
		pt_write(s, p);
	return e;
}

static enum mdb_err map(int fs, int fp, int ts, int tp, unsigned r)
{
	enum mdb_err e = mdb_map(&db, SP(fs), VA(fp), SP(ts), VA(tp), r);
	if (!e)
		pt_write(ts, tp);
	return e;
}

static enum mdb_err grant(int fs, int fp, int ts, int tp, unsigned r)
{
	enum mdb_err e = mdb_grant(&db, SP(fs), VA(fp), SP(ts), VA(tp), r);
	if (!e) {
		pt[fs][fp] = (struct pte){ 0, 0 };
		pt_write(ts, tp);
	}
	return e;
}

/*
 * The kernel's range Unmap: mdb_unmap_own (whole, or in steps of one
 * removal) and the caller writing the own entry, which must end exactly
 * as mdb_unmap.  unmap() takes the three ways in turn, so every fixed and
 * random case below runs through all of them.
 */
static enum mdb_err unmap_own(int s, int p, unsigned r, bool flush, unsigned *status, word_t budget)
{
	unsigned st = 0, left = 0;
	enum mdb_err e;
	while ((e = mdb_unmap_own(&db, SP(s), VA(p), r, flush, &st, budget, &left)) == MDB_AGAIN)
		;
	if (e == MDB_OK) {
		if (s < 0 || s >= NSPACES || p < 0 || p >= NPAGES)
			note("unmap_own of an unknown place", s, p, r, left);
		else {
			st |= pt[s][p].status;
			pt[s][p] = (struct pte){ left, 0 };
		}
	}
	if (status)
		*status = st;
	return e;
}

static unsigned unmap_way;

static enum mdb_err unmap(int s, int p, unsigned r, bool flush, unsigned *status)
{
	switch (unmap_way++ % 3) {
	case 0:
		return mdb_unmap(&db, SP(s), VA(p), r, flush, status);
	case 1:
		return unmap_own(s, p, r, flush, status, 0);
	default:
		return unmap_own(s, p, r, flush, status, 1);
	}
}

/* The node at (s, p), found without the index. */
static const struct mdb_node *node_at(int s, int p)
{
	for (word_t b = 0; b < db.nbuckets; b++)
		for (const struct mdb_node *n = db.buckets[b]; n; n = n->hnext)
			if (n->space == SP(s) && (n->va_rights & PAGE_MASK) == VA(p))
				return n;
	return NULL;
}

/* True if (s, p) is mapped with parent (ps, pp); ps < 0: a root. */
static bool parent_is(int s, int p, int ps, int pp)
{
	const struct mdb_node *n = node_at(s, p);
	if (!n)
		return false;
	if (ps < 0)
		return !n->parent;
	return n->parent && n->parent == node_at(ps, pp);
}

/* mdb_check, the hooks' complaints, allocator accounting, page tables = mdb. */
static bool consistent(void)
{
	const char *bad = mdb_check(&db);
	if (bad || why[0]) {
		if (bad)
			snprintf(why, sizeof(why), "%s", bad);
		return false;
	}
	if (live != (long)mdb_count(&db)) {
		snprintf(why, sizeof(why), "%ld nodes allocated, count %lu", live, mdb_count(&db));
		return false;
	}
	for (int s = 0; s < NSPACES; s++)
		for (int p = 0; p < NPAGES; p++)
			if (pt[s][p].rights != rights_at(s, p)) {
				note("page table differs from the mdb", s, p, pt[s][p].rights, rights_at(s, p));
				return false;
			}
	return true;
}

/* --- fixed cases --- */

TEST_CASE("mdb.init", "init takes only power-of-two bucket counts; an empty mdb checks clean") {
	struct mdb m;
	struct mdb_node *b[8] = { (struct mdb_node *)1 };
	EXPECT(!mdb_init(&m, &ops, b, 0), "0 buckets accepted");
	EXPECT(!mdb_init(&m, &ops, b, 6), "6 buckets accepted");
	EXPECT(mdb_init(&m, &ops, b, 8), "8 buckets refused");
	EXPECT(b[0] == NULL, "buckets not cleared");
	EXPECT(mdb_count(&m) == 0 && mdb_check(&m) == NULL, "empty mdb: %s", mdb_check(&m));
	EXPECT(mdb_init(&m, &ops, b, 1), "1 bucket refused");
}

TEST_CASE("mdb.root", "root mappings: lookup, duplicate place refused, bad arguments refused") {
	setup();
	EXPECT(root(0, 1, 5, MDB_RWX) == MDB_OK, "insert failed");
	paddr_t pa = 0;
	unsigned r = 0;
	EXPECT(mdb_lookup(&db, SP(0), VA(1) + 0x123, &pa, &r), "lookup of an address in the page failed");
	EXPECT(pa == PA(5) && r == MDB_RWX, "lookup gave %lx %u", pa, r);
	EXPECT(!mdb_lookup(&db, SP(1), VA(1), &pa, &r) && !mdb_lookup(&db, SP(0), VA(2), NULL, NULL),
	       "lookup of unmapped places succeeded");
	EXPECT(root(0, 1, 6, MDB_R) == MDB_ERR_EXISTS, "second root at one place");
	EXPECT(mdb_insert_root(&db, SP(0), VA(2) + 8, PA(1), MDB_R) == MDB_ERR_ARG, "misaligned vaddr");
	EXPECT(mdb_insert_root(&db, SP(0), VA(2), PA(1) + 8, MDB_R) == MDB_ERR_ARG, "misaligned paddr");
	EXPECT(mdb_insert_root(&db, NULL, VA(2), PA(1), MDB_R) == MDB_ERR_ARG, "NULL space");
	EXPECT(root(0, 2, 1, RW & ~MDB_R) == MDB_ERR_ARG, "root without R");
	EXPECT(root(0, 2, 1, 8 | MDB_R) == MDB_ERR_ARG, "rights beyond rwx");
	EXPECT(mdb_count(&db) == 1 && consistent(), "%s", why);
}

TEST_CASE("mdb.three_levels", "A maps to B, B to C; unmapping A's page revokes B and the grandchild C") {
	setup();
	root(0, 0, 0, MDB_RWX);
	EXPECT(map(0, 0, 1, 3, MDB_RWX) == MDB_OK && map(1, 3, 2, 5, RW) == MDB_OK, "maps failed");
	EXPECT(parent_is(1, 3, 0, 0) && parent_is(2, 5, 1, 3) && parent_is(0, 0, -1, 0), "tree shape");
	paddr_t pa;
	EXPECT(mdb_lookup(&db, SP(2), VA(5), &pa, NULL) && pa == PA(0), "grandchild maps %lx", pa);
	EXPECT(mdb_count(&db) == 3 && consistent(), "%s", why);
	EXPECT(unmap(0, 0, MDB_RWX, false, NULL) == MDB_OK, "unmap failed");
	EXPECT(rights_at(0, 0) == MDB_RWX, "unmap without flush touched the own mapping");
	EXPECT(!rights_at(1, 3) && !rights_at(2, 5), "derived mappings survived");
	EXPECT(mdb_count(&db) == 1 && consistent(), "%s", why);
}

TEST_CASE("mdb.map_reduces_rights", "mapping only ever reduces rights; R always stays; empty rights fail") {
	setup();
	root(0, 0, 0, MDB_R);
	root(0, 1, 1, RW);
	EXPECT(map(0, 0, 1, 0, MDB_RWX) == MDB_OK && rights_at(1, 0) == MDB_R, "rwx from r gave %u", rights_at(1, 0));
	EXPECT(map(0, 1, 1, 1, MDB_X) == MDB_ERR_RIGHTS, "x from rw succeeded");
	EXPECT(map(0, 1, 1, 1, 0) == MDB_ERR_RIGHTS, "no rights succeeded");
	EXPECT(map(0, 1, 1, 1, MDB_W) == MDB_OK && rights_at(1, 1) == RW, "w from rw gave %u", rights_at(1, 1));
	EXPECT(map(1, 0, 2, 0, MDB_RWX) == MDB_OK && rights_at(2, 0) == MDB_R, "second level gave %u", rights_at(2, 0));
	EXPECT(map(0, 1, 1, 2, 9) == MDB_ERR_ARG, "rights beyond rwx accepted");
	EXPECT(consistent(), "%s", why);
}

TEST_CASE("mdb.partial_unmap", "unmapping W keeps R below; flush also takes W from the own mapping") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 2, 0, RW);
	map(1, 0, 3, 0, RX);
	EXPECT(unmap(0, 0, MDB_W, false, NULL) == MDB_OK, "unmap failed");
	EXPECT(rights_at(0, 0) == MDB_RWX && rights_at(1, 0) == RX && rights_at(2, 0) == MDB_R &&
	       rights_at(3, 0) == RX, "rights %u %u %u %u", rights_at(0, 0), rights_at(1, 0),
	       rights_at(2, 0), rights_at(3, 0));
	EXPECT(unmap(1, 0, MDB_X, true, NULL) == MDB_OK, "unmap failed");
	EXPECT(rights_at(1, 0) == MDB_R && rights_at(3, 0) == MDB_R && rights_at(0, 0) == MDB_RWX,
	       "after flush of X: %u %u", rights_at(1, 0), rights_at(3, 0));
	EXPECT(mdb_count(&db) == 4 && consistent(), "%s", why);
}

TEST_CASE("mdb.flush", "without flush the own mapping stays; with flush of R it goes with everything below") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 2, 0, MDB_RWX);
	EXPECT(unmap(1, 0, MDB_RWX, false, NULL) == MDB_OK, "unmap failed");
	EXPECT(rights_at(1, 0) == MDB_RWX && !rights_at(2, 0), "no flush: %u %u", rights_at(1, 0), rights_at(2, 0));
	map(1, 0, 2, 0, MDB_RWX);
	EXPECT(unmap(1, 0, MDB_R, true, NULL) == MDB_OK, "flush failed");
	EXPECT(!rights_at(1, 0) && !rights_at(2, 0) && rights_at(0, 0) == MDB_RWX, "flush of R left %u %u",
	       rights_at(1, 0), rights_at(2, 0));
	EXPECT(unmap(0, 0, MDB_W | MDB_X, true, NULL) == MDB_OK && rights_at(0, 0) == MDB_R,
	       "flush of wx left %u", rights_at(0, 0));
	EXPECT(unmap(0, 0, MDB_RWX, true, NULL) == MDB_OK && mdb_count(&db) == 0, "root survived its flush");
	EXPECT(live == 0 && consistent(), "%s", why);
}

TEST_CASE("mdb.unmap_status", "unmap reports the status of the own and all derived mappings and resets it") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 2, 0, MDB_RWX);
	map(0, 0, 3, 0, MDB_RWX);
	pt[2][0].status = MDB_W;
	pt[0][0].status = MDB_R;
	unsigned st = 99;
	EXPECT(unmap(0, 0, 0, false, &st) == MDB_OK && st == RW, "query gave %u", st);
	EXPECT(mdb_count(&db) == 4 && !pt[2][0].status && !pt[0][0].status, "query changed mappings or kept status");
	EXPECT(unmap(0, 0, 0, true, &st) == MDB_OK && st == 0, "second query gave %u", st);
	pt[3][0].status = MDB_X;
	pt[2][0].status = MDB_R;
	EXPECT(unmap(1, 0, MDB_RWX, false, &st) == MDB_OK && st == MDB_R, "unmap below B gave %u", st);
	EXPECT(unmap(0, 0, MDB_RWX, true, &st) == MDB_OK && st == MDB_X, "flush gave %u", st);
	EXPECT(mdb_count(&db) == 0 && consistent(), "%s", why);
}

TEST_CASE("mdb.unmap_not_mapped", "unmapping an unmapped page fails, reports status 0, changes nothing") {
	setup();
	root(0, 0, 0, MDB_RWX);
	unsigned st = 7;
	EXPECT(unmap(0, 1, MDB_RWX, true, &st) == MDB_ERR_NOT_MAPPED && st == 0, "unmapped page: st %u", st);
	EXPECT(unmap(1, 0, MDB_RWX, true, NULL) == MDB_ERR_NOT_MAPPED, "other space");
	EXPECT(mdb_unmap(&db, SP(0), VA(0) + 4, MDB_R, true, &st) == MDB_ERR_ARG, "misaligned");
	EXPECT(mdb_unmap(&db, SP(0), VA(0), 8, true, &st) == MDB_ERR_ARG, "rights beyond rwx");
	EXPECT(updates == 0 && mdb_count(&db) == 1 && consistent(), "changed: %s", why);
}

TEST_CASE("mdb.unmap_own", "unmap_own revokes below as unmap does, calls no update for the mapping itself, reports what it keeps") {
	setup();
	root(0, 0, 0, MDB_RWX);
	root(0, 1, 1, MDB_RWX);
	EXPECT(map(0, 0, 1, 0, MDB_RWX) == MDB_OK && map(0, 1, 1, 1, MDB_RWX) == MDB_OK &&
	       map(1, 1, 2, 1, RW) == MDB_OK, "maps failed");
	pt[1][0].status = MDB_W;
	pt[2][1].status = MDB_R;
	unsigned st = 0, left = 9;
	long u = updates;
	EXPECT(mdb_unmap_own(&db, SP(0), VA(0), MDB_RWX, false, &st, 0, &left) == MDB_OK &&
	       left == MDB_RWX && st == MDB_W && updates == u + 1 && !rights_at(1, 0),
	       "one leaf child: left %u status %u, %ld updates", left, st, updates - u);
	st = 0;
	EXPECT(mdb_unmap_own(&db, SP(0), VA(1), MDB_W, true, &st, 0, &left) == MDB_OK &&
	       left == RX && st == MDB_R && updates == u + 3 && rights_at(0, 1) == RX &&
	       rights_at(1, 1) == RX && rights_at(2, 1) == MDB_R,
	       "two levels, W revoked with flush: left %u status %u, %ld updates", left, st, updates - u);
	pt[0][1].rights = left;         /* the caller's own entry */
	pt[1][1].status = MDB_X;
	st = 0;
	EXPECT(mdb_unmap_own(&db, SP(0), VA(1), MDB_RWX, true, &st, 0, &left) == MDB_OK &&
	       left == 0 && st == MDB_X && !rights_at(0, 1) && !rights_at(2, 1) && mdb_count(&db) == 1,
	       "flush of everything: left %u status %u, %lu nodes", left, st, mdb_count(&db));
	pt[0][1].rights = 0;
	EXPECT(mdb_unmap_own(&db, SP(0), VA(1), MDB_RWX, true, &st, 0, &left) == MDB_ERR_NOT_MAPPED &&
	       mdb_unmap_own(&db, SP(0), VA(0) + 8, MDB_RWX, true, &st, 0, &left) == MDB_ERR_ARG &&
	       mdb_unmap_own(&db, SP(0), VA(0), 8, true, &st, 0, &left) == MDB_ERR_ARG,
	       "unmapped, misaligned, bad rights");
	EXPECT(consistent(), "%s", why);
}

TEST_CASE("mdb.grant", "grant moves the mapping: the granter loses it, the grantee keeps its children") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 2, 0, RW);
	EXPECT(grant(1, 0, 3, 4, MDB_RWX) == MDB_OK, "grant failed");
	EXPECT(!rights_at(1, 0) && rights_at(3, 4) == MDB_RWX, "granter %u grantee %u", rights_at(1, 0), rights_at(3, 4));
	EXPECT(parent_is(3, 4, 0, 0) && parent_is(2, 0, 3, 4), "tree after grant");
	EXPECT(mdb_count(&db) == 3 && consistent(), "%s", why);
	EXPECT(unmap(0, 0, MDB_RWX, false, NULL) == MDB_OK && mdb_count(&db) == 1, "revocation through the grantee");
	EXPECT(grant(0, 0, 1, 1, MDB_RWX) == MDB_OK && parent_is(1, 1, -1, 0), "a granted root stays a root");
	EXPECT(grant(0, 0, 1, 2, MDB_RWX) == MDB_ERR_NOT_MAPPED, "grant from the old place");
	EXPECT(consistent(), "%s", why);
}

TEST_CASE("mdb.grant_fewer_rights", "granting fewer rights revokes them below; status of unchanged children stays") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 2, 0, RW);
	map(1, 0, 2, 1, RX);
	pt[2][1].status = MDB_R;
	EXPECT(grant(1, 0, 1, 5, RX) == MDB_OK, "grant failed");
	EXPECT(rights_at(1, 5) == RX && rights_at(2, 0) == MDB_R && rights_at(2, 1) == RX,
	       "rights %u %u %u", rights_at(1, 5), rights_at(2, 0), rights_at(2, 1));
	EXPECT(pt[2][1].status == MDB_R, "unchanged child lost its status");
	EXPECT(grant(1, 5, 3, 0, MDB_W) == MDB_ERR_RIGHTS, "w of rx granted");
	EXPECT(grant(1, 5, 3, 0, MDB_R) == MDB_OK && rights_at(3, 0) == MDB_R, "r of rx gave %u", rights_at(3, 0));
	EXPECT(rights_at(2, 1) == MDB_R && mdb_count(&db) == 4 && consistent(), "%s", why);
	EXPECT(grant(3, 0, 0, 2, MDB_X) == MDB_ERR_RIGHTS, "x from r granted");
}

TEST_CASE("mdb.map_upgrade", "mapping again onto a direct child of the source only adds rights, keeps its children") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_R);
	map(1, 0, 2, 0, MDB_R);
	pt[1][0].status = MDB_R;
	EXPECT(map(0, 0, 1, 0, RW) == MDB_OK && rights_at(1, 0) == RW, "upgrade gave %u", rights_at(1, 0));
	EXPECT(map(0, 0, 1, 0, MDB_R) == MDB_OK && rights_at(1, 0) == RW, "a map with fewer rights reduced them");
	EXPECT(rights_at(2, 0) == MDB_R && parent_is(2, 0, 1, 0), "the child was touched");
	EXPECT(pt[1][0].status == MDB_R && updates == 0, "upgrade went through the update hook");
	EXPECT(mdb_count(&db) == 3 && live == 3 && consistent(), "%s", why);
}

TEST_CASE("mdb.map_replace", "mapping onto another mapping unmaps it and its subtree first") {
	setup();
	root(0, 0, 0, MDB_RWX);
	root(0, 1, 1, MDB_RWX);
	map(0, 1, 1, 0, MDB_RWX);               /* B's page 0 from frame 1 ... */
	map(1, 0, 2, 0, MDB_RWX);               /* ... mapped on to C */
	pt[2][0].status = MDB_W;
	EXPECT(map(0, 0, 1, 0, RW) == MDB_OK, "replacing map failed");
	paddr_t pa;
	EXPECT(mdb_lookup(&db, SP(1), VA(0), &pa, NULL) && pa == PA(0), "B maps %lx", pa);
	EXPECT(!rights_at(2, 0) && parent_is(1, 0, 0, 0), "old subtree survived");
	map(1, 0, 2, 0, RW);                    /* a grandchild of A's page 0 ... */
	EXPECT(map(0, 0, 2, 0, MDB_RWX) == MDB_OK, "map onto a grandchild failed");
	EXPECT(parent_is(2, 0, 0, 0) && rights_at(2, 0) == MDB_RWX, "grandchild not replaced by a child");
	map(1, 0, 3, 0, MDB_R);                 /* a sibling's child, same frame, other source */
	EXPECT(map(0, 1, 3, 0, MDB_R) == MDB_OK && parent_is(3, 0, 0, 1), "not replaced");
	EXPECT(mdb_count(&db) == 5 && consistent(), "%s", why);
}

TEST_CASE("mdb.self_and_cycle", "map or grant onto the source or an ancestor fails and changes nothing") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 1, 1, MDB_RWX);               /* a space may map to itself elsewhere */
	EXPECT(parent_is(1, 1, 1, 0), "map within a space");
	long u = updates;
	EXPECT(map(1, 0, 1, 0, MDB_RWX) == MDB_ERR_SELF, "self map");
	EXPECT(grant(1, 0, 1, 0, MDB_RWX) == MDB_ERR_SELF, "self grant");
	EXPECT(map(1, 1, 1, 0, MDB_R) == MDB_ERR_CYCLE, "map onto the parent");
	EXPECT(map(1, 1, 0, 0, MDB_R) == MDB_ERR_CYCLE, "map onto the root");
	EXPECT(grant(1, 1, 0, 0, MDB_R) == MDB_ERR_CYCLE, "grant onto the root");
	EXPECT(updates == u && mdb_count(&db) == 3 && consistent(), "changed: %s", why);
	EXPECT(grant(1, 0, 1, 1, MDB_RWX) == MDB_OK, "grant onto own child failed");
	EXPECT(parent_is(1, 1, 0, 0) && mdb_count(&db) == 2 && consistent(), "%s", why);
}

TEST_CASE("mdb.remove_space", "deleting a space removes its mappings and all derived from them, nothing above") {
	setup();
	root(0, 0, 0, MDB_RWX);
	root(0, 1, 1, MDB_RWX);
	map(0, 0, 1, 0, MDB_RWX);
	map(1, 0, 1, 1, MDB_RWX);               /* B to itself */
	map(1, 1, 2, 0, MDB_RWX);               /* B to C */
	map(2, 0, 1, 2, MDB_RWX);               /* back to B through C */
	map(2, 0, 3, 0, MDB_RWX);               /* C to D */
	map(0, 1, 2, 1, MDB_RWX);               /* A to C directly */
	word_t n = mdb_remove_space(&db, SP(1));
	EXPECT(n == 5, "removed %lu nodes, left %lu", n, mdb_count(&db));
	EXPECT(rights_at(0, 0) && rights_at(0, 1) && rights_at(2, 1) == MDB_RWX, "unrelated mappings went");
	EXPECT(mdb_count(&db) == 3 && consistent(), "%s", why);
	EXPECT(mdb_remove_space(&db, SP(1)) == 0, "second removal");
	EXPECT(mdb_remove_space(&db, SP(0)) == 3 && live == 0 && consistent(), "%s", why);
}

TEST_CASE("mdb.nomem", "when alloc fails, insert and map fail and nothing changes; upgrade needs no node") {
	setup();
	root(0, 0, 0, MDB_RWX);
	root(0, 1, 1, MDB_RWX);
	map(0, 1, 1, 0, MDB_RWX);
	map(1, 0, 2, 0, MDB_RWX);
	map(0, 0, 3, 0, MDB_R);
	fail_alloc = true;
	long u = updates;
	EXPECT(root(0, 2, 2, MDB_R) == MDB_ERR_NOMEM, "root without memory");
	EXPECT(map(0, 0, 2, 1, MDB_R) == MDB_ERR_NOMEM, "fresh map without memory");
	EXPECT(map(0, 0, 1, 0, MDB_R) == MDB_ERR_NOMEM, "replacing map without memory");
	EXPECT(updates == u && rights_at(1, 0) && rights_at(2, 0), "failed map changed the mdb");
	EXPECT(map(0, 0, 3, 0, RW) == MDB_OK && rights_at(3, 0) == RW, "upgrade needs no memory");
	EXPECT(grant(1, 0, 2, 3, MDB_RWX) == MDB_OK, "grant needs no memory");
	fail_alloc = false;
	EXPECT(mdb_count(&db) == 5 && consistent(), "%s", why);
}

/*
 * mdb_check's verdict after corrupt() changed the chain root (0,0) -> n (1,0)
 * -> c (2,0) or the count; everything is restored before returning.
 */
static const char *corrupted(void (*corrupt)(struct mdb_node *root, struct mdb_node *n,
					     struct mdb_node *c))
{
	struct mdb_node *root = (struct mdb_node *)node_at(0, 0), *n = root->child, *c = n->child;
	struct mdb_node saved[3] = { *root, *n, *c };
	word_t count = db.count;
	corrupt(root, n, c);
	const char *bad = mdb_check(&db);
	*root = saved[0], *n = saved[1], *c = saved[2];
	db.count = count;
	return bad;
}

static void more_rights(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)n, c->va_rights |= MDB_X;
}

static void no_r(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)c, n->va_rights &= ~(word_t)MDB_R;
}

static void other_frame(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)n, c->paddr += PAGE_SIZE;
}

static void lose_child(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)c, n->child = NULL;
}

static void bad_sibling(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, n->next = c;
}

static void count_up(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)n, (void)c, db.count++;
}

static void count_down(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)n, (void)c, db.count--;
}

static void wrong_bucket(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	(void)r, (void)n, c->va_rights += PAGE_SIZE;
}

/* n and c become each other's parent, cut off from the root, links otherwise consistent. */
static void detached_cycle(struct mdb_node *r, struct mdb_node *n, struct mdb_node *c)
{
	r->child = NULL;
	n->parent = c;
	c->child = n;
	c->va_rights |= MDB_W;
}

TEST_CASE("mdb.check_detects", "mdb_check finds broken rights, frames, links, cycles, counts and index places") {
	setup();
	root(0, 0, 0, MDB_RWX);
	map(0, 0, 1, 0, RW);
	map(1, 0, 2, 0, MDB_R);
	EXPECT(mdb_check(&db) == NULL, "clean tree: %s", mdb_check(&db));
	EXPECT(corrupted(more_rights), "child with a right its parent lacks");
	EXPECT(corrupted(no_r), "mapping without R");
	EXPECT(corrupted(other_frame), "child of another frame");
	EXPECT(corrupted(lose_child), "child missing from its parent's list");
	EXPECT(corrupted(bad_sibling), "sibling links");
	EXPECT(corrupted(count_up) && corrupted(count_down), "count differs from the nodes");
	EXPECT(corrupted(wrong_bucket), "node in the wrong bucket");
	const char *bad = corrupted(detached_cycle);
	EXPECT(bad && strstr(bad, "cycle"), "detached cycle: %s", bad ? bad : "not found");
	EXPECT(mdb_check(&db) == NULL && consistent(), "restore left: %s", why);
}

/* --- large trees: no recursion, linear time --- */

static long big_updates;
static unsigned count_update(void *ctx, const void *s, word_t va, unsigned o, unsigned n)
{
	(void)ctx, (void)s, (void)va, (void)o, (void)n;
	big_updates++;
	return 0;
}

#define BIG 20000
static struct mdb_node *big_buckets[4096];

TEST_CASE("mdb.deep_and_wide", "a 20000-deep chain and a 20000-wide fan are revoked and removed without recursion") {
	struct mdb m;
	const struct mdb_ops o = { t_alloc, t_free, count_update, NULL };
	live = 0;
	setup();                /* db's nodes go; the spaces' lists start empty */
	mdb_init(&m, &o, big_buckets, ARRAY_SIZE(big_buckets));
	EXPECT(mdb_insert_root(&m, SP(0), 0, PA(0), MDB_RWX) == MDB_OK, "root");
	for (word_t i = 1; i < BIG; i++)
		EXPECT(mdb_map(&m, SP((i - 1) % 2), VA(i - 1), SP(i % 2), VA(i), MDB_RWX) == MDB_OK, "map %lu", i);
	EXPECT(mdb_count(&m) == BIG && mdb_check(&m) == NULL, "chain: %s", mdb_check(&m));
	EXPECT(mdb_unmap(&m, SP(0), 0, MDB_W, false, NULL) == MDB_OK && big_updates == BIG,
	       "partial unmap: %ld updates", big_updates);
	EXPECT(mdb_check(&m) == NULL, "%s", mdb_check(&m));
	EXPECT(mdb_remove_space(&m, SP(1)) == BIG - 1 && mdb_count(&m) == 1, "remove_space");
	for (word_t i = 1; i < BIG; i++)
		EXPECT(mdb_map(&m, SP(0), 0, SP(1), VA(i), MDB_RWX) == MDB_OK, "fan %lu", i);
	EXPECT(mdb_check(&m) == NULL, "%s", mdb_check(&m));
	EXPECT(mdb_unmap(&m, SP(0), 0, MDB_RWX, true, NULL) == MDB_OK, "flush");
	EXPECT(mdb_count(&m) == 0 && live == 0, "left %lu nodes, %ld live", mdb_count(&m), live);
}

static unsigned rights_of(const struct mdb *m, const void *sp, word_t va)
{
	unsigned r = 0;
	mdb_lookup(m, sp, va, NULL, &r);
	return r;
}

TEST_CASE("mdb.unmap_in_steps", "unmap with a budget stops consistent, goes on when called again, ends as one unmap would") {
	struct mdb m;
	const struct mdb_ops o = { t_alloc, t_free, count_update, NULL };
	live = 0;
	setup();                /* db's nodes go; the spaces' lists start empty */
	mdb_init(&m, &o, big_buckets, ARRAY_SIZE(big_buckets));
	EXPECT(mdb_insert_root(&m, SP(0), 0, PA(0), MDB_RWX) == MDB_OK, "root");
	for (word_t i = 1; i < BIG / 2; i++)          /* a chain under 0, then a fan under page 1 */
		EXPECT(mdb_map(&m, SP((i - 1) % 2), VA(i - 1), SP(i % 2), VA(i), MDB_RWX) == MDB_OK, "map %lu", i);
	for (word_t i = BIG / 2; i < BIG; i++)
		EXPECT(mdb_map(&m, SP(1), VA(1), SP(2 + i % 2), VA(i), MDB_RWX) == MDB_OK, "fan %lu", i);
	EXPECT(mdb_unmap_some(&m, SP(0), 0, MDB_W, false, NULL, 1) == MDB_OK && mdb_count(&m) == BIG,
	       "a revocation that removes nothing is one step");
	unsigned status = 0;
	word_t steps = 0, before = mdb_count(&m);
	enum mdb_err e;
	while ((e = mdb_unmap_some(&m, SP(1), VA(1), MDB_RWX, false, &status, 100)) == MDB_AGAIN) {
		steps++;
		EXPECT(mdb_count(&m) < before, "step %lu removed nothing", steps);
		before = mdb_count(&m);
		EXPECT(mdb_check(&m) == NULL, "step %lu: %s", steps, mdb_check(&m));
		if (steps > BIG)
			break;
	}
	EXPECT(e == MDB_OK && steps >= BIG / 100 - 1, "%d after %lu steps", e, steps);
	EXPECT(mdb_count(&m) == 2 && rights_of(&m, SP(1), VA(1)) == (MDB_R | MDB_X),
	       "page 1 and its parent stay: %lu nodes", mdb_count(&m));
	EXPECT(mdb_unmap_some(&m, SP(0), 0, MDB_RWX, true, &status, 1) == MDB_AGAIN ||
	       mdb_count(&m) == 0, "flush, first step");
	while (mdb_unmap_some(&m, SP(0), 0, MDB_RWX, true, &status, 1) == MDB_AGAIN)
		;
	EXPECT(mdb_count(&m) == 0 && live == 0, "left %lu nodes, %ld live", mdb_count(&m), live);
	EXPECT(mdb_unmap_some(&m, SP(0), 0, MDB_RWX, true, &status, 1) == MDB_ERR_NOT_MAPPED, "gone");
}

TEST_CASE("mdb.remove_space_in_steps", "removing a space in budgeted steps stays consistent and ends as one removal would") {
	struct mdb m;
	const struct mdb_ops o = { t_alloc, t_free, count_update, NULL };
	live = 0;
	setup();                /* db's nodes go; the spaces' lists start empty */
	mdb_init(&m, &o, big_buckets, ARRAY_SIZE(big_buckets));
	EXPECT(mdb_insert_root(&m, SP(0), 0, PA(0), MDB_RWX) == MDB_OK, "root");
	for (word_t i = 1; i < BIG; i++)        /* space 1 holds a fan; space 2 maps from it */
		EXPECT(mdb_map(&m, i % 3 ? SP(0) : SP(1), i % 3 ? 0 : VA(i - 1), i % 3 ? SP(1) : SP(2),
			       VA(i), MDB_RWX) == MDB_OK || i % 3 == 0, "map %lu", i);
	word_t steps = 0, s1 = 0;
	while (!mdb_remove_space_some(&m, SP(1), 7)) {
		EXPECT(mdb_check(&m) == NULL, "step %lu: %s", steps, mdb_check(&m));
		if (++steps > 100 * BIG)
			break;
	}
	EXPECT(steps > 10, "only %lu steps", steps);
	for (word_t i = 0; i < BIG; i++)
		s1 += mdb_lookup(&m, SP(1), VA(i), NULL, NULL) + mdb_lookup(&m, SP(2), VA(i), NULL, NULL);
	EXPECT(s1 == 0 && mdb_count(&m) == 1, "%lu mappings of spaces 1 and 2 left, %lu nodes", s1, mdb_count(&m));
	EXPECT(mdb_check(&m) == NULL, "%s", mdb_check(&m));
	mdb_remove_space(&m, SP(0));
	EXPECT(live == 0, "%ld live", live);
}

TEST_CASE("mdb.map_known", "map_known reports frame and rights; with empty it skips the target's lookup, without it upgrades") {
	setup();
	EXPECT(root(0, 0, 5, MDB_RWX) == MDB_OK, "root");
	paddr_t pa = 0;
	unsigned got = 0;
	EXPECT(mdb_map_known(&db, SP(0), VA(0), SP(1), VA(2), RW, true, &pa, &got) == MDB_OK &&
	       pa == PA(5) && got == RW, "fresh map: %lx %u", pa, got);
	pt_write(1, 2);
	EXPECT(mdb_map_known(&db, SP(0), VA(0), SP(1), VA(2), RX, false, &pa, &got) == MDB_OK &&
	       got == MDB_RWX && rights_at(1, 2) == MDB_RWX, "upgrade: %u", got);
	pt_write(1, 2);
	EXPECT(mdb_map_known(&db, SP(1), VA(3), SP(2), VA(0), RW, true, &pa, &got) == MDB_ERR_NOT_MAPPED,
	       "no source");
	EXPECT(consistent(), "%s", why);
}

TEST_CASE("mdb.source_add_child", "map in two halves: source, frame and rights as map_known gives them; a garbage-filled node becomes a proper child; refusals change nothing") {
	setup();
	EXPECT(root(0, 0, 5, MDB_RWX) == MDB_OK && root(0, 1, 6, MDB_R) == MDB_OK, "roots");
	paddr_t pa = 0;
	unsigned r = MDB_W;
	struct mdb_node *src = mdb_source(&db, SP(0), VA(0), SP(1), VA(2), &r, &pa);
	EXPECT(src && pa == PA(5) && r == RW, "source: %p %lx %u", (void *)src, pa, r);
	void *n = t_alloc(NULL, SP(1));
	memset(n, 0xa5, sizeof(struct mdb_node));       /* every field must be set by add_child */
	mdb_add_child(&db, src, n, SP(1), VA(2), r);
	pt_write(1, 2);
	EXPECT(parent_is(1, 2, 0, 0) && rights_at(1, 2) == RW && mdb_count(&db) == 3, "child %u", rights_at(1, 2));
	EXPECT(consistent(), "%s", why);
	r = MDB_X;
	EXPECT(!mdb_source(&db, SP(0), VA(1), SP(1), VA(3), &r, &pa), "x from an r-only source");
	r = MDB_RWX;
	EXPECT(!mdb_source(&db, SP(0), VA(4), SP(1), VA(3), &r, &pa), "an unmapped source");
	r = MDB_RWX;
	EXPECT(!mdb_source(&db, SP(0), VA(0), SP(0), VA(0), &r, &pa), "the source's own place");
	r = MDB_RWX;
	EXPECT(!mdb_source(&db, SP(0), VA(0) + 8, SP(1), VA(3), &r, &pa) &&
	       !mdb_source(&db, SP(0), VA(0), SP(1), VA(3), &(unsigned){ 8 | MDB_R }, &pa),
	       "a misaligned address or rights beyond rwx");
	EXPECT(unmap(0, 0, MDB_RWX, false, NULL) == MDB_OK && !rights_at(1, 2) && mdb_count(&db) == 2,
	       "the child is revoked with its source");
	EXPECT(consistent(), "%s", why);
}

/* --- nodes carved from 4 KiB frames, as the kernel will --- */

#define FRAMES 4
struct frame_heap {
	void *frame[FRAMES];
	int nframes;
	void *free;             /* free nodes, linked through their first word */
};

static void *heap_alloc(void *ctx, const void *space)
{
	(void)space;
	struct frame_heap *h = ctx;
	if (!h->free && h->nframes < FRAMES) {
		char *f = h->frame[h->nframes++] = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
		for (word_t off = 0; off + sizeof(struct mdb_node) <= PAGE_SIZE; off += sizeof(struct mdb_node)) {
			*(void **)(f + off) = h->free;
			h->free = f + off;
		}
	}
	void *n = h->free;
	if (n)
		h->free = *(void **)n;
	return n;
}

static void heap_free(void *ctx, void *node)
{
	struct frame_heap *h = ctx;
	*(void **)node = h->free;
	h->free = node;
}

#define PER_FRAME (PAGE_SIZE / sizeof(struct mdb_node))
TEST_CASE("mdb.frame_nodes", "51 nodes to a 4 KiB frame; a full heap gives MDB_ERR_NOMEM; all nodes come back") {
	static struct mdb_node *b[64];
	struct frame_heap h = { .nframes = 0 };
	const struct mdb_ops o = { heap_alloc, heap_free, count_update, &h };
	struct mdb m;
	setup();                /* db's nodes go; the spaces' lists start empty */
	mdb_init(&m, &o, b, ARRAY_SIZE(b));
	EXPECT(PER_FRAME == 51, "node size %zu", sizeof(struct mdb_node));
	mdb_insert_root(&m, SP(0), 0, PA(0), MDB_RWX);
	word_t i = 1;
	int e;
	while ((e = mdb_map(&m, SP(0), 0, SP(1), VA(i), MDB_RWX)) == MDB_OK)
		i++;
	EXPECT(e == MDB_ERR_NOMEM, "the map after %lu nodes gave %d, not MDB_ERR_NOMEM", i, e);
	EXPECT(i == FRAMES * PER_FRAME && h.nframes == FRAMES, "%lu nodes in %d frames", i, h.nframes);
	EXPECT(mdb_check(&m) == NULL, "%s", mdb_check(&m));
	EXPECT(mdb_unmap(&m, SP(0), 0, MDB_R, true, NULL) == MDB_OK && mdb_count(&m) == 0, "flush");
	word_t nfree = 0;
	for (void *n = h.free; n; n = *(void **)n)
		nfree++;
	for (int k = 0; k < h.nframes; k++)
		free(h.frame[k]);
	EXPECT(nfree == FRAMES * PER_FRAME, "%lu nodes free of %lu", nfree, FRAMES * PER_FRAME);
}

/* --- random sequences against a reference model --- */

/*
 * The model: a list of mapping records with parent indices; every
 * operation is the naive recursive reading of the contracts in mdb.h.
 */
struct rec {
	int s, p, parent;
	paddr_t pa;
	unsigned rights, status;
	bool alive;
};

#define MAXREC 512
static struct rec rec[MAXREC];
static int nrec;
static int at[NSPACES][NPAGES];         /* the alive record at a place, or -1 */

static void m_reset(void)
{
	nrec = 0;
	memset(at, -1, sizeof(at));
}

static void m_add(int s, int p, paddr_t pa, unsigned r, int parent)
{
	rec[nrec] = (struct rec){ s, p, parent, pa, r, 0, true };
	at[s][p] = nrec++;
}

static unsigned m_kill(int i)
{
	unsigned st = rec[i].status;
	for (int j = 0; j < nrec; j++)
		if (rec[j].alive && rec[j].parent == i)
			st |= m_kill(j);
	rec[i].alive = false;
	at[rec[i].s][rec[i].p] = -1;
	return st;
}

static unsigned m_reduce(unsigned r, unsigned revoke)
{
	r &= ~revoke;
	return r & MDB_R ? r : 0;
}

static unsigned m_revoke_below(int i, unsigned revoke, bool all)
{
	unsigned st = 0;
	for (int j = 0; j < nrec; j++) {
		if (!rec[j].alive || rec[j].parent != i)
			continue;
		unsigned left = m_reduce(rec[j].rights, revoke);
		if (!left) {
			st |= m_kill(j);
			continue;
		}
		if (all || left != rec[j].rights) {
			st |= rec[j].status;
			rec[j].status = 0;
		}
		rec[j].rights = left;
		st |= m_revoke_below(j, revoke, all);
	}
	return st;
}

static bool m_derives(int n, int a)
{
	for (; n >= 0; n = rec[n].parent)
		if (n == a)
			return true;
	return false;
}

static enum mdb_err m_root(int s, int p, int f, unsigned r)
{
	if ((r & ~MDB_RWX) || !(r & MDB_R))
		return MDB_ERR_ARG;
	if (at[s][p] >= 0)
		return MDB_ERR_EXISTS;
	if (fail_alloc)
		return MDB_ERR_NOMEM;
	m_add(s, p, PA(f), r, -1);
	return MDB_OK;
}

/* The checks map and grant share; sets *src, *dst and the new rights. */
static enum mdb_err m_decode(int fs, int fp, int ts, int tp, unsigned *r, int *src, int *dst)
{
	if (*r & ~MDB_RWX)
		return MDB_ERR_ARG;
	if ((*src = at[fs][fp]) < 0)
		return MDB_ERR_NOT_MAPPED;
	if (fs == ts && fp == tp)
		return MDB_ERR_SELF;
	if (!(*r &= rec[*src].rights))
		return MDB_ERR_RIGHTS;
	*r |= MDB_R;
	*dst = at[ts][tp];
	return *dst >= 0 && m_derives(*src, *dst) ? MDB_ERR_CYCLE : MDB_OK;
}

static enum mdb_err m_map(int fs, int fp, int ts, int tp, unsigned r)
{
	int src, dst;
	enum mdb_err e = m_decode(fs, fp, ts, tp, &r, &src, &dst);
	if (e)
		return e;
	if (dst >= 0 && rec[dst].parent == src) {
		rec[dst].rights |= r;
		return MDB_OK;
	}
	if (fail_alloc)
		return MDB_ERR_NOMEM;
	if (dst >= 0)
		m_kill(dst);
	m_add(ts, tp, rec[src].pa, r, src);
	return MDB_OK;
}

static enum mdb_err m_grant(int fs, int fp, int ts, int tp, unsigned r)
{
	int src, dst;
	enum mdb_err e = m_decode(fs, fp, ts, tp, &r, &src, &dst);
	if (e)
		return e;
	if (dst >= 0)
		m_kill(dst);
	m_revoke_below(src, rec[src].rights & ~r, false);
	at[fs][fp] = -1;
	at[ts][tp] = src;
	rec[src] = (struct rec){ ts, tp, rec[src].parent, rec[src].pa, r, 0, true };
	return MDB_OK;
}

static enum mdb_err m_unmap(int s, int p, unsigned r, bool flush, unsigned *st)
{
	int i = at[s][p];
	*st = 0;
	if (r & ~MDB_RWX)
		return MDB_ERR_ARG;
	if (i < 0)
		return MDB_ERR_NOT_MAPPED;
	*st = m_revoke_below(i, r, true);
	unsigned left = flush ? m_reduce(rec[i].rights, r) : rec[i].rights;
	if (!left)
		*st |= m_kill(i);
	else
		*st |= rec[i].status;
	rec[i].status = 0;
	rec[i].rights = left;
	return MDB_OK;
}

static int m_alive(void)
{
	int n = 0;
	for (int i = 0; i < nrec; i++)
		n += rec[i].alive;
	return n;
}

static word_t m_remove_space(int s)
{
	int before = m_alive();
	for (int i = 0; i < nrec; i++)
		if (rec[i].alive && rec[i].s == s)
			m_kill(i);
	return before - m_alive();
}

/* One place: mdb, page table and model agree on frame, rights, status and parent. */
static bool place_as_model(int s, int p)
{
	int i = at[s][p];
	struct rec none = { .parent = -1 }, *x = i >= 0 ? &rec[i] : &none;
	paddr_t pa = 0;
	unsigned r = 0;
	bool mapped = mdb_lookup(&db, SP(s), VA(p), &pa, &r);
	if (mapped != (i >= 0) || r != x->rights || pa != x->pa) {
		note("mdb differs from the model", s, p, r, x->rights);
		return false;
	}
	if (pt[s][p].rights != x->rights || pt[s][p].status != x->status) {
		note("page-table status differs from the model", s, p, pt[s][p].status, x->status);
		return false;
	}
	int ps = x->parent >= 0 ? rec[x->parent].s : -1, pp = x->parent >= 0 ? rec[x->parent].p : 0;
	if (i >= 0 && !parent_is(s, p, ps, pp)) {
		note("parent differs from the model", s, p, ps, pp);
		return false;
	}
	return true;
}

static bool same_as_model(void)
{
	for (int s = 0; s < NSPACES; s++)
		for (int p = 0; p < NPAGES; p++)
			if (!place_as_model(s, p))
				return false;
	if (m_alive() != (int)mdb_count(&db)) {
		note("count differs from the model", 0, 0, m_alive(), mdb_count(&db));
		return false;
	}
	return true;
}

static u64 rng_state;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Accessed status appears on a mapped page, within its rights (the "hardware"). */
static void touch(int s, int p)
{
	int i = at[s][p];
	if (i < 0)
		return;
	unsigned bits = rng() & rec[i].rights;
	rec[i].status |= bits;
	pt[s][p].status |= bits;
}

enum op_kind { OP_ROOT, OP_MAP, OP_GRANT, OP_UNMAP, OP_REMOVE_SPACE, OP_TOUCH };

struct op {
	enum op_kind kind;
	int s1, p1, s2, p2, f;
	unsigned r;
	bool flush;
};

/* Mostly a mapped place (the model's), so that most operations get past their checks. */
static void pick_source(struct op *o)
{
	if (!nrec || rng() % 8 == 0)
		return;
	int start = rng() % nrec;
	for (int k = 0; k < nrec; k++) {
		const struct rec *x = &rec[(start + k) % nrec];
		if (x->alive) {
			o->s1 = x->s;
			o->p1 = x->p;
			return;
		}
	}
}

static struct op random_op(int nsp, int npg)
{
	static const enum op_kind mix[] = { OP_ROOT, OP_ROOT, OP_ROOT, OP_MAP, OP_MAP, OP_MAP,
		OP_MAP, OP_MAP, OP_GRANT, OP_GRANT, OP_UNMAP, OP_UNMAP, OP_UNMAP, OP_TOUCH, OP_TOUCH,
		OP_TOUCH };
	struct op o = { rng() % 64 ? mix[rng() % ARRAY_SIZE(mix)] : OP_REMOVE_SPACE,
			rng() % nsp, rng() % npg, rng() % nsp, rng() % npg, rng() % 4, rng() % 8, rng() & 1 };
	if (o.kind != OP_ROOT && o.kind != OP_REMOVE_SPACE)
		pick_source(&o);
	if (rng() % 64 == 0)
		o.r |= 8;                       /* now and then a bad argument */
	if (o.kind == OP_ROOT && rng() % 4)
		o.r |= MDB_R;                   /* roots mostly valid */
	return o;
}

/* Runs o on the model and on the mdb; their results and statuses. */
static void run_op(const struct op *o, enum mdb_err *want, enum mdb_err *got,
		   unsigned *mst, unsigned *st)
{
	*want = *got = MDB_OK;
	*mst = *st = 0;
	switch (o->kind) {
	case OP_ROOT:
		*want = m_root(o->s1, o->p1, o->f, o->r);
		*got = root(o->s1, o->p1, o->f, o->r);
		break;
	case OP_MAP:
		*want = m_map(o->s1, o->p1, o->s2, o->p2, o->r);
		*got = map(o->s1, o->p1, o->s2, o->p2, o->r);
		break;
	case OP_GRANT:
		*want = m_grant(o->s1, o->p1, o->s2, o->p2, o->r);
		*got = grant(o->s1, o->p1, o->s2, o->p2, o->r);
		break;
	case OP_UNMAP:
		*want = m_unmap(o->s1, o->p1, o->r, o->flush, mst);
		*got = unmap(o->s1, o->p1, o->r, o->flush, st);
		break;
	case OP_REMOVE_SPACE:
		*mst = m_remove_space(o->s1);
		*st = mdb_remove_space(&db, SP(o->s1));
		break;
	case OP_TOUCH:
		touch(o->s1, o->p1);
		break;
	}
}

/* One random step on both; false (with `why`) if they disagree afterwards. */
static bool random_step(int nsp, int npg)
{
	struct op o = random_op(nsp, npg);
	enum mdb_err want, got;
	unsigned mst, st;
	long calls = alloc_calls, u = updates;
	fail_alloc = rng() % 8 == 0;
	run_op(&o, &want, &got, &mst, &st);
	fail_alloc = false;
	if (got != want || st != mst) {
		snprintf(why, sizeof(why), "kind %d (%d,%d)->(%d,%d) r %u flush %d: got %d status %u, model %d %u",
			 o.kind, o.s1, o.p1, o.s2, o.p2, o.r, o.flush, got, st, want, mst);
		return false;
	}
	if (alloc_calls - calls > 1 || (got && updates != u)) {
		snprintf(why, sizeof(why), "kind %d: %ld allocs, failure with %ld updates", o.kind,
			 alloc_calls - calls, updates - u);
		return false;
	}
	return consistent() && same_as_model();
}

static char where[400];

/* nseq sequences of nops random steps over nsp spaces and npg pages; all freed at the end. */
static bool random_run(u64 seed, int nseq, int nops, int nsp, int npg)
{
	rng_state = seed;
	for (int q = 0; q < nseq; q++) {
		setup();
		m_reset();
		for (int k = 0; k < nops; k++)
			if (!random_step(nsp, npg)) {
				snprintf(where, sizeof(where), "sequence %d step %d: %s", q, k, why);
				return false;
			}
		for (int s = 0; s < nsp; s++)
			mdb_remove_space(&db, SP(s));
		if (live || mdb_count(&db) || !consistent()) {
			snprintf(where, sizeof(where), "sequence %d: %ld nodes leaked %s", q, live, why);
			return false;
		}
	}
	return true;
}

static int each_seen, each_stop_at;
static unsigned each_rights_sum;

static const char *count_each(void *ctx, const void *space, word_t va, paddr_t pa, unsigned rights)
{
	(void)ctx;
	(void)va;
	if (space < (const void *)spaces || space >= (const void *)&spaces[NSPACES] || pa != PA(0))
		return "a node that was never inserted";
	each_rights_sum += rights;
	return ++each_seen == each_stop_at ? "stop" : NULL;
}

TEST_CASE("mdb.each", "mdb_each visits every mapping once with its rights and stops at the first answer") {
	setup();
	root(0, 0, 0, MDB_RWX);
	EXPECT(map(0, 0, 1, 3, RW) == MDB_OK && map(1, 3, 2, 5, MDB_R) == MDB_OK, "maps failed");
	each_seen = 0, each_stop_at = -1, each_rights_sum = 0;
	const char *r = mdb_each(&db, count_each, NULL);
	EXPECT(!r && each_seen == 3 && each_rights_sum == MDB_RWX + RW + MDB_R,
	       "saw %d mappings, rights sum %u: %s", each_seen, each_rights_sum, r ? r : "");
	each_seen = 0, each_stop_at = 2;
	r = mdb_each(&db, count_each, NULL);
	EXPECT(r && !strcmp(r, "stop") && each_seen == 2, "went on after an answer: %d", each_seen);
}

TEST_CASE("mdb.random_dense", "2000 random sequences over 3 spaces x 4 pages agree with the model at every step") {
	EXPECT(random_run(0x243f6a8885a308d3UL, 2000, 60, 3, 4), "%s", where);
}

TEST_CASE("mdb.random_wide", "1000 random sequences over 4 spaces x 8 pages agree with the model at every step") {
	EXPECT(random_run(0x13198a2e03707344UL, 1000, 200, NSPACES, NPAGES), "%s", where);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
