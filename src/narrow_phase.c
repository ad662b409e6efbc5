/* SPDX-License-Identifier: MIT */
/* Stage "narrow": narrow phase and persistent manifolds (docs/design.md §4).
 *
 * Each pair is collided at the predicted poses in the frame of shape a
 * (relative coordinates: the result does not depend on where the pair is).
 * Points are stored as arms from each centre of mass, so the solver never
 * touches absolute positions. The depth is brought back from the predicted
 * pose to the start of the step with the predicted normal velocity:
 * depth_now = depth_pred + vn_pred * dt.
 *
 * Persistence: last step's contacts stay in the pool, sorted like the pairs
 * (body a, body b, slots). This step's are written from its bottom (the old
 * ones not yet read move to its top when a write would reach them), and a
 * merge walk finds each manifold's previous self;
 * points with the same feature id inherit their impulses. One pool, no
 * second copy: it only has to hold, at any moment of the walk, the contacts
 * written so far and the old ones not yet read. Pairs of bodies that are
 * both asleep (or asleep on something static) are not collided; their old
 * records come back as sleeping contacts, so the contact graph still knows
 * what rests on what. Sleepers that an awake body reaches fast wake before
 * the walk, and their records are collided in it like pairs.
 *
 * A contact with no predecessor begins, an old one with no successor (and not kept
 * asleep) ends: both raise an event (events.c), in the walk's key order. Pairs with a
 * sensor make no contact (sensor.c reads them).
 */
#include <string.h>
#include "body.h"
#include "contact.h"
#include "events.h"
#include "scratch.h"
#include "sleep.h"
#include "stages.h"
#include "bench_count.h"
#include "math_inline.h"

/* qp__v3_add and qp__v3_sub (each component's exact sum or difference clamped to
 * +-INT32_MAX) by the processor's overflow flag (qp__add_sat, qp__sub_sat): the general
 * form adds in 64 bits and clamps with four compares, a dozen Cortex-M instructions a
 * component, at every point of every contact. The same bits. */
static inline qp_vec3 v3_add(qp_vec3 a, qp_vec3 b)
{
    qp_vec3 r = qp_v3(qp__add_sat(a.x, b.x), qp__add_sat(a.y, b.y), qp__add_sat(a.z, b.z));
    QP__NARROW(r.x);
    QP__NARROW(r.y);
    QP__NARROW(r.z);
    return r;
}

static inline qp_vec3 v3_sub(qp_vec3 a, qp_vec3 b)
{
    qp_vec3 r = qp_v3(qp__sub_sat(a.x, b.x), qp__sub_sat(a.y, b.y), qp__sub_sat(a.z, b.z));
    QP__NARROW(r.x);
    QP__NARROW(r.y);
    QP__NARROW(r.z);
    return r;
}

/* The poses a pair is collided at (pair_poses). */
typedef struct {
    qp_vec3 xa, xb;               /* centres of mass */
    fix16_t margin;
    bool swept;                   /* closing fast: a swept contact (QP_CONTACT_SWEPT) */
    bool start;                   /* start poses (swept, or start_poses): depths are already the step's start */
    qp_pair_rotations rot;        /* the rotations (layout.h) */
} qp_poses;


/* add_contact writes every byte of a contact field by field: there is no padding. */
_Static_assert(sizeof(qp_contact_point) == 7 * 4 && sizeof(qp_contact) == 8 + 26 * 4 + QP_MAX_MANIFOLD_POINTS * 7 * 4,
               "qp_contact has no padding");

static uint64_t contact_key(uint16_t a, uint16_t b, uint8_t sa, uint8_t sb)
{
    return ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)sa << 8) | sb;
}

/* floor(sqrt(s)), given the floor root r of a value near s: the q within two of r with
 * q^2 <= s < (q + 1)^2, checked exactly, else qp_isqrt64. A manifold's points lie about as
 * far from its centroid, so the first root mostly serves the others: a box face's four
 * corners, whose rounded arms put their squared distances a few roots apart, find theirs
 * within two of it (r itself serves about half of pyramid20's). With r below 2^31 no
 * square here reaches 2^63. */
static uint32_t root_near(uint64_t s, uint32_t r)
{
    if (r == 0 || r >= (uint32_t)1 << 31) return qp_isqrt64(s);
    uint64_t q = r;
    for (int i = 0; i < 2 && q * q > s; i++) q--;
    for (int i = 0; i < 2 && (q + 1) * (q + 1) <= s; i++) q++;
    return q * q <= s && (q + 1) * (q + 1) > s ? (uint32_t)q : qp_isqrt64(s);
}

/* Centroid arms and twist radius of a manifold's points (rb[k]: qp__arm_b(c, k)), those past
 * the margin left out (qp__point_gap: they come last, and never all). With every arm below
 * 2^22 in magnitude (small: 64 m), the sums and differences fit 32 bits, where a Cortex-M
 * forms them in one instruction each: the same numbers. A radius above 0 is these points'
 * own, found before (a kept manifold's: keep_manifold), and taken as it is. */
static void set_centroid(qp_contact *c, const qp_vec3 *rb, bool small, fix16_t radius)
{
    int n = c->count;
    while (n > 1 && qp__point_gap(&c->p[n - 1])) n--;
    if (small) {
        int32_t s[6] = { 0, 0, 0, 0, 0, 0 };
        for (int k = 0; k < n; k++) {
            s[0] += c->p[k].ra.x; s[1] += c->p[k].ra.y; s[2] += c->p[k].ra.z;
            s[3] += rb[k].x; s[4] += rb[k].y; s[5] += rb[k].z;
        }
        c->ca = qp_v3(s[0] / n, s[1] / n, s[2] / n);
        c->cb = qp_v3(s[3] / n, s[4] / n, s[5] / n);
    } else {
        int64_t sa[3] = { 0, 0, 0 }, sb[3] = { 0, 0, 0 };
        for (int k = 0; k < n; k++) {
            sa[0] += c->p[k].ra.x; sa[1] += c->p[k].ra.y; sa[2] += c->p[k].ra.z;
            sb[0] += rb[k].x; sb[1] += rb[k].y; sb[2] += rb[k].z;
        }
        c->ca = qp_v3((fix16_t)qp__div64(sa[0], n), (fix16_t)qp__div64(sa[1], n), (fix16_t)qp__div64(sa[2], n));
        c->cb = qp_v3((fix16_t)qp__div64(sb[0], n), (fix16_t)qp__div64(sb[1], n), (fix16_t)qp__div64(sb[2], n));
    }
    if (radius > 0) {
        c->twist_radius = radius;
        return;
    }
    int64_t r = 0;
    uint32_t root = 0;
    for (int k = 0; k < n; k++) {
        const qp_vec3 ra = c->p[k].ra;
        qp_vec3 d = small ? qp_v3(ra.x - c->ca.x, ra.y - c->ca.y, ra.z - c->ca.z) : v3_sub(ra, c->ca);
        uint64_t sq = (uint64_t)((int64_t)d.x * d.x) + (uint64_t)((int64_t)d.y * d.y) + (uint64_t)((int64_t)d.z * d.z);
        root = root_near(sq, root);
        uint32_t len = qp__root_rounded(sq, root);   /* qp_v3_len(d) */
        r += len > (uint32_t)INT32_MAX ? QP_FIX_MAX : (fix16_t)len;
    }
    c->twist_radius = (fix16_t)qp__div64(r, n);
}

/* qp__rot3_mul_v3(r, v) for components of v below 2^30 + 2^28 in magnitude
 * (every unit normal and every contact point): each product is then below
 * 2^61 + 2^59, so three of them and the half for rounding stay below 2^63 and
 * qp__round_sum4's overflow checks cannot fire: the same floor((sum + 2^29) /
 * 2^30), clamped the same. */
