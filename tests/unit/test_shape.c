/* SPDX-License-Identifier: MIT */
/* Shapes: constructors and validation (every bad parameter rejected with the
 * right code and *out untouched), mass properties against the closed forms
 * (double), AABBs that contain the shape, transforms against double. */
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





/* Fill with a sentinel, so "untouched" can be checked byte for byte. */
static void sentinel(qp_shape *s) { memset(s, 0xA5, sizeof *s); }
static int untouched(const qp_shape *s)
{
    qp_shape ref;
    sentinel(&ref);
    return memcmp(s, &ref, sizeof ref) == 0;
}

#define EXPECT_REJECT(call, code, shape) do { sentinel(&(shape)); \
    assert_int_equal((call), (code)); assert_true(untouched(&(shape))); } while (0)

static void test_constructors(void **st)
{
    (void)st;
    qp_shape s;
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 2), &s), QP_OK);
    assert_int_equal(s.type, QP_SHAPE_SPHERE);
    assert_int_equal(s.radius, QP_FRAC(1, 2));
    assert_true(qp_v3_eq(s.offset, qp_v3_zero()));
    assert_int_equal(s.rotation.w, QP_Q30_ONE);
    assert_int_equal(qp_shape_validate(&s), QP_OK);

    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_INT(2), QP_SHAPE_MIN_SIZE), &s), QP_OK);
    assert_int_equal(s.type, QP_SHAPE_BOX);
    assert_int_equal(s.half.y, QP_INT(2));
    assert_int_equal(qp_shape_validate(&s), QP_OK);

    assert_int_equal(qp_make_capsule(QP_SHAPE_MAX_SIZE, QP_FRAC(3, 2), &s), QP_OK);
    assert_int_equal(s.type, QP_SHAPE_CAPSULE);
    assert_int_equal(s.half_height, QP_FRAC(3, 2));
    assert_int_equal(qp_shape_validate(&s), QP_OK);

    assert_int_equal(qp_make_plane(qp_v3(0, QP_INT(5), 0), QP_INT(-3), &s), QP_OK);
    assert_int_equal(s.type, QP_SHAPE_PLANE);
    assert_int_equal(s.normal.x, 0);
    assert_int_equal(s.normal.y, QP_Q30_ONE);
    assert_int_equal(s.plane_offset, QP_INT(-3));
    assert_int_equal(qp_shape_validate(&s), QP_OK);

    assert_int_equal(qp_make_plane(qp_v3(QP_ONE, QP_ONE, 0), QP_WORLD_LIMIT, &s), QP_OK);
    assert_true(fabs(s.normal.x / Q30 - sqrt(0.5)) < 3 / Q30);
    assert_int_equal(s.normal.x, s.normal.y);
    assert_int_equal(qp_shape_validate(&s), QP_OK);
}

