/* SPDX-License-Identifier: MIT */
/* Collision filters (world.h, qp_shape_filter; src/broad_phase.c).
 *
 * 1. Masks: a box dropped on a box it does not collide with passes through it and lands
 *    on the ground beside it; a box whose mask leaves out the ground's category falls
 *    through the ground; the default filter collides with everything.
 * 2. Groups: the same negative group never collides even where the masks allow it; the
 *    same positive group always does even where they forbid it; different groups fall
 *    back to the masks.
 * 3. The setter: checks its id and index and changes nothing on failure; a filter set on
 *    a sleeping box that rests on the ground wakes it, the contact ends and it falls.
 * 4. Ray filters: a ray down onto a box on the ground hits the box, the ground when the
 *    box's category is masked out or the box ignored, nothing when both; sensors are
 *    never hit; a stale ignore id ignores nothing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/world.h"

static qp_world world, before;

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }

static qp_shape_filter filter(unsigned category, unsigned mask, int group)
{
    qp_shape_filter f = qp_default_shape_filter();
    f.category = (uint16_t)category;
    f.mask = (uint16_t)mask;
    f.group = (int16_t)group;
    return f;
}

static void init(void)
{
    qp_world_def def = qp_default_world_def();
    assert_int_equal(qp_world_init(&world, &def), QP_OK);
}

static qp_body_id add_ground(qp_shape_filter f)
{
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    assert_int_equal(qp_make_plane(V(0, 1, 0), 0, &d.shapes[0]), QP_OK);
    d.filters[0] = f;
    qp_result err;
    qp_body_id id = qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static qp_body_id add_box(double x, double y, qp_shape_filter f)
{
    qp_body_def d = qp_default_body_def();
    d.position = V(x, y, 0);
    d.shape_count = 1;
    assert_int_equal(qp_make_box(V(0.5, 0.5, 0.5), &d.shapes[0]), QP_OK);
    d.filters[0] = f;
    qp_result err;
    qp_body_id id = qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
    return id;
}

static void steps(int n)
{
    for (int i = 0; i < n; i++) qp_world_step(&world);
}

static double height(qp_body_id b) { return D(qp_body_position(&world, b).y); }

/* ---- 1. masks ---------------------------------------------------------------------------- */

static void test_masks(void **st)
{
    (void)st;
    /* the default filter: the dropped box lands on the lower one */
    init();
    add_ground(qp_default_shape_filter());
    qp_body_id low = add_box(0, 0.5, qp_default_shape_filter()), top = add_box(0.2, 3, qp_default_shape_filter());
    steps(180);
    assert_true(fabs(height(top) - 1.5) < 0.05);
    /* the dropped box is of category 2 and leaves category 4 (the lower box) out */
    init();
    add_ground(qp_default_shape_filter());
    low = add_box(0, 0.5, filter(4, 0xFFFF, 0));
    top = add_box(0.2, 3, filter(2, 0xFFFF & ~4u, 0));
    steps(180);
    assert_true(fabs(height(top) - 0.5) < 0.01);   /* on the ground, through the box */
    assert_true(fabs(height(low) - 0.5) < 0.01);
    assert_true(fabs(D(qp_body_position(&world, low).x)) < 0.001);   /* not pushed */
    assert_int_equal(qp_world_get_stats(&world).contacts, 2);
    /* one side is enough: the lower box's mask leaves the top's category out */
    init();
    add_ground(qp_default_shape_filter());
    low = add_box(0, 0.5, filter(4, 0xFFFF & ~2u, 0));
    top = add_box(0.2, 3, filter(2, 0xFFFF, 0));
    steps(180);
    assert_true(fabs(height(top) - 0.5) < 0.01);
    /* a box whose mask leaves out the ground's category falls through it */
    init();
    add_ground(filter(8, 0xFFFF, 0));
    top = add_box(0, 0.5, filter(1, 0xFFFF & ~8u, 0));
    steps(60);
    assert_true(height(top) < -4);
    assert_int_equal(qp_world_get_stats(&world).pairs, 0);   /* filtered before a pair is made */
}

/* ---- 2. groups --------------------------------------------------------------------------------- */

/* Where does a box dropped on a resting one end up (1.5 m on top, 0.5 m through it)? */
static double landing(qp_shape_filter low_f, qp_shape_filter top_f)
{
    init();
    add_ground(qp_default_shape_filter());
    add_box(0, 0.5, low_f);
    qp_body_id top = add_box(0.2, 3, top_f);
    steps(180);
    return height(top);
}

static void test_groups(void **st)
{
    (void)st;
    /* same negative group: never, though the masks allow it */
    assert_true(fabs(landing(filter(1, 0xFFFF, -3), filter(1, 0xFFFF, -3)) - 0.5) < 0.01);
    /* same positive group: always, though the masks forbid it (category 2 leaves 2 out;
     * both still see the ground's category 1) */
    const unsigned not2 = 0xFFFF & ~2u;
    assert_true(fabs(landing(filter(2, not2, 5), filter(2, not2, 5)) - 1.5) < 0.05);
    /* different groups: the masks decide */
    assert_true(fabs(landing(filter(1, 0xFFFF, -3), filter(1, 0xFFFF, -4)) - 1.5) < 0.05);
    assert_true(fabs(landing(filter(2, not2, 5), filter(2, not2, 6)) - 0.5) < 0.01);
    /* a group of zero is none: masks */
    assert_true(fabs(landing(filter(2, 0xFFFF, 0), filter(1, 0xFFFF & ~2u, 0)) - 0.5) < 0.01);
}

