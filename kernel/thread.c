// SPDX-License-Identifier: MIT
// Threads: creation, lookup by ID, activation, deletion, and the ThreadControl system call.
#include "thread.h"
#include "config.h"
#include "frame.h"
#include "ipc.h"
#include "irq.h"
#include "sched.h"
#include "space.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

struct tcb *tcb_table[CONFIG_MAX_THREADS];
/*
 * An empty slot holds the ID of the next thread number (version 0), which
 * no ID that selects this slot can equal: ipc_fast.c compares without a
 * NULL test.  thread_table_init sets them at boot.
 */
word_t tcb_ids[CONFIG_MAX_THREADS];

static word_t empty_id(word_t no)
{
	return (no + 1) << 32;
}

static void table_set(word_t no, struct tcb *t)
{
	tcb_table[no] = t;
	tcb_ids[no] = t ? t->id : empty_id(no);
}

struct tcb *tcb_live[CONFIG_MAX_THREADS];
word_t tcb_nlive;

/*
 * A thread activated with a pager that does not exist yet waits for an ID
 * no thread has: from then on every new thread starts known, since it may
 * be the one waited for.
 */
static bool waits_for_unborn;

void thread_mark_known(word_t id)
{
	if (id == L4_ANYTHREAD || id == L4_ANYLOCALTHREAD || id == L4_NILTHREAD)
		return;
	struct tcb *p = tcb_lookup(id);
	if (p)
		p->marks |= MARK_KNOWN;
	else
		waits_for_unborn = true;
}

/* t enters the table, the live threads and its space's list (an interrupt thread has none). */
static void thread_enter(struct tcb *t)
{
	if (waits_for_unborn)
		t->marks |= MARK_KNOWN;
	table_set(l4_thread_no(t->id), t);
	t->live_idx = tcb_nlive;
	tcb_live[tcb_nlive++] = t;
	struct space *s = t->space;
	if (!s)
		return;
	s->nthreads++;
	t->redirector = s->redirector;
	t->space_prev = NULL;
	t->space_next = s->threads;
	if (s->threads)
		s->threads->space_prev = t;
	s->threads = t;
}

static void thread_leave(struct tcb *t)
{
	table_set(l4_thread_no(t->id), NULL);
	struct tcb *last = tcb_live[--tcb_nlive];
	tcb_live[t->live_idx] = last;
	last->live_idx = t->live_idx;
	struct space *s = t->space;
	if (!s)
		return;
	s->nthreads--;
	if (t->space_prev)
		t->space_prev->space_next = t->space_next;
	else
		s->threads = t->space_next;
	if (t->space_next)
		t->space_next->space_prev = t->space_prev;
}

void thread_table_init(void)
{
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++)
		table_set(no, NULL);
}

struct tcb *tcb_lookup(word_t gid)
{
	struct tcb *t = tcb_by_number(l4_thread_no(gid));
	return t && t->id == gid ? t : NULL;
}

/*
 * A local ID is a UTCB address in self's space; its MyGlobalId TCR names the
 * thread.  The thread the last local ID named (local_hint, of self's space,
 * self again when it is deleted) is tried first, since a page-table walk
 * costs more than an IPC.
 */
struct tcb *tcb_resolve_local(struct tcb *self, word_t id)
{
	if (self->local_hint->utcb == id)
		return self->local_hint;
	word_t va = id + UTCB_MY_GLOBAL_ID;
	if (va & 7)                         /* an aligned word never crosses a page */
		return NULL;
	const word_t *gid = space_kaddr(self->space, va, MAP_R);
	if (!gid)
		return NULL;
	struct tcb *t = tcb_lookup(*gid);
	if (!t || t->space != self->space || t->utcb != id)
		return NULL;
	self->local_hint = t;
	return t;
}


