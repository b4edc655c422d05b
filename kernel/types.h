/* SPDX-License-Identifier: MIT */
/* Kernel-internal basic types and helpers. */
#ifndef PECAN_TYPES_H
#define PECAN_TYPES_H

#include <l4/types.h>

typedef unsigned long word_t;
typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;
typedef long i64;
typedef unsigned long paddr_t;
#ifdef PECAN_HOST_TEST   /* pure kernel algorithms built into host unit tests */
#include <stddef.h>
#include <stdbool.h>
#else
typedef unsigned long size_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif

#define PAGE_SIZE      4096UL
#define PAGE_MASK      (~(PAGE_SIZE - 1))
#define ALIGN_UP(x, a)   (((x) + (a) - 1) & ~((a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((a) - 1))
#define ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))
#define likely(x)      __builtin_expect(!!(x), 1)
#define unlikely(x)    __builtin_expect(!!(x), 0)
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))

/*
 * Does [base, base + 2^log2) lie wholly below top?  Written so that no sum
 * can wrap: a huge block at a high address is refused, never wrapped to 0.
 */
static inline bool block_below(word_t base, word_t log2, word_t top)
{
	return log2 < 64 && (1UL << log2) <= top && base <= top - (1UL << log2);
}

#endif
