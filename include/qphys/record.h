/* SPDX-License-Identifier: MIT */
/* Input log: every call that changes a world, recorded with its step into a caller's
 * buffer, and replayed into another world (src/input_log.c, src/input_replay.c; docs/design.md §8).
 *
 * A world with a log attached appends one entry per successful mutating call (create,
 * destroy, set pose, set velocities, force, torque, impulse, wake, clear flags, set shape
 * filter; create and destroy joint, set a joint's motor or spring target). A call that fails changed nothing and is not
 * recorded; a body's destroy that takes its joints with it is one entry (the replayed
 * destroy does the same). Together with the world it started from (a scene, or a
 * snapshot), the log reproduces every later step bit for bit: replay it with
 * qp_input_replay_step before each qp_world_step.
 *
 * No heap: entries go into the caller's fixed buffer. When one does not fit, the call
 * still happens but the log stops there (lost counts what was not written), so an
 * incomplete log is always known to be one.
 *
 * Entries are portable bytes (little-endian, fixed width), the same on every target:
 *   kind u8, step u32 (the world's stats.step at the call: it acts before step step + 1),
 *   id index u16, id generation u16: the body named (create body: the id the call
 *   returned); for the joint kinds, the joint (create joint: the id the call returned);
 *   then per kind
 *   create body  the body def: type u8 (0..2), position 3 x i32, rotation 4 x i32, linear
 *              and angular velocity 6 x i32, mass, density, friction, static friction,
 *              restitution, rolling resistance 6 x i32, asleep u8 (0, 1), user data u32, shape count u8
 *              (1..QP_CFG_MAX_BODY_SHAPES), and per shape type u8 (a qp_shape_type),
 *              offset 3 x i32, rotation 4 x i32, half (or normal, radius) 3 x i32, half
 *              height (or plane offset) i32, sensor u8 (0, 1), filter category u16, mask
 *              u16, group i16
 *   set pose   position 3 x i32, rotation 4 x i32
 *   set linear velocity, set angular velocity, force, torque: 3 x i32
 *   impulse    impulse 3 x i32, world point 3 x i32
 *   set shape filter  shape slot u8 (0..QP_CFG_MAX_BODY_SHAPES - 1), category u16, mask
 *              u16, group i16
 *   destroy body, wake, clear flags, destroy joint: nothing more
 *   create joint  the joint def: type u8 (0..2), body a index u16, generation u16, body b
 *              index u16, generation u16, anchor, anchor a, anchor b, axis 4 x 3 x i32,
 *              enable limit u8 (0, 1), lower angle, upper angle, min length, max length,
 *              drift time 5 x i32, collide connected u8 (0, 1): every field, whatever the
 *              type uses, so the replayed call gets the very def recorded
 *   create joint full  (a def with a type above 2, a motor, a spring or a break impulse)
 *              the same 79 bytes (type u8 0..5), then lower and upper translation, swing
 *              angle 3 x i32, enable motor u8 (0, 1), motor speed, max motor force 2 x i32,
 *              enable spring u8 (0, 1), spring hz, damping, target, max spring force 4 x
 *              i32, break impulse i32
 *   set joint motor  enable u8 (0, 1), speed i32, max force i32
 *   set joint spring target  target i32
 * Kinds 1..11 name bodies, kinds 32..63 are kept for joints (32 create, 33 destroy, 34
 * create full, 35 set motor, 36 set spring target).
 * Before anything is applied an entry is checked whole: its length, its kind, and every
 * field whose range does not depend on the world (the ranges above; a joint's ids not
 * null, its two bodies different, and the def's values that qp_create_joint checks
 * without looking at the world: drift time, lengths, hinge axis and limits). What only
 * the world can judge (a body's id being live, an anchor's reach, a size) is left to the
 * replayed call, whose failure means the world is not the one recorded.
 *
 * Ids: entries name bodies and joints by index and generation, which a replay reproduces
 * because slots are taken lowest first and generations count reuses: a replayed create
 * (body or joint) must return the recorded id, or the replay has diverged.
 *
 * Restore: qp_world_restore and qp_world_init leave a world with no log attached (the log
 * is not state); attach it again if the recording goes on.
 */
