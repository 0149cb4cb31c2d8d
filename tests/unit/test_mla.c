/*
 * test_mla: multi-head latent attention (DeepSeek-V2 §2.1, DeepSeek-V3 §2.1.1)
 * as its own attention kind, and grouped-query attention with a head size
 * other than hidden / heads (Qwen3).
 *
 * Parameter counts of the DeepSeek presets worked out by hand from their
 * Hugging Face config.json files, against the totals the reports print;
 * stored activations and model FLOPs of a small MLA model against its
 * multi-head twin (same hidden size, heads and MLP), the difference derived
 * by hand from the layer's tensors; sequence parallelism gathering the
 * latents instead of the hidden state; and the rules, each naming its
 * field, in the C API and in the JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tp_internal.h"

static int64_t total(const char *name) { return tp_model_params_total(tp_model_preset_find(name)); }
static int64_t active(const char *name) { return tp_model_params_active(tp_model_preset_find(name)); }

static void deepseek_presets_should_count_published_parameters(void)
{
    /* DeepSeek-V3: h 7168, 128 heads, MLA per layer
     *   W_DQ 7168 x 1536 + its norm 1536 + W_UQ 1536 x 128 x 192
     *   + W_DKV 7168 x 576 + its norm 512 + W_UKV 512 x 128 x 256
     *   + W_O 128 x 128 x 7168                        = 187,107,328
     * norms 2h = 14,336; 3 dense layers of MLP 3 x 7168 x 18432; 58 MoE
     * layers of router 256h, one shared and 256 routed experts of
     * 3 x 7168 x 2048; embeddings 2 x 129280 x 7168; final norm h. */
    const int64_t h = 7168, attention = 187107328, expert = 3 * h * 2048;
    CHECK_INT(11010048 + 1536 + 1536 * 128 * 192 + h * 576 + 512 + 512 * 128 * 256 + 128 * 128 * h,
              attention);
    const int64_t dense_layer = attention + 2 * h + 3 * h * 18432;
    const int64_t moe_layer = attention + 2 * h + 256 * h + expert;
    const int64_t rest = 2 * 129280 * h + h + 3 * dense_layer;
    CHECK_INT(total("deepseek-v3"), rest + 58 * (moe_layer + 256 * expert));
    CHECK_INT(active("deepseek-v3"), rest + 58 * (moe_layer + 8 * expert));
    CHECK_INT(total("deepseek-v3"), 671026404352LL); /* report: 671B */
    /* The report's "37B activated" leaves out the input embedding, a
     * lookup (0.93B): 36.63B. params.active counts both embeddings as it
     * does for every model (Mistral AI's 12.9B for Mixtral does too). */
    CHECK_INT(active("deepseek-v3"), 37552282624LL);
    CHECK_NEAR((double)(active("deepseek-v3") - 129280 * h) / 1e9, 37.0, 0.5);

    /* Kimi K2: DeepSeek-V3's layer with 64 heads (MLA W_UQ 1536 x 64 x 192,
     * W_UKV 512 x 64 x 256, W_O 64 x 128 x h), one dense layer, 60 MoE
     * layers of router 384h, one shared and 384 routed experts; embeddings
     * 2 x 163840 x h. Moonshot's model card prints 1T total and 32B
     * activated (its report 1.04T and 32.6B): 1.026T and 32.9B here. */
    const int64_t kimi_attention = h * 1536 + 1536 + 1536 * 64 * 192 + h * 576 + 512 + 512 * 64 * 256 + 64 * 128 * h;
    const int64_t kimi_rest = 2 * 163840 * h + h + kimi_attention + 2 * h + 3 * h * 18432;
    const int64_t kimi_moe = kimi_attention + 2 * h + 384 * h + expert;
    CHECK_INT(total("kimi-k2"), kimi_rest + 60 * (kimi_moe + 384 * expert));
    CHECK_INT(active("kimi-k2"), kimi_rest + 60 * (kimi_moe + 8 * expert));
    CHECK_NEAR((double)total("kimi-k2") / 1e12, 1.03, 0.015);

    /* DeepSeek-V2-Lite: no query latent, so W_Q 2048 x 16 x 192; W_DKV
     * 2048 x 576, norm 512, W_UKV 512 x 16 x 256, W_O 16 x 128 x 2048;
     * one dense layer of 3 x 2048 x 10944, 26 MoE layers of router 64h,
     * two shared and 64 routed experts of 3 x 2048 x 1408. Report: 15.7B
     * total, 2.4B active (2.45B here without the input embedding). */
    const int64_t h2 = 2048, attention2 = h2 * 16 * 192 + h2 * 576 + 512 + 512 * 16 * 256 + 16 * 128 * h2;
    const int64_t expert2 = 3 * h2 * 1408;
    const int64_t rest2 = 2 * 102400 * h2 + h2 + attention2 + 2 * h2 + 3 * h2 * 10944;
    const int64_t moe2 = attention2 + 2 * h2 + 64 * h2 + 2 * expert2;
    CHECK_INT(total("deepseek-v2-lite"), rest2 + 26 * (moe2 + 64 * expert2));
    CHECK_INT(active("deepseek-v2-lite"), rest2 + 26 * (moe2 + 6 * expert2));
    CHECK_NEAR((double)total("deepseek-v2-lite") / 1e9, 15.7, 0.05);
    CHECK_NEAR((double)(active("deepseek-v2-lite") - 102400 * h2) / 1e9, 2.4, 0.1);
}

