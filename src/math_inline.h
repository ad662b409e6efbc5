/* SPDX-License-Identifier: MIT */
/* The math layer's smallest helpers as static inline functions, for the stages
 * that call them in their inner loops (tens of thousands of times per step): a call
 * across files costs more than the helper itself, and the compiler cannot inline
 * across files. The same code as the public functions of math.c, which call these,
 * so the bits are the same by construction (forms and bounds: include/qphys/math.h). */
#ifndef QPHYS_MATH_INLINE_H
#define QPHYS_MATH_INLINE_H

#include "qphys/math.h"
#include "compiler.h"

/* QP__NARROW(x): on a 32-bit Arm, makes the compiler forget where the int32 x came from.
 * Saturated from an int64, x kept its 64-bit form there, and every later (int64_t)x * y
 * took a 64 x 64 product (three instructions) where one 32 x 32 multiply does. It
 * changes no value. */
#if defined(__GNUC__) && defined(__arm__)
#define QP__NARROW(x) __asm__("" : "+r"(x))
#else
#define QP__NARROW(x) ((void)0)
#endif

/* qp_sat32 on a machine of 32-bit words, where v is two of them: it fits an int32 when the
 * high word is the low word's sign, one compare with a shifted operand on Arm, where two
 * 64-bit compares (each a compare and a subtract with carry, one of them with a constant
 * loaded first) take 7 instructions in the common case and this takes 4. INT32_MIN goes to
 * -INT32_MAX with every value below it. */
static QP__HELPER_INLINE int32_t qp__sat32_words(int64_t v)
{
    int32_t lo = (int32_t)v, hi = (int32_t)(v >> 32);
    return hi == (lo >> 31) && lo != INT32_MIN ? lo : hi < 0 ? -INT32_MAX : INT32_MAX;
}

/* qp_sat32 */
static QP__HELPER_INLINE int32_t qp__sat32(int64_t v)
{
#if defined(__GNUC__) && UINTPTR_MAX > 0xFFFFFFFFu
    /* A 64-bit machine: in range (nearly always), one add and one unsigned compare and a
     * branch taken only at the ends, which the processor learns (two conditional moves
     * take two compares and two constants every time: host rain512 runs 2.7 % slower). */
    if (__builtin_expect((uint64_t)v + INT32_MAX <= (uint64_t)2 * INT32_MAX, 1)) return (int32_t)v;
    return v > 0 ? INT32_MAX : -INT32_MAX;
#else
    int32_t r = qp__sat32_words(v);
    QP__NARROW(r);
    return r;
#endif
}

/* r, or -INT32_MAX for r = INT32_MIN (the one int32 below -INT32_MAX). On a 32-bit Arm
 * as r + (r == INT32_MIN): one compare with an immediate and a conditional add, where the
 * compare with -INT32_MAX loaded it from memory first; elsewhere (a conditional move on
 * x86) the plain form is the shorter. */
static QP__HELPER_INLINE int32_t qp__no_min(int32_t r)
{
#if defined(__arm__)
    return r + (r == INT32_MIN);
#else
    return r < -INT32_MAX ? -INT32_MAX : r;
#endif
}

/* qp__sat32((int64_t)a + b) in 32 bits, for any int32 a, b (and a - b as a + -b for b
 * saturated to +-INT32_MAX, as qp__mul, qp__r16 and qp__r30 return); a 64-bit sum and
 * compare cost several instructions each on a Cortex-M. An overflow goes to the end of
 * a's side, and the one sum that fits but is out of range, INT32_MIN, to -INT32_MAX. */
static QP__HELPER_INLINE int32_t qp__add_sat(int32_t a, int32_t b)
{
#if defined(__GNUC__)
    int32_t r;
    if (__builtin_add_overflow(a, b, &r)) return a > 0 ? INT32_MAX : -INT32_MAX;
    return qp__no_min(r);
#else
    return qp__sat32((int64_t)a + b);
#endif
}

