/* SPDX-License-Identifier: MIT */
/* Level geometry: static triangle meshes and heightfields.
 *   - bad input refused with the documented result (empty, zero area, non-manifold, range,
 *     buffer), and nothing written;
 *   - a box sliding and a ball rolling across a floor of many triangles keep |vy| < 1 cm/s
 *     (no bumps on the seams), as on a plane;
 *   - a ball rolling down a heightfield slope reaches the analytic speed
 *     5/7 g (sin(theta) - c cos(theta)) t, c its rolling resistance (the default), within 1 %;
 *   - boxes dropped on a curved heightfield (a dome) come to rest and sleep: none rocks on
 *     a crease or creeps down the slope; in the demo levels (level, hulls_level) every box
 *     and hull comes to rest and sleeps within 20 s;
 *   - ray casts on a 100 352-triangle mesh (and a heightfield) give the hit that testing
 *     every triangle gives, bit for bit, and a double-precision reference's within 1 mm;
 *   - a snapshot restores onto the same mesh and continues with the same hashes, and is
 *     refused over a different mesh;
 *   - the car (ray-cast wheels) drives over a heightfield of bumps: its wheels stay on the
 *     ground, it keeps upright and straight, and covers the distance it covers on a plane
 *     within 10 %;
 *   - an input log names a created level body's geometry by checksum, never by address:
 *     the same mesh built at two addresses logs the same bytes, the replay creates the body
 *     on the world's own mesh, and a world without that mesh fails the entry cleanly. */
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

#include "qphys/car.h"
#include "qphys/collide.h"
#include "qphys/hash.h"
#include "qphys/mesh.h"
#include "qphys/record.h"
#include "qphys/scene.h"
#include "qphys/world.h"
#include "obj.h"

static qp_world world, twin;

static qp_vec3 fv(double x, double y, double z) { return qp_v3(f16(x), f16(y), f16(z)); }

/* A flat floor at y = 0 of n x n square cells of side s, centred on the origin, each cut
 * into two triangles (alternate diagonals, so seams run along x, z and both diagonals). */
#define FLOOR_N 24
static qp_vec3 floor_v[(FLOOR_N + 1) * (FLOOR_N + 1)];
static uint32_t floor_i[FLOOR_N * FLOOR_N * 6];
static unsigned char floor_mem[QP_MESH_MEMORY_SIZE(FLOOR_N * FLOOR_N * 2)] __attribute__((aligned(8)));
static qp_mesh floor_mesh;

static uint32_t grid_mesh(qp_vec3 *v, uint32_t *idx, int n, double s, double (*height)(int, int))
{
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++)
            v[i * (n + 1) + j] = fv((j - n / 2.0) * s, height ? height(i, j) : 0, (i - n / 2.0) * s);
    uint32_t t = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t a = (uint32_t)(i * (n + 1) + j), b = a + 1, c = a + (uint32_t)(n + 1), d = c + 1;
            /* counter-clockwise seen from +y: a (x, z), c (x, z + s), d (x + s, z + s), b (x + s, z) */
            if ((i + j) % 2) {
                uint32_t q[6] = { a, c, d, a, d, b };
                memcpy(idx + 3 * t, q, sizeof q);
            } else {
                uint32_t q[6] = { a, c, b, b, c, d };
                memcpy(idx + 3 * t, q, sizeof q);
            }
            t += 2;
        }
    return t;
}

static void make_floor(void)
{
    uint32_t n = grid_mesh(floor_v, floor_i, FLOOR_N, 1.0, NULL);
    long bad;
    assert_int_equal(qp_mesh_build(&floor_mesh, floor_v, (FLOOR_N + 1) * (FLOOR_N + 1), floor_i, n, floor_mem,
                                   sizeof floor_mem, &bad), QP_OK);
}

