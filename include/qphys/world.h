/* SPDX-License-Identifier: MIT */
/* The qphys world: definitions, bodies, the step, queries.
 *
 * All state lives in one qp_world that the caller owns (static storage is
 * usual: `static qp_world world;`). Bodies are named by small ids carrying a
 * generation, so an id kept after its body was destroyed is detected.
 * Every function that can fail returns a qp_result (or a null id plus a
 * qp_result through `err`) and leaves the world as it was.
 *
 * Units: metres, kilograms, seconds, radians; all numbers Q16.16 (fix16_t)
 * except rotations (qp_quat, Q2.30). Supported ranges (enforced):
 *   positions      |x| <= world_def.bounds (default 1000 m, at most 10000 m)
 *   speeds         |v| <= max_linear_speed (default 100 m/s), |w| <= max_angular_speed (50 rad/s)
 *   masses         0.01 .. 10000 kg per dynamic body; inertia must fit Q16.16
 *   shape sizes    0.01 .. 100 m (collide.h)
 */
#ifndef QPHYS_WORLD_H
#define QPHYS_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include "qphys/collide.h"
#include "qphys/config.h"
#include "qphys/math.h"
#include "qphys/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A body's name: index is 1-based (0 = null id), generation counts reuses of the slot. */
typedef struct {
    uint16_t index;
    uint16_t generation;
} qp_body_id;

/* A joint's name (include/qphys/joint.h): index is 1-based (0 = null id), generation
 * counts reuses of the slot. */
typedef struct {
    uint16_t index;
    uint16_t generation;
} qp_joint_id;

static inline qp_body_id qp_null_body(void) { qp_body_id id = { 0, 0 }; return id; }
static inline bool qp_body_id_is_null(qp_body_id id) { return id.index == 0; }

typedef enum {
    QP_SLEEP_THREE_POINT = 0,  /* Lengyel's three-point test (default) */
    QP_SLEEP_ENERGY            /* recency-weighted average of |v|^2 + |w|^2 */
} qp_sleep_policy;

/* Everything the step does is set here; qp_default_world_def() gives the
 * defaults written beside each field. */
typedef struct {
    qp_vec3 gravity;              /* m/s^2; default (0, -10, 0) */
    fix16_t dt;                   /* s; default 1/60; range 1/1000 .. 1/10 (tilted stacks: tested to 1/240) */
    int collision_iterations;     /* elastic pass sweeps; default 5; 0..100 */
    int contact_iterations;       /* inelastic pass sweeps; default 10; 1..100 */
    int shock_iterations;         /* shock propagation sweeps per level; default 7; 0..10 */
    int penetration_iterations;   /* split-impulse sweeps; default 5; 0..100 */
    bool restitution_ramp;        /* contact pass restitution from near -1 to 0 (seed 003); default true */
    bool alternate_sweeps;        /* contact pass alternates top-down and bottom-up; default true */
    bool accumulate_impulses;     /* clamp accumulated, not per-iteration, impulses; default true */
    bool warm_start;              /* start from last step's impulses (needs accumulate); default true */
    fix16_t contact_margin;       /* m; contacts kept up to this gap; default 0.02 */
    fix16_t slop;                 /* m; penetration left alone; default 0.002 */
    fix16_t gap_tolerance;        /* m; smaller predicted gaps count as touching; default 0.0005 */
    fix16_t penetration_rate;     /* fraction of depth removed per step; default 0.2; 0..1 */
    fix16_t max_penetration_speed;/* m/s; cap of the split-impulse speed; default 1 */
    fix16_t bounce_threshold;     /* m/s; slower approaches do not bounce; default 0.5 */
    fix16_t max_linear_speed;     /* m/s; default 100, at most 150 */
    fix16_t max_angular_speed;    /* rad/s; default 50, at most 100 */
    fix16_t bounds;               /* m; a body beyond +-bounds is disabled; default 1000 */
    bool gyroscopic;              /* spin keeps angular momentum (w x I w, implicit: a body turning
                                   * about other than a principal axis precesses and tumbles, a
                                   * T-handle about its middle axis flips; L within 0.05 % over 10 s
                                   * up to 30 rad/s, while spin energy decays, never rises); default
                                   * false (off: spin keeps its angular velocity); costs a 3x3
                                   * inverse and six Newton steps per awake spinning body a step */
    bool joint_tree;              /* the equality rows of ball, hinge and cone joints that form
                                   * trees over the moving bodies are solved together, exactly, each
                                   * pass (src/solve_joint_tree.c), and their gaps, cone limits and
                                   * hinge limits closed at the new poses (project_joints.c), with
                                   * the limits met; loops and other kinds stay joint at a time. Ten 1 kg links
                                   * holding 100 kg stay within 0.5 mm, 30 released horizontal
                                   * within 1.1 mm (metres open without). Default true; a world of
                                   * one joint, or a build without QP_CFG_JOINT_TREE, solves
                                   * its joint as without trees */
    /* Sleep (docs/design.md §6). */
    bool sleep_enabled;           /* default true */
    qp_sleep_policy sleep_policy; /* default QP_SLEEP_THREE_POINT */
    fix16_t sleep_center_size;    /* m; box around C (three-point); default 0.01; 0..1 (under 1 with QP_CFG_LOW_RAM) */
    fix16_t sleep_point_size;     /* m; boxes around C+Rx, C+Ry (R: the body's reach, at least 0.25 m);
                                     default 0.01; the same range */
    int sleep_steps;              /* steps within the boxes before sleep; default 60 */
    fix16_t sleep_energy;         /* (m/s)^2; energy policy epsilon; default 0.01 */
    fix16_t sleep_energy_bias;    /* weight of the past in the average; default 0.9 */
    fix16_t wake_energy_factor;   /* wake above factor * epsilon; default 2 */
    fix16_t wake_speed;           /* m/s; closing speed that wakes a sleeper; default 0.1 */
    fix16_t wake_velocity;        /* m/s; sleeper speed after the contact pass that wakes it; default 0.05 */
    int min_awake_steps;          /* a woken body stays awake at least this long; default 30 */
} qp_world_def;

