/* SPDX-License-Identifier: MIT */
/* Stage "overlaps": bodies spawned (or driven) deep inside static geometry or inside each
 * other come out by a free way, never through the ground (docs/design.md §4, "Deep
 * overlaps").
 *
 * A contact is deep when one of its points is more than QP_DEEP inside: resting and
 * landing contacts stay far from it, but tumbling cubes hitting each other reach 12 cm
 * (rain512), so the rule for two dynamic bodies only takes contacts that were that deep
 * when they first appeared while one of their bodies had just been placed (created or
 * set_pose'd: QP_STATE_PLACED, cleared here after their first narrow phase).
 *
 * - Free way (a stage after the narrow phase): the normal of a deep contact between a
 *   moving body and a static one is the shortest way out. When moving the body that far
 *   along it would put it deeper into other static geometry (a box spawned low inside a
 *   static box that stands on the floor: its shortest way is down, through the floor),
 *   the static box's six face directions are tried and the shortest free one is taken:
 *   the contact becomes one point at the body's centre of mass along that face normal, as
 *   deep as the way out is long, and marked QP_CONTACT_OVERLAP until the body rests on the
 *   surface; meanwhile the friction anchors of its other contacts follow it (the floor's
 *   would hold it where it began). When no way is free, or the static shape is not a box,
 *   the body keeps the shortest one and is flagged QP_FLAG_PINNED_OVERLAP, never silently
 *   (unless, for a shape that is not a box, another of its contacts found it a free way).
 * - Sides (the penetration pass, qp__deep_sides): a spawned pair (QP_CONTACT_OVERLAP, kept
 *   until they are within QP_APART) comes apart upward: only the body the push lifts moves
 *   (fifty spheres spawned at one point on the floor rise into a column instead of driving
 *   the bottom one into the floor; both move when the normal is within 6 degrees of
 *   horizontal). Neither is pushed into static geometry it touches (a ceiling, a wall);
 *   when that leaves neither to move, both are flagged.
 */
#include "body.h"
#include "contact.h"
#include "math_inline.h"
#include "overlap.h"
#include "stages.h"

/* Deeper than this (m) is a deep overlap: 5 cm, far beyond what a resting or landing
 * contact reaches at the solver's defaults. */
#define QP_DEEP QP_FRAC(5, 100)
/* A pair that began deep inside each other is apart from here (m). */
#define QP_APART QP_FRAC(1, 100)
/* A way out is blocked when it takes the body deeper than this (m) into other
 * static geometry than it is now. */
#define QP_BLOCK_TOL QP_FRAC(1, 100)
/* The feature ids of a free-way contact (one per face direction). */
#define QP_FREE_WAY_ID 0xF7EE0000u

static bool is_static(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_KINEMATIC)) == QP_STATE_USED;
}

static fix16_t deepest(const qp_contact *c)
{
    fix16_t d = INT32_MIN;
    for (int k = 0; k < c->count; k++)
        if (c->p[k].depth > d) d = c->p[k].depth;
    return d;
}

/* t u, u a Q2.30 unit vector. */
static qp_vec3 along(qp_vec3 u, fix16_t t)
{
    return qp_v3(qp_mul_q30(t, u.x), qp_mul_q30(t, u.y), qp_mul_q30(t, u.z));
}

/* How far a shape at xf reaches from its centre along the unit direction u (m). */
static fix16_t reach(const qp_shape *s, const qp_transform *xf, qp_vec3 u)
{
    if (s->type == QP_SHAPE_SPHERE) return s->radius;
    if (s->type == QP_SHAPE_CAPSULE) {
        qp_q30 a = qp__v3_dot_q30(qp_rot3_col(&xf->r, 1), u);
        return qp_sat32((int64_t)s->radius + qp_mul_q30(s->half_height, a < 0 ? -a : a));
    }
    if (s->type == QP_SHAPE_HULL) {   /* its farthest corner along u */
        const qp_vec3 ul = qp_rot3_tmul_v3(&xf->r, u);
        fix16_t far = INT32_MIN;
        for (int v = 0; v < s->hull->vert_count; v++) {
            fix16_t d = qp__v3_dot_q30(s->hull->verts[v], ul);
            if (d > far) far = d;
        }
        return far;
    }
    if (s->type != QP_SHAPE_BOX) return 0;
    const fix16_t h[3] = { s->half.x, s->half.y, s->half.z };
    int64_t r = 0;
    for (int i = 0; i < 3; i++) {
        qp_q30 a = qp__v3_dot_q30(qp_rot3_col(&xf->r, i), u);
        r += qp_mul_q30(h[i], a < 0 ? -a : a);
    }
    return qp_sat32(r);
}