/* ---- 3. the setter ------------------------------------------------------------------------------- */

static void test_setter(void **st)
{
    (void)st;
    init();
    qp_body_id ground = add_ground(filter(8, 0xFFFF, 0));
    qp_body_id box = add_box(0, 0.5, qp_default_shape_filter());
    steps(200);
    assert_false(qp_body_is_awake(&world, box));
    /* bad calls change nothing */
    memcpy(&before, &world, sizeof world);
    qp_body_id stale = box;
    stale.generation++;
    assert_int_equal(qp_body_set_shape_filter(&world, stale, 0, filter(1, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_set_shape_filter(&world, qp_null_body(), 0, filter(1, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_set_shape_filter(&world, box, 1, filter(1, 0, 0)), QP_ERR_RANGE);
    assert_int_equal(qp_body_set_shape_filter(&world, box, -1, filter(1, 0, 0)), QP_ERR_RANGE);
    assert_memory_equal(&before, &world, sizeof world);
    assert_int_equal(qp_body_shape_filter(&world, box, 0).mask, 0xFFFF);
    assert_int_equal(qp_body_shape_filter(&world, ground, 0).category, 8);
    /* leave the ground out: the sleeping box wakes, its contact ends, it falls */
    assert_int_equal(qp_body_set_shape_filter(&world, box, 0, filter(1, 0xFFFF & ~8u, 0)), QP_OK);
    assert_true(qp_body_is_awake(&world, box));
    assert_int_equal(qp_body_shape_filter(&world, box, 0).mask, 0xFFFF & ~8u);
    qp_world_step(&world);
    const qp_contact_event *e;
    int n = qp_world_contact_events(&world, &e);
    int ends = 0;
    for (int i = 0; i < n; i++) ends += e[i].kind == QP_EVENT_END;
    assert_int_equal(ends, 1);
    steps(60);
    assert_true(height(box) < -4);
    /* and the other way: set on the static ground, a sleeping box on it is woken too */
    init();
    ground = add_ground(qp_default_shape_filter());
    box = add_box(0, 0.5, filter(2, 0xFFFF, 0));
    steps(200);
    assert_false(qp_body_is_awake(&world, box));
    assert_int_equal(qp_body_set_shape_filter(&world, ground, 0, filter(1, 0xFFFF & ~2u, 0)), QP_OK);
    assert_true(qp_body_is_awake(&world, box));
    steps(60);
    assert_true(height(box) < -4);
}

/* ---- 4. ray filters ------------------------------------------------------------------------------ */

static void test_ray_filter(void **st)
{
    (void)st;
    init();
    qp_body_id ground = add_ground(filter(1, 0xFFFF, 0));
    qp_body_id box = add_box(0, 0.5, filter(2, 0xFFFF, 0));
    qp_body_def d = qp_default_body_def();   /* a sensor above the box: never hit */
    d.type = QP_BODY_STATIC;
    d.position = V(0, 3, 0);
    d.shape_count = 1;
    assert_int_equal(qp_make_box(V(1, 1, 1), &d.shapes[0]), QP_OK);
    d.sensors[0] = true;
    qp_result err;
    (void)qp_create_body(&world, &d, &err);
    assert_int_equal(err, QP_OK);
    qp_vec3 o = V(0, 10, 0), down = V(0, -20, 0);
    qp_world_ray_hit hit;
    for (int pass = 0; pass < 2; pass++) {   /* before any step (order not kept) and after one */
        assert_true(qp_world_raycast(&world, o, down, &hit));
        assert_int_equal(hit.body.index, box.index);
        assert_true(fabs(D(hit.hit.point.y) - 1.0) < 0.01);
        qp_ray_filter f = qp_default_ray_filter();
        assert_true(qp_world_raycast_filtered(&world, o, down, &f, &hit));
        assert_int_equal(hit.body.index, box.index);
        f.mask = 0xFFFF & ~2u;   /* not the box's category: the ground */
        assert_true(qp_world_raycast_filtered(&world, o, down, &f, &hit));
        assert_int_equal(hit.body.index, ground.index);
        assert_true(fabs(D(hit.hit.point.y)) < 0.01);
        f = qp_default_ray_filter();
        f.ignore = box;   /* through the box */
        assert_true(qp_world_raycast_filtered(&world, o, down, &f, &hit));
        assert_int_equal(hit.body.index, ground.index);
        f.mask = 2;   /* only the box's category, and the box ignored: nothing */
        memset(&hit, 0x5A, sizeof hit);
        qp_world_ray_hit untouched = hit;
        assert_false(qp_world_raycast_filtered(&world, o, down, &f, &hit));
        assert_memory_equal(&hit, &untouched, sizeof hit);
        qp_world_step(&world);
    }
    /* a stale id ignores nothing */
    qp_ray_filter f = qp_default_ray_filter();
    f.ignore = box;
    f.ignore.generation++;
    assert_true(qp_world_raycast_filtered(&world, o, down, &f, &hit));
    assert_int_equal(hit.body.index, box.index);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masks),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_setter),
        cmocka_unit_test(test_ray_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
