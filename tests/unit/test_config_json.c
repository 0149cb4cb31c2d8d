/*
 * test_config_json: the config document in, the output document out.
 * Every invalid input gives an error naming the JSON path and the reason;
 * nothing crashes and no NaN is printed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tp_internal.h"

/* Expects json to fail with the given path and a message containing part. */
static void expect_error(const char *json, const char *path, const char *part)
{
    tp_config c;
    tp_error err = {TP_OK, "", ""};
    const tp_status status = tp_config_from_json(json, &c, &err);
    CHECK(status != TP_OK);
    CHECK_STR(err.path, path);
    if (strstr(err.message, part) == NULL)
        fprintf(stderr, "message for %s was \"%s\", wanted it to contain \"%s\"\n", path, err.message, part);
    CHECK(strstr(err.message, part) != NULL);
}

static void config_should_take_defaults_from_an_empty_document(void)
{
    tp_config c, d;
    tp_error err;
    CHECK_INT(tp_config_from_json("{}", &c, &err), TP_OK);
    tp_config_defaults(&d);
    CHECK(memcmp(&c, &d, sizeof c) == 0);
    CHECK_STR(c.model.name, "llama-3.1-8b");
    CHECK_STR(c.system.gpu.name, "h100-80gb");
}

static void config_should_read_every_section(void)
{
    const char *json =
        "{\"model\":{\"preset\":\"llama-3.1-70b\",\"layers\":40},"
        " \"system\":{\"gpu\":\"a100-40gb\",\"gpus\":64,\"gpus_per_node\":8},"
        " \"training\":{\"seq_len\":4096,\"global_batch\":512,\"micro_batch\":2,"
        "   \"precision\":{\"weights\":\"fp32\",\"gradients\":\"bf16\",\"optimizer\":\"bf16\"}},"
        " \"parallel\":{\"tp\":8,\"pp\":4,\"cp\":1,\"dp\":2,\"sp\":false,\"zero\":2}}";
    tp_config c;
    tp_error err;
    CHECK_INT(tp_config_from_json(json, &c, &err), TP_OK);
    CHECK_INT(c.model.layers, 40); /* a preset with an override */
    CHECK_INT(c.model.hidden, 8192);
    CHECK_STR(c.system.gpu.name, "a100-40gb");
    CHECK_INT(c.system.gpus, 64);
    CHECK_INT(c.training.seq_len, 4096);
    CHECK_INT(c.training.micro_batch, 2);
    CHECK_INT(c.training.weights_dtype, TP_DTYPE_FP32);
    CHECK_INT(c.training.gradients_dtype, TP_DTYPE_BF16);
    CHECK_INT(c.plan.tp, 8);
    CHECK_INT(c.plan.pp, 4);
    CHECK_INT(c.plan.sp, 0);
    CHECK_INT(c.plan.zero, 2);
}

static void config_should_accept_a_custom_model_and_gpu(void)
{
    const char *json =
        "{\"model\":{\"layers\":2,\"hidden\":64,\"heads\":4,\"ffn_hidden\":256,\"vocab\":1000},"
        " \"system\":{\"gpu\":{\"memory_gib\":16,\"tensor_tflops\":100,\"hbm_gbps\":900,"
        "   \"nvlink_gbps\":300,\"network_gbps\":100},\"gpus\":1}}";
    tp_config c;
    tp_error err;
    CHECK_INT(tp_config_from_json(json, &c, &err), TP_OK);
    CHECK_STR(c.model.name, "custom");
    CHECK_INT(c.model.kv_heads, 4); /* multi-head when kv_heads is left out */
    CHECK_NEAR(c.system.gpu.memory_bytes, 16.0 * TP_GIB, 0.5);
    CHECK_NEAR(c.system.gpu.network_bytes_per_s, 100e9 / 8.0, 1.0);
}

