/* SPDX-License-Identifier: MIT */
/* Scene runner for the boards: loads a scene compiled in as text and prints
 * one "step hash" line per step, exactly like `qphys run SCENE --hashes
 * --steps N` on the host, so tests/scripts/scene-check.sh can compare the two.
 *
 * The scene comes from a generated header (tools/embed-scene.sh SCENE STEPS
 * OUT.h) found on the include path:
 *   static const char scene_text[] = "...";   the scene file's bytes, or a snapshot's
 *                                             (qphys run --save), which resumes
 *   #define SCENE_STEPS N                      steps to run
 *   #define SCENE_NAME "stack20"               (optional) for the messages
 *   #define SCENE_FIELDS K, SCENE_HEIGHTS N   its heightfields and their heights: a static
 *                                             store that holds exactly them
 *   #define SCENE_MESH_FILES F, ...            its mesh lines' OBJ files, as text by the path the
 *   scene_mesh_files[F]                        scene writes, and the counts that size a static
 *                                             store for their vertices, triangles and trees
 * A mesh line's file is found in scene_mesh_files by its path, read by the tools' OBJ reader
 * (tools/obj_text.c, freestanding) and built (qp_mesh_build) once, into that store.
 * On a scene error it prints "scene:LINE:COLUMN: error: MESSAGE" and exits 2;
 * a scene larger than this board's pools prints "SKIP ..." and exits 3, at load
 * (bodies, shapes) or, on a board with pools of its own (QP_CFG_POOLS_CUSTOM),
 * at the step where the pair or contact pool overflows.
 * Output goes through qp_port.h and qp_fmt.h only (no printf).
 *
 * After the last step it prints "cycles per step: mean N, max M" when the port has a cycle
 * counter that counts (qp_port_cycles_running: a real Cortex-M board), else
 * "cycles: n/a (counter not running)" (QEMU, the host).
 *
 * Built with -DSCENE_POSES (make BOARD=x movie), each step prints a frame line instead of
 * the "step hash" line: every body's pose, checked by a CRC, for `qphys render --poses`:
 *   F STEP HASH COUNT BODY... *CRC
 * STEP decimal; HASH the world hash, 8 hex digits; COUNT the bodies, then one word per body in
 * slot order: 56 hex digits, the centre of mass x y z (Q16.16) and the rotation w x y z
 * (Q2.30), 8 digits each as uint32; CRC the CRC-32 (IEEE) of the line's bytes before the '*'.
 *
 * Built with -DSCENE_STACK_REPORT (Cortex-M boards: the linker script's __stack_limit and
 * __stack_top), it paints the free stack first and, after the last step, prints
 * "stack N of M bytes": the deepest use of loading the scene and stepping it
 * (tests/scripts/test-stack.sh bounds it on the micro:bit).
 */
#include <stdint.h>
#include "qp_fmt.h"
#include "qp_port.h"
#include "qphys/scene.h"
#include "qphys/world.h"
#include "scene_data.h"
#if defined(SCENE_MESH_FILES) && SCENE_MESH_FILES > 0
#include "obj_text.h"
#endif

#ifndef SCENE_STEPS
#error "scene_data.h must define SCENE_STEPS (tools/embed-scene.sh writes it)"
#endif
#ifndef SCENE_NAME
#define SCENE_NAME "scene"
#endif

static qp_world world;

#if defined(SCENE_HEIGHTS) && SCENE_HEIGHTS > 0 && SCENE_FIELDS > 0
static fix16_t heights[SCENE_HEIGHTS];
static qp_heightfield fields[SCENE_FIELDS];
#define HEIGHTS_STORE heights, SCENE_HEIGHTS, fields, SCENE_FIELDS
#else
#define HEIGHTS_STORE 0, 0, 0, 0
#endif

#if defined(SCENE_MESH_FILES) && SCENE_MESH_FILES > 0
static qp_vec3 mesh_vertices[SCENE_MESH_VERTICES];
static uint32_t mesh_indices[3 * SCENE_MESH_TRIANGLES];
static uint32_t mesh_memory[SCENE_MESH_WORDS];     /* the trees (4-byte aligned) */
static qp_mesh meshes[SCENE_MESH_FILES];           /* scene_mesh_files[i]'s, once built */
static uint8_t mesh_built[SCENE_MESH_FILES];
static const qp_mesh *mesh_slots[SCENE_MESH_LINES];
static uint32_t vertices_used, triangles_used, words_used;

static int same_path(const scene_mesh_file *f, const char *path, unsigned long len)
{
    if (f->path_len != len) return 0;
    for (unsigned long i = 0; i < len; i++)
        if (f->path[i] != path[i]) return 0;
    return 1;
}

/* A refused OBJ file and the place in it, for main's message (no buffer: RAM is short). */
static int refused_file = -1;
static int refused_line;
static long refused_column;

/* The level store's mesh callback: the embedded file named path, read and built on its first
 * line (a later line naming it gets the same mesh, as on the host). */
