/* SPDX-License-Identifier: MIT */
/* Input log and replay (include/qphys/record.h, src/input_log.c, src/input_replay.c), and ids across restore.
 *
 * 1. A run driven by every kind of mutating call, recorded, replays into a fresh world
 *    with the same hash at every step; replaying while recording gives the same bytes.
 * 2. Failed calls are not recorded; a full buffer counts what it lost and the calls
 *    still happen.
 * 3. Malformed entries (truncated, unknown kind, a past step, a bad shape count) are
 *    QP_ERR_BUFFER and change nothing; a replay into another world reports the entry
 *    whose call failed or whose create returned another id.
 * 4. Ids across restore: a body created after a snapshot is stale once the snapshot is
 *    restored, and its id names a body again only when a new one takes its slot with the
 *    same generation; destroy and create after a restore behave as before it.
 * 5. A world with a chain, a hinge with limits, ropes, a sensor, filtered shapes and
 *    a kinematic platform, built and driven by recorded calls (joints made and removed, also
 *    with their body, filters changed, the platform moved by its velocities), replays into a
 *    twin with the same hash at every step; damaged joint and filter entries (each field out
 *    of range, each truncation) are QP_ERR_BUFFER and change nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qphys/joint.h"
#include "qphys/record.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world w1, w2;
static unsigned char log_buf[64 * 1024], log_buf2[64 * 1024];
static unsigned char snap[QP_SNAPSHOT_MAX_SIZE];

static const char scene_text[] =
    "world gravity 0 -10 0 hz 60\n"
    "plane normal 0 1 0 offset 0\n"
    "box half 0.5 0.5 0.5 pos 0 0.5 0\n"
    "box half 0.5 0.5 0.5 pos 0 1.5 0\n"
    "sphere radius 0.3 pos 2 0.3 0\n";

static void load(qp_world *w)
{
    qp_scene_info info;
    qp_scene_error err;
    assert_int_equal(qp_scene_load(w, scene_text, sizeof scene_text - 1, &info, &err), QP_OK);
}

static qp_body_def ball_def(double x)
{
    qp_body_def d = qp_default_body_def();
    d.position = qp_v3((fix16_t)(x * 65536), QP_INT(3), 0);
    d.shape_count = 2;
    assert_int_equal(qp_make_sphere(QP_FRAC(1, 4), &d.shapes[0]), QP_OK);
    assert_int_equal(qp_make_box(qp_v3(QP_FRAC(1, 10), QP_FRAC(1, 10), QP_FRAC(1, 10)), &d.shapes[1]), QP_OK);
    d.shapes[1].offset = qp_v3(0, QP_FRAC(3, 10), 0);
    d.user_data = 77;
    return d;
}

/* The driver: at some steps, one or more calls of every kind. */
static void drive(qp_world *w, int step)
{
    qp_body_id b1 = qp_world_body_at(w, 2), b2 = qp_world_body_at(w, 3), s = qp_world_body_at(w, 4);
    switch (step) {
    case 3: assert_int_equal(qp_body_apply_force(w, b1, qp_v3(QP_INT(30), 0, 0)), QP_OK); break;
    case 5:
        assert_int_equal(qp_body_apply_torque(w, b2, qp_v3(0, QP_INT(4), 0)), QP_OK);
        assert_int_equal(qp_body_apply_impulse(w, s, qp_v3(QP_INT(1), QP_INT(2), 0), qp_v3(QP_INT(2), QP_ONE, 0)),
                         QP_OK);
        break;
    case 9: {
        qp_body_def d = ball_def(-2);
        qp_result r;
        assert_false(qp_body_id_is_null(qp_create_body(w, &d, &r)));
        break;
    }
    case 12: assert_int_equal(qp_body_set_linear_velocity(w, s, qp_v3(-QP_ONE, 0, QP_FRAC(1, 3))), QP_OK); break;
    case 14: assert_int_equal(qp_body_set_angular_velocity(w, b2, qp_v3(0, 0, QP_FRAC(1, 2))), QP_OK); break;
    case 20: {
        qp_quat q = { QP_Q30_ONE / 2, 0, QP_Q30_ONE / 2, 0 };   /* not unit: normalised by the call */
        assert_int_equal(qp_body_set_pose(w, s, qp_v3(QP_INT(3), QP_ONE, 0), q), QP_OK);
        break;
    }
    case 25: assert_int_equal(qp_destroy_body(w, b1), QP_OK); break;
    case 26: {
        qp_body_def d = ball_def(1);
        qp_result r;
        qp_body_id id = qp_create_body(w, &d, &r);
        assert_int_equal(id.index, 2);          /* b1's slot, one generation on */
        assert_int_equal(id.generation, 2);
        break;
    }
    case 40: assert_int_equal(qp_body_wake(w, b2), QP_OK); break;
    case 41: qp_body_clear_flags(w, b2); break;
    default: break;
    }
}

