/* SPDX-License-Identifier: MIT */
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
#include "layout.h"
#include "scratch.h"

#include <stddef.h>

/* cross30 and inv_i serve fill_part, which low-RAM runs at every visit: their forms
 * for axis-aligned directions and diagonal inertia are forced inline (out of line, the
 * M4 paid more for the calls than they save), except on the Cortex-M0 (the micro:bit),
 * whose eight low registers spill so much that the inlined builder's frame doubled
 * (608 -> 1 336 bytes, on the deepest stack path). */
#if defined(__ARM_ARCH_6M__) || !defined(__OPTIMIZE__)   /* -O0 keeps each inlined copy's locals apart */
#define QP__ROWS_INLINE inline
#else
#define QP__ROWS_INLINE QP__ALWAYS_INLINE
#endif
/* round_in, below, is one rounding: inline on the Cortex-M0 too (QP__HELPER_INLINE). */
#if defined(__OPTIMIZE__)
#define QP__ROUND_INLINE QP__ALWAYS_INLINE
#else
#define QP__ROUND_INLINE inline
#endif

/* v / 2^n rounded as qp__r16 and qp__r30 round it, without their clamp where the caller
 * knows the result is within int32 (small: small_rows, below): the same number. Narrowed as
 * qp__sat32 narrows its result (QP__NARROW): the truncated int64 kept its high word on a
 * 32-bit Arm, and the products of the rows' dot products and responses were 64 x 64 ones. */
static QP__ROUND_INLINE fix16_t round_in(int64_t v, int n, bool small)
{
    if (!small) return qp__sat32(qp__round_shift(v, n));
    fix16_t r = (fix16_t)qp__round_shift(v, n);
    QP__NARROW(r);
    return r;
}

/* a x u, u a Q2.30 unit vector: Q16.16. */
static inline qp_vec3 cross30_in(qp_vec3 a, qp_vec3 u, bool small)
{
    qp_vec3 r = { round_in((int64_t)a.y * u.z - (int64_t)a.z * u.y, 30, small),
                  round_in((int64_t)a.z * u.x - (int64_t)a.x * u.z, 30, small),
                  round_in((int64_t)a.x * u.y - (int64_t)a.y * u.x, 30, small) };
    return r;
}

static inline qp_vec3 cross30(qp_vec3 a, qp_vec3 u)
{
    return cross30_in(a, u, false);
}

/* cross30 for a u along a coordinate axis (axis: axis_of(u), nonzero): every product
 * with u's one +-2^30 is exact, so each component is one of a's, its sign flipped with
 * u's, saturated as r30 saturates it (-INT32_MIN). The same bits, without the products
 * and roundings (a stack's or a resting box's normal and tangents lie along axes). */
static QP__HELPER_INLINE fix16_t signed_by(int64_t v, int axis)
{
    return qp__sat32(axis > 0 ? v : -v);
}

static inline qp_vec3 cross30_axis(qp_vec3 a, int axis)
{
    int e = axis > 0 ? axis : -axis;
    return e == 1 ? qp_v3(0, signed_by(a.z, axis), signed_by(-(int64_t)a.y, axis))
         : e == 2 ? qp_v3(signed_by(-(int64_t)a.z, axis), 0, signed_by(a.x, axis))
                  : qp_v3(signed_by(a.y, axis), signed_by(-(int64_t)a.x, axis), 0);
}

/* 1 + the axis (x, y, z) of a Q2.30 unit vector along one, negative for its negative
 * direction; 0 for any other vector. */
static inline int axis_of(qp_vec3 u)
{
    if (u.y == 0 && u.z == 0) return u.x == QP_Q30_ONE ? 1 : u.x == -QP_Q30_ONE ? -1 : 0;
    if (u.x == 0 && u.z == 0) return u.y == QP_Q30_ONE ? 2 : u.y == -QP_Q30_ONE ? -2 : 0;
    if (u.x == 0 && u.y == 0) return u.z == QP_Q30_ONE ? 3 : u.z == -QP_Q30_ONE ? -3 : 0;
    return 0;
}

/* A unit direction as fill_part crosses arms with it: along an axis (axis_of, when
 * axes is set), or, where rows are built at every visit (QP_LAYOUT_BUILDS_ROWS), negated
 * once for cross30_neg unless a component is INT32_MIN, whose negation int32 cannot hold. */
typedef struct {
    qp_vec3 u;
    int axis;
    qp_vec3 nu;   /* -u when neg, set where rows are built at every visit */
    bool neg;
} row_dir;

/* cross30 with u's components negated beforehand (nu = -u): each component a multiply
 * and a multiply-accumulate, a.y u.z + a.z (-u.y), the same sum as a.y u.z - a.z u.y
 * without the 64-bit subtraction (a Cortex-M has no long multiply-subtract). */
static inline qp_vec3 cross30_neg(qp_vec3 a, qp_vec3 u, qp_vec3 nu)
{
    qp_vec3 r = { qp__r30((int64_t)a.y * u.z + (int64_t)a.z * nu.y), qp__r30((int64_t)a.z * u.x + (int64_t)a.x * nu.z),
                  qp__r30((int64_t)a.x * u.y + (int64_t)a.y * nu.x) };
    return r;
}

static QP__ROWS_INLINE row_dir row_dir_of(qp_vec3 u, bool axes)
{
    row_dir d;
    d.u = u;
    d.axis = axes ? axis_of(u) : 0;
    if (QP_LAYOUT_BUILDS_ROWS) {
        d.neg = u.x != INT32_MIN && u.y != INT32_MIN && u.z != INT32_MIN;
        d.nu = d.neg ? qp_v3(-u.x, -u.y, -u.z) : u;
    }
    return d;
}

static QP__ROWS_INLINE qp_vec3 cross30_dir(qp_vec3 a, const row_dir *d, bool small)
{
    if (d->axis) return cross30_axis(a, d->axis);
    if (QP_LAYOUT_BUILDS_ROWS && d->neg) return cross30_neg(a, d->u, d->nu);
    return cross30_in(a, d->u, small);
}

/* qp__arm_b's sum ra + ab, by qp__add_sat: the same saturated components as qp__v3_add's
 * 64-bit sums, in an add and an overflow test each (fill_part finds it for every point). */
static inline qp_vec3 arm_b(qp_vec3 ra, qp_vec3 ab)
{
    return qp_v3(qp__add_sat(ra.x, ab.x), qp__add_sat(ra.y, ab.y), qp__add_sat(ra.z, ab.z));
}

/* Inverse inertia (world) times a vector. Forced inline as the row builders are: low-RAM
 * builds rows at every visit, and GCC left it out of line there (a call per response). */
static QP__ROWS_INLINE qp_vec3 inv_i_in(const qp_mat3 *inv_inertia, qp_vec3 v, bool small)
{
    const fix16_t(*m)[3] = inv_inertia->m;
    qp_vec3 r = { round_in((int64_t)m[0][0] * v.x + (int64_t)m[0][1] * v.y + (int64_t)m[0][2] * v.z, 16, small),
                  round_in((int64_t)m[1][0] * v.x + (int64_t)m[1][1] * v.y + (int64_t)m[1][2] * v.z, 16, small),
                  round_in((int64_t)m[2][0] * v.x + (int64_t)m[2][1] * v.y + (int64_t)m[2][2] * v.z, 16, small) };
    return r;
}

static QP__ROWS_INLINE qp_vec3 inv_i(const qp_mat3 *inv_inertia, qp_vec3 v)
{
    return inv_i_in(inv_inertia, v, false);
}

/* inv_i for a diagonal inverse inertia (a cube's or a sphere's, unrotated or turned by
 * quarter turns): the off-diagonal products are zeros, which change no sum. */
static inline bool diagonal(const qp_mat3 *m)
{
    return (m->m[0][1] | m->m[0][2] | m->m[1][0] | m->m[1][2] | m->m[2][0] | m->m[2][1]) == 0;
}

