/* SPDX-License-Identifier: MIT */
/* Unit tests of the math layer (include/qphys/math.h) against exact and
 * double-precision references.
 *
 * Every function of math.h is called on thousands of seeded random inputs
 * (xorshift64*, fixed seeds: the run is reproducible) plus the edges: values
 * at and near +-32768 (raw +-0x7FFFFFFF and INT32_MIN), zero vectors and
 * quaternions, 1-LSB vectors, near-unit quaternions, angles beyond +-2pi.
 *
 * References: where the function promises one rounding of an exact integer
 * sum, the reference is that sum in __int128 and the result must be equal to
 * the correctly rounded (and saturated) value, bit for bit. Elsewhere the
 * reference is long double (x87: 64-bit mantissa) and the error, in LSB of
 * the result, is compared with the bound documented in math.h. The largest
 * error seen by each test is printed once (print_message) so that docs/math.md
 * can quote it.
 *
 * Host only (uses __int128, long double and libm); the core never does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/math.h"
#include "../../src/math_inline.h"   /* qp__udiv64_32_long, the core's 64-by-32 division */

typedef __int128 i128;
typedef long double ld;

#define N_RANDOM 20000           /* random cases per function (>= 2000 asked) */
#define TWO30    1073741824.0L
#define TWO16    65536.0L

/* ---- bounds (LSB of the result), as documented in math.h ------------------ */
#define B_EXACT        0.5   /* one rounding of an exact value */
#define B_SINCOS       1.5   /* qp_sin_q30 / qp_cos_q30, Q2.30 LSB (1.12 seen over 47e6 angles) */
#define B_DEG2RAD      0.5   /* qp_deg_to_rad, Q16.16 LSB (plus 2^-30 of constant) */
#define B_NORM_Q30     1.0   /* qp_v3_normalize_q30, Q2.30 LSB per component */
#define B_NORM_Q16     0.5   /* qp_v3_normalize, Q16.16 LSB (plus 2^-14 LSB) */
#define B_QNORM        1.0   /* qp_quat_normalize, Q2.30 LSB per component */
#define B_AXIS_ANGLE   4.0   /* qp_quat_from_axis_angle, Q2.30 LSB per component */
#define B_TO_ROT3      8.5   /* qp_quat_to_rot3 vs the rotation of q/|q|, q within 1 LSB of unit */
#define B_ORTHO       18.0   /* R R^T - I, Q2.30 LSB per entry, q within 1 LSB of unit */
#define B_ROTATE       0.9   /* qp_quat_rotate, Q16.16 LSB, |v_i| <= 256 */
#define B_ROTATE_PER   0.4   /* qp_quat_rotate, extra LSB per 256 of max |v_i| */
#define B_MAT3_ROTATE  2.0   /* qp_mat3_rotate, Q16.16 LSB per entry */
#define B_INTEGRATE_1  2.0   /* one qp_quat_integrate step vs its formula, Q2.30 LSB */

/* ---- seeded PRNG ----------------------------------------------------------- */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
    rng_state = s ? s : 0x9E3779B97F4A7C15ull;
}

static uint64_t rng_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static uint32_t rng_u32(void) { return (uint32_t)(rng_u64() >> 32); }
static int32_t rng_i32(void) { return (int32_t)rng_u32(); }
static uint32_t rng_below(uint32_t n) { return (uint32_t)(((uint64_t)rng_u32() * n) >> 32); }

/* Uniform in [lo, hi]. */
static int32_t rng_range(int32_t lo, int32_t hi)
{
    return (int32_t)((int64_t)lo + (int64_t)(((uint64_t)rng_u32() * ((uint64_t)((int64_t)hi - lo) + 1)) >> 32));
}

/* Random sign, magnitude with a uniformly chosen bit length 0..maxbits (<= 31):
 * as many tiny values as huge ones. */
static int32_t rng_logmag(int maxbits)
{
    int b = (int)rng_below((uint32_t)maxbits + 1);
    if (b == 0) return 0;
    uint32_t m = (uint32_t)(rng_u64() >> (64 - b)) | ((uint32_t)1 << (b - 1));
    if (m > 0x7FFFFFFFu) m = 0x7FFFFFFFu;
    return (rng_u32() & 1) ? -(int32_t)m : (int32_t)m;
}

static const int32_t edges[] = {
    0, 1, -1, 2, -2, 3, 0x7FFF, 0x8000, -0x8000, 0xFFFF, 0x10000, -0x10000, 0x10001,
    0x3FFFFFFF, 0x40000000, -0x40000000, 0x40000001, 0x5A827999,
    0x7FFF0000, -0x7FFF0000, 0x7FFFFFFE, -0x7FFFFFFE, 0x7FFFFFFF, -0x7FFFFFFF, INT32_MIN,
};
#define N_EDGES ((int)(sizeof edges / sizeof edges[0]))

/* Any int32: 10% edges, 45% log-uniform magnitude, 45% uniform bits. */
static int32_t rng_any(void)
{
    uint32_t r = rng_below(20);
    if (r < 2) return edges[rng_below(N_EDGES)];
    if (r < 11) return rng_logmag(31);
    return rng_i32();
}

/* Each rng call in its own statement: argument and initializer evaluation
 * order is unspecified in C, and the inputs must be the same with every compiler. */
static qp_vec3 rng_v3_any(void)
{
    int32_t x = rng_any(), y = rng_any(), z = rng_any();
    return qp_v3(x, y, z);
}

static qp_vec3 rng_v3_logmag(int bits)
{
    int32_t x = rng_logmag(bits), y = rng_logmag(bits), z = rng_logmag(bits);
    return qp_v3(x, y, z);
}

static qp_vec3 rng_v3_range(int32_t lo, int32_t hi)
{
    int32_t x = rng_range(lo, hi), y = rng_range(lo, hi), z = rng_range(lo, hi);
    return qp_v3(x, y, z);
}

/* A vector whose components share one random magnitude scale (2^0 .. 2^31). */
static qp_vec3 rng_v3_scaled(void)
{
    int b = 1 + (int)rng_below(31);
    qp_vec3 v;
    do {
        v = rng_v3_logmag(b);
    } while (v.x == 0 && v.y == 0 && v.z == 0);
    return v;
}

