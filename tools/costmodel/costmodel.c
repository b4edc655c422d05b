// SPDX-License-Identifier: MIT
// A QEMU TCG plugin that estimates cycles beside the instruction count: it runs every
// instruction fetch and data access of the guest through a model of TLBs and caches
// and charges a fixed number of cycles per miss.  estimated cycles = instructions +
// penalties (one cycle per instruction, nothing else: no pipeline, no branch
// predictor).  It is a model, with the parameters of docs/bench-method.md ("The cost
// model"), not a measurement of any processor.
//
// Regions: a *stamp* is an executed `rex.W rdtsc` (48 0f 31, the benchmarks' marked
// time-stamp read: the prefix changes nothing on x86-64 and costs no instruction); a
// *group mark* is an executed `nopl 0x4c444f4d(%rax)` (0f 1f 80 4d 4f 44 4c, a
// multi-byte NOP) that bench_result executes for each figure in instructions.  At a
// group mark the plugin writes one line with the windows between stamps 1-2, 3-4, ...
// since the previous mark (from the 16th on, summed into the 16th): each window's
// instructions, penalty and misses.
// bench/report/model.py pairs the k-th group with the k-th such RESULT line.
//
// Options (plugin arguments): out=FILE (default costmodel.out); cr3=flush|keep
// (keep: a CR3 write flushes nothing, as with PCID or small spaces); global=upper|none
// (upper: translations of the upper half are global and survive CR3 writes);
// sites=on|off (on: at each group mark, also one SITE line per instruction address
// that missed inside the group's windows, with its misses and penalty in the first
// window and in the others together; tools/costsites.py names the functions).
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The declarations of QEMU's plugin API (version 1, QEMU 7.2) this plugin uses,
 * written out here because Debian ships no development header for it.
 */
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;
enum qemu_plugin_cb_flags { CB_NO_REGS };
enum qemu_plugin_mem_rw { MEM_R = 1, MEM_W = 2, MEM_RW = 3 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu, void *userdata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
typedef void (*mem_cb)(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, vcpu_udata_cb cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t i);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
unsigned qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- parameters (docs/bench-method.md) ---- */
#define LINE_SHIFT 6
#define L1_SETS 64           /* 32 KiB, 8-way, 64-byte lines: L1i and L1d each */
#define L1_WAYS 8
#define L2_SETS 1024         /* 1 MiB, 16-way, unified */
#define L2_WAYS 16
#define TLB1_SETS 16         /* ITLB and DTLB: 64 entries, 4-way, each */
#define TLB1_WAYS 4
#define STLB_SETS 128        /* second-level TLB: 512 entries, 4-way, unified */
#define STLB_WAYS 4
#define COST_L2_HIT 12       /* an L1 miss that hits in L2 */
#define COST_MEM 200         /* an L2 miss */
#define COST_STLB_HIT 7      /* a first-level TLB miss that hits in the STLB */
#define COST_WALK 30         /* an STLB miss: one page walk */
#define COST_INVLPG COST_WALK  /* INVLPG/INVPCID: its operand is not visible; one refill */
#define UPPER_HALF 0xffff800000000000ULL
#define TOP_GIB 0xffffffffc0000000ULL  /* 4 KiB, never global: Pecan's user stub, Linux's modules */
#define CODE_TAG (1ULL << 62)  /* code lines are tagged by host address in L2 */

/* ---- counters: everything a window reports ---- */
enum { C_INSN, C_PEN, C_L1I, C_L1D, C_L2, C_ITLB, C_DTLB, C_WALK, C_CR3, C_INVLPG, C_N };
static const char *const cname[C_N] = { "insns", "pen", "l1i", "l1d", "l2", "itlb", "dtlb",
					"walk", "cr3", "invlpg" };
static uint64_t cnt[C_N];

/* ---- sites: misses by the guest address of the instruction that made them ---- */
struct site {
	uint64_t va;
	uint64_t c[2][C_N];   /* [0]: a group's first window; [1]: its others */
	struct site *next;    /* hash chain */
	bool listed;          /* on the list of sites touched since the last group mark */
	struct site *touched;
};
#define SITE_HASH 65536
static struct site *site_hash[SITE_HASH], *site_list;
static bool sites_on;
static bool opened;          /* a window is open (between an odd and an even stamp) */
static int nwindows;         /* windows closed since the last group mark */
static FILE *out;

/* The site of the instruction at va (made on first use; kept until exit). */
static struct site *site_of(uint64_t va)
{
	struct site **h = &site_hash[(va * 0x9e3779b97f4a7c15ULL) >> 48], *s;
	for (s = *h; s && s->va != va; s = s->next)
		;
	if (!s) {
		s = calloc(1, sizeof *s);
		s->va = va;
		s->next = *h;
		*h = s;
	}
	return s;
}

/* Adds what the counters gained since `before` to site s, if a window is open. */
static void charge(struct site *s, const uint64_t *before)
{
	if (!opened || cnt[C_PEN] == before[C_PEN])
		return;   /* every miss has a penalty */
	uint64_t *c = s->c[nwindows ? 1 : 0];
	for (int i = 0; i < C_N; i++)
		c[i] += cnt[i] - before[i];
	if (!s->listed) {
		s->listed = true;
		s->touched = site_list;
		site_list = s;
	}
}

/* One SITE line per site that missed in the group just ended; then zeroes them. */
static void print_sites(int seq)
{
	for (struct site *s = site_list, *n; s; s = n) {
		n = s->touched;
		fprintf(out, "SITE seq=%d va=0x%llx", seq, (unsigned long long)s->va);
		for (int w = 0; w < 2; w++) {
			fprintf(out, " |");
			for (int c = C_PEN; c < C_N; c++)
				fprintf(out, " %s=%llu", cname[c], (unsigned long long)s->c[w][c]);
		}
		fprintf(out, "\n");
		memset(s->c, 0, sizeof s->c);
		s->listed = false;
	}
	site_list = NULL;
}

/* ---- a set-associative array with LRU order (way 0 most recent) ---- */
struct tlbe {
	uint64_t key;        /* page number and frame number, hashed; 0 = empty */
	uint32_t gen, ggen;  /* flush generations when filled */
	bool global;
};

static uint64_t l1i[L1_SETS][L1_WAYS], l1d[L1_SETS][L1_WAYS], l2[L2_SETS][L2_WAYS];
static struct tlbe itlb[TLB1_SETS][TLB1_WAYS], dtlb[TLB1_SETS][TLB1_WAYS], stlb[STLB_SETS][STLB_WAYS];
static uint32_t gen = 1, ggen = 1;   /* gen: per flushing CR3 write; ggen: per CR4 write */
static bool cr3_keep, global_upper = true;

/* Looks tag up in one set of `ways` lines (tags stored +1, 0 empty); true on a hit.
 * Either way the tag ends most recent. */
static bool cache_touch(uint64_t *set, int ways, uint64_t tag)
{
	int i;
	tag++;
	for (i = 0; i < ways - 1 && set[i] != tag; i++)
		;
	bool hit = set[i] == tag;
	memmove(set + 1, set, (size_t)i * sizeof *set);
	set[0] = tag;
	return hit;
}

/* One access to the line `line` through L1 (`l1`) and L2; returns its penalty. */
static uint64_t line_access(uint64_t (*l1)[L1_WAYS], int l1miss, uint64_t line, uint64_t l2tag)
{
	if (cache_touch(l1[line % L1_SETS], L1_WAYS, line))
		return 0;
	cnt[l1miss]++;
	if (cache_touch(l2[l2tag % L2_SETS], L2_WAYS, l2tag))
		return COST_L2_HIT;
	cnt[C_L2]++;
	return COST_MEM;
}

static bool tlbe_valid(const struct tlbe *e)
{
	return e->key && e->ggen == ggen && (e->global || e->gen == gen);
}

static bool tlb_touch(struct tlbe *set, int ways, uint64_t key, bool global)
{
	int i;
	for (i = 0; i < ways - 1 && !(set[i].key == key && tlbe_valid(&set[i])); i++)
		;
	bool hit = set[i].key == key && tlbe_valid(&set[i]);
	memmove(set + 1, set, (size_t)i * sizeof *set);
	set[0] = (struct tlbe){ key, gen, ggen, global };
	return hit;
}

/* A translation of va to pa through the first-level TLB `t1` and the STLB.
 * The upper half but its top GiB is taken to be mapped with 2 MiB pages, the rest
 * with 4 KiB: a plugin cannot see page sizes.  An entry is named by page and frame
 * together, since the plugin cannot read CR3: two spaces mapping one frame at one
 * address share it. */
static uint64_t translate(struct tlbe (*t1)[TLB1_WAYS], int miss, uint64_t va, uint64_t pa)
{
	bool upper = va >= UPPER_HALF && va < TOP_GIB;
	int shift = upper ? 21 : 12;
	uint64_t vpn = va >> shift, key = (vpn * 0x9e3779b97f4a7c15ULL) ^ (pa >> shift) ^ 1;
	bool global = upper && global_upper;
	if (tlb_touch(t1[vpn % TLB1_SETS], TLB1_WAYS, key, global))
		return 0;
	cnt[miss]++;
	if (tlb_touch(stlb[vpn % STLB_SETS], STLB_WAYS, key, global))
		return COST_STLB_HIT;
	cnt[C_WALK]++;
	return COST_WALK;
}

/* ---- instruction side: per translated block, its pages and lines ---- */
struct fetch {
	uint64_t va, host;   /* first byte of a line the block's code occupies */
	struct site *site;   /* its instruction's, with sites=on */
};
struct tbinfo {
	uint64_t n;          /* instructions */
	size_t nf;
	struct fetch f[];
};

static void tb_exec(unsigned int vcpu, void *userdata)
{
	const struct tbinfo *t = userdata;
	uint64_t pen = 0, lastpage = ~0ULL;
	(void)vcpu;
	cnt[C_INSN] += t->n;
	for (size_t i = 0; i < t->nf; i++) {
		uint64_t before[C_N], page = t->f[i].va >> 12, p0 = pen;
		if (t->f[i].site)
			memcpy(before, cnt, sizeof cnt);
		if (page != lastpage)
			pen += translate(itlb, C_ITLB, t->f[i].va, t->f[i].host);
		lastpage = page;
		uint64_t line = t->f[i].host >> LINE_SHIFT;
		pen += line_access(l1i, C_L1I, line, line | CODE_TAG);
		if (t->f[i].site) {
			before[C_PEN] -= pen - p0;   /* pen is added to cnt[C_PEN] below */
			charge(t->f[i].site, before);
		}
	}
	cnt[C_PEN] += pen;
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va, void *userdata)
{
	(void)vcpu;
	uint64_t before[C_N];
	if (userdata)
		memcpy(before, cnt, sizeof cnt);
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, va);
	bool io = hw && qemu_plugin_hwaddr_is_io(hw);
	uint64_t pa = hw ? qemu_plugin_hwaddr_phys_addr(hw) : va;
	uint64_t pen = translate(dtlb, C_DTLB, va, pa);
	if (!io) {   /* device registers are uncached; their cost is not modelled */
		uint64_t last = pa + (1u << qemu_plugin_mem_size_shift(info)) - 1;
		for (uint64_t l = pa >> LINE_SHIFT; l <= last >> LINE_SHIFT; l++)
			pen += line_access(l1d, C_L1D, l, l);
	}
	cnt[C_PEN] += pen;
	if (userdata)
		charge(userdata, before);
}

