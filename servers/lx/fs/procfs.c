// SPDX-License-Identifier: MIT
/*
 * /proc and /sys: file systems whose directories and files are generated
 * when they are looked up, listed or read, as Linux's and gVisor's procfs
 * are; nothing is stored.  An inode names a node by its key (an entry of
 * the table below, and the pid, thread and descriptor it is about), so
 * /proc/PID comes and goes with the process table and a file of a process
 * that has been reaped reads ESRCH, never stale data.
 *
 * Formats follow proc(5) and Linux 6.1 byte for byte where lx has the
 * figure; what lx does not keep reads 0 (page-fault counts, system time:
 * docs/lx.md, "/proc and /sys").
 */
#include "../lx.h"
#include "../net/net.h"
#include "../proc/proc.h"
#include "../../../lib/fmt/fmt.h"
#include "../../../lib/c/string.h"
#include <stdarg.h>

#define HZ 100                          /* USER_HZ: clock ticks in stat, uptime's unit */
#define PID_MAX 32768                   /* proc/proc.c wraps pids below this */

/* --- output: a window [skip, skip + room) of the generated text --- */

struct pbuf {
	char *dst;
	u64 skip;                       /* bytes of the text before the window */
	size_t room, got;               /* the window's size; bytes put in it */
	u64 total;                      /* the text's length so far */
	u64 line;                       /* where the current line began (maps' columns) */
};

static void put_char(char c, void *arg)
{
	struct pbuf *b = arg;
	if (b->total++ < b->skip || b->got >= b->room)
		return;
	b->dst[b->got++] = c;
}

static void pf(struct pbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pf(struct pbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfmt(put_char, b, fmt, ap);
	va_end(ap);
}

static void put_bytes(struct pbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_char(s[i], b);
}

/* --- the tree --- */

/* What a node is about; 0 where it does not apply. */
struct pkey {
	uint16_t ent;
	int pid, tid, fd;
	u64 start;                      /* the process's start time: pids are reused */
};

struct pctx {
	const struct pkey *k;
	struct proc *p;
	struct thread *t;               /* the thread (task/TID), else the process's first */
};

typedef int (*show_fn)(struct pbuf *b, struct pctx *c);

struct pent {
	const char *name;               /* NULL: a number (pid, tid, fd) */
	uint16_t parent;
	uint16_t mode;
	show_fn show;                   /* files: the text; links: the target */
	long (*write)(struct pctx *c, const char *buf, size_t n);     /* a writable file */
};

enum {
	E_NONE, E_ROOT, E_SELF, E_THREAD_SELF, E_CPUINFO, E_MEMINFO, E_STAT, E_UPTIME,
	E_LOADAVG, E_VMSTAT, E_MOUNTS, E_FILESYSTEMS, E_VERSION, E_SYS, E_KERNEL, E_PIDMAX, E_OSTYPE,
	E_OSRELEASE, E_HOSTNAME, E_CORE, E_SHMMAX, E_SHMALL, E_SHMMNI, E_CAP_LAST, E_THREADS_MAX,
	E_RANDOM, E_UUID, E_BOOT_ID, E_ENTROPY, E_FS, E_FILE_MAX, E_NR_OPEN, E_VM, E_OVERCOMMIT,
	E_SYSVIPC, E_IPC_SHM, E_IPC_SEM, E_IPC_MSG,
	E_NET, E_NET_TCP, E_NET_TCP6, E_NET_UDP, E_NET_UDP6, E_NET_DEV,
	E_PID, E_P_STAT, E_P_STATM, E_P_STATUS, E_P_CMDLINE, E_P_COMM, E_P_MAPS, E_P_ENVIRON,
	E_P_EXE, E_P_CWD, E_P_ROOT, E_P_FD, E_P_FDINFO, E_P_TASK, E_P_MOUNTS, E_P_MOUNTINFO,
	E_P_LIMITS, E_P_OOM_ADJ, E_P_OOM_SCORE, E_P_LOGINUID,
	E_FDLINK, E_FDINFO_N, E_TID,
	E_SYSFS, E_DEVICES, E_SYSTEM, E_CPU, E_CPU_ONLINE, E_CPU_POSSIBLE, E_CPU_PRESENT,
	E_COUNT
};

#define DIR  (LX_S_IFDIR | 0555)
#define REG  (LX_S_IFREG | 0444)
#define RW   (LX_S_IFREG | 0644)
#define LNK  (LX_S_IFLNK | 0777)

static const struct pent ents[E_COUNT];

static bool per_process(int e)
{
	return e >= E_PID && e <= E_TID;
}

/* Does the key still name a live node?  The process, its thread, its descriptor. */
static int ctx_of(const struct pkey *k, struct pctx *c)
{
	c->k = k;
	c->p = NULL;
	c->t = NULL;
	if (!per_process(k->ent))
		return 0;
	struct proc *p = proc_by_pid(k->pid);
	if (!p || p->start_time != k->start)
		return -LX_ESRCH;
	c->p = p;
	int tid = k->tid ? k->tid : p->pid;         /* the process: its first thread's */
	for (c->t = p->threads; c->t && c->t->tid_linux != tid; c->t = c->t->next_in_proc)
		;
	if (!c->t && k->tid)
		return -LX_ESRCH;
	if (!c->t)
		c->t = p->threads;                  /* the first thread exited: any */
	if ((k->ent == E_FDLINK || k->ent == E_FDINFO_N) && !fd_get(p, k->fd))
		return -LX_ENOENT;
	return 0;
}

/* --- inodes: one per lookup, freed with its last reference --- */

struct pnode {
	struct inode i;
	struct pkey k;
};

static struct pkey *key_of(struct inode *ip)
{
	return &((struct pnode *)ip)->k;
}

static u64 ino_of(const struct pkey *k)
{
	if (k->ent == E_ROOT || k->ent == E_SYSFS)
		return 1;
	return (u64)k->ent | (u64)(k->fd + 1) << 8 | (u64)k->tid << 17 | (u64)k->pid << 33;
}

static u32 mode_of(const struct pkey *k)
{
	if (k->ent == E_P_FD)
		return LX_S_IFDIR | 0500;
	if (k->ent == E_FDLINK)
		return LX_S_IFLNK | 0700;
	if (k->ent == E_P_ENVIRON)
		return LX_S_IFREG | 0400;
	return ents[k->ent].mode;
}

static int node_new(struct super *sb, const struct pkey *k, struct inode **out)
{
	struct pnode *n = lx_zalloc(sizeof(*n));
	if (!n)
		return -LX_ENOMEM;
	n->k = *k;
	n->i.ino = ino_of(k);
	n->i.mode = mode_of(k);
	n->i.nlink = LX_S_ISDIR(n->i.mode) ? 2 : 1;
	n->i.sb = sb;
	fs_get(&n->i);
	struct pctx c;
	u64 us = ctx_of(k, &c) == 0 && c.p ? c.p->start_time : 0;
	n->i.mtime.tv_sec = (int64_t)(LX_EPOCH_AT_BOOT + us / 1000000);
	n->i.mtime.tv_nsec = (long)(us % 1000000) * 1000;
	n->i.atime = n->i.ctime = n->i.mtime;
	*out = &n->i;
	return 0;
}

static void proc_evict(struct inode *ip)
{
	if (ip != ip->sb->root)
		lx_free(ip);
}

static void proc_kill(struct super *sb)
{
	lx_free(sb->root);
}

/* --- directories --- */

/* The entries of the fixed part of dir: those whose parent it is (a TID's: a PID's). */
static bool child_of(int e, int dir)
{
	if (dir == E_TID)
		return ents[e].parent == E_PID && e != E_P_TASK && ents[e].name;
	return ents[e].parent == dir && ents[e].name;
}

/* The numbered children of a directory: pids, tids, descriptors. */
static int numbered_kind(int dir)
{
	switch (dir) {
	case E_ROOT: return E_PID;
	case E_P_TASK: return E_TID;
	case E_P_FD: return E_FDLINK;
	case E_P_FDINFO: return E_FDINFO_N;
	default: return E_NONE;
	}
}

/* The smallest number >= from in dir's numbered children (-1: none); *start for pids. */
static int next_number(struct pctx *c, int kind, int from, u64 *start)
{
	int best = -1;
	if (kind == E_PID) {
		for (struct proc *p = procs; p; p = p->next_all)
			if (p->pid >= from && (best < 0 || p->pid < best)) {
				best = p->pid;
				*start = p->start_time;
			}
	} else if (kind == E_TID) {
		for (struct thread *t = c->p->threads; t; t = t->next_in_proc)
			if (t->tid_linux >= from && (best < 0 || t->tid_linux < best))
				best = t->tid_linux;
	} else if (c->p->fds) {
		for (int fd = from < 0 ? 0 : from; fd < (int)c->p->fds->top && best < 0; fd++)
			if (fd_get(c->p, fd))
				best = fd;
	}
	return best;
}

/* The key of child `num` (a number) of kind under dir's key. */
static struct pkey numbered_key(const struct pkey *dir, int kind, int num, u64 start)
{
	struct pkey k = *dir;
	k.ent = (uint16_t)kind;
	if (kind == E_PID) {
		k.pid = num;
		k.start = start;
	} else if (kind == E_TID) {
		k.tid = num;
	} else {
		k.fd = num;
	}
	return k;
}

static bool parse_number(const char *name, size_t len, int *out)
{
	int v = 0;
	if (!len || len > 9 || (name[0] == '0' && len > 1))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		v = v * 10 + (name[i] - '0');
	}
	*out = v;
	return true;
}

