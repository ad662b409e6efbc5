/* SPDX-License-Identifier: MIT */
/* bench/impacts.h - a struck structure from a seed, and how it comes to rest: shared by
 * bench/bench_impacts.c (hundreds of seeds) and tests/unit/test_impacts.c (a fast subset).
 * Host tools: floats allowed here, never in the core.
 *
 * Seed s builds one of four structures of unit cubes (1 kg, friction 0.5) on a ground plane:
 *   wall     a pyramid wall, one cube deep: rows of n, n-1, ... 1 (n 6..19: 21..190 cubes)
 *   pyramid  a square pyramid: layers of n x n, (n-1) x (n-1), ... (n 4..7: 30..140 cubes)
 *   tower    m x m columns of h cubes (m 2..4, 20..200 cubes)
 *   pile     N cubes (20..200) dropped in layers, each turned; struck once it has fallen (2 s)
 * and throws one projectile at it: a ball (radius 0.2..0.5 m) or a box (half 0.15..0.4 m) of
 * 1..100 kg at 2..30 m/s, from 4 m before the structure's face, aimed at a random height and
 * sideways offset on it, turned by up to 30 degrees about the vertical and tilted -10..+20
 * degrees. The numbers come from a small xorshift generator seeded by s, so every seed is one
 * fixed scene on every machine.
 *
 * impact_run steps it with sleep on and reads, for the structure's cubes (not the projectile,
 * which may roll away on the plane forever):
 *   asleep   the first step at which every cube sleeps (-1: not within the steps run);
 *   buzz     the first step after 5 s at which a cube "buzzes": in the second before, its centre
 *            stayed within a 2 mm box while its velocity reversed at least 6 times (the dot
 *            product of two successive velocities negative, both over 5 cm/s): a vibration,
 *            not the one knock of a neighbour landing, which rings down in a reversal or two
 *            (-1: never);
 *   (a projectile more than 12 m from the middle, sideways, is taken away: a ball rolls on the
 *   plane forever, and one pushing a cube before it would keep that cube awake)
 *   sunk     cubes whose centre went more than 5 cm below their resting height (0.5 m) at any
 *            step: through the ground.
 */
#ifndef QPHYS_BENCH_IMPACTS_H
#define QPHYS_BENCH_IMPACTS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "qphys/qphys.h"

#define IMPACT_MAX_CUBES 200
#define IMPACT_WINDOW 60      /* steps in the buzz window: one second at 60 Hz */
#define IMPACT_BUZZ_FLIPS 6   /* reversals within it that make a vibration (3 Hz or more) */

typedef enum { IMPACT_WALL, IMPACT_PYRAMID, IMPACT_TOWER, IMPACT_PILE, IMPACT_KINDS } impact_kind;

static const char *const impact_kind_name[IMPACT_KINDS] = { "wall", "pyramid", "tower", "pile" };

typedef struct {
    impact_kind kind;
    int size;             /* wall, pyramid: the base row; tower: columns per side; pile: cubes */
    int height;           /* tower: cubes per column */
    bool ball;            /* projectile: ball, else box */
    double radius;        /* ball radius or box half extent, m */
    double mass;          /* kg */
    double speed;         /* m/s */
    double aim_height;    /* m above the ground, on the structure */
    double aim_side;      /* m sideways from its middle */
    double yaw, pitch;    /* radians */
    int launch_step;      /* the step the projectile is thrown at (a pile falls first) */
} impact_setup;

typedef struct {
    int cubes;
    int asleep;           /* first step with every cube asleep, -1: none */
    int buzz;             /* first step after 5 s at which a cube buzzed, -1: none */
    int buzz_cube;        /* which (index in the structure) */
    int sunk;             /* cubes more than 5 cm into the ground */
    int awake_at_end;     /* cubes awake at the last step run */
} impact_result;

typedef struct {
    qp_body_id cubes[IMPACT_MAX_CUBES];
    int count;
    qp_body_id projectile;
    /* buzz tracking, per cube: the last IMPACT_WINDOW centres and whether each step reversed */
    float at[IMPACT_MAX_CUBES][IMPACT_WINDOW][3];
    unsigned char flip[IMPACT_MAX_CUBES][IMPACT_WINDOW];
    qp_vec3 v_before[IMPACT_MAX_CUBES];
} impact_scene;

static uint32_t impact_next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Uniform in [lo, hi). */
static double impact_uniform(uint32_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(impact_next(s) >> 8) / 16777216.0;
}

static int impact_int(uint32_t *s, int lo, int hi)   /* lo..hi inclusive */
{
    return lo + (int)(impact_next(s) % (uint32_t)(hi - lo + 1));
}

