/* SPDX-License-Identifier: MIT */
/* Scene files (docs/scene-format.md, version 1).
 *
 * A line reader that needs no heap and no float: each non-empty line is cut
 * into tokens (spaces and tabs; `#` starts a comment) and parsed into one
 * qp_scene_item, checked on the spot with the same pure functions and the
 * same limits that qp_create_body applies (shape sizes, mass and inertia,
 * speeds, bounds). qp_scene_check reads the whole text and adds what only the
 * whole file shows (pool capacity, one `world` line, joint body numbers).
 * qp_scene_load runs the check first and only then initialises the world and
 * creates the bodies by reading the text a second time, so a bad file never
 * leaves a half-built world.
 *
 * Numbers are read exactly: the integer part as an integer, the fraction
 * digits as a decimal fraction that is converted to binary by repeated
 * doubling (17 bits: 16 for Q16.16 and one to round with). That is exact for
 * any number of digits, so "0.1" is 6554 on every target; libfixmath's
 * fix16_from_str goes through a rounded division and differs in the last bit.
 */
#include <string.h>
#include "qphys/joint.h"
#include "qphys/scene.h"
#include "body.h"
#include "world_check.h"

/* Keep the line parsers out of each other's frames: each stays well below
 * the core's 2 KB per-function stack bound, sanitizers included. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* ---- errors --------------------------------------------------------------------- */

/* One line being parsed: text s[0..n) (comment and line end excluded). */
typedef struct {
    const char *s;
    unsigned long n;
    unsigned long p;          /* cursor */
    int line;
    qp_scene_error *err;
} lexer;

typedef struct {
    unsigned long at;         /* offset in the line */
    unsigned long len;
} token;

static void set_error(qp_scene_error *err, int line, unsigned long at, const char *msg, qp_result result)
{
    if (!err) return;
    err->result = result;
    err->line = line;
    /* A column beyond INT_MAX cannot happen for a line below 2 GB; clamp anyway. */
    err->column = at >= 0x7FFFFFFEul ? 0x7FFFFFFF : (int)(at + 1);
    err->message = msg;
}

/* Record an error at offset at of the current line; returns false for `return fail(...)`. */
static bool fail(lexer *lx, unsigned long at, const char *msg)
{
    set_error(lx->err, lx->line, at, msg, QP_ERR_PARSE);
    return false;
}

/* The same for a well-formed value outside its range (QP_ERR_RANGE). */
static bool fail_range(lexer *lx, unsigned long at, const char *msg)
{
    set_error(lx->err, lx->line, at, msg, QP_ERR_RANGE);
    return false;
}

/* ---- tokens ---------------------------------------------------------------------- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Next token, or false at the end of the line. Bytes outside printable ASCII
 * (control characters, NUL, bytes >= 0x80) are an error (*bad set). */
static bool next_token(lexer *lx, token *t, bool *bad)
{
    *bad = false;
    while (lx->p < lx->n && is_space(lx->s[lx->p])) lx->p++;
    if (lx->p >= lx->n) {
        t->at = lx->n;
        t->len = 0;
        return false;
    }
    t->at = lx->p;
    while (lx->p < lx->n && !is_space(lx->s[lx->p])) {
        unsigned char c = (unsigned char)lx->s[lx->p];
        if (c < 0x21 || c > 0x7E) {
            *bad = true;
            fail(lx, lx->p, "unexpected byte: a scene is printable ASCII text (control or non-ASCII byte here)");
            return false;
        }
        lx->p++;
    }
    t->len = lx->p - t->at;
    return true;
}

static bool tok_is(const lexer *lx, const token *t, const char *word)
{
    unsigned long i = 0;
    for (; word[i]; i++)
        if (i >= t->len || lx->s[t->at + i] != word[i]) return false;
    return i == t->len;
}

/* ---- numbers --------------------------------------------------------------------- */

/* The exact decimal reader behind qp_scene_parse_fix; *msg says why it failed. */
static qp_result parse_fix(const char *s, unsigned long n, fix16_t *out, const char **msg)
{
    unsigned long i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    unsigned long start = i;
    uint32_t ip = 0;
    bool big = false;
    while (i < n && is_digit(s[i])) {
        if (!big) {
            ip = ip * 10u + (uint32_t)(s[i] - '0');
            if (ip > 32768u) big = true;
        }
        i++;
    }
    if (i == start) {
        *msg = "expected a number (digits with an optional sign and decimal point, e.g. -0.25)";
        return QP_ERR_PARSE;
    }
    uint8_t frac[QP_SCENE_MAX_FRACTION_DIGITS];
    unsigned nf = 0;
    if (i < n && s[i] == '.') {
        i++;
        unsigned long fstart = i;
        while (i < n && is_digit(s[i])) {
            if (nf == QP_SCENE_MAX_FRACTION_DIGITS) {
                *msg = "too many fraction digits in a number (at most 24)";
                return QP_ERR_PARSE;
            }
            frac[nf++] = (uint8_t)(s[i] - '0');
            i++;
        }
        if (i == fstart) {
            *msg = "expected digits after the decimal point";
            return QP_ERR_PARSE;
        }
    }
    if (i != n) {
        *msg = "expected a number (digits with an optional sign and decimal point, e.g. -0.25)";
        return QP_ERR_PARSE;
    }
    if (big) {
        *msg = "number out of range: Q16.16 numbers lie within +-32767.99998";
        return QP_ERR_RANGE;
    }
    /* Binary digits of the fraction by doubling the decimal digits: 16 bits
     * plus a rounding bit. Exact; rounding half away from zero. */
    uint32_t bits = 0;
    for (int b = 0; b < 17; b++) {
        unsigned carry = 0;
        for (unsigned k = nf; k-- > 0;) {
            unsigned v = (unsigned)frac[k] * 2u + carry;
            carry = v >= 10u;
            frac[k] = (uint8_t)(carry ? v - 10u : v);
        }
        bits = (bits << 1) | carry;
    }
    uint64_t mag = (uint64_t)ip * 65536u + (bits >> 1) + (bits & 1u);
    if (mag > (uint64_t)QP_FIX_MAX) {
        *msg = "number out of range: Q16.16 numbers lie within +-32767.99998";
        return QP_ERR_RANGE;
    }
    *out = neg ? -(fix16_t)mag : (fix16_t)mag;
    return QP_OK;
}

qp_result qp_scene_parse_fix(const char *s, unsigned long n, fix16_t *out)
{
    const char *msg = 0;
    fix16_t v = 0;
    if (!s || !out) return QP_ERR_PARAM;
    qp_result r = parse_fix(s, n, &v, &msg);
    if (r == QP_OK) *out = v;
    return r;
}

/* Read a number token; missing is reported with `what` at the end of the line. */
static bool read_fix(lexer *lx, fix16_t *out, const char *what, unsigned long *at)
{
    token t;
    bool bad;
    if (!next_token(lx, &t, &bad)) return bad ? false : fail(lx, t.at, what);
    const char *msg = 0;
    if (at) *at = t.at;
    qp_result r = parse_fix(lx->s + t.at, t.len, out, &msg);
    if (r == QP_ERR_RANGE) return fail_range(lx, t.at, msg);
    if (r != QP_OK) return fail(lx, t.at, msg);
    return true;
}

static bool read_vec(lexer *lx, qp_vec3 *v, const char *what, unsigned long *at)
{
    unsigned long a0 = 0;
    if (!read_fix(lx, &v->x, what, &a0)) return false;
    if (at) *at = a0;
    return read_fix(lx, &v->y, what, 0) && read_fix(lx, &v->z, what, 0);
}

/* A non-negative decimal integer token in [lo, hi]. */
static bool read_int(lexer *lx, int *out, int lo, int hi, const char *what, const char *range_msg,
                     unsigned long *at)
{
    token t;
    bool bad;
    if (!next_token(lx, &t, &bad)) return bad ? false : fail(lx, t.at, what);
    if (at) *at = t.at;
    long v = 0;
    for (unsigned long i = 0; i < t.len; i++) {
        char c = lx->s[t.at + i];
        if (!is_digit(c)) return fail(lx, t.at, what);
        if (v <= 1000000L) v = v * 10 + (c - '0');
    }
    if (v < lo || v > hi) return fail_range(lx, t.at, range_msg);
    *out = (int)v;
    return true;
}

static bool fix_in(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }

/* ---- lines ------------------------------------------------------------------------ */

/* Each option at most once: bit per option, checked by `once`. */
static bool once(lexer *lx, unsigned *seen, unsigned bit, const token *t)
{
    if (*seen & bit) return fail(lx, t->at, "option given twice on one line");
    *seen |= bit;
    return true;
}

/* The word after a world switch (sleep, gyroscopic, joint_tree): 'on' or 'off' into *on;
 * msg is the error for anything else. */
static bool read_switch(lexer *lx, const char *msg, bool *on)
{
    token t;
    bool bad;
    if (!next_token(lx, &t, &bad)) return bad ? false : fail(lx, t.at, msg);
    if (tok_is(lx, &t, "on")) *on = true;
    else if (tok_is(lx, &t, "off")) *on = false;
    else return fail(lx, t.at, msg);
    return true;
}

NOINLINE static bool parse_world(lexer *lx, qp_scene_world_item *it)
{
    token t;
    bool bad;
    unsigned seen = 0;
    it->def = qp_default_world_def();
    while (next_token(lx, &t, &bad)) {
        if (tok_is(lx, &t, "gravity")) {
            unsigned long at;
            if (!once(lx, &seen, 1u, &t) ||
                !read_vec(lx, &it->def.gravity, "expected three numbers after 'gravity' (X Y Z, m/s^2)", &at))
                return false;
            if (qp_v3_max_abs(it->def.gravity) > QP_INT(1000))
                return fail_range(lx, at, "gravity out of range: each component within +-1000 m/s^2");
        } else if (tok_is(lx, &t, "hz")) {
            int hz;
            if (!once(lx, &seen, 2u, &t) ||
                !read_int(lx, &hz, 10, 1000, "expected an integer after 'hz' (steps per second)",
                          "hz out of range: 10 .. 1000 steps per second", 0))
                return false;
            it->def.dt = QP_FRAC(1, hz);
        } else if (tok_is(lx, &t, "iterations")) {
            if (!once(lx, &seen, 4u, &t) ||
                !read_int(lx, &it->def.contact_iterations, 1, 100,
                          "expected an integer after 'iterations' (contact iterations)",
                          "iterations out of range: 1 .. 100", 0))
                return false;
        } else if (tok_is(lx, &t, "sleep")) {
            if (!once(lx, &seen, 8u, &t) ||
                !read_switch(lx, "expected 'on' or 'off' after 'sleep'", &it->def.sleep_enabled))
                return false;
        } else if (tok_is(lx, &t, "gyroscopic")) {
            if (!once(lx, &seen, 16u, &t) ||
                !read_switch(lx, "expected 'on' or 'off' after 'gyroscopic'", &it->def.gyroscopic))
                return false;
        } else if (tok_is(lx, &t, "joint_tree")) {
            if (!once(lx, &seen, 32u, &t) ||
                !read_switch(lx, "expected 'on' or 'off' after 'joint_tree'", &it->def.joint_tree))
                return false;
        } else {
            return fail(lx, t.at,
                        "unknown option for 'world': expected gravity, hz, iterations, sleep, gyroscopic or joint_tree");
        }
    }
    return !bad;
}