static QP__ALWAYS_INLINE qp_vec3 rot_small(const qp_rot3 *r, qp_vec3 v)
{
    const uint32_t lim = ((uint32_t)1 << 30) + ((uint32_t)1 << 28);
    /* A 64-bit machine checks the overflow at no cost (one flag): the general form. */
    if (UINTPTR_MAX > 0xFFFFFFFFu || (uint32_t)v.x + lim >= 2 * lim || (uint32_t)v.y + lim >= 2 * lim ||
        (uint32_t)v.z + lim >= 2 * lim)
        return qp__rot3_mul_v3(r, v);
    fix16_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = qp__sat32(((int64_t)r->m[i][0] * v.x + (int64_t)r->m[i][1] * v.y + (int64_t)r->m[i][2] * v.z +
                          ((int64_t)1 << 29)) >> 30);
    return qp_v3(o[0], o[1], o[2]);
}

/* rot_small(r, v) (or r^T v, transposed: qp_rot3_tmul_v3) for components of v below 2^26
 * (a manifold's points, within 1 024 m of shape a), whatever r: each component of the
 * product is below 1.5 2^28, so the clamp cannot act. */
static QP__ALWAYS_INLINE fix16_t rot_point_row(qp_q30 r0, qp_q30 r1, qp_q30 r2, qp_vec3 v)
{
    return (fix16_t)(((int64_t)r0 * v.x + (int64_t)r1 * v.y + (int64_t)r2 * v.z + ((int64_t)1 << 29)) >> 30);
}
/* Each component named, not a loop over an array: hosts then keep them in registers,
 * where an array written a component at a time and read back two at once (the arm's
 * sums) waits for the narrower stores. */
static QP__ALWAYS_INLINE qp_vec3 rot_point_t(const qp_rot3 *r, qp_vec3 v, bool transposed)
{
    if (transposed)
        return qp_v3(rot_point_row(r->m[0][0], r->m[1][0], r->m[2][0], v),
                     rot_point_row(r->m[0][1], r->m[1][1], r->m[2][1], v),
                     rot_point_row(r->m[0][2], r->m[1][2], r->m[2][2], v));
    return qp_v3(rot_point_row(r->m[0][0], r->m[0][1], r->m[0][2], v),
                 rot_point_row(r->m[1][0], r->m[1][1], r->m[1][2], v),
                 rot_point_row(r->m[2][0], r->m[2][1], r->m[2][2], v));
}
static QP__ALWAYS_INLINE qp_vec3 rot_point(const qp_rot3 *r, qp_vec3 v) { return rot_point_t(r, v, false); }
#define ARM_POINT  ((uint32_t)1 << 26)
#define ARM_OFFSET ((uint32_t)1 << 28)   /* a's shape offset, and a's centre less b's */

/* Every component of v within [-lim, lim). */
static inline bool v3_below(qp_vec3 v, uint32_t lim)
{
    return ((uint32_t)v.x + lim < 2 * lim) & ((uint32_t)v.y + lim < 2 * lim) & ((uint32_t)v.z + lim < 2 * lim);
}

/* Component c of w x r, rounded as qp__v3_cross rounds it, before its clamp. */
static inline int32_t cross_c(qp_vec3 w, qp_vec3 r, int c)
{
    int64_t p = c == 0 ? (int64_t)w.y * r.z - (int64_t)w.z * r.y
              : c == 1 ? (int64_t)w.z * r.x - (int64_t)w.x * r.z
                       : (int64_t)w.x * r.y - (int64_t)w.y * r.x;
    return (int32_t)qp__shift_round64(p, 16);
}

/* Bounds under which relative_normal_speed's clamps cannot act: arms and angular
 * velocities below 2^22 (64 m, 64 rad/s) make each cross product component at most
 * 2^29; velocities below 2^28 (4 096 m/s) keep each point's velocity below 2^30
 * and the difference below 1.5 2^30; a normal within 2^30 + 2^28 keeps the three
 * products of the dot product below 2^63 without qp__round_sum4's checks. */
#define SPEED_ARM ((uint32_t)1 << 22)
#define SPEED_VEL ((uint32_t)1 << 28)
#define SPEED_DIR (((uint32_t)1 << 30) + ((uint32_t)1 << 28))

/* relative_normal_speed within those bounds, dv = vb - va: the same number. */
static inline fix16_t normal_speed_small(qp_vec3 dv, qp_vec3 wa, qp_vec3 wb, qp_vec3 ra, qp_vec3 rb, qp_vec3 u)
{
    int64_t s = ((int64_t)1 << 29);
    s += (int64_t)(dv.x + cross_c(wb, rb, 0) - cross_c(wa, ra, 0)) * u.x;
    s += (int64_t)(dv.y + cross_c(wb, rb, 1) - cross_c(wa, ra, 1)) * u.y;
    s += (int64_t)(dv.z + cross_c(wb, rb, 2) - cross_c(wa, ra, 2)) * u.z;
    return qp__sat32(s >> 30);
}

/* Velocity of b relative to a at a contact point, along unit direction u. */
static fix16_t relative_normal_speed(qp_vec3 va, qp_vec3 wa, qp_vec3 vb, qp_vec3 wb,
                                     qp_vec3 ra, qp_vec3 rb, qp_vec3 u)
{
    qp_vec3 pa = qp__v3_add(va, qp__v3_cross(wa, ra));
    qp_vec3 pb = qp__v3_add(vb, qp__v3_cross(wb, rb));
    return qp__v3_dot_q30(qp__v3_sub(pb, pa), u);
}

/* Points inherit last step's impulses by feature id; a point whose id
 * changed (clipping can renumber features of nearly aligned boxes) takes
 * those of the nearest unclaimed old point within match_distance. */
static void inherit_by_match(qp_contact *c, const qp_contact_cache *old)
{
    const int64_t match_distance_sq = (int64_t)QP_FRAC(5, 100) * QP_FRAC(5, 100);
    /* Every entry set, not only those below count: a link-time optimised build (-flto)
     * cannot see that count >= 1 where from[0] is read, and warned (an error with -Werror). */
    int from[QP_MAX_MANIFOLD_POINTS] = { -1, -1, -1, -1 };
    bool taken[QP_MAX_MANIFOLD_POINTS] = { false, false, false, false };
    for (int k = 0; k < c->count; k++) {
        for (int j = 0; j < old->count; j++)
            if (!taken[j] && old->id[j] == c->p[k].id) {
                from[k] = j;
                taken[j] = true;
                break;
            }
    }
    for (int k = 0; k < c->count; k++) {
        if (from[k] >= 0) continue;
        int64_t best = match_distance_sq;
        for (int j = 0; j < old->count; j++) {
            if (taken[j]) continue;
            int64_t d = qp_v3_len_sq_wide(v3_sub(c->p[k].ra, old->ra[j]));
            if (d < best) {
                best = d;
                from[k] = j;
            }
        }
        if (from[k] >= 0) taken[from[k]] = true;
    }
    /* One point before and after along the same normal: the contact point of
     * two edges that are nearly parallel slides far along them for a tiny
     * turn, and gets new feature ids; it is the same support, not a lifted one. */
    if (c->count == 1 && old->count == 1 && from[0] < 0 && qp_v3_dot_q30(c->n, old->n) > QP_FRAC(99, 100)) {
        from[0] = 0;
        taken[0] = true;
    }
    for (int k = 0; k < c->count; k++)
        if (from[k] >= 0) c->p[k].jn = old->jn[from[k]];
    /* Changed: a point that carried a real share of the load has no
     * successor (a corner lifted). Renumbered features at the same place and
     * points that carry nothing (neighbours that just touch) do not count;
     * contacts that hold still but slide to and fro are caught by their
     * friction anchors (penetration.c). */
    int64_t total = 0;
    for (int j = 0; j < old->count; j++) total += old->jn[j];
    for (int j = 0; j < old->count; j++)   /* taken[j]: some point's from[k] == j */
        if (!taken[j] && (int64_t)old->jn[j] * 8 > total && total > 0) c->flags |= QP_CONTACT_CHANGED;
}

