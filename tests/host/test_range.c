// SPDX-License-Identifier: MIT
// Host tests of block_below (kernel/types.h): range checks that cannot wrap.
#include "types.h"
#include "../../lib/test/test.h"

#define TOP 0x0000800000000000UL        /* the user half's end on x86-64 */

TEST_CASE("range.inside", "blocks wholly below the top fit, up to the last byte") {
	EXPECT(block_below(0, 12, TOP), "first page");
	EXPECT(block_below(TOP - 4096, 12, TOP), "last page");
	EXPECT(block_below(0, 47, TOP), "the whole user half");
	EXPECT(block_below(TOP / 2, 46, TOP), "upper half of the user half");
}

TEST_CASE("range.outside", "blocks that reach past the top do not fit") {
	EXPECT(!block_below(TOP, 12, TOP), "page at the top");
	EXPECT(!block_below(TOP - 4096, 13, TOP), "8 KiB straddling the top");
	EXPECT(!block_below(0, 48, TOP), "twice the user half");
}

TEST_CASE("range.nowrap", "huge blocks at high addresses, whose end wraps to 0, do not fit") {
	for (word_t s = 12; s < 64; s++) {
		word_t base = ~0UL << s;        /* the highest aligned block of this size: end wraps to 0 */
		EXPECT(!block_below(base, s, TOP), "size 2^%lu at %lx", s, base);
	}
	EXPECT(!block_below(0xffff800000000000UL, 47, TOP), "kernel half, 2^47");
	EXPECT(!block_below(0xffffc00000000000UL, 46, TOP), "2^46 at the top");
	EXPECT(!block_below(0xfffffffffffff000UL, 12, TOP), "last page of the address space");
	EXPECT(!block_below(0, 64, TOP), "log2 of 64: the shift itself is undefined");
	EXPECT(!block_below(0, 63, TOP), "2^63");
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
