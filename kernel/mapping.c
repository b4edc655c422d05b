// SPDX-License-Identifier: MIT
// Recursive address spaces: map and grant items, Unmap, sigma0's idempotent
// memory, all through the mapping database (mdb.c) and the page tables.
#include "mapping.h"
#include "config.h"
#include "preempt.h"
#include "ipc.h"
#include "frame.h"
#include "mdb.h"
#include "printk.h"
#include "sched.h"
#include "check.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/utcb.h>

static struct mdb mdb;
static struct mapping_policy policy;

/*
 * Mapping nodes come from kernel frames of 63 nodes each, slot 0 holding
 * the frame's own bookkeeping.  A node is charged to the space whose
 * mapping it is (frame.h); a frame whose nodes are all free goes back to
 * the pool at once.  A new frame is taken only when every frame in use is
 * full, so the frames held never exceed the peak number of live nodes / 63
 * plus one, however the nodes were freed.
 */
struct node_frame {
	struct node_frame *next, *prev;         /* frames with a free slot */
	struct mdb_node *free;                  /* its free slots, linked through hnext */
	word_t used;
};
_Static_assert(sizeof(struct node_frame) <= sizeof(struct mdb_node), "bookkeeping fits slot 0");
#define NODES_PER_FRAME (PAGE_SIZE / sizeof(struct mdb_node) - 1)

static struct node_frame *partial;

static struct kmem_acct *acct(const void *space) { return &((struct space *)space)->acct; }

static void partial_add(struct node_frame *f)
{
	f->prev = NULL;
	f->next = partial;
	if (partial)
		partial->prev = f;
	partial = f;
}

static void partial_del(struct node_frame *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		partial = f->next;
	if (f->next)
		f->next->prev = f->prev;
}

/* Not zeroed: a node's fields are all set when it is placed (mdb.c), the bookkeeping here. */
static struct node_frame *node_frame_new(void)
{
	paddr_t p = kmem_alloc_raw(NULL, 1);
	if (!p)
		return NULL;
	struct node_frame *f = phys_to_virt(p);
	struct mdb_node *n = phys_to_virt(p);
	f->free = NULL;
	f->used = 0;
	for (word_t i = NODES_PER_FRAME; i >= 1; i--) {
		n[i].hnext = f->free;
		f->free = &n[i];
	}
	partial_add(f);
	return f;
}

/* Inlined into map_page, whose loop runs once per page. */
static inline __attribute__((always_inline)) void *node_take(const void *space)
{
	if (!kmem_charge(acct(space), sizeof(struct mdb_node)))
		return NULL;
	struct node_frame *f = partial ? partial : node_frame_new();
	if (!f) {
		kmem_uncharge(acct(space), sizeof(struct mdb_node));
		return NULL;
	}
	struct mdb_node *n = f->free;
	f->free = n->hnext;
	if (!f->free)
		partial_del(f);
	f->used++;
	return n;
}

static void *node_alloc(void *ctx, const void *space)
{
	(void)ctx;
	return node_take(space);
}

static void node_free(void *ctx, void *node)
{
	(void)ctx;
	struct mdb_node *n = node;
	struct node_frame *f = (struct node_frame *)((word_t)n & PAGE_MASK);
	kmem_uncharge(acct(n->space), sizeof(struct mdb_node));
	if (!f->free)
		partial_add(f);
	n->hnext = f->free;
	f->free = n;
	if (--f->used)
		return;
	partial_del(f);
	frame_free(virt_to_phys_direct(f), 1);
}

/*
 * I/O ports live in the mapping database as pseudo pages above the user
 * half: port p is the page IO_KEY(p), so map, grant and unmap, recursion
 * included, work for ports exactly as for memory.
 */
#define IO_KEY_BASE   0xffff000000000000UL
#define IO_KEY(p)     (IO_KEY_BASE + ((word_t)(p) << 12))
#define IS_IO_KEY(va) ((va) >= IO_KEY_BASE && (va) < IO_KEY(IO_PORTS))

static void io_set(struct space *s, unsigned port, bool allowed)
{
	if (allowed) {
		s->io_deny[port / 8] &= ~(1u << (port % 8));
		s->io_any = true;
		if (port / 8 >= s->io_top)
			s->io_top = ALIGN_UP(port / 8 + 1, 8);
	} else {
		s->io_deny[port / 8] |= 1u << (port % 8);
	}
	arch_io_changed(s, port);
}

