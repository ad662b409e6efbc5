/* SPDX-License-Identifier: MIT */
/* Capacities at run time (include/qphys/world.h, src/world_memory.c): worlds of 21 and of
 * 20 000 bodies side by side in one program, in memory the test gives them; the memory a
 * world takes, exactly; refusals of bad capacities, small buffers and small worlds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "qp_test_util.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static char *read_all(const char *path, unsigned long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    *len = (unsigned long)n;
    return buf;
}

/* A world of capacities c in memory of exactly its size, from malloc. */
static qp_world *new_world(const qp_world_caps *c)
{
    unsigned long n = qp_world_memory_size(c);
    assert_true(n > 0);
    void *memory = malloc(n);
    assert_non_null(memory);
    qp_world_def def = qp_default_world_def();
    qp_world *w = NULL;
    assert_int_equal(qp_world_init_in(memory, n, c, &def, &w), QP_OK);
    assert_ptr_equal(w, memory);
    return w;
}

static void load(qp_world *w, const char *text, unsigned long len)
{
    qp_scene_error err;
    qp_result r = qp_scene_load(w, text, len, NULL, &err);
    if (r != QP_OK) fail_msg("%d:%d: %s", err.line, err.column, err.message);
}

/* stack20's golden hash of step s (tests/scenes/golden/stack20.hashes). */
static uint32_t golden_stack20(int s)
{
    FILE *f = fopen("tests/scenes/golden/stack20.hashes", "r");
    assert_non_null(f);
    int step;
    unsigned h = 0;
    while (fscanf(f, "%d %x", &step, &h) == 2 && step < s) {}
    fclose(f);
    assert_int_equal(step, s);
    return h;
}

/* head, then count cubes of half size half at height y, row to a row pitch apart, the
 * first at (-x0, y, -z0). */
static char *cube_grid(const char *head, int count, int row, double half, double pitch, double y, double x0,
                       double z0, unsigned long *len)
{
    char *t = malloc((size_t)count * 64 + strlen(head) + 1);
    assert_non_null(t);
    int n = sprintf(t, "%s", head);
    for (int i = 0; i < count; i++)
        n += sprintf(t + n, "box half %g %g %g pos %.1f %g %.1f\n", half, half, half, pitch * (i % row) - x0, y,
                     pitch * (i / row) - z0);
    *len = (unsigned long)n;
    return t;
}

/* 19 999 cubes 2 m apart, dropped from 0.25 m onto a plane: 20 000 bodies. */
static char *field_scene(unsigned long *len)
{
    return cube_grid("world sleep on\nplane\n", 19999, 142, 0.5, 2, 0.75, 141, 141, len);
}

/* One program, two worlds of 21 and 20 000 bodies stepped in turn: the small one gives
 * stack20's golden hashes (as a default world does), the large one lands every cube at rest
 * on the ground; and the large one's hashes are those of a world of other capacities. */
static void test_21_and_20000_bodies_side_by_side(void **state)
{
    (void)state;
    qp_world_caps small = qp_world_caps_for(21, 21, 1), large = qp_world_caps_for(20000, 20000, 1);
    assert_int_equal(large.bodies, 20000);
    qp_world *a = new_world(&small), *b = new_world(&large);
    unsigned long len;
    const char *stack = read_all("tests/scenes/stack20.scene", &len);
    load(a, stack, len);
    char *field = field_scene(&len);
    load(b, field, len);
    assert_int_equal(qp_world_get_stats(b).bodies, 0);   /* counted by the first step */
    /* The same field in a world of more contacts and pairs than it needs. */
    qp_world_caps roomy = large;
    roomy.contacts = 65535;
    roomy.pairs = 300000;
    qp_world *c = new_world(&roomy);
    load(c, field, len);
    free(field);
    for (int s = 1; s <= 40; s++) {
        qp_world_step(a);
        qp_world_step(b);
        qp_world_step(c);
        if (qp_world_hash(a) != golden_stack20(s)) fail_msg("step %d: the 21-body world's hash is not stack20's", s);
        if (qp_world_hash(b) != qp_world_hash(c)) fail_msg("step %d: the 20 000-body worlds differ", s);
    }
    qp_world_stats st = qp_world_get_stats(b);
    assert_int_equal(st.bodies, 20000);
    assert_int_equal(st.overflows, 0);
    print_message("20 000 bodies: %d awake, %d asleep, %d contacts after 40 steps\n", st.awake, st.asleep, st.contacts);
    assert_int_equal(st.contacts, 19999);
    for (int i = 2; i <= 20000; i += 997) {
        fix16_t y = qp_body_position(b, qp_world_body_at(b, i)).y;
        if (y < f16(0.49) || y > f16(0.51)) fail_msg("cube %d at y = %f, not on the ground", i, d16(y));
    }
    free(a);
    free(b);
    free(c);
}

