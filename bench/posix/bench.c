// SPDX-License-Identifier: MIT
// The measurement library: iteration scaling, timing, result lines.
#include "bench.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long scale_pct = 100;
static const char *system_name = "linux";
static const char *method_name = "icount";
static char self_dir[PATH_MAX] = ".";

static const char *env_or(const char *key, const char *dflt)
{
	const char *v = getenv(key);
	return v && *v ? v : dflt;
}

void bench_init(int argc, char **argv)
{
	(void)argc;
	scale_pct = atol(env_or("BENCH_SCALE", "100"));
	if (scale_pct <= 0)
		scale_pct = 100;
	system_name = env_or("BENCH_SYSTEM", "linux");
	method_name = env_or("BENCH_METHOD", "icount");
	const char *slash = strrchr(argv[0], '/');
	if (slash && (size_t)(slash - argv[0]) < sizeof self_dir)
		snprintf(self_dir, sizeof self_dir, "%.*s", (int)(slash - argv[0]), argv[0]);
}

long bench_iters(long full)
{
	long n = full * scale_pct / 100;
	return n < 2 ? 2 : n;
}

double bench_measure(bench_fn fn, void *arg, long iters)
{
	fn(1, arg);
	uint64_t t0 = bench_now();
	fn(iters, arg);
	uint64_t t1 = bench_now();
	return (double)(t1 - t0) / (double)iters;
}

void bench_result(const char *name, const char *params, double value, const char *unit)
{
	char line[512];
	bench_model_mark();
	int n = snprintf(line, sizeof line, "RESULT name=%s system=%s%s%s value=%.1f unit=%s method=%s\n",
			 name, system_name, *params ? " " : "", params, value, unit, method_name);
	if (n > 0 && write(1, line, (size_t)n) != n)
		_exit(3);
}

void bench_die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

const char *bench_sibling(const char *prog)
{
	static char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", self_dir, prog);
	return path;
}

int bench_spawn_echo(int rfd, int wfd, int close_fd)
{
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid > 0)
		return pid;
	if (close_fd >= 0)
		close(close_fd);
	char c;
	while (read(rfd, &c, 1) == 1)
		if (write(wfd, &c, 1) != 1)
			_exit(1);
	_exit(0);
}

void bench_round_trip(int wfd, int rfd)
{
	char c = 'x';
	if (write(wfd, &c, 1) != 1 || read(rfd, &c, 1) != 1)
		bench_die("round trip");
}

void bench_reap(int pid)
{
	int status;
	if (pid < 0)
		bench_die("fork");
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_die("child failed");
}

void bench_read_exactly(int fd, long bytes, char *buf, size_t size, const char *what)
{
	while (bytes > 0) {
		long got = read(fd, buf, bytes < (long)size ? (size_t)bytes : size);
		if (got <= 0)
			bench_die(what);
		bytes -= got;
	}
}

void bench_loop_fork_exit(long n, void *unused)
{
	(void)unused;
	while (n--) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		bench_reap(pid);
	}
}

void bench_run(const char *path, char *const argv[])
{
	char *const envp[] = { "PATH=/bin:/usr/bin", 0 };
	pid_t pid = fork();
	if (pid == 0) {
		execve(path, argv, envp);
		_exit(127);
	}
	bench_reap(pid);
}

void bench_loop_exec(long n, void *path)
{
	char *const argv[] = { path, 0 };
	while (n--)
		bench_run(path, argv);
}
