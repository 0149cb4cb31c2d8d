/*
 * model.c: parameter and activation counts of one transformer layer, and of
 * the whole model, for Llama-style and GPT-style architectures (a ViT
 * encoder has GPT's blocks, and a patch embedding of patch_dim x h plus bias
 * and a head of h x patch_dim plus bias where GPT has its vocabulary).
 *
 * One layer is described once (model_describe_layer) and every count is read
 * off that description, so parameters and activations cannot drift apart.
 * Symbols follow Fujii et al. 2024 Table 1: h hidden, a heads, k key/value
 * heads, d = h/a (or model.head_dim), w = k d (width of K and of V), f
 * ffn_hidden, v vocabulary, L layers. With a head_dim other than h/a, W_Q and
 * W_O are h x ad and the Q bias ad wide; the table below writes the usual
 * ad = h.
 *
 * Parameters of one layer, Llama as Fujii et al. 2024 eq. 1-2 counts them, GPT
 * as Narayanan et al. 2021 §5.1:
 *                    Llama                        GPT
 *   W_Q, W_O         2h^2                         2h^2 + h (Q bias)
 *   W_K, W_V         2hw                          2hw + 2w (K, V biases)
 *   MLP              3hf (gate, up, down)         2hf + f (fc1 + its bias)
 *   replicated       2h (two RMSNorm scales)      4h (two LayerNorms) + 2h
 *                                                 (biases of W_O and fc2)
 * Column-parallel biases (Q, K, V, fc1) split over tp like their matrices; K
 * and V split over min(tp, k): with fewer key/value heads than tp ranks
 * (multi-query attention, or GQA at large tp) Megatron gives every rank one
 * head, replicated tp/k times (Shazeer 2019; Ainslie et al. 2023). the
 * row-parallel output biases and the norms are replicated. For GPT with a = k
 * and f = 4h this is 12h^2 + 13h, Narayanan et al. 2021's per-layer count.
 *
 * Activations stored for backward, bytes per token of one sample, 16-bit
 * tensors and 1-byte dropout masks (Korthikanti et al. 2023 §4.1, as
 * Fujii et al. 2024 §2.3 and §3.2 summarise; Fujii et al. 2024 eq. 11-12 for
 * Llama with FlashAttention):
 *   outside the TP regions (split over tp only with sequence parallelism):
 *     inputs of the two norms 4h, inputs of attention and of the MLP 4h,
 *     two dropout masks 2h when dropout is on                  -> 8h (+2h)
 *   inside the TP regions (always split over tp):
 *     Q 2h, K and V 2w each, attention output (W_O input) 2h   -> 4h + 4w
 *     MLP  Llama: up, gate, SiLU(gate), product 2f each        -> 8f
 *                 one fused SwiGLU keeps up, gate, product     -> 6f
 *                 (training.fused_swiglu, Megatron-Core)
 *          GPT:   GeLU input and output 2f each                -> 4f
 *   attention scores, only without FlashAttention, per token, key and head:
 *     softmax output 2 B, plus dropout mask 1 B and output 2 B with dropout
 *     (Korthikanti's 5as^2b)                                    -> 2 or 5
 * For GPT with a = k, f = 4h and dropout this is sbh(34 + 5as/h), Korthikanti
 * eq. 1; for Llama with FlashAttention and unfused SwiGLU it is Fujii et al.
 * 2024 eq. 12.
 *
 * With fp8 and training.precision.fp8_activations (Transformer Engine,
 * frameworks.c) a linear layer keeps the fp8 cast of its input: the two
 * norms' outputs take 1 B (-2h, sp split), the second MLP matrix's input
 * 1 B (-f or -f_e), and W_O's fp8 input is a copy beside the bf16 output
 * FlashAttention keeps (+o); a routed expert's input takes 1 B (-h). Each
 * such byte is the cast's c B with its scale (model_cast_bytes: 1 + 1/32
 * with MXFP8 and 1x128 blocks, 0.5625 with NVFP4), so each saving is 2 - c.
 *
 * With training.recompute_elementwise (torch.compile's partitioner,
 * frameworks.c) the backward rebuilds every element-wise result from what
 * a layer keeps: the norms' outputs (-4h), SwiGLU's product (-2f, unfused
 * SiLU -4f) or GeLU's output (-2f), and with fp8 their casts, so a layer
 * keeps its two norms' inputs 4h, Q, K, V, the attention output, and its
 * MLP's matrix outputs (gate and up 4f, fc1's 2f; a routed copy's 4 f_e);
 * the routed copies themselves (a permutation, not element-wise) stay as
 * they were.
 *
 * Megatron-Core's recompute_modules (training.recompute_mlp, _norms,
 * _mla_up_proj, _moe_act; megatron/core/transformer/transformer_layer.py
 * and mlp.py checkpoint them, CheckpointWithoutOutput freeing the output)
 * free, per token: mlp a dense MLP's tensors and its norm's output (the
 * MLP's input stays, as the norm's); layernorm each norm's 16-bit output
 * (with fp8 the linear layer's own fp8 copy stays, so nothing);
 * mla_up_proj Q, K and V (the latents stay); moe_act each routed copy's
 * SwiGLU output as the second expert matrix keeps it (2 f_e, fp8 1 f_e).
 *
 * Of these, torchtitan's per-op checkpointing (training.recompute
 * "selective_op"; torchtitan 9dec370 parallelisms/parallelize_llama.py
 * _save_list and _custom_policy) keeps the outputs of the matrix multiplies
 * numbered 1, 3, 5, ... in each block and of the attention kernel, and
 * recomputes the rest. The multiplies run Q, K, V, W_O, then Llama's W1, W3,
 * W2 (FeedForward is w2(silu(w1(x)) * w3(x)), models/llama/model.py), GPT's
 * fc1, fc2, so it keeps
 *   Q 2q, the attention output 2o, W1's or fc1's output 2f     (tp split)
 *   V 2w                                                        (as K and V)
 *   Llama: W2's output 2h                                       (sp split)
 * besides the block's input 2h, the checkpoint's own input; the attention's
 * log-sum-exp (4 B per head and token) is left out. W2's output is counted
 * after its reduce-scatter: with tp > 1 torchtitan saves the multiply's
 * partial sums (2h, whole) and the reduce-scatters' outputs, which this
 * does not follow.
 *
 * A MoE layer (Llama architecture, after Megatron-Core's MoE) keeps attention
 * and norms and replaces the MLP by
 *   shared experts   n_s SwiGLU MLPs of width f_s, split over tp    3 h f_s n_s
 *   router           an h x E matrix, replicated                    E h
 *   routed experts   E SwiGLU MLPs of width f_e, split over ep
 *                    (whole experts) and etp (each expert's width)  3 h f_e E
 * and stores, per token, the shared experts' 8 f_s n_s (6 fused; split over
 * tp), the router's fp32 probabilities 4E and routing weights 4k
 * (sequence-parallel), and per routed copy (k per token, times the capacity
 * factor) the expert's input and output 4h and its SwiGLU tensors 8 f_e
 * (6 fused; split over etp).
 * Active parameters count k routed experts instead of E.
 */
