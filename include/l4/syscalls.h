/* SPDX-License-Identifier: MIT */
/*
 * The one table of Pecan's system calls.  Everything else (kernel dispatch,
 * KIP pointers, user wrappers, stub slots) is derived from it.
 *
 * Every system call is entered through a stub in the kernel's user-executable
 * stub page (USTUB_BASE).  Stub n occupies slot n (USTUB_SLOT bytes), so the
 * kernel derives the number from the return address the CPU saves in RCX:
 *     nr = (rcx - USTUB_BASE) / USTUB_SLOT   when rcx lies in the stub page.
 * A `syscall` from anywhere else is a foreign system call (docs/abi.md).
 */
#ifndef L4_SYSCALLS_H
#define L4_SYSCALLS_H

#ifdef __ASSEMBLER__
#define L4_UL(x) x
#else
#define L4_UL(x) x##UL
#endif

#define USTUB_BASE      L4_UL(0xffffffffc0800000)   /* as in Pistachio */
#define USTUB_SLOT      0x80
#define USTUB_SLOTS     32                     /* one 4 KiB page */
#define USER_GS_PAGE    (USTUB_BASE + 0x1000)  /* %gs:0 = current UTCB pointer */

/* Assembler-visible numbers; keep in step with L4_SYSCALL_TABLE below. */
#define SYSNR_IPC               0
#define SYSNR_LIPC              1   /* unused: Lipc shares Ipc's stub, as in Pistachio */
#define SYSNR_UNMAP             2
#define SYSNR_EXCHANGE_REGS     3
#define SYSNR_SYSTEM_CLOCK      4
#define SYSNR_THREAD_SWITCH     5
#define SYSNR_SCHEDULE          6
#define SYSNR_SPACE_CONTROL     7
#define SYSNR_THREAD_CONTROL    8
#define SYSNR_PROCESSOR_CONTROL 9
#define SYSNR_MEMORY_CONTROL    10
#define SYSNR_COUNT             11

/* X(number, name, KIP offset of its pointer) */
#define L4_SYSCALL_TABLE(X) \
	X(SYSNR_IPC,               ipc,                0x1C0) \
	X(SYSNR_IPC,               lipc,               0x1C8) \
	X(SYSNR_UNMAP,             unmap,              0x1D0) \
	X(SYSNR_EXCHANGE_REGS,     exchange_registers, 0x1D8) \
	X(SYSNR_SYSTEM_CLOCK,      system_clock,       0x1E0) \
	X(SYSNR_THREAD_SWITCH,     thread_switch,      0x1E8) \
	X(SYSNR_SCHEDULE,          schedule,           0x1F0) \
	X(SYSNR_SPACE_CONTROL,     space_control,      0x1A0) \
	X(SYSNR_THREAD_CONTROL,    thread_control,     0x1A8) \
	X(SYSNR_PROCESSOR_CONTROL, processor_control,  0x1B0) \
	X(SYSNR_MEMORY_CONTROL,    memory_control,     0x1B8)

/*
 * UTCB words (reserved in X.2, relative to the UTCB pointer) where the
 * MemoryControl stub parks attributes 0 and 3: `syscall` destroys RCX and R11.
 */
#define USTUB_MEMCTL_ATTR0  (-0x18)
#define USTUB_MEMCTL_ATTR3  (-0x10)

#define USTUB_ENTRY(nr)  (USTUB_BASE + (nr) * USTUB_SLOT)
/* The return address `syscall` leaves in RCX for an Ipc or Lipc call. */
#define USTUB_IPC_RETURN (USTUB_BASE + 2)

#endif
