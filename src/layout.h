/* SPDX-License-Identifier: MIT */
/* The two memory layouts of a world (include/qphys/config.h, QP_CFG_LOW_RAM), as the
 * stages see them. The default layout keeps what it derives from the state for as long
 * as it holds: each body's rotation matrix and world inverse inertia, the predicted
 * rotations, the solver rows of contacts and joints. The low-RAM layout (the micro:bit's)
 * keeps none of it and derives it again, to the same bits, where it is used. The
 * functions below are that difference for the bodies, the predicted poses, the broad
 * phase's sort, the rotations the narrow phase collides a pair at, the velocity passes'
 * sweep list and kept copies, and the joint rows; the contact rows' is in layout_rows.h. */
#ifndef QPHYS_LAYOUT_H
#define QPHYS_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include "qphys/world.h"
#include "compiler.h"
#include "joint.h"
#include "scratch.h"
#include "math_inline.h"

/* 1 where the world keeps the data derived from the state (the default), 0 in low-RAM. */
#define QP_LAYOUT_KEEPS_DERIVED (!QP_CFG_LOW_RAM)
/* 1 where the passes build a contact's solver rows at each visit (low-RAM), 0 where they
 * read the rows kept for the step. */
#define QP_LAYOUT_BUILDS_ROWS (!QP_LAYOUT_KEEPS_DERIVED)

/* A body's rotation matrix and world inverse inertia: kept up to date by
 * qp__body_sync, or (low-RAM) computed here by the same functions. */
static inline qp_rot3 qp__body_rot(const qp_body_state *b)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return b->r;
#else
    return qp_quat_to_rot3(b->q);
#endif
}

/* A body's inverse inertia in its own frame, exactly symmetric (body.c makes it so and
 * snapshot.c refuses any other): low-RAM keeps its six distinct entries. */
static inline qp_mat3 qp__body_inv_inertia_local(const qp_body_state *b)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return b->inv_inertia_local;
#else
    const fix16_t *e = b->inv_inertia_local6;
    qp_mat3 m = { { { e[0], e[3], e[4] }, { e[3], e[1], e[5] }, { e[4], e[5], e[2] } } };
    return m;
#endif
}

/* Set it: m must be symmetric (in the default layout too, which keeps it whole). */
static inline void qp__body_set_inv_inertia_local(qp_body_state *b, const qp_mat3 *m)
{
#if QP_LAYOUT_KEEPS_DERIVED
    b->inv_inertia_local = *m;
#else
    fix16_t *e = b->inv_inertia_local6;
    e[0] = m->m[0][0], e[1] = m->m[1][1], e[2] = m->m[2][2];
    e[3] = m->m[0][1], e[4] = m->m[0][2], e[5] = m->m[1][2];
#endif
}

static inline qp_mat3 qp__body_inv_inertia(const qp_body_state *b)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return b->inv_inertia;
#else
    if (!(b->state & QP_STATE_DYNAMIC)) return qp_mat3_zero();
    qp_rot3 r = qp_quat_to_rot3(b->q);
    qp_mat3 local = qp__body_inv_inertia_local(b);
    return qp_mat3_rotate(&r, &local);
#endif
}

/* What low-RAM keeps beside the bodies, read in world w: body b's material (its own
 * fields, or the world's palette entry it names, one for each distinct material:
 * qp__body_set_material), the force and torque pending on it for the next step and its
 * centre of mass in its own frame (its fields, or its entries in the world's lists of the
 * bodies with one; none: zero). The default layout's are the body's fields, read as
 * expressions of them (macros), so that its stages compile as they read them. */
#if QP_LAYOUT_KEEPS_DERIVED
#define qp__body_friction(w, b) ((b)->friction)
#define qp__body_static_friction(w, b) ((b)->static_friction)
#define qp__body_restitution(w, b) ((b)->restitution)
#define qp__body_rolling_resistance(w, b) ((b)->rolling_resistance)
#define qp__body_force(w, b) ((b)->force)
#define qp__body_torque(w, b) ((b)->torque)
#define qp__body_has_torque(w, b) (((b)->torque.x | (b)->torque.y | (b)->torque.z) != 0)
#define qp__body_local_center(w, b) ((b)->local_center)
#else
static QP__ALWAYS_INLINE fix16_t qp__body_friction(const qp_world *w, const qp_body_state *b)
{
    return w->materials[b->material].friction;
}

static QP__ALWAYS_INLINE fix16_t qp__body_static_friction(const qp_world *w, const qp_body_state *b)
{
    return w->materials[b->material].static_friction;
}

static QP__ALWAYS_INLINE fix16_t qp__body_restitution(const qp_world *w, const qp_body_state *b)
{
    return w->materials[b->material].restitution;
}

