/*
 * validate.c: the rules a config must keep, each written once.
 *
 * Plain ranges come from the field table (fields_check); what is here are
 * the rules between fields. The rules of a plan's shape (valid_tp_split,
 * valid_cp_sequence, valid_batch, valid_layers, valid_interleave,
 * valid_expert_grid, valid_shard_group) are what the search prunes by too:
 * it calls the same functions with err NULL, so the estimate and the search
 * accept exactly the same plans. Every failure names the JSON path of the
 * field at fault and says why.
 */
#include "fields.h"

/* ===================== the rules of a plan's shape ===================== */

tp_status valid_tp_split(const tp_model *m, int64_t tp, tp_error *err)
{
    if (m->heads % tp != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp", "%lld does not divide model.heads=%lld",
                       (long long)tp, (long long)m->heads);
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp",
                       "%lld neither divides nor is a multiple of model.kv_heads=%lld", (long long)tp,
                       (long long)m->kv_heads);
    if (m->ffn_hidden % tp != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp", "%lld does not divide model.ffn_hidden=%lld",
                       (long long)tp, (long long)m->ffn_hidden);
    if (m->moe.experts > 0 && m->moe.shared_experts > 0 && m->moe.shared_ffn_hidden % tp != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp",
                       "%lld does not divide model.moe.shared_ffn_hidden=%lld", (long long)tp,
                       (long long)m->moe.shared_ffn_hidden);
    return TP_OK;
}

/* Causal attention balances cp by giving each rank two chunks of the
 * sequence, one early and one late (Megatron-Core's load-balanced context
 * parallelism); an encoder's ranks all do the same work, one chunk each. */
tp_status valid_cp_sequence(const tp_model *m, int64_t seq_len, int64_t cp, tp_error *err)
{
    if (cp == 1)
        return TP_OK;
    const int64_t chunks = model_causal(m) ? 2 * cp : cp;
    if (seq_len % chunks != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.cp",
                       "%lld does not split training.seq_len=%lld into %lld equal chunks%s", (long long)cp,
                       (long long)seq_len, (long long)chunks,
                       model_causal(m) ? " (2 per rank, which balances causal attention)" : "");
    return TP_OK;
}

tp_status valid_batch(int64_t global_batch, int64_t micro_batch, int64_t dp, tp_error *err)
{
    if (global_batch % (micro_batch * dp) != 0)
        return err_set(err, TP_ERR_INVALID, "training.global_batch",
                       "%lld is not a multiple of micro_batch*dp=%lld*%lld", (long long)global_batch,
                       (long long)micro_batch, (long long)dp);
    return TP_OK;
}

/* pp, and pp x v, dividing the layers: equal stages of equal chunks. The
 * balanced split (plan_split_layers) of layers pp does not divide counts
 * the embedding and the LM head as a layer each, so without interleaving
 * the ends keep a layer only with at least 2 pp - 2 layers (torchtitan
 * refuses the same splits: "input_weight exceeds minimum layers per
 * stage"). With the interleaved schedule the L + 2 units split into pp v
 * chunks as evenly as they go, so there must be a unit for every chunk;
 * every stage then holds v units, at least one of them a layer. */
static tp_status valid_balanced(int64_t layers, int64_t pp, int64_t v, tp_error *err)
{
    if (layers % pp == 0) {
        if (layers % (pp * v) != 0)
            return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                           "pp*virtual_stages=%lld does not divide model.layers=%lld", (long long)(pp * v),
                           (long long)layers);
        return TP_OK;
    }
    if (v > 1 && layers + 2 < pp * v)
        return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                       "pp*virtual_stages=%lld chunks are more than the %lld units of model.layers=%lld with "
                       "the embedding and the LM head: every chunk holds at least one", (long long)(pp * v),
                       (long long)(layers + 2), (long long)layers);
    if (v == 1 && layers + 2 < 2 * pp)
        return err_set(err, TP_ERR_INVALID, "parallel.pp",
                       "%lld does not divide model.layers=%lld, and the balanced uneven split (the embedding and "
                       "the LM head count as a layer each) needs at least 2*pp - 2 = %lld layers to leave the "
                       "last stage one", (long long)pp, (long long)layers, (long long)(2 * pp - 2));
    return TP_OK;
}

/* The layers split over pp stages of v chunks: as plan_split_layers
 * splits them, every stage holding at least one layer, and v equal chunks
 * each (Megatron-LM's checks in transformer_config.py: the middle stages
 * share the rest evenly, every stage a multiple of v). */
