/* SPDX-License-Identifier: MIT */
/* Fixed-point math layer (see include/qphys/math.h for forms and bounds).
 *
 * Every product goes through int64_t and is rounded once; sums of three or
 * four products are added exactly (round_sum4). Negative values are never
 * shifted left (undefined behaviour in C): scaling up is a multiply. Right
 * shifts of negative int64 are arithmetic and `& 3` of a negative int64 gives
 * its two's complement low bits on every compiler we target (gcc, clang;
 * implementation-defined before C23, checked by the probe hashes on the host
 * and on Cortex-M0/M3/M7). tests/unit/test_math.c checks every bound.
 */
#include "qphys/math.h"
#include "bench_count.h"
#include "math_inline.h"

#if QP_BENCH_COUNT
qp__bench_counts qp__counts;
#endif

int32_t qp_sat32(int64_t v)
{
    return qp__sat32(v);
}

/* floor(v / 2^n + 1/2) for any int64 v and 1 <= n <= 62: the same value as
 * (v + 2^(n-1)) >> n, without the addition that overflows near INT64_MAX. */
static int64_t shift_round64(int64_t v, int n)
{
    return qp__shift_round64(v, n);
}

int32_t qp_shift_round(int64_t v, int n)
{
    return qp_sat32(shift_round64(v, n));
}

/* Round-shift of a sum of up to four products of two int32 (|p| <= 2^62),
 * exact for every input although the sum may need 65 bits: each term is split
 * into p = 4 (p >> 2) + (p & 3); the quarters sum to at most 2^62 and the
 * remainders are added back before the shift. 2 <= n <= 62; the result is
 * not saturated (|result| < 2^(65 - n)). */
static int64_t round_sum4(int64_t p0, int64_t p1, int64_t p2, int64_t p3, int n)
{
    return qp__round_sum4(p0, p1, p2, p3, n);
}

static int32_t round_sum3_sat(int64_t p0, int64_t p1, int64_t p2, int n)
{
    return qp_sat32(round_sum4(p0, p1, p2, 0, n));
}

fix16_t qp_mul(fix16_t a, fix16_t b)
{
    return qp__mul_half_up(a, b);
}

fix16_t qp_div(fix16_t a, fix16_t b)
{
    return qp__div(a, b);   /* round half away from zero on the magnitude, then the sign */
}

fix16_t qp_mul_q30(fix16_t a, qp_q30 u)
{
    return qp_shift_round((int64_t)a * u, 30);
}

/* sqrt((i + 1/2) 2^24) rounded, for i = 64..255: a first guess at the root of a
 * 32-bit value whose top byte is i (tools: isqrt(4 y) + 1 >> 1 with y = (2i+1) 2^23). */
static const uint16_t sqrt_guess[192] = {
    32896, 33150, 33402, 33652, 33900, 34147, 34392, 34635, 34876, 35116, 35354, 35590,
    35825, 36059, 36291, 36521, 36750, 36978, 37204, 37429, 37652, 37874, 38095, 38315,
    38533, 38750, 38966, 39181, 39394, 39606, 39818, 40028, 40237, 40445, 40652, 40857,
    41062, 41266, 41469, 41671, 41871, 42071, 42270, 42468, 42665, 42861, 43057, 43251,
    43445, 43637, 43829, 44020, 44210, 44400, 44588, 44776, 44963, 45149, 45334, 45519,
    45703, 45886, 46069, 46250, 46431, 46612, 46791, 46970, 47149, 47326, 47503, 47679,
    47855, 48030, 48204, 48378, 48551, 48723, 48895, 49067, 49237, 49407, 49577, 49746,
    49914, 50082, 50249, 50416, 50582, 50747, 50912, 51077, 51241, 51404, 51567, 51730,
    51892, 52053, 52214, 52374, 52534, 52694, 52853, 53011, 53169, 53327, 53484, 53640,
    53797, 53952, 54108, 54262, 54417, 54571, 54724, 54877, 55030, 55182, 55334, 55485,
    55636, 55787, 55937, 56087, 56236, 56385, 56534, 56682, 56830, 56977, 57124, 57271,
    57417, 57563, 57709, 57854, 57999, 58143, 58287, 58431, 58574, 58717, 58860, 59002,
    59144, 59286, 59427, 59568, 59709, 59849, 59989, 60129, 60268, 60407, 60546, 60684,
    60822, 60960, 61098, 61235, 61372, 61508, 61644, 61780, 61916, 62051, 62186, 62321,
    62456, 62590, 62724, 62857, 62991, 63124, 63256, 63389, 63521, 63653, 63785, 63916,
    64047, 64178, 64309, 64439, 64569, 64699, 64828, 64957, 65086, 65215, 65344, 65472,
};

/* floor(sqrt(x)) for 2^30 <= x < 2^32. The guess is within 2^-8 of the root, one
 * Newton step takes that to 2^-17 (below 1 LSB plus rounding) from above: for any
 * r > 0, floor((r + floor(x / r)) / 2) >= floor(sqrt(x)) (AM-GM, in integers), so
 * what is left is one or two steps down, checked with a 64-bit square. */
