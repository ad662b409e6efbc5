/* State hash, snapshot and restore (docs/design.md §8; src/world_hash.c, src/snapshot.c).
 *
 * 1. Rollback on every scene of tests/scenes: run N steps recording the hash
 *    of every step and a snapshot at step k; restore the snapshot (into the
 *    same world and into another, dirty one) and step again: the hashes of
 *    steps k+1..N are the first run's, bit for bit. Fewer steps for the big
 *    scenes to stay quick under the sanitizers.
 * 2. Snapshots are canonical bytes: two worlds built and stepped the same way
 *    give byte-identical snapshots (no stray padding), even when the stack
 *    held garbage while one of them was built.
 * 3. Errors: a small buffer gets nothing written and the size needed; restore
 *    rejects a wrong size, a wrong header and out-of-range counts with
 *    QP_ERR_BUFFER and leaves the world untouched.
 * 4. The hash sees what it should: pose, velocity, sleep state, and not a
 *    change of scratch.
 *
 * Run from the repository root (make test does).
 */
#include <dirent.h>
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

static qp_world w1, w2;
static unsigned char snap[QP_SNAPSHOT_SIZE + 64];
static unsigned char snap2[QP_SNAPSHOT_SIZE];

static char *read_all(const char *path, unsigned long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s (run the tests from the repository root)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (unsigned long)n;
    return buf;
}

static int cmp_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static int list_scenes(char names[][256], int max)
{
    DIR *d = opendir("tests/scenes");
    if (!d) fail_msg("cannot open tests/scenes (run the tests from the repository root)");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != 0 && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".scene") == 0) snprintf(names[n++], 256, "tests/scenes/%.200s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, 256, cmp_str);
    return n;
}

static qp_result load(qp_world *w, const char *path, int *bodies)
{
    unsigned long len;
    char *text = read_all(path, &len);
    qp_scene_info info;
    qp_scene_error err;
    qp_result r = qp_scene_load(w, text, len, &info, &err);
    free(text);
    if (r == QP_OK) *bodies = info.bodies;
    else if (r != QP_ERR_FULL) fail_msg("%s:%d:%d: %s", path, err.line, err.column, err.message);
    return r;
}

/* ---- 1. rollback ------------------------------------------------------------------------- */

#define MAX_STEPS 400

static void rollback(const char *path)
{
    static uint32_t first[MAX_STEPS + 1];
    int bodies = 0;
    if (load(&w1, path, &bodies) == QP_ERR_FULL) {
        print_message("%s: larger than this build's pools (QP_CFG_MAX_BODIES = %d): skipped\n", path,
                      QP_CFG_MAX_BODIES);
        return;
    }
    /* Small scenes run long enough to settle and sleep; big ones briefly. */
    int n = bodies <= 60 ? 360 : 40, k = bodies <= 60 ? 150 : 20;
    first[0] = qp_world_hash(&w1);
    for (int s = 1; s <= n; s++) {
        if (s == k + 1) assert_int_equal(qp_world_snapshot(&w1, snap, sizeof snap), QP_SNAPSHOT_SIZE);
        qp_world_step(&w1);
        first[s] = qp_world_hash(&w1);
    }
    /* Restore into the same world, which has moved on. */
    assert_int_equal(qp_world_restore(&w1, snap, QP_SNAPSHOT_SIZE), QP_OK);
    assert_int_equal(qp_world_hash(&w1), first[k]);
    assert_int_equal(qp_world_get_stats(&w1).step, (uint32_t)k);
    for (int s = k + 1; s <= n; s++) {
        qp_world_step(&w1);
        uint32_t h = qp_world_hash(&w1);
        if (h != first[s]) fail_msg("%s: after restore at step %d, step %d hash %08x, first run %08x", path, k, s, h, first[s]);
    }
    /* Restore into another world holding another scene. */
    int other = 0;
    assert_int_equal(load(&w2, "tests/scenes/bounce.scene", &other), QP_OK);
    for (int s = 0; s < 7; s++) qp_world_step(&w2);
    assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE), QP_OK);
    for (int s = k + 1; s <= n; s++) {
        qp_world_step(&w2);
        uint32_t h = qp_world_hash(&w2);
        if (h != first[s]) fail_msg("%s: restored into another world at step %d, step %d differs", path, k, s);
    }
    /* Both copies are now the same bytes. */
    assert_memory_equal(&w1, &w2, sizeof w1);
    print_message("%s: %d bodies, snapshot at %d, %d steps replayed: final hash %08x\n", path, bodies, k, n - k,
                  first[n]);
}

