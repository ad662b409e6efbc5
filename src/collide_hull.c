/* SPDX-License-Identifier: MIT */
/* Convex hulls against every shape, and ray casts against a hull.
 *
 * Polyhedron against polyhedron (hull-hull, box-hull through the box's own polyhedron view;
 * hull.h's qp__poly_collide): the separating axis test over A's face normals, B's face
 * normals and the cross products of edge pairs, the way collide_box_box.c does it for two
 * boxes. An edge pair is an axis only when the two edges' arcs on the Gauss map cross (the
 * edges then form a face of the Minkowski difference), so only a few of the pairs of two
 * 20-point hulls are tried, and each pair's separation is the gap between its two edges
 * along the axis. Every separation is a Q16.16 x Q2.30 sum in 64 bits ("Q46").
 * The axis is chosen as for boxes: A's face, B's face if larger by more than 0.5 mm +
 * |depth|/64, an edge pair if larger by 0.5 mm + |depth|/16. Face contact: the incident face
 * (the other body's face most against the reference normal among those at its deepest vertex
 * along it) is clipped against the
 * reference face's side planes (Sutherland-Hodgman, up to CLIP corners), points within the
 * margin are kept, moved halfway to the reference face, and reduced to 4 like box-box
 * (qp__reduce_contacts); points past it fill the places left, as gaps (qp__keep_gaps).
 * Ids: bit 28 reference is B, 21-27 reference face, 14-20 incident face, 0-13 the two
 * labels the point lies on (incident edge 0-63, side plane 64-127).
 * Edge contact: one point midway between the edges' closest points, id 1 << 29 | edge of
 * A << 8 | edge of B.
 *
 * Plane-hull: the vertices of the hull's face most against the plane, and its deepest
 * vertex (a thin hull's top vertices are never taken for its bottom ones): those within the
 * margin reduced to 4, the others as gaps in the places left; ids are vertex indices.
 *
 * Sphere-hull and capsule-hull: the test of the core segment (a point for a sphere) against
 * the hull's faces and, for a capsule, the hull's edges whose arcs cross the great circle
 * across the segment; the radius is taken off each separation. When the segment lies
 * outside the hull the true nearest points decide, as for capsule-box (the axes only bound
 * the distance from below, wrongly near a corner): the nearest point of the hull to a point
 * is on a face it is outside of (inside the polygon, or on an edge), and along the segment
 * the distance is convex (a ternary search). If a face explains that distance within the edge
 * tolerance it is a face contact: the segment clipped to the face (two points when it lies
 * flat on it); otherwise one point along the nearest direction (id 1 << 18 | the feature).
 * A segment cutting into the hull takes the axis of least penetration (an edge contact takes
 * the closest points).
 */
#include <string.h>
#include "hull.h"
#include "geometry.h"
#include "math_inline.h"

#define CLIP 32   /* corners of a clipped incident face kept (a face of more keeps its first 32) */

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static int64_t tolerance(int64_t sep, int shift)
{
    return (int64_t)QP__BOX_TOL_ABS * QP__W_ONE + (abs64(sep) >> shift);
}

/* v . u for a Q16.16 v and Q2.30 u: Q46, exact. */
static int64_t dot46(qp_vec3 v, qp_vec3 u)
{
    return (int64_t)v.x * u.x + (int64_t)v.y * u.y + (int64_t)v.z * u.z;
}

static fix16_t q46_to_16(int64_t v) { return qp__shift_round(v, 30); }

/* Q2.30 cross product, rounded. */
static qp_vec3 cross30(qp_vec3 a, qp_vec3 b)
{
    return qp_v3(qp__shift_round((int64_t)a.y * b.z - (int64_t)a.z * b.y, 30),
                 qp__shift_round((int64_t)a.z * b.x - (int64_t)a.x * b.z, 30),
                 qp__shift_round((int64_t)a.x * b.y - (int64_t)a.y * b.x, 30));
}

/* The unit (Q2.30) direction of the exact cross product a x b of two Q16.16 vectors
 * (each below 2^25): false when they are parallel within about 2^-12 rad. */
static bool unit_cross(qp_vec3 a, qp_vec3 b, qp_vec3 *out)
{
    int64_t c[3] = { (int64_t)a.y * b.z - (int64_t)a.z * b.y, (int64_t)a.z * b.x - (int64_t)a.x * b.z,
                     (int64_t)a.x * b.y - (int64_t)a.y * b.x };
    const int64_t la = qp_v3_max_abs(a), lb = qp_v3_max_abs(b);
    const int64_t cm = abs64(c[0]) > abs64(c[1]) ? (abs64(c[0]) > abs64(c[2]) ? abs64(c[0]) : abs64(c[2]))
                                                 : (abs64(c[1]) > abs64(c[2]) ? abs64(c[1]) : abs64(c[2]));
    if (cm == 0 || cm < (la * lb) >> 12) return false;
    while (abs64(c[0]) >= (1 << 29) || abs64(c[1]) >= (1 << 29) || abs64(c[2]) >= (1 << 29))
        for (int k = 0; k < 3; k++) c[k] /= 2;
    return qp_v3_normalize_q30(qp_v3((fix16_t)c[0], (fix16_t)c[1], (fix16_t)c[2]), out);
}

