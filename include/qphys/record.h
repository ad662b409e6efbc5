/* Input log: every call that changes a world, recorded with its step into a caller's
 * buffer, and replayed into another world (src/record.c; docs/design.md §8).
 *
 * A world with a log attached appends one entry per successful mutating call (create,
 * destroy, set pose, set velocities, force, torque, impulse, wake, clear flags). A call
 * that fails changed nothing and is not recorded. Together with the world it started
 * from (a scene, or a snapshot), the log reproduces every later step bit for bit: replay
 * it with qp_input_replay_step before each qp_world_step.
 *
 * No heap: entries go into the caller's fixed buffer. When one does not fit, the call
 * still happens but the log stops there (lost counts what was not written), so an
 * incomplete log is always known to be one.
 *
 * Entries are portable bytes (little-endian, fixed width), the same on every target:
 *   kind u8, step u32 (the world's stats.step at the call: it acts before step step + 1),
 *   body index u16, body generation u16 (create: the id the call returned), then per kind
 *   create     the body def: type u8, position 3 x i32, rotation 4 x i32, linear and
 *              angular velocity 6 x i32, mass, density, friction, static friction,
 *              restitution 5 x i32, asleep u8, user data u32, shape count u8, and per shape
 *              type u8, offset 3 x i32, rotation 4 x i32, half (or normal, radius) 3 x i32,
 *              half height (or plane offset) i32
 *   set pose   position 3 x i32, rotation 4 x i32
 *   set linear velocity, set angular velocity, force, torque: 3 x i32
 *   impulse    impulse 3 x i32, world point 3 x i32
 *   destroy, wake, clear flags: nothing more
 * Kinds 32..63 are kept for joints (their create, destroy and motor calls go there).
 *
 * Ids: entries name bodies by index and generation, which a replay reproduces because
 * slots are taken lowest first and generations count reuses: a replayed create must
 * return the recorded id, or the replay has diverged.
 *
 * Restore: qp_world_restore and qp_world_init leave a world with no log attached (the log
 * is not state); attach it again if the recording goes on.
 */
#ifndef QPHYS_RECORD_H
#define QPHYS_RECORD_H

#include <stdint.h>
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
    QP_INPUT_KIND_END            /* first unused kind; joints take 32..63 */
} qp_input_kind;

/* Largest entry (a create with QP_CFG_MAX_BODY_SHAPES shapes), bytes. */
#define QP_INPUT_MAX_ENTRY (9ul + 79ul + 45ul * QP_CFG_MAX_BODY_SHAPES)

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
    qp_body_id body;             /* named body; for a create the recorded result */
    qp_body_id got;              /* create: the id the replayed call returned */
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
