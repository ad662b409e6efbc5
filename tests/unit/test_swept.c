/* Swept contacts: no sphere, capsule or box of at least 0.1 m passes through a
 * static or dynamic body of at least 0.05 m at any speed up to the clamp
 * (100 m/s), whatever its start offset within a step, its direction or its
 * orientation (dynamic walls: see wall_mass); fast frictionless impacts on a
 * plane give no sideways speed;
 * the whole thing is deterministic (two runs, equal hashes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/world.h"
#include "qp_test_util.h"

static qp_world W;

static void world_no_gravity(void)
{
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    def.sleep_enabled = false;
    assert_int_equal(qp_world_init(&W, &def), QP_OK);
}

static qp_body_id create(const qp_body_def *d)
{
    qp_result err;
    qp_body_id id = qp_create_body(&W, d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

/* A wall 2 m x 2 m, `thick` m thick along its normal (x rotated by yaw about y), at the origin. */
/* The dynamic walls weigh 30 kg (2 m x 2 m, 375 or 1500 kg/m^3 for 0.2 or
 * 0.05 m). Sweeps are linear: a featherweight plate (3 kg) hit off-centre at
 * 60-100 m/s spins at up to the 50 rad/s clamp, 48 degrees a step, and its
 * swinging face can still pass a ball (5 of 96 shots at 3 kg, 1 at 10 kg;
 * docs/design.md §4). */
static const double wall_mass = 30;

static qp_body_id wall(double thick, double yaw, bool dynamic)
{
    qp_body_def d = qp_default_body_def();
    d.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(f16(thick / 2), QP_ONE, QP_ONE), &d.shapes[0]), QP_OK);
    assert_true(qp_quat_from_axis_angle(qp_v3(0, QP_ONE, 0), f16(yaw), &d.rotation));
    if (dynamic) d.mass = f16(wall_mass);
    return create(&d);
}

/* A projectile of size 0.1 m (kind 0 sphere r 0.05, 1 box half 0.05, 2 capsule r 0.05 h 0.05), 1 kg. */
static qp_body_id projectile(int kind, qp_vec3 pos, qp_vec3 vel, qp_quat rot)
{
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    fix16_t r = QP_FRAC(5, 100);
    if (kind == 0) assert_int_equal(qp_make_sphere(r, &d.shapes[0]), QP_OK);
    if (kind == 1) assert_int_equal(qp_make_box(qp_v3(r, r, r), &d.shapes[0]), QP_OK);
    if (kind == 2) assert_int_equal(qp_make_capsule(r, r, &d.shapes[0]), QP_OK);
    d.mass = QP_ONE;
    d.position = pos;
    d.linear_velocity = vel;
    d.rotation = rot;
    return create(&d);
}

/* p in the wall's frame (its current pose): x across the wall, y and z along its face. */
static void in_wall_frame(qp_body_id wl, qp_vec3 p, double out[3])
{
    qp_quat q = qp_body_rotation(&W, wl);
    qp_vec3 c = qp_body_position(&W, wl);
    double w = q.w / Q30, x = -q.x / Q30, y = -q.y / Q30, z = -q.z / Q30;   /* the inverse rotation */
    double v[3] = { d16(p.x) - d16(c.x), d16(p.y) - d16(c.y), d16(p.z) - d16(c.z) };
    double cx = y * v[2] - z * v[1], cy = z * v[0] - x * v[2], cz = x * v[1] - y * v[0];
    out[0] = v[0] + 2 * (w * cx + y * cz - z * cy);
    out[1] = v[1] + 2 * (w * cy + z * cx - x * cz);
    out[2] = v[2] + 2 * (w * cz + x * cy - y * cx);
}

/* Did the projectile cross the wall's middle plane within its face (not around an end)? */
static bool went_through(qp_body_id wl, qp_vec3 before, qp_vec3 after)
{
    double a[3], b[3];
    in_wall_frame(wl, before, a);
    in_wall_frame(wl, after, b);
    if (a[0] >= 0 || b[0] < 0) return false;
    double t = -a[0] / (b[0] - a[0]);   /* where the centre's path meets the plane */
    double y = a[1] + t * (b[1] - a[1]), z = a[2] + t * (b[2] - a[2]);
    return fabs(y) < 1 && fabs(z) < 1;
}

