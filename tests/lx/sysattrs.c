/* SPDX-License-Identifier: MIT */
/*
 * Process attributes and machine calls, errno by errno as Linux gives them:
 * personality, capget/capset, sched_*, ioprio, mlock*, mincore, pkey_*,
 * unshare, chroot, kcmp, process_vm_readv/writev, clone3, clocks, prctl
 * flags and the child subreaper, file advice, futimesat.  Runs as root.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

struct cap_header { uint32_t version; int pid; };
struct cap_data { uint32_t effective, permitted, inheritable; };

static int status_of(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_personality(void)
{
	check("personality query", syscall(SYS_personality, 0xffffffffUL), 0, 0);
	check("personality set returns the old one", syscall(SYS_personality, 0x0040000UL), 0, 0);
	check("personality reads back", syscall(SYS_personality, 0xffffffffUL), 0x0040000, 0);
	syscall(SYS_personality, 0UL);
}

static void test_caps(void)
{
	struct cap_header h = { 0, 0 };
	struct cap_data d[2];
	check("capget bad version: EINVAL", syscall(SYS_capget, &h, d), -1, EINVAL);
	check("capget writes the preferred version", h.version, 0x20080522, 0);
	check("capget probe (NULL data)", syscall(SYS_capget, &h, NULL), 0, 0);
	check("capget", syscall(SYS_capget, &h, d), 0, 0);
	check("root's effective set has CAP_SYS_ADMIN", (d[0].effective >> 21) & 1, 1, 0);
	h.pid = -1;
	check("capget pid -1: EINVAL", syscall(SYS_capget, &h, d), -1, EINVAL);
	h.pid = 999999;
	check("capget no such pid: ESRCH", syscall(SYS_capget, &h, d), -1, ESRCH);
	pid_t c = fork();
	if (c == 0) {
		struct cap_header hh = { 0x20080522, 0 };
		struct cap_data dd[2];
		syscall(SYS_capget, &hh, dd);
		dd[0].effective &= ~(1U << 21);
		dd[0].permitted &= ~(1U << 21);
		if (syscall(SYS_capset, &hh, dd))
			_exit(1);
		syscall(SYS_capget, &hh, dd);
		if ((dd[0].permitted >> 21) & 1)
			_exit(2);
		dd[0].permitted |= 1U << 21;
		_exit(syscall(SYS_capset, &hh, dd) == -1 && errno == EPERM ? 0 : 3);
	}
	check("capset drops a capability for good", status_of(c), 0, 0);
}

static void test_sched(void)
{
	struct sched_param sp = { 0 };
	check("sched_getscheduler", syscall(SYS_sched_getscheduler, 0), SCHED_OTHER, 0);
	check("sched_getparam", syscall(SYS_sched_getparam, 0, &sp), 0, 0);
	check("priority 0", sp.sched_priority, 0, 0);
	check("sched_get_priority_max FIFO", sched_get_priority_max(SCHED_FIFO), 99, 0);
	check("sched_get_priority_min RR", sched_get_priority_min(SCHED_RR), 1, 0);
	check("sched_get_priority_max OTHER", sched_get_priority_max(SCHED_OTHER), 0, 0);
	check("sched_get_priority_max bad policy: EINVAL", sched_get_priority_max(42), -1, EINVAL);
	sp.sched_priority = 5;
	check("SCHED_OTHER with priority 5: EINVAL",
	      syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp), -1, EINVAL);
	check("sched_setscheduler bad policy: EINVAL", syscall(SYS_sched_setscheduler, 0, 42, &sp),
	      -1, EINVAL);
	check("sched_getscheduler pid -1: EINVAL", syscall(SYS_sched_getscheduler, -1), -1, EINVAL);
	check("sched_getscheduler no such pid: ESRCH", syscall(SYS_sched_getscheduler, 999999), -1, ESRCH);
	sp.sched_priority = 0;
	check("SCHED_BATCH", syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &sp), 0, 0);
	check("reads back SCHED_BATCH", syscall(SYS_sched_getscheduler, 0), SCHED_BATCH, 0);
	syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp);
	struct timespec ts;
	check("sched_rr_get_interval", sched_rr_get_interval(0, &ts), 0, 0);
	check("sched_getparam NULL: EINVAL", syscall(SYS_sched_getparam, 0, NULL), -1, EINVAL);
}

static void test_sched_attr_mempolicy(void)
{
	uint32_t a[14];                             /* struct sched_attr, 56 bytes */
	memset(a, 0, sizeof(a));
	check("sched_getattr", syscall(SYS_sched_getattr, 0, a, sizeof(a), 0), 0, 0);
	check("sched_getattr's size and policy", a[0] == 56 && a[1] == SCHED_OTHER, 1, 0);
	check("sched_getattr small size: EINVAL", syscall(SYS_sched_getattr, 0, a, 16, 0), -1, EINVAL);
	check("sched_getattr flags: EINVAL", syscall(SYS_sched_getattr, 0, a, sizeof(a), 1), -1,
	      EINVAL);
	memset(a, 0, sizeof(a));
	a[0] = 48;
	a[1] = SCHED_BATCH;
	check("sched_setattr SCHED_BATCH", syscall(SYS_sched_setattr, 0, a, 0), 0, 0);
	check("reads back", syscall(SYS_sched_getscheduler, 0), SCHED_BATCH, 0);
	a[1] = SCHED_OTHER;
	a[5] = 7;                                   /* a priority for SCHED_OTHER */
	check("sched_setattr OTHER with priority: EINVAL", syscall(SYS_sched_setattr, 0, a, 0), -1,
	      EINVAL);
	a[5] = 0;
	syscall(SYS_sched_setattr, 0, a, 0);

	unsigned long node0 = 1, node5 = 1 << 5;
	check("set_mempolicy MPOL_BIND node 0", syscall(SYS_set_mempolicy, 2, &node0, 64), 0, 0);
	int mode = -1;
	check("get_mempolicy", syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0), 0, 0);
	check("reads MPOL_BIND", mode, 2, 0);
	check("a node that is not there: EINVAL", syscall(SYS_set_mempolicy, 2, &node5, 64), -1,
	      EINVAL);
	check("MPOL_BIND with no node: EINVAL", syscall(SYS_set_mempolicy, 2, NULL, 0), -1, EINVAL);
	check("bad mode: EINVAL", syscall(SYS_set_mempolicy, 99, NULL, 0), -1, EINVAL);
	check("back to MPOL_DEFAULT", syscall(SYS_set_mempolicy, 0, NULL, 0), 0, 0);
	unsigned long allowed = 0;
	check("get_mempolicy MPOL_F_MEMS_ALLOWED",
	      syscall(SYS_get_mempolicy, NULL, &allowed, 64, NULL, 4), 0, 0);
	check("node 0 is allowed", allowed & 1, 1, 0);
	check("reboot bad magic: EINVAL", syscall(SYS_reboot, 0x1234, 0, 0, NULL), -1, EINVAL);
}

