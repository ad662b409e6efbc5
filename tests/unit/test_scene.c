/* SPDX-License-Identifier: MIT */
/* Scene files (include/qphys/scene.h, src/scene.c).
 *
 * 1. Exact numbers: a table of edge cases (0.1 -> 6554, ties, +-32767.99998,
 *    32768 rejected), every Q16.16 value written with 16 decimals reads back
 *    exactly, random short decimals agree with an integer reference.
 * 2. Good scenes: every .scene file of tests/scenes loads; body i (file order) is in
 *    slot i + 1 with the pose, type and velocity of its line; the world line's
 *    settings reach qp_world_def. Scenes larger than this build's pools are
 *    rejected with QP_ERR_FULL. Scenes with mesh and heightfield lines load
 *    through qp_scene_load_level and the tools' OBJ reader (tools/obj.c), as
 *    the qphys command loads them; plain qp_scene_load refuses them at the line.
 * 3. Bad scenes: every .scene file of tests/bad_scenes (first line "# expect LINE:COL
 *    TEXT") fails at that line and column with that message, and the world
 *    is byte for byte as before (and so are qp_world_hash and the stats). An
 *    error inside a mesh file (found by the OBJ reader, past qp_scene_check)
 *    is reported at the mesh line's path, its message naming the file's line.
 *    Also made here: a 1 MB line, a 1 MB number, random bytes.
 * 4. Robustness: every prefix of a scene (mixed, and terrain8 with its heightfield)
 *    and thousands of random byte mutations either load or fail with a line and column inside the text,
 *    leaving the world unchanged (run under ASan/UBSan by make test).
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

#include "obj.h"
#include "qphys/joint.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static qp_world world, before;

/* ---- helpers ---------------------------------------------------------------------- */

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
    buf[n] = 0;
    *len = (unsigned long)n;
    return buf;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.scene files of dir, sorted; returns the count. */
static int list_scenes(const char *dir, char names[][256], int max)
{
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot open %s (run the tests from the repository root)", dir);
    char *ptr[256];
    static char tmp[256][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != 0 && n < max && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".scene") == 0) {
            snprintf(tmp[n], sizeof tmp[n], "%.40s/%.200s", dir, e->d_name);
            ptr[n] = tmp[n];
            n++;
        }
    }
    closedir(d);
    qsort(ptr, (size_t)n, sizeof ptr[0], cmp_str);
    for (int i = 0; i < n; i++) snprintf(names[i], 256, "%s", ptr[i]);
    return n;
}

/* A world with some history, kept in `before` to compare with. */
static void make_busy_world(void)
{
    static const char text[] = "world hz 60\nplane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\n"
                               "sphere radius 0.5 pos 0.2 2 0 vel 0.5 0 0\nbox half 0.5 0.5 0.5 pos 3 4 0 spin 1 2 3\n";
    qp_scene_error err;
    assert_int_equal(qp_scene_load(&world, text, sizeof text - 1, 0, &err), QP_OK);
    for (int i = 0; i < 20; i++) qp_world_step(&world);
    memcpy(&before, &world, sizeof world);
}

static void assert_world_unchanged(const char *what)
{
    if (memcmp(&world, &before, sizeof world) != 0) fail_msg("%s: the world changed", what);
    assert_int_equal(qp_world_hash(&world), qp_world_hash(&before));
    qp_world_stats a = qp_world_get_stats(&world), b = qp_world_get_stats(&before);
    assert_int_equal(a.step, b.step);
    assert_int_equal(a.bodies, b.bodies);
    assert_int_equal(a.asleep, b.asleep);
}

/* ---- 1. numbers ---------------------------------------------------------------------- */

static qp_result pf(const char *s, fix16_t *v)
{
    return qp_scene_parse_fix(s, strlen(s), v);
}

