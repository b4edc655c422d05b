// SPDX-License-Identifier: MIT
// Message transfer: untyped words, map items and string items (abi.md §5.3, §6.2).
#include "ipc.h"
#include "space.h"
#include "mapping.h"
#include "timer.h"
#include "config.h"
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
	bool timed;          /* deadline and snd_expires are set (at the first fault) */
	bool snd_expires;    /* the sender's xfer timeout is the earlier one */
	u64 deadline;        /* end of the transfer's time for faults; TIMEOUT_NONE: never */
};

static inline word_t br(const struct xfer *x, int i)
{
	return word_at(x->brs, -1, i);
}

/*
 * The xfer timeouts (X.2): the sender's send-xfer and the receiver's
 * receive-xfer timeout, both running from the first fault; the earlier one
 * bounds the whole transfer.  Equal ones count as the sender's.
 */
static void xfer_timeouts(struct xfer *x)
{
	u64 now = timer_now();
	u64 dsnd = timeout_deadline(utcb_get(x->snd, UTCB_XFER_TIMEOUTS) >> 16 & 0xffff, now);
	u64 drcv = timeout_deadline(utcb_get(x->rcv, UTCB_XFER_TIMEOUTS) & 0xffff, now);
	x->snd_expires = dsnd != TIMEOUT_NONE && (drcv == TIMEOUT_NONE || dsnd <= drcv);
	x->deadline = x->snd_expires ? dsnd : drcv;
	x->timed = true;
}

/* The sender's error: code 5 "in the invoker's" or 6 "in the partner's" space, bytes so far. */
static word_t xfer_error(const struct xfer *x, bool own)
{
	return (x->bytes << 4) | (own ? L4_IPC_XFER_TO_OWN : L4_IPC_XFER_TO_PARTNER);
}

/*
 * A copy met unmapped (or, for the receiver, read-only) user memory at src
 * or dst.  The side whose memory it is has its pager map it, within the
 * xfer timeouts (ipc_xfer_resolve), and the copy goes on: 0.  Otherwise the
 * sender's error: a timeout reports 5 to the side whose timeout expired
 * (zero ones expire at once) and 6 to the other; memory no pager can map
 * (kernel addresses, the KIP and UTCB areas, no pager, a pager that is the
 * partner itself) reports 5 to the side it belongs to; an abort reports 7
 * to both.
 */
static word_t copy_fault(struct xfer *x, word_t src, word_t dst)
{
	bool snd_side = !space_kaddr(x->snd->space, src, MAP_R);
	word_t addr = snd_side ? src : dst;
	if (!x->timed)
		xfer_timeouts(x);
	if (x->deadline != TIMEOUT_NONE && x->deadline <= timer_now())
		return xfer_error(x, x->snd_expires);
	struct space *in = (snd_side ? x->snd : x->rcv)->space;
	if (addr >= USER_TOP || !space_area_free(in, addr & PAGE_MASK, PAGE_SIZE))
		return xfer_error(x, snd_side);      /* no pager can map kernel, KIP or UTCB memory */
	switch (ipc_xfer_resolve(x->snd, x->rcv, snd_side ? x->snd : x->rcv, addr & PAGE_MASK,
				 snd_side ? MAP_R : MAP_W, x->deadline)) {
	case XF_OK:
		return 0;
	case XF_TIMEOUT:
		return xfer_error(x, x->snd_expires);
	case XF_UNRESOLVED:
		return xfer_error(x, snd_side);
	default:
		return (x->bytes << 4) | L4_IPC_ABORTED;
	}
}

static word_t overflow(const struct xfer *x)
{
	return (x->bytes << 4) | L4_IPC_OVERFLOW;
}

/*
 * Copy one logical send string (MRs from index i) into the next receive
 * buffer, a page at most between preemption points.
 */
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
		word_t n = s.left < r.left ? s.left : r.left, err;
		if (n > PAGE_SIZE)
			n = PAGE_SIZE;
		word_t done = space_copy(x->snd->space, s.addr, x->rcv->space, r.addr, n);
		x->bytes += done;
		s.addr += done; s.left -= done;
		r.addr += done; r.left -= done;
		if (done < n)
			err = copy_fault(x, s.addr, r.addr);
		else
			err = ipc_xfer_preempt(x->snd) ? (x->bytes << 4) | L4_IPC_ABORTED : 0;
		if (err)
			return err;
	}
	return 0;
}