static void inherit_impulses(qp_contact *c, const qp_contact_cache *old)
{
    c->jt1 = old->jt1;
    c->jt2 = old->jt2;
    c->jtw = old->jtw;
    /* Most contacts keep their features in the same order: then the matching takes
     * old point k for point k, and leaves no old point without a successor. */
    bool same = old->count == c->count;
    for (int k = 0; same && k < c->count; k++) same = old->id[k] == c->p[k].id;
    if (!same) {
        inherit_by_match(c, old);
        return;
    }
    for (int k = 0; k < c->count; k++) c->p[k].jn = old->jn[k];
}

/* Static friction anchors: a point on each body, in its frame, whose tangential drift apart
 * is the contact's slip since it began to stick, which the split-impulse pass undoes (the
 * creep an iterative solver leaves; penetration.c). They start at the manifold's centroid.
 * Where a round shape touches, the point of contact moves over its surface as it rolls:
 * anchors kept as the material points where it first touched drew apart as it turned, and
 * the pass pulled a rolling ball back to where it had landed (a 10 cm ball rolling at 4 cm/s
 * swung between 2 and 6 cm for ever; at 0.4 m/s it lost 0.16 m in 2 s). So each step both
 * move by the same step, a's to the centroid now: their drift, the slip, carries on, and
 * rolling adds none. A contact that travels more in a step than the three-point test lets a
 * body move changes (sleep.c: rolling is not rest; at least 4 units, the anchors' rounding).
 * Flat contacts keep theirs (only round ones are held). */
static void set_anchors(const qp_world *w, qp_contact *c, const qp_contact_cache *old, const qp_poses *at)
{
    const bool sticking = old && !(old->flags & QP_CONTACT_SLIDING);
    const bool round = qp__contact_round(w, c);
    if (sticking && !round) {
        c->anchor_a = old->anchor_a;
        c->anchor_b = old->anchor_b;
        return;
    }
    c->anchor_a = v3_below(c->ca, ARM_POINT) ? rot_point_t(at->rot.ra, c->ca, true) : qp_rot3_tmul_v3(at->rot.ra, c->ca);
    if (sticking) {
        qp_vec3 step = v3_sub(c->ca, qp__rot3_mul_v3(at->rot.ra, old->anchor_a));   /* world */
        c->anchor_b = v3_add(old->anchor_b, qp_rot3_tmul_v3(at->rot.rb, step));
        fix16_t rolling = w->def.sleep_center_size / w->def.sleep_steps;
        if (qp__v3_max_abs(step) > (rolling > 4 ? rolling : 4)) c->flags |= QP_CONTACT_CHANGED;
        return;
    }
    if (round) {
        /* b's anchor is the point of b at a's as the bodies stand now, where the penetration
         * pass measures their drift (qp__anchor_drift), not at the predicted poses the
         * manifold is found at: those are a step of motion on, gravity's included, and on a
         * wall that step (g dt^2, 2.8 mm at 60 Hz) lies along the contact's tangents. */
        const qp_body_state *ba = &w->bodies[c->a], *bb = &w->bodies[c->b];
        const qp_rot3 ra = qp__body_rot(ba), rb = qp__body_rot(bb);
        c->anchor_b = qp_rot3_tmul_v3(&rb, v3_add(v3_sub(ba->x, bb->x), qp__rot3_mul_v3(&ra, c->anchor_a)));
        return;
    }
    c->anchor_b = v3_below(c->cb, ARM_POINT) ? rot_point_t(at->rot.rb, c->cb, true) : qp_rot3_tmul_v3(at->rot.rb, c->cb);
}

/* Neither body moves nor drives and one of them sleeps: their contact sleeps. */
static bool bodies_sleep(const qp_world *w, int ia, int ib)
{
    const qp_body_state *a = &w->bodies[ia], *b = &w->bodies[ib];
    return qp__body_held(a) && qp__body_held(b) &&
           ((a->state | b->state) & QP_STATE_ASLEEP) && (a->state & QP_STATE_USED) && (b->state & QP_STATE_USED);
}

static bool pair_sleeps(const qp_world *w, const qp_contact_cache *k)
{
    return bodies_sleep(w, k->a, k->b);
}

static void lose_contact(qp_world *w, int a, int b)
{
    w->stats.overflows++;
    w->bodies[a].flags |= QP_FLAG_CONTACTS_LOST;
    w->bodies[b].flags |= QP_FLAG_CONTACTS_LOST;
}

/* The walk over last step's contacts, at the top of the pool, and the predicted
 * velocities of the last bodies a and b that made a contact (pairs come sorted
 * by body: a body's pairs follow each other, and a stack's middle body is b of
 * one pair and a of the next). They depend on nothing the walk changes: sleepers
 * wake before it (wake_arrivals). */
typedef struct {
    int next, end;                /* unread old contacts: contacts[next .. end) */
    int body[2];                  /* -1: empty */
    qp_vec3 v[2], w[2];
} qp_old_walk;

/* qp__predicted_velocity of body i, side 0 (a) or 1 (b) of its pair: found in
 * either slot, or made and kept in its side's. */
static void pair_velocity(const qp_world *w, qp_old_walk *walk, int i, int side, qp_vec3 *v, qp_vec3 *om)
{
    int k = walk->body[0] == i ? 0 : walk->body[1] == i ? 1 : -1;
    if (k < 0) {
        k = side;
        walk->body[k] = i;
        qp__predicted_velocity(w, &w->bodies[i], &walk->v[k], &walk->w[k]);
    }
    *v = walk->v[k];
    *om = walk->w[k];
}

/* Last step's contacts not yet read move to the top of the pool, where this step's,
 * written from the bottom, reach them only if the pool is too small: byte for byte,
 * padding included, in blocks no larger than the move, from the last, so that no block
 * overlaps where it goes (picolibc's memmove copies an overlapping range backwards a
 * byte at a time, four Cortex-M instructions a byte; its memcpy a word at a time). */
static void lift_old(qp_world *w, qp_old_walk *old)
{
    const int shift = qp__cap_contacts(w) - old->end;
    for (int end = old->end; shift > 0 && end > old->next; end -= shift) {
        int start = end - shift > old->next ? end - shift : old->next;
        memcpy(&w->contacts[start + shift], &w->contacts[start], (size_t)(end - start) * sizeof(qp_contact));
    }
    old->next += shift;
    old->end = qp__cap_contacts(w);
}

/* A fresh contact at the bottom of the pool, its bytes as they were: the caller writes
 * every one (snapshots compare bytes, padding included; qp_contact has none). When it
 * would land on an old contact not yet read, the old ones left move to the top first (a
 * step with more new contacts than ended ones so far); when they are there already, that
 * old one is given up (its pair loses its warm start): the pool is too small for this
 * step's churn. */
static qp_contact *new_contact(qp_world *w, int *n, qp_old_walk *old, int a, int b)
{
    if (*n == qp__cap_contacts(w)) {
        lose_contact(w, a, b);
        return 0;
    }
    if (*n == old->next && old->next < old->end) lift_old(w, old);
    if (*n == old->next && old->next < old->end) {
        lose_contact(w, w->contacts[old->next].a, w->contacts[old->next].b);
        qp__event_contact_end(w, &w->contacts[old->next]);
        old->next++;
    }
    return &w->contacts[(*n)++];
}

/* A contact of last step that has no successor ends (events.c): as last seen. */
static void end_contact(qp_world *w, const qp_contact_cache *k)
{
    int64_t s[3] = { 0, 0, 0 }, j = 0;
    for (int p = 0; p < k->count; p++) {
        s[0] += k->ra[p].x;
        s[1] += k->ra[p].y;
        s[2] += k->ra[p].z;
        j += k->jn[p];
    }
    int n = k->count > 0 ? k->count : 1;
    qp_vec3 point = qp_v3_add(w->bodies[k->a].x, qp_v3((fix16_t)(s[0] / n), (fix16_t)(s[1] / n), (fix16_t)(s[2] / n)));
    qp__event_contact(w, QP_EVENT_END, k->a, k->b, k->sa, k->sb, point, k->n, qp_sat32(j));
}

