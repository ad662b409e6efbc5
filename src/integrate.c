/* SPDX-License-Identifier: MIT */
/* Stages "forces" and "integrate": forces into velocities, velocities into poses.
 *
 * Positions move with the final velocities plus the split-impulse
 * pseudo-velocities (which are then dropped). Speeds are clamped to the
 * world's limits first, and a body that leaves the world bounds is frozen:
 * both raise a flag the user can read, never a silent overflow.
 */
#include "body.h"
#include "scratch.h"
#include "stages.h"
#include "math_inline.h"

/* Scale v down to length max (> 0) when it is longer; 1 if it was. The length is taken in
 * 64 bits, rounded up, and each component is scaled with truncation toward zero, so the
 * result is never longer than max whatever v was (a large impulse can leave |v| past
 * Q16.16's 32768, where qp_v3_len saturates and a scale taken from it left |v| above max). */
fix16_t qp__clamp_speed(qp_vec3 *v, fix16_t max)
{
    uint64_t sq = (uint64_t)((int64_t)v->x * v->x) + (uint64_t)((int64_t)v->y * v->y) +
                  (uint64_t)((int64_t)v->z * v->z);                  /* < 3 * 2^62: no wrap */
    if (sq <= (uint64_t)((int64_t)max * max)) return 0;
    uint64_t len = qp_isqrt64(sq);
    if (len * len < sq) len++;                                       /* ceil(|v|), raw Q16.16 */
    v->x = (fix16_t)((int64_t)v->x * max / (int64_t)len);
    v->y = (fix16_t)((int64_t)v->y * max / (int64_t)len);
    v->z = (fix16_t)((int64_t)v->z * max / (int64_t)len);
    return 1;
}

bool qp__clamp_spin_past(qp_world *w, int i)
{
    qp_body_state *b = &w->bodies[i];
    if (!qp__clamp_speed(&b->w, w->def.max_angular_speed)) return false;
    b->flags |= QP_FLAG_SPEED_CLAMPED;
    return true;
}

void qp__apply_forces(qp_world *w)
{
    fix16_t dt = w->def.dt;
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!qp__body_moves(b)) continue;
        qp_vec3 accel = qp__v3_mad(w->def.gravity, qp__body_force(w, b), b->inv_mass);
        b->v = qp__v3_mad(b->v, accel, dt);
        if (!qp__body_has_torque(w, b)) {
            /* No torque: what the general form gives (w + 0 * dt, saturated), without the
             * world inertia and its product (as qp__predicted_velocity). */
            b->w = qp_v3(qp__sat32(b->w.x), qp__sat32(b->w.y), qp__sat32(b->w.z));
            continue;
        }
        qp_mat3 inv_inertia = qp__body_inv_inertia(b);
        b->w = qp__v3_mad(b->w, qp_mat3_mul_v3(&inv_inertia, qp__body_torque(w, b)), dt);
    }
}

/* Move body i by v and omega for dt. Past the bounds it freezes: kept, flagged, never
 * moved again (true then). */
static bool advance(qp_world *w, int i, qp_vec3 v, qp_vec3 omega, fix16_t dt)
{
    qp_body_state *b = &w->bodies[i];
    b->x = qp__v3_mad(b->x, v, dt);
    /* Its rotation matrix and world inverse inertia are q's (every call that sets q or the
     * inertia syncs them): they stay while q does. Without spin q is often its own
     * normalisation, and comes back as it was. */
    if (!qp__quat_stays(b->q, omega)) {
        const qp_quat q = b->q;
        b->q = qp_quat_integrate(q, omega, dt);
        if ((omega.x | omega.y | omega.z) != 0 || !qp__same_quat(b->q, q)) qp__body_sync(b);
    }
    if (qp__v3_max_abs(b->x) <= w->def.bounds) return false;
    b->state |= QP_STATE_FROZEN;
    b->flags |= QP_FLAG_OUT_OF_BOUNDS;
    b->v = b->w = qp_v3_zero();
    return true;
}

static void update_boxes(qp_world *w, int i)
{
    qp_rot3 r = qp__body_rot(&w->bodies[i]);
    qp__body_update_aabbs(w, i, &w->bodies[i].x, &r);
}

void qp__integrate(qp_world *w)
{
    fix16_t dt = w->def.dt;
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        qp__body_forces_applied(w, b);
        if (qp__body_drives(b)) {
            /* A kinematic body follows its own velocities (set by the user, never
             * changed by the step); its boxes follow it (the predicted ones were its). */
            advance(w, i, b->v, b->w, dt);
            update_boxes(w, i);
            continue;
        }
        if (!qp__body_moves(b)) continue;
        if (qp__clamp_speed(&b->v, w->def.max_linear_speed) | qp__clamp_speed(&b->w, w->def.max_angular_speed))
            b->flags |= QP_FLAG_SPEED_CLAMPED;
        if (b->state & QP_STATE_WOKEN) {
            /* Woken by the passes: still this step, not still for the next (sleep.c). */
            b->state &= (uint16_t)~(QP_STATE_WOKEN | QP_STATE_STILL);
            continue;
        }
        const fix16_t *pv = qp__split(w)->pseudo_v[i];
        qp_vec3 v = qp__v3_add(b->v, qp_v3(pv[0], pv[1], pv[2]));
        qp_vec3 omega = qp__v3_add(b->w, qp_v3(pv[3], pv[4], pv[5]));
        /* Still: what moves it now (split impulse included) would take it about a
         * hundredth of a unit a step; the next narrow phase may keep its manifolds. */
        bool still = qp__v3_max_abs(v) <= QP_STILL_SPEED && qp__v3_max_abs(omega) <= QP_STILL_SPEED;
        b->state = (uint16_t)(still ? b->state | QP_STATE_STILL : b->state & ~QP_STATE_STILL);
        if (advance(w, i, v, omega, dt)) update_boxes(w, i);
    }
}
