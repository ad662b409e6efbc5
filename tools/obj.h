/* SPDX-License-Identifier: MIT */
/* Level geometry for the host tools: Wavefront OBJ meshes read from files, and the
 * qp_scene_level_store that qp_scene_load_level fills (heap memory: tools only). */
#ifndef QPHYS_TOOLS_OBJ_H
#define QPHYS_TOOLS_OBJ_H

#include "qphys/scene.h"

/* A store for the level lines of text (the scene file scene_path): mesh paths are read
 * relative to the scene file's folder (the current folder for a null scene_path). Each OBJ
 * file is built once and kept for the program's life (a later load of the same file gets
 * the same mesh); each call allocates the text's heightfields' heights, kept as well, so
 * every world keeps its own. A refused file is named in the scene error's message as
 * PATH:LINE:COLUMN: what (PATH as the scene writes it). */
qp_scene_level_store *obj_level_store(const char *scene_path, const char *text, unsigned long len);

#endif
