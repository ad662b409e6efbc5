/* SPDX-License-Identifier: MIT */
/* raster - triangles, lines and text into an RGBA buffer (see raster.h). */
#include "raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"

bool rs_init(rs_image *img, int w, int h)
{
    img->w = w;
    img->h = h;
    img->rgba = malloc((size_t)w * (size_t)h * 4);
    img->depth = malloc((size_t)w * (size_t)h * sizeof(float));
    if (!img->rgba || !img->depth) {
        rs_free(img);
        return false;
    }
    return true;
}

void rs_free(rs_image *img)
{
    free(img->rgba);
    free(img->depth);
    img->rgba = 0;
    img->depth = 0;
}

void rs_clear(rs_image *img, rs_color top, rs_color bottom)
{
    for (int y = 0; y < img->h; y++) {
        float t = img->h > 1 ? (float)y / (float)(img->h - 1) : 0.0f;
        uint8_t r = (uint8_t)(top.r + (bottom.r - top.r) * t), g = (uint8_t)(top.g + (bottom.g - top.g) * t),
                b = (uint8_t)(top.b + (bottom.b - top.b) * t);
        uint8_t *p = img->rgba + (size_t)y * (size_t)img->w * 4;
        for (int x = 0; x < img->w; x++, p += 4) {
            p[0] = r;
            p[1] = g;
            p[2] = b;
            p[3] = 255;
        }
    }
    memset(img->depth, 0, (size_t)img->w * (size_t)img->h * sizeof(float));
}

static inline void put(uint8_t *p, rs_color c)
{
    if (c.a == 255) {
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
    } else {
        unsigned a = c.a, na = 255 - a;
        p[0] = (uint8_t)((c.r * a + p[0] * na + 127) / 255);
        p[1] = (uint8_t)((c.g * a + p[1] * na + 127) / 255);
        p[2] = (uint8_t)((c.b * a + p[2] * na + 127) / 255);
    }
}

static float edge(rs_vertex a, rs_vertex b, float x, float y)
{
    return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
}

void rs_triangle(rs_image *img, const rs_vertex v[3], rs_color c, bool write_depth)
{
    rs_vertex a = v[0], b = v[1], d = v[2];
    float area = edge(a, b, d.x, d.y);
    if (fabsf(area) < 1e-6f) return;
    float minx = fminf(a.x, fminf(b.x, d.x)), maxx = fmaxf(a.x, fmaxf(b.x, d.x));
    float miny = fminf(a.y, fminf(b.y, d.y)), maxy = fmaxf(a.y, fmaxf(b.y, d.y));
    int x0 = minx < 0 ? 0 : (int)minx, y0 = miny < 0 ? 0 : (int)miny;
    int x1 = maxx > img->w - 1 ? img->w - 1 : (int)maxx, y1 = maxy > img->h - 1 ? img->h - 1 : (int)maxy;
    if (x0 > x1 || y0 > y1) return;
    /* Barycentric weights at pixel centres, stepped along each row (they are affine). */
    float inv = 1.0f / area;
    float dw0 = -(d.y - b.y) * inv, dw1 = -(a.y - d.y) * inv, dw2 = -(b.y - a.y) * inv;
    for (int y = y0; y <= y1; y++) {
        float py = (float)y + 0.5f, px = (float)x0 + 0.5f;
        float w0 = edge(b, d, px, py) * inv, w1 = edge(d, a, px, py) * inv, w2 = edge(a, b, px, py) * inv;
        size_t i = (size_t)y * (size_t)img->w + (size_t)x0;
        for (int x = x0; x <= x1; x++, i++, w0 += dw0, w1 += dw1, w2 += dw2) {
            if (w0 < 0 || w1 < 0 || w2 < 0) continue;
            float iz = w0 * a.iz + w1 * b.iz + w2 * d.iz;
            if (iz <= img->depth[i]) continue;
            if (write_depth) img->depth[i] = iz;
            put(img->rgba + i * 4, c);
        }
    }
}

void rs_point(rs_image *img, float x, float y, int r, rs_color c)
{
    int cx = (int)floorf(x), cy = (int)floorf(y);
    for (int j = cy - r; j <= cy + r; j++)
        for (int i = cx - r; i <= cx + r; i++)
            if (i >= 0 && j >= 0 && i < img->w && j < img->h) put(img->rgba + ((size_t)j * (size_t)img->w + (size_t)i) * 4, c);
}

void rs_line(rs_image *img, rs_vertex a, rs_vertex b, rs_color c, int width, bool depth_test)
{
    float dx = b.x - a.x, dy = b.y - a.y;
    float len = fmaxf(fabsf(dx), fabsf(dy));
    int n = len > 4096 ? 4096 : (int)ceilf(len);
    if (n < 1) n = 1;
    int r0 = -(width - 1) / 2, r1 = width / 2;
    for (int k = 0; k <= n; k++) {
        float t = (float)k / (float)n;
        int x = (int)floorf(a.x + dx * t), y = (int)floorf(a.y + dy * t);
        float iz = a.iz + (b.iz - a.iz) * t;
        for (int j = y + r0; j <= y + r1; j++)
            for (int i = x + r0; i <= x + r1; i++) {
                if (i < 0 || j < 0 || i >= img->w || j >= img->h) continue;
                size_t p = (size_t)j * (size_t)img->w + (size_t)i;
                /* A little bias so edges drawn on a surface are not hidden by it. */
                if (depth_test && iz * 1.002f < img->depth[p]) continue;
                put(img->rgba + p * 4, c);
            }
    }
}

static void glyph(rs_image *img, int x, int y, int scale, rs_color c, const uint8_t rows[FONT_H])
{
    for (int r = 0; r < FONT_H; r++)
        for (int col = 0; col < FONT_W; col++) {
            if (!(rows[r] & (1u << (FONT_W - 1 - col)))) continue;
            for (int j = 0; j < scale; j++)
                for (int i = 0; i < scale; i++) {
                    int px = x + col * scale + i, py = y + r * scale + j;
                    if (px >= 0 && py >= 0 && px < img->w && py < img->h)
                        put(img->rgba + ((size_t)py * (size_t)img->w + (size_t)px) * 4, c);
                }
        }
}

int rs_text_width(int scale, const char *s) { return (int)strlen(s) * (FONT_W + 1) * scale; }

int rs_text(rs_image *img, int x, int y, int scale, rs_color c, const char *s)
{
    rs_color shadow = { 0, 0, 0, 160 };
    int x0 = x;
    for (; *s; s++, x += (FONT_W + 1) * scale) {
        const uint8_t *rows = font_glyph(*s);
        if (!rows) continue;
        glyph(img, x + scale, y + scale, scale, shadow, rows);
        glyph(img, x, y, scale, c, rows);
    }
    return x - x0;
}