static void test_constructor_rejects(void **st)
{
    (void)st;
    qp_shape s;
    const fix16_t ok = QP_ONE, lo = QP_SHAPE_MIN_SIZE - 1, hi = QP_SHAPE_MAX_SIZE + 1;
    EXPECT_REJECT(qp_make_sphere(0, &s), QP_ERR_PARAM, s);
    EXPECT_REJECT(qp_make_sphere(-QP_ONE, &s), QP_ERR_PARAM, s);
    EXPECT_REJECT(qp_make_sphere(lo, &s), QP_ERR_RANGE, s);
    EXPECT_REJECT(qp_make_sphere(hi, &s), QP_ERR_RANGE, s);
    EXPECT_REJECT(qp_make_sphere(QP_FIX_MAX, &s), QP_ERR_RANGE, s);
    assert_int_equal(qp_make_sphere(ok, NULL), QP_ERR_PARAM);

    fix16_t bad[4] = { 0, -ok, lo, hi };
    qp_result code[4] = { QP_ERR_PARAM, QP_ERR_PARAM, QP_ERR_RANGE, QP_ERR_RANGE };
    for (int i = 0; i < 4; i++) {
        EXPECT_REJECT(qp_make_box(qp_v3(bad[i], ok, ok), &s), code[i], s);
        EXPECT_REJECT(qp_make_box(qp_v3(ok, bad[i], ok), &s), code[i], s);
        EXPECT_REJECT(qp_make_box(qp_v3(ok, ok, bad[i]), &s), code[i], s);
        EXPECT_REJECT(qp_make_capsule(bad[i], ok, &s), code[i], s);
        EXPECT_REJECT(qp_make_capsule(ok, bad[i], &s), code[i], s);
    }
    /* malformed wins over out of range */
    EXPECT_REJECT(qp_make_box(qp_v3(hi, 0, ok), &s), QP_ERR_PARAM, s);
    assert_int_equal(qp_make_box(qp_v3(ok, ok, ok), NULL), QP_ERR_PARAM);
    assert_int_equal(qp_make_capsule(ok, ok, NULL), QP_ERR_PARAM);

    EXPECT_REJECT(qp_make_plane(qp_v3_zero(), 0, &s), QP_ERR_PARAM, s);
    EXPECT_REJECT(qp_make_plane(qp_v3(0, ok, 0), QP_WORLD_LIMIT + 1, &s), QP_ERR_RANGE, s);
    EXPECT_REJECT(qp_make_plane(qp_v3(0, ok, 0), -QP_WORLD_LIMIT - 1, &s), QP_ERR_RANGE, s);
    assert_int_equal(qp_make_plane(qp_v3(0, ok, 0), 0, NULL), QP_ERR_PARAM);
}

static void test_validate(void **st)
{
    (void)st;
    qp_shape s, b;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_ONE, QP_ONE), &b), QP_OK);
    b.rotation = rand_quat();
    b.offset = qp_v3(QP_SHAPE_MAX_SIZE, -QP_SHAPE_MAX_SIZE, 0);
    assert_int_equal(qp_shape_validate(&b), QP_OK);

    s = b; s.rotation.w = QP_Q30_ONE / 2; s.rotation.x = s.rotation.y = s.rotation.z = 0;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.rotation.w = 0; s.rotation.x = s.rotation.y = s.rotation.z = 0;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.rotation.w = INT32_MIN + 1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.offset.z = QP_SHAPE_MAX_SIZE + 1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_RANGE);
    s = b; s.half.y = 0;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.half.z = QP_SHAPE_MAX_SIZE + 1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_RANGE);
    s = b; s.type = (qp_shape_type)7;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    assert_int_equal(qp_shape_validate(NULL), QP_ERR_PARAM);

    assert_int_equal(qp_make_sphere(QP_ONE, &b), QP_OK);
    s = b; s.radius = QP_SHAPE_MIN_SIZE - 1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_RANGE);
    s = b; s.radius = -1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);

    assert_int_equal(qp_make_capsule(QP_ONE, QP_ONE, &b), QP_OK);
    s = b; s.half_height = 0;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.radius = QP_SHAPE_MAX_SIZE + 1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_RANGE);

    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &b), QP_OK);
    s = b; s.normal = qp_v3_zero();
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.normal.y = QP_Q30_ONE / 2;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_PARAM);
    s = b; s.plane_offset = QP_WORLD_LIMIT + 1;
    assert_int_equal(qp_shape_validate(&s), QP_ERR_RANGE);
}

/* ---- mass --------------------------------------------------------------------- */

typedef struct { double m, ixx, iyy, izz; } ref_mass;

static ref_mass ref_shape_mass(const qp_shape *s, double rho)
{
    ref_mass r = { 0, 0, 0, 0 };
    if (s->type == QP_SHAPE_BOX) {
        double x = d16(s->half.x), y = d16(s->half.y), z = d16(s->half.z);
        r.m = 8 * x * y * z * rho;
        r.ixx = r.m * (y * y + z * z) / 3;
        r.iyy = r.m * (x * x + z * z) / 3;
        r.izz = r.m * (x * x + y * y) / 3;
        return r;
    }
    double rad = d16(s->radius), h = d16(s->half_height);
    double ms = 4.0 / 3.0 * M_PI * rad * rad * rad * rho;
    double mc = s->type == QP_SHAPE_CAPSULE ? M_PI * rad * rad * 2 * h * rho : 0;
    r.m = ms + mc;
    r.iyy = mc * rad * rad / 2 + 0.4 * ms * rad * rad;
    r.ixx = r.izz = mc * (rad * rad / 4 + (2 * h) * (2 * h) / 12) +
                    ms * (0.4 * rad * rad + h * h + 0.75 * h * rad);
    return r;
}

