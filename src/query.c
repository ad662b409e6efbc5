/* SPDX-License-Identifier: MIT */
/* World queries: the nearest ray hit, pruned by the broad phase's boxes, and the last
 * step's contacts read back (for viewers; they change nothing).
 *
 * Between steps every shape's box (grown by the contact margin) holds the shape at its
 * body's current pose, and the sweep-and-prune order is sorted by the boxes' low x
 * (broad_phase.c, qp__sap_refresh). A ray visits the shapes in that order and stops at
 * the first box that starts beyond the ray's largest x; each box is tested against the
 * segment first (separating axes of a segment and a box: the box's three axes and their
 * cross products with the segment), and only a shape whose box the segment meets is cast
 * against exactly (raycast.c). When the order may be stale (a body created or moved by a
 * call since the last step, a restored world) every shape's box is tested instead.
 *
 * The box test works in units of 2^-8 m with every box grown outwards by two units
 * (one for rounding the segment's ends to those units, one, 4 mm, for the rounding of
 * the exact cast near a tangent), so it never rejects a shape the exact cast would hit,
 * and all its products stay below 2^52 for any ray of Q16.16 numbers. The nearest hit
 * wins; ties (equal fractions) go to the lower shape pool index, as when every shape was
 * cast in pool order: the result is the same bits as that brute-force cast, on every
 * target.
 */
#include <string.h>

#include "body.h"
#include "contact.h"

#define UNIT_SHIFT 8   /* box test units: 2^-8 m */

typedef struct {
    int64_t p0[3], p1[3];         /* the segment's ends, floored to units */
    int64_t x_min, x_max;         /* its smallest and largest x, units */
} segment;

static int64_t units(int64_t raw) { return raw >> UNIT_SHIFT; }  /* floor (arithmetic shift) */
static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static segment make_segment(qp_vec3 o, qp_vec3 d)
{
    segment s;
    const int64_t ov[3] = { o.x, o.y, o.z }, dv[3] = { d.x, d.y, d.z };
    for (int i = 0; i < 3; i++) {
        s.p0[i] = units(ov[i]);
        s.p1[i] = units(ov[i] + dv[i]);
    }
    s.x_min = s.p0[0] < s.p1[0] ? s.p0[0] : s.p1[0];
    s.x_max = s.p0[0] > s.p1[0] ? s.p0[0] : s.p1[0];
    return s;
}

static int64_t box_lo(fix16_t v) { return units(v) - 2; }
static int64_t box_hi(fix16_t v) { return units(v) + 3; }   /* floor + 1 covers the fraction */

/* Can the segment meet the box? Doubled centres and extents keep everything integral. */
static bool segment_meets_box(const segment *s, const qp_aabb *b)
{
    const int64_t lo[3] = { box_lo(b->lo.x), box_lo(b->lo.y), box_lo(b->lo.z) };
    const int64_t hi[3] = { box_hi(b->hi.x), box_hi(b->hi.y), box_hi(b->hi.z) };
    int64_t d[3], h[3], e[3], ah[3];
    for (int i = 0; i < 3; i++) {
        d[i] = (s->p0[i] + s->p1[i]) - (lo[i] + hi[i]);
        h[i] = s->p1[i] - s->p0[i];
        e[i] = hi[i] - lo[i];
        ah[i] = abs64(h[i]);
        if (abs64(d[i]) > e[i] + ah[i]) return false;
    }
    if (abs64(d[1] * h[2] - d[2] * h[1]) > e[1] * ah[2] + e[2] * ah[1]) return false;
    if (abs64(d[2] * h[0] - d[0] * h[2]) > e[0] * ah[2] + e[2] * ah[0]) return false;
    if (abs64(d[0] * h[1] - d[1] * h[0]) > e[0] * ah[1] + e[1] * ah[0]) return false;
    return true;
}

bool qp_world_raycast_filtered(const qp_world *w, qp_vec3 origin, qp_vec3 delta, const qp_ray_filter *filter,
                               qp_world_ray_hit *out)
{
    if (!w || !out || (delta.x == 0 && delta.y == 0 && delta.z == 0)) return false;
    int ignore = 0;
    if (filter && qp_body_is_valid(w, filter->ignore)) ignore = filter->ignore.index;
    segment seg = make_segment(origin, delta);
    bool sorted = w->sap_sorted != 0;
    int best_shape = -1;
    qp_ray_hit best;
    best.fraction = 0;
    for (int i = 0; i < w->sap_count; i++) {
        int s = w->sap_order[i];
        const qp_shape_slot *slot = &w->shapes[s];
        if (sorted && box_lo(slot->aabb.lo.x) > seg.x_max) break;   /* so do all after it */
        if (box_hi(slot->aabb.hi.x) < seg.x_min || (slot->flags & QP_SHAPE_SENSOR)) continue;
        if (filter && (!(slot->filter.category & filter->mask) || slot->body == ignore)) continue;
        if (!segment_meets_box(&seg, &slot->aabb)) continue;
        const qp_body_state *b = &w->bodies[slot->body];
        qp_rot3 r = qp__body_rot(b);
        qp_transform xf = qp__shape_world(w, s, &b->x, &r);
        qp_ray_hit hit;
        if (!qp_raycast_shape(&slot->shape, &xf, origin, delta, &hit)) continue;
        if (best_shape >= 0 && (hit.fraction > best.fraction || (hit.fraction == best.fraction && s > best_shape)))
            continue;
        best = hit;
        best_shape = s;
    }
    if (best_shape < 0) return false;
    const qp_shape_slot *slot = &w->shapes[best_shape];
    out->body.index = slot->body;
    out->body.generation = w->bodies[slot->body].generation;
    out->hit = best;
    return true;
}

bool qp_world_raycast(const qp_world *w, qp_vec3 origin, qp_vec3 delta, qp_world_ray_hit *out)
{
    return qp_world_raycast_filtered(w, origin, delta, 0, out);
}

/* ---- contacts, read-only ------------------------------------------------------------ */

int qp_world_contact_count(const qp_world *w) { return w ? w->contact_count : 0; }

bool qp_world_contact_at(const qp_world *w, int i, qp_contact_info *out)
{
    if (!w || !out || i < 0 || i >= w->contact_count) return false;
    const qp_contact *c = &w->contacts[i];
    const qp_body_state *a = &w->bodies[c->a];
    qp_contact_info info;
    memset(&info, 0, sizeof info);
    info.a.index = c->a;
    info.a.generation = a->generation;
    info.b.index = c->b;
    info.b.generation = w->bodies[c->b].generation;
    info.shape_a = c->sa;
    info.shape_b = c->sb;
    info.normal = c->n;
    info.count = c->count;
    for (int k = 0; k < c->count && k < QP_MAX_MANIFOLD_POINTS; k++) {
        /* |x| <= QP_WORLD_LIMIT and arms are shape-sized: the sum fits Q16.16. */
        info.points[k] = qp_v3_add(a->x, c->p[k].ra);
        info.depth[k] = c->p[k].depth;
        info.impulse[k] = qp__contact_impulse(w, c, c->p[k].jn);   /* in N s */
    }
    /* From the bodies now (the contact's own flag is last narrow phase's view). */
    info.sleeping = !qp__body_moves(a) && !qp__body_moves(&w->bodies[c->b]);
    *out = info;
    return true;
}
