// SPDX-License-Identifier: MIT
// /proc and /sys as programs read them (procps parses these files): the
// formats' properties that hold on Linux and on lx, the files of a process
// against what the process knows of itself, descriptors as links, and the
// life of /proc/PID.  Prints "ok NAME" or "FAIL NAME: detail" per check,
// then "procfs done, N failed"; the same program passes on Linux (as root).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

extern char **environ;
static char first_env[4096];

/* The whole of a file (NUL-terminated, at most n - 1 bytes); its length or -1. */
static long slurp(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	size_t got = 0;
	long r;
	while (got < n - 1 && (r = read(fd, buf + got, n - 1 - got)) > 0)
		got += (size_t)r;
	close(fd);
	buf[got] = 0;
	return (long)got;
}

/* The value after "Key:\t" in a status-style file, or NULL. */
static const char *field(const char *text, const char *key)
{
	size_t k = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, k) && l[k] == ':')
			return l + k + 1 + strspn(l + k + 1, " \t");
	return NULL;
}

/* Field n (1-based) of a stat line, after the comm in parentheses (n >= 3). */
static long long stat_field(const char *stat, int n)
{
	const char *p = strrchr(stat, ')');
	for (int i = 2; p && i < n; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoll(p + 1, NULL, 10) : -1;
}

static int count_fields(const char *stat)
{
	const char *p = strrchr(stat, ')');
	int n = 2;
	for (; p && *p && *p != '\n'; p++)
		n += *p == ' ';
	return n;
}

static void self_stat(void)
{
	char buf[1024], want[64];
	check("stat_read", slurp("/proc/self/stat", buf, sizeof(buf)) > 0, 1, 0);
	check("stat_52_fields", count_fields(buf), 52, 0);
	check("stat_pid", strtol(buf, NULL, 10), getpid(), 0);
	snprintf(want, sizeof(want), "%d (procfs) R ", getpid());
	check("stat_comm_state", strncmp(buf, want, strlen(want)), 0, 0);
	check("stat_ppid", stat_field(buf, 4), getppid(), 0);
	check("stat_pgrp", stat_field(buf, 5), getpgrp(), 0);
	check("stat_session", stat_field(buf, 6), getsid(0), 0);
	check("stat_threads", stat_field(buf, 20), 1, 0);
	check("stat_rss_within_vsize", stat_field(buf, 23) > 0 &&
	      stat_field(buf, 24) * sysconf(_SC_PAGESIZE) <= stat_field(buf, 23), 1, 0);
	check("stat_exit_signal", stat_field(buf, 38), SIGCHLD, 0);
	char statm[256];
	long size = 0, res = 0;
	slurp("/proc/self/statm", statm, sizeof(statm));
	check("statm_7_fields", sscanf(statm, "%ld %ld %*d %*d %*d %*d %*d", &size, &res), 2, 0);
	check("statm_rss_in_size", res > 0 && res <= size, 1, 0);
}

/* utime (stat's field 14, times()'s tms_utime) moves after a busy second of CPU. */
static void cpu_time(void)
{
	char buf[1024];
	struct timespec a, b;
	struct tms t0, t1;
	struct rusage r0, r1;
	slurp("/proc/self/stat", buf, sizeof(buf));
	long long before = stat_field(buf, 14);
	times(&t0);
	getrusage(RUSAGE_SELF, &r0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	volatile unsigned long spin = 0;
	do {
		for (int i = 0; i < 100000; i++)
			spin++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 500);
	slurp("/proc/self/stat", buf, sizeof(buf));
	times(&t1);
	getrusage(RUSAGE_SELF, &r1);
	long long after = stat_field(buf, 14);
	check("utime_moves", after > before, 1, 0);
	check("times_utime_moves", t1.tms_utime > t0.tms_utime, 1, 0);
	struct rusage rc;
	check("rusage_bad_who", syscall(SYS_getrusage, 7, &rc), -1, EINVAL);
	check("rusage_children_high_bits", syscall(SYS_getrusage, (1UL << 40) | 0xffffffffUL, &rc), 0, 0);
	check("rusage_utime_moves", (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1000000 +
	      r1.ru_utime.tv_usec - r0.ru_utime.tv_usec > 0, 1, 0);
	long long start = stat_field(buf, 22);
	char up[128];
	slurp("/proc/uptime", up, sizeof(up));
	check("starttime_before_now", start >= 0 && start <= (long long)(atof(up) * 100) + 1, 1, 0);
}

static void self_status(void)
{
	char buf[4096];
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGUSR2, SIG_IGN);
	slurp("/proc/self/status", buf, sizeof(buf));
	static const char *const keys[] = {
		"Name", "Umask", "State", "Tgid", "Ngid", "Pid", "PPid", "TracerPid", "Uid", "Gid",
		"FDSize", "Groups", "VmPeak", "VmSize", "VmRSS", "VmData", "VmStk", "Threads", "SigQ",
		"SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt", "CapInh", "CapPrm", "CapEff",
	};
	int missing = 0;
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!field(buf, keys[i])) {
			printf("  no %s\n", keys[i]);
			missing++;
		}
	check("status_fields", missing, 0, 0);
	const char *v = field(buf, "Name");
	check("status_name", v && !strncmp(v, "procfs\n", 7), 1, 0);
	check("status_pid", v ? atoi(field(buf, "Pid")) : -1, getpid(), 0);
	check("status_tgid", v ? atoi(field(buf, "Tgid")) : -1, getpid(), 0);
	check("status_ppid", v ? atoi(field(buf, "PPid")) : -1, getppid(), 0);
	check("status_threads", v ? atoi(field(buf, "Threads")) : -1, 1, 0);
	check("status_umask", v ? strtol(field(buf, "Umask"), NULL, 8) : -1, 022, 0);
	v = field(buf, "SigBlk");
	check("status_sigblk", v && (strtoull(v, NULL, 16) & (1ULL << (SIGUSR1 - 1))) != 0, 1, 0);
	v = field(buf, "SigIgn");
	check("status_sigign", v && (strtoull(v, NULL, 16) & (1ULL << (SIGUSR2 - 1))) != 0, 1, 0);
	v = field(buf, "VmRSS");
	check("status_vmrss_kb", v && atol(v) > 0 && strstr(v, " kB\n") != NULL, 1, 0);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	signal(SIGUSR2, SIG_DFL);
}

static void self_names(char **argv)
{
	char buf[4096], want[4200], cwd[PATH_MAX];
	long n = slurp("/proc/self/cmdline", buf, sizeof(buf));
	check("cmdline_argv0", n > 0 && !strcmp(buf, argv[0]), 1, 0);
	check("cmdline_len", n, (long)strlen(argv[0]) + 1, 0);
	slurp("/proc/self/comm", buf, sizeof(buf));
	check("comm", strcmp(buf, "procfs\n"), 0, 0);
	n = readlink("/proc/self", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%d", getpid());
	check("self_link", n == (long)strlen(want) && !strncmp(buf, want, (size_t)n), 1, 0);
	n = readlink("/proc/thread-self", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%d/task/%ld", getpid(), (long)syscall(SYS_gettid));
	check("thread_self_link", n == (long)strlen(want) && !strncmp(buf, want, (size_t)n), 1, 0);
	n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	check("cwd_link", n > 0 && getcwd(cwd, sizeof(cwd)) && !strcmp(buf, cwd), 1, 0);
	char here[64];
	snprintf(here, sizeof(here), "/proc/%d/task", getpid());
	check("getcwd_in_proc", chdir("/proc/self/task") == 0 && getcwd(buf, sizeof(buf)) &&
	      !strcmp(buf, here), 1, 0);
	chdir(cwd);
	n = readlink("/proc/self/root", buf, sizeof(buf));
	check("root_link", n == 1 && buf[0] == '/', 1, 0);
	n = slurp("/proc/self/environ", buf, sizeof(buf));
	check("environ_first", first_env[0] ? n > 0 && !strcmp(buf, first_env) : n == 0, 1, 0);
	struct stat a, b;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	check("exe_link_is_the_program",
	      n > 0 && !stat(buf, &a) && !stat("/proc/self/exe", &b) && a.st_ino == b.st_ino &&
	      a.st_dev == b.st_dev, 1, 0);
	char maps[65536];
	slurp("/proc/self/maps", maps, sizeof(maps));
	unsigned long lo, hi, off, ino;
	char perms[5];
	check("maps_line_format", sscanf(maps, "%lx-%lx %4s %lx %*x:%*x %lu", &lo, &hi, perms, &off,
					 &ino), 5, 0);
	snprintf(want, sizeof(want), " %s\n", buf);
	check("maps_names_program", strstr(maps, want) != NULL, 1, 0);
	check("maps_stack", strstr(maps, "[stack]\n") != NULL, 1, 0);
	slurp("/proc/self/limits", buf, sizeof(buf));
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	const char *l = strstr(buf, "Max open files");
	check("limits_nofile", l && strtoul(l + 26, NULL, 10) == rl.rlim_cur, 1, 0);
	check("limits_header", strncmp(buf, "Limit                     Soft Limit", 36), 0, 0);
}

/* Descriptors as links: a pipe's, a file's; reopening them; the fd directory. */
static void descriptors(void)
{
	int p[2];
	char path[64], buf[PATH_MAX], want[PATH_MAX + 32], cwd[PATH_MAX];
	struct stat st;
	pipe(p);
	fstat(p[0], &st);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	long n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)st.st_ino);
	check("fd_link_pipe", strcmp(buf, want), 0, 0);
	/* bash's <(...): the reader opens /dev/fd/N of a pipe's write end */
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);
	int w = open(path, O_WRONLY);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	int r = open(path, O_RDONLY);
	check("reopen_pipe_write_end", w >= 0, 1, 0);
	check("reopen_pipe_as_reader", r >= 0, 1, 0);
	check("reopened_same_pipe", write(w, "xy", 2) == 2 && read(r, buf, 2) == 2 &&
	      !memcmp(buf, "xy", 2), 1, 0);
	int fd = open("procfs.tmp", O_CREAT | O_RDWR | O_TRUNC, 0600);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	getcwd(cwd, sizeof(cwd));
	snprintf(want, sizeof(want), "%s/procfs.tmp", strcmp(cwd, "/") ? cwd : "");
	check("fd_link_file", strcmp(buf, want), 0, 0);
	ftruncate(fd, 4096);
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	static char maps[65536];
	slurp("/proc/self/maps", maps, sizeof(maps));
	static char line[PATH_MAX + 40];
	snprintf(line, sizeof(line), " %s\n", want);
	check("maps_names_mapped_file", m != MAP_FAILED && strstr(maps, line) != NULL, 1, 0);
	munmap(m, 4096);
	ftruncate(fd, 0);
	int again = open(path, O_RDONLY);
	check("reopen_file_own_offset", write(fd, "abc", 3) == 3 && read(again, buf, 3) == 3 &&
	      !memcmp(buf, "abc", 3), 1, 0);
	unlink("procfs.tmp");
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	strcat(want, " (deleted)");
	check("fd_link_deleted", strcmp(buf, want), 0, 0);
	n = readlink("/dev/stdin", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	check("dev_stdin_link", strcmp(buf, "/proc/self/fd/0"), 0, 0);
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	fstat(sv[0], &st);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[0]);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)st.st_ino);
	check("fd_link_socket", strcmp(buf, want), 0, 0);
	check("reopen_socket_enxio", open(path, O_RDWR), -1, ENXIO);
	close(sv[0]), close(sv[1]);
	int gone = fcntl(fd, F_DUPFD, 100);     /* above what opendir takes */
	close(gone);
	DIR *d = opendir("/proc/self/fd");
	int seen = 0, extra = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		int v = atoi(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		seen += v == p[0] || v == p[1] || v == fd || v == again || v == r || v == w;
		extra += v == gone;
	}
	if (d)
		closedir(d);
	check("fd_dir_lists_open", seen, 6, 0);
	check("fd_dir_not_closed", extra, 0, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", gone);
	check("fd_closed_enoent", readlink(path, buf, sizeof(buf)), -1, ENOENT);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	slurp(path, buf, sizeof(buf));
	check("fdinfo_pos", strncmp(buf, "pos:\t3\nflags:\t", 13), 0, 0);
	close(p[0]), close(p[1]), close(w), close(r), close(fd), close(again);
}

