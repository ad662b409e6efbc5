/* SPDX-License-Identifier: MIT */
/* Sleep and wake (docs/design.md §6; src/sleep.c; seed 000, Lengyel's three-point test).
 *
 * Every scene is built through the public API in static worlds; every test
 * prints its measured numbers (lines starting "[sleep]") and asserts them.
 *
 * 1. stack20, stack50, pyramid20 (docs/design.md §9): with the default world def
 *    (three-point policy) all asleep by step 180 and standing over 600 steps
 *    (top cube within 5 cm horizontally, sag < 2 cm; pyramid: no cube moves
 *    more than 5 cm), and still all asleep at step 600. The same with the
 *    energy policy (it meets "by 180" too, so that is asserted as well).
 * 2. Rotation in place never sleeps: a cube spinning about the vertical at
 *    1 rad/s on frictionless ground; a sphere spinning about x at 1 rad/s and
 *    at 0.05 rad/s on frictionless ground (C and C + x stay put, only C + y
 *    moves: the third point is what catches it). Energy policy reported.
 *    A turn counts by how fast the body's surface moves: a 10 m plank turning at
 *    0.008 rad/s and a 5 cm ball spinning at 0.1 rad/s never sleep.
 * 3. A cube sliding at 2 cm/s on frictionless ground never sleeps (energy
 *    policy reported).
 * 4. Nothing is frozen mid-motion, checked against a twin world with sleep
 *    off: a lossless rocking weeble never sleeps; a ball rolling to and fro
 *    in a V valley sleeps only once the twin is still; a stack20 dropped
 *    onto itself (5 mm and 2 cm gaps) is not frozen while it sways.
 * 5. Removing the bottom cube of a sleeping stack20 wakes every cube at once
 *    and the stack falls.
 * 6. A cube thrown at a sleeping pyramid (base 8; four throws, up to 20 kg at
 *    20 m/s): what it hits wakes, and no sleeper ever floats; once the scene
 *    sleeps again every body rests on something (a collide-based support
 *    check, itself checked on known cases).
 * 7. A sleeping world costs nothing: no pairs, no awake bodies, and steps
 *    leave the state bit-identical.
 * 8. Wake rules: user calls wake the body and those above it; a woken body
 *    stays awake at least min_awake_steps; a slow touch (below wake_speed)
 *    does not wake a sleeper, a fast one does.
 * 9. Piles of 64 tumbling cubes come to rest: all asleep within 10 s, and with sleep
 *    off nine cubes in ten still (under 0.25 mm) from 5 s to 10 s.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "qphys/world.h"

static qp_world world, twin;

/* ---- helpers --------------------------------------------------------------------- */

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }

typedef struct { double x, y, z; } dv3;

static dv3 dvec(qp_vec3 v) { dv3 r = { D(v.x), D(v.y), D(v.z) }; return r; }
static double dist3(dv3 a, dv3 b) { return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)); }
static double dist_xz(dv3 a, dv3 b) { return sqrt((a.x - b.x) * (a.x - b.x) + (a.z - b.z) * (a.z - b.z)); }

static void init_world(qp_world *w, const qp_world_def *def)
{
    assert_int_equal(qp_world_init(w, def), QP_OK);
}

static qp_world_def world_def(qp_sleep_policy policy)
{
    qp_world_def def = qp_default_world_def();
    def.sleep_policy = policy;
    return def;
}

