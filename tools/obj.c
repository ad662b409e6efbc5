/* SPDX-License-Identifier: MIT */
/* Wavefront OBJ meshes for scene files (docs/scene-format.md, `mesh file PATH`).
 *
 * Only 'v' and 'f' lines matter; other lines (vt, vn, o, g, s, usemtl, mtllib, comments)
 * are skipped. Face entries may be v, v/vt, v/vt/vn or v//vn; indices are 1-based, or
 * negative (counted back from the last vertex). Faces of more than three corners are
 * fanned from their first corner. Numbers are read exactly into Q16.16 with the
 * scene reader's qp_scene_parse_fix, so every host reads the same mesh.
 *
 * A file is read and built once per program: a second scene (or a second world) naming
 * the same file gets the same mesh, which stays for the program's life. Each load's
 * heightfields get heights of their own, which stay too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "obj.h"

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

/* One face entry's vertex index (before any '/'): 1-based or negative. */
static int read_index(const char *s, size_t n, long vertices, long *out)
{
    size_t k = 0;
    int neg = 0;
    if (k < n && s[k] == '-') neg = 1, k++;
    long v = 0;
    size_t digits = 0;
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++, digits++)
        if (v < 100000000L) v = v * 10 + (s[k] - '0');
    if (digits == 0 || (k < n && s[k] != '/')) return 0;
    long i = neg ? vertices - v : v - 1;
    if (v == 0 || i < 0 || i >= vertices) return -1;
    *out = i;
    return 1;
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

typedef struct {
    qp_vec3 *v;
    uint32_t *idx;
    int *face_line;               /* per triangle: its 'f' line */
    size_t nv, ni, nt;
} obj_data;

static void obj_free(obj_data *d)
{
    free(d->v);
    free(d->idx);
    free(d->face_line);
}

/* Read the 'v' and 'f' lines of f; QP_OK or an error in message. */
static qp_result obj_read(FILE *f, const char *path, unsigned long path_len, obj_data *d)
{
    size_t vcap = 0, icap = 0, lcap = 0;
    static char line[65536];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strcspn(line, "\r\n#");
        line[len] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
            d->v = grow(d->v, &vcap, d->nv + 1, sizeof *d->v);
            fix16_t c[3];
            char *q = p + 1;
            for (int k = 0; k < 3; k++) {
                while (*q == ' ' || *q == '\t') q++;
                size_t n = strcspn(q, " \t");
                qp_result r = n ? qp_scene_parse_fix(q, n, &c[k]) : QP_ERR_PARSE;
                if (r == QP_ERR_PARSE)
                    return refuse(QP_ERR_PARSE, path, path_len, ln, q - line + 1, "expected three numbers after 'v'");
                if (r != QP_OK || c[k] > QP_LEVEL_MAX_COORD || c[k] < -QP_LEVEL_MAX_COORD)
                    return refuse(QP_ERR_RANGE, path, path_len, ln, q - line + 1,
                                  "coordinate out of range: within +-2048 m");
                q += n;
            }
            d->v[d->nv++] = qp_v3(c[0], c[1], c[2]);
        } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            long first = -1, prev = -1;
            int corners = 0;
            char *q = p + 1;
            for (;;) {
                while (*q == ' ' || *q == '\t') q++;
                if (!*q) break;
                size_t n = strcspn(q, " \t");
                long i;
                int r = read_index(q, n, (long)d->nv, &i);
                if (r <= 0)
                    return refuse(QP_ERR_PARSE, path, path_len, ln, q - line + 1,
                                  r < 0 ? "vertex index out of range (no such 'v' line before it)"
                                        : "expected a face entry: v, v/vt, v/vt/vn or v//vn");
                if (corners == 0) first = i;
                else if (corners >= 2) {
                    if (d->nt >= QP_MESH_MAX_TRIANGLES)
                        return refuse(QP_ERR_RANGE, path, path_len, ln, q - line + 1,
                                      "too many triangles (1 000 000 per mesh)");
                    d->idx = grow(d->idx, &icap, d->ni + 3, sizeof *d->idx);
                    d->face_line = grow(d->face_line, &lcap, d->nt + 1, sizeof *d->face_line);
                    d->idx[d->ni++] = (uint32_t)first;
                    d->idx[d->ni++] = (uint32_t)prev;
                    d->idx[d->ni++] = (uint32_t)i;
                    d->face_line[d->nt++] = ln;
                }
                prev = i;
                corners++;
                q += n;
            }
            if (corners < 3)
                return refuse(QP_ERR_PARSE, path, path_len, ln, p - line + 1, "a face has at least three corners");
        }
    }
    if (d->nt == 0) return refuse(QP_ERR_PARAM, path, path_len, 0, 0, "empty mesh: no faces in the file");
    return QP_OK;
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
    obj_data d;
    memset(&d, 0, sizeof d);
    qp_result r = obj_read(f, path, path_len, &d);
    fclose(f);
    if (r != QP_OK) {
        obj_free(&d);
        return r;
    }
    uint32_t tris = (uint32_t)d.nt;
    unsigned long size = qp_mesh_memory_size(tris);
    void *mem = malloc(size);
    char *name = malloc(strlen(full) + 1);
    if (!mem || !name) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    long bad = -1;
    built_mesh *b = &built[built_count];
    r = qp_mesh_build(&b->mesh, d.v, (uint32_t)d.nv, d.idx, tris, mem, size, &bad);
    if (r != QP_OK) {
        if (bad >= 0)
            refuse(r, path, path_len, d.face_line[bad], 1,
                   builds_alone(d.v, d.nv, d.idx + 3 * bad)
                       ? "an edge of this face is shared by more than two triangles (the mesh is not manifold)"
                       : "a triangle of zero area (or too small to have a normal) in this face");
        else
            refuse(r, path, path_len, 0, 0, "mesh refused by qp_mesh_build");
        free(mem);
        free(name);
        obj_free(&d);
        return r;
    }
    free(d.face_line);   /* vertices, triangles and tree stay for the program's life */
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
