/* SPDX-License-Identifier: MIT */
/* pixels - what a screenshot shows, for tests/scripts/test-viewer.sh. Reads an X window dump
 * (xwd -root, 24/32-bit TrueColor) or a PNG, and counts in a rectangle the pixels that
 * look like awake bodies (warm: red well above blue), like sleepers (the blue sleep tint:
 * blue well above red), a car's touching suspension rays (green: green well above both)
 * and anything else; or converts the dump to PNG to look at.
 *
 *   pixels FILE X0 Y0 X1 Y1      prints "warm W cool C green G other O" (X1, Y1 exclusive)
 *   pixels FILE --size           prints "W H"
 *   pixels FILE --png OUT.png    writes the picture as PNG
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static int shift_of(uint32_t mask)
{
    int s = 0;
    while (mask && !(mask & 1)) {
        mask >>= 1;
        s++;
    }
    return s;
}

/* An XWD file into RGBA; false if it is not one this reads. */
static bool read_xwd(const char *path, uint8_t **rgba, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = n > 100 ? malloc((size_t)n) : 0;
    bool ok = d && fread(d, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok || be32(d + 4) != 7) {
        free(d);
        return false;
    }
    uint32_t hs = be32(d), width = be32(d + 16), height = be32(d + 20), order = be32(d + 28), bpp = be32(d + 44),
             bpl = be32(d + 48), rm = be32(d + 56), gm = be32(d + 60), bm = be32(d + 64), ncolors = be32(d + 76);
    size_t off = hs + (size_t)ncolors * 12;
    if ((bpp != 32 && bpp != 24) || off + (size_t)bpl * height > (size_t)n || width > 16384 || height > 16384) {
        free(d);
        return false;
    }
    *w = (int)width;
    *h = (int)height;
    *rgba = malloc((size_t)width * height * 4);
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *p = d + off + (size_t)y * bpl + (size_t)x * (bpp / 8);
            uint32_t v = 0;
            for (uint32_t k = 0; k < bpp / 8; k++) v |= (uint32_t)p[k] << (order ? 8 * (bpp / 8 - 1 - k) : 8 * k);
            uint8_t *o = *rgba + ((size_t)y * width + x) * 4;
            o[0] = (uint8_t)((v & rm) >> shift_of(rm));
            o[1] = (uint8_t)((v & gm) >> shift_of(gm));
            o[2] = (uint8_t)((v & bm) >> shift_of(bm));
            o[3] = 255;
        }
    free(d);
    return true;
}

int main(int argc, char **argv)
{
    uint8_t *px = 0;
    int w = 0, h = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: pixels FILE X0 Y0 X1 Y1 | FILE --size | FILE --png OUT\n");
        return 2;
    }
    if (!read_xwd(argv[1], &px, &w, &h) && !png_read_rgba(argv[1], &px, &w, &h)) {
        fprintf(stderr, "pixels: %s: neither an X window dump nor a PNG\n", argv[1]);
        return 2;
    }
    if (!strcmp(argv[2], "--size")) {
        printf("%d %d\n", w, h);
        return 0;
    }
    if (!strcmp(argv[2], "--png")) return argc == 4 && png_write_rgb(argv[3], px, w, h) ? 0 : 2;
    if (argc != 6) return 2;
    int x0 = atoi(argv[2]), y0 = atoi(argv[3]), x1 = atoi(argv[4]), y1 = atoi(argv[5]);
    long warm = 0, cool = 0, green = 0, other = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < w; x++) {
            const uint8_t *p = px + ((size_t)y * (size_t)w + (size_t)x) * 4;
            if (p[0] > 120 && p[0] > p[2] + 60) warm++;
            else if (p[1] > p[0] + 80 && p[1] > p[2] + 80) green++;
            else if (p[2] > p[0] + 35) cool++;
            else other++;
        }
    printf("warm %ld cool %ld green %ld other %ld\n", warm, cool, green, other);
    free(px);
    return 0;
}
