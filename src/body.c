/* Bodies: creation with mass properties, removal, reads and writes.
 *
 * Internally a body's frame is centred on its centre of mass: shapes are
 * stored with offsets relative to it, and the user's origin is recovered
 * through local_center. Creation validates everything before it touches
 * the world, so a failed call changes nothing.
 */
#include "world_internal.h"

static qp_body_state *get(qp_world *w, qp_body_id id)
{
    if (id.index == 0 || id.index > QP_CFG_MAX_BODIES) return 0;
    qp_body_state *b = &w->bodies[id.index];
    if (!(b->state & QP_STATE_USED) || b->generation != id.generation) return 0;
    return b;
}

static const qp_body_state *cget(const qp_world *w, qp_body_id id)
{
    return get((qp_world *)w, id);
}

bool qp_body_is_valid(const qp_world *w, qp_body_id id)
{
    return cget(w, id) != 0;
}

qp_body_id qp_world_body_at(const qp_world *w, int index)
{
    if (index < 1 || index > QP_CFG_MAX_BODIES || !(w->bodies[index].state & QP_STATE_USED))
        return qp_null_body();
    qp_body_id id = { (uint16_t)index, w->bodies[index].generation };
    return id;
}

void qp__body_sync(qp_body_state *b)
{
#if QP_CFG_LOW_RAM
    (void)b;   /* nothing kept: qp__body_rot and qp__body_inv_inertia compute them */
#else
    b->r = qp_quat_to_rot3(b->q);
    if (b->state & QP_STATE_DYNAMIC) b->inv_inertia = qp_mat3_rotate(&b->r, &b->inv_inertia_local);
#endif
}

static bool is_identity(qp_quat q)
{
    return q.w == QP_Q30_ONE && q.x == 0 && q.y == 0 && q.z == 0;
}

qp_transform qp__shape_world(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r)
{
    const qp_shape *s = &w->shapes[shape].shape;
    qp_transform xf;
    xf.p = qp_v3_add(*x, qp_rot3_mul_v3(r, s->offset));
    if (is_identity(s->rotation)) {
        xf.r = *r;
    } else {
        qp_rot3 local = qp_quat_to_rot3(s->rotation);
        xf.r = qp_rot3_mul(r, &local);
    }
    return xf;
}

void qp__body_update_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r)
{
    const qp_body_state *b = &w->bodies[body];
    qp_vec3 m = qp_v3(w->def.contact_margin, w->def.contact_margin, w->def.contact_margin);
    for (int i = 0; i < b->shape_count; i++) {
        int s = b->shapes[i];
        qp_transform xf = qp__shape_world(w, s, x, r);
        qp_aabb box = qp_shape_aabb(&w->shapes[s].shape, &xf);
        w->shapes[s].aabb.lo = qp_v3_sub(box.lo, m);
        w->shapes[s].aabb.hi = qp_v3_add(box.hi, m);
    }
}

/* Parallel-axis shift of an inertia tensor by offset d for mass m:
 * I + m (|d|^2 E - d d^T). */
static qp_mat3 shift_inertia(qp_mat3 in, fix16_t m, qp_vec3 d)
{
    fix16_t dd[3] = { d.x, d.y, d.z };
    fix16_t len2 = qp_v3_dot(d, d);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            fix16_t t = (i == j ? len2 : 0) - qp_mul(dd[i], dd[j]);
            in.m[i][j] = qp_sat32((int64_t)in.m[i][j] + qp_mul(m, t));
        }
    return in;
}

typedef struct {
    fix16_t mass, inv_mass;
    qp_vec3 center;
    qp_mat3 inv_inertia;
} mass_props;

