/* SPDX-License-Identifier: MIT */
/* poses - what a board computed, read back on the host: the frame lines that the board
 * scene runner prints when built with SCENE_POSES (make BOARD=x movie), one per step:
 *   F STEP HASH COUNT BODY... *CRC
 * STEP decimal, HASH 8 hex digits (qp_world_hash), COUNT decimal, then COUNT words of 56 hex
 * digits: the centre of mass x y z (Q16.16) and the rotation w x y z (Q2.30) of every body in
 * slot order, each as a uint32; CRC the CRC-32 (IEEE) of the bytes before the '*'. Other lines
 * (the board's messages) are skipped. Host-only. */
#ifndef QPHYS_POSES_H
#define QPHYS_POSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "draw.h"

typedef struct {
    long step;
    uint32_t hash;
    int count;
    const vw_pose *poses; /* count poses, the bodies in slot order */
} vw_frame;

typedef struct {
    vw_frame *frames;
    int n;
    vw_pose *all; /* every frame's poses, one allocation */
} vw_frames;

/* CRC-32 (IEEE 802.3, reflected; the board's tests/target/scene_main.c computes the same). */
uint32_t vw_crc32(const char *s, size_t n);
/* Read every frame line of path; false, with the file, line and reason on stderr, if a frame
 * line is damaged (CRC, field, count) or none is found. */
bool vw_read_frames(const char *path, vw_frames *out);
void vw_free_frames(vw_frames *f);

#endif