static QP__ALWAYS_INLINE fix16_t qp__body_rolling_resistance(const qp_world *w, const qp_body_state *b)
{
    return w->materials[b->material].rolling_resistance;
}

static QP__ALWAYS_INLINE const qp_body_forces *qp__body_forces_entry(const qp_world *w, const qp_body_state *b)
{
    const int i = (int)(b - w->bodies);
    for (int k = 0; k < w->forced_count; k++)
        if (w->forced[k] == i) return &w->forces[k];
    return NULL;
}

static QP__ALWAYS_INLINE qp_vec3 qp__body_force(const qp_world *w, const qp_body_state *b)
{
    const qp_body_forces *f = qp__body_forces_entry(w, b);
    return f ? f->force : qp_v3_zero();
}

static QP__ALWAYS_INLINE qp_vec3 qp__body_torque(const qp_world *w, const qp_body_state *b)
{
    const qp_body_forces *f = qp__body_forces_entry(w, b);
    return f ? f->torque : qp_v3_zero();
}

static QP__ALWAYS_INLINE bool qp__body_has_torque(const qp_world *w, const qp_body_state *b)
{
    const qp_body_forces *f = qp__body_forces_entry(w, b);
    return f && (f->torque.x | f->torque.y | f->torque.z) != 0;
}

static QP__ALWAYS_INLINE qp_vec3 qp__body_local_center(const qp_world *w, const qp_body_state *b)
{
    const int i = (int)(b - w->bodies);
    for (int k = 0; k < w->offset_count; k++)
        if (w->offset_bodies[k] == i) return w->offsets[k];
    return qp_v3_zero();
}
#endif

static inline qp_body_material qp__body_material(const qp_world *w, const qp_body_state *b)
{
    (void)w;   /* unread by the default layout's macros */
    qp_body_material m = { qp__body_friction(w, b), qp__body_static_friction(w, b), qp__body_restitution(w, b),
                           qp__body_rolling_resistance(w, b) };
    return m;
}

/* The material a body of def d gets (its static friction, when negative, is its friction). */
qp_body_material qp__material_of(const qp_body_def *d);

/* Give body b (not yet used, or whose material changes) material m: low-RAM names the
 * palette's entry equal to m, fills a new one, or takes one no used body but b names.
 * False (nothing changed) when the palette holds QP_CFG_MAX_MATERIALS others. */
bool qp__body_set_material(qp_world *w, qp_body_state *b, const qp_body_material *m);

/* The palette entry of pal[0..*count) (at most QP_CFG_MAX_MATERIALS) equal to m, or a new
 * one after them; -1 when they are all taken (low-RAM; body.c, snapshot.c). */
int qp__material_entry(qp_body_material *pal, int *count, const qp_body_material *m);

/* Can a body's centre be c: zero, or (low-RAM) the list has room for one more. */
static inline bool qp__local_center_fits(const qp_world *w, qp_vec3 c)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w, (void)c;
    return true;
#else
    return (c.x | c.y | c.z) == 0 || w->offset_count < QP_CFG_MAX_OFFSET_BODIES;
#endif
}

/* Does a body of def d (a valid one) have its centre of mass off its origin? */
bool qp__body_def_offset(const qp_body_def *d);

/* Set body i's centre, which has none (a body being made), to c (qp__local_center_fits). */
void qp__body_set_local_center(qp_world *w, int i, qp_vec3 c);

/* Where body i's pending force (which 0) or torque (1) is kept: low-RAM gives it an entry
 * in the list (zero) if it has none, or NULL when the list is full. */
qp_vec3 *qp__body_force_slot(qp_world *w, int i, int which);

/* Body i is gone: its pending forces and centre too (low-RAM drops their entries). */
void qp__body_lists_drop(qp_world *w, int i);

/* The step applied every pending force and torque (integrate.c): the default layout zeroes
 * body b's, low-RAM empties its list. */
static QP__ALWAYS_INLINE void qp__body_forces_applied(qp_world *w, qp_body_state *b)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w;
    b->force = b->torque = qp_v3_zero();
#else
    (void)b;
    w->forced_count = 0;
#endif
}

/* The largest sleep test size (world.c): low-RAM keeps a sleep box's size in 16 bits. */
#if QP_LAYOUT_KEEPS_DERIVED
#define QP_LAYOUT_SLEEP_SIZE_MAX QP_ONE
#else
#define QP_LAYOUT_SLEEP_SIZE_MAX (QP_ONE - 1)
#endif

/* Sleep box k of body b (sleep.c), and setting it: lo <= hi, and (low-RAM, which keeps
 * the size in 16 bits) hi - lo at most QP_LAYOUT_SLEEP_SIZE_MAX on each axis, as the sleep
 * test's boxes are (one that grows past its size starts again from a point). */
