// SPDX-License-Identifier: MIT
// System V shared memory, semaphores and message queues.  A shared-memory segment is an
// unnamed file (fs_new_unnamed) that shmat maps MAP_SHARED, so attaching,
// fork, exit and exec follow the mapping rules of mm/vm.c; the table holds
// one reference until IPC_RMID, every attached area one more, and the
// segment goes with the last.  A semaphore set is an array of values; a
// semop that cannot run whole waits on the set and runs again from the
// start, so nothing is applied until everything can be.  A message queue
// is a list of messages; a send that finds it full and a receive that finds
// nothing it wants wait on the queue.  None of these calls is restarted
// after a signal handler, as on Linux: a signal ends the wait with EINTR.
#include "syscall.h"
#include "../../../lib/c/string.h"
#include "../../../lib/fmt/fmt.h"

#define LX_IPC_PRIVATE 0
#define LX_IPC_CREAT   01000
#define LX_IPC_EXCL    02000
#define LX_IPC_NOWAIT  04000
#define LX_IPC_RMID    0
#define LX_IPC_SET     1
#define LX_IPC_STAT    2
#define LX_IPC_64      0x100
#define LX_SHM_RDONLY  010000
#define LX_SHM_RND     020000
#define LX_SEM_UNDO    0x1000
#define LX_GETPID  11
#define LX_GETVAL  12
#define LX_GETALL  13
#define LX_GETNCNT 14
#define LX_GETZCNT 15
#define LX_SETVAL  16
#define LX_SETALL  17
#define LX_EIDRM   43
#define LX_ENOMSG  42
#define LX_MSG_NOERROR 010000
#define LX_MSG_EXCEPT  020000
#define LX_MSG_COPY    040000
#define MSG_MAX    8192                 /* Linux's MSGMAX: the largest message */
#define MSG_MNB    16384                /* Linux's MSGMNB: a queue's default capacity */

#define IPC_SLOTS  256                  /* segments, and semaphore sets */
#define SEQ_MUL    32768                /* Linux's: id = slot + seq * 32768 */
#define SHM_MAX    (1UL << 30)
#define SEM_NSEMS  250                  /* Linux's SEMMSL */
#define SEM_NOPS   500                  /* Linux's SEMOPM */
#define SEM_VMAX   32767

/* Linux's struct ipc64_perm (x86-64) */
struct ipc_perm_k {
	int32_t key;
	u32 uid, gid, cuid, cgid, mode;
	uint16_t seq, pad;
	u64 unused[2];
};

struct ipc_obj {
	bool used;
	int32_t key;
	u32 mode;
	uint16_t seq;
	int cpid;
	int64_t ctime;
};

static int64_t now_s(void)
{
	return (int64_t)(LX_EPOCH_AT_BOOT + lx_now_us() / 1000000);
}

static void perm_out(const struct ipc_obj *o, struct ipc_perm_k *p)
{
	memset(p, 0, sizeof(*p));
	p->key = o->key;
	p->mode = o->mode & 0777;
	p->seq = o->seq;
}

/* The slot of a key, or of a free place (-ENOSPC) when absent: *found says which. */
static int find_key(struct ipc_obj *(*at)(int), int32_t key, bool *found)
{
	int free = -1;
	*found = false;
	for (int i = 0; i < IPC_SLOTS; i++) {
		struct ipc_obj *o = at(i);
		if (o->used && key != LX_IPC_PRIVATE && o->key == key) {
			*found = true;
			return i;
		}
		if (!o->used && free < 0)
			free = i;
	}
	return free < 0 ? -LX_ENOSPC : free;
}

/* The slot an id names, or -EINVAL. */
static int slot_of(struct ipc_obj *(*at)(int), u64 id)
{
	int64_t i = (int64_t)(int)id;
	if (i < 0 || i % SEQ_MUL >= IPC_SLOTS)
		return -LX_EINVAL;
	struct ipc_obj *o = at((int)(i % SEQ_MUL));
	return o->used && o->seq == i / SEQ_MUL ? (int)(i % SEQ_MUL) : -LX_EINVAL;
}

/* shmget/semget's rules: a new object (*fresh), an existing one, or -errno. */
static int get_slot(struct ipc_obj *(*at)(int), u64 key, u64 flags, bool *fresh)
{
	bool found;
	int s = find_key(at, (int32_t)key, &found);
	*fresh = !found;
	if (found)
		return (flags & LX_IPC_CREAT) && (flags & LX_IPC_EXCL) ? -LX_EEXIST : s;
	if (key != LX_IPC_PRIVATE && !(flags & LX_IPC_CREAT))
		return -LX_ENOENT;
	return s;
}

