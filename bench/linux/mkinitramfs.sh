#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: mkinitramfs.sh OUT.cpio.gz INIT BUSYBOX PROG...
# Packs the Linux baseline guest's root file system: INIT as /init, the static
# BUSYBOX as /bin/busybox (applet links are made at boot), and each PROG (static
# benchmark binaries) in /bench, with /bench/LIST naming the programs to run
# (every PROG except hello, which the exec benchmarks start).
set -e
out=$1 init=$2 busybox=$3
shift 3
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/bench" "$stage/dev"
cp "$init" "$stage/init"
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
chmod 755 "$stage/init" "$stage/bin/busybox"
: > "$stage/bench/LIST"
for p in "$@"; do
	cp "$p" "$stage/bench/"
	name=$(basename "$p")
	[ "$name" = hello ] || echo "$name" >> "$stage/bench/LIST"
done
# fixed timestamps and owners: the image depends only on its inputs
find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -9 > "$out.tmp"
mv "$out.tmp" "$out"
