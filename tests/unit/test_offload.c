/*
 * test_offload: activation offloading to host memory (training.
 * offload_layers, Megatron-Core's cpu_offloading), worked by hand from
 * memory.c and time.c: N of the L layers keep their activations in host
 * memory, so the GPU holds L - N layers' sets (Transformer Engine's
 * default synchronizer), and the copies cross system.gpu.host_gb_per_s
 * behind the other layers' compute.
 */
#include "check.h"
#include "tp_internal.h"

/* One layer set of llama-3.1-8b at s 8192, b 1, tp 1 with FlashAttention:
 * per token Q and the attention output 2h bytes each, K and V 2 x 1024,
 * Megatron-Core's fused SwiGLU 6 f, and 8h of norm and block inputs
 * (model.c): 139,264 bytes. */
#define LLAMA8B_LAYER_SET (8192.0 * 139264.0)

static void offload_should_take_n_layer_sets_off_the_gpu(void)
{
    tp_config c;
    tp_config_defaults(&c); /* llama-3.1-8b, 8 GPUs, pp 1, no recompute */
    const tp_estimate_result none = CHECK_ESTIMATE(&c);
    CHECK_NEAR(none.stages[0].activation_parts.mean_layer_bytes, LLAMA8B_LAYER_SET, 0.0);
    c.training.offload_layers = 8;
    const tp_estimate_result r = CHECK_ESTIMATE(&c);
    const tp_stage_memory *s = &r.stages[0];
    CHECK_NEAR(s->activation_parts.offloaded_bytes, 8.0 * LLAMA8B_LAYER_SET, 0.0);
    CHECK_NEAR(none.stages[0].activations_bytes - s->activations_bytes, 8.0 * LLAMA8B_LAYER_SET, 1.0);
    /* what the GPU holds: 24 layers, the embedding's and the LM head's */
    CHECK_NEAR(s->activations_bytes,
               24.0 * LLAMA8B_LAYER_SET + s->activation_parts.embedding_bytes + s->activation_parts.lm_head_bytes,
               1.0);
    /* the allocator's slack follows the activations the GPU holds */
    CHECK_NEAR(none.stages[0].other.fragmentation_bytes - s->other.fragmentation_bytes,
               0.05 * 8.0 * LLAMA8B_LAYER_SET, 1.0);
    CHECK_NEAR(none.stages[0].weights_bytes, s->weights_bytes, 0.0);
}

/* With N = L - 1 each copy has no layer of its own to hide behind
 * (L - N - 1 = 0; Transformer Engine warns it "prevents overlapping"), so
 * one copy stays exposed each way when the copies are shorter than a
 * layer: on a GB200's NVLink-C2C, 2 x 1.38 GB / 450 GB/s per micro-batch. */
static void offload_of_all_but_one_layer_should_expose_a_copy_each_way(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.system.gpu.host_bytes_per_s = 450e9;
    c.training.offload_layers = 31;
    const tp_estimate_result r = CHECK_ESTIMATE(&c);
    CHECK_NEAR(r.time.micro_batch_offload_s, 2.0 * LLAMA8B_LAYER_SET / 450e9, 1e-15);
    CHECK_NEAR(r.time.offload_s, (double)r.micro_batches * r.time.micro_batch_offload_s, 1e-12);
}

/* A fast host link hides every copy behind the other layers; a slow one
 * leaves the rest exposed, added to the step. */
static void offload_should_be_hidden_on_a_fast_link_and_exposed_on_a_slow_one(void)
{
    tp_config c;
    tp_config_defaults(&c);
    const tp_estimate_result none = CHECK_ESTIMATE(&c);
    c.training.offload_layers = 16;
    c.system.gpu.host_bytes_per_s = 1e15;
    const tp_estimate_result fast = CHECK_ESTIMATE(&c);
    CHECK_NEAR(fast.time.offload_s, 0.0, 0.0);
    CHECK_NEAR(fast.time.step_s, none.time.step_s, 0.0);
    c.system.gpu.host_bytes_per_s = 10e9; /* 138 ms a copy, a layer's forward about 9 */
    const tp_estimate_result slow = CHECK_ESTIMATE(&c);
    CHECK(slow.time.offload_s > 0.0);
    CHECK_NEAR(slow.time.step_s - none.time.step_s, slow.time.offload_s, 1e-9 * slow.time.step_s);
    /* 16 copies of 138 ms queue beyond the 30 layers' forward they may
     * hide behind: at least 16 x 138 ms - 30 forward layers stays */
    const double copy_s = LLAMA8B_LAYER_SET / 10e9;
    CHECK(slow.time.micro_batch_offload_s > 2.0 * (16.0 * copy_s) - 30.0 * (none.time.forward_s + none.time.backward_s) / 32.0);
    /* the default PCIe Gen5 link of the H100 (55 GB/s) hides 8 layers' copies */
    c.system.gpu.host_bytes_per_s = 55e9;
    c.training.offload_layers = 8;
    CHECK_NEAR(CHECK_ESTIMATE(&c).time.offload_s, 0.0, 0.0);
}

/* Megatron-Core: fewer layers than the model's (TE never offloads the
 * last), one pipeline stage, no recompute. */
static void offload_should_be_refused_where_megatron_refuses_it(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.training.offload_layers = 32;
    CHECK_REFUSED(&c, "training.offload_layers");
    c.training.offload_layers = 4;
    c.plan.pp = 2;
    CHECK_REFUSED(&c, "training.offload_layers");
    c.plan.pp = 1;
    c.training.recompute = TP_RECOMPUTE_SELECTIVE;
    CHECK_REFUSED(&c, "training.offload_layers");
    c.training.recompute = TP_RECOMPUTE_FULL;
    CHECK_REFUSED(&c, "training.offload_layers");
    CHECK_STR(check_json_error("{\"training\": {\"offload_layers\": 31}}", NULL), "");
    CHECK_STR(check_json_error("{\"training\": {\"offload_layers\": 32}}", NULL), "training.offload_layers");
}

/* The search keeps the offloading and offers the plans Megatron-Core runs
 * it with: one pipeline stage, no recompute. */
static void search_should_keep_offloading_with_one_stage(void)
{
    static tp_search_result r;
    tp_config c;
    tp_config_defaults(&c);
    c.system.gpus = 64;
    c.training.offload_layers = 8;
    tp_search_space space;
    tp_search_defaults(&space);
    tp_error err;
    CHECK_INT(tp_search(&c, &space, &r, &err), TP_OK);
    CHECK(r.top_count > 0);
    for (int i = 0; i < r.top_count; i++) {
        CHECK_INT(r.top[i].plan.pp, 1);
        CHECK_INT(r.top[i].recompute, TP_RECOMPUTE_NONE);
        const tp_config applied = tp_search_apply(&c, &r.top[i]);
        CHECK_INT(applied.training.offload_layers, 8);
        CHECK_INT(tp_config_validate(&applied, &err), TP_OK);
    }
}

int main(void)
{
    offload_should_take_n_layer_sets_off_the_gpu();
    offload_of_all_but_one_layer_should_expose_a_copy_each_way();
    offload_should_be_hidden_on_a_fast_link_and_exposed_on_a_slow_one();
    offload_should_be_refused_where_megatron_refuses_it();
    search_should_keep_offloading_with_one_stage();
    return check_finish("offload");
}
