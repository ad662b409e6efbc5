/* SPDX-License-Identifier: MIT */
/* Convex hulls inside the core: a polyhedron view that the separating axis test of
 * collide_hull.c reads (a hull, a box, or any convex polygon soup with faces and edges,
 * such as one triangle of a mesh), and the hull's mass properties (hull.c). */
#ifndef QPHYS_HULL_H
#define QPHYS_HULL_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/collide.h"

/* A convex polyhedron in its own frame: vertices, faces with outward unit normals (Q2.30)
 * and offsets, each face's vertices counter-clockwise (face_verts[first .. first + count)),
 * and edges with the two faces that meet there. A flat polygon (a mesh triangle) is two
 * faces, one each way, on the same vertices. center: a point inside (or on a flat one). */
typedef struct {
    const qp_vec3 *verts;
    const qp_hull_face *faces;
    const uint8_t *face_verts;
    const qp_hull_edge *edges;
    int vert_count, face_count, edge_count;
    qp_vec3 center;
} qp__poly;

/* A hull's view. */
qp__poly qp__hull_poly(const qp_hull *h);

/* Collide convex polyhedron a (its frame) with b at b_in_a: the separating axis test over
 * a's faces, b's faces and the edge pairs whose arcs cross on the Gauss map, then face
 * clipping (up to 4 points) or one edge point. Fills m in a's frame, normal from a to b,
 * points at depth >= -margin; returns the count (0: m untouched). */
int qp__poly_collide(const qp__poly *a, const qp__poly *b, const qp_transform *b_in_a, fix16_t margin,
                     qp_manifold *m);

/* built: the hull built from p (its corners, in order), whose faces are then read instead of
 * walked again (the same sums, 20 times faster for 64 points), or null. */
/* The volume of the hull of the distinct points p[0..n) (qp_hull_check passed) in Q18.46
 * m^3, every length shrunk by 2^k (k >= 0); false when it does not fit. */
bool qp__hull_volume_q46(const qp_vec3 *p, int n, const qp_hull *built, int k, uint64_t *out);
/* Mass data of hull shape s whose points are p[0..n) (distinct), for its mass (body frame:
 * offset and rotation applied): centre of mass and inertia of the solid hull (tetrahedra from
 * its centre, 64-bit sums). From the points alone: a scene's line is checked without a hull. */
void qp__hull_mass_data(const qp_vec3 *p, int n, const qp_hull *built, const qp_shape *s, fix16_t mass,
                        qp_mass_data *out);
/* qp_shape_mass for hull shape s whose points are p[0..n) (distinct). */
qp_result qp__hull_shape_mass(const qp_shape *s, const qp_vec3 *p, int n, const qp_hull *built, fix16_t density,
                              qp_mass_data *out);
/* The shape-frame bounding box of the hull at xf (each vertex transformed). */
qp_aabb qp__hull_aabb(const qp_hull *h, const qp_transform *xf);
/* Does the hull's data hold together (counts, indices)? A hand-made or corrupted qp_hull is
 * refused by qp_shape_validate with it. */
bool qp__hull_sound(const qp_hull *h);
/* The ray o + u t, t in [0, len] (hull frame, u a Q2.30 unit vector) against the hull:
 * true with the entry distance and the face's outward normal; false when it misses or o is
 * inside. */
bool qp__ray_hull(const qp_hull *h, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *normal);

#endif
