// SPDX-License-Identifier: MIT
// Prints what the guest CPU says about itself (the pinned model must reach the guest).
#include <l4/l4.h>
#include <c/stdio.h>

static void cpuid(unsigned leaf, unsigned *a, unsigned *b, unsigned *c, unsigned *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

int main(void)
{
	unsigned a, b, c, d, vendor[4] = { 0 };
	cpuid(0, &a, &vendor[0], &vendor[2], &vendor[1]);
	cpuid(1, &a, &b, &c, &d);
	unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 6 || family >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	unsigned rdrand = (c >> 30) & 1;
	cpuid(0x80000001, &a, &b, &c, &d);
	printf("cpuid: vendor=%s family=%u model=%u pdpe1gb=%u nx=%u rdrand=%u\n", (char *)vendor,
	       family, model, (d >> 26) & 1, (d >> 20) & 1, rdrand);
	pecan_kdb_power_off(0);
	return 0;
}
