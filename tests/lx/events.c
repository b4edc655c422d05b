// SPDX-License-Identifier: MIT
// Event descriptors against Linux's behaviour: epoll (level and edge
// triggered, one-shot, nesting, entries dying with their file), eventfd,
// timerfd, signalfd and pidfd, each polled through poll(2) and epoll and
// woken by another process, with their error cases errno by errno.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then "events done, N
// failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define BAD_PTR ((void *)8)
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int revents(int fd, short events)
{
	struct pollfd pf = {fd, events, 0};
	return poll(&pf, 1, 0) == 1 ? pf.revents : 0;
}

/* A child that sleeps ms, then writes 8 bytes of value v to fd (an eventfd or pipe), and exits. */
static pid_t later_write(int fd, int ms, uint64_t v)
{
	pid_t c = fork();
	if (!c) {
		usleep(ms * 1000);
		write(fd, &v, 8);
		_exit(0);
	}
	return c;
}

static void epoll_ctl_errors(void)
{
	int p[2];
	pipe(p);
	struct epoll_event ev = {EPOLLIN, {.u64 = 7}};
	check("epoll_create_zero", syscall(SYS_epoll_create, 0), -1, EINVAL);
	check("epoll_create1_flags", epoll_create1(0x1234), -1, EINVAL);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	check("epoll_create1_cloexec", fcntl(ep, F_GETFD), FD_CLOEXEC, 0);
	check("ctl_add", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0, 0);
	check("ctl_add_again", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), -1, EEXIST);
	check("ctl_mod_absent", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev), -1, ENOENT);
	check("ctl_del_absent", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL), -1, ENOENT);
	check("ctl_bad_op", epoll_ctl(ep, 99, p[1], &ev), -1, EINVAL);
	check("ctl_self", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), -1, EINVAL);
	check("ctl_not_epoll", epoll_ctl(p[1], EPOLL_CTL_ADD, p[0], &ev), -1, EINVAL);
	check("ctl_bad_fd", epoll_ctl(ep, EPOLL_CTL_ADD, 200, &ev), -1, EBADF);
	check("ctl_bad_epfd", epoll_ctl(200, EPOLL_CTL_ADD, p[0], &ev), -1, EBADF);
	check("ctl_bad_event", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], BAD_PTR), -1, EFAULT);
	int reg = open("/tmp/ev_reg", O_CREAT | O_RDWR | O_TRUNC, 0600);
	check("ctl_regular_eperm", epoll_ctl(ep, EPOLL_CTL_ADD, reg, &ev), -1, EPERM);
	close(reg);
	unlink("/tmp/ev_reg");
	int null = open("/dev/null", O_RDWR);
	check("ctl_dev_null_eperm", epoll_ctl(ep, EPOLL_CTL_ADD, null, &ev), -1, EPERM);
	close(null);
	if (isatty(1)) {            /* under lx's shell: the console is pollable too */
		struct epoll_event out;
		epoll_ctl(ep, EPOLL_CTL_ADD, 1, &(struct epoll_event){EPOLLOUT, {.fd = 1}});
		check("tty_writable", epoll_wait(ep, &out, 1, 1000) == 1 && out.data.fd == 1 &&
		      (out.events & EPOLLOUT), 1, 0);
		epoll_ctl(ep, EPOLL_CTL_DEL, 1, NULL);
	}
	struct epoll_event ex = {EPOLLIN | EPOLLEXCLUSIVE, {0}};
	check("ctl_mod_exclusive", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ex), -1, EINVAL);
	ex.events |= EPOLLONESHOT;
	check("ctl_exclusive_oneshot", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ex), -1, EINVAL);
	ex.events = EPOLLOUT | EPOLLEXCLUSIVE;
	check("ctl_exclusive_ok", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ex), 0, 0);
	check("ctl_del", epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), 0, 0);
	check("ctl_del_gone", epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), -1, ENOENT);
	close(ep);
	close(p[0]);
	close(p[1]);
}

