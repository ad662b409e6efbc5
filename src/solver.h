/* SPDX-License-Identifier: MIT */
/* Impulse arithmetic shared by the velocity passes (collision, contact,
 * shock, penetration): relative velocity at a point, effective mass along
 * a direction, applying an equal and opposite impulse, manifold friction.
 * Directions are unit Q2.30 vectors; everything else Q16.16. */
#ifndef QPHYS_SOLVER_H
#define QPHYS_SOLVER_H

#include "body.h"
#include "contact.h"
#include "math_inline.h"
#include "scratch.h"

/* Round to nearest, ties away from zero: symmetric, so rounding has no
 * preferred direction (round-half-up made stacks lean one way: the arms of
 * a unit cube are exact halves, so ties are common). */
static QP__HELPER_INLINE int64_t qp__round_shift(int64_t v, int n)
{
    int64_t half = INT64_C(1) << (n - 1);
#if QP__BRANCH_FREE
    /* v >= 0: (v + half) >> n. v < 0: -((half - v) >> n), which is (v + half - 1) >> n
     * (-floor(x / N) = floor((N - 1 - x) / N) with x = half - v, N = 2 half): one form
     * without a branch, v >> 63 being -1 for v < 0 and 0 otherwise. */
    return (v + half + (v >> 63)) >> n;
#else
    return v >= 0 ? (v + half) >> n : -((half - v) >> n);   /* fewer instructions on a Cortex-M */
#endif
}

/* a * b in Q16.16, rounded (inline: the passes call it in their inner loops). */
static inline fix16_t qp__mul(fix16_t a, fix16_t b)
{
    return qp__sat32(qp__round_shift((int64_t)a * b, 16));
}

/* a * b * c with qp__mul's two roundings, in 64 bits (unsaturated): a load's weight
 * impulse, load x g x dt, which passes Q16.16 for loads over 3 277 kg at g = 10. */
static inline int64_t qp__mul3_wide(fix16_t a, fix16_t b, fix16_t c)
{
    return qp__round_shift(qp__round_shift((int64_t)a * b, 16) * c, 16);
}

/* |to - from|, the size of a change of an impulse in units: exact in unsigned arithmetic
 * (below 2^32 for any two int32). The passes compare it with their settle and quiet
 * bounds. */
static inline uint32_t qp__change_of(fix16_t to, fix16_t from)
{
#if QP__BRANCH_FREE   /* which total grew is a coin toss: negate by a mask */
    uint32_t d = (uint32_t)to - (uint32_t)from, neg = 0u - (uint32_t)(to < from);
    return (d ^ neg) - neg;
#else
    return to > from ? (uint32_t)to - (uint32_t)from : (uint32_t)from - (uint32_t)to;
#endif
}

/* The velocity slots a pass works on: real velocities or split-impulse ones. */
typedef struct {
    qp_vec3 *va, *wa, *vb, *wb;
} qp_vel_ref;

/* A kinematic body's linear velocity as the body it carries sees it. The step turns a
 * kinematic body exactly as set (qp_quat_integrate: by 2 atan(|w| dt / 2) about w), and a body
 * resting on it must land where the turn takes its start: its centre, at arm s from the
 * kinematic centre at the step's start, travels the chord
 *     (R - I) s / dt = (w x s + (dt / 2) w x (w x s)) / (1 + |w|^2 dt^2 / 4)
 * (exact for that turn), not the tangent. The contact's rows add w x (ra - rb), which for a
 * body turning with it is w x p, p its centre's arm at the predicted poses (the arms' frame):
 * the linear slot is v + chord - w x p. The tangent at the predicted poses alone would pull a
 * box on a turntable in by (w dt)^2 / 2 of its radius every step (1 m at 2 rad/s: to 0.72 m
 * in 10 s), and the tangent at the start would throw it out. A body that slides
 * over it sees its slip relative to the turning frame. In 64 bits: w x (w x s) passes Q16.16
 * for fast turns of long arms. ab is a's centre less b's: the arm p is -ab (sign -1) when the
 * kinematic body is a, ab when it is b. */
