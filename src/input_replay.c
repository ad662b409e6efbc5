/* SPDX-License-Identifier: MIT */
/* The input log's replay (include/qphys/record.h): an entry decoded and checked whole,
 * then applied by the same public call that was recorded (input_log.c writes them). */
#include <string.h>
#include "qphys/joint.h"
#include "qphys/mesh.h"
#include "qphys/record.h"
#include "joint.h"

/* A hull's 768-byte check in its own frame, not in the replay step's. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

typedef struct {
    const unsigned char *p;
    unsigned long n, at;
    int bad;
} in_bytes;

static uint32_t get(in_bytes *in, int bytes)
{
    if (in->bad || in->n - in->at < (unsigned long)bytes) {
        in->bad = 1;
        return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint32_t)in->p[in->at++] << (8 * i);
    return v;
}

static int32_t get_i(in_bytes *in) { return (int32_t)get(in, 4); }

static qp_vec3 get_v3(in_bytes *in)
{
    qp_vec3 v;
    v.x = get_i(in);
    v.y = get_i(in);
    v.z = get_i(in);
    return v;
}

static qp_quat get_quat(in_bytes *in)
{
    qp_quat q;
    q.w = get_i(in);
    q.x = get_i(in);
    q.y = get_i(in);
    q.z = get_i(in);
    return q;
}

/* A u8 that must be 0 or 1. */
static bool get_bool(in_bytes *in)
{
    uint32_t v = get(in, 1);
    if (v > 1) in->bad = 1;
    return v != 0;
}

static qp_shape_filter get_filter(in_bytes *in)
{
    qp_shape_filter f;
    f.category = (uint16_t)get(in, 2);
    f.mask = (uint16_t)get(in, 2);
    int32_t group = (int32_t)get(in, 2);
    f.group = (int16_t)(group >= 0x8000 ? group - 0x10000 : group);
    return f;
}

/* One entry, decoded (nothing applied). */
typedef struct {
    qp_input_kind kind;
    uint32_t step;
    qp_body_id id;                /* body kinds */
    qp_joint_id joint;            /* joint kinds */
    qp_vec3 a, b;
    qp_quat q;
    int shape;
    qp_shape_filter filter;
    qp_body_def def;
    uint32_t level_sum[QP_CFG_MAX_BODY_SHAPES];   /* a mesh's or heightfield's checksum, per shape */
    unsigned long hull_at[QP_CFG_MAX_BODY_SHAPES];   /* a hull shape's corners in the log */
    uint8_t hull_n[QP_CFG_MAX_BODY_SHAPES];           /* and how many (0: not a hull) */
    qp_joint_def joint_def;
    bool enable;                  /* set joint motor */
    fix16_t value, max_force;     /* set joint motor, set spring target */
} entry;

/* A hull shape's corners: 4-64 of them, within range, every one a corner (the recorded
 * hull's); where they lie in the log goes to *at. */
NOINLINE static void get_hull_points(in_bytes *in, unsigned long *at, uint8_t *count)
{
    uint32_t n = get(in, 1);
    qp_vec3 p[QP_HULL_MAX_POINTS] = { { 0 } };   /* all written: no reader sees a stale byte */
    if (n < 4 || n > QP_HULL_MAX_POINTS || !QP_CFG_MAX_HULLS) in->bad = 1;
    *at = in->at;
    for (uint32_t v = 0; v < n && !in->bad; v++) p[v] = get_v3(in);
    if (!in->bad && qp_hull_check(p, (int)n) != QP_OK) in->bad = 1;
    for (uint32_t v = 0; v < n && !in->bad; v++)
        for (uint32_t u = 0; u < v; u++)
            if (p[u].x == p[v].x && p[u].y == p[v].y && p[u].z == p[v].z) in->bad = 1;   /* corners are distinct */
    *count = in->bad ? 0 : (uint8_t)n;
}