static int listed(int pid)
{
	DIR *d = opendir("/proc");
	int found = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		found |= atoi(e->d_name) == pid && e->d_type == DT_DIR;
	if (d)
		closedir(d);
	return found;
}

/* A child's directory: listed while it lives, Z once it exits, gone once reaped. */
static void lifetime(void)
{
	int p[2];
	char path[64], buf[1024];
	pipe(p);
	pid_t c = fork();
	if (c == 0) {
		close(p[1]);
		read(p[0], buf, 1);             /* exits when the parent writes */
		_exit(3);
	}
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/stat", c);
	check("child_listed", listed(c), 1, 0);
	int fd = open(path, O_RDONLY);
	check("child_stat_open", fd >= 0, 1, 0);
	write(p[1], "x", 1);
	close(p[1]);
	siginfo_t si;
	waitid(P_PID, c, &si, WEXITED | WNOWAIT);
	slurp(path, buf, sizeof(buf));
	check("zombie_state", strstr(buf, ") Z ") != NULL, 1, 0);
	waitpid(c, NULL, 0);
	check("reaped_not_listed", listed(c), 0, 0);
	check("reaped_stat_enoent", open(path, O_RDONLY), -1, ENOENT);
	check("reaped_read_esrch", read(fd, buf, sizeof(buf)), -1, ESRCH);
	close(fd);
	check("no_such_pid", open("/proc/99999/status", O_RDONLY), -1, ENOENT);
	check("not_a_pid", open("/proc/12x/stat", O_RDONLY), -1, ENOENT);
}