#include "tp_internal.h"

/* The attention block's part of a layer: its matrices, widths and
 * activations (the MLP's are added by model_describe_layer). */
static void describe_attention(const tp_model *m, model_layer *layer)
{
    const double h = (double)m->hidden;
    const int gpt = model_gpt_blocks(m);
    layer->sp_matrix_params = 0.0;
    if (m->attention == TP_ATTENTION_MLA) {
        /* DeepSeek-V2 §2.1: latents on sequence-parallel tokens, up-projections
         * and W_O split over tp by heads; K and V have a heads (kv_split = tp) */
        const tp_mla *x = &m->mla;
        const double a = (double)m->heads, rq = (double)x->q_lora_rank;
        const double rkv = (double)x->kv_lora_rank, rope = (double)x->qk_rope_head_dim;
        const double qk = (double)(x->qk_nope_head_dim + x->qk_rope_head_dim);
        const double nope_v = (double)(x->qk_nope_head_dim + x->v_head_dim);
        const double v = (double)x->v_head_dim;
        const double q_matrix = rq > 0.0 ? rq * a * qk : h * a * qk; /* W_UQ or W_Q */
        layer->sp_matrix_params = (rq > 0.0 ? h * rq : 0.0) + h * (rkv + rope); /* W_DQ, W_DKV */
        layer->attention_matrix_params = q_matrix + rkv * a * nope_v + a * v * h;
        layer->attention_params = layer->attention_matrix_params;
        layer->kv_matrix_params = layer->kv_params = 0.0;
        layer->kv_heads = a;
        /* both latent RMSNorms, and the down-projections */
        layer->replicated_params = rq + rkv + layer->sp_matrix_params;
        layer->matrix_rows_plus_cols = (rq > 0.0 ? (h + rq) + (rq + a * qk) : h + a * qk)
                                     + (h + rkv + rope) + (rkv + a * nope_v) + (a * v + h);
        layer->q_width = a * qk;
        layer->kv_width = a * (qk + v);
        layer->o_width = a * v;
        layer->rope_width = a * rope + rope;
        layer->gather_width = (rq > 0.0 ? rq : h) + rkv + rope;
        /* the latents before and after their norms, and the shared rotary key */
        layer->act_sp_split_bytes_per_token = 4.0 * rq + 4.0 * rkv + 2.0 * rope;
    } else {
        /* q = a d, w = k d: h and k h/a unless head_dim sets d apart */
        const int64_t d = model_head_dim(m);
        const double q = (double)(m->heads * d), w = (double)(m->kv_heads * d);
        layer->attention_matrix_params = 2.0 * h * q;
        layer->kv_matrix_params = 2.0 * h * w;
        layer->attention_params = layer->attention_matrix_params + (gpt ? q : 0.0);
        layer->kv_params = layer->kv_matrix_params + (gpt ? 2.0 * w : 0.0);
        layer->kv_heads = (double)m->kv_heads;
        layer->replicated_params = 0.0;
        /* W_Q h x q, W_K and W_V h x w, W_O q x h */
        layer->matrix_rows_plus_cols = 2.0 * (h + q) + 2.0 * (h + w);
        layer->q_width = layer->o_width = q;
        layer->kv_width = 2.0 * w;
        layer->rope_width = q + w;
        layer->gather_width = h;
        layer->act_sp_split_bytes_per_token = 0.0;
    }
    /* Q and the attention output inside the tp region; K and V */
    layer->act_tp_split_bytes_per_token = 2.0 * layer->q_width + 2.0 * layer->o_width;
    layer->act_kv_bytes_per_token = 2.0 * layer->kv_width;
    /* selective_op: Q, the attention output, and V (half of K and V) */
    layer->act_op_tp_split_bytes_per_token = layer->act_tp_split_bytes_per_token;
    layer->act_op_kv_bytes_per_token = layer->kv_width;
}