static void test_record_and_replay(void **state)
{
    (void)state;
    enum { STEPS = 60 };
    uint32_t hashes[STEPS + 1];
    qp_input_log log, log2;
    load(&w1);
    assert_int_equal(qp_input_log_init(&log, log_buf, sizeof log_buf), QP_OK);
    qp_world_set_input_log(&w1, &log);
    for (int s = 0; s <= STEPS; s++) {
        if (s > 0) qp_world_step(&w1);
        drive(&w1, s);
        hashes[s] = qp_world_hash(&w1);
    }
    assert_int_equal(log.count, 11);
    assert_int_equal(log.lost, 0);

    load(&w2);
    assert_int_equal(qp_input_log_init(&log2, log_buf2, sizeof log_buf2), QP_OK);
    qp_world_set_input_log(&w2, &log2);
    unsigned long at = 0;
    for (int s = 0; s <= STEPS; s++) {
        if (s > 0) qp_world_step(&w2);
        qp_input_info info;
        assert_int_equal(qp_input_replay_step(&w2, log.data, log.len, &at, &info), QP_OK);
        assert_int_equal(qp_world_hash(&w2), hashes[s]);
    }
    assert_int_equal(at, log.len);
    assert_int_equal(log2.len, log.len);
    assert_memory_equal(log2.data, log.data, log.len);
    /* Without the inputs the runs part at step 3. */
    load(&w2);
    for (int s = 1; s <= 3; s++) qp_world_step(&w2);
    assert_int_not_equal(qp_world_hash(&w2), hashes[3]);
}

