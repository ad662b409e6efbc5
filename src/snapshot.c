/* SPDX-License-Identifier: MIT */
/* Snapshot and restore (docs/design.md §8): a world's state in a caller's buffer and back,
 * for rollback and for sending a state to another machine.
 *
 * Portable and compact: every number is written byte by byte, so a snapshot is the same
 * bytes on every target (x86, Arm, RISC-V, big-endian s390x, wasm) and any build whose
 * pools hold it can restore it. Only live bodies, their shapes and the persistent contacts
 * are written, so the size grows with the scene, not with the pools.
 *
 *   header   (16 bytes)  "QPS6", format u16, 0 u16, payload length u32, CRC-32 of the payload
 *   counts   (8 bytes)   bodies, shapes, contacts, free slots with a generation (u16 each)
 *   bodies   (4 each)    slot index u16 (increasing), shape count u8, state u8
 *   shapes   (2 each)    shape pool index u16, for each body in order, slot by slot
 *   stream               zigzag LEB128 varints: the world definition, statistics and
 *                        body_high; per body its state and its shapes; the generations of
 *                        free slots; the contacts (what one step hands the next:
 *                        narrow_phase.c's qp_contact_cache); each shape's options
 *                        (sensor, filter) and the sensor overlaps (format 4); the joint
 *                        slots that are live or have a generation, each live one whole (format 5);
 *                        each contact point's depth where a kept manifold may reuse it
 *                        (qp__contact_depths_live; format 6); each live joint's later
 *                        options (swing, motor, spring, break impulse) and their impulses (format 8)
 *                        and its friction (format 10); each body's rolling resistance (format 11);
 *                        a hull shape's corners in place of its sizes (format 9: the hull is
 *                        built again from them, and must give the same corners back). An older
 *                        format is refused (QP_ERR_BUFFER)
 * Little-endian fixed fields; a varint takes 1-5 bytes, small numbers (most of a resting
 * world) one.
 *
 * Restore trusts nothing: it checks the header, the CRC, every count against this build's
 * pools, every index (bodies increasing, shape pool indices unique, contacts sorted and
 * naming existing bodies and shape slots), every number against the range the engine can
 * produce (a number outside reads as its range's low end, so no later check computes with
 * it), and what the numbers mean together (a dynamic body's inverse mass and inertia are
 * the ones its mass and shapes give; sleepers are still; frozen bodies move and are
 * flagged; contacts name a dynamic body, and resting ones are marked sleeping), in a first
 * pass that writes nothing (docs/security.md lists every check). Only then is the world
 * rebuilt, from a second pass over the same bytes, and what derives from the state (rotation
 * matrices, world inertia, the broad phase's list, the contact graph's adjacency) is
 * recomputed. Any fault: QP_ERR_BUFFER (QP_ERR_FULL for a sound snapshot of a world larger
 * than this build's pools, which a board reports as a skip), and the world exactly as it was.
 */
#include <stddef.h>
#include <string.h>
#include "qphys/joint.h"
#include "qphys/mesh.h"
#include "body.h"
#include "contact.h"
#include "contact_graph.h"
#include "joint.h"
#include "world_check.h"

#define SNAP_MAGIC 0x36535051u /* "QPS6" */
#define SNAP_FORMAT 11u  /* 4: shape options and sensor overlaps; 5: joints; 6: contact depths;
                            7: the world's gyroscopic and joint_tree switches;
                            8: fixed, slider and cone joints, motors, springs, break impulses;
                            9: hull shapes by their corners, level shapes (meshes,
                            heightfields) by checksum; 10: joint friction;
                            11: rolling resistance */
#define SNAP_FORMAT_OLDEST 11u   /* 11 added a field to each body */
#define SNAP_HEADER 16u
#define SNAP_COUNTS 8u

_Static_assert(QP_MAX_MANIFOLD_POINTS == 4, "the contact record holds up to 4 points");

/* ---- CRC-32 (IEEE 802.3, reflected), a nibble at a time ------------------------------ */

static uint32_t crc32_of(const unsigned char *p, unsigned long n)
{
    static const uint32_t t[16] = { 0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
                                    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
                                    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu };
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned long i = 0; i < n; i++) {
        c ^= p[i];
        c = (c >> 4) ^ t[c & 15u];
        c = (c >> 4) ^ t[c & 15u];
    }
    return ~c;
}

/* ---- writing -------------------------------------------------------------------------- */

typedef struct {
    unsigned char *p; /* null: only count */
    unsigned long n;  /* bytes written (or counted) */
} writer;

static void put_byte(writer *o, unsigned v)
{
    if (o->p) o->p[o->n] = (unsigned char)v;
    o->n++;
}

static void put_fixed(writer *o, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) put_byte(o, (v >> (8 * i)) & 0xFFu);
}

static void put_u(writer *o, uint32_t v)
{
    while (v >= 0x80u) {
        put_byte(o, (v & 0x7Fu) | 0x80u);
        v >>= 7;
    }
    put_byte(o, v);
}

static void put_i(writer *o, int32_t v)
{
    put_u(o, v < 0 ? ((uint32_t)(-(v + 1)) << 1) | 1u : (uint32_t)v << 1);
}

static void put_v3(writer *o, qp_vec3 v)
{
    put_i(o, v.x);
    put_i(o, v.y);
    put_i(o, v.z);
}

static void put_quat(writer *o, qp_quat q)
{
    put_i(o, q.w);
    put_i(o, q.x);
    put_i(o, q.y);
    put_i(o, q.z);
}

/* ---- reading, with a range for every number --------------------------------------------- */

/* The level shapes (meshes, heightfields) of the world a snapshot is restored into: a
 * snapshot names each by its checksum, and restores it only onto the same geometry at
 * the same shape slot (level shapes are referenced, never copied). */
#define SNAP_MAX_LEVELS 8
typedef struct {
    int count;
    uint16_t pool[SNAP_MAX_LEVELS];
    qp_shape shape[SNAP_MAX_LEVELS];
} level_table;

typedef struct {
    const unsigned char *p;
    unsigned long n, at;
    int bad;
    const qp_world_caps *cap;     /* the capacities of the world it is read into */
    qp_world_caps *need;          /* null, or the capacities it needs so far (qp_snapshot_caps:
                                   * no world, so level shapes are not matched nor hulls built) */
    bool level_missing;           /* a level shape the world does not hold */
    const level_table *levels;
    /* Hull shapes: where each is built (the first pass: the target world's scratch, again
     * from its start for each body; the second: the world's pool in order), how many were
     * read, and whether one found no room. */
    qp_hull *hulls;
    int hull_next, hull_cap, hull_total, hull_short;
#if !QP_LAYOUT_KEEPS_DERIVED
    /* The bodies' materials, pending forces and offset centres: the first pass fills a
     * palette of its own and counts the others, the second fills the world's palette and
     * lists; one more than any holds is short (QP_ERR_FULL). */
    qp_body_material *materials;
    int material_count;
    int lists_short;              /* a material or a body more than this build's lists hold */
    int forced_count;             /* the bodies with a force pending so far */
    int offset_count;             /* the bodies with an offset centre so far */
#endif
} reader;

static uint32_t level_checksum(const qp_shape *s)
{
    return s->type == QP_SHAPE_MESH ? s->mesh->checksum : s->heightfield->checksum;
}

/* Record that the snapshot needs capacity `field` to be at least v. */
#define NEED(in, field, v)                                                                                    \
    do {                                                                                                      \
        if ((in)->need && (int)(v) > (in)->need->field) (in)->need->field = (int)(v);                        \
    } while (0)