/* A MoE layer's router (an h x E matrix on every tp rank) and routed
 * experts: their parameters, and the router's kept fp32 probabilities over
 * all E experts for the softmax's backward and its k fp32 routing weights,
 * on sequence-parallel tokens. */
static void describe_router_and_experts(const tp_model *m, model_layer *layer)
{
    const double h = (double)m->hidden;
    const double e = (double)m->moe.experts, k = (double)m->moe.experts_per_token;
    const double fe = (double)m->moe.expert_ffn_hidden;
    layer->replicated_params += e * h;
    layer->sp_matrix_params += e * h;
    layer->matrix_rows_plus_cols += (h + e) + 3.0 * e * (h + fe);
    layer->experts = e;
    layer->experts_per_token = k;
    layer->expert_matrix_params_each = 3.0 * h * fe;
    layer->expert_params = e * layer->expert_matrix_params_each;
    layer->act_sp_split_bytes_per_token += 4.0 * e + 4.0 * k;
}

model_layer model_describe_layer(const tp_model *m, const tp_training *t, int moe)
{
    const double h = (double)m->hidden;
    const double f = (double)m->ffn_hidden;
    const int gpt = model_gpt_blocks(m);
    model_layer layer;
    describe_attention(m, &layer);
    /* the MLP every token passes through: the dense one, or a MoE layer's
     * shared experts (split over tp like a dense MLP; none without them) */
    const double shared = (double)m->moe.shared_experts, fs = (double)m->moe.shared_ffn_hidden;
    layer.mlp_width = moe ? shared * fs : f;
    layer.mlp_matrix_params = (gpt ? 2.0 : 3.0) * h * layer.mlp_width;
    layer.mlp_params = layer.mlp_matrix_params + (gpt ? f : 0.0);
    layer.replicated_params += gpt ? 6.0 * h : 2.0 * h;
    /* MLP matrices h x f (n_s of h x f_s in a MoE layer) */
    layer.matrix_rows_plus_cols += moe ? 3.0 * shared * (h + fs) : (gpt ? 2.0 : 3.0) * (h + f);
    /* recomputed element-wise results: the fp8 casts are among them */
    const int rebuilt = t->recompute_elementwise;
    const int fp8_saved = t->fp8 && t->fp8_activations && !rebuilt;
    const double fp8_byte = model_cast_bytes(t, 0), fp8_saving = fp8_saved ? 2.0 - fp8_byte : 0.0;
    const double swiglu_bytes = rebuilt ? 4.0 : t->fused_swiglu ? 6.0 : 8.0;
    const double gelu_bytes = rebuilt ? 2.0 : 4.0;
    const double mlp_bytes = (gpt ? gelu_bytes : swiglu_bytes) * layer.mlp_width; /* the MLP's kept tensors */
    layer.act_tp_split_bytes_per_token += mlp_bytes;
    layer.act_sp_split_bytes_per_token += (rebuilt ? 4.0 : 8.0) * h + (m->dropout ? 2.0 * h : 0.0);
    if (fp8_saved) {
        layer.act_tp_split_bytes_per_token += fp8_byte * layer.o_width - fp8_saving * layer.mlp_width;
        layer.act_sp_split_bytes_per_token -= 2.0 * fp8_saving * h;
    }
    /* the recompute_* modules: a dense MLP whole (its tensors and its
     * norm's output), a norm's 16-bit output, MLA's Q and K, V */
    layer.act_mlp_module_tp_bytes = moe ? 0.0 : mlp_bytes - fp8_saving * layer.mlp_width;
    layer.act_mlp_module_sp_bytes = moe || rebuilt ? 0.0 : fp8_saved ? fp8_byte * h : 2.0 * h;
    layer.act_norm_output_bytes = fp8_saved || rebuilt ? 0.0 : 2.0 * h;
    const int mla = m->attention == TP_ATTENTION_MLA;
    layer.act_up_proj_tp_bytes = mla ? 2.0 * layer.q_width : 0.0;
    layer.act_up_proj_kv_bytes = mla ? layer.act_kv_bytes_per_token : 0.0;
    layer.act_expert_act_bytes = 0.0;
    layer.act_input_bytes_per_token = 2.0 * h;
    /* selective_op: the fifth multiply's output (W1, fc1), and Llama's
     * seventh (W2); GPT's fc2 is the sixth, recomputed */
    layer.act_op_tp_split_bytes_per_token += 2.0 * layer.mlp_width;
    layer.act_op_sp_split_bytes_per_token = gpt ? 0.0 : 2.0 * h;
    layer.act_score_bytes = m->dropout ? 5.0 : 2.0;
    layer.experts = layer.experts_per_token = 0.0;
    layer.expert_params = layer.expert_matrix_params_each = 0.0;
    layer.act_copy_bytes = layer.act_expert_mlp_bytes = 0.0;
    if (moe) {
        const double fe = (double)m->moe.expert_ffn_hidden;
        describe_router_and_experts(m, &layer);
        /* per routed copy: the permuted expert input (2h), the expert
         * output too where the combine weighs it (training.routing_weights_
         * in_activation false), and SwiGLU's 8 f_e; the copies are a
         * permutation, not element-wise results, so they stay as
         * Transformer Engine keeps them, rebuilt or not */
        const double copy_saving = t->fp8 && t->fp8_activations ? 2.0 - fp8_byte : 0.0;
        const double kept_per_h = t->routing_weights_in_activation ? 2.0 : 4.0;
        layer.act_copy_bytes = (kept_per_h - copy_saving) * h;
        layer.act_expert_mlp_bytes = (swiglu_bytes - fp8_saving) * fe;
        layer.act_expert_act_bytes = rebuilt ? 0.0 : (fp8_saved ? fp8_byte : 2.0) * fe;
        if (m->moe.glu_clamp && t->unfused_expert_extras) {
            /* the clamps keep their input, the first matrix's 2fe
             * outputs, beside the activation's clamped copy of it; with
             * recompute_moe_act both are inside the recomputed region,
             * whose input is kept anyway (time.c, unfused_expert_extra_bytes) */
            layer.act_expert_mlp_bytes += 4.0 * fe;
            layer.act_expert_act_bytes += 4.0 * fe;
        }
    }
    layer.act_rebuilt_tp_bytes = layer.act_rebuilt_sp_bytes = layer.act_rebuilt_expert_bytes = 0.0;
    return layer;
}