static void test_numbers_table(void **state)
{
    (void)state;
    static const struct { const char *s; qp_result r; int32_t v; } cases[] = {
        { "0", QP_OK, 0 },
        { "-0", QP_OK, 0 },
        { "1", QP_OK, 65536 },
        { "+2", QP_OK, 131072 },
        { "007", QP_OK, 7 * 65536 },
        { "0.1", QP_OK, 6554 },            /* 6553.6 */
        { "-0.1", QP_OK, -6554 },
        { "-0.25", QP_OK, -16384 },
        { "0.5", QP_OK, 32768 },
        { "1.5", QP_OK, 98304 },
        { "0.001", QP_OK, 66 },            /* 65.536 */
        { "3.14159265358979", QP_OK, 205887 }, /* 205887.416 */
        { "0.0000152587890625", QP_OK, 1 },  /* 2^-16 exactly */
        { "0.00000762939453125", QP_OK, 1 }, /* a tie: away from zero */
        { "-0.00000762939453125", QP_OK, -1 },
        { "0.00000762939453124", QP_OK, 0 }, /* just below the tie */
        { "0.000007629394531250000001", QP_OK, 1 },
        { "0.000015258789062500000000", QP_OK, 1 },   /* 24 fraction digits */
        { "32767", QP_OK, 32767 * 65536 },
        { "32767.99998", QP_OK, 0x7FFFFFFF },          /* 65534.69 -> 65535 */
        { "32767.999992", QP_OK, 0x7FFFFFFF },         /* 65535.48 */
        { "-32767.99998", QP_OK, -0x7FFFFFFF },
        { "32767.999993", QP_ERR_RANGE, 0 },           /* 65535.54 rounds to 2^31 */
        { "32768", QP_ERR_RANGE, 0 },
        { "-32768", QP_ERR_RANGE, 0 },
        { "99999999999999999999", QP_ERR_RANGE, 0 },
        { "", QP_ERR_PARSE, 0 },
        { "-", QP_ERR_PARSE, 0 },
        { "+", QP_ERR_PARSE, 0 },
        { "1.", QP_ERR_PARSE, 0 },
        { ".5", QP_ERR_PARSE, 0 },
        { "1e3", QP_ERR_PARSE, 0 },
        { "0x10", QP_ERR_PARSE, 0 },
        { "1.2.3", QP_ERR_PARSE, 0 },
        { "--1", QP_ERR_PARSE, 0 },
        { "1 ", QP_ERR_PARSE, 0 },
        { "0.0000000000000000000000001", QP_ERR_PARSE, 0 }, /* 25 fraction digits */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fix16_t v = 12345;
        qp_result r = pf(cases[i].s, &v);
        if (r != cases[i].r) fail_msg("'%s': result %d, want %d", cases[i].s, r, cases[i].r);
        if (r == QP_OK && v != cases[i].v) fail_msg("'%s': %d, want %d", cases[i].s, v, cases[i].v);
        if (r != QP_OK) assert_int_equal(v, 12345); /* untouched */
    }
    assert_int_equal(qp_scene_parse_fix(0, 1, 0), QP_ERR_PARAM);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static void test_numbers_roundtrip(void **state)
{
    (void)state;
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        int32_t raw = (int32_t)rng();
        if (raw == INT32_MIN) continue;
        /* Every Q16.16 value has an exact 16-digit decimal form (glibc prints it exactly). */
        snprintf(buf, sizeof buf, "%.16f", raw / 65536.0);
        fix16_t v;
        assert_int_equal(pf(buf, &v), QP_OK);
        if (v != raw) fail_msg("'%s' read as %d, want %d", buf, v, raw);
    }
}

static void test_numbers_reference(void **state)
{
    (void)state;
    char buf[64];
    static const int64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
    for (int i = 0; i < 200000; i++) {
        int digits = (int)(rng() % 9);                  /* 0..8 fraction digits */
        int64_t whole = (int64_t)(rng() % 32768u), frac = (int64_t)(rng() % (uint32_t)pow10[digits]);
        int64_t mag = whole * pow10[digits] + frac;   /* two draws, two sequenced initialisers */
        int neg = rng() & 1;
        /* Reference: round(mag * 65536 / 10^d), ties away from zero, in integers. */
        int64_t want = (mag * 131072 + pow10[digits]) / (2 * pow10[digits]);
        if (digits == 0) snprintf(buf, sizeof buf, "%s%lld", neg ? "-" : "", (long long)mag);
        else
            snprintf(buf, sizeof buf, "%s%lld.%0*lld", neg ? "-" : "", (long long)(mag / pow10[digits]), digits,
                     (long long)(mag % pow10[digits]));
        fix16_t v;
        qp_result r = pf(buf, &v);
        if (want > 0x7FFFFFFF) {
            assert_int_equal(r, QP_ERR_RANGE);
            continue;
        }
        assert_int_equal(r, QP_OK);
        if (v != (neg ? -want : want)) fail_msg("'%s' read as %d, want %lld", buf, v, (long long)(neg ? -want : want));
    }
}

