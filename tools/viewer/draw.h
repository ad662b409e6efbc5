/* SPDX-License-Identifier: MIT */
/* draw - a qphys world drawn into a raster image: the camera, shaded bodies, the ground,
 * sleepers half transparent, colours by state, island or contact-graph level, contact
 * points and normals, joints, and the heads-up text. Shared by the viewer and `qphys
 * render`; reads the world only through the public API (include/qphys). Host-only. */
#ifndef QPHYS_DRAW_H
#define QPHYS_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "qphys/car.h"
#include "qphys/world.h"
#include "raster.h"

/* A body's pose given from outside the world (what a board computed: qphys render --poses). */
typedef struct {
    qp_vec3 center;       /* centre of mass */
    qp_quat rotation;
} vw_pose;

/* An orbit camera: it looks at target from dist metres away, turned yaw radians about
 * the vertical (0: from +z) and raised pitch radians above the horizon. */
typedef struct {
    float target[3];
    float yaw, pitch, dist;
    float fovy;           /* vertical field of view, radians */
} vw_camera;

typedef enum {
    VW_COLOR_STATE = 0,   /* awake bodies warm, static grey, sleepers blue and half transparent */
    VW_COLOR_ISLAND,      /* one colour per island (bodies joined through contacts) */
    VW_COLOR_LEVEL,       /* contact-graph level (qp_body_level): blue at the bottom to red */
    VW_COLOR_MODES
} vw_color_mode;

typedef struct {
    vw_color_mode color;
    bool contacts;        /* contact points and normals, drawn on top */
    int text_scale;       /* pixels per font pixel (0: no text) */
    const char *text[4];  /* lines of heads-up text, top left (null: none) */
    const vw_pose *poses; /* null: the world's poses; else body slot i (1-based) is drawn at
                           * poses[i] and the world gives only shapes and colours */
    const qp_car *car;    /* a car whose wheels and suspension rays to draw (null: none); its
                           * wheels as its last qp_car_update found them */
} vw_draw_opts;

const char *vw_color_mode_name(vw_color_mode m);

/* The box holding every body but planes (false if there is none). */
bool vw_world_bounds(const qp_world *w, float lo[3], float hi[3]);
/* The same with the bodies at poses (slot-indexed as vw_draw_opts.poses; null: the world's). */
bool vw_posed_bounds(const qp_world *w, const vw_pose *poses, float lo[3], float hi[3]);
/* A camera looking from the front, a little from the right and above. */
void vw_camera_default(vw_camera *c);
/* Move the camera back along its view until the box lo..hi fills the picture (aspect =
 * width / height), centred on the box. */
void vw_camera_fit(vw_camera *c, const float lo[3], const float hi[3], float aspect);
/* The eye position. */
void vw_camera_eye(const vw_camera *c, float eye[3]);
/* The ray through pixel (sx, sy) of a w x h picture: origin and unit direction. */
void vw_camera_ray(const vw_camera *c, int w, int h, float sx, float sy, float origin[3], float dir[3]);

/* Draw the world (clears the image first). */
void vw_draw_world(rs_image *img, const qp_world *w, const vw_camera *c, const vw_draw_opts *o);

/* The heads-up line: step, world hash, awake/asleep, us per step (if >= 0), pool peaks. */
void vw_hud_line(const qp_world *w, double us_per_step, char *buf, size_t n);

#endif
