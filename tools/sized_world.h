/* SPDX-License-Identifier: MIT */
/* The world a tool (qphys, its render and verify, the viewer) loads a file into: sized to
 * the file (docs/scale.md). Its capacities are a function of the file alone, so every tool
 * and every run computes the same bits from it: the default capacities, or more where the
 * file has more bodies, shapes, joints or hulls (qp_world_caps_for: 8 pairs and 3 contacts a
 * body, as the defaults, a sensor overlap a shape, and events for every contact at once).
 * The world lives in memory from malloc until the next load. */
#ifndef QPHYS_TOOLS_SIZED_WORLD_H
#define QPHYS_TOOLS_SIZED_WORLD_H

#include <stddef.h>
#include "qphys/scene.h"
#include "qphys/world.h"

/* The most bodies a file may hold (--max-bodies; 0: any world's, 65 532). */
extern int sized_world_max_bodies;

/* The capacities for a file of this many bodies, shapes, joints and hull shapes. */
qp_world_caps sized_world_caps(int bodies, int shapes, int joints, int hulls);

/* Load scene text into *w, a world sized to it (replaced when it was another size), as
 * qp_scene_load_level with store (tools/obj.h: obj_level_store); more bodies than
 * sized_world_max_bodies: QP_ERR_FULL at that body's line. */
qp_result sized_world_load_scene(qp_world **w, const char *text, unsigned long len, qp_scene_info *info,
                                 qp_scene_error *err, const qp_scene_level_store *store);

/* Restore a snapshot into *w, a world sized to it, as qp_world_restore; on any failure why
 * says what (damage, more bodies than sized_world_max_bodies, no memory). */
qp_result sized_world_restore(qp_world **w, const void *buf, unsigned long len, char *why, size_t why_size);

/* Copy w into *twin, a world of w's capacities (replaced when it was another size). */
qp_result sized_world_copy(qp_world **twin, const qp_world *w);

/* Parse "--max-bodies N" at argv[*i] (the flag, then its value): 1 when it was the flag
 * (sets sized_world_max_bodies, moves *i past the value), -1 for a bad value, 0 otherwise. */
int sized_world_option(int argc, char **argv, int *i);

#endif
