/* SPDX-License-Identifier: MIT */
/* The state hash (docs/design.md §8): 32-bit FNV-1a over every value that can change a
 * later step, fed word by word with qp_hash_u32 (values, never raw struct bytes, whose
 * padding and byte order differ between targets).
 *
 * The hash is a list of blocks, each opened by a tag word so that no two blocks can run
 * into each other. Adding state (joints, kinematic bodies) means adding a block to the
 * table at the end of this file, or fields to a block, and to the list in world.h.
 *
 *   def        every field of the world definition
 *   slots      every body slot in index order: a used one as its index and its body hash
 *              (qp_body_hash, below), a free one that was used as its index and generation
 *              (the generation the next body created there gets)
 *   contacts   the count, then every contact in the array's order (sorted by bodies and
 *              shape slots): what one step hands the next (narrow_phase.c's qp_contact_cache,
 *              the points' depths included where a kept manifold may reuse them)
 *   sensors    the count, then every sensor overlap (shape pool indices), in their order
 *   joints     every joint slot that is live (all its fields: bodies, type, flags, anchors,
 *              axes, limits, drift time, accumulated impulses; for a fixed, slider or cone
 *              joint or one with a motor, spring or break impulse also those options and
 *              their accumulated impulses) or was used (its generation). Not its load nor
 *              the collision pass's impulses: reports of the last step, found anew each step
 *
 * Not hashed, and why (world.h says the same for users):
 *   derived, kept in step with hashed state: rotation matrix r and world inverse inertia
 *     (qp__body_sync after every change of q; absent with QP_CFG_LOW_RAM), body_high (the
 *     highest used slot), the broad phase's sap_order (re-sorted by the unique key (box low
 *     x, shape index) before it is read), the contact adjacency (rebuilt from the contacts);
 *   per-step scratch, written by a stage of every step before any read of that step: body
 *     level, island, supports and load (contact graph, sleep), pairs, solver rows, predicted
 *     poses and split-impulse velocities, and the contact fields that the narrow phase
 *     rebuilds for every contact (ab, ca, cb, twist radius, jp, st1..stw, and the depths of
 *     one whose manifold cannot be kept: qp__contact_depths_live);
 *   statistics: a report of past steps that no stage reads (stats.step, counts, peaks).
 */
#include "hash_inline.h"
#include "qphys/mesh.h"
#include "qphys/world.h"
#include "contact.h"
#include "joint.h"

/* Block tags: "DEF ", "SLOT", "CONT" as numbers. */
#define TAG_DEF 0x20464544u
#define TAG_SLOTS 0x544F4C53u
#define TAG_CONTACTS 0x544E4F43u
#define TAG_FREE 0x45455246u
#define TAG_SENSORS 0x534E4553u
#define TAG_JOINTS 0x4E494F4Au

static uint32_t h32(uint32_t h, int32_t v) { return qp__hash_u32(h, (uint32_t)v); }

static uint32_t hash_v3(uint32_t h, qp_vec3 v)
{
    h = h32(h, v.x);
    h = h32(h, v.y);
    return h32(h, v.z);
}

static uint32_t hash_quat(uint32_t h, qp_quat q)
{
    h = h32(h, q.w);
    h = h32(h, q.x);
    h = h32(h, q.y);
    return h32(h, q.z);
}

static uint32_t hash_box(uint32_t h, const qp_aabb *b)
{
    return hash_v3(hash_v3(h, b->lo), b->hi);
}

static uint32_t hash_def(uint32_t h, const qp_world *w)
{
    const qp_world_def *d = &w->def;
    h = qp__hash_u32(h, TAG_DEF);
    h = hash_v3(h, d->gravity);
    h = h32(h, d->dt);
    h = h32(h, d->collision_iterations);
    h = h32(h, d->contact_iterations);
    h = h32(h, d->shock_iterations);
    h = h32(h, d->penetration_iterations);
    h = h32(h, d->restitution_ramp);
    h = h32(h, d->alternate_sweeps);
    h = h32(h, d->accumulate_impulses);
    h = h32(h, d->warm_start);
    h = h32(h, d->contact_margin);
    h = h32(h, d->slop);
    h = h32(h, d->gap_tolerance);
    h = h32(h, d->penetration_rate);
    h = h32(h, d->max_penetration_speed);
    h = h32(h, d->bounce_threshold);
    h = h32(h, d->max_linear_speed);
    h = h32(h, d->max_angular_speed);
    h = h32(h, d->bounds);
    if (d->gyroscopic) h = h32(h, 1);   /* only when on: off adds nothing to the hash */
    if (d->joint_tree) h = h32(h, 2);
    h = h32(h, d->sleep_enabled);
    h = h32(h, (int32_t)d->sleep_policy);
    h = h32(h, d->sleep_center_size);
    h = h32(h, d->sleep_point_size);
    h = h32(h, d->sleep_steps);
    h = h32(h, d->sleep_energy);
    h = h32(h, d->sleep_energy_bias);
    h = h32(h, d->wake_energy_factor);
    h = h32(h, d->wake_speed);
    h = h32(h, d->wake_velocity);
    return h32(h, d->min_awake_steps);
}