static qp_body_id add_ground(qp_world *w, double friction)
{
    qp_body_def b = qp_default_body_def();
    b.type = QP_BODY_STATIC;
    b.friction = F(friction);
    b.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &b.shapes[0]), QP_OK);
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(w, &b, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

/* A static plane through point p with the given normal (for the valley). */
static qp_body_id add_plane(qp_world *w, dv3 n, double offset, double friction)
{
    qp_body_def b = qp_default_body_def();
    b.type = QP_BODY_STATIC;
    b.friction = F(friction);
    b.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(F(n.x), F(n.y), F(n.z)), F(offset), &b.shapes[0]), QP_OK);
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(w, &b, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static qp_body_id add_body(qp_world *w, qp_body_def *b)
{
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(w, b, &err);
    assert_int_equal(err, QP_OK);
    assert_false(qp_body_id_is_null(id));
    return id;
}

/* A unit cube (docs/design.md §9: 1 kg, friction 0.5) centred at (x, y, z). */
static qp_body_id add_cube(qp_world *w, double x, double y, double z, double friction)
{
    qp_body_def b = qp_default_body_def();
    b.position = qp_v3(F(x), F(y), F(z));
    b.mass = QP_ONE;
    b.friction = F(friction);
    b.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
    return add_body(w, &b);
}

/* A 1 kg ball of rolling resistance `rolling` (its default when negative). */
static qp_body_id add_ball(qp_world *w, double x, double y, double z, double radius, double friction, double rolling)
{
    qp_body_def b = qp_default_body_def();
    if (rolling >= 0) b.rolling_resistance = F(rolling);
    b.position = qp_v3(F(x), F(y), F(z));
    b.mass = QP_ONE;
    b.friction = F(friction);
    b.shape_count = 1;
    assert_int_equal(qp_make_sphere(F(radius), &b.shapes[0]), QP_OK);
    return add_body(w, &b);
}

static qp_body_id add_sphere(qp_world *w, double x, double y, double z, double radius, double friction)
{
    return add_ball(w, x, y, z, radius, friction, -1);
}

#define MAX_SCENE 260

/* stack of n unit cubes, cube i centred at (0, 0.5 + i, 0); ids[0] is the bottom. */
static int build_stack(qp_world *w, int n, qp_body_id *ids)
{
    add_ground(w, 0.5);
    for (int i = 0; i < n; i++) ids[i] = add_cube(w, 0, 0.5 + i, 0, 0.5);
    return n;
}

/* pyramid wall: row r holds base - r cubes, cube k centred at x = k - (n - 1)/2, y = 0.5 + r. */
static int build_pyramid(qp_world *w, int base, qp_body_id *ids)
{
    add_ground(w, 0.5);
    int count = 0;
    for (int r = 0; r < base; r++) {
        int n = base - r;
        for (int k = 0; k < n; k++) ids[count++] = add_cube(w, k - (n - 1) / 2.0, 0.5 + r, 0, 0.5);
    }
    return count;
}

static int awake_count(const qp_world *w, const qp_body_id *ids, int n)
{
    int a = 0;
    for (int i = 0; i < n; i++) a += qp_body_is_awake(w, ids[i]);
    return a;
}

static bool all_asleep(const qp_world *w)
{
    qp_world_stats s = qp_world_get_stats(w);
    return s.awake == 0 && s.asleep > 0;
}

/* Step until every dynamic body sleeps (at most max steps); returns the steps taken or -1. */
static int settle(qp_world *w, int max)
{
    for (int s = 1; s <= max; s++) {
        qp_world_step(w);
        if (all_asleep(w)) return s;
    }
    return -1;
}

/* World-space rotation matrix of a body, as doubles. */
static void body_rot(const qp_world *w, qp_body_id id, double m[3][3])
{
    qp_rot3 r = qp_quat_to_rot3(qp_body_rotation(w, id));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m[i][j] = r.m[i][j] / 1073741824.0;
}

/* The point C + axis k of the body's rotation (Lengyel's test points). */
static dv3 body_axis_point(const qp_world *w, qp_body_id id, int k)
{
    double m[3][3];
    body_rot(w, id, m);
    dv3 c = dvec(qp_body_center(w, id));
    dv3 p = { c.x + m[0][k], c.y + m[1][k], c.z + m[2][k] };
    return p;
}

/* ---- 1. named scenes stand and sleep ------------------------------------------------ */

typedef struct {
    int first_asleep;      /* first all-asleep step, -1 if never */
    int awake_at_end;
    double top_dx;         /* max horizontal drift of the top cube, m */
    double top_sag;        /* max drop of the top cube, m */
    double max_move;       /* max displacement of any cube, m */
} scene_result;

static qp_body_id scene_ids[MAX_SCENE];
static dv3 scene_p0[MAX_SCENE];

/* kind 0: stack of n; kind 1: pyramid of base n. */
static scene_result run_scene(int kind, int n, qp_sleep_policy policy, int steps)
{
    qp_world_def def = world_def(policy);
    init_world(&world, &def);
    int count = kind == 0 ? build_stack(&world, n, scene_ids) : build_pyramid(&world, n, scene_ids);
    for (int i = 0; i < count; i++) scene_p0[i] = dvec(qp_body_position(&world, scene_ids[i]));
    qp_body_id top = scene_ids[count - 1];
    scene_result r = { -1, 0, 0, 0, 0 };
    for (int s = 1; s <= steps; s++) {
        qp_world_step(&world);
        dv3 p = dvec(qp_body_position(&world, top));
        double dx = dist_xz(p, scene_p0[count - 1]), sag = scene_p0[count - 1].y - p.y;
        if (dx > r.top_dx) r.top_dx = dx;
        if (sag > r.top_sag) r.top_sag = sag;
        for (int i = 0; i < count; i++) {
            double m = dist3(dvec(qp_body_position(&world, scene_ids[i])), scene_p0[i]);
            if (m > r.max_move) r.max_move = m;
        }
    }
    qp_world_stats st = qp_world_get_stats(&world);
    r.first_asleep = st.first_all_asleep_step;
    r.awake_at_end = st.awake;
    return r;
}

static const char *policy_name(qp_sleep_policy p) { return p == QP_SLEEP_ENERGY ? "energy" : "three-point"; }

static void check_scene(const char *name, int kind, int n, qp_sleep_policy policy)
{
    scene_result r = run_scene(kind, n, policy, 600);
    printf("[sleep] %-9s %-11s first all-asleep step %4d, awake at 600: %d, top drift %.4f m, "
           "top sag %.4f m, max cube move %.4f m\n",
           name, policy_name(policy), r.first_asleep, r.awake_at_end, r.top_dx, r.top_sag, r.max_move);
    if (kind == 0) {
        assert_true(r.top_dx < 0.05);
        assert_true(r.top_sag < 0.02);
    } else {
        assert_true(r.max_move < 0.05);
    }
    /* Asleep by 180 and still asleep at 600: required of the three-point
     * policy; met by the energy policy too on these scenes (30), so asserted. */
    assert_true(r.first_asleep > 0 && r.first_asleep <= 180);
    assert_int_equal(r.awake_at_end, 0);
}

/* stack20 as a hand would build it: each cube shifted by up to 1 cm in x and z
 * and turned by up to 1 degree about the vertical (8 seeded layouts, its own
 * generator: draws in a fixed order). Every layout stands (top cube within
 * 3 cm, no sag beyond 2 cm) and is all asleep by step 300 and at 600. */
static uint32_t jitter_state;
static double jitter(double amplitude)
{
    jitter_state = jitter_state * 1664525u + 1013904223u;
    return amplitude * ((jitter_state >> 8) / 8388608.0 - 1.0);
}

static void test_jittered_stack20_stands_and_sleeps(void **state)
{
    (void)state;
    const double pi = 3.14159265358979323846;
    double worst_dx = 0, worst_sag = 0;
    int worst_first = 0;
    for (uint32_t seed = 1; seed <= 8; seed++) {
        jitter_state = seed;
        qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
        init_world(&world, &def);
        add_ground(&world, 0.5);
        qp_body_id ids[20];
        for (int i = 0; i < 20; i++) {
            double x = jitter(0.01), z = jitter(0.01), half_angle = jitter(pi / 180) / 2;
            qp_body_def b = qp_default_body_def();
            b.position = qp_v3(F(x), F(0.5 + i), F(z));
            b.rotation.w = (qp_q30)lround(cos(half_angle) * 1073741824.0);
            b.rotation.y = (qp_q30)lround(sin(half_angle) * 1073741824.0);
            b.mass = QP_ONE;
            b.shape_count = 1;
            assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
            ids[i] = add_body(&world, &b);
        }
        dv3 top0 = dvec(qp_body_position(&world, ids[19]));
        double dx = 0, sag = 0;
        for (int s = 1; s <= 600; s++) {
            qp_world_step(&world);
            dv3 p = dvec(qp_body_position(&world, ids[19]));
            dx = fmax(dx, dist_xz(p, top0));
            sag = fmax(sag, top0.y - p.y);
        }
        qp_world_stats st = qp_world_get_stats(&world);
        printf("[sleep] jittered stack20 seed %u: first all-asleep step %d, awake at 600: %d, top drift %.4f m, "
               "top sag %.4f m\n", (unsigned)seed, st.first_all_asleep_step, st.awake, dx, sag);
        assert_true(st.first_all_asleep_step > 0 && st.first_all_asleep_step <= 300);
        assert_int_equal(st.awake, 0);
        assert_true(dx < 0.03);
        assert_true(sag < 0.02);
        worst_dx = fmax(worst_dx, dx);
        worst_sag = fmax(worst_sag, sag);
        if (st.first_all_asleep_step > worst_first) worst_first = st.first_all_asleep_step;
    }
    printf("[sleep] jittered stack20, 8 layouts: worst top drift %.4f m, sag %.4f m, last to sleep at step %d\n",
           worst_dx, worst_sag, worst_first);
}

static void test_stack20_three_point(void **state) { (void)state; check_scene("stack20", 0, 20, QP_SLEEP_THREE_POINT); }
static void test_stack50_three_point(void **state) { (void)state; check_scene("stack50", 0, 50, QP_SLEEP_THREE_POINT); }
static void test_pyramid20_three_point(void **state) { (void)state; check_scene("pyramid20", 1, 20, QP_SLEEP_THREE_POINT); }
static void test_stack20_energy(void **state) { (void)state; check_scene("stack20", 0, 20, QP_SLEEP_ENERGY); }
static void test_stack50_energy(void **state) { (void)state; check_scene("stack50", 0, 50, QP_SLEEP_ENERGY); }
static void test_pyramid20_energy(void **state) { (void)state; check_scene("pyramid20", 1, 20, QP_SLEEP_ENERGY); }

/* ---- 2. rotation in place never sleeps ------------------------------------------------ */

/* Steps 600 and returns the number of steps the body spent asleep. */
static int steps_asleep(qp_world *w, qp_body_id id, int steps)
{
    int asleep = 0;
    for (int s = 0; s < steps; s++) {
        qp_world_step(w);
        asleep += !qp_body_is_awake(w, id);
    }
    return asleep;
}

static void test_spinning_cube_never_sleeps(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    add_ground(&world, 0);
    qp_body_id cube = add_cube(&world, 0, 0.5, 0, 0);
    assert_int_equal(qp_body_set_angular_velocity(&world, cube, qp_v3(0, QP_ONE, 0)), QP_OK);
    dv3 p0 = dvec(qp_body_center(&world, cube));
    int asleep = steps_asleep(&world, cube, 600);
    dv3 p = dvec(qp_body_center(&world, cube));
    double wy = D(qp_body_angular_velocity(&world, cube).y);
    printf("[sleep] spinning cube (y, 1 rad/s): steps asleep %d/600, w.y at 600 %.4f rad/s, centre moved %.4f m\n",
           asleep, wy, dist3(p, p0));
    assert_int_equal(asleep, 0);
    assert_true(wy > 0.9);            /* it really kept spinning */
    assert_true(dist3(p, p0) < 0.01); /* in place */
}

static void spinning_sphere_x(double rate, qp_sleep_policy policy, int *asleep_out, double *moved_c,
                              double *moved_cx, double *moved_cy, double *wx_out)
{
    qp_world_def def = world_def(policy);
    init_world(&world, &def);
    add_ground(&world, 0);
    qp_body_id ball = add_ball(&world, 0, 0.5, 0, 0.5, 0, 0);   /* rolling 0: nothing slows its spin */
    /* Let it come to rest first (contact established), then spin it. */
    for (int s = 0; s < 10; s++) qp_world_step(&world);
    assert_int_equal(qp_body_set_angular_velocity(&world, ball, qp_v3(F(rate), 0, 0)), QP_OK);
    dv3 c0 = dvec(qp_body_center(&world, ball));
    dv3 x0 = body_axis_point(&world, ball, 0), y0 = body_axis_point(&world, ball, 1);
    double mc = 0, mx = 0, my = 0;
    int asleep = 0;
    for (int s = 0; s < 600; s++) {
        qp_world_step(&world);
        asleep += !qp_body_is_awake(&world, ball);
        double a = dist3(dvec(qp_body_center(&world, ball)), c0);
        double b = dist3(body_axis_point(&world, ball, 0), x0);
        double c = dist3(body_axis_point(&world, ball, 1), y0);
        if (a > mc) mc = a;
        if (b > mx) mx = b;
        if (c > my) my = c;
    }
    *asleep_out = asleep;
    *moved_c = mc;
    *moved_cx = mx;
    *moved_cy = my;
    *wx_out = D(qp_body_angular_velocity(&world, ball).x);
}

static void test_spinning_sphere_x_never_sleeps(void **state)
{
    (void)state;
    static const double rates[] = { 1.0, 0.05 };
    for (int k = 0; k < 2; k++) {
        int asleep;
        double mc, mx, my, wx;
        spinning_sphere_x(rates[k], QP_SLEEP_THREE_POINT, &asleep, &mc, &mx, &my, &wx);
        printf("[sleep] sphere spinning about x at %.2f rad/s (three-point): steps asleep %d/600, max move of "
               "C %.5f m, C+x %.5f m, C+y %.4f m, w.x at 600 %.4f\n", rates[k], asleep, mc, mx, my, wx);
        /* The construction: C and C + x stay inside the 1 cm boxes... */
        assert_true(mc < 0.01);
        assert_true(mx < 0.01);
        /* ...only C + y moves, and that must keep it awake. */
        assert_true(my > 0.05);
        assert_int_equal(asleep, 0);
        assert_true(fabs(wx - rates[k]) < 0.1 * rates[k]);
    }
    /* For comparison only: the energy policy at 0.05 rad/s (|w|^2 = 0.0025 < epsilon 0.01). */
    int asleep;
    double mc, mx, my, wx;
    spinning_sphere_x(0.05, QP_SLEEP_ENERGY, &asleep, &mc, &mx, &my, &wx);
    printf("[sleep] sphere spinning about x at 0.05 rad/s (energy, not asserted): steps asleep %d/600\n", asleep);
}

/* The off-centre points sit at the body's reach (src/sleep.c), so a turn counts by how fast the
 * body's surface moves. A 10 m plank turning at 0.008 rad/s on frictionless ground moves its
 * ends 4 cm/s: never asleep (points a metre from the centre moved 0.8 cm a second and let it
 * sleep). A 5 cm ball spinning at 0.1 rad/s: its reach is below the test's quarter-metre floor,
 * whose points move 2.5 cm/s: never asleep either. */
static int slow_turn_asleep(const qp_shape *shape, dv3 spin, double *rate_after)
{
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    add_ground(&world, 0);
    qp_body_def b = qp_default_body_def();
    b.position = qp_v3(0, shape->type == QP_SHAPE_BOX ? shape->half.y : shape->radius, 0);
    b.mass = QP_INT(10);
    b.friction = 0;
    b.rolling_resistance = 0;
    b.shape_count = 1;
    b.shapes[0] = *shape;
    qp_body_id id = add_body(&world, &b);
    for (int s = 0; s < 10; s++) qp_world_step(&world);
    assert_int_equal(qp_body_set_angular_velocity(&world, id, qp_v3(F(spin.x), F(spin.y), F(spin.z))), QP_OK);
    int asleep = steps_asleep(&world, id, 600);
    dv3 w = dvec(qp_body_angular_velocity(&world, id));
    *rate_after = sqrt(w.x * w.x + w.y * w.y + w.z * w.z);
    return asleep;
}

static void test_slow_turns_count_at_the_surface(void **state)
{
    (void)state;
    qp_shape plank, pebble;
    assert_int_equal(qp_make_box(qp_v3(QP_INT(5), F(0.1), F(0.25)), &plank), QP_OK);
    assert_int_equal(qp_make_sphere(F(0.05), &pebble), QP_OK);
    double rate;
    dv3 about_y = { 0, 0.008, 0 }, about_x = { 0.1, 0, 0 };
    int asleep = slow_turn_asleep(&plank, about_y, &rate);
    printf("[sleep] 10 m plank turning at 0.008 rad/s (ends 4 cm/s): steps asleep %d/600, turning at %.4f rad/s\n",
           asleep, rate);
    assert_int_equal(asleep, 0);
    assert_true(fabs(rate - 0.008) < 0.0008);
    asleep = slow_turn_asleep(&pebble, about_x, &rate);
    printf("[sleep] 5 cm ball spinning at 0.1 rad/s: steps asleep %d/600, spinning at %.4f rad/s\n", asleep, rate);
    assert_int_equal(asleep, 0);
    assert_true(fabs(rate - 0.1) < 0.01);
}

/* ---- 3. slow slide ------------------------------------------------------------------------ */

static void test_slow_slide_never_sleeps(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    add_ground(&world, 0);
    qp_body_id cube = add_cube(&world, 0, 0.5, 0, 0);
    for (int s = 0; s < 10; s++) qp_world_step(&world);
    assert_int_equal(qp_body_set_linear_velocity(&world, cube, qp_v3(QP_MM(20), 0, 0)), QP_OK);
    dv3 p0 = dvec(qp_body_center(&world, cube));
    int asleep = steps_asleep(&world, cube, 600);
    dv3 p = dvec(qp_body_center(&world, cube));
    double vx = D(qp_body_linear_velocity(&world, cube).x);
    printf("[sleep] cube sliding at 2 cm/s (three-point): steps asleep %d/600, travelled %.4f m (expected 0.2), "
           "v.x at 600 %.4f m/s\n", asleep, p.x - p0.x, vx);
    assert_int_equal(asleep, 0);
    assert_true(fabs((p.x - p0.x) - 0.2) < 0.01);

    /* For comparison only: the energy policy (|v|^2 = 0.0004 < epsilon 0.01). */
    def = world_def(QP_SLEEP_ENERGY);
    init_world(&world, &def);
    add_ground(&world, 0);
    cube = add_cube(&world, 0, 0.5, 0, 0);
    for (int s = 0; s < 10; s++) qp_world_step(&world);
    assert_int_equal(qp_body_set_linear_velocity(&world, cube, qp_v3(QP_MM(20), 0, 0)), QP_OK);
    asleep = steps_asleep(&world, cube, 600);
    printf("[sleep] cube sliding at 2 cm/s (energy, not asserted): steps asleep %d/600\n", asleep);
}

/* ---- 4. rocking is not frozen at a turning point ----------------------------------------------- */

/* The check: a twin world, built the same way but with sleep off. Both are
 * deterministic and bit-identical until the first step at which the
 * sleeping world puts a body to sleep (sleep bookkeeping alters nothing
 * before that; asserted). When the sleeping world's bodies are all asleep
 * at step s, the twin shows what they would have done: over the next 120
 * steps every body's C, C + x and C + y must stay within 1 cm of where they
 * were at step s (it really was at rest, not at a turning point), and over
 * the 60 steps before s they moved less than 1 cm too.
 *
 * The constructions (explained at each builder):
 * - a weeble rocking without loss: it must never sleep;
 * - a ball rolling to and fro in a V valley of two planes, which loses
 *   energy at every crossing of the bottom and comes to rest: the sleep must
 *   come only after that, with the twin still. */

#define TWIN_MAX_STEPS 1800
#define TWIN_MAX_BODIES 20
static dv3 twin_pts[TWIN_MAX_STEPS + 1][TWIN_MAX_BODIES][3];

typedef int (*scene_builder)(qp_world *w, qp_body_id *ids);

typedef struct {
    int asleep_at;        /* first step with every body asleep, -1 if never */
    int first_sleeper_at; /* first step with any body asleep, -1 if never */
    double before, after; /* twin's largest move of a test point in the 60 steps before / 120 after */
    double max_speed;     /* twin's largest centre speed */
    double tail;          /* twin's largest move of a test point over the last 300 steps */
} twin_result;

static bool same_pose(const qp_world *a, const qp_world *b, qp_body_id id)
{
    qp_vec3 pa = qp_body_position(a, id), pb = qp_body_position(b, id);
    qp_quat qa = qp_body_rotation(a, id), qb = qp_body_rotation(b, id);
    return qp_v3_eq(pa, pb) && qa.w == qb.w && qa.x == qb.x && qa.y == qb.y && qa.z == qb.z;
}

static double twin_move(int n, int from, int to, int ref)
{
    double m = 0;
    for (int t = from; t <= to; t++)
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) m = fmax(m, dist3(twin_pts[t][i][k], twin_pts[ref][i][k]));
    return m;
}

