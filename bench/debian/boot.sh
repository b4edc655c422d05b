#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: boot.sh pecan KERNEL LX IMAGE PROG SCALE RESULTS
#        boot.sh linux GUESTDIR INITRAMFS IMAGE PROG SCALE RESULTS
# Runs PROG (bench/debian/lat_debian) on a copy of the Debian image IMAGE, as
# /bench/lat_debian: under lx on Pecan (KERNEL, LX; lx.root=disk, PROG is
# process 1), or chrooted into the image by native Linux (GUESTDIR's vmlinuz
# with INITRAMFS, bench/debian/linux-init), in the measurement configuration
# with the image as the IDE disk.  Keeps the console in RESULTS.log and writes
# the META, RESULT and STATUS lines to RESULTS; fails unless "BENCH DONE".
set -e
system=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
cpu=Westmere-v1,+pdpe1gb,+rdrand
case "$system" in
pecan) kernel=$2 lx=$3 ;;
linux) guest=$2 initrd=$3 ;;
*) echo "usage: see $0" >&2; exit 2 ;;
esac
image=$4 prog=$5 scale=$6 results=$7
log=$results.log
img=$results.img
mkdir -p "$(dirname "$results")"
cp --sparse=always "$image" "$img"
E2="env PATH=$PATH:/sbin:/usr/sbin"
$E2 debugfs -w -R "mkdir /bench" "$img" >/dev/null 2>&1
$E2 debugfs -w -R "write $prog /bench/lat_debian" "$img" >/dev/null 2>&1
start=$(date +%s)
status=0
if [ "$system" = pecan ]; then
	"$top/tools/run" --icount --cpu "$cpu" --mem 256 --timeout "${BENCH_TIMEOUT:-3000}" \
		--kernel "$kernel" --root "$lx" --disk "$img" \
		--root-args "lx.root=disk /bench/lat_debian system=pecan scale=$scale dir=/root/bench" \
		</dev/null >"$log" 2>&1 || status=$?
else
	timeout "${BENCH_TIMEOUT:-3000}" qemu-system-x86_64 -accel tcg -cpu "$cpu" \
		-icount shift=0,align=off,sleep=off -m 256M -serial stdio -display none \
		-monitor none -no-reboot -nodefaults -seed 1 -rtc base=2026-01-01T00:00:00,clock=vm \
		-kernel "$guest/vmlinuz" -initrd "$initrd" \
		-drive "file=$img,format=raw,if=ide,cache=writethrough" \
		-append "console=ttyS0 panic=-1 nokaslr norandmaps quiet loglevel=1 bench.scale=$scale" \
		</dev/null >"$log" 2>&1 || status=$?
fi
end=$(date +%s)
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
{
	"$top/bench/provenance.sh" "$system-debian" "$cpu" $((end - start))
	grep -E '^(META|RESULT|STATUS) ' "$log" || true
} >"$results"
rm -f "$img"
if ! grep -q '^BENCH DONE' "$log"; then
	echo "boot.sh: the benchmark on $system did not finish (status $status); console tail:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
