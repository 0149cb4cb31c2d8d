/*
 * estimate.c: composes the estimate from its parts. Pure: no globals, no
 * allocation, no I/O. The memory model (memory.c) and the capacity check,
 * then step time and throughput (time.c). The search (search.c) calls the
 * two halves apart, on plans it built valid, so it can skip the time of a
 * plan that does not fit.
 */
#include <math.h>
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
    out->allocated_fraction = out->allocated_peak_bytes / out->capacity_bytes;
    if (out->usage_fraction <= TP_SAFE_FRACTION)
        out->zone = TP_ZONE_GREEN;
    else if (out->allocated_fraction <= 1.0)
        out->zone = TP_ZONE_YELLOW;
    else
        out->zone = TP_ZONE_RED;
}

/* The figures every other one is summed into or derived from, each with
 * its path in the output: a non-finite item makes its sum non-finite. */
static tp_status check_finite(const tp_estimate_result *r, tp_error *err)
{
    const tp_time *t = &r->time;
    const tp_throughput *th = &r->throughput;
    const struct {
        const char *path;
        double value;
    } figures[] = {
        {"memory.peak_bytes", r->peak_bytes},
        {"memory.usage_fraction", r->usage_fraction},
        {"memory.allocated_fraction", r->allocated_fraction},
        {"time.step_s", t->step_s},
        {"time.forward_s", t->forward_s},
        {"time.backward_s", t->backward_s},
        {"time.micro_batch_loader_s", t->micro_batch_loader_s},
        {"throughput.model_flop_per_step", th->model_flop_per_step},
        {"throughput.hardware_flop_per_step", th->hardware_flop_per_step},
        {"throughput.tokens_per_s_per_gpu", th->tokens_per_s_per_gpu},
        {"throughput.mfu", th->mfu},
        {"throughput.hfu", th->hfu},
        {"throughput.time_to_train_days", th->time_to_train_s},
        {"throughput.cost", th->cost},
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (!isfinite(figures[i].value))
            return err_set(err, TP_ERR_INVALID, figures[i].path,
                           "is not a finite number for these inputs: their rates or sizes are too extreme");
    for (int i = 0; i < r->stage_count; i++)
        if (!isfinite(r->stages[i].total_bytes))
            return err_set(err, TP_ERR_INVALID, "memory.stages", "the %s stage's memory is not a finite number",
                           r->stages[i].name);
    return TP_OK;
}

tp_status tp_estimate(const tp_config *c, tp_estimate_result *out, tp_error *err)
{
    TRY(tp_config_validate(c, err));
    /* the layer described once, for memory and for time */
    const model_layers layers = model_describe_layers(&c->model, &c->training);
    estimate_memory(c, &layers, out);
    time_estimate(c, &layers, out);
    /* the fields' bounds keep every figure finite; this says so if not */
    return check_finite(out, err);
}
