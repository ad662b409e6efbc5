/* SPDX-License-Identifier: MIT */
/* Helpers shared by the cmocka tests (host only; doubles are fine here).
 * Include after <cmocka.h>. The PRNG is xorshift32: seeded per test file,
 * and every draw is its own statement, so all compilers draw the same
 * numbers (the order of evaluation of arguments and initialisers is
 * unspecified in C). */
#ifndef QP_TEST_UTIL_H
#define QP_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include "qphys/collide.h"
#include "qphys/math.h"
#include "qphys/world.h"

#define Q16 65536.0
#define Q30 1073741824.0

static uint32_t rng_state = 12345u;

static inline uint32_t rng(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

/* Uniform in [lo, hi). */
static inline double urand(double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); }

/* Three draws, v[0] then v[1] then v[2]: use it (or one statement per draw)
 * instead of several urand() calls in one argument list or expression. */
static inline void urand3(double v[3], double lo, double hi)
{
    for (int k = 0; k < 3; k++) v[k] = urand(lo, hi);
}

static inline double d16(fix16_t v) { return v / Q16; }
static inline fix16_t f16(double v) { return (fix16_t)llround(v * Q16); }

/* A Q16.16 vector of three draws in [lo, hi) metres, x then y then z. */
static inline qp_vec3 rand_v3(double lo, double hi)
{
    double v[3];
    urand3(v, lo, hi);
    return qp_v3(f16(v[0]), f16(v[1]), f16(v[2]));
}

/* A point of the cube [-1, 1]^3 between 0.2 and 1 from its centre (redrawn until it is), and
 * its distance: random directions for point clouds on spheres. */
static inline double urand_shell(double v[3])
{
    double l;
    do {
        urand3(v, -1, 1);
        l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    } while (l < 0.2 || l > 1);
    return l;
}

/* A random unit quaternion (Q2.30). */
static inline qp_quat rand_quat(void)
{
    qp_quat q;
    q.w = (qp_q30)(rng() >> 1) - (1 << 30);
    q.x = (qp_q30)(rng() >> 1) - (1 << 30);
    q.y = (qp_q30)(rng() >> 1) - (1 << 30);
    q.z = (qp_q30)(rng() >> 1) - (1 << 30);
    qp_quat n;
    assert_true(qp_quat_normalize(q, &n));
    return n;
}

/* Shapes from metres (each constructor must accept them). */
static inline qp_shape box(double hx, double hy, double hz)
{
    qp_shape s;
    assert_int_equal(qp_make_box(qp_v3(f16(hx), f16(hy), f16(hz)), &s), QP_OK);
    return s;
}
static inline qp_shape sphere(double r)
{
    qp_shape s;
    assert_int_equal(qp_make_sphere(f16(r), &s), QP_OK);
    return s;
}
static inline qp_shape capsule(double r, double half_height)
{
    qp_shape s;
    assert_int_equal(qp_make_capsule(f16(r), f16(half_height), &s), QP_OK);
    return s;
}
static inline qp_shape plane(double nx, double ny, double nz, double off)
{
    qp_shape s;
    assert_int_equal(qp_make_plane(qp_v3(f16(nx), f16(ny), f16(nz)), f16(off), &s), QP_OK);
    return s;
}

/* w initialised from def, with a static ground plane y = 0 as its first body. */
static inline qp_body_id init_with_ground(qp_world *w, const qp_world_def *def)
{
    assert_int_equal(qp_world_init(w, def), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    d.shapes[0] = plane(0, 1, 0, 0);
    qp_result err;
    qp_body_id ground = qp_create_body(w, &d, &err);
    assert_int_equal(err, QP_OK);
    return ground;
}

/* How deep body b's first shape is in body a's (the deepest point of their manifold, 0 when
 * apart), measured from outside with qp_collide at the bodies' poses. */
static inline double depth_between(const qp_world *w, qp_body_id a, qp_body_id b)
{
    qp_transform ba = { qp_body_position(w, a), qp_quat_to_rot3(qp_body_rotation(w, a)) };
    qp_transform bb = { qp_body_position(w, b), qp_quat_to_rot3(qp_body_rotation(w, b)) };
    qp_transform xa = qp_shape_transform(qp_body_shape(w, a, 0), &ba);
    qp_transform xb = qp_shape_transform(qp_body_shape(w, b, 0), &bb);
    qp_transform rel = qp_transform_relative(&xa, &xb);
    qp_manifold m;
    int n = qp_collide(qp_body_shape(w, a, 0), qp_body_shape(w, b, 0), &rel, 0, &m);
    double d = 0;
    for (int k = 0; k < n; k++) d = fmax(d, m.points[k].depth / Q16);
    return d;
}

#endif