typedef enum {
    QP_BODY_STATIC = 0,           /* never moves, infinite mass; set_pose and velocities refused */
    QP_BODY_DYNAMIC,
    QP_BODY_KINEMATIC             /* moves with its linear and angular velocity only (no gravity, no
                                   * forces, never pushed: infinite mass); carries and wakes what rests
                                   * on it; never sleeps. Move it with qp_body_set_linear_velocity,
                                   * qp_body_set_angular_velocity or qp_body_set_pose. */
} qp_body_type;

/* Which shapes collide (Box2D's rule): two shapes in the same non-zero group always
 * collide when the group is positive and never when it is negative; otherwise they
 * collide when each one's category is in the other's mask:
 * (a.category & b.mask) && (b.category & a.mask). Shapes of one body never collide.
 * The broad phase applies it, so a filtered-out pair costs nothing after the sweep. */
typedef struct {
    uint16_t category;            /* the bits this shape is; default 1 */
    uint16_t mask;                /* the categories it collides with; default 0xFFFF (all) */
    int16_t group;                /* default 0 (none) */
} qp_shape_filter;

/* category 1, mask 0xFFFF, group 0: everything collides with everything. */
qp_shape_filter qp_default_shape_filter(void);

/* The rolling resistance a dynamic body with a sphere or capsule gets by default, 0.003 (a hard
 * ball on a hard floor: steel on steel is about 0.001, a billiard ball on cloth 0.005-0.015): a
 * solid ball rolling at v on a level floor stops within 7 v^2 / (10 c g), 23 m from 1 m/s, and
 * it holds a ball still on a slope under 0.17 degrees. docs/limits.md, "rolling". */
#define QP_ROUND_ROLLING_RESISTANCE QP_FRAC(3, 1000)

typedef struct {
    qp_body_type type;            /* default QP_BODY_DYNAMIC */
    qp_vec3 position;             /* body origin, world; default 0 */
    qp_quat rotation;             /* default identity */
    qp_vec3 linear_velocity;      /* of the centre of mass, m/s; default 0 */
    qp_vec3 angular_velocity;     /* rad/s, world frame; default 0 */
    fix16_t mass;                 /* kg; 0 = from density (default 0); dynamic bodies only */
    fix16_t density;              /* kg/m^3; default 1 (a unit cube weighs 1 kg) */
    fix16_t friction;             /* dynamic Coulomb coefficient; default 0.5; 0..10 */
    fix16_t static_friction;      /* static coefficient; <0 = same as friction (default -1) */
    fix16_t restitution;          /* 0..1; default 0 */
    fix16_t rolling_resistance;   /* 0..1; <0 = QP_ROUND_ROLLING_RESISTANCE on a dynamic body with a
                                   * sphere or capsule, 0 on any other (default -1): a round shape
                                   * rolling on what it touches meets a torque of this times its
                                   * radius times the normal force (the larger of the two bodies'),
                                   * src/rolling.c */
    bool asleep;                  /* start asleep; default false; dynamic bodies only */
    uint32_t user_data;           /* yours; default 0 */
    int shape_count;              /* 1..QP_CFG_MAX_BODY_SHAPES */
    qp_shape shapes[QP_CFG_MAX_BODY_SHAPES]; /* copied at creation */
    /* Per shape, beside its geometry (qp_shape stays the pure input of the collide
     * functions): its collision filter (default qp_default_shape_filter()), and whether it
     * is a sensor (default false). A sensor touches nothing: it makes no contact, pushes
     * nothing, wakes nothing and is not hit by ray casts; it reports the shapes that
     * overlap it (qp_world_sensor_events), filtered like a contact. Sensors do not see
     * other sensors. A sensor shape still gives its body mass. */
    qp_shape_filter filters[QP_CFG_MAX_BODY_SHAPES];
    bool sensors[QP_CFG_MAX_BODY_SHAPES];
} qp_body_def;