static void test_ioprio(void)
{
	long prio = syscall(SYS_ioprio_get, 1, 0);
	check("ioprio_get", prio >= 0, 1, 0);
	long be3 = (2L << 13) | 3;                 /* best effort, level 3 */
	check("ioprio_set best effort 3", syscall(SYS_ioprio_set, 1, 0, be3), 0, 0);
	check("ioprio_get reads it", syscall(SYS_ioprio_get, 1, 0), be3, 0);
	check("ioprio_set class 4: EINVAL", syscall(SYS_ioprio_set, 1, 0, 4L << 13), -1, EINVAL);
	check("ioprio_set class none with a level: EINVAL", syscall(SYS_ioprio_set, 1, 0, 3L), -1,
	      EINVAL);
	check("ioprio_get bad which: EINVAL", syscall(SYS_ioprio_get, 9, 0), -1, EINVAL);
	check("ioprio_get no such pid: ESRCH", syscall(SYS_ioprio_get, 1, 999999), -1, ESRCH);
}

static void test_memory(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m[0] = 1;
	check("mlock", mlock(m, 2 * pg), 0, 0);
	check("munlock", munlock(m, 2 * pg), 0, 0);
	check("mlock2 bad flags: EINVAL", syscall(SYS_mlock2, m, pg, 8), -1, EINVAL);
	munmap(m + 2 * pg, pg);
	check("mlock over a hole: ENOMEM", mlock(m, 4 * pg), -1, ENOMEM);
	check("mlockall no flags: EINVAL", mlockall(0), -1, EINVAL);
	check("mlockall MCL_CURRENT", mlockall(MCL_CURRENT), 0, 0);
	check("munlockall", munlockall(), 0, 0);
	unsigned char vec[4];
	check("mincore", mincore(m, 2 * pg, vec), 0, 0);
	check("the touched page is resident", vec[0] & 1, 1, 0);
	char *fresh = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fresh[0] = 1;
	check("mlock populates", mlock(fresh + 2 * pg, pg), 0, 0);
	check("mincore of a fresh area", mincore(fresh, 3 * pg, vec), 0, 0);
	check("touched, untouched, locked: 1 0 1",
	      (vec[0] & 1) == 1 && (vec[1] & 1) == 0 && (vec[2] & 1) == 1, 1, 0);
	void *pages[3] = { fresh, fresh + pg, (void *)8 };
	int status[3] = { 9, 9, 9 }, nodes[3] = { 0, 0, 0 };
	check("move_pages query", syscall(SYS_move_pages, 0, 3, pages, NULL, status, 0), 0, 0);
	check("status: node 0, not present, no mapping",
	      status[0] == 0 && status[1] == -ENOENT && status[2] == -EFAULT, 1, 0);
	check("move_pages to node 0", syscall(SYS_move_pages, 0, 1, pages, nodes, status, 2), 0, 0);
	nodes[0] = 5;
	check("move_pages to a missing node: ENODEV",
	      syscall(SYS_move_pages, 0, 1, pages, nodes, status, 2), -1, ENODEV);
	check("move_pages bad flags: EINVAL", syscall(SYS_move_pages, 0, 1, pages, NULL, status, 1),
	      -1, EINVAL);
	unsigned long n0 = 1;
	check("migrate_pages node 0 to node 0", syscall(SYS_migrate_pages, 0, 64, &n0, &n0), 0, 0);
	munmap(fresh, 3 * pg);
	check("mincore unaligned: EINVAL", mincore(m + 1, pg, vec), -1, EINVAL);
	check("mincore over a hole: ENOMEM", mincore(m, 4 * pg, vec), -1, ENOMEM);
	check("pkey_alloc bad flags: EINVAL", syscall(SYS_pkey_alloc, 1, 0), -1, EINVAL);
	check("pkey_mprotect key -1 is mprotect", syscall(SYS_pkey_mprotect, m, pg, PROT_READ, -1),
	      0, 0);
	check("pkey_mprotect unallocated key: EINVAL",
	      syscall(SYS_pkey_mprotect, m, pg, PROT_READ, 9), -1, EINVAL);
	munmap(m, 4 * pg);
}

