// SPDX-License-Identifier: MIT
// The object table: descriptors by base address, their passwords, and their
// serialisation into page-store pages.
#include "ot.h"

void ot_init(struct ot *ot, struct bt_node *(*node_alloc)(void *), void (*node_free)(void *, struct bt_node *),
	     struct ot_obj *(*obj_alloc)(void *), void (*obj_free)(void *, struct ot_obj *),
	     struct ot_pw *(*pw_alloc)(void *), void (*pw_free)(void *, struct ot_pw *), void *ctx)
{
	bt_init(&ot->index, node_alloc, node_free, ctx);
	ot->objects = 0;
	ot->obj_alloc = obj_alloc;
	ot->obj_free = obj_free;
	ot->pw_alloc = pw_alloc;
	ot->pw_free = pw_free;
	ot->ctx = ctx;
}

static uint64_t end_of(const struct ot_obj *o)
{
	return o->base + o->npages * STORE_PAGE;
}

struct ot_obj *ot_lookup(const struct ot *ot, uint64_t addr)
{
	uint64_t base;
	void *v;
	if (!bt_floor(&ot->index, addr, &base, &v))
		return NULL;
	struct ot_obj *o = v;
	return addr < end_of(o) ? o : NULL;
}

struct ot_obj *ot_next(const struct ot *ot, uint64_t addr)
{
	uint64_t base;
	void *v;
	return bt_ceil(&ot->index, addr, &base, &v) ? v : NULL;
}

int ot_insert(struct ot *ot, struct ot_obj *o)
{
	uint64_t end = end_of(o);
	if (!o->npages || end <= o->base || (o->base & (STORE_PAGE - 1)))
		return -1;
	struct ot_obj *below = ot_lookup(ot, o->base), *above = ot_next(ot, o->base);
	if (below || (above && above->base < end))
		return -1;
	if (bt_insert(&ot->index, o->base, o))
		return -1;
	ot->objects++;
	return 0;
}

struct ot_obj *ot_remove(struct ot *ot, uint64_t base)
{
	struct ot_obj *o = bt_remove(&ot->index, base);
	if (o)
		ot->objects--;
	return o;
}

void ot_destroy(struct ot *ot, struct ot_obj *o)
{
	while (o->pw) {
		struct ot_pw *p = o->pw;
		o->pw = p->next;
		ot->pw_free(ot->ctx, p);
	}
	ot->obj_free(ot->ctx, o);
}

struct ot_pw *ot_pw_find(const struct ot_obj *o, uint64_t password)
{
	if (!password)
		return NULL;
	for (struct ot_pw *p = o->pw; p; p = p->next)
		if (p->password == password)
			return p;
	return NULL;
}

uint32_t ot_rights(const struct ot_obj *o, uint64_t password)
{
	struct ot_pw *p = ot_pw_find(o, password);
	return p ? p->rights : 0;
}

int ot_pw_add(struct ot *ot, struct ot_obj *o, uint64_t password, uint32_t rights, const uint64_t *entry,
	      unsigned nentries, uint64_t clist_base, uint64_t clist_pw)
{
	if (!password || !rights || (rights & ~MUNGI_RIGHTS) || nentries > MUNGI_MAX_ENTRIES ||
	    (nentries && !(rights & MUNGI_PDX)))
		return MUNGI_EINVAL;
	for (unsigned i = 0; i < nentries; i++)
		if (entry[i] < o->base || entry[i] >= end_of(o))
			return MUNGI_EINVAL;
	if (ot_pw_find(o, password))
		return MUNGI_EEXIST;
	if (o->npw >= OT_MAX_PASSWORDS)
		return MUNGI_ENOMEM;
	struct ot_pw *p = ot->pw_alloc(ot->ctx);
	if (!p)
		return MUNGI_ENOMEM;
	p->password = password;
	p->rights = rights;
	p->nentries = nentries;
	for (unsigned i = 0; i < MUNGI_MAX_ENTRIES; i++)
		p->entry[i] = i < nentries ? entry[i] : 0;
	p->clist_base = clist_base;
	p->clist_pw = clist_pw;
	p->next = o->pw;
	o->pw = p;
	o->npw++;
	return MUNGI_EOK;
}

int ot_pw_revoke(struct ot *ot, struct ot_obj *o, uint64_t password)
{
	for (struct ot_pw **pp = &o->pw; *pp; pp = &(*pp)->next) {
		if ((*pp)->password == password && password) {
			struct ot_pw *p = *pp;
			*pp = p->next;
			o->npw--;
			o->gen++;
			ot->pw_free(ot->ctx, p);
			return MUNGI_EOK;
		}
	}
	return MUNGI_ENOENT;
}

/* --- serialisation --- */