/* Flags a body raises for the user to read (qp_body_flags); sticky until cleared. */
enum {
    QP_FLAG_SPEED_CLAMPED   = 1u << 0,  /* linear or angular speed hit its limit */
    QP_FLAG_OUT_OF_BOUNDS   = 1u << 1,  /* left the world bounds: disabled (frozen) */
    QP_FLAG_CONTACTS_LOST   = 1u << 2,  /* a pool was full: some of its contacts were dropped */
    QP_FLAG_IMPULSE_LIMIT   = 1u << 3,  /* a contact point needed more than Q16.16 holds in one step
                                         * (32767 N s): the load may sink. Keep mass x |g| x dt (plus
                                         * what presses it) under 32767 N s per point of support */
    QP_FLAG_PINNED_OVERLAP  = 1u << 4   /* more than 5 cm inside static geometry (or inside a body
                                         * while pressed against static geometry) with no free way
                                         * out: it may stay inside or be pushed through
                                         * (docs/design.md §4, deep overlaps) */
};

/* Per-step figures and high-water marks (for trimming pools on a board). */
typedef struct {
    uint32_t step;                /* steps taken */
    int bodies, awake, asleep;
    int pairs, contacts, points;  /* this step */
    int max_pairs, max_contacts;  /* high-water marks */
    int levels;                   /* contact graph height */
    uint32_t overflows;           /* times a pool was full (pairs or contacts) */
    int first_all_asleep_step;    /* first step at which every dynamic body slept, -1 if never */
} qp_world_stats;

struct qp_world;
typedef struct qp_world qp_world;
struct qp_input_log;                       /* qphys/record.h */
typedef struct qp_input_log qp_input_log;

/* A world's capacities: how many of each its pools hold. Ranges: bodies 1..65532 (static
 * ones included), shapes 1..65535, pairs 1..4194304 (overlapping shape pairs the broad phase
 * may report a step), contacts 1..65535 (touching shape pairs a step), joints 1..65535,
 * events 1..32767 (each of the event buffers), sensor_overlaps 1..32767, hulls 0..65535
 * (hull shapes: the world keeps a copy of each, sizeof(qp_hull) bytes; 0 in a library built
 * without hulls, QP_CFG_MAX_HULLS 0). */
typedef struct {
    int bodies, shapes, pairs, contacts, joints, events, sensor_overlaps, hulls;
} qp_world_caps;
/* The capacities of a world declared as qp_world (config.h's QP_CFG_MAX_*, as the caller
 * compiled them). */
#define QP_DEFAULT_CAPS_INIT                                                                           \
    { QP_CFG_MAX_BODIES, QP_CFG_MAX_SHAPES, QP_CFG_MAX_PAIRS, QP_CFG_MAX_CONTACTS, QP_CFG_MAX_JOINTS,   \
      QP_CFG_MAX_EVENTS, QP_CFG_MAX_SENSOR_OVERLAPS, QP_CFG_MAX_HULLS }
static inline const qp_world_caps *qp__default_caps(void)
{
    static const qp_world_caps caps = QP_DEFAULT_CAPS_INIT;
    return &caps;
}

/* The options this header was compiled with that fix the layout of qp_world and its pools
 * (include/qphys/config.h: QP_CFG_LOW_RAM, QP_CFG_JOINT_OPTIONS, QP_CFG_JOINT_TREE,
 * QP_CFG_MAX_BODY_SHAPES, QP_CFG_FIXED_POOLS, low-RAM's QP_CFG_MAX_MATERIALS, QP_CFG_MAX_FORCED_BODIES and
 * QP_CFG_MAX_OFFSET_BODIES, and with fixed
 * pools their sizes) as one
 * number. The calls that lay out a caller's world (qp_world_init, qp_world_init_in) are
 * macros passing it, with the caller's sizes, to the library, which answers QP_ERR_CONFIG
 * when they are not its own: never memory corruption (FreeRTOS checks its static objects'
 * sizes likewise). Pool sizes are not in it (with pools of the caller's): a program built
 * with -DQP_CFG_MAX_BODIES=16 gets a default world of 16 bodies from the installed library. */
