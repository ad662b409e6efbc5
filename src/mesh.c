/* SPDX-License-Identifier: MIT */
/* Static triangle meshes: checks, edge adjacency, the bounding volume hierarchy,
 * queries and ray casts (docs/guide.md, "Level geometry").
 *
 * The tree is built top down into caller memory with an explicit stack: each node's
 * triangles are sorted by their centroids along the longest axis of the node's box
 * (integer keys, ties by triangle index: a total order, so every target builds the
 * same tree), and split so that the left child takes a whole number of leaves. Then
 * there are exactly ceil(n / 4) leaves and 2 ceil(n / 4) - 1 nodes, and the depth is
 * ceil(log2(n / 4)) + 1, far below the stacks' bound.
 *
 * Edge adjacency comes from the tree itself: each edge's box is looked up, and a
 * triangle that has the same two corners (by position) is its neighbour. An edge
 * with two neighbours is non-manifold and refused. An edge is active when the two
 * triangles meet at a convex angle of more than about 5 degrees, or has no
 * neighbour; contacts on inactive edges take the face normal (collide_triangle.c).
 */
#include "level.h"
#include "geometry.h"

#define STACK_DEPTH 64

/* ---- shared triangle helpers ------------------------------------------------ */

uint32_t qp__level_hash(uint32_t h, uint32_t v)
{
    for (int k = 0; k < 4; k++) {
        h ^= (v >> (8 * k)) & 0xFFu;
        h *= 16777619u;
    }
    return h;
}

bool qp__tri_normal(qp_vec3 a, qp_vec3 b, qp_vec3 c, qp_vec3 *n30)
{
    int64_t e1x = (int64_t)b.x - a.x, e1y = (int64_t)b.y - a.y, e1z = (int64_t)b.z - a.z;
    int64_t e2x = (int64_t)c.x - a.x, e2y = (int64_t)c.y - a.y, e2z = (int64_t)c.z - a.z;
    int64_t n[3] = { e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x };
    int64_t big = 0;
    for (int k = 0; k < 3; k++) {
        int64_t m = n[k] < 0 ? -n[k] : n[k];
        if (m > big) big = m;
    }
    if (big < QP__LEVEL_MIN_CROSS) return false;
    int s = 0;
    while ((big >> s) >= ((int64_t)1 << 29)) s++;
    /* An arithmetic shift of each component: the direction is kept to 29 bits. */
    qp_vec3 v = qp_v3((fix16_t)(n[0] >> s), (fix16_t)(n[1] >> s), (fix16_t)(n[2] >> s));
    return qp_v3_normalize_q30(v, n30);
}