/* The kernel address of the UTCB at loc, allocating and mapping its page if needed. */
static u8 *utcb_page(struct space *s, word_t loc)
{
	word_t page = loc & PAGE_MASK;
	u8 *k = space_kaddr(s, page, MAP_R | MAP_W);
	if (!k) {
		paddr_t f = kmem_alloc(&s->acct, 1);
		if (!f)
			return NULL;
		if (!space_map(s, page, f, MAP_R | MAP_W)) {
			kmem_free(&s->acct, f, 1);
			return NULL;
		}
		k = phys_to_virt(f);
	}
	return k + (loc & ~PAGE_MASK);
}

static bool utcb_location_valid(const struct space *s, word_t loc)
{
	return s->configured && (loc & (UTCB_SIZE - 1)) == 0 && loc >= s->utcb_base &&
	       loc + UTCB_SIZE <= s->utcb_base + s->utcb_size && loc + UTCB_SIZE > loc;
}

/* Would loc be a valid UTCB location in st's space (if st exists and is configured)? */
static bool utcb_ok_in(const struct tcb *st, word_t loc)
{
	return !st || !st->space->configured || utcb_location_valid(st->space, loc);
}

/* Give t its UTCB at loc (the space must be configured). */
static bool thread_set_utcb(struct tcb *t, word_t loc)
{
	u8 *k = utcb_page(t->space, loc);
	if (!k)
		return false;
	t->utcb = loc + UTCB_P_OFFSET;
	t->utcb_k = k + UTCB_P_OFFSET;      /* the slot is zero: fresh, or cleared by utcb_release */
	t->utcb_mr8 = utcb_mrs(t) + 8;
	utcb_set(t, UTCB_MY_GLOBAL_ID, t->id);
	utcb_set(t, UTCB_WORD_SIZE_MASK, ~0UL);
	utcb_set(t, UTCB_PROCESSOR_NO, t->cpu);
	return true;
}

/* The account a thread's TCB and stack are charged to: its space's (interrupt threads: none). */
static struct kmem_acct *acct_of(struct space *s) { return s ? &s->acct : NULL; }

/* A new inactive TCB whose first switch-in enters user mode at ip with sp. */
static struct tcb *tcb_alloc(word_t gid, struct space *s, const char *name, word_t ip, word_t sp)
{
	paddr_t tp = kmem_alloc_raw(acct_of(s), 1);
	paddr_t kp = tp ? kmem_alloc_raw(acct_of(s), CONFIG_KSTACK_PAGES) : 0;
	if (!kp) {
		if (tp)
			kmem_free(acct_of(s), tp, 1);
		return NULL;
	}
	/* only the TCB itself starts zeroed: the kernel stack is written before it is read */
	struct tcb *t = phys_to_virt(tp);
	arch_zero(t, ALIGN_UP(sizeof(*t), 8));
	t->id = gid;
	t->state = TS_INACTIVE;
	t->space = s;
	t->local_hint = t;                  /* none (thread.h) */
	t->name = name;
	t->prio = CONFIG_DEFAULT_PRIO;
	t->timeslice = t->slice_left = CONFIG_TIMESLICE_US;
	t->kstack_top = (word_t)phys_to_virt(kp) + CONFIG_KSTACK_PAGES * PAGE_SIZE;
	arch_thread_init(t, ip, sp);
	if (CONFIG_SMP && this_cpu) {       /* a new thread starts on its creator's processor (X.2) */
		t->cpu = (u8)this_cpu;
		t->marks |= MARK_HOME(this_cpu);
		arch_thread_moved(t, this_cpu);
	}
	return t;
}

struct tcb *thread_create(word_t gid, struct space *s, word_t loc, word_t ip,
			  word_t sp, const char *name)
{
	word_t no = l4_thread_no(gid);
	if (no >= CONFIG_MAX_THREADS || tcb_table[no] || !utcb_location_valid(s, loc))
		return NULL;
	struct tcb *t = tcb_alloc(gid, s, name, ip, sp);
	if (!t)
		return NULL;
	if (!thread_set_utcb(t, loc)) {
		thread_destroy(t);
		return NULL;
	}
	thread_enter(t);
	return t;
}

