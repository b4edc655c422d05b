// SPDX-License-Identifier: MIT
// Page faults: validate the access in the faulting thread's domain, find
// the page (following object-to-object mappings, calling user-level pagers,
// or zero-filling as the default pager), map it; or raise a protection
// fault by sending the thread to its runtime's fault entry.
#include "mungi.h"
#include "../../lib/c/string.h"

static struct mthread *page_waiters;    /* threads whose fault waits for a pager */

static void end_thread(struct mthread *t, long status);

static u32 need_of(u32 rwx)
{
	return rwx & 2 ? MUNGI_W : rwx & 1 ? MUNGI_X : MUNGI_R;
}

/* The fpage rights for Mungi rights: x86 pages that are writable or executable are readable. */
static u32 fpage_rights(u32 r)
{
	return (r & MUNGI_W ? 6 : 0) | (r & MUNGI_X ? 5 : 0) | (r & MUNGI_R ? 4 : 0);
}

/*
 * Send t to its runtime's fault entry.  The runtime asks for the fault's
 * details first thing; a thread that faults again before it asked cannot
 * run its fault path at all (no capability for the runtime's own code or
 * stack), and would fault for ever: it is ended instead.
 */
static void protection_fault(struct mthread *t)
{
	stats[MUNGI_STAT_PROT_FAULTS]++;
	if (t->in_fault_path) {
		printf("mungi: task %lu thread %lx cannot run its fault handler (fault at %lx); ",
			  t->dom->id, t->tid, t->fault_addr);
		end_thread(t, 139);
		return;
	}
	t->in_fault_path = true;
	struct L4_ExRegs r = { .control = L4_EXREG_SET_IP, .ip = rt.fault_entry };
	pecan_exregs(t->tid, &r);
	if (r.ip != rt.fault_entry)
		t->fault_rip = r.ip;
	t->state = T_RUN;
	t->wait = W_NONE;
	mr_set(0, 0);                   /* no mapping: the thread runs on at its fault entry */
	reply_to(t->tid);
}

#define RES_WAIT ((void *)1)

/* The frame for page va and the rights the mappings on the way allow; NULL: none, RES_WAIT: t waits. */
static void *resolve(struct mthread *t, u64 va, u32 *rights)
{
	for (int depth = 0; depth < MAX_ALIAS_DEPTH; depth++) {
		struct page *p = page_find(va);
		if (p && p->frame)
			return p->frame;
		if (p) {
			*rights &= p->rights;
			va = p->target;
			continue;
		}
		struct ot_obj *o = ot_lookup(&ot, va);
		if (!o)
			return NULL;
		if (!o->pager) {
			p = page_materialise(va);
			return p ? p->frame : NULL;
		}
		if (t->wait_on == va || !pager_invoke(o, va, t->fault_access))
			return NULL;    /* asked once for this fault already, or no pager to ask */
		t->state = T_PARK;
		t->wait = W_FAULT;
		t->wait_on = va;
		t->next = page_waiters;
		page_waiters = t;
		return RES_WAIT;
	}
	return NULL;
}

void fault_retry(struct mthread *t)
{
	u64 addr = t->fault_addr;
	long r = validate(t, t->dom, addr, need_of(t->fault_access));
	if (r == VALIDATE_WAIT)
		return;
	t->upcall_skip = 0;
	t->upcall_have = false;
	u32 rights = (u32)(r < 0 ? 0 : r);
	void *f = r < 0 ? NULL : resolve(t, addr & PAGE_MASK, &rights);
	if (f == RES_WAIT)
		return;
	if (!f || !(rights & need_of(t->fault_access))) {
		protection_fault(t);
		return;
	}
	t->state = T_RUN;
	t->wait = W_NONE;
	t->wait_on = 0;
	mr_set(1, (addr & PAGE_MASK) | L4_ITEM_MAP);
	mr_set(2, L4_FPAGE_MAKE((u64)f, 12, fpage_rights(rights)));
	mr_set(0, L4_TAG_MAKE(0, 0, 2));
	reply_to(t->tid);
}

void page_fault(struct mthread *t, u64 addr, u64 rip, u32 rwx)
{
	stats[MUNGI_STAT_FAULTS]++;
	t->fault_addr = addr;
	t->fault_rip = rip;
	t->fault_access = rwx & 7;
	t->upcall_skip = 0;
	t->upcall_have = false;
	t->wait_on = 0;
	fault_retry(t);
}

