/* SPDX-License-Identifier: MIT */
/* Stage "rolling": rolling resistance.
 *
 * A round shape (sphere, capsule) rolling over what it touches deforms both a little, and
 * the load ends up ahead of the point of contact: a torque c r N against the roll, for a
 * coefficient c (qp_body_def.rolling_resistance, the larger of the two bodies'), the round
 * shape's radius r (the smaller of two) and the normal force N. Each step, before the
 * contact pass, every awake round contact takes an angular impulse in its plane against its
 * bodies' relative spin about the axes in that plane: the impulse that stops that spin about
 * both axes at once (a capsule turns more easily about its length than across it), cut along
 * itself to at most c r times the normal impulse its points carry into the pass (last step's,
 * their warm start), so the spin only slows along itself (a flat side resting on supports of
 * its own below the other leaves that spin to the other: held_below). The contact pass's
 * friction then turns the slower spin into a slower roll: a solid ball rolling at v on a
 * level floor slows at 5/7 c g and stops within 7 v^2 / (10 c g). Spin about the normal is
 * the twist friction's (solver.c). A dynamic round body's default is
 * QP_ROUND_ROLLING_RESISTANCE (body.c); with every coefficient 0 the stage changes nothing.
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

/* The in-plane unit v = n x u (Q2.30), u a unit in the contact's plane. */
static qp_vec3 across(qp_vec3 n, qp_vec3 u)
{
    const int64_t h = (int64_t)1 << 29;
    return qp_v3(qp__sat32(((int64_t)n.y * u.z - (int64_t)n.z * u.y + h) >> 30),
                 qp__sat32(((int64_t)n.z * u.x - (int64_t)n.x * u.z + h) >> 30),
                 qp__sat32(((int64_t)n.x * u.y - (int64_t)n.y * u.x + h) >> 30));
}

/* Side s's spin per N m s of an angular impulse about each of two units (Q2.30): I^-1 u and
 * I^-1 v (0 for a side that does not move). */
static void turns_of(const qp_body_state *b, bool moves, qp_vec3 u, qp_vec3 v, qp_vec3 turn[2])
{
    turn[0] = turn[1] = qp_v3_zero();
    if (!moves) return;
    qp_mat3 ii = qp__body_inv_inertia(b);
    turn[0] = qp_mat3_mul_v3(&ii, qp_v3_from_q30(u));
    turn[1] = qp_mat3_mul_v3(&ii, qp_v3_from_q30(v));
}

/* w after angular impulses j[0] about the first unit and j[1] about the second (2^-24 N m s,
 * of either sign), turn the side's spin per N m s about each, sign -1 for side b. */
static qp_vec3 turned(qp_vec3 w, const qp_vec3 turn[2], const int64_t j[2], int sign)
{
    for (int e = 0; e < 2; e++) {
        const int64_t s = (j[e] < 0 ? -sign : sign), m = j[e] < 0 ? -j[e] : j[e];
        if (m == 0) continue;
        w = qp_v3(spun(w.x, s * turn[e].x, m), spun(w.y, s * turn[e].y, m), spun(w.z, s * turn[e].z, m));
    }
    return w;
}

#define MOST_IMPULSE ((int64_t)1 << 40)   /* 2^-24 N m s: 65 536 N m s, past any real load */
#define MOST_RATIO ((int64_t)1 << 21)     /* Q16.16: 32 */

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
    if (most > MOST_IMPULSE) most = MOST_IMPULSE;
    qp_vec3 roll = in_plane(qp__v3_sub(b->w, a->w), c->n);   /* a static or sleeping side's w is 0 */
    qp_vec3 u;
    if (most <= 0 || !qp_v3_normalize_q30(roll, &u)) return;
    const qp_vec3 v = across(c->n, u);
    qp_vec3 turn_a[2], turn_b[2];   /* each side's spin per N m s about u and v */
    turns_of(a, move_a, u, v, turn_a);
    turns_of(b, move_b, u, v, turn_b);
    /* The relative in-plane spin per N m s, K (2 x 2, about u and v): a side held below the
     * other leaves it to the other, for the contact pass holds that side's turn on its own
     * supports. */
    int64_t k[3] = { 0, 0, 0 };   /* uu, uv, vv */
    for (int s = 0; s < 2; s++) {
        const qp_vec3 *t = s == 0 ? turn_a : turn_b;
        if (held_below(w, c, s)) continue;
        k[0] += qp__v3_dot_q30(t[0], u);
        k[1] += qp__v3_dot_q30(t[0], v);
        k[2] += qp__v3_dot_q30(t[1], v);
    }
    if (k[0] <= 0 || k[2] <= 0) return;
    /* The impulse (j_u, j_v) that stops the whole in-plane spin: K j = (|roll|, 0), so
     * j_v = -(k_uv / k_vv) j_u and j_u = |roll| / (k_uu - k_uv^2 / k_vv). An impulse about u
     * alone stops the spin along u only: a ragdoll's upper arm lying on the ground turns 6.6
     * times as easily about its length as across it, and such an impulse turned its pitch into
     * a roll about its length every step, which the penetration pass's anchors rolled on: the
     * arm crept and never slept (docs/notes/2026-11-29-round.md). */
    int64_t ratio = -(k[1] * 65536) / k[2];   /* Q16.16 */
    if (ratio > MOST_RATIO) ratio = MOST_RATIO;
    if (ratio < -MOST_RATIO) ratio = -MOST_RATIO;
    const int64_t schur = k[0] + ((k[1] * ratio) >> 16);   /* Q16.16, k_uu - k_uv^2 / k_vv */
    if (schur <= 0) return;
    int64_t j[2];
    j[0] = ((int64_t)qp__v3_dot_q30(roll, u) * ((int64_t)1 << 24) + schur / 2) / schur;
    if (j[0] <= 0) return;
    /* Within the most, c r jn, as a whole: |j| = j_u sqrt(1 + ratio^2). */
    const int64_t length = qp_isqrt64((uint64_t)((int64_t)1 << 32) + (uint64_t)(ratio * ratio));   /* Q16.16 */
    const int64_t cap = most * 65536 / length;
    if (j[0] > cap) j[0] = cap;
    if (j[0] > MOST_IMPULSE) j[0] = MOST_IMPULSE;
    j[1] = (ratio * j[0]) >> 16;
    if (move_a) a->w = turned(a->w, turn_a, j, 1);
    if (move_b) b->w = turned(b->w, turn_b, j, -1);
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
