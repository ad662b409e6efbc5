/* SPDX-License-Identifier: MIT */
/* qphys - run, record and replay scene files on the host.
 *
 *   qphys run SCENE|SNAPSHOT [--steps N] [--hashes] [--json] [--save SNAPSHOT]
 *   qphys record SCENE [--steps N] [--inputs EVERY] [--seed S] [--poses] -o FILE
 *   qphys record SNAPSHOT [--steps N] [--inputs EVERY] [--seed S] [--poses] -o NAME.qpin
 *   qphys replay FILE [--verify]
 *   qphys verify PATH... [-j N] [--junit FILE]
 *   qphys check SCENE
 *   qphys --version
 *
 * run: loads SCENE (docs/scene-format.md) and steps it N times (default 600).
 *   Without options a short summary; --hashes prints only "step hash" lines
 *   (steps from 1, hash = qp_world_hash as 8 hex digits); --json prints one
 *   JSON object (with --hashes it carries a "hashes" array). --save writes the
 *   world's snapshot after the last step; given a snapshot instead of a scene, run
 *   resumes from it and numbers its steps on from the snapshot's.
 * record: runs SCENE and writes a replay file (docs/scene-format.md, "Replay files"): the
 *   scene text, the engine's pinned configuration, per step the inputs made through the
 *   world's input log (--inputs EVERY: one call every EVERY steps, of every kind in turn),
 *   the world hash and the hashes of the bodies that changed (--poses: and their states), and
 *   a check line (length and CRC-32). --seed S (1 .. 10000000) starts the inputs' pseudo-random
 *   sequence elsewhere. From a SNAPSHOT, the recording is NAME.qpin (a "snapshot" header line
 *   in place of the scene) and the snapshot is written beside it as NAME.qps: a pair.
 * replay: checks the file (exit 2 if damaged, truncated or malformed; a NAME.qpin with the
 *   NAME.qps it starts from), runs it again and compares every step (--verify is the
 *   default): reports the first step whose hashes differ, the first body (by slot) whose
 *   hash differs with its recorded and computed values (exit 1), or that every step matched.
 * verify: every recording (*.replay, and *.qpin with its NAME.qps) under the paths, on N
 *   processes (default: every core), one line each and a summary (tools/verify_cmd.c).
 * check: parses and validates SCENE only.
 * --version: "qphys MAJOR.MINOR.PATCH", the release of the headers (qphys/version.h).
 *
 * Exit status: 0 success, 1 verification failed, 2 bad input or usage
 * (scene errors are reported as FILE:LINE:COLUMN: message on stderr).
 *
 * A host tool: stdio, the heap and double (for printing) are fine here.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj.h"
#include "qp_port.h"
#include "qphys/hash.h"
#include "qphys/record.h"
#include "qphys/scene.h"
#include "qphys/version.h"
#include "qphys/world.h"
#include "replay.h"
#include "sized_world.h"
#include "verify.h"

#define EXIT_VERIFY 1
#define EXIT_INPUT 2
#define DEFAULT_STEPS 600
#define MAX_STEPS 10000000L
#define MAX_FILE (256L * 1024 * 1024)

static qp_world *world;         /* all of the engine's state: sized to the file loaded (sized_world.h) */
static const char *prog = "qphys";

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(EXIT_INPUT);
}

static const char usage_text[] =
    "usage: qphys run SCENE|SNAPSHOT [--steps N] [--hashes] [--json] [--save SNAPSHOT] [--scene SCENE]\n"
    "       qphys record SCENE [--steps N] [--inputs EVERY] [--seed S] [--poses] -o FILE\n"
    "       qphys record SNAPSHOT [--steps N] [--inputs EVERY] [--seed S] [--poses] -o NAME.qpin\n"
    "       qphys replay FILE [--verify]\n"
    "       qphys verify PATH... [-j N] [--junit FILE]\n"
    "       qphys check SCENE\n"
    "       qphys render SCENE|SNAPSHOT [--steps N | --from A --to B --every K] -o FILE.png|FILE.gif\n"
    "       qphys render SCENE|SNAPSHOT --poses FILE [--every K] -o FILE.gif   (a board's frames)\n"
    "       qphys --help | --version\n"
    "Every command takes --max-bodies N: refuse files of more bodies (its world is sized to\n"
    "the file: docs/scale.md). A snapshot of a world with meshes or heightfields restores over\n"
    "the scene it came from (--scene SCENE: its level geometry is built first).\n"
    "Scene files: docs/scene-format.md. Exit status: 0 success, 1 a verification\n"
    "failed, 2 bad input or usage.\n";

