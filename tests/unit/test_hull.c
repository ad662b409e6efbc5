/* SPDX-License-Identifier: MIT */
/* Convex hulls: the build (corners, merged faces, refusals), mass properties against the
 * box's closed forms, ray casts against a brute-force march, and bodies: hulls of 4-64
 * points rest on a plane and on boxes and sleep, a cube hull moves as a box does, five
 * hulls stack, spheres and capsules rest on a hull, hulls in compounds, kinematic hulls
 * carry what rests on them, and the pool refuses what it cannot hold. Random point clouds
 * use a fresh seed per run (printed, so a failure can be replayed with QP_HULL_SEED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/qphys.h"
#include "qphys/record.h"
#include "qp_test_util.h"

static qp_world W, W2;
static qp_hull H[8];

static qp_vec3 v3d(double x, double y, double z) { return qp_v3(f16(x), f16(y), f16(z)); }

/* The 8 corners of a box of half extents (x, y, z) centred at c. */
static int cube_points(qp_vec3 *p, double x, double y, double z, qp_vec3 c)
{
    for (int k = 0; k < 8; k++)
        p[k] = qp_v3_add(c, v3d(k & 1 ? x : -x, k & 2 ? y : -y, k & 4 ? z : -z));
    return 8;
}

/* n points on a rough sphere of radius r (x then y then z drawn per point). */
static int cloud_points(qp_vec3 *p, int n, double r)
{
    for (int i = 0; i < n; i++) {
        double v[3], l = urand_shell(v);
        double s = r * (0.6 + 0.4 / l * l);
        p[i] = v3d(v[0] / l * s, v[1] / l * s, v[2] / l * s);
    }
    return n;
}

static void world_with_ground(qp_world *w)
{
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(w, &wd), QP_OK);
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]), QP_OK);
    qp_result r;
    assert_false(qp_body_id_is_null(qp_create_body(w, &g, &r)));
}