static qp_body_id add_static(qp_world *w, const qp_shape *s, qp_vec3 pos)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.friction = QP_FRAC(1, 10);
    d.position = pos;
    d.shape_count = 1;
    d.shapes[0] = *s;
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_body_id add_dynamic(qp_world *w, const qp_shape *s, qp_vec3 pos, qp_vec3 vel, qp_vec3 spin, fix16_t friction)
{
    qp_body_def d = qp_default_body_def();
    d.position = pos;
    d.linear_velocity = vel;
    d.angular_velocity = spin;
    d.friction = friction;
    d.shape_count = 1;
    d.shapes[0] = *s;
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static void init_world(qp_world *w)
{
    qp_world_def def = qp_default_world_def();
    def.sleep_enabled = false;
    assert_int_equal(qp_world_init(w, &def), QP_OK);
}

/* ---- validation --------------------------------------------------------------------- */

static void test_mesh_refuses_bad_input(void **state)
{
    (void)state;
    static qp_vec3 v[5];
    static unsigned char mem[QP_MESH_MEMORY_SIZE(3)] __attribute__((aligned(8)));
    v[0] = fv(0, 0, 0), v[1] = fv(0, 0, 1), v[2] = fv(1, 0, 0), v[3] = fv(0, 1, 0), v[4] = fv(0, -1, 0);
    qp_mesh m, before;
    memset(&m, 0x5A, sizeof m);
    before = m;
    long bad = 0;
    uint32_t ok[3] = { 0, 1, 2 };
    assert_int_equal(qp_mesh_build(&m, v, 5, ok, 0, mem, sizeof mem, &bad), QP_ERR_PARAM);   /* empty */
    uint32_t past[3] = { 0, 1, 5 };
    assert_int_equal(qp_mesh_build(&m, v, 5, past, 1, mem, sizeof mem, &bad), QP_ERR_PARAM);
    assert_int_equal(bad, 0);
    uint32_t flat[6] = { 0, 1, 2, 0, 0, 2 };   /* second triangle: two equal corners */
    assert_int_equal(qp_mesh_build(&m, v, 5, flat, 2, mem, sizeof mem, &bad), QP_ERR_PARAM);
    assert_int_equal(bad, 1);
    static qp_vec3 line[3];
    line[0] = fv(0, 0, 0), line[1] = fv(1, 0, 0), line[2] = fv(2, 0, 0);   /* collinear: zero area */
    assert_int_equal(qp_mesh_build(&m, line, 3, ok, 1, mem, sizeof mem, &bad), QP_ERR_PARAM);
    assert_int_equal(bad, 0);
    /* Edge 0-2 shared by three triangles: non-manifold. */
    uint32_t fan[9] = { 0, 1, 2, 2, 3, 0, 0, 4, 2 };
    assert_int_equal(qp_mesh_build(&m, v, 5, fan, 3, mem, sizeof mem, &bad), QP_ERR_PARAM);
    assert_true(bad >= 0);
    static qp_vec3 far[3];
    far[0] = fv(0, 0, 0), far[1] = fv(0, 0, 1), far[2] = fv(2049, 0, 0);
    assert_int_equal(qp_mesh_build(&m, far, 3, ok, 1, mem, sizeof mem, &bad), QP_ERR_RANGE);
    assert_int_equal(qp_mesh_build(&m, v, 5, ok, 1, mem, qp_mesh_memory_size(1) - 1, &bad), QP_ERR_BUFFER);
    assert_memory_equal(&m, &before, sizeof m);   /* nothing written on any error */
    uint32_t two[6] = { 0, 1, 2, 2, 1, 3 };
    assert_int_equal(qp_mesh_build(&m, v, 5, two, 2, mem, sizeof mem, &bad), QP_OK);
    qp_shape s;
    assert_int_equal(qp_make_mesh_shape(&m, &s), QP_OK);
    /* Level shapes are static only. */
    init_world(&world);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    d.shapes[0] = s;
    qp_result r;
    assert_true(qp_body_is_valid(&world, qp_create_body(&world, &d, &r)) == false);
    assert_int_equal(r, QP_ERR_PARAM);
}

static void test_heightfield_refuses_bad_input(void **state)
{
    (void)state;
    static fix16_t h[16];
    qp_heightfield f;
    assert_int_equal(qp_heightfield_init(&f, h, 1, 16, QP_ONE), QP_ERR_PARAM);
    assert_int_equal(qp_heightfield_init(&f, NULL, 4, 4, QP_ONE), QP_ERR_PARAM);
    assert_int_equal(qp_heightfield_init(&f, h, 4, 4, 0), QP_ERR_RANGE);
    assert_int_equal(qp_heightfield_init(&f, h, 4, 4, QP_INT(101)), QP_ERR_RANGE);
    assert_int_equal(qp_heightfield_init(&f, h, 4, 4, QP_INT(100)), QP_OK);
    h[5] = QP_INT(3000);
    assert_int_equal(qp_heightfield_init(&f, h, 4, 4, QP_ONE), QP_ERR_RANGE);
    h[5] = 0;
    assert_int_equal(qp_heightfield_init(&f, h, 4, 4, QP_ONE), QP_OK);
}

/* ---- no bumps on seams ----------------------------------------------------------------- */

/* Largest |vy| of body b over `steps` steps. */
static double max_vy(qp_world *w, qp_body_id b, int steps)
{
    double worst = 0;
    for (int i = 0; i < steps; i++) {
        qp_world_step(w);
        double vy = fabs(d16(qp_body_linear_velocity(w, b).y));
        worst = vy > worst ? vy : worst;
    }
    return worst;
}

/* A box (or a ball) launched across the floor (mesh or plane) for `steps` steps: the largest
 * |vy| and the last position. */
static double launch(const qp_shape *floor, const qp_shape *body, qp_vec3 pos, qp_vec3 vel, qp_vec3 spin, int steps,
                     qp_vec3 *end, double *max_dy)
{
    init_world(&world);
    add_static(&world, floor, qp_v3_zero());
    qp_body_id b = add_dynamic(&world, body, pos, vel, spin, QP_FRAC(1, 10));
    double vy = 0, dy = 0;
    for (int i = 0; i < steps; i++) {
        vy = fmax(vy, max_vy(&world, b, 1));
        dy = fmax(dy, fabs(d16(qp_body_position(&world, b).y) - d16(pos.y)));
    }
    *end = qp_body_position(&world, b);
    *max_dy = dy;
    return vy;
}

static void test_box_slides_over_seams(void **state)
{
    (void)state;
    make_floor();
    qp_shape fl, plane, box;
    assert_int_equal(qp_make_mesh_shape(&floor_mesh, &fl), QP_OK);
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &plane), QP_OK);
    assert_int_equal(qp_make_box(fv(0.5, 0.5, 0.5), &box), QP_OK);
    qp_vec3 on_mesh, on_plane;
    double dy, dy_plane;
    double vy = launch(&fl, &box, fv(-8, 0.5, -3.3), fv(5, 0, 2), qp_v3_zero(), 150, &on_mesh, &dy);
    launch(&plane, &box, fv(-8, 0.5, -3.3), fv(5, 0, 2), qp_v3_zero(), 150, &on_plane, &dy_plane);
    print_message("box: max |vy| %.5f m/s, |y - 0.5| %.5f m, stops at x %.3f z %.3f (on a plane: %.3f %.3f)\n", vy, dy,
                  d16(on_mesh.x), d16(on_mesh.z), d16(on_plane.x), d16(on_plane.z));
    assert_true(d16(on_mesh.x) > 0);   /* slid over 8 cells and 30 seams */
    assert_true(vy < 0.01);
    assert_true(dy < 0.002);
    assert_true(fabs(d16(on_mesh.x) - d16(on_plane.x)) < 0.01 && fabs(d16(on_mesh.z) - d16(on_plane.z)) < 0.01);
}