/* A layer as t describes it, with what the backward rebuilds under
 * training.recompute_elementwise: the difference from the same layer
 * described without it. */
static model_layer describe_with_rebuilt(const tp_model *m, const tp_training *t, int moe)
{
    model_layer layer = model_describe_layer(m, t, moe);
    if (t->recompute_elementwise) {
        tp_training stored = *t;
        stored.recompute_elementwise = 0;
        const model_layer whole = model_describe_layer(m, &stored, moe);
        layer.act_rebuilt_tp_bytes = whole.act_tp_split_bytes_per_token - layer.act_tp_split_bytes_per_token;
        layer.act_rebuilt_sp_bytes = whole.act_sp_split_bytes_per_token - layer.act_sp_split_bytes_per_token;
        layer.act_rebuilt_expert_bytes = whole.act_expert_mlp_bytes - layer.act_expert_mlp_bytes;
    }
    return layer;
}

model_layers model_describe_layers(const tp_model *m, const tp_training *t)
{
    model_layers layers;
    layers.dense = describe_with_rebuilt(m, t, 0);
    layers.moe = m->moe.experts > 0 ? describe_with_rebuilt(m, t, 1) : layers.dense;
    return layers;
}

double model_expert_params_per_gpu(const model_layer *layer, int64_t ep, int64_t etp)
{
    return layer->expert_params / (double)(ep * etp);
}

