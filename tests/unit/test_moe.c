/*
 * test_moe: mixture-of-experts models.
 *
 * Parameter counts of the MoE presets against the counts their Hugging Face
 * config.json files give when worked out by hand (below, per preset), and
 * those against the totals the model cards print; expert memory against a
 * hand count for one plan; the rules of expert parallelism, each naming
 * its field; model FLOPs against 6 x active matrix parameters plus
 * attention; and the expert all-to-all's place in the step time.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "estimate_sanity.h"
#include "tp_internal.h"

static int64_t total(const char *name) { return tp_model_params_total(tp_model_preset_find(name)); }
static int64_t active(const char *name) { return tp_model_params_active(tp_model_preset_find(name)); }

static void presets_should_count_published_parameters(void)
{
    /* Mixtral 8x7B: per layer attention 2h^2 + 2hw = 41,943,040 (w = 1024),
     * router 8h = 32,768, experts 8 x 3 x 4096 x 14336 = 1,409,286,144,
     * norms 8,192; x 32, plus embeddings 2 x 32000 x 4096 and the final
     * norm. Mistral AI prints 46.7B total and 12.9B active. */
    CHECK_INT(total("mixtral-8x7b"), 46702792704LL);
    CHECK_INT(active("mixtral-8x7b"), 12879925248LL);
    /* Mixtral 8x22B: 56 layers of 2,504,060,928 (2 of 8 experts active:
     * 692,121,600), embeddings 2 x 32768 x 6144. Printed: 141B, 39B. */
    CHECK_INT(total("mixtral-8x22b"), 140630071296LL);
    CHECK_INT(active("mixtral-8x22b"), 39161468928LL);
    /* Qwen2-57B-A14B: 28 layers of attention 29,360,128 (no q/k/v biases
     * here), router 64h, 64 experts of 3 x 3584 x 2560, one shared expert
     * of 3 x 3584 x 20480, norms 2h; embeddings 2 x 151936 x 3584. The
     * model card prints 57B total, 14B active ("A14B"); the count here
     * leaves out 129,024 q/k/v biases and 100,352 shared-expert gate
     * weights, 0.0006% of the total. */
    CHECK_INT(total("qwen2-57b-a14b"), 57408429568LL);
    CHECK_INT(active("qwen2-57b-a14b"), 14249041408LL);
    /* a dense model is all active */
    CHECK_INT(active("llama-3.1-70b"), total("llama-3.1-70b"));
}

static tp_config mixtral_on_64(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("mixtral-8x7b");
    c.system.gpus = 64;
    c.training.seq_len = 4096;
    c.training.global_batch = 256;
    c.plan.tp = 2;
    c.plan.pp = 4;
    c.plan.ep = 8;
    c.plan.etp = 1;
    return c; /* dp = 8, edp = tp cp dp / (ep etp) = 2 */
}

static void expert_memory_should_shard_over_expert_groups(void)
{
    tp_config c = mixtral_on_64();
    tp_estimate_result r;
    tp_error err;
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    CHECK_INT(r.ep, 8);
    CHECK_INT(r.etp, 1);
    CHECK_INT(r.edp, 2);
    /* ZeRO-1: dense optimizer states over dp = 8, the experts' over edp = 2 */
    CHECK_INT(r.shard_optimizer, 8);
    CHECK_INT(r.expert_shard_optimizer, 2);
    const tp_stage_memory *s = &r.stages[0];
    /* 8 layers a stage, all MoE; 8 experts / ep 8 = one whole expert each */
    CHECK_INT(s->experts.moe_layers, 8);
    const double expert = 3.0 * 4096 * 14336;
    CHECK_NEAR(s->experts.params, 8 * expert, 0.0);
    CHECK_NEAR(s->experts.weights_bytes, 8 * expert * 2.0, 0.0);
    CHECK_NEAR(s->experts.gradients_bytes, 8 * expert * 4.0, 0.0);
    CHECK_NEAR(s->experts.optimizer_bytes, 8 * expert * 12.0 / 2.0, 0.0);
    /* routed activations, none recomputed: 1F1B's first stage holds pp = 4
     * micro-batches of 8 layers; each layer stores k = 2 copies of each of
     * its s/tp = 2048 sequence-parallel tokens, with 2h + 6 f_e bytes (the
     * expert's input and Megatron-Core's fused SwiGLU, which multiplies the
     * router's weight in, so no expert output is kept) */
    const double per_layer = 2.0 * 2048 * (2.0 * 4096 + 6.0 * 14336);
    CHECK_NEAR(s->experts.activations_bytes / (4 * 8 * per_layer), 1.0, 1e-12);
    /* a combine that weighs the outputs keeps each copy's output, 2h more */
    tp_config weighed = c;
    weighed.training.routing_weights_in_activation = 0;
    tp_estimate_result rw;
    CHECK_INT(tp_estimate(&weighed, &rw, &err), TP_OK);
    const double weighed_layer = 2.0 * 2048 * (4.0 * 4096 + 6.0 * 14336);
    CHECK_NEAR(rw.stages[0].experts.activations_bytes / (4 * 8 * weighed_layer), 1.0, 1e-12);
    /* the expert items are inside the stage's totals */
    CHECK(s->weights_bytes > s->experts.weights_bytes);
    CHECK(s->activations_bytes > s->experts.activations_bytes);

    /* ep 4, etp 2: two experts a GPU, each half as wide: the same expert
     * parameters per GPU and the same edp = 16 / 8 = 2 */
    c.plan.ep = 4;
    c.plan.etp = 2;
    tp_estimate_result r2;
    CHECK_INT(tp_estimate(&c, &r2, &err), TP_OK);
    CHECK_INT(r2.edp, 2);
    CHECK_NEAR(r2.stages[0].experts.params, s->experts.params, 0.0);

    /* a capacity factor of 1.25 makes the routed activations 1.25 x */
    c = mixtral_on_64();
    c.training.capacity_factor = 1.25;
    tp_estimate_result r3;
    CHECK_INT(tp_estimate(&c, &r3, &err), TP_OK);
    CHECK_NEAR(r3.stages[0].experts.activations_bytes / s->experts.activations_bytes, 1.25, 1e-12);
}

