/* SPDX-License-Identifier: MIT */
/* qphys: the umbrella header. Include this, or the headers you need.
 *   math.h     Q16.16 / Q2.30 vectors, quaternions, matrices
 *   collide.h  shapes, manifolds, collide functions, ray casts
 *   world.h    the world, bodies, the step, hashes and snapshots
 *   joint.h    ball, hinge and distance joints between bodies
 *   ragdoll.h  a ragdoll of capsules and boxes held by joints
 *   scene.h    scene files (text) into a world
 *   car.h      a car on ray-cast wheels (suspension, drive, brake, steering)
 *   record.h   input log: mutating calls recorded with their step, and replayed
 *   config.h   pool sizes (QP_CFG_*), set at compile time
 *   version.h  the release: QP_VERSION_STRING, QP_VERSION_MAJOR/MINOR/PATCH */
#ifndef QPHYS_QPHYS_H
#define QPHYS_QPHYS_H

#include "qphys/car.h"
#include "qphys/collide.h"
#include "qphys/config.h"
#include "qphys/hash.h"
#include "qphys/joint.h"
#include "qphys/math.h"
#include "qphys/ragdoll.h"
#include "qphys/record.h"
#include "qphys/scene.h"
#include "qphys/types.h"
#include "qphys/version.h"
#include "qphys/world.h"

#endif
