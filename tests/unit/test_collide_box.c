/* SPDX-License-Identifier: MIT */
/* Box collisions: box-box, plane-box, sphere-box, capsule-box.
 *
 * Canonical poses with exact expectations (resting, rotated, on an edge and a
 * corner, edge crossing edge, deep, touching, 1 LSB apart, far apart), feature
 * ids that do not flicker under a small rotation, byte-identical repeats, a
 * 100 m box against small ones (no overflow under UBSan), and randomized
 * comparisons against straightforward double-precision references written
 * here (15-axis SAT with incident-face clipping; closest points; segment SAT
 * and golden-section distance). The face-preference tolerances below mirror
 * src/collide_box_box.c: poses whose best and second-best axes are closer
 * than twice that are skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "qp_test_util.h"

#include "qphys/collide.h"

#define LSB (1.0 / Q16)
#define PI 3.14159265358979323846

/* Mirrors of the engine's face-preference tolerances. */
#define TOL_ABS 0.0005
#define TOL_FACE_REL (1.0 / 64)
#define TOL_EDGE_REL (1.0 / 16)

/* test_golden_hash: update only for an intended change of results (last: box-box's face
 * contact keeps the clipped face's points past the margin as gaps where those within leave
 * places: test_impacts.c, cubes landing edge-first on a slab). */
#define GOLDEN_HASH 0x4ccf72bfu

static double d30(qp_q30 v) { return v / Q30; }

/* ---- building poses ------------------------------------------------------------ */

typedef struct { double w, x, y, z; } dquat;

static dquat dq_axis(double ax, double ay, double az, double deg)
{
    double l = sqrt(ax * ax + ay * ay + az * az), a = deg * PI / 180.0;
    dquat q = { cos(a / 2), ax / l * sin(a / 2), ay / l * sin(a / 2), az / l * sin(a / 2) };
    return q;
}
static dquat dq_mul(dquat a, dquat b)
{
    dquat r = { a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w };
    return r;
}
static dquat dq_identity(void) { dquat q = { 1, 0, 0, 0 }; return q; }
static qp_quat to_quat(dquat d)
{
    qp_quat q = { (qp_q30)llround(d.w * Q30), (qp_q30)llround(d.x * Q30), (qp_q30)llround(d.y * Q30),
                  (qp_q30)llround(d.z * Q30) }, n;
    assert_true(qp_quat_normalize(q, &n));
    return n;
}
static qp_transform pose_q(double x, double y, double z, qp_quat q)
{
    qp_transform t;
    t.p = qp_v3(f16(x), f16(y), f16(z));
    t.r = qp_quat_to_rot3(q);
    return t;
}
static qp_transform pose(double x, double y, double z, dquat q) { return pose_q(x, y, z, to_quat(q)); }


typedef int (*collide_fn)(const qp_shape *, const qp_shape *, const qp_transform *, fix16_t, qp_manifold *);

/* Collide twice (once into a buffer full of garbage) and insist on identical bytes. */
static int collide(collide_fn fn, const qp_shape *a, const qp_shape *b, const qp_transform *xf, fix16_t margin,
                   qp_manifold *m)
{
    qp_manifold again;
    memset(m, 0x5A, sizeof *m);
    memset(&again, 0xC3, sizeof again);
    int n = fn(a, b, xf, margin, m);
    int n2 = fn(a, b, xf, margin, &again);
    assert_int_equal(n, m->count);
    assert_int_equal(n, n2);
    assert_memory_equal(m, &again, sizeof again);
    assert_true(n >= 0 && n <= QP_MAX_MANIFOLD_POINTS);
    if (n > 0) {
        double l = sqrt(d30(m->normal.x) * d30(m->normal.x) + d30(m->normal.y) * d30(m->normal.y) +
                        d30(m->normal.z) * d30(m->normal.z));
        assert_true(fabs(l - 1) < 8 / Q30);
    }
    /* Every point within the margin; plane-box keeps the four corners of the face turned to
     * the plane once its deepest is, those past it as gaps, and box-box's face contact the
     * clipped face's points past it as gaps where those within leave places (the edge
     * contact's ids carry bit 13). */
    int within = 0;
    for (int i = 0; i < n; i++) {
        within += m->points[i].depth >= -margin;
        if (fn == qp_collide_box_box && m->points[i].depth < -margin) assert_false(m->points[i].id & (1u << 13));
        else if (fn != qp_collide_plane_box) assert_true(m->points[i].depth >= -margin);
    }
    assert_true(n == 0 || within > 0);
    if (fn == qp_collide_plane_box) assert_true(n == 0 || n == 4);
    return n;
}

static void expect_normal(const qp_manifold *m, double x, double y, double z, double tol)
{
    double l = sqrt(x * x + y * y + z * z);
    if (fabs(d30(m->normal.x) - x / l) > tol || fabs(d30(m->normal.y) - y / l) > tol ||
        fabs(d30(m->normal.z) - z / l) > tol)
        fail_msg("normal (%.9f %.9f %.9f), expected (%.9f %.9f %.9f)", d30(m->normal.x), d30(m->normal.y),
                 d30(m->normal.z), x / l, y / l, z / l);
}
static void expect_point(const qp_manifold_point *p, double x, double y, double z, double tol)
{
    if (fabs(d16(p->point.x) - x) > tol || fabs(d16(p->point.y) - y) > tol || fabs(d16(p->point.z) - z) > tol)
        fail_msg("point (%.6f %.6f %.6f), expected (%.6f %.6f %.6f)", d16(p->point.x), d16(p->point.y),
                 d16(p->point.z), x, y, z);
}
static void expect_depth(const qp_manifold_point *p, double d, double tol)
{
    if (fabs(d16(p->depth) - d) > tol) fail_msg("depth %.7f, expected %.7f", d16(p->depth), d);
}
static void expect_distinct_ids(const qp_manifold *m)
{
    for (int i = 0; i < m->count; i++)
        for (int j = i + 1; j < m->count; j++) assert_true(m->points[i].id != m->points[j].id);
}

/* ---- box - box: canonical poses ------------------------------------------------- */

static void test_bb_stack20(void **st)
{
    (void)st;
    /* Unit cubes, B at (0, 1, 0) on A: the scene "stack20" per pair. */
    qp_shape a = box(0.5, 0.5, 0.5), b = box(0.5, 0.5, 0.5);
    qp_transform xf = pose(0, 1, 0, dq_identity());
    qp_manifold m;
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    assert_int_equal(m.normal.x, 0);
    assert_int_equal(m.normal.y, QP_Q30_ONE);
    assert_int_equal(m.normal.z, 0);
    /* Exact content and order: A's +y face (2) is the reference, B's -y face (3)
     * incident; its corners in order, each named by its two incident edges. */
    const double px[4] = { 0.5, 0.5, -0.5, -0.5 }, pz[4] = { 0.5, -0.5, -0.5, 0.5 };
    const uint32_t ids[4] = { (2u << 9) | (3u << 6) | 3u, (2u << 9) | (3u << 6) | 1u,
                              (2u << 9) | (3u << 6) | 10u, (2u << 9) | (3u << 6) | 19u };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.points[i].depth, 0);
        assert_int_equal(m.points[i].point.x, f16(px[i]));
        assert_int_equal(m.points[i].point.y, f16(0.5));
        assert_int_equal(m.points[i].point.z, f16(pz[i]));
        assert_int_equal(m.points[i].id, ids[i]);
    }
}

static void test_bb_rest_flat(void **st)
{
    (void)st;
    /* A small box flat on a big one, off centre: its four bottom corners. */
    qp_shape a = box(2, 0.5, 2), b = box(0.5, 0.25, 0.3);
    qp_transform xf = pose(0.3, 0.75, -0.2, dq_identity());
    qp_manifold m;
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 0, 1, 0, 0);
    expect_distinct_ids(&m);
    int seen = 0;
    for (int i = 0; i < 4; i++) {
        const qp_manifold_point *p = &m.points[i];
        assert_true(abs(p->depth) <= 1);
        assert_true(abs(p->point.y - f16(0.5)) <= 1);
        int cx = abs(p->point.x - f16(0.8)) <= 1 ? 1 : (abs(p->point.x - f16(-0.2)) <= 1 ? 0 : -1);
        int cz = abs(p->point.z - f16(0.1)) <= 1 ? 1 : (abs(p->point.z - f16(-0.5)) <= 1 ? 0 : -1);
        assert_true(cx >= 0 && cz >= 0);
        seen |= 1 << (cx + 2 * cz);
    }
    assert_int_equal(seen, 15);
    /* Sunk by 1 cm: depth 0.01 everywhere, points midway (5 mm into A). */
    xf = pose(0.3, 0.74, -0.2, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    for (int i = 0; i < 4; i++) {
        expect_depth(&m.points[i], 0.01, 1.5 * LSB);
        assert_true(fabs(d16(m.points[i].point.y) - 0.495) <= 1.5 * LSB);
    }
}

