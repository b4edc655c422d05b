// SPDX-License-Identifier: MIT
// Servers in spaces of their own, from the root task's image (task.h).
#include "task.h"
#include "../c/stdio.h"
#include "../c/string.h"

#define PAGE        4096UL
#define MAX_SHARED  4
#define COPY_WINDOW 0x240000000000UL      /* where the pager keeps the copies it hands out */

/* The linker's: the image's first byte, the end of its code, the end of its bss. */
extern char __executable_start[], etext[], end[];

static struct { L4_Word_t base, size; } shared[MAX_SHARED];
static unsigned nshared;
static L4_ThreadId_t pager_id;
static L4_Word_t next_copy = COPY_WINDOW;
static char pager_stack[8192] __attribute__((aligned(16)));
volatile L4_Word_t task_faults;
static L4_Word_t reserve_next, reserve_end;   /* pages taken from sigma0 in advance (task_reserve) */

int task_reserve(unsigned log2)
{
	L4_Word_t va = next_copy;
	if ((va & ((1UL << log2) - 1)) ||
	    !pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, log2, 7), L4_FPAGE_MAKE(va, log2, 0)))
		return 0;
	next_copy += 1UL << log2;
	if (reserve_end != va)
		reserve_next = va;         /* else it extends the reserve taken before */
	reserve_end = next_copy;
	return 1;
}

int task_share(L4_Word_t base, L4_Word_t size)
{
	if (nshared == MAX_SHARED || (base | size) & (PAGE - 1))
		return 0;
	shared[nshared].base = base;
	shared[nshared++].size = size;
	return 1;
}

static int in_shared(L4_Word_t page)
{
	for (unsigned i = 0; i < nshared; i++)
		if (page - shared[i].base < shared[i].size)
			return 1;
	return 0;
}

/* A fresh page (the reserve's, else sigma0's) holding a copy of our page at `page`; its address here, or 0. */
static L4_Word_t copy_of(L4_Word_t page)
{
	L4_Word_t va = next_copy;
	if (reserve_next < reserve_end) {
		va = reserve_next;
		reserve_next += PAGE;
	} else if (pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), L4_FPAGE_MAKE(va, 12, 0))) {
		next_copy += PAGE;
	} else {
		return 0;
	}
	memcpy((void *)va, (const void *)page, PAGE);
	return va;
}

/* Where a faulting page comes from (here) and with what rights; 0: nowhere (a bug). */
static L4_Word_t source(L4_Word_t page, L4_Word_t *rights)
{
	L4_Word_t text = (L4_Word_t)__executable_start & ~(PAGE - 1);
	*rights = 7;
	if (page >= text && page < (L4_Word_t)etext) {
		*rights = 5;                  /* code: shared, read and execute */
		return page;
	}
	if (in_shared(page))
		return page;
	if (page >= (L4_Word_t)etext - PAGE && page < (L4_Word_t)end)
		return copy_of(page);
	return 0;
}

/* Map the page (or the ports) a thread of such a space faulted on, or leave it blocked. */
static int answer(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag) & ~0xfUL, addr = L4_MR(1), rights;
	if (label == (L4_LABEL_IO_PAGEFAULT & ~0xfUL)) {
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, L4_ITEM_MAP);
		L4_SetMR(2, (addr & ~0xfUL) | 7);  /* our ports (the root task's), as they are */
		return 1;
	}
	L4_Word_t page = addr & ~(PAGE - 1), src;
	if (label != (L4_LABEL_PAGEFAULT & ~0xfUL) || !(src = source(page, &rights))) {
		printf("task: no page for %lx at %lx (ip %lx)\n", from, addr, L4_MR(2));
		return 0;
	}
	task_faults++;
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, page | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(src, 12, rights));
	return 1;
}

static void pager(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		if (!L4_IpcFailed(tag) && answer(from, tag))
			tag = L4_ReplyWait(from, &from);
		else
			tag = L4_Wait(&from);
	}
}

/* Thread t of the calling task (the root task's UTCB layout), started at fn on stack. */
static int start_thread(L4_ThreadId_t t, L4_ThreadId_t space, L4_ThreadId_t pager_thread, void (*fn)(void),
			L4_Word_t sp)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	L4_Word_t utcb = (L4_MyLocalId() & ~((1UL << ROOT_UTCB_AREA_LOG2) - 1)) +
			 UTCB_SIZE * (l4_thread_no(t) - l4_thread_no(me));
	if (!L4_ThreadControl(t, space, me, me, utcb))
		return 0;
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, (L4_Word_t)fn);
	L4_SetMR(2, sp);
	return !L4_IpcFailed(L4_Send(t)) && (pager_thread == me || L4_ThreadControl(t, t, L4_NILTHREAD, pager_thread, ~0UL));
}

int task_pager_start(L4_ThreadId_t t)
{
	if (pager_id)
		return 1;
	/* the pager asks sigma0 for the pages it copies into: sigma0 serves admitted threads only */
	if (!pecan_sigma0_admit(l4_thread_no(t), 1) ||
	    !start_thread(t, L4_MyGlobalId(), L4_MyGlobalId(), pager, (L4_Word_t)pager_stack + sizeof(pager_stack) - 8) ||
	    !L4_Set_Priority(t, 254))
		return 0;
	pager_id = t;
	return 1;
}

int task_start(L4_ThreadId_t t, void (*fn)(void), char *stack, L4_Word_t size, L4_Word_t prio)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	if (!pager_id || !L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL))
		return 0;                     /* a new space, then its KIP and UTCB areas as ours */
	if (!L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			     L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0))
		return 0;
	return start_thread(t, t, pager_id, fn, (L4_Word_t)stack + size - 8) && L4_Set_Priority(t, prio);
}
