/* SPDX-License-Identifier: MIT */
/* Wavefront OBJ meshes for scene files (docs/scene-format.md, `mesh file PATH`).
 *
 * Only 'v' and 'f' lines matter; other lines (vt, vn, o, g, s, usemtl, mtllib, comments)
 * are skipped. Face entries may be v, v/vt, v/vt/vn or v//vn; indices are 1-based, or
 * negative (counted back from the last vertex). Faces of more than three corners are
 * fanned from their first corner. Numbers are read exactly into Q16.16 with the
 * scene reader's qp_scene_parse_fix, so every host reads the same mesh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "obj.h"

#define MAX_MESHES 16

static char scene_dir[4096];
static qp_heightfield fields[16];
static const qp_mesh *mesh_slots[MAX_MESHES];
static qp_mesh meshes[MAX_MESHES];
static int mesh_count;
static qp_scene_level_store store;

static int obj_error(const char *path, int line, long col, const char *msg)
{
    fprintf(stderr, "%s:%d:%ld: error: %s\n", path, line, col, msg);
    return -1;
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

static qp_result load_obj(void *ctx, const char *path, unsigned long path_len, const qp_mesh **out, const char **message)
{
    (void)ctx;
    static char full[8192];
    if (mesh_count >= MAX_MESHES) {
        *message = "too many meshes (16 per scene)";
        return QP_ERR_FULL;
    }
    snprintf(full, sizeof full, "%s%.*s", path[0] == '/' ? "" : scene_dir, (int)path_len, path);
    FILE *f = fopen(full, "rb");
    if (!f) {
        *message = "cannot open the mesh file";
        return QP_ERR_PARAM;
    }
    qp_vec3 *v = NULL;
    uint32_t *idx = NULL;
    size_t vcap = 0, icap = 0, nv = 0, ni = 0;
    char line[65536];
    int ln = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strcspn(line, "\r\n#");
        line[len] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
            v = grow(v, &vcap, nv + 1, sizeof *v);
            fix16_t c[3];
            char *q = p + 1;
            for (int k = 0; k < 3 && !bad; k++) {
                while (*q == ' ' || *q == '\t') q++;
                size_t n = strcspn(q, " \t");
                qp_result r = n ? qp_scene_parse_fix(q, n, &c[k]) : QP_ERR_PARSE;
                if (r != QP_OK || c[k] > QP_LEVEL_MAX_COORD || c[k] < -QP_LEVEL_MAX_COORD)
                    bad = obj_error(full, ln, q - line + 1,
                                    r == QP_OK || r == QP_ERR_RANGE ? "coordinate out of range: within +-2048 m"
                                                                    : "expected three numbers after 'v'");
                q += n;
            }
            if (!bad) v[nv++] = qp_v3(c[0], c[1], c[2]);
        } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            long first = -1, prev = -1;
            int corners = 0;
            char *q = p + 1;
            for (;;) {
                while (*q == ' ' || *q == '\t') q++;
                if (!*q) break;
                size_t n = strcspn(q, " \t");
                long i;
                int r = read_index(q, n, (long)nv, &i);
                if (r <= 0) {
                    bad = obj_error(full, ln, q - line + 1,
                                    r < 0 ? "vertex index out of range (no such 'v' line before it)"
                                          : "expected a face entry: v, v/vt, v/vt/vn or v//vn");
                    break;
                }
                if (corners == 0) first = i;
                else if (corners >= 2) {
                    idx = grow(idx, &icap, ni + 3, sizeof *idx);
                    idx[ni++] = (uint32_t)first;
                    idx[ni++] = (uint32_t)prev;
                    idx[ni++] = (uint32_t)i;
                }
                prev = i;
                corners++;
                q += n;
            }
            if (!bad && corners < 3) bad = obj_error(full, ln, p - line + 1, "a face has at least three corners");
        }
    }
    fclose(f);
    if (bad) {
        free(v);
        free(idx);
        *message = "bad mesh file (see the error above)";
        return QP_ERR_PARSE;
    }
    if (ni == 0) {
        free(v);
        free(idx);
        *message = "empty mesh: no faces in the file";
        return QP_ERR_PARAM;
    }
    uint32_t tris = (uint32_t)(ni / 3);
    if (tris > QP_MESH_MAX_TRIANGLES) {
        *message = "too many triangles (1 000 000 per mesh)";
        return QP_ERR_RANGE;
    }
    void *mem = malloc(qp_mesh_memory_size(tris));
    long bad_tri = -1;
    qp_result r = mem ? qp_mesh_build(&meshes[mesh_count], v, (uint32_t)nv, idx, tris, mem, qp_mesh_memory_size(tris),
                                      &bad_tri)
                      : QP_ERR_FULL;
    if (r != QP_OK) {
        if (bad_tri >= 0)
            fprintf(stderr, "%s: error: triangle %ld (counting from 0, faces fanned) has zero area or an edge shared "
                            "by more than two triangles\n", full, bad_tri);
        free(mem);
        free(v);
        free(idx);
        *message = r == QP_ERR_RANGE ? "mesh refused: coordinates past the range (+-2048 m)"
                                     : "mesh refused: a triangle of zero area or a non-manifold edge (shared by more "
                                       "than two triangles)";
        return r;
    }
    *out = &meshes[mesh_count++];   /* vertices, triangles and tree stay for the program's life */
    return QP_OK;
}

qp_scene_level_store *obj_level_store(const char *scene_path)
{
    const char *slash = strrchr(scene_path, '/');
    size_t n = slash ? (size_t)(slash - scene_path + 1) : 0;
    if (n >= sizeof scene_dir) n = 0;
    memcpy(scene_dir, scene_path, n);
    scene_dir[n] = 0;
    static fix16_t *heights;
    if (!heights) {
        heights = malloc(sizeof *heights * (1ul << 22));
        if (!heights) exit(2);
    }
    store.heights = heights;
    store.heights_capacity = 1ul << 22;
    store.fields = fields;
    store.fields_capacity = 16;
    store.meshes = mesh_slots;
    store.meshes_capacity = MAX_MESHES;
    store.mesh = load_obj;
    store.ctx = NULL;
    return &store;
}