/* A contact rebuilt from its old record k with these flags: what the record holds (bodies,
 * slots, normal, points, impulses, anchors), every other byte zero. */
/* The fields a contact takes from its old record k whether its manifold is kept or only
 * remembered, but its points': the pair, the normal and friction. */
static QP__ALWAYS_INLINE void from_cache(qp_contact *c, const qp_contact_cache *k, unsigned flags)
{
    c->a = k->a;
    c->b = k->b;
    c->sa = k->sa;
    c->sb = k->sb;
    c->count = k->count;
    c->flags = (uint8_t)flags;
    c->n = k->n;
    c->jt1 = k->jt1;
    c->jt2 = k->jt2;
    c->jtw = k->jtw;
}

static void contact_from_cache(qp_contact *c, const qp_contact_cache *k, unsigned flags)
{
    memset(c, 0, sizeof *c);
    from_cache(c, k, flags);
    for (int j = 0; j < k->count; j++) {
        c->p[j].id = k->id[j];
        c->p[j].jn = k->jn[j];
        c->p[j].ra = k->ra[j];
    }
    c->anchor_a = k->anchor_a;
    c->anchor_b = k->anchor_b;
}

/* A sleeping pair's contact, rebuilt from its old record (not solved). */
static void keep_sleeping(qp_world *w, int *n, qp_old_walk *walk, const qp_contact_cache *k)
{
    qp_contact *c = new_contact(w, n, walk, k->a, k->b);
    if (!c) {
        end_contact(w, k);
        return;
    }
    contact_from_cache(c, k, QP_CONTACT_SLEEPING);
}

/* The general case out of line: qp__shape_world's result is not on collide_shapes' stack
 * (the micro:bit's deepest frames pass through it). */
static QP__NOINLINE void shape_world_into(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r,
                                          qp_transform *xf)
{
    *xf = qp__shape_world(w, shape, x, r);
}

/* qp__shape_world into *xf, for a shape at its body's centre of mass without a turn
 * (every shape of a one-shape body) without the rotation of a zero offset: the same bits
 * (R 0 rounds to 0, and x + 0 saturates the same). Returns the shape's rotation: xf->r,
 * or for such a shape the body's r itself, not yet copied to xf->r (collide_shapes copies
 * it for a pair that touches only: most pairs make no contact). */
static QP__ALWAYS_INLINE const qp_rot3 *shape_pose(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r,
                                                   qp_transform *xf)
{
    const qp_shape *s = &w->shapes[shape].shape;
    if ((s->offset.x | s->offset.y | s->offset.z) != 0 || s->rotation.w != QP_Q30_ONE ||
        (s->rotation.x | s->rotation.y | s->rotation.z) != 0) {
        shape_world_into(w, shape, x, r, xf);
        return &xf->r;
    }
    xf->p = v3_add(*x, qp_v3_zero());
    return r;
}

/* Every entry of r within 2^30 + 2^28 of zero (a rotation's are within 2^30 and a
 * few units of rounding). */
static bool rot_small_entries(const qp_rot3 *r)
{
    const uint32_t lim = ((uint32_t)1 << 30) + ((uint32_t)1 << 28);
    uint32_t out = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out |= (uint32_t)r->m[i][j] + lim >= 2 * lim;
    return out == 0;
}

/* qp_transform_relative of the poses (pa, a) and (pb, b), out of line: its transforms are
 * not on collide_shapes' stack (the micro:bit's deepest frames pass through it). */
static QP__NOINLINE void relative_general(qp_vec3 pa, const qp_rot3 *a, qp_vec3 pb, const qp_rot3 *b,
                                          qp_transform *rel)
{
    const qp_transform ta = { pa, *a }, tb = { pb, *b };
    *rel = qp_transform_relative(&ta, &tb);
}

/* qp_transform_relative(a, b): b in a's frame, inline. On a 32-bit machine, for
 * rotations whose entries are below 2^30 + 2^28 (always), without qp__round_sum4's
 * overflow checks, which cannot fire: each product of two entries is below 1.57 2^60
 * and of an entry and an int32 below 1.25 2^61, so three of them and the half stay
 * below 2^63. The same floor((sum + 2^29) / 2^30), clamped the same. */
