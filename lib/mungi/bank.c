// SPDX-License-Identifier: MIT
// The rent collector and the paymaster (bank.h): policy at user level; the
// server only insists that an account in credit pays for a new object.
#include "bank.h"

mw_t mungi_rent(const struct mungi_bank *b, mw_t pages, mw_t total)
{
	/* super-linear in the storage in use: users who hoard run out first when it is scarce */
	mw_t f = b->threshold ? (b->threshold + total) * 1024 / b->threshold : 1024;
	return pages * b->rate * f / 1024 * f / 1024;
}

/* Pages charged to each served account, and in the whole system, from the object table. */
static mw_t count(const struct mungi_bank *b, mw_t pages[MUNGI_BANK_ACCOUNTS])
{
	mw_t total = 0, addr = 0, base, n, acct;
	for (mw_t i = 0; i < b->naccts; i++)
		pages[i] = 0;
	while (!mungi_ot_enum(&b->bank, addr, &base, &n, &acct) && base) {
		total += n;
		for (mw_t i = 0; i < b->naccts; i++)
			pages[i] += acct == b->acct[i].base ? n : 0;
		addr = base + 1;
	}
	return total;
}

long mungi_rent_collector(mw_t arg)
{
	struct mungi_bank *b = (struct mungi_bank *)arg;
	mw_t pages[MUNGI_BANK_ACCOUNTS];
	while (!b->stop) {
		L4_Sleep(b->period_us);
		mw_t total = count(b, pages);
		for (mw_t i = 0; i < b->naccts; i++) {
			mw_t rent = mungi_rent(b, pages[i], total);
			long balance = 0;
			mungi_acct_deposit(&b->bank, b->acct[i].base, -(long)rent, &balance);
			struct mungi_statement *s = (struct mungi_statement *)b->acct[i].base;
			if (s->lines < MUNGI_STATEMENT_LINES)
				s->line[s->lines] = (typeof(s->line[0])){ pages[i], rent, balance };
			s->lines++;
		}
		b->rounds++;
	}
	return 0;
}

long mungi_paymaster(mw_t arg)
{
	struct mungi_bank *b = (struct mungi_bank *)arg;
	while (!b->stop) {
		L4_Sleep(b->period_us);
		for (mw_t i = 0; i < b->naccts; i++)
			mungi_acct_deposit(&b->bank, b->acct[i].base, (long)b->allowance, NULL);
	}
	return 0;
}
