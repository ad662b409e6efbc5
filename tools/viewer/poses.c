/* SPDX-License-Identifier: MIT */
/* poses - the board's frame lines, parsed and checked (poses.h). */
#define _POSIX_C_SOURCE 200809L
#include "poses.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS_PER_BODY 7
#define HEX_PER_BODY (WORDS_PER_BODY * 8)

uint32_t vw_crc32(const char *s, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= (uint8_t)s[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* 8 lowercase hex digits at *p (advanced past them). */
static bool hex32(const char **p, uint32_t *v)
{
    uint32_t x = 0;
    for (int i = 0; i < 8; i++) {
        int d = hex_digit((*p)[i]);
        if (d < 0) return false;
        x = x << 4 | (uint32_t)d;
    }
    *p += 8;
    *v = x;
    return true;
}

/* A decimal number at *p, 0 .. max (advanced past it). */
static bool decimal(const char **p, long max, long *v)
{
    long x = 0;
    const char *s = *p;
    if (*s < '0' || *s > '9') return false;
    while (*s >= '0' && *s <= '9') {
        x = x * 10 + (*s++ - '0');
        if (x > max) return false;
    }
    *p = s;
    *v = x;
    return true;
}

/* One frame line (without its newline) into f, its poses into room (capacity room_n). */
static const char *parse_frame(const char *line, size_t len, vw_frame *f, vw_pose *room, long room_n)
{
    const char *star = len >= 10 ? line + len - 9 : 0;
    if (!star || *star != '*' || star[-1] != ' ') return "no ' *CRC' at the end of the line";
    const char *p = star + 1;
    uint32_t crc;
    if (!hex32(&p, &crc)) return "the CRC is not 8 hex digits";
    if (vw_crc32(line, (size_t)(star - line)) != crc) return "CRC mismatch (the line was damaged on its way)";
    p = line + 2;
    long step, count;
    if (!decimal(&p, 100000000L, &step) || *p++ != ' ') return "bad step number";
    if (!hex32(&p, &f->hash) || *p++ != ' ') return "bad hash";
    if (!decimal(&p, room_n, &count)) return "bad body count";
    for (long k = 0; k < count; k++) {
        uint32_t v[WORDS_PER_BODY];
        if (*p++ != ' ') return "a body's pose is missing";
        for (int i = 0; i < WORDS_PER_BODY; i++)
            if (!hex32(&p, &v[i])) return "a body's pose is not 56 hex digits";
        vw_pose *b = &room[k];
        b->center.x = (int32_t)v[0];
        b->center.y = (int32_t)v[1];
        b->center.z = (int32_t)v[2];
        b->rotation.w = (int32_t)v[3];
        b->rotation.x = (int32_t)v[4];
        b->rotation.y = (int32_t)v[5];
        b->rotation.z = (int32_t)v[6];
    }
    if (p != star - 1) return "more fields than the body count says";
    f->step = step;
    f->count = (int)count;
    f->poses = room;
    return 0;
}

bool vw_read_frames(const char *path, vw_frames *out)
{
    memset(out, 0, sizeof *out);
    FILE *in = fopen(path, "rb");
    if (!in) {
        perror(path);
        return false;
    }
    char *line = 0;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0, frames_cap = 0, poses_n = 0, poses_cap = 0;
    const char *err = 0;
    while (!err && (got = getline(&line, &cap, in)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        if (len < 2 || line[0] != 'F' || line[1] != ' ') continue; /* the board's other messages */
        long room = (long)len / (HEX_PER_BODY + 1) + 1;                /* bodies this line can hold */
        if (out->n == frames_cap) {
            frames_cap = frames_cap ? 2 * frames_cap : 64;
            vw_frame *f = realloc(out->frames, (size_t)frames_cap * sizeof *f);
            if (!f) { err = "out of memory"; break; }
            out->frames = f;
        }
        if (poses_n + room > poses_cap) {
            while (poses_n + room > poses_cap) poses_cap = poses_cap ? 2 * poses_cap : 1024;
            vw_pose *a = realloc(out->all, (size_t)poses_cap * sizeof *a);
            if (!a) { err = "out of memory"; break; }
            out->all = a;
        }
        vw_frame *f = &out->frames[out->n];
        /* poses holds an offset until the array stops moving (fixed up below) */
        err = parse_frame(line, len, f, out->all + poses_n, room);
        if (!err) {
            f->poses = (const vw_pose *)(uintptr_t)poses_n;
            poses_n += f->count;
            out->n++;
        }
    }
    free(line);
    fclose(in);
    if (err) fprintf(stderr, "%s:%ld: %s\n", path, lineno, err);
    else if (out->n == 0) fprintf(stderr, "%s: no frame lines (F STEP HASH COUNT ... *CRC): was it built with SCENE_POSES?\n", path);
    if (err || out->n == 0) {
        vw_free_frames(out);
        return false;
    }
    for (int i = 0; i < out->n; i++) out->frames[i].poses = out->all + (uintptr_t)out->frames[i].poses;
    return true;
}

void vw_free_frames(vw_frames *f)
{
    free(f->frames);
    free(f->all);
    memset(f, 0, sizeof *f);
}
