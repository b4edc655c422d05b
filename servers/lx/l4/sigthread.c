// SPDX-License-Identifier: MIT
// Getting a thread that runs its own code to lx, so that a signal can be
// delivered now (seed 000 §4.2: L4Linux's signal thread).  Each space has a
// signal thread (l4/stub.S lx_sigthread), made when one of its threads is
// first to be redirected, so processes that never need it pay nothing.  On
// lx's request it sets the thread's IP to the stub's #UD with
// ExchangeRegisters and reports the IP it interrupted; the #UD then brings
// every register to lx (l4/main.c redirected).  lx never waits for it: a
// request goes out only while it waits for one (zero send timeout), others
// queue.  It runs above its space's threads, so its report comes before the
// #UD; if the #UD comes first anyway, lx keeps it until the report.
#include "../lx.h"

#define LX_SIG_LABEL 0x4c59                 /* the signal thread's messages (l4/stub.S) */

/* lx redirects t itself: for a thread that waits in lx (a page fault), and the fallback. */
void redirect_direct(struct thread *t)
{
	reply_flush();
	struct L4_ExRegs r = { .control = L4_EXREG_SET_IP, .ip = STUB_SIGNAL_RIP };
	if (pecan_exregs(t->tid, &r) == L4_NILTHREAD || r.ip == STUB_SIGNAL_RIP)
		return;                     /* gone, or redirected already: keep where it really was */
	t->fault_rip = r.ip;
	t->fault_flags = r.flags;
	t->fault_sig = 0;                   /* nothing but what is pending */
}

/* Send the first queued thread to the waiting signal thread. */
static void send_next(struct mm *mm)
{
	struct thread *t = mm->kickq, *st = mm->sigthread;
	if (!t || !st || !mm->sig_waiting)
		return;
	mm->kickq = t->next_kick;
	reply_flush();
	L4_SetMR(0, L4_TAG_MAKE(LX_SIG_LABEL, 2, 0));
	L4_SetMR(1, t->tid);
	L4_SetMR(2, STUB_SIGNAL_RIP);
	if (L4_IpcFailed(L4_Send_Timeout(st->tid, L4_TIMEOUT_ZERO))) {
		t->kick = KICK_NONE;        /* the signal thread was not waiting after all */
		redirect_direct(t);
		return;
	}
	mm->sig_waiting = false;
	t->kick = KICK_SENT;
}

void kick(struct thread *t)
{
	if (t->state == T_BLOCKED) {
		wake_thread(t);
		return;
	}
	if (t->state != T_RUNNING || t->kick != KICK_NONE)
		return;                     /* starting, or its call is being answered anyway */
	struct mm *mm = t->mm;
	if (!mm->sigthread && !sigthread_create(mm)) {
		redirect_direct(t);         /* no thread number or kernel memory for one */
		return;
	}
	if (lx_trace)
		lx_log("lx: %d: to be redirected by signal thread %lx\n", t->tid_linux,
		       mm->sigthread->tid);
	t->kick = KICK_QUEUED;
	t->next_kick = NULL;
	struct thread **pp = &mm->kickq;
	while (*pp)
		pp = &(*pp)->next_kick;
	*pp = t;
	send_next(mm);
}

/* t goes away: out of the queue (a report about it finds no thread). */
void kick_forget(struct thread *t)
{
	if (t->kick == KICK_QUEUED)
		for (struct thread **pp = &t->mm->kickq; *pp; pp = &(*pp)->next_kick)
			if (*pp == t) {
				*pp = t->next_kick;
				break;
			}
	t->kick = KICK_NONE;
}

/* t is at the stub's #UD before its report: keep its registers until then. */
bool kick_early(struct thread *t)
{
	if (t->kick != KICK_SENT)
		return false;
	t->kick = KICK_EARLY;
	return true;
}

/* MR1 the thread, MR2 ExchangeRegisters' result, MR3 the old IP, MR4 the old flags. */
static void report(struct thread *st)
{
	struct mm *mm = st->mm;
	L4_Word_t *mr = L4_Utcb();
	struct thread *t = mr[1] ? thread_by_tid(mr[1]) : NULL;
	u64 ok = mr[2], ip = mr[3], flags = mr[4];
	mm->sig_waiting = true;
	if (t && t->mm == mm && (t->kick == KICK_SENT || t->kick == KICK_EARLY)) {
		bool early = t->kick == KICK_EARLY;
		t->kick = KICK_NONE;
		if (ok && ip != STUB_SIGNAL_RIP) {
			t->fault_rip = ip;
			t->fault_flags = flags;
			t->fault_sig = 0;
		}
		if (early)
			redirected(t, &t->stopped);
	}
	send_next(mm);
}

/* A message from a signal thread: its start, its reports, its stub page's fault. */
void sigthread_message(struct thread *st, L4_Word_t label, L4_MsgTag_t tag)
{
	if (label == LX_SIG_LABEL && L4_TAG_U(tag) >= 4) {
		report(st);
	} else if (label == L4_LABEL_EXCEPTION && st->state == T_STARTING) {
		st->state = T_RUNNING;
		thread_reply(st);           /* its registers: lx_sigthread */
	} else if ((label >> 4) == (L4_LABEL_PAGEFAULT >> 4) &&
		   (L4_MR(1) & ~(LX_PAGE_SIZE - 1)) == LX_STUB_PAGE) {
		map_stub(st);
	}
	/* anything else (it was tampered with): no answer, it stays stopped */
}
