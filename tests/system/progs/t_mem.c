// SPDX-License-Identifier: MIT
// Recursive address spaces: sigma0, map/grant/unmap through three levels, pagers, bad input.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

#define P_ADDR   0x3000000UL      /* 48 MiB: the root task's page from sigma0 */
#define Q_ADDR   0x3001000UL      /* the page the test pager substitutes */
#define X_ADDR   0x40000000UL     /* where B and C keep the shared page */
#define PAGE     4096UL
/*
 * The range tests' 4 MiB block (root, B and C keep it at the same address):
 * a few pages on either side of the 2 MiB boundary, where one leaf table
 * ends and the next begins, and a few at its start and end; the rest absent.
 */
#define R_ADDR   0x3400000UL
#define R_LOG2   22
#define R_PAGE(i) (R_ADDR + (L4_Word_t)(i) * PAGE)
static const unsigned r_present[] = { 0, 1, 3, 510, 511, 512, 513, 1023 };
#define R_COUNT  (sizeof(r_present) / sizeof(r_present[0]))

enum { CMD_TAKE = 1, CMD_READ, CMD_WRITE, CMD_MAP_TO, CMD_SET_WINDOW, CMD_IN, CMD_OUT };
enum { CMD_READ_AT = 16, CMD_WRITE_AT, CMD_MAP_RANGE_TO };   /* the range tests' */
enum { CMD_OUT_THEN_IN = 32 };  /* out b to port a, then Call thread c to `in` port a: its result */

#define COM2_SCR 0x2ffUL        /* COM2's scratch register: a port that keeps a byte */

static volatile L4_Word_t faults, last_fault_rwx, last_fault_from, pager_mode, pager_skip;
static volatile L4_Word_t io_faults, last_io_fpage, io_grant_skip, last_io_from;
static volatile L4_Word_t range_faults, last_range_fault;     /* faults in the R block */
static L4_ThreadId_t pager_id, b_id, c_id;
static int slot;

static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
static volatile L4_Word_t *word_at(L4_Word_t a) { return (volatile L4_Word_t *)a; }

/*
 * The test pager for B and C: faults at X are counted and answered by mode
 * (0: map Q; 1: nothing; 2: an item for memory we do not have), pager_skip
 * times before falling back to mode 0; any other fault maps our own page.
 */
static void mem_pager(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		if ((L4_TAG_LABEL(tag) >> 4) == (L4_LABEL_IO_PAGEFAULT >> 4)) {
			io_faults++;
			last_io_fpage = L4_MR(1);
			last_io_from = from;
			L4_SetMR(0, io_grant_skip && io_grant_skip-- ? 0 : L4_TAG_MAKE(0, 0, 2));
			L4_SetMR(1, L4_ITEM_MAP);
			L4_SetMR(2, L4_IO_FPAGE(last_io_fpage >> 16, 0, 7));
			tag = L4_ReplyWait(from, &from);
			continue;
		}
		L4_Word_t addr = L4_MR(1) & ~(PAGE - 1), src = addr, base = addr;
		if (addr >= R_ADDR && addr < R_ADDR + (1UL << R_LOG2)) {
			range_faults++;         /* answered with our own page there */
			last_range_fault = addr | (L4_TAG_LABEL(tag) & 7);
		}
		if (addr == X_ADDR) {
			faults++;
			last_fault_rwx = L4_TAG_LABEL(tag) & 7;
			last_fault_from = from;
			src = Q_ADDR;
			if (pager_skip && pager_skip--)
				src = pager_mode == 1 ? 0 : 0x7fff00000000UL;
		}
		L4_SetMR(0, src ? L4_TAG_MAKE(0, 0, 2) : 0);
		L4_SetMR(1, base | L4_ITEM_MAP);
		L4_SetMR(2, L4_FPAGE_MAKE(src, 12, 7));
		tag = L4_ReplyWait(from, &from);
	}
}

static L4_Word_t call_in(L4_ThreadId_t t, L4_Word_t port);

