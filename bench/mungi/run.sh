#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: run.sh KERNEL SERVER IMAGE RESULTS
# Boots Pecan's Mungi server with the benchmark image under icount, keeps the
# console in RESULTS.log and writes the META, RESULT and STATUS lines to
# RESULTS.  Fails unless the image printed "mbench: done".
set -e
kernel=$1 server=$2 image=$3 results=$4
log=$results.log
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$(dirname "$results")"
start=$(date +%s)
status=0
"$top/tools/run" --icount --timeout 1500 --kernel "$kernel" --root "$server" --module "$image" \
	</dev/null >"$log" 2>&1 || status=$?
end=$(date +%s)
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
cpu=$("$top/tools/run" --dry-run | sed 's/.* -cpu \([^ ]*\) .*/\1/')
{
	echo "META producer=pecan-mungi system=mungi method=icount"
	echo "META commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "META qemu=$(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //; s/ .*//')"
	echo "META kernel=pecan:$(basename "$(dirname "$kernel")")"
	echo "META host_seconds=$((end - start))"
	echo "META cpu=$cpu"
	echo "META host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr -s ' ' '_')"
	grep -E '^RESULT ' "$log" || true
	if grep -q '^mbench: done' "$log"; then s=0; else s=1; fi
	echo "STATUS system=mungi prog=mungi status=$s"
	echo "STATUS system=mungi prog=oo1 status=$s"
} >"$results"
if ! grep -q '^mbench: done' "$log"; then
	echo "run.sh: the benchmark did not finish (tools/run status $status); console tail:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