static void epoll_waits(void)
{
	int p[2];
	pipe(p);
	int ep = epoll_create(1);
	struct epoll_event ev = {EPOLLIN, {.u64 = 0x1122334455667788ULL}}, out[4];
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	check("wait_empty", epoll_wait(ep, out, 4, 0), 0, 0);
	long t0 = now_ms();
	check("wait_timeout", epoll_wait(ep, out, 4, 100), 0, 0);
	check("wait_waited", now_ms() - t0 >= 100, 1, 0);
	write(p[1], "ab", 2);
	memset(out, 0, sizeof(out));
	check("wait_ready", epoll_wait(ep, out, 4, -1), 1, 0);
	check("wait_events", out[0].events == EPOLLIN, 1, 0);
	check("wait_data", out[0].data.u64 == 0x1122334455667788ULL, 1, 0);
	check("wait_level_again", epoll_wait(ep, out, 4, 0), 1, 0);
	check("wait_max_zero", epoll_wait(ep, out, 0, 0), -1, EINVAL);
	check("wait_max_negative", epoll_wait(ep, out, -1, 0), -1, EINVAL);
	check("wait_bad_events", epoll_wait(ep, BAD_PTR, 4, 0), -1, EFAULT);
	check("wait_kernel_events", epoll_wait(ep, (void *)0xffff800000000000UL, 4, 0), -1, EFAULT);
	check("wait_not_epoll", epoll_wait(p[0], out, 4, 0), -1, EINVAL);
	check("wait_bad_fd", epoll_wait(200, out, 4, 0), -1, EBADF);
	sigset_t none;
	sigemptyset(&none);
	check("pwait_ready", epoll_pwait(ep, out, 4, 0, &none), 1, 0);
	check("pwait_bad_sigsize", syscall(SYS_epoll_pwait, ep, out, 4, 0, &none, 4), -1, EINVAL);
	struct timespec ts = {0, 1000000};
	check("pwait2_ready", syscall(441, ep, out, 4, &ts, NULL, 8), 1, 0);
	ts.tv_nsec = 1000000000;
	check("pwait2_bad_timeout", syscall(441, ep, out, 4, &ts, NULL, 8), -1, EINVAL);
	char b[2];
	read(p[0], b, 2);
	ts.tv_nsec = 20000000;
	check("pwait2_timeout", syscall(441, ep, out, 4, &ts, NULL, 8), 0, 0);
	/* level-triggered entries take turns when fewer may be reported than are ready */
	int ea = eventfd(1, 0), eb = eventfd(1, 0), rr = epoll_create1(0);
	struct epoll_event ra = {EPOLLIN, {.fd = ea}}, rb = {EPOLLIN, {.fd = eb}}, o1, o2;
	epoll_ctl(rr, EPOLL_CTL_ADD, ea, &ra);
	epoll_ctl(rr, EPOLL_CTL_ADD, eb, &rb);
	epoll_wait(rr, &o1, 1, 0);
	epoll_wait(rr, &o2, 1, 0);
	check("round_robin", o1.data.fd != o2.data.fd, 1, 0);
	close(rr);
	close(ea);
	close(eb);
	/* write end: EPOLLOUT; closing it: EPOLLHUP on the read end */
	struct epoll_event wev = {EPOLLOUT, {.fd = p[1]}};
	epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &wev);
	check("wait_out", epoll_wait(ep, out, 4, 0) == 1 && out[0].events == EPOLLOUT &&
	      out[0].data.fd == p[1], 1, 0);
	close(p[1]);
	check("wait_hup", epoll_wait(ep, out, 4, 0) == 1 && (out[0].events & EPOLLHUP), 1, 0);
	close(p[0]);
	close(ep);
}

