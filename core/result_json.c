/*
 * result_json.c: an estimate's output document, as `trainplan estimate`
 * prints it (docs/output.md lists every field): the version, the config it
 * ran (in input form), the parameter counts, the plan as resolved, the
 * memory of each pipeline stage, the step time and its parts, and the
 * throughput.
 */
#include "json_internal.h"
#include "units.h"

static void write_other(json_writer *w, cJSON *obj, const tp_other_memory *x)
{
    json_add_number(w, obj, "cuda_context_bytes", x->cuda_context_bytes);
    json_add_number(w, obj, "nccl_bytes", x->nccl_bytes);
    json_add_number(w, obj, "loss_workspace_bytes", x->loss_workspace_bytes);
    json_add_number(w, obj, "backward_workspace_bytes", x->backward_workspace_bytes);
    json_add_number(w, obj, "gathered_params_bytes", x->gathered_params_bytes);
    json_add_number(w, obj, "gradient_bucket_bytes", x->gradient_bucket_bytes);
    json_add_number(w, obj, "fragmentation_bytes", x->fragmentation_bytes);
}

static void write_plan(json_writer *w, cJSON *plan, const tp_config *c, const tp_estimate_result *r)
{
    json_add_number(w, plan, "tp", (double)c->plan.tp);
    json_add_number(w, plan, "pp", (double)c->plan.pp);
    json_add_number(w, plan, "cp", (double)c->plan.cp);
    json_add_number(w, plan, "dp", (double)r->dp);
    json_add_bool(w, plan, "sp", c->plan.sp);
    json_add_string(w, plan, "tp_algorithm", tp_tp_algorithm_str(c->plan.tp_algorithm));
    json_add_string(w, plan, "sharding", tp_sharding_str(c->plan.sharding));
    if (c->plan.sharding == TP_SHARD_ZERO)
        json_add_number(w, plan, "zero", (double)c->plan.zero);
    cJSON *factors = json_add_object(w, plan, "shard_factors");
    json_add_number(w, factors, "weights", (double)r->shard_weights);
    json_add_number(w, factors, "gradients", (double)r->shard_gradients);
    json_add_number(w, factors, "optimizer", (double)r->shard_optimizer);
    if (r->shard_group > 0)
        json_add_number(w, plan, "shard_group", (double)r->shard_group);
    if (c->model.moe.experts > 0) {
        json_add_number(w, plan, "ep", (double)r->ep);
        json_add_number(w, plan, "etp", (double)r->etp);
        json_add_number(w, plan, "edp", (double)r->edp);
        cJSON *expert = json_add_object(w, plan, "expert_shard_factors");
        json_add_number(w, expert, "weights", (double)r->expert_shard_weights);
        json_add_number(w, expert, "gradients", (double)r->expert_shard_gradients);
        json_add_number(w, expert, "optimizer", (double)r->expert_shard_optimizer);
    }
    json_add_number(w, plan, "micro_batch", (double)c->training.micro_batch);
    json_add_number(w, plan, "micro_batches", (double)r->micro_batches);
    json_add_string(w, plan, "schedule", tp_schedule_str(c->plan.schedule));
    json_add_number(w, plan, "virtual_stages", (double)c->plan.virtual_stages);
    json_add_string(w, plan, "recompute", tp_recompute_str(c->training.recompute));
    json_add_bool(w, plan, "flash_attention", c->training.flash_attention);
    int64_t per_node[4];
    plan_ranks_per_node(c, r->dp, per_node);
    json_add_per_node(w, plan, per_node);
}

