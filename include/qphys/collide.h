/* SPDX-License-Identifier: MIT */
/* Collision geometry: shapes, manifolds, the pure collide functions and ray casts.
 *
 * Everything here is pure: no world, no state. A collide function takes two
 * shapes and the pose of B's frame in A's frame, and fills a manifold in A's
 * frame. Working relative to A keeps results independent of where the pair
 * sits in the world (the world calls them with relative transforms).
 *
 * Units: metres (Q16.16). Supported shape sizes: radii, half extents and
 * half heights in [QP_SHAPE_MIN_SIZE, QP_SHAPE_MAX_SIZE] = [0.01 m, 100 m];
 * plane offsets within +-QP_WORLD_LIMIT. Poses handed to collide functions
 * must keep the two shapes within 1000 m of each other.
 */
#ifndef QPHYS_COLLIDE_H
#define QPHYS_COLLIDE_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/math.h"
#include "qphys/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QP_SHAPE_MIN_SIZE   QP_FRAC(1, 100)   /* 0.01 m */
#define QP_SHAPE_MAX_SIZE   QP_INT(100)       /* 100 m */
#define QP_WORLD_LIMIT      QP_INT(10000)     /* |coordinate| of any body, metres */
#define QP_MAX_MANIFOLD_POINTS 4

/* Shape kinds, in the canonical order of the dispatch table: a pair is always
 * collided with the lower type as A (the other way round flips the normal). */
typedef enum {
    QP_SHAPE_PLANE = 0,   /* static only: the half-space n.p <= offset is solid */
    QP_SHAPE_SPHERE,
    QP_SHAPE_CAPSULE,     /* segment along local y from -half_height to +half_height, plus radius */
    QP_SHAPE_BOX,         /* oriented box, half extents */
    QP_SHAPE_HULL,        /* convex hull of 4-64 points (qp_hull, built by qp_hull_build) */
    QP_SHAPE_MESH,        /* static triangle mesh in caller memory (qphys/mesh.h) */
    QP_SHAPE_HEIGHTFIELD, /* static grid of heights in caller memory (qphys/mesh.h) */
    QP_SHAPE_TYPE_COUNT
} qp_shape_type;

/* A rigid transform: position (Q16.16) and rotation (Q2.30). */
typedef struct {
    qp_vec3 p;
    qp_rot3 r;
} qp_transform;

struct qp_mesh_s;          /* qphys/mesh.h */
struct qp_heightfield_s;

/* A convex hull, built once by qp_hull_build from 4-64 points and read-only after: its
 * vertices (the points that are corners), its faces (coplanar triangles merged into one
 * polygon, vertices counter-clockwise about the outward normal) and its edges (each with
 * the two faces that meet there). About 4.4 KB; a world keeps a copy of each hull of its
 * bodies in a pool of QP_CFG_MAX_HULLS (config.h). */
#define QP_HULL_MAX_POINTS 64
#define QP_HULL_MAX_FACES (2 * QP_HULL_MAX_POINTS - 4)
#define QP_HULL_MAX_EDGES (3 * QP_HULL_MAX_POINTS - 6)

typedef struct {
    qp_vec3 normal;        /* outward unit normal, Q2.30 */
    fix16_t offset;        /* normal . v <= offset for every vertex v (equal on the face, to rounding) */
    uint16_t first;        /* its vertex indices: face_verts[first .. first + count) */
    uint8_t count;
    uint8_t pad;
} qp_hull_face;

typedef struct {
    uint8_t v0, v1;        /* vertex indices, v0 < v1 */
    uint8_t f0, f1;        /* the faces on either side (f0 runs v0 -> v1) */
} qp_hull_edge;

typedef struct {
    uint8_t vert_count;    /* 0: not built (a free pool entry) */
    uint8_t face_count;
    uint16_t edge_count;
    uint32_t checksum;     /* of the vertices: the hull's identity (hashes) */
    fix16_t radius;        /* the largest |vertex| (from the shape's origin) */
    fix16_t inner;         /* the distance from center to the nearest face's plane */
    qp_vec3 center;        /* the mean of the vertices: a point well inside */
    qp_vec3 verts[QP_HULL_MAX_POINTS];
    qp_hull_face faces[QP_HULL_MAX_FACES];
    qp_hull_edge edges[QP_HULL_MAX_EDGES];
    uint8_t face_verts[2 * QP_HULL_MAX_EDGES];
} qp_hull;

/* One shape, in its body's frame. */
typedef struct {
    qp_shape_type type;
    qp_vec3 offset;        /* shape centre in the body frame, metres */
    qp_quat rotation;      /* shape orientation in the body frame (Q2.30 unit) */
    /* The type's own sizes; the constructors zero the rest. Two unions of
     * plain members (no nested anonymous structs, which C++ lacks). */
    union {
        qp_vec3 half;              /* box: half extents */
        qp_vec3 normal;            /* plane: unit normal in Q2.30 (shape frame) */
        fix16_t radius;            /* sphere, capsule */
        const qp_hull *hull;       /* hull: its data (a world points it at its own copy) */
        const struct qp_mesh_s *mesh;               /* mesh: referenced, never copied */
        const struct qp_heightfield_s *heightfield; /* heightfield: referenced, never copied */
    };
    union {
        fix16_t half_height;       /* capsule: half the segment length */
        fix16_t plane_offset;      /* plane: n.p = plane_offset on the surface */
    };
} qp_shape;

/* One contact point. depth > 0 is penetration, depth < 0 a gap (only reported
 * up to the caller's margin). The point lies midway between the two surfaces. */