static void relative_pose(qp_vec3 pa, const qp_rot3 *a, qp_vec3 pb, const qp_rot3 *b, qp_transform *rel)
{
    const qp_q30 (*ra)[3] = a->m, (*rb)[3] = b->m;
    if (UINTPTR_MAX > 0xFFFFFFFFu) {
        /* A 64-bit machine checks a 64-bit sum's overflow with one flag: the general form
         * (qp_rot3_tmul, qp_rot3_tmul_v3 of the difference) inline, without the eighteen
         * tests of rot_small_entries at every pair. */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                rel->r.m[i][j] = qp__sat32(qp__round_sum4((int64_t)ra[0][i] * rb[0][j], (int64_t)ra[1][i] * rb[1][j],
                                                          (int64_t)ra[2][i] * rb[2][j], 0, 30));
        const qp_vec3 d = v3_sub(pb, pa);
        fix16_t o[3];
        for (int i = 0; i < 3; i++)
            o[i] = qp__sat32(
                qp__round_sum4((int64_t)ra[0][i] * d.x, (int64_t)ra[1][i] * d.y, (int64_t)ra[2][i] * d.z, 0, 30));
        rel->p = qp_v3(o[0], o[1], o[2]);
        return;
    }
    if (!rot_small_entries(a) || !rot_small_entries(b)) {
        relative_general(pa, a, pb, b, rel);
        return;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rel->r.m[i][j] = qp__sat32(((int64_t)ra[0][i] * rb[0][j] + (int64_t)ra[1][i] * rb[1][j] +
                                        (int64_t)ra[2][i] * rb[2][j] + ((int64_t)1 << 29)) >> 30);
    qp_vec3 d = v3_sub(pb, pa);
    fix16_t o[3];
    for (int i = 0; i < 3; i++)
        o[i] = qp__sat32(((int64_t)ra[0][i] * d.x + (int64_t)ra[1][i] * d.y + (int64_t)ra[2][i] * d.z +
                          ((int64_t)1 << 29)) >> 30);
    rel->p = qp_v3(o[0], o[1], o[2]);
}

/* An upper bound of a box's half diagonal |h| without a square root: with h's components
 * sorted, a >= b >= c, |h| <= a + (sqrt 2 - 1) b + (sqrt 3 - sqrt 2) c (the norm is convex,
 * and this is its value on the edges (1, 0, 0), (1, 1, 0), (1, 1, 1) of the cone of such
 * vectors, extended linearly), the factors rounded up: a cube's within rounding, at most
 * 13 % above for any box. */
static uint32_t box_radius(qp_vec3 h)
{
    uint32_t a = (uint32_t)h.x, b = (uint32_t)h.y, c = (uint32_t)h.z, t;   /* 0.01 - 100 m */
    if (a < b) t = a, a = b, b = t;
    if (b < c) t = b, b = c, c = t;
    if (a < b) t = a, a = b, b = t;
    return a + (uint32_t)(((uint64_t)b * 27146 + 65535) >> 16) + (uint32_t)(((uint64_t)c * 20830 + 65535) >> 16);
}

/* Two boxes whose bounding spheres are farther apart than the margin (and a millimetre
 * for rounding) cannot come within it, whatever their turn: no contact, found before
 * their relative pose (rain512's tumbling cubes make three times as many pairs as
 * contacts, half of them that far apart). The separating axis test would find no face
 * contact there; it could find an edge contact, between edges whose lines pass within
 * the margin but not the edges themselves. d: b's centre less a's. */
static bool boxes_apart(const qp_shape *a, const qp_shape *b, qp_vec3 d, fix16_t margin)
{
    if (a->type != QP_SHAPE_BOX || b->type != QP_SHAPE_BOX) return false;
    /* Radii below 2^25 (173 m each), a margin below 2^31: r fits 32 bits. */
    uint32_t r = box_radius(a->half) + box_radius(b->half) + (uint32_t)margin + QP_FRAC(1, 1000);
    uint64_t d2 = (uint64_t)((int64_t)d.x * d.x) + (uint64_t)((int64_t)d.y * d.y) + (uint64_t)((int64_t)d.z * d.z);
    return d2 > (uint64_t)r * r;
}

/* The pose of a pair's shape b in the frame of its shape a (*rel), and a's (*xa, world, its
 * rotation at *ra_at: in place when it is its body's), at their poses (pair_poses): false
 * when they cannot touch (boxes_apart). */
static QP__NOINLINE bool pair_frame(const qp_world *w, const qp_pair *pair, const qp_poses *at, qp_transform *xa,
                                    qp_transform *rel, const qp_rot3 **ra_at)
{
    const qp_shape_slot *sa = &w->shapes[pair->a], *sb = &w->shapes[pair->b];
    qp_transform xb;
    const qp_rot3 *ra = shape_pose(w, pair->a, &at->xa, at->rot.ra, xa);
    const qp_rot3 *rb = shape_pose(w, pair->b, &at->xb, at->rot.rb, &xb);
    if (boxes_apart(&sa->shape, &sb->shape, v3_sub(xb.p, xa->p), at->margin)) return false;
    relative_pose(xa->p, ra, xb.p, rb, rel);
    *ra_at = ra;
    return true;
}

/* The manifold of a pair at its poses (pair_poses), in the frame of shape a
 * (*xa, world). Apart from building the contact, and the poses apart from the
 * collide call (pair_frame), so that their temporaries are not on the stack
 * together with the collide functions (the deepest calls of a step: the
 * micro:bit has 3 KB). */
static QP__NOINLINE int collide_shapes(const qp_world *w, const qp_pair *pair, const qp_poses *at, qp_transform *xa,
                                       qp_manifold *m)
{
    qp_transform rel;
    const qp_rot3 *ra;
    if (!pair_frame(w, pair, at, xa, &rel, &ra)) return 0;
    const int n = qp_collide(&w->shapes[pair->a].shape, &w->shapes[pair->b].shape, &rel, at->margin, m);
    if (n > 0 && ra != &xa->r) xa->r = *ra;   /* add_contact reads *xa */
    return n;
}

/* qp_v3_len(d) > h, without the square root (most pairs are not swept): the
 * rounded root of S = |d|^2 (Q32.32) is at least m = h + 1 exactly when
 * S > m (m - 1), the rounding's threshold (m - 1/2)^2 moved up to the next integer. */
static bool closer_than_len(qp_vec3 d, fix16_t h)
{
    if (h < 0) return true;
    uint64_t s = (uint64_t)((int64_t)d.x * d.x) + (uint64_t)((int64_t)d.y * d.y) + (uint64_t)((int64_t)d.z * d.z);
    uint64_t m = (uint64_t)h + 1;
    return s > m * (m - 1);
}

/* Where a pair is collided. Most pairs: at the predicted poses, with the
 * contact margin. A pair whose bodies close in on each other by more than
 * half the thinner shape's core this step would be met half-way through or
 * past each other there (a ball at 60 m/s went through a unit box): it is
 * collided at the start poses instead, with the margin grown by that
 * distance, a speculative contact whose gap the solver lets close this step
 * and no further (docs/design.md §4: swept contacts). A frame of its own: its
 * temporaries (low-RAM makes the rotations here) are not on the stack under the
 * collide call. */
static QP__NOINLINE void pair_poses(const qp_world *w, const qp_pair *pair, qp_poses *at)
{
    const qp_shape_slot *sa = &w->shapes[pair->a], *sb = &w->shapes[pair->b];
    int a = sa->body, b = sb->body;
    const qp_body_state *ba = &w->bodies[a], *bb = &w->bodies[b];
    qp_vec3 da = v3_sub(qp__pred(w)->x[a], ba->x), db = v3_sub(qp__pred(w)->x[b], bb->x);
    qp_vec3 d = v3_sub(db, da);
    fix16_t ca = qp__shape_core(&sa->shape), cb = qp__shape_core(&sb->shape);
    at->swept = closer_than_len(d, (ca < cb ? ca : cb) / 2);
    at->start = at->swept;
    qp__pair_rotations_at(&at->rot, w, a, b, at->swept);
    if (at->swept) {
        at->xa = ba->x, at->xb = bb->x;
        at->margin = qp_sat32((int64_t)w->def.contact_margin + qp_v3_len(d));
    } else {
        at->xa = qp__pred(w)->x[a], at->xb = qp__pred(w)->x[b];
        at->margin = w->def.contact_margin;
    }
}

/* Whether last step's contact pushed: a point with a normal impulse. */
static bool old_touched(const qp_contact_cache *old)
{
    for (int k = 0; k < old->count; k++)
        if (old->jn[k] > 0) return true;
    return false;
}

/* The start poses of a pair whose contact touched last step and whose predicted poses lie
 * past the margin. The prediction turns each body about its centre: a cube landing on an
 * edge turns flat about that edge, and at the predicted pose the edge was 2.3 cm clear of the
 * ground, so a second cube striking it in that step pressed it 17.7 cm in with nothing under
 * it (bench_landings). Collided where the bodies are, the contact is there while it touches;
 * the solver lets it go when it opens. A frame of its own, as pair_poses. */
static QP__NOINLINE void start_poses(const qp_world *w, const qp_pair *pair, qp_poses *at)
{
    const int a = w->shapes[pair->a].body, b = w->shapes[pair->b].body;
    at->start = true;
    qp__pair_rotations_at(&at->rot, w, a, b, true);
    at->xa = w->bodies[a].x, at->xb = w->bodies[b].x;
}

/* Which side of a contact is round when only one is (1: a, 2: b; 0: neither, or both).
 * The collide functions put a point midway between the two surfaces; friction turns a ball
 * about its own surface point, so its arm must be its radius: midway into an overlap it
 * was short by half the depth, and a ball rolled with its spin that much faster than its
 * speed (a 10 cm ball on a plane, 2.8 %: the predicted pose sinks it g dt^2 into the plane
 * every step). Two round shapes keep the midway point (each arm short by half). */
static int round_side_of(const qp_world *w, const qp_contact *c)
{
    bool ra = qp__shape_round(w, c->a, c->sa), rb = qp__shape_round(w, c->b, c->sb);
    return ra == rb ? 0 : ra ? 1 : 2;
}

/* Manifold point q (a's frame, normal n from a to b, Q2.30) moved onto the round side's
 * surface: b's is depth / 2 back along n, a's depth / 2 along it. */
static qp_vec3 on_round_surface(qp_vec3 q, qp_vec3 n, fix16_t depth, int round_side)
{
    int64_t half = round_side == 2 ? -(int64_t)depth : depth;   /* n depth / 2: Q2.30 x Q16.16 >> 31 */
    return qp_v3(qp__sat32((int64_t)q.x + qp__shift_round64(n.x * half, 31)),
                 qp__sat32((int64_t)q.y + qp__shift_round64(n.y * half, 31)),
                 qp__sat32((int64_t)q.z + qp__shift_round64(n.z * half, 31)));
}

/* The twist radius of a one-point contact of a round shape on a flat one: the round shape's
 * patch, the circle where its surface crosses the flat one at the overlap the solver leaves
 * at rest (slop): radius sqrt(2 R slop), R its radius (1.4 cm for a 10 cm ball at the default
 * 2 mm). A point has no twist radius, and a ball spinning about the contact normal kept its
 * spin for ever: one lodged in a struck wall turned at 0.01 rad/s under the cubes it held up,
 * and their island never slept. A box's corner keeps none (its faces carry its twist), and so
 * do two round shapes: with one, twenty capsules spawned at one point ended twice as deep in
 * the floor (tests/unit/test_overlap.c). */
static QP__NOINLINE fix16_t point_patch(const qp_world *w, const qp_contact *c, int round_side)
{
    const int body = round_side == 1 ? c->a : c->b, slot = round_side == 1 ? c->sa : c->sb;
    const qp_shape *round = &w->shapes[w->bodies[body].shapes[slot]].shape;
    if (round->radius <= 0 || w->def.slop <= 0) return 0;
    return (fix16_t)qp_isqrt64((uint64_t)2 * (uint64_t)round->radius * (uint64_t)w->def.slop);   /* Q32 -> Q16 */
}

/* This step's contact of a pair from its manifold, with what it inherits. */
static QP__NOINLINE void add_contact(qp_world *w, int *n, qp_old_walk *walk, const qp_pair *pair,
                                     const qp_contact_cache *old, const qp_poses *at, const qp_transform *xa,
                                     const qp_manifold *m)
{
    const qp_shape_slot *sa = &w->shapes[pair->a], *sb = &w->shapes[pair->b];
    int a = sa->body, b = sb->body;
    qp_contact *c = new_contact(w, n, walk, a, b);
    if (!c) {
        if (old) end_contact(w, old);
        return;
    }
    /* Every byte written below, without clearing the 224 first: a memset would cost about 70
     * Cortex-M4 instructions for the 40 bytes of zeros written here, at every new contact.
     * What inherit_impulses may overwrite is zeroed first. */
    c->a = (uint16_t)a;
    c->b = (uint16_t)b;
    c->sa = sa->slot;
    c->sb = sb->slot;
    c->count = (uint8_t)m->count;
    c->flags = at->swept ? QP_CONTACT_SWEPT : 0;
    c->n = rot_small(&xa->r, m->normal);
    c->jt1 = c->jt2 = c->jtw = 0;
    c->st1 = c->st2 = c->stw = 0;
    c->jc = 0;
    if (m->count < QP_MAX_MANIFOLD_POINTS)
        memset(&c->p[m->count], 0, (size_t)(QP_MAX_MANIFOLD_POINTS - m->count) * sizeof c->p[0]);

    qp_vec3 va, wa, vb, wb;
    pair_velocity(w, walk, a, 0, &va, &wa);
    pair_velocity(w, walk, b, 1, &vb, &wb);
    qp_vec3 arm_a = v3_sub(xa->p, at->xa);
    c->ab = v3_sub(at->xa, at->xb);
    fix16_t vn_min = 0;
    qp_vec3 rb[QP_MAX_MANIFOLD_POINTS];
    bool arms_small = true;
    const bool small = v3_below(wa, SPEED_ARM) && v3_below(wb, SPEED_ARM) && v3_below(va, SPEED_VEL) &&
                       v3_below(vb, SPEED_VEL) && v3_below(c->n, SPEED_DIR);
    qp_vec3 dv = qp_v3_zero();
    if (small) dv = qp_v3(vb.x - va.x, vb.y - va.y, vb.z - va.z);
    /* Arms below 1.5 2^28 + 2^29 < 2^31 (rot_point): their sums need no clamp. */
    const bool plain = v3_below(arm_a, ARM_OFFSET) && v3_below(c->ab, ARM_OFFSET);
    /* A round shape against a flat one: its point on the round surface (below). */
    const int round_side = round_side_of(w, c);
    for (int k = 0; k < m->count; k++) {
        qp_contact_point *p = &c->p[k];
        const qp_vec3 q = round_side ? on_round_surface(m->points[k].point, m->normal, m->points[k].depth, round_side)
                                     : m->points[k].point;
        qp_vec3 ra;
        if (plain && v3_below(q, ARM_POINT)) {
            const qp_vec3 t = rot_point(&xa->r, q);
            ra = qp_v3(arm_a.x + t.x, arm_a.y + t.y, arm_a.z + t.z);
            rb[k] = qp_v3(ra.x + c->ab.x, ra.y + c->ab.y, ra.z + c->ab.z);
        } else {
            ra = v3_add(arm_a, rot_small(&xa->r, q));
            rb[k] = v3_add(ra, c->ab);   /* qp__arm_b(c, k), inline */
        }
        p->ra = ra;
        p->id = m->points[k].id;
        p->jn = 0;
        p->jp = 0;
        const bool arm_small = v3_below(ra, SPEED_ARM) && v3_below(rb[k], SPEED_ARM);
        arms_small = arms_small && arm_small;
        fix16_t vn = small && arm_small
                         ? normal_speed_small(dv, wa, wb, ra, rb[k], c->n)
                         : relative_normal_speed(va, wa, vb, wb, ra, rb[k], c->n);
        /* depth + qp_mul(vn, dt), inline, the sum saturated in 32 bits (the same numbers). */
        p->depth = at->start ? m->points[k].depth
                             : qp__add_sat(m->points[k].depth, qp__sat32(qp__shift_round64((int64_t)vn * w->def.dt, 16)));
        if (vn < vn_min) vn_min = vn;
    }
    const fix16_t patch = c->count == 1 && round_side ? point_patch(w, c, round_side) : -1;
    set_centroid(c, rb, arms_small, 0);
    if (patch >= 0) c->twist_radius = patch;
    set_anchors(w, c, old, at);
    if (old) {
        c->flags |= old->flags & QP_CONTACT_OVERLAP;   /* still coming apart (overlap.c) */
        if (w->def.warm_start) inherit_impulses(c, old);
    } else {
        c->flags |= QP_CONTACT_NEW;
        /* Its point, normal and impulse are filled in after the solver (events.c). */
        qp__event_contact(w, QP_EVENT_BEGIN, a, b, c->sa, c->sb, qp_v3_zero(), qp_v3_zero(), 0);
    }
    /* For sleep, a new contact is a change when something lands on something
     * (neighbours that merely touch, or a gap within the margin, are not). */
    if ((c->flags & QP_CONTACT_NEW) && -vn_min > w->def.wake_velocity) c->flags |= QP_CONTACT_CHANGED;
    /* A pair of bodies that do not move, one asleep, is a body created asleep having its
     * contacts found (qp__body_unrecorded): recorded asleep, as the sleep stage marks those
     * of a body that falls asleep, and not solved. */
    if (bodies_sleep(w, a, b)) c->flags |= QP_CONTACT_SLEEPING;
}

/* What a contact passes on to its successor. Only the points below count are
 * read (a local copy, neither stored nor hashed): nothing is cleared. */
static void remember(const qp_contact *c, qp_contact_cache *k)
{
    k->a = c->a;
    k->b = c->b;
    k->sa = c->sa;
    k->sb = c->sb;
    k->count = c->count;
    k->flags = c->flags;
    k->n = c->n;
    k->anchor_a = c->anchor_a;
    k->anchor_b = c->anchor_b;
    for (int j = 0; j < c->count; j++) {
        k->id[j] = c->p[j].id;
        k->ra[j] = c->p[j].ra;
        k->jn[j] = c->p[j].jn;
        k->depth[j] = c->p[j].depth;
    }
    k->jt1 = c->jt1;
    k->jt2 = c->jt2;
    k->jtw = c->jtw;
#if !QP_CFG_LOW_RAM
    k->twist_radius = c->twist_radius;
#endif
}


/* Kept manifolds (docs/design.md §4). Between two still bodies (QP_STATE_STILL: each moved
 * at most two millionths of a metre last step, and no call set it moving since) a contact's
 * manifold differs from last step's by what they moved, a few tenths of a unit: its points,
 * normal and depths are kept instead of found again, two steps in a row at most, then found
 * anew. Found anew every step, a resting pile's manifolds would trade a unit here and there as
 * the clipping rounds a slightly turned face differently; the solver answers each with more
 * visits, and piles creep. Flat shapes only (boxes, planes, and the static meshes and
 * heightfields, whose triangles are flat faces): a round shape's point travels as it rolls. The arms from b's centre, the centroid and the anchors
 * are made again (b's centre is where it is predicted now). */

/* Still since its last step (body.c clears the flag at any call that sets it moving, places
 * or pushes it); a body that cannot move always is. */
static bool body_still(const qp_body_state *b)
{
    if (qp__body_held(b)) return true;
    return (b->state & (QP_STATE_STILL | QP_STATE_PLACED)) == QP_STATE_STILL;
}

static bool flat_shape(const qp_world *w, int body, int slot)
{
    qp_shape_type t = w->shapes[w->bodies[body].shapes[slot]].shape.type;
    return t == QP_SHAPE_BOX || t == QP_SHAPE_PLANE || t == QP_SHAPE_MESH || t == QP_SHAPE_HEIGHTFIELD;
}

static bool keeps_manifold(const qp_world *w, const qp_contact_cache *old, const qp_poses *at)
{
    if (at->swept || !qp__contact_depths_live(old->flags, old->count)) return false;
    return body_still(&w->bodies[old->a]) && body_still(&w->bodies[old->b]) && flat_shape(w, old->a, old->sa) &&
           flat_shape(w, old->b, old->sb);
}

/* What a kept manifold's contact takes from its old record k: contact_from_cache's fields
 * and the depths, the count of steps kept raised by one, and zeros for the rest but ab, the
 * centroid, the twist radius and the anchors, which keep_manifold writes next (every byte
 * written, as add_contact does it: a memset of the whole record cost more than the zeros). */
static void kept_from_cache(qp_contact *c, const qp_contact_cache *k)
{
    from_cache(c, k, (k->flags & QP_CONTACT_KEPT) + (1u << QP_KEPT_SHIFT));
    c->st1 = c->st2 = c->stw = 0;
    c->jc = 0;
    for (int j = 0; j < k->count; j++) {
        c->p[j].ra = k->ra[j];
        c->p[j].depth = k->depth[j];
        c->p[j].id = k->id[j];
        c->p[j].jn = k->jn[j];
        c->p[j].jp = 0;
    }
    if (k->count < QP_MAX_MANIFOLD_POINTS)
        memset(&c->p[k->count], 0, (size_t)(QP_MAX_MANIFOLD_POINTS - k->count) * sizeof c->p[0]);
}

/* This step's contact of a pair whose manifold is kept (keeps_manifold): last step's points,
 * normal, depths, twist radius (its points') and impulses (what a contact found again with
 * the same features inherits), b's arms, the centroid and the anchors made again. A frame
 * of its own, as pair_poses. */
static QP__NOINLINE void keep_manifold(qp_world *w, int *n, qp_old_walk *walk, const qp_contact_cache *old,
                                       const qp_poses *at)
{
    qp_contact *c = new_contact(w, n, walk, old->a, old->b);
    if (!c) {
        end_contact(w, old);
        return;
    }
    kept_from_cache(c, old);
    if (!w->def.warm_start) {
        c->jt1 = c->jt2 = c->jtw = 0;
        for (int k = 0; k < c->count; k++) c->p[k].jn = 0;
    }
    c->ab = v3_sub(at->xa, at->xb);
    qp_vec3 rb[QP_MAX_MANIFOLD_POINTS];
    bool arms_small = true;   /* set_centroid's sums in 32 bits, as add_contact finds it */
    for (int k = 0; k < c->count; k++) {
        rb[k] = v3_add(c->p[k].ra, c->ab);
        arms_small = arms_small && v3_below(c->p[k].ra, SPEED_ARM) && v3_below(rb[k], SPEED_ARM);
    }
#if QP_CFG_LOW_RAM
    set_centroid(c, rb, arms_small, 0);
#else
    set_centroid(c, rb, arms_small, old->twist_radius);
#endif
    set_anchors(w, c, old, at);
}

/* Read the next old contact into *k (a copy: the slot may be written next). */
static void read_old(const qp_world *w, qp_old_walk *walk, qp_contact_cache *k)
{
    remember(&w->contacts[walk->next++], k);
}

/* The least normal speed of a manifold's points (negative: closing), b relative to a at
 * their predicted velocities, as add_contact finds it for a new contact. */
static QP__NOINLINE fix16_t arrival_speed(const qp_world *w, const qp_pair *pair, const qp_poses *at,
                                          const qp_transform *xa, const qp_manifold *m)
{
    const qp_shape_slot *sa = &w->shapes[pair->a], *sb = &w->shapes[pair->b];
    const bool ra_round = qp__shape_round(w, sa->body, sa->slot), rb_round = qp__shape_round(w, sb->body, sb->slot);
    const int round_side = ra_round == rb_round ? 0 : ra_round ? 1 : 2;
    qp_vec3 va, wa, vb, wb;
    qp__predicted_velocity(w, &w->bodies[sa->body], &va, &wa);
    qp__predicted_velocity(w, &w->bodies[sb->body], &vb, &wb);
    const qp_vec3 n = rot_small(&xa->r, m->normal), arm_a = v3_sub(xa->p, at->xa), ab = v3_sub(at->xa, at->xb);
    fix16_t vn_min = 0;
    for (int k = 0; k < m->count; k++) {
        const qp_vec3 q = round_side ? on_round_surface(m->points[k].point, m->normal, m->points[k].depth, round_side)
                                     : m->points[k].point;
        const qp_vec3 ra = v3_add(arm_a, rot_small(&xa->r, q));
        const fix16_t vn = relative_normal_speed(va, wa, vb, wb, ra, v3_add(ra, ab), n);
        if (vn < vn_min) vn_min = vn;
    }
    return vn_min;
}

/* Fast arrivals wake their sleepers before the pairs are walked (docs/design.md §6): a pair of
 * an awake body and a sleeper that had no contact last step and now closes faster than
 * wake_speed at a point wakes the sleeper and what rests on it. Woken in the walk, a sleeper's
 * pairs walked before stayed sleeping records, unsolved, and it moved with nothing under it:
 * a wall's cube struck through the one on it went 2.4 cm into the one below, which the passes
 * then pushed 5 cm into the ground (bench_impacts seed 50036). Woken here, each of its
 * contacts of last step is collided in the walk (carry_old) and solved with the rest. Pairs in
 * key order, each wake at once: the result is a function of the state alone. */
static bool wake_arrivals(qp_world *w)
{
    bool sleeper = false;
    for (int i = 1; i <= w->body_high; i++)
        if (w->bodies[i].state & QP_STATE_ASLEEP) {
            w->bodies[i].state |= QP_STATE_ROUSED;
            sleeper = true;
        }
    if (!sleeper) return false;
    const qp__contact_spans last = { { 0, 0 }, { w->contact_count, 0 } };
    int old = 0;
    qp_poses at;
    qp__pair_rotations_start(&at.rot);
    for (int i = 0; i < w->pair_count; i++) {
        const qp_pair *pair = &w->pairs[i];
        const qp_shape_slot *sa = &w->shapes[pair->a], *sb = &w->shapes[pair->b];
        const bool a_sleeps = (w->bodies[sa->body].state & QP_STATE_ASLEEP) != 0;
        const bool b_sleeps = (w->bodies[sb->body].state & QP_STATE_ASLEEP) != 0;
        if (a_sleeps == b_sleeps || qp__pair_is_sensor(w, pair)) continue;
        const uint64_t key = contact_key(sa->body, sb->body, sa->slot, sb->slot);
        uint64_t k = 0;
        for (; old < w->contact_count; old++) {
            const qp_contact *c = &w->contacts[old];
            k = contact_key(c->a, c->b, c->sa, c->sb);
            if (k >= key) break;
        }
        if (old < w->contact_count && k == key) continue;   /* touching since last step */
        pair_poses(w, pair, &at);
        qp_transform xa;
        qp_manifold m;
        if (collide_shapes(w, pair, &at, &xa, &m) > 0 && -(int64_t)arrival_speed(w, pair, &at, &xa, &m) > w->def.wake_speed)
            qp__wake_body_among(w, a_sleeps ? sa->body : sb->body, &last);
    }
    /* Those woken (QP_STATE_ROUSED until the walk ends) are predicted as the awake are
     * (predict.c): a step of gravity on, without a turn (a sleeper has no velocity), so that
     * their contacts' depths and approach speeds agree. */
    for (int i = 1; i <= w->body_high; i++) {
        qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_ROUSED)) continue;
        if (b->state & QP_STATE_ASLEEP) {
            b->state &= (uint16_t)~QP_STATE_ROUSED;
            continue;
        }
        qp_vec3 v, omega;
        qp__predicted_velocity(w, b, &v, &omega);
        qp__pred(w)->x[i] = qp__v3_mad(b->x, v, w->def.dt);
    }
    return true;
}

