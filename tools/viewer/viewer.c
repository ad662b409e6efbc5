/* SPDX-License-Identifier: MIT */
/* qphys-viewer - watch a scene or a snapshot step, and poke it.
 *
 *   qphys-viewer SCENE|SNAPSHOT [--size WxH] [--steps N] [--paused] [--slow K] [--car N] [--max-bodies N]
 *
 * The engine is driven only through its public API, one fixed step of the scene's dt at a
 * time (slow motion takes fewer steps per second, never shorter ones). Drawing is the
 * software rasterizer shared with `qphys render` (draw.c, raster.c), shown through an SDL
 * texture. --steps N steps before the window opens; --paused starts paused. --car N: body N
 * (counted from 0, as in scene files) is the chassis of a car of qp_default_car_def() on
 * ray-cast wheels (qphys/car.h), updated before every step and driven with the arrow keys
 * (up: forward, down: reverse, left and right: steer); its wheels and suspension rays are
 * drawn as `qphys render --car` draws them.
 *
 * Mouse: left-drag on empty space orbits, left-drag on a body pulls it toward the cursor
 * (impulses at its centre each step), right click throws a box or a sphere from the eye
 * toward the cursor, middle-drag pans, the wheel zooms.
 * Keys: space pause, . (or s) one step when paused, r reset, m slow motion (1, 1/4, 1/16),
 * c colours (state, islands, contact-graph levels), n contact points and normals,
 * b throw boxes or spheres, f frame the bodies, p screenshot (PNG), i print the heads-up
 * line, h help, q or Escape quit.
 * Stdout: "viewer: " lines with the heads-up line (at start, on i, after a throw, at exit),
 * for scripts and tests.
 */
#define _POSIX_C_SOURCE 200809L
#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "image_io.h"
#include "load.h"
#include "../sized_world.h"
#include "qphys/car.h"
#include "qphys/world.h"

static qp_world *world;        /* sized to the file (tools/sized_world.h) */
static qp_car car;             /* --car: the chassis' wheels */
static qp_world *wheel_scratch; /* --car: where the wheels are found before the first step */

typedef struct {
    const char *path;
    vw_file file;
    vw_camera cam;
    vw_draw_opts opts;
    rs_image img;
    bool paused, help, throw_sphere;
    long car_body;            /* --car N: the chassis' body number; -1: no car */
    int slow;                 /* steps run at 1/slow of real time: 1, 4, 16 */
    double acc;               /* real seconds not yet stepped */
    double step_us;           /* recent mean cost of a step */
    /* mouse */
    enum { MOUSE_NONE, MOUSE_ORBIT, MOUSE_PAN, MOUSE_DRAG } mode;
    int mx, my;
    qp_body_id grabbed;
    float grab_depth;         /* distance along the ray of the grab point */
    float grab_offset[3];     /* grab point minus the body's centre, world */
} viewer;

static fix16_t F(float v)
{
    if (v > 30000.0f) v = 30000.0f;
    if (v < -30000.0f) v = -30000.0f;
    return (fix16_t)lrintf(v * 65536.0f);
}
static float R(fix16_t v) { return (float)v / 65536.0f; }

static void say(const char *what)
{
    char line[200];
    vw_hud_line(world, -1, line, sizeof line);
    printf("viewer: %s%s%s\n", what, *what ? ": " : "", line);
    fflush(stdout);
}

static void frame_bodies(viewer *v)
{
    float lo[3] = { -1, 0, -1 }, hi[3] = { 1, 2, 1 };
    vw_world_bounds(world, lo, hi);
    vw_camera_fit(&v->cam, lo, hi, (float)v->img.w / (float)v->img.h);
}

static double now_us(void) { return (double)SDL_GetPerformanceCounter() * 1e6 / (double)SDL_GetPerformanceFrequency(); }

