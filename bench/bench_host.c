/* SPDX-License-Identifier: MIT */
/* bench/bench_host.c - qphys on the host: time per step, stage shares, stands, sleep.
 *
 *   bench_host [--steps N] [--repeat R] [--scene NAME]... [--no-stages] [--no-energy]
 *              [--scenes-dir DIR]
 *
 * For each named scene (bench/scenes.c), three variants one after the other:
 * sleep off (the solver's whole cost every step), sleep on with the default
 * policy (QP_SLEEP_THREE_POINT, "sleep=on"), and sleep on with QP_SLEEP_ENERGY
 * ("sleep=energy"; left out with --no-energy):
 *   - N steps (600, docs/design.md §9) through qp_world_step, run R times (default 2)
 *     from scratch; the engine is deterministic, so every run does the same
 *     work, and each step keeps its fastest time (CLOCK_MONOTONIC), which
 *     removes most of what other processes on a shared machine add. Reported:
 *     median and mean microseconds per step, mean pairs, contacts (manifolds)
 *     and contact points per step, the stand verdict (bench/scenes.h);
 *   - sleep on, either policy (last run): bodies asleep after steps 60, 120,
 *     180, 300 and 600 ("asleep_at=60:n,120:n,..."), the first step at which
 *     every body sleeps (the run goes on up to 4 N steps to find it and to pass
 *     the last of those steps), then SLEEP_STEPS fully asleep steps: their
 *     median, also as a fraction of the median sleep-off (awake) step;
 *   - the same N steps running the stage table of qp_world_step
 *     (qp__step_stages, src/stages.h) one stage at a time with a clock
 *     read between them, R times, fastest per step and stage: the share of each
 *     stage and the time of collision detection (broad + narrow phase). Steps
 *     still over 1.5 times the median of their 15 neighbours are left out. The
 *     world hash after these runs must equal the first runs' ("staged=ok").
 * The scene built through the API is also compared with the scene file of the
 * same name in tests/scenes/ (qp_scene_load; "file=ok", "file=-" when absent).
 *
 * One line per result, key=value, for bench/run.sh to tabulate:
 *   qphys scene=.. sleep=off|on|energy policy=.. steps=.. repeat=.. us_median=.. ...
 *   qphys-stages scene=.. sleep=.. steps_kept=.. total_us=.. names=a,b,.. stage_<name>=<percent> ...
 *   qphys-rays scene=rain512 step=.. rays=.. hits=.. brute_us=.. pruned_us=.. speedup=.. same=yes|NO
 *   qphys-snapshot scene=pyramid20 step=.. bytes=.. step_us=.. snapshot_us=.. restore_us=.. ratio=..
 * (the last: microseconds per ray cast on rain512, every shape against the broad phase's pruning).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qphys/scene.h"
#include "bench_clock.h"
#include "scenes.h"
#include "body.h"
#include "stages.h"

#define SLEEP_STEPS 300
#define MAX_STEPS   20000

static qp_world world;

static double sort_tmp[MAX_STEPS];

static double median(const double *v, int n)
{
    return bench_median(v, n, sort_tmp);
}

static double mean(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i];
    return n > 0 ? s / n : 0.0;
}

static double fx(fix16_t v) { return (double)v / 65536.0; }

/* ---- the step, stage by stage ------------------------------------------------ */

/* The stage table of qp_world_step (src/world.c), so this is the real step whatever
 * its stages are; names with spaces get underscores (key=value output). */
#define MAX_STAGES 32
static int n_stages;
static char stage_names[MAX_STAGES][32];
static int st_broad = -1, st_narrow = -1;

static void init_stages(void)
{
    n_stages = qp__step_stage_count < MAX_STAGES ? qp__step_stage_count : MAX_STAGES;
    for (int i = 0; i < n_stages; i++) {
        snprintf(stage_names[i], sizeof stage_names[i], "%s", qp__step_stages[i].name);
        for (char *c = stage_names[i]; *c; c++)
            if (*c == ' ' || *c == '=' || *c == ',') *c = '_';
        if (qp__step_stages[i].run == qp__broad_phase) st_broad = i;
        if (qp__step_stages[i].run == qp__narrow_phase) st_narrow = i;
    }
}

