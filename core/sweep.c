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

#include "tp_internal.h"

static const char *const axis_names[TP_SWEEP_AXIS_COUNT] = {
    "tensor_tflops", "memory_gib", "hbm_gbps", "gpus_per_node", "fast_gbps", "slow_gbps",
};

const char *tp_sweep_axis_str(tp_sweep_axis axis)
{
    return (unsigned)axis < TP_SWEEP_AXIS_COUNT ? axis_names[axis] : "unknown";
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
    switch (axis) {
    case TP_SWEEP_TENSOR_TFLOPS: {
        /* Subramanian et al. 2024 Figure 5 scales the tensor and vector rates
         * together */
        const double ratio = sys->gpu.vector_flop_per_s / sys->gpu.tensor_flop_per_s;
        sys->gpu.tensor_flop_per_s = value * 1e12;
        sys->gpu.vector_flop_per_s = ratio * value * 1e12;
        break;
    }
    case TP_SWEEP_MEMORY_GIB:
        sys->gpu.memory_bytes = value * TP_GIB;
        break;
    case TP_SWEEP_HBM_GBPS:
        sys->gpu.hbm_bytes_per_s = value * 1e9;
        break;
    case TP_SWEEP_GPUS_PER_NODE:
        /* one NIC per GPU of the domain, Subramanian et al. 2024's
         * n_NIC = n_NVS */
        sys->gpus_per_node = (int64_t)value;
        sys->network.nics_per_node = (int64_t)value;
        break;
    case TP_SWEEP_FAST_GBPS:
        sys->network.fast.bytes_per_s = value * 1e9;
        break;
    case TP_SWEEP_SLOW_GBPS:
        sys->network.slow.bytes_per_s = value * 1e9 / 8.0;
        break;
    case TP_SWEEP_AXIS_COUNT:
        break;
    }
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
    if (plan_validate_inputs(out, &why) == TP_OK)
        return TP_OK;
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++) {
        if (s->value_count[a] == 0)
            continue;
        /* name the axis whose field the config refused, in the sweep's terms */
        if (strstr(why.path, axis_names[a]) != NULL
            || (a == TP_SWEEP_GPUS_PER_NODE && strstr(why.path, "nics_per_node") != NULL))
        {
            char path[32];
            snprintf(path, sizeof path, "sweep.%s", axis_names[a]);
            return err_set(err, TP_ERR_INVALID, path, "%s", why.message);
        }
    }
    if (err != NULL)
        *err = why;
    return why.status;
}