/* Uniform random unit quaternion (long double), rounded to Q2.30. */
static void rng_unit_quat_ld(ld q[4])
{
    ld n2;
    do {
        n2 = 0;
        for (int i = 0; i < 4; i++) {
            q[i] = (ld)rng_i32() / 2147483648.0L;
            n2 += q[i] * q[i];
        }
    } while (n2 > 1 || n2 < 1e-6L);
    ld n = sqrtl(n2);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

static qp_quat quat_from_ld(const ld q[4])
{
    qp_quat r = { (qp_q30)llroundl(q[0] * TWO30), (qp_q30)llroundl(q[1] * TWO30),
                  (qp_q30)llroundl(q[2] * TWO30), (qp_q30)llroundl(q[3] * TWO30) };
    return r;
}

/* A unit quaternion as the engine holds it: rounded, then qp_quat_normalize'd. */
static qp_quat rng_unit_quat(void)
{
    ld q[4];
    rng_unit_quat_ld(q);
    qp_quat r;
    assert_true(qp_quat_normalize(quat_from_ld(q), &r));
    return r;
}

static void quat_to_ld(qp_quat q, ld o[4])
{
    o[0] = q.w / TWO30; o[1] = q.x / TWO30; o[2] = q.y / TWO30; o[3] = q.z / TWO30;
}

/* Exact rotation matrix of q / |q| (long double). */
static void rot_of_quat_ld(qp_quat qi, ld m[3][3])
{
    ld q[4];
    quat_to_ld(qi, q);
    ld n = sqrtl(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    ld w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    m[0][0] = 1 - 2 * (y * y + z * z); m[0][1] = 2 * (x * y - w * z); m[0][2] = 2 * (x * z + w * y);
    m[1][0] = 2 * (x * y + w * z); m[1][1] = 1 - 2 * (x * x + z * z); m[1][2] = 2 * (y * z - w * x);
    m[2][0] = 2 * (x * z - w * y); m[2][1] = 2 * (y * z + w * x); m[2][2] = 1 - 2 * (x * x + y * y);
}

static qp_rot3 rng_rot3(void) { return qp_quat_to_rot3(rng_unit_quat()); }

/* ---- exact references ------------------------------------------------------- */

static int32_t sat_i128(i128 v)
{
    if (v > INT32_MAX) return INT32_MAX;
    if (v < -INT32_MAX) return -INT32_MAX;
    return (int32_t)v;
}

/* floor((v + 2^(n-1)) / 2^n): round half up, as math.h promises. */
static i128 round_shift_i128(i128 v, int n)
{
    i128 d = (i128)1 << n;
    i128 t = v + (d >> 1);
    i128 q = t / d;
    if (t % d != 0 && t < 0) q -= 1;   /* floor, without relying on >> of negatives */
    return q;
}

/* The correctly rounded, saturated int32 of v / 2^n. */
static int32_t exact_round(i128 v, int n) { return sat_i128(round_shift_i128(v, n)); }

/* |res - v / 2^n| in LSB. */
static double lsb_err(int64_t res, i128 v, int n)
{
    i128 d = (i128)res * ((i128)1 << n) - v;
    if (d < 0) d = -d;
    return ldexp((double)d, -n);
}

/* ---- error bookkeeping ------------------------------------------------------- */

typedef struct {
    const char *name;
    double bound;
    double max;
    long n;
} errstat;

#define ERRSTAT(name, bound) { name, bound, 0.0, 0 }

/* Record one error; fail at once, with the inputs, when it exceeds the bound. */
#define CHECK_ERR(st, err, ...)                                                           \
    do {                                                                                  \
        double e_ = (err);                                                                \
        (st).n++;                                                                         \
        if (e_ > (st).max) (st).max = e_;                                                 \
        if (!(e_ <= (st).bound)) {                                                        \
            char m_[256];                                                                 \
            snprintf(m_, sizeof m_, __VA_ARGS__);                                         \
            fail_msg("%s: error %.4f LSB > bound %.4g: %s", (st).name, e_, (st).bound, m_); \
        }                                                                                 \
    } while (0)

static void report(const errstat *st)
{
    print_message("  %-34s max error %8.4f LSB  (bound %g, %ld values)\n", st->name, st->max, st->bound, st->n);
}

/* ======================================================================== */
/* scalars                                                                  */
/* ======================================================================== */

static void test_sat_and_shift_round(void **state)
{
    (void)state;
    assert_int_equal(qp_sat32(0), 0);
    assert_int_equal(qp_sat32(INT32_MAX), INT32_MAX);
    assert_int_equal(qp_sat32((int64_t)INT32_MAX + 1), INT32_MAX);
    assert_int_equal(qp_sat32(INT32_MIN), -INT32_MAX);   /* symmetric */
    assert_int_equal(qp_sat32(INT64_MAX), INT32_MAX);
    assert_int_equal(qp_sat32(INT64_MIN), -INT32_MAX);
    assert_int_equal(qp_shift_round(3, 1), 2);            /* 1.5 -> 2 */
    assert_int_equal(qp_shift_round(-3, 1), -1);          /* -1.5 -> -1: half up */
    assert_int_equal(qp_shift_round(-5, 1), -2);          /* -2.5 -> -2 */
    /* The extremes of int64 must not overflow inside the rounding. */
    for (int n = 1; n <= 62; n++) {
        assert_int_equal(qp_shift_round(INT64_MAX, n), exact_round(INT64_MAX, n));
        assert_int_equal(qp_shift_round(INT64_MIN, n), exact_round(INT64_MIN, n));
        assert_int_equal(qp_shift_round(INT64_MAX - 1, n), exact_round(INT64_MAX - 1, n));
    }
    rng_seed(1);
    for (int i = 0; i < N_RANDOM; i++) {
        int64_t v = (int64_t)rng_u64();
        if (i & 1) v >>= rng_below(63);
        int n = 1 + (int)rng_below(62);
        assert_int_equal(qp_shift_round(v, n), exact_round(v, n));
    }
}

static void test_mul(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_mul", B_EXACT);
    rng_seed(2);
    for (int i = 0; i < N_RANDOM + N_EDGES * N_EDGES; i++) {
        fix16_t a, b;
        if (i < N_EDGES * N_EDGES) { a = edges[i / N_EDGES]; b = edges[i % N_EDGES]; }
        else { a = rng_any(); b = rng_any(); }
        i128 p = (i128)a * b;
        fix16_t r = qp_mul(a, b);
        fix16_t want = exact_round(p, 16);
        if (r != want) fail_msg("qp_mul(%d, %d) = %d, want %d", a, b, r, want);
        if (want != INT32_MAX && want != -INT32_MAX) CHECK_ERR(st, lsb_err(r, p, 16), "a=%d b=%d", a, b);
    }
    /* Saturation near +-32768 and round half up. */
    assert_int_equal(qp_mul(QP_INT(200), QP_INT(200)), QP_FIX_MAX);
    assert_int_equal(qp_mul(QP_INT(-200), QP_INT(200)), QP_FIX_MIN);
    assert_int_equal(qp_mul(QP_FIX_MAX, QP_ONE), QP_FIX_MAX);
    assert_int_equal(qp_mul(INT32_MIN, QP_ONE), QP_FIX_MIN);
    assert_int_equal(qp_mul(1, 0x8000), 1);   /* 0.5 LSB -> 1 */
    assert_int_equal(qp_mul(-1, 0x8000), 0);  /* -0.5 LSB -> 0 */
    report(&st);
}

/* qp__udiv64_32_long (src/math_inline.h: qp__udiv64_32 on 32-bit machines, where qp_div and
 * every normalization divide with it) equals
 * C's 64-bit division for random numerators and divisors of every width, and at the
 * edges: divisors 1, 2^31, 2^32 - 1 and powers of two, numerators 0, d - 1, d, 2^64 - 1,
 * and quotients whose base-2^16 digits need the estimate's corrections. */
static void test_udiv64_32(void **state)
{
    (void)state;
    rng_seed(1414);
    static const uint32_t ds[] = { 1u, 2u, 3u, 0xFFFFu, 0x10000u, 0x10001u, 0x7FFFFFFFu, 0x80000000u,
                                   0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu, 0x8000FFFFu, 0xFFFF0000u };
    static const uint64_t ns[] = { 0u, 1u, 0xFFFFFFFFu, 0x100000000u, 0x7FFFFFFFFFFFFFFFu, 0xFFFFFFFFFFFFFFFFu,
                                   0xFFFFFFFF00000000u, 0x00000000FFFF0000u, 0x7FFF800000000000u };
    for (unsigned i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        uint32_t d = ds[i];
        for (unsigned j = 0; j < sizeof ns / sizeof ns[0]; j++) assert_true(qp__udiv64_32_long(ns[j], d) == ns[j] / d);
        uint64_t near[] = { d - 1u, d, (uint64_t)d + 1u, (uint64_t)d << 32, ((uint64_t)d << 32) - 1u,
                            (uint64_t)d * 0xFFFFFFFFu, (uint64_t)d * 0xFFFFFFFFu + d - 1u };
        for (unsigned j = 0; j < sizeof near / sizeof near[0]; j++)
            assert_true(qp__udiv64_32_long(near[j], d) == near[j] / d);
    }
    for (int i = 0; i < 2000000; i++) {
        uint64_t n = rng_u64() >> rng_below(64);
        uint32_t d = rng_u32() >> rng_below(32);
        if (d == 0) d = 1;
        if (i & 1) n = (uint64_t)d * (rng_u64() >> (32 + rng_below(32))) + rng_below(d);  /* near multiples */
        assert_true(qp__udiv64_32_long(n, d) == n / d);
    }
}

/* qp__sat32_words (src/math_inline.h: qp__sat32 on 32-bit machines, the boards, i386 and
 * wasm32) saturates as the 64-bit form does: every int64 inside (-2^31, 2^31) comes back
 * unchanged, everything else goes to +-INT32_MAX by its sign (INT32_MIN too). The edges of
 * both words, then random values of every width. */
static int32_t sat_reference(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : (int32_t)v;
}

static void test_sat32_words(void **state)
{
    (void)state;
    static const int64_t edges64[] = { 0, 1, -1, INT32_MAX, -INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
                                       (int64_t)INT32_MIN - 1, (int64_t)1 << 32, -((int64_t)1 << 32),
                                       ((int64_t)1 << 32) - 1, ((int64_t)1 << 32) + INT32_MAX,
                                       ((int64_t)1 << 32) | 0x80000000u, -((int64_t)1 << 32) + 5,
                                       INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX - INT32_MAX };
    for (unsigned i = 0; i < sizeof edges64 / sizeof edges64[0]; i++)
        assert_int_equal(qp__sat32_words(edges64[i]), sat_reference(edges64[i]));
    assert_int_equal(qp__sat32_words(INT32_MIN), -INT32_MAX);
    assert_int_equal(qp__sat32_words((int64_t)INT32_MAX + 1), INT32_MAX);
    rng_seed(3232);
    for (int i = 0; i < 2000000; i++) {
        int64_t v = (int64_t)(rng_u64() >> rng_below(64));
        if (i & 1) v = (int64_t)(0 - (uint64_t)v);   /* wraps, never overflows */
        assert_int_equal(qp__sat32_words(v), sat_reference(v));
    }
}

static void test_div(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_div", B_EXACT);
    rng_seed(3);
    for (int i = 0; i < N_RANDOM + N_EDGES * N_EDGES; i++) {
        fix16_t a, b;
        if (i < N_EDGES * N_EDGES) { a = edges[i / N_EDGES]; b = edges[i % N_EDGES]; }
        else { a = rng_any(); b = rng_any(); }
        fix16_t r = qp_div(a, b);
        if (b == 0) {
            assert_int_equal(r, 0);
            continue;
        }
        /* Error of r against a * 2^16 / b, exactly: |r b - a 2^16| / |b|. */
        i128 num = (i128)a * 65536, den = b;
        i128 d = (i128)r * den - num;
        if (d < 0) d = -d;
        i128 ad = den < 0 ? -den : den;
        ld exact = (ld)num / (ld)den;
        if (exact > INT32_MAX + 0.5L) { assert_int_equal(r, QP_FIX_MAX); continue; }
        if (exact < -INT32_MAX - 0.5L) { assert_int_equal(r, QP_FIX_MIN); continue; }
        CHECK_ERR(st, (double)((ld)d / (ld)ad), "a=%d b=%d r=%d", a, b, r);
        /* Symmetric: a tie rounds away from zero. */
        if (a != INT32_MIN && b != INT32_MIN) assert_int_equal(qp_div(-a, b), -r);
    }
    assert_int_equal(qp_div(QP_ONE, 0), 0);
    assert_int_equal(qp_div(QP_FIX_MAX, 0), 0);
    assert_int_equal(qp_div(INT32_MIN, 0), 0);
    assert_int_equal(qp_div(QP_INT(1000), QP_FRAC(1, 100)), QP_FIX_MAX);
    assert_int_equal(qp_div(QP_INT(-1000), QP_FRAC(1, 100)), QP_FIX_MIN);
    assert_int_equal(qp_div(INT32_MIN, -1), QP_FIX_MAX);
    assert_int_equal(qp_div(QP_INT(1), QP_INT(3)), 21845);
    assert_int_equal(qp_div(QP_INT(-1), QP_INT(3)), -21845);
    report(&st);
}

static void test_mul_q30(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_mul_q30", B_EXACT);
    rng_seed(4);
    for (int i = 0; i < N_RANDOM + N_EDGES * N_EDGES; i++) {
        fix16_t a;
        qp_q30 u;
        if (i < N_EDGES * N_EDGES) { a = edges[i / N_EDGES]; u = edges[i % N_EDGES]; }
        else { a = rng_any(); u = rng_any(); }
        i128 p = (i128)a * u;
        fix16_t r = qp_mul_q30(a, u), want = exact_round(p, 30);
        if (r != want) fail_msg("qp_mul_q30(%d, %d) = %d, want %d", a, u, r, want);
        if (want != INT32_MAX && want != -INT32_MAX) CHECK_ERR(st, lsb_err(r, p, 30), "a=%d u=%d", a, u);
    }
    assert_int_equal(qp_mul_q30(QP_INT(5), QP_Q30_ONE), QP_INT(5));
    assert_int_equal(qp_mul_q30(QP_FIX_MAX, INT32_MIN), QP_FIX_MIN);   /* * -2 saturates */
    report(&st);
}

static void check_isqrt(uint64_t v)
{
    uint32_t r = qp_isqrt64(v);
    unsigned __int128 r2 = (unsigned __int128)r * r, r12 = (unsigned __int128)(r + (uint64_t)1) * (r + (uint64_t)1);
    if (!(r2 <= v && v < r12)) fail_msg("qp_isqrt64(%llu) = %u", (unsigned long long)v, r);
}

static void test_isqrt64(void **state)
{
    (void)state;
    assert_int_equal(qp_isqrt64(0), 0);
    assert_int_equal(qp_isqrt64(1), 1);
    assert_int_equal(qp_isqrt64(2), 1);
    assert_int_equal(qp_isqrt64(3), 1);
    assert_int_equal(qp_isqrt64(4), 2);
    assert_int_equal(qp_isqrt64(UINT64_MAX), 0xFFFFFFFFu);
    assert_int_equal(qp_isqrt64((uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu), 0xFFFFFFFFu);
    assert_int_equal(qp_isqrt64((uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu - 1), 0xFFFFFFFEu);
    assert_int_equal(qp_isqrt64((uint64_t)1 << 62), 0x80000000u);
    assert_int_equal(qp_isqrt64((uint64_t)1 << 63), 3037000499u);
    /* Every square, square - 1 and square + 1 at each bit length. */
    for (int b = 0; b < 32; b++) {
        uint64_t r = ((uint64_t)1 << b) + b, s = r * r;
        check_isqrt(s);
        check_isqrt(s - 1);
        check_isqrt(s + 1);
        r = ((uint64_t)1 << (b + 1)) - 1;
        s = r * r;
        check_isqrt(s);
        check_isqrt(s - 1);
        check_isqrt(s + 2 * r);   /* (r+1)^2 - 1 */
    }
    rng_seed(5);
    for (int i = 0; i < 5 * N_RANDOM; i++) {
        uint64_t v = rng_u64();
        if (i & 1) v >>= rng_below(64);
        check_isqrt(v);
        uint32_t r = rng_u32();
        check_isqrt((uint64_t)r * r);
        if (r) check_isqrt((uint64_t)r * r - 1);
    }
    /* qp_isqrt64 finds the root from a table guess, a Newton step and a digit of
     * long division, then steps down (src/math.c): 10^7 more inputs at every bit
     * length, and the squares and their neighbours around every table entry's range
     * (x = i 2^24 in the top word, the guess's worst case) and near 2^32. */
    rng_seed(55);
    for (int i = 0; i < 10000000; i++) {
        uint64_t v = rng_u64() >> (i % 64);
        check_isqrt(v);
        if (v) check_isqrt(v - 1);
    }
    for (uint64_t t = 64; t <= 256; t++)
        for (int d = -64; d <= 64; d++) {
            /* roots near sqrt(t 2^24) 2^16: the top word at an edge of table entry t */
            uint64_t r = (uint64_t)sqrtl((ld)(t << 56)) + (uint64_t)(int64_t)d;
            if (r > 0xFFFFFFFFu) continue;
            check_isqrt(r * r);
            check_isqrt(r * r - 1);
            check_isqrt(r * r + r);
            check_isqrt(r * r + 2 * r);
        }
}

static void test_sqrt(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_sqrt", B_EXACT);
    rng_seed(6);
    for (int i = 0; i < 5 * N_RANDOM + N_EDGES; i++) {
        fix16_t x = i < N_EDGES ? edges[i] : (i & 1) ? rng_any() : rng_logmag(31);
        fix16_t r = qp_sqrt(x);
        if (x <= 0) {
            assert_int_equal(r, 0);
            continue;
        }
        /* |r - sqrt(X)| <= 1/2 with X = x 2^16  <=>  (2r-1)^2 <= 4X <= (2r+1)^2. */
        i128 X4 = (i128)x * 65536 * 4, lo = (i128)(2 * (int64_t)r - 1) * (2 * (int64_t)r - 1),
             hi = (i128)(2 * (int64_t)r + 1) * (2 * (int64_t)r + 1);
        if (!(lo <= X4 && X4 <= hi)) fail_msg("qp_sqrt(%d) = %d", x, r);
        CHECK_ERR(st, fabsl((ld)r - sqrtl((ld)x * 65536)), "x=%d", x);
    }
    assert_int_equal(qp_sqrt(QP_INT(4)), QP_INT(2));
    assert_int_equal(qp_sqrt(QP_ONE), QP_ONE);
    assert_int_equal(qp_sqrt(QP_FIX_MAX), 11863283);   /* sqrt(32768) = 181.02 */
    assert_int_equal(qp_sqrt(1), 256);                  /* sqrt(2^-16) = 2^-8 */
    report(&st);
}

static void test_q30_conversions(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_fix_from_q30", B_EXACT);
    rng_seed(7);
    for (int i = 0; i < N_RANDOM + N_EDGES; i++) {
        int32_t a = i < N_EDGES ? edges[i] : rng_any();
        /* Q16.16 -> Q2.30: exact inside +-2, saturating outside. */
        qp_q30 u = qp_q30_from_fix(a);
        assert_int_equal(u, sat_i128((i128)a * 16384));
        if (a > -2 * 65536 && a < 2 * 65536) assert_int_equal(qp_fix_from_q30(u), a);   /* round trip */
        /* Q2.30 -> Q16.16: one rounding. */
        fix16_t f = qp_fix_from_q30(a);
        assert_int_equal(f, exact_round(a, 14));
        CHECK_ERR(st, lsb_err(f, a, 14), "u=%d", a);
    }
    assert_int_equal(qp_q30_from_fix(QP_INT(2)), INT32_MAX);
    assert_int_equal(qp_q30_from_fix(QP_INT(-2)), -INT32_MAX);
    assert_int_equal(qp_q30_from_fix(QP_ONE), QP_Q30_ONE);
    assert_int_equal(qp_fix_from_q30(QP_Q30_ONE), QP_ONE);
    assert_int_equal(qp_fix_from_q30(INT32_MIN), -2 * 65536);
    report(&st);
}

static void check_sincos(fix16_t a, errstat *ss, errstat *sc)
{
    ld x = (ld)a / TWO16;
    qp_q30 s = qp_sin_q30(a), c = qp_cos_q30(a);
    CHECK_ERR(*ss, (double)fabsl((ld)s - sinl(x) * TWO30), "angle raw %d (%.9Lf rad): sin %d", a, x, s);
    CHECK_ERR(*sc, (double)fabsl((ld)c - cosl(x) * TWO30), "angle raw %d (%.9Lf rad): cos %d", a, x, c);
    /* Unit range: never beyond +-1. */
    assert_true(s >= -QP_Q30_ONE && s <= QP_Q30_ONE);
    assert_true(c >= -QP_Q30_ONE && c <= QP_Q30_ONE);
}

static void test_sin_cos(void **state)
{
    (void)state;
    errstat ss = ERRSTAT("qp_sin_q30 (whole Q16.16 range)", B_SINCOS);
    errstat sc = ERRSTAT("qp_cos_q30 (whole Q16.16 range)", B_SINCOS);
    errstat ss2 = ERRSTAT("qp_sin_q30 (|x| <= 2pi)", B_SINCOS);
    errstat sc2 = ERRSTAT("qp_cos_q30 (|x| <= 2pi)", B_SINCOS);
    rng_seed(8);
    for (int i = 0; i < N_EDGES; i++) check_sincos(edges[i], &ss, &sc);
    /* The whole range, log-uniform angles, beyond +-2pi. */
    for (int i = 0; i < 5 * N_RANDOM; i++) check_sincos((i & 1) ? rng_i32() : rng_logmag(31), &ss, &sc);
    /* Within one turn, densely. */
    for (int i = 0; i < 5 * N_RANDOM; i++) check_sincos(rng_range(-411775, 411775), &ss2, &sc2);
    /* Around every multiple of pi/4 in +-64 turns, where quadrants switch. */
    for (int k = -512; k <= 512; k++) {
        fix16_t c = (fix16_t)llroundl(k * (3.14159265358979323846264338327950288L / 4) * TWO16);
        for (int d = -3; d <= 3; d++) check_sincos(c + d, &ss, &sc);
    }
    /* Exact values. */
    assert_int_equal(qp_sin_q30(0), 0);
    assert_int_equal(qp_cos_q30(0), QP_Q30_ONE);
    report(&ss);
    report(&sc);
    report(&ss2);
    report(&sc2);
}

static void test_deg_to_rad(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_deg_to_rad", B_DEG2RAD + 1.0 / 1024);
    rng_seed(9);
    const ld k = 3.14159265358979323846264338327950288L / 180;
    for (int i = 0; i < N_RANDOM + N_EDGES; i++) {
        fix16_t d = i < N_EDGES ? edges[i] : (i & 1) ? rng_i32() : rng_logmag(31);
        fix16_t r = qp_deg_to_rad(d);
        CHECK_ERR(st, (double)fabsl((ld)r - (ld)d * k), "deg raw %d -> %d", d, r);
    }
    for (int deg = -360 * 4; deg <= 360 * 4; deg++)
        CHECK_ERR(st, (double)fabsl((ld)qp_deg_to_rad(QP_INT(deg)) - (ld)deg * 65536 * k), "deg %d", deg);
    assert_int_equal(qp_deg_to_rad(QP_INT(180)), 205887);   /* pi = 205887.4 LSB */
    report(&st);
}

/* ======================================================================== */
/* vectors                                                                  */
/* ======================================================================== */

static void test_v3_add_sub_neg(void **state)
{
    (void)state;
    rng_seed(10);
    for (int i = 0; i < N_RANDOM; i++) {
        qp_vec3 a = rng_v3_any(), b = rng_v3_any();
        qp_vec3 s = qp_v3_add(a, b), d = qp_v3_sub(a, b), n = qp_v3_neg(a);
        assert_int_equal(s.x, sat_i128((i128)a.x + b.x));
        assert_int_equal(s.y, sat_i128((i128)a.y + b.y));
        assert_int_equal(s.z, sat_i128((i128)a.z + b.z));
        assert_int_equal(d.x, sat_i128((i128)a.x - b.x));
        assert_int_equal(d.y, sat_i128((i128)a.y - b.y));
        assert_int_equal(d.z, sat_i128((i128)a.z - b.z));
        assert_int_equal(n.x, sat_i128(-(i128)a.x));
        assert_int_equal(n.y, sat_i128(-(i128)a.y));
        assert_int_equal(n.z, sat_i128(-(i128)a.z));
    }
    /* Near +-32768: saturate, never wrap. */
    qp_vec3 big = qp_v3(QP_INT(32000), -QP_INT(32000), QP_FIX_MAX);
    qp_vec3 s = qp_v3_add(big, qp_v3(QP_INT(1000), -QP_INT(1000), 1));
    assert_int_equal(s.x, QP_FIX_MAX);
    assert_int_equal(s.y, QP_FIX_MIN);
    assert_int_equal(s.z, QP_FIX_MAX);
    qp_vec3 d = qp_v3_sub(big, qp_v3(-QP_INT(1000), QP_INT(1000), -1));
    assert_int_equal(d.x, QP_FIX_MAX);
    assert_int_equal(d.y, QP_FIX_MIN);
    assert_int_equal(d.z, QP_FIX_MAX);
    qp_vec3 n = qp_v3_neg(qp_v3(INT32_MIN, QP_FIX_MAX, 0));
    assert_int_equal(n.x, QP_FIX_MAX);
    assert_int_equal(n.y, QP_FIX_MIN);
    assert_int_equal(n.z, 0);
    assert_true(qp_v3_eq(qp_v3_zero(), qp_v3(0, 0, 0)));
    assert_false(qp_v3_eq(qp_v3(1, 0, 0), qp_v3(0, 0, 0)));
}

static void test_v3_scale_mad(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_v3_scale", B_EXACT), sm = ERRSTAT("qp_v3_mad", B_EXACT),
            sq = ERRSTAT("qp_v3_scale_q30", B_EXACT);
    rng_seed(11);
    for (int i = 0; i < N_RANDOM; i++) {
        qp_vec3 a = rng_v3_any(), b = rng_v3_any();
        fix16_t s = rng_any();
        qp_vec3 r = qp_v3_scale(a, s), m = qp_v3_mad(a, b, s), q = qp_v3_scale_q30(a, s);
        const fix16_t *ap = &a.x, *bp = &b.x, *rp = &r.x, *mp = &m.x, *qp = &q.x;
        for (int k = 0; k < 3; k++) {
            i128 p = (i128)ap[k] * s, pm = (i128)ap[k] * 65536 + (i128)bp[k] * s, pq = (i128)ap[k] * s;
            assert_int_equal(rp[k], exact_round(p, 16));
            assert_int_equal(mp[k], exact_round(pm, 16));
            assert_int_equal(qp[k], exact_round(pq, 30));
            if (rp[k] != INT32_MAX && rp[k] != -INT32_MAX) CHECK_ERR(st, lsb_err(rp[k], p, 16), "%d", k);
            if (mp[k] != INT32_MAX && mp[k] != -INT32_MAX) CHECK_ERR(sm, lsb_err(mp[k], pm, 16), "%d", k);
            if (qp[k] != INT32_MAX && qp[k] != -INT32_MAX) CHECK_ERR(sq, lsb_err(qp[k], pq, 30), "%d", k);
        }
    }
    /* mad saturates: 30000 + 30000 * 1. */
    qp_vec3 m = qp_v3_mad(qp_v3(QP_INT(30000), 0, -QP_INT(30000)), qp_v3(QP_INT(30000), 0, -QP_INT(30000)), QP_ONE);
    assert_int_equal(m.x, QP_FIX_MAX);
    assert_int_equal(m.z, QP_FIX_MIN);
    report(&st);
    report(&sm);
    report(&sq);
}

static i128 dot_i128(qp_vec3 a, qp_vec3 b) { return (i128)a.x * b.x + (i128)a.y * b.y + (i128)a.z * b.z; }

static void test_v3_dot(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_v3_dot", B_EXACT), sq = ERRSTAT("qp_v3_dot_q30", B_EXACT);
    rng_seed(12);
    long sat = 0;
    for (int i = 0; i < 2 * N_RANDOM + N_EDGES * N_EDGES; i++) {
        qp_vec3 a, b;
        if (i < N_EDGES * N_EDGES) {
            int32_t e = edges[i / N_EDGES], f = edges[i % N_EDGES];
            a = qp_v3(e, e, e);
            b = qp_v3(f, f, f);
        } else if (i % 3 == 0) {
            a = rng_v3_scaled();
            b = rng_v3_scaled();
        } else {
            a = rng_v3_any();
            b = rng_v3_any();
        }
        i128 e = dot_i128(a, b);
        /* dot_wide: exact whenever the sum fits in int64, saturated otherwise. */
        int64_t w = qp_v3_dot_wide(a, b);
        int64_t want = e > INT64_MAX ? INT64_MAX : e < INT64_MIN ? INT64_MIN : (int64_t)e;
        if (w != want) fail_msg("qp_v3_dot_wide((%d,%d,%d),(%d,%d,%d)) wrong", a.x, a.y, a.z, b.x, b.y, b.z);
        assert_true(qp_v3_len_sq_wide(a) == (dot_i128(a, a) > INT64_MAX ? INT64_MAX : (int64_t)dot_i128(a, a)));
        /* dot: one rounding of the exact sum, saturated. */
        fix16_t d = qp_v3_dot(a, b), dw = exact_round(e, 16);
        if (d != dw) fail_msg("qp_v3_dot((%d,%d,%d),(%d,%d,%d)) = %d, want %d", a.x, a.y, a.z, b.x, b.y, b.z, d, dw);
        if (dw == INT32_MAX || dw == -INT32_MAX) sat++;
        else CHECK_ERR(st, lsb_err(d, e, 16), "dot");
        /* dot_q30: b read as Q2.30. */
        fix16_t q = qp_v3_dot_q30(a, b), qw = exact_round(e, 30);
        if (q != qw) fail_msg("qp_v3_dot_q30((%d,%d,%d),(%d,%d,%d)) = %d, want %d", a.x, a.y, a.z, b.x, b.y, b.z, q, qw);
        if (qw != INT32_MAX && qw != -INT32_MAX) CHECK_ERR(sq, lsb_err(q, e, 30), "dot_q30");
    }
    /* The extremes: three products of 2^62 (the sum needs 65 bits). */
    qp_vec3 m = qp_v3(INT32_MIN, INT32_MIN, INT32_MIN), p = qp_v3(QP_FIX_MAX, QP_FIX_MAX, QP_FIX_MAX);
    assert_true(qp_v3_dot_wide(m, m) == INT64_MAX);
    assert_true(qp_v3_dot_wide(m, p) == INT64_MIN);
    assert_int_equal(qp_v3_dot(m, m), QP_FIX_MAX);
    assert_int_equal(qp_v3_dot(m, p), QP_FIX_MIN);
    assert_int_equal(qp_v3_dot_q30(m, m), QP_FIX_MAX);
    /* Exact up to +-26754 per component (as documented), saturating from 46341 in |a|^2. */
    qp_vec3 e = qp_v3(QP_INT(26754), -QP_INT(26754), QP_INT(26754));
    assert_true((i128)qp_v3_dot_wide(e, e) == dot_i128(e, e));
    assert_true(qp_v3_len_sq_wide(qp_v3(QP_INT(26754), QP_INT(26754), QP_INT(26754))) == (int64_t)dot_i128(e, e));
    assert_true(qp_v3_len_sq_wide(qp_v3(QP_INT(26755), QP_INT(26755), QP_INT(26755))) == INT64_MAX);
    /* Two extreme products that cancel: exact. */
    assert_true(qp_v3_dot_wide(qp_v3(INT32_MIN, INT32_MIN, 1), qp_v3(INT32_MIN, QP_FIX_MAX, 1)) == (((int64_t)1 << 31) | 1));
    print_message("  qp_v3_dot: %ld saturated cases checked\n", sat);
    report(&st);
    report(&sq);
}

static void test_v3_cross(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_v3_cross", B_EXACT), sq = ERRSTAT("qp_v3_cross_q30", B_EXACT);
    rng_seed(13);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_vec3 a = (i & 1) ? rng_v3_any() : rng_v3_scaled(), b = (i & 2) ? rng_v3_any() : rng_v3_scaled();
        qp_vec3 c = qp_v3_cross(a, b), q = qp_v3_cross_q30(a, b);
        i128 e[3] = { (i128)a.y * b.z - (i128)a.z * b.y, (i128)a.z * b.x - (i128)a.x * b.z,
                      (i128)a.x * b.y - (i128)a.y * b.x };
        const fix16_t *cp = &c.x, *qp = &q.x;
        for (int k = 0; k < 3; k++) {
            assert_int_equal(cp[k], exact_round(e[k], 16));
            assert_int_equal(qp[k], exact_round(e[k], 30));
            if (cp[k] != INT32_MAX && cp[k] != -INT32_MAX) CHECK_ERR(st, lsb_err(cp[k], e[k], 16), "cross");
            if (qp[k] != INT32_MAX && qp[k] != -INT32_MAX) CHECK_ERR(sq, lsb_err(qp[k], e[k], 30), "cross_q30");
        }
    }
    qp_vec3 x = qp_v3(QP_ONE, 0, 0), y = qp_v3(0, QP_ONE, 0);
    assert_true(qp_v3_eq(qp_v3_cross(x, y), qp_v3(0, 0, QP_ONE)));
    qp_vec3 m = qp_v3(INT32_MIN, INT32_MIN, INT32_MIN);
    assert_true(qp_v3_eq(qp_v3_cross(m, qp_v3(INT32_MIN, QP_FIX_MAX, INT32_MIN)), qp_v3(QP_FIX_MAX, 0, QP_FIX_MIN)));
    report(&st);
    report(&sq);
}

static void test_v3_len(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_v3_len", B_EXACT);
    rng_seed(14);
    for (int i = 0; i < 2 * N_RANDOM + N_EDGES * N_EDGES; i++) {
        qp_vec3 a;
        if (i < N_EDGES * N_EDGES) a = qp_v3(edges[i / N_EDGES], edges[i % N_EDGES], edges[(i * 7) % N_EDGES]);
        else a = (i & 1) ? rng_v3_any() : rng_v3_scaled();
        fix16_t r = qp_v3_len(a);
        i128 S = dot_i128(a, a);
        ld exact = sqrtl((ld)S);
        if (exact >= (ld)INT32_MAX + 0.5L) {
            assert_int_equal(r, QP_FIX_MAX);
            continue;
        }
        i128 lo = r ? (i128)(2 * (int64_t)r - 1) * (2 * (int64_t)r - 1) : 0, hi = (i128)(2 * (int64_t)r + 1) * (2 * (int64_t)r + 1);
        if (!(lo <= 4 * S && 4 * S <= hi)) fail_msg("qp_v3_len(%d,%d,%d) = %d", a.x, a.y, a.z, r);
        CHECK_ERR(st, (double)fabsl((ld)r - exact), "(%d,%d,%d)", a.x, a.y, a.z);
    }
    assert_int_equal(qp_v3_len(qp_v3_zero()), 0);
    assert_int_equal(qp_v3_len(qp_v3(1, 0, 0)), 1);
    assert_int_equal(qp_v3_len(qp_v3(QP_INT(3), QP_INT(4), 0)), QP_INT(5));
    assert_int_equal(qp_v3_len(qp_v3(INT32_MIN, 0, 0)), QP_FIX_MAX);
    assert_int_equal(qp_v3_len(qp_v3(INT32_MIN, INT32_MIN, INT32_MIN)), QP_FIX_MAX);
    assert_int_equal(qp_v3_len(qp_v3(QP_FIX_MAX, 0, 0)), QP_FIX_MAX);
    report(&st);
}

static void check_normalize(qp_vec3 a, errstat *s30, errstat *s16)
{
    qp_vec3 u = qp_v3(0x5A5A5A5A, 0x5A5A5A5A, 0x5A5A5A5A), v = u;
    assert_true(qp_v3_normalize_q30(a, &u));
    assert_true(qp_v3_normalize(a, &v));
    ld n = sqrtl((ld)dot_i128(a, a));
    const fix16_t *ap = &a.x, *up = &u.x, *vp = &v.x;
    for (int k = 0; k < 3; k++) {
        ld e = (ld)ap[k] / n;
        CHECK_ERR(*s30, (double)fabsl((ld)up[k] - e * TWO30), "a=(%d,%d,%d) k=%d", a.x, a.y, a.z, k);
        CHECK_ERR(*s16, (double)fabsl((ld)vp[k] - e * TWO16), "a=(%d,%d,%d) k=%d", a.x, a.y, a.z, k);
    }
}

static void test_v3_normalize(void **state)
{
    (void)state;
    errstat s30 = ERRSTAT("qp_v3_normalize_q30", B_NORM_Q30), s16 = ERRSTAT("qp_v3_normalize", B_NORM_Q16 + 1.0 / 8192);
    rng_seed(15);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_vec3 a = (i & 1) ? rng_v3_any() : rng_v3_scaled();
        if (a.x == 0 && a.y == 0 && a.z == 0) continue;
        check_normalize(a, &s30, &s16);
    }
    /* Every combination of edge components (tiny, huge, INT32_MIN). */
    for (int i = 0; i < N_EDGES; i++)
        for (int j = 0; j < N_EDGES; j++)
            for (int k = 0; k < N_EDGES; k += 3) {
                qp_vec3 a = qp_v3(edges[i], edges[j], edges[k]);
                if (a.x || a.y || a.z) check_normalize(a, &s30, &s16);
            }
    /* 1-LSB vectors. */
    for (int m = 1; m < 27; m++) {
        qp_vec3 a = qp_v3((m % 3) - 1, ((m / 3) % 3) - 1, (m / 9) - 1);
        if (a.x || a.y || a.z) check_normalize(a, &s30, &s16);
    }
    qp_vec3 u;
    assert_true(qp_v3_normalize_q30(qp_v3(1, 0, 0), &u));
    assert_true(qp_v3_eq(u, qp_v3(QP_Q30_ONE, 0, 0)));
    assert_true(qp_v3_normalize_q30(qp_v3(0, INT32_MIN, 0), &u));
    assert_true(qp_v3_eq(u, qp_v3(0, -QP_Q30_ONE, 0)));
    assert_true(qp_v3_normalize(qp_v3(0, 0, -1), &u));
    assert_true(qp_v3_eq(u, qp_v3(0, 0, -QP_ONE)));
    /* Zero vector: a clear failure and a zero output, never garbage. */
    u = qp_v3(123, 456, 789);
    assert_false(qp_v3_normalize_q30(qp_v3_zero(), &u));
    assert_true(qp_v3_eq(u, qp_v3_zero()));
    u = qp_v3(123, 456, 789);
    assert_false(qp_v3_normalize(qp_v3_zero(), &u));
    assert_true(qp_v3_eq(u, qp_v3_zero()));
    report(&s30);
    report(&s16);
}

static void test_v3_misc(void **state)
{
    (void)state;
    rng_seed(16);
    for (int i = 0; i < N_RANDOM; i++) {
        qp_vec3 a = rng_v3_any(), b = rng_v3_any();
        qp_vec3 mn = qp_v3_min(a, b), mx = qp_v3_max(a, b), ab = qp_v3_abs(a);
        const fix16_t *ap = &a.x, *bp = &b.x, *np = &mn.x, *xp = &mx.x, *abp = &ab.x;
        fix16_t ma = 0;
        for (int k = 0; k < 3; k++) {
            assert_int_equal(np[k], ap[k] < bp[k] ? ap[k] : bp[k]);
            assert_int_equal(xp[k], ap[k] > bp[k] ? ap[k] : bp[k]);
            assert_int_equal(abp[k], sat_i128(ap[k] < 0 ? -(i128)ap[k] : ap[k]));
            if (abp[k] > ma) ma = abp[k];
        }
        assert_int_equal(qp_v3_max_abs(a), ma);
        /* Q2.30 <-> Q16.16 vector conversions are the scalar ones per component. */
        qp_vec3 f = qp_v3_from_q30(a), t = qp_v3_to_q30(a);
        const fix16_t *fp = &f.x, *tp = &t.x;
        for (int k = 0; k < 3; k++) {
            assert_int_equal(fp[k], qp_fix_from_q30(ap[k]));
            assert_int_equal(tp[k], qp_q30_from_fix(ap[k]));
        }
    }
    assert_int_equal(qp_v3_max_abs(qp_v3(INT32_MIN, 0, 0)), QP_FIX_MAX);
    qp_vec3 ab = qp_v3_abs(qp_v3(INT32_MIN, -5, 5));
    assert_true(qp_v3_eq(ab, qp_v3(QP_FIX_MAX, 5, 5)));
    qp_vec3 t = qp_v3_to_q30(qp_v3(QP_INT(3), -QP_INT(3), QP_FRAC(1, 2)));
    assert_true(qp_v3_eq(t, qp_v3(INT32_MAX, -INT32_MAX, QP_Q30_ONE / 2)));
}

/* ======================================================================== */
/* quaternions                                                              */
/* ======================================================================== */

static qp_quat rng_quat_any(void)
{
    qp_quat q;
    q.w = rng_any();
    q.x = rng_any();
    q.y = rng_any();
    q.z = rng_any();
    return q;
}

/* A unit quaternion scaled by (1 + e), |e| up to 2^-10, or nudged by a few LSB. */
static qp_quat rng_near_unit_quat(void)
{
    ld q[4];
    rng_unit_quat_ld(q);
    if (rng_u32() & 1) {
        ld s = 1 + (ld)rng_logmag(20) / TWO30;
        for (int i = 0; i < 4; i++) q[i] *= s;
        return quat_from_ld(q);
    }
    qp_quat r = quat_from_ld(q);
    r.w += rng_range(-8, 8); r.x += rng_range(-8, 8); r.y += rng_range(-8, 8); r.z += rng_range(-8, 8);
    return r;
}

static void test_quat_mul_conj(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_quat_mul", B_EXACT);
    rng_seed(17);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_quat a, b;
        switch (i % 3) {
        case 0: a = rng_unit_quat(); b = rng_unit_quat(); break;
        case 1: a = rng_near_unit_quat(); b = rng_near_unit_quat(); break;
        default: a = rng_quat_any(); b = rng_quat_any(); break;   /* saturation, no overflow */
        }
        qp_quat r = qp_quat_mul(a, b);
        i128 e[4] = {
            (i128)a.w * b.w - (i128)a.x * b.x - (i128)a.y * b.y - (i128)a.z * b.z,
            (i128)a.w * b.x + (i128)a.x * b.w + (i128)a.y * b.z - (i128)a.z * b.y,
            (i128)a.w * b.y - (i128)a.x * b.z + (i128)a.y * b.w + (i128)a.z * b.x,
            (i128)a.w * b.z + (i128)a.x * b.y - (i128)a.y * b.x + (i128)a.z * b.w,
        };
        const qp_q30 *rp = &r.w;
        for (int k = 0; k < 4; k++) {
            if (rp[k] != exact_round(e[k], 30)) fail_msg("qp_quat_mul component %d: %d, want %d", k, rp[k], exact_round(e[k], 30));
            if (rp[k] != INT32_MAX && rp[k] != -INT32_MAX) CHECK_ERR(st, lsb_err(rp[k], e[k], 30), "k=%d", k);
        }
        /* conj: negated vector part, saturated. */
        qp_quat c = qp_quat_conj(a);
        assert_int_equal(c.w, a.w);
        assert_int_equal(c.x, sat_i128(-(i128)a.x));
        assert_int_equal(c.y, sat_i128(-(i128)a.y));
        assert_int_equal(c.z, sat_i128(-(i128)a.z));
    }
    /* q * conj(q) = identity within 1 LSB for unit q. */
    for (int i = 0; i < 1000; i++) {
        qp_quat q = rng_unit_quat(), p = qp_quat_mul(q, qp_quat_conj(q));
        assert_true(abs(p.w - QP_Q30_ONE) <= 4 && abs(p.x) <= 1 && abs(p.y) <= 1 && abs(p.z) <= 1);
    }
    qp_quat m = { INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN };
    qp_quat r = qp_quat_mul(m, m);
    assert_int_equal(r.w, -INT32_MAX);
    assert_int_equal(r.x, INT32_MAX);
    report(&st);
}

static void check_quat_normalize(qp_quat q, errstat *st)
{
    qp_quat r = { 1, 2, 3, 4 };
    assert_true(qp_quat_normalize(q, &r));
    ld c[4];
    quat_to_ld(q, c);
    ld n = sqrtl(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
    const qp_q30 *rp = &r.w;
    for (int k = 0; k < 4; k++)
        CHECK_ERR(*st, (double)fabsl((ld)rp[k] - c[k] / n * TWO30), "q=(%d,%d,%d,%d) k=%d", q.w, q.x, q.y, q.z, k);
}

static void test_quat_normalize(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_quat_normalize (any input)", B_QNORM), su = ERRSTAT("qp_quat_normalize (near unit)", B_QNORM);
    rng_seed(18);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_quat q = rng_quat_any();
        if ((i & 3) == 0) {   /* one magnitude scale for all four */
            int b = 1 + (int)rng_below(31);
            q.w = rng_logmag(b);
            q.x = rng_logmag(b);
            q.y = rng_logmag(b);
            q.z = rng_logmag(b);
        }
        if (q.w == 0 && q.x == 0 && q.y == 0 && q.z == 0) continue;
        check_quat_normalize(q, &st);
        check_quat_normalize(rng_near_unit_quat(), &su);
    }
    /* Extremes: |q| = 4 (sum of squares 2^64), 1 LSB, mixed. */
    qp_quat m = { INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN };
    check_quat_normalize(m, &st);
    qp_quat m2 = { INT32_MIN, -INT32_MAX, INT32_MAX, INT32_MIN };
    check_quat_normalize(m2, &st);
    qp_quat one = { 0, 0, 1, 0 }, r;
    assert_true(qp_quat_normalize(one, &r));
    assert_int_equal(r.y, QP_Q30_ONE);
    qp_quat t = { 1, -1, 1, -1 };
    check_quat_normalize(t, &st);
    /* Zero: a clear failure and the identity. */
    qp_quat z = { 0, 0, 0, 0 }, o = { 5, 6, 7, 8 };
    assert_false(qp_quat_normalize(z, &o));
    assert_int_equal(o.w, QP_Q30_ONE);
    assert_int_equal(o.x, 0);
    assert_int_equal(o.y, 0);
    assert_int_equal(o.z, 0);
    report(&st);
    report(&su);
}

static void check_axis_angle(qp_vec3 axis, fix16_t angle, errstat *st)
{
    qp_quat q = { 9, 9, 9, 9 };
    assert_true(qp_quat_from_axis_angle(axis, angle, &q));
    ld n = sqrtl((ld)dot_i128(axis, axis)), h = (ld)angle / TWO16 / 2, s = sinl(h);
    ld e[4] = { cosl(h), s * axis.x / n, s * axis.y / n, s * axis.z / n };
    const qp_q30 *qp = &q.w;
    for (int k = 0; k < 4; k++)
        CHECK_ERR(*st, (double)fabsl((ld)qp[k] - e[k] * TWO30), "axis (%d,%d,%d) angle raw %d k=%d: %d vs %.1Lf",
                  axis.x, axis.y, axis.z, angle, k, qp[k], e[k] * TWO30);
}

static void test_quat_from_axis_angle(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_quat_from_axis_angle", B_AXIS_ANGLE);
    rng_seed(19);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_vec3 axis = (i & 1) ? rng_v3_scaled() : rng_v3_any();
        if (axis.x == 0 && axis.y == 0 && axis.z == 0) continue;
        fix16_t angle = (i & 2) ? rng_i32() : rng_logmag(31);   /* far beyond +-2pi too */
        check_axis_angle(axis, angle, &st);
        check_axis_angle(axis, rng_range(-411775, 411775), &st);   /* within one turn */
    }
    /* Odd raw angles: the half angle is not a Q16.16 value. */
    for (fix16_t a = -9; a <= 9; a++) check_axis_angle(qp_v3(0, 0, QP_ONE), a, &st);
    check_axis_angle(qp_v3(1, 1, 1), QP_FIX_MAX, &st);
    check_axis_angle(qp_v3(INT32_MIN, INT32_MIN, INT32_MIN), INT32_MIN, &st);
    /* Zero axis: false and the identity. */
    qp_quat q = { 1, 2, 3, 4 };
    assert_false(qp_quat_from_axis_angle(qp_v3_zero(), QP_ONE, &q));
    assert_int_equal(q.w, QP_Q30_ONE);
    assert_int_equal(q.x, 0);
    assert_int_equal(q.y, 0);
    assert_int_equal(q.z, 0);
    report(&st);
}

