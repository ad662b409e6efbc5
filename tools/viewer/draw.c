/* SPDX-License-Identifier: MIT */
/* draw - a world into a raster image (see draw.h).
 *
 * Every shape becomes flat-shaded triangles (boxes 12, spheres and capsules a latitude-
 * longitude mesh whose alternate quarters are darker, so rolling shows); planes become a
 * checkered square around the bodies; meshes and heightfields their own triangles, front
 * sides only (heightfield cells checkered). Opaque bodies are drawn first with the depth buffer;
 * sleepers then, far to near, blended at half opacity without writing depth (as in the
 * sleep demo of Kenwright's rigid-body tutorial). Triangles are clipped at a near plane.
 */
#include "draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/hash.h"
#include "qphys/joint.h"
#include "qphys/mesh.h"

#define NEAR 0.05f

typedef struct {
    float x, y, z;
} v3;

static v3 V(float x, float y, float z) { v3 r = { x, y, z }; return r; }
static v3 add(v3 a, v3 b) { return V(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3 sub(v3 a, v3 b) { return V(a.x - b.x, a.y - b.y, a.z - b.z); }
static v3 scale(v3 a, float s) { return V(a.x * s, a.y * s, a.z * s); }
static float dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 cross(v3 a, v3 b) { return V(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static v3 norm(v3 a)
{
    float l = sqrtf(dot(a, a));
    return l > 1e-12f ? scale(a, 1.0f / l) : V(0, 1, 0);
}
static float fx(fix16_t v) { return (float)v / 65536.0f; }
static v3 vfx(qp_vec3 v) { return V(fx(v.x), fx(v.y), fx(v.z)); }
static v3 vq30(qp_vec3 v) { return V((float)v.x / 1073741824.0f, (float)v.y / 1073741824.0f, (float)v.z / 1073741824.0f); }

/* A rotation matrix, rows m[0..2]. */
typedef struct {
    v3 r[3];
} m3;

static m3 quat_m3(qp_quat q)
{
    float w = q.w / 1073741824.0f, x = q.x / 1073741824.0f, y = q.y / 1073741824.0f, z = q.z / 1073741824.0f;
    m3 m;
    m.r[0] = V(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y));
    m.r[1] = V(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x));
    m.r[2] = V(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y));
    return m;
}
static v3 mul(const m3 *m, v3 v) { return V(dot(m->r[0], v), dot(m->r[1], v), dot(m->r[2], v)); }
static m3 mmul(const m3 *a, const m3 *b)
{
    m3 r;
    for (int i = 0; i < 3; i++) {
        v3 row = a->r[i];
        r.r[i] = V(row.x * b->r[0].x + row.y * b->r[1].x + row.z * b->r[2].x,
                   row.x * b->r[0].y + row.y * b->r[1].y + row.z * b->r[2].y,
                   row.x * b->r[0].z + row.y * b->r[1].z + row.z * b->r[2].z);
    }
    return r;
}

/* ---- camera ------------------------------------------------------------------------- */

const char *vw_color_mode_name(vw_color_mode m)
{
    static const char *names[] = { "state", "islands", "levels" };
    return m < VW_COLOR_MODES ? names[m] : "?";
}

void vw_camera_default(vw_camera *c)
{
    memset(c, 0, sizeof *c);
    c->yaw = 0.45f;
    c->pitch = 0.38f;
    c->dist = 20.0f;
    c->fovy = 0.75f;
}

typedef struct {
    v3 eye, right, up, fwd;
    float f, cx, cy;   /* focal length in pixels, centre */
} view;

static view make_view(const vw_camera *c, int w, int h)
{
    view v;
    v3 t = V(c->target[0], c->target[1], c->target[2]);
    v3 back = V(cosf(c->pitch) * sinf(c->yaw), sinf(c->pitch), cosf(c->pitch) * cosf(c->yaw));
    v.eye = add(t, scale(back, c->dist));
    v.fwd = scale(back, -1);
    v.right = norm(cross(v.fwd, V(0, 1, 0)));
    v.up = cross(v.right, v.fwd);
    v.f = (float)h * 0.5f / tanf(c->fovy * 0.5f);
    v.cx = (float)w * 0.5f;
    v.cy = (float)h * 0.5f;
    return v;
}

void vw_camera_eye(const vw_camera *c, float eye[3])
{
    view v = make_view(c, 2, 2);
    eye[0] = v.eye.x;
    eye[1] = v.eye.y;
    eye[2] = v.eye.z;
}

void vw_camera_fit(vw_camera *c, const float lo[3], const float hi[3], float aspect)
{
    for (int k = 0; k < 3; k++) c->target[k] = 0.5f * (lo[k] + hi[k]);
    view v = make_view(c, 2, 2);
    /* A margin, wider at the top where the text is. */
    float ty = tanf(c->fovy * 0.5f) * 0.84f, tx = tanf(c->fovy * 0.5f) * aspect * 0.92f;
    float d = 1.0f;
    for (int i = 0; i < 8; i++) {
        v3 p = V(i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]);
        v3 o = sub(p, V(c->target[0], c->target[1], c->target[2]));
        float x = fabsf(dot(o, v.right)), y = fabsf(dot(o, v.up)), z = dot(o, v.fwd);
        /* The corner is inside the picture when |x| <= (d + z) tx and |y| <= (d + z) ty. */
        d = fmaxf(d, fmaxf(x / tx - z, y / ty - z));
    }
    c->dist = d + NEAR;
}