/* qp__sat32((int64_t)a - b) in 32 bits, the same way (vector differences, friction changes). */
static QP__HELPER_INLINE int32_t qp__sub_sat(int32_t a, int32_t b)
{
#if defined(__GNUC__)
    int32_t r;
    if (__builtin_sub_overflow(a, b, &r)) return a < 0 ? -INT32_MAX : INT32_MAX;
    return qp__no_min(r);
#else
    return qp__sat32((int64_t)a - b);
#endif
}

/* n / d truncated, as C divides int64_t: by a 32-bit division when both fit in 32
 * bits (one instruction on a Cortex-M4; a 64-bit one is a library call of about a
 * hundred). The same quotient either way; d != 0. */
static inline int64_t qp__div64(int64_t n, int64_t d)
{
    if (n == (int32_t)n && d == (int32_t)d && d != -1) return (int32_t)n / (int32_t)d;
    return n / d;
}

/* n / d truncated for n < 2^64 and 0 < d < 2^32, with 32-bit divisions only (a 64-bit
 * one is a library call on a Cortex-M, a shift-and-subtract loop of a few hundred
 * instructions). The high word is divided first; what remains, below d 2^32, is divided
 * as two base-2^16 digits by the divisor shifted left until its top bit is set (long
 * division, Knuth's algorithm D): each digit estimated from the divisor's top half is at
 * most 2 too large, and the corrections below take it down to the exact digit. */
static inline uint64_t qp__udiv64_32_long(uint64_t n, uint32_t d)
{
    uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
    uint32_t q_hi = hi / d, r = hi % d;
    if (r == 0 && lo < d) return (uint64_t)q_hi << 32;
    if (r == 0) return ((uint64_t)q_hi << 32) | (lo / d);
    int s = __builtin_clz(d);                   /* d << s has its top bit set */
    uint32_t v = d << s, v1 = v >> 16, v0 = v & 0xFFFFu;
    uint32_t top = s ? (r << s) | (lo >> (32 - s)) : r; /* (r 2^32 + lo) << s, top word: < v */
    uint32_t low = lo << s, u1 = low >> 16, u0 = low & 0xFFFFu;
    uint32_t q1 = top / v1, rh = top - q1 * v1;
    while (q1 > 0xFFFFu || q1 * v0 > ((rh << 16) | u1)) {
        q1--;
        rh += v1;
        if (rh > 0xFFFFu) break;
    }
    uint32_t mid = (top << 16) + u1 - q1 * v;  /* the remainder after the first digit: < v */
    uint32_t q0 = mid / v1;
    rh = mid - q0 * v1;
    while (q0 > 0xFFFFu || q0 * v0 > ((rh << 16) | u0)) {
        q0--;
        rh += v1;
        if (rh > 0xFFFFu) break;
    }
    return ((uint64_t)q_hi << 32) | (q1 << 16 | q0);
}

/* The same quotient: a 64-bit machine's own division (one instruction), elsewhere the above. */
static inline uint64_t qp__udiv64_32(uint64_t n, uint32_t d)
{
#if UINTPTR_MAX > 0xFFFFFFFFu
    return n / d;
#else
    return qp__udiv64_32_long(n, d);
#endif
}

/* round(sqrt(v)) from r = floor(sqrt(v)) (qp_isqrt64): r + 1 when v - r^2 > r, that is
 * v > (r + 1/2)^2 - 1/4. */
static inline uint32_t qp__root_rounded(uint64_t v, uint32_t r)
{
    return v - (uint64_t)r * r > r && r != UINT32_MAX ? r + 1 : r;
}

/* qp_div: a/b in Q16.16, rounded half away from zero, saturating; b == 0 gives 0. */
static inline fix16_t qp__div(fix16_t a, fix16_t b)
{
    if (b == 0) return 0;
    int64_t num = (int64_t)a * 65536;
    int64_t half = (b < 0 ? -(int64_t)b : (int64_t)b) / 2;
    bool neg = (a < 0) != (b < 0);
    int64_t n = num < 0 ? -num : num;
    int64_t d = b < 0 ? -(int64_t)b : (int64_t)b;
    /* A quotient of 32-bit operands by a 32-bit division (a 64-bit one is a library call
     * on a Cortex-M): the same number. n + half < 2^48 and d < 2^32 always. */
    uint64_t top = (uint64_t)(n + half);
    int64_t q = top <= UINT32_MAX ? (int64_t)((uint32_t)top / (uint32_t)d) : (int64_t)qp__udiv64_32(top, (uint32_t)d);
    return qp__sat32(neg ? -q : q);
}

