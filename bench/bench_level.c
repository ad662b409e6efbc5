/* SPDX-License-Identifier: MIT */
/* bench/bench_level.c - level geometry on the host: ray casts on a large mesh, and what a
 * contact costs on a heightfield against a mesh of the same triangles.
 *
 *   bench_level [--repeat R] [--rays N] [--steps S]
 *
 * 1. Rays: a 100 352-triangle mesh (224 x 224 cells of 0.5 m, two triangles each, gentle
 *    bumps: 112 m square) and N rays (default 1000) of three kinds in turn: straight down
 *    from 5 m above (20 m long), slanted across it (10 to 60 m long, a long walk through the
 *    tree), and above it pointing up or along it (misses). Each ray is timed alone, R times
 *    (default 5), keeping its fastest; reported: mean and max microseconds per ray through
 *    qp_level_raycast (the shape) and qp_world_raycast (a world holding only the mesh), and
 *    same=yes when every qp_level_raycast answer (hit or not, distance, triangle) is the
 *    one testing every triangle gives (qp_raycast_triangle, nearest, ties to the lower index).
 *      qphys-level-rays tris=.. rays=.. hits=.. shape_mean_us=.. shape_max_us=.. world_mean_us=..
 *                       world_max_us=.. brute_mean_us=.. same=yes|NO
 * 2. Contacts: a 100 x 100-cell terrain (10 000 cells of 1 m, rolling waves), once as a
 *    heightfield and once as a mesh of the same 20 000 triangles (the same diagonals), with
 *    the same 200 boxes and spheres dropped on it (sleep off), S steps (default 300), each
 *    step's fastest of R runs. Reported per shape: microseconds per step, contact manifolds
 *    and points per step (means), and microseconds per manifold (the step's time over its
 *    manifolds: the same bodies and solver in both, so the difference is the level's).
 *      qphys-level-contacts shape=heightfield|mesh cells=.. tris=.. bodies=.. steps=.. us_step=..
 *                           contacts=.. points=.. us_per_contact=.. hash=..
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/mesh.h"
#include "qphys/world.h"
#include "bench_clock.h"

static int repeats = 5;

static fix16_t fx(double v) { return (fix16_t)lround(v * 65536.0); }

/* ---- a grid of triangles ---------------------------------------------------------------- */

/* (n + 1)^2 vertices at spacing s from the origin, heights h(i, j); each cell (i, j) two
 * triangles split from (i, j) to (i + 1, j + 1) as a heightfield splits it, counter-clockwise
 * seen from +y. Row i along +z, column j along +x. */
static uint32_t grid(qp_vec3 *v, uint32_t *idx, int n, double s, double (*h)(int, int))
{
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++) v[i * (n + 1) + j] = qp_v3(fx(j * s), fx(h(i, j)), fx(i * s));
    uint32_t t = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t a = (uint32_t)(i * (n + 1) + j), b = a + 1, c = a + (uint32_t)(n + 1), d = c + 1;
            uint32_t q[6] = { a, c, d, a, d, b };
            memcpy(idx + 3 * t, q, sizeof q);
            t += 2;
        }
    return t;
}

static double bumps(int i, int j) { return 0.4 * sin(i * 0.21) * cos(j * 0.17) + 0.1 * sin((i + 2 * j) * 0.05); }
static double waves(int i, int j) { return 0.6 * sin(i * 0.13) * cos(j * 0.11); }

/* ---- 1. rays -------------------------------------------------------------------------------- */

#define BIG_N 224
#define BIG_TRIS (2 * BIG_N * BIG_N)
static qp_vec3 big_v[(BIG_N + 1) * (BIG_N + 1)];
static uint32_t big_i[3 * BIG_TRIS];
static uint32_t big_mem[QP_MESH_MEMORY_SIZE(BIG_TRIS) / 4 + 1];
static qp_level_triangle all_tris[BIG_TRIS];
static uint32_t n_all;

static int collect(void *ctx, const qp_level_triangle *t)
{
    (void)ctx;
    all_tris[n_all++] = *t;
    return 0;
}

/* Testing every triangle: the nearest hit, ties to the lower triangle index. */
static bool brute(qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, uint32_t *tri)
{
    bool found = false;
    for (uint32_t k = 0; k < n_all; k++) {
        fix16_t d;
        qp_vec3 nn;
        if (!qp_raycast_triangle(&all_tris[k], o, u, len, &d, &nn)) continue;
        if (found && (d > *dist || (d == *dist && all_tris[k].index > *tri))) continue;
        *dist = d;
        *tri = all_tris[k].index;
        found = true;
    }
    return found;
}

static uint32_t rng = 2463534242u;
static double urand(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (double)rng / 4294967296.0;
}

typedef struct {
    qp_vec3 o, u;
    fix16_t len;
} ray;

