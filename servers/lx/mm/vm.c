// SPDX-License-Identifier: MIT
// Processes' memory.  lx keeps each process's logical page table (a radix
// tree of pool pages) and its areas; the L4 space only ever holds pages
// mapped from these tables on page faults, so lx can always rebuild it, and
// copyin/copyout translate addresses here in software instead of touching
// the process's space (seed 000 §4.2-4.3).
#include "../lx.h"
#include "../../../lib/c/string.h"

#define PTE_P    1UL          /* present */
#define PTE_W    2UL          /* the process may write it now */
#define PTE_COW  4UL          /* shared after fork: copy on the first write */
#define PTE_FLAGS 0xfffUL
#define PAGE_UP(x) (((x) + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1))

#define L4_R 4
#define L4_W 2
#define L4_X 1

/*
 * Commit accounting: writable private and shared areas (stacks aside,
 * which grow page by page) are counted when they are made, and the RAM
 * file system's pages when they are written; a request that would take
 * the count past the pool's pages (less a reserve for lx itself: page
 * tables, copies on write, exit and wait) fails for the one asking, with
 * ENOMEM from mmap and ENOSPC from a write, instead of a page fault that
 * cannot be served later killing someone.
 */
static u64 committed;

static u64 commit_limit(void)
{
	u64 pages = pool_total_bytes() / LX_PAGE_SIZE;
	return pages - pages / 8;
}

static bool charge(struct mm *mm, u64 pages)
{
	if (committed + pages > commit_limit())
		return false;
	committed += pages;
	mm->committed += pages;
	return true;
}

static void uncharge(struct mm *mm, u64 pages)
{
	committed -= pages;
	mm->committed -= pages;
}

/*
 * The RAM file systems together hold at most half the pool, Linux's default
 * size for a tmpfs: a full /tmp leaves the other half to processes (fork,
 * exec and the shell that would remove the file still work).
 */
static u64 file_pages;

bool mem_charge_file_page(void)
{
	if (committed + 1 > commit_limit() || file_pages + 1 > pool_total_bytes() / LX_PAGE_SIZE / 2)
		return false;
	committed++;
	file_pages++;
	return true;
}

void mem_uncharge_file_page(void)
{
	committed--;
	file_pages--;
}

static bool chargeable(u32 prot)
{
	return (prot & VM_WRITE) && !(prot & VM_STACK);
}

/*
 * --- the radix tree: 4 levels of 512 entries, like x86's own ---
 * An interior entry is the child table's address; its low 8 bits (the
 * table is page aligned) say which eighths (64 entries) of the child may be
 * in use, and mm->pgd_sum says it for the top table.  The bits are set
 * when an entry below is made and never cleared, so they over-approximate:
 * walks skip the eighths that were never used, which is most of every
 * table of a small process (a full scan cost fork+exit 60,000 instructions).
 */
#define SUM_BITS 0xffUL

static inline u64 *child_table(u64 e) { return (u64 *)(e & ~PTE_FLAGS); }

static u64 *pte(struct mm *mm, u64 va, bool create)
{
	u64 *table = mm->pgd, *sum = &mm->pgd_sum;
	for (int shift = 39; shift >= 12; shift -= 9) {
		unsigned i = (unsigned)(va >> shift) & 511;
		if (create)
			*sum |= 1UL << (i >> 6);
		if (shift == 12)
			return &table[i];
		u64 *e = &table[i];
		if (!*e) {
			if (!create)
				return NULL;
			void *n = page_alloc();
			if (!n)
				return NULL;
			*e = (u64)n;
		}
		sum = e;
		table = child_table(*e);
	}
	return NULL;
}

static inline void *pte_page(u64 e) { return (void *)(e & ~PTE_FLAGS); }

bool vm_resident(struct mm *mm, u64 va)
{
	u64 *e = pte(mm, va, false);
	return e && pte_page(*e);
}

/* Eight entries at once: most of a sparse table is empty. */
static inline bool empty8(const u64 *e)
{
	return !(e[0] | e[1] | e[2] | e[3] | e[4] | e[5] | e[6] | e[7]);
}

/* Call fn on every present entry in [start, end) of a table whose used eighths are `sum`. */
static void walk_level(u64 *table, u64 sum, int shift, u64 base, u64 start, u64 end,
		       void (*fn)(void *ctx, u64 va, u64 *e), void *ctx)
{
	u64 span = 1UL << shift;
	for (unsigned g = 0; g < 8; g++) {
		u64 gbase = base + ((u64)g << (shift + 6));
		if (!(sum & (1UL << g)) || gbase + (span << 6) <= start || gbase >= end)
			continue;
		for (unsigned i = g * 64; i < g * 64 + 64; i++) {
			u64 va = base + i * span;
			if (!(i & 7) && empty8(&table[i])) {
				i += 7;
				continue;
			}
			if (!table[i] || va + span <= start || va >= end)
				continue;
			if (shift == 12)
				fn(ctx, va, &table[i]);
			else
				walk_level(child_table(table[i]), table[i] & SUM_BITS, shift - 9, va,
					   start, end, fn, ctx);
		}
	}
}

static void walk(struct mm *mm, u64 start, u64 end, void (*fn)(void *, u64, u64 *), void *ctx)
{
	walk_level(mm->pgd, mm->pgd_sum, 39, 0, start, end, fn, ctx);
}

/* Free a table with everything below it: tables, and the pages the leaves hold. */
static void free_level(u64 *table, u64 sum, int shift)
{
	for (unsigned g = 0; g < 8; g++) {
		if (!(sum & (1UL << g)))
			continue;
		for (unsigned i = g * 64; i < g * 64 + 64; i++) {
			if (!(i & 7) && empty8(&table[i])) {
				i += 7;
				continue;
			}
			if (!table[i])
				continue;
			if (shift == 12)
				page_free(pte_page(table[i]));
			else
				free_level(child_table(table[i]), table[i] & SUM_BITS, shift - 9);
		}
	}
	page_free(table);
}

/* copyin/copyout's translation cache (mm.h vm_tlb_entry): whatever takes a page away or
 * write-protects one calls tlb_flush, which makes every entry stale at once. */
struct vm_tlb_entry vm_tlb[VM_TLB_SIZE];
u64 vm_tlb_gen = 1;

static void tlb_flush(void) { vm_tlb_gen++; }

/* --- revoking rights in the L4 spaces, 64 fpages per Unmap --- */

struct revoke {
	unsigned n;
	L4_Word_t fp[64];
};

