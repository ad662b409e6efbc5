/* SPDX-License-Identifier: MIT */
/* Dynamics: what a user of the engine sees, measured against physics.
 *
 * Every scene is built through the API (qp_create_body), not from scene
 * files, with the common settings of docs/design.md §9 unless a test says
 * otherwise: gravity (0, -10, 0), 60 Hz, unit cubes of 1 kg with friction
 * 0.5 and restitution 0, ground = static plane y = 0. Numbers are read back
 * in double and compared with closed forms; each test prints what it
 * measured (lines starting "measure:") so a failure shows by how much.
 *
 *  1. stack20 / stack50 stand (default def, sleep on) and stack20 with sleep
 *     off: top cube within 5 cm horizontally of its start, sag < 2 cm, at
 *     every one of 600 steps.
 *  2. pyramid20 stands: no cube moves more than 5 cm, at every step.
 *  3. Slopes: a cube on 20 deg with mu 0.5 stays (< 1 cm over 600 steps); on
 *     30 deg with mu 0.2 it slides with a = g (sin t - mu cos t) within 5%.
 *  4. A sphere dropped from 2 m with restitution 0.5 rebounds to 0.5 m +- 5%.
 *  5. A line of 5 touching spheres hit at one end passes the momentum on.
 *  6. A 100 kg cube on a 1 kg cube neither sinks nor jitters (1 mm).
 *  7. A see-saw with a stack on one end tips when a block lands on the other.
 *  8. Energy never rises in a closed box of frictionless planes.
 *  9. API: full pools, stale ids, bad defs, speed clamp, bounds, forces,
 *     impulses, torques, contact-graph levels.
 * 10. A leaning staircase whose centre of mass lies past its base topples.
 * 11. Kept manifolds: a still cube's contacts keep last step's manifold two steps in three,
 *     never three in a row; a push, a velocity, a force or a new pose has them found again at once;
 *     a world saved mid-keep resumes in the same bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/world.h"

#define Q16 65536.0
#define Q30 1073741824.0
#define PI 3.14159265358979323846

static qp_world W;        /* the world of every test */
static qp_world W_copy;   /* "unchanged" checks: the whole world, byte for byte */

static double d16(fix16_t v) { return v / Q16; }
static fix16_t f16(double v) { return (fix16_t)llround(v * Q16); }

typedef struct { double x, y, z; } dvec;

static dvec dv(qp_vec3 v) { dvec r = { d16(v.x), d16(v.y), d16(v.z) }; return r; }
static qp_vec3 V(double x, double y, double z) { return qp_v3(f16(x), f16(y), f16(z)); }
static double dlen(dvec a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }
static dvec dsub(dvec a, dvec b) { dvec r = { a.x - b.x, a.y - b.y, a.z - b.z }; return r; }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* Rotate v by the transpose of q's rotation (world -> body), in double. */
static dvec rot_inv(qp_quat q30, dvec v)
{
    double w = q30.w / Q30, x = -q30.x / Q30, y = -q30.y / Q30, z = -q30.z / Q30;
    /* v' = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
    dvec u = { x, y, z };
    dvec c = { u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x };
    dvec cc = { u.y * c.z - u.z * c.y, u.z * c.x - u.x * c.z, u.x * c.y - u.y * c.x };
    dvec r = { v.x + 2 * w * c.x + 2 * cc.x, v.y + 2 * w * c.y + 2 * cc.y, v.z + 2 * w * c.z + 2 * cc.z };
    return r;
}

/* The body's local x axis in world space (first column of its rotation). */
static dvec local_x_axis(qp_quat q30)
{
    double w = q30.w / Q30, x = q30.x / Q30, y = q30.y / Q30, z = q30.z / Q30;
    dvec r = { 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) };
    return r;
}

static qp_quat axis_angle(double ax, double ay, double az, double rad)
{
    qp_quat q;
    assert_true(qp_quat_from_axis_angle(V(ax, ay, az), f16(rad), &q));
    return q;
}

/* ---- building ------------------------------------------------------------- */

static void world_init(const qp_world_def *def)
{
    assert_int_equal(qp_world_init(&W, def), QP_OK);
}

static void world_default(void)
{
    qp_world_def def = qp_default_world_def();
    world_init(&def);
}

static qp_body_id add(const qp_body_def *def)
{
    qp_result err = QP_RESULT_COUNT;
    qp_body_id id = qp_create_body(&W, def, &err);
    assert_int_equal(err, QP_OK);
    assert_false(qp_body_id_is_null(id));
    return id;
}

/* A static plane n.p = offset (normal any length), with its materials. */
static qp_body_id add_plane(qp_vec3 normal, double offset, double friction, double restitution)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.friction = f16(friction);
    d.restitution = f16(restitution);
    d.shape_count = 1;
    assert_int_equal(qp_make_plane(normal, f16(offset), &d.shapes[0]), QP_OK);
    return add(&d);
}

static qp_body_id add_ground(void) { return add_plane(V(0, 1, 0), 0, 0.5, 0); }

static qp_body_id add_box_full(qp_body_type type, qp_vec3 pos, qp_quat rot, qp_vec3 half, double mass,
                               double friction, double restitution)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.position = pos;
    d.rotation = rot;
    d.mass = type == QP_BODY_DYNAMIC ? f16(mass) : 0;
    d.friction = f16(friction);
    d.restitution = f16(restitution);
    d.shape_count = 1;
    assert_int_equal(qp_make_box(half, &d.shapes[0]), QP_OK);
    return add(&d);
}

/* A unit cube of docs/design.md §9: 1 kg, friction 0.5, restitution 0, axis-aligned. */
static qp_body_id add_cube(double x, double y, double z)
{
    return add_box_full(QP_BODY_DYNAMIC, V(x, y, z), qp_quat_identity(), V(0.5, 0.5, 0.5), 1, 0.5, 0);
}

/* A ball of rolling resistance `rolling` (its default when negative). */
static qp_body_id add_ball(qp_vec3 pos, double radius, double mass, double friction, double restitution, double rolling)
{
    qp_body_def d = qp_default_body_def();
    if (rolling >= 0) d.rolling_resistance = f16(rolling);
    d.position = pos;
    d.mass = f16(mass);
    d.friction = f16(friction);
    d.restitution = f16(restitution);
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(f16(radius), &d.shapes[0]), QP_OK);
    return add(&d);
}

static qp_body_id add_sphere(qp_vec3 pos, double radius, double mass, double friction, double restitution)
{
    return add_ball(pos, radius, mass, friction, restitution, -1);
}

static dvec pos_of(qp_body_id id) { return dv(qp_body_position(&W, id)); }
static dvec vel_of(qp_body_id id) { return dv(qp_body_linear_velocity(&W, id)); }

static void steps(int n)
{
    for (int i = 0; i < n; i++) qp_world_step(&W);
}