static void get_def(in_bytes *in, qp_body_def *d, uint32_t *level_sum, unsigned long *hull_at, uint8_t *hull_n)
{
    *d = qp_default_body_def();
    uint32_t type = get(in, 1);
    if (type != QP_BODY_STATIC && type != QP_BODY_DYNAMIC && type != QP_BODY_KINEMATIC) in->bad = 1;
    d->type = (qp_body_type)type;
    d->position = get_v3(in);
    d->rotation = get_quat(in);
    d->linear_velocity = get_v3(in);
    d->angular_velocity = get_v3(in);
    d->mass = get_i(in);
    d->density = get_i(in);
    d->friction = get_i(in);
    d->static_friction = get_i(in);
    d->restitution = get_i(in);
    d->rolling_resistance = get_i(in);
    d->asleep = get_bool(in);
    d->user_data = get(in, 4);
    uint32_t count = get(in, 1);
    if (count < 1 || count > QP_CFG_MAX_BODY_SHAPES) in->bad = 1;
    d->shape_count = in->bad ? 0 : (int)count;
    for (int k = 0; k < d->shape_count; k++) {
        qp_shape *s = &d->shapes[k];
        uint32_t shape_type = get(in, 1);
        if (shape_type >= QP_SHAPE_TYPE_COUNT) in->bad = 1;
        s->type = (qp_shape_type)shape_type;
        s->offset = get_v3(in);
        s->rotation = get_quat(in);
        level_sum[k] = 0;
        hull_n[k] = 0;
        if (qp_shape_is_level(s->type)) {
            /* Its checksum, resolved against the world's own level shapes when applied. */
            level_sum[k] = get(in, 4);
            if ((get(in, 4) | get(in, 4) | get(in, 4)) != 0 || d->type != QP_BODY_STATIC) in->bad = 1;
            s->mesh = 0;
            s->half_height = 0;
        } else if (s->type == QP_SHAPE_HULL) {
            s->half = qp_v3_zero();   /* the hull pointer: null until apply builds it */
            s->hull = 0;
            s->half_height = 0;
            get_hull_points(in, &hull_at[k], &hull_n[k]);
        } else {
            s->half = get_v3(in);
            s->half_height = get_i(in);
        }
        d->sensors[k] = get_bool(in);
        d->filters[k] = get_filter(in);
    }
}

static qp_body_id get_body_id(in_bytes *in)
{
    qp_body_id id;
    id.index = (uint16_t)get(in, 2);
    id.generation = (uint16_t)get(in, 2);
    return id;
}

/* A joint def; damaged unless its bodies are named (not null) and different, and its
 * values pass the checks of qp_create_joint that need no world. */
static void get_joint_def(in_bytes *in, qp_joint_def *d, bool full)
{
    *d = qp_default_joint_def();
    uint32_t type = get(in, 1);
    d->type = (qp_joint_type)type;
    d->a = get_body_id(in);
    d->b = get_body_id(in);
    d->anchor = get_v3(in);
    d->anchor_a = get_v3(in);
    d->anchor_b = get_v3(in);
    d->axis = get_v3(in);
    d->enable_limit = get_bool(in);
    d->lower_angle = get_i(in);
    d->upper_angle = get_i(in);
    d->min_length = get_i(in);
    d->max_length = get_i(in);
    d->drift_time = get_i(in);
    d->collide_connected = get_bool(in);
    if (full) {
        d->lower_translation = get_i(in);
        d->upper_translation = get_i(in);
        d->swing_angle = get_i(in);
        d->enable_motor = get_bool(in);
        d->motor_speed = get_i(in);
        d->max_motor_force = get_i(in);
        d->enable_spring = get_bool(in);
        d->spring_hz = get_i(in);
        d->spring_damping = get_i(in);
        d->spring_target = get_i(in);
        d->max_spring_force = get_i(in);
        d->break_impulse = get_i(in);
        d->max_friction_torque = get_i(in);
    }
    if (in->bad) return;
    if (type > (full ? QP_JOINT_CONE : QP_JOINT_DISTANCE) || (!full && qp__joint_def_extended(d)) ||
        d->a.index == 0 || d->a.generation == 0 || d->b.index == 0 ||
        d->b.generation == 0 || d->a.index == d->b.index || qp__joint_def_check_values(d) != QP_OK)
        in->bad = 1;
}

