#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: mkinitramfs.sh OUT.cpio.gz INIT BUSYBOX KERNEL.deb
# The native Linux guest's initramfs for make bench-http: INIT as /init, the
# static BUSYBOX, and the virtio-net driver's modules taken from the kernel
# package with dpkg-deb.
set -e
out=$1 init=$2 busybox=$3 deb=$4
mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/modules" "$stage/x"
cp "$init" "$stage/init"
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
chmod 755 "$stage/init" "$stage/bin/busybox"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage/x" --wildcards './lib/modules/*/kernel/drivers/virtio/*.ko' \
	'./lib/modules/*/kernel/drivers/net/net_failover.ko' './lib/modules/*/kernel/drivers/net/virtio_net.ko' \
	'./lib/modules/*/kernel/net/core/failover.ko'
for m in $mods; do
	f=$(find "$stage/x" -name "$m.ko" | head -n 1)
	[ -n "$f" ] || { echo "$0: module $m missing from $deb" >&2; exit 1; }
	mv "$f" "$stage/modules/"
done
rm -rf "$stage/x"
find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -9 > "$out.tmp"
mv "$out.tmp" "$out"