#ifndef QPHYS_RECORD_H
#define QPHYS_RECORD_H

#include <stdint.h>
#include "qphys/joint.h"
#include "qphys/types.h"
#include "qphys/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    QP_INPUT_CREATE_BODY = 1,
    QP_INPUT_DESTROY_BODY,
    QP_INPUT_SET_POSE,
    QP_INPUT_SET_LINEAR_VELOCITY,
    QP_INPUT_SET_ANGULAR_VELOCITY,
    QP_INPUT_APPLY_FORCE,
    QP_INPUT_APPLY_TORQUE,
    QP_INPUT_APPLY_IMPULSE,
    QP_INPUT_WAKE,
    QP_INPUT_CLEAR_FLAGS,
    QP_INPUT_SET_SHAPE_FILTER,
    QP_INPUT_KIND_END,           /* first unused body kind */
    QP_INPUT_CREATE_JOINT = 32,  /* joints take 32..63 */
    QP_INPUT_DESTROY_JOINT,
    QP_INPUT_CREATE_JOINT_FULL,  /* a def with the later kinds' options (the longer entry) */
    QP_INPUT_SET_JOINT_MOTOR,
    QP_INPUT_SET_JOINT_SPRING_TARGET,
    QP_INPUT_JOINT_KIND_END      /* first unused joint kind */
} qp_input_kind;

/* The entries' format: it changes whenever an entry's bytes do (4: a body def of 83 bytes,
 * with its rolling resistance). Entries carry no version of their own: a program that keeps
 * or sends them beyond one build states this beside them and refuses another (the replay
 * files' first line, "qphys-replay 4", is it). */
#define QP_INPUT_FORMAT 4

/* Largest entry (a body create with QP_CFG_MAX_BODY_SHAPES shapes: at least 140 bytes; a
 * joint create is 88, a full one 130), bytes. A shape takes 52 bytes, a hull shape 37 and 12
 * a corner (805 for 64). */
#define QP_INPUT_SHAPE_MAX_BYTES (QP_CFG_MAX_HULLS > 0 ? 805ul : 52ul)
#define QP_INPUT_MAX_ENTRY (9ul + 83ul + QP_INPUT_SHAPE_MAX_BYTES * QP_CFG_MAX_BODY_SHAPES)

/* The caller's buffer and what is in it. Read len and data directly; write through the
 * functions below. */
struct qp_input_log {
    unsigned char *data;         /* the caller's buffer */
    unsigned long size;          /* its size, bytes */
    unsigned long len;           /* bytes of whole entries written */
    uint32_t count;              /* entries written */
    uint32_t lost;               /* entries that did not fit: the log ends before them */
};

/* An empty log writing into buf[0..size). QP_ERR_PARAM for a null log or buffer. */
qp_result qp_input_log_init(qp_input_log *log, void *buf, unsigned long size);
/* Record w's mutating calls into log from now on (null: stop recording). */
void qp_world_set_input_log(qp_world *w, qp_input_log *log);

/* One decoded entry (what qp_input_replay_step applied or stopped at). */
typedef struct {
    qp_input_kind kind;
    uint32_t step;
    qp_body_id body;             /* named body; for a create the recorded result (joint kinds: null) */
    qp_body_id got;              /* create body: the id the replayed call returned */
    qp_joint_id joint;           /* joint kinds: the named joint; for a create the recorded result */
    qp_joint_id joint_got;       /* create joint: the id the replayed call returned */
    qp_result result;            /* the replayed call's result */
} qp_input_info;

/* Apply the entries of buf[*at .. len) recorded at w's current step (stats.step), in
 * order, and move *at past them; stop at the first entry of a later step. QP_OK when all
 * applied; QP_ERR_BUFFER for bytes that are not a well-formed entry, or an entry of a
 * step already past (nothing of that entry applied, *at on it); otherwise the replayed
 * call failed or a create returned another id than recorded: the world is not the one
 * recorded (the result of the call, or QP_ERR_INVALID_ID), and *info names the entry.
 * info may be null. Entries are checked completely before they are applied. */
qp_result qp_input_replay_step(qp_world *w, const void *buf, unsigned long len, unsigned long *at,
                               qp_input_info *info);

#ifdef __cplusplus
}
#endif

#endif