/* ---- TLB maintenance seen in the instruction stream ---- */
static void on_cr3(unsigned int vcpu, void *u)
{
	(void)vcpu, (void)u;
	cnt[C_CR3]++;
	if (!cr3_keep)
		gen++;
}

static void on_cr4(unsigned int vcpu, void *u)
{
	(void)vcpu, (void)u;
	ggen++;   /* Linux and Pecan write CR4 rarely; toggling PGE flushes globals too */
}

static void on_invlpg(unsigned int vcpu, void *u)
{
	(void)vcpu, (void)u;
	cnt[C_INVLPG]++;
	cnt[C_PEN] += COST_INVLPG;
}

/* ---- stamps and groups ---- */
#define MAX_WINDOWS 16       /* windows beyond the 16th of a group add into the 16th */
static uint64_t opened_at[C_N], windows[MAX_WINDOWS][C_N];
static int group_seq;

/* Odd stamps open a window, even ones close it.  userdata: how many instructions
 * of its block precede the stamp, minus the block's length (tb_exec has already
 * counted the whole block). */
static void on_stamp(unsigned int vcpu, void *u)
{
	uint64_t now[C_N];
	(void)vcpu;
	memcpy(now, cnt, sizeof cnt);
	now[C_INSN] += (uint64_t)(intptr_t)u;
	if (!opened) {
		memcpy(opened_at, now, sizeof now);
		opened = true;
		return;
	}
	int w = nwindows < MAX_WINDOWS ? nwindows++ : MAX_WINDOWS - 1;
	for (int c = 0; c < C_N; c++)
		windows[w][c] += now[c] - opened_at[c];
	opened = false;
}

