/* SPDX-License-Identifier: MIT */
/* The 64-bit product on ARMv6-M (Cortex-M0, M0+ and M1).
 *
 * These cores multiply 32 x 32 -> 32 bits only, so every (int64_t)a * b of the core and of
 * libfixmath is a call to __aeabi_lmul, the run-time ABI's 64 x 64 -> 64 product. libgcc's
 * takes 41 instructions a call, about 30 % of an M0's step. This one takes 21 (docs/porting.md,
 * section 9): the low words' product from four 16 x 16 products, each cross term in one MULS.
 * A product modulo 2^64 is exact, so the bits are the same; the archive that defines the
 * symbol first serves the whole program, so a firmware linking libqphys.a takes it too. Other
 * processors have a wide multiply, and this file is empty for them.
 *
 * With the low words in 16-bit halves, a_lo = al + ah 2^16 and b_lo = bl + bh 2^16:
 *   a b mod 2^64 = al bl + (ah bl + al bh) 2^16 + (ah bh + a_hi b_lo + a_lo b_hi) 2^32.
 */
#if defined(__ARM_ARCH_6M__) && defined(__thumb__)
__asm__(
    "  .syntax unified\n"
    "  .pushsection .text.__aeabi_lmul,\"ax\",%progbits\n"
    "  .global __aeabi_lmul\n"
    "  .type __aeabi_lmul, %function\n"
    "  .thumb_func\n"
    "  .align 1\n"
    "__aeabi_lmul:\n"                 /* r1:r0 = a, r3:r2 = b; r1:r0 = a b */
    "  push {r4, r5, lr}\n"
    "  muls r1, r2, r1\n"             /* a_hi b_lo */
    "  muls r3, r0, r3\n"             /* a_lo b_hi */
    "  adds r1, r1, r3\n"             /* the cross terms, added to the high word last */
    "  lsrs r3, r0, #16\n"            /* ah */
    "  lsrs r4, r2, #16\n"            /* bh */
    "  uxth r0, r0\n"                 /* al */
    "  uxth r2, r2\n"                 /* bl */
    "  movs r5, r3\n"
    "  muls r5, r4, r5\n"             /* ah bh: the high word */
    "  muls r3, r2, r3\n"             /* ah bl */
    "  muls r4, r0, r4\n"             /* al bh */
    "  muls r0, r2, r0\n"             /* al bl: the low word */
    "  adds r3, r3, r4\n"             /* the middle sum; its carry is worth 2^48 */
    "  bcc 1f\n"
    "  movs r4, #1\n"
    "  lsls r4, r4, #16\n"
    "  adds r5, r5, r4\n"
    "1:\n"
    "  lsls r2, r3, #16\n"
    "  lsrs r3, r3, #16\n"
    "  adds r0, r0, r2\n"             /* the middle's low half into the low word, */
    "  adcs r5, r5, r3\n"             /* its high half and the carry into the high word */
    "  adds r1, r1, r5\n"
    "  pop {r4, r5, pc}\n"
    "  .size __aeabi_lmul, . - __aeabi_lmul\n"
    "  .popsection\n");
#else
/* ISO C wants a declaration in every file. */
typedef int qp__mul64_unused;
#endif
