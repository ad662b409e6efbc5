/* SPDX-License-Identifier: MIT */
/* bench/bench_target.c - qphys on an emulated Cortex-M: instructions per step.
 *
 *   make BOARD=qemu-mps2-an386 APP=bench            (APP_SRCS_bench from mk/bench.mk)
 *   make BOARD=qemu-mps2-an386 APP=bench run
 *
 * Under QEMU with -icount shift=0 the MPS2 SysTick counts one tick per 40 guest
 * instructions (docs/benchmarks.md), identically on every run, so every figure here
 * is exact and repeatable. They are instructions, not cycles.
 *
 * For stack20, stack50 and pyramid20, with sleep off, then on with the default policy
 * (QP_SLEEP_THREE_POINT, "sleep=on"), then on with QP_SLEEP_ENERGY ("sleep=energy"),
 * TARGET_STEPS steps (default 120; docs/design.md §9 runs 600 on the host) are run through the
 * stage table of qp_world_step (qp__step_stages, src/stages.h) with the tick
 * counter read around collision detection: mean and median instructions per step and
 * the share of collision detection (broad + narrow phase). With sleep on: the bodies
 * asleep after steps 60 and 120 ("asleep_at=60:n,120:n"); the run goes on until every
 * body sleeps (at most 4 x TARGET_STEPS steps), then TARGET_ASLEEP_STEPS fully asleep
 * steps through qp_world_step give the cost of an asleep step, as a fraction of the
 * sleep-off mean.
 * rain512 (512 bodies: fits the default QP_CFG_MAX_BODIES = 600 and the MPS2's 4 MB of
 * RAM) runs with sleep off for TARGET_RAIN_STEPS steps (default 120).
 * Before all that, a short check proves the staged step equals qp_world_step (hash).
 *
 * Output, one key=value line per run (bench/run.sh tabulates them):
 *   m4 scene=.. sleep=.. steps=.. instr_mean=.. instr_median=.. collide_instr=.. ...
 * No float: every figure is an integer; fractions are printed with 4 decimals from integers.
 */
#include <stdbool.h>
#include <stdint.h>

#include "qp_fmt.h"
#include "qp_port.h"
#include "scenes.h"
#include "scratch.h"
#include "stages.h"
#include "bench_count.h"
#include "bytes.h"

#ifndef TARGET_STEPS
#define TARGET_STEPS 120
#endif
#ifndef TARGET_RAIN_STEPS
#define TARGET_RAIN_STEPS 120
#endif
#ifndef TARGET_ASLEEP_STEPS
#define TARGET_ASLEEP_STEPS 60
#endif
#define INSTR_PER_TICK 40u /* MPS2 SysTick at 25 MHz, 1 ns per instruction (-icount shift=0) */

/* The line prefix: the default layout, or the low-RAM one (QP_CFG_LOW_RAM, the
 * micro:bit's), which bench/run.sh builds a second time to compare. */
#if QP_BENCH_COUNT
#define ENGINE "m4cnt"   /* the counting variant: rows per pass, not instructions */
#elif QP_CFG_LOW_RAM
#define ENGINE "m4lr"
#else
#define ENGINE "m4"
#endif

#define MAX_STAGES 16

#define MAX_RUN_STEPS (TARGET_STEPS > TARGET_RAIN_STEPS ? TARGET_STEPS : TARGET_RAIN_STEPS)

static qp_world world;
static uint32_t step_ticks[MAX_RUN_STEPS];
static uint64_t awake_mean_instr[QPB_SCENE_COUNT]; /* sleep-off mean per scene */
static uint64_t stage_ticks[MAX_STAGES];           /* per stage, summed over a run */

/* ---- output --------------------------------------------------------------------- */

static void put(const char *s) { qp_port_puts(s); }