#define QP__SIG_MIX(h, v) (((uint32_t)(h) ^ (uint32_t)(v)) * UINT32_C(16777619))
#define QP__CONFIG_SIGNATURE_LAYOUT_ALL                                                                \
    QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(UINT32_C(2166136261), QP_CFG_MAX_BODY_SHAPES), \
        QP_CFG_LOW_RAM), QP_CFG_JOINT_OPTIONS), QP_CFG_JOINT_TREE), QP_CFG_FIXED_POOLS)
#if QP_CFG_LOW_RAM   /* and the sizes of its material palette, forces and offsets lists */
#define QP__CONFIG_SIGNATURE_LAYOUT                                                                    \
    QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__CONFIG_SIGNATURE_LAYOUT_ALL, QP_CFG_MAX_MATERIALS),            \
                            QP_CFG_MAX_FORCED_BODIES),                                                  \
                QP_CFG_MAX_OFFSET_BODIES)
#else
#define QP__CONFIG_SIGNATURE_LAYOUT QP__CONFIG_SIGNATURE_LAYOUT_ALL
#endif
#if QP_CFG_FIXED_POOLS
#define QP_CONFIG_SIGNATURE                                                                            \
    QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(QP__SIG_MIX(                 \
        QP__CONFIG_SIGNATURE_LAYOUT, QP_CFG_MAX_BODIES), QP_CFG_MAX_SHAPES), QP_CFG_MAX_PAIRS),         \
        QP_CFG_MAX_CONTACTS), QP_CFG_MAX_JOINTS), QP_CFG_MAX_EVENTS), QP_CFG_MAX_SENSOR_OVERLAPS)
#else
#define QP_CONFIG_SIGNATURE QP__CONFIG_SIGNATURE_LAYOUT
#endif

/* ---- world ----------------------------------------------------------------- */

qp_world_def qp_default_world_def(void);
/* Initialise the qp_world object w (every byte) from def, with the default capacities: call
 * it as qp_world_init(w, def) (a world placed by qp_world_init_in is initialised again by
 * qp_world_init_in). QP_ERR_RANGE for a field outside its range, QP_ERR_CONFIG for a
 * caller built with another layout than the library (QP_CONFIG_SIGNATURE); w is untouched
 * on any error. */
qp_result qp_world_init_checked(qp_world *w, const qp_world_def *def, uint32_t config_signature,
                                unsigned long world_size, const qp_world_caps *caps) QP_MUST_USE;
#define qp_world_init(w, def)                                                                          \
    qp_world_init_checked((w), (def), QP_CONFIG_SIGNATURE, (unsigned long)sizeof(qp_world), qp__default_caps())
/* The bytes a world of these capacities takes in qp_world_init_in (the world and its pools),
 * 0 for capacities out of their ranges (qp_world_caps) or with fixed pools. It grows with
 * every capacity. */
unsigned long qp_world_memory_size(const qp_world_caps *caps);
/* Place a world of these capacities in memory (8-byte aligned, at least
 * qp_world_memory_size(caps) bytes), initialised from def as qp_world_init does, and set
 * *out to it: call it as qp_world_init_in(memory, bytes, caps, def, out). The world lives
 * there until the caller reuses the memory (there is nothing to free). QP_ERR_PARAM for a
 * null argument, memory not 8-byte aligned or smaller than needed, or a capacity out of its
 * range; QP_ERR_RANGE as qp_world_init; QP_ERR_CONFIG as qp_world_init, and with fixed
 * pools. Nothing is written on any error. */
qp_result qp_world_init_in_checked(void *memory, unsigned long bytes, const qp_world_caps *caps,
                                   const qp_world_def *def, qp_world **out, uint32_t config_signature) QP_MUST_USE;
#define qp_world_init_in(memory, bytes, caps, def, out)                                                \
    qp_world_init_in_checked((memory), (bytes), (caps), (def), (out), QP_CONFIG_SIGNATURE)
/* Capacities for a world of this many bodies, shapes and joints: 8 pairs and 3 contacts a
 * body, as the default capacities (a pile of cubes reaches about 6 pairs a body); a sensor
 * overlap a shape; events for every contact, joint or overlap at once (a structure built at
 * rest begins all its contacts in its first step); at least the library's default events
 * and sensor overlaps, and its default hulls (QP_CFG_MAX_HULLS as the library was built);
 * each clamped to its range, counts below 1 counting as 1. */
qp_world_caps qp_world_caps_for(int bodies, int shapes, int joints);
/* w's capacities. */
qp_world_caps qp_world_get_caps(const qp_world *w);
/* The name of the first capacity of have ("bodies", "shapes", "pairs", "contacts",
 * "joints", "events", "sensor overlaps", "hulls") smaller than need's, or null when have
 * holds need. */
const char *qp_world_caps_short(const qp_world_caps *have, const qp_world_caps *need);
/* Copy world from into world to: to has from's capacities, or is a qp_world never
 * initialised and from a qp_world that qp_world_init initialised (QP_ERR_PARAM otherwise). A world's
 * pools are pointers into its memory, so a byte copy (an assignment, memcpy) of a qp_world
 * reads and writes the original's pools: copy with this, or a snapshot and restore. */
