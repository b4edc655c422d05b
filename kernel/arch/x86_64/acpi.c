// SPDX-License-Identifier: MIT
// ACPI tables: the RSDP, the RSDT/XSDT and the MADT (processors, I/O APIC, ISA overrides).
#include "acpi.h"

#define MADT_LAPIC        0
#define MADT_IOAPIC       1
#define MADT_OVERRIDE     2
#define MADT_LAPIC_ADDR   5
#define MADT_FIRST_ENTRY  44           /* after the header, the LAPIC address and the flags */
#define SDT_HEADER        36

static u32 rd32(const u8 *p) { return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24; }
static u64 rd64(const u8 *p) { return rd32(p) | (u64)rd32(p + 4) << 32; }

static bool checksum_ok(const u8 *p, u32 len)
{
	u8 sum = 0;
	for (u32 i = 0; i < len; i++)
		sum += p[i];
	return sum == 0;
}

static bool sig_is(const u8 *p, const char *sig)
{
	for (int i = 0; sig[i]; i++)
		if (p[i] != (u8)sig[i])
			return false;
	return true;
}

static void madt_lapic(const u8 *e, struct madt_info *out)
{
	if (!(rd32(e + 4) & 1))            /* not enabled (online-capable ones are not started) */
		return;
	if (out->ncpus == CONFIG_MAX_CPUS) {
		out->ignored++;
		return;
	}
	out->apic_id[out->ncpus++] = e[3];
}

static void madt_entry(const u8 *e, struct madt_info *out)
{
	switch (e[0]) {
	case MADT_LAPIC:
		if (e[1] >= 8)
			madt_lapic(e, out);
		break;
	case MADT_IOAPIC:
		if (e[1] >= 12 && !out->ioapic_phys) {
			out->ioapic_phys = rd32(e + 4);
			out->ioapic_gsi_base = rd32(e + 8);
		}
		break;
	case MADT_OVERRIDE:
		if (e[1] >= 10 && e[2] == 0 && e[3] < 16) {  /* bus 0: ISA */
			out->isa_gsi[e[3]] = rd32(e + 4);
			out->isa_flags[e[3]] = e[8] | e[9] << 8;
		}
		break;
	case MADT_LAPIC_ADDR:
		if (e[1] >= 12 && rd64(e + 4) < (1UL << 32))
			out->lapic_phys = (u32)rd64(e + 4);
		break;
	}
}

const char *madt_parse(const u8 *madt, u32 len, struct madt_info *out)
{
	*out = (struct madt_info){ 0 };
	for (unsigned i = 0; i < 16; i++)
		out->isa_gsi[i] = i;
	if (len < MADT_FIRST_ENTRY || !sig_is(madt, "APIC"))
		return "not a MADT";
	if (rd32(madt + 4) != len)
		return "length mismatch";
	if (!checksum_ok(madt, len))
		return "bad checksum";
	out->lapic_phys = rd32(madt + SDT_HEADER);
	for (u32 off = MADT_FIRST_ENTRY; off < len; off += madt[off + 1]) {
		if (len - off < 2 || madt[off + 1] < 2 || madt[off + 1] > len - off)
			return "bad entry length";
		madt_entry(madt + off, out);
	}
	if (out->ncpus == 0)
		return "no enabled processor";
	return NULL;
}

/* The RSDP: 16-byte aligned in the EBDA's first KiB or in 0xE0000-0xFFFFF. */
static const u8 *find_rsdp(word_t phys_map)
{
	word_t ebda = (word_t)*(const u16 *)(phys_map + 0x40e) << 4;
	word_t areas[2][2] = { { ebda, ebda + 1024 }, { 0xe0000, 0x100000 } };
	for (int a = 0; a < 2; a++) {
		if (areas[a][0] < 0x80000 && a == 0)
			continue;                  /* no plausible EBDA */
		for (word_t p = areas[a][0]; p + 20 <= areas[a][1]; p += 16) {
			const u8 *r = (const u8 *)(phys_map + p);
			if (sig_is(r, "RSD PTR ") && checksum_ok(r, 20))
				return r;
		}
	}
	return NULL;
}

/* A table at physical address pa with signature sig, checksum verified; its length in *len. */
static const u8 *table_at(word_t phys_map, u64 pa, const char *sig, u32 *len)
{
	if (!pa || pa >= (1UL << 39))
		return NULL;
	const u8 *t = (const u8 *)(phys_map + pa);
	*len = rd32(t + 4);
	if (!sig_is(t, sig) || *len < SDT_HEADER || *len > (1u << 20) || !checksum_ok(t, *len))
		return NULL;
	return t;
}

const u8 *acpi_find_madt(word_t phys_map, u32 *len)
{
	const u8 *rsdp = find_rsdp(phys_map);
	if (!rsdp)
		return NULL;
	bool x = rsdp[15] >= 2 && rd64(rsdp + 24);
	u32 slen;
	const u8 *sdt = x ? table_at(phys_map, rd64(rsdp + 24), "XSDT", &slen)
			  : table_at(phys_map, rd32(rsdp + 16), "RSDT", &slen);
	if (!sdt)
		return NULL;
	unsigned esz = x ? 8 : 4;
	for (u32 off = SDT_HEADER; off + esz <= slen; off += esz) {
		u64 pa = x ? rd64(sdt + off) : rd32(sdt + off);
		const u8 *t = table_at(phys_map, pa, "APIC", len);
		if (t)
			return t;
	}
	return NULL;
}
