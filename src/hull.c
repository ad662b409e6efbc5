/* SPDX-License-Identifier: MIT */
/* Convex hulls: building one from 4-64 points, and its mass properties.
 *
 * The build is exact. Points lie within QP_SHAPE_MAX_SIZE (2^23 raw) of the origin, so a
 * difference needs 25 bits, the normal of three points (a cross product) 50, and the side
 * of a fourth point (its dot product, 75 bits) is taken exactly from the normal split in
 * a high and a low part (orient). A plane through three points bounds the hull when no
 * point lies on its outer side; each such plane is found once, from its canonical triple
 * (the two lowest-numbered points on it and the lowest one off their line), so faces of
 * many coplanar points come out merged. A face's polygon is the 2D convex hull of the
 * points on its plane (gift wrap, exact, collinear points dropped), projected along the
 * normal's largest axis. Points that are no face's corner (inside, or in the middle of an
 * edge or face) are dropped. O(n^3) triples at most, most rejected by their first points:
 * a 64-point cloud builds in about a millisecond on a PC.
 *
 * Mass: the hull is cut into tetrahedra from its centre (the mean of its vertices), one
 * per triangle of each face's fan. Lengths are scaled to 17 bits first (exact powers of
 * two), so each tetrahedron's determinant fits 54 bits; volume, first and second moments
 * are summed in 64 bits (bounds at each sum), and the inertia comes out through one
 * 128-bit product. A cube hull's mass matches the box's within 1 LSB, its inertia within
 * 1 LSB or 2^-26 of the moment (the determinants keep their top 32 bits).
 */
#include <string.h>
#include "hull.h"
#include "geometry.h"
#include "math_inline.h"

typedef struct {
    int64_t x, y, z;
} v64;

static v64 cross_at(qp_vec3 o, qp_vec3 a, qp_vec3 b)
{
    int64_t ax = (int64_t)a.x - o.x, ay = (int64_t)a.y - o.y, az = (int64_t)a.z - o.z;
    int64_t bx = (int64_t)b.x - o.x, by = (int64_t)b.y - o.y, bz = (int64_t)b.z - o.z;
    v64 n = { ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx };
    return n;
}

static bool v64_zero(v64 n) { return n.x == 0 && n.y == 0 && n.z == 0; }

/* The sign of n . (p - o), exactly: |n| < 2^50 per component, |p - o| < 2^25. */
static int orient(v64 n, qp_vec3 p, qp_vec3 o)
{
    const int64_t d[3] = { (int64_t)p.x - o.x, (int64_t)p.y - o.y, (int64_t)p.z - o.z };
    const int64_t c[3] = { n.x, n.y, n.z };
    int64_t hi = 0, lo = 0;
    for (int k = 0; k < 3; k++) {
        hi += (c[k] >> 24) * d[k];
        lo += (c[k] & 0xFFFFFF) * d[k];
    }
    hi += lo >> 24;
    lo &= 0xFFFFFF;
    return hi > 0 ? 1 : hi < 0 ? -1 : lo > 0;
}

