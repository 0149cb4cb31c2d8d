/*
 * test_presets: every preset loads, estimates, and matches published facts.
 * Parameter counts are checked against the totals the model cards publish
 * (to the printed precision), GPU figures against their data sheets.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tp_internal.h"

static double params_b(const char *name)
{
    return (double)tp_model_params_total(tp_model_preset_find(name)) / 1e9;
}

static void presets_should_all_estimate_on_the_defaults(void)
{
    for (size_t i = 0; i < tp_model_preset_count(); i++) {
        for (size_t j = 0; j < tp_gpu_preset_count(); j++) {
            tp_config c;
            tp_config_defaults(&c);
            c.model = *tp_model_preset(i);
            c.system.gpu = *tp_gpu_preset(j);
            if (c.model.arch == TP_ARCH_GPT) /* learned positions bound the sequence */
                c.training.seq_len = c.model.positions;
            tp_estimate_result r;
            tp_error err;
            CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
            CHECK(r.peak_bytes > 0.0 && r.usage_fraction > 0.0);
        }
        CHECK(tp_model_preset_source(i) != NULL && strlen(tp_model_preset_source(i)) > 20);
        CHECK(tp_model_preset_find(tp_model_preset(i)->name) == tp_model_preset(i));
    }
    for (size_t j = 0; j < tp_gpu_preset_count(); j++) {
        CHECK(tp_gpu_preset_source(j) != NULL && strlen(tp_gpu_preset_source(j)) > 20);
        CHECK(tp_gpu_preset_find(tp_gpu_preset(j)->name) == tp_gpu_preset(j));
    }
    for (size_t j = 0; j < tp_cluster_preset_count(); j++) { /* tp_system_use_cluster relies on it */
        const tp_cluster *cluster = tp_cluster_preset(j);
        CHECK(tp_gpu_preset_find(cluster->gpu) != NULL);
        CHECK(tp_cluster_preset_source(j) != NULL && strlen(tp_cluster_preset_source(j)) > 20);
        CHECK(tp_cluster_preset_find(cluster->name) == cluster);
        if (tp_gpu_preset_find(cluster->gpu) == NULL)
            continue;
        /* a whole node of each cluster estimates, the default model at tp 1 */
        tp_config c;
        tp_config_defaults(&c);
        tp_system_use_cluster(&c.system, cluster);
        c.system.gpus = cluster->gpus_per_node;
        c.training.global_batch = cluster->gpus_per_node * 8;
        tp_estimate_result r;
        tp_error err;
        CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
        CHECK(r.time.step_s > 0.0);
    }
    CHECK_INT(tp_cluster_preset_count(), 18);
    CHECK_INT(tp_model_preset_count(), 21);
    CHECK_INT(tp_gpu_preset_count(), 19);
    CHECK(tp_model_preset_find("llama-3.1-9b") == NULL);
    CHECK(tp_gpu_preset_find(NULL) == NULL);
}

