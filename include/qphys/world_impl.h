/* SPDX-License-Identifier: MIT */
/* The layout of qp_world, public only so that callers can own its storage
 * (static qp_world w;) and know its size at compile time. Read and write it
 * through world.h; the fields may change between versions. */
#ifndef QPHYS_WORLD_IMPL_H
#define QPHYS_WORLD_IMPL_H

#include <stdint.h>
#include "qphys/collide.h"
#include "qphys/config.h"

/* Body state flags (qp_body_state.state). */
enum {
    QP_STATE_USED    = 1u << 0,
    QP_STATE_DYNAMIC = 1u << 1,
    QP_STATE_ASLEEP  = 1u << 2,
    QP_STATE_FROZEN  = 1u << 3,  /* out of bounds: kept but never moved again */
    QP_STATE_KINEMATIC = 1u << 4, /* moved by its own velocities only (never with DYNAMIC) */
    QP_STATE_PLACED  = 1u << 5,  /* created or set_pose'd since its last step: what it is found
                                    deep inside then was spawned there (overlap.c) */
    QP_STATE_STILL   = 1u << 6   /* its last step moved it (split impulse included) at most
                                    QP_STILL_SPEED: its contacts may keep their manifolds */
    /* bits 7-15: the stages' scratch, clear between steps (src/body.h) */
};

/* The user's force and torque pending on a body for the next step. */
typedef struct {
    qp_vec3 force, torque;
} qp_body_forces;

/* A body's material: what its contacts' friction, restitution and rolling resistance
 * are made of (src/solver.c, src/rolling.c). */
typedef struct {
    fix16_t friction, static_friction, restitution;
    fix16_t rolling_resistance;
} qp_body_material;

typedef struct {
    qp_vec3 x;                    /* centre of mass, world */
    qp_quat q;                    /* orientation, Q2.30 */
#if !QP_CFG_LOW_RAM
    qp_rot3 r;                    /* rotation matrix of q (read it through qp__body_rot) */
#endif
    /* Together: what the velocity passes and the contact graph read of a body at every visit
     * and sweep (44 bytes, on one or two cache lines of a host; the whole state spans six or seven,
     * and a pile's bodies outgrow the first-level cache). */
    qp_vec3 v, w;                 /* linear and angular velocity */
    fix16_t inv_mass;
    uint16_t state;               /* QP_STATE_* */
    uint16_t level;               /* contact graph level */
    uint16_t island;              /* scratch: island root */
    uint16_t supports;            /* scratch: contacts bearing it from below (contact_graph.c) */
    fix16_t load;                 /* scratch: mass resting on it, its own included (kg) */
    uint16_t awake_steps;         /* steps since woken (capped) */
    uint16_t flags;               /* QP_FLAG_* for the user */
#if !QP_CFG_LOW_RAM
    qp_vec3 force, torque;        /* user forces for the next step (read them through qp__body_forces) */
#endif
#if !QP_CFG_LOW_RAM
    qp_vec3 local_center;         /* centre of mass in the body frame (read it through qp__body_local_center) */
#endif
#if !QP_CFG_LOW_RAM
    qp_mat3 inv_inertia_local;    /* body frame */
    qp_mat3 inv_inertia;          /* world frame, updated with the pose (qp__body_inv_inertia) */
#else
    fix16_t inv_inertia_local6[6]; /* body frame, exactly symmetric: xx yy zz xy xz yz
                                      (read it through qp__body_inv_inertia_local) */
#endif
    fix16_t mass;
#if !QP_CFG_LOW_RAM
    fix16_t friction, static_friction, restitution;   /* its material (read it through qp__body_material) */
    fix16_t rolling_resistance;
#endif
    uint32_t user_data;
    uint16_t generation;
    uint16_t still_steps;         /* sleep: steps within the thresholds */
    uint8_t shape_count;
#if !QP_CFG_LOW_RAM
    uint8_t pad0;
#else
    uint8_t material;             /* its entry in qp_world.materials (read it through qp__body_material) */
#endif
    uint16_t shapes[QP_CFG_MAX_BODY_SHAPES]; /* indices into qp_world.shapes */
#if !QP_CFG_LOW_RAM
    qp_aabb sleep_box[3];         /* three-point test: C, C + R x, C + R y (read it through qp__sleep_box) */
#else
    qp_vec3 sleep_lo[3];          /* the same boxes: their low corners, */
    uint16_t sleep_size[3][3];    /* and their sizes, under a metre (the thresholds are: world.c) */
#endif
    fix16_t motion;               /* energy policy: recency-weighted |v|^2 + |w|^2 */
} qp_body_state;