/* ---- 1. stacks -------------------------------------------------------------- */

#define STACK_MAX 50
static qp_body_id stack_ids[STACK_MAX];

static void build_stack(int n, bool sleep)
{
    qp_world_def def = qp_default_world_def();
    def.sleep_enabled = sleep;
    world_init(&def);
    add_ground();
    for (int i = 0; i < n; i++) stack_ids[i] = add_cube(0, 0.5 + i, 0);
}

/* Run a column of n cubes for 600 steps; top cube's worst horizontal drift
 * and sag over the run (and at the end) against 5 cm and 2 cm. */
static void run_stack(int n, bool sleep, const char *name)
{
    build_stack(n, sleep);
    qp_body_id top = stack_ids[n - 1];
    dvec start = pos_of(top);
    double max_drift = 0, max_sag = 0, max_rise = 0;
    int worst_step = 0;
    for (int s = 1; s <= 600; s++) {
        qp_world_step(&W);
        dvec p = pos_of(top);
        double drift = hypot(p.x - start.x, p.z - start.z);
        double sag = start.y - p.y;
        if (drift > max_drift) max_drift = drift;
        if (sag > max_sag) { max_sag = sag; worst_step = s; }
        if (-sag > max_rise) max_rise = -sag;
    }
    dvec end = pos_of(top);
    qp_world_stats st = qp_world_get_stats(&W);
    printf("measure: %s (sleep %s): top drift max %.4f mm (end %.4f mm), sag max %.4f mm at step %d"
           " (end %.4f mm), rise max %.4f mm, asleep %d/%d, first all-asleep step %d\n",
           name, sleep ? "on" : "off", max_drift * 1e3, hypot(end.x - start.x, end.z - start.z) * 1e3,
           max_sag * 1e3, worst_step, (start.y - end.y) * 1e3, max_rise * 1e3, st.asleep, n,
           st.first_all_asleep_step);
    assert_true(max_drift < 0.05);
    assert_true(max_sag < 0.02);
}

static void test_stack20_stands(void **st) { (void)st; run_stack(20, true, "stack20"); }
static void test_stack50_stands(void **st) { (void)st; run_stack(50, true, "stack50"); }
static void test_stack20_stands_sleep_off(void **st) { (void)st; run_stack(20, false, "stack20"); }

/* ---- 2. pyramid20 -------------------------------------------------------------- */

static void test_pyramid20_stands(void **st)
{
    (void)st;
    static qp_body_id ids[210];
    static dvec start[210];
    world_default();
    add_ground();
    int count = 0;
    for (int r = 0; r < 20; r++) {
        int n = 20 - r;
        for (int k = 0; k < n; k++) {
            ids[count] = add_cube(k - (n - 1) / 2.0, 0.5 + r, 0);
            start[count] = pos_of(ids[count]);
            count++;
        }
    }
    assert_int_equal(count, 210);
    double worst = 0;
    int worst_cube = -1, worst_step = 0;
    for (int s = 1; s <= 600; s++) {
        qp_world_step(&W);
        for (int i = 0; i < count; i++) {
            double d = dlen(dsub(pos_of(ids[i]), start[i]));
            if (d > worst) { worst = d; worst_cube = i; worst_step = s; }
        }
    }
    qp_world_stats stats = qp_world_get_stats(&W);
    printf("measure: pyramid20: largest cube displacement %.2f mm (cube %d, step %d), asleep %d/210,"
           " first all-asleep step %d\n", worst * 1e3, worst_cube, worst_step, stats.asleep,
           stats.first_all_asleep_step);
    assert_true(worst < 0.05);
}

/* ---- 3. slopes ------------------------------------------------------------------- */

/* A static plane through the origin tilted by theta about z (rising towards
 * +x), and a unit cube of mass kg resting on it at the origin, rotated to match.
 * Both with friction mu. Returns the cube; *down is the downhill unit vector. */
static qp_body_id build_slope(double theta_deg, double mu, double kg, dvec *down)
{
    double t = theta_deg * PI / 180.0;
    world_default();
    add_plane(V(-sin(t), cos(t), 0), 0, mu, 0);
    dvec n = { -sin(t), cos(t), 0 };
    down->x = -cos(t);
    down->y = -sin(t);
    down->z = 0;
    return add_box_full(QP_BODY_DYNAMIC, V(0.5 * n.x, 0.5 * n.y, 0), axis_angle(0, 0, 1, t), V(0.5, 0.5, 0.5), kg,
                        mu, 0);
}

/* Held at every mass of the range: friction bounds scale with the load. Past 3 277 kg the
 * weight is more than Q16.16 holds in newtons, and the shock pass's friction bound, taken
 * from it saturated, let a 10 t cube slide off (1.2 m/s after 2 s). */
static void test_slope_20deg_holds(void **st)
{
    (void)st;
    const double kgs[] = { 1, 100, 3000, 10000 };
    for (unsigned k = 0; k < sizeof kgs / sizeof kgs[0]; k++) {
        dvec down;
        qp_body_id cube = build_slope(20, 0.5, kgs[k], &down);
        dvec start = pos_of(cube);
        double worst = 0;
        for (int s = 1; s <= 600; s++) {
            qp_world_step(&W);
            double d = dlen(dsub(pos_of(cube), start));
            if (d > worst) worst = d;
        }
        dvec end = pos_of(cube);
        printf("measure: slope 20 deg mu 0.5, %g kg: moved max %.3f mm, end %.3f mm (downhill %.3f mm), asleep %d\n",
               kgs[k], worst * 1e3, dlen(dsub(end, start)) * 1e3, ddot(dsub(end, start), down) * 1e3,
               !qp_body_is_awake(&W, cube));
        assert_true(worst < 0.01);
    }
}

static void test_slope_30deg_slides(void **st)
{
    (void)st;
    const double theta = 30, mu = 0.2, g = 10, dt = 1.0 / 60;
    double t = theta * PI / 180.0;
    double expect = g * (sin(t) - mu * cos(t));
    dvec down;
    qp_body_id cube = build_slope(theta, mu, 1, &down);
    dvec start = pos_of(cube);
    /* Least squares s(t) = c + v0 t + a t^2 / 2 over steps 30..120. */
    double m[3][4] = { { 0 } };
    double v30 = 0, v120 = 0, max_off = 0;
    for (int s = 1; s <= 120; s++) {
        qp_world_step(&W);
        dvec d = dsub(pos_of(cube), start);
        double along = ddot(d, down);
        /* Distance off the slope line (lifting or sinking): should stay ~0. */
        dvec off = { d.x - along * down.x, d.y - along * down.y, d.z - along * down.z };
        if (dlen(off) > max_off) max_off = dlen(off);
        if (s == 30) v30 = ddot(vel_of(cube), down);
        if (s == 120) v120 = ddot(vel_of(cube), down);
        if (s >= 30) {
            double tt = s * dt;
            double row[3] = { 1, tt, tt * tt / 2 };
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) m[i][j] += row[i] * row[j];
                m[i][3] += row[i] * along;
            }
        }
    }
    for (int i = 0; i < 3; i++) /* Gauss-Jordan on the 3x3 normal equations */
        for (int k = 0; k < 3; k++) {
            if (k == i) continue;
            double f = m[k][i] / m[i][i];
            for (int j = 0; j < 4; j++) m[k][j] -= f * m[i][j];
        }
    double a_fit = m[2][3] / m[2][2];
    double a_vel = (v120 - v30) / (90 * dt);
    printf("measure: slope 30 deg mu 0.2: a fit %.4f, a from v(30..120) %.4f, expected %.4f m/s^2"
           " (ratio %.4f, %.4f); off the slope line max %.3f mm\n",
           a_fit, a_vel, expect, a_fit / expect, a_vel / expect, max_off * 1e3);
    assert_true(fabs(a_fit / expect - 1) <= 0.05);
    assert_true(fabs(a_vel / expect - 1) <= 0.05);
}

