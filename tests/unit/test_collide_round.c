/* SPDX-License-Identifier: MIT */
/* Round pairs (plane, sphere, capsule) and the qp_collide dispatch.
 *
 * 1. Canonical cases with exact expectations for every pair: exactly touching
 *    (1 point, depth 0 +-1 LSB), 1 LSB apart with margin 0 (no point), deep,
 *    far, degenerate cores (coincident centres, crossing axes), capsules lying
 *    on a plane and on each other (2 points).
 * 2. Thousands of seeded random poses per pair against a double-precision
 *    reference written here (closest points of segments by the line solution
 *    and the four end-point cases): normal within 0.5 degree, depth within
 *    1 mm, point within 1 mm. The worst errors are printed.
 * 3. Dispatch: collide(b, a) is collide(a, b) with the normal flipped.
 * 4. Translation invariance: a pair built from world poses near the origin and
 *    the same pair translated by (+-1000 m + fractions) give identical
 *    manifolds (bound: 0 LSB), for every pair of shape types.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "qp_test_util.h"

#include "qphys/collide.h"

#define LSB (1.0 / Q16)

typedef struct { double x, y, z; } dv3;

static dv3 dv(qp_vec3 v) { dv3 r = { v.x / Q16, v.y / Q16, v.z / Q16 }; return r; }
static dv3 dvn(qp_vec3 v) { dv3 r = { v.x / Q30, v.y / Q30, v.z / Q30 }; return r; }
static dv3 v3(double x, double y, double z) { dv3 r = { x, y, z }; return r; }
static dv3 add(dv3 a, dv3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static dv3 sub(dv3 a, dv3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static dv3 scl(dv3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static double dot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len(dv3 a) { return sqrt(dot(a, a)); }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }
static double angle_deg(dv3 a, dv3 b)
{
    double c = dot(a, b) / (len(a) * len(b));
    return acos(clampd(c, -1, 1)) * 180 / M_PI;
}



static qp_quat axis_angle(double x, double y, double z, double rad)
{
    qp_quat q;
    assert_true(qp_quat_from_axis_angle(qp_v3(f16(x), f16(y), f16(z)), f16(rad), &q));
    return q;
}

static qp_transform xf_make(double x, double y, double z, qp_quat q)
{
    qp_transform t;
    t.p = qp_v3(f16(x), f16(y), f16(z));
    t.r = qp_quat_to_rot3(q);
    return t;
}

static qp_transform xf_at(double x, double y, double z) { return xf_make(x, y, z, qp_quat_identity()); }


static void expect_normal(const qp_manifold *m, double x, double y, double z, int tol30)
{
    assert_true(abs(m->normal.x - (int32_t)llround(x * Q30)) <= tol30);
    assert_true(abs(m->normal.y - (int32_t)llround(y * Q30)) <= tol30);
    assert_true(abs(m->normal.z - (int32_t)llround(z * Q30)) <= tol30);
}

static void expect_point(const qp_manifold_point *p, double x, double y, double z, double depth, int tol)
{
    assert_true(abs(p->point.x - f16(x)) <= tol);
    assert_true(abs(p->point.y - f16(y)) <= tol);
    assert_true(abs(p->point.z - f16(z)) <= tol);
    assert_true(abs(p->depth - f16(depth)) <= tol);
}

/* ---- 1. canonical cases --------------------------------------------------------------- */

static void test_plane_sphere_cases(void **st)
{
    (void)st;
    qp_shape pl = plane(0, 1, 0, 0), s = sphere(0.5);
    qp_manifold m;
    qp_transform xf = xf_at(3, 0.5, -2);
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, 0, &m), 1);   /* resting */
    expect_normal(&m, 0, 1, 0, 0);
    expect_point(&m.points[0], 3, 0, -2, 0, 1);
    assert_int_equal(m.points[0].id, 0);
    xf.p.y += 1;                                                           /* 1 LSB above */
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, 0, &m), 0);
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, 1, &m), 1);    /* margin 1 LSB */
    assert_int_equal(m.points[0].depth, -1);
    xf = xf_at(0, 0.1, 0);                                                 /* deep */
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, 0, &m), 1);
    expect_point(&m.points[0], 0, -0.2, 0, 0.4, 1);
    xf = xf_at(0, -3, 0);                                                  /* below the surface */
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, 0, &m), 1);
    expect_point(&m.points[0], 0, -1.75, 0, 3.5, 1);
    xf = xf_at(0, 50, 0);                                                  /* far */
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, QP_FRAC(1, 10), &m), 0);
    /* tilted plane with an offset: n = (1,1,0)/sqrt2, offset 1 */
    pl = plane(1, 1, 0, 1);
    double k = sqrt(0.5), c = 1.5 / (2 * k);
    xf = xf_at(c, c, 7);
    assert_int_equal(qp_collide_plane_sphere(&pl, &s, &xf, 0, &m), 1);
    expect_normal(&m, k, k, 0, 2);
    expect_point(&m.points[0], k, k, 7, 0, 2);
}