static uint32_t isqrt32_top(uint32_t x)
{
    uint32_t r = sqrt_guess[(x >> 24) - 64u];
    r = (r + x / r) >> 1;
    while ((uint64_t)r * r > x) r--;
    return r;
}

/* floor(sqrt(v)) for any 64-bit v, exactly. v is shifted left by an even amount
 * 2k into m in [2^62, 2^64), whose floor root s gives floor(sqrt(v)) = s >> k
 * (floor(floor(sqrt(v) 2^k) / 2^k) = floor(sqrt(v))). s is found a digit of 16 bits
 * at a time, as in long division: a = isqrt(top 32 bits of m) * 2^16 <= s, then
 * q = floor((m - a^2) / 2a) is never below s - a (from (a + q)^2 <= m) and at most
 * two above it (from m < (s + 1)^2 and s - a <= 2^16 + 1), so s = a + q less at most two
 * steps down, checked with a 64-bit square. Only 32-bit divisions (one instruction
 * on the Cortex-M3/M4/M7). A v below 2^32 is shifted by 2k into [2^30, 2^32) instead,
 * and its floor root there (isqrt32_top) shifted right by k is floor(sqrt(v)) by the
 * same argument, without the second digit (checked on all 2^32 such v).
 * The old bit-by-bit loop took 393 instructions on the Cortex-M4; tests/unit/test_math.c
 * compares the two on 10^7 inputs. */
uint32_t qp_isqrt64(uint64_t v)
{
    QP__COUNT(isqrt, 1);
    if (v == 0) return 0;
    if (v >> 32 == 0) {   /* lengths below 1 m (a contact's points from its centroid) */
        int k = __builtin_clz((uint32_t)v) >> 1;
        return isqrt32_top((uint32_t)v << (2 * k)) >> k;
    }
    int k = __builtin_clzll(v) >> 1;
    uint64_t m = v << (2 * k);
    uint32_t x = (uint32_t)(m >> 32);
    uint32_t r = isqrt32_top(x);
    /* m - (r 2^16)^2 = (x - r^2) 2^32 + low word < (2r + 1) 2^32: shifted by 17 it
     * fits 32 bits; dividing by r then gives floor((m - a^2) / 2a). */
    uint64_t rem = ((uint64_t)(x - r * r) << 32) | (uint32_t)m;
    uint64_t s = ((uint64_t)r << 16) + (uint32_t)(rem >> 17) / r;
    if (s > UINT32_MAX) s = UINT32_MAX;
    while (s * s > m) s--;
    return (uint32_t)(s >> k);
}

/* Rounded square root of a 64-bit value. */
static uint32_t isqrt64_round(uint64_t v)
{
    return qp__root_rounded(v, qp_isqrt64(v));
}

fix16_t qp_sqrt(fix16_t x)
{
    if (x <= 0) return 0;
    return (fix16_t)isqrt64_round((uint64_t)x << 16);
}

qp_q30 qp_q30_from_fix(fix16_t a)
{
    return qp_sat32((int64_t)a * 16384);
}

fix16_t qp_fix_from_q30(qp_q30 u)
{
    return qp_shift_round(u, 14);
}

/* pi/2 with 40 fractional bits (rounded), and the rest of pi/2 * 2^40 in units
 * of 2^-24 (Cody-Waite): k * pi/2 is subtracted with an error below 2^-48 rad
 * for every k that a Q16.16 angle can reach (|k| < 2^15). */
#define HALF_PI_Q40  INT64_C(1727108826179)
#define HALF_PI_LO   INT64_C(-3046294)       /* (pi/2 * 2^40 - HALF_PI_Q40) * 2^24 */

/* Round-to-nearest v / d for v >= 0, d > 0. */
static int64_t div_round_pos(int64_t v, int64_t d)
{
    return (v + d / 2) / d;
}

/* sin and cos of x (Q1.31, |x| <= pi/4 + 2^-20) in Q2.30, by Taylor series
 * to x^11 and x^12 (the first omitted terms are below 1e-11); every Horner
 * step rounds once. */
static void sincos_small(int64_t x, int64_t *s, int64_t *c)
{
    int64_t x2 = shift_round64(x * x, 32);           /* Q30, <= 0.62 */
    const int64_t one = QP_Q30_ONE, q30 = (int64_t)1 << 30;
    /* sin = x(1 - x2/6(1 - x2/20(1 - x2/42(1 - x2/72(1 - x2/110))))) */
    int64_t t = one - div_round_pos(x2, 110);
    t = one - div_round_pos(x2 * t, 72 * q30);
    t = one - div_round_pos(x2 * t, 42 * q30);
    t = one - div_round_pos(x2 * t, 20 * q30);
    t = one - div_round_pos(x2 * t, 6 * q30);
    *s = shift_round64(x * t, 31);
    /* cos = 1 - x2/2(1 - x2/12(1 - x2/30(1 - x2/56(1 - x2/90(1 - x2/132))))) */
    t = one - div_round_pos(x2, 132);
    t = one - div_round_pos(x2 * t, 90 * q30);
    t = one - div_round_pos(x2 * t, 56 * q30);
    t = one - div_round_pos(x2 * t, 30 * q30);
    t = one - div_round_pos(x2 * t, 12 * q30);
    *c = one - div_round_pos(x2 * t, 2 * q30);
}

