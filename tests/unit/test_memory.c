/*
 * test_memory: the memory model beyond Fujii et al. 2024's default mode: ZeRO
 * stages, sequence parallel off, precisions, pipeline stages and the capacity
 * zones. Expected values are worked by hand from the formulas cited in
 * memory.c.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tp_internal.h"

static void memory_should_shard_states_by_zero_stage(void)
{
    tp_config c;
    tp_config_defaults(&c); /* llama-3.1-8b on 8 GPUs: dp = 8 */
    const double P = 8030261248.0;
    const double bytes[4][3] = {
        /* weights, gradients, optimizer per GPU; sharded over dp*cp = 8 */
        {2 * P, 4 * P, 12 * P},
        {2 * P, 4 * P, 12 * P / 8},
        {2 * P, 4 * P / 8, 12 * P / 8},
        {2 * P / 8, 4 * P / 8, 12 * P / 8},
    };
    for (int zero = 0; zero <= 3; zero++) {
        c.plan.zero = zero;
        const tp_estimate_result r = CHECK_ESTIMATE(&c);
        CHECK_NEAR(r.stages[0].weights_bytes, bytes[zero][0], 1.0);
        CHECK_NEAR(r.stages[0].gradients_bytes, bytes[zero][1], 1.0);
        CHECK_NEAR(r.stages[0].optimizer_bytes, bytes[zero][2], 1.0);
    }
}

static void memory_should_count_master_weights_only_for_low_precision(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.plan.zero = 0;
    const double P = 8030261248.0;
    c.training.weights_dtype = TP_DTYPE_FP32;
    CHECK_NEAR(CHECK_ESTIMATE(&c).stages[0].optimizer_bytes, 8 * P, 1.0); /* two fp32 moments */
    c.training.weights_dtype = TP_DTYPE_BF16;
    c.training.optimizer_dtype = TP_DTYPE_BF16;
    CHECK_NEAR(CHECK_ESTIMATE(&c).stages[0].optimizer_bytes, 8 * P, 1.0); /* bf16 moments + fp32 master */
}

static void memory_should_replicate_block_inputs_without_sequence_parallel(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.plan.tp = 8;
    c.system.gpus = 8;
    const double with_sp = CHECK_ESTIMATE(&c).stages[0].activations_bytes;
    c.plan.sp = 0;
    const double without_sp = CHECK_ESTIMATE(&c).stages[0].activations_bytes;
    /* Only the 8sbh of norm and block inputs per layer stop being split:
     * L * s*b*8h * (1 - 1/t) more bytes. */
    const double extra = 32.0 * 8192.0 * 8.0 * 4096.0 * (1.0 - 1.0 / 8.0);
    CHECK_NEAR(without_sp - with_sp, extra, 1.0);
}

static void memory_should_order_pipeline_stages_by_micro_batches_in_flight(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.plan.pp = 4;
    c.system.gpus = 8; /* dp = 2, 512 micro-batches */
    const tp_estimate_result r = CHECK_ESTIMATE(&c);
    CHECK_INT(r.stage_count, 3);
    CHECK_STR(r.stages[0].name, "first");
    CHECK_STR(r.stages[1].name, "middle");
    CHECK_STR(r.stages[2].name, "last");
    CHECK_INT(r.stages[0].in_flight, 4);
    CHECK_INT(r.stages[1].in_flight, 3);
    CHECK_INT(r.stages[2].in_flight, 1);
    CHECK_INT(r.stages[0].layers, 8);
    CHECK_STR(r.stages[r.peak_stage].name, "first");
    /* few micro-batches: a stage cannot hold more than exist */
    c.training.global_batch = 4;
    c.training.micro_batch = 2; /* dp = 2: one micro-batch per step */
    const tp_estimate_result few = CHECK_ESTIMATE(&c);
    CHECK_INT(few.micro_batches, 1);
    CHECK_INT(few.stages[0].in_flight, 1);
}

