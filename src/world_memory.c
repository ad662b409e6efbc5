/* SPDX-License-Identifier: MIT */
/* A world's memory: its capacities, the bytes its pools take, and where each pool lies.
 * A world's pools follow its header (at qp_world.own): in its own storage for a qp_world
 * of the default capacities, in the caller's memory for one placed by qp_world_init_in.
 * Each pool is rounded up to 8 bytes, in the order QP__POOLS_BYTES (world_impl.h) counts
 * them; the stages' scratch views (scratch.h, joint_tree.h) come last. */
#include <stddef.h>
#include "joint_tree.h"
#include "scratch.h"
#include "world_check.h"

/* The ranges of qp_world_caps (include/qphys/world.h). */
const qp_world_caps qp__caps_max = { 65532, 65535, 4194304, 65535, 65535, 32767, 32767, QP_CFG_MAX_HULLS > 0 ? 65535 : 0 };

static int clamp(long v, int hi) { return v < 1 ? 1 : v > hi ? hi : (int)v; }

qp_world_caps qp_world_caps_for(int bodies, int shapes, int joints)
{
    long b = bodies < 1 ? 1 : bodies;
    qp_world_caps c;
    c.bodies = clamp(b, qp__caps_max.bodies);
    c.shapes = clamp(shapes, qp__caps_max.shapes);
    c.pairs = clamp(8 * b, qp__caps_max.pairs);
    c.contacts = clamp(3 * b, qp__caps_max.contacts);
    c.joints = clamp(joints, qp__caps_max.joints);
    /* One overlap a shape (each shape inside one sensor at a time), and room in each event
     * buffer for every contact to begin in one step (a structure built at rest does), a
     * sleep or wake of every body, a break of every joint and an end of every overlap; never
     * fewer than the defaults, which a small world keeps. */
    c.sensor_overlaps = clamp(shapes > QP_CFG_MAX_SENSOR_OVERLAPS ? shapes : QP_CFG_MAX_SENSOR_OVERLAPS,
                              qp__caps_max.sensor_overlaps);
    int events = QP_CFG_MAX_EVENTS;
    const int each[3] = { c.contacts, c.joints, c.sensor_overlaps };
    for (int k = 0; k < 3; k++) events = each[k] > events ? each[k] : events;
    c.events = clamp(events, qp__caps_max.events);
    c.hulls = QP_CFG_MAX_HULLS;
    return c;
}

const char *qp_world_caps_short(const qp_world_caps *have, const qp_world_caps *need)
{
    if (have->bodies < need->bodies) return "bodies";
    if (have->shapes < need->shapes) return "shapes";
    if (have->pairs < need->pairs) return "pairs";
    if (have->contacts < need->contacts) return "contacts";
    if (have->joints < need->joints) return "joints";
    if (have->events < need->events) return "events";
    if (have->sensor_overlaps < need->sensor_overlaps) return "sensor overlaps";
    if (have->hulls < need->hulls) return "hulls";
    return NULL;
}

/* A copy's hull shapes point at the copy's own hull pool, not the original's. */
static void rebase_hulls(qp_world *to, const qp_world *from)
{
#if QP_CFG_MAX_HULLS > 0
    for (int s = 0; s < qp__cap_shapes(to); s++) {
        qp_shape *sh = &to->shapes[s].shape;
        if (to->shapes[s].body != 0 && sh->type == QP_SHAPE_HULL) sh->hull = &to->hulls[sh->hull - from->hulls];
    }
#else
    (void)to;
    (void)from;
#endif
}

#if QP_CFG_FIXED_POOLS

unsigned long qp_world_memory_size(const qp_world_caps *caps)
{
    (void)caps;
    return 0;
}

qp_result qp_world_init_in_checked(void *memory, unsigned long bytes, const qp_world_caps *caps,
                                   const qp_world_def *def, qp_world **out, uint32_t config_signature)
{
    (void)memory, (void)bytes, (void)caps, (void)def, (void)out, (void)config_signature;
    return QP_ERR_CONFIG;
}

