/* SPDX-License-Identifier: MIT */
/* Bodies (body.c): what a body is to the stages, its pose's derived data, its
 * shapes in the world, and the limits on its mass and speed. */
#ifndef QPHYS_BODY_H
#define QPHYS_BODY_H

#include "qphys/world.h"
#include "compiler.h"
#include "layout.h"

/* Body state bits the stages use as scratch (qp_body_state.state, beside the public
 * QP_STATE_* bits of world_impl.h), each clear outside the stage named. */
enum {
    QP_STATE_STRUCK  = 1u << 7,  /* scratch inside the continuous stage only: pushed by a moving
                                    body or held by a joint this step (its motion is not the predicted one) */
    QP_STATE_LOOSE   = 1u << 8,  /* scratch inside the contact pass only, on an island's root: */
    QP_STATE_SETTLED = 1u << 9,  /* a visit of this sweep was loose; the island settled */
    QP_STATE_JOINED  = 1u << 10, /* scratch inside the shock pass only: a joint holds it */
    QP_STATE_CUT     = 1u << 11, /* scratch inside the continuous stage only: its motion was cut */
    QP_STATE_TOUCHED = 1u << 12, /* scratch inside the joint trees' factoring only: a contact may push it */
    QP_STATE_WOKEN   = 1u << 13, /* from "check sleepers" to "integrate": woken by the passes, kept still */
    QP_STATE_DOZED   = 1u << 14, /* scratch inside "check sleepers" only: asleep when it began */
    QP_STATE_ROUSED  = 1u << 15, /* scratch inside the narrow phase only: woken by an arrival (wake_arrivals) */
    QP_STATE_BRISK   = 1u << 11  /* CUT's bit, scratch inside the contact pass only, on an island's root:
                                    a body of the island does not linger (solve_contacts.c) */
};

/* Largest entry of a body's inverse inertia (1/(kg m^2)): a 0.1 m, 0.1 kg
 * cube has 6000. Bodies beyond it are rejected at creation (QP_ERR_RANGE). */
#define QP_INV_INERTIA_MAX QP_INT(10000)
/* Inertia below this on an axis (kg m^2) is raised by it on every axis at
 * creation: adding f E keeps the tensor's axes and makes every eigenvalue
 * >= f, so the inverse stays within QP_INV_INERTIA_MAX = 1 / f. */
#define QP_INERTIA_FLOOR QP_FRAC(1, 10000)

/* Is the speed |v| above limit (0 < limit < 2^24: 256 m/s or rad/s)? Exactly, as the speed
 * clamp and a snapshot's reader test it: a rounded length let 50.000005 rad/s through. A
 * component above the limit answers first, which keeps the squares below 2^48. */
static inline bool qp__speed_above(qp_vec3 v, fix16_t limit)
{
    if (qp_v3_max_abs(v) > limit) return true;
    return (int64_t)v.x * v.x + (int64_t)v.y * v.y + (int64_t)v.z * v.z > (int64_t)limit * limit;
}

/* A body the step moves: used, dynamic, awake, not frozen. */
static inline bool qp__body_moves(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_ASLEEP | QP_STATE_FROZEN)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC);
}

/* A body that takes impulses: used, dynamic, not frozen (sleepers too: a
 * sleeper pushed hard enough wakes after the contact pass). */
static inline bool qp__body_dynamic(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_FROZEN)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC);
}

/* A sleeper created asleep whose contacts are yet to be found: placed since its last step.
 * The broad phase pairs it with the sleepers and static bodies it overlaps, and the narrow
 * phase records those contacts asleep, as if it had fallen asleep there: without them, the
 * body an arrival wakes had no resting contact to collide and solve. */
static inline bool qp__body_unrecorded(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_ASLEEP | QP_STATE_PLACED)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_ASLEEP | QP_STATE_PLACED);
}

/* A body is still (QP_STATE_STILL, integrate.c) when neither its velocity nor its spin, split
 * impulse included, is above this many units a second on any axis: 8 units, 1.2e-4 m/s
 * (rad/s), 2 millionths of a metre a step at 60 Hz. Most cubes of a resting pile are, every
 * step; anything set moving, pushed by a call or falling is not. */
#define QP_STILL_SPEED 8

/* A kinematic body that moves this step (used, not frozen, a velocity not zero): it
 * drives what it touches (broad phase, sleep), like an awake dynamic body does. */
static inline bool qp__body_drives(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_KINEMATIC | QP_STATE_FROZEN)) ==
               (QP_STATE_USED | QP_STATE_KINEMATIC) &&
           (b->v.x | b->v.y | b->v.z | b->w.x | b->w.y | b->w.z) != 0;
}

