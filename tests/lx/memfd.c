// SPDX-License-Identifier: MIT
// memfd_create and its seals, and fallocate on RAM files, against Linux's
// behaviour errno by errno.  Prints "ok NAME" or "FAIL NAME: detail" per
// check, then "memfd done, N failed"; the same program passes on Linux.
// (fallocate runs on memfds: the host's /tmp need not be tmpfs; argv[1], a
// directory, adds checks on a regular file there: lx's ext2 root.)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef FALLOC_FL_ZERO_RANGE
#define FALLOC_FL_ZERO_RANGE 0x10
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 8
#endif

static int memfd(const char *name, unsigned flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

static void creation(void)
{
	char name[300];
	memset(name, 'n', sizeof(name));
	name[250] = 0;
	check("memfd_bad_flags", memfd("x", 0x100), -1, EINVAL);
	check("memfd_bad_name", memfd((const char *)8, 0), -1, EFAULT);
	check("memfd_name_too_long", memfd(name, 0), -1, EINVAL);
	name[249] = 0;
	int m = memfd(name, 0);
	check("memfd_name_longest", m >= 0, 1, 0);
	close(m);
	m = memfd("t", MFD_CLOEXEC);
	check("memfd_cloexec", fcntl(m, F_GETFD), FD_CLOEXEC, 0);
	struct stat st;
	fstat(m, &st);
	check("memfd_regular_empty", S_ISREG(st.st_mode) && st.st_size == 0, 1, 0);
	check("memfd_rdwr", fcntl(m, F_GETFL) & O_ACCMODE, O_RDWR, 0);
	check("memfd_write", write(m, "hello", 5), 5, 0);
	char b[8] = {0};
	check("memfd_read_back", pread(m, b, 8, 0) == 5 && !memcmp(b, "hello", 5), 1, 0);
	char *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	check("memfd_map", map != MAP_FAILED, 1, 0);
	if (map != MAP_FAILED) {
		map[0] = 'J';
		check("memfd_map_shared", pread(m, b, 1, 0) == 1 && b[0] == 'J', 1, 0);
		munmap(map, 4096);
	}
	check("memfd_no_sealing", fcntl(m, F_GET_SEALS), F_SEAL_SEAL, 0);
	check("memfd_add_refused", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), -1, EPERM);
	close(m);
	int reg = open("memfd_reg", O_CREAT | O_RDWR | O_TRUNC, 0600);
	check("seals_regular_file", fcntl(reg, F_GET_SEALS), -1, EINVAL);
	check("add_seals_regular_file", fcntl(reg, F_ADD_SEALS, F_SEAL_GROW), -1, EINVAL);
	close(reg);
	unlink("memfd_reg");
	int p[2];
	pipe(p);
	check("seals_pipe", fcntl(p[0], F_GET_SEALS), -1, EINVAL);
	close(p[0]);
	close(p[1]);
}

static void seals(void)
{
	int m = memfd("s", MFD_ALLOW_SEALING);
	char buf[4096] = {0};
	write(m, buf, sizeof(buf));
	check("seals_none", fcntl(m, F_GET_SEALS), 0, 0);
	check("seal_bad_bits", fcntl(m, F_ADD_SEALS, 0x1000), -1, EINVAL);
	check("seal_grow", fcntl(m, F_ADD_SEALS, F_SEAL_GROW), 0, 0);
	check("grow_write_past_end", pwrite(m, "x", 1, 4096), -1, EPERM);
	check("grow_write_inside", pwrite(m, "x", 1, 100), 1, 0);
	check("grow_truncate_up", ftruncate(m, 8192), -1, EPERM);
	check("grow_truncate_down", ftruncate(m, 2048), 0, 0);
	check("seal_shrink", fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK), 0, 0);
	check("shrink_truncate_down", ftruncate(m, 1024), -1, EPERM);
	check("shrink_truncate_same", ftruncate(m, 2048), 0, 0);
	char *rw = mmap(NULL, 2048, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	check("write_map_before_seal", rw != MAP_FAILED, 1, 0);
	munmap(rw, 2048);
	check("seal_write", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), 0, 0);
	check("write_sealed", write(m, "y", 1), -1, EPERM);
	check("pwrite_sealed", pwrite(m, "y", 1, 0), -1, EPERM);
	void *map = mmap(NULL, 2048, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	check("map_shared_write_sealed", map == MAP_FAILED && errno == EPERM, 1, 0);
	map = mmap(NULL, 2048, PROT_READ, MAP_SHARED, m, 0);
	check("map_shared_read_sealed", map != MAP_FAILED, 1, 0);
	check("mprotect_write_sealed", mprotect(map, 2048, PROT_READ | PROT_WRITE), -1, EACCES);
	munmap(map, 2048);
	map = mmap(NULL, 2048, PROT_READ | PROT_WRITE, MAP_PRIVATE, m, 0);
	check("map_private_write_sealed", map != MAP_FAILED, 1, 0);
	munmap(map, 2048);
	check("seal_seal", fcntl(m, F_ADD_SEALS, F_SEAL_SEAL), 0, 0);
	check("seal_after_seal", fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK), -1, EPERM);
	check("seals_all", fcntl(m, F_GET_SEALS),
	      F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE, 0);
	char b[2];
	check("read_sealed", pread(m, b, 1, 100) == 1 && b[0] == 'x', 1, 0);
	close(m);
}

