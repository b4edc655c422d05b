// SPDX-License-Identifier: MIT
// Fork until lx refuses: fork must fail with EAGAIN (a process limit), not
// crash lx or kill anyone; then every child is reaped and the shell goes on.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int n = 0, err = 0;
	for (;;) {
		pid_t p = fork();
		if (p == 0) {
			pause();
			_exit(0);
		}
		if (p < 0) {
			err = errno;
			break;
		}
		n++;
	}
	kill(0, SIGUSR1);        /* the children die of it; we ignore it */
	int reaped = 0;
	while (wait(NULL) > 0)
		reaped++;
	printf("forkbomb: %d children, then errno %d (%s), %d reaped\n", n, err,
	       err == EAGAIN ? "EAGAIN" : "other", reaped);
	return !(err == EAGAIN && reaped == n && n > 10);
}