static void *sleeper(void *arg)
{
	int *p = arg;
	char c;
	read(p[0], &c, 1);
	return NULL;
}

static void tasks(void)
{
	int p[2];
	pthread_t th;
	pipe(p);
	pthread_create(&th, NULL, sleeper, p);
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	check("task_lists_threads", n, 2, 0);
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", getpid());
	slurp(path, buf, sizeof(buf));
	check("task_stat_tid", strtol(buf, NULL, 10), getpid(), 0);
	slurp("/proc/self/status", buf, sizeof(buf));
	check("status_two_threads", atoi(field(buf, "Threads")), 2, 0);
	write(p[1], "x", 1);
	pthread_join(th, NULL);
	close(p[0]), close(p[1]);
}

/* A process's files refuse writes with EINVAL, the system's with EIO, read-only sysctls EACCES. */
static void writes(void)
{
	int fd = open("/proc/self/stat", O_WRONLY);
	check("write_pid_file_einval", fd >= 0 ? write(fd, "1", 1) : -2, -1, EINVAL);
	close(fd);
	fd = open("/proc/uptime", O_WRONLY);
	check("write_uptime_eio", fd >= 0 ? write(fd, "1", 1) : -2, -1, EIO);
	close(fd);
	check("open_ro_sysctl_eacces", open("/proc/sys/kernel/ostype", O_WRONLY), -1, EACCES);
	check("open_sysctl_dir_eisdir", open("/proc/sys/kernel", O_WRONLY), -1, EISDIR);
	/* comm is writable, as prctl(PR_SET_NAME) */
	char name[32] = "";
	fd = open("/proc/self/comm", O_WRONLY);
	check("write_comm", fd >= 0 ? write(fd, "renamed", 7) : -2, 7, 0);
	close(fd);
	prctl(PR_GET_NAME, name);
	check("comm_written", strcmp(name, "renamed"), 0, 0);
	prctl(PR_SET_NAME, "procfs");
}