/* B and C: obey commands from the root task (Calls), keeping a page at X. */
static void worker(void)
{
	L4_ThreadId_t from;
	L4_SetTcr(UTCB_BR(0), L4_COMPLETE_SPACE);
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_Word_t cmd = L4_TAG_LABEL(tag), a = L4_MR(1), b = L4_MR(2), c = L4_MR(3), r = 0;
		if (cmd == CMD_READ)
			r = *word_at(X_ADDR);
		else if (cmd == CMD_WRITE)
			*word_at(X_ADDR) = a;
		else if (cmd == CMD_SET_WINDOW)
			L4_SetTcr(UTCB_BR(0), a);
		else if (cmd == CMD_OUT)
			__asm__ __volatile__("outb %b0, %w1" : : "a"(b), "d"(a));
		else if (cmd == CMD_IN) {
			unsigned char v;
			__asm__ __volatile__("inb %w1, %b0" : "=a"(v) : "d"(a));
			r = v;
		}
		else if (cmd == CMD_OUT_THEN_IN) {      /* the Call switches straight to c */
			__asm__ __volatile__("outb %b0, %w1" : : "a"(b), "d"(a));
			r = call_in(c, a);
		}
		else if (cmd == CMD_READ_AT)
			r = *word_at(a);
		else if (cmd == CMD_WRITE_AT)
			*word_at(a) = b;
		else if (cmd == CMD_MAP_RANGE_TO) {     /* a: to, b: rights; the R block */
			L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
			L4_SetMR(1, R_ADDR | L4_ITEM_MAP);
			L4_SetMR(2, L4_FPAGE_MAKE(R_ADDR, R_LOG2, b));
			r = L4_IpcFailed(L4_Call(a));
		}
		else if (cmd == CMD_MAP_TO) {           /* a: to, b: rights, c: grant */
			L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
			L4_SetMR(1, X_ADDR | (c ? L4_ITEM_GRANT : L4_ITEM_MAP));
			L4_SetMR(2, L4_FPAGE_MAKE(X_ADDR, 12, b));
			r = L4_IpcFailed(L4_Call(a));
		}
		L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
		L4_SetMR(1, r);
		tag = L4_ReplyWait(from, &from);
	}
}

static L4_Word_t cmd(L4_ThreadId_t t, L4_Word_t c, L4_Word_t a, L4_Word_t b, L4_Word_t d)
{
	L4_SetMR(0, L4_TAG_MAKE(c, 3, 0));
	L4_SetMR(1, a);
	L4_SetMR(2, b);
	L4_SetMR(3, d);
	L4_MsgTag_t tag = L4_Call(t);
	return L4_IpcFailed(tag) ? 0xdead : L4_MR(1);
}

/* t's `in` of port (CMD_IN); what it read. */
static L4_Word_t call_in(L4_ThreadId_t t, L4_Word_t port)
{
	return cmd(t, CMD_IN, port, 0, 0);
}

/* Send t a map (or grant) item for our page at src, to land at X with rights. */
static int give(L4_ThreadId_t t, L4_Word_t src, L4_Word_t rights, L4_Word_t send_base)
{
	L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
	L4_SetMR(1, send_base | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(src, 12, rights));
	return !L4_IpcFailed(L4_Call(t));
}

static int unmap(L4_Word_t fpage, L4_Word_t control)
{
	L4_SetMR(0, fpage);
	L4_Unmap(control);
	return (int)(L4_MR(0) & 7);
}

/* Fresh B and C (new spaces, paged by the test pager); P holds 0x1111, Q 0x2222. */
static int setup(void)
{
	if (!pager_id) {
		pager_id = fresh();
		if (!tt_start_local(pager_id, mem_pager))
			return 0;
		L4_Set_Priority(pager_id, 254);
	}
	if (b_id) {
		tt_kill(b_id);
		tt_kill(c_id);
	}
	b_id = fresh();
	c_id = fresh();
	pager_mode = pager_skip = faults = 0;
	*word_at(P_ADDR) = 0x1111;
	*word_at(Q_ADDR) = 0x2222;
	return tt_start_space_paged(b_id, worker, pager_id) && tt_start_space_paged(c_id, worker, pager_id);
}

