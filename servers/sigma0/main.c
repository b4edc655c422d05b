// SPDX-License-Identifier: MIT
// sigma0: the first pager.  It owns all physical memory (the kernel maps it into
// sigma0's space idempotently, on demand) and hands it out once per page by the
// sigma0 protocol (abi.md §7.7): explicit requests, and page faults of the
// threads it pages (the root task), phys == virt.  It owns the I/O ports too
// and hands them out the same way, to explicit requests for I/O fpages.
//
// Who is served (docs/architecture.md, "Trust model"): the root task's first
// thread, and the thread numbers the root task admitted (SIGMA0_EXT_ADMIT).
// sigma0 sees only the sender's global ID; the kernel lets only privileged
// spaces create threads, so a thread number the root task named is one the
// root task (or a server it trusts) holds.  Everyone else gets the protocol's
// refusal (a nil fpage) or, for faults and the extension, no reply; the first
// refusal of each thread is logged.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include <l4/sigma0.h>

#define PAGE        4096UL
#define MAX_PAGES   (1UL << 18)           /* sigma0 manages the first 1 GiB */
#define MAX_OWNERS  1024
#define LABEL_EXT   SIGMA0_LABEL_EXT
#define IO_PORTS    0x10000               /* the ports I/O fpages cover: all of them */
#define IO_MARKER   2                     /* an I/O fpage's size field */
/*
 * Ports below 0x100 are the motherboard's: DMA (0x00-0x1f, 0x80-0x9f, 0xc0-0xdf),
 * the PICs (0x20, 0xa0), the PIT (0x40), the keyboard controller and its reset
 * line (0x60, 0x64), CMOS and the NMI mask (0x70), port 0x92's fast reset, the
 * FPU (0xf0) and QEMU's isa-debug-exit (0xf4).  The kernel drives the PIC and the
 * PIT; the rest could reset or stop the machine.  No driver needs them (serial
 * 0x3f8/0x2f8, disk 0x1f0-0x1f7 and 0x3f6), so they are never handed out.
 */
#define PORTS_RESERVED 0x100
#define ROOT_TASK   l4_global_id(L4_USER_BASE + 2, 1)

/* owner[p]: 0 = still sigma0's, else 1 + index into owners[]. */
static unsigned short owner[MAX_PAGES];
static L4_ThreadId_t owners[MAX_OWNERS];
static int nowners, verbose;
/* port_owner[p]: as owner[] for the I/O ports. */
static unsigned short port_owner[IO_PORTS];
/* Thread numbers the root task admitted as clients: [first, last]. */
static struct { L4_Word_t first, last; } admitted[SIGMA0_MAX_RANGES];
static int nadmitted;

/* MEM_NONE: never handed out (reserved, dedicated, firmware, holes, boot images). */
enum memtype { MEM_NONE, MEM_CONVENTIONAL, MEM_BOOT };

/*
 * The type the KIP gives physical address pa: the last descriptor covering it
 * wins, but boot-loader memory counts only where some descriptor calls it
 * RAM (the multiboot information's descriptor is a bounding box that also
 * spans the VGA and BIOS hole).
 */
static enum memtype addr_type(L4_Word_t pa)
{
	const L4_Word_t *kip = __L4_KIP;
	L4_Word_t info = kip[KIP_OFF_MEMORY_INFO / 8], n = info & 0xffffffff;
	const L4_Word_t *d = (const L4_Word_t *)((const char *)kip + (info >> 32));
	enum memtype t = MEM_NONE;
	int ram = 0;
	for (L4_Word_t i = 0; i < n; i++, d += 2) {
		L4_Word_t type = d[0] & 0xf, low = d[0] & ~0x3ffUL, high = d[1] | 0x3ff;
		if ((d[0] & 0x200) || pa < low || pa > high)
			continue;                          /* virtual, or elsewhere */
		ram |= type == 1;
		if (type == 1)
			t = MEM_CONVENTIONAL;
		else if (type == 4 && low == 0 && high == ~0UL)
			t = MEM_NONE;                      /* "all of it is shared": no statement */
		else if (type == 0xe && ((d[0] >> 4) & 0xf) != 2)
			t = MEM_BOOT;                      /* boot information and modules: the root task's */
		else
			t = MEM_NONE;                      /* kernel, boot images, dedicated, firmware */
	}
	return t == MEM_BOOT && !ram ? MEM_NONE : t;
}

