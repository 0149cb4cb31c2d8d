/*
 * test_perf: closed forms of the performance model. FLOP counts against the
 * papers' formulas, Subramanian et al. 2024's collective time, the pipeline
 * bubble of the interleaved schedule, and the invariants of the breakdown.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "estimate_sanity.h"
#include "tp_internal.h"

static void flops_match_the_papers(void)
{
    /* Narayanan et al. 2021 §5.1: 96 B s l h^2 (1 + s/6h + V/16lh) with full
     * recompute */
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("gpt3-175b");
    c.training.seq_len = 2048;
    c.training.recompute = TP_RECOMPUTE_FULL;
    double model, hardware;
    model_layer layer = model_describe_layer(&c.model, &c.training, 0);
    flops_layer x = flops_describe_layer(&c.model, &layer, (double)c.training.seq_len, 0);
    flops_per_step(&c, &x, &x, &model, &hardware);
    const double B = (double)c.training.global_batch, s = 2048, l = 96, h = 12288, V = 51200;
    const double seed004 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    CHECK_NEAR(hardware / seed004, 1.0, 1e-12);
    CHECK_NEAR(model / hardware, (72 * (1 + s / (6 * h)) * l * h * h + 6 * h * V)
                                     / (96 * (1 + s / (6 * h)) * l * h * h + 6 * h * V), 1e-12);

    /* Megatron-LM's num_floating_point_operations for Llama 3.1 8B (GQA, SwiGLU) */
    tp_config_defaults(&c);
    layer = model_describe_layer(&c.model, &c.training, 0);
    x = flops_describe_layer(&c.model, &layer, (double)c.training.seq_len, 0);
    flops_per_step(&c, &x, &x, &model, &hardware);
    const double L = 32, H = 4096, k = 8, a = 32, f = 14336, S = 8192, v = 128256;
    const double megatron = 12 * B * S * L * H * H
                          * ((1 + k / a + S / H) + f / H * 1.5 + v / (2 * L * H));
    CHECK_NEAR(model / megatron, 1.0, 1e-12);
    CHECK_NEAR(hardware, model, 0.0); /* no recompute by default */
}

static void all_gather_follows_seed002(void)
{
    tp_config c;
    tp_config_defaults(&c); /* dgx-h100: 450 GB/s, 2.5 us, 70%; 8 x 400 Gb/s, 5 us, 89% */
    const double V = 1e9;
    /* inside one node: (n-1)/n V / beta_f + (n-1) alpha_f */
    CHECK_NEAR(net_collective_s(&c.system, NET_ALL_GATHER, V, 8, 8),
               7 * 2.5e-6 + 7.0 / 8 * V / (0.7 * 450e9), 1e-12);
    /* 4 nodes, all 8 GPUs of each in the group: the node's 8 NICs (356
     * GB/s), or NVLink's 315 GB/s where that is slower, as here */
    const double slow = 8 * 50e9 * 0.89;
    CHECK_NEAR(net_collective_s(&c.system, NET_ALL_GATHER, V, 32, 8),
               5e-6 * 3 + 2.5e-6 * 28 + 31.0 / 32 * V / (0.7 * 450e9), 1e-12);
    c.system.network.slow.efficiency = 0.45;
    CHECK_NEAR(net_collective_s(&c.system, NET_ALL_GATHER, V, 32, 8),
               5e-6 * 3 + 2.5e-6 * 28 + 31.0 / 32 * V / (8 * 50e9 * 0.45), 1e-12);
    c.system.network.slow.efficiency = 0.89;
    /* one rank per node: one NIC's share */
    CHECK_NEAR(net_collective_s(&c.system, NET_REDUCE_SCATTER, V, 4, 1),
               5e-6 * 3 + 3.0 / 4 * V / (slow / 8), 1e-12);
    CHECK_NEAR(net_collective_s(&c.system, NET_ALL_GATHER, V, 1, 1), 0.0, 0.0);
    CHECK_INT(net_ranks_per_node(4, 2, 8), 4);
    CHECK_INT(net_ranks_per_node(8, 2, 8), 4);
    CHECK_INT(net_ranks_per_node(8, 8, 8), 1);
}

/* Llama 3.1 70B on 64 GPUs at tp 8, one sample per micro-batch and 64 a
 * step: the plan several tests vary one thing of. */
static tp_config llama70b_on_64_at_tp8(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("llama-3.1-70b");
    c.system.gpus = 64;
    c.plan.tp = 8;
    c.training.global_batch = 64;
    return c;
}

static void breakdown_sums_and_bubble_shrinks_with_v(void)
{
    tp_config c = llama70b_on_64_at_tp8();
    c.plan.pp = 4; /* m = 32 */
    tp_estimate_result one, two;
    CHECK_INT(tp_estimate(&c, &one, NULL), TP_OK);
    const tp_time *t = &one.time;
    CHECK_NEAR(estimate_time_items_s(t), t->step_s, 1e-12 * t->step_s);
    /* 1F1B bubble: (p - 1)/m of the steady pipeline, stages of equal work up
     * to the embedding and LM head */
    const double steady = t->compute_s + t->tp_comm_s + t->pp_comm_s;
    CHECK_NEAR(t->bubble_s / steady, 3.0 / 32, 0.01);
    c.plan.schedule = TP_SCHEDULE_INTERLEAVED;
    c.plan.virtual_stages = 2;
    c.plan.pp_overlap = 0; /* the sends v times, exposed */
    CHECK_INT(tp_estimate(&c, &two, NULL), TP_OK);
    CHECK(two.time.bubble_s < 0.55 * one.time.bubble_s && two.time.bubble_s > 0.45 * one.time.bubble_s);
    CHECK(two.time.pp_comm_s > 1.99 * one.time.pp_comm_s);
}

/* A dimension of size one costs nothing: no collective, no bubble. */
static void unused_dimensions_cost_nothing(void)
{
    tp_config c;
    tp_config_defaults(&c); /* one node, tp = pp = cp = 1, dp = 8 */
    tp_estimate_result r;
    CHECK_INT(tp_estimate(&c, &r, NULL), TP_OK);
    CHECK_NEAR(r.time.tp_comm_s + r.time.cp_comm_s + r.time.pp_comm_s + r.time.bubble_s, 0.0, 0.0);
    CHECK(r.time.compute_s > 0.0);
    c.system.gpus = 1; /* and no data parallelism: nothing to reduce */
    c.training.global_batch = 8;
    CHECK_INT(tp_estimate(&c, &r, NULL), TP_OK);
    CHECK_NEAR(r.time.dp_comm_s, 0.0, 0.0);
    c.plan.tp = 8; /* tp across one node's NVLink now costs time */
    c.system.gpus = 8;
    CHECK_INT(tp_estimate(&c, &r, NULL), TP_OK);
    CHECK(r.time.tp_comm_s > 0.0);
}

/* The data loader (time.c): a micro-batch takes b (28 s + s^2) bytes over
 * loader_bytes_per_s to deliver with the dense mask; where that is longer than
 * the stage's own time for it, the step runs at the loader's pace. On
 * Fujii et al. 2024's TSUBAME 4.0, 32K tokens: tp 4 on 4 GPUs and tp 2 cp 4 on
 * 8 (each one data-parallel rank, loader-bound) process the same samples per
 * second, so the 8-GPU plan reaches exactly half the TFLOP/s per GPU, as
 * Table 11 measured (180 against 364). */
