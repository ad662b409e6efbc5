/* The input log (include/qphys/record.h): mutating calls as portable byte entries in a
 * caller's buffer, and their replay. Writing is called by body.c and joint.c after each
 * successful call; replay decodes an entry completely, then makes the same public call. */
#include "qphys/record.h"
#include "world_internal.h"

#define ENTRY_HEADER 9ul   /* kind u8, step u32, index u16, generation u16 */
#define SHAPE_BYTES 52ul   /* a shape with its sensor flag and filter */
#define DEF_BYTES 79ul     /* a body def without its shapes */
#define FILTER_BYTES 7ul   /* set shape filter: slot u8, category, mask, group */
#define JOINT_BYTES 79ul   /* a joint def */
#define JOINT_FULL_BYTES (JOINT_BYTES + 42ul)   /* and the later kinds' options */
#define MOTOR_BYTES 9ul    /* set joint motor: enable u8, speed, max force */

_Static_assert(ENTRY_HEADER + JOINT_FULL_BYTES <= QP_INPUT_MAX_ENTRY, "a joint entry fits QP_INPUT_MAX_ENTRY");
_Static_assert(ENTRY_HEADER + DEF_BYTES + SHAPE_BYTES * QP_CFG_MAX_BODY_SHAPES == QP_INPUT_MAX_ENTRY,
               "QP_INPUT_MAX_ENTRY is the largest body create");

qp_result qp_input_log_init(qp_input_log *log, void *buf, unsigned long size)
{
    if (!log || !buf) return QP_ERR_PARAM;
    log->data = (unsigned char *)buf;
    log->size = size;
    log->len = 0;
    log->count = 0;
    log->lost = 0;
    return QP_OK;
}

void qp_world_set_input_log(qp_world *w, qp_input_log *log)
{
    if (w) w->input_log = log;
}

/* ---- writing ------------------------------------------------------------------------- */

typedef struct {
    unsigned char *p;
    unsigned long n;
} out_bytes;

static void put(out_bytes *o, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) o->p[o->n++] = (unsigned char)(v >> (8 * i));
}

static void put_i(out_bytes *o, int32_t v) { put(o, (uint32_t)v, 4); }

static void put_v3(out_bytes *o, qp_vec3 v)
{
    put_i(o, v.x);
    put_i(o, v.y);
    put_i(o, v.z);
}

static void put_quat(out_bytes *o, qp_quat q)
{
    put_i(o, q.w);
    put_i(o, q.x);
    put_i(o, q.y);
    put_i(o, q.z);
}

static void put_filter(out_bytes *o, qp_shape_filter f)
{
    put(o, f.category, 2);
    put(o, f.mask, 2);
    put(o, (uint16_t)f.group, 2);
}

static unsigned long payload_size(qp_input_kind kind, const qp_body_def *def)
{
    switch (kind) {
    case QP_INPUT_CREATE_BODY: return DEF_BYTES + SHAPE_BYTES * (unsigned long)def->shape_count;
    case QP_INPUT_SET_POSE: return 28;
    case QP_INPUT_SET_LINEAR_VELOCITY:
    case QP_INPUT_SET_ANGULAR_VELOCITY:
    case QP_INPUT_APPLY_FORCE:
    case QP_INPUT_APPLY_TORQUE: return 12;
    case QP_INPUT_APPLY_IMPULSE: return 24;
    case QP_INPUT_SET_SHAPE_FILTER: return FILTER_BYTES;
    case QP_INPUT_CREATE_JOINT: return JOINT_BYTES;
    case QP_INPUT_CREATE_JOINT_FULL: return JOINT_FULL_BYTES;
    case QP_INPUT_SET_JOINT_MOTOR: return MOTOR_BYTES;
    case QP_INPUT_SET_JOINT_SPRING_TARGET: return 4;
    default: return 0;
    }
}

/* Room for an entry of `payload` bytes after its header, which it writes into *o (kind,
 * w's step, index, generation); false when w has no log, or it is full: then the log
 * stops here and counts the entry lost. */
static bool begin(qp_world *w, out_bytes *o, qp_input_kind kind, uint16_t index, uint16_t generation,
                  unsigned long payload)
{
    qp_input_log *log = w->input_log;
    if (!log) return false;
    unsigned long need = ENTRY_HEADER + payload;
    if (log->lost || log->len > log->size || need > log->size - log->len) {
        log->lost++;
        return false;
    }
    o->p = log->data + log->len;
    o->n = 0;
    put(o, (uint32_t)kind, 1);
    put(o, w->stats.step, 4);
    put(o, index, 2);
    put(o, generation, 2);
    return true;
}

static void finish(qp_world *w, const out_bytes *o)
{
    w->input_log->len += o->n;
    w->input_log->count++;
}

/* Append one entry for a call that succeeded: a and b are its vectors, q its rotation,
 * def its body def (create), as the kind needs. */
