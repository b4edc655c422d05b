// SPDX-License-Identifier: MIT
//! The interface, the device glue and the socket table behind stack.h.
use core::ptr::addr_of_mut;
use smoltcp::iface::{
    Config, Interface, PollIngressSingleResult, PollResult, SocketHandle, SocketSet, SocketStorage,
};
use crate::csum;
use smoltcp::phy::{ChecksumCapabilities, Device, DeviceCapabilities, Medium, RxToken, TxToken};
use smoltcp::socket::{icmp, tcp, udp, Socket};
use smoltcp::time::{Duration, Instant};
use smoltcp::wire::{
    EthernetAddress, HardwareAddress, IpAddress, IpCidr, IpEndpoint, IpListenEndpoint,
    Ipv4Address, Ipv6Address,
};

// The error codes of include/l4/net.h (one enum for the whole protocol).
pub const NET_ERR_REQUEST: i64 = 1;
pub const NET_ERR_HANDLE: i64 = 10;
pub const NET_ERR_AGAIN: i64 = 11;
pub const NET_ERR_INVAL: i64 = 12;
pub const NET_ERR_NOBUFS: i64 = 13;
pub const NET_ERR_ADDRINUSE: i64 = 14;
pub const NET_ERR_NOTCONN: i64 = 15;
pub const NET_ERR_CONNREFUSED: i64 = 16;
pub const NET_ERR_AFNOSUPPORT: i64 = 17;
pub const NET_ERR_ISCONN: i64 = 18;
pub const NET_ERR_UNREACH: i64 = 19;
pub const NET_ERR_MSGSIZE: i64 = 20;
pub const NET_ERR_OPNOTSUPP: i64 = 21;

pub const NET_AF_INET: u16 = 2;
pub const NET_AF_INET6: u16 = 10;
pub const NET_SOCK_STREAM: u32 = 1;
pub const NET_SOCK_DGRAM: u32 = 2;
pub const NET_SOCK_ICMP: u32 = 3;
pub const NET_EV_IN: u32 = 0x01;
pub const NET_EV_OUT: u32 = 0x04;
pub const NET_EV_ERR: u32 = 0x08;
pub const NET_EV_HUP: u32 = 0x10;
pub const NET_EV_NVAL: u32 = 0x20;
pub const NET_SHUT_WR: u32 = 1;
pub const NET_OPT_NODELAY: u32 = 1;
pub const NET_OPT_KEEPALIVE_MS: u32 = 2;

pub const MAX_HANDLES: usize = 64;
const MAX_TCP: usize = 32;
const MAX_UDP: usize = 16;
const MAX_ICMP: usize = 4;
const MAX_BACKLOG: usize = 8;
const TCP_BUF: usize = 65536;         // a window of 64 KiB (window scaling: smoltcp's)
const UDP_BUF: usize = 65536;         // one datagram of the largest size
const UDP_META: usize = 32;
const ICMP_BUF: usize = 4096;
const SOCKETS: usize = MAX_TCP + MAX_UDP + MAX_ICMP;
/// The wire's frames (the NIC's): Ethernet's.
pub(crate) const WIRE_FRAME: usize = 1514;
/// The interface's frames hold any IP packet (65,535 bytes), as Linux's `lo` does,
/// so that a loopback TCP segment carries up to a window (every segment costs
/// smoltcp's whole path, checksums aside) and no loopback datagram is fragmented
/// (smoltcp's IPv4 fragments of such frames did not arrive); the device glue
/// fragments IPv4 packets for the wire to WIRE_FRAME, and IPv6 datagrams are held to
/// one wire frame (`fits`).  TCP to the wire needs neither: the peer's MSS bounds it.
pub(crate) const FRAME: usize = 65535 + 14;
const RX_SLOTS: usize = 32;        // of the interface's 64 KiB frames (2 MiB)
const EPHEMERAL_FIRST: u16 = 49152;
/// smoltcp 0.12 has no persist timer: a peer whose window closed and whose window
/// update got lost (QEMU's slirp sends none) would stall a connection for good.  An
/// idle connection's keep-alive makes the peer answer with its window, so every TCP
/// socket has one unless its client turns it off (NET_OPT_KEEPALIVE_MS 0).
const KEEPALIVE_MS: u64 = 500;
/// A connection nobody holds leaves the socket set this long after it entered
/// TIME-WAIT (park_closed): longer than smoltcp's delayed ACK (10 ms), so the ACK of
/// the peer's FIN has gone out.  smoltcp's TIME-WAIT itself lasts TIME_WAIT_MS.
const TIME_WAIT_GRACE_MS: u64 = 20;
const TIME_WAIT_MS: u64 = 10_000;

/// An address as the protocol carries it (include/l4/net.h, struct net_addr).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct NetAddr {
    pub family: u16,
    pub port: u16,
    pub flowinfo: u32,
    pub addr: [u8; 16],
}

/// The static configuration (from the boot command line, servers/net/config.c).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct StackConfig {
    pub mac: [u8; 6],
    pub ip4_prefix: u8,
    pub ip6_prefix: u8,
    pub ip4: [u8; 4],
    pub gw4: [u8; 4],
    pub ip6: [u8; 16],
    pub gw6: [u8; 16],
    pub seed: u64,
}

pub type TxFn = extern "C" fn(frame: *const u8, len: usize);

/// The receive ring's frames: static, as the server's stack is small.
static mut RX_RING: [[u8; FRAME]; RX_SLOTS] = [[0; FRAME]; RX_SLOTS];

fn ring() -> &'static mut [[u8; FRAME]; RX_SLOTS] {
    // SAFETY: one thread uses the stack, and only Dev touches the ring.
    unsafe { &mut *addr_of_mut!(RX_RING) }
}

/// The device: received frames wait in a ring; loopback frames join them.
struct Dev {
    mac: [u8; 6],
    tx: TxFn,
    lens: [usize; RX_SLOTS],
    head: usize,
    count: usize,
    dropped: u64,
    /// The identification of the next IPv4 packet the glue fragments (smoltcp sends
    /// unfragmented packets with 0: the fragments of two would be one datagram's).
    frag_id: u16,
}

impl Dev {
    /// Queue a frame; from the wire (not the loopback) only with right checksums.
    fn push(&mut self, frame: &[u8], wire: bool) -> bool {
        if self.count == RX_SLOTS || frame.len() > FRAME || frame.len() < 14 {
            self.dropped += 1;
            return false;
        }
        let slot = (self.head + self.count) % RX_SLOTS;
        let copy = &mut ring()[slot][..frame.len()];
        copy.copy_from_slice(frame);
        if wire && !csum::verify(copy) {
            self.dropped += 1;
            return false;
        }
        self.lens[slot] = frame.len();
        self.count += 1;
        true
    }

    /// A frame built in the next free ring slot leaves: as output(), the slot kept
    /// for the loopback instead of a copy.
    fn output_slot(&mut self, slot: usize, len: usize) {
        let frame = &mut ring()[slot][..len];
        let ours = frame[..6] == self.mac;
        let looped = ours || frame[0] & 1 != 0;
        if !ours {
            csum::fill(frame);
            self.wire(frame);
        }
        if looped && len >= 14 {
            self.lens[slot] = len;
            self.count += 1;
        }
    }

