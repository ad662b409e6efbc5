/* SPDX-License-Identifier: MIT */
/* A box against a plane, a sphere and a capsule (seed 001: corners below a
 * plane, closest points; docs/design.md §4).
 *
 * All three work in the box's own frame, where the box is [-h, h]: the other
 * shape is brought over with one rotation (R^T, Q2.30, 64-bit sums, one
 * rounding) and results go back with one more, so nothing is ever squared at
 * world scale. Depths along an axis are formed exactly as Q16.16 x Q2.30 sums
 * in 64 bits ("Q46") and rounded once.
 *
 * Plane-box: the four corners of the face turned most towards the plane,
 * depth = offset - n.corner, all four once the deepest is within the margin:
 * those past it are speculative points, which push only when their corner
 * closes more than its gap in the step. Ids are corner indices (bit k set
 * when the corner is on the + side of box axis k).
 *
 * Sphere-box: the closest point on the box to the centre (a clamp). A centre
 * inside the box is pushed out through the face of least penetration (ties:
 * lower axis, + side). One point, id 0.
 *
 * Capsule-box: the separating axis test of the capsule's segment against the
 * box (three face axes, three segment x edge axes) rejects early and, when
 * the segment cuts into the box, gives the axis of least penetration (face
 * preferred within tolerance, as in box-box). When the segment misses the box
 * the true closest points decide instead (SAT only bounds the distance from
 * below, wrongly near a corner): the squared distance to the box along the
 * segment is convex, so the closest point is where its slope changes sign,
 * found by bisection to 1 LSB. (Not the least of per-feature candidates, the
 * ends against the box and the segment against each of the 12 edges: near a
 * corner two candidates 1 mm apart differ by less than the rounding, and the
 * normal comes out up to 0.4 degree off.) If a face axis explains that
 * distance within tolerance it is a face contact: the segment is clipped to
 * the face's rectangle and each clipped end becomes a point with its own
 * depth (lying flat: two points, ids 0 and 1 for the -y and +y ends);
 * otherwise one point along the closest-point direction (id 0 or 1 at an end,
 * 2 in between). The segment x edge case uses geometry.h's closest points.
 *
 * Like every pair function, the shapes' offset and rotation fields are not
 * read: the caller passes shape frames (qp_shape_transform).
 */
#include <string.h>
#include "qphys/collide.h"
#include "geometry.h"
#include "math_inline.h"



static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static int64_t isqrt_round(int64_t v)
{
    uint32_t r = qp_isqrt64((uint64_t)v);
    if ((uint64_t)v - (uint64_t)r * r > r) r++;
    return r;
}