qp_world_caps qp_world_get_caps(const qp_world *w)
{
    (void)w;
    const qp_world_caps c = QP_DEFAULT_CAPS_INIT;
    return c;
}

qp_result qp_world_copy(qp_world *to, const qp_world *from)
{
    if (!to || !from) return QP_ERR_PARAM;
    if (to == from) return QP_OK;
    memcpy(to, from, sizeof *to);
    rebase_hulls(to, from);
    return QP_OK;
}

bool qp__world_fits(uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps)
{
    (void)caps;
    return config_signature == QP_CONFIG_SIGNATURE && world_size == (unsigned long)sizeof(qp_world);
}

qp_result qp__world_ready(qp_world *w, uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps)
{
    if (!qp__world_fits(config_signature, world_size, caps)) return QP_ERR_CONFIG;
    return w ? QP_OK : QP_ERR_PARAM;
}

void qp__world_clear(qp_world *w)
{
    memset(w, 0, sizeof *w);
}

void qp__world_own(qp_world *w, const qp_world_caps *caps)
{
    (void)caps;
    memset(w, 0, sizeof *w);
}

#else

static bool caps_ok(const qp_world_caps *c)
{
    return c && c->bodies >= 1 && c->bodies <= qp__caps_max.bodies && c->shapes >= 1 && c->shapes <= qp__caps_max.shapes &&
           c->pairs >= 1 && c->pairs <= qp__caps_max.pairs && c->contacts >= 1 && c->contacts <= qp__caps_max.contacts &&
           c->joints >= 1 && c->joints <= qp__caps_max.joints && c->events >= 1 && c->events <= qp__caps_max.events &&
           c->sensor_overlaps >= 1 && c->sensor_overlaps <= qp__caps_max.sensor_overlaps && c->hulls >= 0 &&
           c->hulls <= qp__caps_max.hulls;
}

/* The next pool of n items of size bytes: where it lies from base (when base is not null)
 * and the bytes it takes, at *at. */
static void *pool(unsigned char *base, unsigned long *at, unsigned long n, unsigned long size)
{
    void *p = base ? base + *at : NULL;
    *at += QP__R8(n * size);
    return p;
}

/* Lay out the pools of a world of capacities c from base (the world's pools: every pointer
 * set when w is not null) and return their bytes. */
static unsigned long lay_out(qp_world *w, unsigned char *base, const qp_world_caps *c)
{
    const unsigned long B = (unsigned long)c->bodies, S = (unsigned long)c->shapes, P = (unsigned long)c->pairs;
    const unsigned long C = (unsigned long)c->contacts, J = (unsigned long)c->joints, E = (unsigned long)c->events;
    const unsigned long O = (unsigned long)c->sensor_overlaps;
#if QP_CFG_MAX_HULLS > 0
    const unsigned long H = (unsigned long)c->hulls;
#endif
    unsigned long at = 0;
    qp_body_state *bodies = pool(base, &at, B + 1, sizeof *bodies);
    qp_shape_slot *shapes = pool(base, &at, S, sizeof *shapes);
    uint16_t *sap_order = pool(base, &at, S, 2);
    qp_pair *pairs = pool(base, &at, P, sizeof *pairs);
    qp_contact *contacts = pool(base, &at, C, sizeof *contacts);
#if !QP_CFG_LOW_RAM
    unsigned long rows_bytes = C * sizeof(qp_contact_rows) > P * sizeof(qp_pair) ? C * sizeof(qp_contact_rows)
                                                                                 : P * sizeof(qp_pair);
    unsigned char *rows = pool(base, &at, rows_bytes, 1);
#endif
    unsigned char *scratch = pool(base, &at, QP__STEP_SCRATCH_BYTES(B, C), 1);
    uint16_t *order = pool(base, &at, C, 2);
    uint16_t *queue = pool(base, &at, B + 3, 2);
    qp__adj_index *adj_start = pool(base, &at, B + 2, sizeof *adj_start);
    uint16_t *adj = pool(base, &at, 2 * C, 2);
    qp_pair *overlaps = pool(base, &at, O, sizeof *overlaps);
    qp_contact_event *contact_events = pool(base, &at, E, sizeof *contact_events);
    qp_sensor_event *sensor_events = pool(base, &at, E, sizeof *sensor_events);
    qp_body_event *body_events = pool(base, &at, E, sizeof *body_events);
#if QP_CFG_JOINT_OPTIONS
    qp_joint_event *joint_events = pool(base, &at, QP__JOINT_EVENTS(J, E), sizeof *joint_events);
#endif
    qp_joint *joints = pool(base, &at, J, sizeof *joints);
    uint16_t *joint_order = pool(base, &at, J, 2);
#if QP__KEEPS_JOINT_ROWS
    qp_joint_rows *joint_rows = pool(base, &at, J, sizeof *joint_rows);
#endif
#if QP_CFG_JOINT_TREE
    unsigned char *tree = pool(base, &at, QP__JOINT_TREE_BYTES(J), 1);
#endif
#if QP_CFG_MAX_HULLS > 0
    qp_hull *hulls = pool(base, &at, H, sizeof *hulls);
#endif
    /* The views of the scratch, then of the joint-tree scratch, in one pool. */
    unsigned char *view_pool = pool(base, &at, QP__VIEWS_BYTES, 1);
    if (!w) return at;
    struct qp__scratch_views *views = (struct qp__scratch_views *)(void *)view_pool;
#if QP_CFG_JOINT_TREE
    qp_joint_tree *tree_views = (qp_joint_tree *)(void *)(view_pool + QP__R8(sizeof *views));
#endif

    w->bodies = bodies;
    w->shapes = shapes;
    w->sap_order = sap_order;
    w->pairs = pairs;
    w->contacts = contacts;
#if !QP_CFG_LOW_RAM
    w->rows = (qp_contact_rows *)(void *)rows;
    w->pair_scratch = (qp_pair *)(void *)rows;
#endif
    w->order = order;
    w->queue = queue;
    w->adj_start = adj_start;
    w->adj = adj;
    w->sensor_overlaps = overlaps;
    w->events.contact = contact_events;
    w->events.sensor = sensor_events;
    w->events.body = body_events;
#if QP_CFG_JOINT_OPTIONS
    w->events.joint = joint_events;
#endif
    w->joints = joints;
    w->joint_order = joint_order;
#if QP__KEEPS_JOINT_ROWS
    w->joint_rows = joint_rows;
#endif
#if QP_CFG_MAX_HULLS > 0
    w->hulls = hulls;
#endif
    /* The scratch layouts share their memory, each array after the one before (the sizes
     * QP__STEP_SCRATCH_BYTES counts: checked below). */
    const unsigned long b1 = B + 1;
    views->pred.x = (qp_vec3 *)(void *)scratch;
    views->pred.q = (qp_quat *)(void *)(scratch + sizeof(qp_vec3) * b1);
    views->place = (qp_load_place *)(void *)scratch;
    views->graph_other = (uint16_t *)(void *)(scratch + sizeof(qp_load_place) * b1);
    views->graph_carried = scratch + sizeof(qp_load_place) * b1 + 4 * C;
#if !QP_CFG_LOW_RAM
    views->pred.r = (qp_rot3 *)(void *)(scratch + (sizeof(qp_vec3) + sizeof(qp_quat)) * b1);
    views->passes.moved_at = (uint32_t *)(void *)scratch;
    views->passes.quiet_at = (uint32_t *)(void *)(scratch + 4 * b1);
    views->passes.sweep = (qp_sweep_item *)(void *)(scratch + 4 * b1 + 4 * C);
#else
    views->passes.inv_inertia6 = (fix16_t(*)[6])(void *)scratch;
    views->passes.tangent = (int32_t(*)[2])(void *)(scratch + 24 * b1);
    views->passes.moved_at = (uint32_t *)(void *)(scratch + 24 * b1 + 8 * C);
    views->passes.quiet_at = (uint32_t *)(void *)(scratch + 28 * b1 + 8 * C);
#endif
    views->split.pseudo_v = (fix16_t(*)[6])(void *)scratch;
    views->split.visit = (uint16_t *)(void *)(scratch + 24 * b1);
    w->scratch_views = views;
#if QP_CFG_JOINT_TREE
    /* qp_joint_tree's arrays in its field order: 1174 bytes a joint, the count and pass in between. */
    tree_views->vec = (int64_t(*)[QP_TREE_ROWS])(void *)tree;
    tree_views->ia = (qp_mat3(*)[2])(void *)(tree + 48 * J);
    tree_views->diag = (int32_t(*)[QP_TREE_ROWS][QP_TREE_ROWS])(void *)(tree + 120 * J);
    tree_views->off = (int32_t(*)[QP_TREE_LATER][QP_TREE_ROWS][QP_TREE_ROWS])(void *)(tree + 264 * J);
    tree_views->acc = (int32_t(*)[2])(void *)(tree + 1128 * J);
    tree_views->drift = (qp_vec3 *)(void *)(tree + 1136 * J);
    tree_views->joint = (uint16_t *)(void *)(tree + 1148 * J + 8);
    tree_views->pos = (uint16_t *)(void *)(tree + 1150 * J + 8);
    tree_views->later = (uint16_t(*)[QP_TREE_LATER])(void *)(tree + 1152 * J + 8);
    tree_views->rows = tree + 1164 * J + 8;
    tree_views->later_n = tree + 1165 * J + 8;
    tree_views->scale = (int8_t(*)[QP_TREE_ROWS])(void *)(tree + 1166 * J + 8);
    tree_views->lim = tree + 1172 * J + 8;
    tree_views->met = tree + 1173 * J + 8;
    w->joint_tree = tree_views;
#endif
    return at;
}

/* The scratch arrays' sizes, as QP__STEP_SCRATCH_BYTES (world_impl.h) counts them: a body's
 * and a contact's share of each layout. */
#if !QP_CFG_LOW_RAM
_Static_assert(QP__SCRATCH_PRED_BYTES(1) == sizeof(qp_vec3) + sizeof(qp_quat) + sizeof(qp_rot3) &&
                   QP__SCRATCH_PASSES_BYTES(1, 0) == 4 && QP__SCRATCH_PASSES_BYTES(0, 1) == 4 + sizeof(qp_sweep_item),
               "the scratch layouts are as QP__STEP_SCRATCH_BYTES counts them");
#else
_Static_assert(QP__SCRATCH_PRED_BYTES(1) == sizeof(qp_vec3) + sizeof(qp_quat) && QP__SCRATCH_PASSES_BYTES(1, 0) == 28 &&
                   QP__SCRATCH_PASSES_BYTES(0, 1) == 12,
               "the scratch layouts are as QP__STEP_SCRATCH_BYTES counts them");
#endif
_Static_assert(QP__SCRATCH_SPLIT_BYTES(1, 0) == 6 * sizeof(fix16_t) && QP__SCRATCH_SPLIT_BYTES(0, 1) == 2,
               "the split-impulse scratch is as QP__STEP_SCRATCH_BYTES counts it");
#if QP_CFG_JOINT_TREE
_Static_assert(sizeof(int64_t[QP_TREE_ROWS]) + sizeof(qp_mat3[2]) + sizeof(int32_t[QP_TREE_ROWS][QP_TREE_ROWS]) +
                       sizeof(int32_t[QP_TREE_LATER][QP_TREE_ROWS][QP_TREE_ROWS]) + sizeof(int32_t[2]) + sizeof(qp_vec3) +
                       2 * sizeof(int) +
                       2 * sizeof(uint16_t) + sizeof(uint16_t[QP_TREE_LATER]) + 2 + sizeof(int8_t[QP_TREE_ROWS]) + 2 ==
                   1174 + 2 * sizeof(int),
               "the joint-tree scratch is 1174 bytes a joint, a count and a pass (QP__JOINT_TREE_BYTES)");
_Static_assert(QP__R8(sizeof(struct qp__scratch_views)) + sizeof(qp_joint_tree) <= QP__VIEWS_BYTES,
               "QP__VIEWS_BYTES (world_impl.h) holds the scratch views");
