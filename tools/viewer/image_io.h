/* SPDX-License-Identifier: MIT */
/* image_io - pictures out: one RGBA image as PNG (libpng), several as an animated GIF
 * (giflib: one palette for the whole animation, frames stored as the rectangle that
 * changed). Host-only. */
#ifndef QPHYS_IMAGE_IO_H
#define QPHYS_IMAGE_IO_H

#include <stdbool.h>
#include <stdint.h>

/* Write w x h RGBA pixels (alpha ignored: written opaque) as an RGB PNG. False with a
 * message on stderr. */
bool png_write_rgb(const char *path, const uint8_t *rgba, int w, int h);
/* Read a PNG as RGBA (malloc'd into *rgba). False with a message on stderr. */
bool png_read_rgba(const char *path, uint8_t **rgba, int *w, int *h);

/* An animated GIF built frame by frame in memory, written by gif_finish. */
typedef struct gif_anim gif_anim;
gif_anim *gif_begin(int w, int h);
/* Add a copy of a w x h RGBA frame shown for delay_cs hundredths of a second. */
bool gif_add(gif_anim *g, const uint8_t *rgba, int delay_cs);
/* Quantise, encode and write; frees g. False with a message on stderr. */
bool gif_finish(gif_anim *g, const char *path);

#endif