#define OT_SAVE_MAGIC 0x3154546e754dUL          /* "MunTT1" */
#define OBJ_WORDS 11                            /* words of a descriptor before its passwords */
#define PW_WORDS (5 + MUNGI_MAX_ENTRIES)
#define PAGE_WORDS (STORE_PAGE / 8)
#define REC_END 0                               /* the rest of a page is empty */

/* The words of one descriptor record: base first (never 0, which ends a page). */
static unsigned encode(const struct ot_obj *o, uint64_t *w)
{
	uint64_t head[OBJ_WORDS] = { o->base, o->npages, o->flags, o->gen, o->account, o->pager,
				     o->pager_pw, (uint64_t)o->balance, o->charged_pages, o->creator, o->npw };
	unsigned n = 0;
	for (unsigned i = 0; i < OBJ_WORDS; i++)
		w[n++] = head[i];
	for (const struct ot_pw *p = o->pw; p; p = p->next) {
		w[n++] = p->password;
		w[n++] = (uint64_t)p->rights << 32 | p->nentries;
		w[n++] = p->clist_base;
		w[n++] = p->clist_pw;
		w[n++] = 0;
		for (unsigned i = 0; i < MUNGI_MAX_ENTRIES; i++)
			w[n++] = p->entry[i];
	}
	return n;
}

long ot_save(const struct ot *ot, const struct pagestore *ps)
{
	static uint64_t page[PAGE_WORDS];
	uint64_t rec[OBJ_WORDS + OT_MAX_PASSWORDS * PW_WORDS];
	uint64_t key = STORE_OT_KEY + 1, at = 0, base = 0;
	void *v;
	__builtin_memset(page, 0, sizeof(page));
	while (bt_ceil(&ot->index, base, &base, &v)) {
		unsigned n = encode(v, rec);
		if (at + n > PAGE_WORDS) {
			if (ps->put(ps->ctx, key++, page))
				return -1;
			__builtin_memset(page, 0, sizeof(page));
			at = 0;
		}
		__builtin_memcpy(&page[at], rec, n * 8);
		at += n;
		base++;
	}
	if (at && ps->put(ps->ctx, key++, page))
		return -1;
	__builtin_memset(page, 0, sizeof(page));
	page[0] = OT_SAVE_MAGIC;
	page[1] = ot->objects;
	page[2] = key - (STORE_OT_KEY + 1);
	if (ps->put(ps->ctx, STORE_OT_KEY, page))
		return -1;
	return (long)(key - STORE_OT_KEY);
}

/* One record at w (at most avail words) into a new descriptor; its length, or 0 if malformed. */
static unsigned decode(struct ot *ot, const uint64_t *w, unsigned avail)
{
	if (avail < OBJ_WORDS || w[10] > OT_MAX_PASSWORDS || avail < OBJ_WORDS + w[10] * PW_WORDS)
		return 0;
	struct ot_obj *o = ot->obj_alloc(ot->ctx);
	if (!o)
		return 0;
	__builtin_memset(o, 0, sizeof(*o));
	o->base = w[0];
	o->npages = w[1];
	o->flags = w[2];
	o->gen = w[3];
	o->account = w[4];
	o->pager = w[5];
	o->pager_pw = w[6];
	o->balance = (int64_t)w[7];
	o->charged_pages = w[8];
	o->creator = w[9];
	unsigned n = OBJ_WORDS, bad = ot_insert(ot, o) != 0;
	for (uint64_t i = 0; i < w[10] && !bad; i++, n += PW_WORDS) {
		const uint64_t *p = w + n;
		bad = ot_pw_add(ot, o, p[0], (uint32_t)(p[1] >> 32), p + 5, (uint32_t)p[1], p[2], p[3]) !=
		      MUNGI_EOK;
	}
	if (bad) {
		if (ot_lookup(ot, o->base) == o)
			ot_remove(ot, o->base);
		ot_destroy(ot, o);
		return 0;
	}
	o->gen = w[3];              /* adding passwords left it alone, but keep the saved value */
	return n;
}

static void empty(struct ot *ot)
{
	struct ot_obj *o;
	while ((o = ot_next(ot, 0)) != NULL) {
		ot_remove(ot, o->base);
		ot_destroy(ot, o);
	}
}

int ot_load(struct ot *ot, const struct pagestore *ps)
{
	static uint64_t page[PAGE_WORDS];
	if (ps->get(ps->ctx, STORE_OT_KEY, page) || page[0] != OT_SAVE_MAGIC)
		return -1;
	uint64_t objects = page[1], pages = page[2];
	for (uint64_t k = 0; k < pages; k++) {
		if (ps->get(ps->ctx, STORE_OT_KEY + 1 + k, page))
			goto bad;
		unsigned at = 0;
		while (at < PAGE_WORDS && page[at] != REC_END) {
			unsigned n = decode(ot, page + at, PAGE_WORDS - at);
			if (!n)
				goto bad;
			at += n;
		}
	}
	if (ot->objects == objects)
		return 0;
bad:
	empty(ot);
	return -1;
}
