// SPDX-License-Identifier: MIT
// Processor set-up: GDT, TSS, IDT, the syscall MSRs, SSE, the PIC and the %gs page.
#include <arch.h>
#include "io.h"
#include "../../printk.h"
#include "../../sched.h"
#include "../../space.h"
#include "arch_switch.h"
#include "lapic.h"
#include "../../config.h"
#include <l4/syscalls.h>

#define IOMAP_BYTES   (IO_PORTS / 8)

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
	u8 iomap[IOMAP_BYTES + 1];   /* every port; the extra 0xff byte ends the map */
} __attribute__((packed));

struct idt_gate {
	u16 off0, sel;
	u8 ist, type;
	u16 off1;
	u32 off2, reserved;
} __attribute__((packed));

struct desc_ptr {
	u16 limit;
	u64 base;
} __attribute__((packed));

#define IST_DOUBLE_FAULT 1
#define IST_NMI          2

static u64 gdt[9];
/* The boot CPU's TSS; entry.S reads RSP0 (at byte 4) as the current thread's kernel stack top. */
struct tss cpu_tss;
static struct idt_gate idt[256];
static u8 ist_stacks[2][4096] __attribute__((aligned(16)));
/*
 * The other processors' tables and exception stacks (index 0 is the boot
 * CPU's, above).  They run no user thread yet, so their TSS has no ports
 * and no RSP0 (docs/architecture.md, "Several processors").
 */
static u64 ap_gdt[CONFIG_MAX_CPUS][9];
static struct tss ap_tss[CONFIG_MAX_CPUS];
static u8 ap_ist[CONFIG_MAX_CPUS][2][4096] __attribute__((aligned(16)));
/* The page user code reads through %gs: word 0 is the current UTCB pointer. */
u64 user_gs_page[512] __attribute__((aligned(4096), section(".bss.pagealigned")));
/* The other processors' %gs pages, at ARCH_GS_PAGE(index) in every space (paging.c). */
u64 ap_gs_pages[CONFIG_MAX_CPUS][512] __attribute__((aligned(4096), section(".bss.pagealigned")));
u64 *arch_gs_page = user_gs_page;
/*
 * entry.S: each other processor enters `syscall` through its own stub
 * (its LSTAR), which finds its kernel stack top through ap_rsp0[index].
 */
word_t *ap_rsp0[CONFIG_MAX_CPUS];
extern char ap_syscall_entries[], ap_syscall32_entries[];
_Static_assert(CONFIG_MAX_CPUS <= 8, "entry.S has eight processors' syscall stubs");

extern char isr_table[];
extern char syscall_entry[], syscall32_entry[];
extern char lapic_isr_timer[], lapic_isr_wake[], lapic_isr_spurious[];

static void io_enable(unsigned i, const struct space *s);

/* One processor's GDT with its TSS (IST stacks for #DF and NMI, every port denied), loaded. */
static void gdt_init(u64 *g, struct tss *tss, u8 (*ist)[4096])
{
	g[0] = 0;
	g[1] = 0x00af9a000000ffffUL;   /* 0x08 kernel code, 64-bit */
	g[2] = 0x00cf92000000ffffUL;   /* 0x10 kernel data */
	g[3] = 0x00cffa000000ffffUL;   /* 0x18 user code, 32-bit (sysret base) */
	g[4] = 0x00cff2000000ffffUL;   /* 0x20 user data */
	g[5] = 0x00affa000000ffffUL;   /* 0x28 user code, 64-bit */
	g[6] = 0x00cff2000000ffffUL;   /* 0x30 user data for %gs */
	u64 base = (u64)tss, limit = sizeof(*tss) - 1;
	g[7] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
	       ((limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xff) << 56);
	g[8] = base >> 32;
	tss->ist[IST_DOUBLE_FAULT - 1] = (u64)&ist[0][4096];
	tss->ist[IST_NMI - 1] = (u64)&ist[1][4096];
	for (int i = 0; i <= IOMAP_BYTES; i++)
		tss->iomap[i] = 0xff;     /* ring 3 has no ports unless its space is given some */
	tss->iomap_base = sizeof(*tss);

	struct desc_ptr p = { 9 * sizeof(u64) - 1, (u64)g };
	__asm__ __volatile__(
		"lgdt %0\n"
		"pushq $0x08\n"
		"leaq 1f(%%rip), %%rax\n"
		"pushq %%rax\n"
		"lretq\n"
		"1: movw $0x10, %%ax\n"
		"movw %%ax, %%ds; movw %%ax, %%es; movw %%ax, %%ss\n"
		"xorl %%eax, %%eax; movw %%ax, %%fs\n"
		"movw $0x33, %%ax; movw %%ax, %%gs\n"
		"movw $0x38, %%ax; ltr %%ax\n"
		/*
		 * A null LDT.  Without it LDTR keeps its reset value (base 0,
		 * limit 0xffff): selectors with TI set would fetch descriptors
		 * from address 0 of the user's space, which it can fill with a
		 * call gate into ring 0.
		 */
		"xorl %%eax, %%eax; lldt %%ax\n"
		: : "m"(p) : "rax", "memory");
}

