/* SPDX-License-Identifier: MIT */
/* Stage "predict": predicted poses (seeds 003, 004; Guendelman-Bridson-Fedkiw).
 *
 * Every awake body is moved where gravity and its forces would take it this
 * step; collision detection runs there, so contacts are found a step early
 * (too much separation rather than too much penetration). The real state is
 * never overwritten: predictions live in pred.x / pred.q, which is the
 * "restore" of the seeds for free. With qp_world_def.gyroscopic on, each moving body's
 * spin takes its gyroscopic turn first (gyroscopic.c).
 */
#include "body.h"
#include "scratch.h"
#include "stages.h"
#include "math_inline.h"

void qp__predicted_velocity(const qp_world *w, const qp_body_state *b, qp_vec3 *v, qp_vec3 *omega)
{
    if (!qp__body_moves(b)) {
        *v = b->v;
        *omega = b->w;
        return;
    }
    fix16_t dt = w->def.dt;
    qp_vec3 accel = qp__v3_mad(w->def.gravity, qp__body_force(w, b), b->inv_mass);
    *v = qp__v3_mad(b->v, accel, dt);
    if (!qp__body_has_torque(w, b)) {
        /* What the general form gives without a torque (the inertia times zero is zero,
         * and a + 0 * dt rounds to a, saturated), without the world inertia and products:
         * most bodies, at every pair they are in. */
        *omega = qp_v3(qp__sat32(b->w.x), qp__sat32(b->w.y), qp__sat32(b->w.z));
        return;
    }
    qp_mat3 inv_inertia = qp__body_inv_inertia(b);
    *omega = qp__v3_mad(b->w, qp_mat3_mul_v3(&inv_inertia, qp__body_torque(w, b)), dt);
}

static fix16_t body_core(const qp_world *w, const qp_body_state *b)
{
    fix16_t core = INT32_MAX;
    for (int i = 0; i < b->shape_count; i++) {
        fix16_t c = qp__shape_core(&w->shapes[b->shapes[i]].shape);
        if (c < core) core = c;
    }
    return core;
}

/* Body i's shape boxes at its predicted pose. The default layout keeps the pose's
 * rotation for the narrow phase (pred.r: one conversion per body, not one per pair);
 * low-RAM converts again where it needs it. */
static QP__ALWAYS_INLINE void predicted_aabbs(qp_world *w, int i, bool stays)
{
    qp_rot3 scratch, *r = qp__predicted_rot_at(w, i, &scratch);
    if (QP_LAYOUT_KEEPS_DERIVED && stays) qp__predicted_rot_unmoved(w, i, &w->bodies[i]);   /* q is the body's */
    else *r = qp_quat_to_rot3(qp__pred(w)->q[i]);
    qp__body_update_aabbs(w, i, &qp__pred(w)->x[i], r);
}

void qp__predict(qp_world *w)
{
    qp__passes_forget(w);   /* its memory becomes the predicted poses */
    fix16_t dt = w->def.dt;
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        if (qp__body_drives(b)) {   /* kinematic: its own velocities, nothing else */
            qp__pred(w)->x[i] = qp__v3_mad(b->x, b->v, dt);
            qp__pred(w)->q[i] = qp_quat_integrate(b->q, b->w, dt);
            predicted_aabbs(w, i, false);
            continue;
        }
        if (!qp__body_moves(b)) {
            qp__pred(w)->x[i] = b->x;
            qp__pred(w)->q[i] = b->q;
            qp__predicted_rot_unmoved(w, i, b);
            continue;
        }
        if (w->def.gyroscopic) {
            /* The gyroscopic term turns the spin here, once a step, before anything reads
             * it: the predicted poses and the narrow phase's approach speeds see it. */
            qp_mat3 inv_inertia = qp__body_inv_inertia(b);
            b->w = qp__gyroscopic(&inv_inertia, b->w, dt);
        }
        qp_vec3 v, omega;
        qp__predicted_velocity(w, b, &v, &omega);
        qp__pred(w)->x[i] = qp__v3_mad(b->x, v, dt);
        bool stays = qp__quat_stays(b->q, omega);
        qp__pred(w)->q[i] = stays ? b->q : qp_quat_integrate(b->q, omega, dt);
        /* Without spin q is often its own normalisation (qp_quat_integrate gives it back). */
        if (!stays && (omega.x | omega.y | omega.z) == 0) stays = qp__same_quat(qp__pred(w)->q[i], b->q);
        predicted_aabbs(w, i, stays);
        /* A body that moves more than a quarter of its thinnest shape this
         * step is seen along its whole sweep, so that the narrow phase can
         * meet what lies between its poses (swept contacts, narrow_phase.c). */
        if (qp__v3_max_abs(qp__v3_sub(qp__pred(w)->x[i], b->x)) > body_core(w, b) / 4) {
            qp_rot3 r0 = qp__body_rot(b);
            qp__body_sweep_aabbs(w, i, &b->x, &r0);
        }
    }
}