static void test_sphere_sphere_cases(void **st)
{
    (void)st;
    qp_shape a = sphere(0.5), b = sphere(0.25);
    qp_manifold m;
    qp_transform xf = xf_make(0.75, 0, 0, rand_quat());
    assert_int_equal(qp_collide_sphere_sphere(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 1, 0, 0, 0);
    expect_point(&m.points[0], 0.5, 0, 0, 0, 1);
    xf.p.x += 1;
    assert_int_equal(qp_collide_sphere_sphere(&a, &b, &xf, 0, &m), 0);
    xf = xf_at(0, 0, -0.5);                        /* deep, along -z */
    assert_int_equal(qp_collide_sphere_sphere(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, 0, -1, 0);
    expect_point(&m.points[0], 0, 0, -0.375, 0.25, 1);
    xf = xf_at(0, 0, 0);                           /* coincident centres: +y */
    assert_int_equal(qp_collide_sphere_sphere(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, 1, 0, 0);
    expect_point(&m.points[0], 0, 0.125, 0, 0.75, 1);
    xf = xf_at(1, 1, 1);                           /* far */
    assert_int_equal(qp_collide_sphere_sphere(&a, &b, &xf, 0, &m), 0);
    /* 1000 m apart with a 999 m margin: 1 point, no overflow */
    a = sphere(100);
    b = sphere(100);
    xf = xf_at(1000, 0, 0);
    assert_int_equal(qp_collide_sphere_sphere(&a, &b, &xf, QP_INT(900), &m), 1);
    expect_point(&m.points[0], 500, 0, 0, -800, 1);
}

static void test_sphere_capsule_cases(void **st)
{
    (void)st;
    qp_shape a = sphere(0.5), b = capsule(0.3, 1);
    qp_manifold m;
    qp_transform xf = xf_at(0.8, 0.4, 0);              /* side of the capsule */
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 1, 0, 0, 0);
    expect_point(&m.points[0], 0.5, 0, 0, 0, 1);
    xf.p.x += 1;
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 0);
    xf = xf_at(0, 1.8, 0);                             /* end cap: closest end at y = 0.8 */
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, 1, 0, 0);
    expect_point(&m.points[0], 0, 0.5, 0, 0, 1);
    xf = xf_at(0, 1.6, 0);                             /* deep on the cap */
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 1);
    expect_point(&m.points[0], 0, 0.4, 0, 0.2, 1);
    /* capsule lying along x (90 degrees about z), above the sphere */
    xf = xf_make(0.3, 0.8, 0, axis_angle(0, 0, 1, M_PI / 2));
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, 1, 0, 4);
    expect_point(&m.points[0], 0, 0.5, 0, 0, 2);
    /* sphere centre on the axis: a perpendicular of the axis, full depth */
    xf = xf_at(0, 0.2, 0);
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 1);
    assert_true(m.normal.y == 0 && (abs(m.normal.x) == QP_Q30_ONE || abs(m.normal.z) == QP_Q30_ONE));
    assert_int_equal(m.points[0].depth, f16(0.8));
    xf = xf_at(3, 0, 0);
    assert_int_equal(qp_collide_sphere_capsule(&a, &b, &xf, 0, &m), 0);
}

static void test_plane_capsule_cases(void **st)
{
    (void)st;
    qp_shape pl = plane(0, 1, 0, 0), b = capsule(0.25, 1);
    qp_manifold m;
    /* lying on the plane: 2 points at the segment ends */
    qp_transform xf = xf_make(2, 0.25, 0, axis_angle(0, 0, 1, M_PI / 2));
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 0, &m), 2);
    expect_normal(&m, 0, 1, 0, 0);
    /* the -h end of local y maps to +x after 90 degrees about z */
    expect_point(&m.points[0], 3, 0, 0, 0, 2);
    expect_point(&m.points[1], 1, 0, 0, 0, 2);
    assert_int_equal(m.points[0].id, 0);
    assert_int_equal(m.points[1].id, 1);
    xf.p.y += 1;                                         /* 1 LSB above */
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 0, &m), 0);
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 1, &m), 2);
    assert_int_equal(m.points[0].depth, -1);
    /* standing: one point, the lower end; a margin of 2h brings the top end in */
    xf = xf_at(0, 1.25, 0);
    xf.p.y += 1;
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 0, &m), 0);
    xf.p.y -= 1;
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 0, &m), 1);
    expect_point(&m.points[0], 0, 0, 0, 0, 1);
    assert_int_equal(m.points[0].id, 0);
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, QP_INT(2), &m), 2);
    expect_point(&m.points[1], 0, 1, 0, -2, 1);
    assert_int_equal(m.points[1].id, 1);
    /* deep, tilted */
    xf = xf_make(0, 0, 0, axis_angle(0, 0, 1, M_PI / 4));
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 0, &m), 1);
    double k = sqrt(0.5);
    expect_point(&m.points[0], k, -(0.25 - k) / 2 - k, 0, 0.25 + k, 3);
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, QP_ONE, &m), 2);
    assert_true(abs(m.points[1].depth - f16(0.25 - k)) <= 3);
    assert_int_equal(m.points[1].id, 1);
    xf = xf_at(0, 5, 0);
    assert_int_equal(qp_collide_plane_capsule(&pl, &b, &xf, 0, &m), 0);
}