struct clone_args_k {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* clone3, the child running fn(arg) on its own stack and then exit(2): as a C library does. */
static long clone3_run(struct clone_args_k *ca, int (*fn)(void *), void *arg)
{
	long ret;
	register long r8 __asm__("r8") = (long)fn;
	register long r9 __asm__("r9") = (long)arg;
	__asm__ __volatile__("syscall\n\t"
			     "test %%rax, %%rax\n\t"
			     "jnz 1f\n\t"
			     "xor %%ebp, %%ebp\n\t"
			     "mov %%r9, %%rdi\n\t"
			     "call *%%r8\n\t"
			     "mov %%eax, %%edi\n\t"
			     "mov $60, %%eax\n\t"
			     "syscall\n\t"
			     "1:"
			     : "=a"(ret)
			     : "a"(435L), "D"(ca), "S"(sizeof(*ca)), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

static volatile int thread_saw;

static int thread_fn(void *arg)
{
	thread_saw = *(int *)arg;                   /* no libc: errno and TLS are the parent's */
	return 0;
}

/* A thread as glibc's pthread_create makes it with clone3. */
static void test_clone3_thread(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	static volatile int32_t ctid = -1, ptid;
	int value = 42;
	struct clone_args_k ca = {
		.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			 CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
		.child_tid = (uintptr_t)&ctid, .parent_tid = (uintptr_t)&ptid,
		.stack = (uintptr_t)stack, .stack_size = sizeof(stack),
	};
	long tid = clone3_run(&ca, thread_fn, &value);
	check("clone3 makes a thread", tid > 0, 1, 0);
	for (int i = 0; i < 100000 && ctid != 0; i++)
		sched_yield();
	check("its tid went to parent_tid", ptid == tid, 1, 0);
	check("it ran on its stack and saw its argument", thread_saw, 42, 0);
	check("its exit cleared child_tid", ctid, 0, 0);
}

static void test_clone3(void)
{
	struct { uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls; } ca;
	memset(&ca, 0, sizeof(ca));
	check("clone3 too small: EINVAL", syscall(SYS_clone3, &ca, 32), -1, EINVAL);
	ca.exit_signal = SIGCHLD;
	char big[128];
	memset(big, 0, sizeof(big));
	memcpy(big, &ca, sizeof(ca));
	big[100] = 1;
	check("clone3 with unknown nonzero bytes: E2BIG", syscall(SYS_clone3, big, sizeof(big)), -1,
	      E2BIG);
	ca.flags = SIGCHLD;                         /* the signal belongs in exit_signal */
	check("clone3 signal in flags: EINVAL", syscall(SYS_clone3, &ca, sizeof(ca)), -1, EINVAL);
	ca.flags = 0;
	ca.stack = 4096;
	check("clone3 stack without size: EINVAL", syscall(SYS_clone3, &ca, sizeof(ca)), -1, EINVAL);
	ca.stack = 0;
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(7);
	check("clone3 as fork", status_of((pid_t)pid), 7, 0);
	test_clone3_thread();
}

static void test_unshare_chroot(void)
{
	check("unshare bad flag: EINVAL", unshare(0x1), -1, EINVAL);
	check("unshare CLONE_FILES", unshare(CLONE_FILES), 0, 0);
	check("setns on a regular descriptor: EINVAL", setns(0, 0) == -1 && errno == EINVAL, 1, 0);
	check("setns bad descriptor: EBADF", setns(-1, 0), -1, EBADF);
	mkdir("jail", 0755);
	mkdir("jail/inner", 0755);
	int fd = open("jail/inner/mark", O_CREAT | O_WRONLY, 0644);
	close(fd);
	check("chroot a file: ENOTDIR", chroot("jail/inner/mark"), -1, ENOTDIR);
	check("chroot nowhere: ENOENT", chroot("jail/none"), -1, ENOENT);
	pid_t c = fork();
	if (c == 0) {
		if (chroot("jail") || chdir("/"))
			_exit(1);
		struct stat st;
		if (stat("/inner/mark", &st))
			_exit(2);
		if (stat("/../../inner/mark", &st))
			_exit(3);                   /* ".." stops at the new root */
		char cwd[64];
		if (chdir("/inner") || !getcwd(cwd, sizeof(cwd)) || strcmp(cwd, "/inner"))
			_exit(4);
		_exit(0);
	}
	check("chroot: '/', '..' and getcwd see the new root", status_of(c), 0, 0);
	unlink("jail/inner/mark");
	rmdir("jail/inner");
	rmdir("jail");
}

static void test_kcmp_vm(void)
{
	pid_t me = getpid();
	int d = dup(1);
	check("kcmp: a dup is the same file", syscall(SYS_kcmp, me, me, 0, 1, d), 0, 0);
	check("kcmp: own VM", syscall(SYS_kcmp, me, me, 1, 0, 0), 0, 0);
	check("kcmp bad type: EINVAL", syscall(SYS_kcmp, me, me, 99, 0, 0), -1, EINVAL);
	check("kcmp bad fd: EBADF", syscall(SYS_kcmp, me, me, 0, 1, 999), -1, EBADF);
	close(d);
	int p[2];
	if (pipe(p))
		return;
	static char secret[32] = "from the child";
	pid_t c = fork();
	if (c == 0) {
		strcpy(secret, "changed in child");
		char b;
		close(p[1]);
		read(p[0], &b, 1);                  /* until the parent is done */
		_exit(strcmp(secret, "written by parent") ? 1 : 0);
	}
	usleep(100000);
	char buf[32] = { 0 };
	struct iovec l = { buf, 17 }, r = { secret, 17 };
	check("process_vm_readv", process_vm_readv(c, &l, 1, &r, 1, 0), 17, 0);
	check("read the child's memory", strcmp(buf, "changed in child"), 0, 0);
	char w[] = "written by parent";
	struct iovec lw = { w, sizeof(w) }, rw = { secret, sizeof(w) };
	check("process_vm_writev", process_vm_writev(c, &lw, 1, &rw, 1, 0), sizeof(w), 0);
	check("process_vm_readv flags: EINVAL", process_vm_readv(c, &l, 1, &r, 1, 1), -1, EINVAL);
	check("process_vm_readv no such pid: ESRCH", process_vm_readv(999999, &l, 1, &r, 1, 0), -1,
	      ESRCH);
	close(p[1]);
	check("the child saw the write", status_of(c), 0, 0);
	close(p[0]);
}

static void test_clocks(void)
{
	struct timespec ts = { 0, 2000000000L };
	check("clock_settime bad nsec: EINVAL", clock_settime(CLOCK_REALTIME, &ts), -1, EINVAL);
	ts.tv_nsec = 0;
	check("clock_settime CLOCK_MONOTONIC: EINVAL", clock_settime(CLOCK_MONOTONIC, &ts), -1, EINVAL);
	struct timezone tz = { 24 * 60, 0 };
	check("settimeofday bad zone: EINVAL", syscall(SYS_settimeofday, NULL, &tz), -1, EINVAL);
	struct timex { int modes; long rest[25]; } tx;
	memset(&tx, 0, sizeof(tx));
	long st = syscall(SYS_adjtimex, &tx);
	check("adjtimex reads", st >= 0 && st <= 5, 1, 0);
	check("clock_adjtime bad clock: EINVAL", syscall(SYS_clock_adjtime, 99, &tx), -1, EINVAL);
}

static void test_prctl(void)
{
	check("PR_GET_DUMPABLE", prctl(PR_GET_DUMPABLE), 1, 0);
	check("PR_SET_DUMPABLE 2: EINVAL", prctl(PR_SET_DUMPABLE, 2), -1, EINVAL);
	check("PR_SET_DUMPABLE 0", prctl(PR_SET_DUMPABLE, 0), 0, 0);
	check("PR_GET_DUMPABLE reads 0", prctl(PR_GET_DUMPABLE), 0, 0);
	prctl(PR_SET_DUMPABLE, 1);
	check("PR_GET_NO_NEW_PRIVS", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0, 0);
	check("PR_SET_NO_NEW_PRIVS 2: EINVAL", prctl(PR_SET_NO_NEW_PRIVS, 2, 0, 0, 0), -1, EINVAL);
	pid_t c = fork();
	if (c == 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		pid_t g = fork();
		if (g == 0)
			_exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 1);
		_exit(status_of(g));
	}
	check("no_new_privs is inherited", status_of(c), 0, 0);

	check("PR_SET_CHILD_SUBREAPER", prctl(PR_SET_CHILD_SUBREAPER, 1), 0, 0);
	int v = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &v);
	check("PR_GET_CHILD_SUBREAPER", v, 1, 0);
	int p[2];
	if (pipe(p))
		return;
	c = fork();
	if (c == 0) {
		pid_t g = fork();
		if (g == 0) {
			char b;
			close(p[1]);
			read(p[0], &b, 1);
			_exit(getppid() == getppid() ? 9 : 8);
		}
		_exit(0);                           /* orphans g */
	}
	status_of(c);
	close(p[0]);
	close(p[1]);                                /* g goes on and exits 9 */
	int st;
	pid_t g = wait(&st);
	check("an orphaned grandchild is the subreaper's to reap",
	      g > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 9, 1, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

static void test_file_advice(void)
{
	int fd = open("adv.tmp", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "data", 4);
	int p[2];
	if (pipe(p))
		return;
	check("posix_fadvise", posix_fadvise(fd, 0, 4, POSIX_FADV_SEQUENTIAL), 0, 0);
	check("fadvise bad advice: EINVAL", syscall(SYS_fadvise64, fd, 0, 4, 42), -1, EINVAL);
	check("fadvise on a pipe: ESPIPE", syscall(SYS_fadvise64, p[0], 0, 4, 0), -1, ESPIPE);
	check("readahead", readahead(fd, 0, 4), 0, 0);
	check("readahead on a pipe: EINVAL", readahead(p[0], 0, 4), -1, EINVAL);
	check("sync_file_range", sync_file_range(fd, 0, 4, SYNC_FILE_RANGE_WRITE), 0, 0);
	check("sync_file_range bad flags: EINVAL", sync_file_range(fd, 0, 4, 8), -1, EINVAL);
	check("sync_file_range on a pipe: ESPIPE", sync_file_range(p[0], 0, 4, 0), -1, ESPIPE);
	check("syncfs", syncfs(fd), 0, 0);
	check("syncfs bad fd: EBADF", syncfs(-1), -1, EBADF);
	struct timeval tv[2] = { { 1000, 0 }, { 2000, 0 } };
	check("futimesat", syscall(SYS_futimesat, AT_FDCWD, "adv.tmp", tv), 0, 0);
	struct stat st;
	stat("adv.tmp", &st);
	check("futimesat set the times", st.st_atime == 1000 && st.st_mtime == 2000, 1, 0);
	check("fchmodat2", syscall(452, AT_FDCWD, "adv.tmp", 0600, 0), 0, 0);
	stat("adv.tmp", &st);
	check("fchmodat2 set the mode", st.st_mode & 0777, 0600, 0);
	symlink("adv.tmp", "adv.lnk");
	check("fchmodat2 of a link itself: EOPNOTSUPP",
	      syscall(452, AT_FDCWD, "adv.lnk", 0644, AT_SYMLINK_NOFOLLOW), -1, EOPNOTSUPP);
	check("fchmodat2 bad flags: EINVAL", syscall(452, AT_FDCWD, "adv.tmp", 0644, 1), -1, EINVAL);
	unlink("adv.lnk");
	check("close_range CLOSE_RANGE_UNSHARE", syscall(SYS_close_range, 1000, 1001, 2), 0, 0);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink("adv.tmp");
}

struct io_event_k { uint64_t data, obj; int64_t res, res2; };
struct iocb_k {
	uint64_t data;
	uint32_t key, rw_flags;
	uint16_t opcode;
	int16_t prio;
	uint32_t fd;
	uint64_t buf, nbytes;
	int64_t offset;
	uint64_t reserved2;
	uint32_t flags, resfd;
};

static void test_aio(void)
{
	unsigned long ctx = 0, bad = 1;
	check("io_setup", syscall(SYS_io_setup, 8, &ctx), 0, 0);
	check("io_setup with a context set: EINVAL", syscall(SYS_io_setup, 8, &bad), -1, EINVAL);
	int fd = open("aio.tmp", O_CREAT | O_RDWR | O_TRUNC, 0644);
	char out[] = "asynchronous", in[16] = { 0 };
	struct iocb_k w = { .data = 11, .opcode = 1, .fd = (uint32_t)fd, .buf = (uintptr_t)out,
			    .nbytes = 12, .offset = 4 };
	struct iocb_k r = { .data = 22, .opcode = 0, .fd = (uint32_t)fd, .buf = (uintptr_t)in,
			    .nbytes = 12, .offset = 4 };
	struct iocb_k *list[2] = { &w, &r };
	check("io_submit a write and a read", syscall(SYS_io_submit, ctx, 2, list), 2, 0);
	struct io_event_k ev[4];
	struct timespec zero = { 0, 0 };
	check("io_getevents takes both", syscall(SYS_io_getevents, ctx, 2, 4, ev, &zero), 2, 0);
	check("the write's event", ev[0].data == 11 && ev[0].res == 12 &&
	      ev[0].obj == (uintptr_t)&w, 1, 0);
	check("the read's event", ev[1].data == 22 && ev[1].res == 12, 1, 0);
	check("the read saw the write", strcmp(in, "asynchronous"), 0, 0);
	check("io_getevents with none left, no wait", syscall(SYS_io_getevents, ctx, 0, 4, ev, &zero),
	      0, 0);
	struct timespec tenth = { 0, 100000000 };
	check("io_getevents times out", syscall(SYS_io_getevents, ctx, 1, 4, ev, &tenth), 0, 0);
	check("io_getevents min above nr: EINVAL", syscall(SYS_io_getevents, ctx, 5, 4, ev, NULL), -1,
	      EINVAL);
	struct iocb_k b = { .opcode = 0, .fd = 999, .buf = (uintptr_t)in, .nbytes = 1 };
	struct iocb_k *blist[1] = { &b };
	check("io_submit bad fd: EBADF", syscall(SYS_io_submit, ctx, 1, blist), -1, EBADF);
	b.fd = (uint32_t)fd;
	b.opcode = 99;
	check("io_submit bad opcode: EINVAL", syscall(SYS_io_submit, ctx, 1, blist), -1, EINVAL);
	check("io_submit again", syscall(SYS_io_submit, ctx, 1, list), 1, 0);
	sigset_t none;
	sigemptyset(&none);
	struct { const sigset_t *mask; size_t size; } ss = { &none, 8 };
	check("io_pgetevents under a mask", syscall(SYS_io_pgetevents, ctx, 1, 4, ev, &zero, &ss), 1, 0);
	ss.size = 3;
	check("io_pgetevents bad mask size: EINVAL",
	      syscall(SYS_io_pgetevents, ctx, 0, 4, ev, &zero, &ss), -1, EINVAL);
	check("io_destroy", syscall(SYS_io_destroy, ctx), 0, 0);
	check("io_destroy again: EINVAL", syscall(SYS_io_destroy, ctx), -1, EINVAL);
	close(fd);
	unlink("aio.tmp");
}

static void test_syslog(void)
{
	long size = syscall(SYS_syslog, 10, NULL, 0);
	check("syslog SIZE_BUFFER", size > 0, 1, 0);
	static char buf[1 << 20];
	long n = syscall(SYS_syslog, 3, buf, sizeof(buf) < (size_t)size ? sizeof(buf) : (size_t)size);
	check("syslog READ_ALL", n >= 0, 1, 0);
	check("syslog bad type: EINVAL", syscall(SYS_syslog, 42, buf, 10), -1, EINVAL);
	check("syslog READ_ALL negative length: EINVAL", syscall(SYS_syslog, 3, buf, -1), -1, EINVAL);
	check("restart_syscall with nothing to restart: EINTR", syscall(SYS_restart_syscall), -1,
	      EINTR);
}

static void test_seccomp_strict(void)
{
	check("seccomp bad operation: EINVAL", syscall(SYS_seccomp, 99, 0, NULL), -1, EINVAL);
	check("seccomp strict with flags: EINVAL", syscall(SYS_seccomp, 0, 1, NULL), -1, EINVAL);
	int p[2];
	if (pipe(p))
		return;
	pid_t c = fork();
	if (c == 0) {
		if (syscall(SYS_seccomp, 0, 0, NULL))
			syscall(SYS_exit, 1);
		syscall(SYS_write, p[1], "w", 1);  /* allowed */
		syscall(SYS_getpid);                /* not allowed: SIGKILL */
		syscall(SYS_exit, 2);
	}
	close(p[1]);
	char b = 0;
	check("strict mode allows write", read(p[0], &b, 1) == 1 && b == 'w', 1, 0);
	check("strict mode kills at another call", status_of(c), 128 + SIGKILL, 0);
	close(p[0]);
}

int main(void)
{
	test_personality();
	test_caps();
	test_sched();
	test_ioprio();
	test_sched_attr_mempolicy();
	test_memory();
	test_clone3();
	test_unshare_chroot();
	test_kcmp_vm();
	test_clocks();
	test_prctl();
	test_file_advice();
	test_aio();
	test_syslog();
	test_seccomp_strict();
	return checks_done("sysattrs");
}
