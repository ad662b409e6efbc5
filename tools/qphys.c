/* qphys - run, record and replay scene files on the host.
 *
 *   qphys run SCENE|SNAPSHOT [--steps N] [--hashes] [--json] [--save SNAPSHOT]
 *   qphys record SCENE [--steps N] -o FILE
 *   qphys replay FILE [--verify]
 *   qphys check SCENE
 *
 * run: loads SCENE (docs/scene-format.md) and steps it N times (default 600).
 *   Without options a short summary; --hashes prints only "step hash" lines
 *   (steps from 1, hash = qp_world_hash as 8 hex digits); --json prints one
 *   JSON object (with --hashes it carries a "hashes" array). --save writes the
 *   world's snapshot after the last step; given a snapshot instead of a scene, run
 *   resumes from it and numbers its steps on from the snapshot's.
 * record: runs SCENE and writes a replay file: the scene text, the engine's
 *   pinned configuration, per-step inputs (none yet) and per-step hashes, of
 *   the world and of every body that changed (docs/scene-format.md, "Replay files").
 * replay: runs a replay file again and compares every step (--verify is the
 *   default): reports the first step whose hash differs and the first body
 *   (in file order) whose state differs, or that every step matched.
 * check: parses and validates SCENE only.
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

#include "qp_port.h"
#include "qphys/hash.h"
#include "qphys/scene.h"
#include "qphys/world.h"

#define EXIT_VERIFY 1
#define EXIT_INPUT 2
#define DEFAULT_STEPS 600
#define MAX_STEPS 10000000L
#define MAX_FILE (256L * 1024 * 1024)

static qp_world world;          /* all of the engine's state */
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
    "usage: qphys run SCENE|SNAPSHOT [--steps N] [--hashes] [--json] [--save SNAPSHOT]\n"
    "       qphys record SCENE [--steps N] -o FILE\n"
    "       qphys replay FILE [--verify]\n"
    "       qphys check SCENE\n"
    "       qphys render SCENE|SNAPSHOT [--steps N | --from A --to B --every K] -o FILE.png|FILE.gif\n"
    "       qphys --help\n"
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
    qp_result r = qp_scene_load(&world, text, len, &info, &err);
    if (r != QP_OK) {
        if (err.line > 0)
            fprintf(stderr, "%s:%d:%d: error: %s\n", path, err.line + line_offset, err.column, err.message);
        else
            fprintf(stderr, "%s: error: %s (%s)\n", path, err.message, qp_result_str(r));
        exit(EXIT_INPUT);
    }
    return info;
}

/* A snapshot file (qp_world_snapshot's bytes) starts with "QPS3". */
static int is_snapshot(const blob *b) { return b->len >= 4 && !memcmp(b->data, "QPS3", 4); }

/* Restore a snapshot into the world, or exit 2 naming the file; the scene info that a
 * run reports, from the restored world. */
static qp_scene_info load_snapshot(const char *path, const blob *b)
{
    qp_result r = qp_world_restore(&world, b->data, b->len);
    if (r != QP_OK) {
        fprintf(stderr, "%s: error: not a valid snapshot for this build: %s\n", path,
                r == QP_ERR_FULL ? "its world is larger than this build's pools (QP_CFG_MAX_*)"
                                 : "damaged, truncated or inconsistent");
        exit(EXIT_INPUT);
    }
    qp_scene_info info;
    memset(&info, 0, sizeof info);
    info.world = *qp_world_get_def(&world);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        info.bodies = i;   /* scene numbering: body n is slot n + 1 */
        if (qp_body_get_type(&world, id) == QP_BODY_DYNAMIC) info.dynamic_bodies++;
    }
    return info;
}

/* Write the world's snapshot to path, or exit 2. */
static void save_snapshot(const char *path)
{
    unsigned long n = qp_world_snapshot(&world, NULL, 0);
    unsigned char *buf = malloc(n);
    if (!buf) die("out of memory");
    if (qp_world_snapshot(&world, buf, n) != n) die("%s: snapshot failed", path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) die("%s: cannot write", path);
    free(buf);
}

/* ---- state ------------------------------------------------------------------------- */

