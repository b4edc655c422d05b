// SPDX-License-Identifier: MIT
// Host tests of lib/c/string.c, compiled here under other names (the host's
// C library keeps its own), against byte-by-byte reference results.
#include <stdint.h>
#include <string.h>
#include "../../lib/test/test.h"

#define memset pc_memset
#define memcpy pc_memcpy
#define memmove pc_memmove
#define memcmp pc_memcmp
#define strlen pc_strlen
#define strcmp pc_strcmp
#include "../../lib/c/string.c"
#undef memset
#undef memcpy
#undef memmove
#undef memcmp
#undef strlen
#undef strcmp

#define N 96
static unsigned char buf[3 * N], ref[3 * N];

static void fill(unsigned char *b)
{
	for (int i = 0; i < 3 * N; i++)
		b[i] = (unsigned char)(i * 7 + 3);
}

static int direction_flag(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return (f >> 10) & 1;
}

TEST_CASE("string.memcpy", "every length 0..96 at every alignment, nothing outside touched") {
	/* source and destination each at every offset in a word, so at every alignment to each other */
	for (int src = 0; src < 9; src++)
		for (int dst = 0; dst < 9; dst++)
			for (int n = 0; n <= N; n++) {
				fill(buf);
				fill(ref);
				for (int i = 0; i < n; i++)
					ref[N + dst + i] = ref[src + i];
				void *r = pc_memcpy(buf + N + dst, buf + src, (size_t)n);
				EXPECT(r == buf + N + dst, "return value, n %d", n);
				EXPECT(!memcmp(buf, ref, sizeof(buf)), "src %d dst %d n %d", src, dst, n);
			}
}

TEST_CASE("string.memset", "every length 0..96 at every alignment, the byte value masked") {
	for (int off = 0; off < 9; off++)
		for (int n = 0; n <= N; n++) {
			fill(buf);
			fill(ref);
			for (int i = 0; i < n; i++)
				ref[N + off + i] = 0xa5;
			void *r = pc_memset(buf + N + off, 0x3a5, (size_t)n);
			EXPECT(r == buf + N + off, "return value, n %d", n);
			EXPECT(!memcmp(buf, ref, sizeof(buf)), "off %d n %d", off, n);
		}
}

TEST_CASE("string.memmove", "overlaps either way, every shift -9..9 and length 0..96, DF clear after") {
	unsigned char tmp[N];
	for (int shift = -9; shift <= 9; shift++)
		for (int n = 0; n <= N; n++) {
			fill(buf);
			fill(ref);
			for (int i = 0; i < n; i++)
				tmp[i] = ref[N + i];
			for (int i = 0; i < n; i++)
				ref[N + shift + i] = tmp[i];
			void *r = pc_memmove(buf + N + shift, buf + N, (size_t)n);
			EXPECT(r == buf + N + shift, "return value");
			EXPECT(!memcmp(buf, ref, sizeof(buf)), "shift %d n %d", shift, n);
			EXPECT(!direction_flag(), "DF left set");
		}
}

TEST_CASE("string.compare", "memcmp, strlen and strcmp") {
	EXPECT(pc_memcmp("abc", "abd", 3) < 0 && pc_memcmp("abc", "abc", 3) == 0, "memcmp");
	EXPECT(pc_memcmp("\xff", "\x01", 1) > 0, "memcmp compares unsigned bytes");
	EXPECT(pc_strlen("") == 0 && pc_strlen("hello") == 5, "strlen");
	EXPECT(pc_strcmp("a", "b") < 0 && pc_strcmp("b", "a") > 0 && !pc_strcmp("x", "x"), "strcmp");
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
