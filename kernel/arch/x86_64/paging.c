// SPDX-License-Identifier: MIT
// x86-64 four-level page tables: the kernel half shared by every space, user mappings.
#include <arch.h>
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
 * Each user table counts its present entries in bits the MMU ignores
 * (52-58) of its entries 0 and 1, 7 bits each: no table needs a side
 * structure, and an unmap knows in O(1) when a table has become empty.
 * Every store to a table entry keeps these bits (set_entry).
 */
#define PTE_CNT_SHIFT 52
#define PTE_CNT  (0x7fUL << PTE_CNT_SHIFT)

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
	return (t[0] >> PTE_CNT_SHIFT & 0x7f) | (t[1] >> PTE_CNT_SHIFT & 0x7f) << 7;
}

static void table_count_add(pte_t *t, int delta)
{
	word_t c = table_count(t) + delta;
	t[0] = (t[0] & ~PTE_CNT) | (c & 0x7f) << PTE_CNT_SHIFT;
	t[1] = (t[1] & ~PTE_CNT) | (c >> 7 & 0x7f) << PTE_CNT_SHIFT;
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
 * The last two leaf tables walks reached, with the entries leading to them:
 * map and unmap go through a range a page at a time, often alternating
 * between two spaces, so most walks end here after one compare.  Freeing
 * any table empties the cache.
 */
struct leaf {
	paddr_t root;
	word_t region;                  /* va >> 21, the 2 MiB a leaf table covers */
	pte_t *path[4];                 /* path[1..3] as walk_path gives them */
};
static struct leaf leaves[2];
static unsigned leaf_victim;

static void leaves_forget(void)
{
	leaves[0].root = leaves[1].root = 0;
}

/* The leaf table for va if the cache has it (and the path to it in path[1..3]), else NULL. */
static pte_t *leaf_cached(paddr_t root, word_t va, pte_t *path[4])
{
	for (int i = 0; i < 2; i++) {
		const struct leaf *l = &leaves[i];
		if (l->root == root && l->region == va >> 21) {
			if (path) {
				path[1] = l->path[1];
				path[2] = l->path[2];
				path[3] = l->path[3];
			}
			return phys_to_virt(*l->path[1] & PTE_ADDR);
		}
	}
	return NULL;
}

/* The leaf entry of va, tables created for it if a is given; path[l]: the entry at level l. */
static pte_t *walk_path(paddr_t root, word_t va, struct kmem_acct *a, pte_t *path[4])
{
	pte_t *t = leaf_cached(root, va, path);
	if (t)
		return path[0] = &t[idx(va, 0)];
	t = phys_to_virt(root);
	for (int level = 3; level > 0; level--) {
		path[level] = &t[idx(va, level)];
		t = next_table(path[level], a);
		if (!t)
			return NULL;
	}
	struct leaf *l = &leaves[leaf_victim ^= 1];
	*l = (struct leaf){ root, va >> 21, { NULL, path[1], path[2], path[3] } };
	return path[0] = &t[idx(va, 0)];
}

/* The rights a present leaf entry gives. */
static unsigned pte_rights(pte_t e)
{
	return MAP_R | (e & PTE_W ? MAP_W : 0) | (e & PTE_NX ? 0 : MAP_X);
}

static pte_t *walk(paddr_t root, word_t va, struct kmem_acct *a)
{
	pte_t *path[4];
	return walk_path(root, va, a, path);
}

/*
 * Tables the walk to va passed that are now empty go back to the pool,
 * deepest first; the top-level table stays.  A table that fails to fill
 * (arch_map out of memory half-way) is reclaimed the same way.
 */
static void reclaim(struct kmem_acct *a, pte_t *path[4], int from_level)
{
	for (int level = from_level; level < 3; level++) {
		pte_t *t = table_of(path[level]);
		if (table_count(t))
			return;
		set_entry(path[level + 1], 0);
		leaves_forget();
		kmem_free_zeroed(a, virt_to_phys_direct(t));   /* every entry and the count are 0 */
	}
}

bool arch_map(struct kmem_acct *a, paddr_t root, word_t va, paddr_t pa, unsigned rights)
{
	if (va >= USER_TOP)
		return false;
	pte_t *path[4] = { 0 };
	pte_t *e = walk_path(root, va, a, path);
	if (!e) {
		int level = 1;          /* the walk stopped at the lowest entry it recorded */
		while (level < 3 && !path[level])
			level++;
		reclaim(a, path, level);        /* tables made for this walk that stayed empty */
		return false;
	}
	set_entry(e, (pa & PTE_ADDR) | PTE_P | PTE_U | (rights & MAP_W ? PTE_W : 0) |
		     (rights & MAP_X ? 0 : PTE_NX));
	__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	return true;
}

bool arch_lookup(paddr_t root, word_t va, paddr_t *pa, unsigned *rights)
{
	if (va >= USER_TOP)
		return false;
	pte_t *e = walk(root, va, NULL);
	if (!e || !(*e & PTE_P))
		return false;
	*pa = (*e & PTE_ADDR) | (va & ~PAGE_MASK);
	*rights = pte_rights(*e);
	return true;
}


/*
 * The leaf table covering va, or NULL: then *span is the size of the
 * region around va that the missing table would have covered.
 */
static pte_t *leaf_table(paddr_t root, word_t va, word_t *span)
{
	pte_t *t = leaf_cached(root, va, NULL);
	if (t)
		return t;
	pte_t *path[4];
	t = phys_to_virt(root);
	for (int level = 3; level > 0; level--) {
		path[level] = &t[idx(va, level)];
		if (!(*path[level] & PTE_P)) {
			*span = 1UL << (12 + 9 * level);
			return NULL;
		}
		t = phys_to_virt(*path[level] & PTE_ADDR);
	}
	return walk_path(root, va, NULL, path) - idx(va, 0);     /* caches it */
}

/*
 * The first mapped user page at or above *va and below end, skipping empty
 * tables whole, so that scanning a huge fpage costs what is mapped in it.
 */
bool arch_next_mapped(paddr_t root, word_t *va, word_t end, paddr_t *pa, unsigned *rights)
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
				*pa = t[i] & PTE_ADDR;
				*rights = pte_rights(t[i]);
				return true;
			}
		}
	}
	return false;
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
	extern paddr_t arch_loaded_root;
	if (arch_loaded_root == root) {
		arch_loaded_root = kernel_virt_to_phys(kernel_pml4);
		write_cr3(arch_loaded_root);
	}
	if (table_count(pml4)) {
		for (int i = 0; i < 256; i++)
			if (pml4[i] & PTE_P)
				free_table(a, phys_to_virt(pml4[i] & PTE_ADDR), 2);
		arch_zero(pml4, 256 * sizeof(pte_t));
	}
	for (unsigned i = 0; i < ARRAY_SIZE(kernel_entries); i++)
		pml4[kernel_entries[i]] = 0;
	kmem_free_zeroed(a, root);
}

/*
 * Change the rights of the user page at va (0: unmap it) and return what the
 * hardware recorded about it since the last call: MAP_R referenced, MAP_W
 * written; the record is reset.  Only the current space's TLB can hold the
 * old entry (no PCIDs, no global user pages), so only it is flushed.
 */
unsigned arch_protect(struct kmem_acct *a, paddr_t root, word_t va, unsigned rights)
{
	pte_t *path[4];
	pte_t *e = walk_path(root, va, NULL, path);
	if (!e || !(*e & PTE_P))
		return 0;
	unsigned status = (*e & PTE_A ? MAP_R : 0) | (*e & PTE_D ? MAP_W : 0);
	if (!rights)
		set_entry(e, 0);
	else
		set_entry(e, (*e & PTE_ADDR) | PTE_P | PTE_U | (rights & MAP_W ? PTE_W : 0) |
			     (rights & MAP_X ? 0 : PTE_NX));
	if (!rights)
		reclaim(a, path, 0);    /* the TLB flush below drops the freed tables' cached entries too */
	extern paddr_t arch_loaded_root;
	if (root == arch_loaded_root)
		__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	return status;
}
