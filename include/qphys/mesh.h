/* SPDX-License-Identifier: MIT */
/* Level geometry: static triangle meshes and heightfields.
 *
 * Both live in the caller's memory and are referenced by a shape (qp_make_mesh_shape,
 * qp_make_heightfield_shape), never copied: the vertices, triangles and heights must
 * stay in place, unchanged, for as long as a world uses the shape. A world hashes and
 * snapshots a level shape by its checksum (qp_mesh.checksum, qp_heightfield.checksum).
 *
 * A mesh is built once (qp_mesh_build): it checks the triangles, finds each edge's
 * neighbour and whether the edge is "active" (convex: contacts there may take the edge's
 * own normal) or not (flat or concave, between coplanar or valley triangles: contacts
 * there take the face normal, so nothing bumps on a seam), and builds a bounding volume
 * hierarchy into caller memory. The build is integer-only and deterministic: every
 * target builds the same tree.
 *
 * Level shapes are static only. Units: metres, Q16.16, in the shape's own frame.
 * Supported range: vertex coordinates and heightfield extents within
 * +-QP_LEVEL_MAX_COORD (2048 m) of the shape's origin; spacing 0.05 .. 100 m.
 */
#ifndef QPHYS_MESH_H
#define QPHYS_MESH_H

#include <stddef.h>
#include <stdint.h>
#include "qphys/collide.h"
#include "qphys/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QP_LEVEL_MAX_COORD   QP_INT(2048)      /* |vertex coordinate| in the shape's frame */
#define QP_MESH_MAX_TRIANGLES 1000000          /* per mesh */
#define QP_MESH_LEAF_TRIANGLES 4               /* triangles per BVH leaf, at most */
#define QP_HEIGHTFIELD_MIN_SPACING QP_FRAC(5, 100)
#define QP_HEIGHTFIELD_MAX_SPACING QP_INT(100)
#define QP_HEIGHTFIELD_MAX_SIDE 4096           /* rows and columns, each 2 .. this */

/* One node of a mesh's bounding volume hierarchy (mesh frame). A leaf (count > 0)
 * holds triangles order[first .. first + count); an inner node's children are the
 * next node and node `first`. */
typedef struct {
    qp_aabb box;
    uint32_t first;
    uint32_t count;
} qp_mesh_node;

/* A built mesh. Read its fields; set them only through qp_mesh_build. */
typedef struct qp_mesh_s {
    const qp_vec3 *vertices;      /* caller's, mesh frame */
    const uint32_t *indices;      /* caller's, 3 per triangle, counter-clockwise seen from the front */
    uint32_t vertex_count, triangle_count;
    qp_mesh_node *nodes;          /* in the build memory */
    uint32_t *order;              /* triangle indices in leaf order (build memory) */
    uint8_t *edge_flags;          /* per triangle: bit k set = edge k (vertex k to k + 1) is active */
    uint32_t node_count;
    qp_aabb bounds;               /* of every vertex */
    uint32_t checksum;            /* of vertices and triangles: the mesh's identity in hashes and snapshots */
} qp_mesh;

/* Bytes of build memory a mesh of n triangles needs (4-byte aligned). */
#define QP_MESH_MEMORY_SIZE(n) \
    ((unsigned long)(2ul * (((unsigned long)(n) + QP_MESH_LEAF_TRIANGLES - 1) / QP_MESH_LEAF_TRIANGLES) + 1) * \
         sizeof(qp_mesh_node) + 5ul * (unsigned long)(n) + 4ul)
unsigned long qp_mesh_memory_size(uint32_t triangle_count);

