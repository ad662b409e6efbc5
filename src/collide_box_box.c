/* SPDX-License-Identifier: MIT */
/* Box against box: separating axis test and face clipping (seed 001).
 *
 * Everything happens in A's frame, where A is axis aligned at the origin and
 * B sits at (R, t). The 15 candidate axes are A's three face normals, B's three
 * (the columns of R) and the nine cross products e_i x c_j. For each the
 * separation |t.n| - rA - rB is formed exactly in 64 bits as a Q16.16 x Q2.30
 * product ("Q46"): with half extents up to 100 m and |t| up to 1000 m every
 * sum stays below 2^59. Cross axes are normalised by one 64-bit division by
 * |e_i x c_j| (Q2.30); when that length is below 2^-10 the two edges are
 * parallel and the axis is skipped (the face axes then decide, as in 2D).
 *
 * Choosing the axis (separation = minus penetration): A's face axis of least
 * penetration, replaced by B's only if B's separation is larger by more than
 * a tolerance, replaced in turn by the best edge pair only if that beats the
 * face by more than a larger tolerance. Tolerances: 0.5 mm plus 1/64 of the
 * depth (B's face over A's), 0.5 mm plus 1/16 (edge over face). Near-equal
 * axes thus resolve the same way every step: A's face before B's, faces
 * before edges, lower index before higher; the manifold does not flicker.
 *
 * Face contact: the reference box is put at the origin (A as is, or B with A
 * expressed in B's frame), the incident face is the face of the other box most
 * anti-parallel to the reference normal, and its four corners are clipped
 * (Sutherland-Hodgman) against the four side planes of the reference face.
 * Every polygon edge carries a label (incident edge 0..3, side plane 4..7), so
 * every clipped vertex is named by the two labels it lies on: together with
 * the reference and incident face indices that is the feature id, stable
 * while the same features touch (bits: 12 reference box is B, 9-11 reference
 * face 2*axis + (side < 0), 6-8 incident face, 0-5 the label pair). Points
 * at depth >= -margin below the reference face are kept, moved halfway to
 * it, and when more than four reduced to the deepest, the one farthest from
 * it, and the two with the largest triangle area on either side of that
 * chord (ties: first in polygon order; output in polygon order). Points past
 * the margin fill the places left, as gaps (qp__keep_gaps), after them.
 * Edge contact: one point midway between the closest points of the two edges
 * (geometry.h), depth from the axis, id 1 << 13 | edge of A << 4 | edge of B;
 * unless one edge lies across the other box's face within 7.2 degrees of its plane
 * (edge_across_face): then that edge clipped to the face, up to two points on the
 * face's normal.
 */
#include <string.h>
#include "qphys/collide.h"
#include "geometry.h"
#include "math_inline.h"

#define CLIP_MAX            8                       /* a quad clipped by 4 planes */

/* The face and edge stages get frames of their own (QP__NOINLINE: the SAT's
 * locals are dead by then): it keeps every frame well under the -Wstack-usage
 * bound, also under AddressSanitizer's red zones. */

/* Shared with collide_box.c and collide_hull.c (so not static): keep at most 4 of n <= 64
 * candidates, rows (u, v, depth); writes their indices, ascending, to keep. */

/* Depths within this of the deepest count as equally deep when choosing the
 * four points to keep (0.5 mm). */
#define REDUCE_DEPTH_TOL QP_FRAC(1, 2000)

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static int64_t tolerance(int64_t sep, int shift)
{
    return (int64_t)QP__BOX_TOL_ABS * QP__W_ONE + (abs64(sep) >> shift);
}

/* (i + 1) % 3 and (i + 2) % 3 as NEXT3[i + 1], NEXT3[i + 2]: a modulo is a
 * multiplication and three more instructions on a Cortex-M, at every axis. */
static const uint8_t NEXT3[5] = { 0, 1, 2, 0, 1 };

/* |R[i][j]|, Q2.30, unsigned. */
static uint32_t absr(const qp_q30 (*r)[3], int i, int j)
{
    return r[i][j] < 0 ? 0u - (uint32_t)r[i][j] : (uint32_t)r[i][j];
}

/* a0 h0 + a1 h1 (+ a2 h2) for |R| entries a and half extents h (> 0), Q46: a box's
 * reach along an axis. Unsigned, so that each term is one 32 x 32 multiply-accumulate
 * on a 32-bit machine (signed 64-bit terms took three instructions each); below 2^55
 * for half extents up to 100 m. */
static QP__ALWAYS_INLINE int64_t reach2(uint32_t a0, fix16_t h0, uint32_t a1, fix16_t h1)
{
    return (int64_t)((uint64_t)a0 * (uint32_t)h0 + (uint64_t)a1 * (uint32_t)h1);
}
static QP__ALWAYS_INLINE int64_t reach3(uint32_t a0, fix16_t h0, uint32_t a1, fix16_t h1, uint32_t a2, fix16_t h2)
{
    return (int64_t)((uint64_t)a0 * (uint32_t)h0 + (uint64_t)a1 * (uint32_t)h1 + (uint64_t)a2 * (uint32_t)h2);
}