static void config_should_name_the_field_and_reason(void)
{
    expect_error("{\"parallel\":{\"tp\":3}}", "parallel.tp", "3 does not divide model.heads=32");
    expect_error("{\"training\":{\"seq_len\":0}}", "training.seq_len",
                 "must be an integer from 1 to 100000000 tokens, got 0");
    expect_error("{\"training\":{\"seq_len\":-5}}", "training.seq_len", "got -5");
    expect_error("{\"training\":{\"seq_len\":1.5}}", "training.seq_len", "must be an integer");
    expect_error("{\"training\":{\"seq_len\":\"8k\"}}", "training.seq_len", "must be an integer");
    expect_error("{\"training\":{\"seq_len\":1e300}}", "training.seq_len", "must be an integer");
    expect_error("{\"training\":{\"seq_len\":200000000}}", "training.seq_len", "to 100000000 tokens, got 200000000");
    expect_error("{\"training\":{\"micro_batch\":3}}", "training.global_batch", "not a multiple of micro_batch*dp");
    expect_error("{\"training\":{\"precision\":{\"weights\":\"int4\"}}}", "training.precision.weights", "fp32");
    expect_error("{\"training\":{\"precision\":{\"master\":\"fp32\"}}}", "training.precision.master", "unknown field");
    /* pp need not divide the layers (plan_split_layers), but every stage
     * keeps a layer, and the interleaved schedule's balanced split needs a
     * unit (a layer, the embedding or the LM head) for every chunk; given
     * splits must leave the middle stages equal shares */
    expect_error("{\"system\":{\"gpus\":64},\"parallel\":{\"pp\":64}}", "parallel.pp",
                 "64 stages are more than model.layers=32");
    expect_error("{\"system\":{\"gpus\":20},\"parallel\":{\"pp\":20}}", "parallel.pp",
                 "needs at least 2*pp - 2 = 38 layers");
    expect_error("{\"system\":{\"gpus\":24},\"training\":{\"global_batch\":1152},\"parallel\":{\"pp\":3,"
                 "\"schedule\":\"interleaved\",\"virtual_stages\":12}}", "parallel.virtual_stages",
                 "pp*virtual_stages=36 chunks are more than the 34 units of model.layers=32");
    expect_error("{\"parallel\":{\"first_stage_layers\":4}}", "parallel.first_stage_layers",
                 "applies only with parallel.pp of at least 2");
    expect_error("{\"system\":{\"gpus\":24},\"parallel\":{\"pp\":3,\"first_stage_layers\":9}}",
                 "parallel.first_stage_layers", "leaves 23 of model.layers=32, which do not split evenly over the other 2");
    expect_error("{\"system\":{\"gpus\":32},\"parallel\":{\"pp\":4,\"last_stage_layers\":30}}",
                 "parallel.last_stage_layers", "leaves 2 of model.layers=32 for the other 3 stages");
    expect_error("{\"system\":{\"gpus\":16},\"parallel\":{\"pp\":2,\"first_stage_layers\":10,"
                 "\"last_stage_layers\":10}}", "parallel.first_stage_layers", "must be model.layers=32 with parallel.pp=2");
    expect_error("{\"system\":{\"gpus\":24},\"parallel\":{\"pp\":3,\"schedule\":\"interleaved\","
                 "\"virtual_stages\":2,\"first_stage_layers\":9,\"last_stage_layers\":11}}",
                 "parallel.first_stage_layers", "split into virtual_stages=2 equal chunks (9 first, 12 for each");
    expect_error("{\"parallel\":{\"cp\":3}}", "parallel.cp", "does not split training.seq_len=8192 into 6 equal chunks");
    /* causal attention gives each cp rank two chunks: 4098 splits in 2, not in 4 (the search's rule too) */
    expect_error("{\"system\":{\"gpus\":2},\"training\":{\"seq_len\":4098},\"parallel\":{\"cp\":2}}",
                 "parallel.cp", "into 4 equal chunks");
    expect_error("{\"model\":{\"layers\":2,\"hidden\":3072,\"heads\":24,\"kv_heads\":8,"
                 "\"ffn_hidden\":6144,\"vocab\":1000},\"system\":{\"gpus\":3},\"parallel\":{\"tp\":3}}",
                 "parallel.tp", "neither divides nor is a multiple of model.kv_heads=8");
    expect_error("{\"parallel\":{\"pp\":16}}", "system.gpus", "not a multiple of tp*pp*cp=16");
    expect_error("{\"parallel\":{\"dp\":4}}", "parallel.dp", "disagrees");
    expect_error("{\"parallel\":{\"zero\":4}}", "parallel.zero", "must be an integer from 0 to 3, got 4");
    expect_error("{\"parallel\":{\"zero\":99999999999}}", "parallel.zero", "from 0 to 3, got 99999999999");
    expect_error("{\"parallel\":{\"sp\":1}}", "parallel.sp", "true or false");
    expect_error("{\"training\":{\"dataloader_mask\":\"yes\"}}", "training.dataloader_mask", "true or false");
    expect_error("{\"system\":{\"loader_gb_per_s\":0}}", "system.loader_gb_per_s",
                 "must be a number from 0.001 to 1000000 GB/s, got 0");
    expect_error("{\"system\":{\"loader_gbps\":-1}}", "system.loader_gbps", "from 0.001 to 1000000 GB/s, got -1");
    expect_error("{\"system\":{\"loader_gb_per_s\":\"fast\"}}", "system.loader_gb_per_s", "must be a number");
    expect_error("{\"system\":{\"loader_gbps\":1,\"loader_gb_per_s\":1}}", "system.loader_gbps",
                 "is the old name of loader_gb_per_s: give one of the two");
    expect_error("{\"training\":{\"recompute_layers\":4}}", "training.recompute_layers",
                 "applies only with training.recompute \"full\"");
    expect_error("{\"model\":{\"preset\":\"qwen2-57b-a14b\"},\"training\":{\"recompute\":\"selective_op\"}}",
                 "training.recompute", "selective_op is modelled for dense layers only");
    expect_error("{\"training\":{\"recompute\":\"selective_op\",\"flash_attention\":false}}",
                 "training.recompute", "without training.flash_attention");
    expect_error("{\"training\":{\"recompute\":\"full\",\"recompute_layers\":33}}",
                 "training.recompute_layers", "must be from 1 to the 32 layers of the largest pipeline stage");
    expect_error("{\"training\":{\"recompute\":\"full\",\"recompute_layers\":2.5}}",
                 "training.recompute_layers", "must be an integer");
    expect_error("{\"system\":{\"step_overhead_s\":-0.1}}", "system.step_overhead_s",
                 "must be a number from 0 to 3600");
    expect_error("{\"system\":{\"step_overhead_s\":1e9}}", "system.step_overhead_s",
                 "must be a number from 0 to 3600");
    expect_error("{\"parallel\":{\"tpp\":2}}", "parallel.tpp", "unknown field");
    expect_error("{\"modle\":{}}", "modle", "unknown field");
    /* a key cut to the path's 63 bytes inside a two-byte character loses
     * the whole character, so the error stays UTF-8 */
    expect_error("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9" "b\":{}}",
                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "unknown field");
    expect_error("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9" "b\":{}}",
                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9", "unknown field");
    expect_error("{\"model\":{\"preset\":\"gpt-5\"}}", "model.preset", "unknown model preset");
    expect_error("{\"model\":{\"layers\":2}}", "model.hidden", "required");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"heads\":5}}", "model.heads", "does not divide model.hidden");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"kv_heads\":3}}", "model.kv_heads", "does not divide model.heads");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"arch\":\"bert\"}}", "model.arch",
                 "must be \"llama\", \"gpt\" or \"vit\"");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"arch\":\"gpt\"}}", "model.positions",
                 "is required for gpt");
    /* a ViT encoder reads patches: no vocabulary, no tied table, patch_dim required */
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"arch\":\"vit\"}}", "model.patch_dim",
                 "must be from 1 to 10000000 (values per patch, required for vit), got 0");
    expect_error("{\"model\":{\"preset\":\"vit-era5\",\"vocab\":32000}}", "model.vocab",
                 "must be 0 for vit");
    expect_error("{\"model\":{\"preset\":\"vit-era5\",\"tied_embeddings\":true}}",
                 "model.tied_embeddings", "must be false for vit");
    expect_error("{\"model\":{\"preset\":\"gpt3-175b\",\"patch_dim\":320}}", "model.patch_dim",
                 "applies only to arch vit");
    expect_error("{\"model\":{\"arch\":\"vit\",\"layers\":2,\"hidden\":64,\"heads\":4,"
                 "\"ffn_hidden\":256,\"vocab\":100}}", "model.patch_dim", "required");
    expect_error("{\"model\":{\"preset\":\"vit-era5\"},\"training\":{\"seq_len\":65536}}",
                 "training.seq_len", "longer than model.positions=64800");
    expect_error("{\"system\":{\"gpu\":\"tpu\"}}", "system.gpu", "unknown GPU preset");
    expect_error("{\"system\":{\"gpu\":{\"memory_gib\":80}}}", "system.gpu.tensor_tflops", "required");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"h200\",\"memory_gib\":-1}}}", "system.gpu.memory_gib",
                 "must be a number from 0.001 to 1000000 GiB, got -1");
    expect_error("{\"system\":{\"gpus\":0}}", "system.gpus", "must be an integer from 1 to 10000000 GPUs, got 0");
    expect_error("{\"system\":{\"cluster\":\"dgx-z\"}}", "system.cluster", "unknown cluster");
    expect_error("{\"system\":{\"network\":{\"slow_gbit_per_s\":0}}}", "system.network.slow_gbit_per_s",
                 "from 0.001 to 8000000 Gbit/s, got 0");
    expect_error("{\"system\":{\"network\":{\"fast_efficiency\":1.5}}}", "system.network.fast_efficiency",
                 "must be a number from 0.001 to 1, got 1.5");
    expect_error("{\"system\":{\"network\":{\"nics\":4}}}", "system.network.nics", "unknown field");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"a100-40gb\",\"matmul_efficiency\":0}}}",
                 "system.gpu.matmul_efficiency", "from 0.001 to 1, got 0");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"h100-80gb\",\"overlap_slowdown\":1.5}}}",
                 "system.gpu.overlap_slowdown", "must be a number from 0 to 1");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"a100-80gb\",\"nvlink_overlap_slowdown\":-0.1}}}",
                 "system.gpu.nvlink_overlap_slowdown", "must be a number from 0 to 1");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"a100-80gb\",\"compute_spread\":-0.01}}}",
                 "system.gpu.compute_spread", "must be a number from 0 to 1");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"h100-80gb\",\"compute_spread\":\"1%\"}}}",
                 "system.gpu.compute_spread", "number");
    expect_error("{\"parallel\":{\"order\":\"tp-tp-dp-pp\"}}", "parallel.order", "once each");
    expect_error("{\"parallel\":{\"order\":\"tp,cp,dp,pp\"}}", "parallel.order", "once each");
    expect_error("{\"training\":{\"train_tokens\":0}}", "training.train_tokens", "from 1 to 1e+18 tokens, got 0");
    expect_error("{\"training\":{\"gpu_hour_cost\":-2}}", "training.gpu_hour_cost", "from 0");
    expect_error("{\"system\":[]}", "system", "must be an object");
    expect_error("[1,2]", "", "must be an object");
    expect_error("{\"model\":", "", "not valid JSON");
    expect_error("", "", "not valid JSON");
    expect_error("{} trailing", "", "not valid JSON");
}