void qp__record_input(qp_world *w, qp_input_kind kind, qp_body_id id, const qp_vec3 *a, const qp_vec3 *b,
                      const qp_quat *q, const qp_body_def *def)
{
    out_bytes o;
    if (!begin(w, &o, kind, id.index, id.generation, payload_size(kind, def))) return;
    switch (kind) {
    case QP_INPUT_CREATE_BODY:
        put(&o, (uint32_t)def->type, 1);
        put_v3(&o, def->position);
        put_quat(&o, def->rotation);
        put_v3(&o, def->linear_velocity);
        put_v3(&o, def->angular_velocity);
        put_i(&o, def->mass);
        put_i(&o, def->density);
        put_i(&o, def->friction);
        put_i(&o, def->static_friction);
        put_i(&o, def->restitution);
        put(&o, def->asleep ? 1u : 0u, 1);
        put(&o, def->user_data, 4);
        put(&o, (uint32_t)def->shape_count, 1);
        for (int k = 0; k < def->shape_count; k++) {
            const qp_shape *s = &def->shapes[k];
            put(&o, (uint32_t)s->type, 1);
            put_v3(&o, s->offset);
            put_quat(&o, s->rotation);
            put_v3(&o, s->half);
            put_i(&o, s->half_height);
            put(&o, def->sensors[k] ? 1u : 0u, 1);
            put_filter(&o, def->filters[k]);
        }
        break;
    case QP_INPUT_SET_POSE:
        put_v3(&o, *a);
        put_quat(&o, *q);
        break;
    case QP_INPUT_APPLY_IMPULSE:
        put_v3(&o, *a);
        put_v3(&o, *b);
        break;
    default:
        if (payload_size(kind, def) == 12) put_v3(&o, *a);
        break;
    }
    finish(w, &o);
}

void qp__record_shape_filter(qp_world *w, qp_body_id id, int shape, qp_shape_filter filter)
{
    out_bytes o;
    if (!begin(w, &o, QP_INPUT_SET_SHAPE_FILTER, id.index, id.generation, FILTER_BYTES)) return;
    put(&o, (uint32_t)shape, 1);
    put_filter(&o, filter);
    finish(w, &o);
}

/* Create (with its def) or destroy (def null) of joint id. A def that uses the later
 * kinds' options takes the longer entry; the first ones keep their bytes. */
void qp__record_joint(qp_world *w, qp_input_kind kind, qp_joint_id id, const qp_joint_def *def)
{
    out_bytes o;
    bool full = def && qp__joint_def_extended(def);
    if (full) kind = QP_INPUT_CREATE_JOINT_FULL;
    if (!begin(w, &o, kind, id.index, id.generation, def ? payload_size(kind, 0) : 0)) return;
    if (def) {
        put(&o, (uint32_t)def->type, 1);
        put(&o, def->a.index, 2);
        put(&o, def->a.generation, 2);
        put(&o, def->b.index, 2);
        put(&o, def->b.generation, 2);
        put_v3(&o, def->anchor);
        put_v3(&o, def->anchor_a);
        put_v3(&o, def->anchor_b);
        put_v3(&o, def->axis);
        put(&o, def->enable_limit ? 1u : 0u, 1);
        put_i(&o, def->lower_angle);
        put_i(&o, def->upper_angle);
        put_i(&o, def->min_length);
        put_i(&o, def->max_length);
        put_i(&o, def->drift_time);
        put(&o, def->collide_connected ? 1u : 0u, 1);
    }
    if (full) {
        put_i(&o, def->lower_translation);
        put_i(&o, def->upper_translation);
        put_i(&o, def->swing_angle);
        put(&o, def->enable_motor ? 1u : 0u, 1);
        put_i(&o, def->motor_speed);
        put_i(&o, def->max_motor_force);
        put(&o, def->enable_spring ? 1u : 0u, 1);
        put_i(&o, def->spring_hz);
        put_i(&o, def->spring_damping);
        put_i(&o, def->spring_target);
        put_i(&o, def->max_spring_force);
        put_i(&o, def->break_impulse);
    }
    finish(w, &o);
}

void qp__record_joint_setting(qp_world *w, qp_input_kind kind, qp_joint_id id, bool enable, fix16_t value,
                              fix16_t max_force)
{
    out_bytes o;
    if (!begin(w, &o, kind, id.index, id.generation, payload_size(kind, 0))) return;
    if (kind == QP_INPUT_SET_JOINT_MOTOR) {
        put(&o, enable ? 1u : 0u, 1);
        put_i(&o, value);
        put_i(&o, max_force);
    } else {
        put_i(&o, value);
    }
    finish(w, &o);
}

/* ---- replay --------------------------------------------------------------------------- */

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
    qp_joint_def joint_def;
    bool enable;                  /* set joint motor */
    fix16_t value, max_force;     /* set joint motor, set spring target */
} entry;

static void get_def(in_bytes *in, qp_body_def *d)
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
        s->half = get_v3(in);
        s->half_height = get_i(in);
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
    }
    if (in->bad) return;
    if (type > (full ? QP_JOINT_CONE : QP_JOINT_DISTANCE) || (!full && qp__joint_def_extended(d)) || d->a.index == 0 || d->a.generation == 0 || d->b.index == 0 ||
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
    case QP_INPUT_CREATE_BODY: get_def(in, &e->def); break;
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

static qp_result apply(qp_world *w, const entry *e, qp_body_id *got, qp_joint_id *joint_got)
{
    *got = e->id;
    *joint_got = e->joint;
    switch (e->kind) {
    case QP_INPUT_CREATE_BODY: {
        qp_result r;
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
        qp_result r = apply(w, &e, &got, &joint_got);
        info->got = got;
        info->joint_got = joint_got;
        info->result = r;
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
