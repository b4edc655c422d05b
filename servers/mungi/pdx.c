// SPDX-License-Identifier: MIT
// Protection domain extension (seed 002, "Protected procedure calls"): a
// PDX call runs the procedure in a PDX task, an L4 space whose APD is the
// caller's (or an explicit or empty one) plus the Clist of the PDX
// capability.  PDX tasks are kept per caller domain and a call binds its
// entry point to one for dt; empty-APD calls share one task per capability,
// explicit-APD calls are keyed by the APD's hash.  A caller thread that has
// made a call through the server gets a permit on a direct worker of the
// PDX task and calls it directly from then on, until the binding ends
// (docs/mungi.md, "PDX").  Also here: upcalls to a task's t0 for
// capability handlers, and calls of user-level pagers.
#include "mungi.h"
#include "../../lib/c/string.h"

#define KEY_EXTEND 0
#define KEY_EMPTY  1

struct pdx_binding {
	u64 entry, apd_key;
	struct domain *task;
	u64 task_id;                    /* the task's id when bound: ids are never reused */
	u64 expires;                    /* 0: ended (revoked, deleted) */
	u64 obj, clist;                 /* validated through: the PDX object, the Clist holding its capability */
	struct pdx_binding *next;
};

#define MAX_DIRECT (MAX_WORKERS / 2)    /* direct workers of one task; the others serve through the server */

static struct kind binding_kind = { sizeof(struct pdx_binding), NULL, 0, "PDX binding" };
static struct domain *shared_tasks;     /* empty-APD PDX tasks, one per capability */

/* --- explicit APDs (MUNGI_APD_MAKE) --- */

struct apd_spec {
	u64 owner;                      /* the id of the task that made it */
	u32 gen;
	unsigned n;
	u64 key;
	struct apd_entry e[MUNGI_MAX_APD];
};
static struct apd_spec specs[MAX_APDS];

static u64 hash_apd(const struct apd_entry *e, unsigned n)
{
	u64 h = 0x6a09e667f3bcc908UL ^ n;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ e[i].base ^ (e[i].pw * 0x9e3779b97f4a7c15UL)) * 0xff51afd7ed558ccdUL;
	return h < 2 ? h + 2 : h;       /* 0 and 1 mean "extend" and "empty" */
}

long apd_make(struct domain *d, u64 table, u64 n)
{
	struct mungi_cap caps[MUNGI_MAX_APD - 2];
	u64 last = table + n * sizeof(caps[0]) - 1;
	if (!n || n > MUNGI_MAX_APD - 2 || validate(NULL, d, table, MUNGI_R) < 0 ||
	    ot_lookup(&ot, table) != ot_lookup(&ot, last))
		return -MUNGI_EINVAL;   /* the table lies in one object the caller may read */
	vm_read(table, caps, n * sizeof(caps[0]));
	unsigned slot = MAX_APDS;
	for (unsigned i = 0; i < MAX_APDS; i++) {
		struct domain *o;
		for (o = all_domains; o && o->id != specs[i].owner; o = o->next_all)
			;
		if (!specs[i].owner || !o) {
			slot = i;
			break;
		}
	}
	if (slot == MAX_APDS)
		return -MUNGI_ENOMEM;
	struct apd_spec *s = &specs[slot];
	struct domain tmp;
	tmp.napd = 0;
	for (unsigned i = 0; i < n; i++) {
		long r = apd_add_clist(&tmp, caps[i].base, caps[i].password);
		if (r < 0)
			return r;
	}
	mcopy(s->e, tmp.apd, n * sizeof(s->e[0]));
	s->n = (unsigned)n;
	s->key = hash_apd(s->e, s->n);
	s->owner = d->id;
	s->gen++;
	return (u64)s->gen << 16 | (slot + 1);
}

const struct apd_entry *apd_spec(struct domain *d, u64 handle, unsigned *n, u64 *key)
{
	u64 slot = (handle & 0xffff) - 1;
	if (slot >= MAX_APDS || specs[slot].owner != d->id || specs[slot].gen != handle >> 16)
		return NULL;
	*n = specs[slot].n;
	*key = specs[slot].key;
	return specs[slot].e;
}

/* --- finding the capability --- */

/*
 * The PDX capability in d's APD for the object containing entry whose entry
 * list holds it: MUNGI_EOK and its record, or MUNGI_EPERM (none) or
 * MUNGI_EENTRY (only ones without this entry).
 */
