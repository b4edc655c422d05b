// SPDX-License-Identifier: MIT
// Semaphores (seed 002: Mungi's only synchronisation besides shared memory),
// named by an address: P and V need write access to it.
#include "mungi.h"

#define SEM_HASH 64

struct sem {
	u64 addr;
	long count;
	struct mthread *head, *tail;    /* threads waiting in P, first come first served */
	struct sem *next;
};

static struct sem *sems[SEM_HASH];
static struct kind sem_kind = { sizeof(struct sem), NULL, 0, "semaphore" };

static struct sem **find(u64 addr)
{
	struct sem **pp = &sems[(addr >> 3) % SEM_HASH];
	while (*pp && (*pp)->addr != addr)
		pp = &(*pp)->next;
	return pp;
}

static void wake(struct mthread *t, u64 err)
{
	t->state = T_RUN;
	t->wait = W_NONE;
	reply_tag(err, 0);
	send_now(t->tid);
}

static void destroy(struct sem **pp)
{
	struct sem *s = *pp;
	*pp = s->next;
	while (s->head) {
		struct mthread *t = s->head;
		s->head = t->next;
		wake(t, MUNGI_ENOENT);
	}
	rec_free(&sem_kind, s);
}

static long p(struct mthread *t, struct sem *s)
{
	if (s->count > 0) {
		s->count--;
		return 0;
	}
	t->state = T_PARK;
	t->wait = W_SEM;
	t->wait_on = s->addr;
	t->next = NULL;
	if (s->tail)
		s->tail->next = t;
	else
		s->head = t;
	s->tail = t;
	return VALIDATE_WAIT;
}

static long v(struct sem *s)
{
	struct mthread *t = s->head;
	if (!t) {
		s->count++;
		return 0;
	}
	s->head = t->next;
	if (!s->head)
		s->tail = NULL;
	wake(t, 0);
	return 0;
}

static long create(u64 addr, u64 value)
{
	struct sem **pp = find(addr), *s;
	if (*pp)
		return -MUNGI_EEXIST;
	if ((long)value < 0)
		return -MUNGI_EINVAL;
	if (!(s = rec_alloc(&sem_kind)))
		return -MUNGI_ENOMEM;
	s->addr = addr;
	s->count = (long)value;
	*pp = s;
	return 0;
}

void sem_requests(struct mthread *t, u64 label)
{
	u64 addr = L4_MR(1), value = L4_MR(2);
	long r = validate(NULL, t->dom, addr, MUNGI_W);
	struct sem **pp = find(addr);
	if (r >= 0 && label == MUNGI_SEM_CREATE)
		r = create(addr, value);
	else if (r >= 0 && !*pp)
		r = -MUNGI_ENOENT;
	else if (r >= 0 && label == MUNGI_SEM_P)
		r = p(t, *pp);
	else if (r >= 0 && label == MUNGI_SEM_V)
		r = v(*pp);
	else if (r >= 0)
		destroy(pp), r = 0;
	if (r == VALIDATE_WAIT)
		return;
	reply_tag(r < 0 ? (u64)-r : 0, 0);
	reply_to(t->tid);
}

void sem_drop_range(u64 base, u64 end)
{
	for (unsigned i = 0; i < SEM_HASH; i++)
		for (struct sem **pp = &sems[i]; *pp;)
			if ((*pp)->addr >= base && (*pp)->addr < end)
				destroy(pp);
			else
				pp = &(*pp)->next;
}

void sem_forget(struct mthread *t)
{
	if (t->wait != W_SEM)
		return;
	struct sem *s = *find(t->wait_on);
	if (!s)
		return;
	struct mthread *prev = NULL;
	for (struct mthread *w = s->head; w; prev = w, w = w->next)
		if (w == t) {
			if (prev)
				prev->next = w->next;
			else
				s->head = w->next;
			if (s->tail == w)
				s->tail = prev;
			return;
		}
}
