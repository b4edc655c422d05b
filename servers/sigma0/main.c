// SPDX-License-Identifier: MIT
// sigma0: the first pager.  It owns all physical memory (the kernel maps it into
// sigma0's space idempotently, on demand) and hands it out once per page by the
// sigma0 protocol (abi.md §7.7): explicit requests, and page faults of the
// threads it pages (the root task), phys == virt.  It owns the I/O ports too
// and hands them out the same way, to explicit requests for I/O fpages.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"

#define PAGE        4096UL
#define MAX_PAGES   (1UL << 18)           /* sigma0 manages the first 1 GiB */
#define MAX_OWNERS  1024
#define LABEL_EXT   (((L4_Word_t)-1001 << 4) & 0xffffffffffffUL)
#define IO_PORTS    0x10000               /* the ports I/O fpages cover: all of them */
#define IO_MARKER   2                     /* an I/O fpage's size field */

/* owner[p]: 0 = still sigma0's, else 1 + index into owners[]. */
static unsigned short owner[MAX_PAGES];
static L4_ThreadId_t owners[MAX_OWNERS];
static int nowners, verbose;
/* port_owner[p]: as owner[] for the I/O ports. */
static unsigned short port_owner[IO_PORTS];

enum memtype { MEM_NONE, MEM_CONVENTIONAL, MEM_OTHER };

/* The type the KIP gives physical page pa: the last descriptor covering it wins. */
static enum memtype page_type(L4_Word_t pa)
{
	const L4_Word_t *kip = __L4_KIP;
	L4_Word_t info = kip[KIP_OFF_MEMORY_INFO / 8], n = info & 0xffffffff;
	const L4_Word_t *d = (const L4_Word_t *)((const char *)kip + (info >> 32));
	enum memtype t = MEM_NONE;
	for (L4_Word_t i = 0; i < n; i++, d += 2) {
		L4_Word_t type = d[0] & 0xf, low = d[0] & ~0x3ffUL, high = d[1] | 0x3ff;
		if ((d[0] & 0x200) || pa < low || pa > high)
			continue;                          /* virtual, or elsewhere */
		if (type == 1)
			t = MEM_CONVENTIONAL;
		else if (type == 4 && low == 0 && high == ~0UL)
			t = MEM_NONE;                      /* "all of it is shared": no statement */
		else if (type == 0xe && ((d[0] >> 4) & 0xf) != 2)
			t = MEM_OTHER;                     /* boot information and modules: on request */
		else
			t = type == 2 || type == 0xe ? MEM_NONE : MEM_OTHER;   /* kernel, boot images */
	}
	return t;
}

static int owner_index(L4_ThreadId_t t)
{
	for (int i = 0; i < nowners; i++)
		if (owners[i] == t)
			return i + 1;
	if (nowners == MAX_OWNERS)
		return 0;
	owners[nowners] = t;
	return ++nowners;
}

/*
 * May owner `who` have [base, base + size)?  Every page must be free or
 * already who's (who = -1: free only); conventional memory if asked.
 */
static int available(L4_Word_t base, L4_Word_t size, int who, int conventional_only)
{
	if (base + size > MAX_PAGES * PAGE || base + size < base)
		return 0;
	for (L4_Word_t pa = base; pa < base + size; pa += PAGE) {
		enum memtype m = page_type(pa);
		if (m == MEM_NONE || (conventional_only && m != MEM_CONVENTIONAL))
			return 0;
		if (owner[pa / PAGE] && owner[pa / PAGE] != who)
			return 0;
	}
	return 1;
}

static void take(L4_Word_t base, L4_Word_t size, int who)
{
	for (L4_Word_t pa = base; pa < base + size; pa += PAGE)
		owner[pa / PAGE] = (unsigned short)who;
}

/* Any conventional block of 2^log2 bytes nobody has yet, naturally aligned; ~0 if none. */
static L4_Word_t find_free(L4_Word_t log2)
{
	L4_Word_t size = 1UL << log2;
	for (L4_Word_t base = MAX_PAGES * PAGE - size; base + size > base && base >= size; base -= size)
		if (available(base, size, -1, 1))
			return base;
	return ~0UL;
}

static void reply_map(L4_ThreadId_t to, L4_Word_t base, L4_Word_t log2, L4_Word_t rights)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, (base & ~0x3ffUL) | L4_ITEM_MAP);
	L4_SetMR(2, log2 ? L4_FPAGE_MAKE(base, log2, rights) : 0);
	L4_Reply(to);
}