static int pdx_cap(struct domain *d, u64 entry, struct ot_obj **obj, struct ot_pw **rec, u64 *clist)
{
	struct ot_obj *o = ot_lookup(&ot, entry);
	int err = MUNGI_EPERM;
	if (!o)
		return MUNGI_ENOENT;
	for (struct domain *c = d; c; c = c->parent)
		for (unsigned i = 0; i < c->napd; i++) {
			struct apd_entry *e = &c->apd[i];
			struct mungi_clist h;
			if (e->kind != APD_CLIST)
				continue;
			struct ot_obj *co = ot_lookup(&ot, e->base);
			if (!co || co->base != e->base)
				continue;       /* deleted since it was validated: revalidation will drop it */
			vm_read(e->base, &h, sizeof(h));
			u64 cap = MUNGI_CLIST_CAPACITY(co->npages * PAGE), n = h.count < cap ? h.count : cap;
			for (u64 k = 0; h.magic == MUNGI_CLIST_MAGIC && k < n; k++) {
				struct mungi_cap mc;
				vm_read(e->base + sizeof(h) + k * sizeof(mc), &mc, sizeof(mc));
				struct ot_pw *p = mc.base == o->base ? ot_pw_find(o, mc.password) : NULL;
				if (!p || !(p->rights & MUNGI_PDX))
					continue;
				for (unsigned j = 0; j < p->nentries; j++)
					if (p->entry[j] == entry) {
						*obj = o;
						*rec = p;
						*clist = e->base;
						return MUNGI_EOK;
					}
				err = MUNGI_EENTRY;
			}
		}
	return err;
}

int pdx_entry_password(struct domain *d, u64 entry, u64 *pw)
{
	struct ot_obj *o;
	struct ot_pw *p;
	u64 clist;
	int err = pdx_cap(d, entry, &o, &p, &clist);
	if (!err)
		*pw = p->password;
	return err;
}

/* --- PDX tasks --- */

static bool same_apd(const struct domain *t, const struct apd_entry *e, unsigned n)
{
	if (t->napd != n + 2)           /* its own Clist, the APD, the PDX Clist */
		return false;
	for (unsigned i = 0; i < n; i++)
		if (t->apd[i + 1].base != e[i].base || t->apd[i + 1].pw != e[i].pw)
			return false;
	return true;
}

static struct domain *find_task(struct domain *d, struct ot_pw *p, u64 key, const struct apd_entry *e,
				unsigned n, u32 confined)
{
	struct domain *list = key == KEY_EMPTY ? shared_tasks : d->pdx_tasks;
	for (struct domain *t = list; t; t = t->pdx_sibling)
		if (t->pdx_pw == p->password && t->apd_key == key && (t->flags & D_CONFINED) == confined &&
		    !(t->flags & D_EXITED) && (key < 2 || same_apd(t, e, n)))
			return t;
	return NULL;
}

/* A PDX task for capability p of o: APD = e[0..n) + the capability's Clist; parent for extension. */
static struct domain *make_task(struct domain *d, struct ot_obj *o, struct ot_pw *p, u64 key,
				const struct apd_entry *e, unsigned n, u32 confined, int *err)
{
	struct apd_entry apd[MUNGI_MAX_APD];
	mcopy(apd, e, n * sizeof(*e));
	if (p->clist_base) {
		struct domain tmp;
		tmp.napd = 0;
		long r = apd_add_clist(&tmp, p->clist_base, p->clist_pw);
		if (r < 0) {
			*err = (int)-r;
			return NULL;
		}
		apd[n++] = tmp.apd[0];
	}
	struct domain *t = task_create(key == KEY_EMPTY ? NULL : d, apd, n, D_PDX | confined);
	if (!t) {
		*err = MUNGI_ENOMEM;
		return NULL;
	}
	if (key == KEY_EMPTY && d)
		t->account = d->account;
	t->parent = key == KEY_EXTEND ? d : NULL;
	t->pdx_obj = o->base;
	t->pdx_pw = p->password;
	t->apd_key = key;
	struct domain **list = key == KEY_EMPTY ? &shared_tasks : &d->pdx_tasks;
	t->pdx_sibling = *list;
	*list = t;
	stats[MUNGI_STAT_PDX_TASKS]++;
	return t;
}