/* A usage error: the text on stderr, exit 2. (--help prints it on stdout, exit 0.) */
static void usage(void)
{
    fputs(usage_text, stderr);
    exit(EXIT_INPUT);
}

/* The value of the option at argv[*i], which must follow it. */
static const char *option_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) die("%s: option '%s' needs a value", cmd, argv[*i]);
    return argv[++*i];
}

/* ---- files ------------------------------------------------------------------------ */

typedef struct {
    char *data;
    unsigned long len;
} blob;

static blob read_file(const char *path)
{
    blob b = { 0, 0 };
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    b.data = malloc(cap);
    if (!b.data) die("out of memory");
    for (;;) {
        if (n == cap) {
            if ((long)cap >= MAX_FILE) die("%s: larger than %ld bytes", path, MAX_FILE);
            cap *= 2;
            char *p = realloc(b.data, cap);
            if (!p) die("out of memory");
            b.data = p;
        }
        size_t got = fread(b.data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) die("%s: read error", path);
    fclose(f);
    b.len = (unsigned long)n;
    return b;
}

static long parse_steps(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0 || v > MAX_STEPS) die("--steps: expected 0 .. %ld, not '%s'", MAX_STEPS, s);
    return v;
}

/* Load a scene; on error print FILE:LINE:COLUMN: message and exit 2. line_offset
 * maps the scene's lines to the file's (replay files embed the scene). */
static qp_scene_info load_scene(const char *path, const char *text, unsigned long len, int line_offset)
{
    qp_scene_info info;
    qp_scene_error err;
    qp_result r = sized_world_load_scene(&world, text, len, &info, &err, obj_level_store(path, text, len));
    if (r != QP_OK) {
        if (err.line > 0)
            fprintf(stderr, "%s:%d:%d: error: %s\n", path, err.line + line_offset, err.column, err.message);
        else
            fprintf(stderr, "%s: error: %s (%s)\n", path, err.message, qp_result_str(r));
        exit(EXIT_INPUT);
    }
    return info;
}

/* A snapshot file (qp_world_snapshot's bytes) starts with "QPS" and its format digit. */
static int is_snapshot(const blob *b) { return b->len >= 4 && !memcmp(b->data, "QPS", 3); }

/* Restore a snapshot into the world, or exit 2 naming the file; the scene info that a
 * run reports, from the restored world. */
static qp_scene_info load_snapshot(const char *path, const blob *b)
{
    char why[160];
    qp_result r = sized_world_restore(&world, b->data, b->len, why, sizeof why);
    if (r != QP_OK) {
        fprintf(stderr, "%s: error: not a valid snapshot: %s\n", path, why);
        exit(EXIT_INPUT);
    }
    qp_scene_info info;
    memset(&info, 0, sizeof info);
    info.world = *qp_world_get_def(world);
    for (int i = 1; i <= qp_world_body_capacity(world); i++) {
        qp_body_id id = qp_world_body_at(world, i);
        if (qp_body_id_is_null(id)) continue;
        info.bodies = i;   /* scene numbering: body n is slot n + 1 */
        if (qp_body_get_type(world, id) == QP_BODY_DYNAMIC) info.dynamic_bodies++;
    }
    return info;
}

/* Write the world's snapshot to path, or exit 2. */
static void save_snapshot(const char *path)
{
    unsigned long n = qp_world_snapshot(world, NULL, 0);
    unsigned char *buf = malloc(n);
    if (!buf) die("out of memory");
    if (qp_world_snapshot(world, buf, n) != n) die("%s: snapshot failed", path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) die("%s: cannot write", path);
    free(buf);
}

/* ---- state ------------------------------------------------------------------------- */

static double fx(fix16_t v) { return (double)v / 65536.0; }
static double q30(qp_q30 v) { return (double)v / 1073741824.0; }

/* ---- run ----------------------------------------------------------------------------- */