tp_status valid_layers(int64_t layers, int64_t pp, int64_t v, int64_t first, int64_t last, tp_error *err)
{
    if (pp > layers)
        return err_set(err, TP_ERR_INVALID, "parallel.pp", "%lld stages are more than model.layers=%lld: "
                       "every stage holds at least one layer", (long long)pp, (long long)layers);
    if (first == 0 && last == 0)
        return valid_balanced(layers, pp, v, err);
    const char *path = first > 0 ? "parallel.first_stage_layers" : "parallel.last_stage_layers";
    if (pp == 1)
        return err_set(err, TP_ERR_INVALID, path, "applies only with parallel.pp of at least 2");
    const int64_t middles = pp - (first > 0) - (last > 0), rest = layers - first - last;
    if (middles == 0 && rest != 0)
        return err_set(err, TP_ERR_INVALID, path,
                       "first_stage_layers + last_stage_layers = %lld must be model.layers=%lld with parallel.pp=2",
                       (long long)(first + last), (long long)layers);
    if (middles > 0 && rest < middles)
        return err_set(err, TP_ERR_INVALID, path, "leaves %lld of model.layers=%lld for the other %lld stages, "
                       "fewer than one each", (long long)rest, (long long)layers, (long long)middles);
    if (middles > 0 && rest % middles != 0)
        return err_set(err, TP_ERR_INVALID, path, "leaves %lld of model.layers=%lld, which do not split evenly "
                       "over the other %lld stages", (long long)rest, (long long)layers, (long long)middles);
    if (first % v != 0 || last % v != 0 || (middles > 0 && (rest / middles) % v != 0))
        return err_set(err, TP_ERR_INVALID, first % v != 0 ? "parallel.first_stage_layers"
                                           : last % v != 0 ? "parallel.last_stage_layers" : "parallel.virtual_stages",
                       "every stage's layers must split into virtual_stages=%lld equal chunks (%lld first, "
                       "%lld for each other stage, %lld last)", (long long)v,
                       (long long)plan_split_layers(layers, pp, v, first, last, 0),
                       (long long)plan_split_layers(layers, pp, v, first, last, 1),
                       (long long)plan_split_layers(layers, pp, v, first, last, pp - 1));
    return TP_OK;
}

/* Megatron-LM's interleaved schedule needs a pipeline and runs the
 * micro-batches in groups of pp. */
tp_status valid_interleave(int64_t pp, int64_t v, int64_t micro_batches, tp_error *err)
{
    if (v == 1)
        return TP_OK;
    if (pp < 2)
        return err_set(err, TP_ERR_INVALID, "parallel.schedule", "interleaved needs parallel.pp of at least 2");
    if (micro_batches % pp != 0)
        return err_set(err, TP_ERR_INVALID, "training.global_batch",
                       "gives %lld micro-batches, not a multiple of parallel.pp=%lld as the "
                       "interleaved schedule needs", (long long)micro_batches, (long long)pp);
    return TP_OK;
}

/* Megatron-Core's expert grid: ep splits the experts, etp each expert's
 * width, and ep x etp tiles the tp x cp x dp ranks of a stage. */
tp_status valid_expert_grid(const tp_moe *x, int64_t ep, int64_t etp, int64_t ranks, tp_error *err)
{
    if (x->experts % ep != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.ep", "%lld does not divide model.moe.experts=%lld",
                       (long long)ep, (long long)x->experts);
    if (x->expert_ffn_hidden % etp != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.etp",
                       "%lld does not divide model.moe.expert_ffn_hidden=%lld", (long long)etp,
                       (long long)x->expert_ffn_hidden);
    if (ranks % (ep * etp) != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.ep",
                       "ep*etp=%lld does not divide the tp*cp*dp=%lld ranks of a stage",
                       (long long)(ep * etp), (long long)ranks);
    return TP_OK;
}

/* A hybrid shard group (or AMSP's intra-node axis) tiles the replicas. */
tp_status valid_shard_group(int64_t replicas, int64_t group, tp_error *err)
{
    if (group < 1 || replicas % group != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.shard_group",
                       "%lld does not divide the %lld ranks that share parameters", (long long)group,
                       (long long)replicas);
    return TP_OK;
}

/* ===================== the model ===================== */

/* A count a rule bounds by another field: from lo to hi. */
static tp_status check_between(int64_t value, int64_t lo, int64_t hi, const char *path, const char *why,
                               tp_error *err)
{
    if (value < lo || value > hi)
        return err_set(err, TP_ERR_INVALID, path, "must be from %lld to %lld (%s), got %lld", (long long)lo,
                       (long long)hi, why, (long long)value);
    return TP_OK;
}

