// SPDX-License-Identifier: MIT
// Protection domains: active protection domains (APDs) of Clists and
// capability handlers, validation against the object table, and the
// per-domain validation cache whose entries live for dt (seed 002, "Active
// protection domains", "Protection domains").
#include "mungi.h"
#include "../../lib/c/string.h"

struct domain *all_domains;

u32 cap_rights(u64 base, u64 pw)
{
	struct ot_obj *o = ot_lookup(&ot, base);
	return o && o->base == base ? ot_rights(o, pw) : 0;
}

/* --- the validation cache --- */

/*
 * An entry validates accesses until it expires; after that it stays as the
 * record of the mappings the domain may still hold, so that a change to
 * the APD or a revocation can take them away.
 */
static struct vc_entry *vc_find(struct domain *d, u64 addr, bool valid)
{
	for (unsigned i = 0; i < VC_SIZE; i++) {
		struct vc_entry *e = &d->vc[i];
		if (e->end && addr - e->base < e->end - e->base && (!valid || e->expires > now))
			return e;
	}
	return NULL;
}

/*
 * Remember rights on o for dt.  A live entry that is already there keeps
 * its older gen, so an expiry still sees a revocation that happened before
 * either validation.
 */
static void vc_insert(struct domain *d, struct ot_obj *o, u32 rights)
{
	struct vc_entry *e = vc_find(d, o->base, false);
	if (e && e->expires > now) {
		e->rights |= rights;
		return;
	}
	if (!e) {
		e = &d->vc[d->vc_next++ % VC_SIZE];
		if (e->end)
			unmap_range(e->base, e->end);   /* evicted: its mappings must not outlive it */
	}
	e->base = o->base;
	e->end = obj_end(o);
	e->rights = rights;
	e->expires = now + dt;
	e->gen = o->gen;
}

void vc_flush(struct domain *d)
{
	for (unsigned i = 0; i < VC_SIZE; i++) {
		if (d->vc[i].end)
			unmap_range(d->vc[i].base, d->vc[i].end);
		d->vc[i] = (struct vc_entry){ 0, 0, 0, 0, 0 };
	}
}

/* --- searching the APD --- */

#define CHUNK 32

/* The rights of the first capability in the Clist at base for o with all of need; -1: none. */
static long clist_search(u64 base, struct ot_obj *o, u32 need)
{
	struct ot_obj *c = ot_lookup(&ot, base);
	struct mungi_clist head;
	if (!c || c->base != base)
		return -1;
	vm_read(base, &head, sizeof(head));
	u64 cap = MUNGI_CLIST_CAPACITY(c->npages * PAGE), n = head.count < cap ? head.count : cap;
	if (head.magic != MUNGI_CLIST_MAGIC)
		return -1;
	struct mungi_cap buf[CHUNK];
	for (u64 i = 0; i < n; i += CHUNK) {
		u64 k = n - i < CHUNK ? n - i : CHUNK;
		vm_read(base + sizeof(head) + i * sizeof(struct mungi_cap), buf, k * sizeof(buf[0]));
		for (u64 j = 0; j < k; j++) {
			if (buf[j].base != o->base)
				continue;
			u32 r = ot_rights(o, buf[j].password);
			if ((r & need) == need && r)
				return r;
		}
	}
	return -1;
}

/*
 * Handler slot s for t's validation of o: the rights its answer gives
 * (>= 0), -1 to go on searching, VALIDATE_WAIT once an upcall was started.
 * A validation run again after an upcall skips the handlers already asked.
 */
static long handler(struct mthread *t, int s, u64 entry, struct ot_obj *o, u32 need)
{
	if (!t || t->kind == MUNGI_KIND_T0 || s < t->upcall_skip)
		return -1;
	if (s == t->upcall_skip && t->upcall_have) {
		u32 r = t->upcall_base == o->base ? ot_rights(o, t->upcall_pw) : 0;
		t->upcall_have = false;
		t->upcall_skip = s + 1;
		return (r & need) == need && r ? (long)r : -1;
	}
	t->upcall_skip = s;
	upcall_start(t, s, entry, o->base, need);
	return VALIDATE_WAIT;
}

static long search(struct mthread *t, struct domain *d, struct ot_obj *o, u32 need)
{
	int s = 0;
	for (struct domain *c = d; c; c = c->parent) {
		for (unsigned i = 0; i < c->napd; i++, s++) {
			struct apd_entry *e = &c->apd[i];
			long r = e->kind == APD_CLIST ? clist_search(e->base, o, need) : handler(t, s, e->base, o, need);
			if (r != -1)
				return r;
		}
	}
	return -MUNGI_EPERM;
}