static void test_rollback_every_scene(void **state)
{
    (void)state;
    static char names[64][256];
    int n = list_scenes(names, 64);
    assert_true(n >= 5);
    for (int i = 0; i < n; i++) rollback(names[i]);
}

/* Leave garbage on the stack below the caller, where the next calls' locals
 * (a qp_world_def being filled in, say) will live: padding copied from them
 * would show up in the snapshot bytes. */
__attribute__((noinline)) static void dirty_stack(void)
{
    volatile unsigned char junk[16384];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(0xA5 ^ i);
}

/* ---- 2. canonical bytes ----------------------------------------------------------------- */

static void test_snapshots_are_canonical(void **state)
{
    (void)state;
    int b = 0;
    /* Make w2 dirty first: its bytes must not leak into the result. */
    memset(&w2, 0xA5, sizeof w2);
    assert_int_equal(load(&w1, "tests/scenes/mixed.scene", &b), QP_OK);
    dirty_stack();
    assert_int_equal(load(&w2, "tests/scenes/mixed.scene", &b), QP_OK);
    for (int s = 0; s < 50; s++) {
        qp_world_step(&w1);
        qp_world_step(&w2);
    }
    assert_int_equal(qp_world_snapshot(&w1, snap, sizeof snap), QP_SNAPSHOT_SIZE);
    assert_int_equal(qp_world_snapshot(&w2, snap2, sizeof snap2), QP_SNAPSHOT_SIZE);
    assert_memory_equal(snap, snap2, QP_SNAPSHOT_SIZE);
    assert_int_equal(qp_world_hash(&w1), qp_world_hash(&w2));
}

/* ---- 3. errors ------------------------------------------------------------------------------ */

static void test_snapshot_errors(void **state)
{
    (void)state;
    int b = 0;
    assert_int_equal(load(&w1, "tests/scenes/slope.scene", &b), QP_OK);
    for (int s = 0; s < 30; s++) qp_world_step(&w1);
    /* Too small: nothing written, the size needed returned. */
    memset(snap, 0x5A, sizeof snap);
    assert_int_equal(qp_world_snapshot(&w1, snap, QP_SNAPSHOT_SIZE - 1), QP_SNAPSHOT_SIZE);
    assert_int_equal(qp_world_snapshot(&w1, 0, 0), QP_SNAPSHOT_SIZE);
    for (size_t i = 0; i < sizeof snap; i++)
        if (snap[i] != 0x5A) fail_msg("byte %zu written into a buffer that was too small", i);
    /* A larger buffer is fine; the tail is left alone. */
    assert_int_equal(qp_world_snapshot(&w1, snap, sizeof snap), QP_SNAPSHOT_SIZE);
    assert_int_equal(snap[QP_SNAPSHOT_SIZE], 0x5A);

    /* A world to keep unchanged through bad restores. */
    assert_int_equal(load(&w2, "tests/scenes/bounce.scene", &b), QP_OK);
    for (int s = 0; s < 10; s++) qp_world_step(&w2);
    memcpy(snap2, &w2, sizeof w2 < sizeof snap2 ? sizeof w2 : sizeof snap2);
    uint32_t h2 = qp_world_hash(&w2);

    assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE - 1), QP_ERR_BUFFER);
    assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE + 1), QP_ERR_BUFFER);
    assert_int_equal(qp_world_restore(&w2, snap, 0), QP_ERR_BUFFER);
    assert_int_equal(qp_world_restore(&w2, 0, QP_SNAPSHOT_SIZE), QP_ERR_PARAM);
    assert_int_equal(qp_world_restore(0, snap, QP_SNAPSHOT_SIZE), QP_ERR_PARAM);
    /* Each header word corrupted in turn. */
    for (int word = 0; word < 4; word++) {
        snap[word * 4] ^= 0x01;
        assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE), QP_ERR_BUFFER);
        snap[word * 4] ^= 0x01;
    }
    /* A count beyond its pool. */
    int bad = QP_CFG_MAX_CONTACTS + 1, saved;
    size_t at = 16 + offsetof(qp_world, contact_count);
    memcpy(&saved, snap + at, sizeof saved);
    memcpy(snap + at, &bad, sizeof bad);
    assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE), QP_ERR_BUFFER);
    bad = -1;
    memcpy(snap + at, &bad, sizeof bad);
    assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE), QP_ERR_BUFFER);
    at = 16 + offsetof(qp_world, body_high);
    memcpy(snap + 16 + offsetof(qp_world, contact_count), &saved, sizeof saved);
    bad = QP_CFG_MAX_BODIES + 1;
    memcpy(&saved, snap + at, sizeof saved);
    memcpy(snap + at, &bad, sizeof bad);
    assert_int_equal(qp_world_restore(&w2, snap, QP_SNAPSHOT_SIZE), QP_ERR_BUFFER);
    memcpy(snap + at, &saved, sizeof saved);
    /* None of that touched w2. */
    assert_memory_equal(snap2, &w2, sizeof w2 < sizeof snap2 ? sizeof w2 : sizeof snap2);
    assert_int_equal(qp_world_hash(&w2), h2);
    /* The repaired snapshot restores (at an unaligned address too). */
    memmove(snap + 1, snap, QP_SNAPSHOT_SIZE);
    assert_int_equal(qp_world_restore(&w2, snap + 1, QP_SNAPSHOT_SIZE), QP_OK);
    assert_int_equal(qp_world_hash(&w2), qp_world_hash(&w1));
}