static twin_result run_twins(scene_builder build, qp_sleep_policy policy, int steps)
{
    assert_true(steps <= TWIN_MAX_STEPS);
    qp_world_def def = world_def(policy), def_off = def;
    def_off.sleep_enabled = false;
    init_world(&world, &def);
    init_world(&twin, &def_off);
    qp_body_id ids[TWIN_MAX_BODIES], ids2[TWIN_MAX_BODIES];
    int n = build(&world, ids);
    assert_int_equal(build(&twin, ids2), n);
    assert_true(n <= TWIN_MAX_BODIES);
    twin_result r = { -1, -1, -1, -1, 0, 0 };
    for (int i = 0; i < n; i++) {
        twin_pts[0][i][0] = dvec(qp_body_center(&twin, ids[i]));
        for (int k = 1; k < 3; k++) twin_pts[0][i][k] = body_axis_point(&twin, ids[i], k - 1);
    }
    for (int s = 1; s <= steps; s++) {
        qp_world_step(&world);
        qp_world_step(&twin);
        int asleep = 0;
        for (int i = 0; i < n; i++) {
            twin_pts[s][i][0] = dvec(qp_body_center(&twin, ids[i]));
            for (int k = 1; k < 3; k++) twin_pts[s][i][k] = body_axis_point(&twin, ids[i], k - 1);
            r.max_speed = fmax(r.max_speed, D(qp_v3_len(qp_body_linear_velocity(&twin, ids[i]))));
            asleep += !qp_body_is_awake(&world, ids[i]);
        }
        if (r.first_sleeper_at < 0) {
            if (asleep > 0) r.first_sleeper_at = s;
            else
                for (int i = 0; i < n; i++)
                    if (!same_pose(&world, &twin, ids[i])) fail_msg("the twins differ at step %d with all awake", s);
        }
        if (r.asleep_at < 0 && asleep == n) r.asleep_at = s;
    }
    if (r.asleep_at > 0) {
        int s = r.asleep_at;
        r.before = twin_move(n, s - 60 > 0 ? s - 60 : 0, s, s);
        r.after = twin_move(n, s, s + 120 <= steps ? s + 120 : steps, s);
    }
    r.tail = twin_move(n, steps - 300, steps, steps - 300);
    return r;
}

