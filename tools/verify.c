/* SPDX-License-Identifier: MIT */
/* Verifying one recording (tools/verify.h). */
#define _POSIX_C_SOURCE 200809L
#include "sized_world.h"
#include "verify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qphys/record.h"
#include "qphys/scene.h"
#include "qphys/version.h"
#include "obj.h"
#include "replay.h"

#define MAX_FILE (256L * 1024 * 1024)

const char *verify_version(void) { return QP_VERSION_STRING; }

void verify_engine_config(char *buf, size_t size)
{
    snprintf(buf, size,
             "libfixmath FIXMATH_NO_CACHE=%d FIXMATH_NO_ROUNDING=%d FIXMATH_NO_OVERFLOW=%d FIXMATH_NO_64BIT=%d "
             "FIXMATH_OPTIMIZE_8BIT=%d FIXMATH_FAST_SIN=%d QP_CFG_MAX_BODIES=%d QP_CFG_MAX_SHAPES=%d "
             "QP_CFG_MAX_PAIRS=%d QP_CFG_MAX_CONTACTS=%d",
#ifdef FIXMATH_NO_CACHE
             1,
#else
             0,
#endif
#ifdef FIXMATH_NO_ROUNDING
             1,
#else
             0,
#endif
#ifdef FIXMATH_NO_OVERFLOW
             1,
#else
             0,
#endif
#ifdef FIXMATH_NO_64BIT
             1,
#else
             0,
#endif
#ifdef FIXMATH_OPTIMIZE_8BIT
             1,
#else
             0,
#endif
#ifdef FIXMATH_FAST_SIN
             1,
#else
             0,
#endif
             QP_CFG_MAX_BODIES, QP_CFG_MAX_SHAPES, QP_CFG_MAX_PAIRS, QP_CFG_MAX_CONTACTS);
}

static int verdict(verify_result *out, int status, const char *fmt, ...)
{
    va_list ap;
    out->status = status;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
    return status;
}

static const char *input_name(qp_input_kind k)
{
    static const char *const names[] = { "?", "create body", "destroy body", "set pose", "set linear velocity",
                                         "set angular velocity", "apply force", "apply torque", "apply impulse",
                                         "wake", "clear flags", "set shape filter" };
    _Static_assert(sizeof names / sizeof names[0] == QP_INPUT_KIND_END, "a name per body input kind");
    if (k == QP_INPUT_CREATE_JOINT) return "create joint";
    if (k == QP_INPUT_DESTROY_JOINT) return "destroy joint";
    return k > 0 && k < QP_INPUT_KIND_END ? names[k] : names[0];
}

/* The world the recording starts from: its scene, or its snapshot (checked against the
 * size, CRC-32 and step its header names). Nonzero: damaged, said in out. */
static int start_world(qp_world **wp, const char *path, const replay *rp, const void *snap, unsigned long snap_len,
                       int is_pair, verify_result *out, int sized)
{
    qp_world *w = *wp;
    if (is_pair != rp->from_snapshot)
        return verdict(out, VERIFY_DAMAGED, is_pair ? "a .qpin file must name its snapshot ('snapshot' line)"
                                                    : "names a snapshot: only a NAME.qpin beside NAME.qps may");
    if (!rp->from_snapshot) {
        qp_scene_error err;
        /* Mesh files are read relative to the recording's folder. */
        const qp_scene_level_store *store = obj_level_store(path, rp->scene, rp->scene_len);
        qp_result r = sized ? sized_world_load_scene(wp, rp->scene, rp->scene_len, NULL, &err, store)
                            : qp_scene_load_level(w, rp->scene, rp->scene_len, NULL, &err, store);
        if (r == QP_OK) return 0;
        if (err.line > 0) {
            out->line = err.line + rp->scene_line;
            out->column = err.column;
        }
        return verdict(out, VERIFY_DAMAGED, "scene: %s (%s)", err.message, qp_result_str(r));
    }
    if (!snap) return verdict(out, VERIFY_DAMAGED, "its snapshot (the .qps beside it) cannot be read");
    uint32_t crc = replay_crc32((const unsigned char *)snap, snap_len);
    if (snap_len != rp->snapshot_bytes || crc != rp->snapshot_crc)
        return verdict(out, VERIFY_DAMAGED,
                       "its snapshot is not the one recorded: %lu bytes, CRC-32 %08lx; the header says %lu, %08lx",
                       snap_len, (unsigned long)crc, rp->snapshot_bytes, (unsigned long)rp->snapshot_crc);
    char why[160];
    qp_result r = sized ? sized_world_restore(wp, snap, snap_len, why, sizeof why) : qp_world_restore(w, snap, snap_len);
    if (r != QP_OK)
        return verdict(out, VERIFY_DAMAGED, "its snapshot is not valid for this world (%s)",
                       sized ? why : qp_result_str(r));
    w = *wp;
    if ((long)qp_world_get_stats(w).step != rp->first)
        return verdict(out, VERIFY_DAMAGED, "its snapshot was taken at step %lu, the header says %ld",
                       (unsigned long)qp_world_get_stats(w).step, rp->first);
    return 0;
}

