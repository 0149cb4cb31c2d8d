/*
 * sweep.c: the points of a what-if sweep over hardware parameters
 * (Subramanian et al. 2024 §IV Q3: training time over tensor FLOP/s x HBM
 * capacity and bandwidth, NVS domain size and network bandwidth, each point
 * the best plan).
 *
 * A point's index runs over the product of the axes in use, the last axis
 * varying fastest, so a grid of a x b points lists b values of the second
 * axis for each value of the first. The search at each point is the
 * caller's (sweep_json.c); here a point only becomes a config.
 */
#include <stdio.h>
#include <string.h>

#include "fields.h"

/* Each axis is the config field of its name (fields.c): its unit and its
 * range are that field's. */
static const struct {
    field_section section;
    const char *key;
} axes[TP_SWEEP_AXIS_COUNT] = {
    [TP_SWEEP_TENSOR_TFLOPS] = {SECTION_GPU, "tensor_tflops"},
    [TP_SWEEP_MEMORY_GIB] = {SECTION_GPU, "memory_gib"},
    [TP_SWEEP_HBM_GB_PER_S] = {SECTION_GPU, "hbm_gb_per_s"},
    [TP_SWEEP_GPUS_PER_NODE] = {SECTION_SYSTEM, "gpus_per_node"},
    [TP_SWEEP_FAST_GB_PER_S] = {SECTION_NETWORK, "fast_gb_per_s"},
    [TP_SWEEP_SLOW_GBIT_PER_S] = {SECTION_NETWORK, "slow_gbit_per_s"},
};

const char *tp_sweep_axis_str(tp_sweep_axis axis)
{
    return (unsigned)axis < TP_SWEEP_AXIS_COUNT ? axes[axis].key : "unknown";
}

const field *sweep_axis_field(tp_sweep_axis axis)
{
    int renamed;
    return field_find(axes[axis].section, axes[axis].key, &renamed);
}

int64_t tp_sweep_point_count(const tp_sweep *s)
{
    int64_t n = 1;
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++)
        if (s->value_count[a] > 0)
            n *= s->value_count[a];
    return n;
}

void sweep_point_values(const tp_sweep *s, int64_t point, double value[TP_SWEEP_AXIS_COUNT])
{
    int64_t rest = point;
    for (int a = TP_SWEEP_AXIS_COUNT - 1; a >= 0; a--) {
        const int n = s->value_count[a];
        if (n > 0) {
            value[a] = s->values[a][rest % n];
            rest /= n;
        }
    }
}

/* The config field an axis sets, to a value in the axis's unit. */
static void set_axis(tp_config *c, tp_sweep_axis axis, double value)
{
    tp_system *sys = &c->system;
    /* Subramanian et al. 2024, Figure 5, scales the tensor and vector rates
     * together; their NVS domains have one NIC per GPU (n_NIC = n_NVS) */
    const double vector_per_tensor = sys->gpu.vector_flop_per_s / sys->gpu.tensor_flop_per_s;
    const field *f = sweep_axis_field(axis);
    field_set(f, field_section_struct(c, f->section), value);
    if (axis == TP_SWEEP_TENSOR_TFLOPS)
        sys->gpu.vector_flop_per_s = vector_per_tensor * sys->gpu.tensor_flop_per_s;
    if (axis == TP_SWEEP_GPUS_PER_NODE)
        sys->network.nics_per_node = sys->gpus_per_node;
}

tp_status tp_sweep_point_config(const tp_config *base, const tp_sweep *s, int64_t point,
                                tp_config *out, tp_error *err)
{
    if (point < 0 || point >= tp_sweep_point_count(s))
        return err_set(err, TP_ERR_INVALID, "sweep", "point %lld is outside the grid", (long long)point);
    *out = *base;
    double value[TP_SWEEP_AXIS_COUNT];
    sweep_point_values(s, point, value);
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++)
        if (s->value_count[a] > 0)
            set_axis(out, (tp_sweep_axis)a, value[a]);
    /* the search ignores the plan: the inputs it reads are checked */
    tp_error why;
    if (valid_inputs(out, &why) == TP_OK)
        return TP_OK;
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++) {
        if (s->value_count[a] == 0)
            continue;
        /* name the axis whose field the config refused, in the sweep's terms */
        char path[64];
        field_path(sweep_axis_field((tp_sweep_axis)a), path, sizeof path);
        if (strcmp(why.path, path) == 0
            || (a == TP_SWEEP_GPUS_PER_NODE && strcmp(why.path, "system.network.nics_per_node") == 0)) {
            snprintf(path, sizeof path, "sweep.%s", axes[a].key);
            return err_set(err, TP_ERR_INVALID, path, "%s", why.message);
        }
    }
    if (err != NULL)
        *err = why;
    return why.status;
}