/* One shape of a body: its pool index (the tie-break of the broad phase's order, and which
 * slots the next created body gets), its geometry in the body frame, and its box (read by
 * the next broad phase as it is for a body that does not move). */
static uint32_t hash_shape(uint32_t h, const qp_world *w, int pool)
{
    const qp_shape_slot *s = &w->shapes[pool];
    h = h32(h, pool);
    h = h32(h, (int32_t)s->shape.type);
    h = hash_v3(h, s->shape.offset);
    h = hash_quat(h, s->shape.rotation);
    if (s->shape.type == QP_SHAPE_MESH) {
        h = h32(h, (int32_t)s->shape.mesh->checksum);          /* referenced geometry: its identity */
    } else if (s->shape.type == QP_SHAPE_HEIGHTFIELD) {
        h = h32(h, (int32_t)s->shape.heightfield->checksum);
    } else if (s->shape.type == QP_SHAPE_HULL) {
        h = h32(h, (int32_t)s->shape.hull->checksum);   /* its vertices (never the pointer) */
        h = h32(h, s->shape.hull->vert_count);
    } else {
        h = hash_v3(h, s->shape.half);       /* box half extents, plane normal, or radius first */
        h = h32(h, s->shape.half_height);    /* capsule half height or plane offset */
    }
    h = h32(h, s->flags);                /* sensor */
    h = h32(h, s->filter.category);
    h = h32(h, s->filter.mask);
    h = h32(h, s->filter.group);
    return hash_box(h, &s->aabb);
}

/* One used body: every field of qp_body_state but the derived and scratch ones. */
static uint32_t hash_body(const qp_world *w, int i)
{
    const qp_body_state *b = &w->bodies[i];
    uint32_t h = QP_HASH_INIT;
    h = h32(h, i);
    h = h32(h, b->generation);
    h = h32(h, b->state);
    h = h32(h, b->flags);
    h = hash_v3(h, b->x);
    h = hash_quat(h, b->q);
    h = hash_v3(h, b->v);
    h = hash_v3(h, b->w);
    h = hash_v3(h, qp__body_force(w, b));
    h = hash_v3(h, qp__body_torque(w, b));
    h = hash_v3(h, qp__body_local_center(w, b));
    const qp_mat3 inv_inertia_local = qp__body_inv_inertia_local(b);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) h = h32(h, inv_inertia_local.m[r][c]);
    h = h32(h, b->mass);
    h = h32(h, b->inv_mass);
    h = h32(h, qp__body_friction(w, b));
    h = h32(h, qp__body_static_friction(w, b));
    h = h32(h, qp__body_restitution(w, b));
    if (qp__body_rolling_resistance(w, b) != 0)   /* 0 (the default) adds nothing */
        h = h32(h, qp__body_rolling_resistance(w, b));
    h = qp__hash_u32(h, b->user_data);
    h = h32(h, b->still_steps);
    h = h32(h, b->awake_steps);
    h = h32(h, b->motion);
    for (int k = 0; k < 3; k++) {
        const qp_aabb box = qp__sleep_box(b, k);
        h = hash_box(h, &box);
    }
    h = h32(h, b->shape_count);
    for (int k = 0; k < b->shape_count && k < QP_CFG_MAX_BODY_SHAPES; k++) h = hash_shape(h, w, b->shapes[k]);
    return h;
}

uint32_t qp_body_hash(const qp_world *w, qp_body_id id)
{
    if (!w || id.index == 0 || id.index > qp__cap_bodies(w)) return 0;
    const qp_body_state *b = &w->bodies[id.index];
    if (!(b->state & QP_STATE_USED) || b->generation != id.generation) return 0;
    return hash_body(w, id.index);
}

static uint32_t hash_slots(uint32_t h, const qp_world *w)
{
    h = qp__hash_u32(h, TAG_SLOTS);
    for (int i = 1; i <= qp__cap_bodies(w); i++) {
        const qp_body_state *b = &w->bodies[i];
        if (b->state & QP_STATE_USED) {
            h = h32(h, i);
            h = qp__hash_u32(h, hash_body(w, i));
        } else if (b->generation) {
            h = qp__hash_u32(h, TAG_FREE);
            h = h32(h, i);
            h = h32(h, b->generation);
        }
    }
    return h;
}

