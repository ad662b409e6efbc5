/* SPDX-License-Identifier: MIT */
/* Scene files: a world and its bodies described in text (docs/scene-format.md, version 1;
 * the full grammar is in docs/scene-format.md).
 *
 *   world   gravity 0 -10 0 hz 60 iterations 10 sleep on
 *   plane                                   # static ground y = 0 (body 0)
 *   box     half 0.5 0.5 0.5 pos 0 0.5 0    # body 1
 *   sphere  radius 0.5 pos 0 3 0 vel 1 0 0 restitution 0.5
 *   compound pos 3 0.4 0                    # one body of several shapes
 *     part box half 0.8 0.05 0.8 at 0 0.45 0
 *     part sphere radius 0.2 at 0 -0.2 0
 *   end
 *   box     half 1 0.1 1 pos 0 0.5 4 kinematic vel 0 0.5 0   # a lift
 *   hull    points 0 0 0  1 0 0  0 1 0  0 0 1 pos 2 1 0      # convex hull of 4-64 points
 *
 * The reader is part of the core: no heap, no float, no static state. Numbers
 * are read exactly into Q16.16 (qp_scene_parse_fix: rounded to nearest, ties
 * away from zero, range-checked), so every target builds bit-identical worlds
 * from the same text, e.g. from a const char array on a board.
 *
 * Loading is all or nothing: the text is parsed and validated completely
 * (syntax, ranges, shape sizes, masses, speeds, pool capacity, joint body
 * numbers) before the world is touched. A bad file returns an error naming
 * the line, the column and what was expected, and leaves the world exactly as
 * it was. Stack use is bounded: no recursion, at most about 2.5 KB deep
 * (qp_scene_load; a board's main stack must allow for it).
 *
 * Body numbers: bodies are numbered from 0 in file order, planes included.
 * qp_scene_load initialises the world, so body number i is the body in slot
 * index i + 1: qp_scene_body(w, i) == qp_world_body_at(w, i + 1).
 */
#ifndef QPHYS_SCENE_H
#define QPHYS_SCENE_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/collide.h"
#include "qphys/math.h"
#include "qphys/mesh.h"
#include "qphys/types.h"
#include "qphys/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QP_SCENE_VERSION 1

/* Where and why a scene was rejected. */
typedef struct {
    int line;                 /* 1-based line of the error; 0 when not about one line */
    int column;               /* 1-based byte column in that line; 0 when not about one */
    const char *message;      /* static English text: what was expected or why it is invalid */
    qp_result result;         /* the code the failing call returned */
} qp_scene_error;

/* ---- loading ------------------------------------------------------------------- */

/* What a valid scene holds (filled by qp_scene_check and qp_scene_load). */
typedef struct {
    qp_world_def world;       /* defaults overridden by the `world` line */
    int bodies;               /* planes included */
    int dynamic_bodies;
    int shapes;
    int joints;               /* joint lines (ball, hinge, distance, fixed, slider, cone) */
    int lines;                /* lines in the text */
    int hulls;                /* hull shapes (a world's caps.hulls must hold them) */
} qp_scene_info;

/* Parse and validate text[0..len) without touching any world. QP_OK, or
 * QP_ERR_PARSE (syntax, unknown keyword, bad number), QP_ERR_RANGE (a value
 * outside its range), QP_ERR_FULL (more bodies, shapes, joints or hulls than any
 * world holds: qp_world_caps), QP_ERR_PARAM (null text or a bad argument;
 * a joint between two static bodies). info and err may be null. */
qp_result qp_scene_check(const char *text, unsigned long len, qp_scene_info *info,
                         qp_scene_error *err) QP_MUST_USE;

/* Check the text as above; only if it is valid, initialise w from its `world`
 * line (as qp_world_init, keeping w's capacities; a static qp_world never initialised gets
 * the default ones) and create its bodies in file order, then its joints. On any error w is
 * left exactly as it was and *err tells where. info and err may be null.
 * QP_ERR_FULL: more bodies, shapes, joints or hulls than w's capacities, at the first line
 * past them (size a world to a scene with qp_scene_check's counts and qp_world_caps_for).
 * QP_ERR_CONFIG: the caller was built with other options than the library (world.h). */
qp_result qp_scene_load_checked(qp_world *w, const char *text, unsigned long len, qp_scene_info *info,
                                qp_scene_error *err, uint32_t config_signature, unsigned long world_size,
                                const qp_world_caps *caps) QP_MUST_USE;