static void epoll_triggers(void)
{
	int p[2];
	pipe(p);
	int ep = epoll_create1(0);
	struct epoll_event ev = {EPOLLIN | EPOLLET, {.u32 = 1}}, out[2];
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	write(p[1], "x", 1);
	check("et_first", epoll_wait(ep, out, 2, 0), 1, 0);
	check("et_no_new_edge", epoll_wait(ep, out, 2, 0), 0, 0);
	write(p[1], "y", 1);
	check("et_new_data", epoll_wait(ep, out, 2, 0), 1, 0);
	char b[4];
	read(p[0], b, 1);
	check("et_partial_read_no_edge", epoll_wait(ep, out, 2, 0), 0, 0);
	read(p[0], b, sizeof(b));
	int ep2 = epoll_create1(0);
	struct epoll_event one = {EPOLLIN | EPOLLONESHOT, {.u32 = 2}};
	epoll_ctl(ep2, EPOLL_CTL_ADD, p[0], &one);
	write(p[1], "z", 1);
	check("oneshot_first", epoll_wait(ep2, out, 2, 0), 1, 0);
	check("oneshot_disarmed", epoll_wait(ep2, out, 2, 0), 0, 0);
	check("oneshot_rearm", epoll_ctl(ep2, EPOLL_CTL_MOD, p[0], &one), 0, 0);
	check("oneshot_again", epoll_wait(ep2, out, 2, 0), 1, 0);
	read(p[0], b, sizeof(b));
	/* a blocking wait woken by another process's write */
	pid_t c = later_write(p[1], 50, 0);
	check("wait_woken", epoll_wait(ep, out, 2, -1), 1, 0);
	waitpid(c, NULL, 0);
	close(ep2);
	close(ep);
	close(p[0]);
	close(p[1]);
}

static void epoll_nesting_and_lifetime(void)
{
	int ep1 = epoll_create1(0), ep2 = epoll_create1(0), e = eventfd(0, 0);
	struct epoll_event ev = {EPOLLIN, {.fd = e}}, out[2];
	epoll_ctl(ep1, EPOLL_CTL_ADD, e, &ev);
	ev.data.fd = ep1;
	check("nest_add", epoll_ctl(ep2, EPOLL_CTL_ADD, ep1, &ev), 0, 0);
	check("nest_loop", epoll_ctl(ep1, EPOLL_CTL_ADD, ep2, &ev), -1, ELOOP);
	check("nest_idle", epoll_wait(ep2, out, 2, 0), 0, 0);
	check("nest_poll_idle", revents(ep1, POLLIN), 0, 0);
	uint64_t one = 1;
	write(e, &one, 8);
	check("nest_ready", epoll_wait(ep2, out, 2, 0) == 1 && out[0].data.fd == ep1, 1, 0);
	check("nest_poll_ready", revents(ep1, POLLIN), POLLIN, 0);
	/* an entry lives while its file is open through any descriptor, and dies with it */
	int d = dup(e);
	close(e);
	check("entry_survives_dup", epoll_wait(ep1, out, 2, 0), 1, 0);
	close(d);
	check("entry_dies_with_file", epoll_wait(ep1, out, 2, 0), 0, 0);
	int e2 = eventfd(1, 0);         /* most likely e's number again */
	check("entry_gone_del", epoll_ctl(ep1, EPOLL_CTL_DEL, e2, NULL), -1, ENOENT);
	close(e2);
	close(ep2);
	close(ep1);
	/* Linux allows a chain of five instances, not six */
	int chain[6], ok = 0;
	for (int i = 0; i < 6; i++)
		chain[i] = epoll_create1(0);
	for (int i = 1; i < 5; i++)
		ok += epoll_ctl(chain[i], EPOLL_CTL_ADD, chain[i - 1], &ev) == 0;
	check("nest_five", ok, 4, 0);
	check("nest_six_eloop", epoll_ctl(chain[5], EPOLL_CTL_ADD, chain[4], &ev), -1, ELOOP);
	for (int i = 0; i < 6; i++)
		close(chain[i]);
}