/* Angle of a unit quaternion (long double). */
static ld quat_angle(qp_quat q)
{
    ld c[4];
    quat_to_ld(q, c);
    return 2 * atan2l(sqrtl(c[1] * c[1] + c[2] * c[2] + c[3] * c[3]), fabsl(c[0]));
}

static void test_quat_integrate_spin(void **state)
{
    (void)state;
    /* Spin about one axis for 600 steps at dt = 1/60 and compare the angle
     * turned with w t. The scheme q' = normalize(q + dt/2 (0,w) q) turns each
     * step by 2 atan(|w| dt / 2), i.e. (w dt)^2 / 12 too little: the bound
     * is that plus the fixed-point part. w and dt are the Q16.16 values. */
    static const struct { double w; double rel_bound; } spins[] = {
        { 1e-3, 6e-5 }, { 1e-2, 2e-5 }, { 1.0, 5e-5 }, { 10.0, 2.5e-3 },
    };
    const fix16_t dt = QP_FRAC(1, 60);
    const ld dtv = dt / TWO16;
    rng_seed(20);
    for (unsigned s = 0; s < sizeof spins / sizeof spins[0]; s++) {
        fix16_t w = (fix16_t)lround(spins[s].w * 65536);
        ld wv = w / TWO16, expect = wv * dtv * 600, scheme = 600 * 2 * atanl(wv * dtv / 2);
        double worst = 0, worst_scheme = 0, worst_off = 0;
        for (int ax = 0; ax < 105; ax++) {
            /* x, y, z, -x, a diagonal, and 100 random axes from random orientations. */
            qp_vec3 dir;
            switch (ax) {
            case 0: dir = qp_v3(QP_ONE, 0, 0); break;
            case 1: dir = qp_v3(0, QP_ONE, 0); break;
            case 2: dir = qp_v3(0, 0, QP_ONE); break;
            case 3: dir = qp_v3(-QP_ONE, 0, 0); break;
            case 4: dir = qp_v3(QP_ONE, QP_ONE, QP_ONE); break;
            default: dir = rng_v3_range(-QP_ONE, QP_ONE); break;
            }
            qp_vec3 u;
            assert_true(qp_v3_normalize(dir, &u));
            qp_vec3 wv3 = qp_v3_scale(u, w);
            /* The angular velocity actually integrated (after rounding to Q16.16). */
            ld wn = sqrtl((ld)dot_i128(wv3, wv3)) / TWO16;
            ld exp_ax = wn * dtv * 600, sch_ax = 600 * 2 * atanl(wn * dtv / 2);
            qp_quat q0 = ax >= 5 ? rng_unit_quat() : qp_quat_identity(), q = q0;
            ld ud[3] = { wv3.x / TWO16, wv3.y / TWO16, wv3.z / TWO16 };
            for (int k = 0; k < 3; k++) ud[k] /= wn;
            /* Track the half angle of d = q q0^-1 = (cos a/2, sin a/2 u), unwrapped. */
            ld half = 0, off_axis = 0;
            for (int k = 0; k < 600; k++) {
                q = qp_quat_integrate(q, wv3, dt);
                qp_quat d = qp_quat_mul(q, qp_quat_conj(q0));
                ld c[4];
                quat_to_ld(d, c);
                ld along = c[1] * ud[0] + c[2] * ud[1] + c[3] * ud[2];
                ld phase = atan2l(along, c[0]);
                while (phase < half - 1.6L) phase += 2 * 3.14159265358979323846264338327950288L;
                while (phase > half + 1.6L) phase -= 2 * 3.14159265358979323846264338327950288L;
                half = phase;
                ld ox = c[1] - along * ud[0], oy = c[2] - along * ud[1], oz = c[3] - along * ud[2];
                ld off = sqrtl(ox * ox + oy * oy + oz * oz);
                if (off > off_axis) off_axis = off;
            }
            ld ang = 2 * half;
            ld rel = fabsl(ang - exp_ax) / exp_ax, rel_s = fabsl(ang - sch_ax) / sch_ax;
            if (rel > worst) worst = (double)rel;
            if (rel_s > worst_scheme) worst_scheme = (double)rel_s;
            if ((double)off_axis * TWO30 > worst_off) worst_off = (double)off_axis * (double)TWO30;
            if (!(rel <= spins[s].rel_bound))
                fail_msg("spin %g rad/s axis %d: turned %.9Lf rad, w t = %.9Lf (rel %.3g > %.3g)", spins[s].w, ax,
                         ang, exp_ax, (double)rel, spins[s].rel_bound);
            /* Turns about the axis: the off-axis part of d grows by at most ~1 LSB
             * per step (rounding of a slowly changing q repeats itself). */
            if (!(off_axis * TWO30 < 600)) fail_msg("spin %g axis %d: off-axis %.1Lf LSB", spins[s].w, ax, off_axis * TWO30);
        }
        print_message("  integrate %6g rad/s x 600 steps: w t = %.9Lf (nominal %.9f), scheme %.9Lf; "
                      "max rel error vs w t %.3g (bound %.3g), vs the scheme's own 2 atan(w dt/2) %.3g, off axis %.1f LSB\n",
                      spins[s].w, expect, spins[s].w * 10, scheme, worst, spins[s].rel_bound, worst_scheme, worst_off);
    }
    /* The slowest spin, 1 LSB of w (1.5e-5 rad/s), still turns. */
    qp_quat q = qp_quat_identity();
    for (int k = 0; k < 600; k++) q = qp_quat_integrate(q, qp_v3(0, 0, 1), dt);
    ld ang = quat_angle(q), want = 600 * dtv / TWO16;
    print_message("  integrate 1 LSB (1.53e-5 rad/s) x 600: turned %.4Le rad, w t = %.4Le\n", ang, want);
    assert_true(fabsl(ang - want) / want < 0.01L);
}