static void put_u64(uint64_t v)
{
    char buf[24];
    int n = 0;
    do {
        buf[n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v && n < 23);
    char out[24];
    for (int i = 0; i < n; i++) out[i] = buf[n - 1 - i];
    qp_port_write(out, (unsigned)n);
}

static void put_i32(int32_t v)
{
    char buf[QP_FMT_BUF];
    qp_port_write(buf, qp_fmt_i32(buf, v));
}

static void put_kv(const char *key, uint64_t v)
{
    put(" ");
    put(key);
    put("=");
    put_u64(v);
}

/* num / den with 4 decimals, rounded (den > 0). */
static void put_ratio(uint64_t num, uint64_t den)
{
    uint64_t q = (num * 10000u + den / 2u) / den;
    put_u64(q / 10000u);
    put(".");
    char d[4];
    uint64_t f = q % 10000u;
    for (int i = 3; i >= 0; i--) {
        d[i] = (char)('0' + (int)(f % 10u));
        f /= 10u;
    }
    qp_port_write(d, 4);
}

/* Q16.16 metres as centimetres with 2 decimals (rounded, sign kept). */
static void put_cm(fix16_t m)
{
    int64_t v = (int64_t)m * 10000; /* cm * 100 in Q16.16 */
    bool neg = v < 0;
    if (neg) v = -v;
    uint64_t hund = (uint64_t)((v + 32768) >> 16);
    if (neg && hund) put("-");
    put_u64(hund / 100u);
    put(".");
    char d[2] = { (char)('0' + (int)(hund / 10u % 10u)), (char)('0' + (int)(hund % 10u)) };
    qp_port_write(d, 2);
}

/* ---- the step, stage by stage -------------------------------------------------------- */

/* qp_world_step run through its stage table (src/world.c) with the tick counter read
 * between stages; returns the step's ticks, adds each stage's to stage_ticks and the
 * collision detection ticks (the broad and narrow phase stages) to *collide. */
static uint32_t staged_step(qp_world *w, uint64_t *collide)
{
    uint64_t t0 = qp_port_ticks64(), c0 = t0, s0 = t0;
    w->stats.step++;
    for (int i = 0; i < qp__step_stage_count; i++) {
        void (*run)(qp_world *) = qp__step_stages[i].run;
        if (run == qp__broad_phase) c0 = s0;
        run(w);
        uint64_t s1 = qp_port_ticks64();
        if (i < MAX_STAGES) stage_ticks[i] += s1 - s0;
        if (run == qp__narrow_phase) *collide += s1 - c0;
        s0 = s1;
    }
    return (uint32_t)(s0 - t0);
}

/* Per-step means of the work counters (src/bench_count.h), times 10. */
static void put_counts(int steps)
{
#if QP_BENCH_COUNT
    const struct { const char *key; uint32_t v; } c[] = {
        { "collide_sweeps", qp__counts.collide_sweeps }, { "collide_rows", qp__counts.collide_rows },
        { "warm_rows", qp__counts.warm_rows }, { "contact_sweeps", qp__counts.contact_sweeps },
        { "contact_normal", qp__counts.contact_normal }, { "contact_friction", qp__counts.contact_friction },
        { "contact_skipped", qp__counts.contact_skipped },
        { "shock_levels", qp__counts.shock_levels }, { "shock_sweeps", qp__counts.shock_sweeps },
        { "shock_normal", qp__counts.shock_normal }, { "shock_friction", qp__counts.shock_friction },
        { "pen_sweeps", qp__counts.pen_sweeps }, { "pen_normal", qp__counts.pen_normal },
        { "pen_anchor", qp__counts.pen_anchor },
        { "narrow_calls", qp__counts.narrow_calls }, { "narrow_touching", qp__counts.narrow_touching },
        { "narrow_kept", qp__counts.narrow_kept },
        { "isqrt", qp__counts.isqrt },
    };
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        put(" ");
        put(c[i].key);
        put("_x10=");
        put_u64(((uint64_t)c[i].v * 10u + (uint64_t)steps / 2u) / (uint64_t)steps);
    }
#else
    (void)steps;
#endif
}

/* ---- runs ---------------------------------------------------------------------------- */

static uint32_t median_ticks(int n)
{
    /* insertion sort of a copy (n <= MAX_RUN_STEPS) */
    static uint32_t tmp[MAX_RUN_STEPS];
    for (int i = 0; i < n; i++) {
        uint32_t v = step_ticks[i];
        int j = i;
        while (j > 0 && tmp[j - 1] > v) {
            tmp[j] = tmp[j - 1];
            j--;
        }
        tmp[j] = v;
    }
    return (n % 2) ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2] + 1u) / 2u;
}