static void test_ball_rolls_over_seams(void **state)
{
    (void)state;
    make_floor();
    qp_shape fl, plane, ball;
    assert_int_equal(qp_make_mesh_shape(&floor_mesh, &fl), QP_OK);
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &plane), QP_OK);
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 2), &ball), QP_OK);
    /* Rolling along (4, 0, 1.5): spin = up x v / r. */
    qp_vec3 on_mesh, on_plane;
    double dy, dy_plane;
    double vy = launch(&fl, &ball, fv(-8, 0.5, -3.1), fv(4, 0, 1.5), fv(3, 0, -8), 180, &on_mesh, &dy);
    launch(&plane, &ball, fv(-8, 0.5, -3.1), fv(4, 0, 1.5), fv(3, 0, -8), 180, &on_plane, &dy_plane);
    print_message("ball: max |vy| %.5f m/s, max |y - r| %.5f m, at x %.3f z %.3f (on a plane: %.3f %.3f)\n", vy, dy,
                  d16(on_mesh.x), d16(on_mesh.z), d16(on_plane.x), d16(on_plane.z));
    assert_true(d16(on_mesh.x) > 2);
    assert_true(vy < 0.01);
    assert_true(dy < 0.002);
    assert_true(fabs(d16(on_mesh.x) - d16(on_plane.x)) < 0.01 && fabs(d16(on_mesh.z) - d16(on_plane.z)) < 0.01);
}

/* ---- heightfield slope ------------------------------------------------------------------ */

#define SLOPE_ROWS 5
#define SLOPE_COLS 61
static fix16_t slope_h[SLOPE_ROWS * SLOPE_COLS];
static qp_heightfield slope;

static void test_ball_rolls_down_heightfield(void **state)
{
    (void)state;
    const double theta = 10 * M_PI / 180, t = 2.0, r = 0.5;
    for (int i = 0; i < SLOPE_ROWS; i++)
        for (int j = 0; j < SLOPE_COLS; j++) slope_h[i * SLOPE_COLS + j] = f16(-j * tan(theta));
    assert_int_equal(qp_heightfield_init(&slope, slope_h, SLOPE_ROWS, SLOPE_COLS, QP_ONE), QP_OK);
    init_world(&world);
    qp_shape hs, ball;
    assert_int_equal(qp_make_heightfield_shape(&slope, &hs), QP_OK);
    add_static(&world, &hs, fv(0, 20, -2));
    assert_int_equal(qp_make_sphere(f16(r), &ball), QP_OK);
    /* Resting on the slope at x = 3.3 (between grid lines), touching. */
    double x0 = 3.3;
    double px = x0 + r * sin(theta), py = 20 - x0 * tan(theta) + r * cos(theta);
    qp_body_id b = add_dynamic(&world, &ball, fv(px, py, 0.2), qp_v3_zero(), qp_v3_zero(), QP_FRAC(1, 2));
    int steps = (int)(t * 60 + 0.5);
    for (int i = 0; i < steps; i++) qp_world_step(&world);
    qp_vec3 v = qp_body_linear_velocity(&world, b);
    double speed = sqrt(d16(v.x) * d16(v.x) + d16(v.y) * d16(v.y) + d16(v.z) * d16(v.z));
    const double c = d16(QP_ROUND_ROLLING_RESISTANCE);   /* the ball's default */
    double want = 10 * (sin(theta) - c * cos(theta)) * 5.0 / 7.0 * t;
    print_message("slope: speed %.4f m/s after %.1f s, analytic %.4f (%.3f %%)\n", speed, t, want,
                  100 * (speed - want) / want);
    assert_true(fabs(speed - want) < 0.01 * want);
}

/* ---- bodies at rest on curved terrain --------------------------------------------------------- */

#define DOME_N 17   /* 16 x 16 cells of 1 m */
static fix16_t dome_h[DOME_N * DOME_N];
static qp_heightfield dome;

/* Boxes of 0.6-1.4 m by 0.5-1.1 m dropped 0.8 m onto a dome (height 3 - 0.03 r^2 m, rippled
 * by 2 cm; slopes up to 15 degrees, inside the friction cone of 0.6 on 0.7) at 40 places
 * and headings: every box sleeps by 20 s and none moves 1 cm or more from 5 s to 20 s. A
 * box standing on a crease or a vertex of the triangles keeps the points it stands on from
 * step to step (collide_triangle.c), so it neither rocks nor creeps down. */
