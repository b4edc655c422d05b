// SPDX-License-Identifier: MIT
// execve(argv[1], argv + 1) with nothing in between, and what it said.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	execve(argv[1], argv + 1, environ);
	printf("execve %s: errno %d (%s)\n", argv[1], errno, strerror(errno));
	return 126;
}