static void memory_should_grow_with_micro_batch_and_shrink_with_tp(void)
{
    tp_config c;
    tp_config_defaults(&c);
    double previous = 0.0;
    for (int64_t b = 1; b <= 8; b *= 2) {
        c.training.micro_batch = b;
        const double act = CHECK_ESTIMATE(&c).stages[0].activations_bytes;
        CHECK(act > previous);
        previous = act;
    }
    c.training.micro_batch = 1;
    previous = 1e300;
    for (int64_t t = 1; t <= 8; t *= 2) {
        c.plan.tp = t;
        const double total = CHECK_ESTIMATE(&c).peak_bytes;
        CHECK(total < previous);
        previous = total;
    }
}

static void zone_should_follow_the_80_percent_rule(void)
{
    tp_config c;
    tp_config_defaults(&c);
    const double peak = CHECK_ESTIMATE(&c).peak_bytes;
    /* exactly at the rule, the division rounded so that peak / capacity is 0.8: still green */
    c.system.gpu.memory_bytes = peak / TP_SAFE_FRACTION;
    while (peak / c.system.gpu.memory_bytes > TP_SAFE_FRACTION)
        c.system.gpu.memory_bytes = nextafter(c.system.gpu.memory_bytes, INFINITY);
    CHECK_INT(CHECK_ESTIMATE(&c).zone, TP_ZONE_GREEN);
    c.system.gpu.memory_bytes = peak / 0.9;
    CHECK_INT(CHECK_ESTIMATE(&c).zone, TP_ZONE_YELLOW);
    c.system.gpu.memory_bytes = peak;
    CHECK_INT(CHECK_ESTIMATE(&c).zone, TP_ZONE_YELLOW);
    /* over capacity only with the allocator's slack: yellow; the tensors
     * alone over it: red */
    const double allocated = CHECK_ESTIMATE(&c).allocated_peak_bytes;
    CHECK(allocated < peak);
    c.system.gpu.memory_bytes = 0.5 * (allocated + peak);
    CHECK_INT(CHECK_ESTIMATE(&c).zone, TP_ZONE_YELLOW);
    c.system.gpu.memory_bytes = allocated * 0.99;
    CHECK_INT(CHECK_ESTIMATE(&c).zone, TP_ZONE_RED);
    CHECK_STR(tp_zone_str(TP_ZONE_RED), "red");
}

/* activation_parts works activations_bytes out (trainplan.h): the parts
 * for the default Llama-3.1-8B (s 8192, b 1, t 1) by hand, and the sum in
 * each recompute mode, with and without FlashAttention, on every stage of
 * an interleaved pipeline. */
static void activation_parts_should_sum_to_the_activations(void)
{
    tp_config c;
    tp_config_defaults(&c);
    const tp_estimate_result r = CHECK_ESTIMATE(&c);
    const tp_activation_parts *a = &r.stages[0].activation_parts;
    CHECK_NEAR(a->embedding_bytes, 8.0 * 8192 * 4096, 0.5);                          /* eq. 13 */
    CHECK_NEAR(a->lm_head_bytes, 4.0 * 8192 * 4096 * (1.0 + 128256.0 / 4096), 0.5); /* eq. 14 */
    CHECK_NEAR(a->layer_input_bytes, 2.0 * 8192 * 4096, 0.5); /* bf16 input */
    CHECK_NEAR(a->scores_bytes, 0.0, 0.0);
    const tp_recompute modes[] = {TP_RECOMPUTE_NONE, TP_RECOMPUTE_SELECTIVE, TP_RECOMPUTE_FULL};
    c.system.gpus = 16;
    c.plan.pp = 4;
    c.plan.tp = 2;
    c.plan.schedule = TP_SCHEDULE_INTERLEAVED;
    c.plan.virtual_stages = 2;
    for (int flash = 0; flash < 2; flash++) {
        for (int i = 0; i < 3; i++) {
            c.training.flash_attention = flash;
            c.training.recompute = modes[i];
            const tp_estimate_result x = CHECK_ESTIMATE(&c);
            for (int k = 0; k < x.stage_count; k++) {
                const tp_stage_memory *s = &x.stages[k];
                const tp_activation_parts *p = &s->activation_parts;
                const double n = s->layers_in_flight;
                double layers = n * (p->layer_bytes + p->scores_bytes);
                if (modes[i] == TP_RECOMPUTE_SELECTIVE)
                    layers = n * p->layer_bytes + p->scores_bytes;
                if (modes[i] == TP_RECOMPUTE_FULL)
                    layers = (n - 1.0) * p->layer_input_bytes + p->layer_bytes + p->scores_bytes;
                CHECK_NEAR(s->activations_bytes, layers + p->embedding_bytes + p->lm_head_bytes,
                           1e-9 * s->activations_bytes);
                CHECK(flash ? p->scores_bytes == 0.0 : p->scores_bytes > 0.0);
            }
            CHECK(x.stages[0].activation_parts.embedding_bytes > 0.0);
            CHECK(x.stages[0].activation_parts.lm_head_bytes == 0.0);
            CHECK(x.stages[x.stage_count - 1].activation_parts.lm_head_bytes > 0.0);
        }
    }
}

