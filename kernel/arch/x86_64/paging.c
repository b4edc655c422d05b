// SPDX-License-Identifier: MIT
// x86-64 four-level page tables: the kernel half shared by every space, user mappings.
#include <arch.h>
#include "../../smp.h"
#include "io.h"
#include "../../printk.h"
#include "../../frame.h"
#include <l4/syscalls.h>

#define PTE_P    (1UL << 0)
#define PTE_W    (1UL << 1)
#define PTE_U    (1UL << 2)
#define PTE_A    (1UL << 5)
#define PTE_D    (1UL << 6)
#define PTE_PS   (1UL << 7)
#define PTE_G    (1UL << 8)
#define PTE_NX   (1UL << 63)
#define PTE_ADDR 0x000ffffffffff000UL
/*
 * Each user table counts its present entries in bits 52-61 of its entry 0,
 * which the MMU ignores (no protection keys): no table needs a side
 * structure, a change of the count is one add, and an unmap knows in O(1)
 * when a table has become empty.  Every store to entry 0 keeps these bits
 * (set_entry).
 */
#define PTE_CNT_SHIFT 52
#define PTE_CNT  (0x3ffUL << PTE_CNT_SHIFT)

typedef u64 pte_t;
#define PT_PAGE __attribute__((aligned(4096), section(".bss.pagealigned")))

static pte_t kernel_pml4[512] PT_PAGE;
static pte_t kpdpt_direct[512] PT_PAGE;   /* PML4[256]: physical memory, 1 GiB pages */
static pte_t kpdpt_high[512] PT_PAGE;     /* PML4[511]: kernel image and stub page */
static pte_t kpd_image[512] PT_PAGE;      /* -2 GiB: first 1 GiB of physical memory */
static pte_t kpd_ustub[512] PT_PAGE;      /* -1 GiB: user-visible kernel pages */
static pte_t kpt_ustub[512] PT_PAGE;

extern char _ustub_phys[];
extern u64 user_gs_page[];
extern u64 ap_gs_pages[][512];

paddr_t arch_kernel_root(void)
{
	return kernel_virt_to_phys(kernel_pml4);
}

void arch_flush_tlb(void)
{
	write_cr3(read_cr3());
}

static unsigned idx(word_t va, int level) { return (va >> (12 + 9 * level)) & 511; }

void arch_paging_init(void)
{
	u32 a, b, c, d;
	cpuid(0x80000001, &a, &b, &c, &d);
	if (!(d & (1u << 26)))
		panic("CPU lacks 1 GiB pages (pdpe1gb); run QEMU with -cpu max");
	/* mapping absent physical memory is harmless: nothing touches it */
	for (word_t g = 0; g < 512; g++)
		kpdpt_direct[g] = (g << 30) | PTE_P | PTE_W | PTE_PS | PTE_G | PTE_NX;
	for (word_t i = 0; i < 512; i++)
		kpd_image[i] = (i << 21) | PTE_P | PTE_W | PTE_PS | PTE_G;
	kpt_ustub[idx(USTUB_BASE, 0)] = (paddr_t)_ustub_phys | PTE_P | PTE_U;
	kpt_ustub[idx(USER_GS_PAGE, 0)] = kernel_virt_to_phys(user_gs_page) | PTE_P | PTE_U | PTE_NX;
	for (unsigned i = 1; CONFIG_SMP && i < CONFIG_MAX_CPUS; i++)
		kpt_ustub[idx(ARCH_GS_PAGE(i), 0)] = kernel_virt_to_phys(ap_gs_pages[i]) | PTE_P | PTE_U | PTE_NX;
	kpd_ustub[idx(USTUB_BASE, 1)] = kernel_virt_to_phys(kpt_ustub) | PTE_P | PTE_W | PTE_U;
	kpdpt_high[510] = kernel_virt_to_phys(kpd_image) | PTE_P | PTE_W;
	kpdpt_high[511] = kernel_virt_to_phys(kpd_ustub) | PTE_P | PTE_W | PTE_U;
	kernel_pml4[256] = kernel_virt_to_phys(kpdpt_direct) | PTE_P | PTE_W;
	/* U on the PML4 entry is needed for the stub page; lower levels keep the rest supervisor-only */
	kernel_pml4[511] = kernel_virt_to_phys(kpdpt_high) | PTE_P | PTE_W | PTE_U;
	for (int i = 256; i < 512; i++)
		if (kernel_pml4[i] && (i != 256 && i != 511))
			panic("paging: kernel_entries misses PML4 entry %d", i);
	write_cr3(kernel_virt_to_phys(kernel_pml4));
}

