/* SPDX-License-Identifier: MIT */
/* Contacts of spheres, capsules and boxes with the triangles of a level shape
 * (mesh or heightfield), reduced to one manifold per shape pair.
 *
 * Each triangle that the convex shape's box meets gives candidate points, each with
 * its own normal (from the triangle to the convex shape) and depth, worked out
 * relative to the convex shape's centre (small numbers, whatever the level's size):
 *   sphere    the closest point of the triangle to the centre;
 *   capsule   a sphere at each end, and the segment's closest point to an edge
 *             where that is nearer than both ends (a capsule lying across a ridge);
 *   box       separating axes (the face normal, the box's three axes and their
 *             crosses with the edges), the face normal preferred within 5 mm; points
 *             by clipping the box's incident face against the triangle (face normal),
 *             the triangle against the box's face (a box axis), or the closest points
 *             of two edges;
 *   hull      the same (below).
 * No bumps on internal edges: a contact whose normal comes from an edge or a corner of
 * the triangle (not its face) takes the face normal instead when that edge is inactive
 * (flat or concave with its neighbour: the neighbour's own face covers it) or when both
 * edges at that corner are. Only convex edges, and a mesh's open border, push sideways.
 * So a box sliding over a floor of many triangles, or a ball rolling over its seams,
 * sees one plane.
 *
 * The manifold's normal is that of the deepest candidate, averaged with the candidates
 * within 45 degrees of it (by depth); their depths are measured along it, those
 * beyond 45 degrees are left out (one manifold per shape pair: a body in a sharp corner
 * is pushed out of its deepest face first). Points at the same place (a corner on a
 * seam) count once; then the deepest and the three that spread the most are kept, touching
 * points over 5 cm apart before gaps. A box's or hull's face clipped by a triangle gives no
 * points on the triangle's inner seams (its neighbours' clips cover the patch), and its
 * points past the margin fill the places left, as gaps, as box-box's do; a triangle past the
 * margin gives those gaps alone, so a face over flat cells keeps its four corners, as over a
 * plane.
 *
 * A hull takes the box's path with its own features: its face normals for the box's axes,
 * its corners and its edges (the pairs that touch), in its own frame.
 */
#include "level.h"
#include "geometry.h"

#define MAX_CANDIDATES 16
#define FACE_PREFERENCE QP_FRAC(5, 1000)   /* 5 mm: another axis must beat the face by this */
#define SAME_POINT 64                      /* 1 mm: candidates this close are one point */
#define SUPPORT_SPREAD QP_FRAC(5, 100)     /* 5 cm: a touching point farther from the kept ones is a support */
#define ROUND_IDS 4                        /* feature ids of sphere points (a capsule's: 1-3) */

typedef struct {
    qp_vec3 n;          /* Q2.30, from the triangle to the convex shape */
    qp_vec3 p;          /* relative to the convex shape's centre, level axes */
    fix16_t depth;
    uint32_t id;
} candidate;

typedef struct {
    const qp_shape *convex;
    qp_vec3 c;          /* the convex shape's centre, level frame */
    qp_rot3 r;          /* its axes, level frame */
    fix16_t margin;
    bool face;          /* add keeps points past the margin, as gaps */
    bool apart;         /* and only those: the triangle lies past the margin (box_feature) */
    int count;
    candidate k[MAX_CANDIDATES];
} gather;

/* A triangle relative to the convex shape's centre. */
typedef struct {
    qp_vec3 v[3];
    qp_vec3 n;
    uint8_t active;
    uint32_t index;
} tri_rel;

