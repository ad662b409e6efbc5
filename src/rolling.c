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
 * spin (a flat side resting on supports of its own below the other leaves that spin to the
 * other: held_below). The contact pass's friction then turns the slower spin into a slower
 * roll: a solid ball rolling at v on a level floor slows at 5/7 c g and stops within
 * 7 v^2 / (10 c g). Spin about the normal is the twist friction's (solver.c). A dynamic
 * round body's default is QP_ROUND_ROLLING_RESISTANCE (body.c); with every coefficient 0
 * the stage changes nothing.
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

/* Spin w given angular impulse j (in 2^-24 N m s, at least 0) about an axis along which it
 * turns by t (rad/s per N m s, Q16.16): in 2^-24 N m s, so that the small impulses of a low
 * coefficient on a light or small ball keep their size (in N m s, Q16.16 would round a
 * 0.2 kg, 5 cm ball's 0.005 to nothing). j above 2^31 N m s is taken as that. */
static fix16_t spun(fix16_t w, int64_t t, int64_t j)
{
    const int64_t whole = j >> 8 > INT32_MAX ? INT32_MAX : j >> 8;   /* N m s, Q16.16 */
    const int64_t turn = t * whole + ((t * (j & 255)) >> 8);
    return qp__sat32(((int64_t)w * 65536 + turn + ((int64_t)1 << 15)) >> 16);
}

/* Is side s of contact c (0: a, 1: b) held: a flat shape (not round) on a body that rests on
 * supports of its own, below the other body (the contact graph's levels and supports, this
 * step's)? A ball rolling on a cube of a pile turns the cube back with the resisting torque,
 * and the cube's supports take that turn in the contact pass: sized by both spins, the
 * impulse went mostly into the cube and left the ball rolling down a 4 mrad step at 0.005.
 * A round shape below rolls on its supports instead of being held by them. */
static bool held_below(const qp_world *w, const qp_contact *c, int s)
{
    const int i = s == 0 ? c->a : c->b, o = s == 0 ? c->b : c->a;
    return !qp__shape_round(w, i, s == 0 ? c->sa : c->sb) && w->bodies[i].supports > 0 &&
           w->bodies[i].level < w->bodies[o].level;
}

static void resist(qp_world *w, const qp_contact *c, fix16_t coefficient)
{
    qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    const bool move_a = qp__body_moves(a), move_b = qp__body_moves(b);
    fix16_t radius = rolling_radius(w, c);
    if ((!move_a && !move_b) || radius == 0) return;
    int64_t load = 0;   /* in the contact's unit, 2^-(16 + shift) N s */
    for (int k = 0; k < c->count; k++) load += c->p[k].jn;
    if (load <= 0) return;
    if (load > INT32_MAX) load = INT32_MAX;
    /* The most angular impulse, c r jn, in 2^-24 N m s: c r (at most 1 x 100 m) in 2^-24 m
     * under 2^31, times the load under 2^31. */
    const int64_t cr = ((int64_t)coefficient * radius + ((int64_t)1 << 7)) >> 8;
    const int shift = 16 + qp__contact_shift(w, c);
    int64_t most = (cr * load + ((int64_t)1 << (shift - 1))) >> shift;
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
    /* The spin per N m s of the relative roll: a side held below the other leaves it to the
     * other, for the contact pass holds that side's turn on its own supports. */
    int64_t k = (held_below(w, c, 0) ? 0 : (int64_t)qp__v3_dot_q30(turn_a, u)) +
                (held_below(w, c, 1) ? 0 : (int64_t)qp__v3_dot_q30(turn_b, u));
    if (k <= 0) return;
    /* The impulse that stops the roll, |roll| / k (2^-24 N m s), within the most. */
    int64_t need = ((int64_t)qp__v3_dot_q30(roll, u) * ((int64_t)1 << 24) + k / 2) / k;
    int64_t j = need < most ? need : most;
    if (j <= 0) return;
    if (move_a) a->w = qp_v3(spun(a->w.x, turn_a.x, j), spun(a->w.y, turn_a.y, j), spun(a->w.z, turn_a.z, j));
    if (move_b) b->w = qp_v3(spun(b->w.x, -(int64_t)turn_b.x, j), spun(b->w.y, -(int64_t)turn_b.y, j),
                            spun(b->w.z, -(int64_t)turn_b.z, j));
}

void qp__rolling(qp_world *w)
{
    for (int i = 0; i < w->contact_count; i++) {
        const qp_contact *c = &w->contacts[i];
        /* A new contact carries no load into the pass: its points' start is the contact
         * graph's share of weight, not an impulse of the last step. */
        if (c->flags & (QP_CONTACT_SLEEPING | QP_CONTACT_NEW)) continue;
        fix16_t ca = qp__body_rolling_resistance(w, &w->bodies[c->a]);
        fix16_t cb = qp__body_rolling_resistance(w, &w->bodies[c->b]);
        if ((ca | cb) == 0) continue;
        resist(w, c, ca > cb ? ca : cb);
    }
}
