/*
 * plan.c: defaults and validation of a configuration.
 *
 * Every field has a documented range; every parallel size must divide what it
 * splits. Each failure names the JSON path of the field at fault, so a user
 * interface can mark it, and says the reason in words. The bounds keep every
 * count exact in int64 and every byte count finite in double (issue 7 widens
 * the list; these are the ones the estimate relies on today).
 */
#include <string.h>

#include "tp_internal.h"

void tp_config_defaults(tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->model = *tp_model_preset_find("llama-3.1-8b");
    c->system.gpu = *tp_gpu_preset_find("h100-80gb");
    c->system.gpus = 8;
    c->system.gpus_per_node = 8;
    c->system.network = tp_cluster_preset_find("dgx-h100")->network;
    c->system.loader_bytes_per_s = TP_LOADER_BYTES_PER_S;
    c->system.step_overhead_s = TP_STEP_OVERHEAD_S;
    c->training.seq_len = 8192;
    c->training.global_batch = 1024;
    c->training.micro_batch = 1;
    c->training.weights_dtype = TP_DTYPE_BF16;
    c->training.gradients_dtype = TP_DTYPE_FP32;
    c->training.optimizer_dtype = TP_DTYPE_FP32;
    c->training.master_weights = 1;
    c->training.optimizer = TP_OPT_ADAM;
    c->training.recompute = TP_RECOMPUTE_NONE;
    c->training.flash_attention = 1;
    c->training.capacity_factor = 1.0;
    c->training.train_tokens = 1e12;
    c->training.gpu_hour_cost = 0.0; /* 0: no price given, no cost reported */
    c->plan.tp = 1;
    c->plan.pp = 1;
    c->plan.cp = 1;
    c->plan.sp = 1;
    c->plan.ep = 1;
    c->plan.etp = 0; /* as tp */
    c->plan.zero = 1;
    c->plan.sharding = TP_SHARD_ZERO;
    for (int i = 0; i < 3; i++)
        c->plan.amsp[i][0] = c->plan.amsp[i][1] = 1;
    c->plan.schedule = TP_SCHEDULE_1F1B;
    c->plan.virtual_stages = 1;
    memcpy(c->plan.order, plan_megatron_order, sizeof c->plan.order);
    c->overheads = plan_default_overheads();
}

/*
 * The overheads every estimate adds unless the config overrides them. Each is
 * a physical quantity, set once for all GPUs and never per table:
 *   cuda_context   739 MiB: measured on an H100 with PyTorch 2.11 after the
 *                  first bf16 matmul (context, kernels, cuBLAS workspace;
 *                  tests/device/h100_probe_2026-11-22.json)
 *   nccl           128 MiB per communicator of size > 1: NCCL_BUFFSIZE 4 MiB
 *                  x 16 channels x send and receive (NCCL's defaults)
 *   loss           6 B per logit: Megatron's vocab-parallel cross entropy as
 *                  it long was (out-of-place max subtraction) holds the bf16
 *                  logits (2 B), their fp32 copy (4 B) and the max-shifted
 *                  fp32 copy (4 B) at once; eq. 14 counts one 4 B. Newer
 *                  Megatron core subtracts in place (2 B beyond eq. 14), but
 *                  seed 003's out-of-memory cells want the 6 B: with 2 B,
 *                  test_seed003_oom's false fits go from 8 to 17
 *   backward       1 layer: the gradients of one layer's activations exist
 *                  while its backward runs
 *   fragmentation  5% of activation memory: PyTorch caching-allocator slack
 *   bucket         40 M parameters: Megatron DDP's minimum bucket
 *   prefetch       1 layer gathered ahead (FSDP's default backward prefetch)
 */
tp_overheads plan_default_overheads(void)
{
    tp_overheads o;
    o.cuda_context_bytes = 739.0 * 1048576.0;
    o.nccl_bytes_per_group = 128.0 * 1048576.0;
    o.loss_bytes_per_logit = 6.0;
    o.backward_layers = 1.0;
    o.fragmentation_fraction = 0.05;
    o.bucket_params = 40e6;
    o.prefetch_layers = 1;
    return o;
}

int64_t plan_cp_weight_split(const tp_plan *p)
{
    return p->tp_algorithm == TP_TP_SUMMA ? p->cp : 1;
}

int64_t plan_replicas(const tp_plan *p, int64_t dp)
{
    return p->tp_algorithm == TP_TP_SUMMA ? dp : dp * p->cp;
}

int plan_places_explicitly(const tp_plan *p)
{
    return p->per_node[0] != 0 || p->per_node[1] != 0 || p->per_node[2] != 0 || p->per_node[3] != 0;
}