/*
 * The TLB batch of the Unmap in progress, between its preemption points
 * (unmap_range); NULL otherwise, so that every other change flushes at once.
 */
static struct arch_tlb_batch *unmap_batch;

/* The mdb changed (space, va) as a side effect: make the page table (or I/O bitmap) agree. */
static unsigned update(void *ctx, const void *space, word_t va, unsigned old, unsigned rights)
{
	(void)ctx;
	(void)old;
	struct space *s = (struct space *)space;
	if (IS_IO_KEY(va)) {
		io_set(s, (va - IO_KEY_BASE) >> 12, rights != 0);
		return 0;
	}
	return arch_protect_batched(&s->acct, s->root, va, rights, unmap_batch);
}

bool mapping_insert_io_root(struct space *s, unsigned port)
{
	if (port >= IO_PORTS || !space_io_bitmap(s) || mdb_insert_root(&mdb, s, IO_KEY(port), (paddr_t)port << 12, MAP_R | MAP_W) != MDB_OK)
		return false;
	io_set(s, port, true);
	return true;
}

/* An I/O fpage: bits 4-9 = 2, log2 of the port count in 10-15, the first port in 16-31. */
static bool io_fpage(word_t fp, unsigned *base, unsigned *count)
{
	if (L4_FPAGE_LOG2(fp) != 2)
		return false;
	unsigned log2 = (fp >> 10) & 0x3f;
	*base = (fp >> 16) & 0xffff;
	*count = log2 <= 16 ? 1u << log2 : 0;
	*base &= ~(*count - 1);
	return *count && *base + *count <= IO_PORTS;
}

/* Grant moves a node to another space: its charge moves with it, if the target can hold it. */
static enum mdb_err grant_page(struct space *from, word_t va, struct space *to, word_t target,
			       unsigned rights)
{
	if (!kmem_charge(&to->acct, sizeof(struct mdb_node)))
		return MDB_ERR_NOMEM;
	enum mdb_err e = mdb_grant(&mdb, from, va, to, target, rights);
	kmem_uncharge(e == MDB_OK ? &from->acct : &to->acct, sizeof(struct mdb_node));
	return e;
}

/* Map or grant ports 1:1; the window must be the whole space or cover them. */
static void io_transfer(struct space *from, word_t fp, struct space *to, word_t window, bool grant)
{
	unsigned base, count, wbase, wcount;
	if (!io_fpage(fp, &base, &count))
		return;
	if (window != L4_COMPLETE_SPACE &&
	    (!io_fpage(window, &wbase, &wcount) || base < wbase || base + count > wbase + wcount))
		return;
	unsigned rights = L4_FPAGE_RIGHTS(fp) ? MAP_R | MAP_W : 0;
	if (rights && !space_io_bitmap(to))
		return;                               /* out of kernel memory: nothing is mapped */
	for (unsigned p = base; rights && p < base + count; p++) {
		paddr_t pa;
		unsigned have;
		if (from->sigma0 && !mdb_lookup(&mdb, from, IO_KEY(p), &pa, &have))
			mapping_insert_io_root(from, p);      /* sigma0 owns every port */
		enum mdb_err e = grant ? grant_page(from, IO_KEY(p), to, IO_KEY(p), rights)
				       : mdb_map(&mdb, from, IO_KEY(p), to, IO_KEY(p), rights);
		if (e != MDB_OK)
			continue;
		if (grant)
			io_set(from, p, false);
		io_set(to, p, true);
	}
}

/*
 * Hash buckets: a power of two, one per 256 to 512 bytes of the pool.  The
 * nodes follow the RAM that servers hold (sigma0's root and a pager's map:
 * two per page of lx's pool), and the default pool has 176 bytes per RAM
 * page plus a sixteenth of the RAM (config.h): about one bucket per RAM
 * page, chains of about two.  Every lookup walks a chain, node by node, each
 * a cache line of its own.
 */