static bool boxes_meet(const qp_aabb *a, const qp_aabb *b)
{
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
           a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}

/* Static shape j and body shape s with its body at (x, r): shape s's pose in j's frame,
 * or false when their boxes do not meet. Apart from the collision, so that none of this
 * is on the stack under qp_collide (the micro:bit's 3 KB). */
static QP__NOINLINE bool relative_pose(const qp_world *w, int j, int s, const qp_vec3 *x, const qp_rot3 *r,
                                       qp_transform *rel)
{
    const qp_shape_slot *st = &w->shapes[j];
    const qp_body_state *sb = &w->bodies[st->body];
    qp_rot3 rs = qp__body_rot(sb);
    qp_transform xs = qp__shape_world(w, j, &sb->x, &rs), xf = qp__shape_world(w, s, x, r);
    qp_aabb a = qp_shape_aabb(&w->shapes[s].shape, &xf), b = qp_shape_aabb(&st->shape, &xs);
    if (!boxes_meet(&a, &b)) return false;
    *rel = qp_transform_relative(&xs, &xf);
    return true;
}

/* Deepest overlap (m, 0 when apart) of static shape j with body shape s, its body at (x, r). */
static QP__NOINLINE fix16_t depth_with(const qp_world *w, int j, int s, const qp_vec3 *x, const qp_rot3 *r)
{
    qp_transform rel;
    if (!relative_pose(w, j, s, x, r, &rel)) return 0;
    qp_manifold m;
    int n = qp_collide(&w->shapes[j].shape, &w->shapes[s].shape, &rel, 0, &m);
    fix16_t d = 0;
    for (int k = 0; k < n; k++)
        if (m.points[k].depth > d) d = m.points[k].depth;
    return d;
}

/* Would moving body i by t u take it deeper into static geometry (other than shape
 * skip) than it is now? Every pair of its shapes and static shapes that collide. */
static QP__NOINLINE bool blocked(const qp_world *w, int i, int skip, qp_vec3 u, fix16_t t)
{
    const qp_body_state *b = &w->bodies[i];
    qp_rot3 r = qp__body_rot(b);
    qp_vec3 moved = qp__v3_add(b->x, along(u, t));
    for (int k = 0; k < b->shape_count; k++) {
        int s = b->shapes[k];
        if (w->shapes[s].flags & QP_SHAPE_SENSOR) continue;
        for (int o = 1; o <= w->body_high; o++) {
            const qp_body_state *ob = &w->bodies[o];
            if (!is_static(ob)) continue;
            for (int q = 0; q < ob->shape_count; q++) {
                int j = ob->shapes[q];
                if (j == skip || !qp__shapes_pair(&w->shapes[j], &w->shapes[s])) continue;
                fix16_t after = depth_with(w, j, s, &moved, &r);
                if (after > QP_BLOCK_TOL && after > depth_with(w, j, s, &b->x, &r) + QP_BLOCK_TOL) return true;
            }
        }
    }
    return false;
}

/* The ways out of static box shape j for body i's shape s: along each face normal
 * (+x, -x, +y, -y, +z, -z of the box), how far it must move to clear the box. */
static QP__NOINLINE void ways_out(const qp_world *w, int i, int j, int s, qp_vec3 u[6], fix16_t t[6])
{
    const qp_shape_slot *st = &w->shapes[j];
    const qp_body_state *sb = &w->bodies[st->body], *b = &w->bodies[i];
    qp_rot3 rs = qp__body_rot(sb), rb = qp__body_rot(b);
    qp_transform xs = qp__shape_world(w, j, &sb->x, &rs), xb = qp__shape_world(w, s, &b->x, &rb);
    const fix16_t h[3] = { st->shape.half.x, st->shape.half.y, st->shape.half.z };
    qp_vec3 d = qp__v3_sub(xb.p, xs.p);
    for (int f = 0; f < 6; f++) {
        u[f] = qp_rot3_col(&xs.r, f >> 1);
        if (f & 1) u[f] = qp_v3_neg(u[f]);
        t[f] = qp_sat32((int64_t)h[f >> 1] + reach(&w->shapes[s].shape, &xb, u[f]) - qp__v3_dot_q30(d, u[f]));
    }
}