static void test_boxes_rest_on_curved_heightfield(void **state)
{
    (void)state;
    for (int i = 0; i < DOME_N; i++)
        for (int j = 0; j < DOME_N; j++)
            dome_h[i * DOME_N + j] = f16(3 - 0.03 * ((i - 8) * (i - 8) + (j - 8) * (j - 8)) + 0.02 * sin(i * 1.7 + j * 0.9));
    assert_int_equal(qp_heightfield_init(&dome, dome_h, DOME_N, DOME_N, QP_ONE), QP_OK);
    int restless = 0;
    double worst = 0;
    for (int k = 0; k < 40; k++) {
        qp_world_def def = qp_default_world_def();
        assert_int_equal(qp_world_init(&world, &def), QP_OK);
        qp_body_def g = qp_default_body_def();
        g.type = QP_BODY_STATIC;
        g.friction = f16(0.7);
        g.position = fv(-8, 0, -8);
        g.shape_count = 1;
        assert_int_equal(qp_make_heightfield_shape(&dome, &g.shapes[0]), QP_OK);
        qp_result r;
        qp_create_body(&world, &g, &r);
        assert_int_equal(r, QP_OK);
        double angle = k * 2.399963, radius = 1.5 + (k % 5) * 0.6;
        double x = radius * cos(angle), z = radius * sin(angle);
        qp_body_def b = qp_default_body_def();
        b.position = fv(x, 3.8 - 0.03 * (x * x + z * z), z);
        assert_true(qp_quat_from_axis_angle(qp_v3(0, QP_ONE, 0), f16(k * 0.7), &b.rotation));
        b.mass = QP_ONE;
        b.friction = f16(0.6);
        b.shape_count = 1;
        assert_int_equal(qp_make_box(fv(0.3 + 0.2 * ((k / 3) % 3), 0.2 + 0.1 * (k % 2), 0.25 + 0.15 * ((k / 2) % 3)),
                                     &b.shapes[0]), QP_OK);
        qp_body_id id = qp_create_body(&world, &b, &r);
        assert_int_equal(r, QP_OK);
        for (int s = 0; s < 300; s++) qp_world_step(&world);
        qp_vec3 p0 = qp_body_center(&world, id);
        for (int s = 300; s < 1200; s++) qp_world_step(&world);
        qp_vec3 p = qp_body_center(&world, id);
        double dx = d16(p.x - p0.x), dy = d16(p.y - p0.y), dz = d16(p.z - p0.z);
        double moved = sqrt(dx * dx + dy * dy + dz * dz);
        bool awake = qp_body_is_awake(&world, id);
        if (moved >= 0.01 || awake) {
            restless++;
            print_message("drop %d at (%.2f, %.2f): moved %.1f mm from 5 s to 20 s, %s\n", k, x, z, 1000 * moved,
                          awake ? "awake" : "asleep");
        }
        worst = fmax(worst, moved);
    }
    print_message("dome: 40 boxes, %d moved 1 cm or more or stayed awake, the most %.1f mm\n", restless, 1000 * worst);
    assert_int_equal(restless, 0);
}

/* A unit cube landing edge-first at 8-17 m/s, tilted 10-24 degrees (four landings of
 * bench_landings' seeds 20000-20005), on a flat heightfield of 5 m cells and on the 1 m cells
 * of the mesh floor, a cell corner under it. The face it lands with, clipped by each triangle,
 * gave points on the triangles' inner seams, which the reduction kept in place of the face's
 * corners, and no points past the margin: a corner went up to 6.6 cm into the heightfield and
 * 4.9 cm into the mesh. */
#define FLAT_N 9
static fix16_t flat_h[FLAT_N * FLAT_N];
static qp_heightfield flat;

static double deepest_corner(qp_body_id id)
{
    const qp_quat q = qp_body_rotation(&world, id);
    const double w = q.w / 1073741824.0, x = q.x / 1073741824.0, y = q.y / 1073741824.0, z = q.z / 1073741824.0;
    const double r1[3] = { 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) };
    return 0.5 * (fabs(r1[0]) + fabs(r1[1]) + fabs(r1[2])) - d16(qp_body_center(&world, id).y);
}

static void test_cube_landing_on_an_edge_stays_out_of_level(void **state)
{
    (void)state;
    static const double landing[4][4] = {   /* tilt (degrees), speed, sideways (m/s), spin (rad/s) */
        { 12.2, 8.42, 0.31, 0.22 }, { 23.8, 16.89, 1.09, 2.19 }, { 9.6, 14.13, -2.52, 0.17 }, { 21.2, 8.60, -1.73, 2.14 },
    };
    assert_int_equal(qp_heightfield_init(&flat, flat_h, FLAT_N, FLAT_N, QP_INT(5)), QP_OK);
    make_floor();
    qp_shape field, mesh, cube;
    assert_int_equal(qp_make_heightfield_shape(&flat, &field), QP_OK);
    assert_int_equal(qp_make_mesh_shape(&floor_mesh, &mesh), QP_OK);
    assert_int_equal(qp_make_box(fv(0.5, 0.5, 0.5), &cube), QP_OK);
    double worst = -1;
    for (int i = 0; i < 8; i++) {
        const double *l = landing[i % 4];
        init_world(&world);
        if (i < 4) add_static(&world, &field, fv(-20, 0, -20));
        else add_static(&world, &mesh, fv(0, 0, 0));
        qp_body_def b = qp_default_body_def();
        b.position = fv(0, 0.9, 0);
        b.linear_velocity = fv(0, -l[1], l[2]);
        b.angular_velocity = fv(l[3], 0, 0);
        b.friction = f16(0.5);
        assert_true(qp_quat_from_axis_angle(qp_v3(QP_ONE, 0, 0), f16(-l[0] * 3.14159265358979 / 180), &b.rotation));
        b.shape_count = 1;
        b.shapes[0] = cube;
        qp_result r;
        qp_body_id id = qp_create_body(&world, &b, &r);
        assert_int_equal(r, QP_OK);
        double deepest = -1;
        for (int s = 0; s < 120; s++) {
            qp_world_step(&world);
            deepest = fmax(deepest, deepest_corner(id));
        }
        printf("cube landing on an edge at %.1f m/s, tilted %.1f degrees, on the %s: deepest corner %.1f cm\n", l[1],
               l[0], i < 4 ? "heightfield" : "mesh", 100 * deepest);
        worst = fmax(worst, deepest);
    }
    assert_true(worst <= 0.02);
}

/* A unit cube (a box, and a hull of its corners) in any pose over flat level geometry, from
 * 2 cm above it to 40 cm into it, across the heightfield's 5 m cells by a cell corner and across
 * the mesh floor's 1 m cells: every point the plane gives (the four corners of the face turned to
 * it, those past the margin as gaps) is a point of the level's manifold too, at the same place
 * and depth. Two ways it failed. A triangle whose least overlap lay along a box axis at an inner
 * seam gave no points, and with the seams' own points left out, a cube pressed deep across a
 * seam lost the corners over it: one that the second of bench_landings' cubes pressed 17.7 cm
 * into a cell corner went on to 33.5 cm. And a triangle past the margin gave no gaps: a cube
 * tilted 1 degree over the cells past its landing edge was 2.3 cm from them along its own axis,
 * and a blow turned its far edge 13 cm into them, where the plane's far corners held it. */