/* Feeding the echoed config back must give the same document, byte for byte. */
static void check_round_trip(const char *json)
{
    tp_error err;
    char *out = tp_estimate_json(json, 0, &err);
    if (out == NULL)
        fprintf(stderr, "round trip of %s: %s: %s\n", json, err.path, err.message);
    CHECK(out != NULL);
    if (out == NULL)
        return;
    CHECK(strstr(out, "nan") == NULL && strstr(out, "null") == NULL);
    /* the echoed config reproduces the same document */
    const char *config_start = strstr(out, "\"config\":");
    const char *params_start = strstr(out, ",\"params\":");
    CHECK(config_start != NULL && params_start != NULL);
    if (config_start != NULL && params_start != NULL) {
        const size_t n = (size_t)(params_start - config_start) - strlen("\"config\":");
        char *config = malloc(n + 1);
        memcpy(config, config_start + strlen("\"config\":"), n);
        config[n] = '\0';
        char *again = tp_estimate_json(config, 0, &err);
        CHECK(again != NULL && strcmp(again, out) == 0);
        tp_free(again);
        free(config);
    }
    tp_free(out);
}

static void estimate_json_should_round_trip_its_config(void)
{
    tp_error err;
    char *out = tp_estimate_json("{\"parallel\":{\"tp\":2,\"pp\":2}}", 0, &err);
    CHECK(out != NULL);
    if (out != NULL) {
        CHECK(strstr(out, "\"zone\":\"green\"") != NULL);
        CHECK(strstr(out, "\"peak_stage\":\"first\"") != NULL);
        CHECK(strstr(out, "\"micro_batches\":512") != NULL);
    }
    tp_free(out);
    static const char *const documents[] = {
        "{\"parallel\":{\"tp\":2,\"pp\":2}}",
        "{\"model\":{\"arch\":\"vit\",\"layers\":4,\"hidden\":256,\"heads\":4,\"ffn_hidden\":1024,"
        "\"patch_dim\":48},\"training\":{\"seq_len\":1024},\"parallel\":{\"tp\":2,\"cp\":4}}",
        "{\"model\":{\"preset\":\"gpt3-175b\"},\"system\":{\"gpus\":64},\"training\":{\"seq_len\":2048,"
        "\"recompute\":\"selective\",\"flash_attention\":false,\"optimizer\":\"adafactor\"},"
        "\"parallel\":{\"tp\":8,\"pp\":8,\"schedule\":\"interleaved\",\"virtual_stages\":3}}",
        "{\"system\":{\"gpus\":64},\"parallel\":{\"sharding\":\"amsp\",\"amsp\":{\"weights\":[2,1],"
        "\"gradients\":[4,1],\"optimizer\":[8,2]}},\"training\":{\"optimizer\":\"adam8bit\","
        "\"precision\":{\"fp8\":true,\"master_weights\":false}}}",
        "{\"system\":{\"gpus\":32},\"parallel\":{\"sharding\":\"fsdp_hybrid_shard\",\"shard_group\":16,"
        "\"schedule\":\"gpipe\"},\"overheads\":{\"cuda_context_gib\":1,\"fragmentation\":0.1,"
        "\"prefetch_layers\":2}}",
        "{\"model\":{\"layers\":4,\"hidden\":1024,\"heads\":16,\"kv_heads\":1,\"ffn_hidden\":4096,"
        "\"vocab\":32000,\"arch\":\"gpt\",\"positions\":4096,\"tied_embeddings\":false},"
        "\"parallel\":{\"tp\":8,\"sharding\":\"fsdp_shard_grad_op\"},\"training\":{\"seq_len\":4096}}",
        "{\"system\":{\"cluster\":\"tsubame4\",\"gpus\":16,\"loader_gb_per_s\":0.3,\"step_overhead_s\":0.25,\"network\":{\"slow_efficiency\":0.5}},"
        "\"parallel\":{\"tp\":2,\"cp\":2,\"order\":\"cp-tp-pp-dp\"},"
        "\"training\":{\"train_tokens\":2e12,\"gpu_hour_cost\":2.5,\"dataloader_mask\":true}}",
        "{\"system\":{\"gpus\":16},\"parallel\":{\"tp\":4,\"pp\":4},"
        "\"training\":{\"recompute\":\"full\",\"recompute_layers\":3}}",
        "{\"model\":{\"preset\":\"gpt3-175b\"},\"system\":{\"gpus\":64},\"training\":{\"seq_len\":2048},"
        "\"parallel\":{\"tp\":4,\"cp\":2,\"tp_algorithm\":\"summa\",\"summa_panels\":4}}",
        "{\"system\":{\"gpus\":64},\"training\":{\"global_batch\":64},"
        "\"parallel\":{\"tp\":2,\"cp\":2,\"pp\":4,\"per_node\":{\"tp\":2,\"cp\":2,\"dp\":2}}}",
        "{\"model\":{\"preset\":\"gpt3-175b\"},\"system\":{\"gpus\":64},\"training\":{\"seq_len\":2048},"
        "\"parallel\":{\"tp\":4,\"cp\":2,\"tp_algorithm\":\"summa\"}}",
        "{\"system\":{\"gpu\":{\"memory_gib\":80,\"tensor_tflops\":500,\"hbm_gb_per_s\":3000,"
        "\"nvlink_gb_per_s\":900,\"network_gbit_per_s\":400,\"kernel_latency_us\":7,"
        "\"overlap_slowdown\":0,\"nvlink_overlap_slowdown\":0.5,\"compute_spread\":0.03}}}",
        /* a framework's facts set back to 0 stay 0 when the echo is read
         * again (torchtitan's default is eager, gathered once, rebuilt) */
        "{\"system\":{\"gpus\":16},\"training\":{\"framework\":\"torchtitan\",\"eager\":false}}",
        "{\"system\":{\"gpus\":16},\"parallel\":{\"pp\":2,\"sharding\":\"fsdp_full_shard\","
        "\"pp_gather_once\":false},\"training\":{\"framework\":\"torchtitan\",\"eager\":false,"
        "\"recompute_elementwise\":false}}",
    };
    for (size_t i = 0; i < sizeof documents / sizeof documents[0]; i++)
        check_round_trip(documents[i]);
    /* a field of another scheme is refused, not ignored */
    expect_error("{\"parallel\":{\"sharding\":\"fsdp_full_shard\",\"zero\":3}}", "parallel.zero",
                 "applies only with parallel.sharding \"zero\"");
    expect_error("{\"parallel\":{\"amsp\":{\"weights\":[1,1]}}}", "parallel.amsp",
                 "applies only with parallel.sharding \"amsp\"");
    expect_error("{\"system\":{\"gpus\":64},\"parallel\":{\"sharding\":\"amsp\",\"amsp\":{\"weights\":[2]}}}",
                 "parallel.amsp.weights", "two integers");
    /* an explicit placement (Subramanian et al. 2024 §III-A S3): one block of the rank grid fills a node */
    expect_error("{\"parallel\":{\"order\":\"tp-dp-cp-pp\",\"per_node\":{\"dp\":8}}}", "parallel.per_node",
                 "conflicts with parallel.order");
    expect_error("{\"parallel\":{\"per_node\":[8,1,1,1]}}", "parallel.per_node", "must be an object");
    expect_error("{\"parallel\":{\"per_node\":{\"ep\":8}}}", "parallel.per_node.ep", "unknown field");
    expect_error("{\"parallel\":{\"per_node\":{\"dp\":0}}}", "parallel.per_node.dp", "must be from 1 to 8 (at most system.gpus_per_node), got 0");
    expect_error("{\"system\":{\"gpus\":48},\"training\":{\"global_batch\":48},"
                 "\"parallel\":{\"tp\":2,\"pp\":2,\"per_node\":{\"dp\":8}}}",
                 "parallel.per_node.dp", "8 does not divide the group's size dp=12");
    expect_error("{\"system\":{\"gpus\":64},\"parallel\":{\"tp\":2,\"per_node\":{\"tp\":2,\"dp\":2}}}",
                 "parallel.per_node", "multiply to 4, not to the 8 GPUs of a node");
    expect_error("{\"system\":{\"gpus\":4},\"parallel\":{\"per_node\":{\"dp\":2}}}",
                 "parallel.per_node", "multiply to 2, not to the 4 GPUs of a node");
    /* SUMMA's rules: dense gqa layers, sp on with tp, panels that cut hidden and ffn */
    expect_error("{\"parallel\":{\"summa_panels\":4}}", "parallel.summa_panels",
                 "applies only with parallel.tp_algorithm \"summa\"");
    expect_error("{\"parallel\":{\"tp_algorithm\":\"cannon\"}}", "parallel.tp_algorithm",
                 "must be \"megatron\" or \"summa\"");
    expect_error("{\"parallel\":{\"tp\":2,\"sp\":false,\"tp_algorithm\":\"summa\"}}", "parallel.sp",
                 "must be true with SUMMA");
    expect_error("{\"parallel\":{\"tp_algorithm\":\"summa\",\"summa_panels\":3}}", "parallel.summa_panels",
                 "does not divide both model.hidden=4096 and model.ffn_hidden=14336");
    expect_error("{\"parallel\":{\"tp_algorithm\":\"summa\",\"summa_panels\":0.5}}", "parallel.summa_panels",
                 "integer");
    expect_error("{\"model\":{\"preset\":\"mixtral-8x7b\"},\"parallel\":{\"tp_algorithm\":\"summa\"}}",
                 "parallel.tp_algorithm", "dense models only");
    expect_error("{\"model\":{\"layers\":4,\"hidden\":1024,\"heads\":8,\"ffn_hidden\":4096,\"vocab\":32000,"
                 "\"attention\":\"mla\",\"mla\":{\"kv_lora_rank\":256,\"qk_nope_head_dim\":64,"
                 "\"qk_rope_head_dim\":32,\"v_head_dim\":64}},\"parallel\":{\"tp_algorithm\":\"summa\"}}",
                 "parallel.tp_algorithm", "not modelled for mla");
    expect_error("{\"parallel\":{\"schedule\":\"zigzag\"}}", "parallel.schedule",
                 "must be \"1f1b\", \"interleaved\" or \"gpipe\"");
    expect_error("{\"parallel\":{\"virtual_stages\":2}}", "parallel.virtual_stages",
                 "must be 1 unless");
    expect_error("{\"overheads\":{\"fragmentation\":-0.1}}", "overheads.fragmentation",
                 "must be a number from 0 to 1");
    expect_error("{\"overheads\":{\"gpu_tax\":1}}", "overheads.gpu_tax", "unknown field");
    expect_error("{\"training\":{\"optimizer\":\"lion\"}}", "training.optimizer", "must be \"adam\"");
}