static void revoke_flush(struct revoke *r)
{
	if (!r->n)
		return;
	for (unsigned i = 0; i < r->n; i++)
		L4_SetMR(i, r->fp[i]);
	L4_Unmap(r->n - 1);
	r->n = 0;
}

/* Take `rights` of page from every space it was mapped to from lx. */
static void revoke_add(struct revoke *r, void *page, unsigned rights)
{
	r->fp[r->n++] = L4_FPAGE_MAKE((u64)page, 12, rights);
	if (r->n == 64)
		revoke_flush(r);
}

/* --- areas --- */

static struct vma *vma_find(struct mm *mm, u64 va)
{
	struct vma *h = mm->vma_hint;
	if (h && va >= h->start && va < h->end)
		return h;
	for (struct vma *v = mm->vmas; v && v->start <= va; v = v->next)
		if (va < v->end)
			return mm->vma_hint = v;
	return NULL;
}

static void vma_free(struct mm *mm, struct vma *v)
{
	if (mm->vma_hint == v)
		mm->vma_hint = NULL;
	if (v->prot & VM_CHARGED)
		uncharge(mm, (v->end - v->start) / LX_PAGE_SIZE);
	if (v->file)
		fs_put(v->file);
	file_put(v->named);
	lx_free(v);
}

static void vma_link(struct mm *mm, struct vma *n)
{
	struct vma **pp = &mm->vmas;
	while (*pp && (*pp)->start < n->start)
		pp = &(*pp)->next;
	n->next = *pp;
	*pp = n;
}

/* Split v at va (inside it); the upper half follows v.  False without memory. */
static bool vma_split(struct vma *v, u64 va)
{
	struct vma *h = lx_malloc(sizeof(*h));
	if (!h)
		return false;
	*h = *v;
	h->start = va;
	h->off += va - v->start;                /* (the vDSO's areas count pages by it too) */
	if (h->file)
		fs_get(h->file);
	if (h->named)
		file_get(h->named);
	v->end = va;
	v->next = h;
	return true;
}

struct unmap_ctx {
	struct mm *mm;
	struct revoke r;
};

static void unmap_one(void *ctx, u64 va, u64 *e)
{
	struct unmap_ctx *c = ctx;
	(void)va;
	revoke_add(&c->r, pte_page(*e), L4_R | L4_W | L4_X);
	page_free(pte_page(*e));
	c->mm->pages--;
	*e = 0;
}

/* Drop pages and areas of [start, end); false without memory for a split. */
static bool unmap_range(struct mm *mm, u64 start, u64 end)
{
	tlb_flush();
	struct unmap_ctx c = { .mm = mm };
	for (struct vma *v = mm->vmas; v; v = v->next) {
		if (v->start < start && v->end > start && !vma_split(v, start))
			return false;
		if (v->start < end && v->end > end && !vma_split(v, end))
			return false;
	}
	walk(mm, start, end, unmap_one, &c);
	revoke_flush(&c.r);
	for (struct vma **pp = &mm->vmas; *pp;) {
		struct vma *v = *pp;
		if (v->start >= start && v->end <= end) {
			*pp = v->next;
			vma_free(mm, v);
		} else {
			pp = &v->next;
		}
	}
	return true;
}

/* --- address spaces --- */

struct mm *mm_new(void)
{
	struct mm *mm = lx_zalloc(sizeof(*mm));
	if (!mm)
		return NULL;
	mm->pgd = page_alloc();
	if (!mm->pgd) {
		lx_free(mm);
		return NULL;
	}
	mm->refs = 1;
	mm->mmap_top = LX_MMAP_TOP;
	return mm;
}

void mm_put(struct mm *mm)
{
	if (!mm || --mm->refs)
		return;
	tlb_flush();
	free_level(mm->pgd, mm->pgd_sum, 39);
	fast_put(mm->fast);
	while (mm->vmas) {
		struct vma *v = mm->vmas;
		mm->vmas = v->next;
		vma_free(mm, v);
	}
	lx_free(mm);
}

void vm_unmap_all(struct mm *mm)
{
	unmap_range(mm, 0, LX_USER_END);
}

struct fork_ctx {
	struct mm *child;
	struct revoke r;
	bool failed;
};

/* Share one page with the child: private writable pages become copy-on-write in both. */
static void fork_one(void *ctx, u64 va, u64 *e)
{
	struct fork_ctx *c = ctx;
	if (c->failed)
		return;
	struct vma *v = vma_find(c->child, va);
	if (!v || (v->prot & VM_WIPEONFORK))
		return;                         /* MADV_DONTFORK, MADV_WIPEONFORK: not the child's */
	u64 *ce = pte(c->child, va, true);
	if (!ce) {
		c->failed = true;
		return;
	}
	bool shared = v->prot & VM_SHARED;
	if ((*e & PTE_W) && !shared) {
		revoke_add(&c->r, pte_page(*e), L4_W);
		*e = (*e & ~PTE_W) | PTE_COW;
	}
	page_get(pte_page(*e));
	*ce = *e;
	c->child->pages++;
}

static bool copy_vmas(struct mm *child, const struct mm *parent)
{
	for (const struct vma *v = parent->vmas; v; v = v->next) {
		if (v->prot & VM_DONTCOPY)
			continue;
		struct vma *n = lx_malloc(sizeof(*n));
		if (!n)
			return false;
		if ((v->prot & VM_CHARGED) && !charge(child, (v->end - v->start) / LX_PAGE_SIZE)) {
			lx_free(n);
			return false;
		}
		*n = *v;
		n->next = NULL;
		n->prot &= ~VM_LOCKED;              /* memory locks are not inherited (mlock(2)) */
		if (n->file)
			fs_get(n->file);
		if (n->named)
			file_get(n->named);
		vma_link(child, n);
	}
	return true;
}

struct mm *mm_fork(struct mm *parent)
{
	tlb_flush();                                /* the parent's pages become read-only */
	struct mm *child = mm_new();
	if (!child)
		return NULL;
	child->brk_start = parent->brk_start;
	child->brk = parent->brk;
	child->mmap_top = parent->mmap_top;
	child->arg_start = parent->arg_start, child->arg_end = parent->arg_end;
	child->env_start = parent->env_start, child->env_end = parent->env_end;
	child->start_stack = parent->start_stack;
	child->fast = fast_get(parent->fast);       /* the same image: same text, same slots */
	struct fork_ctx c = { .child = child };
	if (copy_vmas(child, parent))
		walk(parent, 0, LX_USER_END, fork_one, &c);
	else
		c.failed = true;
	revoke_flush(&c.r);
	if (c.failed) {
		mm_put(child);
		return NULL;
	}
	return child;
}

/* --- faults --- */