static int cmd_run(int argc, char **argv)
{
    const char *path = 0, *save = 0, *level = 0;
    long steps = DEFAULT_STEPS;
    int hashes = 0, json = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--steps")) steps = parse_steps(option_value("run", argc, argv, &i));
        else if (!strcmp(argv[i], "--save")) save = option_value("run", argc, argv, &i);
        else if (!strcmp(argv[i], "--scene")) level = option_value("run", argc, argv, &i);
        else if (!strcmp(argv[i], "--hashes")) hashes = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-' && argv[i][1]) die("run: unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else usage();
    }
    if (!path) usage();
    blob text = read_file(path);
    if (level && !is_snapshot(&text)) die("run: --scene goes with a snapshot: %s is a scene", path);
    if (level) {
        /* The level geometry the snapshot references, built by loading its scene. */
        blob scene = read_file(level);
        load_scene(level, scene.data, scene.len, 0);
        free(scene.data);
    }
    qp_scene_info info = is_snapshot(&text) ? load_snapshot(path, &text) : load_scene(path, text.data, text.len, 0);
    /* A resumed run numbers its steps on from the snapshot's, so its "step hash" lines
     * can be compared with the uninterrupted run's. */
    long first = (long)qp_world_get_stats(world).step;

    uint32_t *seq = 0;
    if (hashes && json) {
        seq = malloc(sizeof *seq * (size_t)(steps > 0 ? steps : 1));
        if (!seq) die("out of memory");
    }
    uint64_t ticks = 0;
    for (long s = 1; s <= steps; s++) {
        uint64_t t0 = qp_port_ticks64();
        qp_world_step(world);
        ticks += qp_port_ticks64() - t0;
        if (hashes) {
            uint32_t h = qp_world_hash(world);
            if (json) seq[s - 1] = h;
            else printf("%ld %08x\n", first + s, (unsigned)h);
        }
    }
    double us = steps > 0 ? (double)ticks * 1e6 / (double)qp_port_tick_hz() / (double)steps : 0.0;
    qp_world_stats st = qp_world_get_stats(world);
    uint32_t final_hash = qp_world_hash(world);
    if (json) {
        printf("{\"scene\": \"");
        for (const char *p = path; *p; p++) {
            if (*p == '"' || *p == '\\') putchar('\\');
            if ((unsigned char)*p >= 0x20) putchar(*p);
        }
        printf("\", \"steps\": %ld, \"bodies\": %d, \"dynamic\": %d, \"awake\": %d, \"asleep\": %d, "
               "\"hash\": \"%08x\", \"first_all_asleep_step\": %d, \"us_per_step\": %.3f, "
               "\"contacts\": %d, \"points\": %d, \"max_pairs\": %d, \"max_contacts\": %d, \"overflows\": %u,\n",
               steps, info.bodies, info.dynamic_bodies, st.awake, st.asleep, (unsigned)final_hash,
               st.first_all_asleep_step, us, st.contacts, st.points, st.max_pairs, st.max_contacts,
               (unsigned)st.overflows);
        if (seq) {
            printf(" \"hashes\": [");
            for (long s = 0; s < steps; s++) printf("%s\"%08x\"", s ? ", " : "", (unsigned)seq[s]);
            printf("],\n");
        }
        printf(" \"final\": [");
        for (int i = 0; i < info.bodies; i++) {
            qp_body_id id = qp_scene_body(world, i);
            qp_vec3 p = qp_body_position(world, id), v = qp_body_linear_velocity(world, id),
                    w = qp_body_angular_velocity(world, id);
            qp_quat q = qp_body_rotation(world, id);
            qp_body_type type = qp_body_get_type(world, id);
            int dyn = type == QP_BODY_DYNAMIC;
            printf("%s\n  {\"pos\": [%.17g, %.17g, %.17g], \"quat\": [%.17g, %.17g, %.17g, %.17g], "
                   "\"vel\": [%.17g, %.17g, %.17g], \"spin\": [%.17g, %.17g, %.17g], \"asleep\": %s, \"static\": %s",
                   i ? "," : "", fx(p.x), fx(p.y), fx(p.z), q30(q.w), q30(q.x), q30(q.y), q30(q.z), fx(v.x), fx(v.y),
                   fx(v.z), fx(w.x), fx(w.y), fx(w.z), dyn && !qp_body_is_awake(world, id) ? "true" : "false",
                   type == QP_BODY_STATIC ? "true" : "false");
            if (type == QP_BODY_KINEMATIC) printf(", \"kinematic\": true");   /* only then: older outputs unchanged */
            printf(", \"flags\": %u}", (unsigned)qp_body_flags(world, id));
        }
        printf("\n ]}\n");
    } else if (!hashes) {
        printf("scene   %s: %d bodies (%d dynamic), %d Hz, %d iterations, sleep %s\n", path, info.bodies,
               info.dynamic_bodies, (int)(65536.0 / info.world.dt + 0.5), info.world.contact_iterations,
               info.world.sleep_enabled ? "on" : "off");
        printf("steps   %ld (%.2f s simulated), %.1f us per step\n", steps, (double)steps * fx(info.world.dt), us);
        printf("final   %d awake, %d asleep", st.awake, st.asleep);
        if (st.first_all_asleep_step >= 0) printf("; all asleep from step %d", st.first_all_asleep_step);
        /* What a board's pools must hold for this run (QP_CFG_MAX_PAIRS, _CONTACTS). */
        printf("\npools   peak %d pairs, %d contacts; %u overflows\n", st.max_pairs, st.max_contacts,
               (unsigned)st.overflows);
        printf("hash    %08x\n", (unsigned)final_hash);
    }
    if (save) save_snapshot(save);
    free(seq);
    free(text.data);
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 1) usage();
    blob text = read_file(argv[0]);
    qp_scene_info info = load_scene(argv[0], text.data, text.len, 0);
    printf("%s: ok: %d bodies (%d dynamic), %d lines\n", argv[0], info.bodies, info.dynamic_bodies, info.lines);
    free(text.data);
    return 0;
}

