// SPDX-License-Identifier: MIT
// Touch an unmapped address (or, with an argument, catch SIGSEGV first).
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void handler(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	printf("segv: caught signal %d at %p\n", sig, si->si_addr);
	fflush(stdout);
	_exit(7);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
		sigaction(SIGSEGV, &sa, NULL);
	}
	*(volatile int *)0x1000 = 1;
	return 0;
}
