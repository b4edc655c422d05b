// SPDX-License-Identifier: MIT
// Address spaces.  Map items copy page-table entries; the mapping database comes with issue 4.
#include "space.h"
#include "frame.h"
#include "kip.h"
#include "mapping.h"
#include "sched.h"
#include <l4/errors.h>
#include <l4/pecan.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

/* The space object holds its own account, so it is charged once the account exists. */
struct space *space_create(bool privileged)
{
	struct kmem_acct a;
	kmem_acct_init(&a, !privileged, 0);
	paddr_t obj = kmem_alloc_raw(&a, 1);
	if (!obj)
		return NULL;
	struct space *s = phys_to_virt(obj);
	arch_zero(s, ALIGN_UP(sizeof(*s), 8));
	s->acct = a;
	s->privileged = privileged;
	s->root = arch_space_create(&s->acct);
	if (!s->root) {
		kmem_free(&s->acct, obj, 1);
		return NULL;
	}
	return s;
}

bool space_io_bitmap(struct space *s)
{
	if (s->io_deny)
		return true;
	paddr_t b = kmem_alloc_raw(&s->acct, IO_BITMAP_FRAMES);
	if (!b)
		return false;
	s->io_deny = phys_to_virt(b);
	for (word_t i = 0; i < IO_PORTS / 8; i++)
		s->io_deny[i] = 0xff;             /* no ports yet */
	return true;
}

bool space_configure(struct space *s, word_t kip_base, word_t utcb_base, word_t utcb_size)
{
	if (!arch_map(&s->acct, s->root, kip_base, kip_phys(), MAP_R))
		return false;
	s->kip_base = kip_base;
	s->utcb_base = utcb_base;
	s->utcb_size = utcb_size;
	s->configured = true;
	return true;
}

/*
 * Its threads are gone, and their UTCB pages with them (thread.c): the
 * mappings and the KIP go, each emptied table back to the pool at once,
 * so what is left of the page tables is the root.
 */
void space_destroy(struct space *s)
{
	mapping_remove_space(s);
	if (s->configured)
		arch_protect(&s->acct, s->root, s->kip_base, 0);
	arch_space_destroy(&s->acct, s->root);
	if (s->io_deny)
		kmem_free(&s->acct, virt_to_phys_direct(s->io_deny), IO_BITMAP_FRAMES);
	struct kmem_acct a = s->acct;
	kmem_free(&a, virt_to_phys_direct(s), 1);
}

bool space_map(struct space *s, word_t va, paddr_t pa, unsigned rights)
{
	return arch_map(&s->acct, s->root, va, pa, rights);
}

void *space_kaddr(struct space *s, word_t va, unsigned rights)
{
	paddr_t pa;
	unsigned have;
	if (!arch_lookup(s->root, va, &pa, &have) || (have & rights) != rights)
		return NULL;
	return phys_to_virt(pa);
}

bool space_read(struct space *s, word_t va, void *buf, size_t n)
{
	u8 *out = buf;
	while (n) {
		const u8 *src = space_kaddr(s, va, MAP_R);
		if (!src)
			return false;
		size_t chunk = PAGE_SIZE - (va & ~PAGE_MASK);
		if (chunk > n)
			chunk = n;
		for (size_t i = 0; i < chunk; i++)
			out[i] = src[i];
		out += chunk;
		va += chunk;
		n -= chunk;
	}
	return true;
}

word_t space_copy(struct space *from, word_t src, struct space *to, word_t dst, word_t n)
{
	word_t done = 0;
	while (done < n) {
		const u8 *s = space_kaddr(from, src + done, MAP_R);
		u8 *d = space_kaddr(to, dst + done, MAP_W);
		if (!s || !d)
			break;
		word_t chunk = n - done;
		word_t sl = PAGE_SIZE - ((src + done) & ~PAGE_MASK);
		word_t dl = PAGE_SIZE - ((dst + done) & ~PAGE_MASK);
		if (chunk > sl)
			chunk = sl;
		if (chunk > dl)
			chunk = dl;
		arch_copy(d, s, chunk);
		done += chunk;
	}
	return done;
}

bool space_area_free(const struct space *s, word_t base, word_t size)
{
	word_t end = base + size;
	if (!s->configured)
		return true;
	if (base < s->kip_base + PAGE_SIZE && end > s->kip_base)
		return false;
	return !(base < s->utcb_base + s->utcb_size && end > s->utcb_base);
}