static void print_twins(const char *name, qp_sleep_policy policy, twin_result r)
{
    printf("[sleep] %s (%s): twin max speed %.3f m/s; first sleeper at step %d, all asleep at step %d; "
           "twin moved %.4f m in the 60 steps before and %.4f m in the 120 after; twin moved %.4f m over the "
           "last 300 steps\n", name, policy_name(policy), r.max_speed, r.first_sleeper_at, r.asleep_at, r.before,
           r.after, r.tail);
}

/* A "weeble" (roly-poly toy): one dynamic body, a sphere of radius 0.5 with,
 * inside it, four coincident boxes below its centre. A compound's mass counts
 * every shape, so the boxes act as ballast and put the centre of mass about
 * 7 cm below the sphere's centre; only the sphere can touch the ground.
 * Tipped by 25 degrees on ground with friction 0.5 and released, it rolls
 * to and fro about its upright pose like a pendulum (period about 3 s), at
 * rest for an instant at each turning point, and (rolling without slipping,
 * with no rolling resistance: rolling 0) loses almost nothing: it must stay
 * awake for the whole run. */
static int build_weeble(qp_world *w, qp_body_id *ids)
{
    add_ground(w, 0.5);
    qp_body_def b = qp_default_body_def();
    b.position = qp_v3(0, QP_ONE / 2, 0);
    b.friction = QP_ONE / 2;
    b.rolling_resistance = 0;
    b.shape_count = 5;
    assert_int_equal(qp_make_sphere(QP_ONE / 2, &b.shapes[0]), QP_OK);
    for (int k = 1; k < 5; k++) {
        assert_int_equal(qp_make_box(qp_v3(F(0.2), F(0.15), F(0.2)), &b.shapes[k]), QP_OK);
        b.shapes[k].offset = qp_v3(0, F(-0.25), 0);
    }
    assert_true(qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), F(25 * M_PI / 180.0), &b.rotation));
    ids[0] = add_body(w, &b);
    return 1;
}

/* A ball (radius 0.5, friction 0.5) released 1 m up one side of a V valley
 * of two static planes inclined by valley_deg. It rolls down, crosses the
 * bottom onto the other slope (the inelastic hit on the second plane takes a
 * share of its energy), climbs, stops, rolls back...: a damped oscillation
 * with shrinking turning points that ends at rest at the bottom. */
static double valley_deg;

static int build_valley(qp_world *w, qp_body_id *ids)
{
    double a = valley_deg * M_PI / 180.0;
    dv3 n1 = { sin(a), cos(a), 0 }, n2 = { -sin(a), cos(a), 0 };
    add_plane(w, n1, 0, 0.5);   /* the left slope, rising towards -x */
    add_plane(w, n2, 0, 0.5);   /* the right slope, rising towards +x */
    double cx = cos(a) - 0.5 * sin(a), cy = sin(a) + 0.5 * cos(a);   /* touching n2, 1 m up it */
    ids[0] = add_sphere(w, cx, cy, 0, 0.5, 0.5);
    return 1;
}