static void test_quat_integrate_step(void **state)
{
    (void)state;
    /* One step against its own formula, evaluated exactly: normalize(q + dt/2 (0,w) q). */
    errstat st = ERRSTAT("qp_quat_integrate (one step)", B_INTEGRATE_1);
    rng_seed(21);
    for (int i = 0; i < N_RANDOM; i++) {
        qp_quat q = rng_unit_quat();
        fix16_t dt = (i & 1) ? QP_FRAC(1, 60) : rng_range(1, QP_FRAC(1, 10));
        /* |w dt| <= 0.5 rad as documented. */
        int32_t lim = (int32_t)(0.5 * 65536 / sqrt(3.0) * 65536 / dt);
        if (lim > QP_INT(1000)) lim = QP_INT(1000);
        qp_vec3 w = (i & 2) ? rng_v3_range(-lim, lim) : rng_v3_logmag(20);
        w = qp_v3(w.x % lim, w.y % lim, w.z % lim);
        qp_quat r = qp_quat_integrate(q, w, dt);
        ld c[4], h[3] = { (ld)w.x * dt / 2 / TWO16 / TWO16, (ld)w.y * dt / 2 / TWO16 / TWO16, (ld)w.z * dt / 2 / TWO16 / TWO16 };
        quat_to_ld(q, c);
        ld e[4] = { c[0] - h[0] * c[1] - h[1] * c[2] - h[2] * c[3], c[1] + h[0] * c[0] + h[1] * c[3] - h[2] * c[2],
                    c[2] + h[1] * c[0] + h[2] * c[1] - h[0] * c[3], c[3] + h[2] * c[0] + h[0] * c[2] - h[1] * c[1] };
        ld n = sqrtl(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
        const qp_q30 *rp = &r.w;
        for (int k = 0; k < 4; k++) CHECK_ERR(st, (double)fabsl((ld)rp[k] - e[k] / n * TWO30), "step k=%d", k);
    }
    /* Out of range inputs must not overflow (UBSan) and stay unit. */
    for (int i = 0; i < N_RANDOM; i++) {
        qp_quat q = (i & 1) ? rng_quat_any() : rng_unit_quat();
        qp_vec3 w = rng_v3_any();
        fix16_t dt = rng_any();
        qp_quat r = qp_quat_integrate(q, w, dt);
        (void)r;
    }
    qp_quat r = qp_quat_integrate(qp_quat_identity(), qp_v3(QP_FIX_MAX, INT32_MIN, QP_FIX_MAX), QP_FIX_MAX);
    int64_t n2 = (int64_t)r.w * r.w + (int64_t)r.x * r.x + (int64_t)r.y * r.y + (int64_t)r.z * r.z;
    assert_true(llabs(n2 - ((int64_t)1 << 60)) < ((int64_t)1 << 34));
    /* w = 0: q unchanged; dt = 0 likewise. */
    qp_quat q = rng_unit_quat(), s = qp_quat_integrate(q, qp_v3_zero(), QP_FRAC(1, 60));
    assert_true(abs(s.w - q.w) <= 1 && abs(s.x - q.x) <= 1 && abs(s.y - q.y) <= 1 && abs(s.z - q.z) <= 1);
    report(&st);
}

/* An integer quaternion of |q|^2 = 2^60 exactly: a product of 60 random ones of |q|^2 = 2
 * (two components +-1 at random places), whose lengths multiply exactly. */
static qp_quat rng_exact_unit_quat(void)
{
    int64_t q[4] = { 1, 0, 0, 0 };
    for (int i = 0; i < 60; i++) {
        int64_t f[4] = { 0, 0, 0, 0 };
        int a = (int)(rng_u32() % 4), b = (a + 1 + (int)(rng_u32() % 3)) % 4;
        f[a] = (rng_u32() & 1) ? 1 : -1;
        f[b] = (rng_u32() & 1) ? 1 : -1;
        const int64_t r[4] = { q[0] * f[0] - q[1] * f[1] - q[2] * f[2] - q[3] * f[3],
                               q[0] * f[1] + q[1] * f[0] + q[2] * f[3] - q[3] * f[2],
                               q[0] * f[2] - q[1] * f[3] + q[2] * f[0] + q[3] * f[1],
                               q[0] * f[3] + q[1] * f[2] - q[2] * f[1] + q[3] * f[0] };
        for (int k = 0; k < 4; k++) q[k] = r[k];
    }
    qp_quat out = { (int32_t)q[0], (int32_t)q[1], (int32_t)q[2], (int32_t)q[3] };
    return out;
}

static bool quat_eq(qp_quat a, qp_quat b)
{
    return a.w == b.w && a.x == b.x && a.y == b.y && a.z == b.z;
}

static void test_quat_integrate_no_turn(void **state)
{
    (void)state;
    /* A step without a turn (w dt is 0 in Q32: w = 0 or dt = 0) is qp_quat_normalize(q), bit
     * for bit; where qp__quat_stays says so (no spin, q of exactly unit length), that is q
     * itself at every dt: the engine then keeps q and what it derived from it. */
    rng_seed(77);
    const fix16_t dts[3] = { QP_FRAC(1, 60), QP_FRAC(1, 10), 0 };
    const qp_vec3 spin = qp_v3(1, 0, 0);
    int exact = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        qp_quat q = (i & 1) ? rng_exact_unit_quat() : rng_unit_quat();
        int64_t n2 = (int64_t)q.w * q.w + (int64_t)q.x * q.x + (int64_t)q.y * q.y + (int64_t)q.z * q.z;
        if (i & 1) assert_true(n2 == ((int64_t)1 << 60));
        exact += n2 == ((int64_t)1 << 60);
        assert_true(qp__quat_stays(q, qp_v3_zero()) == (n2 == ((int64_t)1 << 60)));
        assert_false(qp__quat_stays(q, spin));
        qp_quat n;
        assert_true(qp_quat_normalize(q, &n));
        assert_true(quat_eq(qp_quat_integrate(q, qp_v3(QP_INT(1000), 0, -QP_INT(1000)), 0), n));
        for (int k = 0; k < 3; k++) {
            qp_quat r = qp_quat_integrate(q, qp_v3_zero(), dts[k]);
            assert_true(quat_eq(r, n));
            if (qp__quat_stays(q, qp_v3_zero())) assert_true(quat_eq(r, q));
        }
    }
    assert_true(exact >= N_RANDOM / 2);
    /* The identity and the axes' half and quarter turns stay. */
    const int32_t h = (int32_t)1 << 29, one = QP_Q30_ONE;
    const qp_quat axes[6] = { { one, 0, 0, 0 }, { 0, one, 0, 0 }, { 0, 0, -one, 0 }, { 0, 0, 0, one },
                              { h, h, -h, h },  { -h, -h, h, -h } };
    for (int i = 0; i < 6; i++) {
        assert_true(qp__quat_stays(axes[i], qp_v3_zero()));
        assert_true(quat_eq(qp_quat_integrate(axes[i], qp_v3_zero(), QP_FRAC(1, 60)), axes[i]));
    }
}

