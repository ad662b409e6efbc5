/* SPDX-License-Identifier: MIT */
/* Contacts between round shapes: plane, sphere and capsule pairs.
 *
 * Every pair reduces to "two spheres": a point of A's core (a centre or a
 * point of the capsule segment) with A's radius, and the closest point of B's
 * core with B's radius. The normal is the unit vector between the two core
 * points, depth = ra + rb - distance, and the reported point lies midway
 * between the two surfaces, all in A's frame. The distance test is made on
 * the exact 64-bit squared distance before any square root.
 *
 * Degenerate cores (coincident centres, a sphere centre on a capsule axis,
 * crossing capsule axes) have no direction: a fixed one is used (+y for two
 * spheres, a perpendicular of the axis for capsules), so results stay
 * deterministic. A capsule lying along a plane or along another capsule needs
 * two points to rest without rocking: against a plane both segment ends are
 * tested; two capsules within 2.9 degrees of parallel are tested at both ends
 * of their overlap (each with its own true distance, never deeper than the
 * truth). Feature ids: 0 for the single closest point; the capsule ends
 * are 0 (-h end) and 1 (+h end) against a plane; two nearly parallel capsules
 * report the two ends of their overlap as ids 1 and 2 (and id 0 for a crossing
 * point deeper than both ends).
 */
#include "qphys/collide.h"
#include "geometry.h"

/* Capsules whose axes are closer to parallel than this (sin^2 of the angle in
 * Q2.30: sin = 0.05, 2.9 degrees) and overlap by more than CAPSULE_OVERLAP get
 * a contact at each end of the overlap. */
#define CAPSULE_PARALLEL_SIN2  ((int64_t)2684355)
#define CAPSULE_OVERLAP        QP_MM(1)
/* A crossing point is added when deeper than both ends by this much. */
#define CAPSULE_CROSS_TOL      QP_FRAC(1, 4000)

static void add_point(qp_manifold *m, qp_vec3 p, int64_t depth, uint32_t id)
{
    qp_manifold_point *mp = &m->points[m->count++];
    mp->point = p;
    mp->depth = qp__sat32(depth);
    mp->id = id;
}

/* p + u*t/2 with u in Q2.30 and |t| < 2^32: one rounding per component. */
static qp_vec3 mad_half(qp_vec3 p, qp_vec3 u, int64_t t)
{
    return qp_v3(qp__sat32((int64_t)p.x + qp__shift_round(u.x * t, 31)),
                 qp__sat32((int64_t)p.y + qp__shift_round(u.y * t, 31)),
                 qp__sat32((int64_t)p.z + qp__shift_round(u.z * t, 31)));
}

/* Midway between the surfaces pa + n ra and pb - n rb:
 * pa + (d + n (ra - rb)) / 2 with d = pb - pa (|d| < 2^32 raw). */
static qp_vec3 surface_mid(qp_vec3 pa, qp_vec3 d, qp_vec3 n, fix16_t ra, fix16_t rb)
{
    int64_t dr = (int64_t)ra - rb;
    return qp_v3(qp__sat32((int64_t)pa.x + qp__shift_round((int64_t)d.x * ((int64_t)1 << 30) + n.x * dr, 31)),
                 qp__sat32((int64_t)pa.y + qp__shift_round((int64_t)d.y * ((int64_t)1 << 30) + n.y * dr, 31)),
                 qp__sat32((int64_t)pa.z + qp__shift_round((int64_t)d.z * ((int64_t)1 << 30) + n.z * dr, 31)));
}

/* Squared distance and reach test, then distance. false when |d| > ra + rb + margin. */
static bool within_reach(qp_vec3 d, fix16_t ra, fix16_t rb, fix16_t margin, fix16_t *dist)
{
    int64_t reach = (int64_t)ra + rb + margin;
    if (reach < 0) return false;
    if (qp_v3_len_sq_wide(d) > reach * reach) return false;
    *dist = qp_v3_len(d);
    return true;
}

/* One contact between the spheres (pa, ra) and (pb, rb); the normal is set. */
static int sphere_pair(qp_vec3 pa, fix16_t ra, qp_vec3 pb, fix16_t rb, qp_vec3 fallback,
                       fix16_t margin, qp_manifold *m)
{
    qp_vec3 d = qp_v3_sub(pb, pa);
    fix16_t dist;
    m->count = 0;
    m->normal = fallback;
    if (!within_reach(d, ra, rb, margin, &dist)) return 0;
    int64_t depth = (int64_t)ra + rb - dist;
    if (depth < -(int64_t)margin) return 0;
    qp__normal_or(d, fallback, &m->normal);
    add_point(m, surface_mid(pa, d, m->normal, ra, rb), depth, 0);
    return 1;
}

static qp__segment capsule_segment(const qp_shape *s, const qp_transform *xf)
{
    qp__segment seg;
    seg.c = xf->p;
    seg.u = qp_rot3_col(&xf->r, 1);
    seg.h = s->half_height;
    return seg;
}

/* Point p against the plane n.x = offset: adds a contact for a round core of
 * radius r at p when depth >= -margin. */
