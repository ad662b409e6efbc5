/* Internal interface between the step's stages (one source file each). */
#ifndef QPHYS_WORLD_INTERNAL_H
#define QPHYS_WORLD_INTERNAL_H

#include "qphys/joint.h"
#include "qphys/record.h"
#include "qphys/world.h"
#include "compiler.h"
#include "bench_count.h"

/* Largest entry of a body's inverse inertia (1/(kg m^2)): a 0.1 m, 0.1 kg
 * cube has 6000. Bodies beyond it are rejected at creation (QP_ERR_RANGE). */
#define QP_INV_INERTIA_MAX QP_INT(10000)
/* Inertia below this on an axis (kg m^2) is raised by it on every axis at
 * creation: adding f E keeps the tensor's axes and makes every eigenvalue
 * >= f, so the inverse stays within QP_INV_INERTIA_MAX = 1 / f. */
#define QP_INERTIA_FLOOR QP_FRAC(1, 10000)

/* A body the step moves: used, dynamic, awake, not frozen. */
static inline bool qp__body_moves(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_ASLEEP | QP_STATE_FROZEN)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC);
}

/* A body that takes impulses: used, dynamic, not frozen (sleepers too: a
 * sleeper pushed hard enough wakes after the contact pass). */
static inline bool qp__body_dynamic(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_DYNAMIC | QP_STATE_FROZEN)) ==
           (QP_STATE_USED | QP_STATE_DYNAMIC);
}

/* A body is still (QP_STATE_STILL, integrate.c) when neither its velocity nor its spin, split
 * impulse included, is above this many units a second on any axis: 8 units, 1.2e-4 m/s
 * (rad/s), 2 millionths of a metre a step at 60 Hz. Most cubes of a resting pile are, every
 * step; anything set moving, pushed by a call or falling is not. */
#define QP_STILL_SPEED 8

/* The next narrow phase may keep the manifold of a contact with these flags and points, as
 * far as the contact says (narrow_phase.c asks its bodies too): found or kept fewer than
 * twice in a row, touching, neither asleep, swept nor spawned inside. Only then are its
 * depths state (hashed and in snapshots): any other contact's are found again before they
 * are read. */
#define QP_KEPT_SHIFT 6
#define QP_KEPT_MAX 2u
_Static_assert(QP_CONTACT_KEPT == 3u << QP_KEPT_SHIFT, "the kept count is the flags' two top bits");
static inline bool qp__contact_depths_live(unsigned flags, int count)
{
    return count > 0 && (flags >> QP_KEPT_SHIFT) < QP_KEPT_MAX &&
           !(flags & (QP_CONTACT_SLEEPING | QP_CONTACT_SWEPT | QP_CONTACT_OVERLAP));
}

/* A kinematic body that moves this step (used, not frozen, a velocity not zero): it
 * drives what it touches (broad phase, sleep), like an awake dynamic body does. */
static inline bool qp__body_drives(const qp_body_state *b)
{
    return (b->state & (QP_STATE_USED | QP_STATE_KINEMATIC | QP_STATE_FROZEN)) ==
               (QP_STATE_USED | QP_STATE_KINEMATIC) &&
           (b->v.x | b->v.y | b->v.z | b->w.x | b->w.y | b->w.z) != 0;
}

/* Nothing moves it this step: neither an awake dynamic body nor a kinematic one in motion. */
static inline bool qp__body_held(const qp_body_state *b)
{
    return !qp__body_moves(b) && !qp__body_drives(b);
}

/* A body's rotation matrix and world inverse inertia: kept up to date by
 * qp__body_sync, or (QP_CFG_LOW_RAM) computed here by the same functions. */
static inline qp_rot3 qp__body_rot(const qp_body_state *b)
{
#if QP_CFG_LOW_RAM
    return qp_quat_to_rot3(b->q);
#else
    return b->r;
#endif
}

static inline qp_mat3 qp__body_inv_inertia(const qp_body_state *b)
{
#if QP_CFG_LOW_RAM
    if (!(b->state & QP_STATE_DYNAMIC)) return qp_mat3_zero();
    qp_rot3 r = qp_quat_to_rot3(b->q);
    return qp_mat3_rotate(&r, &b->inv_inertia_local);
#else
    return b->inv_inertia;
#endif
}