void vw_camera_ray(const vw_camera *c, int w, int h, float sx, float sy, float origin[3], float dir[3])
{
    view v = make_view(c, w, h);
    v3 d = norm(add(v.fwd, add(scale(v.right, (sx - v.cx) / v.f), scale(v.up, (v.cy - sy) / v.f))));
    origin[0] = v.eye.x;
    origin[1] = v.eye.y;
    origin[2] = v.eye.z;
    dir[0] = d.x;
    dir[1] = d.y;
    dir[2] = d.z;
}

/* ---- bounds -------------------------------------------------------------------------- */

/* A body's centre of mass, from the world or from poses (slot-indexed) when given. */
static v3 body_center(const qp_world *w, qp_body_id id, const vw_pose *poses)
{
    return vfx(poses ? poses[id.index].center : qp_body_center(w, id));
}

/* A shape's world pose: centre and rotation. */
static void shape_pose(const qp_world *w, qp_body_id id, const qp_shape *s, const vw_pose *poses, v3 *centre, m3 *rot)
{
    m3 rb = quat_m3(poses ? poses[id.index].rotation : qp_body_rotation(w, id)), rs = quat_m3(s->rotation);
    *centre = add(body_center(w, id, poses), mul(&rb, vfx(s->offset)));
    *rot = mmul(&rb, &rs);
}

/* A level shape's box in its own frame: a mesh's vertices, a heightfield's grid. */
static qp_aabb level_box(const qp_shape *s)
{
    if (s->type == QP_SHAPE_MESH) return s->mesh->bounds;
    const qp_heightfield *f = s->heightfield;
    qp_aabb b;
    b.lo = qp_v3(0, f->min_height, 0);
    b.hi = qp_v3((fix16_t)(f->cols - 1) * f->spacing, f->max_height, (fix16_t)(f->rows - 1) * f->spacing);
    return b;
}

bool vw_world_bounds(const qp_world *w, float lo[3], float hi[3])
{
    return vw_posed_bounds(w, 0, lo, hi);
}

bool vw_posed_bounds(const qp_world *w, const vw_pose *poses, float lo[3], float hi[3])
{
    bool any = false;
    for (int i = 1; i <= qp_world_body_capacity(w); i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (qp_body_id_is_null(id)) continue;
        for (int k = 0; k < qp_body_shape_count(w, id); k++) {
            const qp_shape *s = qp_body_shape(w, id, k);
            if (!s || s->type == QP_SHAPE_PLANE) continue;
            v3 c;
            m3 r;
            shape_pose(w, id, s, poses, &c, &r);
            v3 e;
            if (qp_shape_is_level(s->type)) {
                /* Its box about its centre, turned like a box's. */
                qp_aabb b = level_box(s);
                v3 lo3 = vfx(b.lo), hi3 = vfx(b.hi);
                c = add(c, mul(&r, scale(add(lo3, hi3), 0.5f)));
                v3 h = scale(sub(hi3, lo3), 0.5f);
                e = V(fabsf(r.r[0].x) * h.x + fabsf(r.r[0].y) * h.y + fabsf(r.r[0].z) * h.z,
                      fabsf(r.r[1].x) * h.x + fabsf(r.r[1].y) * h.y + fabsf(r.r[1].z) * h.z,
                      fabsf(r.r[2].x) * h.x + fabsf(r.r[2].y) * h.y + fabsf(r.r[2].z) * h.z);
            } else if (s->type == QP_SHAPE_HULL) {
                float rad = fx(s->hull->radius);   /* its farthest corner from its origin */
                e = V(rad, rad, rad);
            } else if (s->type == QP_SHAPE_BOX) {
                v3 h = vfx(s->half);
                e = V(fabsf(r.r[0].x) * h.x + fabsf(r.r[0].y) * h.y + fabsf(r.r[0].z) * h.z,
                      fabsf(r.r[1].x) * h.x + fabsf(r.r[1].y) * h.y + fabsf(r.r[1].z) * h.z,
                      fabsf(r.r[2].x) * h.x + fabsf(r.r[2].y) * h.y + fabsf(r.r[2].z) * h.z);
            } else {
                float rad = fx(s->radius) + (s->type == QP_SHAPE_CAPSULE ? fx(s->half_height) : 0.0f);
                e = V(rad, rad, rad);
            }
            float cl[3] = { c.x - e.x, c.y - e.y, c.z - e.z }, ch[3] = { c.x + e.x, c.y + e.y, c.z + e.z };
            for (int a = 0; a < 3; a++) {
                if (!any || cl[a] < lo[a]) lo[a] = cl[a];
                if (!any || ch[a] > hi[a]) hi[a] = ch[a];
            }
            any = true;
        }
    }
    return any;
}

