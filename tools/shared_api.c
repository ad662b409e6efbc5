/* SPDX-License-Identifier: MIT */
/* What libqphys.so adds to the engine for callers that cannot use C macros, sizeof or
 * offsetof: the Python package (python/qphys, ctypes). Host code: the heap is fine here.
 *
 * The caller owns the world's memory (qph_sizes gives the size of a world of the default
 * capacities, qp_world_memory_size any other's; 8-byte alignment is enough) and initialises it
 * through the checked calls with this build's signature and size. qph_sizes lets a binding check
 * its declared structs against the library's before it touches a world; qph_body_layout
 * gives where a body's state lies, for zero-copy views of the raw numbers. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/qphys.h"
#include "qphys/record.h"
#include "qphys/scene.h"
#include "obj.h"
#include "replay.h"
#include "verify.h"

qp_result qph_world_init(qp_world *w, const qp_world_def *def);
qp_result qph_scene_load(qp_world *w, const char *text, unsigned long len, qp_scene_info *info, qp_scene_error *err);
qp_result qph_scene_load_level(qp_world *w, const char *text, unsigned long len, const char *path,
                               qp_scene_info *info, qp_scene_error *err);
qp_result qph_world_restore(qp_world *w, const void *buf, unsigned long size);
qp_result qph_world_init_in(void *memory, unsigned long bytes, const qp_world_caps *caps, const qp_world_def *def);
int qph_sizes(long *out, int n);
int qph_body_layout(long *out, int n);
void qph_body_hashes(const qp_world *w, uint32_t *out);
void qph_engine_config(char *buf, unsigned long size);
const char *qph_version(void);
int qph_replay_check(const char *data, unsigned long len, int *line, char *message, unsigned long size);

qp_result qph_world_init(qp_world *w, const qp_world_def *def) { return qp_world_init(w, def); }

qp_result qph_scene_load(qp_world *w, const char *text, unsigned long len, qp_scene_info *info, qp_scene_error *err)
{
    return qp_scene_load(w, text, len, info, err);
}

/* A scene with mesh and heightfield lines: meshes read relative to path's folder (tools/obj.c). */
qp_result qph_scene_load_level(qp_world *w, const char *text, unsigned long len, const char *path,
                               qp_scene_info *info, qp_scene_error *err)
{
    return qp_scene_load_level(w, text, len, info, err, obj_level_store(path, text, len));
}

qp_result qph_world_restore(qp_world *w, const void *buf, unsigned long size)
{
    return qp_world_restore(w, buf, size);
}

/* qp_world_init_in: the world lies at memory. */
qp_result qph_world_init_in(void *memory, unsigned long bytes, const qp_world_caps *caps, const qp_world_def *def)
{
    qp_world *w;
    return qp_world_init_in(memory, bytes, caps, def, &w);
}

/* The sizes a binding declares, in this order, then the limits it needs. Returns how many
 * it wrote. */
int qph_sizes(long *out, int n)
{
    const long v[] = {
        (long)sizeof(qp_world),          (long)sizeof(qp_world_def),     (long)sizeof(qp_body_def),
        (long)sizeof(qp_shape),          (long)sizeof(qp_joint_def),     (long)sizeof(qp_world_ray_hit),
        (long)sizeof(qp_contact_event),  (long)sizeof(qp_sensor_event),  (long)sizeof(qp_body_event),
        (long)sizeof(qp_world_stats),    (long)sizeof(qp_scene_info),    (long)sizeof(qp_scene_error),
        (long)sizeof(qp_input_log),      (long)sizeof(qp_input_info),    (long)sizeof(verify_result),
        (long)sizeof(qp_ray_filter),     QP_CFG_MAX_BODY_SHAPES,         QP_CFG_MAX_BODIES,
        QP_CFG_MAX_JOINTS,               (long)QP_INPUT_MAX_ENTRY,       (long)QP_SNAPSHOT_MAX_SIZE,
        (long)sizeof(qp_world_caps),
    };
    int k = 0;
    for (; k < n && k < (int)(sizeof v / sizeof v[0]); k++) out[k] = v[k];
    return k;
}

/* Where body slot i's state lies in a world qph_world_init initialised: offset of slot 0 in
 * qp_world, the slot stride, then the offsets in a slot of the centre of mass, rotation,
 * linear and angular velocity (int32 triples and a quadruple), generation and state (uint16). */
#if QP_CFG_FIXED_POOLS
#define BODIES_OFFSET offsetof(qp_world, bodies)
#else
#define BODIES_OFFSET offsetof(qp_world, own)   /* the body pool opens the world's own storage */
#endif
int qph_body_layout(long *out, int n)
{
    const long v[] = {
        (long)BODIES_OFFSET,                      (long)sizeof(qp_body_state),
        (long)offsetof(qp_body_state, x),         (long)offsetof(qp_body_state, q),
        (long)offsetof(qp_body_state, v),         (long)offsetof(qp_body_state, w),
        (long)offsetof(qp_body_state, generation), (long)offsetof(qp_body_state, state),
    };
    int k = 0;
    for (; k < n && k < (int)(sizeof v / sizeof v[0]); k++) out[k] = v[k];
    return k;
}

/* qp_body_hash of slots 1..qp_world_body_capacity(w) into out[0..capacity) (0: no body). */
void qph_body_hashes(const qp_world *w, uint32_t *out)
{
    int cap = qp_world_body_capacity(w);
    for (int i = 1; i <= cap; i++) out[i - 1] = qp_body_hash(w, qp_world_body_at(w, i));
}

void qph_engine_config(char *buf, unsigned long size) { verify_engine_config(buf, (size_t)size); }

const char *qph_version(void) { return verify_version(); }

/* Whether data[0..len) reads as a replay file: VERIFY_MATCHED (0: it does),
 * VERIFY_DAMAGED or VERIFY_OTHER_VERSION with *line (0: the file as a whole) and why. */
int qph_replay_check(const char *data, unsigned long len, int *line, char *message, unsigned long size)
{
    replay rp;
    replay_error err;
    if (replay_parse(data, len, &rp, &err) == 0) {
        replay_free(&rp);
        *line = 0;
        if (size) message[0] = 0;
        return VERIFY_MATCHED;
    }
    *line = err.line;
    if (size) {
        strncpy(message, err.message, size - 1);
        message[size - 1] = 0;
    }
    return err.other_format ? VERIFY_OTHER_VERSION : VERIFY_DAMAGED;
}