static void test_quat_to_rot3(void **state)
{
    (void)state;
    errstat sf = ERRSTAT("qp_quat_to_rot3 vs its formula", B_EXACT);
    errstat st = ERRSTAT("qp_quat_to_rot3 vs rotation of q/|q|", B_TO_ROT3);
    errstat so = ERRSTAT("qp_quat_to_rot3 R R^T - I", B_ORTHO);
    rng_seed(22);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_quat q = (i & 1) ? rng_unit_quat() : rng_near_unit_quat();
        if ((i & 3) == 3) {   /* anything within 1 LSB per component of a unit quaternion */
            ld u[4];
            rng_unit_quat_ld(u);
            int32_t c[4];
            for (int k = 0; k < 4; k++) c[k] = (int32_t)((rng_u32() & 1) ? floorl(u[k] * TWO30) : ceill(u[k] * TWO30));
            qp_quat p = { c[0], c[1], c[2], c[3] };
            q = p;
        }
        if ((i & 7) == 6) q = rng_quat_any();   /* any input: saturates, no overflow */
        qp_rot3 r = qp_quat_to_rot3(q);
        /* Against the formula 1 - 2(y^2 + z^2) etc. on the given q: one rounding. */
        i128 w = q.w, x = q.x, y = q.y, z = q.z, one = (i128)1 << 60;
        i128 f[3][3] = { { one - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
                         { 2 * (x * y + w * z), one - 2 * (x * x + z * z), 2 * (y * z - w * x) },
                         { 2 * (x * z - w * y), 2 * (y * z + w * x), one - 2 * (x * x + y * y) } };
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                if (r.m[a][b] != exact_round(f[a][b], 30))
                    fail_msg("to_rot3 (%d,%d,%d,%d) [%d][%d] = %d want %d", q.w, q.x, q.y, q.z, a, b, r.m[a][b], exact_round(f[a][b], 30));
                if (abs(r.m[a][b]) != INT32_MAX) CHECK_ERR(sf, lsb_err(r.m[a][b], f[a][b], 30), "[%d][%d]", a, b);
            }
        if ((i & 7) == 6) continue;
        /* Against the exact rotation of q/|q|, and orthonormality. */
        ld m[3][3];
        rot_of_quat_ld(q, m);
        if (i & 1) {
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) CHECK_ERR(st, (double)fabsl((ld)r.m[a][b] - m[a][b] * TWO30), "[%d][%d]", a, b);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    ld s = 0;
                    for (int k = 0; k < 3; k++) s += (ld)r.m[a][k] * r.m[b][k];
                    CHECK_ERR(so, (double)fabsl(s / TWO30 - (a == b ? TWO30 : 0)), "RR^T [%d][%d]", a, b);
                }
        }
    }
    qp_rot3 id = qp_quat_to_rot3(qp_quat_identity()), i3 = qp_rot3_identity();
    assert_memory_equal(&id, &i3, sizeof id);
    report(&sf);
    report(&st);
    report(&so);
}

