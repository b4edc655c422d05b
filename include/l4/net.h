/* SPDX-License-Identifier: MIT */
/*
 * Protocol of the network server (servers/net/: smoltcp over the NIC driver),
 * shared by the server and its clients (lib/net/).  It is shaped after BSD
 * sockets so that a personality (lx) can put AF_INET/AF_INET6 stream and
 * datagram sockets on it one call for one call: socket, bind, listen,
 * accept, connect, send(to), recv(from), shutdown, close, get{sock,peer}name,
 * setsockopt, and poll for readiness.  docs/net.md has the whole picture.
 *
 * Requests are Calls; labels are the request type.  A socket is a handle,
 * a small number the server gives out (0..NET_MAX_HANDLES-1).  No request
 * blocks except POLL: a send, receive, accept or connect that cannot go on
 * at once answers NET_ERR_AGAIN, and the client waits with POLL (lib/net's
 * blocking calls do exactly that).
 *
 * An address takes three words, "A" below (struct net_addr in memory):
 *   word 0 = family | port << 16 | flowinfo << 32 (family NET_AF_INET or
 *   NET_AF_INET6, port in host order), words 1-2 = the 16 address bytes
 *   (IPv4: the first 4) in memory order.  Family 0: no address.
 *
 *   SOCKET   u = 2: MR1 = family, MR2 = NET_SOCK_*.  Reply u = 1: MR1 = handle.
 *   BIND     u = 4: MR1 = handle, MR2-4 = A (port 0: an ephemeral port;
 *            ICMP: port = the echo identifier).  Reply u = 0.
 *   LISTEN   u = 2: MR1 = handle (bound TCP), MR2 = backlog (1..8).  Reply u = 0.
 *   ACCEPT   u = 1: MR1 = listening handle.  Reply u = 4: MR1 = the new
 *            connection's handle, MR2-4 = A of the peer.
 *   CONNECT  u = 4: MR1 = handle, MR2-4 = A.  Reply u = 0 once the SYN is on
 *            its way; POLL shows NET_EV_OUT when established, NET_EV_ERR and
 *            NET_EV_HUP when refused or reset.
 *   SEND     u = 4, t = 2: MR1 = handle (| NET_SEND_TELL), MR2-4 = A
 *            (datagrams: the destination; TCP: family 0), then one string
 *            item of at most NET_IO_MAX bytes.  The stack runs before the
 *            reply, so what the send brought over the loopback has arrived.
 *            Reply u = 2: MR1 = bytes taken (TCP may take fewer; a datagram
 *            is taken whole or not at all); MR2 = with NET_SEND_TELL, the
 *            bitmap WATCH would answer (the handles that gained events since
 *            WATCH last answered), and those are then not told to WATCH: a
 *            client that also WATCHes acts on it as on WATCH's answer; else 0.
 *            With u = 5 (NET_SEND_TELL set), MR5 = the datagram handles the
 *            client takes a datagram for, and its BR0-BR2 accept one string
 *            of NET_IO_MAX bytes: the oldest datagram of the first of those
 *            handles that gained events in this SEND's run rides on the
 *            answer, as RECV's would (it is then the client's): reply u = 7,
 *            t = 2, MR3 = its handle, MR4 = bytes | NET_RECV_DRAINED, MR5-7 =
 *            A of the sender, then the string item.  Else reply u = 2.  (Over
 *            the loopback a datagram's reader needs no RECV of its own.)
 *   RECV     u = 2: MR1 = handle, MR2 = most bytes wanted (<= NET_IO_MAX);
 *            the caller's BR0-BR2 accept one string.  Reply u = 4, t = 2:
 *            MR1 = bytes | NET_RECV_DRAINED if nothing more is there to
 *            read now, MR2-4 = A of the sender or peer, then the string
 *            item.  0 bytes from TCP: the peer closed (end of stream).  A
 *            datagram longer than MR2 is dropped with NET_ERR_MSGSIZE.
 *   SHUTDOWN u = 2: MR1 = handle, MR2 = NET_SHUT_WR (sends a FIN).  Reply u = 0.
 *   CLOSE    u = 1: MR1 = handle.  Reply u = 0; the handle is free at once
 *            (TCP closes in the background).
 *   NAME     u = 2: MR1 = handle, MR2 = 0 local, 1 peer.  Reply u = 3: A.
 *   SETOPT   u = 3: MR1 = handle, MR2 = NET_OPT_*, MR3 = value.  Reply u = 0.
 *   POLL     u = 1 + n, 1 <= n <= NET_POLL_MAX: MR1 = timeout in
 *            microseconds (0: answer at once; NET_POLL_FOREVER: none), MR2..
 *            = handle | events << 32 (events: NET_EV_IN | NET_EV_OUT).
 *            Reply u = n once any handle has one of its events, NET_EV_ERR
 *            or NET_EV_HUP, or the time is up: MR i+1 = the handle's events
 *            now (NET_EV_NVAL for a handle that is not open).  One POLL may
 *            wait per client thread.
 *   WATCH    u = 0.  Reply u = 1 once any handle gained an event (NET_EV_*,
 *            as POLL would report them, NET_EV_NVAL once closed; events lost
 *            are not reported) since the last WATCH reply: MR1 = a bitmap of those handles
 *            (bit h for handle h).  One WATCH waits at a time (a new one
 *            replaces it); a personality serving many processes from one
 *            thread waits in WATCH from a helper thread and wakes the calls
 *            parked on those handles (lx: servers/lx/net/inet.c).
 *   INFO     u = 0.  Reply u = 8: MR1 = MAC address (byte 0 in bits 0-7),
 *            MR2 = IPv4 address (byte 0 in bits 0-7) | prefix << 32, MR3-4 =
 *            IPv6 address, MR5 = IPv6 prefix, MR6 = frames received, MR7 =
 *            frames dropped (receive ring full), MR8 = frames the NIC refused.
 * A failed request is answered with DRIVER_ERROR (include/l4/drivers.h),
 * u = 1, MR1 = a reason: DRIVER_ERR_REQUEST, DRIVER_ERR_BUSY (too many
 * POLLs waiting) or one of NET_ERR_* (the errno a personality gives in
 * brackets).
 */