/* Shape slot flags (qp_shape_slot.flags). */
enum {
    QP_SHAPE_SENSOR = 1u << 0     /* reports overlaps, touches nothing */
};

typedef struct {
    qp_shape shape;
    qp_aabb aabb;                 /* world box grown by the margin: at the predicted pose during
                                     the step, at the current pose between steps */
    uint16_t body;                /* owner index (1-based), 0 = free slot */
    uint8_t slot;                 /* position in the owner's shape list */
    uint8_t flags;                /* QP_SHAPE_* */
    qp_shape_filter filter;
    uint16_t pad0;
} qp_shape_slot;

typedef struct {
    qp_vec3 ra;                   /* from a's centre of mass to the point, world axes */
    fix16_t depth;                /* penetration at the start of the step (< 0: gap) */
    uint32_t id;                  /* feature id */
    fix16_t jn;                   /* accumulated normal impulse (warm start) */
    fix16_t jp;                   /* accumulated split (pseudo) impulse */
} qp_contact_point;

/* Contact flags. */
enum {
    QP_CONTACT_SLEEPING = 1u << 0, /* both bodies asleep or static: kept, not solved */
    QP_CONTACT_SLIDING  = 1u << 1, /* friction hit its limit this step: anchors move */
    QP_CONTACT_NEW      = 1u << 2, /* no match last step: warm start from the load */
    QP_CONTACT_CHANGED  = 1u << 3, /* its points are not last step's (features came or went) */
    QP_CONTACT_SWEPT    = 1u << 4, /* found at the start poses: its bodies close in fast (narrow_phase.c) */
    QP_CONTACT_OVERLAP  = 1u << 5, /* two dynamic bodies that began deep inside each other (spawned
                                      so), until they are apart (overlap.c) */
    QP_CONTACT_KEPT     = 3u << 6  /* how many steps in a row (0-2) its manifold was kept from the
                                      step before instead of found again (narrow_phase.c) */
};

typedef struct qp_contact_s {
    uint16_t a, b;                /* body indices, a < b */
    uint8_t sa, sb;               /* shape slots on a and b */
    uint8_t count;
    uint8_t flags;                /* QP_CONTACT_* */
    qp_vec3 n;                    /* Q2.30 normal, from a to b */
    qp_vec3 ab;                   /* a's centre minus b's (predicted): b's arm is ra + ab */
    /* Friction acts at the centroid of the points: two tangents and a twist
     * about the normal, bounded by mu times the manifold's normal impulse. */
    qp_vec3 ca, cb;               /* centroid arms from each centre of mass */
    fix16_t twist_radius;         /* mean distance of the points from the centroid */
    fix16_t jt1, jt2, jtw;        /* accumulated friction impulses (warm start) */
    fix16_t st1, st2, stw;        /* shock pass friction totals (scratch) */
    fix16_t jc;                   /* this step's collision-pass normal impulse, all points (events) */
    qp_vec3 anchor_a, anchor_b;   /* static friction anchors, body frames (from the centres) */
    qp_contact_point p[QP_MAX_MANIFOLD_POINTS];
} qp_contact;

/* A point's normal row: what a visit reads at every point (the rows of one point lie
 * together, so that a manifold of one or two points reads one or two of them). */
typedef struct {
    qp_vec3 rna, rnb;             /* ra x n, rb x n */
    fix16_t mn;                   /* effective mass along n */
#if !QP_CFG_LOW_RAM
    fix16_t gap;                  /* qp__gap_speed (0 past count); low-RAM finds it on use */
#endif
} qp_point_rows;

/* A point's angular responses I^-1 (r x n), read where its row applies an impulse. */
typedef struct {
    qp_vec3 ia, ib;
} qp_point_resp;

