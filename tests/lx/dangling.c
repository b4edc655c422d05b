// SPDX-License-Identifier: MIT
// Dangling symbolic links against Linux, errno by errno: open(O_CREAT)
// follows a final link and makes its target (absolute or relative to the
// link's directory, through chains, mode less umask, the caller's ids) but
// not with O_EXCL (EEXIST) or O_NOFOLLOW (ELOOP) or O_PATH; a missing
// parent is ENOENT, any "name/" EISDIR; openat2's RESOLVE_* bind the target;
// mkdir, mknod, symlink, link and renameat2(NOREPLACE) never follow the
// link (EEXIST), rename replaces it; O_TMPFILE and O_CREAT|O_DIRECTORY
// are unchanged.  Each run is in a fresh directory under each argument
// (default: "." and "/tmp"), so lx's RAM root, tmpfs and ext2 all see it.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#define RESOLVE_IN_ROOT 0x10
#define RENAME_NOREPLACE_K 1
#define O_TMPFILE_K (020000000 | O_DIRECTORY)

static char dir[256];   /* the run's directory, absolute */
static int d;

static const char *in_dir(const char *name)
{
	static char buf[4][512];
	static int n;
	char *b = buf[n++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir, name);
	return b;
}

/* open of dir/path with flags (mode 0666): closed at once; 0, or -1 with errno. */
static long open_d(const char *path, int flags)
{
	int fd = openat(d, path, flags, 0666);
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : -1;
}

static long openat2_d(const char *path, uint64_t flags, uint64_t resolve)
{
	struct { uint64_t flags, mode, resolve; } how = { flags, 0644, resolve };
	long fd = syscall(SYS_openat2, d, path, &how, sizeof how);
	if (fd >= 0)
		close((int)fd);
	return fd >= 0 ? 0 : -1;
}

/* Is dir/name a regular file (1), or absent (-1 with errno)? */
static long is_file(const char *name)
{
	struct stat st;
	if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	return S_ISREG(st.st_mode);
}

static long is_link(const char *name)
{
	struct stat st;
	if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	return S_ISLNK(st.st_mode);
}

static void creates(void)
{
	umask(022);
	symlinkat(in_dir("t1"), d, "l1");
	int fd = openat(d, "l1", O_CREAT | O_WRONLY, 0666);
	check("O_CREAT through a dangling absolute link", fd >= 0, 1, 0);
	check("... writes reach the new target", write(fd, "hi", 2), 2, 0);
	char name[512] = "", fdpath[64];
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
	long n = readlink(fdpath, name, sizeof name - 1);
	check("... /proc/self/fd names the target", n > 0 && strcmp(name, in_dir("t1")) == 0, 1, 0);
	close(fd);
	struct stat st;
	check("... the target is a regular file", is_file("t1"), 1, 0);
	check("... the link stays a link", is_link("l1"), 1, 0);
	fstatat(d, "t1", &st, 0);
	check("... mode 0666 less umask 022", st.st_mode & 07777, 0644, 0);
	check("... the caller's uid and gid", st.st_uid == geteuid() && st.st_gid == getegid(), 1, 0);
	check("... size 2", st.st_size, 2, 0);
	check("O_CREAT again opens the made file", open_d("l1", O_CREAT | O_RDONLY), 0, 0);

	mkdirat(d, "sub", 0755);
	symlinkat("sub/t2", d, "l2");
	check("a relative link", open_d("l2", O_CREAT | O_WRONLY) == 0 && is_file("sub/t2") == 1, 1, 0);
	symlinkat("../t3", d, "sub/l3");
	check("a relative target is from the link's directory",
	      open_d("sub/l3", O_CREAT | O_WRONLY) == 0 && is_file("t3") == 1, 1, 0);
	symlinkat("l4b", d, "l4a");
	symlinkat("sub/l4c", d, "l4b");
	symlinkat("t4", d, "sub/l4c");
	check("a chain of links", open_d("l4a", O_CREAT | O_WRONLY) == 0 && is_file("sub/t4") == 1, 1, 0);
	symlinkat("t5", d, "l5");
	int cfd = creat(in_dir("l5"), 0600);
	check("creat through a dangling link", cfd >= 0 && is_file("t5") == 1, 1, 0);
	close(cfd);
	check("a plain O_CREAT still makes its name", open_d("t6", O_CREAT | O_RDWR) == 0 &&
	      is_file("t6") == 1, 1, 0);
}