/* The impulses of a contact between light bodies are kept in units of 2^-shift N s:
 * in N s, Q16.16 resolves a velocity change of 1.5e-5 / m only, which for a 0.1 kg
 * cube (about 1 mm/s) let columns of them creep 2-4 cm in 10 s. The shift is
 * floor(log2(K / 2)) for K = the sum of the inverse masses (kg^-1), 0 to
 * QP_IMPULSE_SHIFT_MAX: 0, the plain N s, for any pair whose inverse masses sum to
 * under 4 (two bodies of 0.5 kg or more, or one of 0.25 kg or more on static ground).
 * Every effective mass of the contact's rows is scaled by 2^shift (solver.c), so its
 * impulses, totals and warm start are in that unit throughout, and applying one divides
 * the shift out. A function of the two masses only, so it needs no storage. */
#define QP_IMPULSE_SHIFT_MAX 6
static inline int qp__impulse_shift(const qp_body_state *a, const qp_body_state *b)
{
    uint32_t s = (uint32_t)(((int64_t)a->inv_mass + b->inv_mass) >> 17);   /* K / 2, whole */
    int shift = 0;
    while (s > 1 && shift < QP_IMPULSE_SHIFT_MAX) {
        s >>= 1;
        shift++;
    }
    return shift;
}
static inline int qp__contact_shift(const qp_world *w, const qp_contact *c)
{
    return qp__impulse_shift(&w->bodies[c->a], &w->bodies[c->b]);
}
/* A contact's impulse in N s (events, queries). */
static inline fix16_t qp__contact_impulse(const qp_world *w, const qp_contact *c, int64_t j)
{
    int shift = qp__contact_shift(w, c);
    int64_t v = shift == 0 ? j : (j + (INT64_C(1) << (shift - 1))) >> shift;
    return v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : (fix16_t)v;
}

/* The arm from b's centre of mass to point k of contact c. */
static inline qp_vec3 qp__arm_b(const qp_contact *c, int k)
{
    return qp_v3_add(c->p[k].ra, c->ab);
}

/* The sort key of a shape pair or contact: (body a, body b, slot a, slot b). */
static inline uint64_t qp__contact_key(int a, int b, int sa, int sb)
{
    return ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)sa << 8) | (uint64_t)sb;
}

static inline uint64_t qp__pair_key(const qp_world *w, const qp_pair *p)
{
    const qp_shape_slot *a = &w->shapes[p->a], *b = &w->shapes[p->b];
    return qp__contact_key(a->body, b->body, a->slot, b->slot);
}

/* May two shapes of different bodies make a pair (qp_shape_filter's rule; sensors do
 * not see sensors)? */
static inline bool qp__shapes_pair(const qp_shape_slot *a, const qp_shape_slot *b)
{
    if (a->flags & b->flags & QP_SHAPE_SENSOR) return false;
    if (a->filter.group == b->filter.group && a->filter.group != 0) return a->filter.group > 0;
    return (a->filter.category & b->filter.mask) != 0 && (b->filter.category & a->filter.mask) != 0;
}

/* Is either shape of a pair a sensor? */
static inline bool qp__pair_is_sensor(const qp_world *w, const qp_pair *p)
{
    return ((w->shapes[p->a].flags | w->shapes[p->b].flags) & QP_SHAPE_SENSOR) != 0;
}

/* Events (events.c): raised where they happen, read after the step. */
void qp__event_contact(qp_world *w, int kind, int a, int b, int sa, int sb, qp_vec3 point, qp_vec3 normal,
                       fix16_t impulse);
void qp__event_contact_end(qp_world *w, const qp_contact *c);   /* from a contact as it is */
void qp__event_sensor(qp_world *w, int kind, const qp_pair *p);
void qp__event_body(qp_world *w, int kind, int body);

/* Were the caller's headers compiled with the library's pool sizes and options? */
bool qp__config_ok(uint32_t config_signature, unsigned long world_size);
/* Every field of a world definition within its range? (world.c) */
qp_result qp__check_world_def(const qp_world_def *d);
/* The contact graph's adjacency from the contacts (contact_graph.c). */
void qp__build_adjacency(qp_world *w);

