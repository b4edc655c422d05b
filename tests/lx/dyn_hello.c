// SPDX-License-Identifier: MIT
// Built dynamically linked on purpose: it runs where musl's loader is (the ext2 image),
// and execve says ENOENT where it is not (the RAM root), as on Linux.
#include <stdio.h>

int main(void)
{
	puts("a dynamic binary ran");
	return 0;
}