static qp_body_id add_hull(qp_world *w, const qp_hull *h, qp_vec3 pos, qp_quat rot, qp_body_type type)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.position = pos;
    d.rotation = rot;
    d.shape_count = 1;
    d.density = QP_INT(500);
    assert_int_equal(qp_make_hull(h, &d.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_body_id add_box(qp_world *w, qp_vec3 half, qp_vec3 pos, qp_quat rot, qp_body_type type)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.position = pos;
    d.rotation = rot;
    d.shape_count = 1;
    d.density = QP_INT(500);
    assert_int_equal(qp_make_box(half, &d.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static void run(qp_world *w, int steps)
{
    for (int i = 0; i < steps; i++) qp_world_step(w);
}

/* The lowest point of a hull body (its vertices at the body's pose). */
static double lowest_y(const qp_world *w, qp_body_id id, const qp_hull *h)
{
    qp_transform xf = { qp_body_position(w, id), qp_quat_to_rot3(qp_body_rotation(w, id)) };
    double lo = 1e9;
    for (int v = 0; v < h->vert_count; v++) {
        double y = d16(qp_transform_point(&xf, h->verts[v]).y);
        if (y < lo) lo = y;
    }
    return lo;
}

/* ---- build ---------------------------------------------------------------------------- */

static void test_build_cube_merges_faces(void **state)
{
    (void)state;
    qp_vec3 p[20];
    int n = cube_points(p, 0.5, 0.5, 0.5, qp_v3_zero());
    p[n++] = v3d(0, 0, 0);          /* inside */
    p[n++] = v3d(0.5, 0, 0);        /* the middle of a face */
    p[n++] = v3d(0.5, 0.5, 0);      /* the middle of an edge */
    p[n++] = p[3];                  /* a duplicate */
    assert_int_equal(qp_hull_build(p, n, &H[0]), QP_OK);
    assert_int_equal(H[0].vert_count, 8);
    assert_int_equal(H[0].face_count, 6);
    assert_int_equal(H[0].edge_count, 12);
    for (int f = 0; f < 6; f++) {
        assert_int_equal(H[0].faces[f].count, 4);
        assert_int_equal(H[0].faces[f].offset, QP_ONE / 2);
        int axes = (H[0].faces[f].normal.x != 0) + (H[0].faces[f].normal.y != 0) + (H[0].faces[f].normal.z != 0);
        assert_int_equal(axes, 1);
    }
}

static void test_build_tetrahedron(void **state)
{
    (void)state;
    qp_vec3 p[4] = { v3d(0, 0, 0), v3d(1, 0, 0), v3d(0, 1, 0), v3d(0, 0, 1) };
    assert_int_equal(qp_hull_build(p, 4, &H[0]), QP_OK);
    assert_int_equal(H[0].vert_count, 4);
    assert_int_equal(H[0].face_count, 4);
    assert_int_equal(H[0].edge_count, 6);
}

static void test_build_refuses_degenerate(void **state)
{
    (void)state;
    qp_vec3 p[QP_HULL_MAX_POINTS + 1];
    memset(p, 0, sizeof p);
    memset(&H[1], 0xA5, sizeof H[1]);
    qp_hull before = H[1];
    assert_int_equal(qp_hull_build(p, 3, &H[1]), QP_ERR_PARAM);                 /* too few */
    for (int i = 0; i < 6; i++) p[i] = v3d(i % 3, i / 3, 0);
    assert_int_equal(qp_hull_build(p, 6, &H[1]), QP_ERR_PARAM);                 /* one plane */
    for (int i = 0; i < 6; i++) p[i] = v3d(i, 2 * i, -i);
    assert_int_equal(qp_hull_build(p, 6, &H[1]), QP_ERR_PARAM);                 /* one line */
    for (int i = 0; i < 6; i++) p[i] = v3d(i & 1, (i >> 1) & 1, 0);
    p[6] = p[0];
    assert_int_equal(qp_hull_build(p, 4, &H[1]), QP_ERR_PARAM);                 /* 3 distinct, 1 twice */
    cloud_points(p, QP_HULL_MAX_POINTS + 1, 1);
    assert_int_equal(qp_hull_build(p, QP_HULL_MAX_POINTS + 1, &H[1]), QP_ERR_RANGE);   /* over 64 */
    cube_points(p, 0.5, 0.5, 0.5, qp_v3_zero());
    p[7].x = QP_SHAPE_MAX_SIZE + 1;
    assert_int_equal(qp_hull_build(p, 8, &H[1]), QP_ERR_RANGE);                 /* past 100 m */
    assert_int_equal(qp_hull_build(NULL, 8, &H[1]), QP_ERR_PARAM);
    assert_memory_equal(&H[1], &before, sizeof before);                        /* untouched */
    qp_shape s;
    assert_int_equal(qp_make_hull(&H[1], &s), QP_ERR_PARAM);                    /* not a built hull */
}

static uint32_t seed_of_run(void)
{
    const char *e = getenv("QP_HULL_SEED");
    uint32_t s = e ? (uint32_t)strtoul(e, NULL, 10) : (uint32_t)time(NULL) ^ ((uint32_t)clock() << 16);
    if (s == 0) s = 1;
    printf("test_hull: QP_HULL_SEED=%u\n", s);
    return s;
}

/* Random clouds of 4-64 points: Euler's V - E + F = 2, each edge between two faces, every
 * point inside every face plane (within the normal's rounding), every face convex and
 * counter-clockwise about its normal, every vertex an input point. */
static void test_build_random_clouds(void **state)
{
    (void)state;
    rng_state = seed_of_run();
    for (int trial = 0; trial < 200; trial++) {
        qp_vec3 p[QP_HULL_MAX_POINTS];
        int n = 4 + (int)(rng() % 61);
        double r = urand(0.05, 20);
        cloud_points(p, n, r);
        qp_hull *h = &H[0];
        assert_int_equal(qp_hull_build(p, n, h), QP_OK);
        assert_int_equal(h->vert_count - h->edge_count + h->face_count, 2);
        for (int i = 0; i < n; i++)
            for (int f = 0; f < h->face_count; f++) {
                const qp_hull_face *fc = &h->faces[f];
                double d = (d16(p[i].x) * fc->normal.x + d16(p[i].y) * fc->normal.y + d16(p[i].z) * fc->normal.z) / Q30;
                assert_true(d <= d16(fc->offset) + 1e-4);
            }
        for (int v = 0; v < h->vert_count; v++) {
            bool found = false;
            for (int i = 0; i < n; i++) found |= memcmp(&p[i], &h->verts[v], sizeof p[i]) == 0;
            assert_true(found);
        }
        for (int f = 0; f < h->face_count; f++) {
            const qp_hull_face *fc = &h->faces[f];
            for (int q = 0; q < fc->count; q++) {
                qp_vec3 a = h->verts[h->face_verts[fc->first + q]];
                qp_vec3 b = h->verts[h->face_verts[fc->first + (q + 1) % fc->count]];
                qp_vec3 c = h->verts[h->face_verts[fc->first + (q + 2) % fc->count]];
                double e1[3] = { d16(b.x) - d16(a.x), d16(b.y) - d16(a.y), d16(b.z) - d16(a.z) };
                double e2[3] = { d16(c.x) - d16(b.x), d16(c.y) - d16(b.y), d16(c.z) - d16(b.z) };
                double cr[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
                assert_true(cr[0] * fc->normal.x + cr[1] * fc->normal.y + cr[2] * fc->normal.z > 0);
            }
        }
        for (int e = 0; e < h->edge_count; e++) assert_int_not_equal(h->edges[e].f0, h->edges[e].f1);
    }
}

/* ---- mass ---------------------------------------------------------------------------- */

static void test_mass_cube_hull_equals_box(void **state)
{
    (void)state;
    const double halves[3][3] = { { 0.5, 0.5, 0.5 }, { 0.25, 1.5, 0.75 }, { 2, 0.1, 3 } };
    for (int t = 0; t < 3; t++) {
        qp_vec3 p[8];
        cube_points(p, halves[t][0], halves[t][1], halves[t][2], qp_v3_zero());
        assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
        qp_shape hs, bs;
        assert_int_equal(qp_make_hull(&H[0], &hs), QP_OK);
        assert_int_equal(qp_make_box(v3d(halves[t][0], halves[t][1], halves[t][2]), &bs), QP_OK);
        qp_mass_data mh, mb;
        assert_int_equal(qp_shape_mass(&hs, QP_INT(700), &mh), QP_OK);
        assert_int_equal(qp_shape_mass(&bs, QP_INT(700), &mb), QP_OK);
        assert_true(abs(mh.mass - mb.mass) <= 1);
        assert_true(qp_v3_max_abs(mh.center) == 0);
        /* Within 1 LSB, or 2^-26 of the moment for large ones (4 LSB of 10 000 kg m^2). */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                assert_true(abs(mh.inertia.m[i][j] - mb.inertia.m[i][j]) <= (1 | (abs(mb.inertia.m[i][j]) >> 26)));
    }
    /* Off the origin: the centre of mass is the cube's centre. */
    qp_vec3 p[8];
    cube_points(p, 0.5, 0.25, 0.5, v3d(1, 2, -3));
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    qp_shape hs;
    qp_mass_data mh;
    assert_int_equal(qp_make_hull(&H[0], &hs), QP_OK);
    assert_int_equal(qp_shape_mass(&hs, QP_ONE, &mh), QP_OK);
    assert_true(qp_v3_max_abs(qp_v3_sub(mh.center, v3d(1, 2, -3))) <= 1);
    assert_true(abs(mh.mass - QP_ONE / 2) <= 1);
}

/* A tetrahedron's closed forms: volume abc/6, centroid at the corners' mean. */
static void test_mass_tetrahedron(void **state)
{
    (void)state;
    qp_vec3 p[4] = { v3d(0, 0, 0), v3d(2, 0, 0), v3d(0, 3, 0), v3d(0, 0, 1) };
    assert_int_equal(qp_hull_build(p, 4, &H[0]), QP_OK);
    qp_shape hs;
    qp_mass_data md;
    assert_int_equal(qp_make_hull(&H[0], &hs), QP_OK);
    assert_int_equal(qp_shape_mass(&hs, QP_INT(3), &md), QP_OK);
    assert_true(fabs(d16(md.mass) - 3.0) < 1e-4);
    assert_true(fabs(d16(md.center.x) - 0.5) < 1e-4);
    assert_true(fabs(d16(md.center.y) - 0.75) < 1e-4);
    assert_true(fabs(d16(md.center.z) - 0.25) < 1e-4);
    /* Ixx about the centroid: m/20 (b^2 + c^2) + m (y^2 + z^2 means)...: by the covariance
     * of a tetrahedron, C = m/20 (sum v v^T + s s^T) - m c c^T with s the corners' sum. */
    double v[4][3] = { { 0, 0, 0 }, { 2, 0, 0 }, { 0, 3, 0 }, { 0, 0, 1 } }, s[3] = { 2, 3, 1 }, c[3] = { 0.5, 0.75, 0.25 };
    double C[3][3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double sum = s[a] * s[b];
            for (int k = 0; k < 4; k++) sum += v[k][a] * v[k][b];
            C[a][b] = 3.0 / 20 * sum - 3.0 * c[a] * c[b];
        }
    double tr = C[0][0] + C[1][1] + C[2][2];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) assert_true(fabs(d16(md.inertia.m[a][b]) - ((a == b ? tr : 0) - C[a][b])) < 2e-4);
}

/* ---- ray casts ------------------------------------------------------------------------- */

static bool inside_planes(const qp_hull *h, const double x[3])
{
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *fc = &h->faces[f];
        const qp_vec3 a = h->verts[h->face_verts[fc->first]];
        const qp_vec3 b = h->verts[h->face_verts[fc->first + 1]];
        const qp_vec3 c = h->verts[h->face_verts[fc->first + 2]];
        double e1[3] = { d16(b.x) - d16(a.x), d16(b.y) - d16(a.y), d16(b.z) - d16(a.z) };
        double e2[3] = { d16(c.x) - d16(a.x), d16(c.y) - d16(a.y), d16(c.z) - d16(a.z) };
        double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        double d = n[0] * (x[0] - d16(a.x)) + n[1] * (x[1] - d16(a.y)) + n[2] * (x[2] - d16(a.z));
        if (d > 0) return false;
    }
    return true;
}

static void test_raycast_against_brute_force(void **state)
{
    (void)state;
    rng_state = seed_of_run() ^ 0x9E3779B9u;
    int hits = 0, misses = 0;
    for (int trial = 0; trial < 60; trial++) {
        qp_vec3 p[QP_HULL_MAX_POINTS];
        int n = 4 + (int)(rng() % 61);
        cloud_points(p, n, urand(0.2, 3));
        assert_int_equal(qp_hull_build(p, n, &H[0]), QP_OK);
        qp_shape s;
        assert_int_equal(qp_make_hull(&H[0], &s), QP_OK);
        qp_transform xf = { rand_v3(-5, 5), qp_quat_to_rot3(rand_quat()) };
        for (int k = 0; k < 20; k++) {
            qp_vec3 o = qp_v3_add(xf.p, rand_v3(-8, 8));
            qp_vec3 target = qp_v3_add(xf.p, rand_v3(-1.5, 1.5));
            qp_vec3 delta = qp_v3_sub(target, o);
            delta = qp_v3(delta.x * 2, delta.y * 2, delta.z * 2);
            /* The march: the first of 20 000 points along the ray inside the hull. */
            double ol[3], dl[3];
            qp_vec3 lo = qp_transform_point_inv(&xf, o);
            qp_vec3 ld = qp_rot3_tmul_v3(&xf.r, delta);
            ol[0] = d16(lo.x), ol[1] = d16(lo.y), ol[2] = d16(lo.z);
            dl[0] = d16(ld.x), dl[1] = d16(ld.y), dl[2] = d16(ld.z);
            if (inside_planes(&H[0], ol)) continue;
            double first = -1;
            for (int i = 0; i <= 20000 && first < 0; i++) {
                double t = i / 20000.0, x[3] = { ol[0] + dl[0] * t, ol[1] + dl[1] * t, ol[2] + dl[2] * t };
                if (inside_planes(&H[0], x)) first = t;
            }
            qp_ray_hit hit;
            bool got = qp_raycast_shape(&s, &xf, o, delta, &hit);
            double len = sqrt(dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2]);
            if (first < 0) {
                /* A miss, or a graze thinner than the march's step. */
                if (got) assert_true(d16(hit.fraction) * len > 0 && fabs(d16(hit.fraction)) <= 1);
                misses++;
                continue;
            }
            assert_true(got);
            hits++;
            assert_true(fabs(d16(hit.fraction) - first) * len < 2e-3 + len / 20000.0);
            /* The normal faces the ray. */
            double nd = (hit.normal.x * d16(delta.x) + hit.normal.y * d16(delta.y) + hit.normal.z * d16(delta.z)) / Q30;
            assert_true(nd < 0);
        }
    }
    assert_true(hits > 200);
    assert_true(misses > 50);
}

/* ---- bodies ------------------------------------------------------------------------------ */

/* Tetrahedra, cubes and random clouds of 4-64 points dropped at a tilt rest on the ground,
 * touching it, and fall asleep. */
static void test_hulls_rest_on_plane_and_sleep(void **state)
{
    (void)state;
    rng_state = seed_of_run() ^ 0x51ED270Bu;
    for (int trial = 0; trial < 8; trial++) {
        world_with_ground(&W);
        qp_vec3 p[QP_HULL_MAX_POINTS];
        int n;
        if (trial == 0) {
            p[0] = v3d(-0.4, 0, -0.3), p[1] = v3d(0.4, 0, -0.3), p[2] = v3d(0, 0, 0.45), p[3] = v3d(0, 0.6, 0);
            n = 4;
        } else if (trial == 1) {
            n = cube_points(p, 0.3, 0.3, 0.3, qp_v3_zero());
        } else {
            n = trial == 7 ? 64 : 4 + (int)(rng() % 61);
            cloud_points(p, n, urand(0.15, 0.6));
        }
        assert_int_equal(qp_hull_build(p, n, &H[0]), QP_OK);
        qp_body_id id = add_hull(&W, &H[0], v3d(0, 1.5, 0), rand_quat(), QP_BODY_DYNAMIC);
        run(&W, 600);
        double low = lowest_y(&W, id, &H[0]);
        if (qp_body_is_awake(&W, id) || low < -0.01 || low > 0.01)
            fail_msg("trial %d (%d points): awake %d, lowest point %.4f m", trial, n, qp_body_is_awake(&W, id), low);
    }
}

/* A cube hull and a box of the same size dropped the same way end up in the same place. */
static void test_cube_hull_moves_as_box(void **state)
{
    (void)state;
    qp_vec3 p[8];
    cube_points(p, 0.4, 0.2, 0.3, qp_v3_zero());
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    qp_quat rot;
    assert_true(qp_quat_from_axis_angle(v3d(1, 0.3, 0.2), f16(0.5), &rot));
    world_with_ground(&W);
    world_with_ground(&W2);
    qp_body_id a = add_hull(&W, &H[0], v3d(0, 1.2, 0), rot, QP_BODY_DYNAMIC);
    qp_body_id b = add_box(&W2, v3d(0.4, 0.2, 0.3), v3d(0, 1.2, 0), rot, QP_BODY_DYNAMIC);
    assert_int_equal(qp_body_mass(&W, a), qp_body_mass(&W2, b));
    for (int i = 0; i < 240; i++) {
        qp_world_step(&W);
        qp_world_step(&W2);
    }
    qp_vec3 pa = qp_body_position(&W, a), pb = qp_body_position(&W2, b);
    double d = sqrt(pow(d16(pa.x) - d16(pb.x), 2) + pow(d16(pa.y) - d16(pb.y), 2) + pow(d16(pa.z) - d16(pb.z), 2));
    if (d > 0.02) fail_msg("cube hull %.4f %.4f %.4f, box %.4f %.4f %.4f", d16(pa.x), d16(pa.y), d16(pa.z), d16(pb.x), d16(pb.y), d16(pb.z));
    assert_true(fabs(d16(pa.y) - 0.2) < 0.01);
}

/* Hulls rest on a static box and on a dynamic box, and sleep. */
static void test_hull_rests_on_boxes(void **state)
{
    (void)state;
    world_with_ground(&W);
    add_box(&W, v3d(2, 0.5, 2), v3d(0, 0.5, 0), qp_quat_identity(), QP_BODY_STATIC);
    qp_body_id box = add_box(&W, v3d(0.5, 0.25, 0.5), v3d(3, 0.25, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
    qp_vec3 p[QP_HULL_MAX_POINTS];
    rng_state = 777;
    int n = cloud_points(p, 24, 0.3);
    assert_int_equal(qp_hull_build(p, n, &H[0]), QP_OK);
    qp_quat tilt;
    assert_true(qp_quat_from_axis_angle(v3d(0, 0, 1), f16(0.3), &tilt));
    qp_body_id h1 = add_hull(&W, &H[0], v3d(0, 1.8, 0), tilt, QP_BODY_DYNAMIC);
    qp_body_id h2 = add_hull(&W, &H[0], v3d(3, 1.4, 0), tilt, QP_BODY_DYNAMIC);
    run(&W, 900);
    assert_false(qp_body_is_awake(&W, h1));
    assert_false(qp_body_is_awake(&W, h2));
    assert_false(qp_body_is_awake(&W, box));
    assert_true(fabs(lowest_y(&W, h1, &H[0]) - 1.0) < 0.01);
    assert_true(fabs(lowest_y(&W, h2, &H[0]) - 0.5) < 0.01);
}

/* Five hexagonal prisms stacked stand, and sleep. */
static void test_hull_stack_of_five(void **state)
{
    (void)state;
    qp_vec3 p[12];
    for (int k = 0; k < 6; k++) {
        double a = k * M_PI / 3;
        p[k] = v3d(0.4 * cos(a), -0.15, 0.4 * sin(a));
        p[k + 6] = v3d(0.4 * cos(a), 0.15, 0.4 * sin(a));
    }
    assert_int_equal(qp_hull_build(p, 12, &H[0]), QP_OK);
    assert_int_equal(H[0].face_count, 8);
    world_with_ground(&W);
    qp_body_id ids[5];
    for (int i = 0; i < 5; i++) ids[i] = add_hull(&W, &H[0], v3d(0.01 * i, 0.15 + 0.3 * i + 0.01 * i, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
    run(&W, 900);
    for (int i = 0; i < 5; i++) {
        qp_vec3 x = qp_body_position(&W, ids[i]);
        assert_false(qp_body_is_awake(&W, ids[i]));
        if (fabs(d16(x.y) - (0.15 + 0.3 * i)) > 0.01 || fabs(d16(x.x) - 0.01 * i) > 0.03)
            fail_msg("hull %d at %.4f %.4f", i, d16(x.x), d16(x.y));
    }
}

/* Spheres and capsules rest on a static hull slab. */
static void test_round_shapes_rest_on_hull(void **state)
{
    (void)state;
    qp_vec3 p[8];
    cube_points(p, 3, 0.5, 3, qp_v3_zero());
    p[4].x = f16(3.5);   /* not quite a box: a slanted side */
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(&W, &wd), QP_OK);
    add_hull(&W, &H[0], v3d(0, 0.5, 0), qp_quat_identity(), QP_BODY_STATIC);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    d.position = v3d(-1, 2, 0);
    assert_int_equal(qp_make_sphere(f16(0.3), &d.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id ball = qp_create_body(&W, &d, &r);
    assert_int_equal(qp_make_capsule(f16(0.2), f16(0.5), &d.shapes[0]), QP_OK);
    d.position = v3d(1, 2, 0);
    assert_true(qp_quat_from_axis_angle(v3d(0, 0, 1), f16(1.5707963), &d.rotation));
    qp_body_id cap = qp_create_body(&W, &d, &r);
    assert_int_equal(r, QP_OK);
    run(&W, 600);
    assert_false(qp_body_is_awake(&W, ball));
    assert_false(qp_body_is_awake(&W, cap));
    assert_true(fabs(d16(qp_body_position(&W, ball).y) - 1.3) < 0.01);
    assert_true(fabs(d16(qp_body_position(&W, cap).y) - 1.2) < 0.01);
}

/* A sphere or capsule beside a hull's corner, outside it: the manifold has the true gap and
 * the direction from the corner (the face planes alone would put it closer, along a face). */
static void test_round_near_hull_corner(void **state)
{
    (void)state;
    qp_vec3 p[8];
    cube_points(p, 0.5, 0.5, 0.5, qp_v3_zero());
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    qp_shape hull, ball, cap;
    assert_int_equal(qp_make_hull(&H[0], &hull), QP_OK);
    assert_int_equal(qp_make_sphere(f16(0.2), &ball), QP_OK);
    assert_int_equal(qp_make_capsule(f16(0.1), f16(0.3), &cap), QP_OK);
    rng_state = 99;
    for (int i = 0; i < 50; i++) {
        double d[3];
        urand3(d, 0.2, 1);
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), gap = urand(0.001, 0.03);
        for (int k = 0; k < 3; k++) d[k] /= l;
        /* The ball's centre off the (+,+,+) corner; the hull at -centre in the ball's frame. */
        qp_transform hx = { v3d(-(0.5 + d[0] * (0.2 + gap)), -(0.5 + d[1] * (0.2 + gap)), -(0.5 + d[2] * (0.2 + gap))),
                            qp_quat_to_rot3(qp_quat_identity()) };
        qp_manifold m;
        int n = qp_collide(&ball, &hull, &hx, f16(0.04), &m);
        assert_int_equal(n, 1);
        assert_true(fabs(d16(m.points[0].depth) + gap) < 2e-4);
        double dn = -(m.normal.x * d[0] + m.normal.y * d[1] + m.normal.z * d[2]) / Q30;   /* normal: ball to hull */
        assert_true(dn > 0.999);
        /* A capsule across that direction (its axis t perpendicular to d), its middle off the
         * corner the same way: the hull in the capsule's frame. */
        double t[3] = { d[1], -d[0], 0 };
        double tl = sqrt(t[0] * t[0] + t[1] * t[1]);
        t[0] /= tl, t[1] /= tl;
        double ax[3] = { t[2], 0, -t[0] }, ang = acos(t[1]);   /* y x t, and the angle from y */
        qp_quat q;
        assert_true(qp_quat_from_axis_angle(v3d(ax[0], ax[1] + 1e-9, ax[2]), f16(ang), &q));
        qp_transform cx = { v3d(0.5 + d[0] * (0.1 + gap), 0.5 + d[1] * (0.1 + gap), 0.5 + d[2] * (0.1 + gap)),
                            qp_quat_to_rot3(q) };
        qp_transform id = { qp_v3_zero(), qp_quat_to_rot3(qp_quat_identity()) };
        qp_transform ch = qp_transform_relative(&cx, &id);
        n = qp_collide(&cap, &hull, &ch, f16(0.04), &m);
        assert_true(n >= 1);
        double deepest = -1;
        for (int k = 0; k < n; k++)
            if (d16(m.points[k].depth) > deepest) deepest = d16(m.points[k].depth);
        assert_true(deepest <= -gap + 2e-3);
    }
}

/* A compound of two hulls (a dumbbell of cubes on a bar) rests on its two ends. */
static void test_hulls_in_compound(void **state)
{
    (void)state;
    qp_vec3 p[8];
    cube_points(p, 0.2, 0.2, 0.2, v3d(-0.6, 0, 0));
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    cube_points(p, 0.2, 0.2, 0.2, v3d(0.6, 0, 0));
    assert_int_equal(qp_hull_build(p, 8, &H[1]), QP_OK);
    world_with_ground(&W);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 3;
    d.position = v3d(0, 1, 0);
    assert_int_equal(qp_make_hull(&H[0], &d.shapes[0]), QP_OK);
    assert_int_equal(qp_make_hull(&H[1], &d.shapes[1]), QP_OK);
    assert_int_equal(qp_make_box(v3d(0.4, 0.05, 0.05), &d.shapes[2]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(&W, &d, &r);
    assert_int_equal(r, QP_OK);
    run(&W, 600);
    assert_false(qp_body_is_awake(&W, id));
    assert_true(fabs(d16(qp_body_position(&W, id).y) - 0.2) < 0.01);
    assert_true(fabs(d16(qp_body_position(&W, id).x)) < 0.01);
}

/* A kinematic hull platform carries a box on it. */
static void test_kinematic_hull_carries(void **state)
{
    (void)state;
    qp_vec3 p[8];
    cube_points(p, 1, 0.1, 1, qp_v3_zero());
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    qp_world_def wd = qp_default_world_def();
    assert_int_equal(qp_world_init(&W, &wd), QP_OK);
    qp_body_id lift = add_hull(&W, &H[0], v3d(0, 1, 0), qp_quat_identity(), QP_BODY_KINEMATIC);
    qp_body_id box = add_box(&W, v3d(0.2, 0.2, 0.2), v3d(0, 1.3, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
    run(&W, 60);
    assert_int_equal(qp_body_set_linear_velocity(&W, lift, v3d(0, 0.5, 0)), QP_OK);
    run(&W, 120);
    double top = d16(qp_body_position(&W, lift).y) + 0.1;
    assert_true(fabs(d16(qp_body_position(&W, lift).y) - 2.0) < 0.01);
    assert_true(fabs(d16(qp_body_position(&W, box).y) - (top + 0.2)) < 0.01);
}

/* The pool holds QP_CFG_MAX_HULLS hulls; one more is refused and changes nothing; a body
 * destroyed gives its hull's entry back; two worlds built alike hash alike. */
static void test_pool_and_hash(void **state)
{
    (void)state;
    qp_vec3 p[8];
    cube_points(p, 0.2, 0.2, 0.2, qp_v3_zero());
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    world_with_ground(&W);
    qp_body_id first = qp_null_body();
    for (int i = 0; i < QP_CFG_MAX_HULLS; i++) {
        qp_body_id id = add_hull(&W, &H[0], v3d(i, 0.2, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
        if (i == 0) first = id;
    }
    memcpy(&W2, &W, sizeof W);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    assert_int_equal(qp_make_hull(&H[0], &d.shapes[0]), QP_OK);
    qp_result r;
    assert_true(qp_body_id_is_null(qp_create_body(&W, &d, &r)));
    assert_int_equal(r, QP_ERR_FULL);
    assert_memory_equal(&W, &W2, sizeof W);
    assert_int_equal(qp_destroy_body(&W, first), QP_OK);
    assert_false(qp_body_id_is_null(qp_create_body(&W, &d, &r)));
    /* The same scene in another world (other addresses): the same hash. */
    qp_world *a = &W, *b = &W2;
    world_with_ground(a);
    world_with_ground(b);
    for (int i = 0; i < 3; i++) {
        add_hull(a, &H[0], v3d(i, 1, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
        add_hull(b, &H[0], v3d(i, 1, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
    }
    run(a, 30);
    run(b, 30);
    assert_int_equal(qp_world_hash(a), qp_world_hash(b));
}

/* Scene lines: a `hull` body and a compound with a `part hull` load, rest and sleep like the
 * same bodies made through the API (the same hash); a bad hull line leaves the world as it
 * was. */
static void test_scene_hull_lines(void **state)
{
    (void)state;
    const char *text = "world gravity 0 -10 0 hz 60 sleep on\n"
                       "plane\n"
                       "hull points -0.3 0 -0.3  0.3 0 -0.3  0 0 0.3  0 0.5 0  0 0.1 0 pos 0 1 0 rot 0 0 1 30 density 400\n"
                       "compound pos 2 1 0\n"
                       "  part hull points -0.2 -0.2 -0.2  0.2 -0.2 -0.2  0 0.3 0  0 -0.2 0.3 at -0.5 0 0\n"
                       "  part box half 0.3 0.05 0.05 at 0 0 0\n"
                       "end\n";
    qp_scene_info info;
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&W, text, strlen(text), &info, &err), QP_OK);
    assert_int_equal(info.bodies, 3);
    assert_int_equal(info.shapes, 4);
    /* The same through the API. */
    qp_world_def wd = qp_default_world_def();
    wd.gravity = qp_v3(0, QP_INT(-10), 0);
    assert_int_equal(qp_world_init(&W2, &wd), QP_OK);
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]), QP_OK);
    qp_result r;
    qp_create_body(&W2, &g, &r);
    qp_vec3 p[5] = { v3d(-0.3, 0, -0.3), v3d(0.3, 0, -0.3), v3d(0, 0, 0.3), v3d(0, 0.5, 0), v3d(0, 0.1, 0) };
    assert_int_equal(qp_hull_build(p, 5, &H[0]), QP_OK);
    assert_int_equal(H[0].vert_count, 4);   /* the fifth point is inside */
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    d.position = v3d(0, 1, 0);
    d.density = QP_INT(400);
    assert_true(qp_quat_from_axis_angle(v3d(0, 0, 1), qp_deg_to_rad(QP_INT(30)), &d.rotation));
    assert_int_equal(qp_make_hull(&H[0], &d.shapes[0]), QP_OK);
    qp_create_body(&W2, &d, &r);
    assert_int_equal(r, QP_OK);
    qp_vec3 q[4] = { v3d(-0.2, -0.2, -0.2), v3d(0.2, -0.2, -0.2), v3d(0, 0.3, 0), v3d(0, -0.2, 0.3) };
    assert_int_equal(qp_hull_build(q, 4, &H[1]), QP_OK);
    qp_body_def c = qp_default_body_def();
    c.shape_count = 2;
    c.position = v3d(2, 1, 0);
    assert_int_equal(qp_make_hull(&H[1], &c.shapes[0]), QP_OK);
    c.shapes[0].offset = v3d(-0.5, 0, 0);
    assert_int_equal(qp_make_box(v3d(0.3, 0.05, 0.05), &c.shapes[1]), QP_OK);
    qp_create_body(&W2, &c, &r);
    assert_int_equal(r, QP_OK);
    assert_int_equal(qp_world_hash(&W), qp_world_hash(&W2));
    run(&W, 400);
    run(&W2, 400);
    assert_int_equal(qp_world_hash(&W), qp_world_hash(&W2));
    for (int i = 1; i < 3; i++) assert_false(qp_body_is_awake(&W, qp_scene_body(&W, i)));
    /* A bad line: the world stays as it was. */
    memcpy(&W2, &W, sizeof W);
    const char *bad = "plane\nhull points 0 0 0 1 0 0 0 1 0 2 2 0 pos 0 1 0\n";
    assert_int_equal(qp_scene_load(&W, bad, strlen(bad), &info, &err), QP_ERR_RANGE);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 6);
    assert_memory_equal(&W, &W2, sizeof W);
}

static unsigned char snap_a[1 << 20], snap_b[1 << 20];

/* A world of hulls (a full pool: singles and a compound) saved and restored into another
 * world and into itself (a rollback) goes on with the same hashes, step by step, and saves
 * to the same bytes. */
static void test_snapshot_restores_hulls(void **state)
{
    (void)state;
    rng_state = 4242;
    world_with_ground(&W);
    qp_vec3 p[QP_HULL_MAX_POINTS];
    for (int i = 0; i < QP_CFG_MAX_HULLS - 2; i++) {
        int n = cloud_points(p, 4 + (int)(rng() % 61), 0.3);
        assert_int_equal(qp_hull_build(p, n, &H[0]), QP_OK);
        add_hull(&W, &H[0], v3d(i % 4 - 1.5, 0.5 + 0.7 * (i / 4), 0), rand_quat(), QP_BODY_DYNAMIC);
    }
    cube_points(p, 0.2, 0.2, 0.2, v3d(-0.6, 0, 0));
    assert_int_equal(qp_hull_build(p, 8, &H[0]), QP_OK);
    cube_points(p, 0.2, 0.2, 0.2, v3d(0.6, 0, 0));
    assert_int_equal(qp_hull_build(p, 8, &H[1]), QP_OK);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 2;
    d.position = v3d(0, 4, 1);
    assert_int_equal(qp_make_hull(&H[0], &d.shapes[0]), QP_OK);
    assert_int_equal(qp_make_hull(&H[1], &d.shapes[1]), QP_OK);
    qp_result r;
    assert_false(qp_body_id_is_null(qp_create_body(&W, &d, &r)));
    run(&W, 40);
    unsigned long n = qp_world_snapshot(&W, snap_a, sizeof snap_a);
    assert_true(n > 0 && n <= QP_SNAPSHOT_MAX_SIZE && n < sizeof snap_a);
    world_with_ground(&W2);
    add_box(&W2, v3d(1, 1, 1), v3d(5, 1, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
    assert_int_equal(qp_world_restore(&W2, snap_a, n), QP_OK);
    assert_int_equal(qp_world_hash(&W2), qp_world_hash(&W));
    assert_int_equal(qp_world_snapshot(&W2, snap_b, sizeof snap_b), n);
    assert_memory_equal(snap_a, snap_b, n);
    for (int i = 0; i < 120; i++) {
        qp_world_step(&W);
        qp_world_step(&W2);
        assert_int_equal(qp_world_hash(&W2), qp_world_hash(&W));
    }
    uint32_t later = qp_world_hash(&W);
    assert_int_equal(qp_world_restore(&W, snap_a, n), QP_OK);   /* rollback into a full pool */
    run(&W, 120);
    assert_int_equal(qp_world_hash(&W), later);
}

/* An input log of hull bodies made through the API (a cloud of 64 points, a compound of two
 * hulls), created at several steps and one destroyed, replays into a fresh world to the same
 * hash at every step; a log whose hull corner is moved inside the hull (not a corner) is
 * refused as damaged, the world byte for byte as it was. */
static unsigned char log_buf[1 << 16];

static void test_input_log_hulls(void **state)
{
    (void)state;
    static qp_input_log log;
    uint32_t hashes[90];
    rng_state = 31337;
    qp_vec3 p[QP_HULL_MAX_POINTS];
    int n = cloud_points(p, 64, 0.4);
    assert_int_equal(qp_hull_build(p, n, &H[0]), QP_OK);
    cube_points(p, 0.2, 0.2, 0.2, v3d(0.4, 0, 0));
    assert_int_equal(qp_hull_build(p, 8, &H[1]), QP_OK);
    world_with_ground(&W);
    assert_int_equal(qp_input_log_init(&log, log_buf, sizeof log_buf), QP_OK);
    qp_world_set_input_log(&W, &log);
    qp_body_id gone = qp_null_body();
    for (int s = 0; s < 90; s++) {
        if (s % 30 == 0) {
            gone = add_hull(&W, &H[0], v3d(s / 30, 2, 0), rand_quat(), QP_BODY_DYNAMIC);
            qp_body_def d = qp_default_body_def();
            d.shape_count = 2;
            d.position = v3d(s / 30, 3, 1);
            assert_int_equal(qp_make_hull(&H[1], &d.shapes[0]), QP_OK);
            assert_int_equal(qp_make_hull(&H[0], &d.shapes[1]), QP_OK);
            qp_result r;
            assert_false(qp_body_id_is_null(qp_create_body(&W, &d, &r)));
        }
        if (s == 50) assert_int_equal(qp_destroy_body(&W, gone), QP_OK);
        qp_world_step(&W);
        hashes[s] = qp_world_hash(&W);
    }
    qp_world_set_input_log(&W, NULL);
    assert_int_equal(log.lost, 0);
    world_with_ground(&W2);
    unsigned long at = 0;
    for (int s = 0; s < 90; s++) {
        assert_int_equal(qp_input_replay_step(&W2, log_buf, log.len, &at, NULL), QP_OK);
        qp_world_step(&W2);
        assert_int_equal(qp_world_hash(&W2), hashes[s]);
    }
    /* The first hull's first corner moved to the hull's centre: not a corner any more. */
    world_with_ground(&W2);
    memcpy(&W, &W2, sizeof W);
    unsigned long first = 9 + 79 + 1 + 12 + 16 + 1;   /* header, def, type, offset, rotation, count */
    for (int k = 0; k < 3; k++) {
        const fix16_t c = (&H[0].center.x)[k];
        for (int b = 0; b < 4; b++) log_buf[first + 4 * k + b] = (unsigned char)((uint32_t)c >> (8 * b));
    }
    at = 0;
    assert_int_equal(qp_input_replay_step(&W2, log_buf, log.len, &at, NULL), QP_ERR_BUFFER);
    assert_memory_equal(&W2, &W, sizeof W);
}

/* CRC-32 (IEEE, reflected), as snapshot.c writes it. */
static uint32_t crc32_of(const unsigned char *p, unsigned long n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned long i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* Hostile hull snapshots: random bytes of a snapshot of hulls edited and its CRC made right,
 * so that only restore's checks stand between them and the engine. Each restore either
 * succeeds or is refused (QP_ERR_BUFFER, QP_ERR_FULL, QP_ERR_PARAM) leaving the target byte for byte as it
 * was, and a restored world steps (make test runs this under ASan and UBSan). */
static void test_snapshot_hostile_hulls(void **state)
{
    (void)state;
    const char *text = "plane\n"
                       "hull points -0.3 0 -0.3  0.3 0 -0.3  0 0 0.3  0 0.5 0 pos 0 1 0\n"
                       "hull points -0.2 -0.2 -0.2  0.2 -0.2 -0.2  -0.2 0.2 -0.2  0.2 0.2 -0.2  -0.2 -0.2 0.2  0.2 -0.2 0.2"
                       "  -0.2 0.2 0.2  0.2 0.2 0.2 pos 1 2 0 rot 1 1 0 30\n";
    assert_int_equal(qp_scene_load(&W, text, strlen(text), NULL, NULL), QP_OK);
    run(&W, 20);
    const unsigned long n = qp_world_snapshot(&W, snap_a, sizeof snap_a);
    rng_state = seed_of_run() ^ 0xC0FFEEu;
    int refused = 0, accepted = 0;
    for (int trial = 0; trial < 3000; trial++) {
        memcpy(snap_b, snap_a, n);
        int edits = 1 + (int)(rng() % 3);
        for (int e = 0; e < edits; e++) {
            unsigned long at = 24 + rng() % (n - 24);
            snap_b[at] = (unsigned char)(rng() & 1 ? rng() : snap_b[at] ^ (1u << (rng() % 8)));
        }
        const uint32_t crc = crc32_of(snap_b + 16, n - 16);
        for (int k = 0; k < 4; k++) snap_b[12 + k] = (unsigned char)(crc >> (8 * k));
        world_with_ground(&W2);
        add_box(&W2, v3d(1, 1, 1), v3d(5, 1, 0), qp_quat_identity(), QP_BODY_DYNAMIC);
        static qp_world keep;
        memcpy(&keep, &W2, sizeof W2);
        qp_result r = qp_world_restore(&W2, snap_b, n);
        if (r == QP_OK) {
            accepted++;
            run(&W2, 2);
        } else {
            /* QP_ERR_PARAM: an edit made a shape a mesh or heightfield this world does not hold. */
            assert_true(r == QP_ERR_BUFFER || r == QP_ERR_FULL || r == QP_ERR_PARAM);
            assert_memory_equal(&W2, &keep, sizeof W2);
            refused++;
        }
    }
    assert_true(refused > 2000);
    (void)accepted;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_cube_merges_faces),
        cmocka_unit_test(test_build_tetrahedron),
        cmocka_unit_test(test_build_refuses_degenerate),
        cmocka_unit_test(test_build_random_clouds),
        cmocka_unit_test(test_mass_cube_hull_equals_box),
        cmocka_unit_test(test_mass_tetrahedron),
        cmocka_unit_test(test_raycast_against_brute_force),
        cmocka_unit_test(test_hulls_rest_on_plane_and_sleep),
        cmocka_unit_test(test_cube_hull_moves_as_box),
        cmocka_unit_test(test_hull_rests_on_boxes),
        cmocka_unit_test(test_hull_stack_of_five),
        cmocka_unit_test(test_round_shapes_rest_on_hull),
        cmocka_unit_test(test_round_near_hull_corner),
        cmocka_unit_test(test_hulls_in_compound),
        cmocka_unit_test(test_kinematic_hull_carries),
        cmocka_unit_test(test_pool_and_hash),
        cmocka_unit_test(test_snapshot_restores_hulls),
        cmocka_unit_test(test_scene_hull_lines),
        cmocka_unit_test(test_snapshot_hostile_hulls),
        cmocka_unit_test(test_input_log_hulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
