// SPDX-License-Identifier: MIT
// Futexes against Linux's behaviour: a wait in one process woken from
// another that shares the memory (shared anonymous memory first touched
// after fork, System V shared memory, a shared file mapping), private
// futexes that stay private, bitsets and CLOCK_REALTIME deadlines, requeue
// and wake-op, priority-inheritance locks' ownership rules, and robust
// lists whose owner dies.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "futexes done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_TRYLOCK_PI 8
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_WAITERS 0x80000000U
#define FUTEX_OWNER_DIED 0x40000000U
#define FUTEX_TID_MASK 0x3fffffffU
#define PAGE 4096

static long futex(volatile uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts,
		  volatile uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

static const struct timespec five_s = { 5, 0 };

static void *shared_page(void)
{
	return mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/* Wake one waiter at w (retrying until one waits): 0 when one was woken. */
static int wake_one_eventually(volatile uint32_t *w, int op)
{
	for (int i = 0; i < 500; i++) {
		long n = futex(w, op, 1, NULL, NULL, 0);
		if (n == 1)
			return 0;
		if (n != 0)
			return 2;
		usleep(10000);
	}
	return 1;
}

static int child_status(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The child waits at its own address of the shared word; the parent wakes it at its own. */
static void across(const char *name, volatile uint32_t *parent_w, volatile uint32_t *(*child_w)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		volatile uint32_t *w = child_w ? child_w() : parent_w;
		_exit(w && futex(w, FUTEX_WAIT, 0, &five_s, NULL, 0) == 0 ? 0 : 1);
	}
	char n[64];
	snprintf(n, sizeof(n), "%s_wake_counts_one", name);
	check(n, wake_one_eventually(parent_w, FUTEX_WAKE), 0, 0);
	snprintf(n, sizeof(n), "%s_waiter_woken", name);
	check(n, child_status(pid), 0, 0);
}

static int shm_id;
static volatile uint32_t *shm_again(void)
{
	char *m = shmat(shm_id, NULL, 0);        /* another address for the same segment */
	return m == (void *)-1 ? NULL : (volatile uint32_t *)(m + 64);
}

static volatile uint32_t *file_again(void)
{
	int fd = open("/tmp/futexes.map", O_RDWR);
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return m == MAP_FAILED ? NULL : (volatile uint32_t *)(m + PAGE + 8);
}

static void shared_keys(void)
{
	volatile uint32_t *w = shared_page();        /* not touched before the fork */
	across("anon_touched_after_fork", w, NULL);
	shm_id = shmget(IPC_PRIVATE, PAGE, IPC_CREAT | 0600);
	char *m = shmat(shm_id, NULL, 0);
	check("shm_attached", m != (void *)-1, 1, 0);
	memset(m, 0, PAGE);
	across("sysv_shm_other_address", (volatile uint32_t *)(m + 64), shm_again);
	shmdt(m);
	shmctl(shm_id, IPC_RMID, NULL);
	int fd = open("/tmp/futexes.map", O_RDWR | O_CREAT | O_TRUNC, 0600);
	check("file_sized", ftruncate(fd, 2 * PAGE), 0, 0);
	char *f = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	across("shared_file_own_mapping", (volatile uint32_t *)(f + PAGE + 8), file_again);
	munmap(f, 2 * PAGE);
	close(fd);
	unlink("/tmp/futexes.map");
}

/* A private futex is keyed by the memory: another process's wake reaches nobody. */
static void private_stays_private(void)
{
	volatile uint32_t *w = shared_page();
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec t = { 0, 300 * 1000000 };
		long r = futex(w, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &t, NULL, 0);
		_exit(r == -1 && errno == ETIMEDOUT ? 0 : 1);
	}
	long woken = 0;
	for (int i = 0; i < 20; i++) {
		woken += futex(w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		usleep(10000);
	}
	check("private_wake_from_other_process_wakes_none", woken, 0, 0);
	check("private_waiter_times_out", child_status(pid), 0, 0);
}

static void bitsets_and_clocks(void)
{
	uint32_t w = 0;
	struct timespec t = { 0, 1000000 };
	check("wait_realtime_flag_enosys", futex(&w, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 0, &t, NULL, 0),
	      -1, ENOSYS);
	check("wait_bitset_zero_einval", futex(&w, FUTEX_WAIT_BITSET, 0, NULL, NULL, 0), -1, EINVAL);
	check("wake_bitset_zero_einval", futex(&w, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0), -1, EINVAL);
	check("wait_value_differs_eagain", futex(&w, FUTEX_WAIT, 1, &t, NULL, 0), -1, EAGAIN);
	struct timespec bad = { 0, 1000000000 };
	check("wait_bad_timeout_einval", futex(&w, FUTEX_WAIT, 0, &bad, NULL, 0), -1, EINVAL);
	check("wait_misaligned_einval", futex((uint32_t *)((char *)&w + 1), FUTEX_WAIT, 0, &t, NULL, 0),
	      -1, EINVAL);
	struct timespec now, at;
	clock_gettime(CLOCK_REALTIME, &now);
	at = now;
	at.tv_nsec += 100 * 1000000;
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	check("wait_bitset_realtime_deadline", futex(&w, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0,
						    &at, NULL, ~0U), -1, ETIMEDOUT);
	clock_gettime(CLOCK_REALTIME, &now);
	check("realtime_deadline_passed", now.tv_sec > at.tv_sec ||
	      (now.tv_sec == at.tv_sec && now.tv_nsec >= at.tv_nsec), 1, 0);
	clock_gettime(CLOCK_MONOTONIC, &at);
	check("wait_bitset_monotonic_past", futex(&w, FUTEX_WAIT_BITSET, 0, &at, NULL, ~0U), -1,
	      ETIMEDOUT);
	volatile uint32_t *s = shared_page();
	pid_t pid = fork();
	if (pid == 0)
		_exit(futex(s, FUTEX_WAIT_BITSET, 0, NULL, NULL, 1) == 0 ? 0 : 1);
	usleep(300000);
	check("wake_disjoint_bitset_none", futex(s, FUTEX_WAKE_BITSET, 1, NULL, NULL, 2), 0, 0);
	long n = 0;
	for (int i = 0; i < 500 && !n; i++, usleep(10000))
		n = futex(s, FUTEX_WAKE_BITSET, 1, NULL, NULL, 3);
	check("wake_meeting_bitset_one", n, 1, 0);
	check("bitset_waiter_woken", child_status(pid), 0, 0);
}

static void requeue_and_wake_op(void)
{
	volatile uint32_t *s = shared_page(), *s2 = s + 16;
	check("requeue_negative_wake_einval", futex(s, FUTEX_REQUEUE, -1, (void *)1, s2, 0), -1, EINVAL);
	check("requeue_negative_move_einval", futex(s, FUTEX_REQUEUE, 1, (void *)-1L, s2, 0), -1, EINVAL);
	check("cmp_requeue_mismatch_eagain", futex(s, FUTEX_CMP_REQUEUE, 1, (void *)1, s2, 7), -1,
	      EAGAIN);
	check("cmp_requeue_none_waiting", futex(s, FUTEX_CMP_REQUEUE, 1, (void *)1, s2, 0), 0, 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(futex(s, FUTEX_WAIT, 0, &five_s, NULL, 0) == 0 ? 0 : 1);
	long n = 0;
	for (int i = 0; i < 500 && !n; i++, usleep(10000))
		n = futex(s, FUTEX_CMP_REQUEUE, 0, (void *)1, s2, 0);
	check("cmp_requeue_moves_one", n, 1, 0);
	check("moved_waiter_not_at_first", futex(s, FUTEX_WAKE, 1, NULL, NULL, 0), 0, 0);
	check("moved_waiter_at_second", futex(s2, FUTEX_WAKE, 1, NULL, NULL, 0), 1, 0);
	check("requeued_waiter_woken", child_status(pid), 0, 0);

	volatile uint32_t *a = s + 32, *b = s + 48;
	*b = 5;
	/* op: *b += 3, then wake at b if the old value was 5 */
	uint32_t op = (1U << 28) | (0U << 24) | (3U << 12) | 5U;
	check("wake_op_none_waiting", futex(a, FUTEX_WAKE_OP, 1, (void *)1, b, op), 0, 0);
	check("wake_op_applied", *b, 8, 0);
	pid = fork();
	if (pid == 0)
		_exit(futex(b, FUTEX_WAIT, 8, &five_s, NULL, 0) == 0 ? 0 : 1);
	uint32_t set8 = (0U << 28) | (0U << 24) | (8U << 12) | 8U;   /* *b = 8; wake if it was 8 */
	n = 0;
	for (int i = 0; i < 500 && !n; i++, usleep(10000))
		n = futex(a, FUTEX_WAKE_OP, 1, (void *)1, b, set8);
	check("wake_op_wakes_at_second", n, 1, 0);
	check("wake_op_waiter_woken", child_status(pid), 0, 0);
}

static void pi_locks(void)
{
	volatile uint32_t *w = shared_page();
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	check("unlock_pi_unowned_eperm", futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), -1, EPERM);
	check("lock_pi_free", futex(w, FUTEX_LOCK_PI, 0, NULL, NULL, 0), 0, 0);
	check("lock_pi_owner_in_word", *w, me, 0);
	check("lock_pi_again_edeadlk", futex(w, FUTEX_LOCK_PI, 0, NULL, NULL, 0), -1, EDEADLK);
	check("trylock_pi_own_edeadlk", futex(w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0), -1, EDEADLK);
	pid_t pid = fork();
	if (pid == 0) {
		int bad = futex(w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0) != -1 || errno != EAGAIN;
		bad |= (futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) != -1 || errno != EPERM) << 1;
		if (futex(w, FUTEX_LOCK_PI, 0, NULL, NULL, 0) != 0)
			_exit(4);
		uint32_t got = *w;
		bad |= ((got & FUTEX_TID_MASK) != (uint32_t)getpid()) << 3;
		bad |= !(got & FUTEX_WAITERS) << 4;
		bad |= (futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) != 0) << 5;
		bad |= (*w != 0) << 6;
		_exit(bad);
	}
	int i;
	for (i = 0; i < 500 && !(*w & FUTEX_WAITERS); i++)
		usleep(10000);
	check("lock_pi_waiter_sets_waiters", (*w & FUTEX_WAITERS) != 0, 1, 0);
	check("lock_pi_word_still_mine", *w & FUTEX_TID_MASK, me, 0);
	check("unlock_pi_hands_over", futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), 0, 0);
	check("pi_child_trylock_eagain_unlock_eperm_handover", child_status(pid), 0, 0);
	check("unlock_pi_released_eperm", futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), -1, EPERM);
	*w = 0x3ffffff0;                              /* an owner that does not exist */
	check("lock_pi_dead_owner_esrch", futex(w, FUTEX_LOCK_PI, 0, NULL, NULL, 0), -1, ESRCH);
	*w = FUTEX_OWNER_DIED;
	check("lock_pi_owner_died_taken", futex(w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0), 0, 0);
	check("lock_pi_owner_died_kept", *w, me | FUTEX_OWNER_DIED, 0);
	check("unlock_pi_clears", futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) == 0 && *w == 0, 1, 0);
}