/* The separations along the candidate axes (Q46; < 0: overlap along it), B at (R, t)
 * in A's frame. A's face axis i: */
static QP__ALWAYS_INLINE int64_t sep_face_a(const fix16_t ha[3], const fix16_t hb[3], const fix16_t t[3],
                                 const qp_q30 (*R)[3], int i)
{
    int64_t rb = reach3(absr(R, i, 0), hb[0], absr(R, i, 1), hb[1], absr(R, i, 2), hb[2]);
    return abs64((int64_t)t[i] * QP__W_ONE) - (int64_t)ha[i] * QP__W_ONE - rb;
}

/* (R^T t)[j], Q46: B's centre along its own axis j. */
static QP__ALWAYS_INLINE int64_t tb_of(const fix16_t t[3], const qp_q30 (*R)[3], int j)
{
    return (int64_t)R[0][j] * t[0] + (int64_t)R[1][j] * t[1] + (int64_t)R[2][j] * t[2];
}

/* B's face axis j, from tb = tb_of(t, R, j). */
static QP__ALWAYS_INLINE int64_t sep_face_b(const fix16_t ha[3], const fix16_t hb[3], int64_t tb, const qp_q30 (*R)[3], int j)
{
    int64_t ra = reach3(absr(R, 0, j), ha[0], absr(R, 1, j), ha[1], absr(R, 2, j), ha[2]);
    return abs64(tb) - ra - (int64_t)hb[j] * QP__W_ONE;
}

/* The edge axis e_i x c_j, not normalised: false when the edges are parallel (|e_i x
 * c_j|^2 = *len2, Q60, below QP__BOX_EDGE_MIN2), else the separation times |e_i x c_j|
 * (Q2.30) in *num, t . (e_i x c_j) in *tn. */
static QP__ALWAYS_INLINE bool sep_edges(const fix16_t ha[3], const fix16_t hb[3], const fix16_t t[3],
                                        const qp_q30 (*R)[3], int i, int j, int64_t *len2, int64_t *num,
                                        int64_t *tn)
{
    const int i1 = NEXT3[i + 1], i2 = NEXT3[i + 2], j1 = NEXT3[j + 1], j2 = NEXT3[j + 2];
    *len2 = (int64_t)R[i1][j] * R[i1][j] + (int64_t)R[i2][j] * R[i2][j];
    if (*len2 < QP__BOX_EDGE_MIN2) return false;
    *tn = (int64_t)t[i2] * R[i1][j] - (int64_t)t[i1] * R[i2][j];   /* t . (e_i x c_j) */
    int64_t ra = reach2(absr(R, i2, j), ha[i1], absr(R, i1, j), ha[i2]);
    int64_t rb = reach2(absr(R, i, j2), hb[j1], absr(R, i, j1), hb[j2]);
    *num = abs64(*tn) - ra - rb;
    return true;
}

/* (2^30 + 2^20)^2: an edge axis e_i x c_j whose len2 (Q60) is at most this has a length
 * round(sqrt(len2)) of at most 2^30 + 2^20 (Q2.30; isqrt_round). */
#define EDGE_LEN2_MAX (((int64_t)1 << 60) + ((int64_t)1 << 51) + ((int64_t)1 << 40))

/* round(sqrt(v)) for v >= 0. */
static int64_t isqrt_round(int64_t v)
{
    uint32_t r = qp_isqrt64((uint64_t)v);
    if ((uint64_t)v - (uint64_t)r * r > r) r++;
    return r;
}

/* t + M v for a Q2.30 matrix M and Q16.16 t, v: one rounding. */
static void affine(const qp_q30 mm[3][3], const fix16_t t[3], const fix16_t v[3], fix16_t out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = qp__shift_round((int64_t)t[c] * QP__W_ONE + (int64_t)mm[c][0] * v[0] +
                                (int64_t)mm[c][1] * v[1] + (int64_t)mm[c][2] * v[2], 30);
}

static int64_t dist2(const fix16_t a[3], const fix16_t b[3])
{
    int64_t du = (int64_t)a[0] - b[0], dv = (int64_t)a[1] - b[1];
    return du * du + dv * dv;
}

/* Twice the signed area of (a, b, p). */
static int64_t area2(const fix16_t a[3], const fix16_t b[3], const fix16_t p[3])
{
    return ((int64_t)b[0] - a[0]) * ((int64_t)p[1] - a[1]) - ((int64_t)b[1] - a[1]) * ((int64_t)p[0] - a[0]);
}

