/* SPDX-License-Identifier: MIT */
/*
 * POSIX message queues: names, attributes, priority order, full and empty
 * queues (EAGAIN, waiting, ETIMEDOUT), mq_notify's signal, errno by errno.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t notified;
static void on_usr1(int s) { (void)s; notified = 1; }

static struct timespec in_ms(int ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

int main(void)
{
	struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 64 }, got;
	mq_unlink("/lxq");
	mqd_t q = mq_open("/lxq", O_CREAT | O_RDWR, 0600, &a);
	check("mq_open O_CREAT", q >= 0, 1, 0);
	check("mq_open O_EXCL on an existing queue: EEXIST",
	      mq_open("/lxq", O_CREAT | O_EXCL | O_RDWR, 0600, &a), -1, EEXIST);
	check("mq_open of no queue: ENOENT", mq_open("/lxq-none", O_RDWR), -1, ENOENT);
	check("mq_open a name with a slash: EACCES", mq_open("/a/b", O_CREAT | O_RDWR, 0600, NULL), -1,
	      EACCES);
	struct mq_attr zero = { .mq_maxmsg = 0, .mq_msgsize = 64 };
	check("mq_open maxmsg 0: EINVAL", mq_open("/lxq-bad", O_CREAT | O_RDWR, 0600, &zero), -1, EINVAL);
	check("mq_getattr", mq_getattr(q, &got), 0, 0);
	check("attributes as asked", got.mq_maxmsg == 4 && got.mq_msgsize == 64 && got.mq_curmsgs == 0,
	      1, 0);

	check("send prio 1", mq_send(q, "low", 4, 1), 0, 0);
	check("send prio 5", mq_send(q, "high", 5, 5), 0, 0);
	check("send prio 5 again", mq_send(q, "high2", 6, 5), 0, 0);
	check("send too long: EMSGSIZE", mq_send(q, (char[100]){0}, 100, 0), -1, EMSGSIZE);
	check("send prio 32768: EINVAL", mq_send(q, "x", 1, 32768), -1, EINVAL);
	struct pollfd pf = { .fd = q, .events = POLLIN };
	check("poll sees messages", poll(&pf, 1, 0), 1, 0);
	char buf[64];
	unsigned prio = 0;
	check("receive with a small buffer: EMSGSIZE", mq_receive(q, buf, 10, &prio), -1, EMSGSIZE);
	check("receive the first of the highest priority", mq_receive(q, buf, 64, &prio), 5, 0);
	check("it is 'high', prio 5", !strcmp(buf, "high") && prio == 5, 1, 0);
	check("then 'high2'", mq_receive(q, buf, 64, &prio) == 6 && !strcmp(buf, "high2"), 1, 0);
	check("then 'low'", mq_receive(q, buf, 64, &prio) == 4 && prio == 1, 1, 0);

	struct mq_attr nb = { .mq_flags = O_NONBLOCK };
	check("mq_setattr O_NONBLOCK", mq_setattr(q, &nb, NULL), 0, 0);
	check("receive from an empty queue: EAGAIN", mq_receive(q, buf, 64, NULL), -1, EAGAIN);
	for (int i = 0; i < 4; i++)
		mq_send(q, "f", 1, 0);
	check("send to a full queue: EAGAIN", mq_send(q, "f", 1, 0), -1, EAGAIN);
	for (int i = 0; i < 4; i++)
		mq_receive(q, buf, 64, NULL);
	struct mq_attr bl = { .mq_flags = 0 };
	mq_setattr(q, &bl, NULL);
	struct timespec soon = in_ms(100);
	check("timed receive times out: ETIMEDOUT", mq_timedreceive(q, buf, 64, NULL, &soon), -1,
	      ETIMEDOUT);

	pid_t c = fork();
	if (c == 0) {
		usleep(100000);
		mqd_t cq = mq_open("/lxq", O_WRONLY);
		_exit(mq_send(cq, "late", 5, 2) == 0 ? 0 : 1);
	}
	check("a waiting receive gets a later send", mq_receive(q, buf, 64, &prio), 5, 0);
	int st;
	waitpid(c, &st, 0);

	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	check("mq_notify SIGEV_SIGNAL", mq_notify(q, &sev), 0, 0);
	c = fork();
	if (c == 0)
		_exit(mq_notify(q, &sev) == -1 && errno == EBUSY ? 0 : 1);
	waitpid(c, &st, 0);
	check("a second registration: EBUSY", st, 0, 0);
	mq_send(q, "n", 1, 0);
	for (int i = 0; i < 100 && !notified; i++)
		usleep(10000);
	check("the signal came with the first message", notified, 1, 0);

	check("mq_unlink", mq_unlink("/lxq"), 0, 0);
	check("gone by name: ENOENT", mq_open("/lxq", O_RDWR), -1, ENOENT);
	check("the open queue still works", mq_receive(q, buf, 64, NULL), 1, 0);
	check("mq_unlink again: ENOENT", mq_unlink("/lxq"), -1, ENOENT);
	mq_close(q);
	return checks_done("mqueue");
}