/* torchtitan's per-op checkpointing (training.recompute "selective_op") on
 * Llama 3.1 8B (h 4096, 32 heads of 128, 8 kv heads, ffn 14336), b = 2,
 * s = 8192, tp 1: each layer keeps, in bf16, Q 4096 + V 1024 + attention
 * output 4096 + W1's output 14336 + W2's output 4096 + the input 4096
 * values per token; the one layer recomputed in its backward adds the
 * rest of a whole layer (kept_layer below, Fujii et al. 2024 eq. 12). */
static void selective_op_should_keep_every_other_multiply(void)
{
    tp_config c;
    tp_config_defaults(&c); /* llama-3.1-8b, seq 8192, tp 1, 1 stage */
    c.training.framework = TP_FRAMEWORK_TORCHTITAN; /* its eager SwiGLU keeps 8f */
    tp_framework_defaults(&c);
    c.training.micro_batch = 2;
    c.training.global_batch = 16;
    c.training.recompute = TP_RECOMPUTE_SELECTIVE_OP;
    const tp_estimate_result r = CHECK_ESTIMATE(&c);
    const double tokens = 2.0 * 8192.0;
    /* 2 B x 16384 x 31744 = 1,040,187,392 B per layer */
    const double op_layer = 2.0 * tokens * (4096.0 + 1024.0 + 4096.0 + 14336.0 + 4096.0 + 4096.0);
    CHECK_NEAR(op_layer, 1040187392.0, 0.0);
    /* all a layer stores without recompute: Q, O 2h each, K and V 2w each,
     * SwiGLU 8f, norms' and sublayers' inputs 8h (model.c): 167,936 B a
     * token, 2,751,463,424 B a layer */
    const double kept_layer = tokens * (2.0 * 4096 + 2.0 * 4096 + 4.0 * 1024 + 8.0 * 14336 + 8.0 * 4096);
    CHECK_NEAR(kept_layer, 2751463424.0, 0.0);
    const tp_stage_memory *s = &r.stages[0];
    const tp_activation_parts *a = &s->activation_parts;
    /* 32 layers' kept parts, one layer recomputed whole, embedding and head */
    const double expected = 32.0 * op_layer + (kept_layer - op_layer) + a->embedding_bytes + a->lm_head_bytes;
    CHECK_NEAR(s->activations_bytes, expected, 0.0);
    CHECK_NEAR(s->activations_bytes, 44207964160.0, 0.0);
    /* between full recompute and none */
    c.training.recompute = TP_RECOMPUTE_FULL;
    CHECK(CHECK_ESTIMATE(&c).stages[0].activations_bytes < s->activations_bytes);
    c.training.recompute = TP_RECOMPUTE_NONE;
    CHECK(CHECK_ESTIMATE(&c).stages[0].activations_bytes > s->activations_bytes);
}

/* What a layer keeps depends on the trainer (frameworks.c): Llama 3.1 8B
 * (h 4096, w 1024, f 14336) at s 8192, b 1, tp 1, bytes a token (model.c):
 *   eager SwiGLU (torchtitan), bf16: 8h + 4h + 4w + 8f        = 167,936
 *   fused SwiGLU (Megatron-Core), bf16: 8h + 4h + 4w + 6f     = 139,264
 *   fused, fp8 with Transformer Engine's fp8 inputs: the norms'
 *   outputs at 1 B (6h), W_O's fp8 input beside O (5h), 4w, 5f = 120,832
 *   torchtitan with fp8 (torchao keeps bf16 inputs)           = 167,936
 *   torchtitan compiled (training.eager false): the partitioner
 *   rebuilds the norms' outputs and SwiGLU's product, so 4h + 4h
 *   + 4w + 4f, with fp8 or without                            =  94,208
 *   Megatron-Core with training.recompute_elementwise, fp8: the
 *   fp8 casts are rebuilt too                                 =  94,208 */
