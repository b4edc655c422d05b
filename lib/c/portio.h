/* SPDX-License-Identifier: MIT */
/* Port I/O from user mode: works only on ports the space has as I/O fpages. */
#ifndef PECAN_PORTIO_H
#define PECAN_PORTIO_H

static inline void outb(unsigned short port, unsigned char v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline unsigned char inb(unsigned short port)
{
	unsigned char v;
	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(unsigned short port, unsigned short v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline unsigned short inw(unsigned short port)
{
	unsigned short v;
	__asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(unsigned short port, unsigned int v)
{
	__asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline unsigned int inl(unsigned short port)
{
	unsigned int v;
	__asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* Move count 16-bit words from port to buf (rep insw), and from buf to port. */
static inline void insw(unsigned short port, void *buf, unsigned long count)
{
	__asm__ __volatile__("rep insw" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsw(unsigned short port, const void *buf, unsigned long count)
{
	__asm__ __volatile__("rep outsw" : "+S"(buf), "+c"(count) : "d"(port) : "memory");
}

#endif
