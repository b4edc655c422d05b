// SPDX-License-Identifier: MIT
// mount(2) and umount2(2) errno by errno, as root: tmpfs with options, a
// second procfs, EBUSY while a file is open or the working directory is
// inside, EINVAL for what is no mount point, MNT_DETACH, MNT_EXPIRE,
// remounts and propagation changes, noexec, /proc/self/mounts and
// mountinfo, inotify's IN_UNMOUNT, and EPERM for anyone else.  Runs in its
// working directory, natively (where mount is refused with EPERM only the
// unprivileged checks run) and under lx.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#ifndef ST_VALID
#define ST_VALID 0x20
#endif
#ifndef ST_RELATIME
#define ST_RELATIME 0x1000
#endif

static char here[4096], mnt[4200];

/* Does /proc/self/FILE have a line holding all of the words? */
static int listed(const char *file, const char *a, const char *b)
{
	char path[64], line[8192];
	snprintf(path, sizeof(path), "/proc/self/%s", file);
	FILE *f = fopen(path, "r");
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, a) && (!b || strstr(line, b));
	if (f)
		fclose(f);
	return found;
}

static long dev_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_dev;
}

/* The exit status of fn run in a child. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn());
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int as_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		return 1;
	/* paths nobody may walk (the working directory may be root's alone) */
	int a = mount("none", "/", "tmpfs", 0, NULL) == -1 && errno == EPERM;
	int b = umount2("/", 0) == -1 && errno == EPERM;
	int c = umount2("/no-such-dir-lx", 0) == -1 && errno == ENOENT;  /* the lookup comes first */
	return a && b && c ? 0 : 2;
}

static void unprivileged(void)
{
	check("mount as nobody: EPERM; umount2: EPERM; a missing path: ENOENT first",
	      in_child(as_nobody), 0, 0);
}

static void errors(void)
{
	char line[4300];
	check("umount2 of a directory that is no mount point: EINVAL", umount2(mnt, 0), -1, EINVAL);
	check("umount2 of a missing path: ENOENT", umount2("no-such-dir", 0), -1, ENOENT);
	check("umount2 with an unknown flag: EINVAL", umount2(mnt, 0x100), -1, EINVAL);
	check("umount2 MNT_EXPIRE|MNT_DETACH: EINVAL", umount2(mnt, MNT_EXPIRE | MNT_DETACH), -1, EINVAL);
	check("umount2 of /: EBUSY", umount2("/", 0), -1, EBUSY);
	check("mount of an unknown type: ENODEV", mount("none", mnt, "nosuchfs", 0, NULL), -1, ENODEV);
	check("mount without a type: EINVAL", mount("none", mnt, NULL, 0, NULL), -1, EINVAL);
	check("mount on a missing target: ENOENT", mount("none", "no-such-dir", "tmpfs", 0, NULL), -1,
	      ENOENT);
	close(open("plain", O_CREAT | O_WRONLY, 0644));
	check("mount on a file: ENOTDIR", mount("none", "plain", "tmpfs", 0, NULL), -1, ENOTDIR);
	check("tmpfs with an unknown option: EINVAL", mount("none", mnt, "tmpfs", 0, "bogus=1"), -1,
	      EINVAL);
	check("MS_REMOUNT of a directory that is no mount point: EINVAL",
	      mount(NULL, mnt, NULL, MS_REMOUNT, NULL), -1, EINVAL);
	check("MS_PRIVATE off a mount point: EINVAL", mount(NULL, mnt, NULL, MS_PRIVATE, NULL), -1,
	      EINVAL);
	snprintf(line, sizeof(line), "%s ", mnt);
	check("nothing listed there before", listed("mounts", line, NULL), 0, 0);
}

static void tmpfs_busy(void)
{
	char line[4300], file[4300];
	long parent = dev_of(here);
	check("mount tmpfs mode=0710,uid=7", mount("tmpfsname", mnt, "tmpfs", 0, "mode=0710,uid=7"), 0,
	      0);
	struct stat st;
	stat(mnt, &st);
	check("its root has the mode and owner asked for", st.st_mode == (S_IFDIR | 0710) && st.st_uid == 7,
	      1, 0);
	check("a new device", dev_of(mnt) != parent && dev_of(mnt) > 0, 1, 0);
	snprintf(line, sizeof(line), "tmpfsname %s tmpfs rw", mnt);
	check("/proc/self/mounts lists it", listed("mounts", line, NULL), 1, 0);
	snprintf(line, sizeof(line), " %s rw", mnt);
	check("/proc/self/mountinfo lists it", listed("mountinfo", line, " - tmpfs tmpfsname "), 1, 0);
	snprintf(file, sizeof(file), "%s/f", mnt);
	int fd = open(file, O_CREAT | O_RDWR, 0644);
	check("a file in it", fd >= 0, 1, 0);
	check("umount2 while it is open: EBUSY", umount2(mnt, 0), -1, EBUSY);
	close(fd);
	check("chdir into it", chdir(mnt), 0, 0);
	check("umount2 with the working directory inside: EBUSY", umount2(mnt, 0), -1, EBUSY);
	check("chdir back", chdir(here), 0, 0);
	check("MS_PRIVATE on the mount: 0", mount(NULL, mnt, NULL, MS_PRIVATE, NULL), 0, 0);
	check("MS_REMOUNT with MS_NOSUID: 0", mount(NULL, mnt, NULL, MS_REMOUNT | MS_NOSUID, NULL), 0, 0);
	snprintf(line, sizeof(line), " %s tmpfs ", mnt);
	check("/proc/self/mounts shows nosuid", listed("mounts", line, "nosuid"), 1, 0);
	struct statfs sf;
	check("statfs: f_flags say valid, nosuid, relatime", statfs(mnt, &sf) == 0 &&
	      sf.f_flags == (ST_VALID | ST_NOSUID | ST_RELATIME), 1, 0);
	check("MNT_EXPIRE on an idle mount: EAGAIN (marked)", umount2(mnt, MNT_EXPIRE), -1, EAGAIN);
	check("MNT_EXPIRE again: unmounted", umount2(mnt, MNT_EXPIRE), 0, 0);
	check("the mount point is its own directory again", dev_of(mnt), parent, 0);
	check("the tmpfs's file is gone", access(file, F_OK), -1, ENOENT);
	check("no longer listed", listed("mounts", line, NULL), 0, 0);
}