TEST_CASE("mem.sigma0_request", "sigma0 hands out a page to its first requester, again to it on a repeat, never the kernel's, a boot image's or memory that does not exist")
{
	L4_Word_t fp = pecan_sigma0_request(L4_FPAGE_MAKE(P_ADDR, 12, 7), L4_COMPLETE_SPACE);
	EXPECT(L4_FPAGE_BASE(fp) == P_ADDR && L4_FPAGE_LOG2(fp) == 12, "reply fpage %lx", fp);
	*word_at(P_ADDR) = 0x5a5a;
	EXPECT(*word_at(P_ADDR) == 0x5a5a, "the page does not hold what we wrote");
	fp = pecan_sigma0_request(L4_FPAGE_MAKE(P_ADDR, 12, 7), L4_COMPLETE_SPACE);
	EXPECT(L4_FPAGE_BASE(fp) == P_ADDR, "a repeated request of our own page: %lx", fp);
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(0x100000, 12, 7), L4_COMPLETE_SPACE) == 0,
	       "sigma0 gave out the kernel's memory");
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(0x80000000UL, 12, 7), L4_COMPLETE_SPACE) == 0,
	       "sigma0 gave out memory that does not exist");
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(0x1000000UL, 12, 7), L4_COMPLETE_SPACE) == 0,
	       "sigma0 gave out the root task's own image");
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(0xf00000UL, 12, 7), L4_COMPLETE_SPACE) == 0,
	       "sigma0 gave out its own image");
}

static volatile L4_Word_t other_result = 1;

static void other_requester(void)
{
	other_result = pecan_sigma0_request(L4_FPAGE_MAKE(P_ADDR, 12, 7), L4_COMPLETE_SPACE);
	tt_park();
}

TEST_CASE("mem.sigma0_refuses_taken", "another thread asking for a page already given away gets a nil fpage")
{
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, other_requester), "start");
	TT_WAIT(other_result != 1, 200);
	EXPECT(other_result == 0, "sigma0 gave the page twice: %lx", other_result);
	tt_kill(t);
}

TEST_CASE("mem.sigma0_any_page", "a request for any page gets a fresh conventional page, different each time")
{
	L4_Word_t a = pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), L4_COMPLETE_SPACE);
	L4_Word_t b = pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), L4_COMPLETE_SPACE);
	EXPECT(a && b && L4_FPAGE_BASE(a) != L4_FPAGE_BASE(b), "pages %lx %lx", a, b);
	*word_at(L4_FPAGE_BASE(a)) = 7;
	EXPECT(*word_at(L4_FPAGE_BASE(a)) == 7, "page %lx not usable", a);
}

TEST_CASE("mem.page_touch", "touching 64 fresh pages: each page fault is answered by sigma0")
{
	for (L4_Word_t i = 0; i < 64; i++)
		*word_at(0x2800000 + i * PAGE) = i * 3;
	for (L4_Word_t i = 0; i < 64; i++)
		EXPECT(*word_at(0x2800000 + i * PAGE) == i * 3, "page %lu", i);
}

TEST_CASE("mem.sigma0_phony", "sigma0 ignores a message of no known kind; a request without a window fails")
{
	L4_ThreadId_t s0 = l4_global_id(L4_USER_BASE, 1);
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_MsgTag_t tag = L4_Ipc(s0, s0, L4_TIMEOUTS(0, L4_TimePeriod(20000)), 0);
	EXPECT(L4_IpcFailed(tag) && (L4_ErrorCode() & L4_IPC_PHASE_RECV), "phony send: %lx", L4_ErrorCode());
	L4_Word_t fp = pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), 0);
	EXPECT(fp == 0 && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_OVERFLOW, "phony receive: %lx %lx",
	       fp, L4_ErrorCode());
}

TEST_CASE("mem.recursive_unmap", "root maps to B, B to C; root's unmap revokes both, C and B fault")
{
	EXPECT(setup(), "setup: %lx", L4_ErrorCode());
	EXPECT(give(b_id, P_ADDR, 7, X_ADDR), "root -> B");
	EXPECT(cmd(b_id, CMD_MAP_TO, c_id, 7, 0) == 0, "B -> C");
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x1111 && faults == 0, "C reads through two levels");
	cmd(c_id, CMD_WRITE, 0x3333, 0, 0);
	EXPECT(*word_at(P_ADDR) == 0x3333, "C's write is not in the root's page");
	unmap(L4_FPAGE_MAKE(P_ADDR, 12, 7), 0);
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x2222, "C still sees the page after the unmap");
	EXPECT(faults == 1 && last_fault_from == c_id, "C's access did not fault (%lu faults)", faults);
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x2222 && faults == 2, "B was not revoked");
	EXPECT(*word_at(P_ADDR) == 0x3333, "without flush the root keeps its page");
}