static void system_files(void)
{
	char buf[16384];
	unsigned long total = 0, free_kb = 0;
	slurp("/proc/meminfo", buf, sizeof(buf));
	check("meminfo_total_free", sscanf(buf, "MemTotal: %lu kB\nMemFree: %lu kB", &total, &free_kb),
	      2, 0);
	check("meminfo_free_le_total", free_kb > 0 && free_kb <= total, 1, 0);
	check("meminfo_available", field(buf, "MemAvailable") && field(buf, "SwapTotal") &&
	      field(buf, "Cached") && field(buf, "Buffers"), 1, 0);
	double up, idle;
	slurp("/proc/uptime", buf, sizeof(buf));
	check("uptime_two_figures", sscanf(buf, "%lf %lf", &up, &idle), 2, 0);
	float l1, l5, l15;
	int run, all, last;
	slurp("/proc/loadavg", buf, sizeof(buf));
	check("loadavg_format", sscanf(buf, "%f %f %f %d/%d %d", &l1, &l5, &l15, &run, &all, &last), 6, 0);
	check("loadavg_counts", run >= 1 && run <= all, 1, 0);
	slurp("/proc/stat", buf, sizeof(buf));
	unsigned long long u, ni, sy, id;
	check("stat_cpu_line", sscanf(buf, "cpu %llu %llu %llu %llu", &u, &ni, &sy, &id), 4, 0);
	check("stat_btime", strstr(buf, "\nbtime ") != NULL, 1, 0);
	slurp("/proc/mounts", buf, sizeof(buf));
	check("mounts_proc", strstr(buf, " /proc proc ") != NULL, 1, 0);
	slurp("/proc/self/mounts", buf, sizeof(buf));
	check("self_mounts_proc", strstr(buf, " /proc proc ") != NULL, 1, 0);
	slurp("/proc/filesystems", buf, sizeof(buf));
	check("filesystems_proc", strstr(buf, "nodev\tproc\n") != NULL, 1, 0);
	slurp("/proc/version", buf, sizeof(buf));
	check("version", strncmp(buf, "Linux version ", 14), 0, 0);
	slurp("/proc/sys/kernel/ostype", buf, sizeof(buf));
	check("ostype", strcmp(buf, "Linux\n"), 0, 0);
	struct utsname uts;
	char want[256];
	uname(&uts);
	snprintf(want, sizeof(want), "%s\n", uts.release);
	slurp("/proc/sys/kernel/osrelease", buf, sizeof(buf));
	check("osrelease_is_uname", strcmp(buf, want), 0, 0);
	snprintf(want, sizeof(want), "%s\n", uts.nodename);
	slurp("/proc/sys/kernel/hostname", buf, sizeof(buf));
	check("hostname_is_uname", strcmp(buf, want), 0, 0);
	slurp("/proc/version", buf, sizeof(buf));
	check("version_names_release", strstr(buf, uts.release) != NULL, 1, 0);
	slurp("/proc/sys/kernel/pid_max", buf, sizeof(buf));
	check("pid_max_above_pid", atol(buf) > getpid(), 1, 0);
	slurp("/proc/sys/kernel/shmmax", buf, sizeof(buf));
	check("shmmax", strtoull(buf, NULL, 10) > 0, 1, 0);
	char u1[64], u2[64];
	slurp("/proc/sys/kernel/random/uuid", u1, sizeof(u1));
	slurp("/proc/sys/kernel/random/uuid", u2, sizeof(u2));
	check("uuid_v4_format", strlen(u1) == 37 && u1[8] == '-' && u1[14] == '4' && u1[36] == '\n', 1, 0);
	check("uuid_new_each_read", strcmp(u1, u2) != 0, 1, 0);
	slurp("/proc/sys/kernel/random/boot_id", u1, sizeof(u1));
	slurp("/proc/sys/kernel/random/boot_id", u2, sizeof(u2));
	check("boot_id_fixed", strlen(u1) == 37 && !strcmp(u1, u2), 1, 0);
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	slurp("/proc/sys/fs/nr_open", buf, sizeof(buf));
	check("nr_open_covers_nofile", strtoull(buf, NULL, 10) >= rl.rlim_max, 1, 0);
	slurp("/proc/sys/kernel/cap_last_cap", buf, sizeof(buf));
	check("cap_last_cap", atoi(buf) >= 36, 1, 0);
	slurp("/proc/sysvipc/shm", buf, sizeof(buf));
	check("sysvipc_shm_header", strncmp(buf, "       key      shmid perms", 27), 0, 0);
	struct statfs sf;
	check("statfs_proc_type", statfs("/proc", &sf) == 0 ? (long)sf.f_type : -1, 0x9fa0, 0);
	check("statfs_proc_no_blocks", (long)sf.f_blocks, 0, 0);
	check("statfs_sys_type", statfs("/sys", &sf) == 0 ? (long)sf.f_type : -1, 0x62656572, 0);
	/* the online list names as many processors as sysconf counts */
	slurp("/sys/devices/system/cpu/online", buf, sizeof(buf));
	int lo = 0, hi = -1;
	if (sscanf(buf, "%d-%d", &lo, &hi) == 1)
		hi = lo;
	check("sys_cpu_online", hi - lo + 1, sysconf(_SC_NPROCESSORS_ONLN), 0);
}

