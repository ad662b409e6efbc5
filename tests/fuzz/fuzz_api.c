/* SPDX-License-Identifier: MIT */
/* fuzz_api.c - sequences of API calls read from the fuzzer's bytes (libFuzzer;
 * tests/scripts/test-fuzz-corpus.sh replays the corpus with gcc): create bodies of any shape and
 * numbers (hulls of any points, static meshes and heightfields among them), destroy with valid
 * and stale ids, set poses and velocities, apply forces, torques and impulses, step, cast rays,
 * snapshot and restore. Promises checked after every call: no sanitizer report; a call that
 * fails changes the world by not one byte; a call that succeeds leaves every speed within the
 * clamp; after a step every body is inside the world bounds or frozen and flagged; a snapshot
 * restored gives the same state back. A hull built from any points answers as qp_hull_check
 * does, and is that points' hull (check_hull). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"

#define MAX_IDS 48
#define MAX_FIELDS 8

/* Level geometry outlives the world that refers to it: a floor mesh built once, and each
 * input's heightfields in slots of their own (a world refers to them, never copies them). */
static qp_vec3 floor_v[9];
static const uint32_t floor_i[8 * 3] = { 0, 3, 1, 1, 3, 4, 1, 4, 2, 2, 4, 5, 3, 6, 4, 4, 6, 7, 4, 7, 5, 5, 7, 8 };
static uint32_t floor_mem[QP_MESH_MEMORY_SIZE(8) / 4 + 1];
static qp_mesh floor_mesh;
static fix16_t field_heights[MAX_FIELDS][9];
static qp_heightfield fields[MAX_FIELDS];

static qp_world world, before;
static unsigned char snap[QP_SNAPSHOT_MAX_SIZE], snap2[QP_SNAPSHOT_MAX_SIZE];

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static uint32_t take(input *in, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v = v << 8 | (in->n ? *in->p : 0);
        if (in->n) in->p++, in->n--;
    }
    return v;
}

/* A number: mostly a plausible one (+-32 with fine steps), sometimes any Q16.16 value. */
static fix16_t number(input *in)
{
    uint32_t sel = take(in, 1);
    if (sel < 32) return (fix16_t)take(in, 4);
    return (fix16_t)(int16_t)take(in, 2) * 64;
}

/* x, then y, then z (one statement each: argument order is unspecified in C). */
static qp_vec3 vec(input *in)
{
    qp_vec3 v;
    v.x = number(in);
    v.y = number(in);
    v.z = number(in);
    return v;
}

static qp_quat quat(input *in)
{
    if (take(in, 1) < 200) return qp_quat_identity();
    qp_quat q;
    q.w = (qp_q30)take(in, 4);
    q.x = (qp_q30)take(in, 4);
    q.y = (qp_q30)take(in, 4);
    q.z = (qp_q30)take(in, 4);
    return q;
}

/* 4-69 points (fewer or more are refused): any numbers, or on a coarse grid of a few values
 * per axis, where duplicates, collinear and coplanar points are the rule. */
static int hull_points(input *in, qp_vec3 *p)
{
    int count = (int)(take(in, 1) % 66) + 4 - (int)(take(in, 1) < 8 ? 4 : 0);
    bool grid = take(in, 1) & 1;
    fix16_t step = (fix16_t)(take(in, 1) % 64 + 1) << 10;
    for (int k = 0; k < count; k++) {
        if (grid) {
            p[k].x = (fix16_t)(take(in, 1) % 5) * step;
            p[k].y = (fix16_t)(take(in, 1) % 5) * step;
            p[k].z = (fix16_t)(take(in, 1) % 5) * step;
        } else {
            p[k] = vec(in);
        }
    }
    return count;
}

/* n . p - offset in 2^-46 m (n Q2.30; p and offset Q16.16, within QP_SHAPE_MAX_SIZE once built):
 * each product below 2^57. */
static int64_t above(const qp_hull_face *f, qp_vec3 p)
{
    return (int64_t)f->normal.x * p.x + (int64_t)f->normal.y * p.y + (int64_t)f->normal.z * p.z -
           (int64_t)f->offset * ((int64_t)1 << 30);
}

/* A built hull of points p[0..n): 4 to 64 corners, each one of the points; V - E + F = 2;
 * every face of 3 or more corners on its plane, every point on or below every face's plane
 * (within 1/64 mm for each metre of the largest coordinate: the normal's rounding), and
 * each edge between two different faces. */