/* ---- record ----------------------------------------------------------------------------- */

/* The replay file as it is written: text in a growing buffer, so that its length and
 * CRC-32 can end it (the "check" line). */
typedef struct {
    char *p;
    size_t n, cap;
} text_buf;

static void out(text_buf *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : 0, t->p ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) die("output error");
        if (t->p && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 1 << 16;
        while (cap < t->n + (size_t)k + 1) cap *= 2;
        char *q = realloc(t->p, cap);
        if (!q) die("out of memory");
        t->p = q;
        t->cap = cap;
    }
}

/* The inputs of a recording (record --inputs EVERY): every EVERY steps one call of the next
 * kind in turn on a body picked by a fixed pseudo-random sequence, so that a recording
 * exercises every kind of input (and a pile is thrown up again now and then). */
typedef struct {
    uint32_t rnd;
    qp_body_id made;              /* the last body this driver created */
    int turn;
    qp_joint_id joint;            /* the last joint this driver created */
} driver;

static uint32_t next_rnd(driver *d)
{
    d->rnd ^= d->rnd << 13;
    d->rnd ^= d->rnd >> 17;
    d->rnd ^= d->rnd << 5;
    return d->rnd;
}

/* A number in [-range, range] m (or m/s), Q16.16. */
static fix16_t rnd_fix(driver *d, int range) { return (fix16_t)(next_rnd(d) % (uint32_t)(2 * range * 65536 + 1)) - range * 65536; }

/* Random vectors, one draw per statement (argument order is unspecified in C), z first:
 * the order gcc used when the test recordings were made. */
static qp_vec3 rnd_xz(driver *d, int range, fix16_t y)
{
    fix16_t z = rnd_fix(d, range);
    fix16_t x = rnd_fix(d, range);
    return qp_v3(x, y, z);
}

static qp_vec3 rnd_xyz(driver *d, int range)
{
    fix16_t z = rnd_fix(d, range);
    fix16_t y = rnd_fix(d, range);
    fix16_t x = rnd_fix(d, range);
    return qp_v3(x, y, z);
}

static qp_body_id pick_dynamic(driver *d)
{
    int n = qp_world_body_capacity(world), start = (int)(next_rnd(d) % (uint32_t)n);
    for (int k = 0; k < n; k++) {
        qp_body_id id = qp_world_body_at(world, 1 + (start + k) % n);
        if (!qp_body_id_is_null(id) && qp_body_get_type(world, id) == QP_BODY_DYNAMIC) return id;
    }
    return qp_null_body();
}