/* ---- 2. good scenes --------------------------------------------------------------------- */

static void check_good_scene(const char *path)
{
    unsigned long len;
    char *text = read_all(path, &len);
    qp_scene_info info;
    qp_scene_error err;
    qp_result r = qp_scene_check(text, len, &info, &err);
    /* Count the body lines independently of the reader's bookkeeping. */
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    static qp_scene_item item;
    int bodies = 0, levels = 0, hulls = 0;
    while (qp_scene_next(&rd, &item, &err) > 0) {
        bool level = item.kind == QP_SCENE_MESH || item.kind == QP_SCENE_HEIGHTFIELD;
        bodies += item.kind == QP_SCENE_BODY || level;
        levels += level;
        hulls += item.kind == QP_SCENE_BODY && item.u.body.hull_shape >= 0;
    }
    const qp_scene_level_store *store = obj_level_store(path, text, len);
    if (bodies > QP_CFG_MAX_BODIES || hulls > QP_CFG_MAX_HULLS) {
        /* Bigger than a world of the default capacities (pyramid64: 2081 bodies; rocks: 24
         * hulls): valid, and refused by that world at the first body past its capacity. */
        if (r != QP_OK) fail_msg("%s: %d bodies: result %d, want QP_OK", path, bodies, r);
        assert_int_equal(info.hulls, hulls);
        make_busy_world();
        assert_int_equal(qp_scene_load(&world, text, len, 0, &err), QP_ERR_FULL);
        assert_int_equal(err.line > 0, 1);
        assert_world_unchanged(path);
        free(text);
        return;
    }
    if (r != QP_OK) fail_msg("%s:%d:%d: %s", path, err.line, err.column, err.message);
    if (levels > 0) {
        /* Without storage for the geometry: refused, the world untouched. */
        make_busy_world();
        assert_int_equal(qp_scene_load(&world, text, len, &info, &err), QP_ERR_PARAM);
        assert_world_unchanged(path);
    }
    r = qp_scene_load_level(&world, text, len, &info, &err, store);
    if (r != QP_OK) fail_msg("%s:%d:%d: %s", path, err.line, err.column, err.message);
    assert_int_equal(info.bodies, bodies);
    assert_int_equal(info.hulls, hulls);
    qp_world_stats st = qp_world_get_stats(&world);
    assert_int_equal(st.step, 0);
    /* Body i of the file is slot i + 1, with its line's pose and motion. */
    rd = qp_scene_reader_init(text, len);
    int i = 0;
    while (qp_scene_next(&rd, &item, &err) > 0) {
        if (item.kind == QP_SCENE_WORLD) {
            const qp_world_def *d = qp_world_get_def(&world), *want = &item.u.world.def;
            assert_true(qp_v3_eq(d->gravity, want->gravity));
            assert_int_equal(d->dt, want->dt);
            assert_int_equal(d->contact_iterations, want->contact_iterations);
            assert_int_equal(d->sleep_enabled, want->sleep_enabled);
            continue;
        }
        if (item.kind != QP_SCENE_BODY && item.kind != QP_SCENE_MESH && item.kind != QP_SCENE_HEIGHTFIELD) continue;
        const qp_body_def *d = item.kind == QP_SCENE_BODY ? &item.u.body.def : &item.u.level.def;
        qp_body_id id = qp_scene_body(&world, i);
        assert_int_equal(id.index, i + 1);
        assert_true(qp_body_is_valid(&world, id));
        qp_body_id at = qp_world_body_at(&world, i + 1);
        assert_int_equal(at.index, id.index);
        assert_int_equal(at.generation, id.generation);
        assert_int_equal(qp_body_get_type(&world, id), d->type);
        qp_vec3 p = qp_body_position(&world, id);
        /* The origin is recovered through the centre of mass: within 2 LSB. */
        assert_true(labs((long)p.x - d->position.x) <= 2 && labs((long)p.y - d->position.y) <= 2 &&
                    labs((long)p.z - d->position.z) <= 2);
        if (d->type == QP_BODY_DYNAMIC && !d->asleep) {
            qp_vec3 v = qp_body_linear_velocity(&world, id);
            assert_true(qp_v3_eq(v, d->linear_velocity));
        }
        i++;
    }
    assert_int_equal(i, bodies);
    assert_true(qp_body_id_is_null(qp_scene_body(&world, bodies)));
    assert_true(qp_body_id_is_null(qp_scene_body(&world, -1)));
    /* A few steps run (the scene is usable). */
    for (int s = 0; s < 3; s++) qp_world_step(&world);
    free(text);
}