/* Hash of one body's state, from the public reads (the replay file's per-body hashes). */
static uint32_t body_hash(qp_body_id id)
{
    uint32_t h = QP_HASH_INIT;
    qp_vec3 x = qp_body_center(&world, id), v = qp_body_linear_velocity(&world, id),
            w = qp_body_angular_velocity(&world, id);
    qp_quat q = qp_body_rotation(&world, id);
    int32_t words[16] = { id.index, id.generation, qp_body_is_awake(&world, id), (int32_t)qp_body_flags(&world, id),
                          x.x, x.y, x.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y };
    h = qp_hash_words(h, words, 16);
    return qp_hash_u32(h, (uint32_t)w.z);
}

static double fx(fix16_t v) { return (double)v / 65536.0; }
static double q30(qp_q30 v) { return (double)v / 1073741824.0; }

/* The engine's result-changing configuration, as written into replay files. */
static void engine_config(char *buf, size_t size)
{
    snprintf(buf, size,
             "libfixmath FIXMATH_NO_CACHE=%d FIXMATH_NO_ROUNDING=%d FIXMATH_NO_OVERFLOW=%d FIXMATH_NO_64BIT=%d "
             "FIXMATH_OPTIMIZE_8BIT=%d FIXMATH_FAST_SIN=%d QP_CFG_MAX_BODIES=%d QP_CFG_MAX_SHAPES=%d "
             "QP_CFG_MAX_PAIRS=%d QP_CFG_MAX_CONTACTS=%d",
#ifdef FIXMATH_NO_CACHE
             1,
#else
             0,
#endif
#ifdef FIXMATH_NO_ROUNDING
             1,
#else
             0,
#endif
#ifdef FIXMATH_NO_OVERFLOW
             1,
#else
             0,
#endif
#ifdef FIXMATH_NO_64BIT
             1,
#else
             0,
#endif
#ifdef FIXMATH_OPTIMIZE_8BIT
             1,
#else
             0,
#endif
#ifdef FIXMATH_FAST_SIN
             1,
#else
             0,
#endif
             QP_CFG_MAX_BODIES, QP_CFG_MAX_SHAPES, QP_CFG_MAX_PAIRS, QP_CFG_MAX_CONTACTS);
}

/* ---- run ----------------------------------------------------------------------------- */

static int cmd_run(int argc, char **argv)
{
    const char *path = 0, *save = 0;
    long steps = DEFAULT_STEPS;
    int hashes = 0, json = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--steps")) steps = parse_steps(option_value("run", argc, argv, &i));
        else if (!strcmp(argv[i], "--save")) save = option_value("run", argc, argv, &i);
        else if (!strcmp(argv[i], "--hashes")) hashes = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-' && argv[i][1]) die("run: unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else usage();
    }
    if (!path) usage();
    blob text = read_file(path);
    qp_scene_info info = is_snapshot(&text) ? load_snapshot(path, &text) : load_scene(path, text.data, text.len, 0);
    /* A resumed run numbers its steps on from the snapshot's, so its "step hash" lines
     * can be compared with the uninterrupted run's. */
    long first = (long)qp_world_get_stats(&world).step;

    uint32_t *seq = 0;
    if (hashes && json) {
        seq = malloc(sizeof *seq * (size_t)(steps > 0 ? steps : 1));
        if (!seq) die("out of memory");
    }
    uint64_t ticks = 0;
    for (long s = 1; s <= steps; s++) {
        uint64_t t0 = qp_port_ticks64();
        qp_world_step(&world);
        ticks += qp_port_ticks64() - t0;
        if (hashes) {
            uint32_t h = qp_world_hash(&world);
            if (json) seq[s - 1] = h;
            else printf("%ld %08x\n", first + s, (unsigned)h);
        }
    }
    double us = steps > 0 ? (double)ticks * 1e6 / (double)qp_port_tick_hz() / (double)steps : 0.0;
    qp_world_stats st = qp_world_get_stats(&world);
    uint32_t final_hash = qp_world_hash(&world);
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
            qp_body_id id = qp_scene_body(&world, i);
            qp_vec3 p = qp_body_position(&world, id), v = qp_body_linear_velocity(&world, id),
                    w = qp_body_angular_velocity(&world, id);
            qp_quat q = qp_body_rotation(&world, id);
            int dyn = qp_body_get_type(&world, id) == QP_BODY_DYNAMIC;
            printf("%s\n  {\"pos\": [%.17g, %.17g, %.17g], \"quat\": [%.17g, %.17g, %.17g, %.17g], "
                   "\"vel\": [%.17g, %.17g, %.17g], \"spin\": [%.17g, %.17g, %.17g], \"asleep\": %s, \"static\": %s}",
                   i ? "," : "", fx(p.x), fx(p.y), fx(p.z), q30(q.w), q30(q.x), q30(q.y), q30(q.z), fx(v.x), fx(v.y),
                   fx(v.z), fx(w.x), fx(w.y), fx(w.z), dyn && !qp_body_is_awake(&world, id) ? "true" : "false",
                   dyn ? "false" : "true");
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

