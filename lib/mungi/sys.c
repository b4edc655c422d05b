// SPDX-License-Identifier: MIT
// Mungi system calls: each one Call to the server (include/mungi/protocol.h).
#include "mungi.h"

static mw_t req(mw_t label, unsigned u, const mw_t *a)
{
	for (unsigned i = 0; i < u; i++)
		L4_SetMR((int)i + 1, a[i]);
	return mungi_req(label, u);
}

#define REQ(label, ...) ({ mw_t a_[] = { __VA_ARGS__ }; req(label, sizeof(a_) / sizeof(a_[0]), a_); })

/* --- PDX calls and the direct path (docs/mungi.md, "PDX") --- */

static struct mungi_direct *direct_slot(mw_t entry, mw_t key)
{
	return &mungi_tls()->direct[((entry ^ key) * 0x9e3779b97f4a7c15UL) >> (64 - MUNGI_DIRECT_LOG2)];
}

/*
 * The call straight to c's worker: its label, or MUNGI_ESTALE when the
 * server must take it (no permit, the worker gone, or busy: the send's
 * zero timeout).  A worker that ends during the call leaves the caller in
 * its receive with "no partner": MUNGI_EFAULT, as the server path answers.
 * A receive canceled is the server's (pdx_redirected): the call never ran.
 * The worker's message is the entry and six arguments (an explicit-APD
 * call's handle, w[1], is the server's).
 */
static inline __attribute__((always_inline)) mw_t direct_call(struct mungi_direct *c, mw_t label, const mw_t *w,
							     struct mungi_ret *r)
{
	int apd = label == MUNGI_PDX_APD;
	L4_Word_t m[8] = { L4_TAG_MAKE(MUNGI_PDX_DIRECT, 7, 0), w[0], w[1 + apd], w[2 + apd], w[3 + apd],
			   w[4 + apd], w[5 + apd], apd ? 0 : w[6] };
	L4_ThreadId_t to = c->worker;
	mungi_ipc_regs(&to, c->worker, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_NEVER), m);
	if (!(m[0] & L4_TAG_ERROR)) {
		if (L4_TAG_LABEL(m[0]) == MUNGI_ESTALE)
			c->worker = 0;
		else if (r)
			*r = (struct mungi_ret){ m[1], m[2] };
		return L4_TAG_LABEL(m[0]);
	}
	L4_Word_t e = L4_ErrorCode();
	if (L4_IPC_CODE(e) != L4_IPC_TIMEOUT)
		c->worker = 0;
	return (e & L4_IPC_PHASE_RECV) && L4_IPC_CODE(e) != L4_IPC_CANCELED ? MUNGI_EFAULT : MUNGI_ESTALE;
}

/* Through the server, which may grant a permit (its reply's MR3). */
static inline __attribute__((always_inline)) mw_t server_call(mw_t label, mw_t key, struct mungi_direct *c, const mw_t *w, struct mungi_ret *r)
{
	L4_Word_t *mr = L4_Utcb();
	mr[1] = w[0]; mr[2] = w[1]; mr[3] = w[2]; mr[4] = w[3]; mr[5] = w[4]; mr[6] = w[5]; mr[7] = w[6];
	mw_t err = mungi_req(label, 7);
	if (!err)
		*c = (struct mungi_direct){ w[0], key, mr[3] };
	if (r)
		*r = (struct mungi_ret){ mr[1], mr[2] };
	return err;
}

mw_t mungi_pdx_call(mw_t label, mw_t key, const mw_t *w, struct mungi_ret *r)
{
	struct mungi_direct *c = direct_slot(w[0], key);
	if (c->worker && c->entry == w[0] && c->key == key) {
		mw_t err = direct_call(c, label, w, r);
		if (err != MUNGI_ESTALE)
			return err;
	}
	return server_call(label, key, c, w, r);
}

L4_ThreadId_t mungi_pdx_worker(mw_t entry, mw_t key)
{
	struct mungi_direct *c = direct_slot(entry, key);
	return c->entry == entry && c->key == key ? c->worker : 0;
}