static void test_rocking_not_frozen(void **state)
{
    (void)state;
    twin_result r = run_twins(build_weeble, QP_SLEEP_THREE_POINT, 1800);
    print_twins("weeble rocking", QP_SLEEP_THREE_POINT, r);
    assert_true(r.max_speed > 0.2);        /* it really rocks */
    assert_true(r.tail > 0.5);             /* and still does at the end */
    assert_int_equal(r.first_sleeper_at, -1);

    static const double degs[] = { 10, 20 };
    for (int k = 0; k < 2; k++) {
        valley_deg = degs[k];
        r = run_twins(build_valley, QP_SLEEP_THREE_POINT, 1800);
        char name[64];
        snprintf(name, sizeof name, "ball in a %g deg valley", degs[k]);
        print_twins(name, QP_SLEEP_THREE_POINT, r);
        assert_true(r.max_speed > 1.0);    /* it really rolls */
        assert_true(r.asleep_at > 0);      /* and comes to rest within 30 s */
        assert_true(r.before < 0.01);
        assert_true(r.after < 0.01);
    }
}

/* The energy policy on the same constructions: the lossless weeble must not
 * sleep either; the valley numbers are reported (not asserted). */
static void test_rocking_energy(void **state)
{
    (void)state;
    twin_result r = run_twins(build_weeble, QP_SLEEP_ENERGY, 1800);
    print_twins("weeble rocking", QP_SLEEP_ENERGY, r);
    assert_int_equal(r.first_sleeper_at, -1);
    static const double degs[] = { 10, 20 };
    for (int k = 0; k < 2; k++) {
        valley_deg = degs[k];
        r = run_twins(build_valley, QP_SLEEP_ENERGY, 1800);
        char name[64];
        snprintf(name, sizeof name, "ball in a %g deg valley", degs[k]);
        print_twins(name, QP_SLEEP_ENERGY, r);
        assert_true(r.asleep_at > 0);
    }
}

/* stack20 dropped: the cubes start with a small gap under each (5 mm, 2 cm),
 * so the stack lands, is jolted and sways before it settles. The sleep must
 * not freeze the stack while it still sways (twin check as above). The
 * three-point policy is asserted; the energy policy is reported. */
static double drop_gap;

static int build_dropped_stack(qp_world *w, qp_body_id *ids)
{
    add_ground(w, 0.5);
    for (int i = 0; i < 20; i++) ids[i] = add_cube(w, 0, 0.5 + drop_gap + i * (1 + drop_gap), 0, 0.5);
    return 20;
}

static void test_dropped_stack_not_frozen_mid_sway(void **state)
{
    (void)state;
    static const double gaps[] = { 0.005, 0.02 };
    for (int g = 0; g < 2; g++) {
        drop_gap = gaps[g];
        for (int p = 0; p < 2; p++) {
            qp_sleep_policy policy = p ? QP_SLEEP_ENERGY : QP_SLEEP_THREE_POINT;
            twin_result r = run_twins(build_dropped_stack, policy, 900);
            /* The twin's top cube: how far it wanders (sleep off), and where the sleeping world's is. */
            double top_dx = 0;
            for (int t = 0; t <= 900; t++) top_dx = fmax(top_dx, dist_xz(twin_pts[t][19][0], twin_pts[0][19][0]));
            dv3 top = dvec(qp_body_center(&world, qp_world_body_at(&world, 21)));
            char name[96];
            snprintf(name, sizeof name, "stack20 dropped, %g mm gaps", gaps[g] * 1000);
            print_twins(name, policy, r);
            printf("[sleep]   twin's top cube wanders up to %.4f m horizontally; sleeping world's top cube at 900 "
                   "is %.4f m off-axis, %.4f m below its resting height\n", top_dx, sqrt(top.x * top.x + top.z * top.z),
                   19.5 - top.y);
            assert_true(top_dx < 1.0);     /* does not topple, either way */
            if (policy == QP_SLEEP_THREE_POINT && r.asleep_at > 0) {
                assert_true(r.before < 0.01);
                assert_true(r.after < 0.01);
            }
        }
    }
}

/* ---- 5. pulling the bottom block ----------------------------------------------------------- */

static void test_remove_bottom_wakes_stack(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    qp_body_id ids[20];
    build_stack(&world, 20, ids);
    int t = settle(&world, 600);
    assert_true(t > 0);
    double top0 = D(qp_body_position(&world, ids[19]).y);
    assert_int_equal(qp_destroy_body(&world, ids[0]), QP_OK);
    assert_false(qp_body_is_valid(&world, ids[0]));
    int now = awake_count(&world, ids + 1, 19);
    qp_world_step(&world);
    int next = awake_count(&world, ids + 1, 19);
    for (int s = 0; s < 120; s++) qp_world_step(&world);
    double top1 = D(qp_body_position(&world, ids[19]).y);
    printf("[sleep] stack20 asleep after %d steps; bottom removed: awake right after %d/19, after one step %d/19; "
           "top cube dropped %.3f m in 121 steps\n", t, now, next, top0 - top1);
    assert_int_equal(now, 19);
    assert_int_equal(next, 19);
    assert_true(top0 - top1 >= 0.5);
}

/* ---- 6. a cube thrown at a sleeping pyramid ------------------------------------------------------ */

/* Is body i in contact (within tol) with something that holds it from below?
 * Collides its shape with every other body's shapes (and the ground) with a
 * margin of tol: supported when some manifold has a point within tol and a
 * normal, from the other body towards i, that points upwards (n.y > 0.2).
 * Reports the smallest gap found to a support below in *gap. */
static qp_transform body_xf(const qp_world *w, qp_body_id id)
{
    qp_transform xf;
    xf.p = qp_body_center(w, id);
    xf.r = qp_quat_to_rot3(qp_body_rotation(w, id));
    return xf;
}

static bool supported(const qp_world *w, qp_body_id id, double tol, double *gap)
{
    qp_transform xi = body_xf(w, id);
    const qp_shape *si = qp_body_shape(w, id, 0);
    qp_transform ti = qp_shape_transform(si, &xi);
    double best = 1e9;
    for (int k = 1; k <= qp_world_capacity(); k++) {
        qp_body_id o = qp_world_body_at(w, k);
        if (qp_body_id_is_null(o) || o.index == id.index) continue;
        qp_transform xo = body_xf(w, o);
        for (int j = 0; j < qp_body_shape_count(w, o); j++) {
            const qp_shape *so = qp_body_shape(w, o, j);
            qp_transform to = qp_shape_transform(so, &xo);
            qp_transform rel = qp_transform_relative(&to, &ti);
            qp_manifold m;
            if (qp_collide(so, si, &rel, F(tol), &m) == 0) continue;
            /* normal from o to i, in o's shape frame: to world */
            double n[3] = { m.normal.x / 1073741824.0, m.normal.y / 1073741824.0, m.normal.z / 1073741824.0 };
            double ny = 0;
            for (int c = 0; c < 3; c++) ny += to.r.m[1][c] / 1073741824.0 * n[c];
            if (ny <= 0.2) continue;
            for (int p = 0; p < m.count; p++) {
                double g = -D(m.points[p].depth);
                if (g < best) best = g;
            }
        }
    }
    *gap = best;   /* 1e9 when nothing below is within tol */
    return best <= tol;
}

static qp_body_id pyr_ids[64];

/* One throw: a pyramid of base 8 (36 cubes) is left to sleep, then a cube
 * of `mass` kg is thrown level at the leftmost cube of row `row` at `speed`;
 * at least `min_fell` cubes must lose their support and fall by > 0.5 m. */