#define REPLAY_MAGIC "qphys-replay 1"

static int cmd_record(int argc, char **argv)
{
    const char *path = 0, *out = 0;
    long steps = DEFAULT_STEPS;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--steps")) steps = parse_steps(option_value("record", argc, argv, &i));
        else if (!strcmp(argv[i], "-o")) out = option_value("record", argc, argv, &i);
        else if (argv[i][0] == '-' && argv[i][1]) die("record: unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else usage();
    }
    if (!path || !out) usage();
    blob text = read_file(path);
    qp_scene_info info = load_scene(path, text.data, text.len, 0);
    FILE *f = fopen(out, "w");
    if (!f) die("%s: cannot write: %s", out, strerror(errno));

    char cfg[512];
    engine_config(cfg, sizeof cfg);
    /* The scene, one "| " line per scene line. */
    unsigned long lines = 0;
    for (unsigned long i = 0; i < text.len; i++)
        if (text.data[i] == '\n') lines++;
    if (text.len > 0 && text.data[text.len - 1] != '\n') lines++;
    fprintf(f, "%s\n# recorded by qphys record from %s; format: docs/scene-format.md (Replay files)\n", REPLAY_MAGIC,
            path);
    fprintf(f, "engine %s\nsteps %ld\nbodies %d\nscene %lu\n", cfg, steps, info.bodies, lines);
    unsigned long start = 0;
    for (unsigned long i = 0; i <= text.len; i++) {
        if (i == text.len || text.data[i] == '\n') {
            if (i == text.len && i == start) break;
            fputs("| ", f);
            fwrite(text.data + start, 1, i - start, f);
            fputc('\n', f);
            start = i + 1;
        }
    }
    /* s STEP WORLD_HASH then BODY:HASH for each body (file order) whose hash changed. */
    uint32_t *prev = calloc((size_t)info.bodies + 1, sizeof *prev);
    if (!prev) die("out of memory");
    for (long s = 0; s <= steps; s++) {
        if (s > 0) qp_world_step(&world);
        fprintf(f, "s %ld %08x", s, (unsigned)qp_world_hash(&world));
        for (int b = 0; b < info.bodies; b++) {
            uint32_t h = body_hash(qp_scene_body(&world, b));
            if (s == 0 || h != prev[b]) fprintf(f, " %d:%08x", b, (unsigned)h);
            prev[b] = h;
        }
        fputc('\n', f);
    }
    fprintf(f, "end\n");
    if (fclose(f) != 0) die("%s: write error", out);
    printf("recorded %ld steps of %s (%d bodies) into %s, final hash %08x\n", steps, path, info.bodies, out,
           (unsigned)qp_world_hash(&world));
    free(prev);
    free(text.data);
    return 0;
}

/* ---- replay ------------------------------------------------------------------------------ */

typedef struct {
    const char *path;
    char *p, *end;
    int line;
} line_reader;

/* The next line (NUL-terminated in place, without its newline), or NULL at the end. */
static char *next_line(line_reader *r)
{
    if (r->p >= r->end) return 0;
    char *s = r->p, *nl = memchr(s, '\n', (size_t)(r->end - s));
    if (nl) {
        *nl = 0;
        r->p = nl + 1;
    } else {
        *r->end = 0; /* the blob has a spare byte */
        r->p = r->end;
    }
    r->line++;
    return s;
}

