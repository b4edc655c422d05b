// SPDX-License-Identifier: MIT
// Bank accounts (seed 002, "Storage management"): the server only insists
// that creating an object names an account in credit, and records it; the
// rent collector and the paymaster are user-level tasks holding the bank's
// capability, which lets them create accounts, move money and read the
// object table.
#include "mungi.h"

static struct ot_obj *at(u64 base)
{
	struct ot_obj *o = ot_lookup(&ot, base);
	return o && o->base == base ? o : NULL;
}

static struct ot_obj *account(u64 base)
{
	struct ot_obj *o = at(base);
	return o && (o->flags & OT_ACCOUNT) ? o : NULL;
}

int bank_may_charge(u64 base, u64 pw)
{
	struct ot_obj *a = account(base);
	if (!a || !(ot_rights(a, pw) & MUNGI_W))
		return MUNGI_EPERM;
	return a->balance > 0 ? MUNGI_EOK : MUNGI_EFUNDS;
}

void bank_charge(struct ot_obj *o, long sign)
{
	struct ot_obj *a = account(o->account);
	if (a)
		a->charged_pages += (u64)(sign * (long)o->npages);
}

static bool is_bank(u64 base, u64 pw)
{
	struct ot_obj *b = at(base);
	return b && (b->flags & OT_BANK) && (ot_rights(b, pw) & MUNGI_OWNER) == MUNGI_OWNER;
}

static long create(u64 balance)
{
	struct mobj *m;
	u64 pw;
	int err = obj_make(0, 1, 0, NULL, &m, &pw);
	if (err)
		return -err;
	m->ot.flags |= OT_ACCOUNT;
	m->ot.balance = (int64_t)balance;
	mr_set(1, m->ot.base);
	mr_set(2, pw);
	return 2;
}

static long enumerate(u64 addr)
{
	struct ot_obj *o = ot_next(&ot, addr);
	mr_set(1, o ? o->base : 0);
	mr_set(2, o ? o->npages : 0);
	mr_set(3, o ? o->account : 0);
	return 3;
}

void bank_requests(struct mthread *t, u64 label)
{
	u64 a[4] = { L4_MR(1), L4_MR(2), L4_MR(3), L4_MR(4) };
	struct ot_obj *acct;
	long r;
	(void)t;
	if (label == MUNGI_ACCT_INFO) {
		acct = account(a[0]);
		r = acct && (ot_rights(acct, a[1]) & MUNGI_R) ?
		    (mr_set(1, (u64)acct->balance), mr_set(2, acct->charged_pages), 2) : -MUNGI_EPERM;
	} else if (!is_bank(a[0], a[1])) {
		r = -MUNGI_EPERM;
	} else if (label == MUNGI_ACCT_CREATE) {
		r = create(a[2]);
	} else if (label == MUNGI_ACCT_DEPOSIT) {
		acct = account(a[2]);
		r = acct ? (acct->balance += (int64_t)a[3], mr_set(1, (u64)acct->balance), 1) : -MUNGI_ENOENT;
	} else {
		r = enumerate(a[2]);
	}
	reply_tag(r < 0 ? (u64)-r : 0, r < 0 ? 0 : (unsigned)r);
	reply_to(t->tid);
}