static void first_dense_layers_should_stay_on_the_first_stage(void)
{
    tp_config c = mixtral_on_64();
    c.model.moe.first_dense = 3; /* DeepSeek-V3 style */
    tp_estimate_result r;
    tp_error err;
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    CHECK_INT(r.stages[0].experts.moe_layers, 5);
    CHECK_INT(r.stages[1].experts.moe_layers, 8);
    /* every second layer MoE (Llama 4): layers 1, 3, 5, 7 of stage 0 */
    c.model.moe.first_dense = 0;
    c.model.moe.every = 2;
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    CHECK_INT(r.stages[0].experts.moe_layers, 4);
    CHECK_INT(tp_model_params_total(&c.model),
              total("mixtral-8x7b") - 16 * (8 * 3 * 4096LL * 14336 + 8 * 4096 - 3 * 4096LL * 14336));
}

/* Full recompute of some of a stage's layers on a stage that mixes dense
 * and MoE layers: the layer re-run is the stage's largest (an all-MoE
 * stage's layer), while the layers that keep everything keep the stage's
 * mean, what the same stage keeps per layer without recompute; the routed
 * copies follow the same split onto the Experts line. */
static void partial_recompute_should_keep_the_stage_mean(void)
{
    tp_config c = mixtral_on_64();
    c.model.moe.first_dense = 3; /* stage 0: 3 dense and 5 MoE layers */
    tp_estimate_result none, part;
    CHECK_INT(tp_estimate(&c, &none, NULL), TP_OK);
    c.training.recompute = TP_RECOMPUTE_FULL;
    c.training.recompute_layers = 2; /* of 8 a stage: r = 1/4 */
    CHECK_INT(tp_estimate(&c, &part, NULL), TP_OK);
    const tp_activation_parts *mixed = &part.stages[0].activation_parts;
    const tp_activation_parts *moe_only = &none.stages[1].activation_parts;
    CHECK_NEAR(mixed->mean_layer_bytes, none.stages[0].activation_parts.layer_bytes, 0.0);
    CHECK_NEAR(mixed->layer_bytes, moe_only->layer_bytes, 0.0);
    CHECK(mixed->mean_layer_bytes < mixed->layer_bytes);
    const double n = part.stages[0].layers_in_flight, r = 0.25;
    const double layers = r * n * mixed->layer_input_bytes
                        + (1.0 - r) * n * (mixed->mean_layer_bytes + mixed->scores_bytes)
                        + mixed->layer_bytes + mixed->scores_bytes - mixed->layer_input_bytes;
    CHECK_NEAR(part.stages[0].activations_bytes, layers + mixed->embedding_bytes + mixed->lm_head_bytes,
               1e-12 * part.stages[0].activations_bytes);
    /* routed copies: without recompute the stage holds n sets of its mean
     * (5/8 of an MoE layer's); here 3/4 of those, plus one MoE layer's */
    const double routed_mean = none.stages[0].experts.activations_bytes / none.stages[0].layers_in_flight;
    const double routed_moe = none.stages[1].experts.activations_bytes / none.stages[1].layers_in_flight;
    CHECK_NEAR(routed_mean, 5.0 / 8.0 * routed_moe, 1e-12 * routed_moe);
    CHECK_NEAR(part.stages[0].experts.activations_bytes, (1.0 - r) * n * routed_mean + routed_moe,
               1e-12 * routed_moe * n);
}