/* The key of dir's parent. */
static struct pkey parent_key(const struct pkey *k)
{
	struct pkey up = *k;
	switch (k->ent) {
	case E_PID: up = (struct pkey){ .ent = E_ROOT }; break;
	case E_TID: up.ent = E_P_TASK; up.tid = 0; break;
	default: up.ent = k->tid && ents[k->ent].parent == E_PID ? E_TID : ents[k->ent].parent;
	}
	if (!per_process(up.ent))
		up = (struct pkey){ .ent = up.ent };
	return up;
}

static int key_inode(struct super *sb, const struct pkey *k, struct inode **out)
{
	if (k->ent == key_of(sb->root)->ent) {
		fs_get(sb->root);
		*out = sb->root;
		return 0;
	}
	return node_new(sb, k, out);
}

static int find_child(struct pctx *c, const char *name, size_t len, struct pkey *out)
{
	const struct pkey *k = c->k;
	for (int e = 1; e < E_COUNT; e++)
		if (child_of(e, k->ent) && strlen(ents[e].name) == len && !memcmp(ents[e].name, name, len)) {
			*out = *k;
			out->ent = (uint16_t)e;
			if (!per_process(e))
				*out = (struct pkey){ .ent = (uint16_t)e };
			return 0;
		}
	int kind = numbered_kind(k->ent), num;
	u64 start = 0;
	if (kind == E_NONE || !parse_number(name, len, &num) || next_number(c, kind, num, &start) != num)
		return -LX_ENOENT;
	*out = numbered_key(k, kind, num, start);
	return 0;
}

static int proc_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct pctx c;
	int r = ctx_of(key_of(dir), &c);
	if (r < 0)
		return -LX_ENOENT;
	struct pkey k;
	if (len == 1 && name[0] == '.')
		k = *key_of(dir);
	else if (len == 2 && name[0] == '.' && name[1] == '.')
		k = parent_key(key_of(dir));
	else if ((r = find_child(&c, name, len, &k)) < 0)
		return r;
	return key_inode(dir->sb, &k, out);
}

static size_t put_dirent(void *buf, size_t at, size_t n, const struct pkey *k, const char *name,
			 int64_t next)
{
	size_t len = strlen(name);
	size_t rec = (offsetof(struct lx_dirent64, d_name) + len + 1 + 7) & ~7UL;
	if (at + rec > n)
		return 0;
	struct lx_dirent64 *d = (struct lx_dirent64 *)((char *)buf + at);
	memset(d, 0, rec);
	d->d_ino = ino_of(k);
	d->d_off = next;
	d->d_reclen = (uint16_t)rec;
	u32 m = mode_of(k);
	d->d_type = LX_S_ISDIR(m) ? 4 : LX_S_ISLNK(m) ? 10 : 8;
	memcpy(d->d_name, name, len);
	return rec;
}

/*
 * Positions: 0 ".", 1 "..", 2 + e for the fixed entry e, NUMBERED + n for
 * the number n, so a listing goes on where it was while processes come and go.
 */
#define NUMBERED 1024
#define ENT_NAME_MAX 32                 /* the longest entry's name ("overcommit_memory") and a NUL */

/* The entry at or after *pos: its key and name; false at the end. */
static bool dir_entry(struct pctx *c, u64 *pos, struct pkey *k, char name[ENT_NAME_MAX])
{
	const struct pkey *d = c->k;
	if (*pos < 2) {
		*k = *pos == 0 ? *d : parent_key(d);
		memcpy(name, *pos == 0 ? "." : "..", 3);
		return true;
	}
	for (; *pos < 2 + E_COUNT; ++*pos)
		if (child_of((int)(*pos - 2), d->ent)) {
			int e = (int)(*pos - 2);
			*k = per_process(e) ? *d : (struct pkey){ 0 };
			k->ent = (uint16_t)e;
			snfmt(name, ENT_NAME_MAX, "%s", ents[e].name);
			return true;
		}
	int kind = numbered_kind(d->ent);
	u64 start = 0;
	int num = kind == E_NONE ? -1 : next_number(c, kind, (int)(*pos < NUMBERED ? 0 : *pos - NUMBERED),
						     &start);
	if (num < 0)
		return false;
	*pos = NUMBERED + (u64)num;
	*k = numbered_key(d, kind, num, start);
	snfmt(name, ENT_NAME_MAX, "%d", num);
	return true;
}