static void reply_io(L4_ThreadId_t to, L4_Word_t fpage)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, L4_ITEM_MAP);
	L4_SetMR(2, fpage);
	L4_Reply(to);
}

/* Ports [base, base + 2^log2), naturally aligned, each free or already who's: given to who. */
static void io_request(L4_ThreadId_t from, L4_Word_t fp)
{
	L4_Word_t log2 = (fp >> 10) & 0x3f, base = (fp >> 16) & 0xffff, n = 1UL << (log2 & 0xf);
	int who = owner_index(from);
	if (!who || log2 > 16 || (base & (n - 1)) || base + n > IO_PORTS)
		return reply_io(from, 0);
	for (L4_Word_t p = base; p < base + n; p++)
		if (port_owner[p] && port_owner[p] != who)
			return reply_io(from, 0);
	for (L4_Word_t p = base; p < base + n; p++)
		port_owner[p] = (unsigned short)who;
	if (verbose)
		printf("sigma0: %lx gets ports %lx/%lu\n", from, base, n);
	reply_io(from, L4_IO_FPAGE(base, log2, 7));
}

/* A sigma0 RPC: MR1 = the fpage wanted (base all ones: any), MR2 = attributes. */
static void request(L4_ThreadId_t from, L4_Word_t fp)
{
	L4_Word_t log2 = L4_FPAGE_LOG2(fp), base = fp & ~0x3ffUL, rights = L4_FPAGE_RIGHTS(fp);
	if (log2 == IO_MARKER)
		return io_request(from, fp);
	int who = owner_index(from);
	if (log2 < 12 || log2 > 30 || !who)
		return reply_map(from, 0, 0, 0);
	if ((fp >> 10) == (~0UL >> 10))
		base = find_free(log2);
	else
		base &= ~((1UL << log2) - 1);
	if (base == ~0UL || !available(base, 1UL << log2, who, 0))
		return reply_map(from, 0, 0, 0);
	take(base, 1UL << log2, who);
	if (verbose)
		printf("sigma0: %lx gets %lx/%lu\n", from, base, log2);
	reply_map(from, base, log2, rights ? rights : 7);
}

/* A page fault of a thread we page: its conventional page at the fault address. */
static void fault(L4_ThreadId_t from, L4_Word_t addr)
{
	L4_Word_t page = addr & ~(PAGE - 1);
	int who = owner_index(from);
	if (!who || !available(page, PAGE, who, 1)) {
		printf("sigma0: refusing page fault of %lx at %lx\n", from, addr);
		return;                  /* no reply: as Pistachio's sigma0, which enters the debugger */
	}
	take(page, PAGE, who);
	reply_map(from, page, 12, 7);
}

static void dump(void)
{
	L4_Word_t given = 0;
	for (L4_Word_t p = 0; p < MAX_PAGES; p++)
		given += owner[p] != 0;
	printf("sigma0: %lu pages given to %d threads\n", given, nowners);
}

static void dispatch(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag) & ~0xfUL, u = L4_TAG_U(tag);
	if (L4_TAG_T(tag) != 0)
		return;
	if (label == L4_LABEL_SIGMA0 && (u == 2 || u == 3))
		request(from, L4_MR(1));
	else if (label == (L4_LABEL_PAGEFAULT & ~0xfUL) && u == 2)
		fault(from, L4_MR(1));
	else if (label == LABEL_EXT && L4_MR(1) == 1)
		verbose = L4_MR(2) != 0;
	else if (label == LABEL_EXT && L4_MR(1) == 2) {
		dump();
		if (L4_MR(2)) {
			L4_SetMR(0, 0);
			L4_Reply(from);
		}
	}
	/* anything else gets no reply at all (abi.md §7.7) */
}

/* The kernel gave the root task the serial ports at boot (abi.md): they are its. */
static void serial_ports_to_root(void)
{
	int root = owner_index(l4_global_id(L4_USER_BASE + 2, 1));
	for (L4_Word_t p = 0; p < 8; p++)
		port_owner[0x3f8 + p] = port_owner[0x2f8 + p] = (unsigned short)root;
}

int main(void)
{
	printf("sigma0: serving physical memory\n");
	serial_ports_to_root();
	for (;;) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Wait(&from);
		if (!L4_IpcFailed(tag))
			dispatch(from, tag);
	}
}
