/* SPDX-License-Identifier: MIT */
/* hostile.h - structure-aware hostile state: a live world's fields edited as an attacker
 * would, then written by qp_world_snapshot (so the CRC is right), restored and stepped; and
 * a live world's input log edited the same way, then replayed. Shared by the libFuzzer
 * targets fuzz_state.c and fuzz_inputlog.c and by the oracle driver hostile_run.c, which
 * prints what the same bytes give (refused with its code, or the hashes of every step) so
 * that a gcc build and a clang build can be compared (tests/scripts/fuzz-oracle.sh).
 *
 * An edit script is bytes: a base world (one of HS_BASES, after one of HS_STEP_CHOICES step
 * counts), then edits of 8 bytes each: target, index, word, mode, value (4 bytes). Targets:
 * a body, a shape slot, a contact, a joint, the world definition, the statistics (each as
 * a run of 32-bit words, one word changed), or an edit by meaning (a count off by one, a
 * state or flag bit turned, two contacts swapped, a contact naming one body twice). Modes:
 * an extreme (INT32_MIN, INT32_MAX, 0, +-1, +-1.0, +-2^30, ...), the sign turned, one more
 * or one less, a raw value, a bit turned, doubled, a small multiple of 1/64.
 *
 * Promises checked on every run (abort() when one breaks, which libFuzzer reports): the
 * snapshot of the edited world fits QP_SNAPSHOT_MAX_SIZE; a refused snapshot leaves the world
 * restored into byte for byte as it was; an accepted one snapshots back to the same bytes and
 * steps HS_STEPS times with every speed within its clamp and every body inside the bounds or
 * frozen and flagged; a refused input log entry leaves the world as the entries before it
 * left it. Undefined behaviour and memory errors are the sanitizers' to report. */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qphys/qphys.h"
#include "qphys/record.h"

#define HS_BASES 4
#define HS_STEP_CHOICES 12
#define HS_STEPS 8          /* steps of an accepted snapshot */
#define HS_LOG_STEPS 12     /* steps of the recorded script and of its replay */

static const int hs_step_counts[HS_STEP_CHOICES] = { 0, 1, 2, 3, 5, 8, 13, 21, 34, 60, 120, 400 };

/* ---- reading the script ------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n, at;
} hs_bytes;

static uint32_t hs_byte(hs_bytes *b)
{
    return b->at < b->n ? b->p[b->at++] : 0u;
}

static uint32_t hs_u32(hs_bytes *b)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= hs_byte(b) << (8 * i);
    return v;
}

/* ---- values ---------------------------------------------------------------------------------- */

static const int32_t hs_extremes[] = { INT32_MIN, INT32_MAX, 0, -1, 1, QP_ONE, -QP_ONE, 1 << 30, -(1 << 30),
                                       INT32_MIN + 1, 32767, 65535, 65536, QP_INT(100), QP_INT(10000),
                                       QP_INT(10001), QP_FRAC(1, 100) };

/* Wrapping arithmetic in uint32_t: the fuzzer's own edits are never undefined. */
static int32_t hs_value(int32_t old, uint32_t mode, uint32_t raw)
{
    uint32_t u = (uint32_t)old;
    switch (mode % 8u) {
    case 0: return hs_extremes[raw % (sizeof hs_extremes / sizeof hs_extremes[0])];
    case 1: return (int32_t)(0u - u);
    case 2: return (int32_t)(u + 1u);
    case 3: return (int32_t)(u - 1u);
    case 4: return (int32_t)raw;
    case 5: return (int32_t)(u ^ (1u << (raw % 32u)));
    case 6: return (int32_t)(u * 2u);
    default: return (int32_t)((raw % 4096u) * 1024u) * ((raw & 0x80000000u) ? -1 : 1);
    }
}

static void hs_edit_words(void *obj, size_t size, uint32_t word, uint32_t mode, uint32_t raw)
{
    size_t n = size / 4u;
    if (n == 0) return;
    unsigned char *p = (unsigned char *)obj + 4u * (word % n);
    int32_t old;
    memcpy(&old, p, 4);
    int32_t v = hs_value(old, mode, raw);
    memcpy(p, &v, 4);
}