static void envelope_should_carry_errors_and_results(void)
{
    char *bad = tp_estimate_envelope_json("{\"parallel\":{\"tp\":3}}");
    CHECK(bad != NULL && strstr(bad, "\"ok\":false") != NULL);
    CHECK(bad != NULL && strstr(bad, "\"path\":\"parallel.tp\"") != NULL);
    tp_free(bad);
    char *good = tp_estimate_envelope_json("{}");
    CHECK(good != NULL && strstr(good, "\"ok\":true") != NULL);
    tp_free(good);
    char *none = tp_estimate_envelope_json(NULL);
    CHECK(none != NULL && strstr(none, "\"status\":\"parse\"") != NULL);
    tp_free(none);
}

/* Strict in: a document every tool reads the same way. */
static void json_should_be_strict(void)
{
    /* a key given twice is refused where it is, not read first-wins */
    expect_error("{\"parallel\":{\"tp\":2,\"tp\":3}}", "parallel.tp", "is given twice");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\"},\"model\":{}}", "model", "is given twice");
    expect_error("{\"search\":{\"gpus\":[{\"a\":1,\"a\":2}]}}", "search.gpus[0].a", "is given twice");
    /* a NUL escaped into a key or a name would truncate it to another */
    expect_error("{\"parallel\":{\"tp\\u0000x\":2}}", "", "NUL character");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\\u0000\"}}", "", "NUL character");
    /* \\u0000 is a backslash and the text u0000: no NUL */
    tp_config c;
    tp_error err;
    CHECK_INT(tp_config_from_json("{\"model\":{\"preset\":\"llama-3.1-8b\",\"name\":\"a\\\\u0000\"}}", &c, &err), TP_OK);
    CHECK_STR(c.model.name, "a\\u0000");
    /* invalid UTF-8 never reaches the output */
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"name\":\"\xff\"}}", "", "not valid UTF-8 (at byte 42)");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"name\":\"\xc0\xaf\"}}", "", "not valid UTF-8");
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"name\":\"\xed\xa0\x80\"}}", "", "not valid UTF-8");
    CHECK_INT(tp_config_from_json("{\"model\":{\"preset\":\"llama-3.1-8b\",\"name\":\"Gr\xc3\xbc\xc3\x9f\"}}", &c, &err),
              TP_OK);
    /* a name is printable text: no escape sequence reaches a terminal */
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"name\":\"\\u001b[31m\"}}", "model.name", "printable");
    /* -0 reads as 0, and echoes as 0 */
    CHECK_INT(tp_config_from_json("{\"overheads\":{\"cuda_context_gib\":-0}}", &c, &err), TP_OK);
    CHECK(c.overheads.cuda_context_bytes == 0.0 && !signbit(c.overheads.cuda_context_bytes));
    char *out = tp_estimate_json("{\"overheads\":{\"cuda_context_gib\":-0}}", 0, &err);
    CHECK(out != NULL && strstr(out, "-0") == NULL && strstr(out, "\"cuda_context_gib\":0,") != NULL);
    tp_free(out);
    /* a field the config does not use is still range-checked */
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"moe\":{\"experts\":8,\"experts_per_token\":2,"
                 "\"expert_ffn_hidden\":1024,\"shared_ffn_hidden\":-5000}}}",
                 "model.moe.shared_ffn_hidden", "got -5000");
    expect_error("{\"model\":{\"preset\":\"mixtral-8x7b\",\"moe\":{\"shared_ffn_hidden\":512}}}",
                 "model.moe.shared_ffn_hidden", "applies only with model.moe.shared_experts above 0");
    expect_error("{\"parallel\":{\"zero\":4294967297}}", "parallel.zero", "got 4294967297");
    /* a rate "above 0" with no floor made figures infinite; every rate has one */
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"h100-80gb\",\"tensor_tflops\":1e-300}}}",
                 "system.gpu.tensor_tflops", "must be a number from 0.001 to 1000000 TFLOP/s, got 1e-300");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"h100-80gb\",\"memory_gib\":1e-307}}}",
                 "system.gpu.memory_gib", "from 0.001 to 1000000 GiB");
    expect_error("{\"system\":{\"loader_gb_per_s\":1e-200}}", "system.loader_gb_per_s", "from 0.001");
    expect_error("{\"system\":{\"gpu\":{\"preset\":\"h100-80gb\",\"kernel_latency_us\":2e6}}}",
                 "system.gpu.kernel_latency_us", "must be a number from 0 to 1000000 µs, got 2000000");
    /* a preset given, its MoE fields named: the message says what is missing */
    expect_error("{\"model\":{\"preset\":\"llama-3.1-8b\",\"moe\":{\"every\":2}}}", "model.moe.experts",
                 "is required when the preset has no experts and model.moe.experts is not given");
}