static pte_t *table_of(pte_t *e) { return (pte_t *)((word_t)e & PAGE_MASK); }

static unsigned table_count(const pte_t *t)
{
	return t[0] >> PTE_CNT_SHIFT & 0x3ff;
}

static void table_count_add(pte_t *t, int delta)
{
	t[0] += (word_t)(long)delta << PTE_CNT_SHIFT;    /* 0 <= count <= 512: no carry out */
}

/* Store v (whose count bits are clear) in e, keeping e's count bits and its table's count. */
static void set_entry(pte_t *e, pte_t v)
{
	bool was = *e & PTE_P, now = v & PTE_P;
	*e = (*e & PTE_CNT) | v;
	if (was != now)
		table_count_add(table_of(e), now ? 1 : -1);
}

/* The kernel half's entries that are not 0 (every space shares them): set at boot. */
static const unsigned kernel_entries[] = { 256, 511 };

paddr_t arch_space_create(struct kmem_acct *a)
{
	paddr_t root = kmem_alloc(a, 1);
	if (!root)
		return 0;
	pte_t *pml4 = phys_to_virt(root);
	for (unsigned i = 0; i < ARRAY_SIZE(kernel_entries); i++)
		pml4[kernel_entries[i]] = kernel_pml4[kernel_entries[i]];
	return root;
}

/* The next-level table under entry e, created (charged to a) if a; NULL if absent or OOM. */
static pte_t *next_table(pte_t *e, struct kmem_acct *a)
{
	if (!(*e & PTE_P)) {
		if (!a)
			return NULL;
		paddr_t p = kmem_alloc(a, 1);
		if (!p)
			return NULL;
		set_entry(e, p | PTE_P | PTE_W | PTE_U);
	}
	return phys_to_virt(*e & PTE_ADDR);
}

/*
 * The last two leaf tables walks reached: map and unmap go through a range
 * a page at a time, often alternating between two spaces, so most walks
 * end here after two compares.  Freeing any table empties the cache.
 */
struct leaf {
	paddr_t root;
	word_t region;                  /* va >> 21, the 2 MiB a leaf table covers */
	pte_t *table;
};
static struct leaf leaves[2];
static unsigned leaf_victim;

static void leaves_forget(void)
{
	leaves[0].root = leaves[1].root = 0;
}

/* The leaf table for va if the cache has it, else NULL. */
static inline pte_t *leaf_cached(paddr_t root, word_t va)
{
	word_t region = va >> 21;
	if (leaves[0].root == root && leaves[0].region == region)
		return leaves[0].table;
	if (leaves[1].root == root && leaves[1].region == region)
		return leaves[1].table;
	return NULL;
}

/*
 * The leaf entry of va, tables created for it if a is given (else NULL if
 * one is missing); path[l]: the entry at level l, for reclaim.  No cache.
 */
static pte_t *walk_path(paddr_t root, word_t va, struct kmem_acct *a, pte_t *path[4])
{
	pte_t *t = phys_to_virt(root);
	for (int level = 3; level > 0; level--) {
		path[level] = &t[idx(va, level)];
		t = next_table(path[level], a);
		if (!t)
			return NULL;
	}
	leaves[leaf_victim ^= 1] = (struct leaf){ root, va >> 21, t };
	return path[0] = &t[idx(va, 0)];
}

static __attribute__((noinline)) pte_t *walk_miss(paddr_t root, word_t va, struct kmem_acct *a)
{
	pte_t *path[4];
	return walk_path(root, va, a, path);
}

/* The leaf entry of va, as walk_path but through the cache. */
static inline pte_t *walk(paddr_t root, word_t va, struct kmem_acct *a)
{
	pte_t *t = leaf_cached(root, va);
	if (likely(t))
		return &t[idx(va, 0)];
	return walk_miss(root, va, a);
}

/* The rights a present leaf entry gives. */
static unsigned pte_rights(pte_t e)
{
	return MAP_R | (e & PTE_W ? MAP_W : 0) | (e & PTE_NX ? 0 : MAP_X);
}

/*
 * Tables on the way to va that are now empty go back to the pool, deepest
 * first; the top-level table stays.  A table that fails to fill (arch_map
 * out of memory half-way) is reclaimed the same way.
 */