qp_result qp_world_copy(qp_world *to, const qp_world *from);
/* Advance one step of def.dt. */
void qp_world_step(qp_world *w);
qp_world_stats qp_world_get_stats(const qp_world *w);
const qp_world_def *qp_world_get_def(const qp_world *w);

/* ---- bodies ------------------------------------------------------------------ */

qp_body_def qp_default_body_def(void);
/* A null id and *err (if err) on failure: QP_ERR_FULL, QP_ERR_PARAM, QP_ERR_RANGE. Full: no free
 * body or shape slot, hull entry, or (QP_CFG_LOW_RAM) room for one more distinct material
 * (QP_CFG_MAX_MATERIALS) or body with its centre of mass off its origin (QP_CFG_MAX_OFFSET_BODIES). */
qp_body_id qp_create_body(qp_world *w, const qp_body_def *def, qp_result *err);
/* Remove a body; the bodies it touched wake. */
qp_result qp_destroy_body(qp_world *w, qp_body_id id);
bool qp_body_is_valid(const qp_world *w, qp_body_id id);
/* The id of the body in slot index (1-based), or null if the slot is free:
 * iterate 1..qp_world_body_capacity(w) in index order. */
qp_body_id qp_world_body_at(const qp_world *w, int index);
/* The body slots of w (its capacity), and of a world of the library's default capacities. */
int qp_world_body_capacity(const qp_world *w);
int qp_world_capacity(void);

/* Reads give zero for an invalid id. Writes return QP_ERR_INVALID_ID for it,
 * QP_ERR_RANGE for values out of range, and wake the body. A static body refuses
 * every write that moves it (set_pose, velocities, forces, impulses: QP_ERR_PARAM,
 * nothing changes); a kinematic body takes set_pose and velocities (and wakes what
 * touches it), refuses forces and impulses (QP_ERR_PARAM). */
qp_vec3 qp_body_position(const qp_world *w, qp_body_id id);     /* origin */
qp_vec3 qp_body_center(const qp_world *w, qp_body_id id);       /* centre of mass */
qp_quat qp_body_rotation(const qp_world *w, qp_body_id id);
qp_vec3 qp_body_linear_velocity(const qp_world *w, qp_body_id id);
qp_vec3 qp_body_angular_velocity(const qp_world *w, qp_body_id id);
fix16_t qp_body_mass(const qp_world *w, qp_body_id id);
qp_body_type qp_body_get_type(const qp_world *w, qp_body_id id);
uint32_t qp_body_user_data(const qp_world *w, qp_body_id id);
qp_result qp_body_set_pose(qp_world *w, qp_body_id id, qp_vec3 position, qp_quat rotation);
qp_result qp_body_set_linear_velocity(qp_world *w, qp_body_id id, qp_vec3 v);
qp_result qp_body_set_angular_velocity(qp_world *w, qp_body_id id, qp_vec3 omega);
/* Forces and torques act during the next step only. With QP_CFG_LOW_RAM, at most
 * QP_CFG_MAX_FORCED_BODIES bodies hold one at a time: one more is refused (QP_ERR_FULL). */
qp_result qp_body_apply_force(qp_world *w, qp_body_id id, qp_vec3 force);
qp_result qp_body_apply_torque(qp_world *w, qp_body_id id, qp_vec3 torque);
/* Impulse (N s) at a world point (changes linear and angular velocity now). */
qp_result qp_body_apply_impulse(qp_world *w, qp_body_id id, qp_vec3 impulse, qp_vec3 world_point);
bool qp_body_is_awake(const qp_world *w, qp_body_id id);
qp_result qp_body_wake(qp_world *w, qp_body_id id);
uint32_t qp_body_flags(const qp_world *w, qp_body_id id);
/* Clears the flags, except QP_FLAG_OUT_OF_BOUNDS on a frozen body (it stays out of bounds). */
void qp_body_clear_flags(qp_world *w, qp_body_id id);
/* Contact-graph level of the last step: 0 static, 1 resting on static, ...
 * (bodies touching nothing static have the highest level). */
int qp_body_level(const qp_world *w, qp_body_id id);
/* Number of shapes on a body, and shape i of it (null when out of range).
 * Shape offsets are stored relative to the body's centre of mass. */
int qp_body_shape_count(const qp_world *w, qp_body_id id);
const qp_shape *qp_body_shape(const qp_world *w, qp_body_id id, int i);
/* Shape i's filter (the default one for an invalid id or index), and whether it is a sensor. */
qp_shape_filter qp_body_shape_filter(const qp_world *w, qp_body_id id, int i);
bool qp_body_shape_is_sensor(const qp_world *w, qp_body_id id, int i);
/* Set shape i's filter: QP_ERR_INVALID_ID, QP_ERR_RANGE for i outside 0..count-1. Every
 * value of the fields is valid. Wakes the body and the bodies it touches, so that
 * contacts the filter now forbids end at the next step even between sleepers. */