/* A page's type: both its ends must agree (a page half RAM, half firmware is neither). */
static enum memtype page_type(L4_Word_t pa)
{
	enum memtype t = addr_type(pa);
	return addr_type(pa + PAGE - 1) == t ? t : MEM_NONE;
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

static int is_root(L4_ThreadId_t t) { return t == ROOT_TASK; }

static int is_kernel_thread(L4_ThreadId_t t)
{
	return !l4_is_local_id(t) && l4_thread_no(t) >= L4_SYSTEM_BASE && l4_thread_no(t) < L4_USER_BASE;
}

/* A client: the root task's first thread or a thread number it admitted. */
static int is_client(L4_ThreadId_t t)
{
	if (is_root(t))
		return 1;
	for (int i = 0; i < nadmitted; i++)
		if (l4_thread_no(t) >= admitted[i].first && l4_thread_no(t) <= admitted[i].last)
			return 1;
	return 0;
}

/* Log what a non-client asked, once per thread (the last few remembered), so a flood stays quiet. */
static void refuse_log(L4_ThreadId_t t, const char *what)
{
	static L4_ThreadId_t seen[16];
	static unsigned next;
	for (unsigned i = 0; i < 16; i++)
		if (seen[i] == t)
			return;
	seen[next++ % 16] = t;
	printf("sigma0: refusing %s of %lx (not a client)\n", what, t);
}

/* The root task names more clients: thread numbers [first, first + count). */
static void admit(L4_ThreadId_t from, L4_Word_t first, L4_Word_t count)
{
	int ok = is_root(from) && nadmitted < SIGMA0_MAX_RANGES && count &&
		 first >= L4_USER_BASE + 3 && first + count > first;
	if (ok)
		admitted[nadmitted++] = (typeof(admitted[0])){ first, first + count - 1 };
	L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
	L4_SetMR(1, (L4_Word_t)ok);
	L4_Reply(from);
}

/*
 * May owner `who` have [base, base + size)?  Every page must be free or
 * already who's (who = -1: free only); conventional memory, or boot-loader
 * memory too if boot_too.
 */
static int available(L4_Word_t base, L4_Word_t size, int who, int boot_too)
{
	if (base + size > MAX_PAGES * PAGE || base + size < base || base < PAGE)
		return 0;                      /* page 0: the real-mode vectors and BIOS data */
	for (L4_Word_t pa = base; pa < base + size; pa += PAGE) {
		enum memtype m = page_type(pa);
		if (m == MEM_NONE || (!boot_too && m != MEM_CONVENTIONAL))
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
		if (available(base, size, -1, 0))
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
	if (!who || log2 > 16 || (base & (n - 1)) || base + n > IO_PORTS || base + n <= base)
		return reply_io(from, 0);
	for (L4_Word_t p = base; p < base + n; p++)
		if (p < PORTS_RESERVED || (port_owner[p] && port_owner[p] != who))
			return reply_io(from, 0);
	for (L4_Word_t p = base; p < base + n; p++)
		port_owner[p] = (unsigned short)who;
	if (verbose)
		printf("sigma0: %lx gets ports %lx/%lu\n", from, base, n);
	reply_io(from, L4_IO_FPAGE(base, log2, 7));
}

/*
 * A sigma0 RPC: MR1 = the fpage wanted (base all ones: any), MR2 = attributes.
 * Conventional memory only; the boot loader's memory other than the root
 * servers' images (boot information, modules) goes to the root task's first
 * thread alone, whose input it is (lx reads its file-system archive so).
 */
static void request(L4_ThreadId_t from, L4_Word_t fp)
{
	L4_Word_t log2 = L4_FPAGE_LOG2(fp), base = fp & ~0x3ffUL, rights = L4_FPAGE_RIGHTS(fp);
	if (!is_client(from)) {
		refuse_log(from, "a request");
		return log2 == IO_MARKER ? reply_io(from, 0) : reply_map(from, 0, 0, 0);
	}
	if (log2 == IO_MARKER)
		return io_request(from, fp);
	int who = owner_index(from);
	if (log2 < 12 || log2 > 30 || !who)
		return reply_map(from, 0, 0, 0);
	if ((fp >> 10) == (~0UL >> 10))
		base = find_free(log2);
	else
		base &= ~((1UL << log2) - 1);
	if (base == ~0UL || !available(base, 1UL << log2, who, is_root(from)))
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
	if (!is_client(from))
		return refuse_log(from, "a page fault");   /* no reply: a forged fault gets nothing */
	int who = owner_index(from);
	if (!who || !available(page, PAGE, who, 0)) {
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

/* The -1001 extension: the root task's first thread and kernel threads only. */
static void extension(L4_ThreadId_t from, L4_Word_t op, L4_Word_t arg, L4_Word_t arg2)
{
	if (!is_root(from) && !is_kernel_thread(from))
		return refuse_log(from, "the -1001 extension");
	if (op == SIGMA0_EXT_VERBOSE)
		verbose = arg != 0;
	else if (op == SIGMA0_EXT_DUMP) {
		dump();
		if (arg) {
			L4_SetMR(0, 0);
			L4_Reply(from);
		}
	} else if (op == SIGMA0_EXT_ADMIT)
		admit(from, arg, arg2);
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
	else if (label == LABEL_EXT && u >= 1)
		extension(from, L4_MR(1), L4_MR(2), L4_MR(3));
	/* anything else gets no reply at all (abi.md §7.7) */
}

/* The kernel gave the root task the serial ports at boot (abi.md): they are its. */
static void serial_ports_to_root(void)
{
	int root = owner_index(ROOT_TASK);
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