static bool same(qp_vec3 a, qp_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

qp_result qp_hull_check(const qp_vec3 *points, int count)
{
    if (!points || count < 0) return QP_ERR_PARAM;
    if (count > QP_HULL_MAX_POINTS) return QP_ERR_RANGE;
    for (int i = 0; i < count; i++)
        if (qp_v3_max_abs(points[i]) > QP_SHAPE_MAX_SIZE) return QP_ERR_RANGE;
    if (count < 4) return QP_ERR_PARAM;
    /* Two distinct points, a third off their line, a fourth off their plane. */
    int i1 = -1, i2 = -1;
    for (int i = 1; i < count && i1 < 0; i++)
        if (!same(points[i], points[0])) i1 = i;
    if (i1 < 0) return QP_ERR_PARAM;
    v64 n = { 0, 0, 0 };
    for (int i = 1; i < count && i2 < 0; i++) {
        n = cross_at(points[0], points[i1], points[i]);
        if (!v64_zero(n)) i2 = i;
    }
    if (i2 < 0) return QP_ERR_PARAM;
    for (int i = 1; i < count; i++)
        if (orient(n, points[i], points[0]) != 0) return QP_OK;
    return QP_ERR_PARAM;
}

/* The 2D cross product (a - o) x (b - o) in the plane of axes u, v. */
static int64_t cross2(const fix16_t *o, const fix16_t *a, const fix16_t *b, int u, int v)
{
    return ((int64_t)a[u] - o[u]) * ((int64_t)b[v] - o[v]) - ((int64_t)a[v] - o[v]) * ((int64_t)b[u] - o[u]);
}

static int64_t dist2_2d(const fix16_t *o, const fix16_t *a, int u, int v)
{
    int64_t du = (int64_t)a[u] - o[u], dv = (int64_t)a[v] - o[v];
    return du * du + dv * dv;
}

static const fix16_t *comps(const qp_vec3 *p) { return &p->x; }

/* The convex polygon of the points on[0..n) (indices into pts), counter-clockwise about
 * the outward normal nrm: written to out, returns its corner count. */
static int face_polygon(const qp_vec3 *pts, const uint8_t *on, int n, v64 nrm, uint8_t *out)
{
    const int64_t a[3] = { nrm.x < 0 ? -nrm.x : nrm.x, nrm.y < 0 ? -nrm.y : nrm.y, nrm.z < 0 ? -nrm.z : nrm.z };
    const int ax = a[0] >= a[1] && a[0] >= a[2] ? 0 : a[1] >= a[2] ? 1 : 2;
    const int u = (ax + 1) % 3, v = (ax + 2) % 3;
    const int sg = (ax == 0 ? nrm.x : ax == 1 ? nrm.y : nrm.z) > 0 ? 1 : -1;
    int start = 0;
    for (int i = 1; i < n; i++) {
        const fix16_t *p = comps(&pts[on[i]]), *s = comps(&pts[on[start]]);
        if (p[u] < s[u] || (p[u] == s[u] && p[v] < s[v])) start = i;
    }
    int count = 0, cur = start;
    do {
        out[count++] = on[cur];
        int cand = cur == 0 ? 1 : 0;
        const fix16_t *o = comps(&pts[on[cur]]);
        for (int r = 0; r < n; r++) {
            if (r == cur) continue;
            const fix16_t *pc = comps(&pts[on[cand]]), *pr = comps(&pts[on[r]]);
            int64_t c = sg * cross2(o, pc, pr, u, v);
            if (c < 0 || (c == 0 && dist2_2d(o, pr, u, v) > dist2_2d(o, pc, u, v))) cand = r;
        }
        cur = cand;
    } while (cur != start && count < n);
    return count;
}

/* n scaled into 31 bits and made a Q2.30 unit vector. */
static qp_vec3 unit_of(v64 n)
{
    while (n.x >= INT32_MAX / 2 || n.x <= -INT32_MAX / 2 || n.y >= INT32_MAX / 2 || n.y <= -INT32_MAX / 2 ||
           n.z >= INT32_MAX / 2 || n.z <= -INT32_MAX / 2) {
        n.x >>= 1;
        n.y >>= 1;
        n.z >>= 1;
    }
    qp_vec3 u = qp_v3(0, QP_Q30_ONE, 0);
    qp_v3_normalize_q30(qp_v3((fix16_t)n.x, (fix16_t)n.y, (fix16_t)n.z), &u);
    return u;
}

/* Is (i, j, k) the canonical triple of its plane, and the plane a face (every point on one
 * side)? Then *outward is its outward normal. */
static bool face_triple(const qp_vec3 *p, int n, int i, int j, int k, v64 *outward)
{
    v64 nrm = cross_at(p[i], p[j], p[k]);
    if (v64_zero(nrm)) return false;
    int side = 0;
    for (int m = 0; m < n; m++) {
        if (m == i || m == j || m == k) continue;
        int o = orient(nrm, p[m], p[i]);
        if (o == 0) {
            if (m < j) return false;
            if (m < k && !v64_zero(cross_at(p[i], p[j], p[m]))) return false;
        } else if (side == 0) {
            side = o;
        } else if (o != side) {
            return false;
        }
    }
    if (side > 0) {
        nrm.x = -nrm.x;
        nrm.y = -nrm.y;
        nrm.z = -nrm.z;
    }
    *outward = nrm;
    return true;
}

/* Where a walk over the faces of a point set stands: the next triple to try. */
typedef struct {
    int i, j, k;
} face_walk;

/* The next face of the distinct points p[0..n) (canonical triples in order): its polygon's
 * corners in poly, counter-clockwise about the outward normal *nrm; returns their count, 0
 * when there are no more faces. */
static int next_face(const qp_vec3 *p, int n, face_walk *fw, v64 *nrm, uint8_t *poly)
{
    uint8_t on[QP_HULL_MAX_POINTS];
    for (; fw->i < n; fw->i++, fw->j = fw->i + 1, fw->k = fw->j + 1)
        for (; fw->j < n; fw->j++, fw->k = fw->j + 1)
            for (; fw->k < n; fw->k++) {
                const int i = fw->i, j = fw->j, k = fw->k;
                if (!face_triple(p, n, i, j, k, nrm)) continue;
                int c = 0;
                for (int m = 0; m < n; m++)
                    if (m == i || m == j || m == k || orient(*nrm, p[m], p[i]) == 0) on[c++] = (uint8_t)m;
                fw->k++;
                return face_polygon(p, on, c, *nrm, poly);
            }
    return 0;
}

qp_result qp_hull_build(const qp_vec3 *points, int count, qp_hull *out)
{
    if (!out) return QP_ERR_PARAM;
    qp_result r = qp_hull_check(points, count);
    if (r != QP_OK) return r;
    qp_vec3 *p = out->verts;
    int n = 0;
    for (int i = 0; i < count; i++) {
        qp_vec3 q = points[i];
        bool dup = false;
        for (int j = 0; j < n && !dup; j++) dup = same(p[j], q);
        if (!dup) p[n++] = q;
    }
    uint8_t used[QP_HULL_MAX_POINTS] = { 0 }, poly[QP_HULL_MAX_POINTS];
    int faces = 0, fv = 0;
    face_walk fw = { 0, 1, 2 };
    v64 nrm;
    int c;
    while ((c = next_face(p, n, &fw, &nrm, poly)) > 0) {
        if (faces == QP_HULL_MAX_FACES || fv + c > 2 * QP_HULL_MAX_EDGES) return QP_ERR_PARAM;
        qp_hull_face *f = &out->faces[faces++];
        memcpy(&out->face_verts[fv], poly, (size_t)c);
        f->count = (uint8_t)c;
        f->first = (uint16_t)fv;
        f->normal = unit_of(nrm);
        f->pad = 0;
        for (int q = 0; q < c; q++) used[poly[q]] = 1;
        fv += c;
    }
    /* Keep the corners only, in their order. */
    uint8_t remap[QP_HULL_MAX_POINTS];
    int nv = 0;
    for (int i = 0; i < n; i++) {
        remap[i] = (uint8_t)nv;
        if (used[i]) p[nv++] = p[i];
    }
    for (int q = 0; q < fv; q++) out->face_verts[q] = remap[out->face_verts[q]];
    out->vert_count = (uint8_t)nv;
    out->face_count = (uint8_t)faces;
    /* Offsets: the largest n . v over the corners, so that every corner is inside. */
    for (int f = 0; f < faces; f++) {
        fix16_t d = INT32_MIN;
        for (int v = 0; v < nv; v++) {
            fix16_t x = qp__v3_dot_q30(p[v], out->faces[f].normal);
            if (x > d) d = x;
        }
        out->faces[f].offset = d;
    }
    /* Edges: each once from the face that runs it upwards, then the face running it back. */
    int ne = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < faces; f++) {
            const qp_hull_face *fc = &out->faces[f];
            for (int q = 0; q < fc->count; q++) {
                uint8_t a = out->face_verts[fc->first + q], b = out->face_verts[fc->first + (q + 1) % fc->count];
                if (pass == 0 && a < b) {
                    if (ne == QP_HULL_MAX_EDGES) return QP_ERR_PARAM;
                    qp_hull_edge e = { a, b, (uint8_t)f, 0xFF };
                    out->edges[ne++] = e;
                } else if (pass == 1 && a > b) {
                    for (int e = 0; e < ne; e++)
                        if (out->edges[e].v0 == b && out->edges[e].v1 == a) out->edges[e].f1 = (uint8_t)f;
                }
            }
        }
    out->edge_count = (uint16_t)ne;
    int64_t sx = 0, sy = 0, sz = 0;
    fix16_t radius = 0;
    uint32_t h = 2166136261u;
    for (int v = 0; v < nv; v++) {
        sx += p[v].x;
        sy += p[v].y;
        sz += p[v].z;
        fix16_t l = qp_v3_len(p[v]);
        if (l > radius) radius = l;
        const uint32_t u[3] = { (uint32_t)p[v].x, (uint32_t)p[v].y, (uint32_t)p[v].z };
        for (int k = 0; k < 3; k++) h = (h ^ u[k]) * 16777619u;
    }
    out->center = qp_v3((fix16_t)qp__div_round64(sx, nv), (fix16_t)qp__div_round64(sy, nv),
                        (fix16_t)qp__div_round64(sz, nv));
    out->radius = radius;
    out->checksum = h;
    fix16_t inner = INT32_MAX;
    for (int f = 0; f < faces; f++) {
        fix16_t d = qp__sat32((int64_t)out->faces[f].offset - qp__v3_dot_q30(out->center, out->faces[f].normal));
        if (d < inner) inner = d;
    }
    out->inner = inner > 0 ? inner : 1;
    /* Unused entries zeroed: a hull is copied and may be compared byte for byte. */
    memset(&out->verts[nv], 0, (size_t)(QP_HULL_MAX_POINTS - nv) * sizeof out->verts[0]);
    memset(&out->faces[faces], 0, (size_t)(QP_HULL_MAX_FACES - faces) * sizeof out->faces[0]);
    memset(&out->edges[ne], 0, (size_t)(QP_HULL_MAX_EDGES - ne) * sizeof out->edges[0]);
    memset(&out->face_verts[fv], 0, (size_t)(2 * QP_HULL_MAX_EDGES - fv));
    return QP_OK;
}