#define qp_scene_load(w, text, len, info, err)                                                     \
    qp_scene_load_checked((w), (text), (len), (info), (err), QP_CONFIG_SIGNATURE, (unsigned long)sizeof(qp_world), \
                          qp__default_caps())

/* Where level geometry goes when a scene is loaded: the caller's memory. Heightfields'
 * heights are read into heights[] (rows * cols each, in file order) and described in
 * fields[]; each mesh line calls mesh(ctx, path, path_len, &mesh, &message), which reads
 * the file (the core never does), builds it (qp_mesh_build) in memory of its own that
 * outlives the world and returns QP_OK, or an error with a static message. */
typedef struct {
    fix16_t *heights;
    unsigned long heights_capacity;
    qp_heightfield *fields;
    int fields_capacity;
    const qp_mesh **meshes;   /* filled: each mesh line's mesh, in file order */
    int meshes_capacity;
    qp_result (*mesh)(void *ctx, const char *path, unsigned long path_len, const qp_mesh **out,
                      const char **message);
    void *ctx;
} qp_scene_level_store;

/* qp_scene_load for scenes with mesh and heightfield lines: the same, with their geometry
 * built into store (all of it before the world is touched; a mesh refused by its callback
 * is reported at its path). qp_scene_load refuses such lines (QP_ERR_PARAM). */
qp_result qp_scene_load_level_checked(qp_world *w, const char *text, unsigned long len, qp_scene_info *info,
                                      qp_scene_error *err, const qp_scene_level_store *store,
                                      uint32_t config_signature, unsigned long world_size,
                                      const qp_world_caps *caps) QP_MUST_USE;
#define qp_scene_load_level(w, text, len, info, err, store)                                                \
    qp_scene_load_level_checked((w), (text), (len), (info), (err), (store), QP_CONFIG_SIGNATURE,            \
                                (unsigned long)sizeof(qp_world), qp__default_caps())

/* The id of body number i (0-based, file order) of a world that qp_scene_load
 * filled; a null id when there is no such body. */
qp_body_id qp_scene_body(const qp_world *w, int i);

/* ---- the parser, item by item ------------------------------------------------- */

/* Items are the parsed description of one non-empty line, so programs can
 * build their own worlds from the text. */
typedef enum {
    QP_SCENE_WORLD = 0,
    QP_SCENE_BODY,            /* plane, box, sphere, capsule, hull, compound ... end (one item) */
    QP_SCENE_BALL,
    QP_SCENE_HINGE,
    QP_SCENE_DISTANCE,
    QP_SCENE_FIXED,
    QP_SCENE_SLIDER,
    QP_SCENE_CONE,
    QP_SCENE_MESH,            /* mesh file PATH ...: a static body; its geometry comes at load */
    QP_SCENE_HEIGHTFIELD      /* heightfield rows R cols C spacing S pos X Y Z heights ...: a static body */
} qp_scene_item_kind;

/* Which options of a body line were given (qp_scene_body_item.given). */
enum {
    QP_SCENE_GIVEN_ROT = 1u << 0,
    QP_SCENE_GIVEN_VEL = 1u << 1,
    QP_SCENE_GIVEN_SPIN = 1u << 2,
    QP_SCENE_GIVEN_MASS = 1u << 3,
    QP_SCENE_GIVEN_DENSITY = 1u << 4,
    QP_SCENE_GIVEN_STATIC = 1u << 5,
    QP_SCENE_GIVEN_FRICTION = 1u << 6,
    QP_SCENE_GIVEN_RESTITUTION = 1u << 7,
    QP_SCENE_GIVEN_ASLEEP = 1u << 8,
    QP_SCENE_GIVEN_KINEMATIC = 1u << 9,
    QP_SCENE_GIVEN_COMPOUND = 1u << 10,  /* a `compound` ... `end` block: def holds its parts */
    QP_SCENE_GIVEN_FILTER = 1u << 11,    /* every shape's filter from `filter` */
    QP_SCENE_GIVEN_SENSOR = 1u << 12     /* every shape a sensor */
};

typedef struct {
    qp_world_def def;         /* qp_default_world_def() with the line's options applied */
} qp_scene_world_item;

/* Room for one hull's points in a body item (none in a build without hulls). */
#define QP_SCENE_HULL_POINTS (QP_CFG_MAX_HULLS > 0 ? QP_HULL_MAX_POINTS : 1)