/* Closed forms for the capsule, checked independently by integrating slices. */
static void test_capsule_closed_form(void **st)
{
    (void)st;
    double rad = d16(f16(0.3)), h = d16(f16(0.8)), rho = 1, m = 0, ixx = 0, iyy = 0;
    const int n = 200000;
    double y0 = -h - rad, dy = (2 * h + 2 * rad) / n;
    for (int i = 0; i < n; i++) {
        double y = y0 + (i + 0.5) * dy, ay = fabs(y) - h;
        double rr = ay > 0 ? rad * rad - ay * ay : rad * rad;   /* slice radius^2 */
        if (rr <= 0) continue;
        double dm = M_PI * rr * dy * rho;
        m += dm;
        iyy += dm * rr / 2;
        ixx += dm * (rr / 4 + y * y);
    }
    qp_shape s;
    assert_int_equal(qp_make_capsule(f16(rad), f16(h), &s), QP_OK);
    ref_mass r = ref_shape_mass(&s, rho);
    assert_true(fabs(r.m - m) < 1e-6 * m);
    assert_true(fabs(r.iyy - iyy) < 1e-6 * iyy);
    assert_true(fabs(r.ixx - ixx) < 1e-6 * ixx);
}

static double worst_mass_lsb, worst_inertia_lsb;

static void check_mass(const qp_shape *s, double rho, int *checked)
{
    qp_mass_data md;
    memset(&md, 0x5A, sizeof md);
    qp_mass_data before = md;
    ref_mass r = ref_shape_mass(s, rho);
    qp_result res = qp_shape_mass(s, f16(rho), &md);
    double lim = 32767.99;
    double rho_q = d16(f16(rho));
    r = ref_shape_mass(s, rho_q);
    if (r.m > lim || r.ixx > lim || r.iyy > lim || r.izz > lim || r.m < 0.5 / Q16) {
        /* stay clear of the rounding boundary */
        if (r.m > lim * 1.0001 || r.ixx > lim * 1.0001 || r.iyy > lim * 1.0001 || r.izz > lim * 1.0001 ||
            r.m < 0.49 / Q16) {
            assert_int_equal(res, QP_ERR_RANGE);
            assert_memory_equal(&md, &before, sizeof md);
        }
        return;
    }
    assert_int_equal(res, QP_OK);
    (*checked)++;
    /* inertia in the shape frame, rotated: R diag R^T */
    qp_rot3 R = qp_quat_to_rot3(s->rotation);
    double I[3] = { r.ixx, r.iyy, r.izz };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v += R.m[i][k] / Q30 * I[k] * R.m[j][k] / Q30;
            double e = fabs(d16(md.inertia.m[i][j]) - v);
            if (e * Q16 > worst_inertia_lsb) worst_inertia_lsb = e * Q16;
            assert_true(e <= 3 / Q16 + 1e-7 * fabs(v));
        }
    if (fabs(d16(md.mass) - r.m) * Q16 > worst_mass_lsb) worst_mass_lsb = fabs(d16(md.mass) - r.m) * Q16;
    assert_true(fabs(d16(md.mass) - r.m) <= 0.5001 / Q16);
    assert_true(qp_v3_eq(md.center, s->offset));
}