static fix16_t impact_fix(double x)
{
    return (fix16_t)(x * 65536.0 + (x < 0 ? -0.5 : 0.5));
}

static double impact_dbl(fix16_t x)
{
    return x / 65536.0;
}

/* The scene of seed `seed`. */
static inline impact_setup impact_setup_of(unsigned seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (int i = 0; i < 4; i++) impact_next(&s);
    impact_setup u;
    memset(&u, 0, sizeof u);
    u.kind = (impact_kind)(seed % IMPACT_KINDS);
    double top = 1;
    switch (u.kind) {
    case IMPACT_WALL:
        u.size = impact_int(&s, 6, 19);
        top = u.size;
        break;
    case IMPACT_PYRAMID:
        u.size = impact_int(&s, 4, 7);
        top = u.size;
        break;
    case IMPACT_TOWER:
        u.size = impact_int(&s, 2, 4);
        u.height = impact_int(&s, (20 + u.size * u.size - 1) / (u.size * u.size), 200 / (u.size * u.size));
        if (u.height > 14) u.height = 14;
        top = u.height;
        break;
    default:
        u.size = impact_int(&s, 20, 200);
        top = 2;
        u.launch_step = 120;
        break;
    }
    u.ball = (impact_next(&s) & 1) != 0;
    u.radius = u.ball ? impact_uniform(&s, 0.2, 0.5) : impact_uniform(&s, 0.15, 0.4);
    u.mass = exp(impact_uniform(&s, log(1.0), log(100.0)));
    u.speed = impact_uniform(&s, 2, 30);
    u.aim_height = impact_uniform(&s, 0.1, 0.7) * top;
    /* sideways within the structure's width at that height (a wall's or pyramid's narrows) */
    double width = u.kind == IMPACT_TOWER ? u.size : u.kind == IMPACT_PILE ? 7 : top - u.aim_height;
    u.aim_side = impact_uniform(&s, -0.4, 0.4) * (width > 1 ? width : 1);
    u.yaw = impact_uniform(&s, -0.52, 0.52);
    u.pitch = impact_uniform(&s, -0.17, 0.35);
    return u;
}

static bool impact_cube(qp_world *w, impact_scene *sc, double x, double y, double z, const qp_quat *turn)
{
    if (sc->count >= IMPACT_MAX_CUBES) return false;
    qp_result err = QP_OK;
    qp_body_def b = qp_default_body_def();
    b.position = qp_v3(impact_fix(x), impact_fix(y), impact_fix(z));
    if (turn) b.rotation = *turn;
    b.mass = QP_ONE;
    b.friction = impact_fix(0.5);
    b.shape_count = 1;
    if (qp_make_box(qp_v3(QP_ONE / 2, QP_ONE / 2, QP_ONE / 2), &b.shapes[0]) != QP_OK) return false;
    sc->cubes[sc->count++] = qp_create_body(w, &b, &err);
    return err == QP_OK;
}

/* The projectile's def: a ball or cube of u's mass and size, 4 m before the aim point
 * (aim_side, aim_height, aim_z) along the throw and moving along it at u's speed, kept
 * above the ground. */
static inline bool impact_projectile_def(const impact_setup *u, double aim_z, qp_body_def *p)
{
    *p = qp_default_body_def();
    p->mass = impact_fix(u->mass);
    p->friction = impact_fix(0.5);
    p->shape_count = 1;
    if (u->ball ? qp_make_sphere(impact_fix(u->radius), &p->shapes[0]) != QP_OK
                : qp_make_box(qp_v3(impact_fix(u->radius), impact_fix(u->radius), impact_fix(u->radius)),
                              &p->shapes[0]) != QP_OK)
        return false;
    double dx = -sin(u->yaw) * cos(u->pitch), dy = -sin(u->pitch), dz = -cos(u->yaw) * cos(u->pitch);
    double sx = u->aim_side - 4 * dx, sy = u->aim_height - 4 * dy, sz = aim_z - 4 * dz;
    if (sy < u->radius + 0.05) sy = u->radius + 0.05;
    p->position = qp_v3(impact_fix(sx), impact_fix(sy), impact_fix(sz));
    p->linear_velocity = qp_v3(impact_fix(dx * u->speed), impact_fix(dy * u->speed), impact_fix(dz * u->speed));
    return true;
}

/* Builds seed's scene in w (sleep on, or off); the projectile waits out of reach until
 * launch_step when that is not 0 (impact_step throws it). */
