/* SPDX-License-Identifier: MIT */
/* The world's checks of what callers hand it (world.c). */
#ifndef QPHYS_WORLD_CHECK_H
#define QPHYS_WORLD_CHECK_H

#include "qphys/world.h"

/* Were the caller's headers compiled with the library's pool sizes and options? */
bool qp__config_ok(uint32_t config_signature, unsigned long world_size);
/* Every field of a world definition within its range? */
qp_result qp__check_world_def(const qp_world_def *d);

#endif
