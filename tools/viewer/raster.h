/* SPDX-License-Identifier: MIT */
/* raster - a small software rasterizer: flat-coloured triangles with a depth buffer and
 * alpha blending, lines, points and 5x7 text, into an RGBA buffer. The viewer shows the
 * buffer through an SDL texture; `qphys render` encodes it as PNG or GIF. Host-only
 * (floats). Screen coordinates: pixels, x right, y down; depth is 1/z of the view (larger
 * is nearer, 0 = infinitely far), so it interpolates linearly across a triangle. */
#ifndef QPHYS_RASTER_H
#define QPHYS_RASTER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int w, h;
    uint8_t *rgba;   /* w*h*4 bytes, R G B A in memory order */
    float *depth;    /* w*h inverse depths */
} rs_image;

typedef struct {
    uint8_t r, g, b, a;
} rs_color;

/* A projected vertex: pixel position and inverse depth. */
typedef struct {
    float x, y, iz;
} rs_vertex;

bool rs_init(rs_image *img, int w, int h);   /* false when out of memory */
void rs_free(rs_image *img);
/* Fill with a vertical gradient from top to bottom colour; depth to "far". */
void rs_clear(rs_image *img, rs_color top, rs_color bottom);
/* One triangle (either winding), depth-tested; blended when c.a < 255; writes depth
 * when write_depth. */
void rs_triangle(rs_image *img, const rs_vertex v[3], rs_color c, bool write_depth);
/* A line of the given pixel width; on top of everything (no depth test) when !depth_test. */
void rs_line(rs_image *img, rs_vertex a, rs_vertex b, rs_color c, int width, bool depth_test);
/* A filled square of side 2*r+1 centred at p, on top of everything. */
void rs_point(rs_image *img, float x, float y, int r, rs_color c);
/* Text in the built-in 5x7 font (letters without case, digits, common punctuation;
 * others as a box) at pixel scale; returns the width drawn. A dark shadow keeps it
 * readable on any background. */
int rs_text(rs_image *img, int x, int y, int scale, rs_color c, const char *s);
int rs_text_width(int scale, const char *s);

#endif
