// SPDX-License-Identifier: MIT
// The vDSO as Linux's x86-64 gives it: AT_SYSINFO_EHDR names an ELF with
// __vdso_clock_gettime, __vdso_gettimeofday, __vdso_time, __vdso_clock_getres
// and __vdso_getcpu in version LINUX_2.6; /proc/self/maps names [vdso] and
// [vvar]; its clocks agree with the system calls' (a vDSO read lies between
// the system-call reads around it); clock_settime moves its CLOCK_REALTIME;
// clocks it does not serve fall back to the system call (EINVAL for a bad
// id); fork keeps it, execve gives the new image one, and a process that
// unmaps it still has the system calls while the C library's clock_gettime,
// which calls the vDSO, faults.  tests/system/test_debian.py builds it with
// glibc too.
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

typedef int (*gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

static struct {
	gettime_fn gettime, getres;
	gettimeofday_fn gettimeofday;
	time_fn time;
	getcpu_fn getcpu;
} vd;

/* --- the image: its dynamic symbols and their version, read from memory --- */

struct image {
	uintptr_t base, bias;
	const Elf64_Sym *sym;
	const char *str;
	const Elf64_Half *versym;
	const Elf64_Verdef *verdef;
	unsigned nsym;
};

static int load_image(struct image *im, uintptr_t base)
{
	const Elf64_Ehdr *eh = (const void *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_type != ET_DYN)
		return -1;
	const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	im->base = base;
	im->bias = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !im->bias)
			im->bias = base + ph[i].p_offset - ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(base + ph[i].p_offset);
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		const void *p = (const void *)(im->bias + dyn->d_un.d_ptr);
		if (dyn->d_tag == DT_SYMTAB)
			im->sym = p;
		else if (dyn->d_tag == DT_STRTAB)
			im->str = p;
		else if (dyn->d_tag == DT_HASH)
			im->nsym = ((const Elf32_Word *)p)[1];
		else if (dyn->d_tag == DT_VERSYM)
			im->versym = p;
		else if (dyn->d_tag == DT_VERDEF)
			im->verdef = p;
	}
	return im->sym && im->str && im->nsym && im->versym && im->verdef ? 0 : -1;
}

/* The name of version index ndx in the image's definitions. */
static const char *version_name(const struct image *im, unsigned ndx)
{
	const Elf64_Verdef *d = im->verdef;
	for (;;) {
		if ((d->vd_ndx & 0x7fff) == (ndx & 0x7fff)) {
			const Elf64_Verdaux *a = (const void *)((const char *)d + d->vd_aux);
			return im->str + a->vda_name;
		}
		if (!d->vd_next)
			return "";
		d = (const void *)((const char *)d + d->vd_next);
	}
}

/* A defined function of the image in version LINUX_2.6, or NULL. */
static void *lookup(const struct image *im, const char *name)
{
	for (unsigned i = 1; i < im->nsym; i++) {
		const Elf64_Sym *s = &im->sym[i];
		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    strcmp(im->str + s->st_name, name))
			continue;
		if (!strcmp(version_name(im, im->versym[i]), "LINUX_2.6"))
			return (void *)(im->bias + s->st_value);
	}
	return NULL;
}

static int find_vdso(struct image *im)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);
	if (!base || load_image(im, base))
		return -1;
	vd.gettime = (gettime_fn)lookup(im, "__vdso_clock_gettime");
	vd.getres = (gettime_fn)lookup(im, "__vdso_clock_getres");
	vd.gettimeofday = (gettimeofday_fn)lookup(im, "__vdso_gettimeofday");
	vd.time = (time_fn)lookup(im, "__vdso_time");
	vd.getcpu = (getcpu_fn)lookup(im, "__vdso_getcpu");
	return vd.gettime && vd.getres && vd.gettimeofday && vd.time && vd.getcpu ? 0 : -1;
}

/* --- /proc/self/maps --- */

/* The line naming `name` ("[vdso]"): its start, end and permissions; 0 if none. */
static int maps_line(const char *name, unsigned long *start, unsigned long *end, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f)) {
		char *n = strrchr(line, ' ');
		if (n && !strncmp(n + 1, name, strlen(name)) && n[1 + strlen(name)] == '\n')
			found = sscanf(line, "%lx-%lx %4s", start, end, perms) == 3;
	}
	if (f)
		fclose(f);
	return found;
}

static void maps_checks(uintptr_t base)
{
	unsigned long s = 0, e = 0, vs = 0, ve = 0;
	char perms[5] = "", vperms[5] = "";
	check("maps: [vdso] line", maps_line("[vdso]", &s, &e, perms), 1, 0);
	check("maps: [vdso] starts at AT_SYSINFO_EHDR, r-xp", s == base && !strcmp(perms, "r-xp"), 1,
	      0);
	check("maps: [vvar] line, read-only", maps_line("[vvar]", &vs, &ve, vperms) &&
	      vperms[0] == 'r' && vperms[1] == '-' && vperms[2] == '-', 1, 0);
	check("maps: [vvar] below [vdso]", ve <= s && vs < ve, 1, 0);
}