/* A column of ten cubes standing askew at x = -100 m, sleep off; with a pyramid wall of a
 * 60-cube base (1 830 cubes, about 5 300 contacts) at x = 100 m when `wall`. */
static char *column_scene(bool wall, unsigned long *len)
{
    char *t = malloc(2000 * 64 + 256);
    assert_non_null(t);
    int n = sprintf(t, "world sleep off\nplane\n");
    for (int i = 0; i < 10; i++)
        n += sprintf(t + n, "box half 0.5 0.5 0.5 pos %.3f %.3f %.3f rot 0 1 0 %d\n", -100 + 0.03 * (i % 3),
                     0.5 + 1.001 * i, 0.02 * (i % 2), 3 * i);
    for (int row = 0; wall && row < 60; row++)
        for (int k = 0; k < 60 - row; k++)
            n += sprintf(t + n, "box half 0.5 0.5 0.5 pos %.1f %.1f 0\n", 100 + k - (59 - row) * 0.5, 0.5 + row);
    *len = (unsigned long)n;
    return t;
}

/* What a group of bodies does depends on that group alone: a wall far away, whose awake
 * sweeps make tens of thousands of contact visits a pass, leaves the bits of a column's
 * poses and velocities as they are without it (the passes' visit numbers never run out,
 * src/quiet.h). */
static void test_far_wall_changes_no_bit(void **state)
{
    (void)state;
    const qp_world_caps caps = qp_world_caps_for(2000, 2000, 1);
    qp_world *alone = new_world(&caps), *beside = new_world(&caps);
    unsigned long len;
    char *text = column_scene(false, &len);
    load(alone, text, len);
    free(text);
    text = column_scene(true, &len);
    load(beside, text, len);
    free(text);
    for (int s = 1; s <= 45; s++) {
        qp_world_step(alone);
        qp_world_step(beside);
        for (int i = 2; i <= 11; i++) {
            qp_body_id a = qp_world_body_at(alone, i), b = qp_world_body_at(beside, i);
            qp_vec3 pa = qp_body_position(alone, a), pb = qp_body_position(beside, b);
            qp_vec3 va = qp_body_angular_velocity(alone, a), vb = qp_body_angular_velocity(beside, b);
            if (memcmp(&pa, &pb, sizeof pa) != 0 || memcmp(&va, &vb, sizeof va) != 0)
                fail_msg("step %d: cube %d of the column moves otherwise beside the far wall", s, i - 1);
        }
    }
    qp_world_stats st = qp_world_get_stats(beside);
    print_message("far wall: %d contacts; the column's top at y = %.3f m\n", st.contacts,
                  d16(qp_body_position(alone, qp_world_body_at(alone, 11)).y));
    assert_true(st.contacts > 5000);
    assert_true(qp_body_position(alone, qp_world_body_at(alone, 11)).y > f16(9.4));   /* it stands */
    free(alone);
    free(beside);
}