static void plane_point(const qp_shape *plane, qp_vec3 p, fix16_t r, fix16_t margin, uint32_t id,
                        qp_manifold *m)
{
    int64_t dist = (int64_t)qp_v3_dot_q30(p, plane->normal) - plane->plane_offset;
    int64_t depth = (int64_t)r - dist;
    if (depth < -(int64_t)margin) return;
    /* surfaces at p - n dist and p - n r: midway is p - n (dist + r) / 2 */
    add_point(m, mad_half(p, plane->normal, -(dist + r)), depth, id);
}

int qp_collide_plane_sphere(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                            fix16_t margin, qp_manifold *m)
{
    m->count = 0;
    m->normal = a->normal;
    plane_point(a, b_in_a->p, b->radius, margin, 0, m);
    return m->count;
}

int qp_collide_plane_capsule(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                             fix16_t margin, qp_manifold *m)
{
    qp__segment seg = capsule_segment(b, b_in_a);
    m->count = 0;
    m->normal = a->normal;
    plane_point(a, qp__segment_point(&seg, -seg.h), b->radius, margin, 0, m);
    plane_point(a, qp__segment_point(&seg, seg.h), b->radius, margin, 1, m);
    return m->count;
}

int qp_collide_sphere_sphere(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                             fix16_t margin, qp_manifold *m)
{
    return sphere_pair(qp_v3_zero(), a->radius, b_in_a->p, b->radius, qp_v3(0, QP_Q30_ONE, 0), margin, m);
}

int qp_collide_sphere_capsule(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                              fix16_t margin, qp_manifold *m)
{
    qp__segment seg = capsule_segment(b, b_in_a);
    qp_vec3 q = qp__segment_closest_point(&seg, qp_v3_zero());
    return sphere_pair(qp_v3_zero(), a->radius, q, b->radius, qp__perpendicular(seg.u), margin, m);
}

/* Normal for crossing capsule axes: ua x ub, else a perpendicular of ua,
 * turned towards B's centre. */
static qp_vec3 crossing_normal(const qp__segment *sa, const qp__segment *sb)
{
    qp_vec3 ua = sa->u, ub = sb->u, n;
    qp_vec3 c = qp_v3(qp__shift_round((int64_t)ua.y * ub.z - (int64_t)ua.z * ub.y, 30),
                      qp__shift_round((int64_t)ua.z * ub.x - (int64_t)ua.x * ub.z, 30),
                      qp__shift_round((int64_t)ua.x * ub.y - (int64_t)ua.y * ub.x, 30));
    if (!qp_v3_normalize_q30(c, &n)) n = qp__perpendicular(ua);
    if (qp_v3_dot_q30(qp_v3_sub(sb->c, sa->c), n) < 0) n = qp_v3_neg(n);
    return n;
}

int qp_collide_capsule_capsule(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                               fix16_t margin, qp_manifold *m)
{
    qp__segment sa = { qp_v3_zero(), qp_v3(0, QP_Q30_ONE, 0), a->half_height };
    qp__segment sb = capsule_segment(b, b_in_a);
    fix16_t s, t, ra = a->radius, rb = b->radius;
    qp__segments_closest(&sa, &sb, &s, &t);
    qp_vec3 pa = qp__segment_point(&sa, s);
    if (!sphere_pair(pa, ra, qp__segment_point(&sb, t), rb, crossing_normal(&sa, &sb), margin, m))
        return 0;

    /* Nearly parallel: A's axis is local y, so ua.ub = ub.y. */
    int64_t by = sb.u.y;
    if (((int64_t)1 << 30) - ((by * by + ((int64_t)1 << 29)) >> 30) >= CAPSULE_PARALLEL_SIN2) return 1;
    /* B's extent along A's axis, clipped to A. */
    int64_t e = qp__shift_round(by * sb.h, 30);
    int64_t lo = (int64_t)sb.c.y - (e < 0 ? -e : e), hi = (int64_t)sb.c.y + (e < 0 ? -e : e);
    if (lo < -sa.h) lo = -sa.h;
    if (hi > sa.h) hi = sa.h;
    if (hi - lo <= CAPSULE_OVERLAP) return 1;

    qp_manifold_point closest = m->points[0];
    qp_vec3 n = m->normal;
    int64_t deepest_end = INT64_MIN;
    m->count = 0;
    for (int i = 0; i < 2; i++) {
        qp_vec3 p = qp_v3(0, (fix16_t)(i == 0 ? lo : hi), 0);
        qp_vec3 d = qp_v3_sub(qp__segment_closest_point(&sb, p), p);
        fix16_t dist;
        if (!within_reach(d, ra, rb, margin, &dist)) continue;
        int64_t depth = (int64_t)ra + rb - dist;
        if (depth > deepest_end) deepest_end = depth;
        if (depth < -(int64_t)margin) continue;
        add_point(m, surface_mid(p, d, n, ra, rb), depth, (uint32_t)(i + 1));
    }
    /* The crossing point, when deeper than both ends (or when no end is reported). */
    if (m->count == 0 || (s > lo && s < hi && (int64_t)closest.depth > deepest_end + CAPSULE_CROSS_TOL))
        m->points[m->count++] = closest;
    return m->count;
}
