#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: boot.sh KERNEL LX ROOTFS SCALE RESULTS [INIT-ARG...]
# Boots Pecan (KERNEL) with lx (LX) and its root file system (ROOTFS) in the
# measurement configuration; lx runs /bench/init (bench/lx/init) as its first
# program with scale=SCALE and the INIT-ARGs (only=a,b, timeout=S).  Keeps the
# console in RESULTS.log and writes the META, RESULT and STATUS lines to
# RESULTS with the run's provenance.  Fails unless the suite reached
# "BENCH DONE" and lx powered off with status 0.  Environment: LX_OPTS, lx's
# own options before the program (lx.fast=0: the trap path for every call);
# RESULT_TAG, a parameter added to every RESULT line (path=trap); BENCH_PLUGIN,
# a QEMU TCG plugin with its arguments (the cost model, bench/model).
set -e
kernel=$1 lx=$2 rootfs=$3 scale=$4 results=$5
shift 5
log=$results.log
mkdir -p "$(dirname "$results")"
top=$(cd "$(dirname "$0")/../.." && pwd)
cpu=Westmere-v1,+pdpe1gb,+rdrand
start=$(date +%s)
status=0
"$top/tools/run" --icount --cpu "$cpu" --mem 256 --timeout "${BENCH_TIMEOUT:-3000}" \
	${BENCH_PLUGIN:+--qemu-arg=-plugin --qemu-arg="$BENCH_PLUGIN"} \
	--kernel "$kernel" --root "$lx" --module "$rootfs" \
	--root-args "${LX_OPTS:+$LX_OPTS }/bench/init scale=$scale $*" </dev/null >"$log" 2>&1 || status=$?
end=$(date +%s)
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
{
	"$top/bench/provenance.sh" pecan-lx "$cpu" $((end - start))
	echo "META kernel=pecan+lx:$(basename "$(dirname "$kernel")")"
	grep -E '^(META|RESULT|STATUS) ' "$log" | sed "/^RESULT /s/ value=/${RESULT_TAG:+ $RESULT_TAG} value=/" || true
} >"$results"
if ! grep -q '^BENCH DONE' "$log" || [ "$status" != 0 ]; then
	echo "boot.sh: the suite on lx did not finish (tools/run status $status); console tail:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
