// SPDX-License-Identifier: MIT
// lmbench lat_sig.  sig_install: one sigaction call installing a handler.
// sig_catch: kill(2) to the process itself and the handler's run and return
// (lmbench's "signal handler overhead").
#include "bench.h"

#include <signal.h>
#include <unistd.h>

static volatile long caught;

static void handler(int sig)
{
	(void)sig;
	caught++;
}

static void do_install(long n, void *a)
{
	struct sigaction sa = { .sa_handler = handler }, old;
	(void)a;
	sigemptyset(&sa.sa_mask);
	while (n--)
		if (sigaction(SIGUSR1, &sa, &old))
			bench_die("sigaction");
}

static void do_catch(long n, void *a)
{
	pid_t self = *(pid_t *)a;
	while (n--)
		kill(self, SIGUSR1);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	bench_result("lmbench.sig_install", "", bench_measure(do_install, 0, bench_iters(10000)), "instructions");
	pid_t self = getpid();
	long iters = bench_iters(5000);
	double v = bench_measure(do_catch, &self, iters);
	if (caught != iters + 1)
		bench_die("signals lost");
	bench_result("lmbench.sig_catch", "", v, "instructions");
	return 0;
}
