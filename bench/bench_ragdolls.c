/* SPDX-License-Identifier: MIT */
/* Ragdolls thrown at 20 m/s, judged by rates over seeds (docs/limits.md, Joints).
 *
 *   build/bench/bench_ragdolls [FIRST_SEED [COUNT [trace | energy | sleep [FROM]]]]   (defaults 7000 60)
 *
 * Each throw is the one of tests/unit/test_joint_tree.c (test_thrown_ragdolls) on its own
 * seed: joint trees on, a ragdoll at 2 to 4 m thrown at 20 m/s downwards by 11 to 57 degrees
 * with a sideways spread and its parts spinning, odd seeds against a wall 4 to 6 m away.
 * A throw runs until it sleeps or for 20 s (1 200 steps). Printed per throw: the step it fell
 * asleep (-1: never), the worst excess past a cone or twist range and past an elbow or knee
 * limit (degrees) and the widest joint gap (mm); then the rates and the p50, p90 and max of
 * the sleep step (a throw that never slept counts as later than any). With `trace`, every step
 * of each throw prints its worst excesses, gap and awake bodies (to see when a throw fails).
 * With `energy`, each throw is stepped through the step's stage table (qp__step_stages,
 * src/stages.h) and also prints the energy (kinetic, linear and angular, and potential, m g y,
 * of every dynamic body) that the collision, contact and shock passes added over the run (the
 * sum of their rises) and the most the whole energy rose above its start: a pass that solves
 * the joints and contacts in metrics that disagree shows here (a thrown ragdoll whose pinned
 * limb passes its limits gains kilojoules in the contact pass). With `sleep`, from step FROM
 * (default 600) on, every restart of a part's three-point sleep test is printed with its
 * cause: a contact of the part marked changed (the other body, the load it carried, and for a
 * round contact how far apart its friction anchors are across the normal and along it), or
 * else its boxes outgrown (what a throw that never sleeps keeps doing, docs/limits.md).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/joint.h"
#include "qphys/ragdoll.h"
#include "qphys/world.h"
#include "body.h"
#include "contact.h"
#include "stages.h"

#define STEPS 1200
#define NEVER 1000000

static qp_world world;

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }
static qp_vec3 V(double x, double y, double z) { return qp_v3(F(x), F(y), F(z)); }
static double deg(double rad) { return rad * 180 / 3.14159265358979323846; }

static uint32_t draw_state;
static double draw(void)   /* [0, 1): the unit test's linear congruential sequence */
{
    draw_state = draw_state * 1103515245u + 12345u;
    return (double)(draw_state >> 8) / (double)(1u << 24);
}

static int add_static(qp_body_def *b)
{
    qp_result r = QP_RESULT_COUNT;
    qp_create_body(&world, b, &r);
    return r == QP_OK;
}

typedef struct {
    int asleep;                 /* step, or -1 */
    double cone, hinge, gap;    /* degrees, degrees, m */
    double gained[3], rise;     /* energy added by the collision, contact and shock passes; most above the start (J) */
} throw_result;

static int trace, energy_mode, sleep_from = -1;

static const char *const part_name[QP_RAGDOLL_BODIES] = {
    "pelvis", "torso", "head", "left upper arm", "left forearm", "right upper arm", "right forearm",
    "left thigh", "left shin", "right thigh", "right shin"
};