static void test_cube_over_seams_keeps_the_planes_points(void **state)
{
    (void)state;
    make_floor();
    qp_shape field, mesh, cubes[2], plane;
    assert_int_equal(qp_heightfield_init(&flat, flat_h, FLAT_N, FLAT_N, QP_INT(5)), QP_OK);
    assert_int_equal(qp_make_heightfield_shape(&flat, &field), QP_OK);
    assert_int_equal(qp_make_mesh_shape(&floor_mesh, &mesh), QP_OK);
    assert_int_equal(qp_make_box(fv(0.5, 0.5, 0.5), &cubes[0]), QP_OK);
    static qp_hull hull;
    qp_vec3 corner[8];
    for (int k = 0; k < 8; k++) corner[k] = fv(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5);
    assert_int_equal(qp_hull_build(corner, 8, &hull), QP_OK);
    assert_int_equal(qp_make_hull(&hull, &cubes[1]), QP_OK);
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &plane), QP_OK);
    const fix16_t margin = QP_FRAC(2, 100);
    rng_state = 2718u;
    int points = 0, gaps = 0, missed = 0;
    for (int i = 0; i < 8000; i++) {
        const bool on_field = i % 2 == 0;
        const qp_shape *cube = &cubes[i / 2 % 2];
        qp_transform xf;
        xf.r = qp_quat_to_rot3(rand_quat());
        const double reach = 0.5 * (fabs(xf.r.m[1][0] / Q30) + fabs(xf.r.m[1][1] / Q30) + fabs(xf.r.m[1][2] / Q30));
        const double depth = urand(-0.02, 0.4), x = urand(-0.8, 0.8), z = urand(-0.8, 0.8);
        /* The heightfield's cell corner at (20, 20) of its own frame; the floor's seams everywhere. */
        xf.p = on_field ? fv(20 + x, reach - depth, 20 + z) : fv(3 * x, reach - depth, 3 * z);
        qp_manifold want, got;
        qp_collide(&plane, cube, &xf, margin, &want);
        qp_collide(on_field ? &field : &mesh, cube, &xf, margin, &got);
        for (int a = 0; a < want.count; a++) {
            points++;
            gaps += want.points[a].depth < -margin;
            bool found = false;
            for (int b = 0; b < got.count && !found; b++)
                found = abs(got.points[b].point.x - want.points[a].point.x) <= QP_FRAC(2, 1000) &&
                        abs(got.points[b].point.z - want.points[a].point.z) <= QP_FRAC(2, 1000) &&
                        abs(got.points[b].depth - want.points[a].depth) <= QP_FRAC(1, 1000);
            if (!found && missed++ < 5)
                print_message("%s, %s: point (%.3f, %.3f) %.1f cm deep missing, %d points\n",
                              cube->type == QP_SHAPE_BOX ? "box" : "hull", on_field ? "heightfield" : "mesh",
                              d16(want.points[a].point.x), d16(want.points[a].point.z),
                              100 * d16(want.points[a].depth), got.count);
        }
    }
    print_message("cubes over seams: %d of the plane's %d points (%d gaps) missing\n", missed, points, gaps);
    assert_true(points > 20000 && gaps > 2000);
    assert_int_equal(missed, 0);
}

/* The demo levels (tests/scenes): every body that cannot roll (boxes, hulls) has come to rest
 * and slept by step 1 200 (20 s); a ball rolling by may wake it later. Balls and capsules
 * may roll on (their rolling resistance c holds them still on slopes under c radians only). */
static void expect_unrollable_asleep(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s (run the tests from the repository root)", path);
    static char text[1 << 16];
    unsigned long len = (unsigned long)fread(text, 1, sizeof text, f);
    fclose(f);
    assert_true(len > 0 && len < sizeof text);
    qp_scene_info info;
    qp_scene_error err;
    qp_result r = qp_scene_load_level(&world, text, len, &info, &err, obj_level_store(path, text, len));
    if (r != QP_OK) fail_msg("%s:%d:%d: %s", path, err.line, err.column, err.message);
    static bool slept[64];
    assert_true(info.bodies <= 64);
    memset(slept, 0, sizeof slept);
    for (int s = 0; s < 1200; s++) {
        qp_world_step(&world);
        for (int i = 0; i < info.bodies; i++) slept[i] = slept[i] || !qp_body_is_awake(&world, qp_scene_body(&world, i));
    }
    int awake = 0, checked = 0;
    for (int i = 0; i < info.bodies; i++) {
        qp_body_id id = qp_scene_body(&world, i);
        qp_shape_type t = qp_body_shape(&world, id, 0)->type;
        if (qp_body_get_type(&world, id) != QP_BODY_DYNAMIC || (t != QP_SHAPE_BOX && t != QP_SHAPE_HULL)) continue;
        checked++;
        if (!slept[i]) {
            qp_vec3 v = qp_body_linear_velocity(&world, id);
            print_message("%s: body %d never slept in 20 s, moving at %.1f mm/s\n", path, i,
                          1000 * sqrt(d16(v.x) * d16(v.x) + d16(v.y) * d16(v.y) + d16(v.z) * d16(v.z)));
            awake++;
        }
    }
    print_message("%s: %d of %d boxes and hulls never slept in 20 s\n", path, awake, checked);
    assert_true(checked > 0);
    assert_int_equal(awake, 0);
}

static void test_level_scenes_come_to_rest(void **state)
{
    (void)state;
    expect_unrollable_asleep("tests/scenes/level.scene");
    expect_unrollable_asleep("tests/scenes/hulls_level.scene");
}

/* ---- the car -------------------------------------------------------------------------------- */

#define BUMP_N 61   /* 60 x 60 cells of 1 m */
static fix16_t bump_h[BUMP_N * BUMP_N];
static qp_heightfield bump_field;

