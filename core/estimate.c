/*
 * estimate.c: composes the estimate from its parts. Pure: no globals, no
 * allocation, no I/O. The memory model (memory.c) and the capacity check,
 * then step time and throughput (time.c). The search (search.c) calls the
 * two halves apart, on plans it built valid, so it can skip the time of a
 * plan that does not fit.
 */
#include <string.h>

#include "tp_internal.h"

void estimate_memory(const tp_config *c, const model_layers *layers, tp_estimate_result *out)
{
    memset(out, 0, sizeof *out);
    out->params_total = tp_model_params_total(&c->model);
    out->params_active = out->params_total - model_params_inactive(&c->model);
    out->dp = c->system.gpus / (c->plan.tp * c->plan.pp * c->plan.cp);
    out->micro_batches = c->training.global_batch / (c->training.micro_batch * out->dp);
    const plan_shards shards = plan_shard_factors(c, out->dp);
    out->shard_weights = shards.weights;
    out->shard_gradients = shards.gradients;
    out->shard_optimizer = shards.optimizer;
    out->shard_group = shards.group;
    out->ep = shards.ep;
    out->etp = shards.etp;
    out->edp = shards.edp;
    out->expert_shard_weights = shards.expert_weights;
    out->expert_shard_gradients = shards.expert_gradients;
    out->expert_shard_optimizer = shards.expert_optimizer;
    mem_estimate_stages(c, layers, out->dp, out->micro_batches, &shards, out);
    out->capacity_bytes = c->system.gpu.memory_bytes;
    out->usage_fraction = out->peak_bytes / out->capacity_bytes;
    if (out->usage_fraction <= TP_SAFE_FRACTION)
        out->zone = TP_ZONE_GREEN;
    else if (out->usage_fraction <= 1.0)
        out->zone = TP_ZONE_YELLOW;
    else
        out->zone = TP_ZONE_RED;
}

tp_status tp_estimate(const tp_config *c, tp_estimate_result *out, tp_error *err)
{
    tp_status status = tp_config_validate(c, err);
    if (status != TP_OK)
        return status;
    /* the layer described once, for memory and for time */
    const model_layers layers = model_describe_layers(&c->model);
    estimate_memory(c, &layers, out);
    time_estimate(c, &layers, out);
    return TP_OK;
}
