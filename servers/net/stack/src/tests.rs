// SPDX-License-Identifier: MIT
//! Host tests of the stack glue (cargo test): loopback traffic through the real
//! smoltcp, and bad input.  One test function: the stack is one global state.
use super::*;
use std::sync::Mutex;

static WIRE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

extern "C" fn tx(frame: *const u8, len: usize) {
    let f = unsafe { std::slice::from_raw_parts(frame, len) }.to_vec();
    WIRE.lock().unwrap().push(f);
}

fn v4(a: [u8; 4], port: u16) -> NetAddr {
    let mut n = NetAddr { family: NET_AF_INET, port, ..Default::default() };
    n.addr[..4].copy_from_slice(&a);
    n
}

fn v6(a: [u8; 16], port: u16) -> NetAddr {
    NetAddr { family: NET_AF_INET6, port, addr: a, ..Default::default() }
}

fn run(t: &mut u64) {
    for _ in 0..50 {
        *t += 50;
        stack_poll(*t);
    }
}

fn cfg() -> StackConfig {
    let mut c = StackConfig { mac: [0x52, 0x54, 0, 0x12, 0x34, 0x56], ip4: [10, 0, 2, 15], ip4_prefix: 24,
                              gw4: [10, 0, 2, 2], ip6_prefix: 64, seed: 1, ..Default::default() };
    c.ip6[..2].copy_from_slice(&[0xfe, 0xc0]);
    c.ip6[15] = 0x15;
    c
}

fn udp_echo(t: &mut u64, family: u16, to: NetAddr) {
    let a = stack_socket(family, NET_SOCK_DGRAM);
    let b = stack_socket(family, NET_SOCK_DGRAM);
    assert!(a >= 0 && b >= 0);
    let any = NetAddr { family, port: 7007, ..Default::default() };
    assert_eq!(stack_bind(a, &any), 0);
    assert_eq!(stack_bind(b, &any), -NET_ERR_ADDRINUSE);
    assert_eq!(stack_send(b, b"ping".as_ptr(), 4, &to), 4);
    run(t);
    for f in WIRE.lock().unwrap().iter().rev().take(4) { eprintln!("wire {:02x?}", &f[..f.len().min(60)]); }
    let mut buf = [0u8; 64];
    let mut from = NetAddr::default();
    assert_eq!(stack_events(a) & NET_EV_IN as i64, NET_EV_IN as i64);
    assert_eq!(stack_recv(a, buf.as_mut_ptr(), 64, &mut from), 4);
    assert_eq!(&buf[..4], b"ping");
    assert_eq!(from.family, family);
    assert_eq!(stack_recv(a, buf.as_mut_ptr(), 64, &mut from), -NET_ERR_AGAIN);
    // TCP has ports of its own
    let t = stack_socket(family, NET_SOCK_STREAM);
    assert_eq!(stack_bind(t, &any), 0, "TCP port of a bound UDP one");
    assert_eq!(stack_close(t), 0);
    assert_eq!(stack_close(a), 0);
    assert_eq!(stack_close(b), 0);
}

fn tcp_echo(t: &mut u64, family: u16, to: NetAddr) {
    let l = stack_socket(family, NET_SOCK_STREAM);
    let any = NetAddr { family, port: to.port, ..Default::default() };
    assert_eq!(stack_listen(l, 4), -NET_ERR_INVAL, "listen before bind");
    assert_eq!(stack_bind(l, &any), 0);
    assert_eq!(stack_listen(l, 4), 0);
    let c = stack_socket(family, NET_SOCK_STREAM);
    assert_eq!(stack_accept(l, std::ptr::null_mut()), -NET_ERR_AGAIN);
    assert_eq!(stack_connect(c, &to), 0);
    run(t);
    let mut peer = NetAddr::default();
    let s = stack_accept(l, &mut peer);
    assert!(s >= 0, "accept: {s}");
    assert_eq!(peer.family, family);
    assert_ne!(stack_events(c) & NET_EV_OUT as i64, 0);
    assert_eq!(stack_send(c, b"hello".as_ptr(), 5, std::ptr::null()), 5);
    assert_eq!(stack_shutdown(c, NET_SHUT_WR), 0);
    run(t);
    let mut buf = [0u8; 64];
    assert_eq!(stack_recv(s, buf.as_mut_ptr(), 64, std::ptr::null_mut()), 5);
    assert_eq!(&buf[..5], b"hello");
    assert_eq!(stack_recv(s, buf.as_mut_ptr(), 64, std::ptr::null_mut()), 0, "end of stream");
    assert_eq!(stack_send(s, b"olleh".as_ptr(), 5, std::ptr::null()), 5);
    assert_eq!(stack_close(s), 0);
    run(t);
    assert_eq!(stack_recv(c, buf.as_mut_ptr(), 64, std::ptr::null_mut()), 5);
    assert_eq!(stack_recv(c, buf.as_mut_ptr(), 64, std::ptr::null_mut()), 0);
    assert_eq!(stack_close(c), 0);
    assert_eq!(stack_close(l), 0);
}