static bool staged_matches(void)
{
    const int n = 30;
    if (qpb_scene_build(&world, QPB_STACK20, true) != QP_OK) return false;
    for (int i = 0; i < n; i++) qp_world_step(&world);
    uint32_t h = qp_world_hash(&world);
    if (qpb_scene_build(&world, QPB_STACK20, true) != QP_OK) return false;
    uint64_t c = 0;
    for (int i = 0; i < n; i++) (void)staged_step(&world, &c);
    return qp_world_hash(&world) == h;
}

/* sleep: 0 off, 1 on (three-point, the default), 2 on (energy). */
static void run(qpb_scene s, int sleep, int steps)
{
    put(ENGINE " scene=");
    put(qpb_scene_name(s));
    put(sleep == 0 ? " sleep=off" : sleep == 1 ? " sleep=on" : " sleep=energy");
    qp_world_def def = sleep == 0 ? qpb_world_def(false)
                                  : qpb_world_def_policy(sleep == 2 ? QP_SLEEP_ENERGY : QP_SLEEP_THREE_POINT);
    int asleep60 = -1, asleep120 = -1;
    if (qpb_scene_build_def(&world, s, &def) != QP_OK) {
        put(" error=build-failed\n");
        return;
    }
    uint64_t total = 0, collide = 0, pairs = 0, contacts = 0, points = 0;
    for (int i = 0; i < MAX_STAGES; i++) stage_ticks[i] = 0;
#if QP_BENCH_COUNT
    qp__bench_counts zero = { 0 };
    qp__counts = zero;
#endif
    for (int i = 0; i < steps; i++) {
        step_ticks[i] = staged_step(&world, &collide);
        total += step_ticks[i];
        qp_world_stats st = qp_world_get_stats(&world);
        pairs += (uint64_t)st.pairs;
        contacts += (uint64_t)st.contacts;
        points += (uint64_t)st.points;
        if (st.step == 60u) asleep60 = st.asleep;
        if (st.step == 120u) asleep120 = st.asleep;
    }
    qpb_verdict v = qpb_scene_check(&world, s);
    qp_world_stats st = qp_world_get_stats(&world);
    uint64_t mean_instr = (total * INSTR_PER_TICK + (uint64_t)steps / 2u) / (uint64_t)steps;
    put_kv("steps", (uint64_t)steps);
    put_kv("instr_mean", mean_instr);
    put_kv("instr_median", (uint64_t)median_ticks(steps) * INSTR_PER_TICK);
    put_kv("collide_instr", (collide * INSTR_PER_TICK + (uint64_t)steps / 2u) / (uint64_t)steps);
    put(" collide_share=");
    put_ratio(collide, total ? total : 1u);
    put_kv("pairs_x10", (pairs * 10u + (uint64_t)steps / 2u) / (uint64_t)steps);
    put_kv("contacts_x10", (contacts * 10u + (uint64_t)steps / 2u) / (uint64_t)steps);
    put_kv("points_x10", (points * 10u + (uint64_t)steps / 2u) / (uint64_t)steps);
    put(v.applies ? (v.stands ? " stands=yes" : " stands=no") : " stands=-");
    put(" drift_cm=");
    put_cm(v.drift);
    put(" sag_cm=");
    put_cm(v.sag);
    put(" maxmove_cm=");
    put_cm(v.max_move);
    put(" awake_end=");
    put_i32(st.awake);

    if (sleep == 0) {
        awake_mean_instr[s] = mean_instr;
        /* Instructions per step of each stage, named as in qp__step_stages. */
        for (int i = 0; i < qp__step_stage_count && i < MAX_STAGES; i++) {
            put(" stage_");
            const char *n = qp__step_stages[i].name;
            for (; *n; n++) qp_port_write(*n == ' ' ? "_" : n, 1);
            put("=");
            put_u64((stage_ticks[i] * INSTR_PER_TICK + (uint64_t)steps / 2u) / (uint64_t)steps);
        }
        put_counts(steps);
        put(" first_asleep=- asleep_instr=- asleep_frac=-\n");
        return;
    }
    int limit = 4 * steps;
    while ((st.first_all_asleep_step < 0 || st.step < 120u) && (int)st.step < limit) {
        qp_world_step(&world);
        st = qp_world_get_stats(&world);
        if (st.step == 60u) asleep60 = st.asleep;
        if (st.step == 120u) asleep120 = st.asleep;
    }
    put(" asleep_at=60:");
    if (asleep60 >= 0) put_i32(asleep60); else put("-");
    put(",120:");
    if (asleep120 >= 0) put_i32(asleep120); else put("-");
    if (st.first_all_asleep_step < 0) {
        put(" first_asleep=never<=");
        put_i32(limit);
        put(" asleep_instr=- asleep_frac=-\n");
        return;
    }
    put(" first_asleep=");
    put_i32(st.first_all_asleep_step);
    bool woke = false;
    uint64_t t0 = qp_port_ticks64();
    for (int i = 0; i < TARGET_ASLEEP_STEPS; i++) {
        qp_world_step(&world);
        (void)qp_port_ticks64(); /* keep the 24-bit counter widened */
        if (qp_world_get_stats(&world).awake) woke = true;
    }
    uint64_t asleep_ticks = qp_port_ticks64() - t0;
    uint64_t asleep_instr = (asleep_ticks * INSTR_PER_TICK + TARGET_ASLEEP_STEPS / 2) / TARGET_ASLEEP_STEPS;
    put_kv("asleep_instr", asleep_instr);
    if (woke) put("(woke)");
    put(" asleep_frac=");
    if (awake_mean_instr[s])
        put_ratio(asleep_instr, awake_mean_instr[s]);
    else
        put("-");
    put("\n");
}

