# SPDX-License-Identifier: MIT
# Pecan: `make run` boots the system in QEMU, `make test` runs every test.
# Both first install missing Debian packages (tools/deps.sh).

BUILD   ?= build
CC      := gcc
LD      := ld
OBJCOPY := objcopy
PYTHON  ?= python3
# Kernel configuration: -DCONFIG_X=value overrides kernel/config.h defaults.
KCONFIG ?=
# The architecture: kernel/arch/$(ARCH) provides arch.h and the rest of the
# fixed interface the generic kernel calls (docs/architecture.md).
ARCH    ?= x86_64
ARCHDIR := kernel/arch/$(ARCH)
# Scheduler-variant presets (kernel/config.h, docs/architecture.md).  Each is
# built as $(BUILD)/kernels/<name>/pecan.bin besides the default kernel.
PRESET_dslq   := -DCONFIG_SCHED_DIRECT=1 -DCONFIG_SCHED_LAZY=1 -DCONFIG_SCHED_BENNO=0
PRESET_dseq   := -DCONFIG_SCHED_DIRECT=1 -DCONFIG_SCHED_LAZY=0 -DCONFIG_SCHED_BENNO=0
PRESET_fslq   := -DCONFIG_SCHED_DIRECT=0 -DCONFIG_SCHED_LAZY=1 -DCONFIG_SCHED_BENNO=0
PRESET_fseq   := -DCONFIG_SCHED_DIRECT=0 -DCONFIG_SCHED_LAZY=0 -DCONFIG_SCHED_BENNO=0
PRESET_benno  := -DCONFIG_SCHED_DIRECT=1 -DCONFIG_SCHED_LAZY=0 -DCONFIG_SCHED_BENNO=1
VARIANTS := dslq dseq fslq fseq benno
# test kernels: every variant as built by default, plus the default with the fastpath off
TEST_KERNELS := $(VARIANTS) dslq-nofast
# kernels only some tests use: several processors with the I/O APIC (tests/system/test_smp.py)
OTHER_TEST_KERNELS := dslq-ioapic
KCONF_dslq := $(PRESET_dslq)
KCONF_dseq := $(PRESET_dseq)
KCONF_fslq := $(PRESET_fslq)
KCONF_fseq := $(PRESET_fseq)
KCONF_benno := $(PRESET_benno)
KCONF_dslq-nofast := $(PRESET_dslq) -DCONFIG_FASTPATH=0
KCONF_dslq-ioapic := $(PRESET_dslq) -DCONFIG_IOAPIC=1

COMMON_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fno-asynchronous-unwind-tables -Iinclude
# link-time optimization lets the IPC paths inline across files
KCFLAGS := $(COMMON_CFLAGS) -mno-red-zone -mcmodel=kernel -mgeneral-regs-only -mno-sse \
	-I$(ARCHDIR) -flto $(KCONFIG)
KLINK = $(CC) $(KCFLAGS) -nostdlib -static -no-pie -Wl,-n -Wl,-z,max-page-size=4096 \
	-Wl,--no-warn-rwx-segments -Wl,--build-id=none -Wl,-T,$(ARCHDIR)/linker.ld
# no red zone, so the wrappers need not step over it (lib/l4/l4.h); tests run in source order
UCFLAGS := $(COMMON_CFLAGS) -mno-red-zone -DPECAN_NO_RED_ZONE -fno-toplevel-reorder
HCFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -DPECAN_HOST_TEST -Iinclude -Ikernel -fno-toplevel-reorder \
	-fsanitize=address,undefined -fno-omit-frame-pointer

