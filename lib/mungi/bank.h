/* SPDX-License-Identifier: MIT */
/*
 * The bank's user-level tasks (seed 002, "Storage management"): a rent
 * collector that charges each account it serves, every period, for the
 * pages of the objects charged to it, at a rate that grows with the storage
 * in use in the whole system, and writes a statement into the account
 * object; and a paymaster that deposits an allowance into each, every
 * period.  Both run as Mungi tasks holding the bank's capability and a W
 * capability for every account they serve; their argument is the address
 * of a struct mungi_bank they can read (and write: rounds, stop).
 */
#ifndef MUNGI_BANK_H
#define MUNGI_BANK_H

#include "mungi.h"

#define MUNGI_BANK_ACCOUNTS   16
#define MUNGI_STATEMENT_LINES 200

struct mungi_bank {
	struct mungi_cap bank;
	struct mungi_cap acct[MUNGI_BANK_ACCOUNTS];
	mw_t naccts;
	mw_t period_us;
	mw_t rate;                      /* per page and period while little storage is in use */
	mw_t threshold;                 /* system-wide pages at which the rate is four times rate (0: flat) */
	mw_t allowance;                 /* the paymaster's deposit per account and period */
	volatile mw_t stop, rounds;
};

/* What an account object holds: one line per period the rent collector charged it. */
struct mungi_statement {
	mw_t lines;
	struct { mw_t pages, rent; long balance; } line[MUNGI_STATEMENT_LINES];
};

/* The rent for pages when total pages are in use: rate per page times (1 + total/threshold)^2. */
mw_t mungi_rent(const struct mungi_bank *b, mw_t pages, mw_t total);
long mungi_rent_collector(mw_t bank);
long mungi_paymaster(mw_t bank);

#endif
