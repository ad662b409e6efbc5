/* SPDX-License-Identifier: MIT */
/* The world's checks of what callers hand it (world.c). */
#ifndef QPHYS_WORLD_CHECK_H
#define QPHYS_WORLD_CHECK_H

#include "qphys/world.h"

#include <string.h>

/* A world the caller hands a call that lays it out (qp_scene_load, qp_world_restore): QP_OK
 * when an init placed it where it lies, or, when none did (never initialised, or a byte copy
 * of a placed qp_world), once its pools are placed in its own storage for the capacities its
 * caller compiled (caps, world_size), its bytes otherwise as they were (the call clears it
 * before it writes anything); QP_ERR_CONFIG when the caller's headers lay out worlds
 * otherwise (world_memory.c). */
qp_result qp__world_ready(qp_world *w, uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps);
/* Does a qp_world of world_size bytes, which its caller compiled for capacities caps and
 * the layout config_signature, hold these pools in its own storage as the library lays them? */
bool qp__world_fits(uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps);
/* Place w's pools in its own storage for caps (qp__world_fits) and zero it all. */
void qp__world_own(qp_world *w, const qp_world_caps *caps);
/* Zero every byte of a placed world, header and pools, keeping its capacities. */
void qp__world_clear(qp_world *w);
/* Start a cleared world with def (checked): copied field by field (world.c). */
void qp__world_start(qp_world *w, const qp_world_def *def);
/* The largest capacities (qp_world_caps' ranges). */
extern const qp_world_caps qp__caps_max;
/* Every field of a world definition within its range? */
qp_result qp__check_world_def(const qp_world_def *d);

#endif