static inline int64_t qp__drive_clamp(int64_t x, int bits)
{
    const int64_t lim = (int64_t)1 << bits;
    return x > lim ? lim : x < -lim ? -lim : x;
}

/* w x a in Q16.16, |w| <= 2^24 and |a| <= 2^38 raw (products below 2^62), clamped at 2^38. */
static inline void qp__drive_cross(const int64_t w[3], const int64_t a[3], int64_t out[3])
{
    for (int i = 0; i < 3; i++) {
        int j = i == 2 ? 0 : i + 1, k = j == 2 ? 0 : j + 1;
        out[i] = qp__drive_clamp(qp__round_shift(w[j] * a[k] - w[k] * a[j], 16), 38);
    }
}

static inline qp_vec3 qp__drive_velocity(const qp_world *w, const qp_body_state *k, const qp_body_state *other,
                                         qp_vec3 ab, int sign)
{
    /* |w| is at most 100 rad/s (body.c), below 2^23; clamped at 2^24 all the same */
    const int64_t om[3] = { qp__drive_clamp(k->w.x, 24), qp__drive_clamp(k->w.y, 24), qp__drive_clamp(k->w.z, 24) };
    const int64_t s[3] = { (int64_t)other->x.x - k->x.x, (int64_t)other->x.y - k->x.y, (int64_t)other->x.z - k->x.z };
    const int64_t p[3] = { sign * (int64_t)ab.x, sign * (int64_t)ab.y, sign * (int64_t)ab.z };
    int64_t ws[3], wws[3], wp[3];
    qp__drive_cross(om, s, ws);
    qp__drive_cross(om, ws, wws);
    qp__drive_cross(om, p, wp);
    const int64_t dt = w->def.dt;
    const int64_t w2 = qp__round_shift(om[0] * om[0] + om[1] * om[1] + om[2] * om[2], 16);   /* |w|^2, Q16.16 */
    const int64_t scale = 65536 + qp__round_shift(qp__round_shift(w2 * dt, 16) * dt, 18);   /* 1 + |w dt|^2 / 4 */
    fix16_t out[3];
    const fix16_t v[3] = { k->v.x, k->v.y, k->v.z };
    for (int i = 0; i < 3; i++) {
        int64_t chord = ws[i] + qp__round_shift(wws[i] * dt, 17);   /* |wws| < 2^38, dt < 2^13 */
        out[i] = qp__sat32((int64_t)v[i] + qp__div64(chord * 65536, scale) - wp[i]);
    }
    return qp_v3(out[0], out[1], out[2]);
}

/* The velocity slots of contact c. A kinematic side's linear slot is *drive, its velocity
 * as the other body sees it (qp__drive_velocity): the passes never write a kinematic body's
 * slots (infinite mass). */
static inline qp_vel_ref qp__vel_ref(qp_world *w, const qp_contact *c, qp_vec3 *drive)
{
    qp_vel_ref r = { &w->bodies[c->a].v, &w->bodies[c->a].w, &w->bodies[c->b].v, &w->bodies[c->b].w };
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    if (qp__body_drives(a)) {
        *drive = qp__drive_velocity(w, a, b, c->ab, -1);
        r.va = drive;
    } else if (qp__body_drives(b)) {
        *drive = qp__drive_velocity(w, b, a, c->ab, 1);
        r.vb = drive;
    }
    return r;
}

static inline qp_vel_ref qp__pseudo_vel_ref(qp_world *w, const qp_contact *c)
{
    qp_vel_ref r = { (qp_vec3 *)&qp__split(w)->pseudo_v[c->a][0], (qp_vec3 *)&qp__split(w)->pseudo_v[c->a][3],
                     (qp_vec3 *)&qp__split(w)->pseudo_v[c->b][0], (qp_vec3 *)&qp__split(w)->pseudo_v[c->b][3] };
    return r;
}
/* The normal direction at point k, through the rows: relative speed,
 * applying an impulse, effective mass for the sides in move. */
fix16_t qp__point_mass(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move);
/* The normal direction at any arm ra from a's centre (b's arm is ra + ab):
 * its rows and effective mass for the sides in move. */