int main(void)
{
    qp_port_init();
    put(ENGINE " board=qemu-mps2-an386 unit=instructions instr_per_tick=40 world_bytes=");
    put_u64((uint64_t)sizeof(qp_world));
    put(" max_bodies=");
    put_i32(qp_world_capacity());
    put(staged_matches() ? " staged=ok" : " staged=DIFFERS");
    /* Memory: what one more body, contact, shape or pair costs in this layout (bytes.h). */
    put_kv("bytes_body", QPB_BYTES_BODY);
    put_kv("bytes_contact", QPB_BYTES_CONTACT);
    put_kv("bytes_shape", QPB_BYTES_SHAPE);
    put_kv("bytes_pair", QPB_BYTES_PAIR);
    put_kv("bytes_rows", sizeof(qp_contact_rows));
    put_kv("state_body", QPB_STATE_BODY);
    put_kv("state_contact", QPB_STATE_CONTACT);
    put_kv("state_shape", QPB_STATE_SHAPE);
    put("\n");
#if QP_BENCH_COUNT
    /* Counting variant: only the awake runs the instruction counts are divided by. */
    static const qpb_scene counted[] = { QPB_STACK20, QPB_STACK50, QPB_PYRAMID20 };
    for (unsigned i = 0; i < sizeof counted / sizeof counted[0]; i++) run(counted[i], 0, TARGET_STEPS);
    if (qp_world_capacity() >= 1 + qpb_scene_bodies(QPB_RAIN512)) run(QPB_RAIN512, 0, TARGET_RAIN_STEPS);
    put(ENGINE " status=done\n");
    return 0;
#endif
    static const qpb_scene scenes[] = { QPB_STACK20, QPB_STACK50, QPB_PYRAMID20 };
    for (unsigned i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        run(scenes[i], 0, TARGET_STEPS);
        if (QP_CFG_LOW_RAM) continue;   /* the layouts are compared awake */
        run(scenes[i], 1, TARGET_STEPS);
        run(scenes[i], 2, TARGET_STEPS);
    }
    /* rain512 in the default layout only (in the low-RAM one it is the same
     * comparison, ten times slower to run). */
    if (!QP_CFG_LOW_RAM && qp_world_capacity() >= 1 + qpb_scene_bodies(QPB_RAIN512))
        run(QPB_RAIN512, 0, TARGET_RAIN_STEPS);
    else if (!QP_CFG_LOW_RAM)
        put(ENGINE " scene=rain512 error=needs-513-bodies\n");
    put(ENGINE " status=done\n");
    return 0;
}
