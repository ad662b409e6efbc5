/* SPDX-License-Identifier: MIT */
/* load - scene or snapshot files into a world (see load.h). */
#include "load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj.h"
#include "qphys/scene.h"
#include "../sized_world.h"

#define MAX_FILE (256ul * 1024 * 1024)

bool vw_read_file(const char *path, vw_file *f)
{
    f->data = 0;
    f->len = 0;
    FILE *in = fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *p = cap < MAX_FILE ? realloc(buf, cap * 2) : 0;
            if (!p) {
                free(buf);
                buf = 0;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, in);
        n += got;
        if (got == 0) break;
    }
    bool ok = buf && !ferror(in);
    fclose(in);
    if (!ok) {
        fprintf(stderr, "%s: cannot read (error, out of memory or larger than %lu bytes)\n", path, MAX_FILE);
        free(buf);
        return false;
    }
    f->data = buf;
    f->len = (unsigned long)n;
    return true;
}

void vw_free_file(vw_file *f)
{
    free(f->data);
    f->data = 0;
    f->len = 0;
}

bool vw_load(qp_world **w, const char *path, const vw_file *f)
{
    if (f->len >= 4 && !memcmp(f->data, "QPS", 3)) {   /* "QPS" and the format digit */
        char why[160];
        if (sized_world_restore(w, f->data, f->len, why, sizeof why) != QP_OK) {
            fprintf(stderr, "%s: error: not a valid snapshot: %s\n", path, why);
            return false;
        }
        return true;
    }
    qp_scene_error err;
    qp_result r = sized_world_load_scene(w, f->data, f->len, 0, &err, obj_level_store(path, f->data, f->len));
    if (r != QP_OK) {
        if (err.line > 0) fprintf(stderr, "%s:%d:%d: error: %s\n", path, err.line, err.column, err.message);
        else fprintf(stderr, "%s: error: %s (%s)\n", path, err.message, qp_result_str(r));
        return false;
    }
    return true;
}