/* Where v's file bytes end (virtual): an mmap follows the file's size as it
 * changes, as on Linux; an ELF segment ends where its file part does. */
static u64 area_file_end(const struct vma *v)
{
	if (!(v->prot & VM_FILEBUS))
		return v->file_end;
	u64 size = v->file->size;
	return size > v->off ? v->start + (size - v->off) : v->start;
}

/* A page of an mmap wholly past its file's end: SIGBUS (mmap(2)). */
static bool past_eof(const struct vma *v, u64 page)
{
	return (v->prot & VM_FILEBUS) && v->off + (page - v->start) >= PAGE_UP(v->file->size);
}

/*
 * The page cache for private file mappings: a whole page of a file whose
 * file system keeps its data in pages (ramfs, tmpfs) is mapped as it is,
 * read-only, with a reference, instead of copied; the first write copies it
 * (cow_break, as after fork), so until then the mapping sees the file's
 * writes, as Linux's private mappings see its page cache.  NULL: copy.
 */
static void *file_page_shared(struct vma *v, u64 va)
{
	if (!v->file || va + LX_PAGE_SIZE > area_file_end(v) || !fs_can_share(v->file))
		return NULL;
	void *pg = fs_page(v->file, v->off + (va - v->start), false);
	if (pg)
		page_get(pg);
	return pg;
}

/* Is the page that e maps va's page of v's file itself (file_page_shared)? */
static bool is_file_page(struct vma *v, u64 va, u64 e)
{
	return v->file && !(v->prot & VM_SHARED) && fs_can_share(v->file) &&
	       fs_page(v->file, v->off + (va - v->start), false) == (void *)(e & ~PTE_FLAGS);
}

/* A new page for va in v: file bytes where the area has them, zeros elsewhere. */
static void *fill_page(struct vma *v, u64 va)
{
	void *pg = page_alloc();
	u64 file_end = v->file ? area_file_end(v) : 0;
	if (!pg || !v->file || va >= file_end)
		return pg;
	u64 n = file_end - va < LX_PAGE_SIZE ? file_end - va : LX_PAGE_SIZE;
	long got = fs_read(v->file, v->off + (va - v->start), pg, n);
	(void)got;                           /* past the file's end the page stays zero */
	return pg;
}

/*
 * The file's own page for va in a shared file mapping, with a reference for
 * the mapping: 0, or -EIO past the file's end or without room for the page
 * (SIGBUS, as Linux).
 * Stores reach the file; a later truncation leaves this page to the mapping.
 */
static int shared_file_page(struct vma *v, u64 va, void **out)
{
	u64 off = v->off + (va - v->start);
	if (off >= v->file->size)
		return -LX_EIO;
	void *pg = fs_page(v->file, off, true);
	if (!pg)
		return -LX_EIO;         /* no page for the file (the RAM fs is full): SIGBUS, as Linux */
	page_get(pg);
	if (v->prot & VM_WRITE)
		fs_page_dirty(v->file, off);    /* mapped writable: a page cache writes it back */
	*out = pg;
	return 0;
}

/*
 * The vDSO's or its data page's page for va (vdso/vdso.c): lx's own, shared
 * read-only; a write (after mprotect) gets the process a copy, as Linux's
 * private mapping does.  0 or -errno.
 */
static int special_page(struct vma *v, u64 va, u32 access, void **out, u64 *bits)
{
	void *pg = vdso_page(v->prot & VM_VVAR, v->off + (va - v->start));
	*bits = 0;
	*out = pg;
	if (!pg)
		return -LX_EIO;                 /* past the image (a grown mremap): SIGBUS, as Linux */
	if (!(access & VM_WRITE))
		return 0;
	if ((*out = page_alloc_nozero()))
		memcpy(*out, pg, LX_PAGE_SIZE);
	page_free(pg);
	*bits = PTE_W;
	return *out ? 0 : -LX_ENOMEM;
}

/* Give the process its own copy of a shared page; false without memory. */
static bool cow_break(u64 *e, bool revoke_old)
{
	tlb_flush();
	void *old = pte_page(*e);
	if (page_refcount(old) == 1) {
		*e = (*e & ~PTE_COW) | PTE_W;
		return true;
	}
	void *pg = page_alloc_nozero();
	if (!pg)
		return false;
	memcpy(pg, old, LX_PAGE_SIZE);
	if (revoke_old) {
		/* the space may hold the old page read-only: take it (its sharers fault it back) */
		struct revoke r = { 0 };
		revoke_add(&r, old, L4_R | L4_W | L4_X);
		revoke_flush(&r);
	}
	page_free(old);
	*e = (u64)pg | PTE_P | PTE_W;
	return true;
}

/*
 * Make va present in lx's table for an access (VM_READ/VM_WRITE/VM_EXEC).
 * `hw`: a hardware fault, whose answer maps the page over the old one, so
 * a copy need not revoke the old page.  Returns 0 or -errno (EFAULT: no
 * such access; ENOMEM).
 */
static int make_present(struct mm *mm, u64 va, u32 access, bool hw, u64 **out,
			struct vma **vout)
{
	struct vma *v = vma_find(mm, va);
	if (!v || (access & ~v->prot & (VM_READ | VM_WRITE | VM_EXEC)))
		return -LX_EFAULT;
	u64 *e = pte(mm, va, true);
	if (!e)
		return -LX_ENOMEM;
	bool shared = v->prot & VM_SHARED;
	if (!(*e & PTE_P)) {
		if (past_eof(v, va & ~(LX_PAGE_SIZE - 1)))
			return -LX_EIO;
		void *pg = NULL;
		u64 bits = (v->prot & VM_WRITE) ? PTE_W : 0;
		if (shared && v->file) {
			int err = shared_file_page(v, va & ~(LX_PAGE_SIZE - 1), &pg);
			if (err)
				return err;
		} else if (v->prot & (VM_VDSO | VM_VVAR)) {
			int err = special_page(v, va & ~(LX_PAGE_SIZE - 1), access, &pg, &bits);
			if (err)
				return err;
		} else if (!(access & VM_WRITE) &&
			   (pg = file_page_shared(v, va & ~(LX_PAGE_SIZE - 1)))) {
			bits = bits ? PTE_COW : 0;      /* the file's page: a write copies it */
		} else if (!(pg = fill_page(v, va & ~(LX_PAGE_SIZE - 1)))) {
			return -LX_ENOMEM;
		}
		*e = (u64)pg | PTE_P | bits;
		mm->pages++;
	} else if ((access & VM_WRITE) && !(*e & PTE_W)) {
		if (shared && v->file)
			fs_page_dirty(v->file, v->off + ((va & ~(LX_PAGE_SIZE - 1)) - v->start));
		if (shared)
			*e = (*e & ~PTE_COW) | PTE_W;   /* write access back (mprotect): never a copy */
		else if (!cow_break(e, !hw))
			return -LX_ENOMEM;
	}
	*out = e;
	if (vout)
		*vout = v;
	return 0;
}

