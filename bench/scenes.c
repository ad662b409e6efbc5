/* SPDX-License-Identifier: MIT */
/* bench/scenes.c - the named scenes of docs/design.md §9 (see scenes.h).
 * Integer and Q16.16 only: this file is compiled for the boards too. */
#include "scenes.h"

static const char *const names[QPB_SCENE_COUNT] = { "stack20", "stack50", "pyramid20", "rain512" };

const char *qpb_scene_name(qpb_scene s)
{
    return ((unsigned)s < (unsigned)QPB_SCENE_COUNT) ? names[s] : 0;
}

int qpb_scene_steps(qpb_scene s)
{
    (void)s;
    return 600;
}

int qpb_scene_bodies(qpb_scene s)
{
    switch (s) {
    case QPB_STACK20: return 20;
    case QPB_STACK50: return 50;
    case QPB_PYRAMID20: return 210; /* 20 + 19 + ... + 1 */
    case QPB_RAIN512: return 512;
    default: return 0;
    }
}

void qpb_scene_pose(qpb_scene s, int n, qp_vec3 *pos, qp_quat *rot)
{
    *rot = qp_quat_identity();
    *pos = qp_v3_zero();
    switch (s) {
    case QPB_STACK20:
    case QPB_STACK50:
        /* cube i centred at (0, 0.5 + i, 0) */
        pos->y = QP_FRAC(1, 2) + QP_INT(n);
        break;
    case QPB_PYRAMID20: {
        /* row r holds 20 - r cubes; cube k at x = k - (m - 1) / 2, y = 0.5 + r */
        int r = 0, m = 20, k = n;
        while (k >= m && m > 0) {
            k -= m;
            r++;
            m--;
        }
        pos->x = QP_FRAC(2 * k - m + 1, 2);
        pos->y = QP_FRAC(1, 2) + QP_INT(r);
        break;
    }
    case QPB_RAIN512: {
        /* n = i + 8 j + 64 k; x = -5.25 + 1.5 i + 0.75 (j mod 2), y = 2 + 1.5 j,
         * z = -5.25 + 1.5 k + 0.75 (j mod 2); turned about (1, 1, 1) by 37 n mod 360 degrees */
        int i = n % 8, j = (n / 8) % 8, k = n / 64;
        pos->x = QP_FRAC(-21 + 6 * i + 3 * (j % 2), 4);
        pos->y = QP_FRAC(4 + 3 * j, 2);
        pos->z = QP_FRAC(-21 + 6 * k + 3 * (j % 2), 4);
        int deg = (37 * (i + 8 * j + 64 * k)) % 360;
        (void)qp_quat_from_axis_angle(qp_v3(QP_ONE, QP_ONE, QP_ONE), qp_deg_to_rad(QP_INT(deg)), rot);
        break;
    }
    default:
        break;
    }
}

qp_world_def qpb_world_def(bool sleep)
{
    qp_world_def d = qp_default_world_def();
    d.gravity = qp_v3(0, QP_INT(-10), 0);
    d.dt = QP_FRAC(1, 60);
    d.contact_iterations = 10;
    d.sleep_enabled = sleep;
    return d;
}

qp_world_def qpb_world_def_policy(qp_sleep_policy policy)
{
    qp_world_def d = qpb_world_def(true);
    d.sleep_policy = policy;
    return d;
}

const char *qpb_policy_name(qp_sleep_policy p)
{
    return p == QP_SLEEP_ENERGY ? "energy" : "three-point";
}

qp_result qpb_scene_build(qp_world *w, qpb_scene s, bool sleep)
{
    qp_world_def wd = qpb_world_def(sleep);
    return qpb_scene_build_def(w, s, &wd);
}

qp_result qpb_scene_build_def(qp_world *w, qpb_scene s, const qp_world_def *def)
{
    if ((unsigned)s >= (unsigned)QPB_SCENE_COUNT) return QP_ERR_PARAM;
    qp_result r = qp_world_init(w, def);
    if (r != QP_OK) return r;

    /* Ground: static plane y = 0 (body slot 1), friction 0.5, restitution 0. */
    qp_body_def g = qp_default_body_def();
    g.type = QP_BODY_STATIC;
    g.shape_count = 1;
    r = qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &g.shapes[0]);
    if (r != QP_OK) return r;
    g.friction = QP_FRAC(1, 2);
    g.restitution = 0;
    (void)qp_create_body(w, &g, &r);
    if (r != QP_OK) return r;

    /* Unit cubes: density 1 gives 1 kg (as the scene files do). */
    qp_body_def b = qp_default_body_def();
    b.type = QP_BODY_DYNAMIC;
    b.shape_count = 1;
    r = qp_make_box(qp_v3(QP_FRAC(1, 2), QP_FRAC(1, 2), QP_FRAC(1, 2)), &b.shapes[0]);
    if (r != QP_OK) return r;
    b.density = QP_ONE;
    b.friction = QP_FRAC(1, 2);
    b.restitution = 0;
    int count = qpb_scene_bodies(s);
    for (int n = 0; n < count; n++) {
        qpb_scene_pose(s, n, &b.position, &b.rotation);
        (void)qp_create_body(w, &b, &r);
        if (r != QP_OK) return r;
    }
    return QP_OK;
}

static fix16_t absf(fix16_t v) { return v < 0 ? -v : v; }

qpb_verdict qpb_scene_check(const qp_world *w, qpb_scene s)
{
    qpb_verdict v;
    v.applies = (s == QPB_STACK20 || s == QPB_STACK50 || s == QPB_PYRAMID20);
    v.stands = false;
    v.drift = 0;
    v.sag = 0;
    v.max_move = 0;
    int count = qpb_scene_bodies(s);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (qp_body_id_is_null(id) || qp_body_get_type(w, id) != QP_BODY_DYNAMIC) continue;
        int n = i - 2;   /* created in order after the ground (slot 1), as a scene file loads them */
        if (n < 0 || n >= count) continue;
        qp_vec3 p0;
        qp_quat q0;
        qpb_scene_pose(s, n, &p0, &q0);
        qp_vec3 d = qp_v3_sub(qp_body_position(w, id), p0);
        fix16_t move = qp_v3_len(d);
        if (move > v.max_move) v.max_move = move;
        if (n == count - 1) {
            v.drift = qp_v3_len(qp_v3(d.x, 0, d.z));
            v.sag = -d.y;
        }
    }
    if (s == QPB_STACK20 || s == QPB_STACK50)
        v.stands = v.drift < QPB_DRIFT_LIMIT && absf(v.sag) < QPB_SAG_LIMIT;
    else if (s == QPB_PYRAMID20)
        v.stands = v.max_move < QPB_MOVE_LIMIT;
    return v;
}
