/* SPDX-License-Identifier: MIT */
/*
 * lx's time base and the vDSO (vdso/vdso.c).  lx's clock is the TSC at the
 * kernel's calibrated rate, counted from the kernel's boot, as the kernel's
 * SystemClock counts it; lx reads it itself, and so does every process
 * through the vDSO and its data page (vvar.h), without a system call.
 */
#ifndef LX_VDSO_VDSO_H
#define LX_VDSO_VDSO_H

#include <stdint.h>
#include <stdbool.h>

struct mm;
struct vma;

/* Where exec maps the data page and the vDSO (below lx's UTCB area, above the stack). */
#define LX_VVAR_BASE   0x00007ffff7ff0000UL
#define LX_VDSO_BASE   (LX_VVAR_BASE + 4096)
#define LX_VDSO_PAGES  2                    /* at most; vdso_init checks the image */

extern bool lx_vdso_on;                     /* the lx.vdso option (default on) */

void time_init(void);                       /* first thing in main: the clock from the KIP */
void vdso_init(void);                       /* after the pool: the pages processes map */
uint64_t lx_now_ns(void);                   /* CLOCK_MONOTONIC: ns since the kernel's boot */
uint64_t lx_clock_ns(uint64_t clk);         /* a clock lx_clock_us serves, in ns */
int64_t lx_wall_offset_ns(void);            /* CLOCK_REALTIME minus CLOCK_MONOTONIC */
void lx_set_wall_ns(uint64_t ns);           /* CLOCK_REALTIME is ns now (the vDSO sees it too) */

/* A new image's data page and vDSO: 0 or -ENOMEM; *at: the vDSO's address for
 * AT_SYSINFO_EHDR, 0 for none (lx.vdso=0, or the program's own image is there) */
int vdso_map(struct mm *mm, uint64_t *at);
/* lx's page for byte `off` of the vvar (vvar true) or vDSO area, with a reference; NULL past it */
void *vdso_page(bool vvar, uint64_t off);

#endif
