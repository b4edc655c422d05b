// SPDX-License-Identifier: MIT
// Address spaces.  Map items copy page-table entries; the mapping database comes with issue 4.
#include "space.h"
#include "frame.h"
#include "kip.h"
#include "mapping.h"
#include "sched.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/utcb.h>

struct space *space_create(void)
{
	paddr_t obj = frame_alloc_zeroed(1);
	if (!obj)
		return NULL;
	struct space *s = phys_to_virt(obj);
	for (int i = 0; i < IO_PORTS / 8; i++)
		s->io_deny[i] = 0xff;             /* no ports */
	s->root = arch_space_create();
	if (!s->root) {
		frame_free(obj, 1);
		return NULL;
	}
	return s;
}

bool space_configure(struct space *s, word_t kip_base, word_t utcb_base, word_t utcb_size)
{
	if (!arch_map(s->root, kip_base, kip_phys(), MAP_R))
		return false;
	s->kip_base = kip_base;
	s->utcb_base = utcb_base;
	s->utcb_size = utcb_size;
	s->configured = true;
	return true;
}

void space_destroy(struct space *s)
{
	mapping_remove_space(s);
	word_t va = s->utcb_base, end = s->utcb_base + s->utcb_size;
	paddr_t pa;
	unsigned r;
	for (; s->configured && arch_next_mapped(s->root, &va, end, &pa, &r); va += PAGE_SIZE)
		frame_free(pa & PAGE_MASK, 1);      /* UTCB pages are the kernel's */
	arch_space_destroy(s->root);
	frame_free(virt_to_phys_direct(s), 1);
}

bool space_map(struct space *s, word_t va, paddr_t pa, unsigned rights)
{
	return arch_map(s->root, va, pa, rights);
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

static word_t space_control_error(struct trapframe *tf, word_t code)
{
	utcb_set(current, UTCB_ERROR_CODE, code);
	return tf->rax = 0;
}

/* An fpage usable as a KIP or UTCB area: at least a page, naturally aligned, user memory. */
static bool area_ok(word_t fp, word_t min_log2)
{
	word_t s = L4_FPAGE_LOG2(fp);
	return s >= min_log2 && s < 47 && block_below(L4_FPAGE_BASE(fp), s, USER_TOP);
}

/* SpaceControl(space, control, kip area, utcb area, redirector) (abi.md §5.7). */
void sys_space_control(struct trapframe *tf)
{
	word_t kip = tf->rdx, utcb = tf->r8;
	if (!current->space->privileged)
		return (void)space_control_error(tf, L4_ERR_NO_PRIVILEGE);
	struct tcb *t = tcb_lookup(tf->rdi);
	if (!t || !thread_is_user(t))
		return (void)space_control_error(tf, L4_ERR_INVALID_SPACE);
	struct space *s = t->space;
	tf->rdx = 0;                        /* old control: no compatibility mode, ever */
	if (s->configured) {
		tf->rax = 1;                    /* areas are fixed once set; the rest is ignored */
		return;
	}
	word_t ks = 1UL << 12;
	if (!area_ok(kip, 12) || L4_FPAGE_LOG2(kip) != 12)
		return (void)space_control_error(tf, L4_ERR_KIP_AREA);
	if (!area_ok(utcb, 12) || (L4_FPAGE_BASE(utcb) < L4_FPAGE_BASE(kip) + ks &&
				   L4_FPAGE_BASE(utcb) + (1UL << L4_FPAGE_LOG2(utcb)) > L4_FPAGE_BASE(kip)))
		return (void)space_control_error(tf, L4_ERR_UTCB_AREA);
	if (!space_configure(s, L4_FPAGE_BASE(kip), L4_FPAGE_BASE(utcb), 1UL << L4_FPAGE_LOG2(utcb)))
		return (void)space_control_error(tf, L4_ERR_NO_MEM);
	thread_try_activate_space(s);
	tf->rax = 1;
}
