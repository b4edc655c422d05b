/* SPDX-License-Identifier: MIT */
/*
 * The fixed interface every architecture provides to the generic kernel.
 * Generic code includes <arch.h>; the build's include path picks the
 * architecture.
 */
#ifndef ARCH_H
#define ARCH_H

#include "../../types.h"
#include "asm.h"

/* Register state saved on kernel entry, at the top of the thread's kernel stack. */
struct trapframe {
	word_t rbx, r10, r12, r13, r14, r15;     /* MR2..MR16 of the exception message (sysregs.h) */
	word_t rax, rcx, rdx, rsi, rdi, rbp, r8, r9, r11;
	word_t vector, error;
	word_t rip, cs, rflags, rsp, ss;   /* the iretq frame */
};

#define TF_CHECK(field, word) \
	_Static_assert(offsetof(struct trapframe, field) == (word) * 8, "entry.S frame layout")
TF_CHECK(r15, TF_R15); TF_CHECK(r14, TF_R14); TF_CHECK(r13, TF_R13); TF_CHECK(r12, TF_R12); TF_CHECK(r11, TF_R11); TF_CHECK(r10, TF_R10);
TF_CHECK(r9, TF_R9); TF_CHECK(r8, TF_R8); TF_CHECK(rbp, TF_RBP); TF_CHECK(rdi, TF_RDI);
TF_CHECK(rsi, TF_RSI); TF_CHECK(rdx, TF_RDX); TF_CHECK(rcx, TF_RCX); TF_CHECK(rbx, TF_RBX);
TF_CHECK(rax, TF_RAX); TF_CHECK(vector, TF_VECTOR); TF_CHECK(rip, TF_RIP);
TF_CHECK(rflags, TF_RFLAGS); TF_CHECK(rsp, TF_RSP); TF_CHECK(error, TF_ERROR);
TF_CHECK(cs, TF_CS); TF_CHECK(ss, TF_SS);
_Static_assert(sizeof(struct trapframe) == TF_WORDS * 8, "entry.S frame size");

/* Per-thread architecture state. */
struct arch_thread {
	word_t ksp;                         /* saved kernel stack pointer, while cont[4] is 0 */
	word_t cont[7];                     /* a continuation's switch frame (context.c) */
	/*
	 * The thread's own data-segment selectors (%ds, %es, %fs, %gs) and
	 * GS.base, saved and restored on every switch: user code may load any
	 * selector (a %gs load also resets the base), and that must change its
	 * own view only (arch_switch.h).  GS.base is only ever 0 or
	 * USER_GS_PAGE, both the sign extension of their low half, which is all
	 * that is kept.  FS.base is the thread's TLS pointer, set only by its
	 * exception handler's reply (PECAN_EXC_REPLY_FSBASE); 0 means the CPU
	 * holds 0 while the thread runs.  fs_tag is 0 with it and unique to
	 * the thread without, so two threads whose seg2 words are equal have
	 * no FS.base and the same GS.base.
	 */
	union {
		u16 sel[4];                 /* %ds, %es, %fs, %gs */
		u64 sels;                   /* all four, compared at once */
	};
	union {
		struct {
			u32 gs_lo;
			u32 fs_tag;
		};
		u64 seg2;
	};
	word_t fs_base;
	/*
	 * The thread has used its space's I/O ports: its switch-in puts them in
	 * force (arch_switch.h).  A hint only, set at its first `in` or `out`
	 * (arch_io_lazy): whatever it says, only the ports of the space whose
	 * page table CR3 holds are ever in force.
	 */
	u8 io_user;
	u8 fpu[512] __attribute__((aligned(16)));   /* fxsave area */
};

static inline void *phys_to_virt(paddr_t p) { return (void *)(p + PHYS_MAP_BASE); }
static inline paddr_t virt_to_phys_direct(const void *v) { return (word_t)v - PHYS_MAP_BASE; }
static inline paddr_t kernel_virt_to_phys(const void *v) { return (word_t)v - KERNEL_VMA; }

