/* SPDX-License-Identifier: MIT */
/* The ragdoll builder (include/qphys/ragdoll.h): eleven parts and ten joints
 * from one table in metres at scale 1, standing upright, arms out along x,
 * facing +z. Everything that could make a creation fail (ranges, bounds, free
 * slots) is checked first, so the parts are created all or none. */
#include "qphys/ragdoll.h"

typedef struct {
    uint8_t shape;                /* qp_shape_type */
    bool across;                  /* capsule along x (arms) instead of y */
    int16_t hx, hy, hz;           /* box half extents, or radius and half height (mm) */
    int16_t x, y, z;              /* centre from the pelvis centre (mm) */
} part;

static const part parts[QP_RAGDOLL_BODIES] = {
    { QP_SHAPE_BOX, false, 150, 100, 100, 0, 0, 0 },            /* pelvis */
    { QP_SHAPE_BOX, false, 170, 200, 100, 0, 320, 0 },          /* torso */
    { QP_SHAPE_BOX, false, 90, 110, 100, 0, 660, 0 },           /* head (a box: a ball rolls on) */
    { QP_SHAPE_CAPSULE, true, 50, 110, 0, -360, 450, 0 },       /* upper arm, left (-x) */
    { QP_SHAPE_CAPSULE, true, 45, 100, 0, -690, 450, 0 },       /* forearm, left */
    { QP_SHAPE_CAPSULE, true, 50, 110, 0, 360, 450, 0 },        /* upper arm, right (+x) */
    { QP_SHAPE_CAPSULE, true, 45, 100, 0, 690, 450, 0 },        /* forearm, right */
    { QP_SHAPE_CAPSULE, false, 70, 130, 0, -90, -320, 0 },      /* thigh, left */
    { QP_SHAPE_CAPSULE, false, 60, 130, 0, -90, -740, 0 },      /* shin, left */
    { QP_SHAPE_CAPSULE, false, 70, 130, 0, 90, -320, 0 },       /* thigh, right */
    { QP_SHAPE_CAPSULE, false, 60, 130, 0, 90, -740, 0 },       /* shin, right */
};

typedef struct {
    uint8_t a, b;                 /* parts */
    uint8_t type;                 /* qp_joint_type */
    int16_t x, y, z;              /* anchor from the pelvis centre (mm) */
    int8_t ax, ay, az;            /* hinge or cone axis (a cone's: along b, from a) */
    int16_t lo, hi;               /* hinge limits, cone twist limits (degrees) */
    int16_t swing;                /* cone: half angle (degrees) */
} link;

/* Human ranges, rounded down a little (the solver may pass a limit by a degree or two
 * when thrown hard): a neck bends about 45 degrees and turns 60 each way, a spine 30 and
 * 30, a shoulder swings 80 degrees about the arm held out and twists 70, a hip swings 60
 * about the leg hanging and twists 35; elbows and knees bend 140 degrees one way. */
static const link links[QP_RAGDOLL_JOINTS] = {
    { QP_RAGDOLL_PELVIS, QP_RAGDOLL_TORSO, QP_JOINT_CONE, 0, 110, 0, 0, 1, 0, -30, 30, 30 },           /* spine */
    { QP_RAGDOLL_TORSO, QP_RAGDOLL_HEAD, QP_JOINT_CONE, 0, 535, 0, 0, 1, 0, -60, 60, 45 },             /* neck */
    { QP_RAGDOLL_TORSO, QP_RAGDOLL_UPPER_ARM_L, QP_JOINT_CONE, -180, 450, 0, -1, 0, 0, -70, 70, 80 },  /* shoulders */
    { QP_RAGDOLL_TORSO, QP_RAGDOLL_UPPER_ARM_R, QP_JOINT_CONE, 180, 450, 0, 1, 0, 0, -70, 70, 80 },
    { QP_RAGDOLL_UPPER_ARM_L, QP_RAGDOLL_FOREARM_L, QP_JOINT_HINGE, -525, 450, 0, 0, 1, 0, 0, 140, 0 },  /* elbows */
    { QP_RAGDOLL_UPPER_ARM_R, QP_RAGDOLL_FOREARM_R, QP_JOINT_HINGE, 525, 450, 0, 0, -1, 0, 0, 140, 0 },
    { QP_RAGDOLL_PELVIS, QP_RAGDOLL_THIGH_L, QP_JOINT_CONE, -90, -110, 0, 0, -1, 0, -35, 35, 60 },     /* hips */
    { QP_RAGDOLL_PELVIS, QP_RAGDOLL_THIGH_R, QP_JOINT_CONE, 90, -110, 0, 0, -1, 0, -35, 35, 60 },
    { QP_RAGDOLL_THIGH_L, QP_RAGDOLL_SHIN_L, QP_JOINT_HINGE, -90, -530, 0, 1, 0, 0, 0, 140, 0 },      /* knees */
    { QP_RAGDOLL_THIGH_R, QP_RAGDOLL_SHIN_R, QP_JOINT_HINGE, 90, -530, 0, 1, 0, 0, 0, 140, 0 },
};

qp_ragdoll_def qp_default_ragdoll_def(void)
{
    qp_ragdoll_def d;
    unsigned char *p = (unsigned char *)&d;
    for (unsigned i = 0; i < sizeof d; i++) p[i] = 0;
    d.position = qp_v3(0, QP_ONE, 0);
    d.scale = QP_ONE;
    d.density = QP_INT(1000);
    d.friction = QP_FRAC(1, 2);
    d.asleep = false;
    return d;
}

/* Each joint's friction torque: a share of its limb's weight about it (the limb's mass times
 * 10 m/s^2 times the distance from the anchor to its centre), as the ragdolls of games carry
 * one per joint: a limb that swings freely on its joint comes to rest, and one pressed
 * between the ground and the rest of the body settles with it. */