/* Points past the margin (gaps the collider keeps: a face's far corners) are marked in
 * their ids and put last (qp__point_gap). A bouncing pair (restitution above 0 on either body)
 * drops them: the collision pass bounces an edge when it arrives, where the contact pass would
 * stop a far corner at the surface, inelastically (a flat box landing tilted with e = 1 lost
 * 29 % of its energy in 10 s: test_restitution.c). The deepest point is within the margin. */
static QP__NOINLINE void mark_gaps(const qp_world *w, const qp_pair *pair, fix16_t margin, qp_manifold *m)
{
    const qp_body_state *a = &w->bodies[w->shapes[pair->a].body], *b = &w->bodies[w->shapes[pair->b].body];
    const bool bounces = qp__body_restitution(w, a) > 0 || qp__body_restitution(w, b) > 0;
    qp_manifold_point gaps[QP_MAX_MANIFOLD_POINTS];
    int n = 0, g = 0;
    for (int k = 0; k < m->count; k++) {
        if (m->points[k].depth >= -margin) {
            m->points[n++] = m->points[k];
        } else if (!bounces) {
            gaps[g] = m->points[k];
            gaps[g++].id |= QP__POINT_GAP;
        }
    }
    for (int k = 0; k < g; k++) m->points[n++] = gaps[k];
    m->count = n;
}