static struct pdx_binding **bucket(struct domain *d, u64 entry, u64 key)
{
	return &d->pdx[((entry >> 3) ^ key) % PDX_HASH];
}

/* --- the direct path: permits on direct workers --- */

/*
 * A direct worker takes MUNGI_PDX_DIRECT calls from the callers named in
 * its permit table (struct mungi_permit, in its stack slot), which the
 * server alone writes; w->permit_* mirror it.  A permit rests on the
 * binding it was granted under and ends with it, before the request that
 * ends the binding is answered.
 */
static void permit_write(struct mthread *w, unsigned s, u64 caller, u64 entry)
{
	u64 at = thread_permits(w) + s * sizeof(struct mungi_permit);
	if (caller)     /* the entry first: a caller is never seen with an older entry */
		vm_write(at + __builtin_offsetof(struct mungi_permit, entry), &entry, sizeof(entry));
	vm_write(at + __builtin_offsetof(struct mungi_permit, caller), &caller, sizeof(caller));
}

static void permit_clear(struct mthread *w, unsigned s)
{
	w->permit_caller[s] = NULL;
	w->permit_b[s] = NULL;
	permit_write(w, s, 0, 0);
}

/* The permits resting on b end (the worker takes no more calls on it). */
static void permits_drop(struct pdx_binding *b)
{
	struct domain *task = b->task;
	if (!task || task->id != b->task_id)
		return;                 /* the task is gone, and its workers with their permits */
	for (struct mthread *w = task->direct; w; w = w->direct_next)
		for (unsigned s = 0; s < MUNGI_PERMITS; s++)
			if (w->permit_b[s] == b)
				permit_clear(w, s);
}

/* b no longer holds: the next call through the server validates again. */
static void binding_kill(struct pdx_binding *b)
{
	b->expires = 0;
	permits_drop(b);
}

/* Every permit naming caller t ends (t is going). */
static void permits_forget(struct mthread *t)
{
	for (struct domain *d = all_domains; d; d = d->next_all)
		for (struct mthread *w = d->direct; w; w = w->direct_next)
			for (unsigned s = 0; s < MUNGI_PERMITS; s++)
				if (w->permit_caller[s] == t)
					permit_clear(w, s);
}

static struct mthread *direct_start(struct domain *task)
{
	struct mthread *w = thread_start(task, 0, 0, MUNGI_KIND_DIRECT);
	if (w) {
		w->direct_next = task->direct;
		task->direct = w;
		task->ndirect++;
	}
	return w;
}

#define GRANT_NEW (~0UL)

/*
 * The direct worker of b's task on which caller t holds, or now gets, a
 * permit for entry: its thread ID, or 0 for none.  GRANT_NEW: one would
 * have to be started, which `start` forbids (starting one overwrites the
 * MRs).  Confined callers get none (grant): their IPC can only reach the
 * server; nor do a task's own threads (within a space the kernel reports
 * local IDs, which no permit names).
 */
static u64 grant_slow(struct mthread *t, struct pdx_binding *b, u64 entry, bool start)
{
	struct domain *task = b->task;
	struct mthread *fw = NULL;
	unsigned fs = 0;
	for (struct mthread *w = task->direct; w; w = w->direct_next)
		for (unsigned s = 0; s < MUNGI_PERMITS; s++) {
			if (w->permit_caller[s] == t && w->permit_entry[s] == entry) {
				w->permit_b[s] = b;
				return w->tid;
			}
			if (!w->permit_caller[s] && !fw)
				fw = w, fs = s;
		}
	if (!fw && task->ndirect >= MAX_DIRECT)
		return 0;
	if (!fw && !start)
		return GRANT_NEW;
	if (!fw && !(fw = direct_start(task)))
		return 0;
	fw->permit_caller[fs] = t;
	fw->permit_entry[fs] = entry;
	fw->permit_b[fs] = b;
	permit_write(fw, fs, t->tid, entry);
	stats[MUNGI_STAT_PDX_PERMITS]++;
	return fw->tid;
}

static inline u64 grant(struct mthread *t, struct pdx_binding *b, u64 entry, bool start)
{
	if ((t->dom->flags & D_CONFINED) || b->task == t->dom)
		return 0;
	return grant_slow(t, b, entry, start);
}