static void model_presets_should_match_published_totals(void)
{
    /* Llama 3.1 model card: 8.03B, 70.6B, 405.9B (untied, eq. 3 exactly). */
    CHECK_INT(tp_model_params_total(tp_model_preset_find("llama-3.1-8b")), 8030261248LL);
    CHECK_NEAR(params_b("llama-3.1-70b"), 70.55, 0.01);
    CHECK_NEAR(params_b("llama-3.1-405b"), 405.85, 0.01);
    /* Llama 2 paper: 7B (6.74B), 13B (13.02B), 70B (68.98B) */
    CHECK_INT(tp_model_params_total(tp_model_preset_find("llama-2-7b")), 6738415616LL);
    CHECK_NEAR(params_b("llama-2-13b"), 13.02, 0.01);
    CHECK_NEAR(params_b("llama-2-70b"), 68.98, 0.01);
    /* Mistral 7B v0.1: 7.24B */
    CHECK_NEAR(params_b("mistral-7b"), 7.24, 0.01);
    /* Qwen2.5 model cards: 7.61B, 72.7B; biases (0.1M / 0.3M) not yet counted */
    CHECK_NEAR(params_b("qwen2.5-7b"), 7.61, 0.01);
    CHECK_NEAR(params_b("qwen2.5-72b"), 72.7, 0.05);
    /* gpt-oss-120b, OpenAI's model card: 116.8B, of which the biases we do
     * not count are 0.04B */
    CHECK_NEAR(params_b("gpt-oss-120b"), 116.8, 0.05);
    /* GPT-3 175B (Brown et al.): 174.6B with the vocabulary padded to 51,200 */
    CHECK_NEAR(params_b("gpt3-175b"), 174.6, 0.05);
    /* Subramanian et al. 2024's GPT3-1T is Narayanan et al. 2021 Table 1's 1T
     * row, printed 1008.0B: per layer 12 h^2 + 13 h = 7,864,652,800 for
     * h = 25,600 (QKV, projection, a 4h MLP, their biases and two LayerNorms)
     * times 128, plus the tied 51,200-row embedding, 2,048 positions and the
     * final LayerNorm */
    CHECK_INT(tp_model_params_total(tp_model_preset_find("gpt3-1t")),
              128LL * 7864652800LL + 51200LL * 25600 + 2048LL * 25600 + 2LL * 25600);
    CHECK_NEAR(params_b("gpt3-1t"), 1008.0, 0.05);
    /* Subramanian et al. 2024's ViT: 48 of GPT's blocks (12 h^2 + 13 h,
     * h = 12,288), the patch linear 320 x h and its bias, the head h x 320 and
     * its bias, 64,800 learned positions and the final LayerNorm;
     * Subramanian et al. 2024 prints no total, 12 e^2 d alone is 87.0B */
    CHECK_INT(tp_model_params_total(tp_model_preset_find("vit-era5")),
              48LL * 1812099072LL + 321LL * 12288 + 12289LL * 320 + 64800LL * 12288 + 2LL * 12288);
}

/* The model's parameters summed off the layer descriptions (floating
 * point, what memory and FLOPs use) against the exact integer count
 * (params.total): the two are written apart, so they must agree for every
 * preset, whatever its attention kind, head size or experts. */
static void layer_descriptions_should_sum_to_the_exact_count(void)
{
    tp_config defaults;
    tp_config_defaults(&defaults);
    for (size_t i = 0; i < tp_model_preset_count(); i++) {
        const tp_model *m = tp_model_preset(i);
        const model_layers layers = model_describe_layers(m, &defaults.training);
        const double moe = (double)model_moe_layers_in(m, 0, m->layers);
        const double sum = ((double)m->layers - moe) * model_layer_params(&layers.dense)
                         + moe * (model_layer_params(&layers.moe) + layers.moe.expert_params)
                         + model_embedding_params(m) + (m->tied_embeddings ? 0.0 : model_head_params(m))
                         + model_position_params(m) + model_final_norm_params(m);
        const double exact = (double)tp_model_params_total(m);
        if (sum != exact)
            fprintf(stderr, "%s: layers sum to %.0f, exact count %.0f\n", m->name, sum, exact);
        CHECK_NEAR(sum / exact, 1.0, 1e-15);
    }
}