qp_result qp_body_set_shape_filter(qp_world *w, qp_body_id id, int i, qp_shape_filter filter);

/* ---- queries ----------------------------------------------------------------- */

typedef struct {
    qp_body_id body;
    qp_ray_hit hit;
} qp_world_ray_hit;

/* Which shapes a ray may hit: those whose category is in mask, on any body but ignore. */
typedef struct {
    uint16_t mask;                /* categories the ray hits; default 0xFFFF (all) */
    qp_body_id ignore;            /* a body the ray passes through; default null (none) */
} qp_ray_filter;

qp_ray_filter qp_default_ray_filter(void);

/* Nearest hit of origin + t * delta (t in [0, 1]) against every shape except sensors.
 * False (and *out untouched) for a miss, a zero delta or a null pointer. Ties (equal
 * fractions) go to the shape with the lower pool index, on every target. The world's
 * sweep-and-prune order prunes the shapes (src/query.c); the result is the one testing
 * every shape gives. */
bool qp_world_raycast(const qp_world *w, qp_vec3 origin, qp_vec3 delta, qp_world_ray_hit *out);
/* The same through a filter (null: none). An ignore id that names no live body ignores nothing. */
bool qp_world_raycast_filtered(const qp_world *w, qp_vec3 origin, qp_vec3 delta, const qp_ray_filter *filter,
                               qp_world_ray_hit *out);

/* ---- events ---------------------------------------------------------------------- */

/* What the step reports, read after it (never callbacks inside it), in this world's
 * fixed buffers (QP_CFG_MAX_EVENTS each). They are outputs, not state: neither hashed
 * nor in snapshots (a restored world starts with none).
 *
 * Lifetime: each buffer holds the events of the calls made since the last step
 * (destroying a body, waking one), in call order, then those of the last step, sorted
 * by integer keys (body indices and shape slots, below), so the order is the same on
 * every target. qp_world_step drops what the previous readout held when it starts: read
 * them once after each step. What did not fit is counted by qp_world_events_lost (a
 * buffer the last step filled has no room for the events of calls until the next step). */
enum {
    QP_EVENT_BEGIN = 0,           /* a contact or an overlap began */
    QP_EVENT_END = 1,             /* it ended */
    QP_EVENT_SLEPT = 2,           /* a body fell asleep */
    QP_EVENT_WOKE = 3,            /* a body woke */
    QP_EVENT_BROKE = 4            /* a joint broke */
};

/* A contact begins when a manifold appears between two shapes (points within the
 * contact margin, touching or about to) and ends when it disappears: the shapes moved
 * apart, a body was destroyed, a filter changed, or the contact pool was full. A contact
 * between sleeping bodies (or a sleeper and a static body) persists: it does not end.
 * Sorted by (a.index, b.index, shape_a, shape_b), an end before a begin of the same key. */
typedef struct {
    qp_body_id a, b;              /* a.index < b.index; ids as they were (a destroyed body's is stale) */
    uint8_t shape_a, shape_b;     /* shape slots on a and b */
    uint8_t kind;                 /* QP_EVENT_BEGIN or QP_EVENT_END */
    uint8_t pad0;                 /* zero */
    qp_vec3 point;                /* world, m: the manifold's centroid (end: as last seen) */
    qp_vec3 normal;               /* unit, Q2.30, from a towards b */
    fix16_t impulse;              /* N s, >= 0: the total normal impulse of the contact over the step it
                                     began (collision and contact passes); end: the last step's (contact pass) */
} qp_contact_event;

/* A non-sensor shape (the visitor) began or stopped overlapping a sensor shape, judged at
 * the step's detection poses like contacts. An overlap persists while both bodies sleep
 * (or one is static). Sorted by (lower body index, higher body index, their shape slots). */
typedef struct {
    qp_body_id sensor, visitor;
    uint8_t sensor_shape, visitor_shape; /* shape slots */
    uint8_t kind;                 /* QP_EVENT_BEGIN or QP_EVENT_END */
    uint8_t pad0;                 /* zero */
} qp_sensor_event;

/* A body fell asleep or woke. Sorted by body index (a body's events in the order they happened). */
typedef struct {
    qp_body_id body;
    uint8_t kind;                 /* QP_EVENT_SLEPT or QP_EVENT_WOKE */
    uint8_t pad0[3];              /* zero */
} qp_body_event;

/* A joint broke: its load in the step exceeded its break_impulse (joint.h), and the step
 * removed it. Sorted by joint index. */
