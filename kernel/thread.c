// SPDX-License-Identifier: MIT
// Thread creation and lookup by global ID.
#include "thread.h"
#include "space.h"
#include "frame.h"
#include "config.h"
#include <l4/thread.h>
#include <l4/utcb.h>

static struct tcb *tcb_table[CONFIG_MAX_THREADS];

struct tcb *tcb_lookup(word_t gid)
{
	word_t no = l4_thread_no(gid);
	if (no >= CONFIG_MAX_THREADS || !tcb_table[no] || tcb_table[no]->id != gid)
		return NULL;
	return tcb_table[no];
}

/* The kernel address of the UTCB at loc, allocating and mapping its page if needed. */
static u8 *utcb_page(struct space *s, word_t loc)
{
	word_t page = loc & PAGE_MASK;
	u8 *k = space_kaddr(s, page, MAP_R | MAP_W);
	if (!k) {
		paddr_t f = frame_alloc_zeroed(1);
		if (!f || !space_map(s, page, f, MAP_R | MAP_W))
			return NULL;
		k = phys_to_virt(f);
	}
	return k + (loc & ~PAGE_MASK);
}

static bool utcb_location_valid(struct space *s, word_t loc)
{
	return (loc & (UTCB_SIZE - 1)) == 0 && loc >= s->utcb_base &&
	       loc + UTCB_SIZE <= s->utcb_base + s->utcb_size;
}

struct tcb *thread_create(word_t gid, struct space *s, word_t loc, word_t ip,
			  word_t sp, const char *name)
{
	word_t no = l4_thread_no(gid);
	if (no >= CONFIG_MAX_THREADS || tcb_table[no] || !utcb_location_valid(s, loc))
		return NULL;
	paddr_t tp = frame_alloc_zeroed(1);
	paddr_t kp = frame_alloc_zeroed(CONFIG_KSTACK_PAGES);
	u8 *utcb = utcb_page(s, loc);
	if (!tp || !kp || !utcb)
		return NULL;            /* boot-time only so far: the caller stops the system */
	struct tcb *t = phys_to_virt(tp);
	t->id = gid;
	t->state = TS_INACTIVE;
	t->space = s;
	t->utcb = loc + UTCB_P_OFFSET;
	t->utcb_k = utcb + UTCB_P_OFFSET;
	t->name = name;
	t->kstack_top = (word_t)phys_to_virt(kp) + CONFIG_KSTACK_PAGES * PAGE_SIZE;
	utcb_set(t, UTCB_MY_GLOBAL_ID, gid);
	utcb_set(t, UTCB_WORD_SIZE_MASK, ~0UL);
	arch_thread_init(t, ip, sp, t->kstack_top);
	s->nthreads++;
	tcb_table[no] = t;
	return t;
}

void utcb_set(struct tcb *t, int offset, word_t value)
{
	*(word_t *)(t->utcb_k + offset) = value;
}