const tp_dim plan_megatron_order[4] = {TP_DIM_TP, TP_DIM_CP, TP_DIM_DP, TP_DIM_PP};

void plan_order_ranks_per_node(const tp_dim order[4], const int64_t size[4], int64_t gpus_per_node,
                               int64_t out[4])
{
    int64_t stride = 1;
    for (int i = 0; i < 4; i++) {
        out[order[i]] = net_ranks_per_node(size[order[i]], stride, gpus_per_node);
        stride *= size[order[i]];
    }
}

void plan_ranks_per_node(const tp_config *c, int64_t dp, int64_t out[4])
{
    if (plan_places_explicitly(&c->plan)) {
        memcpy(out, c->plan.per_node, sizeof c->plan.per_node);
        return;
    }
    const int64_t size[4] = {c->plan.tp, c->plan.cp, dp, c->plan.pp};
    plan_order_ranks_per_node(c->plan.order, size, c->system.gpus_per_node, out);
}

int64_t plan_intra_node_dp(const tp_config *c, int64_t dp)
{
    /* Megatron orders ranks tp fastest, then cp, then dp: the dp*cp ranks
     * sharing a tp rank sit tp apart, so a node of R GPUs holds R/tp of
     * them. With SUMMA the dp replicas sit tp*cp apart. */
    const int64_t group = plan_replicas(&c->plan, dp);
    const int64_t stride = c->plan.tp * plan_cp_weight_split(&c->plan);
    const int64_t r = c->system.gpus_per_node;
    if (r % stride != 0)
        return 1;
    return r / stride < group ? r / stride : group;
}