bool qp__hull_sound(const qp_hull *h)
{
    if (!h || h->vert_count < 4 || h->face_count < 4 || h->edge_count < 6 ||
        h->face_count > QP_HULL_MAX_FACES || h->edge_count > QP_HULL_MAX_EDGES || h->vert_count > QP_HULL_MAX_POINTS)
        return false;
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *fc = &h->faces[f];
        if (fc->count < 3 || fc->first + fc->count > 2 * QP_HULL_MAX_EDGES) return false;
        for (int q = 0; q < fc->count; q++)
            if (h->face_verts[fc->first + q] >= h->vert_count) return false;
    }
    for (int e = 0; e < h->edge_count; e++)
        if (h->edges[e].v0 >= h->vert_count || h->edges[e].v1 >= h->vert_count ||
            h->edges[e].f0 >= h->face_count || h->edges[e].f1 >= h->face_count)
            return false;
    for (int v = 0; v < h->vert_count; v++)
        if (qp_v3_max_abs(h->verts[v]) > QP_SHAPE_MAX_SIZE) return false;
    return true;
}

qp_result qp_make_hull(const qp_hull *hull, qp_shape *out)
{
    if (!out || !hull || !qp__hull_sound(hull)) return QP_ERR_PARAM;
    memset(out, 0, sizeof *out);
    out->type = QP_SHAPE_HULL;
    out->rotation = qp_quat_identity();
    out->hull = hull;
    return QP_OK;
}

