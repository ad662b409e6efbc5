/* SPDX-License-Identifier: MIT */
/* bench/bench_energy.c - where struck structures gain energy: the impact suite's seeds
 * (bench/impacts.h) stepped through the step's stage table (qp__step_stages, src/stages.h),
 * with the energy of every dynamic body (kinetic, linear and angular, and potential, m g y)
 * read around the velocity passes.
 *
 *   bench_energy [-v] [COUNT [FIRST [STEPS]]]
 *
 * Seeds FIRST .. FIRST + COUNT - 1 (default 20 from 1000), each run up to STEPS steps (default
 * 2 400) or until every cube sleeps. Per seed: the first all-asleep step (-1: none), the kinetic
 * energy the shock pass added over the run (the sum of its rises, J) and after 5 s, its largest
 * rise in one step, and the rises of the whole step's energy after 5 s. An inelastic world has
 * no such rise but the penetration pass's lift (millijoules); the collision and contact passes
 * are printed for comparison (they add none). -v prints every step after 5 s whose energy rose
 * by more than 10 mJ.
 *
 * Host tool: floats allowed here, never in the core.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "body.h"
#include "impacts.h"
#include "stages.h"

static qp_world world;
static impact_scene scene;
static bool anything_moves(const qp_world *w)
{
    for (int i = 1; i <= w->body_high; i++)
        if (qp__body_moves(&w->bodies[i]) || qp__body_drives(&w->bodies[i])) return true;
    return false;
}

typedef struct {
    int asleep;
    double shock, shock_late, shock_worst, contacts, collisions, step_late;
} energy_result;

static bool run(unsigned seed, int steps, bool verbose, energy_result *out)
{
    impact_setup u = impact_setup_of(seed);
    if (!impact_build(&world, &scene, &u, true)) return false;
    memset(out, 0, sizeof *out);
    out->asleep = -1;
    for (int s = 1; s <= steps; s++) {
        if (u.launch_step && s == u.launch_step && !impact_launch(&world, &scene, &u)) return false;
        double before = impact_energy(&world, &scene, &u, false);
        if (!anything_moves(&world)) {
            qp_world_step(&world);
        } else {
            world.stats.step++;
            for (int i = 0; i < qp__step_stage_count; i++) {
                void (*stage)(qp_world *) = qp__step_stages[i].run;
                bool read = stage == qp__shock || stage == qp__solve_contacts || stage == qp__solve_collisions;
                double e0 = read ? impact_energy(&world, &scene, &u, true) : 0;
                stage(&world);
                if (!read) continue;
                double rise = impact_energy(&world, &scene, &u, true) - e0;
                if (rise <= 0) continue;
                if (stage == qp__solve_contacts) out->contacts += rise;
                if (stage == qp__solve_collisions) out->collisions += rise;
                if (stage != qp__shock) continue;
                out->shock += rise;
                if (s > 300) out->shock_late += rise;
                if (rise > out->shock_worst) out->shock_worst = rise;
            }
        }
        double rise = impact_energy(&world, &scene, &u, false) - before;
        if (s > 300 && rise > 0 && !(u.launch_step && s == u.launch_step)) {
            out->step_late += rise;
            if (verbose && rise > 0.01) printf("  seed %u step %d: energy rose %.3f J\n", seed, s, rise);
        }
        if (!qp_body_id_is_null(scene.projectile) && qp_body_get_type(&world, scene.projectile) == QP_BODY_DYNAMIC) {
            qp_vec3 p = qp_body_position(&world, scene.projectile);
            if (fabs(impact_dbl(p.x)) > 12 || fabs(impact_dbl(p.z)) > 12) {   /* as impact_run_setup */
                if (qp_destroy_body(&world, scene.projectile) != QP_OK) return false;
                scene.projectile = qp_null_body();
            }
        }
        int awake = 0;
        for (int i = 0; i < scene.count; i++) awake += qp_body_is_awake(&world, scene.cubes[i]);
        if (awake == 0) {
            out->asleep = s;
            break;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    int a = 1;
    bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    a += verbose;
    long count = argc > a ? bench_number(argv[a], 1, 100000) : 20;
    long first = argc > a + 1 ? bench_number(argv[a + 1], 0, 100000000) : 1000;
    long steps = argc > a + 2 ? bench_number(argv[a + 2], 1, 100000) : 2400;
    if (argc > a + 3 || count < 0 || first < 0 || steps < 0) {
        fprintf(stderr, "usage: %s [-v] [COUNT [FIRST seed [STEPS]]]\n", argv[0]);
        return 2;
    }
    double shock_late = 0, step_late = 0, passes = 0;
    long late_seeds = 0;
    for (long i = 0; i < count; i++) {
        unsigned seed = (unsigned)(first + i);
        energy_result r;
        if (!run(seed, (int)steps, verbose, &r)) {
            fprintf(stderr, "bench_energy: seed %u could not be built\n", seed);
            return 2;
        }
        printf("seed %u %s asleep=%d shock_added=%.3f shock_added_after_5s=%.3f shock_most_in_a_step=%.3f "
               "step_rises_after_5s=%.3f contacts_added=%.3f collisions_added=%.3f\n",
               seed, impact_kind_name[impact_setup_of(seed).kind], r.asleep, r.shock, r.shock_late, r.shock_worst,
               r.step_late, r.contacts, r.collisions);
        fflush(stdout);
        shock_late += r.shock_late;
        step_late += r.step_late;
        passes += r.contacts + r.collisions;
        late_seeds += r.step_late > 0.1;
    }
    printf("energy first=%ld count=%ld shock_added_after_5s=%.3f step_rises_after_5s=%.3f "
           "seeds_rising_over_0.1J_after_5s=%ld contacts_and_collisions_added=%.3f\n",
           first, count, shock_late, step_late, late_seeds, passes);
    return 0;
}