static void test_failed_calls_and_full_log(void **state)
{
    (void)state;
    qp_input_log log;
    load(&w1);
    assert_int_equal(qp_input_log_init(&log, log_buf, 30), QP_OK);
    qp_world_set_input_log(&w1, &log);
    qp_body_id ground = qp_world_body_at(&w1, 1), b1 = qp_world_body_at(&w1, 2);
    qp_body_id stale = b1;
    stale.generation++;
    assert_int_equal(qp_body_apply_force(&w1, ground, qp_v3(QP_ONE, 0, 0)), QP_ERR_PARAM);   /* static */
    assert_int_equal(qp_body_apply_force(&w1, stale, qp_v3(QP_ONE, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_body_set_linear_velocity(&w1, b1, qp_v3(QP_INT(1000), 0, 0)), QP_ERR_RANGE);
    assert_int_equal(log.count, 0);
    assert_int_equal(log.len, 0);
    /* 9 + 12 bytes fit in 30; the second does not, nor anything after it. */
    assert_int_equal(qp_body_apply_force(&w1, b1, qp_v3(QP_ONE, 0, 0)), QP_OK);
    assert_int_equal(log.len, 21);
    assert_int_equal(qp_body_apply_force(&w1, b1, qp_v3(QP_ONE, 0, 0)), QP_OK);
    assert_int_equal(qp_body_wake(&w1, b1), QP_OK);   /* 9 bytes would fit, but the log has a hole */
    assert_int_equal(log.len, 21);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.lost, 2);
    assert_int_equal(qp_body_linear_velocity(&w1, b1).x, 0);   /* the forces act in the step */
    qp_world_step(&w1);
    assert_true(qp_body_linear_velocity(&w1, b1).x > 0);
    /* Init and restore leave a world without a log. */
    unsigned long n = qp_world_snapshot(&w1, snap, sizeof snap);
    assert_int_equal(qp_world_restore(&w1, snap, n), QP_OK);
    assert_null(w1.input_log);
    assert_int_equal(qp_input_log_init(NULL, log_buf, 10), QP_ERR_PARAM);
    assert_int_equal(qp_input_log_init(&log, NULL, 10), QP_ERR_PARAM);
}

static void test_malformed_and_diverging(void **state)
{
    (void)state;
    qp_input_log log;
    load(&w1);
    assert_int_equal(qp_input_log_init(&log, log_buf, sizeof log_buf), QP_OK);
    qp_world_set_input_log(&w1, &log);
    qp_body_def d = ball_def(-2);
    qp_result r;
    qp_body_id made = qp_create_body(&w1, &d, &r);
    assert_int_equal(made.index, 5);
    assert_int_equal(qp_body_apply_force(&w1, made, qp_v3(QP_ONE, 0, 0)), QP_OK);
    unsigned long len = log.len;
    assert_int_equal(len, 9 + 83 + 2 * 52 + 9 + 12);

    load(&w2);
    uint32_t h = qp_world_hash(&w2);
    unsigned long at;
    qp_input_info info;
    /* Every truncation of the first entry, an unknown kind, a shape count of 0 or too many. */
    for (unsigned long cut = 1; cut < 9 + 83 + 2 * 52; cut++) {
        at = 0;
        assert_int_equal(qp_input_replay_step(&w2, log_buf, cut, &at, &info), QP_ERR_BUFFER);
        assert_int_equal(at, 0);
    }
    static unsigned char bad[sizeof log_buf];
    memcpy(bad, log_buf, len);
    bad[0] = 0;
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    bad[0] = QP_INPUT_KIND_END;
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 82] = 0;   /* shape count */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    bad[9 + 82] = QP_CFG_MAX_BODY_SHAPES + 1;
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 77] = 2;   /* asleep is 0 or 1 */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9] = 3;        /* body type: static, dynamic or kinematic */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 83] = QP_SHAPE_TYPE_COUNT;   /* the first shape's type */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 83 + 45] = 2;                /* the first shape's sensor flag is 0 or 1 */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    assert_int_equal(qp_world_hash(&w2), h);
    /* Entries of a later step wait; of a past step are refused. */
    qp_world_step(&w2);
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, log_buf, len, &at, &info), QP_ERR_BUFFER);
    assert_int_equal(at, 0);
    assert_int_equal(info.step, 0);

    /* Another world: the create lands elsewhere, which is a divergence, named. */
    load(&w2);
    qp_body_def extra = ball_def(4);
    assert_false(qp_body_id_is_null(qp_create_body(&w2, &extra, &r)));
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, log_buf, len, &at, &info), QP_ERR_INVALID_ID);
    assert_int_equal(info.kind, QP_INPUT_CREATE_BODY);
    assert_int_equal(info.body.index, 5);
    assert_int_equal(info.got.index, 6);
    /* A recorded call the world refuses now: its result. */
    load(&w2);
    qp_world_step(&w2);
    static unsigned char force_only[64];
    memcpy(force_only, log_buf + 9 + 83 + 2 * 52, 21);
    force_only[1] = 1;   /* step 1 */
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, force_only, 21, &at, &info), QP_ERR_INVALID_ID);
    assert_int_equal(info.kind, QP_INPUT_APPLY_FORCE);
    assert_int_equal(info.result, QP_ERR_INVALID_ID);
    assert_int_equal(at, 21);
}

