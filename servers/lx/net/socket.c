// SPDX-License-Identifier: MIT
// socket(2) and socketpair(2): the one place that knows every socket family.
#include "../lx.h"

static const struct sock_family *const families[] = { &unix_family };

/* The type is checked first, as Linux does, then the family decides the rest. */
static const struct sock_family *family(u64 domain, u64 type, long *err)
{
	u64 base = type & ~(u64)(LX_SOCK_NONBLOCK | LX_SOCK_CLOEXEC);
	*err = -LX_EINVAL;
	if (base >= LX_SOCK_TYPES || (int)type < 0)
		return NULL;
	*err = -LX_EAFNOSUPPORT;
	for (unsigned i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if ((u64)families[i]->domain == domain)
			return families[i];
	return NULL;
}

long sys_socket(struct thread *t, u64 domain, u64 type, u64 proto, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	long err;
	const struct sock_family *f = family(domain, type, &err);
	return f ? f->socket(t, domain, type, proto) : err;
}

long sys_socketpair(struct thread *t, u64 domain, u64 type, u64 proto, u64 usv, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	long err;
	const struct sock_family *f = family(domain, type, &err);
	return f ? f->socketpair(t, domain, type, proto, usv) : err;
}