static void get_entry(in_bytes *in, entry *e)
{
    uint32_t kind = get(in, 1);
    e->kind = (qp_input_kind)kind;
    e->step = get(in, 4);
    e->id = get_body_id(in);
    e->joint.index = e->id.index;
    e->joint.generation = e->id.generation;
    bool body_kind = kind >= QP_INPUT_CREATE_BODY && kind < QP_INPUT_KIND_END;
    bool joint_kind = kind >= QP_INPUT_CREATE_JOINT && kind < QP_INPUT_JOINT_KIND_END;
    if (!body_kind && !joint_kind) {
        in->bad = 1;
        return;
    }
    if (joint_kind) {
        e->id = qp_null_body();
        if (e->joint.index == 0 || e->joint.generation == 0) in->bad = 1;   /* never a live joint's id */
    } else {
        e->joint = qp_null_joint();
    }
    switch (e->kind) {
    case QP_INPUT_CREATE_BODY: get_def(in, &e->def, e->level_sum, e->hull_at, e->hull_n); break;
    case QP_INPUT_SET_POSE:
        e->a = get_v3(in);
        e->q = get_quat(in);
        break;
    case QP_INPUT_APPLY_IMPULSE:
        e->a = get_v3(in);
        e->b = get_v3(in);
        break;
    case QP_INPUT_SET_LINEAR_VELOCITY:
    case QP_INPUT_SET_ANGULAR_VELOCITY:
    case QP_INPUT_APPLY_FORCE:
    case QP_INPUT_APPLY_TORQUE: e->a = get_v3(in); break;
    case QP_INPUT_SET_SHAPE_FILTER:
        e->shape = (int)get(in, 1);
        if (e->shape >= QP_CFG_MAX_BODY_SHAPES) in->bad = 1;
        e->filter = get_filter(in);
        break;
    case QP_INPUT_CREATE_JOINT: get_joint_def(in, &e->joint_def, false); break;
    case QP_INPUT_CREATE_JOINT_FULL: get_joint_def(in, &e->joint_def, true); break;
    case QP_INPUT_SET_JOINT_MOTOR:
        e->enable = get_bool(in);
        e->value = get_i(in);
        e->max_force = get_i(in);
        break;
    case QP_INPUT_SET_JOINT_SPRING_TARGET: e->value = get_i(in); break;
    default: break;
    }
}

/* The world's level shape of s's type whose geometry has checksum sum: s takes its
 * reference. False when the world holds none (the recording's level is not this one). */
static bool find_level(const qp_world *w, qp_shape *s, uint32_t sum)
{
    for (int i = 1; i <= qp_world_body_capacity(w); i++) {
        qp_body_id id = qp_world_body_at(w, i);
        for (int k = 0; k < qp_body_shape_count(w, id); k++) {
            const qp_shape *o = qp_body_shape(w, id, k);
            if (o->type != s->type || !qp_shape_is_level(o->type)) continue;
            if ((o->type == QP_SHAPE_MESH ? o->mesh->checksum : o->heightfield->checksum) != sum) continue;
            if (o->type == QP_SHAPE_MESH) s->mesh = o->mesh;
            else s->heightfield = o->heightfield;
            return true;
        }
    }
    return false;
}

/* Build each hull shape of e's def (read from the log at buf) in the world's scratch and
 * create the body, which copies them to the world's pool; the scratch is zeroed again
 * (all zero between calls: the world byte for byte as it was if the body is refused). */
static qp_result create_with_hulls(qp_world *w, entry *e, const unsigned char *buf, qp_body_id *got)
{
    qp_result r = QP_ERR_FULL;
#if QP_CFG_MAX_HULLS > 0
    int nb = 0;
    for (int k = 0; k < e->def.shape_count; k++) {
        if (!e->hull_n[k]) continue;
        if (nb == QP__HULL_SCRATCH) break;
        qp_hull *h = &w->hull_scratch[nb++];
        in_bytes in = { buf, e->hull_at[k] + 12ul * e->hull_n[k], e->hull_at[k], 0 };
        for (int v = 0; v < e->hull_n[k]; v++) h->verts[v] = get_v3(&in);
        /* Every point recorded is a corner of the recorded hull: one that is not is damage. */
        if (qp_hull_build(h->verts, e->hull_n[k], h) != QP_OK || h->vert_count != e->hull_n[k]) {
            r = QP_ERR_BUFFER;
            break;
        }
        e->def.shapes[k].hull = h;
    }
    bool all = r != QP_ERR_BUFFER;
    for (int k = 0; k < e->def.shape_count; k++) all &= e->def.shapes[k].type != QP_SHAPE_HULL || e->def.shapes[k].hull;
    if (all) *got = qp_create_body(w, &e->def, &r);
    memset(w->hull_scratch, 0, (size_t)nb * sizeof w->hull_scratch[0]);
#else
    (void)w;
    (void)e;
    (void)buf;
    (void)got;
#endif
    return r;
}

