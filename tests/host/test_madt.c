// SPDX-License-Identifier: MIT
// Host tests of the ACPI MADT parser (kernel/arch/x86_64/acpi.c): processors, I/O APIC, overrides, bad tables.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86_64/acpi.h"
#include "../../lib/test/test.h"

struct table {
	u8 b[1024];
	u32 len;
};

static void put32(u8 *p, u32 v) { memcpy(p, &v, 4); }

/* A MADT header with the LAPIC address; entries follow at 44. */
static void start(struct table *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, "APIC", 4);
	put32(t->b + 36, 0xfee00000);
	put32(t->b + 40, 1);                       /* PC-AT compatible */
	t->len = 44;
}

static void lapic(struct table *t, u8 apic_id, u32 flags)
{
	u8 *e = t->b + t->len;
	e[0] = 0; e[1] = 8; e[2] = apic_id; e[3] = apic_id;
	put32(e + 4, flags);
	t->len += 8;
}

static void ioapic(struct table *t, u32 addr, u32 gsi)
{
	u8 *e = t->b + t->len;
	e[0] = 1; e[1] = 12; e[2] = 0;
	put32(e + 4, addr);
	put32(e + 8, gsi);
	t->len += 12;
}

static void override(struct table *t, u8 irq, u32 gsi)
{
	u8 *e = t->b + t->len;
	e[0] = 2; e[1] = 10; e[2] = 0; e[3] = irq;
	put32(e + 4, gsi);
	t->len += 10;
}

/* Set the length and checksum, then parse from an exact-size heap copy (ASan sees overreads). */
static const char *parse(struct table *t, struct madt_info *out)
{
	put32(t->b + 4, t->len);
	t->b[9] = 0;
	u8 sum = 0;
	for (u32 i = 0; i < t->len; i++)
		sum += t->b[i];
	t->b[9] = (u8)-sum;
	u8 *copy = malloc(t->len);
	memcpy(copy, t->b, t->len);
	const char *err = madt_parse(copy, t->len, out);
	free(copy);
	return err;
}

static struct table t;
static struct madt_info mi;

TEST_CASE("madt.qemu", "QEMU's table: four processors, one I/O APIC, IRQ 0 at GSI 2") {
	start(&t);
	for (u8 i = 0; i < 4; i++)
		lapic(&t, i, 1);
	ioapic(&t, 0xfec00000, 0);
	override(&t, 0, 2);
	override(&t, 9, 9);
	const char *err = parse(&t, &mi);
	EXPECT(!err, "refused: %s", err);
	EXPECT(mi.ncpus == 4 && mi.ignored == 0, "%u processors, %u ignored", mi.ncpus, mi.ignored);
	for (unsigned i = 0; i < 4; i++)
		EXPECT(mi.apic_id[i] == i, "processor %u has APIC ID %u", i, mi.apic_id[i]);
	EXPECT(mi.lapic_phys == 0xfee00000, "LAPIC at %x", mi.lapic_phys);
	EXPECT(mi.ioapic_phys == 0xfec00000 && mi.ioapic_gsi_base == 0, "I/O APIC at %x", mi.ioapic_phys);
	EXPECT(mi.isa_gsi[0] == 2 && mi.isa_gsi[1] == 1 && mi.isa_gsi[9] == 9, "ISA GSIs %u %u %u",
	       mi.isa_gsi[0], mi.isa_gsi[1], mi.isa_gsi[9]);
}

TEST_CASE("madt.disabled", "processors without the enabled flag are not listed") {
	start(&t);
	lapic(&t, 0, 1);
	lapic(&t, 5, 0);
	lapic(&t, 7, 2);                           /* online-capable only: not started */
	lapic(&t, 9, 1);
	EXPECT(!parse(&t, &mi), "refused");
	EXPECT(mi.ncpus == 2 && mi.apic_id[0] == 0 && mi.apic_id[1] == 9, "%u processors", mi.ncpus);
}

TEST_CASE("madt.too_many", "processors beyond CONFIG_MAX_CPUS are counted, not listed") {
	start(&t);
	for (u8 i = 0; i < CONFIG_MAX_CPUS + 3; i++)
		lapic(&t, i, 1);
	EXPECT(!parse(&t, &mi), "refused");
	EXPECT(mi.ncpus == CONFIG_MAX_CPUS && mi.ignored == 3, "%u listed, %u ignored", mi.ncpus, mi.ignored);
}

TEST_CASE("madt.lapic_override", "a 64-bit LAPIC address override below 4 GiB replaces the header's") {
	start(&t);
	lapic(&t, 0, 1);
	u8 *e = t.b + t.len;
	e[0] = 5; e[1] = 12;
	u64 a = 0xfed00000;
	memcpy(e + 4, &a, 8);
	t.len += 12;
	EXPECT(!parse(&t, &mi), "refused");
	EXPECT(mi.lapic_phys == 0xfed00000, "LAPIC at %x", mi.lapic_phys);
}

TEST_CASE("madt.bad_tables", "wrong signature, length or checksum, zero-length or overlong entries, no processor: refused") {
	start(&t);
	lapic(&t, 0, 1);
	EXPECT(!parse(&t, &mi), "a good table refused");
	memcpy(t.b, "APIX", 4);
	EXPECT(parse(&t, &mi), "wrong signature accepted");
	start(&t);
	lapic(&t, 0, 1);
	t.b[t.len] = 0x7f;                         /* an entry with length 0 would never end */
	t.len += 2;
	EXPECT(parse(&t, &mi), "zero-length entry accepted");
	start(&t);
	lapic(&t, 0, 1);
	t.b[t.len] = 1; t.b[t.len + 1] = 12;       /* claims 12 bytes, 4 left */
	t.len += 4;
	EXPECT(parse(&t, &mi), "overlong entry accepted");
	start(&t);
	ioapic(&t, 0xfec00000, 0);
	EXPECT(parse(&t, &mi), "a table without processors accepted");
	start(&t);
	lapic(&t, 0, 1);
	parse(&t, &mi);
	t.b[44 + 3] ^= 1;                          /* checksum now wrong */
	EXPECT(madt_parse(t.b, t.len, &mi), "bad checksum accepted");
	EXPECT(madt_parse(t.b, 20, &mi), "short table accepted");
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
