// SPDX-License-Identifier: MIT
// Several processors on x86: the MADT, the local APICs, INIT-SIPI-SIPI, per-CPU interrupts.
#include <arch.h>
#include "io.h"
#include "acpi.h"
#include "lapic.h"
#include "ioapic.h"
#include "../../printk.h"
#include "../../smp.h"

#define TRAMP_PHYS   0x7000            /* one page below 1 MiB, clear of QEMU's boot information at 0x9000 */
#define AP_STACK     16384

extern char ap_tramp[], ap_tramp_end[], ap_tramp_cr3[], ap_tramp_stack[], ap_tramp_arg[], ap_tramp_entry[];
extern char boot_pml4[];              /* boot.S: identity and -2 GiB maps of the first GiB */

static struct madt_info madt;
static paddr_t kernel_root;            /* the kernel's own page tables, which the others load */
static u8 apic_index[256];             /* local APIC ID -> processor index */
static bool smp_on;                    /* the local APICs are in use */
static u8 ap_stacks[CONFIG_MAX_CPUS][AP_STACK] __attribute__((aligned(16)));

void arch_cpu_init_ap(unsigned index);
void ap_entry(unsigned index) __attribute__((noreturn));

/* The boot CPU becomes index 0 whatever the MADT's order; the table gives every index. */
static void order_cpus(void)
{
	unsigned me = lapic_id();
	for (unsigned i = 1; i < madt.ncpus; i++)
		if (madt.apic_id[i] == me) {
			madt.apic_id[i] = madt.apic_id[0];
			madt.apic_id[0] = (u8)me;
		}
	for (unsigned i = 0; i < madt.ncpus; i++)
		apic_index[madt.apic_id[i]] = (u8)i;
}

u16 pic_hand_over(void);

/*
 * The ISA lines move from the 8259s to the I/O APIC, unmasked as they were
 * (the PIT's tick, already running), and the boot CPU stops listening to
 * the 8259 (LINT0).  Without an I/O APIC, or without CONFIG_IOAPIC, the
 * 8259 stays, through LINT0 (virtual-wire mode).
 */
static void interrupts_to_ioapic(void)
{
	if (!CONFIG_IOAPIC || !madt.ioapic_phys)
		return;
	u16 unmasked = pic_hand_over();
	lapic_pic_off();
	if (!ioapic_init(&madt, madt.apic_id[0], unmasked))
		panic("mp: the I/O APIC could not be set up");
	printk("pecan: interrupts: I/O APIC at %x (%u lines), the 8259s masked\n", madt.ioapic_phys,
	       ioapic_lines());
}

/* On the boot CPU before any thread runs (it reads the kernel's tables from CR3). */
unsigned arch_cpus_probe(void)
{
	u32 len;
	const u8 *t = acpi_find_madt(PHYS_MAP_BASE, &len);
	const char *err = t ? madt_parse(t, len, &madt) : "no ACPI MADT";
	if (err) {
		printk("pecan: processors: %s; using the boot processor only\n", err);
		return 1;
	}
	if (madt.ignored)
		printk("pecan: processors: %u beyond CONFIG_MAX_CPUS (%u) left idle\n", madt.ignored,
		       CONFIG_MAX_CPUS);
	if (madt.ncpus == 1 || !CONFIG_SMP)
		return 1;                      /* one processor: the PIC alone, as always */
	kernel_root = read_cr3();          /* no thread has run: the kernel's own tables */
	lapic_map(madt.lapic_phys);
	lapic_init(true);
	order_cpus();
	interrupts_to_ioapic();
	lapic_timer_calibrate();
	arch_copy(phys_to_virt(TRAMP_PHYS), ap_tramp, ap_tramp_end - ap_tramp);
	smp_on = true;
	return madt.ncpus;
}

unsigned arch_cpu_hw_id(unsigned index)
{
	return smp_on ? madt.apic_id[index] : 0;
}

static void tramp_set(const char *field, u64 v)
{
	*(volatile u64 *)phys_to_virt(TRAMP_PHYS + (word_t)(field - ap_tramp)) = v;
}

/*
 * INIT, then two startup IPIs (the second is ignored by a processor the
 * first started), as the MP specification says.  The processor runs
 * ap_entry(index) on its own stack; the caller waits for it to say so.
 * One processor at a time: they share the trampoline's parameter block.
 */
void arch_cpu_start(unsigned index)
{
	tramp_set(ap_tramp_cr3, (word_t)boot_pml4);
	tramp_set(ap_tramp_stack, (word_t)&ap_stacks[index][AP_STACK] - 8);   /* as after a call */
	tramp_set(ap_tramp_arg, index);
	tramp_set(ap_tramp_entry, (word_t)ap_entry);
	unsigned id = madt.apic_id[index];
	lapic_send_init(id);
	udelay(10000);
	lapic_send_startup(id, TRAMP_PHYS);
	udelay(200);
	lapic_send_startup(id, TRAMP_PHYS);
}

/* A started processor, in long mode on the boot tables: its own tables, then generic code. */
void ap_entry(unsigned index)
{
	write_cr3(kernel_root);
	arch_cpu_init_ap(index);
	lapic_init(false);
	smp_ap_main(index);
}

unsigned arch_cpu_index(void)
{
	return smp_on ? apic_index[lapic_id()] : 0;
}

void arch_cpu_wake(unsigned index)
{
	lapic_send_ipi(madt.apic_id[index], VEC_IPI_WAKE);
}

void arch_cpu_timer_start(word_t tick_us)
{
	lapic_timer_start(tick_us);
}

void arch_cpu_timer_stop(void)
{
	lapic_timer_stop();
}

/* Called by the stub in mp_entry.S for the spurious vector, which takes no EOI (the timer and the IPI: traps.c). */
void lapic_interrupt(word_t vector)
{
	(void)vector;
}