static qp_result load_mesh(void *ctx, const char *path, unsigned long path_len, const qp_mesh **out,
                           const char **message)
{
    (void)ctx;
    int i = 0;
    while (i < SCENE_MESH_FILES && !same_path(&scene_mesh_files[i], path, path_len)) i++;
    if (i == SCENE_MESH_FILES) {
        *message = "mesh file not built into this image (tools/embed-scene.sh)";
        return QP_ERR_PARAM;
    }
    if (!mesh_built[i]) {
        obj_text o = { mesh_vertices + vertices_used, SCENE_MESH_VERTICES - vertices_used,
                       mesh_indices + 3u * triangles_used, SCENE_MESH_TRIANGLES - triangles_used,
                       0, 0, 0, 0, 0, "" };
        qp_result r = obj_text_read(scene_mesh_files[i].text, scene_mesh_files[i].length, &o);
        const unsigned long words = (qp_mesh_memory_size(o.triangle_count) + 3u) / 4u;
        /* The store holds what tools/embed-scene.sh counted: more is its fault, not a pool's. */
        if (r == QP_ERR_FULL || (r == QP_OK && words > SCENE_MESH_WORDS - words_used)) {
            *message = "the OBJ file holds more than tools/embed-scene.sh counted";
            return QP_ERR_BUFFER;
        }
        if (r != QP_OK) {
            refused_file = i;
            refused_line = o.line;
            refused_column = o.column;
            *message = o.what;
            return r;
        }
        r = qp_mesh_build(&meshes[i], o.vertices, o.vertex_count, o.indices, o.triangle_count,
                          mesh_memory + words_used, words * 4u, 0);
        if (r != QP_OK) {
            *message = "the OBJ file's mesh is refused by qp_mesh_build (qphys check names the face)";
            return r;
        }
        vertices_used += o.vertex_count;
        triangles_used += o.triangle_count;
        words_used += (uint32_t)words;
        mesh_built[i] = 1;
    }
    *out = &meshes[i];
    return QP_OK;
}
#define MESH_STORE mesh_slots, SCENE_MESH_LINES, load_mesh, 0
#else
#define MESH_STORE 0, 0, 0, 0
#endif

static const qp_scene_level_store level_store = { HEIGHTS_STORE, MESH_STORE };

#ifdef SCENE_STACK_REPORT
#define STACK_PAINT 0xC0FFEE5Au
extern uint32_t __stack_limit[], __stack_top[];

/* Paint from the stack's limit up to a little below this frame (a frame of its own, gone
 * when the scene runs). */
static __attribute__((noinline)) void paint_stack(void)
{
    volatile uint32_t here = 0;
    uint32_t *top = (uint32_t *)((uintptr_t)&here & ~(uintptr_t)3) - 16;
    for (volatile uint32_t *p = __stack_limit; p < top; p++) *p = STACK_PAINT;
}

/* Bytes from the top of the stack down to the lowest word no longer painted. */
static unsigned stack_used(void)
{
    const volatile uint32_t *p = __stack_limit;
    while (p < __stack_top && *p == STACK_PAINT) p++;
    return (unsigned)((uintptr_t)__stack_top - (uintptr_t)p);
}
#endif

static void put_num(int v)
{
    char buf[QP_FMT_BUF];
    qp_port_write(buf, qp_fmt_i32(buf, v));
}

#ifdef SCENE_POSES
static uint32_t line_crc;

