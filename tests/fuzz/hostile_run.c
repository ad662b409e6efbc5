/* SPDX-License-Identifier: MIT */
/* hostile_run.c - the oracle's driver: what one build answers for hostile inputs, one line
 * each, so that two builds (gcc and clang, tests/scripts/fuzz-oracle.sh) can be compared
 * line by line. "refused <code>", or the replayed calls' results and the world hash after
 * every step.
 *
 *   hostile_run state FILE...      edit scripts of a live world (tests/fuzz/hostile.h)
 *   hostile_run inputlog FILE...   edit scripts of a live world's input log
 *   hostile_run snapshot FILE...   snapshot files, restored as they are and re-signed
 *   hostile_run replay FILE...     replay files (tools/replay.c), their scene and inputs replayed
 *   hostile_run random state|inputlog SEED COUNT   COUNT scripts drawn from SEED (xorshift32)
 */
#include "hostile.h"
#include "../../tools/replay.h"

static uint8_t buf[1 << 20];

/* The CRC-32 of the payload written into the header: the checks behind it are reached. */
static void resign(unsigned char *s, size_t n)
{
    if (n < 16) return;
    uint32_t c = replay_crc32(s + 16, (unsigned long)(n - 16));
    for (int i = 0; i < 4; i++) s[12 + i] = (unsigned char)(c >> (8 * i));
}

static void run_snapshot(uint8_t *data, size_t size)
{
    hs_outcome out;
    for (int signed_too = 0; signed_too < 2; signed_too++) {
        if (signed_too) resign(data, size);
        hs_restore_and_step(data, (unsigned long)size, &out);
        hs_print(stdout, &out);
    }
}

/* The replay file's scene loaded and its inputs replayed for up to 16 steps. */
static qp_world rw;
static void run_replay(const uint8_t *data, size_t size)
{
    replay r;
    replay_error err;
    if (replay_parse((const char *)data, (unsigned long)size, &r, &err) != 0) {
        printf("refused line %ld: %s\n", (long)err.line, err.message);
        return;
    }
    if (qp_scene_load(&rw, r.scene, r.scene_len, NULL, NULL) != QP_OK) {
        printf("scene refused\n");
        replay_free(&r);
        return;
    }
    long steps = r.steps < 16 ? r.steps : 16;
    printf("replay");
    for (long s = 0; s <= steps; s++) {
        if (s > 0) qp_world_step(&rw);
        unsigned long at = 0, n = r.input_at[s + 1] - r.input_at[s];
        const unsigned char *in = r.inputs ? r.inputs + r.input_at[s] : NULL;
        while (at < n) {
            unsigned long was = at;
            qp_result res = qp_input_replay_step(&rw, in, n, &at, NULL);
            printf(" %d", (int)res);
            if (res == QP_ERR_BUFFER || res == QP_OK || at <= was) break;
        }
        hs_check_world(&rw);
        printf(" %08x", (unsigned)qp_world_hash(&rw));
    }
    printf("\n");
    replay_free(&r);
}

/* As it is, then with its check line recomputed (the last line, if it is one, replaced), which
 * takes an edited file to every check behind the checksum. */
static char resigned[(1 << 20) + 64];
static void run_replay_both(const uint8_t *data, size_t size)
{
    run_replay(data, size);
    size_t body = size;
    if (body > 0 && data[body - 1] == '\n') {
        size_t start = body - 1;
        while (start > 0 && data[start - 1] != '\n') start--;
        if (body - start > 6 && !memcmp(data + start, "check ", 6)) body = start;
    }
    memcpy(resigned, data, body);
    int n = snprintf(resigned + body, 32, "check %lu %08lx\n", (unsigned long)body,
                     (unsigned long)replay_crc32(data, body));
    run_replay((const uint8_t *)resigned, body + (size_t)n);
}

static void run_one(const char *kind, uint8_t *data, size_t size)
{
    hs_outcome out;
    if (!strcmp(kind, "state")) {
        hs_run_state(data, size, &out);
        hs_print(stdout, &out);
    } else if (!strcmp(kind, "inputlog")) {
        hs_run_inputlog(data, size, &out);
        hs_print(stdout, &out);
    } else if (!strcmp(kind, "snapshot")) {
        run_snapshot(data, size);
    } else {
        run_replay_both(data, size);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "random")) {
        uint32_t x = (uint32_t)strtoul(argv[3], NULL, 10) | 1u;
        long count = strtol(argv[4], NULL, 10);
        for (long k = 0; k < count; k++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            size_t size = 2u + 8u * (1u + x % 6u) + (x >> 8) % 2u;
            for (size_t i = 0; i < size; i++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                buf[i] = (uint8_t)(x >> 11);
            }
            run_one(argv[2], buf, size);
        }
        return 0;
    }
    if (argc < 3 || (strcmp(argv[1], "state") && strcmp(argv[1], "inputlog") && strcmp(argv[1], "snapshot") &&
                     strcmp(argv[1], "replay"))) {
        fprintf(stderr, "usage: hostile_run state|inputlog|snapshot|replay FILE... | random state|inputlog SEED COUNT\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "hostile_run: cannot open %s\n", argv[i]);
            return 2;
        }
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        run_one(argv[1], buf, n);
    }
    return 0;
}
