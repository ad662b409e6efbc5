/* World queries: the nearest ray hit over every shape, and the last step's contacts
 * read back (for viewers; they change nothing).
 *
 * Shapes are visited in pool order and a later hit replaces the best only
 * when strictly nearer, so ties go to the lower shape index on every target.
 * Positions are absolute here (a ray is given in world coordinates); each
 * shape test works in that shape's frame (raycast.c).
 */
#include <string.h>

#include "world_internal.h"

bool qp_world_raycast(const qp_world *w, qp_vec3 origin, qp_vec3 delta, qp_world_ray_hit *out)
{
    if (!w || !out || (delta.x == 0 && delta.y == 0 && delta.z == 0)) return false;
    bool found = false;
    for (int s = 0; s < QP_CFG_MAX_SHAPES; s++) {
        const qp_shape_slot *slot = &w->shapes[s];
        if (slot->body == 0) continue;
        const qp_body_state *b = &w->bodies[slot->body];
        qp_rot3 r = qp__body_rot(b);
        qp_transform xf = qp__shape_world(w, s, &b->x, &r);
        qp_ray_hit hit;
        if (!qp_raycast_shape(&slot->shape, &xf, origin, delta, &hit)) continue;
        if (found && hit.fraction >= out->hit.fraction) continue;
        out->body.index = slot->body;
        out->body.generation = b->generation;
        out->hit = hit;
        found = true;
    }
    return found;
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
        info.impulse[k] = c->p[k].jn;
    }
    /* From the bodies now (the contact's own flag is last narrow phase's view). */
    info.sleeping = !qp__body_moves(a) && !qp__body_moves(&w->bodies[c->b]);
    *out = info;
    return true;
}