static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* signal(7): poll and epoll_wait are never restarted after a handler, SA_RESTART or not */
static void interrupted_waits(void)
{
	struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
	sigaction(SIGALRM, &sa, NULL);
	int ep = epoll_create1(0), p[2];
	pipe(p);
	struct epoll_event ev = {EPOLLIN, {0}}, out[1];
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	struct itimerval it = {{0, 0}, {0, 50000}};
	setitimer(ITIMER_REAL, &it, NULL);
	check("epoll_wait_eintr", epoll_wait(ep, out, 1, 5000), -1, EINTR);
	setitimer(ITIMER_REAL, &it, NULL);
	struct pollfd pf = {p[0], POLLIN, 0};
	check("poll_eintr", poll(&pf, 1, 5000), -1, EINTR);
	/* epoll_pwait's mask lets a blocked signal in for the wait only */
	sigset_t block, none, now;
	sigemptyset(&block);
	sigemptyset(&none);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	check("epoll_pwait_mask_eintr", epoll_pwait(ep, out, 1, 5000, &none), -1, EINTR);
	sigprocmask(SIG_BLOCK, NULL, &now);
	check("epoll_pwait_handler_ran", alarms, 1, 0);
	check("epoll_pwait_mask_restored", sigismember(&now, SIGALRM), 1, 0);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGALRM, &sa, NULL);
	close(ep);
	close(p[0]);
	close(p[1]);
}

static void epoll_rdhup(void)
{
	int s[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, s);
	int ep = epoll_create1(0);
	struct epoll_event ev = {EPOLLIN | EPOLLRDHUP, {0}}, out[1];
	epoll_ctl(ep, EPOLL_CTL_ADD, s[0], &ev);
	check("rdhup_idle", epoll_wait(ep, out, 1, 0), 0, 0);
	shutdown(s[1], SHUT_WR);
	check("rdhup_after_shutdown", epoll_wait(ep, out, 1, 0) == 1 &&
	      (out[0].events & (EPOLLRDHUP | EPOLLIN)) == (EPOLLRDHUP | EPOLLIN), 1, 0);
	close(ep);
	close(s[0]);
	close(s[1]);
}

static void eventfds(void)
{
	uint64_t v = 0;
	check("efd_bad_flags", eventfd(0, 0x100), -1, EINVAL);
	int e = eventfd(5, EFD_NONBLOCK | EFD_CLOEXEC);
	check("efd_cloexec", fcntl(e, F_GETFD), FD_CLOEXEC, 0);
	check("efd_read", read(e, &v, 8), 8, 0);
	check("efd_read_value", v, 5, 0);
	check("efd_read_empty", read(e, &v, 8), -1, EAGAIN);
	check("efd_poll_empty", revents(e, POLLIN | POLLOUT), POLLOUT, 0);
	check("efd_read_short", read(e, &v, 4), -1, EINVAL);
	check("efd_write_short", write(e, &v, 4), -1, EINVAL);
	v = ~0ULL;
	check("efd_write_max", write(e, &v, 8), -1, EINVAL);
	v = ~0ULL - 1;
	check("efd_write_limit", write(e, &v, 8), 8, 0);
	v = 1;
	check("efd_write_overflow", write(e, &v, 8), -1, EAGAIN);
	check("efd_poll_full", revents(e, POLLIN | POLLOUT), POLLIN, 0);
	check("efd_read_bad_ptr", read(e, BAD_PTR, 8), -1, EFAULT);
	close(e);
	e = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
	int ones = 0;
	for (int i = 0; i < 3; i++)
		ones += read(e, &v, 8) == 8 && v == 1;
	check("efd_semaphore_ones", ones, 3, 0);
	check("efd_semaphore_empty", read(e, &v, 8), -1, EAGAIN);
	close(e);
	e = eventfd(0xffffffffU, 0);
	check("efd_initval_unsigned", read(e, &v, 8) == 8 && v == 0xffffffffULL, 1, 0);
	pid_t c = later_write(e, 50, 42);
	check("efd_blocking_read", read(e, &v, 8) == 8 && v == 42, 1, 0);
	waitpid(c, NULL, 0);
	v = 2;
	write(e, &v, 8);
	write(e, &v, 8);
	check("efd_sums", read(e, &v, 8) == 8 && v == 4, 1, 0);
	close(e);
}

