/* SPDX-License-Identifier: MIT */
/* Replay file reader (tools/replay.h). */
#include "replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t replay_crc32(const unsigned char *p, unsigned long n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned long i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* ---- lines and numbers ---------------------------------------------------------------- */

typedef struct {
    const char *p, *end;          /* unread text */
    const char *s;                /* the current line, */
    unsigned long n;              /* its length (no newline) */
    int line;
} lines;

static int next_line(lines *in)
{
    if (in->p >= in->end) return 0;
    const char *nl = memchr(in->p, '\n', (size_t)(in->end - in->p));
    in->s = in->p;
    in->n = (unsigned long)((nl ? nl : in->end) - in->p);
    in->p = nl ? nl + 1 : in->end;
    in->line++;
    return 1;
}

/* A cursor over the current line. */
typedef struct {
    const char *p, *end;
} cursor;

static int at_end(const cursor *c) { return c->p == c->end; }

/* The literal word w followed by a space or the end of the line. */
static int word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return 0;
    if (c->p + n != c->end && c->p[n] != ' ') return 0;
    c->p += n;
    return 1;
}

/* An unsigned decimal of at most max: no sign, no leading zeros. */
static int digits(cursor *c, unsigned long max, unsigned long *v)
{
    const char *s = c->p;
    unsigned long x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned)(*c->p - '0');
        if (x > (max - d) / 10) return 0;
        x = x * 10 + d;
        c->p++;
    }
    if (c->p == s || (*s == '0' && c->p - s > 1)) return 0;
    *v = x;
    return 1;
}

/* One space, then an unsigned decimal of at most max. */
static int num(cursor *c, unsigned long max, unsigned long *v)
{
    if (c->p == c->end || *c->p != ' ') return 0;
    c->p++;
    return digits(c, max, v);
}

/* One space, then a signed 32-bit decimal ("-0" is not one). */
static int inum(cursor *c, int32_t *v)
{
    if (c->p == c->end || *c->p != ' ') return 0;
    c->p++;
    int neg = c->p < c->end && *c->p == '-';
    c->p += neg;
    unsigned long x;
    if (!digits(c, neg ? 2147483648ul : 2147483647ul, &x) || (neg && x == 0)) return 0;
    *v = neg ? (x == 2147483648ul ? INT32_MIN : -(int32_t)x) : (int32_t)x;
    return 1;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
}

/* The separator sep, then exactly 8 lowercase hex digits. */
static int hex32(cursor *c, char sep, uint32_t *v)
{
    if (c->end - c->p < 9 || *c->p != sep) return 0;
    uint32_t x = 0;
    for (int i = 1; i <= 8; i++) {
        int d = hexval(c->p[i]);
        if (d < 0) return 0;
        x = x << 4 | (uint32_t)d;
    }
    c->p += 9;
    *v = x;
    return 1;
}

/* ---- growing arrays ------------------------------------------------------------------- */

static int grow(void **p, unsigned long *cap, unsigned long need, size_t item)
{
    if (need <= *cap) return 1;
    unsigned long n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * item);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* ---- the file --------------------------------------------------------------------------- */

