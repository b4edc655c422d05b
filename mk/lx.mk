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

# lx's vDSO (servers/lx/vdso/user, docs/lx.md): a shared object with no relocations, which
# image.S includes in lx; the check refuses one the C libraries could not use unrelocated.
LX_VDSO := $(BUILD)/lx/vdso.so
LX_VDSO_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -fPIC -ffreestanding -fno-builtin -fno-stack-protector \
	-nostdlib -shared -Wl,-T,servers/lx/vdso/user/vdso.lds -Wl,--hash-style=both \
	-Wl,-soname=linux-vdso.so.1 -Wl,--eh-frame-hdr -Wl,--build-id=none -Wl,-z,max-page-size=4096 \
	-Wl,-z,noexecstack
$(LX_VDSO): servers/lx/vdso/user/vdso.c servers/lx/vdso/user/vdso.lds servers/lx/vdso/vvar.h mk/lx.mk
	@mkdir -p $(dir $@)
	$(CC) $(LX_VDSO_CFLAGS) -o $@.tmp servers/lx/vdso/user/vdso.c
	@if readelf -rW $@.tmp | grep -q R_X86_64; then echo "$@: the vDSO has relocations" >&2; exit 1; fi
	mv $@.tmp $@
$(BUILD)/u/servers/lx/vdso/image.S.o: $(LX_VDSO)
$(BUILD)/u/servers/lx/vdso/image.S.o: UCFLAGS += -DLX_VDSO_SO='"$(LX_VDSO)"'