qp__poly qp__hull_poly(const qp_hull *h)
{
    qp__poly p = { h->verts, h->faces, h->face_verts, h->edges, h->vert_count, h->face_count, h->edge_count,
                   h->center };
    return p;
}

qp_aabb qp__hull_aabb(const qp_hull *h, const qp_transform *xf)
{
    qp_aabb b = { xf->p, xf->p };
    for (int v = 0; v < h->vert_count; v++) {
        qp_vec3 w = qp_transform_point(xf, h->verts[v]);
        b.lo = qp_v3_min(b.lo, w);
        b.hi = qp_v3_max(b.hi, w);
    }
    return b;
}

/* ---- mass -------------------------------------------------------------------------- */

/* The sums of the tetrahedra from the centre (the mean of the corners), lengths
 * q = (v - centre) * 2^s with s chosen so that the largest |q| component is in [2^16, 2^17):
 * s0 = sum of det >> 22, s1 the first moments (det' * sum of corners), s2 the second
 * (det' * (sum q q^T + s s^T) >> 12). From the points alone (their faces walked twice, once
 * for the corners and once for the tetrahedra), so a scene line's points are checked without
 * a hull built anywhere. */
typedef struct {
    int s;
    qp_vec3 c;
    int64_t s0, s1[3], s2[3][3];
} hull_sums;

