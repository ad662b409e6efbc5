/* SPDX-License-Identifier: MIT */
/* image_io - PNG and animated GIF out (see image_io.h). */
#define _POSIX_C_SOURCE 200809L
#include "image_io.h"

#include <fcntl.h>
#include <gif_lib.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- PNG -------------------------------------------------------------------------- */

bool png_write_rgb(const char *path, const uint8_t *rgba, int w, int h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)w;
    img.height = (png_uint_32)h;
    img.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
    if (!rgb) {
        fprintf(stderr, "%s: out of memory\n", path);
        return false;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) memcpy(rgb + i * 3, rgba + i * 4, 3);
    int ok = png_image_write_to_file(&img, path, 0, rgb, 0, 0);
    free(rgb);
    if (!ok) fprintf(stderr, "%s: cannot write PNG: %s\n", path, img.message);
    return ok != 0;
}

bool png_read_rgba(const char *path, uint8_t **rgba, int *w, int *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        fprintf(stderr, "%s: cannot read PNG: %s\n", path, img.message);
        return false;
    }
    img.format = PNG_FORMAT_RGBA;
    *rgba = malloc(PNG_IMAGE_SIZE(img));
    if (!*rgba || !png_image_finish_read(&img, 0, *rgba, 0, 0)) {
        fprintf(stderr, "%s: cannot read PNG: %s\n", path, *rgba ? img.message : "out of memory");
        free(*rgba);
        png_image_free(&img);
        return false;
    }
    *w = (int)img.width;
    *h = (int)img.height;
    return true;
}

/* ---- GIF ---------------------------------------------------------------------------- */

#define TRANSPARENT 255   /* palette entry kept for "unchanged since the last frame" */

struct gif_anim {
    int w, h, frames, cap;
    uint8_t *rgb;         /* frames * w * h * 3 */
    int *delay;
};

gif_anim *gif_begin(int w, int h)
{
    gif_anim *g = calloc(1, sizeof *g);
    if (g) {
        g->w = w;
        g->h = h;
    }
    return g;
}

bool gif_add(gif_anim *g, const uint8_t *rgba, int delay_cs)
{
    size_t px = (size_t)g->w * (size_t)g->h;
    if (g->frames == g->cap) {
        int cap = g->cap ? g->cap * 2 : 16;
        uint8_t *p = realloc(g->rgb, (size_t)cap * px * 3);
        if (!p) return false;
        g->rgb = p;
        int *d = realloc(g->delay, (size_t)cap * sizeof *d);
        if (!d) return false;
        g->delay = d;
        g->cap = cap;
    }
    uint8_t *dst = g->rgb + (size_t)g->frames * px * 3;
    for (size_t i = 0; i < px; i++) memcpy(dst + i * 3, rgba + i * 4, 3);
    g->delay[g->frames++] = delay_cs;
    return true;
}

static void gif_free(gif_anim *g)
{
    if (!g) return;
    free(g->rgb);
    free(g->delay);
    free(g);
}

bool gif_finish(gif_anim *g, const char *path)
{
    bool ok = false;
    int err = 0;
    size_t px = (size_t)g->w * (size_t)g->h, all = px * (size_t)g->frames;
    GifByteType *r = malloc(all), *gr = malloc(all), *b = malloc(all), *idx = malloc(all);
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    GifFileType *gif = 0;
    ColorMapObject *map = 0;
    GifByteType *row = 0;
    if (!g->frames || !r || !gr || !b || !idx) {
        fprintf(stderr, "%s: %s\n", path, g->frames ? "out of memory" : "no frames");
        goto done;
    }
    for (size_t i = 0; i < all; i++) {
        r[i] = g->rgb[i * 3];
        gr[i] = g->rgb[i * 3 + 1];
        b[i] = g->rgb[i * 3 + 2];
    }
    /* One palette for every frame (the frames stacked as one tall image), so unchanged
     * pixels keep their index and later frames store only what changed. */
    int ncolors = TRANSPARENT;
    if (GifQuantizeBuffer((unsigned)g->w, (unsigned)(g->h * g->frames), &ncolors, r, gr, b, idx, colors) != GIF_OK) {
        fprintf(stderr, "%s: colour quantisation failed\n", path);
        goto done;
    }
    /* Opened here: giflib's own open makes files only their owner can read. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    gif = fd >= 0 ? EGifOpenFileHandle(fd, &err) : 0;
    if (!gif) {
        if (fd >= 0) close(fd);
        fprintf(stderr, "%s: cannot write GIF: %s\n", path, fd >= 0 ? GifErrorString(err) : "cannot create");
        goto done;
    }
    EGifSetGifVersion(gif, true);
    map = GifMakeMapObject(256, colors);
    row = malloc((size_t)g->w);
    if (!map || !row || EGifPutScreenDesc(gif, g->w, g->h, 8, 0, map) != GIF_OK) goto fail;
    /* Loop forever: the Netscape application extension. */
    static const GifByteType loop[3] = { 1, 0, 0 };
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
        EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") != GIF_OK || EGifPutExtensionBlock(gif, 3, loop) != GIF_OK ||
        EGifPutExtensionTrailer(gif) != GIF_OK)
        goto fail;
    for (int f = 0; f < g->frames; f++) {
        const GifByteType *cur = idx + px * (size_t)f, *prev = f ? cur - px : 0;
        int x0 = 0, y0 = 0, x1 = g->w - 1, y1 = g->h - 1;
        if (prev) { /* the rectangle that changed */
            x0 = g->w;
            y0 = g->h;
            x1 = y1 = -1;
            for (int y = 0; y < g->h; y++)
                for (int x = 0; x < g->w; x++)
                    if (cur[(size_t)y * (size_t)g->w + (size_t)x] != prev[(size_t)y * (size_t)g->w + (size_t)x]) {
                        if (x < x0) x0 = x;
                        if (x > x1) x1 = x;
                        if (y < y0) y0 = y;
                        if (y > y1) y1 = y;
                    }
            if (x1 < 0) x0 = y0 = x1 = y1 = 0;
        }
        GraphicsControlBlock gcb;
        memset(&gcb, 0, sizeof gcb);
        gcb.DisposalMode = DISPOSE_DO_NOT;
        gcb.DelayTime = g->delay[f];
        gcb.TransparentColor = f ? TRANSPARENT : NO_TRANSPARENT_COLOR;
        GifByteType ext[4];
        size_t n = EGifGCBToExtension(&gcb, ext);
        if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) != GIF_OK ||
            EGifPutImageDesc(gif, x0, y0, x1 - x0 + 1, y1 - y0 + 1, false, 0) != GIF_OK)
            goto fail;
        for (int y = y0; y <= y1; y++) {
            for (int x = x0; x <= x1; x++) {
                size_t i = (size_t)y * (size_t)g->w + (size_t)x;
                row[x - x0] = prev && cur[i] == prev[i] ? TRANSPARENT : cur[i];
            }
            if (EGifPutLine(gif, row, x1 - x0 + 1) != GIF_OK) goto fail;
        }
    }
    ok = EGifCloseFile(gif, &err) == GIF_OK;
    gif = 0;
    if (!ok) fprintf(stderr, "%s: cannot write GIF: %s\n", path, GifErrorString(err));
    goto done;
fail:
    fprintf(stderr, "%s: cannot write GIF: %s\n", path, GifErrorString(gif->Error));
done:
    if (gif) EGifCloseFile(gif, &err);
    GifFreeMapObject(map);
    free(row);
    free(r);
    free(gr);
    free(b);
    free(idx);
    gif_free(g);
    return ok;
}