TEST_CASE("mem.grant", "a grant moves the mapping: the granter faults, the receiver has the page")
{
	EXPECT(setup(), "setup");
	EXPECT(give(b_id, P_ADDR, 7, X_ADDR), "root -> B");
	EXPECT(cmd(b_id, CMD_MAP_TO, c_id, 7, 1) == 0, "B grants to C");
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x1111 && faults == 0, "C does not have the page");
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x2222 && faults == 1 && last_fault_from == b_id,
	       "B kept the page it granted");
	unmap(L4_FPAGE_MAKE(P_ADDR, 12, 7), 0);
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x2222 && faults == 2, "the granted page escaped the root's unmap");
}

TEST_CASE("mem.rights_reduced", "mapping never raises rights: read-only stays read-only two levels down")
{
	EXPECT(setup(), "setup");
	EXPECT(give(b_id, P_ADDR, 4, X_ADDR), "root -> B, read-only");
	EXPECT(cmd(b_id, CMD_MAP_TO, c_id, 7, 0) == 0, "B -> C asking for rwx");
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x1111 && faults == 0, "C cannot read");
	cmd(c_id, CMD_WRITE, 0x4444, 0, 0);
	EXPECT(faults == 1 && last_fault_rwx == 2, "C's write did not fault as a write (%lu, rwx %lu)",
	       faults, last_fault_rwx);
	EXPECT(*word_at(P_ADDR) == 0x1111, "C wrote the read-only page");
	cmd(b_id, CMD_WRITE, 0x5555, 0, 0);
	EXPECT(faults == 2 && *word_at(P_ADDR) == 0x1111, "B wrote the read-only page");
}

TEST_CASE("mem.partial_unmap", "unmapping only W leaves the page readable and faults writes")
{
	EXPECT(setup(), "setup");
	EXPECT(give(b_id, P_ADDR, 7, X_ADDR), "root -> B");
	unmap(L4_FPAGE_MAKE(P_ADDR, 12, 2), 0);
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x1111 && faults == 0, "B lost read access");
	cmd(b_id, CMD_WRITE, 0x6666, 0, 0);
	EXPECT(faults == 1 && last_fault_rwx == 2 && *word_at(P_ADDR) == 0x1111, "B could still write");
}

TEST_CASE("mem.unmap_status", "Unmap reports referenced and written, and resets them; flush removes our own")
{
	*word_at(P_ADDR) = 0x7777;
	int st = unmap(L4_FPAGE_MAKE(P_ADDR, 12, 0), 0);
	EXPECT((st & 6) == 6, "after a write: status %x", st);
	st = unmap(L4_FPAGE_MAKE(P_ADDR, 12, 0), 0);
	EXPECT(st == 0, "status not reset: %x", st);
	unmap(L4_FPAGE_MAKE(P_ADDR, 12, 7), L4_UNMAP_FLUSH);
	EXPECT(*word_at(P_ADDR) == 0x7777, "after a flush sigma0 maps the same page again");
}

TEST_CASE("mem.pager_replies_nothing", "a pager that answers with nothing or an item for no memory: the thread faults again")
{
	EXPECT(setup(), "setup");
	pager_mode = 1;
	pager_skip = 2;
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x2222, "C never got a page");
	EXPECT(faults == 3, "empty replies: %lu faults, want 3", faults);
	EXPECT(setup(), "setup 2");
	pager_mode = 2;
	pager_skip = 2;
	EXPECT(cmd(c_id, CMD_READ, 0, 0, 0) == 0x2222 && faults == 3, "unbacked items: %lu faults", faults);
}