static uint32_t get_fixed(reader *in, int bytes)
{
    uint32_t v = 0;
    if (in->at + (unsigned long)bytes > in->n) {
        in->bad = 1;
        return 0;
    }
    for (int i = 0; i < bytes; i++) v |= (uint32_t)in->p[in->at++] << (8 * i);
    return v;
}

static uint32_t get_u(reader *in)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (in->at >= in->n) break;
        unsigned b = in->p[in->at++];
        if (shift == 28 && (b & 0x70u)) break; /* more than 32 bits */
        v |= (uint32_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u)) {
            if (b == 0 && shift > 0) break; /* not the shortest form: one state, one encoding */
            return v;
        }
    }
    in->bad = 1;
    return 0;
}

static int32_t get_i(reader *in)
{
    uint32_t u = get_u(in);
    return (u & 1u) ? -(int32_t)(u >> 1) - 1 : (int32_t)(u >> 1);
}

/* A number within [lo, hi]. One outside is a fault and reads as lo, so that no check after
 * it (a square, a sum) ever sees a value out of its range on the way to the refusal. */
static int32_t get_in(reader *in, int32_t lo, int32_t hi)
{
    int32_t v = get_i(in);
    if (v < lo || v > hi) {
        in->bad = 1;
        return lo;
    }
    return v;
}

/* An unsigned number (written by put_u) within [lo, hi]; one outside reads as lo. */
static uint32_t get_un(reader *in, uint32_t lo, uint32_t hi)
{
    uint32_t v = get_u(in);
    if (v < lo || v > hi) {
        in->bad = 1;
        return lo;
    }
    return v;
}

static qp_vec3 get_v3(reader *in, int32_t lim)
{
    qp_vec3 v;
    v.x = get_in(in, -lim, lim);
    v.y = get_in(in, -lim, lim);
    v.z = get_in(in, -lim, lim);
    return v;
}

/* A unit quaternion (Q2.30), within 2^-10 of length 1 as every stored one is. */
static qp_quat get_unit_quat(reader *in)
{
    qp_quat q;
    q.w = get_in(in, -QP_Q30_ONE - 1024, QP_Q30_ONE + 1024);
    q.x = get_in(in, -QP_Q30_ONE - 1024, QP_Q30_ONE + 1024);
    q.y = get_in(in, -QP_Q30_ONE - 1024, QP_Q30_ONE + 1024);
    q.z = get_in(in, -QP_Q30_ONE - 1024, QP_Q30_ONE + 1024);
    /* Each component within 2^30 + 2^10 (get_in): the four squares sum below 2^62.1. */
    int64_t sq = (int64_t)q.w * q.w + (int64_t)q.x * q.x + (int64_t)q.y * q.y + (int64_t)q.z * q.z;
    const int64_t one = (int64_t)1 << 60, tol = (int64_t)1 << 50;
    if (sq < one - tol || sq > one + tol) in->bad = 1;
    return q;
}

/* A unit vector (Q2.30), within 2^-10 of length 1. */
static qp_vec3 get_unit_v3(reader *in)
{
    qp_vec3 v = get_v3(in, QP_Q30_ONE + 1024);   /* the three squares sum below 2^61.6 */
    int64_t sq = (int64_t)v.x * v.x + (int64_t)v.y * v.y + (int64_t)v.z * v.z;
    const int64_t one = (int64_t)1 << 60, tol = (int64_t)1 << 50;
    if (sq < one - tol || sq > one + tol) in->bad = 1;
    return v;
}

/* ---- the stream: one description for writing and for reading -------------------------------- */

#define ANY INT32_MAX   /* any number but INT32_MIN, which no saturating result is and no negation takes */
/* How far past the bounds a frozen body may be: the step that froze it moved it at most
 * max_linear_speed dt twice, its velocity and its split impulse each clamped (15 m each at
 * the limits), and the joints' projection 1 m (project_joints.c). */
#define FROZEN_REACH QP_INT(200)

static void put_def(writer *o, const qp_world_def *d)
{
    put_v3(o, d->gravity);
    put_i(o, d->dt);
    put_i(o, d->collision_iterations);
    put_i(o, d->contact_iterations);
    put_i(o, d->shock_iterations);
    put_i(o, d->penetration_iterations);
    put_i(o, d->restitution_ramp);
    put_i(o, d->alternate_sweeps);
    put_i(o, d->accumulate_impulses);
    put_i(o, d->warm_start);
    put_i(o, d->contact_margin);
    put_i(o, d->slop);
    put_i(o, d->gap_tolerance);
    put_i(o, d->penetration_rate);
    put_i(o, d->max_penetration_speed);
    put_i(o, d->bounce_threshold);
    put_i(o, d->max_linear_speed);
    put_i(o, d->max_angular_speed);
    put_i(o, d->bounds);
    put_i(o, d->gyroscopic);
    put_i(o, d->joint_tree);
    put_i(o, d->sleep_enabled);
    put_i(o, (int32_t)d->sleep_policy);
    put_i(o, d->sleep_center_size);
    put_i(o, d->sleep_point_size);
    put_i(o, d->sleep_steps);
    put_i(o, d->sleep_energy);
    put_i(o, d->sleep_energy_bias);
    put_i(o, d->wake_energy_factor);
    put_i(o, d->wake_speed);
    put_i(o, d->wake_velocity);
    put_i(o, d->min_awake_steps);
}

static void get_def(reader *in, qp_world_def *d, uint32_t format)
{
    d->gravity = get_v3(in, ANY);
    d->dt = get_i(in);
    d->collision_iterations = get_i(in);
    d->contact_iterations = get_i(in);
    d->shock_iterations = get_i(in);
    d->penetration_iterations = get_i(in);
    d->restitution_ramp = get_in(in, 0, 1) != 0;
    d->alternate_sweeps = get_in(in, 0, 1) != 0;
    d->accumulate_impulses = get_in(in, 0, 1) != 0;
    d->warm_start = get_in(in, 0, 1) != 0;
    d->contact_margin = get_i(in);
    d->slop = get_i(in);
    d->gap_tolerance = get_i(in);
    d->penetration_rate = get_i(in);
    d->max_penetration_speed = get_i(in);
    d->bounce_threshold = get_i(in);
    d->max_linear_speed = get_i(in);
    d->max_angular_speed = get_i(in);
    d->bounds = get_i(in);
    d->gyroscopic = format >= 7 && get_in(in, 0, 1) != 0;
    d->joint_tree = format >= 7 && get_in(in, 0, 1) != 0;
    d->sleep_enabled = get_in(in, 0, 1) != 0;
    d->sleep_policy = (qp_sleep_policy)get_in(in, 0, 1);
    d->sleep_center_size = get_i(in);
    d->sleep_point_size = get_i(in);
    d->sleep_steps = get_i(in);
    d->sleep_energy = get_i(in);
    d->sleep_energy_bias = get_i(in);
    d->wake_energy_factor = get_i(in);
    d->wake_speed = get_i(in);
    d->wake_velocity = get_i(in);
    d->min_awake_steps = get_i(in);
    if (qp__check_world_def(d) != QP_OK) in->bad = 1;
}

static void put_stats(writer *o, const qp_world_stats *s)
{
    put_u(o, s->step);
    put_i(o, s->bodies);
    put_i(o, s->awake);
    put_i(o, s->asleep);
    put_i(o, s->pairs);
    put_i(o, s->contacts);
    put_i(o, s->points);
    put_i(o, s->max_pairs);
    put_i(o, s->max_contacts);
    put_i(o, s->levels);
    put_u(o, s->overflows);
    put_i(o, s->first_all_asleep_step);
}

