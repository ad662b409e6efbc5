/* SPDX-License-Identifier: MIT */
/* render - `qphys render`: pictures of a scene with no display and no GPU, drawn by the
 * viewer's code (draw.c, raster.c) and written as PNG or animated GIF (image_io.c).
 *
 *   qphys render SCENE|SNAPSHOT [--steps N] -o FILE.png
 *   qphys render SCENE|SNAPSHOT [--from A] --to B [--every K] -o FILE.gif
 *   options: --size WxH (default 400x300), --color state|islands|levels, --contacts,
 *            --hud (the viewer's heads-up line), --title TEXT (default: the file's name),
 *            --yaw DEG (the camera's turn about the vertical, 0: from +z; default 26),
 *            --car N (body N, counted from 0 as in scenes, is a car's chassis with
 *            qp_default_car_def(): its wheels and suspension rays are drawn, each frame's
 *            found by qp_car_update on a copy of the world, which the picture does not step)
 *            --scene SCENE (a snapshot of a world with meshes or heightfields is restored over
 *            SCENE, the scene it came from, which builds their geometry)
 *   qphys render SCENE|SNAPSHOT --poses FILE [--every K] -o FILE.gif
 *
 * With --poses, the frames are what a board computed (make BOARD=x movie: the board scene
 * runner's frame lines, poses.h): each frame draws the board's poses, every K-th of them
 * (default 4). Meanwhile the host steps SCENE itself and checks every frame, drawn or not:
 * the board's world hash and each body's pose must equal the host's, bit for bit. Exit
 * status 1 when one differs (the GIF is written all the same: it shows the board's bodies).
 *
 * A PNG shows the world after N steps (default 0). A GIF shows steps A, A+K, ... up to B
 * (defaults A = 0, K = 4), each frame shown for K steps of simulated time. The camera
 * frames every body: in a GIF, every body at every frame (a first pass steps through
 * the range from a snapshot, a second one draws), so the camera holds still.
 * Exit status: 0 written (and with --poses, every frame equal), 1 a frame differs, 2 bad input
 * or usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "image_io.h"
#include "load.h"
#include "poses.h"
#include "qphys/world.h"
#include "../sized_world.h"

int qphys_render(int argc, char **argv);

static qp_world *world;   /* sized to the file (tools/sized_world.h) */
static qp_world *wheel_scratch;  /* --car: where each frame's wheel rays are cast */

static const char usage_text[] =
    "usage: qphys render SCENE|SNAPSHOT [--steps N] -o FILE.png\n"
    "       qphys render SCENE|SNAPSHOT [--from A] --to B [--every K] -o FILE.gif\n"
    "       qphys render SCENE|SNAPSHOT --poses FILE [--every K] -o FILE.gif   (a board's frames)\n"
    "       options: --size WxH (400x300), --color state|islands|levels, --contacts, --hud, --title TEXT,\n"
    "                --yaw DEG (the camera turned about the vertical; 0: from +z), --car N (a car's chassis),\n"
    "                --scene SCENE (a snapshot's level geometry: restored over the scene it came from)\n";

static int fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "qphys: render: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* the work, not the machine's load */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Grow lo..hi by the bodies' box now. */
static void grow_bounds(float lo[3], float hi[3], bool *any)
{
    float l[3], h[3];
    if (!vw_world_bounds(world, l, h)) return;
    for (int k = 0; k < 3; k++) {
        if (!*any || l[k] < lo[k]) lo[k] = l[k];
        if (!*any || h[k] > hi[k]) hi[k] = h[k];
    }
    *any = true;
}

/* The frames of a board (poses.h) checked against the host's run of the same world, from
 * where it was loaded, and drawn into a GIF. */