/* ---- base worlds ------------------------------------------------------------------------------ */

static void hs_load(qp_world *w, const char *text)
{
    if (qp_scene_load(w, text, strlen(text), NULL, NULL) != QP_OK) abort();
}

static qp_body_id hs_create(qp_world *w, qp_body_type type, qp_vec3 pos, qp_shape shape, bool sensor, qp_vec3 v)
{
    qp_body_def d = qp_default_body_def();
    d.type = type;
    d.position = pos;
    d.linear_velocity = v;
    d.shape_count = 1;
    d.shapes[0] = shape;
    d.sensors[0] = sensor;
    qp_result r;
    qp_body_id id = qp_create_body(w, &d, &r);
    if (r != QP_OK) abort();
    return id;
}

static qp_shape hs_box(fix16_t h)
{
    qp_shape s;
    if (qp_make_box(qp_v3(h, h, h), &s) != QP_OK) abort();
    return s;
}

static qp_shape hs_sphere(fix16_t r)
{
    qp_shape s;
    if (qp_make_sphere(r, &s) != QP_OK) abort();
    return s;
}

/* 0: shapes of every kind and a compound; 1: joints, a sensor, a filtered shape, a moving
 * kinematic platform; 2: a pile that falls asleep and a sleeper; 3: a 10 m world a ball is
 * thrown out of (frozen, flagged). */
static void hs_make_base(qp_world *w, int which)
{
    switch (which) {
    case 0:
        hs_load(w, "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\nsphere radius 0.3 pos 1 2 0\n"
                   "capsule radius 0.2 half_height 0.4 pos -1 1 0 rot 0 0 1 90\n"
                   "compound pos 2 1 2\npart box half 0.3 0.1 0.3 at 0 0 0\npart sphere radius 0.2 at 0 0.3 0\nend\n");
        break;
    case 1: {
        hs_load(w, "plane\nbox half 0.5 0.5 0.5 pos 0 3 0\nbox half 0.5 0.5 0.5 pos 1.5 3 0\n"
                   "sphere radius 0.3 pos -2 4 0\n"
                   "box half 1.5 0.1 1.5 pos 4 0.5 0 kinematic vel 0 0.5 0\nbox half 0.4 0.4 0.4 pos 4 1.2 0\n"
                   "hinge 1 2 anchor 0.75 3 0 axis 0 0 1 limit -1 1\nball 0 3 anchor -2 5 0\n"
                   "distance 2 3 anchor 1.5 3 0 anchor -2 4 0 max 4 min 1\n");
        hs_create(w, QP_BODY_STATIC, qp_v3(0, QP_FRAC(1, 2), QP_INT(2)), hs_sphere(QP_ONE), true, qp_v3(0, 0, 0));
        qp_shape_filter f = { 2, 0xFFFDu, -3 };
        if (qp_body_set_shape_filter(w, qp_world_body_at(w, 6), 0, f) != QP_OK) abort();
        break;
    }
    case 2:
        hs_load(w, "plane\nbox half 0.5 0.5 0.5 pos 0 0.5 0\nbox half 0.5 0.5 0.5 pos 0 1.5 0\n"
                   "box half 0.5 0.5 0.5 pos 0 2.5 0\nsphere radius 0.5 pos 3 0.5 0 asleep\n");
        break;
    default: {
        qp_world_def d = qp_default_world_def();
        d.bounds = QP_INT(10);
        if (qp_world_init(w, &d) != QP_OK) abort();
        qp_body_def plane = qp_default_body_def();
        plane.type = QP_BODY_STATIC;
        plane.shape_count = 1;
        if (qp_make_plane(qp_v3(0, QP_ONE, 0), 0, &plane.shapes[0]) != QP_OK) abort();
        qp_result r;
        qp_create_body(w, &plane, &r);
        hs_create(w, QP_BODY_DYNAMIC, qp_v3(QP_INT(9), QP_INT(1), 0), hs_sphere(QP_FRAC(3, 10)), false,
                  qp_v3(QP_INT(100), 0, 0));
        hs_create(w, QP_BODY_DYNAMIC, qp_v3(0, QP_FRAC(1, 2), 0), hs_box(QP_FRAC(1, 2)), false, qp_v3(0, 0, 0));
        break;
    }
    }
}