/* qp_world_step (src/world.c) with a clock read after every stage: stage times in out. */
static void staged_step(qp_world *w, double *out)
{
    /* A world in which nothing moves takes qp_world_step's short way (world.c): it
     * only counts. Timed as a whole, in the first stage's column. */
    bool moves = false;
    for (int i = 1; i <= w->body_high; i++) moves |= qp__body_moves(&w->bodies[i]) || qp__body_drives(&w->bodies[i]);
    if (!moves) {
        double t0 = bench_now_us();
        qp_world_step(w);
        for (int i = 0; i < n_stages; i++) out[i] = 0.0;
        out[0] = bench_now_us() - t0;
        return;
    }
    w->stats.step++;
    double t = bench_now_us();
    for (int i = 0; i < n_stages; i++) {
        qp__step_stages[i].run(w);
        double t1 = bench_now_us();
        out[i] = t1 - t;
        t = t1;
    }
}

/* ---- one scene ---------------------------------------------------------------- */

static double step_us[MAX_STEPS];
static double stage_us[MAX_STEPS][MAX_STAGES];

/* Sum the stage times of the steps that were not disturbed: on a shared machine a
 * step is sometimes preempted, so steps whose total is over 1.5 times the median of
 * the 15 steps around them are left out (the step's cost changes slowly, as bodies
 * land or fall asleep, so a local median is the reference). Returns the steps kept. */
static int sum_stages(int steps, double acc[MAX_STAGES])
{
    static double win[15];
    int kept = 0;
    for (int i = 0; i < steps; i++) {
        int lo = i - 7, hi = i + 7;
        if (lo < 0) { hi -= lo; lo = 0; }
        if (hi > steps - 1) { lo -= hi - (steps - 1); hi = steps - 1; }
        if (lo < 0) lo = 0;
        int n = 0;
        for (int j = lo; j <= hi; j++) win[n++] = step_us[j];
        if (step_us[i] > 1.5 * median(win, n)) continue;
        for (int k = 0; k < n_stages; k++) acc[k] += stage_us[i][k];
        kept++;
    }
    return kept;
}
static double awake_median[QPB_SCENE_COUNT]; /* sleep-off median per scene, for the asleep fraction */
static const char *scenes_dir = "tests/scenes";

static char file_buf[1 << 20];

/* Does tests/scenes/<name>.scene load into the same world (hash) as the API build? */
static const char *compare_with_file(qpb_scene s)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.scene", scenes_dir, qpb_scene_name(s));
    FILE *f = fopen(path, "rb");
    if (!f) return "-";
    size_t n = fread(file_buf, 1, sizeof file_buf, f);
    fclose(f);
    if (qpb_scene_build(&world, s, true) != QP_OK) return "build-failed";
    uint32_t h_api = qp_world_hash(&world);
    qp_scene_error err;
    if (qp_scene_load(&world, file_buf, (unsigned long)n, 0, &err) != QP_OK) return "load-failed";
    return qp_world_hash(&world) == h_api ? "ok" : "DIFFERS";
}

static double step_min[MAX_STEPS];
static double asleep_min[SLEEP_STEPS];
static int repeats = 2;

/* Steps after which the bodies asleep are reported (sleep on): "bodies asleep over time". */
static const int checkpoints[] = { 60, 120, 180, 300, 600 };
#define N_CHECKPOINTS ((int)(sizeof checkpoints / sizeof checkpoints[0]))

/* The three variants of each scene. */
typedef enum { V_OFF, V_THREE_POINT, V_ENERGY } variant;
static const char *variant_key(variant v) { return v == V_OFF ? "off" : v == V_THREE_POINT ? "on" : "energy"; }

static qp_result build(qpb_scene s, variant var)
{
    qp_world_def d = var == V_OFF ? qpb_world_def(false)
                                  : qpb_world_def_policy(var == V_ENERGY ? QP_SLEEP_ENERGY : QP_SLEEP_THREE_POINT);
    return qpb_scene_build_def(&world, s, &d);
}

/* Record the bodies asleep if the step just taken is a checkpoint. */
static void note_checkpoint(const qp_world_stats *st, int asleep_at[N_CHECKPOINTS])
{
    for (int c = 0; c < N_CHECKPOINTS; c++)
        if ((int)st->step == checkpoints[c]) asleep_at[c] = st->asleep;
}