/* Reduce an angle in Q24.40 (|a| <= 2^56) to x in [-pi/4, pi/4] (Q1.31) and
 * a quadrant 0..3: a = x + quadrant * pi/2 (mod 2 pi). */
static int64_t reduce_angle(int64_t a, int *quadrant)
{
    int64_t k = a >= 0 ? (a + HALF_PI_Q40 / 2) / HALF_PI_Q40 : -((-a + HALF_PI_Q40 / 2) / HALF_PI_Q40);
    int64_t r = a - k * HALF_PI_Q40 - shift_round64(k * HALF_PI_LO, 24);
    *quadrant = (int)(((k % 4) + 4) % 4);
    return shift_round64(r, 9);
}

/* sin and cos of an angle in Q24.40. */
static void sincos_q40(int64_t a, qp_q30 *sin_out, qp_q30 *cos_out)
{
    int q;
    int64_t s, c;
    sincos_small(reduce_angle(a, &q), &s, &c);
    switch (q) {
    case 0: *sin_out = qp_sat32(s); *cos_out = qp_sat32(c); break;
    case 1: *sin_out = qp_sat32(c); *cos_out = qp_sat32(-s); break;
    case 2: *sin_out = qp_sat32(-s); *cos_out = qp_sat32(-c); break;
    default: *sin_out = qp_sat32(-c); *cos_out = qp_sat32(s); break;
    }
}

qp_q30 qp_sin_q30(fix16_t angle)
{
    qp_q30 s, c;
    sincos_q40((int64_t)angle * ((int64_t)1 << 24), &s, &c);
    return s;
}

qp_q30 qp_cos_q30(fix16_t angle)
{
    qp_q30 s, c;
    sincos_q40((int64_t)angle * ((int64_t)1 << 24), &s, &c);
    return c;
}

fix16_t qp_deg_to_rad(fix16_t deg)
{
    /* pi/180 in Q48 = 74961320 * 2^16 + 38055.3: the high part in one
     * product, the low 16 bits in a second one, rounded, then one rounding. */
    int64_t hi = (int64_t)deg * INT64_C(74961320);           /* < 2^58 */
    int64_t lo = shift_round64((int64_t)deg * INT64_C(38055), 16);
    return qp_shift_round(hi + lo, 32);
}

/* ---- vectors ----------------------------------------------------------- */

qp_vec3 qp_v3_add(qp_vec3 a, qp_vec3 b)
{
    return qp__v3_add(a, b);
}

qp_vec3 qp_v3_sub(qp_vec3 a, qp_vec3 b)
{
    return qp__v3_sub(a, b);
}

qp_vec3 qp_v3_neg(qp_vec3 a)
{
    return qp__v3_neg(a);
}

qp_vec3 qp_v3_scale(qp_vec3 a, fix16_t s)
{
    return qp__v3_scale(a, s);
}

qp_vec3 qp_v3_mad(qp_vec3 a, qp_vec3 b, fix16_t s)
{
    return qp__v3_mad(a, b, s);
}

qp_vec3 qp_v3_scale_q30(qp_vec3 a, qp_q30 u)
{
    return qp_v3(qp_mul_q30(a.x, u), qp_mul_q30(a.y, u), qp_mul_q30(a.z, u));
}

int64_t qp_v3_dot_wide(qp_vec3 a, qp_vec3 b)
{
    /* Each product is within [-2^62 + 2^31, 2^62]; their sum may need 65 bits:
     * sum the quarters (exact, within 2^62) and the remainders apart. */
    int64_t p0 = (int64_t)a.x * b.x, p1 = (int64_t)a.y * b.y, p2 = (int64_t)a.z * b.z;
    int64_t hi = (p0 >> 2) + (p1 >> 2) + (p2 >> 2);
    int64_t lo = (p0 & 3) + (p1 & 3) + (p2 & 3);   /* 0..9 */
    if (hi > (INT64_MAX - lo) / 4) return INT64_MAX;
    if (hi < INT64_MIN / 4) return INT64_MIN;
    return hi * 4 + lo;
}

fix16_t qp_v3_dot(qp_vec3 a, qp_vec3 b)
{
    return qp__v3_dot(a, b);
}

qp_vec3 qp_v3_cross(qp_vec3 a, qp_vec3 b)
{
    return qp__v3_cross(a, b);
}

/* Sum of squares as unsigned 64-bit: exact for every input (< 3 * 2^62). */
static uint64_t len_sq_u64(qp_vec3 a)
{
    return (uint64_t)((int64_t)a.x * a.x) + (uint64_t)((int64_t)a.y * a.y) +
           (uint64_t)((int64_t)a.z * a.z);
}

