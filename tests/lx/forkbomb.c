// SPDX-License-Identifier: MIT
// Fork until lx refuses: fork must fail with EAGAIN (a process limit), not
// crash lx or kill anyone; then every child is killed and reaped and the
// shell goes on.  An argument stops it after that many children.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX 4096

int main(int argc, char **argv)
{
	static pid_t kids[MAX];
	int n = 0, err = 0, max = argc > 1 ? atoi(argv[1]) : MAX;
	while (n < max) {
		pid_t p = fork();
		if (p == 0) {
			for (;;)
				pause();
		}
		if (p < 0) {
			err = errno;
			break;
		}
		kids[n++] = p;
	}
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	int reaped = 0, killed = 0, st;
	while (wait(&st) > 0) {
		reaped++;
		killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	}
	printf("forkbomb: %d children, then errno %d (%s), %d reaped, %d of them killed\n", n, err,
	       err == EAGAIN ? "EAGAIN" : err ? "other" : "none", reaped, killed);
	return !(reaped == n && killed == n && (argc > 1 || (err == EAGAIN && n > 10)));
}
