// SPDX-License-Identifier: MIT
// printf-style formatting without libc, used by the kernel and by user programs.
#include "fmt.h"

struct spec {
	int left, zero, width, longs;
};

static int emit_padded(fmt_sink_t sink, void *arg, const struct spec *sp,
		       const char *s, int len, char pad)
{
	int n = 0;
	if (!sp->left)
		for (; n < sp->width - len; n++)
			sink(pad, arg);
	for (int i = 0; i < len; i++)
		sink(s[i], arg);
	n += len;
	for (; n < sp->width; n++)
		sink(' ', arg);
	return n;
}

static int emit_number(fmt_sink_t sink, void *arg, const struct spec *sp,
		       unsigned long v, unsigned base, int neg, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[24];
	int i = sizeof(buf);
	do {
		buf[--i] = digits[v % base];
		v /= base;
	} while (v);
	if (neg && sp->zero && sp->width > 0) {
		/* sign goes before the zero padding */
		sink('-', arg);
		struct spec rest = *sp;
		rest.width--;
		return 1 + emit_padded(sink, arg, &rest, buf + i, (int)sizeof(buf) - i, '0');
	}
	if (neg)
		buf[--i] = '-';
	return emit_padded(sink, arg, sp, buf + i, (int)sizeof(buf) - i, sp->zero ? '0' : ' ');
}

static const char *parse_spec(const char *f, struct spec *sp)
{
	*sp = (struct spec){0};
	for (;; f++) {
		if (*f == '-')
			sp->left = 1;
		else if (*f == '0')
			sp->zero = 1;
		else
			break;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	while (*f == 'l' || *f == 'z') {
		sp->longs++;
		f++;
	}
	if (sp->left)
		sp->zero = 0;
	return f;
}

static unsigned long fetch_unsigned(const struct spec *sp, va_list *ap)
{
	return sp->longs ? va_arg(*ap, unsigned long) : va_arg(*ap, unsigned int);
}

static long fetch_signed(const struct spec *sp, va_list *ap)
{
	return sp->longs ? va_arg(*ap, long) : va_arg(*ap, int);
}

int vfmt(fmt_sink_t sink, void *arg, const char *f, va_list ap)
{
	int n = 0;
	va_list aq;
	va_copy(aq, ap);
	while (*f) {
		if (*f != '%') {
			sink(*f++, arg);
			n++;
			continue;
		}
		struct spec sp;
		f = parse_spec(f + 1, &sp);
		char c = *f ? *f++ : '\0';
		switch (c) {
		case 'c': {
			char ch = (char)va_arg(aq, int);
			n += emit_padded(sink, arg, &sp, &ch, 1, ' ');
			break;
		}
		case 's': {
			const char *s = va_arg(aq, const char *);
			int len = 0;
			if (!s)
				s = "(null)";
			while (s[len])
				len++;
			n += emit_padded(sink, arg, &sp, s, len, ' ');
			break;
		}
		case 'd':
		case 'i': {
			long v = fetch_signed(&sp, &aq);
			n += emit_number(sink, arg, &sp, v < 0 ? -(unsigned long)v : (unsigned long)v, 10, v < 0, 0);
			break;
		}
		case 'u':
			n += emit_number(sink, arg, &sp, fetch_unsigned(&sp, &aq), 10, 0, 0);
			break;
		case 'o':
			n += emit_number(sink, arg, &sp, fetch_unsigned(&sp, &aq), 8, 0, 0);
			break;
		case 'x':
		case 'X':
			n += emit_number(sink, arg, &sp, fetch_unsigned(&sp, &aq), 16, 0, c == 'X');
			break;
		case 'p':
			sink('0', arg);
			sink('x', arg);
			sp.longs = 1;
			n += 2 + emit_number(sink, arg, &sp, (unsigned long)va_arg(aq, void *), 16, 0, 0);
			break;
		case '%':
			sink('%', arg);
			n++;
			break;
		default: /* unknown conversion: print it verbatim */
			sink('%', arg);
			if (c)
				sink(c, arg);
			n += c ? 2 : 1;
			break;
		}
	}
	va_end(aq);
	return n;
}

struct bufsink {
	char *buf;
	unsigned long size, len;
};

static void buf_put(char c, void *arg)
{
	struct bufsink *b = arg;
	if (b->len + 1 < b->size)
		b->buf[b->len] = c;
	b->len++;
}

int vsnfmt(char *buf, unsigned long size, const char *fmt, va_list ap)
{
	struct bufsink b = { buf, size, 0 };
	int n = vfmt(buf_put, &b, fmt, ap);
	if (size)
		buf[b.len < size ? b.len : size - 1] = '\0';
	return n;
}

int snfmt(char *buf, unsigned long size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnfmt(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
