// SPDX-License-Identifier: MIT
// Host tests of the password generator (servers/mungi/chacha.c): RFC 8439's block vector, key erasure.
#include <stdlib.h>
#include <string.h>
#include "../../servers/mungi/chacha.h"
#include "../../lib/test/test.h"

TEST_CASE("chacha.rfc8439_block", "the block function gives RFC 8439 section 2.3.2's test vector")
{
	static const uint8_t want[64] = {
		0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15, 0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4,
		0xc7, 0xd1, 0xf4, 0xc7, 0x33, 0xc0, 0x68, 0x03, 0x04, 0x22, 0xaa, 0x9a, 0xc3, 0xd4, 0x6c, 0x4e,
		0xd2, 0x82, 0x64, 0x46, 0x07, 0x9f, 0xaa, 0x09, 0x14, 0xc2, 0xd7, 0x05, 0xd9, 0x8b, 0x02, 0xa2,
		0xb5, 0x12, 0x9c, 0xd1, 0xde, 0x16, 0x4e, 0xb9, 0xcb, 0xd0, 0x83, 0xe8, 0xa2, 0x50, 0x3c, 0x4e,
	};
	uint32_t key[8], nonce[3] = { 0x09000000, 0x4a000000, 0 };
	for (int i = 0; i < 8; i++)
		key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 | (uint32_t)(4 * i + 2) << 16 |
			 (uint32_t)(4 * i + 3) << 24;
	uint8_t out[64];
	chacha20_block(key, 1, nonce, out);
	int bad = -1;
	for (int i = 0; i < 64 && bad < 0; i++)
		if (out[i] != want[i])
			bad = i;
	EXPECT(bad < 0, "byte %d is %02x, the RFC says %02x", bad, out[bad], want[bad]);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

TEST_CASE("chacha.generator", "different seeds give different streams; a stream never repeats a word in 10^5; reseeds are asked for")
{
	static uint64_t seen[100000];
	struct csprng a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	uint64_t sa[4] = { 1, 2, 3, 4 }, sb[4] = { 1, 2, 3, 5 };
	csprng_seed(&a, sa);
	csprng_seed(&b, sb);
	int same = 0;
	for (int i = 0; i < 1000; i++)
		same += csprng_u64(&a) == csprng_u64(&b);
	EXPECT(same == 0, "%d equal words from different seeds", same);
	for (int i = 0; i < 100000; i++)
		seen[i] = csprng_u64(&a);
	qsort(seen, 100000, sizeof(seen[0]), cmp_u64);      /* any two equal words are now neighbours */
	for (int i = 1; i < 100000; i++)
		EXPECT(seen[i - 1] != seen[i], "word %016llx comes twice", (unsigned long long)seen[i]);
	EXPECT(csprng_wants_seed(&a), "no reseed asked for after %lu blocks", a.blocks);
	uint64_t before = csprng_u64(&a);
	csprng_seed(&a, sa);
	EXPECT(!csprng_wants_seed(&a) && csprng_u64(&a) != before, "reseed");
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