/* ---- triangles ------------------------------------------------------------------------- */

typedef struct {
    rs_image *img;
    view v;
    v3 light;
    rs_color color;      /* base colour of what is being drawn; alpha used as is */
    bool write_depth;
    const vw_pose *poses; /* vw_draw_opts.poses */
} painter;

static rs_vertex project(const view *v, v3 p)
{
    rs_vertex r;
    float z = p.z;
    r.x = v->cx + p.x * v->f / z;
    r.y = v->cy - p.y * v->f / z;
    r.iz = 1.0f / z;
    return r;
}

static v3 to_view(const view *v, v3 p)
{
    v3 o = sub(p, v->eye);
    return V(dot(o, v->right), dot(o, v->up), dot(o, v->fwd));
}

static rs_color shade(const painter *pt, v3 n, float tone)
{
    float s = 0.34f + 0.52f * fmaxf(0.0f, dot(n, pt->light)) + 0.18f * fmaxf(0.0f, -dot(n, pt->v.fwd));
    s *= tone;
    if (s > 1.0f) s = 1.0f;
    rs_color c = pt->color;
    c.r = (uint8_t)(c.r * s);
    c.g = (uint8_t)(c.g * s);
    c.b = (uint8_t)(c.b * s);
    return c;
}

/* One world triangle of a convex solid around centre (outward side found from it),
 * culled when it faces away, shaded flat, clipped at the near plane. */
static void solid_tri(painter *pt, v3 centre, v3 a, v3 b, v3 c, float tone)
{
    v3 n = cross(sub(b, a), sub(c, a));
    if (dot(n, n) < 1e-14f) return;
    n = norm(n);
    if (dot(n, sub(a, centre)) < 0) n = scale(n, -1);
    if (dot(n, sub(pt->v.eye, a)) <= 0) return;
    rs_color col = shade(pt, n, tone);
    v3 in[3] = { to_view(&pt->v, a), to_view(&pt->v, b), to_view(&pt->v, c) };
    v3 out[4];
    int m = 0;
    for (int i = 0; i < 3; i++) {
        v3 p = in[i], q = in[(i + 1) % 3];
        bool pin = p.z > NEAR, qin = q.z > NEAR;
        if (pin) out[m++] = p;
        if (pin != qin) {
            float t = (NEAR - p.z) / (q.z - p.z);
            out[m++] = add(p, scale(sub(q, p), t));
        }
    }
    if (m < 3) return;
    rs_vertex s[3] = { project(&pt->v, out[0]), project(&pt->v, out[1]), project(&pt->v, out[2]) };
    rs_triangle(pt->img, s, col, pt->write_depth);
    if (m == 4) {
        rs_vertex s2[3] = { s[0], s[2], project(&pt->v, out[3]) };
        rs_triangle(pt->img, s2, col, pt->write_depth);
    }
}

static void draw_box(painter *pt, v3 c, const m3 *r, v3 h)
{
    v3 ax = V(r->r[0].x, r->r[1].x, r->r[2].x), ay = V(r->r[0].y, r->r[1].y, r->r[2].y),
       az = V(r->r[0].z, r->r[1].z, r->r[2].z);
    v3 corner[8];
    for (int i = 0; i < 8; i++)
        corner[i] = add(c, add(scale(ax, i & 1 ? h.x : -h.x), add(scale(ay, i & 2 ? h.y : -h.y), scale(az, i & 4 ? h.z : -h.z))));
    static const int face[6][4] = { { 0, 2, 6, 4 }, { 1, 3, 7, 5 }, { 0, 1, 5, 4 },
                                    { 2, 3, 7, 6 }, { 0, 1, 3, 2 }, { 4, 5, 7, 6 } };
    for (int f = 0; f < 6; f++) {
        solid_tri(pt, c, corner[face[f][0]], corner[face[f][1]], corner[face[f][2]], 1.0f);
        solid_tri(pt, c, corner[face[f][0]], corner[face[f][2]], corner[face[f][3]], 1.0f);
    }
}