static void test_mass_closed_forms(void **st)
{
    (void)st;
    qp_shape s;
    qp_mass_data md;
    int checked = 0;
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 2), &s), QP_OK);
    assert_int_equal(qp_shape_mass(&s, QP_INT(1000), &md), QP_OK);
    assert_true(fabs(d16(md.mass) - 523.5987756) <= 1 / Q16);
    assert_true(fabs(d16(md.inertia.m[0][0]) - 52.35987756) <= 1 / Q16);
    assert_int_equal(md.inertia.m[0][1], 0);

    assert_int_equal(qp_make_box(qp_v3(QP_FRAC(1, 2), QP_ONE, QP_INT(2)), &s), QP_OK);
    assert_int_equal(qp_shape_mass(&s, QP_INT(10), &md), QP_OK);
    assert_int_equal(md.mass, QP_INT(80));
    assert_true(fabs(d16(md.inertia.m[0][0]) - 80.0 * 5 / 3) <= 1 / Q16);
    assert_true(fabs(d16(md.inertia.m[1][1]) - 80.0 * 4.25 / 3) <= 1 / Q16);
    assert_true(fabs(d16(md.inertia.m[2][2]) - 80.0 * 1.25 / 3) <= 1 / Q16);

    assert_int_equal(qp_make_capsule(QP_FRAC(3, 10), QP_FRAC(4, 5), &s), QP_OK);
    check_mass(&s, 500, &checked);
    assert_int_equal(checked, 1);

    /* random sizes, densities and rotations */
    for (int i = 0; i < 3000; i++) {
        int type = 1 + (int)(rng() % 3);
        double sz = exp(urand(log(0.01), log(100.0)));
        double rho = exp(urand(log(0.01), log(20000.0)));
        fix16_t a = f16(sz), b = f16(exp(urand(log(0.01), log(100.0))));
        fix16_t c = f16(exp(urand(log(0.01), log(100.0))));
        if (type == 1) assert_int_equal(qp_make_sphere(a, &s), QP_OK);
        else if (type == 2) assert_int_equal(qp_make_capsule(a, b, &s), QP_OK);
        else assert_int_equal(qp_make_box(qp_v3(a, b, c), &s), QP_OK);
        s.rotation = rand_quat();
        s.offset = rand_v3(-5, 5);
        check_mass(&s, rho, &checked);
    }
    print_message("mass: %d random shapes compared: mass %.3f LSB, rotated inertia %.3f LSB\n", checked,
                  worst_mass_lsb, worst_inertia_lsb);
    assert_true(checked > 300);
}

static void test_mass_rejects(void **st)
{
    (void)st;
    qp_shape s, p;
    qp_mass_data md, before;
    memset(&md, 0x5A, sizeof md);
    before = md;
    assert_int_equal(qp_make_sphere(QP_SHAPE_MAX_SIZE, &s), QP_OK);
    assert_int_equal(qp_shape_mass(&s, QP_INT(1000), &md), QP_ERR_RANGE);   /* 4e9 kg */
    assert_int_equal(qp_make_sphere(QP_SHAPE_MIN_SIZE, &s), QP_OK);
    assert_int_equal(qp_shape_mass(&s, QP_FRAC(1, 100), &md), QP_ERR_RANGE); /* 4e-8 kg */
    assert_int_equal(qp_shape_mass(&s, 0, &md), QP_ERR_PARAM);
    assert_int_equal(qp_shape_mass(&s, -QP_ONE, &md), QP_ERR_PARAM);
    assert_int_equal(qp_make_box(qp_v3(QP_INT(20), QP_INT(20), QP_FRAC(1, 10)), &s), QP_OK);
    assert_int_equal(qp_shape_mass(&s, QP_INT(100), &md), QP_ERR_RANGE);    /* m = 32000, I far too big */
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &p), QP_OK);
    assert_int_equal(qp_shape_mass(&p, QP_ONE, &md), QP_ERR_PARAM);
    s.half.x = 0;
    assert_int_equal(qp_shape_mass(&s, QP_ONE, &md), QP_ERR_PARAM);
    assert_memory_equal(&md, &before, sizeof md);
}

/* ---- AABB ---------------------------------------------------------------------- */

static void rot_d(const qp_rot3 *r, const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = (r->m[i][0] * v[0] + r->m[i][1] * v[1] + r->m[i][2] * v[2]) / Q30;
}