/* A manifold's solver rows: functions of its normal, arms and load centroid
 * and of its bodies' materials, masses and world inverse inertia, none of
 * which change between the collision pass and the end of the penetration
 * pass. Kept for the whole step; with QP_CFG_LOW_RAM, recomputed to the
 * same bits at each use (src/solver.c). Laid out by when the velocity passes
 * read them (src/layout_rows.h): what every visit reads first (the friction's rows,
 * then each point's), then what a row that applies an impulse reads, then what one
 * pass alone reads, so that a sweep's visit streams as few cache lines as it can:
 * a manifold of n points reads 116 + 32 n bytes at every visit and
 * 72 + 24 n more where all its rows apply. */
typedef struct {
    /* Every visit: */
    qp_vec3 t1, t2;               /* Q2.30 tangents completing n */
    fix16_t static_friction;      /* of the pair */
    int32_t shift;                /* the contact's impulse unit, 2^-shift N s (src/contact.h);
                                     mn, mt (and mn_pin, mt_pin) are scaled by 2^shift */
    qp_vec3 fa[3], fb[3];         /* friction rows at the centroid: ca x t1, ca x t2, n (and for b) */
    fix16_t mt[3];                /* effective masses along t1, t2 and the twist */
    qp_point_rows pt[QP_MAX_MANIFOLD_POINTS];
    /* A row that applies: */
    qp_vec3 ia_f[3], ib_f[3];     /* the friction rows' angular responses I^-1 (.) */
    qp_point_resp resp[QP_MAX_MANIFOLD_POINTS];
    /* One pass or case: */
    fix16_t friction;             /* of the pair, dynamic (a friction cut to sliding) */
    fix16_t restitution;          /* of the pair (the collision pass) */
#if !QP_CFG_LOW_RAM
    /* Kept for the whole step in the default layout only (low-RAM finds them on use):
     * the masses with the lower body pinned (shock pass; 0 when nothing is pinned), and
     * the static friction anchors' drift along t1, t2 and the pseudo-velocities that
     * pull it back (penetration pass). */
    fix16_t mn_pin[QP_MAX_MANIFOLD_POINTS], mt_pin[3];
    fix16_t anchor_drift[2], anchor_target[2];
#else
    /* Low-RAM only (rows are a pass's scratch): the contact whose tangents and static
     * friction coefficient these rows hold, for the pass's next visit (QP_ROWS_MEMO). */
    const struct qp_contact_s *tangents_of;
    /* ...and whose rows they all are, built for rows_key (need and sides; QP_ROWS_MEMO). */
    const struct qp_contact_s *rows_of;
    uint32_t rows_key;
#endif
} qp_contact_rows;

/* What a contact passes on to its successor in the next step: impulses for
 * warm starting, and the normal, so that contacts of sleeping bodies (which
 * are not collided again) stay in the contact graph. A copy taken by the
 * narrow phase as it reads last step's contacts (not stored in the world). */
typedef struct {
    uint16_t a, b;
    uint8_t sa, sb, count, flags;
    qp_vec3 n;
    qp_vec3 anchor_a, anchor_b;
    qp_vec3 ra[QP_MAX_MANIFOLD_POINTS];   /* to match points whose feature ids changed */
    uint32_t id[QP_MAX_MANIFOLD_POINTS];
    fix16_t jn[QP_MAX_MANIFOLD_POINTS];
    fix16_t depth[QP_MAX_MANIFOLD_POINTS];   /* for a manifold kept */
    fix16_t jt1, jt2, jtw;
#if !QP_CFG_LOW_RAM
    fix16_t twist_radius;   /* for a manifold kept: its points' own (0: found again); low-RAM
                               finds it again (the walk's frame is on the micro:bit's deepest stack) */
#endif
} qp_contact_cache;

typedef struct {
    uint16_t a, b;                /* shape indices (into qp_world.shapes), ordered by body */
} qp_pair;


/* A pool of n items of type T inside qp_world: an array with QP_CFG_FIXED_POOLS, else a
 * pointer into the world's own storage or the caller's memory (both index as name[i]). */
#if QP_CFG_FIXED_POOLS
#define QP__POOL(T, name, n) T name[n]
#else
#define QP__POOL(T, name, n) T *name
#endif