int vm_fault(struct proc *p, u64 addr, u32 access, u64 *page_out, u32 *rights_out)
{
	u64 *e;
	struct vma *v;
	int err = make_present(p->mm, addr, access, true, &e, &v);
	if (err)
		return err;
	*page_out = (u64)pte_page(*e);
	*rights_out = L4_R | ((*e & PTE_W) ? L4_W : 0) | ((v->prot & VM_EXEC) ? L4_X : 0);
	return 0;
}

/*
 * Fault-around (Linux's filemap_map_pages): after a read fault in a shared
 * file mapping (not executable), the file's pages that already exist in the
 * aligned block of FAULT_AROUND pages around addr and are not yet present
 * are made present too, so that one fault maps them all.  Fills out[] (at
 * most max); returns how many.  The file's pages only: no holes are filled.
 * Not in private mappings (program text and data): a page costs the kernel
 * about as much to map and unmap as a fault, and programs touch their
 * images sparsely (a shell's fork+exec loop ran 23% longer with it).
 */
int vm_fault_around(struct proc *p, u64 addr, struct fault_map *out, int max)
{
	struct mm *mm = p->mm;
	struct vma *v = vma_find(mm, addr);
	u32 kind = VM_READ | VM_EXEC | VM_SHARED;
	if (!v || !v->file || !fs_can_share(v->file) || (v->prot & kind) != (VM_READ | VM_SHARED))
		return 0;
	u64 block = FAULT_AROUND * LX_PAGE_SIZE, start = addr & ~(block - 1), end = start + block;
	start = start < v->start ? v->start : start;
	u64 file_end = PAGE_UP(area_file_end(v));
	end = end > file_end ? file_end : end;
	end = end > v->end ? v->end : end;
	/* the block lies in one leaf table and one of its summary groups (pte) */
	u64 *leaf = start < end ? pte(mm, start, true) : NULL;
	if (!leaf)
		return 0;
	u64 bits = (v->prot & VM_WRITE) ? PTE_W : 0;   /* as make_present's shared pages */
	u32 rights = L4_R | ((bits & PTE_W) ? L4_W : 0) | ((v->prot & VM_EXEC) ? L4_X : 0);
	int n = 0;
	for (u64 va = start; va < end && n < max; va += LX_PAGE_SIZE, leaf++) {
		void *pg;
		if ((*leaf & PTE_P) || !(pg = fs_page(v->file, v->off + (va - v->start), false)))
			continue;               /* (the faulting page is present already) */
		page_get(pg);
		if (bits & PTE_W)
			fs_page_dirty(v->file, v->off + (va - v->start));
		*leaf = (u64)pg | PTE_P | bits;
		mm->pages++;
		out[n++] = (struct fault_map){ .va = va, .page = (u64)pg, .rights = rights };
	}
	return n;
}

uint8_t *vm_kaddr(struct mm *mm, u64 va)
{
	u64 *e;
	if (va >= LX_USER_END || make_present(mm, va, VM_READ, false, &e, NULL))
		return NULL;
	return (uint8_t *)pte_page(*e) + (va & (LX_PAGE_SIZE - 1));
}

/*
 * lx's address of va for rewriting the process's text in place (l4/fast.c):
 * a page that is its file's own (file_page_shared) is first replaced by a
 * copy of the process's, and taken from every space that maps it (they
 * fault it back), so that the file and other programs never see the change.
 */
uint8_t *vm_text_kaddr(struct mm *mm, u64 va)
{
	u64 *e;
	struct vma *v;
	if (va >= LX_USER_END || make_present(mm, va, VM_READ, false, &e, &v))
		return NULL;
	void *old = pte_page(*e);
	u64 page = va & ~(LX_PAGE_SIZE - 1);
	if (is_file_page(v, page, *e)) {
		void *pg = page_alloc_nozero();
		if (!pg)
			return NULL;
		tlb_flush();
		memcpy(pg, old, LX_PAGE_SIZE);
		struct revoke r = { 0 };
		revoke_add(&r, old, L4_R | L4_W | L4_X);
		revoke_flush(&r);
		page_free(old);
		*e = (u64)pg | (*e & PTE_FLAGS);
		old = pg;
	}
	return (uint8_t *)old + (va & (LX_PAGE_SIZE - 1));
}

bool vm_mapped(struct mm *mm, u64 va)
{
	return vma_find(mm, va) != NULL;
}

/*
 * What a shared futex at va is: in a shared file mapping (shared anonymous
 * memory and System V segments are unnamed files) the file and the offset,
 * whoever maps it where; elsewhere the memory and the address, as Linux's
 * get_futex_key.  False if va is in no area.
 */
bool vm_futex_key(struct mm *mm, u64 va, const void **obj, u64 *off)
{
	struct vma *v = vma_find(mm, va);
	if (!v)
		return false;
	bool shared = (v->prot & VM_SHARED) && v->file;
	*obj = shared ? (const void *)v->file : (const void *)mm;
	*off = shared ? v->off + (va - v->start) : va;
	return true;
}

bool vm_is_text(struct mm *mm, u64 va)
{
	struct vma *v = vma_find(mm, va);
	return v && v->file && (v->prot & VM_EXEC) && !(v->prot & (VM_WRITE | VM_SHARED));
}

/* Does [start, end) touch the fast area, which the process may not change? */
static bool fast_clash(struct mm *mm, u64 start, u64 end)
{
	for (struct vma *v = mm->vmas; v && v->start < end; v = v->next)
		if ((v->prot & VM_FAST) && v->end > start)
			return true;
	return false;
}

/* --- copyin/copyout: the process's memory through lx's table --- */

static __attribute__((noinline)) char *user_page_miss(struct mm *mm, u64 uaddr, bool write);

/* lx's address of the page at uaddr for reading or writing; NULL: no such access. */
static inline char *user_page(struct mm *mm, u64 uaddr, bool write)
{
	const struct vm_tlb_entry *e = user_page_cached(mm, uaddr & ~(LX_PAGE_SIZE - 1), write);
	return e ? e->k : user_page_miss(mm, uaddr, write);
}

static char *user_page_miss(struct mm *mm, u64 uaddr, bool write)
{
	u64 page = uaddr & ~(LX_PAGE_SIZE - 1);
	struct vm_tlb_entry *t = &vm_tlb[(page >> 12) % VM_TLB_SIZE];
	u64 *e;
	if (uaddr >= LX_USER_END ||
	    make_present(mm, uaddr, write ? VM_WRITE : VM_READ, false, &e, NULL))
		return NULL;
	*t = (struct vm_tlb_entry){ .mm = mm, .page = page, .gen = vm_tlb_gen, .k = pte_page(*e),
				 .w = (*e & PTE_W) != 0 };
	return t->k;
}

/* copy_user's copies that cross a page boundary (out of line: the common case saves no registers) */
static __attribute__((noinline)) bool copy_user_pages(struct proc *p, u64 uaddr, void *kbuf,
						      size_t n, bool to_user)
{
	while (n) {
		char *pg = user_page(p->mm, uaddr, to_user);
		if (!pg)
			return false;
		u64 off = uaddr & (LX_PAGE_SIZE - 1);
		size_t chunk = LX_PAGE_SIZE - off < n ? LX_PAGE_SIZE - off : n;
		pg += off;
		if (to_user)
			memcpy(pg, kbuf, chunk);
		else
			memcpy(kbuf, pg, chunk);
		uaddr += chunk;
		kbuf = (char *)kbuf + chunk;
		n -= chunk;
	}
	return true;
}

static inline bool copy_user(struct proc *p, u64 uaddr, void *kbuf, size_t n, bool to_user)
{
	if (n && (uaddr & (LX_PAGE_SIZE - 1)) + n <= LX_PAGE_SIZE) {   /* within a page: most */
		char *pg = user_page(p->mm, uaddr, to_user);
		if (!pg)
			return false;
		pg += uaddr & (LX_PAGE_SIZE - 1);
		memcpy(to_user ? pg : kbuf, to_user ? kbuf : pg, n);
		return true;
	}
	return copy_user_pages(p, uaddr, kbuf, n, to_user);
}

bool copyin(struct proc *p, void *dst, u64 src, size_t n)
{
	return copy_user(p, src, dst, n, false);
}

bool copyout(struct proc *p, u64 dst, const void *src, size_t n)
{
	return copy_user(p, dst, (void *)src, n, true);
}

bool copyin_u64(struct proc *p, u64 *dst, u64 src)
{
	if ((src & (LX_PAGE_SIZE - 1)) > LX_PAGE_SIZE - 8)
		return copy_user_pages(p, src, dst, 8, false);
	const char *pg = user_page(p->mm, src, false);
	if (!pg)
		return false;
	__builtin_memcpy(dst, pg + (src & (LX_PAGE_SIZE - 1)), 8);   /* (a load, no call) */
	return true;
}

bool copyout_u64(struct proc *p, u64 dst, u64 v)
{
	if ((dst & (LX_PAGE_SIZE - 1)) > LX_PAGE_SIZE - 8)
		return copy_user_pages(p, dst, &v, 8, true);
	char *pg = user_page(p->mm, dst, true);
	if (!pg)
		return false;
	__builtin_memcpy(pg + (dst & (LX_PAGE_SIZE - 1)), &v, 8);
	return true;
}

long copyin_str(struct proc *p, char *dst, u64 src, size_t max)
{
	for (size_t i = 0; i < max;) {
		const char *pg = user_page(p->mm, src + i, false);
		if (!pg)
			return -LX_EFAULT;
		u64 off = (src + i) & (LX_PAGE_SIZE - 1);
		for (size_t n = LX_PAGE_SIZE - off; n && i < max; n--, i++)
			if (!(dst[i] = pg[off++]))
				return (long)i;
	}
	return -LX_ENAMETOOLONG;
}

/* --- mmap, munmap, mprotect, brk --- */


static bool range_free(struct mm *mm, u64 start, u64 end)
{
	for (struct vma *v = mm->vmas; v; v = v->next)
		if (v->start < end && v->end > start)
			return false;
	return true;
}

void vm_set_name(struct mm *mm, u64 start, u64 end, struct file *f)
{
	for (struct vma *v = mm->vmas; f && v && v->start < end; v = v->next)
		if (v->end > start && v->file && v->file == f->ip && !v->named) {
			file_get(f);
			v->named = f;
		}
}

/* The highest free range of len bytes below mmap_top; 0 if none. */
static u64 find_free(struct mm *mm, u64 len)
{
	u64 top = mm->mmap_top;
	while (top >= len + 0x10000) {
		u64 start = top - len;
		struct vma *clash = NULL;
		for (struct vma *v = mm->vmas; v; v = v->next)
			if (v->start < top && v->end > start)
				clash = v;          /* the highest one that overlaps */
		if (!clash)
			return start;
		top = clash->start;
	}
	return 0;
}

#define LX_MAP_SHARED    0x01
#define LX_MAP_PRIVATE   0x02
#define LX_MAP_FIXED     0x10
#define LX_MAP_ANONYMOUS 0x20
#define LX_MAP_FIXED_NOREPLACE 0x100000
#define LX_MAP_NORESERVE 0x4000
#define LX_PROT_READ  1
#define LX_PROT_WRITE 2
#define LX_PROT_EXEC  4

static u32 prot_bits(u32 prot)
{
	return ((prot & LX_PROT_READ) ? VM_READ : 0) | ((prot & LX_PROT_WRITE) ? VM_WRITE : 0) |
	       ((prot & LX_PROT_EXEC) ? VM_EXEC | VM_READ : 0);
}