static void check_hull(const qp_hull *h, const qp_vec3 *p, int n)
{
    if (h->vert_count < 4 || h->vert_count > QP_HULL_MAX_POINTS || h->face_count < 4) abort();
    if ((int)h->vert_count - (int)h->edge_count + (int)h->face_count != 2) abort();
    int64_t big = 0;
    for (int k = 0; k < n; k++) {
        int64_t m = qp_v3_max_abs(p[k]);
        big = m > big ? m : big;
    }
    const int64_t tol = ((big >> 16) + 1) * ((int64_t)1 << 46) / 64000;
    for (int v = 0; v < h->vert_count; v++) {
        bool given = false;
        for (int k = 0; k < n && !given; k++)
            given = h->verts[v].x == p[k].x && h->verts[v].y == p[k].y && h->verts[v].z == p[k].z;
        if (!given) abort();
    }
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *face = &h->faces[f];
        if (face->count < 3 || face->first + face->count > 2 * QP_HULL_MAX_EDGES) abort();
        for (int k = 0; k < face->count; k++) {
            int v = h->face_verts[face->first + k];
            if (v >= h->vert_count) abort();
            int64_t d = above(face, h->verts[v]);
            if (d > tol || d < -tol) abort();
        }
        for (int k = 0; k < n; k++)
            if (above(face, p[k]) > tol) abort();
    }
    for (int e = 0; e < h->edge_count; e++) {
        const qp_hull_edge *edge = &h->edges[e];
        if (edge->v0 >= edge->v1 || edge->v1 >= h->vert_count || edge->f0 == edge->f1 || edge->f0 >= h->face_count ||
            edge->f1 >= h->face_count)
            abort();
    }
}

static void check_speeds(void)
{
    const qp_world_def *d = qp_world_get_def(&world);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        qp_vec3 v = qp_body_linear_velocity(&world, id), w = qp_body_angular_velocity(&world, id);
        if (qp_v3_len_sq_wide(v) > (int64_t)d->max_linear_speed * d->max_linear_speed) abort();
        if (qp_v3_len_sq_wide(w) > (int64_t)d->max_angular_speed * d->max_angular_speed) abort();
    }
}

