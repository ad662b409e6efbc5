/* SPDX-License-Identifier: MIT */
/* bench/bench_impacts.c - how struck structures come to rest, over many seeds (bench/impacts.h
 * says what a seed builds and what is read).
 *
 *   bench_impacts [-v] [COUNT [FIRST [STEPS]]]
 *
 * Seeds FIRST .. FIRST + COUNT - 1 (default 100 from 1000), each run up to STEPS steps (default
 * 2 400, 40 s) with sleep on, stopping once every cube sleeps. Prints, per kind of structure and
 * for all: how many, the p50 / p90 / largest step at which every cube slept (a scene that never
 * slept counts as STEPS + 1), how many were not asleep within 20 s (1 200 steps), how many buzzed
 * after 5 s, and how many sank a cube into the ground; -v prints one line per seed as well.
 * Seeds below 1000 are the ones looked at while fixing; judge on others.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "impacts.h"

#define MAX_SEEDS 100000

static qp_world world;
static impact_scene scene;
static double asleep_at[IMPACT_KINDS + 1][MAX_SEEDS];

int main(int argc, char **argv)
{
    int a = 1;
    bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    a += verbose;
    long count = argc > a ? bench_number(argv[a], 1, MAX_SEEDS) : 100;
    long first = argc > a + 1 ? bench_number(argv[a + 1], 0, 100000000) : 1000;
    long steps = argc > a + 2 ? bench_number(argv[a + 2], 1, 100000) : 2400;
    if (argc > a + 3 || count < 0 || first < 0 || steps < 0) {
        fprintf(stderr, "usage: %s [-v] [COUNT [FIRST seed [STEPS]]]\n", argv[0]);
        return 2;
    }
    long n[IMPACT_KINDS + 1] = { 0 }, late[IMPACT_KINDS + 1] = { 0 }, buzz[IMPACT_KINDS + 1] = { 0 },
         sunk[IMPACT_KINDS + 1] = { 0 };
    double t0 = bench_now_us();
    for (long i = 0; i < count; i++) {
        unsigned seed = (unsigned)(first + i);
        impact_setup u = impact_setup_of(seed);
        impact_result r;
        if (!impact_run(&world, &scene, seed, (int)steps, true, &r)) {
            fprintf(stderr, "bench_impacts: seed %u could not be built\n", seed);
            return 2;
        }
        double at = r.asleep < 0 ? (double)steps + 1 : r.asleep;
        int kinds[2] = { u.kind, IMPACT_KINDS };
        for (int k = 0; k < 2; k++) {
            int kd = kinds[k];
            asleep_at[kd][n[kd]++] = at;
            late[kd] += r.asleep < 0 || r.asleep > 1200;
            buzz[kd] += r.buzz >= 0;
            sunk[kd] += r.sunk > 0;
        }
        if (verbose)
            printf("seed %u %s size=%d height=%d %s r=%.2f mass=%.1f speed=%.1f aim=(%.2f, %.2f) cubes=%d asleep=%d "
                   "awake_end=%d buzz=%d (cube %d) sunk=%d\n",
                   seed, impact_kind_name[u.kind], u.size, u.height, u.ball ? "ball" : "box", u.radius, u.mass,
                   u.speed, u.aim_side, u.aim_height, r.cubes, r.asleep, r.awake_at_end, r.buzz, r.buzz_cube,
                   r.sunk);
        fflush(stdout);
    }
    for (int kd = 0; kd <= IMPACT_KINDS; kd++) {
        if (!n[kd]) continue;
        double tmp[MAX_SEEDS];
        double p50 = bench_quantile(asleep_at[kd], (int)n[kd], 0.5, tmp);
        double p90 = bench_quantile(asleep_at[kd], (int)n[kd], 0.9, tmp);
        double most = bench_quantile(asleep_at[kd], (int)n[kd], 1.0, tmp);
        printf("impacts %-7s first=%ld count=%ld asleep_p50=%.0f asleep_p90=%.0f asleep_max=%.0f past_20s=%ld "
               "buzzing=%ld sunk=%ld\n",
               kd < IMPACT_KINDS ? impact_kind_name[kd] : "all", first, n[kd], p50, p90, most, late[kd], buzz[kd],
               sunk[kd]);
    }
    fprintf(stderr, "bench_impacts: %.1f s\n", (bench_now_us() - t0) * 1e-6);
    return 0;
}