static inline bool impact_build(qp_world *w, impact_scene *sc, const impact_setup *u, bool sleep)
{
    memset(sc, 0, sizeof *sc);
    qp_world_def def = qp_default_world_def();
    def.sleep_enabled = sleep;
    if (qp_world_init(w, &def) != QP_OK) return false;
    qp_result err = QP_OK;
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.friction = impact_fix(0.5);
    g.shape_count = 1;
    if (qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]) != QP_OK) return false;
    qp_create_body(w, &g, &err);
    if (err != QP_OK) return false;
    /* The structure stands with its face at z = 0, the projectile comes from +z. */
    double face = 0;
    switch (u->kind) {
    case IMPACT_WALL:
        for (int r = 0; r < u->size; r++)
            for (int i = 0; i < u->size - r; i++)
                if (!impact_cube(w, sc, (i - (u->size - r - 1) * 0.5) * 1.0, 0.5 + r, -0.5, NULL)) return false;
        break;
    case IMPACT_PYRAMID:
        for (int r = 0; r < u->size; r++) {
            int n = u->size - r;
            for (int i = 0; i < n; i++)
                for (int k = 0; k < n; k++)
                    if (!impact_cube(w, sc, i - (n - 1) * 0.5, 0.5 + r, -0.5 - k - r * 0.5, NULL)) return false;
        }
        break;
    case IMPACT_TOWER:
        for (int r = 0; r < u->height; r++)
            for (int i = 0; i < u->size; i++)
                for (int k = 0; k < u->size; k++)
                    if (!impact_cube(w, sc, i - (u->size - 1) * 0.5, 0.5 + r, -0.5 - k, NULL)) return false;
        break;
    default: {
        int per_layer = 25;   /* 5 x 5 at 1.5 m, layers 1.2 m apart, each cube turned */
        for (int i = 0; i < u->size; i++) {
            int layer = i / per_layer, j = i % per_layer;
            double turn = ((unsigned)(u->size * 37 + i * 53) % 360u) * 3.14159265358979 / 180;
            qp_quat q;
            if (!qp_quat_from_axis_angle(qp_v3(QP_ONE, QP_ONE, QP_ONE), impact_fix(turn), &q)) return false;
            if (!impact_cube(w, sc, -3 + 1.5 * (j % 5) + 0.4 * (layer % 2), 1 + 1.2 * layer,
                             -0.5 - 1.5 * (j / 5), &q))
                return false;
        }
        face = 0;
        break;
    }
    }
    (void)face;
    qp_body_def p;
    /* 4 m before the face along the throw, aimed at (aim_side, aim_height, 0). */
    if (!impact_projectile_def(u, 0.0, &p)) return false;
    if (u->launch_step != 0) {
        p.type = QP_BODY_KINEMATIC;   /* held still out of reach until launch_step */
        p.linear_velocity = qp_v3(0, 0, 0);
        p.position.y = impact_fix(30);
        p.position.z = impact_fix(30);
    }
    sc->projectile = qp_create_body(w, &p, &err);
    return err == QP_OK;
}

/* Removes the held projectile and throws a dynamic one in its place (a pile, once fallen). */
static inline bool impact_launch(qp_world *w, impact_scene *sc, const impact_setup *u)
{
    if (qp_destroy_body(w, sc->projectile) != QP_OK) return false;
    qp_result err = QP_OK;
    qp_body_def p;
    if (!impact_projectile_def(u, 1.0, &p)) return false;   /* the pile's face: z ~ 0.5 */
    sc->projectile = qp_create_body(w, &p, &err);
    return err == QP_OK;
}

/* The energy of the scene's dynamic bodies, J: kinetic (linear and angular) and, unless
 * kinetic_only, potential (m g y, g = 10 as the world's). Every body here is of cubic
 * symmetry (unit cubes of 1 kg, a ball or a box projectile), so its inertia is the same about
 * every axis. */
static inline double impact_energy(const qp_world *w, const impact_scene *sc, const impact_setup *u,
                                   bool kinetic_only)
{
    double e = 0;
    for (int i = 0; i <= sc->count; i++) {
        qp_body_id id = i < sc->count ? sc->cubes[i] : sc->projectile;
        if (qp_body_id_is_null(id) || qp_body_get_type(w, id) != QP_BODY_DYNAMIC) continue;
        double m = impact_dbl(qp_body_mass(w, id));
        double inertia = i < sc->count ? m / 6 : u->ball ? 0.4 * m * u->radius * u->radius
                                                         : (2.0 / 3) * m * u->radius * u->radius;
        qp_vec3 v = qp_body_linear_velocity(w, id), a = qp_body_angular_velocity(w, id);
        double vx = impact_dbl(v.x), vy = impact_dbl(v.y), vz = impact_dbl(v.z);
        double ax = impact_dbl(a.x), ay = impact_dbl(a.y), az = impact_dbl(a.z);
        e += 0.5 * m * (vx * vx + vy * vy + vz * vz) + 0.5 * inertia * (ax * ax + ay * ay + az * az);
        if (!kinetic_only) e += 10.0 * m * impact_dbl(qp_body_position(w, id).y);
    }
    return e;
}

