/* SPDX-License-Identifier: MIT */
/* User-side L4 system-call wrappers with Pistachio's amd64 register conventions. */
#ifndef PECAN_LIB_L4_H
#define PECAN_LIB_L4_H

#include <l4/types.h>
#include <l4/thread.h>
#include <l4/utcb.h>
#include <l4/kip.h>
#include <l4/kdebug.h>
#include <l4/errors.h>

typedef L4_Word_t L4_ThreadId_t;

/* System-call entry points, read from the KIP by __l4_init (as Pistachio's __L4_Init). */
extern L4_Word_t __L4_Ipc, __L4_Lipc, __L4_Unmap, __L4_ExchangeRegisters,
	__L4_SystemClock, __L4_ThreadSwitch, __L4_Schedule, __L4_SpaceControl,
	__L4_ThreadControl, __L4_ProcessorControl, __L4_MemoryControl;
extern void *__L4_KIP;

static inline void *L4_KernelInterface(L4_Word_t *api_version, L4_Word_t *api_flags,
				       L4_Word_t *kernel_id)
{
	void *kip;
	L4_Word_t v, f, id;
	__asm__ __volatile__(".byte 0xf0, 0x90" : "=a"(kip), "=c"(v), "=d"(f), "=S"(id));
	if (api_version) *api_version = v;
	if (api_flags) *api_flags = f;
	if (kernel_id) *kernel_id = id;
	return kip;
}

static inline L4_Word_t *L4_Utcb(void)
{
	L4_Word_t *p;
	__asm__("movq %%gs:0, %0" : "=r"(p));
	return p;
}

static inline L4_Word_t L4_Tcr(int byte_offset)
{
	return *(L4_Word_t *)((char *)L4_Utcb() + byte_offset);
}

static inline void L4_SetTcr(int byte_offset, L4_Word_t v)
{
	L4_Word_t addr = (L4_Word_t)L4_Utcb() + byte_offset;
	*(volatile L4_Word_t *)addr = v;
}

static inline L4_ThreadId_t L4_MyGlobalId(void) { return L4_Tcr(UTCB_MY_GLOBAL_ID); }
static inline L4_Word_t L4_ErrorCode(void) { return L4_Tcr(UTCB_ERROR_CODE); }

static inline void L4_ThreadSwitch(L4_ThreadId_t dest)
{
	__asm__ __volatile__("push %%rbp; call *%1; pop %%rbp"
			     : "+D"(dest)
			     : "m"(__L4_ThreadSwitch)
			     : "rax", "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11",
			       "r12", "r13", "r14", "r15", "memory", "cc");
}

/* Call system-call slot `entry` with no arguments; returns RAX (tests use it). */
static inline L4_Word_t pecan_raw_syscall_at(L4_Word_t entry)
{
	L4_Word_t rax = 0x5a5a;
	__asm__ __volatile__("push %%rbp; call *%1; pop %%rbp"
			     : "+a"(rax)
			     : "r"(entry)
			     : "rcx", "r11", "memory", "cc");
	return rax;
}

void __l4_init(void);
void __l4_exit(int status) __attribute__((noreturn));

#endif