/* Static friction anchors at the contact's centroid as the bodies are now. */
static void anchor_here(const qp_world *w, qp_contact *c)
{
    qp_rot3 ra = qp__body_rot(&w->bodies[c->a]), rb = qp__body_rot(&w->bodies[c->b]);
    c->anchor_a = qp_rot3_tmul_v3(&ra, c->ca);
    c->anchor_b = qp_rot3_tmul_v3(&rb, c->cb);
}

/* Body i is being moved out of static geometry by split impulses, which its other
 * contacts (the floor's) do not see as sliding: their anchors follow it, or they would
 * hold it where it began, against the block it left, and never let it sleep. */
static QP__NOINLINE void anchors_follow(qp_world *w, int i, const qp_contact *skip)
{
    for (int n = 0; n < w->contact_count; n++) {
        qp_contact *c = &w->contacts[n];
        if (c != skip && (c->a == i || c->b == i) && !(c->flags & QP_CONTACT_SLEEPING)) anchor_here(w, c);
    }
}

/* Contact c between moving body i and static box shape j is deep and its way out is
 * blocked: take the static box's shortest free face direction, or flag the body. */
static QP__NOINLINE void free_way(qp_world *w, qp_contact *c, int i, int j, int s)
{
    qp_vec3 u[6];
    fix16_t t[6];
    ways_out(w, i, j, s, u, t);
    int best = -1;
    fix16_t best_t = INT32_MAX;
    for (int f = 0; f < 6; f++) {
        if (t[f] >= best_t || blocked(w, i, j, u[f], t[f])) continue;
        best = f, best_t = t[f];
    }
    if (best < 0) {
        w->bodies[i].flags |= QP_FLAG_PINNED_OVERLAP;
        return;
    }
    /* One point at the body's centre of mass: it is moved out, not turned. */
    bool is_b = i == c->b;
    c->n = is_b ? u[best] : qp_v3_neg(u[best]);
    c->count = 1;
    c->p[0].ra = is_b ? qp_v3_neg(c->ab) : qp_v3_zero();
    c->p[0].depth = best_t;
    c->p[0].id = QP_FREE_WAY_ID | (uint32_t)best;
    c->ca = c->p[0].ra;
    c->cb = qp__arm_b(c, 0);
    c->twist_radius = 0;
    c->flags |= QP_CONTACT_OVERLAP;   /* on its way out until it is (qp__deep_overlaps) */
    anchor_here(w, c);
    anchors_follow(w, i, c);
}

/* Is body i on its way out of static geometry by a free way (a leaving contact)? This
 * step's contacts are not in the graph yet: every one is looked at (pending bodies are rare). */
static bool has_way_out(const qp_world *w, int i)
{
    for (int n = 0; n < w->contact_count; n++) {
        const qp_contact *c = &w->contacts[n];
        if (c->a != i && c->b != i) continue;
        bool fixed = is_static(&w->bodies[c->a]) || is_static(&w->bodies[c->b]);
        if (fixed && (c->flags & QP_CONTACT_OVERLAP)) return true;
    }
    return false;
}