static fix16_t comp(qp_vec3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

static void set_comp(qp_vec3 *v, int k, fix16_t x)
{
    if (k == 0) v->x = x;
    else if (k == 1) v->y = x;
    else v->z = x;
}

/* Unit vector +-e_k in Q2.30. */
static qp_vec3 axis30(int k, int s)
{
    qp_vec3 v = qp_v3_zero();
    set_comp(&v, k, s > 0 ? QP_Q30_ONE : -QP_Q30_ONE);
    return v;
}

/* Write one contact back in A's frame: point p and normal n (Q2.30) given in
 * B's frame. */
static void put_point(const qp_transform *xf, qp_vec3 p, fix16_t depth, uint32_t id, qp_manifold_point *mp)
{
    mp->point = qp__v3_add(xf->p, qp__rot3_mul_v3(&xf->r, p));
    mp->depth = depth;
    mp->id = id;
}

static void put_normal(const qp_transform *xf, qp_vec3 n30, qp_manifold *m)
{
    qp_vec3 n = qp__rot_q30(&xf->r, n30);
    qp__normal_or(n, n, &m->normal);
}

/* ---- plane - box ------------------------------------------------------------ */

int qp_collide_plane_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                         fix16_t margin, qp_manifold *m)
{
    const qp_q30 (*R)[3] = b_in_a->r.m;
    const qp_vec3 n = a->normal;
    const fix16_t nv[3] = { n.x, n.y, n.z };
    const fix16_t t[3] = { b_in_a->p.x, b_in_a->p.y, b_in_a->p.z };
    const fix16_t h[3] = { b->half.x, b->half.y, b->half.z };
    memset(m, 0, sizeof *m);
    /* Depth of the box centre, and the plane normal in the box frame. */
    int64_t base = (int64_t)a->plane_offset * QP__W_ONE -
                   ((int64_t)nv[0] * t[0] + (int64_t)nv[1] * t[1] + (int64_t)nv[2] * t[2]);
    int64_t nb[3], ext = 0;
    for (int k = 0; k < 3; k++) {
        nb[k] = qp__shift_round((int64_t)R[0][k] * nv[0] + (int64_t)R[1][k] * nv[1] + (int64_t)R[2][k] * nv[2], 30);
        ext += abs64(nb[k]) * h[k];
    }
    if (base + ext < -(int64_t)margin * QP__W_ONE) return 0;

    /* Only the corners of the face turned most towards the plane (axis `low`, ties: lower):
     * each corner of the opposite face lies 2 h |n_k| above its partner on this one. With
     * every corner within the margin, a box thinner than it (a half extent of 0.01: 2 cm)
     * had top corners among the candidates, and the reduction, which picks by the points'
     * spread along the plane, took a top corner for the bottom one beneath it: a 2 cm plank
     * rested on three corners and sank 2-3 mm into the floor, rocking; a 2 cm cube of 0.1 kg
     * rocked until it was thrown off. Four points need no reduction.
     *
     * All four, the far ones with their gaps: a box landing on an edge is spun by the blow,
     * and the edge it turns down must meet the plane in the same step. With only the corners
     * within the margin, a cube landing edge-first at 12 m/s turned its far edge 27 cm down
     * in one step, 3 cm under the plane where the contact had no point, and ended 10 cm deep
     * (bench_impacts seed 50254). The deepest corner is within the margin (the test above). */
    int low = 0;
    for (int k = 1; k < 3; k++)
        if (abs64(nb[k]) > abs64(nb[low])) low = k;
    const int low_bit = nb[low] < 0;   /* that face's corners have +h along it when n_k < 0 */
    int count = 0;
    for (int c = 0; c < 8; c++) {
        if (((c >> low) & 1) != low_bit) continue;
        int64_t d = base;
        qp_vec3 local = qp_v3_zero();
        for (int k = 0; k < 3; k++) {
            fix16_t hk = (c >> k) & 1 ? h[k] : -h[k];
            d -= nb[k] * hk;
            set_comp(&local, k, hk);
        }
        fix16_t dep = qp__shift_round(d, 30);
        qp_vec3 p = qp__v3_add(b_in_a->p, qp__rot3_mul_v3(&b_in_a->r, local));
        /* Midway: half the depth along n, towards the plane's surface. */
        m->points[count].point = qp_v3(qp__sat32((int64_t)p.x + qp__shift_round((int64_t)n.x * dep, 31)),
                                       qp__sat32((int64_t)p.y + qp__shift_round((int64_t)n.y * dep, 31)),
                                       qp__sat32((int64_t)p.z + qp__shift_round((int64_t)n.z * dep, 31)));
        m->points[count].depth = dep;
        m->points[count].id = (uint32_t)c;
        count++;
    }
    m->normal = n;
    m->count = count;
    return count;
}

/* ---- sphere - box ------------------------------------------------------------- */

