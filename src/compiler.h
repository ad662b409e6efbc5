/* SPDX-License-Identifier: MIT */
/* Compiler attributes used inside the core. */
#ifndef QPHYS_COMPILER_H
#define QPHYS_COMPILER_H

/* Keep a helper out of its caller's stack frame: for stack depth (the
 * micro:bit has 3 KB), not speed. The deepest calls of a step are the
 * collide functions, so what sits above them must stay small. */
#if defined(__GNUC__)
#define QP__NOINLINE __attribute__((noinline))
#else
#define QP__NOINLINE
#endif

/* Inline a small kernel into every caller even where the compiler would not (a row
 * kernel called with a constant row index: each copy loses its branches). */
#if defined(__GNUC__)
#define QP__ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define QP__ALWAYS_INLINE inline
#endif

/* QP__BRANCH_FREE: 1 where a mispredicted branch costs more than the few instructions that
 * avoid it (x86-64, AArch64 and the other deep out-of-order pipelines of hosts), 0 on the
 * Cortex-M (an in-order pipeline: a branch costs a cycle or three, and the extra
 * instructions are what counts). A branch on the sign of a product or on which of two
 * totals grew is a coin toss: the branch-free forms made pyramid20 and rain512 about 20 %
 * faster on the host (docs/benchmarks.md). Both forms compute the same bits. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define QP__BRANCH_FREE 0
#else
#define QP__BRANCH_FREE 1
#endif

#endif
