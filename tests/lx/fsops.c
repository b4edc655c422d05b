/* SPDX-License-Identifier: MIT */
/*
 * A session of file-system changes and a listing of what it leaves, for
 * lx's ext2 root (tests/system/test_lx_ext2.py); the same program runs on
 * the host's Linux, whose listing lx's must equal.
 *
 *   fsops DIR write    make DIR and change files in it (see session())
 *   fsops DIR list     one line per name under DIR, sorted: type, mode, links,
 *                      size, mtime if set by utimes, content hash or link target
 *   fsops DIR verify   every file's content is its own (pattern of its name):
 *                      "verify good G bad B wrong W" (B: a read that failed)
 *   fsops DIR fill     write DIR/fill until the disk is full ("fill N MiB" after
 *                      each MiB): "fill errno NAME"
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char buf[1 << 16];

static void die(const char *what, const char *path)
{
	printf("FAIL %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* Byte i of a file called name: a pattern no other name gives. */
static uint8_t pat(const char *name, uint64_t i)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *s = name; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	h = (h ^ (i / 4096)) * 1099511628211ULL;
	return (uint8_t)(h >> (8 * (i % 8))) ^ (uint8_t)i;
}

/* Writes size pattern bytes of base name at offset off of path (created if needed). */
static void put(const char *path, const char *name, uint64_t off, uint64_t size, int fsync_it)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		die("open", path);
	for (uint64_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)pat(name, off + done + i);
		ssize_t w = pwrite(fd, buf, n, (off_t)(off + done));
		if (w <= 0)
			die("write", path);
		done += (uint64_t)w;
	}
	if (fsync_it && fsync(fd))
		die("fsync", path);
	close(fd);
}

static void at(const char *dir, const char *name, char *out)
{
	snprintf(out, 4096, "%s/%s", dir, name);
}

static void times_set(const char *path, long sec)
{
	struct timeval tv[2] = { { sec, 0 }, { sec, 0 } };
	if (utimes(path, tv))
		die("utimes", path);
}

/* The session: every kind of change ext2 must get right on the disk. */
static void session(const char *d)
{
	char p[4096], q[4096];
	if (mkdir(d, 0755) && errno != EEXIST)
		die("mkdir", d);
	at(d, "small", p), put(p, "small", 0, 100, 1);
	at(d, "blocks", p), put(p, "blocks", 0, 5 * 4096 + 17, 0);
	at(d, "indirect", p), put(p, "indirect", 0, 5 << 20, 1);      /* double indirect */
	at(d, "sparse", p), put(p, "sparse", 16ULL << 20, 4096, 0);   /* a 16 MiB hole */
	put(p, "sparse", 7, 9, 0);
	at(d, "shrunk", p), put(p, "shrunk", 0, 300000, 0);
	if (truncate(p, 5000))
		die("truncate", p);
	if (truncate(p, 9000))          /* grows again: the tail reads zeros */
		die("truncate", p);
	at(d, "sub", p);
	if (mkdir(p, 0750))
		die("mkdir", p);
	at(d, "sub/deeper", p);
	if (mkdir(p, 0700))
		die("mkdir", p);
	at(d, "sub/deeper/f", p), put(p, "f", 0, 10, 0);
	at(d, "small", p), at(d, "sub/hard", q);
	if (link(p, q))
		die("link", q);
	at(d, "sub/short", p);
	if (symlink("../small", p))
		die("symlink", p);
	at(d, "sub/long", p);
	if (symlink("../a/link/target/longer/than/sixty/bytes/so/it/needs/a/block/of/its/own", p))
		die("symlink", p);
	for (int i = 0; i < 150; i++) {         /* a directory of several blocks */
		snprintf(q, sizeof(q), "%s/many/name-%03d-padding-to-make-entries-longer", d, i);
		if (i == 0) {
			at(d, "many", p);
			if (mkdir(p, 0755))
				die("mkdir", p);
		}
		put(q, "many", 0, (uint64_t)i, 0);
	}
	for (int i = 0; i < 150; i += 3) {      /* holes in its blocks */
		snprintf(q, sizeof(q), "%s/many/name-%03d-padding-to-make-entries-longer", d, i);
		if (unlink(q))
			die("unlink", q);
	}
	at(d, "blocks", p), at(d, "renamed", q);
	if (rename(p, q))
		die("rename", q);
	at(d, "sub/deeper/f", p), at(d, "renamed", q);
	if (rename(p, q))               /* over an existing file */
		die("rename", q);
	at(d, "sub/deeper", p), at(d, "moved", q);
	if (rename(p, q))               /* a directory to another parent */
		die("rename", q);
	at(d, "gone", p), put(p, "gone", 0, 70000, 0);
	if (unlink(p))
		die("unlink", p);
	at(d, "emptydir", p);
	if (mkdir(p, 0755) || rmdir(p))
		die("rmdir", p);
	at(d, "small", p);
	if (chmod(p, 0600))
		die("chmod", p);
	at(d, "indirect", p), times_set(p, 1000000000);
	at(d, "sub", p), times_set(p, 1200000000);
	sync();
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t hash_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	uint64_t h = 1469598103934665603ULL;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ (uint8_t)buf[i]) * 1099511628211ULL;
	if (n < 0)
		die("read", path);
	close(fd);
	return h;
}