static void test_ids_across_restore(void **state)
{
    (void)state;
    load(&w1);
    for (int s = 0; s < 10; s++) qp_world_step(&w1);
    qp_body_id b1 = qp_world_body_at(&w1, 2), ground = qp_world_body_at(&w1, 1);
    unsigned long n = qp_world_snapshot(&w1, snap, sizeof snap);
    assert_true(n > 0 && n <= sizeof snap);
    uint32_t saved = qp_world_hash(&w1);

    /* After the snapshot: destroy b1 and create a body (in b1's slot, generation 2). */
    assert_int_equal(qp_destroy_body(&w1, b1), QP_OK);
    qp_body_def d = ball_def(0);
    qp_result r;
    qp_body_id late = qp_create_body(&w1, &d, &r);
    assert_int_equal(late.index, b1.index);
    assert_int_equal(late.generation, b1.generation + 1);
    qp_body_id later = qp_create_body(&w1, &d, &r);
    assert_int_equal(later.index, 5);
    assert_int_equal(later.generation, 1);

    /* Restore: b1 is back with its id; the bodies created after the snapshot are stale. */
    assert_int_equal(qp_world_restore(&w1, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&w1), saved);
    assert_true(qp_body_is_valid(&w1, b1));
    assert_true(qp_body_is_valid(&w1, ground));
    assert_false(qp_body_is_valid(&w1, late));
    assert_false(qp_body_is_valid(&w1, later));
    assert_int_equal(qp_body_apply_force(&w1, late, qp_v3(QP_ONE, 0, 0)), QP_ERR_INVALID_ID);
    assert_int_equal(qp_destroy_body(&w1, later), QP_ERR_INVALID_ID);
    assert_int_equal(qp_world_hash(&w1), saved);

    /* Destroy and create after the restore, as before it: the same ids come back, so an
     * id kept from the undone future names the body that took its slot again. */
    assert_int_equal(qp_destroy_body(&w1, b1), QP_OK);
    assert_false(qp_body_is_valid(&w1, b1));
    qp_body_id again = qp_create_body(&w1, &d, &r);
    assert_int_equal(again.index, late.index);
    assert_int_equal(again.generation, late.generation);
    assert_true(qp_body_is_valid(&w1, late));
    qp_body_id again2 = qp_create_body(&w1, &d, &r);
    assert_int_equal(again2.index, later.index);
    assert_int_equal(again2.generation, later.generation);
    /* A free slot's generation survives the round trip too: destroy, snapshot, restore, create. */
    assert_int_equal(qp_destroy_body(&w1, again2), QP_OK);
    n = qp_world_snapshot(&w1, snap, sizeof snap);
    memset(&w2, 0xA5, sizeof w2);
    assert_int_equal(qp_world_restore(&w2, snap, n), QP_OK);
    assert_int_equal(qp_world_hash(&w2), qp_world_hash(&w1));
    qp_body_id next = qp_create_body(&w2, &d, &r);
    assert_int_equal(next.index, 5);
    assert_int_equal(next.generation, 2);
    assert_false(qp_body_is_valid(&w2, again2));
}

/* ---- joints, filters, sensors, kinematic bodies ------------------------------------------ */

