// SPDX-License-Identifier: MIT
// Names that change under a cached lookup: each name is looked up (and so
// cached, where a file system keeps a lookup cache, as lx's ext2 does) before
// it is renamed, unlinked, replaced, linked or created, and must then look
// up as it is now: the right inode, ENOENT, or found after a failed lookup.
// A removed directory's name made again names a new, empty directory.  In
// the directory argv[1] (default "."), which must be writable; the same
// program passes on Linux.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

static long ino_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_ino;
}

static long make(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return ino_of(path);
}

static void renames(void)
{
	long a = make("nc_a");
	check("create nc_a", a > 0, 1, 0);
	check("nc_b absent", ino_of("nc_b"), -1, ENOENT);
	check("rename nc_a nc_b", rename("nc_a", "nc_b"), 0, 0);
	check("nc_a gone after rename", ino_of("nc_a"), -1, ENOENT);
	check("nc_b is nc_a's inode", ino_of("nc_b"), a, 0);
	long c = make("nc_c");
	check("create nc_c", c > 0 && c != a, 1, 0);
	check("rename nc_c over nc_b", rename("nc_c", "nc_b"), 0, 0);
	check("nc_b is nc_c's inode", ino_of("nc_b"), c, 0);
	check("nc_c gone", ino_of("nc_c"), -1, ENOENT);
	check("link nc_b nc_l", link("nc_b", "nc_l"), 0, 0);
	check("nc_l is nc_b's inode", ino_of("nc_l"), c, 0);
	check("unlink nc_b", unlink("nc_b"), 0, 0);
	check("nc_b gone after unlink", ino_of("nc_b"), -1, ENOENT);
	check("nc_l still there", ino_of("nc_l"), c, 0);
	check("unlink nc_l", unlink("nc_l"), 0, 0);
	check("nc_l gone", ino_of("nc_l"), -1, ENOENT);
	check("nc_b made again", make("nc_b") > 0, 1, 0);
	check("unlink nc_b again", unlink("nc_b"), 0, 0);
}

static void directories(void)
{
	check("mkdir nc_d", mkdir("nc_d", 0755), 0, 0);
	long f = make("nc_d/f");
	check("nc_d/f created", f > 0, 1, 0);
	check("nc_d/f found", ino_of("nc_d/f"), f, 0);
	check("rmdir of a full nc_d", rmdir("nc_d"), -1, ENOTEMPTY);
	check("unlink nc_d/f", unlink("nc_d/f"), 0, 0);
	check("rmdir nc_d", rmdir("nc_d"), 0, 0);
	check("nc_d gone", ino_of("nc_d"), -1, ENOENT);
	check("nc_d/f gone with it", ino_of("nc_d/f"), -1, ENOENT);
	check("mkdir nc_d again", mkdir("nc_d", 0755), 0, 0);
	check("the new nc_d is empty", ino_of("nc_d/f"), -1, ENOENT);
	check("mkdir nc_e", mkdir("nc_e", 0755), 0, 0);
	long g = make("nc_e/g");
	check("nc_e/g created", g > 0, 1, 0);
	check("rename nc_e over the empty nc_d", rename("nc_e", "nc_d"), 0, 0);
	check("nc_d/g is nc_e/g", ino_of("nc_d/g"), g, 0);
	check("nc_e/g gone", ino_of("nc_e/g"), -1, ENOENT);
	check("nc_d/.. is here", ino_of("nc_d/.."), ino_of("."), 0);
	check("unlink nc_d/g", unlink("nc_d/g"), 0, 0);
	check("rmdir nc_d at the end", rmdir("nc_d"), 0, 0);
	/* a directory moved to another parent: its ".." follows */
	check("mkdir nc_p, nc_q, nc_p/s", mkdir("nc_p", 0755) || mkdir("nc_q", 0755) ||
	      mkdir("nc_p/s", 0755), 0, 0);
	check("nc_p/s/.. is nc_p", ino_of("nc_p/s/.."), ino_of("nc_p"), 0);
	check("rename nc_p/s nc_q/s", rename("nc_p/s", "nc_q/s"), 0, 0);
	check("nc_q/s/.. is nc_q", ino_of("nc_q/s/.."), ino_of("nc_q"), 0);
	check("nc_p/s gone", ino_of("nc_p/s"), -1, ENOENT);
	check("rmdir all three", rmdir("nc_q/s") || rmdir("nc_q") || rmdir("nc_p"), 0, 0);
}

int main(int argc, char **argv)
{
	if (chdir(argc > 1 ? argv[1] : ".")) {
		perror("chdir");
		return 2;
	}
	renames();
	directories();
	return checks_done("names");
}