static void test_aabb(void **st)
{
    (void)st;
    for (int it = 0; it < 2000; it++) {
        int type = 1 + (int)(rng() % 3);
        qp_shape s;
        fix16_t a = f16(exp(urand(log(0.01), log(100.0))));
        fix16_t b = f16(exp(urand(log(0.01), log(100.0))));
        fix16_t c = f16(exp(urand(log(0.01), log(100.0))));
        if (type == 1) assert_int_equal(qp_make_sphere(a, &s), QP_OK);
        else if (type == 2) assert_int_equal(qp_make_capsule(a, b, &s), QP_OK);
        else assert_int_equal(qp_make_box(qp_v3(a, b, c), &s), QP_OK);
        qp_transform xf;
        xf.p = rand_v3(-9000, 9000);
        xf.r = qp_quat_to_rot3(rand_quat());
        qp_aabb bb = qp_shape_aabb(&s, &xf);
        double ext[3], lo[3], hi[3];
        /* exact extents: support function along each world axis */
        for (int i = 0; i < 3; i++) {
            double rr[3] = { xf.r.m[i][0] / Q30, xf.r.m[i][1] / Q30, xf.r.m[i][2] / Q30 };
            if (type == 1) ext[i] = d16(a);
            else if (type == 2) ext[i] = fabs(rr[1]) * d16(b) + d16(a);
            else ext[i] = fabs(rr[0]) * d16(a) + fabs(rr[1]) * d16(b) + fabs(rr[2]) * d16(c);
        }
        double p[3] = { d16(xf.p.x), d16(xf.p.y), d16(xf.p.z) };
        lo[0] = d16(bb.lo.x); lo[1] = d16(bb.lo.y); lo[2] = d16(bb.lo.z);
        hi[0] = d16(bb.hi.x); hi[1] = d16(bb.hi.y); hi[2] = d16(bb.hi.z);
        for (int i = 0; i < 3; i++) {
            assert_true(lo[i] <= p[i] - ext[i] + 1e-9);   /* contains */
            assert_true(hi[i] >= p[i] + ext[i] - 1e-9);
            assert_true(lo[i] >= p[i] - ext[i] - 2 / Q16); /* and is tight */
            assert_true(hi[i] <= p[i] + ext[i] + 2 / Q16);
        }
        /* spot check: box corners / capsule ends inside */
        if (type == 3) {
            for (int k = 0; k < 8; k++) {
                double v[3] = { (k & 1 ? 1 : -1) * d16(a), (k & 2 ? 1 : -1) * d16(b), (k & 4 ? 1 : -1) * d16(c) }, w[3];
                rot_d(&xf.r, v, w);
                for (int i = 0; i < 3; i++) assert_true(p[i] + w[i] >= lo[i] && p[i] + w[i] <= hi[i]);
            }
        }
    }
    /* planes: the world box, with a top for a ground plane */
    qp_shape pl;
    qp_transform id = { qp_v3_zero(), qp_rot3_identity() };
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), QP_INT(2), &pl), QP_OK);
    qp_aabb bb = qp_shape_aabb(&pl, &id);
    assert_int_equal(bb.hi.y, QP_INT(2));
    assert_true(bb.lo.y <= -QP_WORLD_LIMIT && bb.lo.x <= -QP_WORLD_LIMIT && bb.hi.x >= QP_WORLD_LIMIT);
    id.p = qp_v3(QP_INT(5), QP_INT(-1), 0);
    bb = qp_shape_aabb(&pl, &id);
    assert_int_equal(bb.hi.y, QP_INT(1));
    assert_int_equal(qp_make_plane(qp_v3(0, 0, -QP_ONE), QP_INT(3), &pl), QP_OK);
    bb = qp_shape_aabb(&pl, &id);
    assert_int_equal(bb.lo.z, QP_INT(-3));
    assert_true(bb.hi.z >= QP_WORLD_LIMIT);
    assert_int_equal(qp_make_plane(qp_v3(QP_ONE, QP_ONE, QP_ONE), QP_INT(3), &pl), QP_OK);
    bb = qp_shape_aabb(&pl, &id);
    assert_true(bb.lo.y <= -QP_WORLD_LIMIT && bb.hi.y >= QP_WORLD_LIMIT);
}

/* ---- transforms ------------------------------------------------------------------ */

