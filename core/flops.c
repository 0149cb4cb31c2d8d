/*
 * flops.c: floating-point operations and element-wise memory traffic of one
 * transformer layer and of the LM head, per token of one sample, forward.
 *
 * A matrix multiply of (M x K) by (K x N) is 2MNK FLOPs, so a token costs 2
 * FLOPs per weight of every matrix it passes through: the GEMM counts are
 * read off the layer's matrices in model.c, not written again here. Per
 * token, with h hidden, w = k d the width of K and V, f ffn_hidden, s
 * sequence, v vocab:
 *
 *   QKV projection   2h(h + 2w)
 *   scores Q K^T     2sh      over all s keys (causal: half are masked;
 *   context A V      2sh       a ViT encoder masks none)
 *   output proj.     2h^2
 *   MLP              Llama 6hf (gate, up, down); GPT and ViT 4hf (fc1, fc2)
 *   LM head          2hv      (ViT: its head 2h p, p = patch_dim)
 *   patch embedding  2ph      ViT only (a vocabulary is a table lookup)
 * Multi-head latent attention (model.c) has its own projections and scores
 * over a heads of (nope + rope) per query and key, context of v per head:
 * 2s a (nope + rope) + 2s a v; its down-projections run on
 * sequence-parallel tokens like the MoE router.
 *
 * Backward costs twice the forward (gradients of inputs and of weights). Model
 * FLOPs, the basis of MFU, count forward and backward with attention over all
 * s keys, as Megatron-LM's num_floating_point_operations does (the count
 * Fujii et al. 2024's and Narayanan et al. 2021's TFLOP/s figures use); for
 * GPT with a = k, f = 4h and full recompute, 4 forwards of the layers and 3 of
 * the LM head give Narayanan et al. 2021's 96 B s l h^2 (1 + s/6h + v/16lh)
 * (§5.1).
 *
 * Element-wise traffic, 2-byte values read and written per token, forward:
 *   two norms (read h, write h)                    8h
 *   two residual adds (read 2h, write h)          12h
 *   dropout, when on: two of (read h, write h, 1-byte mask)  10h
 *   Llama: rotary on Q and K (read, write)        4(h + w)
 *          SwiGLU (read gate and up, write)       6f
 *   GPT:   GeLU (read, write)                     4f
 * Norms, residuals and dropout act on sequence-parallel regions; the rest on
 * tensor-parallel ones. Backward moves about twice the forward traffic.
 *
 * Cross-entropy over vocab-parallel fp32 logits moves about 60 bytes per
 * logit in forward and backward together: fp32 copy (6), max (4), subtract
 * (8), exp (8), sum (4), normalise (8), gradient (8), scale (8), bf16 cast (6).
 */
#include "tp_internal.h"