/* The least n . v over p's vertices (n Q2.30 in p's frame), Q46. */
static int64_t min_dot(const qp__poly *p, qp_vec3 n)
{
    int64_t best = INT64_MAX;
    for (int v = 0; v < p->vert_count; v++) {
        int64_t d = dot46(p->verts[v], n);
        if (d < best) best = d;
    }
    return best;
}

static int sign64(int64_t v) { return (v > 0) - (v < 0); }

/* Do the Gauss-map arcs (a, b) of A's edge and of B's edge cross on the Minkowski difference
 * A - B? c, d: B's face normals negated (A's frame), dxc = d x c. Signs only; the cheaper
 * half first (most pairs fail it). */
static QP__ALWAYS_INLINE bool arcs_cross(qp_vec3 a, qp_vec3 b, qp_vec3 c, qp_vec3 d, qp_vec3 dxc)
{
    const int s_adc = sign64(dot46(a, dxc)), s_bdc = sign64(dot46(b, dxc));
    if (s_adc * s_bdc >= 0) return false;
    const qp_vec3 bxa = cross30(b, a);
    const int s_cba = sign64(dot46(c, bxa)), s_dba = sign64(dot46(d, bxa));
    return s_cba * s_dba < 0 && s_cba * s_bdc > 0;
}

/* ---- face clipping ------------------------------------------------------------------ */

typedef struct {
    qp_vec3 p;
    uint8_t label;
} clip_vertex;

/* Keep the part of the polygon with s . p <= off (s Q2.30, off Q46); new edges get label. */
static int clip_plane(const clip_vertex *in, int n, qp_vec3 s, int64_t off, uint8_t label, clip_vertex *out)
{
    int o = 0;
    for (int i = 0; i < n; i++) {
        const clip_vertex *p = &in[i], *q = &in[i + 1 < n ? i + 1 : 0];
        const int64_t dp = q46_to_16(dot46(p->p, s) - off), dq = q46_to_16(dot46(q->p, s) - off);
        if (dp <= 0 && o < CLIP) out[o++] = *p;
        if ((dp <= 0) != (dq <= 0) && o < CLIP) {
            clip_vertex x;
            const fix16_t pc[3] = { p->p.x, p->p.y, p->p.z }, qc[3] = { q->p.x, q->p.y, q->p.z };
            fix16_t xc[3];
            for (int k = 0; k < 3; k++)
                xc[k] = qp__sat32((int64_t)pc[k] + qp__div_round64(((int64_t)qc[k] - pc[k]) * -dp, dq - dp));
            x.p = qp_v3(xc[0], xc[1], xc[2]);
            x.label = dp <= 0 ? label : p->label;
            out[o++] = x;
        }
    }
    return o;
}

/* The incident poly's face for a reference normal nr (r's frame): the most against nr among
 * those at its deepest vertex along -nr (the face most against nr overall can miss that
 * vertex on a tilted hull). A frame of its own, apart from the clipping's. */
static QP__NOINLINE int incident_face(const qp__poly *inc, const qp_transform *i_in_r, qp_vec3 nr)
{
    const qp_rot3 rt = qp_rot3_transpose(&i_in_r->r);
    const qp_vec3 ni = qp__rot_q30(&rt, nr);   /* nr in the incident poly's frame */
    int deepest = 0;
    for (int v = 1; v < inc->vert_count; v++)
        if (dot46(inc->verts[v], ni) < dot46(inc->verts[deepest], ni)) deepest = v;
    int fi = 0;
    int64_t least = INT64_MAX;
    for (int g = 0; g < inc->face_count; g++) {
        bool at_deepest = false;
        for (int q = 0; q < inc->faces[g].count; q++)
            at_deepest = at_deepest || inc->face_verts[inc->faces[g].first + q] == deepest;
        int64_t d = dot46(qp__rot_q30(&i_in_r->r, inc->faces[g].normal), nr);
        if (at_deepest && d < least) { least = d; fi = g; }
    }
    return fi;
}

/* The reference face fr of poly r against the incident poly i at i_in_r, in r's frame; the
 * manifold goes to A's frame through to_a (null: r is A) with the normal turned back. */
