/* SPDX-License-Identifier: MIT */
/* Hostile snapshots (docs/security.md): a world's fields edited as an attacker would, then
 * written by qp_world_snapshot, so that the CRC is right and only restore's checks of
 * meaning stand between the bytes and the engine. Each edit must be refused with
 * QP_ERR_BUFFER and leave the world it was restored into byte for byte as it was, with no
 * sanitizer report on the way (make test runs this under ASan + UBSan). Every test first
 * restores the unedited world, so that only the edit can make it fail.
 *
 *  1. speeds whose squares overflow int64 when summed (3 x 32768 m/s);
 *  2. friction totals of INT32_MIN (negated by the solver);
 *  3. a kept contact point's depth of INT32_MIN (negated by the gap speed);
 *  4. components far out of range in the unit checks (squared on the way to a refusal);
 *  5. impossible worlds: inverse mass not 1/mass, inverse inertia negative, singular, not
 *     symmetric or not the shapes', a frozen body unflagged or far outside the bounds, a
 *     sleeper that moves, a resting contact between a sleeper and the ground not marked
 *     sleeping, a contact with no dynamic body, hinge impulses of INT32_MIN.
 *
 * Run from the repository root (make test does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world w, target, before;
static unsigned char buf[QP_SNAPSHOT_MAX_SIZE];

enum { PLANE = 1, BOX = 2, BALL = 3 };

static void load(qp_world *into, const char *text)
{
    assert_int_equal(qp_scene_load(into, text, strlen(text), NULL, NULL), QP_OK);
}

/* The world restored into: another scene, so that an edit written over it shows. */
static void reset_target(void)
{
    load(&target, "sphere radius 1 pos 0 5 0\n");
}

/* A plane, a box resting on it and a ball dropped beside it, after steps steps. */
static void make_world(int steps)
{
    load(&w, "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\nsphere radius 0.3 pos 2 3 0\n");
    for (int s = 0; s < steps; s++) qp_world_step(&w);
    reset_target();
}

static unsigned long snapshot(void)
{
    unsigned long n = qp_world_snapshot(&w, buf, sizeof buf);
    assert_true(n > 0 && n <= sizeof buf);
    return n;
}

static void assert_restores(void)
{
    unsigned long n = snapshot();
    assert_int_equal(qp_world_restore(&target, buf, n), QP_OK);
    assert_int_equal(qp_world_hash(&target), qp_world_hash(&w));
    reset_target();
}

static void assert_refused(void)
{
    unsigned long n = snapshot();
    memcpy(&before, &target, sizeof target);
    assert_int_equal(qp_world_restore(&target, buf, n), QP_ERR_BUFFER);
    assert_memory_equal(&target, &before, sizeof target);
}

/* The index of the box's contact with the plane. */
static int ground_contact(void)
{
    for (int c = 0; c < w.contact_count; c++)
        if (w.contacts[c].a == PLANE && w.contacts[c].b == BOX) return c;
    fail_msg("the box does not rest on the plane");
    return -1;
}

static bool depths_live(const qp_contact *c)
{
    return c->count > 0 && (c->flags & QP_CONTACT_KEPT) >> 6 < 2 &&
           !(c->flags & (QP_CONTACT_SLEEPING | QP_CONTACT_SWEPT | QP_CONTACT_OVERLAP));
}

/* ---- 1. speeds ------------------------------------------------------------------------------ */

static void test_speed_square_overflow(void **state)
{
    (void)state;
    const qp_vec3 fast[] = { { INT32_MAX, INT32_MAX, INT32_MAX }, { -INT32_MAX, INT32_MAX, -INT32_MAX },
                             { INT32_MAX, INT32_MAX, 0 } };
    for (int k = 0; k < 3; k++) {
        make_world(5);
        assert_true(qp_body_is_awake(&w, qp_world_body_at(&w, BALL)));
        assert_restores();
        w.bodies[BALL].v = fast[k];
        assert_refused();
        make_world(5);
        w.bodies[BALL].w = fast[k];
        assert_refused();
    }
}

/* ---- 2. friction totals ------------------------------------------------------------------------ */