    /// The ports (source, destination) of the k-th queued frame if it is a TCP
    /// segment that has them (not a later IPv4 fragment), IPv4 or IPv6 without
    /// extension headers.
    fn tcp_ports(&self, k: usize) -> Option<(u16, u16)> {
        let slot = (self.head + k) % RX_SLOTS;
        let f = &ring()[slot][..self.lens[slot]];
        let at = match f.get(12..14)? {
            [0x08, 0x00] if f.len() >= 34 && f[23] == 6 && f[20] & 0x1f == 0 && f[21] == 0 =>
                14 + (f[14] & 0x0f) as usize * 4,
            [0x86, 0xdd] if f.len() >= 54 && f[20] == 6 => 54,
            _ => return None,
        };
        let p = f.get(at..at + 4)?;
        Some((u16::from_be_bytes([p[0], p[1]]), u16::from_be_bytes([p[2], p[3]])))
    }

    /// Whether every queued frame is a UDP datagram (IPv4 or IPv6 without extension
    /// headers, fragments included): delivering those queues nothing for egress.
    fn only_udp(&self) -> bool {
        (0..self.count).all(|k| {
            let slot = (self.head + k) % RX_SLOTS;
            let f = &ring()[slot][..self.lens[slot]];
            match (f.get(12..14), f.len()) {
                (Some([0x08, 0x00]), n) if n >= 34 => f[23] == 17,
                (Some([0x86, 0xdd]), n) if n >= 54 => f[20] == 17,
                _ => false,
            }
        })
    }

    /// A frame leaves: to the wire (with its checksums) unless it is for us, back in
    /// if for us or for all.
    fn output(&mut self, frame: &mut [u8]) {
        let dst = &frame[..6];
        let ours = dst == self.mac;
        if ours || dst[0] & 1 != 0 {
            self.push(frame, false);
        }
        if !ours {
            csum::fill(frame);
            self.wire(frame);
        }
    }

    /// A frame (checksums filled) to the NIC: whole, or an IPv4 packet longer than a
    /// wire frame in fragments; anything else that long is dropped.
    fn wire(&mut self, frame: &[u8]) {
        if frame.len() <= WIRE_FRAME {
            (self.tx)(frame.as_ptr(), frame.len());
        } else if frame[12..14] != [0x08, 0x00] || !fragment4(frame, self.frag_id, self.tx) {
            self.dropped += 1;
        } else {
            self.frag_id = self.frag_id.wrapping_add(1);
        }
    }
}

/// Send an IPv4 packet in fragments of at most a wire frame, identified by `id`
/// unless it is a fragment already (then its own identification, offset and
/// "more" flag carry over); DF cleared.  False if its header is bad.
fn fragment4(frame: &[u8], id: u16, tx: TxFn) -> bool {
    let ihl = (frame[14] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([frame[16], frame[17]]) as usize;
    let head = 14 + ihl;
    if ihl < 20 || total < ihl || 14 + total > frame.len() {
        return false;
    }
    let flags = u16::from_be_bytes([frame[20], frame[21]]);
    let (base, more) = ((flags & 0x1fff) as usize * 8, flags & 0x2000 != 0);
    let ident = if flags & 0x3fff == 0 { id.to_be_bytes() } else { [frame[18], frame[19]] };
    let payload = &frame[head..14 + total];
    let step = (WIRE_FRAME - head) & !7;
    let mut out = [0u8; WIRE_FRAME];
    for start in (0..payload.len()).step_by(step) {
        let end = (start + step).min(payload.len());
        let mf = if end < payload.len() || more { 0x2000 } else { 0 };
        out[..head].copy_from_slice(&frame[..head]);
        out[head..head + end - start].copy_from_slice(&payload[start..end]);
        out[16..18].copy_from_slice(&((ihl + end - start) as u16).to_be_bytes());
        out[18..20].copy_from_slice(&ident);
        out[20..22].copy_from_slice(&(((base + start) / 8) as u16 | mf).to_be_bytes());
        let mut ip = smoltcp::wire::Ipv4Packet::new_unchecked(&mut out[14..head + end - start]);
        ip.fill_checksum();
        tx(out.as_ptr(), head + end - start);
    }
    true
}

struct Rx<'a>(&'a mut Dev);
struct Tx<'a>(&'a mut Dev);

impl RxToken for Rx<'_> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        let d = self.0;
        let slot = d.head;
        d.head = (d.head + 1) % RX_SLOTS;
        d.count -= 1;
        let len = d.lens[slot];
        f(&ring()[slot][..len])
    }
}

/// A frame being built where no ring slot is free for it.
static mut SCRATCH: [u8; FRAME] = [0; FRAME];

impl TxToken for Tx<'_> {
    /// smoltcp builds the frame in the receive ring's next free slot, so that a
    /// looped-back frame is not copied (the slot is only kept if it is), or else
    /// in the scratch frame.  The slot just handed to a receive token (smoltcp may
    /// answer inside it) is never the next free one: one more must be free.
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let d = self.0;
        let len = len.min(FRAME);
        if d.count + 1 >= RX_SLOTS {
            // SAFETY: one thread uses the stack, and a frame is built at a time.
            let buf = unsafe { &mut (&mut *addr_of_mut!(SCRATCH))[..len] };
            let r = f(buf);
            d.output(buf);
            return r;
        }
        let slot = (d.head + d.count) % RX_SLOTS;
        let r = f(&mut ring()[slot][..len]);
        d.output_slot(slot, len);
        r
    }
}

impl Device for Dev {
    type RxToken<'a> = Rx<'a> where Self: 'a;
    type TxToken<'a> = Tx<'a> where Self: 'a;

    fn receive(&mut self, _t: Instant) -> Option<(Rx<'_>, Tx<'_>)> {
        if self.count == 0 {
            return None;
        }
        // Both tokens need the device; the receive token runs first, then any reply.
        let p: *mut Dev = self;
        // SAFETY: smoltcp consumes the rx token before it uses the tx token.
        unsafe { Some((Rx(&mut *p), Tx(&mut *p))) }
    }

    fn transmit(&mut self, _t: Instant) -> Option<Tx<'_>> {
        Some(Tx(self))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut c = DeviceCapabilities::default();
        c.medium = Medium::Ethernet;
        c.max_transmission_unit = FRAME;
        c.checksum = ChecksumCapabilities::ignored();   // the device's (csum.rs)
        c
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Free,
    /// A TCP socket: pool index; `bound` is the port bind() chose (0: none yet).
    Tcp { i: usize, bound: Option<IpListenEndpoint> },
    /// A listening TCP socket: pool indices of its backlog (usize::MAX: empty slot).
    Listen { ep: IpListenEndpoint, q: [usize; MAX_BACKLOG], n: usize },
    Udp { i: usize },
    Icmp { i: usize },
}

