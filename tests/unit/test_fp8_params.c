/*
 * test_fp8_params: FP8 primary weights (training.precision.fp8_params,
 * Megatron-LM's --fp8-param-gather), worked by hand from memory.c's
 * bytes per parameter: fp8 compute alone keeps bf16 weights (2 B) and an
 * fp8 copy with its transpose (2 B); fp8 parameters keep the fp8 weights
 * (1 B) and their transpose (1 B), so 2 B a parameter less, and the fp32
 * master weights and the optimizer's states stay. Only the layers' weights
 * run in fp8: the embedding and the LM head keep their bf16 weights alone.
 */
#include "check.h"
#include "tp_internal.h"

/* llama-3.1-8b (P parameters) on 8 GPUs, zero 1: dp = 8 */
static tp_config fp8_config(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.training.fp8 = 1;
    return c;
}

static void fp8_params_should_store_one_byte_and_its_transpose(void)
{
    const double P = 8030261248.0;
    /* 32 layers of h 4096 (Q, O; K, V 1024 wide), a 14,336-wide SwiGLU and
     * two norms; the rest is the embedding, the LM head and the last norm */
    const double L = 32.0 * (4096.0 * (4096.0 + 2.0 * 1024.0 + 4096.0) + 3.0 * 4096.0 * 14336.0 + 2.0 * 4096.0);
    tp_config c = fp8_config();
    const tp_estimate_result before = CHECK_ESTIMATE(&c);
    CHECK_NEAR(before.stages[0].weights_bytes, 4.0 * L + 2.0 * (P - L), 1.0); /* bf16 + fp8 copy + transpose */
    c.training.fp8_params = 1;
    const tp_estimate_result after = CHECK_ESTIMATE(&c);
    CHECK_NEAR(after.bytes_per_param.weights, 1.0, 0.0);
    CHECK_NEAR(after.bytes_per_param.fp8_weights, 1.0, 0.0);
    CHECK_NEAR(after.stages[0].weights_bytes, 2.0 * L + 2.0 * (P - L), 1.0);
    CHECK_NEAR(before.stages[0].weights_bytes - after.stages[0].weights_bytes, 2.0 * L, 1.0);
    /* fp32 master weights (4 B) and Adam's two fp32 moments, over dp 8 */
    CHECK_NEAR(after.stages[0].optimizer_bytes, 12.0 * P / 8.0, 1.0);
    CHECK_NEAR(after.stages[0].gradients_bytes, before.stages[0].gradients_bytes, 0.0);
    CHECK_NEAR(after.stages[0].activations_bytes, before.stages[0].activations_bytes, 0.0);
    /* sharded weights (zero 3): the fp8 bytes and the transpose over dp */
    c.plan.zero = 3;
    CHECK_NEAR(CHECK_ESTIMATE(&c).stages[0].weights_bytes, (2.0 * L + 2.0 * (P - L)) / 8.0, 1.0);
}

/* The parameter all-gather after the distributed optimizer's step moves
 * 1 B a parameter instead of 2 (time.c's replica_step_s gathers
 * bytes_per_param.weights): on a slow network it is exposed, and less of
 * it with fp8 parameters. */
static void fp8_params_should_gather_one_byte_a_parameter(void)
{
    tp_config c = fp8_config();
    c.system.gpus = 64;
    c.system.network.slow.bytes_per_s = 1e9;
    const double bf16_gather = CHECK_ESTIMATE(&c).time.dp_step_s;
    c.training.fp8_params = 1;
    const double fp8_gather = CHECK_ESTIMATE(&c).time.dp_step_s;
    CHECK(fp8_gather < bf16_gather);
    /* FSDP full shard: each layer's gather halves too */
    c.plan.zero = 3;
    const double fp8_shard = CHECK_ESTIMATE(&c).time.micro_batch_dp_s;
    c.training.fp8_params = 0;
    CHECK(fp8_shard < CHECK_ESTIMATE(&c).time.micro_batch_dp_s);
}

/* Megatron-LM refuses --fp8-param-gather without fp8, and without its
 * distributed optimizer or FSDP; the master copy is what the optimizer
 * updates. */
static void fp8_params_should_be_refused_where_megatron_refuses_it(void)
{
    tp_config c = fp8_config();
    c.training.fp8_params = 1;
    c.training.fp8 = 0;
    CHECK_REFUSED(&c, "training.precision.fp8_params");
    c = fp8_config();
    c.training.fp8_params = 1;
    c.training.master_weights = 0;
    CHECK_REFUSED(&c, "training.precision.fp8_params");
    c = fp8_config();
    c.training.fp8_params = 1;
    c.plan.zero = 0;
    CHECK_REFUSED(&c, "training.precision.fp8_params");
    c.plan.sharding = TP_SHARD_FSDP_FULL;
    CHECK_ESTIMATE(&c);
    CHECK_STR(check_json_error("{\"training\": {\"precision\": {\"fp8\": true, \"fp8_params\": true}}}", NULL), "");
}

/* The search keeps fp8 parameters and so never offers an unsharded
 * optimizer. */
static void search_should_keep_the_optimizer_sharded_with_fp8_params(void)
{
    static tp_search_result r;
    tp_config c = fp8_config();
    c.training.fp8_params = 1;
    tp_search_space space;
    tp_search_defaults(&space);
    tp_error err;
    CHECK_INT(tp_search(&c, &space, &r, &err), TP_OK);
    CHECK(r.top_count > 0);
    for (int i = 0; i < r.top_count; i++)
        CHECK(tp_search_plan_sharding(&r.top[i].plan) != TP_SEARCH_ZERO0);
}

int main(void)
{
    fp8_params_should_store_one_byte_and_its_transpose();
    fp8_params_should_gather_one_byte_a_parameter();
    fp8_params_should_be_refused_where_megatron_refuses_it();
    search_should_keep_the_optimizer_sharded_with_fp8_params();
    return check_finish("fp8_params");
}