/* A pair collided at its poses (pair_poses): this step's contact with what it inherits from
 * last step's (old, or none), or old's end. Inline: its manifold is in the walk's frame, as
 * deep as the micro:bit's stack allows (tests/scripts/test-stack.sh). */
static QP__ALWAYS_INLINE void collide_pair(qp_world *w, int *n, qp_old_walk *walk, const qp_pair *pair, const qp_contact_cache *old,
                         qp_poses *at)
{
    if (old && keeps_manifold(w, old, at)) {
        keep_manifold(w, n, walk, old, at);
        QP__COUNT(narrow_kept, 1);
        return;
    }
    qp_transform xa;
    qp_manifold m;
    int touching = collide_shapes(w, pair, at, &xa, &m) > 0;
    if (!touching && old && !at->start && old_touched(old)) {
        start_poses(w, pair, at);
        touching = collide_shapes(w, pair, at, &xa, &m) > 0;
        QP__COUNT(narrow_calls, 1);
    }
    bool gap = false;
    for (int k = 0; touching && k < m.count; k++) gap |= m.points[k].depth < -at->margin;
    if (gap) mark_gaps(w, pair, at->margin, &m);
    QP__COUNT(narrow_calls, 1);
    QP__COUNT(narrow_touching, touching);
    if (touching)
        add_contact(w, n, walk, pair, old, at, &xa, &m);
    else if (old)
        end_contact(w, old);
}

