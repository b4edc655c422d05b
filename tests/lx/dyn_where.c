// SPDX-License-Identifier: MIT
// Where a dynamically linked PIE program and its C library landed: two runs
// differ when the loader places them at random (ASLR), as on Linux.
#include <stdio.h>

int main(void)
{
	printf("main %p printf %p\n", (void *)main, (void *)printf);
	return 0;
}