/* The stages of qp_world_step, in order (docs/design.md §3). */
void qp__events_begin(qp_world *w);     /* events.c: drop the last readout */
void qp__predict(qp_world *w);          /* predict.c: predicted poses for detection */
void qp__broad_phase(qp_world *w);      /* broad_phase.c: sweep and prune -> pairs */
void qp__narrow_phase(qp_world *w);     /* narrow_phase.c: manifolds, persistence */
void qp__sensors(qp_world *w);          /* sensor.c: sensor overlaps begin and end */
void qp__contact_graph(qp_world *w);    /* contact_graph.c: levels and solve order */
void qp__solve_collisions(qp_world *w); /* solve_collisions.c: elastic pass */
void qp__apply_forces(qp_world *w);     /* integrate.c: gravity and user forces */
void qp__solve_contacts(qp_world *w);   /* solve_contacts.c: inelastic pass + friction */
void qp__shock(qp_world *w);            /* shock.c: shock propagation by levels */
void qp__check_sleepers(qp_world *w);   /* sleep.c: sleepers pushed by the passes wake */
void qp__penetration(qp_world *w);      /* penetration.c: split impulse */
void qp__continuous(qp_world *w);       /* continuous.c: fast bodies stop at their time of impact */
void qp__integrate(qp_world *w);        /* integrate.c: positions from final velocities */
void qp__sleep(qp_world *w);            /* sleep.c: islands, three-point / energy tests */
/* Islands as a union-find over bodies[].island (sleep.c), which qp__sleep sets anew each step: until
 * then a pass may use it as scratch (solve_contacts.c). The root of i's island, halving paths; and
 * a's and b's islands joined under the lower root, returning the root put under it (0: one already). */
int qp__island_find(qp_world *w, int i);
int qp__island_join(qp_world *w, int a, int b);
void qp__sap_refresh(qp_world *w);      /* broad_phase.c: boxes at the new poses, kept sorted for queries */
void qp__events_end(qp_world *w);       /* events.c: begin impulses, order */
void qp__count_bodies(qp_world *w);     /* world.c: awake/asleep counts, first all-asleep step */

/* qp_world_step is this table, run in order (world.c); benchmarks time it stage by stage. */
typedef struct {
    const char *name;
    void (*run)(qp_world *w);
} qp__stage;
extern const qp__stage qp__step_stages[];
extern const int qp__step_stage_count;

/* The input log (record.c): one entry for a mutating call that succeeded (body.c, joint.c). */
void qp__record_input(qp_world *w, qp_input_kind kind, qp_body_id id, const qp_vec3 *a, const qp_vec3 *b,
                      const qp_quat *q, const qp_body_def *def);
void qp__record_shape_filter(qp_world *w, qp_body_id id, int shape, qp_shape_filter filter);
void qp__record_joint(qp_world *w, qp_input_kind kind, qp_joint_id id, const qp_joint_def *def);
/* joint.c: the checks of a joint def that need no world (record.c refuses what fails them). */
qp_result qp__joint_def_check_values(const qp_joint_def *d);

/* Deep overlaps (overlap.c): a stage after the narrow phase, where a deep contact with
 * static geometry whose way out is blocked takes a free one (or flags its body), and
 * dynamic pairs that begin deep inside each other are marked QP_CONTACT_OVERLAP; in the
 * penetration pass, the sides (QP_MOVE_* bits) of such a pair that may move: up, never
 * down, and never into static geometry they touch. */
void qp__deep_overlaps(qp_world *w);
int qp__deep_sides(qp_world *w, const qp_contact *c, int move);

/* Helpers shared by stages. */
/* A round shape (sphere, capsule) touches in c: only such a contact holds static
 * friction anchors (narrow_phase.c, penetration.c), so only its drift is found (solver.c).
 * Inline: three stages ask it of every contact every step. */
static inline bool qp__shape_round(const qp_world *w, int body, int slot)
{
    qp_shape_type t = w->shapes[w->bodies[body].shapes[slot]].shape.type;
    return t == QP_SHAPE_SPHERE || t == QP_SHAPE_CAPSULE;
}
static inline bool qp__contact_round(const qp_world *w, const qp_contact *c)
{
    return qp__shape_round(w, c->a, c->sa) || qp__shape_round(w, c->b, c->sb);
}
void qp__predicted_velocity(const qp_world *w, const qp_body_state *b, qp_vec3 *v, qp_vec3 *omega);
void qp__body_sync(qp_body_state *b);   /* rotation matrix and world inertia from q (if kept) */
void qp__body_update_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r);
/* Half the thickness of a shape's thinnest part (sphere and capsule:
 * radius; box: smallest half extent; plane: unbounded). A body that moves
 * more than about this in a step can pass through what it meets. */
