// SPDX-License-Identifier: MIT
// Objects: the object table's storage, passwords from RDRAND through the
// generator, creation and deletion with kill lists and the stale list, and
// the requests that name objects.
#include "mungi.h"
#include "../../lib/c/string.h"

struct ot ot;
struct addr_space addrs;
struct csprng rng;

static struct kind node_kind = { sizeof(struct bt_node), NULL, 0, "B+-tree node" };
static struct kind mobj_kind = { sizeof(struct mobj), NULL, 0, "object" };
static struct kind pw_kind = { sizeof(struct ot_pw), NULL, 0, "password" };
static struct kind stale_kind = { sizeof(struct stale), NULL, 0, "stale range" };

static struct bt_node *node_alloc(void *c) { (void)c; return rec_alloc_raw(&node_kind); }
static void node_free(void *c, struct bt_node *n) { (void)c; rec_free(&node_kind, n); }
static struct ot_obj *obj_alloc(void *c) { (void)c; return rec_alloc(&mobj_kind); }
static void obj_free(void *c, struct ot_obj *o) { (void)c; rec_free(&mobj_kind, o); }
static struct ot_pw *pw_alloc(void *c) { (void)c; return rec_alloc(&pw_kind); }
static void pw_free(void *c, struct ot_pw *p) { (void)c; rec_free(&pw_kind, p); }
static struct stale *stale_alloc(void *c) { (void)c; return rec_alloc(&stale_kind); }
static void stale_free(void *c, struct stale *s) { (void)c; rec_free(&stale_kind, s); }

/* --- passwords: RDRAND keys the generator (docs/mungi.md, "Passwords") --- */

static bool rdrand(u64 *v)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned char ok;
		__asm__ __volatile__("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

static void reseed(void)
{
	u64 e[4];
	for (int i = 0; i < 4; i++)
		if (!rdrand(&e[i]))
			mungi_panic("mungi: RDRAND gives nothing: no source for passwords\n");
	csprng_seed(&rng, e);
	mzero(e, sizeof(e));
}

u64 new_password(void)
{
	if (csprng_wants_seed(&rng))
		reseed();
	u64 pw;
	do
		pw = csprng_u64(&rng);
	while (!pw);
	return pw;
}

static void passwords_init(void)
{
	unsigned a, b, c, d;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!(c & (1u << 30)))
		mungi_panic("mungi: the CPU has no RDRAND, so passwords could be guessed; "
			    "run with -cpu ...,+rdrand (tools/run does)\n");
	reseed();
}

/* --- recovery: the object table of the last checkpoint, less what did not outlive its boot --- */

/* Drop an object of the table just loaded, pages and all, without touching the address space. */
static void forget_loaded(struct ot_obj *o)
{
	pages_drop_range(o->base, obj_end(o));
	ot_remove(&ot, o->base);
	ot_destroy(&ot, o);
}

/*
 * Objects come back at their addresses (reserved in the address space, so
 * nothing new lands there); the image and the boot's own objects are made
 * again by this boot; objects on the kill lists of tasks, which do not
 * survive a reboot, are deleted as if their tasks had ended.  The stale
 * list is not kept: it guards validations cached by tasks, and none lives
 * across a reboot.
 */
static void recover(void)
{
	if (ot_load(&ot, pstore))
		mungi_panic("mungi: the object table on the disk is damaged; nothing was written. "
			    "format_disk=1 formats the disk\n");
	u64 loaded = ot.objects, killed = 0;
	struct ot_obj *next;
	for (struct ot_obj *o = ot_next(&ot, 0); o; o = next) {
		next = ot_next(&ot, o->base + 1);
		if (o->flags & (OT_FIXED | OT_BOOT) || addr_reserve(&addrs, o->base, o->npages))
			forget_loaded(o);
	}
	for (struct ot_obj *o = ot_next(&ot, 0); o; o = next) {
		next = ot_next(&ot, o->base + 1);
		if (o->creator)
			obj_destroy((struct mobj *)o), killed++;
	}
	printf("mungi: recovered %lu objects of %lu in the last checkpoint (%lu of dead tasks' kill lists deleted)\n",
	       ot.objects, loaded, killed);
}