static void test_transforms(void **st)
{
    (void)st;
    int max_err = 0;
    for (int it = 0; it < 5000; it++) {
        qp_transform a, b;
        a.p = rand_v3(-9000, 9000);
        b.p = qp_v3_add(a.p, rand_v3(-1000, 1000));
        a.r = qp_quat_to_rot3(rand_quat());
        b.r = qp_quat_to_rot3(rand_quat());
        qp_transform rel = qp_transform_relative(&a, &b);
        /* reference: R_a^T (p_b - p_a) */
        double d[3] = { d16(b.p.x) - d16(a.p.x), d16(b.p.y) - d16(a.p.y), d16(b.p.z) - d16(a.p.z) };
        fix16_t got[3] = { rel.p.x, rel.p.y, rel.p.z };
        for (int i = 0; i < 3; i++) {
            double v = (a.r.m[0][i] * d[0] + a.r.m[1][i] * d[1] + a.r.m[2][i] * d[2]) / Q30;
            int e = (int)fabs(got[i] - v * Q16);
            if (e > max_err) max_err = e;
            assert_true(fabs(got[i] - v * Q16) <= 1.0);
            for (int j = 0; j < 3; j++) {
                double r = 0;
                for (int k = 0; k < 3; k++) r += (double)a.r.m[k][i] * b.r.m[k][j] / Q30 / Q30;
                assert_true(fabs(rel.r.m[i][j] / Q30 - r) <= 2 / Q30);
            }
        }
        /* point round trip */
        qp_vec3 local = rand_v3(-100, 100);
        qp_vec3 w = qp_transform_point(&a, local);
        qp_vec3 back = qp_transform_point_inv(&a, w);
        assert_true(abs(back.x - local.x) <= 2 && abs(back.y - local.y) <= 2 && abs(back.z - local.z) <= 2);
        /* world point of b's local point = a * (rel * local) */
        qp_vec3 w1 = qp_transform_point(&b, local);
        qp_vec3 w2 = qp_transform_point(&a, qp_transform_point(&rel, local));
        assert_true(abs(w1.x - w2.x) <= 8 && abs(w1.y - w2.y) <= 8 && abs(w1.z - w2.z) <= 8);
    }
    print_message("transform_relative: max error %d LSB\n", max_err);

    /* shape transform: offset and rotation applied on the body pose */
    qp_shape s;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_ONE, QP_ONE), &s), QP_OK);
    s.offset = qp_v3(QP_INT(1), 0, 0);
    assert_true(qp_quat_from_axis_angle(qp_v3(0, QP_ONE, 0), QP_FRAC(314159, 200000), &s.rotation));
    qp_transform body = { qp_v3(QP_INT(10), QP_INT(5), 0), qp_rot3_identity() };
    assert_true(qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), QP_FRAC(314159, 200000), &s.rotation));
    qp_quat qb;
    assert_true(qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), QP_FRAC(314159, 200000), &qb));
    body.r = qp_quat_to_rot3(qb);   /* 90 degrees about z: offset (1,0,0) -> (0,1,0) */
    qp_transform t = qp_shape_transform(&s, &body);
    assert_true(abs(t.p.x - QP_INT(10)) <= 2 && abs(t.p.y - QP_INT(6)) <= 2 && abs(t.p.z) <= 2);
    /* 180 degrees about z in total */
    assert_true(abs(t.r.m[0][0] + QP_Q30_ONE) <= 64 && abs(t.r.m[1][1] + QP_Q30_ONE) <= 64);
    assert_true(abs(t.r.m[2][2] - QP_Q30_ONE) <= 64);
}

static void test_result_str(void **st)
{
    (void)st;
    for (int i = 0; i < QP_RESULT_COUNT; i++) {
        const char *a = qp_result_str((qp_result)i);
        assert_non_null(a);
        assert_true(strlen(a) > 0);
        for (int j = 0; j < i; j++) assert_string_not_equal(a, qp_result_str((qp_result)j));
    }
    assert_non_null(qp_result_str((qp_result)99));
}

int main(void)
{
    rng_state = 12345u;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constructors),
        cmocka_unit_test(test_constructor_rejects),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_capsule_closed_form),
        cmocka_unit_test(test_mass_closed_forms),
        cmocka_unit_test(test_mass_rejects),
        cmocka_unit_test(test_aabb),
        cmocka_unit_test(test_transforms),
        cmocka_unit_test(test_result_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