/* A 10 cm ball of 0.2 kg rolling without slipping travels as its speed says, at any
 * friction: static friction's anchors once stayed where it landed, and the split-impulse
 * pass pulled it back towards them (at 0.4 m/s it covered 0.49-0.76 m of 0.8 in 2 s, less
 * the more friction; at 4 cm/s it swung between 2 and 6 cm for ever). On a 1.15 degree
 * slope (normal 0.02 1 0) it rolls down at 5/7 g sin theta. The ball has no rolling
 * resistance (rolling 0), so that these are the laws. */
static void test_ball_rolls(void **st)
{
    (void)st;
    const double mus[3] = { 0.1, 0.5, 1 };
    for (int k = 0; k < 4; k++) {
        world_default();
        bool slow = k == 3;
        double v0 = slow ? 0.04 : 0.4, t = slow ? 10 : 2;
        add_plane(V(0, 1, 0), 0, slow ? 0.5 : mus[k], 0);
        qp_body_id ball = add_ball(V(0, 0.05, 0), 0.05, 0.2, slow ? 0.5 : mus[k], 0, 0);
        assert_int_equal(qp_body_set_linear_velocity(&W, ball, V(v0, 0, 0)), QP_OK);
        assert_int_equal(qp_body_set_angular_velocity(&W, ball, V(0, 0, -v0 / 0.05)), QP_OK);
        double back = 0, last = 0;   /* the most it ever moved back */
        for (int s = 0; s < (int)(t * 60); s++) {
            qp_world_step(&W);
            double x = pos_of(ball).x;
            back = fmax(back, last - x);
            last = fmax(last, x);
        }
        printf("measure: ball rolling at %.2f m/s, friction %.1f: %.3f m in %.0f s (expected %.3f), moved back %.2f mm\n",
               v0, slow ? 0.5 : mus[k], last, t, v0 * t, 1000 * back);
        assert_true(fabs(last / (v0 * t) - 1) <= 0.05);
        assert_true(back <= 0.0001);
    }
    world_default();
    add_plane(V(0.02, 1, 0), 0, 0.5, 0);
    double nl = sqrt(1 + 0.02 * 0.02), sin_t = 0.02 / nl;
    qp_body_id ball = add_ball(V(0.05 * 0.02 / nl, 0.05 / nl, 0), 0.05, 0.2, 0.5, 0, 0);
    dvec start = pos_of(ball);
    steps(120);
    double s = dlen(dsub(pos_of(ball), start)), expect = 0.5 * (5.0 / 7.0) * 10 * sin_t * 4;
    printf("measure: ball on a %.2f degree slope: %.3f m in 2 s (expected %.3f)\n", asin(sin_t) * 180 / PI, s, expect);
    assert_true(fabs(s / expect - 1) <= 0.05);
}

/* Small dense boxes turning slowly on the floor stop and sleep: 2 and 4 cm cubes of 1 kg
 * (friction 0.5) spun at 0.03 and 0.2 rad/s about the vertical. With the twist a torque, a
 * 4 cm cube's twist mass was 17 units of Q16.16, its impulses changed its spin in steps of
 * 0.056 rad/s, and 0.03 rad/s went on for ever, never asleep. Sleep on (the default). */
static void test_small_box_stops_turning(void **st)
{
    (void)st;
    const double halves[2] = { 0.01, 0.02 }, spins[2] = { 0.03, 0.2 };
    for (int c = 0; c < 4; c++) {
        world_default();
        add_ground();
        double h = halves[c & 1];
        qp_body_id cube = add_box_full(QP_BODY_DYNAMIC, V(0, h, 0), qp_quat_identity(), V(h, h, h), 1, 0.5, 0);
        assert_int_equal(qp_body_set_angular_velocity(&W, cube, V(0, spins[c >> 1], 0)), QP_OK);
        int asleep = -1;
        double spin_at_1s = -1;
        for (int s = 1; s <= 600 && asleep < 0; s++) {
            qp_world_step(&W);
            if (s == 60) spin_at_1s = fabs(d16(qp_body_angular_velocity(&W, cube).y));
            if (!qp_body_is_awake(&W, cube)) asleep = s;
        }
        printf("measure: %g cm cube of 1 kg spun at %g rad/s: %.4f rad/s after 1 s, asleep at step %d\n", 200 * h,
               spins[c >> 1], spin_at_1s, asleep);
        assert_true(spin_at_1s >= 0 && spin_at_1s < 0.001);
        assert_true(asleep > 0 && asleep <= 180);
    }
}

/* ---- 4. bounce ------------------------------------------------------------------- */

static void test_sphere_rebound_height(void **st)
{
    (void)st;
    world_default();
    add_plane(V(0, 1, 0), 0, 0.5, 0.5);
    qp_body_id ball = add_sphere(V(0, 2.5, 0), 0.5, 1, 0.5, 0.5);
    int bounced = 0, impact_step = -1, apex_step = -1;
    double apex = -1, impact_v = 0, rebound_v = 0, prev_vy = 0;
    for (int s = 1; s <= 200; s++) {
        qp_world_step(&W);
        double y = pos_of(ball).y - 0.5, vy = vel_of(ball).y;
        if (!bounced && vy > 0) { bounced = 1; impact_step = s; impact_v = prev_vy; rebound_v = vy; }
        if (bounced && y > apex) { apex = y; apex_step = s; }
        if (bounced && vy < 0 && s > impact_step + 5) break;
        prev_vy = vy;
    }
    printf("measure: sphere drop 2 m, e 0.5: impact at step %d, v %.4f -> %.4f m/s (ratio %.4f),"
           " apex bottom height %.4f m at step %d (expected 0.5 m, ratio %.4f)\n",
           impact_step, impact_v, rebound_v, -rebound_v / impact_v, apex, apex_step, apex / 0.5);
    assert_true(bounced);
    assert_true(fabs(apex - 0.5) <= 0.025);
}