static QP__NOINLINE int face_contact(const qp__poly *r, const qp__poly *inc, const qp_transform *i_in_r, int fr,
                                     const qp_transform *to_a, fix16_t margin, qp_manifold *m)
{
    const qp_hull_face *rf = &r->faces[fr];
    const qp_vec3 nr = rf->normal;
    const int fi = incident_face(inc, i_in_r, nr);
    const qp_hull_face *ifc = &inc->faces[fi];
    clip_vertex poly[2][CLIP];
    int n = ifc->count < CLIP ? ifc->count : CLIP, cur = 0;
    for (int q = 0; q < n; q++) {
        poly[0][q].p = qp_transform_point(i_in_r, inc->verts[inc->face_verts[ifc->first + q]]);
        poly[0][q].label = (uint8_t)q;
    }
    for (int e = 0; e < rf->count && n > 0; e++) {
        const qp_vec3 v0 = r->verts[r->face_verts[rf->first + e]];
        const qp_vec3 v1 = r->verts[r->face_verts[rf->first + (e + 1) % rf->count]];
        /* The side plane through this edge: (v1 - v0) x nr points out of the face. */
        const qp_vec3 ev = qp_v3_sub(v1, v0);
        int64_t c[3] = { (int64_t)ev.y * nr.z - (int64_t)ev.z * nr.y, (int64_t)ev.z * nr.x - (int64_t)ev.x * nr.z,
                         (int64_t)ev.x * nr.y - (int64_t)ev.y * nr.x };
        while (abs64(c[0]) >= (1 << 29) || abs64(c[1]) >= (1 << 29) || abs64(c[2]) >= (1 << 29))
            for (int k = 0; k < 3; k++) c[k] /= 2;
        qp_vec3 s;
        if (!qp_v3_normalize_q30(qp_v3((fix16_t)c[0], (fix16_t)c[1], (fix16_t)c[2]), &s)) continue;
        n = clip_plane(poly[cur], n, s, dot46(v0, s), (uint8_t)(64 + (e & 63)), poly[cur ^ 1]);
        cur ^= 1;
    }
    const qp_vec3 t1 = qp__perpendicular(nr), t2 = cross30(nr, t1);
    fix16_t cand[CLIP][3];
    uint8_t src[CLIP];
    int kept = 0, gaps = CLIP;   /* within the margin from the first, the gaps from the last */
    for (int q = 0; q < n; q++) {
        const fix16_t d = q46_to_16((int64_t)rf->offset * QP__W_ONE - dot46(poly[cur][q].p, nr));
        const int c = d < -margin ? --gaps : kept++;
        cand[c][0] = qp__v3_dot_q30(poly[cur][q].p, t1);
        cand[c][1] = qp__v3_dot_q30(poly[cur][q].p, t2);
        cand[c][2] = d;
        src[c] = (uint8_t)q;
    }
    if (kept == 0) return 0;
    int keep[4];
    int count = qp__reduce_contacts((const fix16_t (*)[3])cand, kept, keep);
    count = qp__keep_gaps((const fix16_t (*)[3])cand, gaps, CLIP, count, keep);
    const uint32_t faces = ((uint32_t)(to_a != 0) << 28) | ((uint32_t)(fr & 127) << 21) | ((uint32_t)(fi & 127) << 14);
    for (int j = 0; j < count; j++) {
        const int q = src[keep[j]];
        const int lp = poly[cur][q > 0 ? q - 1 : n - 1].label, lo = poly[cur][q].label;
        const int a = lp < lo ? lp : lo, b = lp < lo ? lo : lp;
        const fix16_t d = cand[keep[j]][2];
        qp_vec3 p = qp__v3_mad_q30(poly[cur][q].p, nr, d / 2);   /* midway to the reference face */
        m->points[j].point = to_a ? qp_transform_point(to_a, p) : p;
        m->points[j].depth = d;
        m->points[j].id = faces | (uint32_t)(a * 128 + b);
    }
    m->normal = to_a ? qp_v3_neg(qp__rot_q30(&to_a->r, nr)) : nr;
    m->count = count;
    return count;
}

/* ---- polyhedron against polyhedron ---------------------------------------------------- */

typedef struct {
    int64_t sep;   /* Q46 */
    int ea, eb;
    qp_vec3 axis;  /* from A to B, Q2.30, A's frame */
} edge_best;

static QP__NOINLINE bool best_edges(const qp__poly *a, const qp__poly *b, const qp_transform *b_in_a, int64_t lim,
                                    edge_best *out)
{
    out->sep = INT64_MIN;
    out->ea = out->eb = -1;
    for (int j = 0; j < b->edge_count; j++) {
        const qp_hull_edge *eb = &b->edges[j];
        const qp_vec3 c = qp_v3_neg(qp__rot_q30(&b_in_a->r, b->faces[eb->f0].normal));
        const qp_vec3 d = qp_v3_neg(qp__rot_q30(&b_in_a->r, b->faces[eb->f1].normal));
        const qp_vec3 dxc = cross30(d, c);
        const qp_vec3 pb0 = qp_transform_point(b_in_a, b->verts[eb->v0]);
        const qp_vec3 ub = qp_v3_sub(qp_transform_point(b_in_a, b->verts[eb->v1]), pb0);
        for (int i = 0; i < a->edge_count; i++) {
            const qp_hull_edge *ea = &a->edges[i];
            if (!arcs_cross(a->faces[ea->f0].normal, a->faces[ea->f1].normal, c, d, dxc)) continue;
            const qp_vec3 pa0 = a->verts[ea->v0];
            qp_vec3 axis;
            if (!unit_cross(qp_v3_sub(a->verts[ea->v1], pa0), ub, &axis)) continue;
            if (dot46(qp_v3_sub(pa0, a->center), axis) < 0) axis = qp_v3_neg(axis);
            const int64_t sep = dot46(qp_v3_sub(pb0, pa0), axis);
            if (sep > lim) return false;
            if (sep > out->sep) {
                out->sep = sep;
                out->ea = i;
                out->eb = j;
                out->axis = axis;
            }
        }
    }
    return true;
}

