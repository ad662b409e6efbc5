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

/* QP__NOINLINE for a velocity pass's visit of one contact (solve_contacts.c, shock.c, the
 * warm start in solver.c): out of its sweep loop's frame for the micro:bit's small stack
 * (and on the hosts, as measured there), inlined on ARMv7E-M (the Cortex-M4 and M7), where
 * the call and the spills around it cost more: 0.6 % of pyramid20's instructions a step and
 * 0.5 % of rain512's (make bench's Cortex-M4 app). The same bits at either. */
#if defined(__ARM_ARCH_7EM__)
#define QP__VISIT_NOINLINE
#else
#define QP__VISIT_NOINLINE QP__NOINLINE
#endif

/* Inline a small kernel into every caller even where the compiler would not (a row
 * kernel called with a constant row index: each copy loses its branches). */
#if defined(__GNUC__)
#define QP__ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define QP__ALWAYS_INLINE inline
#endif

/* QP__HELPER_INLINE: the roundings and saturations that every row and row builder calls,
 * forced inline on the Cortex-M0. At -Os (the micro:bit) GCC keeps them out of line there, and
 * a rounding shift by a count it no longer sees as a constant becomes a library call
 * (__aeabi_llsl, __aeabi_lasr): inlined, the micro:bit's awake stack20 step takes 9 % fewer
 * instructions for 13 KB of its flash, and its deepest stack is no deeper
 * (tests/scripts/test-stack.sh). The other targets' compilers inline them unasked. */
#if defined(__ARM_ARCH_6M__)
#define QP__HELPER_INLINE QP__ALWAYS_INLINE
#else
#define QP__HELPER_INLINE inline
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

/* QP__PREFETCH(p): ask for the cache line at p ahead of its use (QP__PREFETCH_ON), on hosts,
 * where a big world's contacts and rows come from the last level of cache; nothing on a
 * Cortex-M, which has no data cache to fill. A hint: it changes no result. */
#if defined(__GNUC__) && !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define QP__PREFETCH_ON 1
#define QP__PREFETCH(p) __builtin_prefetch((p))
#else
#define QP__PREFETCH_ON 0
#define QP__PREFETCH(p) ((void)(p))
#endif

#endif
