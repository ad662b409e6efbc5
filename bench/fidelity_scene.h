/* SPDX-License-Identifier: MIT */
/* bench/fidelity_scene.h - a scene file as both fidelity tracers see it (C and C++).
 *
 * bench/fidelity_qphys.c (qphys) and bullet_bench --file (Bullet 3.24) read the same
 * scene file through qphys's own reader (qp_scene_next), so both engines start from the
 * same bodies: every number is the Q16.16 (or Q2.30) value qphys loads, converted to
 * double. Both then print the same trace (fid_print_header, fid_print_body), which
 * bench/fidelity.sh turns into the measures of the fidelity table (docs/benchmarks.md).
 *
 * Trace lines (numbers in SI units):
 *   world GX GY GZ HZ ITERATIONS SLEEP(0|1) BODIES
 *   body N TYPE SHAPE MASS SIZES...   TYPE static|dynamic|kinematic; SHAPE and its sizes:
 *        plane NX NY NZ D | box HX HY HZ | sphere R | capsule R H
 *   s STEP N X Y Z QW QX QY QZ VX VY VZ WX WY WZ ASLEEP FLAGS
 * "s" lines come for step 0 (the loaded state) and every step after; ASLEEP is 0 or 1,
 * FLAGS the engine's per-body warning bits (qp_body_flags; 0 in Bullet, which has none).
 *
 * Compounds and joints are refused here: no fidelity case needs them, and Bullet would need
 * their centre of mass worked out the way qphys does.
 */
#ifndef QP_FIDELITY_SCENE_H
#define QP_FIDELITY_SCENE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "qphys/scene.h"

#define FID_MAX_BODIES 20000   /* the scaling table's largest scenes (bench/run.sh) */
#define FID_PI 3.14159265358979323846

typedef struct {
    int shape;                          /* QP_SHAPE_PLANE, _SPHERE, _CAPSULE, _BOX */
    qp_body_type type;
    double size[4];                     /* box hx hy hz; sphere r; capsule r h; plane nx ny nz d */
    double pos[3], quat[4], vel[3], spin[3];   /* quat w x y z */
    double mass;                        /* kg; 0 for static and kinematic bodies */
    double friction, restitution;
    int asleep;
} fid_body;

typedef struct {
    double gravity[3];
    int hz, iterations, sleep;
    int count;
    fid_body body[FID_MAX_BODIES];
} fid_scene;

static double fid_fx(fix16_t v) { return (double)v / 65536.0; }
static double fid_q30(qp_q30 v) { return (double)v / 1073741824.0; }

/* Mass of a dynamic body as qphys defines it: `mass M`, or density x volume. */
static double fid_mass(const fid_body *b, const qp_body_def *d)
{
    if (b->type != QP_BODY_DYNAMIC) return 0.0;
    if (d->mass > 0) return fid_fx(d->mass);
    double v = 0.0;
    if (b->shape == QP_SHAPE_BOX) v = 8.0 * b->size[0] * b->size[1] * b->size[2];
    else if (b->shape == QP_SHAPE_SPHERE) v = 4.0 / 3.0 * FID_PI * pow(b->size[0], 3);
    else if (b->shape == QP_SHAPE_CAPSULE)
        v = FID_PI * b->size[0] * b->size[0] * 2.0 * b->size[1] + 4.0 / 3.0 * FID_PI * pow(b->size[0], 3);
    return fid_fx(d->density) * v;
}