/* Renamed keys: the old name reads the same value and the output says so. */
static void old_key_names_should_still_read(void)
{
    tp_error err;
    char *old = tp_estimate_json("{\"system\":{\"loader_gbps\":0.3,\"gpu\":{\"preset\":\"h100-80gb\","
                                 "\"hbm_gbps\":3000},\"network\":{\"slow_gbps\":200}}}", 0, &err);
    char *now = tp_estimate_json("{\"system\":{\"loader_gb_per_s\":0.3,\"gpu\":{\"preset\":\"h100-80gb\","
                                 "\"hbm_gb_per_s\":3000},\"network\":{\"slow_gbit_per_s\":200}}}", 0, &err);
    CHECK(old != NULL && now != NULL);
    if (old != NULL && now != NULL) {
        const char *notes = strstr(old, ",\"deprecated\":[");
        CHECK(notes != NULL && strstr(now, "deprecated") == NULL);
        CHECK(strstr(old, "system.gpu.hbm_gbps is now system.gpu.hbm_gb_per_s") != NULL);
        CHECK(strstr(old, "system.network.slow_gbps is now system.network.slow_gbit_per_s") != NULL);
        /* everything before the notes is the new-key document's output */
        CHECK(notes != NULL && strncmp(old, now, (size_t)(notes - old)) == 0 && now[notes - old] == '}');
    }
    tp_free(old);
    tp_free(now);
}

