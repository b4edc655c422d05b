// SPDX-License-Identifier: MIT
// rt_sigprocmask as Linux's kernel/signal.c orders its checks: the size
// (EINVAL), then set read (EFAULT), then how (EINVAL, only with a set),
// then the old mask written to oset (EFAULT, the new mask kept); set and
// oset at one address, in different pages, across a page boundary, in a
// read-only page; SIGKILL and SIGSTOP never blocked; a pending signal that
// the call unblocks handled before it returns.  Each case runs twice (lx
// takes another way once it has the pages at hand).  Prints "ok NAME" or
// "FAIL NAME: detail" per check, then "sigmask done, N failed"; the same
// program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define PAGE 4096
#define BAD_PTR ((void *)8)
#define BIT(s) (1ULL << ((s) - 1))
#define JUNK 0x5555555555555555ULL

static long mask(int how, const void *set, void *oset)
{
	return syscall(SYS_rt_sigprocmask, how, set, oset, 8);
}

/* the mask now (through a call with set NULL) */
static uint64_t current(void)
{
	uint64_t m = JUNK;
	mask(SIG_BLOCK, NULL, &m);
	return m;
}

static volatile int usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void order(void)
{
	uint64_t set = BIT(SIGUSR2), old = JUNK;
	check("size_4", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &old, 4), -1, EINVAL);
	check("size_4_oset_untouched", old == JUNK, 1, 0);
	check("bad_how_no_set", mask(99, NULL, &old), 0, 0);
	check("bad_how_no_set_oset", old == current(), 1, 0);
	old = JUNK;
	check("bad_how", mask(99, &set, &old), -1, EINVAL);
	check("bad_how_oset_untouched", old == JUNK, 1, 0);
	check("bad_how_mask_kept", (current() & BIT(SIGUSR2)) == 0, 1, 0);
	check("bad_set_before_bad_how", mask(99, BAD_PTR, &old), -1, EFAULT);
	check("bad_set", mask(SIG_BLOCK, BAD_PTR, &old), -1, EFAULT);
	check("bad_set_oset_untouched", old == JUNK, 1, 0);
	check("bad_oset", mask(SIG_BLOCK, &set, BAD_PTR), -1, EFAULT);
	check("bad_oset_mask_changed", (current() & BIT(SIGUSR2)) != 0, 1, 0);
	check("unblock", mask(SIG_UNBLOCK, &set, NULL), 0, 0);
	check("unblocked", (current() & BIT(SIGUSR2)) == 0, 1, 0);
	check("no_set_no_oset", mask(SIG_BLOCK, NULL, NULL), 0, 0);
}

/* set and oset where page (two pages, the second maybe read-only) puts them */
static void places(char *page)
{
	uint64_t before = current(), *same = (uint64_t *)page;
	mask(SIG_BLOCK, NULL, same);            /* (the page written once first) */
	*same = before | BIT(SIGUSR2);
	check("same_word", mask(SIG_SETMASK, same, same), 0, 0);
	check("same_word_old", *same == before, 1, 0);
	check("same_word_new", current() == (before | BIT(SIGUSR2)), 1, 0);
	uint64_t *a = (uint64_t *)(page + 64), *b = (uint64_t *)(page + PAGE + 64);
	*a = before;
	*b = JUNK;
	check("two_pages", mask(SIG_SETMASK, a, b), 0, 0);
	check("two_pages_old", *b == (before | BIT(SIGUSR2)), 1, 0);
	check("two_pages_new", current() == before, 1, 0);
	uint64_t cross = before | BIT(SIGUSR2), got = JUNK;
	memcpy(page + PAGE - 4, &cross, 8);
	check("across_pages", mask(SIG_SETMASK, page + PAGE - 4, page + PAGE - 12), 0, 0);
	memcpy(&got, page + PAGE - 12, 8);
	check("across_pages_old", got == before, 1, 0);
	check("across_pages_new", current() == cross, 1, 0);
	mask(SIG_SETMASK, &before, NULL);
}

static void read_only(char *page)
{
	uint64_t before = current(), old = JUNK;
	*(uint64_t *)(page + PAGE) = BIT(SIGUSR2);
	check("ro_mprotect", mprotect(page + PAGE, PAGE, PROT_READ), 0, 0);
	uint64_t *ro = (uint64_t *)(page + PAGE);
	check("ro_set_read", mask(SIG_UNBLOCK, ro, &old), 0, 0);
	check("ro_set_old", old == before, 1, 0);
	check("ro_oset", mask(SIG_BLOCK, ro, ro + 1), -1, EFAULT);
	check("ro_oset_mask_changed", current() == (before | BIT(SIGUSR2)), 1, 0);
	mask(SIG_SETMASK, &before, NULL);
	mprotect(page + PAGE, PAGE, PROT_READ | PROT_WRITE);
}

static void unblockable(void)
{
	uint64_t all = ~0ULL, old = JUNK, now;
	check("block_all", mask(SIG_SETMASK, &all, &old), 0, 0);
	now = current();
	check("kill_stop_unblocked", (now & (BIT(SIGKILL) | BIT(SIGSTOP))) == 0 &&
	      (now | BIT(SIGKILL) | BIT(SIGSTOP)) == all, 1, 0);
	mask(SIG_SETMASK, &old, NULL);
}

static void delivery(void)
{
	uint64_t set = BIT(SIGUSR1), old = JUNK;
	signal(SIGUSR1, on_usr1);
	usr1 = 0;
	mask(SIG_BLOCK, &set, &old);
	raise(SIGUSR1);
	check("pending_blocked", usr1, 0, 0);
	check("unblock_delivers", mask(SIG_SETMASK, &old, &set) == 0 && usr1 == 1, 1, 0);
	check("unblock_delivers_old", set == (old | BIT(SIGUSR1)), 1, 0);
}

int main(void)
{
	char *page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		order();
		places(page);
		read_only(page);
		unblockable();
		delivery();
	}
	return checks_done("sigmask");
}
