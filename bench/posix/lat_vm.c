// SPDX-License-Identifier: MIT
// Appel and Li's user-level virtual-memory benchmarks on Linux (seed 000
// Table 5, Linux column): page protection changed with mprotect, faults
// delivered as SIGSEGV.
//   vm.trap:   a write to a write-protected page until the first instruction
//              of the handler (timed from inside the handler).
//   vm.appel1: write a random protected page; the handler unprotects it and
//              protects another ("trap+prot1+unprot"); per access.
//   vm.appel2: protect 100 pages at once, write them in random order; the
//              handler only unprotects ("protN+trap+unprot"); per page.
#include "bench.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096L
#define NPAGES 100

static char *region;
static volatile long open_page = -1;   // appel1: the one writable page
static volatile int reprotect;         // appel1: handler protects open_page
static volatile uint64_t t_write, trap_total;
static unsigned long rng = 1;

static long rand_page(void)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (long)((rng >> 33) % NPAGES);
}

static void protect(long page, int prot)
{
	if (mprotect(region + page * PAGE, PAGE, prot))
		bench_die("mprotect");
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	uint64_t now = bench_now_inner();
	(void)sig;
	(void)ctx;
	trap_total += now - t_write;
	long page = ((char *)si->si_addr - region) / PAGE;
	if (page < 0 || page >= NPAGES)
		_exit(2);
	protect(page, PROT_READ | PROT_WRITE);
	if (reprotect && open_page >= 0)
		protect(open_page, PROT_READ);
	open_page = page;
}

static void touch(long page)
{
	t_write = bench_now_inner();
	((volatile char *)region)[page * PAGE] = 1;
}

static void do_trap(long n, void *a)
{
	(void)a;
	while (n--) {
		protect(0, PROT_READ);
		touch(0);
	}
}

static void do_appel1(long n, void *a)
{
	(void)a;
	while (n--) {
		long p = rand_page();
		if (p == open_page)
			p = (p + 1) % NPAGES;
		touch(p);
	}
}

static void do_appel2(long n, void *a)
{
	(void)a;
	while (n--) {
		if (mprotect(region, NPAGES * PAGE, PROT_READ))
			bench_die("mprotect");
		for (long i = 0; i < NPAGES; i++)
			touch((i * 37 + n) % NPAGES);     // 37 is prime to 100: every page once
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	bench_init(argc, argv);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, 0))
		bench_die("sigaction");
	region = mmap(0, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		bench_die("mmap");
	for (long i = 0; i < NPAGES; i++)
		region[i * PAGE] = 0;

	long iters = bench_iters(2000);
	do_trap(1, 0);
	trap_total = 0;
	do_trap(iters, 0);
	bench_result("vm.trap", "", (double)trap_total / iters, "instructions");

	mprotect(region, NPAGES * PAGE, PROT_READ);
	open_page = -1;
	reprotect = 1;
	bench_result("vm.appel1", "", bench_measure(do_appel1, 0, iters), "instructions");

	reprotect = 0;
	long rounds = bench_iters(20);
	bench_result("vm.appel2", "", bench_measure(do_appel2, 0, rounds) / NPAGES, "instructions");
	return 0;
}