struct tcb *thread_create_irq(word_t gid)
{
	struct tcb *t = tcb_alloc(gid, NULL, "irq", 0, 0);
	if (!t)
		return NULL;
	t->is_irq = true;
	thread_enter(t);
	return t;
}

/*
 * t's UTCB is zeroed for whoever gets the slot next; the page goes back,
 * zeroed, when no other thread of the space has its UTCB there.
 */
static void utcb_release(struct tcb *t)
{
	struct space *s = t->space;
	u8 *slot = t->utcb_k - UTCB_P_OFFSET;
	arch_zero(slot, UTCB_SIZE);
	for (struct tcb *q = s->threads; q; q = q->space_next)
		if (q != t && q->utcb_k && ((q->utcb ^ t->utcb) & PAGE_MASK) == 0)
			return;
	arch_protect(&s->acct, s->root, t->utcb & PAGE_MASK, 0);
	kmem_free_zeroed(&s->acct, virt_to_phys_direct((void *)((word_t)slot & PAGE_MASK)));
}

/* Free t's memory; the caller has taken it off every queue. */
void thread_destroy(struct tcb *t)
{
	sched_mailbox_forget(t);
	word_t no = l4_thread_no(t->id);
	if (no < CONFIG_MAX_THREADS && tcb_table[no] == t)
		thread_leave(t);
	if (t->utcb_k && t->space)
		utcb_release(t);
	struct kmem_acct *a = acct_of(t->space);
	kmem_free(a, virt_to_phys_direct((void *)(t->kstack_top - CONFIG_KSTACK_PAGES * PAGE_SIZE)),
		  CONFIG_KSTACK_PAGES);
	kmem_free(a, virt_to_phys_direct(t), 1);
}

void utcb_set(struct tcb *t, int offset, word_t value)
{
	*(word_t *)(t->utcb_k + offset) = value;
}

word_t utcb_get(const struct tcb *t, int offset)
{
	return *(const word_t *)(t->utcb_k + offset);
}

/*
 * An inactive thread becomes active once its space is configured and it
 * has a UTCB and a pager: it then waits for its pager's start message
 * (abi.md §7.6), as if in a receive with BR0 = 0.
 */
static void thread_try_activate(struct tcb *t)
{
	if (t->state != TS_INACTIVE || !t->space->configured)
		return;
	if (!t->utcb_k && t->utcb_loc_set &&
	    (!utcb_location_valid(t->space, t->utcb_loc) || !thread_set_utcb(t, t->utcb_loc)))
		return;
	if (!t->utcb_k || !t->pager)
		return;
	utcb_set(t, UTCB_PAGER, t->pager);
	t->ipc_kind = IPC_STARTUP;
	t->state = TS_RECV_BLOCKED;
	t->partner = t->pager;
	thread_mark_known(t->pager);
	t->ipc_error = 0;
	arch_set_continuation(t, ipc_startup_return);
}

void thread_try_activate_space(struct space *s)
{
	for (struct tcb *t = s->threads; t; t = t->space_next)
		thread_try_activate(t);
}

static void tc_error(struct trapframe *tf, word_t code)
{
	utcb_set(current, UTCB_ERROR_CODE, code);
	sys_set_result(tf, 0);
}

static void delete_thread(struct trapframe *tf, struct tcb *t)
{
	struct space *s = t->space;
	irq_forget_handler(t);
	ipc_forget(t);
	thread_destroy(t);
	if (s->nthreads == 0)
		space_destroy(s);
	sys_set_result(tf, 1);
}

/* A valid user thread ID for a new thread: number in range, version not local-looking. */
static bool new_id_valid(word_t id)
{
	word_t no = l4_thread_no(id);
	return no >= L4_USER_BASE && no < CONFIG_MAX_THREADS && (l4_version(id) & 0x3f) != 0;
}

