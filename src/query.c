/* World queries: the nearest ray hit over every shape.
 *
 * Shapes are visited in pool order and a later hit replaces the best only
 * when strictly nearer, so ties go to the lower shape index on every target.
 * Positions are absolute here (a ray is given in world coordinates); each
 * shape test works in that shape's frame (raycast.c).
 */
#include "world_internal.h"

bool qp_world_raycast(const qp_world *w, qp_vec3 origin, qp_vec3 delta, qp_world_ray_hit *out)
{
    return qp_world_raycast_except(w, origin, delta, qp_null_body(), out);
}

bool qp_world_raycast_except(const qp_world *w, qp_vec3 origin, qp_vec3 delta, qp_body_id except,
                             qp_world_ray_hit *out)
{
    if (!w || !out || (delta.x == 0 && delta.y == 0 && delta.z == 0)) return false;
    bool found = false;
    for (int s = 0; s < QP_CFG_MAX_SHAPES; s++) {
        const qp_shape_slot *slot = &w->shapes[s];
        if (slot->body == 0 || slot->body == except.index) continue;
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