/* CRC-32 (IEEE 802.3, reflected, bit by bit: no table in a 16 KB board's RAM or flash). */
static void emit(const char *s, unsigned n)
{
    uint32_t c = line_crc;
    for (unsigned i = 0; i < n; i++) {
        c ^= (uint8_t)s[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    line_crc = c;
    qp_port_write(s, n);
}

static void emit_frame(long step)
{
    char buf[8 * 7 + 1];
    unsigned n = 0;
    int count = 0;
    for (int i = 1; i <= qp_world_capacity(); i++) count += !qp_body_id_is_null(qp_world_body_at(&world, i));
    line_crc = 0xFFFFFFFFu;
    emit("F ", 2);
    emit(buf, qp_fmt_u32(buf, (uint32_t)step));
    emit(" ", 1);
    emit(buf, qp_fmt_hex32(buf, qp_world_hash(&world)));
    emit(" ", 1);
    emit(buf, qp_fmt_u32(buf, (uint32_t)count));
    for (int i = 1; i <= qp_world_capacity(); i++) {
        qp_body_id id = qp_world_body_at(&world, i);
        if (qp_body_id_is_null(id)) continue;
        const qp_vec3 c = qp_body_center(&world, id);
        const qp_quat q = qp_body_rotation(&world, id);
        const int32_t v[7] = { c.x, c.y, c.z, q.w, q.x, q.y, q.z };
        emit(" ", 1);
        for (n = 0; n < 7u * 8u; n += 8) (void)qp_fmt_hex32(buf + n, (uint32_t)v[n / 8]);
        emit(buf, n);
    }
    emit(" ", 1);
    n = qp_fmt_hex32(buf + 1, ~line_crc) + 1;
    buf[0] = '*';
    buf[n++] = '\n';
    qp_port_write(buf, n);
}
#endif

/* Cycles per step, or why there are none. */
static void put_cycles(uint64_t sum, uint32_t max, long steps)
{
    if (!qp_port_cycles_running()) {
        qp_port_puts("cycles: n/a (counter not running)\n");
        return;
    }
    char buf[QP_FMT_BUF];
    qp_port_puts("cycles per step: mean ");
    qp_port_write(buf, qp_fmt_u32(buf, (uint32_t)(steps > 0 ? sum / (uint64_t)steps : 0u)));
    qp_port_puts(", max ");
    qp_port_write(buf, qp_fmt_u32(buf, max));
    qp_port_puts("\n");
}

int main(void)
{
#ifdef SCENE_STACK_REPORT
    paint_stack();
#endif
    qp_port_init();
    qp_scene_error err = { 0, 0, "", QP_OK };
    qp_scene_info info;
    /* A snapshot (qphys run --save) resumes where it was taken; anything else is a scene. */
    const int snapshot = sizeof scene_text > 4 && scene_text[0] == 'Q' && scene_text[1] == 'P' &&
                         scene_text[2] == 'S';   /* "QPS" and the format's digit */
    qp_result r = snapshot ? qp_world_restore(&world, scene_text, sizeof scene_text - 1)
                           : qp_scene_load_level(&world, scene_text, sizeof scene_text - 1, &info, &err,
                                                 &level_store);
    if (snapshot && r == QP_ERR_BUFFER) {
        qp_port_puts(SCENE_NAME ": error: not a valid snapshot (damaged or truncated)\n");
        qp_port_exit(2);
    }
    if (r == QP_ERR_FULL) {
        /* Not an error of the scene: this board's pools are smaller. */
        qp_port_puts("SKIP " SCENE_NAME ": does not fit this board's pools (QP_CFG_MAX_*)\n");
        qp_port_exit(3);
    }
    if (r != QP_OK) {
        qp_port_puts(SCENE_NAME ":");
        put_num(err.line);
        qp_port_puts(":");
        put_num(err.column);
        qp_port_puts(": error: ");
#if defined(SCENE_MESH_FILES) && SCENE_MESH_FILES > 0
        if (refused_file >= 0) {   /* "PATH:LINE:COLUMN: ", as the host tools word it */
            qp_port_write(scene_mesh_files[refused_file].path, (unsigned)scene_mesh_files[refused_file].path_len);
            if (refused_line > 0) {
                qp_port_puts(":");
                put_num(refused_line);
                qp_port_puts(":");
                put_num((int)refused_column);
            }
            qp_port_puts(": ");
        }
#endif
        qp_port_puts(err.message);
        qp_port_puts("\n");
        qp_port_exit(2);
    }
    const long first = (long)qp_world_get_stats(&world).step; /* a resumed run numbers on */
    const int counting = qp_port_cycles_running(); /* measured once, before the steps */
    uint64_t cycles_sum = 0;
    uint32_t cycles_max = 0;
#ifdef SCENE_POSES
    emit_frame(first); /* the scene as loaded */
#endif
    for (long s = 1; s <= (long)(SCENE_STEPS); s++) {
        const uint32_t c0 = counting ? qp_port_cycles() : 0u;
        qp_world_step(&world);
        if (counting) {
            const uint32_t dc = qp_port_cycles() - c0;
            cycles_sum += dc;
            if (dc > cycles_max) cycles_max = dc;
        }
#ifdef QP_CFG_POOLS_CUSTOM
        if (qp_world_get_stats(&world).overflows > 0) {
            /* Pairs and contacts are only known as the scene runs: from here on
             * this board's smaller pools would part from the default build's.
             * (With the default pools, a full pool drops the same pairs as on
             * the host, and the hashes still compare.) */
            qp_port_puts("SKIP " SCENE_NAME ": pair or contact pool full at step ");
            put_num((int)s);
            qp_port_puts(" (QP_CFG_MAX_PAIRS, _CONTACTS; `qphys run` prints the peaks)\n");
            qp_port_exit(3);
        }
#endif
#ifdef SCENE_POSES
        emit_frame(first + s);
#else
        char line[QP_FMT_BUF * 2 + 2];
        unsigned n = qp_fmt_u32(line, (uint32_t)(first + s));
        line[n++] = ' ';
        n += qp_fmt_hex32(line + n, qp_world_hash(&world));
        line[n++] = '\n';
        qp_port_write(line, n);
#endif
    }
    put_cycles(cycles_sum, cycles_max, (long)(SCENE_STEPS));
#ifdef SCENE_STACK_REPORT
    qp_port_puts("stack ");
    put_num((int)stack_used());
    qp_port_puts(" of ");
    put_num((int)((uintptr_t)__stack_top - (uintptr_t)__stack_limit));
    qp_port_puts(" bytes\n");
#endif
    qp_port_exit(0);
}
