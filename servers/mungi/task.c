// SPDX-License-Identifier: MIT
// Tasks and threads: each Mungi task (protection domain) is an L4 space the
// server creates and pages; each Mungi thread an L4 thread started at the
// runtime's entry on a stack in the task's stack object.
#include "mungi.h"
#include "../../lib/c/string.h"

struct mthread *threads[MAX_TNO];
static u32 versions[MAX_TNO];
static struct kind thread_kind = { sizeof(struct mthread), NULL, 0, "thread" };
static struct kind domain_kind = { sizeof(struct domain), NULL, 0, "domain" };
static struct domain *zombies;          /* exited tasks whose creator has not waited yet */
static u64 next_tno = FIRST_TNO;
static u64 task_serial;                 /* task ids: never reused */

/* A free thread number (its version bumped), or 0. */
static u64 tno_alloc(void)
{
	for (u64 i = 0; i < MAX_TNO - FIRST_TNO; i++) {
		u64 no = FIRST_TNO + (next_tno - FIRST_TNO + i) % (MAX_TNO - FIRST_TNO);
		if (!threads[no] && !(versions[no] & 1)) {
			next_tno = no + 1;
			return no;
		}
	}
	return 0;
}

static L4_ThreadId_t tid_of(u64 no)
{
	versions[no] += 2;              /* odd: in use; the ID's version keeps its low bits nonzero */
	versions[no] |= 1;
	return l4_global_id(no, (u64)versions[no] << 6 | 1);
}

/* Each stack slot ends with a permit table (used by direct workers), below it the start words. */
#define PERMIT_BYTES (MUNGI_PERMITS * sizeof(struct mungi_permit))

static u64 slot_end(struct domain *d, unsigned slot)
{
	return d->stack_obj + (slot + 1) * MUNGI_STACK_SIZE;
}

static u64 stack_top(struct domain *d, unsigned slot)
{
	return slot_end(d, slot) - PERMIT_BYTES - 32;
}

u64 thread_permits(struct mthread *t)
{
	return slot_end(t->dom, t->slot) - PERMIT_BYTES;
}

/* --- threads --- */

static int free_slot(struct domain *d)
{
	for (unsigned i = 0; i < MUNGI_MAX_THREADS; i++)
		if (!d->thread[i])
			return (int)i;
	return -1;
}

/* Create the L4 thread (the first makes the space) and give it its start message. */
static bool l4_start(struct domain *d, struct mthread *t, u64 fn, u64 arg)
{
	u64 utcb = MUNGI_UTCB_AREA + t->slot * UTCB_SIZE;
	bool first = t->tid == d->space;
	if (first && (!L4_ThreadControl(t->tid, t->tid, mungi_id, L4_NILTHREAD, ~0UL) ||
		      !L4_SpaceControl(t->tid, 0, L4_FPAGE_MAKE(MUNGI_KIP_AREA, 12, 0),
				       L4_FPAGE_MAKE(MUNGI_UTCB_AREA, MUNGI_UTCB_LOG2, 0),
				       d->flags & D_CONFINED ? mungi_id : L4_NILTHREAD, NULL)))
		return false;
	if (!L4_ThreadControl(t->tid, d->space, mungi_id, mungi_id, utcb))
		return false;
	static const struct mungi_permit none[MUNGI_PERMITS];
	if (t->kind == MUNGI_KIND_DIRECT)
		arg = thread_permits(t);
	u64 sp = stack_top(d, t->slot), words[4] = { fn, arg, t->kind, 0 };
	/* the slot's permit table starts empty, whatever an earlier thread of the slot left there */
	if (!vm_write(sp, words, sizeof(words)) || !vm_write(thread_permits(t), none, sizeof(none)))
		return false;
	mr_set(0, L4_TAG_MAKE(0, 2, 0));
	mr_set(1, rt.thread_entry);
	mr_set(2, sp);
	return send_now(t->tid);
}

struct mthread *thread_start(struct domain *d, u64 fn, u64 arg, u8 kind)
{
	int slot = free_slot(d);
	u64 no = slot < 0 ? 0 : d->nthreads ? tno_alloc() : l4_thread_no(d->space);
	struct mthread *t = no ? rec_alloc(&thread_kind) : NULL;
	if (!t)
		return NULL;
	t->tid = d->nthreads ? tid_of(no) : d->space;
	t->dom = d;
	t->slot = (unsigned)slot;
	t->kind = kind;
	threads[no] = t;
	d->thread[slot] = t;
	d->nthreads++;
	if (!l4_start(d, t, fn, arg)) {
		printf("mungi: cannot start a thread of task %lu (ErrorCode %lu)\n", d->id, L4_ErrorCode());
		thread_destroy(t);
		return NULL;
	}
	return t;
}