static long proc_getdents(struct inode *dir, u64 *pos, void *buf, size_t n)
{
	struct pctx c;
	if (ctx_of(key_of(dir), &c) < 0)
		return -LX_ENOENT;
	size_t at = 0, rec;
	struct pkey k;
	char name[ENT_NAME_MAX];
	while (dir_entry(&c, pos, &k, name)) {
		u64 next = *pos + 1;
		if (!(rec = put_dirent(buf, at, n, &k, name, (int64_t)next)))
			return at ? (long)at : -LX_EINVAL;
		at += rec;
		*pos = next;
	}
	return (long)at;
}

/* --- reading --- */

static long generate(struct inode *ip, u64 off, void *buf, size_t n)
{
	struct pctx c;
	int r = ctx_of(key_of(ip), &c);
	if (r < 0)
		return r;
	const struct pent *e = &ents[key_of(ip)->ent];
	if (!e->show)
		return -LX_EINVAL;
	struct pbuf b = { .dst = buf, .skip = off, .room = n };
	r = e->show(&b, &c);
	return r < 0 ? r : (long)b.got;
}

static long proc_read(struct inode *ip, u64 off, void *buf, size_t n)
{
	return LX_S_ISREG(ip->mode) ? generate(ip, off, buf, n) : -LX_EINVAL;
}

static long proc_readlink(struct inode *ip, char *buf, size_t n)
{
	return generate(ip, 0, buf, n);
}

/* Files of a process refuse writes with EINVAL, the system's with EIO, as Linux's. */
static long proc_write(struct inode *ip, u64 off, const void *buf, size_t n)
{
	(void)off;
	const struct pent *e = &ents[key_of(ip)->ent];
	struct pctx c;
	int r = ctx_of(key_of(ip), &c);
	if (r < 0)
		return r;
	if (e->write)
		return e->write(&c, buf, n);
	return per_process(key_of(ip)->ent) ? -LX_EINVAL : -LX_EIO;
}

/* Read-only sysctls refuse to open for writing, whoever asks (Linux's proc_sys_permission). */
static int proc_open(struct inode *ip, u32 flags)
{
	int e = key_of(ip)->ent;
	bool sysctl = e > E_SYS && e < E_SYSVIPC && LX_S_ISREG(ip->mode);
	if (sysctl && !ents[e].write && (flags & LX_O_ACCMODE) != LX_O_RDONLY)
		return -LX_EACCES;
	struct pctx c;
	return ctx_of(key_of(ip), &c) < 0 ? -LX_ENOENT : 0;
}

static int proc_truncate(struct inode *ip, u64 size)
{
	(void)ip, (void)size;
	return 0;                       /* O_TRUNC on a /proc file changes nothing */
}

/* --- magic links: exe, cwd, root, fd/N --- */

static struct file *link_file(struct pctx *c)
{
	if (c->k->ent == E_FDLINK)
		return fd_get(c->p, c->k->fd);
	return c->k->ent == E_P_EXE && !c->p->zombie ? c->p->exe : NULL;
}

static int proc_jump(struct inode *ip, struct inode **out, struct fs_name *where)
{
	struct pctx c;
	int e = key_of(ip)->ent, r = ctx_of(key_of(ip), &c);
	if (e != E_P_EXE && e != E_P_CWD && e != E_P_ROOT && e != E_FDLINK)
		return -LX_ENOSYS;
	if (r < 0)
		return r;
	struct inode *to = e == E_P_CWD ? c.p->cwd : e == E_P_ROOT ? c.p->root : NULL;
	struct file *f = link_file(&c);
	if (f)
		to = f->ip;
	if (!to || c.p->zombie)
		return f ? -LX_ENXIO : -LX_ENOENT;  /* a socket has no inode to open */
	if (where && f && f->name_dir) {
		fs_name_drop(where);
		fs_get(f->name_dir);
		where->dir = f->name_dir;
		snfmt(where->name, sizeof(where->name), "%s", f->name);
	}
	fs_get(to);
	*out = to;
	return 0;
}

static int show_link(struct pbuf *b, struct pctx *c)
{
	char *path = page_alloc();
	if (!path)
		return -LX_ENOMEM;
	struct file *f = link_file(c);
	struct inode *d = c->k->ent == E_P_CWD ? c->p->cwd : c->p->root;
	long n = c->p->zombie ? -LX_ENOENT : f ? file_link_name(f, path, LX_PAGE_SIZE) :
		 c->k->ent == E_P_EXE ? -LX_ENOENT : fs_path(d, path, LX_PAGE_SIZE);
	if (n > 0)
		put_bytes(b, path, (size_t)n);
	page_free(path);
	return n < 0 ? (int)n : 0;
}

static int show_self(struct pbuf *b, struct pctx *c)
{
	if (!lx_current)
		return -LX_ENOENT;
	if (c->k->ent == E_THREAD_SELF)
		pf(b, "%d/task/%d", lx_current->proc->pid, lx_current->tid_linux);
	else
		pf(b, "%d", lx_current->proc->pid);
	return 0;
}

/* --- a process's files --- */

static char state_of(struct proc *p, struct thread *only)
{
	if (p->zombie)
		return 'Z';
	if (p->stopped)
		return 'T';
	for (struct thread *t = only ? only : p->threads; t; t = only ? NULL : t->next_in_proc)
		if (t->state != T_BLOCKED && !t->is_sigthread)
			return 'R';
	return 'S';
}

static const char *state_name(char s)
{
	return s == 'R' ? "R (running)" : s == 'Z' ? "Z (zombie)" : s == 'T' ? "T (stopped)" :
	       "S (sleeping)";
}

struct vmsum {
	u64 size, data, stack, exe, lib;        /* bytes */
	u64 start_code, end_code;
};

static void vm_sum(struct proc *p, struct vmsum *s)
{
	memset(s, 0, sizeof(*s));
	struct inode *exe = p->exe ? p->exe->ip : NULL;
	for (struct vma *v = p->mm && !p->zombie ? p->mm->vmas : NULL; v; v = v->next) {
		u64 len = v->end - v->start;
		if (v->prot & VM_FAST)
			continue;
		s->size += len;
		if (v->prot & VM_STACK)
			s->stack += len;
		else if ((v->prot & VM_WRITE) && !(v->prot & VM_SHARED))
			s->data += len;
		if (v->file && (v->prot & VM_EXEC) && v->file == exe) {
			s->exe += len;
			if (!s->start_code)
				s->start_code = v->start, s->end_code = v->end;
		} else if (v->file && (v->prot & VM_EXEC)) {
			s->lib += len;
		}
	}
}