static QP__ROWS_INLINE qp_vec3 inv_i_any_in(const qp_mat3 *m, qp_vec3 v, bool diag, bool small)
{
    const fix16_t(*e)[3] = m->m;
    if (!diag) return inv_i_in(m, v, small);
    qp_vec3 r = { round_in((int64_t)e[0][0] * v.x, 16, small), round_in((int64_t)e[1][1] * v.y, 16, small),
                  round_in((int64_t)e[2][2] * v.z, 16, small) };
    return r;
}

static QP__ROWS_INLINE qp_vec3 inv_i_any(const qp_mat3 *m, qp_vec3 v, bool diag)
{
    return inv_i_any_in(m, v, diag, false);
}

/* 1 / k in Q16.16 (an effective mass from an inverse one), 0 for k <= 0: the same
 * number as qp_div(QP_ONE, sat(k)), round((2^32) / d) half up, with one 32-bit division
 * (the 64-bit one is a library call on the Cortex-M, and this runs for every row of every
 * contact each step, in low-RAM at every visit). With floor(d/2) + ceil(d/2) = d,
 * floor((2^32 + floor(d/2)) / d) = floor((2^32 - ceil(d/2)) / d) + 1, whose numerator
 * fits 32 bits; the sum fits too for d >= 2 (d = 1 saturates). Checked against the
 * two-step form for every k up to 2^31 + 4. */
static fix16_t inverse_of(int64_t k)
{
    if (k <= 0) return 0;
    uint32_t d = k > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)k;
    if (d < 2) return INT32_MAX;
    uint32_t a = (0u - (d - (d >> 1))) / d + 1u;
    return a > INT32_MAX ? INT32_MAX : (fix16_t)a;
}

/* qp__dot16_raw of a row and its response, their components narrowed (QP__NARROW): on a
 * 32-bit Arm the row's components kept the 64-bit forms of the roundings that made them, and
 * GCC multiplied them 64 x 64 (four instructions a product) where one multiply-accumulate
 * does. The same sum. */
static QP__ROWS_INLINE int64_t dot_narrow(qp_vec3 a, qp_vec3 b)
{
    QP__NARROW(a.x);
    QP__NARROW(a.y);
    QP__NARROW(a.z);
    QP__NARROW(b.x);
    QP__NARROW(b.y);
    QP__NARROW(b.z);
    return qp__dot16_raw(a, b);
}

/* One side's share of the inverse effective mass (side 0: a, 1: b) of point k's normal
 * row and of friction row d: qp__point_mass and row_mass sum them over the sides in move. */
static QP__ROWS_INLINE int64_t point_term_in(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k,
                                             int side, bool small)
{
    return side == 0 ? (int64_t)w->bodies[c->a].inv_mass + round_in(dot_narrow(r->pt[k].rna, r->resp[k].ia), 16, small)
                     : (int64_t)w->bodies[c->b].inv_mass + round_in(dot_narrow(r->pt[k].rnb, r->resp[k].ib), 16, small);
}

static QP__ROWS_INLINE int64_t point_term(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k,
                                          int side)
{
    return point_term_in(w, c, r, k, side, false);
}

static QP__ROWS_INLINE int64_t row_term_in(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int d,
                                           int side, bool small)
{
    bool linear = d < 2;
    return side == 0 ? (int64_t)(linear ? w->bodies[c->a].inv_mass : 0) +
                           round_in(qp__dot16_raw(r->fa[d], r->ia_f[d]), 16, small)
                     : (int64_t)(linear ? w->bodies[c->b].inv_mass : 0) +
                           round_in(qp__dot16_raw(r->fb[d], r->ib_f[d]), 16, small);
}

static QP__ROWS_INLINE int64_t row_term(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int d, int side)
{
    return row_term_in(w, c, r, d, side, false);
}

/* 2^shift / k in Q16.16 for k > 0 (an effective mass in the contact's impulse unit),
 * saturating. Both sides' inverse masses sum to 2^(shift + 1) kg^-1 or more
 * (qp__impulse_shift), so k / 2^shift keeps 17 whole bits or more; a pass that pins the
 * light side sums the heavy side alone, whose small k is inverted first and then scaled. */
/* Forced inline (low-RAM finds masses at every visit, the default every row of every
 * contact each step: a call per mass). */
#define QP__MASS_INLINE QP__ROWS_INLINE
static QP__MASS_INLINE fix16_t scaled_inverse_of(int64_t k, int shift)
{
    if (shift == 0) return inverse_of(k);
    if (k >= (INT64_C(1) << (16 + shift))) return inverse_of((k + (INT64_C(1) << (shift - 1))) >> shift);
    int64_t m = (int64_t)inverse_of(k) << shift;
    return m > INT32_MAX ? INT32_MAX : (fix16_t)m;
}

/* The effective mass from the two sides' shares t, for the sides in move, scaled by 2^shift. */
static QP__ROWS_INLINE fix16_t mass_of(const int64_t t[2], int move, int shift)
{
    int64_t sum = 0;
    if (move & QP_MOVE_A) sum += t[0];
    if (move & QP_MOVE_B) sum += t[1];
    return scaled_inverse_of(sum, shift);
}

static QP__ROWS_INLINE fix16_t point_mass(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k,
                                          int move)
{
    const int64_t t[2] = { (move & QP_MOVE_A) ? point_term(w, c, r, k, 0) : 0,
                           (move & QP_MOVE_B) ? point_term(w, c, r, k, 1) : 0 };
    return mass_of(t, move, r->shift);
}

fix16_t qp__point_mass(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move)
{
    return point_mass(w, c, r, k, move);
}

/* The normal direction at any arm ra from a's centre (the collision pass's
 * centroid row): the same arithmetic as a contact point's rows. */
void qp__normal_row(const qp_world *w, const qp_contact *c, qp_vec3 ra, int move, qp_normal_row *out)
{
    const qp_mat3 a = qp__body_inv_inertia(&w->bodies[c->a]), b = qp__body_inv_inertia(&w->bodies[c->b]);
    out->rna = cross30(ra, c->n);
    out->rnb = cross30(qp_v3_add(ra, c->ab), c->n);
    out->ia = inv_i(&a, out->rna);
    out->ib = inv_i(&b, out->rnb);
    int64_t sum = 0;
    if (move & QP_MOVE_A) sum += (int64_t)w->bodies[c->a].inv_mass + qp__r16(qp__dot16_raw(out->rna, out->ia));
    if (move & QP_MOVE_B) sum += (int64_t)w->bodies[c->b].inv_mass + qp__r16(qp__dot16_raw(out->rnb, out->ib));
    out->shift = qp__contact_shift(w, c);
    out->mass = scaled_inverse_of(sum, out->shift);
}

fix16_t qp__normal_row_speed(const qp_vel_ref *v, const qp_contact *c, const qp_normal_row *nr)
{
    return qp__normal_speed(v, c, nr->rna, nr->rnb);
}

void qp__normal_row_apply(const qp_world *w, const qp_contact *c, const qp_normal_row *nr, const qp_vel_ref *v,
                          fix16_t j, int move)
{
    qp__normal_apply(w, c, v, &nr->ia, &nr->ib, j, move, nr->shift);
}

/* Where the manifold's load acts: the centroid of its points weighted by
 * their normal impulses (last step's, after warm start), or of the points
 * that touch when there are none (a new contact's start is the contact
 * graph's share of weight, no load yet). Friction must act there: at the
 * plain centroid, a box rocking onto one edge would get its friction at a
 * point in the air, and the rocking would never die out. */
