/* SPDX-License-Identifier: MIT */
/*
 * Recursive address spaces (seed 000 §3): every user mapping but the
 * kernel's own (KIP, UTCBs) is in the mapping database, derived from a
 * root: sigma0's idempotent view of physical memory, or the pages the
 * kernel loaded a root server into.  Map and grant items derive new
 * mappings; Unmap revokes them recursively.
 */
#ifndef PECAN_MAPPING_H
#define PECAN_MAPPING_H

#include "space.h"

struct phys_range { paddr_t base, end; };

/* What sigma0 may not have: the kernel's own memory; and where RAM ends. */
struct mapping_policy {
	struct phys_range reserved[4];
	int nreserved;
	paddr_t phys_limit;
};

/* False if the kernel pool cannot hold the database's index. */
bool mapping_init(const struct mapping_policy *p);
/* A root mapping the kernel makes (boot images, sigma0's faults); false if out of memory. */
bool mapping_insert_root(struct space *s, word_t va, paddr_t pa, unsigned rights);
/* A root I/O mapping of port for s (the kernel's gift at boot); false if it cannot. */
bool mapping_insert_io_root(struct space *s, unsigned port);
/* sigma0 touched va: map physical page va there (idempotently); false if it may not. */
bool mapping_sigma0_fault(struct space *s, word_t va);
/*
 * A map (or grant) item: from's pages in fpage into to's receive window
 * (X.2 rules).  With resume, it may stop early for waiting interrupts:
 * true, and *resume is the offset into the source where to go on (start
 * with 0).  The pages done so far stay done: mapping them again is a no-op.
 */
bool mapping_fpage(struct space *from, word_t fpage, word_t send_base, struct space *to,
		   word_t window, bool grant, word_t *resume);
void mapping_remove_space(struct space *s);
/* Walk the whole database; NULL if consistent, else what is wrong.  *nodes: its size. */
const char *mapping_check(word_t *nodes);
/* Every mapping has its page-table entry (or I/O permission) and a live space. */
const char *mapping_check_tables(word_t *entries);
/* Every user page (and port) s can reach outside its KIP and UTCB areas has its mapping. */
const char *mapping_check_space(struct space *s, word_t *pages);
void sys_unmap(struct trapframe *tf);

#endif