static void refusals(void)
{
	symlinkat("x1", d, "m1");
	check("O_CREAT|O_EXCL on a dangling link: EEXIST", open_d("m1", O_CREAT | O_EXCL | O_WRONLY), -1,
	      EEXIST);
	check("... nothing made", is_file("x1"), -1, ENOENT);
	check("O_CREAT|O_EXCL on a link to a file: EEXIST", open_d("l1", O_CREAT | O_EXCL | O_WRONLY), -1,
	      EEXIST);
	check("O_CREAT|O_NOFOLLOW: ELOOP", open_d("m1", O_CREAT | O_NOFOLLOW | O_WRONLY), -1, ELOOP);
	check("O_CREAT|O_EXCL|O_NOFOLLOW: EEXIST", open_d("m1", O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY),
	      -1, EEXIST);
	check("... still nothing made", is_file("x1"), -1, ENOENT);
	check("without O_CREAT: ENOENT", open_d("m1", O_RDONLY), -1, ENOENT);
	symlinkat("nodir/x2", d, "m2");
	check("the target's directory missing: ENOENT", open_d("m2", O_CREAT | O_WRONLY), -1, ENOENT);
	symlinkat("x3/", d, "m3");
	check("a target \"name/\": EISDIR", open_d("m3", O_CREAT | O_WRONLY), -1, EISDIR);
	check("\"link/\" of a dangling link: EISDIR", open_d("m1/", O_CREAT | O_WRONLY), -1, EISDIR);
	check("... nothing made", is_file("x1") == -1 && is_file("x3") == -1, 1, 0);
	check("O_CREAT of \"file/\": EISDIR", open_d("t1/", O_CREAT | O_WRONLY), -1, EISDIR);
	check("O_CREAT of \"link to a file/\": EISDIR", open_d("l1/", O_CREAT | O_WRONLY), -1, EISDIR);
	check("O_CREAT of \"dir/\": EISDIR", open_d("sub/", O_CREAT | O_RDONLY), -1, EISDIR);
	check("O_CREAT|O_EXCL of \"new/\": EISDIR", open_d("x8/", O_CREAT | O_EXCL | O_WRONLY), -1, EISDIR);
	check("\"nodir/new/\": ENOENT", open_d("nodir/x8/", O_CREAT | O_WRONLY), -1, ENOENT);
	check("O_PATH drops O_CREAT: ENOENT", open_d("m1", O_PATH | O_CREAT), -1, ENOENT);
	check("... nothing made", is_file("x1") == -1 && is_file("x8") == -1, 1, 0);
	symlinkat("t1/x4", d, "m4");
	check("a target under a file: ENOTDIR", open_d("m4", O_CREAT | O_WRONLY), -1, ENOTDIR);
	symlinkat("m5b", d, "m5a");
	symlinkat("m5a", d, "m5b");
	check("a loop of links: ELOOP", open_d("m5a", O_CREAT | O_WRONLY), -1, ELOOP);
	char longname[300];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	symlinkat(longname, d, "m6");
	check("a target name too long: ENAMETOOLONG", open_d("m6", O_CREAT | O_WRONLY), -1, ENAMETOOLONG);
}