typedef struct {
    qp_vec3 rna, rnb, ia, ib;
    fix16_t mass;
    int shift;
} qp_normal_row;
void qp__normal_row(const qp_world *w, const qp_contact *c, qp_vec3 ra, int move, qp_normal_row *out);
fix16_t qp__normal_row_speed(const qp_vel_ref *v, const qp_contact *c, const qp_normal_row *nr);
void qp__normal_row_apply(const qp_world *w, const qp_contact *c, const qp_normal_row *nr, const qp_vel_ref *v,
                          fix16_t j, int move);
/* Which sides move: dynamic bodies (sleepers included). */
static inline int qp__movable(const qp_world *w, const qp_contact *c)
{
    return (qp__body_dynamic(&w->bodies[c->a]) ? QP_MOVE_A : 0) |
           (qp__body_dynamic(&w->bodies[c->b]) ? QP_MOVE_B : 0);
}
/* Sides that move in the shock pass: never the lower-level body. Inline: the shock pass
 * asks at every visit, and with qp__movable (beside it) the bodies' states load once. */
static inline int qp__shock_movable(const qp_world *w, const qp_contact *c)
{
    int move = qp__movable(w, c);
    int la = w->bodies[c->a].level, lb = w->bodies[c->b].level;
#if QP__BRANCH_FREE   /* which side is lower is a coin toss: clear it by a mask */
    return move & ~((-(la < lb) & QP_MOVE_A) | (-(lb < la) & QP_MOVE_B));
#else
    if (la < lb) move &= QP_MOVE_B;
    else if (lb < la) move &= QP_MOVE_A;
    return move;
#endif
}
/* Load centroids, rows and effective masses of every contact (once per step). */
void qp__prepare_contacts(qp_world *w);

/* ---- the row kernels, inline: every pass calls them for every row of every sweep.
 * Every product is int64, every sum rounded once. Ranges that keep them exact (no
 * saturation needed inside): velocities and arms are Q16.16 values (|raw| < 2^31),
 * unit directions Q2.30 (|raw| <= 2^30), inverse inertia entries <= QP_INV_INERTIA_MAX
 * (raw < 2^29.3, enforced at body creation): a product is below 2^61, a sum of three
 * below 2^63. Results saturate to int32 once at the end. */