static void run_rays(int n_rays)
{
    uint32_t n = grid(big_v, big_i, BIG_N, 0.5, bumps);
    qp_mesh mesh;
    long bad;
    if (qp_mesh_build(&mesh, big_v, (BIG_N + 1) * (BIG_N + 1), big_i, n, big_mem, sizeof big_mem, &bad) != QP_OK) {
        printf("qphys-level-rays error=mesh-build\n");
        return;
    }
    qp_shape shape;
    if (qp_make_mesh_shape(&mesh, &shape) != QP_OK) return;
    qp_aabb box = { qp_v3(QP_INT(-10), QP_INT(-10), QP_INT(-10)), qp_v3(QP_INT(200), QP_INT(10), QP_INT(200)) };
    n_all = 0;
    qp_level_query(&shape, &box, collect, NULL);

    static qp_world world;
    qp_world_def wd = qp_default_world_def();
    if (qp_world_init(&world, &wd) != QP_OK) return;
    qp_body_def bd = qp_default_body_def();
    bd.type = QP_BODY_STATIC;
    bd.shape_count = 1;
    bd.shapes[0] = shape;
    qp_result r;
    qp_create_body(&world, &bd, &r);
    if (r != QP_OK) {
        printf("qphys-level-rays error=body\n");
        return;
    }

    ray *rays = malloc(sizeof *rays * (size_t)n_rays);
    if (!rays) return;
    const double side = BIG_N * 0.5;
    for (int k = 0; k < n_rays; k++) {
        double o[3], d[3], len;
        switch (k % 3) {
        case 0:   /* straight down */
            o[0] = urand(0, side), o[1] = 5, o[2] = urand(0, side);
            d[0] = 0, d[1] = -1, d[2] = 0, len = 20;
            break;
        case 1:   /* slanted, long */
            o[0] = urand(0, side), o[1] = urand(1, 8), o[2] = urand(0, side);
            d[0] = urand(-1, 1), d[1] = urand(-0.3, -0.02), d[2] = urand(-1, 1), len = urand(10, 60);
            break;
        default:  /* above, pointing up or along the surface: misses */
            o[0] = urand(0, side), o[1] = urand(1, 3), o[2] = urand(0, side);
            d[0] = urand(-1, 1), d[1] = urand(0, 0.5), d[2] = urand(-1, 1), len = urand(5, 60);
            break;
        }
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        qp_vec3 u;
        if (!qp_v3_normalize_q30(qp_v3(fx(d[0] / l), fx(d[1] / l), fx(d[2] / l)), &u)) u = qp_v3(0, -QP_Q30_ONE, 0);
        rays[k].o = qp_v3(fx(o[0]), fx(o[1]), fx(o[2]));
        rays[k].u = u;
        rays[k].len = fx(len);
    }

    double sum_shape = 0, max_shape = 0, sum_world = 0, max_world = 0, sum_brute = 0;
    int hits = 0;
    bool same = true;
    for (int k = 0; k < n_rays; k++) {
        const ray *y = &rays[k];
        /* delta = u * len for the world's call (u is Q2.30). */
        qp_vec3 delta = qp_v3((fix16_t)(((int64_t)y->u.x * y->len) >> 30), (fix16_t)(((int64_t)y->u.y * y->len) >> 30),
                              (fix16_t)(((int64_t)y->u.z * y->len) >> 30));
        double t_shape = 0, t_world = 0;
        fix16_t dist = 0;
        qp_vec3 nn;
        uint32_t tri = 0;
        bool hit = false;
        for (int rep = 0; rep < repeats; rep++) {
            double t0 = bench_now_us();
            hit = qp_level_raycast(&shape, y->o, y->u, y->len, &dist, &nn, &tri);
            double t1 = bench_now_us();
            qp_world_ray_hit wh;
            (void)qp_world_raycast(&world, y->o, delta, &wh);
            double t2 = bench_now_us();
            bench_keep_min(&t_shape, t1 - t0, rep);
            bench_keep_min(&t_world, t2 - t1, rep);
        }
        sum_shape += t_shape;
        sum_world += t_world;
        if (t_shape > max_shape) max_shape = t_shape;
        if (t_world > max_world) max_world = t_world;
        hits += hit;
        fix16_t bd_dist = 0;
        uint32_t bd_tri = 0;
        double t0 = bench_now_us();
        bool bhit = brute(y->o, y->u, y->len, &bd_dist, &bd_tri);
        sum_brute += bench_now_us() - t0;
        if (bhit != hit || (hit && (bd_dist != dist || bd_tri != tri))) same = false;
    }
    printf("qphys-level-rays tris=%u rays=%d hits=%d shape_mean_us=%.2f shape_max_us=%.2f world_mean_us=%.2f "
           "world_max_us=%.2f brute_mean_us=%.0f same=%s\n",
           n, n_rays, hits, sum_shape / n_rays, max_shape, sum_world / n_rays, max_world, sum_brute / n_rays,
           same ? "yes" : "NO");
    fflush(stdout);
    free(rays);
}

/* ---- 2. contacts ------------------------------------------------------------------------------ */