/* One call; whatever it returns, the log holds it only if it succeeded. */
static void drive(driver *d)
{
    qp_body_id id = pick_dynamic(d);
    qp_vec3 c = qp_body_center(world, id);
    int kind = d->turn++ % 13;
    if (qp_body_id_is_null(id) && kind != 6 && kind != 11) return;
    switch (kind) {
    case 0: (void)qp_body_apply_impulse(world, id, rnd_xz(d, 2, QP_INT(4)),
                                        qp_v3(c.x + QP_FRAC(1, 10), c.y, c.z)); break;
    case 1: (void)qp_body_set_linear_velocity(world, id, rnd_xz(d, 3, QP_INT(5))); break;
    case 2: (void)qp_body_set_angular_velocity(world, id, rnd_xyz(d, 2)); break;
    case 3: (void)qp_body_apply_force(world, id, rnd_xz(d, 50, QP_INT(400))); break;
    case 4: (void)qp_body_apply_torque(world, id, rnd_xyz(d, 5)); break;
    case 5: (void)qp_body_wake(world, id); break;
    case 6: {
        qp_body_def def = qp_default_body_def();
        def.position = rnd_xz(d, 2, QP_INT(6));
        def.shape_count = 1;
        if (qp_make_sphere(QP_FRAC(1, 5), &def.shapes[0]) != QP_OK) return;
        qp_result r;
        qp_body_id made = qp_create_body(world, &def, &r);
        if (r == QP_OK) d->made = made;
        break;
    }
    case 7: (void)qp_destroy_body(world, d->made); break;
    case 8: {
        qp_vec3 p = qp_body_position(world, id);
        (void)qp_body_set_pose(world, id, qp_v3(p.x, p.y + QP_ONE, p.z), qp_body_rotation(world, id));
        break;
    }
    case 9: qp_body_clear_flags(world, id); break;
    case 10: {
        /* A rope (distance joint, slack 0.5 m) from the body to the next dynamic one by
         * slot, between their centres. */
        qp_body_id other = qp_null_body();
        for (int k = 1, n = qp_world_body_capacity(world); k < n && qp_body_id_is_null(other); k++) {
            qp_body_id o = qp_world_body_at(world, 1 + (id.index - 1 + k) % n);
            if (!qp_body_id_is_null(o) && qp_body_get_type(world, o) == QP_BODY_DYNAMIC) other = o;
        }
        if (qp_body_id_is_null(other)) return;
        qp_vec3 oc = qp_body_center(world, other);
        qp_joint_def jd = qp_default_joint_def();
        jd.type = QP_JOINT_DISTANCE;
        jd.a = id;
        jd.b = other;
        jd.anchor_a = c;
        jd.anchor_b = oc;
        jd.max_length = qp_v3_len(qp_v3_sub(oc, c)) + QP_FRAC(1, 2);
        qp_result r;
        qp_joint_id made = qp_create_joint(world, &jd, &r);
        if (r == QP_OK) d->joint = made;
        break;
    }
    case 11: (void)qp_destroy_joint(world, d->joint); break;
    default: {
        /* Shape 0 into category 1, 2 or 4, no longer colliding with category 2 or 4. */
        qp_shape_filter f = qp_default_shape_filter();
        uint32_t r = next_rnd(d);
        f.category = (uint16_t)(1u << (r % 3));
        f.mask = (uint16_t)(0xFFFFu ^ (2u << (r / 3 % 2)));
        (void)qp_body_set_shape_filter(world, id, 0, f);
        break;
    }
    }
}

static void put_pose(text_buf *t, long step, int slot, qp_body_id id)
{
    qp_vec3 x = qp_body_center(world, id), v = qp_body_linear_velocity(world, id),
            w = qp_body_angular_velocity(world, id);
    qp_quat q = qp_body_rotation(world, id);
    out(t, "p %ld %d %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld\n", step, slot, (long)x.x, (long)x.y,
        (long)x.z, (long)q.w, (long)q.x, (long)q.y, (long)q.z, (long)v.x, (long)v.y, (long)v.z, (long)w.x, (long)w.y,
        (long)w.z);
}

