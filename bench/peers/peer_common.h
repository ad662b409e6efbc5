/* SPDX-License-Identifier: MIT */
/* bench/peers/peer_common.h - what the ODE and Bullet benchmarks share (C and C++).
 *
 * The named scenes of docs/design.md §9 in double precision (the same formulas as
 * bench/scenes.c), the stand criteria of bench/scenes.h, a step timer, and the
 * driver that runs a scene with sleep off and on and prints one key=value line
 * per run in the format of bench_host ("<engine> scene=.. sleep=.. ...").
 *
 * An engine provides a peer_ops table: build the scene, step, read a body's
 * position, count sleeping bodies, destroy.
 */
#ifndef QP_PEER_COMMON_H
#define QP_PEER_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_clock.h"

#define PEER_SCENES      4
#define PEER_SLEEP_STEPS 300
#define PEER_MAX_STEPS   20000
#define PEER_PI          3.14159265358979323846

static const char *const peer_scene_names[PEER_SCENES] = { "stack20", "stack50", "pyramid20", "rain512" };
static const int peer_scene_counts[PEER_SCENES] = { 20, 50, 210, 512 };

/* Start pose of dynamic body n of scene s: position, and rotation as an axis (unit) and angle (rad). */
static void peer_scene_pose(int s, int n, double pos[3], double axis[3], double *angle)
{
    pos[0] = pos[1] = pos[2] = 0.0;
    axis[0] = 0.0; axis[1] = 1.0; axis[2] = 0.0;
    *angle = 0.0;
    if (s == 0 || s == 1) {
        pos[1] = 0.5 + n;
    } else if (s == 2) {
        int r = 0, m = 20, k = n;
        while (k >= m && m > 0) { k -= m; r++; m--; }
        pos[0] = k - (m - 1) / 2.0;
        pos[1] = 0.5 + r;
    } else if (s == 3) {
        int i = n % 8, j = (n / 8) % 8, k = n / 64;
        pos[0] = -5.25 + 1.5 * i + 0.75 * (j % 2);
        pos[1] = 2.0 + 1.5 * j;
        pos[2] = -5.25 + 1.5 * k + 0.75 * (j % 2);
        double a = 1.0 / sqrt(3.0);
        axis[0] = axis[1] = axis[2] = a;
        *angle = ((37 * (i + 8 * j + 64 * k)) % 360) * PEER_PI / 180.0;
    }
}

static double peer_sort_tmp[PEER_MAX_STEPS];

static double peer_median(const double *v, int n)
{
    return bench_median(v, n, peer_sort_tmp);
}

/* What an engine provides. */
typedef struct {
    const char *engine;                       /* "ode", "bullet" */
    int can_sleep;                            /* the engine has sleeping bodies */
    void (*build)(int scene, int sleep);      /* a fresh world with the scene */
    void (*step)(void);                       /* one step of 1/60 s */
    void (*position)(int n, double p[3]);     /* centre of dynamic body n */
    int (*asleep)(void);                      /* dynamic bodies asleep now */
    void (*counts)(int *pairs, int *points);  /* touching pairs and contact points of the last step */
    void (*destroy)(void);
} peer_ops;

typedef struct {
    int applies, stands;
    double drift, sag, max_move;
} peer_verdict;

static peer_verdict peer_check(const peer_ops *ops, int s)
{
    peer_verdict v = { s <= 2, 0, 0.0, 0.0, 0.0 };
    int count = peer_scene_counts[s];
    for (int n = 0; n < count; n++) {
        double p0[3], ax[3], ang, p[3];
        peer_scene_pose(s, n, p0, ax, &ang);
        ops->position(n, p);
        double dx = p[0] - p0[0], dy = p[1] - p0[1], dz = p[2] - p0[2];
        double move = sqrt(dx * dx + dy * dy + dz * dz);
        if (move > v.max_move) v.max_move = move;
        if (n == count - 1) {
            v.drift = sqrt(dx * dx + dz * dz);
            v.sag = -dy;
        }
    }
    if (s <= 1) v.stands = v.drift < 0.05 && fabs(v.sag) < 0.02;
    else if (s == 2) v.stands = v.max_move < 0.05;
    return v;
}

static double peer_step_us[PEER_MAX_STEPS];
static double peer_asleep_us[PEER_SLEEP_STEPS];
static double peer_awake_median[PEER_SCENES];
static int peer_repeats = 2;


/* One scene, `peer_repeats` times from scratch; each step's time is its fastest repetition
 * (the engines are deterministic here: ODE's random constraint order is reseeded by build). */