/* Read text[0..len) into *s. 0 on success; otherwise prints PATH:LINE:COLUMN: message and returns -1. */
static int fid_read(const char *path, const char *text, unsigned long len, fid_scene *s)
{
    qp_world_def wd = qp_default_world_def();
    qp_scene_reader r = qp_scene_reader_init(text, len);
    qp_scene_item it;
    qp_scene_error err;
    int k;
    s->count = 0;
    for (;;) {
        k = qp_scene_next(&r, &it, &err);
        if (k == 0) break;
        if (k < 0) {
            fprintf(stderr, "%s:%d:%d: error: %s\n", path, err.line, err.column, err.message);
            return -1;
        }
        if (it.kind == QP_SCENE_WORLD) { wd = it.u.world.def; continue; }
        if (it.kind != QP_SCENE_BODY || (it.u.body.given & QP_SCENE_GIVEN_COMPOUND) || it.u.body.def.shape_count != 1) {
            fprintf(stderr, "%s:%d: error: joints and compounds are not supported by the fidelity tracers\n", path, it.line);
            return -1;
        }
        if (s->count >= FID_MAX_BODIES) { fprintf(stderr, "%s: error: too many bodies\n", path); return -1; }
        const qp_body_def *d = &it.u.body.def;
        const qp_shape *sh = &d->shapes[0];
        fid_body *b = &s->body[s->count++];
        b->shape = (int)sh->type;
        b->type = d->type;
        b->size[0] = b->size[1] = b->size[2] = b->size[3] = 0.0;
        if (sh->type == QP_SHAPE_BOX) {
            b->size[0] = fid_fx(sh->half.x), b->size[1] = fid_fx(sh->half.y), b->size[2] = fid_fx(sh->half.z);
        } else if (sh->type == QP_SHAPE_SPHERE) {
            b->size[0] = fid_fx(sh->radius);
        } else if (sh->type == QP_SHAPE_CAPSULE) {
            b->size[0] = fid_fx(sh->radius), b->size[1] = fid_fx(sh->half_height);
        } else {
            b->size[0] = fid_q30(sh->normal.x), b->size[1] = fid_q30(sh->normal.y), b->size[2] = fid_q30(sh->normal.z);
            b->size[3] = fid_fx(sh->plane_offset);
        }
        b->pos[0] = fid_fx(d->position.x), b->pos[1] = fid_fx(d->position.y), b->pos[2] = fid_fx(d->position.z);
        b->quat[0] = fid_q30(d->rotation.w), b->quat[1] = fid_q30(d->rotation.x);
        b->quat[2] = fid_q30(d->rotation.y), b->quat[3] = fid_q30(d->rotation.z);
        b->vel[0] = fid_fx(d->linear_velocity.x), b->vel[1] = fid_fx(d->linear_velocity.y);
        b->vel[2] = fid_fx(d->linear_velocity.z);
        b->spin[0] = fid_fx(d->angular_velocity.x), b->spin[1] = fid_fx(d->angular_velocity.y);
        b->spin[2] = fid_fx(d->angular_velocity.z);
        b->friction = fid_fx(d->friction);
        b->restitution = fid_fx(d->restitution);
        b->asleep = d->asleep;
        b->mass = fid_mass(b, d);
    }
    s->gravity[0] = fid_fx(wd.gravity.x), s->gravity[1] = fid_fx(wd.gravity.y), s->gravity[2] = fid_fx(wd.gravity.z);
    s->hz = (int)(65536.0 / (double)wd.dt + 0.5);
    s->iterations = wd.contact_iterations;
    s->sleep = wd.sleep_enabled;
    return 0;
}

static void fid_print_header(const fid_scene *s)
{
    static const char *const types[] = { "static", "dynamic", "kinematic" };
    static const char *const shapes[] = { "plane", "sphere", "capsule", "box" };
    printf("world %.17g %.17g %.17g %d %d %d %d\n", s->gravity[0], s->gravity[1], s->gravity[2], s->hz,
           s->iterations, s->sleep, s->count);
    for (int i = 0; i < s->count; i++) {
        const fid_body *b = &s->body[i];
        printf("body %d %s %s %.17g", i, types[b->type], shapes[b->shape], b->mass);
        int n = b->shape == QP_SHAPE_BOX ? 3 : b->shape == QP_SHAPE_PLANE ? 4 : b->shape == QP_SHAPE_CAPSULE ? 2 : 1;
        for (int k = 0; k < n; k++) printf(" %.17g", b->size[k]);
        printf("\n");
    }
}

static void fid_print_body(long step, int n, const double p[3], const double q[4], const double v[3],
                           const double w[3], int asleep, unsigned flags)
{
    printf("s %ld %d %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %d %u\n", step, n, p[0], p[1],
           p[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2], w[0], w[1], w[2], asleep, flags);
}

/* The whole file in a heap buffer (a host tool), or NULL with a message. */
static char *fid_slurp(const char *path, unsigned long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "%s: cannot open\n", path); return NULL; }
    size_t cap = 1 << 16, n = 0, got;
    char *buf = (char *)malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = (char *)realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) { fprintf(stderr, "%s: out of memory\n", path); return NULL; }
    *len = (unsigned long)n;
    return buf;
}

#endif