TEST_CASE("mem.bad_fpages", "invalid fpages, kernel addresses, KIP/UTCB targets and bad windows map nothing")
{
	EXPECT(setup(), "setup");
	EXPECT(give(b_id, P_ADDR, 0, X_ADDR), "no rights");
	L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
	L4_SetMR(1, X_ADDR | L4_ITEM_MAP);
	L4_SetMR(2, (P_ADDR & ~0x3ffUL) | (11 << 4) | 7);           /* 2 KiB: no such fpage */
	EXPECT(!L4_IpcFailed(L4_Call(b_id)), "2 KiB fpage");
	EXPECT(give(b_id, 0xffffffff80100000UL, 7, X_ADDR), "kernel fpage");
	EXPECT(give(b_id, P_ADDR, 7, ROOT_UTCB_AREA), "onto B's UTCBs");
	EXPECT(give(b_id, P_ADDR, 7, ROOT_KIP_AREA), "onto B's KIP");
	EXPECT(cmd(b_id, CMD_SET_WINDOW, L4_FPAGE_MAKE(0xffff800000000000UL, 12, 0), 0, 0) == 0, "window");
	EXPECT(give(b_id, P_ADDR, 7, X_ADDR), "into a kernel window");
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x2222 && faults == 1, "something was mapped at X");
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x2222, "B's UTCB or KIP was overwritten: B cannot answer");
	EXPECT(unmap(L4_FPAGE_MAKE(0xffffffff80000000UL, 21, 7), L4_UNMAP_FLUSH) == 0, "kernel unmap");
	EXPECT(unmap(L4_FPAGE_MAKE(ROOT_UTCB_AREA, 18, 7), L4_UNMAP_FLUSH) == 0, "UTCB unmap");
	EXPECT(L4_MyGlobalId() != 0, "our own UTCB was unmapped");
}

TEST_CASE("mem.io_ports", "a port works only once its I/O fpage is mapped; unmapping takes it back")
{
	EXPECT(setup(), "setup");
	io_faults = 0;
	io_grant_skip = 1;                       /* the first answer maps nothing */
	cmd(b_id, CMD_OUT, COM2_SCR, 0x5a, 0);
	EXPECT(io_faults == 2, "%lu I/O faults, want 2 (one unanswered)", io_faults);
	EXPECT(last_io_fpage == L4_IO_FPAGE(COM2_SCR, 0, 2), "fault fpage %lx", last_io_fpage);
	EXPECT(cmd(b_id, CMD_IN, COM2_SCR, 0, 0) == 0x5a && io_faults == 2, "B cannot use the mapped port");
	unmap(L4_IO_FPAGE(0x2f8, 3, 7), 0);
	EXPECT(cmd(b_id, CMD_IN, COM2_SCR, 0, 0) == 0x5a && io_faults == 3, "the unmap did not revoke B's port");
	EXPECT(last_io_fpage == L4_IO_FPAGE(COM2_SCR, 0, 4), "read fault fpage %lx", last_io_fpage);
	L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
	L4_SetMR(1, L4_ITEM_MAP);
	L4_SetMR(2, L4_IO_FPAGE(0, 17, 7));        /* more ports than there are */
	EXPECT(!L4_IpcFailed(L4_Call(c_id)), "map item bigger than the port space");
	EXPECT(cmd(c_id, CMD_SET_WINDOW, L4_IO_FPAGE(0x80, 3, 0), 0, 0) == 0, "window");
	L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
	L4_SetMR(1, L4_ITEM_MAP);
	L4_SetMR(2, L4_IO_FPAGE(0x2f8, 3, 7));      /* outside C's I/O window */
	EXPECT(!L4_IpcFailed(L4_Call(c_id)), "map item outside the window");
	L4_Word_t before = io_faults;
	cmd(c_id, CMD_IN, COM2_SCR, 0, 0);
	EXPECT(io_faults == before + 1, "C got the port through a window that does not cover it");
}

#define LPT1 0x378UL             /* an ordinary port sigma0 gives the root task (t_hostile) */

/* Start t in the space of thread in, as a worker paged by our pager. */
static int start_beside(L4_ThreadId_t t, L4_ThreadId_t in)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	return L4_ThreadControl(t, in, me, me, tt_utcb(t)) && tt_send_start(t, worker, tt_stack()) &&
	       L4_ThreadControl(t, in, L4_NILTHREAD, pager_id, ~0UL);
}