int qp__reduce_contacts(const fix16_t uv[][3], int n, int keep[4])
{
    if (n <= 4) {
        for (int i = 0; i < n; i++) keep[i] = i;
        return n;
    }
    uint64_t used = 0;   /* bit i: candidate i kept */
    int i1 = 0, i2 = -1, i3 = -1, i4 = -1;
    for (int i = 1; i < n; i++)
        if (uv[i][2] > uv[i1][2]) i1 = i;
    /* Among the points about as deep as the deepest (a face resting flat),
     * start from the one farthest from the polygon's centre: a corner, not
     * an edge midpoint of the octagon two slightly yawed boxes make, or the
     * four points would leave a corner of the support unsupported. */
    int64_t cu = 0, cv = 0;
    for (int i = 0; i < n; i++) {
        cu += uv[i][0];
        cv += uv[i][1];
    }
    fix16_t centre[3] = { (fix16_t)(cu / n), (fix16_t)(cv / n), 0 };
    fix16_t deep = uv[i1][2];
    int64_t far = -1;
    for (int i = 0; i < n; i++) {
        if ((int64_t)deep - uv[i][2] > REDUCE_DEPTH_TOL) continue;
        int64_t d = dist2(uv[i], centre);
        if (d > far) { far = d; i1 = i; }
    }
    used |= (uint64_t)1 << i1;
    int64_t best = -1;
    for (int i = 0; i < n; i++) {
        int64_t d = dist2(uv[i], uv[i1]);
        if (!((used >> i) & 1u) && d > best) { best = d; i2 = i; }
    }
    used |= (uint64_t)1 << i2;
    int64_t amax = 0, amin = 0;
    for (int i = 0; i < n; i++) {
        if (((used >> i) & 1u)) continue;
        int64_t s = area2(uv[i1], uv[i2], uv[i]);
        if (s > amax) { amax = s; i3 = i; }
        if (s < amin) { amin = s; i4 = i; }
    }
    if (i3 >= 0) used |= (uint64_t)1 << i3;
    if (i4 >= 0) used |= (uint64_t)1 << i4;
    int count = 2 + (i3 >= 0) + (i4 >= 0);
    /* One side of the chord empty (or all collinear): fill with the points
     * farthest from every point kept so far. */
    while (count < 4) {
        int pick = -1;
        best = 0;
        for (int i = 0; i < n; i++) {
            if (((used >> i) & 1u)) continue;
            int64_t near = INT64_MAX;
            for (int j = 0; j < n; j++) {
                int64_t d = ((used >> j) & 1u) ? dist2(uv[i], uv[j]) : INT64_MAX;
                if (d < near) near = d;
            }
            if (near > best) { best = near; pick = i; }
        }
        if (pick < 0) break;   /* only duplicates left */
        used |= (uint64_t)1 << pick;
        count++;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (((used >> i) & 1u)) keep[k++] = i;
    return k;
}

int qp__keep_gaps(const fix16_t cand[][3], int gaps, int end, int count, int keep[4])
{
    while (count > 0 && count < 4) {
        int pick = -1;
        int64_t best = -1;
        for (int i = gaps; i < end; i++) {
            int64_t near = INT64_MAX;
            for (int j = 0; j < count; j++) {
                const int64_t d = keep[j] == i ? -1 : dist2(cand[i], cand[keep[j]]);
                if (d < near) near = d;
            }
            if (near > best) { best = near; pick = i; }
        }
        if (pick < 0) break;   /* every gap taken */
        keep[count++] = pick;
    }
    return count;
}

/* One polygon vertex in the reference frame, and the label of the edge that
 * leaves it (0..3 incident edges, 4..7 reference side planes). */
typedef struct {
    fix16_t p[3];
    uint8_t label;
} clip_vertex;

/* qp__div_round64(n, d), d != 0, for the clipping's intersections: n = 0 (an incident
 * edge that does not move along this component: three in four of a pyramid's) gives 0
 * without a division, and n, d within 32 bits take the same steps in 32 bits, inline
 * (|n|, |d| <= 2^31, so the quotient and its rounding up fit a uint32): the same
 * quotient, rounded half away from zero, without a call and 64-bit arithmetic. */
static QP__ALWAYS_INLINE int64_t clip_div(int64_t n, int64_t d)
{
    if (n == 0) return 0;
    if (n != (int32_t)n || d != (int32_t)d) return qp__div_round64(n, d);
    const uint32_t un = n < 0 ? 0u - (uint32_t)n : (uint32_t)n, ud = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
    uint32_t q = un / ud;
    const uint32_t r = un - q * ud;
    if (r >= ud - r) q++;
#if QP__BRANCH_FREE   /* the quotient's sign is a coin toss: negate by a mask */
    const int64_t neg = (n ^ d) >> 63;
    return ((int64_t)q ^ neg) - neg;
#else
    return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
#endif
}

/* Keep the part of the polygon with sg * p[c] <= h; new edges get plane_label.
 * Returns -1, writing nothing, when the whole polygon is kept as it is (the
 * corners of a box resting on an equal one lie on the side planes). */
static int clip_side(const clip_vertex *in, int n, int c, int sg, fix16_t h, uint8_t plane_label,
                     clip_vertex *out)
{
    /* sg p[c] <= h for every corner: compared in 32 bits (-h in 64). */
    const int64_t lo = -(int64_t)h;
    int j = 0;
    while (j < n && (sg > 0 ? in[j].p[c] <= h : in[j].p[c] >= lo)) j++;
    if (j == n) return -1;
    int64_t d[CLIP_MAX];   /* > 0: outside */
    for (j = 0; j < n; j++) d[j] = (sg > 0 ? (int64_t)in[j].p[c] : -(int64_t)in[j].p[c]) - h;
    const int k1 = NEXT3[c + 1], k2 = NEXT3[c + 2];   /* a crossing's two free components, named */
    int o = 0;
    for (int i = 0; i < n && o < CLIP_MAX; i++) {
        const int i1 = i + 1 < n ? i + 1 : 0;
        const clip_vertex *p = &in[i], *q = &in[i1];
        const int64_t dp = d[i], dq = d[i1];
        const bool p_in = dp <= 0;
        if (p_in) out[o++] = *p;
        if (p_in != (dq <= 0) && o < CLIP_MAX) {
            const int64_t den = dq - dp;
            const fix16_t x1 = qp__sat32((int64_t)p->p[k1] + clip_div(((int64_t)q->p[k1] - p->p[k1]) * -dp, den));
            const fix16_t x2 = qp__sat32((int64_t)p->p[k2] + clip_div(((int64_t)q->p[k2] - p->p[k2]) * -dp, den));
            /* Written in place: a copy of a vertex made a component at a time is read back
             * whole, which waits for its stores to leave (on hosts). */
            clip_vertex *x = &out[o++];
            x->p[c] = (fix16_t)(sg * h);
            x->p[k1] = x1;
            x->p[k2] = x2;
            x->label = p_in ? plane_label : p->label;
        }
    }
    return o;
}

/* qp__shift_round(v, 30), without the clamp where the caller knows it cannot act. */
static QP__ALWAYS_INLINE fix16_t corner_round(int64_t v, bool plain)
{
    return plain ? (fix16_t)qp__shift_round64(v, 30) : qp__shift_round(v, 30);
}

typedef struct {
    const fix16_t *ha, *hb, *t;
    const qp_rot3 *r;
    int64_t tb[3];      /* R^T t, Q46 */
    fix16_t margin;
} box_pair;

static QP__NOINLINE int face_contact(const box_pair *bp, bool ref_b, int ax, qp_manifold *m)
{
    qp_q30 rinc[3][3];
    fix16_t tinc[3];
    const fix16_t *hr, *hi;
    int s;
    if (!ref_b) {
        memcpy(rinc, bp->r->m, sizeof rinc);
        memcpy(tinc, bp->t, sizeof tinc);
        hr = bp->ha;
        hi = bp->hb;
        s = bp->t[ax] >= 0 ? 1 : -1;
    } else {
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) rinc[i][j] = bp->r->m[j][i];
            tinc[i] = qp__shift_round(-bp->tb[i], 30);
        }
        hr = bp->hb;
        hi = bp->ha;
        s = bp->tb[ax] <= 0 ? 1 : -1;
    }
    /* Incident face: the other box's face most anti-parallel to s * e_ax. */
    int k = 0;
    for (int c = 1; c < 3; c++)
        if (abs64(rinc[ax][c]) > abs64(rinc[ax][k])) k = c;
    int sk = (rinc[ax][k] > 0) == (s > 0) && rinc[ax][k] != 0 ? -1 : 1;
    int k1 = NEXT3[k + 1], k2 = NEXT3[k + 2];
    clip_vertex poly[2][CLIP_MAX];
    int n = 4;
    /* With the incident box's centre below 2^29 and its half extents below 2^27 (8 192 and
     * 2 048 m), each corner's sum is below 2.5 2^59 whatever R: no clamp can act. */
    const uint32_t near = (uint32_t)1 << 29;
    const bool plain = (uint32_t)tinc[0] + near < 2 * near && (uint32_t)tinc[1] + near < 2 * near &&
                       (uint32_t)tinc[2] + near < 2 * near && (uint32_t)hi[0] < ((uint32_t)1 << 27) &&
                       (uint32_t)hi[1] < ((uint32_t)1 << 27) && (uint32_t)hi[2] < ((uint32_t)1 << 27);
    /* Its corners t + R local, local[k] = sk hi[k] and (local[k1], local[k2]) = (+,+),
     * (-,+), (-,-), (+,-) times (hi[k1], hi[k2]) in turn: each component the exact sum
     * affine() forms, rounded once as it rounds it, from products made once for the
     * four corners. */
    for (int c = 0; c < 3; c++) {
        const int64_t base = (int64_t)tinc[c] * QP__W_ONE + (int64_t)rinc[c][k] * (fix16_t)(sk * hi[k]);
        const int64_t e1 = (int64_t)rinc[c][k1] * hi[k1], e2 = (int64_t)rinc[c][k2] * hi[k2];
        const int64_t plus = base + e1, minus = base - e1;
        poly[0][0].p[c] = corner_round(plus + e2, plain);
        poly[0][1].p[c] = corner_round(minus + e2, plain);
        poly[0][2].p[c] = corner_round(minus - e2, plain);
        poly[0][3].p[c] = corner_round(plus - e2, plain);
    }
    for (int v = 0; v < 4; v++) poly[0][v].label = (uint8_t)v;
    /* Clip against the side planes u = +-hr[u], w = +-hr[w]. */
    const int u = NEXT3[ax + 1], w = NEXT3[ax + 2];
    const int pc[4] = { u, u, w, w }, ps[4] = { 1, -1, 1, -1 };
    int cur = 0;
    for (int pl = 0; pl < 4 && n > 0; pl++) {
        int o = clip_side(poly[cur], n, pc[pl], ps[pl], hr[pc[pl]], (uint8_t)(4 + pl), poly[cur ^ 1]);
        if (o < 0) continue;   /* all kept: the same polygon where it is */
        n = o;
        cur ^= 1;
    }
    /* Depth below the reference face: those within the margin first (kept), then the gaps. */
    fix16_t cand[CLIP_MAX][3];
    uint8_t src[CLIP_MAX];
    int kept = 0, gaps = CLIP_MAX;
    for (int i = 0; i < n; i++) {
        int64_t d = (int64_t)hr[ax] - (s > 0 ? (int64_t)poly[cur][i].p[ax] : -(int64_t)poly[cur][i].p[ax]);
        const int c = d < -(int64_t)bp->margin ? --gaps : kept++;
        cand[c][0] = poly[cur][i].p[u];
        cand[c][1] = poly[cur][i].p[w];
        cand[c][2] = qp__sat32(d);
        src[c] = (uint8_t)i;
    }
    if (kept == 0) return 0;
    int keep[4];
    int count = qp__reduce_contacts((const fix16_t (*)[3])cand, kept, keep);
    count = qp__keep_gaps((const fix16_t (*)[3])cand, gaps, CLIP_MAX, count, keep);
    const uint32_t faces = ((uint32_t)ref_b << 12) | ((uint32_t)(ax * 2 + (s < 0)) << 9) |
                           ((uint32_t)(k * 2 + (sk < 0)) << 6);
    for (int j = 0; j < count; j++) {
        int i = src[keep[j]];
        const clip_vertex *v = &poly[cur][i];
        int lp = poly[cur][i > 0 ? i - 1 : n - 1].label, lo = v->label;
        int a = lp < lo ? lp : lo, b = lp < lo ? lo : lp;
        fix16_t p[3] = { v->p[0], v->p[1], v->p[2] };
        p[ax] = (fix16_t)(((int64_t)p[ax] + (s > 0 ? hr[ax] : -(int64_t)hr[ax]) + 1) >> 1);   /* midway */
        qp_manifold_point *mp = &m->points[j];
        if (ref_b) {
            fix16_t pa[3];
            affine((const qp_q30 (*)[3])bp->r->m, bp->t, p, pa);
            mp->point = qp_v3(pa[0], pa[1], pa[2]);
        } else {
            mp->point = qp_v3(p[0], p[1], p[2]);
        }
        mp->depth = cand[keep[j]][2];
        mp->id = faces | (uint32_t)(a * 8 + b);
    }
    if (!ref_b) {
        const qp_q30 e = s > 0 ? QP_Q30_ONE : -QP_Q30_ONE;
        m->normal = qp_v3(ax == 0 ? e : 0, ax == 1 ? e : 0, ax == 2 ? e : 0);
    } else {
        /* B's outward face normal points at A: the manifold normal is its opposite. */
        qp_vec3 c = qp_rot3_col(bp->r, ax);
        if (s > 0) c = qp_v3_neg(c);
        qp__normal_or(c, c, &m->normal);
    }
    m->count = count;
    return count;
}

