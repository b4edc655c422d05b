// SPDX-License-Identifier: MIT
//! Checksums at the wire's edge.  smoltcp is told that the device does them
//! all (its capabilities ignore checksums), so frames that stay inside (the
//! loopback) carry none and cost none, as Linux's lo; the device glue fills
//! them into every frame for the wire (`fill`) and checks every frame from it
//! (`verify`): the IPv4 header's, and TCP's, UDP's, ICMP's and ICMPv6's.
//! Fragments: the IPv4 header of each is checked and filled, but the transport
//! checksum of a datagram smoltcp fragmented is neither (it spans the
//! fragments): a datagram larger than the interface's frame goes to the wire
//! with UDP's "no checksum" (0, legal on IPv4), and one reassembled from the
//! wire is taken unchecked.  (A packet the device glue fragments for the wire
//! has its checksums filled before.)
use smoltcp::wire::{
    EthernetFrame, EthernetProtocol, Icmpv4Packet, Icmpv6Packet, IpAddress, IpProtocol,
    Ipv4Packet, Ipv6Address, Ipv6Packet, TcpPacket, UdpPacket,
};

/// The transport header after IPv6's fixed one: (protocol, offset), past one
/// hop-by-hop header (MLD reports have one).
fn ipv6_transport(next: IpProtocol, payload: &[u8]) -> Option<(IpProtocol, usize)> {
    if next != IpProtocol::HopByHop {
        return Some((next, 0));
    }
    let len = (*payload.get(1)? as usize + 1) * 8;
    (payload.len() >= len).then(|| (IpProtocol::from(payload[0]), len))
}

/// Fill (true) or verify (false) one transport checksum; true when right or filled.
fn transport(proto: IpProtocol, p: &mut [u8], src: IpAddress, dst: IpAddress, fill: bool) -> bool {
    match (proto, src, dst) {
        (IpProtocol::Tcp, _, _) => match TcpPacket::new_checked(p) {
            Ok(mut t) if fill => { t.fill_checksum(&src, &dst); true }
            Ok(t) => t.verify_checksum(&src, &dst),
            Err(_) => true,                      // smoltcp drops what it cannot parse
        },
        (IpProtocol::Udp, _, _) => match UdpPacket::new_checked(p) {
            Ok(mut u) if fill => { u.fill_checksum(&src, &dst); true }
            Ok(u) => u.verify_checksum(&src, &dst),
            Err(_) => true,
        },
        (IpProtocol::Icmp, _, _) => match Icmpv4Packet::new_checked(p) {
            Ok(mut i) if fill => { i.fill_checksum(); true }
            Ok(i) => i.verify_checksum(),
            Err(_) => true,
        },
        (IpProtocol::Icmpv6, IpAddress::Ipv6(s), IpAddress::Ipv6(d)) => icmpv6(p, &s, &d, fill),
        _ => true,
    }
}

fn icmpv6(p: &mut [u8], src: &Ipv6Address, dst: &Ipv6Address, fill: bool) -> bool {
    match Icmpv6Packet::new_checked(p) {
        Ok(mut i) if fill => { i.fill_checksum(src, dst); true }
        Ok(i) => i.verify_checksum(src, dst),
        Err(_) => true,
    }
}

/// Fill or verify a frame's checksums; false: a checksum is wrong (drop the frame).
fn walk(frame: &mut [u8], fill: bool) -> bool {
    let Ok(mut eth) = EthernetFrame::new_checked(frame) else { return true };
    match eth.ethertype() {
        EthernetProtocol::Ipv4 => {
            let Ok(mut ip) = Ipv4Packet::new_checked(eth.payload_mut()) else { return true };
            if fill {
                ip.fill_checksum();
            } else if !ip.verify_checksum() {
                return false;
            }
            if ip.more_frags() || ip.frag_offset() != 0 {
                return true;
            }
            let (src, dst, proto) = (ip.src_addr().into(), ip.dst_addr().into(), ip.next_header());
            transport(proto, ip.payload_mut(), src, dst, fill)
        }
        EthernetProtocol::Ipv6 => {
            let Ok(mut ip) = Ipv6Packet::new_checked(eth.payload_mut()) else { return true };
            let (src, dst) = (ip.src_addr(), ip.dst_addr());
            let Some((proto, off)) = ipv6_transport(ip.next_header(), ip.payload_mut()) else { return true };
            if proto == IpProtocol::Ipv6Frag {
                return true;
            }
            transport(proto, &mut ip.payload_mut()[off..], src.into(), dst.into(), fill)
        }
        _ => true,
    }
}

/// A frame for the wire gets its checksums.
pub fn fill(frame: &mut [u8]) {
    walk(frame, true);
}

/// Are a frame's checksums right (a frame smoltcp could not parse counts as right:
/// smoltcp drops it)?  Mutable only to share `walk`: nothing is written.
pub fn verify(frame: &mut [u8]) -> bool {
    walk(frame, false)
}