static qp_result compute_mass(const qp_body_def *def, mass_props *out)
{
    qp_mass_data md[QP_CFG_MAX_BODY_SHAPES];
    int64_t total = 0, cx = 0, cy = 0, cz = 0;
    for (int i = 0; i < def->shape_count; i++) {
        qp_result r = qp_shape_mass(&def->shapes[i], def->density, &md[i]);
        if (r != QP_OK) return r;
        total += md[i].mass;
        cx += (int64_t)md[i].mass * md[i].center.x;
        cy += (int64_t)md[i].mass * md[i].center.y;
        cz += (int64_t)md[i].mass * md[i].center.z;
    }
    if (total < QP_FRAC(1, 100) || total > QP_INT(10000)) return QP_ERR_RANGE;
    qp_vec3 c = qp_v3((fix16_t)(cx / total), (fix16_t)(cy / total), (fix16_t)(cz / total));
    qp_mat3 inertia = qp_mat3_zero();
    for (int i = 0; i < def->shape_count; i++) {
        qp_mat3 shifted = shift_inertia(md[i].inertia, md[i].mass, qp_v3_sub(md[i].center, c));
        inertia = qp_mat3_add(&inertia, &shifted);
    }
    fix16_t mass = (fix16_t)total;
    if (def->mass > 0) {
        /* Scale density-derived properties to the requested mass. */
        fix16_t k = qp_div(def->mass, mass);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) inertia.m[i][j] = qp_mul(inertia.m[i][j], k);
        mass = def->mass;
    }
    for (int i = 0; i < 3; i++)
        if (inertia.m[i][i] < QP_FRAC(1, 10000) || inertia.m[i][i] >= QP_INT(32000)) return QP_ERR_RANGE;
    if (!qp_mat3_inverse(&inertia, &out->inv_inertia)) return QP_ERR_RANGE;
    /* The solver's kernels rely on this bound (solver.c): products of an
     * entry with any Q16.16 vector stay below 2^60.3, sums of three below 2^62. */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (out->inv_inertia.m[i][j] > QP_INV_INERTIA_MAX || out->inv_inertia.m[i][j] < -QP_INV_INERTIA_MAX)
                return QP_ERR_RANGE;
    out->mass = mass;
    out->inv_mass = qp_div(QP_ONE, mass);
    out->center = c;
    return QP_OK;
}

static qp_result check_body_def(const qp_world *w, const qp_body_def *def)
{
    if (def->type != QP_BODY_STATIC && def->type != QP_BODY_DYNAMIC) return QP_ERR_PARAM;
    if (def->shape_count < 1 || def->shape_count > QP_CFG_MAX_BODY_SHAPES) return QP_ERR_PARAM;
    for (int i = 0; i < def->shape_count; i++) {
        qp_result r = qp_shape_validate(&def->shapes[i]);
        if (r != QP_OK) return r;
        if (def->shapes[i].type == QP_SHAPE_PLANE && def->type != QP_BODY_STATIC) return QP_ERR_PARAM;
        if (qp_v3_max_abs(def->shapes[i].offset) > QP_SHAPE_MAX_SIZE) return QP_ERR_RANGE;
    }
    qp_quat nq;
    if (!qp_quat_normalize(def->rotation, &nq)) return QP_ERR_PARAM;
    if (qp_v3_max_abs(def->position) > w->def.bounds) return QP_ERR_RANGE;
    if (qp_v3_len(def->linear_velocity) > w->def.max_linear_speed ||
        qp_v3_len(def->angular_velocity) > w->def.max_angular_speed)
        return QP_ERR_RANGE;
    if (def->friction < 0 || def->friction > QP_INT(10) || def->static_friction > QP_INT(10) ||
        def->restitution < 0 || def->restitution > QP_ONE)
        return QP_ERR_RANGE;
    if (def->type == QP_BODY_DYNAMIC) {
        if (def->mass < 0 || (def->mass > 0 && (def->mass < QP_FRAC(1, 100) || def->mass > QP_INT(10000))))
            return QP_ERR_RANGE;
        if (def->mass == 0 && def->density <= 0) return QP_ERR_RANGE;
    }
    return QP_OK;
}

