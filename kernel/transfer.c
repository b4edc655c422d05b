// SPDX-License-Identifier: MIT
// Message transfer: untyped words, map items and string items (abi.md §5.3, §6.2).
#include "ipc.h"
#include "space.h"
#include "mapping.h"
#include "timer.h"
#include <l4/ipc.h>
#include <l4/utcb.h>

/*
 * A cursor over the substrings of one logical string: a chain of string
 * items linked by their c bits, in message registers (send side) or in
 * buffer registers (receive side).
 */
struct strcur {
	const word_t *w;     /* word 0: MR0 or BR0 */
	int dir;             /* +1 for MRs, -1 for BRs (they grow downwards in the UTCB) */
	int i, end;          /* current item's first word; last usable word */
	int sub;             /* next substring of the current item */
	word_t addr, left;   /* the current substring's unconsumed part */
};

static inline word_t word_at(const word_t *w, int dir, int i)
{
	return w[i * dir];
}

/* Advance to the next substring with bytes left; false at the end of the string. */
static bool cur_next(struct strcur *c)
{
	while (c->left == 0) {
		word_t w0 = word_at(c->w, c->dir, c->i);
		if (c->sub > (int)L4_STRING_J(w0)) {
			if (!(w0 & L4_STRING_COMPOUND))
				return false;
			c->i += 2 + L4_STRING_J(w0);
			c->sub = 0;
			if (c->i > c->end || !L4_STRING_IS(word_at(c->w, c->dir, c->i)))
				return false;
			continue;
		}
		if (c->i + 1 + c->sub > c->end)
			return false;
		c->addr = word_at(c->w, c->dir, c->i + 1 + c->sub);
		c->left = L4_STRING_LEN(w0);
		c->sub++;
	}
	return true;
}

/* The word after the last item of the logical string starting at word i. */
static int string_end(const word_t *w, int dir, int i, int end)
{
	for (;;) {
		word_t w0 = word_at(w, dir, i);
		int next = i + 2 + (int)L4_STRING_J(w0);
		if (!(w0 & L4_STRING_COMPOUND) || next > end || !L4_STRING_IS(word_at(w, dir, next)))
			return next;
		i = next;
	}
}

struct xfer {
	struct tcb *snd, *rcv;
	word_t bytes;        /* copied so far, over the whole message */
	const word_t *brs;   /* the receiver's BR0, read in place (BRi at brs[-i]) */
	int br;              /* next receive buffer (BR index), 0 when none is left */
};

static inline word_t br(const struct xfer *x, int i)
{
	return word_at(x->brs, -1, i);
}

struct xfer_fault xfer_fault;

/*
 * A copy met unmapped (or read-only) user memory at src or dst.  With both
 * xfer timeouts non-zero the owner of that memory is to resolve it through
 * its pager and the IPC is retried (IPC_XFER_FAULT, details in xfer_fault);
 * a zero xfer timeout, or a kernel address, ends the transfer at once with
 * codes 5/6 chosen from the two timeouts as Pistachio chooses them.
 */
static word_t fault_error(const struct xfer *x, word_t src, word_t dst)
{
	word_t snd_to = utcb_get(x->snd, UTCB_XFER_TIMEOUTS) >> 16 & 0xffff;
	word_t rcv_to = utcb_get(x->rcv, UTCB_XFER_TIMEOUTS) & 0xffff;
	bool snd_side = !space_kaddr(x->snd->space, src, MAP_R);
	word_t addr = snd_side ? src : dst;
	if (addr < USER_TOP && !timeout_is_zero(snd_to) && !timeout_is_zero(rcv_to)) {
		xfer_fault = (struct xfer_fault){ snd_side ? x->snd : x->rcv, addr & PAGE_MASK,
						  snd_side ? MAP_R : MAP_W };
		return IPC_XFER_FAULT;
	}
	bool rcv_shorter = rcv_to && (!snd_to || rcv_to < snd_to);
	return (x->bytes << 4) | (rcv_shorter ? L4_IPC_XFER_TO_PARTNER : L4_IPC_XFER_TO_OWN);
}