/* An edge lying across a face, nearly in its plane: a plank across a ridge, or leaning on a
 * box's top edge. Its touch is a line, whose ends are the ends of the edge's part over the
 * face. The one point where the edges cross (edge_contact) pushed at the plank's side only,
 * which spun it through flat onto its other side, deep: a plank rolled 1 degree across a 45
 * degree ridge fell through it and never slept. So an edge axis within 7.2 degrees of a face's
 * normal (sin^2 below 2^-EDGE_ON_FACE_SHIFT) takes the other box's edge clipped to that face. */
#define EDGE_ON_FACE_SHIFT 6

/* The segment c + u s, |s| <= h (u Q2.30), in the reference box's frame, clipped to its face
 * on axis k (outward sign sf) between the face's side planes: each end within the margin a
 * point moved halfway to the face, with its depth below it. Returns how many (0, 1 or 2). */
static int clip_edge_to_face(const fix16_t hr[3], int k, int sf, const fix16_t c[3], const qp_q30 u[3], fix16_t h,
                             fix16_t margin, fix16_t out[2][3], fix16_t depth[2])
{
    int64_t lo = -(int64_t)h, hi = h;   /* s, Q16 */
    for (int q = 1; q < 3; q++) {
        const int a = NEXT3[k + q];
        if (u[a] == 0) {
            if (c[a] > hr[a] || c[a] < -hr[a]) return 0;
            continue;
        }
        /* c[a] + u[a] s = +-hr[a] at s = (+-hr[a] - c[a]) / u[a] (Q16 << 30 / Q30). */
        int64_t s1 = qp__div_round64(((int64_t)hr[a] - c[a]) * QP__W_ONE, u[a]);
        int64_t s2 = qp__div_round64((-(int64_t)hr[a] - c[a]) * QP__W_ONE, u[a]);
        if (s1 > s2) { int64_t x = s1; s1 = s2; s2 = x; }
        if (s1 > lo) lo = s1;
        if (s2 < hi) hi = s2;
    }
    if (lo > hi) return 0;
    const int64_t ends[2] = { lo, hi };
    int n = 0;
    for (int e = 0; e < (lo == hi ? 1 : 2); e++) {
        fix16_t p[3];
        for (int q = 0; q < 3; q++) p[q] = qp__sat32((int64_t)c[q] + qp__shift_round64((int64_t)u[q] * ends[e], 30));
        int64_t d = (int64_t)hr[k] - (sf > 0 ? (int64_t)p[k] : -(int64_t)p[k]);
        if (d < -(int64_t)margin) continue;
        p[k] = (fix16_t)(((int64_t)p[k] + (sf > 0 ? hr[k] : -(int64_t)hr[k]) + 1) >> 1);   /* midway */
        for (int q = 0; q < 3; q++) out[n][q] = p[q];
        depth[n++] = qp__sat32(d);
    }
    return n;
}

