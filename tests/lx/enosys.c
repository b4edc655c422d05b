// SPDX-License-Identifier: MIT
// System calls nobody implements get -1 with ENOSYS and leave the caller
// running, on Linux and under lx alike.  With an argument N it makes call
// N (all arguments 0) twice and prints each result: lx's test uses it for
// a call Linux has and lx lacks, whose log line must come once.
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "check.h"

int main(int argc, char **argv)
{
	if (argc > 1) {
		long nr = strtol(argv[1], NULL, 0);
		for (int i = 0; i < 2; i++) {
			errno = 0;
			long r = syscall(nr, 0, 0, 0, 0, 0, 0);
			printf("syscall %ld: %ld errno %d\n", nr, r, errno);
		}
		return 0;
	}
	check("syscall 1000", syscall(1000), -1, ENOSYS);
	check("syscall 1000 again", syscall(1000), -1, ENOSYS);
	check("getpmsg (181, never implemented on x86-64)", syscall(181), -1, ENOSYS);
	check("syscall -1", syscall(-1L), -1, ENOSYS);
	return checks_done("enosys");
}
