/* SPDX-License-Identifier: MIT */
/* bench/bench_window.c - the host's time for a window of steps of one scene file, steady
 * enough to compare two builds of the core on a shared machine (docs/benchmarks.md,
 * "Profiling on the host").
 *
 *   bench_window SCENE FROM TO [REPEAT]
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
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "qphys/qphys.h"
#include "bench_clock.h"

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

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s SCENE FROM TO [REPEAT]\n", argv[0]);
        return 2;
    }
    long from = bench_number(argv[2], 1, 1000000), to = bench_number(argv[3], 1, 1000000);
    long repeat = argc == 5 ? bench_number(argv[4], 1, MAX_REPEAT) : 20;
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
    return 0;
}
