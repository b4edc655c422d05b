# SPDX-License-Identifier: MIT
# lx's root file system: Debian's busybox-static, the benchmark suite as the
# Linux guest runs it, and lx's own test programs (tests/lx/*.c, static musl).

LX_TEST_SRC := $(wildcard tests/lx/*.c)
LX_TEST_BIN := $(patsubst tests/lx/%.c,$(BUILD)/lx/tests/%,$(LX_TEST_SRC))

$(BUILD)/lx/tests/%: tests/lx/%.c tests/lx/check.h mk/lx.mk | deps
	@mkdir -p $(dir $@)
	$(MUSL_CC) -std=gnu11 -O2 -Wall -static -pthread -o $@ $<
# l4_*: Linux programs that also use Pecan's L4 interface (lib/l4), to attack lx's confinement
$(BUILD)/lx/tests/l4_%: tests/lx/l4_%.c lib/l4/l4.c mk/lx.mk | deps
	@mkdir -p $(dir $@)
	$(MUSL_CC) -std=gnu11 -O2 -Wall -static -Iinclude -Ilib -o $@ $< lib/l4/l4.c
# dyn_*: dynamically linked on purpose (musl's loader is in the ext2 image, not the cpio)
$(BUILD)/lx/tests/dyn_%: tests/lx/dyn_%.c mk/lx.mk | deps
	@mkdir -p $(dir $@)
	$(MUSL_CC) -std=gnu11 -O2 -Wall -o $@ $<

$(LXFS): tools/mklxfs.sh bench/lx/init $(BENCH_POSIX_BIN) $(LX_TEST_BIN) | deps
	@mkdir -p $(dir $@) $(BUILD)/lx/tests $(BENCH_OUT)/posix
	tools/mklxfs.sh $@ $(BENCH_BUSYBOX) $(BENCH_OUT)/posix $(BUILD)/lx/tests bench/lx/init

# the same tree as an ext2 disk image (lx.root=disk; tests copy it before they write)
LXDISK := $(BUILD)/lx/rootfs.img
$(LXDISK): tools/mklxfs.sh bench/lx/init $(BENCH_POSIX_BIN) $(LX_TEST_BIN) | deps
	@mkdir -p $(dir $@) $(BUILD)/lx/tests $(BENCH_OUT)/posix
	tools/mklxfs.sh $@ $(BENCH_BUSYBOX) $(BENCH_OUT)/posix $(BUILD)/lx/tests bench/lx/init

lx: $(LX) $(LXFS) $(LXDISK)
.PHONY: lx
test: $(LXFS) $(LXDISK)