#ifndef L4_NET_H
#define L4_NET_H

#define NET_SOCKET    0x50
#define NET_BIND      0x51
#define NET_LISTEN    0x52
#define NET_ACCEPT    0x53
#define NET_CONNECT   0x54
#define NET_SEND      0x55
#define NET_SEND_TELL (1UL << 62)      /* SEND's MR1: tell the changed handles in the reply */
#define NET_RECV      0x56
#define NET_RECV_DRAINED (1UL << 62)   /* RECV's reply: the handle has nothing more now */
#define NET_SHUTDOWN  0x57
#define NET_CLOSE     0x58
#define NET_NAME      0x59
#define NET_SETOPT    0x5a
#define NET_POLL      0x5b
#define NET_INFO      0x5c
#define NET_WATCH     0x5d

/* Reasons, one enum for the protocol (servers/net/stack/src/table.rs mirrors them). */
#define NET_ERR_HANDLE       10   /* not an open handle [EBADF] */
#define NET_ERR_AGAIN        11   /* would block: POLL, then try again [EAGAIN, EINPROGRESS] */
#define NET_ERR_INVAL        12   /* bad argument or state, e.g. listen before bind [EINVAL] */
#define NET_ERR_NOBUFS       13   /* no free socket of that type [ENOBUFS] */
#define NET_ERR_ADDRINUSE    14   /* the port is taken [EADDRINUSE] */
#define NET_ERR_NOTCONN      15   /* not connected, or no destination [ENOTCONN] */
#define NET_ERR_CONNREFUSED  16   /* reset or refused [ECONNREFUSED] */
#define NET_ERR_AFNOSUPPORT  17   /* family not IPv4/IPv6, or not the socket's [EAFNOSUPPORT] */
#define NET_ERR_ISCONN       18   /* already connected or listening [EISCONN] */
#define NET_ERR_UNREACH      19   /* no route to the address [ENETUNREACH] */
#define NET_ERR_MSGSIZE      20   /* datagram too long (for the buffer) [EMSGSIZE] */
#define NET_ERR_OPNOTSUPP    21   /* not for this socket type [EOPNOTSUPP] */
#define NET_ERR_NODEV        22   /* the server has no network interface [ENETDOWN] */

#define NET_AF_INET     2         /* the Linux values, so a personality passes them through */
#define NET_AF_INET6    10
#define NET_SOCK_STREAM 1         /* TCP */
#define NET_SOCK_DGRAM  2         /* UDP */
#define NET_SOCK_ICMP   3         /* ICMP echo ("ping socket": SOCK_DGRAM, IPPROTO_ICMP) */

#define NET_EV_IN    0x01         /* the poll(2) values */
#define NET_EV_OUT   0x04
#define NET_EV_ERR   0x08
#define NET_EV_HUP   0x10
#define NET_EV_NVAL  0x20

#define NET_SHUT_WR  1
#define NET_OPT_NODELAY       1   /* TCP_NODELAY: value 0/1 */
#define NET_OPT_KEEPALIVE_MS  2   /* keep-alive interval in ms, 0: off */

#define NET_MAX_HANDLES  64
#define NET_IO_MAX       65536    /* most bytes one SEND or RECV moves (a whole datagram) */
#define NET_POLL_MAX     6        /* most handles one POLL names */
#define NET_POLL_FOREVER (~0UL)

#ifndef __ASSEMBLER__
#include <stdint.h>
/* An address as it lies in memory: the three words of "A". */
struct net_addr {
	uint16_t family, port;
	uint32_t flowinfo;
	uint8_t addr[16];
};
#endif

#endif