static inline qp_aabb qp__sleep_box(const qp_body_state *b, int k)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return b->sleep_box[k];
#else
    const qp_vec3 lo = b->sleep_lo[k];
    const uint16_t *d = b->sleep_size[k];
    qp_aabb box = { lo, { lo.x + d[0], lo.y + d[1], lo.z + d[2] } };
    return box;
#endif
}

static inline void qp__sleep_box_set(qp_body_state *b, int k, const qp_aabb *box)
{
#if QP_LAYOUT_KEEPS_DERIVED
    b->sleep_box[k] = *box;
#else
    b->sleep_lo[k] = box->lo;
    b->sleep_size[k][0] = (uint16_t)(box->hi.x - box->lo.x);
    b->sleep_size[k][1] = (uint16_t)(box->hi.y - box->lo.y);
    b->sleep_size[k][2] = (uint16_t)(box->hi.z - box->lo.z);
#endif
}

/* Can the layout keep this sleep box (a restored snapshot's)? Low-RAM: lo <= hi and the
 * sizes in 16 bits, as every box the sleep test makes; the default layout keeps any. */
static inline bool qp__sleep_box_fits(const qp_aabb *box)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)box;
    return true;
#else
    const int64_t d[3] = { (int64_t)box->hi.x - box->lo.x, (int64_t)box->hi.y - box->lo.y,
                           (int64_t)box->hi.z - box->lo.z };
    for (int i = 0; i < 3; i++)
        if (d[i] < 0 || d[i] > QP_LAYOUT_SLEEP_SIZE_MAX) return false;
    return true;
#endif
}

/* After b's orientation changed: its kept rotation matrix and world inverse inertia
 * from q (low-RAM keeps nothing: the two functions above compute them). */
static QP__ALWAYS_INLINE void qp__body_keep_derived(qp_body_state *b)
{
#if QP_LAYOUT_KEEPS_DERIVED
    b->r = qp_quat_to_rot3(b->q);
    if (b->state & QP_STATE_DYNAMIC) b->inv_inertia = qp_mat3_rotate(&b->r, &b->inv_inertia_local);
#else
    (void)b;
#endif
}

/* Where the predicted rotation of body i goes: the world's copy, which the narrow phase
 * reads (one conversion a body, not one a pair), or (low-RAM) the caller's *scratch. */
static QP__ALWAYS_INLINE qp_rot3 *qp__predicted_rot_at(qp_world *w, int i, qp_rot3 *scratch)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)scratch;
    return &qp__pred(w)->r[i];
#else
    (void)w, (void)i;
    return scratch;
#endif
}

/* The predicted rotation of body i, b, is its rotation now (it does not move this step). */
static QP__ALWAYS_INLINE void qp__predicted_rot_unmoved(qp_world *w, int i, const qp_body_state *b)
{
#if QP_LAYOUT_KEEPS_DERIVED
    qp__pred(w)->r[i] = b->r;   /* qp_quat_to_rot3(b->q), kept by qp__body_sync */
#else
    (void)w, (void)i, (void)b;
#endif
}

/* A stage is about to use the memory the velocity passes share with it: low-RAM's
 * per-body inverse inertia and contact tangents there (passes_kept) are gone. */
static QP__ALWAYS_INLINE void qp__passes_forget(qp_world *w)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w;
#else
    w->passes_kept = 0;
#endif
}

/* Low-RAM's copies for the solver rows (scratch.h, passes): each body's world inverse
 * inertia (symmetric: xx yy zz xy xz yz) and each awake contact's first friction tangent
 * (its two components beside the zero), found once in the collision pass for the passes
 * up to the penetration pass. The *_at forms give the slot to keep one in, the *_kept
 * forms read it while qp__passes_kept (from qp__passes_keep to qp__passes_forget). The
 * default layout has no copies (its bodies and rows hold the same): NULL, and never kept. */
static QP__ALWAYS_INLINE bool qp__passes_kept(const qp_world *w)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w;
    return false;
#else
    return w->passes_kept != 0;
#endif
}

static QP__ALWAYS_INLINE void qp__passes_keep(qp_world *w)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w;
#else
    w->passes_kept = 1;
#endif
}

static QP__ALWAYS_INLINE fix16_t *qp__inv_inertia6_at(qp_world *w, int body)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w, (void)body;
    return NULL;
#else
    return qp__passes(w)->inv_inertia6[body];
#endif
}

static QP__ALWAYS_INLINE const fix16_t *qp__inv_inertia6_kept(const qp_world *w, int body)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w, (void)body;
    return NULL;
#else
    return qp__passes(w)->inv_inertia6[body];
#endif
}

static QP__ALWAYS_INLINE int32_t *qp__tangent_at(qp_world *w, int contact)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w, (void)contact;
    return NULL;
#else
    return qp__passes(w)->tangent[contact];
#endif
}

static QP__ALWAYS_INLINE const int32_t *qp__tangent_kept(const qp_world *w, int contact)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w, (void)contact;
    return NULL;