/* Base worlds after each step count, made once. */
static qp_world hs_cache[HS_BASES][HS_STEP_CHOICES];
static int hs_cached[HS_BASES][HS_STEP_CHOICES];

static const qp_world *hs_base(int which, int choice)
{
    if (!hs_cached[which][choice]) {
        qp_world *w = &hs_cache[which][choice];
        hs_make_base(w, which);
        for (int s = 0; s < hs_step_counts[choice]; s++) qp_world_step(w);
        hs_cached[which][choice] = 1;
    }
    return &hs_cache[which][choice];
}

/* ---- edits of a world ------------------------------------------------------------------------------ */

static int hs_used_body(const qp_world *w, uint32_t pick)
{
    int used = 0;
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++) used += (w->bodies[i].state & QP_STATE_USED) != 0;
    if (used == 0) return 0;
    int k = (int)(pick % (uint32_t)used);
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++)
        if ((w->bodies[i].state & QP_STATE_USED) && k-- == 0) return i;
    return 0;
}

/* The contacts an edit may name: within the pool whatever an earlier edit did to the count. */
static int hs_contacts(const qp_world *w)
{
    return w->contact_count < 0 ? 0 : w->contact_count > QP_CFG_MAX_CONTACTS ? QP_CFG_MAX_CONTACTS : w->contact_count;
}

static void hs_edit_meaning(qp_world *w, uint32_t index, uint32_t what, uint32_t raw)
{
    static const uint16_t state_bits[] = { QP_STATE_USED, QP_STATE_DYNAMIC, QP_STATE_ASLEEP, QP_STATE_FROZEN,
                                           QP_STATE_KINEMATIC, QP_STATE_PLACED, QP_STATE_STILL };
    const int step = (raw & 1u) ? 1 : -1;
    int b = hs_used_body(w, index);
    const int contacts = hs_contacts(w);
    qp_contact *c = contacts > 0 ? &w->contacts[index % (uint32_t)contacts] : NULL;
    switch (what % 12u) {
    case 0: w->contact_count += step; break;
    case 1: if (b) w->bodies[b].shape_count = (uint8_t)(w->bodies[b].shape_count + step); break;
    case 2: if (b) w->bodies[b].state ^= state_bits[raw % 7u]; break;
    case 3: if (c) c->flags ^= (uint8_t)(1u << (raw % 8u)); break;
    case 4: if (c) c->count = (uint8_t)(c->count + step); break;
    case 5: w->body_high += step; break;
    case 6: {
        qp_joint *j = &w->joints[index % QP_CFG_MAX_JOINTS];
        if (raw & 2u) j->a = j->b;
        else j->b = (uint16_t)hs_used_body(w, raw >> 2);
        break;
    }
    case 7: w->sensor_overlap_count += step; break;
    case 8: if (b) w->bodies[b].generation = 0; break;
    case 9:
        if (contacts > 1) {
            qp_contact t = w->contacts[0];
            w->contacts[0] = w->contacts[contacts - 1];
            w->contacts[contacts - 1] = t;
        }
        break;
    case 10: if (c) c->b = c->a; break;
    default: if (b) w->bodies[b].flags ^= QP_FLAG_OUT_OF_BOUNDS; break;
    }
}

static void hs_edit(qp_world *w, uint32_t target, uint32_t index, uint32_t word, uint32_t mode, uint32_t raw)
{
    switch (target % 7u) {
    case 0: {
        int b = hs_used_body(w, index);
        if (b) hs_edit_words(&w->bodies[b], sizeof w->bodies[b], word, mode, raw);
        break;
    }
    case 1: {
        int b = hs_used_body(w, index);
        int count = b ? w->bodies[b].shape_count : 0;   /* an earlier edit may have changed it */
        if (count > QP_CFG_MAX_BODY_SHAPES) count = QP_CFG_MAX_BODY_SHAPES;
        if (count > 0) {
            int k = (int)(raw % (uint32_t)count);
            hs_edit_words(&w->shapes[w->bodies[b].shapes[k] % QP_CFG_MAX_SHAPES], sizeof(qp_shape_slot), word, mode,
                          raw >> 8);
        }
        break;
    }
    case 2:
        if (hs_contacts(w) > 0)
            hs_edit_words(&w->contacts[index % (uint32_t)hs_contacts(w)], sizeof(qp_contact), word, mode, raw);
        break;
    case 3: hs_edit_words(&w->joints[index % QP_CFG_MAX_JOINTS], sizeof(qp_joint), word, mode, raw); break;
    case 4: hs_edit_words(&w->def, sizeof w->def, word, mode, raw); break;
    case 5: hs_edit_words(&w->stats, sizeof w->stats, word, mode, raw); break;
    default: hs_edit_meaning(w, index, word, raw); break;
    }
}