static tp_status validate_moe(const tp_model *m, tp_error *err)
{
    const tp_moe *x = &m->moe;
    if (x->experts == 0) {
        if (x->experts_per_token != 0 || x->expert_ffn_hidden != 0 || x->shared_experts != 0
            || x->shared_ffn_hidden != 0 || x->first_dense != 0 || x->every != 0)
            return err_set(err, TP_ERR_INVALID, "model.moe.experts",
                           "must be given (at least 1) with the other model.moe fields");
        return TP_OK;
    }
    if (m->arch != TP_ARCH_LLAMA)
        return err_set(err, TP_ERR_INVALID, "model.moe", "needs arch llama: experts are SwiGLU MLPs here");
    TRY(check_between(x->experts_per_token, 1, x->experts, "model.moe.experts_per_token", "top-k of the experts",
                      err));
    TRY(check_between(x->expert_ffn_hidden, 1, 10000000, "model.moe.expert_ffn_hidden", "an expert's width",
                      err));
    if (x->shared_experts > 0)
        TRY(check_between(x->shared_ffn_hidden, 1, 10000000, "model.moe.shared_ffn_hidden",
                          "a shared expert's width", err));
    else if (x->shared_ffn_hidden != 0)
        return err_set(err, TP_ERR_INVALID, "model.moe.shared_ffn_hidden",
                       "applies only with model.moe.shared_experts above 0");
    TRY(check_between(x->every, 1, m->layers, "model.moe.every", "at most model.layers", err));
    TRY(check_between(x->first_dense, 0, m->layers - 1, "model.moe.first_dense", "model.layers - 1 at most",
                      err));
    if (model_moe_layers_in(m, 0, m->layers) == 0)
        return err_set(err, TP_ERR_INVALID, "model.moe.every", "leaves no MoE layer after the %lld dense ones",
                       (long long)x->first_dense);
    return TP_OK;
}

static tp_status validate_gqa(const tp_model *m, tp_error *err)
{
    const tp_mla *x = &m->mla;
    if (x->q_lora_rank != 0 || x->kv_lora_rank != 0 || x->qk_nope_head_dim != 0 || x->qk_rope_head_dim != 0
        || x->v_head_dim != 0)
        return err_set(err, TP_ERR_INVALID, "model.mla", "is read only with model.attention \"mla\"");
    if (m->head_dim == 0 && m->hidden % m->heads != 0)
        return err_set(err, TP_ERR_INVALID, "model.heads",
                       "%lld does not divide model.hidden=%lld (or set model.head_dim)", (long long)m->heads,
                       (long long)m->hidden);
    if (m->heads % m->kv_heads != 0)
        return err_set(err, TP_ERR_INVALID, "model.kv_heads",
                       "%lld does not divide model.heads=%lld (grouped-query attention needs equal groups)",
                       (long long)m->kv_heads, (long long)m->heads);
    return TP_OK;
}

/* Latent attention: latents no wider than the hidden state they compress,
 * head sizes of its own, and a key and value per head. */
static tp_status validate_mla(const tp_model *m, tp_error *err)
{
    const tp_mla *x = &m->mla;
    if (m->arch != TP_ARCH_LLAMA)
        return err_set(err, TP_ERR_INVALID, "model.attention",
                       "mla needs arch llama: its latents have RMSNorms and its keys rotary parts");
    if (m->head_dim != 0)
        return err_set(err, TP_ERR_INVALID, "model.head_dim",
                       "must be 0 with mla attention, whose head sizes are in model.mla");
    TRY(check_between(x->q_lora_rank, 0, m->hidden, "model.mla.q_lora_rank", "0: no query latent; at most model.hidden",
                      err));
    TRY(check_between(x->kv_lora_rank, 1, m->hidden, "model.mla.kv_lora_rank", "at most model.hidden", err));
    TRY(check_between(x->qk_nope_head_dim, 1, 4096, "model.mla.qk_nope_head_dim", "per head", err));
    TRY(check_between(x->v_head_dim, 1, 4096, "model.mla.v_head_dim", "per head", err));
    if (m->kv_heads != m->heads)
        return err_set(err, TP_ERR_INVALID, "model.kv_heads",
                       "must equal model.heads=%lld with mla attention: every head has its own key and value",
                       (long long)m->heads);
    return TP_OK;
}

/* At least tp_model_params_total, in floating point and with few
 * operations (validation runs on every estimate): every layer counted
 * with its dense MLP, its experts and the larger of the two attentions'
 * terms, so the product of in-bounds fields cannot pass unseen. */