static struct itimerspec its(long s, long ns, long is, long ins)
{
	struct itimerspec t = {{is, ins}, {s, ns}};
	return t;
}

static void timerfd_errors(void)
{
	check("tfd_bad_clock", timerfd_create(123, 0), -1, EINVAL);
	check("tfd_bad_flags", timerfd_create(CLOCK_MONOTONIC, 0x1), -1, EINVAL);
	int tf = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	check("tfd_cloexec", fcntl(tf, F_GETFD), FD_CLOEXEC, 0);
	uint64_t n;
	check("tfd_read_unarmed", read(tf, &n, 8), -1, EAGAIN);
	check("tfd_read_short", read(tf, &n, 4), -1, EINVAL);
	struct itimerspec t = its(1, 0, 0, 0), old;
	check("tfd_set_bad_flags", timerfd_settime(tf, 0x10, &t, NULL), -1, EINVAL);
	t.it_value.tv_nsec = 1000000000;
	check("tfd_set_bad_nsec", timerfd_settime(tf, 0, &t, NULL), -1, EINVAL);
	check("tfd_set_null", timerfd_settime(tf, 0, NULL, NULL), -1, EFAULT);
	t = its(1, 0, 0, 0);
	int p[2];
	pipe(p);
	check("tfd_set_not_timer", timerfd_settime(p[0], 0, &t, NULL), -1, EINVAL);
	check("tfd_set_bad_fd", timerfd_settime(200, 0, &t, NULL), -1, EBADF);
	check("tfd_get_not_timer", timerfd_gettime(p[0], &old), -1, EINVAL);
	check("tfd_get_bad_ptr", timerfd_gettime(tf, BAD_PTR), -1, EFAULT);
	close(p[0]);
	close(p[1]);
	t = its(10, 0, 0, 0);
	timerfd_settime(tf, 0, &t, NULL);
	t = its(0, 0, 0, 0);
	check("tfd_disarm", timerfd_settime(tf, 0, &t, &old), 0, 0);
	check("tfd_old_value", old.it_value.tv_sec >= 9 && old.it_value.tv_sec <= 10, 1, 0);
	timerfd_gettime(tf, &old);
	check("tfd_disarmed", old.it_value.tv_sec == 0 && old.it_value.tv_nsec == 0, 1, 0);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	close(tf);
	tf = timerfd_create(CLOCK_REALTIME, 0);
	t = its(now.tv_sec + 100, 0, 0, 0);
	check("tfd_cancel_on_set", timerfd_settime(tf, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
						   &t, NULL), 0, 0);
	close(tf);
}

