/* SPDX-License-Identifier: MIT */
/* The vDSO as mk/lx.mk built it (user/), for vdso.c to copy into its pages. */
	.section .rodata
	.balign 16
	.globl lx_vdso_start, lx_vdso_end
lx_vdso_start:
	.incbin LX_VDSO_SO
lx_vdso_end:
	.section .note.GNU-stack, "", @progbits