mw_t mungi_pdx_empty(mw_t entry, mw_t a0, mw_t a1, mw_t a2, mw_t a3, mw_t a4, mw_t a5, struct mungi_ret *r)
{
	mw_t w[7] = { entry, a0, a1, a2, a3, a4, a5 };
	return mungi_pdx_call(MUNGI_PDX_EMPTY, MUNGI_KEY_EMPTY, w, r);
}

mw_t mungi_pdx_apd(mw_t entry, mw_t apd, mw_t a0, mw_t a1, mw_t a2, mw_t a3, mw_t a4, struct mungi_ret *r)
{
	mw_t w[7] = { entry, apd, a0, a1, a2, a3, a4 };
	/* handles are never 0 or 1 (the other keys): such a one is refused by the server */
	return mungi_pdx_call(MUNGI_PDX_APD, apd < 2 ? ~0UL : apd, w, r);
}

mw_t mungi_self(struct mungi_self *s)
{
	mw_t err = mungi_req(MUNGI_SELF, 0);
	if (!err)
		*s = (struct mungi_self){ L4_MR(1), L4_MR(2), L4_MR(3), L4_MR(4) };
	return err;
}

mw_t mungi_obj_create(mw_t pages, const struct mungi_cap *account, mw_t flags, struct mungi_cap *owner)
{
	mw_t err = REQ(MUNGI_OBJ_CREATE, pages, account ? account->base : 0, account ? account->password : 0,
		       flags);
	if (!err)
		*owner = (struct mungi_cap){ L4_MR(1), L4_MR(2) };
	return err;
}

mw_t mungi_obj_delete(mw_t base) { return REQ(MUNGI_OBJ_DELETE, base); }
mw_t mungi_obj_survive(mw_t base) { return REQ(MUNGI_OBJ_SURVIVE, base); }

mw_t mungi_obj_info(mw_t addr, mw_t *base, mw_t *pages, mw_t *rights)
{
	mw_t err = REQ(MUNGI_OBJ_INFO, addr);
	if (!err) {
		*base = L4_MR(1);
		*pages = L4_MR(2);
		*rights = L4_MR(3);
	}
	return err;
}

mw_t mungi_pdx_register(mw_t base, mw_t password, mw_t rights, const mw_t *entries, mw_t n,
			const struct mungi_cap *clist, mw_t *out)
{
	mw_t err = REQ(MUNGI_CAP_REGISTER, base, password, rights, clist ? clist->base : 0,
		       clist ? clist->password : 0, (mw_t)entries, n);
	if (!err && out)
		*out = L4_MR(1);
	return err;
}

mw_t mungi_cap_register(mw_t base, mw_t password, mw_t rights, mw_t *out)
{
	return mungi_pdx_register(base, password, rights, 0, 0, 0, out);
}

mw_t mungi_cap_revoke(mw_t base, mw_t password) { return REQ(MUNGI_CAP_REVOKE, base, password); }

static mw_t with_slot(mw_t err, mw_t *slot)
{
	if (!err && slot)
		*slot = L4_MR(1);
	return err;
}

mw_t mungi_apd_add(const struct mungi_cap *c, mw_t *slot)
{
	return with_slot(REQ(MUNGI_APD_ADD, c->base, c->password), slot);
}

mw_t mungi_apd_add_handler(mungi_handler_fn fn, mw_t *slot)
{
	return with_slot(REQ(MUNGI_APD_ADD_HANDLER, (mw_t)fn), slot);
}

mw_t mungi_apd_remove(mw_t slot) { return REQ(MUNGI_APD_REMOVE, slot); }
mw_t mungi_apd_lock(void) { return mungi_req(MUNGI_APD_LOCK, 0); }

mw_t mungi_apd_make(const struct mungi_cap *clists, mw_t n, mw_t *handle)
{
	return with_slot(REQ(MUNGI_APD_MAKE, (mw_t)clists, n), handle);
}

mw_t mungi_task_create(long (*fn)(mw_t), mw_t arg, mw_t apd, mw_t flags, mw_t *task)
{
	return with_slot(REQ(MUNGI_TASK_CREATE, (mw_t)fn, arg, apd, flags), task);
}

