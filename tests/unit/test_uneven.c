/*
 * test_uneven: pipeline stages that need not divide the layers
 * (plan_split_layers, valid_layers). Published runs split so: Llama 3.1
 * 405B's 126 layers over 16 stages, DeepSeek-V3's 61 over 8 or 16,
 * BLOOM-176B's 70 over 12. The balanced rule counts the embedding and the
 * LM head as a layer each and spreads the L + 2 units evenly, the earlier
 * stages taking the extra ones (torchtitan's default split).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "tp_internal.h"

static tp_estimate_result out, outright;

static void estimate_json(const char *json, tp_config *c, tp_estimate_result *r)
{
    tp_error err = {TP_OK, "", ""};
    CHECK_INT(tp_config_from_json(json, c, &err), TP_OK);
    CHECK_INT(tp_estimate(c, r, &err), TP_OK);
    if (err.status != TP_OK)
        fprintf(stderr, "%s: %s\n", err.path, err.message);
}

/* Llama 3.1 405B at tp 8, pp 16 on 8,192 H100s, 8K sequences, b 1, B 2048
 * (the Llama 3 paper's pretraining shape): 126 + 2 units are 8 a stage, so
 * the first and the last stage hold 7 layers beside the embedding and the
 * LM head (the Llama 3 paper, §3.3.2: one layer fewer on each end), the 14
 * middle ones 8. */
static void llama_405b_at_pp_16(void)
{
    tp_config c;
    estimate_json("{\"model\":{\"preset\":\"llama-3.1-405b\"},\"system\":{\"gpu\":\"h100-80gb\",\"gpus\":8192},"
                  "\"training\":{\"seq_len\":8192,\"micro_batch\":1,\"global_batch\":2048},"
                  "\"parallel\":{\"tp\":8,\"pp\":16}}", &c, &out);
    CHECK_INT(out.stage_count, 3);
    CHECK_INT(out.stages[0].layers, 7);
    CHECK_INT(out.stages[1].layers, 8);
    CHECK_INT(out.stages[2].layers, 7);
    int64_t sum = 0;
    for (int64_t rank = 0; rank < 16; rank++)
        sum += plan_stage_layers(&c, rank);
    CHECK_INT(sum, 126);
    /* the first stage: 7 layers and the embedding over tp 8, and 16
     * micro-batches of 7 layers in flight (1F1B holds p on the first) */
    const model_layers layers = model_describe_layers(&c.model, &c.training);
    const tp_stage_memory *first = &out.stages[0];
    const double params = 7.0 * model_layer_params_per_gpu(&layers.dense, 8) + model_embedding_params(&c.model) / 8.0;
    CHECK_NEAR(first->params, params, 1e-9 * params);
    CHECK_NEAR(first->weights_bytes, 2.0 * params, 1e-9 * params);
    CHECK_INT(first->in_flight, 16);
    CHECK_NEAR(first->layers_in_flight, 112.0, 1e-12);
    /* the same split given outright is the same estimate */
    c.plan.first_stage_layers = c.plan.last_stage_layers = 7;
    CHECK_INT(tp_estimate(&c, &outright, NULL), TP_OK);
    CHECK_NEAR(outright.stages[0].total_bytes, first->total_bytes, 0.0);
    CHECK_NEAR(outright.time.step_s, out.time.step_s, 0.0);
    printf("405B tp 8 pp 16 on 8192 H100: stages %lld/%lld/%lld layers, first %.2f GiB (%.2f GiB "
           "activations), peak %s %.2f GiB, step %.2f s\n",
           (long long)out.stages[0].layers, (long long)out.stages[1].layers, (long long)out.stages[2].layers,
           first->total_bytes / 1073741824.0, first->activations_bytes / 1073741824.0,
           out.stages[out.peak_stage].name, out.peak_bytes / 1073741824.0, out.time.step_s);
}

/* DeepSeek-V3 (61 layers, the first 3 dense) at pp 8: 63 units, seven
 * stages of 8 and the last of 7, so 7, 6 x 8, 6 layers; the MoE layers
 * are those of each stage's own range. */
