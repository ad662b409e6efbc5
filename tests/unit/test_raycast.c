/* SPDX-License-Identifier: MIT */
/* Ray casts: for each shape a hit, a miss, grazing rays (1 mm inside / outside
 * the silhouette), an origin inside, rays too short or pointing away; then
 * seeded random rays against a double-precision reference in the shape frame:
 * hit or miss agree (except within 0.1 mm of a tangent, where either is
 * right), fraction, point and normal within stated bounds. World ray casts (src/query.c,
 * pruned by the broad phase) against a brute-force cast of every shape through the public
 * API, on rain512 at steps 0, 1, 30, 90 and 250, filtered (random masks, a body ignored)
 * and not, after a call that moved a body and after a restore: the same hit, bit for bit. */
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
#include "qphys/scene.h"
#include "qphys/world.h"


typedef struct { double x, y, z; } dv3;

static dv3 v3(double x, double y, double z) { dv3 r = { x, y, z }; return r; }
static dv3 dv(qp_vec3 v) { return v3(v.x / Q16, v.y / Q16, v.z / Q16); }
static dv3 dvn(qp_vec3 v) { return v3(v.x / Q30, v.y / Q30, v.z / Q30); }
static dv3 add(dv3 a, dv3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static dv3 sub(dv3 a, dv3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static dv3 scl(dv3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static double dot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len(dv3 a) { return sqrt(dot(a, a)); }
static qp_vec3 fv(double x, double y, double z) { return qp_v3(f16(x), f16(y), f16(z)); }
static double angle_deg(dv3 a, dv3 b)
{
    double c = dot(a, b) / (len(a) * len(b));
    return acos(c > 1 ? 1 : (c < -1 ? -1 : c)) * 180 / M_PI;
}



static qp_transform xf_at(double x, double y, double z)
{
    qp_transform t = { fv(x, y, z), qp_rot3_identity() };
    return t;
}

static void expect_hit(const qp_shape *s, const qp_transform *xf, dv3 o, dv3 d, double frac, dv3 p, dv3 n)
{
    qp_ray_hit h;
    assert_true(qp_raycast_shape(s, xf, fv(o.x, o.y, o.z), fv(d.x, d.y, d.z), &h));
    assert_true(abs(h.fraction - f16(frac)) <= 1);
    assert_true(len(sub(dv(h.point), p)) <= 3 / Q16);
    assert_true(angle_deg(dvn(h.normal), n) < 1e-3);
}

static bool cast(const qp_shape *s, const qp_transform *xf, dv3 o, dv3 d)
{
    qp_ray_hit h;
    memset(&h, 0x77, sizeof h);
    qp_ray_hit before = h;
    bool r = qp_raycast_shape(s, xf, fv(o.x, o.y, o.z), fv(d.x, d.y, d.z), &h);
    if (!r) assert_memory_equal(&h, &before, sizeof h);   /* a miss writes nothing */
    return r;
}

/* ---- canonical cases ------------------------------------------------------------- */

static void test_sphere_cases(void **st)
{
    (void)st;
    qp_shape s;
    assert_int_equal(qp_make_sphere(QP_ONE, &s), QP_OK);
    qp_transform xf = xf_at(5, 0, 0);
    expect_hit(&s, &xf, v3(0, 0, 0), v3(10, 0, 0), 0.4, v3(4, 0, 0), v3(-1, 0, 0));
    expect_hit(&s, &xf, v3(5, 8, 0), v3(0, -10, 0), 0.7, v3(5, 1, 0), v3(0, 1, 0));
    assert_false(cast(&s, &xf, v3(0, 1.5, 0), v3(10, 0, 0)));          /* miss */
    assert_true(cast(&s, &xf, v3(0, 0.999, 0), v3(10, 0, 0)));         /* grazing, 1 mm inside */
    assert_false(cast(&s, &xf, v3(0, 1.001, 0), v3(10, 0, 0)));        /* grazing, 1 mm outside */
    assert_false(cast(&s, &xf, v3(5.5, 0, 0), v3(10, 0, 0)));          /* origin inside */
    assert_false(cast(&s, &xf, v3(0, 0, 0), v3(3.9, 0, 0)));           /* too short */
    assert_false(cast(&s, &xf, v3(0, 0, 0), v3(-10, 0, 0)));           /* pointing away */
    expect_hit(&s, &xf, v3(4, 0, 0), v3(1, 0, 0), 0, v3(4, 0, 0), v3(-1, 0, 0)); /* on the surface, inwards */
    assert_false(cast(&s, &xf, v3(4, 0, 0), v3(-1, 0, 0)));            /* on the surface, outwards */
    /* far from the origin of the world */
    xf = xf_at(9000, -9000, 9000);
    expect_hit(&s, &xf, v3(9000, -9000, 8990), v3(0, 0, 20), 0.45, v3(9000, -9000, 8999), v3(0, 0, -1));
}

static void test_plane_cases(void **st)
{
    (void)st;
    qp_shape s;
    assert_int_equal(qp_make_plane(fv(0, 1, 0), 0, &s), QP_OK);
    qp_transform xf = xf_at(0, 0, 0);
    expect_hit(&s, &xf, v3(1, 2, 3), v3(0, -4, 0), 0.5, v3(1, 0, 3), v3(0, 1, 0));
    expect_hit(&s, &xf, v3(0, 1, 0), v3(4, -2, 0), 0.5, v3(2, 0, 0), v3(0, 1, 0));
    assert_false(cast(&s, &xf, v3(0, 1, 0), v3(5, 0, 0)));             /* parallel */
    assert_false(cast(&s, &xf, v3(0, 1, 0), v3(0, 1, 0)));             /* away */
    assert_false(cast(&s, &xf, v3(0, 1, 0), v3(0, -0.99, 0)));         /* too short */
    assert_false(cast(&s, &xf, v3(0, -1, 0), v3(0, 2, 0)));            /* origin in the solid */
    /* offset plane on a moved frame: n.p <= 2 in the frame at y = 1 */
    assert_int_equal(qp_make_plane(fv(0, 1, 0), QP_INT(2), &s), QP_OK);
    xf = xf_at(0, 1, 0);
    expect_hit(&s, &xf, v3(0, 5, 0), v3(0, -4, 0), 0.5, v3(0, 3, 0), v3(0, 1, 0));
}

static void test_box_cases(void **st)
{
    (void)st;
    qp_shape s;
    assert_int_equal(qp_make_box(fv(1, 0.5, 2), &s), QP_OK);
    qp_transform xf = xf_at(10, 0, 0);
    expect_hit(&s, &xf, v3(0, 0.2, 0.3), v3(20, 0, 0), 0.45, v3(9, 0.2, 0.3), v3(-1, 0, 0));
    expect_hit(&s, &xf, v3(10.5, 3, -1), v3(0, -5, 0), 0.5, v3(10.5, 0.5, -1), v3(0, 1, 0));
    expect_hit(&s, &xf, v3(10, 0, -10), v3(0, 0, 10), 0.8, v3(10, 0, -2), v3(0, 0, -1));
    /* sliding along the top face plane: hits the edge; 1 LSB above: misses */
    expect_hit(&s, &xf, v3(0, 0.5, 0), v3(20, 0, 0), 0.45, v3(9, 0.5, 0), v3(-1, 0, 0));
    qp_ray_hit h;
    assert_false(qp_raycast_shape(&s, &xf, qp_v3(0, f16(0.5) + 1, 0), fv(20, 0, 0), &h));
    assert_true(cast(&s, &xf, v3(0, 0.499, 0), v3(20, 0.0001, 0)));     /* grazing, inside */
    assert_false(cast(&s, &xf, v3(0, 0.501, 0), v3(20, 0, 0)));         /* grazing, outside */
    assert_false(cast(&s, &xf, v3(10.2, 0.1, 0), v3(20, 0, 0)));        /* origin inside */
    assert_false(cast(&s, &xf, v3(0, 0, 0), v3(8.9, 0, 0)));            /* too short */
    assert_false(cast(&s, &xf, v3(0, 0, 0), v3(-8.9, 0, 0)));           /* away */
    assert_false(cast(&s, &xf, v3(0, 3, 0), v3(20, 0, 0)));             /* miss */
    expect_hit(&s, &xf, v3(9, 0, 0), v3(1, 0, 0), 0, v3(9, 0, 0), v3(-1, 0, 0)); /* on a face, inwards */
    assert_false(cast(&s, &xf, v3(9, 0, 0), v3(-1, 0, 0)));             /* on a face, outwards */
    /* rotated 90 degrees about z: the long y... the box's x half (1) now lies along y */
    qp_quat q;
    assert_true(qp_quat_from_axis_angle(fv(0, 0, 1), f16(M_PI / 2), &q));
    xf.r = qp_quat_to_rot3(q);
    expect_hit(&s, &xf, v3(0, 0, 0), v3(20, 0, 0), 0.475, v3(9.5, 0, 0), v3(-1, 0, 0));
}

static void test_capsule_cases(void **st)
{
    (void)st;
    qp_shape s;
    assert_int_equal(qp_make_capsule(QP_FRAC(1, 2), QP_ONE, &s), QP_OK);
    qp_transform xf = xf_at(0, 0, 5);
    expect_hit(&s, &xf, v3(0, 0.3, 0), v3(0, 0, 10), 0.45, v3(0, 0.3, 4.5), v3(0, 0, -1));   /* side */
    expect_hit(&s, &xf, v3(0, 5, 5), v3(0, -10, 0), 0.35, v3(0, 1.5, 5), v3(0, 1, 0));        /* top cap */
    expect_hit(&s, &xf, v3(0, -5, 5), v3(0, 10, 0), 0.35, v3(0, -1.5, 5), v3(0, -1, 0));      /* bottom cap */
    assert_true(cast(&s, &xf, v3(0.499, 0, 0), v3(0, 0, 10)));          /* grazing the side, inside */
    assert_false(cast(&s, &xf, v3(0.501, 0, 0), v3(0, 0, 10)));         /* and outside */
    assert_false(cast(&s, &xf, v3(0, 0.5, 5), v3(0, 10, 0)));           /* origin inside (on the axis) */
    assert_false(cast(&s, &xf, v3(0.2, 1.2, 5), v3(0, 0, 1)));          /* origin inside a cap */
    assert_false(cast(&s, &xf, v3(0, 0, 0), v3(0, 0, 4.4)));            /* too short */
    assert_false(cast(&s, &xf, v3(0, 0, 0), v3(0, 0, -10)));            /* away */
    /* ray along the axis direction beside the capsule: misses */
    assert_false(cast(&s, &xf, v3(0.6, -5, 5), v3(0, 10, 0)));
    /* oblique into the cap region: nearest of side and caps */
    double k = sqrt(0.5);
    expect_hit(&s, &xf, v3(0, 1 + 3 * k, 5 + 3 * k), v3(0, -5 * k, -5 * k), 2.5 / 5, v3(0, 1 + 0.5 * k, 5 + 0.5 * k),
               v3(0, k, k));
}

/* ---- random rays against a double reference --------------------------------------- */

typedef struct { bool hit, inside; double t; dv3 n; } rhit;

/* Ray o + t d (t in [0,1]) against the sphere |x - c| = r. */
static rhit ref_sphere(dv3 o, dv3 d, dv3 c, double r)
{
    rhit h = { false, false, 0, { 0, 0, 0 } };
    dv3 m = sub(o, c);
    double a = dot(d, d), b = dot(m, d), cc = dot(m, m) - r * r;
    if (cc < 0) { h.inside = true; return h; }
    double disc = b * b - a * cc;
    if (disc < 0) return h;
    double t = (-b - sqrt(disc)) / a;
    if (t < 0 || t > 1) return h;
    h.hit = true;
    h.t = t;
    h.n = scl(sub(add(o, scl(d, t)), c), 1 / r);
    return h;
}

static rhit ref_capsule(dv3 o, dv3 d, double r, double hh)
{
    rhit best = { false, false, 2, { 0, 0, 0 } };
    double y = o.y < -hh ? -hh : (o.y > hh ? hh : o.y);
    if (len(sub(o, v3(0, y, 0))) < r) { best.inside = true; best.t = 0; return best; }
    /* side: |(o + t d)_xz| = r, |y| <= hh */
    double a = d.x * d.x + d.z * d.z, b = o.x * d.x + o.z * d.z, c = o.x * o.x + o.z * o.z - r * r;
    if (a > 0) {
        double disc = b * b - a * c;
        if (disc >= 0) {
            double t = (-b - sqrt(disc)) / a;
            double yy = o.y + t * d.y;
            if (t >= 0 && t <= 1 && yy >= -hh && yy <= hh && c >= 0) {
                best.hit = true;
                best.t = t;
                dv3 p = add(o, scl(d, t));
                best.n = scl(v3(p.x, 0, p.z), 1 / r);
            }
        }
    }
    for (int e = 0; e < 2; e++) {
        rhit s = ref_sphere(o, d, v3(0, e ? hh : -hh, 0), r);
        if (s.hit && s.t < best.t) best = s;
    }
    if (!best.hit) best.t = 0;
    return best;
}

static rhit ref_box(dv3 o, dv3 d, dv3 hv)
{
    rhit h = { false, false, 0, { 0, 0, 0 } };
    double ov[3] = { o.x, o.y, o.z }, dd[3] = { d.x, d.y, d.z }, hb[3] = { hv.x, hv.y, hv.z };
    if (fabs(o.x) < hv.x && fabs(o.y) < hv.y && fabs(o.z) < hv.z) { h.inside = true; return h; }
    double tmin = 0, tmax = 1;
    int k = -1;
    for (int i = 0; i < 3; i++) {
        if (dd[i] == 0) {
            if (fabs(ov[i]) > hb[i]) return h;
            continue;
        }
        double t1 = (-hb[i] - ov[i]) / dd[i], t2 = (hb[i] - ov[i]) / dd[i];
        if (t1 > t2) { double x = t1; t1 = t2; t2 = x; }
        if (t1 >= tmin) { tmin = t1; k = i; }
        if (t2 < tmax) tmax = t2;
        if (tmin > tmax) return h;
    }
    if (k < 0) return h;
    h.hit = true;
    h.t = tmin;
    double n[3] = { 0, 0, 0 };
    n[k] = dd[k] > 0 ? -1 : 1;
    h.n = v3(n[0], n[1], n[2]);
    return h;
}

static rhit ref_plane(dv3 o, dv3 d, dv3 n, double off)
{
    rhit h = { false, false, 0, { 0, 0, 0 } };
    double d0 = dot(n, o) - off, den = dot(n, d);
    if (d0 < 0) { h.inside = true; return h; }
    if (den >= 0) return h;
    double t = -d0 / den;
    if (t > 1) return h;
    h.hit = true;
    h.t = t;
    h.n = n;
    return h;
}

/* The shape grown by e (e < 0 shrinks), in its own frame. */
static rhit ref_cast(const qp_shape *s, dv3 o, dv3 d, double e)
{
    switch (s->type) {
    case QP_SHAPE_PLANE: {
        dv3 n = dvn(s->normal);
        return ref_plane(o, d, scl(n, 1 / len(n)), d16(s->plane_offset) + e);
    }
    case QP_SHAPE_SPHERE: return ref_sphere(o, d, v3(0, 0, 0), d16(s->radius) + e);
    case QP_SHAPE_CAPSULE: return ref_capsule(o, d, d16(s->radius) + e, d16(s->half_height));
    default: return ref_box(o, d, v3(d16(s->half.x) + e, d16(s->half.y) + e, d16(s->half.z) + e));
    }
}

static dv3 rot_t(const qp_rot3 *r, dv3 v)   /* R^T v */
{
    return v3((r->m[0][0] * v.x + r->m[1][0] * v.y + r->m[2][0] * v.z) / Q30,
              (r->m[0][1] * v.x + r->m[1][1] * v.y + r->m[2][1] * v.z) / Q30,
              (r->m[0][2] * v.x + r->m[1][2] * v.y + r->m[2][2] * v.z) / Q30);
}
static dv3 rot(const qp_rot3 *r, dv3 v)
{
    return v3((r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z) / Q30,
              (r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z) / Q30,
              (r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z) / Q30);
}

static void test_random_rays(void **st)
{
    (void)st;
    static const char *names[4] = { "plane", "sphere", "capsule", "box" };
    const double eps = 1e-4;   /* ambiguity band around the surface: 0.1 mm */
    for (int type = 0; type < 4; type++) {
        int hits = 0, misses = 0, ambiguous = 0, inside = 0;
        double worst_frac = 0, worst_point = 0, worst_n = 0;
        for (int i = 0; i < 20000; i++) {
            qp_shape s;
            double k = i % 10 == 9 ? 20 : 1;   /* one in ten at a large scale */
            double v[3];   /* one draw per statement, in argument order (see qp_test_util.h) */
            switch (type) {
            case 0:
                urand3(v, -1, 1);
                assert_int_equal(qp_make_plane(fv(v[0], v[1], v[2]), f16(urand(-3, 3)), &s), QP_OK);
                break;
            case 1: assert_int_equal(qp_make_sphere(f16(urand(0.05, 3) * k), &s), QP_OK); break;
            case 2:
                v[0] = urand(0.05, 2);
                v[1] = urand(0.05, 3);
                assert_int_equal(qp_make_capsule(f16(v[0] * k), f16(v[1] * k), &s), QP_OK);
                break;
            default:
                urand3(v, 0.05, 3);
                assert_int_equal(qp_make_box(fv(v[0] * k, v[1] * k, v[2] * k), &s), QP_OK);
            }
            qp_transform xf;
            double far = (i % 7 == 3) ? 9000 : 0;   /* sometimes far from the world origin */
            urand3(v, -5, 5);
            xf.p = fv(v[0] + far, v[1] - far, v[2] + far);
            xf.r = qp_quat_to_rot3(rand_quat());
            urand3(v, -8, 8);
            qp_vec3 o = qp_v3_add(xf.p, fv(v[0] * k, v[1] * k, v[2] * k));
            /* aim near the shape's centre most of the time */
            urand3(v, -3, 3);
            dv3 aim = v3(v[0] * k, v[1] * k, v[2] * k);
            dv3 to = sub(add(dv(xf.p), aim), dv(o));
            double scale = urand(0.3, 2.0);
            qp_vec3 d = fv(to.x * scale, to.y * scale, to.z * scale);
            if (qp_v3_eq(d, qp_v3_zero())) continue;
            /* reference in the shape frame, from the exact inputs */
            dv3 ol = rot_t(&xf.r, sub(dv(o), dv(xf.p))), dl = rot_t(&xf.r, dv(d));
            rhit r0 = ref_cast(&s, ol, dl, 0), rp = ref_cast(&s, ol, dl, eps), rm = ref_cast(&s, ol, dl, -eps);
            qp_ray_hit h;
            bool got = qp_raycast_shape(&s, &xf, o, d, &h);
            if (rp.hit != rm.hit || rp.inside != rm.inside) { ambiguous++; continue; }
            if (r0.inside) inside++;
            assert_int_equal(got, r0.hit);
            if (!got) { misses++; continue; }
            hits++;
            double L = len(dv(d));
            /* distance along the ray (m) and the fraction (LSB) */
            double fe = fabs(h.fraction - r0.t * Q16);
            dv3 pref = add(dv(o), rot(&xf.r, scl(dl, r0.t)));
            double pe = len(sub(dv(h.point), pref));
            double ne = angle_deg(dvn(h.normal), rot(&xf.r, r0.n));
            /* the ray enters at an angle: cos of incidence bounds the conditioning */
            double cosi = fabs(dot(scl(dl, 1 / len(dl)), r0.n));
            if (cosi > 0.05) {
                if (fe > worst_frac) worst_frac = fe;
                if (pe * Q16 > worst_point) worst_point = pe * Q16;
                assert_true(fe <= 1.0 + 8 / (L * Q16 * cosi) * Q16);    /* 1 LSB + 8 LSB of depth / cos */
                assert_true(pe <= 10 / Q16 / cosi);
            }
            /* box faces give exact normals; round shapes a few 1e-5 degrees */
            if (ne > worst_n) worst_n = ne;
            assert_true(ne < (type == 3 ? 1e-6 : 0.05));
            assert_true(dot(dvn(h.normal), dv(d)) <= 0);   /* facing the ray */
            assert_true(h.fraction >= 0 && h.fraction <= QP_ONE);
        }
        print_message("%-8s %5d hits, %5d misses (%d origins inside), %d within 0.1 mm of a tangent skipped;"
                      " fraction %.2f LSB, point %.2f LSB (incidence cos > 0.05), normal %.2e deg\n",
                      names[type], hits, misses, inside, ambiguous, worst_frac, worst_point, worst_n);
        assert_true(hits > 2000 && misses > 2000);
    }
}

/* World-limit rays (run under UBSan): shapes and origins anywhere within
 * +-10 km, rays up to 18 km long, largest and smallest shapes. */
static void test_extremes(void **st)
{
    (void)st;
    int hits = 0;
    for (int i = 0; i < 20000; i++) {
        qp_shape s;
        double big = (rng() & 1) ? 100 : 0.01;
        switch (rng() % 4) {
        case 0: {
            double v[3];
            urand3(v, -1, 1);
            assert_int_equal(qp_make_plane(fv(v[0], v[1], v[2]), f16(urand(-1e4, 1e4)), &s), QP_OK);
            break;
        }
        case 1: assert_int_equal(qp_make_sphere(f16(big), &s), QP_OK); break;
        case 2: assert_int_equal(qp_make_capsule(f16(big), f16(100), &s), QP_OK); break;
        default: assert_int_equal(qp_make_box(fv(big, 100, 0.01), &s), QP_OK);
        }
        qp_transform xf;   /* one draw per statement, in argument order (see qp_test_util.h) */
        xf.p = rand_v3(-1e4, 1e4);
        xf.r = qp_quat_to_rot3(rand_quat());
        qp_vec3 o = rand_v3(-1e4, 1e4);
        dv3 to = sub(dv(xf.p), dv(o));
        double k = urand(0.2, 1.8);
        if (len(to) * k > 18000) k = 18000 / len(to);
        double e[3];
        urand3(e, -50, 50);
        qp_vec3 d = fv(to.x * k + e[0], to.y * k + e[1], to.z * k + e[2]);
        qp_ray_hit h;
        if (qp_raycast_shape(&s, &xf, o, d, &h)) {
            hits++;
            assert_true(h.fraction >= 0 && h.fraction <= QP_ONE);
            assert_true(fabs(len(dvn(h.normal)) - 1) < 1e-6);
        }
    }
    print_message("extremes: %d hits, all well formed\n", hits);
}

/* ---- world ray casts: pruned by the broad phase, equal to the brute-force cast ---------- */

static qp_world rain;
static unsigned char rain_snap[QP_SNAPSHOT_MAX_SIZE];

/* Every shape of every body, in body and slot order (pool order in a scene loaded from a
 * file), each cast exactly; a later hit wins only when strictly nearer. Public API only. */
static bool brute_cast(const qp_world *w, qp_vec3 o, qp_vec3 d, const qp_ray_filter *f, qp_world_ray_hit *out)
{
    bool found = false;
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (qp_body_id_is_null(id)) continue;
        if (f && f->ignore.index == id.index && f->ignore.generation == id.generation) continue;
        qp_rot3 r = qp_quat_to_rot3(qp_body_rotation(w, id));
        qp_vec3 c = qp_body_center(w, id);
        for (int k = 0; k < qp_body_shape_count(w, id); k++) {
            if (qp_body_shape_is_sensor(w, id, k)) continue;
            if (f && !(qp_body_shape_filter(w, id, k).category & f->mask)) continue;
            const qp_shape *s = qp_body_shape(w, id, k);
            qp_transform xf;
            xf.p = qp_v3_add(c, qp_rot3_mul_v3(&r, s->offset));
            qp_quat q = s->rotation;
            if (q.w == QP_Q30_ONE && q.x == 0 && q.y == 0 && q.z == 0) {
                xf.r = r;
            } else {
                qp_rot3 local = qp_quat_to_rot3(q);
                xf.r = qp_rot3_mul(&r, &local);
            }
            qp_ray_hit h;
            if (!qp_raycast_shape(s, &xf, o, d, &h)) continue;
            if (found && h.fraction >= out->hit.fraction) continue;
            out->body = id;
            out->hit = h;
            found = true;
        }
    }
    return found;
}

/* A random ray about the pile: across it, down into it, at a body, long or short. */
static void random_ray(const qp_world *w, qp_vec3 *o, qp_vec3 *d)
{
    double v[3];
    urand3(v, -10, 10);
    *o = fv(v[0], urand(-0.5, 16), v[2]);
    int kind = (int)(rng() % 4);
    if (kind == 0) {   /* at a random body's centre, overshooting */
        qp_body_id id = qp_world_body_at(w, 2 + (int)(rng() % 512));
        dv3 to = sub(dv(qp_body_center(w, id)), dv(*o));
        double k = urand(0.5, 1.5);
        *d = fv(to.x * k, to.y * k, to.z * k);
    } else if (kind == 1) {   /* straight down */
        *d = fv(0, -urand(1, 20), 0);
    } else {   /* any direction, 0.1 to 40 m */
        urand3(v, -1, 1);
        double L = urand(0.1, 40) / (len(v3(v[0], v[1], v[2])) + 1e-9);
        *d = fv(v[0] * L, v[1] * L, v[2] * L);
    }
}

static int compare_rays(const qp_world *w, int count, bool filtered, int *hits)
{
    int differ = 0;
    for (int i = 0; i < count; i++) {
        qp_vec3 o, d;
        random_ray(w, &o, &d);
        if (qp_v3_eq(d, qp_v3_zero())) continue;
        qp_ray_filter f = qp_default_ray_filter();
        if (filtered) {
            f.mask = (uint16_t)(rng() & 0x1F);
            if (rng() % 2) f.ignore = qp_world_body_at(w, 1 + (int)(rng() % 513));
        }
        qp_world_ray_hit a, b;
        memset(&a, 0x55, sizeof a);
        memset(&b, 0x55, sizeof b);
        bool ga = qp_world_raycast_filtered(w, o, d, filtered ? &f : NULL, &a);
        bool gb = brute_cast(w, o, d, filtered ? &f : NULL, &b);
        if (ga != gb || (ga && memcmp(&a, &b, sizeof a) != 0)) differ++;
        if (!filtered) {
            qp_world_ray_hit c;
            memset(&c, 0x55, sizeof c);
            bool gc = qp_world_raycast(w, o, d, &c);
            if (gc != ga || memcmp(&c, &a, sizeof c) != 0) differ++;
        }
        *hits += ga;
    }
    return differ;
}

static void test_world_rays_match_brute_force(void **st)
{
    (void)st;
    FILE *fp = fopen("tests/scenes/rain512.scene", "rb");
    assert_non_null(fp);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text, fp);
    fclose(fp);
    qp_scene_info info;
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&rain, text, n, &info, &err), QP_OK);
    /* categories 1, 2, 4, 8, 16 in turn (masks all: the pile falls as it would) */
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&rain, i);
        if (qp_body_id_is_null(id)) continue;
        qp_shape_filter f = qp_default_shape_filter();
        f.category = (uint16_t)(1u << (i % 5));
        assert_int_equal(qp_body_set_shape_filter(&rain, id, 0, f), QP_OK);
    }
    static const int at[] = { 0, 1, 30, 90, 250 };
    int step = 0, hits = 0, rays = 0;
    for (int c = 0; c < 5; c++) {
        while (step < at[c]) qp_world_step(&rain), step++;
        assert_int_equal(compare_rays(&rain, 1500, false, &hits), 0);
        assert_int_equal(compare_rays(&rain, 1500, true, &hits), 0);
        rays += 3000;
    }
    /* A body moved by a call since the step (the order may be stale) and a restored world
     * (no order kept): the same answers. */
    qp_body_id id = qp_world_body_at(&rain, 100);
    assert_int_equal(qp_body_set_pose(&rain, id, fv(0, 3, 0), qp_quat_identity()), QP_OK);
    assert_int_equal(compare_rays(&rain, 1500, false, &hits), 0);
    unsigned long size = qp_world_snapshot(&rain, rain_snap, sizeof rain_snap);
    assert_int_equal(qp_world_restore(&rain, rain_snap, size), QP_OK);
    assert_int_equal(compare_rays(&rain, 1500, true, &hits), 0);
    rays += 3000;
    print_message("world rays: %d cast through the broad phase and by brute force, %d hits, all equal\n", rays, hits);
    assert_true(hits > rays / 5 && hits < rays * 4 / 5);
}

int main(void)
{
    rng_state = 0xBADC0DEu;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_cases),
        cmocka_unit_test(test_plane_cases),
        cmocka_unit_test(test_box_cases),
        cmocka_unit_test(test_capsule_cases),
        cmocka_unit_test(test_random_rays),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_world_rays_match_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