void thread_destroy(struct mthread *t)
{
	struct domain *d = t->dom;
	u64 no = l4_thread_no(t->tid);
	pdx_caller_gone(t);
	sem_forget(t);
	fault_forget(t);
	L4_ThreadControl(t->tid, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL);
	versions[no] &= ~1u;
	threads[no] = NULL;
	d->thread[t->slot] = NULL;
	d->nthreads--;
	if (t->tid == d->space)         /* the space is named by another of its threads now */
		for (unsigned i = 0; i < MUNGI_MAX_THREADS; i++)
			if (d->thread[i])
				d->space = d->thread[i]->tid;
	if (d->t0 == t)
		d->t0 = NULL;
	rec_free(&thread_kind, t);
}

/* --- tasks --- */

/* The task's own Clist, holding its owner capabilities of the Clist itself and its stacks. */
static bool own_objects(struct domain *d)
{
	struct mobj *stack, *clist;
	u64 spw, cpw;
	if (obj_make(0, MUNGI_MAX_THREADS * MUNGI_STACK_SIZE / PAGE, d->account.base, d, &stack, &spw) ||
	    obj_make(0, 1, d->account.base, d, &clist, &cpw))
		return false;
	d->stack_obj = stack->ot.base;
	d->clist_obj = clist->ot.base;
	struct { struct mungi_clist h; struct mungi_cap c[2]; } init = {
		{ MUNGI_CLIST_MAGIC, 2, MUNGI_CLIST_CAPACITY(PAGE), 0 },
		{ { d->clist_obj, cpw }, { d->stack_obj, spw } } };
	if (!vm_write(d->clist_obj, &init, sizeof(init)))
		return false;
	d->apd[0] = (struct apd_entry){ APD_CLIST, d->clist_obj, cpw, now };
	d->napd = 1;
	return true;
}

struct domain *task_create(struct domain *creator, const struct apd_entry *apd, unsigned n, u32 flags)
{
	u64 no = tno_alloc();
	struct domain *d = no && n < MUNGI_MAX_APD ? rec_alloc(&domain_kind) : NULL;
	if (!d)
		return NULL;
	d->id = ++task_serial;
	d->space = tid_of(no);
	d->flags = flags;
	d->creator = creator;
	if (creator)
		d->account = creator->account;
	d->next_all = all_domains;
	all_domains = d;
	if (!own_objects(d)) {
		task_destroy(d, -1);
		return NULL;
	}
	mcopy(&d->apd[1], apd, n * sizeof(*apd));
	d->napd += n;
	return d;
}

static void unlink_domain(struct domain *d)
{
	for (struct domain **pp = &all_domains; *pp; pp = &(*pp)->next_all)
		if (*pp == d) {
			*pp = d->next_all;
			return;
		}
}

/* Wake the threads waiting for d's exit; the status is theirs to read. */
static void wake_waiters(struct domain *d)
{
	while (d->waiters) {
		struct mthread *w = d->waiters;
		d->waiters = w->next;
		w->state = T_RUN;
		w->wait = W_NONE;
		mr_set(1, (u64)d->status);
		reply_tag(0, 1);
		send_now(w->tid);
	}
}

void task_destroy(struct domain *d, long status)
{
	if (d->flags & D_EXITED)
		return;
	d->flags |= D_EXITED;
	d->status = status;
	pdx_forget_domain(d);
	for (unsigned i = 0; i < MUNGI_MAX_THREADS; i++)
		if (d->thread[i])
			thread_destroy(d->thread[i]);
	while (d->kill)
		obj_destroy(d->kill);
	unlink_domain(d);
	for (struct domain *c = all_domains; c; c = c->next_all)
		if (c->creator == d)
			c->creator = NULL;
	for (struct domain **zp = &zombies; *zp;)
		if ((*zp)->creator == d) {
			struct domain *z = *zp;
			*zp = z->next_all;
			rec_free(&domain_kind, z);
		} else {
			zp = &(*zp)->next_all;
		}
	if (!d->creator && !(d->flags & D_PDX)) {
		printf("mungi: the first task exited with status %ld; powering off\n", status);
		pecan_kdb_power_off((u64)status & 0xff);
	}
	wake_waiters(d);
	if (d->creator && !(d->flags & D_PDX)) {
		d->next_all = zombies;
		zombies = d;
	} else {
		rec_free(&domain_kind, d);
	}
}

static struct domain *child(struct domain *d, u64 id, bool exited)
{
	for (struct domain *c = exited ? zombies : all_domains; c; c = c->next_all)
		if (c->id == id && c->creator == d)
			return c;
	return NULL;
}

/* --- requests --- */