void pdx_object_changed(struct ot_obj *o)
{
	if (!((struct mobj *)o)->pdx_bound)
		return;
	for (struct domain *d = all_domains; d; d = d->next_all)
		for (unsigned i = 0; i < PDX_HASH; i++)
			for (struct pdx_binding *b = d->pdx[i]; b; b = b->next)
				if (b->obj == o->base || b->clist == o->base)
					binding_kill(b);
}

void pdx_tick(struct domain *d)
{
	for (struct mthread *w = d->direct; w; w = w->direct_next)
		for (unsigned s = 0; s < MUNGI_PERMITS; s++)
			if (w->permit_b[s] && w->permit_b[s]->expires <= now)
				permit_clear(w, s);
}

bool pdx_redirected(struct mthread *t, L4_ThreadId_t intended)
{
	struct mthread *w = thread_of(intended);
	if (!w || w->kind != MUNGI_KIND_DIRECT)
		return false;
	/* a direct call from a caller confined since it got its permit: it waits for the worker,
	   which cannot answer it; ending its receive sends it to the server */
	struct L4_ExRegs r = { .control = L4_EXREG_ABORT_RECV };
	pecan_exregs(t->tid, &r);
	return true;
}

/* Validate a call of entry with APD key and find or make its task; the binding, or NULL and *err. */
static struct pdx_binding *bind(struct domain *d, u64 entry, u64 key, const struct apd_entry *e, unsigned n,
				int *err)
{
	struct ot_obj *o;
	struct ot_pw *p;
	u32 confined = d->flags & D_CONFINED;
	u64 clist;
	if ((*err = pdx_cap(d, entry, &o, &p, &clist)))
		return NULL;
	struct domain *t = find_task(d, p, key, e, n, confined);
	if (!t && !(t = make_task(d, o, p, key, e, n, confined, err)))
		return NULL;
	struct pdx_binding **pp = bucket(d, entry, key), *b;
	for (b = *pp; b && (b->entry != entry || b->apd_key != key); b = b->next)
		;
	if (!b) {
		if (!(b = rec_alloc(&binding_kind))) {
			*err = MUNGI_ENOMEM;
			return NULL;
		}
		b->entry = entry;
		b->apd_key = key;
		b->next = *pp;
		*pp = b;
	} else {
		permits_drop(b);        /* granted under the old validation */
	}
	b->task = t;
	b->task_id = t->id;
	b->expires = now + dt;
	b->obj = o->base;
	b->clist = clist;
	((struct mobj *)o)->pdx_bound = true;
	struct ot_obj *co = ot_lookup(&ot, clist);
	if (co)
		((struct mobj *)co)->pdx_bound = true;
	return b;
}

void pdx_forget_domain(struct domain *d)
{
	for (unsigned i = 0; i < PDX_HASH; i++)
		while (d->pdx[i]) {
			struct pdx_binding *b = d->pdx[i];
			d->pdx[i] = b->next;
			binding_kill(b);
			rec_free(&binding_kind, b);
		}
	while (d->pdx_tasks) {
		struct domain *t = d->pdx_tasks;
		d->pdx_tasks = t->pdx_sibling;
		task_destroy(t, 0);
	}
	for (struct domain **pp = &shared_tasks; *pp;)
		if (*pp == d)
			*pp = d->pdx_sibling;
		else
			pp = &(*pp)->pdx_sibling;
}

/* --- calls --- */

/* Hand caller c's call (its MRs in msg) to worker w. */
static void dispatch(struct mthread *c, struct mthread *w, const u64 *msg)
{
	w->state = T_RUN;
	w->busy = true;
	w->caller = c;
	c->state = T_CALL;
	c->callee = w;
	for (int i = 1; i < 8; i++)
		mr_set(i, msg[i]);
	reply_tag(MUNGI_PDX_CALL, 7);
	reply_to(w->tid);
}

/* A call waits in the task's queue for a worker; another worker is started if there may be one. */
static void enqueue(struct domain *task, struct mthread *c, const u64 *msg)
{
	mcopy(c->msg, msg, sizeof(c->msg));
	c->state = T_PARK;
	c->wait = W_WORKER;
	c->next = NULL;
	struct mthread **pp = &task->queue;
	while (*pp)
		pp = &(*pp)->next;
	*pp = c;
	if (!task->idle && task->workers < MAX_WORKERS && thread_start(task, 0, 0, MUNGI_KIND_WORKER))
		task->workers++;
}

