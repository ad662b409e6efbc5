/* SPDX-License-Identifier: MIT */
/* Compile-time options of qphys: the memory layout, and the capacities of the default
 * world (qp_world w; qp_world_init(&w, &def)).
 *
 * Define QP_USER_CONFIG as a header name (e.g. -DQP_USER_CONFIG='"my_qp_config.h"')
 * to set options in one file, or pass -DQP_CFG_...=N. A world of the default capacities
 * holds its pools, so sizeof(qp_world) is its whole RAM; a world of other capacities lives
 * in memory its caller gives it (qp_world_init_in, include/qphys/world.h). See
 * `make BOARD=microbit size` and docs/memory.md.
 */
#ifndef QPHYS_CONFIG_H
#define QPHYS_CONFIG_H

#ifdef QP_USER_CONFIG
#include QP_USER_CONFIG
#endif

/* Bodies in a world, static ones (planes, fixed boxes) included. 1..65532. */
#ifndef QP_CFG_MAX_BODIES
#define QP_CFG_MAX_BODIES 600
#else
#define QP_CFG_POOLS_CUSTOM 1
#endif

/* Shapes in a world (a table is five). >= QP_CFG_MAX_BODIES is usual. */
#ifndef QP_CFG_MAX_SHAPES
#define QP_CFG_MAX_SHAPES (QP_CFG_MAX_BODIES + 64)
#else
#define QP_CFG_POOLS_CUSTOM 1
#endif

/* Shapes on one body (a compound: a chair's seat, back and four legs take six). Each adds
 * 2 bytes to every body and a qp_shape, a filter and a flag to qp_body_def. 1..8. */
#ifndef QP_CFG_MAX_BODY_SHAPES
#define QP_CFG_MAX_BODY_SHAPES 8
#else
#define QP_CFG_POOLS_CUSTOM 1
#endif

/* Overlapping shape pairs the broad phase may report per step: boxes grown
 * by the contact margin, so a pile reaches about 6 per body (rain512: 2858
 * for 512 cubes). 4 bytes each. */
#ifndef QP_CFG_MAX_PAIRS
#define QP_CFG_MAX_PAIRS (QP_CFG_MAX_BODIES * 8)
#else
#define QP_CFG_POOLS_CUSTOM 1
#endif

/* Contact manifolds (touching shape pairs) per step. */
#ifndef QP_CFG_MAX_CONTACTS
#define QP_CFG_MAX_CONTACTS (QP_CFG_MAX_BODIES * 3)
#else
#define QP_CFG_POOLS_CUSTOM 1
#endif

/* 0: keep data derived from the state for as long as it holds (each
 * manifold's solver rows and tangents, each body's rotation matrix and world
 * inverse inertia). 1: recompute it at each use instead, pack a body's
 * inverse inertia and sleep boxes and keep its material, pending forces and
 * an offset centre beside the bodies (the capacities below), for small RAM
 * (the micro:bit): 462 bytes less per contact and 188 per body
 * (docs/memory.md); awake steps take up to 1.5x the instructions, and the
 * sleep sizes must be under a metre.
 * The results are the same bits either way. */
#ifndef QP_CFG_LOW_RAM
#define QP_CFG_LOW_RAM 0
#endif

/* With QP_CFG_LOW_RAM: the distinct materials (friction, static friction, restitution,
 * rolling resistance) the bodies of a world have at once, kept once each in a palette
 * that a body names by a byte (16 bytes each, in qp_world): a body whose material would
 * be one too many is refused (QP_ERR_FULL). 1..255. The default layout keeps each body's
 * material in the body. */
#ifndef QP_CFG_MAX_MATERIALS
#define QP_CFG_MAX_MATERIALS 16
#endif

/* With QP_CFG_LOW_RAM: the bodies that may have a force or torque pending at once (from
 * qp_body_apply_force or qp_body_apply_torque until the next step applies it), kept in a
 * list beside the bodies (26 bytes each, in qp_world) instead of 24 bytes in every body: one
 * body too many is refused (QP_ERR_FULL). 1..65535. */