static double params_upper_bound(const tp_model *m)
{
    const double h = (double)m->hidden, a = (double)m->heads;
    const tp_mla *x = &m->mla;
    const double qk = (double)(x->qk_nope_head_dim + x->qk_rope_head_dim);
    const double latent = (double)(x->q_lora_rank + x->kv_lora_rank + x->qk_rope_head_dim);
    const double mla = h * latent + latent + (latent + h) * a * (qk + (double)x->v_head_dim)
                     + a * (double)x->v_head_dim * h;
    const double heads_width = ((double)m->heads + (double)m->kv_heads) * (double)m->head_dim;
    const double attention = 4.0 * h * h + 4.0 * h + mla + 2.0 * (h + 1.0) * heads_width;
    const tp_moe *e = &m->moe;
    const double experts = 3.0 * h * ((double)e->experts * (double)e->expert_ffn_hidden
                                      + (double)e->shared_experts * (double)e->shared_ffn_hidden)
                         + (double)e->experts * h;
    const double layer = attention + 3.0 * h * (double)m->ffn_hidden + (double)m->ffn_hidden + experts + 8.0 * h;
    return (double)m->layers * layer + 2.0 * (h + 1.0) * ((double)m->vocab + (double)m->patch_dim + 1.0)
         + h * (double)m->positions;
}

/* What each architecture reads: llama rotary positions and a vocabulary;
 * gpt learned positions and a vocabulary; vit patches, no vocabulary. */
static tp_status validate_arch(const tp_model *m, tp_error *err)
{
    if (m->arch == TP_ARCH_LLAMA && m->positions != 0)
        return err_set(err, TP_ERR_INVALID, "model.positions", "must be 0 for llama, which uses rotary positions");
    if (m->arch == TP_ARCH_GPT && m->positions == 0)
        return err_set(err, TP_ERR_INVALID, "model.positions",
                       "is required for gpt: the rows of its learned position embedding");
    if (m->arch != TP_ARCH_VIT) {
        if (m->patch_dim != 0)
            return err_set(err, TP_ERR_INVALID, "model.patch_dim", "applies only to arch vit (%s reads tokens of model.vocab)",
                           m->arch == TP_ARCH_GPT ? "gpt" : "llama");
        return check_between(m->vocab, 1, 100000000, "model.vocab", "tokens", err);
    }
    if (m->vocab != 0)
        return err_set(err, TP_ERR_INVALID, "model.vocab",
                       "must be 0 for vit: an encoder reads patches (model.patch_dim), not tokens");
    if (m->tied_embeddings)
        return err_set(err, TP_ERR_INVALID, "model.tied_embeddings",
                       "must be false for vit: its patch embedding and head are separate linears");
    return check_between(m->patch_dim, 1, 10000000, "model.patch_dim", "values per patch, required for vit", err);
}

static tp_status validate_model(const tp_model *m, tp_error *err)
{
    TRY(validate_arch(m, err));
    if (m->window_tokens > 0 && !model_causal(m))
        return err_set(err, TP_ERR_INVALID, "model.window_tokens",
                       "applies to decoders: a vit encoder attends over every patch");
    TRY(m->attention == TP_ATTENTION_MLA ? validate_mla(m, err) : validate_gqa(m, err));
    TRY(validate_moe(m, err));
    /* every field is bounded, but not their product: the exact parameter
     * count (tp_model_params_total) must stay far inside int64 */
    const double params = params_upper_bound(m);
    if (!(params <= 1e15))
        return err_set(err, TP_ERR_INVALID, "model", "has about %.3g parameters, above the limit of 1e15", params);
    return TP_OK;
}

/* ===================== training and the tp algorithm ===================== */

/* Why training.recompute "selective_op" is not modelled for this config,
 * or NULL: the per-op policy is read off torchtitan's dense Llama block
 * (memory.c, model.c), whose matrix multiplies it counts one by one. The
 * search asks the same question before it offers the mode (search.c). */
const char *recompute_op_refusal(const tp_config *c)
{
    if (c->model.moe.experts > 0)
        return "selective_op is modelled for dense layers only: a MoE layer's router and grouped expert "
               "multiplies change which outputs the per-op policy keeps; use selective or full";
    if (c->model.attention == TP_ATTENTION_MLA)
        return "selective_op is not modelled for mla attention (its latent projections are more multiplies "
               "to count); use selective or full";
    if (!c->training.flash_attention)
        return "selective_op keeps the flash attention kernel's output; without training.flash_attention "
               "the scores' products are recomputed, which is not modelled";
    if (c->plan.tp_algorithm == TP_TP_SUMMA)
        return "selective_op is modelled with megatron tensor parallelism, not summa";
    return NULL;
}

/* FP8 parameters as Megatron-LM allows them (megatron/training/
 * arguments.py): --fp8-param-gather needs fp8 compute and is "only
 * supported with distributed optimizer, torch fsdp2, megatron fsdp", whose
 * fp32 master weights the optimizer updates and casts to the fp8 weights
 * (the sharding: validate_plan_mechanisms). */
static tp_status validate_fp8_params(const tp_config *c, tp_error *err)
{
    const tp_training *t = &c->training;
    if (!t->fp8_params)
        return TP_OK;
    if (!t->fp8)
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8_params", "needs training.precision.fp8");
    if (!t->master_weights)
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8_params",
                       "needs training.precision.master_weights: the optimizer updates the fp32 master "
                       "copy and casts it to the fp8 weights");
    return TP_OK;
}

/* Megatron-Core's recompute_modules belong to its selective granularity:
 * beside none or selective (the attention core), not full recompute (which
 * re-runs everything) or torchtitan's per-op policy; each needs what it
 * recomputes. */
static tp_status validate_recompute_modules(const tp_config *c, tp_error *err)
{
    const tp_training *t = &c->training;
    if (!model_recompute_modules_set(t))
        return TP_OK;
    const char *set = t->recompute_mlp ? "training.recompute_mlp"
                    : t->recompute_norms ? "training.recompute_norms"
                    : t->recompute_mla_up_proj ? "training.recompute_mla_up_proj" : "training.recompute_moe_act";
    if (t->recompute_elementwise)
        return err_set(err, TP_ERR_INVALID, set, "Megatron-Core's recompute modules do not go with "
                       "training.recompute_elementwise (torch.compile's partitioner, on by default "
                       "for torchtitan with training.eager false), which already rebuilds the norms' "
                       "outputs and the activation's product; set one of them");
    if (!model_recompute_takes_modules(t->recompute))
        return err_set(err, TP_ERR_INVALID, set, "applies with training.recompute \"none\" or \"selective\", "
                       "not \"%s\", which decides what every layer keeps", tp_recompute_str(t->recompute));
    if (t->recompute_mla_up_proj && c->model.attention != TP_ATTENTION_MLA)
        return err_set(err, TP_ERR_INVALID, "training.recompute_mla_up_proj",
                       "needs model.attention \"mla\" (latent attention)");
    if (t->recompute_moe_act && c->model.moe.experts == 0)
        return err_set(err, TP_ERR_INVALID, "training.recompute_moe_act", "needs a MoE model (model.moe.experts)");
    return TP_OK;
}

static tp_status validate_training(const tp_config *c, tp_error *err)
{
    const tp_training *t = &c->training;
    const tp_model *m = &c->model;
    if (t->fp8 && !gpu_fp8_tensor_cores(&c->system.gpu))
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8",
                       "%s has no FP8 tensor cores (system.gpu.fp8_tflops is 0)", c->system.gpu.name);
    if (t->fp4 && !t->fp8)
        return err_set(err, TP_ERR_INVALID, "training.precision.fp4",
                       "needs training.precision.fp8: NVFP4 runs through the same Transformer Engine layers");
    if (t->fp4 && !gpu_blackwell_tensor_cores(&c->system.gpu))
        return err_set(err, TP_ERR_INVALID, "training.precision.fp4",
                       "%s has no FP4 tensor cores (system.gpu.fp4_tflops is 0)", c->system.gpu.name);
    if (t->fp8 && t->fp8_recipe == TP_FP8_MXFP8 && !gpu_blackwell_tensor_cores(&c->system.gpu))
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8_recipe",
                       "mxfp8 needs block-scaled tensor cores (Blackwell), which %s lacks "
                       "(system.gpu.fp4_tflops is 0)", c->system.gpu.name);
    if (t->fp8 && t->weights_dtype == TP_DTYPE_FP32)
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8",
                       "fp8 compute keeps bf16 or fp16 weights, not fp32");
    if (t->document_tokens > t->seq_len)
        return err_set(err, TP_ERR_INVALID, "training.document_tokens",
                       "%lld is longer than training.seq_len=%lld: documents are packed into a sample",
                       (long long)t->document_tokens, (long long)t->seq_len);
    if (t->document_tokens > 0 && !t->flash_attention)
        return err_set(err, TP_ERR_INVALID, "training.document_tokens",
                       "needs training.flash_attention: only a fused kernel's variable-length mode "
                       "skips the scores between documents");
    if (t->micro_batch > t->global_batch)
        return err_set(err, TP_ERR_INVALID, "training.micro_batch", "%lld is larger than training.global_batch=%lld",
                       (long long)t->micro_batch, (long long)t->global_batch);
    if (m->positions > 0 && t->seq_len > m->positions)
        return err_set(err, TP_ERR_INVALID, "training.seq_len",
                       "%lld is longer than model.positions=%lld learned positions", (long long)t->seq_len,
                       (long long)m->positions);
    if (t->recompute_layers != 0 && t->recompute != TP_RECOMPUTE_FULL)
        return err_set(err, TP_ERR_INVALID, "training.recompute_layers",
                       "applies only with training.recompute \"full\"");
    TRY(validate_fp8_params(c, err));
    TRY(validate_recompute_modules(c, err));
    if (t->offload_layers >= m->layers)
        return err_set(err, TP_ERR_INVALID, "training.offload_layers",
                       "must be below model.layers=%lld: the last layer is never offloaded (Transformer "
                       "Engine's cpu_offload; Megatron-Core asks for fewer than num_layers)",
                       (long long)m->layers);
    return TP_OK;
}

/* SUMMA is modelled for dense GQA layers (the GPT and ViT blocks of
 * Subramanian et al. 2024); its panels cut every multiply's inner
 * dimension. */
static tp_status validate_tp_algorithm(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const tp_model *m = &c->model;
    if (p->tp_algorithm == TP_TP_MEGATRON) {
        if (p->summa_panels != 0)
            return err_set(err, TP_ERR_INVALID, "parallel.summa_panels",
                           "applies only with parallel.tp_algorithm \"summa\"");
        return TP_OK;
    }
    if (m->moe.experts > 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp_algorithm",
                       "summa is modelled for dense models only; use megatron");
    if (m->attention == TP_ATTENTION_MLA)
        return err_set(err, TP_ERR_INVALID, "parallel.tp_algorithm", "summa is not modelled for mla attention; use megatron");
    if (p->summa_panels != 0 && !model_summa_panels_fit(m, p->summa_panels))
        return err_set(err, TP_ERR_INVALID, "parallel.summa_panels",
                       "%lld does not divide both model.hidden=%lld and model.ffn_hidden=%lld",
                       (long long)p->summa_panels, (long long)m->hidden, (long long)m->ffn_hidden);
    return TP_OK;
}

tp_status valid_inputs(const tp_config *c, tp_error *err)
{
    TRY(fields_check(c, err));
    TRY(validate_model(&c->model, err));
    TRY(validate_training(c, err));
    return validate_tp_algorithm(c, err);
}

/* ===================== the plan ===================== */

/* Subramanian et al. 2024 §III-A S3: each group puts a divisor of its size on a
 * node, and the node's GPUs are exactly the product (a job smaller than a
 * node fills it with the whole grid). */
static tp_status validate_per_node(const tp_config *c, int64_t dp, tp_error *err)
{
    static const char *const paths[4] = {"parallel.per_node.tp", "parallel.per_node.cp", "parallel.per_node.dp",
                                         "parallel.per_node.pp"};
    const tp_plan *p = &c->plan;
    if (!plan_places_explicitly(p))
        return TP_OK;
    const int64_t size[4] = {p->tp, p->cp, dp, p->pp};
    int64_t product = 1;
    for (int d = 0; d < 4; d++) {
        TRY(check_between(p->per_node[d], 1, c->system.gpus_per_node, paths[d], "at most system.gpus_per_node", err));
        if (size[d] % p->per_node[d] != 0)
            return err_set(err, TP_ERR_INVALID, paths[d], "%lld does not divide the group's size %s=%lld",
                           (long long)p->per_node[d], tp_dim_str((tp_dim)d), (long long)size[d]);
        product *= p->per_node[d];
    }
    const int64_t node = c->system.gpus < c->system.gpus_per_node ? c->system.gpus : c->system.gpus_per_node;
    if (product != node)
        return err_set(err, TP_ERR_INVALID, "parallel.per_node",
                       "the ranks per node multiply to %lld, not to the %lld GPUs of a node "
                       "(a node holds one block of the rank grid)", (long long)product, (long long)node);
    return TP_OK;
}

static tp_status validate_order(const tp_plan *p, tp_error *err)
{
    int seen = 0;
    for (int i = 0; i < 4; i++) {
        if (p->order[i] < TP_DIM_TP || p->order[i] > TP_DIM_PP || (seen & (1 << p->order[i])))
            return err_set(err, TP_ERR_INVALID, "parallel.order", "must name tp, cp, dp and pp once each");
        seen |= 1 << p->order[i];
    }
    return TP_OK;
}