/* Every name a directory lists can be looked up (pids in /proc may go meanwhile: skipped). */
static int unreachable(const char *dir)
{
	DIR *d = opendir(dir);
	char path[512];
	struct stat st;
	int bad = d ? 0 : 1;
	for (struct dirent *e; d && (e = readdir(d));) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && !strcmp(dir, "/proc"))
			continue;
		if (lstat(path, &st)) {
			printf("  cannot lstat %s\n", path);
			bad++;
		}
	}
	if (d)
		closedir(d);
	return bad;
}

/* Open files record the name they were opened by: a name too long is refused before that. */
static void long_names(void)
{
	static char path[4000];
	memset(path, 'n', sizeof(path) - 1);
	check("open_long_component", open(path, O_RDONLY), -1, ENAMETOOLONG);
	check("creat_long_component", open(path, O_CREAT | O_WRONLY, 0600), -1, ENAMETOOLONG);
	path[300] = 0;
	check("open_300_byte_name", open(path, O_CREAT | O_WRONLY, 0600), -1, ENAMETOOLONG);
}

static void listings(void)
{
	check("proc_names_resolve", unreachable("/proc"), 0, 0);
	check("self_names_resolve", unreachable("/proc/self"), 0, 0);
	check("sys_kernel_names_resolve", unreachable("/proc/sys/kernel"), 0, 0);
	struct stat st;
	check("overcommit_memory_listed", unreachable("/proc/sys/vm") == 0 &&
	      lstat("/proc/sys/vm/overcommit_memory", &st) == 0, 1, 0);
}

