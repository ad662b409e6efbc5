/* qphys: the umbrella header. Include this, or the headers you need.
 *   math.h     Q16.16 / Q2.30 vectors, quaternions, matrices
 *   collide.h  shapes, manifolds, collide functions, ray casts
 *   world.h    the world, bodies, the step, hashes and snapshots
 *   scene.h    scene files (text) into a world
 *   record.h   input log: mutating calls recorded with their step, and replayed
 *   config.h   pool sizes (QP_CFG_*), set at compile time */
#ifndef QPHYS_QPHYS_H
#define QPHYS_QPHYS_H

#include "qphys/collide.h"
#include "qphys/config.h"
#include "qphys/hash.h"
#include "qphys/math.h"
#include "qphys/record.h"
#include "qphys/scene.h"
#include "qphys/types.h"
#include "qphys/world.h"

#endif