static void deepseek_v3_at_pp_8(void)
{
    tp_config c;
    estimate_json("{\"model\":{\"preset\":\"deepseek-v3\"},\"system\":{\"gpus\":1024},"
                  "\"training\":{\"seq_len\":4096,\"micro_batch\":1,\"global_batch\":1024,\"recompute\":\"full\"},"
                  "\"parallel\":{\"tp\":2,\"pp\":8,\"ep\":64}}", &c, &out);
    CHECK_INT(out.stages[0].layers, 7);
    CHECK_INT(out.stages[1].layers, 8);
    CHECK_INT(out.stages[2].layers, 6);
    CHECK_INT(out.stages[0].experts.moe_layers, 4); /* layers 0-6, 3-6 MoE */
    CHECK_INT(out.stages[1].experts.moe_layers, 8); /* 7-14 */
    CHECK_INT(out.stages[2].experts.moe_layers, 6); /* 55-60 */
    CHECK(out.time.step_s > 0.0);
}

/* A BLOOM-176B-like model (70 layers, hidden 14,336, 112 heads, a
 * 250,880 vocabulary) at tp 4, pp 12 on 384 GPUs, as BLOOM trained: 72
 * units are 6 a stage, so 5, 10 x 6, 5 layers (Megatron-DeepSpeed's
 * partition that counted the embedding as a layer). */
static void bloom_like_at_pp_12(void)
{
    tp_config c;
    estimate_json("{\"model\":{\"preset\":\"gpt3-175b\",\"name\":\"bloom-like\",\"layers\":70,\"hidden\":14336,"
                  "\"heads\":112,\"kv_heads\":112,\"ffn_hidden\":57344,\"vocab\":250880},"
                  "\"system\":{\"gpu\":\"a100-80gb\",\"gpus\":384},"
                  "\"training\":{\"seq_len\":2048,\"micro_batch\":2,\"global_batch\":2048,\"recompute\":\"full\"},"
                  "\"parallel\":{\"tp\":4,\"pp\":12,\"zero\":1}}", &c, &out);
    CHECK_INT(out.stages[0].layers, 5);
    CHECK_INT(out.stages[1].layers, 6);
    CHECK_INT(out.stages[2].layers, 5);
    CHECK(out.time.step_s > 0.0);
}

/* Every split valid_layers accepts gives every stage at least one layer, a
 * multiple of v, and the layers add up; plan_layers_before is their running
 * sum; the balanced split's stages differ by at most 2 (one unit and the
 * end's). */
/* The layers of the first stage, of rank 1 (the middle stage with the
 * most) and of the last stage. */
static void check_stage_layers(const tp_config *c, int64_t first, int64_t middle, int64_t last)
{
    CHECK_INT(plan_stage_layers(c, 0), first);
    CHECK_INT(plan_stage_layers(c, 1), middle);
    CHECK_INT(plan_stage_layers(c, c->plan.pp - 1), last);
}

/* Interleaved and balanced: the 126 layers with the embedding and the LM
 * head are 128 units, 64 chunks of 2 over pp 8 x v 8, the very first and
 * last chunk a layer short (Megatron-LM's account-for-embedding and -loss
 * split); Qwen3-235B's 94 MoE layers over pp 8 x v 4 are 32 chunks of 3. */
static void balanced_interleaved_chunks(void)
{
    tp_config c;
    tp_estimate_result r;
    estimate_json("{\"model\":{\"preset\":\"llama-3.1-405b\"},\"system\":{\"gpus\":1024},"
                  "\"training\":{\"seq_len\":8192,\"global_batch\":512,\"recompute\":\"full\"},"
                  "\"parallel\":{\"tp\":8,\"pp\":8,\"schedule\":\"interleaved\",\"virtual_stages\":8}}", &c, &r);
    check_stage_layers(&c, 15, 16, 15);
    estimate_json("{\"model\":{\"preset\":\"qwen3-235b-a22b\"},\"system\":{\"gpus\":256},"
                  "\"training\":{\"seq_len\":4096,\"global_batch\":1024,\"recompute\":\"full\"},"
                  "\"parallel\":{\"tp\":2,\"pp\":8,\"ep\":16,\"schedule\":\"interleaved\",\"virtual_stages\":4}}",
                  &c, &r);
    CHECK_INT(r.stages[0].layers, 11);
    CHECK_INT(r.stages[0].experts.moe_layers, 11);
    CHECK_INT(r.stages[1].layers, 12);
    CHECK_INT(r.stages[1].experts.moe_layers, 12);
}