#ifndef QP_CFG_MAX_FORCED_BODIES
#define QP_CFG_MAX_FORCED_BODIES 16
#endif

/* With QP_CFG_LOW_RAM: the bodies whose centre of mass is off their origin (a compound, a
 * shape placed off it), whose offset is kept in a list beside the bodies (14 bytes each, in
 * qp_world) instead of 12 bytes in every body: one body too many is refused (QP_ERR_FULL).
 * 1..65535. */
#ifndef QP_CFG_MAX_OFFSET_BODIES
#define QP_CFG_MAX_OFFSET_BODIES 64
#endif

/* Joints in a world (ball, hinge, distance, fixed, slider, cone; include/qphys/joint.h).
 * 1..65535; about 450 bytes each without the joint tree's storage (220 in the pool, 232 a
 * step's rows; 92 fewer with QP_CFG_JOINT_OPTIONS 0, and no rows kept with QP_CFG_LOW_RAM and
 * no joint tree). */
#ifndef QP_CFG_MAX_JOINTS
#define QP_CFG_MAX_JOINTS 64
#endif

/* 1: joints may have motors, springs and break impulses (include/qphys/joint.h), 40 bytes
 * more per joint and a buffer of joint events; 0: those options are refused (QP_ERR_FULL)
 * and cost nothing, for the smallest boards (the micro:bit). The kinds (fixed, slider,
 * cone) are there either way. */
#ifndef QP_CFG_JOINT_OPTIONS
#define QP_CFG_JOINT_OPTIONS 1
#endif

/* Storage to solve joints along their trees (qp_world_def.joint_tree, src/solve_joint_tree.c):
 * 1 keeps it, about 1 160 bytes a joint; 0 leaves it out, and the option then changes nothing.
 * Default: 1 when a world holds two joints or more (a joint alone is solved without trees
 * in every build, so a world of one joint computes the same bits with or without them). */
#ifndef QP_CFG_JOINT_TREE
#define QP_CFG_JOINT_TREE (QP_CFG_MAX_JOINTS >= 2)
#endif

/* Events a world keeps for the caller to read after a step (qp_world_contact_events,
 * qp_world_sensor_events, qp_world_body_events): each of the three buffers holds this
 * many; what does not fit is counted (qp_world_events_lost), never written. 40, 12 and 8
 * bytes an entry. The joint events (qp_world_joint_events, 20 bytes, with
 * QP_CFG_JOINT_OPTIONS) hold this many or QP_CFG_MAX_JOINTS, the fewer: a step breaks
 * each joint at most once. Results never depend on it. 1..32767. */
#ifndef QP_CFG_MAX_EVENTS
#define QP_CFG_MAX_EVENTS 256
#endif

/* Overlaps of sensor shapes with other shapes, kept between steps (a sensor reports an
 * overlap when it begins and when it ends). 4 bytes each. Results never depend on it. 1..32767. */
#ifndef QP_CFG_MAX_SENSOR_OVERLAPS
#define QP_CFG_MAX_SENSOR_OVERLAPS 64
#endif

/* Convex hulls a world of the default capacities holds (qp_hull, about 4.4 KB each: a copy
 * of each hull shape's data; a world placed by qp_world_init_in holds caps.hulls). 0 leaves
 * hull shapes out of the build (they are refused with QP_ERR_FULL). 0..255. */
#ifndef QP_CFG_MAX_HULLS
#define QP_CFG_MAX_HULLS 16
#endif

/* 1: the pools are arrays inside qp_world, of the sizes above, and a world has no other
 * capacities (qp_world_init_in answers QP_ERR_CONFIG): no pointers and no capacities in
 * the world, for the smallest boards (the micro:bit, where they would cost 100 bytes).
 * 0: the pools are pointers with capacities, which qp_world_init points into the world's
 * own storage (the sizes above) and qp_world_init_in into the caller's memory (any size). */
