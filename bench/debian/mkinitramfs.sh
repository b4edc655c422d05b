#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: mkinitramfs.sh OUT.cpio.gz INIT BUSYBOX KERNEL.deb
# The native Linux guest's initramfs for make bench-debian: INIT as /init,
# the static BUSYBOX, and the IDE disk's driver modules (libata, ata_piix,
# SCSI disk) taken from the kernel package with dpkg-deb.
set -e
out=$1 init=$2 busybox=$3 deb=$4
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/modules" "$stage/x"
cp "$init" "$stage/init"
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
chmod 755 "$stage/init" "$stage/bin/busybox"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage/x" --wildcards \
	'./lib/modules/*/kernel/drivers/scsi/scsi_common.ko' './lib/modules/*/kernel/drivers/scsi/scsi_mod.ko' \
	'./lib/modules/*/kernel/drivers/scsi/sd_mod.ko' './lib/modules/*/kernel/drivers/ata/libata.ko' \
	'./lib/modules/*/kernel/drivers/ata/ata_piix.ko'
find "$stage/x" -name '*.ko' -exec mv {} "$stage/modules/" \;
rm -rf "$stage/x"
[ "$(ls "$stage/modules" | wc -l)" = 5 ] || { echo "$0: modules missing from $deb" >&2; exit 1; }
find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -9 > "$out.tmp"
mv "$out.tmp" "$out"