/* The stage after the narrow phase (world.c). */
void qp__deep_overlaps(qp_world *w)
{
    /* Bodies deep in a static shape that is not a box (a plane) whose way out is blocked:
     * flagged at the end unless another contact found them a free way (a box spawned low
     * inside a static box and the floor leaves by the box's side; the floor alone has no
     * other way to offer). w->queue is free scratch here. */
    int pending = 0;
    for (int n = 0; n < w->contact_count; n++) {
        qp_contact *c = &w->contacts[n];
        if (c->flags & QP_CONTACT_SLEEPING) continue;
        fix16_t depth = deepest(c);
        const qp_body_state *a = &w->bodies[c->a], *b = &w->bodies[c->b];
        /* Dynamic pairs found deep inside each other as one of them was placed there (not
         * an impact), until they are apart; a body taken out of static geometry by a free
         * way, until it rests on its surface (the slop, within half the gap tolerance). */
        bool fixed = is_static(a) || is_static(b);
        fix16_t apart = fixed ? qp_sat32((int64_t)w->def.slop + w->def.gap_tolerance / 2) : QP_APART;
        if (depth <= apart) c->flags &= (uint8_t)~QP_CONTACT_OVERLAP;
        else if ((c->flags & QP_CONTACT_NEW) && depth > QP_DEEP && qp__body_dynamic(a) && qp__body_dynamic(b) &&
                 ((a->state | b->state) & QP_STATE_PLACED))
            c->flags |= QP_CONTACT_OVERLAP;
        bool leaving = fixed && (c->flags & QP_CONTACT_OVERLAP);
        if (depth <= QP_DEEP && !leaving) continue;
        int i, j, s;   /* the moving body, the static shape, the moving shape */
        if (qp__body_moves(b) && is_static(a)) {
            i = c->b, j = a->shapes[c->sa], s = b->shapes[c->sb];
        } else if (qp__body_moves(a) && is_static(b)) {
            i = c->a, j = b->shapes[c->sb], s = a->shapes[c->sa];
        } else {
            continue;
        }
        qp_vec3 u = i == c->b ? c->n : qp_v3_neg(c->n);   /* the push on the moving body */
        if (!blocked(w, i, j, u, depth)) {
            if (leaving) anchors_follow(w, i, c);   /* the last of the way: its own normal is free */
            continue;
        }
        if (w->shapes[j].shape.type == QP_SHAPE_BOX) free_way(w, c, i, j, s);
        else if (pending < qp__cap_bodies(w)) w->queue[pending++] = (uint16_t)i;
        else w->bodies[i].flags |= QP_FLAG_PINNED_OVERLAP;
    }
    for (int k = 0; k < pending; k++)
        if (!has_way_out(w, w->queue[k])) w->bodies[w->queue[k]].flags |= QP_FLAG_PINNED_OVERLAP;
    for (int i = 1; i <= w->body_high; i++) w->bodies[i].state &= (uint16_t)~QP_STATE_PLACED;
}

/* Does body i touch static geometry that a push along u (unit) would drive it into? */
static bool pressed_into_static(const qp_world *w, int i, qp_vec3 u)
{
    /* A tenth of the push going into the surface counts: pushes along it do not. */
    const qp_q30 into = -(QP_Q30_ONE / 10);
    for (int k = w->adj_start[i]; k < w->adj_start[i + 1]; k++) {
        const qp_contact *c = &w->contacts[w->adj[k]];
        int other = c->a == i ? c->b : c->a;
        if (qp__body_dynamic(&w->bodies[other])) continue;
        bool touches = false;
        for (int p = 0; p < c->count; p++) touches |= c->p[p].depth >= -w->def.gap_tolerance;
        if (!touches) continue;
        qp_vec3 out = c->b == i ? c->n : qp_v3_neg(c->n);   /* from the static body to i */
        if (qp__v3_dot_q30(u, out) < into) return true;
    }
    return false;
}

int qp__deep_sides(qp_world *w, const qp_contact *c, int move)
{
    if (move != QP_MOVE_BOTH || !(c->flags & QP_CONTACT_OVERLAP)) return move;
    /* Up, never down: the body the push drives down (along gravity) keeps still. */
    fix16_t g = w->def.gravity.x | w->def.gravity.y | w->def.gravity.z ? qp_v3_len(w->def.gravity) : 0;
    fix16_t down = qp__v3_dot_q30(w->def.gravity, c->n);   /* > 0: the push on a is upward */
    if (down < -g / 10) move = QP_MOVE_B;
    else if (down > g / 10) move = QP_MOVE_A;
    /* And never into static geometry it touches (a ceiling, a wall). */
    if ((move & QP_MOVE_A) && pressed_into_static(w, c->a, qp_v3_neg(c->n))) move &= ~QP_MOVE_A;
    if ((move & QP_MOVE_B) && pressed_into_static(w, c->b, c->n)) move &= ~QP_MOVE_B;
    if (!move) {
        w->bodies[c->a].flags |= QP_FLAG_PINNED_OVERLAP;
        w->bodies[c->b].flags |= QP_FLAG_PINNED_OVERLAP;
    }
    return move;
}
