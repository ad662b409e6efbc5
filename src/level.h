/* SPDX-License-Identifier: MIT */
/* Level geometry's shared triangle helpers (mesh.c, heightfield.c, collide_triangle.c).
 *
 * Triangles are given in the level shape's frame, with coordinates within
 * QP_LEVEL_MAX_COORD (2^27 raw): edge components stay below 2^28 raw, so an edge
 * cross product (two products below 2^56 each) fits 64 bits exactly.
 */
#ifndef QPHYS_LEVEL_H
#define QPHYS_LEVEL_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/mesh.h"

/* Below this largest component of an edge cross product (Q32.32: twice the area,
 * 1.5e-5 m^2) a triangle has no usable normal: it counts as zero area. */
#define QP__LEVEL_MIN_CROSS ((int64_t)1 << 16)
/* An edge between two triangles whose normals are closer than about 5 degrees is
 * flat for contacts (cos 5 degrees in Q2.30). */
#define QP__LEVEL_FLAT_COS  ((int32_t)1069655635)

/* Unit normal (Q2.30) of the counter-clockwise triangle a, b, c; false for zero area. */
bool qp__tri_normal(qp_vec3 a, qp_vec3 b, qp_vec3 c, qp_vec3 *n30);
/* Whether edge a-b of a triangle with normal n is active (convex by more than the flat
 * angle), given the neighbour's corner opp off the edge (the neighbour is b, a, opp). */
bool qp__edge_active(qp_vec3 n, qp_vec3 a, qp_vec3 b, qp_vec3 opp);
/* FNV-1a step over one 32-bit word, little-endian bytes. */
uint32_t qp__level_hash(uint32_t h, uint32_t v);
/* Whether the segment's box [lo, hi] meets box b. */
static inline bool qp__aabb_overlap(const qp_aabb *a, const qp_aabb *b)
{
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
           a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}
/* Contacts of a convex shape with a level shape (collide_triangle.c). */
int qp__collide_level(const qp_shape *level, const qp_shape *convex, const qp_transform *convex_in_level,
                      fix16_t margin, qp_manifold *m);
/* The heightfield's part of qp_level_query and qp_level_raycast (heightfield.c). */
uint32_t qp__heightfield_query(const qp_heightfield *f, const qp_aabb *box, qp_level_visit visit, void *ctx);
bool qp__heightfield_raycast(const qp_heightfield *f, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist,
                             qp_vec3 *normal, uint32_t *tri_index);

#endif
