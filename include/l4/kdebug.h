/* SPDX-License-Identifier: MIT */
/*
 * Kernel-debugger conventions: `int3` followed by the marker `cmpb $op, %al`
 * (bytes 3C op).  L4_KDB_Enter is `int3; jmp 1f; mov $str, %rax; 1:`.
 */
#ifndef L4_KDEBUG_H
#define L4_KDEBUG_H

#define KDB_OP_PRINT_CHAR     0x00
#define KDB_OP_PRINT_STRING   0x01
#define KDB_OP_READ_CHAR      0x08
#define KDB_OP_READ_CHAR_BLK  0x0D
/* Pecan extension: power the machine off with status RAX (privileged tasks only). */
#define KDB_OP_POWER_OFF      0xF4
/* Pecan extension: check the mapping database; RAX = 0 if consistent (privileged tasks only). */
#define KDB_OP_CHECK_MAPPINGS 0xF5
/*
 * Pecan extension (privileged tasks only, CONFIG_CHECK): check every kernel
 * invariant (kernel/check.h) and print the verdict; RAX = mask of failed
 * checks (0: consistent, ~0: refused), RDX = free frames in the kernel pool.
 */
#define KDB_OP_CHECK_KERNEL   0xF6

#ifndef __ASSEMBLER__
static inline void L4_KDB_PrintChar(char c)
{
	__asm__ __volatile__("int3; cmpb $0x00, %%al" : : "a"(c) : "cc", "memory");
}
static inline void L4_KDB_PrintString(const char *s)
{
	__asm__ __volatile__("int3; cmpb $0x01, %%al" : : "a"(s) : "cc", "memory");
}
static inline int L4_KDB_ReadChar_Blocked(void)
{
	unsigned long c;
	__asm__ __volatile__("int3; cmpb $0x0d, %%al" : "=a"(c) : : "cc", "memory");
	return (int)c;
}
static inline void pecan_kdb_power_off(unsigned long status)
{
	__asm__ __volatile__("int3; cmpb $0xf4, %%al" : : "a"(status) : "cc", "memory");
}
#define L4_KDB_Enter(str) \
	__asm__ __volatile__("int3; jmp 1f; mov $" "2f" ", %%rax; .pushsection .rodata; 2: .asciz \"" str "\"; .popsection; 1:" \
			     : : : "rax", "cc", "memory")
#endif

#endif