static void test_capsule_capsule_cases(void **st)
{
    (void)st;
    qp_shape a = capsule(0.25, 1), b = capsule(0.5, 1);
    qp_manifold m;
    /* parallel, side by side: 2 points at the overlap ends */
    qp_transform xf = xf_at(0.75, 0, 0);
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 2);
    expect_normal(&m, 1, 0, 0, 0);
    expect_point(&m.points[0], 0.25, -1, 0, 0, 1);
    expect_point(&m.points[1], 0.25, 1, 0, 0, 1);
    assert_int_equal(m.points[0].id, 1);
    assert_int_equal(m.points[1].id, 2);
    xf.p.x += 1;
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 0);
    /* parallel, shifted by half: overlap [0, 1] */
    xf = xf_at(0, 1, -0.6);
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 2);
    expect_normal(&m, 0, 0, -1, 0);
    expect_point(&m.points[0], 0, 0, -0.175, 0.15, 1);
    expect_point(&m.points[1], 0, 1, -0.175, 0.15, 1);
    /* anti-parallel (B turned 180 degrees about x) is parallel too */
    xf = xf_make(0, 0.5, 0.75, axis_angle(1, 0, 0, M_PI));
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 2);
    expect_normal(&m, 0, 0, 1, 2);
    expect_point(&m.points[0], 0, -0.5, 0.25, 0, 2);
    expect_point(&m.points[1], 0, 1, 0.25, 0, 2);
    /* crossing at right angles: B along z */
    xf = xf_make(0.75, 0.3, 0, axis_angle(1, 0, 0, M_PI / 2));
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 1, 0, 0, 2);
    expect_point(&m.points[0], 0.25, 0.3, 0, 0, 2);
    assert_int_equal(m.points[0].id, 0);
    xf.p.x += 1;
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 0);
    /* end to end along y: a single point between the caps */
    xf = xf_at(0, 2.75, 0);
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, 1, 0, 0);
    expect_point(&m.points[0], 0, 1.25, 0, 0, 1);
    /* axes crossing through each other: normal = ua x ub, turned towards B */
    xf = xf_make(0, 0, 0, axis_angle(1, 0, 0, M_PI / 2));
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 1);
    assert_int_equal(m.points[0].depth, f16(0.75));
    assert_true(abs(abs(m.normal.x) - QP_Q30_ONE) <= 2);
    /* coaxial and overlapping: a fixed perpendicular, two points */
    xf = xf_at(0, 0.5, 0);
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 2);
    assert_int_equal(m.normal.y, 0);
    assert_int_equal(m.points[0].depth, f16(0.75));
    assert_int_equal(m.points[1].depth, f16(0.75));
    /* nearly parallel but crossing in a plane: the crossing point is added */
    xf = xf_make(0.74, 0, 0, axis_angle(1, 0, 0, 0.01));      /* ends within 0.07 mm: 2 points */
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 2);
    xf = xf_make(0.745, 0, 0, axis_angle(1, 0, 0, 0.04));     /* ends 1 mm shallower: 3 points */
    int n = qp_collide_capsule_capsule(&a, &b, &xf, QP_FRAC(1, 10), &m);
    assert_true(n == 3);
    assert_int_equal(m.points[2].id, 0);
    assert_true(abs(m.points[2].depth - f16(0.005)) <= 2);
    assert_true(m.points[0].depth < m.points[2].depth && m.points[1].depth < m.points[2].depth);
    xf = xf_at(5, 0, 0);
    assert_int_equal(qp_collide_capsule_capsule(&a, &b, &xf, 0, &m), 0);
}

/* ---- 2. random poses against a double reference ------------------------------------- */

typedef struct {
    double depth_lsb, normal_deg, normal_lsb, point_lsb;
    int compared, contacts, skipped_normals;
} stats;

static void stats_print(const char *name, const stats *s)
{
    print_message("%-16s %5d poses, %5d contacts: depth %.2f LSB, normal %.2e deg (%.2f LSB x core distance),"
                  " point %.2f LSB (%d normals of cores < 1 cm apart not compared)\n", name, s->compared,
                  s->contacts, s->depth_lsb, s->normal_deg, s->normal_lsb, s->point_lsb, s->skipped_normals);
}

static void upd(double *mx, double v) { if (v > *mx) *mx = v; }

static dv3 closest_on_seg(dv3 a, dv3 b, dv3 p)
{
    dv3 ab = sub(b, a);
    double l2 = dot(ab, ab);
    double t = l2 > 0 ? clampd(dot(sub(p, a), ab) / l2, 0, 1) : 0;
    return add(a, scl(ab, t));
}

/* Closest points of segments [a0,a1] and [b0,b1]: the best of the interior
 * line solution (when inside both) and the four end-point cases. */
