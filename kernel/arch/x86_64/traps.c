// SPDX-License-Identifier: MIT
// CPU exceptions: user-mode ones go to the generic exception code, kernel-mode ones stop the machine.
#include <arch.h>
#include "io.h"
#include "../../printk.h"
#include "../../exception.h"
#include "../../timer.h"
#include "../../irq.h"
#include "../../sched.h"
#include "../../space.h"
#include "../../smp.h"
#include "lapic.h"
#include <l4/pecan.h>
#include <l4/thread.h>

/* entry.S: a fault-tolerant two-byte read of user memory */
u32 user_read2(word_t va);
extern char user_read2_insn[], user_read2_fixup[];
extern char trap_exc_kif_insn[], trap_exc_kif_fixup[];     /* entry.S: trap_exc's read of the bytes at RIP */

#define VEC_IRQ0 32               /* PIC line n arrives as vector 32 + n */
#define VEC_NMI 2

static const char *const names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
	"#BR bound range", "#UD invalid opcode", "#NM device not available",
	"#DF double fault", "coprocessor overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved", "#MF x87 error", "#AC alignment check",
	"#MC machine check", "#XM SIMD error", "#VE virtualization",
	"#CP control protection",
};

const char *arch_vector_name(word_t v)
{
	if (v < 32 && names[v])
		return names[v];
	return v == VEC_SYSCALL || v == VEC_SYSCALL_IRET ? "syscall" : "interrupt";
}

void arch_dump_frame(const struct trapframe *tf)
{
	printk("  rip %016lx  cs %lx  rflags %016lx  rsp %016lx  ss %lx\n",
	       tf->rip, tf->cs, tf->rflags, tf->rsp, tf->ss);
	printk("  rax %016lx  rbx %016lx  rcx %016lx  rdx %016lx\n", tf->rax, tf->rbx, tf->rcx, tf->rdx);
	printk("  rsi %016lx  rdi %016lx  rbp %016lx  r8  %016lx\n", tf->rsi, tf->rdi, tf->rbp, tf->r8);
	printk("  r9  %016lx  r10 %016lx  r11 %016lx  r12 %016lx\n", tf->r9, tf->r10, tf->r11, tf->r12);
	printk("  r13 %016lx  r14 %016lx  r15 %016lx\n", tf->r13, tf->r14, tf->r15);
	printk("  cr2 %016lx  cr3 %016lx  error %lx\n", read_cr2(), read_cr3(), tf->error);
}

static void kernel_fault(struct trapframe *tf)
{
	printk("\npecan: KERNEL FAULT: %s (vector %lu) at rip %lx, address %lx\n",
	       arch_vector_name(tf->vector), tf->vector, tf->rip,
	       tf->vector == 14 ? read_cr2() : 0UL);
	arch_dump_frame(tf);
	halt_system(HALT_KERNEL_FAULT, "stopped after a kernel fault");
}

/*
 * An NMI is the kernel's, wherever it lands: it runs on its own IST stack
 * and is never a user exception (a thread could block on that stack, and a
 * second NMI would overwrite the frame).  The handler only counts it and
 * returns through the same frame: it takes no lock, switches no thread and
 * cannot fault, so NMIs stay blocked until its iretq and can never nest.
 * There is no NMI source the kernel uses; one from outside (a watchdog, the
 * QEMU monitor) is reported once and otherwise ignored.
 */
static void nmi(const struct trapframe *tf)
{
	static bool reported;
	word_t *count = &user_gs_page[((tf->cs & 3) ? PECAN_NMI_USER_ADDR : PECAN_NMI_KERNEL_ADDR) / 8 -
				      USER_GS_PAGE / 8];
	++*count;
	if (!reported) {
		reported = true;
		printk("pecan: NMI at rip %lx (%s mode) handled in the kernel\n", tf->rip,
		       (tf->cs & 3) ? "user" : "kernel");
	}
}

/*
 * entry.S found a non-canonical RIP in a frame it was about to leave
 * through.  No path should build one; if one does, the thread takes a #GP
 * (as a jump there would give it), never the kernel.
 */
