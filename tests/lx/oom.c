// SPDX-License-Identifier: MIT
// Take memory until lx says no: mmap must fail with ENOMEM for the one
// asking, and the memory it had must come back when it exits.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
	size_t chunk = 8 << 20, got = 0;
	for (int i = 0; i < 4096; i++) {
		char *p = mmap(0, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			printf("oom: %zu MiB, then errno %d (%s)\n", got >> 20, errno,
			       errno == ENOMEM ? "ENOMEM" : "other");
			return errno != ENOMEM;
		}
		memset(p, 1, chunk);
		got += chunk;
	}
	printf("oom: never refused\n");
	return 1;
}