static double ref_segments(dv3 a0, dv3 a1, dv3 b0, dv3 b1, dv3 *pa, dv3 *pb)
{
    double best = INFINITY;
    dv3 cand[5][2];
    int n = 0;
    dv3 d1 = sub(a1, a0), d2 = sub(b1, b0), r = sub(a0, b0);
    double a = dot(d1, d1), e = dot(d2, d2), b = dot(d1, d2), c = dot(d1, r), f = dot(d2, r);
    double den = a * e - b * b;
    if (den > 1e-12 * a * e) {
        double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
        if (s >= 0 && s <= 1 && t >= 0 && t <= 1) {
            cand[n][0] = add(a0, scl(d1, s));
            cand[n][1] = add(b0, scl(d2, t));
            n++;
        }
    }
    cand[n][0] = a0; cand[n][1] = closest_on_seg(b0, b1, a0); n++;
    cand[n][0] = a1; cand[n][1] = closest_on_seg(b0, b1, a1); n++;
    cand[n][1] = b0; cand[n][0] = closest_on_seg(a0, a1, b0); n++;
    cand[n][1] = b1; cand[n][0] = closest_on_seg(a0, a1, b1); n++;
    for (int i = 0; i < n; i++) {
        double d = len(sub(cand[i][1], cand[i][0]));
        if (d < best) {
            best = d;
            *pa = cand[i][0];
            *pb = cand[i][1];
        }
    }
    return best;
}

static void capsule_ends(const qp_shape *s, const qp_transform *xf, dv3 *e0, dv3 *e1)
{
    dv3 c = dv(xf->p), u = v3(xf->r.m[0][1] / Q30, xf->r.m[1][1] / Q30, xf->r.m[2][1] / Q30);
    double h = d16(s->half_height);
    *e0 = sub(c, scl(u, h));
    *e1 = add(c, scl(u, h));
}

static double max_depth(const qp_manifold *m)
{
    double d = -INFINITY;
    for (int i = 0; i < m->count; i++) d = fmax(d, d16(m->points[i].depth));
    return d;
}

/* Compare a manifold with the reference "two spheres" contact between core
 * points pa (radius ra) and pb (radius rb). */
static void check_round(const qp_manifold *m, dv3 pa, double ra, dv3 pb, double rb, double margin, stats *st,
                        bool single_point)
{
    dv3 d = sub(pb, pa);
    double dist = len(d), depth = ra + rb - dist;
    st->compared++;
    if (depth < -margin - 1e-3) {
        assert_int_equal(m->count, 0);
        return;
    }
    if (depth > -margin + 1e-3) assert_true(m->count >= 1);
    if (m->count == 0) return;
    st->contacts++;
    for (int i = 0; i < m->count; i++) {
        assert_true(m->points[i].depth >= -f16(margin) - 1);
        assert_true(d16(m->points[i].depth) <= depth + 1e-3);   /* no point deeper than the truth */
    }
    double de = fabs(max_depth(m) - depth);
    upd(&st->depth_lsb, de * Q16);
    assert_true(de <= 1e-3);
    if (dist < 1e-2) {
        st->skipped_normals++;   /* the direction between nearly coincident cores is ill-conditioned */
        return;
    }
    dv3 n = scl(d, 1 / dist);
    double ang = angle_deg(dvn(m->normal), n);
    upd(&st->normal_deg, ang);
    assert_true(ang <= 0.5);
    /* rounding of the core points to Q16.16 turns the normal by ~1 LSB / distance */
    upd(&st->normal_lsb, ang * M_PI / 180 * dist * Q16);
    assert_true(ang * M_PI / 180 * dist * Q16 <= 4);
    if (single_point && m->count == 1) {
        dv3 mid = scl(add(add(pa, scl(n, ra)), sub(pb, scl(n, rb))), 0.5);
        double pe = len(sub(dv(m->points[0].point), mid));
        upd(&st->point_lsb, pe * Q16);
        assert_true(pe <= 1e-3);
    }
}

static double rand_size(double lo, double hi) { return exp(urand(log(lo), log(hi))); }

/* Draws in a fixed order (argument order is unspecified in C, initialisers of
 * one declaration are sequenced): a capsule of radius then half height, scaled
 * by k, at most 100 m ... */
static qp_shape rand_capsule(double k)
{
    double r = rand_size(0.05, 2) * k, h = rand_size(0.05, 3) * k;
    return capsule(fmin(r, 100), fmin(h, 100));
}

/* ... and a pose: position x, y, z uniform in [lo, hi) times s, then a rotation. */
static qp_transform rand_xf(double lo, double hi, double s)
{
    double p[3];
    urand3(p, lo, hi);
    qp_quat q = rand_quat();
    return xf_make(p[0] * s, p[1] * s, p[2] * s, q);
}

/* Positions: within reach most of the time; one pose in ten at large scale. */
static double scale_of(int i) { return i % 10 == 9 ? 40.0 : 1.0; }

static double rand_margin(void)
{
    static const double margins[4] = { 0, 0.001, 0.02, 0.1 };
    return margins[rng() % 4];
}

#define N_RANDOM 4000

static void test_random_sphere_sphere(void **st)
{
    (void)st;
    stats s = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < N_RANDOM; i++) {
        double k = scale_of(i), ra = rand_size(0.05, 2) * k, rb = rand_size(0.05, 2) * k, mg = rand_margin();
        qp_shape a = sphere(fmin(ra, 100)), b = sphere(fmin(rb, 100));
        double reach = d16(a.radius) + d16(b.radius);
        qp_transform xf = rand_xf(-1.2, 1.2, reach);
        qp_manifold m;
        qp_collide_sphere_sphere(&a, &b, &xf, f16(mg), &m);
        check_round(&m, v3(0, 0, 0), d16(a.radius), dv(xf.p), d16(b.radius), d16(f16(mg)), &s, true);
    }
    stats_print("sphere-sphere", &s);
    assert_true(s.contacts > N_RANDOM / 8);
}