static void gpu_presets_should_carry_data_sheet_figures(void)
{
    const tp_gpu *a100 = tp_gpu_preset_find("a100-40gb");
    CHECK_NEAR(a100->memory_bytes / TP_GIB, 40.0, 1e-9);
    CHECK_NEAR(a100->tensor_flop_per_s, 312e12, 1.0);
    const tp_gpu *h100 = tp_gpu_preset_find("h100-80gb");
    CHECK_NEAR(h100->tensor_flop_per_s, 989.4e12, 1.0);
    CHECK_NEAR(h100->hbm_bytes_per_s, 3.35e12, 1.0);
    CHECK_NEAR(tp_gpu_preset_find("h100-94gb")->memory_bytes / TP_GIB, 94.0, 1e-9);
    CHECK_NEAR(tp_gpu_preset_find("b200")->tensor_flop_per_s, 2.25e15, 1.0);
    CHECK_NEAR(tp_gpu_preset_find("h200")->hbm_bytes_per_s, 4.8e12, 1.0);
    /* the 2025 presets: dense peaks, half the sparse figures data sheets print */
    static const struct {
        const char *gpu;
        double bf16_tflops, fp8_tflops, hbm_gb_per_s, nvlink_gb_per_s, network_gbit_per_s;
    } rows[] = {
        {"gb200", 2500, 5000, 8000, 1800, 400},    {"gb300", 2500, 5000, 8000, 1800, 800},
        {"b300", 2250, 4500, 8000, 1800, 800},     {"h800", 989.4, 1978.9, 3350, 400, 400},
        {"h20", 148, 296, 4000, 900, 400},         {"mi325x", 1307.4, 2614.9, 6000, 896, 400},
        {"mi355x", 2516.6, 5033.2, 8000, 1075.2, 400},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const tp_gpu *g = tp_gpu_preset_find(rows[i].gpu);
        if (g == NULL) {
            CHECK_FAIL("2025 GPU preset missing");
            continue;
        }
        CHECK_NEAR(g->tensor_flop_per_s, rows[i].bf16_tflops * 1e12, 1.0);
        CHECK_NEAR(g->fp8_flop_per_s, rows[i].fp8_tflops * 1e12, 1.0);
        CHECK_NEAR(g->hbm_bytes_per_s, rows[i].hbm_gb_per_s * 1e9, 1.0);
        CHECK_NEAR(g->nvlink_bytes_per_s, rows[i].nvlink_gb_per_s * 1e9, 1.0);
        CHECK_NEAR(g->network_bytes_per_s, rows[i].network_gbit_per_s * 1e9 / 8.0, 1.0);
    }
    /* capacities as nvidia-smi reports them, where a reading is known */
    CHECK_NEAR(tp_gpu_preset_find("gb200")->memory_bytes / 1048576.0, 189471.0, 1e-9);
    CHECK_NEAR(tp_gpu_preset_find("gb300")->memory_bytes / 1048576.0, 284208.0, 1e-9);
    CHECK_NEAR(tp_gpu_preset_find("b300")->memory_bytes / 1048576.0, 275040.0, 1e-9);
    CHECK_NEAR(tp_gpu_preset_find("h20")->memory_bytes / 1048576.0, 97871.0, 1e-9);
    /* host links (presets.c): PCIe Gen5, Gen4, and the Grace parts' NVLink-C2C */
    CHECK_NEAR(h100->host_bytes_per_s, 55e9, 1.0);
    CHECK_NEAR(a100->host_bytes_per_s, 27.5e9, 1.0);
    CHECK_NEAR(tp_gpu_preset_find("gb200")->host_bytes_per_s, 450e9, 1.0);
    CHECK_NEAR(tp_gpu_preset_find("gb300")->host_bytes_per_s, 450e9, 1.0);
    /* Blackwell Ultra's doubled softmax exponentials: its attention 1.35
     * times Blackwell's (NVIDIA's GB300 against GB200 measurement), its
     * GEMMs at its own MAMF reading */
    const tp_gpu *b200 = tp_gpu_preset_find("b200");
    const char *ultra[] = {"b300", "gb300"};
    for (size_t i = 0; i < 2; i++) {
        const tp_gpu *g = tp_gpu_preset_find(ultra[i]);
        CHECK_NEAR(g->attention_efficiency, 1.35 * b200->attention_efficiency, 1e-12);
        CHECK_NEAR(g->matmul_efficiency, h100->matmul_efficiency * (1769.0 / 2250) / (794.5 / 989.4), 1e-12);
    }
    CHECK_NEAR(tp_gpu_preset_find("gb200")->attention_efficiency, b200->attention_efficiency, 0.0);
}

/* What every GPU preset must hold, whatever its source: positive memory and
 * rates (the host link below HBM), an FP8 peak that is either absent (0) or at least the 16-bit one
 * (FP8 tensor cores run at twice the BF16 rate on every GPU that has them),
 * and a vector peak below the tensor one (an FP8 figure halved once too
 * often, below the BF16 one, breaks the second). */
