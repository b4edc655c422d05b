// SPDX-License-Identifier: MIT
// Host tests of printf-style formatting (lib/fmt/fmt.c).
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "../../lib/fmt/fmt.h"
#include "../../lib/test/test.h"

static char buf[256];
static int ret;

/* vsnfmt without the format attribute: formats gcc would warn about reach the code. */
static int vwrap(char *b, unsigned long size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnfmt(b, size, f, ap);
	va_end(ap);
	return n;
}

/* Format into buf with a roomy size; ret is snfmt's return value. */
#define F(...) (ret = snfmt(buf, sizeof(buf), __VA_ARGS__), buf)

/* Same, through the unchecked wrapper. */
#define RAW(...) (ret = vwrap(buf, sizeof(buf), __VA_ARGS__), buf)

/* buf equals want and the return value is its length. */
#define EXPECT_BUF(want, what)                                                             \
	EXPECT(!strcmp(buf, want) && ret == (int)strlen(want),                             \
	       "%s: got \"%s\" (ret %d), expected \"%s\"", what, buf, ret, want)
#define EXPECT_FMT(want, ...)                                                              \
	do {                                                                               \
		F(__VA_ARGS__);                                                            \
		EXPECT_BUF(want, #__VA_ARGS__);                                            \
	} while (0)
#define EXPECT_RAW(want, ...)                                                              \
	do {                                                                               \
		RAW(__VA_ARGS__);                                                          \
		EXPECT_BUF(want, #__VA_ARGS__);                                            \
	} while (0)

TEST_CASE("fmt.plain", "text without conversions is copied; %% gives one percent sign") {
	EXPECT_FMT("", "%s", "");
	EXPECT_FMT("hello, world", "hello, world");
	EXPECT_FMT("100%", "100%%");
	EXPECT_FMT("%%x", "%%%%x");
}

TEST_CASE("fmt.char", "%c prints one character, padded to a width") {
	EXPECT_FMT("A", "%c", 'A');
	EXPECT_FMT("[  z]", "[%3c]", 'z');
	EXPECT_FMT("[z  ]", "[%-3c]", 'z');
	EXPECT_FMT("xyz", "%c%c%c", 'x', 'y', 'z');
}

TEST_CASE("fmt.string", "%s prints strings with right and left padding; longer strings are not cut") {
	EXPECT_FMT("pecan", "%s", "pecan");
	EXPECT_FMT("[  abc]", "[%5s]", "abc");
	EXPECT_FMT("[abc  ]", "[%-5s]", "abc");
	EXPECT_FMT("[abcdef]", "[%3s]", "abcdef");
	EXPECT_FMT("a-b", "%s-%s", "a", "b");
}

TEST_CASE("fmt.null_string", "a NULL %s argument prints (null)") {
	EXPECT_RAW("(null)", "%s", (char *)NULL);
	EXPECT_RAW("[  (null)]", "[%8s]", (char *)NULL);
}

TEST_CASE("fmt.decimal", "%d and %i print signed ints, including the extremes") {
	EXPECT_FMT("0", "%d", 0);
	EXPECT_FMT("42", "%d", 42);
	EXPECT_FMT("-42", "%i", -42);
	EXPECT_FMT("2147483647", "%d", 2147483647);
	EXPECT_FMT("-2147483648", "%d", (int)-2147483648LL);
	EXPECT_FMT("1 -1", "%d %i", 1, -1);
}

TEST_CASE("fmt.unsigned", "%u prints unsigned ints; an int -1 is 4294967295") {
	EXPECT_FMT("0", "%u", 0u);
	EXPECT_FMT("4294967295", "%u", 4294967295u);
	EXPECT_FMT("4294967295", "%u", (unsigned)-1);
}

TEST_CASE("fmt.hex", "%x and %X print lower and upper case hex without a prefix") {
	EXPECT_FMT("0", "%x", 0u);
	EXPECT_FMT("deadbeef", "%x", 0xdeadbeefu);
	EXPECT_FMT("DEADBEEF", "%X", 0xdeadbeefu);
	EXPECT_FMT("ffffffff", "%x", (unsigned)-1);
	EXPECT_FMT("a", "%x", 10u);
}

TEST_CASE("fmt.octal", "%o prints octal without a prefix, padded like any number") {
	EXPECT_FMT("0", "%o", 0u);
	EXPECT_FMT("755", "%o", 0755u);
	EXPECT_FMT("0022", "%04o", 022u);
	EXPECT_FMT("1777777777777777777777", "%lo", ~0UL);
}

TEST_CASE("fmt.width_zero_pad", "a width pads numbers with spaces, or zeros with the 0 flag") {
	EXPECT_FMT("[   42]", "[%5d]", 42);
	EXPECT_FMT("[00042]", "[%05d]", 42);
	EXPECT_FMT("[000000ff]", "[%08x]", 0xffu);
	EXPECT_FMT("[    0]", "[%5u]", 0u);
	EXPECT_FMT("[123456]", "[%3d]", 123456);
	EXPECT_FMT("[12345678901]", "[%011lu]", 12345678901UL);
}

TEST_CASE("fmt.left_pad", "the - flag pads on the right and overrides 0") {
	EXPECT_FMT("[42   ]", "[%-5d]", 42);
	EXPECT_RAW("[ff   ]", "[%-05x]", 0xffu);
	EXPECT_RAW("[ff   ]", "[%0-5x]", 0xffu);
	EXPECT_FMT("[-42  ]", "[%-5d]", -42);
}

TEST_CASE("fmt.negative_padding", "negative numbers: the sign goes before zero padding and after space padding") {
	EXPECT_FMT("-0042", "%05d", -42);
	EXPECT_FMT("  -42", "%5d", -42);
	EXPECT_FMT("-42", "%03d", -42);
	EXPECT_FMT("-42", "%02d", -42);
	EXPECT_FMT("-42", "%0d", -42);
	EXPECT_FMT("-000000000000042", "%016ld", -42L);
	EXPECT_FMT("[-0042]", "[%05i]", -42);
}

TEST_CASE("fmt.long", "l, ll and z read 64-bit arguments") {
	EXPECT_FMT("ffffffffffffffff", "%lx", 0xffffffffffffffffUL);
	EXPECT_FMT("FFFFFFFFFFFFFFFF", "%lX", ~0UL);
	EXPECT_FMT("ffffffffffffffff", "%llx", 0xffffffffffffffffULL);
	EXPECT_FMT("18446744073709551615", "%lu", ~0UL);
	EXPECT_FMT("-9223372036854775808", "%ld", (long)(-9223372036854775807L - 1));
	EXPECT_FMT("9223372036854775807", "%lld", 9223372036854775807LL);
	EXPECT_FMT("12345678901", "%zu", (size_t)12345678901UL);
	EXPECT_FMT("fd00000000", "%lx", 0xfd00000000UL);
}

TEST_CASE("fmt.int_not_long", "without l, only 32 bits of the argument are read") {
	EXPECT_FMT("ffffffff 1", "%x %d", 0xffffffffu, 1);
	EXPECT_FMT("-1 -1", "%d %ld", -1, -1L);
	EXPECT_FMT("1 100000000 2", "%u %lx %u", 1u, 0x100000000UL, 2u);
}

TEST_CASE("fmt.pointer", "%p prints 0x and the address in lower case hex") {
	EXPECT_FMT("0x1234", "%p", (void *)0x1234);
	EXPECT_FMT("0xffff800000000000", "%p", (void *)0xffff800000000000UL);
	EXPECT_FMT("0x0", "%p", (void *)0);
	EXPECT_FMT("0xdeadbeef 7", "%p %d", (void *)0xdeadbeefUL, 7);
}

TEST_CASE("fmt.mixed", "several conversions in a row consume their own arguments") {
	EXPECT_FMT("task sigma0 at 0xf00000 (3 pages, -1)", "task %s at %p (%u pages, %d)",
		   "sigma0", (void *)0xf00000, 3u, -1);
	EXPECT_FMT("a=1 b=ffffffffffffffff c=x d=str", "a=%d b=%lx c=%c d=%s", 1, ~0UL, 'x', "str");
}

TEST_CASE("fmt.unknown_conversion", "an unknown conversion prints verbatim; a trailing % prints itself") {
	EXPECT_RAW("%q", "%q");
	EXPECT_RAW("a%", "a%");
	EXPECT_RAW("%y 5", "%y %d", 5);   /* the unknown conversion takes no argument */
}

TEST_CASE("fmt.truncation", "a small buffer gets a NUL-terminated prefix and the full length is returned") {
	char small[8];
	memset(small, 'X', sizeof(small));
	int n = snfmt(small, 4, "hello %d", 12345);
	EXPECT(n == 11, "returned %d", n);
	EXPECT(!strcmp(small, "hel"), "got \"%s\"", small);
	EXPECT(small[4] == 'X', "wrote past the size");
	n = snfmt(small, 6, "hello");
	EXPECT(n == 5 && !strcmp(small, "hello"), "exact fit: %d \"%s\"", n, small);
	n = snfmt(small, 5, "hello");
	EXPECT(n == 5 && !strcmp(small, "hell"), "one short: %d \"%s\"", n, small);
}

TEST_CASE("fmt.truncation_every_size", "every buffer size gives a NUL-terminated prefix, never writing past size") {
	const char *want = "x=-0042 [ab   ] 0xbeef";
	int len = (int)strlen(want);
	for (unsigned long size = 1; size <= (unsigned long)len + 2; size++) {
		char b[64];
		memset(b, '#', sizeof(b));
		int n = snfmt(b, size, "x=%05d [%-5s] %p", -42, "ab", (void *)0xbeef);
		unsigned long keep = size - 1 < (unsigned long)len ? size - 1 : (unsigned long)len;
		EXPECT(n == len, "size %lu: returned %d", size, n);
		EXPECT(!memcmp(b, want, keep) && b[keep] == '\0', "size %lu: got \"%s\"", size, b);
		for (unsigned long i = size; i < sizeof(b); i++)
			EXPECT(b[i] == '#', "size %lu: wrote byte %lu, past the size", size, i);
	}
}

TEST_CASE("fmt.size_one", "size 1 stores just the NUL") {
	char small[4] = "abc";
	int n = snfmt(small, 1, "%s", "hello");
	EXPECT(n == 5, "returned %d", n);
	EXPECT(small[0] == '\0' && small[1] == 'b', "got %02x %02x", small[0], small[1]);
}

TEST_CASE("fmt.size_zero", "size 0 writes nothing but still returns the length") {
	char small[4] = "abc";
	int n = snfmt(small, 0, "%d%s", 123, "hello");
	EXPECT(n == 8, "returned %d", n);
	EXPECT(!memcmp(small, "abc", 4), "buffer changed to \"%s\"", small);
	n = snfmt(NULL, 0, "%lx", ~0UL);
	EXPECT(n == 16, "NULL buffer: returned %d", n);
}

TEST_CASE("fmt.vsnfmt", "vsnfmt formats from a va_list like snfmt") {
	char b[32];
	int n = vwrap(b, sizeof(b), "%s=%05d/%lx", "v", -7, 0xabcUL);
	EXPECT(n == 11 && !strcmp(b, "v=-0007/abc"), "got %d \"%s\"", n, b);
}

struct collect { char s[64]; int n; };

static void collect_sink(char c, void *arg)
{
	struct collect *co = arg;
	if (co->n < (int)sizeof(co->s) - 1)
		co->s[co->n] = c;
	co->n++;
}

static int vfmt_wrap(struct collect *co, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vfmt(collect_sink, co, f, ap);
	va_end(ap);
	return n;
}

TEST_CASE("fmt.vfmt_sink", "vfmt sends each character to the sink and returns how many it sent") {
	struct collect co = { .n = 0 };
	int n = vfmt_wrap(&co, "[%-4s|%3c|%x]", "ab", 'c', 255u);
	co.s[co.n < 63 ? co.n : 63] = '\0';
	EXPECT(n == co.n, "returned %d, sent %d", n, co.n);
	EXPECT(!strcmp(co.s, "[ab  |  c|ff]"), "got \"%s\"", co.s);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