/* The memory of a world: it grows with every capacity, a world of the default capacities
 * takes sizeof(qp_world), and qp_world_init_in takes exactly that many bytes, writes none
 * past them (a guard after them stays), and refuses one byte fewer. */
static void test_memory_size_monotonic_and_exact(void **state)
{
    (void)state;
    const qp_world_caps d = QP_DEFAULT_CAPS_INIT;
    assert_int_equal(qp_world_memory_size(&d), sizeof(qp_world));
    qp_world_caps c = qp_world_caps_for(100, 100, 4);
    unsigned long base = qp_world_memory_size(&c);
    int *fields[] = { &c.bodies, &c.shapes, &c.pairs, &c.contacts, &c.joints, &c.events, &c.sensor_overlaps, &c.hulls };
    for (unsigned f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        int was = *fields[f];
        unsigned long last = base;
        for (int k = 1; k <= 64; k++) {
            *fields[f] = was + k;
            unsigned long n = qp_world_memory_size(&c);
            if (n < last) fail_msg("capacity %u at %d: %lu bytes, fewer than at %d", f, was + k, n, was + k - 1);
            last = n;
        }
        assert_true(last > base);   /* 64 more of anything take more memory */
        *fields[f] = was;
    }
    /* Exact: a world in exactly its bytes, then a guard; one byte fewer is refused untouched. */
    unsigned long n = qp_world_memory_size(&c);
    unsigned char *memory = malloc(n + 64);
    assert_non_null(memory);
    memset(memory, 0xC5, n + 64);
    qp_world_def def = qp_default_world_def();
    qp_world *w = NULL;
    assert_int_equal(qp_world_init_in(memory, n - 1, &c, &def, &w), QP_ERR_PARAM);
    assert_null(w);
    for (unsigned long i = 0; i < n + 64; i++)
        if (memory[i] != 0xC5) fail_msg("byte %lu written by a refused init", i);
    assert_int_equal(qp_world_init_in(memory, n, &c, &def, &w), QP_OK);
    unsigned long len;
    const char *stack = read_all("tests/scenes/stack20.scene", &len);
    load(w, stack, len);
    for (int s = 0; s < 30; s++) qp_world_step(w);
    for (unsigned long i = n; i < n + 64; i++)
        if (memory[i] != 0xC5) fail_msg("byte %lu past the world's %lu written", i, n);
    free(memory);
}

/* Capacities out of their ranges, a buffer too small or misaligned, null arguments: refused
 * with QP_ERR_PARAM, nothing written. */