typedef struct {
    qp_joint_id joint;            /* the id it had (now stale) */
    qp_body_id a, b;              /* its bodies */
    fix16_t load;                 /* N s: the load that broke it */
    uint8_t kind;                 /* QP_EVENT_BROKE */
    uint8_t pad0[3];              /* zero */
} qp_joint_event;

/* The events to read: their number, and *out (if out) pointing at the first. The
 * pointer stays valid until the next step or call that raises events. */
int qp_world_contact_events(const qp_world *w, const qp_contact_event **out);
int qp_world_sensor_events(const qp_world *w, const qp_sensor_event **out);
int qp_world_body_events(const qp_world *w, const qp_body_event **out);
int qp_world_joint_events(const qp_world *w, const qp_joint_event **out);
/* Events of this readout that did not fit their buffer (all kinds). */
uint32_t qp_world_events_lost(const qp_world *w);

/* One persistent contact (a touching or nearly touching pair of shapes) as the last step
 * left it, for viewers and debugging: read-only, and nothing here changes the world. */
typedef struct {
    qp_body_id a, b;              /* the two bodies, a's index lower than b's */
    int shape_a, shape_b;         /* which of each body's shapes (0-based, qp_body_shape) */
    qp_vec3 normal;               /* unit normal from a towards b, Q2.30 (not Q16.16) */
    int count;                    /* points, 1..QP_MAX_MANIFOLD_POINTS */
    qp_vec3 points[QP_MAX_MANIFOLD_POINTS];  /* world points, m: a's centre of mass now plus the
                                                arm the narrow phase found this step (exact while
                                                both sleep; otherwise within one step's motion) */
    fix16_t depth[QP_MAX_MANIFOLD_POINTS];   /* m; penetration at the start of the step, < 0 a gap */
    fix16_t impulse[QP_MAX_MANIFOLD_POINTS]; /* N s; accumulated normal impulse of the step, >= 0 */
    bool sleeping;                /* neither body moves (asleep, static or frozen): not solved */
} qp_contact_info;

/* Contacts of the last step (or of a restored snapshot), 0 before the first step of a
 * new world. Index them 0..count-1: the order is the engine's (by body indices, then
 * shapes), the same on every target. qp_world_contact_at fills *out and returns true,
 * or returns false (out untouched) for an index out of range or a null argument. */
int qp_world_contact_count(const qp_world *w);
bool qp_world_contact_at(const qp_world *w, int i, qp_contact_info *out);

/* ---- determinism --------------------------------------------------------------- */

/* 32-bit hash (FNV-1a over values, so the same on every target whatever its byte order)
 * of every bit of state that can change a later step (docs/design.md §8):
 *   - the world definition, every field;
 *   - every used body slot: index, generation, state (used, dynamic, kinematic, asleep, frozen,
 *     still: its contacts may keep their manifolds),
 *     user flags, centre x, rotation q, velocities v and w, pending force and torque,
 *     local centre, local inverse inertia, mass and inverse mass, friction, static
 *     friction, restitution, rolling resistance (when not 0), user data, the sleep test's counters (still and awake
 *     steps), energy average and three boxes, and each shape's pool index, geometry,
 *     sensor flag, filter and box (a body that does not move keeps its box until it moves);
 *   - every free slot that was used: its generation (the next body's id there);
 *   - every contact, in the array's order (sorted by bodies and shape slots): bodies,
 *     shape slots, point count, flags (sliding decides whether the friction anchors are
 *     kept; how many steps in a row its manifold was kept), normal, friction anchors,
 *     friction impulses, and per point its feature id, arm, normal impulse and depth: what
 *     warm-starts and anchors the next step, and what a manifold kept reuses;
 *   - every sensor overlap (which begin and end events the next step raises);
 *   - every joint slot: a live joint's bodies, type, flags, anchors, axes, limits or
 *     lengths, drift time and accumulated impulses (a fixed, slider or cone joint, or one
 *     with a motor, spring or break impulse, also those options and their impulses); a
 *     freed one's generation. Not a joint's load, which reports the last step.
 * Not covered, because no later step can see a change of it: what is derived from the
 * state above and kept in step with it (rotation matrices and world inertia, the broad
 * phase's sort order, the contact adjacency, the highest used slot); per-step scratch
 * that a stage of every step writes before the step reads it (contact-graph levels,
 * islands, loads, pairs, solver rows, predicted poses, contact centroids and split
 * impulses); the statistics and events, which only report. The pool sizes (config.h) change
 * results only when a pool is full, which raises QP_FLAG_CONTACTS_LOST, covered.
 * Equal on every target for the same history; a restored world hashes as the saved one. */