static void gpu_presets_should_be_consistent(void)
{
    for (size_t j = 0; j < tp_gpu_preset_count(); j++) {
        const tp_gpu *g = tp_gpu_preset(j);
        const int ok = g->memory_bytes > 0.0 && g->tensor_flop_per_s > 0.0 && g->vector_flop_per_s > 0.0
                    && g->hbm_bytes_per_s > 0.0 && g->nvlink_bytes_per_s > 0.0 && g->network_bytes_per_s > 0.0
                    && g->host_bytes_per_s > 0.0 && g->host_bytes_per_s < g->hbm_bytes_per_s
                    && (g->fp8_flop_per_s == 0.0 || g->fp8_flop_per_s >= g->tensor_flop_per_s)
                    && g->vector_flop_per_s < g->tensor_flop_per_s;
        if (!ok)
            fprintf(stderr, "%s: a figure is not positive, or FP8 is below BF16, or vector above tensor\n",
                    g->name);
        CHECK(ok);
    }
}

/* A rack-scale NVLink domain: llama-3.1-70b at tp 8 on the 72 GPUs of one
 * GB200 NVL72 puts each tp group of 8 and each dp group of 9 inside the
 * 72-GPU domain, so no transfer meets the NICs and the slow tier's rate
 * cannot change the step. The same GPUs in nodes of 8 send dp across nodes,
 * where it does. */
static void nvl72_should_keep_tp_and_dp_on_nvlink(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("llama-3.1-70b");
    tp_system_use_cluster(&c.system, tp_cluster_preset_find("gb200-nvl72"));
    CHECK(strcmp(c.system.gpu.name, "gb200") == 0);
    CHECK_INT(c.system.gpus_per_node, 72);
    c.system.gpus = 72;
    c.plan.tp = 8;
    c.training.global_batch = 72;
    int64_t per_node[4];
    plan_ranks_per_node(&c, 9, per_node);
    CHECK_INT(per_node[TP_DIM_TP], 8);
    CHECK_INT(per_node[TP_DIM_DP], 9); /* the whole dp group in the domain */

    tp_estimate_result rack, rack_slow_nics;
    tp_error err;
    CHECK_INT(tp_estimate(&c, &rack, &err), TP_OK);
    CHECK_INT(rack.dp, 9);
    CHECK(rack.time.tp_comm_s > 0.0);
    tp_config slow = c;
    slow.system.network.slow.bytes_per_s /= 100.0;
    CHECK_INT(tp_estimate(&slow, &rack_slow_nics, &err), TP_OK);
    CHECK_NEAR(rack_slow_nics.time.step_s, rack.time.step_s, 1e-12 * rack.time.step_s);

    /* nodes of 8: dp crosses nodes, and the NICs' rate shows in the step */
    tp_config eight = c, eight_slow;
    eight.system.gpus_per_node = 8;
    eight.system.network.nics_per_node = 8;
    eight_slow = eight;
    eight_slow.system.network.slow.bytes_per_s /= 100.0;
    tp_estimate_result nodes, nodes_slow;
    CHECK_INT(tp_estimate(&eight, &nodes, &err), TP_OK);
    CHECK_INT(tp_estimate(&eight_slow, &nodes_slow, &err), TP_OK);
    CHECK(nodes_slow.time.step_s > nodes.time.step_s * 1.01);
    CHECK(nodes.time.dp_comm_s >= rack.time.dp_comm_s);
}

/* Subramanian et al. 2024 Table A3's three generations, each figure as
 * printed, and the
 * clusters built of them: the NVS domain's one-way bandwidth, one NIC per
 * GPU at the printed InfiniBand rate, the printed latencies. */