/* ---- 4. what the hash sees ------------------------------------------------------------------ */

static void test_hash_covers_state(void **state)
{
    (void)state;
    int b = 0;
    assert_int_equal(load(&w1, "tests/scenes/bounce.scene", &b), QP_OK);
    assert_int_equal(load(&w2, "tests/scenes/bounce.scene", &b), QP_OK);
    assert_int_equal(qp_world_hash(&w1), qp_world_hash(&w2));
    qp_body_id id = qp_scene_body(&w2, 1);
    uint32_t h0 = qp_world_hash(&w2);
    /* Velocity. */
    assert_int_equal(qp_body_set_linear_velocity(&w2, id, qp_v3(1, 0, 0)), QP_OK);
    assert_int_not_equal(qp_world_hash(&w2), h0);
    assert_int_equal(qp_body_set_linear_velocity(&w2, id, qp_v3(0, 0, 0)), QP_OK);
    assert_int_equal(qp_world_hash(&w2), h0);
    /* Pose. */
    qp_vec3 p = qp_body_position(&w2, id);
    assert_int_equal(qp_body_set_pose(&w2, id, qp_v3(p.x + 1, p.y, p.z), qp_body_rotation(&w2, id)), QP_OK);
    assert_int_not_equal(qp_world_hash(&w2), h0);
    assert_int_equal(qp_body_set_pose(&w2, id, p, qp_body_rotation(&w2, id)), QP_OK);
    assert_int_equal(qp_world_hash(&w2), h0);
    /* Angular velocity. */
    assert_int_equal(qp_body_set_angular_velocity(&w2, id, qp_v3(0, 1, 0)), QP_OK);
    assert_int_not_equal(qp_world_hash(&w2), h0);
    /* Scratch is not state. */
    assert_int_equal(load(&w2, "tests/scenes/bounce.scene", &b), QP_OK);
    w2.queue[0] = 77;
    w2.pred.x[1].x = 12345;
    assert_int_equal(qp_world_hash(&w2), h0);
    /* Sleep state. */
    w2.bodies[2].state ^= QP_STATE_ASLEEP;
    assert_int_not_equal(qp_world_hash(&w2), h0);
    w2.bodies[2].state ^= QP_STATE_ASLEEP;
    /* Contacts and their impulses, once there are some. */
    for (int s = 0; s < 120 && w2.contact_count == 0; s++) {
        qp_world_step(&w1);
        qp_world_step(&w2);
    }
    assert_true(w2.contact_count > 0);
    uint32_t h = qp_world_hash(&w2);
    assert_int_equal(h, qp_world_hash(&w1));
    w2.contacts[0].p[0].jn ^= 1;
    assert_int_not_equal(qp_world_hash(&w2), h);
    w2.contacts[0].p[0].jn ^= 1;
    w2.contacts[0].p[0].id ^= 1;
    assert_int_not_equal(qp_world_hash(&w2), h);
    w2.contacts[0].p[0].id ^= 1;
    assert_int_equal(qp_world_hash(&w2), h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rollback_every_scene),
        cmocka_unit_test(test_snapshots_are_canonical),
        cmocka_unit_test(test_snapshot_errors),
        cmocka_unit_test(test_hash_covers_state),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