static void timerfd_expiry(void)
{
	int tf = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec t = its(0, 30000000, 0, 0), cur;
	uint64_t n = 0;
	long t0 = now_ms();
	timerfd_settime(tf, 0, &t, NULL);
	timerfd_gettime(tf, &cur);
	check("tfd_get_running", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0 &&
	      cur.it_value.tv_nsec <= 30000000, 1, 0);
	check("tfd_not_yet", revents(tf, POLLIN), 0, 0);
	check("tfd_blocking_read", read(tf, &n, 8), 8, 0);
	check("tfd_one_expiry", n, 1, 0);
	check("tfd_waited", now_ms() - t0 >= 29, 1, 0);
	timerfd_gettime(tf, &cur);
	check("tfd_one_shot_done", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0, 1, 0);
	t = its(0, 10000000, 0, 10000000);
	timerfd_settime(tf, 0, &t, NULL);
	usleep(55000);
	read(tf, &n, 8);
	check("tfd_interval_count", n >= 5, 1, 0);
	timerfd_gettime(tf, &cur);
	check("tfd_interval_kept", cur.it_interval.tv_nsec == 10000000, 1, 0);
	check("tfd_interval_blocking_read", read(tf, &n, 8) == 8 && n >= 1, 1, 0);
	close(tf);
	tf = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	t = its(0x3fffffffffffffffL, 0, 0x3fffffffffffffffL, 0);
	check("tfd_far_future", timerfd_settime(tf, 0, &t, NULL), 0, 0);
	check("tfd_far_future_unexpired", read(tf, &n, 8), -1, EAGAIN);
	close(tf);
	/* absolute, on the wall clock: in the past it has expired at once */
	tf = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	t = its(now.tv_sec - 1, 0, 0, 0);
	timerfd_settime(tf, TFD_TIMER_ABSTIME, &t, NULL);
	check("tfd_abs_past", read(tf, &n, 8) == 8 && n == 1, 1, 0);
	t = its(now.tv_sec + 1, now.tv_nsec, 0, 0);
	timerfd_settime(tf, TFD_TIMER_ABSTIME, &t, NULL);
	check("tfd_abs_future", read(tf, &n, 8), -1, EAGAIN);
	/* epoll waits until the timer fires (lx's clock thread wakes it) */
	int ep = epoll_create1(0);
	struct epoll_event ev = {EPOLLIN, {0}}, out[1];
	epoll_ctl(ep, EPOLL_CTL_ADD, tf, &ev);
	check("tfd_epoll_wakes", epoll_wait(ep, out, 1, 5000), 1, 0);
	struct timespec after;
	clock_gettime(CLOCK_REALTIME, &after);
	check("tfd_abs_not_early", after.tv_sec * 1000000000L + after.tv_nsec >=
	      (now.tv_sec + 1) * 1000000000L + now.tv_nsec, 1, 0);
	close(ep);
	close(tf);
}

static void signalfds(void)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGUSR2);
	sigprocmask(SIG_BLOCK, &m, NULL);
	sigdelset(&m, SIGUSR2);
	check("sfd_bad_flags", signalfd(-1, &m, 0x1), -1, EINVAL);
	check("sfd_bad_size", syscall(SYS_signalfd4, -1, &m, 4, 0), -1, EINVAL);
	check("sfd_bad_mask", syscall(SYS_signalfd4, -1, BAD_PTR, 8, 0), -1, EFAULT);
	check("sfd_bad_fd", signalfd(200, &m, 0), -1, EBADF);
	int p[2];
	pipe(p);
	check("sfd_not_signalfd", signalfd(p[0], &m, 0), -1, EINVAL);
	close(p[0]);
	close(p[1]);
	int s = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
	check("sfd_cloexec", fcntl(s, F_GETFD), FD_CLOEXEC, 0);
	struct signalfd_siginfo si[2];
	check("sfd_read_empty", read(s, si, sizeof(si)), -1, EAGAIN);
	check("sfd_read_short", read(s, si, 64), -1, EINVAL);
	kill(getpid(), SIGUSR2);
	check("sfd_other_signal", revents(s, POLLIN), 0, 0);
	kill(getpid(), SIGUSR1);
	check("sfd_poll", revents(s, POLLIN), POLLIN, 0);
	check("sfd_read", read(s, si, sizeof(si)), sizeof(si[0]), 0);
	check("sfd_signo", si[0].ssi_signo, SIGUSR1, 0);
	sigaddset(&m, SIGUSR2);
	check("sfd_change_mask", signalfd(s, &m, 0), s, 0);
	check("sfd_now_usr2", read(s, si, sizeof(si)) == sizeof(si[0]) && si[0].ssi_signo == SIGUSR2,
	      1, 0);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	check("sfd_two_records", read(s, si, sizeof(si)), 2 * sizeof(si[0]), 0);
	close(s);
	/* a blocking read woken by another process's kill */
	s = signalfd(-1, &m, 0);
	pid_t parent = getpid(), c = fork();
	if (!c) {
		usleep(50000);
		kill(parent, SIGUSR2);
		_exit(0);
	}
	check("sfd_blocking_read", read(s, si, sizeof(si)) == sizeof(si[0]) &&
	      si[0].ssi_signo == SIGUSR2, 1, 0);
	waitpid(c, NULL, 0);
	int ep = epoll_create1(0);
	struct epoll_event ev = {EPOLLIN, {0}}, out[1];
	epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
	check("sfd_epoll_idle", epoll_wait(ep, out, 1, 0), 0, 0);
	kill(getpid(), SIGUSR1);
	check("sfd_epoll_ready", epoll_wait(ep, out, 1, 0), 1, 0);
	read(s, si, sizeof(si));
	close(ep);
	close(s);
	sigprocmask(SIG_UNBLOCK, &m, NULL);
}