double model_routed_copies_sent(const tp_config *c, double experts_per_token)
{
    const double tokens = (double)c->training.seq_len * (double)c->training.micro_batch
                        / (double)c->plan.cp;
    const double sp_split = c->plan.sp ? (double)c->plan.tp : 1.0;
    return c->training.capacity_factor * experts_per_token * tokens / sp_split;
}

int64_t model_moe_layers_in(const tp_model *m, int64_t first, int64_t count)
{
    const tp_moe *x = &m->moe;
    if (x->experts == 0)
        return 0;
    /* MoE layers below n: those i >= first_dense with (i - first_dense + 1)
     * a multiple of every, i.e. floor((n - first_dense) / every) */
    const int64_t below_end = first + count > x->first_dense ? (first + count - x->first_dense) / x->every : 0;
    const int64_t below_start = first > x->first_dense ? (first - x->first_dense) / x->every : 0;
    return below_end - below_start;
}

double model_layer_params(const model_layer *layer)
{
    return layer->attention_params + layer->kv_params + layer->mlp_params
         + layer->replicated_params;
}

double model_kv_split(const model_layer *layer, int64_t tp)
{
    return (double)tp < layer->kv_heads ? (double)tp : layer->kv_heads;
}

double model_layer_params_per_gpu(const model_layer *layer, int64_t tp)
{
    return (layer->attention_params + layer->mlp_params) / (double)tp
         + layer->kv_params / model_kv_split(layer, tp) + layer->replicated_params;
}

double model_embedding_params(const tp_model *m)
{
    const double h = (double)m->hidden;
    if (m->arch == TP_ARCH_VIT)
        return ((double)m->patch_dim + 1.0) * h;
    return (double)m->vocab * h;
}

double model_head_params(const tp_model *m)
{
    const double h = (double)m->hidden;
    if (m->arch == TP_ARCH_VIT)
        return (h + 1.0) * (double)m->patch_dim;
    return (double)m->vocab * h;
}

double model_position_params(const tp_model *m)
{
    return (double)m->positions * (double)m->hidden;
}

double model_final_norm_params(const tp_model *m)
{
    return model_gpt_blocks(m) ? 2.0 * (double)m->hidden : (double)m->hidden;
}

/* The attention block's weight matrices (and MLA's latent norms) in whole
 * numbers, biases aside: the counts describe_attention gives. */
static int64_t attention_params_exact(const tp_model *m)
{
    const int64_t h = m->hidden;
    if (m->attention == TP_ATTENTION_MLA) {
        const tp_mla *x = &m->mla;
        const int64_t a = m->heads, rq = x->q_lora_rank, rkv = x->kv_lora_rank;
        const int64_t qk = x->qk_nope_head_dim + x->qk_rope_head_dim;
        const int64_t q = rq > 0 ? h * rq + rq + rq * a * qk : h * a * qk;
        return q + h * (rkv + x->qk_rope_head_dim) + rkv
             + rkv * a * (x->qk_nope_head_dim + x->v_head_dim) + a * x->v_head_dim * h;
    }
    const int64_t d = model_head_dim(m);
    return 2 * h * m->heads * d + 2 * h * m->kv_heads * d;
}