static void test_friction_impulse_int32_min(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        make_world(20);
        int c = ground_contact();
        assert_restores();
        fix16_t *jt[3] = { &w.contacts[c].jt1, &w.contacts[c].jt2, &w.contacts[c].jtw };
        *jt[k] = INT32_MIN;
        assert_refused();
    }
}

/* ---- 3. depths -------------------------------------------------------------------------------- */

static void test_kept_depth_int32_min(void **state)
{
    (void)state;
    make_world(0);
    int c = -1;
    for (int s = 0; s < 200 && c < 0; s++) {
        qp_world_step(&w);
        for (int k = 0; k < w.contact_count && c < 0; k++)
            if (depths_live(&w.contacts[k])) c = k;
    }
    assert_true(c >= 0);
    assert_restores();
    w.contacts[c].p[0].depth = INT32_MIN;
    assert_refused();
    w.contacts[c].p[0].depth = INT32_MAX;
    assert_refused();
}

/* ---- 4. the unit checks square nothing out of range ---------------------------------------------- */

static void test_unit_checks_out_of_range(void **state)
{
    (void)state;
    make_world(20);
    assert_restores();
    w.bodies[BOX].q = (qp_quat){ INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN };
    assert_refused();
    make_world(20);
    w.contacts[ground_contact()].n = qp_v3(INT32_MIN + 1, INT32_MIN + 1, INT32_MIN + 1);
    assert_refused();
}

/* ---- 5. impossible worlds ------------------------------------------------------------------------ */

static void test_inverse_mass_of_the_mass(void **state)
{
    (void)state;
    make_world(5);
    assert_restores();
    w.bodies[BALL].mass = QP_FRAC(1, 100);
    w.bodies[BALL].inv_mass = 0;   /* an immovable 10 g ball */
    assert_refused();
    make_world(5);
    w.bodies[BALL].inv_mass += 1;
    assert_refused();
}

static void test_inverse_inertia_of_the_shapes(void **state)
{
    (void)state;
    for (int k = 0; k < 5; k++) {
        make_world(5);
        assert_restores();
        qp_mat3 *m = &w.bodies[BOX].inv_inertia_local;
        switch (k) {
        case 0: m->m[1][1] = -m->m[1][1]; break;                      /* negative */
        case 1: memset(m, 0, sizeof *m); break;                       /* singular */
        case 2: m->m[0][1] = m->m[0][0] / 2; break;                   /* not symmetric */
        case 3:                                                       /* not the box's */
            for (int i = 0; i < 3; i++) m->m[i][i] *= 4;
            break;
        default: m->m[0][1] = m->m[1][0] = m->m[0][0]; break;         /* symmetric, singular */
        }
        assert_refused();
    }
}

static void test_static_body_has_no_inertia(void **state)
{
    (void)state;
    make_world(5);
    w.bodies[PLANE].inv_inertia_local.m[0][0] = QP_ONE;
    assert_refused();
    make_world(5);
    w.bodies[PLANE].local_center = qp_v3(QP_ONE, 0, 0);
    assert_refused();
}

/* A 10 m world; a ball thrown out of it freezes, flagged. */
static void make_frozen_world(void)
{
    qp_world_def wd = qp_default_world_def();
    wd.bounds = QP_INT(10);
    assert_int_equal(qp_world_init(&w, &wd), QP_OK);
    qp_body_def ball = qp_default_body_def();
    ball.position = qp_v3(QP_INT(9), 0, 0);
    ball.linear_velocity = qp_v3(QP_INT(100), 0, 0);
    ball.shape_count = 1;
    assert_int_equal(qp_make_sphere(QP_FRAC(3, 10), &ball.shapes[0]), QP_OK);
    qp_result r;
    qp_create_body(&w, &ball, &r);
    assert_int_equal(r, QP_OK);
    for (int s = 0; s < 5; s++) qp_world_step(&w);
    assert_true(w.bodies[1].state & QP_STATE_FROZEN);
    assert_true(w.bodies[1].flags & QP_FLAG_OUT_OF_BOUNDS);
    reset_target();
}