/* Twice the area of the convex quad/triangle through the points (any order). */
static double hull_area_xz(const qp_manifold *m)
{
    /* Order by angle around the centroid. */
    double cx = 0, cz = 0, ang[4];
    int idx[4], n = m->count;
    for (int i = 0; i < n; i++) { cx += d16(m->points[i].point.x) / n; cz += d16(m->points[i].point.z) / n; }
    for (int i = 0; i < n; i++) {
        ang[i] = atan2(d16(m->points[i].point.z) - cz, d16(m->points[i].point.x) - cx);
        idx[i] = i;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (ang[idx[j]] < ang[idx[i]]) { int x = idx[i]; idx[i] = idx[j]; idx[j] = x; }
    double a = 0;
    for (int i = 0; i < n; i++) {
        const qp_vec3 p = m->points[idx[i]].point, q = m->points[idx[(i + 1) % n]].point;
        a += d16(p.x) * d16(q.z) - d16(q.x) * d16(p.z);
    }
    return fabs(a) / 2;
}

static void test_bb_rotated_45(void **st)
{
    (void)st;
    /* B turned 45 degrees about the vertical: the overlap is a regular octagon
     * (area 2(sqrt2 - 1) = 0.828); four of its corners are kept, spread as a
     * square (0.586, the most four corners of it can cover). */
    qp_shape a = box(0.5, 0.5, 0.5), b = box(0.5, 0.5, 0.5);
    qp_transform xf = pose(0, 1, 0, dq_axis(0, 1, 0, 45));
    qp_manifold m;
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    assert_int_equal(m.normal.y, QP_Q30_ONE);
    expect_distinct_ids(&m);
    const double c = cos(PI / 4);
    for (int i = 0; i < 4; i++) {
        const qp_manifold_point *p = &m.points[i];
        assert_true(abs(p->depth) <= 2);
        double x = d16(p->point.x), z = d16(p->point.z);
        assert_true(fabs(d16(p->point.y) - 0.5) <= 2 * LSB);
        /* Inside both squares, on the octagon's boundary. */
        assert_true(fabs(x) <= 0.5 + 2 * LSB && fabs(z) <= 0.5 + 2 * LSB);
        assert_true(fabs(c * x - c * z) <= 0.5 + 2 * LSB && fabs(c * x + c * z) <= 0.5 + 2 * LSB);
        /* An octagon corner lies on one square's side and the other's. */
        double on_a = fmax(fabs(x), fabs(z)), on_b = fmax(fabs(c * x - c * z), fabs(c * x + c * z));
        assert_true(fabs(on_a - 0.5) <= 3 * LSB && fabs(on_b - 0.5) <= 3 * LSB);
    }
    assert_true(hull_area_xz(&m) >= 0.585);
}

static void test_bb_edge_edge(void **st)
{
    (void)st;
    /* A's top-front edge (along x at y = z = 0.5) crossed at right angles by an
     * edge of B (along (0, -1, 1)) coming from the direction (0, 1, 1). */
    qp_shape a = box(0.5, 0.5, 0.5), b = box(0.5, 0.5, 0.5);
    dquat q = dq_mul(dq_axis(1, 0, 0, 45), dq_axis(0, 0, 1, 45));
    const double s = sqrt(0.5), d = 0.01;
    qp_transform xf = pose(0, 1 - d * s, 1 - d * s, q);
    qp_manifold m;
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, 1, 1, 4e-6);
    expect_depth(&m.points[0], d, 3 * LSB);
    expect_point(&m.points[0], 0, 0.5 - d / 2 * s, 0.5 - d / 2 * s, 3 * LSB);
    /* A's edge 0*4 + 3 (y+, z+), B's edge 2*4 + 0 (x-, y-): id 0x2000 | 3 << 4 | 8. */
    assert_int_equal(m.points[0].id, 0x2000u | (3u << 4) | 8u);
    /* Moved apart by 1 mm: nothing; with a 2 mm margin: depth -1 mm. */
    xf = pose(0, 1 + 0.001 * s, 1 + 0.001 * s, q);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 0);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, QP_MM(2), &m), 1);
    expect_depth(&m.points[0], -0.001, 3 * LSB);
}

/* p lies on the surface of box s at pose xf (within tol m): inside it, and on one face. */
static bool on_box(const qp_shape *s, const qp_transform *xf, const double p[3], double tol)
{
    const double h[3] = { d16(s->half.x), d16(s->half.y), d16(s->half.z) };
    const double t[3] = { d16(xf->p.x), d16(xf->p.y), d16(xf->p.z) };
    double out = 0, face = 1e9;
    for (int k = 0; k < 3; k++) {
        double l = 0;
        for (int i = 0; i < 3; i++) l += d30(xf->r.m[i][k]) * (p[i] - t[i]);
        out = fmax(out, fabs(l) - h[k]);
        face = fmin(face, fabs(fabs(l) - h[k]));
    }
    return out <= tol && face <= tol;
}

/* Each point of a face contact (in A's frame, B at xf) is midway between a point on one box
 * and a point on the other, depth apart along the normal: point -+ normal depth / 2. */
static void expect_on_both(const qp_manifold *m, const qp_shape *a, const qp_shape *b, const qp_transform *xf)
{
    const qp_transform id = { qp_v3(0, 0, 0), qp_quat_to_rot3((qp_quat){ QP_Q30_ONE, 0, 0, 0 }) };
    const double n[3] = { d30(m->normal.x), d30(m->normal.y), d30(m->normal.z) };
    for (int i = 0; i < m->count; i++) {
        const double dep = d16(m->points[i].depth), c[3] = { d16(m->points[i].point.x), d16(m->points[i].point.y),
                                                             d16(m->points[i].point.z) };
        double on_a[3], on_b[3];
        for (int k = 0; k < 3; k++) {
            on_a[k] = c[k] + n[k] * dep / 2;
            on_b[k] = c[k] - n[k] * dep / 2;
        }
        const double tol = 1e-4 * (1 + fabs(dep));
        if (!on_box(a, &id, on_a, tol) || !on_box(b, xf, on_b, tol))
            fail_msg("point %d (%.6f %.6f %.6f), depth %.6f: not midway between the boxes' surfaces", i, c[0], c[1],
                     c[2], dep);
    }
}

static void test_bb_on_edge_and_corner(void **st)
{
    (void)st;
    qp_shape a = box(0.5, 0.5, 0.5), b = box(0.5, 0.5, 0.5);
    qp_manifold m;
    const double d = 0.002;
    /* On its edge: B turned 45 degrees about z, its lowest edge along z. */
    qp_transform xf = pose(0, 0.5 + sqrt(0.5) - d, 0, dq_axis(0, 0, 1, 45));
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 0, 1, 0, 0);
    expect_distinct_ids(&m);
    expect_on_both(&m, &a, &b, &xf);
    for (int i = 0; i < 2; i++) {
        expect_depth(&m.points[i], d, 3 * LSB);
        expect_point(&m.points[i], 0, 0.5 - d / 2, d16(m.points[i].point.z), 3 * LSB);
        assert_true(fabs(fabs(d16(m.points[i].point.z)) - 0.5) <= 2 * LSB);
    }
    assert_true(m.points[0].point.z != m.points[1].point.z);
    /* The gaps: the incident face rises at 45 degrees from the edge and is clipped at A's side
     * (x = +-0.5), 0.5 - d above A's face; each point midway. */
    for (int i = 2; i < 4; i++) {
        expect_depth(&m.points[i], -(0.5 - d), 3 * LSB);
        expect_point(&m.points[i], d16(m.points[2].point.x), 0.75 - d / 2, d16(m.points[i].point.z), 3 * LSB);
        assert_true(fabs(fabs(d16(m.points[i].point.x)) - 0.5) <= 2 * LSB);
        assert_true(fabs(fabs(d16(m.points[i].point.z)) - 0.5) <= 2 * LSB);
    }
    assert_true(m.points[2].point.z != m.points[3].point.z);
    /* On its corner: B's body diagonal vertical. One point within the margin, the three gaps
     * of the incident face clipped to A's top face after it. */
    dquat q = dq_axis(-1, 0, 1, acos(1 / sqrt(3)) * 180 / PI);
    xf = pose(0, 0.5 + 0.5 * sqrt(3) - d, 0, q);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 0, 1, 0, 0);
    expect_depth(&m.points[0], d, 3 * LSB);
    expect_point(&m.points[0], 0, 0.5 - d / 2, 0, 4 * LSB);
    expect_on_both(&m, &a, &b, &xf);
    for (int i = 1; i < 4; i++) {
        assert_true(d16(m.points[i].depth) < -0.3);
        assert_true(fabs(d16(m.points[i].point.x)) <= 0.5 + LSB && fabs(d16(m.points[i].point.z)) <= 0.5 + LSB);
    }
}