static void get_stats(reader *in, qp_world_stats *s)
{
    s->step = get_u(in);
    s->bodies = get_in(in, 0, in->cap->bodies);
    s->awake = get_in(in, 0, in->cap->bodies);
    s->asleep = get_in(in, 0, in->cap->bodies);
    s->pairs = get_in(in, 0, qp__caps_max.pairs);   /* against the world's: read_all (QP_ERR_FULL) */
    s->contacts = get_in(in, 0, in->cap->contacts);
    s->points = get_in(in, 0, in->cap->contacts * QP_MAX_MANIFOLD_POINTS);
    s->max_pairs = get_in(in, 0, ANY);
    s->max_contacts = get_in(in, 0, ANY);
    s->levels = get_in(in, 0, in->cap->bodies + 1);
    s->overflows = get_u(in);
    s->first_all_asleep_step = get_in(in, -1, ANY);
}

static void put_box(writer *o, const qp_aabb *b)
{
    put_v3(o, b->lo);
    put_v3(o, b->hi);
}

static void get_box(reader *in, qp_aabb *b)
{
    b->lo = get_v3(in, ANY);
    b->hi = get_v3(in, ANY);
}

static bool mat3_zero(const qp_mat3 *m)
{
    int32_t any = 0;
    for (int r = 0; r < 3; r++) any |= m->m[r][0] | m->m[r][1] | m->m[r][2];
    return any == 0;
}

/* Is b's inverse inertia the one its shapes (offsets from its centre of mass) and mass give?
 * Positive definite and symmetric exactly, and close to what qp_create_body would compute
 * from the mass: a body made with a density rounds its shapes' masses and moments
 * differently from one made with its mass. Close is each entry within 1/16 of the largest
 * diagonal entry (plus 16 units), either of the inverses or of the inertias themselves. An
 * axis whose moment is a few units (a thin rod about its length) has an inverse that a unit
 * of rounding changes by a fifth, and one that rounds under QP_INERTIA_FLOOR has the floor
 * added on every axis (body.c): its inverse differs by half, its moment by the floor. The
 * shapes' centre of mass is the body's own (within a millimetre). */
#define INERTIA_SLACK 16

static bool entries_near(const qp_mat3 *have, const qp_mat3 *want, int64_t extra)
{
    int32_t largest = 0;
    for (int i = 0; i < 3; i++) largest = want->m[i][i] > largest ? want->m[i][i] : largest;
    const int64_t slack = largest / 16 + INERTIA_SLACK + extra;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int64_t d = (int64_t)have->m[i][j] - want->m[i][j];
            if (d > slack || d < -slack) return false;
        }
    return true;
}

static bool inertia_of_shapes(const qp_shape *shapes, int count, const qp_body_state *b, const qp_mat3 *inv_inertia)
{
    qp_mat3 want, have_i, want_i;
    qp_vec3 center;
    if (!qp__mat3_positive_definite(inv_inertia) ||
        qp__body_inverse_inertia(shapes, count, b->mass, &want, &center) != QP_OK ||
        qp_v3_max_abs(center) > QP_FRAC(1, 1000))
        return false;
    if (entries_near(inv_inertia, &want, 0)) return true;
    return qp_mat3_inverse(inv_inertia, &have_i) && qp_mat3_inverse(&want, &want_i) &&
           entries_near(&have_i, &want_i, 2 * (int64_t)QP_INERTIA_FLOOR);
}

static void put_body(writer *o, const qp_world *w, const qp_body_state *b)
{
    put_u(o, b->generation);
    put_u(o, b->flags);
    put_u(o, b->level);
    put_u(o, b->island);
    put_u(o, b->supports);
    put_u(o, b->still_steps);
    put_u(o, b->awake_steps);
    put_v3(o, b->x);
    put_quat(o, b->q);
    put_v3(o, b->v);
    put_v3(o, b->w);
    put_v3(o, qp__body_force(w, b));
    put_v3(o, qp__body_torque(w, b));
    put_v3(o, qp__body_local_center(w, b));
    const qp_mat3 inv_inertia_local = qp__body_inv_inertia_local(b);
    for (int r = 0; r < 3; r++)
        put_v3(o, qp_v3(inv_inertia_local.m[r][0], inv_inertia_local.m[r][1], inv_inertia_local.m[r][2]));
    put_i(o, b->mass);
    put_i(o, b->inv_mass);
    const qp_body_material m = qp__body_material(w, b);
    put_i(o, m.friction);
    put_i(o, m.static_friction);
    put_i(o, m.restitution);
    put_i(o, m.rolling_resistance);
    put_u(o, b->user_data);
    put_i(o, b->load);
    put_i(o, b->motion);
    /* The sleep test's boxes hold points within a metre of the centre: written relative to
     * it, they take 1-3 bytes a number instead of 3-5 (pyramid20: 6% of the snapshot). */
    for (int k = 0; k < 3; k++) {
        const qp_aabb box = qp__sleep_box(b, k);
        put_v3(o, qp_v3_sub(box.lo, b->x));
        put_v3(o, qp_v3_sub(box.hi, b->x));
    }
    for (int k = 0; k < b->shape_count; k++) {
        const qp_shape_slot *s = &w->shapes[b->shapes[k]];
        put_u(o, (uint32_t)s->shape.type);
        put_v3(o, s->shape.offset);
        put_quat(o, s->shape.rotation);
        if (qp_shape_is_level(s->shape.type)) {
            put_u(o, level_checksum(&s->shape));   /* referenced: the geometry stays the caller's */
        } else if (s->shape.type == QP_SHAPE_HULL) {
            const qp_hull *h = s->shape.hull;
            put_u(o, h->vert_count);
            for (int v = 0; v < h->vert_count; v++) put_v3(o, h->verts[v]);
        } else {
            put_v3(o, s->shape.half);         /* box half extents, plane normal, or radius first */
            put_i(o, s->shape.half_height);   /* capsule half height or plane offset */
        }
        put_box(o, &s->aabb);
    }
}

/* A hull shape's corners, built where the reader says (they must all be corners again). */
static void get_hull(reader *in, qp_shape *s)
{
    int n = (int)get_un(in, 4, QP_HULL_MAX_POINTS);
    qp_hull *h = in->hulls && in->hull_next < in->hull_cap ? &in->hulls[in->hull_next++] : 0;
    in->hull_total++;
    if (!h && !in->need) in->hull_short = 1;
    for (int v = 0; v < n; v++) {
        qp_vec3 p = get_v3(in, QP_SHAPE_MAX_SIZE);
        if (h) h->verts[v] = p;
    }
    if (h && !in->bad && (qp_hull_build(h->verts, n, h) != QP_OK || h->vert_count != n)) in->bad = 1;
    s->hull = in->bad ? 0 : h;
}

