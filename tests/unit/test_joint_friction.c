/* SPDX-License-Identifier: MIT */
/* Joint friction (qp_joint_def.max_friction_torque, scene `friction T`), at 60 Hz:
 *
 *  1. A 2 kg rod on a hinge held out horizontal (gravity's torque 10 N m about the hinge):
 *     a friction of 12 N m holds it within 1 degree for 2 s; one of 5 N m lets it fall with
 *     the angular acceleration of the torque left over (10 - 5 N m), within 10%.
 *  2. A rod hanging on a cone joint released 60 degrees out, joint trees on: with 1 N m of
 *     friction it comes to rest and sleeps within 10 s; without, it still swings at 10 s.
 *  3. The ragdoll builder gives its joints friction: a ragdoll resting on a box with an arm
 *     hanging over its edge sleeps within 10 s with joint trees on.
 *  4. Bad values change nothing: friction on a ball or slider joint, below 0 or above 30000.
 *  5. Friction is state: two worlds that differ only in it hash differently, and a snapshot
 *     taken mid-swing restores to the same hashes on every later step.
 *  6. Scene files: `friction T` on hinge and cone lines loads as the API's option; a bad value
 *     or the word on another joint kind is refused at its line and column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "qphys/joint.h"
#include "qphys/ragdoll.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world world, copy;

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }

static void init(bool tree)
{
    qp_world_def d = qp_default_world_def();
    d.joint_tree = tree;
    assert_int_equal(qp_world_init(&world, &d), QP_OK);
}

static qp_body_id box(qp_vec3 pos, qp_vec3 half, double mass)
{
    qp_body_def b = qp_default_body_def();
    b.type = mass > 0 ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
    b.position = pos;
    b.shape_count = 1;
    if (mass > 0) b.density = F(mass / (8 * D(half.x) * D(half.y) * D(half.z)));
    assert_int_equal(qp_make_box(half, &b.shapes[0]), QP_OK);
    qp_result r = QP_RESULT_COUNT;
    qp_body_id id = qp_create_body(&world, &b, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

/* A static post at (0, 5, 0) and a 1 m, 2 kg rod held out along +x from it on a hinge about z. */
static qp_joint_id held_out_rod(double friction, qp_body_id *rod)
{
    init(false);
    qp_body_id post = box(V(0, 5, 0), V(0.05, 0.05, 0.05), 0);
    *rod = box(V(0.5, 5, 0), V(0.5, 0.05, 0.05), 2);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_HINGE;
    d.a = post;
    d.b = *rod;
    d.anchor = V(0, 5, 0);
    d.axis = V(0, 0, 1);
    d.max_friction_torque = F(friction);
    qp_result r = QP_RESULT_COUNT;
    qp_joint_id id = qp_create_joint(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

/* ---- 1. a hinge holds a load below its friction, and yields the rest above it ------------------ */

static void test_hinge_friction_bounds_the_torque(void **state)
{
    (void)state;
    qp_body_id rod;
    qp_joint_id held = held_out_rod(12, &rod);
    double worst = 0;
    for (int step = 0; step < 120; step++) {
        qp_world_step(&world);
        double a = fabs(D(qp_joint_angle(&world, held)));
        if (a > worst) worst = a;
    }
    /* Falling rods after 6 steps: with 5 N m and with none. */
    double spin[2];
    for (int k = 0; k < 2; k++) {
        held_out_rod(k == 0 ? 5 : 0, &rod);
        for (int step = 0; step < 6; step++) qp_world_step(&world);
        spin[k] = -D(qp_body_angular_velocity(&world, rod).z);
    }
    printf("measure: rod on a hinge, gravity 10 N m: 12 N m of friction holds it within %.3f deg over 2 s; "
           "5 N m lets it turn at %.3f rad/s after 0.1 s against %.3f rad/s without (ratio %.3f, asked 0.5)\n",
           worst * 180 / M_PI, spin[0], spin[1], spin[0] / spin[1]);
    assert_true(worst * 180 / M_PI < 1);
    assert_true(spin[1] > 1);   /* it does fall without friction */
    assert_true(fabs(spin[0] / spin[1] - 0.5) < 0.05);
}

/* ---- 2. a cone's free swing comes to rest ------------------------------------------------------ */

static int swing_sleeps(double friction, double *speed_at_10s)
{
    init(true);
    qp_body_id post = box(V(0, 5, 0), V(0.05, 0.05, 0.05), 0);
    /* A 1 m, 2 kg rod hanging from (0, 5, 0), released 60 degrees out. */
    double c = cos(M_PI / 3), s = sin(M_PI / 3);
    qp_body_def b = qp_default_body_def();
    b.position = V(0.5 * s, 5 - 0.5 * c, 0);
    assert_true(qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), F(M_PI / 3), &b.rotation));
    b.shape_count = 1;
    b.density = F(2 / (1.0 * 0.1 * 0.1));
    assert_int_equal(qp_make_box(V(0.05, 0.5, 0.05), &b.shapes[0]), QP_OK);
    qp_result r = QP_RESULT_COUNT;
    qp_body_id rod = qp_create_body(&world, &b, &r);
    assert_int_equal(r, QP_OK);
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_CONE;
    d.a = post;
    d.b = rod;
    d.anchor = V(0, 5, 0);
    d.axis = V(s, -c, 0);
    d.swing_angle = F(2.5);
    d.max_friction_torque = F(friction);
    qp_create_joint(&world, &d, &r);
    assert_int_equal(r, QP_OK);
    int asleep = -1;
    for (int step = 0; step < 600 && asleep < 0; step++) {
        qp_world_step(&world);
        if (qp_world_get_stats(&world).awake == 0) asleep = step;
    }
    *speed_at_10s = D(qp_v3_len(qp_body_angular_velocity(&world, rod)));
    return asleep;
}

