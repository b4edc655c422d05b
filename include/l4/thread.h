/* SPDX-License-Identifier: MIT */
/* Thread identifiers: global = thread number (bits 32..63) : version (bits 0..31). */
#ifndef L4_THREAD_H
#define L4_THREAD_H

#include <l4/types.h>

#define L4_NILTHREAD        0UL
#define L4_ANYTHREAD        (~0UL)
#define L4_ANYLOCALTHREAD   (~0UL << 6)

#define L4_SYSTEM_BASE      16   /* thread numbers below are interrupt threads */
#define L4_USER_BASE        48   /* sigma0 = 48.1, root task = 50.1 */
#define L4_THREAD_BITS      18   /* significant thread-number bits (KIP ThreadInfo) */

static inline L4_Word_t l4_global_id(L4_Word_t no, L4_Word_t ver)
{
	return (no << 32) | (ver & 0xffffffffUL);
}
static inline L4_Word_t l4_thread_no(L4_Word_t gid) { return gid >> 32; }
static inline L4_Word_t l4_version(L4_Word_t gid) { return gid & 0xffffffffUL; }
static inline int l4_is_local_id(L4_Word_t id) { return id != 0 && (id & 0x3f) == 0; }

#endif
