// SPDX-License-Identifier: MIT
// /proc: a ramfs of ordinary in-memory directories that lx rewrites from its
// process table whenever a program looks into them (vfs/vfs.h's refresh
// hook), enough for ps, free, uptime and programs that read /proc/self.
#include "../lx.h"
#include "../../../lib/fmt/fmt.h"
#include "../../../lib/c/string.h"

struct thread *lx_current;              /* the thread whose call runs (for /proc/self) */
static struct inode *proc_root;

static void pid_refresh(struct inode *dir);
static const struct inode_ops pid_ops = { .refresh = pid_refresh };

/* Replace the contents of dir/name with text (a read-only file). */
static void put_file(struct inode *dir, const char *name, const char *text, size_t n)
{
	struct inode *ip;
	if (fs_dir_lookup(dir, name, &ip) && fs_create(dir, name, LX_S_IFREG | 0444, 0, &ip))
		return;
	fs_truncate(ip, 0);
	fs_write(ip, 0, text, n);
	fs_put(ip);
}

static char state_of(struct proc *p)
{
	if (p->zombie)
		return 'Z';
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (t->state != T_BLOCKED)
			return 'R';
	return 'S';
}

static void pid_files(struct inode *dir, struct proc *p)
{
	char buf[512];
	u64 rss = p->mm ? p->mm->pages : 0, start = p->start_time / 10000;
	int n = snfmt(buf, sizeof(buf),
		      "%d (%s) %c %d %d %d 0 %d 0 0 0 0 0 %lu 0 0 0 20 0 %d 0 %lu %lu %lu "
		      "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		      p->pid, p->comm, state_of(p), p->ppid, p->pgid, p->sid, tty_fg_pgrp(),
		      p->utime_us / 10000, p->nthreads, start, rss * LX_PAGE_SIZE, rss);
	put_file(dir, "stat", buf, (size_t)n);
	n = snfmt(buf, sizeof(buf),
		  "Name:\t%s\nState:\t%c\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nUid:\t0\t0\t0\t0\n"
		  "Gid:\t0\t0\t0\t0\nVmRSS:\t%lu kB\nThreads:\t%d\n",
		  p->comm, state_of(p), p->pid, p->pid, p->ppid, rss * 4, p->nthreads);
	put_file(dir, "status", buf, (size_t)n);
	put_file(dir, "cmdline", p->cmdline ? p->cmdline : "", p->cmdline ? p->cmdline_len : 0);
	n = snfmt(buf, sizeof(buf), "%s\n", p->comm);
	put_file(dir, "comm", buf, (size_t)n);
}

static void pid_refresh(struct inode *dir)
{
	struct proc *p = proc_by_pid((int)(long)dir->priv);
	if (p)
		pid_files(dir, p);
}

/* Remove the directory name and the files in it (pid directories hold only files). */
static void remove_dir(struct inode *parent, const char *name)
{
	struct inode *d;
	if (fs_dir_lookup(parent, name, &d))
		return;
	static const char *const files[] = { "stat", "status", "cmdline", "comm" };
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		fs_unlink(d, files[i]);
	fs_put(d);
	fs_rmdir(parent, name);
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int to_int(const char *s)
{
	int v = 0;
	while (*s)
		v = v * 10 + (*s++ - '0');
	return v;
}

/* Drop the directories of processes that are gone. */
static void prune(struct inode *root)
{
	char buf[2048], gone[64][12];
	int ngone = 0;
	u64 pos = 0;
	long n;
	while ((n = fs_getdents(root, &pos, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct lx_dirent64 *d = (struct lx_dirent64 *)(buf + off);
			off += d->d_reclen;
			struct proc *p = is_number(d->d_name) ? proc_by_pid(to_int(d->d_name)) : NULL;
			if (is_number(d->d_name) && (!p || p->zombie) && ngone < 64)
				snfmt(gone[ngone++], sizeof(gone[0]), "%s", d->d_name);
		}
	}
	for (int i = 0; i < ngone; i++)
		remove_dir(root, gone[i]);
}

/*
 * /proc/self names the caller's directory.  It is replaced only when its
 * target changes: a new entry would show up again behind every directory
 * reader's cursor, and a listing would never end.
 */
static void update_self(struct inode *root)
{
	char want[12], have[12];
	struct inode *ip;
	if (!lx_current)
		return;
	int n = snfmt(want, sizeof(want), "%d", lx_current->proc->pid);
	if (!fs_dir_lookup(root, "self", &ip)) {
		long len = fs_readlink(ip, have, sizeof(have));
		fs_put(ip);
		if (len == n && !memcmp(have, want, (size_t)n))
			return;
		fs_unlink(root, "self");
	}
	fs_symlink(root, "self", want);
}

/* /proc/net/{tcp,tcp6,udp,udp6,dev}: the sockets' tables (net/inet.c's net_proc_read) */
static void net_refresh(struct inode *root)
{
	static const char *const names[] = { "tcp", "tcp6", "udp", "udp6", "dev" };
	static char text[16384];
	struct inode *dir;
	if (fs_dir_lookup(root, "net", &dir) && fs_create(root, "net", LX_S_IFDIR | 0555, 0, &dir))
		return;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		long n = net_proc_read(names[i], text, sizeof(text));
		if (n >= 0)
			put_file(dir, names[i], text, (size_t)n);
	}
	fs_put(dir);
}

static void root_refresh(struct inode *root)
{
	prune(root);
	char name[12], buf[512];
	for (struct proc *p = procs; p; p = p->next_all) {
		struct inode *d;
		if (p->zombie)
			continue;
		snfmt(name, sizeof(name), "%d", p->pid);
		if (fs_dir_lookup(root, name, &d)) {
			if (fs_create(root, name, LX_S_IFDIR | 0555, 0, &d))
				continue;
			d->ops = &pid_ops;
			d->priv = (void *)(long)p->pid;
		}
		fs_put(d);
	}
	update_self(root);
	u64 total = pool_total_bytes() >> 10, free = (page_free_count() * LX_PAGE_SIZE) >> 10;
	int n = snfmt(buf, sizeof(buf),
		      "MemTotal:       %8lu kB\nMemFree:        %8lu kB\nMemAvailable:   %8lu kB\n"
		      "Buffers:               0 kB\nCached:                0 kB\n"
		      "SwapTotal:             0 kB\nSwapFree:              0 kB\n"
		      "Shmem:                 0 kB\nSReclaimable:          0 kB\n"
		      "PecanKernelPoolFree: %8lu kB\n",
		      total, free, free, lx_kip_word(KIP_OFF_KMEM_FREE) >> 10);
	put_file(root, "meminfo", buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	u64 up = lx_now_us();
	n = snfmt(buf, sizeof(buf), "%lu.%02lu 0.00\n", up / 1000000, (up / 10000) % 100);
	put_file(root, "uptime", buf, (size_t)n);
	n = snfmt(buf, sizeof(buf), "0.00 0.00 0.00 1/%d %d\n", proc_count(), procs ? procs->pid : 0);
	put_file(root, "loadavg", buf, (size_t)n);
	net_refresh(root);
}

static const struct inode_ops proc_root_ops = { .refresh = root_refresh };

struct super *procfs_new(void)
{
	struct super *sb = ramfs_new("proc");
	if (!sb)
		return NULL;
	proc_root = sb->root;
	proc_root->mode = LX_S_IFDIR | 0555;
	proc_root->ops = &proc_root_ops;
	return sb;
}