/* A convex hull: each face a fan of triangles from its first corner. */
static void draw_hull(painter *pt, v3 c, const m3 *r, const qp_hull *h)
{
    v3 ax = V(r->r[0].x, r->r[1].x, r->r[2].x), ay = V(r->r[0].y, r->r[1].y, r->r[2].y),
       az = V(r->r[0].z, r->r[1].z, r->r[2].z);
    v3 corner[QP_HULL_MAX_POINTS];
    for (int i = 0; i < h->vert_count; i++) {
        v3 l = vfx(h->verts[i]);
        corner[i] = add(c, add(scale(ax, l.x), add(scale(ay, l.y), scale(az, l.z))));
    }
    v3 l = vfx(h->center);
    v3 centre = add(c, add(scale(ax, l.x), add(scale(ay, l.y), scale(az, l.z))));
    for (int f = 0; f < h->face_count; f++) {
        const qp_hull_face *fc = &h->faces[f];
        const uint8_t *fv = &h->face_verts[fc->first];
        for (int t = 1; t + 1 < fc->count; t++) solid_tri(pt, centre, corner[fv[0]], corner[fv[t]], corner[fv[t + 1]], 1.0f);
    }
}

/* A sphere (half_height 0) or capsule (segment along local y) as latitude rings. */
#define LON 16
#define LAT 8
static void draw_round(painter *pt, v3 c, const m3 *r, float radius, float half_height)
{
    v3 ax = V(r->r[0].x, r->r[1].x, r->r[2].x), ay = V(r->r[0].y, r->r[1].y, r->r[2].y),
       az = V(r->r[0].z, r->r[1].z, r->r[2].z);
    /* Rings from the top pole (0) to the bottom (LAT + 1); a capsule repeats the equator,
     * once on each cap, and the band between them is its cylinder. */
    v3 ring[LAT + 2][LON];
    int rings = 0;
    for (int i = 0; i <= LAT; i++) {
        float th = (float)M_PI * (float)i / LAT;
        float y = cosf(th) * radius, s = sinf(th) * radius;
        float off = i < LAT / 2 ? half_height : (i > LAT / 2 ? -half_height : half_height);
        for (int k = 0; k < LON; k++) {
            float ph = 2.0f * (float)M_PI * (float)k / LON;
            ring[rings][k] = add(c, add(scale(ay, y + off), add(scale(ax, s * cosf(ph)), scale(az, s * sinf(ph)))));
        }
        rings++;
        if (i == LAT / 2 && half_height > 0) {
            for (int k = 0; k < LON; k++) ring[rings][k] = sub(ring[rings - 1][k], scale(ay, 2 * half_height));
            rings++;
        }
    }
    for (int i = 0; i + 1 < rings; i++)
        for (int k = 0; k < LON; k++) {
            int k1 = (k + 1) % LON;
            float tone = (k / (LON / 4)) % 2 ? 0.8f : 1.0f;
            solid_tri(pt, c, ring[i][k], ring[i + 1][k], ring[i + 1][k1], tone);
            solid_tri(pt, c, ring[i][k], ring[i + 1][k1], ring[i][k1], tone);
        }
}

/* A plane as a checkered square of side 2 * extent around the point of the plane
 * nearest to focus. */
static void draw_plane(painter *pt, v3 n, float offset, v3 focus, float extent)
{
    v3 o = add(focus, scale(n, offset - dot(n, focus)));
    v3 t1 = norm(cross(n, fabsf(n.x) < 0.9f ? V(1, 0, 0) : V(0, 0, 1))), t2 = cross(n, t1);
    float tile = extent <= 16 ? 1.0f : (extent <= 40 ? 2.0f : 5.0f);
    int cells = (int)ceilf(extent / tile);
    /* Tiles on a grid fixed in the world, so the checker does not slide with the camera. */
    float u0 = floorf(dot(sub(o, V(0, 0, 0)), t1) / tile), v0 = floorf(dot(sub(o, V(0, 0, 0)), t2) / tile);
    v3 base = sub(o, add(scale(t1, dot(o, t1)), scale(t2, dot(o, t2))));
    v3 below = sub(o, n); /* a "centre" under the surface: the upper side faces out */
    rs_color c0 = pt->color;
    for (int i = -cells; i < cells; i++)
        for (int j = -cells; j < cells; j++) {
            float u = (u0 + (float)i) * tile, v = (v0 + (float)j) * tile;
            v3 p00 = add(base, add(scale(t1, u), scale(t2, v)));
            v3 p10 = add(p00, scale(t1, tile)), p01 = add(p00, scale(t2, tile)), p11 = add(p10, scale(t2, tile));
            pt->color = c0;
            float tone = ((i + j + (int)u0 + (int)v0) & 1) ? 0.88f : 1.0f;
            solid_tri(pt, below, p00, p10, p11, tone);
            solid_tri(pt, below, p00, p11, p01, tone);
        }
    pt->color = c0;
}

/* ---- colours ------------------------------------------------------------------------------- */

static const rs_color warm[] = { { 236, 140, 52, 255 }, { 242, 178, 64, 255 }, { 224, 104, 60, 255 },
                                 { 240, 156, 90, 255 }, { 214, 122, 40, 255 } };