/* --- clocks --- */

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static long sys_gettime(clockid_t c, struct timespec *t)
{
	return syscall(SYS_clock_gettime, c, t);
}

/* For clock c: a vDSO read lies between the system-call reads before and after it. */
static void bracket_check(clockid_t c)
{
	struct timespec a, v, b;
	char name[64];
	int ok = 1;
	for (int i = 0; i < 200 && ok; i++) {
		ok = !sys_gettime(c, &a) && !vd.gettime(c, &v) && !sys_gettime(c, &b) &&
		     ns_of(&a) <= ns_of(&v) && ns_of(&v) <= ns_of(&b) && v.tv_nsec >= 0 &&
		     v.tv_nsec < 1000000000;
	}
	snprintf(name, sizeof name, "clock %d: vDSO read between system-call reads", (int)c);
	check(name, ok, 1, 0);
}

/* CLOCK_MONOTONIC never goes back across interleaved vDSO and system-call reads. */
static void monotonic_check(void)
{
	struct timespec t;
	long long last = 0;
	int ok = 1;
	for (int i = 0; i < 4000 && ok; i++) {
		int r = i & 1 ? vd.gettime(CLOCK_MONOTONIC, &t) : sys_gettime(CLOCK_MONOTONIC, &t);
		ok = !r && ns_of(&t) >= last;
		last = ns_of(&t);
	}
	check("monotonic: non-decreasing over 4,000 interleaved reads", ok, 1, 0);
	ok = 1;
	for (int i = 0; i < 1000 && ok; i++) {
		int r = i & 1 ? clock_gettime(CLOCK_MONOTONIC, &t) : vd.gettime(CLOCK_MONOTONIC, &t);
		ok = !r && ns_of(&t) >= last;
		last = ns_of(&t);
	}
	check("monotonic: libc and vDSO reads non-decreasing", ok, 1, 0);
}

static void wall_checks(void)
{
	struct timeval a, v, b;
	check("vDSO gettimeofday", vd.gettimeofday(&v, NULL), 0, 0);
	syscall(SYS_gettimeofday, &a, NULL);
	vd.gettimeofday(&v, NULL);
	syscall(SYS_gettimeofday, &b, NULL);
	long long ua = a.tv_sec * 1000000LL + a.tv_usec, uv = v.tv_sec * 1000000LL + v.tv_usec,
		  ub = b.tv_sec * 1000000LL + b.tv_usec;
	check("gettimeofday: vDSO read between system-call reads", ua <= uv && uv <= ub &&
	      v.tv_usec >= 0 && v.tv_usec < 1000000, 1, 0);
	struct timezone tz = { -1, -1 };
	check("vDSO gettimeofday NULL tv, a zone", vd.gettimeofday(NULL, &tz), 0, 0);
	time_t ta = syscall(SYS_time, NULL), tv = 0, tb;
	time_t r = vd.time(&tv);
	tb = syscall(SYS_time, NULL);
	check("time: vDSO seconds between system-call seconds, stored too",
	      ta <= r && r <= tb && tv == r, 1, 0);
	check("time: vDSO with NULL", vd.time(NULL) >= ta, 1, 0);
}

/*
 * clock_settime as root moves the vDSO's CLOCK_REALTIME; put back afterwards.
 * Only when asked ("vdso settime", as tests/system/test_lx.py runs it under
 * lx): on a host it would step the clock every other program there reads.
 */
static void settime_check(void)
{
	struct timespec before, set, v, after;
	clock_gettime(CLOCK_REALTIME, &before);
	set = before;
	set.tv_sec += 1000;
	if (clock_settime(CLOCK_REALTIME, &set)) {
		int e = errno;
		if (geteuid() != 0)
			check("clock_settime as a user: EPERM", e == EPERM, 1, 0);
		else
			printf("skip clock_settime: not permitted here (errno %d)\n", e);
		return;
	}
	int got = vd.gettime(CLOCK_REALTIME, &v);
	clock_gettime(CLOCK_REALTIME, &after);
	after.tv_sec -= 1000;
	int restored = clock_settime(CLOCK_REALTIME, &after);
	check("clock_settime moves the vDSO realtime", !got && ns_of(&v) >= ns_of(&set) &&
	      ns_of(&v) < ns_of(&set) + 10000000000LL, 1, 0);
	check("clock_settime back", restored, 0, 0);
}