static void test_frozen_inside_or_flagged(void **state)
{
    (void)state;
    make_frozen_world();
    assert_restores();
    w.bodies[1].flags = 0;
    assert_refused();
    make_frozen_world();
    w.bodies[1].x = qp_v3(QP_INT(10000), 0, 0);   /* 10 km out of a 10 m world, flagged */
    assert_refused();
    make_frozen_world();
    w.bodies[1].x = qp_v3(QP_INT(5), 0, 0);       /* inside: frozen bodies stay where they froze */
    assert_restores();
}

static void test_clear_flags_keeps_a_frozen_body_out_of_bounds(void **state)
{
    (void)state;
    make_frozen_world();
    qp_body_id id = qp_world_body_at(&w, 1);
    qp_body_clear_flags(&w, id);
    assert_int_equal(qp_body_flags(&w, id), QP_FLAG_OUT_OF_BOUNDS);
    assert_restores();
}

/* The box asleep on the plane. */
static void make_sleeping_world(void)
{
    load(&w, "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\n");
    for (int s = 0; s < 600 && qp_body_is_awake(&w, qp_world_body_at(&w, BOX)); s++) qp_world_step(&w);
    assert_false(qp_body_is_awake(&w, qp_world_body_at(&w, BOX)));
    reset_target();
}

static void test_sleepers_are_still(void **state)
{
    (void)state;
    make_sleeping_world();
    assert_restores();
    w.bodies[BOX].v.y = -QP_INT(100);
    assert_refused();
    make_sleeping_world();
    w.bodies[BOX].w.x = 1;
    assert_refused();
}

static void test_sleep_consistent_across_contacts(void **state)
{
    (void)state;
    make_sleeping_world();
    int c = ground_contact();
    assert_true(w.contacts[c].flags & QP_CONTACT_SLEEPING);
    w.contacts[c].flags &= (uint8_t)~QP_CONTACT_SLEEPING;   /* solved against a sleeper */
    assert_refused();
}

static void test_contact_names_a_dynamic_body(void **state)
{
    (void)state;
    /* The box made kinematic: a sound world alone, not with a contact to the plane. */
    for (int with_contact = 0; with_contact < 2; with_contact++) {
        make_world(20);
        qp_body_state *b = &w.bodies[BOX];
        b->state = QP_STATE_USED | QP_STATE_KINEMATIC;
        b->mass = b->inv_mass = 0;
        memset(&b->inv_inertia_local, 0, sizeof b->inv_inertia_local);
        b->local_center = qp_v3(0, 0, 0);
        b->v = b->w = qp_v3(0, 0, 0);
        int c = ground_contact();
        if (!with_contact) {
            memmove(&w.contacts[c], &w.contacts[c + 1], (size_t)(w.contact_count - c - 1) * sizeof w.contacts[0]);
            w.contact_count--;
            assert_restores();
        } else {
            assert_refused();
        }
    }
}

static void test_joint_impulse_int32_min(void **state)
{
    (void)state;
    FILE *f = fopen("tests/scenes/door.scene", "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    for (int k = 0; k < 2; k++) {
        load(&w, text);
        for (int s = 0; s < 10; s++) qp_world_step(&w);
        reset_target();
        int j = 0;
        while (w.joints[j].a == 0) j++;
        assert_restores();
        w.joints[j].ja[k] = INT32_MIN;
        assert_refused();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_speed_square_overflow),
        cmocka_unit_test(test_friction_impulse_int32_min),
        cmocka_unit_test(test_kept_depth_int32_min),
        cmocka_unit_test(test_unit_checks_out_of_range),
        cmocka_unit_test(test_inverse_mass_of_the_mass),
        cmocka_unit_test(test_inverse_inertia_of_the_shapes),
        cmocka_unit_test(test_static_body_has_no_inertia),
        cmocka_unit_test(test_frozen_inside_or_flagged),
        cmocka_unit_test(test_clear_flags_keeps_a_frozen_body_out_of_bounds),
        cmocka_unit_test(test_sleepers_are_still),
        cmocka_unit_test(test_sleep_consistent_across_contacts),
        cmocka_unit_test(test_contact_names_a_dynamic_body),
        cmocka_unit_test(test_joint_impulse_int32_min),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