static void test_quat_rotate(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_quat_rotate (|v_i| <= 256)", B_ROTATE);
    errstat sb = ERRSTAT("qp_quat_rotate (any v, (err-0.5) per 256 of |v|)", B_ROTATE_PER);
    rng_seed(23);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_quat q = rng_unit_quat();
        bool small = i & 1;
        qp_vec3 v = small ? rng_v3_logmag(24) : rng_v3_any();
        if (small) {
            v.x = v.x > QP_INT(256) ? QP_INT(256) : v.x < -QP_INT(256) ? -QP_INT(256) : v.x;
            v.y = v.y > QP_INT(256) ? QP_INT(256) : v.y < -QP_INT(256) ? -QP_INT(256) : v.y;
            v.z = v.z > QP_INT(256) ? QP_INT(256) : v.z < -QP_INT(256) ? -QP_INT(256) : v.z;
        }
        qp_vec3 r = qp_quat_rotate(q, v);
        ld m[3][3];
        rot_of_quat_ld(q, m);
        const fix16_t *rp = &r.x;
        ld vmax = fmaxl(fabsl((ld)v.x), fmaxl(fabsl((ld)v.y), fabsl((ld)v.z)));
        for (int a = 0; a < 3; a++) {
            ld e = m[a][0] * v.x + m[a][1] * v.y + m[a][2] * v.z;
            if (fabsl(e) > INT32_MAX) continue;   /* saturated: checked by rot3_mul_v3 */
            ld err = fabsl((ld)rp[a] - e);
            if (small) CHECK_ERR(st, (double)err, "q (%d,%d,%d,%d) v (%d,%d,%d)", q.w, q.x, q.y, q.z, v.x, v.y, v.z);
            else CHECK_ERR(sb, (double)((err - 0.5L) / fmaxl(vmax / 16777216.0L, 1)), "v (%d,%d,%d)", v.x, v.y, v.z);
        }
    }
    qp_vec3 v = qp_v3(QP_INT(3), -QP_INT(2), QP_INT(1));
    assert_true(qp_v3_eq(qp_quat_rotate(qp_quat_identity(), v), v));
    report(&st);
    report(&sb);
}

