/* SPDX-License-Identifier: MIT */
/*
 * lx's sockets.  socket.c is the one dispatch point: socket(2) and
 * socketpair(2) pick the family from its table, and every later call on a
 * descriptor finds the family by the descriptor's file operations and runs
 * the family's operation (struct sock_ops); the calls that carry messages
 * (sendto, sendmsg, recvfrom, recvmsg) are decoded there once.  Families:
 * AF_UNIX (unix.c: stream, datagram and sequenced-packet sockets in lx),
 * AF_INET and AF_INET6 (inet.c: TCP and UDP on the network server,
 * servers/net/, which server.c starts and watches).  Readiness, for poll,
 * select and an epoll: every socket file's poll op tells its events now, and
 * its wchan is woken whenever they may have changed.
 */
#ifndef LX_NET_H
#define LX_NET_H

#include "../lx.h"

#define LX_AF_UNIX        1
#define LX_AF_INET        2
#define LX_AF_INET6       10
#define LX_SOCK_STREAM    1
#define LX_SOCK_DGRAM     2
#define LX_SOCK_RAW       3
#define LX_SOCK_SEQPACKET 5
#define LX_SOCK_TYPES     11           /* Linux's SOCK_MAX: beyond it, EINVAL */
#define LX_SOCK_NONBLOCK  LX_O_NONBLOCK
#define LX_SOCK_CLOEXEC   LX_O_CLOEXEC

#define LX_MSG_PEEK       0x2
#define LX_MSG_TRUNC      0x20
#define LX_MSG_DONTWAIT   0x40
#define LX_MSG_WAITALL    0x100
#define LX_MSG_NOSIGNAL   0x4000

#define LX_SOL_SOCKET     1

struct sock_iovec {
	u64 base, len;
};

/* AF_UNIX control messages (net/scm.c): the descriptors SCM_RIGHTS carries */
#define LX_MSG_CTRUNC       0x8
#define LX_MSG_CMSG_CLOEXEC 0x40000000
struct scm_files {
	struct file **f;                /* each a reference */
	u32 n;
	bool has_cred;                  /* receive, SO_PASSCRED: the sender's pid, uid, gid */
	u32 cred[3];
};
/* sendmsg's control buffer: its descriptors in *s, 0, or -errno (nothing held) */
long scm_send_parse(struct thread *t, u64 control, u64 len, struct scm_files *s);
/* recvmsg: s's files installed and named in the control buffer (room bytes), as many
 * as fit (else MSG_CTRUNC in *mflags, the rest closed); *used: bytes written */
long scm_recv_put(struct thread *t, u64 control, u64 room, struct scm_files *s, bool cloexec,
		  u64 *used, int *mflags);
void scm_release(struct scm_files *s);
bool scm_dup(const struct scm_files *from, struct scm_files *to);

/* A send or receive call, decoded (socket.c): the iovecs, the address, the flags. */
struct sock_msg {
	const struct sock_iovec *iov;
	u64 cnt;
	size_t total;                   /* the iovecs' bytes */
	u64 addr, addrlen;              /* send: the destination (0: none); receive: where the
					   sender goes and the address of its length (0: not wanted) */
	u64 flags;                      /* MSG_* */
	int mflags;                     /* receive: MSG_TRUNC when a datagram was cut */
	/* send: descriptors to carry, taken by the family that carries them (NULL: none);
	 * receive: where descriptors received go (NULL: not wanted, they are closed) */
	struct scm_files *scm;
};

/*
 * A family's calls on one of its sockets (the file is the family's): the
 * system calls' arguments, checked for the family; the result or -errno
 * (SYS_BLOCK when the call parked).  send's -EPIPE raises SIGPIPE in socket.c.
 */
struct sock_ops {
	long (*bind)(struct thread *t, struct file *f, u64 uaddr, u64 len);
	long (*listen)(struct thread *t, struct file *f, int backlog);
	long (*accept)(struct thread *t, struct file *f, u64 uaddr, u64 ulen, u32 flags);
	long (*connect)(struct thread *t, struct file *f, u64 uaddr, u64 len);
	long (*send)(struct thread *t, struct file *f, struct sock_msg *m);
	long (*recv)(struct thread *t, struct file *f, struct sock_msg *m);
	long (*shutdown)(struct thread *t, struct file *f, int how);
	long (*name)(struct thread *t, struct file *f, u64 uaddr, u64 ulen, bool peer);
	long (*setsockopt)(struct thread *t, struct file *f, int level, int name, u64 val, u64 len);
	long (*getsockopt)(struct thread *t, struct file *f, int level, int name, u64 val, u64 ulen);
};

/* A socket family: its creation calls, and the file operations and socket calls of its sockets. */
struct sock_family {
	int domain, domain2;            /* the families it serves (domain2 0: one) */
	long (*socket)(struct thread *t, u64 domain, u64 type, u64 proto);
	long (*socketpair)(struct thread *t, u64 domain, u64 type, u64 proto, u64 usv);
	const struct file_ops *fops;
	const struct sock_ops *ops;
	const struct file_ops *fops2;   /* another set some of its sockets have (NULL: none) */
};

extern const struct sock_family unix_family, inet_family;

/* socket.c: shared by the families */
/* Gather bytes [skip, skip + n) of the iovecs into buf; false on a bad address. */
long sock_put_sized(struct thread *t, u64 ubuf, u64 ulen, int room, const void *data, int len, bool whole);
bool sock_gather(struct thread *t, const struct sock_iovec *iov, u64 cnt, size_t skip, char *buf, size_t n);
/* Scatter n bytes of buf over the iovecs; the count that reached the process. */
size_t sock_scatter(struct thread *t, const struct sock_iovec *iov, u64 cnt, const char *buf, size_t n);
/* A new descriptor for a socket file (ops, priv), with SOCK_NONBLOCK/SOCK_CLOEXEC of flags. */
long sock_new_fd(struct thread *t, const struct file_ops *ops, void *priv, u32 flags);

/* socket.c, for mmsg.c (sendmmsg, recvmmsg): 0 if fd is a socket, else -EBADF or -ENOTSOCK;
 * sendmsg(2) with the message's byte count in *total (a stream may send less) */
long sock_check(struct thread *t, u64 fd);
long sock_sendmsg(struct thread *t, u64 fd, u64 umsg, u64 flags, size_t *total);

/* server.c: the NIC driver and the network server, started by lx (l4/main.c) */
#define NETSRV_FIRST_TNO 6                  /* lx's thread numbers + these: the servers' threads */
#define NETSRV_LAST_TNO  9                  /* (they may print on the console) */
void netsrv_start_early(void);              /* before lx takes sigma0's memory: the NIC's */
void netsrv_start(const char *cmdline);     /* the server, configured by the boot line's net.* */
bool netsrv_up(void);                       /* the server runs: AF_INET works */
bool netsrv_is_watch(L4_ThreadId_t from);   /* the watch thread's message ... */
void netsrv_message(L4_MsgTag_t tag);       /* ... : wake the calls on handles that changed */
/* Before lx calls the server: the deferred reply goes first (it lies in the MRs). */
void netsrv_prepare(void);

/* inet.c */
void inet_changed(u64 handles);             /* these server handles' readiness changed */
/*
 * /proc/net/{tcp,tcp6,udp,udp6,dev}: the file's text (Linux's format) for
 * the sockets lx has open, into buf (at most len bytes); its length, or
 * -ENOENT for another name.  fs/procfs.c calls it.
 */
long net_proc_read(const char *name, char *buf, size_t len);

#endif