/* One body's stream; into *b and the world's shape slots when w is not null. */
static void get_body(reader *in, qp_world *w, int index, int shape_count, int state, const qp_world_def *def,
                     const unsigned char *shape_table)
{
    qp_body_state t;
    memset(&t, 0, sizeof t);
    bool dynamic = (state & QP_STATE_DYNAMIC) != 0;
    bool unbuilt_any = false;   /* a shape read without its geometry (qp_snapshot_caps) */
    if (!w) in->hull_next = 0;   /* the scratch holds one body's hulls at a time */
    t.generation = (uint16_t)get_un(in, 1, 65535);
    t.flags = (uint16_t)get_un(in, 0, QP_FLAG_SPEED_CLAMPED | QP_FLAG_OUT_OF_BOUNDS | QP_FLAG_CONTACTS_LOST |
                                          QP_FLAG_IMPULSE_LIMIT | QP_FLAG_PINNED_OVERLAP);
    t.level = (uint16_t)get_un(in, 0, in->cap->bodies + 1);   /* contact_graph.c: at most top + 1 */
    t.island = (uint16_t)get_un(in, 0, in->cap->bodies);
    t.supports = (uint16_t)get_un(in, 0, in->cap->contacts);
    t.still_steps = (uint16_t)get_un(in, 0, 65535);
    t.awake_steps = (uint16_t)get_un(in, 0, 65535);
    /* A frozen body may have left the bounds (that froze it); others are inside them. A
     * frozen body moves (dynamic or kinematic), is flagged out of bounds (qp_body_clear_flags
     * keeps that flag on it) and never sleeps: nothing moves it again. */
    bool frozen = (state & QP_STATE_FROZEN) != 0;
    t.x = get_v3(in, frozen ? def->bounds + FROZEN_REACH : def->bounds);
    if (frozen && (!(state & (QP_STATE_DYNAMIC | QP_STATE_KINEMATIC)) || (state & QP_STATE_ASLEEP) ||
                   !(t.flags & QP_FLAG_OUT_OF_BOUNDS)))
        in->bad = 1;
    t.q = get_unit_quat(in);
    /* Each component within its limit, then the length, as the speed clamp bounds it and
     * as a body is given its speeds (qp__speed_above). A sleeper is still (sleep.c). */
    t.v = get_v3(in, def->max_linear_speed);
    t.w = get_v3(in, def->max_angular_speed);
    if (qp__speed_above(t.v, def->max_linear_speed) || qp__speed_above(t.w, def->max_angular_speed)) in->bad = 1;
    if ((state & QP_STATE_ASLEEP) && (t.v.x | t.v.y | t.v.z | t.w.x | t.w.y | t.w.z) != 0) in->bad = 1;
    qp_body_forces f;
    f.force = get_v3(in, ANY);
    f.torque = get_v3(in, ANY);
#if QP_LAYOUT_KEEPS_DERIVED
    t.force = f.force;
    t.torque = f.torque;
#else
    /* A body with a force pending takes an entry in the world's list (the first pass counts them). */
    if ((f.force.x | f.force.y | f.force.z | f.torque.x | f.torque.y | f.torque.z) != 0) {
        if (in->forced_count == QP_CFG_MAX_FORCED_BODIES) {
            in->lists_short = 1;
        } else {
            if (w) w->forced[in->forced_count] = (uint16_t)index, w->forces[in->forced_count] = f;
            in->forced_count++;
        }
    }
#endif
    const qp_vec3 local_center = get_v3(in, QP_SHAPE_MAX_SIZE);
#if QP_LAYOUT_KEEPS_DERIVED
    t.local_center = local_center;
#else
    /* An offset centre takes an entry in the world's list (the first pass counts them). */
    if ((local_center.x | local_center.y | local_center.z) != 0) {
        if (in->offset_count == QP_CFG_MAX_OFFSET_BODIES) {
            in->lists_short = 1;
        } else {
            if (w) w->offset_bodies[in->offset_count] = (uint16_t)index, w->offsets[in->offset_count] = local_center;
            in->offset_count++;
        }
    }
#endif
    qp_mat3 inv_inertia;   /* kept once checked symmetric (inertia_of_shapes, or zero) */
    for (int r = 0; r < 3; r++) {
        qp_vec3 row = get_v3(in, QP_INT(10000));
        inv_inertia.m[r][0] = row.x;
        inv_inertia.m[r][1] = row.y;
        inv_inertia.m[r][2] = row.z;
    }
    qp__body_set_inv_inertia_local(&t, &inv_inertia);
    t.mass = get_in(in, dynamic ? QP_FRAC(1, 100) : 0, dynamic ? QP_INT(10000) : 0);
    t.inv_mass = get_in(in, 0, dynamic ? qp_div(QP_ONE, QP_FRAC(1, 100)) : 0);   /* 100.055: 0.01 kg's */
    /* The inverse mass is the one qp_create_body computes; a body that is not dynamic has
     * neither mass nor inertia nor an offset centre (its inverse inertia is checked with its
     * shapes, below). */
    if (dynamic ? t.inv_mass != qp_div(QP_ONE, t.mass)
                : (local_center.x | local_center.y | local_center.z) != 0 || !mat3_zero(&inv_inertia))
        in->bad = 1;
    qp_body_material m;
    m.friction = get_in(in, 0, QP_INT(10));
    m.static_friction = get_in(in, 0, QP_INT(10));
    m.restitution = get_in(in, 0, QP_ONE);
    m.rolling_resistance = get_in(in, 0, QP_ONE);
#if QP_LAYOUT_KEEPS_DERIVED
    qp__body_set_material(w, &t, &m);
#else
    int entry = in->materials ? qp__material_entry(in->materials, &in->material_count, &m) : 0;
    if (entry < 0) in->lists_short = 1;
    t.material = (uint8_t)(entry < 0 ? 0 : entry);
#endif
    t.user_data = get_u(in);
    t.load = get_in(in, 0, ANY);
    t.motion = get_in(in, 0, ANY);
    for (int k = 0; k < 3; k++) {
        qp_aabb box;
        box.lo = qp_v3_add(t.x, get_v3(in, 2 * QP_WORLD_LIMIT));
        box.hi = qp_v3_add(t.x, get_v3(in, 2 * QP_WORLD_LIMIT));
        if (qp_v3_max_abs(box.lo) > QP_WORLD_LIMIT + QP_INT(200) ||
            qp_v3_max_abs(box.hi) > QP_WORLD_LIMIT + QP_INT(200) || !qp__sleep_box_fits(&box))
            in->bad = 1;
        else
            qp__sleep_box_set(&t, k, &box);
    }
    t.state = (uint16_t)state;
    t.shape_count = (uint8_t)shape_count;
    qp_shape shapes[QP_CFG_MAX_BODY_SHAPES];
    for (int k = 0; k < shape_count; k++) {
        qp_shape_slot s;
        memset(&s, 0, sizeof s);
        uint32_t type = get_u(in);
        s.shape.type = (qp_shape_type)(type < 16 ? type : 15);
        s.shape.offset = get_v3(in, 2 * QP_SHAPE_MAX_SIZE);   /* from the centre of mass */
        s.shape.rotation = get_unit_quat(in);
        int pool = (int)(shape_table[2 * k] | shape_table[2 * k + 1] << 8);
        if (qp_shape_is_level(s.shape.type)) {
            uint32_t sum = get_u(in);
            bool found = false;
            if (!in->levels) found = true;   /* qp_snapshot_caps: no world to match against */
            for (int i = 0; in->levels && i < in->levels->count && !found; i++) {
                const qp_shape *l = &in->levels->shape[i];
                found = in->levels->pool[i] == pool && l->type == s.shape.type && level_checksum(l) == sum;
                if (found) s.shape.mesh = l->mesh, s.shape.heightfield = l->heightfield;
            }
            if (!found) in->level_missing = true, in->bad = 1;
            if (dynamic) in->bad = 1;
        } else if (s.shape.type == QP_SHAPE_HULL) {
            get_hull(in, &s.shape);
        } else {
            s.shape.half = get_v3(in, ANY);
            s.shape.half_height = get_i(in);
        }
        get_box(in, &s.aabb);
        if (in->bad) return;
        qp_shape check = s.shape;
        check.offset = qp_v3_zero();
        if (in->hull_short) return;   /* sound, maybe, but more hulls than this world holds */
        /* Without a world (qp_snapshot_caps) a level shape has no geometry to validate (restoring
         * matches it by checksum against the world's own) and a hull is not built (restoring
         * builds and checks it): only the capacities are read then. */
        bool unbuilt = (qp_shape_is_level(s.shape.type) && !in->levels) ||
                       (s.shape.type == QP_SHAPE_HULL && !s.shape.hull && in->need);
        unbuilt_any |= unbuilt;
        if ((!unbuilt && qp_shape_validate(&check) != QP_OK) || (s.shape.type == QP_SHAPE_PLANE && dynamic))
            in->bad = 1;
        shapes[k] = s.shape;
        t.shapes[k] = (uint16_t)pool;
        s.body = (uint16_t)index;
        s.slot = (uint8_t)k;
        if (w && !in->bad) w->shapes[pool] = s;
    }
    if (dynamic && !in->bad && !unbuilt_any && !inertia_of_shapes(shapes, shape_count, &t, &inv_inertia)) in->bad = 1;
    if (w && !in->bad) w->bodies[index] = t;
}

static void put_contact(writer *o, const qp_contact *c)
{
    put_u(o, c->a);
    put_u(o, c->b);
    put_u(o, c->sa);
    put_u(o, c->sb);
    put_u(o, c->count);
    put_u(o, c->flags);
    put_v3(o, c->n);
    put_v3(o, c->anchor_a);
    put_v3(o, c->anchor_b);
    put_i(o, c->jt1);
    put_i(o, c->jt2);
    put_i(o, c->jtw);
    for (int k = 0; k < c->count; k++) {
        put_u(o, c->p[k].id);
        put_v3(o, c->p[k].ra);
        put_i(o, c->p[k].jn);
        if (qp__contact_depths_live(c->flags, c->count)) put_i(o, c->p[k].depth);
    }
}

/* The body table entry of slot index, by binary search (the table is increasing). */
static const unsigned char *find_body(const unsigned char *table, int count, int index)
{
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int at = table[4 * mid] | table[4 * mid + 1] << 8;
        if (at == index) return table + 4 * mid;
        if (at < index) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* Contact arms and friction anchors run from a body's centre to a point of the other body:
 * up to twice the farthest a body can be (a frozen one 200 m past the limit) on each axis.
 * A plane's arm to a box near the other end of the world is 1 449 m in a 1 000 m world,
 * which the 1 000 m this checked before refused (found by fuzz_api). */
#define ARM_LIMIT (2 * (QP_WORLD_LIMIT + QP_INT(200)))

static void get_contact(reader *in, qp_contact *c, const unsigned char *bodies, int body_count)
{
    memset(c, 0, sizeof *c);
    c->a = (uint16_t)get_un(in, 1, in->cap->bodies);
    c->b = (uint16_t)get_un(in, 1, in->cap->bodies);
    c->sa = (uint8_t)get_un(in, 0, QP_CFG_MAX_BODY_SHAPES - 1);
    c->sb = (uint8_t)get_un(in, 0, QP_CFG_MAX_BODY_SHAPES - 1);
    c->count = (uint8_t)get_un(in, 1, QP_MAX_MANIFOLD_POINTS);
    if (in->bad) c->count = 0;   /* never a loop bound beyond the points */
    c->flags = (uint8_t)get_un(in, 0, QP_CONTACT_SLEEPING | QP_CONTACT_SLIDING | QP_CONTACT_NEW | QP_CONTACT_CHANGED |
                                   QP_CONTACT_SWEPT | QP_CONTACT_OVERLAP | QP_CONTACT_KEPT);
    c->n = get_unit_v3(in);
    c->anchor_a = get_v3(in, ARM_LIMIT);
    c->anchor_b = get_v3(in, ARM_LIMIT);
    /* Friction totals: the solver cuts them to mu times the normal load, saturated, so never
     * INT32_MIN (which the solver would negate). */
    c->jt1 = get_in(in, -ANY, ANY);
    c->jt2 = get_in(in, -ANY, ANY);
    c->jtw = get_in(in, -ANY, ANY);
    for (int k = 0; k < c->count; k++) {
        c->p[k].id = get_u(in);
        c->p[k].ra = get_v3(in, ARM_LIMIT);
        c->p[k].jn = get_in(in, 0, ANY);
        /* A depth is a point's distance into the other body: within the reach of an arm. */
        if (qp__contact_depths_live(c->flags, c->count)) c->p[k].depth = get_in(in, -ARM_LIMIT, ARM_LIMIT);
    }
    const unsigned char *ea = find_body(bodies, body_count, c->a), *eb = find_body(bodies, body_count, c->b);
    if (c->a >= c->b || !ea || !eb || c->sa >= ea[2] || c->sb >= eb[2]) {
        in->bad = 1;
        return;
    }
    /* The broad phase pairs a dynamic body with something; a contact whose bodies are both
     * asleep or static (one asleep at least) was marked sleeping when the last of them slept
     * (sleep.c) or kept so (narrow_phase.c). */
    int sa = ea[3], sb = eb[3];
    bool rests_a = (sa & QP_STATE_ASLEEP) || !(sa & (QP_STATE_DYNAMIC | QP_STATE_KINEMATIC));
    bool rests_b = (sb & QP_STATE_ASLEEP) || !(sb & (QP_STATE_DYNAMIC | QP_STATE_KINEMATIC));
    if (!((sa | sb) & QP_STATE_DYNAMIC) ||
        (rests_a && rests_b && ((sa | sb) & QP_STATE_ASLEEP) && !(c->flags & QP_CONTACT_SLEEPING)))
        in->bad = 1;
}

static uint64_t contact_key(const qp_contact *c)
{
    return ((uint64_t)c->a << 48) | ((uint64_t)c->b << 32) | ((uint64_t)c->sa << 8) | c->sb;
}

/* ---- shape options and sensor overlaps (format 4) --------------------------------------------------- */

enum { OPT_SENSOR = 1u, OPT_FILTER = 2u };

/* Per shape, body by body: an options byte (a varint), and the filter when it is not the
 * default one (most shapes: one byte in all). Then the sensor overlaps, as body indices and
 * shape slots like contacts. */
static void put_shape_options(writer *o, const qp_world *w)
{
    for (int i = 1; i <= qp__cap_bodies(w); i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        for (int k = 0; k < b->shape_count; k++) {
            const qp_shape_slot *s = &w->shapes[b->shapes[k]];
            bool custom = s->filter.category != 1 || s->filter.mask != 0xFFFFu || s->filter.group != 0;
            put_u(o, ((s->flags & QP_SHAPE_SENSOR) ? OPT_SENSOR : 0u) | (custom ? OPT_FILTER : 0u));
            if (!custom) continue;
            put_u(o, s->filter.category);
            put_u(o, s->filter.mask);
            put_i(o, s->filter.group);
        }
    }
    put_u(o, (uint32_t)w->sensor_overlap_count);
    for (int k = 0; k < w->sensor_overlap_count; k++) {
        const qp_shape_slot *a = &w->shapes[w->sensor_overlaps[k].a], *b = &w->shapes[w->sensor_overlaps[k].b];
        put_u(o, a->body);
        put_u(o, a->slot);
        put_u(o, b->body);
        put_u(o, b->slot);
    }
}

/* Into w (its bodies already restored) when not null. QP_ERR_FULL for more overlaps than
 * this build holds; a fault sets in->bad. */
static qp_result get_shape_options(reader *in, qp_world *w, const unsigned char *bodies, int body_count,
                                   const unsigned char *shape_table, int shapes)
{
    for (int k = 0; k < shapes && !in->bad; k++) {
        uint32_t opt = get_un(in, 0, OPT_SENSOR | OPT_FILTER);
        qp_shape_filter f = { 1, 0xFFFFu, 0 };
        if (opt & OPT_FILTER) {
            f.category = (uint16_t)get_un(in, 0, 0xFFFFu);
            f.mask = (uint16_t)get_un(in, 0, 0xFFFFu);
            f.group = (int16_t)get_in(in, INT16_MIN, INT16_MAX);
        }
        if (!w || in->bad) continue;
        qp_shape_slot *s = &w->shapes[shape_table[2 * k] | shape_table[2 * k + 1] << 8];
        s->flags = (opt & OPT_SENSOR) ? QP_SHAPE_SENSOR : 0;
        s->filter = f;
    }
    uint32_t count = get_u(in);
    if (in->bad) return QP_OK;
    NEED(in, sensor_overlaps, count);
    if (count > (uint32_t)in->cap->sensor_overlaps) return QP_ERR_FULL;
    uint64_t last = 0;
    for (uint32_t k = 0; k < count && !in->bad; k++) {
        int a = (int)get_un(in, 1, in->cap->bodies), sa = (int)get_un(in, 0, QP_CFG_MAX_BODY_SHAPES - 1);
        int b = (int)get_un(in, 1, in->cap->bodies), sb = (int)get_un(in, 0, QP_CFG_MAX_BODY_SHAPES - 1);
        const unsigned char *ea = find_body(bodies, body_count, a), *eb = find_body(bodies, body_count, b);
        uint64_t key = ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)sa << 8) | (uint64_t)sb;
        if (a >= b || !ea || !eb || sa >= ea[2] || sb >= eb[2] || (k > 0 && key <= last)) in->bad = 1;
        last = key;
        if (!w || in->bad) continue;
        w->sensor_overlaps[k].a = w->bodies[a].shapes[sa];
        w->sensor_overlaps[k].b = w->bodies[b].shapes[sb];
    }
    if (w && !in->bad) w->sensor_overlap_count = (int)count;
    return QP_OK;
}

/* ---- joints: the slots that are live or were used (their generations keep stale ids stale) ---------- */

#define JOINT_ARM_LIMIT QP_INT(200)   /* a stored arm: within 100 m per axis in the world, rotated */
#define PI_Q16 205887

static void put_joints(writer *o, const qp_world *w)
{
    int n = 0;
    for (int i = 1; i <= qp__cap_joints(w); i++) n += w->joints[i - 1].a != 0 || w->joints[i - 1].generation != 0;
    put_u(o, (uint32_t)n);
    for (int i = 1; i <= qp__cap_joints(w); i++) {
        const qp_joint *j = &w->joints[i - 1];
        if (j->a == 0 && j->generation == 0) continue;
        put_u(o, (uint32_t)i);
        put_u(o, j->generation);
        put_u(o, j->a != 0);
        if (j->a == 0) continue;
        put_u(o, j->a);
        put_u(o, j->b);
        put_u(o, j->type);
        put_u(o, j->flags);
        put_v3(o, j->la);
        put_v3(o, j->lb);
        put_v3(o, j->axis_a);
        put_v3(o, j->axis_b);
        put_v3(o, j->ref_a);
        put_v3(o, j->ref_b);
        put_i(o, j->lower);
        put_i(o, j->upper);
        put_i(o, j->drift_time);
        put_v3(o, j->jp);
        put_i(o, j->ja[0]);
        put_i(o, j->ja[1]);
        put_i(o, j->jlo);
        put_i(o, j->jhi);
        put_i(o, j->ja[2]);
        put_i(o, j->swing);
        put_i(o, QP__DRIVE(j, motor_speed));
        put_i(o, QP__DRIVE(j, motor_max));
        put_i(o, QP__DRIVE(j, spring_hz));
        put_i(o, QP__DRIVE(j, spring_damping));
        put_i(o, QP__DRIVE(j, spring_target));
        put_i(o, QP__DRIVE(j, spring_max));
        put_i(o, QP__DRIVE(j, break_impulse));
        put_i(o, QP__DRIVE(j, friction));
        put_i(o, QP__DRIVE(j, jm));
        put_i(o, QP__DRIVE(j, js));
    }
}

/* One live joint, every field checked: bodies that exist and differ, not both static, a
 * known type and flags, arms in range, unit axes for a hinge (zero otherwise), limits or
 * lengths in order and range, the drift time in range, limit impulses of their sign. */
static void get_joint(reader *in, qp_joint *j, const unsigned char *bodies, int body_count, bool *has_options)
{
    j->a = (uint16_t)get_un(in, 1, in->cap->bodies);
    j->b = (uint16_t)get_un(in, 1, in->cap->bodies);
    j->type = (uint8_t)get_un(in, QP_JOINT_BALL, QP_JOINT_CONE);
    j->flags = (uint8_t)get_un(in, 0, QP_JOINT_LIMIT | QP_JOINT_COLLIDE | QP_JOINT_MOTOR | QP_JOINT_SPRING);
    bool hinge = j->type == QP_JOINT_HINGE, slider = j->type == QP_JOINT_SLIDER, cone = j->type == QP_JOINT_CONE;
    bool distance = j->type == QP_JOINT_DISTANCE, framed = j->type != QP_JOINT_BALL && !distance;
    j->la = get_v3(in, JOINT_ARM_LIMIT);
    j->lb = get_v3(in, JOINT_ARM_LIMIT);
    if (framed) {
        j->axis_a = get_unit_v3(in);
        j->axis_b = get_unit_v3(in);
        j->ref_a = get_unit_v3(in);
        j->ref_b = get_unit_v3(in);
    } else {
        j->axis_a = get_v3(in, 0);
        j->axis_b = get_v3(in, 0);
        j->ref_a = get_v3(in, 0);
        j->ref_b = get_v3(in, 0);
    }
    bool limited = (hinge || cone || slider) && (j->flags & QP_JOINT_LIMIT);
    int32_t lim = limited ? (slider ? QP_INT(1000) : PI_Q16) : distance ? QP_INT(1000) : 0;
    j->lower = get_in(in, distance ? 0 : -lim, lim);
    j->upper = get_in(in, j->lower, lim);
    j->drift_time = get_in(in, QP_FRAC(1, 1000), QP_INT(10));
    j->jp = get_v3(in, ANY);
    j->ja[0] = get_in(in, -ANY, ANY);
    j->ja[1] = get_in(in, -ANY, ANY);
    j->jlo = get_in(in, 0, ANY);
    j->jhi = get_in(in, -ANY, 0);
    /* Format 8: the later options, each zero where its kind or flag has none; impulses any
     * number but INT32_MIN, which the solver negates. */
    bool motor = (j->flags & QP_JOINT_MOTOR) != 0, spring = (j->flags & QP_JOINT_SPRING) != 0;
    j->ja[2] = get_in(in, -ANY, ANY);
    j->swing = get_in(in, 0, cone ? QP_INT(3) : 0);
    qp_joint_drive dr;
    dr.motor_speed = get_in(in, motor ? -QP_INT(100) : 0, motor ? QP_INT(100) : 0);
    dr.motor_max = get_in(in, 0, motor ? QP_INT(30000) : 0);
    dr.spring_hz = get_in(in, spring ? QP_FRAC(1, 100) : 0, spring ? QP_INT(500) : 0);
    dr.spring_damping = get_in(in, 0, spring ? QP_INT(100) : 0);
    int32_t target = spring && hinge ? PI_Q16 : spring && slider ? QP_INT(1000) : 0;
    dr.spring_target = get_in(in, -target, target);
    dr.spring_max = get_in(in, 0, spring ? QP_INT(30000) : 0);
    dr.break_impulse = get_in(in, 0, QP_INT(30000));
    dr.friction = get_in(in, 0, hinge || cone ? QP_INT(30000) : 0);
    dr.jm = get_in(in, -ANY, ANY);
    dr.js = get_in(in, -ANY, ANY);
    dr.jel = 0;
    dr.jf = qp_v3_zero();
    *has_options = motor || spring || dr.break_impulse != 0 || dr.friction != 0;
#if QP_CFG_JOINT_OPTIONS
    j->drive = dr;
#endif
    if ((j->flags & QP_JOINT_LIMIT) && !(hinge || cone || slider)) in->bad = 1;
    if (motor && !(hinge || slider)) in->bad = 1;
    if (spring && !(hinge || slider || distance)) in->bad = 1;
    const unsigned char *ea = find_body(bodies, body_count, j->a), *eb = find_body(bodies, body_count, j->b);
    if (j->a == j->b || !ea || !eb || (!(ea[3] & QP_STATE_DYNAMIC) && !(eb[3] & QP_STATE_DYNAMIC))) in->bad = 1;
}

/* The joint section; into w when it is not null. QP_ERR_FULL for more joint slots than
 * this build's pool, else the reader's verdict (in->bad). */
static qp_result get_joints(reader *in, qp_world *w, const unsigned char *bodies, int body_count)
{
    int n = (int)get_un(in, 0, 65535);
    if (in->bad) return QP_ERR_BUFFER;
    NEED(in, joints, n);
    if (n > in->cap->joints) return QP_ERR_FULL;
    int last = 0, live = 0;
    bool options = false;   /* a joint with a motor, spring or break impulse */
    for (int k = 0; k < n && !in->bad; k++) {
        int index = (int)get_un(in, (uint32_t)last + 1u, 65535);
        if (in->bad) break;
        NEED(in, joints, index);
        if (index > in->cap->joints) return QP_ERR_FULL;
        last = index;
        qp_joint j;
        memset(&j, 0, sizeof j);
        j.generation = (uint16_t)get_un(in, 1, 65535);
        if (get_un(in, 0, 1)) {
            bool has = false;
            get_joint(in, &j, bodies, body_count, &has);
            options |= has;
            live++;
        }
        if (w && !in->bad) w->joints[index - 1] = j;
    }
    if (in->bad) return QP_ERR_BUFFER;
    if (options && !QP_CFG_JOINT_OPTIONS) return QP_ERR_FULL;   /* sound, but this build holds no joint options */
    if (w) w->joint_count = live;
    return QP_OK;
}

/* ---- snapshot -------------------------------------------------------------------------------------- */

static void write_all(const qp_world *w, writer *o)
{
    int bodies = 0, shapes = 0, free_gens = 0;
    for (int i = 1; i <= qp__cap_bodies(w); i++) {
        const qp_body_state *b = &w->bodies[i];
        if (b->state & QP_STATE_USED) bodies++, shapes += b->shape_count;
        else if (b->generation) free_gens++;
    }
    unsigned long start = o->n;
    put_fixed(o, SNAP_MAGIC, 4);
    put_fixed(o, SNAP_FORMAT, 2);
    put_fixed(o, 0, 2);
    put_fixed(o, 0, 4); /* payload length and CRC: filled in below */
    put_fixed(o, 0, 4);
    put_fixed(o, (uint32_t)bodies, 2);
    put_fixed(o, (uint32_t)shapes, 2);
    put_fixed(o, (uint32_t)w->contact_count, 2);
    put_fixed(o, (uint32_t)free_gens, 2);
    for (int i = 1; i <= qp__cap_bodies(w); i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        put_fixed(o, (uint32_t)i, 2);
        put_fixed(o, b->shape_count, 1);
        put_fixed(o, b->state, 1);
    }
    for (int i = 1; i <= qp__cap_bodies(w); i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        for (int k = 0; k < b->shape_count; k++) put_fixed(o, b->shapes[k], 2);
    }
    put_def(o, &w->def);
    put_stats(o, &w->stats);
    put_u(o, (uint32_t)w->body_high);
    for (int i = 1; i <= qp__cap_bodies(w); i++)
        if (w->bodies[i].state & QP_STATE_USED) put_body(o, w, &w->bodies[i]);
    for (int i = 1; i <= qp__cap_bodies(w); i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED) && b->generation) {
            put_u(o, (uint32_t)i);
            put_u(o, b->generation);
        }
    }
    for (int c = 0; c < w->contact_count; c++) put_contact(o, &w->contacts[c]);
    put_shape_options(o, w);
    put_joints(o, w);
    if (o->p) {
        unsigned long len = o->n - start - SNAP_HEADER;
        writer h = { o->p + start + 8, 0 };
        put_fixed(&h, (uint32_t)len, 4);
        put_fixed(&h, crc32_of(o->p + start + SNAP_HEADER, len), 4);
    }
}

unsigned long qp_world_snapshot(const qp_world *w, void *buf, unsigned long size)
{
    if (!w) return 0;
    writer count = { NULL, 0 };
    write_all(w, &count);
    if (!buf || size < count.n) return count.n;
    writer out = { (unsigned char *)buf, 0 };
    write_all(w, &out);
    return out.n;
}

/* ---- restore ---------------------------------------------------------------------------------------- */

/* Are the shape pool indices of the table all different? A window of 2048 indices at a
 * time in a bitmap on the stack: one pass for a world of 2048 shapes. */
static bool shape_table_ok(const unsigned char *t, int n, int top)
{
    enum { WINDOW = 2048 };
    unsigned char seen[WINDOW / 8];
    for (int base = 0; base <= top; base += WINDOW) {
        memset(seen, 0, sizeof seen);
        for (int k = 0; k < n; k++) {
            int s = t[2 * k] | t[2 * k + 1] << 8;
            if (s < base || s >= base + WINDOW) continue;
            int bit = s - base;
            if (seen[bit >> 3] & (1u << (bit & 7))) return false;
            seen[bit >> 3] |= (unsigned char)(1u << (bit & 7));
        }
    }
    return true;
}

/* The highest shape pool index of the table (-1 for none). */
static int shape_table_top(const unsigned char *t, int n)
{
    int top = -1;
    for (int k = 0; k < n; k++) {
        int s = t[2 * k] | t[2 * k + 1] << 8;
        if (s > top) top = s;
    }
    return top;
}

/* Read the whole stream, checked against the capacities cap (recording what it needs in
 * need when that is not null); into w when it is not null (only after a pass with w null
 * found nothing wrong, building hulls in target's scratch; target null: qp_snapshot_caps). */