static void on_group(unsigned int vcpu, void *u)
{
	(void)vcpu, (void)u;
	fprintf(out, "GROUP seq=%d windows=%d", ++group_seq, nwindows);
	for (int w = 0; w < nwindows; w++) {
		fprintf(out, " |");
		for (int c = 0; c < C_N; c++)
			fprintf(out, " %s=%llu", cname[c], (unsigned long long)windows[w][c]);
	}
	fprintf(out, "\n");
	if (sites_on)
		print_sites(group_seq);
	fflush(out);
	memset(windows, 0, sizeof windows);
	nwindows = 0;
	opened = false;   /* an unpaired stamp belongs to no window */
}

/* ---- decoding the few instructions that matter ---- */
static const uint8_t STAMP[] = { 0x48, 0x0f, 0x31 };
static const uint8_t GROUP[] = { 0x0f, 0x1f, 0x80, 0x4d, 0x4f, 0x44, 0x4c };

enum kind { K_NONE, K_CR3, K_CR4, K_INVLPG, K_STAMP, K_GROUP };

static enum kind classify(const uint8_t *b, size_t n)
{
	if (n == sizeof STAMP && !memcmp(b, STAMP, n))
		return K_STAMP;
	if (n == sizeof GROUP && !memcmp(b, GROUP, n))
		return K_GROUP;
	size_t i = 0;
	while (i < n && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 || b[i] == 0xf3 ||
			 b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x64 ||
			 b[i] == 0x65))
		i++;
	if (i < n && (b[i] & 0xf0) == 0x40)
		i++;   /* REX */
	if (i + 1 >= n || b[i] != 0x0f)
		return K_NONE;
	uint8_t op = b[i + 1], modrm = i + 2 < n ? b[i + 2] : 0, reg = (modrm >> 3) & 7;
	if (op == 0x22 && i + 2 < n)
		return reg == 3 ? K_CR3 : reg == 4 ? K_CR4 : K_NONE;
	if (op == 0x01 && i + 2 < n && reg == 7 && (modrm >> 6) != 3)
		return K_INVLPG;
	if (op == 0x38 && i + 2 < n && b[i + 2] == 0x82)
		return K_INVLPG;   /* INVPCID: type and address are in registers; see COST_INVLPG */
	return K_NONE;
}