/* qp_create_body's own mass check (src/body.c) on every shape of the body,
 * with nothing created: mass in 0.01 .. 10000 kg (spread by volume, or from
 * the density), inertia below 32000 kg m^2 (raised to its floor if small). */
/* filter CATEGORY MASK GROUP: 16-bit category and mask, a signed 16-bit group. */
static bool read_filter(lexer *lx, qp_shape_filter *f)
{
    const char *what = "expected three integers after 'filter' (CATEGORY MASK GROUP)";
    int category, mask;
    if (!read_int(lx, &category, 0, 65535, what, "filter category out of range: 0 .. 65535", 0) ||
        !read_int(lx, &mask, 0, 65535, what, "filter mask out of range: 0 .. 65535", 0))
        return false;
    token t;
    bool bad;
    if (!next_token(lx, &t, &bad)) return bad ? false : fail(lx, lx->n, what);
    bool negative = lx->s[t.at] == '-';
    long v = 0;
    unsigned long digits = 0;
    for (unsigned long i = negative ? 1 : 0; i < t.len; i++) {
        char c = lx->s[t.at + i];
        if (!is_digit(c)) return fail(lx, t.at, "filter group must be an integer");
        if (v <= 1000000L) v = v * 10 + (c - '0');
        digits++;
    }
    if (digits == 0) return fail(lx, t.at, "filter group must be an integer");
    if (negative) v = -v;
    if (v < -32768 || v > 32767) return fail_range(lx, t.at, "filter group out of range: -32768 .. 32767");
    f->category = (uint16_t)category;
    f->mask = (uint16_t)mask;
    f->group = (int16_t)v;
    return true;
}

NOINLINE static bool mass_ok(const qp_scene_body_item *it)
{
    if (it->hull_shape >= 0) return qp__body_mass_check_points(&it->def, it->hull_points, it->hull_count) == QP_OK;
    return qp__body_mass_check(&it->def) == QP_OK;
}

/* `points X Y Z X Y Z ...`: 4-64 points of a hull (shape frame), read while numbers follow,
 * kept distinct in it; the hull must not be degenerate (qp_hull_check). */
NOINLINE static bool read_hull_points(lexer *lx, const token *kw, qp_scene_body_item *it)
{
    if (!QP_CFG_MAX_HULLS) {
        set_error(lx->err, lx->line, kw->at, "hulls are not in this build (QP_CFG_MAX_HULLS 0)", QP_ERR_FULL);
        return false;
    }
    if (it->hull_shape >= 0) return fail(lx, kw->at, "one hull per body in a scene file (a compound: one 'part hull')");
    fix16_t c[3];
    int k = 0, given = 0, n = 0;
    for (;;) {
        lexer save = *lx;
        token t;
        bool bad;
        if (!next_token(lx, &t, &bad)) {
            if (bad) return false;
            break;
        }
        const char *msg = 0;
        qp_result r = parse_fix(lx->s + t.at, t.len, &c[k], &msg);
        if (r == QP_ERR_PARSE) {   /* the next option: the points end here */
            *lx = save;
            break;
        }
        if (r != QP_OK) return fail_range(lx, t.at, msg);
        if (c[k] > QP_SHAPE_MAX_SIZE || c[k] < -QP_SHAPE_MAX_SIZE)
            return fail_range(lx, t.at, "hull point out of range: each coordinate within +-100 m of the body origin");
        if (++k < 3) continue;
        k = 0;
        if (++given > QP_HULL_MAX_POINTS) return fail_range(lx, t.at, "too many hull points: at most 64");
        qp_vec3 p = qp_v3(c[0], c[1], c[2]);
        bool dup = false;
        for (int i = 0; i < n && !dup; i++) dup = p.x == it->hull_points[i].x && p.y == it->hull_points[i].y && p.z == it->hull_points[i].z;
        if (!dup && QP_CFG_MAX_HULLS > 0) it->hull_points[n++] = p;
    }
    if (k != 0) return fail(lx, lx->p, "hull points come in threes (X Y Z each)");
    if (n < 4) return fail_range(lx, kw->at, "degenerate hull: it needs 4 distinct points at least");
    if (qp_hull_check(it->hull_points, n) != QP_OK)
        return fail_range(lx, kw->at, "degenerate hull: its points lie in one plane (or on one line)");
    it->hull_count = n;
    return true;
}

/* A hull shape with no hull yet (qp_scene_load builds it from the item's points). */
static void hull_shape(qp_shape *s)
{
    memset(s, 0, sizeof *s);
    s->type = QP_SHAPE_HULL;
    s->rotation = qp_quat_identity();
}

/* Option bits of a body line beyond QP_SCENE_GIVEN_*. */
enum {
    OPT_HALF = 1u << 16,
    OPT_RADIUS = 1u << 17,
    OPT_HALF_HEIGHT = 1u << 18,
    OPT_POS = 1u << 19,
    OPT_NORMAL = 1u << 20,
    OPT_OFFSET = 1u << 21,
    OPT_AT = 1u << 22,
    OPT_POINTS = 1u << 23,
    OPT_ROLLING = 1u << 24
};

static const char *const mass_msg =
    "mass or inertia out of range: a dynamic body weighs 0.01 .. 10000 kg with inertia below 32000 kg m^2";

static const char *const unknown_body_option[QP_SHAPE_TYPE_COUNT] = {
    "unknown option for 'plane': expected normal, offset, friction, restitution or rolling",
    "unknown option for 'sphere': expected radius, pos, rot, vel, spin, mass, density, static, kinematic, friction, "
    "restitution, rolling, asleep, filter or sensor",
    "unknown option for 'capsule': expected radius, half_height, pos, rot, vel, spin, mass, density, static, "
    "kinematic, friction, restitution, rolling, asleep, filter or sensor",
    "unknown option for 'box': expected half, pos, rot, vel, spin, mass, density, static, kinematic, friction, "
    "restitution, rolling, asleep, filter or sensor",
    "unknown option for 'hull': expected points, pos, rot, vel, spin, mass, density, static, kinematic, friction, "
    "restitution, rolling, asleep, filter or sensor",
};

/* The returned struct is a large temporary: keep it in its own frame. */
NOINLINE static void default_body(qp_body_def *d)
{
    *d = qp_default_body_def();
}

/* A body line, or (compound) the `compound` line, which has no shape of its own: its
 * parts follow (parse_compound), and its mass is checked once they are known
 * (*mass_at then says where to report it). */