/* execve of /proc/self/exe runs this program again; a script's process is named by the script. */
static void exec_self(void)
{
	pid_t c = fork();
	if (c == 0) {
		execl("/proc/self/exe", "procfs", "child", (char *)NULL);
		_exit(99);
	}
	int st = 0;
	waitpid(c, &st, 0);
	check("exec_proc_self_exe", WIFEXITED(st) ? WEXITSTATUS(st) : -1, 42, 0);
	char exe[PATH_MAX], script[PATH_MAX + 8];
	long n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	int fd = open("procfs-script", O_CREAT | O_WRONLY | O_TRUNC, 0755);
	int len = snprintf(script, sizeof(script), "#!%s\n", exe);
	write(fd, script, (size_t)len);
	close(fd);
	if ((c = fork()) == 0) {
		execl("./procfs-script", "procfs-script", (char *)NULL);
		_exit(99);
	}
	waitpid(c, &st, 0);
	check("script_comm_is_script", WIFEXITED(st) ? WEXITSTATUS(st) : -1, 43, 0);
	unlink("procfs-script");
}

/* The script's process: comm and stat name the script, exe the interpreter. */
static int as_script(void)
{
	char buf[1024];
	slurp("/proc/self/comm", buf, sizeof(buf));
	int ok = !strcmp(buf, "procfs-script\n");
	slurp("/proc/self/stat", buf, sizeof(buf));
	ok &= strstr(buf, " (procfs-script) ") != NULL;
	return ok ? 43 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return 42;
	if (argc > 1 && strstr(argv[1], "procfs-script"))
		return as_script();
	if (environ[0])
		snprintf(first_env, sizeof(first_env), "%s", environ[0]);
	self_stat();
	cpu_time();
	self_status();
	self_names(argv);
	descriptors();
	lifetime();
	tasks();
	writes();
	system_files();
	listings();
	long_names();
	exec_self();
	return checks_done("procfs");
}