fix16_t qp_v3_len(qp_vec3 a)
{
    /* sqrt of a Q32.32 sum is Q16.16 directly. */
    uint32_t r = isqrt64_round(len_sq_u64(a));
    return r > (uint32_t)INT32_MAX ? QP_FIX_MAX : (fix16_t)r;
}

/* Divide a component (Q16.16) by a length given as sqrt of a Q32.32 sum with
 * extra precision: the length is computed in Q(16+e) for the best precision the
 * 64-bit range allows, and the quotient is formed in Q(frac). */
static bool normalize_to(qp_vec3 a, int frac, qp_vec3 *out)
{
    uint64_t s = len_sq_u64(a);
    if (s == 0) {
        *out = qp_v3_zero();
        return false;
    }
    /* Scale the sum up by 4^k as far as it fits, so the root keeps more bits. */
    int k = 0;
    while (k < 31 && s < ((uint64_t)1 << 61)) {
        s <<= 2;
        k++;
    }
    uint64_t len = isqrt64_round(s);  /* = |a| * 2^(16 + k) (raw), >= 2^30.5 */
    /* component / |a| * 2^frac = c * 2^(frac + k) / len, with c the raw
     * component: |c| 2^k < 2^31.5 by the loop, so the numerator is < 2^61.5. */
    int64_t comp[3] = { a.x, a.y, a.z };
    fix16_t res[3];
    for (int i = 0; i < 3; i++) {
        if (comp[i] == 0) {   /* (0 + len / 2) / len: 0, without the division */
            res[i] = 0;
            continue;
        }
        int64_t n = comp[i] * ((int64_t)1 << (frac + k));
#if QP__BRANCH_FREE   /* a component's sign is a coin toss: negate by a mask */
        const int64_t neg = n >> 63;
        int64_t q = (int64_t)qp__udiv64_32((uint64_t)(((n ^ neg) - neg) + (int64_t)(len / 2)), (uint32_t)len);
        res[i] = qp_sat32((q ^ neg) - neg);
#else
        int64_t mag = n < 0 ? -n : n;
        int64_t q = (int64_t)qp__udiv64_32((uint64_t)(mag + (int64_t)(len / 2)), (uint32_t)len);
        res[i] = qp_sat32(n < 0 ? -q : q);
#endif
    }
    *out = qp_v3(res[0], res[1], res[2]);
    return true;
}

bool qp_v3_normalize_q30(qp_vec3 a, qp_vec3 *out)
{
    return normalize_to(a, 30, out);
}

bool qp_v3_normalize(qp_vec3 a, qp_vec3 *out)
{
    return normalize_to(a, 16, out);
}

qp_vec3 qp_v3_min(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}

