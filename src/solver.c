/* Impulse kernels shared by the velocity passes.
 *
 * These run tens of thousands of times per step, so they are written as
 * inline integer kernels instead of calls into the general math layer:
 * every product is int64, every sum is rounded once. Ranges that keep them
 * exact (no saturation needed inside): velocities and arms are Q16.16 values
 * (|raw| < 2^31), unit directions Q2.30 (|raw| <= 2^30), inverse inertia
 * entries <= QP_INV_INERTIA_MAX (raw < 2^29.3, enforced at body creation):
 * a product is below 2^61, a sum of three below 2^63. Results saturate to
 * int32 once at the end.
 */
#include "solver.h"

static inline fix16_t sat(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : (fix16_t)v;
}

/* Round to nearest, ties away from zero: symmetric, so rounding has no
 * preferred direction (round-half-up made stacks lean one way: the arms of
 * a unit cube are exact halves, so ties are common). */
static inline int64_t round_shift(int64_t v, int n)
{
    int64_t half = INT64_C(1) << (n - 1);
    return v >= 0 ? (v + half) >> n : -((half - v) >> n);
}
static inline fix16_t r16(int64_t v) { return sat(round_shift(v, 16)); }
static inline fix16_t r30(int64_t v) { return sat(round_shift(v, 30)); }

/* a x u, u a Q2.30 unit vector: Q16.16. */
static inline qp_vec3 cross30(qp_vec3 a, qp_vec3 u)
{
    qp_vec3 r = { r30((int64_t)a.y * u.z - (int64_t)a.z * u.y), r30((int64_t)a.z * u.x - (int64_t)a.x * u.z),
                  r30((int64_t)a.x * u.y - (int64_t)a.y * u.x) };
    return r;
}

static inline fix16_t dot30(qp_vec3 a, qp_vec3 u)
{
    return r30((int64_t)a.x * u.x + (int64_t)a.y * u.y + (int64_t)a.z * u.z);
}

