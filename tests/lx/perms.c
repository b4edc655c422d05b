/* SPDX-License-Identifier: MIT */
/*
 * Users, groups and permissions, table by table: as root, make a scratch
 * directory BASE/perms.d full of files and directories of many modes and
 * owners, then run each case in a child that first becomes another user
 * (nobody 65534, users 1000-1002, with or without supplementary groups, or
 * with different real and effective IDs) and prints one line: the case's
 * name and "ok", a value, or the errno's name.  The output has no
 * expectations of its own: tests/system/test_lx_perms.py runs the same
 * binary on the host's Linux (as root) and under lx and compares the lines.
 *
 *   perms BASE                 the cases (BASE must be searchable by everyone)
 *   perms --ids NAME           (run by exec in a case) print NAME and the IDs
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/auxv.h>
#include <unistd.h>

#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif
#ifndef O_NOATIME
#define O_NOATIME 01000000
#endif

struct who {
	const char *name;
	uid_t r, e, s;
	gid_t rg, eg, sg;
	int ngroups;
	gid_t groups[3];
};

static const struct who ROOT = {"root", 0, 0, 0, 0, 0, 0, 0, {0}};
static const struct who NOBODY = {"nobody", 65534, 65534, 65534, 65534, 65534, 65534, 0, {0}};
static const struct who U1000 = {"u1000", 1000, 1000, 1000, 1000, 1000, 1000, 1, {1000}};
static const struct who U1001 = {"u1001", 1001, 1001, 1001, 1001, 1001, 1001, 0, {0}};
static const struct who U1002 = {"u1002+g1001", 1002, 1002, 1002, 1002, 1002, 1002, 1, {1001}};
/* real 1000, effective nobody; and the reverse */
static const struct who R1000 = {"r1000e65534", 1000, 65534, 65534, 1000, 65534, 65534, 0, {0}};
static const struct who RNOBODY = {"r65534e1000", 65534, 1000, 1000, 65534, 1000, 1000, 0, {0}};
static const struct who MIXED = {"u1000/1001/1002", 1000, 1001, 1002, 1000, 1001, 1002, 0, {0}};
static const struct who RROOT = {"r0e1000", 0, 1000, 0, 0, 1000, 0, 0, {0}};

static char self[1 << 20];      /* this program's own binary, copied for the exec cases */
static size_t self_len;
static const char *progname;