static void load_centroid(qp_contact *c)
{
    int64_t sum = 0;
    for (int k = 0; k < c->count && !(c->flags & QP_CONTACT_NEW); k++) sum += c->p[k].jn;
    int64_t wsum = 0, s[3] = { 0, 0, 0 };
    for (int k = 0; k < c->count; k++) {
        const qp_contact_point *p = &c->p[k];
        fix16_t wk = sum > 0 ? p->jn : (p->depth >= 0 ? 1 : 0);   /* 32 bits: 32 x 32 products */
        QP__NARROW(wk);   /* known not negative, GCC made each product an unsigned one and a fix-up */
        wsum += wk;
        s[0] += (int64_t)wk * p->ra.x;
        s[1] += (int64_t)wk * p->ra.y;
        s[2] += (int64_t)wk * p->ra.z;
    }
    if (wsum == 0) return;  /* nothing touches yet: keep the plain centroid */
    qp_vec3 ca = { (fix16_t)qp__div64(s[0], wsum), (fix16_t)qp__div64(s[1], wsum), (fix16_t)qp__div64(s[2], wsum) };
    c->cb = qp__v3_add(c->cb, qp__v3_sub(ca, c->ca));
    c->ca = ca;
}

/* Effective mass of friction row d (0, 1: tangents at the centroid; 2: twist). Each
 * side's share is widened before adding: a saturated angular term plus the inverse mass
 * overflowed int. */
static fix16_t row_mass(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int d, int move)
{
    const int64_t t[2] = { (move & QP_MOVE_A) ? row_term(w, c, r, d, 0) : 0,
                           (move & QP_MOVE_B) ? row_term(w, c, r, d, 1) : 0 };
    return mass_of(t, move, r->shift);
}

/* Relative velocity along friction row d, the linear velocities' difference d given
 * (qp__rel_vel; read on 64-bit hosts only, where the tangent rows share it). */
static QP__ALWAYS_INLINE fix16_t row_speed_from(const qp_vel_ref *v, const qp_rel_vel *dv, const qp_contact_rows *r,
                                                int d)
{
    int64_t ang = qp__dot16_raw(*v->wb, r->fb[d]) - qp__dot16_raw(*v->wa, r->fa[d]);  /* Q32 */
    if (d == 2) return qp__r16(ang);
    qp_vec3 u = d == 0 ? r->t1 : r->t2;
#if QP__WIDE_MUL
    return qp__speed_of(qp__rel_vel_dot(dv, u), ang);
#else
    (void)dv;
    return qp__speed_of(qp__rel_dot(v, u), ang);
#endif
}

/* The linear velocities' difference for row_speed_from, where it is read. */
static QP__ALWAYS_INLINE qp_rel_vel row_rel_vel(const qp_vel_ref *v)
{
#if QP__WIDE_MUL
    return qp__rel_vel(v);
#else
    (void)v;
    qp_rel_vel d = { 0, 0, 0 };
    return d;
#endif
}

static QP__ALWAYS_INLINE fix16_t row_speed(const qp_vel_ref *v, const qp_contact_rows *r, int d)
{
    const qp_rel_vel dv = row_rel_vel(v);
    return row_speed_from(v, &dv, r, d);
}

static QP__ROWS_INLINE qp_mat3 rows_inv_inertia(const qp_world *w, int i);

/* Low-RAM, rows built without responses (QP_ROWS_MASSES_KEPT): body i's angular
 * response to a row, as fill_part finds it. */
static QP__ALWAYS_INLINE qp_vec3 response(const qp_world *w, int i, qp_vec3 row)
{
    /* From the six kept entries (layout.h), as rows_inv_inertia lays them out (m01 = m10 =
     * k[3], m02 = m20 = k[4], m12 = m21 = k[5]), without the 3 x 3 copy on the stack. */
    if (qp__passes_kept(w)) {
        const fix16_t *k = qp__inv_inertia6_kept(w, i);
        if ((k[3] | k[4] | k[5]) == 0)
            return qp_v3(qp__r16((int64_t)k[0] * row.x), qp__r16((int64_t)k[1] * row.y),
                         qp__r16((int64_t)k[2] * row.z));
        return qp_v3(qp__r16((int64_t)k[0] * row.x + (int64_t)k[3] * row.y + (int64_t)k[4] * row.z),
                     qp__r16((int64_t)k[3] * row.x + (int64_t)k[1] * row.y + (int64_t)k[5] * row.z),
                     qp__r16((int64_t)k[4] * row.x + (int64_t)k[5] * row.y + (int64_t)k[2] * row.z));
    }
    const qp_mat3 m = rows_inv_inertia(w, i);
    return inv_i_any(&m, row, diagonal(&m));
}

static QP__ALWAYS_INLINE void row_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int d,
                      fix16_t j, int move, bool lazy)
{
    if (j == 0) return;
    QP__NARROW(j);   /* its products: 32 x 32 each (math_inline.h) */
    const qp_vec3 *u = d == 0 ? &r->t1 : &r->t2;   /* read where the rows keep it, not copied to the stack */
    if (r->shift == 0) {   /* the common case, tested once */
        const fix16_t ma = w->bodies[c->a].inv_mass, mb = w->bodies[c->b].inv_mass;
        if (d < 2 && move == QP_MOVE_BOTH && ma == mb) {   /* two bodies of one mass: qp__add_along_pair */
#if QP__ROWS_SIMD
            if (!(QP_LAYOUT_BUILDS_ROWS && lazy) &&
                QP__SIMD_ON() && qp__simd_pair_apply(v, u, qp__mul(j, mb), &r->ia_f[d], &r->ib_f[d], j))
                return;
#endif
            qp__add_along_pair(v->va, v->vb, *u, qp__mul(j, mb));
            qp__add_scaled(v->wa, QP_LAYOUT_BUILDS_ROWS && lazy ? response(w, c->a, r->fa[d]) : r->ia_f[d], -j);
            qp__add_scaled(v->wb, QP_LAYOUT_BUILDS_ROWS && lazy ? response(w, c->b, r->fb[d]) : r->ib_f[d], j);
            return;
        }
#if QP__ROWS_SIMD
        if (!(QP_LAYOUT_BUILDS_ROWS && lazy) && QP__SIMD_ON()) {   /* each side in one go, else as below */
            if (d == 2 && move == QP_MOVE_BOTH && qp__simd_turn_pair_apply(v->wa, v->wb, &r->ia_f[2], &r->ib_f[2], j))
                return;
            if ((move & QP_MOVE_A) && !(d < 2 ? qp__simd_side_apply(v->va, v->wa, u, -qp__mul(j, ma), &r->ia_f[d], -j)
                                              : qp__simd_turn_apply(v->wa, &r->ia_f[2], -j))) {
                if (d < 2) qp__add_along(v->va, *u, -qp__mul(j, ma));
                qp__add_scaled(v->wa, r->ia_f[d], -j);
            }
            if ((move & QP_MOVE_B) && !(d < 2 ? qp__simd_side_apply(v->vb, v->wb, u, qp__mul(j, mb), &r->ib_f[d], j)
                                              : qp__simd_turn_apply(v->wb, &r->ib_f[2], j))) {
                if (d < 2) qp__add_along(v->vb, *u, qp__mul(j, mb));
                qp__add_scaled(v->wb, r->ib_f[d], j);
            }
            return;
        }
#endif
        if (move & QP_MOVE_A) {
            if (d < 2) qp__add_along(v->va, *u, -qp__mul(j, w->bodies[c->a].inv_mass));
            qp__add_scaled(v->wa, QP_LAYOUT_BUILDS_ROWS && lazy ? response(w, c->a, r->fa[d]) : r->ia_f[d], -j);
        }
        if (move & QP_MOVE_B) {
            if (d < 2) qp__add_along(v->vb, *u, qp__mul(j, w->bodies[c->b].inv_mass));
            qp__add_scaled(v->wb, QP_LAYOUT_BUILDS_ROWS && lazy ? response(w, c->b, r->fb[d]) : r->ib_f[d], j);
        }
        return;
    }
    if (move & QP_MOVE_A) {
        if (d < 2) qp__add_along(v->va, *u, -qp__mul_impulse(j, w->bodies[c->a].inv_mass, r->shift));
        qp__add_impulse(v->wa, QP_LAYOUT_BUILDS_ROWS && lazy ? response(w, c->a, r->fa[d]) : r->ia_f[d], -j, r->shift);
    }
    if (move & QP_MOVE_B) {
        if (d < 2) qp__add_along(v->vb, *u, qp__mul_impulse(j, w->bodies[c->b].inv_mass, r->shift));
        qp__add_impulse(v->wb, QP_LAYOUT_BUILDS_ROWS && lazy ? response(w, c->b, r->fb[d]) : r->ib_f[d], j, r->shift);
    }
}