void objects_init(void)
{
	ot_init(&ot, node_alloc, node_free, obj_alloc, obj_free, pw_alloc, pw_free, NULL);
	if (addr_init(&addrs, MUNGI_OBJ_BASE, (MUNGI_OBJ_END - MUNGI_OBJ_BASE) / PAGE, dt, node_alloc,
		      node_free, stale_alloc, stale_free, NULL))
		mungi_panic("mungi: no memory for the address space\n");
	passwords_init();
	if (pstore_recovered())
		recover();
}

/* --- kill lists --- */

static void kill_list_add(struct domain *d, struct mobj *m)
{
	m->killer = d;
	m->kill_next = d->kill;
	m->kill_prev = &d->kill;
	if (d->kill)
		d->kill->kill_prev = &m->kill_next;
	d->kill = m;
	m->ot.creator = d->id;
}

void kill_list_remove(struct mobj *m)
{
	if (!m->killer)
		return;
	*m->kill_prev = m->kill_next;
	if (m->kill_next)
		m->kill_next->kill_prev = m->kill_prev;
	m->killer = NULL;
	m->ot.creator = 0;
}

/* --- making and destroying --- */

#define MAX_OBJ_PAGES (1UL << 30)       /* 4 TiB: far below the range, and no overflow */

int obj_make(u64 base, u64 npages, u64 account, struct domain *killer, struct mobj **out, u64 *owner_pw)
{
	if (!npages || npages > MAX_OBJ_PAGES)
		return MUNGI_EINVAL;
	/* fixed objects (the image) lie below the range the server places objects in */
	if (base && (base < MUNGI_IMAGE_BASE || base + npages * PAGE > MUNGI_UTCB_AREA ||
		     addr_add(&addrs, base, npages)))
		return MUNGI_EINVAL;
	if (base ? addr_reserve(&addrs, base, npages) : !(base = addr_alloc(&addrs, npages)))
		return base ? MUNGI_EEXIST : MUNGI_ENOMEM;
	struct mobj *m = rec_alloc(&mobj_kind);
	u64 pw = new_password();
	if (!m || (m->ot.base = base, m->ot.npages = npages, ot_insert(&ot, &m->ot))) {
		if (m)
			rec_free(&mobj_kind, m);
		addr_release(&addrs, base, npages, now);
		return MUNGI_ENOMEM;
	}
	m->ot.account = account;
	if (ot_pw_add(&ot, &m->ot, pw, MUNGI_OWNER, NULL, 0, 0, 0) != MUNGI_EOK) {
		obj_destroy(m);
		return MUNGI_ENOMEM;
	}
	if (killer)
		kill_list_add(killer, m);
	else
		m->ot.flags |= OT_SURVIVES;
	bank_charge(&m->ot, 1);
	*out = m;
	*owner_pw = pw;
	return MUNGI_EOK;
}

void obj_destroy(struct mobj *m)
{
	u64 base = m->ot.base, end = obj_end(&m->ot);
	pdx_object_changed(&m->ot);
	pages_drop_range(base, end);    /* while the table still has it: its resident count ends the walk */
	ot_remove(&ot, base);
	sem_drop_range(base, end);
	kill_list_remove(m);
	bank_charge(&m->ot, -1);
	/* the range stays stale for dt: no validation cached for this object outlives that */
	if (addr_release(&addrs, base, m->ot.npages, now))
		printf("mungi: no memory for the stale list: range %lx lost\n", base);
	m->resident = 0;
	ot_destroy(&ot, &m->ot);
}

/* --- requests --- */

/* The object whose base is exactly base, or NULL. */
static struct ot_obj *at(u64 base)
{
	struct ot_obj *o = ot_lookup(&ot, base);
	return o && o->base == base ? o : NULL;
}

/* Rights needed on base, validated: 0 or -MUNGI_E*. */
static long need(struct mthread *t, u64 base, u32 rights)
{
	if (!at(base))
		return -MUNGI_ENOENT;
	long r = validate(NULL, t->dom, base, rights);
	return r < 0 ? r : 0;
}