uint32_t qp_world_hash(const qp_world *w);
/* The part of qp_world_hash for one body (its fields and shapes as listed above, from
 * QP_HASH_INIT): cheap, for naming the first body whose state diverged. 0 for an invalid
 * id. qp_world_hash feeds each used slot's body hash, so two worlds whose world hashes
 * differ have a body hash that differs unless the difference is in the definition, a
 * free slot's generation or the contacts. */
uint32_t qp_body_hash(const qp_world *w, qp_body_id id);

#include "qphys/world_impl.h"

/* Snapshot: the world's state in a portable byte format (src/snapshot.c): the same
 * bytes on every target, little-endian, versioned, with a CRC-32, holding only live
 * bodies, shapes (with their filters and sensor flags), contacts, sensor overlaps and joints
 * (stack20 about 5 KB); not events, which a restored world starts without. qp_world_snapshot writes it into buf
 * and returns its size; when size is smaller (or buf null) it writes nothing and returns
 * the size needed. QP_SNAPSHOT_MAX_SIZE bounds it for a world of the default capacities.
 * qp_world_restore restores into an initialised world (or a static qp_world never
 * initialised, which gets the default capacities), keeping its capacities, and
 * validates everything (header, CRC, counts against the world's capacities,
 * every index, every number's range, and what the numbers mean together: an inverse mass and
 * inertia that are the body's own, sleepers at rest, frozen bodies flagged; docs/security.md
 * lists every check) before writing anything: QP_ERR_BUFFER for a
 * damaged, truncated or inconsistent snapshot, QP_ERR_FULL for a sound one of a world
 * larger than w's capacities (qp_snapshot_caps says which), QP_ERR_PARAM for one naming a
 * level shape (mesh or heightfield, by checksum) that w does not hold, and w as it was. Ids: a
 * restored world has
 * the generations it had when saved, so an id of a body created after the snapshot and
 * destroyed by the rollback is stale again, or names the body that now holds its slot
 * only if that body has the same generation. */
#define QP_SNAPSHOT_MAX_SIZE                                                                                 \
    (QP_SNAPSHOT_SIZE(QP_CFG_MAX_BODIES, QP_CFG_MAX_SHAPES, QP_CFG_MAX_CONTACTS, QP_CFG_MAX_SENSOR_OVERLAPS,    \
                      QP_CFG_MAX_JOINTS) +                                                                     \
     QP_SNAPSHOT_HULL_BYTES * (unsigned long)QP_CFG_MAX_HULLS)
/* What a hull shape adds at most to QP_SNAPSHOT_SIZE (its corners in place of its sizes). */
#define QP_SNAPSHOT_HULL_BYTES (5ul * (1ul + 3ul * (unsigned long)QP_HULL_MAX_POINTS))
/* The most bytes a snapshot of a world takes that never held more than `bodies` body slots
 * (live or freed), `shapes` shapes, `contacts` contacts, `overlaps` sensor overlaps and
 * `joints` joint slots: each varint at its longest (5 bytes). Per body 66 varints, per shape
 * 22, per contact 42 (6 indices and flags, the normal, two anchors, three friction totals,
 * and per point its id, arm, normal impulse and depth), per overlap 4, per joint 47 (35, and
 * 12 for the later kinds' options and impulses); 48 for
 * the world definition, statistics and section counts. A program sizes its buffers for its
 * own worst case with it (examples/lockstep/peer.h). */
#define QP_SNAPSHOT_SIZE(bodies, shapes, contacts, overlaps, joints)                                          \
    (24ul + 4ul * (unsigned long)(bodies) + 2ul * (unsigned long)(shapes) +                                  \
     5ul * (48ul + 67ul * (unsigned long)(bodies) + 22ul * (unsigned long)(shapes) +                          \
            42ul * (unsigned long)(contacts) + 4ul * (unsigned long)(overlaps)) +                             \
     5ul * (1ul + 47ul * (unsigned long)(joints)))
unsigned long qp_world_snapshot(const qp_world *w, void *buf, unsigned long size);
qp_result qp_world_restore_checked(qp_world *w, const void *buf, unsigned long size, uint32_t config_signature,
                                  unsigned long world_size, const qp_world_caps *caps);
#define qp_world_restore(w, buf, size) \
    qp_world_restore_checked((w), (buf), (size), QP_CONFIG_SIGNATURE, (unsigned long)sizeof(qp_world), qp__default_caps())
/* The capacities a world needs to restore this snapshot into (its body and joint slots,
 * shape indices, contacts, sensor overlaps, hull shapes and last step's pairs; events as the
 * default), after
 * the checks qp_world_restore makes: QP_ERR_BUFFER as there, QP_ERR_PARAM for a null
 * argument. With qp_world_caps_short, the name of the capacity a world lacks for it. */
qp_result qp_snapshot_caps(const void *buf, unsigned long size, qp_world_caps *need) QP_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif
