// SPDX-License-Identifier: MIT
// Shared memory against Linux's behaviour: MAP_SHARED file mappings (the
// file and every mapping see the same bytes), shared anonymous memory
// across fork and mprotect, and System V shared memory, semaphores and
// message queues.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "shared done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define PAGE 4096L

/* Runs fn in a child and returns its exit status (or 128 + the signal that killed it). */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int child_writes(void *p)
{
	strcpy(p, "from child");
	return 0;
}

static int child_touches_beyond(void *p)
{
	return ((volatile char *)p)[PAGE];
}

static void file_mappings(void)
{
	int fd = open("/tmp/shared.map", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char b[32] = {0};
	check("ftruncate", ftruncate(fd, 2 * PAGE), 0, 0);
	char *m = mmap(0, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check("map_shared_rw", m != MAP_FAILED, 1, 0);
	strcpy(m + PAGE, "through memory");
	check("read_sees_store", pread(fd, b, 14, PAGE), 14, 0);
	check("read_data", strcmp(b, "through memory"), 0, 0);
	pwrite(fd, "written", 7, 10);
	check("map_sees_write", memcmp(m + 10, "written", 7), 0, 0);
	char *m2 = mmap(0, PAGE, PROT_READ, MAP_SHARED, fd, PAGE);
	check("second_map_same_bytes", strcmp(m2, "through memory"), 0, 0);
	check("child_store", in_child(child_writes, m), 0, 0);
	check("parent_sees_child", strcmp(m, "from child"), 0, 0);
	check("msync", msync(m, 2 * PAGE, MS_SYNC), 0, 0);
	check("msync_unaligned", msync(m + 1, PAGE, MS_SYNC), -1, EINVAL);
	check("munmap", munmap(m, 2 * PAGE) + munmap(m2, PAGE), 0, 0);
	check("file_keeps_bytes", pread(fd, b, 10, 0) == 10 && !memcmp(b, "from child", 10), 1, 0);
	char *priv = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	priv[0] = 'X';
	check("private_stays_private", pread(fd, b, 1, 0) == 1 && b[0] == 'f', 1, 0);
	munmap(priv, PAGE);
	/* a page wholly past the end of the file: SIGBUS, as Linux gives */
	ftruncate(fd, 100);
	m = mmap(0, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check("beyond_eof_sigbus", in_child(child_touches_beyond, m), 128 + SIGBUS, 0);
	check("inside_eof_reads", m[0], 'f', 0);
	munmap(m, 2 * PAGE);
	close(fd);
	fd = open("/tmp/shared.map", O_RDONLY);
	check("rw_map_of_rdonly", mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED,
	      1, 0);
	check("rw_map_of_rdonly_errno", errno, EACCES, 0);
	m = mmap(0, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check("mprotect_write_rdonly", mprotect(m, PAGE, PROT_READ | PROT_WRITE), -1, EACCES);
	munmap(m, PAGE);
	close(fd);
	unlink("/tmp/shared.map");
}

static int child_reprotects(void *p)
{
	if (mprotect(p, PAGE, PROT_READ) || mprotect(p, PAGE, PROT_READ | PROT_WRITE))
		return 1;
	strcpy(p, "after mprotect");
	return 0;
}

static void anon_shared(void)
{
	char *m = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	strcpy(m, "parent");
	check("anon_child_reprotects", in_child(child_reprotects, m), 0, 0);
	check("anon_still_shared", strcmp(m, "after mprotect"), 0, 0);
	munmap(m, PAGE);
	/* pages first touched after the fork are shared too, both ways (mmap(2): "updates
	 * to the mapping are visible to other processes mapping the same region") */
	m = mmap(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check("anon_untouched_child_store", in_child(child_writes, m + PAGE), 0, 0);
	check("anon_untouched_parent_sees", strcmp(m + PAGE, "from child"), 0, 0);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 1000 && ((volatile char *)m)[2 * PAGE] != 'p'; i++)
			usleep(1000);
		_exit(((volatile char *)m)[2 * PAGE] == 'p' ? 0 : 1);
	}
	m[2 * PAGE] = 'p';
	int st;
	waitpid(pid, &st, 0);
	check("anon_untouched_child_sees_parent", WIFEXITED(st) ? WEXITSTATUS(st) : 2, 0, 0);
	munmap(m, 3 * PAGE);
	/* /dev/zero mapped shared is the same kind of memory */
	int fd = open("/dev/zero", O_RDWR);
	m = mmap(0, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check("devzero_shared_map", m != MAP_FAILED, 1, 0);
	if (m != MAP_FAILED) {
		check("devzero_child_store", in_child(child_writes, m + PAGE), 0, 0);
		check("devzero_parent_sees", strcmp(m + PAGE, "from child"), 0, 0);
		munmap(m, 2 * PAGE);
	}
	char *z = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("devzero_private_zero", z != MAP_FAILED && z[100] == 0, 1, 0);
	close(fd);
}

static int child_shm(void *p)
{
	int id = *(int *)p;
	char *m = shmat(id, 0, 0);
	if (m == (void *)-1)
		return 1;
	strcpy(m, "shm child");
	return shmdt(m) ? 2 : 0;
}

static void sysv_shm(void)
{
	int id = shmget(IPC_PRIVATE, 3 * PAGE, IPC_CREAT | 0600);
	check("shmget", id >= 0, 1, 0);
	struct shmid_ds ds;
	check("shm_stat", shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_segsz == 3 * PAGE &&
	      ds.shm_nattch == 0, 1, 0);
	char *m = shmat(id, 0, 0);
	check("shmat", m != (void *)-1, 1, 0);
	check("shm_zeroed", m[0] == 0 && m[3 * PAGE - 1] == 0, 1, 0);
	shmctl(id, IPC_STAT, &ds);
	check("shm_nattch_1", ds.shm_nattch, 1, 0);
	check("shm_child", in_child(child_shm, &id), 0, 0);
	check("shm_sees_child", strcmp(m, "shm child"), 0, 0);
	char *m2 = shmat(id, 0, SHM_RDONLY);
	check("shm_second_attach", strcmp(m2, "shm child"), 0, 0);
	shmctl(id, IPC_STAT, &ds);
	check("shm_nattch_2", ds.shm_nattch, 2, 0);
	check("shm_rmid", shmctl(id, IPC_RMID, 0), 0, 0);
	check("shm_usable_after_rmid", (m[5] = 'Z') == 'Z' && m2[5] == 'Z', 1, 0);
	check("shmdt", shmdt(m2), 0, 0);
	check("shmdt_not_attached", shmdt(m + 1), -1, EINVAL);
	check("shmdt_last", shmdt(m), 0, 0);
	check("shm_gone", shmctl(id, IPC_STAT, &ds), -1, EINVAL);
	check("shmget_excl", shmget(0x5ec0, PAGE, IPC_CREAT | 0600) >= 0, 1, 0);
	check("shmget_excl_again", shmget(0x5ec0, PAGE, IPC_CREAT | IPC_EXCL | 0600), -1, EEXIST);
	check("shmget_missing", shmget(0x5ec1, PAGE, 0), -1, ENOENT);
	check("shmget_too_big_for_key", shmget(0x5ec0, 4 * PAGE, 0), -1, EINVAL);
	shmctl(shmget(0x5ec0, PAGE, 0), IPC_RMID, 0);
	check("shmat_bad_id", shmat(123456, 0, 0) == (void *)-1 && errno == EINVAL, 1, 0);
}

static void sem_step(int id, int delta, int flags)
{
	struct sembuf op = {0, (short)delta, (short)flags};
	semop(id, &op, 1);
}

static int child_posts(void *p)
{
	int id = *(int *)p;
	usleep(20000);
	struct sembuf op = {0, 2, 0};
	return semop(id, &op, 1) ? 1 : 0;
}

static void sysv_sem(void)
{
	int id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	check("semget", id >= 0, 1, 0);
	check("sem_initial", semctl(id, 0, GETVAL), 0, 0);
	check("sem_setval", semctl(id, 1, SETVAL, 5), 0, 0);
	check("sem_getval", semctl(id, 1, GETVAL), 5, 0);
	struct sembuf op = {0, -1, IPC_NOWAIT};
	check("sem_nowait", semop(id, &op, 1), -1, EAGAIN);
	struct sembuf two[2] = {{1, -2, 0}, {0, 1, 0}};
	check("sem_atomic_pair", semop(id, two, 2), 0, 0);
	check("sem_pair_values", semctl(id, 0, GETVAL) * 10 + semctl(id, 1, GETVAL), 13, 0);
	struct sembuf undoable[2] = {{0, 1, 0}, {1, -4, IPC_NOWAIT}};
	check("sem_all_or_nothing", semop(id, undoable, 2), -1, EAGAIN);
	check("sem_nothing_done", semctl(id, 0, GETVAL), 1, 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_posts(&id));
	struct sembuf wait3 = {0, -3, 0};
	check("sem_waits_for_child", semop(id, &wait3, 1), 0, 0);
	int st;
	waitpid(pid, &st, 0);
	check("sem_child_ok", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	check("sem_after_wait", semctl(id, 0, GETVAL), 0, 0);
	struct sembuf zero = {0, 0, 0};
	check("sem_wait_zero", semop(id, &zero, 1), 0, 0);
	check("sem_bad_num", semctl(id, 7, GETVAL), -1, EINVAL);
	sem_step(id, 1, 0);
	check("sem_rmid", semctl(id, 0, IPC_RMID), 0, 0);
	check("sem_gone", semctl(id, 0, GETVAL), -1, EINVAL);
}

struct qmsg {
	long type;
	char text[16];
};

static long send(int q, long type, const char *text, int flags)
{
	struct qmsg m = {type, ""};
	strncpy(m.text, text, sizeof(m.text) - 1);
	return msgsnd(q, &m, strlen(m.text) + 1, flags);
}

/* The text of the message msgrcv(want, flags) takes, or "" if it fails. */
static const char *take(int q, long want, int flags)
{
	static struct qmsg m;
	memset(&m, 0, sizeof(m));
	return msgrcv(q, &m, sizeof(m.text), want, flags) < 0 ? "" : m.text;
}

static int child_replies(void *arg)
{
	int q = *(int *)arg;
	struct qmsg m;
	if (msgrcv(q, &m, sizeof(m.text), 1, 0) < 0)
		return 1;
	m.type = 2;
	return msgsnd(q, &m, strlen(m.text) + 1, 0) ? 2 : 0;
}

static void sysv_msg(void)
{
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	check("msgget", q >= 0, 1, 0);
	check("msg_empty_nowait", msgrcv(q, &(struct qmsg){0}, 16, 0, IPC_NOWAIT), -1, ENOMSG);
	check("msg_bad_type", send(q, 0, "x", 0), -1, EINVAL);
	send(q, 3, "three", 0);
	send(q, 1, "one", 0);
	send(q, 2, "two", 0);
	send(q, 1, "uno", 0);
	struct msqid_ds ds;
	check("msg_stat", msgctl(q, IPC_STAT, &ds), 0, 0);
	check("msg_qnum", (long)ds.msg_qnum, 4, 0);
	check("msg_cbytes", (long)ds.__msg_cbytes, 6 + 4 + 4 + 4, 0);
	check("msg_by_type", strcmp(take(q, 2, 0), "two"), 0, 0);
	check("msg_lowest_type", strcmp(take(q, -2, 0), "one"), 0, 0);
	check("msg_except", strcmp(take(q, 1, MSG_EXCEPT), "three"), 0, 0);
	struct qmsg small;
	check("msg_too_big", msgrcv(q, &small, 2, 0, 0), -1, E2BIG);
	check("msg_truncated", msgrcv(q, &small, 2, 0, MSG_NOERROR), 2, 0);
	check("msg_truncated_text", small.text[0] == 'u' && small.text[1] == 'n', 1, 0);
	check("msg_drained", msgrcv(q, &small, 16, 0, IPC_NOWAIT), -1, ENOMSG);
	check("msg_bad_buffer", msgsnd(q, (void *)16, 4, 0), -1, EFAULT);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_replies(&q));
	send(q, 1, "ping", 0);
	check("msg_reply_waited_for", strcmp(take(q, 2, 0), "ping"), 0, 0);
	int st;
	waitpid(pid, &st, 0);
	check("msg_child_ok", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	ds.msg_qbytes = 8;
	check("msg_set_limit", msgctl(q, IPC_SET, &ds), 0, 0);
	check("msg_fits", send(q, 5, "abcdef", IPC_NOWAIT), 0, 0);
	check("msg_full_nowait", send(q, 5, "abc", IPC_NOWAIT), -1, EAGAIN);
	check("msg_rmid", msgctl(q, IPC_RMID, NULL), 0, 0);
	check("msg_gone", msgsnd(q, &(struct qmsg){1, "x"}, 2, 0), -1, EINVAL);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	file_mappings();
	anon_shared();
	sysv_shm();
	sysv_sem();
	sysv_msg();
	return checks_done("shared");
}