/* The edge pair (i, j) with axis nv = e_i x c_j (from A to B, not normalised), A's edge
 * through ca and B's through cb (A's frame), named ea, eb: when a face of either box is within
 * 7.2 degrees of nv, the other's edge clipped to it, on the face's normal (the manifold is
 * written, ids 1 << 14 | reference box 12 | face 9-11 | edge 1-4 | end 0); else 0. */
static QP__NOINLINE int edge_across_face(const box_pair *bp, int i, int j, const qp_q30 nv[3], const fix16_t ca[3],
                                         const fix16_t cb[3], uint32_t ea, uint32_t eb, qp_manifold *m)
{
    const qp_q30 (*R)[3] = bp->r->m;
    /* |n . e_k| (A's faces) and |n . c_k| (B's), Q30, against |n|^2 = len2 (Q60). */
    const int64_t len2 = (int64_t)nv[0] * nv[0] + (int64_t)nv[1] * nv[1] + (int64_t)nv[2] * nv[2];
    int64_t best = 0, dot_b[3];
    int ref_b = 0, k = 0;
    for (int q = 0; q < 3; q++) {
        dot_b[q] = (int64_t)R[0][q] * nv[0] + (int64_t)R[1][q] * nv[1] + (int64_t)R[2][q] * nv[2];   /* Q60 */
        const int64_t da = abs64(nv[q]), db = qp__shift_round64(abs64(dot_b[q]), 30);
        if (da > best) { best = da; ref_b = 0; k = q; }
        if (db > best) { best = db; ref_b = 1; k = q; }
    }
    if (best * best < len2 - (len2 >> EDGE_ON_FACE_SHIFT)) return 0;
    fix16_t pts[2][3], depth[2];
    qp_q30 u[3];
    int n, sf;   /* sf: the reference face's side, whose outward normal faces the other box */
    if (!ref_b) {   /* B's edge j across A's face k, in A's frame; n points from A to B */
        sf = nv[k] > 0 ? 1 : -1;
        for (int q = 0; q < 3; q++) u[q] = R[q][j];
        n = clip_edge_to_face(bp->ha, k, sf, cb, u, bp->hb[j], bp->margin, pts, depth);
    } else {        /* A's edge i across B's face k, in B's frame: B's face towards A, against n */
        sf = dot_b[k] > 0 ? -1 : 1;
        fix16_t c[3];
        for (int q = 0; q < 3; q++) {
            c[q] = qp__shift_round((int64_t)R[0][q] * (ca[0] - bp->t[0]) + (int64_t)R[1][q] * (ca[1] - bp->t[1]) +
                                       (int64_t)R[2][q] * (ca[2] - bp->t[2]), 30);
            u[q] = R[i][q];
        }
        n = clip_edge_to_face(bp->hb, k, sf, c, u, bp->ha[i], bp->margin, pts, depth);
    }
    if (n == 0) return 0;
    const uint32_t id = ((uint32_t)1 << 14) | ((uint32_t)ref_b << 12) | ((uint32_t)(k * 2 + (sf < 0)) << 9) |
                        ((ref_b ? ea : eb) << 1);
    for (int e = 0; e < n; e++) {
        fix16_t pa[3] = { pts[e][0], pts[e][1], pts[e][2] };
        if (ref_b) affine(R, bp->t, pts[e], pa);
        m->points[e].point = qp_v3(pa[0], pa[1], pa[2]);
        m->points[e].depth = depth[e];
        m->points[e].id = id | (uint32_t)e;
    }
    qp_vec3 nf;
    if (!ref_b) {
        qp_q30 f[3] = { 0, 0, 0 };
        f[k] = sf > 0 ? QP_Q30_ONE : -QP_Q30_ONE;
        nf = qp_v3(f[0], f[1], f[2]);
    } else {
        nf = qp_rot3_col(bp->r, k);   /* B's outward face normal is sf c_k; the manifold's, its opposite */
        if (sf > 0) nf = qp_v3_neg(nf);
    }
    qp__normal_or(nf, nf, &m->normal);
    m->count = n;
    return n;
}