static int render_board(const char *poses_path, long every, const char *title, rs_image *img, vw_camera *cam,
                        vw_draw_opts *opts, const char *out)
{
    vw_frames fr;
    if (!vw_read_frames(poses_path, &fr)) return 2;
    /* One frame's poses by body slot, for the world's body capacity (set at run time). */
    vw_pose *slot = calloc((size_t)qp_world_body_capacity(world) + 1, sizeof *slot);
    if (!slot) {
        vw_free_frames(&fr);
        return fail("%s: out of memory", out);
    }
    int bodies = 0;
    for (int i = 1; i <= qp_world_body_capacity(world); i++) bodies += !qp_body_id_is_null(qp_world_body_at(world, i));
    long first = (long)qp_world_get_stats(world).step;
    /* Order and shape before anything is stepped or drawn. */
    for (int k = 0; k < fr.n; k++) {
        const vw_frame *f = &fr.frames[k];
        if (f->count != bodies || f->step < first || (k > 0 && f->step <= fr.frames[k - 1].step)) {
            fprintf(stderr, "qphys: render: %s: frame of step %ld: %s\n", poses_path, f->step,
                    f->count != bodies ? "another number of bodies than the scene's" : "steps out of order");
            vw_free_frames(&fr);
            free(slot);
            return 2;
        }
    }
    /* Framing: every body of every frame, where the board put it. */
    float lo[3] = { -1, 0, -1 }, hi[3] = { 1, 2, 1 };
    bool any = false;
    for (int k = 0; k < fr.n; k++) {
        for (int i = 1, j = 0; i <= qp_world_body_capacity(world); i++)
            if (!qp_body_id_is_null(qp_world_body_at(world, i))) slot[i] = fr.frames[k].poses[j++];
        float l[3], h[3];
        if (!vw_posed_bounds(world, slot, l, h)) continue;
        for (int a = 0; a < 3; a++) {
            if (!any || l[a] < lo[a]) lo[a] = l[a];
            if (!any || h[a] > hi[a]) hi[a] = h[a];
        }
        any = true;
    }
    vw_camera_fit(cam, lo, hi, (float)img->w / (float)img->h);

    long long delay = ((long long)every * 100 * qp_world_get_def(world)->dt + 32768) / 65536;
    int delay_cs = delay > 65535 ? 65535 : delay < 2 ? 2 : (int)delay;
    gif_anim *anim = gif_begin(img->w, img->h);
    char line[160], check[160];
    int drawn = 0, differ = 0;
    long first_differ = -1;
    opts->poses = slot;
    opts->text_scale = img->w >= 800 ? 2 : 1;
    for (int k = 0; k < fr.n; k++) {
        const vw_frame *f = &fr.frames[k];
        while ((long)qp_world_get_stats(world).step < f->step) qp_world_step(world);
        uint32_t host = qp_world_hash(world);
        int moved = 0; /* the first body (slot) whose pose differs */
        for (int i = 1, j = 0; i <= qp_world_body_capacity(world); i++) {
            qp_body_id id = qp_world_body_at(world, i);
            if (qp_body_id_is_null(id)) continue;
            slot[i] = f->poses[j++];
            qp_vec3 c = qp_body_center(world, id);
            qp_quat q = qp_body_rotation(world, id);
            bool equal = slot[i].center.x == c.x && slot[i].center.y == c.y && slot[i].center.z == c.z &&
                         slot[i].rotation.w == q.w && slot[i].rotation.x == q.x && slot[i].rotation.y == q.y &&
                         slot[i].rotation.z == q.z;
            if (!equal && !moved) moved = i;
        }
        bool same = f->hash == host && !moved;
        if (!same && differ++ == 0) {
            first_differ = f->step;
            if (f->hash != host)
                fprintf(stderr, "qphys: render: step %ld: the board's world hash %08x differs from the host's %08x\n",
                        f->step, (unsigned)f->hash, (unsigned)host);
            else
                fprintf(stderr, "qphys: render: step %ld: the board's pose of body %d differs from the host's\n", f->step,
                        moved - 1);
        }
        if (k % every) continue;
        snprintf(line, sizeof line, "%s  step %ld", title, f->step);
        snprintf(check, sizeof check, "hash %08x %s", (unsigned)f->hash, same ? "= host" : " board != host");
        opts->text[0] = line;
        opts->text[1] = check;
        opts->text[2] = 0;
        vw_draw_world(img, world, cam, opts);
        drawn++;
        if (!gif_add(anim, img->rgba, delay_cs)) {
            vw_free_frames(&fr);
            free(slot);
            return fail("%s: out of memory", out);
        }
    }
    bool ok = gif_finish(anim, out);
    if (ok && differ)
        fprintf(stderr, "render: %s: %d frames drawn; %d of %d board frames differ from the host's, the first at step %ld\n",
                out, drawn, differ, fr.n, first_differ);
    else if (ok)
        fprintf(stderr, "render: %s: %d frames drawn; all %d board frames (steps %ld .. %ld) equal the host's: hash and every pose\n",
                out, drawn, fr.n, fr.frames[0].step, fr.frames[fr.n - 1].step);
    vw_free_frames(&fr);
    free(slot);
    return !ok ? 2 : differ ? 1 : 0;
}