static void data_loader_sets_the_pace_at_long_sequences(void)
{
    tp_config c;
    tp_config_defaults(&c);
    tp_system_use_cluster(&c.system, tp_cluster_preset_find("tsubame4"));
    c.system.gpus = 4;
    c.training.seq_len = 32768;
    c.plan.tp = 4;
    tp_estimate_result off, on;
    CHECK_INT(tp_estimate(&c, &off, NULL), TP_OK);
    const double s = 32768.0, rate = c.system.loader_bytes_per_s; /* the default, 0.48 GB/s */
    CHECK_NEAR(rate, 0.48e9, 0.0);
    CHECK_NEAR(off.time.micro_batch_loader_s, 28.0 * s / rate, 1e-15);
    CHECK_NEAR(off.time.data_wait_s, 0.0, 0.0);
    c.training.dataloader_mask = 1;
    CHECK_INT(tp_estimate(&c, &on, NULL), TP_OK);
    const tp_time *t = &on.time;
    CHECK_NEAR(t->micro_batch_loader_s, (28.0 * s + s * s) / rate, 1e-9);
    CHECK_NEAR(t->micro_batch_s, off.time.micro_batch_s, 0.0); /* the GPUs' work is unchanged */
    CHECK(t->micro_batch_loader_s > t->micro_batch_s);
    CHECK_NEAR(t->data_wait_s, 1024.0 * (t->micro_batch_loader_s - t->micro_batch_s), 1e-9 * t->step_s);
    CHECK_NEAR(estimate_time_items_s(t), t->step_s, 1e-12 * t->step_s);
    const double four = on.throughput.model_flop_per_s_per_gpu;
    c.system.gpus = 8;
    c.plan.tp = 2;
    c.plan.cp = 4;
    CHECK_INT(tp_estimate(&c, &on, NULL), TP_OK);
    CHECK(on.time.data_wait_s > 0.0);
    CHECK_NEAR(on.throughput.model_flop_per_s_per_gpu / four, 0.5, 1e-3);
    /* at 8K tokens the mask is 16 times smaller and the loader keeps up */
    c.training.seq_len = 8192;
    CHECK_INT(tp_estimate(&c, &on, NULL), TP_OK);
    CHECK_NEAR(on.time.data_wait_s, 0.0, 0.0);
}

/* AMSP with s_p = s_g = 1 and s_os = 8 x 1 on 64 GPUs of 8 per node
 * (Chen et al. 2023's LLaMA-7B plan, Table IV): once per step T_os^0
 * all-reduces the 2 Phi gradient bytes over s_dp / s_p = 64 ranks, 8 per node,
 * hidden behind the last backward where it can be, and T_os^1 = s_os / s_p
 * broadcasts of 2 Phi / s_os bytes over 8 ranks of one node, behind the next
 * forward (Chen et al. 2023 §IV-C2); each hidden part costs its tier's
 * slowdown of its time: overlap_slowdown for the all-reduce across nodes,
 * nvlink_overlap_slowdown for the broadcasts inside one. */
static void amsp_step_follows_seed001(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("llama-2-7b");
    c.system.gpus = 64;
    c.training.seq_len = 1024; /* a short backward, so the all-reduce shows */
    c.training.global_batch = 64; /* M = 1 */
    c.training.gradients_dtype = TP_DTYPE_BF16;
    c.plan.sharding = TP_SHARD_AMSP;
    c.plan.amsp[2][0] = 8;
    tp_estimate_result r;
    CHECK_INT(tp_estimate(&c, &r, NULL), TP_OK);
    const double bytes = 2.0 * r.stages[0].params;
    const double t_os0 = net_collective_s(&c.system, NET_ALL_REDUCE, bytes, 64, 8);
    const double t_os1 = 8 * net_collective_s(&c.system, NET_BROADCAST, bytes / 8, 8, 8);
    /* what no compute hides, plus the slowdown of what it hides */
    const double across = c.system.gpu.overlap_slowdown, inside = c.system.gpu.nvlink_overlap_slowdown;
    const double b = r.time.backward_s, f = r.time.forward_s;
    const double exposed = (t_os0 > b ? t_os0 - b + across * b : across * t_os0)
                         + (t_os1 > f ? t_os1 - f + inside * f : inside * t_os1);
    CHECK(t_os0 > r.time.backward_s);
    CHECK(across > 0.0 && inside > across);
    CHECK_NEAR(r.time.dp_comm_s, exposed, 1e-12);
}

/* FSDP over the 4 GPUs of one node: every per-layer gather and
 * reduce-scatter stays on NVLink and hides behind its layer, so what it
 * costs per micro-batch is nvlink_overlap_slowdown times its time, and
 * the network's overlap_slowdown plays no part. Across two nodes the same
 * shards cross the network and the roles swap. */
static void hidden_transfers_cost_their_tiers_slowdown(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("llama-2-7b");
    tp_system_use_cluster(&c.system, tp_cluster_preset_find("a100-4x-200g"));
    c.system.gpus = 4;
    c.training.global_batch = 4;
    c.plan.sharding = TP_SHARD_FSDP_FULL;
    tp_estimate_result one, twice;
    c.system.gpu.nvlink_overlap_slowdown = 0.2;
    CHECK_INT(tp_estimate(&c, &one, NULL), TP_OK);
    c.system.gpu.nvlink_overlap_slowdown = 0.4;
    c.system.gpu.overlap_slowdown = 0.5; /* across nodes: unused here */
    CHECK_INT(tp_estimate(&c, &twice, NULL), TP_OK);
    CHECK(one.time.micro_batch_dp_s > 0.0);
    CHECK_NEAR(twice.time.micro_batch_dp_s / one.time.micro_batch_dp_s, 2.0, 1e-9);

    c.system.gpus = 8; /* two nodes: the shard group crosses the network */
    c.training.global_batch = 8;
    CHECK_INT(tp_estimate(&c, &one, NULL), TP_OK);
    c.system.gpu.nvlink_overlap_slowdown = 0.8;
    c.system.gpu.overlap_slowdown = 0.25;
    CHECK_INT(tp_estimate(&c, &twice, NULL), TP_OK);
    CHECK_NEAR(twice.time.micro_batch_dp_s / one.time.micro_batch_dp_s, 0.5, 1e-9);
}

/* parallel.tp_overlap hides a layer's tp collectives behind its GEMMs: with
 * a tp group inside a node and GEMMs longer than the collectives, each
 * costs only nvlink_overlap_slowdown of its time, or under Transformer
 * Engine's userbuffers (parallel.tp_overlap_userbuffers, Megatron-Core's
 * default) the 10 of 132 SMs their kernels hold; the LM head's pair and
 * the embedding's all-reduce stay exposed, and nothing else moves. Across
 * nodes userbuffers change nothing. */