#define TN 100                         /* cells per side */
#define TTRIS (2 * TN * TN)
#define N_BODIES 200
#define MAX_STEPS 2000
static qp_vec3 t_v[(TN + 1) * (TN + 1)];
static uint32_t t_i[3 * TTRIS];
static uint32_t t_mem[QP_MESH_MEMORY_SIZE(TTRIS) / 4 + 1];
static fix16_t t_h[(TN + 1) * (TN + 1)];
static qp_world cw;
static double step_us[MAX_STEPS];

/* The terrain (one static body) and N_BODIES boxes and spheres in a grid above it. */
static bool build_contacts(const qp_shape *level)
{
    qp_world_def wd = qp_default_world_def();
    wd.sleep_enabled = false;
    if (qp_world_init(&cw, &wd) != QP_OK) return false;
    qp_body_def d = qp_default_body_def();
    d.type = QP_BODY_STATIC;
    d.shape_count = 1;
    d.shapes[0] = *level;
    qp_result r;
    qp_create_body(&cw, &d, &r);
    if (r != QP_OK) return false;
    for (int k = 0; k < N_BODIES; k++) {
        qp_body_def b = qp_default_body_def();
        b.position = qp_v3(fx(5 + 6.3 * (k % 15) + 0.1 * (k % 7)), fx(2.5 + 0.3 * (k % 5)), fx(5 + 6.7 * (k / 15)));
        b.shape_count = 1;
        b.friction = QP_FRAC(1, 2);
        qp_result s = k % 2 ? qp_make_sphere(QP_FRAC(2, 5), &b.shapes[0])
                            : qp_make_box(qp_v3(QP_FRAC(2, 5), QP_FRAC(3, 10), QP_FRAC(2, 5)), &b.shapes[0]);
        if (s != QP_OK) return false;
        b.linear_velocity = qp_v3(fx(0.5 * ((k % 3) - 1)), 0, fx(0.4 * ((k % 5) - 2)));
        qp_create_body(&cw, &b, &r);
        if (r != QP_OK) return false;
    }
    return true;
}

static void run_contacts(int steps)
{
    if (steps > MAX_STEPS) steps = MAX_STEPS;
    uint32_t n = grid(t_v, t_i, TN, 1.0, waves);
    for (int i = 0; i <= TN; i++)
        for (int j = 0; j <= TN; j++) t_h[i * (TN + 1) + j] = t_v[i * (TN + 1) + j].y;
    qp_mesh mesh;
    qp_heightfield field;
    long bad;
    qp_shape shapes[2];
    if (qp_heightfield_init(&field, t_h, TN + 1, TN + 1, QP_ONE) != QP_OK ||
        qp_make_heightfield_shape(&field, &shapes[0]) != QP_OK ||
        qp_mesh_build(&mesh, t_v, (TN + 1) * (TN + 1), t_i, n, t_mem, sizeof t_mem, &bad) != QP_OK ||
        qp_make_mesh_shape(&mesh, &shapes[1]) != QP_OK) {
        printf("qphys-level-contacts error=build\n");
        return;
    }
    static const char *const names[2] = { "heightfield", "mesh" };
    for (int s = 0; s < 2; s++) {
        double contacts = 0, points = 0;
        uint32_t hash = 0;
        for (int rep = 0; rep < repeats; rep++) {
            if (!build_contacts(&shapes[s])) {
                printf("qphys-level-contacts shape=%s error=build\n", names[s]);
                return;
            }
            contacts = points = 0;
            for (int k = 0; k < steps; k++) {
                double t0 = bench_now_us();
                qp_world_step(&cw);
                bench_keep_min(&step_us[k], bench_now_us() - t0, rep);
                qp_world_stats st = qp_world_get_stats(&cw);
                contacts += st.contacts;
                points += st.points;
            }
            hash = qp_world_hash(&cw);
        }
        double total = 0;
        for (int k = 0; k < steps; k++) total += step_us[k];
        printf("qphys-level-contacts shape=%s cells=%d tris=%u bodies=%d steps=%d us_step=%.1f contacts=%.1f "
               "points=%.1f us_per_contact=%.3f hash=%08x\n",
               names[s], TN * TN, n, N_BODIES, steps, total / steps, contacts / steps, points / steps,
               contacts > 0 ? total / contacts : 0.0, (unsigned)hash);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int rays = 1000, steps = 300;
    for (int i = 1; i < argc; i++) {
        long v = i + 1 < argc ? bench_number(argv[i + 1], 1, 100000) : -1;
        if (!strcmp(argv[i], "--repeat") && v > 0 && v <= 100) repeats = (int)v, i++;
        else if (!strcmp(argv[i], "--rays") && v > 0) rays = (int)v, i++;
        else if (!strcmp(argv[i], "--steps") && v > 0 && v <= MAX_STEPS) steps = (int)v, i++;
        else {
            fprintf(stderr, "usage: %s [--repeat R] [--rays N] [--steps S]\n", argv[0]);
            return 2;
        }
    }
    run_rays(rays);
    run_contacts(steps);
    return 0;
}