static void test_good_scenes(void **state)
{
    (void)state;
    static char names[64][256];
    int n = list_scenes("tests/scenes", names, 64);
    assert_true(n >= 8);
    static const char *const named[] = { "stack20", "stack50", "pyramid20", "pyramid64", "rain512" };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        int found = 0;
        char want[64];
        snprintf(want, sizeof want, "tests/scenes/%s.scene", named[k]);
        for (int i = 0; i < n; i++) found |= strcmp(names[i], want) == 0;
        if (!found) fail_msg("named scene %s missing", want);
    }
    for (int i = 0; i < n; i++) check_good_scene(names[i]);
}

static void test_named_scene_contents(void **state)
{
    (void)state;
    unsigned long len;
    qp_scene_error err;
    qp_scene_info info;
    char *t = read_all("tests/scenes/stack20.scene", &len);
    assert_int_equal(qp_scene_load(&world, t, len, &info, &err), QP_OK);
    assert_int_equal(info.bodies, 21);
    assert_int_equal(info.dynamic_bodies, 20);
    qp_vec3 top = qp_body_position(&world, qp_scene_body(&world, 20));
    assert_int_equal(top.y, QP_FRAC(39, 2)); /* cube 19 at y = 19.5 */
    assert_int_equal(qp_body_mass(&world, qp_scene_body(&world, 1)), QP_ONE);
    assert_int_equal(qp_world_get_def(&world)->dt, QP_FRAC(1, 60));
    assert_int_equal(qp_world_get_def(&world)->contact_iterations, 10);
    free(t);
    t = read_all("tests/scenes/pyramid20.scene", &len);
    assert_int_equal(qp_scene_check(t, len, &info, &err), QP_OK);
    assert_int_equal(info.bodies, 211);
    free(t);
    t = read_all("tests/scenes/rain512.scene", &len);
    assert_int_equal(qp_scene_load(&world, t, len, &info, &err), QP_OK);
    assert_int_equal(info.bodies, 513);
    /* Cube (i, j, k) = (1, 0, 0) is body 2: turned 37 degrees about (1, 1, 1). */
    qp_quat q = qp_body_rotation(&world, qp_scene_body(&world, 2));
    qp_quat want;
    assert_true(qp_quat_from_axis_angle(qp_v3(QP_ONE, QP_ONE, QP_ONE), qp_deg_to_rad(QP_INT(37)), &want));
    assert_true(labs((long)q.w - want.w) <= 4 && labs((long)q.x - want.x) <= 4);
    free(t);
    t = read_all("tests/scenes/pyramid64.scene", &len);
    assert_int_equal(qp_scene_check(t, len, &info, &err), QP_OK);
    assert_int_equal(info.bodies, 2081);
    assert_int_equal(qp_scene_load(&world, t, len, &info, &err), 2081 > QP_CFG_MAX_BODIES ? QP_ERR_FULL : QP_OK);
    free(t);
}