static QP__NOINLINE int edge_contact(const box_pair *bp, int i, int j, fix16_t sep16, qp_manifold *m)
{
    const qp_q30 (*R)[3] = bp->r->m;
    const int i1 = NEXT3[i + 1], i2 = NEXT3[i + 2], j1 = NEXT3[j + 1], j2 = NEXT3[j + 2];
    /* n = e_i x c_j, oriented from A to B. */
    int64_t tn = (int64_t)bp->t[i2] * R[i1][j] - (int64_t)bp->t[i1] * R[i2][j];
    qp_q30 nv[3];
    nv[i] = 0;
    nv[i1] = tn >= 0 ? -R[i2][j] : R[i2][j];
    nv[i2] = tn >= 0 ? R[i1][j] : -R[i1][j];
    /* A's edge: along e_i through A's support point in +n. */
    fix16_t ca[3];
    ca[i] = 0;
    ca[i1] = nv[i1] >= 0 ? bp->ha[i1] : -bp->ha[i1];
    ca[i2] = nv[i2] >= 0 ? bp->ha[i2] : -bp->ha[i2];
    /* B's edge: along c_j through B's support point in -n. */
    fix16_t lb[3], cb[3];
    lb[j] = 0;
    for (int q = 1; q < 3; q++) {
        int jj = NEXT3[j + q];
        int64_t d = (int64_t)R[0][jj] * nv[0] + (int64_t)R[1][jj] * nv[1] + (int64_t)R[2][jj] * nv[2];
        lb[jj] = d > 0 ? -bp->hb[jj] : bp->hb[jj];
    }
    affine(R, bp->t, lb, cb);
    uint32_t ea = (uint32_t)(i * 4 + (ca[i1] > 0) + 2 * (ca[i2] > 0));
    uint32_t eb = (uint32_t)(j * 4 + (lb[j1] > 0) + 2 * (lb[j2] > 0));
    int across = edge_across_face(bp, i, j, nv, ca, cb, ea, eb, m);
    if (across > 0) return across;
    qp__segment sa = { qp_v3(ca[0], ca[1], ca[2]), qp_v3(0, 0, 0), bp->ha[i] };
    qp_q30 ev[3] = { 0, 0, 0 };
    ev[i] = QP_Q30_ONE;
    sa.u = qp_v3(ev[0], ev[1], ev[2]);
    qp__segment sb = { qp_v3(cb[0], cb[1], cb[2]), qp_rot3_col(bp->r, j), bp->hb[j] };
    fix16_t ps, pt;
    qp__segments_closest(&sa, &sb, &ps, &pt);
    m->points[0].point = qp__v3_mid(qp__segment_point(&sa, ps), qp__segment_point(&sb, pt));
    m->points[0].depth = qp__sat32(-(int64_t)sep16);
    m->points[0].id = ((uint32_t)1 << 13) | (ea << 4) | eb;
    qp_vec3 n = qp_v3(nv[0], nv[1], nv[2]);
    qp__normal_or(n, n, &m->normal);
    m->count = 1;
    return 1;
}

