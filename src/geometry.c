/* SPDX-License-Identifier: MIT */
/* Internal geometry helpers (see geometry.h).
 *
 * Closest points of two segments follow Ericson (Real-Time Collision
 * Detection, 5.1.9) in centre form with unit directions, so a = e = 1 and the
 * only division is by 1 - b^2 = sin^2 of the angle between the segments.
 * Non-parallel: s from the infinite lines, clamped; t from s, and when t had
 * to be clamped s is recomputed from t (exact for this convex quadratic).
 * Nearly parallel (sin^2 below QP__PARALLEL_SIN2): the same s from a more
 * precise sin^2. Exactly parallel: any s in the overlap is a closest point;
 * the middle of the overlap is chosen, which is deterministic and gives the
 * capsule code a point between its two contact ends.
 */
#include "geometry.h"
#include "math_inline.h"

static int64_t shr_round64(int64_t v, int n)
{
    return (v + ((int64_t)1 << (n - 1))) >> n;
}

static fix16_t clamp64(int64_t v, fix16_t lo, fix16_t hi)
{
    if (v < lo) return lo;
    if (v > hi) return hi;
    return (fix16_t)v;
}

fix16_t qp__clamp(fix16_t v, fix16_t lo, fix16_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

int64_t qp__div_round64(int64_t n, int64_t d)
{
    if (d == 0) return 0;
    uint64_t un = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    uint64_t ud = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
#if UINTPTR_MAX > 0xFFFFFFFFu
    uint64_t q = un / ud, r = un % ud;   /* one instruction */
#else
    /* A divisor of 32 bits (clipping's, most normalizations') by qp__udiv64_32: the
     * same quotient without a 64-bit division (a library call on a Cortex-M). */
    uint64_t q = ud <= UINT32_MAX ? qp__udiv64_32(un, (uint32_t)ud) : un / ud;
    uint64_t r = un - q * ud;
#endif
    if (r >= ud - r) q++;
    if (q > (uint64_t)INT64_MAX) q = (uint64_t)INT64_MAX;
    return ((n < 0) != (d < 0)) ? -(int64_t)q : (int64_t)q;
}

qp_vec3 qp__v3_mad_q30(qp_vec3 p, qp_vec3 u, fix16_t t)
{
    return qp_v3(qp__sat32((int64_t)p.x + qp__shift_round((int64_t)u.x * t, 30)),
                 qp__sat32((int64_t)p.y + qp__shift_round((int64_t)u.y * t, 30)),
                 qp__sat32((int64_t)p.z + qp__shift_round((int64_t)u.z * t, 30)));
}

qp_vec3 qp__v3_mid(qp_vec3 a, qp_vec3 b)
{
    return qp_v3((fix16_t)(((int64_t)a.x + b.x + 1) >> 1), (fix16_t)(((int64_t)a.y + b.y + 1) >> 1),
                 (fix16_t)(((int64_t)a.z + b.z + 1) >> 1));
}

qp_vec3 qp__rot_q30(const qp_rot3 *r, qp_vec3 u)
{
    /* Same arithmetic as for a Q16.16 vector: the result keeps u's scale. */
    return qp__rot3_mul_v3(r, u);
}

bool qp__normal_or(qp_vec3 d, qp_vec3 fallback, qp_vec3 *n)
{
    if (qp_v3_normalize_q30(d, n)) return true;
    *n = fallback;
    return false;
}

qp_vec3 qp__perpendicular(qp_vec3 u)
{
    qp_vec3 a = qp_v3_abs(u), c, n;
    /* u x e_k for the axis k of u's smallest component (ties: lower k). */
    if (a.x <= a.y && a.x <= a.z) c = qp_v3(0, u.z, qp__sat32(-(int64_t)u.y));
    else if (a.y <= a.z) c = qp_v3(qp__sat32(-(int64_t)u.z), 0, u.x);
    else c = qp_v3(u.y, qp__sat32(-(int64_t)u.x), 0);
    qp__normal_or(c, qp_v3(QP_Q30_ONE, 0, 0), &n);
    return n;
}

qp__segment qp__segment_from_points(qp_vec3 p0, qp_vec3 p1)
{
    qp__segment seg;
    qp_vec3 d = qp__v3_sub(p1, p0);
    seg.c = qp__v3_mid(p0, p1);
    if (!qp_v3_normalize_q30(d, &seg.u)) {
        seg.u = qp_v3(0, QP_Q30_ONE, 0);
        seg.h = 0;
        return seg;
    }
    seg.h = (fix16_t)(((int64_t)qp_v3_len(d) + 1) >> 1);
    return seg;
}

qp_vec3 qp__segment_point(const qp__segment *seg, fix16_t s)
{
    return qp__v3_mad_q30(seg->c, seg->u, s);
}

fix16_t qp__segment_closest_s(const qp__segment *seg, qp_vec3 p)
{
    return qp__clamp(qp__v3_dot_q30(qp__v3_sub(p, seg->c), seg->u), -seg->h, seg->h);
}

qp_vec3 qp__segment_closest_point(const qp__segment *seg, qp_vec3 p)
{
    return qp__segment_point(seg, qp__segment_closest_s(seg, p));
}

bool qp__segments_closest(const qp__segment *a, const qp__segment *b, fix16_t *s_out, fix16_t *t_out)
{
    qp_vec3 r = qp__v3_sub(a->c, b->c);
    /* b = ua.ub in Q2.30; c = ua.r, f = ub.r in Q16.16. */
    int64_t bb = shr_round64((int64_t)a->u.x * b->u.x + (int64_t)a->u.y * b->u.y +
                             (int64_t)a->u.z * b->u.z, 30);
    int64_t c = qp__v3_dot_q30(r, a->u);
    int64_t f = qp__v3_dot_q30(r, b->u);
    /* 1 - b^2 in Q2.30 (b may exceed 1 by a few LSB: then negative = parallel). */
    int64_t den = shr_round64(((int64_t)1 << 60) - bb * bb, 30);
    bool parallel = den <= QP__PARALLEL_SIN2;
    /* s = (b f - c) / (1 - b^2) with b f - c = r.(b ub - ua). The numerator
     * is divided by sin^2: c and f rounded to Q16.16 would cost 0.5 LSB /
     * sin^2 in s, so it is formed as r.w exactly in Q46, w = b ub - ua in
     * Q2.30 (|r| < 2^28 raw: every product below 2^58). */
    qp_vec3 w = qp_v3((fix16_t)(shr_round64(bb * b->u.x, 30) - a->u.x),
                      (fix16_t)(shr_round64(bb * b->u.y, 30) - a->u.y),
                      (fix16_t)(shr_round64(bb * b->u.z, 30) - a->u.z));
    int64_t num = (int64_t)r.x * w.x + (int64_t)r.y * w.y + (int64_t)r.z * w.z;
    /* Nearly parallel, 1 - b^2 has lost its precision to b's rounding but
     * w.w (sin^2 in Q60) has not: w is small and exact to 0.5 LSB a
     * component. Then s = r.w / w.w, num shifted up by k bits as far as int64
     * allows and w.w down by the other 30 - k. Without it the angle times the
     * distance along the overlap tilts the normal: the middle of the overlap
     * is not the closest point of two skew segments. */
    int k = 0;
    int64_t sin2 = 0;
    if (parallel) {
        int64_t mag = num < 0 ? -num : num;
        for (k = 30; k > 0 && (mag >> (62 - k)) != 0; k--) {}
        int64_t ww = (int64_t)w.x * w.x + (int64_t)w.y * w.y + (int64_t)w.z * w.z;
        sin2 = k == 30 ? ww : shr_round64(ww, 30 - k);
    }
    fix16_t s;
    if (!parallel) {
        s = clamp64(qp__div_round64(num, den), -a->h, a->h);
    } else if (sin2 > 0) {
        s = clamp64(qp__div_round64(num * ((int64_t)1 << k), sin2), -a->h, a->h);
    } else {
        /* b's extent along a: centre -c, half length hb |b|. */
        int64_t ext = shr_round64((bb < 0 ? -bb : bb) * b->h, 30);
        int64_t lo = -c - ext, hi = -c + ext;
        if (lo < -a->h) lo = -a->h;
        if (hi > a->h) hi = a->h;
        s = lo <= hi ? (fix16_t)((lo + hi) >> 1) : clamp64(-c, -a->h, a->h);
    }
    int64_t t = shr_round64(bb * s, 30) + f;
    if (t < -b->h || t > b->h) {
        t = t < 0 ? -b->h : b->h;
        s = clamp64(shr_round64(bb * t, 30) - c, -a->h, a->h);
    }
    *s_out = s;
    *t_out = (fix16_t)t;
    return parallel;
}