static void expert_rules_should_name_their_field(void)
{
    tp_config c = mixtral_on_64();
    c.plan.ep = 3; /* does not divide the 8 experts */
    CHECK_REFUSED(&c, "parallel.ep");
    c = mixtral_on_64();
    c.plan.etp = 4; /* ep x etp = 32 does not divide tp cp dp = 16 */
    CHECK_REFUSED(&c, "parallel.ep");
    c = mixtral_on_64();
    c.plan.sp = 0; /* tp 2 without sequence parallel */
    CHECK_REFUSED(&c, "parallel.sp");
    c = mixtral_on_64();
    c.plan.sharding = TP_SHARD_AMSP;
    CHECK_REFUSED(&c, "parallel.sharding");
    c = mixtral_on_64();
    c.model.moe.experts_per_token = 9;
    CHECK_REFUSED(&c, "model.moe.experts_per_token");
    c = mixtral_on_64();
    c.training.capacity_factor = 0.5;
    CHECK_REFUSED(&c, "training.capacity_factor");
    tp_config_defaults(&c); /* a dense model has no experts to split */
    c.plan.ep = 2;
    CHECK_REFUSED(&c, "parallel.ep");
}

static void model_flops_should_count_active_matrices(void)
{
    tp_config c = mixtral_on_64();
    tp_estimate_result r;
    tp_error err;
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    /* per token forward: 2 FLOPs per active matrix weight (attention,
     * router, 2 of 8 experts, LM head) and 4 s h per layer of attention;
     * model FLOPs are three forwards (forward + backward) */
    const double h = 4096, w = 1024, L = 32, s = 4096, v = 32000;
    const double matrices = L * (2 * h * h + 2 * h * w + 8 * h + 2 * 3 * h * 14336) + v * h;
    const double tokens = 256.0 * s;
    CHECK_NEAR(r.throughput.model_flop_per_step / (3 * tokens * (2 * matrices + 4 * s * h * L)), 1.0, 1e-12);
}

static void expert_traffic_should_cost_time_when_ep_crosses_nodes(void)
{
    tp_config c = mixtral_on_64();
    tp_estimate_result inside, across;
    tp_error err;
    c.plan.ep = 4; /* ep x etp = 4 of a node's 8 GPUs */
    CHECK_INT(tp_estimate(&c, &inside, &err), TP_OK);
    CHECK(inside.time.ep_comm_s > 0.0);
    c.plan.ep = 8;
    c.plan.etp = 2; /* 16 ranks: two nodes */
    CHECK_INT(tp_estimate(&c, &across, &err), TP_OK);
    CHECK(across.time.ep_comm_s > inside.time.ep_comm_s);
    /* no expert parallelism, no all-to-all */
    c.plan.ep = 1;
    c.plan.etp = 1;
    tp_estimate_result none;
    CHECK_INT(tp_estimate(&c, &none, &err), TP_OK);
    CHECK_NEAR(none.time.ep_comm_s, 0.0, 0.0);
    /* and the breakdown still sums to the step */
    const tp_time *t = &across.time;
    CHECK_NEAR(estimate_time_items_s(t) / t->step_s, 1.0, 1e-12);
}

static void search_should_cover_ep_and_etp(void)
{
    tp_config c = mixtral_on_64();
    tp_search_space space;
    tp_search_defaults(&space);
    space.placement = 0;
    static tp_search_result r;
    tp_error err;
    CHECK_INT(tp_search(&c, &space, &r, &err), TP_OK);
    CHECK(r.top_count > 0);
    CHECK(r.value_count[TP_SEARCH_DIM_EP] >= 4);  /* 1, 2, 4, 8 */
    CHECK(r.value_count[TP_SEARCH_DIM_ETP] >= 2);
    /* every plan it returns is valid and fits by its own estimate */
    for (int i = 0; i < r.top_count; i++) {
        const tp_config applied = tp_search_apply(&c, &r.top[i]);
        tp_estimate_result e;
        CHECK_INT(tp_estimate(&applied, &e, &err), TP_OK);
        CHECK(e.peak_bytes <= space.memory_fraction * c.system.gpu.memory_bytes);
        CHECK_NEAR(e.time.step_s, r.top[i].step_s, 0.0);
    }
}

