/* SPDX-License-Identifier: MIT */
/* Contacts and manifolds (narrow_phase.c makes them, the passes solve them), and the
 * shape pairs they come from (broad_phase.c): keys, filters, impulse units. */
#ifndef QPHYS_CONTACT_H
#define QPHYS_CONTACT_H

#include "qphys/world.h"
#include "body.h"

/* The next narrow phase may keep the manifold of a contact with these flags and points, as
 * far as the contact says (narrow_phase.c asks its bodies too): found or kept fewer than
 * twice in a row, touching, neither asleep, swept nor spawned inside. Only then are its
 * depths state (hashed and in snapshots): any other contact's are found again before they
 * are read. */
#define QP_KEPT_SHIFT 6
#define QP_KEPT_MAX 2u
_Static_assert(QP_CONTACT_KEPT == 3u << QP_KEPT_SHIFT, "the kept count is the flags' two top bits");
static inline bool qp__contact_depths_live(unsigned flags, int count)
{
    return count > 0 && (flags >> QP_KEPT_SHIFT) < QP_KEPT_MAX &&
           !(flags & (QP_CONTACT_SLEEPING | QP_CONTACT_SWEPT | QP_CONTACT_OVERLAP));
}

/* A point found past the contact margin, a gap the collider keeps (the far corners of a box's
 * or hull's face turned to a plane, a box, a hull or a triangle), marked in its feature id
 * (narrow_phase.c): it pushes only when its corner closes more than its gap in the step, and
 * it is no part of the manifold's middle (centroid, friction anchors, twist radius) nor of
 * the collision pass's blow unless it collides. No collider's ids use this bit. */
#define QP__POINT_GAP ((uint32_t)1 << 31)
static inline bool qp__point_gap(const qp_contact_point *p)
{
    return (p->id & QP__POINT_GAP) != 0;
}

/* The impulses of a contact between light bodies are kept in units of 2^-shift N s:
 * in N s, Q16.16 resolves a velocity change of 1.5e-5 / m only, which for a 0.1 kg
 * cube (about 1 mm/s) let columns of them creep 2-4 cm in 10 s. The shift is
 * floor(log2(K / 2)) for K = the sum of the inverse masses (kg^-1), 0 to
 * QP_IMPULSE_SHIFT_MAX: 0, the plain N s, for any pair whose inverse masses sum to
 * under 4 (two bodies of 0.5 kg or more, or one of 0.25 kg or more on static ground).
 * Every effective mass of the contact's rows is scaled by 2^shift (solver.c), so its
 * impulses, totals and warm start are in that unit throughout, and applying one divides
 * the shift out. A function of the two masses only, so it needs no storage. */
#define QP_IMPULSE_SHIFT_MAX 6
static inline int qp__impulse_shift(const qp_body_state *a, const qp_body_state *b)
{
    uint32_t s = (uint32_t)(((int64_t)a->inv_mass + b->inv_mass) >> 17);   /* K / 2, whole */
    int shift = 0;
    while (s > 1 && shift < QP_IMPULSE_SHIFT_MAX) {
        s >>= 1;
        shift++;
    }
    return shift;
}
static inline int qp__contact_shift(const qp_world *w, const qp_contact *c)
{
    return qp__impulse_shift(&w->bodies[c->a], &w->bodies[c->b]);
}
/* A contact's impulse in N s (events, queries). */
static inline fix16_t qp__contact_impulse(const qp_world *w, const qp_contact *c, int64_t j)
{
    int shift = qp__contact_shift(w, c);
    int64_t v = shift == 0 ? j : (j + (INT64_C(1) << (shift - 1))) >> shift;
    return v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : (fix16_t)v;
}

/* Which sides of a contact can move (shock propagation pins the lower one). */
enum { QP_MOVE_A = 1, QP_MOVE_B = 2, QP_MOVE_BOTH = 3 };

/* The arm from b's centre of mass to point k of contact c. */
static inline qp_vec3 qp__arm_b(const qp_contact *c, int k)
{
    return qp_v3_add(c->p[k].ra, c->ab);
}

/* The sort key of a shape pair or contact: (body a, body b, slot a, slot b). */
static inline uint64_t qp__contact_key(int a, int b, int sa, int sb)
{
    return ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)sa << 8) | (uint64_t)sb;
}

static inline uint64_t qp__pair_key(const qp_world *w, const qp_pair *p)
{
    const qp_shape_slot *a = &w->shapes[p->a], *b = &w->shapes[p->b];
    return qp__contact_key(a->body, b->body, a->slot, b->slot);
}

/* May two shapes of different bodies make a pair (qp_shape_filter's rule; sensors do
 * not see sensors)? */
static inline bool qp__shapes_pair(const qp_shape_slot *a, const qp_shape_slot *b)
{
    if (a->flags & b->flags & QP_SHAPE_SENSOR) return false;
    if (a->filter.group == b->filter.group && a->filter.group != 0) return a->filter.group > 0;
    return (a->filter.category & b->filter.mask) != 0 && (b->filter.category & a->filter.mask) != 0;
}

/* Is either shape of a pair a sensor? */
static inline bool qp__pair_is_sensor(const qp_world *w, const qp_pair *p)
{
    return ((w->shapes[p->a].flags | w->shapes[p->b].flags) & QP_SHAPE_SENSOR) != 0;
}

/* A round shape (sphere, capsule) touches in c (qp__shape_round). */
static inline bool qp__contact_round(const qp_world *w, const qp_contact *c)
{
    return qp__shape_round(w, c->a, c->sa) || qp__shape_round(w, c->b, c->sb);
}

#endif