NOINLINE static bool parse_body(lexer *lx, qp_shape_type type, unsigned long kw_at, qp_scene_body_item *it,
                                bool compound, unsigned long *mass_at_out)
{
    qp_body_def *d = &it->def;
    default_body(d);
    it->given = 0;
    it->hull_shape = -1;
    it->hull_count = 0;
    unsigned seen = 0;
    qp_vec3 half = qp_v3_zero(), normal = qp_v3(0, QP_ONE, 0), axis = qp_v3_zero();
    fix16_t radius = 0, half_height = 0, offset = 0, deg = 0;
    unsigned long size_at = kw_at, pos_at = kw_at, rot_at = kw_at, vel_at = kw_at, spin_at = kw_at;
    unsigned long mass_at = kw_at, fr_at = kw_at, re_at = kw_at, roll_at = kw_at, normal_at = kw_at, offset_at = kw_at;
    unsigned long static_at = kw_at, asleep_at = kw_at, kin_at = kw_at;
    qp_shape_filter filter = qp_default_shape_filter();
    token t;
    bool bad;
    const bool plane = !compound && type == QP_SHAPE_PLANE;
    if (compound) type = QP_SHAPE_TYPE_COUNT;   /* no size keywords */
    while (next_token(lx, &t, &bad)) {
        unsigned long at = t.at;
        if (!plane && type == QP_SHAPE_BOX && tok_is(lx, &t, "half")) {
            if (!once(lx, &seen, OPT_HALF, &t) ||
                !read_vec(lx, &half, "expected three numbers after 'half' (half extents HX HY HZ, m)", &size_at))
                return false;
        } else if (type == QP_SHAPE_HULL && tok_is(lx, &t, "points")) {
            size_at = t.at;
            if (!once(lx, &seen, OPT_POINTS, &t) || !read_hull_points(lx, &t, it)) return false;
        } else if (!plane && (type == QP_SHAPE_SPHERE || type == QP_SHAPE_CAPSULE) && tok_is(lx, &t, "radius")) {
            if (!once(lx, &seen, OPT_RADIUS, &t) ||
                !read_fix(lx, &radius, "expected a number after 'radius' (m)", &size_at))
                return false;
        } else if (!plane && type == QP_SHAPE_CAPSULE && tok_is(lx, &t, "half_height")) {
            unsigned long hat;
            if (!once(lx, &seen, OPT_HALF_HEIGHT, &t) ||
                !read_fix(lx, &half_height, "expected a number after 'half_height' (m)", &hat))
                return false;
            if (!(seen & OPT_RADIUS)) size_at = hat;
        } else if (!plane && tok_is(lx, &t, "pos")) {
            if (!once(lx, &seen, OPT_POS, &t) ||
                !read_vec(lx, &d->position, "expected three numbers after 'pos' (X Y Z, m)", &pos_at))
                return false;
        } else if (!plane && tok_is(lx, &t, "rot")) {
            rot_at = at;
            if (!once(lx, &seen, QP_SCENE_GIVEN_ROT, &t) ||
                !read_vec(lx, &axis, "expected four numbers after 'rot' (axis AX AY AZ, angle in degrees)", 0) ||
                !read_fix(lx, &deg, "expected four numbers after 'rot' (axis AX AY AZ, angle in degrees)", 0))
                return false;
        } else if (!plane && tok_is(lx, &t, "vel")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_VEL, &t) ||
                !read_vec(lx, &d->linear_velocity, "expected three numbers after 'vel' (X Y Z, m/s)", &vel_at))
                return false;
        } else if (!plane && tok_is(lx, &t, "spin")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_SPIN, &t) ||
                !read_vec(lx, &d->angular_velocity, "expected three numbers after 'spin' (X Y Z, rad/s)", &spin_at))
                return false;
        } else if (!plane && tok_is(lx, &t, "mass")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_MASS, &t) ||
                !read_fix(lx, &d->mass, "expected a number after 'mass' (kg)", &mass_at))
                return false;
        } else if (!plane && tok_is(lx, &t, "density")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_DENSITY, &t) ||
                !read_fix(lx, &d->density, "expected a number after 'density' (kg/m^3)", &mass_at))
                return false;
        } else if (!plane && tok_is(lx, &t, "static")) {
            static_at = at;
            if (!once(lx, &seen, QP_SCENE_GIVEN_STATIC, &t)) return false;
        } else if (!plane && tok_is(lx, &t, "kinematic")) {
            kin_at = at;
            if (!once(lx, &seen, QP_SCENE_GIVEN_KINEMATIC, &t)) return false;
        } else if (!plane && tok_is(lx, &t, "asleep")) {
            asleep_at = at;
            if (!once(lx, &seen, QP_SCENE_GIVEN_ASLEEP, &t)) return false;
        } else if (!plane && tok_is(lx, &t, "filter")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_FILTER, &t) || !read_filter(lx, &filter)) return false;
        } else if (!plane && tok_is(lx, &t, "sensor")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_SENSOR, &t)) return false;
        } else if (tok_is(lx, &t, "friction")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_FRICTION, &t) ||
                !read_fix(lx, &d->friction, "expected a number after 'friction'", &fr_at))
                return false;
        } else if (tok_is(lx, &t, "restitution")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_RESTITUTION, &t) ||
                !read_fix(lx, &d->restitution, "expected a number after 'restitution'", &re_at))
                return false;
        } else if (tok_is(lx, &t, "rolling")) {
            if (!once(lx, &seen, OPT_ROLLING, &t) ||
                !read_fix(lx, &d->rolling_resistance, "expected a number after 'rolling' (rolling resistance)", &roll_at))
                return false;
        } else if (plane && tok_is(lx, &t, "normal")) {
            if (!once(lx, &seen, OPT_NORMAL, &t) ||
                !read_vec(lx, &normal, "expected three numbers after 'normal' (X Y Z)", &normal_at))
                return false;
        } else if (plane && tok_is(lx, &t, "offset")) {
            if (!once(lx, &seen, OPT_OFFSET, &t) ||
                !read_fix(lx, &offset, "expected a number after 'offset' (m)", &offset_at))
                return false;
        } else {
            return fail(lx, at, compound ? "unknown option for 'compound': expected pos, rot, vel, spin, mass, "
                                           "density, static, kinematic, friction, restitution, rolling, asleep, "
                                           "filter or "
                                           "sensor"
                                         : unknown_body_option[type]);
        }
    }
    if (bad) return false;
    it->given = (seen & 0xFFFFu) | (compound ? QP_SCENE_GIVEN_COMPOUND : 0u);

    /* Required parts. */
    unsigned long end = lx->n;
    if (type == QP_SHAPE_BOX && !(seen & OPT_HALF)) return fail(lx, end, "missing 'half HX HY HZ' (box half extents)");
    if ((type == QP_SHAPE_SPHERE || type == QP_SHAPE_CAPSULE) && !(seen & OPT_RADIUS))
        return fail(lx, end, "missing 'radius R'");
    if (type == QP_SHAPE_CAPSULE && !(seen & OPT_HALF_HEIGHT)) return fail(lx, end, "missing 'half_height H'");
    if (type == QP_SHAPE_HULL && !(seen & OPT_POINTS)) return fail(lx, end, "missing 'points X Y Z ...' (4-64 hull points)");
    if (!plane && !(seen & OPT_POS)) return fail(lx, end, "missing 'pos X Y Z' (body position)");

    /* The shape. */
    qp_result r = QP_OK;
    switch (type) {
    case QP_SHAPE_PLANE:
        if (!qp_v3_normalize_q30(normal, &axis)) return fail_range(lx, normal_at, "plane normal must not be zero");
        r = qp_make_plane(normal, offset, &d->shapes[0]);
        if (r != QP_OK) return fail_range(lx, offset_at, "plane offset out of range: within +-10000 m");
        break;
    case QP_SHAPE_SPHERE: r = qp_make_sphere(radius, &d->shapes[0]); break;
    case QP_SHAPE_CAPSULE: r = qp_make_capsule(radius, half_height, &d->shapes[0]); break;
    case QP_SHAPE_BOX: r = qp_make_box(half, &d->shapes[0]); break;
    case QP_SHAPE_HULL:
        hull_shape(&d->shapes[0]);
        it->hull_shape = 0;
        break;
    default:
        if (!compound) return fail(lx, kw_at, "internal error: unknown shape");
        break;
    }
    if (r != QP_OK) return fail_range(lx, size_at, "shape size out of range: 0.01 .. 100 m");
    d->shape_count = compound ? 0 : 1;

    /* Kind and mass. */
    unsigned mass_kinds = seen & (QP_SCENE_GIVEN_MASS | QP_SCENE_GIVEN_DENSITY | QP_SCENE_GIVEN_STATIC);
    if (mass_kinds & (mass_kinds - 1u))
        return fail(lx, (seen & QP_SCENE_GIVEN_STATIC) ? static_at : mass_at,
                    "'mass', 'density' and 'static' exclude each other");
    if ((seen & QP_SCENE_GIVEN_KINEMATIC) && mass_kinds)
        return fail(lx, kin_at, "'kinematic' excludes 'mass', 'density' and 'static' (infinite mass)");
    if (mass_at_out) *mass_at_out = (seen & (QP_SCENE_GIVEN_MASS | QP_SCENE_GIVEN_DENSITY)) ? mass_at : kw_at;
    if (seen & QP_SCENE_GIVEN_KINEMATIC) {
        d->type = QP_BODY_KINEMATIC;
        if (seen & QP_SCENE_GIVEN_ASLEEP)
            return fail(lx, asleep_at, "a kinematic body never sleeps: remove 'asleep'");
    } else if (plane || (seen & QP_SCENE_GIVEN_STATIC)) {
        d->type = QP_BODY_STATIC;
        if (seen & QP_SCENE_GIVEN_VEL) return fail(lx, vel_at, "a static body cannot move: remove 'vel'");
        if (seen & QP_SCENE_GIVEN_SPIN) return fail(lx, spin_at, "a static body cannot move: remove 'spin'");
        if (seen & QP_SCENE_GIVEN_ASLEEP) return fail(lx, asleep_at, "a static body cannot be asleep: remove 'asleep'");
    } else {
        d->type = QP_BODY_DYNAMIC;
        d->asleep = (seen & QP_SCENE_GIVEN_ASLEEP) != 0;
        /* A box, sphere or capsule with neither mass nor density weighs 1 kg whatever its
         * size, the format's common setting (boxes and spheres of 1 kg). At density 1 a
         * radius-0.5 ball weighed 0.52 kg, and a ball of radius under 0.134 m or a 0.2 m
         * cube fell below the 0.01 kg floor: the line was refused. A compound keeps the
         * body's density (1), as the format says: its parts' volumes make its mass. */
        if (!compound && !(seen & (QP_SCENE_GIVEN_MASS | QP_SCENE_GIVEN_DENSITY))) d->mass = QP_ONE;
        if ((seen & QP_SCENE_GIVEN_MASS) && !fix_in(d->mass, QP_FRAC(1, 100), QP_INT(10000)))
            return fail_range(lx, mass_at, "mass out of range: 0.01 .. 10000 kg");
        if ((seen & QP_SCENE_GIVEN_DENSITY) && d->density <= 0)
            return fail_range(lx, mass_at, "density must be positive");
        if (!compound && !mass_ok(it))
            return fail_range(lx, (seen & (QP_SCENE_GIVEN_MASS | QP_SCENE_GIVEN_DENSITY)) ? mass_at : size_at,
                              mass_msg);
    }

    /* Pose and motion. */
    if (seen & QP_SCENE_GIVEN_ROT) {
        if (!qp_quat_from_axis_angle(axis, qp_deg_to_rad(deg), &d->rotation))
            return fail_range(lx, rot_at, "rotation axis must not be zero");
    }
    const fix16_t bounds = QP_INT(1000); /* qp_default_world_def().bounds; not settable from a scene */
    if (qp_v3_max_abs(d->position) > bounds)
        return fail_range(lx, pos_at, "position out of range: each coordinate within +-1000 m (world bounds)");
    if (qp__speed_above(d->linear_velocity, QP_INT(100)))
        return fail_range(lx, vel_at, "velocity out of range: at most 100 m/s");
    if (qp__speed_above(d->angular_velocity, QP_INT(50)))
        return fail_range(lx, spin_at, "spin out of range: at most 50 rad/s");
    if (!fix_in(d->friction, 0, QP_INT(10))) return fail_range(lx, fr_at, "friction out of range: 0 .. 10");
    if (!fix_in(d->restitution, 0, QP_ONE)) return fail_range(lx, re_at, "restitution out of range: 0 .. 1");
    if ((seen & OPT_ROLLING) && !fix_in(d->rolling_resistance, 0, QP_ONE))
        return fail_range(lx, roll_at, "rolling resistance out of range: 0 .. 1");
    for (int k = 0; k < QP_CFG_MAX_BODY_SHAPES; k++) {   /* a compound's parts take them too */
        d->filters[k] = filter;
        d->sensors[k] = (seen & QP_SCENE_GIVEN_SENSOR) != 0;
    }
    return true;
}

NOINLINE static bool parse_distance(lexer *lx, qp_scene_joint_item *it);

/* A joint's two body numbers (file order) and their columns; what: the message when
 * they are missing. */
static bool read_joint_bodies(lexer *lx, qp_scene_joint_item *it, const char *what)
{
    unsigned long a_at, b_at;
    const char *range = "body number out of range: 0 .. 65534";
    if (!read_int(lx, &it->a, 0, 65534, what, range, &a_at) || !read_int(lx, &it->b, 0, 65534, what, range, &b_at))
        return false;
    it->a_column = (int)(a_at + 1);
    it->b_column = (int)(b_at + 1);
    if (it->a == it->b) return fail(lx, b_at, "a joint needs two different bodies");
    return true;
}

