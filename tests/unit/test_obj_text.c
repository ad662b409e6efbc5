/* SPDX-License-Identifier: MIT */
/* The OBJ reader over text (tools/obj_text.c), which the host tools and the boards' scene
 * runner share.
 *
 * 1. A count with no arrays, then a read into arrays of exactly that size: the vertices
 *    exact in Q16.16, faces of every entry form (v, v/vt, v/vt/vn, v//vn, negative) fanned
 *    from their first corner, comments, CRLF, other lines and a last line with no newline.
 * 2. Arrays one short refuse the text (QP_ERR_FULL) and write nothing past their end.
 * 3. Bad text is refused at its line and column, with the message the scene error carries.
 * 4. floor20.obj (the triangulated floor of stack20_mesh) read from text builds the same mesh
 *    (checksum) as the host tools' file loader gives the scene.
 *
 * Run from the repository root (make test does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "obj.h"
#include "obj_text.h"
#include "qphys/scene.h"
#include "qphys/world.h"

static obj_text counter(void)
{
    obj_text o;
    memset(&o, 0, sizeof o);
    return o;
}

static qp_result read_str(const char *text, obj_text *o) { return obj_text_read(text, strlen(text), o); }

static const char quad_text[] =
    "# a unit square and a triangle\r\n"
    "o square\n"
    "v 0 0 0\n"
    "v 1 0 0   # x\n"
    "vt 0.5 0.5\n"
    "v 1 0 1\r\n"
    "\tv 0 0 1\n"
    "vn 0 1 0\n"
    "f 1/1 2/1/1 3//1 4\n"
    "v 0.1 -2047.5 3.25\n"
    "f -1 1 2";

static void test_count_then_read(void **state)
{
    (void)state;
    obj_text o = counter();
    assert_int_equal(read_str(quad_text, &o), QP_OK);
    assert_int_equal(o.vertex_count, 5);
    assert_int_equal(o.triangle_count, 3);

    qp_vec3 v[5];
    uint32_t idx[9];
    int lines[3];
    obj_text r = { v, 5, idx, 3, lines, 0, 0, 0, 0, "" };
    assert_int_equal(read_str(quad_text, &r), QP_OK);
    assert_int_equal(r.vertex_count, 5);
    assert_int_equal(r.triangle_count, 3);
    assert_int_equal(v[1].x, QP_INT(1));
    assert_int_equal(v[2].z, QP_INT(1));
    assert_int_equal(v[3].z, QP_INT(1));
    assert_int_equal(v[4].x, 6554);                      /* 0.1, rounded to nearest */
    assert_int_equal(v[4].y, -(2047 * 65536 + 32768));
    assert_int_equal(v[4].z, 3 * 65536 + 16384);
    const uint32_t want[9] = { 0, 1, 2, 0, 2, 3, 4, 0, 1 };
    assert_memory_equal(idx, want, sizeof want);
    assert_int_equal(lines[0], 9);
    assert_int_equal(lines[1], 9);
    assert_int_equal(lines[2], 11);
}

static void test_short_arrays_refused(void **state)
{
    (void)state;
    qp_vec3 v[6];
    uint32_t idx[10];
    const qp_vec3 guard_v = qp_v3(123, 456, 789);
    v[4] = guard_v;
    idx[9] = 0xDEADBEEFu;
    obj_text few_vertices = { v, 4, idx, 3, NULL, 0, 0, 0, 0, "" };
    assert_int_equal(read_str(quad_text, &few_vertices), QP_ERR_FULL);
    assert_int_equal(few_vertices.line, 10);
    assert_memory_equal(&v[4], &guard_v, sizeof guard_v);
    obj_text few_triangles = { v, 5, idx, 2, NULL, 0, 0, 0, 0, "" };
    assert_int_equal(read_str(quad_text, &few_triangles), QP_ERR_FULL);
    assert_int_equal(few_triangles.line, 11);
    assert_int_equal(idx[9], 0xDEADBEEFu);
}

static void refused(const char *text, qp_result want, int line, long column, const char *what)
{
    obj_text o = counter();
    assert_int_equal(read_str(text, &o), want);
    assert_int_equal(o.line, line);
    assert_int_equal(o.column, column);
    assert_string_equal(o.what, what);
}

static void test_bad_text(void **state)
{
    (void)state;
    refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", QP_ERR_PARSE, 4, 7,
            "vertex index out of range (no such 'v' line before it)");
    refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", QP_ERR_PARSE, 4, 7,
            "vertex index out of range (no such 'v' line before it)");
    refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2x 3\n", QP_ERR_PARSE, 4, 5,
            "expected a face entry: v, v/vt, v/vt/vn or v//vn");
    refused("v 0 0 0\nv 1 0 0\nv 0 1 0\n  f 1 2\n", QP_ERR_PARSE, 4, 3, "a face has at least three corners");
    refused("v 0 0\n", QP_ERR_PARSE, 1, 6, "expected three numbers after 'v'");
    refused("v 0 zero 0\n", QP_ERR_PARSE, 1, 5, "expected three numbers after 'v'");
    refused("\n\nv 0 2048.5 0\n", QP_ERR_RANGE, 3, 5, "coordinate out of range: within +-2048 m");
    refused("v 0 0 0\n# f 1 1 1\n", QP_ERR_PARAM, 0, 0, "empty mesh: no faces in the file");
    refused("", QP_ERR_PARAM, 0, 0, "empty mesh: no faces in the file");
}

static void test_floor_from_text_matches_file(void **state)
{
    (void)state;
    FILE *f = fopen("tests/scenes/floor20.obj", "rb");
    assert_non_null(f);
    static char text[1 << 16];
    const size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    assert_true(len > 0 && len < sizeof text);

    static qp_vec3 v[441];
    static uint32_t idx[3 * 800];
    static uint32_t memory[QP_MESH_MEMORY_SIZE(800) / 4 + 1];
    obj_text o = { v, 441, idx, 800, NULL, 0, 0, 0, 0, "" };
    assert_int_equal(obj_text_read(text, len, &o), QP_OK);
    qp_mesh mesh;
    assert_int_equal(qp_mesh_build(&mesh, v, o.vertex_count, idx, o.triangle_count, memory, sizeof memory, NULL),
                     QP_OK);

    static char scene[] = "mesh file floor20.obj\n";
    const qp_scene_level_store *store = obj_level_store("tests/scenes/stack20_mesh.scene", scene, strlen(scene));
    const qp_mesh *from_file = NULL;
    const char *message = NULL;
    assert_int_equal(store->mesh(store->ctx, "floor20.obj", 11, &from_file, &message), QP_OK);
    assert_int_equal(from_file->triangle_count, 800);
    assert_int_equal(mesh.checksum, from_file->checksum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_then_read),
        cmocka_unit_test(test_short_arrays_refused),
        cmocka_unit_test(test_bad_text),
        cmocka_unit_test(test_floor_from_text_matches_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