struct trapframe *exit_bad_rip(struct trapframe *tf)
{
	smp_enter();
	if ((tf->cs & 3) == 0)
		kernel_fault(tf);
	printk("pecan: exit to non-canonical rip %lx refused; thread %lu.%lu takes a #GP\n",
	       tf->rip, l4_thread_no(current->id), l4_version(current->id));
	tf->vector = VEC_GP;
	tf->error = 0;
	return exception_user(tf, 0);
}

static struct trapframe *trap_other(struct trapframe *tf);

/*
 * Returns the frame to return through (the exception fastpath leaves into
 * the handler from within instead).  A user thread's exception above the NMI's vector goes
 * straight on (the exception fastpath's way); the rest, #DE and #DB from
 * user mode included, is out of line.
 */
struct trapframe *trap_dispatch(struct trapframe *tf)
{
	if ((tf->cs & 3) && tf->vector - (VEC_NMI + 1) < VEC_IRQ0 - (VEC_NMI + 1)) {
		smp_enter();
		return exception_user(tf, tf->vector == 14 ? read_cr2() : 0);
	}
	return trap_other(tf);
}

static __attribute__((noinline)) struct trapframe *trap_other(struct trapframe *tf)
{
	if (tf->vector == VEC_NMI) {
		nmi(tf);
		return tf;
	}
	if (tf->vector == VEC_LAPIC_TIMER || tf->vector == VEC_IPI_WAKE) {
		lapic_eoi();
		smp_interrupt(tf->vector == VEC_LAPIC_TIMER);   /* takes the lock once it is in force */
		return tf;
	}
	smp_enter();
	if (tf->vector >= VEC_IRQ0 && tf->vector < VEC_IRQ0 + ARCH_NUM_IRQS) {
		unsigned irq = tf->vector - VEC_IRQ0;
		/* EOI first: the tick and the IRQ IPC may switch threads */
		if (irq == ARCH_IRQ_TIMER) {
			arch_irq_ack(irq);
			timer_tick();
			if ((tf->cs & 3) && current->preempt_pending)
				preemption_ipc(tf);
		} else {
			irq_raise(irq);
		}
		return tf;
	}
	if ((tf->cs & 3) == 0 && tf->vector == 14 && tf->rip == (word_t)user_read2_insn) {
		tf->rip = (word_t)user_read2_fixup;     /* arch_user_read2 fails */
		return tf;
	}
	if ((tf->cs & 3) == 0 && tf->vector == 14 && tf->rip == (word_t)trap_exc_kif_insn) {
		tf->rip = (word_t)trap_exc_kif_fixup;   /* no KernelInterface there */
		return tf;
	}
	if ((tf->cs & 3) == 0)
		kernel_fault(tf);
	return exception_user(tf, tf->vector == 14 ? read_cr2() : 0);
}

/* The imm8 and DX forms, 0x66 for 16 bits. */
bool arch_io_instruction(const struct trapframe *tf, word_t *port, word_t *log2, word_t *rwx)
{
	u8 op[2];
	if (!space_read(current->space, tf->rip, op, 2))
		return false;
	bool wide16 = op[0] == 0x66;
	u8 o = wide16 ? op[1] : op[0], imm;
	if ((o & 0xf4) != 0xe4)                  /* e4-e7: imm8, ec-ef: dx */
		return false;
	if (o & 0x08)
		*port = tf->rdx & 0xffff;
	else if (space_read(current->space, tf->rip + 1 + wide16, &imm, 1))
		*port = imm;
	else
		return false;
	*log2 = (o & 1) ? (wide16 ? 1 : 2) : 0;
	*rwx = (o & 2) ? MAP_W : MAP_R;
	return true;
}

bool arch_user_read2(word_t va, u16 *out)
{
	if (va >= USER_TOP - 1)
		return false;
	u32 v = user_read2(va);
	*out = (u16)v;
	return v <= 0xffff;
}