bool mapping_init(const struct mapping_policy *p)
{
	static const struct mdb_ops ops = { node_alloc, node_free, update, NULL };
	word_t pages = 1;
	while (pages * 2 * PAGE_SIZE / sizeof(void *) * 256 <= kmem_total() * PAGE_SIZE)
		pages *= 2;
	paddr_t b = frame_alloc_zeroed(pages);
	if (!b || !mdb_init(&mdb, &ops, phys_to_virt(b), pages * PAGE_SIZE / sizeof(void *)))
		return false;
	policy = *p;
	return true;
}

bool mapping_insert_root(struct space *s, word_t va, paddr_t pa, unsigned rights)
{
	if (mdb_insert_root(&mdb, s, va, pa, rights | MAP_R) != MDB_OK)
		return false;
	if (arch_map(&s->acct, s->root, va, pa, rights | MAP_R))
		return true;
	mdb_unmap(&mdb, s, va, MDB_RWX, true, NULL);
	return false;
}

/* May sigma0 have physical page pa (not the kernel's own memory)? */
static bool sigma0_may_have(paddr_t pa)
{
	for (int i = 0; i < policy.nreserved; i++)
		if (pa >= policy.reserved[i].base && pa < policy.reserved[i].end)
			return false;
	return pa < policy.phys_limit;
}

bool mapping_sigma0_fault(struct space *s, word_t va)
{
	word_t page = va & PAGE_MASK;
	if (!s->sigma0 || !sigma0_may_have(page) || !space_area_free(s, page, PAGE_SIZE))
		return false;
	return mapping_insert_root(s, page, page, MAP_R | MAP_W | MAP_X);
}

/* The memory range of an fpage: the complete space is the user half; false if none. */
static bool fpage_range(word_t fp, word_t *base, word_t *log2)
{
	word_t s = L4_FPAGE_LOG2(fp);
	if (s == 1 && (fp >> 10) == 0) {
		*base = 0;
		*log2 = 47;
		return true;
	}
	*base = L4_FPAGE_BASE(fp);
	*log2 = s;
	return s >= 12 && block_below(*base, s, USER_TOP);
}

/*
 * Move or copy one page's mapping; the target's page table follows the mdb.
 * `clear`: both pages are known to lie outside their spaces' KIP and UTCB
 * areas.  A target page without a page-table entry has no mapping either
 * (every user mapping but the kernel's own pages is in the mdb), so a map
 * there need not look it up.
 */
static void transfer_page(struct space *from, word_t va, struct space *to, word_t target,
			  unsigned rights, bool grant, bool clear)
{
	paddr_t pa, old;
	unsigned have;
	if (!clear && (!space_area_free(to, target, PAGE_SIZE) || !space_area_free(from, va, PAGE_SIZE)))
		return;
	enum mdb_err e;
	if (grant) {
		e = grant_page(from, va, to, target, rights);
		if (e != MDB_OK || !mdb_lookup(&mdb, to, target, &pa, &have))
			return;
		arch_protect(&from->acct, from->root, va, 0);
	} else {
		bool empty = !arch_lookup(to->root, target, &old, &have);
		e = mdb_map_known(&mdb, from, va, to, target, rights, empty, &pa, &have);
		if (e != MDB_OK)
			return;
	}
	if (!arch_map(&to->acct, to->root, target, pa, have))
		mdb_unmap(&mdb, to, target, MDB_RWX, true, NULL);   /* no page table: undo */
}

/*
 * transfer_page's common case: a map (not a grant) between pages outside
 * the KIP and UTCB areas ("clear").  The mdb is asked in two halves around
 * the page-table store, which finds the target empty (then it has no
 * mapping) or leaves the page to transfer_page.
 */
static void map_page(struct space *from, word_t va, struct space *to, word_t target, unsigned rights)
{
	paddr_t pa;
	unsigned got = rights;
	struct mdb_node *src = mdb_source(&mdb, from, va, to, target, &got, &pa), *n;
	if (!src || !(n = node_take(to)))
		return;                      /* as mdb_map_known's errors: nothing is mapped */
	int r = arch_map_new(&to->acct, to->root, target, pa, got);
	if (r == MAP_NEW_OK) {
		mdb_add_child(&mdb, src, n, to, target, got);
		return;
	}
	n->space = to;                       /* whom node_free uncharges */
	node_free(NULL, n);
	if (r == MAP_NEW_EXISTS)
		transfer_page(from, va, to, target, rights, false, true);
}

