// SPDX-License-Identifier: MIT
// The kernel-debugger protocol of abi.md §9 (a breakpoint trap and a marker) on the serial console.
#include "exception.h"
#include "config.h"
#include "printk.h"
#include "sched.h"
#include "space.h"
#include "mapping.h"
#include "ipc.h"
#include "check.h"
#include <l4/kdebug.h>
#include <l4/thread.h>

#define POLL_TIMEOUT 0x03e8          /* X.2 relative timeout: 1000 µs (m = 1000, e = 0) */

/*
 * PrintString: output is open to every thread, but an unprivileged one
 * gets a shorter string per call, so one call keeps interrupts off only
 * briefly.
 */
static void print_user_string(word_t va)
{
	int max = current->space->privileged ? CONFIG_KDB_STRING_MAX : CONFIG_KDB_STRING_MAX_UNPRIV;
	for (int i = 0; i < max; i++) {
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

/* L4_KDB_Enter: the instructions after the trap carry the message's address (abi.md §9). */
static bool kdb_enter(struct trapframe *tf)
{
	u8 insn[ARCH_KDB_ENTER_LEN];
	word_t msg;
	if (!space_read(current->space, frame_ip(tf), insn, sizeof(insn)) || !kdb_enter_message(insn, &msg))
		return false;
	printk("--- KDB: ");
	print_user_string(msg);
	printk(" ---\n");
	return true;     /* continue after the trap, which jumps over the message */
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

/*
 * Sleep about one tick in a kernel receive from ourselves (nobody else can
 * send to it): interrupts are on and other threads run meanwhile.  False if
 * ExchangeRegisters aborted the wait.
 */
static bool sleep_tick(void)
{
	struct tcb *t = current;
	t->ipc_kind = IPC_KERNEL;
	ipc_do(t, L4_NILTHREAD, t->id, L4_TIMEOUTS(0, POLL_TIMEOUT));
	t->ipc_kind = IPC_USER;
	return L4_IPC_CODE(t->ipc_error) == L4_IPC_TIMEOUT;
}

/*
 * ReadChar and ReadChar_Blocked: the console's input belongs to the
 * privileged spaces (sigma0's and the root task's); anyone else gets -1 at
 * once.  The blocking form polls the port once per tick and never holds
 * the CPU; an abort through ExchangeRegisters also ends it with -1.
 */
static word_t read_char(bool block)
{
	if (!current->space->privileged)
		return ~0UL;
	for (;;) {
		int c = arch_console_getc(false);
		if (c >= 0)
			return (word_t)c;
		if (!block || !sleep_tick())
			return ~0UL;
	}
}

/* Run every consistency check: the failed checks, and free pool frames second (kdebug.h). */
static void check_kernel_op(struct trapframe *tf)
{
	if (!CONFIG_CHECK || !current->space->privileged) {
		kdb_set_result(tf, ~0UL);
		return;
	}
	kdb_set_result(tf, check_kernel(kdb_result2(tf)));
}

static bool kdb_op(struct trapframe *tf, u8 op)
{
	switch (op) {
	case KDB_OP_PRINT_CHAR:
		printk("%c", (char)kdb_arg(tf));
		return true;
	case KDB_OP_PRINT_STRING:
		print_user_string(kdb_arg(tf));
		return true;
	case KDB_OP_READ_CHAR:
	case KDB_OP_READ_CHAR_BLK:
		kdb_set_result(tf, read_char(op == KDB_OP_READ_CHAR_BLK));
		return true;
	case KDB_OP_POWER_OFF:
		if (!current->space->privileged) {
			printk("pecan: power-off request from unprivileged thread %lu.%lu refused\n",
			       l4_thread_no(current->id), l4_version(current->id));
			return true;
		}
		halt_system((int)kdb_arg(tf), "power off requested by %s (status %lu)", current->name,
			    kdb_arg(tf));
	case KDB_OP_CHECK_MAPPINGS:
		kdb_set_result(tf, check_mappings());
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
	u8 marker[ARCH_KDB_MARKER_LEN], op;
	if (current->space->strict && current->space->redirector)
		return false;   /* a strictly confined space: the trap is its exception, for its handler */
	if (!space_read(current->space, frame_ip(tf), marker, sizeof(marker)))
		return false;
	if (kdb_marker(marker, &op))
		return kdb_op(tf, op);
	return kdb_enter(tf);
}

static const char *const state_names[] = {
	[TS_INACTIVE] = "inactive", [TS_READY] = "ready", [TS_SEND_BLOCKED] = "sending to",
	[TS_RECV_BLOCKED] = "receiving from", [TS_HALTED] = "halted", [TS_IDLE] = "idle",
};

static void print_partner(word_t id)
{
	if (id == L4_ANYTHREAD)
		printk(" any");
	else if (id == L4_ANYLOCALTHREAD)
		printk(" any local");
	else
		printk(" %lu.%lu", l4_thread_no(id), l4_version(id));
}

static void dump_threads(void)
{
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		struct tcb *t = tcb_by_number(no);
		if (!t || !thread_is_user(t))
			continue;
		printk("  %lu.%lu %s: %s", l4_thread_no(t->id), l4_version(t->id), t->name,
		       t->state < sizeof(state_names) / sizeof(state_names[0]) ? state_names[t->state] : "?");
		if (t->state == TS_SEND_BLOCKED || t->state == TS_RECV_BLOCKED)
			print_partner(t->partner);
		printk("%s\n", t->stopped ? " (stopped)" : "");
	}
}

void kdb_deadlock(void)
{
	printk("pecan: deadlock: no thread can run and no interrupt can come; halted\n");
	dump_threads();
	printk("pecan: kernel debugger: 't' lists the threads, 'p' powers off\n");
	for (;;) {
		int c;
		while ((c = arch_console_getc(false)) >= 0)   /* every key that came, before idling */
			if (c == 't')
				dump_threads();
			else if (c == 'p')
				halt_system(HALT_IDLE, "powered off from the kernel debugger");
		arch_idle_wait();
	}
}
