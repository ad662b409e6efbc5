/* SPDX-License-Identifier: MIT */
/* A world sized to the file a tool loads (tools/sized_world.h). */
#include "sized_world.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sized_world_max_bodies;

static int max_of(int a, int b) { return a > b ? a : b; }

qp_world_caps sized_world_caps(int bodies, int shapes, int joints, int hulls)
{
    const qp_world_caps d = QP_DEFAULT_CAPS_INIT;
    qp_world_caps c = qp_world_caps_for(max_of(bodies, d.bodies), max_of(shapes, d.shapes), max_of(joints, d.joints));
    c.pairs = max_of(c.pairs, d.pairs);
    c.contacts = max_of(c.contacts, d.contacts);
    c.events = max_of(c.events, d.events);
    c.sensor_overlaps = max_of(c.sensor_overlaps, d.sensor_overlaps);
    c.hulls = d.hulls > 0 ? max_of(hulls, d.hulls) : 0;   /* 0: a library without hulls refuses them */
    return c;
}

/* A fresh world of capacities c in memory of its own (null when there is none). */
static qp_world *new_world(const qp_world_caps *c)
{
    unsigned long n = qp_world_memory_size(c);
    void *memory = n ? malloc(n) : NULL;
    qp_world *w = NULL;
    qp_world_def def = qp_default_world_def();
    if (memory && qp_world_init_in(memory, n, c, &def, &w) != QP_OK) {
        free(memory);
        w = NULL;
    }
    return w;
}

/* *w if it has capacities c, else a new world of them (null when there is no memory). */
static qp_world *world_for(qp_world *const *w, const qp_world_caps *c)
{
    if (*w) {
        qp_world_caps have = qp_world_get_caps(*w);
        if (!memcmp(&have, c, sizeof have)) return *w;
    }
    return new_world(c);
}

/* Keep `used` in *w: when it is new, the old world's memory goes. */
static void keep(qp_world **w, qp_world *used)
{
    if (used == *w) return;
    free(*w);
    *w = used;
}

/* The line of body number n (1-based) of a scene, 0 if it has fewer: bodies are the body
 * lines and the mesh and heightfield lines, in file order. */
static int body_line(const char *text, unsigned long len, int n, int *column)
{
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    static qp_scene_item item;
    qp_scene_error err;
    int k = 0;
    while (qp_scene_next(&rd, &item, &err) > 0) {
        bool body = item.kind == QP_SCENE_BODY || item.kind == QP_SCENE_MESH || item.kind == QP_SCENE_HEIGHTFIELD;
        if (!body || ++k < n) continue;
        *column = (int)item.at + 1;
        return item.line;
    }
    return 0;
}

static int limit(void) { return sized_world_max_bodies > 0 ? sized_world_max_bodies : 65532; }

qp_result sized_world_load_scene(qp_world **w, const char *text, unsigned long len, qp_scene_info *info,
                                 qp_scene_error *err, const qp_scene_level_store *store)
{
    qp_scene_info in;
    qp_result r = qp_scene_check(text, len, &in, err);
    if (r != QP_OK) return r;
    if (in.bodies > limit()) {
        err->line = body_line(text, len, limit() + 1, &err->column);
        err->message = "more bodies than --max-bodies";
        err->result = QP_ERR_FULL;
        return QP_ERR_FULL;
    }
    qp_world_caps c = sized_world_caps(in.bodies, in.shapes, in.joints, in.hulls);
    qp_world *to = world_for(w, &c);
    if (!to) {
        err->line = err->column = 0;
        err->message = "no memory for a world of this size";
        err->result = QP_ERR_FULL;
        return QP_ERR_FULL;
    }
    r = qp_scene_load_level(to, text, len, info, err, store);
    if (r != QP_OK) {
        if (to != *w) free(to);
        return r;
    }
    keep(w, to);
    return QP_OK;
}

qp_result sized_world_restore(qp_world **w, const void *buf, unsigned long len, char *why, size_t why_size)
{
    qp_world_caps need;
    qp_result r = qp_snapshot_caps(buf, len, &need);
    if (r != QP_OK) {
        snprintf(why, why_size, "damaged, truncated or inconsistent");
        return r;
    }
    if (need.bodies > limit()) {
        snprintf(why, why_size, "its world has %d body slots, more than --max-bodies %d", need.bodies, limit());
        return QP_ERR_FULL;
    }
    qp_world_caps c = sized_world_caps(need.bodies, need.shapes, need.joints, need.hulls);
    c.pairs = max_of(c.pairs, need.pairs);
    c.contacts = max_of(c.contacts, need.contacts);
    c.sensor_overlaps = max_of(c.sensor_overlaps, need.sensor_overlaps);
    qp_world *to = world_for(w, &c);
    if (!to) {
        snprintf(why, why_size, "no memory for a world of %d bodies", c.bodies);
        return QP_ERR_FULL;
    }
    r = qp_world_restore(to, buf, len);
    if (r != QP_OK) {
        const char *s = r == QP_ERR_FULL ? qp_world_caps_short(&c, &need) : NULL;
        if (s) snprintf(why, why_size, "its world needs more %s than it has", s);
        else if (r == QP_ERR_PARAM)
            snprintf(why, why_size, "it names a mesh or heightfield that this world does not hold (qphys run "
                                    "SNAPSHOT --scene SCENE restores it over the scene it came from)");
        else snprintf(why, why_size, "damaged, truncated or inconsistent (%s)", qp_result_str(r));
        if (to != *w) free(to);
        return r;
    }
    keep(w, to);
    return QP_OK;
}

int sized_world_option(int argc, char **argv, int *i)
{
    if (strcmp(argv[*i], "--max-bodies") != 0) return 0;
    if (*i + 1 >= argc) return -1;
    char *end;
    errno = 0;
    long v = strtol(argv[*i + 1], &end, 10);
    if (errno || *end || end == argv[*i + 1] || v < 1 || v > 65532) return -1;
    sized_world_max_bodies = (int)v;
    *i += 1;
    return 1;
}

qp_result sized_world_copy(qp_world **twin, const qp_world *w)
{
    qp_world_caps c = qp_world_get_caps(w);
    qp_world *to = world_for(twin, &c);
    if (!to) return QP_ERR_FULL;
    keep(twin, to);
    return qp_world_copy(to, w);
}
