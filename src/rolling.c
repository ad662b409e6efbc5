/* SPDX-License-Identifier: MIT */
/* Stage "rolling": rolling resistance.
 *
 * A round shape (sphere, capsule) rolling over what it touches deforms both a little, and
 * the load ends up ahead of the point of contact: a torque c r N against the roll, for a
 * coefficient c (qp_body_def.rolling_resistance, the larger of the two bodies'), the round
 * shape's radius r (the smaller of two) and the normal force N. Each step, before the
 * contact pass, every awake round contact takes an angular impulse against its bodies'
 * relative spin about the axes in its plane: at most c r times the normal impulse its
 * points carry into the pass (last step's, their warm start), and no more than stops that
 * spin. The contact pass's friction then turns the slower spin into a slower roll: a solid
 * ball rolling at v on a level floor slows at 5/7 c g and stops within 7 v^2 / (10 c g).
 * Spin about the normal is the twist friction's (solver.c). With every coefficient 0 (the
 * default) the stage changes nothing.
 */
#include "body.h"
#include "contact.h"
#include "layout.h"
#include "solver.h"
#include "stages.h"

/* The radius that rolls in contact c: its round shape's, the smaller of two; 0 when
 * neither is round. */
static fix16_t rolling_radius(const qp_world *w, const qp_contact *c)
{
    fix16_t r = 0;
    for (int s = 0; s < 2; s++) {
        int body = s == 0 ? c->a : c->b, slot = s == 0 ? c->sa : c->sb;
        if (!qp__shape_round(w, body, slot)) continue;
        fix16_t rs = w->shapes[w->bodies[body].shapes[slot]].shape.radius;
        if (r == 0 || rs < r) r = rs;
    }
    return r;
}

/* v's part along the unit normal n (Q2.30) taken away: what is left lies in the plane. */
static qp_vec3 in_plane(qp_vec3 v, qp_vec3 n)
{
    int64_t d = qp__v3_dot_q30(v, n);
    const int64_t h = (int64_t)1 << 29;
    return qp__v3_sub(v, qp_v3(qp__sat32((d * n.x + h) >> 30), qp__sat32((d * n.y + h) >> 30),
                                qp__sat32((d * n.z + h) >> 30)));
}

static void resist(qp_world *w, const qp_contact *c, fix16_t coefficient)
{
    qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    const bool move_a = qp__body_moves(a), move_b = qp__body_moves(b);
    fix16_t radius = rolling_radius(w, c);
    if ((!move_a && !move_b) || radius == 0) return;
    int64_t load = 0;
    for (int k = 0; k < c->count; k++) load += c->p[k].jn;
    if (load <= 0) return;
    /* The most angular impulse, c r jn (N m s): all three at most 1, 100 m and 32767 N s. */
    int64_t most = ((int64_t)qp__mul(coefficient, radius) * qp__contact_impulse(w, c, load) + ((int64_t)1 << 15)) >> 16;
    qp_vec3 roll = in_plane(qp__v3_sub(b->w, a->w), c->n);   /* a static or sleeping side's w is 0 */
    qp_vec3 u;
    if (most <= 0 || !qp_v3_normalize_q30(roll, &u)) return;
    const qp_vec3 axis = qp_v3_from_q30(u);
    qp_vec3 turn_a = qp_v3_zero(), turn_b = qp_v3_zero();   /* I^-1 u: each side's spin per N m s */
    if (move_a) {
        qp_mat3 ia = qp__body_inv_inertia(a);
        turn_a = qp_mat3_mul_v3(&ia, axis);
    }
    if (move_b) {
        qp_mat3 ib = qp__body_inv_inertia(b);
        turn_b = qp_mat3_mul_v3(&ib, axis);
    }
    int64_t k = (int64_t)qp__v3_dot_q30(turn_a, u) + qp__v3_dot_q30(turn_b, u);
    if (k <= 0) return;
    /* The impulse that stops the roll, |roll| / k, within the most. */
    int64_t need = ((int64_t)qp__v3_dot_q30(roll, u) * 65536 + k / 2) / k;
    fix16_t j = qp__sat32(need < most ? need : most);
    if (j <= 0) return;
    if (move_a) a->w = qp__v3_mad(a->w, turn_a, j);
    if (move_b) b->w = qp__v3_mad(b->w, turn_b, -j);
}

void qp__rolling(qp_world *w)
{
    for (int i = 0; i < w->contact_count; i++) {
        const qp_contact *c = &w->contacts[i];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        fix16_t ca = qp__body_rolling_resistance(w, &w->bodies[c->a]);
        fix16_t cb = qp__body_rolling_resistance(w, &w->bodies[c->b]);
        if ((ca | cb) == 0) continue;
        resist(w, c, ca > cb ? ca : cb);
    }
}
