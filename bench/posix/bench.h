// SPDX-License-Identifier: MIT
// The measurement library shared by the portable benchmarks (bench/posix).
//
// Figures are guest instructions: under QEMU's `-icount shift=0` the time-stamp
// counter advances one tick per executed guest instruction, so an rdtsc delta
// divided by the iteration count is instructions per operation
// (docs/bench-method.md).  Every figure is printed as one line
//     RESULT name=<name> system=<sys> [<params>] value=<v> unit=<u> method=<m>
// written with a single write(2), so forked children never duplicate it.
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

// A timed body: performs its operation `iters` times.
typedef void (*bench_fn)(long iters, void *arg);

// Reads the environment: BENCH_SCALE (percent of the default iteration
// counts, default 100), BENCH_SYSTEM (default "linux"), BENCH_METHOD (default
// "icount").  Call first, with argv[0] (used to find sibling programs).
void bench_init(int argc, char **argv);

// Iterations to run for a benchmark whose full run uses `full`: scaled by
// BENCH_SCALE, never fewer than 2.
long bench_iters(long full);

// Instructions per operation: runs fn once untimed (warm-up: page faults,
// caches of the kernel), then times fn(iters).
double bench_measure(bench_fn fn, void *arg, long iters);

// Prints one RESULT line; `params` is "" or "key=value ...".
void bench_result(const char *name, const char *params, double value, const char *unit);

// Prints `what: strerror(errno)` on stderr and exits with status 1.
void bench_die(const char *what);

// Absolute path of a program in the benchmark's own directory.
const char *bench_sibling(const char *prog);

// Forks a child that reads one byte at a time from rfd and writes it back to
// wfd until end-of-file, then exits; `close_fd` (or -1) is closed in the child
// first (the parent's end of a socket pair).  Returns the child's pid.
int bench_spawn_echo(int rfd, int wfd, int close_fd);

// Round trip of one byte: write to wfd, read the answer from rfd.
void bench_round_trip(int wfd, int rfd);

// Waits for a child and fails unless it exited with status 0.
void bench_reap(int pid);
// Read exactly `bytes` from fd into buf, size at a time (bench_die(what) on error
// or end of stream; the caller's buffer, so that programs that do not read keep
// no 64 KiB of it, which 1,000 forked processes would each be charged): never
// more than is left, or a read crossing the end takes the next part's bytes (the
// warm-up's, the timed part's) and the stream ends before the timed part is read.
void bench_read_exactly(int fd, long bytes, char *buf, size_t size, const char *what);

// Timed bodies shared by lat_proc and reaim: n times fork a child that exits
// at once and reap it; n times fork, exec the program `path`, and reap.
void bench_loop_fork_exit(long n, void *unused);
void bench_loop_exec(long n, void *path);

// Forks a child that execs path with argv (environment: PATH only), and waits
// for it; fails unless the program exits with status 0.
void bench_run(const char *path, char *const argv[]);

// The time-stamp counter: guest instructions under icount.  Encoded `rex.W rdtsc`
// (the prefix changes nothing and costs nothing) so that the cost-model plugin
// (tools/costmodel) can tell the benchmarks' reads from any other.
static inline uint64_t bench_now(void)
{
	uint32_t lo, hi;
	__asm__ volatile(".byte 0x48, 0x0f, 0x31" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

// The time-stamp counter for reads inside another timed window (lat_vm times
// each trap inside bench_measure's loop): a plain rdtsc, which the cost model
// does not take for a window's end.
static inline uint64_t bench_now_inner(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

// The cost model's group mark (a multi-byte NOP): the windows timed since the
// previous mark make the next figure (docs/bench-method.md).  bench_result
// executes it for every figure.
static inline void bench_model_mark(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x4d, 0x4f, 0x44, 0x4c" : : : "memory");
}

#endif