/* Time to stop a long operation for the interrupts that wait?  Asked every few pages. */
static bool preempt_due(word_t done)
{
	return done % CONFIG_PREEMPT_PAGES == 0 && preempt_wanted();
}

/* The next page of the source to transfer, from *va on; false when there is none below end. */
static bool next_source_page(struct space *from, bool fill, word_t *va, word_t end)
{
	if (!fill)
		return arch_next_mapped(from->root, va, end);
	for (; *va < end; *va += PAGE_SIZE) {       /* sigma0: its memory is there, idempotently */
		if (space_kaddr(from, *va, 0) || mapping_sigma0_fault(from, *va))
			return true;
	}
	return false;
}

bool mapping_fpage(struct space *from, word_t fpage, word_t send_base, struct space *to,
		   word_t window, bool grant, word_t *resume)
{
	word_t sbase, slog, wbase, wlog, dst, len;
	if (L4_FPAGE_LOG2(fpage) == 2) {
		io_transfer(from, fpage, to, window, grant);
		return false;
	}
	if (!fpage_range(fpage, &sbase, &slog) || !fpage_range(window, &wbase, &wlog))
		return false;                    /* nil, I/O or invalid fpages map nothing */
	word_t ssz = 1UL << slog, wsz = 1UL << wlog;
	if (ssz <= wsz) {
		dst = wbase + ((send_base & (wsz - 1)) & ~(ssz - 1));
		len = ssz;
	} else {
		sbase += (send_base & (ssz - 1)) & ~(wsz - 1);
		dst = wbase;
		len = wsz;
	}
	unsigned rights = L4_FPAGE_RIGHTS(fpage);
	if (!rights)
		return false;
	bool fill = from->sigma0 && len <= (1UL << 30);
	bool clear = space_area_free(to, dst, len) && space_area_free(from, sbase, len);
	word_t done = 0;
	for (word_t va = sbase + (resume ? *resume : 0); next_source_page(from, fill, &va, sbase + len);) {
		if (!grant && clear)
			map_page(from, va, to, dst + (va - sbase), rights);
		else
			transfer_page(from, va, to, dst + (va - sbase), rights, grant, clear);
		va += PAGE_SIZE;
		if (va - sbase >= len)
			break;
		if (resume && preempt_due(++done)) {
			*resume = va - sbase;
			return true;
		}
	}
	return false;
}

/* unmap_range's preemption point: the batch is flushed before anything else may run. */
static void unmap_pause(struct arch_tlb_batch *b)
{
	if (!preempt_wanted())
		return;
	unmap_batch = NULL;
	arch_tlb_batch_flush(b);
	arch_irq_window();
	unmap_batch = b;
}

/*
 * Unmap the caller's pages in [base, end): one pass over its page table
 * (empty tables skipped whole), each mapping's node found once by hash,
 * its derived mappings revoked by the mdb, its own entry written here,
 * and the TLB invalidations noted in b (unmap_batch), which the caller
 * flushes.  Per page the same as mdb_unmap; the status is the OR over the
 * range.
 */
static unsigned unmap_range(struct space *s, word_t base, word_t end, unsigned rights, bool flush,
			    struct arch_tlb_batch *b)
{
	unsigned status = 0, left;
	word_t done = 0;
	for (word_t va = base;;) {
		arch_pte_t *pte = arch_next_entry(s->root, &va, end);
		if (!pte)
			break;
		/* the database is consistent between steps, and we hold nothing: stop anywhere */
		enum mdb_err e = mdb_unmap_own(&mdb, s, va, rights, flush, &status,
					       CONFIG_PREEMPT_NODES, &left);
		if (e == MDB_AGAIN) {
			unmap_pause(b);
			continue;
		}
		if (e == MDB_OK)                 /* else the kernel's own page (KIP, UTCB) */
			status |= arch_entry_protect(&s->acct, s->root, pte, va, left, b);
		if (++done % CONFIG_PREEMPT_PAGES == 0)
			unmap_pause(b);
		if (va + PAGE_SIZE >= end)
			break;
		va += PAGE_SIZE;
	}
	return status;
}

