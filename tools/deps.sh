#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what building and testing Pecan needs from Debian's packages.
# A no-op when everything is present.  Needs root (or sudo) to install.
set -e

need=""
have() { command -v "$1" >/dev/null 2>&1; }
have qemu-system-x86_64 || need="$need qemu-system-x86"
have gcc || need="$need gcc"
# gcc only recommends the C library headers; the host unit tests need them
[ -e /usr/include/stdio.h ] || need="$need libc6-dev"
have make || need="$need make"
have gdb || need="$need gdb"          # make debug, and its test
{ have ld && have objcopy; } || need="$need binutils"
if ! have python3; then
	need="$need python3 python3-pytest"
elif ! python3 -c 'import pytest' >/dev/null 2>&1; then
	need="$need python3-pytest"
fi
# make test runs independent test files in parallel QEMU boots (pytest -n)
python3 -c 'import xdist' >/dev/null 2>&1 || need="$need python3-pytest-xdist"
# the benchmark suite (mk/bench.mk): static musl programs in a busybox initramfs
have musl-gcc || need="$need musl-tools"
have cpio || need="$need cpio"
# the static busybox: the dynamic one (package busybox) cannot run in the initramfs
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || need="$need busybox-static"
# lx's ext2 root image (mk/lx.mk) and the checks of it (tests/system/test_lx_ext2.py);
# also the Debian image (mk/debian.mk), which needs nothing else: apt-get, dpkg-deb and
# ldconfig are on every Debian, objdump comes with binutils above
{ have mke2fs || [ -x /sbin/mke2fs ] || [ -x /usr/sbin/mke2fs ]; } || need="$need e2fsprogs"
# the network server's TCP/IP stack (smoltcp, servers/net/stack): Debian's Rust toolchain
have cargo || need="$need cargo-web"
# gcc's sanitizer runtimes for the host unit tests
if have gcc && [ -e /usr/include/stdio.h ] && ! echo 'int main(void){return 0;}' | gcc -x c -fsanitize=address,undefined -o /dev/null - >/dev/null 2>&1; then
	need="$need libasan8 libubsan1"
fi

[ -z "$need" ] && exit 0
echo "tools/deps.sh: installing:$need"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null; }; then
	echo "tools/deps.sh: could not install:$need (apt-get failed: is the network or the Debian archive unreachable?)" >&2
	exit 1
fi
# python3 may be a non-Debian interpreter first on PATH (pyenv): fall back to pip there
if ! python3 -c 'import pytest' >/dev/null 2>&1; then
	python3 -m pip install -q pytest
fi
if ! python3 -c 'import xdist' >/dev/null 2>&1; then
	python3 -m pip install -q pytest-xdist
fi