/* A small dense model with latent attention, and its multi-head twin. */
enum { H = 1024, A = 8, L = 4, RQ = 384, RKV = 128, NOPE = 64, ROPE = 32, V = 64, S = 2048 };

static tp_config small(int mla)
{
    tp_config c;
    tp_config_defaults(&c);
    tp_model *m = &c.model;
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "small");
    m->arch = TP_ARCH_LLAMA;
    m->layers = L;
    m->hidden = H;
    m->heads = m->kv_heads = A;
    m->ffn_hidden = 2816;
    m->vocab = 32000;
    if (mla) {
        m->attention = TP_ATTENTION_MLA;
        m->mla = (tp_mla){RQ, RKV, NOPE, ROPE, V};
    }
    c.system.gpus = 8;
    c.training.seq_len = S;
    c.training.global_batch = 8;
    c.training.micro_batch = 1;
    c.training.recompute = TP_RECOMPUTE_NONE;
    c.plan.tp = 2;
    c.plan.sp = 1;
    return c; /* dp 4, one micro-batch each */
}

static void estimate(const tp_config *c, tp_estimate_result *r)
{
    tp_error err;
    CHECK_INT(tp_estimate(c, r, &err), TP_OK);
}

/* The small MLA model and its multi-head twin, estimated. */
static void estimate_both(tp_estimate_result *mla, tp_estimate_result *mha)
{
    const tp_config c = small(1), twin = small(0);
    estimate(&c, mla);
    estimate(&twin, mha);
}

static void activations_should_follow_the_latent_tensors(void)
{
    tp_estimate_result mla, mha;
    estimate_both(&mla, &mha);
    /* bytes per token of one layer, all split over tp = 2 (sequence
     * parallel, and K and V over min(tp, heads) = 2):
     *   MLA: Q 2 a (nope + rope), attention output 2 a v, K 2 a (nope +
     *        rope) and V 2 a v, the latents before and after their norms
     *        4 rq + 4 rkv and the shared rotary key 2 rope;
     *   MHA: Q and output 4h, K and V 4h.
     * The norms' and MLP's tensors are the same in both. */
    const double qk = NOPE + ROPE;
    const double mla_bytes = 2.0 * A * qk + 2.0 * A * V + 2.0 * A * (qk + V) + 4.0 * RQ + 4.0 * RKV + 2.0 * ROPE;
    const double mha_bytes = 8.0 * H;
    CHECK_NEAR(mla.stages[0].activations_bytes - mha.stages[0].activations_bytes,
               L * S / 2.0 * (mla_bytes - mha_bytes), 1e-6);
}