static fix16_t F(double x) { return (fix16_t)(x * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }

static qp_shape box(double hx, double hy, double hz)
{
    qp_shape s;
    assert_int_equal(qp_make_box(V(hx, hy, hz), &s), QP_OK);
    return s;
}

static qp_body_id add(qp_world *w, qp_body_type type, qp_vec3 pos, qp_shape shape)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.position = pos;
    d.shape_count = 1;
    d.shapes[0] = shape;
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static qp_joint_id join(qp_world *w, const qp_joint_def *d)
{
    qp_result r;
    qp_joint_id id = qp_create_joint(w, d, &r);
    assert_int_equal(r, QP_OK);
    return id;
}

static void ball_joint(qp_world *w, qp_body_id a, qp_body_id b, qp_vec3 anchor)
{
    qp_joint_def d = qp_default_joint_def();
    d.a = a;
    d.b = b;
    d.anchor = anchor;
    join(w, &d);
}

/* A hinge with limits from a to b about y at anchor. */
static qp_joint_def hinge_def(qp_body_id a, qp_body_id b, qp_vec3 anchor)
{
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_HINGE;
    d.a = a;
    d.b = b;
    d.anchor = anchor;
    d.axis = V(0, 1, 0);
    d.enable_limit = true;
    d.lower_angle = F(-0.5);
    d.upper_angle = F(0.5);
    return d;
}

/* A rope 0.5 .. 1.2 m between the centres of a and b. */
static qp_joint_def rope_def(const qp_world *w, qp_body_id a, qp_body_id b)
{
    qp_joint_def d = qp_default_joint_def();
    d.type = QP_JOINT_DISTANCE;
    d.a = a;
    d.b = b;
    d.anchor_a = qp_body_center(w, a);
    d.anchor_b = qp_body_center(w, b);
    d.min_length = F(0.5);
    d.max_length = F(1.2);
    return d;
}

/* The world, built by calls on w (whose log, if any, records them). Body slots, in creation
 * order: 1 ground, 2 post, 3..5 a chain hanging from it, 6 a door frame, 7 the door, 8 and 9
 * two balls on a rope, 10 a sensor they fall through, 11 a box of category 2 in group -3,
 * 12 a box resting on it, 13 a kinematic platform, 14 a box riding on it. Joint slots: 1..3
 * the chain, 4 the door's hinge (limits +-0.5 rad, swung open at 4 rad/s), 5 the rope. */
static void build(qp_world *w)
{
    qp_shape s;
    assert_int_equal(qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &s), QP_OK);
    add(w, QP_BODY_STATIC, qp_v3_zero(), s);
    qp_body_id post = add(w, QP_BODY_STATIC, V(0, 6, 0), box(0.1, 0.1, 0.1));
    qp_body_id c1 = add(w, QP_BODY_DYNAMIC, V(0.5, 6, 0), box(0.2, 0.1, 0.1));
    qp_body_id c2 = add(w, QP_BODY_DYNAMIC, V(1.0, 6, 0), box(0.2, 0.1, 0.1));
    qp_body_id c3 = add(w, QP_BODY_DYNAMIC, V(1.5, 6, 0), box(0.2, 0.1, 0.1));
    ball_joint(w, post, c1, V(0.25, 6, 0));
    ball_joint(w, c1, c2, V(0.75, 6, 0));
    ball_joint(w, c2, c3, V(1.25, 6, 0));

    qp_body_id frame = add(w, QP_BODY_STATIC, V(-3, 1.2, 0), box(0.1, 1, 0.1));
    qp_body_def dd = qp_default_body_def();
    dd.position = V(-2.4, 1.2, 0);
    dd.angular_velocity = V(0, 4, 0);
    dd.shape_count = 1;
    dd.shapes[0] = box(0.5, 0.8, 0.05);
    qp_result r;
    qp_body_id door = qp_create_body(w, &dd, &r);
    assert_int_equal(r, QP_OK);
    qp_joint_def hd = hinge_def(frame, door, V(-2.9, 1.2, 0));
    join(w, &hd);

    assert_int_equal(qp_make_sphere(F(0.25), &s), QP_OK);
    qp_body_id b1 = add(w, QP_BODY_DYNAMIC, V(3, 4, 0), s);
    qp_body_id b2 = add(w, QP_BODY_DYNAMIC, V(4, 4.5, 0), s);
    qp_joint_def rd = rope_def(w, b1, b2);
    join(w, &rd);
    qp_body_def sd = qp_default_body_def();
    sd.type = QP_BODY_STATIC;
    sd.position = V(3.5, 1.5, 0);
    sd.shape_count = 1;
    sd.shapes[0] = box(1.5, 1, 1);
    sd.sensors[0] = true;
    qp_create_body(w, &sd, &r);
    assert_int_equal(r, QP_OK);

    qp_body_def fd = qp_default_body_def();
    fd.position = V(6, 0.3, 0);
    fd.shape_count = 1;
    fd.shapes[0] = box(0.3, 0.3, 0.3);
    fd.filters[0].category = 2;
    fd.filters[0].group = -3;
    qp_create_body(w, &fd, &r);
    assert_int_equal(r, QP_OK);
    add(w, QP_BODY_DYNAMIC, V(6, 0.81, 0), box(0.2, 0.2, 0.2));

    add(w, QP_BODY_KINEMATIC, V(-6, 1, 0), box(1, 0.1, 1));
    add(w, QP_BODY_DYNAMIC, V(-6, 1.31, 0), box(0.2, 0.2, 0.2));
}

/* The run: the platform moved by its velocities, joints made and removed (two with their
 * body), filters changed. */
static void drive_joints(qp_world *w, int step)
{
    qp_body_id low = qp_world_body_at(w, 11), top = qp_world_body_at(w, 12), platform = qp_world_body_at(w, 13);
    qp_shape_filter f = qp_default_shape_filter();
    switch (step) {
    case 5: assert_int_equal(qp_body_set_linear_velocity(w, platform, V(1, 0, 0)), QP_OK); break;
    case 20: {
        qp_joint_def d = rope_def(w, qp_world_body_at(w, 5), qp_world_body_at(w, 8));   /* chain end to ball */
        d.max_length = F(4);
        d.collide_connected = true;
        assert_int_equal(join(w, &d).index, 6);
        break;
    }
    case 30:
        f.mask = 0xFFFF ^ 2;   /* the top box meets category 2 no more: it falls through the low one */
        assert_int_equal(qp_body_set_shape_filter(w, top, 0, f), QP_OK);
        break;
    case 40: assert_int_equal(qp_destroy_joint(w, qp_world_joint_at(w, 2)), QP_OK); break;   /* the chain breaks */
    case 45: assert_int_equal(qp_body_set_angular_velocity(w, platform, V(0, 1, 0)), QP_OK); break;
    case 50: {
        /* Slot 2 again, one generation on: the chain's middle hinged to the post. */
        qp_joint_def d = hinge_def(qp_world_body_at(w, 2), qp_world_body_at(w, 4), qp_body_center(w, qp_world_body_at(w, 4)));
        qp_joint_id j = join(w, &d);
        assert_int_equal(j.index, 2);
        assert_int_equal(j.generation, 2);
        break;
    }
    case 60:
        assert_int_equal(qp_body_set_linear_velocity(w, platform, V(0, 0.5, -0.5)), QP_OK);
        f.category = 4;
        f.group = -3;
        assert_int_equal(qp_body_set_shape_filter(w, low, 0, f), QP_OK);
        break;
    case 70: assert_int_equal(qp_destroy_body(w, qp_world_body_at(w, 8)), QP_OK); break;   /* joints 5 and 6 go too */
    case 80:
        assert_int_equal(qp_body_set_linear_velocity(w, platform, qp_v3_zero()), QP_OK);
        assert_int_equal(qp_body_set_angular_velocity(w, platform, qp_v3_zero()), QP_OK);
        break;
    default: break;
    }
}