static void test_world_line_and_options(void **state)
{
    (void)state;
    static const char text[] =
        "# comment line\r\n"
        "\t world gravity 0 -9.81 0.5 hz 120 iterations 12 sleep off gyroscopic on joint_tree on # trailing comment\r\n"
        "\n"
        "plane normal 0 2 0 offset -1 friction 0.25 restitution 0.5\n"
        "box half 0.5 0.25 0.125 pos 1 2 3 rot 0 0 1 90 vel 1 0 0 spin 0 0 2 mass 3 friction 0.75 restitution 1\n"
        "sphere radius 0.5 pos 0 5 0 static\n"
        "capsule half_height 0.5 radius 0.25 pos 0 8 0 density 2 asleep"; /* no final newline */
    qp_scene_error err;
    qp_scene_info info;
    assert_int_equal(qp_scene_load(&world, text, sizeof text - 1, &info, &err), QP_OK);
    assert_int_equal(info.bodies, 4);
    assert_int_equal(info.dynamic_bodies, 2);
    assert_int_equal(info.lines, 7);
    const qp_world_def *d = qp_world_get_def(&world);
    assert_int_equal(d->gravity.y, -642908); /* -9.81 * 65536 = -642908.16 */
    assert_int_equal(d->gravity.z, 32768);
    assert_int_equal(d->dt, QP_FRAC(1, 120));
    assert_int_equal(d->contact_iterations, 12);
    assert_false(d->sleep_enabled);
    assert_true(d->gyroscopic);
    assert_true(d->joint_tree);
    qp_body_id plane = qp_scene_body(&world, 0), box = qp_scene_body(&world, 1), ball = qp_scene_body(&world, 2),
               cap = qp_scene_body(&world, 3);
    assert_int_equal(qp_body_get_type(&world, plane), QP_BODY_STATIC);
    assert_int_equal(qp_body_shape_count(&world, plane), 1);
    const qp_shape *sh = qp_body_shape(&world, plane, 0);
    assert_non_null(sh);
    assert_int_equal(sh[0].type, QP_SHAPE_PLANE);
    assert_int_equal(sh[0].normal.y, QP_Q30_ONE);
    assert_int_equal(sh[0].plane_offset, -QP_ONE);
    assert_int_equal(qp_body_mass(&world, box), QP_INT(3));
    assert_int_equal(qp_body_linear_velocity(&world, box).x, QP_ONE);
    assert_int_equal(qp_body_angular_velocity(&world, box).z, QP_INT(2));
    qp_quat q = qp_body_rotation(&world, box);
    /* cos 45 deg, sin 45 deg; the angle passes through Q16.16 radians (qp_deg_to_rad): 1e-5 rad. */
    if (labs((long)q.w - 759250125L) > 4000 || labs((long)q.z - 759250125L) > 4000) fail_msg("q %d %d %d %d", q.w, q.x, q.y, q.z);
    assert_int_equal(qp_body_get_type(&world, ball), QP_BODY_STATIC);
    assert_false(qp_body_is_awake(&world, cap));
    assert_int_equal(qp_body_get_type(&world, cap), QP_BODY_DYNAMIC);

    /* The item reader gives the same description. */
    qp_scene_reader rd = qp_scene_reader_init(text, sizeof text - 1);
    static qp_scene_item it;
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(it.kind, QP_SCENE_WORLD);
    assert_int_equal(it.line, 2);
    assert_int_equal(it.at, 2);
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(it.kind, QP_SCENE_BODY);
    assert_int_equal(it.line, 4);
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(it.u.body.given, QP_SCENE_GIVEN_ROT | QP_SCENE_GIVEN_VEL | QP_SCENE_GIVEN_SPIN |
                                          QP_SCENE_GIVEN_MASS | QP_SCENE_GIVEN_FRICTION |
                                          QP_SCENE_GIVEN_RESTITUTION);
    assert_int_equal(it.u.body.def.shapes[0].half.z, QP_FRAC(1, 8));
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(it.u.body.def.shapes[0].type, QP_SHAPE_CAPSULE);
    assert_int_equal(it.u.body.def.density, QP_INT(2));
    assert_int_equal(qp_scene_next(&rd, &it, &err), 0);

    /* Empty scenes are valid and give an empty world. */
    assert_int_equal(qp_scene_load(&world, "", 0, &info, &err), QP_OK);
    assert_int_equal(info.bodies, 0);
    assert_int_equal(qp_scene_load(&world, 0, 0, &info, &err), QP_OK);
    assert_int_equal(qp_scene_load(&world, "# nothing\n\n  \t\n", 15, &info, &err), QP_OK);
    assert_int_equal(qp_scene_check(0, 5, 0, &err), QP_ERR_PARAM);
    assert_int_equal(qp_scene_load(0, "", 0, 0, &err), QP_ERR_PARAM);
}

