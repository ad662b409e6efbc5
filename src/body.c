/* SPDX-License-Identifier: MIT */
/* Bodies: creation with mass properties, removal, reads and writes.
 *
 * Internally a body's frame is centred on its centre of mass: shapes are
 * stored with offsets relative to it, and the user's origin is recovered
 * through local_center. Creation validates everything before it touches
 * the world, so a failed call changes nothing.
 */
#include <string.h>
#include "geometry.h"
#include "qphys/mesh.h"
#include "hull.h"
#include "body.h"
#include "contact_graph.h"
#include "events.h"
#include "input_log.h"
#include "joint.h"
#include "sleep.h"

static qp_body_state *get(qp_world *w, qp_body_id id)
{
    if (id.index == 0 || id.index > qp__cap_bodies(w)) return 0;
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
    if (index < 1 || index > qp__cap_bodies(w) || !(w->bodies[index].state & QP_STATE_USED))
        return qp_null_body();
    qp_body_id id = { (uint16_t)index, w->bodies[index].generation };
    return id;
}

void qp__body_sync(qp_body_state *b)
{
    qp__body_keep_derived(b);
}

static bool is_identity(qp_quat q)
{
    return q.w == QP_Q30_ONE && q.x == 0 && q.y == 0 && q.z == 0;
}

qp_transform qp__shape_world(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r)
{
    const qp_shape *s = &w->shapes[shape].shape;
    qp_transform xf;
    /* A zero offset (every one-shape body's shape) turns to zero: x + 0, saturated. */
    xf.p = (s->offset.x | s->offset.y | s->offset.z) == 0 ? qp__v3_add(*x, qp_v3_zero())
                                                          : qp_v3_add(*x, qp_rot3_mul_v3(r, s->offset));
    if (is_identity(s->rotation)) {
        xf.r = *r;
    } else {
        qp_rot3 local = qp_quat_to_rot3(s->rotation);
        xf.r = qp_rot3_mul(r, &local);
    }
    return xf;
}

/* Shape s's world box at its body's pose (x, r), grown by the contact margin. */
static qp_aabb margin_box(const qp_world *w, int s, const qp_vec3 *x, const qp_rot3 *r)
{
    const qp_shape *sh = &w->shapes[s].shape;
    /* A box at its body's centre without a turn (every one-shape box body): qp__shape_world's
     * pose is (x + 0, r), so its box is found from the body's pose, without the copy. */
    if (sh->type == QP_SHAPE_BOX && (sh->offset.x | sh->offset.y | sh->offset.z) == 0 && is_identity(sh->rotation))
        return qp__box_aabb_grown(sh, *x, r, w->def.contact_margin);
    qp_vec3 m = qp_v3(w->def.contact_margin, w->def.contact_margin, w->def.contact_margin);
    qp_transform xf = qp__shape_world(w, s, x, r);
    qp_aabb box = qp_shape_aabb(&w->shapes[s].shape, &xf);
    box.lo = qp__v3_sub(box.lo, m);
    box.hi = qp__v3_add(box.hi, m);
    return box;
}

void qp__body_update_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r)
{
    const qp_body_state *b = &w->bodies[body];
    for (int i = 0; i < b->shape_count; i++) w->shapes[b->shapes[i]].aabb = margin_box(w, b->shapes[i], x, r);
}