/* The snapshot writer trusts the world's own indices and bools (a program cannot break them
 * through the API): keep the indices it follows within their arrays and the bools 0 or 1,
 * whatever the edits did to them. Every value they name may still be wrong for restore. */
static void hs_bool(bool *b)
{
    unsigned char byte;
    memcpy(&byte, b, 1);
    byte = byte != 0;
    memcpy(b, &byte, 1);
}

/* A hull, mesh or heightfield shape is read through a pointer (the shape's first union): an
 * edit may give any shape one of those types, or change the pointer, which no program can do
 * through the API. Such a shape takes the unedited world's type again, and with a pointer type
 * its pointer; the slot's other values keep their edits. */
static bool hs_by_pointer(qp_shape_type t)
{
    return t == QP_SHAPE_HULL || t == QP_SHAPE_MESH || t == QP_SHAPE_HEIGHTFIELD;
}

static void hs_writer_safe(qp_world *w, const qp_world *unedited)
{
    /* A bool holds 0 or 1 in any program (a word edit may have put 2 there). */
    hs_bool(&w->def.restitution_ramp);
    hs_bool(&w->def.alternate_sweeps);
    hs_bool(&w->def.accumulate_impulses);
    hs_bool(&w->def.warm_start);
    hs_bool(&w->def.gyroscopic);
    hs_bool(&w->def.joint_tree);
    hs_bool(&w->def.sleep_enabled);
    for (int i = 1; i <= QP_CFG_MAX_BODIES; i++) {
        qp_body_state *b = &w->bodies[i];
        if (b->shape_count > QP_CFG_MAX_BODY_SHAPES) b->shape_count = QP_CFG_MAX_BODY_SHAPES;
        for (int k = 0; k < QP_CFG_MAX_BODY_SHAPES; k++) b->shapes[k] = (uint16_t)(b->shapes[k] % QP_CFG_MAX_SHAPES);
    }
    if (w->contact_count < 0) w->contact_count = 0;
    if (w->contact_count > QP_CFG_MAX_CONTACTS) w->contact_count = QP_CFG_MAX_CONTACTS;
    for (int c = 0; c < w->contact_count; c++)
        if (w->contacts[c].count > QP_MAX_MANIFOLD_POINTS) w->contacts[c].count = QP_MAX_MANIFOLD_POINTS;
    for (int i = 0; i < QP_CFG_MAX_SHAPES; i++) {
        qp_shape *sh = &w->shapes[i].shape;
        const qp_shape *was = &unedited->shapes[i].shape;
        if (!hs_by_pointer(sh->type)) continue;
        sh->type = was->type;
        if (sh->type == QP_SHAPE_HULL) sh->hull = &w->hulls[was->hull - unedited->hulls];   /* the world's own */
        else if (hs_by_pointer(sh->type)) sh->mesh = was->mesh;   /* the caller's level data, shared */
    }
    if (w->sensor_overlap_count < 0) w->sensor_overlap_count = 0;
    if (w->sensor_overlap_count > QP_CFG_MAX_SENSOR_OVERLAPS) w->sensor_overlap_count = QP_CFG_MAX_SENSOR_OVERLAPS;
    for (int k = 0; k < w->sensor_overlap_count; k++) {
        w->sensor_overlaps[k].a = (uint16_t)(w->sensor_overlaps[k].a % QP_CFG_MAX_SHAPES);
        w->sensor_overlaps[k].b = (uint16_t)(w->sensor_overlaps[k].b % QP_CFG_MAX_SHAPES);
    }
}