static void run_scene(qpb_scene s, variant var, int steps, bool stages)
{
    const char *name = qpb_scene_name(s);
    const char *key = variant_key(var);
    const bool sleep = var != V_OFF;
    if (build(s, var) != QP_OK) {
        printf("qphys scene=%s sleep=%s error=build-failed\n", name, key);
        return;
    }

    /* The run through qp_world_step, `repeats` times (the same steps every time:
     * the engine is deterministic); each step's time is its fastest repetition. */
    double pairs = 0, contacts = 0, points = 0;
    uint32_t hash = 0;
    qpb_verdict v = qpb_scene_check(&world, s);
    qp_world_stats st = qp_world_get_stats(&world);
    int awake_end = 0, woke = 0;
    int asleep_at[N_CHECKPOINTS];
    for (int c = 0; c < N_CHECKPOINTS; c++) asleep_at[c] = -1;
    const int limit = 4 * steps;
    for (int rep = 0; rep < repeats; rep++) {
        if (build(s, var) != QP_OK) return;
        for (int i = 0; i < steps; i++) {
            double t0 = bench_now_us();
            qp_world_step(&world);
            bench_keep_min(&step_min[i], bench_now_us() - t0, rep);
            if (rep == 0) {
                st = qp_world_get_stats(&world);
                pairs += st.pairs;
                contacts += st.contacts;
                points += st.points;
                note_checkpoint(&st, asleep_at);
            }
        }
        hash = qp_world_hash(&world);
        v = qpb_scene_check(&world, s);
        st = qp_world_get_stats(&world);
        awake_end = st.awake;
        /* Sleep on, last repetition: go on until everything sleeps and the last
         * checkpoint is passed (at most 4 N steps), then time SLEEP_STEPS asleep
         * steps (their median). */
        if (sleep && rep == repeats - 1) {
            const int last = checkpoints[N_CHECKPOINTS - 1];
            while ((st.first_all_asleep_step < 0 || (int)st.step < last) && (int)st.step < limit) {
                qp_world_step(&world);
                st = qp_world_get_stats(&world);
                note_checkpoint(&st, asleep_at);
            }
            if (st.first_all_asleep_step >= 0) {
                for (int i = 0; i < SLEEP_STEPS; i++) {
                    double t0 = bench_now_us();
                    qp_world_step(&world);
                    asleep_min[i] = bench_now_us() - t0;
                    if (qp_world_get_stats(&world).awake) woke = 1;
                }
            }
        }
    }
    double us_med = median(step_min, steps), us_mean = mean(step_min, steps);
    double us_p99 = bench_quantile(step_min, steps, 0.99, sort_tmp);
    double us_max = bench_quantile(step_min, steps, 1.0, sort_tmp);
    char first_asleep[32] = "-", asleep_us[32] = "-", asleep_frac[32] = "-";
    char series[160] = "-";
    if (sleep) {
        int n = 0;
        for (int c = 0; c < N_CHECKPOINTS && n < (int)sizeof series - 24; c++) {
            if (asleep_at[c] < 0)
                n += snprintf(series + n, sizeof series - (size_t)n, "%s%d:-", c ? "," : "", checkpoints[c]);
            else
                n += snprintf(series + n, sizeof series - (size_t)n, "%s%d:%d", c ? "," : "", checkpoints[c],
                              asleep_at[c]);
        }
        if (st.first_all_asleep_step < 0) {
            snprintf(first_asleep, sizeof first_asleep, "never<=%d", limit);
        } else {
            snprintf(first_asleep, sizeof first_asleep, "%d", st.first_all_asleep_step);
            double a = median(asleep_min, SLEEP_STEPS);
            snprintf(asleep_us, sizeof asleep_us, "%.2f%s", a, woke ? "(woke)" : "");
            if (awake_median[s] > 0.0) snprintf(asleep_frac, sizeof asleep_frac, "%.4f", a / awake_median[s]);
        }
    } else {
        awake_median[s] = us_med;
    }

    /* The same steps stage by stage, `repeats` times, fastest repetition per step and stage. */
    double acc[MAX_STAGES] = { 0 };
    const char *staged = "-";
    int kept = 0;
    if (stages) {
        static double one[MAX_STAGES];
        bool same = true;
        for (int rep = 0; rep < repeats; rep++) {
            if (build(s, var) != QP_OK) break;
            for (int i = 0; i < steps; i++) {
                staged_step(&world, one);
                for (int k = 0; k < n_stages; k++) bench_keep_min(&stage_us[i][k], one[k], rep);
            }
            if (qp_world_hash(&world) != hash) same = false;
        }
        for (int i = 0; i < steps; i++) {
            step_us[i] = 0.0;
            for (int k = 0; k < n_stages; k++) step_us[i] += stage_us[i][k];
        }
        staged = same ? "ok" : "DIFFERS";
        kept = sum_stages(steps, acc);
    }
    double total = 0.0;
    for (int i = 0; i < n_stages; i++) total += acc[i];
    double collide = (st_broad >= 0 ? acc[st_broad] : 0.0) + (st_narrow >= 0 ? acc[st_narrow] : 0.0);
    double collide_us = kept ? collide / kept : 0.0;

    printf("qphys scene=%s sleep=%s policy=%s bodies=%d steps=%d repeat=%d us_median=%.2f us_mean=%.2f us_p99=%.2f "
           "us_max=%.2f pairs=%.1f contacts=%.1f points=%.1f",
           name, key, sleep ? qpb_policy_name(qp_world_get_def(&world)->sleep_policy) : "-", qpb_scene_bodies(s),
           steps, repeats, us_med, us_mean, us_p99, us_max, pairs / steps, contacts / steps, points / steps);
    if (stages)
        printf(" collide_us=%.2f collide_share=%.1f", collide_us, total > 0 ? 100.0 * collide / total : 0.0);
    else
        printf(" collide_us=- collide_share=-");
    if (v.applies)
        printf(" stands=%s", v.stands ? "yes" : "no");
    else
        printf(" stands=-");
    printf(" drift_cm=%.2f sag_cm=%.2f maxmove_cm=%.2f awake_end=%d first_asleep=%s asleep_at=%s asleep_us=%s"
           " asleep_frac=%s staged=%s file=%s\n",
           100 * fx(v.drift), 100 * fx(v.sag), 100 * fx(v.max_move), awake_end, first_asleep, series, asleep_us,
           asleep_frac, staged, var == V_THREE_POINT ? compare_with_file(s) : "-");
    if (stages && total > 0) {
        printf("qphys-stages scene=%s sleep=%s steps_kept=%d total_us=%.2f names=", name, key, kept, total / kept);
        for (int i = 0; i < n_stages; i++) printf("%s%s", i ? "," : "", stage_names[i]);
        for (int i = 0; i < n_stages; i++) printf(" stage_%s=%.1f", stage_names[i], 100.0 * acc[i] / total);
        printf("\n");
    }
    fflush(stdout);
}