flops_layer flops_describe_layer(const tp_model *m, const model_layer *layer, double attention_span, int eager)
{
    const double h = (double)m->hidden;
    const double s = attention_span;
    const int gpt = model_gpt_blocks(m);
    const int moe = layer->experts > 0.0;
    const double f = layer->mlp_width; /* a MoE layer's shared experts */
    flops_layer x;
    x.attention_gemm_flop = 2.0 * layer->attention_matrix_params;
    x.kv_gemm_flop = 2.0 * layer->kv_matrix_params;
    x.mlp_gemm_flop = 2.0 * layer->mlp_matrix_params;
    x.sp_gemm_flop = 2.0 * layer->sp_matrix_params;
    /* scores over a heads of the query/key size, context of the value size */
    x.attention_flop = 2.0 * s * (layer->q_width + layer->o_width);
    x.kv_width = layer->kv_width;
    x.gather_width = layer->gather_width;
    /* what FP8 casts: the attention's and the MLP's inputs (the MLP's only
     * where a layer has one every token passes through), W_O's and W2's */
    x.linear_input_width = layer->gather_width + (f > 0.0 ? h : 0.0);
    x.linear_split_input_width = layer->o_width + f;
    x.linear_output_width = h + (f > 0.0 ? h : 0.0);
    x.linear_split_output_width = layer->q_width + layer->kv_width + (gpt ? f : 2.0 * f);
    x.attention_fraction = model_causal(m) ? 0.5 : 1.0;
    x.lm_head_flop = 2.0 * h * model_output_width(m);
    x.embedding_flop = m->arch == TP_ARCH_VIT ? 2.0 * (double)m->patch_dim * h : 0.0;
    x.sp_bytes = 20.0 * h + (m->dropout ? 10.0 * h : 0.0);
    x.tp_bytes = gpt ? 4.0 * f : 4.0 * layer->rope_width + 6.0 * f;
    x.rope_width = gpt ? 0.0 : layer->rope_width;
    x.loss_bytes_per_logit = 60.0;
    /* QKV and the projection; two MLP GEMMs (gate and up fused), none in a
     * MoE layer without shared experts */
    x.gemm_kernels = 2.0 + (f > 0.0 ? 2.0 : 0.0);
    /* two norms, two residual adds (with dropout when on), and the
     * activation; Llama adds rotary on Q and on K */
    x.elementwise_kernels = gpt ? 5.0 : 7.0;
    if (m->attention == TP_ATTENTION_MLA) {
        /* MLA: the latents' RMSNorms (read and write), and Q and K each
         * assembled from their rotary and non-rotary parts (read, write);
         * GEMMs: down- and up-projections of Q (or one W_Q) and of K and V,
         * and W_O, where gqa has its fused QKV and the projection */
        const double rq = (double)m->mla.q_lora_rank;
        x.sp_bytes += 4.0 * (rq + (double)m->mla.kv_lora_rank);
        x.tp_bytes += 8.0 * layer->q_width;
        x.gemm_kernels += rq > 0.0 ? 3.0 : 2.0;
        x.elementwise_kernels += (rq > 0.0 ? 2.0 : 1.0) + 2.0;
    }
    if (eager && !gpt) {
        /* PyTorch eager (training.eager), as torchtitan's Llama writes it
         * (models/norms.py RMSNorm, models/llama/model.py at 9dec370): an
         * RMSNorm casts to fp32, squares, averages, scales, casts back and
         * multiplies by its weight, 36 B per element where one kernel
         * moves 4; rotary casts Q and K to fp32, multiplies them as complex
         * numbers and casts back, 20 B per element against 4; SiLU and the
         * product are two kernels, 10 B per element of the width against 6;
         * repeat_kv writes K and V out for every query head. Launches stay
         * as counted: at training sizes the host runs ahead of them. */
        x.sp_bytes += 2.0 * 32.0 * h;
        x.tp_bytes += 16.0 * layer->rope_width + 4.0 * f;
        if (m->attention != TP_ATTENTION_MLA && layer->kv_heads < (double)m->heads)
            x.tp_bytes += 2.0 * layer->kv_width + 4.0 * layer->q_width;
    }
    /* MLA's up-projections: all of the attention's matrices but W_O */
    x.up_proj_gemm_flop = m->attention == TP_ATTENTION_MLA
                        ? x.attention_gemm_flop - 2.0 * layer->o_width * h : 0.0;
    x.experts_per_token = layer->experts_per_token;
    x.expert_flop_per_copy = x.copy_bytes = x.expert_bytes_per_copy = 0.0;
    if (moe) {
        /* the router is one more GEMM (in sp_gemm_flop), and each routed
         * copy costs its expert's GEMMs, SwiGLU, and the permutes that move
         * it in and out of expert order (read and write 2h each way) */
        x.gemm_kernels += 1.0;
        x.expert_flop_per_copy = 2.0 * layer->expert_matrix_params_each;
        x.copy_bytes = 8.0 * h;
        x.expert_bytes_per_copy = (eager ? 10.0 : 6.0) * (double)m->moe.expert_ffn_hidden;
        /* router softmax and top-k, permute, SwiGLU, unpermute */
        x.elementwise_kernels += 4.0;
    }
    return x;
}