static QP__NOINLINE int edge_contact(const qp__poly *a, const qp__poly *b, const qp_transform *b_in_a,
                                     const edge_best *e, qp_manifold *m)
{
    const qp_hull_edge *ea = &a->edges[e->ea], *eb = &b->edges[e->eb];
    qp__segment sa = qp__segment_from_points(a->verts[ea->v0], a->verts[ea->v1]);
    qp__segment sb = qp__segment_from_points(qp_transform_point(b_in_a, b->verts[eb->v0]),
                                             qp_transform_point(b_in_a, b->verts[eb->v1]));
    fix16_t s, t;
    qp__segments_closest(&sa, &sb, &s, &t);
    m->points[0].point = qp__v3_mid(qp__segment_point(&sa, s), qp__segment_point(&sb, t));
    m->points[0].depth = qp__sat32(-(int64_t)q46_to_16(e->sep));
    m->points[0].id = ((uint32_t)1 << 29) | ((uint32_t)e->ea << 8) | (uint32_t)e->eb;
    m->normal = e->axis;
    m->count = 1;
    return 1;
}

int qp__poly_collide(const qp__poly *a, const qp__poly *b, const qp_transform *b_in_a, fix16_t margin,
                     qp_manifold *m)
{
    const int64_t lim = (int64_t)margin * QP__W_ONE;
    if (qp__v3_max_abs(b_in_a->p) > QP__BOX_FAR) return 0;
    const qp_rot3 rt = qp_rot3_transpose(&b_in_a->r);
    /* A's faces: B's least reach along each, from A's plane. */
    int64_t sep_a = INT64_MIN, sep_b = INT64_MIN;
    int fa = 0, fb = 0;
    for (int f = 0; f < a->face_count; f++) {
        const qp_vec3 n = a->faces[f].normal;
        const int64_t sep = dot46(b_in_a->p, n) + min_dot(b, qp__rot_q30(&rt, n)) - (int64_t)a->faces[f].offset * QP__W_ONE;
        if (sep > lim) return 0;
        if (sep > sep_a) { sep_a = sep; fa = f; }
    }
    /* B's faces, turned into A's frame. */
    for (int g = 0; g < b->face_count; g++) {
        const qp_vec3 n = qp__rot_q30(&b_in_a->r, b->faces[g].normal);
        const int64_t off = (int64_t)b->faces[g].offset * QP__W_ONE + dot46(b_in_a->p, n);
        const int64_t sep = min_dot(a, n) - off;
        if (sep > lim) return 0;
        if (sep > sep_b) { sep_b = sep; fb = g; }
    }
    bool ref_b = false;
    int64_t sep_f = sep_a;
    if (sep_b > sep_a + tolerance(sep_a, QP__BOX_TOL_FACE)) {
        ref_b = true;
        sep_f = sep_b;
    }
    edge_best e;
    if (!best_edges(a, b, b_in_a, lim, &e)) return 0;
    if (e.ea >= 0 && e.sep > sep_f + tolerance(sep_f, QP__BOX_TOL_EDGE)) return edge_contact(a, b, b_in_a, &e, m);
    if (!ref_b) return face_contact(a, b, b_in_a, fa, 0, margin, m);
    qp_transform a_in_b;
    a_in_b.r = rt;
    a_in_b.p = qp_v3_neg(qp_rot3_mul_v3(&rt, b_in_a->p));
    return face_contact(b, a, &a_in_b, fb, b_in_a, margin, m);
}

static void finish(qp_manifold *m, int n)
{
    if (n == 0) memset(m, 0, sizeof *m);
    else if (n < QP_MAX_MANIFOLD_POINTS)
        memset(&m->points[n], 0, (size_t)(QP_MAX_MANIFOLD_POINTS - n) * sizeof m->points[0]);
}

int qp_collide_hull_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
                         qp_manifold *m)
{
    const qp__poly pa = qp__hull_poly(a->hull), pb = qp__hull_poly(b->hull);
    int n = qp__poly_collide(&pa, &pb, b_in_a, margin, m);
    finish(m, n);
    return n;
}