static void throw_case(int row, double speed, double mass, int min_fell)
{
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    int n = build_pyramid(&world, 8, pyr_ids);
    int t = settle(&world, 600);
    assert_true(t > 0);
    for (int i = 0; i < n; i++) scene_p0[i] = dvec(qp_body_position(&world, pyr_ids[i]));
    int first = 0;
    for (int r = 0; r < row; r++) first += 8 - r;
    qp_body_id target = pyr_ids[first];
    double tx = -(8 - row - 1) / 2.0;
    assert_true(fabs(scene_p0[first].x - tx) < 0.05 && fabs(scene_p0[first].y - (0.5 + row)) < 0.05);
    qp_body_def b = qp_default_body_def();
    b.position = qp_v3(F(tx - 3), F(0.8 + row), 0);   /* 2 m from the target, 0.3 m above its centre */
    b.linear_velocity = qp_v3(F(speed), 0, 0);
    b.mass = F(mass);
    b.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
    qp_body_id thrown = add_body(&world, &b);
    int target_woke = -1, max_awake = 0, sleeper_float = 0, checks = 0, settled = -1;
    double worst_sleeper_gap = 0;
    static bool ever_awake[64];
    memset(ever_awake, 0, sizeof ever_awake);
    for (int s = 1; s <= 1200; s++) {
        qp_world_step(&world);
        if (target_woke < 0 && qp_body_is_awake(&world, target)) target_woke = s;
        int a = 0;
        for (int i = 0; i < n; i++)
            if (qp_body_is_awake(&world, pyr_ids[i])) { ever_awake[i] = true; a++; }
        if (a > max_awake) max_awake = a;
        /* No sleeper may hang in the air, at any time (checked every 4th step). */
        if (s % 4 == 0) {
            for (int i = 0; i <= n; i++) {
                qp_body_id id = i < n ? pyr_ids[i] : thrown;
                if (qp_body_is_awake(&world, id)) continue;
                double gap;
                checks++;
                if (!supported(&world, id, 0.01, &gap)) {
                    sleeper_float++;
                    if (gap > worst_sleeper_gap) worst_sleeper_gap = gap;
                }
            }
        }
        if (s > 60 && all_asleep(&world)) { settled = s; break; }
    }
    int moved = 0, moved_never_awake = 0, woken = 0, fell = 0;
    for (int i = 0; i < n; i++) {
        dv3 p = dvec(qp_body_position(&world, pyr_ids[i]));
        double m = dist3(p, scene_p0[i]);
        if (m > 0.05) moved++;
        if (scene_p0[i].y - p.y > 0.5) fell++;
        if (m > 0.0 && !ever_awake[i]) moved_never_awake++;
        woken += ever_awake[i];
    }
    /* After settling: every body rests on something. */
    int unsupported = 0;
    double worst = 0;
    for (int i = 0; i <= n; i++) {
        qp_body_id id = i < n ? pyr_ids[i] : thrown;
        double gap;
        if (!supported(&world, id, 0.01, &gap)) unsupported++;
        if (gap > worst) worst = gap;
    }
    printf("[sleep] %.0f kg cube thrown at %.0f m/s at row %d of a sleeping pyramid (base 8, asleep after %d steps): "
           "target woke at step %d; %d of 36 cubes woke (at most %d at once), %d moved > 5 cm, %d fell > 0.5 m; "
           "all asleep again at step %d; sleepers not resting on anything: %d in %d checks (worst gap %.4f m); "
           "after settling %d of 37 unsupported, largest gap to a support %.4f m\n",
           mass, speed, row, t, target_woke, woken, max_awake, moved, fell, settled, sleeper_float, checks,
           worst_sleeper_gap, unsupported, worst);
    assert_true(target_woke > 0 && target_woke <= 20);
    assert_true(moved >= 3);
    assert_true(fell >= min_fell);
    assert_int_equal(moved_never_awake, 0);
    assert_true(settled > 0);
    assert_int_equal(sleeper_float, 0);
    assert_int_equal(unsupported, 0);
    assert_true(worst <= 0.01);
}

static void test_throw_at_sleeping_pyramid(void **state)
{
    (void)state;
    throw_case(5, 8, 1, 0);
    throw_case(3, 20, 1, 0);
    throw_case(3, 20, 5, 1);
    throw_case(1, 20, 20, 1);
}

/* The support check itself, on known cases (so that "0 unsupported" above
 * means something): a cube 5 mm above the ground is supported (gap 5 mm), one
 * 3 cm above is not; a cube on another's top face is; a cube only touching
 * another's side (both floating, asleep) is not; a cube tilted 30 degrees
 * resting on an edge is. */
static void test_support_check_control(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    def.gravity = qp_v3_zero();
    init_world(&world, &def);
    add_ground(&world, 0.5);
    qp_body_id low = add_cube(&world, 0, 0.505, 0, 0.5);
    qp_body_id high = add_cube(&world, 3, 0.53, 0, 0.5);
    qp_body_id base = add_cube(&world, 6, 0.5, 0, 0.5);
    qp_body_id on_top = add_cube(&world, 6.3, 1.5, 0, 0.5);
    qp_body_id side_a = add_cube(&world, 10, 3, 0, 0.5);
    qp_body_id side_b = add_cube(&world, 11, 3, 0, 0.5);
    qp_body_def b = qp_default_body_def();
    b.position = qp_v3(QP_INT(14), F(0.5 * cos(M_PI / 6) + 0.5 * sin(M_PI / 6)), 0);
    b.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
    assert_true(qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), F(M_PI / 6), &b.rotation));
    qp_body_id tilted = add_body(&world, &b);
    double g_low, g_high, g_top, g_base, g_a, g_b, g_tilt;
    bool s_low = supported(&world, low, 0.01, &g_low), s_high = supported(&world, high, 0.01, &g_high);
    bool s_base = supported(&world, base, 0.01, &g_base), s_top = supported(&world, on_top, 0.01, &g_top);
    bool s_a = supported(&world, side_a, 0.01, &g_a), s_b = supported(&world, side_b, 0.01, &g_b);
    bool s_tilt = supported(&world, tilted, 0.01, &g_tilt);
    printf("[sleep] support check control: 5 mm above ground %d (gap %.4f), 3 cm above %d, on ground %d (gap %.4f), "
           "on a cube %d (gap %.4f), side by side in the air %d %d, tilted on an edge %d (gap %.4f)\n",
           s_low, g_low, s_high, s_base, g_base, s_top, g_top, s_a, s_b, s_tilt, g_tilt);
    assert_true(s_low && fabs(g_low - 0.005) < 0.001);
    assert_false(s_high);
    assert_true(s_base && s_top && s_tilt);
    assert_false(s_a);
    assert_false(s_b);
}

/* ---- 7. a sleeping world costs nothing ---------------------------------------------------------------- */

static void test_sleeping_world_is_free(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    qp_body_id ids[20];
    build_stack(&world, 20, ids);
    int t = settle(&world, 600);
    assert_true(t > 0);
    qp_world_step(&world);
    qp_vec3 p[20];
    qp_quat q[20];
    for (int i = 0; i < 20; i++) {
        p[i] = qp_body_position(&world, ids[i]);
        q[i] = qp_body_rotation(&world, ids[i]);
    }
    uint32_t h0 = qp_world_hash(&world);
    int max_pairs = 0, max_awake = 0, changed = 0, max_contacts = 0;
    for (int s = 0; s < 300; s++) {
        qp_world_step(&world);
        qp_world_stats st = qp_world_get_stats(&world);
        if (st.pairs > max_pairs) max_pairs = st.pairs;
        if (st.awake > max_awake) max_awake = st.awake;
        if (st.contacts > max_contacts) max_contacts = st.contacts;
        for (int i = 0; i < 20; i++) {
            qp_quat r = qp_body_rotation(&world, ids[i]);
            if (!qp_v3_eq(p[i], qp_body_position(&world, ids[i])) || r.w != q[i].w || r.x != q[i].x ||
                r.y != q[i].y || r.z != q[i].z || !qp_v3_eq(qp_body_linear_velocity(&world, ids[i]), qp_v3_zero()) ||
                !qp_v3_eq(qp_body_angular_velocity(&world, ids[i]), qp_v3_zero()))
                changed++;
        }
    }
    uint32_t h1 = qp_world_hash(&world);
    qp_world_stats st = qp_world_get_stats(&world);
    printf("[sleep] sleeping stack20 (asleep after %d steps), 300 more steps: max pairs %d, max awake %d, "
           "max contacts %d, asleep %d, body states changed %d, hash %08x -> %08x\n",
           t, max_pairs, max_awake, max_contacts, st.asleep, changed, h0, h1);
    assert_int_equal(max_pairs, 0);
    assert_int_equal(max_awake, 0);
    assert_int_equal(st.asleep, 20);
    assert_int_equal(changed, 0);
    assert_int_equal(h0, h1);
}

