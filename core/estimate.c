/*
 * estimate.c: composes the estimate from its parts. Pure: no globals, no
 * allocation, no I/O. Today it is the memory model (memory.c) and the
 * capacity check, then step time and throughput (time.c).
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
    const plan_shards shards = plan_shard_factors(c, out->dp);
    out->shard_weights = shards.weights;
    out->shard_gradients = shards.gradients;
    out->shard_optimizer = shards.optimizer;
    out->shard_group = shards.group;
    mem_estimate_stages(c, out->dp, out->micro_batches, &shards, out);
    out->capacity_bytes = c->system.gpu.memory_bytes;
    out->usage_fraction = out->peak_bytes / out->capacity_bytes;
    if (out->usage_fraction <= TP_SAFE_FRACTION)
        out->zone = TP_ZONE_GREEN;
    else if (out->usage_fraction <= 1.0)
        out->zone = TP_ZONE_YELLOW;
    else
        out->zone = TP_ZONE_RED;
    time_estimate(c, out);
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

const char *tp_arch_str(tp_arch arch)
{
    return arch == TP_ARCH_GPT ? "gpt" : arch == TP_ARCH_LLAMA ? "llama" : "unknown";
}

const char *tp_optimizer_str(tp_optimizer opt)
{
    switch (opt) {
    case TP_OPT_ADAM: return "adam";
    case TP_OPT_ADAMW: return "adamw";
    case TP_OPT_SGD: return "sgd";
    case TP_OPT_ADAFACTOR: return "adafactor";
    case TP_OPT_ADAM8BIT: return "adam8bit";
    }
    return "unknown";
}

const char *tp_sharding_str(tp_sharding sharding)
{
    switch (sharding) {
    case TP_SHARD_ZERO: return "zero";
    case TP_SHARD_FSDP_FULL: return "fsdp_full_shard";
    case TP_SHARD_FSDP_GRAD_OP: return "fsdp_shard_grad_op";
    case TP_SHARD_FSDP_HYBRID: return "fsdp_hybrid_shard";
    case TP_SHARD_AMSP: return "amsp";
    }
    return "unknown";
}

const char *tp_recompute_str(tp_recompute mode)
{
    switch (mode) {
    case TP_RECOMPUTE_NONE: return "none";
    case TP_RECOMPUTE_SELECTIVE: return "selective";
    case TP_RECOMPUTE_FULL: return "full";
    }
    return "unknown";
}

const char *tp_schedule_str(tp_schedule schedule)
{
    switch (schedule) {
    case TP_SCHEDULE_1F1B: return "1f1b";
    case TP_SCHEDULE_INTERLEAVED: return "interleaved";
    case TP_SCHEDULE_GPIPE: return "gpipe";
    }
    return "unknown";
}

double tp_dtype_bytes(tp_dtype dtype)
{
    return dtype == TP_DTYPE_FP32 ? 4.0 : 2.0;
}

const char *tp_dim_str(tp_dim dim)
{
    switch (dim) {
    case TP_DIM_TP: return "tp";
    case TP_DIM_CP: return "cp";
    case TP_DIM_DP: return "dp";
    case TP_DIM_PP: return "pp";
    }
    return "unknown";
}