/* Round-shift by n (2..62) of a sum of up to four products of two int32, exact
 * although the sum may need 65 bits (math.c: round_sum4). */
static QP__HELPER_INLINE int64_t qp__round_sum4(int64_t p0, int64_t p1, int64_t p2, int64_t p3, int n)
{
#if defined(__GNUC__)
    /* Where the plain sum (and the half for rounding) fits in 64 bits, which is always
     * for unit directions or rotations times Q16.16 values: the same floor((sum + 2^(n-1))
     * / 2^n) as the split form below, with fewer 64-bit operations. */
    int64_t s;
    if (!__builtin_add_overflow(p0, p1, &s) && !__builtin_add_overflow(s, p2, &s) &&
        !__builtin_add_overflow(s, p3, &s) && !__builtin_add_overflow(s, (int64_t)1 << (n - 1), &s))
        return s >> n;
#endif
    int64_t hi = (p0 >> 2) + (p1 >> 2) + (p2 >> 2) + (p3 >> 2);
    int64_t lo = (p0 & 3) + (p1 & 3) + (p2 & 3) + (p3 & 3) + ((int64_t)1 << (n - 1));
    return (hi + (lo >> 2)) >> (n - 2);
}

/* qp_v3_dot_q30 */
static inline fix16_t qp__v3_dot_q30(qp_vec3 a, qp_vec3 u)
{
    return qp__sat32(qp__round_sum4((int64_t)a.x * u.x, (int64_t)a.y * u.y, (int64_t)a.z * u.z, 0, 30));
}

/* floor(v / 2^n + 1/2) for any int64 v and 1 <= n <= 62 (math.c: shift_round64). */
static QP__HELPER_INLINE int64_t qp__shift_round64(int64_t v, int n)
{
    return (v >> n) + ((v >> (n - 1)) & 1);
}

/* qp_v3_cross: each component a*b - c*d (products below 2^62), rounded once. */
static inline qp_vec3 qp__v3_cross(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(qp__sat32(qp__shift_round64((int64_t)a.y * b.z - (int64_t)a.z * b.y, 16)),
                 qp__sat32(qp__shift_round64((int64_t)a.z * b.x - (int64_t)a.x * b.z, 16)),
                 qp__sat32(qp__shift_round64((int64_t)a.x * b.y - (int64_t)a.y * b.x, 16)));
}

/* |v| saturated (qp_v3_abs's components) */
static inline fix16_t qp__abs_sat(fix16_t v)
{
#if QP__BRANCH_FREE   /* the sign of a component is a coin toss: negate by a mask */
    int64_t s = v >> 31, a = ((int64_t)v ^ s) - s;   /* |v|, exact in 64 bits */
    return a > INT32_MAX ? INT32_MAX : (fix16_t)a;
#else
    return v < 0 ? qp__sat32(-(int64_t)v) : v;
#endif
}

/* qp_v3_max_abs (integration checks it for every body, the narrow phase for every pair) */
static inline fix16_t qp__v3_max_abs(qp_vec3 a)
{
    fix16_t m = qp__abs_sat(a.x);
    fix16_t y = qp__abs_sat(a.y), z = qp__abs_sat(a.z);
    if (y > m) m = y;
    if (z > m) m = z;
    return m;
}

/* qp_v3_mad: a + b s, each component one rounding (prediction and integration, every body) */
static inline qp_vec3 qp__v3_mad(qp_vec3 a, qp_vec3 b, fix16_t s)
{
    const int64_t h = (int64_t)1 << 15;
    /* b = 0 (no force: gravity alone, at every body and every pair it is in): a, saturated. */
    if ((b.x | b.y | b.z) == 0) return qp_v3(qp__sat32(a.x), qp__sat32(a.y), qp__sat32(a.z));
    return qp_v3(qp__sat32((((int64_t)a.x * 65536) + (int64_t)b.x * s + h) >> 16),
                 qp__sat32((((int64_t)a.y * 65536) + (int64_t)b.y * s + h) >> 16),
                 qp__sat32((((int64_t)a.z * 65536) + (int64_t)b.z * s + h) >> 16));
}