/* Whether a world keeps each joint's solver rows for the step (qp_joint_rows below): the
 * default layout does, and so does low-RAM where joints are solved along trees
 * (QP_CFG_JOINT_TREE), whose scratch is already about five times the rows' bytes a joint and
 * whose solve reads each joint's rows over a hundred times a step (made again at each read,
 * a chain of boxes takes 7 times the instructions). */
#define QP__KEEPS_JOINT_ROWS (!QP_CFG_LOW_RAM || QP_CFG_JOINT_TREE)

/* Joint events: only a step raises them, at most one per joint, so the buffer needs no more
 * entries than joints. */
#define QP__JOINT_EVENTS(joints, events) ((joints) < (events) ? (joints) : (events))

/* The event buffers (events.c): n events each; the first `done` belong to the readout
 * the next step drops, the rest were raised by calls since. */
typedef struct {
    QP__POOL(qp_contact_event, contact, QP_CFG_MAX_EVENTS);
    QP__POOL(qp_sensor_event, sensor, QP_CFG_MAX_EVENTS);
    QP__POOL(qp_body_event, body, QP_CFG_MAX_EVENTS);
    uint32_t lost, lost_done;
    uint16_t contact_n, sensor_n, body_n;
    uint16_t contact_done, sensor_done, body_done;
    uint16_t contact_from, sensor_from, body_from;  /* this step's first event (sorted at its end) */
#if QP_CFG_JOINT_OPTIONS
    QP__POOL(qp_joint_event, joint, QP__JOINT_EVENTS(QP_CFG_MAX_JOINTS, QP_CFG_MAX_EVENTS)); /* joints that
                                                     broke (in joint index order) */
    uint16_t joint_n, joint_done;
#endif
} qp_events;
/* Joint flags (qp_joint.flags). */
enum {
    QP_JOINT_LIMIT   = 1u << 0,   /* hinge or slider limits, cone twist limits enabled */
    QP_JOINT_COLLIDE = 1u << 1,   /* the two bodies collide with each other */
    QP_JOINT_MOTOR   = 1u << 2,   /* hinge, slider: velocity motor */
    QP_JOINT_SPRING  = 1u << 3    /* hinge, slider: spring to a target; distance: soft length */
};

/* A joint's options (QP_CFG_JOINT_OPTIONS): zero where it has none. */
typedef struct {
    fix16_t motor_speed, motor_max;   /* rad/s or m/s; N m or N */
    fix16_t spring_hz, spring_damping, spring_target, spring_max;  /* Hz, ratio, rad or m, N m or N */
    fix16_t break_impulse;        /* N s; 0: never breaks */
    fix16_t friction;             /* hinge, cone: N m, the most torque resisting the relative turn */
    fix16_t jm, js;               /* accumulated motor and spring impulses */
    qp_vec3 jf;                   /* not state: this step's friction impulse (from none each step) */
    qp_mat3 kf;                   /* not state: a cone's inverse angular mass for friction, this step */
    fix16_t jel;                  /* not state (neither hashed nor in snapshots): the size of
                                   * this step's collision-pass impulses, for its load */
} qp_joint_drive;

/* A joint (src/joint.c). Anchors from each body's centre of mass and axes in
 * the bodies' frames, so they follow the bodies. a == 0: a free slot. */
typedef struct {
    uint16_t a, b;                /* body indices, a != b */
    uint16_t generation;
    uint8_t type;                 /* qp_joint_type */
    uint8_t flags;                /* QP_JOINT_* */
    qp_vec3 la, lb;               /* anchors, body frames, from the centres of mass (m) */
    qp_vec3 axis_a, axis_b;       /* hinge, slider, cone, fixed: the axis in each body's frame, Q2.30 */
    qp_vec3 ref_a, ref_b;         /* the same: a direction across the axis, Q2.30 (angle 0: they agree) */
    fix16_t lower, upper;         /* hinge: limits (rad); distance: min and max length (m);
                                   * slider: limits (m); cone: twist limits (rad) */
    fix16_t drift_time;           /* s */
    qp_vec3 jp;                   /* accumulated impulse of the point rows (warm start) */
    fix16_t ja[3];                /* accumulated angular impulses: hinge the two alignment rows
                                   * ([2] unused); fixed, slider the world vector; cone [0] swing */
    fix16_t jlo, jhi;             /* accumulated impulses of the lower and upper limit rows */
    fix16_t swing;                /* cone: the cone's half angle (rad) */
#if QP_CFG_JOINT_OPTIONS
    qp_joint_drive drive;         /* motor, spring, break impulse (zero for a joint with none) */
#endif
} qp_joint;