long vm_mmap(struct proc *p, u64 addr, u64 len, u32 prot, u32 flags, struct inode *file, u64 off,
	     bool file_writable)
{
	struct mm *mm = p->mm;
	if (!len || (addr & (LX_PAGE_SIZE - 1)) || (off & (LX_PAGE_SIZE - 1)))
		return -LX_EINVAL;
	if ((flags & LX_MAP_SHARED) && file && !fs_can_share(file))
		return -LX_ENODEV;      /* its file system has no pages to share (ext2) */
	len = PAGE_UP(len);
	if (len > LX_USER_END)
		return -LX_ENOMEM;
	bool fixed = flags & (LX_MAP_FIXED | LX_MAP_FIXED_NOREPLACE);
	if (fixed) {
		if (addr + len > LX_USER_END || addr + len < addr || addr < LX_PAGE_SIZE)
			return -LX_ENOMEM;
		if ((flags & LX_MAP_FIXED_NOREPLACE) && !range_free(mm, addr, addr + len))
			return -LX_EEXIST;
		if (fast_clash(mm, addr, addr + len))
			return -LX_EINVAL;
		if (!unmap_range(mm, addr, addr + len))
			return -LX_ENOMEM;
	} else if (!(addr && addr + len <= LX_MMAP_TOP && addr + len > addr &&
		     range_free(mm, addr, addr + len))) {
		addr = find_free(mm, len);
		if (!addr)
			return -LX_ENOMEM;
	}
	bool shared = flags & LX_MAP_SHARED;
	u32 vprot = prot_bits(prot) | (shared ? VM_SHARED : 0) |
		    (shared && file && !file_writable ? VM_NOWRITE : 0);
	/* a shared file's pages belong to the file, not to this area; MAP_NORESERVE
	 * promises nothing, as on Linux: a fault past the pool meets the OOM killer */
	bool c = chargeable(vprot) && !(shared && file) && !(flags & LX_MAP_NORESERVE);
	if (c && !charge(mm, len / LX_PAGE_SIZE))
		return -LX_ENOMEM;
	struct vma *v = lx_zalloc(sizeof(*v));
	if (!v) {
		if (c)
			uncharge(mm, len / LX_PAGE_SIZE);
		return -LX_ENOMEM;
	}
	v->start = addr;
	v->end = addr + len;
	v->prot = vprot | (c ? VM_CHARGED : 0);
	if (file) {
		fs_get(file);
		v->file = file;
		v->off = off;
		v->file_end = file->size > off ? addr + (file->size - off) : addr;
		if (LX_S_ISREG(file->mode))
			v->prot |= VM_FILEBUS;
	}
	vma_link(mm, v);
	return (long)addr;
}

long vm_munmap(struct proc *p, u64 addr, u64 len)
{
	if ((addr & (LX_PAGE_SIZE - 1)) || !len || addr + len < addr)
		return -LX_EINVAL;
	u64 end = PAGE_UP(addr + len);
	if (end > LX_USER_END)
		end = LX_USER_END;
	if (fast_clash(p->mm, addr, end))
		return -LX_EINVAL;
	return unmap_range(p->mm, addr, end) ? 0 : -LX_ENOMEM;
}

/* madvise(MADV_DONTNEED): drop [start, end)'s pages, keep its areas; a later touch
 * faults in a fresh page (zero, or the file's) as after Linux's zap. */
long vm_discard(struct proc *p, u64 start, u64 end)
{
	if (fast_clash(p->mm, start, end))
		return -LX_EINVAL;
	tlb_flush();
	struct unmap_ctx c = { .mm = p->mm };
	walk(p->mm, start, end, unmap_one, &c);
	revoke_flush(&c.r);
	return 0;
}

/*
 * Set `set` and clear `clear` in the flags of the areas in [start, end), split
 * at its ends (madvise's and mlock's marks); holes are skipped.  0, or -ENOMEM
 * without memory for a split.
 */
long vm_set_flags(struct mm *mm, u64 start, u64 end, u32 set, u32 clear)
{
	if (start >= end)
		return 0;
	for (struct vma *v = mm->vmas; v && v->start < end; v = v->next) {
		if (v->end <= start)
			continue;
		if (v->start < start && !vma_split(v, start))
			return -LX_ENOMEM;
		if (v->start < start)
			continue;                       /* the upper half comes next */
		if (v->end > end && !vma_split(v, end))
			return -LX_ENOMEM;
		v->prot = (v->prot & ~clear) | set;
	}
	return 0;
}

/* MADV_POPULATE_READ/WRITE: [start, end)'s pages made present for the access (the
 * areas' whole range is mapped).  0 or -errno: EINVAL for an access the area does
 * not allow, EFAULT past a file's end (SIGBUS), ENOMEM, as Linux's. */
long vm_populate(struct proc *p, u64 start, u64 end, bool write)
{
	for (u64 va = start; va < end; va += LX_PAGE_SIZE) {
		u64 *e;
		int r = make_present(p->mm, va, write ? VM_WRITE : VM_READ, false, &e, NULL);
		if (r)
			return r == -LX_EFAULT ? -LX_EINVAL : r == -LX_EIO ? -LX_EFAULT : r;
	}
	return 0;
}

struct protect_ctx {
	struct revoke r;
};

static void protect_one(void *ctx, u64 va, u64 *e)
{
	struct protect_ctx *c = ctx;
	(void)va;
	if (*e & PTE_W) {
		revoke_add(&c->r, pte_page(*e), L4_W);
		*e &= ~PTE_W;
		if (page_refcount(pte_page(*e)) > 1)
			*e |= PTE_COW;
	}
}

long vm_mprotect(struct proc *p, u64 addr, u64 len, u32 prot)
{
	struct mm *mm = p->mm;
	if (addr & (LX_PAGE_SIZE - 1))
		return -LX_EINVAL;
	u64 end = PAGE_UP(addr + len);
	if (end < addr || end > LX_USER_END)
		return -LX_ENOMEM;
	if (fast_clash(mm, addr, end))
		return -LX_EINVAL;
	tlb_flush();
	for (u64 a = addr; a < end;) {                  /* every byte must be mapped */
		struct vma *v = vma_find(mm, a);
		if (!v)
			return -LX_ENOMEM;
		a = v->end;
	}
	u32 bits = prot_bits(prot);
	for (struct vma *v = vma_find(mm, addr); v && v->start < end; v = v->next)
		if ((bits & VM_WRITE) && (v->prot & VM_NOWRITE))
			return -LX_EACCES;
	for (struct vma *v = mm->vmas; v; v = v->next) {
		if (v->start < addr && v->end > addr && !vma_split(v, addr))
			return -LX_ENOMEM;
		if (v->start < end && v->end > end && !vma_split(v, end))
			return -LX_ENOMEM;
	}
	for (struct vma *v = mm->vmas; v; v = v->next)
		if (v->start >= addr && v->end <= end)
			v->prot = (v->prot & ~(VM_READ | VM_WRITE | VM_EXEC)) | bits;
	if (!(bits & VM_WRITE)) {
		struct protect_ctx c = { 0 };
		walk(mm, addr, end, protect_one, &c);
		revoke_flush(&c.r);
	}
	return 0;
}