int qphys_render(int argc, char **argv)
{
    const char *path = 0, *out = 0, *title = 0, *poses = 0, *scene = 0;
    double yaw_deg = 0;
    int has_yaw = 0;
    long steps = 0, from = 0, to = -1, every = 4, w = 400, h = 300, car_body = -1;
    vw_draw_opts opts;
    memset(&opts, 0, sizeof opts);
    bool hud = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
        bool takes = !strcmp(a, "--steps") || !strcmp(a, "--from") || !strcmp(a, "--to") || !strcmp(a, "--every") ||
                     !strcmp(a, "-o") || !strcmp(a, "--size") || !strcmp(a, "--color") || !strcmp(a, "--title") ||
                     !strcmp(a, "--yaw") || !strcmp(a, "--poses") || !strcmp(a, "--car") ||
                     !strcmp(a, "--scene");
        if (takes && !v) return fail("option '%s' needs a value", a);
        if (!strcmp(a, "--steps")) { if (!parse_long(v, 0, 10000000, &steps)) return fail("--steps: expected 0 .. 10000000, not '%s'", v); }
        else if (!strcmp(a, "--from")) { if (!parse_long(v, 0, 10000000, &from)) return fail("--from: expected 0 .. 10000000, not '%s'", v); }
        else if (!strcmp(a, "--to")) { if (!parse_long(v, 0, 10000000, &to)) return fail("--to: expected 0 .. 10000000, not '%s'", v); }
        else if (!strcmp(a, "--every")) { if (!parse_long(v, 1, 100000, &every)) return fail("--every: expected 1 .. 100000, not '%s'", v); }
        else if (!strcmp(a, "--car")) { if (!parse_long(v, 0, 65534, &car_body)) return fail("--car: expected a body number, not '%s'", v); }
        else if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--title")) title = v;
        else if (!strcmp(a, "--poses")) poses = v;
        else if (!strcmp(a, "--scene")) scene = v;
        else if (!strcmp(a, "--yaw")) {
            char *end;
            yaw_deg = strtod(v, &end);
            if (*end || yaw_deg < -360 || yaw_deg > 360) {
                fprintf(stderr, "render: --yaw wants degrees, -360 .. 360\n");
                return 2;
            }
            has_yaw = 1;
        }
        else if (!strcmp(a, "--size")) {
            char *x;
            errno = 0;
            w = strtol(v, &x, 10);
            if (errno || *x != 'x' || !parse_long(x + 1, 16, 4096, &h) || w < 16 || w > 4096)
                return fail("--size: expected WxH, 16 .. 4096 each, not '%s'", v);
        } else if (!strcmp(a, "--color")) {
            int m = 0;
            while (m < VW_COLOR_MODES && strcmp(v, vw_color_mode_name((vw_color_mode)m))) m++;
            if (m == VW_COLOR_MODES) return fail("--color: expected state, islands or levels, not '%s'", v);
            opts.color = (vw_color_mode)m;
        } else if (!strcmp(a, "--contacts")) opts.contacts = true;
        else if (!strcmp(a, "--hud")) hud = true;
        else if (a[0] == '-' && a[1]) return fail("unknown option '%s'", a);
        else if (!path) path = a;
        else {
            fputs(usage_text, stderr);
            return 2;
        }
        if (takes) i++;
    }
    if (!path || !out) {
        fputs(usage_text, stderr);
        return 2;
    }
    bool gif = ends_with(out, ".gif");
    if (!gif && !ends_with(out, ".png")) return fail("-o %s: the name must end in .png or .gif", out);
    if (poses && (!gif || to >= 0 || from || steps)) return fail("--poses %s: a GIF of the board's frames, with no --steps, --from or --to", poses);
    if (gif && to < 0 && !poses) return fail("%s: an animation needs --to B (its last step)", out);
    if (gif && !poses && to < from) return fail("--to must not be before --from (%s)", out);
    if (gif && !poses && (to - from) / every + 1 > 2000) return fail("%s: more than 2000 frames", out);
    if (scene) {   /* the level geometry a snapshot names, built by loading its scene first */
        vw_file text;
        if (!vw_read_file(scene, &text)) return 2;
        bool loaded = vw_load(&world, scene, &text);
        vw_free_file(&text);
        if (!loaded) return 2;
    }
    vw_file file;
    if (!vw_read_file(path, &file)) return 2;
    if (!vw_load(&world, path, &file)) {
        vw_free_file(&file);
        return 2;
    }
    char name[64];
    if (!title) { /* the file's name without folder and extension */
        const char *s = strrchr(path, '/');
        snprintf(name, sizeof name, "%s", s ? s + 1 : path);
        char *dot = strrchr(name, '.');
        if (dot && dot != name) *dot = 0;
        title = name;
    }
    static qp_car car;
    if (car_body >= 0) {
        memset(&car, 0, sizeof car);
        car.def = qp_default_car_def();
        car.chassis = qp_world_body_at(world, (int)car_body + 1);
        if (!qp_body_is_valid(world, car.chassis)) return fail("--car %s: no such body in the world", "N");
        opts.car = &car;
    }
    rs_image img;
    if (!rs_init(&img, (int)w, (int)h)) return fail("%s: out of memory", out);
    vw_camera cam;
    vw_camera_default(&cam);
    if (has_yaw) cam.yaw = (float)(yaw_deg * 3.14159265358979 / 180.0);
    if (poses) {
        int rc = render_board(poses, every, title, &img, &cam, &opts, out);
        rs_free(&img);
        vw_free_file(&file);
        return rc;
    }
    long first = (long)qp_world_get_stats(world).step;
    long start = gif ? from : steps, last = gif ? to : steps;
    for (long s = 0; s < start; s++) qp_world_step(world);

    /* Framing: the bodies now, or at every frame of the animation. */
    float lo[3] = { -1, 0, -1 }, hi[3] = { 1, 2, 1 };
    bool any = false;
    grow_bounds(lo, hi, &any);
    if (gif) {
        unsigned long n = qp_world_snapshot(world, 0, 0);
        void *snap = malloc(n);
        if (!snap || qp_world_snapshot(world, snap, n) != n) return fail("%s: cannot snapshot the world", out);
        for (long s = start; s < last; s++) {
            qp_world_step(world);
            if ((s + 1 - start) % every == 0) grow_bounds(lo, hi, &any);
        }
        if (qp_world_restore(world, snap, n) != QP_OK) return fail("%s: cannot restore the world", out);
        free(snap);
    }
    vw_camera_fit(&cam, lo, hi, (float)w / (float)h);

    char line[160], hudline[200];
    opts.text_scale = w >= 800 ? 2 : 1;
    double draw_time = 0;
    int frames = 0;
    gif_anim *anim = gif ? gif_begin((int)w, (int)h) : 0;
    long long delay = ((long long)every * 100 * qp_world_get_def(world)->dt + 32768) / 65536; /* rounded */
    int delay_cs = delay > 65535 ? 65535 : (int)delay;
    if (delay_cs < 2) delay_cs = 2;
    for (long s = start;; s++) {
        if (!gif || (s - start) % every == 0) {
            qp_world_stats st = qp_world_get_stats(world);
            snprintf(line, sizeof line, "%s  step %ld  awake %d asleep %d", title, first + s, st.awake, st.asleep);
            opts.text[0] = line;
            opts.text[1] = 0;
            if (hud) {
                vw_hud_line(world, -1, hudline, sizeof hudline);
                opts.text[1] = hudline;
            }
            if (opts.car) {   /* the wheels where a qp_car_update would find them now */
                if (sized_world_copy(&wheel_scratch, world) != QP_OK) return fail("%s: out of memory", out);
                if (qp_car_update(wheel_scratch, &car) != QP_OK) return fail("%s: the car's chassis is gone", out);
            }
            double t0 = now_s();
            vw_draw_world(&img, world, &cam, &opts);
            draw_time += now_s() - t0;
            frames++;
            if (gif && !gif_add(anim, img.rgba, delay_cs)) return fail("%s: out of memory", out);
        }
        if (s >= last) break;
        qp_world_step(world);
    }
    bool ok = gif ? gif_finish(anim, out) : png_write_rgb(out, img.rgba, (int)w, (int)h);
    rs_free(&img);
    vw_free_file(&file);
    if (!ok) return 2;
    fprintf(stderr, "render: %s: %d frame%s of %ldx%ld, %.2f ms of CPU to draw a frame\n", out, frames, frames == 1 ? "" : "s",
            w, h, frames ? draw_time * 1000.0 / frames : 0.0);
    return 0;
}