static tp_status validate_experts(const tp_config *c, int64_t dp, tp_error *err)
{
    const tp_plan *p = &c->plan;
    if (c->model.moe.experts == 0) {
        if (p->ep != 1)
            return err_set(err, TP_ERR_INVALID, "parallel.ep", "must be 1 for a dense model (no model.moe)");
        if (p->etp > 1)
            return err_set(err, TP_ERR_INVALID, "parallel.etp", "applies only to a MoE model (model.moe)");
        if (p->ep_overlap)
            return err_set(err, TP_ERR_INVALID, "parallel.ep_overlap", "applies only to a MoE model (model.moe)");
        if (p->ep_dispatcher != TP_EP_DISPATCHER_ALLTOALL)
            return err_set(err, TP_ERR_INVALID, "parallel.ep_dispatcher", "applies only to a MoE model (model.moe)");
        return TP_OK;
    }
    TRY(valid_expert_grid(&c->model.moe, p->ep, plan_expert_tp(p), p->tp * p->cp * dp, err));
    if (p->tp > 1 && !p->sp)
        return err_set(err, TP_ERR_INVALID, "parallel.sp",
                       "must be on for a MoE model with tp > 1 (its experts take sequence-parallel tokens)");
    if (p->sharding == TP_SHARD_AMSP)
        return err_set(err, TP_ERR_INVALID, "parallel.sharding", "amsp is not modelled for MoE models; use zero or fsdp");
    return TP_OK;
}

/* The shape: the rules the search prunes by, and the schedule's own. */
static tp_status validate_shape(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const tp_model *m = &c->model;
    TRY(valid_tp_split(m, p->tp, err));
    TRY(valid_layers(m->layers, p->pp, 1, p->first_stage_layers, p->last_stage_layers, err));
    TRY(valid_cp_sequence(m, c->training.seq_len, p->cp, err));
    /* tp, pp, cp are each at most 10^6 and gpus at most 10^7: no overflow */
    const int64_t model_parallel = p->tp * p->pp * p->cp;
    if (c->system.gpus % model_parallel != 0)
        return err_set(err, TP_ERR_INVALID, "system.gpus", "%lld is not a multiple of tp*pp*cp=%lld",
                       (long long)c->system.gpus, (long long)model_parallel);
    const int64_t dp = c->system.gpus / model_parallel;
    TRY(valid_batch(c->training.global_batch, c->training.micro_batch, dp, err));
    if (c->training.recompute_layers != 0 && c->training.recompute_layers > plan_most_stage_layers(c))
        return err_set(err, TP_ERR_INVALID, "training.recompute_layers",
                       "must be from 1 to the %lld layers of the largest pipeline stage (a stage with fewer "
                       "recomputes them all), or 0 for all", (long long)plan_most_stage_layers(c));
    if (p->schedule != TP_SCHEDULE_INTERLEAVED && p->virtual_stages != 1)
        return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                       "must be 1 unless parallel.schedule is \"interleaved\"");
    if (p->schedule == TP_SCHEDULE_INTERLEAVED && p->pp < 2)
        return err_set(err, TP_ERR_INVALID, "parallel.schedule", "interleaved needs parallel.pp of at least 2");
    if (p->schedule == TP_SCHEDULE_INTERLEAVED && p->virtual_stages < 2)
        return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                       "interleaved needs at least 2 model chunks per GPU");
    if (p->virtual_stages > 1) /* with one chunk, checked above */
        TRY(valid_layers(m->layers, p->pp, p->virtual_stages, p->first_stage_layers, p->last_stage_layers, err));
    return valid_interleave(p->pp, p->virtual_stages, c->training.global_batch / (c->training.micro_batch * dp),
                            err);
}

/* Chen et al. (AMSP) §IV-B: each factor divides the data-parallel extent
 * of its mesh axis (eq. 5-6), and s_p <= s_g <= s_os on each axis (eq. 3-4),
 * so every rank holds the gradients and optimizer states of its own
 * parameters. */