/* Unmap one fpage of the caller's; returns the accumulated status bits. */
static unsigned unmap_fpage(struct space *s, word_t fpage, bool flush, struct arch_tlb_batch *b)
{
	word_t base, log2;
	unsigned pbase, count;
	if (io_fpage(fpage, &pbase, &count)) {
		for (unsigned p = pbase; p < pbase + count; p++)
			mdb_unmap(&mdb, s, IO_KEY(p), L4_FPAGE_RIGHTS(fpage) ? MDB_RWX : 0, flush, NULL);
		return 0;
	}
	if (!fpage_range(fpage, &base, &log2))
		return 0;
	return unmap_range(s, base, base + (1UL << log2), L4_FPAGE_RIGHTS(fpage), flush, b);
}

/* Unmap(control): MR0..MRk are fpages; bit 6 flushes the caller's own mappings too. */
void sys_unmap(struct trapframe *tf)
{
	struct tcb *t = current;
	word_t *mr = utcb_mrs(t), k = unmap_control(tf) & 0x3f;
	bool flush = unmap_control(tf) & 0x40;
	struct arch_tlb_batch b;
	frame_to_mrs(tf, mr);
	b.npages = b.nroots = 0;
	unmap_batch = &b;                    /* one TLB flush for all the fpages (lx sends 64 pages) */
	for (word_t i = 0; i <= k; i++)
		mr[i] = (mr[i] & ~7UL) | unmap_fpage(t->space, mr[i], flush, &b);
	unmap_batch = NULL;
	arch_tlb_batch_flush(&b);
	mrs_to_frame(mr, tf);
	sys_set_utcb(tf, t->utcb);
}

/*
 * The space has no thread left, so nothing can map into it: its removal
 * can stop for interrupts anywhere and go on.  (Should the deleting thread
 * itself be deleted meanwhile, the rest of the space stays allocated.)
 */
void mapping_remove_space(struct space *s)
{
	while (!mdb_remove_space_some(&mdb, s, CONFIG_PREEMPT_NODES))
		preempt_point();
	arch_io_forget(s);
}

const char *mapping_check(word_t *nodes)
{
	*nodes = mdb_count(&mdb);
	return mdb_check(&mdb);
}

struct entry_walk { word_t entries; const struct space *live; };

/* One mapping agrees with its space's page table (or I/O bitmap), and the space lives. */
static const char *check_entry(void *ctx, const void *space, word_t va, paddr_t pa, unsigned rights)
{
	const struct space *s = space;
	struct entry_walk *w = ctx;
	paddr_t tpa;
	unsigned have;
	w->entries++;
	if (s != w->live && !check_space_live(s))
		return "a mapping of a space that no longer exists";
	w->live = s;                    /* nodes come in runs of one space: look it up once */
	if (IS_IO_KEY(va)) {
		unsigned port = (va - IO_KEY_BASE) >> 12;
		return s->io_deny[port / 8] & (1u << (port % 8)) ? "an I/O port mapped but denied" : NULL;
	}
	if (va >= USER_TOP || !arch_lookup(s->root, va, &tpa, &have))
		return "a mapping without a page-table entry";
	if (tpa != pa)
		return "a page-table entry maps another frame than its mapping";
	if (have != rights)
		return "a page-table entry's rights differ from its mapping's";
	return NULL;
}

const char *mapping_check_tables(word_t *entries)
{
	struct entry_walk w = { 0, NULL };
	const char *why = mdb_each(&mdb, check_entry, &w);
	*entries = w.entries;
	return why;
}

const char *mapping_check_space(struct space *s, word_t *pages)
{
	paddr_t pa, mpa;
	unsigned have, rights;
	for (word_t va = 0; arch_next_mapped(s->root, &va, USER_TOP); va += PAGE_SIZE) {
		if (!space_area_free(s, va, PAGE_SIZE))
			continue;                    /* the KIP and UTCB pages are the kernel's own */
		if (!arch_lookup(s->root, va, &pa, &have))
			return "a mapped page that a lookup does not find";
		(*pages)++;
		if (!mdb_lookup(&mdb, s, va, &mpa, &rights))
			return "a page-table entry without a mapping";
		if (mpa != pa || rights != have)
			return "a page-table entry that disagrees with its mapping";
	}
	for (unsigned p = 0; s->io_deny && p < IO_PORTS; p++)
		if (!(s->io_deny[p / 8] & (1u << (p % 8))) && !mdb_lookup(&mdb, s, IO_KEY(p), NULL, NULL))
			return "an I/O port allowed without a mapping";
	return NULL;
}