static void reclaim(struct kmem_acct *a, paddr_t root, word_t va)
{
	pte_t *path[4] = { 0 }, *t = phys_to_virt(root);
	for (int level = 3; level > 0 && t; level--) {
		path[level] = &t[idx(va, level)];
		t = next_table(path[level], NULL);
	}
	for (int level = 0; level < 3; level++) {
		if (!path[level + 1] || !(*path[level + 1] & PTE_P))
			continue;
		pte_t *table = phys_to_virt(*path[level + 1] & PTE_ADDR);
		if (table_count(table))
			return;
		set_entry(path[level + 1], 0);
		leaves_forget();
		kmem_free_zeroed(a, virt_to_phys_direct(table));   /* every entry and the count are 0 */
	}
}

/* A present user leaf entry for frame pa with rights. */
static pte_t leaf_pte(paddr_t pa, unsigned rights)
{
	return (pa & PTE_ADDR) | PTE_P | PTE_U | (rights & MAP_W ? PTE_W : 0) |
	       (rights & MAP_X ? 0 : PTE_NX);
}

static void map_at(pte_t *e, word_t va, paddr_t pa, unsigned rights)
{
	set_entry(e, leaf_pte(pa, rights));
	__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
}

static __attribute__((noinline)) bool map_miss(struct kmem_acct *a, paddr_t root, word_t va,
					       paddr_t pa, unsigned rights)
{
	pte_t *path[4];
	pte_t *e = walk_path(root, va, a, path);
	if (!e) {
		reclaim(a, root, va);           /* tables made for this walk that stayed empty */
		return false;
	}
	map_at(e, va, pa, rights);
	return true;
}

static __attribute__((noinline)) int map_new_miss(struct kmem_acct *a, paddr_t root, word_t va,
						  paddr_t pa, unsigned rights)
{
	pte_t *path[4];
	pte_t *e = walk_path(root, va, NULL, path);
	if (e && (*e & PTE_P))
		return MAP_NEW_EXISTS;
	return map_miss(a, root, va, pa, rights) ? MAP_NEW_OK : MAP_NEW_FAILED;
}

/*
 * arch_map (only_new false) and arch_map_new.  The common case, a page next
 * to the last one, is a leaf with no call (and no saved register).
 */
static inline __attribute__((always_inline)) int map_user(struct kmem_acct *a, paddr_t root,
							  word_t va, paddr_t pa,
							  unsigned rights, bool only_new)
{
	if (va >= USER_TOP)
		return MAP_NEW_FAILED;
	pte_t *t = leaf_cached(root, va);
	if (unlikely(!t) && only_new)
		return map_new_miss(a, root, va, pa, rights);
	if (unlikely(!t))
		return map_miss(a, root, va, pa, rights) ? MAP_NEW_OK : MAP_NEW_FAILED;
	pte_t *e = &t[idx(va, 0)];
	if (only_new && (*e & PTE_P))
		return MAP_NEW_EXISTS;
	map_at(e, va, pa, rights);
	return MAP_NEW_OK;
}

bool arch_map(struct kmem_acct *a, paddr_t root, word_t va, paddr_t pa, unsigned rights)
{
	return map_user(a, root, va, pa, rights, false) == MAP_NEW_OK;
}

/* A map item's run of pages into empty places: one leaf-table hit and one store per page. */
int arch_map_new(struct kmem_acct *a, paddr_t root, word_t va, paddr_t pa, unsigned rights)
{
	return map_user(a, root, va, pa, rights, true);
}

static bool lookup_at(const pte_t *e, word_t va, paddr_t *pa, unsigned *rights)
{
	if (!e || !(*e & PTE_P))
		return false;
	*pa = (*e & PTE_ADDR) | (va & ~PAGE_MASK);
	*rights = pte_rights(*e);
	return true;
}

static __attribute__((noinline)) bool lookup_miss(paddr_t root, word_t va, paddr_t *pa,
						  unsigned *rights)
{
	pte_t *path[4];
	return lookup_at(walk_path(root, va, NULL, path), va, pa, rights);
}

bool arch_lookup(paddr_t root, word_t va, paddr_t *pa, unsigned *rights)
{
	if (va >= USER_TOP)
		return false;
	pte_t *t = leaf_cached(root, va);
	if (unlikely(!t))
		return lookup_miss(root, va, pa, rights);
	return lookup_at(&t[idx(va, 0)], va, pa, rights);
}


/*
 * The leaf table covering va, or NULL: then *span is the size of the
 * region around va that the missing table would have covered.
 */