void mungi_task_exit(long status)
{
	for (;;)
		REQ(MUNGI_TASK_EXIT, (mw_t)status);
}

mw_t mungi_task_wait(mw_t task, long *status)
{
	mw_t err = REQ(MUNGI_TASK_WAIT, task);
	if (!err && status)
		*status = (long)L4_MR(1);
	return err;
}

mw_t mungi_task_kill(mw_t task) { return REQ(MUNGI_TASK_KILL, task); }

mw_t mungi_thread_create(void (*fn)(mw_t), mw_t arg, mw_t *tid)
{
	return with_slot(REQ(MUNGI_THREAD_CREATE, (mw_t)fn, arg), tid);
}

mw_t mungi_thread_kill(mw_t tid) { return REQ(MUNGI_THREAD_KILL, tid); }

void mungi_thread_exit(void)
{
	for (;;)
		mungi_req(MUNGI_THREAD_EXIT, 0);
}

mw_t mungi_sem_create(mw_t addr, mw_t value) { return REQ(MUNGI_SEM_CREATE, addr, value); }
mw_t mungi_sem_p(mw_t addr) { return REQ(MUNGI_SEM_P, addr); }
mw_t mungi_sem_v(mw_t addr) { return REQ(MUNGI_SEM_V, addr); }
mw_t mungi_sem_delete(mw_t addr) { return REQ(MUNGI_SEM_DELETE, addr); }

mw_t mungi_acct_create(const struct mungi_cap *bank, mw_t balance, struct mungi_cap *acct)
{
	mw_t err = REQ(MUNGI_ACCT_CREATE, bank->base, bank->password, balance);
	if (!err)
		*acct = (struct mungi_cap){ L4_MR(1), L4_MR(2) };
	return err;
}

mw_t mungi_acct_info(const struct mungi_cap *acct, long *balance, mw_t *pages)
{
	mw_t err = REQ(MUNGI_ACCT_INFO, acct->base, acct->password);
	if (!err) {
		*balance = (long)L4_MR(1);
		*pages = L4_MR(2);
	}
	return err;
}

mw_t mungi_acct_deposit(const struct mungi_cap *bank, mw_t acct, long amount, long *balance)
{
	mw_t err = REQ(MUNGI_ACCT_DEPOSIT, bank->base, bank->password, acct, (mw_t)amount);
	if (!err && balance)
		*balance = (long)L4_MR(1);
	return err;
}

mw_t mungi_ot_enum(const struct mungi_cap *bank, mw_t addr, mw_t *base, mw_t *pages, mw_t *account)
{
	mw_t err = REQ(MUNGI_OT_ENUM, bank->base, bank->password, addr);
	if (!err) {
		*base = L4_MR(1);
		*pages = L4_MR(2);
		*account = L4_MR(3);
	}
	return err;
}

mw_t mungi_checkpoint(const struct mungi_cap *bank, mw_t *pages)
{
	return with_slot(REQ(MUNGI_CHECKPOINT, bank->base, bank->password), pages);
}

mw_t mungi_set_pager(mw_t base, mw_t entry) { return REQ(MUNGI_SET_PAGER, base, entry); }
mw_t mungi_vm_map(mw_t dest, mw_t src, mw_t rights) { return REQ(MUNGI_VM_MAP, dest, src, rights); }
mw_t mungi_vm_flush(mw_t page) { return REQ(MUNGI_VM_FLUSH, page); }

mw_t mungi_fault_info(mw_t *addr, mw_t *access, mw_t *rip)
{
	mw_t err = mungi_req(MUNGI_FAULT_INFO, 0);
	if (!err) {
		*addr = L4_MR(1);
		*access = L4_MR(2);
		*rip = L4_MR(3);
	}
	return err;
}

mw_t mungi_stats(mw_t out[MUNGI_NSTATS])
{
	mw_t err = mungi_req(MUNGI_STATS, 0);
	for (int i = 0; i < MUNGI_NSTATS && !err; i++)
		out[i] = L4_MR(i + 1);
	return err;
}

mw_t mungi_dt_us(void)
{
	return mungi_req(MUNGI_CONFIG, 0) ? 0 : L4_MR(1);
}
