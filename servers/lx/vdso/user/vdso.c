// SPDX-License-Identifier: MIT
// lx's vDSO: clock_gettime, gettimeofday, time, clock_getres and getcpu
// without a system call, from the TSC and lx's data page (../vvar.h).  Built
// as a position-independent shared object with no relocations (mk/lx.mk);
// lx maps it into every process and names it in AT_SYSINFO_EHDR.  Clocks it
// does not serve (CPU-time clocks, bad ids) make the real system call and
// return its raw result (-errno), as Linux's vDSO does: the C libraries
// turn that into errno.
#include <stdint.h>
#include "../vvar.h"

#define NSEC 1000000000UL
#define SYS_gettimeofday  96
#define SYS_clock_gettime 228
#define SYS_clock_getres  229
#define SYS_getcpu        309

/* The data page (vdso.lds places it one page below the image). */
extern const volatile struct lx_vvar lx_vvar __attribute__((visibility("hidden")));

struct ts { int64_t sec, nsec; };
struct tv { int64_t sec, usec; };
struct tz { int32_t minuteswest, dsttime; };

/* The clocks lx's system calls read from its monotonic clock (syscall/sys_misc.c's
 * lx_clock_ns): REALTIME, MONOTONIC, MONOTONIC_RAW, their _COARSE forms, BOOTTIME, TAI. */
#define SERVED  (1u << 0 | 1u << 1 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 11)
#define WALL    (1u << 0 | 1u << 5 | 1u << 11)

static long syscall2(long nr, long a, long b)
{
	long r;
	__asm__ __volatile__("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return r;
}

static int served(int clk)
{
	return (unsigned)clk < 32 && (SERVED >> clk & 1);
}

/* The clock clk (served) in ns: one consistent reading of the page and the TSC. */
static uint64_t read_ns(int clk)
{
	uint32_t seq;
	uint64_t ns;
	int64_t off;
	do {
		while ((seq = lx_vvar.seq) & 1)
			__asm__ __volatile__("pause");
		__asm__ __volatile__("" : : : "memory");
		ns = vvar_ns(&lx_vvar, vvar_rdtsc());
		off = lx_vvar.wall_offset_ns;
		__asm__ __volatile__("" : : : "memory");
	} while (seq != lx_vvar.seq);
	return WALL >> clk & 1 ? ns + (uint64_t)off : ns;
}

int __vdso_clock_gettime(int clk, struct ts *ts)
{
	if (!served(clk))
		return (int)syscall2(SYS_clock_gettime, clk, (long)ts);
	uint64_t ns = read_ns(clk);
	ts->sec = (int64_t)(ns / NSEC);
	ts->nsec = (int64_t)(ns % NSEC);
	return 0;
}

int __vdso_gettimeofday(struct tv *tv, struct tz *tz)
{
	if (tv) {
		uint64_t us = read_ns(0) / 1000;
		tv->sec = (int64_t)(us / 1000000);
		tv->usec = (int64_t)(us % 1000000);
	}
	if (tz)
		*tz = (struct tz){ 0, 0 };      /* lx keeps no time zone: as its system call */
	return 0;
}

int64_t __vdso_time(int64_t *t)
{
	int64_t s = (int64_t)(read_ns(0) / NSEC);
	if (t)
		*t = s;
	return s;
}

/* Resolution: the nanosecond vvar_ns counts in, as the system call says. */
int __vdso_clock_getres(int clk, struct ts *res)
{
	if (!served(clk))
		return (int)syscall2(SYS_clock_getres, clk, (long)res);
	if (res)
		*res = (struct ts){ 0, 1 };
	return 0;
}

/*
 * A thread's processor is lx's to know (sched_setaffinity moves it), and no
 * per-processor value is readable from user mode here: the system call
 * answers.  The cache argument is unused, as on Linux since 2.6.24.
 */
long __vdso_getcpu(unsigned *cpu, unsigned *node, void *cache)
{
	(void)cache;
	return syscall2(SYS_getcpu, (long)cpu, (long)node);
}

int clock_gettime(int, struct ts *) __attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct tv *, struct tz *) __attribute__((weak, alias("__vdso_gettimeofday")));
int64_t time(int64_t *) __attribute__((weak, alias("__vdso_time")));
int clock_getres(int, struct ts *) __attribute__((weak, alias("__vdso_clock_getres")));
long getcpu(unsigned *, unsigned *, void *) __attribute__((weak, alias("__vdso_getcpu")));
