// SPDX-License-Identifier: MIT
// Checksums of blocks and superblocks: a 64-bit multiply-xorshift hash over
// words.  Not cryptographic; it is there to catch torn, misdirected and
// damaged blocks.  Every step is a bijection of the state, so two inputs
// that differ in one word always hash differently.
#include "impl.h"

#define SEED 0x9e3779b97f4a7c15ULL
#define MUL  0xff51afd7ed558ccdULL

/* bytes must be a multiple of 8 and p 8-byte aligned. */
uint64_t store_hash(const void *p, size_t bytes)
{
	const uint64_t *w = p;
	uint64_t h = SEED ^ bytes;
	for (size_t i = 0; i < bytes / 8; i++) {
		h = (h ^ w[i]) * MUL;
		h ^= h >> 32;
	}
	return h ^ (h >> 29);
}

uint32_t store_sum32(const void *p, size_t bytes)
{
	uint64_t h = store_hash(p, bytes);
	return (uint32_t)(h ^ (h >> 32));
}
