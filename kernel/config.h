/* SPDX-License-Identifier: MIT */
/*
 * Every configuration option and tunable of the kernel, with its default.
 * Override with -DCONFIG_X=value (the Makefile's presets do).  Use them as
 * `if (CONFIG_X)` in code, never as #ifdef.
 */
#ifndef PECAN_CONFIG_H
#define PECAN_CONFIG_H

#ifndef CONFIG_KMEM_SIZE
#define CONFIG_KMEM_SIZE      (16UL << 20)   /* kernel frame pool taken from RAM at boot */
#endif
#ifndef CONFIG_MAX_THREADS
#define CONFIG_MAX_THREADS    1024           /* thread numbers usable (< 2^L4_THREAD_BITS) */
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
#ifndef CONFIG_COM1_BAUD_DIV
#define CONFIG_COM1_BAUD_DIV  1              /* 115200 baud */
#endif

#endif