static int64_t gcd_i64(int64_t a, int64_t b)
{
    while (b != 0) {
        const int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Each factor of the dense states, restated over the experts' edp
 * replicas: a state split over all dp*cp ranks splits over all edp; a
 * hybrid group, one of n / g instances (Megatron's distributed-optimizer
 * instances), over as many instances of edp, so a group that fills a
 * node does for the experts too; where edp does not split so, over the
 * part of the group edp can hold. */
static int64_t expert_factor(int64_t dense_factor, int64_t n, int64_t edp)
{
    if (dense_factor == 1)
        return 1;
    if (dense_factor == n)
        return edp;
    const int64_t instances = n / dense_factor;
    if (n % dense_factor == 0 && edp % instances == 0)
        return edp / instances;
    return gcd_i64(dense_factor, edp);
}

int64_t plan_expert_tp(const tp_plan *p)
{
    return p->etp > 0 ? p->etp : p->tp;
}

plan_shards plan_shard_factors(const tp_config *c, int64_t dp)
{
    const int64_t n = plan_replicas(&c->plan, dp);
    const tp_plan *p = &c->plan;
    plan_shards s = {1, 1, 1, 0, 1, 1, 1, 1, 1, 1};
    if (c->model.moe.experts > 0) {
        s.ep = p->ep;
        s.etp = plan_expert_tp(p);
        s.edp = p->tp * n / (s.ep * s.etp);
    }
    switch (p->sharding) {
    case TP_SHARD_ZERO:
        s.optimizer = p->zero >= 1 ? n : 1;
        s.gradients = p->zero >= 2 ? n : 1;
        s.weights = p->zero >= 3 ? n : 1;
        break;
    case TP_SHARD_FSDP_FULL:
        s.weights = s.gradients = s.optimizer = n;
        break;
    case TP_SHARD_FSDP_GRAD_OP:
        s.gradients = s.optimizer = n;
        break;
    case TP_SHARD_FSDP_HYBRID:
        s.group = p->shard_group > 0 ? p->shard_group : plan_intra_node_dp(c, dp);
        s.weights = s.gradients = s.optimizer = s.group;
        break;
    case TP_SHARD_AMSP:
        s.weights = p->amsp[0][0] * p->amsp[0][1];
        s.gradients = p->amsp[1][0] * p->amsp[1][1];
        s.optimizer = p->amsp[2][0] * p->amsp[2][1];
        break;
    }
    s.expert_weights = expert_factor(s.weights, n, s.edp);
    s.expert_gradients = expert_factor(s.gradients, n, s.edp);
    s.expert_optimizer = expert_factor(s.optimizer, n, s.edp);
    return s;
}

/* A bounded positive integer field. */
static tp_status check_count(int64_t value, int64_t max, const char *path, tp_error *err)
{
    if (value < 1)
        return err_set(err, TP_ERR_INVALID, path, "must be a positive integer, got %lld",
                       (long long)value);
    if (value > max)
        return err_set(err, TP_ERR_INVALID, path, "%lld is above the limit of %lld",
                       (long long)value, (long long)max);
    return TP_OK;
}

/* A positive finite rate or capacity, below max. */
static tp_status check_positive(double value, double max, const char *path, tp_error *err)
{
    if (!(value > 0.0) || !(value <= max))
        return err_set(err, TP_ERR_INVALID, path, "must be a positive number no larger than %g",
                       max);
    return TP_OK;
}

/* divisor must divide value; both already known positive. */
static tp_status check_divides(int64_t divisor, const char *divisor_path, int64_t value,
                               const char *value_name, tp_error *err)
{
    if (value % divisor != 0)
        return err_set(err, TP_ERR_INVALID, divisor_path, "%lld does not divide %s=%lld",
                       (long long)divisor, value_name, (long long)value);
    return TP_OK;
}

static tp_status check_flag(int value, const char *path, tp_error *err)
{
    if (value != 0 && value != 1)
        return err_set(err, TP_ERR_INVALID, path, "must be true or false");
    return TP_OK;
}

/* A non-negative finite amount, at most max. */
static tp_status check_amount(double value, double max, const char *path, tp_error *err)
{
    if (!(value >= 0.0) || !(value <= max))
        return err_set(err, TP_ERR_INVALID, path, "must be a number from 0 to %g", max);
    return TP_OK;
}

/* An efficiency: a fraction in (0, 1]. */
static tp_status check_fraction(double value, const char *path, tp_error *err)
{
    if (!(value > 0.0) || !(value <= 1.0))
        return err_set(err, TP_ERR_INVALID, path, "must be a fraction above 0 and at most 1");
    return TP_OK;
}

static tp_status validate_moe(const tp_model *m, tp_error *err)
{
    const tp_moe *x = &m->moe;
    if (x->experts == 0) {
        if (x->experts_per_token != 0 || x->expert_ffn_hidden != 0 || x->shared_experts != 0
            || x->first_dense != 0)
            return err_set(err, TP_ERR_INVALID, "model.moe.experts",
                           "must be given (at least 1) with the other model.moe fields");
        return TP_OK;
    }
    TRY(check_count(x->experts, 100000, "model.moe.experts", err));
    if (m->arch != TP_ARCH_LLAMA)
        return err_set(err, TP_ERR_INVALID, "model.moe",
                       "needs arch llama: experts are SwiGLU MLPs here");
    TRY(check_count(x->experts_per_token, x->experts, "model.moe.experts_per_token", err));
    TRY(check_count(x->expert_ffn_hidden, 10000000, "model.moe.expert_ffn_hidden", err));
    if (x->shared_experts < 0 || x->shared_experts > 1000)
        return err_set(err, TP_ERR_INVALID, "model.moe.shared_experts",
                       "must be an integer from 0 to 1000");
    if (x->shared_experts > 0)
        TRY(check_count(x->shared_ffn_hidden, 10000000, "model.moe.shared_ffn_hidden", err));
    TRY(check_count(x->every, m->layers, "model.moe.every", err));
    if (x->first_dense < 0 || x->first_dense >= m->layers)
        return err_set(err, TP_ERR_INVALID, "model.moe.first_dense",
                       "must be from 0 to model.layers - 1 = %lld", (long long)(m->layers - 1));
    if (model_moe_layers_in(m, 0, m->layers) == 0)
        return err_set(err, TP_ERR_INVALID, "model.moe.every",
                       "leaves no MoE layer after the %lld dense ones", (long long)x->first_dense);
    return TP_OK;
}

/* The attention kind and its sizes: gqa needs whole heads and equal
 * key/value groups; mla its latents (no wider than the hidden state, which
 * they compress) and head sizes, and a key and value per head. */
static tp_status validate_attention(const tp_model *m, tp_error *err)
{
    const tp_mla *x = &m->mla;
    if (m->attention == TP_ATTENTION_GQA) {
        if (x->q_lora_rank != 0 || x->kv_lora_rank != 0 || x->qk_nope_head_dim != 0
            || x->qk_rope_head_dim != 0 || x->v_head_dim != 0)
            return err_set(err, TP_ERR_INVALID, "model.mla", "is read only with model.attention \"mla\"");
        if (m->head_dim < 0 || m->head_dim > 4096)
            return err_set(err, TP_ERR_INVALID, "model.head_dim",
                           "must be an integer from 0 (hidden / heads) to 4096");
        if (m->head_dim == 0 && m->hidden % m->heads != 0)
            return err_set(err, TP_ERR_INVALID, "model.heads",
                           "%lld does not divide model.hidden=%lld (or set model.head_dim)",
                           (long long)m->heads, (long long)m->hidden);
        if (m->heads % m->kv_heads != 0)
            return err_set(err, TP_ERR_INVALID, "model.kv_heads",
                           "%lld does not divide model.heads=%lld (grouped-query attention needs equal groups)",
                           (long long)m->kv_heads, (long long)m->heads);
        return TP_OK;
    }
    if (m->attention != TP_ATTENTION_MLA)
        return err_set(err, TP_ERR_INVALID, "model.attention", "unknown attention kind");
    if (m->arch != TP_ARCH_LLAMA)
        return err_set(err, TP_ERR_INVALID, "model.attention",
                       "mla needs arch llama: its latents have RMSNorms and its keys rotary parts");
    if (m->head_dim != 0)
        return err_set(err, TP_ERR_INVALID, "model.head_dim",
                       "must be 0 with mla attention, whose head sizes are in model.mla");
    if (x->q_lora_rank < 0 || x->q_lora_rank > m->hidden)
        return err_set(err, TP_ERR_INVALID, "model.mla.q_lora_rank",
                       "must be an integer from 0 (no query latent) to model.hidden=%lld",
                       (long long)m->hidden);
    TRY(check_count(x->kv_lora_rank, m->hidden, "model.mla.kv_lora_rank", err));
    TRY(check_count(x->qk_nope_head_dim, 4096, "model.mla.qk_nope_head_dim", err));
    if (x->qk_rope_head_dim < 0 || x->qk_rope_head_dim > 4096)
        return err_set(err, TP_ERR_INVALID, "model.mla.qk_rope_head_dim",
                       "must be an integer from 0 to 4096");
    TRY(check_count(x->v_head_dim, 4096, "model.mla.v_head_dim", err));
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
    const double mla = h * latent + latent + (latent + h) * a * (qk + (double)x->v_head_dim) + a * (double)x->v_head_dim * h;
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

static tp_status validate_model(const tp_model *m, tp_error *err)
{
    if (m->arch != TP_ARCH_LLAMA && m->arch != TP_ARCH_GPT && m->arch != TP_ARCH_VIT)
        return err_set(err, TP_ERR_INVALID, "model.arch", "unknown architecture");
    TRY(check_flag(m->tied_embeddings, "model.tied_embeddings", err));
    TRY(check_flag(m->dropout, "model.dropout", err));
    if (m->arch == TP_ARCH_LLAMA && m->positions != 0)
        return err_set(err, TP_ERR_INVALID, "model.positions",
                       "must be 0 for llama, which uses rotary positions");
    if (m->arch == TP_ARCH_GPT)
        TRY(check_count(m->positions, 100000000, "model.positions", err));
    if (m->arch == TP_ARCH_VIT) {
        /* learned positions, or none (0: rotary or none at all) */
        if (m->positions != 0)
            TRY(check_count(m->positions, 100000000, "model.positions", err));
        if (m->vocab != 0)
            return err_set(err, TP_ERR_INVALID, "model.vocab",
                           "must be 0 for vit: an encoder reads patches (model.patch_dim), not tokens");
        if (m->tied_embeddings)
            return err_set(err, TP_ERR_INVALID, "model.tied_embeddings",
                           "must be false for vit: its patch embedding and head are separate linears");
        TRY(check_count(m->patch_dim, 10000000, "model.patch_dim", err));
    } else {
        if (m->patch_dim != 0)
            return err_set(err, TP_ERR_INVALID, "model.patch_dim",
                           "applies only to arch vit (%s reads tokens of model.vocab)",
                           m->arch == TP_ARCH_GPT ? "gpt" : "llama");
        TRY(check_count(m->vocab, 100000000, "model.vocab", err));
    }
    TRY(check_count(m->layers, 10000, "model.layers", err));
    TRY(check_count(m->hidden, 1000000, "model.hidden", err));
    TRY(check_count(m->heads, 100000, "model.heads", err));
    TRY(check_count(m->kv_heads, 100000, "model.kv_heads", err));
    TRY(check_count(m->ffn_hidden, 10000000, "model.ffn_hidden", err));
    TRY(validate_attention(m, err));
    TRY(validate_moe(m, err));
    /* every field is bounded, but not their product: the exact parameter
     * count (tp_model_params_total) must stay far inside int64 */
    const double params = params_upper_bound(m);
    if (!(params <= 1e15))
        return err_set(err, TP_ERR_INVALID, "model",
                       "has about %.3g parameters, above the limit of 1e15", params);
    return TP_OK;
}

static tp_status validate_system(const tp_system *s, tp_error *err)
{
    TRY(check_positive(s->gpu.memory_bytes, 1e15, "system.gpu.memory_gib", err));
    TRY(check_positive(s->gpu.tensor_flop_per_s, 1e18, "system.gpu.tensor_tflops", err));
    TRY(check_positive(s->gpu.hbm_bytes_per_s, 1e15, "system.gpu.hbm_gbps", err));
    TRY(check_positive(s->gpu.nvlink_bytes_per_s, 1e15, "system.gpu.nvlink_gbps", err));
    TRY(check_positive(s->gpu.network_bytes_per_s, 1e15, "system.gpu.network_gbps", err));
    TRY(check_positive(s->gpu.vector_flop_per_s, 1e18, "system.gpu.vector_tflops", err));
    TRY(check_fraction(s->gpu.matmul_efficiency, "system.gpu.matmul_efficiency", err));
    TRY(check_fraction(s->gpu.attention_efficiency, "system.gpu.attention_efficiency", err));
    TRY(check_amount(s->gpu.kernel_latency_s, 1.0, "system.gpu.kernel_latency_us", err));
    TRY(check_amount(s->gpu.overlap_slowdown, 1.0, "system.gpu.overlap_slowdown", err));
    TRY(check_amount(s->gpu.nvlink_overlap_slowdown, 1.0, "system.gpu.nvlink_overlap_slowdown", err));
    TRY(check_amount(s->gpu.compute_spread, 1.0, "system.gpu.compute_spread", err));
    TRY(check_count(s->gpus, 10000000, "system.gpus", err));
    TRY(check_count(s->gpus_per_node, 1024, "system.gpus_per_node", err));
    const tp_network *n = &s->network;
    TRY(check_positive(n->fast.bytes_per_s, 1e15, "system.network.fast_gbps", err));
    TRY(check_amount(n->fast.latency_s, 1.0, "system.network.fast_latency_us", err));
    TRY(check_fraction(n->fast.efficiency, "system.network.fast_efficiency", err));
    TRY(check_positive(n->slow.bytes_per_s, 1e15, "system.network.slow_gbps", err));
    TRY(check_amount(n->slow.latency_s, 1.0, "system.network.slow_latency_us", err));
    TRY(check_fraction(n->slow.efficiency, "system.network.slow_efficiency", err));
    TRY(check_count(n->nics_per_node, 1024, "system.network.nics_per_node", err));
    TRY(check_positive(s->loader_bytes_per_s, 1e15, "system.loader_gbps", err));
    TRY(check_amount(s->step_overhead_s, 3600.0, "system.step_overhead_s", err));
    return TP_OK;
}

static tp_status validate_training(const tp_training *t, const tp_model *m, tp_error *err)
{
    if (t->optimizer < TP_OPT_ADAM || t->optimizer > TP_OPT_ADAM8BIT)
        return err_set(err, TP_ERR_INVALID, "training.optimizer", "unknown optimizer");
    if (t->recompute < TP_RECOMPUTE_NONE || t->recompute > TP_RECOMPUTE_FULL)
        return err_set(err, TP_ERR_INVALID, "training.recompute", "unknown recompute mode");
    TRY(check_flag(t->master_weights, "training.precision.master_weights", err));
    TRY(check_flag(t->fp8, "training.precision.fp8", err));
    TRY(check_flag(t->flash_attention, "training.flash_attention", err));
    TRY(check_flag(t->dataloader_mask, "training.dataloader_mask", err));
    if (t->fp8 && t->weights_dtype == TP_DTYPE_FP32)
        return err_set(err, TP_ERR_INVALID, "training.precision.fp8",
                       "fp8 compute keeps bf16 or fp16 weights, not fp32");
    if (!(t->train_tokens >= 1.0) || !(t->train_tokens <= 1e18))
        return err_set(err, TP_ERR_INVALID, "training.train_tokens",
                       "must be a number of tokens from 1 to 1e18");
    TRY(check_amount(t->gpu_hour_cost, 1e6, "training.gpu_hour_cost", err));
    if (!(t->capacity_factor >= 1.0) || !(t->capacity_factor <= 64.0))
        return err_set(err, TP_ERR_INVALID, "training.capacity_factor",
                       "must be a number from 1 (balanced experts) to 64");
    TRY(check_count(t->seq_len, 100000000, "training.seq_len", err));
    TRY(check_count(t->global_batch, 100000000, "training.global_batch", err));
    TRY(check_count(t->micro_batch, 100000, "training.micro_batch", err));
    if (t->micro_batch > t->global_batch)
        return err_set(err, TP_ERR_INVALID, "training.micro_batch",
                       "%lld is larger than training.global_batch=%lld",
                       (long long)t->micro_batch, (long long)t->global_batch);
    if (m->positions > 0 && t->seq_len > m->positions)
        return err_set(err, TP_ERR_INVALID, "training.seq_len",
                       "%lld is longer than model.positions=%lld learned positions",
                       (long long)t->seq_len, (long long)m->positions);
    return TP_OK;
}

/* Expert parallelism (Megatron-Core's rules): ep splits the experts, etp
 * each expert's width, and the ep x etp grid tiles the tp x cp x dp ranks
 * of a stage; with tp > 1 the MoE layer takes sequence-parallel tokens. */
static tp_status validate_experts(const tp_config *c, int64_t dp, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const tp_moe *x = &c->model.moe;
    TRY(check_count(p->ep, 1000000, "parallel.ep", err));
    if (p->etp != 0)
        TRY(check_count(p->etp, 1000000, "parallel.etp", err));
    if (x->experts == 0) {
        if (p->ep != 1)
            return err_set(err, TP_ERR_INVALID, "parallel.ep", "must be 1 for a dense model (no model.moe)");
        if (p->etp > 1)
            return err_set(err, TP_ERR_INVALID, "parallel.etp", "applies only to a MoE model (model.moe)");
        return TP_OK;
    }
    const int64_t etp = plan_expert_tp(p);
    TRY(check_divides(p->ep, "parallel.ep", x->experts, "model.moe.experts", err));
    TRY(check_divides(etp, "parallel.etp", x->expert_ffn_hidden, "model.moe.expert_ffn_hidden", err));
    if (x->shared_experts > 0)
        TRY(check_divides(p->tp, "parallel.tp", x->shared_ffn_hidden, "model.moe.shared_ffn_hidden", err));
    const int64_t ranks = p->tp * p->cp * dp;
    if (ranks % (p->ep * etp) != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.ep",
                       "ep*etp=%lld does not divide the tp*cp*dp=%lld ranks of a stage",
                       (long long)(p->ep * etp), (long long)ranks);
    if (p->tp > 1 && !p->sp)
        return err_set(err, TP_ERR_INVALID, "parallel.sp",
                       "must be on for a MoE model with tp > 1 (its experts take sequence-parallel tokens)");
    if (p->sharding == TP_SHARD_AMSP)
        return err_set(err, TP_ERR_INVALID, "parallel.sharding",
                       "amsp is not modelled for MoE models; use zero or fsdp");
    return TP_OK;
}

/* Seed 002 §III-A S3: each group puts a divisor of its size on a node, and
 * the node's GPUs are exactly the product (a job smaller than a node fills
 * it with the whole grid). */
static tp_status validate_per_node(const tp_config *c, int64_t dp, tp_error *err)
{
    static const char *const paths[4] = {"parallel.per_node.tp", "parallel.per_node.cp",
                                         "parallel.per_node.dp", "parallel.per_node.pp"};
    const tp_plan *p = &c->plan;
    if (!plan_places_explicitly(p))
        return TP_OK;
    const int64_t size[4] = {p->tp, p->cp, dp, p->pp};
    int64_t product = 1;
    for (int d = 0; d < 4; d++) {
        TRY(check_count(p->per_node[d], c->system.gpus_per_node, paths[d], err));
        if (size[d] % p->per_node[d] != 0)
            return err_set(err, TP_ERR_INVALID, paths[d], "%lld does not divide the group's size %s=%lld",
                           (long long)p->per_node[d], tp_dim_str((tp_dim)d), (long long)size[d]);
        product *= p->per_node[d];
    }
    const int64_t node = c->system.gpus < c->system.gpus_per_node ? c->system.gpus : c->system.gpus_per_node;
    if (product != node)
        return err_set(err, TP_ERR_INVALID, "parallel.per_node",
                       "the ranks per node multiply to %lld, not to the %lld GPUs of a node "
                       "(a node holds one block of the rank grid, seed 002 S3)", (long long)product, (long long)node);
    return TP_OK;
}

static tp_status validate_plan(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const tp_model *m = &c->model;
    int seen = 0;
    for (int i = 0; i < 4; i++) {
        if (p->order[i] < TP_DIM_TP || p->order[i] > TP_DIM_PP || (seen & (1 << p->order[i])))
            return err_set(err, TP_ERR_INVALID, "parallel.order",
                           "must name tp, cp, dp and pp once each");
        seen |= 1 << p->order[i];
    }
    TRY(check_count(p->tp, 1000000, "parallel.tp", err));
    TRY(check_count(p->pp, 10000, "parallel.pp", err));
    TRY(check_count(p->cp, 1000000, "parallel.cp", err));
    if (p->sp != 0 && p->sp != 1)
        return err_set(err, TP_ERR_INVALID, "parallel.sp", "must be true or false");
    if (p->tp_algorithm == TP_TP_SUMMA && p->tp > 1 && !p->sp)
        return err_set(err, TP_ERR_INVALID, "parallel.sp",
                       "must be true with SUMMA: it keeps every activation split over tp "
                       "(seed 002 Table A2), sequence parallelism's layout");
    if (p->zero < 0 || p->zero > 3)
        return err_set(err, TP_ERR_INVALID, "parallel.zero", "must be 0, 1, 2 or 3, got %lld", (long long)p->zero);
    TRY(check_divides(p->tp, "parallel.tp", m->heads, "model.heads", err));
    if (m->kv_heads % p->tp != 0 && p->tp % m->kv_heads != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp",
                       "%lld neither divides nor is a multiple of model.kv_heads=%lld",
                       (long long)p->tp, (long long)m->kv_heads);
    TRY(check_divides(p->tp, "parallel.tp", m->ffn_hidden, "model.ffn_hidden", err));
    TRY(check_divides(p->pp, "parallel.pp", m->layers, "model.layers", err));
    const int64_t recomputed = c->training.recompute_layers;
    if (recomputed != 0) {
        if (c->training.recompute != TP_RECOMPUTE_FULL)
            return err_set(err, TP_ERR_INVALID, "training.recompute_layers",
                           "applies only with training.recompute \"full\"");
        if (recomputed < 0 || recomputed > m->layers / p->pp)
            return err_set(err, TP_ERR_INVALID, "training.recompute_layers",
                           "must be from 1 to the %lld layers of one pipeline stage "
                           "(model.layers / parallel.pp), or 0 for all",
                           (long long)(m->layers / p->pp));
    }
    TRY(check_divides(p->cp, "parallel.cp", c->training.seq_len, "training.seq_len", err));
    /* tp, pp, cp are each at most 10^6 and gpus at most 10^7: no overflow */
    const int64_t model_parallel = p->tp * p->pp * p->cp;
    if (c->system.gpus % model_parallel != 0)
        return err_set(err, TP_ERR_INVALID, "system.gpus",
                       "%lld is not a multiple of tp*pp*cp=%lld",
                       (long long)c->system.gpus, (long long)model_parallel);
    const int64_t dp = c->system.gpus / model_parallel;
    if (c->training.global_batch % (c->training.micro_batch * dp) != 0)
        return err_set(err, TP_ERR_INVALID, "training.global_batch",
                       "%lld is not a multiple of micro_batch*dp=%lld*%lld",
                       (long long)c->training.global_batch,
                       (long long)c->training.micro_batch, (long long)dp);
    TRY(validate_per_node(c, dp, err));
    return validate_experts(c, dp, err);
}

/* Seed 001 §IV-B: each factor divides the data-parallel extent of its mesh
 * axis (eq. 5-6), and s_dp >= s_os >= s_g >= s_p on each axis (eq. 3-4), so
 * every rank holds the gradients and optimizer states of its own parameters. */
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
            TRY(check_count(f, extent[axis], paths[state][axis], err));
            if (extent[axis] % f != 0)
                return err_set(err, TP_ERR_INVALID, paths[state][axis],
                               "%lld does not divide the %s data-parallel extent %lld",
                               (long long)f, axis == 0 ? "intra-node" : "inter-node",
                               (long long)extent[axis]);
            if (state > 0 && f < c->plan.amsp[state - 1][axis])
                return err_set(err, TP_ERR_INVALID, paths[state][axis],
                               "%lld is smaller than the %s factor %lld; seed 001's "
                               "dependency rule needs weights <= gradients <= optimizer",
                               (long long)f, state == 1 ? "weights" : "gradients",
                               (long long)c->plan.amsp[state - 1][axis]);
        }
    }
    return TP_OK;
}

