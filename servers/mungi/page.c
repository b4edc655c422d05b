// SPDX-License-Identifier: MIT
// Resident object pages: each page of the single address space that has a
// frame (or is mapped onto another page) has a record, found by address.
// Pages leave memory only through the page store.  A frame's page is dirty
// when it differs from what the page store holds for it: the server's own
// writes set the flag, the tasks' writes show in the status every Unmap
// returns, and every Unmap the server makes folds that status in.
#include "mungi.h"
#include "../../lib/c/string.h"

#define HASH_BITS 16
static struct page *bucket[1UL << HASH_BITS];
static struct kind page_kind = { sizeof(struct page), NULL, 0, "page" };

static inline struct page **slot(u64 va)
{
	return &bucket[((va >> 12) * 0x9e3779b97f4a7c15UL) >> (64 - HASH_BITS)];
}

struct page *page_find(u64 va)
{
	for (struct page *p = *slot(va); p; p = p->hnext)
		if (p->va == va)
			return p;
	return NULL;
}

/* Aliases whose target has no record yet: linked to it when it gets one. */
static struct page *orphans;

static void adopt(struct page *p)
{
	for (struct page **pp = &orphans; *pp;) {
		struct page *a = *pp;
		if (a->target == p->va) {
			*pp = a->anext;
			a->anext = p->aliases;
			p->aliases = a;
		} else {
			pp = &a->anext;
		}
	}
}

static struct page *page_new(u64 va)
{
	struct page *p = rec_alloc(&page_kind);
	if (!p)
		return NULL;
	p->va = va;
	p->hnext = *slot(va);
	*slot(va) = p;
	adopt(p);
	struct mobj *m = (struct mobj *)ot_lookup(&ot, va);
	if (m)
		m->resident++;
	return p;
}

struct page *page_materialise(u64 va)
{
	void *f = frame_alloc();
	if (!f)
		return NULL;
	struct page *p = page_new(va);
	if (!p) {
		frame_free(f);
		return NULL;
	}
	/* the store keeps its copy: the page stays clean until it is written */
	pstore->get(pstore->ctx, va, f);
	p->frame = f;
	return p;
}

struct page *page_alias(u64 va, u64 target, u32 rights)
{
	struct page *t = page_find(target), *p = page_new(va);
	if (!p)
		return NULL;
	p->target = target;
	p->rights = rights;
	struct page **list = t ? &t->aliases : &orphans;
	p->anext = *list;
	*list = p;
	return p;
}

/* --- unmapping from every task: the server's frames are the roots of all their mappings --- */

static unsigned nflush;
static struct page *flushing[64];

/* Unmap the fpages queued; a page some task wrote since the last Unmap becomes dirty. */
static void unmap_flush(void)
{
	if (nflush)
		L4_Unmap(nflush - 1);
	for (unsigned i = 0; i < nflush; i++)
		if (L4_MR((int)i) & 2)
			flushing[i]->dirty = true;
	nflush = 0;
}

/* Queue p's frame: rights 7 takes every task's mapping of it, 0 only reads the status. */
static void unmap_frame(struct page *p, unsigned rights)
{
	flushing[nflush] = p;
	mr_set((int)nflush++, L4_FPAGE_MAKE((u64)p->frame, 12, rights));
	if (nflush == 64)
		unmap_flush();
}

static void unlink_hash(struct page *p)
{
	for (struct page **pp = slot(p->va); *pp; pp = &(*pp)->hnext)
		if (*pp == p) {
			*pp = p->hnext;
			break;
		}
	struct mobj *m = (struct mobj *)ot_lookup(&ot, p->va);
	if (m && m->resident)
		m->resident--;
}

/* Remove p from the alias list of the page it is mapped to. */
static void unlink_alias(struct page *p)
{
	struct page *t = page_find(p->target);
	for (struct page **pp = t ? &t->aliases : &orphans; *pp; pp = &(*pp)->anext)
		if (*pp == p) {
			*pp = p->anext;
			return;
		}
}

static struct page *holder(u64 va);

/*
 * Forget p, and every page mapped onto it (seed 002, Figure 3: a mapping
 * is lost when its source page becomes non-resident).  Tasks got every
 * mapping of a chain from the frame at its end, so that frame is unmapped.
 */