static const char *errname(int e)
{
	static const struct { int e; const char *n; } t[] = {
		{EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"}, {EBADF, "EBADF"},
		{EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"}, {EEXIST, "EEXIST"},
		{EXDEV, "EXDEV"}, {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"}, {EINVAL, "EINVAL"},
		{ETXTBSY, "ETXTBSY"}, {ENOEXEC, "ENOEXEC"}, {ENOTEMPTY, "ENOTEMPTY"},
		{ELOOP, "ELOOP"}, {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"},
	};
	static char other[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	snprintf(other, sizeof(other), "errno%d", e);
	return other;
}

static void report(const char *who, const char *name, long r)
{
	if (r == -1)
		printf("%s %s: %s\n", who, name, errname(errno));
	else if (r == 0)
		printf("%s %s: ok\n", who, name);
	else
		printf("%s %s: = %ld\n", who, name, r);
	fflush(stdout);
}

static void become(const struct who *w)
{
	if (setgroups((size_t)w->ngroups, w->groups) || setresgid(w->rg, w->eg, w->sg) ||
	    setresuid(w->r, w->e, w->s)) {
		printf("%s: cannot become this user: %s\n", w->name, strerror(errno));
		fflush(stdout);
		_exit(1);
	}
}

/* Run expr in a child that became w; the child prints the line. */
#define T(w, label, expr)                                                        \
	do {                                                                    \
		fflush(stdout);                                                 \
		pid_t pid_ = fork();                                            \
		if (pid_ == 0) {                                                \
			become(&(w));                                           \
			errno = 0;                                              \
			long r_ = (long)(expr);                                 \
			report((w).name, label, r_);                             \
			_exit(0);                                               \
		}                                                               \
		waitpid(pid_, NULL, 0);                                         \
	} while (0)

/* open and close: 0 or -1 */
static long xopen(const char *path, int flags)
{
	int fd = open(path, flags, 0666);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* "UID GID MODE" of path, as the root parent sees it */
static void show(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		printf("stat %s: %s\n", path, errname(errno));
	else
		printf("stat %s: %u %u %o\n", path, st.st_uid, st.st_gid, st.st_mode);
	fflush(stdout);
}

/* Print the real, effective and saved IDs (the children's set*id cases end with it). */
static long ids(void)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;
	getresuid(&r, &e, &s);
	getresgid(&rg, &eg, &sg);
	printf("    ids %u %u %u / %u %u %u fs %d %d\n", r, e, s, rg, eg, sg, setfsuid(-1),
	       setfsgid(-1));
	return 0;
}

static long groups_line(void)
{
	gid_t g[8];
	int n = getgroups(8, g);
	printf("    groups");
	for (int i = 0; i < n; i++)
		printf(" %u", g[i]);
	printf("\n");
	return n;
}

/* What exec told the new image (the auxiliary vector) and /proc/self/status's Groups: line. */
static void aux_and_status(void)
{
	printf("    aux %lu %lu %lu %lu secure %lu\n", getauxval(AT_UID), getauxval(AT_EUID),
	       getauxval(AT_GID), getauxval(AT_EGID), getauxval(AT_SECURE));
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Groups:", 7))
			printf("    status %s", line);
	if (f)
		fclose(f);
}

/* execve path with "--ids NAME": the new image prints the line (ok and its IDs). */
static long xexec(const char *path, const char *name)
{
	char *argv[] = {(char *)path, "--ids", (char *)name, NULL};
	fflush(stdout);
	execv(path, argv);
	return -1;
}

static void mk(const char *path, mode_t type_mode, uid_t u, gid_t g)
{
	int r;
	if (S_ISDIR(type_mode))
		r = mkdir(path, 0700);
	else
		r = (r = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600)) < 0 ? r : close(r);
	if (r || chown(path, u, g) || chmod(path, type_mode & 07777)) {
		printf("setup %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* An executable copy of this program (mode last: chown clears set-ID bits). */
static void mkexe(const char *path, mode_t mode, uid_t u, gid_t g)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0700);
	if (fd < 0 || write(fd, self, self_len) != (ssize_t)self_len || close(fd) ||
	    chown(path, u, g) || chmod(path, mode)) {
		printf("setup %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void setup(void)
{
	mk("f600", 0100600, 1000, 1000);
	mk("f604", 0100604, 1000, 1000);
	mk("f066", 0100066, 1000, 1000);
	mk("f060", 0100060, 1000, 1001);
	mk("f000", 0100000, 1000, 1000);
	mk("f644", 0100644, 0, 0);
	mk("f666", 0100666, 0, 0);
	mk("fg1001", 0100644, 1000, 1001);
	mk("d700", 040700, 1000, 1000);
	mk("d700/in", 0100666, 0, 0);
	mk("d711", 040711, 1000, 1000);
	mk("d711/in", 0100666, 0, 0);
	mk("d744", 040744, 0, 0);
	mk("d744/in", 0100666, 0, 0);
	mk("d755", 040755, 0, 0);
	mk("d755/in", 0100666, 0, 0);
	mk("d777", 040777, 0, 0);
	mk("d777/a", 0100644, 0, 0);
	mk("d777/sub", 040755, 0, 0);
	mk("d777/rd", 040755, 0, 0);
	mk("d777b", 040777, 0, 0);
	mk("t1777", 041777, 0, 0);
	mk("t1777/own0", 0100666, 0, 0);
	mk("t1777/own1000", 0100666, 1000, 1000);
	mk("t1777/sub0", 040777, 0, 0);
	mk("tu1777", 041777, 1000, 1000);
	mk("tu1777/own0", 0100666, 0, 0);
	mk("dsg", 042777, 0, 1001);
	mkexe("x700", 0700, 1000, 1000);
	mkexe("x001", 0001, 0, 0);
	mkexe("x100", 0100, 0, 0);
	mkexe("x010", 0010, 0, 1001);
	mkexe("x644", 0644, 0, 0);
	mkexe("x000", 0000, 0, 0);
	mkexe("s4755", 04755, 1000, 1000);
	mkexe("s2755", 02755, 0, 1001);
	mkexe("s6755", 06755, 1001, 1001);
	mkexe("chown.s", 06755, 1000, 1000);
	mk("w6777", 0106777, 1000, 1000);
	mk("w2767", 0102767, 1000, 1000);
	mk("w6777r", 0106777, 1000, 1000);
	mk("w2767g", 0102767, 0, 1000);
	mk("t6777", 0106777, 1000, 1000);
}

static void opens(void)
{
	T(NOBODY, "open f600 r", xopen("f600", O_RDONLY));
	T(U1000, "open f600 r", xopen("f600", O_RDONLY));
	T(U1000, "open f600 rw", xopen("f600", O_RDWR));
	T(NOBODY, "open f604 r", xopen("f604", O_RDONLY));
	T(NOBODY, "open f604 w", xopen("f604", O_WRONLY));
	T(U1000, "open f066 r", xopen("f066", O_RDONLY));
	T(NOBODY, "open f066 rw", xopen("f066", O_RDWR));
	T(U1001, "open f060 r", xopen("f060", O_RDONLY));
	T(U1002, "open f060 rw", xopen("f060", O_RDWR));
	T(U1000, "open f060 r", xopen("f060", O_RDONLY));
	T(NOBODY, "open f060 r", xopen("f060", O_RDONLY));
	T(U1000, "open f000 r", xopen("f000", O_RDONLY));
	T(ROOT, "open f000 rw", xopen("f000", O_RDWR));
	T(NOBODY, "open f000 path", xopen("f000", O_PATH));
	T(NOBODY, "open f644 r|trunc", xopen("f644", O_RDONLY | O_TRUNC));
	T(NOBODY, "open f644 r|creat", xopen("f644", O_RDONLY | O_CREAT));
	T(NOBODY, "open f644 w|creat", xopen("f644", O_WRONLY | O_CREAT));
	T(NOBODY, "open f666 noatime", xopen("f666", O_RDONLY | O_NOATIME));
	T(U1000, "open f600 noatime", xopen("f600", O_RDONLY | O_NOATIME));
	T(NOBODY, "creat d777/new", xopen("d777/new", O_RDWR | O_CREAT));
	T(NOBODY, "creat d755/new", xopen("d755/new", O_RDWR | O_CREAT));
	T(NOBODY, "creat excl d755/in", xopen("d755/in", O_RDWR | O_CREAT | O_EXCL));
	T(NOBODY, "creat mode 0 then rw", (long)open("d777/zero", O_RDWR | O_CREAT, 0) < 0 ? -1 : 0);
	T(NOBODY, "open d777/zero r", xopen("d777/zero", O_RDONLY));
	T(NOBODY, "open d700 dir", xopen("d700", O_RDONLY | O_DIRECTORY));
	T(NOBODY, "open d711 dir", xopen("d711", O_RDONLY | O_DIRECTORY));
	T(NOBODY, "open d744 dir", xopen("d744", O_RDONLY | O_DIRECTORY));
	T(NOBODY, "open d755 w", xopen("d755", O_WRONLY));
	T(NOBODY, "open d700/in", xopen("d700/in", O_RDONLY));
	T(NOBODY, "open d711/in", xopen("d711/in", O_RDONLY));
	T(NOBODY, "open d744/in", xopen("d744/in", O_RDONLY));
	T(U1000, "open d700/in", xopen("d700/in", O_RDWR));
	T(ROOT, "open d700/in", xopen("d700/in", O_RDWR));
	T(NOBODY, "creat d700/x", xopen("d700/x", O_RDWR | O_CREAT));
	T(NOBODY, "open d700/../f644", xopen("d700/../f644", O_RDONLY));
	T(NOBODY, "open ./d711/../f644", xopen("./d711/../f644", O_RDONLY));
}

static void walks(void)
{
	struct stat st;
	T(NOBODY, "stat d700/in", stat("d700/in", &st));
	T(NOBODY, "stat d711/in", stat("d711/in", &st));
	T(NOBODY, "stat d744/in", stat("d744/in", &st));
	T(NOBODY, "stat d744", stat("d744", &st));
	T(NOBODY, "chdir d700", chdir("d700"));
	T(NOBODY, "chdir d711", chdir("d711"));
	T(NOBODY, "chdir d744", chdir("d744"));
	T(NOBODY, "truncate f644", truncate("f644", 0));
	T(NOBODY, "truncate f666", truncate("f666", 0));
	T(NOBODY, "truncate d755", truncate("d755", 0));
	T(NOBODY, "readlink d700/in", readlink("d700/in", (char[8]){0}, 8));
}

static void execs(void)
{
	T(U1000, "exec x700", xexec("x700", "u1000 exec x700"));
	T(NOBODY, "exec x700", xexec("x700", "nobody exec x700"));
	T(NOBODY, "exec x001", xexec("x001", "nobody exec x001"));
	T(U1002, "exec x010", xexec("x010", "u1002 exec x010"));
	T(ROOT, "exec x100", xexec("x100", "root exec x100"));
	T(ROOT, "exec x644", xexec("x644", "root exec x644"));
	T(ROOT, "exec x000", xexec("x000", "root exec x000"));
	T(ROOT, "exec d755", xexec("d755", "root exec d755"));
	T(NOBODY, "exec d700/in", xexec("d700/in", "nobody exec d700/in"));
	T(NOBODY, "exec s4755", xexec("s4755", "nobody exec s4755"));
	T(NOBODY, "exec s2755", xexec("s2755", "nobody exec s2755"));
	T(U1000, "exec s6755", xexec("s6755", "u1000 exec s6755"));
	T(ROOT, "exec s4755", xexec("s4755", "root exec s4755"));
}

static void names(void)
{
	T(NOBODY, "unlink d755/in", unlink("d755/in"));
	T(NOBODY, "unlink d777/a", unlink("d777/a"));
	T(NOBODY, "unlink d777/none", unlink("d777/none"));
	T(NOBODY, "unlink t1777/own0", unlink("t1777/own0"));
	T(U1000, "unlink t1777/own1000", unlink("t1777/own1000"));
	T(NOBODY, "rmdir t1777/sub0", rmdir("t1777/sub0"));
	T(U1000, "unlink tu1777/own0", unlink("tu1777/own0"));
	T(NOBODY, "rmdir d777/sub", rmdir("d777/sub"));
	T(NOBODY, "rmdir d755", rmdir("d755"));
	T(NOBODY, "mkdir d755/m", mkdir("d755/m", 0777));
	T(NOBODY, "mkdir d755/in", mkdir("d755/in", 0777));
	T(NOBODY, "mkdir d777/m", mkdir("d777/m", 0777));
	T(NOBODY, "mkdir dsg/m", mkdir("dsg/m", 0777));
	T(NOBODY, "creat dsg/f", xopen("dsg/f", O_RDWR | O_CREAT));
	T(U1000, "mkdir dsg/m/deeper", mkdir("dsg/m/deeper", 0755));
	T(NOBODY, "mknod fifo d777/p", mknod("d777/p", S_IFIFO | 0644, 0));
	T(NOBODY, "mknod chr d777/c", mknod("d777/c", S_IFCHR | 0644, makedev(1, 3)));
	T(NOBODY, "mknod fifo d755/p", mknod("d755/p", S_IFIFO | 0644, 0));
	T(NOBODY, "symlink d755/s", symlink("f644", "d755/s"));
	T(NOBODY, "symlink d777/s", symlink("../f644", "d777/s"));
	T(NOBODY, "link f600 d777/l", link("f600", "d777/l1"));
	T(NOBODY, "link f666 d777/l", link("f666", "d777/l2"));
	T(U1000, "link f600 d777/l", link("f600", "d777/l3"));
	T(NOBODY, "link f666 d755/l", link("f666", "d755/l"));
	T(NOBODY, "link f666 d755/in", link("f666", "d755/in"));
	T(NOBODY, "rename d777/new d777/new2", rename("d777/new", "d777/new2"));
	T(NOBODY, "rename t1777/own0", rename("t1777/own0", "t1777/x"));
	T(NOBODY, "rename d777/new2 d755/x", rename("d777/new2", "d755/x"));
	T(NOBODY, "rename d755/in d777/x", rename("d755/in", "d777/x"));
	T(NOBODY, "rename d777/rd d777b/rd", rename("d777/rd", "d777b/rd"));
	T(NOBODY, "rename d777/rd d777/rd2", rename("d777/rd", "d777/rd2"));
	T(NOBODY, "rename onto t1777/own1000", rename("d777/new2", "t1777/own0"));
	show("d777/new");
	show("d777/new2");
	show("d777/m");
	show("dsg/m");
	show("dsg/f");
	show("dsg/m/deeper");
	show("d777/s");
	show("d777/p");
}

static struct timespec ts_explicit[2] = {{1000, 0}, {2000, 0}};
static struct timespec ts_now_omit[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
static struct timespec ts_omit[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
static struct timespec ts_now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};

static void attrs(void)
{
	T(NOBODY, "chmod f600", chmod("f600", 0644));
	T(U1000, "chmod f600 0640", chmod("f600", 0640));
	T(U1000, "chmod fg1001 02755", chmod("fg1001", 02755));
	T(U1002, "chmod f060", chmod("f060", 0666));
	T(ROOT, "chmod f060 02775", chmod("f060", 02775));
	T(NOBODY, "chown f600 65534", chown("f600", 65534, -1));
	T(U1000, "chown f600 1001", chown("f600", 1001, -1));
	T(U1000, "chown f600 1000", chown("f600", 1000, -1));
	T(U1000, "chgrp f600 1000", chown("f600", -1, 1000));
	T(U1000, "chgrp f600 1001", chown("f600", -1, 1001));
	T(U1002, "chgrp f060 1001", chown("f060", -1, 1001));
	T(NOBODY, "chown f644 -1 -1", chown("f644", -1, -1));
	T(U1000, "chgrp chown.s 1000", chown("chown.s", -1, 1000));
	T(ROOT, "chown s6755 1002", chown("s6755", 1002, -1));
	T(ROOT, "chown d777 -1 -1", chown("dsg", -1, -1));
	show("f600");
	show("fg1001");
	show("f060");
	show("chown.s");
	show("s6755");
	show("dsg");
	T(NOBODY, "utimens f666 NULL", utimensat(AT_FDCWD, "f666", NULL, 0));
	T(NOBODY, "utimens f644 NULL", utimensat(AT_FDCWD, "f644", NULL, 0));
	T(NOBODY, "utimens f644 now", utimensat(AT_FDCWD, "f644", ts_now, 0));
	T(NOBODY, "utimens f666 explicit", utimensat(AT_FDCWD, "f666", ts_explicit, 0));
	T(U1000, "utimens f600 explicit", utimensat(AT_FDCWD, "f600", ts_explicit, 0));
	T(NOBODY, "utimens f644 now,omit", utimensat(AT_FDCWD, "f644", ts_now_omit, 0));
	T(NOBODY, "utimens missing omit", utimensat(AT_FDCWD, "nonesuch", ts_omit, 0));
	T(NOBODY, "utimens d700/in NULL", utimensat(AT_FDCWD, "d700/in", NULL, 0));
}

static long write1(const char *path)
{
	int fd = open(path, O_WRONLY);
	return fd < 0 || write(fd, "x", 1) != 1 ? -1 : close(fd);
}

/* Changing a file's data takes its set-ID bits away, unless root changes it. */
static void privs(void)
{
	T(NOBODY, "write w6777", write1("w6777"));
	T(NOBODY, "write w2767", write1("w2767"));
	T(ROOT, "write w6777r", write1("w6777r"));
	T(U1000, "write w2767g", write1("w2767g"));
	T(NOBODY, "truncate t6777", truncate("t6777", 0));
	show("w6777");
	show("w2767");
	show("w6777r");
	show("w2767g");
	show("t6777");
}

static void accesses(void)
{
	T(R1000, "access f600 r", access("f600", R_OK));
	T(R1000, "eaccess f600 r", faccessat(AT_FDCWD, "f600", R_OK, AT_EACCESS));
	T(RNOBODY, "access f600 r", access("f600", R_OK));
	T(RNOBODY, "eaccess f600 r", faccessat(AT_FDCWD, "f600", R_OK, AT_EACCESS));
	T(RNOBODY, "access d700/in", access("d700/in", F_OK));
	T(RNOBODY, "eaccess d700/in", faccessat(AT_FDCWD, "d700/in", F_OK, AT_EACCESS));
	T(RROOT, "access f000 rw", access("f000", R_OK | W_OK));
	T(RROOT, "eaccess f000 r", faccessat(AT_FDCWD, "f000", R_OK, AT_EACCESS));
	T(ROOT, "access x644 x", access("x644", X_OK));
	T(ROOT, "access x001 x", access("x001", X_OK));
	T(ROOT, "access d700 x", access("d700", X_OK));
	T(NOBODY, "access f644 w", access("f644", W_OK));
	T(NOBODY, "access f644 r", access("f644", R_OK));
	T(NOBODY, "access f644 bad mode", access("f644", 8));
	T(NOBODY, "access d700/in", access("d700/in", F_OK));
	T(U1002, "access f060 rw", access("f060", R_OK | W_OK));
}

static void setids(void)
{
	T(ROOT, "setuid 1000 then 0", setuid(1000) || (ids(), setuid(0)));
	T(ROOT, "seteuid 1000 then setuid 0", seteuid(1000) || setuid(0) || ids());
	T(ROOT, "setreuid 1000 1001", setreuid(1000, 1001) || ids());
	T(ROOT, "setreuid -1 1000", setreuid(-1, 1000) || ids());
	T(ROOT, "setuid -1", setuid(-1));
	T(MIXED, "setresuid 1002 1000 1001", syscall(SYS_setresuid, 1002, 1000, 1001) || ids());
	T(MIXED, "setresuid 5 -1 -1", syscall(SYS_setresuid, 5, -1, -1));
	T(MIXED, "setreuid 1002 -1", syscall(SYS_setreuid, 1002, -1));
	T(MIXED, "setreuid 1001 -1", syscall(SYS_setreuid, 1001, -1) || ids());
	T(MIXED, "setreuid -1 1000", syscall(SYS_setreuid, -1, 1000) || ids());
	T(MIXED, "setuid 1002", syscall(SYS_setuid, 1002) || ids());
	T(MIXED, "setuid 1001", syscall(SYS_setuid, 1001));
	T(MIXED, "setresgid 1002 1000 1001", syscall(SYS_setresgid, 1002, 1000, 1001) || ids());
	T(MIXED, "setregid 1001 -1", syscall(SYS_setregid, 1001, -1) || ids());
	T(MIXED, "setgid 7", syscall(SYS_setgid, 7));
	T(MIXED, "setgid 1002", syscall(SYS_setgid, 1002) || ids());
	T(NOBODY, "setgid -1", syscall(SYS_setgid, -1));
	T(NOBODY, "setfsuid 0", syscall(SYS_setfsuid, 0));
	T(NOBODY, "setfsuid -1", syscall(SYS_setfsuid, -1));
	T(ROOT, "setfsuid 1000", syscall(SYS_setfsuid, 1000));
	T(ROOT, "setfsuid 1000 then -1", (syscall(SYS_setfsuid, 1000), syscall(SYS_setfsuid, -1)));
	T(ROOT, "setfsuid 1000 open f000", (syscall(SYS_setfsuid, 1000), xopen("f000", O_RDONLY)));
	T(ROOT, "setfsgid 1001 open f060", (syscall(SYS_setfsuid, 1001),
		syscall(SYS_setfsgid, 1001), xopen("f060", O_RDONLY)));
	T(MIXED, "setfsuid 1002", syscall(SYS_setfsuid, 1002));
	T(MIXED, "setfsuid 1002 twice", (syscall(SYS_setfsuid, 1002), syscall(SYS_setfsuid, 7)));
	T(RROOT, "setuid 0 from euid 1000", syscall(SYS_setuid, 0) || ids());
	T(NOBODY, "setgroups", syscall(SYS_setgroups, 0, NULL));
	T(ROOT, "setgroups 65537", syscall(SYS_setgroups, 65537, NULL));
	static gid_t g3[] = {5, 3, 4};
	T(ROOT, "setgroups 5 3 4", syscall(SYS_setgroups, 3, g3) || groups_line() < 0);
	T(ROOT, "getgroups 1 of 3", (syscall(SYS_setgroups, 3, g3), syscall(SYS_getgroups, 1, g3)));
	T(ROOT, "getgroups 0 of 3", (syscall(SYS_setgroups, 3, g3), syscall(SYS_getgroups, 0, NULL)));
	T(ROOT, "getgroups -1", syscall(SYS_getgroups, -1, NULL));
	static gid_t many[65536];
	for (int i = 0; i < 65536; i++)
		many[i] = (gid_t)(65535 - i);
	T(ROOT, "setgroups 65536", syscall(SYS_setgroups, 65536, many) ? -1 :
		(syscall(SYS_getgroups, 65536, many), printf("    groups %ld first %u last %u\n",
		 syscall(SYS_getgroups, 0, NULL), many[0], many[65535]), 0));
	void *wild = (void *)16;
	T(ROOT, "setgroups wild pointer", syscall(SYS_setgroups, 2, wild));
	T(ROOT, "getgroups wild pointer", (syscall(SYS_setgroups, 3, g3), syscall(SYS_getgroups, 3, wild)));
	T(ROOT, "getresuid wild pointer", syscall(SYS_getresuid, wild, wild, wild));
	T(ROOT, "getresgid wild pointer", syscall(SYS_getresgid, g3, g3 + 1, wild));
	static gid_t bad[] = {5, (gid_t)-1};
	T(ROOT, "setgroups -1 in list", syscall(SYS_setgroups, 2, bad));
	T(U1002, "open f060 via group", xopen("f060", O_RDONLY));
	T(U1000, "kill parent", kill(getppid(), 0));
	T(RROOT, "kill parent", kill(getppid(), 0));
	T(U1000, "kill self", kill(getpid(), 0));
	T(U1000, "kill -1 0", kill(-1, 0));
}

/* SO_PEERCRED's user and group of a socketpair's other end, or of an unconnected socket. */
static long peercred(int paired)
{
	int sv[2];
	struct ucred uc;
	socklen_t len = sizeof(uc);
	if (paired ? socketpair(AF_UNIX, SOCK_STREAM, 0, sv) : (sv[0] = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	if (getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return -1;
	printf("    peercred %d %d\n", (int)uc.uid, (int)uc.gid);
	return 0;
}

static long connect_to(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	return fd < 0 ? -1 : connect(fd, (struct sockaddr *)&a, sizeof(a));
}

/* A listening socket of root's (mode 0755 from the umask): connecting needs write permission. */
static void sockets(void)
{
	T(U1000, "peercred socketpair", peercred(1));
	T(U1000, "peercred unconnected", peercred(0));
	struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "sock"};
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 8)) {
		printf("setup sock: %s\n", strerror(errno));
		exit(1);
	}
	show("sock");
	T(NOBODY, "connect sock 0755", connect_to("sock"));
	T(ROOT, "connect sock 0755", connect_to("sock"));
	chmod("sock", 0777);
	T(NOBODY, "connect sock 0777", connect_to("sock"));
	T(NOBODY, "connect d700/none", connect_to("d700/none"));
	T(NOBODY, "bind d755/s2", ({ struct sockaddr_un b = {.sun_family = AF_UNIX, .sun_path = "d755/s2"};
		bind(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&b, sizeof(b)); }));
	close(l);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--ids")) {
		printf("%s: ok\n", argv[2]);
		ids();
		aux_and_status();
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: perms BASE\n");
		return 2;
	}
	progname = argv[0];
	int fd = open(progname, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, self, sizeof(self));
	if (n <= 0 || n == (ssize_t)sizeof(self)) {
		printf("cannot read %s\n", progname);
		return 1;
	}
	self_len = (size_t)n;
	close(fd);
	umask(022);
	if (chdir(argv[1]) || mkdir("perms.d", 0777) || chmod("perms.d", 0777) || chdir("perms.d")) {
		printf("cannot make %s/perms.d: %s\n", argv[1], strerror(errno));
		return 1;
	}
	setup();
	opens();
	walks();
	execs();
	names();
	attrs();
	privs();
	accesses();
	setids();
	sockets();
	printf("perms done\n");
	return 0;
}