static u64 rss_pages(struct proc *p)
{
	return p->mm && !p->zombie ? p->mm->pages : 0;
}

static u64 sig_ignored(struct proc *p, bool caught)
{
	u64 m = 0;
	for (int s = 1; p->sig && s <= LX_NSIG; s++) {
		u64 h = p->sig->act[s].handler;
		if (caught ? h > LX_SIG_IGN : h == LX_SIG_IGN)
			m |= SIGBIT(s);
	}
	return m;
}

static u64 ticks(u64 us)
{
	return us / (1000000 / HZ);
}

/* The process's controlling terminal: the console for init's session (lx has one tty). */
static u64 tty_of(struct proc *p)
{
	return init_proc && p->sid == init_proc->sid ? DEV_CONSOLE : 0;
}

static int show_stat(struct pbuf *b, struct pctx *c)
{
	struct proc *p = c->p;
	struct thread *t = c->k->tid ? c->t : NULL;
	struct vmsum s;
	vm_sum(p, &s);
	struct mm *mm = p->zombie ? NULL : p->mm;
	u64 tty = tty_of(p), pend = (t ? t->sigpending : 0) | p->sigpending;
	u64 ut = t ? t->utime_us : p->utime_us;
	pf(b, "%d (%s) %c %d %d %d %lu %d %u 0 0 0 0 %lu 0 %lu 0 20 0 %d 0 %lu %lu %lu %lu ",
	   t ? t->tid_linux : p->pid, p->comm, state_of(p, t), p->ppid, p->pgid, p->sid,
	   (unsigned long)tty, tty ? tty_fg_pgrp() : -1, 0x400000u, ticks(ut), ticks(p->cutime_us),
	   p->nthreads, ticks(p->start_time), s.size, rss_pages(p), p->rlim[5][0]);
	pf(b, "%lu %lu %lu 0 0 %lu %lu %lu %lu 0 0 0 17 0 0 0 0 0 0 ",
	   mm ? s.start_code : 0, mm ? s.end_code : 0, mm ? mm->start_stack : 0, pend & 0x7fffffff,
	   (c->t ? c->t->sigmask : 0) & 0x7fffffff, sig_ignored(p, false) & 0x7fffffff,
	   sig_ignored(p, true) & 0x7fffffff);
	pf(b, "%lu %lu %lu %lu %lu %lu %lu %d\n", 0UL, 0UL, mm ? mm->brk_start : 0,
	   mm ? mm->arg_start : 0, mm ? mm->arg_end : 0, mm ? mm->env_start : 0,
	   mm ? mm->env_end : 0, p->zombie ? p->exit_status : 0);
	return 0;
}

static int show_statm(struct pbuf *b, struct pctx *c)
{
	struct vmsum s;
	vm_sum(c->p, &s);
	pf(b, "%lu %lu 0 %lu 0 %lu 0\n", s.size / LX_PAGE_SIZE, rss_pages(c->p),
	   s.exe / LX_PAGE_SIZE, (s.data + s.stack) / LX_PAGE_SIZE);
	return 0;
}

/* The descriptor table's size as Linux's FDSize: the descriptors it has room for now. */
static int fd_size(struct proc *p)
{
	int n = 0;
	for (unsigned i = 0; p->fds && i < LX_NFD / LX_NFD_CHUNK; i++)
		n += p->fds->chunk[i] ? LX_NFD_CHUNK : 0;
	return n;
}

static void status_ids(struct pbuf *b, struct proc *p, struct thread *t)
{
	pf(b, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", p->pid,
	   t ? t->tid_linux : p->pid, p->ppid);
	pf(b, "Uid:\t%u\t%u\t%u\t%u\n", p->cred.uid, p->cred.euid, p->cred.suid, p->cred.fsuid);
	pf(b, "Gid:\t%u\t%u\t%u\t%u\n", p->cred.gid, p->cred.egid, p->cred.sgid, p->cred.fsgid);
	pf(b, "FDSize:\t%d\nGroups:\t", fd_size(p));
	const struct group_info *g = p->cred.groups;
	for (u32 i = 0; g && i < g->n; i++)
		pf(b, i ? " %u" : "%u", g->gid[i]);
	pf(b, " \nNStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n",      /* Linux's trailing space */
	   p->pid, t ? t->tid_linux : p->pid, p->pgid, p->sid);
}

static void status_vm(struct pbuf *b, struct proc *p)
{
	struct vmsum s;
	vm_sum(p, &s);
	u64 rss = rss_pages(p) * (LX_PAGE_SIZE >> 10);
	pf(b, "VmPeak:\t%8lu kB\nVmSize:\t%8lu kB\nVmLck:\t%8lu kB\nVmPin:\t%8lu kB\n", s.size >> 10,
	   s.size >> 10, 0UL, 0UL);
	pf(b, "VmHWM:\t%8lu kB\nVmRSS:\t%8lu kB\nRssAnon:\t%8lu kB\nRssFile:\t%8lu kB\n"
	   "RssShmem:\t%8lu kB\n", rss, rss, rss, 0UL, 0UL);
	pf(b, "VmData:\t%8lu kB\nVmStk:\t%8lu kB\nVmExe:\t%8lu kB\nVmLib:\t%8lu kB\n"
	   "VmPTE:\t%8lu kB\nVmSwap:\t%8lu kB\n", s.data >> 10, s.stack >> 10, s.exe >> 10,
	   s.lib >> 10, 0UL, 0UL);
	pf(b, "HugetlbPages:\t%8lu kB\nCoreDumping:\t0\nTHP_enabled:\t0\n", 0UL);
}

