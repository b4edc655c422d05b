// SPDX-License-Identifier: MIT
// The kernel-debugger int3 protocol of abi.md §9 on the serial console.
#include "exception.h"
#include "config.h"
#include "printk.h"
#include "sched.h"
#include "space.h"
#include "mapping.h"
#include "check.h"
#include <l4/kdebug.h>

static void print_user_string(word_t va)
{
	for (int i = 0; i < CONFIG_KDB_STRING_MAX; i++) {
		char c;
		if (!space_read(current->space, va + i, &c, 1)) {
			printk("<kdb: bad string address %lx>", va + i);
			return;
		}
		if (!c)
			return;
		printk("%c", c);
	}
}

/* L4_KDB_Enter: `int3; jmp rel8; mov $imm32, %rax` with imm32 the message. */
static bool kdb_enter(struct trapframe *tf)
{
	u8 insn[9];
	if (!space_read(current->space, tf->rip, insn, sizeof(insn)) || insn[0] != 0xEB ||
	    insn[2] != 0x48 || insn[3] != 0xC7 || insn[4] != 0xC0)
		return false;
	i64 msg = (int)(insn[5] | insn[6] << 8 | insn[7] << 16 | (u32)insn[8] << 24);
	printk("--- KDB: ");
	print_user_string((word_t)msg);
	printk(" ---\n");
	return true;     /* continue after the int3, which takes the jmp */
}

/* Walk the mapping database and print the verdict; 0 if consistent, 1 if not, 2 if refused. */
static word_t check_mappings(void)
{
	if (!current->space->privileged)
		return 2;
	word_t nodes;
	const char *err = mapping_check(&nodes);
	if (err)
		printk("pecan: mapping database INCONSISTENT (%lu mappings): %s\n", nodes, err);
	else
		printk("pecan: mapping database consistent, %lu mappings\n", nodes);
	return err ? 1 : 0;
}

/* Run every consistency check: RAX = failed checks, RDX = free pool frames (kdebug.h). */
static void check_kernel_op(struct trapframe *tf)
{
	if (!CONFIG_CHECK || !current->space->privileged) {
		tf->rax = ~0UL;
		return;
	}
	tf->rax = check_kernel(&tf->rdx);
}

static bool kdb_op(struct trapframe *tf, u8 op)
{
	switch (op) {
	case KDB_OP_PRINT_CHAR:
		printk("%c", (char)tf->rax);
		return true;
	case KDB_OP_PRINT_STRING:
		print_user_string(tf->rax);
		return true;
	case KDB_OP_READ_CHAR:
	case KDB_OP_READ_CHAR_BLK:
		tf->rax = (word_t)arch_console_getc(op == KDB_OP_READ_CHAR_BLK);
		return true;
	case KDB_OP_POWER_OFF:
		if (!current->space->privileged) {
			printk("pecan: power-off request from unprivileged thread %lx refused\n", current->id);
			return true;
		}
		halt_system((int)tf->rax, "power off requested by %s (status %lu)", current->name, tf->rax);
	case KDB_OP_CHECK_MAPPINGS:
		tf->rax = check_mappings();
		return true;
	case KDB_OP_CHECK_KERNEL:
		check_kernel_op(tf);
		return true;
	default:
		return false;
	}
}

bool kdb_trap(struct trapframe *tf)
{
	u8 marker[2];
	if (!space_read(current->space, tf->rip, marker, 2))
		return false;
	if (marker[0] == 0x3C)          /* cmpb $op, %al: executes harmlessly on return */
		return kdb_op(tf, marker[1]);
	return kdb_enter(tf);
}