TEST_CASE("mem.io_ports_follow_thread", "ports in force for a thread a moment ago never reach the next space's thread, with ports of its own or none; a thread of the same space that never used one has it at its first use")
{
	EXPECT(setup(), "setup");
	pecan_sigma0_request(L4_IO_FPAGE(LPT1, 3, 7), L4_COMPLETE_SPACE);   /* ours to map to C */
	io_faults = 0;
	io_grant_skip = 0;
	cmd(b_id, CMD_OUT, COM2_SCR, 0x11, 0);
	EXPECT(io_faults == 1 && last_io_from == b_id, "B's first use of the port: %lu I/O faults", io_faults);
	io_grant_skip = 1;                       /* C's first fault gets nothing: it must fault again */
	L4_Word_t v = cmd(b_id, CMD_OUT_THEN_IN, COM2_SCR, 0xa5, c_id);
	EXPECT(io_faults == 3 && last_io_from == c_id, "C (no ports) right after B's `out`: %lu I/O faults, want 3",
	       io_faults);
	EXPECT(v == 0xa5, "C read %lx once it had the port, want a5", v);
	unmap(L4_IO_FPAGE(0x2f8, 3, 7), 0);        /* B and C lose COM2 */
	cmd(c_id, CMD_OUT, LPT1, 0, 0);            /* C has ports of its own now, and has used them */
	cmd(b_id, CMD_OUT, COM2_SCR, 0x33, 0);
	EXPECT(io_faults == 5 && last_io_from == b_id, "C and B getting their ports: %lu I/O faults, want 5", io_faults);
	io_grant_skip = 1;
	v = cmd(b_id, CMD_OUT_THEN_IN, COM2_SCR, 0x5c, c_id);
	EXPECT(io_faults == 7 && last_io_from == c_id, "C (LPT1) right after B's `out`: %lu I/O faults, want 7",
	       io_faults);
	EXPECT(v == 0x5c, "C read %lx once it had the port, want 5c", v);
	L4_ThreadId_t b2 = fresh();
	EXPECT(start_beside(b2, b_id), "a second thread in B's space");
	v = call_in(b2, COM2_SCR);
	EXPECT(v == 0x5c && io_faults == 7, "B's other thread: read %lx (want 5c), %lu I/O faults (want 7)", v,
	       io_faults);
	tt_kill(b2);
}

TEST_CASE("mem.map_over_existing", "a map onto a page already mapped: the same frame again only gains rights, another frame replaces it")
{
	EXPECT(setup(), "setup");
	EXPECT(give(b_id, P_ADDR, 4, X_ADDR), "root -> B, read-only");
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x1111 && faults == 0, "B cannot read");
	EXPECT(give(b_id, P_ADDR, 6, X_ADDR), "root -> B again, read-write");
	cmd(b_id, CMD_WRITE, 0x6666, 0, 0);
	EXPECT(faults == 0 && *word_at(P_ADDR) == 0x6666, "the second map did not add W (%lu faults)", faults);
	EXPECT(give(b_id, Q_ADDR, 7, X_ADDR), "root -> B, another frame at the same place");
	EXPECT(cmd(b_id, CMD_READ, 0, 0, 0) == 0x2222 && faults == 0, "B still sees the first frame");
	EXPECT(pecan_kdb_check_mappings() == 0, "inconsistent (see the console)");
}

/* Our R block's present pages hold 0x100 + their number; B gets the block mapped with rights. */
static int range_setup(L4_Word_t rights)
{
	if (!setup())
		return 0;
	for (unsigned i = 0; i < R_COUNT; i++)
		*word_at(R_PAGE(r_present[i])) = 0x100 + r_present[i];
	range_faults = 0;
	L4_SetMR(0, L4_TAG_MAKE(CMD_TAKE, 0, 2));
	L4_SetMR(1, R_ADDR | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(R_ADDR, R_LOG2, rights));
	return !L4_IpcFailed(L4_Call(b_id));
}

/* t reads every present page of the R block; how many reads saw the wrong value. */
static unsigned range_read_all(L4_ThreadId_t t)
{
	unsigned wrong = 0;
	for (unsigned i = 0; i < R_COUNT; i++)
		wrong += cmd(t, CMD_READ_AT, R_PAGE(r_present[i]), 0, 0) != 0x100 + r_present[i];
	return wrong;
}

/* One Unmap of n fpages; st[i] gets each one's status bits. */
static void unmap_many(const L4_Word_t *fp, int n, L4_Word_t control, int *st)
{
	for (int i = 0; i < n; i++)
		L4_SetMR(i, fp[i]);
	L4_Unmap(control | (L4_Word_t)(n - 1));
	for (int i = 0; i < n; i++)
		st[i] = (int)(L4_MR(i) & 7);
}