int qp_collide_sphere_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                          fix16_t margin, qp_manifold *m)
{
    const fix16_t r = a->radius;
    const fix16_t h[3] = { b->half.x, b->half.y, b->half.z };
    memset(m, 0, sizeof *m);
    if (qp__v3_max_abs(b_in_a->p) > QP__BOX_FAR) return 0;
    /* Sphere centre in the box frame, and the closest point of the box. */
    qp_vec3 c = qp_rot3_tmul_v3(&b_in_a->r, qp_v3_neg(b_in_a->p));
    qp_vec3 q = c, d;
    for (int k = 0; k < 3; k++) set_comp(&q, k, qp__clamp(comp(c, k), -h[k], h[k]));
    d = qp__v3_sub(c, q);
    qp_vec3 n, p;
    fix16_t depth;
    if (d.x == 0 && d.y == 0 && d.z == 0) {
        /* Centre inside (or on) the box: out through the nearest face. */
        int k = 0;
        int64_t pen = (int64_t)h[0] - abs64(c.x);
        for (int j = 1; j < 3; j++) {
            int64_t pj = (int64_t)h[j] - abs64(comp(c, j));
            if (pj < pen) { pen = pj; k = j; }
        }
        int s = comp(c, k) >= 0 ? 1 : -1;
        depth = qp__sat32(r + pen);
        n = axis30(k, -s);
        p = c;
        set_comp(&p, k, (fix16_t)(((int64_t)comp(c, k) - (int64_t)s * r + (int64_t)s * h[k] + 1) >> 1));
    } else {
        int64_t reach = (int64_t)r + margin;
        if (reach < 0 || qp_v3_len_sq_wide(d) > reach * reach) return 0;
        fix16_t dist = qp_v3_len(d);
        depth = r - dist;
        if (depth < -margin) return 0;
        qp_vec3 u;
        qp__normal_or(d, axis30(1, 1), &u);    /* box towards the centre */
        n = qp_v3_neg(u);
        p = qp__v3_mid(qp__v3_mad_q30(c, n, r), q);
    }
    put_point(b_in_a, p, depth, 0, &m->points[0]);
    put_normal(b_in_a, n, m);
    m->count = 1;
    return 1;
}

/* ---- capsule - box ---------------------------------------------------------------- */

/* Face k of the box (on the capsule's side) against the segment: clip the
 * segment to the face's rectangle, one point per clipped end. */
static int capsule_face(const qp__segment *seg, const fix16_t h[3], int k, fix16_t r, fix16_t margin,
                        const qp_transform *xf, qp_manifold *m)
{
    const int s = comp(seg->c, k) >= 0 ? 1 : -1;
    int64_t lo = -seg->h, hi = seg->h;
    for (int q = 1; q < 3; q++) {
        int kk = (k + q) % 3;
        int64_t u = comp(seg->u, kk), c = comp(seg->c, kk);
        if (u == 0) {
            if (abs64(c) > h[kk]) lo = hi + 1;
            continue;
        }
        int64_t s1 = qp__div_round64((-(int64_t)h[kk] - c) * QP__W_ONE, u);
        int64_t s2 = qp__div_round64(((int64_t)h[kk] - c) * QP__W_ONE, u);
        if (s1 > s2) { int64_t x = s1; s1 = s2; s2 = x; }
        if (s1 > lo) lo = s1;
        if (s2 < hi) hi = s2;
    }
    int n_par = 2;
    if (lo >= hi) {
        /* Empty (rounding at a corner) or a single point: the middle, one point. */
        lo = (lo + hi) >> 1;
        if (lo < -seg->h) lo = -seg->h;
        if (lo > seg->h) lo = seg->h;
        n_par = 1;
    }
    const int64_t par[2] = { lo, hi };
    int count = 0;
    for (int i = 0; i < n_par; i++) {
        qp_vec3 p = qp__segment_point(seg, (fix16_t)par[i]);
        int64_t gap = (int64_t)s * comp(p, k) - h[k];
        int64_t depth = (int64_t)r - gap;
        if (depth < -(int64_t)margin) continue;
        set_comp(&p, k, (fix16_t)(((int64_t)comp(p, k) - (int64_t)s * r + (int64_t)s * h[k] + 1) >> 1));
        put_point(xf, p, qp__sat32(depth), (uint32_t)i, &m->points[count++]);
    }
    if (count == 0) return 0;
    put_normal(xf, axis30(k, -s), m);
    m->count = count;
    return count;
}