static long blocks_bytes(int fd)
{
	struct stat st;
	fstat(fd, &st);
	return (long)st.st_blocks * 512;
}

static long size_of(int fd)
{
	struct stat st;
	fstat(fd, &st);
	return (long)st.st_size;
}

/* F_SEAL_WRITE waits until no shared mapping may write (EBUSY), as Linux's i_mmap_writable. */
static void seal_vs_mappings(void)
{
	int m = memfd_create("mapped", MFD_ALLOW_SEALING);
	ftruncate(m, 4096);
	char *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	check("seal_write_while_mapped_writable", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), -1, EBUSY);
	check("other_seals_while_mapped", fcntl(m, F_ADD_SEALS, F_SEAL_GROW), 0, 0);
	char *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, m, 0);
	munmap(w, 4096);
	check("seal_write_with_a_private_mapping", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), 0, 0);
	check("mmap_shared_writable_after_seal",
	      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0) == MAP_FAILED ? errno : 0,
	      EPERM, 0);
	munmap(priv, 4096);
	close(m);
	m = memfd_create("readonly", MFD_ALLOW_SEALING);
	ftruncate(m, 4096);
	char *r = mmap(NULL, 4096, PROT_READ, MAP_SHARED, m, 0);
	check("seal_write_while_mapped_read_only_from_a_rdwr_fd", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), -1,
	      EBUSY);
	munmap(r, 4096);
	close(m);
	m = memfd_create("forked", MFD_ALLOW_SEALING);
	ftruncate(m, 4096);
	w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	int go[2];
	pipe(go);
	pid_t pid = fork();
	if (pid == 0) {                 /* the child keeps its inherited mapping */
		char c;
		read(go[0], &c, 1);
		_exit(0);
	}
	munmap(w, 4096);
	check("seal_write_while_a_child_maps_it", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), -1, EBUSY);
	write(go[1], "x", 1);
	waitpid(pid, NULL, 0);
	check("seal_write_once_the_child_is_gone", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE), 0, 0);
	close(go[0]);
	close(go[1]);
	close(m);
}