/* Create dest in the space of `space` (a new space if space == dest). */
static struct tcb *create_thread(struct trapframe *tf, word_t dest, word_t space_id)
{
	struct space *s;
	if (space_id == dest) {
		s = space_create(false);
		if (!s)
			return tc_error(tf, L4_ERR_NO_MEM), NULL;
	} else {
		struct tcb *st = tcb_resolve(current, space_id);
		if (!st || !thread_is_user(st))
			return tc_error(tf, L4_ERR_INVALID_SPACE), NULL;
		s = st->space;
	}
	struct tcb *t = tcb_alloc(dest, s, "user", 0, 0);
	if (!t) {
		if (space_id == dest)
			space_destroy(s);
		return tc_error(tf, L4_ERR_NO_MEM), NULL;
	}
	thread_enter(t);
	return t;
}

/* Apply the pager, scheduler and UTCB parameters to t; false after setting an error. */
static bool configure_thread(struct trapframe *tf, struct tcb *t, word_t sched, word_t pager,
			     word_t utcb)
{
	if (sched != L4_NILTHREAD) {
		struct tcb *sc = tcb_resolve(current, sched);
		if (!sc)
			return tc_error(tf, L4_ERR_INVALID_SCHED), false;
		t->scheduler = sc->id;
	}
	if (utcb != ~0UL && !t->utcb_k) {
		if (t->space->configured && !utcb_location_valid(t->space, utcb))
			return tc_error(tf, L4_ERR_UTCB_AREA), false;
		t->utcb_loc = utcb;
		t->utcb_loc_set = true;
	}
	if (pager != L4_NILTHREAD) {
		struct tcb *p = tcb_resolve(current, pager);
		t->pager = p ? p->id : pager;
		if (t->utcb_k)
			utcb_set(t, UTCB_PAGER, t->pager);
	}
	thread_try_activate(t);
	if (t->utcb_loc_set && !t->utcb_k && t->space->configured)
		return tc_error(tf, L4_ERR_NO_MEM), false;
	return true;
}

/*
 * ThreadControl(dest, space, scheduler, pager, utcb location) (abi.md §5.7).
 * Its registers are not in argument order (abi.md §2; the tc_* views).
 */
void sys_thread_control(struct trapframe *tf)
{
	word_t dest = tc_dest(tf), pager = tc_pager(tf), sched = tc_scheduler(tf), space = tc_space(tf);
	word_t utcb = tc_utcb(tf);
	if (!current->space->privileged)
		return tc_error(tf, L4_ERR_NO_PRIVILEGE);
	if (l4_thread_no(dest) < L4_SYSTEM_BASE) {
		if (space != dest)
			return tc_error(tf, L4_ERR_INVALID_THREAD);
		return irq_control(tf, dest, pager);
	}
	struct tcb *t = tcb_lookup(dest);
	if (space == L4_NILTHREAD) {
		if (!t || t == current || !thread_is_user(t))
			return tc_error(tf, L4_ERR_INVALID_THREAD);
		if (smp_running_elsewhere(t) >= 0) {
			smp_evict(t);               /* lets the lock go: everything is checked again */
			return sys_thread_control(tf);
		}
		return delete_thread(tf, t);
	}
	if (!t) {
		if (!new_id_valid(dest) || tcb_by_number(l4_thread_no(dest)))
			return tc_error(tf, L4_ERR_INVALID_THREAD);
		if (sched != L4_NILTHREAD && !tcb_resolve(current, sched))
			return tc_error(tf, L4_ERR_INVALID_SCHED);
		if (utcb != ~0UL && space != dest && !utcb_ok_in(tcb_resolve(current, space), utcb))
			return tc_error(tf, L4_ERR_UTCB_AREA);
		t = create_thread(tf, dest, space);
		if (!t)
			return;
		t->scheduler = current->id;
	} else {
		struct tcb *st = tcb_resolve(current, space);
		if (!st || st->space != t->space)
			return tc_error(tf, L4_ERR_INVALID_SPACE);
	}
	if (configure_thread(tf, t, sched, pager, utcb))
		sys_set_result(tf, 1);
}