qp_vec3 qp_v3_max(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

qp_vec3 qp_v3_abs(qp_vec3 a)
{
    return qp_v3(qp__abs_sat(a.x), qp__abs_sat(a.y), qp__abs_sat(a.z));
}

fix16_t qp_v3_max_abs(qp_vec3 a)
{
    return qp__v3_max_abs(a);
}

fix16_t qp_v3_dot_q30(qp_vec3 a, qp_vec3 u)
{
    return qp__v3_dot_q30(a, u);
}

qp_vec3 qp_v3_cross_q30(qp_vec3 a, qp_vec3 u)
{
    return qp_v3(qp_shift_round((int64_t)a.y * u.z - (int64_t)a.z * u.y, 30),
                 qp_shift_round((int64_t)a.z * u.x - (int64_t)a.x * u.z, 30),
                 qp_shift_round((int64_t)a.x * u.y - (int64_t)a.y * u.x, 30));
}

qp_vec3 qp_v3_from_q30(qp_vec3 u)
{
    return qp_v3(qp_fix_from_q30(u.x), qp_fix_from_q30(u.y), qp_fix_from_q30(u.z));
}

qp_vec3 qp_v3_to_q30(qp_vec3 a)
{
    return qp_v3(qp_q30_from_fix(a.x), qp_q30_from_fix(a.y), qp_q30_from_fix(a.z));
}

/* ---- quaternions --------------------------------------------------------- */

qp_quat qp_quat_mul(qp_quat a, qp_quat b)
{
    /* Exact sums of four products (up to 2^64 for components near +-2), one
     * rounding each, saturated. */
    qp_quat r;
    r.w = qp_sat32(round_sum4((int64_t)a.w * b.w, -((int64_t)a.x * b.x), -((int64_t)a.y * b.y), -((int64_t)a.z * b.z), 30));
    r.x = qp_sat32(round_sum4((int64_t)a.w * b.x, (int64_t)a.x * b.w, (int64_t)a.y * b.z, -((int64_t)a.z * b.y), 30));
    r.y = qp_sat32(round_sum4((int64_t)a.w * b.y, -((int64_t)a.x * b.z), (int64_t)a.y * b.w, (int64_t)a.z * b.x, 30));
    r.z = qp_sat32(round_sum4((int64_t)a.w * b.z, (int64_t)a.x * b.y, -((int64_t)a.y * b.x), (int64_t)a.z * b.w, 30));
    return r;
}

qp_quat qp_quat_conj(qp_quat q)
{
    qp_quat r = { q.w, qp_sat32(-(int64_t)q.x), qp_sat32(-(int64_t)q.y), qp_sat32(-(int64_t)q.z) };
    return r;
}

bool qp_quat_normalize(qp_quat q, qp_quat *out)
{
    int64_t c[4] = { q.w, q.x, q.y, q.z };
    if (q.w == 0 && q.x == 0 && q.y == 0 && q.z == 0) {
        *out = qp_quat_identity();
        return false;
    }
    /* Sum of squares in Q4.60: up to 4 * 2^62 = 2^64, one more than uint64
     * holds. floor(sum / 4) always fits: use it when |q|^2 >= 8. */
    uint64_t sq[4], quarter = 0, rem = 0;
    for (int i = 0; i < 4; i++) {
        sq[i] = (uint64_t)(c[i] * c[i]);
        quarter += sq[i] >> 2;
        rem += sq[i] & 3;
    }
    quarter += rem >> 2;
    uint64_t s;
    int k;                                   /* the root is |q| in Q(30 + k) */
    if (quarter >= ((uint64_t)1 << 61)) {
        s = quarter;
        k = -1;
    } else {
        s = sq[0] + sq[1] + sq[2] + sq[3];   /* < 2^63 + 4 */
        /* Use the most bits the 64-bit range allows for the length. */
        k = 0;
        while (k < 31 && s < ((uint64_t)1 << 61)) {
            s <<= 2;
            k++;
        }
    }
    int64_t len = (int64_t)isqrt64_round(s);   /* >= 2^30.5 */
    int32_t r[4];
    for (int i = 0; i < 4; i++) {
        /* |c| 2^k < 2^31.5 by the loop: n < 2^61.5 */
        int64_t n = k < 0 ? c[i] * ((int64_t)1 << 29) : c[i] * ((int64_t)1 << (30 + k));
#if QP__BRANCH_FREE   /* a component's sign is a coin toss: negate by a mask */
        const int64_t neg = n >> 63;
        int64_t v = (int64_t)qp__udiv64_32((uint64_t)(((n ^ neg) - neg) + len / 2), (uint32_t)len);  /* len < 2^32 */
        r[i] = qp_sat32((v ^ neg) - neg);
#else
        int64_t mag = n < 0 ? -n : n;
        int64_t v = (int64_t)qp__udiv64_32((uint64_t)(mag + len / 2), (uint32_t)len);  /* len < 2^32 */
        r[i] = qp_sat32(n < 0 ? -v : v);
#endif
    }
    qp_quat o = { r[0], r[1], r[2], r[3] };
    *out = o;
    return true;
}

bool qp_quat_from_axis_angle(qp_vec3 axis, fix16_t angle, qp_quat *out)
{
    qp_vec3 u;
    if (!qp_v3_normalize_q30(axis, &u)) {
        *out = qp_quat_identity();
        return false;
    }
    /* The half angle exactly: angle * 2^24 / 2 in Q24.40. */
    qp_q30 s, c;
    sincos_q40((int64_t)angle * ((int64_t)1 << 23), &s, &c);
    qp_quat q = { c, qp_shift_round((int64_t)u.x * s, 30), qp_shift_round((int64_t)u.y * s, 30),
                  qp_shift_round((int64_t)u.z * s, 30) };
    return qp_quat_normalize(q, out);
}

/* Clamp w * dt (raw Q32.32, radians) to +-0.5 rad per component, so that
 * every product with a Q2.30 component stays within 2^62. */
static int64_t clamp_q32_half(int64_t v)
{
    const int64_t half = (int64_t)1 << 31;
    return v > half ? half : v < -half ? -half : v;
}

qp_quat qp_quat_integrate(qp_quat q, qp_vec3 w, fix16_t dt)
{
    /* a = w * dt, exact in Q32 (Q16 * Q16), clamped to +-0.5 rad per
     * component (the engine stays far below). dq = (0, a/2) * q: each
     * component is one exact sum of three Q62 products (a * q), rounded once
     * to Q30 with the halving folded into the shift (33). Rounding h = a/2 to
     * Q30 first would tilt the axis by a repeated 0.5 LSB per step. */
    int64_t ax = clamp_q32_half((int64_t)w.x * dt);
    int64_t ay = clamp_q32_half((int64_t)w.y * dt);
    int64_t az = clamp_q32_half((int64_t)w.z * dt);
    int64_t dw = round_sum4(-(ax * q.x), -(ay * q.y), -(az * q.z), 0, 33);
    int64_t dx = round_sum4(ax * q.w, ay * q.z, -(az * q.y), 0, 33);
    int64_t dy = round_sum4(ay * q.w, az * q.x, -(ax * q.z), 0, 33);
    int64_t dz = round_sum4(az * q.w, ax * q.y, -(ay * q.x), 0, 33);
    qp_quat r = { qp_sat32(q.w + dw), qp_sat32(q.x + dx), qp_sat32(q.y + dy), qp_sat32(q.z + dz) };
    qp_quat n;
    if (!qp_quat_normalize(r, &n)) return q;
    return n;
}

qp_rot3 qp_quat_to_rot3(qp_quat q)
{
    /* Products in Q60; sums of two (up to 2^63 for components near +-2) are
     * rounded exactly by round_sum4; result 1 - 2(...) in Q30. */
    int64_t xx = (int64_t)q.x * q.x, yy = (int64_t)q.y * q.y, zz = (int64_t)q.z * q.z;
    int64_t xy = (int64_t)q.x * q.y, xz = (int64_t)q.x * q.z, yz = (int64_t)q.y * q.z;
    int64_t wx = (int64_t)q.w * q.x, wy = (int64_t)q.w * q.y, wz = (int64_t)q.w * q.z;
    qp_rot3 r;
    /* A unit quaternion (|q|^2 <= 2^60 + 2^40, as qp_quat_normalize leaves them; components
     * below 2^30 + 2^20 first, so that the sum of squares cannot wrap): every sum of two
     * products is at most |q|^2 in magnitude, so round_sum4's overflow checks and the clamps
     * cannot act; the same floor((s + 2^28) / 2^29), fewer instructions. */
    const uint32_t lim = ((uint32_t)1 << 30) + ((uint32_t)1 << 20);
    const bool near = (uint32_t)q.w + lim < 2 * lim && (uint32_t)q.x + lim < 2 * lim && (uint32_t)q.y + lim < 2 * lim &&
                      (uint32_t)q.z + lim < 2 * lim;
    if (near && (uint64_t)((int64_t)q.w * q.w) + (uint64_t)xx + (uint64_t)yy + (uint64_t)zz <=
                    ((uint64_t)1 << 60) + ((uint64_t)1 << 40)) {
        const int64_t h = (int64_t)1 << 28;
        r.m[0][0] = (int32_t)(QP_Q30_ONE - ((yy + zz + h) >> 29));
        r.m[0][1] = (int32_t)((xy - wz + h) >> 29);
        r.m[0][2] = (int32_t)((xz + wy + h) >> 29);
        r.m[1][0] = (int32_t)((xy + wz + h) >> 29);
        r.m[1][1] = (int32_t)(QP_Q30_ONE - ((xx + zz + h) >> 29));
        r.m[1][2] = (int32_t)((yz - wx + h) >> 29);
        r.m[2][0] = (int32_t)((xz - wy + h) >> 29);
        r.m[2][1] = (int32_t)((yz + wx + h) >> 29);
        r.m[2][2] = (int32_t)(QP_Q30_ONE - ((xx + yy + h) >> 29));
        return r;
    }
    r.m[0][0] = qp_sat32(QP_Q30_ONE - round_sum4(yy, zz, 0, 0, 29));
    r.m[0][1] = qp_sat32(round_sum4(xy, -wz, 0, 0, 29));
    r.m[0][2] = qp_sat32(round_sum4(xz, wy, 0, 0, 29));
    r.m[1][0] = qp_sat32(round_sum4(xy, wz, 0, 0, 29));
    r.m[1][1] = qp_sat32(QP_Q30_ONE - round_sum4(xx, zz, 0, 0, 29));
    r.m[1][2] = qp_sat32(round_sum4(yz, -wx, 0, 0, 29));
    r.m[2][0] = qp_sat32(round_sum4(xz, -wy, 0, 0, 29));
    r.m[2][1] = qp_sat32(round_sum4(yz, wx, 0, 0, 29));
    r.m[2][2] = qp_sat32(QP_Q30_ONE - round_sum4(xx, yy, 0, 0, 29));
    return r;
}

qp_vec3 qp_quat_rotate(qp_quat q, qp_vec3 v)
{
    qp_rot3 r = qp_quat_to_rot3(q);
    return qp_rot3_mul_v3(&r, v);
}

/* ---- rotation matrices ----------------------------------------------------- */

qp_rot3 qp_rot3_identity(void)
{
    qp_rot3 r = { { { QP_Q30_ONE, 0, 0 }, { 0, QP_Q30_ONE, 0 }, { 0, 0, QP_Q30_ONE } } };
    return r;
}

qp_vec3 qp_rot3_mul_v3(const qp_rot3 *r, qp_vec3 v)
{
    return qp__rot3_mul_v3(r, v);
}

qp_vec3 qp_rot3_tmul_v3(const qp_rot3 *r, qp_vec3 v)
{
    fix16_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = round_sum3_sat((int64_t)r->m[0][i] * v.x, (int64_t)r->m[1][i] * v.y,
                              (int64_t)r->m[2][i] * v.z, 30);
    return qp_v3(o[0], o[1], o[2]);
}

qp_rot3 qp_rot3_mul(const qp_rot3 *a, const qp_rot3 *b)
{
    qp_rot3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = round_sum3_sat((int64_t)a->m[i][0] * b->m[0][j], (int64_t)a->m[i][1] * b->m[1][j],
                                       (int64_t)a->m[i][2] * b->m[2][j], 30);
    return r;
}

qp_rot3 qp_rot3_tmul(const qp_rot3 *a, const qp_rot3 *b)
{
    qp_rot3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = round_sum3_sat((int64_t)a->m[0][i] * b->m[0][j], (int64_t)a->m[1][i] * b->m[1][j],
                                       (int64_t)a->m[2][i] * b->m[2][j], 30);
    return r;
}

qp_rot3 qp_rot3_transpose(const qp_rot3 *r)
{
    qp_rot3 t;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t.m[i][j] = r->m[j][i];
    return t;
}

qp_vec3 qp_rot3_col(const qp_rot3 *r, int i)
{
    return qp_v3(r->m[0][i], r->m[1][i], r->m[2][i]);
}

qp_vec3 qp_rot3_row(const qp_rot3 *r, int i)
{
    return qp_v3(r->m[i][0], r->m[i][1], r->m[i][2]);
}

/* ---- general matrices ------------------------------------------------------ */

qp_mat3 qp_mat3_zero(void)
{
    qp_mat3 m = { { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } } };
    return m;
}