struct State {
    iface: Interface,
    dev: Dev,
    sockets: SocketSet<'static>,
    tcp: [SocketHandle; MAX_TCP],
    tcp_busy: [bool; MAX_TCP],
    udp: [SocketHandle; MAX_UDP],
    udp_busy: [bool; MAX_UDP],
    icmp: [SocketHandle; MAX_ICMP],
    icmp_busy: [bool; MAX_ICMP],
    handles: [Kind; MAX_HANDLES],
    families: [u16; MAX_HANDLES],
    /// Pool sockets that nobody holds and that are done are kept out of the socket
    /// set (parked, Some here; their handle above is stale): smoltcp visits every
    /// socket in the set on every poll, and idle ones cost each round as much as
    /// busy ones.  A socket joins the set when taken, leaves once free and closed.
    tcp_parked: [Option<tcp::Socket<'static>>; MAX_TCP],
    /// Some TCP socket nobody holds may still be in the set (closing): park_closed looks.
    lingering: bool,
    /// Connections nobody holds that wait out TIME-WAIT are parked too (bit i: pool
    /// index i), as Linux keeps them apart from its live sockets: in the set, each
    /// cost every round of the stack (egress and poll_at visit it, and the server
    /// must read the clock), though all they do is answer a FIN sent again.  A
    /// segment for one brings it back (rejoin_time_wait).  tw_since: when each was
    /// first seen in TIME-WAIT, or had its last segment.
    tw_parked: u64,
    tw_since: [Option<Instant>; MAX_TCP],
    /// Open handles (bit h), those open at the last stack_changed, and their events then.
    live: u64,
    was_live: u64,
    last_events: [u8; MAX_HANDLES],
    udp_parked: [Option<udp::Socket<'static>>; MAX_UDP],
    icmp_parked: [Option<icmp::Socket<'static>>; MAX_ICMP],
    next_port: u16,
    now: Instant,
    /// When the stack must run next (smoltcp's poll_at, None inside: no timer), kept
    /// between the calls that cannot change it: computing it visits every slot of
    /// the socket set, and the server asks before every wait.  None: stale.
    poll_at: Option<Option<Instant>>,
    /// The pool sockets in the set (bit i: pool index i), by kind.
    tcp_in: u64,
    udp_in: u64,
    icmp_in: u64,
}

static mut STORAGE: [SocketStorage<'static>; SOCKETS] = [SocketStorage::EMPTY; SOCKETS];
static mut TCP_RX: [[u8; TCP_BUF]; MAX_TCP] = [[0; TCP_BUF]; MAX_TCP];
static mut TCP_TX: [[u8; TCP_BUF]; MAX_TCP] = [[0; TCP_BUF]; MAX_TCP];
static mut UDP_RX: [[u8; UDP_BUF]; MAX_UDP] = [[0; UDP_BUF]; MAX_UDP];
static mut UDP_TX: [[u8; UDP_BUF]; MAX_UDP] = [[0; UDP_BUF]; MAX_UDP];
static mut UDP_RXM: [[udp::PacketMetadata; UDP_META]; MAX_UDP] =
    [[udp::PacketMetadata::EMPTY; UDP_META]; MAX_UDP];
static mut UDP_TXM: [[udp::PacketMetadata; UDP_META]; MAX_UDP] =
    [[udp::PacketMetadata::EMPTY; UDP_META]; MAX_UDP];
static mut ICMP_RX: [[u8; ICMP_BUF]; MAX_ICMP] = [[0; ICMP_BUF]; MAX_ICMP];
static mut ICMP_TX: [[u8; ICMP_BUF]; MAX_ICMP] = [[0; ICMP_BUF]; MAX_ICMP];
static mut ICMP_RXM: [[icmp::PacketMetadata; 8]; MAX_ICMP] =
    [[icmp::PacketMetadata::EMPTY; 8]; MAX_ICMP];
static mut ICMP_TXM: [[icmp::PacketMetadata; 8]; MAX_ICMP] =
    [[icmp::PacketMetadata::EMPTY; 8]; MAX_ICMP];
static mut STATE: Option<State> = None;

/// The state, for a call that may change when the stack must run next (its
/// cached poll_at goes stale).
fn st() -> Option<&'static mut State> {
    let s = st_ro()?;
    s.poll_at = None;
    Some(s)
}

/// The one state; the server is single-threaded and calls in only from its loop.
/// For calls that change no socket's timers or queues to send (poll_at stays).
fn st_ro() -> Option<&'static mut State> {
    // SAFETY: one thread calls the stack (servers/net), never reentrantly.
    unsafe { (*addr_of_mut!(STATE)).as_mut() }
}

/// ICMP socket i over its static buffers.  smoltcp cannot unbind an ICMP socket, so
/// closing one replaces it: the caller must have dropped socket i's previous instance.
unsafe fn new_icmp(i: usize) -> icmp::Socket<'static> {
    let rx = icmp::PacketBuffer::new(&mut (&mut *addr_of_mut!(ICMP_RXM))[i][..], &mut (&mut *addr_of_mut!(ICMP_RX))[i][..]);
    let tx = icmp::PacketBuffer::new(&mut (&mut *addr_of_mut!(ICMP_TXM))[i][..], &mut (&mut *addr_of_mut!(ICMP_TX))[i][..]);
    icmp::Socket::new(rx, tx)
}

type Pool = ([Option<tcp::Socket<'static>>; MAX_TCP], [Option<udp::Socket<'static>>; MAX_UDP],
            [Option<icmp::Socket<'static>>; MAX_ICMP]);

/// The pool's sockets over their static buffers, all parked (out of the socket set).
fn pool() -> Pool {
    // SAFETY: each static buffer is handed out once, here, before any other use.
    unsafe {
        let tcp = core::array::from_fn(|i| {
            let rx = tcp::SocketBuffer::new(&mut (&mut *addr_of_mut!(TCP_RX))[i][..]);
            let tx = tcp::SocketBuffer::new(&mut (&mut *addr_of_mut!(TCP_TX))[i][..]);
            Some(tcp::Socket::new(rx, tx))
        });
        let udp = core::array::from_fn(|i| {
            let rx = udp::PacketBuffer::new(&mut (&mut *addr_of_mut!(UDP_RXM))[i][..], &mut (&mut *addr_of_mut!(UDP_RX))[i][..]);
            let tx = udp::PacketBuffer::new(&mut (&mut *addr_of_mut!(UDP_TXM))[i][..], &mut (&mut *addr_of_mut!(UDP_TX))[i][..]);
            Some(udp::Socket::new(rx, tx))
        });
        let icmp = core::array::from_fn(|i| Some(new_icmp(i)));
        (tcp, udp, icmp)
    }
}

// ---- pool sockets, parked or in the set (see State) ----

macro_rules! pool_access {
    ($r:ident, $m:ident, $join:ident, $park:ident, $ty:ident, $parked:ident, $variant:ident,
     $inset:ident) => {
        fn $r(s: &State, i: usize) -> &$ty::Socket<'static> {
            match s.$parked[i].as_ref() {
                Some(p) => p,
                None => s.sockets.get::<$ty::Socket>(s.$ty[i]),
            }
        }

        fn $m(s: &mut State, i: usize) -> &mut $ty::Socket<'static> {
            if s.$parked[i].is_some() {
                return s.$parked[i].as_mut().unwrap();
            }
            s.sockets.get_mut::<$ty::Socket>(s.$ty[i])
        }

        /// Into the socket set: the interface drives it from now on.
        fn $join(s: &mut State, i: usize) {
            if let Some(p) = s.$parked[i].take() {
                s.$ty[i] = s.sockets.add(p);
                s.$inset |= 1 << i;
            }
        }

        /// Out of the socket set.
        fn $park(s: &mut State, i: usize) {
            if s.$parked[i].is_none() {
                if let Socket::$variant(p) = s.sockets.remove(s.$ty[i]) {
                    s.$parked[i] = Some(p);
                }
                s.$inset &= !(1 << i);
            }
        }
    };
}

pool_access!(tcp_ref, tcp_mut, tcp_join, tcp_park, tcp, tcp_parked, Tcp, tcp_in);
pool_access!(udp_ref, udp_mut, udp_join, udp_park, udp, udp_parked, Udp, udp_in);
pool_access!(icmp_ref, icmp_mut, icmp_join, icmp_park, icmp, icmp_parked, Icmp, icmp_in);

/// The pool indices in a set of bits.
fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        let i = m.trailing_zeros() as usize;
        m &= m.wrapping_sub(1);
        (i < 64).then_some(i)
    })
}