static void write_stage(json_writer *w, cJSON *stage, const tp_stage_memory *s)
{
    json_add_string(w, stage, "name", s->name);
    json_add_bool(w, stage, "embedding", s->has_embedding);
    json_add_bool(w, stage, "lm_head", s->has_lm_head);
    json_add_number(w, stage, "layers", (double)s->layers);
    json_add_number(w, stage, "micro_batches_in_flight", (double)s->in_flight);
    json_add_number(w, stage, "layers_in_flight", s->layers_in_flight);
    json_add_number(w, stage, "params", s->params);
    json_add_number(w, stage, "weights_bytes", s->weights_bytes);
    json_add_number(w, stage, "gradients_bytes", s->gradients_bytes);
    json_add_number(w, stage, "optimizer_bytes", s->optimizer_bytes);
    json_add_number(w, stage, "activations_bytes", s->activations_bytes);
    cJSON *parts = json_add_object(w, stage, "activation_parts");
    json_add_number(w, parts, "layer_bytes", s->activation_parts.layer_bytes);
    json_add_number(w, parts, "mean_layer_bytes", s->activation_parts.mean_layer_bytes);
    json_add_number(w, parts, "scores_bytes", s->activation_parts.scores_bytes);
    json_add_number(w, parts, "layer_input_bytes", s->activation_parts.layer_input_bytes);
    json_add_number(w, parts, "op_layer_bytes", s->activation_parts.op_layer_bytes);
    json_add_number(w, parts, "embedding_bytes", s->activation_parts.embedding_bytes);
    json_add_number(w, parts, "lm_head_bytes", s->activation_parts.lm_head_bytes);
    if (s->activation_parts.offloaded_bytes > 0.0)
        json_add_number(w, parts, "offloaded_bytes", s->activation_parts.offloaded_bytes);
    json_add_number(w, stage, "other_bytes", s->other_bytes);
    write_other(w, json_add_object(w, stage, "other"), &s->other);
    json_add_number(w, stage, "total_bytes", s->total_bytes);
    cJSON *experts = json_add_object(w, stage, "experts");
    json_add_number(w, experts, "moe_layers", (double)s->experts.moe_layers);
    json_add_number(w, experts, "params", s->experts.params);
    json_add_number(w, experts, "weights_bytes", s->experts.weights_bytes);
    json_add_number(w, experts, "gradients_bytes", s->experts.gradients_bytes);
    json_add_number(w, experts, "optimizer_bytes", s->experts.optimizer_bytes);
    json_add_number(w, experts, "activations_bytes", s->experts.activations_bytes);
}

static void write_memory(json_writer *w, cJSON *memory, const tp_estimate_result *r)
{
    cJSON *bpp = json_add_object(w, memory, "bytes_per_param");
    json_add_number(w, bpp, "weights", r->bytes_per_param.weights);
    json_add_number(w, bpp, "fp8_weights", r->bytes_per_param.fp8_weights);
    json_add_number(w, bpp, "gradients", r->bytes_per_param.gradients);
    json_add_number(w, bpp, "master_weights", r->bytes_per_param.master_weights);
    json_add_number(w, bpp, "optimizer_states", r->bytes_per_param.optimizer_states);
    cJSON *stages = json_add_array(w, memory, "stages");
    for (int i = 0; stages != NULL && i < r->stage_count; i++)
        write_stage(w, json_add_object(w, stages, NULL), &r->stages[i]);
    json_add_string(w, memory, "peak_stage", r->stages[r->peak_stage].name);
    json_add_number(w, memory, "peak_bytes", r->peak_bytes);
    json_add_number(w, memory, "capacity_bytes", r->capacity_bytes);
    json_add_number(w, memory, "usage_fraction", r->usage_fraction);
    json_add_number(w, memory, "allocated_peak_bytes", r->allocated_peak_bytes);
    json_add_number(w, memory, "allocated_fraction", r->allocated_fraction);
    json_add_number(w, memory, "safe_fraction", TP_SAFE_FRACTION);
    json_add_string(w, memory, "zone", tp_zone_str(r->zone));
}

