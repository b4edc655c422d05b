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
	write_cr3(kernel_virt_to_phys(kernel_pml4));
}

paddr_t arch_space_create(void)
{
	paddr_t root = frame_alloc_zeroed(1);
	if (!root)
		return 0;
	pte_t *pml4 = phys_to_virt(root);
	for (int i = 256; i < 512; i++)
		pml4[i] = kernel_pml4[i];
	return root;
}

/* The next-level table under entry e, created if `create`; NULL if absent or OOM. */
static pte_t *next_table(pte_t *e, bool create)
{
	if (!(*e & PTE_P)) {
		if (!create)
			return NULL;
		paddr_t p = frame_alloc_zeroed(1);
		if (!p)
			return NULL;
		*e = p | PTE_P | PTE_W | PTE_U;
	}
	return phys_to_virt(*e & PTE_ADDR);
}

static pte_t *walk(paddr_t root, word_t va, bool create)
{
	pte_t *t = phys_to_virt(root);
	for (int level = 3; level > 0; level--) {
		t = next_table(&t[idx(va, level)], create);
		if (!t)
			return NULL;
	}
	return &t[idx(va, 0)];
}

bool arch_map(paddr_t root, word_t va, paddr_t pa, unsigned rights)
{
	if (va >= USER_TOP)
		return false;
	pte_t *e = walk(root, va, true);
	if (!e)
		return false;
	*e = (pa & PTE_ADDR) | PTE_P | PTE_U | (rights & MAP_W ? PTE_W : 0) |
	     (rights & MAP_X ? 0 : PTE_NX);
	__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	return true;
}

bool arch_lookup(paddr_t root, word_t va, paddr_t *pa, unsigned *rights)
{
	if (va >= USER_TOP)
		return false;
	pte_t *e = walk(root, va, false);
	if (!e || !(*e & PTE_P))
		return false;
	*pa = (*e & PTE_ADDR) | (va & ~PAGE_MASK);
	*rights = MAP_R | (*e & PTE_W ? MAP_W : 0) | (*e & PTE_NX ? 0 : MAP_X);
	return true;
}


/*
 * The first mapped user page at or above *va and below end, skipping empty
 * tables whole, so that scanning a huge fpage costs what is mapped in it.
 */
bool arch_next_mapped(paddr_t root, word_t *va, word_t end, paddr_t *pa, unsigned *rights)
{
	if (end > USER_TOP)
		end = USER_TOP;
	for (word_t v = *va; v < end && v >= *va;) {
		pte_t *t = phys_to_virt(root);
		int level = 3;
		for (; level > 0; level--) {
			pte_t e = t[idx(v, level)];
			if (!(e & PTE_P))
				break;
			t = phys_to_virt(e & PTE_ADDR);
		}
		word_t span = 1UL << (12 + 9 * level);
		if (level == 0 && (t[idx(v, 0)] & PTE_P)) {
			*va = v;
			return arch_lookup(root, v, pa, rights);
		}
		v = ALIGN_DOWN(v, span) + span;
	}
	return false;
}

void arch_unmap(paddr_t root, word_t va)
{
	pte_t *e = walk(root, va, false);
	if (e && (*e & PTE_P)) {
		*e = 0;
		__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	}
}

static void free_table(pte_t *t, int level)
{
	for (int i = 0; level > 0 && i < 512; i++)
		if (t[i] & PTE_P)
			free_table(phys_to_virt(t[i] & PTE_ADDR), level - 1);
	frame_free(virt_to_phys_direct(t), 1);
}

/* Free the user half's tables and the root (never the frames they map). */
void arch_space_destroy(paddr_t root)
{
	pte_t *pml4 = phys_to_virt(root);
	extern paddr_t arch_loaded_root;
	if (arch_loaded_root == root) {
		arch_loaded_root = kernel_virt_to_phys(kernel_pml4);
		write_cr3(arch_loaded_root);
	}
	for (int i = 0; i < 256; i++)
		if (pml4[i] & PTE_P)
			free_table(phys_to_virt(pml4[i] & PTE_ADDR), 2);
	frame_free(root, 1);
}

/*
 * Change the rights of the user page at va (0: unmap it) and return what the
 * hardware recorded about it since the last call: MAP_R referenced, MAP_W
 * written; the record is reset.  Only the current space's TLB can hold the
 * old entry (no PCIDs, no global user pages), so only it is flushed.
 */
unsigned arch_protect(paddr_t root, word_t va, unsigned rights)
{
	pte_t *e = walk(root, va, false);
	if (!e || !(*e & PTE_P))
		return 0;
	unsigned status = (*e & PTE_A ? MAP_R : 0) | (*e & PTE_D ? MAP_W : 0);
	if (!rights)
		*e = 0;
	else
		*e = (*e & PTE_ADDR) | PTE_P | PTE_U | (rights & MAP_W ? PTE_W : 0) |
		     (rights & MAP_X ? 0 : PTE_NX);
	extern paddr_t arch_loaded_root;
	if (root == arch_loaded_root)
		__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	return status;
}