static void bad_replay(const line_reader *r, const char *what)
{
    fprintf(stderr, "%s:%d:1: error: %s\n", r->path, r->line, what);
    exit(EXIT_INPUT);
}

/* Read an unsigned decimal or hex number token at *s; false if none. */
static int read_ul(char **s, unsigned long *v, int base)
{
    char *end;
    while (**s == ' ') (*s)++;
    if (!(**s >= '0' && **s <= '9') && !(base == 16 && ((**s >= 'a' && **s <= 'f') || (**s >= 'A' && **s <= 'F'))))
        return 0;
    errno = 0;
    *v = strtoul(*s, &end, base);
    if (errno || end == *s) return 0;
    *s = end;
    return 1;
}

/* Apply one "i STEP BODY force|torque X Y Z" input line (numbers as raw Q16.16 integers). */
static void apply_input(line_reader *r, char *s, int bodies, long next_step)
{
    char kind[16];
    long step, body, x, y, z;
    int n = 0;
    if (sscanf(s, "i %ld %ld %15s %ld %ld %ld%n", &step, &body, kind, &x, &y, &z, &n) != 6 || s[n] != 0)
        bad_replay(r, "expected 'i STEP BODY force|torque X Y Z' (raw Q16.16 integers)");
    if (step != next_step) bad_replay(r, "an input belongs just before the 's' line of its step");
    if (body < 0 || body >= bodies) bad_replay(r, "input names a body that does not exist");
    qp_vec3 v = qp_v3((fix16_t)x, (fix16_t)y, (fix16_t)z);
    qp_body_id id = qp_scene_body(&world, (int)body);
    qp_result res;
    if (!strcmp(kind, "force")) res = qp_body_apply_force(&world, id, v);
    else if (!strcmp(kind, "torque")) res = qp_body_apply_torque(&world, id, v);
    else {
        bad_replay(r, "unknown input kind: expected force or torque");
        return;
    }
    if (res != QP_OK) bad_replay(r, "input rejected by the engine (static body?)");
}