static long create(struct mthread *t, const u64 *a)
{
	struct domain *d = t->dom, *c;
	struct apd_entry apd[MUNGI_MAX_APD];
	unsigned n = 0;
	u32 flags = (d->flags & D_CONFINED) || (a[3] & MUNGI_TASK_CONFINED) ? D_CONFINED | D_LOCKED : 0;
	if (a[3] & ~(u64)MUNGI_TASK_CONFINED)
		return -MUNGI_EINVAL;
	if (a[2]) {
		u64 key;
		const struct apd_entry *spec = apd_spec(d, a[2], &n, &key);
		if (!spec)
			return -MUNGI_EINVAL;
		mcopy(apd, spec, n * sizeof(*spec));
	} else {
		for (struct domain *p = d; p; p = p->parent)
			for (unsigned i = 0; i < p->napd && n < MUNGI_MAX_APD - 1; i++)
				apd[n++] = p->apd[i];
	}
	if (validate(NULL, d, a[0], MUNGI_X) < 0)
		return -MUNGI_EPERM;    /* it could not run there itself */
	if (!(c = task_create(d, apd, n, flags)))
		return -MUNGI_ENOMEM;
	if (!thread_start(c, a[0], a[1], MUNGI_KIND_MAIN)) {
		task_destroy(c, -1);
		return -MUNGI_ENOMEM;
	}
	mr_set(1, c->id);
	return 1;
}

static long wait(struct mthread *t, u64 id)
{
	struct domain *z = child(t->dom, id, true), *c;
	if (z) {
		for (struct domain **zp = &zombies; *zp; zp = &(*zp)->next_all)
			if (*zp == z) {
				*zp = z->next_all;
				break;
			}
		mr_set(1, (u64)z->status);
		rec_free(&domain_kind, z);
		return 1;
	}
	if (!(c = child(t->dom, id, false)))
		return -MUNGI_ENOENT;
	t->state = T_PARK;
	t->wait = W_TASK;
	t->next = c->waiters;
	c->waiters = t;
	return VALIDATE_WAIT;
}

static long thread_create(struct mthread *t, const u64 *a)
{
	if (validate(NULL, t->dom, a[0], MUNGI_X) < 0)
		return -MUNGI_EPERM;
	struct mthread *n = thread_start(t->dom, a[0], a[1], MUNGI_KIND_THREAD);
	if (!n)
		return -MUNGI_ENOMEM;
	mr_set(1, n->tid);
	return 1;
}

/* Another thread of t's task that it made (not its first thread, a worker or t0). */
static long thread_kill(struct mthread *t, L4_ThreadId_t tid)
{
	struct mthread *k = thread_of(tid);
	if (!k || k->dom != t->dom || k == t || k->kind != MUNGI_KIND_THREAD)
		return -MUNGI_ENOENT;
	thread_destroy(k);
	return 0;
}

static long self(struct mthread *t)
{
	struct domain *d = t->dom;
	mr_set(1, d->id);
	mr_set(2, d->clist_obj);
	mr_set(3, d->flags & D_CONFINED ? MUNGI_TASK_CONFINED : 0);
	mr_set(4, d->account.base);
	return 4;
}

static long statistics(void)
{
	pstore_disk_wait(&stats[MUNGI_STAT_DISK_POLLS], &stats[MUNGI_STAT_DISK_POLL_TICKS]);
	for (int i = 0; i < MUNGI_NSTATS; i++)
		mr_set(i + 1, stats[i]);
	return MUNGI_NSTATS;
}

void task_requests(struct mthread *t, u64 label)
{
	u64 a[4] = { L4_MR(1), L4_MR(2), L4_MR(3), L4_MR(4) };
	struct domain *c;
	long r = 0;
	switch (label) {
	case MUNGI_NULL: break;
	case MUNGI_SELF: r = self(t); break;
	case MUNGI_CONFIG: mr_set(1, dt); r = 1; break;
	case MUNGI_STATS: r = statistics(); break;
	case MUNGI_TASK_CREATE: r = create(t, a); break;
	case MUNGI_TASK_WAIT: r = wait(t, a[0]); break;
	case MUNGI_TASK_KILL:
		r = (c = child(t->dom, a[0], false)) ? (task_destroy(c, -9), 0) : -MUNGI_ENOENT;
		break;
	case MUNGI_TASK_EXIT:
		task_destroy(t->dom, (long)a[0]);
		return;                 /* the caller is gone: no reply */
	case MUNGI_THREAD_CREATE:
		r = thread_create(t, a);
		break;
	case MUNGI_THREAD_KILL: r = thread_kill(t, a[0]); break;
	case MUNGI_THREAD_EXIT:
		if (t->dom->nthreads == 1)
			task_destroy(t->dom, 0);
		else
			thread_destroy(t);
		return;
	default: r = -MUNGI_ENOSYS; break;
	}
	if (r == VALIDATE_WAIT)
		return;
	reply_tag(r < 0 ? (u64)-r : 0, r < 0 ? 0 : (unsigned)r);
	reply_to(t->tid);
}
