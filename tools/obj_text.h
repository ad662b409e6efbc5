/* SPDX-License-Identifier: MIT */
/* The Wavefront OBJ reader: OBJ text in memory into vertices and triangles. Freestanding (no
 * heap, no files, no C library), so the host tools (tools/obj.c reads the file, then this) and
 * the board scene runner (tests/target/scene_main.c, the text built into the image) read every
 * OBJ file alike. The syntax is docs/scene-format.md's (`mesh file PATH`). */
#ifndef QPHYS_TOOLS_OBJ_TEXT_H
#define QPHYS_TOOLS_OBJ_TEXT_H

#include <stdint.h>
#include "qphys/scene.h"

typedef struct {
    /* In: where the mesh goes. A null array is not written (the counts still are: a first
     * pass with null arrays sizes them). */
    qp_vec3 *vertices;
    uint32_t vertex_capacity;
    uint32_t *indices;            /* 3 per triangle */
    uint32_t triangle_capacity;   /* of indices (and of face_lines, when not null) */
    int *face_lines;              /* per triangle: its 'f' line (1-based) */
    /* Out: what the text holds, or where it was refused. */
    uint32_t vertex_count, triangle_count;
    int line;                     /* of the refusal; 0: the whole text (an empty mesh) */
    long column;                  /* 1-based, in that line */
    const char *what;             /* the refusal, a static message */
} obj_text;

/* Read len bytes of OBJ text into *o (its arrays, capacities and face_lines set; the rest is
 * written). QP_OK, or with line, column and what set:
 *   QP_ERR_PARSE  a malformed 'v' or 'f' line, an index with no vertex before it
 *   QP_ERR_RANGE  a coordinate beyond QP_LEVEL_MAX_COORD, more than QP_MESH_MAX_TRIANGLES
 *   QP_ERR_PARAM  no faces
 *   QP_ERR_FULL   more vertices or triangles than a non-null array holds */
qp_result obj_text_read(const char *text, unsigned long len, obj_text *o);

#endif