fn ping(t: &mut u64, family: u16, to: NetAddr) {
    let h = stack_socket(family, NET_SOCK_ICMP);
    assert!(h >= 0);
    assert_eq!(stack_bind(h, &NetAddr { family, port: 0x1234, ..Default::default() }), 0);
    let ty = if family == NET_AF_INET { 8 } else { 128 };
    let msg = [ty, 0, 0, 0, 0x12, 0x34, 0, 1, b'a', b'b'];
    assert_eq!(stack_send(h, msg.as_ptr(), msg.len(), &to), msg.len() as i64);
    run(t);
    // the socket sees the request it sent (looped back) as well as the reply
    let want = if family == NET_AF_INET { 0 } else { 129 };
    let mut buf = [0u8; 64];
    let mut got = false;
    while let n @ 0.. = stack_recv(h, buf.as_mut_ptr(), 64, std::ptr::null_mut()) {
        assert_eq!(n, msg.len() as i64);
        got |= buf[0] == want && &buf[8..10] == b"ab";
    }
    assert!(got, "no echo reply");
    assert_eq!(stack_close(h), 0);
}

/// An IPv4 TCP segment (FIN and ACK) between two of our own ports, with its checksums.
fn fin_segment(ip: [u8; 4], from: u16, to: u16) -> Vec<u8> {
    let mac = cfg().mac;
    let mut f = vec![0u8; 54];
    f[..6].copy_from_slice(&mac);
    f[6..12].copy_from_slice(&mac);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14..24].copy_from_slice(&[0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6]);
    f[26..30].copy_from_slice(&ip);
    f[30..34].copy_from_slice(&ip);
    f[34..36].copy_from_slice(&from.to_be_bytes());
    f[36..38].copy_from_slice(&to.to_be_bytes());
    f[38..42].copy_from_slice(&1u32.to_be_bytes());   // out of the window: a challenge ACK
    f[42..46].copy_from_slice(&1u32.to_be_bytes());
    f[46..48].copy_from_slice(&[0x50, 0x11]);           // FIN | ACK
    f[48..50].copy_from_slice(&[0x10, 0]);
    let mut ip_hdr = smoltcp::wire::Ipv4Packet::new_unchecked(&mut f[14..]);
    ip_hdr.fill_checksum();
    crate::csum::fill(&mut f);
    f
}

