// SPDX-License-Identifier: MIT
// A QEMU TCG plugin that counts the guest instructions executed (all vCPUs) and
// writes the running total, as one decimal line, to out= every period_ms= (default
// 20) and at exit.  A host-side driver (bench/http/throughput.py) reads the file before
// and after work it causes from outside the guest, such as HTTP requests, where no
// guest program can mark the window; a halted guest executes nothing, so idle time
// adds only its timer ticks.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The declarations of QEMU's plugin API (version 1, QEMU 7.2) used here: Debian ships no header. */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;       /* inline adds from the translated blocks */
static const char *path;
static long period_ms = 20;

static void publish(void)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%llu\n", (unsigned long long)__atomic_load_n(&executed, __ATOMIC_RELAXED));
	fclose(f);
	rename(tmp, path);      /* a reader sees a whole line, old or new */
}

static void *publisher(void *arg)
{
	(void)arg;
	struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000L };
	for (;;) {
		publish();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed,
						 qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id; (void)p;
	publish();
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "period_ms=", 10))
			period_ms = strtol(argv[i] + 10, NULL, 0);
		else {
			fprintf(stderr, "insncount: unknown argument %s (out=FILE, period_ms=N)\n", argv[i]);
			return -1;
		}
	}
	if (!path || period_ms <= 0) {
		fprintf(stderr, "insncount: needs out=FILE (and period_ms > 0)\n");
		return -1;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, publisher, NULL))
		return -1;
	pthread_detach(th);
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
