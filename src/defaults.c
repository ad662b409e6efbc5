/* SPDX-License-Identifier: MIT */
/* Every default of qphys, in one place. */
#include "qphys/world.h"

qp_world_def qp_default_world_def(void)
{
    qp_world_def d;
    /* Every byte, padding included: the def is copied into the world, whose
     * bytes are the snapshot. */
    unsigned char *p = (unsigned char *)&d;
    for (unsigned i = 0; i < sizeof d; i++) p[i] = 0;
    d.gravity = qp_v3(0, QP_INT(-10), 0);
    d.dt = QP_FRAC(1, 60);
    d.collision_iterations = 5;
    d.contact_iterations = 10;
    d.shock_iterations = 7;
    d.penetration_iterations = 5;
    d.restitution_ramp = true;
    d.alternate_sweeps = true;
    d.accumulate_impulses = true;
    d.warm_start = true;
    d.contact_margin = QP_FRAC(2, 100);
    d.slop = QP_FRAC(2, 1000);
    d.gap_tolerance = QP_FRAC(5, 10000);
    d.penetration_rate = QP_FRAC(2, 10);
    d.max_penetration_speed = QP_ONE;
    d.bounce_threshold = QP_FRAC(1, 2);
    d.max_linear_speed = QP_INT(100);
    d.max_angular_speed = QP_INT(50);
    d.bounds = QP_INT(1000);
    d.gyroscopic = false;
    d.joint_tree = true;
    d.sleep_enabled = true;
    d.sleep_policy = QP_SLEEP_THREE_POINT;
    d.sleep_center_size = QP_FRAC(1, 100);
    d.sleep_point_size = QP_FRAC(1, 100);
    d.sleep_steps = 60;
    d.sleep_energy = QP_FRAC(1, 100);
    d.sleep_energy_bias = QP_FRAC(9, 10);
    d.wake_energy_factor = QP_INT(2);
    d.wake_speed = QP_FRAC(1, 10);
    d.wake_velocity = QP_FRAC(5, 100);
    d.min_awake_steps = 30;
    return d;
}

qp_body_def qp_default_body_def(void)
{
    qp_body_def d;
    /* Zero every byte (padding included): defs may be hashed or copied whole. */
    unsigned char *p = (unsigned char *)&d;
    for (unsigned i = 0; i < sizeof d; i++) p[i] = 0;
    d.type = QP_BODY_DYNAMIC;
    d.rotation = qp_quat_identity();
    d.density = QP_ONE;
    d.friction = QP_FRAC(1, 2);
    d.static_friction = -QP_ONE;
    d.restitution = 0;
    d.rolling_resistance = -QP_ONE;   /* QP_ROUND_ROLLING_RESISTANCE on a round dynamic body, else 0 */
    d.asleep = false;
    d.shape_count = 0;
    for (int i = 0; i < QP_CFG_MAX_BODY_SHAPES; i++) {
        d.filters[i] = qp_default_shape_filter();
        d.sensors[i] = false;
    }
    return d;
}

qp_shape_filter qp_default_shape_filter(void)
{
    qp_shape_filter f;
    f.category = 1;
    f.mask = 0xFFFFu;
    f.group = 0;
    return f;
}

qp_ray_filter qp_default_ray_filter(void)
{
    qp_ray_filter f;
    unsigned char *p = (unsigned char *)&f;
    for (unsigned i = 0; i < sizeof f; i++) p[i] = 0;
    f.mask = 0xFFFFu;
    f.ignore = qp_null_body();
    return f;
}