/// A connection that closed first waits out TIME-WAIT out of the socket set once
/// its last ACK has gone; a segment for it brings it back while TIME-WAIT lasts,
/// and not after.
fn time_wait(t: &mut u64) {
    let ip = cfg().ip4;
    let l = stack_socket(NET_AF_INET, NET_SOCK_STREAM);
    assert_eq!(stack_bind(l, &v4(ip, 7300)), 0);
    assert_eq!(stack_listen(l, 1), 0);
    let c = stack_socket(NET_AF_INET, NET_SOCK_STREAM);
    assert_eq!(stack_connect(c, &v4(ip, 7300)), 0);
    run(t);
    let s = stack_accept(l, std::ptr::null_mut());
    assert!(s >= 0, "accept: {s}");
    let mut me = NetAddr::default();
    assert_eq!(stack_name(c, 0, &mut me), 0);
    let (parked, in_set) = tcp_sets();
    assert_eq!(stack_close(c), 0);
    *t += 1;
    stack_poll(*t);
    assert_eq!(stack_recv(s, std::ptr::null_mut(), 0, std::ptr::null_mut()), 0, "the FIN");
    assert_eq!(stack_close(s), 0);
    assert_eq!(stack_close(l), 0);
    *t += 1;
    stack_poll(*t);
    assert_eq!(tcp_sets().0, parked, "parked before its grace");
    run(t);
    let (tw, now_in) = tcp_sets();
    assert_eq!((tw & !parked).count_ones(), 1, "one connection in TIME-WAIT parked");
    let i = (tw & !parked).trailing_zeros();
    assert_eq!(now_in & (1 << i), 0);
    assert_eq!(in_set & !now_in & (1 << i), 1 << i);
    // a FIN sent again: the connection answers from the set
    let f = fin_segment(ip, 7300, me.port);
    assert_eq!(stack_input(f.as_ptr(), f.len()), 1);
    *t += 1;
    stack_poll(*t);
    let (tw, now_in) = tcp_sets();
    assert_eq!((tw & (1 << i), now_in & (1 << i)), (0, 1 << i), "back in the set");
    run(t);
    assert_eq!(tcp_sets().0 & (1 << i), 1 << i, "parked again");
    // after TIME-WAIT's 10 s, a segment finds no connection
    *t += 10_000;
    assert_eq!(stack_input(f.as_ptr(), f.len()), 1);
    stack_poll(*t);
    let (tw, now_in) = tcp_sets();
    assert_eq!((tw & (1 << i), now_in & (1 << i)), (0, 0), "not back after TIME-WAIT");
}

fn bad_input() {
    let mut buf = [0u8; 8];
    for h in [-1, 63, 64, 1 << 40] {
        assert_eq!(stack_close(h), -NET_ERR_HANDLE);
        assert_eq!(stack_recv(h, buf.as_mut_ptr(), 8, std::ptr::null_mut()), -NET_ERR_HANDLE);
        assert_eq!(stack_events(h), -NET_ERR_HANDLE);
    }
    assert_eq!(stack_socket(99, NET_SOCK_STREAM), -NET_ERR_AFNOSUPPORT);
    assert_eq!(stack_socket(NET_AF_INET, 9), -NET_ERR_INVAL);
    let u = stack_socket(NET_AF_INET, NET_SOCK_DGRAM);
    assert_eq!(stack_send(u, buf.as_ptr(), 8, std::ptr::null()), -NET_ERR_NOTCONN);
    assert_eq!(stack_send(u, std::ptr::null(), 8, &v4([127, 0, 0, 1], 9)), -NET_ERR_INVAL);
    assert_eq!(stack_bind(u, std::ptr::null()), -NET_ERR_INVAL);
    assert_eq!(stack_bind(u, &v6([0; 16], 1)), -NET_ERR_AFNOSUPPORT);
    assert_eq!(stack_connect(u, &v4([127, 0, 0, 1], 9)), -NET_ERR_OPNOTSUPP);
    assert_eq!(stack_listen(u, 1), -NET_ERR_OPNOTSUPP);
    assert_eq!(stack_close(u), 0);
    assert_eq!(stack_close(u), -NET_ERR_HANDLE);
    // IPv6 datagrams fit one frame (smoltcp does not fragment them): longer ones are refused
    let big = vec![0u8; 1453];
    let u6 = stack_socket(NET_AF_INET6, NET_SOCK_DGRAM);
    assert_eq!(stack_send(u6, big.as_ptr(), 1453, &v6(cfg().ip6, 9)), -NET_ERR_MSGSIZE);
    assert_eq!(stack_send(u6, big.as_ptr(), 1452, &v6(cfg().ip6, 9)), 1452);
    assert_eq!(stack_close(u6), 0);
    // the table fills up and says so; closing gives the handles back
    let hs: Vec<i64> = (0..MAX_HANDLES + 2).map(|_| stack_socket(NET_AF_INET, NET_SOCK_DGRAM)).collect();
    assert!(hs.iter().any(|&h| h == -NET_ERR_NOBUFS));
    for h in hs.into_iter().filter(|&h| h >= 0) {
        assert_eq!(stack_close(h), 0);
    }
}


/// A small deterministic generator (xorshift) for the stream's sizes and timing.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(2654435761) >> 13) as u8
}