/* Copy n bytes, 8 at a time where it can (string instructions, non-overlapping). */
static inline void arch_copy(void *d, const void *s, word_t n)
{
	word_t q = n / 8, r = n % 8;
	__asm__ __volatile__("rep movsq; movq %[r], %%rcx; rep movsb"
			     : "+D"(d), "+S"(s), "+c"(q) : [r] "r"(r) : "memory");
}

/* Copy n words (message registers: no byte tail to copy). */
static inline void arch_copy_words(word_t *d, const word_t *s, word_t n)
{
	__asm__ __volatile__("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* Zero n bytes, n a multiple of 8. */
static inline void arch_zero(void *d, word_t n)
{
	word_t q = n / 8;
	__asm__ __volatile__("rep stosq" : "+D"(d), "+c"(q) : "a"(0UL) : "memory");
}

/*
 * May a thread resume at user address ip?  sysretq to a non-canonical RIP
 * faults in ring 0, so no such RIP may reach it (or iretq).
 */
static inline bool arch_user_ip_valid(word_t ip)
{
	return (word_t)(((long)ip >> 47) + 1) <= 1;
}
#define ARCH_INVALID_USER_IP 0x8000000000000000UL   /* non-canonical (the badrip selftest) */

/*
 * New register state was written into tf (an exception handler's reply, or
 * ExchangeRegisters' IP or flags).  A frame from `syscall` leaves by
 * sysretq, which sets RCX to RIP and R11 to RFLAGS; where the frame's RCX
 * or R11 hold other values (a Linux rt_sigreturn restores an interrupted
 * context; a thread redirected after a foreign syscall's reply was
 * installed) it must leave by iretq instead, or those two registers would
 * be lost.
 */
static inline void arch_frame_state_set(struct trapframe *tf)
{
	if (tf->vector == VEC_SYSCALL && (tf->rcx != tf->rip || tf->r11 != tf->rflags))
		tf->vector = VEC_SYSCALL_IRET;
}

#define USER_TOP        0x0000800000000000UL   /* first non-user address */

/* May b be a thread's TLS base (FS.base)?  Only a user-half address. */
static inline bool arch_tls_base_valid(word_t b)
{
	return b < USER_TOP;
}

/* Page rights for arch_map (L4 fpage order: r = 4, w = 2, x = 1). */
#define MAP_R 4
#define MAP_W 2
#define MAP_X 1

struct tcb;

void arch_console_init(void);
void arch_console_putc(char c);
int arch_console_getc(bool block);       /* -1 if none and not blocking */
void arch_cpu_init(void);
void arch_paging_init(void);       /* kernel tables, direct map of the first 512 GiB */
void arch_poweroff(int status) __attribute__((noreturn));

/*
 * User page tables.  Every table is charged to the account passed (the
 * space's); a table left empty by an unmap goes back to the pool at once,
 * so a space holds tables only for what it maps.
 */
struct kmem_acct;
paddr_t arch_space_create(struct kmem_acct *a);   /* top-level table with the kernel half; 0 if OOM */
bool arch_map(struct kmem_acct *a, paddr_t root, word_t va, paddr_t pa, unsigned rights);
bool arch_lookup(paddr_t root, word_t va, paddr_t *pa, unsigned *rights);
/* arch_map where va has no entry yet: MAP_NEW_OK (mapped), MAP_NEW_EXISTS or MAP_NEW_FAILED (no memory for a table, or not a user address; nothing changed). */
enum { MAP_NEW_OK, MAP_NEW_EXISTS, MAP_NEW_FAILED };
int arch_map_new(struct kmem_acct *a, paddr_t root, word_t va, paddr_t pa, unsigned rights);
/* Set the rights of a mapped user page (0 unmaps); returns and resets its A/D status. */
unsigned arch_protect(struct kmem_acct *a, paddr_t root, word_t va, unsigned rights);
/*
 * The TLB invalidations of one long operation (Unmap of a range), done
 * together: arch_protect_batched notes them here instead of flushing each
 * page, and arch_tlb_batch_flush does them: invlpg of up to
 * ARCH_TLB_BATCH_PAGES pages of the loaded page table (more: one CR3
 * reload) and, on SMP boots, one shootdown per page table changed.  The
 * operation flushes before it returns and before every preemption point
 * (stale entries, and tables freed while another processor may still
 * walk them, must not outlive the kernel lock or the operation).
 * Start with npages = nroots = 0.
 */
#define ARCH_TLB_BATCH_PAGES 16
#define ARCH_TLB_BATCH_ROOTS 4
struct arch_tlb_batch {
	unsigned npages;                 /* pages noted; > ARCH_TLB_BATCH_PAGES: flush them all */
	unsigned nroots;
	word_t va[ARCH_TLB_BATCH_PAGES];
	paddr_t roots[ARCH_TLB_BATCH_ROOTS];
};
/*
 * A range walk (Unmap): the leaf entry of the first mapped user page at or
 * above *va and below end (*va moved there), NULL if none; and
 * arch_protect on an entry it returned, which must still be present's
 * table: the walk's own entry stays valid while it is present.
 */
typedef u64 arch_pte_t;
arch_pte_t *arch_next_entry(paddr_t root, word_t *va, word_t end);
unsigned arch_entry_protect(struct kmem_acct *a, paddr_t root, arch_pte_t *e, word_t va,
			    unsigned rights, struct arch_tlb_batch *b);
/* arch_protect with its TLB invalidation noted in b (NULL: done at once, as arch_protect). */
unsigned arch_protect_batched(struct kmem_acct *a, paddr_t root, word_t va, unsigned rights,
			      struct arch_tlb_batch *b);
void arch_tlb_batch_flush(struct arch_tlb_batch *b);
/* Move *va to the first mapped user page at or above it and below end; false if none. */
bool arch_next_mapped(paddr_t root, word_t *va, word_t end);
void arch_space_destroy(struct kmem_acct *a, paddr_t root);
struct space;
void arch_io_changed(const struct space *s, unsigned port);
void arch_io_forget(const struct space *s);
/*
 * t (current) took a #GP with error code 0 while its space has ports that
 * are not in force on this processor (its switch-in left them off, as it
 * had not used them): they are put in force, t is marked as a user of
 * ports, and the caller restarts the instruction.  False if nothing
 * changed (no ports, or they were in force: the #GP is the thread's).
 */
bool arch_io_lazy(struct tcb *t);

struct space;
/* Set up t's first user frame (ip, sp) and a switch frame that enters it. */
void arch_thread_init(struct tcb *t, word_t ip, word_t sp);
void arch_switch_to(struct tcb *prev, struct tcb *next);
void arch_set_utcb_pointer(word_t utcb);
void arch_idle_wait(void);               /* enable interrupts, halt until one arrives */
/*
 * A preemption point in a long kernel operation: interrupts pending now are
 * taken (and may switch threads) before it returns with interrupts off again.
 */
static inline void arch_irq_window(void)
{
	__asm__ __volatile__("sti; nop; cli" : : : "memory");
}
/*
 * In a spin-wait loop: `pause`, which also makes QEMU's TCG let another
 * virtual CPU run (under -icount all share one host thread round-robin,
 * and a spinning CPU would otherwise keep it for its whole time slice).
 */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("pause" : : : "memory");
}
/*
 * One turn of a wait on the clock: a thousand plain iterations, then
 * `pause`.  Under -icount guest time advances only as instructions run, and
 * each `pause` or RDTSC makes TCG leave its translated code; a turn of a few
 * instructions made a 10 ms wait (the INIT IPI's) cost seconds of host time.
 */
static inline void arch_spin_a_while(void)
{
	for (int i = 0; i < 1000; i++)
		__asm__ __volatile__("" : : : "memory");
	arch_cpu_relax();
}
u64 arch_clock_us(void);                 /* monotonic microseconds since boot */
u64 arch_tsc_per_us(void);               /* the calibrated time-stamp counter rate */
void arch_timer_init(word_t tick_us);    /* periodic tick calling timer_tick() */
#define ARCH_NUM_IRQS 16                 /* interrupt lines, = the KIP's SystemBase */
#define ARCH_IRQ_TIMER 0                 /* the kernel's own lines */
#define ARCH_IRQ_CASCADE 2
void arch_pic_init(void);
void arch_irq_mask(unsigned irq);
void arch_irq_unmask(unsigned irq);
bool arch_irq_ack(unsigned irq);          /* EOI; false if the interrupt was spurious */
/* Is an unmasked interrupt waiting for the CPU (the kernel runs with interrupts off)? */
bool arch_irq_pending(void);
/*
 * Several processors (kernel/smp.c).  Processor 0 is the boot CPU; the
 * others are numbered 1..n-1 as the firmware lists them.
 */
unsigned arch_cpus_probe(void);          /* processors to use; sets up their interrupt controllers when > 1 */
unsigned arch_cpu_hw_id(unsigned index); /* the firmware's ID of processor index (its local APIC ID) */
void arch_cpu_start(unsigned index);     /* start it; it calls smp_ap_main(index) */
unsigned arch_cpu_index(void);           /* the processor running this code */
void arch_cpu_wake(unsigned index);      /* an inter-processor interrupt: smp_wakeup() there */
void arch_cpu_timer_start(word_t tick_us);   /* this processor's own periodic smp_tick() */
void arch_cpu_timer_stop(void);
/* The holder of the big kernel lock becomes processor index: its TSS, %gs page (smp.c). */
void arch_cpu_globals(unsigned index);
void arch_smp_entry(void);               /* the boot CPU's system-call entry takes the lock */
paddr_t arch_kernel_root(void);          /* the kernel's own page table (an idle CPU may hold it) */
void arch_flush_tlb(void);               /* every non-global TLB entry of this processor */
struct tcb;
void arch_thread_moved(struct tcb *t, unsigned index);   /* t's home is now processor index */
extern paddr_t arch_loaded_root;         /* the page table this processor's CR3 holds */
/* Where processor index's %gs page lies in every space: USER_GS_PAGE for the boot CPU. */
#define ARCH_GS_PAGE(index) (USER_GS_PAGE + (word_t)(index) * 0x1000)

/* The boot CPU's page user code reads through %gs (word 0: the UTCB pointer). */
extern u64 user_gs_page[512];
/* The page of the processor that runs the kernel (user_gs_page on the boot CPU). */
extern u64 *arch_gs_page;

/*
 * Read the two bytes at user address va of the current space as the CPU
 * sees them (no page-table walk); false if that faults or va is not user
 * memory.  Cheap enough for every #UD (KernelInterface is F0 90).
 */
bool arch_user_read2(word_t va, u16 *out);

void arch_dump_frame(const struct trapframe *tf);
const char *arch_vector_name(word_t vector);
#define ARCH_IP_NAME "rip"       /* what console messages call the instruction pointer */

/* The exceptions the generic code treats apart (exception.c). */
#define VEC_BP 3                 /* int3: the kernel debugger */
#define VEC_GP 13                /* general protection: `in`/`out` on a port not mapped */
#define VEC_PF 14                /* page fault */

/* A user page fault's access (MAP_R, MAP_W or MAP_X), from its error code. */
static inline unsigned arch_fault_rwx(const struct trapframe *tf)
{
	return (tf->error & 2) ? MAP_W : (tf->error & 16) ? MAP_X : MAP_R;
}

/*
 * The port the current thread's `in`/`out` at the frame's IP touches, log2
 * of the access width and its direction (MAP_R or MAP_W); false if the
 * instruction is no such thing (traps.c).
 */
bool arch_io_instruction(const struct trapframe *tf, word_t *port, word_t *log2, word_t *rwx);

#include "sysregs.h"

#endif