static inline fix16_t qp__shape_core(const qp_shape *s)
{
    if (s->type == QP_SHAPE_PLANE) return INT32_MAX;
    if (s->type != QP_SHAPE_BOX) return s->radius;
    fix16_t c = s->half.x < s->half.y ? s->half.x : s->half.y;
    return c < s->half.z ? c : s->half.z;
}

/* Grow the body's shape boxes to hold them at pose (x, r) too: a fast body's
 * boxes cover its whole sweep, start to predicted pose. */
void qp__body_sweep_aabbs(qp_world *w, int body, const qp_vec3 *x, const qp_rot3 *r);
qp_transform qp__shape_world(const qp_world *w, int shape, const qp_vec3 *x, const qp_rot3 *r);
void qp__wake_body(qp_world *w, int body);  /* wake one body and everything resting on it */
/* The same, walking the contacts in two index ranges instead of last step's contact graph:
 * the narrow phase rewrites the pool in place as it goes, and last step's adjacency then
 * names contacts that are this step's now (pairs already collided) or were moved up (lift). */
typedef struct {
    int lo[2], hi[2];
} qp__contact_spans;
void qp__wake_body_among(qp_world *w, int body, const qp__contact_spans *spans);
void qp__wake_touching(qp_world *w, int body); /* wake every sleeper in contact with body (kinematic moved) */
/* The higher level of c's bodies; its lower body, -1 if both are on one level (inline: the
 * shock pass asks them at every visit). */
static inline int qp__contact_level(const qp_world *w, const qp_contact *c)
{
    int la = w->bodies[c->a].level, lb = w->bodies[c->b].level;
    return la > lb ? la : lb;
}
static inline int qp__contact_lower(const qp_world *w, const qp_contact *c)
{
    int la = w->bodies[c->a].level, lb = w->bodies[c->b].level;
    return la < lb ? c->a : lb < la ? c->b : -1;
}
/* The mass, centre and inertia qp_create_body would compute for a dynamic def: QP_OK or why not. */
qp_result qp__body_mass_check(const qp_body_def *def);
/* The inverse inertia (body frame) and centre of mass of shapes sharing mass by volume, as
 * qp_create_body computes them for a body of that mass: QP_OK or why not (snapshot.c checks
 * a restored body against it). */
bool qp__mat3_positive_definite(const qp_mat3 *a);   /* symmetric, positive definite, exactly (math.c) */
qp_result qp__body_inverse_inertia(const qp_shape *shapes, int count, fix16_t mass, qp_mat3 *inv_inertia,
                                   qp_vec3 *center);
fix16_t qp__clamp_speed(qp_vec3 *v, fix16_t max); /* returns 1 if clamped */
/* Body i's spin clamped (and flagged) now, as integrate would clamp it, if it moves:
 * the collision and contact passes clamp after each sweep, so that the approach an
 * off-centre impulse left at its point once the clamp took its spin is seen by the
 * next sweep (a 0.1 m box hit 2 cm off centre at 100 m/s asks for 960 rad/s; with
 * the clamp after the passes only, it ploughed on into what it hit). True if it was. */
bool qp__clamp_spin_past(qp_world *w, int i);   /* the rare case, out of line */
static inline bool qp__clamp_spin(qp_world *w, int i)
{
    const qp_body_state *b = &w->bodies[i];
    if (!qp__body_moves(b)) return false;
    uint64_t sq = (uint64_t)((int64_t)b->w.x * b->w.x) + (uint64_t)((int64_t)b->w.y * b->w.y) +
                  (uint64_t)((int64_t)b->w.z * b->w.z);
    return sq > (uint64_t)((int64_t)w->def.max_angular_speed * w->def.max_angular_speed) && qp__clamp_spin_past(w, i);
}

/* Joints (joint.c, solve_joints.c; docs/design.md §7). */
void qp__joint_rows(const qp_world *w, const qp_joint *j, qp_joint_rows *r);
void qp__destroy_body_joints(qp_world *w, int body);  /* each wakes the other body */
bool qp__joined(const qp_world *w, int a, int b);     /* a joint keeps a and b from colliding */
void qp__prepare_joints(qp_world *w);                 /* rows and order, once per step */
bool qp__collide_joints(qp_world *w);                 /* one sweep of the collision pass */
void qp__warm_joints(qp_world *w);                    /* contact pass: last step's impulses */
bool qp__solve_joints(qp_world *w, bool reverse);     /* one sweep of the contact pass; true if it applied any */
bool qp__drift_joints(qp_world *w);                   /* one sweep of the penetration pass */

#endif