static inline int64_t qp__dot16_raw(qp_vec3 a, qp_vec3 b)
{
    return (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z;
}

/* The roundings and velocity changes below are forced inline in low-RAM: its row builders,
 * copied once per kind of build (solver.c), use up GCC's inlining growth for solver.c,
 * which then left them out of line in the friction rows (a call per component or
 * component triple); so did the Cortex-M4's -O3 in the default layout (forced: 0.5 % fewer
 * instructions on pyramid20, 0.9 % on rain512, make bench's app). The hosts inline them;
 * the Cortex-M0 (the micro:bit, -Os) is left to choose, as with solver.c's builders. */
#if (QP_CFG_LOW_RAM || defined(__ARM_ARCH_7EM__)) && !defined(__ARM_ARCH_6M__)
#define QP__APPLY_INLINE QP__ALWAYS_INLINE
#else
#define QP__APPLY_INLINE inline
#endif

static QP__APPLY_INLINE fix16_t qp__r16(int64_t v) { return qp__sat32(qp__round_shift(v, 16)); }
static QP__APPLY_INLINE fix16_t qp__r30(int64_t v) { return qp__sat32(qp__round_shift(v, 30)); }

/* v + d * s with d Q2.30 and s Q16.16 (a velocity change along a direction). */
static QP__APPLY_INLINE void qp__add_along(qp_vec3 *v, qp_vec3 d, fix16_t s)
{
    v->x = qp__add_sat(v->x, qp__r30((int64_t)d.x * s));
    v->y = qp__add_sat(v->y, qp__r30((int64_t)d.y * s));
    v->z = qp__add_sat(v->z, qp__r30((int64_t)d.z * s));
}

static QP__APPLY_INLINE void qp__add_scaled(qp_vec3 *v, qp_vec3 d, fix16_t s)
{
    v->x = qp__add_sat(v->x, qp__r16((int64_t)d.x * s));
    v->y = qp__add_sat(v->y, qp__r16((int64_t)d.y * s));
    v->z = qp__add_sat(v->z, qp__r16((int64_t)d.z * s));
}

/* An equal and opposite velocity change of two bodies of the same inverse mass along d
 * (Q2.30) by s (Q16.16): va - d * s, vb + d * s. Each component's change is found once:
 * the rounding (ties away from zero) and saturation (to +-INT32_MAX) are symmetric, so a's
 * is b's negated, the same bits as qp__add_along(va, d, -s) and qp__add_along(vb, d, s). */
static QP__APPLY_INLINE void qp__add_along_pair(qp_vec3 *va, qp_vec3 *vb, qp_vec3 d, fix16_t s)
{
    const fix16_t x = qp__r30((int64_t)d.x * s), y = qp__r30((int64_t)d.y * s), z = qp__r30((int64_t)d.z * s);
    va->x = qp__add_sat(va->x, -x);
    va->y = qp__add_sat(va->y, -y);
    va->z = qp__add_sat(va->z, -z);
    vb->x = qp__add_sat(vb->x, x);
    vb->y = qp__add_sat(vb->y, y);
    vb->z = qp__add_sat(vb->z, z);
}

/* The velocity changes of an impulse j in units of 2^-shift N s (qp__impulse_shift):
 * linear, j times an inverse mass, and angular, v + d * j for a response d. With shift 0
 * they are qp__mul and qp__add_scaled to the bit, which the callers use for that case. */
static inline fix16_t qp__mul_impulse(fix16_t j, fix16_t inv_mass, int shift)
{
    return qp__sat32(qp__round_shift((int64_t)j * inv_mass, 16 + shift));
}
static inline void qp__add_impulse(qp_vec3 *v, qp_vec3 d, fix16_t j, int shift)
{
    v->x = qp__add_sat(v->x, qp__sat32(qp__round_shift((int64_t)d.x * j, 16 + shift)));
    v->y = qp__add_sat(v->y, qp__sat32(qp__round_shift((int64_t)d.y * j, 16 + shift)));
    v->z = qp__add_sat(v->z, qp__sat32(qp__round_shift((int64_t)d.z * j, 16 + shift)));
}

/* A speed from its linear part s (Q46: a Q16.16 velocity times a Q2.30 unit vector) and its
 * angular part ang (Q32), rounded to Q16.16. Each part is clamped to +-2^61 first (a speed
 * of 32768 m/s, the end of Q16.16), so their sum cannot overflow: inside that range the
 * result is exact, and past it the speed saturates, as r30 would. (Arms of hundreds of
 * metres, a body deep inside a plane, reach it: ang * 2^14 overflowed int64 there.) */
static inline fix16_t qp__speed_of(int64_t s, int64_t ang)
{
    const int64_t lim = INT64_C(1) << 61, ang_lim = lim >> 14;
    /* Both inside their ranges (the common case), by one 32-bit compare of each high word:
     * s in [-2^61, 2^61) and ang in [-2^47, 2^47). The two ends left out take the general
     * form below, which is the same sum there (nothing to clamp). */
    if ((uint32_t)((uint64_t)s >> 32) + (1u << 29) < (1u << 30) &&
        (uint32_t)((uint64_t)ang >> 32) + (1u << 15) < (1u << 16))
        return qp__r30(s + ang * 16384);
    s = s > lim ? lim : s < -lim ? -lim : s;
    int64_t a = ang > ang_lim ? lim : ang < -ang_lim ? -lim : ang * 16384;
    return qp__r30(s + a);
}

/* QP__WIDE_MUL: 1 where a 64 x 64 product costs what a 32 x 32 one does (64-bit hosts). */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define QP__WIDE_MUL 1
#else
#define QP__WIDE_MUL 0
#endif

/* vb - va, each component exact in 64 bits (below 2^32 in size). */
typedef struct {
    int64_t x, y, z;
} qp_rel_vel;

static inline qp_rel_vel qp__rel_vel(const qp_vel_ref *v)
{
    qp_rel_vel d = { (int64_t)v->vb->x - v->va->x, (int64_t)v->vb->y - v->va->y, (int64_t)v->vb->z - v->va->z };
    return d;
}

/* (vb - va) . u from the difference d = qp__rel_vel(v), for a unit u (Q2.30): three
 * products where b's dot minus a's takes six. The same number as qp__rel_dot's: both sums
 * are exact, and no partial sum of d's passes |d| |u| < 2^32 sqrt(3) 2^30 < 2^63. */
static inline int64_t qp__rel_vel_dot(const qp_rel_vel *d, qp_vec3 u)
{
    return d->x * u.x + d->y * u.y + d->z * u.z;
}

/* (vb - va) . u, Q46, for a unit u (Q2.30). A 32-bit machine takes b's dot minus a's, each
 * 32 x 32 products (one multiply-accumulate each on a Cortex-M, where the 33-bit difference
 * of the velocities took a 64 x 32 product); a 64-bit one the difference's dot. The same
 * number: the sums are exact, and no partial sum overflows, as
 * |vb.u| + |va.u| < 2^31 * 2 * sqrt(3) * 2^30 < 2^63. */
static inline int64_t qp__rel_dot(const qp_vel_ref *v, qp_vec3 u)
{
#if QP__WIDE_MUL
    const qp_rel_vel d = qp__rel_vel(v);
    return qp__rel_vel_dot(&d, u);
#else
    return qp__dot16_raw(*v->vb, u) - qp__dot16_raw(*v->va, u);
#endif
}

/* Relative speed along c's normal at a point whose angular rows are rna, rnb, from its
 * linear part s = qp__rel_dot(v, c->n) (Q46), which the points of a manifold share. */
static inline fix16_t qp__normal_speed_from(const qp_vel_ref *v, qp_vec3 rna, qp_vec3 rnb, int64_t s)
{
    int64_t ang = qp__dot16_raw(*v->wb, rnb) - qp__dot16_raw(*v->wa, rna); /* Q32 */
    return qp__speed_of(s, ang);
}

static inline fix16_t qp__normal_speed(const qp_vel_ref *v, const qp_contact *c, qp_vec3 rna, qp_vec3 rnb)
{
    return qp__normal_speed_from(v, rna, rnb, qp__rel_dot(v, c->n));
}

#include "rows_simd.h"   /* the same velocity changes, several components an instruction */

/* An impulse j (in the contact's unit, 2^-shift N s) along c's normal at a point whose
 * angular responses are *ia, *ib: pointers, which the kernels read where the rows keep
 * them (copies passed by value are stored to the stack at every apply). */
static inline void qp__normal_apply(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, const qp_vec3 *ia,
                                    const qp_vec3 *ib, fix16_t j, int move, int shift)
{
    if (j == 0) return;
    QP__NARROW(j);   /* its products: 32 x 32 each (math_inline.h) */
    const fix16_t ma = w->bodies[c->a].inv_mass, mb = w->bodies[c->b].inv_mass;
    if (shift == 0) {   /* the common case, tested once */
        if (move == QP_MOVE_BOTH && ma == mb) {   /* two bodies of one mass (a pile of one kind) */
#if QP__ROWS_SIMD
            if (QP__SIMD_ON() && qp__simd_pair_apply(v, &c->n, qp__mul(j, mb), ia, ib, j)) return;
#endif
            qp__add_along_pair(v->va, v->vb, c->n, qp__mul(j, mb));
            qp__add_scaled(v->wa, *ia, -j);
            qp__add_scaled(v->wb, *ib, j);
            return;
        }
        if (move & QP_MOVE_A) {
#if QP__ROWS_SIMD
            if (!(QP__SIMD_ON() && qp__simd_side_apply(v->va, v->wa, &c->n, -qp__mul(j, ma), ia, -j)))
#endif
            {
                qp__add_along(v->va, c->n, -qp__mul(j, ma));
                qp__add_scaled(v->wa, *ia, -j);
            }
        }
        if (move & QP_MOVE_B) {
#if QP__ROWS_SIMD
            if (!(QP__SIMD_ON() && qp__simd_side_apply(v->vb, v->wb, &c->n, qp__mul(j, mb), ib, j)))
#endif
            {
                qp__add_along(v->vb, c->n, qp__mul(j, mb));
                qp__add_scaled(v->wb, *ib, j);
            }
        }
        return;
    }
    if (move & QP_MOVE_A) {
        qp__add_along(v->va, c->n, -qp__mul_impulse(j, ma, shift));
        qp__add_impulse(v->wa, *ia, -j, shift);
    }
    if (move & QP_MOVE_B) {
        qp__add_along(v->vb, c->n, qp__mul_impulse(j, mb, shift));
        qp__add_impulse(v->wb, *ib, j, shift);
    }
}

static inline fix16_t qp__point_speed(const qp_vel_ref *v, const qp_contact *c, const qp_contact_rows *r, int k)
{
    return qp__normal_speed(v, c, r->pt[k].rna, r->pt[k].rnb);
}

/* The same, its linear part given: a pass's loop over a manifold's points finds
 * qp__rel_dot(v, c->n) again only after an impulse, the one thing that changes va, vb. */
static inline fix16_t qp__point_speed_from(const qp_vel_ref *v, const qp_contact_rows *r, int k, int64_t s)
{
    return qp__normal_speed_from(v, r->pt[k].rna, r->pt[k].rnb, s);
}

static inline void qp__point_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                                   int k, fix16_t j, int move)
{
    if (j == 0) return;   /* before the responses are read (GCC copied them to the stack first) */
    qp__normal_apply(w, c, v, &r->resp[k].ia, &r->resp[k].ib, j, move, r->shift);
}