/* The options a joint line may end with, shared by every kind that has them. Each
 * reads its numbers and checks their ranges; *handled is false for another word. */
enum { JOPT_ANCHOR = 1u, JOPT_AXIS = 2u, JOPT_LIMIT = 4u, JOPT_MOTOR = 8u, JOPT_SPRING = 16u, JOPT_BREAK = 32u,
       JOPT_SWING = 64u, JOPT_TWIST = 128u, JOPT_MAX = 256u, JOPT_MIN = 512u, JOPT_FRICTION = 1024u };

static bool joint_option(lexer *lx, const token *t, unsigned allowed, unsigned *seen, qp_scene_joint_item *it,
                         bool *handled)
{
    *handled = true;
    unsigned long at = 0;
    if ((allowed & JOPT_MOTOR) && tok_is(lx, t, "motor")) {
        const char *what = "expected two numbers after 'motor' (SPEED MAX: rad/s and N m, or m/s and N)";
        if (!once(lx, seen, JOPT_MOTOR, t) || !read_fix(lx, &it->motor_speed, what, &at) ||
            !read_fix(lx, &it->motor_max, what, 0))
            return false;
        if (!fix_in(it->motor_speed, QP_INT(-100), QP_INT(100)) || !fix_in(it->motor_max, 0, QP_INT(30000)))
            return fail_range(lx, at, "motor out of range: -100 <= SPEED <= 100, 0 <= MAX <= 30000");
        it->has_motor = true;
    } else if ((allowed & JOPT_SPRING) && tok_is(lx, t, "spring")) {
        const char *what = "expected two numbers after 'spring' (HZ DAMPING: frequency and damping ratio)";
        if (!once(lx, seen, JOPT_SPRING, t) || !read_fix(lx, &it->spring_hz, what, &at) ||
            !read_fix(lx, &it->spring_damping, what, 0))
            return false;
        if (!fix_in(it->spring_hz, QP_FRAC(1, 100), QP_INT(500)) || !fix_in(it->spring_damping, 0, QP_INT(100)))
            return fail_range(lx, at, "spring out of range: 0.01 <= HZ <= 500, 0 <= DAMPING <= 100");
        it->has_spring = true;
    } else if ((allowed & JOPT_FRICTION) && tok_is(lx, t, "friction")) {
        if (!once(lx, seen, JOPT_FRICTION, t) ||
            !read_fix(lx, &it->friction, "expected a number after 'friction' (the most torque against the turn, N m)", &at))
            return false;
        if (!fix_in(it->friction, 0, QP_INT(30000)))
            return fail_range(lx, at, "friction out of range: 0 <= TORQUE <= 30000 N m");
    } else if (tok_is(lx, t, "break")) {
        if (!once(lx, seen, JOPT_BREAK, t) ||
            !read_fix(lx, &it->break_impulse, "expected a number after 'break' (impulse, N s)", &at))
            return false;
        if (it->break_impulse <= 0 || it->break_impulse > QP_INT(30000))
            return fail_range(lx, at, "break impulse out of range: 0 < IMPULSE <= 30000 N s");
    } else {
        *handled = false;
    }
    return true;
}

static void clear_joint(qp_scene_joint_item *it)
{
    it->anchor = it->anchor_b = it->axis = qp_v3_zero();
    it->has_anchor = it->has_min = it->has_limit = it->has_motor = it->has_spring = false;
    it->min_length = it->max_length = it->limit_lo = it->limit_hi = it->swing = 0;
    it->motor_speed = it->motor_max = it->spring_hz = it->spring_damping = it->break_impulse = it->friction = 0;
}

/* ball, hinge, fixed, slider and cone lines: A B, then their options in any order. */
NOINLINE static bool parse_joint(lexer *lx, qp_scene_item_kind kind, qp_scene_joint_item *it)
{
    static const char *const unknown[] = {
        "unknown option for 'ball': expected anchor or break",
        "unknown option for 'hinge': expected anchor, axis, limit, motor, spring, friction or break",
        "unknown option for 'fixed': expected anchor or break",
        "unknown option for 'slider': expected anchor, axis, limit, motor, spring or break",
        "unknown option for 'cone': expected anchor, axis, swing, twist, friction or break",
    };
    static const char *const whats[] = {
        "expected two body numbers after 'ball' (A B, counted from 0 in file order)",
        "expected two body numbers after 'hinge' (A B, counted from 0 in file order)",
        "expected two body numbers after 'fixed' (A B, counted from 0 in file order)",
        "expected two body numbers after 'slider' (A B, counted from 0 in file order)",
        "expected two body numbers after 'cone' (A B, counted from 0 in file order)",
    };
    int k = kind == QP_SCENE_BALL ? 0 : kind == QP_SCENE_HINGE ? 1 : kind == QP_SCENE_FIXED ? 2
          : kind == QP_SCENE_SLIDER ? 3 : 4;
    unsigned allowed = JOPT_ANCHOR | JOPT_BREAK;
    if (k == 1 || k == 3) allowed |= JOPT_AXIS | JOPT_LIMIT | JOPT_MOTOR | JOPT_SPRING;
    if (k == 4) allowed |= JOPT_AXIS | JOPT_SWING | JOPT_TWIST;
    if (k == 1 || k == 4) allowed |= JOPT_FRICTION;
    clear_joint(it);
    if (!read_joint_bodies(lx, it, whats[k])) return false;
    unsigned seen = 0;
    unsigned long anchor_at = 0, axis_at = 0, limit_at = 0, swing_at = 0;
    fix16_t lo = 0, hi = 0;
    qp_vec3 axis = qp_v3_zero();
    token t;
    bool bad;
    while (next_token(lx, &t, &bad)) {
        bool handled;
        if (tok_is(lx, &t, "anchor")) {
            if (!once(lx, &seen, JOPT_ANCHOR, &t) ||
                !read_vec(lx, &it->anchor, "expected three numbers after 'anchor' (X Y Z, m)", &anchor_at))
                return false;
        } else if ((allowed & JOPT_AXIS) && tok_is(lx, &t, "axis")) {
            if (!once(lx, &seen, JOPT_AXIS, &t) ||
                !read_vec(lx, &axis, "expected three numbers after 'axis' (X Y Z)", &axis_at))
                return false;
        } else if ((allowed & JOPT_LIMIT) && tok_is(lx, &t, "limit")) {
            const char *what = k == 3 ? "expected two numbers after 'limit' (LO HI, m)"
                                      : "expected two numbers after 'limit' (LO HI, degrees)";
            if (!once(lx, &seen, JOPT_LIMIT, &t) || !read_fix(lx, &lo, what, &limit_at) || !read_fix(lx, &hi, what, 0))
                return false;
        } else if ((allowed & JOPT_TWIST) && tok_is(lx, &t, "twist")) {
            const char *what = "expected two numbers after 'twist' (LO HI, degrees)";
            if (!once(lx, &seen, JOPT_TWIST, &t) || !read_fix(lx, &lo, what, &limit_at) || !read_fix(lx, &hi, what, 0))
                return false;
        } else if ((allowed & JOPT_SWING) && tok_is(lx, &t, "swing")) {
            if (!once(lx, &seen, JOPT_SWING, &t) ||
                !read_fix(lx, &it->swing, "expected a number after 'swing' (the cone's half angle, degrees)", &swing_at))
                return false;
        } else {
            if (!joint_option(lx, &t, allowed, &seen, it, &handled)) return false;
            if (!handled) return fail(lx, t.at, unknown[k]);
        }
    }
    if (bad) return false;
    if (k != 2 && !(seen & JOPT_ANCHOR)) return fail(lx, lx->n, "missing 'anchor X Y Z' (joint anchor, world space)");
    it->has_anchor = (seen & JOPT_ANCHOR) != 0;
    if (qp_v3_max_abs(it->anchor) > QP_INT(1000))
        return fail_range(lx, anchor_at, "anchor out of range: each coordinate within +-1000 m (world bounds)");
    if (allowed & JOPT_AXIS) {
        if (!(seen & JOPT_AXIS)) {
            static const char *const missing[] = { "", "missing 'axis X Y Z' (hinge axis, world space)", "",
                                                   "missing 'axis X Y Z' (slider axis, world space)",
                                                   "missing 'axis X Y Z' (cone axis, world space)" };
            return fail(lx, lx->n, missing[k]);
        }
        if (!qp_v3_normalize_q30(axis, &it->axis)) {
            static const char *const zero[] = { "", "hinge axis must not be zero", "", "slider axis must not be zero",
                                                "cone axis must not be zero" };
            return fail_range(lx, axis_at, zero[k]);
        }
    }
    if (k == 4) {
        if (!(seen & JOPT_SWING)) return fail(lx, lx->n, "missing 'swing DEG' (the cone's half angle, degrees)");
        if (!fix_in(it->swing, 0, QP_INT(170)))
            return fail_range(lx, swing_at, "cone swing out of range: 0 <= DEG <= 170 degrees");
        it->swing = qp_deg_to_rad(it->swing);
    }
    if (seen & (JOPT_LIMIT | JOPT_TWIST)) {
        if (k == 3) {
            if (!fix_in(lo, QP_INT(-1000), QP_INT(1000)) || !fix_in(hi, QP_INT(-1000), QP_INT(1000)) || lo > hi)
                return fail_range(lx, limit_at, "slider limit out of range: -1000 <= LO <= HI <= 1000 m");
            it->limit_lo = lo;
            it->limit_hi = hi;
        } else {
            if (!fix_in(lo, QP_INT(-180), QP_INT(180)) || !fix_in(hi, QP_INT(-180), QP_INT(180)) || lo > hi)
                return fail_range(lx, limit_at, k == 4 ? "cone twist out of range: -180 <= LO <= HI <= 180 degrees"
                                                       : "hinge limit out of range: -180 <= LO <= HI <= 180 degrees");
            it->limit_lo = qp_deg_to_rad(lo);
            it->limit_hi = qp_deg_to_rad(hi);
        }
        it->has_limit = true;
    }
    return true;
}

/* ---- compounds -------------------------------------------------------------------- */

/* `part box|sphere|capsule|hull SIZE at X Y Z [rot AX AY AZ DEG]` (no rot for a sphere;
 * a hull's SIZE is `points ...`): shape number k of the compound it, placed in the body frame. */
