/* SPDX-License-Identifier: MIT */
/* fuzz_replay.c - the replay file reader (tools/replay.c) and the input log's replay
 * (src/input_replay.c) on any bytes (libFuzzer; tests/scripts/test-fuzz-corpus.sh replays the corpus with
 * gcc). The corpus starts from real recordings (qphys record --inputs, some with --poses);
 * each input is read as it is (most mutants stop at the check line) and again with its check
 * line recomputed, which takes it to every check behind the checksum. Promises checked: no
 * sanitizer report, whatever the bytes; a refused file names its fault and leaves nothing
 * allocated; an accepted one has consistent step tables (inputs, body hashes and states of
 * step s within the file's, in order, slots in range); its scene, when it loads, replays
 * (inputs then step, up to 16 steps) with every refused input entry leaving the world byte
 * for byte as the entries before it left it, and every speed within the clamp after every step. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"
#include "../../tools/replay.h"

static qp_world world, before, after;
static char signed_copy[1 << 20];

static void read_one(const char *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_one((const char *)data, size);
    /* Re-signed: the input without its last line if that is a check line, then a check
     * line of its own. */
    size_t body = size;
    if (body > 0 && data[body - 1] == '\n') {
        size_t start = body - 1;
        while (start > 0 && data[start - 1] != '\n') start--;
        if (body - start > 6 && !memcmp(data + start, "check ", 6)) body = start;
    }
    if (body + 32 > sizeof signed_copy) return 0;
    memcpy(signed_copy, data, body);
    int n = snprintf(signed_copy + body, 32, "check %lu %08lx\n", (unsigned long)body,
                     (unsigned long)replay_crc32((const unsigned char *)data, body));
    read_one(signed_copy, body + (size_t)n);
    return 0;
}

static void check_tables(const replay *r)
{
    if (r->steps < 0 || !r->scene || r->scene[r->scene_len] != 0) abort();
    if (r->input_at[0] != 0 || r->body_at[0] != 0 || r->pose_at[0] != 0) abort();
    for (long s = 0; s <= r->steps; s++) {
        if (r->input_at[s + 1] < r->input_at[s] || r->body_at[s + 1] < r->body_at[s] ||
            r->pose_at[s + 1] < r->pose_at[s])
            abort();
        int last = 0;
        for (long k = r->body_at[s]; k < r->body_at[s + 1]; k++) {
            if (r->bodies[k].slot <= last || r->bodies[k].slot > 65535) abort();
            last = r->bodies[k].slot;
        }
        for (long k = r->pose_at[s]; k < r->pose_at[s + 1]; k++)
            if (r->poses[k].slot < 1 || r->poses[k].slot > 65535) abort();
    }
}

static void read_one(const char *data, size_t size)
{
    replay r;
    replay_error err;
    if (replay_parse(data, (unsigned long)size, &r, &err) != 0) {
        if (!err.message[0] || r.scene || r.world || r.inputs || r.bodies) abort();
        return;
    }
    check_tables(&r);
    if (qp_scene_load(&world, r.scene, r.scene_len, NULL, NULL) == QP_OK) {
        const qp_world_def *d = qp_world_get_def(&world);
        long steps = r.steps < 16 ? r.steps : 16;
        for (long s = 0; s <= steps; s++) {
            if (s > 0) qp_world_step(&world);
            unsigned long at = 0, n = r.input_at[s + 1] - r.input_at[s];
            const unsigned char *in = r.inputs ? r.inputs + r.input_at[s] : NULL;
            while (at < n) {
                memcpy(&before, &world, sizeof world);
                unsigned long was = at;
                qp_input_info info;
                qp_result res = qp_input_replay_step(&world, in, n, &at, &info);
                if (res == QP_ERR_BUFFER) {
                    /* The entries before the bad one were applied, nothing of it: the same
                     * bytes cut just before it apply cleanly to the same world. */
                    memcpy(&after, &world, sizeof world);
                    memcpy(&world, &before, sizeof world);
                    unsigned long again = was;
                    if (qp_input_replay_step(&world, in, at, &again, NULL) != QP_OK || again != at ||
                        memcmp(&world, &after, sizeof world) != 0)
                        abort();
                    break;
                }
                if (res == QP_OK) break;      /* done, or a later step's entry */
                if (at <= was) abort();       /* a failed call: skip it, go on */
            }
            (void)qp_world_hash(&world);
            for (int i = 1; i <= qp_world_capacity(); i++) {
                qp_body_id id = qp_world_body_at(&world, i);
                if (qp_body_id_is_null(id)) continue;
                (void)qp_body_hash(&world, id);
                if (qp_v3_len_sq_wide(qp_body_linear_velocity(&world, id)) >
                    (int64_t)d->max_linear_speed * d->max_linear_speed)
                    abort();
            }
        }
    }
    replay_free(&r);
}