/* The restarts of the parts' sleep tests in this step (still_steps back at 0 or 1), each with its cause. */
static void print_restarts(int step, const qp_body_id *parts, uint16_t *still_before)
{
    for (int k = 0; k < QP_RAGDOLL_BODIES; k++) {
        const int i = (int)parts[k].index;
        const uint16_t now = world.bodies[i].still_steps, before = still_before[k];
        still_before[k] = now;
        if (now == before + 1 || now > 1) continue;   /* counting on, or a new window (sleep.c) */
        bool told = false;
        for (int n = 0; n < world.contact_count; n++) {
            const qp_contact *c = &world.contacts[n];
            if (!(c->flags & QP_CONTACT_CHANGED) || (c->a != i && c->b != i)) continue;
            double load = 0;
            for (int p = 0; p < c->count; p++) load += D(c->p[p].jn);
            printf("  step %d: %s restarted: its contact with body %d changed (%.3f N s a step)", step, part_name[k],
                   c->a == i ? c->b : c->a, load);
            if (qp__contact_round(&world, c)) {
                const qp_body_state *a = &world.bodies[c->a], *b = &world.bodies[c->b];
                qp_rot3 ra = qp__body_rot(a), rb = qp__body_rot(b);
                qp_vec3 pa = qp_rot3_mul_v3(&ra, c->anchor_a), pb = qp_rot3_mul_v3(&rb, c->anchor_b);
                double d[3] = { D(b->x.x + pb.x - a->x.x - pa.x), D(b->x.y + pb.y - a->x.y - pa.y),
                                D(b->x.z + pb.z - a->x.z - pa.z) };
                double n3[3] = { c->n.x / 1073741824.0, c->n.y / 1073741824.0, c->n.z / 1073741824.0 };
                double along = d[0] * n3[0] + d[1] * n3[1] + d[2] * n3[2], across = 0;
                for (int x = 0; x < 3; x++) across += (d[x] - along * n3[x]) * (d[x] - along * n3[x]);
                printf(", anchors %.3f mm apart across the normal, %.1f mm along it", 1000 * sqrt(across), 1000 * along);
            }
            printf("\n");
            told = true;
        }
        if (!told) printf("  step %d: %s restarted: outgrew its boxes\n", step, part_name[k]);
    }
}

/* Kinetic (linear, and angular from the engine's inverse inertia) plus potential energy of
 * the dynamic bodies (J). */
static double energy(void)
{
    double e = 0;
    for (int i = 1; i <= world.body_high; i++) {
        const qp_body_state *b = &world.bodies[i];
        if (!qp__body_dynamic(b)) continue;
        double m = D(b->mass), a[3][3], w[3] = { D(b->w.x), D(b->w.y), D(b->w.z) };
        qp_mat3 ii = qp__body_inv_inertia(b);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) a[r][c] = D(ii.m[r][c]);
        /* w . I w: I w = x solves (I^-1) x = w (Cramer's rule). */
        double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
        double wiw = 0;
        for (int k = 0; k < 3 && det != 0; k++) {
            double t[3][3];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) t[r][c] = c == k ? w[r] : a[r][c];
            wiw += w[k] * (t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1]) - t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0]) +
                           t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0])) / det;
        }
        e += 0.5 * m * (D(b->v.x) * D(b->v.x) + D(b->v.y) * D(b->v.y) + D(b->v.z) * D(b->v.z)) + 0.5 * wiw -
             m * D(world.def.gravity.y) * D(b->x.y);
    }
    return e;
}

/* One step; in energy mode through the stage table, the velocity passes' energy read around
 * them (as qp_world_step, which runs the table unless nothing moves). */
static void step_once(throw_result *t, double start)
{
    bool moves = false;
    for (int i = 1; i <= world.body_high && !moves; i++)
        moves = qp__body_moves(&world.bodies[i]) || qp__body_drives(&world.bodies[i]);
    if (!energy_mode || !moves) {
        qp_world_step(&world);
    } else {
        world.stats.step++;
        for (int i = 0; i < qp__step_stage_count; i++) {
            void (*stage)(qp_world *) = qp__step_stages[i].run;
            int pass = stage == qp__solve_collisions ? 0 : stage == qp__solve_contacts ? 1 : stage == qp__shock ? 2 : -1;
            double e0 = pass >= 0 ? energy() : 0;
            stage(&world);
            if (pass < 0) continue;
            double rise = energy() - e0;
            if (rise > 0) t->gained[pass] += rise;
        }
    }
    if (energy_mode && energy() - start > t->rise) t->rise = energy() - start;
}