static int cmd_record(int argc, char **argv)
{
    const char *path = 0, *dest = 0;
    long steps = DEFAULT_STEPS, every = 0;
    int poses = 0;
    uint32_t seed = 2463534242u;   /* the driver's default sequence (the test recordings') */
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--steps")) steps = parse_steps(option_value("record", argc, argv, &i));
        else if (!strcmp(argv[i], "--seed")) {
            long v = parse_steps(option_value("record", argc, argv, &i));
            if (v == 0) die("record: --seed must not be 0");
            seed = (uint32_t)v;
        }
        else if (!strcmp(argv[i], "--inputs")) every = parse_steps(option_value("record", argc, argv, &i));
        else if (!strcmp(argv[i], "--poses")) poses = 1;
        else if (!strcmp(argv[i], "-o")) dest = option_value("record", argc, argv, &i);
        else if (argv[i][0] == '-' && argv[i][1]) die("record: unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else usage();
    }
    if (!path || !dest) usage();
    blob text = read_file(path);
    /* From a snapshot: the inputs go to NAME.qpin and the snapshot beside it, as NAME.qps. */
    int from_snapshot = is_snapshot(&text);
    size_t dest_len = strlen(dest);
    if (from_snapshot && (dest_len < 6 || strcmp(dest + dest_len - 5, ".qpin") != 0))
        die("record: a recording from a snapshot is written as NAME.qpin (its snapshot goes to NAME.qps)");
    if (!from_snapshot && verify_is_pair(dest))
        die("record: NAME.qpin is a recording from a snapshot: record a scene into NAME.replay");
    if (from_snapshot) load_snapshot(path, &text);
    else load_scene(path, text.data, text.len, 0);
    long first = (long)qp_world_get_stats(world).step;
    if (first > 0x7FFFFFFFL - steps) die("record: the steps would run past step 2147483647");
    static unsigned char log_buf[QP_INPUT_MAX_ENTRY * 8];
    qp_input_log log;
    if (qp_input_log_init(&log, log_buf, sizeof log_buf) != QP_OK) die("input log");
    qp_world_set_input_log(world, &log);

    text_buf t = { 0, 0, 0 };
    char cfg[512];
    verify_engine_config(cfg, sizeof cfg);
    unsigned long lines = 0;
    for (unsigned long i = 0; i < text.len; i++)
        if (text.data[i] == '\n') lines++;
    if (text.len > 0 && text.data[text.len - 1] != '\n') lines++;
    out(&t, "%s\n# recorded by qphys record from %s; format: docs/scene-format.md (Replay files)\n", REPLAY_MAGIC,
        path);
    out(&t, "engine %s\nversion %s\nsteps %ld\n", cfg, verify_version(), steps);
    if (from_snapshot)
        out(&t, "snapshot %lu %08lx %ld\n", text.len,
            (unsigned long)replay_crc32((const unsigned char *)text.data, text.len), first);
    else
        out(&t, "scene %lu\n", lines);
    unsigned long start = 0;
    for (unsigned long i = 0; !from_snapshot && i <= text.len; i++) {
        if (i == text.len || text.data[i] == '\n') {
            if (i == text.len && i == start) break;
            out(&t, "| %.*s\n", (int)(i - start), text.data + start);
            start = i + 1;
        }
    }
    /* Per step: its inputs ("i"), the states of the bodies whose hash changed ("p", with
     * --poses), then "s STEP WORLD_HASH SLOT:HASH ..." for those bodies (all at step 0). */
    int cap = qp_world_body_capacity(world);
    uint32_t *prev = calloc((size_t)cap + 1, sizeof *prev);
    if (!prev) die("out of memory");
    driver d = { seed, { 0, 0 }, 0, { 0, 0 } };
    for (long s = 0; s <= steps; s++) {
        if (s > 0) qp_world_step(world);
        if (every > 0 && s > 0 && s % every == 0) {
            qp_input_log_init(&log, log_buf, sizeof log_buf);
            drive(&d);
            if (log.lost) die("record: the input log is full");
            if (log.len > 0) {
                out(&t, "i %ld ", first + s);
                for (unsigned long k = 0; k < log.len; k++) out(&t, "%02x", log_buf[k]);
                out(&t, "\n");
            }
        }
        if (poses)
            for (int i = 1; i <= cap; i++) {
                qp_body_id id = qp_world_body_at(world, i);
                uint32_t h = qp_body_hash(world, id);
                if ((s == 0 || h != prev[i]) && h != 0) put_pose(&t, first + s, i, id);
            }
        out(&t, "s %ld %08lx", first + s, (unsigned long)qp_world_hash(world));
        for (int i = 1; i <= cap; i++) {
            uint32_t h = qp_body_hash(world, qp_world_body_at(world, i));
            if ((s == 0 && h != 0) || (s > 0 && h != prev[i])) out(&t, " %d:%08lx", i, (unsigned long)h);
            prev[i] = h;
        }
        out(&t, "\n");
    }
    out(&t, "end\n");
    size_t body = t.n;
    out(&t, "check %lu %08lx\n", (unsigned long)body, (unsigned long)replay_crc32((unsigned char *)t.p, body));
    FILE *f = fopen(dest, "wb");
    if (!f || fwrite(t.p, 1, t.n, f) != t.n || fclose(f) != 0) die("%s: cannot write", dest);
    if (from_snapshot) {
        char *snap = malloc(dest_len + 1);
        if (!snap) die("out of memory");
        memcpy(snap, dest, dest_len - 5);
        memcpy(snap + dest_len - 5, ".qps", 5);
        /* The snapshot the inputs start from (unless it is that file already). */
        if (strcmp(snap, path) != 0) {
            FILE *g = fopen(snap, "wb");
            if (!g || fwrite(text.data, 1, text.len, g) != text.len || fclose(g) != 0) die("%s: cannot write", snap);
        }
        free(snap);
    }
    printf("recorded %ld steps of %s into %s (%lu bytes), final hash %08x\n", steps, path, dest,
           (unsigned long)t.n, (unsigned)qp_world_hash(world));
    free(t.p);
    free(prev);
    free(text.data);
    return 0;
}

/* ---- replay ------------------------------------------------------------------------------ */

/* The scene line that defines body number i. */
static int body_line(const char *text, unsigned long len, int i)
{
    static qp_scene_item item;
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    int k = 0;
    while (qp_scene_next(&rd, &item, 0) > 0)
        if ((item.kind == QP_SCENE_BODY || item.kind == QP_SCENE_MESH || item.kind == QP_SCENE_HEIGHTFIELD) &&
            k++ == i)
            return item.line;
    return 0;
}