KSRC := $(wildcard kernel/*.c $(ARCHDIR)/*.c $(ARCHDIR)/*.S) \
	lib/fmt/fmt.c lib/c/string.c
KOBJ := $(patsubst %,$(BUILD)/k/%.o,$(KSRC))

ULIB := lib/l4/crt0.S lib/l4/l4.c lib/l4/boot.c lib/c/string.c lib/c/printf.c lib/fmt/fmt.c lib/drivers/client.c
DRIVERS_OBJ := $(patsubst %,$(BUILD)/u/servers/drivers/%.c.o,serial timersvc start clients)
ULIB_OBJ := $(patsubst %,$(BUILD)/u/%.o,$(ULIB))
TLIB_OBJ := $(BUILD)/u/lib/test/test.c.o $(BUILD)/u/lib/test/tthread.c.o
# the checkpointed page store (docs/store.md): pure C, also built for the host tests
STORE_SRC := $(wildcard lib/store/*.c)
STORE_OBJ := $(patsubst %,$(BUILD)/u/%.o,$(STORE_SRC))
# the disk driver (any root task may start it) and its client library
DISK_OBJ := $(patsubst %,$(BUILD)/u/%.c.o,servers/disk/ata servers/disk/start lib/disk/client)
# the NIC driver, the network server and their client libraries (docs/net.md)
NIC_OBJ := $(patsubst %,$(BUILD)/u/%.c.o,servers/nic/pci servers/nic/virtio servers/nic/start lib/nic/client)
NET_OBJ := $(patsubst %,$(BUILD)/u/%.c.o,servers/net/net servers/net/config servers/net/start lib/net/client \
	lib/task/task)
# The network server's TCP/IP stack: smoltcp (crates.io, pinned by Cargo.lock) as a no_std
# static library.  It is built for the host target, whose core library Debian's rustc-web
# ships (it has no freestanding target); nothing in it calls the OS, relocations are static
# for the servers' fixed-address link, and panics abort (docs/net.md).
CARGO ?= cargo
NETSTACK_DIR := servers/net/stack
NETSTACK := $(BUILD)/net/cargo/release/libpecan_netstack.a
NETSTACK_SRC := $(NETSTACK_DIR)/Cargo.toml $(NETSTACK_DIR)/Cargo.lock $(wildcard $(NETSTACK_DIR)/src/*.rs)

SIGMA0_BASE := 0x00f00000
ROOT_BASE   := 0x01000000

KERNEL := $(BUILD)/pecan.bin
VARIANT_KERNELS := $(foreach k,$(TEST_KERNELS) $(OTHER_TEST_KERNELS),$(BUILD)/kernels/$(k)/pecan.bin)
SERVERS := $(BUILD)/servers/sigma0.elf $(BUILD)/servers/root.elf
# lx, the Linux personality (docs/lx.md), and the file system it boots with
LX      := $(BUILD)/servers/lx.elf
LX_SRC  := $(wildcard servers/lx/*/*.c servers/lx/*/*.S)
LX_OBJ  := $(patsubst %,$(BUILD)/u/%.o,$(LX_SRC))
LXFS    := $(BUILD)/lx/rootfs.cpio
# In-guest test programs: t_* run as the root task; s_* run in sigma0's slot.
TPROGS := $(patsubst tests/system/progs/%.c,$(BUILD)/tests/%.elf,$(wildcard tests/system/progs/*.c))
HOSTTESTS := $(patsubst tests/host/%.c,$(BUILD)/host/%,$(wildcard tests/host/test_*.c))

# Your own root task (docs/writing-programs.md): ordinary compiler flags, the
# user library as an archive, and a linker script.  tests/system/test_examples.py
# runs the command line the document shows, so keep the two the same.
LIBL4 := $(BUILD)/libl4.a
PROG_CFLAGS := -O2 -ffreestanding -fno-stack-protector -nostdlib -static -Iinclude -Ilib \
	-T lib/l4/root.ld
PROG_OUT = $(BUILD)/prog/$(basename $(notdir $(SRC))).elf
# test programs built that way (tests/system/test_runner.py, the red-zone test)
ORDINARY_PROGS := $(patsubst tests/system/ordinary/%.c,$(BUILD)/prog/%.elf,\
	$(wildcard tests/system/ordinary/*.c))

.PHONY: all deps run run-busybox test test-smp soak fuzz debug clean bench-ipc bench-kernel bench-vm bench-l4pipe bench-scale prog
# keep object files of pattern-built programs (make would delete them as intermediates)
.SECONDARY:
all: $(LX) $(KERNEL) $(BUILD)/kernel.elf $(VARIANT_KERNELS) $(SERVERS) $(TPROGS) $(HOSTTESTS) $(LIBL4) \
	$(ORDINARY_PROGS)

deps:
	@tools/deps.sh

# `make run` (mk/debian.mk): Debian's bash on lx; `make run-busybox`: the busybox shell on
# lx's RAM root (docs/lx.md); ^D or the end of piped input ends either.
# NET=1: with a NIC on QEMU's restricted user network, the host's 127.0.0.1:NET_PORT
# forwarded to the guest's port 80 (README, "Networking")
NET_PORT ?= 8080
RUN_NET = $(if $(filter 1,$(NET)),--net --nic-forward tcp:$(NET_PORT):80)
run-busybox: deps all lx
	tools/run --eof-ctrl-d --root $(LX) --module $(LXFS) $(RUN_NET)

debug: deps all
	tools/run --gdb

# Test files run in TEST_JOBS parallel pytest workers (pytest-xdist), each file
# whole on one worker so that a file's shared boots happen once.
TEST_JOBS ?= $(shell nproc)
test: deps all
	$(PYTHON) -m pytest -q -n $(TEST_JOBS) --dist loadfile tests

# `make test-smp` (not part of `make test`, which stays on one processor): the same
# suite with every boot that names no processor count on SMP_CPUS processors
# (PECAN_SMP, read by tools/run; docs/testing.md).
SMP_CPUS ?= 4
test-smp:
	$(MAKE) test PECAN_SMP=$(SMP_CPUS)

clean:
	rm -rf $(BUILD)

# `make soak` (not part of `make test`): lx's workloads, the benchmark suite and
# the Mungi tests in a loop for SOAK_MINUTES with the fuzzer beside them; checks
# that lx's free pages and the kernel pool come back (tools/soak.py).
SOAK_MINUTES ?= 10
soak: deps all lx $(BUILD)/mungi/t_mungi.elf
	SOAK_MINUTES=$(SOAK_MINUTES) $(PYTHON) tools/soak.py

# `make fuzz` (not part of `make test`): t_fuzz with FUZZ_CALLS hostile calls
# on FUZZ_KERNELS, printing the kernel's invariant checks (docs/testing.md).
# FUZZ_FLAGS turns on categories that need fixes from other branches.  PECAN_SMP=4
# runs it on four processors (the hostile tasks on 1-3), FUZZ_ICOUNT=1 under icount.
FUZZ_CALLS   ?= 1000000
FUZZ_KERNELS ?= dslq dslq-nofast
FUZZ_FLAGS   ?=
FUZZ_ICOUNT  ?= 0
fuzz: deps all $(BUILD)/tests/fuzz_long.elf
	FUZZ_PROGRAM=tests/fuzz_long.elf FUZZ_KERNELS="$(FUZZ_KERNELS)" FUZZ_ICOUNT=$(FUZZ_ICOUNT) \
		$(PYTHON) -m pytest -q -s tests/system/test_fuzz.py

# --- kernel ---
$(BUILD)/k/%.c.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -MMD -c $< -o $@
$(BUILD)/k/%.S.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -MMD -c $< -o $@
$(BUILD)/kernel.elf: $(KOBJ) $(ARCHDIR)/linker.ld
	$(KLINK) -o $@ $(KOBJ)
$(KERNEL): $(BUILD)/kernel.elf
	$(OBJCOPY) -O binary $< $@

# kernel_variant(name, flags): the kernel built with extra configuration flags
define kernel_variant
$(BUILD)/kv/$(1)/%.c.o: %.c Makefile
	@mkdir -p $$(dir $$@)
	$$(CC) $$(KCFLAGS) $(2) -MMD -c $$< -o $$@
$(BUILD)/kv/$(1)/%.S.o: %.S Makefile
	@mkdir -p $$(dir $$@)
	$$(CC) $$(KCFLAGS) $(2) -MMD -c $$< -o $$@
$(BUILD)/kernels/$(1)/kernel.elf: $(patsubst %,$(BUILD)/kv/$(1)/%.o,$(KSRC)) $(ARCHDIR)/linker.ld
	@mkdir -p $$(dir $$@)
	$$(KLINK) $(2) -o $$@ $$(filter %.o,$$^)
$(BUILD)/kernels/$(1)/pecan.bin: $(BUILD)/kernels/$(1)/kernel.elf
	$$(OBJCOPY) -O binary $$< $$@
endef
$(foreach k,$(TEST_KERNELS) $(OTHER_TEST_KERNELS),$(eval $(call kernel_variant,$(k),$(KCONF_$(k)))))

# --- benchmark kernels: every variant, fastpath on and off, no counters ---
BENCH_KERNELS := $(foreach v,$(VARIANTS),bench-$(v)-fast bench-$(v)-slow)
$(foreach v,$(VARIANTS),$(eval $(call kernel_variant,bench-$(v)-fast,$(PRESET_$(v)) -DCONFIG_COUNTERS=0 -DCONFIG_FASTPATH=1)))
$(foreach v,$(VARIANTS),$(eval $(call kernel_variant,bench-$(v)-slow,$(PRESET_$(v)) -DCONFIG_COUNTERS=0 -DCONFIG_FASTPATH=0)))
BENCH_KERNEL_BINS := $(foreach k,$(BENCH_KERNELS),$(BUILD)/kernels/$(k)/pecan.bin)
# the DS/LQ one with half the RAM for its pool: lx's 1,000 processes (mk/bench.mk, bench-lx)
$(eval $(call kernel_variant,bench-dslq-fast-bigpool,$(PRESET_dslq) -DCONFIG_COUNTERS=0 -DCONFIG_FASTPATH=1 -DCONFIG_KMEM_RAM_SHIFT=1))

# --- user programs ---
$(BUILD)/u/%.c.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/u/%.S.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -MMD -MP -c $< -o $@
ULINK = $(LD) -static -nostdlib -z max-page-size=4096 -e _start -Ttext-segment=$(1) -o $@ $(filter %.o,$^)

$(BUILD)/servers/sigma0.elf: $(BUILD)/u/servers/sigma0/main.c.o $(ULIB_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(SIGMA0_BASE))
$(BUILD)/servers/root.elf: $(BUILD)/u/servers/root/main.c.o $(ULIB_OBJ) $(DRIVERS_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(LX): $(LX_OBJ) $(ULIB_OBJ) $(DRIVERS_OBJ) $(DISK_OBJ) $(NIC_OBJ) $(NET_OBJ) $(NETSTACK)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE)) $(NETSTACK)
$(BUILD)/bench/pingpong.elf: $(BUILD)/u/bench/pingpong/pingpong.c.o $(ULIB_OBJ) $(BUILD)/u/lib/test/tthread.c.o
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/bench/smpbench.elf: $(BUILD)/u/bench/smp/smpbench.c.o $(ULIB_OBJ) $(BUILD)/u/lib/test/tthread.c.o
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/bench/vmbench.elf: $(BUILD)/u/bench/vm/vmbench.c.o $(ULIB_OBJ) $(BUILD)/u/lib/test/tthread.c.o
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/bench/scale.elf: $(BUILD)/u/bench/scale/scale.c.o $(ULIB_OBJ) $(BUILD)/u/lib/test/tthread.c.o
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/bench/kbench.elf: $(BUILD)/u/bench/kernel/kbench.c.o $(ULIB_OBJ) $(BUILD)/u/lib/test/tthread.c.o
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/bench/storebench.elf: $(BUILD)/u/bench/store/storebench.c.o $(ULIB_OBJ) $(DRIVERS_OBJ) $(DISK_OBJ) \
		$(STORE_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/bench/l4pipe.elf: $(BUILD)/u/bench/l4pipe/l4pipe.c.o $(ULIB_OBJ) $(BUILD)/u/lib/test/tthread.c.o
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/tests/t_%.elf: $(BUILD)/u/tests/system/progs/t_%.c.o $(ULIB_OBJ) $(TLIB_OBJ) $(DRIVERS_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
# the disk driver and the store, on a disk image (tests/system/test_store.py)
$(BUILD)/tests/t_store.elf: $(DISK_OBJ) $(STORE_OBJ)
# hostile clients of sigma0 and the drivers, the disk driver included (tests/system/test_hostile.py)
$(BUILD)/tests/t_hostile.elf: $(DISK_OBJ)
# drivers that crash or are deleted, and restarted (tests/system/test_isolate.py)
$(BUILD)/tests/t_isolate.elf: $(DISK_OBJ)
# the NIC driver and the network server over smoltcp (tests/system/test_net.py)
$(NETSTACK): $(NETSTACK_SRC)
	cd $(NETSTACK_DIR) && CARGO_TARGET_DIR=$(abspath $(BUILD))/net/cargo \
		RUSTFLAGS="-C relocation-model=static -C panic=abort" $(CARGO) build --release --lib --locked -q
	@touch $@
$(BUILD)/tests/t_net.elf: $(BUILD)/u/tests/system/progs/t_net.c.o $(ULIB_OBJ) $(TLIB_OBJ) $(DRIVERS_OBJ) \
		$(NIC_OBJ) $(NET_OBJ) $(NETSTACK)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE)) $(NETSTACK)
# rebuilt whenever FUZZ_CALLS or FUZZ_FLAGS change
$(BUILD)/u/fuzz_long.flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(FUZZ_CALLS) $(FUZZ_FLAGS)' | cmp -s - $@ || echo '$(FUZZ_CALLS) $(FUZZ_FLAGS)' > $@
.PHONY: FORCE
$(BUILD)/u/fuzz_long.c.o: tests/system/progs/t_fuzz.c Makefile $(BUILD)/u/fuzz_long.flags
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -DFUZZ_CALLS=$(FUZZ_CALLS) $(FUZZ_FLAGS) -MMD -c $< -o $@
$(BUILD)/tests/fuzz_long.elf: $(BUILD)/u/fuzz_long.c.o $(ULIB_OBJ) $(TLIB_OBJ) $(DRIVERS_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))
$(BUILD)/tests/s_%.elf: $(BUILD)/u/tests/system/progs/s_%.c.o $(ULIB_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(SIGMA0_BASE))

# --- the user library as an archive, and programs built against it ---
$(LIBL4): $(ULIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# `make prog SRC=path/to/prog.c` builds $(BUILD)/prog/prog.elf; boot it with
# `tools/run --root $(BUILD)/prog/prog.elf`.
prog: $(LIBL4) lib/l4/root.ld
	@test -n "$(SRC)" || { echo "usage: make prog SRC=path/to/prog.c" >&2; exit 2; }
	@mkdir -p $(BUILD)/prog
	$(CC) $(PROG_CFLAGS) -o $(PROG_OUT) $(SRC) $(LIBL4)

$(BUILD)/prog/%.elf: tests/system/ordinary/%.c $(LIBL4) lib/l4/root.ld
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(LIBL4)

# --- host unit tests: pure kernel algorithms built for the host ---
HOST_COMMON := lib/test/test.c lib/fmt/fmt.c
$(BUILD)/host/test_pmem: tests/host/test_pmem.c kernel/pmem.c $(HOST_COMMON)
$(BUILD)/host/test_frame: tests/host/test_frame.c kernel/frame.c $(HOST_COMMON)
$(BUILD)/host/test_elf: tests/host/test_elf.c kernel/elf.c $(HOST_COMMON)
$(BUILD)/host/test_multiboot: tests/host/test_multiboot.c $(ARCHDIR)/multiboot.c kernel/pmem.c $(HOST_COMMON)
$(BUILD)/host/test_madt: tests/host/test_madt.c $(ARCHDIR)/acpi.c $(HOST_COMMON)
$(BUILD)/host/test_fmt: tests/host/test_fmt.c $(HOST_COMMON)
$(BUILD)/host/test_mdb: tests/host/test_mdb.c kernel/mdb.c $(HOST_COMMON)
$(BUILD)/host/test_range: tests/host/test_range.c $(HOST_COMMON)
$(BUILD)/host/test_lxfs: tests/host/test_lxfs.c servers/lx/fs/ramfs.c servers/lx/vfs/namei.c servers/lx/vfs/perm.c servers/lx/mm/malloc.c $(HOST_COMMON)
$(BUILD)/host/test_netconfig: tests/host/test_netconfig.c servers/net/config.c $(HOST_COMMON)
$(BUILD)/host/test_store: tests/host/test_store.c $(STORE_SRC) lib/store/impl.h lib/store/store.h $(HOST_COMMON)
$(BUILD)/host/%:
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -o $@ $(filter %.c,$^)
# the test includes lib/c/string.c under other names (the host's C library keeps its own)
$(BUILD)/host/test_string: tests/host/test_string.c lib/c/string.c $(HOST_COMMON)
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -o $@ $(filter-out lib/c/string.c,$(filter %.c,$^))

# `make bench-ipc`: the ping-pong benchmark on every benchmark kernel under
# icount (figures of record), plus the counters from the test kernels.
BENCH_PECAN_TARGETS += bench-ipc
bench-ipc: deps $(SERVERS) bench-kernel bench-vm bench-scale $(BENCH_KERNEL_BINS) $(VARIANT_KERNELS) \
		$(BUILD)/bench/pingpong.elf
	$(PYTHON) tools/bench_ipc.py --build $(BUILD) --out $(BUILD)/bench/pecan-ipc.results \
		--table docs/benchmarks.md --extra $(BUILD)/bench/pecan-kernel.results \
		--extra $(BUILD)/bench/pecan-vm.results --extra $(BUILD)/bench/pecan-scale.results \
		$(BENCH_KERNELS) $(addprefix counters:,$(VARIANTS))

# `make bench-vm`: seed 000's VM benchmarks, mapping RPC, map/unmap by size, create/delete
BENCH_PECAN_TARGETS += bench-vm
bench-vm: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(BUILD)/bench/vmbench.elf
	$(PYTHON) tools/bench_ipc.py --build $(BUILD) --program vmbench \
		--out $(BUILD)/bench/pecan-vm.results bench-dslq-fast

# `make bench-l4pipe`: seed 000's pipes on bare L4 IPC (Table 4 row 2)
BENCH_PECAN_TARGETS += bench-l4pipe
bench-l4pipe: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(BUILD)/bench/l4pipe.elf
	$(PYTHON) tools/bench_ipc.py --build $(BUILD) --program l4pipe \
		--out $(BUILD)/bench/pecan-l4pipe.results bench-dslq-fast

# `make bench-scale`: IPC, map/unmap and task create+delete as threads, mappings and
# spaces grow (3 GiB of RAM: the kernel pool holds 10,000 threads)
BENCH_PECAN_TARGETS += bench-scale
bench-scale: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(BUILD)/kernels/bench-dslq-slow/pecan.bin \
		$(BUILD)/bench/scale.elf
	$(PYTHON) tools/bench_ipc.py --build $(BUILD) --program scale --mem 3072 \
		--out $(BUILD)/bench/pecan-scale.results bench-dslq-fast bench-dslq-slow

# `make bench-kernel`: exception and foreign-syscall round trips, interrupt latency (also
# its worst case under 1 GiB maps and 4 MiB copies: 1 GiB of RAM gives the pool room for them)
BENCH_PECAN_TARGETS += bench-kernel
bench-kernel: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin \
		$(BUILD)/bench/kbench.elf
	$(PYTHON) tools/bench_ipc.py --build $(BUILD) --program kbench --mem 1024 \
		--out $(BUILD)/bench/pecan-kernel.results bench-dslq-fast

# `make bench-smp`: IPC on four processors (bench/smp/smpbench.c): icount, the figures of
# record (QEMU runs the virtual CPUs round-robin), then wall-clock with -accel tcg,thread=multi
# (noisy: the host's load decides it)
BENCH_PECAN_TARGETS += bench-smp
bench-smp: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(BUILD)/bench/smpbench.elf
	@mkdir -p $(BUILD)/bench
	tools/run --icount --smp 4 --timeout 600 --kernel $(BUILD)/kernels/bench-dslq-fast/pecan.bin \
		--root $(BUILD)/bench/smpbench.elf | grep '^RESULT' | tee $(BUILD)/bench/pecan-smp.results
	tools/run --smp 4 --timeout 600 --qemu-arg=-accel --qemu-arg=tcg,thread=multi --root-args w \
		--kernel $(BUILD)/kernels/bench-dslq-fast/pecan.bin --root $(BUILD)/bench/smpbench.elf \
		| grep '^RESULT' | tee -a $(BUILD)/bench/pecan-smp.results

# `make bench-store`: the page store and the disk driver (docs/store.md), on a fresh 16 MiB image
BENCH_PECAN_TARGETS += bench-store
bench-store: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(BUILD)/bench/storebench.elf
	$(PYTHON) tools/bench_ipc.py --build $(BUILD) --program storebench --disk-mb 16 \
		--out $(BUILD)/bench/pecan-store.results bench-dslq-fast

include mk/bench.mk
include mk/lx.mk
include mk/debian.mk
include mk/mungi.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
