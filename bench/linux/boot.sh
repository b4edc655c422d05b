#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: boot.sh GUESTDIR SCALE RESULTS
# Boots the Linux baseline guest (GUESTDIR/vmlinuz + initramfs.cpio.gz) in the
# measurement configuration, keeps its console in RESULTS.log, and writes the
# META, RESULT and STATUS lines to RESULTS with the run's provenance.
# Fails when the guest does not reach "BENCH DONE".  Environment (the cost model,
# bench/model): BENCH_QEMU_ARGS, more QEMU arguments (a -plugin); BENCH_APPEND, more
# kernel options (bench.only=a,b).
set -e
dir=$1 scale=$2 results=$3
log=$results.log
mkdir -p "$(dirname "$results")"
top=$(cd "$(dirname "$0")/../.." && pwd)
start=$(date +%s)
# The CPU model is pinned (as tools/run's): the guest sees the same CPUID on every host.
cpu=Westmere-v1,+pdpe1gb,+rdrand
timeout "${BENCH_TIMEOUT:-3000}" qemu-system-x86_64 -accel tcg -cpu "$cpu" \
	-icount shift=0,align=off,sleep=off -m 256M -serial stdio -display none \
	-monitor none -no-reboot -nodefaults -seed 1 -rtc base=2026-01-01T00:00:00,clock=vm \
	-kernel "$dir/vmlinuz" -initrd "$dir/initramfs.cpio.gz" $BENCH_QEMU_ARGS \
	-append "console=ttyS0 panic=-1 nokaslr norandmaps quiet loglevel=1 bench.scale=$scale $BENCH_APPEND" \
	</dev/null >"$log" 2>&1 || true
end=$(date +%s)
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
{
	"$top/bench/provenance.sh" linux "$cpu" $((end - start))
	echo "META debian_kernel=$(cat "$dir/kernel-version" | sed 's/ .*//')"
	grep -E '^(META|RESULT|STATUS) ' "$log" || true
} >"$results"
if ! grep -q '^BENCH DONE' "$log"; then
	echo "boot.sh: the guest did not finish; console tail:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
