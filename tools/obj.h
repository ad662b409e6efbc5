/* SPDX-License-Identifier: MIT */
/* Level geometry for the host tools: Wavefront OBJ meshes read from files, and the
 * qp_scene_level_store that qp_scene_load_level fills (heap memory: tools only). */
#ifndef QPHYS_TOOLS_OBJ_H
#define QPHYS_TOOLS_OBJ_H

#include "qphys/scene.h"

/* A store for scene_path's level lines: mesh paths are read relative to the scene file's
 * folder. Errors in an OBJ file are printed as OBJ_PATH:LINE:COLUMN: error: ... */
qp_scene_level_store *obj_level_store(const char *scene_path);

#endif