static int fail(replay_error *err, int line, const char *fmt, ...)
{
    va_list ap;
    err->line = line;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* The "check BYTES CRC" line that ends the file: length and CRC-32 of what precedes it. */
static int check_end(const char *data, unsigned long len, unsigned long *body_len, replay_error *err)
{
    if (len == 0 || data[len - 1] != '\n')
        return fail(err, 0, "truncated or damaged: the file does not end with its 'check' line");
    unsigned long start = len - 1;
    while (start > 0 && data[start - 1] != '\n') start--;
    cursor c = { data + start, data + len - 1 };
    unsigned long bytes;
    uint32_t crc;
    if (!word(&c, "check") || !num(&c, 0xFFFFFFFFul, &bytes) || !hex32(&c, ' ', &crc) || !at_end(&c))
        return fail(err, 0, "truncated or damaged: the last line is not 'check BYTES CRC32'");
    if (bytes != start)
        return fail(err, 0, "truncated or damaged: %lu bytes precede the check line, which says %lu", start, bytes);
    uint32_t got = replay_crc32((const unsigned char *)data, start);
    if (got != crc)
        return fail(err, 0, "damaged: the CRC-32 of its %lu bytes is %08lx, the check line says %08lx", start,
                    (unsigned long)got, (unsigned long)crc);
    *body_len = start;
    return 0;
}

void replay_free(replay *r)
{
    free(r->scene);
    free(r->world);
    free(r->inputs);
    free(r->input_at);
    free(r->bodies);
    free(r->body_at);
    free(r->poses);
    free(r->pose_at);
    memset(r, 0, sizeof *r);
}

#define MAX_SLOT 65535ul

int replay_parse(const char *data, unsigned long len, replay *r, replay_error *err)
{
    memset(r, 0, sizeof *r);
    memset(err, 0, sizeof *err);
    unsigned long body_len = 0;
    if (check_end(data, len, &body_len, err)) return -1;
    lines in = { data, data + body_len, 0, 0, 0 };
    int rc = -1;
    cursor c;

    /* Header. */
    if (!next_line(&in) || in.n != strlen(REPLAY_MAGIC) || memcmp(in.s, REPLAY_MAGIC, in.n) != 0) {
        const char *family = "qphys-replay ";
        size_t fn = strlen(family);
        if (in.n > fn && in.n < 40 && memcmp(in.s, family, fn) == 0) {
            err->other_format = 1;
            return fail(err, 1, "recorded by another qphys version, in format '%.*s'; this one reads '%s'",
                        (int)in.n, in.s, REPLAY_MAGIC);
        }
        return fail(err, 1, "not a qphys replay file of this version (expected '%s')", REPLAY_MAGIC);
    }
    int have_engine = 0, have_steps = 0, have_version = 0;
    unsigned long steps = 0, scene_lines = 0;
    for (;;) {
        if (!next_line(&in)) return fail(err, in.line, "incomplete header: no 'scene' line");
        c.p = in.s;
        c.end = in.s + in.n;
        if (in.n == 0 || in.s[0] == '#') continue;
        if (word(&c, "engine")) {
            if (have_engine || in.n - 7 >= sizeof r->engine || at_end(&c))
                return fail(err, in.line, "expected one 'engine CONFIG' line");
            memcpy(r->engine, in.s + 7, in.n - 7);
            r->engine[in.n - 7] = 0;
            have_engine = 1;
        } else if (word(&c, "steps")) {
            /* Every step has an 's' line of at least 13 bytes: a bound before allocating. */
            if (have_steps || !num(&c, 100000000ul, &steps) || !at_end(&c) || steps > len / 13)
                return fail(err, in.line, "expected one 'steps N' line with N within the file's size");
            have_steps = 1;
        } else if (word(&c, "version")) {
            /* The recording qphys's VERSION: one word of printable characters. */
            unsigned long n = in.n - 8;
            int ok = !have_version && !at_end(&c) && n > 0 && n < sizeof r->version;
            for (unsigned long k = 0; ok && k < n; k++) ok = in.s[8 + k] > ' ' && in.s[8 + k] < 127;
            if (!ok) return fail(err, in.line, "expected one 'version V' line (V: at most %d printable characters)",
                                 (int)sizeof r->version - 1);
            memcpy(r->version, in.s + 8, n);
            r->version[n] = 0;
            have_version = 1;
        } else if (word(&c, "scene")) {
            if (!num(&c, 10000000ul, &scene_lines) || !at_end(&c) || scene_lines > len / 2)
                return fail(err, in.line, "expected 'scene LINES'");
            break;
        } else if (word(&c, "snapshot")) {
            /* snapshot BYTES CRC STEP: the world is the snapshot file beside this one. */
            unsigned long bytes, first;
            uint32_t crc;
            if (!num(&c, 0xFFFFFFFFul, &bytes) || !hex32(&c, ' ', &crc) || !num(&c, 0x7FFFFFFFul, &first) ||
                !at_end(&c))
                return fail(err, in.line, "expected 'snapshot BYTES CRC32 STEP'");
            r->from_snapshot = 1;
            r->snapshot_bytes = bytes;
            r->snapshot_crc = crc;
            r->first = (long)first;
            break;
        } else {
            return fail(err, in.line, "expected 'engine', 'version', 'steps', 'scene' or 'snapshot' in the header");
        }
    }
    if (!have_engine || !have_steps) return fail(err, in.line, "incomplete header: 'engine' and 'steps' come first");
    if ((unsigned long)r->first > 0x7FFFFFFFul - steps)
        return fail(err, in.line, "the steps run past step 2147483647");
    r->steps = (long)steps;
    const long first = r->first;

    /* The scene, one "| " line each. */
    r->scene_line = in.line;
    r->scene = malloc(body_len + 1);
    if (!r->scene) goto oom;
    for (unsigned long k = 0; k < scene_lines; k++) {
        if (!next_line(&in) || in.n < 1 || in.s[0] != '|' || (in.n > 1 && in.s[1] != ' ')) {
            fail(err, in.line, "expected scene line %lu of %lu, starting with '| '", k + 1, scene_lines);
            goto out;
        }
        if (in.n > 2) {
            memcpy(r->scene + r->scene_len, in.s + 2, in.n - 2);
            r->scene_len += in.n - 2;
        }
        r->scene[r->scene_len++] = '\n';
    }
    r->scene[r->scene_len] = 0;

    /* Steps. */
    r->world = calloc(steps + 1, sizeof *r->world);
    r->input_at = calloc(steps + 2, sizeof *r->input_at);
    r->body_at = calloc(steps + 2, sizeof *r->body_at);
    r->pose_at = calloc(steps + 2, sizeof *r->pose_at);
    if (!r->world || !r->input_at || !r->body_at || !r->pose_at) goto oom;
    unsigned long in_cap = 0, in_len = 0, body_cap = 0, body_n = 0, pose_cap = 0, pose_n = 0;
    long step = 0;   /* the step whose lines come next */
    int ended = 0;
    while (next_line(&in)) {
        c.p = in.s;
        c.end = in.s + in.n;
        if (in.n == 0 || in.s[0] == '#') continue;
        if (ended) {
            fail(err, in.line, "text after 'end'");
            goto out;
        }
        unsigned long st;
        if (word(&c, "end")) {
            if (!at_end(&c) || step != (long)steps + 1) {
                fail(err, in.line, "'end' after step %ld; the header says %lu steps", first + step - 1, steps);
                goto out;
            }
            ended = 1;
        } else if (word(&c, "i")) {
            /* i STEP HEX: one input entry (qphys/record.h) of the coming step. */
            if (!num(&c, 0xFFFFFFFFul, &st) || (long)st != first + step || step > (long)steps || c.p == c.end ||
                *c.p++ != ' ') {
                fail(err, in.line, "expected 'i %ld HEX' (inputs come before the 's' line of their step)",
                     first + step);
                goto out;
            }
            unsigned long digits = (unsigned long)(c.end - c.p);
            if (digits < 18 || digits % 2) {
                fail(err, in.line, "an input entry is an even number of hex digits, at least 18");
                goto out;
            }
            if (!grow((void **)&r->inputs, &in_cap, in_len + digits / 2, 1)) goto oom;
            unsigned char *e = r->inputs + in_len;
            for (unsigned long k = 0; k < digits / 2; k++) {
                int hi = hexval(c.p[2 * k]), lo = hexval(c.p[2 * k + 1]);
                if (hi < 0 || lo < 0) {
                    fail(err, in.line, "expected lowercase hex digits in the input entry");
                    goto out;
                }
                e[k] = (unsigned char)(hi << 4 | lo);
            }
            unsigned long entry_step = e[1] | (unsigned long)e[2] << 8 | (unsigned long)e[3] << 16 |
                                       (unsigned long)e[4] << 24;
            if (entry_step != st) {
                fail(err, in.line, "the input entry says step %lu, its line %lu", entry_step, st);
                goto out;
            }
            in_len += digits / 2;
        } else if (word(&c, "p")) {
            /* p STEP SLOT 13 numbers: a body's recorded state, before the 's' line. */
            unsigned long slot;
            replay_pose pose;
            if (!num(&c, 0xFFFFFFFFul, &st) || (long)st != first + step || step > (long)steps ||
                !num(&c, MAX_SLOT, &slot) || slot == 0) {
                fail(err, in.line, "expected 'p %ld SLOT' and 13 raw numbers", first + step);
                goto out;
            }
            pose.slot = (int)slot;
            for (int k = 0; k < 13; k++)
                if (!inum(&c, &pose.v[k])) {
                    fail(err, in.line, "expected 13 raw numbers (centre, rotation, velocity, spin)");
                    goto out;
                }
            if (!at_end(&c)) {
                fail(err, in.line, "text after the 13 numbers");
                goto out;
            }
            if (!grow((void **)&r->poses, &pose_cap, pose_n + 1, sizeof pose)) goto oom;
            r->poses[pose_n++] = pose;
        } else if (word(&c, "s")) {
            /* s STEP HASH [SLOT:HASH ...], slots increasing. */
            uint32_t h;
            if (!num(&c, 0xFFFFFFFFul, &st) || (long)st != first + step || step > (long)steps ||
                !hex32(&c, ' ', &h)) {
                fail(err, in.line, "expected 's %ld HASH' (steps count up from %ld to %ld)", first + step, first,
                     first + (long)steps);
                goto out;
            }
            r->world[step] = h;
            unsigned long last = 0;
            while (!at_end(&c)) {
                unsigned long slot;
                uint32_t bh;
                if (!num(&c, MAX_SLOT, &slot) || slot <= last) {
                    fail(err, in.line, "expected SLOT:HASH pairs, slots increasing from 1");
                    goto out;
                }
                if (!hex32(&c, ':', &bh)) {
                    fail(err, in.line, "expected SLOT:HASH pairs with 8 hex digits");
                    goto out;
                }
                last = slot;
                if (!grow((void **)&r->bodies, &body_cap, body_n + 1, sizeof *r->bodies)) goto oom;
                r->bodies[body_n].slot = (int)slot;
                r->bodies[body_n].hash = bh;
                body_n++;
            }
            step++;
            r->input_at[step] = in_len;
            r->body_at[step] = (long)body_n;
            r->pose_at[step] = (long)pose_n;
        } else {
            fail(err, in.line, "expected an 'i', 'p', 's' or 'end' line");
            goto out;
        }
    }
    if (!ended) {
        fail(err, in.line, "no 'end' line: the recording stopped at step %ld of %ld", first + step - 1,
             first + (long)steps);
        goto out;
    }
    return 0;
oom:
    fail(err, in.line, "out of memory");
out:
    replay_free(r);
    return rc;
}
