// SPDX-License-Identifier: MIT
// OO1 (seed 002 Tables 2 and 3; bench/oo1/oo1.h): the database in this
// process (variant=single), or in a server process with the client calling
// it by RPC over pipes (variant=pipe) or SysV message queues (variant=msgq),
// the server delivering each part to the client by another RPC.
// Each variant runs once to warm up (the seed measured with hot caches),
// then once measured.  oo1.lookup is 1,000 lookups; oo1.forward one forward traversal to depth 7
// (3,280 parts); oo1.reverse one reverse traversal scaled to 3,280 parts;
// oo1.insert 100 parts with 3 connections each; oo1.total their sum.
// BENCH_SCALE below 100 (the smoke test) does fewer lookups and inserts and
// traverses to depth 3 only, still reported per 1,000 lookups, per 3,280
// parts traversed and per 100 inserts.
#include "bench.h"
#include "../oo1/oo1.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <unistd.h>

static struct oo1_db db;
static volatile uint64_t seen;

/* The user procedure: takes the part's fields. */
static void visit(void *ctx, uint32_t id, int32_t x, int32_t y, uint64_t type)
{
	(void)ctx;
	seen += id ^ (uint32_t)x ^ (uint32_t)y ^ type;
}

/* --- how the client reaches the database --- */

static uint32_t local_lookup(uint32_t id) { return oo1_lookup(&db, id, visit, 0); }
static uint32_t local_traverse(uint32_t id, int rev, int depth) { return oo1_traverse(&db, id, depth, rev, visit, 0); }
static uint32_t local_new(void) { return oo1_new_part(&db); }
static void local_connect(uint32_t f, uint32_t t) { oo1_connect(&db, f, t); }
static const struct oo1_ops local = { local_lookup, local_traverse, local_new, local_connect };

/* --- RPC: requests to the server, parts back to the client --- */

enum { OP_LOOKUP = 1, OP_TRAVERSE, OP_NEW, OP_CONNECT, OP_QUIT, OP_VISIT, OP_ACK, OP_DONE };

struct msg {
	long mtype;                     /* SysV: 1 to the server, 2 to the client */
	uint32_t op, a, b;
	int32_t x, y;
	uint64_t w;
};

struct transport {
	void (*send)(int to_server, struct msg *m);
	void (*recv)(int at_server, struct msg *m);
};

static int to_server[2], to_client[2], queue = -1;

static void pipe_send(int server, struct msg *m)
{
	if (write(server ? to_server[1] : to_client[1], m, sizeof(*m)) != sizeof(*m))
		bench_die("pipe write");
}

static void pipe_recv(int server, struct msg *m)
{
	char *p = (char *)m;
	size_t got = 0;
	while (got < sizeof(*m)) {
		ssize_t n = read(server ? to_server[0] : to_client[0], p + got, sizeof(*m) - got);
		if (n <= 0)
			bench_die("pipe read");
		got += (size_t)n;
	}
}

static void msgq_send(int server, struct msg *m)
{
	m->mtype = server ? 1 : 2;
	if (msgsnd(queue, m, sizeof(*m) - sizeof(long), 0))
		bench_die("msgsnd");
}

static void msgq_recv(int server, struct msg *m)
{
	if (msgrcv(queue, m, sizeof(*m) - sizeof(long), server ? 1 : 2, 0) < 0)
		bench_die("msgrcv");
}

static const struct transport pipes = { pipe_send, pipe_recv }, msgq = { msgq_send, msgq_recv };
static const struct transport *tr;

/* The server's user procedure: an RPC to the client with the part, waiting for its answer. */
static void rpc_visit(void *ctx, uint32_t id, int32_t x, int32_t y, uint64_t type)
{
	(void)ctx;
	struct msg m = { 0, OP_VISIT, id, 0, x, y, type };
	tr->send(0, &m);
	tr->recv(1, &m);
}

static void server(void)
{
	for (;;) {
		struct msg m;
		tr->recv(1, &m);
		uint32_t r = 0;
		switch (m.op) {
		case OP_LOOKUP: r = oo1_lookup(&db, m.a, rpc_visit, 0); break;
		case OP_TRAVERSE: r = oo1_traverse(&db, m.a, m.x, (int)m.b, rpc_visit, 0); break;
		case OP_NEW: r = oo1_new_part(&db); break;
		case OP_CONNECT: r = (uint32_t)oo1_connect(&db, m.a, m.b); break;
		default: _exit(0);
		}
		struct msg d = { 0, OP_DONE, r, 0, 0, 0, 0 };
		tr->send(0, &d);
	}
}

/* A request; every part the server sends meanwhile goes to the user procedure. */
static uint32_t call(uint32_t op, uint32_t a, uint32_t b, int32_t x)
{
	struct msg m = { 0, op, a, b, x, 0, 0 };
	tr->send(1, &m);
	for (;;) {
		tr->recv(0, &m);
		if (m.op == OP_DONE)
			return m.a;
		visit(0, m.a, m.x, m.y, m.w);
		m.op = OP_ACK;
		tr->send(1, &m);
	}
}

static uint32_t rpc_lookup(uint32_t id) { return call(OP_LOOKUP, id, 0, 0); }
static uint32_t rpc_traverse(uint32_t id, int rev, int depth) { return call(OP_TRAVERSE, id, (uint32_t)rev, depth); }
static uint32_t rpc_new(void) { return call(OP_NEW, 0, 0, 0); }
static void rpc_connect(uint32_t f, uint32_t t) { call(OP_CONNECT, f, t, 0); }
static const struct oo1_ops remote = { rpc_lookup, rpc_traverse, rpc_new, rpc_connect };

/* --- the benchmark --- */

static void report(const char *variant, const char *name, double v)
{
	char params[64];
	snprintf(params, sizeof params, "variant=%s", variant);
	bench_result(name, params, v, "instructions");
}

/* The operations; their figures are printed unless variant is NULL (the warm-up run). */
static void run(const struct oo1_ops *ops, const char *variant)
{
	long lookups = bench_iters(OO1_LOOKUPS);
	int depth = lookups < OO1_LOOKUPS ? 3 : OO1_DEPTH;
	struct oo1_times t = oo1_measure(ops, lookups, bench_iters(OO1_INSERTS), depth, bench_now);
	if (!variant)
		return;
	report(variant, "oo1.lookup", (double)t.lookup);
	report(variant, "oo1.forward", (double)t.forward);
	report(variant, "oo1.reverse", (double)t.reverse);
	report(variant, "oo1.insert", (double)t.insert);
	report(variant, "oo1.total", (double)(t.lookup + t.forward + t.reverse + t.insert));
}

static void remote_run(const struct transport *t, const char *variant)
{
	tr = t;
	oo1_build(&db, OO1_PARTS, 0x5eed);
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0)
		server();
	run(&remote, 0);
	run(&remote, variant);
	struct msg q = { 0, OP_QUIT, 0, 0, 0, 0, 0 };
	tr->send(1, &q);
	bench_reap(pid);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	oo1_build(&db, OO1_PARTS, 0x5eed);
	run(&local, 0);                 /* the seed's figures are with hot caches: a warm-up first */
	run(&local, "single");
	if (pipe(to_server) || pipe(to_client))
		bench_die("pipe");
	remote_run(&pipes, "pipe");
	queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (queue < 0) {
		fprintf(stderr, "oo1: no SysV message queues (%s): variant msgq left out\n", strerror(errno));
		return 0;
	}
	remote_run(&msgq, "msgq");
	msgctl(queue, IPC_RMID, 0);
	return 0;
}