static void write_time(json_writer *w, cJSON *time, const tp_config *c, const tp_time *t)
{
    json_add_number(w, time, "step_s", t->step_s);
    json_add_number(w, time, "compute_s", t->compute_s);
    json_add_number(w, time, "tp_comm_s", t->tp_comm_s);
    json_add_number(w, time, "cp_comm_s", t->cp_comm_s);
    json_add_number(w, time, "ep_comm_s", t->ep_comm_s);
    json_add_number(w, time, "pp_comm_s", t->pp_comm_s);
    json_add_number(w, time, "dp_comm_s", t->dp_comm_s);
    if (c->training.offload_layers > 0)
        json_add_number(w, time, "offload_s", t->offload_s);
    json_add_number(w, time, "bubble_s", t->bubble_s);
    json_add_number(w, time, "optimizer_s", t->optimizer_s);
    json_add_number(w, time, "data_wait_s", t->data_wait_s);
    json_add_number(w, time, "step_overhead_s", t->step_overhead_s);
    json_add_number(w, time, "slowest_gpu_slowdown", t->slowest_gpu_slowdown);
    json_add_number(w, time, "forward_s", t->forward_s);
    json_add_number(w, time, "backward_s", t->backward_s);
    json_add_number(w, time, "micro_batch_compute_s", t->micro_batch_compute_s);
    json_add_number(w, time, "micro_batch_tp_s", t->micro_batch_tp_s);
    json_add_number(w, time, "micro_batch_cp_s", t->micro_batch_cp_s);
    json_add_number(w, time, "micro_batch_ep_s", t->micro_batch_ep_s);
    json_add_number(w, time, "micro_batch_p2p_s", t->micro_batch_p2p_s);
    json_add_number(w, time, "micro_batch_dp_s", t->micro_batch_dp_s);
    if (c->training.offload_layers > 0)
        json_add_number(w, time, "micro_batch_offload_s", t->micro_batch_offload_s);
    json_add_number(w, time, "dp_step_s", t->dp_step_s);
    if (c->plan.ep_overlap)
        json_add_number(w, time, "ep_step_s", t->ep_step_s);
    if (c->training.fp8)
        json_add_number(w, time, "weight_cast_s", t->weight_cast_s);
    json_add_number(w, time, "bubble_micro_batch_s", t->bubble_micro_batch_s);
    json_add_number(w, time, "micro_batch_s", t->micro_batch_s);
    json_add_number(w, time, "micro_batch_loader_s", t->micro_batch_loader_s);
    json_add_number(w, time, "optimizer_bytes", t->optimizer_bytes);
    if (c->plan.tp_algorithm == TP_TP_SUMMA)
        json_add_number(w, time, "summa_panels", (double)t->summa_panels);
}

static void write_throughput(json_writer *w, cJSON *throughput, const tp_config *c, const tp_throughput *th)
{
    json_add_number(w, throughput, "tokens_per_s_per_gpu", th->tokens_per_s_per_gpu);
    json_add_number(w, throughput, "model_tflops_per_gpu", th->model_flop_per_s_per_gpu / UNIT_TERA);
    json_add_number(w, throughput, "hardware_tflops_per_gpu", th->hardware_flop_per_s_per_gpu / UNIT_TERA);
    json_add_number(w, throughput, "mfu", th->mfu);
    json_add_number(w, throughput, "hfu", th->hfu);
    json_add_number(w, throughput, "mfu_peak_tflops", th->mfu_peak_flop_per_s / UNIT_TERA);
    json_add_number(w, throughput, "gemm_peak_tflops", th->linear_peak_flop_per_s / UNIT_TERA);
    json_add_number(w, throughput, "model_flop_per_step", th->model_flop_per_step);
    json_add_number(w, throughput, "hardware_flop_per_step", th->hardware_flop_per_step);
    json_add_number(w, throughput, "time_to_train_days", th->time_to_train_s / UNIT_DAY_S);
    json_add_number(w, throughput, "gpu_hours", th->gpu_hours);
    if (c->training.gpu_hour_cost > 0.0) /* no price given, no cost */
        json_add_number(w, throughput, "cost", th->cost);
}

void json_write_result(json_writer *w, cJSON *root, const tp_config *c, const tp_estimate_result *r)
{
    json_add_string(w, root, "version", TP_VERSION);
    json_write_config(w, json_add_object(w, root, "config"), c);
    cJSON *params = json_add_object(w, root, "params");
    json_add_number(w, params, "total", (double)r->params_total);
    json_add_number(w, params, "active", (double)r->params_active);
    write_plan(w, json_add_object(w, root, "plan"), c, r);
    write_memory(w, json_add_object(w, root, "memory"), r);
    write_time(w, json_add_object(w, root, "time"), c, &r->time);
    write_throughput(w, json_add_object(w, root, "throughput"), c, &r->throughput);
}