/* The manifold's normal, count and first n points when it finds n > 0 of them; nothing
 * else written. */
static int box_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin, qp_manifold *m)
{
    const fix16_t ha[3] = { a->half.x, a->half.y, a->half.z };
    const fix16_t hb[3] = { b->half.x, b->half.y, b->half.z };
    const fix16_t t[3] = { b_in_a->p.x, b_in_a->p.y, b_in_a->p.z };
    const qp_q30 (*R)[3] = b_in_a->r.m;
    const int64_t lim = (int64_t)margin * QP__W_ONE;
    if (qp__v3_max_abs(b_in_a->p) > QP__BOX_FAR) return 0;


    /* A's faces. */
    int64_t sep_a = INT64_MIN, sep_b = INT64_MIN, sep_e = INT64_MIN;
    int fa = 0, fb = 0, ei = -1, ej = -1;
    fix16_t sep_e16 = 0;
    for (int i = 0; i < 3; i++) {
        int64_t sep = sep_face_a(ha, hb, t, R, i);
        if (sep > lim) return 0;
        if (sep > sep_a) { sep_a = sep; fa = i; }
    }
    /* B's faces. */
    box_pair bp = { ha, hb, t, &b_in_a->r, { 0, 0, 0 }, margin };
    for (int j = 0; j < 3; j++) {
        bp.tb[j] = tb_of(t, R, j);
        int64_t sep = sep_face_b(ha, hb, bp.tb[j], R, j);
        if (sep > lim) return 0;
        if (sep > sep_b) { sep_b = sep; fb = j; }
    }
    /* The face the edges must beat, and what an edge axis must exceed to matter: a
     * separation past the margin (no contact), or past that face by the edge tolerance. */
    bool ref_b = false;
    int64_t sep_f = sep_a;
    if (sep_b > sep_a + tolerance(sep_a, QP__BOX_TOL_FACE)) {
        ref_b = true;
        sep_f = sep_b;
    }
    const int64_t edge_bar = sep_f + tolerance(sep_f, QP__BOX_TOL_EDGE);
    const int64_t matters = edge_bar < lim ? edge_bar : lim;
    /* An overlap along an edge axis that cannot matter is passed over without its square
     * root and division (most axes of resting boxes): |e_i x c_j| < 2^32 (len2 < 2^63), so
     * q = -round(|num| / len) <= -floor(|num| / 2^32), and q 2^30 <= matters when num <= 0
     * and floor(|num| / 2^32) >= K = ceil(-matters / 2^30), that is num <= -K 2^32 (K <= 0:
     * num <= 0; K < 2^30, as |matters| < 2^60 within QP__BOX_FAR). Skipping an axis that
     * can neither end the test nor beat the face (nor, then, be the best edge where the
     * best one does) changes nothing. */
    const int64_t k_edge = matters < 0 ? (-matters + QP__W_ONE - 1) >> 30 : 0;
    const int64_t no_matter = -(k_edge << 32);
    /* Tighter where len2 <= EDGE_LEN2_MAX (every axis of two rotations: len2 is at most
     * |c_j|^2, about 2^60): then round(sqrt(len2)) <= 2^30 + 2^20 and num <= -K
     * (2^30 + 2^20) is enough. Half of rain512's edge axes that got this far then take
     * no root nor division. */
    const int64_t no_matter_near = -((k_edge << 30) + (k_edge << 20));
    /* Edge pairs e_i x c_j. */
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            int64_t len2, num, tn;
            if (!sep_edges(ha, hb, t, R, i, j, &len2, &num, &tn)) continue;
            if (num <= no_matter) continue;
            if (num <= no_matter_near && len2 <= EDGE_LEN2_MAX) continue;
            /* Q46 / Q30 = Q16; |sep| < 2^42 here, so the clamp only guards odd input. */
            int64_t q = qp__div_round64(num, isqrt_round(len2));
            if (q > INT32_MAX) q = INT32_MAX;
            int64_t sep = q * QP__W_ONE;
            if (sep > lim) return 0;
            if (sep > sep_e) { sep_e = sep; sep_e16 = (fix16_t)q; ei = i; ej = j; }
        }
    }
    if (ei >= 0 && sep_e > edge_bar)
        return edge_contact(&bp, ei, ej, sep_e16, m);
    return face_contact(&bp, ref_b, ref_b ? fb : fa, m);
}

