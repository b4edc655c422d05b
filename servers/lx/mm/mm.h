/* SPDX-License-Identifier: MIT */
/*
 * lx's own memory: 4 KiB pages it got from sigma0 (page_alloc) and a
 * general allocator on top of them (lx_malloc).  Both return NULL when
 * memory is exhausted; callers turn that into ENOMEM for the one asking.
 * In the host tests (PECAN_HOST_TEST) pages come from the host's heap.
 */
#ifndef LX_MEM_H
#define LX_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define LX_PAGE_SIZE 4096UL

void *page_alloc(void);            /* a zeroed page, or NULL */
void page_free(void *page);
size_t page_free_count(void);      /* pages still available */
/* n contiguous zeroed pages, or NULL (lx_malloc's large blocks); freed with the same n */
void *pages_alloc(size_t n);
void pages_free(void *p, size_t n);

void *lx_malloc(size_t n);         /* 16-byte aligned, or NULL */
void *lx_zalloc(size_t n);         /* zeroed */
void *lx_realloc(void *p, size_t n);
void lx_free(void *p);             /* NULL is fine */
char *lx_strdup(const char *s);


/* The page pool beyond page_alloc: reference counts for pages shared between processes. */
void pool_init(void);
uint64_t pool_bytes(void);
uint64_t pool_total_bytes(void);
bool page_in_pool(const void *p);
void *page_alloc_nozero(void);
void page_get(void *p);              /* one more user; page_free drops one */
unsigned page_refcount(const void *p);
/* fn frees pages it can do without (fs/ext2.c's page cache: clean pages only
 * it holds) when the pool has none left; true if it freed some.  It may only
 * free pages, never allocate. */
void page_set_shrinker(bool (*fn)(void));


/* mm/vm.c: processes' memory (the types are lx.h's) */
typedef uint64_t u64;
typedef uint32_t u32;
struct proc;
struct mm;
struct inode;
struct file;
/* mm/vm.c */
/* The RAM file system's pages count against the same commit limit as writable
 * mappings: false when the pool has no page left to promise (ENOSPC). */
bool mem_charge_file_page(void);
void mem_uncharge_file_page(void);
struct mm *mm_new(void);
void mm_put(struct mm *mm);
struct mm *mm_fork(struct mm *parent);      /* copy on write; NULL without memory */
int vm_fault(struct proc *p, u64 addr, u32 access, u64 *page_out, u32 *rights_out);
/* fault-around: file pages near a read fault, to map with it (mm/vm.c) */
#define FAULT_AROUND 16                 /* pages: Linux's fault_around_bytes, 64 KiB */
struct fault_map { u64 va, page; u32 rights; };
int vm_fault_around(struct proc *p, u64 addr, struct fault_map *out, int max);
/* lx's address of user byte va, made present for reading; NULL if not mapped readable */
uint8_t *vm_kaddr(struct mm *mm, u64 va);
uint8_t *vm_text_kaddr(struct mm *mm, u64 va);   /* the same for rewriting text: never the file's page */
bool vm_mapped(struct mm *mm, u64 va);       /* in an area (a fault there is SEGV_ACCERR) */
bool vm_futex_key(struct mm *mm, u64 va, const void **obj, u64 *off);   /* a shared futex's key */
/* va's page is in mm's table now (mincore(2), move_pages(2)); nothing is faulted in */
bool vm_resident(struct mm *mm, u64 va);
bool vm_is_text(struct mm *mm, u64 va);     /* in a private, read-only, executable file mapping */
/* file: NULL for anonymous memory; file_writable: its descriptor was opened for writing */
long vm_mmap(struct proc *p, u64 addr, u64 len, u32 prot, u32 flags, struct inode *file,
	     u64 off, bool file_writable);
/* Unmap the areas in [addr, addr + len) that map file (System V detach). */
long vm_unmap_file(struct proc *p, u64 addr, u64 len, struct inode *file);
/* The file an area starting at addr maps, or NULL. */
struct inode *vm_file_at(struct proc *p, u64 addr);
/* The file mappings of f's inode in [start, end) are named by f in /proc/PID/maps. */
void vm_set_name(struct mm *mm, u64 start, u64 end, struct file *f);
long vm_msync(struct proc *p, u64 addr, u64 len);
/* file shrank to size (fs_truncate): every mmap of it loses its pages past the end */
void vm_file_shrunk(struct inode *file, u64 size);
long vm_munmap(struct proc *p, u64 addr, u64 len);
long vm_discard(struct proc *p, u64 start, u64 end);     /* MADV_DONTNEED */
/* madvise(2), mlock(2): area flags over a range; pages made present (mm/vm.c) */
long vm_set_flags(struct mm *mm, u64 start, u64 end, u32 set, u32 clear);
long vm_populate(struct proc *p, u64 start, u64 end, bool write);
/* the file's pages in [off, end) leave every mapping before a hole is punched there */
void vm_file_punch(struct inode *file, u64 off, u64 end);
long vm_mprotect(struct proc *p, u64 addr, u64 len, u32 prot);
long vm_mremap(struct proc *p, u64 old, u64 old_len, u64 new_len, u32 flags, u64 new_addr);
long vm_brk(struct proc *p, u64 brk);
/* copy to/from a process's memory through lx's tables; false on a bad address */
bool copyin(struct proc *p, void *dst, u64 src, size_t n);
bool copyout(struct proc *p, u64 dst, const void *src, size_t n);
long copyin_str(struct proc *p, char *dst, u64 src, size_t max);  /* length, or -errno */
/* copyin/copyout of one 64-bit word (signal masks): the same, without a copy loop */
bool copyin_u64(struct proc *p, u64 *dst, u64 src);
bool copyout_u64(struct proc *p, u64 dst, u64 v);
/*
 * copyin/copyout's translation cache (mm/vm.c): (mm, page) to lx's page, and
 * whether it may be written now.  Everything that takes a page away or
 * write-protects one (unmap, fork, mprotect, copy on write, an mm's end)
 * makes every entry stale at once (vm_tlb_gen).
 */
#define VM_TLB_SIZE 64
struct vm_tlb_entry {
	struct mm *mm;
	u64 page, gen;
	char *k;
	bool w;
} __attribute__((aligned(64)));                /* (an entry's index is a shift and a mask) */
extern struct vm_tlb_entry vm_tlb[VM_TLB_SIZE];
extern u64 vm_tlb_gen;
/* The cache's entry for mm's page (page-aligned) if it holds it for this access, else NULL
 * (copyin/copyout then find the page, or fail): a hit path for small copies without a call */
static inline const struct vm_tlb_entry *user_page_cached(struct mm *mm, u64 page, bool write)
{
	const struct vm_tlb_entry *e = &vm_tlb[(page >> 12) % VM_TLB_SIZE];
	if (e->gen == vm_tlb_gen && e->mm == mm && e->page == page && (e->w || !write))
		return e;
	return NULL;
}
void vm_unmap_all(struct mm *mm);
long vm_map_fixed(struct mm *mm, u64 start, u64 end, u32 vmprot, struct inode *file, u64 off,
		  u64 file_end);

#endif
