// SPDX-License-Identifier: MIT
// A cross-domain call the UNIX way (seed 002 Table 1, "Cross-domain call"):
// a request of 7 words to a server process and a reply of 2, the payload of
// a Mungi PDX call, over two pipes (rpc.pipe) and over a SysV message queue
// (rpc.msgq, mtype 1 for requests, 2 for replies).  One figure per call.
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <unistd.h>

struct req { long mtype; uint64_t w[7]; };
struct rep { long mtype; uint64_t w[2]; };

static int up[2], down[2], queue = -1;

static void full(ssize_t got, size_t want, const char *what)
{
	if (got != (ssize_t)want)
		bench_die(what);
}

static void pipe_server(void)
{
	struct req q;
	close(up[1]);                   /* so the client's close ends the loop */
	close(down[0]);
	while (read(up[0], &q, sizeof q) == sizeof q) {
		struct rep r = { 2, { q.w[1] + q.w[2], q.w[1] * q.w[2] } };
		full(write(down[1], &r, sizeof r), sizeof r, "server write");
	}
	_exit(0);
}

static void pipe_calls(long n, void *unused)
{
	(void)unused;
	struct req q = { 1, { 0, 2, 3, 4, 5, 6, 7 } };
	struct rep r;
	while (n--) {
		full(write(up[1], &q, sizeof q), sizeof q, "client write");
		full(read(down[0], &r, sizeof r), sizeof r, "client read");
	}
}

static void msgq_server(void)
{
	struct req q;
	while (msgrcv(queue, &q, sizeof q - sizeof(long), 1, 0) >= 0) {
		if (q.w[0] == 1)
			_exit(0);
		struct rep r = { 2, { q.w[1] + q.w[2], q.w[1] * q.w[2] } };
		if (msgsnd(queue, &r, sizeof r - sizeof(long), 0))
			bench_die("server msgsnd");
	}
	_exit(1);
}

static void msgq_calls(long n, void *unused)
{
	(void)unused;
	struct req q = { 1, { 0, 2, 3, 4, 5, 6, 7 } };
	struct rep r;
	while (n--) {
		if (msgsnd(queue, &q, sizeof q - sizeof(long), 0) ||
		    msgrcv(queue, &r, sizeof r - sizeof(long), 2, 0) < 0)
			bench_die("client msgq");
	}
}

static pid_t start(void (*server)(void))
{
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0)
		server();
	return pid;
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	if (pipe(up) || pipe(down))
		bench_die("pipe");
	pid_t pid = start(pipe_server);
	bench_result("rpc.pipe", "", bench_measure(pipe_calls, 0, bench_iters(2000)), "instructions");
	close(up[1]);
	bench_reap(pid);
	queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (queue < 0) {
		fprintf(stderr, "lat_rpc: no SysV message queues (%s): rpc.msgq left out\n", strerror(errno));
		return 0;
	}
	pid = start(msgq_server);
	bench_result("rpc.msgq", "", bench_measure(msgq_calls, 0, bench_iters(2000)), "instructions");
	struct req quit = { 1, { 1 } };
	msgsnd(queue, &quit, sizeof quit - sizeof(long), 0);
	bench_reap(pid);
	msgctl(queue, IPC_RMID, 0);
	return 0;
}