TEST_CASE("mem.range_unmap_mixed", "one Unmap of a 4 MiB block with present and absent pages across two leaf tables revokes each present page below us and keeps ours")
{
	EXPECT(range_setup(7), "setup");
	EXPECT(range_read_all(b_id) == 0 && range_faults == 0, "B did not get the block (%lu faults)",
	       range_faults);
	unmap(L4_FPAGE_MAKE(R_ADDR, R_LOG2, 7), 0);
	EXPECT(range_read_all(b_id) == 0, "B read other values after the unmap");
	EXPECT(range_faults == R_COUNT, "B's reads faulted %lu times, want one per present page (%lu)",
	       range_faults, (L4_Word_t)R_COUNT);
	for (unsigned i = 0; i < R_COUNT; i++)
		EXPECT(*word_at(R_PAGE(r_present[i])) == 0x100 + r_present[i], "we lost page %u", r_present[i]);
	EXPECT(pecan_kdb_check_mappings() == 0, "inconsistent (see the console)");
}

TEST_CASE("mem.range_status", "a range Unmap reports each fpage's own referenced and written bits, per page and per block, and resets them")
{
	int st[4];
	EXPECT(range_setup(7), "setup");
	unmap(L4_FPAGE_MAKE(R_ADDR, R_LOG2, 0), 0);          /* a status query: resets, revokes nothing */
	cmd(b_id, CMD_WRITE_AT, R_PAGE(0), 0x700, 0);
	cmd(b_id, CMD_READ_AT, R_PAGE(3), 0, 0);
	L4_Word_t pages[4] = { L4_FPAGE_MAKE(R_PAGE(0), 12, 0), L4_FPAGE_MAKE(R_PAGE(1), 12, 0),
			       L4_FPAGE_MAKE(R_PAGE(2), 12, 0), L4_FPAGE_MAKE(R_PAGE(3), 12, 0) };
	unmap_many(pages, 4, 0, st);
	EXPECT(st[0] == 6 && st[1] == 0 && st[2] == 0 && st[3] == 4,
	       "per page: %x %x %x %x, want 6 0 0 4", st[0], st[1], st[2], st[3]);
	EXPECT(range_faults == 0, "the status query revoked B's pages (%lu faults)", range_faults);
	cmd(b_id, CMD_READ_AT, R_PAGE(511), 0, 0);
	cmd(b_id, CMD_WRITE_AT, R_PAGE(513), 0x701, 0);
	L4_Word_t halves[2] = { L4_FPAGE_MAKE(R_PAGE(510), 13, 0), L4_FPAGE_MAKE(R_PAGE(512), 13, 0) };
	unmap_many(halves, 2, 0, st);
	EXPECT(st[0] == 4 && st[1] == 6, "two pages each, across the tables' boundary: %x %x, want 4 6",
	       st[0], st[1]);
	cmd(b_id, CMD_WRITE_AT, R_PAGE(1023), 0x702, 0);
	EXPECT(unmap(L4_FPAGE_MAKE(R_ADDR, R_LOG2, 0), 0) == 6, "the whole block after a write");
	EXPECT(unmap(L4_FPAGE_MAKE(R_ADDR, R_LOG2, 0), 0) == 0, "status not reset");
	for (int round = 0; round < 3; round++) {       /* our TLB forgot the reset entries */
		*word_at(R_PAGE(511)) = 0x100 + 511;
		EXPECT(unmap(L4_FPAGE_MAKE(R_ADDR, R_LOG2, 0), 0) == 6, "our own write, round %d", round);
	}
	L4_Word_t two[2] = { L4_FPAGE_MAKE(R_PAGE(0), 12, 0), L4_FPAGE_MAKE(R_PAGE(1023), 12, 0) };
	for (int round = 0; round < 3; round++) {       /* the same with two fpages in one Unmap */
		*word_at(R_PAGE(1023)) = 0x100 + 1023;
		unmap_many(two, 2, 0, st);
		EXPECT(st[0] == 0 && st[1] == 6, "our own write, two fpages, round %d: %x %x", round,
		       st[0], st[1]);
	}
	EXPECT(pecan_kdb_check_mappings() == 0, "inconsistent (see the console)");
}