/* One point from closest points p (segment, parameter sp) and q (box). */
static int capsule_point(const qp__segment *seg, qp_vec3 p, fix16_t sp, qp_vec3 q, qp_vec3 n30, fix16_t depth,
                         fix16_t r, const qp_transform *xf, qp_manifold *m)
{
    uint32_t id = sp <= -seg->h ? 0u : (sp >= seg->h ? 1u : 2u);
    put_point(xf, qp__v3_mid(qp__v3_mad_q30(p, n30, r), q), depth, id, &m->points[0]);
    put_normal(xf, n30, m);
    m->count = 1;
    return 1;
}

/* Half the slope of the squared distance from the box to the segment point at
 * s: sum_k u_k (x_k - clamp(x_k)), with x = c + s u (Q46, residuals rounded
 * to Q16.16). Non-decreasing in s, since the squared distance is convex. */
static int64_t distance_slope(const qp__segment *seg, const fix16_t h[3], int64_t s)
{
    int64_t g = 0;
    for (int k = 0; k < 3; k++) {
        int64_t u = comp(seg->u, k), x = (int64_t)comp(seg->c, k) * QP__W_ONE + u * s, hk = (int64_t)h[k] * QP__W_ONE;
        int64_t res = x > hk ? x - hk : (x < -hk ? x + hk : 0);
        g += u * qp__shift_round(res, 30);
    }
    return g;
}

/* Parameter of the segment point closest to the box (segment outside it):
 * bisection for the sign change of the slope, to 1 LSB (at most 24 steps for
 * a 200 m segment). Where the distance is flat (parallel to a face or an
 * edge) any point of the flat part is returned: the direction is the same. */
static fix16_t closest_s(const qp__segment *seg, const fix16_t h[3])
{
    int64_t lo = -seg->h, hi = seg->h;
    if (distance_slope(seg, h, lo) >= 0) return (fix16_t)lo;
    if (distance_slope(seg, h, hi) <= 0) return (fix16_t)hi;
    while (hi - lo > 1) {
        int64_t mid = lo + ((hi - lo) >> 1);
        if (distance_slope(seg, h, mid) < 0) lo = mid;
        else hi = mid;
    }
    return (fix16_t)hi;
}

/* The separating axis test of a segment (centre c, unit direction u Q2.30, half
 * length sh; box frame) against the box [-h, h], Q46. Face axis k: */
static inline int64_t segment_face_sep(const fix16_t c[3], const fix16_t u[3], const fix16_t h[3], fix16_t sh, int k)
{
    return abs64((int64_t)c[k] * QP__W_ONE) - (int64_t)h[k] * QP__W_ONE - abs64(u[k]) * sh;
}

/* u x e_k, onto which the segment projects to a point: false when u is along e_k. */
static inline bool segment_edge_sep(const fix16_t c[3], const fix16_t u[3], const fix16_t h[3], int k, int64_t *sep)
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    int64_t len2 = (int64_t)u[k1] * u[k1] + (int64_t)u[k2] * u[k2];
    if (len2 < QP__BOX_EDGE_MIN2) return false;
    int64_t proj = (int64_t)c[k1] * u[k2] - (int64_t)c[k2] * u[k1];   /* c . (u x e_k) */
    int64_t rad = h[k1] * abs64(u[k2]) + h[k2] * abs64(u[k1]);
    int64_t q = qp__div_round64(abs64(proj) - rad, isqrt_round(len2));
    if (q > INT32_MAX) q = INT32_MAX;
    *sep = q * QP__W_ONE;
    return true;
}