/* The component of a normal's first tangent that is zero: tangents' helper axis e follows
 * the normal's dominant component, so that the basis does not jump while a normal wobbles
 * around an axis (warm-started friction impulses are stored along these tangents), and
 * t1 = n x e has a zero at e. */
static int tangent_zero(qp_vec3 n)
{
    fix16_t ax = n.x < 0 ? -n.x : n.x, ay = n.y < 0 ? -n.y : n.y, az = n.z < 0 ? -n.z : n.z;
    return ay >= ax && ay >= az ? 0   /* mostly y: e = x */
         : ax >= az             ? 2   /* mostly x: e = z */
                                : 1;  /* mostly z: e = y */
}

/* n x t1 (qp_v3_cross_q30, inline): the second tangent. */
static qp_vec3 second_tangent(qp_vec3 n, qp_vec3 t1)
{
    return qp_v3(qp__sat32(qp__shift_round64((int64_t)n.y * t1.z - (int64_t)n.z * t1.y, 30)),
                 qp__sat32(qp__shift_round64((int64_t)n.z * t1.x - (int64_t)n.x * t1.z, 30)),
                 qp__sat32(qp__shift_round64((int64_t)n.x * t1.y - (int64_t)n.y * t1.x, 30)));
}

/* Two unit tangents (Q2.30) completing the normal to a right-handed basis; returns the
 * axis of t1's zero (tangent_zero). */
static int tangents(qp_vec3 n, qp_vec3 *t1, qp_vec3 *t2)
{
    /* c = n x e (qp_v3_cross_q30) for the unit axis e: every product with e's one
     * 2^30 is exact, so c is two of n's components, one negated, and a zero. */
    int zero = tangent_zero(n);
    qp_vec3 c = zero == 0 ? qp_v3(0, n.z, -n.y) : zero == 2 ? qp_v3(n.y, -n.x, 0) : qp_v3(-n.z, 0, n.x);
    /* c with one component (n along an axis, or in a plane of two): qp_v3_normalize_q30
     * gives that component's sign times 2^30 (its root is exact: |v| 2^k), without the
     * root and divisions. */
    int zeros = (c.x == 0) + (c.y == 0) + (c.z == 0);
    if (zeros == 2) {
        *t1 = qp_v3(c.x > 0 ? QP_Q30_ONE : c.x < 0 ? -QP_Q30_ONE : 0, c.y > 0 ? QP_Q30_ONE : c.y < 0 ? -QP_Q30_ONE : 0,
                    c.z > 0 ? QP_Q30_ONE : c.z < 0 ? -QP_Q30_ONE : 0);
    } else if (!qp_v3_normalize_q30(c, t1)) {
        *t1 = qp_v3(0, 0, QP_Q30_ONE);   /* n = 0 (mostly y): a zero at x all the same */
    }
    *t2 = second_tangent(n, *t1);
    return zero;
}

/* Low-RAM: a contact's first tangent kept for the step (qp__tangent_at, layout.h), as its
 * two components beside the zero (tangent_zero), in turn after it. Contacts in turn often
 * share their normal (the manifolds of one face): the one before's is copied. The default
 * layout keeps the tangents with the rows. */
static void keep_tangent(qp_world *w, const qp_contact *c, const qp_contact *prev)
{
    int32_t *k = qp__tangent_at(w, (int)(c - w->contacts));
    if (!k) return;
    if (prev && prev->n.x == c->n.x && prev->n.y == c->n.y && prev->n.z == c->n.z) {
        const int32_t *p = qp__tangent_at(w, (int)(prev - w->contacts));
        k[0] = p[0], k[1] = p[1];
        return;
    }
    qp_vec3 t1, t2;
    int zero = tangents(c->n, &t1, &t2);
    const fix16_t u[3] = { t1.x, t1.y, t1.z };
    k[0] = u[(zero + 1) % 3];
    k[1] = u[(zero + 2) % 3];
}

/* The vector with a, b, c along axes i, i + 1, i + 2 (mod 3). */
static inline qp_vec3 along_turn(int i, fix16_t a, fix16_t b, fix16_t c)
{
    return i == 0 ? qp_v3(a, b, c) : i == 1 ? qp_v3(c, a, b) : qp_v3(b, c, a);
}

/* The tangents from the kept components, or found again when they are not kept (a
 * sleeping contact, or after the shock pass). With t1's zero at i and (j, l) the next
 * two axes in turn, n x t1 is (n_j t_l - n_l t_j, -n_i t_l, n_i t_j) along (i, j, l):
 * second_tangent's numbers, without its products by the zero. */
static void kept_tangents(const qp_world *w, const qp_contact *c, qp_vec3 *t1, qp_vec3 *t2)
{
    if (!qp__passes_kept(w) || (c->flags & QP_CONTACT_SLEEPING)) {
        tangents(c->n, t1, t2);
        return;
    }
    const int32_t *k = qp__tangent_kept(w, (int)(c - w->contacts));
    const qp_vec3 n = c->n;
    const int i = tangent_zero(n);
    const fix16_t ni = i == 0 ? n.x : i == 1 ? n.y : n.z, nj = i == 0 ? n.y : i == 1 ? n.z : n.x,
                  nl = i == 0 ? n.z : i == 1 ? n.x : n.y;
    const fix16_t ui = qp__sat32(qp__shift_round64((int64_t)nj * k[1] - (int64_t)nl * k[0], 30)),
                  uj = qp__sat32(qp__shift_round64(-((int64_t)ni * k[1]), 30)),
                  ul = qp__sat32(qp__shift_round64((int64_t)ni * k[0], 30));
    *t1 = along_turn(i, 0, k[0], k[1]);
    *t2 = along_turn(i, ui, uj, ul);
}

static fix16_t combine_friction(fix16_t a, fix16_t b)
{
    return qp_sqrt(qp_mul(a, b));
}

/* The last combine_friction found, for the next contact (most pairs of a scene share
 * their materials: a square root and a product saved per contact). */
typedef struct {
    bool valid;
    fix16_t a, b, out;
} qp_combine_memo;

/* (Low-RAM takes them from the visit before instead: QP_ROWS_MEMO.) */
static fix16_t combine_memo(qp_combine_memo *m, fix16_t a, fix16_t b)
{
    if (!m) return combine_friction(a, b);
    if (!m->valid || m->a != a || m->b != b) {
        m->valid = true, m->a = a, m->b = b;
        m->out = combine_friction(a, b);
    }
    return m->out;
}

/* What the default layout's row preparation carries from one contact to the next: the
 * friction coefficients, and the tangents of the last normal (a body's contacts on one
 * face share it exactly, as face contacts take it from the face: often in a pyramid or a
 * wall), which then cost no normalisation (a square root and two divisions). */
typedef struct {
    qp_combine_memo friction, static_friction;
    bool has_tangents;
    qp_vec3 n, t1, t2;
} qp_rows_memo;

/* tangents(n, t1, t2), from the memo when n is its normal: the same vectors. */
static void memo_tangents(qp_rows_memo *m, qp_vec3 n, qp_vec3 *t1, qp_vec3 *t2)
{
    if (!m) {
        tangents(n, t1, t2);
        return;
    }
    if (!m->has_tangents || m->n.x != n.x || m->n.y != n.y || m->n.z != n.z) {
        tangents(n, &m->t1, &m->t2);
        m->n = n;
        m->has_tangents = true;
    }
    *t1 = m->t1;
    *t2 = m->t2;
}