static tp_status validate_amsp(const tp_config *c, int64_t dp, tp_error *err)
{
    static const char *const paths[3][2] = {
        {"parallel.amsp.weights[0]", "parallel.amsp.weights[1]"},
        {"parallel.amsp.gradients[0]", "parallel.amsp.gradients[1]"},
        {"parallel.amsp.optimizer[0]", "parallel.amsp.optimizer[1]"},
    };
    const int64_t n = plan_replicas(&c->plan, dp);
    const int64_t intra = plan_intra_node_dp(c, dp);
    if (n % intra != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.amsp",
                       "the %lld ranks that share parameters do not form an intra x inter node mesh "
                       "(%lld per node)", (long long)n, (long long)intra);
    const int64_t extent[2] = {intra, n / intra};
    for (int axis = 0; axis < 2; axis++) {
        for (int state = 0; state < 3; state++) {
            const int64_t f = c->plan.amsp[state][axis];
            TRY(check_between(f, 1, extent[axis], paths[state][axis],
                              axis == 0 ? "the intra-node extent" : "the inter-node extent", err));
            if (extent[axis] % f != 0)
                return err_set(err, TP_ERR_INVALID, paths[state][axis], "%lld does not divide the %s data-parallel extent %lld",
                               (long long)f, axis == 0 ? "intra-node" : "inter-node", (long long)extent[axis]);
            if (state > 0 && f < c->plan.amsp[state - 1][axis])
                return err_set(err, TP_ERR_INVALID, paths[state][axis],
                               "%lld is smaller than the %s factor %lld; AMSP's dependency rule needs "
                               "weights <= gradients <= optimizer", (long long)f,
                               state == 1 ? "weights" : "gradients", (long long)c->plan.amsp[state - 1][axis]);
        }
    }
    return TP_OK;
}

static tp_status validate_sharding(const tp_config *c, int64_t dp, tp_error *err)
{
    const tp_plan *p = &c->plan;
    if (p->sharding == TP_SHARD_FSDP_HYBRID)
        return valid_shard_group(plan_replicas(p, dp), p->shard_group > 0 ? p->shard_group : plan_intra_node_dp(c, dp),
                                 err);
    if (p->sharding == TP_SHARD_AMSP)
        return validate_amsp(c, dp, err);
    return TP_OK;
}

/* What the plan must be for the two mechanisms Megatron-Core restricts,
 * here and not in valid_inputs because a search chooses the plan (it
 * offers only plans that pass: search.c). Activation offloading
 * (transformer_config.py, __post_init__): "no support for Pipeline
 * parallelism with CPU offloading", and "CPU offloading does not work when
 * activation recomputation is enabled" (any recompute_granularity). FP8
 * parameters: the optimizer sharded (Megatron-LM's distributed optimizer
 * or FSDP). */
static tp_status validate_plan_mechanisms(const tp_config *c, tp_error *err)
{
    if (c->training.offload_layers > 0 && c->plan.pp != 1)
        return err_set(err, TP_ERR_INVALID, "training.offload_layers",
                       "needs parallel.pp 1: Megatron-Core has no pipeline parallelism with cpu offloading");
    if (c->training.offload_layers > 0 && c->training.recompute != TP_RECOMPUTE_NONE)
        return err_set(err, TP_ERR_INVALID, "training.offload_layers",
                       "needs training.recompute \"none\": Megatron-Core's cpu offloading does not work "
                       "with activation recomputation");
    if (c->training.fp8_params && c->plan.sharding == TP_SHARD_ZERO && c->plan.zero == 0)
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8_params",
                       "needs a sharded optimizer (parallel.zero 1 or more, or fsdp): Megatron-LM's "
                       "--fp8-param-gather runs with its distributed optimizer or FSDP only");
    return TP_OK;
}

tp_status tp_config_validate(const tp_config *c, tp_error *err)
{
    TRY(valid_inputs(c, err));
    /* here, not in valid_inputs: a search tries recompute modes itself */
    const char *op = c->training.recompute == TP_RECOMPUTE_SELECTIVE_OP ? recompute_op_refusal(c) : NULL;
    if (op != NULL)
        return err_set(err, TP_ERR_INVALID, "training.recompute", "%s", op);
    const tp_plan *p = &c->plan;
    TRY(validate_plan_mechanisms(c, err));
    TRY(validate_order(p, err));
    if (p->tp_algorithm == TP_TP_SUMMA && p->tp > 1 && !p->sp)
        return err_set(err, TP_ERR_INVALID, "parallel.sp",
                       "must be true with SUMMA: it keeps every activation split over tp "
                       "(Subramanian et al. 2024, Table A2), sequence parallelism's layout");
    TRY(validate_shape(c, err));
    const int64_t dp = c->system.gpus / (p->tp * p->pp * p->cp);
    TRY(validate_per_node(c, dp, err));
    TRY(validate_experts(c, dp, err));
    return validate_sharding(c, dp, err);
}