/* Runs seed's scene for `steps` steps with sleep on (stopping early once every cube sleeps,
 * when stop_asleep) and reads the result. */
static inline bool impact_run_setup(qp_world *w, impact_scene *sc, impact_setup u, int steps, bool stop_asleep,
                             impact_result *out)
{
    if (!impact_build(w, sc, &u, true)) return false;
    memset(out, 0, sizeof *out);
    out->cubes = sc->count;
    out->asleep = out->buzz = out->buzz_cube = -1;
    static unsigned char sunk[IMPACT_MAX_CUBES];
    memset(sunk, 0, sizeof sunk);
    for (int s = 1; s <= steps; s++) {
        if (u.launch_step && s == u.launch_step && !impact_launch(w, sc, &u)) return false;
        qp_world_step(w);
        /* A projectile that left the structure is taken away: on the frictionless-rolling plane
         * a ball would roll on forever, pushing a cube before it. */
        if (!qp_body_id_is_null(sc->projectile) && qp_body_get_type(w, sc->projectile) == QP_BODY_DYNAMIC) {
            qp_vec3 p = qp_body_position(w, sc->projectile);
            if (fabs(impact_dbl(p.x)) > 12 || fabs(impact_dbl(p.z)) > 12) {
                if (qp_destroy_body(w, sc->projectile) != QP_OK) return false;
                sc->projectile = qp_null_body();
            }
        }
        int awake = 0;
        for (int i = 0; i < sc->count; i++) {
            qp_body_id id = sc->cubes[i];
            awake += qp_body_is_awake(w, id);
            qp_vec3 c = qp_body_position(w, id), v = qp_body_linear_velocity(w, id);
            if (impact_dbl(c.y) < 0.45) sunk[i] = 1;
            int slot = s % IMPACT_WINDOW;
            sc->at[i][slot][0] = (float)impact_dbl(c.x);
            sc->at[i][slot][1] = (float)impact_dbl(c.y);
            sc->at[i][slot][2] = (float)impact_dbl(c.z);
            double vx = impact_dbl(v.x), vy = impact_dbl(v.y), vz = impact_dbl(v.z);
            qp_vec3 b = sc->v_before[i];
            double bx = impact_dbl(b.x), by = impact_dbl(b.y), bz = impact_dbl(b.z);
            double dot = vx * bx + vy * by + vz * bz, sv = vx * vx + vy * vy + vz * vz,
                   sb = bx * bx + by * by + bz * bz;
            sc->flip[i][slot] = dot < 0 && sv > 0.05 * 0.05 && sb > 0.05 * 0.05;
            sc->v_before[i] = v;
            if (out->buzz < 0 && s > 300 + IMPACT_WINDOW) {
                float lo[3], hi[3];
                int flips = 0;
                for (int d = 0; d < 3; d++) lo[d] = hi[d] = sc->at[i][0][d];
                for (int k = 0; k < IMPACT_WINDOW; k++) {
                    flips += sc->flip[i][k];
                    for (int d = 0; d < 3; d++) {
                        float x = sc->at[i][k][d];
                        lo[d] = x < lo[d] ? x : lo[d];
                        hi[d] = x > hi[d] ? x : hi[d];
                    }
                }
                if (flips >= IMPACT_BUZZ_FLIPS && hi[0] - lo[0] <= 0.002f && hi[1] - lo[1] <= 0.002f && hi[2] - lo[2] <= 0.002f) {
                    out->buzz = s;
                    out->buzz_cube = i;
                }
            }
        }
        out->awake_at_end = awake;
        if (awake == 0 && out->asleep < 0) {
            out->asleep = s;
            if (stop_asleep) break;
        }
        if (awake > 0) out->asleep = -1;   /* woken again: the first step of the final sleep counts */
    }
    for (int i = 0; i < sc->count; i++) out->sunk += sunk[i];
    return true;
}

static inline bool impact_run(qp_world *w, impact_scene *sc, unsigned seed, int steps, bool stop_asleep, impact_result *out)
{
    return impact_run_setup(w, sc, impact_setup_of(seed), steps, stop_asleep, out);
}

#endif
