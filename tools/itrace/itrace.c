// SPDX-License-Identifier: MIT
// A QEMU TCG plugin that writes the addresses of the guest instructions executed in
// one window: from the (skip+1)-th execution of start= on, until stop= has executed
// stophits times or count= instructions were logged.  tools/itrace.py drives it.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The few declarations of QEMU's plugin API (version 1, QEMU 7.2) this plugin
 * uses, written out here because Debian ships no development header for it.
 */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu, void *userdata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t i);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, vcpu_udata_cb cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One instruction as translated: its address and text, shared by every execution. */
struct insn {
	uint64_t va;
	char *text;
};

static uint64_t start, stop = ~0ULL, skip, stophits = 1, count = 1000000;
static uint64_t hits, stops, logged;
static int active, done;
static FILE *out;

static void exec_insn(unsigned int vcpu, void *userdata)
{
	const struct insn *in = userdata;
	(void)vcpu;
	if (done)
		return;
	if (!active) {
		if (in->va != start || ++hits <= skip)
			return;
		active = 1;
	}
	fprintf(out, "%016llx %s\n", (unsigned long long)in->va, in->text);
	if (++logged >= count || (in->va == stop && logged > 1 && ++stops >= stophits)) {
		done = 1;
		fflush(out);
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	if (done)
		return;
	for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++) {
		struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
		struct insn *in = malloc(sizeof(*in));     /* kept: the TB may run until exit */
		in->va = qemu_plugin_insn_vaddr(qi);
		in->text = qemu_plugin_insn_disas(qi);
		qemu_plugin_register_vcpu_insn_exec_cb(qi, exec_insn, CB_NO_REGS, in);
	}
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id, (void)userdata;
	fclose(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	const char *path = "itrace.out";
	(void)info;
	for (int i = 0; i < argc; i++) {
		char *v = strchr(argv[i], '=');
		if (!v)
			return -1;
		*v++ = 0;
		uint64_t n = strtoull(v, NULL, 0);
		if (!strcmp(argv[i], "start")) start = n;
		else if (!strcmp(argv[i], "stop")) stop = n;
		else if (!strcmp(argv[i], "skip")) skip = n;
		else if (!strcmp(argv[i], "stophits")) stophits = n;
		else if (!strcmp(argv[i], "count")) count = n;
		else if (!strcmp(argv[i], "out")) path = v;
		else return -1;
	}
	out = fopen(path, "w");
	if (!out)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