typedef struct {
    qp_body_def def;          /* ready for qp_create_body: one shape (a compound: its parts,
                               * offsets in the body frame), pose, velocities, mass; but a hull
                               * shape's hull is null: build it from hull_points (qp_hull_build)
                               * and point the shape at it first (qp_scene_load does) */
    unsigned given;           /* QP_SCENE_GIVEN_* */
    int hull_shape;           /* the hull shape's index in def.shapes (a `hull` line, or a
                               * compound's one `part hull`); -1: none */
    int hull_count;           /* its points: distinct, in file order */
    qp_vec3 hull_points[QP_SCENE_HULL_POINTS];
} qp_scene_body_item;

typedef struct {
    int a, b;                 /* body numbers (0-based, file order); a != b */
    qp_vec3 anchor;           /* world point, m (distance: the point on a; fixed: given, or zero) */
    qp_vec3 anchor_b;         /* distance: the point on b, world, m; otherwise zero */
    bool has_anchor;          /* fixed: `anchor` given (else the midpoint of the bodies' positions) */
    fix16_t min_length, max_length; /* distance: m, 0 <= min <= max <= 1000; otherwise zero */
    bool has_min;             /* distance with `min` */
    qp_vec3 axis;             /* hinge, slider, cone: unit axis in Q2.30 (world); otherwise zero */
    bool has_limit;           /* hinge or slider with `limit`, cone with `twist` */
    fix16_t limit_lo, limit_hi; /* hinge, cone twist: radians, -pi..pi; slider: m, -1000..1000; lo <= hi */
    fix16_t swing;            /* cone: radians, 0..170 degrees */
    bool has_motor;           /* hinge, slider with `motor` */
    fix16_t motor_speed, motor_max; /* rad/s or m/s, -100..100; N m or N, 0..30000 */
    bool has_spring;          /* hinge, slider, distance with `spring` */
    fix16_t spring_hz, spring_damping; /* 0.01..500 Hz; 0..100 */
    fix16_t break_impulse;    /* N s, 0 < . <= 30000; 0: not given (never breaks) */
    fix16_t friction;         /* hinge, cone: N m, 0 .. 30000; 0: not given (none) */
    int a_column, b_column;   /* where a and b are written (for errors found later) */
} qp_scene_joint_item;

/* A level line (mesh, heightfield): a static body whose one shape the loader makes. */
typedef struct {
    qp_body_def def;          /* static; position, rotation, friction, restitution; shape_count 0 */
    const char *path;         /* mesh: the file as written (relative to the scene file), not terminated */
    unsigned long path_len;
    unsigned long path_at;    /* mesh: offset of the path in its line (column - 1) */
    int rows, cols;           /* heightfield: 2 .. QP_HEIGHTFIELD_MAX_SIDE */
    fix16_t spacing;          /* heightfield: m */
    const char *heights;      /* heightfield: the text of its rows * cols heights (checked numbers) */
    unsigned long heights_len;
} qp_scene_level_item;

typedef struct {
    qp_scene_item_kind kind;
    int line;                 /* 1-based */
    unsigned long at;         /* byte offset of the keyword in its line (column - 1) */
    union {
        qp_scene_world_item world;
        qp_scene_body_item body;
        qp_scene_joint_item joint;
        qp_scene_level_item level;
    } u;
} qp_scene_item;

/* Reads one line at a time from text[0..len). Zero-initialise, then set text and len. */
typedef struct {
    const char *text;
    unsigned long len;
    unsigned long pos;        /* start of the next line */
    int line;                 /* number of the last line read */
} qp_scene_reader;

qp_scene_reader qp_scene_reader_init(const char *text, unsigned long len);

/* Parse the next non-empty line into *item (a `compound` line with its `part` lines
 * up to `end`: one body item). Returns 1 with an item, 0 at the
 * end of the text, -1 on an error in that line (*err says where; the reader
 * stops there). Checks everything a single line can show (syntax, ranges,
 * shape sizes, mass); not what needs the whole file (pool capacity, joint
 * body numbers, a second `world` line): qp_scene_check does that. */
int qp_scene_next(qp_scene_reader *r, qp_scene_item *item, qp_scene_error *err);

/* ---- numbers ------------------------------------------------------------------- */

/* Read the decimal s[0..n) ([+-]digits[.digits], at most
 * QP_SCENE_MAX_FRACTION_DIGITS fraction digits) exactly into Q16.16, rounded
 * to the nearest multiple of 2^-16 (ties away from zero). QP_ERR_PARSE for
 * malformed text, QP_ERR_RANGE when |value| > QP_FIX_MAX (32767.99998...),
 * e.g. "32768", "-32768". *out is written only on QP_OK. */
#define QP_SCENE_MAX_FRACTION_DIGITS 24
qp_result qp_scene_parse_fix(const char *s, unsigned long n, fix16_t *out) QP_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif
