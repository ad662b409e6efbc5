/* SPDX-License-Identifier: MIT */
/* The world: initialisation, the step as a table of contents, statistics (stage "count"). */
#include "body.h"
#include "stages.h"
#include "world_check.h"

static bool in_range(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }
static bool int_in_range(int v, int lo, int hi) { return v >= lo && v <= hi; }

qp_result qp__check_world_def(const qp_world_def *d)
{
    if (qp_v3_max_abs(d->gravity) > QP_INT(1000)) return QP_ERR_RANGE;
    if (!in_range(d->dt, QP_FRAC(1, 1000), QP_FRAC(1, 10))) return QP_ERR_RANGE;
    if (!int_in_range(d->collision_iterations, 0, 100) || !int_in_range(d->contact_iterations, 1, 100) ||
        !int_in_range(d->shock_iterations, 0, 10) || !int_in_range(d->penetration_iterations, 0, 100))
        return QP_ERR_RANGE;
    if (!in_range(d->contact_margin, 0, QP_ONE) || !in_range(d->slop, 0, QP_FRAC(1, 10)) ||
        !in_range(d->gap_tolerance, 0, QP_FRAC(1, 100)) ||
        !in_range(d->penetration_rate, 0, QP_ONE) || !in_range(d->max_penetration_speed, 0, QP_INT(10)) ||
        !in_range(d->bounce_threshold, 0, QP_INT(100)))
        return QP_ERR_RANGE;
    if (!in_range(d->max_linear_speed, QP_ONE, QP_INT(150)) || !in_range(d->max_angular_speed, QP_ONE, QP_INT(100)) ||
        !in_range(d->bounds, QP_INT(1), QP_WORLD_LIMIT))
        return QP_ERR_RANGE;
    if (d->sleep_policy != QP_SLEEP_THREE_POINT && d->sleep_policy != QP_SLEEP_ENERGY) return QP_ERR_PARAM;
    if (!in_range(d->sleep_center_size, 0, QP_LAYOUT_SLEEP_SIZE_MAX) ||
        !in_range(d->sleep_point_size, 0, QP_LAYOUT_SLEEP_SIZE_MAX) ||
        !int_in_range(d->sleep_steps, 1, 60000) || !in_range(d->sleep_energy, 0, QP_INT(100)) ||
        !in_range(d->sleep_energy_bias, 0, QP_ONE - 1) || !in_range(d->wake_energy_factor, QP_ONE, QP_INT(100)) ||
        !in_range(d->wake_speed, 0, QP_INT(100)) || !in_range(d->wake_velocity, 0, QP_INT(100)) ||
        !int_in_range(d->min_awake_steps, 0, 60000))
        return QP_ERR_RANGE;
    return QP_OK;
}

/* Field by field: a struct copy would also copy the caller's padding bytes
 * into the world, and snapshots of equal worlds would differ. */
static void copy_def(qp_world_def *to, const qp_world_def *d)
{
    to->gravity = d->gravity;
    to->dt = d->dt;
    to->collision_iterations = d->collision_iterations;
    to->contact_iterations = d->contact_iterations;
    to->shock_iterations = d->shock_iterations;
    to->penetration_iterations = d->penetration_iterations;
    to->restitution_ramp = d->restitution_ramp;
    to->alternate_sweeps = d->alternate_sweeps;
    to->accumulate_impulses = d->accumulate_impulses;
    to->warm_start = d->warm_start;
    to->contact_margin = d->contact_margin;
    to->slop = d->slop;
    to->gap_tolerance = d->gap_tolerance;
    to->penetration_rate = d->penetration_rate;
    to->max_penetration_speed = d->max_penetration_speed;
    to->bounce_threshold = d->bounce_threshold;
    to->max_linear_speed = d->max_linear_speed;
    to->max_angular_speed = d->max_angular_speed;
    to->bounds = d->bounds;
    to->gyroscopic = d->gyroscopic;
    to->joint_tree = d->joint_tree;
    to->sleep_enabled = d->sleep_enabled;
    to->sleep_policy = d->sleep_policy;
    to->sleep_center_size = d->sleep_center_size;
    to->sleep_point_size = d->sleep_point_size;
    to->sleep_steps = d->sleep_steps;
    to->sleep_energy = d->sleep_energy;
    to->sleep_energy_bias = d->sleep_energy_bias;
    to->wake_energy_factor = d->wake_energy_factor;
    to->wake_speed = d->wake_speed;
    to->wake_velocity = d->wake_velocity;
    to->min_awake_steps = d->min_awake_steps;
}