static void idt_set(int vec, word_t handler, int dpl, int ist)
{
	idt[vec] = (struct idt_gate){
		.off0 = handler & 0xffff, .sel = SEL_KCODE, .ist = ist,
		.type = 0x8e | (dpl << 5), .off1 = handler >> 16 & 0xffff,
		.off2 = handler >> 32,
	};
}

static void idt_load(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (u64)idt };
	__asm__ __volatile__("lidt %0" : : "m"(p));
}

static void idt_init(void)
{
	for (int v = 0; v < 48; v++)
		idt_set(v, (word_t)isr_table + 16 * v, 0, 0);
	idt_set(3, (word_t)isr_table + 16 * 3, 3, 0);         /* int3 from user: KDB */
	idt_set(2, (word_t)isr_table + 16 * 2, 0, IST_NMI);
	idt_set(8, (word_t)isr_table + 16 * 8, 0, IST_DOUBLE_FAULT);
	/* the local APIC's vectors (lapic.h): only ever raised when several processors run */
	idt_set(VEC_LAPIC_TIMER, (word_t)lapic_isr_timer, 0, 0);
	idt_set(VEC_IPI_WAKE, (word_t)lapic_isr_wake, 0, 0);
	idt_set(VEC_LAPIC_SPURIOUS, (word_t)lapic_isr_spurious, 0, 0);
	idt_load();
}

static void fpu_init(void)
{
	u64 cr0, cr4;
	__asm__ __volatile__("mov %%cr0, %0" : "=r"(cr0));
	cr0 = (cr0 | CR0_MP | CR0_NE) & ~(u64)(CR0_EM | CR0_TS);
	__asm__ __volatile__("mov %0, %%cr0" : : "r"(cr0));
	__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
	cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT;
	__asm__ __volatile__("mov %0, %%cr4; fninit" : : "r"(cr4));
}

/* SMEP where the CPU has it: ring 0 never executes a user page, whatever goes wrong. */
static void smep_init(void)
{
	u32 a, b, c, d;
	cpuid(0, &a, &b, &c, &d);
	if (a < 7)
		return;
	cpuid(7, &a, &b, &c, &d);
	if (!(b & (1u << 7)))
		return;
	u64 cr4;
	__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
	__asm__ __volatile__("mov %0, %%cr4" : : "r"(cr4 | CR4_SMEP));
}

static void syscall_init(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE | EFER_NXE);
	wrmsr(MSR_STAR, (u64)SEL_UCODE32 << 48 | (u64)SEL_KCODE << 32);
	wrmsr(MSR_LSTAR, (u64)syscall_entry);
	wrmsr(MSR_CSTAR, (u64)syscall32_entry);     /* else compat-mode syscall enters ring 0 at 0 */
	/* clear IF, TF, DF, AC, NT, IOPL and RF on entry */
	wrmsr(MSR_SFMASK, RFLAGS_IF | (1 << 8) | (1 << 10) | (1 << 18) | (1 << 14) | RFLAGS_IOPL3 | (1 << 16));
	wrmsr(MSR_GS_BASE, USER_GS_PAGE);
}

void arch_cpu_init(void)
{
	gdt_init(gdt, &cpu_tss, ist_stacks);
	io_enable(0, NULL);
	idt_init();
	arch_pic_init();
	fpu_init();
	smep_init();
	syscall_init();
}