/* The capsule's segment in the box frame: centre R^T(-t), direction R^T e_y. */
static qp__segment segment_in_box(const qp_shape *capsule, const qp_transform *b_in_a)
{
    qp__segment seg;
    seg.c = qp_rot3_tmul_v3(&b_in_a->r, qp_v3_neg(b_in_a->p));
    seg.u = qp_rot3_row(&b_in_a->r, 1);
    seg.h = capsule->half_height;
    return seg;
}

int qp_collide_capsule_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                           fix16_t margin, qp_manifold *m)
{
    const fix16_t r = a->radius;
    const fix16_t h[3] = { b->half.x, b->half.y, b->half.z };
    memset(m, 0, sizeof *m);
    if (qp__v3_max_abs(b_in_a->p) > QP__BOX_FAR) return 0;
    const qp__segment seg = segment_in_box(a, b_in_a);
    const fix16_t c[3] = { seg.c.x, seg.c.y, seg.c.z };
    const fix16_t u[3] = { seg.u.x, seg.u.y, seg.u.z };
    const int64_t lim = ((int64_t)r + margin) * QP__W_ONE;

    /* SAT: the box's face axes... */
    int64_t sep_f = INT64_MIN, sep_x = INT64_MIN;
    int fk = 0, xk = -1;
    for (int k = 0; k < 3; k++) {
        int64_t sep = segment_face_sep(c, u, h, seg.h, k);
        if (sep > lim) return 0;
        if (sep > sep_f) { sep_f = sep; fk = k; }
    }
    /* ...and u x e_k (the segment projects to a point on these). */
    for (int k = 0; k < 3; k++) {
        int64_t sep;
        if (!segment_edge_sep(c, u, h, k, &sep)) continue;
        if (sep > lim) return 0;
        if (sep > sep_x) { sep_x = sep; xk = k; }
    }
    const fix16_t sep_f16 = qp__shift_round(sep_f, 30);

    if (sep_f > 0 || sep_x > 0) {
        /* The segment misses the box: closest points, from the minimum of the
         * convex squared distance (its slope changes sign once). */
        fix16_t bs = closest_s(&seg, h);
        qp_vec3 bp = qp__segment_point(&seg, bs);
        qp_vec3 bq = qp_v3(qp__clamp(bp.x, -h[0], h[0]), qp__clamp(bp.y, -h[1], h[1]), qp__clamp(bp.z, -h[2], h[2]));
        int64_t best = qp_v3_len_sq_wide(qp__v3_sub(bq, bp));
        fix16_t dist = (fix16_t)isqrt_round(best);
        fix16_t depth = r - dist;
        if (depth < -margin) return 0;
        qp_vec3 n;
        int64_t tol = QP__BOX_TOL_ABS + ((int64_t)dist >> QP__BOX_TOL_FACE);
        bool unit = qp_v3_normalize_q30(qp__v3_sub(bq, bp), &n);
        if (!unit) return capsule_face(&seg, h, fk, r, margin, b_in_a, m);
        if ((int64_t)sep_f16 >= (int64_t)dist - tol) {
            /* The face, if its deepest point is the closest approach: a segment beside
             * the face, off its edge, or steep to it with its near end off the face,
             * clips to nothing (its middle stands in, off the face) or to a far part of
             * itself (a capsule 17 cm into a box's edge gave no contact). */
            int count = capsule_face(&seg, h, fk, r, margin, b_in_a, m);
            int64_t deepest = INT32_MIN;
            for (int i = 0; i < count; i++)
                if (m->points[i].depth > deepest) deepest = m->points[i].depth;
            if (count > 0 && deepest >= (int64_t)depth - tol && deepest <= (int64_t)depth + tol) return count;
        }
        return capsule_point(&seg, bp, bs, bq, n, depth, r, b_in_a, m);
    }

    /* The segment cuts into the box: axis of least penetration. */
    int64_t tol = (int64_t)QP__BOX_TOL_ABS * QP__W_ONE + (abs64(sep_f) >> QP__BOX_TOL_EDGE);
    if (xk < 0 || sep_x <= sep_f + tol) return capsule_face(&seg, h, fk, r, margin, b_in_a, m);
    const int k1 = (xk + 1) % 3, k2 = (xk + 2) % 3;
    /* n = -+ (u x e_k), from the capsule towards the box. */
    int64_t proj = (int64_t)c[k1] * u[k2] - (int64_t)c[k2] * u[k1];
    qp_vec3 nun = qp_v3_zero(), n;
    set_comp(&nun, k1, proj >= 0 ? -u[k2] : u[k2]);
    set_comp(&nun, k2, proj >= 0 ? u[k1] : -u[k1]);
    qp__normal_or(nun, axis30(k1, 1), &n);
    /* The box edge along e_k nearest the capsule: support in -n. */
    qp__segment edge;
    edge.c = qp_v3_zero();
    set_comp(&edge.c, k1, comp(n, k1) > 0 ? -h[k1] : h[k1]);
    set_comp(&edge.c, k2, comp(n, k2) > 0 ? -h[k2] : h[k2]);
    edge.u = axis30(xk, 1);
    edge.h = h[xk];
    fix16_t sp, tq;
    qp__segments_closest(&seg, &edge, &sp, &tq);
    fix16_t depth = qp__sat32((int64_t)r - qp__shift_round(sep_x, 30));
    return capsule_point(&seg, qp__segment_point(&seg, sp), sp, qp__segment_point(&edge, tq), n, depth, r,
                         b_in_a, m);
}