long vm_brk(struct proc *p, u64 brk)
{
	struct mm *mm = p->mm;
	if (brk < mm->brk_start || brk > mm->brk_start + (1UL << 30))
		return (long)mm->brk;
	u64 old_end = PAGE_UP(mm->brk), new_end = PAGE_UP(brk);
	if (new_end > old_end) {
		if (!range_free(mm, old_end, new_end))
			return (long)mm->brk;
		struct vma *h = old_end > mm->brk_start ? vma_find(mm, old_end - 1) : NULL;
		if (!charge(mm, (new_end - old_end) / LX_PAGE_SIZE))
			return (long)mm->brk;
		if (h && (h->prot & VM_HEAP) && h->end == old_end) {
			h->end = new_end;
		} else {
			struct vma *v = lx_zalloc(sizeof(*v));
			if (!v) {
				uncharge(mm, (new_end - old_end) / LX_PAGE_SIZE);
				return (long)mm->brk;
			}
			*v = (struct vma){ .start = old_end, .end = new_end,
					   .prot = VM_READ | VM_WRITE | VM_HEAP | VM_CHARGED };
			vma_link(mm, v);
		}
	} else if (new_end < old_end) {
		if (!unmap_range(mm, new_end, old_end))
			return (long)mm->brk;
	}
	mm->brk = brk;
	return (long)brk;
}

/* --- mremap --- */

#define MREMAP_MAYMOVE   1
#define MREMAP_FIXED     2
#define MREMAP_DONTUNMAP 4
#define HUGE_SPAN (1UL << 21)                   /* what one leaf table of the radix covers */

struct move_ctx {
	struct mm *mm;
	u64 delta;
	struct revoke r;
};

/* A page moves to va + delta: the same page (and its sharing), the old mapping revoked. */
static void move_one(void *ctx, u64 va, u64 *e)
{
	struct move_ctx *c = ctx;
	u64 *ne = pte(c->mm, va + c->delta, true);     /* made beforehand: never fails */
	revoke_add(&c->r, pte_page(*e), L4_R | L4_W | L4_X);
	*ne = *e;
	*e = 0;
}

/* The tables for [start, end), so that moving pages there needs no memory. */
static bool tables_for(struct mm *mm, u64 start, u64 end)
{
	for (u64 a = start; a < end; a = (a & ~(HUGE_SPAN - 1)) + HUGE_SPAN)
		if (!pte(mm, a, true))
			return false;
	return true;
}

/* [start, end) inside v becomes an area of its own; NULL without memory. */
static struct vma *isolate(struct vma *v, u64 start, u64 end)
{
	if (v->start < start) {
		if (!vma_split(v, start))
			return NULL;
		v = v->next;
	}
	if (v->end > end && !vma_split(v, end))
		return NULL;
	return v;
}

/* The area n (a copy of v's kind) at to, new_len long, mapping what v maps from old on. */
static struct vma *area_like(struct vma *v, u64 old, u64 to, u64 new_len)
{
	struct vma *n = lx_malloc(sizeof(*n));
	if (!n)
		return NULL;
	*n = *v;
	n->next = NULL;
	n->start = to;
	n->end = to + new_len;
	n->prot &= ~VM_CHARGED;
	if (n->file) {
		fs_get(n->file);
		n->off = v->off + (old - v->start);
		n->file_end = v->file_end > old ? to + (v->file_end - old) : to;
	}
	if (n->named)
		file_get(n->named);             /* each area holds its own (vma_free puts it) */
	return n;
}

/* The commit charge of n (new_len) replaces v's, which moves away unless kept. */
static bool charge_moved(struct mm *mm, struct vma *v, struct vma *n, bool keep_old)
{
	if (!(v->prot & VM_CHARGED))
		return true;
	u64 old_pages = (v->end - v->start) / LX_PAGE_SIZE;
	if (!keep_old) {
		v->prot &= ~VM_CHARGED;
		uncharge(mm, old_pages);
	}
	if (charge(mm, (n->end - n->start) / LX_PAGE_SIZE)) {
		n->prot |= VM_CHARGED;
		return true;
	}
	if (!keep_old) {
		v->prot |= VM_CHARGED;
		charge(mm, old_pages);              /* what was just given back */
	}
	return false;
}

/* Move [old, old + old_len) of area v to a new area [to, to + new_len); keep_old: DONTUNMAP. */
static long move_area(struct mm *mm, struct vma *v, u64 old, u64 old_len, u64 new_len, u64 to,
		      bool keep_old)
{
	tlb_flush();
	if (old_len && !(v = isolate(v, old, old + old_len)))
		return -LX_ENOMEM;
	struct vma *n = area_like(v, old, to, new_len);
	if (!n)
		return -LX_ENOMEM;
	if (!tables_for(mm, to, to + old_len) || !charge_moved(mm, v, n, keep_old)) {
		vma_free(mm, n);
		return -LX_ENOMEM;
	}
	struct move_ctx c = { .mm = mm, .delta = to - old };
	walk(mm, old, old + old_len, move_one, &c);
	revoke_flush(&c.r);
	vma_link(mm, n);
	if (!keep_old && old_len)
		unmap_range(mm, old, old + old_len);    /* the area only: its pages moved */
	return (long)to;
}

/* Grow v (which ends at `end`) in place to new_end, if nothing lies there. */
static bool grow_in_place(struct mm *mm, struct vma *v, u64 new_end)
{
	if (new_end > LX_USER_END || new_end < v->end || !range_free(mm, v->end, new_end) ||
	    fast_clash(mm, v->end, new_end))
		return false;
	if ((v->prot & VM_CHARGED) && !charge(mm, (new_end - v->end) / LX_PAGE_SIZE))
		return false;
	v->end = new_end;
	return true;
}

/* MREMAP_FIXED and MREMAP_DONTUNMAP: always a move, to new_addr or (DONTUNMAP alone) anywhere. */
static long remap_to(struct mm *mm, u64 old, u64 old_len, u64 new_len, u32 flags, u64 new_addr)
{
	if (new_addr & (LX_PAGE_SIZE - 1))
		return -LX_EINVAL;
	if (new_len > LX_USER_END || new_addr > LX_USER_END - new_len)
		return -LX_EINVAL;
	if (old + old_len > new_addr && new_addr + new_len > old)
		return -LX_EINVAL;                  /* the two ranges overlap */
	if (fast_clash(mm, new_addr, new_addr + new_len))
		return -LX_EINVAL;
	if ((flags & MREMAP_FIXED) && !unmap_range(mm, new_addr, new_addr + new_len))
		return -LX_ENOMEM;
	if (old_len > new_len) {
		if (!unmap_range(mm, old + new_len, old + old_len))
			return -LX_ENOMEM;
		old_len = new_len;
	}
	struct vma *v = vma_find(mm, old);
	if (!v || old_len > v->end - old)
		return -LX_EFAULT;
	if (!(flags & MREMAP_FIXED) && !(new_addr = find_free(mm, new_len)))
		return -LX_ENOMEM;
	return move_area(mm, v, old, old_len, new_len, new_addr, flags & MREMAP_DONTUNMAP);
}

