/* SPDX-License-Identifier: MIT */
/* Internal geometry helpers shared by the collide and ray-cast files.
 *
 * Segments are kept in centre form: centre c (Q16.16), unit direction u
 * (Q2.30) and half length h (Q16.16), the points c + s*u for s in [-h, h].
 * Capsule axes and box edges are naturally in this form, and a parameter s
 * in metres keeps millimetre precision on a 100 m segment (a [0, 1] fraction
 * in Q16.16 would not). Every product is formed in 64 bits and rounded once;
 * inputs are relative coordinates (within ~2000 m of each other).
 * Names are stable: src/collide_box*.c use them.
 */
#ifndef QPHYS_GEOMETRY_H
#define QPHYS_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/collide.h"
#include "compiler.h"
#include "math_inline.h"

/* qp_shift_round, inline: a call across files costs a Cortex-M as much again as the
 * rounding itself, in the collide functions' every product. The same bits. */
static inline int32_t qp__shift_round(int64_t v, int n)
{
    return qp__sat32(qp__shift_round64(v, n));
}

typedef struct {
    qp_vec3 c;     /* centre, Q16.16 */
    qp_vec3 u;     /* unit direction, Q2.30 */
    fix16_t h;     /* half length >= 0, Q16.16 */
} qp__segment;

/* The world box of a box shape centred at p with rotation r, grown by margin on every side:
 * qp_shape_aabb's box then the margin, the same bits, without a transform made first. */
qp_aabb qp__box_aabb_grown(const qp_shape *s, qp_vec3 p, const qp_rot3 *r, fix16_t margin);
/* Mass and principal moments (m, Ixx, Iyy, Izz about the centre, in the
 * shape's frame) of a validated, non-plane shape at density rho (raw
 * Q16.16), in Q18.46; false when they overflow. */
bool qp__shape_moments(const qp_shape *s, uint64_t rho, uint64_t out[4]);
/* A shape's mass data (body frame: offset and rotation applied) from its
 * mass and principal moments in Q16.16. */
void qp__shape_mass_data(const qp_shape *s, fix16_t m, fix16_t ix, fix16_t iy, fix16_t iz, qp_mass_data *out);

/* v clamped to [lo, hi] (lo <= hi). */
fix16_t qp__clamp(fix16_t v, fix16_t lo, fix16_t hi);
/* round(n / d) for d != 0, halves away from zero; no overflow for any n and
 * |d| < 2^62 (INT64_MIN excluded). */
int64_t qp__div_round64(int64_t n, int64_t d);
/* p + u*t with u in Q2.30: one rounding per component, saturating. */
qp_vec3 qp__v3_mad_q30(qp_vec3 p, qp_vec3 u30, fix16_t t);
/* (a + b) / 2 per component, rounded half up, never overflowing. */
qp_vec3 qp__v3_mid(qp_vec3 a, qp_vec3 b);
/* R u for a Q2.30 vector u (a unit normal): result Q2.30. */
qp_vec3 qp__rot_q30(const qp_rot3 *r, qp_vec3 u30);
/* Unit (Q2.30) vector along d, or fallback30 when d is zero. Returns false
 * when the fallback was used. */
bool qp__normal_or(qp_vec3 d, qp_vec3 fallback30, qp_vec3 *n30);
/* A unit vector perpendicular to the unit u (Q2.30), chosen deterministically
 * from u's smallest component. */
qp_vec3 qp__perpendicular(qp_vec3 u30);

/* Segment from two end points; a zero-length segment gets u = +y, h = 0. */
qp__segment qp__segment_from_points(qp_vec3 p0, qp_vec3 p1);
/* The point c + u*s of a segment. */
qp_vec3 qp__segment_point(const qp__segment *seg, fix16_t s);
/* Parameter s in [-h, h] of the point of the segment closest to p. */
fix16_t qp__segment_closest_s(const qp__segment *seg, qp_vec3 p);
/* The point of the segment closest to p. */
qp_vec3 qp__segment_closest_point(const qp__segment *seg, qp_vec3 p);

/* Below this value of 1 - (ua.ub)^2 (Q2.30; sin^2 of the angle, ~1e-6, an
 * angle of ~0.06 degrees) two segments are treated as parallel. */
#define QP__PARALLEL_SIN2   ((int64_t)1 << 10)

/* Closest points of two segments: *s on a, *t on b (both clamped to their
 * segments). Robust for parallel and zero-length segments: when parallel the
 * pair is taken at the middle of the overlap of b's projection on a (or at the
 * nearest ends when they do not overlap), so the result is deterministic.
 * Returns true when the segments were treated as parallel. */
bool qp__segments_closest(const qp__segment *a, const qp__segment *b, fix16_t *s, fix16_t *t);

/* Box collision (collide_box.c, collide_box_box.c) shares its tolerances, so
 * every pair with a box prefers faces the same way and no manifold flickers
 * between nearly equal axes. */
#define QP__W_ONE           ((int64_t)1 << 30)      /* Q16.16 value x QP__W_ONE = Q46 */
#define QP__BOX_TOL_ABS     QP_FRAC(1, 2000)        /* 0.5 mm */
#define QP__BOX_TOL_FACE    6                       /* + |depth|/64: B's face over A's */
#define QP__BOX_TOL_EDGE    4                       /* + |depth|/16: an edge over a face */
#define QP__BOX_EDGE_MIN2   ((int64_t)1 << 40)      /* |e x c|^2 (Q60): sin < 2^-10, parallel */
#define QP__BOX_FAR         QP_INT(2048)            /* beyond this nothing can touch */

/* Keep at most 4 of n <= 64 candidate points (rows u, v, depth in the reference
 * face's frame): the deepest (a corner when depths are nearly equal), the
 * farthest from it, then the largest triangle on each side (collide_box_box.c). */
int qp__reduce_contacts(const fix16_t cand[][3], int n, int keep[4]);
/* A face's points past the margin, cand[gaps..end), fill the places that the count points
 * kept within it leave in keep, each the gap farthest from every point kept so far (ties:
 * the first); returns the new count. A body landing on an edge turns about it, and its far
 * edge must meet the face in the same step: with only the points within the margin it turned
 * down with no point there (two cubes landing edge-first put a corner over 5 cm into a static
 * box or hull, or hull cubes into the plane, in one landing of ten: bench_landings). The
 * narrow phase marks them (contact.h, qp__point_gap); plane-box keeps its far corners alike. */
int qp__keep_gaps(const fix16_t cand[][3], int gaps, int end, int count, int keep[4]);
/* Two boxes' largest separation along the 15 axes of the separating axis test, Q16.16
 * (<= 0: they overlap along every axis, so they intersect, by that much at least): a
 * lower bound of their distance at any range, where a manifold's depths are found only
 * within its margin and over the clipped face (continuous.c). *axis: that axis, a unit
 * Q2.30 vector in A's frame from A towards B. */
fix16_t qp__box_box_separation(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, qp_vec3 *axis);
/* A capsule a's distance from a box b less its radius, as qp_collide_capsule_box finds
 * it (the closest points where the segment misses the box, else minus the segment's
 * least depth along the six axes of its separating axis test), at any range
 * (collide_box.c); *axis as above, from the capsule towards the box. */
fix16_t qp__capsule_box_separation(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, qp_vec3 *axis);

#endif