qp_body_id qp_create_body(qp_world *w, const qp_body_def *def, qp_result *err)
{
    qp_result dummy;
    if (!err) err = &dummy;
    if (!w || !def) { *err = QP_ERR_PARAM; return qp_null_body(); }
    *err = check_body_def(w, def);
    if (*err != QP_OK) return qp_null_body();

    mass_props mp = { 0, 0, { 0, 0, 0 }, { { { 0 } } } };
    if (def->type == QP_BODY_DYNAMIC) {
        qp_body_def scaled = *def;
        if (scaled.mass > 0) scaled.density = QP_ONE;
        *err = compute_mass(&scaled, &mp);
        if (*err != QP_OK) return qp_null_body();
    }
    /* Free slots, lowest index first (deterministic). */
    int index = 0;
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++)
        if (!(w->bodies[i].state & QP_STATE_USED)) { index = i; break; }
    int shape_idx[QP_CFG_MAX_BODY_SHAPES] = { 0 };
    int found = 0;
    for (int s = 0; s < QP_CFG_MAX_SHAPES && found < def->shape_count; s++)
        if (w->shapes[s].body == 0) shape_idx[found++] = s;
    if (index == 0 || found < def->shape_count) { *err = QP_ERR_FULL; return qp_null_body(); }

    qp_body_state *b = &w->bodies[index];
    uint16_t gen = (uint16_t)(b->generation + 1);
    unsigned char *p = (unsigned char *)b;
    for (unsigned i = 0; i < sizeof *b; i++) p[i] = 0;
    b->generation = gen == 0 ? 1 : gen;
    b->state = QP_STATE_USED | (def->type == QP_BODY_DYNAMIC ? QP_STATE_DYNAMIC : 0);
    qp_quat_normalize(def->rotation, &b->q);
    b->local_center = mp.center;
    qp_rot3 rot = qp_quat_to_rot3(b->q);
    b->x = qp_v3_add(def->position, qp_rot3_mul_v3(&rot, mp.center));
    if (def->type == QP_BODY_DYNAMIC) {
        b->v = def->linear_velocity;
        b->w = def->angular_velocity;
        b->mass = mp.mass;
        b->inv_mass = mp.inv_mass;
        b->inv_inertia_local = mp.inv_inertia;
        if (def->asleep) b->state |= QP_STATE_ASLEEP;
    }
    b->friction = def->friction;
    b->static_friction = def->static_friction < 0 ? def->friction : def->static_friction;
    b->restitution = def->restitution;
    b->user_data = def->user_data;
    b->shape_count = (uint8_t)def->shape_count;
    for (int i = 0; i < def->shape_count; i++) {
        qp_shape_slot *slot = &w->shapes[shape_idx[i]];
        slot->shape = def->shapes[i];
        slot->shape.offset = qp_v3_sub(def->shapes[i].offset, mp.center);
        slot->body = (uint16_t)index;
        slot->slot = (uint8_t)i;
        b->shapes[i] = (uint16_t)shape_idx[i];
        w->sap_order[w->sap_count++] = (uint16_t)shape_idx[i];
    }
    if (b->state & QP_STATE_ASLEEP) b->v = b->w = qp_v3_zero();
    qp__body_sync(b);
    qp__body_update_aabbs(w, index, &b->x, &rot);
    if (index > w->body_high) w->body_high = index;
    *err = QP_OK;
    qp_body_id id = { (uint16_t)index, b->generation };
    qp__record_input(w, QP_INPUT_CREATE_BODY, id, 0, 0, 0, def);
    return id;
}

/* Drop every contact that involves body i, keeping order. */
static void drop_contacts(qp_world *w, int i)
{
    int n = 0;
    for (int c = 0; c < w->contact_count; c++) {
        qp_contact *ct = &w->contacts[c];
        if (ct->a == i || ct->b == i) {
            int other = ct->a == i ? ct->b : ct->a;
            qp__wake_body(w, other);
            continue;
        }
        w->contacts[n++] = *ct;
    }
    w->contact_count = n;
    qp__build_adjacency(w);   /* contact indices moved: waking walks the new ones */
}