/* ---- 8. wake rules ----------------------------------------------------------------------------- */

static unsigned char snap[QP_SNAPSHOT_MAX_SIZE];
static unsigned long snap_size;

/* A sleeping stack of 5; returns after saving it in snap. */
static void sleeping_stack5(qp_body_id *ids, const qp_world_def *def)
{
    init_world(&world, def);
    build_stack(&world, 5, ids);
    assert_true(settle(&world, 600) > 0);
    snap_size = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(snap_size > 0 && snap_size <= sizeof snap);
}

static void test_user_calls_wake_body_and_above(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    qp_body_id ids[5];
    sleeping_stack5(ids, &def);
    static const char *names[] = { "apply_impulse", "set_linear_velocity", "set_angular_velocity", "apply_force",
                                   "apply_torque", "set_pose", "wake" };
    for (int call = 0; call < 7; call++) {
        assert_int_equal(qp_world_restore(&world, snap, snap_size), QP_OK);
        assert_int_equal(awake_count(&world, ids, 5), 0);
        qp_body_id b = ids[2];
        qp_vec3 c = qp_body_center(&world, b);
        qp_result r = QP_OK;
        switch (call) {
        case 0: r = qp_body_apply_impulse(&world, b, qp_v3(QP_FRAC(1, 10), 0, 0), c); break;
        case 1: r = qp_body_set_linear_velocity(&world, b, qp_v3(QP_FRAC(1, 10), 0, 0)); break;
        case 2: r = qp_body_set_angular_velocity(&world, b, qp_v3(0, QP_FRAC(1, 10), 0)); break;
        case 3: r = qp_body_apply_force(&world, b, qp_v3(QP_INT(1), 0, 0)); break;
        case 4: r = qp_body_apply_torque(&world, b, qp_v3(0, QP_FRAC(1, 10), 0)); break;
        case 5: r = qp_body_set_pose(&world, b, c, qp_body_rotation(&world, b)); break;
        case 6: r = qp_body_wake(&world, b); break;
        }
        assert_int_equal(r, QP_OK);
        int below = qp_body_is_awake(&world, ids[0]) + qp_body_is_awake(&world, ids[1]);
        int self_above = qp_body_is_awake(&world, ids[2]) + qp_body_is_awake(&world, ids[3]) +
                         qp_body_is_awake(&world, ids[4]);
        qp_world_step(&world);
        int self_above_1 = qp_body_is_awake(&world, ids[2]) + qp_body_is_awake(&world, ids[3]) +
                           qp_body_is_awake(&world, ids[4]);
        printf("[sleep] %-20s on cube 2 of a sleeping stack of 5: awake at once: it and above %d/3, below %d/2; "
               "after one step: it and above %d/3\n", names[call], self_above, below, self_above_1);
        assert_int_equal(self_above, 3);
        assert_int_equal(self_above_1, 3);
    }
}

/* Steps until the body is asleep again (at most max), or -1. */
static int steps_until_asleep(qp_world *w, qp_body_id id, int max)
{
    for (int s = 1; s <= max; s++) {
        qp_world_step(w);
        if (!qp_body_is_awake(w, id)) return s;
    }
    return -1;
}

static void test_min_awake_steps(void **state)
{
    (void)state;
    /* Short sleep_steps so that min_awake_steps is what holds the body awake. */
    static const int cases[][2] = { { 5, 30 }, { 5, 90 }, { 60, 30 } };   /* sleep_steps, min_awake_steps */
    for (int k = 0; k < 3; k++) {
        qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
        def.sleep_steps = cases[k][0];
        def.min_awake_steps = cases[k][1];
        init_world(&world, &def);
        add_ground(&world, 0.5);
        qp_body_id cube = add_cube(&world, 0, 0.5, 0, 0.5);
        int first = steps_until_asleep(&world, cube, 600);
        assert_true(first > 0);
        assert_int_equal(qp_body_wake(&world, cube), QP_OK);
        assert_true(qp_body_is_awake(&world, cube));
        int again = steps_until_asleep(&world, cube, 600);
        /* And with a small nudge (an impulse of 1 mm/s, well inside the boxes). */
        assert_int_equal(qp_body_apply_impulse(&world, cube, qp_v3(QP_MM(1), 0, 0), qp_body_center(&world, cube)), QP_OK);
        int nudge = steps_until_asleep(&world, cube, 600);
        int need = cases[k][0] > cases[k][1] ? cases[k][0] : cases[k][1];
        printf("[sleep] sleep_steps %d, min_awake_steps %d: first asleep at %d; after qp_body_wake asleep again after "
               "%d steps; after a 1 mm/s impulse after %d steps\n", cases[k][0], cases[k][1], first, again, nudge);
        assert_true(first >= need);
        assert_true(again >= cases[k][1]);
        assert_true(nudge >= cases[k][1]);
        assert_true(again >= need && again <= need + 2);
    }
}

/* An awake cube slides into a sleeping one on frictionless ground. */
static void slide_into_sleeper(double speed, int *woke_at, double *sleeper_moved, double *slider_v_after)
{
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    add_ground(&world, 0);
    qp_body_id sleeper = add_cube(&world, 0, 0.5, 0, 0);
    assert_true(settle(&world, 600) > 0);
    dv3 p0 = dvec(qp_body_position(&world, sleeper));
    /* 1 cm gap: arrives after a few steps. */
    qp_body_id slider = add_cube(&world, -1.01, 0.5, 0, 0);
    assert_int_equal(qp_body_set_linear_velocity(&world, slider, qp_v3(F(speed), 0, 0)), QP_OK);
    *woke_at = -1;
    for (int s = 1; s <= 240; s++) {
        qp_world_step(&world);
        if (*woke_at < 0 && qp_body_is_awake(&world, sleeper)) *woke_at = s;
    }
    *sleeper_moved = dist3(dvec(qp_body_position(&world, sleeper)), p0);
    *slider_v_after = D(qp_body_linear_velocity(&world, slider).x);
}

static void test_slow_touch_does_not_wake(void **state)
{
    (void)state;
    int woke;
    double moved, v;
    slide_into_sleeper(0.05, &woke, &moved, &v);
    printf("[sleep] cube at 0.05 m/s (wake_speed 0.1) into a sleeper: woke at step %d, sleeper moved %.5f m, "
           "slider v.x after %.4f\n", woke, moved, v);
    assert_int_equal(woke, -1);
    assert_true(moved == 0.0);
    slide_into_sleeper(1.0, &woke, &moved, &v);
    printf("[sleep] cube at 1 m/s into a sleeper: woke at step %d, sleeper moved %.4f m, slider v.x after %.4f\n",
           woke, moved, v);
    assert_true(woke > 0 && woke <= 5);
    assert_true(moved > 0.1);
}