static const rs_color sleep_color = { 84, 124, 228, 128 };
static const rs_color static_color = { 150, 150, 156, 255 };
static const rs_color ground_color = { 204, 198, 186, 255 };
static const rs_color palette[] = { { 230, 80, 80, 255 },  { 80, 200, 90, 255 },  { 80, 130, 235, 255 },
                                    { 235, 200, 60, 255 }, { 200, 90, 220, 255 }, { 60, 210, 210, 255 },
                                    { 240, 140, 40, 255 }, { 140, 230, 60, 255 }, { 150, 110, 240, 255 },
                                    { 240, 110, 170, 255 } };

/* Islands: bodies joined through contacts between two dynamic bodies (static bodies do
 * not join islands), by union-find; the root is the lowest index. Sized to the world's
 * body capacity, which is set at run time. */
static int *island_root;
static int island_slots;

static int find_root(int i)
{
    if (i >= island_slots) return i;   /* no islands (compute_islands had no memory) */
    while (island_root[i] != i) {
        island_root[i] = island_root[island_root[i]]; /* halve the path */
        i = island_root[i];
    }
    return i;
}

/* False if the islands' memory cannot be had: the bodies are then drawn without them. */
static bool compute_islands(const qp_world *w)
{
    int slots = qp_world_body_capacity(w) + 1;
    if (slots > island_slots) {
        int *grown = realloc(island_root, (size_t)slots * sizeof *grown);
        if (!grown) return false;
        island_root = grown;
        island_slots = slots;
    }
    for (int i = 0; i < slots; i++) island_root[i] = i;
    int n = qp_world_contact_count(w);
    for (int k = 0; k < n; k++) {
        qp_contact_info c;
        if (!qp_world_contact_at(w, k, &c)) continue;
        if (qp_body_get_type(w, c.a) != QP_BODY_DYNAMIC || qp_body_get_type(w, c.b) != QP_BODY_DYNAMIC) continue;
        int ra = find_root(c.a.index), rb = find_root(c.b.index);
        if (ra < rb) island_root[rb] = ra;
        else if (rb < ra) island_root[ra] = rb;
    }
    return true;
}

static rs_color level_color(int level, int levels)
{
    float t = levels > 1 ? (float)(level - 1) / (float)(levels - 1) : 0.0f;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    /* blue -> green -> yellow -> red */
    rs_color c = { 0, 0, 0, 255 };
    float r = t < 0.5f ? 2 * t : 1.0f, g = t < 0.5f ? 0.4f + 1.2f * t : 1.0f - 1.6f * (t - 0.5f) * 1.2f,
          b = t < 0.5f ? 1.0f - 2 * t : 0.1f;
    c.r = (uint8_t)(40 + 200 * r);
    c.g = (uint8_t)(40 + 200 * fmaxf(0.0f, fminf(1.0f, g)));
    c.b = (uint8_t)(40 + 200 * b);
    return c;
}

static rs_color body_color(const qp_world *w, qp_body_id id, const vw_draw_opts *o, int levels)
{
    bool dyn = qp_body_get_type(w, id) == QP_BODY_DYNAMIC;
    bool asleep = dyn && !qp_body_is_awake(w, id);
    rs_color c;
    if (!dyn) return static_color;
    switch (o->color) {
    case VW_COLOR_ISLAND: c = palette[(unsigned)find_root(id.index) * 7u % (sizeof palette / sizeof palette[0])]; break;
    case VW_COLOR_LEVEL: c = level_color(qp_body_level(w, id), levels); break;
    default:
        if (asleep) return sleep_color;
        c = warm[(unsigned)id.index * 3u % (sizeof warm / sizeof warm[0])];
        break;
    }
    if (asleep) c.a = 128;
    return c;
}

/* A level shape's triangles (qp_level_query over its whole box), front sides, flat shaded. */
typedef struct {
    painter *pt;
    v3 c;
    m3 r;
    uint32_t cells;   /* heightfield: cells per row (checker); 0 for a mesh */
} level_draw;

static int level_tri(void *ctx, const qp_level_triangle *t)
{
    level_draw *d = ctx;
    v3 p[3];
    for (int k = 0; k < 3; k++) p[k] = add(d->c, mul(&d->r, vfx(t->v[k])));
    v3 n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
    float tone = 1.0f;
    if (d->cells) {
        uint32_t cell = t->index / 2;
        tone = ((cell / d->cells + cell % d->cells) & 1) ? 0.9f : 1.0f;
    }
    /* The solid side is behind the front (counter-clockwise) face. */
    solid_tri(d->pt, sub(p[0], n), p[0], p[1], p[2], tone);
    return 0;
}