static void fallocating(void)
{
	int m = memfd("f", MFD_ALLOW_SEALING);
	check("falloc_zero_len", fallocate(m, 0, 0, 0), -1, EINVAL);
	check("falloc_negative_off", fallocate(m, 0, -1, 10), -1, EINVAL);
	check("falloc_bad_fd", fallocate(200, 0, 0, 10), -1, EBADF);
	check("falloc_punch_needs_keep", fallocate(m, FALLOC_FL_PUNCH_HOLE, 0, 10), -1, EOPNOTSUPP);
	check("falloc_zero_range", fallocate(m, FALLOC_FL_ZERO_RANGE, 0, 10), -1, EOPNOTSUPP);
	check("falloc_extends", fallocate(m, 0, 0, 10000), 0, 0);
	check("falloc_size", size_of(m), 10000, 0);
	check("falloc_blocks", blocks_bytes(m) >= 10000, 1, 0);
	check("falloc_keep_size", fallocate(m, FALLOC_FL_KEEP_SIZE, 0, 40000), 0, 0);
	check("falloc_keep_size_kept", size_of(m), 10000, 0);
	check("falloc_keep_size_blocks", blocks_bytes(m) >= 40000, 1, 0);
	char data[8192], back[8192];
	memset(data, 'd', sizeof(data));
	pwrite(m, data, sizeof(data), 0);
	long before = blocks_bytes(m);
	check("falloc_punch", fallocate(m, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096), 0, 0);
	pread(m, back, sizeof(back), 0);
	int zeros = 0, kept = 0;
	for (int i = 0; i < 4096; i++)
		zeros += back[i] == 0, kept += back[4096 + i] == 'd';
	check("falloc_punched_zeros", zeros, 4096, 0);
	check("falloc_punch_rest_kept", kept, 4096, 0);
	check("falloc_punch_frees", blocks_bytes(m) < before, 1, 0);
	check("falloc_punch_size_kept", size_of(m), 10000, 0);
	check("falloc_punch_partial", fallocate(m, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 5000,
						10), 0, 0);
	pread(m, back, 12, 4998);
	check("falloc_partial_zeroed", back[0] == 'd' && back[2] == 0 && back[11] == 0 &&
	      back[12 - 1] == 0, 1, 0);
	fcntl(m, F_ADD_SEALS, F_SEAL_GROW);
	check("falloc_sealed_grow", fallocate(m, 0, 9000, 2000), -1, EPERM);
	check("falloc_sealed_inside", fallocate(m, 0, 0, 2000), 0, 0);
	fcntl(m, F_ADD_SEALS, F_SEAL_WRITE);
	check("falloc_punch_sealed", fallocate(m, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 10),
	      -1, EPERM);
	close(m);
	int p[2];
	pipe(p);
	check("falloc_pipe", fallocate(p[1], 0, 0, 10), -1, ESPIPE);
	close(p[0]);
	close(p[1]);
	int ro = open("/dev/null", O_RDONLY), wo = open("/dev/null", O_WRONLY);
	check("falloc_read_only", fallocate(ro, 0, 0, 10), -1, EBADF);
	check("falloc_device", fallocate(wo, 0, 0, 10), -1, ENODEV);
	close(ro);
	close(wo);
}

static int all_zero(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* fallocate on a regular file of the directory given (lx's ext2 root; the host's disk). */
static void fallocating_file(const char *dir)
{
	char path[256], b[8192];
	snprintf(path, sizeof(path), "%s/falloc_file", dir);
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	check("file_falloc", fallocate(fd, 0, 0, 10000), 0, 0);
	check("file_falloc_size", size_of(fd), 10000, 0);
	check("file_falloc_blocks", blocks_bytes(fd) >= 10000, 1, 0);
	check("file_falloc_zeros", pread(fd, b, sizeof(b), 0) == sizeof(b) && all_zero(b, sizeof(b)),
	      1, 0);
	memset(b, 'd', sizeof(b));
	pwrite(fd, b, sizeof(b), 0);
	check("file_falloc_keep_size", fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 5000), 0, 0);
	check("file_falloc_keep_size_kept", size_of(fd), 10000, 0);
	check("file_punch", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1000, 5000), 0,
	      0);
	pread(fd, b, sizeof(b), 0);
	check("file_punch_zeros", all_zero(b + 1000, 5000) && b[999] == 'd' && b[6000] == 'd', 1, 0);
	check("file_punch_size_kept", size_of(fd), 10000, 0);
	check("file_falloc_past_end", fallocate(fd, 0, 20000, 100), 0, 0);
	check("file_falloc_past_end_size", size_of(fd), 20100, 0);
	check("file_falloc_gap_zeros", pread(fd, b, 4096, 12000) == 4096 && all_zero(b, 4096), 1, 0);
	close(fd);
	unlink(path);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	creation();
	seals();
	seal_vs_mappings();
	fallocating();
	if (argc > 1)
		fallocating_file(argv[1]);
	return checks_done("memfd");
}
