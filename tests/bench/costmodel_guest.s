# SPDX-License-Identifier: MIT
# A tiny Multiboot guest for tests/bench/test_costmodel.py: enters long mode with
# an identity map and runs windows between marked time-stamp reads (rex.W rdtsc),
# each closed by the cost model's group mark, then exits through isa-debug-exit.
# Groups, in order (every window but the first runs twice, so that the second
# run finds its code warm):
#   1     five CR3 writes
#   2, 3  one pass of loads, 64 bytes apart, over 4 MiB (larger than L2)
#   4, 5  one pass over 16 KiB (fits L1d)
#   6, 7  one CR3 write, then one pass over the 16 KiB
#   8     twenty windows of one CR3 write each
	.set MB_MAGIC, 0x1badb002
	.set MB_FLAGS, 0x00010000          # load addresses in the header (flat image)
	.set BIG, 0x1000000
	.set SMALL, 0x2000000

	.macro STAMP
	.byte 0x48, 0x0f, 0x31              # rex.W rdtsc
	.endm
	.macro GROUP
	.byte 0x0f, 0x1f, 0x80, 0x4d, 0x4f, 0x44, 0x4c   # nopl 0x4c444f4d(%rax)
	.endm

	.text
	.code32
	.globl _start
_start:
	jmp entry32
	.align 4
mbh:	.long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)
	.long mbh, _start, 0, 0, entry32

entry32:
	cli
	mov $pd, %edi
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $21, %eax
	or $0x83, %eax                      # present, writable, 2 MiB
	mov %eax, (%edi,%ecx,8)
	inc %ecx
	cmp $512, %ecx
	jne 1b
	movl $pdpt + 3, pml4
	movl $pd + 3, pdpt
	mov %cr4, %eax
	or $0x20, %eax                      # PAE
	mov %eax, %cr4
	mov $pml4, %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx               # EFER.LME
	rdmsr
	or $0x100, %eax
	wrmsr
	mov %cr0, %eax
	or $0x80000001, %eax
	mov %eax, %cr0
	lgdt gdtr
	ljmp $8, $entry64

	.code64
entry64:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov $0x90000, %rsp
	mov %cr3, %rbx

	STAMP
	.rept 5
	mov %rbx, %cr3
	.endr
	STAMP
	GROUP

	call big_window
	call big_window
	call small_window
	call small_window
	call flush_window
	call flush_window
	.rept 20                            # group 8: twenty windows of one CR3 write each
	STAMP
	mov %rbx, %cr3
	STAMP
	.endr
	GROUP
	mov $0, %al
	out %al, $0xf4                      # isa-debug-exit: QEMU exits with status 1
	hlt

big_window:
	STAMP
	call big_pass
	STAMP
	GROUP
	ret
small_window:
	STAMP
	call small_pass
	STAMP
	GROUP
	ret
flush_window:
	STAMP
	mov %rbx, %cr3
	call small_pass
	STAMP
	GROUP
	ret

big_pass:
	mov $BIG, %rsi
	mov $65536, %ecx
	.globl big_load                     # its misses: test_costmodel's sites test
big_load:
	mov (%rsi), %rax
	add $64, %rsi
	dec %ecx
	jnz big_load
	ret
small_pass:
	mov $SMALL, %rsi
	mov $256, %ecx
	.globl small_load
small_load:
	mov (%rsi), %rax
	add $64, %rsi
	dec %ecx
	jnz small_load
	ret

	.align 8
gdt:	.quad 0, 0x00af9a000000ffff, 0x00cf92000000ffff
gdtr:	.word gdtr - gdt - 1
	.long gdt
	.align 4096
pml4:	.fill 4096, 1, 0
pdpt:	.fill 4096, 1, 0
pd:	.fill 4096, 1, 0