void qp__world_start(qp_world *w, const qp_world_def *def)
{
    copy_def(&w->def, def);
    w->stats.first_all_asleep_step = -1;
}

qp_result qp_world_init_checked(qp_world *w, const qp_world_def *def, uint32_t config_signature,
                                unsigned long world_size, const qp_world_caps *caps)
{
    if (!qp__world_fits(config_signature, world_size, caps)) return QP_ERR_CONFIG;
    if (!w || !def) return QP_ERR_PARAM;
    qp_result r = qp__check_world_def(def);
    if (r != QP_OK) return r;
    qp__world_own(w, caps);   /* every byte, padding included, so snapshots and hashes see no garbage */
    qp__world_start(w, def);
    return QP_OK;
}

void qp__count_bodies(qp_world *w)
{
    int bodies = 0, awake = 0, asleep = 0;
    for (int i = 1; i <= w->body_high; i++) {
        const qp_body_state *b = &w->bodies[i];
        if (!(b->state & QP_STATE_USED)) continue;
        bodies++;
        if (!(b->state & QP_STATE_DYNAMIC)) continue;
        if (b->state & QP_STATE_ASLEEP) asleep++;
        else awake++;
    }
    w->stats.bodies = bodies;
    w->stats.awake = awake;
    w->stats.asleep = asleep;
    if (awake == 0 && asleep > 0 && w->stats.first_all_asleep_step < 0)
        w->stats.first_all_asleep_step = (int)w->stats.step;
}

/* One step, as a table of contents: the stages in order, by the names docs/design.md §3
 * and each stage file's header comment give them. The benchmarks run the same table
 * stage by stage to time each one. */
const qp__stage qp__step_stages[] = {
    { "events", qp__events_begin },               /* drop the last readout */
    { "predict", qp__predict },                   /* predicted poses */
    { "broad", qp__broad_phase },                 /* detection at them */
    { "narrow", qp__narrow_phase },
    { "overlaps", qp__deep_overlaps },            /* deep ones leave by a free way */
    { "sensors", qp__sensors },
    { "graph", qp__contact_graph },               /* levels and order */
    { "collisions", qp__solve_collisions },       /* elastic pass */
    { "forces", qp__apply_forces },               /* gravity and forces */
    { "rolling", qp__rolling },                   /* rolling resistance */
    { "contacts", qp__solve_contacts },           /* inelastic pass, friction */
    { "shock", qp__shock },                       /* shock propagation */
    { "check sleepers", qp__check_sleepers },     /* sleepers pushed hard enough wake */
    { "penetration", qp__penetration },           /* split impulse */
    { "breaks", qp__break_joints },               /* joints past their break impulse go */
    { "continuous", qp__continuous },             /* fast bodies stop at their time of impact */
    { "integrate", qp__integrate },               /* positions */
    { "project", qp__project_joints },            /* joint trees closed at the new poses */
    { "sleep", qp__sleep },                       /* sleep and wake */
    { "bounds", qp__sap_refresh },                /* boxes at the new poses, for queries */
    { "count", qp__count_bodies },                /* awake and asleep counts */
    { "events out", qp__events_end },             /* events in order, for the caller */
};
const int qp__step_stage_count = (int)(sizeof qp__step_stages / sizeof qp__step_stages[0]);

/* Does any body move? When none does (all asleep, static or frozen), no stage
 * can change anything: sleeping contacts come back from the pool as they
 * were, and a sleeper only wakes through a call that wakes it at once. */
static bool anything_moves(const qp_world *w)
{
    for (int i = 1; i <= w->body_high; i++)
        if (qp__body_moves(&w->bodies[i]) || qp__body_drives(&w->bodies[i])) return true;
    return false;
}

void qp_world_step(qp_world *w)
{
    w->stats.step++;
    if (!anything_moves(w)) {
        w->stats.pairs = 0;   /* nothing was collided */
        qp__events_begin(w);
        qp__count_bodies(w);
        qp__events_end(w);
        return;
    }
    for (int i = 0; i < qp__step_stage_count; i++) qp__step_stages[i].run(w);
}

qp_world_stats qp_world_get_stats(const qp_world *w)
{
    return w->stats;
}

const qp_world_def *qp_world_get_def(const qp_world *w)
{
    return &w->def;
}

int qp_world_capacity(void)
{
    return QP_CFG_MAX_BODIES;
}

int qp_world_body_capacity(const qp_world *w)
{
    return qp__cap_bodies(w);
}