/* ---- the promises of a world after a restore or a replayed step ------------------------------------- */

/* Speeds within their clamps; every centre of mass (what the bounds hold: a body's origin may
 * lie up to 100 m from it) inside the bounds, or its body frozen and flagged. */
static void hs_check_world(const qp_world *w)
{
    const qp_world_def *d = qp_world_get_def(w);
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(w, i);
        if (qp_body_id_is_null(id)) continue;
        const qp_body_state *b = &w->bodies[i];
        if (qp_v3_len_sq_wide(b->v) > (int64_t)d->max_linear_speed * d->max_linear_speed ||
            qp_v3_len_sq_wide(b->w) > (int64_t)d->max_angular_speed * d->max_angular_speed)
            abort();
        if (qp_v3_max_abs(b->x) > d->bounds &&
            (!(b->state & QP_STATE_FROZEN) || !(qp_body_flags(w, id) & QP_FLAG_OUT_OF_BOUNDS)))
            abort();
    }
}

/* ---- a snapshot restored and stepped ---------------------------------------------------------------- */

static qp_world hs_world, hs_target, hs_before, hs_after;
static qp_world hs_unedited;   /* hs_world before an edit script */
static unsigned char hs_snap[QP_SNAPSHOT_MAX_SIZE], hs_again[QP_SNAPSHOT_MAX_SIZE];

/* What a run gives: refused with its code, or the hash after each step. */
typedef struct {
    qp_result result;
    int steps;
    uint32_t hash[HS_LOG_STEPS + 1];
    int calls;                      /* input log: the results of the replayed entries */
    qp_result call[64];
} hs_outcome;

/* A world's pools are pointers into its memory: a copy to use is made with qp_world_copy
 * (byte copies of a world serve only to compare it, or to put its own bytes back). */
static void hs_copy(qp_world *to, const qp_world *from)
{
    if (qp_world_copy(to, from) != QP_OK) abort();
}

static void hs_restore_and_step(const unsigned char *snap, unsigned long n, hs_outcome *out)
{
    static int ready;
    static qp_world target0;
    if (!ready) {
        hs_load(&target0, "sphere radius 1 pos 0 5 0\nbox half 1 1 1 pos 3 1 0\n");
        ready = 1;
    }
    hs_copy(&hs_target, &target0);
    memcpy(&hs_before, &hs_target, sizeof hs_target);
    memset(out, 0, sizeof *out);
    out->result = qp_world_restore(&hs_target, snap, n);
    if (out->result != QP_OK) {
        if (memcmp(&hs_target, &hs_before, sizeof hs_target) != 0) abort();   /* refused: untouched */
        return;
    }
    if (qp_world_snapshot(&hs_target, hs_again, sizeof hs_again) != n || memcmp(hs_again, snap, n) != 0) abort();
    hs_check_world(&hs_target);
    out->hash[0] = qp_world_hash(&hs_target);
    for (int s = 1; s <= HS_STEPS; s++) {
        qp_world_step(&hs_target);
        hs_check_world(&hs_target);
        out->hash[s] = qp_world_hash(&hs_target);
    }
    out->steps = HS_STEPS;
}

/* An edit script: the base world, its edits, the snapshot written, restored and stepped. */
static void hs_run_state(const uint8_t *data, size_t size, hs_outcome *out)
{
    hs_bytes in = { data, size, 0 };
    int base = (int)(hs_byte(&in) % HS_BASES), choice = (int)(hs_byte(&in) % HS_STEP_CHOICES);
    hs_copy(&hs_world, hs_base(base, choice));
    hs_copy(&hs_unedited, &hs_world);
    for (int e = 0; e < 16 && in.at < in.n; e++) {
        uint32_t target = hs_byte(&in), index = hs_byte(&in), word = hs_byte(&in), mode = hs_byte(&in);
        uint32_t raw = hs_u32(&in);
        hs_edit(&hs_world, target, index, word, mode, raw);
    }
    hs_writer_safe(&hs_world, &hs_unedited);
    unsigned long n = qp_world_snapshot(&hs_world, hs_snap, sizeof hs_snap);
    if (n > sizeof hs_snap) abort();   /* QP_SNAPSHOT_MAX_SIZE is not the bound it says */
    hs_restore_and_step(hs_snap, n, out);
}