static void model_flops_should_count_the_latent_projections(void)
{
    tp_estimate_result mla, mha;
    estimate_both(&mla, &mha);
    /* per token and layer, forward: 2 FLOPs per weight of W_DQ, W_UQ,
     * W_DKV, W_UKV, W_O against the twin's 4h^2; scores 2 s a (nope +
     * rope) and context 2 s a v against 4 s h. Three forwards a step. */
    const double qk = NOPE + ROPE;
    const double matrices = (double)H * RQ + RQ * A * qk + (double)H * (RKV + ROPE)
                          + RKV * A * (double)(NOPE + V) + A * V * (double)H;
    const double per_token = 2.0 * (matrices - 4.0 * H * H) + 2.0 * S * (A * qk + A * V - 2.0 * H);
    const double tokens = 8.0 * S;
    CHECK_NEAR((mla.throughput.model_flop_per_step - mha.throughput.model_flop_per_step)
                   / (3.0 * tokens * L * per_token), 1.0, 1e-12);
}

static void sequence_parallelism_should_gather_the_latents(void)
{
    /* with sp, the twin gathers the b s x h hidden state before attention;
     * MLA its latents rq + rkv + rope = 544 wide, so it moves less */
    tp_config c = small(1), twin = small(0);
    c.plan.tp = twin.plan.tp = 8;
    tp_estimate_result mla, mha;
    estimate(&c, &mla);
    estimate(&twin, &mha);
    CHECK(mla.time.tp_comm_s < mha.time.tp_comm_s);
    CHECK(mla.time.tp_comm_s > 0.0);
}

static void rules_should_name_their_field(void)
{
    tp_config c = small(1);
    c.model.kv_heads = 4; /* MLA has a key and value per head */
    CHECK_REFUSED(&c, "model.kv_heads");
    c = small(1);
    c.model.mla.kv_lora_rank = 0;
    CHECK_REFUSED(&c, "model.mla.kv_lora_rank");
    c = small(1);
    c.model.mla.q_lora_rank = H + 1; /* a latent wider than what it compresses */
    CHECK_REFUSED(&c, "model.mla.q_lora_rank");
    c = small(1);
    c.model.mla.v_head_dim = 5000;
    CHECK_REFUSED(&c, "model.mla.v_head_dim");
    c = small(1);
    c.model.mla.qk_rope_head_dim = -1;
    CHECK_REFUSED(&c, "model.mla.qk_rope_head_dim");
    c = small(1);
    c.model.arch = TP_ARCH_GPT;
    c.model.positions = 2048;
    CHECK_REFUSED(&c, "model.attention");
    c = small(0);
    c.model.mla.kv_lora_rank = 128; /* latents on a gqa model: not read, so refused */
    CHECK_REFUSED(&c, "model.mla");
    /* MLA needs no hidden / heads: 1020 hidden over 8 heads is fine */
    c = small(1);
    c.model.hidden = 1020;
    tp_estimate_result r;
    estimate(&c, &r);
    /* each field in bounds, the product not: 10^4 layers of hidden 10^6
     * is 4 x 10^16 parameters, past what is counted exactly */
    c = small(0);
    c.model.layers = 10000;
    c.model.hidden = 1000000;
    c.model.heads = c.model.kv_heads = 1000;
    CHECK_REFUSED(&c, "model");
}

static void json_should_read_and_echo_the_attention(void)
{
    tp_error err;
    char *out = tp_estimate_json("{\"model\": {\"preset\": \"deepseek-v3\"}, \"system\": {\"gpus\": 256},"
                                 " \"parallel\": {\"ep\": 32}}",
                                 0, &err);
    CHECK(out != NULL);
    if (out != NULL) {
        CHECK(strstr(out, "\"attention\":\"mla\"") != NULL);
        CHECK(strstr(out, "\"q_lora_rank\":1536,\"kv_lora_rank\":512,\"qk_nope_head_dim\":128,"
                          "\"qk_rope_head_dim\":64,\"v_head_dim\":128") != NULL);
        free(out);
    }
    /* a gqa preset turned into mla must say how */
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"llama-3.1-8b\", \"attention\": \"mla\"}}", NULL), "model.mla");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"llama-3.1-8b\", \"attention\": \"mla\", \"mla\": "
                               "{\"kv_lora_rank\": 512}}}", NULL),
              "model.mla.qk_nope_head_dim");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"llama-3.1-8b\", \"attention\": \"mla\", \"mla\": "
                               "{\"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
                               "\"v_head_dim\": 128}}}", NULL),
              "");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"llama-3.1-8b\", \"mla\": {\"kv_lora_rank\": 512}}}", NULL),
              "model.mla");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"llama-3.1-8b\", \"attention\": \"latent\"}}", NULL),
              "model.attention");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"deepseek-v3\", \"mla\": {\"rank\": 1}}}", NULL),
              "model.mla.rank");
    /* a preset's latents can be changed one at a time; back to gqa drops them */
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"deepseek-v3\", \"mla\": {\"q_lora_rank\": 0}}}", NULL), "");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"deepseek-v3\", \"attention\": \"gqa\"}}", NULL), "");
}