long validate(struct mthread *t, struct domain *d, u64 addr, u32 need)
{
	for (struct domain *c = d; c; c = c->parent) {
		struct vc_entry *e = vc_find(c, addr, true);
		if (e && (e->rights & need) == need)
			return e->rights;
	}
	struct ot_obj *o = ot_lookup(&ot, addr);
	if (!o)
		return -MUNGI_ENOENT;
	stats[MUNGI_STAT_VALIDATIONS]++;
	long r = search(t, d, o, need);
	if (r >= 0)
		vc_insert(d, o, (u32)r);
	return r;
}

/* --- changing the APD --- */

/* Is the Clist at base well-formed?  MUNGI_EOK or MUNGI_ECLIST. */
static int clist_ok(u64 base)
{
	struct ot_obj *c = ot_lookup(&ot, base);
	struct mungi_clist head;
	vm_read(base, &head, sizeof(head));
	return head.magic == MUNGI_CLIST_MAGIC && head.count <= MUNGI_CLIST_CAPACITY(c->npages * PAGE) ?
	       MUNGI_EOK : MUNGI_ECLIST;
}

long apd_add_clist(struct domain *d, u64 base, u64 pw)
{
	if (d->napd == MUNGI_MAX_APD)
		return -MUNGI_ENOMEM;
	if (!(cap_rights(base, pw) & MUNGI_R))
		return -MUNGI_EPERM;
	if (clist_ok(base))
		return -MUNGI_ECLIST;
	struct apd_entry *e = &d->apd[d->napd];
	e->kind = APD_CLIST;
	e->base = base;
	e->pw = pw;
	e->checked = now;
	return d->napd++;
}

static long add_handler(struct domain *d, u64 entry)
{
	if (d->napd == MUNGI_MAX_APD)
		return -MUNGI_ENOMEM;
	struct apd_entry *e = &d->apd[d->napd];
	e->kind = APD_HANDLER;          /* not validated: a failed upcall harms no one but the caller */
	e->base = entry;
	e->pw = 0;
	return d->napd++;
}

static void apd_remove(struct domain *d, unsigned i)
{
	for (; i + 1 < d->napd; i++)
		d->apd[i] = d->apd[i + 1];
	d->napd--;
	vc_flush(d);
	pdx_forget_domain(d);           /* its PDX tasks extend the old APD */
}

static long lock(struct domain *d)
{
	if (!L4_SpaceControl(d->space, 0, 0, 0, mungi_id, NULL))
		return -MUNGI_ENOMEM;
	d->flags |= D_LOCKED | D_CONFINED;
	pdx_forget_domain(d);           /* they were not confined */
	return 0;
}

void domain_requests(struct mthread *t, u64 label)
{
	struct domain *d = t->dom;
	u64 a0 = L4_MR(1), a1 = L4_MR(2);
	long r;
	if (d->flags & D_LOCKED && label != MUNGI_APD_MAKE)
		r = -MUNGI_ELOCKED;
	else if (label == MUNGI_APD_ADD)
		r = apd_add_clist(d, a0, a1);
	else if (label == MUNGI_APD_ADD_HANDLER)
		r = add_handler(d, a0);
	else if (label == MUNGI_APD_REMOVE)
		r = a0 == 0 || a0 >= d->napd ? -MUNGI_EINVAL : (apd_remove(d, (unsigned)a0), 0);
	else if (label == MUNGI_APD_LOCK)
		r = lock(d);
	else
		r = apd_make(d, a0, a1);
	if (r >= 0)
		mr_set(1, (u64)r);
	reply_tag(r < 0 ? (u64)-r : 0, r < 0 ? 0 : 1);
	reply_to(t->tid);
}

/* --- once per tick --- */

/* Where a password was revoked since an expired validation, every mapping of the object goes. */
static void expire(struct domain *d)
{
	for (unsigned i = 0; i < VC_SIZE; i++) {
		struct vc_entry *e = &d->vc[i];
		if (!e->end || e->expires > now)
			continue;
		struct ot_obj *o = ot_lookup(&ot, e->base);
		if (o && o->base == e->base && o->gen == e->gen)
			continue;
		if (o && o->base == e->base)
			unmap_range(e->base, e->end);
		*e = (struct vc_entry){ 0, 0, 0, 0, 0 };
	}
}

/* Clist capabilities in an APD are validated again once they are dt old; invalid ones go. */
static void revalidate(struct domain *d)
{
	for (unsigned i = 0; i < d->napd; i++) {
		struct apd_entry *e = &d->apd[i];
		if (e->kind != APD_CLIST || e->checked + dt > now)
			continue;
		if (cap_rights(e->base, e->pw) & MUNGI_R) {
			e->checked = now;
		} else {
			printf("mungi: task %lu: Clist %lx no longer valid, dropped from its APD\n", d->id, e->base);
			apd_remove(d, i--);
		}
	}
}

#define REAP_PER_TICK 64            /* a burst of deletions is returned over several ticks */

void domains_tick(void)
{
	addr_reap(&addrs, now, REAP_PER_TICK);
	for (struct domain *d = all_domains; d; d = d->next_all) {
		expire(d);
		revalidate(d);
		pdx_tick(d);
	}
}