#ifndef QP_CFG_FIXED_POOLS
#define QP_CFG_FIXED_POOLS 0
#endif

/* QP_CFG_POOLS_CUSTOM is defined when any pool size above was set: a program
 * with other pools may part from the default build where a pool fills up
 * (the board scene runner reports that instead of printing other hashes). */

#if QP_CFG_MAX_BODIES < 1 || QP_CFG_MAX_BODIES > 65535
#error "QP_CFG_MAX_BODIES must be 1..65535 (body indices are 16-bit)"
#endif
#if QP_CFG_MAX_BODY_SHAPES < 1 || QP_CFG_MAX_BODY_SHAPES > 8
#error "QP_CFG_MAX_BODY_SHAPES must be 1..8"
#endif
#if QP_CFG_MAX_SHAPES < QP_CFG_MAX_BODIES || QP_CFG_MAX_SHAPES > 65535
#error "QP_CFG_MAX_SHAPES must be at least QP_CFG_MAX_BODIES and at most 65535"
#endif
#if QP_CFG_FIXED_POOLS && 2 * (QP_CFG_MAX_CONTACTS) > 65535
#error "QP_CFG_MAX_CONTACTS must be at most 32767 with QP_CFG_FIXED_POOLS (the contact graph's 16-bit indices)"
#endif
#if QP_CFG_MAX_CONTACTS > 65535 || QP_CFG_MAX_BODIES > 65532
#error "QP_CFG_MAX_CONTACTS must be at most 65535 and QP_CFG_MAX_BODIES at most 65532 (16-bit indices)"
#endif
#if QP_CFG_FIXED_POOLS != 0 && QP_CFG_FIXED_POOLS != 1
#error "QP_CFG_FIXED_POOLS must be 0 or 1"
#endif
#if QP_CFG_MAX_JOINTS < 1 || QP_CFG_MAX_JOINTS > 65535
#error "QP_CFG_MAX_JOINTS must be 1..65535"
#endif
#if QP_CFG_JOINT_OPTIONS != 0 && QP_CFG_JOINT_OPTIONS != 1
#error "QP_CFG_JOINT_OPTIONS must be 0 or 1"
#endif
#if QP_CFG_LOW_RAM != 0 && QP_CFG_LOW_RAM != 1
#error "QP_CFG_LOW_RAM must be 0 or 1"
#endif
#if QP_CFG_MAX_EVENTS < 1 || QP_CFG_MAX_EVENTS > 32767
#error "QP_CFG_MAX_EVENTS must be 1..32767"
#endif
#if QP_CFG_MAX_SENSOR_OVERLAPS < 1 || QP_CFG_MAX_SENSOR_OVERLAPS > 32767
#error "QP_CFG_MAX_SENSOR_OVERLAPS must be 1..32767"
#endif
#if QP_CFG_MAX_OFFSET_BODIES < 1 || QP_CFG_MAX_OFFSET_BODIES > 65535
#error "QP_CFG_MAX_OFFSET_BODIES must be 1..65535"
#endif
#if QP_CFG_MAX_FORCED_BODIES < 1 || QP_CFG_MAX_FORCED_BODIES > 65535
#error "QP_CFG_MAX_FORCED_BODIES must be 1..65535"
#endif
#if QP_CFG_MAX_MATERIALS < 1 || QP_CFG_MAX_MATERIALS > 255
#error "QP_CFG_MAX_MATERIALS must be 1..255 (a body names its material by a byte)"
#endif
#if QP_CFG_MAX_HULLS < 0 || QP_CFG_MAX_HULLS > 255
#error "QP_CFG_MAX_HULLS must be 0..255"
#endif
#if QP_CFG_MAX_PAIRS < 1 || QP_CFG_MAX_CONTACTS < 1
#error "QP_CFG_MAX_PAIRS and QP_CFG_MAX_CONTACTS must be positive"
#endif

#endif