qp_mat3 qp_mat3_diag(fix16_t a, fix16_t b, fix16_t c)
{
    qp_mat3 m = { { { a, 0, 0 }, { 0, b, 0 }, { 0, 0, c } } };
    return m;
}

qp_mat3 qp_mat3_mul(const qp_mat3 *a, const qp_mat3 *b)
{
    qp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = round_sum3_sat((int64_t)a->m[i][0] * b->m[0][j], (int64_t)a->m[i][1] * b->m[1][j],
                                       (int64_t)a->m[i][2] * b->m[2][j], 16);
    return r;
}

qp_mat3 qp_mat3_transpose(const qp_mat3 *a)
{
    qp_mat3 t;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t.m[i][j] = a->m[j][i];
    return t;
}

qp_vec3 qp_mat3_mul_v3(const qp_mat3 *a, qp_vec3 v)
{
    return qp__mat3_mul_v3(a, v);
}

qp_mat3 qp_mat3_add(const qp_mat3 *a, const qp_mat3 *b)
{
    qp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = qp_sat32((int64_t)a->m[i][j] + b->m[i][j]);
    return r;
}

/* Unsigned 128-bit values as two halves, for the exact determinant. */
typedef struct {
    uint64_t hi, lo;
} u128;

static u128 u128_add(u128 a, u128 b)
{
    u128 r = { a.hi + b.hi, a.lo + b.lo };
    if (r.lo < a.lo) r.hi++;
    return r;
}