/*
 * A map or grant item.  A large one stops every few pages where interrupts
 * wait (mapping_fpage); inside a locked transfer (a long message, see
 * ipc_is_long) it takes them there and goes on, otherwise the item is
 * small and simply goes on.
 */
static word_t map_item(struct xfer *x, const word_t *mr, int i, int end)
{
	word_t window = br(x, 0) & ~0xfUL;
	if (i + 1 > end || !window)
		return overflow(x);
	word_t offset = 0;
	bool locked = x->snd->xfer_copying && x->snd->xfer_peer == x->rcv;
	while (x->snd->space && x->rcv->space &&
	       mapping_fpage(x->snd->space, mr[i + 1], mr[i] & ~0x3ffUL, x->rcv->space, window,
			     L4_ITEM_TYPE(mr[i]) == L4_ITEM_GRANT, &offset))
		if (locked && ipc_xfer_preempt(x->snd))
			return (x->bytes << 4) | L4_IPC_ABORTED;
	return 0;
}

bool ipc_short_string_copy(struct tcb *snd, struct tcb *rcv, word_t s0, word_t src)
{
	word_t len = L4_STRING_LEN(s0);
	if (snd->xfer_peer || rcv->xfer_peer)
		return false;                  /* nested strings: the general path's overflow */
	const word_t *brs = (const word_t *)(rcv->utcb_k + UTCB_BR(0));
	word_t b1 = word_at(brs, -1, 1), dst = word_at(brs, -1, 2);
	/* the receiver's first buffer holds it all */
	if (!L4_STRING_IS(b1) || len > L4_STRING_LEN(b1) || !(brs[0] & L4_ACCEPT_STRINGS) ||
	    ((dst ^ (dst + len - 1)) & PAGE_MASK) || dst + len - 1 < dst)
		return false;
	const u8 *from = space_kaddr(snd->space, src, MAP_R);
	u8 *to = space_kaddr(rcv->space, dst, MAP_W);
	if (!from || !to)
		return false;
	arch_copy(to, from, len);
	return true;
}

bool ipc_short_string(struct tcb *snd, struct tcb *rcv, const word_t *mr)
{
	word_t tag = mr[0], u = L4_TAG_U(tag);
	return L4_TAG_T(tag) == 2 && u + 2 < L4_NUM_MRS && ipc_short_string_item(mr[u + 1], mr[u + 2]) &&
	       ipc_short_string_copy(snd, rcv, mr[u + 1], mr[u + 2]);
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

/* Would a map item of this fpage stop for interrupts (more pages than a preemption step)? */
static bool map_is_long(word_t fpage)
{
	return L4_FPAGE_LOG2(fpage) >= 64 || (1UL << L4_FPAGE_LOG2(fpage)) > CONFIG_PREEMPT_PAGES * PAGE_SIZE;
}

/* Scan the typed items: does one need the transfer lock (strings: true; maps: if long)? */
static bool typed_scan(const word_t *mr, bool with_maps)
{
	word_t tag = mr[0];
	int i = (int)L4_TAG_U(tag) + 1, end = (int)(L4_TAG_U(tag) + L4_TAG_T(tag));
	if (end >= L4_NUM_MRS)
		return false;                  /* an overflow before any item */
	while (i <= end) {
		if (L4_STRING_IS(mr[i]))
			return true;
		if (L4_ITEM_TYPE(mr[i]) != L4_ITEM_MAP && L4_ITEM_TYPE(mr[i]) != L4_ITEM_GRANT)
			return false;
		if (with_maps && i + 1 <= end && map_is_long(mr[i + 1]))
			return true;
		i += 2;
	}
	return false;
}

bool ipc_has_strings(const word_t *mr)
{
	return typed_scan(mr, false);
}

bool ipc_is_long(const word_t *mr)
{
	return typed_scan(mr, true);
}

word_t ipc_transfer_typed(struct tcb *snd, struct tcb *rcv, const word_t *mr, int i, int end)
{
	struct xfer x = { .snd = snd, .rcv = rcv };
	return typed_items(&x, mr, i, end);
}


