// SPDX-License-Identifier: MIT
// POSIX threads on lx: clone with CLONE_VM|CLONE_THREAD|CLONE_SETTLS,
// futexes for the join and a mutex, thread-local storage through %fs.
#include <pthread.h>
#include <stdio.h>

static __thread int mine;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *work(void *arg)
{
	mine = (int)(long)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&lock);
		total += mine;
		pthread_mutex_unlock(&lock);
	}
	return (void *)(long)mine;
}

int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	long sum = 0;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("threads: joined %ld, total %ld, main's tls %d\n", sum, total, mine);
	return !(sum == 10 && total == 10000 && mine == 0);
}