/* A joint's solver rows for one step: functions of its bodies' poses, masses
 * and inertia, which the velocity passes do not change (src/solve_joints.c). */
typedef struct {
    qp_vec3 ra, rb;               /* arms from the centres to the anchors, world */
    qp_mat3 ia, ib;               /* world inverse inertia (zero for a body that cannot move) */
    fix16_t ma, mb;               /* inverse masses (zero likewise) */
    qp_mat3 k_inv;                /* point rows: inverse of the 3x3 effective mass */
    qp_vec3 axis;                 /* hinge: a's axis; distance: unit direction from a's point to b's */
    qp_vec3 perp[2];              /* hinge: two unit directions across the axis */
    fix16_t m_perp[2][2];         /* hinge: inverse of the alignment rows' 2x2 effective mass */
    fix16_t m_axis;               /* effective mass of the limit (hinge) or length (distance) row */
    fix16_t value;                /* hinge: angle (rad); distance: length (m) */
    qp_vec3 gap;                  /* point rows: b's point minus a's (m) */
    qp_vec3 tilt;                 /* hinge: b's axis x a's axis (the alignment error); fixed, slider:
                                   * b's turn from a (rad, small); cone: the swing row's direction */
    fix16_t swing;                /* cone: the angle between the two axes (rad) */
    fix16_t m_swing;              /* cone: effective mass of the swing row */
} qp_joint_rows;

/* The size of the joint-tree solve's per-step scratch in bytes for J joints (src/joint_tree.h,
 * which checks this against its layout): 1174 bytes a joint, a count and a pass. */
#define QP__JOINT_TREE_BYTES(J) (1174ul * (unsigned long)(J) + 8ul)

/* The size of the stages' per-step scratch in bytes: the largest of the three scratch
 * layouts that share it (src/scratch.h and src/world_memory.c check this against them). B bodies + 1
 * (index 0 is null), C contacts:
 *   predicted poses:  x (12 bytes a body), q (16) and, in the default layout, r (36)
 *   split impulse:    pseudo-velocities (24 bytes a body), a visit list (2 bytes a contact)
 *   velocity passes:  moved_at (4 bytes a body), quiet_at (4 a contact), and a sweep list
 *                     (6 a contact; default layout) or each body's inverse inertia (24) and
 *                     each contact's tangent (8) (low-RAM) */
#define QP__SCRATCH_MAX(a, b) ((a) > (b) ? (a) : (b))
#if !QP_CFG_LOW_RAM
#define QP__SCRATCH_PRED_BYTES(B) (64ul * (B))
#define QP__SCRATCH_PASSES_BYTES(B, C) (4ul * (B) + 10ul * (C))
#else
#define QP__SCRATCH_PRED_BYTES(B) (28ul * (B))
#define QP__SCRATCH_PASSES_BYTES(B, C) (28ul * (B) + 12ul * (C))
#endif
#define QP__SCRATCH_SPLIT_BYTES(B, C) (24ul * (B) + 2ul * (C))
#define QP__STEP_SCRATCH_BYTES(bodies, contacts)                                                            \
    QP__SCRATCH_MAX(QP__SCRATCH_PRED_BYTES((unsigned long)(bodies) + 1ul),                                 \
                    QP__SCRATCH_MAX(QP__SCRATCH_SPLIT_BYTES((unsigned long)(bodies) + 1ul, (unsigned long)(contacts)), \
                                    QP__SCRATCH_PASSES_BYTES((unsigned long)(bodies) + 1ul, (unsigned long)(contacts))))
#define QP__STEP_SCRATCH_WORDS ((QP__STEP_SCRATCH_BYTES(QP_CFG_MAX_BODIES, QP_CFG_MAX_CONTACTS) + 3ul) / 4ul)

/* The hulls one body may have: a world's pool with fixed pools (QP_CFG_MAX_HULLS) may hold
 * fewer than a body's shapes. */