/* ---- ray casts -------------------------------------------------------------------- */

/* The cast every shape takes, in pool order (query.c before the broad phase pruned it):
 * the "before" of the ray benchmark, and the reference its answers are checked against. */
static bool brute_raycast(const qp_world *w, qp_vec3 origin, qp_vec3 delta, qp_world_ray_hit *out)
{
    bool found = false;
    for (int s = 0; s < QP_CFG_MAX_SHAPES; s++) {
        const qp_shape_slot *slot = &w->shapes[s];
        if (slot->body == 0 || (slot->flags & QP_SHAPE_SENSOR)) continue;
        const qp_body_state *b = &w->bodies[slot->body];
        qp_rot3 r = qp__body_rot(b);
        qp_transform xf = qp__shape_world(w, s, &b->x, &r);
        qp_ray_hit hit;
        if (!qp_raycast_shape(&slot->shape, &xf, origin, delta, &hit)) continue;
        if (found && hit.fraction >= out->hit.fraction) continue;
        out->body.index = slot->body;
        out->body.generation = b->generation;
        out->hit = hit;
        found = true;
    }
    return found;
}

#define N_RAYS 2000
static qp_vec3 ray_o[N_RAYS], ray_d[N_RAYS];

/* Rays about the pile (integer draws, the same every run): origins in a 20 m box around
 * it, up to 16 m high; a third straight down, a third at a random body, a third in any
 * direction, 0.5 to 32 m long. */