/* One fixed step, with the drag's impulse first. */
static void step(viewer *v)
{
    if (v->mode == MOUSE_DRAG && qp_body_is_valid(world, v->grabbed)) {
        float o[3], d[3];
        vw_camera_ray(&v->cam, v->img.w, v->img.h, (float)v->mx + 0.5f, (float)v->my + 0.5f, o, d);
        qp_vec3 c = qp_body_center(world, v->grabbed), vel = qp_body_linear_velocity(world, v->grabbed);
        const qp_world_def *def = qp_world_get_def(world);
        float m = R(qp_body_mass(world, v->grabbed)), dt = R(def->dt);
        qp_vec3 imp;
        float want[3], j[3];
        for (int k = 0; k < 3; k++) {
            float target = o[k] + d[k] * v->grab_depth - v->grab_offset[k];
            float cc = k == 0 ? R(c.x) : (k == 1 ? R(c.y) : R(c.z));
            float vv = k == 0 ? R(vel.x) : (k == 1 ? R(vel.y) : R(vel.z));
            float g = k == 0 ? R(def->gravity.x) : (k == 1 ? R(def->gravity.y) : R(def->gravity.z));
            want[k] = (target - cc) * 8.0f;
            if (want[k] > 20) want[k] = 20;
            if (want[k] < -20) want[k] = -20;
            j[k] = m * ((want[k] - vv) * 0.5f - g * dt);
        }
        imp = qp_v3(F(j[0]), F(j[1]), F(j[2]));
        if (qp_body_apply_impulse(world, v->grabbed, imp, c) != QP_OK) v->mode = MOUSE_NONE;
    }
    if (v->opts.car) {
        const Uint8 *keys = SDL_GetKeyboardState(0);
        fix16_t throttle = keys[SDL_SCANCODE_UP] ? QP_ONE : keys[SDL_SCANCODE_DOWN] ? -QP_ONE : 0;
        fix16_t steer = keys[SDL_SCANCODE_LEFT] ? QP_ONE : keys[SDL_SCANCODE_RIGHT] ? -QP_ONE : 0;
        if (qp_car_set_input(&car, throttle, 0, steer) != QP_OK || qp_car_update(world, &car) != QP_OK)
            v->opts.car = 0;   /* its chassis is gone */
    }
    double t0 = now_us();
    qp_world_step(world);
    double t = now_us() - t0;
    v->step_us = v->step_us > 0 ? v->step_us * 0.95 + t * 0.05 : t;
}

static void throw_body(viewer *v, int x, int y)
{
    float o[3], d[3];
    vw_camera_ray(&v->cam, v->img.w, v->img.h, (float)x + 0.5f, (float)y + 0.5f, o, d);
    qp_body_def def = qp_default_body_def();
    def.shape_count = 1;
    qp_result r = v->throw_sphere ? qp_make_sphere(F(0.4f), &def.shapes[0])
                                  : qp_make_box(qp_v3(F(0.4f), F(0.4f), F(0.4f)), &def.shapes[0]);
    if (r != QP_OK) return;
    def.density = F(4.0f);
    def.position = qp_v3(F(o[0] + d[0]), F(o[1] + d[1]), F(o[2] + d[2]));
    def.linear_velocity = qp_v3(F(d[0] * 30.0f), F(d[1] * 30.0f), F(d[2] * 30.0f)); /* m/s */
    qp_result err = QP_OK;
    qp_body_id id = qp_create_body(world, &def, &err);
    if (qp_body_id_is_null(id)) {
        printf("viewer: cannot throw: %s\n", qp_result_str(err));
        fflush(stdout);
        return;
    }
    char what[64];
    snprintf(what, sizeof what, "threw a %s (body %d)", v->throw_sphere ? "sphere" : "box", id.index);
    say(what);
}