/*
 * mremap(2) as Linux does it: shrink in place, grow in place when the area
 * ends there and the room after it is free, else move (MREMAP_MAYMOVE) the
 * pages themselves to a new area, so shared and file mappings go on
 * sharing; MREMAP_FIXED moves to new_addr (replacing what was there),
 * MREMAP_DONTUNMAP leaves the old area mapped without its pages.  An
 * old_len of 0 maps a shared area's pages a second time.
 */
long vm_mremap(struct proc *p, u64 old, u64 old_len, u64 new_len, u32 flags, u64 new_addr)
{
	struct mm *mm = p->mm;
	if ((flags & ~(u32)(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)) ||
	    ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(flags & MREMAP_MAYMOVE)) ||
	    ((flags & MREMAP_DONTUNMAP) && old_len != new_len) || (old & (LX_PAGE_SIZE - 1)))
		return -LX_EINVAL;
	if (old_len > LX_USER_END || new_len > LX_USER_END || !(new_len = PAGE_UP(new_len)))
		return -LX_EINVAL;
	old_len = PAGE_UP(old_len);
	if (fast_clash(mm, old, old + old_len))
		return -LX_EINVAL;
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		return remap_to(mm, old, old_len, new_len, flags, new_addr);
	if (old_len >= new_len && old > LX_USER_END - old_len)
		return -LX_EINVAL;                  /* munmap's check of the tail */
	if (old_len >= new_len)
		return unmap_range(mm, old + new_len, old + old_len) ? (long)old : -LX_ENOMEM;
	struct vma *v = vma_find(mm, old);
	if (!v || old_len > v->end - old)
		return -LX_EFAULT;
	if (!old_len && !(v->prot & VM_SHARED))
		return -LX_EINVAL;                  /* a private area cannot be duplicated */
	if (old_len && old + old_len == v->end && grow_in_place(mm, v, old + new_len))
		return (long)old;
	if (!(flags & MREMAP_MAYMOVE))
		return -LX_ENOMEM;
	u64 to = find_free(mm, new_len);
	return to ? move_area(mm, v, old, old_len, new_len, to, false) : -LX_ENOMEM;
}

/* An ELF segment or the stack: an area at a fixed place (proc/exec.c). */
long vm_map_fixed(struct mm *mm, u64 start, u64 end, u32 vmprot, struct inode *file, u64 off,
		  u64 file_end)
{
	bool c = chargeable(vmprot);
	if (c && !charge(mm, (end - start) / LX_PAGE_SIZE))
		return -LX_ENOMEM;
	struct vma *v = lx_zalloc(sizeof(*v));
	if (!v) {
		if (c)
			uncharge(mm, (end - start) / LX_PAGE_SIZE);
		return -LX_ENOMEM;
	}
	*v = (struct vma){ .start = start, .end = end, .prot = vmprot | (c ? VM_CHARGED : 0),
			   .off = off, .file_end = file_end };
	if (file) {
		fs_get(file);
		v->file = file;
	}
	vma_link(mm, v);
	return 0;
}

long vm_unmap_file(struct proc *p, u64 addr, u64 len, struct inode *file)
{
	u64 end = PAGE_UP(addr + len);
	for (struct vma *v = vma_find(p->mm, addr); v && v->start < end;) {
		struct vma *next = v->next;
		if (v->file == file && !unmap_range(p->mm, v->start, v->end < end ? v->end : end))
			return -LX_ENOMEM;
		v = next;
	}
	return 0;
}

struct inode *vm_file_at(struct proc *p, u64 addr)
{
	struct vma *v = vma_find(p->mm, addr);
	return v && v->start == addr ? v->file : NULL;
}

/* Shared mappings are the file's own pages, so there is nothing to write back. */
long vm_msync(struct proc *p, u64 addr, u64 len)
{
	if (addr & (LX_PAGE_SIZE - 1))
		return -LX_EINVAL;
	u64 end = PAGE_UP(addr + len);
	if (end < addr)
		return -LX_ENOMEM;
	for (u64 a = addr; a < end;) {
		struct vma *v = vma_find(p->mm, a);
		if (!v)
			return -LX_ENOMEM;
		a = v->end;
	}
	/* a shared file mapping's stores go to the disk (a page cache's writeback) */
	long r = 0;
	for (struct vma *v = vma_find(p->mm, addr); v && v->start < end && !r; v = v->next)
		if (v->file && (v->prot & VM_SHARED))
			r = fs_fsync(v->file);
	return r;
}

void vm_file_shrunk(struct inode *file, u64 size)
{
	u64 keep = PAGE_UP(size);
	for (struct proc *p = procs; p; p = p->next_all) {
		if (!p->mm)
			continue;
		struct unmap_ctx c = { .mm = p->mm };
		for (struct vma *v = p->mm->vmas; v; v = v->next) {
			if (v->file != file || !(v->prot & VM_FILEBUS))
				continue;
			u64 from = v->off >= keep ? v->start : v->start + (keep - v->off);
			if (from < v->end) {
				tlb_flush();
				walk(p->mm, from, v->end, unmap_one, &c);
			}
		}
		revoke_flush(&c.r);
	}
}

struct punch_ctx {
	struct unmap_ctx u;
	struct vma *v;
};

/* A page of the file itself leaves the mapping; a private copy stays, as Linux's. */
static void punch_one(void *ctx, u64 va, u64 *e)
{
	struct punch_ctx *c = ctx;
	if ((c->v->prot & VM_SHARED) || is_file_page(c->v, va, *e))
		unmap_one(&c->u, va, e);
}

/*
 * The file's whole pages in [off, end) are about to be punched out
 * (fallocate's PUNCH_HOLE, MADV_REMOVE): every mapping of them lets them go,
 * so that the next touch finds the hole (zeros), as Linux's
 * truncate_pagecache_range; pages privately copied stay.
 */
void vm_file_punch(struct inode *file, u64 off, u64 end)
{
	off = PAGE_UP(off);
	end &= ~(LX_PAGE_SIZE - 1);
	for (struct proc *p = procs; p && off < end; p = p->next_all) {
		if (!p->mm)
			continue;
		struct punch_ctx c = { .u = { .mm = p->mm } };
		for (struct vma *v = p->mm->vmas; v; v = v->next) {
			u64 vend = v->off + (v->end - v->start);
			if (v->file != file || v->off >= end || vend <= off)
				continue;
			u64 from = v->start + (off > v->off ? off - v->off : 0);
			u64 to = v->start + ((end < vend ? end : vend) - v->off);
			c.v = v;
			tlb_flush();
			walk(p->mm, from, to, punch_one, &c);
		}
		revoke_flush(&c.u.r);
	}
}