/// Nothing can be due: no TCP socket in the set (only TCP has timers) and no
/// bytes of a datagram or echo request waiting to go out.  smoltcp's poll_at
/// then says "no timer" too, but only after visiting every slot: a UDP or ICMP
/// socket asks for a poll only to send, and smoltcp never fragments here
/// (frames hold any IP packet).  An empty datagram still queued after a run
/// waits for a neighbour, and the server's 20 ms round (net.c) serves it as
/// smoltcp's later end of that wait would.
fn nothing_due(s: &State) -> bool {
    s.tcp_in == 0 && bits(s.udp_in).all(|i| udp_ref(s, i).send_queue() == 0) &&
        bits(s.icmp_in).all(|i| icmp_ref(s, i).send_queue() == 0)
}

/// TCP sockets that nobody holds and that finished closing leave the set, and so
/// do those in TIME-WAIT once their last ACK has gone (TIME_WAIT_GRACE_MS).
fn park_closed(s: &mut State) {
    if !s.lingering {
        return;
    }
    s.lingering = false;
    for i in 0..MAX_TCP {
        if s.tcp_busy[i] || s.tcp_parked[i].is_some() {
            continue;
        }
        match tcp_ref(s, i).state() {
            tcp::State::Closed => tcp_park(s, i),
            tcp::State::TimeWait => {
                let since = *s.tw_since[i].get_or_insert(s.now);
                if s.now >= since + Duration::from_millis(TIME_WAIT_GRACE_MS) {
                    tcp_park(s, i);
                    s.tw_parked |= 1 << i;
                } else {
                    s.lingering = true;
                }
            }
            _ => s.lingering = true,
        }
    }
}

/// A parked TIME-WAIT connection that a queued segment is for (its ports) joins the
/// set again, so that smoltcp answers as TIME-WAIT does (an ACK to a FIN sent again)
/// rather than with a reset; one whose TIME-WAIT would have ended stays out (a reset,
/// as for any closed port).
fn rejoin_time_wait(s: &mut State) {
    if s.tw_parked == 0 {
        return;
    }
    for k in 0..s.dev.count {
        let Some((src, dst)) = s.dev.tcp_ports(k) else { continue };
        for i in bits(s.tw_parked) {
            let sock = tcp_ref(s, i);
            let ours = sock.local_endpoint().is_some_and(|e| e.port == dst) &&
                sock.remote_endpoint().is_some_and(|e| e.port == src);
            if !ours {
                continue;
            }
            s.tw_parked &= !(1 << i);
            if s.tw_since[i].is_some_and(|t| s.now < t + Duration::from_millis(TIME_WAIT_MS)) {
                tcp_join(s, i);
                s.tw_since[i] = Some(s.now);
                s.lingering = true;
            }
        }
    }
}

fn configure(iface: &mut Interface, c: &StackConfig) {
    let mac = EthernetAddress(c.mac);
    let ll = link_local(&c.mac);
    iface.update_ip_addrs(|a| {
        if c.ip4 != [0; 4] {
            let _ = a.push(IpCidr::new(IpAddress::Ipv4(Ipv4Address::from(c.ip4)), c.ip4_prefix));
        }
        let _ = a.push(IpCidr::new(IpAddress::Ipv4(Ipv4Address::new(127, 0, 0, 1)), 8));
        if c.ip6 != [0; 16] {
            let _ = a.push(IpCidr::new(IpAddress::Ipv6(Ipv6Address::from(c.ip6)), c.ip6_prefix));
        }
        let _ = a.push(IpCidr::new(IpAddress::Ipv6(ll), 64));
    });
    if c.gw4 != [0; 4] {
        let _ = iface.routes_mut().add_default_ipv4_route(Ipv4Address::from(c.gw4));
    }
    if c.gw6 != [0; 16] {
        let _ = iface.routes_mut().add_default_ipv6_route(Ipv6Address::from(c.gw6));
    }
    let _ = mac;
}

/// fe80::/64 with the modified EUI-64 of the MAC address (RFC 4291).
fn link_local(mac: &[u8; 6]) -> Ipv6Address {
    let mut a = [0u8; 16];
    a[0] = 0xfe;
    a[1] = 0x80;
    a[8] = mac[0] ^ 2;
    a[9] = mac[1];
    a[10] = mac[2];
    a[11] = 0xff;
    a[12] = 0xfe;
    a[13] = mac[3];
    a[14] = mac[4];
    a[15] = mac[5];
    Ipv6Address::from(a)
}

/// Set the stack up once: 0, or -NET_ERR_INVAL (bad MAC, or called twice).
#[no_mangle]
pub extern "C" fn stack_init(cfg: *const StackConfig, tx: TxFn, now_ms: u64) -> i64 {
    // SAFETY: the caller passes a valid configuration (servers/net).
    let c = match unsafe { cfg.as_ref() } {
        Some(c) => *c,
        None => return -NET_ERR_INVAL,
    };
    let mac = EthernetAddress(c.mac);
    if st().is_some() || !mac.is_unicast() {
        return -NET_ERR_INVAL;
    }
    let mut dev = Dev { mac: c.mac, tx, lens: [0; RX_SLOTS], head: 0, count: 0, dropped: 0,
                       frag_id: c.seed as u16 | 1 };
    let now = Instant::from_millis(now_ms as i64);
    let mut config = Config::new(HardwareAddress::Ethernet(mac));
    config.random_seed = c.seed;
    let mut iface = Interface::new(config, &mut dev, now);
    configure(&mut iface, &c);
    // SAFETY: STORAGE is handed to the socket set once, here.
    let mut sockets = SocketSet::new(unsafe { &mut (&mut *addr_of_mut!(STORAGE))[..] });
    let (tcp_parked, udp_parked, icmp_parked) = pool();
    // a handle for the parked sockets (stale until each joins the set)
    let stale = sockets.add(udp::Socket::new(udp::PacketBuffer::new(&mut [][..], &mut [][..]),
                                             udp::PacketBuffer::new(&mut [][..], &mut [][..])));
    drop(sockets.remove(stale));
    let state = State {
        iface, dev, sockets, tcp: [stale; MAX_TCP], udp: [stale; MAX_UDP], icmp: [stale; MAX_ICMP],
        tcp_parked, udp_parked, icmp_parked, lingering: false, tw_parked: 0, tw_since: [None; MAX_TCP],
        live: 0, was_live: 0,
        last_events: [NET_EV_NVAL as u8; MAX_HANDLES],
        tcp_busy: [false; MAX_TCP], udp_busy: [false; MAX_UDP], icmp_busy: [false; MAX_ICMP],
        handles: [Kind::Free; MAX_HANDLES], families: [0; MAX_HANDLES],
        next_port: EPHEMERAL_FIRST, now, poll_at: None, tcp_in: 0, udp_in: 0, icmp_in: 0,
    };
    // SAFETY: single-threaded, and STATE was None.
    unsafe { *addr_of_mut!(STATE) = Some(state) };
    0
}

/// A frame from the wire (the NIC driver): queued for the next stack_poll.  1, or 0 if dropped.
#[no_mangle]
pub extern "C" fn stack_input(frame: *const u8, len: usize) -> i32 {
    let Some(s) = st() else { return 0 };
    if frame.is_null() || len > WIRE_FRAME {
        s.dev.dropped += 1;
        return 0;
    }
    // SAFETY: the caller's buffer holds len bytes.
    s.dev.push(unsafe { core::slice::from_raw_parts(frame, len) }, true) as i32
}

/// Room for more input before a poll (frames the receive ring can still take).
#[no_mangle]
pub extern "C" fn stack_input_room() -> usize {
    st_ro().map_or(0, |s| RX_SLOTS - s.dev.count)
}