static inline int64_t dot16_raw(qp_vec3 a, qp_vec3 b)
{
    return (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z;
}

/* Inverse inertia (world) times a vector. */
static inline qp_vec3 inv_i(const qp_body_state *b, qp_vec3 v)
{
    const fix16_t(*m)[3] = b->inv_inertia.m;
    qp_vec3 r = { r16((int64_t)m[0][0] * v.x + (int64_t)m[0][1] * v.y + (int64_t)m[0][2] * v.z),
                  r16((int64_t)m[1][0] * v.x + (int64_t)m[1][1] * v.y + (int64_t)m[1][2] * v.z),
                  r16((int64_t)m[2][0] * v.x + (int64_t)m[2][1] * v.y + (int64_t)m[2][2] * v.z) };
    return r;
}

/* v + d * s with d Q2.30 and s Q16.16 (a velocity change along a direction). */
static inline void add_along(qp_vec3 *v, qp_vec3 d, fix16_t s)
{
    v->x = sat((int64_t)v->x + r30((int64_t)d.x * s));
    v->y = sat((int64_t)v->y + r30((int64_t)d.y * s));
    v->z = sat((int64_t)v->z + r30((int64_t)d.z * s));
}

static inline void add_scaled(qp_vec3 *v, qp_vec3 d, fix16_t s)
{
    v->x = sat((int64_t)v->x + r16((int64_t)d.x * s));
    v->y = sat((int64_t)v->y + r16((int64_t)d.y * s));
    v->z = sat((int64_t)v->z + r16((int64_t)d.z * s));
}

qp_vel_ref qp__vel_ref(qp_world *w, const qp_contact *c)
{
    qp_vel_ref r = { &w->bodies[c->a].v, &w->bodies[c->a].w, &w->bodies[c->b].v, &w->bodies[c->b].w };
    return r;
}

qp_vel_ref qp__pseudo_vel_ref(qp_world *w, const qp_contact *c)
{
    qp_vel_ref r = { (qp_vec3 *)&w->pseudo_v[c->a][0], (qp_vec3 *)&w->pseudo_v[c->a][3],
                     (qp_vec3 *)&w->pseudo_v[c->b][0], (qp_vec3 *)&w->pseudo_v[c->b][3] };
    return r;
}

fix16_t qp__rel_speed(const qp_vel_ref *v, qp_vec3 ra, qp_vec3 rb, qp_vec3 u)
{
    /* (vb + wb x rb - va - wa x ra) . u = (vb - va) . u + wb . (rb x u) - wa . (ra x u) */
    qp_vec3 dv = { v->vb->x - v->va->x, v->vb->y - v->va->y, v->vb->z - v->va->z };
    int64_t s = (int64_t)dv.x * u.x + (int64_t)dv.y * u.y + (int64_t)dv.z * u.z;  /* Q46 */
    int64_t ang = dot16_raw(*v->wb, cross30(rb, u)) - dot16_raw(*v->wa, cross30(ra, u)); /* Q32 */
    return r30(s + ang * 16384);
}

/* (r x u) . I^-1 (r x u): the angular share of one side. */
static int64_t angular_term(const qp_body_state *b, qp_vec3 r, qp_vec3 u)
{
    qp_vec3 rxu = cross30(r, u);
    return r16(dot16_raw(rxu, inv_i(b, rxu)));
}

static fix16_t inverse_of(int64_t k)
{
    if (k <= 0) return 0;
    return qp_div(QP_ONE, sat(k));
}

fix16_t qp__eff_mass(const qp_world *w, const qp_contact *c, qp_vec3 ra, qp_vec3 rb, qp_vec3 u, int move)
{
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    int64_t k = 0;
    if (move & QP_MOVE_A) k += (int64_t)a->inv_mass + angular_term(a, ra, u);
    if (move & QP_MOVE_B) k += (int64_t)b->inv_mass + angular_term(b, rb, u);
    return inverse_of(k);
}

fix16_t qp__twist_mass(const qp_world *w, const qp_contact *c, int move)
{
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    qp_vec3 n = qp_v3_from_q30(c->n);
    int64_t k = 0;
    if (move & QP_MOVE_A) k += r16(dot16_raw(n, inv_i(a, n)));
    if (move & QP_MOVE_B) k += r16(dot16_raw(n, inv_i(b, n)));
    return inverse_of(k);
}

void qp__apply(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, qp_vec3 ra, qp_vec3 rb,
               qp_vec3 u, fix16_t j, int move)
{
    if (j == 0) return;
    if (move & QP_MOVE_A) {
        const qp_body_state *a = &w->bodies[c->a];
        add_along(v->va, u, -qp_mul(j, a->inv_mass));
        add_scaled(v->wa, inv_i(a, cross30(ra, u)), -j);
    }
    if (move & QP_MOVE_B) {
        const qp_body_state *b = &w->bodies[c->b];
        add_along(v->vb, u, qp_mul(j, b->inv_mass));
        add_scaled(v->wb, inv_i(b, cross30(rb, u)), j);
    }
}

void qp__apply_twist(const qp_world *w, const qp_contact *c, const qp_vel_ref *v, qp_vec3 u, fix16_t j, int move)
{
    if (j == 0) return;
    qp_vec3 n = qp_v3_from_q30(u);
    if (move & QP_MOVE_A) add_scaled(v->wa, inv_i(&w->bodies[c->a], n), -j);
    if (move & QP_MOVE_B) add_scaled(v->wb, inv_i(&w->bodies[c->b], n), j);
}

int qp__movable(const qp_world *w, const qp_contact *c)
{
    return (qp__body_dynamic(&w->bodies[c->a]) ? QP_MOVE_A : 0) |
           (qp__body_dynamic(&w->bodies[c->b]) ? QP_MOVE_B : 0);
}

/* Where the manifold's load acts: the centroid of its points weighted by
 * their normal impulses (last step's, after warm start), or of the points
 * that touch when there are none. Friction must act there: at the plain
 * centroid, a box rocking onto one edge would get its friction at a point
 * in the air, and the rocking would never die out. */
static void load_centroid(qp_contact *c)
{
    int64_t sum = 0;
    for (int k = 0; k < c->count; k++) sum += c->p[k].jn;
    int64_t wsum = 0, s[3] = { 0, 0, 0 };
    for (int k = 0; k < c->count; k++) {
        const qp_contact_point *p = &c->p[k];
        int64_t wk = sum > 0 ? p->jn : (p->depth >= 0 ? 1 : 0);
        wsum += wk;
        s[0] += wk * p->ra.x;
        s[1] += wk * p->ra.y;
        s[2] += wk * p->ra.z;
    }
    if (wsum == 0) return;  /* nothing touches yet: keep the plain centroid */
    qp_vec3 ca = { (fix16_t)(s[0] / wsum), (fix16_t)(s[1] / wsum), (fix16_t)(s[2] / wsum) };
    c->cb = qp_v3_add(c->cb, qp_v3_sub(ca, c->ca));
    c->ca = ca;
}

void qp__prepare_contacts(qp_world *w)
{
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        int move = qp__movable(w, c);
        load_centroid(c);
        for (int k = 0; k < c->count; k++) {
            c->p[k].mn = qp__eff_mass(w, c, c->p[k].ra, c->p[k].rb, c->n, move);
            c->p[k].jp = 0;
        }
        c->mt1 = qp__eff_mass(w, c, c->ca, c->cb, c->t1, move);
        c->mt2 = qp__eff_mass(w, c, c->ca, c->cb, c->t2, move);
        c->mtw = qp__twist_mass(w, c, move);
    }
}

