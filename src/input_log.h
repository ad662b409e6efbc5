/* SPDX-License-Identifier: MIT */
/* The input log's writer (input_log.c): the one thing the mutating calls (body.c,
 * joint.c) know of recording. Each appends one entry for a call that succeeded, when
 * the world has a log attached (qphys/record.h), and does nothing otherwise. */
#ifndef QPHYS_INPUT_LOG_H
#define QPHYS_INPUT_LOG_H

#include "qphys/joint.h"
#include "qphys/record.h"
#include "qphys/world.h"

void qp__record_input(qp_world *w, qp_input_kind kind, qp_body_id id, const qp_vec3 *a, const qp_vec3 *b,
                      const qp_quat *q, const qp_body_def *def);
void qp__record_shape_filter(qp_world *w, qp_body_id id, int shape, qp_shape_filter filter);
void qp__record_joint(qp_world *w, qp_input_kind kind, qp_joint_id id, const qp_joint_def *def);
/* A joint's motor (enable, speed, max force) or spring target (value) changed. */
void qp__record_joint_setting(qp_world *w, qp_input_kind kind, qp_joint_id id, bool enable, fix16_t value,
                              fix16_t max_force);

#endif