#if QP_CFG_FIXED_POOLS && QP_CFG_MAX_HULLS < QP_CFG_MAX_BODY_SHAPES
#define QP__HULL_SCRATCH QP_CFG_MAX_HULLS
#else
#define QP__HULL_SCRATCH QP_CFG_MAX_BODY_SHAPES
#endif

#if !QP_CFG_FIXED_POOLS
/* The bytes of the pools of a world of these capacities, each pool rounded up to 8 bytes,
 * in the order src/world_memory.c places them (qp_world_init refuses a qp_world whose size
 * is not the library's count for its capacities; tests/unit/test_caps.c compares the two):
 * bodies (one more: index 0 is null), shapes and their broad-phase order, pairs, contacts
 * and their rows, the step's scratch, the contact graph, sensor overlaps, events, joints
 * and their rows and tree scratch, and the views of the scratch (a few dozen pointers). */
#define QP__R8(n) ((((unsigned long)(n)) + 7ul) & ~7ul)
#define QP__VIEWS_BYTES (32ul * (unsigned long)sizeof(void *))
#if !QP_CFG_LOW_RAM
#define QP__ROWS_BYTES(P, C) QP__R8(QP__SCRATCH_MAX((unsigned long)(C) * sizeof(qp_contact_rows), (unsigned long)(P) * sizeof(qp_pair)))
#else
#define QP__ROWS_BYTES(P, C) 0ul
#endif
#if QP__KEEPS_JOINT_ROWS
#define QP__JOINT_ROWS_BYTES(J) QP__R8((unsigned long)(J) * sizeof(qp_joint_rows))
#else
#define QP__JOINT_ROWS_BYTES(J) 0ul
#endif
#if QP_CFG_JOINT_OPTIONS
#define QP__JOINT_EVENTS_BYTES(J, E) QP__R8((unsigned long)QP__JOINT_EVENTS(J, E) * sizeof(qp_joint_event))
#else
#define QP__JOINT_EVENTS_BYTES(J, E) 0ul
#endif
#if QP_CFG_JOINT_TREE
#define QP__TREE_BYTES(J) QP__R8(QP__JOINT_TREE_BYTES(J))
#else
#define QP__TREE_BYTES(J) 0ul
#endif
#if QP_CFG_MAX_HULLS > 0
#define QP__HULLS_BYTES(H) QP__R8((unsigned long)(H) * sizeof(qp_hull))
#else
#define QP__HULLS_BYTES(H) 0ul
#endif
#define QP__POOLS_BYTES(B, S, P, C, J, E, O, H)                                                                \
    (QP__R8(((unsigned long)(B) + 1ul) * sizeof(qp_body_state)) + QP__R8((unsigned long)(S) * sizeof(qp_shape_slot)) + \
     QP__R8((unsigned long)(S) * 2ul) + QP__R8((unsigned long)(P) * sizeof(qp_pair)) +                         \
     QP__R8((unsigned long)(C) * sizeof(qp_contact)) + QP__ROWS_BYTES(P, C) +                                  \
     QP__R8(QP__STEP_SCRATCH_BYTES(B, C)) + QP__R8((unsigned long)(C) * 2ul) +                                 \
     QP__R8(((unsigned long)(B) + 3ul) * 2ul) + QP__R8(((unsigned long)(B) + 2ul) * 4ul) +                     \
     QP__R8((unsigned long)(C) * 4ul) + QP__R8((unsigned long)(O) * sizeof(qp_pair)) +                         \
     QP__R8((unsigned long)(E) * sizeof(qp_contact_event)) + QP__R8((unsigned long)(E) * sizeof(qp_sensor_event)) + \
     QP__R8((unsigned long)(E) * sizeof(qp_body_event)) + QP__JOINT_EVENTS_BYTES(J, E) +                       \
     QP__R8((unsigned long)(J) * sizeof(qp_joint)) + QP__R8((unsigned long)(J) * 2ul) +                        \
     QP__JOINT_ROWS_BYTES(J) + QP__TREE_BYTES(J) + QP__HULLS_BYTES(H) + QP__R8(QP__VIEWS_BYTES))
/* The contact graph's offsets into its list of twice the contacts. */
typedef int32_t qp__adj_index;
#else
typedef uint16_t qp__adj_index;
#endif