/* Processor index (> 0) as it starts (mp.c): its own GDT, TSS and IST stacks, the shared IDT. */
void arch_cpu_init_ap(unsigned index)
{
	gdt_init(ap_gdt[index], &ap_tss[index], ap_ist[index]);
	ap_tss[index].iomap_base = arch_iomap_off;      /* no ports until a thread of a space with some runs */
	ap_rsp0[index] = (word_t *)((u8 *)&ap_tss[index] + 4);
	idt_load();
	fpu_init();
	smep_init();
	syscall_init();
	wrmsr(MSR_LSTAR, ((u64 *)ap_syscall_entries)[index]);
	wrmsr(MSR_CSTAR, ((u64 *)ap_syscall32_entries)[index]);
	wrmsr(MSR_GS_BASE, ARCH_GS_PAGE(index));
	arch_copy(ap_gs_pages[index], user_gs_page, sizeof user_gs_page);   /* variant and build words */
}

/* Several processors run threads: the boot CPU's `syscall` takes the lock before its fastpath (entry.S). */
void arch_smp_entry(void)
{
	extern char syscall_entry_smp[];
	wrmsr(MSR_LSTAR, (u64)syscall_entry_smp);
}

static void io_globals(unsigned index);

void arch_cpu_globals(unsigned index)
{
	arch_gs_page = index ? ap_gs_pages[index] : user_gs_page;
	arch_tss_rsp0 = index ? ap_rsp0[index] : (word_t *)((u8 *)&cpu_tss + 4);
	io_globals(index);
}

void arch_thread_moved(struct tcb *t, unsigned index)
{
	u32 off = t->arch.gs_lo - (u32)USER_GS_PAGE;
	if (off >= CONFIG_MAX_CPUS * 0x1000 || (off & 0xfff))
		return;                     /* a base it set itself */
	t->arch.gs_lo = (u32)ARCH_GS_PAGE(index);   /* the page of the processor it runs on */
	if (t == current)
		wrmsr(MSR_GS_BASE, ARCH_GS_PAGE(index));   /* the switch away reads the base back */
}

void arch_set_utcb_pointer(word_t utcb)
{
	arch_gs_page[0] = utcb;
}

/*
 * I/O permissions: each processor's TSS bitmap (a set bit forbids a port)
 * holds some space's I/O fpages for ports 0..IO_PORTS-1, in force (the
 * TSS's bitmap offset points at it) only while a thread of that space
 * that has used ports runs (arch_switch.h); otherwise the offset lies past
 * the TSS's limit (every port denied).  The bitmap is copied only when a
 * different space's ports go in force.  A processor's state is in
 * io_cpus; the lock holder's `loaded`, `on` and TSS offset are also the
 * globals the inline switch reads (arch_io_loaded, arch_io_on,
 * arch_iomap_base), and its `on` is read there (the inline switch changes
 * only the global).  arch_cpu_globals moves them when another processor
 * takes the lock.
 */
struct io_cpu {
	const struct space *loaded;     /* whose bitmap its TSS holds */
	word_t top;                     /* bytes at the bitmap's start that may hold a clear bit (the rest are 0xff) */
	u8 on;                          /* loaded's ports are in force */
};
static struct io_cpu io_cpus[CONFIG_MAX_CPUS];
static unsigned io_holder;              /* whose state the globals hold */
const struct space *arch_io_loaded;
u8 arch_io_on;          /* arch_io_loaded's ports are in force (one byte: the switch's test) */
u16 *arch_iomap_base = (u16 *)((u8 *)&cpu_tss + offsetof(struct tss, iomap_base));
const u16 arch_iomap_on = offsetof(struct tss, iomap), arch_iomap_off = sizeof(cpu_tss);

static struct tss *tss_of(unsigned i)
{
	return i ? &ap_tss[i] : &cpu_tss;
}

/* Processor i's state with the holder's globals written back. */
static struct io_cpu *io_of(unsigned i)
{
	if (i == io_holder) {
		io_cpus[i].loaded = arch_io_loaded;
		io_cpus[i].on = arch_io_on;
	}
	return &io_cpus[i];
}