/* Nothing moves it this step: neither an awake dynamic body nor a kinematic one in motion. */
static inline bool qp__body_held(const qp_body_state *b)
{
    return !qp__body_moves(b) && !qp__body_drives(b);
}

void qp__body_sync(qp_body_state *b);   /* rotation matrix and world inertia from q (if kept) */
void qp__body_update_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r);
/* Grow the body's shape boxes to hold them at pose (x, r) too: a fast body's
 * boxes cover its whole sweep, start to predicted pose. */
void qp__body_sweep_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r);
qp_transform qp__shape_world(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r);
/* The mass, centre and inertia qp_create_body would compute for a dynamic def: QP_OK or why not. */
qp_result qp__body_mass_check(const qp_body_def *def);
/* The same for a def whose hull shape has no hull built (hull null): its points are
 * points[0..count), distinct (a scene line being checked). */
qp_result qp__body_mass_check_points(const qp_body_def *def, const qp_vec3 *points, int count);
/* The inverse inertia (body frame) and centre of mass of shapes sharing mass by volume, as
 * qp_create_body computes them for a body of that mass: QP_OK or why not (snapshot.c checks
 * a restored body against it). */
bool qp__mat3_positive_definite(const qp_mat3 *a);   /* symmetric, positive definite, exactly (math.c) */
qp_result qp__body_inverse_inertia(const qp_shape *shapes, int count, fix16_t mass, qp_mat3 *inv_inertia,
                                   qp_vec3 *center);

/* Half the thickness of a shape's thinnest part (sphere and capsule:
 * radius; box: smallest half extent; hull: from its centre to its nearest face; plane and
 * level shapes: unbounded). A body that moves more than about this in a step can pass
 * through what it meets. */
static inline fix16_t qp__shape_core(const qp_shape *s)
{
    if (s->type == QP_SHAPE_BOX) {   /* first: the narrow phase asks it of both shapes of every pair */
        fix16_t c = s->half.x < s->half.y ? s->half.x : s->half.y;
        return c < s->half.z ? c : s->half.z;
    }
    if (s->type == QP_SHAPE_PLANE || s->type == QP_SHAPE_MESH || s->type == QP_SHAPE_HEIGHTFIELD) return INT32_MAX;
    if (s->type == QP_SHAPE_HULL) return s->hull->inner;
    return s->radius;
}

/* A round shape (sphere, capsule) is the body's shape in slot: only a contact with
 * one holds static friction anchors (narrow_phase.c, penetration.c), so only its drift
 * is found (solver.c). Inline: three stages ask it of every contact every step. */
static inline bool qp__shape_round(const qp_world *w, int body, int slot)
{
    qp_shape_type t = w->shapes[w->bodies[body].shapes[slot]].shape.type;
    return t == QP_SHAPE_SPHERE || t == QP_SHAPE_CAPSULE;
}

/* A body's velocities at the end of the step if nothing collided (predict.c). */
void qp__predicted_velocity(const qp_world *w, const qp_body_state *b, qp_vec3 *v, qp_vec3 *omega);

/* Speed limits (integrate.c). */
fix16_t qp__clamp_speed(qp_vec3 *v, fix16_t max); /* returns 1 if clamped */
/* Body i's spin clamped (and flagged) now, as integrate would clamp it, if it moves:
 * the collision and contact passes clamp after each sweep, so that the approach an
 * off-centre impulse left at its point once the clamp took its spin is seen by the
 * next sweep (a 0.1 m box hit 2 cm off centre at 100 m/s asks for 960 rad/s; with
 * the clamp after the passes only, it ploughed on into what it hit). True if it was. */
bool qp__clamp_spin_past(qp_world *w, int i);   /* the rare case, out of line */
static inline bool qp__clamp_spin(qp_world *w, int i)
{
    const qp_body_state *b = &w->bodies[i];
    if (!qp__body_moves(b)) return false;
    uint64_t sq = (uint64_t)((int64_t)b->w.x * b->w.x) + (uint64_t)((int64_t)b->w.y * b->w.y) +
                  (uint64_t)((int64_t)b->w.z * b->w.z);
    return sq > (uint64_t)((int64_t)w->def.max_angular_speed * w->def.max_angular_speed) && qp__clamp_spin_past(w, i);
}

/* gyroscopic.c: omega after one step of w x I w (implicit), I given by its world inverse. */
qp_vec3 qp__gyroscopic(const qp_mat3 *inv_inertia, qp_vec3 omega, fix16_t dt);

#endif
