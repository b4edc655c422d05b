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
	tools/run --eof-ctrl-d --root $(LX) --disk $(DEBIAN_DIR)/run.img --root-args "lx.root=disk /bin/su -"