static void hybrid_shards_should_split_experts_into_as_many_instances(void)
{
    /* FSDP hybrid shard: a group of one node's 4 dp ranks, so 2 instances
     * of the 8 dp ranks (Megatron's distributed-optimizer instances); the
     * experts' edp replicas split into 2 instances too */
    tp_config c = mixtral_on_64();
    c.plan.sharding = TP_SHARD_FSDP_HYBRID;
    tp_estimate_result r;
    tp_error err;
    c.plan.ep = 2; /* edp = tp dp / ep = 8: instances of 4 */
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    CHECK_INT(r.shard_optimizer, 4);
    CHECK_INT(r.edp, 8);
    CHECK_INT(r.expert_shard_optimizer, 4);
    c.plan.ep = 8; /* edp = 2: instances of 1, nothing to shard */
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    CHECK_INT(r.edp, 2);
    CHECK_INT(r.expert_shard_weights, 1);
    /* twice the GPUs: a group still fills a node, for the experts too, so
     * no GPU holds more expert state than before */
    c.plan.ep = 1;
    c.plan.etp = 1;
    c.system.gpus = 32;
    c.training.global_batch = 128;
    tp_estimate_result before, after;
    CHECK_INT(tp_estimate(&c, &before, &err), TP_OK);
    c.system.gpus = 64;
    c.training.global_batch = 256;
    CHECK_INT(tp_estimate(&c, &after, &err), TP_OK);
    CHECK(after.stages[0].experts.optimizer_bytes <= before.stages[0].experts.optimizer_bytes);
}

static void experts_zero_should_make_a_preset_dense(void)
{
    /* {"experts": 0} alone turns a MoE preset into a dense model (what the
     * page sends for a dense Hugging Face config imported over one) */
    tp_config c;
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"mixtral-8x7b\", \"moe\": {\"experts\": 0}}}", &c), "");
    CHECK_INT(c.model.moe.experts + c.model.moe.experts_per_token + c.model.moe.expert_ffn_hidden, 0);
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"llama-3.1-8b\", \"moe\": {\"experts\": 0}}}", NULL), "");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"mixtral-8x7b\", \"moe\": {\"experts\": 0, \"every\": 2}}}",
                               NULL),
              "model.moe.experts");
    CHECK_STR(check_json_error("{\"model\": {\"preset\": \"mixtral-8x7b\"}}", &c), "");
    CHECK_INT(c.model.moe.experts, 8);
}

/* ZeRO-3 gathers only what it shards: a MoE layer's routed experts whole
 * on their edp = 1 ranks are never gathered, so ZeRO-3 weighs less than
 * ZeRO-2 there (DeepSeek-V3 on 2 H200s, ep 2: it once weighed 27.6 GiB more). */
static void zero3_should_gather_only_what_it_shards(void)
{
    tp_config c;
    tp_error err;
    CHECK_INT(tp_config_from_json("{\"model\":{\"preset\":\"deepseek-v3\"},\"system\":{\"gpus\":2,\"gpu\":\"h200\"},"
                                  "\"training\":{\"global_batch\":8},\"parallel\":{\"ep\":2}}", &c, &err), TP_OK);
    tp_estimate_result z[4];
    for (int zero = 2; zero <= 3; zero++) {
        c.plan.zero = zero;
        CHECK_INT(tp_estimate(&c, &z[zero], &err), TP_OK);
    }
    CHECK_INT(z[3].edp, 1);
    CHECK_INT(z[3].expert_shard_weights, 1);
    const tp_stage_memory *s = &z[3].stages[0];
    /* the gather holds dense parts only: less than the stage's dense
     * weights, where a MoE layer with its experts would be far more */
    const double dense_weights = s->weights_bytes * (double)z[3].shard_weights - s->experts.weights_bytes
                               * (double)z[3].shard_weights;
    CHECK(s->other.gathered_params_bytes < dense_weights);
    CHECK(z[3].peak_bytes < z[2].peak_bytes);
    printf("DeepSeek-V3 on 2 H200s, ep 2 (experts whole: edp 1): ZeRO-2 %.1f GiB, ZeRO-3 %.1f GiB, "
           "ZeRO-3's gather %.2f GiB\n", z[2].peak_bytes / TP_GIB, z[3].peak_bytes / TP_GIB,
           s->other.gathered_params_bytes / TP_GIB);
}

/* parallel.ep_overlap hides each direction's all-to-alls behind another
 * micro-batch's compute of the layer, but for the micro-batch
 * directions that run alone (Megatron-Core's combined_1f1b.py and
 * schedules.py): the pipeline's fill and the last stage's warm-up, and the
 * drain, p = 4 micro-batches' worth each way of the m = 32 here. With no
 * overlap slowdown and layers that compute longer than they exchange,
 * those stay exposed and nothing else; with a slowdown, that share of the
 * rest too; the rest of the step is untouched. A dense model refuses it. */
