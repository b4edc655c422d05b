// SPDX-License-Identifier: MIT
// Take memory that was never promised (MAP_NORESERVE) and touch it page by
// page until the system runs out: Linux's OOM killer (and lx's) ends the
// biggest process with SIGKILL.  Prints its progress every 16 MiB.  With
// an argument N it stops by itself after N MiB.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t chunk = 16 << 20, limit = argc > 1 ? (size_t)atol(argv[1]) << 20 : (size_t)-1;
	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t got = 0; got < limit; got += chunk) {
		char *p = mmap(0, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (p == MAP_FAILED) {
			perror("memhog: mmap");
			return 2;
		}
		for (size_t off = 0; off < chunk; off += 4096)
			p[off] = 1;
		printf("memhog: %zu MiB\n", (got + chunk) >> 20);
	}
	return 0;
}
