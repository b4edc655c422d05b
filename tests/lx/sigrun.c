// SPDX-License-Identifier: MIT
// Signals for threads that run their own code (docs/lx.md "Signals": the
// signal thread redirects them): a handler from a timer while the process
// computes in registers only, from another process while it spins, and while
// it makes system calls in a loop (on lx's fast path these stop it inside
// lx's entry code too).  Every interrupted computation must come out right.
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long hits;
static void on_signal(int sig) { (void)sig; hits++; }

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { printf("sigrun: FAIL " __VA_ARGS__); \
	printf("\n"); failed = 1; } } while (0)

static void every(long us)
{
	struct itimerval it = { { 0, us }, { 0, us } };
	setitimer(ITIMER_REAL, &it, 0);
}

/* A sum in registers only, until `want` signals came; the same sum without them. */
static void compute(void)
{
	every(2000);
	unsigned long a = 1, b = 0, n = 0, ref_a = 1, ref_b = 0;
	while (hits < 20) {
		__asm__ volatile("" : "+r"(a), "+r"(b));
		a = a * 6364136223846793005UL + 1442695040888963407UL;
		b ^= a >> 17;
		n++;
	}
	every(0);
	for (unsigned long i = 0; i < n; i++) {
		ref_a = ref_a * 6364136223846793005UL + 1442695040888963407UL;
		ref_b ^= ref_a >> 17;
	}
	CHECK(a == ref_a && b == ref_b, "a computation interrupted %ld times came out wrong", hits);
}

/* Another process signals this one while it spins. */
static void from_another(void)
{
	int p[2];
	if (pipe(p))
		return;
	pid_t c = fork();
	if (!c) {
		hits = 0;
		close(p[0]);
		write(p[1], "r", 1);            /* ready: the handler is in place */
		while (!hits)
			;
		_exit(hits == 1 ? 0 : 2);
	}
	char r;
	close(p[1]);
	read(p[0], &r, 1);
	usleep(200000);                         /* let it spin */
	kill(c, SIGUSR1);
	int st;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the spinning child: status %x", st);
}

/* System calls in a loop under a fast timer: every answer must be right. */
static void calls(void)
{
	pid_t me = getpid();
	long bad = 0, n = 0;
	hits = 0;
	every(1000);
	while (hits < 200) {
		if (getpid() != me)
			bad++;
		n++;
	}
	every(0);
	CHECK(!bad, "%ld of %ld getpid calls answered wrong", bad, n);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigaction(SIGALRM, &sa, 0);
	sigaction(SIGUSR1, &sa, 0);
	compute();
	from_another();
	calls();
	printf("sigrun: %s\n", failed ? "failed" : "all ok");
	return failed;
}
