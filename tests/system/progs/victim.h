/* SPDX-License-Identifier: MIT */
/* A victim runs in sigma0's slot, says what it is about to do, and does it. */
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"

#define VICTIM(what)                                      \
	static void victim(void);                         \
	int main(void)                                    \
	{                                                 \
		printf("victim: about to %s\n", what);    \
		victim();                                 \
		printf("victim: survived (unexpected)\n"); \
		return 0;                                 \
	}                                                 \
	static void victim(void)