static void test_bb_deep_touch_gap(void **st)
{
    (void)st;
    qp_shape a = box(0.5, 0.5, 0.5), b = box(0.5, 0.5, 0.5);
    qp_manifold m;
    /* Deep: half overlapping. */
    qp_transform xf = pose(0, 0.5, 0, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 0, 1, 0, 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.points[i].depth, f16(0.5));
        assert_int_equal(m.points[i].point.y, f16(0.25));
    }
    /* Deep the other way round: B below, the normal flips. */
    xf = pose(0.1, -0.7, 0, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 0, -1, 0, 0);
    for (int i = 0; i < 4; i++) assert_int_equal(m.points[i].depth, f16(0.3));
    /* Same centre: a deterministic answer (A's +x face). */
    xf = pose(0, 0, 0, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 1, 0, 0, 0);
    for (int i = 0; i < 4; i++) assert_int_equal(m.points[i].depth, f16(1));
    /* Exactly touching: 4 points at depth 0 (margin 0 keeps depth 0). */
    xf.p = qp_v3(f16(0.2), QP_ONE, f16(-0.1));
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    for (int i = 0; i < 4; i++) assert_int_equal(m.points[i].depth, 0);
    /* 1 LSB apart: nothing with margin 0, depth -1 LSB with margin 1 LSB. */
    xf.p.y = QP_ONE + 1;
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 0);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 1, &m), 4);
    for (int i = 0; i < 4; i++) assert_int_equal(m.points[i].depth, -1);
    /* The same sideways and along z. */
    xf.p = qp_v3(QP_ONE + 1, 0, 0);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 0);
    xf.p = qp_v3(0, 0, -QP_ONE - 1);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 0);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 1, &m), 4);
    expect_normal(&m, 0, 0, -1, 0);
    /* Far apart, and further than anything can reach. */
    xf = pose(5, 3, -2, dq_axis(1, 2, 3, 30));
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, QP_MM(5), &m), 0);
    xf = pose(3000, 0, 0, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, QP_MM(5), &m), 0);
    xf.p = qp_v3(QP_FIX_MAX, QP_FIX_MIN, QP_FIX_MAX);
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, QP_MM(5), &m), 0);
}

static void test_bb_no_flicker(void **st)
{
    (void)st;
    /* A small box on a larger one: turned 0.5 degree about the vertical, or
     * tilted 0.5 degree (with a margin covering the tilt), it keeps the same
     * four feature ids as unrotated and the reference normal stays A's face. */
    qp_shape a = box(1, 0.5, 1), b = box(0.4, 0.4, 0.4);
    qp_manifold m0, m;
    qp_transform xf = pose(0.1, 0.9 - 0.001, 0.05, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, QP_MM(10), &m0), 4);
    const dquat rots[6] = { dq_axis(0, 1, 0, 0.5), dq_axis(0, 1, 0, -0.5), dq_axis(1, 0, 0, 0.5),
                            dq_axis(0, 0, 1, -0.5), dq_mul(dq_axis(1, 0, 0, 0.3), dq_axis(0, 0, 1, 0.3)),
                            dq_axis(0, 1, 0, 0.01) };
    for (int r = 0; r < 6; r++) {
        xf = pose(0.1, 0.9 - 0.001, 0.05, rots[r]);
        assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, QP_MM(10), &m), 4);
        assert_int_equal(m.normal.x, 0);
        assert_int_equal(m.normal.y, QP_Q30_ONE);
        assert_int_equal(m.normal.z, 0);
        for (int i = 0; i < 4; i++) assert_int_equal(m.points[i].id, m0.points[i].id);
    }
    /* Equal boxes, B tilted 0.5 degree about z resting on its low edge, margin
     * large enough for all four corners: A's face is kept over B's. */
    qp_shape c = box(0.5, 0.5, 0.5);
    xf = pose(0, 1 + 0.5 * sin(0.5 * PI / 180) + 0.5 * cos(0.5 * PI / 180) - 0.5 - 0.0005, 0,
              dq_axis(0, 0, 1, 0.5));
    assert_int_equal(collide(qp_collide_box_box, &c, &c, &xf, QP_MM(20), &m), 4);
    assert_int_equal(m.normal.y, QP_Q30_ONE);
}

static void test_bb_reference_b(void **st)
{
    (void)st;
    /* Built in a frame W where B (a big flat slab) is axis aligned and A (a
     * unit cube at the origin) is turned 45 degrees about z, so A's top edge
     * (at height sqrt(1/2)) pokes d into B's bottom face. Seen from A, B's face
     * is the reference: normal = B's +y axis = (sin45, cos45, 0), two points
     * on A's edge (0.5, 0.5, +-0.5), moved d/2 back along the normal (to
     * midway between A's corner, inside B, and B's face). */
    qp_shape a = box(0.5, 0.5, 0.5), b = box(3, 0.5, 3);
    const double d = 0.003, e = sqrt(0.5);
    const double w[3] = { 0.2, e - d + 0.5, 0.1 };
    qp_transform xf = pose(e * w[0] + e * w[1], -e * w[0] + e * w[1], w[2], dq_axis(0, 0, 1, -45));
    qp_manifold m;
    assert_int_equal(collide(qp_collide_box_box, &a, &b, &xf, 0, &m), 4);
    expect_normal(&m, 1, 1, 0, 4e-6);
    expect_on_both(&m, &a, &b, &xf);
    /* A's face behind the edge rises at 45 degrees from B's, which is wider than it: its far
     * corners are gaps of sqrt(1/2) - d, the face's width times sin 45. */
    for (int i = 2; i < 4; i++) {
        expect_depth(&m.points[i], -(e - d), 3 * LSB);
        assert_int_equal(m.points[i].id >> 12, 1);
    }
    for (int i = 0; i < 2; i++) {
        expect_depth(&m.points[i], d, 3 * LSB);
        expect_point(&m.points[i], 0.5 - e * d / 2, 0.5 - e * d / 2, d16(m.points[i].point.z), 3 * LSB);
        assert_true(abs(abs(m.points[i].point.z) - f16(0.5)) <= 2);
        assert_int_equal(m.points[i].id >> 12, 1);   /* reference box: B */
    }
    assert_true(m.points[0].point.z != m.points[1].point.z);
}

static void test_bb_large_and_small(void **st)
{
    (void)st;
    /* A 200 m slab and 5 cm boxes on it, near its far corner, both ways round. */
    qp_shape big = box(100, 1, 100), small = box(0.05, 0.05, 0.05);
    qp_manifold m;
    qp_transform xf = pose(99.97, 1.05 - 0.001, -99.96, dq_axis(0, 1, 0, 20));
    assert_int_equal(collide(qp_collide_box_box, &big, &small, &xf, 0, &m), 4);
    expect_normal(&m, 0, 1, 0, 0);
    for (int i = 0; i < 4; i++) expect_depth(&m.points[i], 0.001, 2 * LSB);
    /* Hanging over the edge: part of the bottom face clipped at x = 100. */
    xf = pose(99.99, 1.05 - 0.001, 0, dq_identity());
    assert_int_equal(collide(qp_collide_box_box, &big, &small, &xf, 0, &m), 4);
    for (int i = 0; i < 4; i++) {
        expect_depth(&m.points[i], 0.001, 2 * LSB);
        assert_true(d16(m.points[i].point.x) <= 100 + LSB);
    }
    /* Small as A, the slab as B (turned 37 degrees, seen from the small box):
     * the slab's top face 1 mm into A's lowest corner, 3 m off the slab's centre. */
    {
        qp_transform inv;
        qp_quat qq = to_quat(dq_axis(1, 1, 0, 37));
        qp_rot3 r = qp_quat_to_rot3(qq);
        double up[3] = { d30(r.m[0][1]), d30(r.m[1][1]), d30(r.m[2][1]) };
        /* A's lowest point along -up: the support of the small cube. */
        double sup = 0.05 * (fabs(up[0]) + fabs(up[1]) + fabs(up[2]));
        double dist = 1 + sup - 0.001;
        inv = pose_q(-up[0] * dist + 3 * d30(r.m[0][0]), -up[1] * dist + 3 * d30(r.m[1][0]),
                     -up[2] * dist + 3 * d30(r.m[2][0]), qq);
        assert_true(collide(qp_collide_box_box, &small, &big, &inv, 0, &m) >= 1);
        expect_normal(&m, -up[0], -up[1], -up[2], 1e-5);
        double dmax = -1;
        for (int i = 0; i < m.count; i++) dmax = fmax(dmax, d16(m.points[i].depth));
        assert_true(fabs(dmax - 0.001) <= 3 * LSB);
    }
    /* Two 200 m slabs stacked (sunk 1 cm, turned 10 degrees), then 920 m apart. */
    xf = pose(0, 2 - 0.01, 0, dq_axis(0, 1, 0, 10));
    assert_int_equal(collide(qp_collide_box_box, &big, &big, &xf, 0, &m), 4);
    for (int i = 0; i < 4; i++) expect_depth(&m.points[i], 0.01, 2 * LSB);
    xf = pose(150, 900, -150, dq_axis(1, 2, 3, 50));
    assert_int_equal(collide(qp_collide_box_box, &big, &big, &xf, 0, &m), 0);
}

/* ---- box - box: randomized against a double-precision reference ----------------- */

typedef struct {
    double n[3];     /* unit, from A to B */
    double sep;      /* > 0 separated */
    int kind;        /* 0: A's face, 1: B's face, 2: edge pair */
    int index;       /* face axis, or 3 * i + j */
    double len;      /* |e_i x c_j| for edges */
} ref_axis;

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void ref_eval(ref_axis *ax, const double ha[3], const double hb[3], const double R[3][3], const double t[3])
{
    if (dot3(ax->n, t) < 0)
        for (int k = 0; k < 3; k++) ax->n[k] = -ax->n[k];
    double ra = 0, rb = 0;
    for (int k = 0; k < 3; k++) {
        double ck[3] = { R[0][k], R[1][k], R[2][k] };
        ra += ha[k] * fabs(ax->n[k]);
        rb += hb[k] * fabs(dot3(ck, ax->n));
    }
    ax->sep = dot3(ax->n, t) - ra - rb;
}