/// A stream of `total` bytes over the loopback: sends and receives of varied sizes,
/// time that sometimes jumps far enough for retransmissions, and the sender
/// closing with data still queued.  Every byte must arrive in order before the end.
fn tcp_stream(t: &mut u64, port: u16, total: u64, seed: u64) {
    let mut rng = Rng(seed);
    let l = stack_socket(NET_AF_INET, NET_SOCK_STREAM);
    assert_eq!(stack_bind(l, &v4([0; 4], port)), 0);
    assert_eq!(stack_listen(l, 1), 0);
    let c = stack_socket(NET_AF_INET, NET_SOCK_STREAM);
    assert_eq!(stack_connect(c, &v4([127, 0, 0, 1], port)), 0);
    run(t);
    let s = stack_accept(l, std::ptr::null_mut());
    assert!(s >= 0, "accept: {s}");
    assert_eq!(stack_close(l), 0);
    let (mut sent, mut got, mut closed) = (0u64, 0u64, false);
    let mut out = vec![0u8; 65536];
    let mut buf = vec![0u8; 65536];
    for round in 0.. {
        assert!(round < 1_000_000, "stream stalled at {got} of {total}");
        while !closed && sent < total {
            let n = (1 + rng.next(65536)).min(total - sent) as usize;
            for (k, b) in out[..n].iter_mut().enumerate() {
                *b = byte_at(sent + k as u64);
            }
            let r = stack_send(c, out.as_ptr(), n, std::ptr::null());
            if r == -NET_ERR_AGAIN || r == 0 {
                break;
            }
            assert!(r > 0, "send: {r}");
            sent += r as u64;
            if rng.next(4) == 0 {
                break;
            }
        }
        if sent == total && !closed {
            assert_eq!(stack_close(c), 0);
            closed = true;
        }
        *t += if rng.next(16) == 0 { 200 + rng.next(3000) } else { rng.next(3) };
        stack_poll(*t);
        loop {
            let want = (1 + rng.next(65536)) as usize;
            let r = stack_recv(s, buf.as_mut_ptr(), want, std::ptr::null_mut());
            if r == -NET_ERR_AGAIN {
                break;
            }
            assert!(r >= 0, "recv at {got} of {total}: {r}");
            if r == 0 {
                assert_eq!(got, total, "end of stream early");
                assert_eq!(stack_close(s), 0);
                return;
            }
            for (k, &b) in buf[..r as usize].iter().enumerate() {
                assert_eq!(b, byte_at(got + k as u64), "byte {}", got + k as u64);
            }
            got += r as u64;
            if rng.next(3) == 0 {
                break;
            }
        }
    }
}

struct L;
impl log::Log for L {
    fn enabled(&self, _: &log::Metadata) -> bool { true }
    fn log(&self, r: &log::Record) { eprintln!("{}", r.args()); }
    fn flush(&self) {}
}

#[test]
fn stack() {
    log::set_logger(&L).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    let mut t = 1000;
    assert_eq!(stack_init(&cfg(), tx, t), 0);
    assert_eq!(stack_init(&cfg(), tx, t), -NET_ERR_INVAL, "second init");
    udp_echo(&mut t, NET_AF_INET, v4([127, 0, 0, 1], 7007));
    udp_echo(&mut t, NET_AF_INET, v4([10, 0, 2, 15], 7007));
    udp_echo(&mut t, NET_AF_INET6, v6(cfg().ip6, 7007));
    tcp_echo(&mut t, NET_AF_INET, v4([127, 0, 0, 1], 7100));
    tcp_echo(&mut t, NET_AF_INET6, v6(cfg().ip6, 7101));
    time_wait(&mut t);
    ping(&mut t, NET_AF_INET, v4([10, 0, 2, 15], 0));
    ping(&mut t, NET_AF_INET6, v6(cfg().ip6, 0));
    bad_input();
    log::set_max_level(log::LevelFilter::Off);
    for seed in 1..=20 {
        tcp_stream(&mut t, 7200 + seed as u16, 4 << 20, seed);
    }
    // nothing for our own addresses went out on the wire
    for f in WIRE.lock().unwrap().iter() {
        assert!(f[0] & 1 == 1, "a unicast frame left: {:02x?}", &f[..14]);
    }
}