static int pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int pidfd_send_signal(int fd, int sig, siginfo_t *info, unsigned flags)
{
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

static void pidfds(void)
{
	check("pidfd_bad_flags", pidfd_open(getpid(), 1), -1, EINVAL);
	check("pidfd_pid_zero", pidfd_open(0, 0), -1, EINVAL);
	check("pidfd_pid_negative", pidfd_open(-1, 0), -1, EINVAL);
	check("pidfd_no_process", pidfd_open(4000000, 0), -1, ESRCH);
	pid_t c = fork();
	if (!c) {
		for (;;)
			pause();
	}
	int pf = pidfd_open(c, 0);
	check("pidfd_cloexec", fcntl(pf, F_GETFD), FD_CLOEXEC, 0);
	check("pidfd_running", revents(pf, POLLIN), 0, 0);
	char b[8];
	check("pidfd_read", read(pf, b, sizeof(b)), -1, EINVAL);
	check("pidfd_signal_bad_flags", pidfd_send_signal(pf, SIGKILL, NULL, 0x100), -1, EINVAL);
	check("pidfd_signal_bad_fd", pidfd_send_signal(200, SIGKILL, NULL, 0), -1, EBADF);
	int p[2];
	pipe(p);
	check("pidfd_signal_not_pidfd", pidfd_send_signal(p[0], SIGKILL, NULL, 0), -1, EBADF);
	close(p[0]);
	close(p[1]);
	check("pidfd_signal_bad_sig", pidfd_send_signal(pf, 1000, NULL, 0), -1, EINVAL);
	check("pidfd_signal_zero", pidfd_send_signal(pf, 0, NULL, 0), 0, 0);
	check("pidfd_kill", pidfd_send_signal(pf, SIGKILL, NULL, 0), 0, 0);
	struct pollfd pfd = {pf, POLLIN, 0};
	check("pidfd_exit_readable", poll(&pfd, 1, 5000) == 1 && (pfd.revents & POLLIN), 1, 0);
	int st;
	check("pidfd_killed", waitpid(c, &st, 0) == c && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      1, 0);
	check("pidfd_signal_reaped", pidfd_send_signal(pf, SIGTERM, NULL, 0), -1, ESRCH);
	close(pf);
	/* epoll on a pidfd: woken when the process exits by itself */
	c = fork();
	if (!c) {
		usleep(50000);
		_exit(3);
	}
	pf = pidfd_open(c, O_NONBLOCK);
	int ep = epoll_create1(0);
	struct epoll_event ev = {EPOLLIN, {0}}, out[1];
	epoll_ctl(ep, EPOLL_CTL_ADD, pf, &ev);
	check("pidfd_epoll_wakes", epoll_wait(ep, out, 1, 5000), 1, 0);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	check("waitid_bad_pidfd", waitid(P_PIDFD, 200, &si, WEXITED), -1, EBADF);
	check("waitid_pidfd", waitid(P_PIDFD, pf, &si, WEXITED), 0, 0);
	check("waitid_pidfd_status", si.si_pid == c && si.si_code == CLD_EXITED && si.si_status == 3,
	      1, 0);
	close(ep);
	close(pf);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	epoll_ctl_errors();
	epoll_waits();
	epoll_triggers();
	epoll_nesting_and_lifetime();
	epoll_rdhup();
	interrupted_waits();
	eventfds();
	timerfd_errors();
	timerfd_expiry();
	signalfds();
	pidfds();
	return checks_done("events");
}
