/* SPDX-License-Identifier: MIT */
/* Address spaces: page tables plus the KIP and UTCB areas. */
#ifndef PECAN_SPACE_H
#define PECAN_SPACE_H

#include "types.h"
#include "frame.h"
#include "mdb.h"
#include <arch.h>

#define IO_PORTS 0x10000         /* every x86 port: I/O fpages may cover them all */
#define IO_BITMAP_FRAMES (IO_PORTS / 8 / PAGE_SIZE)   /* a space's port bitmap, once it has ports */

struct space {
	struct mdb_space mdb;    /* first: the mapping database's view of it (mdb.h) */
	paddr_t root;            /* top-level page table */
	bool configured;         /* SpaceControl has set the KIP and UTCB areas */
	word_t kip_base;         /* where the KIP appears in this space */
	word_t utcb_base, utcb_size;
	bool privileged;         /* sigma0's and the root task's spaces */
	bool sigma0;             /* sigma0's: physical memory appears in it on demand */
	bool io_any;             /* some I/O port is mapped here */
	/*
	 * Bit p clear: port p is mapped (I/O fpages, mapping.c), in the TSS
	 * bitmap's own format.  NULL until the space is first given a port
	 * (space_io_bitmap), so spaces without ports pay nothing for 64 Ki ports;
	 * io_top: bytes from its start that may hold a clear bit (a multiple of 8).
	 */
	u8 *io_deny;
	word_t io_top;
	int nthreads;
	struct tcb *threads;     /* its threads, linked through space_next (thread.c) */
	word_t redirector;       /* IPC leaving the space goes to this thread (X.2); 0: none */
	bool strict;             /* PECAN_SPACE_STRICT: kernel IPC confined too, no KDB */
	struct kmem_acct acct;   /* the kernel memory held for it (frame.h) */
};

/* A new, unconfigured space, limited to the default quota unless privileged; NULL if OOM. */
struct space *space_create(bool privileged);
/* Set the KIP and UTCB areas (fpage encodings already checked); false if OOM. */
/* Give s its port bitmap (all ports denied) if it has none; false if OOM. */
bool space_io_bitmap(struct space *s);
bool space_configure(struct space *s, word_t kip_base, word_t utcb_base, word_t utcb_size);
/* Free the space's tables; no thread (so no UTCB page) may be left in it. */
void space_destroy(struct space *s);
bool space_map(struct space *s, word_t va, paddr_t pa, unsigned rights);
/* Copy n bytes from user address va; false if any byte is unmapped or not user memory. */
bool space_read(struct space *s, word_t va, void *buf, size_t n);
/* The kernel address of user address va if mapped with at least `rights`, else NULL. */
void *space_kaddr(struct space *s, word_t va, unsigned rights);
/* Copy n bytes between user memory of two spaces; returns the bytes copied before a fault. */
word_t space_copy(struct space *from, word_t src, struct space *to, word_t dst, word_t n);
/* Is [base, base+size) clear of s's KIP and UTCB areas? */
bool space_area_free(const struct space *s, word_t base, word_t size);
void sys_space_control(struct trapframe *tf);

#endif