static void splits_should_add_up(void)
{
    srand(7);
    int valid = 0, uneven = 0;
    for (int i = 0; i < 20000; i++) {
        const int64_t layers = 1 + rand() % 130, pp = 1 + rand() % 40, v = 1 + rand() % 4;
        const int given = rand() % 3;
        const int64_t first = given ? rand() % 20 : 0, last = given == 2 ? rand() % 20 : 0;
        if (valid_layers(layers, pp, v, first, last, NULL) != TP_OK)
            continue;
        valid++;
        int64_t sum = 0, least = layers, most = 0;
        for (int64_t rank = 0; rank < pp; rank++) {
            const int64_t n = plan_split_layers(layers, pp, v, first, last, rank);
            CHECK_INT(plan_layers_before(layers, pp, v, first, last, rank), sum);
            /* every chunk the same; balanced and interleaved, the chunks'
             * units differ by at most one, the very first and last chunk
             * holding the embedding and the LM head */
            CHECK(n >= 1);
            if (v > 1 && first == 0 && last == 0 && layers % pp != 0) {
                const int64_t units = n + (rank == 0) + (rank == pp - 1), q = (layers + 2) / (pp * v);
                CHECK(units >= v * q && units <= v * (q + 1));
            } else {
                CHECK(n % v == 0);
            }
            sum += n;
            least = n < least ? n : least;
            most = n > most ? n : most;
        }
        CHECK_INT(sum, layers);
        if (first == 0 && last == 0)
            CHECK(most - least <= 2);
        uneven += most != least;
        /* rank 1 holds the most layers of the middle stages */
        for (int64_t rank = 2; rank < pp - 1; rank++)
            CHECK(plan_split_layers(layers, pp, v, first, last, rank) <= plan_split_layers(layers, pp, v, first, last, 1));
    }
    printf("%d valid splits, %d of them uneven\n", valid, uneven);
    CHECK(valid > 1500 && uneven > 1000);
}

/* Chunks that the units do not divide: DeepSeek-V3's 61 layers over pp 16
 * x v 2 are 63 units in 32 chunks, 31 of 2 and the last of 1, Megatron-
 * Bridge's layout "Et|(tt|)*30L" less its MTP block: rank 0 holds the
 * embedding and 3 layers, rank 15 2 layers and the LM head alone in its
 * second chunk. Llama 3.1 405B over pp 16 x v 8 is one unit a chunk, the
 * very first the embedding alone (Megatron-LM's account-for-embedding
 * split at 128 chunks). */
static void interleaved_chunks_of_unequal_units(void)
{
    tp_config c;
    tp_estimate_result r;
    estimate_json("{\"model\":{\"preset\":\"deepseek-v3\"},\"system\":{\"cluster\":\"dgx-b200\",\"gpus\":256},"
                  "\"training\":{\"seq_len\":4096,\"global_batch\":2048,\"recompute\":\"full\"},"
                  "\"parallel\":{\"tp\":1,\"pp\":16,\"ep\":16,\"schedule\":\"interleaved\",\"virtual_stages\":2}}",
                  &c, &r);
    check_stage_layers(&c, 3, 4, 2);
    int64_t first;
    CHECK_INT(plan_chunk_layers(&c, 0, 0, 2, &first), 1);
    CHECK_INT(first, 0);
    CHECK_INT(plan_chunk_layers(&c, 0, 1, 2, &first), 2);
    CHECK_INT(first, 31); /* chunk 16: units 32 and 33 */
    CHECK_INT(plan_chunk_layers(&c, 15, 1, 2, &first), 0);
    CHECK_INT(r.stages[0].layers, 3);
    estimate_json("{\"model\":{\"preset\":\"llama-3.1-405b\"},\"system\":{\"gpus\":2048},"
                  "\"training\":{\"seq_len\":8192,\"global_batch\":512,\"recompute\":\"full\"},"
                  "\"parallel\":{\"tp\":8,\"pp\":16,\"schedule\":\"interleaved\",\"virtual_stages\":8}}", &c, &r);
    check_stage_layers(&c, 7, 8, 7);
    CHECK_INT(plan_chunk_layers(&c, 0, 0, 8, &first), 0);
    CHECK_INT(plan_chunk_layers(&c, 0, 1, 8, &first), 1);
    CHECK_INT(first, 15); /* chunk 16 is unit 16, layer 16 */
}

int main(void)
{
    llama_405b_at_pp_16();
    deepseek_v3_at_pp_8();
    bloom_like_at_pp_12();
    balanced_interleaved_chunks();
    interleaved_chunks_of_unequal_units();
    splits_should_add_up();
    return check_finish("uneven");
}
