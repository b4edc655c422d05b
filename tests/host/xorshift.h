/* SPDX-License-Identifier: MIT */
/* The fixed-seed generator of the randomized host tests: xorshift64. */
#ifndef TEST_XORSHIFT_H
#define TEST_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