/* ---- an input log edited and replayed ------------------------------------------------------------------- */

static qp_world hs_log_start;
static unsigned char hs_log[16384], hs_log_edit[16384];
static unsigned long hs_log_len;
static unsigned long hs_entry_at[64];
static int hs_entries;

/* The entries written since the last mark start where the log stood then. */
static unsigned long hs_marked;
static void hs_mark(const qp_input_log *log)
{
    if (log->len > hs_marked && hs_entries < 64) hs_entry_at[hs_entries++] = hs_marked;
    hs_marked = log->len;
}

/* A script of every kind of call over HS_LOG_STEPS steps, recorded once from base 0 after 3
 * steps; each call's entry is marked where it starts. */
static void hs_record(void)
{
    static int ready;
    if (ready) return;
    ready = 1;
    qp_world *w = &hs_world;
    hs_copy(w, hs_base(0, 3));
    hs_copy(&hs_log_start, w);
    qp_input_log log;
    if (qp_input_log_init(&log, hs_log, sizeof hs_log) != QP_OK) abort();
    qp_world_set_input_log(w, &log);
    qp_body_id box = qp_world_body_at(w, 2), ball = qp_world_body_at(w, 3), made = qp_null_body();
    qp_joint_id joint = qp_null_joint();
    qp_result r;
    for (int s = 0; s < HS_LOG_STEPS; s++) {
        switch (s) {
        case 0:
            made = hs_create(w, QP_BODY_DYNAMIC, qp_v3(QP_INT(-2), QP_INT(2), 0), hs_box(QP_FRAC(1, 4)), false,
                             qp_v3(QP_ONE, 0, 0));
            hs_mark(&log);
            r = qp_body_set_pose(w, ball, qp_v3(QP_ONE, QP_INT(3), 0), (qp_quat){ QP_Q30_ONE, 0, 0, 0 });
            hs_mark(&log);
            break;
        case 1:
            r = qp_body_set_linear_velocity(w, box, qp_v3(0, QP_INT(2), 0));
            hs_mark(&log);
            r = qp_body_set_angular_velocity(w, ball, qp_v3(QP_ONE, 0, 0));
            hs_mark(&log);
            break;
        case 2:
            r = qp_body_apply_force(w, box, qp_v3(QP_INT(10), 0, 0));
            hs_mark(&log);
            r = qp_body_apply_torque(w, ball, qp_v3(0, QP_INT(1), 0));
            hs_mark(&log);
            r = qp_body_apply_impulse(w, made, qp_v3(0, QP_ONE, 0), qp_v3(QP_INT(-2), QP_INT(2), 0));
            hs_mark(&log);
            break;
        case 3: {
            qp_joint_def jd = qp_default_joint_def();
            jd.a = box;
            jd.b = made;
            jd.anchor = qp_v3(QP_INT(-1), QP_INT(1), 0);
            joint = qp_create_joint(w, &jd, &r);
            hs_mark(&log);
            break;
        }
        case 4: {
            qp_shape_filter f = { 4, 0xFFFBu, 2 };
            r = qp_body_set_shape_filter(w, ball, 0, f);
            hs_mark(&log);
            r = qp_body_wake(w, box);
            hs_mark(&log);
            qp_body_clear_flags(w, ball);
            hs_mark(&log);
            break;
        }
        case 5:
            r = qp_destroy_joint(w, joint);
            hs_mark(&log);
            break;
        case 6:
            r = qp_destroy_body(w, made);
            hs_mark(&log);
            break;
        case 7:
            hs_create(w, QP_BODY_KINEMATIC, qp_v3(QP_INT(3), QP_ONE, 0), hs_box(QP_FRAC(1, 2)), false,
                      qp_v3(0, 0, QP_ONE));
            hs_mark(&log);
            hs_create(w, QP_BODY_STATIC, qp_v3(0, QP_ONE, QP_INT(-3)), hs_sphere(QP_ONE), true, qp_v3(0, 0, 0));
            hs_mark(&log);
            break;
        default: break;
        }
        qp_world_step(w);
    }
    (void)r;
    qp_world_set_input_log(w, NULL);
    if (log.lost || hs_entries != 15) abort();   /* every call above recorded */
    hs_log_len = log.len;
}