static int64_t scaled(int64_t x, int s) { return s >= 0 ? x * ((int64_t)1 << s) : x >> -s; }

/* The faces of points p[0..n), in the order the build stores them: read from the built hull
 * h when there is one (its corners are p, in order), else walked. */
typedef struct {
    const qp_vec3 *p;
    int n;
    const qp_hull *h;
    face_walk fw;
    int f;
} face_source;

static int source_next(face_source *s, uint8_t *poly)
{
    if (s->h) {
        if (s->f >= s->h->face_count) return 0;
        const qp_hull_face *fc = &s->h->faces[s->f++];
        memcpy(poly, &s->h->face_verts[fc->first], fc->count);
        return fc->count;
    }
    v64 nrm;
    return next_face(s->p, s->n, &s->fw, &nrm, poly);
}

static void hull_sum(const qp_vec3 *p, int n, const qp_hull *built, hull_sums *o)
{
    uint8_t poly[QP_HULL_MAX_POINTS], used[QP_HULL_MAX_POINTS] = { 0 };
    face_source src = { p, n, built, { 0, 1, 2 }, 0 };
    int c;
    while ((c = source_next(&src, poly)) > 0)
        for (int q = 0; q < c; q++) used[poly[q]] = 1;
    int64_t sum[3] = { 0, 0, 0 }, corners = 0;
    for (int v = 0; v < n; v++)
        if (used[v]) {
            sum[0] += p[v].x;
            sum[1] += p[v].y;
            sum[2] += p[v].z;
            corners++;
        }
    memset(o, 0, sizeof *o);
    if (corners == 0) return;
    const fix16_t cc[3] = { (fix16_t)qp__div_round64(sum[0], corners), (fix16_t)qp__div_round64(sum[1], corners),
                            (fix16_t)qp__div_round64(sum[2], corners) };
    o->c = qp_v3(cc[0], cc[1], cc[2]);
    int64_t mx = 1;
    for (int v = 0; v < n; v++) {
        if (!used[v]) continue;
        const int64_t d[3] = { (int64_t)p[v].x - cc[0], (int64_t)p[v].y - cc[1], (int64_t)p[v].z - cc[2] };
        for (int k = 0; k < 3; k++) {
            int64_t a = d[k] < 0 ? -d[k] : d[k];
            if (a > mx) mx = a;
        }
    }
    int s = 0;
    while ((mx << s) < ((int64_t)1 << 16)) s++;
    while (s <= 0 && (mx >> -s) >= ((int64_t)1 << 17)) s--;
    o->s = s;
    face_source again = { p, n, built, { 0, 1, 2 }, 0 };
    while ((c = source_next(&again, poly)) > 0) {
        int64_t q[3][3];
        for (int a = 0; a < 3; a++) q[0][a] = scaled((int64_t)(&p[poly[0]].x)[a] - cc[a], s);
        for (int t = 1; t + 1 < c; t++) {
            for (int e = 1; e < 3; e++)
                for (int a = 0; a < 3; a++) q[e][a] = scaled((int64_t)(&p[poly[t + e - 1]].x)[a] - cc[a], s);
            const int64_t det = q[0][0] * (q[1][1] * q[2][2] - q[1][2] * q[2][1]) -
                                q[0][1] * (q[1][0] * q[2][2] - q[1][2] * q[2][0]) +
                                q[0][2] * (q[1][0] * q[2][1] - q[1][1] * q[2][0]);
            const int64_t d = qp__shift_round64(det, 22);
            int64_t sm[3];
            for (int a = 0; a < 3; a++) sm[a] = q[0][a] + q[1][a] + q[2][a];
            o->s0 += d;
            for (int a = 0; a < 3; a++) {
                o->s1[a] += d * sm[a];
                for (int b = a; b < 3; b++) {
                    int64_t qq = q[0][a] * q[0][b] + q[1][a] * q[1][b] + q[2][a] * q[2][b] + sm[a] * sm[b];
                    o->s2[a][b] += d * qp__shift_round64(qq, 12);
                }
            }
        }
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < a; b++) o->s2[a][b] = o->s2[b][a];
}

