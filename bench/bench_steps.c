/* SPDX-License-Identifier: MIT */
/* bench/bench_steps.c - what each step of a scene file runs, step by step: its time and the
 * work counters of bench_count.h (sweeps and rows of each velocity pass, the narrow phase's
 * pairs), to find which steps are slow and why (docs/benchmarks.md, "Profiling on the host").
 *
 *   bench_steps SCENE [STEPS] [REPEAT]
 *
 * Runs SCENE's first STEPS steps (default 300) REPEAT times from its start (default 3), each
 * step's time its fastest run, and prints one line a step:
 *   step us contacts  k_sweeps k_rows k_skipped  e_sweeps e_rows  s_sweeps s_rows  p_sweeps p_rows
 *   pairs touching kept
 * (k: the contact pass, its sweeps, normal point rows and quiet visits skipped; e: the
 * collision (elastic) pass; s: the shock pass, its level sweeps and normal rows; p: the
 * penetration pass; pairs: the narrow phase's collide calls, of which touching and kept
 * manifolds), then the same means over each 20 steps, and the ten slowest steps. Built with
 * the counting library (make -f mk/bench.mk build/bench/bench_steps: build/bench-count/,
 * -DQP_BENCH_COUNT=1); the counters cost a step a few percent, so time a window with
 * bench_window. Give a copy with `sleep off` for awake steps. Exit status 2 on bad
 * arguments or a scene that fails to load, 1 if two runs end with different hashes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "qphys/qphys.h"
#include "bench_clock.h"
#include "bench_count.h"

#if !QP_BENCH_COUNT
#error "bench_steps reads the work counters: build it with -DQP_BENCH_COUNT=1 and the library likewise"
#endif

#define MAX_STEPS 20000
#define MAX_REPEAT 100
#define COLUMNS 13

static qp_world world;
static char text[1 << 22];
static double step_us[MAX_STEPS];
static uint32_t work[MAX_STEPS][COLUMNS];

static const char *const names[COLUMNS] = { "contacts", "k_sweeps", "k_rows", "k_skipped", "e_sweeps", "e_rows",
                                            "s_sweeps", "s_rows",   "p_sweeps", "p_rows",    "pairs",    "touching",
                                            "kept" };

static void record(uint32_t *row, int contacts)
{
    const qp__bench_counts *c = &qp__counts;
    const uint32_t v[COLUMNS] = { (uint32_t)contacts, c->contact_sweeps, c->contact_normal, c->contact_skipped,
                                  c->collide_sweeps,  c->collide_rows,   c->shock_sweeps,   c->shock_normal,
                                  c->pen_sweeps,      c->pen_normal,     c->narrow_calls,   c->narrow_touching,
                                  c->narrow_kept };
    for (int i = 0; i < COLUMNS; i++) row[i] = v[i];
}

static void print_means(const char *label, int from, int to)
{
    double us = 0.0, sum[COLUMNS] = { 0 };
    for (int s = from; s <= to; s++) {
        us += step_us[s - 1];
        for (int i = 0; i < COLUMNS; i++) sum[i] += work[s - 1][i];
    }
    int n = to - from + 1;
    printf("%s %d-%d %.0f", label, from, to, us / n);
    for (int i = 0; i < COLUMNS; i++) printf(" %.1f", sum[i] / n);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s SCENE [STEPS] [REPEAT]\n", argv[0]);
        return 2;
    }
    long steps = argc > 2 ? bench_number(argv[2], 1, MAX_STEPS) : 300;
    long repeat = argc > 3 ? bench_number(argv[3], 1, MAX_REPEAT) : 3;
    if (steps < 0 || repeat < 0) {
        fprintf(stderr, "bench_steps: need 1 <= STEPS <= %d and 1 <= REPEAT <= %d\n", MAX_STEPS, MAX_REPEAT);
        return 2;
    }
    long len = bench_read_file("bench_steps", argv[1], text, sizeof text);
    if (len < 0) return 2;
    unsigned long hash = 0;
    for (long r = 0; r < repeat; r++) {
        qp_scene_error err;
        if (qp_scene_load(&world, text, (unsigned long)len, NULL, &err) != QP_OK) {
            fprintf(stderr, "%s:%d:%d: %s\n", argv[1], err.line, err.column, err.message);
            return 2;
        }
        for (long s = 0; s < steps; s++) {
            qp__counts = (qp__bench_counts){ 0 };
            double t0 = bench_now_us();
            qp_world_step(&world);
            bench_keep_min(&step_us[s], bench_now_us() - t0, (int)r);
            record(work[s], qp_world_get_stats(&world).contacts);   /* the same in every run */
        }
        if (bench_same_hash("bench_steps", r, qp_world_hash(&world), &hash)) return 1;
    }
    printf("step us");
    for (int i = 0; i < COLUMNS; i++) printf(" %s", names[i]);
    printf("\n");
    for (long s = 1; s <= steps; s++) {
        printf("%ld %.0f", s, step_us[s - 1]);
        for (int i = 0; i < COLUMNS; i++) printf(" %u", (unsigned)work[s - 1][i]);
        printf("\n");
    }
    for (long s = 1; s <= steps; s += 20) print_means("means", (int)s, (int)(s + 19 < steps ? s + 19 : steps));
    print_means("means", 1, (int)steps);
    printf("slowest");
    for (int k = 0; k < 10 && k < steps; k++) {   /* the ten slowest, slowest first */
        long at = -1;
        for (long s = 0; s < steps; s++) {
            if (step_us[s] < 0) continue;
            if (at < 0 || step_us[s] > step_us[at]) at = s;
        }
        printf(" %ld:%.0f", at + 1, step_us[at]);
        step_us[at] = -1.0 - step_us[at];   /* taken; the means above are printed */
    }
    printf("\nhash=%08x\n", (unsigned)hash);
    return 0;
}