void wake_page_waiters(u64 va)
{
	struct mthread *list = NULL;
	for (struct mthread **pp = &page_waiters; *pp;) {
		struct mthread *t = *pp;
		if (t->wait_on == va) {
			*pp = t->next;
			t->next = list;
			list = t;
		} else {
			pp = &t->next;
		}
	}
	while (list) {
		struct mthread *t = list;
		list = t->next;
		t->state = T_RUN;
		fault_retry(t);         /* wait_on stays: the pager is not asked twice for one fault */
	}
}

/* Take a parked thread off the page waiters (it is being destroyed). */
static void unwait(struct mthread *t)
{
	for (struct mthread **pp = &page_waiters; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			return;
		}
}

/* A worker or t0 is ended (its caller gets an error); a user thread takes its task with it. */
static void end_thread(struct mthread *t, long status)
{
	if (t->kind == MUNGI_KIND_WORKER || t->kind == MUNGI_KIND_DIRECT || t->kind == MUNGI_KIND_T0) {
		printf("the thread is ended\n");
		thread_destroy(t);
	} else {
		printf("the task is ended\n");
		task_destroy(t->dom, status);
	}
}

void exception(struct mthread *t)
{
	u64 vec = L4_MR(19);
	printf("mungi: task %lu thread %lx: exception %lu at %lx; ", t->dom->id, t->tid, vec, L4_MR(1));
	end_thread(t, 128 + (long)(vec & 0x7f));
}

void fault_forget(struct mthread *t)
{
	if (t->wait == W_FAULT)
		unwait(t);
}

/* --- object-to-object mappings and user-level pagers --- */

static long set_pager(struct mthread *t, u64 base, u64 entry)
{
	struct ot_obj *o = ot_lookup(&ot, base);
	if (!o || o->base != base)
		return -MUNGI_ENOENT;
	long r = validate(NULL, t->dom, base, MUNGI_OWNER);
	if (r < 0)
		return r;
	u64 pw = 0;
	if (entry) {
		struct ot_obj *po = ot_lookup(&ot, entry);
		long e = po ? pdx_entry_password(t->dom, entry, &pw) : MUNGI_ENOENT;
		if (e)
			return -e;
	}
	o->pager = entry;
	o->pager_pw = pw;
	return 0;
}

/* Would mapping dest onto src make a chain that comes back to dest, or is too long? */
static bool loops(u64 dest, u64 src)
{
	for (int depth = 0; depth < MAX_ALIAS_DEPTH; depth++) {
		if (src == dest)
			return true;
		struct page *p = page_find(src);
		if (!p || p->frame)
			return false;
		src = p->target;
	}
	return true;
}

static long vm_map(struct mthread *t, u64 dest, u64 src, u64 rights)
{
	if ((dest | src) & ~PAGE_MASK || !rights || (rights & ~(u64)(MUNGI_R | MUNGI_W | MUNGI_X)))
		return -MUNGI_EINVAL;
	long r = validate(NULL, t->dom, dest, MUNGI_W);
	if (r >= 0)
		r = validate(NULL, t->dom, src, (u32)rights);
	if (r < 0)
		return r;
	if (loops(dest, src))
		return -MUNGI_ELOOP;
	page_drop(dest, false);
	return page_alias(dest, src, (u32)rights) ? 0 : -MUNGI_ENOMEM;
}

static long vm_flush(struct mthread *t, u64 va)
{
	if (va & ~PAGE_MASK)
		return -MUNGI_EINVAL;
	long r = validate(NULL, t->dom, va, MUNGI_W);
	if (r < 0)
		return r;
	page_drop(va, true);
	return 0;
}

void vm_requests(struct mthread *t, u64 label)
{
	u64 a0 = L4_MR(1), a1 = L4_MR(2), a2 = L4_MR(3);
	long r;
	if (label == MUNGI_SET_PAGER) {
		r = set_pager(t, a0, a1);
	} else if (label == MUNGI_VM_MAP) {
		r = vm_map(t, a0, a1, a2);
	} else if (label == MUNGI_VM_FLUSH) {
		r = vm_flush(t, a0);
	} else {
		mr_set(1, t->fault_addr);
		mr_set(2, t->fault_access);
		mr_set(3, t->fault_rip);
		r = 3;
	}
	reply_tag(r < 0 ? (u64)-r : 0, r < 0 ? 0 : (unsigned)r);
	reply_to(t->tid);
}