TEST_CASE("mem.range_two_levels", "root maps the block to B, B to C; revoking W from its upper half and then everything reaches C through B")
{
	EXPECT(range_setup(7), "setup");
	EXPECT(cmd(b_id, CMD_MAP_RANGE_TO, c_id, 7, 0) == 0, "B -> C");
	EXPECT(range_read_all(c_id) == 0 && range_faults == 0, "C reads through two levels (%lu faults)",
	       range_faults);
	unmap(L4_FPAGE_MAKE(R_ADDR + (1UL << 21), 21, 2), 0);   /* W from the upper 2 MiB only */
	cmd(c_id, CMD_WRITE_AT, R_PAGE(1), 0x801, 0);
	EXPECT(range_faults == 0 && *word_at(R_PAGE(1)) == 0x801, "C lost W in the lower half");
	cmd(c_id, CMD_WRITE_AT, R_PAGE(512), 0x802, 0);
	EXPECT(range_faults == 1 && last_range_fault == (R_PAGE(512) | 2), "C's write in the upper half: %lu faults, last %lx",
	       range_faults, last_range_fault);
	EXPECT(cmd(b_id, CMD_READ_AT, R_PAGE(513), 0, 0) == 0x100 + 513 && range_faults == 1,
	       "B lost R in the upper half");
	*word_at(R_PAGE(1)) = 0x101;
	*word_at(R_PAGE(512)) = 0x100 + 512;
	unmap(L4_FPAGE_MAKE(R_ADDR, R_LOG2, 7), 0);
	range_faults = 0;
	EXPECT(range_read_all(c_id) == 0 && range_faults == R_COUNT, "C after the full unmap: %lu faults",
	       range_faults);
	range_faults = 0;
	EXPECT(range_read_all(b_id) == 0 && range_faults == R_COUNT, "B after the full unmap: %lu faults",
	       range_faults);
	EXPECT(pecan_kdb_check_mappings() == 0, "inconsistent (see the console)");
}

TEST_CASE("mem.range_hostile", "fpages of size 0, below a page, beyond the address space and without pages unmap nothing; an unaligned base means its aligned block")
{
	EXPECT(range_setup(7), "setup");
	L4_Word_t nothing[] = {
		L4_FPAGE_MAKE(R_ADDR, 0, 7),                    /* size 0 (2^0 bytes) */
		L4_FPAGE_MAKE(R_ADDR, 11, 7),                   /* below a page */
		L4_FPAGE_MAKE(0, 48, 7), L4_FPAGE_MAKE(0, 63, 7),   /* beyond the user half */
		L4_FPAGE_MAKE(R_ADDR + (1UL << 18), 18, 7),     /* pages 64..127: none present */
		L4_COMPLETE_SPACE,                               /* every page, no right: a status query */
		0,                                               /* the nil fpage */
	};
	int st[7];
	unmap_many(nothing, 7, 0, st);
	EXPECT(st[0] == 0 && st[1] == 0 && st[2] == 0 && st[3] == 0 && st[4] == 0 && st[6] == 0,
	       "status of fpages without pages: %x %x %x %x %x %x", st[0], st[1], st[2], st[3], st[4], st[6]);
	EXPECT(range_read_all(b_id) == 0 && range_faults == 0, "B lost pages (%lu faults)", range_faults);
	unmap((R_PAGE(3) & ~0x3ffUL) | (13UL << 4) | 7, 0);    /* base 3, size 2: pages 2 and 3 */
	EXPECT(cmd(b_id, CMD_READ_AT, R_PAGE(1), 0, 0) == 0x101 && range_faults == 0, "page 1 went too");
	EXPECT(cmd(b_id, CMD_READ_AT, R_PAGE(3), 0, 0) == 0x103 && range_faults == 1 &&
	       last_range_fault == (R_PAGE(3) | 4), "page 3 stayed (%lu faults)", range_faults);
	EXPECT(pecan_kdb_check_mappings() == 0, "inconsistent (see the console)");
}

TEST_CASE("mem.database_consistent", "after all of the above the mapping database passes its full check")
{
	tt_kill(b_id);
	tt_kill(c_id);
	EXPECT(pecan_kdb_check_mappings() == 0, "inconsistent (see the console)");
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
