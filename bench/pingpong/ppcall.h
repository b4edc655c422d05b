/* SPDX-License-Identifier: MIT */
/* The benchmarks' register-only Call, shared by bench/pingpong and bench/scale. */
#ifndef PECAN_BENCH_PPCALL_H
#define PECAN_BENCH_PPCALL_H

#include "../../lib/l4/l4.h"

/*
 * One Call with MR0 = tag, as Pistachio's amd64 pingpong makes it (its
 * arch-specific pingpong_ipc): the tag goes straight into MR0's register,
 * timeouts 0, To = FromSpecifier = dest; MR1..MR7 are whatever their
 * registers hold, MR8.. are in the UTCB.  Returns the tag received.
 * `stub` is the Ipc or the Lipc entry point.
 */
static inline L4_Word_t pp_call(L4_Word_t stub, L4_ThreadId_t dest, L4_Word_t tag,
				L4_Word_t *utcb)
{
	register L4_Word_t r8 __asm__("r8") = 0;
	register L4_Word_t r9 __asm__("r9") = tag;
	L4_Word_t to = dest, from = dest;
	__asm__ __volatile__("push %%rbp; call *%[stub]; pop %%rbp"
			     : "+S"(to), "+d"(from), "+r"(r8), "+r"(r9), "+D"(utcb)
			     : [stub] "r"(stub)
			     : "rax", "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15",
			       "memory", "cc");
	return r9;
}

static inline L4_Word_t bench_rdtsc(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

#endif