static void obj_init(struct ipc_obj *o, u64 key, u64 flags, struct thread *t)
{
	uint16_t seq = (uint16_t)(o->seq + 1);
	memset(o, 0, sizeof(*o));
	o->used = true;
	o->key = (int32_t)key;
	o->mode = (u32)flags & 0777;
	o->seq = seq % (0x7fffffff / SEQ_MUL);
	o->cpid = t->proc->pid;
	o->ctime = now_s();
}

/* Wait on obj (or fail at once with EAGAIN); a signal ends the wait with EINTR, never a restart. */
static long ipc_wait(struct thread *t, void *obj, bool nowait, u64 deadline)
{
	if (nowait || t->timed_out)
		return -LX_EAGAIN;
	if (signal_pending(t))
		return -LX_EINTR;
	block_on(t, obj, deadline);
	return SYS_BLOCK;
}

/* --- shared memory --- */

struct shm {
	struct ipc_obj obj;
	struct inode *ip;               /* the data; NULL once removed (the segment may live on) */
	u64 size;
	int lpid;
	int64_t atime, dtime;
};

static struct shm shms[IPC_SLOTS];

static struct ipc_obj *shm_at(int i) { return &shms[i].obj; }

static const struct inode_ops shm_inode_ops = { 0 };

static bool is_shm(const struct inode *ip)
{
	return ip && ip->ops == &shm_inode_ops;
}

long sys_shmget(struct thread *t, u64 key, u64 size, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	bool fresh;
	int s = get_slot(shm_at, key, flags, &fresh);
	if (s < 0)
		return s;
	struct shm *m = &shms[s];
	if (!fresh)
		return size > m->size ? -LX_EINVAL : m->obj.seq * SEQ_MUL + s;
	if (size < 1 || size > SHM_MAX)
		return -LX_EINVAL;
	struct inode *ip = fs_new_unnamed((u32)flags & 0777);
	if (!ip)
		return -LX_ENOMEM;
	if (fs_truncate(ip, size) < 0) {
		fs_put(ip);
		return -LX_ENOMEM;
	}
	ip->ops = &shm_inode_ops;
	obj_init(&m->obj, key, flags, t);
	m->ip = ip;
	m->size = size;
	m->lpid = 0;
	m->atime = m->dtime = 0;
	return m->obj.seq * SEQ_MUL + s;
}

long sys_shmat(struct thread *t, u64 id, u64 addr, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	int s = slot_of(shm_at, id);
	if (s < 0)
		return s;
	struct shm *m = &shms[s];
	if (flags & LX_SHM_RND)
		addr &= ~(LX_PAGE_SIZE - 1);
	if (addr & (LX_PAGE_SIZE - 1))
		return -LX_EINVAL;
	u32 prot = (flags & LX_SHM_RDONLY) ? 1 : 3;
	u32 map = 1 /* MAP_SHARED */ | (addr ? 0x10 /* MAP_FIXED */ : 0);
	long r = vm_mmap(t->proc, addr, m->size, prot, map, m->ip, 0, true);
	if (r >= 0) {
		m->lpid = t->proc->pid;
		m->atime = now_s();
	}
	return r;
}

/* The segment whose data ip is (a removed one is no longer in the table). */
static struct shm *shm_of(struct inode *ip)
{
	for (int i = 0; i < IPC_SLOTS; i++)
		if (shms[i].obj.used && shms[i].ip == ip)
			return &shms[i];
	return NULL;
}

long sys_shmdt(struct thread *t, u64 addr, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct inode *ip = vm_file_at(t->proc, addr);
	if (!is_shm(ip))
		return -LX_EINVAL;
	struct shm *m = shm_of(ip);
	if (m) {
		m->lpid = t->proc->pid;
		m->dtime = now_s();
	}
	return vm_unmap_file(t->proc, addr, ip->size, ip);
}

/* Linux's struct shmid64_ds (x86-64) */
struct shmid_ds_k {
	struct ipc_perm_k perm;
	u64 segsz;
	int64_t atime, dtime, ctime;
	int32_t cpid, lpid;
	u64 nattch, unused[2];
};