qp_result qp_destroy_body(qp_world *w, qp_body_id id)
{
    qp_body_state *b = get(w, id);
    if (!b) return QP_ERR_INVALID_ID;
    int index = id.index;
    drop_contacts(w, index);
    int n = 0;
    for (int i = 0; i < w->sap_count; i++)
        if (w->shapes[w->sap_order[i]].body != index) w->sap_order[n++] = w->sap_order[i];
    w->sap_count = n;
    for (int i = 0; i < b->shape_count; i++) {
        qp_shape_slot *slot = &w->shapes[b->shapes[i]];
        unsigned char *p = (unsigned char *)slot;
        for (unsigned k = 0; k < sizeof *slot; k++) p[k] = 0;
    }
    uint16_t gen = b->generation;
    unsigned char *p = (unsigned char *)b;
    for (unsigned i = 0; i < sizeof *b; i++) p[i] = 0;
    b->generation = gen;
    while (w->body_high > 0 && !(w->bodies[w->body_high].state & QP_STATE_USED)) w->body_high--;
    qp__record_input(w, QP_INPUT_DESTROY_BODY, id, 0, 0, 0, 0);
    return QP_OK;
}

qp_vec3 qp_body_position(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    if (!b) return qp_v3_zero();
    qp_rot3 r = qp__body_rot(b);
    return qp_v3_sub(b->x, qp_rot3_mul_v3(&r, b->local_center));
}

qp_vec3 qp_body_center(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->x : qp_v3_zero();
}

qp_quat qp_body_rotation(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->q : qp_quat_identity();
}

qp_vec3 qp_body_linear_velocity(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->v : qp_v3_zero();
}

qp_vec3 qp_body_angular_velocity(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->w : qp_v3_zero();
}

fix16_t qp_body_mass(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->mass : 0;
}

qp_body_type qp_body_get_type(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b && (b->state & QP_STATE_DYNAMIC) ? QP_BODY_DYNAMIC : QP_BODY_STATIC;
}

uint32_t qp_body_user_data(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->user_data : 0;
}

qp_result qp_body_set_pose(qp_world *w, qp_body_id id, qp_vec3 position, qp_quat rotation)
{
    qp_body_state *b = get(w, id);
    if (!b) return QP_ERR_INVALID_ID;
    qp_quat q;
    if (!qp_quat_normalize(rotation, &q)) return QP_ERR_PARAM;
    if (qp_v3_max_abs(position) > w->def.bounds) return QP_ERR_RANGE;
    b->q = q;
    qp__body_sync(b);
    qp_rot3 r = qp__body_rot(b);
    b->x = qp_v3_add(position, qp_rot3_mul_v3(&r, b->local_center));
    qp__body_update_aabbs(w, id.index, &b->x, &r);
    qp__wake_body(w, id.index);
    qp__record_input(w, QP_INPUT_SET_POSE, id, &position, 0, &rotation, 0);
    return QP_OK;
}

static qp_body_state *get_dynamic(qp_world *w, qp_body_id id, qp_result *r)
{
    qp_body_state *b = get(w, id);
    *r = !b ? QP_ERR_INVALID_ID : !(b->state & QP_STATE_DYNAMIC) ? QP_ERR_PARAM : QP_OK;
    return *r == QP_OK ? b : 0;
}

/* Wake a dynamic body and return the velocity or force it holds to be set
 * (which: 0 v, 1 w, 2 force, 3 torque), or null with *r saying why not.
 * A set velocity must stay within limit (0: no limit). */
static qp_vec3 *writable(qp_world *w, qp_body_id id, int which, qp_vec3 value, fix16_t limit, qp_result *r)
{
    qp_body_state *b = get_dynamic(w, id, r);
    if (!b) return 0;
    if (limit > 0 && qp_v3_len(value) > limit) {
        *r = QP_ERR_RANGE;
        return 0;
    }
    qp__wake_body(w, id.index);
    qp_vec3 *slot[4] = { &b->v, &b->w, &b->force, &b->torque };
    return slot[which];
}