bool qp__hull_volume_q46(const qp_vec3 *p, int n, const qp_hull *built, int k, uint64_t *out)
{
    hull_sums hs;
    hull_sum(p, n, built, &hs);
    if (hs.s0 <= 0) return false;
    /* V = s0 2^22 / 6 in (2^-s raw)^3; raw^3 = 2^48 m^3; Q46 with lengths / 2^k. */
    const int e = 20 - 3 * hs.s - 3 * k;
    const uint64_t v = (uint64_t)hs.s0;
    if (e >= 0) {
        if (e > 58 || (v >> (60 - e)) != 0) return false;
        *out = ((v << e) + 3) / 6;
    } else {
        if (-e > 60) { *out = 0; return true; }
        const uint64_t den = (uint64_t)6 << -e;
        *out = (v + den / 2) / den;
    }
    return true;
}

/* round(|a| * b / 2^n) with a's sign, b >= 0, 1 <= n <= 63: a 128-bit product. */
static int64_t mul_shift(int64_t a, uint64_t b, int n)
{
    if (n > 63) return 0;
    const bool neg = a < 0;
    const uint64_t ua = neg ? 0u - (uint64_t)a : (uint64_t)a;
    const uint64_t a0 = ua & 0xFFFFFFFFu, a1 = ua >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    uint64_t lo = (p00 & 0xFFFFFFFFu) | (mid << 32);
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    const uint64_t lo2 = lo + ((uint64_t)1 << (n - 1));
    if (lo2 < lo) hi++;
    uint64_t r = (lo2 >> n) | (hi << (64 - n));
    if ((hi >> n) != 0 || r > (uint64_t)INT32_MAX) r = INT32_MAX;
    return neg ? -(int64_t)r : (int64_t)r;
}

/* round(v 2^12 / d) for d > 0 without forming v 2^12 (v below 2^61, d below 2^40). */
static int64_t times_4096_over(int64_t v, int64_t d)
{
    const int64_t q = v / d, r = v % d;
    return q * 4096 + qp__div_round64(r * 4096, d);
}

void qp__hull_mass_data(const qp_vec3 *p, int n, const qp_hull *built, const qp_shape *s, fix16_t mass,
                        qp_mass_data *out)
{
    hull_sums hs;
    hull_sum(p, n, built, &hs);
    const int64_t s0 = hs.s0 > 0 ? hs.s0 : 1;
    /* Centroid from the centre (2^-s raw), then the second moments about it per unit
     * volume: M = s2 2^12 / (20 s0) - c c^T, in (2^-s raw)^2, each below 2^36. */
    int64_t c[3], mm[3][3];
    for (int a = 0; a < 3; a++) c[a] = qp__div_round64(hs.s1[a], 4 * s0);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            mm[a][b] = times_4096_over(hs.s2[a][b], 20 * s0) - c[a] * c[b];
    const int64_t tr = mm[0][0] + mm[1][1] + mm[2][2];
    /* I = mass (tr M - M), from (2^-s raw)^2 = 2^-(32 + 2s) m^2 to Q16.16. */
    qp_mat3 local;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            int64_t j = (a == b ? tr : 0) - mm[a][b];
            local.m[a][b] = (fix16_t)mul_shift(j, (uint64_t)mass, 32 + 2 * hs.s);
        }
    fix16_t cv[3];
    const fix16_t cen[3] = { hs.c.x, hs.c.y, hs.c.z };
    for (int a = 0; a < 3; a++)
        cv[a] = qp__sat32((int64_t)cen[a] + (hs.s >= 0 ? qp__div_round64(c[a], (int64_t)1 << hs.s)
                                                        : c[a] * ((int64_t)1 << -hs.s)));
    qp_vec3 cc = qp_v3(cv[0], cv[1], cv[2]);
    qp_rot3 rot = qp_quat_to_rot3(s->rotation);
    out->mass = mass;
    out->center = qp_v3_add(s->offset, qp_rot3_mul_v3(&rot, cc));
    out->inertia = qp_mat3_rotate(&rot, &local);
}
