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

#endif