qp_result qp_body_set_linear_velocity(qp_world *w, qp_body_id id, qp_vec3 v)
{
    qp_result r;
    qp_vec3 *to = writable(w, id, 0, v, w->def.max_linear_speed, &r);
    if (to) {
        *to = v;
        qp__record_input(w, QP_INPUT_SET_LINEAR_VELOCITY, id, &v, 0, 0, 0);
    }
    return r;
}

qp_result qp_body_set_angular_velocity(qp_world *w, qp_body_id id, qp_vec3 omega)
{
    qp_result r;
    qp_vec3 *to = writable(w, id, 1, omega, w->def.max_angular_speed, &r);
    if (to) {
        *to = omega;
        qp__record_input(w, QP_INPUT_SET_ANGULAR_VELOCITY, id, &omega, 0, 0, 0);
    }
    return r;
}

qp_result qp_body_apply_force(qp_world *w, qp_body_id id, qp_vec3 force)
{
    qp_result r;
    qp_vec3 *to = writable(w, id, 2, force, 0, &r);
    if (to) {
        *to = qp_v3_add(*to, force);
        qp__record_input(w, QP_INPUT_APPLY_FORCE, id, &force, 0, 0, 0);
    }
    return r;
}

qp_result qp_body_apply_torque(qp_world *w, qp_body_id id, qp_vec3 torque)
{
    qp_result r;
    qp_vec3 *to = writable(w, id, 3, torque, 0, &r);
    if (to) {
        *to = qp_v3_add(*to, torque);
        qp__record_input(w, QP_INPUT_APPLY_TORQUE, id, &torque, 0, 0, 0);
    }
    return r;
}

qp_result qp_body_apply_impulse(qp_world *w, qp_body_id id, qp_vec3 impulse, qp_vec3 world_point)
{
    qp_result r;
    qp_body_state *b = get_dynamic(w, id, &r);
    if (!b) return r;
    qp__wake_body(w, id.index);
    qp_vec3 arm = qp_v3_sub(world_point, b->x);
    b->v = qp_v3_mad(b->v, impulse, b->inv_mass);
    qp_mat3 inv_inertia = qp__body_inv_inertia(b);
    b->w = qp_v3_add(b->w, qp_mat3_mul_v3(&inv_inertia, qp_v3_cross(arm, impulse)));
    if (qp__clamp_speed(&b->v, w->def.max_linear_speed) | qp__clamp_speed(&b->w, w->def.max_angular_speed))
        b->flags |= QP_FLAG_SPEED_CLAMPED;
    qp__record_input(w, QP_INPUT_APPLY_IMPULSE, id, &impulse, &world_point, 0, 0);
    return QP_OK;
}

bool qp_body_is_awake(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b && (b->state & QP_STATE_DYNAMIC) && !(b->state & QP_STATE_ASLEEP);
}

qp_result qp_body_wake(qp_world *w, qp_body_id id)
{
    if (!get(w, id)) return QP_ERR_INVALID_ID;
    qp__wake_body(w, id.index);
    qp__record_input(w, QP_INPUT_WAKE, id, 0, 0, 0, 0);
    return QP_OK;
}

uint32_t qp_body_flags(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->flags : 0;
}

void qp_body_clear_flags(qp_world *w, qp_body_id id)
{
    qp_body_state *b = get(w, id);
    if (!b) return;
    b->flags = 0;
    qp__record_input(w, QP_INPUT_CLEAR_FLAGS, id, 0, 0, 0, 0);
}

int qp_body_level(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->level : -1;
}

int qp_body_shape_count(const qp_world *w, qp_body_id id)
{
    const qp_body_state *b = cget(w, id);
    return b ? b->shape_count : 0;
}

const qp_shape *qp_body_shape(const qp_world *w, qp_body_id id, int i)
{
    const qp_body_state *b = cget(w, id);
    if (!b || i < 0 || i >= b->shape_count) return 0;
    return &w->shapes[b->shapes[i]].shape;
}