/* A point may approach by its gap this step. The gap comes from the
 * predicted pose and is an estimate: gaps within gap_tolerance count as
 * touching, or a resting box would keep sinking into its own estimate
 * error and rock forever. */
static inline fix16_t qp__gap_speed(const qp_world *w, const qp_contact_point *p)
{
    fix16_t tol = w->def.gap_tolerance;
    return p->depth < -tol ? qp__div(-p->depth - tol, w->def.dt) : 0;
}



/* The static friction anchors' drift along the tangents t1, t2 (Q16.16 metres) and
 * the pseudo-velocity along each that pulls it back (penetration_rate * -drift / dt,
 * capped): positions do not change from the rows to the end of the penetration pass.
 * Kept with the rows (default layout) or computed on use (low-RAM). */
void qp__anchor_drift(const qp_world *w, const qp_contact *c, qp_vec3 t1, qp_vec3 t2, fix16_t drift[2],
                      fix16_t target[2]);


/* Friction impulses of one manifold: two tangents and a twist at the centroid. */
typedef struct {
    fix16_t t1, t2, tw;
} qp_friction;

/* Coulomb friction for a manifold whose normal impulse is jn_sum: the impulse
 * that stops sliding and twisting is kept if static friction holds it (|j| <=
 * mu_s jn_sum), else cut to dynamic friction (mu_d jn_sum; seed 004). With
 * accumulate, *acc holds the totals; otherwise it is ignored. Masses from the
 * contact unless pinned (shock), then computed for the sides in move. True
 * when the linear friction had to be cut to the dynamic limit (sliding); with slides
 * false, a caller that does not read it, false with no load (jn_sum 0). */
bool qp__friction(const qp_world *w, qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                  fix16_t jn_sum, qp_friction *acc, int move, bool pinned, bool lazy, bool slides);
/* For rows built with QP_ROWS_MASSES_KEPT, lazy: low-RAM built no angular responses,
 * found for the rows that apply (as qp__point_apply_kept, above). */

/* Warm start: contact c's totals from last step (its points' jn, its friction's jt1, jt2,
 * jtw) applied to the sides in move, each velocity component changed by one sum of
 * products rounded once. Impulses of 2^28 units and more (2048 N s; the products of seven
 * of them could pass 2^63) are applied row after row instead. */
void qp__warm_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int move);
/* The friction rows for other passes. */
fix16_t qp__row_speed(const qp_vel_ref *v, const qp_contact_rows *r, int d);
void qp__row_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int d,
                   fix16_t j, int move);

#include "layout_rows.h"   /* the contact rows of each layout, which use the kernels above */

#endif