NOINLINE static bool parse_part(lexer *lx, qp_scene_body_item *it, int k)
{
    qp_shape *shape = &it->def.shapes[k];
    token t;
    bool bad;
    if (!next_token(lx, &t, &bad))
        return bad ? false : fail(lx, t.at, "expected a shape after 'part': box, sphere, capsule or hull");
    qp_shape_type type = tok_is(lx, &t, "box")       ? QP_SHAPE_BOX
                         : tok_is(lx, &t, "sphere")  ? QP_SHAPE_SPHERE
                         : tok_is(lx, &t, "capsule") ? QP_SHAPE_CAPSULE
                         : tok_is(lx, &t, "hull")    ? QP_SHAPE_HULL
                                                     : QP_SHAPE_TYPE_COUNT;
    if (type == QP_SHAPE_TYPE_COUNT)
        return fail(lx, t.at, "expected a shape after 'part': box, sphere, capsule or hull");
    unsigned long size_at = t.at, at_at = t.at, rot_at = t.at;
    unsigned seen = 0;
    qp_vec3 half = qp_v3_zero(), at = qp_v3_zero(), axis = qp_v3_zero();
    fix16_t radius = 0, half_height = 0, deg = 0;
    while (next_token(lx, &t, &bad)) {
        if (type == QP_SHAPE_BOX && tok_is(lx, &t, "half")) {
            if (!once(lx, &seen, OPT_HALF, &t) ||
                !read_vec(lx, &half, "expected three numbers after 'half' (half extents HX HY HZ, m)", &size_at))
                return false;
        } else if (type == QP_SHAPE_HULL && tok_is(lx, &t, "points")) {
            if (!once(lx, &seen, OPT_POINTS, &t) || !read_hull_points(lx, &t, it)) return false;
            it->hull_shape = k;
        } else if ((type == QP_SHAPE_SPHERE || type == QP_SHAPE_CAPSULE) && tok_is(lx, &t, "radius")) {
            if (!once(lx, &seen, OPT_RADIUS, &t) || !read_fix(lx, &radius, "expected a number after 'radius' (m)", &size_at))
                return false;
        } else if (type == QP_SHAPE_CAPSULE && tok_is(lx, &t, "half_height")) {
            unsigned long hat;
            if (!once(lx, &seen, OPT_HALF_HEIGHT, &t) ||
                !read_fix(lx, &half_height, "expected a number after 'half_height' (m)", &hat))
                return false;
            if (!(seen & OPT_RADIUS)) size_at = hat;
        } else if (tok_is(lx, &t, "at")) {
            if (!once(lx, &seen, OPT_AT, &t) ||
                !read_vec(lx, &at, "expected three numbers after 'at' (X Y Z, body frame, m)", &at_at))
                return false;
        } else if (type != QP_SHAPE_SPHERE && tok_is(lx, &t, "rot")) {
            rot_at = t.at;
            if (!once(lx, &seen, QP_SCENE_GIVEN_ROT, &t) ||
                !read_vec(lx, &axis, "expected four numbers after 'rot' (axis AX AY AZ, angle in degrees)", 0) ||
                !read_fix(lx, &deg, "expected four numbers after 'rot' (axis AX AY AZ, angle in degrees)", 0))
                return false;
        } else {
            return fail(lx, t.at, type == QP_SHAPE_BOX      ? "unknown option for 'part box': expected half, at or rot"
                                  : type == QP_SHAPE_SPHERE ? "unknown option for 'part sphere': expected radius or at"
                                  : type == QP_SHAPE_HULL   ? "unknown option for 'part hull': expected points, at or rot"
                                                            : "unknown option for 'part capsule': expected radius, "
                                                              "half_height, at or rot");
        }
    }
    if (bad) return false;
    unsigned long end = lx->n;
    if (type == QP_SHAPE_BOX && !(seen & OPT_HALF)) return fail(lx, end, "missing 'half HX HY HZ' (box half extents)");
    if ((type == QP_SHAPE_SPHERE || type == QP_SHAPE_CAPSULE) && !(seen & OPT_RADIUS))
        return fail(lx, end, "missing 'radius R'");
    if (type == QP_SHAPE_HULL && !(seen & OPT_POINTS)) return fail(lx, end, "missing 'points X Y Z ...' (4-64 hull points)");
    if (type == QP_SHAPE_CAPSULE && !(seen & OPT_HALF_HEIGHT)) return fail(lx, end, "missing 'half_height H'");
    if (!(seen & OPT_AT)) return fail(lx, end, "missing 'at X Y Z' (the part's place in the body frame)");
    qp_result r = QP_OK;
    if (type == QP_SHAPE_HULL) hull_shape(shape);
    else r = type == QP_SHAPE_BOX      ? qp_make_box(half, shape)
             : type == QP_SHAPE_SPHERE ? qp_make_sphere(radius, shape)
                                       : qp_make_capsule(radius, half_height, shape);
    if (r != QP_OK) return fail_range(lx, size_at, "shape size out of range: 0.01 .. 100 m");
    if (qp_v3_max_abs(at) > QP_SHAPE_MAX_SIZE)
        return fail_range(lx, at_at, "part offset out of range: each coordinate within +-100 m of the body origin");
    shape->offset = at;
    if ((seen & QP_SCENE_GIVEN_ROT) && !qp_quat_from_axis_angle(axis, qp_deg_to_rad(deg), &shape->rotation))
        return fail_range(lx, rot_at, "rotation axis must not be zero");
    return true;
}

/* The next non-empty line of r as a lexer positioned after its first token *t:
 * 1, 0 at the end of the text, -1 on a bad byte (*err set). */
static int read_line(qp_scene_reader *r, lexer *lx, token *t, qp_scene_error *err)
{
    while (r->pos < r->len) {
        const char *s = r->text + r->pos;
        unsigned long rest = r->len - r->pos, n = 0, content;
        while (n < rest && s[n] != '\n') n++;
        r->pos += n < rest ? n + 1 : n;
        r->line++;
        for (content = 0; content < n && s[content] != '#'; content++) {}
        lexer l = { s, content, 0, r->line, err };
        *lx = l;
        bool bad;
        if (next_token(lx, t, &bad)) return 1;
        if (bad) return -1;
    }
    return 0;
}

/* The `compound` line (already in lx) and its part lines up to `end`: one body item. */
NOINLINE static bool parse_compound(qp_scene_reader *r, lexer *lx, unsigned long kw_at, qp_scene_body_item *it,
                                    qp_scene_error *err)
{
    unsigned long mass_at = kw_at;
    int line = lx->line;
    if (!parse_body(lx, QP_SHAPE_TYPE_COUNT, kw_at, it, true, &mass_at)) return false;
    qp_body_def *d = &it->def;
    lexer pl;
    token t;
    for (;;) {
        int got = read_line(r, &pl, &t, err);
        if (got < 0) return false;
        if (got == 0) {
            set_error(err, line, kw_at, "compound without 'end': its part lines must be closed by 'end'",
                      QP_ERR_PARSE);
            return false;
        }
        if (tok_is(&pl, &t, "end")) {
            bool bad;
            unsigned long end_at = t.at;
            if (next_token(&pl, &t, &bad)) return fail(&pl, t.at, "nothing may follow 'end' on its line");
            if (bad) return false;
            if (d->shape_count == 0)
                return fail(&pl, end_at, "a compound needs at least one 'part' line before 'end'");
            break;
        }
        if (tok_is(&pl, &t, "compound"))
            return fail(&pl, t.at, "nested compound: close the open compound with 'end' first");
        if (!tok_is(&pl, &t, "part"))
            return fail(&pl, t.at, "expected 'part' or 'end' inside a compound");
        if (d->shape_count == QP_CFG_MAX_BODY_SHAPES) {   /* this build's capacity: QP_ERR_FULL */
            set_error(err, pl.line, t.at, "too many parts in one compound for this build (QP_CFG_MAX_BODY_SHAPES, "
                      "8 by default)", QP_ERR_FULL);
            return false;
        }
        if (!parse_part(&pl, it, d->shape_count)) return false;
        d->shape_count++;
    }
    if (d->type == QP_BODY_DYNAMIC && !mass_ok(it)) {
        set_error(err, line, mass_at, mass_msg, QP_ERR_RANGE);
        return false;
    }
    return true;
}

/* distance A B anchor X Y Z anchor X Y Z max L [min L]: the first anchor on A, the second on B. */
NOINLINE static bool parse_distance(lexer *lx, qp_scene_joint_item *it)
{
    const char *what = "expected two body numbers after 'distance' (A B, counted from 0 in file order)";
    clear_joint(it);
    if (!read_joint_bodies(lx, it, what)) return false;
    unsigned seen = 0;
    int anchors = 0;
    unsigned long anchor_at[2] = { 0, 0 }, max_at = 0, min_at = 0;
    token t;
    bool bad;
    while (next_token(lx, &t, &bad)) {
        if (tok_is(lx, &t, "anchor")) {
            if (anchors == 2) return fail(lx, t.at, "option given twice on one line");
            if (!read_vec(lx, anchors == 0 ? &it->anchor : &it->anchor_b,
                          "expected three numbers after 'anchor' (X Y Z, m)", &anchor_at[anchors]))
                return false;
            anchors++;
        } else if (tok_is(lx, &t, "max")) {
            if (!once(lx, &seen, 1u, &t) ||
                !read_fix(lx, &it->max_length, "expected a number after 'max' (length, m)", &max_at))
                return false;
        } else if (tok_is(lx, &t, "min")) {
            if (!once(lx, &seen, 2u, &t) ||
                !read_fix(lx, &it->min_length, "expected a number after 'min' (length, m)", &min_at))
                return false;
        } else {
            bool handled;
            if (!joint_option(lx, &t, JOPT_SPRING | JOPT_BREAK, &seen, it, &handled)) return false;
            if (!handled) return fail(lx, t.at, "unknown option for 'distance': expected anchor, max, min, spring or break");
        }
    }
    if (bad) return false;
    if (anchors < 2)
        return fail(lx, lx->n, "missing 'anchor X Y Z anchor X Y Z' (a point on A, then one on B, world space)");
    for (int k = 0; k < 2; k++)
        if (qp_v3_max_abs(k == 0 ? it->anchor : it->anchor_b) > QP_INT(1000))
            return fail_range(lx, anchor_at[k], "anchor out of range: each coordinate within +-1000 m (world bounds)");
    if (!(seen & 1u)) return fail(lx, lx->n, "missing 'max L' (the longest distance, m)");
    if (!fix_in(it->max_length, 0, QP_INT(1000)))
        return fail_range(lx, max_at, "max length out of range: 0 .. 1000 m");
    if ((seen & 2u) && !fix_in(it->min_length, 0, it->max_length))
        return fail_range(lx, min_at, "min length out of range: 0 <= min <= max");
    it->has_min = (seen & 2u) != 0;
    return true;
}