/* A point may approach by its gap this step. The gap comes from the
 * predicted pose and is an estimate: gaps within gap_tolerance count as
 * touching, or a resting box would keep sinking into its own estimate
 * error and rock forever. */
fix16_t qp__gap_speed(const qp_world *w, const qp_contact_point *p)
{
    fix16_t tol = w->def.gap_tolerance;
    return p->depth < -tol ? qp_div(-p->depth - tol, w->def.dt) : 0;
}

/* Past hold, scale (x, y) down to length slide (static, then dynamic
 * friction); true when it had to. */
static bool cut_to(fix16_t *x, fix16_t *y, fix16_t hold, fix16_t slide)
{
    int64_t len2 = (int64_t)*x * *x + (int64_t)*y * *y;
    if (len2 <= (int64_t)hold * hold) return false;
    fix16_t len = (fix16_t)qp_isqrt64((uint64_t)len2);
    if (len == 0) return false;
    fix16_t k = qp_div(slide, len);
    *x = qp_mul(*x, k);
    *y = qp_mul(*y, k);
    return true;
}

bool qp__friction(const qp_world *w, qp_contact *c, const qp_vel_ref *v, fix16_t jn_sum,
                  qp_friction *acc, int move, bool pinned)
{
    fix16_t m1 = pinned ? qp__eff_mass(w, c, c->ca, c->cb, c->t1, move) : c->mt1;
    fix16_t m2 = pinned ? qp__eff_mass(w, c, c->ca, c->cb, c->t2, move) : c->mt2;
    fix16_t mw = pinned ? qp__twist_mass(w, c, move) : c->mtw;
    fix16_t spin = dot30(qp_v3_sub(*v->wb, *v->wa), c->n);
    qp_friction want = {
        sat((int64_t)acc->t1 - qp_mul(qp__rel_speed(v, c->ca, c->cb, c->t1), m1)),
        sat((int64_t)acc->t2 - qp_mul(qp__rel_speed(v, c->ca, c->cb, c->t2), m2)),
        sat((int64_t)acc->tw - qp_mul(spin, mw)),
    };
    bool sliding = cut_to(&want.t1, &want.t2, qp_mul(c->static_friction, jn_sum), qp_mul(c->friction, jn_sum));
    fix16_t twist_hold = qp_mul(qp_mul(c->static_friction, jn_sum), c->twist_radius);
    fix16_t twist_slide = qp_mul(qp_mul(c->friction, jn_sum), c->twist_radius);
    fix16_t zero = 0;
    cut_to(&want.tw, &zero, twist_hold, twist_slide);
    qp__apply(w, c, v, c->ca, c->cb, c->t1, want.t1 - acc->t1, move);
    qp__apply(w, c, v, c->ca, c->cb, c->t2, want.t2 - acc->t2, move);
    qp__apply_twist(w, c, v, c->n, want.tw - acc->tw, move);
    *acc = want;
    return sliding;
}
