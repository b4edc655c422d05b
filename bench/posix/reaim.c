// SPDX-License-Identifier: MIT
// The Re-aim single-user tasks of seed 001 Table 1, each re-implemented
// after its description (udp_test over the loopback, 127.0.0.1): one figure per task, guest
// instructions per completed activity (the seed reports throughput, activities
// per second; the report derives it).  Random lengths come from a fixed-seed
// generator, so every run does the same work.  Files live in the current
// directory (tmpfs in the guest, as Re-aim's RAM disk).
#include "bench.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096L

static unsigned long rng_state = 12345;

// Deterministic lengths in [1, max].
static long rand_len(long max)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (long)((rng_state >> 33) % (unsigned long)max) + 1;
}

static char buf[8192];

static void do_brk(long n, void *a)
{
	(void)a;
	unsigned long base = syscall(SYS_brk, 0);
	while (n--) {
		syscall(SYS_brk, base + 16 * PAGE);
		syscall(SYS_brk, base);
	}
}

static void do_page(long n, void *a)
{
	(void)a;
	unsigned long base = syscall(SYS_brk, 0);
	while (n--) {
		if ((unsigned long)syscall(SYS_brk, base + 16 * PAGE) != base + 16 * PAGE)
			bench_die("brk");
		for (long i = 0; i < 16; i++)
			((volatile char *)base)[i * PAGE] = 1;
		syscall(SYS_brk, base);
	}
}

static void do_creat_clo(long n, void *a)
{
	(void)a;
	while (n--) {
		int fd = creat("reaim.creat", 0644);
		if (fd < 0)
			bench_die("creat");
		close(fd);
		unlink("reaim.creat");
	}
}

static void do_link(long n, void *a)
{
	(void)a;
	while (n--) {
		if (link("reaim.link", "reaim.link2"))
			bench_die("link");
		unlink("reaim.link2");
	}
}

static void do_dir(long n, void *a)
{
	struct stat st;
	char cwd[256];
	(void)a;
	while (n--) {
		if (!getcwd(cwd, sizeof cwd) || stat("reaim.dir", &st) || access("reaim.dir", R_OK))
			bench_die("dir queries");
		DIR *d = opendir("reaim.dir");
		if (!d)
			bench_die("opendir");
		while (readdir(d))
			;
		closedir(d);
	}
}

static void do_misc(long n, void *a)
{
	struct utsname u;
	(void)a;
	while (n--) {
		getpid();
		getppid();
		getuid();
		geteuid();
		getgid();
		umask(022);
		time(0);
		uname(&u);
	}
}

// One random-length packet through a connected pair of descriptors.
static void packet(int wfd, int rfd, long max)
{
	long len = rand_len(max);
	if (write(wfd, buf, len) != len || read(rfd, buf, sizeof buf) != len)
		bench_die("packet");
}

static void do_pipe_cpy(long n, void *a)
{
	int *fd = a;
	while (n--)
		packet(fd[1], fd[0], 4096);
}

static void do_socket_pair(long n, void *a)
{
	int *sv = a;
	while (n--)
		packet(sv[0], sv[1], 4096);
}

// udp_test: a UDP socket on 127.0.0.1 sends random-length datagrams to itself.
static void do_udp(long n, void *a)
{
	int fd = *(int *)a;
	while (n--)
		packet(fd, fd, 4096);
}

// A UDP socket on 127.0.0.1 connected to itself.
static int udp_self(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof sa;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) || connect(fd, (struct sockaddr *)&sa, sizeof sa))
		bench_die("udp socket");
	return fd;
}

static void do_shell(long n, void *a)
{
	char *const argv[] = { "/bin/sh", a, 0 };
	while (n--)
		bench_run("/bin/sh", argv);
}

static volatile long caught;

static void on_signal(int sig)
{
	(void)sig;
	caught++;
}

static void do_signal(long n, void *a)
{
	pid_t self = *(pid_t *)a;
	while (n--)
		kill(self, SIGUSR2);
}

struct shm_sem {
	int sem;
	char *mem;
};

static void sem_step(int sem, int delta)
{
	struct sembuf op = { 0, (short)delta, 0 };
	if (semop(sem, &op, 1))
		bench_die("semop");
}

static void do_shm(long n, void *a)
{
	struct shm_sem *s = a;
	while (n--) {
		sem_step(s->sem, -1);
		long len = rand_len(4096);
		memcpy(s->mem, buf, len);
		memcpy(buf, s->mem, len);
		sem_step(s->sem, 1);
	}
}

static const char shell_script[] =
	"x=0\n"
	"while [ $x -lt 3 ]; do x=$((x + 1)); done\n"
	"echo $x > reaim.sh.out\n"
	"cat reaim.sh.out > /dev/null\n"
	"rm -f reaim.sh.out\n";

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (long)strlen(text))
		bench_die(path);
	close(fd);
}

// Files, a directory of 16 entries, the signal handler.
static void setup_files(void)
{
	char name[64];
	write_file("reaim.link", "x");
	write_file("reaim.sh", shell_script);
	mkdir("reaim.dir", 0755);
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "reaim.dir/f%d", i);
		write_file(name, "");
	}
	signal(SIGUSR2, on_signal);
}

static struct shm_sem make_shm(void)
{
	struct shm_sem s;
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	s.sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (id < 0 || s.sem < 0)
		bench_die("shmget/semget");
	s.mem = shmat(id, 0, 0);
	if (s.mem == (void *)-1)
		bench_die("shmat");
	shmctl(id, IPC_RMID, 0);          // freed when detached at exit
	sem_step(s.sem, 1);
	return s;
}

static void task(const char *name, bench_fn fn, void *arg, long full)
{
	char full_name[64];
	snprintf(full_name, sizeof full_name, "reaim.%s", name);
	bench_result(full_name, "", bench_measure(fn, arg, bench_iters(full)), "instructions");
}

int main(int argc, char **argv)
{
	int pfd[2], dg[2], st[2], udp;
	bench_init(argc, argv);
	setup_files();
	if (pipe(pfd) || socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) || socketpair(AF_UNIX, SOCK_STREAM, 0, st))
		bench_die("pipe/socketpair");
	struct shm_sem shm = make_shm();
	udp = udp_self();
	pid_t self = getpid();
	task("brk_test", do_brk, 0, 2000);
	task("creat_clo", do_creat_clo, 0, 2000);
	task("dgram_pipe", do_socket_pair, dg, 2000);
	task("dir_rtms_1", do_dir, 0, 1000);
	task("exec_test", bench_loop_exec, (void *)bench_sibling("hello"), 100);
	task("fork_test", bench_loop_fork_exit, 0, 200);
	task("link_test", do_link, 0, 2000);
	task("misc_rtms_1", do_misc, 0, 2000);
	task("page_test", do_page, 0, 500);
	task("pipe_cpy", do_pipe_cpy, pfd, 2000);
	task("shared_memory", do_shm, &shm, 2000);
	task("shell_rtms", do_shell, "reaim.sh", 20);
	task("signal_test", do_signal, &self, 2000);
	task("stream_pipe", do_socket_pair, st, 2000);
	task("udp_test", do_udp, &udp, 2000);
	semctl(shm.sem, 0, IPC_RMID);
	return 0;
}
