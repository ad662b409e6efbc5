/* Fixed-point math layer (see include/qphys/math.h for forms and bounds).
 *
 * Every product goes through int64_t and is rounded once. Negative values are
 * never shifted left (undefined behaviour in C): scaling up is a multiply.
 * Right shifts of negative int64 are arithmetic on every compiler we target
 * (gcc, clang; implementation-defined, checked by the probe hashes).
 */
#include "qphys/math.h"

int32_t qp_sat32(int64_t v)
{
    if (v > INT32_MAX) return INT32_MAX;
    if (v < -INT32_MAX) return -INT32_MAX;
    return (int32_t)v;
}

int32_t qp_shift_round(int64_t v, int n)
{
    /* v + half cannot overflow for the products we form (|v| < 2^62.6). */
    return qp_sat32((v + ((int64_t)1 << (n - 1))) >> n);
}

static int64_t shift_round64(int64_t v, int n)
{
    return (v + ((int64_t)1 << (n - 1))) >> n;
}

fix16_t qp_mul(fix16_t a, fix16_t b)
{
    return qp_shift_round((int64_t)a * b, 16);
}

fix16_t qp_div(fix16_t a, fix16_t b)
{
    if (b == 0) return 0;
    int64_t num = (int64_t)a * 65536;
    int64_t half = (b < 0 ? -(int64_t)b : (int64_t)b) / 2;
    /* Round half away from zero on the magnitude, then restore the sign. */
    bool neg = (a < 0) != (b < 0);
    int64_t n = num < 0 ? -num : num;
    int64_t d = b < 0 ? -(int64_t)b : (int64_t)b;
    int64_t q = (n + half) / d;
    return qp_sat32(neg ? -q : q);
}

fix16_t qp_mul_q30(fix16_t a, qp_q30 u)
{
    return qp_shift_round((int64_t)a * u, 30);
}