/* All 15 axes (edge axes with |cross| < 1e-6 dropped); returns the count. */
static int ref_axes(const double ha[3], const double hb[3], const double R[3][3], const double t[3], ref_axis out[15])
{
    int n = 0;
    for (int i = 0; i < 3; i++) {
        ref_axis a = { { 0, 0, 0 }, 0, 0, i, 1 };
        a.n[i] = 1;
        ref_eval(&a, ha, hb, R, t);
        out[n++] = a;
    }
    for (int j = 0; j < 3; j++) {
        ref_axis a = { { R[0][j], R[1][j], R[2][j] }, 0, 1, j, 1 };
        double l = sqrt(dot3(a.n, a.n));
        for (int k = 0; k < 3; k++) a.n[k] /= l;
        ref_eval(&a, ha, hb, R, t);
        out[n++] = a;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double e[3] = { 0, 0, 0 }, c[3] = { R[0][j], R[1][j], R[2][j] };
            e[i] = 1;
            ref_axis a = { { e[1] * c[2] - e[2] * c[1], e[2] * c[0] - e[0] * c[2], e[0] * c[1] - e[1] * c[0] }, 0, 2,
                           3 * i + j, 0 };
            a.len = sqrt(dot3(a.n, a.n));
            if (a.len < 1e-6) continue;
            for (int k = 0; k < 3; k++) a.n[k] /= a.len;
            ref_eval(&a, ha, hb, R, t);
            out[n++] = a;
        }
    return n;
}

/* Deepest point of the incident face clipped to the reference face (double),
 * -1e9 when the clip is empty. */
static double ref_clip_depth(const ref_axis *ax, const double ha[3], const double hb[3], const double R[3][3],
                             const double t[3])
{
    double Ri[3][3], ti[3];
    const double *hr, *hi;
    if (ax->kind == 0) {
        memcpy(Ri, R, sizeof Ri);
        memcpy(ti, t, sizeof ti);
        hr = ha;
        hi = hb;
    } else {
        for (int i = 0; i < 3; i++) {
            ti[i] = 0;
            for (int j = 0; j < 3; j++) {
                Ri[i][j] = R[j][i];
                ti[i] -= R[j][i] * t[j];
            }
        }
        hr = hb;
        hi = ha;
    }
    int a = ax->index, s = ti[a] >= 0 ? 1 : -1;
    int k = 0;
    for (int c = 1; c < 3; c++)
        if (fabs(Ri[a][c]) > fabs(Ri[a][k])) k = c;
    int sk = Ri[a][k] * s > 0 ? -1 : 1;
    double poly[16][3], tmp[16][3];
    int n = 4;
    const int s1[4] = { 1, -1, -1, 1 }, s2[4] = { 1, 1, -1, -1 };
    for (int v = 0; v < 4; v++) {
        double l[3];
        l[k] = sk * hi[k];
        l[(k + 1) % 3] = s1[v] * hi[(k + 1) % 3];
        l[(k + 2) % 3] = s2[v] * hi[(k + 2) % 3];
        for (int c = 0; c < 3; c++) poly[v][c] = ti[c] + Ri[c][0] * l[0] + Ri[c][1] * l[1] + Ri[c][2] * l[2];
    }
    for (int pl = 0; pl < 4 && n > 0; pl++) {
        int c = (a + 1 + pl / 2) % 3;
        double sg = pl % 2 ? -1 : 1;
        int o = 0;
        for (int i = 0; i < n; i++) {
            double *p = poly[i], *q = poly[(i + 1) % n];
            double dp = sg * p[c] - hr[c], dq = sg * q[c] - hr[c];
            if (dp <= 0) memcpy(tmp[o++], p, sizeof tmp[0]);
            if ((dp <= 0) != (dq <= 0)) {
                double f = dp / (dp - dq);
                for (int m = 0; m < 3; m++) tmp[o][m] = p[m] + (q[m] - p[m]) * f;
                o++;
            }
        }
        n = o;
        memcpy(poly, tmp, sizeof poly);
    }
    double best = -1e9;
    for (int i = 0; i < n; i++) best = fmax(best, hr[a] - s * poly[i][a]);
    return best;
}

/* An edge axis within 7.2 degrees of a face's normal (|n . f|^2 >= 63/64): the other box's
 * edge lies across that face (src/collide_box_box.c, edge_across_face). Returns the deepest
 * end of that edge's part over the face, below the face, and the face's normal from A to B in
 * *fn; -1e9 when no face is that close, or *near when it is within 1e-4 of the bound. */
static double ref_edge_on_face(const ref_axis *ax, const double ha[3], const double hb[3], const double R[3][3],
                               const double t[3], double fn[3], bool *near)
{
    const double *n = ax->n;
    int i = ax->index / 3, j = ax->index % 3, best_b = -1, k = 0;
    double best = 0;
    for (int q = 0; q < 3; q++) {
        double cq[3] = { R[0][q], R[1][q], R[2][q] }, da = fabs(n[q]), db = fabs(dot3(cq, n));
        if (da > best) { best = da; best_b = 0; k = q; }
        if (db > best) { best = db; best_b = 1; k = q; }
    }
    *near = fabs(best * best - 63.0 / 64) < 1e-4;
    if (best * best < 63.0 / 64) return -1e9;
    double c[3], u[3], h;   /* the segment in the reference box's frame */
    const double *hr;
    int sf;
    if (best_b == 1) {   /* A's edge i through A's support point in +n, into B's frame */
        double ca[3];
        for (int q = 0; q < 3; q++) ca[q] = q == i ? 0 : (n[q] >= 0 ? ha[q] : -ha[q]);
        for (int q = 0; q < 3; q++) {
            c[q] = 0;
            for (int r = 0; r < 3; r++) c[q] += R[r][q] * (ca[r] - t[r]);
            u[q] = R[i][q];
        }
        h = ha[i];
        hr = hb;
        double cq[3] = { R[0][k], R[1][k], R[2][k] };
        sf = dot3(cq, n) > 0 ? -1 : 1;
        for (int q = 0; q < 3; q++) fn[q] = -sf * cq[q];
    } else {   /* B's edge j through B's support point in -n, in A's frame */
        double lb[3];
        for (int q = 0; q < 3; q++) {
            double cq[3] = { R[0][q], R[1][q], R[2][q] };
            lb[q] = q == j ? 0 : (dot3(cq, n) > 0 ? -hb[q] : hb[q]);
        }
        for (int q = 0; q < 3; q++) {
            c[q] = t[q] + R[q][0] * lb[0] + R[q][1] * lb[1] + R[q][2] * lb[2];
            u[q] = R[q][j];
        }
        h = hb[j];
        hr = ha;
        sf = n[k] > 0 ? 1 : -1;
        for (int q = 0; q < 3; q++) fn[q] = q == k ? sf : 0;
    }
    double lo = -h, hi = h;
    for (int q = 1; q < 3; q++) {
        int a = (k + q) % 3;
        if (fabs(u[a]) < 1e-12) {
            if (fabs(c[a]) > hr[a]) return -1e9;
            continue;
        }
        double s1 = (hr[a] - c[a]) / u[a], s2 = (-hr[a] - c[a]) / u[a];
        lo = fmax(lo, fmin(s1, s2));
        hi = fmin(hi, fmax(s1, s2));
    }
    if (lo > hi) return -1e9;
    double deepest = -1e9;
    for (int e = 0; e < 2; e++) {
        double s = e ? hi : lo;
        deepest = fmax(deepest, hr[k] - sf * (c[k] + u[k] * s));
    }
    return deepest;
}

static double angle_deg(const double a[3], const qp_vec3 n30)
{
    double b[3] = { d30(n30.x), d30(n30.y), d30(n30.z) };
    double c = dot3(a, b) / sqrt(dot3(a, a) * dot3(b, b));
    return acos(fmin(1, fmax(-1, c))) * 180 / PI;
}

