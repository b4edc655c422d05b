/* SPDX-License-Identifier: MIT */
/* execve's arguments, copied out of the calling process into lx's memory. */
#ifndef LX_EXEC_H
#define LX_EXEC_H

#include "../lx.h"

#define EXEC_MAX_ARGS  1024
#define EXEC_MAX_BYTES (128 * 1024)

struct exec_args {
	char path[LX_PATH_MAX];
	char *argv[EXEC_MAX_ARGS + 1];
	char *envp[EXEC_MAX_ARGS + 1];
	int argc, envc;
	char *buf;                      /* the strings: EXEC_MAX_BYTES */
	size_t used;
};

struct exec_args *exec_args_new(void);
void exec_args_free(struct exec_args *a);
int exec_args_add(struct exec_args *a, char **vec, int *count, const char *s);
int exec_args_interp(struct exec_args *a, const char *interp, const char *arg);
long do_execve(struct thread *t, struct exec_args *a);
/* The point of no return: t's process runs mm from entry with stack sp. */
long exec_commit(struct thread *t, struct mm *mm, u64 entry, u64 sp, struct exec_args *a);

#endif