long sys_shmctl(struct thread *t, u64 id, u64 cmd, u64 buf, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	int s = slot_of(shm_at, id);
	if (s < 0)
		return s;
	struct shm *m = &shms[s];
	struct shmid_ds_k ds;
	switch (cmd & ~(u64)LX_IPC_64) {
	case LX_IPC_STAT:
		memset(&ds, 0, sizeof(ds));
		perm_out(&m->obj, &ds.perm);
		ds.segsz = m->size;
		ds.atime = m->atime;
		ds.dtime = m->dtime;
		ds.ctime = m->obj.ctime;
		ds.cpid = m->obj.cpid;
		ds.lpid = m->lpid;
		ds.nattch = m->ip->refs - 1;     /* every attached area holds one; the table one */
		return copyout(t->proc, buf, &ds, sizeof(ds)) ? 0 : -LX_EFAULT;
	case LX_IPC_SET:
		if (!copyin(t->proc, &ds, buf, sizeof(ds)))
			return -LX_EFAULT;
		m->obj.mode = ds.perm.mode & 0777;
		m->obj.ctime = now_s();
		return 0;
	case LX_IPC_RMID:
		fs_put(m->ip);                  /* attached areas keep the data until they go */
		m->ip = NULL;
		m->obj.used = false;
		return 0;
	default:
		return -LX_EINVAL;
	}
}

/* --- semaphores --- */

struct semset {
	struct ipc_obj obj;
	u32 nsems;
	int16_t *val;
	int *pid;                       /* who changed each last (GETPID) */
	int64_t otime;
};

static struct semset sems[IPC_SLOTS];

static struct ipc_obj *sem_at(int i) { return &sems[i].obj; }

static void semset_free(struct semset *s)
{
	lx_free(s->val);
	lx_free(s->pid);
	s->val = NULL;
	s->pid = NULL;
	s->obj.used = false;
	wake(s);                        /* waiters run again and find it gone */
}

long sys_semget(struct thread *t, u64 key, u64 nsems, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	bool fresh;
	int i = get_slot(sem_at, key, flags, &fresh);
	if (i < 0)
		return i;
	struct semset *s = &sems[i];
	if (!fresh)
		return nsems > s->nsems ? -LX_EINVAL : s->obj.seq * SEQ_MUL + i;
	if (nsems < 1 || nsems > SEM_NSEMS)
		return -LX_EINVAL;
	s->val = lx_zalloc(nsems * sizeof(*s->val));
	s->pid = lx_zalloc(nsems * sizeof(*s->pid));
	if (!s->val || !s->pid) {
		lx_free(s->val);
		lx_free(s->pid);
		return -LX_ENOMEM;
	}
	obj_init(&s->obj, key, flags, t);
	s->nsems = (u32)nsems;
	s->otime = 0;
	return s->obj.seq * SEQ_MUL + i;
}

struct lx_sembuf {
	uint16_t num;
	int16_t op, flags;
};

/* Would every operation go through now?  0, -EAGAIN (one must wait), -ERANGE. */
static long sem_try(const struct semset *s, const struct lx_sembuf *ops, u64 n, int16_t *v)
{
	memcpy(v, s->val, s->nsems * sizeof(*v));
	for (u64 i = 0; i < n; i++) {
		int nv = v[ops[i].num] + ops[i].op;
		if (ops[i].op == 0 ? v[ops[i].num] != 0 : nv < 0)
			return -LX_EAGAIN;
		if (nv > SEM_VMAX)
			return -LX_ERANGE;
		v[ops[i].num] = (int16_t)nv;
	}
	return 0;
}

static long do_semop(struct thread *t, u64 id, u64 uops, u64 n, u64 uts)
{
	static struct lx_sembuf ops[SEM_NOPS];
	static int16_t v[SEM_NSEMS];
	if (n < 1)
		return -LX_EINVAL;
	if (n > SEM_NOPS)
		return -LX_E2BIG;
	int i = slot_of(sem_at, id);
	if (i < 0)
		return t->fresh ? i : -LX_EIDRM;  /* removed while this call waited */
	struct semset *s = &sems[i];
	if (!copyin(t->proc, ops, uops, n * sizeof(*ops)))
		return -LX_EFAULT;
	bool nowait = false;
	for (u64 k = 0; k < n; k++) {
		if (ops[k].num >= s->nsems)
			return -LX_EFBIG;
		if (ops[k].flags & LX_SEM_UNDO)
			return -LX_EINVAL;          /* undo on exit is not kept */
		nowait |= (ops[k].flags & LX_IPC_NOWAIT) != 0;
	}
	u64 deadline = 0;
	if (uts) {
		u64 us;
		long r = copyin_timespec_us(t, uts, &us);
		if (r < 0)
			return r;
		if (t->fresh)
			t->call_deadline = lx_now_us() + us + 1;    /* never 0 ("none") */
		deadline = t->call_deadline;
	}
	long r = sem_try(s, ops, n, v);
	if (r == -LX_EAGAIN)
		return ipc_wait(t, s, nowait, deadline);
	if (r < 0)
		return r;
	memcpy(s->val, v, s->nsems * sizeof(*v));
	for (u64 k = 0; k < n; k++)
		s->pid[ops[k].num] = t->proc->pid;
	s->otime = now_s();
	wake(s);
	return 0;
}