static void test_bb_random(void **st)
{
    (void)st;
    rng_state = 0x1234567u;
    int compared = 0, faces = 0, edges = 0, across = 0, separated = 0, skipped = 0;
    double max_ang = 0, max_ang_twin = 0, max_dep = 0;
    for (int trial = 0; trial < 40000; trial++) {
        double ha[3], hb[3];
        double scale = trial % 10 == 0 ? 40 : 1;
        for (int k = 0; k < 3; k++) {
            ha[k] = urand(0.05, 2) * (trial % 20 == 0 ? scale : 1);
            hb[k] = urand(0.05, 2) * (trial % 20 == 10 ? scale : 1);
        }
        qp_shape a = box(ha[0], ha[1], ha[2]), b = box(hb[0], hb[1], hb[2]);
        for (int k = 0; k < 3; k++) { ha[k] = d16(a.half.x * (k == 0) + a.half.y * (k == 1) + a.half.z * (k == 2));
                                      hb[k] = d16(b.half.x * (k == 0) + b.half.y * (k == 1) + b.half.z * (k == 2)); }
        double dir[3];
        urand3(dir, -1, 1);
        double dl = sqrt(dot3(dir, dir)) + 1e-9;
        double reach = sqrt(dot3(ha, ha)) + sqrt(dot3(hb, hb));
        double dist = urand(0, 1.05) * reach;
        qp_transform xf = pose_q(dir[0] / dl * dist, dir[1] / dl * dist, dir[2] / dl * dist, rand_quat());
        double R[3][3], t[3] = { d16(xf.p.x), d16(xf.p.y), d16(xf.p.z) };
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) R[i][j] = d30(xf.r.m[i][j]);
        ref_axis ax[15];
        int n_ax = ref_axes(ha, hb, R, t, ax);
        int best = 0;
        for (int i = 1; i < n_ax; i++)
            if (ax[i].sep > ax[best].sep) best = i;
        qp_manifold m;
        int n = collide(qp_collide_box_box, &a, &b, &xf, 0, &m);
        if (ax[best].sep > 1e-4) {
            assert_int_equal(n, 0);
            separated++;
            continue;
        }
        double second = -1e9;
        for (int i = 0; i < n_ax; i++)
            if (i != best && fabs(dot3(ax[i].n, ax[best].n)) < 0.99999) second = fmax(second, ax[i].sep);
        double tol = 2 * (TOL_ABS + fabs(ax[best].sep) * TOL_EDGE_REL);
        if (ax[best].sep > -1e-3 || ax[best].sep - second < tol || (ax[best].kind == 2 && ax[best].len < 0.01)) {
            skipped++;
            continue;
        }
        double ref_depth = ax[best].kind == 2 ? -ax[best].sep : ref_clip_depth(&ax[best], ha, hb, R, t);
        double face_n[3];
        bool near = false, on_face = false;
        if (ax[best].kind == 2) {   /* an edge across a face: that face's normal, its clipped ends */
            double d = ref_edge_on_face(&ax[best], ha, hb, R, t, face_n, &near);
            if (near) { skipped++; continue; }
            if (d > -1e9) { on_face = true; ref_depth = d; }
        }
        if (ref_depth < 1e-3) { skipped++; continue; }
        if (n == 0) fail_msg("trial %d: no contact, reference depth %.6f", trial, ref_depth);
        double ang = angle_deg(on_face ? face_n : ax[best].n, m.normal);
        double dmax = -1e9;
        for (int i = 0; i < n; i++) dmax = fmax(dmax, d16(m.points[i].depth));
        if (ang > 0.5 || fabs(dmax - ref_depth) > 0.001)
            fail_msg("trial %d: kind %d angle %.4f deg, depth %.6f vs %.6f", trial, ax[best].kind, ang, dmax,
                     ref_depth);
        /* An axis within 0.26 degree of the best one (excluded from "second")
         * may win by the face preference: then only the 0.5 degree bound holds. */
        bool twin = false;
        for (int i = 0; i < n_ax; i++)
            if (i != best && fabs(dot3(ax[i].n, ax[best].n)) >= 0.99999) twin = true;
        expect_on_both(&m, &a, &b, &xf);
        if (ax[best].kind == 2) {
            if (!twin) assert_true(on_face ? n >= 1 && n <= 2 : n == 1);
            edges++;
            across += on_face;
        } else {
            faces++;
        }
        if (twin) max_ang_twin = fmax(max_ang_twin, ang);
        else max_ang = fmax(max_ang, ang);
        max_dep = fmax(max_dep, fabs(dmax - ref_depth));
        compared++;
    }
    print_message("box-box random: %d compared (%d face, %d edge of which %d across a face), %d separated, %d skipped; "
                  "max normal error %.2e deg (%.2e where a near-parallel axis won by preference), "
                  "max depth error %.2e m (%.1f LSB)\n",
                  compared, faces, edges, across, separated, skipped, max_ang, max_ang_twin, max_dep, max_dep * Q16);
    assert_true(compared > 5000 && edges > 300 && across > 20 && separated > 1000);
}

/* ---- plane - box ---------------------------------------------------------------- */

static void test_plane_box(void **st)
{
    (void)st;
    qp_shape g = plane(0, 1, 0, 0), b = box(0.5, 0.25, 0.4);
    qp_manifold m;
    /* Flat: the four bottom corners (ids with bit 1 clear), depth 0, y = 0. */
    qp_transform xf = pose(1, 0.25, 2, dq_identity());
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 0, &m), 4);
    assert_int_equal(m.normal.y, QP_Q30_ONE);
    const uint32_t ids[4] = { 0, 1, 4, 5 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.points[i].id, ids[i]);
        assert_int_equal(m.points[i].depth, 0);
        assert_int_equal(m.points[i].point.y, 0);
        expect_point(&m.points[i], 1 + (ids[i] & 1 ? 0.5 : -0.5), 0, 2 + (ids[i] & 4 ? 0.4 : -0.4), LSB);
    }
    /* Sunk 1 cm: points 5 mm down (midway). */
    xf = pose(1, 0.24, 2, dq_identity());
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 0, &m), 4);
    for (int i = 0; i < 4; i++) { expect_depth(&m.points[i], 0.01, LSB); expect_point(&m.points[i], d16(m.points[i].point.x), -0.005, d16(m.points[i].point.z), LSB); }
    /* Tilted 10 degrees about z: the edge x-, y- (corners 0 and 4) 1 mm deep, and the bottom
     * face's other edge (corners 1 and 5) with its gap, 2 0.5 sin 10 degrees less. */
    double a = 10 * PI / 180, low = 0.5 * sin(a) + 0.25 * cos(a);
    xf = pose(0, low - 0.001, 0, dq_axis(0, 0, 1, 10));
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 0, &m), 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.points[i].id, ids[i]);
        expect_depth(&m.points[i], ids[i] & 1 ? 0.001 - sin(a) : 0.001, 2 * LSB);
    }
    /* Tilted about z and x: one corner in, the bottom face's other three with their gaps. */
    dquat q = dq_mul(dq_axis(1, 0, 0, 7), dq_axis(0, 0, 1, 10));
    xf = pose(0, 0.3, 0, q);
    double lowest = 1e9;
    qp_rot3 r = xf.r;
    for (int c = 0; c < 8; c++) {
        double l[3] = { c & 1 ? 0.5 : -0.5, c & 2 ? 0.25 : -0.25, c & 4 ? 0.4 : -0.4 };
        lowest = fmin(lowest, 0.3 + d30(r.m[1][0]) * l[0] + d30(r.m[1][1]) * l[1] + d30(r.m[1][2]) * l[2]);
    }
    xf = pose(0, 0.3 - lowest - 0.002, 0, q);
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 0, &m), 4);
    double deepest = -1;
    for (int i = 0; i < 4; i++) {
        const uint32_t c = m.points[i].id;
        const double l[3] = { c & 1 ? 0.5 : -0.5, c & 2 ? 0.25 : -0.25, c & 4 ? 0.4 : -0.4 };
        const double y = d16(xf.p.y) + d30(r.m[1][0]) * l[0] + d30(r.m[1][1]) * l[1] + d30(r.m[1][2]) * l[2];
        assert_true((c & 2) == 0);   /* the bottom face's */
        expect_depth(&m.points[i], -y, 2 * LSB);
        deepest = fmax(deepest, d16(m.points[i].depth));
    }
    assert_true(fabs(deepest - 0.002) <= 2 * LSB);
    /* Thin plate hovering 5 mm up with a 5 cm margin: all 8 corners qualify,
     * the four bottom ones are kept. */
    qp_shape plate = box(1, 0.01, 1);
    xf = pose(0, 0.015, 0, dq_identity());
    assert_int_equal(collide(qp_collide_plane_box, &g, &plate, &xf, QP_MM(50), &m), 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.points[i].id, ids[i]);
        expect_depth(&m.points[i], -0.005, LSB);
    }
    /* Touching, 1 LSB above, far above. */
    xf = pose(0, 0.25, 0, dq_identity());
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 0, &m), 4);
    xf.p.y += 1;
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 0, &m), 0);
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, 1, &m), 4);
    for (int i = 0; i < 4; i++) assert_int_equal(m.points[i].depth, -1);
    xf = pose(0, 30, 0, dq_identity());
    assert_int_equal(collide(qp_collide_plane_box, &g, &b, &xf, QP_MM(10), &m), 0);
    /* A slanted plane far from the origin, random boxes: every corner's depth
     * within 2 LSB of double. */
    qp_shape sl = plane(1, 2, -0.5, 300);
    double nd[3] = { d30(sl.normal.x), d30(sl.normal.y), d30(sl.normal.z) };
    rng_state = 99;
    for (int trial = 0; trial < 2000; trial++) {
        double h[3];
        urand3(h, 0.05, 3);
        qp_shape bb = box(h[0], h[1], h[2]);
        double off = urand(-0.5, 0.5) * (h[0] + h[1] + h[2]);
        double tt[3] = { nd[0] * (300 + off) + urand(-50, 50), 0, 0 };
        tt[1] = (300 + off - nd[0] * tt[0]) / nd[1];
        xf = pose_q(tt[0], tt[1], tt[2], rand_quat());
        int n = collide(qp_collide_plane_box, &sl, &bb, &xf, QP_MM(1), &m);
        const double hh[3] = { d16(bb.half.x), d16(bb.half.y), d16(bb.half.z) };
        /* The face turned most towards the plane (its corners the only points): the
         * box axis k of the largest |n . e_k|; a near tie leaves the face to rounding. */
        double nb[3];
        int low = 0;
        for (int k = 0; k < 3; k++) nb[k] = nd[0] * d30(xf.r.m[0][k]) + nd[1] * d30(xf.r.m[1][k]) + nd[2] * d30(xf.r.m[2][k]);
        for (int k = 1; k < 3; k++)
            if (fabs(nb[k]) > fabs(nb[low])) low = k;
        bool tie = false;
        for (int k = 0; k < 3; k++) tie |= k != low && fabs(fabs(nb[k]) - fabs(nb[low])) < 1e-6;
        double deepest = -1e9, deepest_kept = -1e9;
        for (int c = 0; c < 8; c++) {
            double l[3] = { c & 1 ? hh[0] : -hh[0], c & 2 ? hh[1] : -hh[1], c & 4 ? hh[2] : -hh[2] }, p[3];
            for (int i = 0; i < 3; i++)
                p[i] = d16((&xf.p.x)[i]) + d30(xf.r.m[i][0]) * l[0] + d30(xf.r.m[i][1]) * l[1] + d30(xf.r.m[i][2]) * l[2];
            double dep = d16(sl.plane_offset) - dot3(nd, p);
            bool on_face = ((c >> low) & 1) == (nb[low] < 0);
            deepest = fmax(deepest, dep);
            for (int i = 0; i < n; i++)
                if (m.points[i].id == (uint32_t)c) {
                    assert_true(on_face || tie);
                    deepest_kept = fmax(deepest_kept, dep);
                    assert_true(fabs(d16(m.points[i].depth) - dep) <= 2 * LSB);
                    double mid[3] = { p[0] + nd[0] * dep / 2, p[1] + nd[1] * dep / 2, p[2] + nd[2] * dep / 2 };
                    expect_point(&m.points[i], mid[0], mid[1], mid[2], 3 * LSB);
                }
        }
        /* All four of that face's corners once the deepest is within the margin, else none. */
        if (deepest >= -0.001 + 2 * LSB) assert_int_equal(n, 4);
        if (deepest < -0.001 - 2 * LSB) assert_int_equal(n, 0);
        /* The deepest corner is always among them: it lies on that face. */
        if (deepest >= -0.001 + 2 * LSB) assert_true(deepest_kept >= deepest - 2 * LSB);
        expect_distinct_ids(&m);
    }
}