#else
    return qp__passes(w)->tangent[contact];
#endif
}

/* Room for the broad phase to sort the pairs through (broad_phase.c): the rows' memory,
 * dead until the collision pass makes the rows; none in low-RAM, which keeps no rows. */
static inline qp_pair *qp__pair_sort_scratch(qp_world *w)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return w->pair_scratch;
#else
    (void)w;
    return NULL;
#endif
}

/* The rows' memory as scratch, in bytes, from the broad phase until the collision pass makes
 * the rows (the same memory as qp__pair_sort_scratch): the broad phase's grid of cells
 * (broad_phase.c) and the narrow phase's wakes (sleep.c, qp__wake_body_among); none in low-RAM. */
static inline void *qp__rows_scratch(qp_world *w, unsigned long *bytes)
{
#if QP_LAYOUT_KEEPS_DERIVED
    /* The rows of every contact the world holds (w->rows is a pointer where capacities are
     * set at run time: its size is not the pool's). */
    *bytes = (unsigned long)qp__cap_contacts(w) * sizeof *w->rows;
    return w->rows;
#else
    (void)w;
    *bytes = 0;
    return NULL;
#endif
}

/* The list of the contacts a velocity pass's sweeps still visit, in their order
 * (passes.sweep, scratch.h: solve_contacts.c, shock.c), or NULL in low-RAM, which has no
 * room for it: its passes walk every contact in contact-graph order and skip the others
 * (the same visits). */
static QP__ALWAYS_INLINE qp_sweep_item *qp__sweep_list(qp_world *w)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return qp__passes(w)->sweep;
#else
    (void)w;
    return NULL;
#endif
}

/* The solver rows of joint slot i (1-based, joint.h): the world's copy, made once a step by
 * qp__joint_rows_keep, or (low-RAM without joint trees, which keeps none) made into *scratch
 * at each use, to the same bits (the poses do not change between the passes). */
static inline const qp_joint_rows *qp__joint_rows_at(qp_world *w, int i, qp_joint_rows *scratch)
{
#if QP__KEEPS_JOINT_ROWS
    (void)scratch;
    return &w->joint_rows[i - 1];
#else
    qp__joint_rows(w, &w->joints[i - 1], scratch);
    return scratch;
#endif
}

static inline void qp__joint_rows_keep(qp_world *w, int i)
{
#if QP__KEEPS_JOINT_ROWS
    qp__joint_rows(w, &w->joints[i - 1], &w->joint_rows[i - 1]);
#else
    (void)w, (void)i;
#endif
}

/* The rotations a pair of bodies a, b is collided at (narrow_phase.c): at their start
 * poses (swept) or predicted ones. The default layout points at the kept ones; low-RAM
 * makes them from the quaternions, and reuses the pair before's for a quaternion that
 * comes back bit for bit (pairs come sorted by body, so body a's comes back often, or the
 * last b's as this a). Started once per narrow phase, then kept from pair to pair. */
typedef struct {
    const qp_rot3 *ra, *rb;
#if !QP_LAYOUT_KEEPS_DERIVED
    qp_quat qa, qb;               /* the quaternions r[0], r[1] were made from */
    qp_rot3 r[2];
    bool made;
#endif
} qp_pair_rotations;

static inline void qp__pair_rotations_start(qp_pair_rotations *p)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)p;
#else
    p->made = false;
#endif
}

#if !QP_LAYOUT_KEEPS_DERIVED
static inline void qp__pair_rotations_make(qp_pair_rotations *p, qp_quat qa, qp_quat qb)
{
    const qp_quat q[2] = { qa, qb };
    qp_rot3 r[2];
    for (int s = 0; s < 2; s++) {
        if (p->made && qp__same_quat(q[s], p->qa)) r[s] = p->r[0];
        else if (p->made && qp__same_quat(q[s], p->qb)) r[s] = p->r[1];
        else r[s] = qp_quat_to_rot3(q[s]);
    }
    p->qa = qa;
    p->qb = qb;
    p->r[0] = r[0];
    p->r[1] = r[1];
    p->made = true;
    p->ra = &p->r[0];
    p->rb = &p->r[1];
}
#endif

static inline void qp__pair_rotations_at(qp_pair_rotations *p, const qp_world *w, int a, int b, bool swept)
{
    const qp_body_state *ba = &w->bodies[a], *bb = &w->bodies[b];
#if QP_LAYOUT_KEEPS_DERIVED
    p->ra = swept ? &ba->r : &qp__pred(w)->r[a];
    p->rb = swept ? &bb->r : &qp__pred(w)->r[b];
#else
    qp__pair_rotations_make(p, swept ? ba->q : qp__pred(w)->q[a], swept ? bb->q : qp__pred(w)->q[b]);
#endif
}

#endif