/* ---- the reader ----------------------------------------------------------------- */

qp_scene_reader qp_scene_reader_init(const char *text, unsigned long len)
{
    qp_scene_reader r;
    r.text = text;
    r.len = text ? len : 0;
    r.pos = 0;
    r.line = 0;
    return r;
}


/* ---- level geometry lines ------------------------------------------------------------ */

/* `mesh file PATH [pos X Y Z] [rot AX AY AZ DEG] [friction F] [restitution E]` and
 * `heightfield rows R cols C spacing S pos X Y Z heights H ... [friction F] [restitution E]`:
 * a static body; the geometry (file, heights) is made at load. */
NOINLINE static bool parse_level(lexer *lx, qp_scene_item_kind kind, qp_scene_level_item *it)
{
    qp_body_def *d = &it->def;
    default_body(d);
    d->type = QP_BODY_STATIC;
    d->shape_count = 0;
    it->path = 0;
    it->path_len = it->path_at = it->heights_len = 0;
    it->heights = 0;
    it->rows = it->cols = 0;
    it->spacing = 0;
    const bool mesh = kind == QP_SCENE_MESH;
    unsigned seen = 0;
    enum { L_FILE = 1u << 24, L_ROWS = 1u << 25, L_COLS = 1u << 26, L_SPACING = 1u << 27, L_HEIGHTS = 1u << 28 };
    qp_vec3 axis = qp_v3_zero();
    fix16_t deg = 0;
    unsigned long pos_at = 0, rot_at = 0, fr_at = 0, re_at = 0, sp_at = 0, h_at = 0;
    token t;
    bool bad;
    while (next_token(lx, &t, &bad)) {
        if (mesh && tok_is(lx, &t, "file")) {
            if (!once(lx, &seen, L_FILE, &t)) return false;
            token f;
            if (!next_token(lx, &f, &bad)) return bad ? false : fail(lx, lx->n, "expected a path after 'file' (an OBJ file)");
            it->path = lx->s + f.at;
            it->path_len = f.len;
            it->path_at = f.at;
        } else if (!mesh && tok_is(lx, &t, "rows")) {
            if (!once(lx, &seen, L_ROWS, &t) ||
                !read_int(lx, &it->rows, 2, QP_HEIGHTFIELD_MAX_SIDE, "expected a whole number after 'rows'",
                          "rows out of range: 2 .. 4096", 0))
                return false;
        } else if (!mesh && tok_is(lx, &t, "cols")) {
            if (!once(lx, &seen, L_COLS, &t) ||
                !read_int(lx, &it->cols, 2, QP_HEIGHTFIELD_MAX_SIDE, "expected a whole number after 'cols'",
                          "cols out of range: 2 .. 4096", 0))
                return false;
        } else if (!mesh && tok_is(lx, &t, "spacing")) {
            if (!once(lx, &seen, L_SPACING, &t) || !read_fix(lx, &it->spacing, "expected a number after 'spacing' (m)", &sp_at))
                return false;
        } else if (!mesh && tok_is(lx, &t, "heights")) {
            if (!once(lx, &seen, L_HEIGHTS, &t)) return false;
            if (!(seen & L_ROWS) || !(seen & L_COLS)) return fail(lx, t.at, "'rows R cols C' come before 'heights'");
            long want = (long)it->rows * it->cols, got = 0;
            it->heights = lx->s + lx->p;
            h_at = t.at;
            for (;;) {
                unsigned long before = lx->p;
                token h;
                if (!next_token(lx, &h, &bad)) {
                    if (bad) return false;
                    break;
                }
                if (tok_is(lx, &h, "friction") || tok_is(lx, &h, "restitution")) {
                    lx->p = before;
                    break;
                }
                fix16_t v;
                const char *msg = 0;
                qp_result r = parse_fix(lx->s + h.at, h.len, &v, &msg);
                if (r == QP_ERR_RANGE) return fail_range(lx, h.at, msg);
                if (r != QP_OK) return fail(lx, h.at, "expected a height (a number, m)");
                if (v > QP_LEVEL_MAX_COORD || v < -QP_LEVEL_MAX_COORD)
                    return fail_range(lx, h.at, "height out of range: within +-2048 m");
                if (++got > want) return fail(lx, h.at, "more heights than rows x cols");
            }
            it->heights_len = (unsigned long)(lx->s + lx->p - it->heights);
            if (got < want) return fail(lx, lx->p, "fewer heights than rows x cols");
        } else if (tok_is(lx, &t, "pos")) {
            if (!once(lx, &seen, OPT_POS, &t) ||
                !read_vec(lx, &d->position, "expected three numbers after 'pos' (X Y Z, m)", &pos_at))
                return false;
        } else if (mesh && tok_is(lx, &t, "rot")) {
            rot_at = t.at;
            if (!once(lx, &seen, QP_SCENE_GIVEN_ROT, &t) ||
                !read_vec(lx, &axis, "expected four numbers after 'rot' (axis AX AY AZ, angle in degrees)", 0) ||
                !read_fix(lx, &deg, "expected four numbers after 'rot' (axis AX AY AZ, angle in degrees)", 0))
                return false;
        } else if (tok_is(lx, &t, "friction")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_FRICTION, &t) ||
                !read_fix(lx, &d->friction, "expected a number after 'friction'", &fr_at))
                return false;
        } else if (tok_is(lx, &t, "restitution")) {
            if (!once(lx, &seen, QP_SCENE_GIVEN_RESTITUTION, &t) ||
                !read_fix(lx, &d->restitution, "expected a number after 'restitution'", &re_at))
                return false;
        } else {
            return fail(lx, t.at, mesh ? "unknown option for 'mesh': expected file, pos, rot, friction or restitution"
                                       : "unknown option for 'heightfield': expected rows, cols, spacing, pos, "
                                         "heights, friction or restitution");
        }
    }
    if (bad) return false;
    unsigned long end = lx->n;
    if (mesh && !(seen & L_FILE)) return fail(lx, end, "missing 'file PATH' (a Wavefront OBJ file)");
    if (!mesh) {
        if (!(seen & L_ROWS)) return fail(lx, end, "missing 'rows R'");
        if (!(seen & L_COLS)) return fail(lx, end, "missing 'cols C'");
        if (!(seen & L_SPACING)) return fail(lx, end, "missing 'spacing S' (m)");
        if (!(seen & OPT_POS)) return fail(lx, end, "missing 'pos X Y Z' (cell (0, 0), m)");
        if (!(seen & L_HEIGHTS)) return fail(lx, end, "missing 'heights H H ...' (rows x cols numbers)");
        if (!fix_in(it->spacing, QP_HEIGHTFIELD_MIN_SPACING, QP_HEIGHTFIELD_MAX_SPACING))
            return fail_range(lx, sp_at, "spacing out of range: 0.05 .. 100 m");
        if ((int64_t)(it->rows - 1) * it->spacing > QP_LEVEL_MAX_COORD ||
            (int64_t)(it->cols - 1) * it->spacing > QP_LEVEL_MAX_COORD)
            return fail_range(lx, sp_at, "heightfield too large: (rows - 1) and (cols - 1) x spacing within 2048 m");
    }
    (void)h_at;
    if ((seen & QP_SCENE_GIVEN_ROT) && !qp_quat_from_axis_angle(axis, qp_deg_to_rad(deg), &d->rotation))
        return fail_range(lx, rot_at, "rotation axis must not be zero");
    if (qp_v3_max_abs(d->position) > QP_INT(1000))
        return fail_range(lx, pos_at, "position out of range: each coordinate within +-1000 m (world bounds)");
    if (!fix_in(d->friction, 0, QP_INT(10))) return fail_range(lx, fr_at, "friction out of range: 0 .. 10");
    if (!fix_in(d->restitution, 0, QP_ONE)) return fail_range(lx, re_at, "restitution out of range: 0 .. 1");
    return true;
}

int qp_scene_next(qp_scene_reader *r, qp_scene_item *item, qp_scene_error *err)
{
    lexer lx;
    token t;
    int got = read_line(r, &lx, &t, err);   /* blank and comment-only lines skipped */
    if (got <= 0) return got;
    item->line = r->line;
    item->at = t.at;
    bool ok;
    if (tok_is(&lx, &t, "world")) {
        item->kind = QP_SCENE_WORLD;
        ok = parse_world(&lx, &item->u.world);
    } else if (tok_is(&lx, &t, "plane") || tok_is(&lx, &t, "box") || tok_is(&lx, &t, "sphere") ||
               tok_is(&lx, &t, "capsule") || tok_is(&lx, &t, "hull")) {
        qp_shape_type type = tok_is(&lx, &t, "plane")     ? QP_SHAPE_PLANE
                             : tok_is(&lx, &t, "box")     ? QP_SHAPE_BOX
                             : tok_is(&lx, &t, "sphere")  ? QP_SHAPE_SPHERE
                             : tok_is(&lx, &t, "capsule") ? QP_SHAPE_CAPSULE
                                                          : QP_SHAPE_HULL;
        item->kind = QP_SCENE_BODY;
        ok = parse_body(&lx, type, t.at, &item->u.body, false, 0);
    } else if (tok_is(&lx, &t, "ball") || tok_is(&lx, &t, "hinge") || tok_is(&lx, &t, "fixed") ||
               tok_is(&lx, &t, "slider") || tok_is(&lx, &t, "cone")) {
        item->kind = tok_is(&lx, &t, "ball")    ? QP_SCENE_BALL
                     : tok_is(&lx, &t, "hinge") ? QP_SCENE_HINGE
                     : tok_is(&lx, &t, "fixed") ? QP_SCENE_FIXED
                     : tok_is(&lx, &t, "slider") ? QP_SCENE_SLIDER
                                                 : QP_SCENE_CONE;
        ok = parse_joint(&lx, item->kind, &item->u.joint);
    } else if (tok_is(&lx, &t, "compound")) {
        item->kind = QP_SCENE_BODY;
        ok = parse_compound(r, &lx, t.at, &item->u.body, err);
    } else if (tok_is(&lx, &t, "part") || tok_is(&lx, &t, "end")) {
        ok = fail(&lx, t.at, tok_is(&lx, &t, "part") ? "'part' outside a compound (parts follow 'compound pos X Y Z')"
                                                      : "'end' without an open compound");
    } else if (tok_is(&lx, &t, "distance")) {
        item->kind = QP_SCENE_DISTANCE;
        ok = parse_distance(&lx, &item->u.joint);
    } else if (tok_is(&lx, &t, "mesh") || tok_is(&lx, &t, "heightfield")) {
        item->kind = tok_is(&lx, &t, "mesh") ? QP_SCENE_MESH : QP_SCENE_HEIGHTFIELD;
        ok = parse_level(&lx, item->kind, &item->u.level);
    } else {
        ok = fail(&lx, t.at, "unknown keyword: expected world, plane, box, sphere, capsule, hull, compound, mesh, "
                             "heightfield, ball, hinge, distance, fixed, slider or cone");
    }
    if (!ok) {
        r->pos = r->len; /* stop */
        return -1;
    }
    return 1;
}