/* ---- sphere - box ------------------------------------------------------------------ */

static void test_sphere_box(void **st)
{
    (void)st;
    qp_shape s = sphere(0.5), b = box(0.5, 0.5, 0.5);
    qp_manifold m;
    /* On the box's top face (box below the sphere). */
    qp_transform xf = pose(0, -1, 0, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    assert_int_equal(m.normal.y, -QP_Q30_ONE);
    assert_int_equal(m.points[0].depth, 0);
    assert_int_equal(m.points[0].id, 0);
    expect_point(&m.points[0], 0, -0.5, 0, 0);
    xf = pose(0.2, -0.9, 0.1, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, -1, 0, 0);
    expect_depth(&m.points[0], 0.1, LSB);
    expect_point(&m.points[0], 0, -0.45, 0, LSB);
    /* On an edge and on a corner, depth d. */
    const double d = 0.01, e = sqrt(0.5), c3 = sqrt(1.0 / 3);
    xf = pose(-(0.5 + (0.5 - d) * e), -(0.5 + (0.5 - d) * e), 0.2, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, -1, -1, 0, 2e-5);
    expect_depth(&m.points[0], d, 2 * LSB);
    expect_point(&m.points[0], -(0.5 - d / 2) * e, -(0.5 - d / 2) * e, 0, 2 * LSB);
    xf = pose(-(0.5 + (0.5 - d) * c3), -(0.5 + (0.5 - d) * c3), 0.5 + (0.5 - d) * c3, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, -1, -1, 1, 2e-5);
    expect_depth(&m.points[0], d, 2 * LSB);
    expect_point(&m.points[0], -(0.5 - d / 2) * c3, -(0.5 - d / 2) * c3, (0.5 - d / 2) * c3, 2 * LSB);
    /* The same through a rotated box: its corner towards the sphere. */
    dquat q = dq_axis(-1, 0, 1, acos(1 / sqrt(3)) * 180 / PI);   /* box diagonal (1,1,1) -> +y */
    xf = pose(0, -(0.5 - d) - 0.5 * sqrt(3), 0, q);
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, -1, 0, 2e-5);
    expect_depth(&m.points[0], d, 3 * LSB);
    /* Deep: centre inside the box, out through the nearest face (+y of the box). */
    xf = pose(0, -0.3, 0, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, -1, 0, 0);
    expect_depth(&m.points[0], 0.7, LSB);
    expect_point(&m.points[0], 0, -0.15, 0, LSB);
    /* Centre at the box centre: deterministic (+x face of the box). */
    xf = pose(0, 0, 0, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, -1, 0, 0, 0);
    expect_depth(&m.points[0], 1, 0);
    /* Centre exactly on the surface. */
    xf = pose(0, -0.5, 0, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    expect_normal(&m, 0, -1, 0, 0);
    expect_depth(&m.points[0], 0.5, 0);
    /* Touching, 1 LSB apart, far apart. */
    xf = pose(0, 0, 1, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 1);
    assert_int_equal(m.points[0].depth, 0);
    xf.p.z += 1;
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 0, &m), 0);
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, 1, &m), 1);
    assert_int_equal(m.points[0].depth, -1);
    xf = pose(3, 0, 0, dq_identity());
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, QP_MM(100), &m), 0);
    xf.p = qp_v3(QP_FIX_MAX, 0, QP_FIX_MIN);
    assert_int_equal(collide(qp_collide_sphere_box, &s, &b, &xf, QP_MM(100), &m), 0);

    /* Randomized against a double closest point. */
    rng_state = 4242;
    double max_ang = 0, max_dep = 0;
    int compared = 0;
    for (int trial = 0; trial < 10000; trial++) {
        double h[3], r, pp[3];
        urand3(h, 0.05, 2);
        r = urand(0.05, 1.5);
        qp_shape sb = box(h[0], h[1], h[2]), ss = sphere(r);
        h[0] = d16(sb.half.x); h[1] = d16(sb.half.y); h[2] = d16(sb.half.z); r = d16(ss.radius);
        urand3(pp, -3, 3);
        xf = pose_q(pp[0], pp[1], pp[2], rand_quat());
        double R[3][3], t[3] = { d16(xf.p.x), d16(xf.p.y), d16(xf.p.z) }, c[3], qd[3], n[3], dep;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) R[i][j] = d30(xf.r.m[i][j]);
        for (int k = 0; k < 3; k++) c[k] = -(R[0][k] * t[0] + R[1][k] * t[1] + R[2][k] * t[2]);
        double dd = 0, pen[3];
        for (int k = 0; k < 3; k++) {
            qd[k] = fmax(-h[k], fmin(h[k], c[k]));
            dd += (c[k] - qd[k]) * (c[k] - qd[k]);
            pen[k] = h[k] - fabs(c[k]);
        }
        dd = sqrt(dd);
        double nb[3] = { 0, 0, 0 };
        if (dd > 0) {
            if (dd < 0.01 && dd > 0) continue;   /* direction ill-conditioned at the LSB level */
            for (int k = 0; k < 3; k++) nb[k] = -(c[k] - qd[k]) / dd;
            dep = r - dd;
        } else {
            int k = 0;
            for (int j = 1; j < 3; j++) if (pen[j] < pen[k]) k = j;
            for (int j = 0; j < 3; j++) if (j != k && pen[j] - pen[k] < 1e-4) k = -1;
            if (k < 0) continue;
            nb[k] = c[k] >= 0 ? -1 : 1;
            dep = r + pen[k];
        }
        for (int i = 0; i < 3; i++) n[i] = R[i][0] * nb[0] + R[i][1] * nb[1] + R[i][2] * nb[2];
        int cnt = collide(qp_collide_sphere_box, &ss, &sb, &xf, 0, &m);
        if (dep < -1e-4) { assert_int_equal(cnt, 0); continue; }
        if (dep < 1e-4) continue;
        assert_int_equal(cnt, 1);
        double ang = angle_deg(n, m.normal), de = fabs(d16(m.points[0].depth) - dep);
        if (ang > 0.5 || de > 0.001) fail_msg("sphere trial %d: angle %.4f, depth error %.6f", trial, ang, de);
        max_ang = fmax(max_ang, ang);
        max_dep = fmax(max_dep, de);
        compared++;
    }
    print_message("sphere-box random: %d compared, max normal error %.2e deg, max depth error %.2e m\n", compared,
                  max_ang, max_dep);
    assert_true(compared > 1000);
}

/* ---- capsule - box ------------------------------------------------------------------- */