/* A body's world inverse inertia for the rows: qp__body_inv_inertia, or in low-RAM
 * its copy kept from the collision pass to the penetration pass (the same bits:
 * qp_mat3_rotate's result is exactly symmetric). */
static QP__ROWS_INLINE qp_mat3 rows_inv_inertia(const qp_world *w, int i)
{
    if (qp__passes_kept(w)) {
        const fix16_t *k = qp__inv_inertia6_kept(w, i);
        qp_mat3 m = { { { k[0], k[3], k[4] }, { k[3], k[1], k[5] }, { k[4], k[5], k[2] } } };
        return m;
    }
    return qp__body_inv_inertia(&w->bodies[i]);
}

/* Low-RAM: find every body's world inverse inertia once per step, for rows_inv_inertia. */
static void keep_inv_inertia(qp_world *w)
{
    if (!qp__inv_inertia6_at(w, 0)) return;   /* the default layout: the bodies keep theirs */
    for (int i = 0; i <= w->body_high; i++) {
        qp_mat3 m = qp__body_inv_inertia(&w->bodies[i]);
        fix16_t *k = qp__inv_inertia6_at(w, i);
        k[0] = m.m[0][0], k[1] = m.m[1][1], k[2] = m.m[2][2];
        k[3] = m.m[0][1], k[4] = m.m[0][2], k[5] = m.m[1][2];
    }
    qp__passes_keep(w);
}

/* The rows of a contact from its normal, arms and load centroid and its
 * bodies' materials, masses and world inverse inertia: the one definition
 * behind both row layouts. Only the parts in need (QP_ROWS_*) and the angular
 * responses of the sides in move are built (the others' are zero), and the masses
 * for those sides (unless lazy, below). */
#if QP_LAYOUT_BUILDS_ROWS   /* how often it runs: inline as the kernels, or one copy */
#define QP__FILL_INLINE QP__ROWS_INLINE   /* into one copy per kind of build (fill_kept, below) */
#elif defined(__OPTIMIZE__)
#define QP__FILL_INLINE QP__ALWAYS_INLINE /* once per contact and step: one copy for small rows, one for any */
#else
#define QP__FILL_INLINE                   /* -O0 keeps two inlined copies' locals apart: one call */
#endif
static QP__FILL_INLINE void fill_part(const qp_world *w, const qp_contact *c, qp_contact_rows *r, unsigned need, int move,
                      int64_t (*terms)[2], qp_rows_memo *memo, bool small)
{
    const qp_body_state *ba = &w->bodies[c->a], *bb = &w->bodies[c->b];
    const qp_vec3 zero = { 0, 0, 0 };
    /* With the masses kept (the contact pass), no angular response is built: most of its
     * visits apply nothing at most rows, and qp__point_apply_kept and qp__friction (lazy)
     * find a row's response when they apply to it. */
    bool kept = (need & QP_ROWS_MASSES_KEPT) != 0;
    bool lazy = kept || (need & QP_ROWS_LAZY);   /* no response built (nor, below, a mass) */
    const int ma = lazy ? 0 : move & QP_MOVE_A, mb = lazy ? 0 : move & QP_MOVE_B;
    /* A side's inverse inertia is read only when it moves (no call for a zero matrix;
     * initialised all the same, for compilers that cannot see it is unread). */
    qp_mat3 a = { { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } } }, b = a;
    if (ma) a = rows_inv_inertia(w, c->a);
    if (mb) b = rows_inv_inertia(w, c->b);
    const bool da = ma && diagonal(&a), db = mb && diagonal(&b);
    const row_dir n = row_dir_of(c->n, true);
    bool masses = !lazy;   /* low-RAM: a pinning pass's too (qp__point_mass_pinned) */
    r->shift = qp__contact_shift(w, c);
    if (need & QP_ROWS_RESTITUTION)
        r->restitution = qp__body_restitution(w, ba) > qp__body_restitution(w, bb) ? qp__body_restitution(w, ba)
                                                                                     : qp__body_restitution(w, bb);
    for (int k = 0; k < c->count; k++) {
        if (!(need & QP_ROWS_POINT(k))) continue;
        if (!(need & QP_ROWS_ARMS_HELD)) {
            r->pt[k].rna = cross30_dir(c->p[k].ra, &n, small);
            r->pt[k].rnb = cross30_dir(arm_b(c->p[k].ra, c->ab), &n, small);
        }
        if (!lazy) {
            r->resp[k].ia = ma ? inv_i_any_in(&a, r->pt[k].rna, da, small) : zero;
            r->resp[k].ib = mb ? inv_i_any_in(&b, r->pt[k].rnb, db, small) : zero;
        }
        if (masses && terms) {
            for (int s = 0; s < 2; s++) terms[k][s] = (move & (1 << s)) ? point_term_in(w, c, r, k, s, small) : 0;
            r->pt[k].mn = mass_of(terms[k], move, r->shift);
        } else if (masses) {
            r->pt[k].mn = point_mass(w, c, r, k, move);
        } else if (kept) {
            r->pt[k].mn = c->p[k].jp;
        }
    }
    if (!(need & (QP_ROWS_TANGENTS | QP_ROWS_TWIST))) return;
    if (!QP_LAYOUT_BUILDS_ROWS) r->friction = combine_memo(memo ? &memo->friction : NULL, qp__body_friction(w, ba),
                                                            qp__body_friction(w, bb));
    int rows = need & QP_ROWS_TWIST ? 3 : 2;
    if (!QP_LAYOUT_BUILDS_ROWS) {   /* once a contact and step */
        r->static_friction = combine_memo(memo ? &memo->static_friction : NULL, qp__body_static_friction(w, ba),
                                          qp__body_static_friction(w, bb));
        memo_tangents(memo, c->n, &r->t1, &r->t2);
    } else {
        r->friction = 0;   /* found when a cut needs it (slide_of) */
        /* The pass's visit before (QP_ROWS_MEMO) often had the same normal (the contacts of
         * one face, a third of pyramid20's visits) and nearly always the same materials: the
         * same numbers give the same bits, without the kept tangent's cross product (or the
         * normalisation where none is kept) and the square root. */
        const qp_contact *prev = (need & QP_ROWS_MEMO) ? qp__rows_tangents_of(r) : NULL;
        if (!prev || prev->n.x != c->n.x || prev->n.y != c->n.y || prev->n.z != c->n.z)
            kept_tangents(w, c, &r->t1, &r->t2);
        if (!prev || qp__body_static_friction(w, &w->bodies[prev->a]) != qp__body_static_friction(w, ba) ||
            qp__body_static_friction(w, &w->bodies[prev->b]) != qp__body_static_friction(w, bb))
            r->static_friction = combine_friction(qp__body_static_friction(w, ba), qp__body_static_friction(w, bb));
        qp__rows_tangents_are(r, c);
    }
    const qp_vec3 dir[2] = { r->t1, r->t2 };
    for (int d = 0; d < 2; d++) {
        const row_dir t = row_dir_of(dir[d], n.axis != 0);   /* tangents along axes only for a normal along one */
        r->fa[d] = cross30_dir(c->ca, &t, small);
        r->fb[d] = cross30_dir(c->cb, &t, small);
    }
    /* twist: an angular row along n, its length the twist radius (m), so that its impulse is
     * the force at that radius (N s): a 4 cm cube of 1 kg turning on the floor had a twist
     * mass (its inertia, 2.7e-4 kg m^2) of 17 units, whose impulses changed its spin in
     * steps of 0.056 rad/s, and a slower spin was never stopped. At its 2.8 cm radius the
     * row's mass is 0.34 kg. Products of n (Q2.30) and the radius rounded once. */
    r->fa[2] = r->fb[2] = qp_v3(round_in((int64_t)c->n.x * c->twist_radius, 30, small),
                                round_in((int64_t)c->n.y * c->twist_radius, 30, small),
                                round_in((int64_t)c->n.z * c->twist_radius, 30, small));
    for (int d = 0; d < rows; d++) {
        if (!lazy) {
            r->ia_f[d] = ma ? inv_i_any_in(&a, r->fa[d], da, small) : zero;
            r->ib_f[d] = mb ? inv_i_any_in(&b, r->fb[d], db, small) : zero;
        }
        if (masses && terms) {
            int64_t *t = terms[QP_MAX_MANIFOLD_POINTS + d];
            for (int s = 0; s < 2; s++) t[s] = (move & (1 << s)) ? row_term_in(w, c, r, d, s, small) : 0;
            r->mt[d] = mass_of(t, move, r->shift);
        } else if (masses) {
            r->mt[d] = row_mass(w, c, r, d, move);
        } else if (kept) {
            r->mt[d] = d == 0 ? c->st1 : d == 1 ? c->st2 : c->stw;
        }
    }
}