static void draw_level(painter *pt, v3 c, const m3 *r, const qp_shape *s)
{
    level_draw d = { pt, c, *r, s->type == QP_SHAPE_HEIGHTFIELD ? s->heightfield->cols - 1 : 0 };
    qp_aabb all = level_box(s);
    qp_level_query(s, &all, level_tri, &d);
}

/* ---- the world -------------------------------------------------------------------------------- */

static void draw_body(painter *pt, const qp_world *w, qp_body_id id)
{
    for (int k = 0; k < qp_body_shape_count(w, id); k++) {
        const qp_shape *s = qp_body_shape(w, id, k);
        if (!s || s->type == QP_SHAPE_PLANE) continue;
        v3 c;
        m3 r;
        shape_pose(w, id, s, pt->poses, &c, &r);
        if (qp_shape_is_level(s->type)) draw_level(pt, c, &r, s);
        else if (s->type == QP_SHAPE_BOX) draw_box(pt, c, &r, vfx(s->half));
        else if (s->type == QP_SHAPE_HULL) draw_hull(pt, c, &r, s->hull);
        else draw_round(pt, c, &r, fx(s->radius), s->type == QP_SHAPE_CAPSULE ? fx(s->half_height) : 0.0f);
    }
}

static void draw_contacts(painter *pt, const qp_world *w)
{
    rs_color pc = { 255, 240, 70, 255 }, nc = { 70, 230, 255, 255 }, sc = { 150, 150, 120, 255 };
    int n = qp_world_contact_count(w);
    int r = pt->img->w >= 800 ? 2 : 1;
    for (int k = 0; k < n; k++) {
        qp_contact_info c;
        if (!qp_world_contact_at(w, k, &c)) continue;
        v3 nrm = vq30(c.normal);
        for (int i = 0; i < c.count; i++) {
            v3 p = vfx(c.points[i]), q = add(p, scale(nrm, 0.3f));
            v3 pv = to_view(&pt->v, p), qv = to_view(&pt->v, q);
            if (pv.z <= NEAR || qv.z <= NEAR) continue;
            rs_vertex a = project(&pt->v, pv), b = project(&pt->v, qv);
            rs_line(pt->img, a, b, c.sleeping ? sc : nc, 1, false);
            rs_point(pt->img, a.x, a.y, r, c.sleeping ? sc : pc);
        }
    }
}

/* A world segment, clipped away when an end is behind the near plane. */
static void seg(painter *pt, v3 p, v3 q, rs_color c)
{
    v3 pv = to_view(&pt->v, p), qv = to_view(&pt->v, q);
    if (pv.z <= NEAR || qv.z <= NEAR) return;
    rs_line(pt->img, project(&pt->v, pv), project(&pt->v, qv), c, 1, false);
}

/* d turned by angle t about unit axis n (d across n). */
static v3 turn(v3 n, v3 d, float t) { return add(scale(d, cosf(t)), scale(cross(n, d), sinf(t))); }

/* A joint's frame and limits, at its anchor on a (size: the frame's length, m): the axis
 * (white); a hinge's limits as a fan from its zero direction (yellow), a cone's cone and
 * twist range, a slider's travel between its limits, a weld's three axes. */
static void draw_joint_frame(painter *pt, const qp_world *w, qp_joint_id id, v3 at, float size)
{
    qp_vec3 axis_f, ref_f;
    qp_joint_world_frame(w, id, &axis_f, &ref_f);
    v3 n = vfx(axis_f), p = vfx(ref_f);
    if (dot(n, n) < 0.5f) return;   /* ball, distance: no frame */
    rs_color axis_c = { 245, 245, 245, 255 }, lim_c = { 255, 215, 60, 255 }, ref_c = { 90, 220, 255, 255 };
    fix16_t lo_f, hi_f, sw_f;
    bool limited = qp_joint_limits(w, id, &lo_f, &hi_f, &sw_f);
    float lo = fx(lo_f), hi = fx(hi_f), sw = fx(sw_f);
    qp_joint_type type = qp_joint_get_type(w, id);
    seg(pt, at, add(at, scale(n, size)), axis_c);
    if (type == QP_JOINT_FIXED) {
        seg(pt, at, add(at, scale(p, size)), ref_c);
        seg(pt, at, add(at, scale(cross(n, p), size)), lim_c);
    } else if (type == QP_JOINT_HINGE) {
        seg(pt, at, add(at, scale(p, size)), ref_c);
        if (limited) {
            float r = 0.7f * size;
            int k = 12;
            v3 prev = add(at, scale(turn(n, p, lo), r));
            seg(pt, at, prev, lim_c);
            for (int i = 1; i <= k; i++) {
                v3 q = add(at, scale(turn(n, p, lo + (hi - lo) * (float)i / (float)k), r));
                seg(pt, prev, q, lim_c);
                prev = q;
            }
            seg(pt, at, prev, lim_c);
        }
    } else if (type == QP_JOINT_SLIDER) {
        if (limited) {
            v3 a = add(at, scale(n, lo)), b = add(at, scale(n, hi)), tick = scale(p, 0.2f * size);
            seg(pt, a, b, lim_c);
            seg(pt, sub(a, tick), add(a, tick), lim_c);
            seg(pt, sub(b, tick), add(b, tick), lim_c);
        }
    } else if (type == QP_JOINT_CONE) {
        /* the cone: its rim at the axis' length, and four generators */
        float h = size * cosf(fminf(sw, 1.45f)), r = size * sinf(fminf(sw, 1.45f));
        v3 c = add(at, scale(n, h)), prev = add(c, scale(p, r));
        for (int i = 1; i <= 16; i++) {
            v3 q = add(c, scale(turn(n, p, 2.0f * (float)M_PI * (float)i / 16.0f), r));
            if (i % 4 == 0) seg(pt, at, q, lim_c);
            seg(pt, prev, q, lim_c);
            prev = q;
        }
        if (limited) {   /* the twist range as a fan in the plane across the axis */
            seg(pt, at, add(at, scale(turn(n, p, lo), 0.5f * size)), ref_c);
            seg(pt, at, add(at, scale(turn(n, p, hi), 0.5f * size)), ref_c);
        }
    }
}