struct qp__scratch_views;         /* src/scratch.h */
struct qp__joint_tree_views;      /* src/joint_tree.h */

struct qp_world {
    qp_world_def def;
    qp_world_stats stats;
#if !QP_CFG_FIXED_POOLS
    struct qp_world *self;        /* where an init placed it: a byte copy elsewhere is not placed */
    qp_world_caps caps;           /* the pools' capacities */
#endif
    int body_high;                /* highest used body index */
    /* Every body slot below body_free, shape slot below shape_free and hull entry below
     * hull_free is used: where the search for the lowest free one starts (0 after a clear:
     * from the first). */
    int body_free, shape_free;
#if QP_CFG_MAX_HULLS > 0
    int hull_free;
#endif
    QP__POOL(qp_body_state, bodies, QP_CFG_MAX_BODIES + 1);   /* [0] unused: index 0 is null */
    QP__POOL(qp_shape_slot, shapes, QP_CFG_MAX_SHAPES);
    /* Broad phase: shape indices sorted by aabb.lo.x, kept between steps. */
    QP__POOL(uint16_t, sap_order, QP_CFG_MAX_SHAPES);
    uint16_t sap_sorted;          /* 1: sorted by the boxes as they are now, so queries may prune (query.c) */
    int sap_count;
    QP__POOL(qp_pair, pairs, QP_CFG_MAX_PAIRS);
    int pair_count;
    /* This step's contacts, sorted by (a, b, sa, sb); they are also last
     * step's for the narrow phase (narrow_phase.c). */
    QP__POOL(qp_contact, contacts, QP_CFG_MAX_CONTACTS);
    int contact_count;
#if !QP_CFG_LOW_RAM && QP_CFG_FIXED_POOLS
    union {
        qp_contact_rows rows[QP_CFG_MAX_CONTACTS];  /* solver rows of contacts[i], per step */
        qp_pair pair_scratch[QP_CFG_MAX_PAIRS];     /* the broad phase's sort, before the rows are made */
    };
#elif !QP_CFG_LOW_RAM
    qp_contact_rows *rows;        /* solver rows of contacts[i], per step */
    qp_pair *pair_scratch;        /* the same memory: the broad phase's sort, before the rows are made */
#endif
    /* Per-step scratch of the stages, storage only: the predicted poses, the velocity
     * passes' and the penetration pass's scratch share it (src/scratch.h). */
#if QP_CFG_FIXED_POOLS
    uint32_t step_scratch[QP__STEP_SCRATCH_WORDS];
#else
    struct qp__scratch_views *scratch_views;
#endif
#if QP_CFG_LOW_RAM
    int passes_kept;                           /* passes.inv_inertia6 and passes.tangent are valid */
    /* The bodies' distinct materials (src/body.c): entries no used body names are free. */
    qp_body_material materials[QP_CFG_MAX_MATERIALS];
    int material_count;                        /* entries [0, material_count) ever filled */
    /* The bodies with a force or torque pending (src/body.c), in the order they got one. */
    qp_body_forces forces[QP_CFG_MAX_FORCED_BODIES];
    uint16_t forced[QP_CFG_MAX_FORCED_BODIES];  /* their body indices */
    int forced_count;
    /* The bodies whose centre of mass is off their origin (src/body.c): the centre in the
     * body frame, and the body's index. */
    qp_vec3 offsets[QP_CFG_MAX_OFFSET_BODIES];
    uint16_t offset_bodies[QP_CFG_MAX_OFFSET_BODIES];
    int offset_count;
#endif
    QP__POOL(uint16_t, order, QP_CFG_MAX_CONTACTS);       /* contacts in contact-graph order */
    QP__POOL(uint16_t, queue, QP_CFG_MAX_BODIES + 3);     /* BFS queue, level histogram, island walks */
    QP__POOL(qp__adj_index, adj_start, QP_CFG_MAX_BODIES + 2); /* contact graph: contacts of each body, */
    QP__POOL(uint16_t, adj, 2 * QP_CFG_MAX_CONTACTS);     /* as ranges of adj (CSR) */
    /* Sensor shapes overlapping other shapes (sensor.c): shape pairs ordered like
     * qp_pair, sorted by the same key, kept between steps. */
    QP__POOL(qp_pair, sensor_overlaps, QP_CFG_MAX_SENSOR_OVERLAPS);
    int sensor_overlap_count;
    qp_events events;
    /* Joints (joint.c, solve_joints.c): the pool, how many are live, this
     * step's solving order (outward from static bodies) and rows. */
    QP__POOL(qp_joint, joints, QP_CFG_MAX_JOINTS);        /* slot index i (1-based, as in ids) at [i - 1] */
    int joint_count;
    QP__POOL(uint16_t, joint_order, QP_CFG_MAX_JOINTS);   /* slot indices */
#if QP__KEEPS_JOINT_ROWS
    QP__POOL(qp_joint_rows, joint_rows, QP_CFG_MAX_JOINTS); /* rows of slot i at [i - 1]; otherwise
                                                             * computed at each use (the same bits) */
#endif
#if QP_CFG_JOINT_TREE && QP_CFG_FIXED_POOLS
    /* Per-step scratch of the joint-tree solve (def.joint_tree), storage only: its layout
     * is in src/joint_tree.h. Neither state nor hashed. */
    uint64_t joint_tree_scratch[(QP__JOINT_TREE_BYTES(QP_CFG_MAX_JOINTS) + 7ul) / 8ul];
#elif QP_CFG_JOINT_TREE
    struct qp__joint_tree_views *joint_tree;
#endif
#if QP_CFG_MAX_HULLS > 0
    /* Hull shapes' data (body.c): a slot's shape.hull points at its entry here. An entry no
     * shape uses is all zero (vert_count 0 marks it free). */
    QP__POOL(qp_hull, hulls, QP_CFG_MAX_HULLS);
    /* One body's hulls, built here before they go to the pool: by restore, to check a
     * snapshot's hulls before it writes anything (snapshot.c), and by the scene loader and
     * the input replayer (qp_create_body copies them): all zero between calls. */
    qp_hull hull_scratch[QP__HULL_SCRATCH];
#endif
    /* Not state: where mutating calls are recorded (record.h), null when not. */
    struct qp_input_log *input_log;
#if !QP_CFG_FIXED_POOLS
    /* The pools of a world of the default capacities (qp_world_init), laid out by
     * src/world_memory.c; a world placed by qp_world_init_in ends before it, its pools
     * following in the caller's memory. Last: nothing follows it. */
    uint64_t own[QP__POOLS_BYTES(QP_CFG_MAX_BODIES, QP_CFG_MAX_SHAPES, QP_CFG_MAX_PAIRS, QP_CFG_MAX_CONTACTS,
                                 QP_CFG_MAX_JOINTS, QP_CFG_MAX_EVENTS, QP_CFG_MAX_SENSOR_OVERLAPS,
                                 QP_CFG_MAX_HULLS) / 8ul];
#endif
};