/// Run the stack at time now_ms; 1 if any socket's state may have changed.
#[no_mangle]
pub extern "C" fn stack_poll(now_ms: u64) -> i32 {
    let Some(s) = st() else { return 0 };
    s.now = Instant::from_millis(now_ms as i64);
    let mut changed = false;
    // Loopback frames queue behind the ones being processed: run until quiet.
    // Once only looped-back datagrams wait, they are delivered without another
    // egress (which visits every slot of the socket set to find nothing).  Were
    // something due after all, the next poll_at says so and the server runs again.
    for round in 0..16 {
        changed |= if round > 0 && s.dev.only_udp() {
            ingress(s)
        } else {
            rejoin_time_wait(s);
            s.iface.poll(s.now, &mut s.dev, &mut s.sockets) != PollResult::None
        };
        if s.dev.count == 0 {
            break;
        }
    }
    park_closed(s);
    changed as i32
}

/// Every queued frame processed (no egress); whether a socket's state may have changed.
fn ingress(s: &mut State) -> bool {
    let mut changed = false;
    loop {
        match s.iface.poll_ingress_single(s.now, &mut s.dev, &mut s.sockets) {
            PollIngressSingleResult::None => return changed,
            PollIngressSingleResult::PacketProcessed => {}
            PollIngressSingleResult::SocketStateChanged => changed = true,
        }
    }
}

/// Milliseconds until the stack needs stack_poll again (timers); u64::MAX: none pending.
#[no_mangle]
pub extern "C" fn stack_poll_delay(now_ms: u64) -> u64 {
    let Some(s) = st_ro() else { return u64::MAX };
    if s.dev.count > 0 {
        return 0;
    }
    let now = Instant::from_millis(now_ms as i64);
    let at = match s.poll_at {
        Some(at) => at,
        None if nothing_due(s) => *s.poll_at.insert(None),
        None => *s.poll_at.insert(s.iface.poll_at(now, &s.sockets)),
    };
    match at {
        Some(at) if at > now => (at - now).total_millis(),
        Some(_) => 0,
        None => u64::MAX,
    }
}

/// 0 if the stack knows it needs no stack_poll until a request or a frame comes
/// (no timer, nothing queued): the server then need not read the clock to wait.
#[no_mangle]
pub extern "C" fn stack_timer_pending() -> i32 {
    let Some(s) = st_ro() else { return 0 };
    if s.dev.count > 0 {
        return 1;
    }
    match s.poll_at {
        Some(at) => at.is_some() as i32,
        None if nothing_due(s) => {
            s.poll_at = Some(None);
            0
        }
        None => 1,
    }
}

/// Frames dropped because the receive ring was full or they were malformed.
#[no_mangle]
pub extern "C" fn stack_dropped() -> u64 {
    st_ro().map_or(0, |s| s.dev.dropped)
}

// ---- addresses ----

fn to_ip(a: &NetAddr) -> Result<IpAddress, i64> {
    match a.family {
        NET_AF_INET => {
            let mut b = [0u8; 4];
            b.copy_from_slice(&a.addr[..4]);
            Ok(IpAddress::Ipv4(Ipv4Address::from(b)))
        }
        NET_AF_INET6 => {
            let v6 = Ipv6Address::from(a.addr);
            // ::ffff:a.b.c.d on an IPv6 socket is the IPv4 peer a.b.c.d (a dual-stack
            // socket, as Linux's); clients that want IPV6_V6ONLY refuse such addresses
            Ok(match v6.to_ipv4_mapped() {
                Some(v4) => IpAddress::Ipv4(v4),
                None => IpAddress::Ipv6(v6),
            })
        }
        _ => Err(-NET_ERR_AFNOSUPPORT),
    }
}

fn from_ep(ep: IpEndpoint) -> NetAddr {
    let mut n = NetAddr { port: ep.port, ..Default::default() };
    match ep.addr {
        IpAddress::Ipv4(a) => {
            n.family = NET_AF_INET;
            n.addr[..4].copy_from_slice(&a.octets());
        }
        IpAddress::Ipv6(a) => {
            n.family = NET_AF_INET6;
            n.addr = a.octets();
        }
    }
    n
}

fn from_listen(ep: IpListenEndpoint, family: u16) -> NetAddr {
    match ep.addr {
        Some(a) => from_ep(IpEndpoint::new(a, ep.port)),
        None => NetAddr { family, port: ep.port, ..Default::default() },
    }
}

/// A listen endpoint: the unspecified address means any (both families, as smoltcp does).
fn to_listen(a: &NetAddr) -> Result<IpListenEndpoint, i64> {
    let ip = to_ip(a)?;
    Ok(IpListenEndpoint { addr: if ip.is_unspecified() { None } else { Some(ip) }, port: a.port })
}

fn read_addr(p: *const NetAddr) -> Result<NetAddr, i64> {
    // SAFETY: the C side passes a valid pointer or NULL.
    unsafe { p.as_ref() }.copied().ok_or(-NET_ERR_INVAL)
}

fn write_addr(p: *mut NetAddr, a: NetAddr) {
    // SAFETY: as read_addr; NULL means "not wanted".
    if let Some(out) = unsafe { p.as_mut() } {
        *out = a;
    }
}

// ---- the socket table ----

fn kind(s: &State, h: i64) -> Result<Kind, i64> {
    if h < 0 || h as usize >= MAX_HANDLES {
        return Err(-NET_ERR_HANDLE);
    }
    match s.handles[h as usize] {
        Kind::Free => Err(-NET_ERR_HANDLE),
        k => Ok(k),
    }
}

fn new_handle(s: &mut State, k: Kind, family: u16) -> i64 {
    match s.handles.iter().position(|k| *k == Kind::Free) {
        Some(h) => {
            s.handles[h] = k;
            s.families[h] = family;
            s.live |= 1 << h;
            h as i64
        }
        None => -NET_ERR_NOBUFS,
    }
}

/// A TCP pool socket nobody holds and that has finished closing, or else one
/// that waits out TIME-WAIT (smoltcp's lasts 10 s), cut short as Linux's
/// tcp_tw_reuse would: without it the pool of MAX_TCP sockets allowed only a
/// few connections every 10 s.
fn take_tcp(s: &mut State) -> Option<usize> {
    let free = |st: tcp::State| (0..MAX_TCP).find(|&i| !s.tcp_busy[i] && tcp_ref(s, i).state() == st);
    let i = free(tcp::State::Closed).or_else(|| free(tcp::State::TimeWait))?;
    tcp_mut(s, i).abort();
    s.tcp_busy[i] = true;
    s.tw_parked &= !(1 << i);
    s.tw_since[i] = None;
    tcp_join(s, i);
    let sock = tcp_mut(s, i);
    sock.set_nagle_enabled(true);
    sock.set_keep_alive(Some(Duration::from_millis(KEEPALIVE_MS)));
    Some(i)
}

fn take(busy: &mut [bool]) -> Option<usize> {
    let i = busy.iter().position(|b| !*b)?;
    busy[i] = true;
    Some(i)
}

/// A new socket: family NET_AF_INET or NET_AF_INET6, type NET_SOCK_*; the handle or -error.
#[no_mangle]
pub extern "C" fn stack_socket(family: u16, ty: u32) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    if family != NET_AF_INET && family != NET_AF_INET6 {
        return -NET_ERR_AFNOSUPPORT;
    }
    if !s.handles.contains(&Kind::Free) {
        return -NET_ERR_NOBUFS;
    }
    let k = match ty {
        NET_SOCK_STREAM => take_tcp(s).map(|i| Kind::Tcp { i, bound: None }),
        NET_SOCK_DGRAM => take(&mut s.udp_busy).map(|i| {
            udp_join(s, i);
            Kind::Udp { i }
        }),
        NET_SOCK_ICMP => take(&mut s.icmp_busy).map(|i| {
            icmp_join(s, i);
            Kind::Icmp { i }
        }),
        _ => return -NET_ERR_INVAL,
    };
    match k {
        Some(k) => new_handle(s, k, family),
        None => -NET_ERR_NOBUFS,
    }
}