static void test_random_sphere_capsule(void **st)
{
    (void)st;
    stats s = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < N_RANDOM; i++) {
        double k = scale_of(i), mg = rand_margin();
        qp_shape a = sphere(fmin(rand_size(0.05, 2) * k, 100));
        qp_shape b = rand_capsule(k);
        double reach = d16(a.radius) + d16(b.radius) + d16(b.half_height);
        qp_transform xf = rand_xf(-1, 1, reach);
        qp_manifold m;
        qp_collide_sphere_capsule(&a, &b, &xf, f16(mg), &m);
        dv3 e0, e1;
        capsule_ends(&b, &xf, &e0, &e1);
        dv3 q = closest_on_seg(e0, e1, v3(0, 0, 0));
        check_round(&m, v3(0, 0, 0), d16(a.radius), q, d16(b.radius), d16(f16(mg)), &s, true);
    }
    stats_print("sphere-capsule", &s);
    assert_true(s.contacts > N_RANDOM / 8);
}

static void test_random_capsule_capsule(void **st)
{
    (void)st;
    stats s = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < N_RANDOM; i++) {
        double k = scale_of(i), mg = rand_margin();
        qp_shape a = rand_capsule(k);
        qp_shape b = rand_capsule(k);
        double reach = d16(a.radius) + d16(b.radius) + d16(a.half_height) + d16(b.half_height);
        /* one pose in eight nearly parallel (within 3 degrees), to reach the two-point path */
        qp_quat q;
        if (i % 8 == 0) {
            double ax = urand(-1, 1), az = urand(-1, 1), angle = urand(-0.05, 0.05);
            q = axis_angle(ax, 0, az, angle);
        } else {
            q = rand_quat();
        }
        double p[3];
        urand3(p, -0.8, 0.8);
        qp_transform xf = xf_make(p[0] * reach, p[1] * reach, p[2] * reach, q);
        qp_manifold m;
        qp_collide_capsule_capsule(&a, &b, &xf, f16(mg), &m);
        dv3 a0 = v3(0, -d16(a.half_height), 0), a1 = v3(0, d16(a.half_height), 0), b0, b1, pa, pb;
        capsule_ends(&b, &xf, &b0, &b1);
        ref_segments(a0, a1, b0, b1, &pa, &pb);
        check_round(&m, pa, d16(a.radius), pb, d16(b.radius), d16(f16(mg)), &s, true);
    }
    stats_print("capsule-capsule", &s);
    assert_true(s.contacts > N_RANDOM / 8);
}

static void test_random_plane_pairs(void **st)
{
    (void)st;
    stats ss = { 0, 0, 0, 0, 0, 0, 0 }, sc = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < 2 * N_RANDOM; i++) {
        double k = scale_of(i), mg = d16(f16(rand_margin()));
        double nv[3];
        urand3(nv, -1, 1);
        qp_shape pl = plane(nv[0], nv[1], nv[2], urand(-5, 5) * k);
        dv3 n = dvn(pl.normal);
        double off = d16(pl.plane_offset);
        bool cap = i & 1;
        qp_shape b = cap ? rand_capsule(k) : sphere(fmin(rand_size(0.05, 2) * k, 100));
        double reach = d16(b.radius) + d16(b.half_height);
        /* a point of the plane, moved along n and sideways */
        double along = urand(-1.5, 1.5) * reach, side[3];
        urand3(side, -5, 5);
        dv3 p = add(scl(n, off + along), v3(side[0] * k, side[1] * k, side[2] * k));
        p = sub(p, scl(n, dot(sub(p, scl(n, off)), n) - urand(-1.5, 1.5) * reach));
        qp_transform xf = xf_make(p.x, p.y, p.z, rand_quat());
        qp_manifold m;
        stats *s = cap ? &sc : &ss;
        int cnt = cap ? qp_collide_plane_capsule(&pl, &b, &xf, f16(mg), &m)
                      : qp_collide_plane_sphere(&pl, &b, &xf, f16(mg), &m);
        assert_int_equal(cnt, m.count);
        assert_true(qp_v3_eq(m.normal, pl.normal));
        dv3 ends[2];
        int nend = 1;
        ends[0] = dv(xf.p);
        if (cap) {
            capsule_ends(&b, &xf, &ends[0], &ends[1]);
            nend = 2;
        }
        s->compared++;
        int seen = 0;
        for (int e = 0; e < nend; e++) {
            double dist = dot(ends[e], n) - off, depth = d16(b.radius) - dist;
            const qp_manifold_point *mp = NULL;
            for (int j = 0; j < m.count; j++)
                if (m.points[j].id == (uint32_t)e) mp = &m.points[j];
            if (depth < -mg - 1e-4) assert_null(mp);
            if (depth > -mg + 1e-4) assert_non_null(mp);
            if (!mp) continue;
            seen++;
            double de = fabs(d16(mp->depth) - depth);
            upd(&s->depth_lsb, de * Q16);
            assert_true(de <= 1e-3);
            dv3 mid = sub(ends[e], scl(n, (dist + d16(b.radius)) / 2));
            double pe = len(sub(dv(mp->point), mid));
            upd(&s->point_lsb, pe * Q16);
            assert_true(pe <= 1e-3);
        }
        assert_int_equal(seen, m.count);
        if (m.count) s->contacts++;
    }
    stats_print("plane-sphere", &ss);
    stats_print("plane-capsule", &sc);
    assert_true(ss.contacts > N_RANDOM / 8 && sc.contacts > N_RANDOM / 8);
}