/* A framework's facts are the defaults of their fields: the config's own
 * value wins, wherever it stands in the document. */
static void framework_should_set_defaults_the_config_overrides(void)
{
    tp_config c;
    tp_error err;
    CHECK_INT(tp_config_from_json("{}", &c, &err), TP_OK);
    CHECK(c.training.framework == TP_FRAMEWORK_MEGATRON_CORE);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 6.0, 0.0);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"llm-foundry\"}}", &c, &err), TP_OK);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 0.0, 0.0);
    CHECK_INT(tp_config_from_json("{\"overheads\": {\"loss_bytes_per_logit\": 3}, "
                                  "\"training\": {\"framework\": \"llm-foundry\"}}", &c, &err), TP_OK);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 3.0, 0.0);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\"}}", &c, &err), TP_OK);
    CHECK_STR(tp_framework_str(c.training.framework), "torchtitan");
    CHECK_INT(c.training.fsdp_mixed_precision, 1);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 6.0, 0.0); /* eager: the fp32 copy and log-softmax */
    /* torchtitan compiles its loss with the model (components/loss.py):
     * the fact follows training.eager, and the config's own value wins */
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\", \"eager\": false}}", &c, &err),
              TP_OK);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 0.0, 0.0);
    CHECK_INT(tp_config_from_json("{\"overheads\": {\"loss_bytes_per_logit\": 6}, \"training\": {\"framework\": "
                                  "\"torchtitan\", \"eager\": false}}", &c, &err), TP_OK);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 6.0, 0.0);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"megatron-core\", \"eager\": true}}", &c, &err),
              TP_OK);
    CHECK_NEAR(c.overheads.loss_bytes_per_logit, 6.0, 0.0);
    /* torch.compile's partitioner rebuilds element-wise results: compiled
     * torchtitan only (Transformer Engine's fused layers keep them), and
     * an explicit value stays whatever the order of the keys */
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\"}}", &c, &err), TP_OK);
    CHECK_INT(c.training.recompute_elementwise, 0);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\", \"eager\": false}}", &c, &err),
              TP_OK);
    CHECK_INT(c.training.recompute_elementwise, 1);
    CHECK_INT(tp_config_from_json("{\"training\": {\"recompute_elementwise\": false, \"framework\": "
                                  "\"torchtitan\", \"eager\": false}}", &c, &err), TP_OK);
    CHECK_INT(c.training.recompute_elementwise, 0);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"megatron-core\"}}", &c, &err), TP_OK);
    CHECK_INT(c.training.recompute_elementwise, 0);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"megatron-core\", "
                                  "\"recompute_elementwise\": true}}", &c, &err), TP_OK);
    CHECK_INT(c.training.recompute_elementwise, 1);
    expect_error("{\"training\": {\"framework\": \"torchtitan\", \"eager\": false, \"recompute_norms\": true}}",
                 "training.recompute_norms", "recompute_elementwise");
    for (int f = 0; f < TP_FRAMEWORK_COUNT; f++)
        CHECK(tp_framework_source((tp_framework)f) != NULL && strlen(tp_framework_source((tp_framework)f)) > 30);
    expect_error("{\"training\": {\"framework\": \"jax\"}}", "training.framework", "torchtitan");
}

int main(void)
{
    framework_should_set_defaults_the_config_overrides();
    config_should_take_defaults_from_an_empty_document();
    config_should_read_every_section();
    config_should_accept_a_custom_model_and_gpu();
    config_should_name_the_field_and_reason();
    estimate_json_should_round_trip_its_config();
    envelope_should_carry_errors_and_results();
    json_should_be_strict();
    old_key_names_should_still_read();
    return check_finish("config_json");
}