static qp_result read_all(const unsigned char *buf, unsigned long size, uint32_t format, const qp_world_caps *cap,
                          qp_world_caps *need, qp_world *w, qp_world *target, const level_table *levels)
{
    reader in;
    memset(&in, 0, sizeof in);
    in.p = buf, in.n = size, in.at = SNAP_HEADER, in.cap = cap, in.need = need, in.levels = levels;
#if QP_CFG_MAX_HULLS > 0
    if (w || target) {
        in.hulls = w ? w->hulls : target->hull_scratch;
        in.hull_cap = w ? qp__cap_hulls(w) : QP__HULL_SCRATCH;
    }
#else
    (void)target;
#endif
#if !QP_LAYOUT_KEEPS_DERIVED
    qp_body_material palette[QP_CFG_MAX_MATERIALS];   /* the first pass's (none for qp_snapshot_caps) */
    in.materials = w ? w->materials : target ? palette : NULL;
#endif
    int bodies = (int)get_fixed(&in, 2), shapes = (int)get_fixed(&in, 2);
    int contacts = (int)get_fixed(&in, 2), free_gens = (int)get_fixed(&in, 2);
    NEED(&in, bodies, bodies + free_gens);
    NEED(&in, shapes, shapes);
    NEED(&in, contacts, contacts);
    /* A sound snapshot (its CRC matched) of a world larger than this one's pools. */
    if (bodies > cap->bodies || shapes > cap->shapes || contacts > cap->contacts || free_gens > cap->bodies - bodies)
        return QP_ERR_FULL;
    unsigned long tables = 4ul * (unsigned long)bodies + 2ul * (unsigned long)shapes;
    if (in.at + tables > size) return QP_ERR_BUFFER;
    const unsigned char *body_table = buf + in.at, *shape_table = body_table + 4 * bodies;
    in.at += tables;
    int listed = 0, last = 0;
    for (int k = 0; k < bodies; k++) {
        const unsigned char *e = body_table + 4 * k;
        int index = e[0] | e[1] << 8, count = e[2], state = e[3];
        if (index <= last || count < 1) return QP_ERR_BUFFER;
        NEED(&in, bodies, index);
        if (index > cap->bodies || count > QP_CFG_MAX_BODY_SHAPES) return QP_ERR_FULL;
        if (!(state & QP_STATE_USED) ||
            (state & ~(QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_ASLEEP | QP_STATE_FROZEN |
                       QP_STATE_KINEMATIC | QP_STATE_PLACED | QP_STATE_STILL)) != 0 ||
            ((state & (QP_STATE_ASLEEP | QP_STATE_STILL)) && !(state & QP_STATE_DYNAMIC)) ||
            ((state & QP_STATE_KINEMATIC) && (state & QP_STATE_DYNAMIC)))
            return QP_ERR_BUFFER;
        last = index;
        listed += count;
    }
    if (listed != shapes) return QP_ERR_BUFFER;
    int top = shape_table_top(shape_table, shapes);
    NEED(&in, shapes, top + 1);
    if (top >= cap->shapes) return QP_ERR_FULL;
    if (!shape_table_ok(shape_table, shapes, top)) return QP_ERR_BUFFER;

    qp_world_def def;
    memset(&def, 0, sizeof def);
    get_def(&in, &def, format);
    qp_world_stats stats;
    get_stats(&in, &stats);
    NEED(&in, pairs, stats.pairs);
    if (!in.bad && stats.pairs > cap->pairs) return QP_ERR_FULL;
    int body_high = (int)get_un(&in, (uint32_t)last, (uint32_t)cap->bodies);
    if (in.bad) return QP_ERR_BUFFER;
    if (w) {
        qp__world_clear(w);    /* every byte, as qp_world_init does */
        w->def = def;
        w->stats = stats;
        w->body_high = body_high;
    }
    const unsigned char *st = shape_table;
    for (int k = 0; k < bodies && !in.bad && !in.hull_short; k++) {
        const unsigned char *e = body_table + 4 * k;
        get_body(&in, w, e[0] | e[1] << 8, e[2], e[3], &def, st);
        st += 2 * e[2];
    }
    if (in.level_missing) return QP_ERR_PARAM;
    NEED(&in, hulls, in.hull_total);
    if (in.hull_short || in.hull_total > cap->hulls) return in.bad ? QP_ERR_BUFFER : QP_ERR_FULL;
#if !QP_LAYOUT_KEEPS_DERIVED
    if (in.lists_short) return in.bad ? QP_ERR_BUFFER : QP_ERR_FULL;
    if (w) w->material_count = in.material_count, w->forced_count = in.forced_count, w->offset_count = in.offset_count;
#endif
    int last_free = 0;
    for (int k = 0; k < free_gens && !in.bad; k++) {
        int index = (int)get_un(&in, (uint32_t)last_free + 1u, (uint32_t)cap->bodies);
        uint16_t gen = (uint16_t)get_un(&in, 1, 65535);
        if (find_body(body_table, bodies, index)) in.bad = 1;
        last_free = index;
        if (w && !in.bad) w->bodies[index].generation = gen;
    }
    uint64_t last_key = 0;
    for (int k = 0; k < contacts && !in.bad; k++) {
        qp_contact c;
        get_contact(&in, &c, body_table, bodies);
        uint64_t key = contact_key(&c);
        if (k > 0 && key <= last_key) in.bad = 1;
        last_key = key;
        if (w && !in.bad) w->contacts[k] = c;
    }
    if (in.bad) return QP_ERR_BUFFER;
    qp_result opt = get_shape_options(&in, w, body_table, bodies, shape_table, shapes);
    if (opt != QP_OK) return opt;
    qp_result jr = get_joints(&in, w, body_table, bodies);
    if (jr != QP_OK) return jr;
    if (in.bad || in.at != size) return QP_ERR_BUFFER;
    if (w) {
        w->contact_count = contacts;
        for (int i = 1; i <= cap->bodies; i++) {
            qp_body_state *b = &w->bodies[i];
            if (!(b->state & QP_STATE_USED)) continue;
            qp__body_sync(b);
            for (int k = 0; k < b->shape_count; k++) w->sap_order[w->sap_count++] = b->shapes[k];
        }
        qp__build_adjacency(w);
    }
    return QP_OK;
}

/* The header's checks: magic, format, length and CRC. */
static bool header_ok(const unsigned char *in, unsigned long size, uint32_t *format)
{
    if (size < SNAP_HEADER + SNAP_COUNTS) return false;
    reader h;
    memset(&h, 0, sizeof h);
    h.p = in, h.n = SNAP_HEADER;
    uint32_t magic = get_fixed(&h, 4), zero;
    *format = get_fixed(&h, 2), zero = get_fixed(&h, 2);
    uint32_t len = get_fixed(&h, 4), crc = get_fixed(&h, 4);
    return magic == SNAP_MAGIC && *format >= SNAP_FORMAT_OLDEST && *format <= SNAP_FORMAT && zero == 0 &&
           len == size - SNAP_HEADER && crc == crc32_of(in + SNAP_HEADER, len);
}

qp_result qp_world_restore_checked(qp_world *w, const void *buf, unsigned long size, uint32_t config_signature,
                                  unsigned long world_size, const qp_world_caps *caps)
{
    qp_result r = qp__world_ready(w, config_signature, world_size, caps);
    if (r != QP_OK) return r;
    if (!buf) return QP_ERR_PARAM;
    const unsigned char *in = (const unsigned char *)buf;
    uint32_t format;
    if (!header_ok(in, size, &format)) return QP_ERR_BUFFER;
    level_table levels;
    memset(&levels, 0, sizeof levels);
    for (int i = 0; i < qp__cap_shapes(w); i++) {
        const qp_shape_slot *s = &w->shapes[i];
        if (s->body == 0 || !qp_shape_is_level(s->shape.type)) continue;
        if (levels.count == SNAP_MAX_LEVELS) return QP_ERR_FULL;
        levels.pool[levels.count] = (uint16_t)i;
        levels.shape[levels.count++] = s->shape;
    }
    const qp_world_caps cap = qp_world_get_caps(w);
    r = read_all(in, size, format, &cap, NULL, NULL, w, &levels);
#if QP_CFG_MAX_HULLS > 0
    memset(w->hull_scratch, 0, sizeof w->hull_scratch);
#endif
    if (r == QP_OK) r = read_all(in, size, format, &cap, NULL, w, w, &levels); /* the same bytes: cannot fail now */
    return r;
}

qp_result qp_snapshot_caps(const void *buf, unsigned long size, qp_world_caps *need)
{
    if (!buf || !need) return QP_ERR_PARAM;
    uint32_t format;
    if (!header_ok((const unsigned char *)buf, size, &format)) return QP_ERR_BUFFER;
    qp_world_caps n = { 1, 1, 1, 1, 1, QP_CFG_MAX_EVENTS, 1, 0 };
    qp_result r = read_all((const unsigned char *)buf, size, format, &qp__caps_max, &n, NULL, NULL, NULL);
    if (r != QP_OK) return r;
    *need = n;
    return QP_OK;
}