/* ---- whole scenes ------------------------------------------------------------------ */

/* Body number n's type and centre (its position: one shape, centred), by reading the text again. */
NOINLINE static bool body_number(const char *text, unsigned long len, int n, bool *dynamic, qp_vec3 *pos)
{
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    int k = 0;
    while (qp_scene_next(&rd, &item, 0) > 0) {
        if (item.kind == QP_SCENE_MESH || item.kind == QP_SCENE_HEIGHTFIELD) {
            if (k++ == n) {
                *dynamic = false;
                *pos = item.u.level.def.position;
                return true;
            }
            continue;
        }
        if (item.kind != QP_SCENE_BODY) continue;
        if (k++ == n) {
            *dynamic = item.u.body.def.type == QP_BODY_DYNAMIC;
            *pos = item.u.body.def.position;
            return true;
        }
    }
    return false;
}

/* A weld without an anchor holds at the midpoint of its bodies' positions at load. */
static qp_vec3 weld_point(qp_vec3 pa, qp_vec3 pb)
{
    return qp_v3((fix16_t)(((int64_t)pa.x + pb.x) / 2), (fix16_t)(((int64_t)pa.y + pb.y) / 2),
                 (fix16_t)(((int64_t)pa.z + pb.z) / 2));
}

/* Is an item a joint line (its u.joint the one filled)? */
static bool is_joint(qp_scene_item_kind kind)
{
    switch (kind) {
    case QP_SCENE_BALL:
    case QP_SCENE_HINGE:
    case QP_SCENE_DISTANCE:
    case QP_SCENE_FIXED:
    case QP_SCENE_SLIDER:
    case QP_SCENE_CONE: return true;
    default: return false;
    }
}

/* What a joint line cannot show alone: its bodies exist, one of them moves, and the
 * anchors lie within 100 m of them (joint.h). */
NOINLINE static qp_result check_joints(const char *text, unsigned long len, int bodies, qp_scene_error *err)
{
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    while (qp_scene_next(&rd, &item, 0) > 0) {
        if (!is_joint(item.kind)) continue;
        const qp_scene_joint_item *j = &item.u.joint;
        int bad_column = j->a >= bodies ? j->a_column : j->b >= bodies ? j->b_column : 0;
        if (bad_column) {
            set_error(err, item.line, (unsigned long)bad_column - 1u,
                      "the joint names a body that does not exist (bodies are numbered from 0 in file order)",
                      QP_ERR_RANGE);
            return QP_ERR_RANGE;
        }
        bool da = false, db = false;
        qp_vec3 pa = qp_v3_zero(), pb = qp_v3_zero();
        body_number(text, len, j->a, &da, &pa);
        body_number(text, len, j->b, &db, &pb);
        if (!da && !db) {
            set_error(err, item.line, item.at, "a joint needs at least one dynamic body (both are static)",
                      QP_ERR_PARAM);
            return QP_ERR_PARAM;
        }
        qp_vec3 on_a = item.kind == QP_SCENE_FIXED && !j->has_anchor ? weld_point(pa, pb) : j->anchor;
        qp_vec3 on_b = item.kind == QP_SCENE_DISTANCE ? j->anchor_b : on_a;
        if (item.kind == QP_SCENE_FIXED && !j->has_anchor && qp_v3_max_abs(qp_v3_sub(pb, pa)) > QP_INT(190)) {
            set_error(err, item.line, item.at,
                      "welded bodies too far apart: at most 190 m (the weld's point is midway, within 100 m of each)",
                      QP_ERR_RANGE);
            return QP_ERR_RANGE;
        }
        if (qp_v3_max_abs(qp_v3_sub(on_a, pa)) > QP_INT(100) || qp_v3_max_abs(qp_v3_sub(on_b, pb)) > QP_INT(100)) {
            set_error(err, item.line, item.at, "joint anchor too far from its body: at most 100 m from its centre",
                      QP_ERR_RANGE);
            return QP_ERR_RANGE;
        }
    }
    return QP_OK;
}

/* The joint of a scene line, for qp_create_joint (out of line: its caller's frame holds a
 * scene item already). */
NOINLINE static qp_joint_def joint_def_of(const qp_world *w, const qp_scene_item *item)
{
    const qp_scene_joint_item *j = &item->u.joint;
    qp_joint_def d = qp_default_joint_def();
    switch (item->kind) {
    case QP_SCENE_HINGE: d.type = QP_JOINT_HINGE; break;
    case QP_SCENE_DISTANCE: d.type = QP_JOINT_DISTANCE; break;
    case QP_SCENE_FIXED: d.type = QP_JOINT_FIXED; break;
    case QP_SCENE_SLIDER: d.type = QP_JOINT_SLIDER; break;
    case QP_SCENE_CONE: d.type = QP_JOINT_CONE; break;
    default: d.type = QP_JOINT_BALL; break;
    }
    d.a = qp_scene_body(w, j->a);
    d.b = qp_scene_body(w, j->b);
    d.anchor = d.anchor_a = j->anchor;
    if (item->kind == QP_SCENE_FIXED && !j->has_anchor)
        d.anchor = weld_point(qp_body_position(w, d.a), qp_body_position(w, d.b));
    d.anchor_b = j->anchor_b;
    if (d.type == QP_JOINT_HINGE || d.type == QP_JOINT_SLIDER || d.type == QP_JOINT_CONE) d.axis = qp_v3_from_q30(j->axis);
    d.enable_limit = j->has_limit;
    if (d.type == QP_JOINT_SLIDER) {
        d.lower_translation = j->limit_lo;
        d.upper_translation = j->limit_hi;
    } else {
        d.lower_angle = j->limit_lo;
        d.upper_angle = j->limit_hi;
    }
    d.swing_angle = d.type == QP_JOINT_CONE ? j->swing : d.swing_angle;
    d.min_length = j->min_length;
    d.max_length = j->max_length;
    d.enable_motor = j->has_motor;
    d.motor_speed = j->motor_speed;
    d.max_motor_force = j->motor_max;
    d.enable_spring = j->has_spring;
    if (j->has_spring) {
        d.spring_hz = j->spring_hz;
        d.spring_damping = j->spring_damping;
        /* a soft distance with no min: a spring of rest length max */
        if (d.type == QP_JOINT_DISTANCE && !j->has_min) d.min_length = d.max_length;
    }
    d.break_impulse = j->break_impulse;
    d.max_friction_torque = j->friction;
    return d;
}

#if !QP_LAYOUT_KEEPS_DERIVED
/* Low-RAM: the bodies' distinct materials fit the world's palette of QP_CFG_MAX_MATERIALS
 * and its list of the bodies whose centre is off their origin (body.c); refused at the
 * first body past either. A walk of its own, so that its palette is never on the stack
 * with the joints' check. */
NOINLINE static qp_result check_lists(const char *text, unsigned long len, qp_scene_error *err)
{
    qp_body_material pal[QP_CFG_MAX_MATERIALS];
    int count = 0, offsets = 0;
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    while (qp_scene_next(&rd, &item, 0) > 0) {
        if (item.kind != QP_SCENE_BODY && item.kind != QP_SCENE_MESH && item.kind != QP_SCENE_HEIGHTFIELD) continue;
        const qp_body_def *d = item.kind == QP_SCENE_BODY ? &item.u.body.def : &item.u.level.def;
        const qp_body_material m = qp__material_of(d);
        if (qp__material_entry(pal, &count, &m) < 0) {
            set_error(err, item.line, item.at,
                      "too many distinct materials for this build's palette (QP_CFG_MAX_MATERIALS)", QP_ERR_FULL);
            return QP_ERR_FULL;
        }
        /* A hull's centre is known once it is built (create_bodies): a moving body with one counts. */
        const bool hull = item.kind == QP_SCENE_BODY && item.u.body.hull_shape >= 0 && d->type == QP_BODY_DYNAMIC;
        if ((hull || qp__body_def_offset(d)) && ++offsets > QP_CFG_MAX_OFFSET_BODIES) {
            set_error(err, item.line, item.at,
                      "too many bodies with their centre of mass off their origin for this build "
                      "(QP_CFG_MAX_OFFSET_BODIES)",
                      QP_ERR_FULL);
            return QP_ERR_FULL;
        }
    }
    return QP_OK;
}
#endif

/* qp_scene_check against the capacities of w (null: any world's): too many bodies, shapes or
 * joints fail at the first line past them. */