static void layer_should_keep_what_its_trainer_keeps(void)
{
    static const struct {
        tp_framework framework;
        int fp8, eager, elementwise;
        double bytes_per_token;
    } cases[] = {
        {TP_FRAMEWORK_TORCHTITAN, 0, 1, -1, 167936.0},
        {TP_FRAMEWORK_MEGATRON_CORE, 0, 0, -1, 139264.0},
        {TP_FRAMEWORK_MEGATRON_CORE, 1, 0, -1, 120832.0},
        {TP_FRAMEWORK_NEMO, 1, 0, -1, 120832.0},
        {TP_FRAMEWORK_TORCHTITAN, 1, 1, -1, 167936.0},
        {TP_FRAMEWORK_TORCHTITAN, 0, 0, -1, 94208.0},
        {TP_FRAMEWORK_TORCHTITAN, 1, 0, -1, 94208.0},
        {TP_FRAMEWORK_MEGATRON_CORE, 1, 0, 1, 94208.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_config c;
        tp_config_defaults(&c); /* llama-3.1-8b, s 8192, b 1, tp 1 */
        c.training.framework = cases[i].framework;
        tp_framework_defaults(&c);
        c.training.eager = cases[i].eager;
        tp_framework_compile_defaults(&c);
        if (cases[i].elementwise >= 0)
            c.training.recompute_elementwise = cases[i].elementwise;
        c.training.fp8 = cases[i].fp8;
        const tp_estimate_result r = CHECK_ESTIMATE(&c);
        CHECK_NEAR(r.stages[0].activation_parts.mean_layer_bytes, 8192.0 * cases[i].bytes_per_token, 0.0);
    }
}

/* torch.compile's partitioner changes what a layer keeps from its forward
 * to its backward, not the layer being back-propagated, which holds the
 * rebuilt results again: with full recompute (one layer re-run whole) and
 * in the backward's workspace a compiled torchtitan layer counts as much
 * as one that keeps everything; without recompute 31 of the 32 layers
 * keep 94,208 B a token instead of 167,936, the one back-propagated all. */
static void rebuilt_results_should_return_in_the_layer_backpropagated(void)
{
    tp_config c;
    tp_config_defaults(&c); /* llama-3.1-8b, s 8192, b 1, tp 1 */
    c.training.framework = TP_FRAMEWORK_TORCHTITAN;
    tp_framework_defaults(&c);
    c.training.eager = 0;
    tp_framework_compile_defaults(&c);
    CHECK_INT(c.training.recompute_elementwise, 1);
    tp_config stored = c;
    stored.training.recompute_elementwise = 0;
    const double tokens = 8192.0, kept = 94208.0 * tokens, whole = 167936.0 * tokens;
    for (int full = 0; full <= 1; full++) {
        c.training.recompute = stored.training.recompute = full ? TP_RECOMPUTE_FULL : TP_RECOMPUTE_NONE;
        const tp_estimate_result r = CHECK_ESTIMATE(&c), s = CHECK_ESTIMATE(&stored);
        CHECK_NEAR(r.stages[0].other.backward_workspace_bytes, whole, 0.0);
        CHECK_NEAR(s.stages[0].other.backward_workspace_bytes, whole, 0.0);
        const double saved = full ? 0.0 : 31.0 * (whole - kept);
        CHECK_NEAR(s.stages[0].activations_bytes - r.stages[0].activations_bytes, saved, 1e-3);
    }
}

/* Megatron-Core's recompute modules free what they recompute (model.c),
 * bytes a token of Llama 3.1 8B (fused SwiGLU, bf16: 139,264 a layer):
 * mlp the MLP's 6f = 86,016 and its norm's output 2h = 8,192; layernorm
 * both norms' outputs 16,384 (one, 8,192, when mlp took the other); with
 * fp8 the linear layers keep their own fp8 copies, so layernorm frees
 * nothing. DeepSeek-V3: mla_up_proj frees Q (2 x 128 x 192) and K, V
 * (2 x 128 x 320), 131,072 a token; moe_act each routed copy's SwiGLU
 * output, 2 f_e = 4,096, 8 copies a token. The MLP's recompute adds its
 * forward GEMMs to the hardware FLOPs. */
static void recompute_modules_should_free_what_they_recompute(void)
{
    static const struct {
        int mlp, norms, fp8;
        double bytes_per_token;
    } cases[] = {
        {0, 0, 0, 139264.0}, {1, 0, 0, 139264.0 - 86016.0 - 8192.0}, {0, 1, 0, 139264.0 - 16384.0},
        {1, 1, 0, 139264.0 - 86016.0 - 16384.0}, {0, 1, 1, 120832.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_config c;
        tp_config_defaults(&c);
        c.training.recompute_mlp = cases[i].mlp;
        c.training.recompute_norms = cases[i].norms;
        c.training.fp8 = cases[i].fp8;
        const tp_estimate_result r = CHECK_ESTIMATE(&c);
        CHECK_NEAR(r.stages[0].activation_parts.mean_layer_bytes, 8192.0 * cases[i].bytes_per_token, 0.0);
    }
    tp_config c;
    tp_config_defaults(&c);
    const tp_estimate_result plain = CHECK_ESTIMATE(&c);
    c.training.recompute_mlp = 1;
    const tp_estimate_result mlp = CHECK_ESTIMATE(&c);
    /* 3 x 4096 x 14336 x 2 FLOPs a token, 32 layers, 8192 tokens a sample */
    CHECK_NEAR(mlp.throughput.hardware_flop_per_step - plain.throughput.hardware_flop_per_step,
               2.0 * 3.0 * 4096.0 * 14336.0 * 32.0 * 8192.0 * (double)c.training.global_batch, 1.0);
    CHECK(mlp.time.step_s > plain.time.step_s);

    tp_error err;
    const char *deepseek = "{\"model\":{\"preset\":\"deepseek-v3\"},\"system\":{\"cluster\":\"dgx-b200\","
                           "\"gpus\":256},\"training\":{\"seq_len\":4096,\"global_batch\":2048%s},"
                           "\"parallel\":{\"tp\":1,\"pp\":16,\"ep\":16}}";
    const char *extra[] = {"", ",\"recompute_mla_up_proj\":true", ",\"recompute_moe_act\":true"};
    double layer_bytes[3];
    for (int i = 0; i < 3; i++) {
        char json[512];
        snprintf(json, sizeof json, deepseek, extra[i]);
        tp_config d;
        CHECK_INT(tp_config_from_json(json, &d, &err), TP_OK);
        layer_bytes[i] = CHECK_ESTIMATE(&d).stages[1].activation_parts.layer_bytes;
    }
    CHECK_NEAR(layer_bytes[0] - layer_bytes[1], 4096.0 * 131072.0, 0.0);
    CHECK_NEAR(layer_bytes[0] - layer_bytes[2], 4096.0 * 8.0 * 4096.0, 0.0);

    c.training.recompute = TP_RECOMPUTE_FULL;
    CHECK_INT(tp_estimate(&c, &(tp_estimate_result){0}, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.recompute_mlp");
    tp_config_defaults(&c);
    c.training.recompute_mla_up_proj = 1;
    CHECK_INT(tp_estimate(&c, &(tp_estimate_result){0}, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.recompute_mla_up_proj");
}

int main(void)
{
    memory_should_shard_states_by_zero_stage();
    memory_should_count_master_weights_only_for_low_precision();
    memory_should_replicate_block_inputs_without_sequence_parallel();
    memory_should_order_pipeline_stages_by_micro_batches_in_flight();
    memory_should_grow_with_micro_batch_and_shrink_with_tp();
    zone_should_follow_the_80_percent_rule();
    activation_parts_should_sum_to_the_activations();
    selective_op_should_keep_every_other_multiply();
    layer_should_keep_what_its_trainer_keeps();
    rebuilt_results_should_return_in_the_layer_backpropagated();
    recompute_modules_should_free_what_they_recompute();
    return check_finish("memory");
}
