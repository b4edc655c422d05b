# SPDX-License-Identifier: MIT
# The Mungi layer (docs/mungi.md): its server, the user image it boots, the
# host tests of its pure parts, its tests and benchmarks.

# --- host tests of the server's pure parts ---
$(BUILD)/host/test_mungi_btree: tests/host/test_mungi_btree.c servers/mungi/btree.c $(HOST_COMMON)
$(BUILD)/host/test_mungi_addr: tests/host/test_mungi_addr.c servers/mungi/addr.c servers/mungi/btree.c $(HOST_COMMON)
$(BUILD)/host/test_mungi_chacha: tests/host/test_mungi_chacha.c servers/mungi/chacha.c $(HOST_COMMON)
$(BUILD)/host/test_mungi_ot: tests/host/test_mungi_ot.c servers/mungi/ot.c servers/mungi/btree.c $(HOST_COMMON)