/* ---- 5. a line of spheres ----------------------------------------------------------- */

static void test_sphere_line_passes_momentum(void **st)
{
    (void)st;
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    world_init(&def);
    qp_body_id ball[5];
    for (int i = 0; i < 5; i++) ball[i] = add_sphere(V(i, 0.5, 0), 0.5, 1, 0, 1);
    assert_int_equal(qp_body_set_linear_velocity(&W, ball[0], V(1, 0, 0)), QP_OK);
    double p0 = 0;
    for (int i = 0; i < 5; i++) p0 += d16(qp_body_mass(&W, ball[i])) * vel_of(ball[i]).x;
    steps(60);
    double p = 0, others = 0;
    dvec vfar = vel_of(ball[4]);
    for (int i = 0; i < 5; i++) {
        p += d16(qp_body_mass(&W, ball[i])) * vel_of(ball[i]).x;
        if (i < 4 && dlen(vel_of(ball[i])) > others) others = dlen(vel_of(ball[i]));
    }
    printf("measure: line of 5 spheres: far sphere %.4f m/s (|v| %.4f), fastest other %.4f m/s,"
           " momentum %.5f -> %.5f (%.3f%%); v.x of each: %.4f %.4f %.4f %.4f %.4f\n",
           vfar.x, dlen(vfar), others, p0, p, 100 * (p - p0) / p0, vel_of(ball[0]).x, vel_of(ball[1]).x,
           vel_of(ball[2]).x, vel_of(ball[3]).x, vel_of(ball[4]).x);
    assert_true(vfar.x >= 0.9);
    assert_true(others <= 0.1);
    assert_true(fabs(p - p0) <= 0.01 * fabs(p0));
}

/* ---- 6. heavy on light ------------------------------------------------------------------ */

static void test_heavy_on_light(void **st)
{
    (void)st;
    world_default();
    add_ground();
    qp_body_id light = add_box_full(QP_BODY_DYNAMIC, V(0, 0.5, 0), qp_quat_identity(), V(0.5, 0.5, 0.5), 1, 0.5, 0);
    qp_body_id heavy = add_box_full(QP_BODY_DYNAMIC, V(0, 1.5, 0), qp_quat_identity(), V(0.5, 0.5, 0.5), 100, 0.5, 0);
    qp_body_id ids[2] = { light, heavy };
    const double rest_y[2] = { 0.5, 1.5 };
    double dev[2] = { 0, 0 };               /* worst distance from the exact rest position */
    double lo[2][3], hi[2][3];              /* range of each coordinate (jitter) */
    steps(10);
    for (int b = 0; b < 2; b++) {
        dvec p = pos_of(ids[b]);
        double c[3] = { p.x, p.y, p.z };
        for (int k = 0; k < 3; k++) lo[b][k] = hi[b][k] = c[k];
    }
    for (int s = 11; s <= 600; s++) {
        qp_world_step(&W);
        for (int b = 0; b < 2; b++) {
            dvec p = pos_of(ids[b]);
            double c[3] = { p.x, p.y, p.z };
            dvec d = { p.x, p.y - rest_y[b], p.z };
            if (dlen(d) > dev[b]) dev[b] = dlen(d);
            for (int k = 0; k < 3; k++) {
                if (c[k] < lo[b][k]) lo[b][k] = c[k];
                if (c[k] > hi[b][k]) hi[b][k] = c[k];
            }
        }
    }
    double jit[2];
    for (int b = 0; b < 2; b++) {
        jit[b] = 0;
        for (int k = 0; k < 3; k++)
            if (hi[b][k] - lo[b][k] > jit[b]) jit[b] = hi[b][k] - lo[b][k];
    }
    printf("measure: 100 kg on 1 kg: light: off rest max %.3f mm, jitter %.3f mm, end y %.5f;"
           " heavy: off rest max %.3f mm, jitter %.3f mm, end y %.5f\n",
           dev[0] * 1e3, jit[0] * 1e3, pos_of(light).y, dev[1] * 1e3, jit[1] * 1e3, pos_of(heavy).y);
    for (int b = 0; b < 2; b++) {
        assert_true(dev[b] <= 0.001);
        assert_true(jit[b] <= 0.001);
    }
}

/* ---- 7. see-saw ----------------------------------------------------------------------- */

/* The plank's angle about z (radians, positive = counter-clockwise: the +x end up). */
static double angle_z(qp_body_id id)
{
    dvec ax = local_x_axis(qp_body_rotation(&W, id));
    return atan2(ax.y, ax.x);
}

static void test_seesaw_tips(void **st)
{
    (void)st;
    world_default();
    add_ground();
    /* Pivot: a static 0.5 m cube turned 45 deg about z, centred on the ground,
     * so its top edge (along z) is at y = 0.25 sqrt 2. */
    const double edge = 0.25 * sqrt(2.0);
    add_box_full(QP_BODY_STATIC, V(0, 0, 0), axis_angle(0, 0, 1, PI / 4), V(0.25, 0.25, 0.25), 0, 0.5, 0);
    /* Plank 4 x 0.2 x 1 m, 2 kg, its middle on the edge, tipped to the -x side
     * where its end rests on the ground: angle asin(edge / 2) = 10.2 deg. */
    const double tilt = asin(edge / 2);
    dvec u = { cos(tilt), sin(tilt), 0 }, n = { -sin(tilt), cos(tilt), 0 };
    qp_quat rot = axis_angle(0, 0, 1, tilt);
    qp_body_id plank = add_box_full(QP_BODY_DYNAMIC, V(0.1 * n.x, edge + 0.1 * n.y, 0), rot, V(2, 0.1, 0.5), 2, 0.5, 0);
    /* A stack of two unit cubes on the low end, 1.4 m from the middle. */
    dvec c = pos_of(plank);
    qp_body_id s0 = add_box_full(QP_BODY_DYNAMIC, V(c.x - 1.4 * u.x + 0.6 * n.x, c.y - 1.4 * u.y + 0.6 * n.y, 0), rot,
                                 V(0.5, 0.5, 0.5), 1, 0.5, 0);
    qp_body_id s1 = add_box_full(QP_BODY_DYNAMIC, V(c.x - 1.4 * u.x + 1.6 * n.x, c.y - 1.4 * u.y + 1.6 * n.y, 0), rot,
                                 V(0.5, 0.5, 0.5), 1, 0.5, 0);
    steps(60);
    double a_before = angle_z(plank);
    c = pos_of(plank);
    dvec ax = local_x_axis(qp_body_rotation(&W, plank));
    double left_before = c.y - 2 * ax.y, right_before = c.y + 2 * ax.y;
    double stack_before = pos_of(s0).y, top_before = pos_of(s1).y;
    printf("measure: see-saw at rest: angle %.2f deg, stack end %.3f m, free end %.3f m, stack cubes y %.3f %.3f\n",
           a_before * 180 / PI, left_before, right_before, stack_before, top_before);
    /* At rest with the stack end down and the stack standing on it. */
    assert_true(fabs(a_before - tilt) < 0.01);
    assert_true(top_before - stack_before > 0.95);
    /* Drop a 5 kg unit block, its bottom 2 m above the raised end. */
    qp_body_id block = add_box_full(QP_BODY_DYNAMIC, V(1.5, right_before + 2.5, 0), qp_quat_identity(),
                                    V(0.5, 0.5, 0.5), 5, 0.5, 0);
    double a_min = a_before, stack_max = stack_before;
    int sign_step = -1;
    for (int s = 1; s <= 240; s++) {
        qp_world_step(&W);
        double a = angle_z(plank);
        if (a < a_min) a_min = a;
        if (a < 0 && sign_step < 0) sign_step = s;
        if (pos_of(s0).y > stack_max) stack_max = pos_of(s0).y;
    }
    double a_after = angle_z(plank);
    c = pos_of(plank);
    ax = local_x_axis(qp_body_rotation(&W, plank));
    double left_after = c.y - 2 * ax.y, right_after = c.y + 2 * ax.y;
    printf("measure: see-saw after the drop: angle %.2f deg (min %.2f, sign changed at step %d), stack end %.3f m"
           " (rose %.3f m), block end %.3f m (fell %.3f m); lower stack cube rose max %.3f m; block at y %.3f\n",
           a_after * 180 / PI, a_min * 180 / PI, sign_step, left_after, left_after - left_before, right_after,
           right_before - right_after, stack_max - stack_before, pos_of(block).y);
    assert_true(a_after < -0.05);                     /* the angle changed sign */
    assert_true(right_after < left_after);            /* the block end is now the low one */
    assert_true(left_after - left_before > 0.5);      /* the stack end rose */
    assert_true(stack_max - stack_before > 0.3);      /* and lifted the stack */
}