void qp__keep_masses(qp_world *w, qp_contact *c, const qp_contact_rows *r)
{
    if (!QP_LAYOUT_BUILDS_ROWS) return;   /* the default layout keeps the rows */
    qp_contact_rows scratch;
    if (!r) r = qp__rows_for(w, c, &scratch, QP_ROWS_ALL, qp__movable(w, c));
    for (int k = 0; k < c->count; k++) c->p[k].jp = r->pt[k].mn;
    c->st1 = r->mt[0];
    c->st2 = r->mt[1];
    c->stw = r->mt[2];
}

/* The rows of each layout, and what each reads from its rows' own fields. The default
 * layout keeps every awake contact's rows for the step (keep_rows, with the masses of the
 * shock pass's pinned sides, the anchors' drift and the gaps); low-RAM keeps none, and the
 * passes build them at their visits (qp__rows_for), of the kind and parts they need. */
#if QP_LAYOUT_KEEPS_DERIVED
/* Where no rounding of fill_part can saturate (small rows, built without the clamps): the
 * points' arms from a, a's centre less b's, the centroid's arms and the twist radius below
 * 2^17 (2 m: every arm from b below 2^18), and every inverse inertia entry of each side in
 * move below 2^19 (8 kg^-1 m^-2; a unit cube of 1 kg: 6). For any int32 direction u, a
 * cross product's component is then below 2 2^18 2^31 / 2^30 = 2^20, a response's below
 * 3 2^19 2^20 / 2^16 = 3 2^23, and a row's share of an inverse mass below
 * 3 2^20 3 2^23 / 2^16 < 2^31. Each bound is a power of two, so that a value v is within
 * [-lim, lim) when v + lim has no bit at or above lim 2: one OR of them all is tested. */
#define SMALL_ARM     ((uint32_t)1 << 17)
#define SMALL_INERTIA ((uint32_t)1 << 19)

static inline uint32_t arm_bits(qp_vec3 v)
{
    return ((uint32_t)v.x + SMALL_ARM) | ((uint32_t)v.y + SMALL_ARM) | ((uint32_t)v.z + SMALL_ARM);
}

/* The six entries above and on the diagonal: a world inverse inertia is exactly symmetric
 * (qp_mat3_rotate averages its two triangles). */
static inline uint32_t inertia_bits(const qp_world *w, int i)
{
    const qp_mat3 m = qp__body_inv_inertia(&w->bodies[i]);
    uint32_t bits = 0;
    for (int r = 0; r < 3; r++)
        for (int k = r; k < 3; k++) bits |= (uint32_t)m.m[r][k] + SMALL_INERTIA;
    return bits;
}

static bool small_rows(const qp_world *w, const qp_contact *c, int move)
{
    uint32_t arms = arm_bits(c->ab) | arm_bits(c->ca) | arm_bits(c->cb) | ((uint32_t)c->twist_radius + SMALL_ARM);
    for (int k = 0; k < c->count; k++) arms |= arm_bits(c->p[k].ra);
    if (arms >= 2 * SMALL_ARM) return false;
    uint32_t inertia = ((move & QP_MOVE_A) ? inertia_bits(w, c->a) : 0) | ((move & QP_MOVE_B) ? inertia_bits(w, c->b) : 0);
    return inertia < 2 * SMALL_INERTIA;
}

static void fill_rows(const qp_world *w, const qp_contact *c, qp_contact_rows *r, qp_rows_memo *memo)
{
    int move = qp__movable(w, c);
    /* Each side's share of every row's inverse mass, found once for both sets of masses. */
    int64_t terms[QP_MAX_MANIFOLD_POINTS + 3][2];
    if (small_rows(w, c, move))
        fill_part(w, c, r, QP_ROWS_ALL | QP_ROWS_RESTITUTION, move, terms, memo, true);
    else
        fill_part(w, c, r, QP_ROWS_ALL | QP_ROWS_RESTITUTION, move, terms, memo, false);
    /* The shock pass pins the lower body; its masses are the same at every sweep of
     * every level (levels are set before this), so they are found once here. */
    int pin = qp__shock_movable(w, c);
    for (int k = 0; k < QP_MAX_MANIFOLD_POINTS; k++)
        r->mn_pin[k] = pin != move && k < c->count ? mass_of(terms[k], pin, r->shift) : 0;
    for (int d = 0; d < 3; d++)
        r->mt_pin[d] = pin != move ? mass_of(terms[QP_MAX_MANIFOLD_POINTS + d], pin, r->shift) : 0;
    if (qp__contact_round(w, c)) {
        qp__anchor_drift(w, c, r->t1, r->t2, r->anchor_drift, r->anchor_target);
    } else {
        r->anchor_drift[0] = r->anchor_drift[1] = r->anchor_target[0] = r->anchor_target[1] = 0;
    }
    for (int k = 0; k < QP_MAX_MANIFOLD_POINTS; k++) r->pt[k].gap = k < c->count ? qp__gap_speed(w, &c->p[k]) : 0;
}

static void keep_rows(qp_world *w, int i, qp_rows_memo *memo)
{
    fill_rows(w, &w->contacts[i], &w->rows[i], memo);
}

fix16_t qp__point_mass_pinned(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move)
{
    (void)w, (void)c, (void)move;
    return r->mn_pin[k];
}

/* row_mass for the shock pass's sides (see qp__point_mass_pinned). */
fix16_t qp__row_mass_pinned(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int d, int move)
{
    (void)w, (void)c, (void)move;
    return r->mt_pin[d];
}
#else
static void keep_rows(qp_world *w, int i, qp_rows_memo *memo)
{
    (void)w, (void)i, (void)memo;
}

fix16_t qp__point_mass_pinned(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move)
{
    (void)w, (void)c, (void)move;
    return r->pt[k].mn;   /* built by fill_part for the rows' sides in move */
}

fix16_t qp__row_mass_pinned(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int d, int move)
{
    (void)w, (void)c, (void)move;
    return r->mt[d];
}

/* qp__point_apply_kept and qp__point_mass_lazy, whose default forms are inline
 * (layout_rows.h): the responses low-RAM's kept and lazy rows lack, found on use. */
void qp__point_apply_kept(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int k,
                          fix16_t j, int move)
{
    if (j == 0) return;
    const qp_vec3 ia = (move & QP_MOVE_A) ? response(w, c->a, r->pt[k].rna) : qp_v3(0, 0, 0);
    const qp_vec3 ib = (move & QP_MOVE_B) ? response(w, c->b, r->pt[k].rnb) : qp_v3(0, 0, 0);
    qp__normal_apply(w, c, v, &ia, &ib, j, move, r->shift);
}

fix16_t qp__point_mass_lazy(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, int k, int move)
{
    /* point_term's shares, with the responses fill_part would have built */
    const int64_t t[2] = {
        (move & QP_MOVE_A) ? (int64_t)w->bodies[c->a].inv_mass +
                                 qp__r16(qp__dot16_raw(r->pt[k].rna, response(w, c->a, r->pt[k].rna)))
                           : 0,
        (move & QP_MOVE_B) ? (int64_t)w->bodies[c->b].inv_mass +
                                 qp__r16(qp__dot16_raw(r->pt[k].rnb, response(w, c->b, r->pt[k].rnb)))
                           : 0 };
    return mass_of(t, move, r->shift);
}