/* The pair of last step's contact k collided (collide_pair), in a frame of its own: not on the
 * stack with the walk's other manifold. */
static QP__NOINLINE void collide_record(qp_world *w, int *n, qp_old_walk *walk, const qp_contact_cache *k,
                                        qp_poses *at, bool start)
{
    const qp_pair pair = { w->bodies[k->a].shapes[k->sa], w->bodies[k->b].shapes[k->sb] };
    pair_poses(w, &pair, at);
    if (start && !at->start) start_poses(w, &pair, at);
    collide_pair(w, n, walk, &pair, k, at);
}

/* Whether last step's contact k pushed and its shapes may still touch: its pair is one the
 * broad phase may make (filters, joints, sensors as they are now). */
static bool may_touch(const qp_world *w, const qp_contact_cache *k)
{
    const qp_pair pair = { w->bodies[k->a].shapes[k->sa], w->bodies[k->b].shapes[k->sb] };
    return old_touched(k) && qp__shapes_pair(&w->shapes[pair.a], &w->shapes[pair.b]) && !qp__joined(w, k->a, k->b) &&
           !qp__pair_is_sensor(w, &pair);
}

/* Last step's contact k of a pair the broad phase did not make this step: kept asleep while its
 * bodies sleep; collided when wake_arrivals woke one of them (the broad phase makes no pair of
 * sleepers); collided at the start poses when it pushed (the broad phase pairs the predicted
 * poses' boxes, which a turn can lift apart: start_poses); else ended. */
static void carry_old(qp_world *w, int *n, qp_old_walk *walk, const qp_contact_cache *k, qp_poses *at)
{
    if (pair_sleeps(w, k)) {
        keep_sleeping(w, n, walk, k);
    } else if ((k->flags & QP_CONTACT_SLEEPING) &&
               ((w->bodies[k->a].state | w->bodies[k->b].state) & QP_STATE_ROUSED)) {
        collide_record(w, n, walk, k, at, false);
    } else if (may_touch(w, k)) {
        collide_record(w, n, walk, k, at, true);
    } else {
        end_contact(w, k);
    }
}

void qp__narrow_phase(qp_world *w)
{
    const bool roused = wake_arrivals(w);
    /* Last step's contacts stay where they are until this step's would reach them
     * (new_contact): a world whose contacts carry on moves none. */
    qp_old_walk walk = { 0, w->contact_count, { -1, -1 }, { { 0, 0, 0 }, { 0, 0, 0 } }, { { 0, 0, 0 }, { 0, 0, 0 } } };
    int n = 0;
    qp_contact_cache old;
    qp_poses at;   /* kept from pair to pair: low-RAM reuses the rotations (layout.h) */
    qp__pair_rotations_start(&at.rot);
    /* Merge walk: pairs and old contacts are both sorted by the same key. */
    for (int i = 0; i < w->pair_count; i++) {
        if (qp__pair_is_sensor(w, &w->pairs[i])) continue;   /* sensor.c */
        const qp_shape_slot *sa = &w->shapes[w->pairs[i].a], *sb = &w->shapes[w->pairs[i].b];
        uint64_t key = contact_key(sa->body, sb->body, sa->slot, sb->slot);
        bool found = false;
        while (walk.next < walk.end) {
            const qp_contact *c = &w->contacts[walk.next];
            uint64_t k = contact_key(c->a, c->b, c->sa, c->sb);
            if (k > key) break;
            read_old(w, &walk, &old);
            if (k == key) {
                found = true;
                break;
            }
            carry_old(w, &n, &walk, &old, &at);
        }
        pair_poses(w, &w->pairs[i], &at);
        collide_pair(w, &n, &walk, &w->pairs[i], found ? &old : 0, &at);
    }
    while (walk.next < walk.end) {
        read_old(w, &walk, &old);
        carry_old(w, &n, &walk, &old, &at);
    }
    for (int i = 1; roused && i <= w->body_high; i++) w->bodies[i].state &= (uint16_t)~QP_STATE_ROUSED;
    int points = 0;
    for (int i = 0; i < n; i++) points += w->contacts[i].count;
    w->contact_count = n;
    w->stats.contacts = n;
    w->stats.points = points;
    if (n > w->stats.max_contacts) w->stats.max_contacts = n;
}
