// SPDX-License-Identifier: MIT
// Built dynamically linked on purpose: lx has no dynamic loader, so execve says ENOEXEC.
#include <stdio.h>

int main(void)
{
	puts("a dynamic binary ran");
	return 0;
}