/* A box as a polyhedron: corner k has +h on axis i when bit i of k is set; faces +x, -x,
 * +y, -y, +z, -z, corners counter-clockwise about their normals. */
static const uint8_t BOX_FACE_VERTS[24] = { 1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1 };
static const qp_hull_edge BOX_EDGES[12] = {
    { 1, 3, 0, 5 }, { 3, 7, 0, 2 }, { 0, 4, 1, 3 }, { 4, 6, 1, 4 }, { 2, 6, 2, 1 }, { 6, 7, 2, 4 },
    { 0, 1, 3, 5 }, { 1, 5, 3, 0 }, { 4, 5, 4, 3 }, { 5, 7, 4, 0 }, { 0, 2, 5, 1 }, { 2, 3, 5, 2 },
};

typedef struct {
    qp_vec3 verts[8];
    qp_hull_face faces[6];
} box_poly;

static qp__poly box_view(const qp_shape *s, box_poly *bp)
{
    const fix16_t h[3] = { s->half.x, s->half.y, s->half.z };
    for (int k = 0; k < 8; k++)
        bp->verts[k] = qp_v3(k & 1 ? h[0] : -h[0], k & 2 ? h[1] : -h[1], k & 4 ? h[2] : -h[2]);
    for (int f = 0; f < 6; f++) {
        fix16_t n[3] = { 0, 0, 0 };
        n[f / 2] = f & 1 ? -QP_Q30_ONE : QP_Q30_ONE;
        qp_hull_face fc = { qp_v3(n[0], n[1], n[2]), h[f / 2], (uint16_t)(4 * f), 4, 0 };
        bp->faces[f] = fc;
    }
    qp__poly p = { bp->verts, bp->faces, BOX_FACE_VERTS, BOX_EDGES, 8, 6, 12, qp_v3_zero() };
    return p;
}

int qp_collide_box_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
                        qp_manifold *m)
{
    box_poly bp;
    const qp__poly pa = box_view(a, &bp), pb = qp__hull_poly(b->hull);
    int n = qp__poly_collide(&pa, &pb, b_in_a, margin, m);
    finish(m, n);
    return n;
}

/* ---- plane - hull ----------------------------------------------------------------------- */

int qp_collide_plane_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
                          qp_manifold *m)
{
    const qp_hull *h = b->hull;
    const qp_vec3 n = a->normal;
    const qp_rot3 rt = qp_rot3_transpose(&b_in_a->r);
    const qp_vec3 nb = qp__rot_q30(&rt, n);   /* the plane's normal in the hull's frame */
    const int64_t base = (int64_t)a->plane_offset * QP__W_ONE - dot46(b_in_a->p, n);
    memset(m, 0, sizeof *m);
    int deepest = 0, face = 0;
    int64_t most = INT64_MIN, against = INT64_MAX;
    for (int v = 0; v < h->vert_count; v++) {
        int64_t d = base - dot46(h->verts[v], nb);
        if (d > most) { most = d; deepest = v; }
    }
    if (most < -(int64_t)margin * QP__W_ONE) return 0;
    for (int f = 0; f < h->face_count; f++) {
        int64_t d = dot46(h->faces[f].normal, nb);
        if (d < against) { against = d; face = f; }
    }
    const qp_hull_face *fc = &h->faces[face];
    enum { CAND = QP_HULL_MAX_POINTS + 1 };
    fix16_t cand[CAND][3];
    uint8_t src[CAND];
    const qp_vec3 t1 = qp__perpendicular(n), t2 = cross30(n, t1);
    int kept = 0, gaps = CAND;   /* within the margin from the first, the gaps from the last */
    bool has_deepest = false;
    for (int q = 0; q <= fc->count; q++) {
        const int v = q < fc->count ? h->face_verts[fc->first + q] : deepest;
        if (q == fc->count && has_deepest) break;
        if (v == deepest) has_deepest = true;
        const fix16_t d = q46_to_16(base - dot46(h->verts[v], nb));
        const int c = d < -margin ? --gaps : kept++;
        const qp_vec3 p = qp_transform_point(b_in_a, h->verts[v]);
        cand[c][0] = qp__v3_dot_q30(p, t1);
        cand[c][1] = qp__v3_dot_q30(p, t2);
        cand[c][2] = d;
        src[c] = (uint8_t)v;
    }
    int keep[4];
    int count = qp__reduce_contacts((const fix16_t (*)[3])cand, kept, keep);
    count = qp__keep_gaps((const fix16_t (*)[3])cand, gaps, CAND, count, keep);
    for (int j = 0; j < count; j++) {
        const int v = src[keep[j]];
        const fix16_t d = cand[keep[j]][2];
        m->points[j].point = qp__v3_mad_q30(qp_transform_point(b_in_a, h->verts[v]), n, d / 2);
        m->points[j].depth = d;
        m->points[j].id = (uint32_t)v;
    }
    m->normal = n;
    m->count = count;
    return count;
}

