// SPDX-License-Identifier: MIT
// Home processors: sched_setaffinity moves the caller (and threads by ID),
// getcpu and sched_getcpu report where it runs, threads and children inherit
// the mask, /proc/cpuinfo and /sys/devices/system/cpu/online agree on the
// count.  Checks that need a second processor run only where CPU 1 is in the
// starting mask (a 4-processor boot of lx; most hosts).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int getcpu_now(void)
{
	unsigned cpu = ~0u, node = ~0u;
	if (syscall(SYS_getcpu, &cpu, &node, NULL))
		return -1;
	return (int)cpu;
}

static int only(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof s, &s);
}

/* Lines of /proc/cpuinfo that start a processor's entry. */
static int cpuinfo_count(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		n += strncmp(line, "processor\t:", 11) == 0;
	fclose(f);
	return n;
}

/* Processors /sys/devices/system/cpu/online lists ("0" or "0-N", a single range here). */
static int online_count(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int lo = 0, hi = -1, n;
	if (!f)
		return -1;
	n = fscanf(f, "%d-%d", &lo, &hi);
	fclose(f);
	return n == 2 ? hi - lo + 1 : n == 1 ? 1 : -1;
}

static void count_checks(cpu_set_t *start)
{
	int online = online_count();
	check("/proc/cpuinfo lists every online processor", cpuinfo_count(), online, 0);
	check("the starting mask names online processors only", CPU_COUNT(start) <= online, 1, 0);
	check("getcpu is in the starting mask", !!CPU_ISSET(getcpu_now(), start), 1, 0);
	check("sysconf(_SC_NPROCESSORS_CONF) counts them", sysconf(_SC_NPROCESSORS_CONF) >= online, 1, 0);
}

static void error_checks(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(CPU_SETSIZE - 1, &s);       /* beyond any mask the kernel reads */
	check("a mask of no existing processor: EINVAL", sched_setaffinity(0, sizeof s, &s), -1, EINVAL);
	check("a bad mask pointer: EFAULT", sched_setaffinity(0, sizeof s, (void *)8), -1, EFAULT);
	check("getcpu to a bad pointer: EFAULT", syscall(SYS_getcpu, (void *)8, NULL, NULL), -1, EFAULT);
}

static void *report_cpu(void *arg)
{
	cpu_set_t s;
	*(int *)arg = getcpu_now();
	if (sched_getaffinity(0, sizeof s, &s) || CPU_COUNT(&s) != 1 || !CPU_ISSET(1, &s))
		*(int *)arg = -2;
	return NULL;
}

/* Needs CPU 1: the caller moves there, and its new thread and child start there. */
static void move_checks(void)
{
	cpu_set_t s;
	check("sched_setaffinity to {1}", only(1), 0, 0);
	check("getcpu then says 1", getcpu_now(), 1, 0);
	check("sched_getcpu then says 1", sched_getcpu(), 1, 0);
	check("sched_getaffinity then lists {1}",
	      sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) == 1 && CPU_ISSET(1, &s), 1, 0);
	int seen = -1;
	pthread_t th;
	check("a thread starts", pthread_create(&th, NULL, report_cpu, &seen), 0, 0);
	pthread_join(th, NULL);
	check("a new thread runs on 1 with mask {1}", seen, 1, 0);
	pid_t c = fork();
	if (c == 0)
		_exit(getcpu_now() == 1 ? 0 : 1);
	int st = 0;
	waitpid(c, &st, 0);
	check("a forked child runs on 1", WIFEXITED(st) ? WEXITSTATUS(st) : 99, 0, 0);
	check("sched_setaffinity back to {0}", only(0), 0, 0);
	check("getcpu then says 0", getcpu_now(), 0, 0);
}

/* Another thread's mask, by its ID: a child told {0} from outside runs on 0. */
static void other_checks(void)
{
	int fds[2];
	char b = 0;
	if (pipe(fds))
		return;
	pid_t c = fork();
	if (c == 0) {
		read(fds[0], &b, 1);           /* the parent has moved it by now */
		_exit(getcpu_now() == 0 ? 0 : 1);
	}
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	check("sched_setaffinity of a child to {0}", sched_setaffinity(c, sizeof s, &s), 0, 0);
	write(fds[1], &b, 1);
	int st = 0;
	waitpid(c, &st, 0);
	check("the child then runs on 0", WIFEXITED(st) ? WEXITSTATUS(st) : 99, 0, 0);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	cpu_set_t start;
	setvbuf(stdout, NULL, _IONBF, 0);
	check("sched_getaffinity", sched_getaffinity(0, sizeof start, &start), 0, 0);
	count_checks(&start);
	error_checks();
	if (CPU_ISSET(0, &start) && CPU_ISSET(1, &start)) {
		move_checks();
		other_checks();
		sched_setaffinity(0, sizeof start, &start);
	} else {
		printf("skip moves: CPUs 0 and 1 are not both in the starting mask\n");
	}
	return checks_done("affinity");
}