static void grab_or_orbit(viewer *v, int x, int y)
{
    float o[3], d[3];
    vw_camera_ray(&v->cam, v->img.w, v->img.h, (float)x + 0.5f, (float)y + 0.5f, o, d);
    qp_world_ray_hit hit;
    qp_vec3 origin = qp_v3(F(o[0]), F(o[1]), F(o[2])), delta = qp_v3(F(d[0] * 500), F(d[1] * 500), F(d[2] * 500));
    v->mode = MOUSE_ORBIT;
    if (qp_world_raycast(world, origin, delta, &hit) && qp_body_get_type(world, hit.body) == QP_BODY_DYNAMIC) {
        qp_vec3 c = qp_body_center(world, hit.body);
        v->mode = MOUSE_DRAG;
        v->grabbed = hit.body;
        v->grab_depth = R(hit.hit.fraction) * 500.0f;
        v->grab_offset[0] = R(hit.hit.point.x) - R(c.x);
        v->grab_offset[1] = R(hit.hit.point.y) - R(c.y);
        v->grab_offset[2] = R(hit.hit.point.z) - R(c.z);
        qp_result r = qp_body_wake(world, hit.body);
        (void)r;
    }
}

/* --car: a car of qp_default_car_def() on body car_body, its wheels found where it stands
 * (on a copy of the world: the update pushes the chassis, which only a step may do). */
static bool attach_car(viewer *v)
{
    v->opts.car = 0;
    if (v->car_body < 0) return true;
    memset(&car, 0, sizeof car);
    car.def = qp_default_car_def();
    car.chassis = qp_world_body_at(world, (int)v->car_body + 1);
    if (!qp_body_is_valid(world, car.chassis) || sized_world_copy(&wheel_scratch, world) != QP_OK ||
        qp_car_update(wheel_scratch, &car) != QP_OK) {
        fprintf(stderr, "qphys-viewer: --car %ld: no such body in the world\n", v->car_body);
        return false;
    }
    v->opts.car = &car;
    return true;
}

static bool reset(viewer *v)
{
    if (!vw_load(&world, v->path, &v->file) || !attach_car(v)) return false;
    v->mode = MOUSE_NONE;
    say("reset");
    return true;
}

static void screenshot(viewer *v)
{
    char name[64];
    snprintf(name, sizeof name, "qphys-shot-%u.png", (unsigned)qp_world_get_stats(world).step);
    if (png_write_rgb(name, v->img.rgba, v->img.w, v->img.h)) printf("viewer: wrote %s\n", name);
    fflush(stdout);
}

static bool key(viewer *v, SDL_Keycode k)
{
    switch (k) {
    case SDLK_ESCAPE:
    case SDLK_q: return false;
    case SDLK_SPACE: v->paused = !v->paused; v->acc = 0; break;
    case SDLK_PERIOD:
    case SDLK_s: if (v->paused) step(v); break;
    case SDLK_r: reset(v); break;
    case SDLK_m: v->slow = v->slow == 1 ? 4 : (v->slow == 4 ? 16 : 1); break;
    case SDLK_c: v->opts.color = (vw_color_mode)((v->opts.color + 1) % VW_COLOR_MODES); break;
    case SDLK_n: v->opts.contacts = !v->opts.contacts; break;
    case SDLK_b: v->throw_sphere = !v->throw_sphere; break;
    case SDLK_f: frame_bodies(v); break;
    case SDLK_p: screenshot(v); break;
    case SDLK_i: say("at"); break;
    case SDLK_h: v->help = !v->help; break;
    default: break;
    }
    return true;
}

static bool parse_size(const char *s, int *w, int *h)
{
    return sscanf(s, "%dx%d", w, h) == 2 && *w >= 64 && *h >= 64 && *w <= 4096 && *h <= 4096;
}