static u128 u128_sub(u128 a, u128 b)
{
    u128 r = { a.hi - b.hi, a.lo - b.lo };
    if (a.lo < b.lo) r.hi--;
    return r;
}

static u128 u128_neg(u128 a)
{
    u128 z = { 0, 0 };
    return u128_sub(z, a);
}

static bool u128_ge(u128 a, u128 b)
{
    return a.hi != b.hi ? a.hi > b.hi : a.lo >= b.lo;
}

/* a << s for 0 <= s <= 63. */
static u128 u128_shl(u128 a, int s)
{
    if (s == 0) return a;
    u128 r = { (a.hi << s) | (a.lo >> (64 - s)), a.lo << s };
    return r;
}

static uint64_t mag64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* m * c exactly, as a two's complement 128-bit value (|m| <= 2^31, |c| < 2^63). */
static u128 mul_32x64(int32_t m, int64_t c)
{
    uint64_t am = mag64(m), ac = mag64(c);
    uint64_t lo = am * (ac & 0xFFFFFFFFu), hi = am * (ac >> 32);   /* each < 2^63 */
    u128 a = { hi >> 32, hi << 32 }, b = { 0, lo };
    u128 r = u128_add(a, b);
    return ((m < 0) != (c < 0)) ? u128_neg(r) : r;
}

/* num / d for num < d 2^31, rounded half away from zero (the two are magnitudes): up to
 * 2^31. One 128-bit division where the compiler has 128-bit integers (64-bit hosts, wasm32),
 * else long division: the same quotient, exactly. The joint solve inverts a few 3x3 matrices
 * per joint a step, and the long division costs 12 % of a chain's step on x86-64. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 qp__uwide;

static uint32_t quotient31(u128 num, u128 d)
{
    const qp__uwide n = ((qp__uwide)num.hi << 64) | num.lo, dd = ((qp__uwide)d.hi << 64) | d.lo;
    const qp__uwide q = n / dd, rem = n - q * dd;   /* q < 2^31, rem < d < 2^96 */
    return (uint32_t)q + (rem * 2 >= dd);
}
#else
/* a >> 1. */
static u128 u128_shr1(u128 a)
{
    u128 r = { a.hi >> 1, (a.lo >> 1) | (a.hi << 63) };
    return r;
}