static const char *input_name(qp_input_kind k)
{
    static const char *const names[] = { "?", "create body", "destroy body", "set pose", "set linear velocity",
                                         "set angular velocity", "apply force", "apply torque", "apply impulse",
                                         "wake", "clear flags", "set shape filter" };
    _Static_assert(sizeof names / sizeof names[0] == QP_INPUT_KIND_END, "a name per body input kind");
    if (k == QP_INPUT_CREATE_JOINT || k == QP_INPUT_CREATE_JOINT_FULL) return "create joint";
    if (k == QP_INPUT_DESTROY_JOINT) return "destroy joint";
    if (k == QP_INPUT_SET_JOINT_MOTOR) return "set joint motor";
    if (k == QP_INPUT_SET_JOINT_SPRING_TARGET) return "set joint spring target";
    return k > 0 && k < QP_INPUT_KIND_END ? names[k] : names[0];
}

static void print_state(const char *label, const int32_t *v)
{
    printf("  %s centre (%.6f, %.6f, %.6f) rotation (%.9f, %.9f, %.9f, %.9f)\n"
           "  %*s velocity (%.6f, %.6f, %.6f) spin (%.6f, %.6f, %.6f)\n",
           label, fx(v[0]), fx(v[1]), fx(v[2]), q30(v[3]), q30(v[4]), q30(v[5]), q30(v[6]), (int)strlen(label), "",
           fx(v[7]), fx(v[8]), fx(v[9]), fx(v[10]), fx(v[11]), fx(v[12]));
}

static void body_state(qp_body_id id, int32_t *v)
{
    qp_vec3 x = qp_body_center(world, id), lv = qp_body_linear_velocity(world, id),
            w = qp_body_angular_velocity(world, id);
    qp_quat q = qp_body_rotation(world, id);
    int32_t all[13] = { x.x, x.y, x.z, q.w, q.x, q.y, q.z, lv.x, lv.y, lv.z, w.x, w.y, w.z };
    memcpy(v, all, sizeof all);
}

