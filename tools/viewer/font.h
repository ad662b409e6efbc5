/* SPDX-License-Identifier: MIT */
/* font - a 5x7 bitmap font for the heads-up text (drawn by hand for qphys). */
#ifndef QPHYS_FONT_H
#define QPHYS_FONT_H

#include <stdint.h>

#define FONT_W 5
#define FONT_H 7

/* The 7 rows of character ch (bit 4 = leftmost column); letters have no case; a space
 * is blank; a character without a glyph gives a box. */
const uint8_t *font_glyph(char ch);

#endif