/* Each step's divisor d 2^b is the last one halved, exactly (its low bits are zeros): one
 * shift by a constant a step, not one by b (a 32-bit core takes a few instructions a word for
 * the one, and a branch and two shifts a word for the other). */
static uint32_t quotient31(u128 rem, u128 d)
{
    uint32_t q = 0;
    u128 t = u128_shl(d, 30);
    for (int b = 30; b >= 0; b--) {
        if (u128_ge(rem, t)) {
            rem = u128_sub(rem, t);
            q |= (uint32_t)1 << b;
        }
        t = u128_shr1(t);
    }
    return q + u128_ge(u128_shl(rem, 1), d);   /* remainder >= det / 2 */
}
#endif

bool qp_mat3_inverse(const qp_mat3 *a, qp_mat3 *out)
{
    /* Cofactors as exact raw Q32.32: each a difference of two products of
     * int32, within +-(2^63 - 2^31). */
    const fix16_t (*m)[3] = a->m;
    int64_t c[3][3];
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            /* Cyclic indices give the signed cofactor directly. */
            c[i][j] = (int64_t)m[i1][j1] * m[i2][j2] - (int64_t)m[i1][j2] * m[i2][j1];
        }
    }
    /* det = sum_j m[0][j] c[0][j], exact in Q48 (below 3 * 2^94, in 128 bits). */
    u128 det = { 0, 0 };
    for (int j = 0; j < 3; j++) det = u128_add(det, mul_32x64(m[0][j], c[0][j]));
    bool det_neg = (det.hi >> 63) != 0;
    u128 d = det_neg ? u128_neg(det) : det;
    if (d.hi == 0 && d.lo == 0) return false;
    /* inverse[j][i] = c[i][j] / det: in raw Q16.16 that is c * 2^32 / det,
     * correctly rounded (half away from zero) by long division. */
    u128 d31 = u128_shl(d, 31);   /* < 2^127 */
    qp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            uint64_t n = mag64(c[i][j]);
            u128 rem = { n >> 32, n << 32 };
            if (u128_ge(rem, d31)) return false;   /* |entry| >= 32768 */
            uint32_t q = quotient31(rem, d);
            if (q > (uint32_t)INT32_MAX) return false;
            r.m[j][i] = ((c[i][j] < 0) != det_neg) ? -(fix16_t)q : (fix16_t)q;
        }
    *out = r;
    return true;
}

/* Is a symmetric and positive definite (Sylvester: its leading minors are positive), exactly?
 * The 2 x 2 minor is a difference of two int32 products; the determinant is summed in 128
 * bits as qp_mat3_inverse does. A restored inverse inertia must be one (snapshot.c). */
bool qp__mat3_positive_definite(const qp_mat3 *a)
{
    const fix16_t (*m)[3] = a->m;
    if (m[0][1] != m[1][0] || m[0][2] != m[2][0] || m[1][2] != m[2][1]) return false;
    if (m[0][0] <= 0 || (int64_t)m[0][0] * m[1][1] - (int64_t)m[0][1] * m[1][0] <= 0) return false;
    u128 det = { 0, 0 };
    for (int j = 0; j < 3; j++) {
        int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
        det = u128_add(det, mul_32x64(m[0][j], (int64_t)m[1][j1] * m[2][j2] - (int64_t)m[1][j2] * m[2][j1]));
    }
    return (det.hi >> 63) == 0 && (det.hi | det.lo) != 0;
}

qp_mat3 qp_mat3_rotate(const qp_rot3 *r, const qp_mat3 *m)
{
    /* t = M R^T rounded once to Q16.16, then R t rounded once; every sum of
     * products exact (round_sum4), so any input saturates instead of wrapping. */
    qp_mat3 t, o;
    /* A diagonal M (a box's, a sphere's or a capsule's inertia in its own frame: every body's
     * at every step where the world keeps its world inertia) adds two zero products to each
     * sum of the first product, which change no sum: one product each. */
    if ((m->m[0][1] | m->m[0][2] | m->m[1][0] | m->m[1][2] | m->m[2][0] | m->m[2][1]) == 0) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) t.m[i][j] = qp_sat32(shift_round64((int64_t)m->m[i][i] * r->m[j][i], 30));
    } else {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                t.m[i][j] = round_sum3_sat((int64_t)m->m[i][0] * r->m[j][0], (int64_t)m->m[i][1] * r->m[j][1],
                                           (int64_t)m->m[i][2] * r->m[j][2], 30);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            o.m[i][j] = round_sum3_sat((int64_t)r->m[i][0] * t.m[0][j], (int64_t)r->m[i][1] * t.m[1][j],
                                       (int64_t)r->m[i][2] * t.m[2][j], 30);
    /* Keep the result exactly symmetric: average the two triangles. */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            int64_t s = (int64_t)o.m[i][j] + o.m[j][i];
            o.m[i][j] = o.m[j][i] = (fix16_t)(s >= 0 ? (s + 1) / 2 : -((-s + 1) / 2));
        }
    return o;
}