static void test_init_refuses_cleanly(void **state)
{
    (void)state;
    static uint64_t buffer[1 << 16];
    unsigned char *memory = (unsigned char *)buffer;
    memset(buffer, 0x3C, sizeof buffer);
    qp_world_def def = qp_default_world_def();
    qp_world *w = NULL;
    const qp_world_caps ok = qp_world_caps_for(8, 8, 1);
    assert_true(qp_world_memory_size(&ok) <= sizeof buffer - 8);
    qp_world_caps bad[11];
    for (int k = 0; k < 11; k++) bad[k] = ok;
    bad[0].bodies = 0;
    bad[1].shapes = 0;
    bad[2].pairs = 0;
    bad[3].contacts = 0;
    bad[4].joints = 0;
    bad[5].events = 0;
    bad[6].sensor_overlaps = -1;
    bad[7].bodies = 65533;
    bad[8].contacts = 65536;
    bad[9].hulls = -1;
    bad[10].hulls = 65536;
    for (int k = 0; k < 11; k++) {
        assert_int_equal(qp_world_memory_size(&bad[k]), 0);
        assert_int_equal(qp_world_init_in(memory, sizeof buffer, &bad[k], &def, &w), QP_ERR_PARAM);
    }
    assert_int_equal(qp_world_memory_size(NULL), 0);
    assert_int_equal(qp_world_init_in(memory + 4, sizeof buffer - 4, &ok, &def, &w), QP_ERR_PARAM);
    assert_int_equal(qp_world_init_in(NULL, sizeof buffer, &ok, &def, &w), QP_ERR_PARAM);
    assert_int_equal(qp_world_init_in(memory, sizeof buffer, NULL, &def, &w), QP_ERR_PARAM);
    assert_int_equal(qp_world_init_in(memory, sizeof buffer, &ok, NULL, &w), QP_ERR_PARAM);
    assert_int_equal(qp_world_init_in(memory, sizeof buffer, &ok, &def, NULL), QP_ERR_PARAM);
    qp_world_def wrong = def;
    wrong.dt = 0;
    assert_int_equal(qp_world_init_in(memory, sizeof buffer, &ok, &wrong, &w), QP_ERR_RANGE);
    assert_null(w);
    for (unsigned long i = 0; i < sizeof buffer; i++)
        if (memory[i] != 0x3C) fail_msg("byte %lu written by a refused init", i);
    /* The smallest world: one of everything. It holds one body, and refuses a second. */
    const qp_world_caps one = { 1, 1, 1, 1, 1, 1, 1, 0 };
    assert_int_equal(qp_world_init_in(memory, sizeof buffer, &one, &def, &w), QP_OK);
    qp_body_def bd = qp_default_body_def();
    bd.shape_count = 1;
    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_ONE, QP_ONE), &bd.shapes[0]), QP_OK);
    qp_result r;
    qp_create_body(w, &bd, &r);
    assert_int_equal(r, QP_OK);
    qp_create_body(w, &bd, &r);
    assert_int_equal(r, QP_ERR_FULL);
    assert_int_equal(qp_world_body_capacity(w), 1);
}

/* A snapshot restores into a world that holds it, and is refused by one too small for it,
 * which stays as it was; qp_snapshot_caps and qp_world_caps_short name what is short. A
 * scene too large for a world fails at the first body past its capacity. */
static void test_small_world_refuses_and_names_the_capacity(void **state)
{
    (void)state;
    unsigned long len;
    const char *stack = read_all("tests/scenes/stack20.scene", &len);
    qp_world *src = new_world(&(qp_world_caps){ 21, 21, 64, 32, 2, 8, 2, 0 });
    load(src, stack, len);
    for (int s = 0; s < 40; s++) qp_world_step(src);
    unsigned long n = qp_world_snapshot(src, NULL, 0);
    unsigned char *snap = malloc(n);
    assert_non_null(snap);
    assert_int_equal(qp_world_snapshot(src, snap, n), n);
    qp_world_caps need;
    assert_int_equal(qp_snapshot_caps(snap, n, &need), QP_OK);
    assert_int_equal(need.bodies, 21);
    assert_int_equal(need.shapes, 21);
    assert_int_equal(need.contacts, qp_world_get_stats(src).contacts);
    assert_int_equal(need.pairs, qp_world_get_stats(src).pairs);
    assert_int_equal(need.pairs, 20);
    assert_null(qp_world_caps_short(&need, &need));
    snap[n / 2] ^= 1;
    assert_int_equal(qp_snapshot_caps(snap, n, &need), QP_ERR_BUFFER);
    snap[n / 2] ^= 1;
    assert_int_equal(qp_snapshot_caps(snap, n, &need), QP_OK);

    static const struct {
        qp_world_caps caps;
        const char *shortage;
    } small[] = {
        { { 20, 21, 64, 32, 2, 8, 2, 0 }, "bodies" },
        { { 21, 20, 64, 32, 2, 8, 2, 0 }, "shapes" },
        { { 21, 21, 64, 10, 2, 8, 2, 0 }, "contacts" },
        { { 21, 21, 10, 32, 2, 8, 2, 0 }, "pairs" },   /* last step's 20 */
    };
    for (unsigned k = 0; k < sizeof small / sizeof small[0]; k++) {
        qp_world *w = new_world(&small[k].caps);
        const char *text = "plane\nsphere radius 0.5 pos 0 3 0\n";
        load(w, text, strlen(text));
        qp_world_step(w);
        uint32_t before = qp_world_hash(w);
        assert_int_equal(qp_world_restore(w, snap, n), QP_ERR_FULL);
        assert_int_equal(qp_world_hash(w), before);
        const char *s = qp_world_caps_short(&small[k].caps, &need);
        assert_non_null(s);
        assert_string_equal(s, small[k].shortage);
        free(w);
    }
    /* A world that holds it: the same state, step for step. */
    qp_world *w = new_world(&(qp_world_caps){ 21, 21, 200, 21, 1, 1, 1, 0 });
    assert_int_equal(qp_world_restore(w, snap, n), QP_OK);
    for (int s = 41; s <= 80; s++) {
        qp_world_step(src);
        qp_world_step(w);
        assert_int_equal(qp_world_hash(w), golden_stack20(s));
        assert_int_equal(qp_world_hash(w), qp_world_hash(src));
    }
    /* stack20 into a world of 20 bodies: the 21st body's line, and the world unchanged. */
    qp_world *tiny = new_world(&(qp_world_caps){ 20, 20, 64, 32, 1, 8, 1, 0 });
    qp_scene_error err;
    uint32_t before = qp_world_hash(tiny);
    assert_int_equal(qp_scene_load(tiny, stack, len, NULL, &err), QP_ERR_FULL);
    assert_int_equal(err.line, 24);   /* two comment lines, the world line, the plane, then 20 cubes */
    assert_non_null(strstr(err.message, "capacit"));
    assert_int_equal(qp_world_hash(tiny), before);
    free(tiny);
    free(w);
    free(src);
    free(snap);
}

