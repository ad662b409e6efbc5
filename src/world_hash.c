/* The state hash (docs/design.md §8): 32-bit FNV-1a over the canonical state, fed
 * word by word with qp_hash_u32 (never raw struct bytes, whose padding and
 * byte order differ between targets).
 *
 * Canonical state, in this order:
 *   every used body, by slot index: index, generation, state flags (used, kinematic,
 *   dynamic, asleep, frozen), x (centre of mass), q, v, w;
 *   every contact of the last step, in the contact array's order: a, b, sa,
 *   sb, count, per point feature id and jn, then the manifold's friction jt1, jt2, jtw;
 *   every shape whose options (sensor flag, filter) are not the defaults, by pool index:
 *   owner, slot, flags, category, mask, group; every sensor overlap (shape indices).
 *   then, only when joints exist (so worlds without joints keep their hashes), every
 *   live joint by slot index: index, generation, type, flags, a, b, and its
 *   accumulated impulses (jp, ja, jlo, jhi).
 * Everything else (rotation matrices, inertia, AABBs, pairs, scratch) is a
 * function of this state and the scene, or scratch rebuilt each step.
 */
#include "qphys/hash.h"
#include "qphys/world.h"

static uint32_t hash_v3(uint32_t h, qp_vec3 v)
{
    h = qp_hash_u32(h, (uint32_t)v.x);
    h = qp_hash_u32(h, (uint32_t)v.y);
    return qp_hash_u32(h, (uint32_t)v.z);
}

static uint32_t hash_joints(uint32_t h, const qp_world *w)
{
    for (int i = 1; i <= QP_CFG_MAX_JOINTS; i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a == 0) continue;
        h = qp_hash_u32(h, (uint32_t)i);
        h = qp_hash_u32(h, j->generation);
        h = qp_hash_u32(h, j->type);
        h = qp_hash_u32(h, j->flags);
        h = qp_hash_u32(h, j->a);
        h = qp_hash_u32(h, j->b);
        h = hash_v3(h, j->jp);
        h = qp_hash_u32(h, (uint32_t)j->ja[0]);
        h = qp_hash_u32(h, (uint32_t)j->ja[1]);
        h = qp_hash_u32(h, (uint32_t)j->jlo);
        h = qp_hash_u32(h, (uint32_t)j->jhi);
    }
    return h;
}


uint32_t qp_world_hash(const qp_world *w)
{
    uint32_t h = QP_HASH_INIT;
    if (!w) return h;
    for (int i = 1; i <= w->body_high && i <= QP_CFG_MAX_BODIES; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        h = qp_hash_u32(h, (uint32_t)i);
        h = qp_hash_u32(h, b->generation);
        h = qp_hash_u32(h, b->state);
        h = hash_v3(h, b->x);
        h = qp_hash_u32(h, (uint32_t)b->q.w);
        h = qp_hash_u32(h, (uint32_t)b->q.x);
        h = qp_hash_u32(h, (uint32_t)b->q.y);
        h = qp_hash_u32(h, (uint32_t)b->q.z);
        h = hash_v3(h, b->v);
        h = hash_v3(h, b->w);
    }
    for (int c = 0; c < w->contact_count && c < QP_CFG_MAX_CONTACTS; c++) {
        const qp_contact *ct = &w->contacts[c];
        h = qp_hash_u32(h, ct->a);
        h = qp_hash_u32(h, ct->b);
        h = qp_hash_u32(h, ct->sa);
        h = qp_hash_u32(h, ct->sb);
        h = qp_hash_u32(h, ct->count);
        for (int k = 0; k < ct->count && k < QP_MAX_MANIFOLD_POINTS; k++) {
            const qp_contact_point *p = &ct->p[k];
            h = qp_hash_u32(h, p->id);
            h = qp_hash_u32(h, (uint32_t)p->jn);
        }
        h = qp_hash_u32(h, (uint32_t)ct->jt1);
        h = qp_hash_u32(h, (uint32_t)ct->jt2);
        h = qp_hash_u32(h, (uint32_t)ct->jtw);
    }
    /* Shape options (sensor, filter) that are not the defaults, and the sensor overlaps:
     * a world without them hashes as before. */
    for (int s = 0; s < QP_CFG_MAX_SHAPES; s++) {
        const qp_shape_slot *sl = &w->shapes[s];
        if (sl->body == 0 || (sl->flags == 0 && sl->filter.category == 1 && sl->filter.mask == 0xFFFFu &&
                              sl->filter.group == 0))
            continue;
        h = qp_hash_u32(h, ((uint32_t)sl->body << 16) | ((uint32_t)sl->slot << 8) | sl->flags);
        h = qp_hash_u32(h, ((uint32_t)sl->filter.category << 16) | sl->filter.mask);
        h = qp_hash_u32(h, (uint32_t)(int32_t)sl->filter.group);
    }
    for (int k = 0; k < w->sensor_overlap_count && k < QP_CFG_MAX_SENSOR_OVERLAPS; k++)
        h = qp_hash_u32(h, ((uint32_t)w->sensor_overlaps[k].a << 16) | w->sensor_overlaps[k].b);
    if (w->joint_count > 0) h = hash_joints(h, w);
    return h;
}