static void resolves(void)
{
	symlinkat("r1", d, "n1");
	check("RESOLVE_NO_SYMLINKS: ELOOP", openat2_d("n1", O_CREAT | O_WRONLY, RESOLVE_NO_SYMLINKS), -1,
	      ELOOP);
	check("... nothing made", is_file("r1"), -1, ENOENT);
	symlinkat(in_dir("r2"), d, "n2");
	check("RESOLVE_BENEATH, an absolute target: EXDEV", openat2_d("n2", O_CREAT | O_WRONLY,
	      RESOLVE_BENEATH), -1, EXDEV);
	symlinkat("../r3", d, "n3");
	check("RESOLVE_BENEATH, a target above: EXDEV", openat2_d("n3", O_CREAT | O_WRONLY,
	      RESOLVE_BENEATH), -1, EXDEV);
	check("... nothing made", is_file("r2"), -1, ENOENT);
	symlinkat("sub/r4", d, "n4");
	check("RESOLVE_BENEATH, a target inside", openat2_d("n4", O_CREAT | O_WRONLY, RESOLVE_BENEATH) == 0 &&
	      is_file("sub/r4") == 1, 1, 0);
	symlinkat("/sub/r5", d, "n5");
	check("RESOLVE_IN_ROOT, \"/\" is the directory", openat2_d("n5", O_CREAT | O_WRONLY,
	      RESOLVE_IN_ROOT) == 0 && is_file("sub/r5") == 1, 1, 0);
	check("plain openat2 follows it too", openat2_d("n1", O_CREAT | O_WRONLY, 0) == 0 && is_file("r1") == 1,
	      1, 0);
}

/* The calls that make a name never follow a final link: it exists. */
static void names(void)
{
	symlinkat("y1", d, "k1");
	check("mkdir on a dangling link: EEXIST", mkdirat(d, "k1", 0755), -1, EEXIST);
	check("mknod (a FIFO): EEXIST", mknodat(d, "k1", S_IFIFO | 0644, 0), -1, EEXIST);
	check("symlink: EEXIST", symlinkat("z", d, "k1"), -1, EEXIST);
	check("link: EEXIST", linkat(d, "t6", d, "k1", 0), -1, EEXIST);
	check("renameat2 NOREPLACE: EEXIST", syscall(SYS_renameat2, d, "t6", d, "k1", RENAME_NOREPLACE_K), -1,
	      EEXIST);
	check("... none made the target", is_file("y1"), -1, ENOENT);
	check("rename replaces the link itself", renameat(d, "t6", d, "k1") == 0 && is_file("k1") == 1 &&
	      is_file("y1") == -1, 1, 0);
	symlinkat("sub", d, "k2");
	check("O_CREAT|O_DIRECTORY on a dangling link: EINVAL", syscall(SYS_openat, d, "k3", O_CREAT |
	      O_DIRECTORY | O_RDWR, 0644), -1, EINVAL);
	check("O_TMPFILE through a dangling link: ENOENT", open_d("m1", O_TMPFILE_K | O_RDWR), -1, ENOENT);
	check("O_TMPFILE through a link to a directory", open_d("k2", O_TMPFILE_K | O_RDWR), 0, 0);
}

static void cleanup(void)
{
	const char *names[] = { "sub/l3", "sub/l4c", "sub/t2", "sub/t4", "sub/r4", "sub/r5", "l1", "t1",
				"l2", "t3", "l4a", "l4b", "l5", "t5", "m1", "m2", "m3", "m4", "m5a",
				"m5b", "m6", "n1", "n2", "n3", "n4", "n5", "r1", "k1", "k2", "t6" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(d, names[i], 0);
	unlinkat(d, "sub", AT_REMOVEDIR);
	close(d);
	check("the directory is left empty", rmdir(dir), 0, 0);
}

static void run_in(const char *base)
{
	char abs[200];
	if (!realpath(base, abs)) {
		check("the base directory", -1, 0, 0);
		return;
	}
	snprintf(dir, sizeof dir, "%s/dangling.XXXXXX", strcmp(abs, "/") ? abs : "");
	d = mkdtemp(dir) ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
	if (d < 0) {
		check("a fresh directory", -1, 0, 0);
		return;
	}
	printf("in %s\n", dir);
	creates();
	refusals();
	resolves();
	names();
	cleanup();
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		run_in(".");
		run_in("/tmp");
	}
	for (int i = 1; i < argc; i++)
		run_in(argv[i]);
	return checks_done("dangling");
}
