// SPDX-License-Identifier: MIT
// execve: an ELF program (static, or dynamic with its PT_INTERP loader) or a
// `#!` script from lx's file systems becomes the calling process's new
// memory, in a new L4 space with a new L4 thread.  Everything that can fail
// is done before the old image is touched.
#include "../lx.h"
#include "proc.h"
#include "../../../lib/c/string.h"

#define EI_NIDENT 16
struct elf_ehdr {
	uint8_t ident[EI_NIDENT];
	uint16_t type, machine;
	uint32_t version;
	u64 entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf_phdr {
	uint32_t type, flags;
	u64 offset, vaddr, paddr, filesz, memsz, align;
};
#define PT_LOAD    1
#define PT_INTERP  3
#define PT_PHDR    6
#define ET_EXEC    2
#define ET_DYN     3
#define EM_X86_64  62
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define MAX_PHDRS 32

/* auxiliary vector keys */
#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_HWCAP2 26
#define AT_EXECFN 31
#define AT_SYSINFO_EHDR 33
#define AT_IGNORE 1

#define PAGE_DOWN(x) ((x) & ~(LX_PAGE_SIZE - 1))
#define PAGE_UP(x) (((x) + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1))

struct image {
	struct elf_ehdr eh;
	struct elf_phdr ph[MAX_PHDRS];
	u64 bias;                           /* load address of an ET_DYN program */
	u64 phdr_addr, entry, brk;
	int interp;                         /* index of the PT_INTERP header, or -1 */
	u64 interp_base, start;             /* the loader's bias (AT_BASE); where the thread starts */
	u64 vdso;                           /* the vDSO's address (AT_SYSINFO_EHDR), 0: none */
};

/* ip opened read-only and named by where (which it takes over), for /proc; NULL without memory. */
static struct file *named_file(struct inode *ip, struct fs_name *where)
{
	struct file *f = file_new(&reg_ops, LX_O_RDONLY);
	if (f) {
		fs_get(ip);
		f->ip = ip;
		file_set_name(f, where);
	}
	return f;
}

/* Check the ELF header and read the program headers; -ENOEXEC for anything we cannot run. */
static int read_elf(struct inode *ip, struct image *im)
{
	if (fs_read(ip, 0, &im->eh, sizeof(im->eh)) != sizeof(im->eh) ||
	    memcmp(im->eh.ident, "\177ELF", 4) || im->eh.ident[4] != 2 || im->eh.ident[5] != 1 ||
	    im->eh.machine != EM_X86_64 || (im->eh.type != ET_EXEC && im->eh.type != ET_DYN) ||
	    im->eh.phentsize != sizeof(struct elf_phdr) || !im->eh.phnum ||
	    im->eh.phnum > MAX_PHDRS)
		return -LX_ENOEXEC;
	long n = (long)(im->eh.phnum * sizeof(struct elf_phdr));
	if (fs_read(ip, im->eh.phoff, im->ph, (size_t)n) != n)
		return -LX_ENOEXEC;
	im->bias = im->eh.type == ET_DYN ? LX_PIE_BASE : 0;
	im->interp = -1;
	for (int i = 0; i < im->eh.phnum; i++)
		if (im->ph[i].type == PT_INTERP)
			im->interp = i;             /* dynamically linked: its loader comes too */
	return 0;
}

static u32 seg_prot(u32 f)
{
	return ((f & PF_R) ? VM_READ : 0) | ((f & PF_W) ? VM_WRITE : 0) | ((f & PF_X) ? VM_EXEC : 0);
}

/* The PT_LOAD segments as areas of mm; the program headers' address for AT_PHDR. */
static int map_segments(struct mm *mm, struct inode *ip, struct image *im)
{
	u64 prev_end = 0;
	im->phdr_addr = 0;
	for (int i = 0; i < im->eh.phnum; i++) {
		struct elf_phdr *ph = &im->ph[i];
		if (ph->type == PT_PHDR)
			im->phdr_addr = ph->vaddr + im->bias;
		if (ph->type != PT_LOAD || !ph->memsz)
			continue;
		u64 va = ph->vaddr + im->bias;
		if (ph->filesz > ph->memsz || va + ph->memsz < va || va + ph->memsz > LX_MMAP_TOP ||
		    (va & (LX_PAGE_SIZE - 1)) != (ph->offset & (LX_PAGE_SIZE - 1)))
			return -LX_ENOEXEC;
		u64 start = PAGE_DOWN(va), end = PAGE_UP(va + ph->memsz);
		if (start < prev_end)
			start = prev_end;           /* segments sharing a page: the first one has it */
		if (start < end) {
			long err = vm_map_fixed(mm, start, end, seg_prot(ph->flags), ip,
						PAGE_DOWN(ph->offset) + (start - PAGE_DOWN(va)),
						va + ph->filesz);
			if (err)
				return (int)err;
		}
		if (!im->phdr_addr && ph->offset == 0)
			im->phdr_addr = va + im->eh.phoff;
		prev_end = end;
		if (end > im->brk)
			im->brk = end;
	}
	im->entry = im->eh.entry + im->bias;
	return im->brk ? 0 : -LX_ENOEXEC;
}

/* A program or loader must be a regular file the caller may execute (EACCES). */
static int exec_permission(const struct inode *ip)
{
	if (!LX_S_ISREG(ip->mode) || (ip->sb->mflags & LX_MS_NOEXEC))
		return -LX_EACCES;      /* not a file, or on a noexec mount */
	return fs_permission(ip, FS_MAY_EXEC);
}

/* The loader's path from the program's PT_INTERP, looked up from the root; *ipp: a reference. */
static int interp_lookup(struct inode *prog, const struct elf_phdr *ph, struct inode **ipp,
			 struct fs_name *where)
{
	if (ph->filesz < 2 || ph->filesz > LX_PATH_MAX)
		return -LX_ENOEXEC;
	char *path = page_alloc();              /* LX_PATH_MAX: a page */
	if (!path)
		return -LX_ENOMEM;
	int err = fs_read(prog, ph->offset, path, ph->filesz) == (long)ph->filesz &&
		  path[ph->filesz - 1] == 0 ? 0 : -LX_ENOEXEC;
	if (!err)
		err = fs_lookup_named(fs_root(), path, FS_FOLLOW, ipp, where);  /* missing: ENOENT */
	page_free(path);
	if (!err && (err = exec_permission(*ipp)) < 0) {
		fs_put(*ipp);
		fs_name_drop(where);
	}
	return err;
}

/* The span of an image's PT_LOAD segments: [lo, hi) before its bias. */
static void load_span(const struct image *im, u64 *lo, u64 *hi)
{
	*lo = ~0UL;
	*hi = 0;
	for (int i = 0; i < im->eh.phnum; i++) {
		const struct elf_phdr *ph = &im->ph[i];
		if (ph->type != PT_LOAD || !ph->memsz)
			continue;
		if (PAGE_DOWN(ph->vaddr) < *lo)
			*lo = PAGE_DOWN(ph->vaddr);
		if (PAGE_UP(ph->vaddr + ph->memsz) > *hi)
			*hi = PAGE_UP(ph->vaddr + ph->memsz);
	}
}

/*
 * The dynamic loader (ld-linux-x86-64.so.2, musl's ld-musl) of im, an
 * ET_DYN image itself, mapped at the top of the mmap area as Linux puts it;
 * later mmaps go below it.  The thread starts at the loader's entry, which
 * finds the program through AT_PHDR, AT_ENTRY and AT_BASE.
 */
static int map_interp(struct mm *mm, struct inode *prog, struct image *im)
{
	struct inode *ip;
	struct fs_name where;
	int err = interp_lookup(prog, &im->ph[im->interp], &ip, &where);
	if (err)
		return err;
	struct image *li = lx_zalloc(sizeof(*li));
	err = li ? read_elf(ip, li) : -LX_ENOMEM;
	if (!err && (li->eh.type != ET_DYN || li->interp >= 0))
		err = -LX_ELIBBAD;
	u64 lo, hi;
	if (!err) {
		load_span(li, &lo, &hi);
		err = hi > lo && hi - lo < (1UL << 32) ? 0 : -LX_ELIBBAD;
	}
	if (!err) {
		li->bias = PAGE_DOWN(mm->mmap_top - (hi - lo)) - lo;
		err = map_segments(mm, ip, li);
	}
	struct file *named = err ? NULL : named_file(ip, &where);
	fs_name_drop(&where);
	if (!err) {
		mm->mmap_top = li->bias + lo;
		im->interp_base = li->bias;
		im->start = li->entry;
		vm_set_name(mm, li->bias + lo, li->bias + hi, named);
	}
	file_put(named);
	lx_free(li);
	fs_put(ip);
	return err;
}

/* Push n bytes onto the new stack at *sp (in the new memory, through lx's tables). */
static bool push(struct proc *tmp, u64 *sp, const void *data, size_t n)
{
	*sp -= n;
	return copyout(tmp, *sp, data, n);
}

/* One vector's strings from `*at` up (lx's, then the caller's) and its pointers at *vp. */
static int put_vector(struct proc *tmp, struct exec_args *a, struct exec_vec *v, u64 *at, u64 end,
		      u64 *vp)
{
	u64 zero = 0;
	for (int i = 0; i < v->kc + v->uc; i++, *vp += 8) {
		long n = exec_arg_copy(a, v, i, tmp, *at, end - *at);
		if (n < 0)
			return (int)n;
		if (!copyout(tmp, *vp, at, 8))
			return -LX_ENOMEM;
		*at += (u64)n;
	}
	bool ok = copyout(tmp, *vp, &zero, 8);
	*vp += 8;
	return ok ? 0 : -LX_ENOMEM;
}

/*
 * argc, argv, envp and the auxiliary vector, as the System V ABI lays them
 * out: the strings (argv's, then envp's, then the program's path) at the
 * top, the pointers below, so that each string is copied once, straight
 * from the caller's memory.
 */
static int build_stack(struct proc *tmp, struct image *im, struct exec_args *a, u64 *sp_out)
{
	u64 sp = LX_STACK_TOP, random[2] = { 0 }, execfn, platform, rnd;
	lx_random(random, sizeof(random));
	if (!push(tmp, &sp, a->path, strlen(a->path) + 1))
		return -LX_ENOMEM;
	execfn = sp;
	u64 strings = execfn - (a->bytes - (strlen(a->path) + 1));
	if (strings < LX_STACK_TOP - a->stack_size + (64UL << 10))   /* leave the program a stack */
		return -LX_E2BIG;
	sp = strings;
	push(tmp, &sp, "x86_64", 7);
	platform = sp;
	push(tmp, &sp, random, 16);
	rnd = sp;
	u64 aux[] = { im->vdso ? AT_SYSINFO_EHDR : AT_IGNORE, im->vdso, AT_PHDR, im->phdr_addr, AT_PHENT, sizeof(struct elf_phdr),
		      AT_PHNUM, im->eh.phnum, AT_PAGESZ, LX_PAGE_SIZE, AT_BASE, im->interp_base,
		      AT_FLAGS, 0,
		      AT_ENTRY, im->entry, AT_UID, a->cred.uid, AT_EUID, a->cred.euid,
		      AT_GID, a->cred.gid, AT_EGID, a->cred.egid,
		      AT_SECURE, a->cred.euid != a->cred.uid || a->cred.egid != a->cred.gid, AT_RANDOM, rnd, AT_HWCAP, 0, AT_HWCAP2, 0, AT_CLKTCK, 100,
		      AT_PLATFORM, platform, AT_EXECFN, execfn, AT_NULL, 0 };
	u64 argc = (u64)(a->arg.kc + a->arg.uc), envc = (u64)(a->env.kc + a->env.uc);
	u64 words = 1 + argc + 1 + envc + 1 + sizeof(aux) / 8;
	sp = (sp - words * 8) & ~15UL;              /* argc ends up 16-byte aligned */
	u64 vp = sp + 8, at = strings;
	int err = copyout(tmp, sp, &argc, 8) ? 0 : -LX_ENOMEM;
	a->arg_start = strings;
	if (!err)
		err = put_vector(tmp, a, &a->arg, &at, execfn, &vp);
	a->arg_bytes = at - strings;
	tmp->mm->arg_start = strings;
	tmp->mm->arg_end = tmp->mm->env_start = at;
	if (!err)
		err = put_vector(tmp, a, &a->env, &at, execfn, &vp);
	tmp->mm->env_end = at;
	if (!err && !copyout(tmp, vp, aux, sizeof(aux)))
		err = -LX_ENOMEM;
	*sp_out = tmp->mm->start_stack = sp;
	return err;
}

/* Does the file start with `#!`? */
static bool shebang_line(struct inode *ip)
{
	char two[2];
	return fs_read(ip, 0, two, 2) == 2 && two[0] == '#' && two[1] == '!';
}

/* A `#!interpreter [arg]` line: rewrite the arguments to run the interpreter. */
static int shebang(struct inode *ip, struct exec_args *a)
{
	char line[128];
	long n = fs_read(ip, 0, line, sizeof(line) - 1);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 1;
	line[n] = 0;
	char *p = line + 2, *end = line;
	while (*end && *end != '\n')
		end++;
	if (!*end && n == (long)sizeof(line) - 1)
		return -LX_ENOEXEC;                   /* the line is too long */
	*end = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	char *interp = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	char *arg = NULL;
	if (*p) {
		*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		arg = *p ? p : NULL;
		for (char *q = p + strlen(p); arg && q > arg && (q[-1] == ' ' || q[-1] == '\t');)
			*--q = 0;
	}
	if (!*interp)
		return -LX_ENOEXEC;
	return exec_args_interp(a, interp, arg);
}

/*
 * A dynamically linked program's bases, as Linux's ASLR picks them: a PIE
 * program anywhere in 256 MiB above LX_PIE_BASE, its loader and the mmap
 * area up to 256 MiB below LX_MMAP_TOP.  Static programs keep fixed
 * addresses, so that the benchmarks' runs repeat instruction for instruction.
 */
static void randomise(struct mm *mm, struct image *im)
{
	uint32_t r[2];
	lx_random(r, sizeof(r));
	if (im->eh.type == ET_DYN)
		im->bias += (u64)(r[0] & 0xffff) * LX_PAGE_SIZE;
	mm->mmap_top -= (u64)(r[1] & 0xffff) * LX_PAGE_SIZE;
}

static int load_image(struct inode *ip, struct image *im, struct mm **mm_out, struct exec_args *a,
		      u64 *sp)
{
	int err = read_elf(ip, im);
	if (err)
		return err;
	struct mm *mm = mm_new();
	if (!mm)
		return -LX_ENOMEM;
	struct proc tmp = { .mm = mm };
	if (im->interp >= 0)
		randomise(mm, im);
	err = map_segments(mm, ip, im);
	vm_set_name(mm, 0, LX_MMAP_TOP, a->exe);
	im->start = im->entry;
	if (!err && im->interp >= 0)
		err = map_interp(mm, ip, im);
	if (!err)
		err = (int)vm_map_fixed(mm, LX_STACK_TOP - a->stack_size, LX_STACK_TOP,
					VM_READ | VM_WRITE | VM_STACK, NULL, 0, 0);
	if (!err)
		err = fast_map(mm);
	if (!err)
		err = vdso_map(mm, &im->vdso);
	if (!err)
		err = build_stack(&tmp, im, a, sp);
	if (err) {
		mm_put(mm);
		return err;
	}
	mm->brk_start = mm->brk = im->brk;
	*mm_out = mm;
	return 0;
}

/* The program as an open file, named by where it was found, for /proc/PID/exe. */
static int exe_file(struct inode *ip, struct fs_name *where, struct exec_args *a)
{
	struct file *f = named_file(ip, where);
	fs_name_drop(where);
	if (!f)
		return -LX_ENOMEM;
	file_put(a->exe);
	a->exe = f;
	return 0;
}

/* The file execveat's AT_EMPTY_PATH names (a reference), where its descriptor was opened. */
static int self_program(struct file *f, struct inode **ip, struct fs_name *where)
{
	where->dir = NULL;
	if (!f->ip)
		return -LX_EACCES;              /* a pipe or a socket */
	fs_get(*ip = f->ip);
	if (f->name_dir && strlen(f->name) < sizeof(where->name)) {
		fs_get(where->dir = f->name_dir);
		memcpy(where->name, f->name, strlen(f->name) + 1);
	}
	return 0;
}

/* The program's file (depth 0, as execveat names it) or a script's interpreter's. */
static int lookup_program(struct proc *p, struct exec_args *a, int depth, struct inode **ip,
			  struct fs_name *where)
{
	if (depth || !(a->at.first || a->at.self))
		return fs_lookup_named(p->cwd, a->path, FS_FOLLOW, ip, where);
	if (a->at.self)
		return self_program(a->at.self, ip, where);
	int err = fs_lookup_named(a->at.dir ? a->at.dir : p->cwd, a->at.first,
				  a->at.nofollow ? 0 : FS_FOLLOW, ip, where);
	if (!err && LX_S_ISLNK((*ip)->mode)) {
		fs_name_drop(where);
		fs_put(*ip);
		return -LX_ELOOP;               /* AT_SYMLINK_NOFOLLOW */
	}
	return err;
}

/* Find the program, following `#!` lines (at most 4 deep); *ip gets a reference. */
static int resolve(struct proc *p, struct exec_args *a, struct inode **ipp)
{
	for (int depth = 0; depth < 5; depth++) {
		struct inode *ip;
		struct fs_name where;
		int err = lookup_program(p, a, depth, &ip, &where);
		if (err)
			return err;
		if ((err = exec_permission(ip)) == 0)
			err = !depth && a->at.path_gone && shebang_line(ip) ? -LX_ENOENT : shebang(ip, a);
		if (err <= 0) {
			fs_name_drop(&where);
			fs_put(ip);
			if (err)
				return err;
			continue;                   /* a script: now its interpreter */
		}
		err = exe_file(ip, &where, a);
		if (err) {
			fs_put(ip);
			return err;
		}
		*ipp = ip;
		return 0;
	}
	return -LX_ELOOP;
}

/*
 * execve(2): a set-user-ID program runs with its owner as effective user,
 * a set-group-ID one (with S_IXGRP) with its group; the effective IDs are
 * then copied to the saved ones, and the file-system IDs follow them.
 * (A script's bits are not looked at: its interpreter's are, as on Linux.)
 */
static void exec_creds(struct cred *c, const struct inode *ip)
{
	if (ip->sb->mflags & LX_MS_NOSUID)
		;                       /* a nosuid mount: the bits mean nothing */
	else if (ip->mode & LX_S_ISUID)
		c->euid = ip->uid;
	if ((ip->mode & (LX_S_ISGID | 0010)) == (LX_S_ISGID | 0010) && !(ip->sb->mflags & LX_MS_NOSUID))
		c->egid = ip->gid;
	c->suid = c->fsuid = c->euid;
	c->sgid = c->fsgid = c->egid;
}

/* The basename of the path execve was given, cut to 15 bytes as Linux's comm. */
static void comm_of(const char *path, char comm[16])
{
	const char *base = path;
	for (const char *s = path; *s; s++)
		if (*s == '/')
			base = s + 1;
	memset(comm, 0, 16);
	for (int i = 0; i < 15 && base[i]; i++)
		comm[i] = base[i];
}

/*
 * The stack area is mapped whole at exec, so its size is the RLIMIT_STACK
 * of that moment (Linux reads the limit as the stack grows), at least
 * 128 KiB and at most LX_STACK_SIZE.
 */
static u64 stack_size(struct proc *p)
{
	u64 lim = p->rlim[LX_RLIMIT_STACK][0] & ~(LX_PAGE_SIZE - 1);
	return lim < (128UL << 10) ? 128UL << 10 : lim > LX_STACK_SIZE ? LX_STACK_SIZE : lim;
}

long do_execve(struct thread *t, struct exec_args *a)
{
	struct proc *p = t->proc;
	a->stack_size = stack_size(p);
	struct inode *ip;
	comm_of(a->path, a->comm);
	int err = resolve(p, a, &ip);
	if (err)
		return err;
	struct image im = { 0 };
	struct mm *mm;
	u64 sp;
	a->cred = p->cred;              /* the same groups: no reference changes hands */
	exec_creds(&a->cred, ip);
	err = load_image(ip, &im, &mm, a, &sp);
	fs_put(ip);
	if (err)
		return err;
	long r = exec_commit(t, mm, im.start, sp, a);
	if (r == SYS_NOREPLY)
		p->cred = a->cred;
	return r;
}