/* ---- sphere, capsule - hull ---------------------------------------------------------------- */

/* The segment c + u s, |s| <= h (hull frame) clipped to face fc's side planes: its ends'
 * parameters in *lo <= *hi; false when nothing is left. */
static bool clip_segment(const qp_hull *hl, const qp_hull_face *fc, qp_vec3 c, qp_vec3 u, fix16_t h, int64_t *lo,
                         int64_t *hi)
{
    *lo = -(int64_t)h;
    *hi = h;
    for (int e = 0; e < fc->count; e++) {
        const qp_vec3 v0 = hl->verts[hl->face_verts[fc->first + e]];
        const qp_vec3 v1 = hl->verts[hl->face_verts[fc->first + (e + 1) % fc->count]];
        const qp_vec3 ev = qp_v3_sub(v1, v0), nr = fc->normal;
        int64_t k[3] = { (int64_t)ev.y * nr.z - (int64_t)ev.z * nr.y, (int64_t)ev.z * nr.x - (int64_t)ev.x * nr.z,
                         (int64_t)ev.x * nr.y - (int64_t)ev.y * nr.x };
        while (abs64(k[0]) >= (1 << 29) || abs64(k[1]) >= (1 << 29) || abs64(k[2]) >= (1 << 29))
            for (int q = 0; q < 3; q++) k[q] /= 2;
        qp_vec3 s;
        if (!qp_v3_normalize_q30(qp_v3((fix16_t)k[0], (fix16_t)k[1], (fix16_t)k[2]), &s)) continue;
        /* s . (c + u t - v0) <= 0: d0 + du t <= 0, d0 Q16, du Q30. */
        const int64_t d0 = q46_to_16(dot46(qp_v3_sub(c, v0), s));
        const int64_t du = qp__shift_round64((int64_t)u.x * s.x + (int64_t)u.y * s.y + (int64_t)u.z * s.z, 30);
        if (du == 0) {
            if (d0 > 0) return false;
            continue;
        }
        const int64_t t = qp__div_round64(-d0 * QP__W_ONE, du);
        if (du > 0) { if (t < *hi) *hi = t; }
        else if (t > *lo) *lo = t;
    }
    return *lo <= *hi;
}

/* Is q (on face fc's plane, to rounding) inside the face's polygon? Exactly, in the
 * projection along the normal's largest axis (corners counter-clockwise about it). */
static bool in_face(const qp_hull *h, const qp_hull_face *fc, qp_vec3 q)
{
    const qp_vec3 n = fc->normal;
    const int64_t ax = n.x < 0 ? -(int64_t)n.x : n.x, ay = n.y < 0 ? -(int64_t)n.y : n.y,
                  az = n.z < 0 ? -(int64_t)n.z : n.z;
    const int k = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2, u = (k + 1) % 3, v = (k + 2) % 3;
    const int sg = (k == 0 ? n.x : k == 1 ? n.y : n.z) > 0 ? 1 : -1;
    const fix16_t *qc = &q.x;
    for (int e = 0; e < fc->count; e++) {
        const fix16_t *a = &h->verts[h->face_verts[fc->first + e]].x;
        const fix16_t *b = &h->verts[h->face_verts[fc->first + (e + 1) % fc->count]].x;
        const int64_t cr = ((int64_t)b[u] - a[u]) * ((int64_t)qc[v] - a[v]) - ((int64_t)b[v] - a[v]) * ((int64_t)qc[u] - a[u]);
        if (sg * cr < 0) return false;
    }
    return true;
}

/* The point of the hull nearest p when p is outside it: true with it in *q, the squared
 * distance (Q32) in *d2 and the feature in *feature (face f: f; edge e: 256 + e); false when
 * p is inside every face's plane. The nearest point lies on a face p is outside of: inside
 * that face's polygon, or on one of its edges. */
static QP__NOINLINE bool nearest_on_hull(const qp_hull *h, qp_vec3 p, qp_vec3 *q, int64_t *d2, int *feature)
{
    bool outside = false;
    *d2 = INT64_MAX;
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *fc = &h->faces[f];
        const fix16_t d = q46_to_16(dot46(p, fc->normal) - (int64_t)fc->offset * QP__W_ONE);
        if (d <= 0) continue;
        outside = true;
        const qp_vec3 on = qp__v3_mad_q30(p, fc->normal, -d);
        if (in_face(h, fc, on)) {
            if ((int64_t)d * d < *d2) { *d2 = (int64_t)d * d; *q = on; *feature = f; }
            continue;
        }
        for (int e = 0; e < fc->count; e++) {
            const qp_vec3 a = h->verts[h->face_verts[fc->first + e]];
            const qp_vec3 b = h->verts[h->face_verts[fc->first + (e + 1) % fc->count]];
            const qp__segment sg = qp__segment_from_points(a, b);
            const qp_vec3 x = qp__segment_closest_point(&sg, p);
            const int64_t dx = (int64_t)p.x - x.x, dy = (int64_t)p.y - x.y, dz = (int64_t)p.z - x.z;
            const int64_t dd = dx * dx + dy * dy + dz * dz;
            if (dd < *d2) { *d2 = dd; *q = x; *feature = 256 + f * 64 + e; }
        }
    }
    return outside;
}

