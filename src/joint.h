/* SPDX-License-Identifier: MIT */
/* Joints inside the world (joint.c: the pool; solve_joints.c: their rows in the
 * velocity passes; docs/design.md, "Joints"). */
#ifndef QPHYS_JOINT_INTERNAL_H
#define QPHYS_JOINT_INTERNAL_H

#include "qphys/joint.h"
#include "qphys/world.h"

/* joint.c: the checks of a joint def that need no world (the replayer refuses what fails them). */
qp_result qp__joint_def_check_values(const qp_joint_def *d);
bool qp__joint_def_extended(const qp_joint_def *d);   /* needs the longer create entry */
void qp__destroy_body_joints(qp_world *w, int body);  /* each wakes the other body */
bool qp__joined(const qp_world *w, int a, int b);     /* a joint keeps a and b from colliding */

/* solve_joints.c */
void qp__joint_rows(const qp_world *w, const qp_joint *j, qp_joint_rows *r);
void qp__prepare_joints(qp_world *w);                 /* rows and order, once per step */
bool qp__joint_tree_prepare(qp_world *w);             /* solve_joint_tree.c: the trees, factored */
bool qp__joint_tree_factor_now(qp_world *w, bool again); /* the same at the present poses */
/* The rows the projection solves at the present poses, and the limit rows past (QP_TREE_*
 * of joint_tree.h): err[0] a cone's swing past its cone, err[1] a cone's twist or a hinge's
 * angle past a limit, each the turn along its row that brings it back (rad). */
fix16_t qp__limit_room(const qp_joint *j, fix16_t value, bool upper);   /* inside an angle limit, the short way */
unsigned qp__joint_tree_rows_now(const qp_world *w, const qp_joint *j, qp_joint_rows *r, fix16_t err[2]);
/* The trees' positions [lo, hi) from position lo: hi, the end of the span that no coupling
 * leaves (one tree, or trees a loop's joint couples), which solves exactly on its own. */
int qp__joint_tree_span(const qp_world *w, int lo);
/* Both ends of every live joint as keys body << 16 | tag, sorted (solve_joint_tree.c, trees
 * compiled in): a body's joints are one run, in the order of their tags, the slot or, by_order,
 * the place in w->joint_order. The walks over joints that share a body take a joint's
 * neighbours from its two bodies' runs: testing every joint costs a world of n joints n^2.
 * Valid until the trees are factored. */
int qp__joint_ends(qp_world *w, bool by_order, const uint32_t **keys);
int qp__joint_ends_of(const uint32_t *keys, int n, int body);   /* its run's first key (n: none) */
/* The keys by slot kept from the broad phase until the trees are factored, for qp__joined
 * (a pair of bodies is tested against a's joints, not against every joint; a no-op without
 * the trees), and those kept keys' count (-1: none kept). */
void qp__joint_ends_keep(qp_world *w);
int qp__joint_ends_kept(const qp_world *w, const uint32_t **keys);
/* The next tag of bodies a's and b's runs (0: no body) past the cursors *ia and *ib (each
 * its run's first at the start), in increasing order, a tag in both runs once; -1: done. */
int qp__joint_ends_next(const uint32_t *keys, int n, int a, int b, int *ia, int *ib);
/* joint_tree.h's vec at positions [lo, hi) (such spans, or all: 0, count): right-hand sides
 * in, impulses out. */
void qp__joint_tree_solve(qp_world *w, int lo, int hi);
bool qp__joint_tree_refactor(qp_world *w, int lo, int hi);  /* the velocity passes' trees again, with the limit rows of lim */
/* The directions of a joint's angular rows in the velocity passes' tree (after its three
 * point rows): a hinge's two alignment rows, then the limit rows of lim; their count (<= 3). */
int qp__joint_tree_dirs(const qp_joint_rows *r, int type, unsigned lim, qp_vec3 *dir);
bool qp__collide_joints(qp_world *w);                 /* one sweep of the collision pass */
void qp__warm_joints(qp_world *w);                    /* contact pass: last step's impulses */
bool qp__solve_joints(qp_world *w, bool reverse);     /* one sweep of the contact pass; true if it applied any */
/* The contact pass, after a visit changed the velocities of bodies a and b (0: a side that
 * does not move): the joints' friction and one exact solve of the trees holding either (of
 * up to 32 joints a span: solve_joints.c, ANSWER_SPAN), their bodies marked moved at visit
 * (quiet.h); true if it applied any. */
bool qp__answer_contact(qp_world *w, int a, int b, uint32_t visit);
bool qp__drift_joints(qp_world *w);                   /* one sweep of the penetration pass */
bool qp__drift_trees(qp_world *w);                    /* the trees' drift rows alone, once */
/* A joint's option (QP_CFG_JOINT_OPTIONS) to read: 0 in a build without them. */
#if QP_CFG_JOINT_OPTIONS
#define QP__DRIVE(j, field) ((j)->drive.field)
#else
#define QP__DRIVE(j, field) ((fix16_t)0)
#endif
/* A joint of the later kinds or with their options (world_hash.c, snapshot.c hash and
 * store those fields only then). */
static inline bool qp__joint_extended(const qp_joint *j)
{
    return j->type > QP_JOINT_DISTANCE || (j->flags & (QP_JOINT_MOTOR | QP_JOINT_SPRING)) ||
           QP__DRIVE(j, break_impulse) != 0 || QP__DRIVE(j, friction) != 0;
}
void qp__free_joint(qp_world *w, int index);          /* empty slot index (1-based); wakes both bodies */
fix16_t qp__joint_load(const qp_world *w, const qp_joint *j);  /* its last step's load (solve_joints.c) */

#endif