static void peer_run(const peer_ops *ops, int s, int sleep, int steps)
{
    double pairs = 0, points = 0;
    int first_asleep = -1, count = peer_scene_counts[s], awake_end = 0, woke = 0;
    peer_verdict v;
    memset(&v, 0, sizeof v);
    for (int rep = 0; rep < peer_repeats; rep++) {
        ops->build(s, sleep);
        int step = 0;
        first_asleep = -1;
        for (int i = 0; i < steps; i++) {
            double t0 = bench_now_us();
            ops->step();
            bench_keep_min(&peer_step_us[i], bench_now_us() - t0, rep);
            step++;
            if (rep == 0) {
                int pa = 0, po = 0;
                ops->counts(&pa, &po);
                pairs += pa;
                points += po;
            }
            if (sleep && first_asleep < 0 && ops->asleep() == count) first_asleep = step;
        }
        v = peer_check(ops, s);
        awake_end = count - ops->asleep();
        if (sleep && rep == peer_repeats - 1) {
            while (first_asleep < 0 && step < 4 * steps) {
                ops->step();
                step++;
                if (ops->asleep() == count) first_asleep = step;
            }
            if (first_asleep >= 0) {
                for (int i = 0; i < PEER_SLEEP_STEPS; i++) {
                    double t0 = bench_now_us();
                    ops->step();
                    peer_asleep_us[i] = bench_now_us() - t0;
                    if (ops->asleep() != count) woke = 1;
                }
            }
        }
        ops->destroy();
    }
    double mean = 0.0;
    for (int i = 0; i < steps; i++) mean += peer_step_us[i];
    mean /= steps;
    double med = peer_median(peer_step_us, steps);
    double p99 = bench_quantile(peer_step_us, steps, 0.99, peer_sort_tmp);
    double worst = bench_quantile(peer_step_us, steps, 1.0, peer_sort_tmp);
    char fa[32] = "-", aus[32] = "-", afr[32] = "-";
    if (sleep) {
        if (first_asleep < 0) {
            snprintf(fa, sizeof fa, "never<=%d", 4 * steps);
        } else {
            snprintf(fa, sizeof fa, "%d", first_asleep);
            double a = peer_median(peer_asleep_us, PEER_SLEEP_STEPS);
            snprintf(aus, sizeof aus, "%.2f%s", a, woke ? "(woke)" : "");
            if (peer_awake_median[s] > 0.0) snprintf(afr, sizeof afr, "%.4f", a / peer_awake_median[s]);
        }
    } else {
        peer_awake_median[s] = med;
    }
    printf("%s scene=%s sleep=%s steps=%d repeat=%d us_median=%.2f us_mean=%.2f us_p99=%.2f us_max=%.2f contacts=%.1f"
           " points=%.1f stands=%s drift_cm=%.2f sag_cm=%.2f maxmove_cm=%.2f awake_end=%d first_asleep=%s asleep_us=%s"
           " asleep_frac=%s\n",
           ops->engine, peer_scene_names[s], sleep ? "on" : "off", steps, peer_repeats, med, mean, p99, worst,
           pairs / steps, points / steps, v.applies ? (v.stands ? "yes" : "no") : "-", 100 * v.drift, 100 * v.sag, 100 * v.max_move,
           awake_end, fa, aus, afr);
    fflush(stdout);
}

/* argv: [--steps N] [--repeat R] [--scene NAME]... */
static int peer_main(const peer_ops *ops, int argc, char **argv)
{
    int steps = 600, any = 0, want[PEER_SCENES] = { 0 };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            peer_repeats = atoi(argv[++i]);
            if (peer_repeats < 1 || peer_repeats > 100) { fprintf(stderr, "%s: --repeat 1..100\n", ops->engine); return 2; }
        } else if (!strcmp(argv[i], "--scene") && i + 1 < argc) {
            const char *n = argv[++i];
            int found = 0;
            for (int s = 0; s < PEER_SCENES; s++)
                if (!strcmp(n, peer_scene_names[s])) { want[s] = 1; any = 1; found = 1; }
            if (!found) { fprintf(stderr, "%s: unknown scene '%s'\n", ops->engine, n); return 2; }
        } else {
            fprintf(stderr, "usage: %s [--steps N] [--repeat R] [--scene NAME]...\n", argv[0]);
            return 2;
        }
    }
    if (steps < 1 || steps > PEER_MAX_STEPS / 4) { fprintf(stderr, "%s: steps 1..%d\n", ops->engine, PEER_MAX_STEPS / 4); return 2; }
    for (int s = 0; s < PEER_SCENES; s++) {
        if (any && !want[s]) continue;
        peer_run(ops, s, 0, steps);
        if (ops->can_sleep) peer_run(ops, s, 1, steps);
    }
    return 0;
}

#endif