/* Joints (qphys/joint.h): each anchor as seen from body a and from body b, and the gap
 * between them (a joint holding together shows one point), with the joint's frame and
 * limits. */
static void draw_joints(painter *pt, const qp_world *w)
{
    rs_color ac = { 250, 90, 230, 255 }, gc = { 255, 60, 60, 255 };
    for (int i = 1, n = qp_world_get_caps(w).joints; i <= n; i++) {
        qp_joint_id id = qp_world_joint_at(w, i);
        if (!qp_joint_is_valid(w, id)) continue;
        qp_vec3 on_a, on_b;
        qp_joint_world_anchors(w, id, &on_a, &on_b);
        draw_joint_frame(pt, w, id, vfx(on_a), 0.25f);
        v3 av = to_view(&pt->v, vfx(on_a)), bv = to_view(&pt->v, vfx(on_b));
        if (av.z <= NEAR || bv.z <= NEAR) continue;
        rs_vertex a = project(&pt->v, av), b = project(&pt->v, bv);
        rs_line(pt->img, a, b, gc, 2, false);
        int r = 2 + (int)qp_joint_get_type(w, id) % 2;
        rs_point(pt->img, a.x, a.y, r, ac);
        rs_point(pt->img, b.x, b.y, r, ac);
    }
}

/* A car's wheels (qphys/car.h: rays from mounts on the chassis floor): each ray from its
 * mount to its reach (green where it touches, grey where not), the wheel as a rim of two
 * circles at its suspension length, steered for the front pair, and the contact point. */
static void draw_car(painter *pt, const qp_world *w, const qp_car *car)
{
    const qp_car_def *d = &car->def;
    if (!qp_body_is_valid(w, car->chassis)) return;
    m3 rot = quat_m3(qp_body_rotation(w, car->chassis));
    v3 origin = vfx(qp_body_position(w, car->chassis));
    v3 left = V(rot.r[0].x, rot.r[1].x, rot.r[2].x), up = V(rot.r[0].y, rot.r[1].y, rot.r[2].y),
       fwd = V(rot.r[0].z, rot.r[1].z, rot.r[2].z);
    rs_color hit_c = { 90, 235, 110, 255 }, miss_c = { 150, 150, 150, 255 }, tyre_c = { 40, 40, 44, 255 },
             point_c = { 255, 240, 70, 255 };
    float radius = fx(d->wheel_radius), reach = fx(d->rest_length) + radius, width = 0.5f * radius;
    for (int i = 0; i < QP_CAR_WHEELS; i++) {
        const qp_car_wheel *wh = &car->wheels[i];
        v3 local = V((i & 1) ? -fx(d->half_track) : fx(d->half_track), -fx(d->half_extents.y),
                     (i & 2) ? -fx(d->half_wheelbase) : fx(d->half_wheelbase));
        v3 mount = add(origin, mul(&rot, local));
        seg(pt, mount, sub(mount, scale(up, reach)), wh->contact ? hit_c : miss_c);
        float steer = i < 2 ? fx(car->steer) * fx(d->max_steer) : 0.0f;
        v3 heading = add(scale(fwd, cosf(steer)), scale(left, sinf(steer))), axle = cross(up, heading);
        v3 centre = sub(mount, scale(up, fx(wh->length)));
        for (int side = -1; side <= 1; side += 2) {
            v3 c = add(centre, scale(axle, 0.5f * width * (float)side));
            v3 prev = add(c, scale(up, radius));
            for (int k = 1; k <= 16; k++) {
                float t = 2.0f * (float)M_PI * (float)k / 16.0f;
                v3 q = add(c, add(scale(up, radius * cosf(t)), scale(heading, radius * sinf(t))));
                seg(pt, prev, q, tyre_c);
                if (side > 0 && k % 4 == 0) seg(pt, q, sub(q, scale(axle, width)), tyre_c);
                prev = q;
            }
        }
        if (wh->contact) {
            v3 pv = to_view(&pt->v, vfx(wh->point));
            if (pv.z > NEAR) {
                rs_vertex p = project(&pt->v, pv);
                rs_point(pt->img, p.x, p.y, 2, point_c);
            }
        }
    }
}