/* A call that missed the fast path: validate and bind, then dispatch or queue. */
static void call_slow(struct mthread *t, const u64 *msg, u64 key, const struct apd_entry *e, unsigned n)
{
	int err;
	struct pdx_binding *b = bind(t->dom, msg[1], key, e, n, &err);
	if (!b) {
		stats[MUNGI_STAT_BAD_REQUESTS] += err == MUNGI_EENTRY;
		reply_tag(err, 0);
		reply_to(t->tid);
		return;
	}
	t->grant = grant(t, b, msg[1], true);
	struct mthread *w = b->task->idle;
	if (w) {
		b->task->idle = w->next;
		dispatch(t, w, msg);
	} else {
		enqueue(b->task, t, msg);
	}
}

static struct pdx_binding *binding(struct domain *d, u64 entry, u64 key)
{
	struct pdx_binding *b = *bucket(d, entry, key);
	while (b && (b->entry != entry || b->apd_key != key))
		b = b->next;
	return b;
}

/* An idle worker of b's task if b may be used as it stands, else NULL. */
static struct mthread *bound_worker(struct pdx_binding *b)
{
	struct domain *task = b ? b->task : NULL;
	struct mthread *w = task && b->expires > now && task->id == b->task_id ? task->idle : NULL;
	if (w)
		task->idle = w->next;
	return w;
}

/* An explicit-APD call: MR2 is the APD's handle, the worker gets entry and five arguments. */
static void call_apd(struct mthread *t)
{
	u64 msg[8] = { 0, L4_MR(1), L4_MR(3), L4_MR(4), L4_MR(5), L4_MR(6), L4_MR(7), 0 }, key;
	unsigned n;
	const struct apd_entry *e = apd_spec(t->dom, L4_MR(2), &n, &key);
	if (!e) {
		stats[MUNGI_STAT_BAD_REQUESTS]++;
		reply_tag(MUNGI_EINVAL, 0);
		reply_to(t->tid);
		return;
	}
	struct pdx_binding *b = binding(t->dom, msg[1], key);
	struct mthread *w = bound_worker(b);
	if (w) {
		t->grant = grant(t, b, msg[1], true);
		dispatch(t, w, msg);
	} else {
		call_slow(t, msg, key, e, n);
	}
}

void pdx_call(struct mthread *t, u64 label)
{
	stats[MUNGI_STAT_PDX_SERVED]++;
	if (label == MUNGI_PDX_APD) {
		call_apd(t);
		return;
	}
	u64 key = label == MUNGI_PDX_CALL ? KEY_EXTEND : KEY_EMPTY;
	struct pdx_binding *b = binding(t->dom, L4_MR(1), key);
	struct mthread *w = bound_worker(b);
	if (w && (t->grant = grant(t, b, L4_MR(1), false)) != GRANT_NEW) {
		/* the fast path: the message stays in the MRs, as the worker wants it */
		w->state = T_RUN;
		w->busy = true;
		w->caller = t;
		t->state = T_CALL;
		t->callee = w;
		reply_tag(MUNGI_PDX_CALL, 7);
		reply_to(w->tid);
		return;
	}
	u64 msg[8];
	for (int i = 1; i < 8; i++)
		msg[i] = L4_MR(i);
	if (w) {
		t->grant = grant(t, b, msg[1], true);
		dispatch(t, w, msg);
		return;
	}
	call_slow(t, msg, key, NULL, 0);
}

/* --- workers --- */

/* Server-made calls of user-level pagers waiting for a worker. */
struct pager_job {
	struct domain *task;
	u64 entry, va, access, obj;
	struct pager_job *next;
};
static struct kind job_kind = { sizeof(struct pager_job), NULL, 0, "pager call" };
static struct pager_job *jobs;

static void run_pager(struct mthread *w, struct pager_job *j)
{
	w->state = T_RUN;
	w->busy = true;
	w->caller = NULL;
	w->pager_page = j->va;
	mr_set(1, j->entry);
	mr_set(2, j->va);
	mr_set(3, j->access);
	mr_set(4, j->obj);
	for (int i = 5; i < 8; i++)
		mr_set(i, 0);
	reply_tag(MUNGI_PDX_CALL, 7);
	send_now(w->tid);
}