static void test_joints(void **state)
{
    (void)state;
    static const char text[] = "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\nbox half 0.5 0.5 0.5 pos 0 1.5 0\n"
                               "hinge 1 2 anchor 0 1 0 axis 0 0 2 limit -90 45\nball 2 1 anchor 0 2 0\n";
    qp_scene_reader rd = qp_scene_reader_init(text, sizeof text - 1);
    static qp_scene_item it;
    qp_scene_error err;
    for (int i = 0; i < 3; i++) assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(it.kind, QP_SCENE_HINGE);
    assert_int_equal(it.u.joint.a, 1);
    assert_int_equal(it.u.joint.b, 2);
    assert_int_equal(it.u.joint.anchor.y, QP_ONE);
    assert_int_equal(it.u.joint.axis.z, QP_Q30_ONE);
    assert_true(it.u.joint.has_limit);
    assert_int_equal(it.u.joint.limit_lo, qp_deg_to_rad(QP_INT(-90)));
    assert_int_equal(it.u.joint.limit_hi, qp_deg_to_rad(QP_INT(45)));
    assert_int_equal(qp_scene_next(&rd, &it, &err), 1);
    assert_int_equal(it.kind, QP_SCENE_BALL);
    assert_false(it.u.joint.has_limit);
    /* They load: a hinge of body 1 to body 2 in joint slot 1, a ball joint in slot 2. */
    qp_scene_info info;
    assert_int_equal(qp_scene_load(&world, text, sizeof text - 1, &info, &err), QP_OK);
    assert_int_equal(info.joints, 2);
    qp_joint_id h = qp_world_joint_at(&world, 1), b = qp_world_joint_at(&world, 2);
    assert_int_equal(qp_joint_get_type(&world, h), QP_JOINT_HINGE);
    assert_int_equal(qp_joint_get_type(&world, b), QP_JOINT_BALL);
    qp_body_id ja, jb;
    qp_joint_bodies(&world, b, &ja, &jb);
    assert_int_equal(ja.index, qp_scene_body(&world, 2).index);
    assert_int_equal(jb.index, qp_scene_body(&world, 1).index);
    assert_int_equal(qp_joint_error(&world, h), 0);
}

/* ---- 3. bad scenes -------------------------------------------------------------------------- */

/* Load text that must fail at line:col with a message starting with want (with store:
 * its level geometry read by the tools' OBJ reader). */
static void expect_level_error(const char *what, const char *text, unsigned long len, int line, int col,
                               const char *want, const qp_scene_level_store *store)
{
    qp_scene_error err = { -5, -5, 0, QP_OK };
    make_busy_world();
    qp_result r = qp_scene_load_level(&world, text, len, 0, &err, store);
    if (r == QP_OK) fail_msg("%s: loaded, want an error at %d:%d", what, line, col);
    assert_int_equal(err.result, r);
    assert_non_null(err.message);
    if (err.line != line || err.column != col || strncmp(err.message, want, strlen(want)) != 0)
        fail_msg("%s: %d:%d: %s; want %d:%d: %s...", what, err.line, err.column, err.message, line, col, want);
    assert_world_unchanged(what);
    /* qp_scene_check agrees, unless the fault is inside a mesh file (which it never reads),
     * or is the world's capacities (it checks against any world's). */
    qp_scene_error err2;
    qp_result checked = qp_scene_check(text, len, 0, &err2);
    if (store && checked == QP_OK) return;
    if (strstr(err.message, "this world's capacit")) {
        assert_int_equal(checked, QP_OK);
        return;
    }
    assert_int_equal(checked, r);
    assert_int_equal(err2.line, line);
    assert_int_equal(err2.column, col);
}

static void expect_error(const char *what, const char *text, unsigned long len, int line, int col, const char *want)
{
    expect_level_error(what, text, len, line, col, want, NULL);
}

/* Joints in a level: body numbers count the mesh and heightfield lines, and a joint may
 * hold a body to either (a door on a hinge to the terrain, a sign welded to a ramp). */