static uint32_t ray_rng = 2463534242u;

static uint32_t next_u32(void)
{
    ray_rng ^= ray_rng << 13;
    ray_rng ^= ray_rng >> 17;
    ray_rng ^= ray_rng << 5;
    return ray_rng;
}

/* A draw in [lo, lo + span) metres, Q16.16. */
static fix16_t draw(int lo, unsigned span) { return QP_INT(lo) + (fix16_t)(next_u32() % (span << 16)); }

static void make_rays(const qp_world *w)
{
    ray_rng = 2463534242u;
    for (int i = 0; i < N_RAYS; i++) {
        fix16_t ox = draw(-10, 20), oy = draw(0, 16), oz = draw(-10, 20);   /* one draw per statement */
        ray_o[i] = qp_v3(ox, oy, oz);
        uint32_t kind = next_u32() % 3;
        if (kind == 0) {
            ray_d[i] = qp_v3(0, -draw(1, 15), 0);
        } else if (kind == 1) {
            int body = 2 + (int)(next_u32() % 512u);
            qp_vec3 to = qp_v3_sub(w->bodies[body <= w->body_high ? body : 1].x, ray_o[i]);
            ray_d[i] = qp_v3_add(to, qp_v3_scale(to, QP_FRAC(1, 4)));
        } else {
            fix16_t len = draw(0, 32) + QP_FRAC(1, 2);
            fix16_t dx = draw(-1, 2), dy = draw(-1, 2), dz = draw(-1, 2);
            qp_vec3 u;
            if (!qp_v3_normalize_q30(qp_v3(dx, dy, dz), &u)) u = qp_v3(0, -QP_Q30_ONE, 0);
            ray_d[i] = qp_v3(qp_mul(len, u.x >> 14), qp_mul(len, u.y >> 14), qp_mul(len, u.z >> 14));
        }
        if (qp_v3_eq(ray_d[i], qp_v3_zero())) ray_d[i] = qp_v3(0, -QP_ONE, 0);
    }
}

/* rain512 (sleep on) at a few steps: microseconds per ray, every shape cast (brute) and
 * through the broad phase (qp_world_raycast), each the fastest of `repeats` passes over
 * the same rays; same=yes when every answer is the same bits. */
static void run_rays(void)
{
    static const int at[] = { 60, 120, 300 };
    if (qpb_scene_build(&world, QPB_RAIN512, true) != QP_OK) {
        printf("qphys-rays scene=rain512 error=build-failed\n");
        return;
    }
    int step = 0;
    for (int c = 0; c < (int)(sizeof at / sizeof at[0]); c++) {
        while (step < at[c]) qp_world_step(&world), step++;
        make_rays(&world);
        double t_brute = 0, t_pruned = 0;
        int hits = 0;
        bool same = true;
        for (int rep = 0; rep < repeats + 1; rep++) {
            qp_world_ray_hit a, b;
            double t0 = bench_now_us();
            for (int i = 0; i < N_RAYS; i++) hits += brute_raycast(&world, ray_o[i], ray_d[i], &a);
            double t1 = bench_now_us();
            for (int i = 0; i < N_RAYS; i++) (void)qp_world_raycast(&world, ray_o[i], ray_d[i], &b);
            double t2 = bench_now_us();
            bench_keep_min(&t_brute, (t1 - t0) / N_RAYS, rep);
            bench_keep_min(&t_pruned, (t2 - t1) / N_RAYS, rep);
        }
        for (int i = 0; i < N_RAYS; i++) {
            qp_world_ray_hit a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            bool ga = brute_raycast(&world, ray_o[i], ray_d[i], &a), gb = qp_world_raycast(&world, ray_o[i], ray_d[i], &b);
            if (ga != gb || (ga && memcmp(&a, &b, sizeof a) != 0)) same = false;
        }
        printf("qphys-rays scene=rain512 step=%d rays=%d hits=%d brute_us=%.2f pruned_us=%.2f speedup=%.1f same=%s\n",
               step, N_RAYS, hits / (repeats + 1), t_brute, t_pruned, t_pruned > 0 ? t_brute / t_pruned : 0.0,
               same ? "yes" : "NO");
        fflush(stdout);
    }
}