static void tp_overlap_hides_behind_the_gemms(void)
{
    tp_config c;
    tp_config_defaults(&c);
    CHECK_INT(c.plan.tp_overlap_userbuffers, 1);
    c.plan.tp_overlap_userbuffers = 0;
    c.model = *tp_model_preset_find("llama-3.1-70b");
    c.system.gpus = 8;
    c.plan.tp = 8;
    c.training.global_batch = 8;
    c.system.gpu.nvlink_overlap_slowdown = 0.3;
    tp_estimate_result exposed, hidden, userbuffers, no_layer_comm;
    CHECK_INT(tp_estimate(&c, &exposed, NULL), TP_OK);
    c.plan.tp_overlap = 1;
    CHECK_INT(tp_estimate(&c, &hidden, NULL), TP_OK);
    c.plan.tp_overlap_userbuffers = 1;
    CHECK_INT(tp_estimate(&c, &userbuffers, NULL), TP_OK);
    /* the part outside the layers: what is left with layers' collectives free */
    c.plan.tp_overlap_userbuffers = 0;
    c.system.gpu.nvlink_overlap_slowdown = 0.0;
    CHECK_INT(tp_estimate(&c, &no_layer_comm, NULL), TP_OK);
    const double outside = no_layer_comm.time.tp_comm_s;
    CHECK(outside > 0.0 && outside < 0.1 * exposed.time.tp_comm_s);
    CHECK_NEAR(hidden.time.tp_comm_s - outside, 0.3 * (exposed.time.tp_comm_s - outside),
               1e-9 * exposed.time.tp_comm_s);
    CHECK_NEAR(userbuffers.time.tp_comm_s - outside, 10.0 / 132.0 * (exposed.time.tp_comm_s - outside),
               1e-9 * exposed.time.tp_comm_s);
    CHECK_NEAR(hidden.time.compute_s, exposed.time.compute_s, 0.0);
    CHECK_NEAR(hidden.time.dp_comm_s, exposed.time.dp_comm_s, 0.0);
    CHECK_NEAR(userbuffers.time.dp_comm_s, exposed.time.dp_comm_s, 0.0);

    /* tp 16 over two nodes: the network's overlap_slowdown either way */
    tp_estimate_result across, across_ub;
    c.system.gpus = 16;
    c.plan.tp = 16;
    c.system.gpu.nvlink_overlap_slowdown = 0.3;
    CHECK_INT(tp_estimate(&c, &across, NULL), TP_OK);
    c.plan.tp_overlap_userbuffers = 1;
    CHECK_INT(tp_estimate(&c, &across_ub, NULL), TP_OK);
    CHECK_NEAR(across_ub.time.step_s, across.time.step_s, 0.0);
}

/* training.precision.fp8 runs the linear layers' GEMMs at the FP8 peak
 * (system.gpu.fp8_tflops) at the recipe's share of it, and adds the
 * recipe's casts at HBM speed (time.c's fp8_costs): at an FP8 peak equal
 * to the BF16 one the GEMMs take 1/0.922 as long under delayed scaling,
 * 1/0.870 rowwise, 1/0.806 blockwise; the casts move 4 B per linear
 * input forward and 4 B per output gradient backward (delayed), 6 B and
 * 6 + 6 B without fp8 inputs kept (torchao's tensorwise), 3 + 5 B and
 * 3 + 5 B per row (each operand cast again along its other axis); at twice the
 * peak the compute shrinks, MFU stays over the BF16 peak, and a GPU
 * without FP8 refuses it, one without block-scaled tensor cores mxfp8.
 * Blackwell runs every recipe's GEMMs at the full rate. */
/* compute_s but the weights' cast once a step, which is checked apart */
static double fp8_compute_s(tp_config c, tp_fp8_recipe recipe)
{
    tp_estimate_result r;
    c.training.fp8_recipe = recipe;
    CHECK_INT(tp_estimate(&c, &r, NULL), TP_OK);
    return r.time.compute_s - r.time.weight_cast_s;
}