/* A worker is free: a pager call, a queued call, or the idle list. */
static void worker_free(struct mthread *w)
{
	struct domain *task = w->dom;
	for (struct pager_job **jp = &jobs; *jp; jp = &(*jp)->next)
		if ((*jp)->task == task) {
			struct pager_job *j = *jp;
			*jp = j->next;
			run_pager(w, j);
			rec_free(&job_kind, j);
			return;
		}
	if (task->queue) {
		struct mthread *c = task->queue;
		task->queue = c->next;
		c->wait = W_NONE;
		dispatch(c, w, c->msg);
		return;
	}
	w->state = T_IDLE;
	w->busy = false;
	w->next = task->idle;
	task->idle = w;
}

void pdx_ready(struct mthread *w)
{
	if (w->busy) {
		pdx_return(w, true);
		return;
	}
	if (w->kind == MUNGI_KIND_T0) {
		w->state = T_IDLE;
		if (w->dom->upcall_queue) {
			struct mthread *t = w->dom->upcall_queue;
			w->dom->upcall_queue = t->next;
			fault_retry(t);
		}
		return;
	}
	if (w->kind == MUNGI_KIND_WORKER) {
		worker_free(w);
		return;
	}
	stats[MUNGI_STAT_BAD_REQUESTS]++;
	reply_tag(MUNGI_EINVAL, 0);
	reply_to(w->tid);
}

void pdx_return(struct mthread *w, bool faulted)
{
	if (w->kind != MUNGI_KIND_WORKER || !w->busy) {
		stats[MUNGI_STAT_BAD_REQUESTS]++;
		reply_tag(MUNGI_EINVAL, 0);
		reply_to(w->tid);
		return;
	}
	struct mthread *c = w->caller;
	u64 page = w->pager_page;
	w->caller = NULL;
	w->busy = false;
	w->pager_page = 0;
	if (c) {
		c->callee = NULL;
		c->state = T_RUN;
		if (!faulted)
			mr_set(3, c->grant);    /* the results stay in MR1-2 */
		reply_tag(faulted ? MUNGI_EFAULT : 0, faulted ? 0 : 3);
		reply_to(c->tid);
	}
	if (page)
		wake_page_waiters(page);
	worker_free(w);
}

/* The task's last worker is gone: the calls waiting for one fail (a new one would fail as it did). */
static void fail_queue(struct domain *task)
{
	while (task->queue) {
		struct mthread *c = task->queue;
		task->queue = c->next;
		c->state = T_RUN;
		c->wait = W_NONE;
		reply_tag(MUNGI_EFAULT, 0);
		send_now(c->tid);
	}
}