/* ---- 3. dispatch ---------------------------------------------------------------------- */

static qp_shape rand_shape(qp_shape_type t)
{
    double v[4];   /* one draw per statement, in argument order */
    switch (t) {
    case QP_SHAPE_PLANE:
        urand3(v, -1, 1);
        v[3] = urand(-1, 1);
        return plane(v[0], v[1], v[2], v[3]);
    case QP_SHAPE_SPHERE: return sphere(rand_size(0.05, 2));
    case QP_SHAPE_CAPSULE:
        v[0] = rand_size(0.05, 2);
        v[1] = rand_size(0.05, 2);
        return capsule(v[0], v[1]);
    default:
        for (int k = 0; k < 3; k++) v[k] = rand_size(0.05, 2);
        return box(v[0], v[1], v[2]);
    }
}

static qp_transform inverse(const qp_transform *x)
{
    qp_transform r;
    r.r = qp_rot3_transpose(&x->r);
    r.p = qp_v3_neg(qp_rot3_mul_v3(&r.r, x->p));
    return r;
}

/* Rotations that are signed permutations (the 24 proper ones): R^T p and R p
 * are exact, so the swapped call sees exactly the same pose. */
static qp_rot3 perm_rot(int k)
{
    static const int perms[6][3] = { { 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 0, 2, 1 }, { 2, 1, 0 }, { 1, 0, 2 } };
    const int *p = perms[k % 6];
    int odd = (k % 6) >= 3, sgn = k / 6;   /* 0..3: sign patterns with det +1 */
    int s[3] = { 1, 1, 1 };
    if (sgn == 1) { s[0] = -1; s[1] = -1; }
    if (sgn == 2) { s[1] = -1; s[2] = -1; }
    if (sgn == 3) { s[0] = -1; s[2] = -1; }
    if (odd) s[2] = -s[2];
    qp_rot3 r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 3; i++) r.m[i][p[i]] = s[i] * QP_Q30_ONE;
    return r;
}

static void map_to_a(const qp_manifold *mb, const qp_transform *b_in_a, qp_manifold *out)
{
    *out = *mb;
    out->normal = qp_v3_neg(qp_rot3_mul_v3(&b_in_a->r, mb->normal));
    for (int k = 0; k < mb->count; k++) out->points[k].point = qp_transform_point(b_in_a, mb->points[k].point);
}

static void expect_same_manifold(const qp_manifold *x, const qp_manifold *y)
{
    assert_int_equal(x->count, y->count);
    assert_memory_equal(&x->normal, &y->normal, sizeof x->normal);
    assert_memory_equal(x->points, y->points, (size_t)x->count * sizeof x->points[0]);
}