static int bits(u64 m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

static int show_status(struct pbuf *b, struct pctx *c)
{
	struct proc *p = c->p;
	struct thread *t = c->k->tid ? c->t : NULL, *any = c->t;
	pf(b, "Name:\t%s\nUmask:\t%04o\nState:\t%s\n", p->comm, p->umask,
	   state_name(state_of(p, t)));
	status_ids(b, p, t);
	if (!p->zombie)
		status_vm(b, p);
	u64 pend = (any ? any->sigpending : 0), shared = p->sigpending;
	pf(b, "Threads:\t%d\nSigQ:\t%d/%lu\n", p->nthreads, bits(pend) + bits(shared),
	   p->rlim[11][0]);
	pf(b, "SigPnd:\t%016lx\nShdPnd:\t%016lx\nSigBlk:\t%016lx\nSigIgn:\t%016lx\nSigCgt:\t%016lx\n",
	   pend, shared, any ? any->sigmask : 0, sig_ignored(p, false), sig_ignored(p, true));
	pf(b, "CapInh:\t%016lx\nCapPrm:\t%016lx\nCapEff:\t%016lx\nCapBnd:\t%016lx\n"
	   "CapAmb:\t%016lx\n", 0UL, 0x1ffffffffffUL, 0x1ffffffffffUL, 0x1ffffffffffUL, 0UL);
	pf(b, "NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\nCpus_allowed:\t1\n"
	   "Cpus_allowed_list:\t0\nMems_allowed:\t1\nMems_allowed_list:\t0\n"
	   "voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n");
	return 0;
}

static int show_cmdline(struct pbuf *b, struct pctx *c)
{
	if (c->p->cmdline && !c->p->zombie)
		put_bytes(b, c->p->cmdline, c->p->cmdline_len);
	return 0;
}

static int show_comm(struct pbuf *b, struct pctx *c)
{
	pf(b, "%s\n", c->p->comm);
	return 0;
}

/* A new name, as prctl(PR_SET_NAME): the first 15 bytes, a newline kept as Linux keeps it. */
static long write_comm(struct pctx *c, const char *buf, size_t n)
{
	memset(c->p->comm, 0, sizeof(c->p->comm));
	memcpy(c->p->comm, buf, n < 15 ? n : 15);
	return (long)n;
}

/* The environment as exec left it on the stack (the process may have changed it since). */
static int show_environ(struct pbuf *b, struct pctx *c)
{
	struct mm *mm = c->p->zombie ? NULL : c->p->mm;
	char chunk[256];
	for (u64 at = mm ? mm->env_start : 0; mm && at < mm->env_end;) {
		size_t n = mm->env_end - at < sizeof(chunk) ? mm->env_end - at : sizeof(chunk);
		n = copyin_part(c->p, chunk, at, n);
		if (!n)
			break;
		put_bytes(b, chunk, n);
		at += n;
	}
	return 0;
}

/* The name column: the file mapped, [heap] or [stack], from column 73 as Linux pads it. */
static void map_name(struct pbuf *b, struct vma *v, char *path)
{
	long n = 0;
	if (v->named)
		n = file_link_name(v->named, path, LX_PAGE_SIZE);
	else if (v->prot & VM_HEAP)
		n = snfmt(path, 16, "[heap]");
	else if (v->prot & VM_STACK)
		n = snfmt(path, 16, "[stack]");
	else if (v->prot & (VM_VDSO | VM_VVAR))
		n = snfmt(path, 16, (v->prot & VM_VDSO) ? "[vdso]" : "[vvar]");
	if (n <= 0)
		return;
	for (u64 col = b->total - b->line; col < 73; col++)
		put_char(' ', b);
	put_bytes(b, path, (size_t)n);
}

static int show_maps(struct pbuf *b, struct pctx *c)
{
	char *path = page_alloc();
	if (!path)
		return -LX_ENOMEM;
	for (struct vma *v = c->p->mm && !c->p->zombie ? c->p->mm->vmas : NULL; v; v = v->next) {
		if (v->prot & VM_FAST)
			continue;
		b->line = b->total;
		pf(b, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ", v->start, v->end,
		   (v->prot & VM_READ) ? 'r' : '-', (v->prot & VM_WRITE) ? 'w' : '-',
		   (v->prot & VM_EXEC) ? 'x' : '-', (v->prot & VM_SHARED) ? 's' : 'p',
		   v->file ? v->off : 0, 0, v->file ? (unsigned)v->file->sb->dev : 0,
		   v->file ? (unsigned long)v->file->ino : 0UL);
		map_name(b, v, path);
		pf(b, "\n");
	}
	page_free(path);
	return 0;
}

static int show_limits(struct pbuf *b, struct pctx *c)
{
	static const char *const names[16][2] = {
		{ "Max cpu time", "seconds" }, { "Max file size", "bytes" },
		{ "Max data size", "bytes" }, { "Max stack size", "bytes" },
		{ "Max core file size", "bytes" }, { "Max resident set", "bytes" },
		{ "Max processes", "processes" }, { "Max open files", "files" },
		{ "Max locked memory", "bytes" }, { "Max address space", "bytes" },
		{ "Max file locks", "locks" }, { "Max pending signals", "signals" },
		{ "Max msgqueue size", "bytes" }, { "Max nice priority", "" },
		{ "Max realtime priority", "" }, { "Max realtime timeout", "us" },
	};
	pf(b, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units");
	for (int r = 0; r < 16; r++) {
		char v[2][24];
		for (int i = 0; i < 2; i++)
			if (c->p->rlim[r][i] == LX_RLIM_INFINITY)
				snfmt(v[i], sizeof(v[i]), "unlimited");
			else
				snfmt(v[i], sizeof(v[i]), "%lu", c->p->rlim[r][i]);
		pf(b, "%-25s %-20s %-20s %-10s\n", names[r][0], v[0], v[1], names[r][1]);
	}
	return 0;
}

static int show_zero(struct pbuf *b, struct pctx *c)
{
	(void)c;
	pf(b, "0\n");
	return 0;
}

/* lx's OOM killer chooses by resident pages (proc/proc.c): their share of memory, in thousandths. */
static int show_oom_score(struct pbuf *b, struct pctx *c)
{
	u64 total = pool_total_bytes() / LX_PAGE_SIZE;
	pf(b, "%lu\n", total ? rss_pages(c->p) * 1000 / total : 0);
	return 0;
}

static int show_loginuid(struct pbuf *b, struct pctx *c)
{
	(void)c;
	pf(b, "4294967295");                    /* no login session: (uid_t)-1, no newline */
	return 0;
}

static int show_fdinfo(struct pbuf *b, struct pctx *c)
{
	struct file *f = fd_get(c->p, c->k->fd);
	struct lx_stat st;
	file_stat(f, &st);
	u32 flags = f->flags | (fd_cloexec(c->p, c->k->fd) ? LX_O_CLOEXEC : 0);
	pf(b, "pos:\t%lu\nflags:\t0%o\nmnt_id:\t%lu\nino:\t%lu\n", f->pos, flags,
	   (unsigned long)st.st_dev, (unsigned long)st.st_ino);
	return 0;
}

/* --- mounts --- */

/* Linux's names for lx's file-system types, and the source mounts shows. */
static void mount_names(struct super *sb, const char **type, const char **source)
{
	*type = sb->type;
	*source = sb->type;
	if (!strcmp(sb->type, "devfs"))
		*type = *source = "devtmpfs";
	else if (!strcmp(sb->type, "ramfs") && !sb->covered)
		*type = *source = "rootfs";
	else if (!strcmp(sb->type, "ext2"))
		*source = "/dev/root";
	if (sb->source[0])
		*source = sb->source;   /* mount(2)'s, as given */
}

static void append(char *buf, const char *s)
{
	memcpy(buf + strlen(buf), s, strlen(s) + 1);
}

/* The options mount(2) recorded (syscall/sys_mount.c keeps MS_* in sb->mflags). */
static void mount_opts(const struct super *sb, char *buf)
{
	static const struct { u64 bit; const char *name; } opts[] = {
		{ 0x2, ",nosuid" }, { 0x4, ",nodev" }, { 0x8, ",noexec" }, { 0x10, ",sync" },
		{ 0x80, ",dirsync" }, { 0x100, ",nosymfollow" }, { 0x400, ",noatime" },
		{ 0x800, ",nodiratime" },
	};
	memcpy(buf, "rw", 3);
	for (unsigned i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (sb->mflags & opts[i].bit)
			append(buf, opts[i].name);
	if (!(sb->mflags & 0x400))
		append(buf, ",relatime");
}

static int show_mounts(struct pbuf *b, struct pctx *c, bool info)
{
	(void)c;
	char *path = page_alloc();
	if (!path)
		return -LX_ENOMEM;
	struct super *sb;
	for (int i = 0; (sb = vfs_mount_nth(i)); i++) {
		const char *type, *source;
		mount_names(sb, &type, &source);
		long n = sb->covered ? fs_path(sb->covered, path, LX_PAGE_SIZE) : 1;
		if (n < 0)
			continue;
		if (!sb->covered)
			memcpy(path, "/", 2);
		char opts[96];
		mount_opts(sb, opts);
		if (info)
			pf(b, "%d %d 0:%lu / %s %s - %s %s rw\n", i + 1,
			   sb->covered ? vfs_mount_index(sb->covered->sb) + 1 : 1,
			   (unsigned long)sb->dev, path, opts, type, source);
		else
			pf(b, "%s %s %s %s 0 0\n", source, path, type, opts);
	}
	page_free(path);
	return 0;
}

static int show_mounts_list(struct pbuf *b, struct pctx *c)
{
	return show_mounts(b, c, false);
}

static int show_mountinfo(struct pbuf *b, struct pctx *c)
{
	return show_mounts(b, c, true);
}

/* --- the system's files --- */

static void cpuid(u32 leaf, u32 r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

/* CPUID's identification of this processor (all are the same model), once. */
struct cpu_ident { u32 vendor[4], brand[13], family, model, stepping, ecx; };

static void cpu_ident(struct cpu_ident *id)
{
	u32 r[4];
	*id = (struct cpu_ident){ 0 };
	cpuid(0, r);
	id->vendor[0] = r[1], id->vendor[1] = r[3], id->vendor[2] = r[2];
	cpuid(0x80000000, r);
	for (u32 i = 0; r[0] >= 0x80000004 && i < 3; i++)
		cpuid(0x80000002 + i, &id->brand[i * 4]);
	cpuid(1, r);
	id->family = (r[0] >> 8 & 0xf) + ((r[0] >> 8 & 0xf) == 0xf ? (r[0] >> 20 & 0xff) : 0);
	id->model = (r[0] >> 4 & 0xf) | ((r[0] >> 8 & 0xf) >= 6 ? (r[0] >> 12 & 0xf0) : 0);
	id->stepping = r[0] & 0xf;
	id->ecx = r[2];
}

/* One entry per processor the kernel lists (proc/cpu.c), each a core of one package. */
static int show_cpuinfo(struct pbuf *b, struct pctx *c)
{
	(void)c;
	struct cpu_ident id;
	cpu_ident(&id);
	const char *name = (const char *)id.brand;
	while (*name == ' ')
		name++;
	for (unsigned i = 0, n = cpu_count(); i < n; i++) {
		pf(b, "processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		   "model name\t: %s\nstepping\t: %u\n", i, (const char *)id.vendor, id.family,
		   id.model, name, id.stepping);
		pf(b, "physical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\ncpu cores\t: %u\n"
		   "apicid\t\t: %u\nfpu\t\t: yes\nfpu_exception\t: yes\nwp\t\t: yes\n", n, i, n, i);
		pf(b, "flags\t\t: fpu tsc cx8 cmov fxsr sse sse2 syscall nx lm%s%s%s\n",
		   (id.ecx & 1) ? " pni" : "", (id.ecx >> 19 & 1) ? " sse4_1" : "",
		   (id.ecx >> 20 & 1) ? " sse4_2" : "");
		pf(b, "clflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: 48 bits physical, "
		   "48 bits virtual\npower management:\n\n");
	}
	return 0;
}

static int show_meminfo(struct pbuf *b, struct pctx *c)
{
	(void)c;
	u64 total = pool_total_bytes() >> 10, free = (page_free_count() * LX_PAGE_SIZE) >> 10;
	pf(b, "MemTotal:       %8lu kB\nMemFree:        %8lu kB\nMemAvailable:   %8lu kB\n"
	   "Buffers:        %8lu kB\nCached:         %8lu kB\nSwapCached:     %8lu kB\n",
	   total, free, free, 0UL, 0UL, 0UL);
	pf(b, "Active:         %8lu kB\nInactive:       %8lu kB\nSwapTotal:      %8lu kB\n"
	   "SwapFree:       %8lu kB\nShmem:          %8lu kB\nSlab:           %8lu kB\n"
	   "SReclaimable:   %8lu kB\nSUnreclaim:     %8lu kB\n",
	   total - free, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL);
	pf(b, "PecanKernelPoolFree: %8lu kB\n", lx_kip_word(KIP_OFF_KMEM_FREE) >> 10);
	return 0;
}

/* Pages by use, as vmstat(8) reads them; lx counts no page-ins, swaps or faults. */
static int show_vmstat(struct pbuf *b, struct pctx *c)
{
	(void)c;
	u64 free = page_free_count(), used = pool_total_bytes() / LX_PAGE_SIZE - free;
	pf(b, "nr_free_pages %lu\nnr_inactive_anon 0\nnr_active_anon %lu\nnr_inactive_file 0\n"
	   "nr_active_file 0\nnr_unevictable 0\nnr_mlock 0\nnr_anon_pages %lu\nnr_mapped 0\n"
	   "nr_file_pages 0\nnr_dirty 0\nnr_writeback 0\nnr_shmem 0\n", free, used, used);
	pf(b, "pgpgin 0\npgpgout 0\npswpin 0\npswpout 0\npgfault 0\npgmajfault 0\n");
	return 0;
}

/* Hundredths of a second as Linux prints them: "12.34". */
static void centi(struct pbuf *b, u64 us)
{
	pf(b, "%lu.%02lu", us / 1000000, (us / 10000) % 100);
}

static int show_uptime(struct pbuf *b, struct pctx *c)
{
	(void)c;
	u64 up = lx_now_us(), busy = cpu_user_us();
	centi(b, up);
	pf(b, " ");
	centi(b, up > busy ? up - busy : 0);
	pf(b, "\n");
	return 0;
}

static int running_procs(void)
{
	int n = 0;
	for (struct proc *p = procs; p; p = p->next_all)
		n += state_of(p, NULL) == 'R';
	return n;
}

static int show_loadavg(struct pbuf *b, struct pctx *c)
{
	(void)c;
	u64 load[3];
	int threads = 0;
	cpu_load(load);
	for (int i = 0; i < 3; i++)
		pf(b, "%lu.%02lu ", load[i] / 100, load[i] % 100);
	for (struct proc *p = procs; p; p = p->next_all)
		threads += p->zombie ? 0 : p->nthreads;
	pf(b, "%d/%d %d\n", running_procs(), threads, procs ? procs->pid : 0);
	return 0;
}

static int show_stat_sys(struct pbuf *b, struct pctx *c)
{
	(void)c;
	u64 up = ticks(lx_now_us()), user = ticks(cpu_user_us()), idle = up > user ? up - user : 0;
	for (int i = 0; i < 2; i++)
		pf(b, "cpu%s %lu 0 0 %lu 0 0 0 0 0 0\n", i ? "0" : " ", user, idle);
	pf(b, "intr 0\nctxt 0\nbtime %lu\nprocesses %lu\nprocs_running %d\nprocs_blocked 0\n"
	   "softirq 0 0 0 0 0 0 0 0 0 0 0\n", LX_EPOCH_AT_BOOT, procs_created, running_procs());
	return 0;
}

static int show_filesystems(struct pbuf *b, struct pctx *c)
{
	(void)c;
	pf(b, "nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\tdevtmpfs\nnodev\tramfs\n"
	   "nodev\tpipefs\n\text2\n");
	return 0;
}

static int show_version(struct pbuf *b, struct pctx *c)
{
	(void)c;
	pf(b, "Linux version %s (lx@%s) (Pecan lx) %s\n", LX_UTS_RELEASE, LX_UTS_NODENAME,
	   LX_UTS_VERSION);
	return 0;
}

/* The kernel's fixed sysctls, as uname(2) names lx (syscall/sys_misc.c). */
static int show_kernel(struct pbuf *b, struct pctx *c)
{
	switch (c->k->ent) {
	case E_PIDMAX: pf(b, "%d\n", PID_MAX); break;
	case E_OSTYPE: pf(b, "Linux\n"); break;
	case E_OSRELEASE: pf(b, "%s\n", LX_UTS_RELEASE); break;
	case E_HOSTNAME: pf(b, "%s\n", lx_hostname); break;
	default: pf(b, "core\n"); break;                   /* core_pattern */
	}
	return 0;
}

/* System V limits as syscall/sys_ipc.c applies them (ipc_limits). */
static int show_ipc_limit(struct pbuf *b, struct pctx *c)
{
	u64 lim[3];
	ipc_limits(lim);
	pf(b, "%lu\n", lim[c->k->ent - E_SHMMAX]);
	return 0;
}

/* Numeric sysctls: lx's limits, or Linux's constants where lx has none. */
static int show_number(struct pbuf *b, struct pctx *c)
{
	switch (c->k->ent) {
	case E_CAP_LAST: pf(b, "40\n"); break;                 /* CapPrm's 41 bits */
	case E_THREADS_MAX: pf(b, "%d\n", LX_MAX_THREADS); break;
	case E_ENTROPY: pf(b, "256\n"); break;                  /* Linux 5.18 on: always full */
	case E_FILE_MAX: pf(b, "9223372036854775807\n"); break;  /* no limit but memory */
	default: pf(b, "%d\n", LX_NFD); break;                  /* nr_open: a table's size */
	}
	return 0;
}

/* A version 4 UUID: a new one each read (uuid), or one for the boot (boot_id). */
static int show_uuid(struct pbuf *b, struct pctx *c)
{
	static uint8_t boot[16];
	static bool have_boot;
	uint8_t u[16];
	bool fixed = c->k->ent == E_BOOT_ID;
	if (!fixed || !have_boot) {
		lx_random(u, sizeof(u));
		u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
		u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
		if (fixed)
			memcpy(boot, u, 16), have_boot = true;
	}
	if (fixed)
		memcpy(u, boot, 16);
	for (int i = 0; i < 16; i++)
		pf(b, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
	pf(b, "\n");
	return 0;
}

static int show_overcommit(struct pbuf *b, struct pctx *c)
{
	(void)c;
	pf(b, "2\n");                   /* lx never overcommits (docs/lx.md, "Commit accounting") */
	return 0;
}

static void put_line(void *arg, const char *line)
{
	put_bytes(arg, line, strlen(line));
}

static int show_sysvipc(struct pbuf *b, struct pctx *c)
{
	ipc_proc_lines(c->k->ent - E_IPC_SHM, put_line, b);
	return 0;
}

/* /proc/net/{tcp,tcp6,udp,udp6,dev}: the sockets' tables (net/inet.c's net_proc_read) */
static int show_net(struct pbuf *b, struct pctx *c)
{
	static char text[16384];
	long n = net_proc_read(ents[c->k->ent].name, text, sizeof(text));
	if (n < 0)
		return (int)n;
	put_bytes(b, text, (size_t)n);
	return 0;
}

/* --- /sys --- */

/* /sys/devices/system/cpu/{online,possible}: the processors the kernel lists. */
static int show_cpus(struct pbuf *b, struct pctx *c)
{
	(void)c;
	if (cpu_count() > 1)
		pf(b, "0-%u\n", cpu_count() - 1);
	else
		pf(b, "0\n");
	return 0;
}

static const struct pent ents[E_COUNT] = {
	[E_ROOT] = { "", E_NONE, DIR, NULL, NULL },
	[E_SELF] = { "self", E_ROOT, LNK, show_self, NULL },
	[E_THREAD_SELF] = { "thread-self", E_ROOT, LNK, show_self, NULL },
	[E_CPUINFO] = { "cpuinfo", E_ROOT, REG, show_cpuinfo, NULL },
	[E_MEMINFO] = { "meminfo", E_ROOT, REG, show_meminfo, NULL },
	[E_STAT] = { "stat", E_ROOT, REG, show_stat_sys, NULL },
	[E_UPTIME] = { "uptime", E_ROOT, REG, show_uptime, NULL },
	[E_LOADAVG] = { "loadavg", E_ROOT, REG, show_loadavg, NULL },
	[E_VMSTAT] = { "vmstat", E_ROOT, REG, show_vmstat, NULL },
	[E_MOUNTS] = { "mounts", E_ROOT, REG, show_mounts_list, NULL },
	[E_FILESYSTEMS] = { "filesystems", E_ROOT, REG, show_filesystems, NULL },
	[E_VERSION] = { "version", E_ROOT, REG, show_version, NULL },
	[E_SYS] = { "sys", E_ROOT, DIR, NULL, NULL },
	[E_KERNEL] = { "kernel", E_SYS, DIR, NULL, NULL },
	[E_PIDMAX] = { "pid_max", E_KERNEL, REG, show_kernel, NULL },
	[E_OSTYPE] = { "ostype", E_KERNEL, REG, show_kernel, NULL },
	[E_OSRELEASE] = { "osrelease", E_KERNEL, REG, show_kernel, NULL },
	[E_HOSTNAME] = { "hostname", E_KERNEL, REG, show_kernel, NULL },
	[E_CORE] = { "core_pattern", E_KERNEL, REG, show_kernel, NULL },
	[E_SHMMAX] = { "shmmax", E_KERNEL, REG, show_ipc_limit, NULL },
	[E_SHMALL] = { "shmall", E_KERNEL, REG, show_ipc_limit, NULL },
	[E_SHMMNI] = { "shmmni", E_KERNEL, REG, show_ipc_limit, NULL },
	[E_CAP_LAST] = { "cap_last_cap", E_KERNEL, REG, show_number, NULL },
	[E_THREADS_MAX] = { "threads-max", E_KERNEL, REG, show_number, NULL },
	[E_RANDOM] = { "random", E_KERNEL, DIR, NULL, NULL },
	[E_UUID] = { "uuid", E_RANDOM, REG, show_uuid, NULL },
	[E_BOOT_ID] = { "boot_id", E_RANDOM, REG, show_uuid, NULL },
	[E_ENTROPY] = { "entropy_avail", E_RANDOM, REG, show_number, NULL },
	[E_FS] = { "fs", E_SYS, DIR, NULL, NULL },
	[E_FILE_MAX] = { "file-max", E_FS, REG, show_number, NULL },
	[E_NR_OPEN] = { "nr_open", E_FS, REG, show_number, NULL },
	[E_VM] = { "vm", E_SYS, DIR, NULL, NULL },
	[E_OVERCOMMIT] = { "overcommit_memory", E_VM, REG, show_overcommit, NULL },
	[E_SYSVIPC] = { "sysvipc", E_ROOT, DIR, NULL, NULL },
	[E_IPC_SHM] = { "shm", E_SYSVIPC, REG, show_sysvipc, NULL },
	[E_IPC_SEM] = { "sem", E_SYSVIPC, REG, show_sysvipc, NULL },
	[E_IPC_MSG] = { "msg", E_SYSVIPC, REG, show_sysvipc, NULL },
	[E_NET] = { "net", E_ROOT, DIR, NULL, NULL },
	[E_NET_TCP] = { "tcp", E_NET, REG, show_net, NULL },
	[E_NET_TCP6] = { "tcp6", E_NET, REG, show_net, NULL },
	[E_NET_UDP] = { "udp", E_NET, REG, show_net, NULL },
	[E_NET_UDP6] = { "udp6", E_NET, REG, show_net, NULL },
	[E_NET_DEV] = { "dev", E_NET, REG, show_net, NULL },
	[E_PID] = { NULL, E_ROOT, DIR, NULL, NULL },
	[E_P_STAT] = { "stat", E_PID, REG, show_stat, NULL },
	[E_P_STATM] = { "statm", E_PID, REG, show_statm, NULL },
	[E_P_STATUS] = { "status", E_PID, REG, show_status, NULL },
	[E_P_CMDLINE] = { "cmdline", E_PID, REG, show_cmdline, NULL },
	[E_P_COMM] = { "comm", E_PID, RW, show_comm, write_comm },
	[E_P_MAPS] = { "maps", E_PID, REG, show_maps, NULL },
	[E_P_ENVIRON] = { "environ", E_PID, REG, show_environ, NULL },
	[E_P_EXE] = { "exe", E_PID, LNK, show_link, NULL },
	[E_P_CWD] = { "cwd", E_PID, LNK, show_link, NULL },
	[E_P_ROOT] = { "root", E_PID, LNK, show_link, NULL },
	[E_P_FD] = { "fd", E_PID, DIR, NULL, NULL },
	[E_P_FDINFO] = { "fdinfo", E_PID, DIR, NULL, NULL },
	[E_P_TASK] = { "task", E_PID, DIR, NULL, NULL },
	[E_P_MOUNTS] = { "mounts", E_PID, REG, show_mounts_list, NULL },
	[E_P_MOUNTINFO] = { "mountinfo", E_PID, REG, show_mountinfo, NULL },
	[E_P_LIMITS] = { "limits", E_PID, REG, show_limits, NULL },
	[E_P_OOM_ADJ] = { "oom_score_adj", E_PID, REG, show_zero, NULL },
	[E_P_OOM_SCORE] = { "oom_score", E_PID, REG, show_oom_score, NULL },
	[E_P_LOGINUID] = { "loginuid", E_PID, REG, show_loginuid, NULL },
	[E_FDLINK] = { NULL, E_P_FD, LNK, show_link, NULL },
	[E_FDINFO_N] = { NULL, E_P_FDINFO, REG, show_fdinfo, NULL },
	[E_TID] = { NULL, E_P_TASK, DIR, NULL, NULL },
	[E_SYSFS] = { "", E_NONE, DIR, NULL, NULL },
	[E_DEVICES] = { "devices", E_SYSFS, DIR, NULL, NULL },
	[E_SYSTEM] = { "system", E_DEVICES, DIR, NULL, NULL },
	[E_CPU] = { "cpu", E_SYSTEM, DIR, NULL, NULL },
	[E_CPU_ONLINE] = { "online", E_CPU, REG, show_cpus, NULL },
	[E_CPU_POSSIBLE] = { "possible", E_CPU, REG, show_cpus, NULL },
	[E_CPU_PRESENT] = { "present", E_CPU, REG, show_cpus, NULL },
};

static const struct fs_ops proc_ops = {
	.lookup = proc_lookup, .readlink = proc_readlink, .read = proc_read, .write = proc_write,
	.truncate = proc_truncate, .getdents = proc_getdents, .evict = proc_evict,
	.kill = proc_kill, .jump = proc_jump, .open = proc_open,
};

static struct super *generated_new(const char *type, int root)
{
	struct super *sb = vfs_super_new(&proc_ops, type);
	struct pkey k = { .ent = (uint16_t)root };
	if (sb && node_new(sb, &k, &sb->root)) {
		lx_free(sb);
		return NULL;
	}
	return sb;
}

struct super *procfs_new(void)
{
	return generated_new("proc", E_ROOT);
}

struct super *sysfs_new(void)
{
	return generated_new("sysfs", E_SYSFS);
}