/* After a change to io_cpus[i]: the holder's globals follow. */
static void io_publish(unsigned i)
{
	if (i == io_holder) {
		arch_io_loaded = io_cpus[i].loaded;
		arch_io_on = io_cpus[i].on;
	}
}

static void io_globals(unsigned index)
{
	io_of(io_holder);
	io_holder = index;
	arch_iomap_base = (u16 *)((u8 *)tss_of(index) + offsetof(struct tss, iomap_base));
	io_publish(index);
}

/* On processor i: s's ports in force (s is its loaded space), or none (NULL). */
static void io_enable(unsigned i, const struct space *s)
{
	tss_of(i)->iomap_base = s ? arch_iomap_on : arch_iomap_off;
	io_of(i)->on = s != NULL;
	io_publish(i);
}

/* Only the bytes either space uses are written: most spaces use the first 128 (ISA ports). */
static void io_load(unsigned i, const struct space *s)
{
	struct io_cpu *c = io_of(i);
	u8 *map = tss_of(i)->iomap;
	word_t top = s ? s->io_top : 0;
	if (top)
		arch_copy(map, s->io_deny, top);
	if (c->top > top) {                     /* deny what the previous space had beyond ours */
		u8 *d = map + top;
		word_t n = c->top - top;
		__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(0xff) : "memory");
	}
	c->top = top;
	c->loaded = s;
	io_publish(i);
}

/* Processor i runs a thread of s: s's ports in force there. */
static void io_switch_on(unsigned i, const struct space *s)
{
	if (!s || !s->io_any) {
		io_enable(i, NULL);
		return;
	}
	if (s != io_of(i)->loaded)
		io_load(i, s);
	io_enable(i, s);
}

void arch_io_switch(const struct space *s)
{
	io_switch_on(io_holder, s);
}

void arch_io_switch_current(void)
{
	arch_io_switch(current->space);
}

/*
 * Space s's port p changed (mapping.c): every processor whose TSS holds
 * s's bitmap follows it (the CPU reads the bitmap at every `in` and `out`,
 * so a port taken away is gone when this returns).  A port given is put
 * in force where it is not yet by the first use (arch_io_lazy).
 */
void arch_io_changed(const struct space *s, unsigned port)
{
	for (unsigned i = 0; i < cpu_count; i++) {
		struct io_cpu *c = io_of(i);
		if (s == c->loaded) {
			tss_of(i)->iomap[port / 8] = s->io_deny[port / 8];
			if (s->io_top > c->top)
				c->top = s->io_top;
		}
	}
}

/*
 * A port the space has but the TSS does not have in force faults with
 * error code 0, as does one it lacks: the ports go in force and the
 * instruction runs again, to fault for good (an I/O page fault or an
 * exception IPC) only if they were in force.  The switch puts them in
 * force for t from now on.
 */
bool arch_io_lazy(struct tcb *t)
{
	const struct space *s = t->space;
	if (!s->io_any || (arch_io_on && arch_io_loaded == s))
		return false;
	t->arch.io_user = 1;
	arch_io_switch(s);
	return true;
}

/* Space s goes away: no processor keeps its bitmap loaded. */
void arch_io_forget(const struct space *s)
{
	for (unsigned i = 0; i < cpu_count; i++) {
		if (s != io_of(i)->loaded)
			continue;
		if (io_cpus[i].on)
			io_enable(i, NULL);
		io_load(i, NULL);
	}
}

/* rsp0 sits at byte 4 of the TSS, as the hardware wants it (x86 allows the misalignment) */
word_t *const arch_boot_rsp0 = (word_t *)((u8 *)&cpu_tss + 4);
word_t *arch_tss_rsp0 = (word_t *)((u8 *)&cpu_tss + 4);     /* the lock holder's (smp.c) */

void arch_poweroff(int status)
{
	/*
	 * isa-debug-exit makes QEMU exit with 2 * value + 1.  Writing status + 1
	 * keeps every power-off (2 * status + 3) apart from QEMU's own exit 1
	 * for its errors and 0 for a stop without power-off (tools/run decodes).
	 */
	outl(0xf4, (u32)status + 1);
	for (;;)
		__asm__ __volatile__("cli; hlt");
}