struct robust_lock {
	void *next;                  /* struct robust_list */
	volatile uint32_t word;
};
struct robust_head {
	void *next;
	long futex_offset;
	void *pending;
};

/* A child takes a robust lock in shared memory and dies holding it while the parent waits. */
static void robust_owner_died(void)
{
	struct { struct robust_lock lock; volatile uint32_t parent_waits; } *s = shared_page();
	pid_t pid = fork();
	if (pid == 0) {
		static struct robust_head head;
		head.next = &s->lock;
		head.futex_offset = offsetof(struct robust_lock, word);
		s->lock.next = &head;
		if (syscall(SYS_set_robust_list, &head, sizeof(head)) != 0)
			_exit(1);
		s->lock.word = (uint32_t)getpid() | FUTEX_WAITERS;
		for (int i = 0; i < 500 && !s->parent_waits; i++)
			usleep(10000);
		usleep(200000);
		_exit(0);                             /* dies holding it */
	}
	while (!s->lock.word)
		usleep(1000);
	uint32_t held = s->lock.word;
	s->parent_waits = 1;
	check("robust_waiter_woken_at_death", futex(&s->lock.word, FUTEX_WAIT, held, &five_s, NULL, 0),
	      0, 0);
	check("robust_owner_died_bit", s->lock.word, FUTEX_WAITERS | FUTEX_OWNER_DIED, 0);
	check("robust_child_exit", child_status(pid), 0, 0);
	struct robust_head *h;
	size_t len;
	check("get_robust_list", syscall(SYS_get_robust_list, 0, &h, &len), 0, 0);
	check("set_robust_list_bad_len_einval", syscall(SYS_set_robust_list, h, 12), -1, EINVAL);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	shared_keys();
	private_stays_private();
	bitsets_and_clocks();
	requeue_and_wake_op();
	pi_locks();
	robust_owner_died();
	return checks_done("futexes");
}