static int32_t dot_q30(qp_vec3 a, qp_vec3 b)
{
    return (int32_t)(((int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z) >> 30);
}

bool qp__edge_active(qp_vec3 n, qp_vec3 a, qp_vec3 b, qp_vec3 opp)
{
    qp_vec3 n2;
    if (!qp__tri_normal(b, a, opp, &n2)) return true;
    /* Convex: the neighbour's far corner lies below this triangle's plane. */
    int64_t side = (int64_t)(opp.x - a.x) * n.x + (int64_t)(opp.y - a.y) * n.y + (int64_t)(opp.z - a.z) * n.z;
    return side < 0 && dot_q30(n, n2) < QP__LEVEL_FLAT_COS;
}

/* Edge function of p against edge a-b in the plane that drops axis `drop`, signed so that
 * the inside is positive for a front normal whose dropped component is positive. */
static int64_t edge_fn(qp_vec3 a, qp_vec3 b, qp_vec3 p, int drop, int64_t *tol)
{
    const fix16_t av[3] = { a.x, a.y, a.z }, bv[3] = { b.x, b.y, b.z }, pv[3] = { p.x, p.y, p.z };
    int i = (drop + 1) % 3, j = (drop + 2) % 3;
    int64_t ex = (int64_t)bv[i] - av[i], ey = (int64_t)bv[j] - av[j];
    int64_t px = (int64_t)pv[i] - av[i], py = (int64_t)pv[j] - av[j];
    *tol = ((ex < 0 ? -ex : ex) + (ey < 0 ? -ey : ey)) * 2;   /* about 2 units of distance */
    return ex * py - ey * px;
}

bool qp_raycast_triangle(const qp_level_triangle *t, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *n)
{
    qp_vec3 nn;
    if (!qp__tri_normal(t->v[0], t->v[1], t->v[2], &nn)) return false;
    int64_t denom = ((int64_t)u.x * nn.x + (int64_t)u.y * nn.y + (int64_t)u.z * nn.z) >> 30;   /* Q2.30 */
    if (denom > -(1 << 6)) return false;   /* parallel or from behind: the front only */
    int64_t num = ((int64_t)t->v[0].x - o.x) * nn.x + ((int64_t)t->v[0].y - o.y) * nn.y +
                  ((int64_t)t->v[0].z - o.z) * nn.z;   /* Q46: the plane's height below o */
    if (num > 0) return false;             /* o behind the plane */
    int64_t d = qp__div_round64(num, denom);   /* Q16 */
    if (d > len) return false;
    qp_vec3 p = qp__v3_mad_q30(o, u, (fix16_t)d);
    const int32_t nv[3] = { nn.x, nn.y, nn.z };
    int drop = 0;
    for (int k = 1; k < 3; k++)
        if ((nv[k] < 0 ? -(int64_t)nv[k] : nv[k]) > (nv[drop] < 0 ? -(int64_t)nv[drop] : nv[drop])) drop = k;
    const bool flip = nv[drop] < 0;
    for (int k = 0; k < 3; k++) {
        int64_t tol, e = edge_fn(t->v[k], t->v[(k + 1) % 3], p, drop, &tol);
        if (flip) e = -e;
        if (e < -tol) return false;
    }
    *dist = (fix16_t)d;
    *n = nn;
    return true;
}

/* ---- build ---------------------------------------------------------------------- */

unsigned long qp_mesh_memory_size(uint32_t n)
{
    return QP_MESH_MEMORY_SIZE(n);
}

static qp_vec3 corner(const qp_mesh *m, uint32_t t, int k)
{
    return m->vertices[m->indices[3 * t + (uint32_t)k]];
}

static void tri_box(const qp_mesh *m, uint32_t t, qp_aabb *b)
{
    qp_vec3 a = corner(m, t, 0), c1 = corner(m, t, 1), c2 = corner(m, t, 2);
    b->lo = qp_v3_min(a, qp_v3_min(c1, c2));
    b->hi = qp_v3_max(a, qp_v3_max(c1, c2));
}

static void grow(qp_aabb *b, const qp_aabb *t)
{
    b->lo = qp_v3_min(b->lo, t->lo);
    b->hi = qp_v3_max(b->hi, t->hi);
}

/* Three times triangle t's centroid along axis k (exact in 64 bits). */
static int64_t centroid_key(const qp_mesh *m, uint32_t t, int k)
{
    int64_t s = 0;
    for (int c = 0; c < 3; c++) {
        qp_vec3 v = corner(m, t, c);
        s += k == 0 ? v.x : k == 1 ? v.y : v.z;
    }
    return s;
}

static bool key_less(const qp_mesh *m, uint32_t a, uint32_t b, int axis)
{
    int64_t ka = centroid_key(m, a, axis), kb = centroid_key(m, b, axis);
    return ka < kb || (ka == kb && a < b);
}

/* Heap sort of order[0 .. n) by (centroid along axis, index): in place, no recursion. */
static void sort_range(const qp_mesh *m, uint32_t *order, uint32_t n, int axis)
{
    for (uint32_t end = n; end > 1; end--) {
        /* Build the heap once (end == n), then take the largest to the end each round. */
        if (end == n) {
            for (uint32_t i = n / 2; i-- > 0;) {
                uint32_t r = i;
                for (;;) {
                    uint32_t c = 2 * r + 1;
                    if (c >= n) break;
                    if (c + 1 < n && key_less(m, order[c], order[c + 1], axis)) c++;
                    if (!key_less(m, order[r], order[c], axis)) break;
                    uint32_t t = order[r]; order[r] = order[c]; order[c] = t;
                    r = c;
                }
            }
        }
        uint32_t t = order[0]; order[0] = order[end - 1]; order[end - 1] = t;
        uint32_t r = 0, lim = end - 1;
        for (;;) {
            uint32_t c = 2 * r + 1;
            if (c >= lim) break;
            if (c + 1 < lim && key_less(m, order[c], order[c + 1], axis)) c++;
            if (!key_less(m, order[r], order[c], axis)) break;
            uint32_t s = order[r]; order[r] = order[c]; order[c] = s;
            r = c;
        }
    }
}

typedef struct {
    uint32_t first, count, parent;
    bool right;
} build_item;

static void build_tree(qp_mesh *m)
{
    build_item stack[STACK_DEPTH];
    int top = 0;
    stack[top++] = (build_item){ 0, m->triangle_count, 0, false };
    m->node_count = 0;
    while (top > 0) {
        build_item it = stack[--top];
        uint32_t idx = m->node_count++;
        if (it.right) m->nodes[it.parent].first = idx;
        qp_mesh_node *nd = &m->nodes[idx];
        qp_aabb box, tb;
        tri_box(m, m->order[it.first], &box);
        for (uint32_t i = 1; i < it.count; i++) {
            tri_box(m, m->order[it.first + i], &tb);
            grow(&box, &tb);
        }
        nd->box = box;
        if (it.count <= QP_MESH_LEAF_TRIANGLES) {
            nd->first = it.first;
            nd->count = it.count;
            continue;
        }
        int64_t ext[3] = { (int64_t)box.hi.x - box.lo.x, (int64_t)box.hi.y - box.lo.y, (int64_t)box.hi.z - box.lo.z };
        int axis = ext[1] > ext[0] ? 1 : 0;
        if (ext[2] > ext[axis]) axis = 2;
        sort_range(m, m->order + it.first, it.count, axis);
        uint32_t leaves = (it.count + QP_MESH_LEAF_TRIANGLES - 1) / QP_MESH_LEAF_TRIANGLES;
        uint32_t left = (leaves + 1) / 2 * QP_MESH_LEAF_TRIANGLES;
        nd->count = 0;
        nd->first = 0;   /* set when the right child is made */
        stack[top++] = (build_item){ it.first + left, it.count - left, idx, true };
        stack[top++] = (build_item){ it.first, left, idx, false };
    }
}

/* ---- queries ------------------------------------------------------------------------ */

typedef bool (*node_test)(const qp_aabb *box, void *ctx);
typedef bool (*tri_visit)(uint32_t tri, void *ctx);   /* true: stop */

/* Depth-first walk, left child first: a fixed order. Returns the triangles visited. */
static uint32_t walk(const qp_mesh *m, node_test test, tri_visit visit, void *ctx)
{
    uint32_t stack[STACK_DEPTH];
    int top = 0;
    uint32_t seen = 0;
    if (m->node_count == 0) return 0;
    stack[top++] = 0;
    while (top > 0) {
        const qp_mesh_node *nd = &m->nodes[stack[--top]];
        if (!test(&nd->box, ctx)) continue;
        if (nd->count > 0) {
            for (uint32_t i = 0; i < nd->count; i++) {
                seen++;
                if (visit(m->order[nd->first + i], ctx)) return seen;
            }
            continue;
        }
        uint32_t self = (uint32_t)(nd - m->nodes);
        stack[top++] = nd->first;   /* right, after the left subtree */
        stack[top++] = self + 1;
    }
    return seen;
}

static void fill_triangle(const qp_mesh *m, uint32_t t, qp_level_triangle *out)
{
    for (int k = 0; k < 3; k++) out->v[k] = corner(m, t, k);
    out->index = t;
    out->active = m->edge_flags ? m->edge_flags[t] : 7;
}

/* ---- adjacency ----------------------------------------------------------------------- */

typedef struct {
    const qp_mesh *m;
    qp_aabb box;
    uint32_t self;
    qp_vec3 a, b;
    int found;
    qp_vec3 opp;
} edge_search;

static bool box_test(const qp_aabb *box, void *ctx)
{
    return qp__aabb_overlap(box, &((const edge_search *)ctx)->box);
}

static bool edge_visit(uint32_t t, void *ctx)
{
    edge_search *s = ctx;
    if (t == s->self) return false;
    for (int k = 0; k < 3; k++) {
        qp_vec3 p = corner(s->m, t, k), q = corner(s->m, t, (k + 1) % 3);
        if ((qp_v3_eq(p, s->b) && qp_v3_eq(q, s->a)) || (qp_v3_eq(p, s->a) && qp_v3_eq(q, s->b))) {
            s->found++;
            s->opp = corner(s->m, t, (k + 2) % 3);
            return s->found > 1;
        }
    }
    return false;
}

/* Edge flags of every triangle; false (with *bad) at a non-manifold edge. */
static bool find_edges(qp_mesh *m, uint8_t *flags, long *bad)
{
    for (uint32_t t = 0; t < m->triangle_count; t++) {
        qp_vec3 n;
        (void)qp__tri_normal(corner(m, t, 0), corner(m, t, 1), corner(m, t, 2), &n);   /* checked before */
        uint8_t f = 0;
        for (int k = 0; k < 3; k++) {
            edge_search s;
            s.m = m;
            s.self = t;
            s.a = corner(m, t, k);
            s.b = corner(m, t, (k + 1) % 3);
            s.box.lo = qp_v3_min(s.a, s.b);
            s.box.hi = qp_v3_max(s.a, s.b);
            s.found = 0;
            s.opp = qp_v3_zero();
            walk(m, box_test, edge_visit, &s);
            if (s.found > 1) {
                *bad = (long)t;
                return false;
            }
            if (s.found == 0 || qp__edge_active(n, s.a, s.b, s.opp)) f |= (uint8_t)(1u << k);
        }
        flags[t] = f;
    }
    return true;
}

qp_result qp_mesh_build(qp_mesh *out, const qp_vec3 *vertices, uint32_t vertex_count, const uint32_t *indices,
                        uint32_t triangle_count, void *memory, unsigned long size, long *bad_triangle)
{
    long dummy;
    if (!bad_triangle) bad_triangle = &dummy;
    *bad_triangle = -1;
    if (!out || !vertices || !indices || !memory || triangle_count == 0 || vertex_count < 3) return QP_ERR_PARAM;
    if (triangle_count > QP_MESH_MAX_TRIANGLES) return QP_ERR_RANGE;
    if (size < qp_mesh_memory_size(triangle_count) || ((uintptr_t)memory & 3u) != 0) return QP_ERR_BUFFER;
    for (uint32_t v = 0; v < vertex_count; v++)
        if (qp_v3_max_abs(vertices[v]) > QP_LEVEL_MAX_COORD) return QP_ERR_RANGE;
    qp_mesh m;
    m.vertices = vertices;
    m.indices = indices;
    m.vertex_count = vertex_count;
    m.triangle_count = triangle_count;
    uint32_t h = 2166136261u;
    h = qp__level_hash(h, vertex_count);
    h = qp__level_hash(h, triangle_count);
    for (uint32_t t = 0; t < triangle_count; t++) {
        for (int k = 0; k < 3; k++)
            if (indices[3 * t + (uint32_t)k] >= vertex_count) {
                *bad_triangle = (long)t;
                return QP_ERR_PARAM;
            }
        qp_vec3 n;
        if (!qp__tri_normal(corner(&m, t, 0), corner(&m, t, 1), corner(&m, t, 2), &n)) {
            *bad_triangle = (long)t;
            return QP_ERR_PARAM;
        }
        for (int k = 0; k < 3; k++) {
            qp_vec3 v = corner(&m, t, k);
            h = qp__level_hash(qp__level_hash(qp__level_hash(h, (uint32_t)v.x), (uint32_t)v.y), (uint32_t)v.z);
        }
    }
    uint32_t leaves = (triangle_count + QP_MESH_LEAF_TRIANGLES - 1) / QP_MESH_LEAF_TRIANGLES;
    unsigned char *mem = memory;
    m.nodes = (qp_mesh_node *)(void *)mem;
    m.order = (uint32_t *)(void *)(mem + (2ul * leaves + 1) * sizeof(qp_mesh_node));
    uint8_t *flags = (uint8_t *)(m.order + triangle_count);
    for (uint32_t t = 0; t < triangle_count; t++) m.order[t] = t;
    m.edge_flags = 0;
    build_tree(&m);
    if (!find_edges(&m, flags, bad_triangle)) return QP_ERR_PARAM;
    m.edge_flags = flags;
    m.bounds = m.nodes[0].box;
    m.checksum = h;
    *out = m;
    return QP_OK;
}

/* ---- level queries and ray casts --------------------------------------------------- */

typedef struct {
    const qp_mesh *m;
    qp_aabb box;
    qp_level_visit visit;
    void *ctx;
} query_ctx;

static bool query_box(const qp_aabb *box, void *ctx)
{
    return qp__aabb_overlap(box, &((const query_ctx *)ctx)->box);
}

static bool query_visit(uint32_t t, void *ctx)
{
    query_ctx *q = ctx;
    qp_level_triangle tri;
    fill_triangle(q->m, t, &tri);
    qp_aabb tb;
    tri_box(q->m, t, &tb);
    if (!qp__aabb_overlap(&tb, &q->box)) return false;
    return q->visit(q->ctx, &tri) != 0;
}

uint32_t qp_level_query(const qp_shape *level, const qp_aabb *box, qp_level_visit visit, void *ctx)
{
    if (!level || !box || !visit) return 0;
    if (level->type == QP_SHAPE_HEIGHTFIELD) return qp__heightfield_query(level->heightfield, box, visit, ctx);
    if (level->type != QP_SHAPE_MESH || !level->mesh) return 0;
    query_ctx q = { level->mesh, *box, visit, ctx };
    return walk(level->mesh, query_box, query_visit, &q);
}

typedef struct {
    const qp_mesh *m;
    qp_vec3 o, u;
    fix16_t len;
    bool hit;
    fix16_t dist;
    uint32_t tri;
    qp_vec3 n;
} ray_ctx;

/* Entry and exit of the ray along one axis, rounded outwards; false when it misses the slab. */
static bool slab(fix16_t lo, fix16_t hi, fix16_t o, int32_t u, int64_t *t0, int64_t *t1)
{
    const int64_t pad = 4;   /* units: the triangle test's own tolerance is inside this */
    int64_t l = (int64_t)lo - pad - o, h = (int64_t)hi + pad - o;
    if (u == 0) {
        *t0 = INT64_MIN / 4;
        *t1 = INT64_MAX / 4;
        return l <= 0 && h >= 0;
    }
    /* t = d / u in Q16 with u in Q2.30: d * 2^30 / u, |d| < 2^31, so no overflow. */
    int64_t a = (l * ((int64_t)1 << 30)) / u, b = (h * ((int64_t)1 << 30)) / u;
    if (a > b) {
        int64_t s = a; a = b; b = s;
    }
    *t0 = a - 2;
    *t1 = b + 2;
    return true;
}

static bool ray_box(const qp_aabb *box, void *ctx)
{
    const ray_ctx *r = ctx;
    int64_t lo = 0, hi = r->hit ? r->dist : r->len, t0, t1;
    if (!slab(box->lo.x, box->hi.x, r->o.x, r->u.x, &t0, &t1)) return false;
    lo = t0 > lo ? t0 : lo, hi = t1 < hi ? t1 : hi;
    if (!slab(box->lo.y, box->hi.y, r->o.y, r->u.y, &t0, &t1)) return false;
    lo = t0 > lo ? t0 : lo, hi = t1 < hi ? t1 : hi;
    if (!slab(box->lo.z, box->hi.z, r->o.z, r->u.z, &t0, &t1)) return false;
    lo = t0 > lo ? t0 : lo, hi = t1 < hi ? t1 : hi;
    return lo <= hi;
}

static bool ray_visit(uint32_t t, void *ctx)
{
    ray_ctx *r = ctx;
    qp_level_triangle tri;
    fill_triangle(r->m, t, &tri);
    fix16_t d;
    qp_vec3 n;
    if (!qp_raycast_triangle(&tri, r->o, r->u, r->len, &d, &n)) return false;
    if (!r->hit || d < r->dist || (d == r->dist && t < r->tri)) {
        r->hit = true;
        r->dist = d;
        r->tri = t;
        r->n = n;
    }
    return false;
}

bool qp_level_raycast(const qp_shape *level, qp_vec3 o, qp_vec3 u, fix16_t len, fix16_t *dist, qp_vec3 *normal,
                      uint32_t *tri_index)
{
    if (!level || !dist || !normal || !tri_index) return false;
    if (level->type == QP_SHAPE_HEIGHTFIELD)
        return qp__heightfield_raycast(level->heightfield, o, u, len, dist, normal, tri_index);
    if (level->type != QP_SHAPE_MESH || !level->mesh) return false;
    ray_ctx r = { level->mesh, o, u, len, false, 0, 0, qp_v3_zero() };
    walk(level->mesh, ray_box, ray_visit, &r);
    if (!r.hit) return false;
    *dist = r.dist;
    *normal = r.n;
    *tri_index = r.tri;
    return true;
}

qp_result qp_make_mesh_shape(const qp_mesh *mesh, qp_shape *out)
{
    if (!mesh || !out || mesh->node_count == 0 || !mesh->edge_flags) return QP_ERR_PARAM;
    out->type = QP_SHAPE_MESH;
    out->offset = qp_v3_zero();
    out->rotation = qp_quat_identity();
    out->half = qp_v3_zero();
    out->half_height = 0;
    out->mesh = mesh;
    return QP_OK;
}
