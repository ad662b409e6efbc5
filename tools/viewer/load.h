/* SPDX-License-Identifier: MIT */
/* load - a scene file or a snapshot file into a world, for the viewer and `qphys render`
 * (as tools/qphys.c reads them: a snapshot starts with "QPS3"). Host-only. */
#ifndef QPHYS_LOAD_H
#define QPHYS_LOAD_H

#include <stdbool.h>

#include "qphys/world.h"

typedef struct {
    char *data;
    unsigned long len;
} vw_file;

/* Read a whole file (at most 256 MB); false with a message on stderr. */
bool vw_read_file(const char *path, vw_file *f);
void vw_free_file(vw_file *f);
/* Load f (read from path) into *w, a world sized to it (tools/sized_world.h): a snapshot
 * through qp_world_restore, otherwise a scene through qp_scene_load_level (mesh files read by tools/obj.c). False with
 * "path:line:column: error: ..." on stderr; *w unchanged. */
bool vw_load(qp_world **w, const char *path, const vw_file *f);

#endif