/* A width-byte little-endian field of the log at p. */
static int32_t hs_get_le(const unsigned char *p, int width)
{
    uint32_t v = 0;
    for (int i = 0; i < width; i++) v |= (uint32_t)p[i] << (8 * i);
    return (int32_t)v;
}

static void hs_put_le(unsigned char *p, int width, int32_t value)
{
    for (int i = 0; i < width; i++) p[i] = (unsigned char)((uint32_t)value >> (8 * i));
}

/* An edit script for the input log: up to 16 edits of 8 bytes (entry, offset in it, width 1,
 * 2 or 4, mode, value), and a last byte that may cut the log short. The log is replayed into
 * a copy of its start world, each step's entries then the step, HS_LOG_STEPS times. */
static void hs_run_inputlog(const uint8_t *data, size_t size, hs_outcome *out)
{
    hs_record();
    memcpy(hs_log_edit, hs_log, hs_log_len);
    unsigned long len = hs_log_len;
    hs_bytes in = { data, size, 0 };
    for (int e = 0; e < 16 && in.at + 8 <= in.n; e++) {
        int entry = (int)(hs_byte(&in) % (uint32_t)hs_entries);
        unsigned long start = hs_entry_at[entry], end = entry + 1 < hs_entries ? hs_entry_at[entry + 1] : hs_log_len;
        unsigned long off = start + hs_byte(&in) % (end - start);
        static const int widths[3] = { 1, 2, 4 };
        int width = widths[hs_byte(&in) % 3u];
        uint32_t mode = hs_byte(&in), raw = hs_u32(&in);
        if (off + (unsigned long)width > len) continue;
        hs_put_le(hs_log_edit + off, width, hs_value(hs_get_le(hs_log_edit + off, width), mode, raw));
    }
    if (in.at < in.n) {
        uint32_t cut = hs_byte(&in);
        if (cut < 32u) len = len * cut / 32u;   /* a log cut anywhere, entries included */
    }
    memset(out, 0, sizeof *out);
    qp_world *w = &hs_target;
    hs_copy(w, &hs_log_start);
    unsigned long at = 0;
    for (int s = 0; s <= HS_LOG_STEPS; s++) {
        if (s > 0) qp_world_step(w);
        while (at < len && out->calls < 64) {
            memcpy(&hs_before, w, sizeof *w);
            unsigned long was = at;
            qp_result r = qp_input_replay_step(w, hs_log_edit, len, &at, NULL);
            out->call[out->calls++] = r;
            if (r == QP_ERR_BUFFER) {
                /* The entries before the bad one applied, nothing of it: the same bytes cut just
                 * before it apply cleanly to the same world and give the same world. */
                memcpy(&hs_after, w, sizeof *w);
                memcpy(w, &hs_before, sizeof *w);
                unsigned long again = was;
                if (qp_input_replay_step(w, hs_log_edit, at, &again, NULL) != QP_OK || again != at ||
                    memcmp(w, &hs_after, sizeof *w) != 0)
                    abort();
                at = len;   /* the rest of the log is not to be trusted */
                break;
            }
            if (r == QP_OK) break;   /* this step's entries done */
            if (at <= was) abort();  /* a failed call is passed, never stuck on */
        }
        hs_check_world(w);
        out->hash[s] = qp_world_hash(w);
    }
    out->steps = HS_LOG_STEPS;
}

/* One line for the oracle: what a gcc and a clang build must both print. */
static void hs_print(FILE *f, const hs_outcome *o)
{
    if (o->result != QP_OK) {
        fprintf(f, "refused %d\n", (int)o->result);
        return;
    }
    if (o->calls > 0) {
        fprintf(f, "calls");
        for (int k = 0; k < o->calls; k++) fprintf(f, " %d", (int)o->call[k]);
        fprintf(f, " |");
    }
    fprintf(f, "hashes");
    for (int s = 0; s <= o->steps; s++) fprintf(f, " %08x", (unsigned)o->hash[s]);
    fprintf(f, "\n");
}

#endif