/* Build *out from caller's vertices and triangles into memory[0 .. size). QP_OK, or
 *   QP_ERR_PARAM  null pointers, no triangles, an index past vertex_count, a triangle of
 *                 zero area (or two equal corners), an edge shared by more than two triangles
 *   QP_ERR_RANGE  a vertex beyond QP_LEVEL_MAX_COORD, more than QP_MESH_MAX_TRIANGLES
 *   QP_ERR_BUFFER size below qp_mesh_memory_size(triangle_count)
 * On an error *out is unchanged; *bad_triangle (if not null) names the triangle at fault
 * (or -1). The build takes O(n log^2 n) time and no stack beyond a fixed bound. */
qp_result qp_mesh_build(qp_mesh *out, const qp_vec3 *vertices, uint32_t vertex_count, const uint32_t *indices,
                        uint32_t triangle_count, void *memory, unsigned long size, long *bad_triangle) QP_MUST_USE;

/* A heightfield: rows x cols heights (row-major; row i along +z at z = i * spacing, column j
 * along +x at x = j * spacing, y up), each cell split into two triangles along its
 * diagonal from (i, j) to (i + 1, j + 1). */
typedef struct qp_heightfield_s {
    const fix16_t *heights;       /* caller's, rows * cols */
    uint32_t rows, cols;
    fix16_t spacing;
    fix16_t min_height, max_height;
    uint32_t checksum;
} qp_heightfield;

/* Fill *out: QP_ERR_PARAM for null heights or rows or cols below 2; QP_ERR_RANGE for a side
 * above QP_HEIGHTFIELD_MAX_SIDE, a spacing outside [QP_HEIGHTFIELD_MIN_SPACING,
 * QP_HEIGHTFIELD_MAX_SPACING], an extent or height beyond QP_LEVEL_MAX_COORD. */
qp_result qp_heightfield_init(qp_heightfield *out, const fix16_t *heights, uint32_t rows, uint32_t cols,
                              fix16_t spacing) QP_MUST_USE;

/* Shapes that reference them (static bodies only; offset and rotation may be set after). */
qp_result qp_make_mesh_shape(const qp_mesh *mesh, qp_shape *out) QP_MUST_USE;
qp_result qp_make_heightfield_shape(const qp_heightfield *field, qp_shape *out) QP_MUST_USE;

/* A triangle of a level shape, in its frame: corners a, b, c counter-clockwise seen from
 * the front (the solid side is behind), and which edges are active (bit 0: a-b, 1: b-c,
 * 2: c-a). */
typedef struct {
    qp_vec3 v[3];
    uint32_t index;               /* mesh: triangle index; heightfield: 2 * (row * (cols - 1) + col) + half */
    uint8_t active;
} qp_level_triangle;

/* Visit the triangles of a level shape whose boxes overlap box (shape frame), in a fixed
 * order (BVH order; heightfield: cell order). Calls visit(ctx, tri) for each; a nonzero
 * return stops the walk. Returns the number visited. */
typedef int (*qp_level_visit)(void *ctx, const qp_level_triangle *tri);
uint32_t qp_level_query(const qp_shape *level, const qp_aabb *box, qp_level_visit visit, void *ctx);

/* Nearest hit of the ray o + t * u (unit u, Q2.30; t in [0, len], shape frame) on the front of a
 * level shape's triangles; ties go to the lower triangle index. *dist, *normal (Q2.30) and
 * *tri_index are set on a hit. The same answer as testing every triangle. */
bool qp_level_raycast(const qp_shape *level, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *normal,
                      uint32_t *tri_index);

/* The ray test behind qp_level_raycast, for one triangle: a hit on its front within
 * [0, len] sets *dist and its unit normal *n (Q2.30). Edges count as inside (within two
 * units), so a ray never slips through a seam. */
bool qp_raycast_triangle(const qp_level_triangle *t, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist,
                         qp_vec3 *n);

/* Whether a shape type is a static level shape (mesh or heightfield). */
static inline bool qp_shape_is_level(qp_shape_type t)
{
    return t == QP_SHAPE_MESH || t == QP_SHAPE_HEIGHTFIELD;
}

#ifdef __cplusplus
}
#endif

#endif