static int sensor_begins(const qp_world *w)
{
    const qp_sensor_event *ev;
    int n = qp_world_sensor_events(w, &ev), begins = 0;
    for (int k = 0; k < n; k++) begins += ev[k].kind == QP_EVENT_BEGIN;
    return begins;
}

/* Recorded from the empty world on (the building calls are in the log), replayed into a
 * twin started from an empty world too: equal hashes at every step, the same sensor events,
 * and the replay recording the very same bytes. */
static void test_joints_filters_sensors_kinematic(void **state)
{
    (void)state;
    enum { STEPS = 120 };
    static uint32_t hashes[STEPS + 1];
    static int begins[STEPS + 1];
    qp_world_def wd = qp_default_world_def();
    qp_input_log log, log2;
    assert_int_equal(qp_world_init(&w1, &wd), QP_OK);
    assert_int_equal(qp_input_log_init(&log, log_buf, sizeof log_buf), QP_OK);
    qp_world_set_input_log(&w1, &log);
    build(&w1);
    qp_vec3 platform_start = qp_body_position(&w1, qp_world_body_at(&w1, 13));
    int total_begins = 0;
    for (int s = 0; s <= STEPS; s++) {
        if (s > 0) qp_world_step(&w1);
        drive_joints(&w1, s);
        hashes[s] = qp_world_hash(&w1);
        begins[s] = sensor_begins(&w1);
        total_begins += begins[s];
    }
    assert_int_equal(log.count, 14 + 5 + 11);   /* bodies, joints, then the run's calls */
    assert_int_equal(log.lost, 0);
    /* The run did what it says: the balls crossed the sensor, the platform moved, the top
     * box fell through the low one, the door stayed within its limits. */
    assert_true(total_begins >= 2);
    assert_true(qp_body_position(&w1, qp_world_body_at(&w1, 13)).x > platform_start.x + QP_ONE / 2);
    assert_true(qp_body_position(&w1, qp_world_body_at(&w1, 12)).y < F(0.5));
    assert_true(qp_joint_angle(&w1, qp_world_joint_at(&w1, 4)) <= F(0.55));

    assert_int_equal(qp_world_init(&w2, &wd), QP_OK);
    assert_int_equal(qp_input_log_init(&log2, log_buf2, sizeof log_buf2), QP_OK);
    qp_world_set_input_log(&w2, &log2);
    unsigned long at = 0;
    for (int s = 0; s <= STEPS; s++) {
        if (s > 0) qp_world_step(&w2);
        qp_input_info info;
        assert_int_equal(qp_input_replay_step(&w2, log.data, log.len, &at, &info), QP_OK);
        if (qp_world_hash(&w2) != hashes[s]) fail_msg("step %d: hash %08x, recorded %08x", s, qp_world_hash(&w2), hashes[s]);
        assert_int_equal(sensor_begins(&w2), begins[s]);
    }
    assert_int_equal(at, log.len);
    assert_int_equal(log2.len, log.len);
    assert_memory_equal(log2.data, log.data, log.len);
    /* What the twin was built from: a sensor, filters, a kinematic body, joints by id. */
    assert_true(qp_body_shape_is_sensor(&w2, qp_world_body_at(&w2, 10), 0));
    assert_int_equal(qp_body_shape_filter(&w2, qp_world_body_at(&w2, 11), 0).category, 4);
    assert_int_equal(qp_body_shape_filter(&w2, qp_world_body_at(&w2, 11), 0).group, -3);
    assert_int_equal(qp_body_shape_filter(&w2, qp_world_body_at(&w2, 12), 0).mask, 0xFFFF ^ 2);
    assert_int_equal(qp_body_get_type(&w2, qp_world_body_at(&w2, 13)), QP_BODY_KINEMATIC);
    assert_int_equal(qp_world_joint_at(&w2, 2).generation, 2);
    assert_int_equal(qp_joint_get_type(&w2, qp_world_joint_at(&w2, 2)), QP_JOINT_HINGE);
    assert_true(qp_joint_id_is_null(qp_world_joint_at(&w2, 5)));
    assert_true(qp_joint_id_is_null(qp_world_joint_at(&w2, 6)));
}