/* qp_world_copy: a copy steps to the same hashes as its original, in memory of its own (an
 * assignment would share the original's pools); worlds of other capacities are refused. */
static void test_copy(void **state)
{
    (void)state;
    unsigned long len;
    const char *stack = read_all("tests/scenes/stack20.scene", &len);
    const qp_world_caps c = qp_world_caps_for(30, 30, 1);
    qp_world *a = new_world(&c), *b = new_world(&c);
    load(a, stack, len);
    for (int s = 0; s < 10; s++) qp_world_step(a);
    assert_int_equal(qp_world_copy(b, a), QP_OK);
    for (int s = 0; s < 20; s++) qp_world_step(b);
    assert_int_equal(qp_world_get_stats(a).step, 10);   /* a is as it was */
    for (int s = 0; s < 20; s++) qp_world_step(a);
    assert_int_equal(qp_world_hash(a), qp_world_hash(b));
    assert_int_equal(qp_world_hash(b), golden_stack20(30));
    qp_world *other = new_world(&(qp_world_caps){ 31, 30, 240, 90, 1, 8, 1, 0 });
    assert_int_equal(qp_world_copy(other, a), QP_ERR_PARAM);
    free(a);
    free(b);
    free(other);
}

/* A byte copy of a qp_world shares its original's pools until a restore or a scene load
 * places the copy's own: then the two step apart, the original untouched. */