static void forget(struct page *p, bool keep)
{
	struct page *h = holder(p->va);
	if (h) {
		unmap_frame(h, 7);
		unmap_flush();
	}
	if (p->frame) {
		if (keep && p->dirty && pstore->put(pstore->ctx, p->va, p->frame))
			printf("mungi: page store full: page %lx lost\n", p->va);
		frame_free(p->frame);
	} else if (p->target) {
		unlink_alias(p);
	}
	while (p->aliases) {
		struct page *a = p->aliases;
		p->aliases = a->anext;
		a->target = 0;
		forget(a, false);
	}
	unlink_hash(p);
	rec_free(&page_kind, p);
}

void page_drop(u64 va, bool keep)
{
	struct page *p = page_find(va);
	if (p)
		forget(p, keep);
}

void pages_drop_range(u64 base, u64 end)
{
	struct mobj *m = (struct mobj *)ot_lookup(&ot, base);
	for (u64 va = base; va < end && (!m || m->resident); va += PAGE)
		page_drop(va, false);
	pstore->del_range(pstore->ctx, base, end);
}

void unmap_range(u64 base, u64 end)
{
	struct mobj *m = (struct mobj *)ot_lookup(&ot, base);
	for (u64 va = base; va < end && (!m || m->resident); va += PAGE) {
		struct page *p = page_find(va);
		if (p && p->frame)
			unmap_frame(p, 7);
	}
	unmap_flush();
}

/*
 * Call fn on every page of o that has a frame.  The walk is bounded by the
 * hash's size whatever the object's: a big object's few resident pages are
 * found through the buckets rather than by probing every address.
 */
static long each_frame(struct ot_obj *o, long (*fn)(struct page *))
{
	u64 end = obj_end(o);
	long err = 0;
	if (o->npages <= (1UL << HASH_BITS)) {
		struct mobj *m = (struct mobj *)o;
		for (u64 va = o->base; va < end && m->resident && !err; va += PAGE) {
			struct page *p = page_find(va);
			err = p && p->frame ? fn(p) : 0;
		}
		return err;
	}
	for (u64 b = 0; b < (1UL << HASH_BITS) && !err; b++)
		for (struct page *p = bucket[b]; p && !err; p = p->hnext)
			err = p->frame && p->va >= o->base && p->va < end ? fn(p) : 0;
	return err;
}

static long query(struct page *p)
{
	unmap_frame(p, 0);
	return 0;
}

static long synced;

static long put_dirty(struct page *p)
{
	if (!p->dirty)
		return 0;
	int err = pstore->put(pstore->ctx, p->va, p->frame);
	if (err)
		return -(long)err;
	p->dirty = false;
	synced++;
	return 0;
}

long pages_sync(struct ot_obj *o)
{
	each_frame(o, query);
	unmap_flush();
	synced = 0;
	long err = each_frame(o, put_dirty);
	return err ? err : synced;
}

/* --- the server's own access to object memory --- */

/* The page whose frame holds va's data now (following mappings), or NULL when it is not resident. */
static struct page *holder(u64 va)
{
	for (int depth = 0; depth < MAX_ALIAS_DEPTH; depth++) {
		struct page *p = page_find(va);
		if (!p || p->frame)
			return p;
		va = p->target;
	}
	return NULL;
}

static void *frame_of(u64 va)
{
	struct page *p = holder(va);
	return p ? p->frame : NULL;
}

bool vm_read(u64 addr, void *buf, u64 n)
{
	static char tmp[PAGE];
	while (n) {
		u64 va = addr & PAGE_MASK, off = addr - va, chunk = PAGE - off < n ? PAGE - off : n;
		char *f = frame_of(va);
		if (f)
			mcopy(buf, f + off, chunk);
		else if (!pstore->get(pstore->ctx, va, tmp))
			mcopy(buf, tmp + off, chunk);
		else
			mzero(buf, chunk);
		buf = (char *)buf + chunk;
		addr += chunk;
		n -= chunk;
	}
	return true;
}

bool vm_write(u64 addr, const void *buf, u64 n)
{
	while (n) {
		u64 va = addr & PAGE_MASK, off = addr - va, chunk = PAGE - off < n ? PAGE - off : n;
		struct page *p = holder(va);
		if (!p && !page_find(va))
			p = page_materialise(va);
		if (!p)
			return false;
		p->dirty = true;
		mcopy((char *)p->frame + off, buf, chunk);
		buf = (const char *)buf + chunk;
		addr += chunk;
		n -= chunk;
	}
	return true;
}

void pages_init(void)
{
	mzero(bucket, sizeof(bucket));
}
