/* SPDX-License-Identifier: MIT */
/* x86 port I/O, control registers and MSRs. */
#ifndef ARCH_IO_H
#define ARCH_IO_H

#include "../../types.h"

static inline void outb(u16 port, u8 v) { __asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u64 rdmsr(u32 msr)
{
	u64 lo, hi;     /* rdmsr clears bits 32-63 of RAX and RDX */
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return hi << 32 | lo;
}
static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}
static inline u64 read_cr2(void)
{
	u64 v;
	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}
static inline u64 read_cr3(void)
{
	u64 v;
	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}
static inline void write_cr3(u64 v) { __asm__ __volatile__("mov %0, %%cr3" : : "r"(v) : "memory"); }
static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}
static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

#endif