static void test_capsule_box(void **st)
{
    (void)st;
    qp_shape cap = capsule(0.2, 0.5), b = box(1, 1, 1);
    qp_manifold m;
    /* Lying on a face (the box's +x face against the capsule's side): two
     * points, ids 0 (-y end) and 1 (+y end). */
    qp_transform xf = pose(-1.2, 0, 0, dq_identity());
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, 0, &m), 2);
    assert_int_equal(m.normal.x, -QP_Q30_ONE);
    assert_int_equal(m.points[0].id, 0);
    assert_int_equal(m.points[1].id, 1);
    expect_point(&m.points[0], -0.2, -0.5, 0, LSB);
    expect_point(&m.points[1], -0.2, 0.5, 0, LSB);
    assert_int_equal(m.points[0].depth, 0);
    assert_int_equal(m.points[1].depth, 0);
    /* Sunk 5 cm (the segment still outside the box) and 30 cm (cutting in). */
    xf = pose(-1.15, 0.1, 0.3, dq_identity());
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, 0, &m), 2);
    for (int i = 0; i < 2; i++) { expect_depth(&m.points[i], 0.05, LSB); assert_true(fabs(d16(m.points[i].point.x) + 0.175) <= LSB); }
    xf = pose(-0.9, 0.1, 0.3, dq_identity());
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, 0, &m), 2);
    expect_normal(&m, -1, 0, 0, 0);
    for (int i = 0; i < 2; i++) expect_depth(&m.points[i], 0.3, LSB);
    /* Lying on a face but hanging over its edge: one end clipped at the edge. */
    qp_shape nb = box(0.3, 1, 1);
    xf = pose(-0.5, -0.6, 0, dq_identity());
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &nb, &xf, 0, &m), 2);
    expect_point(&m.points[0], -0.2, -0.5, 0, LSB);
    expect_point(&m.points[1], -0.2, 0.4, 0, LSB);
    assert_int_equal(m.points[0].id, 0);
    assert_int_equal(m.points[1].id, 1);
    /* Tilted 20 degrees on the box's top face, built in the box's frame (the
     * capsule's axis u = (cos20, sin20, 0), its low end d into the face) and
     * brought to the capsule's frame (turned by +70 degrees about z): one
     * point, the -y end (id 0). */
    qp_shape cb = box(0.5, 0.5, 0.5);
    {
        const double a = 20 * PI / 180, d = 0.001, y0 = 0.5 + 0.2 - d + 0.5 * sin(a);
        const double ca = cos(70 * PI / 180), sa = sin(70 * PI / 180);
        xf = pose(-(-sa * y0), -(ca * y0), 0, dq_axis(0, 0, 1, 70));
        assert_int_equal(collide(qp_collide_capsule_box, &cap, &cb, &xf, 0, &m), 1);
        expect_normal(&m, sa, -ca, 0, 4e-6);
        expect_depth(&m.points[0], d, 3 * LSB);
        assert_int_equal(m.points[0].id, 0);
    }
    /* Standing on its end on the box's top face. */
    xf = pose(0.1, -(0.5 + 0.2 + 0.5), -0.2, dq_identity());
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &cb, &xf, 0, &m), 1);
    expect_normal(&m, 0, -1, 0, 0);
    expect_point(&m.points[0], 0, -0.7, 0, LSB);
    assert_int_equal(m.points[0].id, 0);
    assert_int_equal(m.points[0].depth, 0);
    /* Across an edge: the box turned 45 degrees about z, its edge along z
     * touching the middle of the capsule's side: one point, id 2. */
    const double e = sqrt(0.5);
    xf = pose(-(0.2 + e), 0, 0, dq_axis(0, 0, 1, 45));
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &cb, &xf, 0, &m), 1);
    expect_normal(&m, -1, 0, 0, 1e-6);
    expect_depth(&m.points[0], 0, 2 * LSB);
    expect_point(&m.points[0], -0.2, 0, 0, 2 * LSB);
    assert_int_equal(m.points[0].id, 2);
    /* The edge cutting past the capsule's axis: segment x edge axis. */
    xf = pose(-0.6, 0.05, 0, dq_axis(0, 0, 1, 45));
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &cb, &xf, 0, &m), 1);
    expect_normal(&m, -1, 0, 0, 1e-6);
    expect_depth(&m.points[0], 0.2 + (e - 0.6), 2 * LSB);
    expect_point(&m.points[0], (-0.2 + (e - 0.6)) / 2, 0.05, 0, 2 * LSB);
    assert_int_equal(m.points[0].id, 2);
    /* The -y end near a box corner, from the diagonal: one point, diagonal normal. */
    const double c3 = sqrt(1.0 / 3), d = 0.01;
    double corner[3] = { -(0.2 - d) * c3, -0.5 - (0.2 - d) * c3, -(0.2 - d) * c3 };
    xf = pose(corner[0] - 0.5, corner[1] - 0.5, corner[2] - 0.5, dq_identity());
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &cb, &xf, 0, &m), 1);
    expect_normal(&m, -1, -1, -1, 2e-5);
    expect_depth(&m.points[0], d, 2 * LSB);
    assert_int_equal(m.points[0].id, 0);
    /* Touching, 1 LSB apart, far. */
    xf = pose(-1.2, 0, 0, dq_identity());
    xf.p.x -= 1;
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, 0, &m), 0);
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, 1, &m), 2);
    assert_int_equal(m.points[0].depth, -1);
    xf = pose(5, 1, 0, dq_axis(1, 1, 1, 40));
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, QP_MM(10), &m), 0);
    xf.p = qp_v3(QP_FIX_MIN, 0, QP_FIX_MAX);
    assert_int_equal(collide(qp_collide_capsule_box, &cap, &b, &xf, QP_MM(10), &m), 0);
}

/* Double reference for capsule-box: returns false when the pose is ambiguous.
 * Everything in the box frame: segment c + s u, s in [-hh, hh]. */
static double seg_box_d2(const double c[3], const double u[3], double s, const double h[3], double q[3])
{
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        double p = c[k] + s * u[k];
        q[k] = fmax(-h[k], fmin(h[k], p));
        d2 += (p - q[k]) * (p - q[k]);
    }
    return d2;
}

/* A box of half extents up to box_max and a capsule (radius 0.05-0.8, half height
 * 0.05-1.5), drawn in that order; h, r, hh as the shapes hold them. */
static void random_box_and_capsule(double box_max, qp_shape *sb, qp_shape *sc, double h[3], double *r, double *hh)
{
    urand3(h, 0.05, box_max);
    *r = urand(0.05, 0.8);
    *hh = urand(0.05, 1.5);
    *sb = box(h[0], h[1], h[2]);
    *sc = capsule(*r, *hh);
    h[0] = d16(sb->half.x); h[1] = d16(sb->half.y); h[2] = d16(sb->half.z);
    *r = d16(sc->radius); *hh = d16(sc->half_height);
}

/* The capsule at xf (the box in its frame, as qp_collide_capsule_box takes it): R, and
 * its segment's centre c and direction u in the box's frame. */
static void segment_in_box(const qp_transform *xf, double R[3][3], double c[3], double u[3])
{
    double t[3] = { d16(xf->p.x), d16(xf->p.y), d16(xf->p.z) };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[i][j] = d30(xf->r.m[i][j]);
    for (int k = 0; k < 3; k++) {
        c[k] = -(R[0][k] * t[0] + R[1][k] * t[1] + R[2][k] * t[2]);
        u[k] = R[1][k];
    }
}

/* The segment's distance from the box (0 where it enters it): golden-section search
 * on the convex distance; *s its closest parameter, q the box's closest point. */
static double segment_box_distance(const double c[3], const double u[3], double hh, const double h[3], double *s,
                                   double q[3])
{
    double lo = -hh, hi = hh, g = (sqrt(5) - 1) / 2;
    for (int it = 0; it < 200; it++) {
        double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
        if (seg_box_d2(c, u, m1, h, q) <= seg_box_d2(c, u, m2, h, q)) hi = m2; else lo = m1;
    }
    *s = (lo + hi) / 2;
    return sqrt(seg_box_d2(c, u, *s, h, q));
}

