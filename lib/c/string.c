// SPDX-License-Identifier: MIT
// The few string functions the kernel and user programs need (gcc may emit calls to them).
// The copies and fills move eight bytes per step with `rep movsq`/`rep stosq`:
// lx copies registers, messages and pages with them on every call, and a byte
// loop cost it five instructions a byte.
#include "string.h"

void *memset(void *d, int c, size_t n)
{
	void *p = d;
	unsigned long v = (unsigned char)c * 0x0101010101010101UL, q = n / 8;
	__asm__ volatile("rep stosq; movq %[r], %%rcx; rep stosb"
			 : "+D"(p), "+c"(q) : "a"(v), [r] "r"(n % 8) : "memory");
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	void *p = d;
	unsigned long q = n / 8;
	__asm__ volatile("rep movsq; movq %[r], %%rcx; rep movsb"
			 : "+D"(p), "+S"(s), "+c"(q) : [r] "r"(n % 8) : "memory");
	return d;
}

/* Overlapping with d above s: copy from the end down (the odd bytes first, then words). */
void *memmove(void *d, const void *s, size_t n)
{
	if ((unsigned long)d - (unsigned long)s >= n)
		return memcpy(d, s, n);
	unsigned char *p = (unsigned char *)d + n - 1;
	const unsigned char *q = (const unsigned char *)s + n - 1;
	unsigned long r = n % 8, w = n / 8;
	__asm__ volatile("std; rep movsb; subq $7, %%rdi; subq $7, %%rsi; movq %[w], %%rcx;"
			 "rep movsq; cld"
			 : "+D"(p), "+S"(q), "+c"(r) : [w] "r"(w) : "memory", "cc");
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}