static void fallback_checks(void)
{
	struct timespec t;
	/* (16 to 23 are Linux 6.17's auxiliary clocks, whose getres its vDSO answers) */
	check("vDSO clock_gettime id 99: -EINVAL", vd.gettime(99, &t), -EINVAL, 0);
	check("vDSO clock_gettime id 10: -EINVAL", vd.gettime(10, &t), -EINVAL, 0);
	check("vDSO clock_getres id 99: -EINVAL", vd.getres(99, &t), -EINVAL, 0);
	check("libc clock_gettime id 99: EINVAL", clock_gettime(99, &t), -1, EINVAL);
	check("libc clock_getres id 99: EINVAL", clock_getres(99, &t), -1, EINVAL);
	check("vDSO clock_gettime CPU time (system call)", vd.gettime(CLOCK_PROCESS_CPUTIME_ID, &t),
	      0, 0);
	struct timespec s = { -1, -1 }, r = { -1, -1 };
	syscall(SYS_clock_getres, CLOCK_MONOTONIC, &s);
	check("vDSO clock_getres MONOTONIC as the system call's",
	      vd.getres(CLOCK_MONOTONIC, &r) == 0 && r.tv_sec == s.tv_sec && r.tv_nsec == s.tv_nsec,
	      1, 0);
	check("vDSO clock_getres NULL", vd.getres(CLOCK_MONOTONIC, NULL), 0, 0);
}

static void getcpu_check(void)
{
	unsigned cpu = ~0u, node = ~0u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	check("vDSO getcpu", vd.getcpu(&cpu, &node, NULL), 0, 0);
	check("vDSO getcpu: 0..nproc-1", (long)cpu < n, 1, 0);
	int c = sched_getcpu();
	check("sched_getcpu: 0..nproc-1", c >= 0 && c < n, 1, 0);
	cpu_set_t old, last;
	CPU_ZERO(&last);
	CPU_SET(n - 1, &last);
	if (sched_getaffinity(0, sizeof(old), &old) || sched_setaffinity(0, sizeof(last), &last))
		return;                 /* a mask that excludes the last processor: nothing to check */
	check("vDSO getcpu after sched_setaffinity", vd.getcpu(&cpu, NULL, NULL) == 0 && cpu == n - 1, 1, 0);
	sched_setaffinity(0, sizeof(old), &old);
}

/* --- processes --- */

static int child_status(pid_t pid)
{
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void fork_check(uintptr_t base)
{
	pid_t pid = fork();
	if (!pid) {
		struct timespec t;
		unsigned long s = 0, e;
		char perms[5];
		_exit(vd.gettime(CLOCK_MONOTONIC, &t) || !maps_line("[vdso]", &s, &e, perms) ||
		      s != base);
	}
	check("fork: the child has the vDSO where the parent had it", child_status(pid), 0, 0);
}

static void exec_check(const char *self)
{
	pid_t pid = fork();
	if (!pid) {
		execl(self, self, "exec-child", (char *)NULL);
		_exit(99);
	}
	check("execve: the new image has a working vDSO", child_status(pid), 0, 0);
}

/* Unmapped, the vDSO is gone from maps and memory; the system calls still answer. */
static void munmap_check(uintptr_t base)
{
	pid_t pid = fork();
	if (!pid) {
		unsigned long s, e, vs, ve;
		char perms[5];
		int fd[2];
		if (!maps_line("[vdso]", &s, &e, perms) || !maps_line("[vvar]", &vs, &ve, perms) ||
		    munmap((void *)s, e - s) || munmap((void *)vs, ve - vs) || pipe(fd))
			_exit(2);
		struct timespec t;
		errno = 0;
		int gone = write(fd[1], (void *)base, 1) == -1 && errno == EFAULT;
		if (!gone || maps_line("[vdso]", &s, &e, perms) || sys_gettime(CLOCK_MONOTONIC, &t))
			_exit(3);
		pid_t g = fork();
		if (!g)
			_exit(clock_gettime(CLOCK_MONOTONIC, &t) == 0 ? 0 : 1);
		_exit(child_status(g) == 128 + SIGSEGV ? 0 : 4);
	}
	int st = child_status(pid);
	check("munmap of the vDSO: gone, system calls still work", st != 2 && st != 3, 1, 0);
	check("libc's clock_gettime calls the vDSO (SIGSEGV once it is unmapped)", st, 0, 0);
	struct timespec t;
	check("the parent's vDSO still answers after the child's munmap",
	      vd.gettime(CLOCK_MONOTONIC, &t), 0, 0);
}

int main(int argc, char **argv)
{
	struct image im = { 0 };
	int found = find_vdso(&im);
	if (argc > 1 && !strcmp(argv[1], "exec-child")) {
		struct timespec t;
		return found || vd.gettime(CLOCK_MONOTONIC, &t) || t.tv_sec < 0;
	}
	check("AT_SYSINFO_EHDR: an ELF with the five LINUX_2.6 functions", found, 0, 0);
	if (found)
		return checks_done("vdso");
	maps_checks(im.base);
	static const clockid_t fine[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
					  CLOCK_BOOTTIME };
	for (unsigned i = 0; i < sizeof fine / sizeof fine[0]; i++)
		bracket_check(fine[i]);
	monotonic_check();
	wall_checks();
	fallback_checks();
	getcpu_check();
	if (argc > 1 && !strcmp(argv[1], "settime"))
		settime_check();
	fork_check(im.base);
	exec_check(argv[0]);
	munmap_check(im.base);
	return checks_done("vdso");
}