int verify_data(qp_world *w, const char *path, const char *data, unsigned long len, const void *snap,
                unsigned long snap_len, int is_pair, verify_result *out)
{
    memset(out, 0, sizeof *out);
    replay rp;
    replay_error err;
    if (replay_parse(data, len, &rp, &err) != 0) {
        out->line = err.line;
        out->column = err.line > 0 ? 1 : 0;
        /* The verdict names the damage already: "damaged: X" reads "X". */
        const char *why = strncmp(err.message, "damaged: ", 9) == 0 ? err.message + 9 : err.message;
        return verdict(out, err.other_format ? VERIFY_OTHER_VERSION : VERIFY_DAMAGED, "%s", why);
    }
    memcpy(out->version, rp.version, sizeof out->version);
    out->steps = rp.steps;
    out->step = rp.first;
    /* No world given: one sized to the file, kept for the next in the same thread (the
     * Python package verifies on several; tools/sized_world.h). */
    static _Thread_local qp_world *sized_world;
    int sized = w == NULL;
    if (sized) w = sized_world;
    int bad = start_world(&w, path, &rp, snap, snap_len, is_pair, out, sized);
    if (sized) sized_world = w;
    if (bad) {
        replay_free(&rp);
        return out->status;
    }
    char cfg[512];
    verify_engine_config(cfg, sizeof cfg);
    const char *note = strcmp(rp.engine, cfg) ? " (recorded with another engine configuration)" : "";

    /* The recorded hash of every slot, as of the step being compared. */
    enum { SLOTS = 65536 };
    uint32_t *expect = calloc(SLOTS, sizeof *expect);
    if (!expect) {
        replay_free(&rp);
        return verdict(out, VERIFY_DAMAGED, "out of memory");
    }
    int cap = qp_world_body_capacity(w);
    out->status = VERIFY_MATCHED;
    for (long s = 0; s <= rp.steps; s++) {
        long step = rp.first + s;
        out->step = step;
        if (s > 0) qp_world_step(w);
        unsigned long at = 0, n = rp.input_at[s + 1] - rp.input_at[s];
        qp_input_info info;
        const unsigned char *in = rp.inputs ? rp.inputs + rp.input_at[s] : NULL;
        qp_result r = qp_input_replay_step(w, in, n, &at, &info);
        if (r == QP_ERR_BUFFER || (r == QP_OK && at != n)) {
            verdict(out, VERIFY_DAMAGED, "an input of step %ld is not a well-formed entry (qphys/record.h)", step);
            break;
        }
        if (r != QP_OK) {
            int joint = info.kind >= QP_INPUT_CREATE_JOINT;
            out->body = joint ? 0 : info.body.index;
            char what[96];
            if (info.result != QP_OK) snprintf(what, sizeof what, "failed now: %s", qp_result_str(info.result));
            else if (joint) snprintf(what, sizeof what, "created joint %d:%d now", info.joint_got.index,
                                     info.joint_got.generation);
            else snprintf(what, sizeof what, "created body %d:%d now", info.got.index, info.got.generation);
            verdict(out, VERIFY_DIVERGED, "the recorded input '%s' on %s %d:%d %s%s", input_name(info.kind),
                    joint ? "joint" : "body", joint ? info.joint.index : info.body.index,
                    joint ? info.joint.generation : info.body.generation, what, note);
            break;
        }
        for (long k = rp.body_at[s]; k < rp.body_at[s + 1]; k++) expect[rp.bodies[k].slot] = rp.bodies[k].hash;
        uint32_t h = qp_world_hash(w);
        int first = 0;
        uint32_t got = 0;
        for (int i = 1; i < SLOTS && !first; i++) {
            uint32_t bh = i <= cap ? qp_body_hash(w, qp_world_body_at(w, i)) : 0;
            if (bh != expect[i]) {
                first = i;
                got = bh;
            }
        }
        out->world_hash = h;
        if (h == rp.world[s] && !first) continue;
        out->recorded_hash = rp.world[s];
        out->body = first;
        if (first)
            verdict(out, VERIFY_DIVERGED, "body hash %08lx, recorded %08lx; world hash %08lx, recorded %08lx%s",
                    (unsigned long)got, (unsigned long)expect[first], (unsigned long)h, (unsigned long)rp.world[s],
                    note);
        else
            verdict(out, VERIFY_DIVERGED, "world hash %08lx, recorded %08lx; no body hash differs%s",
                    (unsigned long)h, (unsigned long)rp.world[s], note);
        break;
    }
    free(expect);
    replay_free(&rp);
    return out->status;
}