static qp_result check_within(const char *text, unsigned long len, qp_scene_info *info, qp_scene_error *err,
                              const qp_world *w)
{

    qp_scene_error dummy;
    if (!err) err = &dummy;
    set_error(err, 0, 0, "ok", QP_OK);
    err->column = 0;
    if (!text && len > 0) {
        err->message = "no scene text";
        err->result = QP_ERR_PARAM;
        return QP_ERR_PARAM;
    }
    qp_scene_info in;
    in.world = qp_default_world_def();
    in.bodies = in.dynamic_bodies = in.shapes = in.joints = in.hulls = 0;
    int world_lines = 0;
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    int got;
    while ((got = qp_scene_next(&rd, &item, err)) > 0) {
        switch (item.kind) {
        case QP_SCENE_WORLD:
            if (world_lines++ > 0) {
                set_error(err, item.line, item.at, "a scene has at most one 'world' line", QP_ERR_PARSE);
                return QP_ERR_PARSE;
            }
            in.world = item.u.world.def;
            break;
        case QP_SCENE_BODY:
            if (in.bodies >= (w ? qp__cap_bodies(w) : qp__caps_max.bodies) ||
                in.shapes + item.u.body.def.shape_count > (w ? qp__cap_shapes(w) : qp__caps_max.shapes)) {
                set_error(err, item.line, item.at,
                          w ? "too many bodies or shapes for this world's capacities (bodies, shapes)"
                            : "too many bodies or shapes for any world (65532, 65535)",
                          QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            if (item.u.body.hull_shape >= 0 && ++in.hulls > (w ? qp__cap_hulls(w) : qp__caps_max.hulls)) {
                set_error(err, item.line, item.at,
                          w ? "too many hulls for this world's capacities (hulls)" : "too many hulls for any world (65535)",
                          QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            in.bodies++;
            in.shapes += item.u.body.def.shape_count;
            if (item.u.body.def.type == QP_BODY_DYNAMIC) in.dynamic_bodies++;
            break;
        case QP_SCENE_MESH:
        case QP_SCENE_HEIGHTFIELD:
            if (in.bodies >= (w ? qp__cap_bodies(w) : qp__caps_max.bodies) ||
                in.shapes + 1 > (w ? qp__cap_shapes(w) : qp__caps_max.shapes)) {
                set_error(err, item.line, item.at,
                          w ? "too many bodies or shapes for this world's capacities (bodies, shapes)"
                            : "too many bodies or shapes for any world (65532, 65535)",
                          QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            in.bodies++;
            in.shapes++;
            break;
        default:   /* a joint line */
            if (!QP_CFG_JOINT_OPTIONS &&
                (item.u.joint.has_motor || item.u.joint.has_spring || item.u.joint.break_impulse != 0 ||
                 item.u.joint.friction != 0)) {
                set_error(err, item.line, item.at,
                          "joint options (motor, spring, friction, break) are not in this build (QP_CFG_JOINT_OPTIONS 0)",
                          QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            if (in.joints >= (w ? qp__cap_joints(w) : qp__caps_max.joints)) {
                set_error(err, item.line, item.at,
                          w ? "too many joints for this world's capacity (joints)" : "too many joints for any world (65535)",
                          QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            in.joints++;
            break;
        }
    }
    in.lines = rd.line;
    if (got < 0) return err->result;
#if !QP_LAYOUT_KEEPS_DERIVED
    qp_result mr = check_lists(text, len, err);
    if (mr != QP_OK) return mr;
#endif
    if (in.joints > 0) {
        qp_result jr = check_joints(text, len, in.bodies, err);
        if (jr != QP_OK) return jr;
    }
    if (info) *info = in;
    return QP_OK;
}

qp_result qp_scene_check(const char *text, unsigned long len, qp_scene_info *info, qp_scene_error *err)
{
    return check_within(text, len, info, err, NULL);
}

/* The level geometry of a checked text, built into the caller's store before the world is
 * touched: heightfields' heights read into store->heights, meshes from the store's callback. */
NOINLINE static qp_result build_levels(const char *text, unsigned long len, const qp_scene_level_store *store,
                                       qp_scene_error *err)
{
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    unsigned long used = 0;
    int fields = 0, meshes = 0;
    while (qp_scene_next(&rd, &item, err) > 0) {
        if (item.kind != QP_SCENE_MESH && item.kind != QP_SCENE_HEIGHTFIELD) continue;
        const qp_scene_level_item *it = &item.u.level;
        if (!store) {
            set_error(err, item.line, item.at,
                      "mesh and heightfield lines need storage for their geometry: load with qp_scene_load_level",
                      QP_ERR_PARAM);
            return QP_ERR_PARAM;
        }
        if (item.kind == QP_SCENE_HEIGHTFIELD) {
            unsigned long n = (unsigned long)it->rows * (unsigned long)it->cols;
            if (fields >= store->fields_capacity || used + n > store->heights_capacity || !store->heights ||
                !store->fields) {
                set_error(err, item.line, item.at, "no room for this heightfield in the level store", QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            lexer lx = { it->heights, it->heights_len, 0, item.line, err };
            token t;
            bool bad;
            for (unsigned long k = 0; k < n && next_token(&lx, &t, &bad); k++) {
                const char *msg = 0;
                if (parse_fix(lx.s + t.at, t.len, &store->heights[used + k], &msg) != QP_OK) return QP_ERR_PARSE;
            }
            qp_result r = qp_heightfield_init(&store->fields[fields], store->heights + used, (uint32_t)it->rows,
                                              (uint32_t)it->cols, it->spacing);
            if (r != QP_OK) {
                set_error(err, item.line, item.at, "heightfield refused (qp_heightfield_init)", r);
                return r;
            }
            used += n;
            fields++;
        } else {
            if (meshes >= store->meshes_capacity || !store->meshes || !store->mesh) {
                set_error(err, item.line, item.at, "no room for this mesh in the level store", QP_ERR_FULL);
                return QP_ERR_FULL;
            }
            const char *msg = 0;
            const qp_mesh *m = 0;
            qp_result r = store->mesh(store->ctx, it->path, it->path_len, &m, &msg);
            if (r == QP_OK && !m) r = QP_ERR_PARAM;
            if (r != QP_OK) {
                set_error(err, item.line, it->path_at, msg ? msg : "mesh refused", r);
                return r;
            }
            store->meshes[meshes++] = m;
        }
    }
    return QP_OK;
}

/* The bodies of a checked text, in file order; out of qp_scene_load_checked's frame, which
 * holds the check's calls. A refusal here (or in create_joints) is a gap in this file's
 * checks (a bug), reported at its line. */
NOINLINE static qp_result create_bodies(qp_world *w, const char *text, unsigned long len,
                                        const qp_scene_level_store *store, qp_scene_error *err)
{
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    qp_result r = QP_OK;
    int fields = 0, meshes = 0;
    while (qp_scene_next(&rd, &item, err) > 0) {
        if (item.kind == QP_SCENE_MESH || item.kind == QP_SCENE_HEIGHTFIELD) {
            qp_body_def *d = &item.u.level.def;
            r = item.kind == QP_SCENE_MESH ? qp_make_mesh_shape(store->meshes[meshes++], &d->shapes[0])
                                           : qp_make_heightfield_shape(&store->fields[fields++], &d->shapes[0]);
            d->shape_count = 1;
            if (r == QP_OK) qp_create_body(w, d, &r);
        } else if (item.kind == QP_SCENE_BODY) {
#if QP_CFG_MAX_HULLS > 0
            /* A hull is built in the world's scratch, which qp_create_body copies to its pool. */
            const qp_scene_body_item *b = &item.u.body;
            if (b->hull_shape >= 0 && qp_hull_build(b->hull_points, b->hull_count, &w->hull_scratch[0]) == QP_OK)
                item.u.body.def.shapes[b->hull_shape].hull = &w->hull_scratch[0];
#endif
            qp_create_body(w, &item.u.body.def, &r);
#if QP_CFG_MAX_HULLS > 0
            if (b->hull_shape >= 0) memset(&w->hull_scratch[0], 0, sizeof w->hull_scratch[0]);
#endif
        } else {
            continue;
        }
        if (r != QP_OK) {
            set_error(err, item.line, item.at, "internal error: qp_create_body refused a body the scene reader accepted", r);
            return r;
        }
    }
    return QP_OK;
}

/* The joints of a checked text, once every body is made (a joint line may name a body of a
 * later line): in a frame of their own, after create_bodies', not on top of it. */
NOINLINE static qp_result create_joints(qp_world *w, const char *text, unsigned long len, qp_scene_error *err)
{
    qp_scene_reader rd = qp_scene_reader_init(text, len);
    qp_scene_item item;
    qp_result r = QP_OK;
    while (qp_scene_next(&rd, &item, err) > 0) {
        if (!is_joint(item.kind)) continue;
        qp_joint_def jd = joint_def_of(w, &item);
        qp_create_joint(w, &jd, &r);
        if (r != QP_OK) {
            set_error(err, item.line, item.at, "internal error: qp_create_joint refused a joint the scene reader accepted",
                      r);
            return r;
        }
    }
    return QP_OK;
}

/* Start w afresh from def (checked), keeping its capacities; out of qp_scene_load_checked's
 * frame, as create_bodies and create_joints. */
NOINLINE static void restart(qp_world *w, const qp_world_def *def)
{
    qp__world_clear(w);
    qp__world_start(w, def);
}

qp_result qp_scene_load_checked(qp_world *w, const char *text, unsigned long len, qp_scene_info *info,
                                qp_scene_error *err, uint32_t config_signature, unsigned long world_size,
                                const qp_world_caps *caps)
{
    return qp_scene_load_level_checked(w, text, len, info, err, 0, config_signature, world_size, caps);
}

qp_result qp_scene_load_level_checked(qp_world *w, const char *text, unsigned long len, qp_scene_info *info,
                                      qp_scene_error *err, const qp_scene_level_store *store,
                                      uint32_t config_signature, unsigned long world_size, const qp_world_caps *caps)
{
    qp_scene_error dummy;
    if (!err) err = &dummy;
    qp_result r = qp__world_ready(w, config_signature, world_size, caps);
    if (r != QP_OK) {
        set_error(err, 0, 0, r == QP_ERR_CONFIG ? "compiled with other options than the library" : "no world", r);
        err->column = 0;
        return r;
    }
    qp_scene_info in;
    r = check_within(text, len, &in, err, w);
    if (r != QP_OK) return r;
    r = build_levels(text, len, store, err);
    if (r != QP_OK) return r;
    r = qp__check_world_def(&in.world);
    if (r != QP_OK) {
        set_error(err, 0, 0, "the world line's settings were rejected by qp_world_init", r);
        return r;
    }
    /* Valid and within w's capacities: from here on nothing should fail. */
    restart(w, &in.world);
    r = create_bodies(w, text, len, store, err);
    if (r == QP_OK) r = create_joints(w, text, len, err);
    if (r != QP_OK) {
        /* A gap in this file's checks (a bug). Leave an empty world rather
         * than a half-built one. */
        restart(w, &in.world);
        return r;
    }
    set_error(err, 0, 0, "ok", QP_OK);
    err->column = 0;
    if (info) *info = in;
    return QP_OK;
}

qp_body_id qp_scene_body(const qp_world *w, int i)
{
    if (!w || i < 0 || i >= qp__cap_bodies(w)) return qp_null_body();
    return qp_world_body_at(w, i + 1);
}