static int32_t dot30(qp_vec3 a, qp_vec3 b)
{
    return (int32_t)(((int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z) >> 30);
}

static fix16_t absf(fix16_t v) { return v < 0 ? -v : v; }

static int64_t dist2(qp_vec3 a, qp_vec3 b)
{
    return qp_v3_len_sq_wide(qp__v3_sub(a, b));
}

static void reduce(gather *g, int keep);

/* Whether candidate k is a gap: a point of a face past the margin (add, g->face). */
static bool is_gap(const gather *g, const candidate *k) { return k->depth < -g->margin; }

/* The gaps taken out of a full gather (in their order), to make room for a point within the
 * margin. */
static void drop_gaps(gather *g)
{
    int n = 0;
    for (int i = 0; i < g->count; i++)
        if (!is_gap(g, &g->k[i])) g->k[n++] = g->k[i];
    g->count = n;
}

/* A candidate; one past the margin only while g->face is set (a box's or hull's face clipped
 * by a triangle: a body landing on an edge turns about it, and its far edge must meet the
 * triangle in the same step), and only while the gather has room: gaps never displace a
 * point within the margin. While g->apart is set (a triangle past the margin), gaps only. */
static void add(gather *g, qp_vec3 n, qp_vec3 p, fix16_t depth, uint32_t id)
{
    if (depth < -g->margin ? !g->face : g->apart) return;
    for (int i = 0; i < g->count; i++) {
        candidate *k = &g->k[i];
        qp_vec3 d = qp__v3_sub(k->p, p);
        /* One point per place and normal; a sphere (ids below ROUND_IDS) has one point per
         * normal: its face contact on one triangle and its border contacts on the
         * neighbours (taking the same face normal) are one support. */
        bool same_place = (id < ROUND_IDS && k->id == id) ||
                          (absf(d.x) < SAME_POINT && absf(d.y) < SAME_POINT && absf(d.z) < SAME_POINT);
        if (same_place && dot30(k->n, n) > QP__LEVEL_FLAT_COS) {
            if (depth > k->depth) {
                k->n = n;
                k->p = p;
                k->depth = depth;
                k->id = id;
            }
            return;
        }
    }
    if (g->count == MAX_CANDIDATES) {
        if (depth < -g->margin) return;
        drop_gaps(g);
        if (g->count == MAX_CANDIDATES) reduce(g, 4);
    }
    candidate *k = &g->k[g->count++];
    k->n = n;
    k->p = p;
    k->depth = depth;
    k->id = id;
}

/* Keep the deepest candidate and the `keep - 1` that spread the most, in their order. A point
 * that touches (depth >= 0) farther than SUPPORT_SPREAD from every kept one comes before gaps, so
 * a far gap within the margin never displaces a support (a box resting on a ridge keeps both
 * of its supports from step to step); touching points close to a kept one do not, so a body
 * landing on a corner keeps the gaps on its far side that stop it turning into the ground. */
static void reduce(gather *g, int keep)
{
    if (g->count <= keep) return;
    bool take[MAX_CANDIDATES] = { false };
    /* First the deepest (within 1 mm) that lies farthest from the shape's centre: a corner,
     * not a point inside the patch, when a box lies flat. */
    fix16_t deepest = g->k[0].depth;
    for (int i = 1; i < g->count; i++) deepest = g->k[i].depth > deepest ? g->k[i].depth : deepest;
    int first = -1;
    int64_t far = -1;
    for (int i = 0; i < g->count; i++) {
        int64_t r = qp_v3_len_sq_wide(g->k[i].p);
        if (g->k[i].depth >= deepest - SAME_POINT && r > far) far = r, first = i;
    }
    take[first] = true;
    for (int round = 1; round < keep; round++) {
        int best = -1;
        int64_t best_d = -1;
        bool best_touches = false;
        for (int i = 0; i < g->count; i++) {
            if (take[i]) continue;
            int64_t d = INT64_MAX;
            for (int j = 0; j < g->count; j++)
                if (take[j]) {
                    int64_t e = dist2(g->k[i].p, g->k[j].p);
                    d = e < d ? e : d;
                }
            bool touches = g->k[i].depth >= 0 && d > (int64_t)SUPPORT_SPREAD * SUPPORT_SPREAD;
            if (best_touches && !touches) continue;
            if (d > best_d || (touches && !best_touches)) best_d = d, best = i, best_touches = touches;
        }
        take[best] = true;
    }
    int n = 0;
    for (int i = 0; i < g->count; i++)
        if (take[i]) g->k[n++] = g->k[i];
    g->count = n;
}

/* ---- sphere ---------------------------------------------------------------------- */

/* Whether the corner k of a triangle is on an active edge (edges k - 1 and k meet there). */
static bool corner_active(uint8_t active, int k)
{
    return (active >> k & 1u) || (active >> ((k + 2) % 3) & 1u);
}

/* The nearest point of the triangle's border to s (an edge or a corner) into *near, and
 * whether that feature is active. A frame of its own: its segments are not on the stack
 * while the point is added. */
static QP__NOINLINE bool nearest_border(const tri_rel *t, qp_vec3 s, qp_vec3 *near)
{
    int64_t best = INT64_MAX;
    bool active = false;
    for (int k = 0; k < 3; k++) {
        qp__segment seg = qp__segment_from_points(t->v[k], t->v[(k + 1) % 3]);
        fix16_t at = qp__segment_closest_s(&seg, s);
        qp_vec3 p = qp__segment_point(&seg, at);
        int64_t d = dist2(p, s);
        if (d < best) {
            best = d;
            *near = p;
            active = at <= -seg.h ? corner_active(t->active, k)
                   : at >= seg.h  ? corner_active(t->active, (k + 1) % 3)
                                  : (t->active >> k & 1u) != 0;
        }
    }
    return active;
}

/* Whether q, in the triangle's plane, lies inside it (its border included). */
static QP__NOINLINE bool over_triangle(const tri_rel *t, qp_vec3 q)
{
    bool inside = true;
    for (int k = 0; k < 3 && inside; k++) {
        qp_vec3 e = qp__v3_sub(t->v[(k + 1) % 3], t->v[k]);
        qp_vec3 inward = qp_v3_neg(qp_v3_cross_q30(e, t->n));
        inside = qp_v3_dot_wide(qp__v3_sub(q, t->v[k]), inward) >= 0;
    }
    return inside;
}

static void sphere_triangle(gather *g, const tri_rel *t, qp_vec3 s, fix16_t r, uint32_t id)
{
    fix16_t h = qp__v3_dot_q30(qp__v3_sub(s, t->v[0]), t->n);
    if (h < 0 || h > r + g->margin) return;
    qp_vec3 q = qp__v3_mad_q30(s, t->n, -h);
    if (over_triangle(t, q)) {
        add(g, t->n, qp__v3_mad_q30(q, t->n, (h - r) / 2), r - h, id);
        return;
    }
    qp_vec3 near = q;
    bool active = nearest_border(t, s, &near);
    fix16_t dist = qp_v3_len(qp__v3_sub(s, near));
    if (dist > r + g->margin) return;
    qp_vec3 n = t->n;
    if (active) qp__normal_or(qp__v3_sub(s, near), t->n, &n);
    fix16_t depth = r - dist;
    add(g, n, qp__v3_mad_q30(near, n, -depth / 2), depth, id);
}

/* ---- capsule --------------------------------------------------------------------- */

/* The point *mid of the capsule's segment e0-e1 (about its centre) nearest to an edge of the
 * triangle, where that lies between its ends and is nearer the triangle's plane than both:
 * false when none does. A frame of its own, as nearest_border. */
static QP__NOINLINE bool capsule_nearest_edge(const tri_rel *t, const qp_vec3 *e0, const qp_vec3 *e1, qp_vec3 axis,
                                              fix16_t h, qp_vec3 *mid)
{
    const qp__segment cap = { qp_v3_zero(), axis, h };
    int64_t best = INT64_MAX;
    for (int k = 0; k < 3; k++) {
        qp__segment seg = qp__segment_from_points(t->v[k], t->v[(k + 1) % 3]);
        fix16_t sa, sb;
        qp__segments_closest(&cap, &seg, &sa, &sb);
        if (sa <= -cap.h || sa >= cap.h) continue;
        qp_vec3 pa = qp__segment_point(&cap, sa);
        int64_t d = dist2(pa, qp__segment_point(&seg, sb));
        if (d < best) best = d, *mid = pa;
    }
    if (best == INT64_MAX) return false;
    fix16_t h0 = qp__v3_dot_q30(qp__v3_sub(*e0, t->v[0]), t->n), h1 = qp__v3_dot_q30(qp__v3_sub(*e1, t->v[0]), t->n);
    fix16_t hm = qp__v3_dot_q30(qp__v3_sub(*mid, t->v[0]), t->n);
    return hm < h0 && hm < h1;
}

static QP__NOINLINE void capsule_triangle(gather *g, const tri_rel *t)
{
    const qp_shape *s = g->convex;
    qp_vec3 axis = qp_v3(g->r.m[0][1], g->r.m[1][1], g->r.m[2][1]);
    qp_vec3 e0 = qp__v3_mad_q30(qp_v3_zero(), axis, -s->half_height);
    qp_vec3 e1 = qp__v3_mad_q30(qp_v3_zero(), axis, s->half_height);
    sphere_triangle(g, t, e0, s->radius, 1);
    sphere_triangle(g, t, e1, s->radius, 2);
    qp_vec3 mid;
    if (capsule_nearest_edge(t, &e0, &e1, axis, s->half_height, &mid)) sphere_triangle(g, t, mid, s->radius, 3);
}

/* ---- box ------------------------------------------------------------------------- */

static qp_vec3 box_axis(const gather *g, int i)
{
    return qp_v3(g->r.m[0][i], g->r.m[1][i], g->r.m[2][i]);
}

/* The box's extent along unit L (Q2.30): sum |a_i . L| h_i. */
static fix16_t box_radius_along(const gather *g, qp_vec3 L)
{
    const fix16_t h[3] = { g->convex->half.x, g->convex->half.y, g->convex->half.z };
    int64_t s = 0;
    for (int i = 0; i < 3; i++) {
        int64_t d = dot30(box_axis(g, i), L);
        s += (d < 0 ? -d : d) * h[i];
    }
    return (fix16_t)((s + ((int64_t)1 << 29)) >> 30);
}

/* Keep the part of polygon p[0 .. n) where side() >= 0; side values given per point. */
static int clip(qp_vec3 *p, uint32_t *ids, int n, const int64_t *side, uint32_t new_id, qp_vec3 *out, uint32_t *out_ids,
                int cap)
{
    int m = 0;
    for (int i = 0; i < n && m < cap; i++) {
        int j = (i + 1) % n;
        int64_t si = side[i], sj = side[j];
        if (si >= 0) out[m] = p[i], out_ids[m++] = ids[i];
        if ((si >= 0) != (sj >= 0) && m < cap) {
            int64_t a = si, b = si - sj;   /* t = a / b in (0, 1] */
            while (b >= ((int64_t)1 << 46) || b <= -((int64_t)1 << 46)) a /= 2, b /= 2;
            if (b == 0) continue;
            int64_t t16 = ((a * 65536) + b / 2) / b;
            qp_vec3 d = qp__v3_sub(p[j], p[i]);
            out[m] = qp_v3(p[i].x + (fix16_t)(((int64_t)d.x * t16) >> 16), p[i].y + (fix16_t)(((int64_t)d.y * t16) >> 16),
                           p[i].z + (fix16_t)(((int64_t)d.z * t16) >> 16));
            out_ids[m++] = new_id | (uint32_t)i;
        }
    }
    return m;
}

/* The box's face poly[0 .. 4) (ids alike) clipped by the triangle's sides, in place: the
 * corners left. A frame of its own: its buffers are not on the stack while the points are
 * added. */
static QP__NOINLINE int clip_by_triangle(qp_vec3 *poly, uint32_t *ids, const tri_rel *t)
{
    qp_vec3 next[8];
    uint32_t next_ids[8];
    int n = 4;
    for (int e = 0; e < 3 && n > 0; e++) {
        qp_vec3 ed = qp__v3_sub(t->v[(e + 1) % 3], t->v[e]);
        qp_vec3 inward = qp_v3_neg(qp_v3_cross_q30(ed, t->n));
        int64_t side[8];
        for (int i = 0; i < n; i++) side[i] = qp_v3_dot_wide(qp__v3_sub(poly[i], t->v[e]), inward);
        n = clip(poly, ids, n, side, ((t->index & 0xFFFFFu) << 8) | 0x80u | (uint32_t)e << 4, next, next_ids, 8);
        for (int i = 0; i < n; i++) poly[i] = next[i], ids[i] = next_ids[i];
    }
    return n;
}

/* The box's face most against the triangle's normal: its corners into poly[0 .. 4), ids alike.
 * A frame of its own, as clip_by_triangle. */
static QP__NOINLINE void box_incident_face(const gather *g, const tri_rel *t, qp_vec3 *poly, uint32_t *ids)
{
    const fix16_t h[3] = { g->convex->half.x, g->convex->half.y, g->convex->half.z };
    int f = 0;
    int32_t best = -1;
    for (int i = 0; i < 3; i++) {
        int32_t d = dot30(box_axis(g, i), t->n);
        if ((d < 0 ? -d : d) > best) best = d < 0 ? -d : d, f = i;
    }
    int sf = dot30(box_axis(g, f), t->n) > 0 ? -1 : 1;
    int j = (f + 1) % 3, k = (f + 2) % 3;
    static const int sj[4] = { 1, -1, -1, 1 }, sk[4] = { 1, 1, -1, -1 };
    for (int c = 0; c < 4; c++) {
        fix16_t cv[3];
        cv[f] = sf * h[f];
        cv[j] = sj[c] * h[j];
        cv[k] = sk[c] * h[k];
        qp_vec3 p = qp_v3_zero();
        for (int a = 0; a < 3; a++) p = qp__v3_mad_q30(p, box_axis(g, a), cv[a]);
        poly[c] = p;
        ids[c] = 1u + (uint32_t)((cv[0] > 0) | (cv[1] > 0) << 1 | (cv[2] > 0) << 2);
    }
}

/* Whether point p, which clipping against the triangle's edge e made, lies on an inner seam:
 * e inactive (a flat or concave neighbour's own face covers it, and the face clipped by that
 * neighbour has the points it needs there), and p not at a corner of the triangle on an
 * active edge (a border's turn). Such points lie inside the patch the face covers, and in the
 * reduction they took the places of its corners: a cube landing edge-first on a flat
 * heightfield kept points along the cells' borders instead of its landing edge's far end,
 * and the edge went 5-14 cm in, in 53 of 400 landings (bench_landings). */
static QP__NOINLINE bool on_inner_seam(const tri_rel *t, qp_vec3 p, int e)
{
    if (t->active >> e & 1u) return false;
    for (int k = 0; k < 3; k++) {
        const qp_vec3 d = qp__v3_sub(p, t->v[k]);
        if (absf(d.x) < SAME_POINT && absf(d.y) < SAME_POINT && absf(d.z) < SAME_POINT && corner_active(t->active, k))
            return false;
    }
    return true;
}

/* Face normal: the box's incident face clipped by the triangle's sides. */
static QP__NOINLINE void box_face_contact(gather *g, const tri_rel *t)
{
    qp_vec3 poly[8];
    uint32_t ids[8];
    box_incident_face(g, t, poly, ids);
    int n = clip_by_triangle(poly, ids, t);
    g->face = true;
    for (int i = 0; i < n; i++) {
        if ((ids[i] & 0x80u) && on_inner_seam(t, poly[i], (int)(ids[i] >> 4 & 3u))) continue;
        fix16_t depth = -qp__v3_dot_q30(qp__v3_sub(poly[i], t->v[0]), t->n);
        add(g, t->n, qp__v3_mad_q30(poly[i], t->n, depth / 2), depth, ids[i]);
    }
    g->face = false;
}

/* The triangle poly[0 .. 3) (ids alike, triangle `index`) clipped by the four sides of the
 * box's faces along axis f, in place: the corners left. A frame of its own, as
 * clip_by_triangle. */
static QP__NOINLINE int clip_by_box_sides(const gather *g, int f, qp_vec3 *poly, uint32_t *ids, uint32_t index)
{
    const fix16_t h[3] = { g->convex->half.x, g->convex->half.y, g->convex->half.z };
    qp_vec3 next[8];
    uint32_t next_ids[8];
    int n = 3;
    for (int s = 0; s < 4 && n > 0; s++) {
        int a = (f + 1 + s / 2) % 3;
        int64_t sign = s % 2 ? -1 : 1;
        qp_vec3 ax = box_axis(g, a);
        int64_t side[8];
        for (int i = 0; i < n; i++) side[i] = (int64_t)h[a] - sign * qp__v3_dot_q30(poly[i], ax);
        n = clip(poly, ids, n, side, ((index & 0xFFFFFu) << 8) | 0x60u | (uint32_t)s << 2, next, next_ids, 8);
        for (int i = 0; i < n; i++) poly[i] = next[i], ids[i] = next_ids[i];
    }
    return n;
}

/* A box axis L (from the triangle to the box): the triangle clipped by the box's face -L. */
static QP__NOINLINE void box_axis_contact(gather *g, const tri_rel *t, int f, qp_vec3 L)
{
    const fix16_t h[3] = { g->convex->half.x, g->convex->half.y, g->convex->half.z };
    qp_vec3 poly[8];
    uint32_t ids[8];
    for (int k = 0; k < 3; k++) poly[k] = t->v[k], ids[k] = ((t->index & 0xFFFFFu) << 8) | 0x40u | (uint32_t)k;
    int n = clip_by_box_sides(g, f, poly, ids, t->index);
    for (int i = 0; i < n; i++) {
        fix16_t depth = qp__v3_dot_q30(poly[i], L) + h[f];
        add(g, L, qp__v3_mad_q30(poly[i], L, -depth / 2), depth, ids[i]);
    }
}

/* An edge-edge axis L (from the triangle to the box): the closest points of the box's edge
 * along axis i nearest the triangle and the triangle's edge e. */
static QP__NOINLINE void box_edge_contact(gather *g, const tri_rel *t, int i, int e, qp_vec3 L, fix16_t depth)
{
    const fix16_t h[3] = { g->convex->half.x, g->convex->half.y, g->convex->half.z };
    qp_vec3 c = qp_v3_zero();
    for (int a = 0; a < 3; a++) {
        if (a == i) continue;
        qp_vec3 ax = box_axis(g, a);
        c = qp__v3_mad_q30(c, ax, dot30(ax, L) > 0 ? -h[a] : h[a]);
    }
    qp__segment be = { c, box_axis(g, i), h[i] };
    qp__segment te = qp__segment_from_points(t->v[e], t->v[(e + 1) % 3]);
    fix16_t sa, sb;
    qp__segments_closest(&be, &te, &sa, &sb);
    qp_vec3 p = qp__v3_mid(qp__segment_point(&be, sa), qp__segment_point(&te, sb));
    add(g, L, p, depth, ((t->index & 0xFFFFFu) << 8) | 0x20u | (uint32_t)(i * 3 + e));
}

/* Penetration of the box along unit L into the triangle, with L's sign chosen (the smaller
 * overlap): *flip when the normal is -L. */
static fix16_t overlap_along(const gather *g, const tri_rel *t, qp_vec3 L, bool *flip)
{
    fix16_t lo = qp__v3_dot_q30(t->v[0], L), hi = lo;
    for (int k = 1; k < 3; k++) {
        fix16_t d = qp__v3_dot_q30(t->v[k], L);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    fix16_t rb = box_radius_along(g, L);
    fix16_t plus = hi + rb, minus = rb - lo;
    *flip = minus < plus;
    return *flip ? minus : plus;
}

/* Whether the triangle's feature deepest along L (towards the box) is inactive. */
static bool feature_inactive(const tri_rel *t, qp_vec3 L)
{
    fix16_t d[3];
    for (int k = 0; k < 3; k++) d[k] = qp__v3_dot_q30(t->v[k], L);
    int top = 0;
    for (int k = 1; k < 3; k++)
        if (d[k] > d[top]) top = k;
    const fix16_t tol = QP_FRAC(1, 1000);
    int near[3], count = 0;
    for (int k = 0; k < 3; k++)
        if (d[top] - d[k] <= tol) near[count++] = k;
    if (count == 3) return true;   /* the whole face: its own normal */
    if (count == 1) return !corner_active(t->active, top);
    int e = (near[0] + 1) % 3 == near[1] ? near[0] : near[1];   /* edge e joins corners e and e + 1 */
    return !(t->active >> e & 1u);
}

/* The box's separating feature against the triangle: 0 the face, 1 box axis *bi, 2 box
 * axis *bi x edge *be; *L the axis (from the triangle to the box), *best its overlap; 3 when
 * an axis separates them by more than the margin (the face's points over the triangle are
 * gaps: a box tilted over flat cells has its far corners past the margin over the cells past
 * its near edge, and they are the gaps that stop it turning down there, as on a plane); -1
 * when the box's centre lies behind the triangle. A frame of its own: the search is not on
 * the stack while the contact is made. */
static QP__NOINLINE int box_feature(const gather *g, const tri_rel *t, qp_vec3 *bestL, fix16_t *best_out, int *bi,
                                    int *be)
{
    fix16_t face = box_radius_along(g, t->n) + qp__v3_dot_q30(t->v[0], t->n);
    if (qp__v3_dot_q30(t->v[0], t->n) > 0) return -1;   /* the centre behind the plane */
    if (face < -g->margin) return 3;
    /* The least overlap of the other axes; it wins only by FACE_PREFERENCE over the face, and
     * among themselves the least wins (the first axis found is no better than a later one). */
    fix16_t best = INT32_MAX;
    int kind = 0;
    qp_vec3 axisL = t->n;
    for (int i = 0; i < 3; i++) {
        bool flip;
        qp_vec3 L = box_axis(g, i);
        fix16_t d = overlap_along(g, t, L, &flip);
        if (d < -g->margin) return 3;
        if (d < best) best = d, kind = 1, *bi = i, axisL = flip ? qp_v3_neg(L) : L;
    }
    for (int i = 0; i < 3; i++)
        for (int e = 0; e < 3; e++) {
            qp_vec3 a = box_axis(g, i), ed = qp__v3_sub(t->v[(e + 1) % 3], t->v[e]), L;
            qp_vec3 c = qp_v3_cross_q30(ed, a);   /* Q16.16, |ed| sin */
            if (qp_v3_max_abs(c) < QP_FRAC(1, 1000) || !qp_v3_normalize_q30(c, &L)) continue;
            bool flip;
            fix16_t d = overlap_along(g, t, L, &flip);
            if (d < -g->margin) return 3;
            if (d < best) best = d, kind = 2, *bi = i, *be = e, axisL = flip ? qp_v3_neg(L) : L;
        }
    if (best >= face - FACE_PREFERENCE) best = face, kind = 0, axisL = t->n;
    *bestL = axisL;
    /* An axis at an inner seam or a flat corner is the face's: this triangle gives the face's
     * points over it, its neighbour those over itself (the seam's own are left out,
     * on_inner_seam), however deep the box lies across the seam. */
    if (kind != 0 && feature_inactive(t, *bestL)) kind = 0;
    *best_out = best;
    return kind;
}

static QP__NOINLINE void box_triangle(gather *g, const tri_rel *t)
{
    qp_vec3 L;
    fix16_t best;
    int bi = 0, be = 0;
    int kind = box_feature(g, t, &L, &best, &bi, &be);
    if (kind == 0) box_face_contact(g, t);
    else if (kind == 1) box_axis_contact(g, t, bi, L);
    else if (kind == 2) box_edge_contact(g, t, bi, be, L, best);
    else if (kind == 3) {
        g->apart = true;
        box_face_contact(g, t);
        g->apart = false;
    }
}

/* ---- hull ------------------------------------------------------------------------ */

/* The box path with a hull's features: its face normals for the box's axes, its lowest
 * vertex along an axis for the box's radius, its face most against the triangle's normal
 * for the box's incident face, and the edge pairs that touch (each edge the support of its
 * side: the axis lies between the hull edge's two face normals and the triangle's third
 * corner lies below the edge along it) for the box's edge crosses. It works in the hull's
 * frame (the triangle turned into it: the hull's data read as built, no vertex turned) and
 * turns each candidate back to the level's axes. An incident face of more than
 * HULL_CLIP - 3 corners keeps its first ones; the triangle clipped by a hull face keeps
 * HULL_CLIP corners. */
#define HULL_CLIP 32
#define HULL_VERTEX_ID (1u << 28)     /* a hull corner inside the triangle: its index */
#define HULL_FACE_ID   (2u << 28)     /* a point of the triangle clipped by a hull face */
#define HULL_EDGE_ID   (3u << 28)     /* the closest points of two edges */

/* v (level axes) in the hull's frame: R^T v, one rounding per component. */
static qp_vec3 to_hull(const gather *g, qp_vec3 v)
{
    fix16_t o[3];
    for (int j = 0; j < 3; j++)
        o[j] = qp__sat32(qp__round_sum4((int64_t)g->r.m[0][j] * v.x, (int64_t)g->r.m[1][j] * v.y,
                                        (int64_t)g->r.m[2][j] * v.z, 0, 30));
    return qp_v3(o[0], o[1], o[2]);
}

static void hull_add(gather *g, qp_vec3 n, qp_vec3 p, fix16_t depth, uint32_t id)
{
    add(g, qp__rot3_mul_v3(&g->r, n), qp__rot3_mul_v3(&g->r, p), depth, id);
}

static int sign64(int64_t v) { return (v > 0) - (v < 0); }

/* Q2.30 cross of a Q2.30 a with b (any scale), rounded: b's scale. */
static qp_vec3 cross30(qp_vec3 a, qp_vec3 b)
{
    return qp_v3((fix16_t)(((int64_t)a.y * b.z - (int64_t)a.z * b.y) >> 30),
                 (fix16_t)(((int64_t)a.z * b.x - (int64_t)a.x * b.z) >> 30),
                 (fix16_t)(((int64_t)a.x * b.y - (int64_t)a.y * b.x) >> 30));
}

/* The triangle's face normal: the hull's incident face clipped by the triangle's sides.
 * The incident face is the one most against the normal among those at the hull's
 * deepest vertex (the face most against it overall can miss that vertex on a tilted hull). */
static QP__NOINLINE void hull_face_contact(gather *g, const qp_hull *h, const tri_rel *t, int deepest)
{
    int f = 0;
    int32_t least = INT32_MAX;
    for (int i = 0; i < h->face_count; i++) {
        const qp_hull_face *fc = &h->faces[i];
        bool at_deepest = false;
        for (int q = 0; q < fc->count; q++) at_deepest = at_deepest || h->face_verts[fc->first + q] == deepest;
        int32_t d = dot30(fc->normal, t->n);
        if (at_deepest && d < least) least = d, f = i;
    }
    const qp_hull_face *fc = &h->faces[f];
    qp_vec3 poly[HULL_CLIP], next[HULL_CLIP];
    uint32_t ids[HULL_CLIP], next_ids[HULL_CLIP];
    int n = fc->count < HULL_CLIP - 3 ? fc->count : HULL_CLIP - 3;
    for (int q = 0; q < n; q++) {
        int v = h->face_verts[fc->first + q];
        poly[q] = h->verts[v];
        ids[q] = HULL_VERTEX_ID | (uint32_t)v;
    }
    for (int e = 0; e < 3 && n > 0; e++) {
        qp_vec3 ed = qp__v3_sub(t->v[(e + 1) % 3], t->v[e]);
        qp_vec3 inward = qp_v3_neg(qp_v3_cross_q30(ed, t->n));
        int64_t side[HULL_CLIP];
        for (int i = 0; i < n; i++) side[i] = qp_v3_dot_wide(qp__v3_sub(poly[i], t->v[e]), inward);
        uint32_t id = HULL_VERTEX_ID | ((t->index & 0xFFFFFu) << 8) | 0x80u | (uint32_t)e << 5;
        n = clip(poly, ids, n, side, id, next, next_ids, HULL_CLIP);
        for (int i = 0; i < n; i++) poly[i] = next[i], ids[i] = next_ids[i];
    }
    g->face = true;
    for (int i = 0; i < n; i++) {
        if ((ids[i] & 0x80u) && on_inner_seam(t, poly[i], (int)(ids[i] >> 5 & 3u))) continue;
        fix16_t depth = -qp__v3_dot_q30(qp__v3_sub(poly[i], t->v[0]), t->n);
        hull_add(g, t->n, qp__v3_mad_q30(poly[i], t->n, depth / 2), depth, ids[i]);
    }
    g->face = false;
    /* The face wholly off the triangle: the deepest corner over the triangle instead, so a
     * hull tipping across several triangles shows each of them its own lowest corner. */
    if (n > 0) return;
    int over = -1;
    fix16_t over_depth = -g->margin;
    for (int v = 0; v < h->vert_count; v++) {
        fix16_t depth = -qp__v3_dot_q30(qp__v3_sub(h->verts[v], t->v[0]), t->n);
        bool inside = depth >= over_depth;
        for (int e = 0; e < 3 && inside; e++) {
            qp_vec3 ed = qp__v3_sub(t->v[(e + 1) % 3], t->v[e]);
            inside = qp_v3_dot_wide(qp__v3_sub(h->verts[v], t->v[e]), qp_v3_neg(qp_v3_cross_q30(ed, t->n))) >= 0;
        }
        if (inside) over = v, over_depth = depth;
    }
    if (over >= 0)
        hull_add(g, t->n, qp__v3_mad_q30(h->verts[over], t->n, over_depth / 2), over_depth, HULL_VERTEX_ID | (uint32_t)over);
}

/* Hull face f (normal L = -its normal, from the triangle to the hull): the triangle clipped
 * by the face's sides. */
static QP__NOINLINE void hull_axis_contact(gather *g, const qp_hull *h, const tri_rel *t, int f)
{
    const qp_hull_face *fc = &h->faces[f];
    const qp_vec3 nf = fc->normal, L = qp_v3_neg(nf);
    qp_vec3 poly[HULL_CLIP], next[HULL_CLIP];
    uint32_t ids[HULL_CLIP], next_ids[HULL_CLIP];
    const uint32_t base = HULL_FACE_ID | ((t->index & 0xFFFFFu) << 8);
    int n = 3;
    for (int k = 0; k < 3; k++) poly[k] = t->v[k], ids[k] = base | 0x80u | (uint32_t)k;
    for (int s = 0; s < fc->count && n > 0; s++) {
        qp_vec3 v0 = h->verts[h->face_verts[fc->first + s]];
        qp_vec3 v1 = h->verts[h->face_verts[fc->first + (s + 1) % fc->count]];
        qp_vec3 out = qp_v3_cross_q30(qp__v3_sub(v1, v0), nf);   /* counter-clockwise: out of the face */
        int64_t side[HULL_CLIP];
        for (int i = 0; i < n; i++) side[i] = -qp_v3_dot_wide(qp__v3_sub(poly[i], v0), out);
        n = clip(poly, ids, n, side, base | (uint32_t)(s & 3) << 5, next, next_ids, HULL_CLIP);
        for (int i = 0; i < n; i++) poly[i] = next[i], ids[i] = next_ids[i];
    }
    for (int i = 0; i < n; i++) {
        fix16_t depth = fc->offset - qp__v3_dot_q30(poly[i], nf);
        hull_add(g, L, qp__v3_mad_q30(poly[i], L, -depth / 2), depth, ids[i]);
    }
}

/* Hull edge he and the triangle's edge e along L: the midpoint of their closest points. */
static void hull_edge_contact(gather *g, const qp_hull *h, const tri_rel *t, int he, int e, qp_vec3 L, fix16_t depth)
{
    const qp_hull_edge *ed = &h->edges[he];
    qp__segment a = qp__segment_from_points(h->verts[ed->v0], h->verts[ed->v1]);
    qp__segment b = qp__segment_from_points(t->v[e], t->v[(e + 1) % 3]);
    fix16_t sa, sb;
    qp__segments_closest(&a, &b, &sa, &sb);
    qp_vec3 p = qp__v3_mid(qp__segment_point(&a, sa), qp__segment_point(&b, sb));
    hull_add(g, L, p, depth, HULL_EDGE_ID | ((t->index & 0x3FFFFu) << 10) | (uint32_t)he << 2 | (uint32_t)e);
}

/* The direction of d x ed (Q16.16 edges, exact in 64 bits) scaled to a largest component in
 * [2^28, 2^29): false when they are parallel within about 2^-12 rad. */
static bool edge_cross(qp_vec3 d, qp_vec3 ed, qp_vec3 *out)
{
    int64_t c[3] = { (int64_t)d.y * ed.z - (int64_t)d.z * ed.y, (int64_t)d.z * ed.x - (int64_t)d.x * ed.z,
                     (int64_t)d.x * ed.y - (int64_t)d.y * ed.x };
    int64_t big = 0;
    for (int k = 0; k < 3; k++) big = (c[k] < 0 ? -c[k] : c[k]) > big ? (c[k] < 0 ? -c[k] : c[k]) : big;
    if (big == 0 || big < ((int64_t)qp_v3_max_abs(d) * qp_v3_max_abs(ed)) >> 12) return false;
    int up = 0, down = 0;
    while ((big << up) < ((int64_t)1 << 28)) up++;
    while ((big >> down) >= ((int64_t)1 << 29)) down++;
    for (int k = 0; k < 3; k++) c[k] = up ? c[k] * ((int64_t)1 << up) : c[k] / ((int64_t)1 << down);
    *out = qp_v3((fix16_t)c[0], (fix16_t)c[1], (fix16_t)c[2]);
    return true;
}

static QP__NOINLINE void hull_triangle(gather *g, const tri_rel *level_t)
{
    const qp_hull *h = g->convex->hull;
    tri_rel t;
    for (int k = 0; k < 3; k++) t.v[k] = to_hull(g, level_t->v[k]);
    t.n = to_hull(g, level_t->n);
    t.active = level_t->active;
    t.index = level_t->index;
    fix16_t low = INT32_MAX, high = INT32_MIN;
    int deepest = 0;
    for (int v = 0; v < h->vert_count; v++) {
        fix16_t d = qp__v3_dot_q30(h->verts[v], t.n);
        if (d < low) low = d, deepest = v;
        high = d > high ? d : high;
    }
    /* The whole hull behind the plane by more than the margin: not this triangle's (a box asks
     * it of its centre, but a flat hull resting a little deep has its centre, even its top,
     * there). */
    const fix16_t plane = qp__v3_dot_q30(t.v[0], t.n);
    if (high < plane - g->margin) return;
    const fix16_t face = plane - low;
    bool apart = face < -g->margin;   /* as box_feature: the face's points over it are gaps */
    /* As box_feature: the least of the other axes, taken when it beats the face by FACE_PREFERENCE. */
    fix16_t best = INT32_MAX;
    int kind = 0, bi = 0, be = 0;   /* 0 the triangle's face, 1 hull face bi, 2 hull edge bi x edge be */
    qp_vec3 bestL = t.n;
    for (int f = 0; f < h->face_count && !apart; f++) {
        qp_vec3 nf = h->faces[f].normal;
        fix16_t lo = qp__v3_dot_q30(t.v[0], nf);
        for (int k = 1; k < 3; k++) {
            fix16_t d = qp__v3_dot_q30(t.v[k], nf);
            lo = d < lo ? d : lo;
        }
        fix16_t d = h->faces[f].offset - lo;
        apart = d < -g->margin;
        if (d < best) best = d, kind = 1, bi = f, bestL = qp_v3_neg(nf);
    }
    for (int he = 0; he < h->edge_count && !apart; he++) {
        const qp_hull_edge *ed = &h->edges[he];
        qp_vec3 a = h->faces[ed->f0].normal, b = h->faces[ed->f1].normal;
        if (dot30(a, t.n) >= 0 && dot30(b, t.n) >= 0) continue;   /* an edge turned away from the triangle */
        qp_vec3 d = qp__v3_sub(h->verts[ed->v1], h->verts[ed->v0]);
        int s_ab = sign64(qp_v3_dot_wide(cross30(a, b), d));
        for (int e = 0; e < 3 && !apart; e++) {
            qp_vec3 x, L;
            if (!edge_cross(d, qp__v3_sub(t.v[(e + 1) % 3], t.v[e]), &x)) continue;
            /* The hull's edge is its support along -L when -L lies between a and b. */
            int sa = sign64(qp_v3_dot_wide(cross30(a, x), d)) * s_ab, sb = sign64(qp_v3_dot_wide(cross30(b, x), d)) * -s_ab;
            if (sa < 0 && sb < 0) { /* -x between a and b: L along x */ }
            else if (sa > 0 && sb > 0) x = qp_v3_neg(x);
            else continue;
            if (qp_v3_dot_wide(qp__v3_sub(t.v[(e + 2) % 3], t.v[e]), x) > 0) continue;   /* not the triangle's support */
            if (!qp_v3_normalize_q30(x, &L)) continue;
            fix16_t dd = qp__v3_dot_q30(t.v[e], L) - qp__v3_dot_q30(h->verts[ed->v0], L);
            apart = dd < -g->margin;
            if (dd < best) best = dd, kind = 2, bi = he, be = e, bestL = L;
        }
    }
    if (apart) {
        g->apart = true;
        hull_face_contact(g, h, &t, deepest);
        g->apart = false;
        return;
    }
    if (best >= face - FACE_PREFERENCE) best = face, kind = 0, bestL = t.n;
    if (kind != 0 && feature_inactive(&t, bestL)) kind = 0;   /* as box_feature */
    if (kind == 0) hull_face_contact(g, h, &t, deepest);
    else if (kind == 1) hull_axis_contact(g, h, &t, bi);
    else hull_edge_contact(g, h, &t, bi, be, bestL, best);
}

/* ---- the level's triangles --------------------------------------------------------- */

static int visit(void *ctx, const qp_level_triangle *lt)
{
    gather *g = ctx;
    tri_rel t;
    for (int k = 0; k < 3; k++) t.v[k] = qp__v3_sub(lt->v[k], g->c);
    if (!qp__tri_normal(lt->v[0], lt->v[1], lt->v[2], &t.n)) return 0;
    t.active = lt->active;
    t.index = lt->index;
    switch (g->convex->type) {
    case QP_SHAPE_SPHERE: sphere_triangle(g, &t, qp_v3_zero(), g->convex->radius, 0); break;
    case QP_SHAPE_CAPSULE: capsule_triangle(g, &t); break;
    case QP_SHAPE_BOX: box_triangle(g, &t); break;
    case QP_SHAPE_HULL: hull_triangle(g, &t); break;
    default: break;
    }
    return 0;
}

/* The manifold from the gathered candidates (a frame of its own, taken after the query's
 * deepest calls have returned). */
static QP__NOINLINE int finish(gather *g, fix16_t margin, qp_manifold *m)
{
    /* The gaps after the points within the margin, each in its order; the manifold from those. */
    const int total = g->count;
    int real = 0;
    for (int i = 0; i < total; i++) {
        if (is_gap(g, &g->k[i])) continue;
        const candidate k = g->k[i];
        for (int j = i; j > real; j--) g->k[j] = g->k[j - 1];
        g->k[real++] = k;
    }
    if (real == 0) return 0;
    g->count = real;
    /* The normal: the deepest candidate's, averaged by depth with those within 45 degrees. */
    int deep = 0;
    for (int i = 1; i < g->count; i++)
        if (g->k[i].depth > g->k[deep].depth) deep = i;
    const int32_t cos45 = 759250125;
    int64_t s[3] = { 0, 0, 0 };
    bool same = true;
    for (int i = 0; i < g->count; i++) {
        candidate *k = &g->k[i];
        if (dot30(k->n, g->k[deep].n) < cos45) continue;
        same = same && qp_v3_eq(k->n, g->k[deep].n);
        int64_t w = (int64_t)k->depth + margin + 1;   /* > 0 */
        s[0] += w * k->n.x;
        s[1] += w * k->n.y;
        s[2] += w * k->n.z;
    }
    qp_vec3 n = g->k[deep].n;
    if (!same) {
        int64_t big = 0;
        for (int a = 0; a < 3; a++) big = (s[a] < 0 ? -s[a] : s[a]) > big ? (s[a] < 0 ? -s[a] : s[a]) : big;
        int sh = 0;
        while ((big >> sh) >= ((int64_t)1 << 29)) sh++;
        qp_vec3 v = qp_v3((fix16_t)(s[0] >> sh), (fix16_t)(s[1] >> sh), (fix16_t)(s[2] >> sh));
        if (!qp_v3_normalize_q30(v, &n)) n = g->k[deep].n;
    }
    const qp_vec3 deep_n = g->k[deep].n;
    int kept = 0;
    for (int i = 0; i < g->count; i++) {
        candidate k = g->k[i];
        int32_t c = dot30(k.n, deep_n);
        if (c < cos45) continue;
        k.depth = same ? k.depth : qp_mul_q30(k.depth, dot30(k.n, n));
        k.n = n;
        g->k[kept++] = k;
    }
    g->count = kept;
    reduce(g, QP_MAX_MANIFOLD_POINTS);
    m->normal = n;
    for (int i = 0; i < g->count; i++) {
        m->points[i].point = qp__v3_add(g->k[i].p, g->c);
        m->points[i].depth = g->k[i].depth;
        m->points[i].id = g->k[i].id;
    }
    /* The places left: the gaps within 45 degrees, each the farthest from every point kept so
     * far (ties: the first), their depths along the manifold's normal. */
    int count = g->count;
    uint32_t taken = 0;   /* bit i: gap g->k[i] kept */
    while (count < QP_MAX_MANIFOLD_POINTS) {
        int pick = -1;
        int64_t best = -1;
        for (int i = real; i < total; i++) {
            if ((taken >> i & 1u) || dot30(g->k[i].n, deep_n) < cos45) continue;
            int64_t near = INT64_MAX;
            for (int j = 0; j < total; j++) {
                if (j < g->count || (j >= real && (taken >> j & 1u))) {
                    const int64_t d = dist2(g->k[i].p, g->k[j].p);
                    near = d < near ? d : near;
                }
            }
            if (near > best) best = near, pick = i;
        }
        if (pick < 0) break;
        taken |= 1u << pick;
        const candidate *k = &g->k[pick];
        m->points[count].point = qp__v3_add(k->p, g->c);
        m->points[count].depth = qp_v3_eq(k->n, n) ? k->depth : qp_mul_q30(k->depth, dot30(k->n, n));
        m->points[count].id = k->id;
        count++;
    }
    m->count = count;
    return count;
}

int qp__collide_level(const qp_shape *level, const qp_shape *convex, const qp_transform *convex_in_level,
                      fix16_t margin, qp_manifold *m)
{
    unsigned char *bytes = (unsigned char *)m;
    for (unsigned i = 0; i < sizeof *m; i++) bytes[i] = 0;
    if (convex->type != QP_SHAPE_SPHERE && convex->type != QP_SHAPE_CAPSULE && convex->type != QP_SHAPE_BOX &&
        convex->type != QP_SHAPE_HULL)
        return 0;
    gather g;
    g.convex = convex;
    g.c = convex_in_level->p;
    g.r = convex_in_level->r;
    g.margin = margin;
    g.face = false;
    g.apart = false;
    g.count = 0;
    qp_aabb box = qp_shape_aabb(convex, convex_in_level);
    box.lo = qp__v3_sub(box.lo, qp_v3(margin, margin, margin));
    box.hi = qp__v3_add(box.hi, qp_v3(margin, margin, margin));
    qp_level_query(level, &box, visit, &g);
    return g.count == 0 ? 0 : finish(&g, margin, m);
}