static pte_t *leaf_table(paddr_t root, word_t va, word_t *span)
{
	pte_t *t = leaf_cached(root, va);
	if (t)
		return t;
	t = phys_to_virt(root);
	for (int level = 3; level > 0; level--) {
		pte_t e = t[idx(va, level)];
		if (!(e & PTE_P)) {
			*span = 1UL << (12 + 9 * level);
			return NULL;
		}
		t = phys_to_virt(e & PTE_ADDR);
	}
	leaves[leaf_victim ^= 1] = (struct leaf){ root, va >> 21, t };
	return t;
}

/*
 * The first mapped user page at or above *va and below end, skipping empty
 * tables whole, so that scanning a huge fpage costs what is mapped in it.
 */
static __attribute__((noinline)) bool next_mapped_scan(paddr_t root, word_t *va, word_t end)
{
	if (end > USER_TOP)
		end = USER_TOP;
	for (word_t v = *va, span = 0; v < end && v >= *va;) {
		pte_t *t = leaf_table(root, v, &span);
		if (!t) {
			v = ALIGN_DOWN(v, span) + span;
			continue;
		}
		for (unsigned i = idx(v, 0); i < 512 && v < end; i++, v += PAGE_SIZE) {
			if (t[i] & PTE_P) {
				*va = v;
				return true;
			}
		}
	}
	return false;
}

bool arch_next_mapped(paddr_t root, word_t *va, word_t end)
{
	word_t v = *va;
	pte_t *t = v < end && v < USER_TOP ? leaf_cached(root, v) : NULL;
	if (likely(t) && (t[idx(v, 0)] & PTE_P))          /* the next page of a mapped run */
		return true;
	return next_mapped_scan(root, va, end);
}

arch_pte_t *arch_next_entry(paddr_t root, word_t *va, word_t end)
{
	word_t v = *va;
	pte_t *t = v < end && v < USER_TOP ? leaf_cached(root, v) : NULL;
	if (likely(t) && (t[idx(v, 0)] & PTE_P))          /* the next page of a mapped run */
		return &t[idx(v, 0)];
	if (!next_mapped_scan(root, va, end))
		return NULL;
	return &leaf_cached(root, *va)[idx(*va, 0)];      /* the scan left its table cached */
}

static void free_table(struct kmem_acct *a, pte_t *t, int level)
{
	leaves_forget();
	for (int i = 0; level > 0 && i < 512; i++)
		if (t[i] & PTE_P)
			free_table(a, phys_to_virt(t[i] & PTE_ADDR), level - 1);
	kmem_free(a, virt_to_phys_direct(t), 1);
}

/*
 * Free the user half's tables and the root (never the frames they map).
 * When everything was unmapped first, as space_destroy does, the tables
 * are gone already and the root goes back as a zeroed frame.
 */
void arch_space_destroy(struct kmem_acct *a, paddr_t root)
{
	pte_t *pml4 = phys_to_virt(root);
	if (arch_loaded_root == root) {
		arch_loaded_root = kernel_virt_to_phys(kernel_pml4);
		write_cr3(arch_loaded_root);
	}
	smp_root_gone(root);                    /* an idle processor may still hold it */
	if (table_count(pml4)) {
		for (int i = 0; i < 256; i++)
			if (pml4[i] & PTE_P)
				free_table(a, phys_to_virt(pml4[i] & PTE_ADDR), 2);
		arch_zero(pml4, 256 * sizeof(pte_t));
	}
	for (unsigned i = 0; i < ARRAY_SIZE(kernel_entries); i++)
		pml4[kernel_entries[i]] = 0;
	pml4[0] = 0;                            /* the count bits */
	kmem_free_zeroed(a, root);
}

/*
 * The other processors' TLBs: those whose CR3 holds root (smp.c).  A batch
 * that is full shoots its roots down at once and starts over.
 */
static void tlb_note_root(struct arch_tlb_batch *b, paddr_t root)
{
	for (unsigned i = 0; i < b->nroots; i++)
		if (b->roots[i] == root)
			return;
	if (b->nroots == ARCH_TLB_BATCH_ROOTS) {
		for (unsigned i = 0; i < b->nroots; i++)
			smp_tlb_shootdown(b->roots[i]);
		b->nroots = 0;
	}
	b->roots[b->nroots++] = root;
}

/*
 * The entry of va in root changed: its TLB entries go, at once (b NULL)
 * or when b is flushed.  Only the loaded page table's can be in this
 * processor's TLB (no PCIDs, no global user pages).
 */