static void test_joints_beside_level_geometry(void **state)
{
    (void)state;
    static const char text[] =
        "heightfield rows 3 cols 3 spacing 2 pos -2 0 -2 heights 0 0 0 0 0.2 0 0 0 0\n"   /* body 0 */
        "mesh file ramp.obj pos 0 0 -5\n"                                                 /* body 1 */
        "box half 0.5 0.5 0.5 pos 0 2 0\n"                                                /* body 2 */
        "box half 0.5 0.5 0.5 pos 0 3 0\n"                                                /* body 3 */
        "hinge 2 3 anchor 0 2.5 0 axis 0 0 1\n"
        "ball 0 3 anchor 0 3.5 0\n"
        "fixed 1 2 anchor 0 1 -3\n"
        "slider 3 0 anchor 0 3 0 axis 0 1 0 limit -1 1\n";
    const unsigned long len = sizeof text - 1;
    qp_scene_info info;
    qp_scene_error err;
    qp_result r = qp_scene_check(text, len, &info, &err);
    if (r != QP_OK) fail_msg("%d:%d: %s", err.line, err.column, err.message);
    assert_int_equal(info.bodies, 4);
    assert_int_equal(info.joints, 4);
    r = qp_scene_load_level(&world, text, len, &info, &err, obj_level_store("tests/scenes/here.scene", text, len));
    if (r != QP_OK) fail_msg("%d:%d: %s", err.line, err.column, err.message);
    static const struct { int a, b; qp_joint_type type; } want[] = {
        { 2, 3, QP_JOINT_HINGE }, { 0, 3, QP_JOINT_BALL }, { 1, 2, QP_JOINT_FIXED }, { 3, 0, QP_JOINT_SLIDER }
    };
    for (int i = 0; i < 4; i++) {
        qp_joint_id j = qp_world_joint_at(&world, i + 1);
        assert_int_equal(qp_joint_get_type(&world, j), want[i].type);
        qp_body_id ja, jb;
        qp_joint_bodies(&world, j, &ja, &jb);
        assert_int_equal(ja.index, qp_scene_body(&world, want[i].a).index);
        assert_int_equal(jb.index, qp_scene_body(&world, want[i].b).index);
    }
    for (int s = 0; s < 60; s++) qp_world_step(&world);
    /* The boxes hang where the joints hold them: box 2 welded in place, box 3 on its hinge
     * and ball above it. */
    qp_vec3 p2 = qp_body_position(&world, qp_scene_body(&world, 2));
    qp_vec3 p3 = qp_body_position(&world, qp_scene_body(&world, 3));
    assert_true(labs((long)p2.y - QP_INT(2)) < QP_FRAC(1, 100));
    assert_true(labs((long)p3.y - QP_INT(3)) < QP_FRAC(1, 100));

    /* A joint between the two static level bodies is refused at its own line. */
    static const char both_static[] = "heightfield rows 2 cols 2 spacing 1 pos 0 0 0 heights 0 0 0 0\n"
                                      "box half 0.5 0.5 0.5 pos 0 2 0\n"
                                      "mesh file ramp.obj pos 0 0 -5\n"
                                      "ball 2 0 anchor 0 1 0\n";
    expect_level_error("a joint of two level bodies", both_static, sizeof both_static - 1, 4, 1,
                       "a joint needs at least one dynamic body",
                       obj_level_store("tests/scenes/here.scene", both_static, sizeof both_static - 1));
}

static void test_bad_scene_files(void **state)
{
    (void)state;
    static char names[128][256];
    int n = list_scenes("tests/bad_scenes", names, 128);
    assert_true(n >= 20);
    for (int i = 0; i < n; i++) {
        unsigned long len;
        char *text = read_all(names[i], &len);
        int line = 0, col = 0, off = 0;
        char want[200];
        if (sscanf(text, "# expect %d:%d %n", &line, &col, &off) != 2 || off == 0)
            fail_msg("%s: no '# expect LINE:COL TEXT' first line", names[i]);
        size_t k = 0;
        while (text[off + (int)k] && text[off + (int)k] != '\n' && text[off + (int)k] != '\r' && k < sizeof want - 1) {
            want[k] = text[off + (int)k];
            k++;
        }
        want[k] = 0;
        expect_level_error(names[i], text, len, line, col, want, obj_level_store(names[i], text, len));
        free(text);
    }
}