static void ep_overlap_should_hide_the_all_to_alls(void)
{
    tp_config c = mixtral_on_64();
    c.system.gpu.overlap_slowdown = c.system.gpu.nvlink_overlap_slowdown = 0.0;
    tp_estimate_result plain, hidden;
    CHECK_INT(tp_estimate(&c, &plain, NULL), TP_OK);
    CHECK(plain.time.ep_comm_s > 0.0);
    CHECK_INT(plain.micro_batches, 32);
    CHECK_NEAR(plain.time.ep_step_s, 0.0, 0.0);
    c.plan.ep_overlap = 1;
    CHECK_INT(tp_estimate(&c, &hidden, NULL), TP_OK);
    const double alone = 4.0 / 32.0;
    CHECK_NEAR(hidden.time.micro_batch_ep_s, 0.0, 0.0);
    CHECK_NEAR(hidden.time.ep_step_s, alone * plain.time.ep_comm_s, 1e-9 * plain.time.ep_comm_s);
    CHECK_NEAR(hidden.time.ep_comm_s, hidden.time.ep_step_s, 0.0);
    CHECK_NEAR(hidden.time.compute_s, plain.time.compute_s, 0.0);
    /* the step loses the exchange but for the lone directions', its share
     * of the bubble, and gains what the shorter backward no longer hides
     * of the gradient reduce */
    CHECK_NEAR(plain.time.step_s - hidden.time.step_s,
               (plain.time.ep_comm_s - hidden.time.ep_comm_s) + (plain.time.bubble_s - hidden.time.bubble_s)
                   + (plain.time.dp_comm_s - hidden.time.dp_comm_s), 1e-9 * plain.time.step_s);
    CHECK(hidden.time.step_s < plain.time.step_s - 0.5 * plain.time.ep_comm_s);
    /* two micro-batches on four stages: each runs alone both ways */
    tp_config few = c;
    few.training.global_batch = 16;
    tp_estimate_result few_hidden, few_plain;
    CHECK_INT(tp_estimate(&few, &few_hidden, NULL), TP_OK);
    few.plan.ep_overlap = 0;
    CHECK_INT(tp_estimate(&few, &few_plain, NULL), TP_OK);
    CHECK_INT(few_plain.micro_batches, 2);
    CHECK_NEAR(few_hidden.time.ep_comm_s, few_plain.time.ep_comm_s, 1e-9 * few_plain.time.ep_comm_s);
    c.system.gpu.overlap_slowdown = c.system.gpu.nvlink_overlap_slowdown = 0.25;
    CHECK_INT(tp_estimate(&c, &hidden, NULL), TP_OK);
    CHECK_NEAR(hidden.time.ep_comm_s, (0.25 + 0.75 * alone) * plain.time.ep_comm_s, 1e-9 * plain.time.ep_comm_s);
    tp_config d;
    tp_config_defaults(&d);
    d.plan.ep_overlap = 1;
    tp_error err;
    CHECK_INT(tp_estimate(&d, &hidden, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "parallel.ep_overlap");
}

/* Megatron-Core's combined 1F1B pairs each all-to-all with one step of
 * the other micro-batch's compute (model_chunk_schedule_plan.py): the
 * backward's combine runs beside the forward's attention alone. Mixtral
 * computes far more in its experts than in its attention, so with each
 * all-to-all at 0.3 of a layer's forward, each direction's pair (0.6)
 * fits inside the other direction's compute, yet the combine outlasts the
 * attention beside it and shows. */
static void ep_overlap_should_pair_each_all_to_all_with_its_step(void)
{
    tp_config c = mixtral_on_64();
    c.system.gpu.overlap_slowdown = c.system.gpu.nvlink_overlap_slowdown = 0.0;
    tp_estimate_result plain, hidden;
    CHECK_INT(tp_estimate(&c, &plain, NULL), TP_OK);
    const double forward_s = plain.time.micro_batch_compute_s / 3.0;
    for (int i = 0; i < 4; i++) { /* slower links, to 0.6 forwards each way (latency aside) */
        const double scale = (plain.time.micro_batch_ep_s / 2.0) / (0.6 * forward_s);
        c.system.network.fast.bytes_per_s *= scale;
        c.system.network.slow.bytes_per_s *= scale;
        CHECK_INT(tp_estimate(&c, &plain, NULL), TP_OK);
    }
    const double each_way = plain.time.micro_batch_ep_s / 2.0;
    CHECK(each_way > 0.55 * forward_s && each_way < 0.65 * forward_s);
    c.plan.ep_overlap = 1;
    CHECK_INT(tp_estimate(&c, &hidden, NULL), TP_OK);
    CHECK(hidden.time.micro_batch_ep_s > 0.02 * forward_s); /* 0 were each direction one block */
    CHECK(hidden.time.micro_batch_ep_s < 0.5 * each_way);
    printf("Mixtral 8x7B on 64 GPUs, each all-to-all 0.3 of a forward: %.1f ms a micro-batch exposed of "
           "%.1f ms exchanged\n", hidden.time.micro_batch_ep_s * 1e3, plain.time.micro_batch_ep_s * 1e3);
}

/* parallel.ep_dispatcher flex sends a token over the network once per
 * other node that holds any of its experts: Qwen3-30B-A3B (top 8 of 128)
 * with ep 16 over two 8-GPU nodes sends 1 - 1/2^8 of a token across
 * instead of the all-to-all's 8 x 8/16 = 4 copies, the network the
 * bottleneck either way; at DeepEP's 89% of the NICs' line rate, which a
 * 400 Gb/s network's collectives reach too and a network whose
 * collectives keep 45% does not; within one node both are the same
 * all-to-all. */
static void flex_dispatch_should_cross_nodes_once_per_node(void)
{
    tp_config c;
    CHECK_INT(tp_config_from_json("{\"model\": {\"preset\": \"qwen3-30b-a3b\"}, "
                                  "\"system\": {\"cluster\": \"dgx-h100\", \"gpus\": 16}, "
                                  "\"training\": {\"seq_len\": 4096, \"global_batch\": 64}, "
                                  "\"parallel\": {\"ep\": 16}}", &c, NULL), TP_OK);
    tp_estimate_result all, flex;
    CHECK_INT(tp_estimate(&c, &all, NULL), TP_OK);
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_FLEX;
    CHECK_INT(tp_estimate(&c, &flex, NULL), TP_OK);
    /* 4 exchanges a layer, 48 layers, 4 micro-batches (64 samples over dp 16) */
    const double latency = 4.0 * c.system.network.slow.latency_s * 48.0 * 4.0;
    CHECK_NEAR(c.system.network.slow.efficiency, 0.89, 0.0);
    CHECK_NEAR((all.time.ep_comm_s - latency) / (flex.time.ep_comm_s - latency), 4.0 / (1.0 - 1.0 / 256.0), 1e-6);
    CHECK_NEAR(flex.time.compute_s, all.time.compute_s, 0.0);
    c.system.network.slow.efficiency = 0.45;
    CHECK_INT(tp_estimate(&c, &flex, NULL), TP_OK);
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_ALLTOALL;
    CHECK_INT(tp_estimate(&c, &all, NULL), TP_OK);
    CHECK_NEAR((all.time.ep_comm_s - latency) / (flex.time.ep_comm_s - latency), 4.0 / (1.0 - 1.0 / 256.0) * 0.89 / 0.45, 1e-6);
    c.system.network.slow.efficiency = 0.89;
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_FLEX;
    c.system.gpus = 8;
    c.plan.ep = 8;
    c.training.global_batch = 32;
    CHECK_INT(tp_estimate(&c, &flex, NULL), TP_OK);
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_ALLTOALL;
    CHECK_INT(tp_estimate(&c, &all, NULL), TP_OK);
    CHECK_NEAR(flex.time.ep_comm_s, all.time.ep_comm_s, 0.0);
    CHECK_STR(tp_ep_dispatcher_str(TP_EP_DISPATCHER_FLEX), "flex");
}

/* training.grouped_gemm false launches each local expert's GEMM on its own
 * (Transformer Engine's GroupedLinear): Qwen3-30B-A3B over ep 8 holds 16
 * experts a GPU, so each of its 48 MoE layers launches 2 x 16 GEMMs
 * forward and twice that backward where a grouped kernel launches 2 and
 * 4, 90 more latencies a layer and micro-batch. CUDA graphs over the
 * layers leave the experts' launches to the host; over the whole step
 * they replay them at a third of the latency (the host's dispatch gone),
 * and the step waits no host time. */
static void expert_launches_follow_grouped_gemm_and_cuda_graphs(void)
{
    tp_config c;
    CHECK_INT(tp_config_from_json("{\"model\": {\"preset\": \"qwen3-30b-a3b\"}, "
                                  "\"system\": {\"cluster\": \"dgx-h100\", \"gpus\": 8}, "
                                  "\"training\": {\"seq_len\": 4096, \"global_batch\": 32}, "
                                  "\"parallel\": {\"ep\": 8}}", &c, NULL), TP_OK);
    CHECK_INT(c.training.grouped_gemm, 0); /* megatron-core's default */
    CHECK_INT(c.training.cuda_graphs, TP_CUDA_GRAPHS_NONE);
    tp_estimate_result each, grouped, layers_each, layers_grouped, full_each, full_grouped;
    CHECK_INT(tp_estimate(&c, &each, NULL), TP_OK);
    c.training.cuda_graphs = TP_CUDA_GRAPHS_LAYERS;
    CHECK_INT(tp_estimate(&c, &layers_each, NULL), TP_OK);
    c.training.cuda_graphs = TP_CUDA_GRAPHS_FULL;
    CHECK_INT(tp_estimate(&c, &full_each, NULL), TP_OK);
    c.training.grouped_gemm = 1;
    CHECK_INT(tp_estimate(&c, &full_grouped, NULL), TP_OK);
    c.training.cuda_graphs = TP_CUDA_GRAPHS_LAYERS;
    CHECK_INT(tp_estimate(&c, &layers_grouped, NULL), TP_OK);
    c.training.cuda_graphs = TP_CUDA_GRAPHS_NONE;
    CHECK_INT(tp_estimate(&c, &grouped, NULL), TP_OK);
    const double latency = c.system.gpu.kernel_latency_s, launches = (double)each.micro_batches * 48.0 * 90.0;
    CHECK_NEAR(latency, 30e-6, 1e-12);
    CHECK_NEAR(each.time.compute_s - grouped.time.compute_s, launches * latency, 1e-9 * each.time.compute_s);
    CHECK_NEAR(layers_each.time.compute_s - layers_grouped.time.compute_s, launches * latency,
               1e-9 * each.time.compute_s);
    CHECK_NEAR(full_each.time.compute_s - full_grouped.time.compute_s, launches * latency / 3.0,
               1e-9 * each.time.compute_s);
    CHECK(layers_grouped.time.compute_s < grouped.time.compute_s);
    CHECK(full_grouped.time.compute_s < grouped.time.compute_s);
    CHECK_NEAR(full_grouped.time.compute_s, layers_grouped.time.compute_s - (double)each.micro_batches * 48.0 * 6.0 * latency * 2.0 / 3.0,
               1e-9 * each.time.compute_s);
    /* the whole step replayed: no host time between steps */
    CHECK_NEAR(layers_grouped.time.step_overhead_s, c.system.step_overhead_s, 0.0);
    CHECK_NEAR(full_grouped.time.step_overhead_s, 0.0, 0.0);
    /* torchtitan's MoE calls one grouped kernel a matrix; a name the field
     * does not know is refused by its path */
    CHECK_INT(tp_config_from_json("{\"model\": {\"preset\": \"qwen3-30b-a3b\"}, "
                                  "\"training\": {\"framework\": \"torchtitan\", \"cuda_graphs\": \"full\"}}",
                                  &c, NULL), TP_OK);
    CHECK_INT(c.training.grouped_gemm, 1);
    CHECK_INT(c.training.cuda_graphs, TP_CUDA_GRAPHS_FULL);
    CHECK_STR(tp_cuda_graphs_str(TP_CUDA_GRAPHS_LAYERS), "layers");
    tp_error err;
    CHECK_INT(tp_config_from_json("{\"training\": {\"cuda_graphs\": \"some\"}}", &c, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.cuda_graphs");
}

/* gpt-oss-120b on 8 H100s, ep 8, one 4,096-token sample a micro-batch,
 * 8 micro-batches a step. */
static tp_config gpt_oss_on_8_h100s(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("gpt-oss-120b");
    tp_system_use_cluster(&c.system, tp_cluster_preset_find("dgx-h100"));
    c.training.seq_len = 4096;
    c.training.micro_batch = 1;
    c.training.global_batch = 64;
    c.plan.ep = 8;
    return c;
}

/* training.unfused_expert_extras: gpt-oss's clamp and expert biases, run
 * outside the fused activation, move per routed copy 16fe bytes forward and
 * 20fe backward (clamp) and, with bf16 router weights, 12h each way (bias),
 * with the flex dispatcher's fp32 weights 28h and 36h; at HBM speed, in
 * every layer, for each of the step's micro-batches. gpt-oss-120b on 8
 * H100s, ep 8, one 4,096-token sample a micro-batch, 8 micro-batches:
 * 4 x 4,096 copies a GPU a micro-batch, h = fe = 2,880. */
static void unfused_expert_extras_should_move_their_bytes(void)
{
    tp_config c = gpt_oss_on_8_h100s();
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_ALLTOALL;
    tp_estimate_result fused, unfused, flex;
    c.training.unfused_expert_extras = 0;
    CHECK_INT(tp_estimate(&c, &fused, NULL), TP_OK);
    c.training.unfused_expert_extras = 1;
    CHECK_INT(tp_estimate(&c, &unfused, NULL), TP_OK);
    const double copies = 4.0 * 4096.0, d = 2880.0, steps = 36.0 * 8.0;
    const double hbm = c.system.gpu.hbm_bytes_per_s;
    CHECK_NEAR(unfused.time.compute_s - fused.time.compute_s,
               steps * copies * (36.0 * d + 24.0 * d) / hbm, 1e-9 * fused.time.compute_s);
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_FLEX;
    CHECK_INT(tp_estimate(&c, &flex, NULL), TP_OK);
    CHECK_NEAR(flex.time.compute_s - fused.time.compute_s,
               steps * copies * (36.0 * d + 64.0 * d) / hbm, 1e-9 * fused.time.compute_s);
    /* recompute_moe_act runs each copy's activation (6fe) and, unfused,
     * its clamp (16fe) again in the backward */
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_ALLTOALL;
    tp_estimate_result recomputed;
    c.training.recompute_moe_act = 1;
    CHECK_INT(tp_estimate(&c, &recomputed, NULL), TP_OK);
    CHECK_NEAR(recomputed.time.compute_s - unfused.time.compute_s, steps * copies * 22.0 * d / hbm,
               1e-9 * fused.time.compute_s);
    c.training.recompute_moe_act = 0;
    /* a model with neither: Qwen3-30B-A3B costs the same either way */
    c.model = *tp_model_preset_find("qwen3-30b-a3b");
    c.plan.ep_dispatcher = TP_EP_DISPATCHER_ALLTOALL;
    CHECK_INT(tp_estimate(&c, &unfused, NULL), TP_OK);
    c.training.unfused_expert_extras = 0;
    CHECK_INT(tp_estimate(&c, &fused, NULL), TP_OK);
    CHECK_NEAR(unfused.time.step_s, fused.time.step_s, 0.0);
}

/* training.unfused_yarn_rope: Megatron-Core applies gpt-oss's YaRN rotary
 * embedding in PyTorch, 20 B more per element of Q and K (64 heads of 64
 * and 8 of 64: 4,608 a token) and five launches more, each way. A trainer
 * whose profile fuses it, or a model with plain RoPE, costs nothing more. */
static void unfused_yarn_rope_should_move_its_bytes(void)
{
    tp_config c = gpt_oss_on_8_h100s();
    tp_framework_defaults(&c); /* Megatron-Core's profile */
    CHECK(c.model.yarn_rope);
    CHECK(c.training.unfused_yarn_rope);
    tp_estimate_result fused, unfused;
    CHECK_INT(tp_estimate(&c, &unfused, NULL), TP_OK);
    c.training.unfused_yarn_rope = 0;
    CHECK_INT(tp_estimate(&c, &fused, NULL), TP_OK);
    const double steps = 36.0 * 8.0, tokens = 4096.0, width = 64.0 * 64.0 + 8.0 * 64.0;
    const double one_way = 5.0 * c.system.gpu.kernel_latency_s + 20.0 * tokens * width / c.system.gpu.hbm_bytes_per_s;
    CHECK_NEAR(unfused.time.compute_s - fused.time.compute_s, steps * 2.0 * one_way, 1e-9 * fused.time.compute_s);
    c.training.framework = TP_FRAMEWORK_TORCHTITAN;
    tp_framework_defaults(&c);
    CHECK(!c.training.unfused_yarn_rope);
    c.model = *tp_model_preset_find("qwen3-30b-a3b");
    c.training.framework = TP_FRAMEWORK_MEGATRON_CORE;
    tp_framework_defaults(&c);
    CHECK(!c.model.yarn_rope);
    CHECK_INT(tp_estimate(&c, &unfused, NULL), TP_OK);
    c.training.unfused_yarn_rope = 0;
    CHECK_INT(tp_estimate(&c, &fused, NULL), TP_OK);
    CHECK_NEAR(unfused.time.step_s, fused.time.step_s, 0.0);
}

int main(void)
{
    experts_zero_should_make_a_preset_dense();
    hybrid_shards_should_split_experts_into_as_many_instances();
    presets_should_count_published_parameters();
    expert_memory_should_shard_over_expert_groups();
    first_dense_layers_should_stay_on_the_first_stage();
    partial_recompute_should_keep_the_stage_mean();
    expert_rules_should_name_their_field();
    model_flops_should_count_active_matrices();
    expert_traffic_should_cost_time_when_ep_crosses_nodes();
    search_should_cover_ep_and_etp();
    zero3_should_gather_only_what_it_shards();
    ep_overlap_should_hide_the_all_to_alls();
    ep_overlap_should_pair_each_all_to_all_with_its_step();
    flex_dispatch_should_cross_nodes_once_per_node();
    expert_launches_follow_grouped_gemm_and_cuda_graphs();
    unfused_expert_extras_should_move_their_bytes();
    unfused_yarn_rope_should_move_its_bytes();
    return check_finish("moe");
}