/* The scene line that defines body number i. */
static int body_line(const char *text, unsigned long len, int i)
{
    static qp_scene_item item;
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    int k = 0;
    while (qp_scene_next(&rd, &item, 0) > 0)
        if (item.kind == QP_SCENE_BODY && k++ == i) return item.line;
    return 0;
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
    char *grown = realloc(file.data, file.len + 1); /* room for a final NUL */
    if (!grown) die("out of memory");
    file.data = grown;
    line_reader r = { path, file.data, file.data + file.len, 0 };

    char *s = next_line(&r);
    if (!s || strcmp(s, REPLAY_MAGIC) != 0) bad_replay(&r, "not a qphys replay file (expected '" REPLAY_MAGIC "')");
    char cfg_file[1024] = "", cfg_here[512];
    long steps = -1, bodies = -1, scene_lines = -1;
    while ((s = next_line(&r)) != 0) {
        if (s[0] == '#' || s[0] == 0) continue;
        if (!strncmp(s, "engine ", 7)) snprintf(cfg_file, sizeof cfg_file, "%s", s + 7);
        else if (sscanf(s, "steps %ld", &steps) == 1) {}
        else if (sscanf(s, "bodies %ld", &bodies) == 1) {}
        else if (sscanf(s, "scene %ld", &scene_lines) == 1) break;
        else bad_replay(&r, "expected 'engine', 'steps', 'bodies' or 'scene' in the header");
    }
    if (steps < 0 || bodies < 0 || scene_lines < 0) bad_replay(&r, "incomplete header (steps, bodies, scene)");
    /* Rebuild the scene text from its "| " lines. */
    int scene_first = r.line; /* file line of scene line 0 */
    size_t cap = (size_t)(r.end - r.p) + 1, n = 0;
    char *scene = malloc(cap);
    if (!scene) die("out of memory");
    for (long k = 0; k < scene_lines; k++) {
        s = next_line(&r);
        if (!s || s[0] != '|' || (s[1] != ' ' && s[1] != 0)) bad_replay(&r, "expected a scene line starting with '| '");
        if (s[1]) {
            size_t len = strlen(s + 2);
            memcpy(scene + n, s + 2, len);
            n += len;
        }
        scene[n++] = '\n';
    }
    qp_scene_info info = load_scene(path, scene, (unsigned long)n, scene_first);
    if (info.bodies != bodies) bad_replay(&r, "the header's body count differs from the scene's");
    engine_config(cfg_here, sizeof cfg_here);
    int cfg_differs = strcmp(cfg_file, cfg_here) != 0;
    if (cfg_differs)
        fprintf(stderr, "%s: note: recorded with another engine configuration:\n  file:  %s\n  build: %s\n", path,
                cfg_file, cfg_here);

    uint32_t *expect = calloc((size_t)bodies + 1, sizeof *expect);
    if (!expect) die("out of memory");
    long step = -1;
    int ended = 0;
    while ((s = next_line(&r)) != 0) {
        if (s[0] == '#' || s[0] == 0) continue;
        if (!strcmp(s, "end")) {
            ended = 1;
            break;
        }
        if (s[0] == 'i' && s[1] == ' ') {
            apply_input(&r, s, (int)bodies, step + 1);
            continue;
        }
        if (s[0] != 's' || s[1] != ' ') bad_replay(&r, "expected 's STEP HASH [BODY:HASH ...]', 'i ...' or 'end'");
        char *p = s + 2;
        unsigned long st = 0, wh = 0;
        if (!read_ul(&p, &st, 10) || (long)st != step + 1 || !read_ul(&p, &wh, 16))
            bad_replay(&r, "expected 's STEP HASH' with steps counting up from 0");
        step = (long)st;
        for (;;) {
            unsigned long b = 0, bh = 0;
            while (*p == ' ') p++;
            if (!*p) break;
            if (!read_ul(&p, &b, 10) || *p++ != ':' || !read_ul(&p, &bh, 16) || (long)b >= bodies)
                bad_replay(&r, "expected BODY:HASH pairs after the step hash");
            expect[b] = (uint32_t)bh;
        }
        if (step > 0) qp_world_step(&world);
        uint32_t h = qp_world_hash(&world);
        int first_body = -1;
        for (int b = 0; b < bodies && first_body < 0; b++)
            if (body_hash(qp_scene_body(&world, b)) != expect[b]) first_body = b;
        if (h != (uint32_t)wh || first_body >= 0) {
            printf("replay %s: DIVERGED at step %ld: world hash %08x, recorded %08x\n", path, step, (unsigned)h,
                   (unsigned)wh);
            if (first_body >= 0) {
                qp_body_id id = qp_scene_body(&world, first_body);
                qp_vec3 x = qp_body_position(&world, id);
                printf("first differing body: %d (file order; defined at %s:%d), now at (%.6f, %.6f, %.6f)\n",
                       first_body, path, scene_first + body_line(scene, (unsigned long)n, first_body), fx(x.x),
                       fx(x.y), fx(x.z));
            } else {
                printf("no body differs: the contact state (warm-start impulses) differs\n");
            }
            if (cfg_differs) printf("note: the engine configuration differs from the recording's (see stderr)\n");
            free(expect);
            free(scene);
            free(file.data);
            return EXIT_VERIFY;
        }
    }
    if (!ended) bad_replay(&r, "truncated replay file: no 'end' line");
    if (step != steps) bad_replay(&r, "the replay file's step count differs from its header");
    printf("replay %s: matched: %ld steps, %ld bodies, final hash %08x\n", path, steps, bodies,
           (unsigned)qp_world_hash(&world));
    free(expect);
    free(scene);
    free(file.data);
    return 0;
}

int qphys_render(int argc, char **argv); /* tools/viewer/render.c; cross builds: tools/render_stub.c */

int main(int argc, char **argv)
{
    qp_port_init();
    if (argc < 2) usage();
    if (!strcmp(argv[1], "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(argv[1], "record")) return cmd_record(argc - 2, argv + 2);
    if (!strcmp(argv[1], "replay")) return cmd_replay(argc - 2, argv + 2);
    if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
    if (!strcmp(argv[1], "render")) return qphys_render(argc - 2, argv + 2);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    fprintf(stderr, "qphys: unknown command '%s'\n", argv[1]);
    usage();
    return EXIT_INPUT;
}
