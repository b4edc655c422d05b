/* SPDX-License-Identifier: MIT */
/* Kernel Interface Page: the 64-bit layout of L4 X.2 as Pistachio's user code reads it. */
#ifndef L4_KIP_H
#define L4_KIP_H

#define KIP_MAGIC              0x4BE6344CUL     /* "L4\xE6K" */
#define KIP_API_VERSION        0x84050000UL     /* X.2, subversion 5 */
#define KIP_API_FLAGS          0x4UL            /* little endian, 64-bit */
#define KIP_KERNEL_ID          0x50010000UL     /* Pecan: id 0x50 ('P'), subid 1 */
/*
 * PageInfo: rwx in bits 0-2; bits 10-63 are a page-size mask in place (bit k
 * set: 2^k-byte pages).  Pecan maps 4 KiB pages only, but advertises 2 MiB as
 * Pistachio does: fpages of 2 MiB are mapped as 512 small pages.
 */
#define KIP_PAGE_INFO          ((1UL << 12) | (1UL << 21) | 7)   /* 0x201007 */

#define KIP_OFF_MAGIC          0x000
#define KIP_OFF_API_VERSION    0x008
#define KIP_OFF_API_FLAGS      0x010
#define KIP_OFF_KERNEL_DESC    0x018
#define KIP_OFF_SIGMA0         0x040   /* sp, ip, low, high */
#define KIP_OFF_SIGMA1         0x060
#define KIP_OFF_ROOT           0x080
#define KIP_OFF_MEMORY_INFO    0x0A8
#define KIP_OFF_UTCB_INFO      0x150
#define KIP_OFF_KIP_AREA_INFO  0x158
#define KIP_OFF_BOOT_INFO      0x170
#define KIP_OFF_PROC_DESC      0x178
#define KIP_OFF_CLOCK_INFO     0x180
#define KIP_OFF_THREAD_INFO    0x188
#define KIP_OFF_PAGE_INFO      0x190
#define KIP_OFF_PROC_INFO      0x198
#define KIP_OFF_ARCH_SYSCALL0  0x220
/* Pecan-specific, in words X.2 leaves reserved (docs/abi.md): the kernel pool's
 * size in bytes, and its free bytes now (the kernel keeps it current). */
#define KIP_OFF_KMEM_SIZE      0x1F8
#define KIP_OFF_KMEM_FREE      0x200

/* Where the descriptors live inside the page (KIP-relative). */
#define KIP_PROC_DESC_OFF      0x240
#define KIP_KERNEL_DESC_OFF    0x260
#define KIP_MEM_DESC_OFF       0x2E0
/* With several processors their descriptors (32 bytes each, up to 8) end the page. */
#define KIP_PROC_DESC_SMP_OFF  0xF00
#define KIP_MEM_DESC_MAX       ((KIP_PROC_DESC_SMP_OFF - KIP_MEM_DESC_OFF) / 16)

/* Memory-descriptor types (word0 bits 0-3; subtype in bits 4-7). */
#define MEMDESC_UNDEFINED      0x0
#define MEMDESC_CONVENTIONAL   0x1
#define MEMDESC_RESERVED       0x2
#define MEMDESC_DEDICATED      0x3
#define MEMDESC_SHARED         0x4
#define MEMDESC_BOOTLOADER     0xE
#define MEMDESC_ARCH           0xF

/* Where root servers find the KIP and their UTCB area. */
#define ROOT_KIP_AREA          0xBFF00000UL
#define ROOT_UTCB_AREA         0xBF000000UL
#define ROOT_UTCB_AREA_LOG2    18

#endif