/* ---- 8. energy -------------------------------------------------------------------------- */

/* A body of the energy test: one shape, made by density so that its mass
 * properties are qp_shape_mass's, exactly what the engine uses. */
typedef struct {
    qp_body_id id;
    qp_mass_data md;
} energy_body;

static energy_body add_energy_body(qp_shape shape, qp_vec3 pos, qp_quat rot, double density, double restitution,
                                   qp_vec3 v, qp_vec3 w)
{
    qp_body_def d = qp_default_body_def();
    d.position = pos;
    d.rotation = rot;
    d.density = f16(density);
    d.friction = 0;
    d.restitution = f16(restitution);
    d.linear_velocity = v;
    d.angular_velocity = w;
    d.shape_count = 1;
    d.shapes[0] = shape;
    energy_body b;
    b.id = add(&d);
    assert_int_equal(qp_shape_mass(&shape, d.density, &b.md), QP_OK);
    assert_int_equal(qp_body_mass(&W, b.id), b.md.mass);
    return b;
}

/* Kinetic (linear and angular) plus potential energy, J. */
static double energy(const energy_body *b, int n, double g)
{
    double e = 0;
    for (int i = 0; i < n; i++) {
        double m = d16(b[i].md.mass);
        dvec v = vel_of(b[i].id);
        dvec wl = rot_inv(qp_body_rotation(&W, b[i].id), dv(qp_body_angular_velocity(&W, b[i].id)));
        double wv[3] = { wl.x, wl.y, wl.z }, rot = 0;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) rot += wv[r] * d16(b[i].md.inertia.m[r][c]) * wv[c];
        e += 0.5 * m * ddot(v, v) + 0.5 * rot + m * g * dv(qp_body_center(&W, b[i].id)).y;
    }
    return e;
}

static qp_shape sphere_shape(double r)
{
    qp_shape s;
    assert_int_equal(qp_make_sphere(f16(r), &s), QP_OK);
    return s;
}

static qp_shape cube_shape(double h)
{
    qp_shape s;
    assert_int_equal(qp_make_box(V(h, h, h), &s), QP_OK);
    return s;
}

/* Spheres and cubes (restitution 1 and 0.5) thrown around a closed
 * 4 x 4 x 4 m box of frictionless static planes, sleep off:
 * E(t) <= E(0) + eps at every step of 600. */
static void run_energy(double g, const char *name)
{
    const double eps = 1e-3; /* J */
    qp_world_def def = qp_default_world_def();
    def.gravity = V(0, -g, 0);
    def.sleep_enabled = false;
    world_init(&def);
    add_plane(V(0, 1, 0), 0, 0, 0);
    add_plane(V(0, -1, 0), -4, 0, 0);
    add_plane(V(1, 0, 0), -2, 0, 0);
    add_plane(V(-1, 0, 0), -2, 0, 0);
    add_plane(V(0, 0, 1), -2, 0, 0);
    add_plane(V(0, 0, -1), -2, 0, 0);
    energy_body b[6];
    qp_quat id = qp_quat_identity();
    b[0] = add_energy_body(sphere_shape(0.4), V(-1, 1, -1), id, 4, 1, V(3, 1, 2), qp_v3_zero());
    b[1] = add_energy_body(sphere_shape(0.4), V(1, 2, -1), id, 8, 1, V(-2, 0, 3), qp_v3_zero());
    b[2] = add_energy_body(sphere_shape(0.3), V(0, 3, 1), id, 8, 0.5, V(1, -2, -3), qp_v3_zero());
    b[3] = add_energy_body(cube_shape(0.3), V(1, 1, 1), axis_angle(1, 2, 3, 0.7), 5, 0.5, V(-3, 2, -1), V(2, -1, 3));
    b[4] = add_energy_body(cube_shape(0.25), V(-1, 3, 1), axis_angle(-2, 1, 1, 1.1), 12, 1, V(2, 3, 1), V(-1, 2, 1));
    b[5] = add_energy_body(sphere_shape(0.35), V(0, 1.5, 0), id, 3, 1, V(-1, -1, 4), qp_v3_zero());
    double e0 = energy(b, 6, g), rise = -1e9, step_rise = -1e9;
    double prev = e0;
    int rise_step = 0;
    for (int s = 1; s <= 600; s++) {
        qp_world_step(&W);
        double e = energy(b, 6, g);
        if (e - e0 > rise) { rise = e - e0; rise_step = s; }
        if (e - prev > step_rise) step_rise = e - prev;
        prev = e;
    }
    printf("measure: energy, %s: E(0) %.4f J, max E(t) - E(0) %+.5f J at step %d, end %.4f J;"
           " largest one-step rise %+.5f J\n", name, e0, rise, rise_step, energy(b, 6, g), step_rise);
    assert_true(rise <= eps);
    /* Without gravity, E is kinetic only and free flight keeps it exactly:
     * it may not rise at any single step either. (With gravity the
     * semi-implicit Euler measure of E jumps at each bounce step, by
     * g dt e v, and drifts down by g^2 dt^2 / 2 per kg in flight.) */
    if (g == 0) assert_true(step_rise <= eps);
}

