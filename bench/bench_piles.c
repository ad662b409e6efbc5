/* SPDX-License-Identifier: MIT */
/* bench/bench_piles.c - how piles of tumbling cubes come to rest, over many piles, to judge a
 * change that alters results (docs/benchmarks.md, "Profiling on the host").
 *
 *   bench_piles [COUNT [FIRST]]
 *
 * COUNT piles (default 40) of 64 unit cubes (1 kg, friction 0.5) dropped 4 x 4 x 4 onto the
 * ground, each cube turned about (1, 1, 1) by an angle from the pile's seed: the layout of
 * tests/unit/test_sleep.c's test_pile_comes_to_rest, seeds FIRST .. FIRST + COUNT - 1 (default
 * 1). For each seed, with the default (three-point) sleep: the step at which every cube sleeps
 * (searched up to 2 400 steps); with sleep off, how far each cube moves from 5 s to 10 s. Prints
 * one line:
 *   piles first=.. count=.. asleep_mean=.. asleep_p90=.. asleep_latest=.. past_10s=.. never=..
 *         p90_mm=.. past_5cm=..
 * (asleep_mean over the piles that slept; asleep_p90: the pile at nine tenths of the sorted
 * asleep steps, a pile that never slept counted as 2 401; past_10s: piles not all asleep by
 * step 600; never: piles not asleep by step 2 400; p90_mm: the
 * 90th percentile of every cube's motion; past_5cm: piles in which a cube moved more than 5 cm,
 * one that tipped off an edge).
 *
 * A pile is chaotic: a change of one rounding decides which cube tips. The unit test's eight
 * seeds, and the first forty, are the ones the constants were tuned on; judge a change on other
 * seeds too (FIRST 41, 81, ...), where a build can read differently.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "qphys/qphys.h"
#include "bench_clock.h"

#define CUBES      64
#define MAX_PILES  1000
#define SLEEP_MAX  2400

static qp_world world;
static double moved[MAX_PILES * CUBES];
static double asleep_at[MAX_PILES];

/* A number given as a decimal in Q16.16, rounded to nearest (host tool: floats allowed). */
static fix16_t fix(double x)
{
    return (fix16_t)(x * 65536.0 + (x < 0 ? -0.5 : 0.5));
}

/* Pile `seed`, as test_pile_comes_to_rest builds it; false if the world refuses a body. */
static bool build_pile(qp_world *w, unsigned seed, bool sleep, qp_body_id ids[CUBES])
{
    qp_world_def def = qp_default_world_def();
    def.sleep_policy = QP_SLEEP_THREE_POINT;
    def.sleep_enabled = sleep;
    if (qp_world_init(w, &def) != QP_OK) return false;
    qp_result err = QP_OK;
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.friction = fix(0.5);
    g.shape_count = 1;
    if (qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]) != QP_OK) return false;
    qp_create_body(w, &g, &err);
    for (int i = 0; i < CUBES && err == QP_OK; i++) {
        qp_body_def b = qp_default_body_def();
        b.position = qp_v3(fix(-2.25 + 1.5 * (i % 4) + 0.4 * ((i / 16) % 2)), fix(1 + 1.2 * (i / 16)),
                           fix(-2.25 + 1.5 * ((i / 4) % 4)));
        double turn = ((seed * 37u + (unsigned)i * 53u) % 360u) * 3.14159265358979 / 180;
        if (!qp_quat_from_axis_angle(qp_v3(QP_ONE, QP_ONE, QP_ONE), fix(turn), &b.rotation)) return false;
        b.mass = QP_ONE;
        b.friction = fix(0.5);
        b.shape_count = 1;
        if (qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]) != QP_OK) return false;
        ids[i] = qp_create_body(w, &b, &err);
    }
    return err == QP_OK;
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? bench_number(argv[1], 1, MAX_PILES) : 40;
    long first = argc > 2 ? bench_number(argv[2], 1, 1000000) : 1;
    if (argc > 3 || count < 0 || first < 0) {
        fprintf(stderr, "usage: %s [COUNT (1..%d) [FIRST seed]]\n", argv[0], MAX_PILES);
        return 2;
    }
    qp_body_id ids[CUBES];
    long slept = 0, sum = 0, latest = 0, late = 0, never = 0, eventful = 0;
    for (long p = 0; p < count; p++) {
        unsigned seed = (unsigned)(first + p);
        if (!build_pile(&world, seed, true, ids)) {
            fprintf(stderr, "bench_piles: pile %u could not be built\n", seed);
            return 2;
        }
        long asleep = -1;
        for (long s = 1; s <= SLEEP_MAX && asleep < 0; s++) {
            qp_world_step(&world);
            qp_world_stats st = qp_world_get_stats(&world);
            if (st.awake == 0 && st.asleep > 0) asleep = s;
        }
        asleep_at[p] = asleep < 0 ? SLEEP_MAX + 1 : (double)asleep;
        late += asleep < 0 || asleep > 600;
        if (asleep < 0) {
            never++;
        } else {
            slept++;
            sum += asleep;
            latest = asleep > latest ? asleep : latest;
        }
        if (!build_pile(&world, seed, false, ids)) return 2;
        for (int s = 0; s < 300; s++) qp_world_step(&world);
        qp_vec3 at[CUBES];
        for (int i = 0; i < CUBES; i++) at[i] = qp_body_position(&world, ids[i]);
        for (int s = 0; s < 300; s++) qp_world_step(&world);
        double most = 0;
        for (int i = 0; i < CUBES; i++) {
            qp_vec3 q = qp_body_position(&world, ids[i]);
            double dx = (q.x - at[i].x) / 65536.0, dy = (q.y - at[i].y) / 65536.0, dz = (q.z - at[i].z) / 65536.0;
            double d = sqrt(dx * dx + dy * dy + dz * dz);
            moved[p * CUBES + i] = d;
            most = d > most ? d : most;
        }
        eventful += most > 0.05;
    }
    /* the unit test's 90th percentile: the cube at nine tenths of the sorted list */
    qsort(moved, (size_t)(count * CUBES), sizeof moved[0], bench_cmp_double);
    qsort(asleep_at, (size_t)count, sizeof asleep_at[0], bench_cmp_double);
    printf("piles first=%ld count=%ld asleep_mean=%.0f asleep_p90=%.0f asleep_latest=%ld past_10s=%ld never=%ld "
           "p90_mm=%.3f past_5cm=%ld\n",
           first, count, slept ? (double)sum / (double)slept : 0.0, asleep_at[count * 9 / 10], latest, late, never,
           1000 * moved[count * CUBES * 9 / 10], eventful);
    return 0;
}