/* A cube at 3 m/s into the bottom of a sleeping stack of six: the whole stack wakes in the
 * step the cube arrives (the wake spreads up through the contacts the narrow phase is
 * rewriting), and a sleeping cube beside the stack, touching none of it, sleeps on. */
static void test_impact_wakes_what_rests_on_it(void **state)
{
    (void)state;
    qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
    init_world(&world, &def);
    add_ground(&world, 0.5);
    qp_body_id stack[6];
    for (int i = 0; i < 6; i++) stack[i] = add_cube(&world, 0, 0.5 + i, 0, 0.5);
    qp_body_id lone = add_cube(&world, 3, 0.5, 0, 0.5);
    assert_true(settle(&world, 600) > 0);
    qp_body_id slider = add_cube(&world, -1.01, 0.5, 0, 0.5);
    assert_int_equal(qp_body_set_linear_velocity(&world, slider, qp_v3(F(3), 0, 0)), QP_OK);
    int woke_at = -1, awake_then = 0;
    for (int s = 1; s <= 10 && woke_at < 0; s++) {
        qp_world_step(&world);
        if (!qp_body_is_awake(&world, stack[0])) continue;
        woke_at = s;
        for (int i = 0; i < 6; i++) awake_then += qp_body_is_awake(&world, stack[i]);
    }
    printf("[sleep] cube at 3 m/s into a sleeping stack of 6: the bottom woke at step %d, %d of the 6 with it\n",
           woke_at, awake_then);
    assert_true(woke_at > 0);
    assert_int_equal(awake_then, 6);
    assert_false(qp_body_is_awake(&world, lone));
}

/* ---- 9. a pile comes to rest ------------------------------------------------------ */

/* 64 unit cubes (1 kg, friction 0.5) dropped 4 x 4 x 4, each turned about (1, 1, 1) by
 * an angle from the seed, into a pile on the ground; ids[0..63]. */
static void build_pile(qp_world *w, uint32_t seed, qp_body_id *ids)
{
    add_ground(w, 0.5);
    for (int i = 0; i < 64; i++) {
        qp_body_def b = qp_default_body_def();
        b.position = qp_v3(F(-2.25 + 1.5 * (i % 4) + 0.4 * ((i / 16) % 2)), F(1 + 1.2 * (i / 16)),
                           F(-2.25 + 1.5 * ((i / 4) % 4)));
        double turn = ((seed * 37u + (uint32_t)i * 53u) % 360u) * 3.14159265358979 / 180;
        assert_true(qp_quat_from_axis_angle(qp_v3(QP_ONE, QP_ONE, QP_ONE), F(turn), &b.rotation));
        b.mass = QP_ONE;
        b.friction = F(0.5);
        b.shape_count = 1;
        assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]), QP_OK);
        ids[i] = add_body(w, &b);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Piles of 64 tumbling cubes, on seeds no constant was tuned on (1001-1032; the constants
 * were tuned on seeds 1-40). A pile is chaotic: one
 * rounding decides which cube tips off an edge and how long the last one rocks, so the test
 * judges the piles as a whole, at rates measured over 400 other fresh piles (seeds 121-520,
 * build/bench/bench_piles 400 121), not one pile's luck:
 * - with the default (three-point) policy every pile is all asleep within 40 s, nine in ten
 *   within 10 s, and on average within 6 s (400 piles: 97 % within 10 s, mean 5.4 s, the
 *   latest 31 s);
 * - with sleep off, between 5 s and 10 s (long after the fall) nine cubes in ten of all the
 *   piles move less than a quarter of a millimetre (400 piles: 0.034 mm), and in at most
 *   three piles in eight a cube moves more than 5 cm (400 piles: 15 %).
 * A solver that stops short of rest fails it: with QP_QUIET_UNITS at 16 (the contact pass
 * skipping visits that still apply 16 units) nine cubes in ten of these piles moved up to
 * 0.44 mm; at 256, nine piles were still awake after 10 s and three after 40 s. */
static void test_pile_comes_to_rest(void **state)
{
    (void)state;
    enum { FIRST = 1001, PILES = 32, CUBES = 64 };
    static double moved[PILES * CUBES];
    qp_body_id ids[CUBES];
    int latest = 0, late = 0, sum = 0, eventful = 0;
    for (uint32_t seed = FIRST; seed < FIRST + PILES; seed++) {
        qp_world_def def = world_def(QP_SLEEP_THREE_POINT);
        init_world(&world, &def);
        build_pile(&world, seed, ids);
        int asleep = settle(&world, 2400);
        def.sleep_enabled = false;
        init_world(&twin, &def);
        build_pile(&twin, seed, ids);
        for (int s = 0; s < 300; s++) qp_world_step(&twin);
        dv3 at[CUBES];
        for (int i = 0; i < CUBES; i++) at[i] = dvec(qp_body_position(&twin, ids[i]));
        for (int s = 0; s < 300; s++) qp_world_step(&twin);
        double most = 0;
        for (int i = 0; i < CUBES; i++) {
            double d = dist3(at[i], dvec(qp_body_position(&twin, ids[i])));
            moved[(seed - FIRST) * CUBES + i] = d;
            most = d > most ? d : most;
        }
        printf("[sleep] pile of 64, seed %u: all asleep at step %d; sleep off, from 5 s to 10 s the most moved "
               "cube moved %.2f mm\n", seed, asleep, 1000 * most);
        latest = asleep < 0 || latest < 0 ? -1 : (asleep > latest ? asleep : latest);
        late += asleep < 0 || asleep > 600;
        sum += asleep;
        eventful += most > 0.05;
    }
    qsort(moved, PILES * CUBES, sizeof moved[0], cmp_double);
    double p90 = moved[PILES * CUBES * 9 / 10];
    printf("[sleep] %d piles of 64: all asleep by step %d, %d after step 600, on average at step %d; from 5 s to "
           "10 s, 9 cubes in 10 moved up to %.3f mm; %d piles with a cube moved over 5 cm\n",
           PILES, latest, late, sum / PILES, 1000 * p90, eventful);
    assert_true(latest > 0 && latest <= 2400);
    assert_true(late * 10 <= PILES);
    assert_true(sum <= 360 * PILES);
    assert_true(p90 < 0.00025);
    assert_true(eventful * 8 <= PILES * 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack20_three_point),
        cmocka_unit_test(test_jittered_stack20_stands_and_sleeps),
        cmocka_unit_test(test_stack50_three_point),
        cmocka_unit_test(test_pyramid20_three_point),
        cmocka_unit_test(test_stack20_energy),
        cmocka_unit_test(test_stack50_energy),
        cmocka_unit_test(test_pyramid20_energy),
        cmocka_unit_test(test_spinning_cube_never_sleeps),
        cmocka_unit_test(test_spinning_sphere_x_never_sleeps),
        cmocka_unit_test(test_slow_turns_count_at_the_surface),
        cmocka_unit_test(test_slow_slide_never_sleeps),
        cmocka_unit_test(test_rocking_not_frozen),
        cmocka_unit_test(test_rocking_energy),
        cmocka_unit_test(test_dropped_stack_not_frozen_mid_sway),
        cmocka_unit_test(test_remove_bottom_wakes_stack),
        cmocka_unit_test(test_support_check_control),
        cmocka_unit_test(test_throw_at_sleeping_pyramid),
        cmocka_unit_test(test_sleeping_world_is_free),
        cmocka_unit_test(test_user_calls_wake_body_and_above),
        cmocka_unit_test(test_min_awake_steps),
        cmocka_unit_test(test_slow_touch_does_not_wake),
        cmocka_unit_test(test_impact_wakes_what_rests_on_it),
        cmocka_unit_test(test_pile_comes_to_rest),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