/* ======================================================================== */
/* rotation matrices                                                        */
/* ======================================================================== */

static qp_rot3 rng_rot3_any(void)
{
    qp_rot3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = rng_any();
    return r;
}

static void test_rot3(void **state)
{
    (void)state;
    errstat sm = ERRSTAT("qp_rot3_mul / tmul", B_EXACT), sv = ERRSTAT("qp_rot3_mul_v3 / tmul_v3", B_EXACT);
    rng_seed(24);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        bool any = (i % 4) == 3;
        qp_rot3 a = any ? rng_rot3_any() : rng_rot3(), b = any ? rng_rot3_any() : rng_rot3();
        qp_vec3 v = (i & 1) ? rng_v3_any() : rng_v3_scaled();
        qp_rot3 ab = qp_rot3_mul(&a, &b), atb = qp_rot3_tmul(&a, &b), at = qp_rot3_transpose(&a);
        qp_vec3 av = qp_rot3_mul_v3(&a, v), atv = qp_rot3_tmul_v3(&a, v);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                i128 e = 0, et = 0;
                for (int k = 0; k < 3; k++) {
                    e += (i128)a.m[r][k] * b.m[k][c];
                    et += (i128)a.m[k][r] * b.m[k][c];
                }
                if (ab.m[r][c] != exact_round(e, 30)) fail_msg("rot3_mul [%d][%d]", r, c);
                if (atb.m[r][c] != exact_round(et, 30)) fail_msg("rot3_tmul [%d][%d]", r, c);
                if (abs(ab.m[r][c]) != INT32_MAX) CHECK_ERR(sm, lsb_err(ab.m[r][c], e, 30), "mul");
                if (abs(atb.m[r][c]) != INT32_MAX) CHECK_ERR(sm, lsb_err(atb.m[r][c], et, 30), "tmul");
                assert_int_equal(at.m[r][c], a.m[c][r]);
            }
            i128 e = (i128)a.m[r][0] * v.x + (i128)a.m[r][1] * v.y + (i128)a.m[r][2] * v.z;
            i128 et = (i128)a.m[0][r] * v.x + (i128)a.m[1][r] * v.y + (i128)a.m[2][r] * v.z;
            const fix16_t *avp = &av.x, *atvp = &atv.x;
            if (avp[r] != exact_round(e, 30)) fail_msg("rot3_mul_v3 [%d]", r);
            if (atvp[r] != exact_round(et, 30)) fail_msg("rot3_tmul_v3 [%d]", r);
            if (abs(avp[r]) != INT32_MAX) CHECK_ERR(sv, lsb_err(avp[r], e, 30), "mul_v3");
            if (abs(atvp[r]) != INT32_MAX) CHECK_ERR(sv, lsb_err(atvp[r], et, 30), "tmul_v3");
            /* Rows and columns. */
            qp_vec3 row = qp_rot3_row(&a, r), col = qp_rot3_col(&a, r);
            assert_true(qp_v3_eq(row, qp_v3(a.m[r][0], a.m[r][1], a.m[r][2])));
            assert_true(qp_v3_eq(col, qp_v3(a.m[0][r], a.m[1][r], a.m[2][r])));
        }
        /* tmul_v3 undoes mul_v3 for a rotation (small v: within 2 LSB). */
        if (!any && (i & 1) == 0) {
            qp_vec3 w = rng_v3_logmag(24);
            qp_vec3 back = qp_rot3_tmul_v3(&a, qp_rot3_mul_v3(&a, w));
            assert_true(abs(back.x - w.x) <= 2 && abs(back.y - w.y) <= 2 && abs(back.z - w.z) <= 2);
        }
    }
    qp_rot3 id = qp_rot3_identity();
    qp_rot3 r = rng_rot3(), ri = qp_rot3_mul(&r, &id);
    assert_memory_equal(&ri, &r, sizeof r);
    report(&sm);
    report(&sv);
}

/* ======================================================================== */
/* general matrices                                                         */
/* ======================================================================== */

static qp_mat3 rng_mat3(int bits)
{
    qp_mat3 m;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m.m[i][j] = bits >= 32 ? rng_any() : rng_logmag(bits);
    return m;
}

static void test_mat3_basic(void **state)
{
    (void)state;
    errstat sm = ERRSTAT("qp_mat3_mul", B_EXACT), sv = ERRSTAT("qp_mat3_mul_v3", B_EXACT);
    rng_seed(25);
    qp_mat3 z = qp_mat3_zero(), d = qp_mat3_diag(1, 2, 3);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            assert_int_equal(z.m[i][j], 0);
            assert_int_equal(d.m[i][j], i == j ? i + 1 : 0);
        }
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        int bits = (i & 1) ? 32 : 1 + (int)rng_below(31);
        qp_mat3 a = rng_mat3(bits), b = rng_mat3(bits);
        qp_vec3 v = rng_v3_any();
        qp_mat3 ab = qp_mat3_mul(&a, &b), s = qp_mat3_add(&a, &b), t = qp_mat3_transpose(&a);
        qp_vec3 av = qp_mat3_mul_v3(&a, v);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                i128 e = 0;
                for (int k = 0; k < 3; k++) e += (i128)a.m[r][k] * b.m[k][c];
                if (ab.m[r][c] != exact_round(e, 16)) fail_msg("mat3_mul [%d][%d] = %d want %d", r, c, ab.m[r][c], exact_round(e, 16));
                if (abs(ab.m[r][c]) != INT32_MAX) CHECK_ERR(sm, lsb_err(ab.m[r][c], e, 16), "mul");
                assert_int_equal(s.m[r][c], sat_i128((i128)a.m[r][c] + b.m[r][c]));
                assert_int_equal(t.m[r][c], a.m[c][r]);
            }
            i128 e = (i128)a.m[r][0] * v.x + (i128)a.m[r][1] * v.y + (i128)a.m[r][2] * v.z;
            const fix16_t *avp = &av.x;
            assert_int_equal(avp[r], exact_round(e, 16));
            if (abs(avp[r]) != INT32_MAX) CHECK_ERR(sv, lsb_err(avp[r], e, 16), "mul_v3");
        }
    }
    report(&sm);
    report(&sv);
}