typedef struct {
    qp_vec3 point;         /* in A's frame (collide functions) or world (world manifolds) */
    fix16_t depth;
    uint32_t id;           /* feature id: stable while the same features touch */
} qp_manifold_point;

typedef struct {
    qp_vec3 normal;        /* unit, Q2.30, from A towards B */
    int count;             /* 0..QP_MAX_MANIFOLD_POINTS */
    qp_manifold_point points[QP_MAX_MANIFOLD_POINTS];
} qp_manifold;

/* Axis-aligned bounding box in world space. */
typedef struct {
    qp_vec3 lo, hi;
} qp_aabb;

/* Mass properties of a shape (or body) about its own centre of mass. */
typedef struct {
    fix16_t mass;          /* kg */
    qp_vec3 center;        /* centre of mass in the body frame */
    qp_mat3 inertia;       /* about the centre of mass, in the body frame, kg m^2 */
} qp_mass_data;

/* Result of a ray cast: the ray is origin + t * delta, t in [0, 1]. */
typedef struct {
    fix16_t fraction;      /* t of the hit (Q16.16) */
    qp_vec3 point;         /* world point of the hit */
    qp_vec3 normal;        /* unit surface normal at the hit, Q2.30, facing the ray */
} qp_ray_hit;

/* ---- shapes ---------------------------------------------------------------- */

/* Shape constructors: fill *out and return QP_OK, or an error (and leave *out
 * unchanged) for sizes outside [QP_SHAPE_MIN_SIZE, QP_SHAPE_MAX_SIZE] or a zero
 * plane normal. Offsets are zero and rotation identity; set them afterwards. */
qp_result qp_make_sphere(fix16_t radius, qp_shape *out) QP_MUST_USE;
qp_result qp_make_box(qp_vec3 half_extents, qp_shape *out) QP_MUST_USE;
qp_result qp_make_capsule(fix16_t radius, fix16_t half_height, qp_shape *out) QP_MUST_USE;
/* normal: any non-zero length (Q16.16), normalised here. */
qp_result qp_make_plane(qp_vec3 normal, fix16_t offset, qp_shape *out) QP_MUST_USE;
/* Build the convex hull of points[0..count) (shape frame, metres) into *out, exactly, the
 * same bits on every target: duplicates are merged, points inside the hull or in the middle
 * of its edges and faces dropped, coplanar faces merged. QP_ERR_PARAM for a null pointer,
 * fewer than 4 distinct points, or all of them in one plane; QP_ERR_RANGE for more than
 * QP_HULL_MAX_POINTS points or a coordinate beyond QP_SHAPE_MAX_SIZE. *out is written only
 * on QP_OK (points may lie in out->verts: then it is built in place). */
qp_result qp_hull_build(const qp_vec3 *points, int count, qp_hull *out) QP_MUST_USE;
/* The same checks without building: what qp_hull_build would return. */
qp_result qp_hull_check(const qp_vec3 *points, int count) QP_MUST_USE;
/* A hull shape referring to a built hull (not copied: it must outlive the shape; a world
 * copies it into its own pool when a body is created). */
qp_result qp_make_hull(const qp_hull *hull, qp_shape *out) QP_MUST_USE;
/* Check a shape built by hand: QP_OK, QP_ERR_PARAM or QP_ERR_RANGE. */
qp_result qp_shape_validate(const qp_shape *s) QP_MUST_USE;

/* World transform of a shape on a body at pose body_xf. */
qp_transform qp_shape_transform(const qp_shape *s, const qp_transform *body_xf);
/* World AABB of a shape whose own frame is at xf (planes: a huge box). */
qp_aabb qp_shape_aabb(const qp_shape *s, const qp_transform *xf);
/* Mass properties for a density (kg/m^3), in the body frame (offset and
 * rotation applied). QP_ERR_RANGE when mass or inertia would leave Q16.16
 * range; planes have no mass (QP_ERR_PARAM). */
qp_result qp_shape_mass(const qp_shape *s, fix16_t density, qp_mass_data *out) QP_MUST_USE;

/* ---- transforms -------------------------------------------------------------- */

/* Pose of frame b expressed in frame a: a^-1 * b. */
qp_transform qp_transform_relative(const qp_transform *a, const qp_transform *b);
qp_vec3 qp_transform_point(const qp_transform *xf, qp_vec3 local);
qp_vec3 qp_transform_point_inv(const qp_transform *xf, qp_vec3 world);

/* ---- collision ------------------------------------------------------------------ */

/* Collide shape a (at the origin of its own frame) with shape b whose frame is
 * at b_in_a. Fills m in a's frame with the normal from a to b and every point
 * whose depth >= -margin (plane-box: the four corners of the face turned to the plane
 * once one is, the others as gaps); returns m->count. Any pair of types is accepted
 * (the table swaps and flips as needed); plane-plane gives 0. */
int qp_collide(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
               fix16_t margin, qp_manifold *m);

/* The pair functions behind qp_collide, lower type first (same contract). */
int qp_collide_plane_sphere(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_plane_capsule(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_plane_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_sphere_sphere(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_sphere_capsule(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_sphere_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_capsule_capsule(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_capsule_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_box_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_plane_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_sphere_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_capsule_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_box_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);
int qp_collide_hull_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m);

/* ---- ray casts ------------------------------------------------------------------- */

/* Cast the ray origin + t * delta (t in [0, 1], world space) against a shape
 * whose frame is at xf. True with the nearest hit in *hit; false when missed
 * or when the origin is inside the shape. delta must be non-zero. */
bool qp_raycast_shape(const qp_shape *s, const qp_transform *xf, qp_vec3 origin,
                      qp_vec3 delta, qp_ray_hit *hit);

#ifdef __cplusplus
}
#endif

#endif