static tp_status validate_sharding(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const int64_t dp = c->system.gpus / (p->tp * p->pp * p->cp);
    if (p->sharding < TP_SHARD_ZERO || p->sharding > TP_SHARD_AMSP)
        return err_set(err, TP_ERR_INVALID, "parallel.sharding", "unknown sharding scheme");
    if (p->sharding == TP_SHARD_FSDP_HYBRID) {
        const int64_t n = plan_replicas(p, dp);
        const int64_t group = p->shard_group > 0 ? p->shard_group : plan_intra_node_dp(c, dp);
        if (p->shard_group < 0 || n % group != 0)
            return err_set(err, TP_ERR_INVALID, "parallel.shard_group",
                           "%lld does not divide the %lld ranks that share parameters",
                           (long long)group, (long long)n);
    }
    if (p->sharding == TP_SHARD_AMSP)
        TRY(validate_amsp(c, dp, err));
    return TP_OK;
}

static tp_status validate_schedule(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    if (p->schedule < TP_SCHEDULE_1F1B || p->schedule > TP_SCHEDULE_GPIPE)
        return err_set(err, TP_ERR_INVALID, "parallel.schedule", "unknown pipeline schedule");
    TRY(check_count(p->virtual_stages, 1000, "parallel.virtual_stages", err));
    if (p->schedule != TP_SCHEDULE_INTERLEAVED) {
        if (p->virtual_stages != 1)
            return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                           "must be 1 unless parallel.schedule is \"interleaved\"");
        return TP_OK;
    }
    if (p->pp < 2)
        return err_set(err, TP_ERR_INVALID, "parallel.schedule",
                       "interleaved needs parallel.pp of at least 2");
    if (p->virtual_stages < 2)
        return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                       "interleaved needs at least 2 model chunks per GPU");
    if (c->model.layers % (p->pp * p->virtual_stages) != 0)
        return err_set(err, TP_ERR_INVALID, "parallel.virtual_stages",
                       "pp*virtual_stages=%lld does not divide model.layers=%lld",
                       (long long)(p->pp * p->virtual_stages), (long long)c->model.layers);
    const int64_t dp = c->system.gpus / (p->tp * p->pp * p->cp);
    const int64_t m = c->training.global_batch / (c->training.micro_batch * dp);
    if (m % p->pp != 0) /* Megatron's interleaved schedule runs micro-batches in groups of pp */
        return err_set(err, TP_ERR_INVALID, "training.global_batch",
                       "gives %lld micro-batches, not a multiple of parallel.pp=%lld as the "
                       "interleaved schedule needs", (long long)m, (long long)p->pp);
    return TP_OK;
}