static long create(struct mthread *t, const u64 *a)
{
	struct domain *d = t->dom;
	u64 abase = a[1] ? a[1] : d->account.base, apw = a[1] ? a[2] : d->account.password;
	if (a[3] & ~(u64)MUNGI_OBJ_SURVIVES)
		return -MUNGI_EINVAL;
	int err = bank_may_charge(abase, apw);
	if (err)
		return -err;
	struct mobj *m;
	u64 pw;
	err = obj_make(0, a[0], abase, (a[3] & MUNGI_OBJ_SURVIVES) ? NULL : d, &m, &pw);
	if (err)
		return -err;
	mr_set(1, m->ot.base);
	mr_set(2, pw);
	return 2;
}

static long delete(struct mthread *t, const u64 *a)
{
	long err = need(t, a[0], MUNGI_D);
	if (err)
		return err;
	obj_destroy((struct mobj *)at(a[0]));
	return 0;
}

static long survive(struct mthread *t, const u64 *a)
{
	long err = need(t, a[0], MUNGI_D);
	if (err)
		return err;
	struct mobj *m = (struct mobj *)at(a[0]);
	kill_list_remove(m);
	m->ot.flags |= OT_SURVIVES;
	return 0;
}

static long info(struct mthread *t, const u64 *a)
{
	struct ot_obj *o = ot_lookup(&ot, a[0]);
	long r = o ? validate(NULL, t->dom, a[0], 0) : -MUNGI_ENOENT;
	if (r < 0)
		return r;
	mr_set(1, o->base);
	mr_set(2, o->npages);
	mr_set(3, (u64)r);
	return 3;
}

static long do_register(struct mthread *t, const u64 *a)
{
	u64 entries[MUNGI_MAX_ENTRIES];
	long err = need(t, a[0], MUNGI_OWNER);
	if (err)
		return err;
	if (a[6] > MUNGI_MAX_ENTRIES)
		return -MUNGI_EINVAL;
	/* the entry table lies in one object the caller may read */
	if (a[6] && validate(NULL, t->dom, a[5], MUNGI_R) < 0)
		return -MUNGI_EPERM;
	if (a[6] && a[5] + a[6] * 8 > obj_end(ot_lookup(&ot, a[5])))
		return -MUNGI_EINVAL;
	vm_read(a[5], entries, a[6] * 8);
	u64 pw = a[1] ? a[1] : new_password();
	err = ot_pw_add(&ot, at(a[0]), pw, (u32)a[2], entries, (unsigned)a[6], a[3], a[4]);
	if (err)
		return -err;
	mr_set(1, pw);
	return 1;
}

static long revoke(struct mthread *t, const u64 *a)
{
	long err = need(t, a[0], MUNGI_OWNER);
	if (!err && !(err = -(long)ot_pw_revoke(&ot, at(a[0]), a[1])))
		pdx_object_changed(at(a[0]));   /* PDX bindings through it end before the reply */
	return err;
}

/* Every dirty page of a kept object and the object table into the page store, committed at once. */
static long checkpoint(struct mthread *t, const u64 *a)
{
	(void)t;
	struct ot_obj *bank = at(a[0]);
	if (!bank || !(bank->flags & OT_BANK) || (ot_rights(bank, a[1]) & MUNGI_OWNER) != MUNGI_OWNER)
		return -MUNGI_EPERM;
	long pages = pstore_checkpoint();
	if (pages < 0)
		return pages;
	mr_set(1, (u64)pages);
	return 1;
}

void obj_requests(struct mthread *t, u64 label)
{
	u64 a[7];
	for (int i = 0; i < 7; i++)
		a[i] = L4_MR(i + 1);
	long r;
	switch (label) {
	case MUNGI_OBJ_CREATE: r = create(t, a); break;
	case MUNGI_OBJ_DELETE: r = delete(t, a); break;
	case MUNGI_OBJ_SURVIVE: r = survive(t, a); break;
	case MUNGI_OBJ_INFO: r = info(t, a); break;
	case MUNGI_CAP_REGISTER: r = do_register(t, a); break;
	case MUNGI_CAP_REVOKE: r = revoke(t, a); break;
	case MUNGI_CHECKPOINT: r = checkpoint(t, a); break;
	default: r = -MUNGI_ENOSYS; break;
	}
	reply_tag(r < 0 ? (u64)-r : 0, r < 0 ? 0 : (unsigned)r);
	reply_to(t->tid);
}
