/*
 * memory.c: per-GPU memory of each pipeline stage (seed 003 §3, eq. 1-18).
 *
 * Model states. A GPU of a stage holds P parameters (its share after tensor
 * parallelism) and keeps, per parameter:
 *   weights    bytes(weights_dtype)                 seed 003: bf16, 2 B
 *   gradients  bytes(gradients_dtype)               seed 003: fp32, 4 B
 *   optimizer  2 x bytes(optimizer_dtype) moments, plus 4 B fp32 master
 *              weights when the working weights are not fp32: 12 B in seed 003
 * ZeRO shards these over the dp*cp ranks that hold the same parameters:
 * stage 1 (Megatron's distributed optimizer) the optimizer states, 2 also the
 * gradients, 3 also the weights. With zero 1 this is eq. 10: (6 + 12/(dc)) P.
 *
 * Which parameters sit on which stage (seed 003 §3.1.3, eq. 7-9):
 *   only  (p = 1)  2hv/t + h + L x layer      embedding, LM head, final norm
 *   first          hv/t + (L/p) x layer       embedding
 *   middle         (L/p) x layer
 *   last           hv/t + h + (L/p) x layer   LM head and final norm
 * where layer = (2h^2(1+k/a) + 3h h_ffn)/t + 2h.
 *
 * Activations, 1F1B schedule (seed 003 §3.2.2, eq. 16-17). Stage i of p holds
 * the activations of min(p - i, m) micro-batches at its peak, so the first
 * stage holds p micro-batches of L/p layers, i.e. L layers' worth. The
 * "middle" row reports the worst middle stage, i = 1. Everything divides by
 * t*c: tp and cp split all activations (with sequence parallelism on).
 *   layers       sbh(12 + 4k/a + 8h_ffn/h) per layer and micro-batch  (eq. 12)
 *   embedding    8sbh per micro-batch in flight, first stage            (eq. 13)
 *   LM head      4sbh(1 + v/h): fp32 logits for the loss plus the inputs
 *                of the final norm and the output layer, last stage     (eq. 14)
 * Eq. 13 is the paper's term as printed (int64 token ids counted per hidden
 * unit); it is reproduced as is because it is part of the published estimate.
 */
#include "tp_internal.h"

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Bytes of optimizer state per parameter: moments plus fp32 master weights. */
static double optimizer_bytes_per_param(const tp_training *t)
{
    const double master = t->weights_dtype == TP_DTYPE_FP32 ? 0.0 : 4.0;
    return 2.0 * tp_dtype_bytes(t->optimizer_dtype) + master;
}

/* Activation bytes of one layer for one micro-batch on one GPU. */
static double layer_activation_bytes(const model_layer *layer, const tp_config *c)
{
    const tp_plan *p = &c->plan;
    const double tokens = (double)c->training.seq_len * (double)c->training.micro_batch
                        / (double)p->cp;
    const double t = (double)p->tp;
    const double sp_part = p->sp ? layer->act_sp_split_bytes_per_token / t
                                 : layer->act_sp_split_bytes_per_token;
    return tokens * (layer->act_tp_split_bytes_per_token / t + sp_part);
}

static void fill_model_states(const tp_config *c, int64_t dp, tp_stage_memory *stage)
{
    const double shards = (double)(dp * c->plan.cp);
    const int64_t zero = c->plan.zero;
    const double p = stage->params;
    stage->weights_bytes = p * tp_dtype_bytes(c->training.weights_dtype)
                         / (zero >= 3 ? shards : 1.0);
    stage->gradients_bytes = p * tp_dtype_bytes(c->training.gradients_dtype)
                           / (zero >= 2 ? shards : 1.0);
    stage->optimizer_bytes = p * optimizer_bytes_per_param(&c->training)
                           / (zero >= 1 ? shards : 1.0);
}

void mem_estimate_stages(const tp_config *c, int64_t dp, int64_t micro_batches,
                         tp_estimate_result *out)
{
    const tp_model *m = &c->model;
    const int64_t pp = c->plan.pp;
    const double t = (double)c->plan.tp;
    const model_layer layer = model_describe_layer(m);
    const int64_t stage_layers = m->layers / pp;
    const double layer_params = model_layer_params_per_gpu(&layer, c->plan.tp);
    const double layer_act = layer_activation_bytes(&layer, c);
    /* sbh/(tc) in bytes-per-unit form: the scale of eq. 13 and 14 */
    const double sbh_per_gpu = (double)c->training.seq_len * (double)c->training.micro_batch
                             * (double)m->hidden / (t * (double)c->plan.cp);
    const double embedding = model_embedding_params(m) / t;
    const double embedding_act = 8.0 * sbh_per_gpu;                                 /* eq. 13 */
    const double lm_head_act = 4.0 * sbh_per_gpu * (1.0 + (double)m->vocab / (double)m->hidden); /* eq. 14 */

    int n = 0;
    if (pp == 1) {
        tp_stage_memory *s = &out->stages[n++];
        s->name = "only";
        s->layers = m->layers;
        s->in_flight = 1;
        s->params = 2.0 * embedding + model_final_norm_params(m) + (double)m->layers * layer_params;
        s->activations_bytes = (double)m->layers * layer_act + embedding_act + lm_head_act;
    } else {
        tp_stage_memory *first = &out->stages[n++];
        first->name = "first";
        first->layers = stage_layers;
        first->in_flight = min_i64(pp, micro_batches);
        first->params = embedding + (double)stage_layers * layer_params;
        first->activations_bytes = (double)first->in_flight
                                 * ((double)stage_layers * layer_act + embedding_act);
        if (pp > 2) {
            tp_stage_memory *mid = &out->stages[n++];
            mid->name = "middle";
            mid->layers = stage_layers;
            mid->in_flight = min_i64(pp - 1, micro_batches);
            mid->params = (double)stage_layers * layer_params;
            mid->activations_bytes = (double)mid->in_flight * (double)stage_layers * layer_act;
        }
        tp_stage_memory *last = &out->stages[n++];
        last->name = "last";
        last->layers = stage_layers;
        last->in_flight = 1;
        last->params = embedding + model_final_norm_params(m) + (double)stage_layers * layer_params;
        last->activations_bytes = (double)stage_layers * layer_act + lm_head_act;
    }
    out->stage_count = n;
    out->peak_stage = 0;
    for (int i = 0; i < n; i++) {
        tp_stage_memory *s = &out->stages[i];
        fill_model_states(c, dp, s);
        s->other_bytes = 0.0;
        s->total_bytes = s->weights_bytes + s->gradients_bytes + s->optimizer_bytes
                       + s->activations_bytes + s->other_bytes;
        if (s->total_bytes > out->stages[out->peak_stage].total_bytes)
            out->peak_stage = i;
    }
    out->peak_bytes = out->stages[out->peak_stage].total_bytes;
}
