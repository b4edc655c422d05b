# SPDX-License-Identifier: MIT
# The Mungi layer (docs/mungi.md): its server, the user image it boots, the
# host tests of its pure parts, its tests and benchmarks.

# --- host tests of the server's pure parts ---
$(BUILD)/host/test_mungi_btree: tests/host/test_mungi_btree.c tests/host/xorshift.h servers/mungi/btree.c $(HOST_COMMON)
$(BUILD)/host/test_mungi_addr: tests/host/test_mungi_addr.c tests/host/xorshift.h servers/mungi/addr.c servers/mungi/btree.c $(HOST_COMMON)
$(BUILD)/host/test_mungi_chacha: tests/host/test_mungi_chacha.c servers/mungi/chacha.c $(HOST_COMMON)
$(BUILD)/host/test_mungi_ot: tests/host/test_mungi_ot.c tests/host/xorshift.h servers/mungi/ot.c servers/mungi/btree.c $(HOST_COMMON)

# --- the server: a root task, like lx (kernel/elf.c is pure: it checks the user image too) ---
MUNGI     := $(BUILD)/servers/mungi.elf
MUNGI_SRC := $(wildcard servers/mungi/*.c)
MUNGI_OBJ := $(patsubst %,$(BUILD)/u/%.o,$(MUNGI_SRC)) $(BUILD)/u/kernel/elf.c.o
$(MUNGI): $(MUNGI_OBJ) $(ULIB_OBJ) $(DRIVERS_OBJ) $(DISK_OBJ) $(STORE_OBJ)
	@mkdir -p $(dir $@)
	$(call ULINK,$(ROOT_BASE))

# --- user images: the runtime and library (lib/mungi), linked at MUNGI_IMAGE_BASE;
# the image's ELF entry is the first task's function ---
MUNGI_LIB := lib/mungi/rt.S lib/mungi/rt.c lib/mungi/sys.c lib/mungi/file.c lib/mungi/bank.c lib/mungi/args.c lib/l4/l4.c lib/c/string.c lib/c/printf.c \
	lib/fmt/fmt.c lib/drivers/client.c
MUNGI_LIB_OBJ := $(patsubst %,$(BUILD)/u/%.o,$(MUNGI_LIB))
MUNGI_LINK = $(LD) -static -nostdlib -z max-page-size=4096 -e mungi_main -Ttext-segment=0x40000000 \
	-o $@ $(filter %.o,$^)
MUNGI_TESTS := $(patsubst tests/mungi/%.c,$(BUILD)/mungi/%.elf,$(wildcard tests/mungi/t_*.c))
$(BUILD)/mungi/t_%.elf: $(BUILD)/u/tests/mungi/t_%.c.o $(MUNGI_LIB_OBJ) $(BUILD)/u/lib/test/test.c.o
	@mkdir -p $(dir $@)
	$(MUNGI_LINK)

all: $(MUNGI) $(MUNGI_TESTS)

# --- benchmarks: seed 002's Tables 1-3 on Pecan (bench/mungi), figures of record under icount ---
$(BUILD)/mungi/mbench.elf: $(BUILD)/u/bench/mungi/mbench.c.o $(MUNGI_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(MUNGI_LINK)
all: $(BUILD)/mungi/mbench.elf

# the costs of persistence: two boots on a fresh disk image (bench/mungi/persist.sh)
$(BUILD)/mungi/mpbench.elf: $(BUILD)/u/bench/mungi/mpbench.c.o $(MUNGI_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(MUNGI_LINK)
all: $(BUILD)/mungi/mpbench.elf

BENCH_PECAN_TARGETS += bench-mungi-persist
bench-mungi-persist: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(MUNGI) $(BUILD)/mungi/mpbench.elf
	bench/mungi/persist.sh $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(MUNGI) $(BUILD)/mungi/mpbench.elf \
		$(BENCH_OUT)/pecan-mungi-persist.results
.PHONY: bench-mungi-persist

BENCH_PECAN_TARGETS += bench-mungi
bench-mungi: deps $(SERVERS) $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(MUNGI) $(BUILD)/mungi/mbench.elf
	bench/mungi/run.sh $(BUILD)/kernels/bench-dslq-fast/pecan.bin $(MUNGI) $(BUILD)/mungi/mbench.elf \
		$(BENCH_OUT)/pecan-mungi.results
.PHONY: bench-mungi