long sys_semop(struct thread *t, u64 id, u64 ops, u64 n, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return do_semop(t, id, ops, n, 0);
}

long sys_semtimedop(struct thread *t, u64 id, u64 ops, u64 n, u64 ts, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_semop(t, id, ops, n, ts);
}

/* Linux's struct semid64_ds (x86-64) */
struct semid_ds_k {
	struct ipc_perm_k perm;
	int64_t otime;
	u64 unused1;
	int64_t ctime;
	u64 unused2, nsems, unused3, unused4;
};

static long sem_all(struct thread *t, struct semset *s, u64 arg, bool set)
{
	static uint16_t buf[SEM_NSEMS];
	if (!set) {
		for (u32 k = 0; k < s->nsems; k++)
			buf[k] = (uint16_t)s->val[k];
		return copyout(t->proc, arg, buf, s->nsems * sizeof(*buf)) ? 0 : -LX_EFAULT;
	}
	if (!copyin(t->proc, buf, arg, s->nsems * sizeof(*buf)))
		return -LX_EFAULT;
	for (u32 k = 0; k < s->nsems; k++)
		if (buf[k] > SEM_VMAX)
			return -LX_ERANGE;
	for (u32 k = 0; k < s->nsems; k++) {
		s->val[k] = (int16_t)buf[k];
		s->pid[k] = t->proc->pid;
	}
	wake(s);
	return 0;
}

long sys_semctl(struct thread *t, u64 id, u64 num, u64 cmd, u64 arg, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	int i = slot_of(sem_at, id);
	if (i < 0)
		return i;
	struct semset *s = &sems[i];
	cmd &= ~(u64)LX_IPC_64;
	bool one = cmd == LX_GETVAL || cmd == LX_SETVAL || cmd == LX_GETPID ||
		   cmd == LX_GETNCNT || cmd == LX_GETZCNT;
	if (one && num >= s->nsems)
		return -LX_EINVAL;
	struct semid_ds_k ds;
	switch (cmd) {
	case LX_GETVAL: return s->val[num];
	case LX_GETPID: return s->pid[num];
	case LX_SETVAL:
		if ((int)arg < 0 || (int)arg > SEM_VMAX)
			return -LX_ERANGE;
		s->val[num] = (int16_t)(int)arg;
		s->pid[num] = t->proc->pid;
		wake(s);
		return 0;
	case LX_GETALL: return sem_all(t, s, arg, false);
	case LX_SETALL: return sem_all(t, s, arg, true);
	case LX_IPC_STAT:
		memset(&ds, 0, sizeof(ds));
		perm_out(&s->obj, &ds.perm);
		ds.otime = s->otime;
		ds.ctime = s->obj.ctime;
		ds.nsems = s->nsems;
		return copyout(t->proc, arg, &ds, sizeof(ds)) ? 0 : -LX_EFAULT;
	case LX_IPC_SET:
		if (!copyin(t->proc, &ds, arg, sizeof(ds)))
			return -LX_EFAULT;
		s->obj.mode = ds.perm.mode & 0777;
		s->obj.ctime = now_s();
		return 0;
	case LX_IPC_RMID:
		semset_free(s);
		return 0;
	default:                        /* GETNCNT, GETZCNT and the INFO calls: not kept */
		return -LX_EINVAL;
	}
}

/* --- message queues --- */

struct msg {
	struct msg *next;
	int64_t type;
	u64 size;
	char text[];
};

struct msgq {
	struct ipc_obj obj;
	struct msg *head;
	u64 bytes, count, limit;
	int lspid, lrpid;
	int64_t stime, rtime;
};

static struct msgq msgqs[IPC_SLOTS];

