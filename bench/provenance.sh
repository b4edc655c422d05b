#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: provenance.sh PRODUCER CPU SECONDS
# Prints the META lines every results file of `make bench` starts with
# (docs/bench-method.md): who produced it, the commit (with -dirty when bench/
# has uncommitted changes), the QEMU version, the host time the run took, the
# guest CPU model and the host's CPU.
top=$(cd "$(dirname "$0")/.." && pwd)
echo "META producer=$1"
echo "META commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet HEAD -- bench 2>/dev/null || echo -dirty)"
echo "META qemu=$(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //; s/ .*//')"
echo "META host_seconds=$3"
echo "META cpu=$2"
echo "META host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr -s ' ' '_')"
