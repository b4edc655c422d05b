/* SPDX-License-Identifier: MIT */
/*
 * The vDSO's data page ("vvar"): lx's clock as processes read it without a
 * system call.  lx writes it (vdso/vdso.c), the vDSO (vdso/user/vdso.c)
 * reads it, and both turn a TSC reading into nanoseconds with vvar_ns, so
 * that a vDSO read and a system call's read of the same instant agree to
 * the nanosecond.  The page sits right below the vDSO's first page.
 */
#ifndef LX_VDSO_VVAR_H
#define LX_VDSO_VVAR_H

#include <stdint.h>

struct lx_vvar {
	/* odd while lx writes the fields below; readers retry until it is even and unchanged */
	volatile uint32_t seq;
	uint32_t pad;
	uint64_t tsc_base;                  /* the TSC at CLOCK_MONOTONIC's zero (the kernel's boot) */
	uint64_t tsc_per_us;                /* the kernel's calibrated rate (the KIP's), never 0 */
	int64_t wall_offset_ns;             /* CLOCK_REALTIME minus CLOCK_MONOTONIC */
};

/* The TSC, ordered after the loads before it (Linux's rdtsc_ordered). */
static inline uint64_t vvar_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

/* CLOCK_MONOTONIC in ns at TSC reading tsc: floor(d * 1000 / rate) without overflow. */
static inline uint64_t vvar_ns(const volatile struct lx_vvar *v, uint64_t tsc)
{
	uint64_t d = tsc > v->tsc_base ? tsc - v->tsc_base : 0, p = v->tsc_per_us;
	return d / p * 1000 + d % p * 1000 / p;
}

#endif
