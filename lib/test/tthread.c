// SPDX-License-Identifier: MIT
// Test threads and the test pager (tthread.h).
#include "tthread.h"

#define TT_FIRST_NO   (L4_USER_BASE + 12)
#define TT_STACKS     48
#define PAGER_SLOT    149

static char stacks[TT_STACKS][TT_STACK_SIZE] __attribute__((aligned(16)));
static int next_stack;
static L4_ThreadId_t pager_id;
volatile L4_Word_t tt_pager_faults;

L4_ThreadId_t tt_id(int n, int v)
{
	return l4_global_id(TT_FIRST_NO + n, v);
}

L4_Word_t tt_utcb(L4_ThreadId_t t)
{
	return ROOT_UTCB_AREA + UTCB_SIZE * (l4_thread_no(t) - (L4_USER_BASE + 2));
}

L4_Word_t tt_stack(void)
{
	if (next_stack == TT_STACKS)
		next_stack = 0;    /* recycled: tests run one after another */
	return (L4_Word_t)stacks[next_stack++] + TT_STACK_SIZE - 8;
}

int tt_send_start(L4_ThreadId_t t, void (*fn)(void), L4_Word_t sp)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, (L4_Word_t)fn);
	L4_SetMR(2, sp);
	return !L4_IpcFailed(L4_Send(t));
}

int tt_start_local(L4_ThreadId_t t, void (*fn)(void))
{
	L4_ThreadId_t me = L4_MyGlobalId();
	return L4_ThreadControl(t, me, me, me, tt_utcb(t)) && tt_send_start(t, fn, tt_stack());
}

int tt_start_space(L4_ThreadId_t t, void (*fn)(void))
{
	return tt_start_space_paged(t, fn, tt_pager());
}

int tt_start_space_paged(L4_ThreadId_t t, void (*fn)(void), L4_ThreadId_t pager)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	if (!L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL))
		return 0;
	if (!L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			     L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0))
		return 0;
	/* we start it, then hand its page faults to the pager */
	return L4_ThreadControl(t, t, me, me, tt_utcb(t)) && tt_send_start(t, fn, tt_stack()) &&
	       L4_ThreadControl(t, t, L4_NILTHREAD, pager, ~0UL);
}

int tt_kill(L4_ThreadId_t t)
{
	return L4_ThreadControl(t, L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL) != 0;
}

void tt_park(void)
{
	for (;;)
		L4_Receive(L4_MyGlobalId());
}

void tt_pager_serve(L4_Word_t (*source)(L4_Word_t page, L4_ThreadId_t from))
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		if (L4_IpcFailed(tag) || (L4_TAG_LABEL(tag) >> 4) != (L4_LABEL_PAGEFAULT >> 4)) {
			tag = L4_Wait(&from);
			continue;
		}
		L4_Word_t page = L4_MR(1) & ~0xfffUL, src = source(page, from);
		if (!src) {
			tag = L4_Wait(&from);
			continue;
		}
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, page | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE(src, 12, 7));
		tag = L4_ReplyWait(from, &from);
	}
}

/* Our own page at the faulting address. */
static L4_Word_t same_page(L4_Word_t page, L4_ThreadId_t from)
{
	(void)from;
	tt_pager_faults++;
	return page;
}

static void pager_loop(void)
{
	tt_pager_serve(same_page);
}

L4_ThreadId_t tt_pager(void)
{
	if (!pager_id) {
		L4_ThreadId_t p = tt_id(PAGER_SLOT, 1);
		if (tt_start_local(p, pager_loop))
			pager_id = p;
		L4_Set_Priority(p, 254);
	}
	return pager_id;
}
