/* Input log and replay (include/qphys/record.h, src/record.c), and ids across restore.
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
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

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
    assert_int_equal(len, 9 + 79 + 2 * 52 + 9 + 12);

    load(&w2);
    uint32_t h = qp_world_hash(&w2);
    unsigned long at;
    qp_input_info info;
    /* Every truncation of the first entry, an unknown kind, a shape count of 0 or too many. */
    for (unsigned long cut = 1; cut < 9 + 79 + 2 * 52; cut++) {
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
    bad[9 + 78] = 0;   /* shape count */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    bad[9 + 78] = QP_CFG_MAX_BODY_SHAPES + 1;
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 73] = 2;   /* asleep is 0 or 1 */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9] = 3;        /* body type: static, dynamic or kinematic */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 79] = QP_SHAPE_TYPE_COUNT;   /* the first shape's type */
    assert_int_equal(qp_input_replay_step(&w2, bad, len, &at, &info), QP_ERR_BUFFER);
    memcpy(bad, log_buf, len);
    bad[9 + 79 + 45] = 2;                /* the first shape's sensor flag is 0 or 1 */
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
    memcpy(force_only, log_buf + 9 + 79 + 2 * 52, 21);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_and_replay),
        cmocka_unit_test(test_failed_calls_and_full_log),
        cmocka_unit_test(test_malformed_and_diverging),
        cmocka_unit_test(test_ids_across_restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