static void test_capsule_box_random(void **st)
{
    (void)st;
    rng_state = 777;
    int compared = 0, faces = 0, points = 0, crosses = 0;
    double max_ang = 0, max_dep = 0;
    for (int trial = 0; trial < 20000; trial++) {
        double h[3], r, hh;
        qp_shape sb, sc;
        random_box_and_capsule(2, &sb, &sc, h, &r, &hh);
        double reach = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) + r + hh;
        double dir[3];
        urand3(dir, -1, 1);
        double dl = sqrt(dot3(dir, dir)) + 1e-9;
        double dist0 = urand(0, 1) * reach / dl;
        qp_transform xf = pose_q(dir[0] * dist0, dir[1] * dist0, dir[2] * dist0, rand_quat());
        double R[3][3], c[3], u[3];
        segment_in_box(&xf, R, c, u);
        /* SAT over the box faces and u x e_k. */
        double fsep = -1e9, xsep = -1e9, fn[3] = { 0, 0, 0 }, xn[3] = { 0, 0, 0 }, f2 = -1e9;
        int fk = 0;
        for (int k = 0; k < 3; k++) {
            double sep = fabs(c[k]) - h[k] - fabs(u[k]) * hh;
            if (sep > fsep) { f2 = fsep; fsep = sep; fk = k; } else if (sep > f2) f2 = sep;
        }
        fn[fk] = c[fk] >= 0 ? -1 : 1;
        double x2 = -1e9;
        for (int k = 0; k < 3; k++) {
            double a[3] = { 0, 0, 0 };
            a[(k + 1) % 3] = u[(k + 2) % 3];
            a[(k + 2) % 3] = -u[(k + 1) % 3];
            double l = sqrt(dot3(a, a));
            if (l < 0.01) continue;
            for (int i = 0; i < 3; i++) a[i] /= l;
            double pr = dot3(c, a), sep = fabs(pr) - h[0] * fabs(a[0]) - h[1] * fabs(a[1]) - h[2] * fabs(a[2]);
            if (sep > xsep) {
                x2 = xsep;
                xsep = sep;
                for (int i = 0; i < 3; i++) xn[i] = pr >= 0 ? -a[i] : a[i];
            } else if (sep > x2) x2 = sep;
        }
        double nb[3], dep;
        int kind;
        if (fsep > 0 || xsep > 0) {
            /* Disjoint: golden-section search on the convex distance. */
            double s, q[3], dist = segment_box_distance(c, u, hh, h, &s, q);
            dep = r - dist;
            if (dep < -1e-4) {
                qp_manifold mm;
                assert_int_equal(collide(qp_collide_capsule_box, &sc, &sb, &xf, 0, &mm), 0);
                continue;
            }
            if (dep < 1e-3) continue;
            double tol = TOL_ABS + dist * TOL_FACE_REL;
            if (fsep >= dist - 1e-7) { kind = 0; memcpy(nb, fn, sizeof nb); }
            else if (fsep < dist - 2 * tol && dist > 0.01) {
                kind = 1;
                for (int k = 0; k < 3; k++) nb[k] = (q[k] - (c[k] + s * u[k])) / dist;
            } else continue;
        } else {
            double tol = TOL_ABS + fabs(fsep) * TOL_EDGE_REL;
            if (fabs(xsep - fsep) < 2 * tol || fsep - f2 < 1e-4 || (xsep > fsep && xsep - x2 < 1e-4)) continue;
            if (xsep > fsep) { kind = 2; memcpy(nb, xn, sizeof nb); dep = r - xsep; }
            else {
                kind = 0;
                memcpy(nb, fn, sizeof nb);
                /* Face: clip the segment to the face rectangle, deepest end. */
                double slo = -hh, shi = hh;
                for (int q2 = 1; q2 < 3; q2++) {
                    int kk = (fk + q2) % 3;
                    if (fabs(u[kk]) < 1e-12) continue;
                    double s1 = (-h[kk] - c[kk]) / u[kk], s2 = (h[kk] - c[kk]) / u[kk];
                    slo = fmax(slo, fmin(s1, s2));
                    shi = fmin(shi, fmax(s1, s2));
                }
                if (slo > shi) continue;
                double sg = c[fk] >= 0 ? 1 : -1;
                double g1 = sg * (c[fk] + slo * u[fk]) - h[fk], g2 = sg * (c[fk] + shi * u[fk]) - h[fk];
                dep = r - fmin(g1, g2);
            }
        }
        double n[3];
        for (int i = 0; i < 3; i++) n[i] = R[i][0] * nb[0] + R[i][1] * nb[1] + R[i][2] * nb[2];
        qp_manifold m;
        int cnt = collide(qp_collide_capsule_box, &sc, &sb, &xf, 0, &m);
        if (cnt == 0) fail_msg("capsule trial %d: no contact, reference depth %.6f (kind %d)", trial, dep, kind);
        double dmax = -1e9;
        for (int i = 0; i < cnt; i++) dmax = fmax(dmax, d16(m.points[i].depth));
        double ang = angle_deg(n, m.normal);
        if (ang > 0.5 || fabs(dmax - dep) > 0.001)
            fail_msg("capsule trial %d kind %d: angle %.4f, depth %.6f vs %.6f", trial, kind, ang, dmax, dep);
        if (kind == 1 || kind == 2) assert_int_equal(cnt, 1);
        faces += kind == 0;
        points += kind == 1;
        crosses += kind == 2;
        max_ang = fmax(max_ang, ang);
        max_dep = fmax(max_dep, fabs(dmax - dep));
        compared++;
    }
    print_message("capsule-box random: %d compared (%d face, %d closest-point, %d segment x edge), "
                  "max normal error %.2e deg, max depth error %.2e m\n", compared, faces, points, crosses, max_ang,
                  max_dep);
    assert_true(compared > 1500 && faces > 200 && points > 200 && crosses > 50);
}

/* A capsule overlapping a box is always a contact, whatever the pose (no skipped
 * bands): the segment can lie beside the face its separating axis names, off the
 * face's edge, where clipping it to the face leaves nothing; the closest points
 * decide there. Before they did, such a pose could give no contact at all (a fast
 * box was found 5-10 cm into a capsule with none, tests/unit/test_swept.c). */
static void test_capsule_box_overlap_always_touches(void **st)
{
    (void)st;
    rng_state = 4711;
    int overlapping = 0;
    double worst = 0;
    for (int trial = 0; trial < 20000; trial++) {
        double h[3], r, hh;
        qp_shape sb, sc;
        random_box_and_capsule(1, &sb, &sc, h, &r, &hh);
        /* The capsule's centre near a random point of the box's surface region. */
        double dir[3];
        urand3(dir, -1.3, 1.3);
        qp_transform xf = pose_q(dir[0] * h[0] + urand(-r, r), dir[1] * h[1], dir[2] * h[2], rand_quat());
        double R[3][3], c[3], u[3], s, q[3];
        segment_in_box(&xf, R, c, u);
        double dist = segment_box_distance(c, u, hh, h, &s, q);
        if (dist <= 1e-3 || r - dist < 1e-3) continue;   /* the segment inside, or no clear overlap */
        qp_manifold m;
        int cnt = collide(qp_collide_capsule_box, &sc, &sb, &xf, 0, &m);
        if (cnt == 0) fail_msg("capsule trial %d: overlaps the box by %.4f m, no contact", trial, r - dist);
        double dmax = -1e9;
        for (int i = 0; i < cnt; i++) dmax = fmax(dmax, d16(m.points[i].depth));
        /* A face's points are kept only within the face tolerance of the truth. */
        double off = fabs((r - dist) - dmax), tol = TOL_ABS + dist * TOL_FACE_REL + 4 * LSB;
        if (off > tol) fail_msg("capsule trial %d: deepest point %.6f, true depth %.6f", trial, dmax, r - dist);
        worst = fmax(worst, off);
        overlapping++;
    }
    print_message("capsule-box overlaps: %d, each a contact; deepest point within %.2e m of the true depth\n",
                  overlapping, worst);
    assert_true(overlapping > 3000);
}

/* ---- determinism: one hash over many manifolds ------------------------------------ */

static uint32_t fnv1a(uint32_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Integer-only poses (no double on the way in, so every build sees the same
 * inputs), all four pair functions, margins up to 1 cm; the hash of every
 * manifold byte must match the golden value on every compiler and -O level. */
static void test_golden_hash(void **st)
{
    (void)st;
    rng_state = 31337;
    uint32_t h = 2166136261u;
    int contacts = 0;
    for (int trial = 0; trial < 4000; trial++) {
        fix16_t e[6], pos[3], margin = (fix16_t)(rng() % 656);
        for (int k = 0; k < 6; k++) e[k] = (fix16_t)(QP_SHAPE_MIN_SIZE + rng() % (2 * QP_ONE));
        for (int k = 0; k < 3; k++) pos[k] = (fix16_t)(rng() % (6 * QP_ONE)) - 3 * QP_ONE;
        qp_transform xf;
        xf.p = qp_v3(pos[0], pos[1], pos[2]);
        xf.r = qp_quat_to_rot3(rand_quat());
        qp_shape a, b, s, c, g;
        assert_int_equal(qp_make_box(qp_v3(e[0], e[1], e[2]), &a), QP_OK);
        assert_int_equal(qp_make_box(qp_v3(e[3], e[4], e[5]), &b), QP_OK);
        assert_int_equal(qp_make_sphere(e[3], &s), QP_OK);
        assert_int_equal(qp_make_capsule(e[4], e[5], &c), QP_OK);
        fix16_t nx = (fix16_t)(rng() % 131072) - 65536, ny = (fix16_t)(rng() % 65536) + 1;
        fix16_t nz = (fix16_t)(rng() % 131072) - 65536;
        assert_int_equal(qp_make_plane(qp_v3(nx, ny, nz), e[0], &g), QP_OK);
        qp_manifold m;
        contacts += collide(qp_collide_box_box, &a, &b, &xf, margin, &m) > 0;
        h = fnv1a(h, &m, sizeof m);
        contacts += collide(qp_collide_sphere_box, &s, &b, &xf, margin, &m) > 0;
        h = fnv1a(h, &m, sizeof m);
        contacts += collide(qp_collide_capsule_box, &c, &b, &xf, margin, &m) > 0;
        h = fnv1a(h, &m, sizeof m);
        contacts += collide(qp_collide_plane_box, &g, &b, &xf, margin, &m) > 0;
        h = fnv1a(h, &m, sizeof m);
    }
    print_message("golden hash 0x%08x over %d contacts\n", h, contacts);
    assert_true(contacts > 6000);
    assert_int_equal(h, GOLDEN_HASH);
}

int main(void)
{
    rng_state = 20240611u;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bb_stack20),
        cmocka_unit_test(test_bb_rest_flat),
        cmocka_unit_test(test_bb_rotated_45),
        cmocka_unit_test(test_bb_edge_edge),
        cmocka_unit_test(test_bb_on_edge_and_corner),
        cmocka_unit_test(test_bb_deep_touch_gap),
        cmocka_unit_test(test_bb_no_flicker),
        cmocka_unit_test(test_bb_reference_b),
        cmocka_unit_test(test_bb_large_and_small),
        cmocka_unit_test(test_bb_random),
        cmocka_unit_test(test_plane_box),
        cmocka_unit_test(test_sphere_box),
        cmocka_unit_test(test_capsule_box),
        cmocka_unit_test(test_capsule_box_random),
        cmocka_unit_test(test_capsule_box_overlap_always_touches),
        cmocka_unit_test(test_golden_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
