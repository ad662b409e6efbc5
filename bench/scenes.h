/* SPDX-License-Identifier: MIT */
/* bench/scenes.h - the named scenes of docs/design.md §9 built through the qphys API.
 *
 * Integer and fixed-point only (no float, no heap): the same file runs on the
 * host (bench/bench_host.c) and on the boards (bench/bench_target.c).
 *
 * Common settings (docs/design.md §9): gravity (0, -10, 0), step 1/60 s, 10 contact
 * iterations, static ground plane y = 0, unit cubes (half extents 0.5) of
 * 1 kg, friction 0.5, restitution 0, all at rest, axis-aligned unless the
 * scene turns them. Every other world setting is qp_default_world_def().
 *
 * Dynamic body n (0-based, in the order of docs/design.md §9) is body slot n + 2 (after the ground),
 * so the checks find its start pose whatever slot it landed in.
 */
#ifndef QP_BENCH_SCENES_H
#define QP_BENCH_SCENES_H

#include <stdbool.h>
#include "qphys/world.h"

typedef enum {
    QPB_STACK20 = 0,
    QPB_STACK50,
    QPB_PYRAMID20,
    QPB_RAIN512,
    QPB_SCENE_COUNT
} qpb_scene;

/* "stack20", "stack50", "pyramid20", "rain512" (NULL out of range). */
const char *qpb_scene_name(qpb_scene s);
/* Steps docs/design.md §9 gives the scene (600 for all four). */
int qpb_scene_steps(qpb_scene s);
/* Dynamic bodies in the scene (20, 50, 210, 512). */
int qpb_scene_bodies(qpb_scene s);
/* Start pose of dynamic body n (0-based). */
void qpb_scene_pose(qpb_scene s, int n, qp_vec3 *pos, qp_quat *rot);

/* The world definition of every scene: docs/design.md §9 settings, sleep on or off
 * (sleep on: the default policy, QP_SLEEP_THREE_POINT). */
qp_world_def qpb_world_def(bool sleep);
/* The same with sleep on and the given sleep policy. */
qp_world_def qpb_world_def_policy(qp_sleep_policy policy);
/* qp_world_init(w) and create the ground and every body. QP_OK or the first error. */
qp_result qpb_scene_build(qp_world *w, qpb_scene s, bool sleep);
/* The same from a world definition (e.g. qpb_world_def_policy). */
qp_result qpb_scene_build_def(qp_world *w, qpb_scene s, const qp_world_def *def);
/* "three-point", "energy" (key=value friendly: no spaces). */
const char *qpb_policy_name(qp_sleep_policy p);

/* Does the scene still stand (docs/design.md §9 / benchmark criteria)?
 *   stacks : the top cube moved < 5 cm horizontally and sagged (|dy|) < 2 cm;
 *   pyramid: no cube moved more than 5 cm;
 *   rain512: no criterion (applies = false).
 * Figures in Q16.16 metres. */
typedef struct {
    bool applies;
    bool stands;
    fix16_t drift;     /* stacks: horizontal move of the top cube */
    fix16_t sag;       /* stacks: start y - end y of the top cube */
    fix16_t max_move;  /* largest displacement of any cube */
} qpb_verdict;

qpb_verdict qpb_scene_check(const qp_world *w, qpb_scene s);

#define QPB_DRIFT_LIMIT QP_FRAC(5, 100)  /* 5 cm */
#define QPB_SAG_LIMIT   QP_FRAC(2, 100)  /* 2 cm */
#define QPB_MOVE_LIMIT  QP_FRAC(5, 100)  /* 5 cm (pyramid) */

#endif