static void second_proc(void)
{
	char path[4300];
	check("mount proc a second time", mount("proc", mnt, "proc", 0, NULL), 0, 0);
	snprintf(path, sizeof(path), "%s/%d/status", mnt, getpid());
	check("it shows this process", access(path, R_OK), 0, 0);
	snprintf(path, sizeof(path), "%s/self", mnt);
	char buf[32] = "";
	readlink(path, buf, sizeof(buf) - 1);
	check("its self link names this process", atoi(buf), getpid(), 0);
	check("unmounted", umount2(mnt, 0), 0, 0);
}

static void detach(void)
{
	char file[4300];
	check("mount tmpfs", mount("none", mnt, "tmpfs", 0, NULL), 0, 0);
	snprintf(file, sizeof(file), "%s/kept", mnt);
	int fd = open(file, O_CREAT | O_RDWR, 0644);
	write(fd, "kept", 4);
	check("MNT_DETACH while a file is open: 0", umount2(mnt, MNT_DETACH), 0, 0);
	check("the name is gone at once", access(file, F_OK), -1, ENOENT);
	char buf[8] = "";
	check("the open file still reads", pread(fd, buf, sizeof(buf), 0), 4, 0);
	check("its data", memcmp(buf, "kept", 4), 0, 0);
	close(fd);
}

static void unmount_watch(void)
{
	check("mount tmpfs", mount("none", mnt, "tmpfs", 0, NULL), 0, 0);
	int in = inotify_init1(IN_NONBLOCK);
	int wd = inotify_add_watch(in, mnt, IN_ALL_EVENTS);
	check("a watch on its root", wd > 0, 1, 0);
	check("umount2 with the watch: 0", umount2(mnt, 0), 0, 0);
	struct inotify_event ev[4];
	long n = read(in, ev, sizeof(ev));
	int unmount = n >= 32 && ev[0].wd == wd && ev[0].mask == (IN_UNMOUNT | IN_ISDIR);
	int ignored = n >= 32 && ev[1].wd == wd && ev[1].mask == IN_IGNORED;
	check("IN_UNMOUNT|IN_ISDIR then IN_IGNORED", unmount && ignored, 1, 0);
	close(in);
}

static int run_prog(void)
{
	char prog[4300];
	snprintf(prog, sizeof(prog), "%s/prog", mnt);
	char *argv[] = { prog, NULL };
	execve(prog, argv, NULL);
	return errno;
}

static void noexec(void)
{
	char prog[4300], buf[65536];
	check("mount tmpfs MS_NOEXEC", mount("none", mnt, "tmpfs", MS_NOEXEC, NULL), 0, 0);
	snprintf(prog, sizeof(prog), "%s/prog", mnt);
	int in = open("/proc/self/exe", O_RDONLY), out = open(prog, O_CREAT | O_WRONLY, 0755);
	long n;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		write(out, buf, (size_t)n);
	close(in);
	close(out);
	check("execve from a noexec mount: EACCES", in_child(run_prog), EACCES, 0);
	check("unmounted", umount2(mnt, 0), 0, 0);
}

int main(void)
{
	getcwd(here, sizeof(here));
	snprintf(mnt, sizeof(mnt), "%s/mnt", strcmp(here, "/") ? here : "");
	mkdir(mnt, 0755);
	unprivileged();
	errors();
	if (mount("none", mnt, "tmpfs", 0, NULL) == -1 && errno == EPERM) {
		printf("(mount refused here: the privileged checks are skipped)\n");
		return checks_done("mounts");
	}
	check("umount2 of a fresh tmpfs", umount2(mnt, 0), 0, 0);
	tmpfs_busy();
	second_proc();
	detach();
	unmount_watch();
	noexec();
	return checks_done("mounts");
}