static qp_result apply(qp_world *w, entry *e, const unsigned char *buf, qp_body_id *got, qp_joint_id *joint_got)
{
    *got = e->id;
    *joint_got = e->joint;
    switch (e->kind) {
    case QP_INPUT_CREATE_BODY: {
        qp_result r;
        for (int k = 0; k < e->def.shape_count; k++)
            if (qp_shape_is_level(e->def.shapes[k].type) && !find_level(w, &e->def.shapes[k], e->level_sum[k])) {
                *got = qp_null_body();
                return QP_ERR_PARAM;
            }
        for (int k = 0; k < e->def.shape_count; k++)
            if (e->hull_n[k]) return create_with_hulls(w, e, buf, got);
        *got = qp_create_body(w, &e->def, &r);
        return r;
    }
    case QP_INPUT_DESTROY_BODY: return qp_destroy_body(w, e->id);
    case QP_INPUT_SET_POSE: return qp_body_set_pose(w, e->id, e->a, e->q);
    case QP_INPUT_SET_LINEAR_VELOCITY: return qp_body_set_linear_velocity(w, e->id, e->a);
    case QP_INPUT_SET_ANGULAR_VELOCITY: return qp_body_set_angular_velocity(w, e->id, e->a);
    case QP_INPUT_APPLY_FORCE: return qp_body_apply_force(w, e->id, e->a);
    case QP_INPUT_APPLY_TORQUE: return qp_body_apply_torque(w, e->id, e->a);
    case QP_INPUT_APPLY_IMPULSE: return qp_body_apply_impulse(w, e->id, e->a, e->b);
    case QP_INPUT_WAKE: return qp_body_wake(w, e->id);
    case QP_INPUT_CLEAR_FLAGS:
        if (!qp_body_is_valid(w, e->id)) return QP_ERR_INVALID_ID;
        qp_body_clear_flags(w, e->id);
        return QP_OK;
    case QP_INPUT_SET_SHAPE_FILTER: return qp_body_set_shape_filter(w, e->id, e->shape, e->filter);
    case QP_INPUT_CREATE_JOINT:
    case QP_INPUT_CREATE_JOINT_FULL: {
        qp_result r;
        *joint_got = qp_create_joint(w, &e->joint_def, &r);
        return r;
    }
    case QP_INPUT_DESTROY_JOINT: return qp_destroy_joint(w, e->joint);
    case QP_INPUT_SET_JOINT_MOTOR: return qp_joint_set_motor(w, e->joint, e->enable, e->value, e->max_force);
    case QP_INPUT_SET_JOINT_SPRING_TARGET: return qp_joint_set_spring_target(w, e->joint, e->value);
    default: return QP_ERR_PARAM;   /* not reached: get_entry refused it */
    }
}

qp_result qp_input_replay_step(qp_world *w, const void *buf, unsigned long len, unsigned long *at,
                               qp_input_info *info)
{
    qp_input_info dummy;
    if (!info) info = &dummy;
    info->kind = (qp_input_kind)0;
    info->step = 0;
    info->body = info->got = qp_null_body();
    info->joint = info->joint_got = qp_null_joint();
    info->result = QP_OK;
    if (!w || !at || (!buf && len > 0) || *at > len) return QP_ERR_PARAM;
    while (*at < len) {
        in_bytes in = { (const unsigned char *)buf, len, *at, 0 };
        entry e;
        get_entry(&in, &e);
        if (in.bad) return QP_ERR_BUFFER;
        if (e.step > w->stats.step) return QP_OK;     /* a later step's */
        info->kind = e.kind;
        info->step = e.step;
        info->body = e.id;
        info->joint = e.joint;
        if (e.step < w->stats.step) return QP_ERR_BUFFER;
        qp_body_id got;
        qp_joint_id joint_got;
        qp_result r = apply(w, &e, (const unsigned char *)buf, &got, &joint_got);
        info->got = got;
        info->joint_got = joint_got;
        info->result = r;
        if (r == QP_ERR_BUFFER) return r;   /* a hull that is not the recorded one: nothing applied */
        *at = in.at;
        if (r != QP_OK) return r;
        if (e.kind == QP_INPUT_CREATE_BODY && (got.index != e.id.index || got.generation != e.id.generation))
            return QP_ERR_INVALID_ID;
        if ((e.kind == QP_INPUT_CREATE_JOINT || e.kind == QP_INPUT_CREATE_JOINT_FULL) &&
            (joint_got.index != e.joint.index || joint_got.generation != e.joint.generation))
            return QP_ERR_INVALID_ID;
    }
    return QP_OK;
}