static inline __attribute__((always_inline)) void tlb_note(struct arch_tlb_batch *b, paddr_t root,
							    word_t va)
{
	if (!b) {
		if (root == arch_loaded_root)
			__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
		if (CONFIG_SMP && unlikely(smp_active))
			smp_tlb_shootdown(root);    /* before the caller returns: no processor keeps the old entry */
		return;
	}
	if (root == arch_loaded_root && b->npages <= ARCH_TLB_BATCH_PAGES) {
		if (b->npages < ARCH_TLB_BATCH_PAGES)
			b->va[b->npages] = va;
		b->npages++;
	}
	if (CONFIG_SMP && unlikely(smp_active))
		tlb_note_root(b, root);
}

void arch_tlb_batch_flush(struct arch_tlb_batch *b)
{
	if (b->npages > ARCH_TLB_BATCH_PAGES)
		arch_flush_tlb();
	else
		for (unsigned i = 0; i < b->npages; i++)
			__asm__ __volatile__("invlpg (%0)" : : "r"(b->va[i]) : "memory");
	for (unsigned i = 0; i < b->nroots; i++)
		smp_tlb_shootdown(b->roots[i]);
	b->npages = b->nroots = 0;
}

/* What the hardware recorded in a leaf entry: MAP_R referenced (A), MAP_W written (D). */
static unsigned pte_status(pte_t e)
{
	return (e >> 3 & MAP_R) | (e >> 5 & MAP_W);
}

/*
 * Rights of the entry e of va in root change to rights (0: it goes); its
 * A/D status before (MAP_R referenced, MAP_W written), which is reset.
 */
static unsigned protect_at(struct kmem_acct *a, paddr_t root, pte_t *e, word_t va, unsigned rights,
			   struct arch_tlb_batch *b)
{
	if (!e || !(*e & PTE_P))
		return 0;
	unsigned status = pte_status(*e);
	set_entry(e, rights ? leaf_pte(*e, rights) : 0);
	if (unlikely(!rights && !table_count(table_of(e))))
		reclaim(a, root, va);   /* the TLB flush drops the freed tables' cached entries too */
	tlb_note(b, root, va);
	return status;
}

/* arch_protect_batched's unmap, the rest: the emptied table, the TLBs; the entry's status. */
static __attribute__((noinline)) unsigned unmapped_slow(struct kmem_acct *a, paddr_t root,
							 pte_t *t, word_t va, pte_t old,
							 struct arch_tlb_batch *b)
{
	if (!table_count(t))
		reclaim(a, root, va);   /* the TLB flush drops the freed tables' cached entries too */
	tlb_note(b, root, va);
	return pte_status(old);
}

static __attribute__((noinline)) unsigned protect_miss(struct kmem_acct *a, paddr_t root,
						       word_t va, unsigned rights,
						       struct arch_tlb_batch *b)
{
	pte_t *path[4];
	return protect_at(a, root, walk_path(root, va, NULL, path), va, rights, b);
}

unsigned arch_protect_batched(struct kmem_acct *a, paddr_t root, word_t va, unsigned rights,
			      struct arch_tlb_batch *b)
{
	if (va >= USER_TOP)
		return 0;
	pte_t *t = leaf_cached(root, va);
	if (unlikely(!t))
		return protect_miss(a, root, va, rights, b);
	pte_t *e = &t[idx(va, 0)], old = *e;
	if (rights || unlikely(!(old & PTE_P)))
		return protect_at(a, root, e, va, rights, b);
	*e = old & PTE_CNT;             /* unmapped (revocation's common case), inline */
	table_count_add(t, -1);
	if (unlikely(!table_count(t) || !b || (CONFIG_SMP && smp_active) || root == arch_loaded_root))
		return unmapped_slow(a, root, t, va, old, b);
	return pte_status(old);         /* in no TLB of a processor that could run it now */
}

/*
 * The common case of a range Unmap's own entry is a status query (its
 * rights stay): only set A/D bits need a store and a TLB flush.
 */
unsigned arch_entry_protect(struct kmem_acct *a, paddr_t root, arch_pte_t *e, word_t va,
			    unsigned rights, struct arch_tlb_batch *b)
{
	pte_t old = *e;
	if (!rights || !(old & PTE_P) || pte_rights(old) != rights)
		return protect_at(a, root, e, va, rights, b);
	if (!(old & (PTE_A | PTE_D)))
		return 0;
	*e = old & ~(PTE_A | PTE_D);
	tlb_note(b, root, va);
	return pte_status(old);
}

unsigned arch_protect(struct kmem_acct *a, paddr_t root, word_t va, unsigned rights)
{
	return arch_protect_batched(a, root, va, rights, NULL);
}