/// Is the port taken among sockets of the same protocol (TCP and UDP ports are apart)?
fn port_in_use(s: &State, port: u16, tcp_side: bool) -> bool {
    if !tcp_side {
        return (0..MAX_UDP).any(|i| udp_ref(s, i).endpoint().port == port);
    }
    s.handles.iter().any(|k| match *k {
        Kind::Tcp { bound: Some(ep), .. } | Kind::Listen { ep, .. } => ep.port == port,
        _ => false,
    }) || (0..MAX_TCP).any(|i| {
        // a connection waiting out TIME-WAIT does not hold its port (Linux's SO_REUSEADDR,
        // which servers set so that they can restart at once)
        let sock = tcp_ref(s, i);
        sock.state() != tcp::State::TimeWait && sock.local_endpoint().is_some_and(|e| e.port == port)
    })
}

fn ephemeral(s: &mut State, tcp_side: bool) -> Result<u16, i64> {
    for _ in 0..(65535 - EPHEMERAL_FIRST) {
        let p = s.next_port;
        s.next_port = if p == 65535 { EPHEMERAL_FIRST } else { p + 1 };
        if !port_in_use(s, p, tcp_side) {
            return Ok(p);
        }
    }
    Err(-NET_ERR_ADDRINUSE)
}

fn bind(s: &mut State, h: i64, a: &NetAddr) -> Result<(), i64> {
    let k = kind(s, h)?;
    if a.family != s.families[h as usize] {
        return Err(-NET_ERR_AFNOSUPPORT);
    }
    let mut ep = to_listen(a)?;
    let tcp_side = matches!(k, Kind::Tcp { .. } | Kind::Listen { .. });
    if ep.port == 0 && !matches!(k, Kind::Icmp { .. }) {
        ep.port = ephemeral(s, tcp_side)?;
    } else if port_in_use(s, ep.port, tcp_side) && !matches!(k, Kind::Icmp { .. }) {
        return Err(-NET_ERR_ADDRINUSE);
    }
    match k {
        Kind::Tcp { i, bound: None } => {
            s.handles[h as usize] = Kind::Tcp { i, bound: Some(ep) };
            Ok(())
        }
        Kind::Udp { i } => udp_mut(s, i).bind(ep).map_err(|_| -NET_ERR_INVAL),
        Kind::Icmp { i } => icmp_mut(s, i)
            .bind(icmp::Endpoint::Ident(a.port))
            .map_err(|_| -NET_ERR_INVAL),
        _ => Err(-NET_ERR_INVAL),
    }
}

fn status(r: Result<(), i64>) -> i64 {
    match r {
        Ok(()) => 0,
        Err(e) => e,
    }
}

/// Bind to a local address and port (port 0: an ephemeral one; ICMP: port = the echo identifier).
#[no_mangle]
pub extern "C" fn stack_bind(h: i64, addr: *const NetAddr) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    status(read_addr(addr).and_then(|a| bind(s, h, &a)))
}

fn listen_one(s: &mut State, ep: IpListenEndpoint) -> Option<usize> {
    let i = take_tcp(s)?;
    if tcp_mut(s, i).listen(ep).is_err() {
        s.tcp_busy[i] = false;
        s.lingering = true;
        return None;
    }
    Some(i)
}

fn listen(s: &mut State, h: i64, backlog: usize) -> Result<(), i64> {
    let (i, ep) = match kind(s, h)? {
        Kind::Tcp { i, bound: Some(ep) } => (i, ep),
        Kind::Tcp { bound: None, .. } => return Err(-NET_ERR_INVAL), // bind first
        Kind::Listen { .. } => return Ok(()),
        _ => return Err(-NET_ERR_OPNOTSUPP),
    };
    if tcp_ref(s, i).state() != tcp::State::Closed {
        return Err(-NET_ERR_ISCONN);
    }
    s.tcp_busy[i] = false;
    let mut q = [usize::MAX; MAX_BACKLOG];
    let n = backlog.clamp(1, MAX_BACKLOG);
    for slot in q.iter_mut().take(n) {
        *slot = listen_one(s, ep).unwrap_or(usize::MAX);
    }
    if q[0] == usize::MAX {
        return Err(-NET_ERR_NOBUFS);
    }
    s.handles[h as usize] = Kind::Listen { ep, q, n };
    Ok(())
}

/// Listen on the bound port with up to backlog (1..8) connections waiting to be accepted.
#[no_mangle]
pub extern "C" fn stack_listen(h: i64, backlog: u32) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    status(listen(s, h, backlog as usize))
}

fn accepted(st: tcp::State) -> bool {
    !matches!(st, tcp::State::Listen | tcp::State::SynReceived | tcp::State::Closed)
}

/// Take one established connection off a listener: a new handle, or -NET_ERR_AGAIN.
#[no_mangle]
pub extern "C" fn stack_accept(h: i64, peer: *mut NetAddr) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    let (ep, mut q, n) = match kind(s, h) {
        Ok(Kind::Listen { ep, q, n }) => (ep, q, n),
        Ok(_) => return -NET_ERR_INVAL,
        Err(e) => return e,
    };
    // Refill slots whose socket went away (or could not be had before).
    for slot in q.iter_mut().take(n) {
        let gone = *slot == usize::MAX
            || tcp_ref(s, *slot).state() == tcp::State::Closed;
        if gone {
            if *slot != usize::MAX {
                s.tcp_busy[*slot] = false;
            }
            *slot = listen_one(s, ep).unwrap_or(usize::MAX);
        }
    }
    let ready = q.iter().take(n).position(|&i| i != usize::MAX && accepted(tcp_ref(s, i).state()));
    let Some(pos) = ready else {
        s.handles[h as usize] = Kind::Listen { ep, q, n };
        return -NET_ERR_AGAIN;
    };
    let i = q[pos];
    if !s.handles.contains(&Kind::Free) {
        return -NET_ERR_NOBUFS;
    }
    q[pos] = listen_one(s, ep).unwrap_or(usize::MAX);
    s.handles[h as usize] = Kind::Listen { ep, q, n };
    let family = s.families[h as usize];
    if let Some(r) = tcp_ref(s, i).remote_endpoint() {
        write_addr(peer, from_ep(r));
    }
    new_handle(s, Kind::Tcp { i, bound: Some(ep) }, family)
}

/// The source address for a destination on 127.0.0.0/8 from a socket bound to no
/// address: 127.0.0.1, as on Linux (smoltcp would take the interface's first IPv4
/// address, the NIC's, and the peer would see the connection come from there).
fn loopback_source(remote: IpAddress) -> Option<IpAddress> {
    match remote {
        IpAddress::Ipv4(a) if a.octets()[0] == 127 => Some(IpAddress::Ipv4(Ipv4Address::new(127, 0, 0, 1))),
        _ => None,
    }
}