static void head_dim_should_size_the_heads(void)
{
    /* Qwen3-235B-A22B: 64 query and 4 key/value heads of 128 on a hidden
     * size of 4096, so W_Q and W_O are 4096 x 8192 and W_K, W_V 4096 x 512;
     * 128 experts of 3 x 4096 x 1536, router 128h, norms 2h; 94 layers;
     * embeddings 2 x 151936 x 4096. Report: 235B total, 22B active. */
    const int64_t h = 4096, attention = 2 * h * 8192 + 2 * h * 512, expert = 3 * h * 1536;
    const int64_t rest = 2 * 151936 * h + h, layer = attention + 2 * h + 128 * h;
    CHECK_INT(total("qwen3-235b-a22b"), rest + 94 * (layer + 128 * expert));
    CHECK_INT(active("qwen3-235b-a22b"), rest + 94 * (layer + 8 * expert));
    CHECK_NEAR((double)total("qwen3-235b-a22b") / 1e9, 235.0, 0.5);
    CHECK_NEAR((double)active("qwen3-235b-a22b") / 1e9, 22.0, 0.5);
    CHECK_NEAR((double)total("qwen3-30b-a3b") / 1e9, 30.5, 0.05);
    CHECK_NEAR((double)active("qwen3-30b-a3b") / 1e9, 3.3, 0.1);

    /* head_dim equal to hidden / heads changes nothing */
    tp_config c = small(0), same = small(0);
    same.model.head_dim = H / A;
    tp_estimate_result r, s;
    estimate(&c, &r);
    estimate(&same, &s);
    CHECK_NEAR(s.time.step_s, r.time.step_s, 0.0);
    CHECK_NEAR(s.peak_bytes, r.peak_bytes, 0.0);
    /* wider heads: Q, K, V and the attention output per token grow by
     * d'/d, and the scores with them: activations and FLOPs by hand */
    tp_config wide = small(0);
    wide.model.head_dim = 2 * H / A;
    tp_estimate_result w;
    estimate(&wide, &w);
    CHECK_NEAR(w.stages[0].activations_bytes - r.stages[0].activations_bytes,
               L * S / 2.0 * (8.0 * H), 1e-6); /* Q, out 2h each and K, V 2h each more, over tp 2 */
    const double per_token = 2.0 * (4.0 * H * H) + 4.0 * S * H; /* four matrices and scores double */
    CHECK_NEAR((w.throughput.model_flop_per_step - r.throughput.model_flop_per_step)
                   / (3.0 * 8.0 * S * L * per_token), 1.0, 1e-12);
    /* refused where it cannot apply */
    wide.model.head_dim = 5000;
    CHECK_REFUSED(&wide, "model.head_dim");
    c = small(1);
    c.model.head_dim = 64;
    CHECK_REFUSED(&c, "model.head_dim");
    c = small(0);
    c.model.hidden = 1020; /* 8 heads do not divide 1020 ... */
    CHECK_REFUSED(&c, "model.heads");
    c.model.head_dim = 128; /* ... unless the head size is given */
    estimate(&c, &r);
}

int main(void)
{
    head_dim_should_size_the_heads();
    deepseek_presets_should_count_published_parameters();
    activations_should_follow_the_latent_tensors();
    model_flops_should_count_the_latent_projections();
    sequence_parallelism_should_gather_the_latents();
    rules_should_name_their_field();
    json_should_read_and_echo_the_attention();
    return check_finish("mla");
}