static void put32(unsigned char *p, int32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)((uint32_t)v >> (8 * i));
}

static qp_world w3;
static qp_world w2_bytes;   /* w2's bytes, compared after a call (never used as a world) */

/* A world's pools are pointers into its memory: a copy to use is made with qp_world_copy. */
static void copy_world(qp_world *to, const qp_world *from)
{
    assert_int_equal(qp_world_copy(to, from), QP_OK);
}

/* e[0..n) replayed into w2 (a copy of w3) must be refused as damaged and leave it as it was. */
static void expect_damaged(const char *what, const unsigned char *e, unsigned long n)
{
    copy_world(&w2, &w3);
    memcpy(&w2_bytes, &w2, sizeof w2);
    unsigned long at = 0;
    qp_input_info info;
    qp_result r = qp_input_replay_step(&w2, e, n, &at, &info);
    if (r != QP_ERR_BUFFER) fail_msg("%s: got %d, want QP_ERR_BUFFER", what, r);
    assert_int_equal(at, 0);
    if (memcmp(&w2, &w2_bytes, sizeof w2) != 0) fail_msg("%s: the world changed", what);
}

/* Joint and filter entries: every field out of its range, every truncation: QP_ERR_BUFFER,
 * nothing changed; a joint create that returns another id than recorded is a divergence. */