fn connect(s: &mut State, h: i64, a: &NetAddr) -> Result<(), i64> {
    let k = kind(s, h)?;
    let remote = IpEndpoint::new(to_ip(a)?, a.port);
    if a.family != s.families[h as usize] {
        return Err(-NET_ERR_AFNOSUPPORT);
    }
    match k {
        Kind::Tcp { i, bound } => {
            let local = match bound {
                Some(ep) => ep,
                None => IpListenEndpoint { addr: None, port: ephemeral(s, true)? },
            };
            s.handles[h as usize] = Kind::Tcp { i, bound: Some(local) };
            // a held socket is in the set (its fields borrowed apart from the interface's)
            let sock = s.sockets.get_mut::<tcp::Socket>(s.tcp[i]);
            match sock.state() {
                tcp::State::Closed => {}
                tcp::State::SynSent => return Err(-NET_ERR_AGAIN),
                _ => return Err(-NET_ERR_ISCONN),
            }
            let cx = s.iface.context();
            let local = match (local.addr, loopback_source(remote.addr)) {
                (None, Some(lo)) => IpListenEndpoint { addr: Some(lo), port: local.port },
                _ => local,
            };
            sock.connect(cx, remote, local).map_err(|e| match e {
                tcp::ConnectError::Unaddressable => -NET_ERR_UNREACH,
                tcp::ConnectError::InvalidState => -NET_ERR_ISCONN,
            })
        }
        Kind::Udp { .. } | Kind::Icmp { .. } => Err(-NET_ERR_OPNOTSUPP),
        Kind::Listen { .. } => Err(-NET_ERR_ISCONN),
        Kind::Free => Err(-NET_ERR_HANDLE),
    }
}

/// Start a TCP connection (it completes in the background: poll for NET_EV_OUT).
#[no_mangle]
pub extern "C" fn stack_connect(h: i64, addr: *const NetAddr) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    status(read_addr(addr).and_then(|a| connect(s, h, &a)))
}

fn tcp_send(sock: &mut tcp::Socket, data: &[u8]) -> i64 {
    if !sock.may_send() {
        return if matches!(sock.state(), tcp::State::SynSent | tcp::State::SynReceived) {
            -NET_ERR_AGAIN
        } else {
            -NET_ERR_NOTCONN
        };
    }
    match sock.send_slice(data) {
        Ok(0) if !data.is_empty() => -NET_ERR_AGAIN,
        Ok(n) => n as i64,
        Err(_) => -NET_ERR_NOTCONN,
    }
}

/// Does a datagram of `payload` bytes after a transport header of `header` go out to ip?
/// smoltcp 0.12 fragments IPv4 only, and the device glue IPv4 only: an IPv6 datagram
/// must fit one wire frame (longer than the interface's frame it would even overrun
/// the device's frame buffer: a panic).
fn fits(ip: IpAddress, payload: usize, header: usize) -> bool {
    match ip {
        IpAddress::Ipv6(_) => payload + header + 40 + 14 <= WIRE_FRAME,
        _ => payload <= UDP_BUF,
    }
}

fn udp_send(s: &mut State, h: i64, i: usize, data: &[u8], to: Option<NetAddr>) -> i64 {
    let Some(a) = to else { return -NET_ERR_NOTCONN };
    let ip = match to_ip(&a) {
        Ok(ip) => ip,
        Err(e) => return e,
    };
    if a.port == 0 || ip.is_unspecified() {
        return -NET_ERR_INVAL;
    }
    if !udp_ref(s, i).is_open() {
        let any = NetAddr { family: s.families[h as usize], ..Default::default() };
        if let Err(e) = bind(s, h, &any) {
            return e;
        }
    }
    let sock = udp_mut(s, i);
    if data.len() > UDP_BUF || !fits(ip, data.len(), 8) {
        return -NET_ERR_MSGSIZE;
    }
    let mut meta = udp::UdpMetadata::from(IpEndpoint::new(ip, a.port));
    if sock.endpoint().addr.is_none() {
        meta.local_address = loopback_source(ip);
    }
    match sock.send_slice(data, meta) {
        Ok(()) => data.len() as i64,
        Err(udp::SendError::BufferFull) => -NET_ERR_AGAIN,
        Err(udp::SendError::Unaddressable) => -NET_ERR_UNREACH,
    }
}

fn icmp_send(s: &mut State, i: usize, data: &[u8], to: Option<NetAddr>) -> i64 {
    let Some(a) = to else { return -NET_ERR_NOTCONN };
    let ip = match to_ip(&a) {
        Ok(ip) => ip,
        Err(e) => return e,
    };
    if data.len() < 8 || data.len() > ICMP_BUF || !fits(ip, data.len(), 0) {
        return -NET_ERR_MSGSIZE;
    }
    match icmp_mut(s, i).send_slice(data, ip) {
        Ok(()) => data.len() as i64,
        Err(icmp::SendError::BufferFull) => -NET_ERR_AGAIN,
        Err(icmp::SendError::Unaddressable) => -NET_ERR_UNREACH,
    }
}

/// Send len bytes (to addr for datagrams; addr NULL for TCP): bytes queued, or -error.
#[no_mangle]
pub extern "C" fn stack_send(h: i64, data: *const u8, len: usize, addr: *const NetAddr) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    if data.is_null() && len > 0 {
        return -NET_ERR_INVAL;
    }
    // SAFETY: the caller's buffer holds len bytes.
    let buf = if len == 0 { &[][..] } else { unsafe { core::slice::from_raw_parts(data, len) } };
    let to = read_addr(addr).ok();
    match kind(s, h) {
        Ok(Kind::Tcp { i, .. }) => tcp_send(tcp_mut(s, i), buf),
        Ok(Kind::Udp { i }) => udp_send(s, h, i, buf, to),
        Ok(Kind::Icmp { i }) => icmp_send(s, i, buf, to),
        Ok(_) => -NET_ERR_NOTCONN,
        Err(e) => e,
    }
}

fn tcp_recv(sock: &mut tcp::Socket, buf: &mut [u8]) -> i64 {
    match sock.recv_slice(buf) {
        Ok(0) if sock.may_recv() || matches!(sock.state(), tcp::State::SynSent | tcp::State::SynReceived) => -NET_ERR_AGAIN,
        Ok(n) => n as i64,
        Err(tcp::RecvError::Finished) => 0,
        Err(tcp::RecvError::InvalidState) => -NET_ERR_NOTCONN,
    }
}

/// stack_recv for datagram sockets only (UDP, ICMP): -NET_ERR_OPNOTSUPP for others.
/// Readiness the receive took away counts as lost for stack_changed: a datagram
/// that comes next is news, though stack_changed did not run in between (the
/// server's SEND takes one so, between its two calls of stack_changed).
#[no_mangle]
pub extern "C" fn stack_recv_datagram(h: i64, data: *mut u8, len: usize, from: *mut NetAddr) -> i64 {
    let k = match st_ro().map(|s| kind(s, h)) {
        Some(Ok(k @ (Kind::Udp { .. } | Kind::Icmp { .. }))) => k,
        Some(Err(e)) => return e,
        _ => return -NET_ERR_OPNOTSUPP,
    };
    let r = stack_recv(h, data, len, from);
    if let Some(s) = st_ro() {
        if r >= 0 && events_of(s, &k) & NET_EV_IN == 0 {
            s.last_events[h as usize] &= !(NET_EV_IN as u8);
        }
    }
    r
}

/// Receive up to len bytes; from gets the sender (datagrams) or peer.  0: end of stream.
#[no_mangle]
pub extern "C" fn stack_recv(h: i64, data: *mut u8, len: usize, from: *mut NetAddr) -> i64 {
    let Some(s) = st_ro() else { return -NET_ERR_INVAL };
    if data.is_null() && len > 0 {
        return -NET_ERR_INVAL;
    }
    // SAFETY: the caller's buffer holds len bytes.
    let buf = if len == 0 { &mut [][..] } else { unsafe { core::slice::from_raw_parts_mut(data, len) } };
    match kind(s, h) {
        Ok(Kind::Tcp { i, .. }) => {
            s.poll_at = None;               // a window update may be due
            let sock = tcp_mut(s, i);
            if let Some(r) = sock.remote_endpoint() {
                write_addr(from, from_ep(r));
            }
            tcp_recv(sock, buf)
        }
        Ok(Kind::Udp { i }) => match udp_mut(s, i).recv_slice(buf) {
            Ok((n, meta)) => {
                write_addr(from, from_ep(meta.endpoint));
                n as i64
            }
            Err(udp::RecvError::Exhausted) => -NET_ERR_AGAIN,
            Err(udp::RecvError::Truncated) => -NET_ERR_MSGSIZE,
        },
        Ok(Kind::Icmp { i }) => match icmp_mut(s, i).recv_slice(buf) {
            Ok((n, ip)) => {
                write_addr(from, from_ep(IpEndpoint::new(ip, 0)));
                n as i64
            }
            Err(icmp::RecvError::Exhausted) => -NET_ERR_AGAIN,
            Err(icmp::RecvError::Truncated) => -NET_ERR_MSGSIZE,
        },
        Ok(_) => -NET_ERR_NOTCONN,
        Err(e) => e,
    }
}

