/* SPDX-License-Identifier: MIT */
/* Replay files (docs/scene-format.md, "Replay files"): the reader and the writer's checksum,
 * apart from the qphys command so that the fuzz target (tests/fuzz/fuzz_replay.c) calls the
 * same code. Host code: the heap is fine here.
 *
 * replay_parse checks the file's end line ("check BYTES CRC": length and CRC-32 of
 * everything before it) first, so a damaged or truncated file is told apart from a run
 * that diverges; then it reads the header, the scene and every step's inputs, hashes and
 * recorded body states, checking every number and the order of steps. It never reads
 * outside data[0..len).
 */
#ifndef QPHYS_TOOLS_REPLAY_H
#define QPHYS_TOOLS_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "qphys/record.h"

#define REPLAY_MAGIC "qphys-replay 4"   /* 3: create entries carry filters and sensors; joint and filter entries;
                                           4: create entries carry the rolling resistance */
/* A replay file holds input log entries: its format changes with theirs. */
_Static_assert(QP_INPUT_FORMAT == 4, "an input log format of its own: give REPLAY_MAGIC the next number");

typedef struct {
    int slot;                     /* body slot index, 1-based */
    uint32_t hash;                /* qp_body_hash; 0 = no body there */
} replay_body;

typedef struct {
    int slot;
    int32_t v[13];                /* centre x y z, rotation w x y z, velocity x y z, spin x y z (raw) */
} replay_pose;

typedef struct {
    char engine[512];             /* the recording build's configuration line */
    char version[32];             /* the recording qphys's version ("version" line); "" when not written */
    int from_snapshot;            /* the world starts from a snapshot file ("snapshot" line), not a scene */
    unsigned long snapshot_bytes; /* that snapshot's size */
    uint32_t snapshot_crc;        /* and its CRC-32 */
    long first;                   /* the step its lines start at: 0, or the snapshot's step */
    long steps;                   /* steps recorded after step 0 (the loaded scene) */
    char *scene;                  /* the scene text (NUL-terminated) */
    unsigned long scene_len;
    int scene_line;               /* file line of the scene's first line, minus 1 */
    uint32_t *world;              /* [steps + 1]: world hash after step s and its inputs */
    unsigned char *inputs;        /* every input entry (qphys/record.h bytes), in order */
    unsigned long *input_at;      /* [steps + 2]: entries of step s are inputs[input_at[s] .. input_at[s + 1]) */
    replay_body *bodies;          /* body hashes that changed, step by step */
    long *body_at;                /* [steps + 2]: step s's are bodies[body_at[s] .. body_at[s + 1]) */
    replay_pose *poses;           /* recorded body states (record --poses), step by step */
    long *pose_at;                /* [steps + 2] */
} replay;

typedef struct {
    int line;                     /* 0: the file as a whole */
    int other_format;             /* 1: a replay file of another format version (another qphys) */
    char message[160];
} replay_error;

/* The header may also carry "version V" (the recording qphys's VERSION) and, in a
 * snapshot-plus-inputs file (NAME.qpin beside NAME.qps), "snapshot BYTES CRC STEP" in place of
 * "scene LINES": the snapshot's size and CRC-32 and the step it was taken at, from which the
 * step lines count.
 *
 * 0 and *r filled (free it with replay_free), or -1 with *err saying what is wrong and r
 * empty. */
int replay_parse(const char *data, unsigned long len, replay *r, replay_error *err);
void replay_free(replay *r);

/* CRC-32 (IEEE 802.3) of p[0..n), for the "check" line. */
uint32_t replay_crc32(const unsigned char *p, unsigned long n);

#endif