static struct ipc_obj *msgq_at(int i) { return &msgqs[i].obj; }

long sys_msgget(struct thread *t, u64 key, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	bool fresh;
	int i = get_slot(msgq_at, key, flags, &fresh);
	if (i < 0)
		return i;
	struct msgq *q = &msgqs[i];
	if (fresh) {
		obj_init(&q->obj, key, flags, t);
		q->head = NULL;
		q->bytes = q->count = 0;
		q->limit = MSG_MNB;
		q->lspid = q->lrpid = 0;
		q->stime = q->rtime = 0;
	}
	return q->obj.seq * SEQ_MUL + i;
}

/* The queue an id names; a queue removed while the call waited is EIDRM. */
static long msgq_of(struct thread *t, u64 id, struct msgq **out)
{
	int i = slot_of(msgq_at, id);
	if (i < 0)
		return t->fresh ? i : -LX_EIDRM;
	*out = &msgqs[i];
	return 0;
}

long sys_msgsnd(struct thread *t, u64 id, u64 umsg, u64 size, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct msgq *q;
	long r = msgq_of(t, id, &q);
	if (r < 0)
		return r;
	int64_t type;
	if (size > MSG_MAX)
		return -LX_EINVAL;
	if (!copyin(t->proc, &type, umsg, sizeof(type)))
		return -LX_EFAULT;
	if (type < 1)
		return -LX_EINVAL;
	if (q->bytes + size > q->limit)
		return ipc_wait(t, q, flags & LX_IPC_NOWAIT, 0);
	struct msg *m = lx_malloc(sizeof(*m) + size);
	if (!m)
		return -LX_ENOMEM;
	if (!copyin(t->proc, m->text, umsg + sizeof(type), size)) {
		lx_free(m);
		return -LX_EFAULT;
	}
	m->next = NULL;
	m->type = type;
	m->size = size;
	struct msg **pp = &q->head;
	while (*pp)
		pp = &(*pp)->next;
	*pp = m;
	q->bytes += size;
	q->count++;
	q->lspid = t->proc->pid;
	q->stime = now_s();
	wake(q);
	return 0;
}

/* Does m answer a receive of `want` (Linux's msgtyp rules)? */
static bool msg_matches(const struct msg *m, int64_t want, bool except)
{
	if (want == 0)
		return true;
	if (want > 0)
		return except ? m->type != want : m->type == want;
	return m->type <= -want;
}

/* The link to the message a receive takes: the first match, or for a negative type the lowest. */
static struct msg **msg_pick(struct msgq *q, int64_t want, bool except)
{
	struct msg **best = NULL;
	for (struct msg **pp = &q->head; *pp; pp = &(*pp)->next) {
		if (!msg_matches(*pp, want, except))
			continue;
		if (want >= 0)
			return pp;
		if (!best || (*pp)->type < (*best)->type)
			best = pp;
	}
	return best;
}

long sys_msgrcv(struct thread *t, u64 id, u64 umsg, u64 size, u64 want, u64 flags, u64 a5)
{
	(void)a5;
	struct msgq *q;
	long r = msgq_of(t, id, &q);
	if (r < 0)
		return r;
	if ((int64_t)size < 0 || (flags & LX_MSG_COPY))
		return -LX_EINVAL;
	struct msg **pp = msg_pick(q, (int64_t)want, flags & LX_MSG_EXCEPT);
	if (!pp) {
		r = ipc_wait(t, q, flags & LX_IPC_NOWAIT, 0);
		return r == -LX_EAGAIN ? -LX_ENOMSG : r;
	}
	struct msg *m = *pp;
	if (m->size > size && !(flags & LX_MSG_NOERROR))
		return -LX_E2BIG;
	u64 n = m->size < size ? m->size : size;
	if (!copyout(t->proc, umsg, &m->type, sizeof(m->type)) ||
	    !copyout(t->proc, umsg + sizeof(m->type), m->text, n))
		return -LX_EFAULT;              /* the message stays queued */
	*pp = m->next;
	q->bytes -= m->size;
	q->count--;
	q->lrpid = t->proc->pid;
	q->rtime = now_s();
	lx_free(m);
	wake(q);
	return (long)n;
}

/* Linux's struct msqid64_ds (x86-64) */
struct msqid_ds_k {
	struct ipc_perm_k perm;
	int64_t stime, rtime, ctime;
	u64 cbytes, qnum, qbytes;
	int32_t lspid, lrpid;
	u64 unused[2];
};