double flops_layer_forward(const flops_layer *x)
{
    return x->attention_gemm_flop + x->kv_gemm_flop + x->mlp_gemm_flop + x->sp_gemm_flop
         + x->attention_flop + x->experts_per_token * x->expert_flop_per_copy;
}

/* selective_op's recompute per token of one layer: the multiplies torchtitan's
 * per-op policy does not keep, W_K, W_O and W3 (GPT: K, W_O, fc2), half of
 * each pair and a third of SwiGLU's three (memory.c); the rest it
 * recomputes is element-wise, no FLOPs counted here. Returns the part
 * split over tp (W_O, the MLP's), W_K's (split as K and V) in *kv_flop. */
double flops_op_recompute(const tp_config *c, const flops_layer *x, double *kv_flop)
{
    const double mlp_share = model_gpt_blocks(&c->model) ? 0.5 : 1.0 / 3.0;
    *kv_flop = 0.5 * x->kv_gemm_flop;
    return 0.5 * x->attention_gemm_flop + mlp_share * x->mlp_gemm_flop;
}

/* The recompute_* modules' multiplies, run again in the backward: a dense
 * layer's MLP, MLA's up-projections; the norms' and SwiGLU's recompute is
 * element-wise, no FLOPs counted here. */
double flops_module_recompute(const tp_config *c, const flops_layer *x)
{
    const tp_training *t = &c->training;
    return (t->recompute_mlp && x->experts_per_token == 0.0 ? x->mlp_gemm_flop : 0.0)
         + (t->recompute_mla_up_proj ? x->up_proj_gemm_flop : 0.0);
}

/* The share of all the layers full recompute re-runs: each stage's share
 * of its own layers (recompute_share), weighted by them. */
static double recompute_share_of_model(const tp_config *c)
{
    const int64_t p = c->plan.pp, first = plan_stage_layers(c, 0);
    if (first * p == c->model.layers && plan_most_stage_layers(c) == first)
        return recompute_share(c, first); /* every stage alike */
    double recomputed = 0.0;
    for (int64_t rank = 0; rank < p; rank++) {
        const int64_t n = plan_stage_layers(c, rank);
        recomputed += recompute_share(c, n) * (double)n;
    }
    return recomputed / (double)c->model.layers;
}

void flops_per_step(const tp_config *c, const flops_layer *dense, const flops_layer *moe,
                    double *model_flop, double *hardware_flop)
{
    const double tokens = (double)c->training.global_batch * (double)c->training.seq_len;
    const double moe_layers = (double)model_moe_layers_in(&c->model, 0, c->model.layers);
    const double layers = (double)c->model.layers - moe_layers;
    /* model FLOPs count each token's k experts, not the capacity padding */
    const double layer_forward = layers * flops_layer_forward(dense)
                               + (moe_layers > 0.0 ? moe_layers * flops_layer_forward(moe) : 0.0);
    const double forward = layer_forward + dense->embedding_flop + dense->lm_head_flop;
    double recompute = 0.0;
    if (c->training.recompute == TP_RECOMPUTE_FULL)
        recompute = recompute_share_of_model(c) * layer_forward;
    else if (c->training.recompute == TP_RECOMPUTE_SELECTIVE)
        recompute = (layers + moe_layers) * dense->attention_flop;
    else if (c->training.recompute == TP_RECOMPUTE_SELECTIVE_OP) { /* dense layers only */
        double kv_flop;
        const double tp_split_flop = flops_op_recompute(c, dense, &kv_flop);
        recompute = layers * (tp_split_flop + kv_flop);
    }
    recompute += layers * flops_module_recompute(c, dense)
               + (moe_layers > 0.0 ? moe_layers * flops_module_recompute(c, moe) : 0.0);
    *model_flop = 3.0 * forward * tokens;
    *hardware_flop = (3.0 * forward + recompute) * tokens;
}