static void test_damaged_joint_entries(void **state)
{
    (void)state;
    qp_world_def wd = qp_default_world_def();
    qp_input_log log;
    assert_int_equal(qp_world_init(&w1, &wd), QP_OK);
    build(&w1);
    copy_world(&w3, &w1);
    assert_int_equal(qp_input_log_init(&log, log_buf, sizeof log_buf), QP_OK);
    qp_world_set_input_log(&w1, &log);
    qp_joint_def hd = hinge_def(qp_world_body_at(&w1, 2), qp_world_body_at(&w1, 3), V(0.25, 6, 0));
    qp_joint_id hinge = join(&w1, &hd);
    qp_joint_def rd = rope_def(&w1, qp_world_body_at(&w1, 9), qp_world_body_at(&w1, 14));
    rd.max_length = F(20);
    join(&w1, &rd);
    assert_int_equal(qp_destroy_joint(&w1, hinge), QP_OK);
    qp_shape_filter f = qp_default_shape_filter();
    f.group = -2;
    assert_int_equal(qp_body_set_shape_filter(&w1, qp_world_body_at(&w1, 12), 0, f), QP_OK);
    enum { HINGE = 0, ROPE = 88, DESTROY = 176, FILTER = 185, END = 201 };
    assert_int_equal(log.len, END);
    assert_int_equal(log.count, 4);

    /* Sound, they apply to the same world and give the same state. */
    copy_world(&w2, &w3);
    unsigned long at = 0;
    assert_int_equal(qp_input_replay_step(&w2, log_buf, END, &at, NULL), QP_OK);
    assert_int_equal(at, END);
    assert_int_equal(qp_world_hash(&w2), qp_world_hash(&w1));

    static unsigned char e[128];
    /* Every truncation of each entry. */
    static const unsigned long starts[] = { HINGE, ROPE, DESTROY, FILTER, END };
    for (int k = 0; k < 4; k++)
        for (unsigned long cut = 1; cut < starts[k + 1] - starts[k]; cut++) {
            memcpy(e, log_buf + starts[k], cut);
            expect_damaged("truncated", e, cut);
        }
    /* The hinge's create: each field out of range. */
#define HINGE_CASE(what, edit)                                   \
    do {                                                         \
        memcpy(e, log_buf + HINGE, 88);                          \
        edit;                                                    \
        expect_damaged(what, e, 88);                             \
    } while (0)
    HINGE_CASE("kind 31", e[0] = 31);
    HINGE_CASE("kind 34", e[0] = QP_INPUT_JOINT_KIND_END);
    HINGE_CASE("null joint index", e[5] = e[6] = 0);
    HINGE_CASE("joint generation 0", e[7] = e[8] = 0);
    HINGE_CASE("joint type 3", e[9] = 3);
    HINGE_CASE("null body a", e[10] = e[11] = 0);
    HINGE_CASE("body a generation 0", e[12] = e[13] = 0);
    HINGE_CASE("null body b", e[14] = e[15] = 0);
    HINGE_CASE("body b generation 0", e[16] = e[17] = 0);
    HINGE_CASE("a joint of a body to itself", memcpy(e + 14, e + 10, 4));
    HINGE_CASE("zero hinge axis", memset(e + 54, 0, 12));
    HINGE_CASE("enable limit 2", e[66] = 2);
    HINGE_CASE("lower limit below -pi", put32(e + 67, F(-3.2)));
    HINGE_CASE("upper limit above pi", put32(e + 71, F(3.2)));
    HINGE_CASE("limits out of order", put32(e + 67, F(0.6)));
    HINGE_CASE("zero drift time", put32(e + 83, 0));
    HINGE_CASE("drift time above 10 s", put32(e + 83, F(10.5)));
    HINGE_CASE("collide connected 2", e[87] = 2);
#undef HINGE_CASE
    /* The rope's: its lengths. */
#define ROPE_CASE(what, edit)                                    \
    do {                                                         \
        memcpy(e, log_buf + ROPE, 88);                           \
        edit;                                                    \
        expect_damaged(what, e, 88);                             \
    } while (0)
    ROPE_CASE("negative min length", put32(e + 75, F(-1)));
    ROPE_CASE("negative max length", (put32(e + 75, 0), put32(e + 79, F(-1))));
    ROPE_CASE("min length above max", put32(e + 75, F(21)));
    ROPE_CASE("max length above 1000 m", put32(e + 79, F(1001)));
#undef ROPE_CASE
    /* A limit out of range is no damage in a ball joint, which has none: its value is
     * whatever the caller left there, and the call takes it. */
    memcpy(e, log_buf + HINGE, 88);
    e[9] = QP_JOINT_BALL;
    put32(e + 67, F(-5));
    copy_world(&w2, &w3);
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, e, 88, &at, NULL), QP_OK);
    /* The destroy's and the filter's. */
    memcpy(e, log_buf + DESTROY, 9);
    e[5] = e[6] = 0;
    expect_damaged("destroy of a null joint", e, 9);
    memcpy(e, log_buf + DESTROY, 9);
    e[7] = e[8] = 0;
    expect_damaged("destroy of generation 0", e, 9);
    memcpy(e, log_buf + FILTER, 16);
    e[9] = QP_CFG_MAX_BODY_SHAPES;
    expect_damaged("shape slot out of range", e, 16);

    /* Another world: the hinge lands in slot 7, not 6, which is a divergence, named. */
    copy_world(&w2, &w3);
    join(&w2, &rd);
    qp_input_info info;
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, log_buf, END, &at, &info), QP_ERR_INVALID_ID);
    assert_int_equal(info.kind, QP_INPUT_CREATE_JOINT);
    assert_int_equal(info.joint.index, 6);
    assert_int_equal(info.joint_got.index, 7);
    assert_int_equal(at, ROPE);
    /* A destroy of a joint that is not there: the call's result. */
    copy_world(&w2, &w3);
    at = 0;
    assert_int_equal(qp_input_replay_step(&w2, log_buf + DESTROY, 9, &at, &info), QP_ERR_INVALID_ID);
    assert_int_equal(info.kind, QP_INPUT_DESTROY_JOINT);
    assert_int_equal(info.joint.index, 6);
    assert_int_equal(info.result, QP_ERR_INVALID_ID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_and_replay),
        cmocka_unit_test(test_failed_calls_and_full_log),
        cmocka_unit_test(test_malformed_and_diverging),
        cmocka_unit_test(test_ids_across_restore),
        cmocka_unit_test(test_joints_filters_sensors_kinematic),
        cmocka_unit_test(test_damaged_joint_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