static void test_energy_no_gravity(void **st) { (void)st; run_energy(0, "gravity 0"); }
static void test_energy_gravity(void **st) { (void)st; run_energy(10, "gravity 10"); }

/* ---- 9. API -------------------------------------------------------------------------- */

static void snapshot_world(void) { memcpy(&W_copy, &W, sizeof W); }
static bool world_unchanged(void) { return memcmp(&W_copy, &W, sizeof W) == 0; }

static void test_full_pool(void **st)
{
    (void)st;
    world_default();
    add_ground();
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 2), &d.shapes[0]), QP_OK);
    for (int i = 1; i < qp_world_capacity(); i++) {
        d.position = qp_v3(QP_INT(i % 30) * 2, QP_INT(1 + i / 30) * 2, 0);
        add(&d);
    }
    steps(2);
    assert_int_equal(qp_world_get_stats(&W).bodies, qp_world_capacity());
    uint32_t h = qp_world_hash(&W);
    snapshot_world();
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(&W, &d, &err);
    assert_true(qp_body_id_is_null(id));
    assert_int_equal(err, QP_ERR_FULL);
    assert_int_equal(qp_world_hash(&W), h);
    assert_true(world_unchanged());

    /* The shape pool: bodies of 5 shapes until fewer than 5 shape slots remain. */
    world_default();
    qp_body_def c = qp_default_body_def();
    c.shape_count = QP_CFG_MAX_BODY_SHAPES;
    for (int k = 0; k < c.shape_count; k++) {
        assert_int_equal(qp_make_box(V(0.2, 0.2, 0.2), &c.shapes[k]), QP_OK);
        c.shapes[k].offset = V(0.5 * k, 0, 0);
    }
    int made = 0;
    while ((made + 1) * QP_CFG_MAX_BODY_SHAPES <= QP_CFG_MAX_SHAPES) {
        c.position = V(5 * (made % 20), 1 + 2 * (made / 20), 0);
        add(&c);
        made++;
    }
    assert_true(made < qp_world_capacity()); /* the shape pool, not the body pool, is the limit */
    snapshot_world();
    id = qp_create_body(&W, &c, &err);
    assert_true(qp_body_id_is_null(id));
    assert_int_equal(err, QP_ERR_FULL);
    assert_true(world_unchanged());
    printf("measure: full pools: %d bodies, then %d five-shape bodies, next create QP_ERR_FULL, world unchanged\n",
           qp_world_capacity(), made);
}

