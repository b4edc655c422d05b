// SPDX-License-Identifier: MIT
//! The network server's TCP/IP stack: smoltcp (IPv4, IPv6, ARP, NDP, ICMP echo,
//! TCP, UDP) behind the C interface of servers/net/stack.h.  One Ethernet
//! interface; frames come in through `stack_input` and go out through the
//! transmit function given to `stack_init`.  Loopback (127.0.0.0/8 and the
//! interface's own addresses; not ::1, which smoltcp 0.12 does not route) is
//! done in the device: frames for our own MAC address never leave, broadcasts
//! and multicasts are also looped back.  Checksums are the device's too
//! (csum.rs): only frames to and from the wire have them.
//!
//! Sockets are numbered handles (0..MAX_HANDLES) into a table; every call
//! checks its handle and arguments and returns a negative NET_ERR_* code
//! (include/l4/net.h) for bad ones.  All memory is static: the server has no
//! heap, and the stack never allocates.
#![cfg_attr(not(test), no_std)]

mod csum;
mod table;
pub use table::*;

#[cfg(not(test))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    extern "C" {
        fn stack_panic() -> !;
    }
    // SAFETY: the C side prints a line and stops the server thread.
    unsafe { stack_panic() }
}

#[cfg(test)]
mod tests;
