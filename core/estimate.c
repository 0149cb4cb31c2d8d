/*
 * estimate.c: composes the estimate from its parts. Pure: no globals, no
 * allocation, no I/O. Today it is the memory model (memory.c) and the
 * capacity check; step time joins it with the performance model (issue 4).
 */
#include <string.h>

#include "tp_internal.h"

tp_status tp_estimate(const tp_config *c, tp_estimate_result *out, tp_error *err)
{
    tp_status status = tp_config_validate(c, err);
    if (status != TP_OK)
        return status;
    memset(out, 0, sizeof *out);
    out->params_total = tp_model_params_total(&c->model);
    out->dp = c->system.gpus / (c->plan.tp * c->plan.pp * c->plan.cp);
    out->micro_batches = c->training.global_batch / (c->training.micro_batch * out->dp);
    mem_estimate_stages(c, out->dp, out->micro_batches, out);
    out->capacity_bytes = c->system.gpu.memory_bytes;
    out->usage_fraction = out->peak_bytes / out->capacity_bytes;
    if (out->usage_fraction <= TP_SAFE_FRACTION)
        out->zone = TP_ZONE_GREEN;
    else if (out->usage_fraction <= 1.0)
        out->zone = TP_ZONE_YELLOW;
    else
        out->zone = TP_ZONE_RED;
    return TP_OK;
}

const char *tp_zone_str(tp_zone zone)
{
    switch (zone) {
    case TP_ZONE_GREEN: return "green";
    case TP_ZONE_YELLOW: return "yellow";
    case TP_ZONE_RED: return "red";
    }
    return "unknown";
}

const char *tp_dtype_str(tp_dtype dtype)
{
    switch (dtype) {
    case TP_DTYPE_FP32: return "fp32";
    case TP_DTYPE_BF16: return "bf16";
    case TP_DTYPE_FP16: return "fp16";
    }
    return "unknown";
}

double tp_dtype_bytes(tp_dtype dtype)
{
    return dtype == TP_DTYPE_FP32 ? 4.0 : 2.0;
}