static void space_control_error(struct trapframe *tf, word_t code)
{
	utcb_set(current, UTCB_ERROR_CODE, code);
	sys_set_result(tf, 0);
}

/* An fpage usable as a KIP or UTCB area: at least a page, naturally aligned, user memory. */
static bool area_ok(word_t fp, word_t min_log2)
{
	word_t s = L4_FPAGE_LOG2(fp);
	return s >= min_log2 && s < 47 && block_below(L4_FPAGE_BASE(fp), s, USER_TOP);
}

/*
 * Pecan's SpaceControl control word (docs/abi.md): bits 0-31, if not 0, set
 * the space's kernel-memory quota in pages; ~0 changes nothing.  The old
 * control returned holds the quota before the call (0 for an unlimited space).
 */
#define CONTROL_QUOTA_PAGES(c) ((c) == ~0UL ? 0 : (c) & 0xffffffffUL)

static void set_quota(struct space *s, word_t control)
{
	if (CONTROL_QUOTA_PAGES(control))
		s->acct.quota = CONTROL_QUOTA_PAGES(control) * PAGE_SIZE;
	if (control != ~0UL && (control & PECAN_SPACE_STRICT))
		s->strict = true;       /* sticky: nothing unconfines a space */
}

/* s's redirector, and each thread's copy of it (the IPC fastpath's test reads the copy). */
static void space_set_redirector(struct space *s, word_t redir)
{
	s->redirector = redir;
	for (struct tcb *t = s->threads; t; t = t->space_next)
		t->redirector = redir;
}

/* SpaceControl(space, control, kip area, utcb area, redirector) (abi.md §5.7). */
void sys_space_control(struct trapframe *tf)
{
	word_t kip = sc_kip_area(tf), utcb = sc_utcb_area(tf), control = sc_control(tf);
	if (!current->space->privileged)
		return (void)space_control_error(tf, L4_ERR_NO_PRIVILEGE);
	struct tcb *t = tcb_lookup(sc_space(tf));
	if (!t || !thread_is_user(t))
		return (void)space_control_error(tf, L4_ERR_INVALID_SPACE);
	struct space *s = t->space;
	/* the redirector (X.2): nil leaves it, anythread removes it, else an existing thread */
	word_t redir = s->redirector, want = sc_redirector(tf);
	if (want == L4_ANYTHREAD)
		redir = 0;
	else if (want != L4_NILTHREAD) {
		struct tcb *r = tcb_resolve(current, want);
		if (!r || !thread_is_user(r))
			return (void)space_control_error(tf, L4_ERR_INVALID_THREAD);
		redir = r->id;
	}
	word_t old_quota = s->acct.limited ? s->acct.quota / PAGE_SIZE : 0;
	if (s->configured) {
		space_set_redirector(s, redir);
		set_quota(s, control);
		sc_set_old_control(tf, old_quota);   /* no compatibility mode, ever */
		sys_set_result(tf, 1);               /* areas are fixed once set */
		return;
	}
	word_t ks = 1UL << 12;
	if (!area_ok(kip, 12) || L4_FPAGE_LOG2(kip) != 12)
		return (void)space_control_error(tf, L4_ERR_KIP_AREA);
	if (!area_ok(utcb, 12) || (L4_FPAGE_BASE(utcb) < L4_FPAGE_BASE(kip) + ks &&
				   L4_FPAGE_BASE(utcb) + (1UL << L4_FPAGE_LOG2(utcb)) > L4_FPAGE_BASE(kip)))
		return (void)space_control_error(tf, L4_ERR_UTCB_AREA);
	word_t quota = s->acct.quota;
	set_quota(s, control);          /* the areas' page tables are charged under the new quota */
	if (!space_configure(s, L4_FPAGE_BASE(kip), L4_FPAGE_BASE(utcb), 1UL << L4_FPAGE_LOG2(utcb))) {
		s->acct.quota = quota;
		return (void)space_control_error(tf, L4_ERR_NO_MEM);
	}
	space_set_redirector(s, redir);
	thread_try_activate_space(s);
	sc_set_old_control(tf, old_quota);
	sys_set_result(tf, 1);
}