void qp__body_sweep_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r)
{
    const qp_body_state *b = &w->bodies[body];
    for (int i = 0; i < b->shape_count; i++) {
        qp_aabb box = margin_box(w, b->shapes[i], x, r), *to = &w->shapes[b->shapes[i]].aabb;
        to->lo = qp_v3_min(to->lo, box.lo);
        to->hi = qp_v3_max(to->hi, box.hi);
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

/* mass * v / t, rounded, for v < 2^13 t, t < 2^32 and mass < 2^31 (no 64-bit overflow):
 * the whole part of v / t first, then the remainder. */
static uint64_t scale_by(uint64_t mass, uint64_t v, uint64_t t)
{
    uint64_t q = v / t, r = v % t;
    return mass * q + (mass * r + t / 2) / t;
}

/* Mass data of a body's shapes sharing mass by volume (a body's `mass`):
 * computed from ratios of exact moments, so any shape size in range takes
 * any mass in range (scaling a density-1 Q16.16 result would lose a 10 cm
 * ball's inertia to rounding and refuse its mass). */
/* A hull shape's points: its hull's corners, or (a scene line being checked, with no hull
 * built) the points given. */
typedef struct {
    const qp_vec3 *p;
    int n;
    const qp_hull *built;   /* null for the given points */
} hull_points;

static hull_points points_of(const qp_shape *s, hull_points given)
{
    if (s->hull) {
        hull_points h = { s->hull->verts, s->hull->vert_count, s->hull };
        return h;
    }
    return given;
}

static qp_result shapes_mass_for(const qp_shape *shapes, int count, fix16_t mass, qp_mass_data *out,
                                 hull_points given)
{
    /* Only ratios matter, so the moments are taken at density 1 on the
     * shapes shrunk by 2^k, the smallest k at which Q18.46 holds them (k = 0
     * up to about 6 m; an 80 m ball needs 4): masses scale by 2^-3k alike,
     * moments over masses by 2^-2k, given back at the end. */
    uint64_t mo[QP_CFG_MAX_BODY_SHAPES][4], total = 0;
    int k = 0;
    for (;; k++) {
        if (k > 6) return QP_ERR_RANGE;
        bool ok = true;
        total = 0;
        for (int i = 0; i < count && ok; i++) {
            qp_shape small = shapes[i];   /* sizes share a union: shrink by type */
            if (small.type == QP_SHAPE_HULL) {
                hull_points hp = points_of(&small, given);
                ok = hp.p && qp__hull_volume_q46(hp.p, hp.n, hp.built, k, &mo[i][0]) && total <= (uint64_t)INT64_MAX - mo[i][0];
                if (ok) total += mo[i][0];
                continue;
            }
            if (small.type == QP_SHAPE_BOX) {
                small.half = qp_v3(small.half.x >> k, small.half.y >> k, small.half.z >> k);
            } else {
                small.radius >>= k;
                if (small.type == QP_SHAPE_CAPSULE) small.half_height >>= k;
            }
            ok = qp__shape_moments(&small, QP_ONE, mo[i]) && total <= (uint64_t)INT64_MAX - mo[i][0];
            if (ok) total += mo[i][0];
        }
        if (ok) break;
    }
    /* Bring the total below 2^32 (keeping >= 31 bits of it) so that mass
     * times a ratio of moments stays within 64 bits. */
    int sh = 0;
    while ((total >> sh) >= ((uint64_t)1 << 32)) sh++;
    uint64_t t = total >> sh;
    if (t == 0) return QP_ERR_RANGE;
    for (int i = 0; i < count; i++) {
        uint64_t v[4];
        if (shapes[i].type == QP_SHAPE_HULL) {
            v[0] = scale_by((uint64_t)mass, mo[i][0] >> sh, t);
            if (v[0] > (uint64_t)INT32_MAX) return QP_ERR_RANGE;
            hull_points hp = points_of(&shapes[i], given);
            qp__hull_mass_data(hp.p, hp.n, hp.built, &shapes[i], (fix16_t)v[0], &out[i]);
            continue;
        }
        for (int j = 0; j < 4; j++) {
            /* v / t is at most 1 (mass) or I / m <= (100^2 + 100^2) / 3 m^2 < 2^13. */
            v[j] = scale_by((uint64_t)mass, mo[i][j] >> sh, t);
            if (j > 0) {
                if (v[j] > ((uint64_t)INT32_MAX >> 2 * k)) return QP_ERR_RANGE;
                v[j] <<= 2 * k;
            }
            if (v[j] > (uint64_t)INT32_MAX) return QP_ERR_RANGE;
        }
        qp__shape_mass_data(&shapes[i], (fix16_t)v[0], (fix16_t)v[1], (fix16_t)v[2], (fix16_t)v[3], &out[i]);
    }
    return QP_OK;
}

typedef struct {
    fix16_t mass, inv_mass;
    qp_vec3 center;
    qp_mat3 inv_inertia;
} mass_props;

/* A body's mass properties from its shapes: the given mass shared by volume (mass > 0),
 * or each shape's at the density. */
static qp_result mass_of_shapes(const qp_shape *shapes, int count, fix16_t given, fix16_t density, mass_props *out,
                                hull_points points)
{
    qp_mass_data md[QP_CFG_MAX_BODY_SHAPES];
    if (given > 0) {
        qp_result r = shapes_mass_for(shapes, count, given, md, points);
        if (r != QP_OK) return r;
    }
    int64_t total = 0, cx = 0, cy = 0, cz = 0;
    for (int i = 0; i < count; i++) {
        if (given <= 0) {
            qp_result r;
            if (shapes[i].type == QP_SHAPE_HULL && !shapes[i].hull) {
                r = points.p ? qp__hull_shape_mass(&shapes[i], points.p, points.n, 0, density, &md[i]) : QP_ERR_PARAM;
            } else {
                r = qp_shape_mass(&shapes[i], density, &md[i]);
            }
            if (r != QP_OK) return r;
        }
        total += md[i].mass;
        cx += (int64_t)md[i].mass * md[i].center.x;
        cy += (int64_t)md[i].mass * md[i].center.y;
        cz += (int64_t)md[i].mass * md[i].center.z;
    }
    /* A given mass is the body's; its shares, each rounded down, weigh the centre only (two
     * parts of a 0.01 kg compound weigh 327 units each, a unit short of its 655). */
    const int64_t body_mass = given > 0 ? given : total;
    if (body_mass < QP_FRAC(1, 100) || body_mass > QP_INT(10000) || total <= 0) return QP_ERR_RANGE;
    qp_vec3 c = qp_v3((fix16_t)(cx / total), (fix16_t)(cy / total), (fix16_t)(cz / total));
    qp_mat3 inertia = qp_mat3_zero();
    for (int i = 0; i < count; i++) {
        qp_mat3 shifted = shift_inertia(md[i].inertia, md[i].mass, qp_v3_sub(md[i].center, c));
        inertia = qp_mat3_add(&inertia, &shifted);
    }
    fix16_t mass = given > 0 ? given : (fix16_t)total;
    for (int i = 0; i < 3; i++)
        if (inertia.m[i][i] >= QP_INT(32000)) return QP_ERR_RANGE;
    /* Small bodies: a 2 cm ball's 4e-5 kg m^2 has no inverse within the
     * solver's bound (and no digits in Q16.16). Their inertia is raised by
     * the floor on every axis, so they turn more slowly than their shape
     * says, but exist (docs/scene-format.md: the mass range is the same for
     * every size). Bodies above the floor are unchanged. */
    bool small = false;
    for (int i = 0; i < 3; i++) small |= inertia.m[i][i] < QP_INERTIA_FLOOR;
    if (small)
        for (int i = 0; i < 3; i++) inertia.m[i][i] += QP_INERTIA_FLOOR;
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

static qp_result compute_mass(const qp_body_def *def, mass_props *out)
{
    hull_points none = { 0, 0, 0 };
    return mass_of_shapes(def->shapes, def->shape_count, def->mass, def->density, out, none);
}

qp_result qp__body_inverse_inertia(const qp_shape *shapes, int count, fix16_t mass, qp_mat3 *inv_inertia,
                                   qp_vec3 *center)
{
    mass_props mp;
    hull_points none = { 0, 0, 0 };
    qp_result r = mass_of_shapes(shapes, count, mass, 0, &mp, none);
    if (r != QP_OK) return r;
    *inv_inertia = mp.inv_inertia;
    *center = mp.center;
    return QP_OK;
}

qp_result qp__body_mass_check(const qp_body_def *def)
{
    mass_props mp;
    return compute_mass(def, &mp);
}

qp_result qp__body_mass_check_points(const qp_body_def *def, const qp_vec3 *points, int count)
{
    mass_props mp;
    hull_points given = { points, count, 0 };
    return mass_of_shapes(def->shapes, def->shape_count, def->mass, def->density, &mp, given);
}

static qp_result check_body_def(const qp_world *w, const qp_body_def *def)
{
    if (def->type != QP_BODY_STATIC && def->type != QP_BODY_DYNAMIC && def->type != QP_BODY_KINEMATIC)
        return QP_ERR_PARAM;
    if (def->shape_count < 1 || def->shape_count > QP_CFG_MAX_BODY_SHAPES) return QP_ERR_PARAM;
    for (int i = 0; i < def->shape_count; i++) {
        qp_result r = qp_shape_validate(&def->shapes[i]);
        if (r != QP_OK) return r;
        if ((def->shapes[i].type == QP_SHAPE_PLANE || qp_shape_is_level(def->shapes[i].type)) &&
            def->type != QP_BODY_STATIC)
            return QP_ERR_PARAM;
        if (qp_v3_max_abs(def->shapes[i].offset) > QP_SHAPE_MAX_SIZE) return QP_ERR_RANGE;
    }
    qp_quat nq;
    if (!qp_quat_normalize(def->rotation, &nq)) return QP_ERR_PARAM;
    if (qp_v3_max_abs(def->position) > w->def.bounds) return QP_ERR_RANGE;
    if (qp__speed_above(def->linear_velocity, w->def.max_linear_speed) ||
        qp__speed_above(def->angular_velocity, w->def.max_angular_speed))
        return QP_ERR_RANGE;
    if (def->friction < 0 || def->friction > QP_INT(10) || def->static_friction > QP_INT(10) ||
        def->restitution < 0 || def->restitution > QP_ONE || def->rolling_resistance > QP_ONE)
        return QP_ERR_RANGE;
    if (def->type == QP_BODY_DYNAMIC) {
        if (def->mass < 0 || (def->mass > 0 && (def->mass < QP_FRAC(1, 100) || def->mass > QP_INT(10000))))
            return QP_ERR_RANGE;
        if (def->mass == 0 && def->density <= 0) return QP_ERR_RANGE;
    }
    return QP_OK;
}

/* Is hull pool entry k unused? An entry no shape uses is all zero, and a built hull has
 * four corners or more. */
static bool hull_entry_free(const qp_world *w, int k)
{
#if QP_CFG_MAX_HULLS > 0
    return w->hulls[k].vert_count == 0;
#else
    (void)w;
    (void)k;
    return false;
#endif
}

/* Pool entries for def's hull shapes (-1 for the others): the lowest free ones, in shape
 * order, from where every lower one is used. False when the pool is short. */
static bool hull_entries(const qp_world *w, const qp_body_def *def, int entry[])
{
#if QP_CFG_MAX_HULLS > 0
    int k = w->hull_free;
#else
    int k = 0;
    (void)w;
#endif
    for (int i = 0; i < def->shape_count && i < QP_CFG_MAX_BODY_SHAPES; i++) {
        entry[i] = -1;
        if (def->shapes[i].type != QP_SHAPE_HULL) continue;
        while (k < qp__cap_hulls(w) && !hull_entry_free(w, k)) k++;
        if (k == qp__cap_hulls(w)) return false;
        entry[i] = k++;
    }
    return true;
}

static bool same_material(const qp_body_material *a, const qp_body_material *b)
{
    return a->friction == b->friction && a->static_friction == b->static_friction && a->restitution == b->restitution &&
           a->rolling_resistance == b->rolling_resistance;
}

bool qp__body_def_offset(const qp_body_def *d)
{
    mass_props mp = { 0, 0, { 0, 0, 0 }, { { { 0 } } } };
    if (d->type != QP_BODY_DYNAMIC || compute_mass(d, &mp) != QP_OK) return false;
    return (mp.center.x | mp.center.y | mp.center.z) != 0;
}

qp_vec3 *qp__body_force_slot(qp_world *w, int i, int which)
{
#if QP_LAYOUT_KEEPS_DERIVED
    return which == 0 ? &w->bodies[i].force : &w->bodies[i].torque;
#else
    int k = 0;
    while (k < w->forced_count && w->forced[k] != i) k++;
    if (k == w->forced_count) {
        if (k == QP_CFG_MAX_FORCED_BODIES) return NULL;
        w->forced[k] = (uint16_t)i;
        w->forces[k].force = w->forces[k].torque = qp_v3_zero();
        w->forced_count++;
    }
    return which == 0 ? &w->forces[k].force : &w->forces[k].torque;
#endif
}

void qp__body_lists_drop(qp_world *w, int i)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w, (void)i;   /* cleared with the body */
#else
    int n = 0;
    for (int k = 0; k < w->forced_count; k++)
        if (w->forced[k] != i) w->forced[n] = w->forced[k], w->forces[n++] = w->forces[k];
    w->forced_count = n;
    n = 0;
    for (int k = 0; k < w->offset_count; k++)
        if (w->offset_bodies[k] != i) w->offset_bodies[n] = w->offset_bodies[k], w->offsets[n++] = w->offsets[k];
    w->offset_count = n;
#endif
}

void qp__body_set_local_center(qp_world *w, int i, qp_vec3 c)
{
#if QP_LAYOUT_KEEPS_DERIVED
    w->bodies[i].local_center = c;
#else
    if ((c.x | c.y | c.z) == 0) return;
    w->offset_bodies[w->offset_count] = (uint16_t)i;
    w->offsets[w->offset_count++] = c;
#endif
}

/* A def's rolling resistance: its own, or when negative the default: a dynamic body with a
 * round shape rolls against some, what it rolls on adds none of its own (so that a ball's
 * own 0 rolls freely on a default floor). */
static fix16_t rolling_resistance_of(const qp_body_def *d)
{
    if (d->rolling_resistance >= 0) return d->rolling_resistance;
    if (d->type != QP_BODY_DYNAMIC) return 0;
    for (int i = 0; i < d->shape_count && i < QP_CFG_MAX_BODY_SHAPES; i++)
        if (d->shapes[i].type == QP_SHAPE_SPHERE || d->shapes[i].type == QP_SHAPE_CAPSULE)
            return QP_ROUND_ROLLING_RESISTANCE;
    return 0;
}

qp_body_material qp__material_of(const qp_body_def *d)
{
    qp_body_material m = { d->friction, d->static_friction < 0 ? d->friction : d->static_friction, d->restitution,
                           rolling_resistance_of(d) };
    return m;
}

int qp__material_entry(qp_body_material *pal, int *count, const qp_body_material *m)
{
    for (int k = 0; k < *count; k++)
        if (same_material(&pal[k], m)) return k;
    if (*count == QP_CFG_MAX_MATERIALS) return -1;
    pal[*count] = *m;
    return (*count)++;
}

bool qp__body_set_material(qp_world *w, qp_body_state *b, const qp_body_material *m)
{
#if QP_LAYOUT_KEEPS_DERIVED
    (void)w;
    b->friction = m->friction;
    b->static_friction = m->static_friction;
    b->restitution = m->restitution;
    b->rolling_resistance = m->rolling_resistance;
    return true;
#else
    int k = qp__material_entry(w->materials, &w->material_count, m);
    if (k < 0) {
        /* Full: the lowest entry no used body but b names takes m. */
        bool named[QP_CFG_MAX_MATERIALS] = { false };
        for (int i = 1; i <= qp__cap_bodies(w); i++)
            if ((w->bodies[i].state & QP_STATE_USED) && &w->bodies[i] != b) named[w->bodies[i].material] = true;
        for (int e = 0; e < QP_CFG_MAX_MATERIALS && k < 0; e++)
            if (!named[e]) k = e;
        if (k < 0) return false;
        w->materials[k] = *m;
    }
    b->material = (uint8_t)k;
    return true;
#endif
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
        *err = compute_mass(def, &mp);
        if (*err != QP_OK) return qp_null_body();
    }
    /* Free slots, lowest index first (deterministic), from where every lower one is used. */
    int index = 0;
    for (int i = w->body_free > 1 ? w->body_free : 1; i <= qp__cap_bodies(w); i++)
        if (!(w->bodies[i].state & QP_STATE_USED)) { index = i; break; }
    int shape_idx[QP_CFG_MAX_BODY_SHAPES] = { 0 };
    int found = 0;
    for (int s = w->shape_free; s < qp__cap_shapes(w) && found < def->shape_count; s++)
        if (w->shapes[s].body == 0) shape_idx[found++] = s;
    int hull_idx[QP_CFG_MAX_BODY_SHAPES];
    for (int i = 0; i < QP_CFG_MAX_BODY_SHAPES; i++) hull_idx[i] = -1;   /* hull_entries sets the body's */
    const qp_body_material material = qp__material_of(def);
    if (index == 0 || found < def->shape_count || !hull_entries(w, def, hull_idx) ||
        !qp__local_center_fits(w, mp.center) || !qp__body_set_material(w, &w->bodies[index], &material)) {
        *err = QP_ERR_FULL;
        return qp_null_body();
    }

    w->body_free = index + 1;
    if (found > 0) w->shape_free = shape_idx[found - 1] + 1;
#if QP_CFG_MAX_HULLS > 0
    for (int i = 0; i < def->shape_count; i++)
        if (hull_idx[i] >= 0) w->hull_free = hull_idx[i] + 1;
#endif
    qp_body_state *b = &w->bodies[index];
    uint16_t gen = (uint16_t)(b->generation + 1);
    unsigned char *p = (unsigned char *)b;
#if !QP_LAYOUT_KEEPS_DERIVED
    const uint8_t material_entry = b->material;   /* named above, kept through the clearing */
#endif
    for (unsigned i = 0; i < sizeof *b; i++) p[i] = 0;
#if !QP_LAYOUT_KEEPS_DERIVED
    b->material = material_entry;
#endif
    b->generation = gen == 0 ? 1 : gen;
    b->state = QP_STATE_USED | (def->type == QP_BODY_DYNAMIC     ? QP_STATE_DYNAMIC
                                : def->type == QP_BODY_KINEMATIC ? QP_STATE_KINEMATIC
                                                                 : 0);
    qp_quat_normalize(def->rotation, &b->q);
    qp__body_set_local_center(w, index, mp.center);
    qp_rot3 rot = qp_quat_to_rot3(b->q);
    b->x = qp_v3_add(def->position, qp_rot3_mul_v3(&rot, mp.center));
    if (def->type == QP_BODY_DYNAMIC) {
        b->v = def->linear_velocity;
        b->w = def->angular_velocity;
        b->mass = mp.mass;
        b->inv_mass = mp.inv_mass;
        qp__body_set_inv_inertia_local(b, &mp.inv_inertia);
        /* Spawned: overlaps it begins in come apart (overlap.c); created asleep, its contacts
         * are found in its first step as sleeping records (broad_phase.c, narrow_phase.c). */
        b->state |= QP_STATE_PLACED;
        if (def->asleep) b->state |= QP_STATE_ASLEEP;
    } else if (def->type == QP_BODY_KINEMATIC) {
        b->v = def->linear_velocity;    /* infinite mass: mass, inv_mass, inverse inertia stay 0 */
        b->w = def->angular_velocity;
    }
    qp__body_set_material(w, b, &material);   /* the default layout's fields, cleared above */
    b->user_data = def->user_data;
    b->shape_count = (uint8_t)def->shape_count;
    for (int i = 0; i < def->shape_count; i++) {
        qp_shape_slot *slot = &w->shapes[shape_idx[i]];
        slot->shape = def->shapes[i];
        slot->shape.offset = qp_v3_sub(def->shapes[i].offset, mp.center);
#if QP_CFG_MAX_HULLS > 0
        if (hull_idx[i] >= 0) {
            qp_hull *h = &w->hulls[hull_idx[i]];
            if (def->shapes[i].hull != h) memcpy(h, def->shapes[i].hull, sizeof *h);
            slot->shape.hull = h;
        }
#endif
        slot->body = (uint16_t)index;
        slot->slot = (uint8_t)i;
        slot->flags = def->sensors[i] ? QP_SHAPE_SENSOR : 0;
        slot->filter.category = def->filters[i].category;
        slot->filter.mask = def->filters[i].mask;
        slot->filter.group = def->filters[i].group;
        b->shapes[i] = (uint16_t)shape_idx[i];
        w->sap_order[w->sap_count++] = (uint16_t)shape_idx[i];
    }
    w->sap_sorted = 0;
    if (b->state & QP_STATE_ASLEEP) b->v = b->w = qp_v3_zero();
    qp__body_sync(b);
    qp__body_update_aabbs(w, index, &b->x, &rot);
    if (index > w->body_high) w->body_high = index;
    *err = QP_OK;
    qp_body_id id = { (uint16_t)index, b->generation };
    qp__record_input(w, QP_INPUT_CREATE_BODY, id, 0, 0, 0, def);
    return id;
}

/* Drop every contact that involves body i, keeping order: each one ends. */
static void drop_contacts(qp_world *w, int i)
{
    int n = 0;
    for (int c = 0; c < w->contact_count; c++) {
        qp_contact *ct = &w->contacts[c];
        if (ct->a == i || ct->b == i) {
            qp__event_contact_end(w, ct);
            int other = ct->a == i ? ct->b : ct->a;
            qp__wake_body(w, other);
            continue;
        }
        w->contacts[n++] = *ct;
    }
    w->contact_count = n;
    qp__build_adjacency(w);   /* contact indices moved: waking walks the new ones */
}

/* Drop every sensor overlap that involves body i, keeping order: each one ends. */
static void drop_overlaps(qp_world *w, int i)
{
    int n = 0;
    for (int k = 0; k < w->sensor_overlap_count; k++) {
        const qp_pair *p = &w->sensor_overlaps[k];
        if (w->shapes[p->a].body == i || w->shapes[p->b].body == i) {
            qp__event_sensor(w, QP_EVENT_END, p);
            continue;
        }
        w->sensor_overlaps[n++] = *p;
    }
    w->sensor_overlap_count = n;
}

qp_result qp_destroy_body(qp_world *w, qp_body_id id)
{
    qp_body_state *b = get(w, id);
    if (!b) return QP_ERR_INVALID_ID;
    int index = id.index;
    qp__destroy_body_joints(w, index);
    qp__body_lists_drop(w, index);
    drop_contacts(w, index);
    drop_overlaps(w, index);
    int n = 0;
    for (int i = 0; i < w->sap_count; i++)
        if (w->shapes[w->sap_order[i]].body != index) w->sap_order[n++] = w->sap_order[i];
    w->sap_count = n;
    for (int i = 0; i < b->shape_count; i++) {
        qp_shape_slot *slot = &w->shapes[b->shapes[i]];
#if QP_CFG_MAX_HULLS > 0
        /* Unused pool entries are all zero. */
        if (slot->shape.type == QP_SHAPE_HULL) {
            const int k = (int)(slot->shape.hull - w->hulls);
            memset(&w->hulls[k], 0, sizeof w->hulls[k]);
            if (k < w->hull_free) w->hull_free = k;
        }
#endif
        unsigned char *p = (unsigned char *)slot;
        for (unsigned k = 0; k < sizeof *slot; k++) p[k] = 0;
        if (b->shapes[i] < w->shape_free) w->shape_free = b->shapes[i];
    }
    if (index < w->body_free) w->body_free = index;
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
    return qp_v3_sub(b->x, qp_rot3_mul_v3(&r, qp__body_local_center(w, b)));
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
    if (!b) return QP_BODY_STATIC;
    return (b->state & QP_STATE_DYNAMIC) ? QP_BODY_DYNAMIC : (b->state & QP_STATE_KINEMATIC) ? QP_BODY_KINEMATIC
                                                                                             : QP_BODY_STATIC;
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
    if (!(b->state & (QP_STATE_DYNAMIC | QP_STATE_KINEMATIC))) return QP_ERR_PARAM;  /* static: never moves */
    qp_quat q;
    if (!qp_quat_normalize(rotation, &q)) return QP_ERR_PARAM;
    if (qp_v3_max_abs(position) > w->def.bounds) return QP_ERR_RANGE;
    b->q = q;
    qp__body_sync(b);
    qp_rot3 r = qp__body_rot(b);
    b->x = qp_v3_add(position, qp_rot3_mul_v3(&r, qp__body_local_center(w, b)));
    qp__body_update_aabbs(w, id.index, &b->x, &r);
    w->sap_sorted = 0;
    qp__wake_body(w, id.index);
    if (b->state & QP_STATE_DYNAMIC) b->state |= QP_STATE_PLACED;   /* as if spawned there (overlap.c) */
    b->state &= (uint16_t)~QP_STATE_STILL;   /* its manifolds are found again (narrow_phase.c) */
    if (b->state & QP_STATE_KINEMATIC) qp__wake_touching(w, id.index);
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
 * A set velocity must stay within limit (0: no limit). A kinematic body takes
 * velocities (and wakes the sleepers it touches), never forces. Either is no longer
 * still: set moving, its contacts' manifolds are found again (narrow_phase.c). */
static qp_vec3 *writable(qp_world *w, qp_body_id id, int which, qp_vec3 value, fix16_t limit, qp_result *r)
{
    qp_body_state *k = get(w, id);
    if (k && (k->state & QP_STATE_KINEMATIC) && which < 2) {
        *r = limit > 0 && qp__speed_above(value, limit) ? QP_ERR_RANGE : QP_OK;
        if (*r != QP_OK) return 0;
        if (!(k->state & QP_STATE_FROZEN)) qp__wake_touching(w, id.index);
        k->state &= (uint16_t)~QP_STATE_STILL;
        return which == 0 ? &k->v : &k->w;
    }
    qp_body_state *b = get_dynamic(w, id, r);
    if (!b) return 0;
    if (limit > 0 && qp__speed_above(value, limit)) {
        *r = QP_ERR_RANGE;
        return 0;
    }
    qp_vec3 *to = which < 2 ? (which == 0 ? &b->v : &b->w) : qp__body_force_slot(w, id.index, which - 2);
    if (!to) {
        *r = QP_ERR_FULL;   /* low-RAM: QP_CFG_MAX_FORCED_BODIES others have a force pending */
        return 0;
    }
    qp__wake_body(w, id.index);
    b->state &= (uint16_t)~QP_STATE_STILL;
    return to;
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
    b->state &= (uint16_t)~QP_STATE_STILL;
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
    /* A frozen body stays out of bounds: that flag says what it is, not what happened. */
    b->flags = (b->state & QP_STATE_FROZEN) ? QP_FLAG_OUT_OF_BOUNDS : 0;
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

qp_shape_filter qp_body_shape_filter(const qp_world *w, qp_body_id id, int i)
{
    const qp_body_state *b = cget(w, id);
    if (!b || i < 0 || i >= b->shape_count) return qp_default_shape_filter();
    return w->shapes[b->shapes[i]].filter;
}

bool qp_body_shape_is_sensor(const qp_world *w, qp_body_id id, int i)
{
    const qp_body_state *b = cget(w, id);
    if (!b || i < 0 || i >= b->shape_count) return false;
    return (w->shapes[b->shapes[i]].flags & QP_SHAPE_SENSOR) != 0;
}

qp_result qp_body_set_shape_filter(qp_world *w, qp_body_id id, int i, qp_shape_filter filter)
{
    qp_body_state *b = get(w, id);
    if (!b) return QP_ERR_INVALID_ID;
    if (i < 0 || i >= b->shape_count) return QP_ERR_RANGE;
    qp_shape_slot *s = &w->shapes[b->shapes[i]];
    s->filter.category = filter.category;
    s->filter.mask = filter.mask;
    s->filter.group = filter.group;
    /* Sleeping pairs are not swept again: wake both sides of each contact so that one
     * the filter now forbids ends at the next step. */
    qp__wake_body(w, id.index);
    for (int c = 0; c < w->contact_count; c++) {
        const qp_contact *ct = &w->contacts[c];
        if (ct->a == id.index) qp__wake_body(w, ct->b);
        else if (ct->b == id.index) qp__wake_body(w, ct->a);
    }
    for (int k = 0; k < w->sensor_overlap_count; k++) {
        int a = w->shapes[w->sensor_overlaps[k].a].body, c = w->shapes[w->sensor_overlaps[k].b].body;
        if (a == id.index) qp__wake_body(w, c);
        else if (c == id.index) qp__wake_body(w, a);
    }
    qp__record_shape_filter(w, id, i, filter);
    return QP_OK;
}