/* Exact inverse, correctly rounded (half away from zero); false when singular
 * or when an entry does not fit. */
static bool inverse_ref(const qp_mat3 *a, qp_mat3 *out)
{
    i128 c[3][3], det = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            c[i][j] = (i128)a->m[i1][j1] * a->m[i2][j2] - (i128)a->m[i1][j2] * a->m[i2][j1];
        }
    for (int j = 0; j < 3; j++) det += (i128)a->m[0][j] * c[0][j];
    if (det == 0) return false;
    i128 dm = det < 0 ? -det : det;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            i128 n = c[i][j] < 0 ? -c[i][j] : c[i][j];
            i128 q = (n * ((i128)1 << 32) + dm / 2) / dm;
            if (q > INT32_MAX) return false;
            out->m[j][i] = (fix16_t)(((c[i][j] < 0) != (det < 0)) ? -q : q);
        }
    return true;
}

/* An inertia-like SPD matrix: R diag(i1, i2, i3) R^T, moments log-uniform in [lo, hi]. */
static qp_mat3 rng_inertia(ld lo, ld hi)
{
    ld m[3][3], d[3];
    for (int k = 0; k < 3; k++) d[k] = lo * powl(hi / lo, (ld)rng_u32() / 4294967296.0L);
    rot_of_quat_ld(rng_unit_quat(), m);
    qp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j <= i; j++) {
            ld s = 0;
            for (int k = 0; k < 3; k++) s += m[i][k] * d[k] * m[j][k];
            r.m[i][j] = r.m[j][i] = (fix16_t)llroundl(s * TWO16);
        }
    return r;
}

static void test_mat3_inverse(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_mat3_inverse", B_EXACT);
    rng_seed(26);
    long ok_general = 0, ok_inertia = 0, n_inertia = 0, n_general = 0;
    ld worst_id = 0;
    for (int i = 0; i < 3 * N_RANDOM; i++) {
        qp_mat3 a;
        int kind = i % 3;
        if (kind == 0) {
            /* Inertia of bodies from 1 cm / 10 g to 10 m / 1000 kg: moments 1e-4 .. 1e4. */
            a = rng_inertia(1e-4L, 1e4L);
            n_inertia++;
        } else if (kind == 1) {
            a = rng_mat3(1 + (int)rng_below(31));
            n_general++;
        } else {
            a = rng_mat3(32);
            n_general++;
        }
        qp_mat3 want, out;
        memset(&out, 0x5A, sizeof out);
        qp_mat3 before = out;
        bool ok = qp_mat3_inverse(&a, &out), ok_ref = inverse_ref(&a, &want);
        if (ok != ok_ref) fail_msg("qp_mat3_inverse returned %d, reference %d (kind %d)", ok, ok_ref, kind);
        if (!ok) {
            assert_memory_equal(&out, &before, sizeof out);   /* untouched */
            continue;
        }
        if (kind == 0) ok_inertia++;
        else ok_general++;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                if (out.m[r][c] != want.m[r][c])
                    fail_msg("qp_mat3_inverse [%d][%d] = %d, correctly rounded %d", r, c, out.m[r][c], want.m[r][c]);
        /* The error against the exact inverse, in LSB (adjugate / det in long double). */
        i128 cof[3][3], det = 0;
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) {
                int p1 = (p + 1) % 3, p2 = (p + 2) % 3, q1 = (q + 1) % 3, q2 = (q + 2) % 3;
                cof[p][q] = (i128)a.m[p1][q1] * a.m[p2][q2] - (i128)a.m[p1][q2] * a.m[p2][q1];
            }
        for (int q = 0; q < 3; q++) det += (i128)a.m[0][q] * cof[0][q];
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                CHECK_ERR(st, (double)fabsl((ld)out.m[q][p] - (ld)cof[p][q] * 4294967296.0L / (ld)det), "inverse");
        /* A * A^-1 = I for the inertia matrices (informative). */
        if (kind == 0) {
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    ld s = 0;
                    for (int k = 0; k < 3; k++) s += (ld)a.m[r][k] * out.m[k][c];
                    s = fabsl(s / TWO16 / TWO16 - (r == c));
                    if (s > worst_id) worst_id = s;
                }
        }
    }
    /* Singular: false and the output untouched. */
    qp_mat3 sing[5];
    sing[0] = qp_mat3_zero();
    sing[1] = qp_mat3_diag(QP_ONE, QP_ONE, 0);
    for (int i = 2; i < 5; i++) {
        sing[i] = rng_mat3(20);
        for (int j = 0; j < 3; j++) {
            if (i == 2) sing[i].m[2][j] = sing[i].m[0][j] + sing[i].m[1][j];   /* row sum */
            if (i == 3) sing[i].m[j][1] = sing[i].m[j][0] * 3;                 /* parallel columns */
            if (i == 4) sing[i].m[1][j] = sing[i].m[0][j];                     /* equal rows */
        }
    }
    for (int i = 0; i < 5; i++) {
        qp_mat3 out, before;
        memset(&out, 0xA5, sizeof out);
        before = out;
        assert_false(qp_mat3_inverse(&sing[i], &out));
        assert_memory_equal(&out, &before, sizeof out);
    }
    /* Small bodies: a 10 cm, 100 g cube (I = 1.7e-4 kg m^2, 11 LSB) has an inverse of 5958: it
     * must be found (cofactors of 121 LSB^2 are below one Q16.16 LSB: rounding them first gave
     * det = 0). A 5 cm, 20 g cube (I = 8.3e-6, rounds to 1 LSB) has 65536: does not fit, false. */
    qp_mat3 small = qp_mat3_diag(QP_FRAC(1, 6000), QP_FRAC(1, 6000), QP_FRAC(1, 6000)), inv;
    assert_true(qp_mat3_inverse(&small, &inv));
    assert_true(abs(inv.m[0][0] - QP_INT(5957)) < QP_INT(1));   /* 65536/11 LSB = 5957.8 */
    qp_mat3 tiny = qp_mat3_diag(QP_FRAC(1, 120000), QP_ONE, QP_ONE);
    assert_false(qp_mat3_inverse(&tiny, &inv));
    qp_mat3 id = qp_mat3_diag(QP_ONE, QP_ONE, QP_ONE);
    assert_true(qp_mat3_inverse(&id, &inv));
    assert_memory_equal(&inv, &id, sizeof id);
    /* Extremes: no overflow. */
    qp_mat3 ext;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) ext.m[i][j] = (i == j) ? INT32_MIN : QP_FIX_MAX;
    qp_mat3 w;
    assert_int_equal(qp_mat3_inverse(&ext, &inv), inverse_ref(&ext, &w));
    print_message("  qp_mat3_inverse: %ld/%ld inertia matrices and %ld/%ld general ones invertible in Q16.16; "
                  "max |A A^-1 - I| %.3Lg on the inertia ones\n", ok_inertia, n_inertia, ok_general, n_general, worst_id);
    assert_true(ok_inertia > n_inertia / 2);
    report(&st);
}

static void test_mat3_rotate(void **state)
{
    (void)state;
    errstat st = ERRSTAT("qp_mat3_rotate (|m_ij| <= 18918)", B_MAT3_ROTATE);
    rng_seed(27);
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        qp_rot3 r = rng_rot3();
        qp_mat3 m;
        if (i & 1) {
            m = rng_inertia(1e-3L, 1e4L);
        } else {
            int b = 1 + (int)rng_below(31);
            for (int a = 0; a < 3; a++)
                for (int c = 0; c <= a; c++) {
                    int32_t v = rng_logmag(b);
                    if (v > 18918 * 65536) v = 18918 * 65536;
                    if (v < -18918 * 65536) v = -18918 * 65536;
                    m.m[a][c] = m.m[c][a] = v;
                }
        }
        qp_mat3 o = qp_mat3_rotate(&r, &m);
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) {
                assert_int_equal(o.m[a][c], o.m[c][a]);   /* exactly symmetric */
                ld e = 0;
                for (int p = 0; p < 3; p++)
                    for (int q = 0; q < 3; q++) e += (ld)r.m[a][p] * m.m[p][q] * r.m[c][q];
                e /= TWO30 * TWO30;
                if (fabsl(e) > INT32_MAX) continue;
                CHECK_ERR(st, (double)fabsl((ld)o.m[a][c] - e), "[%d][%d]", a, c);
            }
    }
    /* Any input: saturates, symmetric, no overflow. */
    for (int i = 0; i < N_RANDOM; i++) {
        qp_rot3 r = rng_rot3_any();
        qp_mat3 m = rng_mat3(32);
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < a; c++) m.m[a][c] = m.m[c][a];
        qp_mat3 o = qp_mat3_rotate(&r, &m);
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) assert_int_equal(o.m[a][c], o.m[c][a]);
    }
    qp_rot3 id = qp_rot3_identity();
    qp_mat3 m = rng_inertia(1e-2L, 1e2L), o = qp_mat3_rotate(&id, &m);
    assert_memory_equal(&o, &m, sizeof m);
    report(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sat_and_shift_round),
        cmocka_unit_test(test_mul),
        cmocka_unit_test(test_udiv64_32),
        cmocka_unit_test(test_sat32_words),
        cmocka_unit_test(test_div),
        cmocka_unit_test(test_mul_q30),
        cmocka_unit_test(test_isqrt64),
        cmocka_unit_test(test_sqrt),
        cmocka_unit_test(test_q30_conversions),
        cmocka_unit_test(test_sin_cos),
        cmocka_unit_test(test_deg_to_rad),
        cmocka_unit_test(test_v3_add_sub_neg),
        cmocka_unit_test(test_v3_scale_mad),
        cmocka_unit_test(test_v3_dot),
        cmocka_unit_test(test_v3_cross),
        cmocka_unit_test(test_v3_len),
        cmocka_unit_test(test_v3_normalize),
        cmocka_unit_test(test_v3_misc),
        cmocka_unit_test(test_quat_mul_conj),
        cmocka_unit_test(test_quat_normalize),
        cmocka_unit_test(test_quat_from_axis_angle),
        cmocka_unit_test(test_quat_integrate_spin),
        cmocka_unit_test(test_quat_integrate_step),
        cmocka_unit_test(test_quat_integrate_no_turn),
        cmocka_unit_test(test_quat_to_rot3),
        cmocka_unit_test(test_quat_rotate),
        cmocka_unit_test(test_rot3),
        cmocka_unit_test(test_mat3_basic),
        cmocka_unit_test(test_mat3_inverse),
        cmocka_unit_test(test_mat3_rotate),
    };
    return cmocka_run_group_tests_name("math", tests, NULL, NULL);
}