static void seed002_generations_should_carry_table_a3(void)
{
    static const struct {
        const char *gpu, *cluster;
        double tensor_tflops, vector_tflops, hbm_gb_per_s, capacity_gb, nvs_gb_per_s, ib_gb_per_s;
    } rows[] = {
        {"a100-lbnl", "lbnl-a100", 312, 78, 1555, 80, 300, 25},
        {"h200-lbnl", "lbnl-h200", 990, 134, 4800, 141, 450, 50},
        {"b200-lbnl", "lbnl-b200", 2500, 339, 8000, 192, 900, 100},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const tp_gpu *g = tp_gpu_preset_find(rows[i].gpu);
        const tp_cluster *c = tp_cluster_preset_find(rows[i].cluster);
        if (g == NULL || c == NULL) {
            CHECK_FAIL("Subramanian et al. 2024 preset missing");
            continue;
        }
        CHECK_NEAR(g->tensor_flop_per_s, rows[i].tensor_tflops * 1e12, 1.0);
        CHECK_NEAR(g->vector_flop_per_s, rows[i].vector_tflops * 1e12, 1.0);
        CHECK_NEAR(g->hbm_bytes_per_s, rows[i].hbm_gb_per_s * 1e9, 1.0);
        CHECK_NEAR(g->memory_bytes, rows[i].capacity_gb * 1e9, 1.0);
        CHECK(strcmp(c->gpu, rows[i].gpu) == 0);
        CHECK_INT(c->gpus_per_node, 8);
        CHECK_INT(c->network.nics_per_node, 8);
        CHECK_NEAR(c->network.fast.bytes_per_s, rows[i].nvs_gb_per_s * 1e9, 1.0);
        CHECK_NEAR(c->network.slow.bytes_per_s, rows[i].ib_gb_per_s * 1e9, 1.0);
        CHECK_NEAR(c->network.fast.latency_s, 2.5e-6, 1e-12);
        CHECK_NEAR(c->network.slow.latency_s, 5e-6, 1e-12);
        /* the GPU's own network figure is the cluster's NIC rate */
        CHECK_NEAR(g->network_bytes_per_s, c->network.slow.bytes_per_s, 1.0);
    }
}

/* Saved configs and shared links may carry the names presets had before
 * they were named after their source: each still finds its preset. */
static void old_preset_names_should_still_load(void)
{
    CHECK(tp_model_preset_find("vit-seed002") == tp_model_preset_find("vit-era5"));
    CHECK(tp_model_preset_find("vit-era5") != NULL);
    static const char *const gpus[][2] = {
        {"a100-seed002", "a100-lbnl"}, {"h200-seed002", "h200-lbnl"}, {"b200-seed002", "b200-lbnl"}};
    static const char *const clusters[][2] = {
        {"seed002-a100", "lbnl-a100"}, {"seed002-h200", "lbnl-h200"}, {"seed002-b200", "lbnl-b200"}};
    for (size_t i = 0; i < 3; i++) {
        CHECK(tp_gpu_preset_find(gpus[i][1]) != NULL);
        CHECK(tp_gpu_preset_find(gpus[i][0]) == tp_gpu_preset_find(gpus[i][1]));
        CHECK(tp_cluster_preset_find(clusters[i][1]) != NULL);
        CHECK(tp_cluster_preset_find(clusters[i][0]) == tp_cluster_preset_find(clusters[i][1]));
    }
    /* no listed name is an old one, so `trainplan presets` lists each once */
    for (size_t i = 0; i < tp_model_preset_count(); i++)
        CHECK(strstr(tp_model_preset(i)->name, "seed") == NULL);
    for (size_t i = 0; i < tp_gpu_preset_count(); i++)
        CHECK(strstr(tp_gpu_preset(i)->name, "seed") == NULL);
    for (size_t i = 0; i < tp_cluster_preset_count(); i++)
        CHECK(strstr(tp_cluster_preset(i)->name, "seed") == NULL);
}

int main(void)
{
    presets_should_all_estimate_on_the_defaults();
    model_presets_should_match_published_totals();
    layer_descriptions_should_sum_to_the_exact_count();
    gpu_presets_should_carry_data_sheet_figures();
    gpu_presets_should_be_consistent();
    nvl72_should_keep_tp_and_dp_on_nvlink();
    seed002_generations_should_carry_table_a3();
    old_preset_names_should_still_load();
    return check_finish("presets");
}