static void test_dispatch(void **st)
{
    (void)st;
    qp_shape_type pairs[][2] = { { QP_SHAPE_PLANE, QP_SHAPE_SPHERE }, { QP_SHAPE_PLANE, QP_SHAPE_CAPSULE },
                                 { QP_SHAPE_SPHERE, QP_SHAPE_CAPSULE }, { QP_SHAPE_PLANE, QP_SHAPE_BOX },
                                 { QP_SHAPE_SPHERE, QP_SHAPE_BOX }, { QP_SHAPE_CAPSULE, QP_SHAPE_BOX } };
    int contacts = 0, worst_d = 0;
    for (int p = 0; p < 6; p++)
        for (int i = 0; i < 1000; i++) {
            qp_shape a = rand_shape(pairs[p][0]), b = rand_shape(pairs[p][1]);
            bool exact = i % 2 == 0;
            qp_transform xf = rand_xf(-2.5, 2.5, 1);
            if (exact) xf.r = perm_rot((int)(rng() % 24));
            qp_transform inv = inverse(&xf);
            fix16_t mg = f16(rand_margin());
            qp_manifold m1, m2, m2a;
            int n1 = qp_collide(&a, &b, &xf, mg, &m1);
            int n2 = qp_collide(&b, &a, &inv, mg, &m2);
            map_to_a(&m2, &xf, &m2a);
            if (exact) {
                /* the same pose both ways: collide(b, a) is collide(a, b) flipped, bit for bit */
                qp_transform back = inverse(&inv);
                assert_memory_equal(&back, &xf, sizeof xf);
                assert_int_equal(n1, n2);
                if (n1) contacts++;
                qp_manifold e;
                e = m1;
                e.normal = qp_rot3_tmul_v3(&xf.r, qp_v3_neg(m1.normal));
                for (int k = 0; k < n1; k++) e.points[k].point = qp_transform_point_inv(&xf, m1.points[k].point);
                expect_same_manifold(&m2, &e);
            } else {
                /* any rotation: the swapped call is the direct one on the inverse of the
                 * inverse pose (within 1 LSB of xf), mapped into b's frame */
                qp_transform back = inverse(&inv);
                qp_manifold c, e;
                int nc = qp_collide(&a, &b, &back, mg, &c);
                assert_int_equal(nc, n2);
                e = c;
                e.normal = qp_v3_neg(qp_rot3_mul_v3(&inv.r, c.normal));
                for (int k = 0; k < nc; k++) e.points[k].point = qp_transform_point(&inv, c.points[k].point);
                expect_same_manifold(&m2, &e);
                /* and close to the direct result on xf */
                if (n1 == n2 && (pairs[p][1] != QP_SHAPE_BOX))
                    for (int k = 0; k < n1; k++) {
                        int ed = abs(m2a.points[k].depth - m1.points[k].depth);
                        if (ed > worst_d) worst_d = ed;
                        assert_true(ed <= 4);
                    }
            }
        }
    print_message("dispatch: %d exact swapped contacts identical; any rotation: depth within %d LSB\n",
                  contacts, worst_d);
    assert_true(contacts > 300);
    /* plane-plane: nothing, either way */
    qp_shape p1 = plane(0, 1, 0, 0), p2 = plane(0, -1, 0, 1);
    qp_transform id = xf_at(0, 0, 0);
    qp_manifold m;
    assert_int_equal(qp_collide(&p1, &p2, &id, QP_INT(10), &m), 0);
    assert_int_equal(m.count, 0);
}

/* Same-type pairs run the same function both ways: the results agree up to rounding. */
static void test_symmetry_same_type(void **st)
{
    (void)st;
    int worst_d = 0;
    double worst_ang = 0;
    for (int t = QP_SHAPE_SPHERE; t <= QP_SHAPE_CAPSULE; t++)
        for (int i = 0; i < 2000; i++) {
            qp_shape a = rand_shape((qp_shape_type)t), b = rand_shape((qp_shape_type)t);
            qp_transform xf = rand_xf(-2, 2, 1);
            qp_transform inv = inverse(&xf);
            qp_manifold m1, m2;
            int n1 = qp_collide(&a, &b, &xf, 0, &m1);
            int n2 = qp_collide(&b, &a, &inv, 0, &m2);
            if (!n1 || !n2) {
                /* only at the very edge of contact */
                if (n1) assert_true(max_depth(&m1) < 4 * LSB);
                if (n2) assert_true(max_depth(&m2) < 4 * LSB);
                continue;
            }
            int ed = abs(f16(max_depth(&m1)) - f16(max_depth(&m2)));
            if (ed > worst_d) worst_d = ed;
            assert_true(ed <= 4);
            dv3 n1a = dvn(m1.normal), n2a = dvn(qp_rot3_mul_v3(&xf.r, m2.normal));
            /* The normal joins the two cores: a pose error of ~1 LSB turns it by about
             * 1 LSB / (distance of the cores) radians. Bound: 8 LSB / distance. */
            double cores = d16(a.radius) + d16(b.radius) - max_depth(&m1);
            if (cores < 1e-3) continue;
            double ang = angle_deg(n1a, scl(n2a, -1)) * M_PI / 180 * cores * Q16;   /* in LSB */
            if (ang > worst_ang) worst_ang = ang;
            assert_true(ang <= 8);
        }
    print_message("same-type symmetry: depth %d LSB, normal x core distance %.2f LSB\n", worst_d, worst_ang);
}

/* Edges of the supported range (run under UBSan by make test): largest shapes
 * up to 1000 m apart on every axis, large margins, planes at the world limit
 * with the other shape 10 km away. Every result stays well formed. */