/* The car from rest at full throttle for 3 s on ground g (a heightfield or a plane): the
 * distance it went along +z; *least_wheels the fewest wheels on the ground in a step after
 * the first second, *max_tilt the largest angle of its up axis from +y, *drift its x. */
static double drive_car(const qp_shape *g, double y0, int *least_wheels, double *max_tilt, double *drift)
{
    init_world(&world);
    add_static(&world, g, qp_v3_zero());
    static qp_car car;
    qp_car_def cd = qp_default_car_def();
    cd.position = fv(30, y0 + 1.2, 8);
    assert_int_equal(qp_car_create(&world, &cd, &car), QP_OK);
    assert_int_equal(qp_car_set_input(&car, QP_FRAC(1, 2), 0, 0), QP_OK);
    *least_wheels = QP_CAR_WHEELS;
    *max_tilt = 0;
    for (int s = 0; s < 180; s++) {
        assert_int_equal(qp_car_update(&world, &car), QP_OK);
        qp_world_step(&world);
        int on = 0;
        for (int k = 0; k < QP_CAR_WHEELS; k++) on += car.wheels[k].contact;
        if (s >= 60 && on < *least_wheels) *least_wheels = on;
        qp_rot3 r = qp_quat_to_rot3(qp_body_rotation(&world, car.chassis));
        double tilt = acos(fmin(1.0, r.m[1][1] / Q30));
        if (tilt > *max_tilt) *max_tilt = tilt;
    }
    qp_vec3 p = qp_body_position(&world, car.chassis);
    *drift = d16(p.x) - 30;
    return d16(p.z) - 8;
}

static void test_car_drives_over_heightfield(void **state)
{
    (void)state;
    /* Gentle bumps, 5 cm high, 10 m apart along the way; a 2 cm ripple across it. */
    for (int i = 0; i < BUMP_N; i++)
        for (int j = 0; j < BUMP_N; j++)
            bump_h[i * BUMP_N + j] = f16(0.05 * sin(i * 2 * M_PI / 10) + 0.02 * sin(j * 0.9));
    assert_int_equal(qp_heightfield_init(&bump_field, bump_h, BUMP_N, BUMP_N, QP_ONE), QP_OK);
    qp_shape hs, plane;
    assert_int_equal(qp_make_heightfield_shape(&bump_field, &hs), QP_OK);
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &plane), QP_OK);
    int wheels, plane_wheels;
    double tilt, drift, plane_tilt, plane_drift;
    double on_plane = drive_car(&plane, 0, &plane_wheels, &plane_tilt, &plane_drift);
    double on_bumps = drive_car(&hs, 0.05, &wheels, &tilt, &drift);
    print_message("car, 3 s at half throttle: %.2f m over the bumps (plane %.2f m), at least %d wheels down, tilt up "
                  "to %.2f deg, %.3f m sideways\n", on_bumps, on_plane, wheels, tilt * 180 / M_PI, drift);
    assert_int_equal(plane_wheels, QP_CAR_WHEELS);
    assert_int_equal(wheels, QP_CAR_WHEELS);
    assert_true(tilt < 3 * M_PI / 180);
    assert_true(fabs(drift) < 0.2);
    assert_true(on_bumps > 10 && fabs(on_bumps - on_plane) < 0.1 * on_plane);
}

/* ---- ray casts ----------------------------------------------------------------------------- */

#define BIG_N 224   /* 224 x 224 cells, 100 352 triangles */
static qp_vec3 big_v[(BIG_N + 1) * (BIG_N + 1)];
static uint32_t big_i[BIG_N * BIG_N * 6];
static unsigned char big_mem[QP_MESH_MEMORY_SIZE(BIG_N * BIG_N * 2)] __attribute__((aligned(8)));

static double bumps(int i, int j)
{
    return 0.8 * sin(i * 0.37) * cos(j * 0.23) + 0.3 * sin(i * 1.7 + j * 2.3);
}

typedef struct {
    qp_vec3 o, u;
    fix16_t len;
    bool hit;
    fix16_t dist;
    uint32_t tri;
    qp_vec3 n;
} brute;

static int brute_visit(void *ctx, const qp_level_triangle *t)
{
    brute *b = ctx;
    fix16_t d;
    qp_vec3 n;
    if (qp_raycast_triangle(t, b->o, b->u, b->len, &d, &n) &&
        (!b->hit || d < b->dist || (d == b->dist && t->index < b->tri))) {
        b->hit = true;
        b->dist = d;
        b->tri = t->index;
        b->n = n;
    }
    return 0;
}