#else
_Static_assert(sizeof(struct qp__scratch_views) <= QP__VIEWS_BYTES, "QP__VIEWS_BYTES (world_impl.h) holds the scratch views");
#endif

/* Where a world's pools begin: right after its header. */
#define HEAD_BYTES ((unsigned long)offsetof(qp_world, own))

_Static_assert(HEAD_BYTES % 8 == 0 || _Alignof(uint64_t) < 8, "the pools begin 8-byte aligned");

unsigned long qp_world_memory_size(const qp_world_caps *caps)
{
    if (!caps_ok(caps)) return 0;
    return HEAD_BYTES + lay_out(NULL, NULL, caps);
}

qp_world_caps qp_world_get_caps(const qp_world *w)
{
    return w->caps;
}

/* Zero w's header and pools and lay them out again for caps: a world as qp_world_init
 * leaves it, before its definition. */
/* Place w's pools where w lies, for capacities c (its bytes otherwise as they are). */
static void place(qp_world *w, const qp_world_caps *c)
{
    w->self = w;
    w->caps = *c;
    lay_out(w, (unsigned char *)w + HEAD_BYTES, c);
}

static void clear_as(qp_world *w, const qp_world_caps *caps)
{
    const qp_world_caps c = *caps;   /* caps may lie in w */
    memset(w, 0, HEAD_BYTES + lay_out(NULL, NULL, &c));
    place(w, &c);
}

void qp__world_clear(qp_world *w)
{
    clear_as(w, &w->caps);
}

/* The pools of a qp_world object the caller compiled with capacities caps fit in its own
 * storage exactly when its size is the header's and theirs. */
bool qp__world_fits(uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps)
{
    return config_signature == QP_CONFIG_SIGNATURE && caps_ok(caps) &&
           world_size == HEAD_BYTES + lay_out(NULL, NULL, caps);
}

qp_result qp__world_ready(qp_world *w, uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps)
{
    if (config_signature != QP_CONFIG_SIGNATURE) return QP_ERR_CONFIG;
    if (!w) return QP_ERR_PARAM;
    if (w->self == w) return QP_OK;   /* placed by an init */
    if (!qp__world_fits(config_signature, world_size, caps)) return QP_ERR_CONFIG;
    place(w, caps);   /* the call clears it before it writes */
    return QP_OK;
}

void qp__world_own(qp_world *w, const qp_world_caps *caps)
{
    clear_as(w, caps);
}

qp_result qp_world_init_in_checked(void *memory, unsigned long bytes, const qp_world_caps *caps,
                                   const qp_world_def *def, qp_world **out, uint32_t config_signature)
{
    if (config_signature != QP_CONFIG_SIGNATURE) return QP_ERR_CONFIG;
    if (!memory || !def || !out || ((uintptr_t)memory & 7u) != 0) return QP_ERR_PARAM;
    unsigned long need = qp_world_memory_size(caps);
    if (need == 0 || bytes < need) return QP_ERR_PARAM;
    qp_result r = qp__check_world_def(def);
    if (r != QP_OK) return r;
    qp_world *w = (qp_world *)memory;
    clear_as(w, caps);
    qp__world_start(w, def);
    *out = w;
    return QP_OK;
}

qp_result qp_world_copy(qp_world *to, const qp_world *from)
{
    if (!to || !from || from->self != from) return QP_ERR_PARAM;
    const qp_world_caps c = from->caps;
    /* to holds from's pools: placed with the same capacities, or (never placed) a qp_world
     * object like from, whose pools are its own. */
    bool same = to->self == to && memcmp(&to->caps, &c, sizeof c) == 0;
    bool own = to->self != to && (const void *)from->bodies == (const void *)from->own;
    if (!same && !own) return QP_ERR_PARAM;
    if (to == from) return QP_OK;
    memcpy(to, from, qp_world_memory_size(&c));
    place(to, &c);
    rebase_hulls(to, from);
    return QP_OK;
}

#endif
