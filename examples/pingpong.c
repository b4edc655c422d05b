// SPDX-License-Identifier: MIT
// Two address spaces: the root task creates a thread in a new space, is its
// pager, and answers its pings (docs/writing-programs.md walks through it).
#include <l4/l4.h>
#include <c/stdio.h>

#define ROUNDS      1000
#define LABEL_PING  1
#define LABEL_DONE  2

static L4_ThreadId_t parent;
static char child_stack[8192] __attribute__((aligned(16)));

/* Runs in the new space: the same code and data addresses, paged by the parent. */
static void child(void)
{
	L4_Word_t right = 0;
	for (L4_Word_t i = 0; i < ROUNDS; i++) {
		L4_SetMR(0, L4_TAG_MAKE(LABEL_PING, 1, 0));
		L4_SetMR(1, i);
		L4_MsgTag_t tag = L4_Call(parent);
		right += !L4_IpcFailed(tag) && L4_MR(1) == 2 * i;
	}
	L4_SetMR(0, L4_TAG_MAKE(LABEL_DONE, 1, 0));
	L4_SetMR(1, right);
	L4_Call(parent);            /* never answered: the parent powers off */
}

/* Create t in a new space with us as its pager, and start it at fn. */
static int start_in_new_space(L4_ThreadId_t t, void (*fn)(void), L4_Word_t sp)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	/* 1. an inactive thread in a new space (the space is named by its first thread) */
	if (!L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL))
		return 0;
	/* 2. the space's KIP and UTCB areas: here at the same addresses as ours */
	if (!L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			     L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0))
		return 0;
	/* 3. activate it: its pager is us, its UTCB the first slot of the area */
	if (!L4_ThreadControl(t, t, me, me, ROOT_UTCB_AREA))
		return 0;
	/* 4. the start message from its pager: MR1 = instruction pointer, MR2 = stack pointer */
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, (L4_Word_t)fn);
	L4_SetMR(2, sp);
	return !L4_IpcFailed(L4_Send(t));
}

/* Answer a page fault by mapping our own page at the same address. */
static void map_reply(L4_Word_t addr)
{
	L4_Word_t page = addr & ~0xfffUL;
	(void)*(volatile char *)page;         /* have sigma0 map it to us first */
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, page | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(page, 12, 7));
}

int main(void)
{
	parent = L4_MyGlobalId();
	L4_ThreadId_t kid = l4_global_id(l4_thread_no(parent) + 10, 1);
	if (!start_in_new_space(kid, child, (L4_Word_t)child_stack + sizeof(child_stack) - 8)) {
		printf("pingpong: could not start the thread (ErrorCode %lu)\n", L4_ErrorCode());
		pecan_kdb_power_off(1);
	}
	L4_Word_t faults = 0, pings = 0;
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		if (L4_IpcFailed(tag) || from != kid) {
			tag = L4_Wait(&from);
			continue;
		}
		if (L4_TAG_LABEL(tag) >> 4 == L4_LABEL_PAGEFAULT >> 4) {
			faults++;
			map_reply(L4_MR(1));
		} else if (L4_TAG_LABEL(tag) == LABEL_PING) {
			pings++;
			L4_Word_t w = L4_MR(1);
			L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
			L4_SetMR(1, 2 * w);
		} else if (L4_TAG_LABEL(tag) == LABEL_DONE) {
			break;
		}
		tag = L4_ReplyWait(from, &from);
	}
	printf("pingpong: %lu pings from thread %lu.%lu in another space, %lu answered right, "
	       "%lu page faults served\n", pings, l4_thread_no(kid), l4_version(kid), L4_MR(1), faults);
	pecan_kdb_power_off(L4_MR(1) == ROUNDS ? 0 : 1);
	return 0;
}