/* Snapshot and restore of an awake 211-body world (pyramid20, sleep off, at steps 60 and
 * 300) beside one awake step of it: what a rollback costs against what it saves.
 *   qphys-snapshot scene=pyramid20 step=.. bytes=.. step_us=.. snapshot_us=.. restore_us=.. ratio=.. */
static unsigned char snap_buf[QP_SNAPSHOT_MAX_SIZE];
static qp_world twin;

static void run_snapshots(void)
{
    static const int at[] = { 60, 300 };
    if (qpb_scene_build(&world, QPB_PYRAMID20, false) != QP_OK) {
        printf("qphys-snapshot scene=pyramid20 error=build-failed\n");
        return;
    }
    int step = 0;
    for (int c = 0; c < (int)(sizeof at / sizeof at[0]); c++) {
        while (step < at[c]) qp_world_step(&world), step++;
        double t_step = 0, t_snap = 0, t_restore = 0;
        unsigned long n = 0;
        for (int rep = 0; rep < repeats + 1; rep++) {
            double t0 = bench_now_us();
            n = qp_world_snapshot(&world, snap_buf, sizeof snap_buf);
            double t1 = bench_now_us();
            qp_result r = qp_world_restore(&twin, snap_buf, n);
            double t2 = bench_now_us();
            if (r != QP_OK || qp_world_hash(&twin) != qp_world_hash(&world)) {
                printf("qphys-snapshot scene=pyramid20 step=%d error=restore\n", step);
                return;
            }
            qp_world_step(&twin);   /* the twin steps, so the measured world stays at its step */
            double t3 = bench_now_us();
            bench_keep_min(&t_snap, t1 - t0, rep);
            bench_keep_min(&t_restore, t2 - t1, rep);
            bench_keep_min(&t_step, t3 - t2, rep);
        }
        printf("qphys-snapshot scene=pyramid20 step=%d bytes=%lu step_us=%.1f snapshot_us=%.1f restore_us=%.1f "
               "ratio=%.2f\n", step, n, t_step, t_snap, t_restore, t_step > 0 ? (t_snap + t_restore) / t_step : 0.0);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int steps = 0;
    bool stages = true, energy = true;
    bool want[QPB_SCENE_COUNT] = { false };
    bool any = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
            if (repeats < 1 || repeats > 100) { fprintf(stderr, "bench_host: --repeat 1..100\n"); return 2; }
        } else if (!strcmp(argv[i], "--no-stages")) {
            stages = false;
        } else if (!strcmp(argv[i], "--no-energy")) {
            energy = false;
        } else if (!strcmp(argv[i], "--scenes-dir") && i + 1 < argc) {
            scenes_dir = argv[++i];
        } else if (!strcmp(argv[i], "--scene") && i + 1 < argc) {
            const char *n = argv[++i];
            int found = 0;
            for (int s = 0; s < QPB_SCENE_COUNT; s++)
                if (!strcmp(n, qpb_scene_name((qpb_scene)s))) { want[s] = true; any = true; found = 1; }
            if (!found) { fprintf(stderr, "bench_host: unknown scene '%s'\n", n); return 2; }
        } else {
            fprintf(stderr, "usage: %s [--steps N] [--repeat R] [--scene NAME]... [--no-stages] [--no-energy]"
                            " [--scenes-dir DIR]\n", argv[0]);
            return 2;
        }
    }
    if (steps < 0 || steps > MAX_STEPS / 4) { fprintf(stderr, "bench_host: steps 1..%d\n", MAX_STEPS / 4); return 2; }
    init_stages();
    for (int s = 0; s < QPB_SCENE_COUNT; s++) {
        if (any && !want[s]) continue;
        int n = steps > 0 ? steps : qpb_scene_steps((qpb_scene)s);
        run_scene((qpb_scene)s, V_OFF, n, stages);
        run_scene((qpb_scene)s, V_THREE_POINT, n, stages);
        if (energy) run_scene((qpb_scene)s, V_ENERGY, n, stages);
    }
    if (!any || want[QPB_RAIN512]) run_rays();
    if (!any || want[QPB_PYRAMID20]) run_snapshots();
    return 0;
}
