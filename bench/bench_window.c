/* SPDX-License-Identifier: MIT */
/* bench/bench_window.c - the host's time for a window of steps of one scene file, steady
 * enough to compare two builds of the core on a shared machine (docs/benchmarks.md,
 * "Profiling on the host").
 *
 *   bench_window SCENE FROM TO [REPEAT] [--stages]
 *
 * Loads SCENE (a scene file), steps it to FROM - 1 and saves a snapshot; then REPEAT times
 * (default 20) restores it and times steps FROM..TO with CLOCK_MONOTONIC. Restoring is
 * exact (a resumed world computes the same bits), so every run does the same work, and the
 * best run is what other processes on the machine added least to: it moves by about 0.3 %
 * between runs where whole 600-step medians move by 10-20 %. Prints one line:
 *   window scene=.. from=.. to=.. repeat=.. us_best=.. us_median=.. step_median=.. step_p99=.. step_mean=.. cpu_best=.. hash=..
 * (microseconds a step: us_best and us_median of the runs' mean steps; step_median, step_p99
 * and step_mean of the steps, each its fastest over the runs, as bench_host times a named scene
 * and the peers' --time runs time a file; cpu_best: the thread's processor time of the run with
 * the least, a mean step, which other processes on a loaded machine barely move;
 * hash: the world's after step TO, the same in every run and every build that keeps the
 * bits). Give a copy with `sleep off` for awake steps. Exit status 2
 * on bad arguments or a scene or snapshot that fails, 1 if two runs end with different
 * hashes, each with the reason.
 *
 * --stages: then REPEAT runs more of the window stage by stage (the table of qp_world_step,
 * src/stages.h, with the thread's processor clock read between stages), and one more line,
 *   stages cpu_us= name=us ...
 * each stage's processor time of a mean step, its run with the least (stages under 1 us a
 * step left out; names with spaces get underscores): where a big world's step goes
 * (docs/benchmarks.md, "Scaling"). The clock reads cost a little time of their own.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "qphys/qphys.h"
#include "bench_clock.h"
#include "body.h"
#include "stages.h"

/* Under callgrind started with --instr-atstart=no (bench/scale_profile.sh), the steps before
 * the window run uninstrumented, fast: instrumentation starts at the first restore. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION ((void)0)
#endif

#define MAX_REPEAT 1000
#define MAX_WINDOW 100000

static qp_world world;
static char text[1 << 22];
static unsigned char snapshot[QP_SNAPSHOT_MAX_SIZE];
static double times[MAX_REPEAT], cpu_times[MAX_REPEAT];
static double step_best[MAX_WINDOW], sort_tmp[MAX_WINDOW];

#define MAX_STAGES 64

/* One step of qp_world_step (src/world.c) stage by stage, each stage's processor time added
 * to acc: a world in which nothing moves takes the step's short way, counted as its first
 * stage's. */
static void staged_step(qp_world *w, double *acc, int stages)
{
    bool moves = false;
    for (int i = 1; i <= w->body_high; i++) moves |= qp__body_moves(&w->bodies[i]) || qp__body_drives(&w->bodies[i]);
    double t = bench_cpu_us();
    if (!moves) {
        qp_world_step(w);
        acc[0] += bench_cpu_us() - t;
        return;
    }
    w->stats.step++;
    for (int i = 0; i < stages; i++) {
        qp__step_stages[i].run(w);
        double t1 = bench_cpu_us();
        acc[i] += t1 - t;
        t = t1;
    }
}

/* The --stages line: REPEAT runs of the window stage by stage from the snapshot, each
 * stage's least total over the runs; 0, or 1 if a run ends with another hash than hash. */
