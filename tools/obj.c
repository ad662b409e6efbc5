/* SPDX-License-Identifier: MIT */
/* Wavefront OBJ meshes for scene files (docs/scene-format.md, `mesh file PATH`): the file
 * is read into memory and parsed by the one OBJ reader, tools/obj_text.c (the boards' scene
 * runner parses text built into its image with it too).
 *
 * A file is read and built once per program: a second scene (or a second world) naming
 * the same file gets the same mesh, which stays for the program's life. Each load's
 * heightfields get heights of their own, which stay too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "obj.h"
#include "obj_text.h"

#define MAX_FILES 64              /* distinct OBJ files per program */

typedef struct {
    char *path;                   /* as opened: the scene's folder and the path written */
    qp_mesh mesh;
} built_mesh;

static built_mesh built[MAX_FILES];
static int built_count;
static char scene_dir[4096];
static const qp_mesh *mesh_slots[MAX_FILES];
static qp_scene_level_store store;
static char message[8192];        /* the error of the last refused file (the scene error points at it) */

/* Memory kept for the program's life, on a list (so that leak checkers see it in use). */
typedef struct kept_s {
    struct kept_s *prev;
} kept;
static kept *kept_last;

static void *keep(size_t n)
{
    kept *k = malloc(sizeof *k + n);
    if (!k) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    k->prev = kept_last;
    kept_last = k;
    return k + 1;
}

static qp_result refuse(qp_result r, const char *path, unsigned long path_len, int line, long col, const char *what)
{
    if (line > 0) snprintf(message, sizeof message, "%.*s:%d:%ld: %s", (int)path_len, path, line, col, what);
    else snprintf(message, sizeof message, "%.*s: %s", (int)path_len, path, what);
    return r;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap * 2 : 1024;
    while (c < need) c *= 2;
    void *q = realloc(p, c * size);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    *cap = c;
    return q;
}

/* Whether triangle t alone builds: if not, it has (near) zero area; if so, the mesh was
 * refused for an edge it shares with two other triangles. */
static int builds_alone(const qp_vec3 *v, size_t nv, const uint32_t *idx)
{
    static uint32_t mem[64];
    qp_mesh one;
    return sizeof mem >= qp_mesh_memory_size(1) &&
           qp_mesh_build(&one, v, (uint32_t)nv, idx, 1, mem, sizeof mem, NULL) == QP_OK;
}

/* The whole of f in memory of its own, *len bytes (the caller frees it). */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 0, n = 0;
    char *text = NULL;
    for (;;) {
        text = grow(text, &cap, n + 65536, 1);
        size_t got = fread(text + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    *len = n;
    return text;
}

static qp_result load_obj(void *ctx, const char *path, unsigned long path_len, const qp_mesh **out, const char **msg)
{
    (void)ctx;
    *msg = message;
    static char full[8192];
    snprintf(full, sizeof full, "%s%.*s", path[0] == '/' ? "" : scene_dir, (int)path_len, path);
    for (int i = 0; i < built_count; i++)
        if (!strcmp(built[i].path, full)) {
            *out = &built[i].mesh;
            return QP_OK;
        }
    if (built_count >= MAX_FILES)
        return refuse(QP_ERR_FULL, path, path_len, 0, 0, "too many mesh files (64 per program)");
    FILE *f = fopen(full, "rb");
    if (!f) return refuse(QP_ERR_PARAM, path, path_len, 0, 0, "cannot open the mesh file");
    size_t len;
    char *text = read_all(f, &len);
    fclose(f);
    /* Counted first, then read into arrays of that size. */
    obj_text d = { NULL, 0, NULL, 0, NULL, 0, 0, 0, 0, "" };
    qp_result r = obj_text_read(text, len, &d);
    if (r == QP_OK) {
        d.vertices = keep(sizeof *d.vertices * d.vertex_count);
        d.vertex_capacity = d.vertex_count;
        d.indices = keep(sizeof *d.indices * 3u * d.triangle_count);
        d.triangle_capacity = d.triangle_count;
        d.face_lines = malloc(sizeof *d.face_lines * d.triangle_count);
        if (!d.face_lines) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        r = obj_text_read(text, len, &d);
    }
    free(text);
    if (r != QP_OK) {
        free(d.face_lines);
        return refuse(r, path, path_len, d.line, d.column, d.what);
    }
    uint32_t tris = d.triangle_count;
    unsigned long size = qp_mesh_memory_size(tris);
    void *mem = malloc(size);
    char *name = malloc(strlen(full) + 1);
    if (!mem || !name) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    long bad = -1;
    built_mesh *b = &built[built_count];
    r = qp_mesh_build(&b->mesh, d.vertices, d.vertex_count, d.indices, tris, mem, size, &bad);
    if (r != QP_OK) {
        if (bad >= 0)
            refuse(r, path, path_len, d.face_lines[bad], 1,
                   builds_alone(d.vertices, d.vertex_count, d.indices + 3 * bad)
                       ? "an edge of this face is shared by more than two triangles (the mesh is not manifold)"
                       : "a triangle of zero area (or too small to have a normal) in this face");
        else
            refuse(r, path, path_len, 0, 0, "mesh refused by qp_mesh_build");
        free(mem);
        free(name);
        free(d.face_lines);
        return r;
    }
    free(d.face_lines);   /* vertices, triangles and tree stay for the program's life */
    strcpy(name, full);
    b->path = name;
    built_count++;
    *out = &b->mesh;
    return QP_OK;
}

qp_scene_level_store *obj_level_store(const char *scene_path, const char *text, unsigned long len)
{
    const char *slash = scene_path ? strrchr(scene_path, '/') : NULL;
    size_t n = slash ? (size_t)(slash - scene_path + 1) : 0;
    if (n >= sizeof scene_dir) n = 0;
    if (n > 0) memcpy(scene_dir, scene_path, n);
    scene_dir[n] = 0;
    /* The text's heightfields, counted as the loader will read them; heights and fields of
     * their own, kept for the program's life (each world keeps referencing its own). */
    unsigned long heights = 0;
    int count = 0;
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    static qp_scene_item item;
    while (qp_scene_next(&rd, &item, NULL) > 0)
        if (item.kind == QP_SCENE_HEIGHTFIELD) {
            heights += (unsigned long)item.u.level.rows * (unsigned long)item.u.level.cols;
            count++;
        }
    store.heights = NULL;
    store.fields = NULL;
    store.heights_capacity = heights;
    store.fields_capacity = count;
    if (count > 0) {
        store.fields = keep(sizeof *store.fields * (size_t)count);
        store.heights = keep(sizeof *store.heights * heights);
    }
    store.meshes = mesh_slots;
    store.meshes_capacity = MAX_FILES;
    store.mesh = load_obj;
    store.ctx = NULL;
    return &store;
}
