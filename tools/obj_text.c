/* SPDX-License-Identifier: MIT */
/* The OBJ reader over text (tools/obj_text.h). Only 'v' and 'f' lines matter; other lines
 * (vt, vn, o, g, s, usemtl, mtllib, comments) are skipped. A line ends at '\n'; its content
 * ends at '#', '\r' or a NUL byte. Face entries may be v, v/vt, v/vt/vn or v//vn; indices are
 * 1-based, or negative (counted back from the last vertex). Faces of more than three corners
 * are fanned from their first corner. Numbers are read exactly into Q16.16 with the scene
 * reader's qp_scene_parse_fix, so every target reads the same mesh. */
#include "obj_text.h"

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Length of the token at s[0 .. n): up to a blank or the end. */
static unsigned long token_len(const char *s, unsigned long n)
{
    unsigned long k = 0;
    while (k < n && !is_blank(s[k])) k++;
    return k;
}

/* One face entry's vertex index (before any '/'), 1-based or negative, into *out (0-based):
 * 1, or 0 for a malformed entry, -1 for an index with no vertex. */
static int read_index(const char *s, unsigned long n, uint32_t vertices, uint32_t *out)
{
    unsigned long k = 0;
    int neg = 0;
    if (k < n && s[k] == '-') neg = 1, k++;
    long v = 0;
    unsigned long digits = 0;
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++, digits++)
        if (v < 100000000L) v = v * 10 + (s[k] - '0');
    if (digits == 0 || (k < n && s[k] != '/')) return 0;
    if (v == 0 || v > (long)vertices) return -1;   /* counts past 10^8 stop there: still past */
    *out = neg ? vertices - (uint32_t)v : (uint32_t)v - 1u;
    return 1;
}

static qp_result refuse(obj_text *o, qp_result r, int line, long column, const char *what)
{
    o->line = line;
    o->column = column;
    o->what = what;
    return r;
}

/* A 'v' line's content s[0 .. n) (s[0] is 'v'). */
static qp_result read_vertex(obj_text *o, const char *line, const char *s, unsigned long n, int ln)
{
    fix16_t c[3];
    unsigned long k = 1;
    for (int i = 0; i < 3; i++) {
        while (k < n && is_blank(s[k])) k++;
        const unsigned long t = token_len(s + k, n - k);
        const long col = (long)(s + k - line) + 1;
        const qp_result r = t ? qp_scene_parse_fix(s + k, t, &c[i]) : QP_ERR_PARSE;
        if (r == QP_ERR_PARSE) return refuse(o, QP_ERR_PARSE, ln, col, "expected three numbers after 'v'");
        if (r != QP_OK || c[i] > QP_LEVEL_MAX_COORD || c[i] < -QP_LEVEL_MAX_COORD)
            return refuse(o, QP_ERR_RANGE, ln, col, "coordinate out of range: within +-2048 m");
        k += t;
    }
    if (o->vertices) {
        if (o->vertex_count >= o->vertex_capacity)
            return refuse(o, QP_ERR_FULL, ln, 1, "more vertices than the reader's buffer holds");
        o->vertices[o->vertex_count] = qp_v3(c[0], c[1], c[2]);
    }
    o->vertex_count++;
    return QP_OK;
}

/* An 'f' line's content s[0 .. n) (s[0] is 'f'). */
static qp_result read_face(obj_text *o, const char *line, const char *s, unsigned long n, int ln)
{
    uint32_t first = 0, prev = 0;
    int corners = 0;
    unsigned long k = 1;
    for (;;) {
        while (k < n && is_blank(s[k])) k++;
        if (k >= n) break;
        const unsigned long t = token_len(s + k, n - k);
        const long col = (long)(s + k - line) + 1;
        uint32_t i;
        const int r = read_index(s + k, t, o->vertex_count, &i);
        if (r <= 0)
            return refuse(o, QP_ERR_PARSE, ln, col,
                          r < 0 ? "vertex index out of range (no such 'v' line before it)"
                                : "expected a face entry: v, v/vt, v/vt/vn or v//vn");
        if (corners == 0) first = i;
        else if (corners >= 2) {
            if (o->triangle_count >= QP_MESH_MAX_TRIANGLES)
                return refuse(o, QP_ERR_RANGE, ln, col, "too many triangles (1 000 000 per mesh)");
            const uint32_t tri = o->triangle_count;
            if (o->indices) {
                if (tri >= o->triangle_capacity)
                    return refuse(o, QP_ERR_FULL, ln, col, "more triangles than the reader's buffer holds");
                o->indices[3u * tri] = first;
                o->indices[3u * tri + 1u] = prev;
                o->indices[3u * tri + 2u] = i;
                if (o->face_lines) o->face_lines[tri] = ln;
            }
            o->triangle_count++;
        }
        prev = i;
        corners++;
        k += t;
    }
    if (corners < 3) return refuse(o, QP_ERR_PARSE, ln, (long)(s - line) + 1, "a face has at least three corners");
    return QP_OK;
}

qp_result obj_text_read(const char *text, unsigned long len, obj_text *o)
{
    o->vertex_count = o->triangle_count = 0;
    o->line = 0;
    o->column = 0;
    o->what = "";
    int ln = 0;
    for (unsigned long at = 0; at < len;) {
        const char *line = text + at;
        unsigned long end = 0;           /* the line, up to its '\n' */
        while (at + end < len && line[end] != '\n') end++;
        at += end + (at + end < len);    /* past the '\n' */
        ln++;
        unsigned long n = 0;             /* its content */
        while (n < end && line[n] != '#' && line[n] != '\r' && line[n] != '\0') n++;
        unsigned long k = 0;
        while (k < n && is_blank(line[k])) k++;
        if (n - k < 2 || !is_blank(line[k + 1])) continue;
        qp_result r = QP_OK;
        if (line[k] == 'v') r = read_vertex(o, line, line + k, n - k, ln);
        else if (line[k] == 'f') r = read_face(o, line, line + k, n - k, ln);
        if (r != QP_OK) return r;
    }
    if (o->triangle_count == 0) return refuse(o, QP_ERR_PARAM, 0, 0, "empty mesh: no faces in the file");
    return QP_OK;
}