static void check_bounds(void)
{
    fix16_t bounds = qp_world_get_def(&world)->bounds;
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        int inside = qp_v3_max_abs(qp_body_position(&world, id)) <= bounds + QP_INT(100);
        if (!inside && !(qp_body_flags(&world, id) & QP_FLAG_OUT_OF_BOUNDS)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = { data, size };
    if (!floor_mesh.triangle_count) {   /* a 2 x 2 grid of 2 m cells, a bump in the middle */
        for (int k = 0; k < 9; k++) floor_v[k] = qp_v3(QP_INT(2 * (k % 3) - 2), k == 4 ? QP_FRAC(1, 2) : 0, QP_INT(2 * (k / 3) - 2));
        if (qp_mesh_build(&floor_mesh, floor_v, 9, floor_i, 8, floor_mem, sizeof floor_mem, NULL) != QP_OK) abort();
    }
    int fields_used = 0;
    qp_body_id ids[MAX_IDS];
    int nids = 0;
    qp_world_def wd = qp_default_world_def();
    if (take(&in, 1) & 1) wd.gravity = vec(&in);                 /* maybe out of range */
    if (qp_world_init(&world, &wd) != QP_OK) {
        wd = qp_default_world_def();
        if (qp_world_init(&world, &wd) != QP_OK) abort();
    }
    for (int op_count = 0; in.n > 0 && op_count < 64; op_count++) {
        memcpy(&before, &world, sizeof world);
        uint32_t op = take(&in, 1) % 11;
        qp_body_id id = qp_null_body();
        if (op >= 1 && op <= 7) {   /* an id: one we made (maybe destroyed since), or any */
            uint32_t k = take(&in, 1);
            if (nids && k < 200) id = ids[k % (uint32_t)nids];
            else id.index = (uint16_t)take(&in, 2), id.generation = (uint16_t)take(&in, 1);
        }
        qp_result r = QP_OK;
        switch (op) {
        case 0: {
            qp_body_def d = qp_default_body_def();
            static qp_hull hulls[QP_CFG_MAX_BODY_SHAPES];   /* copied into the world's pool */
            uint32_t type = take(&in, 1);
            d.type = type < 200 ? QP_BODY_DYNAMIC : type < 230 ? QP_BODY_STATIC : QP_BODY_KINEMATIC;
            d.shape_count = (int)(take(&in, 1) % 3);             /* 0: refused */
            for (int s = 0; s < d.shape_count; s++) {
                /* Every draw its own statement: the order of evaluation of arguments is
                 * unspecified, and gcc and clang must read the same numbers. */
                uint32_t kind_byte = take(&in, 1), kind = kind_byte < 224 ? kind_byte % 4 : kind_byte < 244 ? 4 : 5;
                qp_result sr;
                if (kind == 4) {
                    qp_vec3 p[QP_HULL_MAX_POINTS + 6];
                    int n = hull_points(&in, p);
                    qp_result checked = qp_hull_check(p, n);
                    sr = qp_hull_build(p, n, &hulls[s]);
                    if (sr != checked) abort();
                    if (sr == QP_OK) {
                        check_hull(&hulls[s], p, n);
                        sr = qp_make_hull(&hulls[s], &d.shapes[s]);
                    }
                } else if (kind == 5) {   /* a level shape: refused on a body that moves */
                    if (take(&in, 1) & 1) {
                        sr = qp_make_mesh_shape(&floor_mesh, &d.shapes[s]);
                    } else if (fields_used < MAX_FIELDS) {
                        for (int k = 0; k < 9; k++) field_heights[fields_used][k] = number(&in);
                        fix16_t spacing = number(&in);
                        sr = qp_heightfield_init(&fields[fields_used], field_heights[fields_used], 3, 3, spacing);
                        if (sr == QP_OK) sr = qp_make_heightfield_shape(&fields[fields_used++], &d.shapes[s]);
                    } else {
                        sr = QP_ERR_FULL;
                    }
                } else if (kind == 0) {
                    sr = qp_make_box(vec(&in), &d.shapes[s]);
                } else if (kind == 1) {
                    sr = qp_make_sphere(number(&in), &d.shapes[s]);
                } else if (kind == 2) {
                    fix16_t radius = number(&in);
                    fix16_t half_height = number(&in);
                    sr = qp_make_capsule(radius, half_height, &d.shapes[s]);
                } else {
                    qp_vec3 normal = vec(&in);
                    sr = qp_make_plane(normal, number(&in), &d.shapes[s]);
                }
                if (sr != QP_OK) memset(&d.shapes[s], 0, sizeof d.shapes[s]); /* an invalid shape */
                d.shapes[s].offset = take(&in, 1) < 128 ? qp_v3_zero() : vec(&in);
            }
            d.position = vec(&in);
            d.rotation = quat(&in);
            if (take(&in, 1) & 1) d.linear_velocity = vec(&in);
            if (take(&in, 1) & 1) d.angular_velocity = vec(&in);
            if (take(&in, 1) & 1) d.mass = number(&in);
            qp_body_id made = qp_create_body(&world, &d, &r);
            if (r == QP_OK && nids < MAX_IDS) ids[nids++] = made;
            break;
        }
        case 1: r = qp_destroy_body(&world, id); break;
        case 2: {
            qp_vec3 p = vec(&in);
            r = qp_body_set_pose(&world, id, p, quat(&in));
            break;
        }
        case 3: r = qp_body_set_linear_velocity(&world, id, vec(&in)); break;
        case 4: r = qp_body_set_angular_velocity(&world, id, vec(&in)); break;
        case 5: r = qp_body_apply_force(&world, id, vec(&in)); break;
        case 6: r = qp_body_apply_torque(&world, id, vec(&in)); break;
        case 7: {
            qp_vec3 j = vec(&in);
            r = qp_body_apply_impulse(&world, id, j, vec(&in));
            break;
        }
        case 8:
            for (uint32_t s = take(&in, 1) % 4 + 1; s > 0; s--) qp_world_step(&world);
            check_bounds();
            break;
        case 9: {
            qp_world_ray_hit hit;
            qp_vec3 from = vec(&in);
            (void)qp_world_raycast(&world, from, vec(&in), &hit);
            if (memcmp(&world, &before, sizeof world) != 0) abort();  /* a query writes nothing */
            break;
        }
        default: {
            /* Restored, the world is the same state: the same hash and the same snapshot. */
            uint32_t h = qp_world_hash(&world);
            unsigned long n = qp_world_snapshot(&world, snap, sizeof snap);
            if (n == 0 || n > sizeof snap) abort();
            if (qp_world_restore(&world, snap, n) != QP_OK) abort();
            if (qp_world_hash(&world) != h || qp_world_snapshot(&world, snap2, sizeof snap2) != n ||
                memcmp(snap, snap2, n) != 0)
                abort();
            break;
        }
        }
        if (r != QP_OK && memcmp(&world, &before, sizeof world) != 0) abort(); /* failures change nothing */
        check_speeds();
    }
    return 0;
}