void pdx_caller_gone(struct mthread *t)
{
	struct domain *d = t->dom;
	permits_forget(t);
	for (struct mthread **pp = &d->direct; *pp; pp = &(*pp)->direct_next)
		if (*pp == t) {
			*pp = t->direct_next;
			d->ndirect--;
			break;
		}
	if (t->callee)
		t->callee->caller = NULL;       /* its worker finishes for no one */
	if (t->wait == W_WORKER)
		for (struct domain *task = all_domains; task; task = task->next_all)
			for (struct mthread **pp = &task->queue; *pp; pp = &(*pp)->next)
				if (*pp == t) {
					*pp = t->next;
					break;
				}
	if (t->busy && t->caller) {     /* a worker dies in a call: its caller gets an error */
		struct mthread *c = t->caller;
		c->state = T_RUN;
		c->callee = NULL;
		t->caller = NULL;
		reply_tag(MUNGI_EFAULT, 0);
		send_now(c->tid);
	}
	if (t->busy && t->pager_page) {
		u64 page = t->pager_page;
		t->pager_page = 0;
		wake_page_waiters(page);
	}
	for (struct mthread **pp = &d->idle; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	if (t->kind == MUNGI_KIND_WORKER && d->workers && !--d->workers)
		fail_queue(d);
	if (d->upcall_cur == t)
		d->upcall_cur = NULL;
	for (struct mthread **pp = &d->upcall_queue; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	if (d->t0 == t && d->upcall_cur) {     /* t0 dies in an upcall: the validation goes on without it */
		struct mthread *v = d->upcall_cur;
		d->upcall_cur = NULL;
		v->upcall_base = 0;
		v->upcall_have = true;
		d->t0 = NULL;
		fault_retry(v);
	}
}

/* --- user-level pagers (seed 002, "Virtual memory mapping operations") --- */

bool pager_invoke(struct ot_obj *o, u64 va, u32 access)
{
	struct ot_obj *po = ot_lookup(&ot, o->pager);
	struct ot_pw *p = po ? ot_pw_find(po, o->pager_pw) : NULL;
	bool listed = false;
	for (unsigned i = 0; p && (p->rights & MUNGI_PDX) && i < p->nentries; i++)
		listed |= p->entry[i] == o->pager;
	if (!listed)
		return false;           /* its capability was revoked: no one pages this object */
	for (struct domain *task = all_domains; task; task = task->next_all)
		for (unsigned i = 0; i < MUNGI_MAX_THREADS; i++) {
			struct mthread *w = task->thread[i];
			if (w && w->busy && w->pager_page == va)
				return true;    /* a pager is at it already */
		}
	for (struct pager_job *j = jobs; j; j = j->next)
		if (j->va == va)
			return true;
	int err;
	struct domain *task = find_task(NULL, p, KEY_EMPTY, NULL, 0, 0);
	if (!task && !(task = make_task(NULL, po, p, KEY_EMPTY, NULL, 0, 0, &err)))
		return false;
	struct pager_job *j = rec_alloc(&job_kind);
	if (!j)
		return false;
	*j = (struct pager_job){ task, o->pager, va, access, o->base, NULL };
	stats[MUNGI_STAT_PAGER_CALLS]++;
	struct mthread *w = task->idle;
	if (w) {
		task->idle = w->next;
		run_pager(w, j);
		rec_free(&job_kind, j);
		return true;
	}
	j->next = jobs;
	jobs = j;
	if (task->workers < MAX_WORKERS && thread_start(task, 0, 0, MUNGI_KIND_WORKER))
		task->workers++;
	return true;
}

/* --- capability handlers: upcalls to t0 (seed 002, "Protection domains") --- */

static void upcall_send(struct domain *d, struct mthread *t)
{
	stats[MUNGI_STAT_UPCALLS]++;
	d->upcall_cur = t;
	d->t0->busy = true;
	mr_set(1, t->msg[0]);
	mr_set(2, t->msg[1]);
	mr_set(3, t->msg[2]);
	reply_tag(MUNGI_UPCALL, 3);
	send_now(d->t0->tid);
}

void upcall_start(struct mthread *t, int slot, u64 handler, u64 base, u32 need)
{
	struct domain *d = t->dom;
	(void)slot;
	t->state = T_PARK;
	t->wait = W_UPCALL;
	t->upcall_have = false;
	t->msg[0] = handler;
	t->msg[1] = base;
	t->msg[2] = need;
	if (!d->t0 && (d->t0 = thread_start(d, 0, 0, MUNGI_KIND_T0)) == NULL) {
		t->upcall_base = 0;     /* no t0: the handler answers nothing */
		t->upcall_have = true;
		t->state = T_RUN;
		fault_retry(t);
		return;
	}
	if (d->upcall_cur || d->t0->busy || d->t0->state != T_IDLE) {
		t->next = NULL;
		struct mthread **pp = &d->upcall_queue;
		while (*pp)
			pp = &(*pp)->next;
		*pp = t;
		return;
	}
	upcall_send(d, t);
}

void upcall_result(struct mthread *t0)
{
	struct domain *d = t0->dom;
	struct mthread *t = d->upcall_cur;
	if (t0 != d->t0 || !t0->busy) {
		stats[MUNGI_STAT_BAD_REQUESTS]++;
		reply_tag(MUNGI_EINVAL, 0);
		reply_to(t0->tid);
		return;
	}
	t0->busy = false;
	t0->state = T_IDLE;
	d->upcall_cur = NULL;
	if (t) {
		t->upcall_base = L4_MR(1);
		t->upcall_pw = L4_MR(2);
		t->upcall_have = true;
		t->state = T_RUN;
		t->wait = W_NONE;
		fault_retry(t);
	}
	if (d->upcall_queue && !d->upcall_cur && d->t0 && !d->t0->busy) {
		struct mthread *n = d->upcall_queue;
		d->upcall_queue = n->next;
		fault_retry(n);
	}
}