static void test_no_tunnelling(void **st)
{
    (void)st;
    rng_state = 4242u;
    const double speeds[] = { 10, 30, 60, 100 };
    const double thick[] = { 0.05, 0.2 };
    int runs = 0, through = 0;
    for (int kind = 0; kind < 3; kind++)
        for (int dyn = 0; dyn < 2; dyn++)
            for (unsigned t = 0; t < 2; t++)
                for (unsigned s = 0; s < 4; s++)
                    for (int k = 0; k < 6; k++) {
                        world_no_gravity();
                        double yaw = urand(-0.6, 0.6);      /* the wall turned up to 34 degrees */
                        double dir = urand(-0.5, 0.5);      /* the shot up to 29 degrees off the x axis */
                        double v = speeds[s], start = 2 + urand(0, v / 60);   /* any offset within a step */
                        qp_body_id wl = wall(thick[t], yaw, dyn);
                        qp_quat rot = rand_quat();
                        /* At the clamp: the last bits of a rounded direction must not exceed it. */
                        double vv = v * (1 - 1e-5);
                        qp_vec3 vel = qp_v3(f16(vv * cos(dir)), 0, f16(vv * sin(dir)));
                        qp_vec3 pos = qp_v3(f16(-start * cos(dir)), 0, f16(-start * sin(dir)));
                        qp_body_id p = projectile(kind, pos, vel, rot);
                        bool crossed = false;
                        for (int i = 0; i < 30 && !crossed; i++) {
                            qp_vec3 before = qp_body_position(&W, p);
                            qp_world_step(&W);
                            crossed = went_through(wl, before, qp_body_position(&W, p));
                        }
                        runs++;
                        if (crossed) {
                            through++;
                            printf("through: kind %d %s wall %.2f m, %.0f m/s, yaw %.2f, dir %.2f, start %.3f\n",
                                   kind, dyn ? "dynamic" : "static", thick[t], v, yaw, dir, start);
                        }
                    }
    printf("measure: %d shots at walls of 0.05 and 0.2 m (static and 30 kg), 10..100 m/s: %d went through\n", runs,
           through);
    assert_int_equal(through, 0);
}

/* A box hitting a frictionless plane at up to 100 m/s, tilted or not: no
 * sideways speed, and it never ends inside the plane. */
static void test_fast_plane_impact(void **st)
{
    (void)st;
    for (int tilted = 0; tilted < 2; tilted++)
        for (int v = 40; v <= 100; v += 20) {
            world_no_gravity();
            qp_body_def g = qp_default_body_def();
            g.type = QP_BODY_STATIC;
            g.shape_count = 1;
            g.friction = 0;
            assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]), QP_OK);
            create(&g);
            qp_body_def d = qp_default_body_def();
            d.shape_count = 1;
            d.friction = 0;
            assert_int_equal(qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &d.shapes[0]), QP_OK);
            if (tilted) assert_true(qp_quat_from_axis_angle(qp_v3(QP_ONE, f16(0.3), f16(0.7)), f16(0.35), &d.rotation));
            d.position = qp_v3(0, QP_INT(5), 0);
            d.linear_velocity = qp_v3(0, QP_INT(-v), 0);
            qp_body_id id = create(&d);
            double lowest = 1e9, sideways = 0;
            for (int i = 0; i < 120; i++) {
                qp_world_step(&W);
                qp_vec3 p = qp_body_position(&W, id), vel = qp_body_linear_velocity(&W, id);
                if (d16(p.y) < lowest) lowest = d16(p.y);
                double sv = hypot(d16(vel.x), d16(vel.z));
                if (sv > sideways) sideways = sv;
            }
            printf("measure: box at %d m/s%s: lowest centre %.3f m, sideways speed %.4f m/s\n", v,
                   tilted ? " (tilted 20 deg)" : "", lowest, sideways);
            assert_true(sideways < 0.01);
            assert_true(lowest > (tilted ? 0.3 : 0.49));   /* the centre stays above the surface */
        }
}

/* Fast shots are as deterministic as the rest. */
static void test_swept_deterministic(void **st)
{
    (void)st;
    uint32_t h[2];
    for (int run = 0; run < 2; run++) {
        world_no_gravity();
        wall(0.05, 0.3, true);
        for (int k = 0; k < 3; k++)
            projectile(k, qp_v3(QP_INT(-3), f16(0.3 * (k - 1)), 0), qp_v3(QP_INT(90), 0, f16(5)),
                       qp_quat_identity());
        for (int i = 0; i < 60; i++) qp_world_step(&W);
        h[run] = qp_world_hash(&W);
    }
    assert_int_equal(h[0], h[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_tunnelling),
        cmocka_unit_test(test_fast_plane_impact),
        cmocka_unit_test(test_swept_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