int64_t model_head_dim(const tp_model *m)
{
    return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

/* A causal query i (1 .. s) of a windowed layer attends over min(i, w)
 * keys, s w - w (w - 1) / 2 in all where s >= w; a whole causal sequence
 * is counted as s / 2 keys a query (flops.c), so the window costs as a
 * sequence of 2w - w (w - 1) / s. An unfused attention computes every
 * score and masks them after, so only a fused kernel saves the work. */
double model_attention_span(const tp_model *m, int64_t span, int fused)
{
    const double s = (double)span, w = (double)m->window_tokens;
    if (m->window_tokens == 0 || !fused || w >= s)
        return s;
    const double global = m->global_every > 0 ? (double)(m->layers / m->global_every) : 0.0;
    const double windowed = (double)m->layers - global;
    return (global * s + windowed * (2.0 * w - w * (w - 1.0) / s)) / (double)m->layers;
}

/* One MoE layer's parameters, counting `routed` of its routed experts:
 * attention, two RMSNorms, router, shared and routed SwiGLU experts. */
static int64_t moe_layer_params(const tp_model *m, int64_t routed)
{
    const int64_t h = m->hidden;
    const tp_moe *x = &m->moe;
    return attention_params_exact(m) + 2 * h + x->experts * h
         + 3 * h * x->shared_ffn_hidden * x->shared_experts + 3 * h * x->expert_ffn_hidden * routed;
}

int64_t tp_model_params_total(const tp_model *m)
{
    /* Exact integer form of the counts above; inputs are bounded by
     * validation so this cannot overflow int64. */
    const int64_t h = m->hidden;
    const int64_t f = m->ffn_hidden;
    int64_t layer, final_norm;
    if (model_gpt_blocks(m)) {
        const int64_t d = model_head_dim(m);
        layer = attention_params_exact(m) + m->heads * d + 2 * m->kv_heads * d + 2 * h * f + f + 6 * h;
        final_norm = 2 * h;
    } else {
        layer = attention_params_exact(m) + 3 * h * f + 2 * h;
        final_norm = h;
    }
    /* a ViT's patch embedding and head are linears with biases */
    const int64_t embeddings = m->arch == TP_ARCH_VIT
        ? (m->patch_dim + 1) * h + (h + 1) * m->patch_dim + h * m->positions
        : (m->tied_embeddings ? 1 : 2) * h * m->vocab + h * m->positions;
    const int64_t moe_layers = model_moe_layers_in(m, 0, m->layers);
    return embeddings + final_norm + (m->layers - moe_layers) * layer
         + moe_layers * moe_layer_params(m, m->moe.experts);
}

int64_t model_params_inactive(const tp_model *m)
{
    if (m->moe.experts == 0)
        return 0;
    const int64_t moe_layers = model_moe_layers_in(m, 0, m->layers);
    return moe_layers * (moe_layer_params(m, m->moe.experts) - moe_layer_params(m, m->moe.experts_per_token));
}

int64_t tp_model_params_active(const tp_model *m)
{
    return tp_model_params_total(m) - model_params_inactive(m);
}

double model_cast_bytes(const tp_training *t, int weights)
{
    if (t->fp4)
        return 0.5 + 1.0 / 16.0;
    if (t->fp8_recipe == TP_FP8_MXFP8)
        return 1.0 + 1.0 / 32.0;
    if (t->fp8_recipe == TP_FP8_BLOCKWISE)
        return 1.0 + (weights ? 4.0 / (128.0 * 128.0) : 4.0 / 128.0);
    return 1.0;
}

/* A weight's fp8 cast feeds the forward GEMM rowwise and the backward's
 * columnwise. Hopper's fp8 GEMMs take only the TN layout, so Transformer
 * Engine keeps a transposed copy beside the cast; Blackwell's read one
 * per-tensor-scaled copy both ways (float8_tensor: create_transpose only
 * without non_tn_fp8_gemm_supported). MXFP8's and blockwise scales run
 * along one direction, and NVFP4 needs TN, so those keep two casts. */
int model_fp8_weight_copies(const tp_config *c)
{
    const tp_training *t = &c->training;
    const int per_tensor = t->fp8_recipe == TP_FP8_DELAYED || t->fp8_recipe == TP_FP8_TENSORWISE;
    return per_tensor && !t->fp4 && gpu_blackwell_tensor_cores(&c->system.gpu) ? 1 : 2;
}

int model_recompute_modules_set(const tp_training *t)
{
    return t->recompute_mlp || t->recompute_norms || t->recompute_mla_up_proj || t->recompute_moe_act;
}

int model_recompute_takes_modules(tp_recompute mode)
{
    return mode == TP_RECOMPUTE_NONE || mode == TP_RECOMPUTE_SELECTIVE;
}