int main(int argc, char **argv)
{
    static viewer v;
    int w = 1280, h = 800;
    long pre = 0;
    v.slow = 1;
    v.car_body = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : 0;
        if (!strcmp(a, "--size") && val && parse_size(val, &w, &h)) i++;
        else if (!strcmp(a, "--steps") && val && (pre = strtol(val, 0, 10)) >= 0) i++;
        else if (!strcmp(a, "--slow") && val && (v.slow = atoi(val)) >= 1) i++;
        else if (!strcmp(a, "--paused")) v.paused = true;
        else if (!strcmp(a, "--car") && val && (v.car_body = strtol(val, 0, 10)) >= 0) i++;
        else if (sized_world_option(argc, argv, &i) > 0) continue;   /* --max-bodies N */
        else if (a[0] != '-' && !v.path) v.path = a;
        else {
            fprintf(stderr, "usage: qphys-viewer SCENE|SNAPSHOT [--size WxH] [--steps N] [--paused] [--slow K] [--car N] "
                            "[--max-bodies N]\n");
            return 2;
        }
    }
    if (!v.path) {
        fprintf(stderr, "usage: qphys-viewer SCENE|SNAPSHOT [--size WxH] [--steps N] [--paused] [--slow K] [--car N] "
                        "[--max-bodies N]\n");
        return 2;
    }
    if (!vw_read_file(v.path, &v.file) || !vw_load(&world, v.path, &v.file) || !attach_car(&v)) return 2;
    for (long s = 0; s < pre; s++) {
        if (v.opts.car && qp_car_update(world, &car) != QP_OK) return 2;
        qp_world_step(world);
    }
    say("start");

    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "qphys-viewer: no display: %s\n", SDL_GetError());
        return 1;
    }
    /* Without a reachable display SDL falls back to drawing nowhere ("offscreen"): say so
     * instead, unless that driver was asked for (SDL_VIDEODRIVER). */
    const char *driver = SDL_GetCurrentVideoDriver();
    if (!getenv("SDL_VIDEODRIVER") && driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy"))) {
        fprintf(stderr, "qphys-viewer: no display: DISPLAY or WAYLAND_DISPLAY must name a running display "
                        "(SDL found only its '%s' video driver)\n", driver);
        SDL_Quit();
        return 1;
    }
    char title[256];
    snprintf(title, sizeof title, "qphys viewer - %s", v.path);
    SDL_Window *win = SDL_CreateWindow(title, 0, 0, w, h, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *ren = win ? SDL_CreateRenderer(win, -1, 0) : 0;
    SDL_Texture *tex = ren ? SDL_CreateTexture(ren, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, w, h) : 0;
    if (!tex || !rs_init(&v.img, w, h)) {
        fprintf(stderr, "qphys-viewer: cannot open a %dx%d window: %s\n", w, h, SDL_GetError());
        return 1;
    }
    vw_camera_default(&v.cam);
    frame_bodies(&v);
    const double dt = R(qp_world_get_def(world)->dt);
    double last = now_us(), draw_us = 0;
    bool running = true;
    while (running) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            switch (e.type) {
            case SDL_QUIT: running = false; break;
            case SDL_KEYDOWN: running = key(&v, e.key.keysym.sym) && running; break;
            case SDL_MOUSEBUTTONDOWN:
                v.mx = e.button.x;
                v.my = e.button.y;
                if (e.button.button == SDL_BUTTON_LEFT) grab_or_orbit(&v, e.button.x, e.button.y);
                else if (e.button.button == SDL_BUTTON_MIDDLE) v.mode = MOUSE_PAN;
                else if (e.button.button == SDL_BUTTON_RIGHT) throw_body(&v, e.button.x, e.button.y);
                break;
            case SDL_MOUSEBUTTONUP: v.mode = MOUSE_NONE; break;
            case SDL_MOUSEMOTION: {
                int dx = e.motion.x - v.mx, dy = e.motion.y - v.my;
                v.mx = e.motion.x;
                v.my = e.motion.y;
                if (v.mode == MOUSE_ORBIT) {
                    v.cam.yaw -= (float)dx * 0.01f;
                    v.cam.pitch += (float)dy * 0.01f;
                    if (v.cam.pitch > 1.5f) v.cam.pitch = 1.5f;
                    if (v.cam.pitch < 0.05f) v.cam.pitch = 0.05f;
                } else if (v.mode == MOUSE_PAN) {
                    float k = v.cam.dist * 0.0015f, o[3], d0[3], d1[3];
                    vw_camera_ray(&v.cam, 2, 2, 1, 1, o, d0);
                    vw_camera_ray(&v.cam, 2, 2, 2, 1, o, d1); /* toward the right */
                    float right[3] = { d1[0] - d0[0], d1[1] - d0[1], d1[2] - d0[2] };
                    float rl = sqrtf(right[0] * right[0] + right[1] * right[1] + right[2] * right[2]);
                    for (int q = 0; q < 3; q++) v.cam.target[q] -= right[q] / rl * (float)dx * k;
                    v.cam.target[1] += (float)dy * k;
                }
                break;
            }
            case SDL_MOUSEWHEEL: v.cam.dist *= powf(0.9f, (float)e.wheel.y); break;
            case SDL_WINDOWEVENT:
                if (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED && e.window.data1 >= 64 && e.window.data2 >= 64) {
                    rs_image img;
                    SDL_Texture *t = SDL_CreateTexture(ren, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING,
                                                       e.window.data1, e.window.data2);
                    if (t && rs_init(&img, e.window.data1, e.window.data2)) {
                        SDL_DestroyTexture(tex);
                        tex = t;
                        rs_free(&v.img);
                        v.img = img;
                    } else if (t) SDL_DestroyTexture(t);
                }
                break;
            default: break;
            }
        }
        /* Fixed steps for the real time that passed, at most 4 per frame. */
        double now = now_us(), real = (now - last) * 1e-6;
        last = now;
        if (!v.paused) {
            v.acc += real / v.slow;
            int n = 0;
            while (v.acc >= dt && n < 4) {
                step(&v);
                v.acc -= dt;
                n++;
            }
            if (n == 4) v.acc = 0;
        }
        char hud[200], state[160], keys_help[200];
        vw_hud_line(world, v.step_us, hud, sizeof hud);
        char slow[16] = "";
        if (v.slow > 1) snprintf(slow, sizeof slow, " 1/%d", v.slow);
        snprintf(state, sizeof state, "%s%s  colours: %s (c)  contacts %s (n)  throw %s (b)  help (h)",
                 v.paused ? "PAUSED" : "running", slow,
                 vw_color_mode_name(v.opts.color), v.opts.contacts ? "on" : "off", v.throw_sphere ? "sphere" : "box");
        snprintf(keys_help, sizeof keys_help, "space pause  . step  r reset  m slow  f frame  p screenshot  "
                 "i print  q quit  (drawing %.1f ms)", draw_us / 1000.0);
        v.opts.text[0] = hud;
        v.opts.text[1] = state;
        v.opts.text[2] = !v.help ? 0
                         : v.opts.car ? "left drag: orbit, or pull a body  right click: throw  middle drag: pan  wheel: zoom  arrows: drive"
                                      : "left drag: orbit, or pull a body  right click: throw  middle drag: pan  wheel: zoom";
        v.opts.text[3] = v.help ? keys_help : 0;
        v.opts.text_scale = v.img.w >= 1100 ? 2 : 1;
        double t0 = now_us();
        vw_draw_world(&v.img, world, &v.cam, &v.opts);
        draw_us = draw_us > 0 ? draw_us * 0.9 + (now_us() - t0) * 0.1 : now_us() - t0;
        SDL_UpdateTexture(tex, 0, v.img.rgba, v.img.w * 4);
        SDL_RenderClear(ren);
        SDL_RenderCopy(ren, tex, 0, 0);
        SDL_RenderPresent(ren);
        double spent = (now_us() - now) / 1000.0;
        if (spent < 16) SDL_Delay((Uint32)(16 - spent));
    }
    say("quit");
    rs_free(&v.img);
    vw_free_file(&v.file);
    SDL_DestroyTexture(tex);
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return 0;
}