int verify_is_pair(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".qpin") == 0;
}

/* The whole of path in *data (NUL-terminated), or an errno-like reason. */
static const char *slurp(const char *path, char **data, unsigned long *len)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return strerror(errno);
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    const char *why = NULL;
    while (b) {
        if (n == cap) {
            if ((long)cap >= MAX_FILE) {
                why = "larger than 256 MiB";
                break;
            }
            cap *= 2;
            char *p = realloc(b, cap);
            if (!p) break;
            b = p;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (!b) why = "out of memory";
    else if (!why && ferror(f)) why = "read error";
    fclose(f);
    if (why) {
        free(b);
        return why;
    }
    *data = b;
    *len = (unsigned long)n;
    return NULL;
}

int verify_file(qp_world *w, const char *path, verify_result *out)
{
    memset(out, 0, sizeof *out);
    char *data, *snap = NULL;
    unsigned long len, snap_len = 0;
    const char *why = slurp(path, &data, &len);
    if (why) return verdict(out, VERIFY_DAMAGED, "cannot read: %s", why);
    int pair = verify_is_pair(path);
    if (pair) {
        size_t n = strlen(path);
        char *sp = malloc(n + 1);
        if (sp) {
            memcpy(sp, path, n - 5);
            memcpy(sp + n - 5, ".qps", 5);
            if (slurp(sp, &snap, &snap_len)) snap = NULL;
            free(sp);
        }
    }
    int status = verify_data(w, path, data, len, snap, snap_len, pair, out);
    free(snap);
    free(data);
    return status;
}

int verify_line(const verify_result *r, const char *path, char *buf, size_t size)
{
    char by[96] = "";
    if (r->version[0] && strcmp(r->version, verify_version()) != 0)
        snprintf(by, sizeof by, " (recorded by qphys %s; this is %s)", r->version, verify_version());
    switch (r->status) {
    case VERIFY_MATCHED:
        return snprintf(buf, size, "%s: matched: %lld steps, final hash %08lx%s", path, (long long)r->steps,
                        (unsigned long)r->world_hash, by);
    case VERIFY_DIVERGED:
        if (r->body)
            return snprintf(buf, size, "%s: diverged at step %lld, body %d: %s%s", path, (long long)r->step,
                            (int)r->body, r->message, by);
        return snprintf(buf, size, "%s: diverged at step %lld: %s%s", path, (long long)r->step, r->message, by);
    case VERIFY_OTHER_VERSION: return snprintf(buf, size, "%s: other version: %s", path, r->message);
    default:
        if (r->line > 0)
            return snprintf(buf, size, "%s: damaged: line %d, column %d: %s", path, (int)r->line, (int)r->column,
                            r->message);
        return snprintf(buf, size, "%s: damaged: %s", path, r->message);
    }
}