/* Double-precision distance along the ray to triangle t's plane inside it, or -1. */
static double ref_hit(const qp_level_triangle *t, double o[3], double u[3])
{
    double a[3] = { d16(t->v[0].x), d16(t->v[0].y), d16(t->v[0].z) }, b[3] = { d16(t->v[1].x), d16(t->v[1].y), d16(t->v[1].z) },
           c[3] = { d16(t->v[2].x), d16(t->v[2].y), d16(t->v[2].z) };
    double e1[3], e2[3], p[3], q[3], s[3];
    for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = o[k] - a[k];
    p[0] = u[1] * e2[2] - u[2] * e2[1], p[1] = u[2] * e2[0] - u[0] * e2[2], p[2] = u[0] * e2[1] - u[1] * e2[0];
    double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (fabs(det) < 1e-12) return -1;
    double bu = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
    q[0] = s[1] * e1[2] - s[2] * e1[1], q[1] = s[2] * e1[0] - s[0] * e1[2], q[2] = s[0] * e1[1] - s[1] * e1[0];
    double bv = (u[0] * q[0] + u[1] * q[1] + u[2] * q[2]) / det;
    if (bu < 0 || bv < 0 || bu + bv > 1) return -1;
    return (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
}

static void check_rays(const qp_shape *s, int rays, double span, int *hits)
{
    rng_state = 777u;
    *hits = 0;
    for (int k = 0; k < rays; k++) {
        double o[3], e[3];
        urand3(o, -span, span);
        urand3(e, -span, span);
        o[1] = urand(2, 6);
        e[1] = urand(-4, 1);
        qp_vec3 fo = fv(o[0], o[1], o[2]), d = qp_v3_sub(fv(e[0], e[1], e[2]), fo), u;
        assert_true(qp_v3_normalize_q30(d, &u));
        fix16_t len = qp_v3_len(d);
        fix16_t dist = 0;
        qp_vec3 n;
        uint32_t tri = 0;
        bool hit = qp_level_raycast(s, fo, u, len, &dist, &n, &tri);
        brute b = { fo, u, len, false, 0, 0, qp_v3_zero() };
        qp_aabb all = { fv(-3000, -3000, -3000), fv(3000, 3000, 3000) };
        qp_level_query(s, &all, brute_visit, &b);
        assert_int_equal(hit, b.hit);
        if (!hit) continue;
        (*hits)++;
        assert_int_equal(dist, b.dist);
        assert_int_equal(tri, b.tri);
        assert_memory_equal(&n, &b.n, sizeof n);
    }
}

static int find_visit(void *ctx, const qp_level_triangle *t)
{
    qp_level_triangle *want = ctx;
    if (t->index != want->index) return 0;
    *want = *t;
    return 1;
}

static void test_raycast_mesh_exact(void **state)
{
    (void)state;
    uint32_t n = grid_mesh(big_v, big_i, BIG_N, 0.5, bumps);
    assert_int_equal(n, 100352);
    qp_mesh m;
    long bad;
    assert_int_equal(qp_mesh_build(&m, big_v, (BIG_N + 1) * (BIG_N + 1), big_i, n, big_mem, sizeof big_mem, &bad),
                     QP_OK);
    qp_shape s;
    assert_int_equal(qp_make_mesh_shape(&m, &s), QP_OK);
    int hits;
    check_rays(&s, 300, 50, &hits);
    print_message("mesh: %d of 300 rays hit, every one as testing all 100352 triangles\n", hits);
    assert_true(hits > 100);
    /* Against double precision: the hit distance on the triangle hit. */
    rng_state = 99u;
    int checked = 0;
    for (int k = 0; k < 200; k++) {
        double o[3] = { urand(-40, 40), 5, 0 }, u[3] = { urand(-0.3, 0.3), -1, urand(-0.3, 0.3) };
        o[2] = urand(-40, 40);
        double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int a = 0; a < 3; a++) u[a] /= l;
        qp_vec3 fu;
        assert_true(qp_v3_normalize_q30(fv(u[0], u[1], u[2]), &fu));
        fix16_t dist;
        qp_vec3 nn;
        uint32_t tri;
        if (!qp_level_raycast(&s, fv(o[0], o[1], o[2]), fu, QP_INT(20), &dist, &nn, &tri)) continue;
        qp_level_triangle t;
        t.index = tri;
        qp_aabb all = { fv(-3000, -3000, -3000), fv(3000, 3000, 3000) };
        qp_level_query(&s, &all, find_visit, &t);
        double oo[3] = { d16(f16(o[0])), d16(f16(o[1])), d16(f16(o[2])) };
        double uu[3] = { fu.x / Q30, fu.y / Q30, fu.z / Q30 };
        double ref = ref_hit(&t, oo, uu);
        if (ref < 0) continue;   /* within the edge tolerance of a neighbour: the other is right */
        assert_true(fabs(ref - d16(dist)) < 0.001);
        checked++;
    }
    assert_true(checked > 150);
}

#define HF_N 100
static fix16_t hf_h[HF_N * HF_N];

static void test_raycast_heightfield_exact(void **state)
{
    (void)state;
    for (int i = 0; i < HF_N; i++)
        for (int j = 0; j < HF_N; j++) hf_h[i * HF_N + j] = f16(bumps(i, j));
    qp_heightfield f;
    assert_int_equal(qp_heightfield_init(&f, hf_h, HF_N, HF_N, QP_FRAC(1, 2)), QP_OK);
    qp_shape s;
    assert_int_equal(qp_make_heightfield_shape(&f, &s), QP_OK);
    int hits;
    rng_state = 4242u;
    check_rays(&s, 300, 55, &hits);
    print_message("heightfield: %d of 300 rays hit, every one as testing all cells\n", hits);
    assert_true(hits > 50);
}

/* ---- snapshots -------------------------------------------------------------------------------- */

static unsigned char snap[1 << 16];

