// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("divide by zero")
{
	volatile unsigned long zero = 0;
	__asm__ __volatile__("divq %1" : : "a"(1UL), "r"(zero), "d"(0UL));
}