typedef struct {
    float d;
    int index;
} by_depth;

static int far_first(const void *a, const void *b)
{
    float da = ((const by_depth *)a)->d, db = ((const by_depth *)b)->d;
    return da < db ? 1 : (da > db ? -1 : ((const by_depth *)a)->index - ((const by_depth *)b)->index);
}

void vw_draw_world(rs_image *img, const qp_world *w, const vw_camera *cam, const vw_draw_opts *o)
{
    static by_depth *order;   /* the sleepers, sized to the world's body capacity */
    static int order_slots;
    int slots = qp_world_body_capacity(w) + 1;
    if (slots > order_slots) {
        by_depth *grown = realloc(order, (size_t)slots * sizeof *grown);
        if (grown) {
            order = grown;
            order_slots = slots;
        }
    }
    painter pt;
    pt.img = img;
    pt.v = make_view(cam, img->w, img->h);
    pt.light = norm(V(0.35f, 0.85f, 0.5f));
    pt.write_depth = true;
    pt.poses = o->poses;
    rs_color sky_top = { 46, 52, 64, 255 }, sky_bottom = { 118, 126, 138, 255 };
    rs_clear(img, sky_top, sky_bottom);
    if (!compute_islands(w)) island_slots = 0;
    int levels = qp_world_get_stats(w).levels;

    /* Planes first, around the bodies' box. */
    /* Planes as a square around the point the camera looks at, large enough to reach the
     * horizon of a framed scene; it moves only with the camera. */
    v3 focus = V(cam->target[0], cam->target[1], cam->target[2]);
    float extent = fmaxf(12.0f, 1.5f * cam->dist);
    int sleepers = 0;
    for (int i = 1; i <= qp_world_body_capacity(w); i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (qp_body_id_is_null(id)) continue;
        for (int k = 0; k < qp_body_shape_count(w, id); k++) {
            const qp_shape *s = qp_body_shape(w, id, k);
            if (!s || s->type != QP_SHAPE_PLANE) continue;
            v3 c;
            m3 r;
            shape_pose(w, id, s, pt.poses, &c, &r);
            v3 n = norm(mul(&r, vq30(s->normal)));
            /* n.p = offset in the shape frame, whose origin is at c. */
            pt.color = ground_color;
            draw_plane(&pt, n, fx(s->plane_offset) + dot(n, c), focus, extent);
        }
        rs_color col = body_color(w, id, o, levels);
        if (col.a < 255 && sleepers < order_slots) {
            v3 d = sub(body_center(w, id, pt.poses), pt.v.eye);
            order[sleepers].d = dot(d, d);
            order[sleepers].index = i;
            sleepers++;
            continue;
        }
        pt.color = col;
        draw_body(&pt, w, id);
    }
    /* Sleepers far to near, blended, depth tested but not written. */
    qsort(order, (size_t)sleepers, sizeof order[0], far_first);
    pt.write_depth = false;
    for (int k = 0; k < sleepers; k++) {
        qp_body_id id = qp_world_body_at(w, order[k].index);
        pt.color = body_color(w, id, o, levels);
        draw_body(&pt, w, id);
    }
    pt.write_depth = true;
    if (o->contacts && !o->poses) draw_contacts(&pt, w);
    if (!o->poses) draw_joints(&pt, w); /* given poses carry no joints: drawn from the world, they could disagree */
    if (o->car && !o->poses) draw_car(&pt, w, o->car);
    if (o->text_scale > 0) {
        rs_color tc = { 240, 240, 240, 255 };
        for (int l = 0; l < 4 && o->text[l]; l++)
            rs_text(img, 6 * o->text_scale, (4 + l * 10) * o->text_scale, o->text_scale, tc, o->text[l]);
    }
}

void vw_hud_line(const qp_world *w, double us_per_step, char *buf, size_t n)
{
    qp_world_stats st = qp_world_get_stats(w);
    char us[32] = "";
    if (us_per_step >= 0) snprintf(us, sizeof us, "  %.0f us/step", us_per_step);
    snprintf(buf, n, "step %u  hash %08x  awake %d asleep %d%s  peak pairs %d contacts %d%s", (unsigned)st.step,
             (unsigned)qp_world_hash(w), st.awake, st.asleep, us, st.max_pairs, st.max_contacts,
             st.overflows ? "  OVERFLOW" : "");
}