static tp_status validate_overheads(const tp_overheads *o, tp_error *err)
{
    TRY(check_amount(o->cuda_context_bytes, 1e12, "overheads.cuda_context_gib", err));
    TRY(check_amount(o->nccl_bytes_per_group, 1e12, "overheads.nccl_gib_per_group", err));
    TRY(check_amount(o->loss_bytes_per_logit, 64.0, "overheads.loss_bytes_per_logit", err));
    TRY(check_amount(o->backward_layers, 1000.0, "overheads.backward_layers", err));
    TRY(check_amount(o->fragmentation_fraction, 1.0, "overheads.fragmentation", err));
    TRY(check_amount(o->bucket_params, 1e12, "overheads.bucket_params", err));
    if (o->prefetch_layers < 0 || o->prefetch_layers > 64)
        return err_set(err, TP_ERR_INVALID, "overheads.prefetch_layers",
                       "must be an integer from 0 to 64");
    return TP_OK;
}

/* SUMMA is modelled for dense GQA layers (seed 002's GPT and ViT blocks);
 * the panels cut every multiply's inner dimension, hidden or ffn_hidden. */
static tp_status validate_tp_algorithm(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const tp_model *m = &c->model;
    if (p->tp_algorithm < TP_TP_MEGATRON || p->tp_algorithm > TP_TP_SUMMA)
        return err_set(err, TP_ERR_INVALID, "parallel.tp_algorithm", "unknown tensor-parallel algorithm");
    if (p->tp_algorithm == TP_TP_MEGATRON) {
        if (p->summa_panels != 0)
            return err_set(err, TP_ERR_INVALID, "parallel.summa_panels",
                           "applies only with parallel.tp_algorithm \"summa\"");
        return TP_OK;
    }
    if (m->moe.experts > 0)
        return err_set(err, TP_ERR_INVALID, "parallel.tp_algorithm",
                       "summa is modelled for dense models only (seed 002); use megatron");
    if (m->attention == TP_ATTENTION_MLA)
        return err_set(err, TP_ERR_INVALID, "parallel.tp_algorithm",
                       "summa is not modelled for mla attention; use megatron");
    if (p->summa_panels != 0) {
        TRY(check_count(p->summa_panels, 4096, "parallel.summa_panels", err));
        if (!model_summa_panels_fit(m, p->summa_panels))
            return err_set(err, TP_ERR_INVALID, "parallel.summa_panels",
                           "%lld does not divide both model.hidden=%lld and model.ffn_hidden=%lld",
                           (long long)p->summa_panels, (long long)m->hidden, (long long)m->ffn_hidden);
    }
    return TP_OK;
}

tp_status plan_validate_inputs(const tp_config *c, tp_error *err)
{
    TRY(validate_model(&c->model, err));
    TRY(validate_system(&c->system, err));
    TRY(validate_training(&c->training, &c->model, err));
    TRY(validate_overheads(&c->overheads, err));
    return validate_tp_algorithm(c, err);
}

tp_status tp_config_validate(const tp_config *c, tp_error *err)
{
    TRY(plan_validate_inputs(c, err));
    TRY(validate_plan(c, err));
    TRY(validate_sharding(c, err));
    TRY(validate_schedule(c, err));
    return TP_OK;
}