static void test_byte_copy_restored_gets_its_own_pools(void **state)
{
    (void)state;
    static qp_world a, b;
    unsigned long len;
    const char *stack = read_all("tests/scenes/stack20.scene", &len);
    load(&a, stack, len);
    for (int s = 0; s < 10; s++) qp_world_step(&a);
    static unsigned char snap[1 << 16];
    unsigned long n = qp_world_snapshot(&a, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    memcpy(&b, &a, sizeof b);
    assert_int_equal(qp_world_restore(&b, snap, n), QP_OK);
    uint32_t h = qp_world_hash(&a);
    for (int s = 11; s <= 30; s++) qp_world_step(&b);
    assert_int_equal(qp_world_hash(&a), h);
    assert_int_equal(qp_world_get_stats(&a).step, 10);
    assert_int_equal(qp_world_hash(&b), golden_stack20(30));
}

/* A convex rock of 8-12 corners within 0.4 m, its points from seed. */
static int rock_points(qp_vec3 *p, uint32_t seed)
{
    int n = 8 + (int)(seed % 5);
    for (int i = 0; i < 3 * n; i++) {
        seed = seed * 1103515245u + 12345u;
        (&p[i / 3].x)[i % 3] = (fix16_t)((int32_t)(seed >> 8 & 0xFFFF) * 2 / 5 - 13107);   /* -0.2 .. +0.2 m */
    }
    return n;
}

/* 300 small boxes at rest on a plane, all inside one static sensor box. */
static char *sensor_scene(unsigned long *len)
{
    return cube_grid("world sleep on\nplane\nbox half 8 2 6 pos 0 1 0 static sensor\n", 300, 20, 0.25, 0.6, 0.25, 5.7,
                     4.2, len);
}

/* The begin events of this step's first contact and sensor events' buffers. */
static int begins(const qp_contact_event *c, int nc, const qp_sensor_event *s, int ns, int *sensor_begins)
{
    int k = 0;
    for (int i = 0; i < nc; i++) k += c[i].kind == QP_EVENT_BEGIN;
    *sensor_begins = 0;
    for (int i = 0; i < ns; i++) *sensor_begins += s[i].kind == QP_EVENT_BEGIN;
    return k;
}

/* A world sized by qp_world_caps_for holds a sensor overlap a shape and an event for every
 * contact: 300 boxes placed at rest inside one sensor begin 300 contacts and 300 overlaps in
 * the first step, all reported, none lost. A default world (256 events, 64 overlaps) loses
 * reports and overlaps (counted) but moves every body the same; small worlds keep the
 * default events and overlaps. */
static void test_events_and_overlaps_scale(void **state)
{
    (void)state;
    const qp_world_caps small = qp_world_caps_for(21, 21, 1);
    assert_int_equal(small.events, QP_CFG_MAX_EVENTS);
    assert_int_equal(small.sensor_overlaps, QP_CFG_MAX_SENSOR_OVERLAPS);
    assert_int_equal(qp_world_caps_for(20000, 20000, 1).events, 32767);
    unsigned long len;
    char *text = sensor_scene(&len);
    qp_scene_info info;
    qp_scene_error err;
    assert_int_equal(qp_scene_check(text, len, &info, &err), QP_OK);
    qp_world_caps c = qp_world_caps_for(info.bodies, info.shapes, 1);
    assert_true(c.events >= 300 && c.sensor_overlaps >= 300);
    qp_world *sized = new_world(&c);
    static qp_world fixed;
    load(sized, text, len);
    load(&fixed, text, len);
    qp_world_step(sized);
    qp_world_step(&fixed);
    const qp_contact_event *ce;
    const qp_sensor_event *se;
    int nc = qp_world_contact_events(sized, &ce), ns = qp_world_sensor_events(sized, &se), sensor_begins;
    assert_int_equal(begins(ce, nc, se, ns, &sensor_begins), 300);
    assert_int_equal(sensor_begins, 300);
    assert_int_equal(qp_world_events_lost(sized), 0);
    assert_int_equal(qp_world_get_stats(sized).overflows, 0);
    nc = qp_world_contact_events(&fixed, &ce);
    ns = qp_world_sensor_events(&fixed, &se);
    assert_true(begins(ce, nc, se, ns, &sensor_begins) < 300);
    assert_true(sensor_begins < 300);
    assert_true(qp_world_events_lost(&fixed) > 0);
    assert_true(qp_world_get_stats(&fixed).overflows > 0);
    for (int s = 1; s < 60; s++) {
        qp_world_step(sized);
        qp_world_step(&fixed);
    }
    for (int i = 0; i < info.bodies; i++) {
        const qp_body_id a = qp_scene_body(sized, i), b = qp_scene_body(&fixed, i);
        const qp_vec3 pa = qp_body_position(sized, a), pb = qp_body_position(&fixed, b);
        assert_memory_equal(&pa, &pb, sizeof pa);
    }
    free(text);
    free(sized);
}

/* A scene of that many rocks (`hull` lines) over a plane. */
static char *rocks_scene(int rocks, unsigned long *len)
{
    char *t = malloc((size_t)rocks * 600 + 64);
    assert_non_null(t);
    int n = sprintf(t, "world sleep on\nplane\n");
    for (int i = 0; i < rocks; i++) {
        qp_vec3 p[12];
        int k = rock_points(p, 977u * (uint32_t)i + 5u);
        n += sprintf(t + n, "hull points");
        for (int j = 0; j < k; j++)
            n += sprintf(t + n, " %.4f %.4f %.4f", p[j].x / 65536.0, p[j].y / 65536.0, p[j].z / 65536.0);
        n += sprintf(t + n, " pos %d %d %d mass 2\n", i % 5 - 2, 1 + i / 25, (i / 5) % 5 - 2);
    }
    *len = (unsigned long)n;
    return t;
}

/* Hulls are a capacity like the others: a world of caps.hulls 40 holds 40 hull bodies past
 * the default pool's, refuses the 41st unchanged and reuses a destroyed body's entry; a
 * scene of 40 rocks counts them, is refused by a default world at its 17th and loads into
 * one sized to it; its snapshot names the hulls it needs, is refused by a world short of
 * them (which stays as it was) and restores into one that holds them, to the same hashes;
 * a world of caps.hulls 0 refuses a hull body and holds a box. */
static void test_hulls_are_a_capacity(void **state)
{
    (void)state;
    assert_int_equal(qp_world_caps_for(10, 10, 1).hulls, QP_CFG_MAX_HULLS);
    qp_world_caps c = qp_world_caps_for(50, 50, 1);
    c.hulls = 40;
    qp_world *w = new_world(&c);
    qp_body_def d = qp_default_body_def();
    d.shape_count = 1;
    d.mass = QP_INT(2);
    static qp_hull rock;
    qp_vec3 p[12];
    qp_body_id ids[40];
    for (int i = 0; i < 40; i++) {
        assert_int_equal(qp_hull_build(p, rock_points(p, (uint32_t)i + 1u), &rock), QP_OK);
        assert_int_equal(qp_make_hull(&rock, &d.shapes[0]), QP_OK);
        d.position = qp_v3(QP_INT(i % 8), QP_INT(1), QP_INT(i / 8));
        qp_result r;
        ids[i] = qp_create_body(w, &d, &r);
        assert_int_equal(r, QP_OK);
    }
    static unsigned char before[1 << 17], after[1 << 17];
    unsigned long n = qp_world_snapshot(w, before, sizeof before);
    assert_true(n > 0);
    qp_result r;
    assert_true(qp_body_id_is_null(qp_create_body(w, &d, &r)));
    assert_int_equal(r, QP_ERR_FULL);
    assert_int_equal(qp_world_snapshot(w, after, sizeof after), n);
    assert_memory_equal(before, after, n);
    assert_int_equal(qp_destroy_body(w, ids[7]), QP_OK);
    assert_int_equal(qp_destroy_body(w, ids[30]), QP_OK);
    for (int i = 0; i < 2; i++) {
        assert_false(qp_body_id_is_null(qp_create_body(w, &d, &r)));
        assert_int_equal(r, QP_OK);
    }
    assert_true(qp_body_id_is_null(qp_create_body(w, &d, &r)));
    assert_int_equal(r, QP_ERR_FULL);
    free(w);

    /* The scene. */
    unsigned long len;
    char *text = rocks_scene(40, &len);
    qp_scene_info info;
    qp_scene_error err;
    assert_int_equal(qp_scene_check(text, len, &info, &err), QP_OK);
    assert_int_equal(info.hulls, 40);
    const qp_world_caps default_hulls = qp_world_caps_for(60, 60, 1);
    qp_world *small = new_world(&default_hulls);
    unsigned long n0 = qp_world_snapshot(small, before, sizeof before);
    assert_int_equal(qp_scene_load(small, text, len, NULL, &err), QP_ERR_FULL);
    assert_int_equal(err.line, 2 + QP_CFG_MAX_HULLS + 1);
    assert_string_equal(err.message, "too many hulls for this world's capacities (hulls)");
    assert_int_equal(qp_world_snapshot(small, after, sizeof after), n0);
    assert_memory_equal(before, after, n0);
    c = qp_world_caps_for(info.bodies, info.shapes, 1);
    c.hulls = info.hulls;
    w = new_world(&c);
    load(w, text, len);
    for (int s = 0; s < 90; s++) qp_world_step(w);
    n = qp_world_snapshot(w, before, sizeof before);
    assert_true(n > 0);
    qp_world_caps need;
    assert_int_equal(qp_snapshot_caps(before, n, &need), QP_OK);
    assert_int_equal(need.hulls, 40);
    const qp_world_caps have = qp_world_get_caps(small);
    assert_string_equal(qp_world_caps_short(&have, &need), "hulls");
    uint32_t h0 = qp_world_hash(small);
    assert_int_equal(qp_world_restore(small, before, n), QP_ERR_FULL);
    assert_int_equal(qp_world_hash(small), h0);
    qp_world *twin = new_world(&c);
    assert_int_equal(qp_world_restore(twin, before, n), QP_OK);
    for (int s = 0; s < 90; s++) {
        qp_world_step(w);
        qp_world_step(twin);
        assert_int_equal(qp_world_hash(twin), qp_world_hash(w));
    }
    /* No rock's lowest corner is more than 1 cm into the plane. */
    for (int i = 1; i <= 40; i++) {
        qp_body_id id = qp_scene_body(w, i);
        const qp_shape *sh = qp_body_shape(w, id, 0);
        fix16_t low = INT32_MAX;
        for (int v = 0; v < sh->hull->vert_count; v++) {
            fix16_t y = qp_quat_rotate(qp_body_rotation(w, id), qp_v3_add(sh->offset, sh->hull->verts[v])).y;
            if (y < low) low = y;
        }
        low += qp_body_center(w, id).y;   /* the offsets are from the centre of mass */
        if (low < -QP_FRAC(1, 100)) fail_msg("rock %d: a corner at y %.4f m", i, low / 65536.0);
    }
    free(text);
    free(w);
    free(twin);
    free(small);

    /* No hulls at all. */
    c = qp_world_caps_for(4, 4, 1);
    c.hulls = 0;
    w = new_world(&c);
    assert_true(qp_body_id_is_null(qp_create_body(w, &d, &r)));
    assert_int_equal(r, QP_ERR_FULL);
    assert_int_equal(qp_make_box(qp_v3(QP_ONE, QP_ONE, QP_ONE), &d.shapes[0]), QP_OK);
    assert_false(qp_body_id_is_null(qp_create_body(w, &d, &r)));
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_21_and_20000_bodies_side_by_side),
        cmocka_unit_test(test_far_wall_changes_no_bit),
        cmocka_unit_test(test_memory_size_monotonic_and_exact),
        cmocka_unit_test(test_init_refuses_cleanly),
        cmocka_unit_test(test_small_world_refuses_and_names_the_capacity),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_byte_copy_restored_gets_its_own_pools),
        cmocka_unit_test(test_hulls_are_a_capacity),
        cmocka_unit_test(test_events_and_overlaps_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
