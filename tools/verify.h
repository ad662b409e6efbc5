/* SPDX-License-Identifier: MIT */
/* Verifying one recording: a replay file (NAME.replay, docs/scene-format.md "Replay files")
 * or a snapshot-plus-inputs pair (NAME.qpin, the same format with a "snapshot" header line,
 * beside the snapshot NAME.qps it starts from). Host code (stdio, the heap), shared by
 * `qphys verify` and the shared library libqphys.so that the Python package loads, so both
 * judge and word a recording the same way.
 *
 * The verdicts:
 *   matched        every step's world and body hashes are the recorded ones
 *   diverged       the file is sound but this build computes something else at a step
 *   damaged        the file (or its snapshot) is truncated, changed or malformed
 *   other version  the file is of a replay format another qphys version wrote
 */
#ifndef QPHYS_TOOLS_VERIFY_H
#define QPHYS_TOOLS_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "qphys/world.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VERIFY_MATCHED = 0,
    VERIFY_DIVERGED = 1,
    VERIFY_DAMAGED = 2,
    VERIFY_OTHER_VERSION = 3
};

/* One verdict; a plain struct of fixed size (sent whole through a pipe by qphys verify's
 * workers, read through ctypes by the Python package). */
typedef struct {
    int32_t status;               /* VERIFY_* */
    int32_t body;                 /* diverged: the first body slot whose hash differs; 0: none does */
    int64_t step;                 /* diverged: the first step that differs; otherwise the last step verified */
    int64_t steps;                /* steps the file records */
    uint32_t world_hash;          /* matched: the final world hash; diverged: the computed one at step */
    uint32_t recorded_hash;       /* diverged: the recorded world hash at step */
    int32_t line, column;         /* damaged: where in the file; 0: the file as a whole */
    char version[32];             /* the recording qphys's version; "" when the file does not say */
    char message[320];            /* one line: what differs, or why the file is refused */
} verify_result;

/* This build's result-changing configuration (the replay files' "engine" line). */
void verify_engine_config(char *buf, size_t size);
/* This qphys's version (QP_VERSION_STRING; the replay files' "version" line). */
const char *verify_version(void);

/* Verify the recording data[0..len) named path, in w, or (w null) in a world sized to it
 * (tools/sized_world.h). A pair's inputs come with snap (the snapshot's bytes, snap_len of
 * them); snap null for a replay file. Returns out->status. */
int verify_data(qp_world *w, const char *path, const char *data, unsigned long len, const void *snap,
                unsigned long snap_len, int is_pair, verify_result *out);
/* Read path (and, for a NAME.qpin, NAME.qps) and verify it in w (null: sized to it). Never
 * exits: a file that cannot be read is damaged. */
int verify_file(qp_world *w, const char *path, verify_result *out);
/* Whether path names a pair's inputs (ends in ".qpin"). */
int verify_is_pair(const char *path);
/* The report's line for path (no newline): "PATH: matched: ...", "PATH: diverged at step
 * S, body B: ...", "PATH: damaged: ...", "PATH: other version: ...". Returns its length
 * (snprintf's). */
int verify_line(const verify_result *r, const char *path, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
