/* SPDX-License-Identifier: MIT */
/* The kernel interface page, mapped read-only into every space. */
#ifndef PECAN_KIP_H
#define PECAN_KIP_H

#include "types.h"
#include <l4/kip.h>

void kip_init(void);
paddr_t kip_phys(void);
/* Record a root server: KIP_OFF_SIGMA0 or KIP_OFF_ROOT. */
void kip_set_server(int off, word_t ip, word_t sp, word_t low, word_t high);
/* Append a memory descriptor (type | subtype << 4, [low, high) ); false if full. */
bool kip_add_memdesc(unsigned type, unsigned subtype, bool virt, u64 low, u64 high);
void kip_set_boot_info(word_t addr);
/* The number of processors online (ProcessorInfo, where the descriptors are). */
void kip_set_processors(unsigned n);
/* The processor descriptors' frequencies and ClockInfo, once the clock is calibrated. */
void kip_set_clock(word_t cpu_khz, word_t tick_us);
/* The kernel pool's size; the word holding its free bytes, which kmem.c keeps current. */
void kip_set_kmem(word_t size);
word_t *kip_kmem_free_word(void);

#endif
