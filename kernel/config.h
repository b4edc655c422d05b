/* SPDX-License-Identifier: MIT */
/*
 * Every configuration option and tunable of the kernel, with its default.
 * Override with -DCONFIG_X=value (the Makefile's presets do).  Use them as
 * `if (CONFIG_X)` in code, never as #ifdef.
 */
#ifndef PECAN_CONFIG_H
#define PECAN_CONFIG_H

/* The kernel pool: RAM >> SHIFT (plus MAP_PER_PAGE below), within [MIN, MAX], from the top of RAM at boot. */
#ifndef CONFIG_KMEM_RAM_SHIFT
#define CONFIG_KMEM_RAM_SHIFT 4              /* a sixteenth of the RAM */
#endif
#ifndef CONFIG_KMEM_MIN
#define CONFIG_KMEM_MIN       (16UL << 20)
#endif
#ifndef CONFIG_KMEM_MAX
#define CONFIG_KMEM_MAX       (64UL << 30)
#endif
/* ...plus, per 4 KiB page of RAM, what mapping all of it once from sigma0 to a
 * pager costs: two 80-byte mapping nodes and two page-table entries.  Without
 * it lx's page pool alone took 11 of a 256 MiB guest's 16 MiB pool. */
#ifndef CONFIG_KMEM_MAP_PER_PAGE
#define CONFIG_KMEM_MAP_PER_PAGE 176
#endif
/* Kernel-memory policy (frame.h): an unprivileged space's default quota is
 * pool/QUOTA_DIV; pool/RESERVE_DIV is never given to unprivileged spaces. */
#ifndef CONFIG_KMEM_QUOTA_DIV
#define CONFIG_KMEM_QUOTA_DIV 16
#endif
#ifndef CONFIG_KMEM_RESERVE_DIV
#define CONFIG_KMEM_RESERVE_DIV 8
#endif
/* Preemption points (docs/architecture.md): pending interrupts are looked for after
 * this many pages of a map or unmap, and after this many nodes of a revocation. */
#ifndef CONFIG_PREEMPT_PAGES
#define CONFIG_PREEMPT_PAGES  8
#endif
#ifndef CONFIG_PREEMPT_NODES
#define CONFIG_PREEMPT_NODES  32
#endif
#ifndef CONFIG_MAX_THREADS
#define CONFIG_MAX_THREADS    16384          /* thread numbers usable (< 2^L4_THREAD_BITS), a power of 2 */
#endif
#ifndef CONFIG_KSTACK_PAGES
#define CONFIG_KSTACK_PAGES   2              /* kernel stack per thread, in 4 KiB pages */
#endif
#ifndef CONFIG_MAX_MODULES
#define CONFIG_MAX_MODULES    16             /* boot modules the kernel records */
#endif
#ifndef CONFIG_MAX_MEM_RANGES
#define CONFIG_MAX_MEM_RANGES 64             /* entries in boot memory-range tables */
#endif
#ifndef CONFIG_KDB_STRING_MAX
#define CONFIG_KDB_STRING_MAX 4096           /* longest string KDB PrintString prints */
#endif
#ifndef CONFIG_KDB_STRING_MAX_UNPRIV
#define CONFIG_KDB_STRING_MAX_UNPRIV 256     /* the same for threads of unprivileged spaces */
#endif
#ifndef CONFIG_CHECK
#define CONFIG_CHECK          1              /* KDB op 0xF6: whole-kernel consistency checks */
#endif
/*
 * Processors (docs/architecture.md, "Several processors"): with SMP on, the
 * kernel starts every processor the ACPI MADT lists, up to MAX_CPUS (the
 * KIP has room for that many processor descriptors).
 */
#ifndef CONFIG_SMP
#define CONFIG_SMP            1              /* start the other processors when there are some */
#endif
#ifndef CONFIG_MAX_CPUS
#define CONFIG_MAX_CPUS       8              /* processors used, the boot CPU included */
#endif
/*
 * With several processors, the I/O APIC in place of the 8259s for the ISA
 * lines.  Off, the 8259 stays (through the boot CPU's LINT0) whatever the
 * number of processors: every line goes to processor 0 either way, and the
 * check of which controller is in use costs each arch_irq_* call (also on
 * one processor) a compare and a call out of line: irq.latency +12 and
 * vm.map +1.7 instructions a page (docs/architecture.md).  The kernel
 * `dslq-ioapic` is built with it on and tested on several processors.
 */
#ifndef CONFIG_IOAPIC
#define CONFIG_IOAPIC         0
#endif
#ifndef CONFIG_COM1_BAUD_DIV
#define CONFIG_COM1_BAUD_DIV  1              /* 115200 baud */
#endif

/*
 * Scheduler variant (seed 001): DIRECT = direct process switch in IPC (else
 * a full scheduler call), LAZY = lazy queueing (else eager).  BENNO (with
 * DIRECT and not LAZY) keeps the ready queue exact, never holding the
 * running thread, and switches directly only when that respects priorities.
 */
#ifndef CONFIG_SCHED_DIRECT
#define CONFIG_SCHED_DIRECT   1
#endif
#ifndef CONFIG_SCHED_LAZY
#define CONFIG_SCHED_LAZY     1
#endif
#ifndef CONFIG_SCHED_BENNO
#define CONFIG_SCHED_BENNO    0
#endif
#ifndef CONFIG_FASTPATH
#define CONFIG_FASTPATH       1              /* register-only IPC fastpath (ipc_fast.c) */
#endif
#ifndef CONFIG_COUNTERS
#define CONFIG_COUNTERS       1              /* seed 001 Table 2 event counters */
#endif
#ifndef CONFIG_TICK_US
#define CONFIG_TICK_US        1000           /* timer tick */
#endif
#ifndef CONFIG_TIMESLICE_US
#define CONFIG_TIMESLICE_US   10000          /* default time slice */
#endif
#ifndef CONFIG_DEFAULT_PRIO
#define CONFIG_DEFAULT_PRIO   100            /* priority of new threads */
#endif
#ifndef CONFIG_ROOT_PRIO
#define CONFIG_ROOT_PRIO      255            /* sigma0 and the root task (abi.md) */
#endif

#endif