fix16_t qp__capsule_box_separation(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, qp_vec3 *axis)
{
    const fix16_t h[3] = { b->half.x, b->half.y, b->half.z };
    const qp__segment seg = segment_in_box(a, b_in_a);
    const fix16_t c[3] = { seg.c.x, seg.c.y, seg.c.z }, u[3] = { seg.u.x, seg.u.y, seg.u.z };
    int64_t best = INT64_MIN;   /* Q46 */
    qp_vec3 dir = qp_v3_zero();   /* in the box's frame, from the capsule towards the box */
    for (int k = 0; k < 3; k++) {
        int64_t sep = segment_face_sep(c, u, h, seg.h, k);
        if (sep > best) {
            best = sep;
            dir = qp_v3(k == 0 ? -c[0] : 0, k == 1 ? -c[1] : 0, k == 2 ? -c[2] : 0);
        }
        if (segment_edge_sep(c, u, h, k, &sep) && sep > best) {
            best = sep;
            const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            /* u x e_k, turned towards the box: against the side the segment's centre is on */
            int sign = (int64_t)c[k1] * u[k2] - (int64_t)c[k2] * u[k1] < 0 ? 1 : -1;
            fix16_t e[3] = { 0, 0, 0 };
            e[k1] = sign * u[k2];
            e[k2] = -sign * u[k1];
            dir = qp_v3(e[0], e[1], e[2]);
        }
    }
    fix16_t d;
    if (best <= 0) {
        d = qp__sat32((int64_t)qp__shift_round(best, 30) - a->radius);   /* the segment cuts in */
    } else {
        /* The segment misses the box: the axes only bound the distance from below (far
         * below it near a corner), the closest points give it, as qp_collide finds it. */
        qp_vec3 p = qp__segment_point(&seg, closest_s(&seg, h));
        qp_vec3 q = qp_v3(qp__clamp(p.x, -h[0], h[0]), qp__clamp(p.y, -h[1], h[1]), qp__clamp(p.z, -h[2], h[2]));
        dir = qp__v3_sub(q, p);
        d = qp__sat32(isqrt_round(qp_v3_len_sq_wide(dir)) - a->radius);
    }
    qp_vec3 n;
    if (!qp_v3_normalize_q30(dir, &n)) n = qp_v3(0, QP_Q30_ONE, 0);   /* centre on the box: any */
    *axis = qp_rot3_mul_v3(&b_in_a->r, n);   /* into the capsule's frame */
    return d;
}
