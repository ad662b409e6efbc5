/* SPDX-License-Identifier: MIT */
/* scene.h - the example's world: built in code, the same on the board and on the host. */
#ifndef FIRMWARE_SCENE_H
#define FIRMWARE_SCENE_H

#include "qphys/qphys.h"

/* Ground, a column of four 1 m cubes and a ball dropped on it from 6 m, off its centre; all
 * of it sleeps within two seconds. QP_OK, or why not. */
qp_result scene_build(qp_world *w);

#endif