static void test_cone_swing_comes_to_rest(void **state)
{
    (void)state;
    double with_speed, free_speed;
    int with = swing_sleeps(1, &with_speed), without = swing_sleeps(0, &free_speed);
    printf("measure: a rod swinging on a cone joint (joint trees): with 1 N m of friction asleep at step %d; "
           "without, asleep at step %d, turning at %.2f rad/s at 10 s\n", with, without, free_speed);
    assert_true(with > 0);
    assert_true(without < 0 && free_speed > 0.5);
}

/* ---- 3. the ragdoll builder's friction ------------------------------------------------------------ */

static void test_ragdoll_hanging_arm_sleeps(void **state)
{
    (void)state;
    init(true);
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_Q30_ONE, 0), 0, &g.shapes[0]), QP_OK);
    qp_result r = QP_RESULT_COUNT;
    qp_create_body(&world, &g, &r);
    box(V(0, 0.5, 0), V(1, 0.5, 1), 0);
    qp_ragdoll_def rd = qp_default_ragdoll_def();
    rd.position = V(0.2, 3, 0.1);   /* its right arm ends up hanging over the box's edge */
    qp_body_id parts[QP_RAGDOLL_BODIES];
    assert_int_equal(qp_create_ragdoll(&world, &rd, parts, &r), QP_OK);
    int asleep = -1;
    for (int step = 0; step < 600 && asleep < 0; step++) {
        qp_world_step(&world);
        if (qp_world_get_stats(&world).awake == 0) asleep = step;
    }
    printf("measure: ragdoll on a box, an arm hanging over its edge, joint trees: asleep at step %d\n", asleep);
    assert_true(asleep > 0);
}

/* ---- 4. bad values ---------------------------------------------------------------------------------- */

static void test_bad_friction_changes_nothing(void **state)
{
    (void)state;
    qp_body_id rod;
    held_out_rod(0, &rod);
    qp_body_id post = qp_world_body_at(&world, 1);
    uint32_t before = qp_world_hash(&world);
    static const struct {
        qp_joint_type type;
        double friction;
        qp_result expect;
    } bad[] = {
        { QP_JOINT_BALL, 1, QP_ERR_PARAM },   { QP_JOINT_SLIDER, 1, QP_ERR_PARAM },
        { QP_JOINT_DISTANCE, 1, QP_ERR_PARAM }, { QP_JOINT_HINGE, -0.5, QP_ERR_RANGE },
        { QP_JOINT_CONE, 30000.5, QP_ERR_RANGE },
    };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        qp_joint_def d = qp_default_joint_def();
        d.type = bad[k].type;
        d.a = post;
        d.b = rod;
        d.anchor = V(0, 5, 0);
        d.anchor_a = V(0, 5, 0);
        d.anchor_b = V(0.5, 5, 0);
        d.max_friction_torque = F(bad[k].friction);
        qp_result r = QP_RESULT_COUNT;
        qp_joint_id id = qp_create_joint(&world, &d, &r);
        assert_int_equal(r, bad[k].expect);
        assert_true(qp_joint_id_is_null(id));
    }
    assert_int_equal(qp_world_hash(&world), before);
}