/* The capacities of w's pools, for the engine's loops and checks. */
#if QP_CFG_FIXED_POOLS
#define QP__CAP(w, field, fixed) ((void)(w), (int)(fixed))
#else
#define QP__CAP(w, field, fixed) ((w)->caps.field)
#endif
#define qp__cap_bodies(w) QP__CAP(w, bodies, QP_CFG_MAX_BODIES)
#define qp__cap_shapes(w) QP__CAP(w, shapes, QP_CFG_MAX_SHAPES)
#define qp__cap_pairs(w) QP__CAP(w, pairs, QP_CFG_MAX_PAIRS)
#define qp__cap_contacts(w) QP__CAP(w, contacts, QP_CFG_MAX_CONTACTS)
#define qp__cap_joints(w) QP__CAP(w, joints, QP_CFG_MAX_JOINTS)
#define qp__cap_events(w) QP__CAP(w, events, QP_CFG_MAX_EVENTS)
#define qp__cap_sensor_overlaps(w) QP__CAP(w, sensor_overlaps, QP_CFG_MAX_SENSOR_OVERLAPS)
#define qp__cap_hulls(w) QP__CAP(w, hulls, QP_CFG_MAX_HULLS)
#define qp__cap_joint_events(w) QP__JOINT_EVENTS(qp__cap_joints(w), qp__cap_events(w))

#endif
