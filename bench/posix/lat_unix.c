// SPDX-License-Identifier: MIT
// lmbench lat_unix: one byte to a child and back over an AF_UNIX stream
// socket pair; one figure per round trip.
#include "bench.h"

#include <sys/socket.h>
#include <unistd.h>

static void do_round_trip(long n, void *a)
{
	int fd = *(int *)a;
	while (n--)
		bench_round_trip(fd, fd);
}

int main(int argc, char **argv)
{
	int sv[2];
	bench_init(argc, argv);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		bench_die("socketpair");
	int pid = bench_spawn_echo(sv[1], sv[1], sv[0]);
	close(sv[1]);
	double v = bench_measure(do_round_trip, &sv[0], bench_iters(2000));
	close(sv[0]);
	bench_reap(pid);
	bench_result("lmbench.unix_lat", "", v, "instructions");
	return 0;
}