static void test_extremes(void **st)
{
    (void)st;
    int contacts = 0;
    for (int i = 0; i < 20000; i++) {
        qp_shape_type ta = (qp_shape_type)(rng() % QP_SHAPE_TYPE_COUNT), tb = (qp_shape_type)(rng() % QP_SHAPE_TYPE_COUNT);
        qp_shape a, b;
        qp_shape *sh[2] = { &a, &b };
        qp_shape_type ty[2] = { ta, tb };
        for (int k = 0; k < 2; k++) {
            double big = (rng() & 1) ? 100 : 0.01;
            switch (ty[k]) {
            case QP_SHAPE_PLANE: {
                double nv[3];
                urand3(nv, -1, 1);
                *sh[k] = plane(nv[0], nv[1], nv[2], (rng() & 1) ? 10000 : -10000);
                break;
            }
            case QP_SHAPE_SPHERE: *sh[k] = sphere(big); break;
            case QP_SHAPE_CAPSULE: *sh[k] = capsule(big, (rng() & 1) ? 100 : 0.01); break;
            default: *sh[k] = box(big, (rng() & 1) ? 100 : 0.01, 100); break;
            }
        }
        double far = (ta == QP_SHAPE_PLANE || tb == QP_SHAPE_PLANE) ? 10000 : 1000;
        int pick = (int)(rng() % 4);
        double px = pick == 0 ? far : urand(-far, far), py = pick == 1 ? -far : urand(-far, far);
        double pz = pick == 2 ? far : urand(-far, far);
        qp_transform xf = xf_make(px / (pick == 3 ? 1 : 1.7321), py / (pick == 3 ? 1 : 1.7321), pz / (pick == 3 ? 1 : 1.7321),
                                  rand_quat());
        fix16_t mg = (rng() & 1) ? QP_INT(2000) : 0;
        qp_manifold m;
        int n = qp_collide(&a, &b, &xf, mg, &m);
        assert_true(n >= 0 && n <= QP_MAX_MANIFOLD_POINTS && n == m.count);
        if (!n) continue;
        contacts++;
        double nl = len(dvn(m.normal));
        assert_true(fabs(nl - 1) < 1e-6);
        /* Every point within the margin, or a gap of a face turned to a plane or a box (plane-box,
         * box-box's face contact): then the deepest is within it. */
        const bool gaps = (a.type == QP_SHAPE_BOX && (b.type == QP_SHAPE_BOX || b.type == QP_SHAPE_PLANE)) ||
                          (a.type == QP_SHAPE_PLANE && b.type == QP_SHAPE_BOX);
        fix16_t deepest = m.points[0].depth;
        for (int k = 0; k < n; k++) {
            assert_true(gaps || m.points[k].depth >= -mg);
            deepest = m.points[k].depth > deepest ? m.points[k].depth : deepest;
        }
        assert_true(deepest >= -mg);
    }
    print_message("extremes: %d contacts, all well formed\n", contacts);
}

/* ---- 4. translation invariance -------------------------------------------------------- */

static void test_translation_invariance(void **st)
{
    (void)st;
    const double shifts[4][3] = { { 1000, 1000, 1000 }, { -1000, -1000, -1000 },
                                  { 1000.123456, -999.87654, 1000.5 }, { -1000.000015, 999.99998, -1000.3 } };
    int pairs = 0, contacts = 0;
    for (int ta = 0; ta < QP_SHAPE_TYPE_COUNT; ta++)
        for (int tb = 0; tb < QP_SHAPE_TYPE_COUNT; tb++) {
            if (ta == QP_SHAPE_PLANE && tb == QP_SHAPE_PLANE) continue;
            pairs++;
            for (int i = 0; i < 300; i++) {
                qp_shape a = rand_shape((qp_shape_type)ta), b = rand_shape((qp_shape_type)tb);
                /* shapes sit off their body centres, rotated */
                a.offset = rand_v3(-0.5, 0.5);
                b.offset = rand_v3(-0.5, 0.5);
                a.rotation = rand_quat();
                b.rotation = rand_quat();
                qp_transform ba = rand_xf(-1, 1, 1);
                qp_transform bb = rand_xf(-2, 2, 1);
                qp_transform wa = qp_shape_transform(&a, &ba), wb = qp_shape_transform(&b, &bb);
                qp_transform rel = qp_transform_relative(&wa, &wb);
                qp_manifold m0;
                memset(&m0, 0, sizeof m0);
                int n0 = qp_collide(&a, &b, &rel, QP_FRAC(1, 50), &m0);
                if (n0) contacts++;
                for (int s = 0; s < 4; s++) {
                    qp_vec3 t = qp_v3(f16(shifts[s][0]), f16(shifts[s][1]), f16(shifts[s][2]));
                    qp_transform ba2 = ba, bb2 = bb;
                    ba2.p = qp_v3_add(ba.p, t);
                    bb2.p = qp_v3_add(bb.p, t);
                    qp_transform wa2 = qp_shape_transform(&a, &ba2), wb2 = qp_shape_transform(&b, &bb2);
                    qp_transform rel2 = qp_transform_relative(&wa2, &wb2);
                    qp_manifold m1;
                    memset(&m1, 0, sizeof m1);
                    int n1 = qp_collide(&a, &b, &rel2, QP_FRAC(1, 50), &m1);
                    /* bound: 0 LSB, the manifolds are identical */
                    assert_int_equal(n1, n0);
                    assert_memory_equal(&m1.normal, &m0.normal, sizeof m0.normal);
                    assert_memory_equal(m1.points, m0.points, (size_t)n0 * sizeof m0.points[0]);
                }
            }
        }
    print_message("translation: %d type pairs, %d contacts, identical at +-1000 m\n", pairs, contacts);
}

int main(void)
{
    rng_state = 0xC0FFEEu;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_sphere_cases),
        cmocka_unit_test(test_sphere_sphere_cases),
        cmocka_unit_test(test_sphere_capsule_cases),
        cmocka_unit_test(test_plane_capsule_cases),
        cmocka_unit_test(test_capsule_capsule_cases),
        cmocka_unit_test(test_random_sphere_sphere),
        cmocka_unit_test(test_random_sphere_capsule),
        cmocka_unit_test(test_random_capsule_capsule),
        cmocka_unit_test(test_random_plane_pairs),
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_symmetry_same_type),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_translation_invariance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