/* Adds the block's fetches of one instruction (its lines, in order, without repeats). */
static size_t add_fetches(struct fetch *f, size_t nf, uint64_t va, uint64_t host, size_t size,
			  struct site *site)
{
	for (uint64_t off = 0; off < size; off++) {
		uint64_t h = host + off;
		if (off && (h & ((1u << LINE_SHIFT) - 1)))
			continue;
		if (nf && f[nf - 1].host >> LINE_SHIFT == h >> LINE_SHIFT)
			continue;
		f[nf++] = (struct fetch){ va + off, h, site };
	}
	return nf;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb), bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i));
	/* kept: the block may run until exit */
	struct tbinfo *t = malloc(sizeof *t + (bytes / 64 + 2 * n + 2) * sizeof(struct fetch));
	t->n = n;
	t->nf = 0;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		size_t size = qemu_plugin_insn_size(in);
		uint64_t va = qemu_plugin_insn_vaddr(in);
		struct site *site = sites_on ? site_of(va) : NULL;
		t->nf = add_fetches(t->f, t->nf, va, (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(in), size,
				    site);
		qemu_plugin_register_vcpu_mem_cb(in, mem_access, CB_NO_REGS, MEM_RW, site);
		switch (classify(qemu_plugin_insn_data(in), size)) {
		case K_CR3: qemu_plugin_register_vcpu_insn_exec_cb(in, on_cr3, CB_NO_REGS, NULL); break;
		case K_CR4: qemu_plugin_register_vcpu_insn_exec_cb(in, on_cr4, CB_NO_REGS, NULL); break;
		case K_INVLPG: qemu_plugin_register_vcpu_insn_exec_cb(in, on_invlpg, CB_NO_REGS, NULL); break;
		case K_STAMP:
			qemu_plugin_register_vcpu_insn_exec_cb(in, on_stamp, CB_NO_REGS,
							       (void *)(intptr_t)((int64_t)i - (int64_t)n));
			break;
		case K_GROUP: qemu_plugin_register_vcpu_insn_exec_cb(in, on_group, CB_NO_REGS, NULL); break;
		case K_NONE: break;
		}
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id, (void)userdata;
	fprintf(out, "TOTAL");
	for (int c = 0; c < C_N; c++)
		fprintf(out, " %s=%llu", cname[c], (unsigned long long)cnt[c]);
	fprintf(out, "\n");
	fclose(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	const char *path = "costmodel.out";
	(void)info;
	for (int i = 0; i < argc; i++) {
		char *v = strchr(argv[i], '=');
		if (!v)
			return -1;
		*v++ = 0;
		if (!strcmp(argv[i], "out"))
			path = v;
		else if (!strcmp(argv[i], "cr3") && (!strcmp(v, "flush") || !strcmp(v, "keep")))
			cr3_keep = !strcmp(v, "keep");
		else if (!strcmp(argv[i], "global") && (!strcmp(v, "upper") || !strcmp(v, "none")))
			global_upper = !strcmp(v, "upper");
		else if (!strcmp(argv[i], "sites") && (!strcmp(v, "on") || !strcmp(v, "off")))
			sites_on = !strcmp(v, "on");
		else
			return -1;
	}
	out = fopen(path, "w");
	if (!out)
		return -1;
	fprintf(out, "MODEL cr3=%s global=%s\n", cr3_keep ? "keep" : "flush", global_upper ? "upper" : "none");
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