uint32_t qp_isqrt64(uint64_t v)
{
    uint64_t res = 0;
    uint64_t bit = (uint64_t)1 << 62;
    while (bit > v) bit >>= 2;
    while (bit != 0) {
        if (v >= res + bit) {
            v -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    return (uint32_t)res;
}

/* Rounded square root of a 64-bit value: floor root r, plus one when
 * v - r^2 > r (i.e. v > (r + 1/2)^2 - 1/4). */
static uint32_t isqrt64_round(uint64_t v)
{
    uint32_t r = qp_isqrt64(v);
    if (v - (uint64_t)r * r > r) r++;
    return r;
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

/* 2*pi and pi/2 with 40 fractional bits, for exact-enough range reduction. */
#define TWO_PI_Q40   INT64_C(6908435304716)
#define HALF_PI_Q40  INT64_C(1727108826179)

/* sin and cos of x in Q2.30, |x| <= pi/4 + a little, by Taylor series
 * (the first omitted term is below 2e-9 at pi/4). */
static void sincos_small(int64_t x, int64_t *s, int64_t *c)
{
    int64_t x2 = shift_round64(x * x, 30);
    /* Horner form: sin = x(1 - x2/6(1 - x2/20(1 - x2/42(1 - x2/72)))) */
    int64_t t = QP_Q30_ONE - x2 / 72;
    t = QP_Q30_ONE - shift_round64(x2 * t, 30) / 42;
    t = QP_Q30_ONE - shift_round64(x2 * t, 30) / 20;
    t = QP_Q30_ONE - shift_round64(x2 * t, 30) / 6;
    *s = shift_round64(x * t, 30);
    /* cos = 1 - x2/2(1 - x2/12(1 - x2/30(1 - x2/56(1 - x2/90)))) */
    t = QP_Q30_ONE - x2 / 90;
    t = QP_Q30_ONE - shift_round64(x2 * t, 30) / 56;
    t = QP_Q30_ONE - shift_round64(x2 * t, 30) / 30;
    t = QP_Q30_ONE - shift_round64(x2 * t, 30) / 12;
    *c = QP_Q30_ONE - shift_round64(x2 * t, 30) / 2;
}

/* Reduce a Q16.16 angle to x in [-pi/4, pi/4] (Q2.30) and a quadrant 0..3. */
static int64_t reduce_angle(fix16_t angle, int *quadrant)
{
    int64_t a = (int64_t)angle * ((int64_t)1 << 24);   /* Q40 */
    a %= TWO_PI_Q40;
    if (a < 0) a += TWO_PI_Q40;                          /* [0, 2pi) */
    int q = (int)((a + HALF_PI_Q40 / 2) / HALF_PI_Q40);  /* nearest quarter, 0..4 */
    a -= (int64_t)q * HALF_PI_Q40;
    *quadrant = q & 3;
    return shift_round64(a, 10);
}

qp_q30 qp_sin_q30(fix16_t angle)
{
    int q;
    int64_t s, c;
    sincos_small(reduce_angle(angle, &q), &s, &c);
    switch (q) {
    case 0: return qp_sat32(s);
    case 1: return qp_sat32(c);
    case 2: return qp_sat32(-s);
    default: return qp_sat32(-c);
    }
}

qp_q30 qp_cos_q30(fix16_t angle)
{
    int q;
    int64_t s, c;
    sincos_small(reduce_angle(angle, &q), &s, &c);
    switch (q) {
    case 0: return qp_sat32(c);
    case 1: return qp_sat32(-s);
    case 2: return qp_sat32(-c);
    default: return qp_sat32(s);
    }
}

fix16_t qp_deg_to_rad(fix16_t deg)
{
    /* pi/180 in Q32 = 74961320.9 */
    return qp_shift_round((int64_t)deg * INT64_C(74961321), 32);
}

/* ---- vectors ----------------------------------------------------------- */

qp_vec3 qp_v3_add(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(qp_sat32((int64_t)a.x + b.x), qp_sat32((int64_t)a.y + b.y),
                 qp_sat32((int64_t)a.z + b.z));
}

qp_vec3 qp_v3_sub(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(qp_sat32((int64_t)a.x - b.x), qp_sat32((int64_t)a.y - b.y),
                 qp_sat32((int64_t)a.z - b.z));
}

qp_vec3 qp_v3_neg(qp_vec3 a)
{
    return qp_v3(qp_sat32(-(int64_t)a.x), qp_sat32(-(int64_t)a.y), qp_sat32(-(int64_t)a.z));
}

qp_vec3 qp_v3_scale(qp_vec3 a, fix16_t s)
{
    return qp_v3(qp_mul(a.x, s), qp_mul(a.y, s), qp_mul(a.z, s));
}

qp_vec3 qp_v3_mad(qp_vec3 a, qp_vec3 b, fix16_t s)
{
    const int64_t h = (int64_t)1 << 15;
    return qp_v3(qp_sat32((((int64_t)a.x * 65536) + (int64_t)b.x * s + h) >> 16),
                 qp_sat32((((int64_t)a.y * 65536) + (int64_t)b.y * s + h) >> 16),
                 qp_sat32((((int64_t)a.z * 65536) + (int64_t)b.z * s + h) >> 16));
}

qp_vec3 qp_v3_scale_q30(qp_vec3 a, qp_q30 u)
{
    return qp_v3(qp_mul_q30(a.x, u), qp_mul_q30(a.y, u), qp_mul_q30(a.z, u));
}

int64_t qp_v3_dot_wide(qp_vec3 a, qp_vec3 b)
{
    /* Each product is below 2^62 in magnitude; their sum below 2^63.6 only if
     * all three are at the extreme, so add with care: halve first. */
    int64_t p0 = (int64_t)a.x * b.x, p1 = (int64_t)a.y * b.y, p2 = (int64_t)a.z * b.z;
    /* |p| <= 2^62 - 2^32 + 1; p0 + p1 fits, adding p2 may not: saturate. */
    int64_t s = p0 + p1;
    if (p2 > 0 && s > INT64_MAX - p2) return INT64_MAX;
    if (p2 < 0 && s < INT64_MIN - p2) return INT64_MIN;
    return s + p2;
}

fix16_t qp_v3_dot(qp_vec3 a, qp_vec3 b)
{
    int64_t s = qp_v3_dot_wide(a, b);
    if (s > (INT64_MAX >> 1) || s < (INT64_MIN >> 1)) return s > 0 ? QP_FIX_MAX : QP_FIX_MIN;
    return qp_shift_round(s, 16);
}

static fix16_t cross_term(fix16_t a, fix16_t b, fix16_t c, fix16_t d)
{
    /* a*b - c*d: each product below 2^62, difference below 2^63. */
    return qp_shift_round((int64_t)a * b - (int64_t)c * d, 16);
}

qp_vec3 qp_v3_cross(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(cross_term(a.y, b.z, a.z, b.y),
                 cross_term(a.z, b.x, a.x, b.z),
                 cross_term(a.x, b.y, a.y, b.x));
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
    uint64_t len = isqrt64_round(s);  /* = |a| * 2^(16 + k), >= 2^30 */
    /* component * 2^(16+k) / |a|2^(16+k) ... want component/|a| * 2^frac:
     * c (Q16) * 2^(frac + k) / len. c * 2^(frac+k) < 2^31 * 2^45 fits. */
    int64_t comp[3] = { a.x, a.y, a.z };
    fix16_t res[3];
    for (int i = 0; i < 3; i++) {
        int64_t n = comp[i] * ((int64_t)1 << (frac + k));
        int64_t mag = n < 0 ? -n : n;
        int64_t q = (mag + (int64_t)(len / 2)) / (int64_t)len;
        res[i] = qp_sat32(n < 0 ? -q : q);
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

static fix16_t abs_sat(fix16_t v)
{
    return v < 0 ? qp_sat32(-(int64_t)v) : v;
}

qp_vec3 qp_v3_abs(qp_vec3 a)
{
    return qp_v3(abs_sat(a.x), abs_sat(a.y), abs_sat(a.z));
}

fix16_t qp_v3_max_abs(qp_vec3 a)
{
    fix16_t m = abs_sat(a.x);
    fix16_t y = abs_sat(a.y), z = abs_sat(a.z);
    if (y > m) m = y;
    if (z > m) m = z;
    return m;
}

fix16_t qp_v3_dot_q30(qp_vec3 a, qp_vec3 u)
{
    /* Each product below 2^61 (|u| <= 2): the sum fits. */
    return qp_shift_round((int64_t)a.x * u.x + (int64_t)a.y * u.y + (int64_t)a.z * u.z, 30);
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
    /* Components of unit quaternions are within +-1: every sum of four
     * products is below 2^62. */
    qp_quat r;
    r.w = qp_shift_round((int64_t)a.w * b.w - (int64_t)a.x * b.x - (int64_t)a.y * b.y - (int64_t)a.z * b.z, 30);
    r.x = qp_shift_round((int64_t)a.w * b.x + (int64_t)a.x * b.w + (int64_t)a.y * b.z - (int64_t)a.z * b.y, 30);
    r.y = qp_shift_round((int64_t)a.w * b.y - (int64_t)a.x * b.z + (int64_t)a.y * b.w + (int64_t)a.z * b.x, 30);
    r.z = qp_shift_round((int64_t)a.w * b.z + (int64_t)a.x * b.y - (int64_t)a.y * b.x + (int64_t)a.z * b.w, 30);
    return r;
}

qp_quat qp_quat_conj(qp_quat q)
{
    qp_quat r = { q.w, qp_sat32(-(int64_t)q.x), qp_sat32(-(int64_t)q.y), qp_sat32(-(int64_t)q.z) };
    return r;
}

bool qp_quat_normalize(qp_quat q, qp_quat *out)
{
    /* Sum of squares in Q4.60 (components below 2 in magnitude: < 2^64 / 4 * 4,
     * kept unsigned). Its root is the length in Q2.30. */
    uint64_t s = (uint64_t)((int64_t)q.w * q.w) + (uint64_t)((int64_t)q.x * q.x) +
                 (uint64_t)((int64_t)q.y * q.y) + (uint64_t)((int64_t)q.z * q.z);
    if (s == 0) {
        *out = qp_quat_identity();
        return false;
    }
    /* Use the most bits the 64-bit range allows for the length. */
    int k = 0;
    while (k < 31 && s < ((uint64_t)1 << 61)) {
        s <<= 2;
        k++;
    }
    int64_t len = (int64_t)isqrt64_round(s);  /* |q| in Q(30 + k) */
    int64_t c[4] = { q.w, q.x, q.y, q.z };
    int32_t r[4];
    for (int i = 0; i < 4; i++) {
        int64_t n = c[i] * ((int64_t)1 << (30 + k));  /* |c| 2^k < 2^31.5 by the loop */
        int64_t mag = n < 0 ? -n : n;
        int64_t v = (mag + len / 2) / len;
        r[i] = qp_sat32(n < 0 ? -v : v);
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
    /* Half angle without losing the lowest bit: sin/cos of angle/2 where the
     * halving happens in the reduction's Q40 space is overkill; angle/2 in
     * Q16.16 loses at most half an LSB of angle (7.6e-6 rad). */
    fix16_t half = angle / 2;
    qp_q30 s = qp_sin_q30(half), c = qp_cos_q30(half);
    qp_quat q = { c, qp_shift_round((int64_t)u.x * s, 30), qp_shift_round((int64_t)u.y * s, 30),
                  qp_shift_round((int64_t)u.z * s, 30) };
    return qp_quat_normalize(q, out);
}

qp_quat qp_quat_integrate(qp_quat q, qp_vec3 w, fix16_t dt)
{
    /* h = w * dt / 2 in Q2.30: (Q16 * Q16) = Q32, shift by 3 gives Q30 / 2. */
    int64_t hx = shift_round64((int64_t)w.x * dt, 3);
    int64_t hy = shift_round64((int64_t)w.y * dt, 3);
    int64_t hz = shift_round64((int64_t)w.z * dt, 3);
    /* dq = (0, h) * q */
    int64_t dw = -hx * q.x - hy * q.y - hz * q.z;
    int64_t dx = hx * q.w + hy * q.z - hz * q.y;
    int64_t dy = hy * q.w + hz * q.x - hx * q.z;
    int64_t dz = hz * q.w + hx * q.y - hy * q.x;
    qp_quat r = { qp_sat32(q.w + shift_round64(dw, 30)), qp_sat32(q.x + shift_round64(dx, 30)),
                  qp_sat32(q.y + shift_round64(dy, 30)), qp_sat32(q.z + shift_round64(dz, 30)) };
    qp_quat n;
    if (!qp_quat_normalize(r, &n)) return q;
    return n;
}

qp_rot3 qp_quat_to_rot3(qp_quat q)
{
    /* Products in Q60, each term's sum below 2^62; result 1 - 2(...) in Q30. */
    int64_t xx = (int64_t)q.x * q.x, yy = (int64_t)q.y * q.y, zz = (int64_t)q.z * q.z;
    int64_t xy = (int64_t)q.x * q.y, xz = (int64_t)q.x * q.z, yz = (int64_t)q.y * q.z;
    int64_t wx = (int64_t)q.w * q.x, wy = (int64_t)q.w * q.y, wz = (int64_t)q.w * q.z;
    qp_rot3 r;
    r.m[0][0] = qp_sat32(QP_Q30_ONE - shift_round64(yy + zz, 29));
    r.m[0][1] = qp_shift_round(xy - wz, 29);
    r.m[0][2] = qp_shift_round(xz + wy, 29);
    r.m[1][0] = qp_shift_round(xy + wz, 29);
    r.m[1][1] = qp_sat32(QP_Q30_ONE - shift_round64(xx + zz, 29));
    r.m[1][2] = qp_shift_round(yz - wx, 29);
    r.m[2][0] = qp_shift_round(xz - wy, 29);
    r.m[2][1] = qp_shift_round(yz + wx, 29);
    r.m[2][2] = qp_sat32(QP_Q30_ONE - shift_round64(xx + yy, 29));
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
    fix16_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = qp_shift_round((int64_t)r->m[i][0] * v.x + (int64_t)r->m[i][1] * v.y +
                              (int64_t)r->m[i][2] * v.z, 30);
    return qp_v3(o[0], o[1], o[2]);
}

qp_vec3 qp_rot3_tmul_v3(const qp_rot3 *r, qp_vec3 v)
{
    fix16_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = qp_shift_round((int64_t)r->m[0][i] * v.x + (int64_t)r->m[1][i] * v.y +
                              (int64_t)r->m[2][i] * v.z, 30);
    return qp_v3(o[0], o[1], o[2]);
}

qp_rot3 qp_rot3_mul(const qp_rot3 *a, const qp_rot3 *b)
{
    qp_rot3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = qp_shift_round((int64_t)a->m[i][0] * b->m[0][j] + (int64_t)a->m[i][1] * b->m[1][j] +
                                       (int64_t)a->m[i][2] * b->m[2][j], 30);
    return r;
}

qp_rot3 qp_rot3_tmul(const qp_rot3 *a, const qp_rot3 *b)
{
    qp_rot3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = qp_shift_round((int64_t)a->m[0][i] * b->m[0][j] + (int64_t)a->m[1][i] * b->m[1][j] +
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

/* Sum of three products of int32 values, saturated to the int64 range that
 * keeps the later shift exact (three products of 2^62 could reach 2^63.6). */
static int64_t dot3_raw(int32_t a0, int32_t a1, int32_t a2, int32_t b0, int32_t b1, int32_t b2)
{
    return qp_v3_dot_wide(qp_v3(a0, a1, a2), qp_v3(b0, b1, b2));
}

static int32_t round_sat_wide(int64_t s, int n)
{
    if (s > (INT64_MAX >> 1) || s < (INT64_MIN >> 1)) return s > 0 ? INT32_MAX : -INT32_MAX;
    return qp_shift_round(s, n);
}

qp_mat3 qp_mat3_mul(const qp_mat3 *a, const qp_mat3 *b)
{
    qp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = round_sat_wide(dot3_raw(a->m[i][0], a->m[i][1], a->m[i][2],
                                                b->m[0][j], b->m[1][j], b->m[2][j]), 16);
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
    fix16_t o[3];
    for (int i = 0; i < 3; i++) o[i] = qp_v3_dot(qp_v3(a->m[i][0], a->m[i][1], a->m[i][2]), v);
    return qp_v3(o[0], o[1], o[2]);
}

qp_mat3 qp_mat3_add(const qp_mat3 *a, const qp_mat3 *b)
{
    qp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r.m[i][j] = qp_sat32((int64_t)a->m[i][j] + b->m[i][j]);
    return r;
}

bool qp_mat3_inverse(const qp_mat3 *a, qp_mat3 *out)
{
    /* Cofactors as raw Q32.32 (products of two Q16.16 entries). */
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
    /* det = sum_j m[0][j] * c[0][j]: Q16 * Q32 needs 96 bits; bring cofactors
     * to Q16 first (their rounding error stays within the stated bound). */
    int64_t det = 0;
    for (int j = 0; j < 3; j++) {
        int64_t cj = shift_round64(c[0][j], 16);
        if (cj > INT32_MAX || cj < -INT32_MAX) return false;
        det += (int64_t)m[0][j] * cj;  /* Q32, three terms below 2^62 each */
    }
    if (det == 0) return false;
    /* inverse[j][i] = c[i][j] / det: Q32 / Q32, numerator scaled by 2^16.
     * Supported: cofactors below 32768 in value (entries below ~180). */
    qp_mat3 r;
    int64_t dm = det < 0 ? -det : det;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int64_t n = c[i][j];
            if (n > (INT64_MAX >> 17) || n < -(INT64_MAX >> 17)) return false;
            int64_t mag = (n < 0 ? -n : n) * 65536;
            int64_t q = (mag + dm / 2) / dm;
            if (q > INT32_MAX) return false;
            r.m[j][i] = (fix16_t)(((n < 0) != (det < 0)) ? -q : q);
        }
    *out = r;
    return true;
}

qp_mat3 qp_mat3_rotate(const qp_rot3 *r, const qp_mat3 *m)
{
    /* t = M R^T with 64-bit accumulation, kept in Q16 + extra 14 bits? keep
     * it simple: t in Q16.16 (rounded once), then R t (rounded once). */
    qp_mat3 t, o;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t.m[i][j] = round_sat_wide((int64_t)m->m[i][0] * r->m[j][0] + (int64_t)m->m[i][1] * r->m[j][1] +
                                       (int64_t)m->m[i][2] * r->m[j][2], 30);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            o.m[i][j] = round_sat_wide((int64_t)r->m[i][0] * t.m[0][j] + (int64_t)r->m[i][1] * t.m[1][j] +
                                       (int64_t)r->m[i][2] * t.m[2][j], 30);
    /* Keep the result exactly symmetric: average the two triangles. */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            int64_t s = (int64_t)o.m[i][j] + o.m[j][i];
            o.m[i][j] = o.m[j][i] = (fix16_t)(s >= 0 ? (s + 1) / 2 : -((-s + 1) / 2));
        }
    return o;
}