static void test_stale_id(void **st)
{
    (void)st;
    world_default();
    add_ground();
    qp_body_id a = add_cube(0, 0.5, 0);
    qp_body_id b = add_cube(3, 0.5, 0);
    steps(3);
    assert_int_equal(qp_destroy_body(&W, a), QP_OK);
    assert_false(qp_body_is_valid(&W, a));
    assert_true(qp_body_is_valid(&W, b));
    snapshot_world();
    assert_int_equal(qp_destroy_body(&W, a), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_set_linear_velocity(&W, a, V(1, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_set_pose(&W, a, V(0, 1, 0), qp_quat_identity()), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_apply_impulse(&W, a, V(1, 0, 0), V(0, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_apply_force(&W, a, V(1, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_wake(&W, a), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_mass(&W, a), 0);
    assert_int_equal(qp_body_level(&W, a), -1);
    assert_int_equal(qp_destroy_body(&W, qp_null_body()), QP_ERR_INVALID_ID);
    assert_true(world_unchanged());
    /* A new body takes the freed slot with a new generation; the old id stays dead. */
    qp_body_id c = add_cube(0, 0.5, 0);
    assert_int_equal(c.index, a.index);
    assert_int_not_equal(c.generation, a.generation);
    assert_false(qp_body_is_valid(&W, a));
    assert_true(qp_body_is_valid(&W, c));
    assert_int_equal(qp_body_set_linear_velocity(&W, a, V(1, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_linear_velocity(&W, c).x, 0);
}

static void test_bad_defs(void **st)
{
    (void)st;
    world_default();
    add_ground();
    add_cube(0, 0.5, 0);
    snapshot_world();
    qp_body_def good = qp_default_body_def();
    good.shape_count = 1;
    assert_int_equal(qp_make_box(V(0.5, 0.5, 0.5), &good.shapes[0]), QP_OK);
    qp_body_def d;
    qp_result err;
    struct { const char *what; qp_result code; } cases[5] = {
        { "zero shape_count", QP_ERR_PARAM }, { "negative mass", QP_ERR_RANGE },
        { "plane on a dynamic body", QP_ERR_PARAM }, { "restitution 2", QP_ERR_RANGE },
        { "shape_count above the maximum", QP_ERR_PARAM },
    };
    for (int k = 0; k < 5; k++) {
        d = good;
        if (k == 0) d.shape_count = 0;
        if (k == 1) d.mass = -QP_ONE;
        if (k == 2) assert_int_equal(qp_make_plane(V(0, 1, 0), 0, &d.shapes[0]), QP_OK);
        if (k == 3) d.restitution = QP_INT(2);
        if (k == 4) d.shape_count = QP_CFG_MAX_BODY_SHAPES + 1;
        err = QP_OK;
        qp_body_id id = qp_create_body(&W, &d, &err);
        if (err != cases[k].code) fail_msg("%s: got %s", cases[k].what, qp_result_str(err));
        assert_true(qp_body_id_is_null(id));
        assert_true(world_unchanged());
    }
    /* The good def is accepted (so the rejections above are about the one field). */
    add(&good);
}

static void test_speed_clamp(void **st)
{
    (void)st;
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    world_init(&def);
    qp_body_id b = add_cube(0, 0, 0);
    assert_int_equal(qp_body_set_linear_velocity(&W, b, V(99, 0, 0)), QP_OK);
    assert_int_equal(qp_body_flags(&W, b) & QP_FLAG_SPEED_CLAMPED, 0);
    assert_int_equal(qp_body_apply_impulse(&W, b, V(50, 0, 0), qp_body_center(&W, b)), QP_OK);
    qp_world_step(&W);
    double v = dlen(vel_of(b));
    printf("measure: speed clamp: |v| after 99 m/s + 50 N s = %.5f m/s (limit 100), flags 0x%x\n", v,
           (unsigned)qp_body_flags(&W, b));
    assert_true(qp_body_flags(&W, b) & QP_FLAG_SPEED_CLAMPED);
    assert_true(v <= 100.0 + 1e-3 && v >= 100.0 - 1e-3);
    qp_body_clear_flags(&W, b);
    assert_int_equal(qp_body_flags(&W, b), 0);
    /* Spin: 49 rad/s plus a torque impulse well past 50 rad/s. */
    assert_int_equal(qp_body_set_linear_velocity(&W, b, qp_v3_zero()), QP_OK);
    assert_int_equal(qp_body_set_angular_velocity(&W, b, V(0, 0, 49)), QP_OK);
    assert_int_equal(qp_body_apply_torque(&W, b, V(0, 0, 100)), QP_OK); /* 100 N m / (1/6 kg m^2) x dt = +10 rad/s */
    qp_world_step(&W);
    double wz = dlen(dv(qp_body_angular_velocity(&W, b)));
    printf("measure: spin clamp: |w| = %.5f rad/s (limit 50)\n", wz);
    assert_true(qp_body_flags(&W, b) & QP_FLAG_SPEED_CLAMPED);
    assert_true(wz <= 50.0 + 1e-3 && wz >= 50.0 - 1e-3);
}

static void test_out_of_bounds_freezes(void **st)
{
    (void)st;
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    def.bounds = QP_INT(10);
    world_init(&def);
    qp_body_id b = add_cube(9.5, 0, 0);
    qp_body_id other = add_cube(0, 0, 0);
    assert_int_equal(qp_body_set_linear_velocity(&W, b, V(12, 0, 0)), QP_OK);
    assert_int_equal(qp_body_set_linear_velocity(&W, other, V(1, 0, 0)), QP_OK);
    int step_out = -1;
    for (int s = 1; s <= 10 && step_out < 0; s++) {
        qp_world_step(&W);
        if (qp_body_flags(&W, b) & QP_FLAG_OUT_OF_BOUNDS) step_out = s;
    }
    assert_int_equal(step_out, 3); /* 9.5 + 3 x 12 / 60 = 10.1 > 10 */
    qp_vec3 frozen = qp_body_position(&W, b);
    assert_true(d16(frozen.x) > 10);
    assert_int_equal(qp_body_flags(&W, other) & QP_FLAG_OUT_OF_BOUNDS, 0);
    steps(30);
    assert_true(qp_v3_eq(qp_body_position(&W, b), frozen));
    assert_true(qp_v3_eq(qp_body_linear_velocity(&W, b), qp_v3_zero()));
    /* The other body still moves: 33 steps at 1 m/s. */
    assert_true(fabs(pos_of(other).x - 33.0 / 60) < 1e-3);
    printf("measure: bounds 10 m: body left at step %d, frozen at x = %.4f\n", step_out, d16(frozen.x));
}

static void test_force_impulse_torque(void **st)
{
    (void)st;
    const double dt = 1.0 / 60, lsb = 1.0 / Q16;
    qp_world_def def = qp_default_world_def();
    def.gravity = qp_v3_zero();
    world_init(&def);
    /* A 2 kg unit cube: I = m/6 = 1/3 kg m^2 about every axis. */
    qp_body_id b = add_box_full(QP_BODY_DYNAMIC, V(0, 0, 0), qp_quat_identity(), V(0.5, 0.5, 0.5), 2, 0.5, 0);
    const double m = 2, inertia = 2.0 / 6;
    assert_int_equal(qp_body_apply_force(&W, b, V(3, -1.5, 0.75)), QP_OK);
    qp_world_step(&W);
    dvec v = vel_of(b);
    printf("measure: force: dv = (%.6f %.6f %.6f), expected (%.6f %.6f %.6f)\n", v.x, v.y, v.z, 3 * dt / m,
           -1.5 * dt / m, 0.75 * dt / m);
    assert_true(fabs(v.x - 3 * dt / m) <= 4 * lsb);
    assert_true(fabs(v.y + 1.5 * dt / m) <= 4 * lsb);
    assert_true(fabs(v.z - 0.75 * dt / m) <= 4 * lsb);
    /* Forces last one step only. */
    qp_world_step(&W);
    assert_true(qp_v3_eq(qp_body_linear_velocity(&W, b), V(v.x, v.y, v.z)));

    /* Impulse at the centre: dv = J / m, no spin. */
    assert_int_equal(qp_body_set_linear_velocity(&W, b, qp_v3_zero()), QP_OK);
    assert_int_equal(qp_body_apply_impulse(&W, b, V(1, 2, -0.5), qp_body_center(&W, b)), QP_OK);
    v = vel_of(b);
    assert_true(fabs(v.x - 0.5) <= 2 * lsb && fabs(v.y - 1) <= 2 * lsb && fabs(v.z + 0.25) <= 2 * lsb);
    assert_true(qp_v3_eq(qp_body_angular_velocity(&W, b), qp_v3_zero()));

    /* Impulse off the centre: dw = I^-1 (r x J). r = (0.5, 0, 0), J = (0, 1, 0): r x J = (0, 0, 0.5). */
    assert_int_equal(qp_body_set_linear_velocity(&W, b, qp_v3_zero()), QP_OK);
    dvec c = dv(qp_body_center(&W, b));
    assert_int_equal(qp_body_apply_impulse(&W, b, V(0, 1, 0), V(c.x + 0.5, c.y, c.z)), QP_OK);
    dvec wv = dv(qp_body_angular_velocity(&W, b));
    v = vel_of(b);
    printf("measure: off-centre impulse: v.y %.6f (expected 0.5), w.z %.6f (expected %.6f)\n", v.y, wv.z,
           0.5 / inertia);
    assert_true(fabs(v.y - 0.5) <= 2 * lsb);
    assert_true(fabs(wv.z - 0.5 / inertia) <= 8 * lsb);
    assert_true(fabs(wv.x) <= 2 * lsb && fabs(wv.y) <= 2 * lsb);

    /* Torque for one step: dw = I^-1 tau dt. */
    assert_int_equal(qp_body_set_angular_velocity(&W, b, qp_v3_zero()), QP_OK);
    assert_int_equal(qp_body_set_linear_velocity(&W, b, qp_v3_zero()), QP_OK);
    assert_int_equal(qp_body_apply_torque(&W, b, V(0.5, 0, -1)), QP_OK);
    qp_world_step(&W);
    wv = dv(qp_body_angular_velocity(&W, b));
    printf("measure: torque: dw = (%.6f %.6f %.6f), expected (%.6f 0 %.6f)\n", wv.x, wv.y, wv.z,
           0.5 * dt / inertia, -1 * dt / inertia);
    assert_true(fabs(wv.x - 0.5 * dt / inertia) <= 8 * lsb);
    assert_true(fabs(wv.y) <= 8 * lsb);
    assert_true(fabs(wv.z + dt / inertia) <= 8 * lsb);
    /* Static bodies take no force. */
    qp_body_id s = add_box_full(QP_BODY_STATIC, V(5, 0, 0), qp_quat_identity(), V(0.5, 0.5, 0.5), 0, 0.5, 0);
    assert_int_equal(qp_body_apply_force(&W, s, V(1, 0, 0)), QP_ERR_PARAM);
}

static void test_stack20_levels(void **st)
{
    (void)st;
    build_stack(20, true);
    qp_world_step(&W);
    int wrong = 0;
    for (int i = 0; i < 20; i++)
        if (qp_body_level(&W, stack_ids[i]) != i + 1) {
            printf("measure: stack20 cube %d has level %d, expected %d\n", i, qp_body_level(&W, stack_ids[i]), i + 1);
            wrong++;
        }
    assert_int_equal(wrong, 0);
    assert_int_equal(qp_body_level(&W, qp_world_body_at(&W, 1)), 0); /* the ground */
    assert_int_equal(qp_world_get_stats(&W).levels, 21);
}

/* ---- 10. staircase ------------------------------------------------------------------- */

/* Six unit cubes, each shifted +0.3 m from the one below: the five upper ones
 * have their centre of mass 0.9 m right of the base's centre, past its edge
 * at 0.5 m, and the whole column's is at 0.75 m: it must topple. Shock
 * propagation (docs/design.md §3, seed 003) is known to be able to hold such a
 * staircase up; this engine lets it fall (the five upper cubes hinge over
 * the base's edge within about two seconds). */
static void test_staircase_topples(void **st)
{
    (void)st;
    world_default();
    add_ground();
    qp_body_id ids[6];
    for (int i = 0; i < 6; i++) ids[i] = add_cube(0.3 * i, 0.5 + i, 0);
    dvec top0 = pos_of(ids[5]);
    steps(600);
    dvec top = pos_of(ids[5]);
    double highest = 0;
    for (int i = 0; i < 6; i++)
        if (pos_of(ids[i]).y > highest) highest = pos_of(ids[i]).y;
    printf("measure: staircase 6 x +0.3 m: top cube from (%.3f, %.3f) to (%.3f, %.3f), highest cube centre %.3f m"
           " (started 5.5)\n", top0.x, top0.y, top.x, top.y, highest);
    /* Toppled: no cube is left anywhere near the staircase's height. */
    assert_true(highest < 3.0);
}

/* ---- 11. kept manifolds ------------------------------------------------------- */

/* How many steps in a row the manifold of body b's first contact (in the pool's order) was kept. */
static int kept_of(qp_body_id b)
{
    for (int c = 0; c < W.contact_count; c++)
        if (W.contacts[c].b == b.index || W.contacts[c].a == b.index) return (W.contacts[c].flags & QP_CONTACT_KEPT) >> 6;
    fail_msg("no contact of body %d", b.index);
    return -1;
}

static qp_body_id cube_at_rest(void)
{
    qp_world_def def = qp_default_world_def();
    def.sleep_enabled = false;
    world_init(&def);
    add_ground();
    qp_body_id b = add_cube(0, 0.5, 0);
    steps(120);
    return b;
}

static void test_still_cube_keeps_its_manifold(void **st)
{
    (void)st;
    qp_body_id b = cube_at_rest();
    dvec p0 = pos_of(b);
    int kept = 0, run = 0, longest = 0;
    for (int s = 0; s < 60; s++) {
        qp_world_step(&W);
        int k = kept_of(b);
        kept += k > 0;
        run = k > 0 ? run + 1 : 0;
        longest = run > longest ? run : longest;
        assert_int_equal(W.contacts[0].count, 4);
    }
    double moved = dlen(dsub(pos_of(b), p0));
    printf("measure: a cube at rest kept its manifold at %d of 60 steps (at most %d in a row), moved %.4f mm\n", kept,
           longest, moved * 1000);
    assert_int_equal(kept, 40);     /* two steps in three */
    assert_int_equal(longest, 2);   /* found again every third step at least */
    assert_true(moved < 1e-4);
}

static void test_calls_find_the_manifold_again(void **st)
{
    (void)st;
    qp_body_id b = cube_at_rest();
    /* Each call sets the cube moving (or places it): the next step finds its manifold anew. */
    for (int call = 0; call < 4; call++) {
        while (kept_of(b) == 0) qp_world_step(&W);   /* a step that kept it: the next one would too */
        if (call == 0) assert_int_equal(qp_body_apply_impulse(&W, b, V(0.01, 0, 0), qp_body_center(&W, b)), QP_OK);
        if (call == 1) assert_int_equal(qp_body_set_linear_velocity(&W, b, V(0, 0, 0.001)), QP_OK);
        if (call == 2) assert_int_equal(qp_body_apply_force(&W, b, V(0.5, 0, 0)), QP_OK);
        if (call == 3) assert_int_equal(qp_body_set_pose(&W, b, V(0.2, 0.5, 0), qp_quat_identity()), QP_OK);
        qp_world_step(&W);
        assert_int_equal(kept_of(b), 0);
        steps(30);
    }
}

static void test_resume_mid_keep(void **st)
{
    (void)st;
    qp_body_id b = cube_at_rest();
    add_cube(0, 1.5, 0);   /* a second cube, dropped on the first: contacts found and kept in turn */
    steps(120);
    while (kept_of(b) != 1) qp_world_step(&W);
    static unsigned char snap[65536];
    unsigned long n = qp_world_snapshot(&W, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    static qp_world twin;
    assert_int_equal(qp_world_restore(&twin, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&twin), qp_world_hash(&W));
    for (int s = 0; s < 60; s++) {
        qp_world_step(&W);
        qp_world_step(&twin);
        assert_int_equal(qp_world_hash(&twin), qp_world_hash(&W));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack20_stands),
        cmocka_unit_test(test_stack20_stands_sleep_off),
        cmocka_unit_test(test_stack50_stands),
        cmocka_unit_test(test_pyramid20_stands),
        cmocka_unit_test(test_slope_20deg_holds),
        cmocka_unit_test(test_slope_30deg_slides),
        cmocka_unit_test(test_ball_rolls),
        cmocka_unit_test(test_small_box_stops_turning),
        cmocka_unit_test(test_sphere_rebound_height),
        cmocka_unit_test(test_sphere_line_passes_momentum),
        cmocka_unit_test(test_heavy_on_light),
        cmocka_unit_test(test_seesaw_tips),
        cmocka_unit_test(test_energy_no_gravity),
        cmocka_unit_test(test_energy_gravity),
        cmocka_unit_test(test_full_pool),
        cmocka_unit_test(test_stale_id),
        cmocka_unit_test(test_bad_defs),
        cmocka_unit_test(test_speed_clamp),
        cmocka_unit_test(test_out_of_bounds_freezes),
        cmocka_unit_test(test_force_impulse_torque),
        cmocka_unit_test(test_stack20_levels),
        cmocka_unit_test(test_staircase_topples),
        cmocka_unit_test(test_still_cube_keeps_its_manifold),
        cmocka_unit_test(test_calls_find_the_manifold_again),
        cmocka_unit_test(test_resume_mid_keep),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