static int throw_once(uint32_t seed, throw_result *out)
{
    qp_world_def d = qp_default_world_def();
    d.joint_tree = true;
    if (qp_world_init(&world, &d) != QP_OK) return 0;
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    if (qp_make_plane(qp_v3(0, QP_Q30_ONE, 0), 0, &g.shapes[0]) != QP_OK || !add_static(&g)) return 0;
    draw_state = seed * 2654435761u + 1u;
    if (seed % 2) {
        qp_body_def w = qp_default_body_def();
        w.type = QP_BODY_STATIC;
        w.position = V(4 + 2 * draw(), 1.5, 0);
        w.shape_count = 1;
        if (qp_make_box(V(0.5, 1.5, 3), &w.shapes[0]) != QP_OK || !add_static(&w)) return 0;
    }
    qp_ragdoll_def rd = qp_default_ragdoll_def();
    rd.position = V(0, 2 + 2 * draw(), 0);
    qp_body_id parts[QP_RAGDOLL_BODIES];
    qp_result r;
    if (qp_create_ragdoll(&world, &rd, parts, &r) != QP_OK) return 0;
    double down = -0.2 - 0.8 * draw(), spin = 8 * draw();
    for (int k = 0; k < QP_RAGDOLL_BODIES; k++) {
        double side = (draw() - 0.5) * 4;
        if (qp_body_set_linear_velocity(&world, parts[k], V(20 * cos(down), 20 * sin(down), side)) != QP_OK) return 0;
        double wx = (draw() - 0.5) * spin, wy = (draw() - 0.5) * spin, wz = (draw() - 0.5) * spin;
        if (qp_body_set_angular_velocity(&world, parts[k], V(wx, wy, wz)) != QP_OK) return 0;
    }
    throw_result t = { -1, 0, 0, 0, { 0, 0, 0 }, 0 };
    uint16_t still_before[QP_RAGDOLL_BODIES] = { 0 };
    double start = energy_mode ? energy() : 0;
    for (int step = 0; step < STEPS && t.asleep < 0; step++) {
        step_once(&t, start);
        if (sleep_from >= 0 && step >= sleep_from) print_restarts(step, parts, still_before);
        double cone_now = 0, hinge_now = 0, gap_now = 0;
        for (int i = 1; i <= qp_world_joint_capacity(); i++) {
            qp_joint_id id = qp_world_joint_at(&world, i);
            if (qp_joint_id_is_null(id)) continue;
            double e = D(qp_joint_error(&world, id));
            if (e > t.gap) t.gap = e;
            if (e > gap_now) gap_now = e;
            fix16_t lo, hi, cone;
            if (!qp_joint_limits(&world, id, &lo, &hi, &cone)) continue;
            double tw = D(qp_joint_angle(&world, id));
            double out = tw > D(hi) ? deg(tw - D(hi)) : tw < D(lo) ? deg(D(lo) - tw) : 0;
            if (qp_joint_get_type(&world, id) == QP_JOINT_HINGE) {
                if (out > t.hinge) t.hinge = out;
                if (out > hinge_now) hinge_now = out;
                if (trace > 1 && (out > 1 || (i == 5 && trace > 2))) printf("    hinge %d: angle %.2f in [%.2f, %.2f]\n", i, deg(tw), deg(D(lo)), deg(D(hi)));
                continue;
            }
            double past_cone = deg(D(qp_joint_swing(&world, id)) - D(cone));
            if (past_cone > out) out = past_cone;
            if (out > t.cone) t.cone = out;
            if (out > cone_now) cone_now = out;
            if (trace > 1 && out > 1)
                printf("    joint %d: twist %.2f in [%.2f, %.2f], swing %.2f of %.2f deg\n", i, deg(tw), deg(D(lo)),
                       deg(D(hi)), deg(D(qp_joint_swing(&world, id))), deg(D(cone)));
        }
        if (trace > 3 && step >= STEPS - 60 && step % 6 == 0)
            for (int k = 0; k < QP_RAGDOLL_BODIES; k++) {
                qp_vec3 v = qp_body_linear_velocity(&world, parts[k]), wv = qp_body_angular_velocity(&world, parts[k]);
                qp_vec3 x = qp_body_position(&world, parts[k]);
                printf("    body %d at (%.3f %.3f %.3f): v (%.4f %.4f %.4f) w (%.4f %.4f %.4f)\n", k, D(x.x), D(x.y), D(x.z),
                       D(v.x), D(v.y), D(v.z), D(wv.x), D(wv.y), D(wv.z));
            }
        if (trace)
            printf("  step %d: cone %.2f deg, elbow or knee %.2f deg, gap %.2f mm, awake %d\n", step, cone_now, hinge_now,
                   1000 * gap_now, qp_world_get_stats(&world).awake);
        if (qp_world_get_stats(&world).awake == 0) t.asleep = step;
    }
    *out = t;
    return 1;
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long first = argc > 1 ? strtol(argv[1], 0, 10) : 7000, count = argc > 2 ? strtol(argv[2], 0, 10) : 60;
    energy_mode = argc > 3 && strcmp(argv[3], "energy") == 0;
    if (argc > 3 && strcmp(argv[3], "sleep") == 0) sleep_from = argc > 4 ? (int)strtol(argv[4], 0, 10) : 600;
    trace = argc > 3 && !energy_mode && sleep_from < 0 ? (int)strtol(argv[3], 0, 10) : 0;
    if (first < 0 || count < 1 || count > 10000) {
        fprintf(stderr, "usage: bench_ragdolls [FIRST_SEED [COUNT (1..10000) [trace N | energy | sleep [FROM]]]]\n");
        return 2;
    }
    static int sleep_steps[10000];
    int slept = 0, cones = 0, gaps = 0, slept_wall = 0, hinges = 0;
    double worst_cone = 0, worst_hinge = 0, worst_gap = 0;
    for (long n = 0; n < count; n++) {
        uint32_t seed = (uint32_t)(first + n);
        throw_result t;
        if (!throw_once(seed, &t)) {
            fprintf(stderr, "throw %u: the scene was refused\n", (unsigned)seed);
            return 1;
        }
        printf("throw %u%s: asleep at step %d, past a cone %.2f deg, past an elbow or knee %.2f deg, gap %.2f mm\n",
               (unsigned)seed, seed % 2 ? " (wall)" : "", t.asleep, t.cone, t.hinge, 1000 * t.gap);
        if (energy_mode)
            printf("  energy added by the collision pass %.1f J, the contact pass %.1f J, the shock pass %.1f J; "
                   "most above the start %.1f J\n", t.gained[0], t.gained[1], t.gained[2], t.rise);
        fflush(stdout);
        sleep_steps[n] = t.asleep < 0 ? NEVER : t.asleep;
        slept += t.asleep >= 0;
        slept_wall += t.asleep >= 0 && seed % 2;
        cones += t.cone < 2;
        gaps += t.gap < 0.01;
        hinges += t.hinge < 2;
        if (t.cone > worst_cone) worst_cone = t.cone;
        if (t.hinge > worst_hinge) worst_hinge = t.hinge;
        if (t.gap > worst_gap) worst_gap = t.gap;
    }
    qsort(sleep_steps, (size_t)count, sizeof sleep_steps[0], by_value);
    int at[3] = { sleep_steps[count / 2], sleep_steps[count * 9 / 10], sleep_steps[count - 1] };
    char text[3][16];
    for (int k = 0; k < 3; k++) {
        if (at[k] == NEVER) snprintf(text[k], sizeof text[k], "never");
        else snprintf(text[k], sizeof text[k], "%d", at[k]);
    }
    printf("%ld throws (seeds %ld..%ld): %d asleep within 20 s (%d of them against a wall); sleep step p50 %s, "
           "p90 %s, max %s; %d within 2 deg of their cones (worst %.2f deg); %d with every joint within 1 cm "
           "(worst %.2f mm); %d with elbows and knees within 2 deg (worst %.2f deg)\n",
           count, first, first + count - 1, slept, slept_wall, text[0], text[1], text[2], cones, worst_cone, gaps,
           1000 * worst_gap, hinges, worst_hinge);
    return 0;
}