static uint32_t hash_contacts(uint32_t h, const qp_world *w)
{
    h = qp__hash_u32(h, TAG_CONTACTS);
    h = h32(h, w->contact_count);
    for (int c = 0; c < w->contact_count && c < qp__cap_contacts(w); c++) {
        const qp_contact *ct = &w->contacts[c];
        h = h32(h, ct->a);
        h = h32(h, ct->b);
        h = h32(h, ct->sa);
        h = h32(h, ct->sb);
        h = h32(h, ct->count);
        h = h32(h, ct->flags);
        h = hash_v3(h, ct->n);
        h = hash_v3(h, ct->anchor_a);
        h = hash_v3(h, ct->anchor_b);
        h = h32(h, ct->jt1);
        h = h32(h, ct->jt2);
        h = h32(h, ct->jtw);
        for (int k = 0; k < ct->count && k < QP_MAX_MANIFOLD_POINTS; k++) {
            const qp_contact_point *p = &ct->p[k];
            h = qp__hash_u32(h, p->id);
            h = hash_v3(h, p->ra);
            h = h32(h, p->jn);
            if (qp__contact_depths_live(ct->flags, ct->count)) h = h32(h, p->depth);
        }
    }
    return h;
}

static uint32_t hash_sensors(uint32_t h, const qp_world *w)
{
    h = qp__hash_u32(h, TAG_SENSORS);
    h = h32(h, w->sensor_overlap_count);
    for (int k = 0; k < w->sensor_overlap_count && k < qp__cap_sensor_overlaps(w); k++) {
        h = h32(h, w->sensor_overlaps[k].a);
        h = h32(h, w->sensor_overlaps[k].b);
    }
    return h;
}

static uint32_t hash_joints(uint32_t h, const qp_world *w)
{
    h = qp__hash_u32(h, TAG_JOINTS);
    for (int i = 1; i <= qp__cap_joints(w); i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a == 0) {
            if (j->generation == 0) continue;
            h = qp__hash_u32(h, TAG_FREE);
            h = h32(h, i);
            h = h32(h, j->generation);
            continue;
        }
        h = h32(h, i);
        h = h32(h, j->generation);
        h = h32(h, j->type);
        h = h32(h, j->flags);
        h = h32(h, j->a);
        h = h32(h, j->b);
        h = hash_v3(h, j->la);
        h = hash_v3(h, j->lb);
        h = hash_v3(h, j->axis_a);
        h = hash_v3(h, j->axis_b);
        h = hash_v3(h, j->ref_a);
        h = hash_v3(h, j->ref_b);
        h = h32(h, j->lower);
        h = h32(h, j->upper);
        h = h32(h, j->drift_time);
        h = hash_v3(h, j->jp);
        h = h32(h, j->ja[0]);
        h = h32(h, j->ja[1]);
        h = h32(h, j->jlo);
        h = h32(h, j->jhi);
        if (!qp__joint_extended(j)) continue;   /* the first kinds' joints hash as they always did */
        h = h32(h, j->ja[2]);
        h = h32(h, j->swing);
        h = h32(h, QP__DRIVE(j, motor_speed));
        h = h32(h, QP__DRIVE(j, motor_max));
        h = h32(h, QP__DRIVE(j, spring_hz));
        h = h32(h, QP__DRIVE(j, spring_damping));
        h = h32(h, QP__DRIVE(j, spring_target));
        h = h32(h, QP__DRIVE(j, spring_max));
        h = h32(h, QP__DRIVE(j, break_impulse));
        h = h32(h, QP__DRIVE(j, jm));
        h = h32(h, QP__DRIVE(j, js));
        if (QP__DRIVE(j, friction) != 0) h = h32(h, QP__DRIVE(j, friction));   /* only where a joint has friction */
    }
    return h;
}

/* The blocks, in hash order. New state goes here as one more line. */
static uint32_t (*const hash_blocks[])(uint32_t h, const qp_world *w) = {
    hash_def,
    hash_slots,
    hash_contacts,
    hash_sensors,
    hash_joints,
};

uint32_t qp_world_hash(const qp_world *w)
{
    uint32_t h = QP_HASH_INIT;
    if (!w) return h;
    for (unsigned k = 0; k < sizeof hash_blocks / sizeof hash_blocks[0]; k++) h = hash_blocks[k](h, w);
    return h;
}