static void test_bad_generated(void **state)
{
    (void)state;
    const unsigned long mb = 1024ul * 1024ul;
    char *t = malloc(mb + 256);
    assert_non_null(t);
    /* A 1 MB line of blanks between a valid sphere and an unknown option. */
    int n = sprintf(t, "plane\nsphere radius 0.5 pos 0 1 0");
    memset(t + n, ' ', mb);
    memcpy(t + n + mb, "bogus\n", 6);
    expect_error("1 MB line", t, (unsigned long)n + mb + 6, 2, 28 + (int)mb, "unknown option for 'sphere'");
    /* A 1 MB number. */
    n = sprintf(t, "sphere radius ");
    memset(t + n, '7', mb);
    memcpy(t + n + mb, " pos 0 1 0\n", 11);
    expect_error("1 MB number", t, (unsigned long)n + mb + 11, 1, 15, "number out of range");
    /* A 1 MB token. */
    memset(t, 'x', mb);
    expect_error("1 MB keyword", t, mb, 1, 1, "unknown keyword");
    /* A 1 MB comment is fine. */
    t[0] = '#';
    qp_scene_error err;
    assert_int_equal(qp_scene_check(t, mb, 0, &err), QP_OK);
    /* Random bytes after a valid line. */
    n = sprintf(t, "plane\n");
    for (int i = 0; i < 4096; i++) t[n + i] = (char)(0x80 | (rng() & 0x7F));
    expect_error("random bytes", t, (unsigned long)n + 4096, 2, 1, "unexpected byte");
    /* A NUL inside a token, a tab-separated line, a lone CR. */
    static const char nul[] = "plane\nbox half 0.5\0 0.5 0.5 pos 0 1 0\n";
    expect_error("NUL", nul, sizeof nul - 1, 2, 13, "unexpected byte");
    static const char tabs[] = "plane\nbox\thalf\t0.5\t0.5\t0.5\tpos\t0\t1\t0\tfoo\n";
    expect_error("tabs", tabs, sizeof tabs - 1, 2, 32, "unknown option for 'box'");
    /* Capacity: QP_CFG_MAX_BODIES + 1 bodies fail at the last one. */
    char *big = malloc((size_t)(QP_CFG_MAX_BODIES + 2) * 48);
    assert_non_null(big);
    int len = 0;
    for (int i = 0; i <= QP_CFG_MAX_BODIES; i++)
        len += sprintf(big + len, "box half 0.4 0.4 0.4 pos %d 0.5 %d\n", i % 40 - 20, i / 40 - 20);
    expect_error("capacity", big, (unsigned long)len, QP_CFG_MAX_BODIES + 1, 1,
                 "too many bodies or shapes for this world's capacities");
    /* ... and exactly QP_CFG_MAX_BODIES load. */
    len -= (int)strlen(strrchr(big, 'b') ? strrchr(big, 'b') : "");
    qp_scene_info info;
    assert_int_equal(qp_scene_load(&world, big, (unsigned long)len, &info, &err), QP_OK);
    assert_int_equal(info.bodies, QP_CFG_MAX_BODIES);
    free(big);
    free(t);
}

/* ---- 4. robustness --------------------------------------------------------------------------- */

/* Load text (with level lines when level: through the tools' OBJ store). */
static void check_any(const char *text, unsigned long len, int lines, bool level)
{
    qp_scene_error err = { -5, -5, 0, QP_OK };
    qp_result r = level ? qp_scene_load_level(&world, text, len, 0, &err, obj_level_store(NULL, text, len))
                        : qp_scene_load(&world, text, len, 0, &err);
    if (r == QP_OK) {
        make_busy_world();
        return;
    }
    assert_non_null(err.message);
    assert_true(err.line >= 1 && err.line <= lines);
    assert_true(err.column >= 1);
    assert_world_unchanged("mutation");
}

static void prefixes_and_mutations(const char *path, bool level)
{
    unsigned long len;
    char *text = read_all(path, &len);
    char *copy = malloc(len + 1);
    assert_non_null(copy);
    int lines = 1;
    for (unsigned long i = 0; i < len; i++) lines += text[i] == '\n';
    make_busy_world();
    for (unsigned long n = 0; n <= len; n++) check_any(text, n, lines, level);
    for (int i = 0; i < 3000; i++) {
        memcpy(copy, text, len);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            unsigned long at = rng() % len;
            switch (rng() % 4) {
            case 0: copy[at] = (char)rng(); break;                       /* any byte */
            case 1: copy[at] = "0123456789.-+ #\n"[rng() % 16]; break;   /* plausible */
            case 2: copy[at] = (char)('a' + rng() % 26); break;
            default: copy[at] = '9'; break;
            }
        }
        int l = 1;
        for (unsigned long k = 0; k < len; k++) l += copy[k] == '\n';
        check_any(copy, len, l, level);
    }
    free(copy);
    free(text);
}

static void test_prefixes_and_mutations(void **state)
{
    (void)state;
    prefixes_and_mutations("tests/scenes/mixed.scene", false);
    /* A heightfield's line: its rows, columns, spacing and heights cut and mutated. */
    prefixes_and_mutations("tests/scenes/terrain8.scene", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_table),
        cmocka_unit_test(test_numbers_roundtrip),
        cmocka_unit_test(test_numbers_reference),
        cmocka_unit_test(test_good_scenes),
        cmocka_unit_test(test_named_scene_contents),
        cmocka_unit_test(test_world_line_and_options),
        cmocka_unit_test(test_joints),
        cmocka_unit_test(test_joints_beside_level_geometry),
        cmocka_unit_test(test_bad_scene_files),
        cmocka_unit_test(test_bad_generated),
        cmocka_unit_test(test_prefixes_and_mutations),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
