// SPDX-License-Identifier: MIT
// lx's time base and the vDSO it maps into every process (docs/lx.md, vDSO).
// The clock's state lives in the data page that processes map read-only
// (vvar.h), so a vDSO read and lx's own read of the same instant agree; lx
// is the one writer (clock_settime, settimeofday) and brackets its writes
// with the page's sequence count.
#include "../lx.h"
#include "../../../lib/c/string.h"
#include <l4/kip.h>
#include "vvar.h"

extern const char lx_vdso_start[], lx_vdso_end[];       /* the built image (image.S) */

bool lx_vdso_on = true;
static struct lx_vvar boot_clock;           /* the clock until vdso_init moves it to its page */
static struct lx_vvar *clk_state = &boot_clock;
static void *vvar_page, *vdso_pages[LX_VDSO_PAGES];
static unsigned vdso_npages;

/*
 * The kernel counts SystemClock as (TSC - its boot TSC) / rate with the rate
 * the KIP gives in kHz; lx takes the same rate and puts its zero where the
 * kernel's is, to within the SystemClock call's own length.
 */
void time_init(void)
{
	uint64_t khz = lx_kip_word(lx_kip_word(KIP_OFF_PROC_DESC) + 8);
	boot_clock.tsc_per_us = khz >= 1000 ? khz / 1000 : 1;
	uint64_t tsc = vvar_rdtsc();
	boot_clock.tsc_base = tsc - L4_SystemClock() * boot_clock.tsc_per_us;
	boot_clock.wall_offset_ns = (int64_t)LX_EPOCH_AT_BOOT * 1000000000;
}

uint64_t lx_now_ns(void)
{
	return vvar_ns(clk_state, vvar_rdtsc());
}

int64_t lx_wall_offset_ns(void)
{
	return clk_state->wall_offset_ns;
}

/* REALTIME and its kin (0, 5, 8, 11) read the wall clock; the others CLOCK_MONOTONIC. */
uint64_t lx_clock_ns(uint64_t clk)
{
	uint64_t now = lx_now_ns();
	bool wall = clk == 0 || clk == 5 || clk == 8 || clk == 11;
	return wall ? now + (uint64_t)clk_state->wall_offset_ns : now;
}

void lx_set_wall_ns(uint64_t ns)
{
	struct lx_vvar *v = clk_state;
	v->seq++;
	__asm__ __volatile__("" : : : "memory");
	v->wall_offset_ns = (int64_t)(ns - lx_now_ns());
	__asm__ __volatile__("" : : : "memory");
	v->seq++;
}

void vdso_init(void)
{
	size_t len = (size_t)(lx_vdso_end - lx_vdso_start);
	vdso_npages = (unsigned)((len + LX_PAGE_SIZE - 1) / LX_PAGE_SIZE);
	if (vdso_npages > LX_VDSO_PAGES || memcmp(lx_vdso_start, "\177ELF", 4))
		lx_panic("lx: the vDSO image is not an ELF of at most %d pages\n", LX_VDSO_PAGES);
	vvar_page = page_alloc();
	for (unsigned i = 0; i < vdso_npages; i++) {
		vdso_pages[i] = page_alloc();
		if (!vdso_pages[i])
			break;
		size_t n = len - i * LX_PAGE_SIZE;
		memcpy(vdso_pages[i], lx_vdso_start + i * LX_PAGE_SIZE, n < LX_PAGE_SIZE ? n : LX_PAGE_SIZE);
	}
	if (!vvar_page || !vdso_pages[vdso_npages - 1])
		lx_panic("lx: no pages for the vDSO\n");
	memcpy(vvar_page, &boot_clock, sizeof(boot_clock));
	clk_state = vvar_page;
}

void *vdso_page(bool vvar, uint64_t off)
{
	uint64_t i = off / LX_PAGE_SIZE;
	void *pg = vvar ? (i ? NULL : vvar_page) : (i < vdso_npages ? vdso_pages[i] : NULL);
	if (pg)
		page_get(pg);
	return pg;
}

/* Linux's layout: the data page, then the vDSO; none (*at = 0) where the program's image is. */
int vdso_map(struct mm *mm, uint64_t *at)
{
	uint64_t end = LX_VDSO_BASE + vdso_npages * LX_PAGE_SIZE;
	*at = 0;
	if (!lx_vdso_on)
		return 0;
	for (struct vma *v = mm->vmas; v; v = v->next)
		if (v->start < end && v->end > LX_VVAR_BASE)
			return 0;
	long err = vm_map_fixed(mm, LX_VVAR_BASE, LX_VDSO_BASE, VM_READ | VM_VVAR, NULL, 0, 0);
	if (!err)
		err = vm_map_fixed(mm, LX_VDSO_BASE, end, VM_READ | VM_EXEC | VM_VDSO, NULL, 0, 0);
	*at = err ? 0 : LX_VDSO_BASE;
	return (int)err;                /* (a failed exec drops the whole mm) */
}