/// Readiness: NET_EV_* bits for the handle, or -NET_ERR_HANDLE.
#[no_mangle]
pub extern "C" fn stack_events(h: i64) -> i64 {
    let Some(s) = st_ro() else { return -NET_ERR_INVAL };
    match kind(s, h) {
        Ok(k) => events_of(s, &k) as i64,
        Err(e) => e,
    }
}

/// The handles (bit h) that gained events (NET_EV_NVAL once closed) since the
/// last call: the server's WATCH round (events lost are not news to a waiter).
/// Only handles open now or then are looked at.
#[no_mangle]
pub extern "C" fn stack_changed() -> u64 {
    let Some(s) = st_ro() else { return 0 };
    let (mut todo, mut changed) = (s.live | s.was_live, 0u64);
    while todo != 0 {
        let h = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let now = if s.live & (1 << h) != 0 { events_of(s, &s.handles[h]) as u8 } else { NET_EV_NVAL as u8 };
        if now & !s.last_events[h] != 0 {
            changed |= 1 << h;
        }
        s.last_events[h] = now;
    }
    s.was_live = s.live;
    changed
}

fn events_of(s: &State, k: &Kind) -> u32 {
    match *k {
        Kind::Tcp { i, bound } => {
            let sock = tcp_ref(s, i);
            let mut ev = 0;
            if sock.can_recv() || (!sock.may_recv() && accepted(sock.state())) {
                ev |= NET_EV_IN;
            }
            if sock.can_send() {
                ev |= NET_EV_OUT;
            }
            if sock.state() == tcp::State::Closed && bound.is_some() {
                ev |= NET_EV_HUP | NET_EV_ERR | NET_EV_IN;   // reset, refused, or closed
            }
            ev
        }
        Kind::Listen { q, n, .. } => {
            let ready = q.iter().take(n).any(|&i| i != usize::MAX && accepted(tcp_ref(s, i).state()));
            if ready { NET_EV_IN } else { 0 }
        }
        Kind::Udp { i } => {
            let sock = udp_ref(s, i);
            (if sock.can_recv() { NET_EV_IN } else { 0 }) | (if sock.can_send() { NET_EV_OUT } else { 0 })
        }
        Kind::Icmp { i } => {
            let sock = icmp_ref(s, i);
            (if sock.can_recv() { NET_EV_IN } else { 0 }) | (if sock.can_send() { NET_EV_OUT } else { 0 })
        }
        Kind::Free => 0,
    }
}

/// Shut down the sending side (NET_SHUT_WR: a FIN after the queued data).
#[no_mangle]
pub extern "C" fn stack_shutdown(h: i64, how: u32) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    match kind(s, h) {
        Ok(Kind::Tcp { i, .. }) if how == NET_SHUT_WR => {
            let sock = tcp_mut(s, i);
            if !sock.is_active() {
                return -NET_ERR_NOTCONN;
            }
            sock.close();
            0
        }
        Ok(Kind::Tcp { .. }) => -NET_ERR_INVAL,
        Ok(_) => -NET_ERR_OPNOTSUPP,
        Err(e) => e,
    }
}

/// Close: TCP sends a FIN and finishes in the background; the handle is free at once.
#[no_mangle]
pub extern "C" fn stack_close(h: i64) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    let k = match kind(s, h) {
        Ok(k) => k,
        Err(e) => return e,
    };
    match k {
        Kind::Tcp { i, .. } => {
            let sock = tcp_mut(s, i);
            if matches!(sock.state(), tcp::State::Listen | tcp::State::SynSent) {
                sock.abort();
            } else {
                sock.close();
            }
            s.tcp_busy[i] = false;
            s.lingering = true;
        }
        Kind::Listen { q, n, .. } => {
            for &i in q.iter().take(n).filter(|&&i| i != usize::MAX) {
                tcp_mut(s, i).abort();
                s.tcp_busy[i] = false;
            }
            s.lingering = true;
        }
        Kind::Udp { i } => {
            udp_mut(s, i).close();
            s.udp_busy[i] = false;
            udp_park(s, i);
        }
        Kind::Icmp { i } => {
            icmp_park(s, i);
            s.icmp_parked[i] = None;
            // SAFETY: the previous socket over these buffers was just dropped.
            s.icmp_parked[i] = Some(unsafe { new_icmp(i) });
            s.icmp_busy[i] = false;
        }
        Kind::Free => {}
    }
    s.handles[h as usize] = Kind::Free;
    s.live &= !(1 << h);
    0
}

/// The local (which = 0) or remote (1) address of a socket.
#[no_mangle]
pub extern "C" fn stack_name(h: i64, which: u32, out: *mut NetAddr) -> i64 {
    let Some(s) = st_ro() else { return -NET_ERR_INVAL };
    let k = match kind(s, h) {
        Ok(k) => k,
        Err(e) => return e,
    };
    let family = s.families[h as usize];
    let a = match (k, which) {
        (Kind::Tcp { i, bound }, 0) => match tcp_ref(s, i).local_endpoint() {
            Some(ep) => from_ep(ep),
            None => from_listen(bound.unwrap_or_default(), family),
        },
        (Kind::Tcp { i, .. }, 1) => match tcp_ref(s, i).remote_endpoint() {
            Some(ep) => from_ep(ep),
            None => return -NET_ERR_NOTCONN,
        },
        (Kind::Listen { ep, .. }, 0) => from_listen(ep, family),
        (Kind::Udp { i }, 0) => from_listen(udp_ref(s, i).endpoint(), family),
        (_, 0 | 1) => return -NET_ERR_NOTCONN,
        _ => return -NET_ERR_INVAL,
    };
    write_addr(out, a);
    0
}

/// Socket options: NET_OPT_NODELAY (value 0/1), NET_OPT_KEEPALIVE_MS (0: off).  TCP only.
#[no_mangle]
pub extern "C" fn stack_setopt(h: i64, opt: u32, value: u64) -> i64 {
    let Some(s) = st() else { return -NET_ERR_INVAL };
    let i = match kind(s, h) {
        Ok(Kind::Tcp { i, .. }) => i,
        Ok(_) => return -NET_ERR_OPNOTSUPP,
        Err(e) => return e,
    };
    let sock = tcp_mut(s, i);
    match opt {
        NET_OPT_NODELAY => sock.set_nagle_enabled(value == 0),
        NET_OPT_KEEPALIVE_MS => sock.set_keep_alive(if value == 0 { None } else { Some(Duration::from_millis(value)) }),
        _ => return -NET_ERR_INVAL,
    }
    0
}

/// For the host tests: the parked TIME-WAIT connections and the TCP sockets in the set.
#[cfg(test)]
pub(crate) fn tcp_sets() -> (u64, u64) {
    st_ro().map_or((0, 0), |s| (s.tw_parked, s.tcp_in))
}