static word_t overflow(const struct xfer *x)
{
	return (x->bytes << 4) | L4_IPC_OVERFLOW;
}

/* Copy one logical send string (MRs from index i) into the next receive buffer. */
static word_t copy_string(struct xfer *x, const word_t *mr, int i, int end)
{
	if (!(br(x, 0) & L4_ACCEPT_STRINGS) || !x->br || x->br >= L4_NUM_BRS ||
	    !L4_STRING_IS(br(x, x->br)))
		return overflow(x);
	struct strcur s = { mr, 1, i, end, 0, 0, 0 };
	struct strcur r = { x->brs, -1, x->br, L4_NUM_BRS - 1, 0, 0, 0 };
	bool more_buffers = br(x, x->br) & L4_ITEM_CONT;
	x->br = more_buffers ? string_end(x->brs, -1, x->br, L4_NUM_BRS - 1) : 0;
	while (cur_next(&s)) {
		if (!cur_next(&r))
			return overflow(x);
		word_t n = s.left < r.left ? s.left : r.left;
		word_t done = space_copy(x->snd->space, s.addr, x->rcv->space, r.addr, n);
		x->bytes += done;
		if (done < n)
			return fault_error(x, s.addr + done, r.addr + done);
		s.addr += n; s.left -= n;
		r.addr += n; r.left -= n;
	}
	return 0;
}

/*
 * A map or grant item.  A large one may stop for waiting interrupts
 * (IPC_XFER_PREEMPT); the sender's map_resume then remembers the item and
 * how far it got, and the retried IPC skips the items before it and goes
 * on there, provided it is the same item to the same receiver.
 */
static word_t map_item(struct xfer *x, const word_t *mr, int i, int end)
{
	word_t window = br(x, 0) & ~0xfUL;
	if (i + 1 > end || !window)
		return overflow(x);
	if (!x->snd->space || !x->rcv->space)
		return 0;
	typeof(x->snd->map_resume) *r = &x->snd->map_resume;
	word_t offset = 0;
	if (r->rcv == x->rcv->id) {
		if ((word_t)i < r->index)
			return 0;                   /* done before the stop */
		if ((word_t)i == r->index && r->w0 == mr[i] && r->fpage == mr[i + 1] && r->window == window)
			offset = r->offset;
	}
	if (mapping_fpage(x->snd->space, mr[i + 1], mr[i] & ~0x3ffUL, x->rcv->space, window,
			  L4_ITEM_TYPE(mr[i]) == L4_ITEM_GRANT, &offset)) {
		*r = (typeof(*r)){ x->rcv->id, (word_t)i, mr[i], mr[i + 1], window, offset };
		return IPC_XFER_PREEMPT;
	}
	r->rcv = 0;
	return 0;
}

/* Out of line: the untyped common case needs none of its stack frame. */
static __attribute__((noinline)) word_t typed_items(struct xfer *x, const word_t *mr, int i, int end)
{
	x->brs = (const word_t *)(x->rcv->utcb_k + UTCB_BR(0));
	x->br = 1;
	while (i <= end) {
		word_t w0 = mr[i], err;
		if (L4_ITEM_TYPE(w0) == L4_ITEM_MAP || L4_ITEM_TYPE(w0) == L4_ITEM_GRANT) {
			err = map_item(x, mr, i, end);
			i += 2;
		} else if (L4_STRING_IS(w0)) {
			err = copy_string(x, mr, i, end);
			i = string_end(mr, 1, i, end);
		} else {
			err = overflow(x);
		}
		if (err)
			return err;
	}
	return 0;
}

word_t ipc_transfer_typed(struct tcb *snd, struct tcb *rcv, const word_t *mr, int i, int end)
{
	struct xfer x = { .snd = snd, .rcv = rcv };
	return typed_items(&x, mr, i, end);
}


