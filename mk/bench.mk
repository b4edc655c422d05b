# SPDX-License-Identifier: MIT
# `make bench`: the seeds' experiments on native Linux and on Pecan, one report.
#
# Producers write RESULT lines (docs/bench-method.md) into
# $(BENCH_OUT)/<producer>.results; the report generator reads every such file.
# Pecan's benchmark targets add themselves to BENCH_PECAN_TARGETS, e.g.
#     BENCH_PECAN_TARGETS += bench-ipc     # writes $(BENCH_OUT)/pecan-ipc.results
# Rows with no results say "not yet run on Pecan".

BENCH_OUT    := $(BUILD)/bench
BENCH_LINUX  := $(BENCH_OUT)/linux
MUSL_CC      ?= musl-gcc
BENCH_BUSYBOX ?= /bin/busybox
BENCH_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -static
BENCH_PECAN_TARGETS ?=

# The portable suite: every bench/posix/*.c except the library is a program.
BENCH_POSIX_SRC  := $(filter-out bench/posix/bench.c,$(wildcard bench/posix/*.c))
BENCH_POSIX_BIN  := $(patsubst bench/posix/%.c,$(BENCH_OUT)/posix/%,$(BENCH_POSIX_SRC))

# percent of the default iteration counts (the smoke test boots with 1)
BENCH_SCALE ?= 100

.PHONY: bench bench-posix bench-linux bench-lx bench-report bench-guest

bench-posix: $(BENCH_POSIX_BIN)

# deps first (order only): musl-gcc, busybox-static and cpio come from tools/deps.sh
$(BENCH_OUT)/posix/%: bench/posix/%.c bench/posix/bench.c bench/posix/bench.h mk/bench.mk | deps
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(BENCH_CFLAGS) -o $@ $< bench/posix/bench.c

$(BENCH_LINUX)/vmlinuz: bench/linux/fetch-kernel.sh | deps
	bench/linux/fetch-kernel.sh $(BENCH_LINUX)

$(BENCH_LINUX)/initramfs.cpio.gz: bench/linux/mkinitramfs.sh bench/linux/init $(BENCH_POSIX_BIN)
	@mkdir -p $(dir $@)
	bench/linux/mkinitramfs.sh $@ bench/linux/init $(BENCH_BUSYBOX) $(BENCH_POSIX_BIN)

# Everything the guest needs, built (and the kernel fetched) but not booted.
bench-guest: $(BENCH_LINUX)/vmlinuz $(BENCH_LINUX)/initramfs.cpio.gz

# `make test` boots the guest once (tests/bench/test_linux_guest.py).
test: bench-guest

# One boot of the Linux guest running the whole suite at BENCH_SCALE.
bench-linux: deps bench-guest
	bench/linux/boot.sh $(BENCH_LINUX) $(BENCH_SCALE) $(BENCH_OUT)/linux.results

# The same suite, same binaries and scale, under lx on Pecan, on the kernel
# of record (DS/LQ, fastpath on, no counters): $(BENCH_OUT)/pecan-lx.results.
# lat_scale keeps 1,000 processes alive, and each costs the kernel about
# 56 KiB (its space's page tables, thread, kernel stack, UTCB page), more
# than the default pool (28 MiB at 256 MiB: kernel/config.h) holds; it runs in a second
# boot on the same kernel built (Makefile) with half the RAM for the pool:
# $(BENCH_OUT)/pecan-lx-scale.results (docs/bench-method.md).
BENCH_PECAN_TARGETS += bench-lx
BENCH_LX_KERNEL := $(BUILD)/kernels/bench-dslq-fast/pecan.bin
BENCH_LX_SCALE_KERNEL := $(BUILD)/kernels/bench-dslq-fast-bigpool/pecan.bin
# `make test` boots both (tests/bench/test_lx_guest.py).
test: $(BENCH_LX_KERNEL) $(BENCH_LX_SCALE_KERNEL)
bench-lx: deps $(SERVERS) $(BENCH_LX_KERNEL) $(BENCH_LX_SCALE_KERNEL) $(LX) $(LXFS)
	bench/lx/boot.sh $(BENCH_LX_KERNEL) $(LX) $(LXFS) $(BENCH_SCALE) $(BENCH_OUT)/pecan-lx.results skip=lat_scale
	bench/lx/boot.sh $(BENCH_LX_SCALE_KERNEL) $(LX) $(LXFS) $(BENCH_SCALE) \
		$(BENCH_OUT)/pecan-lx-scale.results only=lat_scale
	LX_OPTS=lx.fast=0 RESULT_TAG=path=trap bench/lx/boot.sh $(BENCH_LX_KERNEL) $(LX) $(LXFS) \
		$(BENCH_SCALE) $(BENCH_OUT)/pecan-lx-trap.results only=lat_syscall
	LX_OPTS=lx.confine=0 RESULT_TAG=confine=off bench/lx/boot.sh $(BENCH_LX_KERNEL) $(LX) $(LXFS) \
		$(BENCH_SCALE) $(BENCH_OUT)/pecan-lx-unconfined.results only=lat_syscall

# `make bench-model`: estimated cycles beside instructions (the cost model,
# docs/bench-method.md): Linux, lx and the ping-pong under tools/costmodel, with
# CR3 writes flushing the TLBs and keeping them; the table in docs/report-model.md.
.PHONY: bench-model
BENCH_PECAN_TARGETS += bench-model
bench-model: deps bench-guest $(BENCH_LX_KERNEL) $(SERVERS) $(LX) $(LXFS) $(BUILD)/bench/pingpong.elf $(BUILD)/bench/kbench.elf
	$(PYTHON) bench/model/model.py --build $(BUILD) --table docs/report-model.md

bench-report:
	$(PYTHON) bench/report/report.py --out docs/report.md --svg-dir docs/report $(BENCH_OUT)/*.results

# Producers run in a sub-make, so BENCH_PECAN_TARGETS may be extended anywhere in
# the Makefile; a failing producer still leaves a report of what exists, then
# `make bench` fails.
bench: deps
	@status=0; $(MAKE) --no-print-directory -k $(BENCH_PECAN_TARGETS) bench-linux || status=$$?; \
	$(MAKE) --no-print-directory bench-report && exit $$status

# `make bench-http`: host-to-guest HTTP throughput, the same busybox httpd on native
# Linux (virtio-net) and under lx, counted by tools/insncount (bench/http/throughput.py).
.PHONY: bench-http
BENCH_PECAN_TARGETS += bench-http
$(BENCH_OUT)/http/initramfs.cpio.gz: bench/http/mkinitramfs.sh bench/http/linux-init $(BENCH_LINUX)/vmlinuz
	@mkdir -p $(dir $@)
	bench/http/mkinitramfs.sh $@ bench/http/linux-init $(BENCH_BUSYBOX) \
		$$(ls $(BENCH_LINUX)/linux-image-*.deb | head -n 1)
bench-http: deps $(SERVERS) $(BENCH_LX_KERNEL) $(LX) $(LXFS) $(BENCH_OUT)/http/initramfs.cpio.gz
	$(PYTHON) bench/http/throughput.py --build $(BUILD) --out $(BENCH_OUT)/http.results