static void test_snapshot_refers_to_mesh(void **state)
{
    (void)state;
    make_floor();
    qp_shape fl, box;
    assert_int_equal(qp_make_mesh_shape(&floor_mesh, &fl), QP_OK);
    assert_int_equal(qp_make_box(fv(0.5, 0.5, 0.5), &box), QP_OK);
    init_world(&world);
    add_static(&world, &fl, qp_v3_zero());
    add_dynamic(&world, &box, fv(0, 2, 0), fv(1, 0, 0), fv(0, 1, 0), QP_FRAC(1, 2));
    for (int i = 0; i < 40; i++) qp_world_step(&world);
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0 && n < 2000);   /* the mesh is not in it */
    /* A tool sizes a world to a snapshot before restoring it, with no mesh at hand yet. */
    qp_world_caps need;
    assert_int_equal(qp_snapshot_caps(snap, n, &need), QP_OK);
    assert_int_equal(need.bodies, 2);
    uint32_t want[30];
    for (int i = 0; i < 30; i++) {
        qp_world_step(&world);
        want[i] = qp_world_hash(&world);
    }
    /* The same floor: restored, the same hashes. */
    init_world(&twin);
    add_static(&twin, &fl, qp_v3_zero());
    assert_int_equal(qp_world_restore(&twin, snap, n), QP_OK);
    for (int i = 0; i < 30; i++) {
        qp_world_step(&twin);
        assert_int_equal(qp_world_hash(&twin), want[i]);
    }
    /* Another floor (one vertex moved by 1 mm): refused, the world untouched. */
    static qp_vec3 moved[(FLOOR_N + 1) * (FLOOR_N + 1)];
    static unsigned char mem2[sizeof floor_mem] __attribute__((aligned(8)));
    memcpy(moved, floor_v, sizeof moved);
    moved[7].y += f16(0.001);
    qp_mesh other;
    long bad;
    assert_int_equal(qp_mesh_build(&other, moved, (FLOOR_N + 1) * (FLOOR_N + 1), floor_i, FLOOR_N * FLOOR_N * 2, mem2,
                                   sizeof mem2, &bad), QP_OK);
    assert_true(other.checksum != floor_mesh.checksum);
    qp_shape os;
    assert_int_equal(qp_make_mesh_shape(&other, &os), QP_OK);
    init_world(&twin);
    add_static(&twin, &os, qp_v3_zero());
    uint32_t h0 = qp_world_hash(&twin);
    assert_int_equal(qp_world_restore(&twin, snap, n), QP_ERR_PARAM);
    assert_int_equal(qp_world_hash(&twin), h0);
}

/* A world holding `holds`, then logging the creation of a static body on mesh m. */
static unsigned long log_level_create(qp_world *w, const qp_shape *holds, const qp_mesh *m, unsigned char *buf,
                                      unsigned long size)
{
    init_world(w);
    add_static(w, holds, fv(0, -5, 0));
    qp_input_log log;
    assert_int_equal(qp_input_log_init(&log, buf, size), QP_OK);
    qp_world_set_input_log(w, &log);
    qp_shape s;
    assert_int_equal(qp_make_mesh_shape(m, &s), QP_OK);
    add_static(w, &s, fv(1, 0, 2));
    qp_world_set_input_log(w, NULL);
    assert_int_equal(log.count, 1);
    return log.len;
}

static void test_input_log_names_mesh_by_checksum(void **state)
{
    (void)state;
    make_floor();
    /* The same triangles built again elsewhere: another address, the same checksum. */
    static unsigned char mem2[sizeof floor_mem] __attribute__((aligned(8)));
    static qp_vec3 v2[(FLOOR_N + 1) * (FLOOR_N + 1)];
    static uint32_t i2[FLOOR_N * FLOOR_N * 6];
    memcpy(v2, floor_v, sizeof v2);
    memcpy(i2, floor_i, sizeof i2);
    qp_mesh copy;
    long bad;
    assert_int_equal(qp_mesh_build(&copy, v2, (FLOOR_N + 1) * (FLOOR_N + 1), i2, FLOOR_N * FLOOR_N * 2, mem2,
                                   sizeof mem2, &bad), QP_OK);
    assert_int_equal(copy.checksum, floor_mesh.checksum);
    static unsigned char log_a[256], log_b[256];
    qp_shape fl, cs;
    assert_int_equal(qp_make_mesh_shape(&floor_mesh, &fl), QP_OK);
    assert_int_equal(qp_make_mesh_shape(&copy, &cs), QP_OK);
    unsigned long na = log_level_create(&world, &fl, &floor_mesh, log_a, sizeof log_a);
    unsigned long nb = log_level_create(&twin, &cs, &copy, log_b, sizeof log_b);
    assert_int_equal(na, nb);
    assert_memory_equal(log_a, log_b, na);
    uint32_t want = qp_world_hash(&world);
    /* Replayed into a world holding the copy: the body is made on the copy, same hash. */
    init_world(&twin);
    add_static(&twin, &cs, fv(0, -5, 0));
    unsigned long at = 0;
    qp_input_info info;
    assert_int_equal(qp_input_replay_step(&twin, log_a, na, &at, &info), QP_OK);
    assert_int_equal(at, na);
    assert_ptr_equal(qp_body_shape(&twin, info.got, 0)->mesh, &copy);
    assert_int_equal(qp_world_hash(&twin), want);
    /* Replayed into a world without that mesh: the entry fails, nothing created. */
    init_world(&twin);
    uint32_t empty = qp_world_hash(&twin);
    at = 0;
    assert_int_equal(qp_input_replay_step(&twin, log_a, na, &at, &info), QP_ERR_PARAM);
    assert_int_equal(qp_world_hash(&twin), empty);
    /* The same entry made dynamic (the body type follows the 9-byte entry header): not a
     * well-formed entry, refused before anything is looked up. */
    log_a[9] = (unsigned char)QP_BODY_DYNAMIC;
    at = 0;
    assert_int_equal(qp_input_replay_step(&twin, log_a, na, &at, &info), QP_ERR_BUFFER);
    assert_int_equal(qp_world_hash(&twin), empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_refuses_bad_input),
        cmocka_unit_test(test_heightfield_refuses_bad_input),
        cmocka_unit_test(test_box_slides_over_seams),
        cmocka_unit_test(test_ball_rolls_over_seams),
        cmocka_unit_test(test_ball_rolls_down_heightfield),
        cmocka_unit_test(test_boxes_rest_on_curved_heightfield),
        cmocka_unit_test(test_cube_landing_on_an_edge_stays_out_of_level),
        cmocka_unit_test(test_cube_over_seams_keeps_the_planes_points),
        cmocka_unit_test(test_level_scenes_come_to_rest),
        cmocka_unit_test(test_car_drives_over_heightfield),
        cmocka_unit_test(test_raycast_mesh_exact),
        cmocka_unit_test(test_raycast_heightfield_exact),
        cmocka_unit_test(test_snapshot_refers_to_mesh),
        cmocka_unit_test(test_input_log_names_mesh_by_checksum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