static void msgq_free(struct msgq *q)
{
	while (q->head) {
		struct msg *m = q->head;
		q->head = m->next;
		lx_free(m);
	}
	q->obj.used = false;
	wake(q);                        /* waiters run again and find it gone */
}

long sys_msgctl(struct thread *t, u64 id, u64 cmd, u64 buf, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	int i = slot_of(msgq_at, id);
	if (i < 0)
		return i;
	struct msgq *q = &msgqs[i];
	struct msqid_ds_k ds;
	switch (cmd & ~(u64)LX_IPC_64) {
	case LX_IPC_STAT:
		memset(&ds, 0, sizeof(ds));
		perm_out(&q->obj, &ds.perm);
		ds.stime = q->stime;
		ds.rtime = q->rtime;
		ds.ctime = q->obj.ctime;
		ds.cbytes = q->bytes;
		ds.qnum = q->count;
		ds.qbytes = q->limit;
		ds.lspid = q->lspid;
		ds.lrpid = q->lrpid;
		return copyout(t->proc, buf, &ds, sizeof(ds)) ? 0 : -LX_EFAULT;
	case LX_IPC_SET:
		if (!copyin(t->proc, &ds, buf, sizeof(ds)))
			return -LX_EFAULT;
		if (ds.qbytes > MSG_MNB)
			return -LX_EPERM;           /* raising it needs CAP_SYS_RESOURCE on Linux */
		q->obj.mode = ds.perm.mode & 0777;
		q->limit = ds.qbytes;
		q->obj.ctime = now_s();
		wake(q);
		return 0;
	case LX_IPC_RMID:
		msgq_free(q);
		return 0;
	default:
		return -LX_EINVAL;
	}
}

/* --- /proc/sysvipc and /proc/sys/kernel/shm* (fs/procfs.c) --- */

void ipc_limits(u64 lim[3])
{
	lim[0] = SHM_MAX;                                       /* shmmax: bytes a segment */
	lim[1] = SHM_MAX / LX_PAGE_SIZE * IPC_SLOTS;            /* shmall: pages in all */
	lim[2] = IPC_SLOTS;                                     /* shmmni: segments */
}

/* A segment's resident bytes: the pages its file holds. */
static u64 shm_rss(struct shm *m)
{
	return m->ip && m->ip->sb->ops->blocks ? m->ip->sb->ops->blocks(m->ip) * 512 : 0;
}

static int ipc_id(const struct ipc_obj *o, int slot)
{
	return slot + o->seq * SEQ_MUL;
}

/* Linux's /proc/sysvipc/{shm,sem,msg} (which 0, 1, 2): the header, then a line an object. */
void ipc_proc_lines(int which, void (*put)(void *arg, const char *line), void *arg)
{
	static const char *const head[3] = {
		"       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n",
		"       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n",
		"       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n",
	};
	char line[256];
	put(arg, head[which]);
	for (int i = 0; i < IPC_SLOTS; i++) {
		if (which == 0 && shms[i].obj.used) {
			struct shm *m = &shms[i];
			snfmt(line, sizeof(line), "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u "
			      "%10ld %10ld %10ld %21lu %21lu\n", m->obj.key, ipc_id(&m->obj, i), m->obj.mode,
			      m->size, m->obj.cpid, m->lpid, m->ip ? (unsigned long)m->ip->refs - 1 : 0UL,
			      0, 0, 0, 0, m->atime, m->dtime, m->obj.ctime, shm_rss(m), 0UL);
		} else if (which == 1 && sems[i].obj.used) {
			struct semset *s = &sems[i];
			snfmt(line, sizeof(line), "%10d %10d  %4o %10u %5u %5u %5u %5u %10ld %10ld\n",
			      s->obj.key, ipc_id(&s->obj, i), s->obj.mode, s->nsems, 0, 0, 0, 0, s->otime,
			      s->obj.ctime);
		} else if (which == 2 && msgqs[i].obj.used) {
			struct msgq *q = &msgqs[i];
			snfmt(line, sizeof(line), "%10d %10d  %4o  %10lu %10lu %5u %5u %5u %5u %5u %5u "
			      "%10ld %10ld %10ld\n", q->obj.key, ipc_id(&q->obj, i), q->obj.mode, q->bytes,
			      q->count, q->lspid, q->lrpid, 0, 0, 0, 0, q->stime, q->rtime, q->obj.ctime);
		} else {
			continue;
		}
		put(arg, line);
	}
}