static int cmd_replay(int argc, char **argv)
{
    const char *path = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--verify")) continue; /* the default */
        else if (argv[i][0] == '-' && argv[i][1]) die("replay: unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else usage();
    }
    if (!path) usage();
    blob file = read_file(path);
    replay rp;
    replay_error err;
    if (replay_parse(file.data, file.len, &rp, &err) != 0) {
        if (err.line > 0) fprintf(stderr, "%s:%d:1: error: %s\n", path, err.line, err.message);
        else fprintf(stderr, "%s: error: %s\n", path, err.message);
        exit(EXIT_INPUT);
    }
    qp_scene_info scene;
    if (rp.from_snapshot) {
        /* A pair: the world is the snapshot NAME.qps beside NAME.qpin, the one recorded. */
        size_t n = strlen(path);
        if (!verify_is_pair(path)) die("%s: names a snapshot: only a NAME.qpin beside NAME.qps may", path);
        char *snap_path = malloc(n + 1);
        if (!snap_path) die("out of memory");
        memcpy(snap_path, path, n - 5);
        memcpy(snap_path + n - 5, ".qps", 5);
        blob snap = read_file(snap_path);
        if (snap.len != rp.snapshot_bytes ||
            replay_crc32((const unsigned char *)snap.data, snap.len) != rp.snapshot_crc)
            die("%s: not the snapshot %s was recorded from (its size or CRC-32 differs)", snap_path, path);
        scene = load_snapshot(snap_path, &snap);
        scene.bodies = 0;   /* no scene lines to point at */
        if ((long)qp_world_get_stats(world).step != rp.first)
            die("%s: taken at step %lu, %s starts at %ld", snap_path,
                (unsigned long)qp_world_get_stats(world).step, path, rp.first);
        free(snap.data);
        free(snap_path);
    } else {
        scene = load_scene(path, rp.scene, rp.scene_len, rp.scene_line);
    }
    char cfg[512];
    verify_engine_config(cfg, sizeof cfg);
    int cfg_differs = strcmp(rp.engine, cfg) != 0;
    if (cfg_differs)
        fprintf(stderr, "%s: note: recorded with another engine configuration:\n  file:  %s\n  build: %s\n", path,
                rp.engine, cfg);

    /* The recorded body hash and state of every slot, as of the step being compared. */
    enum { SLOTS = 65536 };
    uint32_t *expect = calloc(SLOTS, sizeof *expect);
    long *pose_of = malloc(SLOTS * sizeof *pose_of);
    if (!expect || !pose_of) die("out of memory");
    for (int i = 0; i < SLOTS; i++) pose_of[i] = -1;
    int cap = qp_world_body_capacity(world), status = 0;
    for (long s = 0; s <= rp.steps && !status; s++) {
        if (s > 0) qp_world_step(world);
        unsigned long at = 0, n = rp.input_at[s + 1] - rp.input_at[s];
        qp_input_info info;
        const unsigned char *in = rp.inputs ? rp.inputs + rp.input_at[s] : NULL; /* none recorded: null */
        qp_result r = qp_input_replay_step(world, in, n, &at, &info);
        if (r == QP_ERR_BUFFER || (r == QP_OK && at != n)) {
            fprintf(stderr, "%s: error: an input of step %ld is not a well-formed entry (qphys/record.h)\n", path,
                    rp.first + s);
            status = EXIT_INPUT;
            break;
        }
        if (r != QP_OK) {
            int joint = info.kind >= QP_INPUT_CREATE_JOINT;
            printf("replay %s: DIVERGED at step %ld: the recorded input '%s' on %s %d:%d ", path, rp.first + s,
                   input_name(info.kind), joint ? "joint" : "body", joint ? info.joint.index : info.body.index,
                   joint ? info.joint.generation : info.body.generation);
            if (info.result != QP_OK) printf("failed now: %s\n", qp_result_str(info.result));
            else if (joint) printf("created joint %d:%d now\n", info.joint_got.index, info.joint_got.generation);
            else printf("created body %d:%d now\n", info.got.index, info.got.generation);
            status = EXIT_VERIFY;
            break;
        }
        for (long k = rp.body_at[s]; k < rp.body_at[s + 1]; k++) expect[rp.bodies[k].slot] = rp.bodies[k].hash;
        for (long k = rp.pose_at[s]; k < rp.pose_at[s + 1]; k++) pose_of[rp.poses[k].slot] = k;
        uint32_t h = qp_world_hash(world);
        int first = 0;
        for (int i = 1; i < SLOTS && !first; i++) {
            uint32_t bh = i <= cap ? qp_body_hash(world, qp_world_body_at(world, i)) : 0;
            if (bh != expect[i]) first = i;
        }
        if (h == rp.world[s] && !first) continue;
        printf("replay %s: DIVERGED at step %ld: world hash %08lx, recorded %08lx\n", path, rp.first + s,
               (unsigned long)h, (unsigned long)rp.world[s]);
        if (first) {
            qp_body_id id = qp_world_body_at(world, first);
            printf("first diverging body: slot %d", first);
            if (first <= scene.bodies)
                printf(" (scene body %d, defined at %s:%d)", first - 1, path,
                       rp.scene_line + body_line(rp.scene, rp.scene_len, first - 1));
            printf(": body hash %08lx, recorded %08lx\n", (unsigned long)qp_body_hash(world, id),
                   (unsigned long)expect[first]);
            int32_t now[13];
            if (pose_of[first] >= 0) print_state("recorded:", rp.poses[pose_of[first]].v);
            if (!qp_body_id_is_null(id)) {
                body_state(id, now);
                print_state("computed:", now);
            } else {
                printf("  computed: no body in that slot\n");
            }
        } else {
            printf("no body hash differs: the contacts, a free slot's generation or the world definition do\n");
        }
        if (cfg_differs) printf("note: the engine configuration differs from the recording's (see stderr)\n");
        status = EXIT_VERIFY;
    }
    if (!status)
        printf("replay %s: matched: %ld steps, %lu inputs bytes, final hash %08x\n", path, rp.steps,
               rp.input_at[rp.steps + 1], (unsigned)qp_world_hash(world));
    free(expect);
    free(pose_of);
    replay_free(&rp);
    free(file.data);
    return status;
}

int qphys_render(int argc, char **argv); /* tools/viewer/render.c; cross builds: tools/render_stub.c */
int qphys_verify(int argc, char **argv, qp_world *w); /* tools/verify_cmd.c */

int main(int argc, char **argv)
{
    qp_port_init();
    /* --max-bodies N, anywhere: the most bodies a file may hold (sized_world.h). */
    int n = 0;
    for (int i = 0; i < argc; i++) {
        int got = sized_world_option(argc, argv, &i);
        if (got < 0) die("--max-bodies: expected 1 .. 65532");
        if (got == 0) argv[n++] = argv[i];
    }
    argc = n;
    if (argc < 2) usage();
    if (!strcmp(argv[1], "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(argv[1], "record")) return cmd_record(argc - 2, argv + 2);
    if (!strcmp(argv[1], "replay")) return cmd_replay(argc - 2, argv + 2);
    if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
    if (!strcmp(argv[1], "verify")) return qphys_verify(argc - 2, argv + 2, NULL);
    if (!strcmp(argv[1], "render")) return qphys_render(argc - 2, argv + 2);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("qphys %s\n", QP_VERSION_STRING);
        return 0;
    }
    fprintf(stderr, "qphys: unknown command '%s'\n", argv[1]);
    usage();
    return EXIT_INPUT;
}