/* ---- 5. state: hashed and in snapshots -------------------------------------------------------------- */

static unsigned char snap[1 << 16];

static void test_friction_is_state(void **state)
{
    (void)state;
    qp_body_id rod;
    held_out_rod(3, &rod);
    uint32_t three = qp_world_hash(&world);
    held_out_rod(4, &rod);
    assert_int_not_equal(qp_world_hash(&world), three);
    for (int step = 0; step < 20; step++) qp_world_step(&world);
    unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
    assert_true(n > 0);
    assert_int_equal(qp_world_restore(&copy, snap, n), QP_OK);
    for (int step = 0; step < 60; step++) {
        qp_world_step(&world);
        qp_world_step(&copy);
        assert_int_equal(qp_world_hash(&copy), qp_world_hash(&world));
    }
}

/* ---- 6. scene files ----------------------------------------------------------------------------------- */

static qp_result load(const char *text, qp_scene_error *err)
{
    return qp_scene_load(&world, text, (unsigned long)strlen(text), NULL, err);
}

static void test_scene_friction(void **state)
{
    (void)state;
    qp_scene_error err;
    const char *held = "box half 0.05 0.05 0.05 pos 0 5 0 static\n"
                       "box half 0.5 0.05 0.05 pos 0.5 5 0 mass 2\n"
                       "hinge 0 1 anchor 0 5 0 axis 0 0 1 friction 12\n";
    assert_int_equal(load(held, &err), QP_OK);
    qp_joint_id j = qp_world_joint_at(&world, 1);
    for (int step = 0; step < 120; step++) qp_world_step(&world);
    assert_true(fabs(D(qp_joint_angle(&world, j))) * 180 / M_PI < 1);   /* as the API's rod of test 1 */

    static const struct {
        const char *line;   /* the third line */
        int column;
        qp_result expect;
    } bad[] = {
        { "hinge 0 1 anchor 0 5 0 axis 0 0 1 friction -1\n", 44, QP_ERR_RANGE },
        { "cone 0 1 anchor 0 5 0 axis 1 0 0 swing 30 friction 30001\n", 52, QP_ERR_RANGE },
        { "hinge 0 1 anchor 0 5 0 axis 0 0 1 friction\n", 43, QP_ERR_PARSE },
        { "ball 0 1 anchor 0 5 0 friction 1\n", 23, QP_ERR_PARSE },
        { "hinge 0 1 anchor 0 5 0 axis 0 0 1 friction 1 friction 2\n", 46, QP_ERR_PARSE },
    };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, "box half 0.05 0.05 0.05 pos 0 5 0 static\nbox half 0.5 0.05 0.05 pos 0.5 5 0 mass 2\n%s",
                 bad[k].line);
        uint32_t before = qp_world_hash(&world);
        assert_int_equal(load(text, &err), bad[k].expect);
        printf("measure: scene line \"%.*s\": %d:%d %s\n", (int)strlen(bad[k].line) - 1, bad[k].line, err.line,
               err.column, err.message);
        assert_int_equal(err.line, 3);
        assert_int_equal(err.column, bad[k].column);
        assert_int_equal(qp_world_hash(&world), before);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hinge_friction_bounds_the_torque),
        cmocka_unit_test(test_cone_swing_comes_to_rest),
        cmocka_unit_test(test_ragdoll_hanging_arm_sleeps),
        cmocka_unit_test(test_bad_friction_changes_nothing),
        cmocka_unit_test(test_friction_is_state),
        cmocka_unit_test(test_scene_friction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