/* fill_part for each kind of low-RAM build, its flags known to the compiler: each drops
 * the parts the others need (the contact pass's, with its masses kept; the collision
 * pass's, lazy; every other, with responses and masses). */
static QP__NOINLINE void fill_kept(const qp_world *w, const qp_contact *c, qp_contact_rows *r, unsigned need, int move)
{
    fill_part(w, c, r, need | QP_ROWS_MASSES_KEPT, move, NULL, NULL, false);
}
static QP__NOINLINE void fill_lazy(const qp_world *w, const qp_contact *c, qp_contact_rows *r, unsigned need, int move)
{
    fill_part(w, c, r, (need | QP_ROWS_LAZY) & ~(unsigned)QP_ROWS_MASSES_KEPT, move, NULL, NULL, false);
}
static QP__NOINLINE void fill_full(const qp_world *w, const qp_contact *c, qp_contact_rows *r, unsigned need, int move)
{
    fill_part(w, c, r, need & ~(unsigned)(QP_ROWS_MASSES_KEPT | QP_ROWS_LAZY), move, NULL, NULL, false);
}

/* The default layout's qp__rows and qp__rows_for are inline (solver.h). */
const qp_contact_rows *qp__rows(qp_world *w, const qp_contact *c, qp_contact_rows *scratch)
{
    return qp__rows_for(w, c, scratch, QP_ROWS_ALL | QP_ROWS_RESTITUTION, qp__movable(w, c));
}

const qp_contact_rows *qp__rows_for(qp_world *w, const qp_contact *c, qp_contact_rows *scratch, unsigned need, int move)
{
    /* A sweep's last contact is the next sweep's first, and a shock level of one contact
     * is swept again and again: nothing the rows are made of changes within a pass. */
    /* ...and a visit that needs fewer rows (the shock pass's without friction) takes them
     * from a build of more, of the same kind (kept masses, lazy or full) and sides, or
     * lazy ones (the shock pass's calm test) from a full build, which holds them too. */
    uint32_t key = need | (uint32_t)move << 16;
    const uint32_t kind = QP_ROWS_MASSES_KEPT | QP_ROWS_LAZY, held = scratch->rows_key & kind;
    const bool same = (need & QP_ROWS_MEMO) && scratch->rows_of == c && scratch->rows_key >> 16 == (uint32_t)move;
    if (same && (held == (need & kind) || (held == 0 && (need & kind) == QP_ROWS_LAZY)) &&
        (need & ~scratch->rows_key & ~kind & 0xFFFFu) == 0)
        return scratch;
    /* A full build after a lazy one of the same contact and sides keeps its points' arms. */
    unsigned arms =
        same && held == QP_ROWS_LAZY && (need & QP_ROWS_POINTS & ~scratch->rows_key) == 0 ? QP_ROWS_ARMS_HELD : 0;
    if (need & QP_ROWS_MASSES_KEPT) fill_kept(w, c, scratch, need, move);
    else if (need & QP_ROWS_LAZY) fill_lazy(w, c, scratch, need, move);
    else fill_full(w, c, scratch, need | arms, move);
    scratch->rows_of = c;
    scratch->rows_key = key;
    return scratch;
}
#endif

void qp__anchor_drift(const qp_world *w, const qp_contact *c, qp_vec3 t1, qp_vec3 t2, fix16_t drift[2],
                      fix16_t target[2])
{
    const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
    qp_rot3 ra = qp__body_rot(a), rb = qp__body_rot(b);
    qp_vec3 pa = qp__rot3_mul_v3(&ra, c->anchor_a), pb = qp__rot3_mul_v3(&rb, c->anchor_b);
    qp_vec3 d = qp__v3_add(qp__v3_sub(b->x, a->x), qp__v3_sub(pb, pa));
    drift[0] = qp__v3_dot_q30(d, t1);
    drift[1] = qp__v3_dot_q30(d, t2);
    fix16_t cap = w->def.max_penetration_speed;
    for (int i = 0; i < 2; i++) {
        fix16_t t = qp__div(qp__mul(w->def.penetration_rate, -drift[i]), w->def.dt);
        target[i] = t > cap ? cap : t < -cap ? -cap : t;
    }
}

void qp__prepare_contacts(qp_world *w)
{
    keep_inv_inertia(w);
    qp_rows_memo memo = { { false, 0, 0, 0 }, { false, 0, 0, 0 }, false, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
    const qp_contact *prev = NULL;   /* the awake contact before (keep_tangent) */
    for (int i = 0; i < w->contact_count; i++) {
        qp_contact *c = &w->contacts[i];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        load_centroid(c);
        keep_rows(w, i, &memo);     /* the default layout */
        keep_tangent(w, c, prev);   /* low-RAM */
        prev = c;
        for (int k = 0; k < c->count; k++) c->p[k].jp = 0;
    }
}

/* Past hold, scale (x, y) down to length slide = mu_d jn_sum (static, then
 * dynamic friction); true when it had to. slide is found only for a cut. */
typedef struct {
    const qp_world *w;
    const qp_contact *c;
    const qp_contact_rows *r;
    fix16_t jn_sum, slide;
    bool known;
} qp_slide;

/* mu_d jn_sum, found on first use. Low-RAM builds no dynamic friction coefficient
 * with the rows (a product and a square root at every visit): it is found here, for
 * the visits that cut. */
static fix16_t slide_of(qp_slide *s)
{
    if (!s->known) {
        fix16_t mu_d = QP_LAYOUT_BUILDS_ROWS ? combine_friction(qp__body_friction(s->w, &s->w->bodies[s->c->a]),
                                                                qp__body_friction(s->w, &s->w->bodies[s->c->b]))
                                             : s->r->friction;
        s->slide = qp__mul(mu_d, s->jn_sum);
        s->known = true;
    }
    return s->slide;
}

static bool cut_to(fix16_t *x, fix16_t *y, fix16_t hold, qp_slide *slide)
{
    int64_t len2 = (int64_t)*x * *x + (int64_t)*y * *y;
    if (len2 <= (int64_t)hold * hold) return false;
    /* No dynamic limit (no load): k = qp__div(0, len) is 0 for any len != 0 (len2 >= 1
     * here), and x k, y k are 0: the same, without the root and the division. */
    if (slide_of(slide) == 0) {
        *x = *y = 0;
        return true;
    }
    fix16_t len = (fix16_t)qp_isqrt64((uint64_t)len2);
    if (len == 0) return false;
    fix16_t k = qp__div(slide_of(slide), len), tx = *x, ty = *y;
    QP__NARROW(tx);   /* x k, y k: one 32 x 32 product each (math_inline.h) */
    QP__NARROW(ty);
    *x = qp__mul(tx, k);
    *y = qp__mul(ty, k);
    return true;
}

/* The same for the twist, a force at the twist radius (slide = mu_d jn_sum), which has one
 * component: its length is |x| (the root of x^2 exactly), and |x| <= |hold| is
 * x^2 <= hold^2. */
static void cut_twist(fix16_t *x, fix16_t hold, qp_slide *slide)
{
    fix16_t len = *x < 0 ? -*x : *x, h = hold < 0 ? -hold : hold;
    if (len <= h) return;
    fix16_t s = slide_of(slide);
    *x = s ? qp__mul(*x, qp__div(s, len)) : 0;   /* qp__div(0, len) = 0 for len > 0 */
}

/* Both tangent rows at once where each applies and the bodies have one inverse mass
 * (qp__simd_pair2_apply: the same bits as row_apply for each); false: apply them one by one. */
static QP__ALWAYS_INLINE bool tangents_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                             const qp_vel_ref *v, fix16_t j1, fix16_t j2, int move, bool lazy)
{
#if QP__ROWS_SIMD
    const fix16_t m = w->bodies[c->b].inv_mass;
    if (j1 == 0 || j2 == 0 || r->shift != 0 || move != QP_MOVE_BOTH || w->bodies[c->a].inv_mass != m ||
        (QP_LAYOUT_BUILDS_ROWS && lazy) || !QP__SIMD_ON())
        return false;
    QP__NARROW(j1);
    QP__NARROW(j2);
    return qp__simd_pair2_apply(v, &r->t1, qp__mul(j1, m), &r->ia_f[0], &r->ib_f[0], j1, &r->t2, qp__mul(j2, m),
                                &r->ia_f[1], &r->ib_f[1], j2);
#else
    (void)w, (void)c, (void)r, (void)v, (void)j1, (void)j2, (void)move, (void)lazy;
    return false;
#endif
}