/* The segment's point nearest the hull (parameter *s) when the whole segment is outside it:
 * the distance along the segment is convex, so a ternary search closes in on its least
 * (48 rounds: below 1e-6 of the length). False when a point it tries is inside. */
static QP__NOINLINE bool nearest_of_segment(const qp_hull *h, const qp__segment *seg, fix16_t *s, qp_vec3 *q,
                                            int64_t *d2, int *feature)
{
    int64_t lo = -(int64_t)seg->h, hi = seg->h;
    for (int it = 0; it < 48 && hi - lo > 2; it++) {
        const int64_t m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        qp_vec3 q1, q2;
        int64_t d1, dd2;
        int f1, f2;
        if (!nearest_on_hull(h, qp__segment_point(seg, (fix16_t)m1), &q1, &d1, &f1) ||
            !nearest_on_hull(h, qp__segment_point(seg, (fix16_t)m2), &q2, &dd2, &f2))
            return false;
        if (d1 <= dd2) hi = m2;
        else lo = m1;
    }
    *s = (fix16_t)((lo + hi) / 2);
    return nearest_on_hull(h, qp__segment_point(seg, *s), q, d2, feature);
}

/* A core segment (centre, unit axis, half length; A's frame at the origin, so in the hull's
 * frame c = R^T(-t), u = R^T axis) with radius r against hull b. */