#if QP_CFG_JOINT_OPTIONS
#define FRICTION_SHARE 300   /* per mille */

static fix16_t joint_friction(const qp_world *w, qp_body_id limb, qp_vec3 anchor)
{
    const qp_body_state *b = &w->bodies[limb.index];
    int64_t lever = qp_v3_len(qp_v3_sub(b->x, anchor));                        /* m, Q16 */
    int64_t t = ((int64_t)b->mass * 10 * lever >> 16) * FRICTION_SHARE / 1000;  /* N m, Q16 */
    return t > QP_INT(30000) ? QP_INT(30000) : (fix16_t)t;
}
#endif

/* A length of the table (mm) at the def's scale, in metres. */
static fix16_t len(const qp_ragdoll_def *d, int mm)
{
    return qp_mul(QP_MM(mm), d->scale);
}

static qp_vec3 at(const qp_ragdoll_def *d, int x, int y, int z)
{
    return qp_v3_add(d->position, qp_v3(len(d, x), len(d, y), len(d, z)));
}

static int free_slots(const qp_world *w, int *shapes, int *joints)
{
    int bodies = 0;
    *shapes = *joints = 0;
    for (int i = 1; i <= qp__cap_bodies(w); i++) bodies += !(w->bodies[i].state & QP_STATE_USED);
    for (int i = 0; i < qp__cap_shapes(w); i++) *shapes += w->shapes[i].body == 0;
    for (int i = 1; i <= qp__cap_joints(w); i++) *joints += w->joints[i - 1].a == 0;
    return bodies;
}

static qp_result check(const qp_world *w, const qp_ragdoll_def *d)
{
    if (d->scale < QP_FRAC(3, 4) || d->scale > QP_INT(4) || d->density < QP_INT(100) || d->density > QP_INT(2000) ||
        d->friction < 0 || d->friction > QP_INT(10))
        return QP_ERR_RANGE;
    /* Every part lies within 1 m of the pelvis at scale 1. */
    fix16_t reach = qp_sat32((int64_t)qp_v3_max_abs(d->position) + len(d, 1000));
    if (reach > w->def.bounds) return QP_ERR_RANGE;
    int shapes, joints;
    if (free_slots(w, &shapes, &joints) < QP_RAGDOLL_BODIES || shapes < QP_RAGDOLL_BODIES ||
        joints < QP_RAGDOLL_JOINTS)
        return QP_ERR_FULL;
    return QP_OK;
}

qp_result qp_create_ragdoll(qp_world *w, const qp_ragdoll_def *def, qp_body_id *out_ids, qp_result *err)
{
    qp_result dummy;
    if (!err) err = &dummy;
    if (!w || !def) return *err = QP_ERR_PARAM;
    *err = check(w, def);
    if (*err != QP_OK) return *err;
    qp_body_id ids[QP_RAGDOLL_BODIES];
    int made = 0;
    qp_result r = QP_OK;
    for (; made < QP_RAGDOLL_BODIES && r == QP_OK; made++) {
        const part *p = &parts[made];
        qp_body_def bd = qp_default_body_def();
        bd.position = at(def, p->x, p->y, p->z);
        bd.density = def->density;
        bd.friction = def->friction;
        bd.asleep = def->asleep;
        bd.shape_count = 1;
        if (p->shape == QP_SHAPE_BOX) r = qp_make_box(qp_v3(len(def, p->hx), len(def, p->hy), len(def, p->hz)), &bd.shapes[0]);
        else if (p->shape == QP_SHAPE_SPHERE) r = qp_make_sphere(len(def, p->hx), &bd.shapes[0]);
        else r = qp_make_capsule(len(def, p->hx), len(def, p->hy), &bd.shapes[0]);
        if (p->across && !qp_quat_from_axis_angle(qp_v3(0, 0, QP_ONE), (fix16_t)102944, &bd.rotation)) /* 90 deg */
            r = QP_ERR_PARAM;
        if (r != QP_OK) { ids[made] = qp_null_body(); break; }
        ids[made] = qp_create_body(w, &bd, &r);
    }
    if (r != QP_OK && made > 0 && qp_body_id_is_null(ids[made - 1])) made--;   /* the last one failed */
    for (int k = 0; k < QP_RAGDOLL_JOINTS && r == QP_OK; k++) {
        const link *l = &links[k];
        qp_joint_def jd = qp_default_joint_def();
        jd.type = (qp_joint_type)l->type;
        jd.a = ids[l->a];
        jd.b = ids[l->b];
        jd.anchor = at(def, l->x, l->y, l->z);
        jd.axis = qp_v3(QP_INT(l->ax), QP_INT(l->ay), QP_INT(l->az));
        jd.enable_limit = true;
        jd.lower_angle = qp_deg_to_rad(QP_INT(l->lo));
        jd.upper_angle = qp_deg_to_rad(QP_INT(l->hi));
        jd.swing_angle = qp_deg_to_rad(QP_INT(l->swing));
#if QP_CFG_JOINT_OPTIONS   /* the micro:bit's pools hold no joint options */
        jd.max_friction_torque = joint_friction(w, jd.b, jd.anchor);
#endif
        qp_create_joint(w, &jd, &r);
    }
    if (r != QP_OK) {
        /* Not reached when the checks above hold; undo rather than leave half a ragdoll. */
        for (int k = made - 1; k >= 0; k--) (void)qp_destroy_body(w, ids[k]);
        return *err = r;
    }
    if (out_ids)
        for (int k = 0; k < QP_RAGDOLL_BODIES; k++) out_ids[k] = ids[k];
    return *err = QP_OK;
}