static int print_stages(const unsigned char *snap, unsigned long size, long from, long to, long repeat,
                        unsigned long hash)
{
    const int stages = qp__step_stage_count < MAX_STAGES ? qp__step_stage_count : MAX_STAGES;
    double best[MAX_STAGES], total_best = 0.0;
    for (long r = 0; r < repeat; r++) {
        double acc[MAX_STAGES] = { 0 }, total = 0.0;
        if (qp_world_restore(&world, snap, size) != QP_OK) return 1;
        for (long s = from; s <= to; s++) staged_step(&world, acc, stages);
        if (qp_world_hash(&world) != hash) {
            fprintf(stderr, "bench_window: the staged run ends with another hash\n");
            return 1;
        }
        for (int i = 0; i < stages; i++) {
            best[i] = r == 0 || acc[i] < best[i] ? acc[i] : best[i];
            total += acc[i];
        }
        total_best = r == 0 || total < total_best ? total : total_best;
    }
    const double steps = (double)(to - from + 1);
    printf("stages cpu_us=%.1f", total_best / steps);
    for (int i = 0; i < stages; i++) {
        if (best[i] / steps < 1.0) continue;
        printf(" ");
        for (const char *c = qp__step_stages[i].name; *c; c++) putchar(*c == ' ' ? '_' : *c);
        printf("=%.1f", best[i] / steps);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    const bool stages = argc == 6 && strcmp(argv[5], "--stages") == 0;
    if (argc < 4 || argc > 6 || (argc == 6 && !stages)) {
        fprintf(stderr, "usage: %s SCENE FROM TO [REPEAT] [--stages]\n", argv[0]);
        return 2;
    }
    long from = bench_number(argv[2], 1, 1000000), to = bench_number(argv[3], 1, 1000000);
    long repeat = argc >= 5 ? bench_number(argv[4], 1, MAX_REPEAT) : 20;
    if (from < 0 || to < from || to - from >= MAX_WINDOW || repeat < 0) {
        fprintf(stderr, "bench_window: need 1 <= FROM <= TO < FROM + %d and 1 <= REPEAT <= %d\n", MAX_WINDOW,
                MAX_REPEAT);
        return 2;
    }
    long len = bench_read_file("bench_window", argv[1], text, sizeof text);
    if (len < 0) return 2;
    qp_scene_error err;
    if (qp_scene_load(&world, text, (unsigned long)len, NULL, &err) != QP_OK) {
        fprintf(stderr, "%s:%d:%d: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    for (long s = 1; s < from; s++) qp_world_step(&world);
    unsigned long size = qp_world_snapshot(&world, snapshot, sizeof snapshot);
    if (size == 0) {
        fprintf(stderr, "bench_window: the snapshot at step %ld does not fit\n", from - 1);
        return 2;
    }
    unsigned long hash = 0;
    CALLGRIND_START_INSTRUMENTATION;
    for (long r = 0; r < repeat; r++) {
        if (qp_world_restore(&world, snapshot, size) != QP_OK) {
            fprintf(stderr, "bench_window: restoring the snapshot failed\n");
            return 2;
        }
        double sum = 0.0, cpu0 = bench_cpu_us();
        for (long s = from; s <= to; s++) {
            double t0 = bench_now_us();
            qp_world_step(&world);
            double t = bench_now_us() - t0;
            sum += t;
            bench_keep_min(&step_best[s - from], t, (int)r);
        }
        times[r] = sum / (double)(to - from + 1);
        cpu_times[r] = (bench_cpu_us() - cpu0) / (double)(to - from + 1);
        if (bench_same_hash("bench_window", r, qp_world_hash(&world), &hash)) return 1;
    }
    qsort(times, (size_t)repeat, sizeof times[0], bench_cmp_double);
    qsort(cpu_times, (size_t)repeat, sizeof cpu_times[0], bench_cmp_double);
    int steps = (int)(to - from + 1);
    double step_sum = 0.0;
    for (int s = 0; s < steps; s++) step_sum += step_best[s];
    printf("window scene=%s from=%ld to=%ld repeat=%ld us_best=%.1f us_median=%.1f step_median=%.1f step_p99=%.1f "
           "step_mean=%.1f cpu_best=%.1f hash=%08x\n",
           argv[1], from, to, repeat, times[0], times[repeat / 2], bench_median(step_best, steps, sort_tmp),
           bench_quantile(step_best, steps, 0.99, sort_tmp), step_sum / steps, cpu_times[0], (unsigned)hash);
    return stages ? print_stages(snapshot, size, from, to, repeat, hash) : 0;
}