int qp_collide_box_box(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a,
                       fix16_t margin, qp_manifold *m)
{
    int n = box_box(a, b, b_in_a, margin, m);
    /* Every byte not written zeroed, as the contract asks, after the fact: clearing the
     * whole manifold first cost a resting pair a 96-byte memset for no byte. */
    if (n == 0) memset(m, 0, sizeof *m);
    else if (n < QP_MAX_MANIFOLD_POINTS) memset(&m->points[n], 0, (size_t)(QP_MAX_MANIFOLD_POINTS - n) * sizeof m->points[0]);
    return n;
}

fix16_t qp__box_box_separation(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, qp_vec3 *axis)
{
    const fix16_t ha[3] = { a->half.x, a->half.y, a->half.z };
    const fix16_t hb[3] = { b->half.x, b->half.y, b->half.z };
    const fix16_t t[3] = { b_in_a->p.x, b_in_a->p.y, b_in_a->p.z };
    const qp_q30 (*R)[3] = b_in_a->r.m;
    int64_t best = INT64_MIN;   /* Q46 */
    qp_vec3 dir = qp_v3_zero();   /* the best axis, from A towards B, not yet of unit length */
    for (int k = 0; k < 3; k++) {
        int64_t tb = tb_of(t, R, k), sa = sep_face_a(ha, hb, t, R, k), sb = sep_face_b(ha, hb, tb, R, k);
        if (sa > best) {
            best = sa;
            dir = qp_v3(k == 0 ? t[0] : 0, k == 1 ? t[1] : 0, k == 2 ? t[2] : 0);
        }
        if (sb > best) {
            best = sb;
            int sign = tb < 0 ? -1 : 1;
            dir = qp_v3(sign * R[0][k], sign * R[1][k], sign * R[2][k]);
        }
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int64_t len2, num, tn;
            if (!sep_edges(ha, hb, t, R, i, j, &len2, &num, &tn) || num <= 0) continue;   /* parallel, or no gap */
            int64_t q = qp__div_round64(num, isqrt_round(len2));   /* Q16 */
            if (q > INT32_MAX) q = INT32_MAX;
            if (q * QP__W_ONE <= best) continue;
            best = q * QP__W_ONE;
            /* e_i x c_j, turned towards B */
            const qp_q30 c[3] = { R[0][j], R[1][j], R[2][j] };
            int sign = tn < 0 ? -1 : 1;
            dir = i == 0 ? qp_v3(0, -sign * c[2], sign * c[1]) : i == 1 ? qp_v3(sign * c[2], 0, -sign * c[0])
                                                                   : qp_v3(-sign * c[1], sign * c[0], 0);
        }
    if (!qp_v3_normalize_q30(dir, axis)) *axis = qp_v3(0, QP_Q30_ONE, 0);   /* centres together: any */
    return qp__shift_round(best, 30);
}