/* qp_v3_add, qp_v3_sub */
static inline qp_vec3 qp__v3_add(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(qp__sat32((int64_t)a.x + b.x), qp__sat32((int64_t)a.y + b.y), qp__sat32((int64_t)a.z + b.z));
}
static inline qp_vec3 qp__v3_sub(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(qp__sat32((int64_t)a.x - b.x), qp__sat32((int64_t)a.y - b.y), qp__sat32((int64_t)a.z - b.z));
}

/* qp_mul, qp_v3_scale, qp_v3_neg, qp_v3_dot, qp_mat3_mul_v3 (the joint passes call them at
 * every row of every sweep). qp_mul rounds half up; solver.h's qp__mul, half away from zero. */
static inline fix16_t qp__mul_half_up(fix16_t a, fix16_t b)
{
    return qp__sat32(qp__shift_round64((int64_t)a * b, 16));
}
static inline qp_vec3 qp__v3_scale(qp_vec3 a, fix16_t s)
{
    return qp_v3(qp__mul_half_up(a.x, s), qp__mul_half_up(a.y, s), qp__mul_half_up(a.z, s));
}
static inline qp_vec3 qp__v3_neg(qp_vec3 a)
{
    return qp_v3(qp__sat32(-(int64_t)a.x), qp__sat32(-(int64_t)a.y), qp__sat32(-(int64_t)a.z));
}
static inline fix16_t qp__v3_dot(qp_vec3 a, qp_vec3 b)
{
    return qp__sat32(qp__round_sum4((int64_t)a.x * b.x, (int64_t)a.y * b.y, (int64_t)a.z * b.z, 0, 16));
}
static inline qp_vec3 qp__mat3_mul_v3(const qp_mat3 *a, qp_vec3 v)
{
    fix16_t o[3];
    for (int i = 0; i < 3; i++) o[i] = qp__v3_dot(qp_v3(a->m[i][0], a->m[i][1], a->m[i][2]), v);
    return qp_v3(o[0], o[1], o[2]);
}

/* qp_rot3_mul_v3: each component one exact sum of three products, rounded once. */
static inline qp_vec3 qp__rot3_mul_v3(const qp_rot3 *r, qp_vec3 v)
{
    fix16_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = qp__sat32(qp__round_sum4((int64_t)r->m[i][0] * v.x, (int64_t)r->m[i][1] * v.y,
                                        (int64_t)r->m[i][2] * v.z, 0, 30));
    return qp_v3(o[0], o[1], o[2]);
}

/* a and b bit for bit the same. */
static inline bool qp__same_quat(qp_quat a, qp_quat b)
{
    return ((a.w ^ b.w) | (a.x ^ b.x) | (a.y ^ b.y) | (a.z ^ b.z)) == 0;
}

/* True when qp_quat_integrate(q, w, dt) is q itself for any dt: no spin (w = 0) and q of
 * exactly unit length (|q|^2 = 2^60: the identity, the axes' half and quarter turns, a box
 * at rest on its face). Then the step adds nothing and qp_quat_normalize returns q: |q|^2
 * shifted once is 2^62, whose root 2^31 is exact, and each component times 2^31 divides by
 * it exactly. The four squares are at most 2^62 each: their sum wraps only past 2^64 - 1,
 * never onto 2^60. A body's rotation, its matrix and its world inverse inertia then stay. */
static inline bool qp__quat_stays(qp_quat q, qp_vec3 w)
{
    return (w.x | w.y | w.z) == 0 && (uint64_t)((int64_t)q.w * q.w) + (uint64_t)((int64_t)q.x * q.x) +
                                             (uint64_t)((int64_t)q.y * q.y) + (uint64_t)((int64_t)q.z * q.z) ==
                                         (uint64_t)1 << 60;
}

#endif
