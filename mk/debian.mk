# SPDX-License-Identifier: MIT
# A Debian 12 userland on an ext2 disk image (tools/mkdebian.sh): `make run`
# boots lx into its bash.  The packages are fetched once with apt-get download
# into $(DEBIAN_DEBS) and kept; the image is never committed.
DEBIAN_DIR  := $(BUILD)/debian
DEBIAN_DEBS := $(DEBIAN_DIR)/debs
DEBIAN_IMG  := $(DEBIAN_DIR)/root.img

$(DEBIAN_IMG): tools/mkdebian.sh mk/debian.mk | deps
	@mkdir -p $(DEBIAN_DIR)
	tools/mkdebian.sh $@ $(DEBIAN_DEBS)

debian: $(DEBIAN_IMG)
.PHONY: debian
# tests/system/test_debian.py boots it
test: $(DEBIAN_IMG)

# a login shell (su -: PAM, root's HOME and dot files) on a fresh copy of the
# image, so the pristine image stays; the copy is kept until the next run
run: deps all $(DEBIAN_IMG)
	cp --sparse=always $(DEBIAN_IMG) $(DEBIAN_DIR)/run.img
	tools/run --eof-ctrl-d --root $(LX) --disk $(DEBIAN_DIR)/run.img $(RUN_NET) \
		--root-args "lx.root=disk /bin/su -"

# `make bench-debian` (also run by `make bench`): Debian's bash, ls, tar and ext2 file
# operations under lx and under native Linux in the same QEMU, each on a copy of the
# image (bench/debian/boot.sh); RESULT lines in $(BENCH_OUT)/debian/{pecan,linux}.results
# (docs/lx.md's table; bench/report does not read them yet)
DEBIAN_BENCH := $(BENCH_OUT)/debian
$(DEBIAN_BENCH)/lat_debian: bench/debian/lat_debian.c bench/posix/bench.c bench/posix/bench.h | deps
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(BENCH_CFLAGS) -Ibench/posix -o $@ $< bench/posix/bench.c
$(DEBIAN_BENCH)/initramfs.cpio.gz: bench/debian/mkinitramfs.sh bench/debian/linux-init \
		$(BENCH_LINUX)/vmlinuz
	@mkdir -p $(dir $@)
	bench/debian/mkinitramfs.sh $@ bench/debian/linux-init $(BENCH_BUSYBOX) \
		$$(ls $(BENCH_LINUX)/linux-image-*.deb | head -n 1)
.PHONY: bench-debian bench-debian-pecan bench-debian-linux
BENCH_PECAN_TARGETS += bench-debian
bench-debian: bench-debian-pecan bench-debian-linux
bench-debian-pecan: deps $(SERVERS) $(DEBIAN_IMG) $(DEBIAN_BENCH)/lat_debian $(BENCH_LX_KERNEL) $(LX)
	bench/debian/boot.sh pecan $(BENCH_LX_KERNEL) $(LX) $(DEBIAN_IMG) $(DEBIAN_BENCH)/lat_debian \
		$(BENCH_SCALE) $(DEBIAN_BENCH)/pecan.results
bench-debian-linux: deps $(DEBIAN_IMG) $(DEBIAN_BENCH)/lat_debian $(DEBIAN_BENCH)/initramfs.cpio.gz
	bench/debian/boot.sh linux $(BENCH_LINUX) $(DEBIAN_BENCH)/initramfs.cpio.gz $(DEBIAN_IMG) \
		$(DEBIAN_BENCH)/lat_debian $(BENCH_SCALE) $(DEBIAN_BENCH)/linux.results
