#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: mklxfs.sh OUT.cpio|OUT.img BUSYBOX BENCH_DIR TEST_DIR BENCH_INIT
# Packs lx's root file system: an uncompressed newc cpio (lx's boot module,
# the RAM root), or for OUT.img a disk image holding an ext2 file system of
# LX_EXT2_MB MiB (default 64) made by Debian's mke2fs -d (lx.root=disk):
# the static BUSYBOX as /bin/busybox with a link for every applet where
# `busybox --list-full` puts it, the benchmark programs of BENCH_DIR in
# /bench (with /bench/LIST, as the Linux guest has it), the test programs of
# TEST_DIR in /tests, the suite's driver BENCH_INIT as /bench/init, and a
# minimal /etc.
set -e
out=$1 busybox=$2 benchdir=$3 testdir=$4 benchinit=$5
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"      # the root directory: mktemp's 0700 would shut out every other user
mkdir -p "$stage/bin" "$stage/sbin" "$stage/usr/bin" "$stage/usr/sbin" "$stage/etc" \
	"$stage/root" "$stage/tmp" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/mnt" "$stage/bench" "$stage/tests"
cp "$busybox" "$stage/bin/busybox"
chmod 755 "$stage/bin/busybox"
for applet in $("$busybox" --list-full); do
	[ "$applet" = bin/busybox ] && continue
	depth=$(echo "$applet" | tr -cd / | wc -c)
	up=$(for i in $(seq "$depth"); do printf ../; done)
	ln -sf "${up}bin/busybox" "$stage/$applet"
done
: > "$stage/bench/LIST"
for p in "$benchdir"/*; do
	[ -f "$p" ] || continue
	cp "$p" "$stage/bench/"
	name=$(basename "$p")
	[ "$name" = hello ] || echo "$name" >> "$stage/bench/LIST"
done
cp "$benchinit" "$stage/bench/init"
chmod 755 "$stage/bench/init"
for p in "$testdir"/*; do
	[ -f "$p" ] && cp "$p" "$stage/tests/"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
	> "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
echo "pecan" > "$stage/etc/hostname"
# names without a DNS server: localhost on both loopbacks (docs/lx.md, "Networking");
# QEMU's user network answers DNS at 10.0.2.3, which its restriction keeps from the world
printf '127.0.0.1\tlocalhost pecan\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
	> "$stage/etc/hosts"
echo "nameserver 10.0.2.3" > "$stage/etc/resolv.conf"
printf 'hosts: files dns\n' > "$stage/etc/nsswitch.conf"
chmod 1777 "$stage/tmp"
# fixed timestamps and owners: the image depends only on its inputs
find "$stage" -exec touch -h -d @0 {} +
case "$out" in
*.img)
	# the host's dynamic programs and what their loaders need (docs/lx.md, dynamic ELF):
	# /host/true and /host/ls with glibc's loader and libraries, and musl's loader
	mkdir -p "$stage/host"
	for prog in /bin/true /bin/ls; do
		cp "$prog" "$stage/host/"
		for lib in $(ldd "$prog" | grep -o '/[^ ]*'); do
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
	done
	[ -e /lib/ld-musl-x86_64.so.1 ] && cp -L /lib/ld-musl-x86_64.so.1 "$stage/lib/"
	find "$stage" -exec touch -h -d @0 {} +
	# 4 KiB blocks (lx's page), 128-byte inodes, no htree index: what fs/ext2.c writes
	rm -f "$out.tmp"
	PATH="$PATH:/sbin:/usr/sbin" mke2fs -q -F -t ext2 -b 4096 -I 128 -O ^dir_index \
		-E root_owner=0:0 -d "$stage" "$out.tmp" "${LX_EXT2_MB:-64}M"
	;;
*)
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out.tmp"
	;;
esac
mv "$out.tmp" "$out"