static void fp8_runs_the_linear_layers_at_its_peak(void)
{
    tp_config c = llama70b_on_64_at_tp8();
    const double hbm = 1e15;
    c.system.gpu.hbm_bytes_per_s = hbm;
    tp_estimate_result bf16, same_peak, fp8;
    const double bf16_s = fp8_compute_s(c, TP_FP8_DELAYED);
    c.training.fp8 = 1;
    c.system.gpu.fp8_flop_per_s = c.system.gpu.tensor_flop_per_s;
    /* per layer of a micro-batch's 8192 tokens: the linear inputs, x twice
     * whole, W_O's 8192 and W2's 28672 over tp 8; the output gradients,
     * W_O's and W2's 8192 whole, Q K V's 8192 + 2048 and W1 W3's 2 x 28672
     * over tp 8; 80 layers, 8 micro-batches, at 10^15 B/s */
    const double inputs = 8192.0 * (2.0 * 8192.0 + (8192.0 + 28672.0) / 8.0);
    const double gradients = 8192.0 * (2.0 * 8192.0 + (8192.0 + 2048.0 + 2.0 * 28672.0) / 8.0);
    const double per_byte_s = 80.0 * 8.0 / hbm;
    const double delayed = fp8_compute_s(c, TP_FP8_DELAYED);
    /* blockwise casts as delayed does: the difference is the GEMMs', whose
     * bf16-rate time G the other recipes' figures then follow from */
    const double gemm_s = (fp8_compute_s(c, TP_FP8_BLOCKWISE) - delayed) / (1.0 / 0.806 - 1.0 / 0.922);
    CHECK(gemm_s > 0.5 * bf16_s && gemm_s < bf16_s);
    CHECK_NEAR(delayed - bf16_s, gemm_s * (1.0 / 0.922 - 1.0) + (4.0 * inputs + 4.0 * gradients) * per_byte_s,
               1e-9 * bf16_s);
    CHECK_NEAR(fp8_compute_s(c, TP_FP8_TENSORWISE) - delayed, (2.0 * inputs + 2.0 * gradients) * per_byte_s,
               1e-9 * bf16_s);
    CHECK_NEAR(fp8_compute_s(c, TP_FP8_ROWWISE) - delayed,
               gemm_s * (1.0 / 0.870 - 1.0 / 0.922) + (4.0 * inputs + 4.0 * gradients) * per_byte_s, 1e-9 * bf16_s);
    /* inputs kept in bf16 (torchao): the backward casts them again */
    const double tensorwise = fp8_compute_s(c, TP_FP8_TENSORWISE);
    c.training.fp8_activations = 0;
    CHECK_NEAR(fp8_compute_s(c, TP_FP8_TENSORWISE) - tensorwise, 6.0 * inputs * per_byte_s, 1e-9 * bf16_s);
    /* torch.compile's casts cost a whole step 1.4 times the bytes the
     * fused per-tensor cast with its transpose moves */
    c.training.fp8_activations = 1;
    c.training.fp8_casts = TP_FP8_CASTS_COMPILED;
    CHECK_NEAR(fp8_compute_s(c, TP_FP8_TENSORWISE) - tensorwise,
               (1.4 - 1.0) * (6.0 * inputs + 6.0 * gradients) * per_byte_s, 1e-9 * bf16_s);
    c.training.fp8_casts = TP_FP8_CASTS_FUSED;
    /* the weights: with the cache cast once a step (weight_cast_s, 4 B a
     * weight with delayed scaling); without it in every micro-batch's
     * forward and backward (6 + 6 B per tensor), and not at all as fp8
     * weights */
    c.training.fp8_activations = 1;
    c.training.fp8_recipe = TP_FP8_DELAYED;
    tp_estimate_result cached;
    CHECK_INT(tp_estimate(&c, &cached, NULL), TP_OK);
    /* the 80 layers' weights on one GPU (the embedding and LM head are
     * not cast) */
    const model_layer layer = model_describe_layer(&c.model, &c.training, 0);
    const double weights = 80.0 * model_layer_params_per_gpu(&layer, 8);
    CHECK(weights < cached.stages[0].params);
    CHECK_NEAR(cached.time.weight_cast_s, 4.0 * weights / hbm, 1e-9 * cached.time.weight_cast_s);
    c.training.fp8_weight_cache = 0;
    const double uncached = fp8_compute_s(c, TP_FP8_TENSORWISE) - tensorwise;
    CHECK_NEAR(uncached, 8.0 * 12.0 * weights / hbm, 1e-9 * uncached);
    c.training.fp8_params = 1;
    tp_estimate_result fp8_weights;
    CHECK_INT(tp_estimate(&c, &fp8_weights, NULL), TP_OK);
    CHECK_NEAR(fp8_weights.time.weight_cast_s, 0.0, 0.0);
    CHECK_NEAR(fp8_compute_s(c, TP_FP8_TENSORWISE), tensorwise, 1e-12 * tensorwise);
    c.training.fp8_params = 0;
    c.training.fp8_weight_cache = 1;
    c.training.fp8_activations = 1;
    CHECK_INT(tp_estimate(&c, &same_peak, NULL), TP_OK);
    c.training.fp8 = 0;
    CHECK_INT(tp_estimate(&c, &bf16, NULL), TP_OK);
    c.training.fp8 = 1;
    CHECK(same_peak.peak_bytes > bf16.peak_bytes); /* the fp8 weight copies */
    c.system.gpu.fp8_flop_per_s = 2.0 * c.system.gpu.tensor_flop_per_s;
    CHECK_INT(tp_estimate(&c, &fp8, NULL), TP_OK);
    CHECK(fp8.time.compute_s < 0.8 * bf16.time.compute_s && fp8.time.compute_s > 0.5 * bf16.time.compute_s);
    CHECK_NEAR(fp8.throughput.mfu * c.system.gpu.tensor_flop_per_s, fp8.throughput.model_flop_per_s_per_gpu,
               1e-12 * fp8.throughput.model_flop_per_s_per_gpu);
    c.system.gpu = *tp_gpu_preset_find("a100-80gb");
    tp_error err;
    CHECK_INT(tp_estimate(&c, &fp8, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.precision.fp8");
    tp_config j;
    CHECK_INT(tp_config_from_json("{\"system\": {\"gpu\": {\"memory_gib\": 80, \"tensor_tflops\": 500, "
                                  "\"hbm_gb_per_s\": 3000, \"nvlink_gb_per_s\": 900, \"network_gbit_per_s\": 400}}}",
                                  &j, &err), TP_OK);
    CHECK_NEAR(j.system.gpu.fp8_flop_per_s, 1000e12, 1e-3);
    CHECK_NEAR(tp_gpu_preset_find("h100-80gb")->fp8_flop_per_s, 1978.9e12, 1e-3);
    /* MXFP8 needs Blackwell's block-scaled tensor cores */
    c.system.gpu = *tp_gpu_preset_find("h100-80gb");
    c.training.fp8_recipe = TP_FP8_MXFP8;
    CHECK_INT(tp_estimate(&c, &fp8, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.precision.fp8_recipe");
    c.system.gpu = *tp_gpu_preset_find("gb200");
    CHECK_INT(tp_estimate(&c, &fp8, &err), TP_OK);
    /* Blackwell scales and accumulates inside its tensor cores: blockwise,
     * which casts as mxfp8 does, runs as fast */
    CHECK_NEAR(fp8_compute_s(c, TP_FP8_BLOCKWISE), fp8.time.compute_s - fp8.time.weight_cast_s, 0.0);
}

/* The host's time per step (system.step_overhead_s) is one item of the
 * breakdown, added once per step whatever the micro-batches: the GPUs' work
 * and every other item stay as they were. */
static void host_overhead_adds_once_per_step(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.system.gpus = 8;
    c.plan.tp = 2;
    c.system.step_overhead_s = 0.0;
    tp_estimate_result none, some;
    CHECK_INT(tp_estimate(&c, &none, NULL), TP_OK);
    CHECK_NEAR(none.time.step_overhead_s, 0.0, 0.0);
    c.system.step_overhead_s = 0.25;
    CHECK_INT(tp_estimate(&c, &some, NULL), TP_OK);
    CHECK_NEAR(some.time.step_overhead_s, 0.25, 0.0);
    CHECK_NEAR(some.time.step_s - none.time.step_s, 0.25, 1e-12 * some.time.step_s);
    CHECK_NEAR(some.time.compute_s, none.time.compute_s, 0.0);
    CHECK_NEAR(estimate_time_items_s(&some.time), some.time.step_s, 1e-12 * some.time.step_s);
    /* the default is the fitted 0.1 s (docs/calibration.md) */
    tp_config_defaults(&c);
    CHECK_NEAR(c.system.step_overhead_s, 0.1, 0.0);
}

/* The expected largest of n standard normal draws, by integrating
 * x n phi(x) Phi(x)^(n-1) over a fine grid: the exact figure that time.c's
 * closed form (Blom's) approximates. */
static double expected_largest_of_normals(int n)
{
    const double step = 1e-3;
    double sum = 0.0;
    for (double x = -12.0; x <= 12.0; x += step) {
        const double density = exp(-0.5 * x * x) / sqrt(2.0 * 3.14159265358979323846);
        const double below = 0.5 * erfc(-x / sqrt(2.0));
        sum += x * n * density * pow(below, n - 1) * step;
    }
    return sum;
}

/* A step waits for the slowest of the job's GPUs (system.gpu.
 * compute_spread, time.c): it takes compute_spread e_n longer for its
 * matrix work, e_n the expected largest of n normal draws, which is what
 * the same GPU with both efficiencies divided by 1 + compute_spread e_n
 * takes; one GPU waits for none, and MFU stays over the nominal peak. */
static void slowest_gpu_sets_the_pace(void)
{
    const int counts[] = {1, 2, 4, 8, 64, 512, 4096};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        tp_config c;
        tp_config_defaults(&c);
        c.system.gpus = counts[i];
        c.training.global_batch = counts[i];
        c.system.gpu.compute_spread = 0.02;
        tp_estimate_result spread, fixed;
        CHECK_INT(tp_estimate(&c, &spread, NULL), TP_OK);
        const double slowdown = spread.time.slowest_gpu_slowdown;
        if (counts[i] == 1)
            CHECK_NEAR(slowdown, 0.0, 0.0);
        else /* Blom's formula is within 0.025 of the exact mean */
            CHECK_NEAR(slowdown / 0.02, expected_largest_of_normals(counts[i]), 0.025);
        c.system.gpu.compute_spread = 0.0;
        c.system.gpu.matmul_efficiency /= 1.0 + slowdown;
        c.system.gpu.attention_efficiency /= 1.0 + slowdown;
        CHECK_INT(tp_estimate(&c, &fixed, NULL), TP_OK);
        CHECK_NEAR(fixed.time.slowest_gpu_slowdown, 0.0, 0.0);
        CHECK_NEAR(spread.time.compute_s, fixed.time.compute_s, 1e-12 * fixed.time.compute_s);
        CHECK_NEAR(spread.time.step_s, fixed.time.step_s, 1e-12 * fixed.time.step_s);
        CHECK_NEAR(spread.throughput.mfu,
                   spread.throughput.model_flop_per_step
                       / (spread.time.step_s * counts[i] * c.system.gpu.tensor_flop_per_s),
                   1e-12);
    }
    /* the integral against the closed forms for 2 and 3 draws,
     * 1/sqrt(pi) and 3/(2 sqrt(pi)) */
    CHECK_NEAR(expected_largest_of_normals(2), 1.0 / sqrt(3.14159265358979323846), 1e-6);
    CHECK_NEAR(expected_largest_of_normals(3), 1.5 / sqrt(3.14159265358979323846), 1e-6);
}

/* Full recompute of k of a stage's L/p layers (Megatron's block method):
 * k = L/p is full recompute, and in between the recompute's memory, time
 * and FLOPs scale by k p / L. Llama 3.1 8B (32 layers) on pp 2: 16 a stage. */
static void partial_recompute_lies_between_none_and_full(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.system.gpus = 8;
    c.plan.tp = 4;
    c.plan.pp = 2;
    c.training.global_batch = 64;
    tp_estimate_result none, full, all, quarter;
    CHECK_INT(tp_estimate(&c, &none, NULL), TP_OK);
    c.training.recompute = TP_RECOMPUTE_FULL;
    CHECK_INT(tp_estimate(&c, &full, NULL), TP_OK);
    c.training.recompute_layers = 16;
    CHECK_INT(tp_estimate(&c, &all, NULL), TP_OK);
    CHECK_NEAR(all.peak_bytes, full.peak_bytes, 0.0);
    CHECK_NEAR(all.time.step_s, full.time.step_s, 0.0);
    c.training.recompute_layers = 4;
    CHECK_INT(tp_estimate(&c, &quarter, NULL), TP_OK);
    /* FLOPs: a quarter of the full recompute's forward */
    const double model = none.throughput.model_flop_per_step;
    CHECK_NEAR(quarter.throughput.model_flop_per_step, model, 0.0);
    CHECK_NEAR(quarter.throughput.hardware_flop_per_step - model,
               0.25 * (full.throughput.hardware_flop_per_step - model), 1e-12 * model);
    /* time: the recompute adds a quarter of what it adds for every layer */
    CHECK_NEAR(quarter.time.compute_s - none.time.compute_s,
               0.25 * (full.time.compute_s - none.time.compute_s), 1e-12 * full.time.compute_s);
    CHECK_NEAR(quarter.time.tp_comm_s - none.time.tp_comm_s,
               0.25 * (full.time.tp_comm_s - none.time.tp_comm_s), 1e-12 * full.time.tp_comm_s);
    /* memory of each stage: a quarter of its layer sets keeps only its input,
     * the rest everything, plus the one layer being recomputed */
    for (int i = 0; i < quarter.stage_count; i++) {
        const tp_stage_memory *q = &quarter.stages[i];
        const tp_activation_parts *a = &q->activation_parts;
        const double sets = q->layers_in_flight, kept = a->layer_bytes + a->scores_bytes;
        CHECK_NEAR(q->activations_bytes - a->embedding_bytes - a->lm_head_bytes,
                   0.25 * sets * a->layer_input_bytes + 0.75 * sets * kept + kept - a->layer_input_bytes,
                   1e-12 * q->activations_bytes);
        CHECK(q->activations_bytes > full.stages[i].activations_bytes);
        CHECK(q->activations_bytes < none.stages[i].activations_bytes);
    }
    /* sharded weights: a quarter of the layers hide their gathers behind a
     * backward with its recompute, the rest behind the backward alone */
    c.plan.sharding = TP_SHARD_FSDP_FULL;
    c.system.gpus = 16;
    c.system.gpus_per_node = 4; /* dp 2 across nodes, on a slow network: */
    c.system.network.slow.bytes_per_s /= 100.0; /* the gathers outlast the backward */
    c.training.recompute_layers = 0;
    CHECK_INT(tp_estimate(&c, &full, NULL), TP_OK);
    c.training.recompute = TP_RECOMPUTE_NONE;
    CHECK_INT(tp_estimate(&c, &none, NULL), TP_OK);
    c.training.recompute = TP_RECOMPUTE_FULL;
    c.training.recompute_layers = 4;
    CHECK_INT(tp_estimate(&c, &quarter, NULL), TP_OK);
    CHECK(full.time.micro_batch_dp_s != none.time.micro_batch_dp_s);
    CHECK_NEAR(quarter.time.micro_batch_dp_s,
               0.25 * full.time.micro_batch_dp_s + 0.75 * none.time.micro_batch_dp_s,
               1e-12 * full.time.micro_batch_dp_s);
    /* refused: more layers than a stage has, or without full recompute */
    tp_error err;
    c.training.recompute_layers = 17;
    CHECK_INT(tp_estimate(&c, &quarter, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.recompute_layers");
    c.training.recompute_layers = 4;
    c.training.recompute = TP_RECOMPUTE_SELECTIVE;
    CHECK_INT(tp_estimate(&c, &quarter, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.recompute_layers");
}

/* training.precision.fp4 moves the same linear GEMMs to the FP4 peak: at
 * an FP4 peak equal to the FP8 one the time does not change, at twice it
 * the compute shrinks again; memory keeps NVFP4's two half-byte casts of
 * each weight, each with a 1-byte scale per 16 values, where per-tensor
 * fp8 keeps one 1-byte copy on Blackwell; it needs fp8 and FP4 tensor
 * cores (gb200: 10 PFLOP/s dense). */
static void fp4_runs_the_linear_layers_at_its_peak(void)
{
    tp_config c = llama70b_on_64_at_tp8();
    c.system.gpu = *tp_gpu_preset_find("gb200");
    c.training.fp8 = 1;
    /* on Blackwell delayed scaling runs at the full rate and casts as
     * NVFP4 does */
    c.training.fp8_recipe = TP_FP8_DELAYED;
    tp_estimate_result fp8, same_peak, fp4;
    CHECK_INT(tp_estimate(&c, &fp8, NULL), TP_OK);
    CHECK_NEAR(c.system.gpu.fp4_flop_per_s, 10000e12, 1e-3);
    c.training.fp4 = 1;
    c.system.gpu.fp4_flop_per_s = c.system.gpu.fp8_flop_per_s;
    CHECK_INT(tp_estimate(&c, &same_peak, NULL), TP_OK);
    CHECK_NEAR(same_peak.time.step_s, fp8.time.step_s, 0.0);
    CHECK_NEAR(fp8.bytes_per_param.fp8_weights, 1.0, 0.0);
    CHECK_NEAR(same_peak.bytes_per_param.fp8_weights, 2.0 * (0.5 + 1.0 / 16.0), 0.0);
    /* NVFP4 keeps the layers' saved inputs at 0.5625 B where fp8 keeps 1 */
    CHECK(same_peak.stages[0].activations_bytes < fp8.stages[0].activations_bytes);
    c.system.gpu.fp4_flop_per_s = 2.0 * c.system.gpu.fp8_flop_per_s;
    CHECK_INT(tp_estimate(&c, &fp4, NULL), TP_OK);
    CHECK(fp4.time.compute_s < 0.8 * fp8.time.compute_s && fp4.time.compute_s > 0.5 * fp8.time.compute_s);
    CHECK_NEAR(fp4.throughput.mfu, fp4.throughput.model_flop_per_s_per_gpu / c.system.gpu.tensor_flop_per_s,
               1e-12);
    /* the output names both peaks: MFU's and the one the GEMMs ran at */
    CHECK_NEAR(fp4.throughput.mfu_peak_flop_per_s, 2500e12, 1e-3);
    CHECK_NEAR(fp4.throughput.linear_peak_flop_per_s, 10000e12, 1e-3); /* set to twice FP8 above */
    CHECK_NEAR(fp8.throughput.linear_peak_flop_per_s, 5000e12, 1e-3);
    tp_error err;
    c.training.fp8 = 0;
    CHECK_INT(tp_estimate(&c, &fp4, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.precision.fp4");
    c.training.fp8 = 1;
    c.system.gpu = *tp_gpu_preset_find("h100-80gb");
    CHECK_INT(tp_estimate(&c, &fp4, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.precision.fp4");
}

/* parallel.pp_overlap: the interleaved schedule's sends are posted before
 * a chunk's compute and hidden behind it (Megatron-LM's default); without
 * virtual stages, or for a framework that blocks on them, they stay
 * exposed. */
static void pp_overlap_hides_the_interleaved_sends(void)
{
    tp_config c = llama70b_on_64_at_tp8();
    c.plan.pp = 4;
    c.plan.schedule = TP_SCHEDULE_INTERLEAVED;
    c.plan.virtual_stages = 2;
    c.system.gpu.overlap_slowdown = c.system.gpu.nvlink_overlap_slowdown = 0.0;
    CHECK_INT(c.plan.pp_overlap, 1); /* Megatron-Core's default */
    tp_estimate_result hidden, exposed;
    CHECK_INT(tp_estimate(&c, &hidden, NULL), TP_OK);
    CHECK_NEAR(hidden.time.pp_comm_s, 0.0, 0.0);
    c.plan.pp_overlap = 0;
    CHECK_INT(tp_estimate(&c, &exposed, NULL), TP_OK);
    CHECK(exposed.time.pp_comm_s > 0.0);
    CHECK(exposed.time.step_s > hidden.time.step_s);
    /* without virtual stages Megatron-LM turns it off: the same either way */
    c.plan.schedule = TP_SCHEDULE_1F1B;
    c.plan.virtual_stages = 1;
    tp_estimate_result one, other;
    CHECK_INT(tp_estimate(&c, &one, NULL), TP_OK);
    c.plan.pp_overlap = 1;
    CHECK_INT(tp_estimate(&c, &other, NULL), TP_OK);
    CHECK_NEAR(one.time.step_s, other.time.step_s, 0.0);
    CHECK(one.time.pp_comm_s > 0.0);
    tp_config t;
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\"}}", &t, NULL), TP_OK);
    CHECK_INT(t.plan.pp_overlap, 0);
}

/* training.framework deepspeed (Megatron-DeepSpeed): DeepSpeed's pipeline
 * engine sends every tp rank's whole output, t times the 1/t share each
 * rank sends under Megatron-LM's scatter/gather (sequence parallelism
 * shards the output anyway), and its four transfers a micro-batch, one
 * after another, take twice the two paired ones; it all-reduces the
 * gradients once the last backward is done, not beside it, and with zero 1
 * (its BF16_Optimizer) each rank then updates its optimizer shard. */
static void deepspeed_sends_whole_and_all_reduces(void)
{
    tp_config c = llama70b_on_64_at_tp8();
    c.plan.pp = 4;
    c.plan.sp = 0;
    c.system.gpu.overlap_slowdown = c.system.gpu.nvlink_overlap_slowdown = 0.0;
    tp_estimate_result share, whole;
    CHECK_INT(tp_estimate(&c, &share, NULL), TP_OK);
    c.plan.pp_send_whole = 1;
    CHECK_INT(tp_estimate(&c, &whole, NULL), TP_OK);
    const double latency = 2.0 * c.system.network.slow.latency_s; /* stages on other nodes */
    CHECK_NEAR(whole.time.micro_batch_p2p_s - latency, (double)c.plan.tp * (share.time.micro_batch_p2p_s - latency),
               1e-9 * whole.time.micro_batch_p2p_s);
    CHECK_NEAR(whole.time.micro_batch_compute_s, share.time.micro_batch_compute_s, 0.0);
    tp_estimate_result serial;
    c.plan.pp_serial_sends = 1;
    CHECK_INT(tp_estimate(&c, &serial, NULL), TP_OK);
    CHECK_NEAR(serial.time.micro_batch_p2p_s, 2.0 * whole.time.micro_batch_p2p_s,
               1e-12 * serial.time.micro_batch_p2p_s);
    c.plan.pp_serial_sends = 0;
    c.plan.sp = 1;
    CHECK_INT(tp_estimate(&c, &whole, NULL), TP_OK);
    c.plan.pp_send_whole = 0;
    CHECK_INT(tp_estimate(&c, &share, NULL), TP_OK);
    CHECK_NEAR(whole.time.micro_batch_p2p_s, share.time.micro_batch_p2p_s, 0.0);

    /* dp 8, one replica a node: the fp32 gradients' all-reduce exposed in
     * full, where Megatron-LM's hides behind the last backward */
    c.plan.pp = 1;
    c.training.global_batch = 8;
    tp_estimate_result beside, after, sharded;
    c.plan.zero = 0;
    CHECK_INT(tp_estimate(&c, &beside, NULL), TP_OK);
    c.plan.grad_all_reduce = 1;
    CHECK_INT(tp_estimate(&c, &after, NULL), TP_OK);
    const double params = after.stages[0].params;
    const double all_reduce_s = net_collective_s(&c.system, NET_ALL_REDUCE, 4.0 * params, 8, 1);
    CHECK_NEAR(after.time.dp_step_s, all_reduce_s, 1e-12 * all_reduce_s);
    CHECK(beside.time.dp_step_s < after.time.dp_step_s);
    /* zero 1: the same all-reduce, then the bf16 weights gathered behind
     * the next forward */
    c.plan.zero = 1;
    CHECK_INT(tp_estimate(&c, &sharded, NULL), TP_OK);
    const double gather_s = net_collective_s(&c.system, NET_ALL_GATHER, 2.0 * params, 8, 1);
    CHECK_NEAR(sharded.time.dp_step_s, all_reduce_s + fmax(0.0, gather_s - sharded.time.forward_s),
               1e-12 * all_reduce_s);

    tp_config t;
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"deepspeed\"}}", &t, NULL), TP_OK);
    CHECK_INT(t.plan.pp_send_whole, 1);
    CHECK_INT(t.plan.pp_serial_sends, 1);
    CHECK_INT(t.plan.grad_all_reduce, 1);
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"megatron-core\"}}", &t, NULL), TP_OK);
    CHECK_INT(t.plan.pp_send_whole, 0);
    CHECK_INT(t.plan.pp_serial_sends, 0);
    CHECK_INT(t.plan.grad_all_reduce, 0);
}

/* training.attention_kernel: triton runs the attention 1.8 times slower
 * than FlashAttention-2 (flash), cudnn 1.7 times faster on a GPU with FP8
 * tensor cores and as flash on the A100: each the same as FlashAttention-2
 * at that multiple of the attention efficiency, no other part of the step
 * moving. Megatron-Core runs cudnn, llm-foundry triton. */
static void attention_kernels_scale_the_attention(void)
{
    tp_config c = llama70b_on_64_at_tp8();
    tp_estimate_result flash, triton, slow_flash, cudnn, fast_flash;
    CHECK_INT(c.training.attention_kernel, TP_ATTENTION_KERNEL_CUDNN);
    CHECK_INT(tp_estimate(&c, &cudnn, NULL), TP_OK);
    c.training.attention_kernel = TP_ATTENTION_KERNEL_FLASH;
    CHECK_INT(tp_estimate(&c, &flash, NULL), TP_OK);
    CHECK(cudnn.time.compute_s < flash.time.compute_s);
    c.system.gpu.attention_efficiency *= 1.7;
    CHECK_INT(tp_estimate(&c, &fast_flash, NULL), TP_OK);
    CHECK_NEAR(fast_flash.time.step_s, cudnn.time.step_s, 1e-12 * cudnn.time.step_s);
    c.system.gpu.attention_efficiency /= 1.7;
    c.training.attention_kernel = TP_ATTENTION_KERNEL_TRITON;
    CHECK_INT(tp_estimate(&c, &triton, NULL), TP_OK);
    CHECK(triton.time.compute_s > flash.time.compute_s);
    CHECK_NEAR(triton.time.tp_comm_s, flash.time.tp_comm_s, 0.0);
    c.training.attention_kernel = TP_ATTENTION_KERNEL_FLASH;
    c.system.gpu.attention_efficiency /= 1.8;
    CHECK_INT(tp_estimate(&c, &slow_flash, NULL), TP_OK);
    CHECK_NEAR(slow_flash.time.step_s, triton.time.step_s, 1e-12 * triton.time.step_s);
    tp_config t;
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"llm-foundry\"}}", &t, NULL), TP_OK);
    CHECK_INT(t.training.attention_kernel, TP_ATTENTION_KERNEL_TRITON);
    CHECK_STR(tp_attention_kernel_str(TP_ATTENTION_KERNEL_TRITON), "triton");
    /* on the A100 (no FP8 tensor cores) cuDNN's kernel is FlashAttention-2's */
    c.system.gpu = *tp_gpu_preset_find("a100-80gb");
    c.training.attention_kernel = TP_ATTENTION_KERNEL_FLASH;
    CHECK_INT(tp_estimate(&c, &flash, NULL), TP_OK);
    c.training.attention_kernel = TP_ATTENTION_KERNEL_CUDNN;
    CHECK_INT(tp_estimate(&c, &cudnn, NULL), TP_OK);
    CHECK_NEAR(cudnn.time.step_s, flash.time.step_s, 0.0);
}

/* training.attention_kernel sdpa, torchtitan's: PyTorch's SDPA runs as
 * FlashAttention-2 on an NVIDIA GPU and, through AOTriton, as FlashAttention
 * written in Triton on an AMD Instinct GPU, whatever the case of its name. */
static void sdpa_is_flash_on_nvidia_and_triton_on_amd(void)
{
    tp_config t;
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\"}}", &t, NULL), TP_OK);
    CHECK_INT(t.training.attention_kernel, TP_ATTENTION_KERNEL_SDPA);
    CHECK_STR(tp_attention_kernel_str(TP_ATTENTION_KERNEL_SDPA), "sdpa");
    const char *gpus[] = {"h100-80gb", "mi300x", "b200", "MI355X-custom"};
    const int amd[] = {0, 1, 0, 1};
    for (int i = 0; i < 4; i++) {
        tp_config c = llama70b_on_64_at_tp8();
        c.system.gpu = *tp_gpu_preset_find(i == 3 ? "mi355x" : gpus[i]);
        snprintf(c.system.gpu.name, sizeof c.system.gpu.name, "%s", gpus[i]);
        tp_estimate_result sdpa, same;
        c.training.attention_kernel = TP_ATTENTION_KERNEL_SDPA;
        CHECK_INT(tp_estimate(&c, &sdpa, NULL), TP_OK);
        c.training.attention_kernel = amd[i] ? TP_ATTENTION_KERNEL_TRITON : TP_ATTENTION_KERNEL_FLASH;
        CHECK_INT(tp_estimate(&c, &same, NULL), TP_OK);
        CHECK_NEAR(sdpa.time.step_s, same.time.step_s, 0.0);
        c.training.attention_kernel = amd[i] ? TP_ATTENTION_KERNEL_FLASH : TP_ATTENTION_KERNEL_TRITON;
        CHECK_INT(tp_estimate(&c, &same, NULL), TP_OK);
        CHECK(amd[i] ? sdpa.time.compute_s > same.time.compute_s : sdpa.time.compute_s < same.time.compute_s);
    }
}

/* training.eager: Llama 3.1 8B's layers move, per token, 32 B more per
 * element of each RMSNorm (fp32 steps: 36 B against a fused kernel's 4),
 * 16 B more per element of Q and K through rotary (20 against 4), 4 B
 * more per element of the MLP's width (SiLU and the product apart: 10
 * against 6) and repeat_kv's copies of K and V out to the 32 query heads
 * (reading 2 B of each of K and V, writing 2 B of each head: 2 x 2048 +
 * 4 x 4096), each in the forward and twice in the backward, at HBM speed;
 * nothing else in the step moves. A GPT layer (LayerNorm, GeLU, no
 * rotary) has nothing to unfuse. torchtitan trains eager by default. */
static void eager_moves_the_bytes_pytorch_moves(void)
{
    tp_config c;
    tp_config_defaults(&c); /* Llama 3.1 8B, 8 GPUs, tp 1: no split of the bytes */
    CHECK_INT(c.training.eager, 0);
    tp_estimate_result fused, eager;
    CHECK_INT(tp_estimate(&c, &fused, NULL), TP_OK);
    c.training.eager = 1;
    CHECK_INT(tp_estimate(&c, &eager, NULL), TP_OK);
    const double h = 4096, rope = 4096 + 1024, f = 14336, kv = 2048, q = 4096;
    const double per_token = 2.0 * 32.0 * h + 16.0 * rope + 4.0 * f + 2.0 * kv + 4.0 * q;
    const double bytes = 3.0 * 32.0 * (double)c.training.seq_len * per_token * (double)eager.micro_batches;
    CHECK_NEAR(eager.time.compute_s - fused.time.compute_s, bytes / c.system.gpu.hbm_bytes_per_s,
               1e-9 * eager.time.compute_s);
    CHECK_NEAR(eager.time.dp_comm_s, fused.time.dp_comm_s, 1e-12 * fused.time.dp_comm_s);
    CHECK_NEAR(eager.peak_bytes, fused.peak_bytes, 0.0);
    c.model.arch = TP_ARCH_GPT;
    c.model.kv_heads = c.model.heads;
    c.model.positions = c.training.seq_len;
    c.training.eager = 0;
    CHECK_INT(tp_estimate(&c, &fused, NULL), TP_OK);
    c.training.eager = 1;
    CHECK_INT(tp_estimate(&c, &eager, NULL), TP_OK);
    CHECK_NEAR(eager.time.step_s, fused.time.step_s, 0.0);
    tp_config t;
    CHECK_INT(tp_config_from_json("{\"training\": {\"framework\": \"torchtitan\"}}", &t, NULL), TP_OK);
    CHECK_INT(t.training.eager, 1);
}

/* training.document_tokens: samples of 4,096 tokens each packing eight
 * documents of 512 that attend within themselves cost what samples of 512
 * do, token for token: the same model FLOPs (attention over 512 keys per
 * query) and the same compute when a micro-batch holds the same tokens;
 * less than one 4,096-token document per sample. */
static void packed_documents_attend_within_themselves(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.training.seq_len = 4096;
    c.training.global_batch = 128;
    tp_estimate_result whole, packed, short_samples;
    CHECK_INT(tp_estimate(&c, &whole, NULL), TP_OK);
    c.training.document_tokens = 512;
    CHECK_INT(tp_estimate(&c, &packed, NULL), TP_OK);
    CHECK(packed.time.compute_s < whole.time.compute_s);
    CHECK(packed.throughput.model_flop_per_step < whole.throughput.model_flop_per_step);
    CHECK_NEAR(packed.peak_bytes, whole.peak_bytes, 0.0);
    c.training.document_tokens = 0;
    c.training.seq_len = 512;
    c.training.global_batch = 1024;
    c.training.micro_batch = 8;
    CHECK_INT(tp_estimate(&c, &short_samples, NULL), TP_OK);
    CHECK_NEAR(packed.throughput.model_flop_per_step, short_samples.throughput.model_flop_per_step,
               1e-12 * packed.throughput.model_flop_per_step);
    CHECK_NEAR(packed.time.compute_s, short_samples.time.compute_s, 1e-12 * packed.time.compute_s);
    tp_error err;
    c.training.document_tokens = 513;
    CHECK_INT(tp_estimate(&c, &packed, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.document_tokens");
    c.training.document_tokens = 256;
    c.training.flash_attention = 0;
    CHECK_INT(tp_estimate(&c, &packed, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.document_tokens");
}

/* fp8 linear layers all-gather their sequence-parallel input in fp8 (1 B
 * an element; Transformer Engine's LayerNormLinear, torchao's per-tensor
 * float8 tensor parallel): Llama 3.1 8B at tp 8 saves, per layer and
 * micro-batch, two forward all-gathers' worth of the halved bytes; torchao's
 * rowwise scaling gathers bf16 and saves nothing. */
static void fp8_gathers_the_tp_input_in_fp8(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.plan.tp = 8;
    c.training.global_batch = 64;
    tp_estimate_result bf16, fp8, rowwise;
    CHECK_INT(tp_estimate(&c, &bf16, NULL), TP_OK);
    c.training.fp8 = 1;
    c.training.fp8_recipe = TP_FP8_TENSORWISE;
    CHECK_INT(tp_estimate(&c, &fp8, NULL), TP_OK);
    c.training.fp8_recipe = TP_FP8_ROWWISE;
    CHECK_INT(tp_estimate(&c, &rowwise, NULL), TP_OK);
    const double tokens = (double)c.training.seq_len, h = (double)c.model.hidden;
    const double saved = net_collective_s(&c.system, NET_ALL_GATHER, 2.0 * tokens * h, 8, 8)
                       - net_collective_s(&c.system, NET_ALL_GATHER, tokens * h, 8, 8);
    CHECK(saved > 0.0);
    CHECK_NEAR(bf16.time.tp_comm_s - fp8.time.tp_comm_s,
               (double)bf16.micro_batches * (double)c.model.layers * 2.0 * saved, 1e-9 * bf16.time.tp_comm_s);
    CHECK_NEAR(rowwise.time.tp_comm_s, bf16.time.tp_comm_s, 1e-12 * bf16.time.tp_comm_s);
}

/* Sliding-window attention: a windowed causal query attends over
 * min(i, w) keys, counted as the whole causal sequence of equal cost
 * (model.c), averaged over the layers that keep the window. */
static void windows_shorten_the_attention_span(void)
{
    const tp_model *mistral = tp_model_preset_find("mistral-7b");
    /* 4,096 keys for the last 4,097 of 8,192 queries, i for the first
     * 4,095: 4096 * 8192 - 4096 * 4095 / 2 = 25,167,872 keys, which a whole
     * causal sequence of 2 * 25,167,872 / 8,192 = 6,144.5 costs */
    CHECK_NEAR(model_attention_span(mistral, 8192, 1), 6144.5, 1e-9);
    CHECK_NEAR(model_attention_span(mistral, 4096, 1), 4096.0, 0.0); /* the window holds the sample */
    CHECK_NEAR(model_attention_span(mistral, 8192, 0), 8192.0, 0.0); /* unfused: every score */
    /* gpt-oss-120b: 18 of 36 layers global at 4,096, 18 within 128 keys */
    const tp_model *oss = tp_model_preset_find("gpt-oss-120b");
    const double windowed = 2.0 * 128 - 128.0 * 127 / 4096;
    CHECK_NEAR(model_attention_span(oss, 4096, 1), (18 * 4096 + 18 * windowed) / 36, 1e-9);

    /* the estimate charges the window: a quarter of Mistral's attention
     * work at 8,192 tokens goes from the model FLOPs, forward and backward,
     * scores and context over 32 heads of 128 on 32 layers, and the step
     * shortens */
    tp_config c;
    tp_config_defaults(&c);
    c.model = *mistral;
    c.training.seq_len = 8192;
    tp_estimate_result windowed_run, whole_run;
    tp_error err;
    CHECK_INT(tp_estimate(&c, &windowed_run, &err), TP_OK);
    c.model.window_tokens = 0;
    CHECK_INT(tp_estimate(&c, &whole_run, &err), TP_OK);
    const double tokens = (double)c.training.global_batch * 8192.0;
    const double saved = 3.0 * tokens * 32.0 * 2.0 * (8192.0 - 6144.5) * (4096.0 + 4096.0);
    CHECK_NEAR(whole_run.throughput.model_flop_per_step - windowed_run.throughput.model_flop_per_step, saved,
               1e-9 * saved);
    CHECK(windowed_run.time.step_s < whole_run.time.step_s);

    /* gpt-oss with its window taken off attends globally everywhere */
    c.model = *oss;
    c.model.window_tokens = 0;
    CHECK_NEAR(model_attention_span(&c.model, 4096, 1), 4096.0, 0.0);
    /* a window needs a causal decoder */
    c.model = *tp_model_preset_find("vit-era5");
    c.model.window_tokens = 256;
    CHECK_REFUSED(&c, "model.window_tokens");
}

int main(void)
{
    flops_match_the_papers();
    windows_shorten_the_attention_span();
    all_gather_follows_seed002();
    breakdown_sums_and_bubble_shrinks_with_v();
    unused_dimensions_cost_nothing();
    amsp_step_follows_seed001();
    hidden_transfers_cost_their_tiers_slowdown();
    data_loader_sets_the_pace_at_long_sequences();
    host_overhead_adds_once_per_step();
    slowest_gpu_sets_the_pace();
    partial_recompute_lies_between_none_and_full();
    tp_overlap_hides_behind_the_gemms();
    fp8_runs_the_linear_layers_at_its_peak();
    fp4_runs_the_linear_layers_at_its_peak();
    pp_overlap_hides_the_interleaved_sends();
    deepspeed_sends_whole_and_all_reduces();
    attention_kernels_scale_the_attention();
    sdpa_is_flash_on_nvidia_and_triton_on_amd();
    eager_moves_the_bytes_pytorch_moves();
    packed_documents_attend_within_themselves();
    fp8_gathers_the_tp_input_in_fp8();
    return check_finish("perf");
}