static void list(const char *dir, const char *rel)
{
	DIR *dp = opendir(dir);
	if (!dp)
		die("opendir", dir);
	char *names[512];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dp)) && n < 512)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	closedir(dp);
	qsort(names, (size_t)n, sizeof(names[0]), cmp);
	for (int i = 0; i < n; i++) {
		char p[4096], r[4096], t[4096];
		struct stat st;
		at(dir, names[i], p);
		snprintf(r, sizeof(r), "%s%s", rel, names[i]);
		if (lstat(p, &st))
			die("lstat", p);
		printf("%s %o", r, st.st_mode);
		if (S_ISDIR(st.st_mode)) {
			printf(" dir%s\n", st.st_mtime < 1500000000 ? " mtime-set" : "");
			strcat(r, "/");
			list(p, r);
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t k = readlink(p, t, sizeof(t) - 1);
			t[k < 0 ? 0 : k] = 0;
			printf(" links %lu -> %s\n", (unsigned long)st.st_nlink, t);
		} else {
			printf(" links %lu size %lld hash %016llx%s\n", (unsigned long)st.st_nlink,
			       (long long)st.st_size, (unsigned long long)hash_file(p),
			       st.st_mtime == 1000000000 ? " mtime 1000000000" : "");
		}
		free(names[i]);
	}
}

/* Is every byte of path the pattern of its base name? 1 yes, 0 no, -1 unreadable. */
static int own(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n;
	uint64_t off = 0;
	int good = 1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++, off++)
			if ((uint8_t)buf[i] != pat(name, off) && buf[i] != 0)
				good = 0;       /* zeros: a hole */
	}
	close(fd);
	return n < 0 ? -1 : good;
}

static void verify(const char *dir, int *counts)
{
	DIR *dp = opendir(dir);
	if (!dp) {
		counts[1]++;
		return;
	}
	struct dirent *e;
	char p[4096];
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		at(dir, e->d_name, p);
		if (lstat(p, &st)) {
			counts[1]++;
		} else if (S_ISDIR(st.st_mode)) {
			verify(p, counts);
		} else if (S_ISREG(st.st_mode)) {
			const char *base = strstr(p, "/many/") ? "many" : e->d_name;
			if (!strcmp(e->d_name, "renamed"))
				base = "f";
			else if (!strcmp(e->d_name, "hard"))
				base = "small";
			int r = own(p, base);
			counts[r < 0 ? 1 : r ? 0 : 2]++;
			if (r == 0)
				printf("wrong data in %s\n", p);
		}
	}
	closedir(dp);
}

static void fill(const char *d)
{
	char p[4096];
	at(d, "fill", p);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", p);
	memset(buf, 0x5a, sizeof(buf));
	ssize_t w;
	for (long n = 1; (w = write(fd, buf, sizeof(buf))) > 0; n++)
		if (n % 16 == 0) {      /* progress, for a test that kills the machine mid-write */
			printf("fill %ld MiB\n", n / 16);
			fflush(stdout);
		}
	printf("fill errno %s\n", w < 0 && errno == ENOSPC ? "ENOSPC" : strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	if (!strcmp(argv[2], "write"))
		session(argv[1]);
	else if (!strcmp(argv[2], "list"))
		list(argv[1], "");
	else if (!strcmp(argv[2], "fill"))
		fill(argv[1]);
	else if (!strcmp(argv[2], "verify")) {
		int c[3] = {0, 0, 0};
		verify(argv[1], c);
		printf("verify good %d bad %d wrong %d\n", c[0], c[1], c[2]);
	} else
		return 2;
	printf("fsops %s done\n", argv[2]);
	return 0;
}