static int round_hull(fix16_t r, fix16_t half, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
                      qp_manifold *m)
{
    const qp_hull *h = b->hull;
    memset(m, 0, sizeof *m);
    if (qp__v3_max_abs(b_in_a->p) > QP__BOX_FAR) return 0;
    const qp_rot3 rt = qp_rot3_transpose(&b_in_a->r);
    const qp_vec3 c = qp_rot3_mul_v3(&rt, qp_v3_neg(b_in_a->p));
    const qp_vec3 u = qp__rot_q30(&rt, qp_v3(0, QP_Q30_ONE, 0));
    const qp__segment seg = { c, u, half };
    const qp_vec3 e0 = qp__segment_point(&seg, -half), e1 = qp__segment_point(&seg, half);
    const int64_t lim = (int64_t)margin * QP__W_ONE, rad = (int64_t)r * QP__W_ONE;
    int64_t sep_f = INT64_MIN;
    int best_f = 0;
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *fc = &h->faces[f];
        int64_t d0 = dot46(e0, fc->normal), d1 = dot46(e1, fc->normal);
        const int64_t sep = (d0 < d1 ? d0 : d1) - (int64_t)fc->offset * QP__W_ONE - rad;
        if (sep > lim) return 0;
        if (sep > sep_f) { sep_f = sep; best_f = f; }
    }
    int64_t sep_e = INT64_MIN;
    int best_e = -1;
    qp_vec3 axis_e = qp_v3_zero();
    for (int e = 0; half > 0 && e < h->edge_count; e++) {
        const qp_hull_edge *ed = &h->edges[e];
        const int64_t s0 = dot46(qp_v3(u.x >> 14, u.y >> 14, u.z >> 14), h->faces[ed->f0].normal);
        const int64_t s1 = dot46(qp_v3(u.x >> 14, u.y >> 14, u.z >> 14), h->faces[ed->f1].normal);
        if (!((s0 < 0 && s1 > 0) || (s0 > 0 && s1 < 0))) continue;
        const qp_vec3 v0 = h->verts[ed->v0];
        qp_vec3 axis;
        if (!unit_cross(qp_v3_sub(h->verts[ed->v1], v0), qp_v3(u.x >> 14, u.y >> 14, u.z >> 14), &axis)) continue;
        if (dot46(qp_v3_sub(v0, h->center), axis) < 0) axis = qp_v3_neg(axis);
        const int64_t sep = dot46(qp_v3_sub(c, v0), axis) - rad;
        if (sep > lim) return 0;
        if (sep > sep_e) { sep_e = sep; best_e = e; axis_e = axis; }
    }
    int count = 0;
    qp_vec3 nb;   /* from the hull towards the segment, hull frame */
    /* Outside the hull, the true nearest points decide (the axes only bound the distance
     * from below, wrongly near a corner): unless a face explains that distance within the
     * edge tolerance, one point along the nearest direction. */
    fix16_t sn = 0;
    qp_vec3 qn;
    int64_t dn2;
    int feat;
    if (nearest_of_segment(h, &seg, &sn, &qn, &dn2, &feat)) {
        const fix16_t dist = (fix16_t)qp_isqrt64((uint64_t)dn2);
        const int64_t true_sep = ((int64_t)dist - r) * QP__W_ONE;
        if (true_sep > lim) return 0;
        if (true_sep > sep_f + tolerance(sep_f, QP__BOX_TOL_EDGE)) {
            const qp_vec3 ps = qp__segment_point(&seg, sn);
            qp__normal_or(qp_v3_sub(ps, qn), h->faces[best_f].normal, &nb);
            const fix16_t d = qp__sat32((int64_t)r - dist);
            m->points[0].point = qp_transform_point(b_in_a, qp__v3_mad_q30(qn, nb, qp__sat32(((int64_t)dist - r) / 2)));
            m->points[0].depth = d;
            m->points[0].id = ((uint32_t)1 << 18) | (uint32_t)feat;
            m->normal = qp_v3_neg(qp__rot_q30(&b_in_a->r, nb));
            m->count = 1;
            return 1;
        }
        best_e = -1;   /* a face explains it: no edge axis beats it */
    }
    if (best_e >= 0 && sep_e > sep_f + tolerance(sep_f, QP__BOX_TOL_EDGE)) {
        const qp_hull_edge *ed = &h->edges[best_e];
        qp__segment se = qp__segment_from_points(h->verts[ed->v0], h->verts[ed->v1]);
        fix16_t s, t;
        qp__segments_closest(&seg, &se, &s, &t);
        const fix16_t d = qp__sat32(-(int64_t)q46_to_16(sep_e));
        m->points[0].point = qp__v3_mad_q30(qp__segment_point(&se, t), axis_e, -d / 2);
        m->points[0].depth = d;
        m->points[0].id = ((uint32_t)1 << 17) | (uint32_t)best_e;
        count = 1;
        nb = axis_e;
    } else {
        const qp_hull_face *fc = &h->faces[best_f];
        nb = fc->normal;
        int64_t lo, hi;
        if (!clip_segment(h, fc, c, u, half, &lo, &hi)) {
            /* The segment's deepest end lies beside the face: one point there. */
            lo = hi = dot46(e0, nb) <= dot46(e1, nb) ? -(int64_t)half : half;
        }
        for (int k = 0; k < (lo == hi ? 1 : 2); k++) {
            const fix16_t sk = (fix16_t)(k == 0 ? lo : hi);
            const qp_vec3 p = qp__segment_point(&seg, sk);
            const int64_t dist = dot46(p, nb) - (int64_t)fc->offset * QP__W_ONE;   /* Q46, > 0 outside */
            const fix16_t d = q46_to_16(rad - dist);
            if (d < -margin) continue;
            /* Midway between the segment's surface (p - n r) and the face's (p - n dist). */
            m->points[count].point = qp__v3_mad_q30(p, nb, -q46_to_16((rad + dist) / 2));
            m->points[count].depth = d;
            m->points[count].id = ((uint32_t)1 << 16) | ((uint32_t)best_f << 1) | (uint32_t)k;
            count++;
        }
    }
    for (int k = 0; k < count; k++) m->points[k].point = qp_transform_point(b_in_a, m->points[k].point);
    m->normal = qp_v3_neg(qp__rot_q30(&b_in_a->r, nb));
    m->count = count;
    if (count == 0) memset(m, 0, sizeof *m);
    return count;
}

int qp_collide_sphere_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
                           qp_manifold *m)
{
    return round_hull(a->radius, 0, b, b_in_a, margin, m);
}

int qp_collide_capsule_hull(const qp_shape *a, const qp_shape *b, const qp_transform *b_in_a, fix16_t margin,
                            qp_manifold *m)
{
    return round_hull(a->radius, a->half_height, b, b_in_a, margin, m);
}

/* ---- ray cast ------------------------------------------------------------------------------ */

bool qp__ray_hull(const qp_hull *h, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *normal)
{
    int64_t t_enter = INT64_MIN, t_out = len;   /* Q16 */
    int enter = -1;
    bool inside = true;
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *fc = &h->faces[f];
        const int64_t d = dot46(o, fc->normal) - (int64_t)fc->offset * QP__W_ONE;   /* Q46, > 0: outside */
        const int64_t den = qp__shift_round64((int64_t)u.x * fc->normal.x + (int64_t)u.y * fc->normal.y +
                                                  (int64_t)u.z * fc->normal.z, 30);   /* Q30 */
        if (d > 0) inside = false;
        if (den == 0) {
            if (d > 0) return false;
            continue;
        }
        const int64_t t = qp__div_round64(-d, den);   /* Q16 */
        if (den < 0) {
            if (t > t_enter) { t_enter = t; enter = f; }
        } else if (t < t_out) {
            t_out = t;
        }
    }
    if (inside || enter < 0) return false;
    const int64_t t_in = t_enter > 0 ? t_enter : 0;
    if (t_in > t_out) return false;
    *dist = (fix16_t)t_in;
    *normal = h->faces[enter].normal;
    return true;
}