bool qp__friction(const qp_world *w, qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v,
                  fix16_t jn_sum, qp_friction *acc, int move, bool pinned, bool lazy, bool slides)
{
    fix16_t m1 = pinned ? qp__row_mass_pinned(w, c, r, 0, move) : r->mt[0];
    fix16_t m2 = pinned ? qp__row_mass_pinned(w, c, r, 1, move) : r->mt[1];
    fix16_t t1 = 0, t2 = 0, tw = 0;   /* the totals wanted */
    bool sliding;
    const qp_rel_vel dv = row_rel_vel(v);   /* both tangents' speeds read it, from the same velocities */
    if (jn_sum == 0) {
        /* No load: hold and slide are qp__mul(mu, 0) = 0, so cut_to and cut_twist take
         * every total to 0, and cut_to finds sliding when t1, t2 were not both 0 before
         * its cut. Only those two speeds are needed, and only for sliding. */
        sliding = slides && (qp__add_sat(acc->t1, -qp__mul(row_speed_from(v, &dv, r, 0), m1)) != 0 ||
                             qp__add_sat(acc->t2, -qp__mul(row_speed_from(v, &dv, r, 1), m2)) != 0);
    } else {
        fix16_t mw = pinned ? qp__row_mass_pinned(w, c, r, 2, move) : r->mt[2];
        t1 = qp__add_sat(acc->t1, -qp__mul(row_speed_from(v, &dv, r, 0), m1));
        t2 = qp__add_sat(acc->t2, -qp__mul(row_speed_from(v, &dv, r, 1), m2));
        tw = qp__add_sat(acc->tw, -qp__mul(row_speed_from(v, &dv, r, 2), mw));
        fix16_t hold = qp__mul(r->static_friction, jn_sum);
        qp_slide slide = { w, c, r, jn_sum, 0, false };
        sliding = cut_to(&t1, &t2, hold, &slide);
        cut_twist(&tw, hold, &slide);
    }
    /* Totals of opposite signs near the ends of Q16.16 (a restored or fuzzed state)
     * differ by more than int32: the change saturates. */
    const fix16_t j1 = qp__sub_sat(t1, acc->t1), j2 = qp__sub_sat(t2, acc->t2);
    if (!tangents_apply(w, c, r, v, j1, j2, move, lazy)) {
        row_apply(w, c, r, v, 0, j1, move, lazy);
        row_apply(w, c, r, v, 1, j2, move, lazy);
    }
    row_apply(w, c, r, v, 2, qp__sub_sat(tw, acc->tw), move, lazy);
    /* Stored whole from scalars: hosts then store t1 and t2 as one 8 bytes, which the
     * callers read back as one (their compilers pair the two); stored one by one, that
     * read waits for both narrower stores to reach the cache. */
    *acc = (qp_friction){ t1, t2, tw };
    return sliding;
}

/* One side's velocity changes from the warm start's totals (qp__warm_apply): linear
 * along n, t1, t2 by the summed normal impulse jn and the friction's, angular by every
 * row's response; each component one sum of products, rounded once. */
static QP__ALWAYS_INLINE void warm_side(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, qp_vec3 *lin,
                                         qp_vec3 *ang, int side, fix16_t jn, const fix16_t jt[3], int shift)
{
    fix16_t m = w->bodies[side == 0 ? c->a : c->b].inv_mass;
    const fix16_t s[3] = { qp__mul_impulse(jn, m, shift), qp__mul_impulse(jt[0], m, shift),
                           qp__mul_impulse(jt[1], m, shift) };
    const qp_vec3 *resp_f = side == 0 ? r->ia_f : r->ib_f;
    fix16_t *lv = &lin->x, *av = &ang->x;
    for (int i = 0; i < 3; i++) {
        const fix16_t *n = &c->n.x, *t1 = &r->t1.x, *t2 = &r->t2.x;
        fix16_t dl = qp__r30((int64_t)n[i] * s[0] + (int64_t)t1[i] * s[1] + (int64_t)t2[i] * s[2]);
        int64_t sum = 0;
        for (int k = 0; k < c->count; k++) {
            const qp_vec3 *resp = side == 0 ? &r->resp[k].ia : &r->resp[k].ib;
            sum += (int64_t)(&resp->x)[i] * c->p[k].jn;
        }
        for (int d = 0; d < 3; d++) sum += (int64_t)(&resp_f[d].x)[i] * jt[d];
        fix16_t da = qp__sat32(qp__round_shift(sum, 16 + shift));
        lv[i] = qp__add_sat(lv[i], side == 0 ? -dl : dl);
        av[i] = qp__add_sat(av[i], side == 0 ? -da : da);
    }
}

/* Both sides, for a constant shift (0, the common case, and any other). */
static QP__VISIT_NOINLINE void warm_sides0(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                           const qp_vel_ref *v, int move, fix16_t jn, const fix16_t jt[3])
{
    if (move & QP_MOVE_A) warm_side(w, c, r, v->va, v->wa, 0, jn, jt, 0);
    if (move & QP_MOVE_B) warm_side(w, c, r, v->vb, v->wb, 1, jn, jt, 0);
}

static QP__VISIT_NOINLINE void warm_sides(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                          const qp_vel_ref *v, int move, fix16_t jn, const fix16_t jt[3])
{
    if (move & QP_MOVE_A) warm_side(w, c, r, v->va, v->wa, 0, jn, jt, r->shift);
    if (move & QP_MOVE_B) warm_side(w, c, r, v->vb, v->wb, 1, jn, jt, r->shift);
}

/* The rows one after the other (impulses of 2^28 units and more). */
static QP__NOINLINE void warm_rows(const qp_world *w, const qp_contact *c, const qp_contact_rows *r,
                                   const qp_vel_ref *v, int move, const fix16_t jt[3])
{
    for (int k = 0; k < c->count; k++) qp__point_apply(w, c, r, v, k, c->p[k].jn, move);
    for (int d = 0; d < 3; d++) row_apply(w, c, r, v, d, jt[d], move, false);
}

void qp__warm_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int move)
{
    const fix16_t lim = (fix16_t)1 << 28;
    const fix16_t jt[3] = { c->jt1, c->jt2, c->jtw };
    bool small = true;
    fix16_t jn = 0, any = 0;   /* jn below 2^30 when small */
    for (int k = 0; k < c->count; k++) {
        small = small && c->p[k].jn < lim && c->p[k].jn > -lim;
        jn += small ? c->p[k].jn : 0;
        any |= c->p[k].jn;
    }
    for (int d = 0; d < 3; d++) {
        small = small && jt[d] < lim && jt[d] > -lim;
        any |= jt[d];
    }
    if (!any) return;
    if (!small) warm_rows(w, c, r, v, move, jt);
    else if (r->shift == 0) warm_sides0(w, c, r, v, move, jn, jt);
    else warm_sides(w, c, r, v, move, jn, jt);
}

/* Tangential rows at the centroid, for the anchors of static friction. */
fix16_t qp__row_speed(const qp_vel_ref *v, const qp_contact_rows *r, int d)
{
    return row_speed(v, r, d);
}
void qp__row_apply(const qp_world *w, const qp_contact *c, const qp_contact_rows *r, const qp_vel_ref *v, int d,
                   fix16_t j, int move)
{
    row_apply(w, c, r, v, d, j, move, false);
}
