/*
 * fields.c: the table of a config's plain fields (fields.h says who reads
 * it) and the operations every row shares: get and set in the JSON unit,
 * the range check, the defaults.
 *
 * Ranges. Every rate and capacity has a lower bound above 0 as well as an
 * upper one, so that no product or quotient of allowed values leaves the
 * doubles' range: the estimate's figures stay finite by construction
 * (validate.c still checks them). Integer counts stay within 10^8, so their
 * products (tp pp cp <= 10^16, micro_batch dp <= 10^13) fit in 64 bits.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "units.h"

#define P FIELD_FROM_PRESET

/* Row shapes: a section, its struct, the member, the JSON key, then the
 * type's own figures, then what the row adds (.doc always; .old_key,
 * .echo, .by_hand where they apply). Enum and flag ranges are their names. */
#define ROW_INT(sec, st, mem, k, u, lo, hi, def, ...)                                            \
    .section = sec, .key = k, .type = FIELD_INT, .offset = offsetof(st, mem), .unit = u,         \
    .scale = 1.0, .min = lo, .max = hi, .fallback = def,     \
    __VA_ARGS__
#define ROW_NUM(sec, st, mem, k, u, sc, lo, hi, def, ...)                                        \
    .section = sec, .key = k, .type = FIELD_NUMBER, .offset = offsetof(st, mem), .unit = u,      \
    .scale = sc, .min = lo, .max = hi, .fallback = def, __VA_ARGS__
#define ROW_FLAG(sec, st, mem, k, def, ...)                                                      \
    .section = sec, .key = k, .type = FIELD_BOOL, .offset = offsetof(st, mem), .unit = "",       \
    .scale = 1.0, .min = 0, .max = 1, .fallback = def, __VA_ARGS__
#define ROW_ENUM(sec, st, mem, k, list, def, ...)                                                \
    .section = sec, .key = k, .type = FIELD_ENUM, .offset = offsetof(st, mem), .names = &list,   \
    .unit = "", .scale = 1.0, .min = 0, .max = 0, .fallback = def, __VA_ARGS__
#define ROW_NAME(sec, st, mem, k, ...)                                                           \
    .section = sec, .key = k, .type = FIELD_NAME, .offset = offsetof(st, mem),                   \
    .size = sizeof(((st *)0)->mem), .unit = "", .scale = 1.0, .fallback = P, __VA_ARGS__

/* Rates and capacities: from a thousandth of a unit (a GPU of 1 GFLOP/s,
 * 1 MiB, 1 MB/s) to a million units. */
#define RATE_MIN 1e-3

#define FIELD_ROWS(X) \
    /* ---- model: a preset's, or all of layers, hidden, heads, ffn_hidden and vocab ---- */ \
    X(NAME, SECTION_MODEL, tp_model, name, "name", .doc = "label only") \
    X(ENUM, SECTION_MODEL, tp_model, arch, "arch", arch_names, P, .by_hand = 1, \
      .doc = "llama: RMSNorm, SwiGLU MLP, rotary positions, no biases; gpt: LayerNorm with bias, GeLU MLP, " "biases, learned positions; vit: an encoder of gpt's blocks reading patch_dim values per token") \
    X(INT, SECTION_MODEL, tp_model, layers, "layers", "layers", 1, 1e4, P, .doc = "transformer layers L") \
    X(INT, SECTION_MODEL, tp_model, hidden, "hidden", "", 1, 1e6, P, .doc = "hidden size h") \
    X(INT, SECTION_MODEL, tp_model, heads, "heads", "heads", 1, 1e5, P, .doc = "attention (query) heads a") \
    X(INT, SECTION_MODEL, tp_model, kv_heads, "kv_heads", "heads", 1, 1e5, P, \
      .doc = "key/value heads k: heads for multi-head, fewer for grouped-query, 1 for multi-query attention") \
    X(INT, SECTION_MODEL, tp_model, head_dim, "head_dim", "", 0, 4096, P, .echo = ECHO_NONZERO, \
      .doc = "gqa: size of each query and key/value head when it is not hidden / heads (Qwen3: 128); 0: hidden / heads") \
    X(INT, SECTION_MODEL, tp_model, ffn_hidden, "ffn_hidden", "", 1, 1e7, P, .doc = "MLP width h_ffn") \
    X(INT, SECTION_MODEL, tp_model, vocab, "vocab", "tokens", 0, 1e8, P, .doc = "vocabulary v; 0 for vit") \
    X(INT, SECTION_MODEL, tp_model, positions, "positions", "tokens", 0, 1e8, P, \
      .doc = "rows of the learned position embedding (gpt, vit); 0: rotary or none") \
    X(INT, SECTION_MODEL, tp_model, patch_dim, "patch_dim", "values", 0, 1e7, P, .echo = ECHO_VIT, \
      .doc = "vit: values per token in and out (channels x patch height x patch width)") \
    X(FLAG, SECTION_MODEL, tp_model, tied_embeddings, "tied_embeddings", P, \
      .doc = "input embedding and LM head share one matrix") \
    X(FLAG, SECTION_MODEL, tp_model, dropout, "dropout", P, \
      .doc = "dropout layers present (their 1-byte masks are stored)") \
    X(ENUM, SECTION_MODEL, tp_model, attention, "attention", attention_names, P, .by_hand = 1, \
      .doc = "gqa: multi-head, grouped-query or multi-query by kv_heads; mla: multi-head latent attention " "(DeepSeek-V2/V3), sized in model.mla") \
    /* ---- model.moe: mixture of experts (all 0: a dense model) ---- */ \
    X(INT, SECTION_MOE, tp_moe, experts, "experts", "experts", 0, 1e5, P, \
      .doc = "routed experts E per MoE layer; 0 makes the model dense") \
    X(INT, SECTION_MOE, tp_moe, experts_per_token, "experts_per_token", "experts", 0, 1e5, P, \
      .doc = "routed experts each token visits (top-k), 1 to experts") \
    X(INT, SECTION_MOE, tp_moe, expert_ffn_hidden, "expert_ffn_hidden", "", 0, 1e7, P, \
      .doc = "SwiGLU width of one routed expert") \
    X(INT, SECTION_MOE, tp_moe, shared_experts, "shared_experts", "experts", 0, 1000, P, \
      .doc = "experts every token visits (DeepSeek, Qwen2-MoE)") \
    X(INT, SECTION_MOE, tp_moe, shared_ffn_hidden, "shared_ffn_hidden", "", 0, 1e7, P, \
      .doc = "width of one shared expert; the routed width when a new MoE model leaves it out") \
    X(INT, SECTION_MOE, tp_moe, every, "every", "layers", 0, 1e4, P, \
      .doc = "after the dense layers, every n-th layer is MoE (1: all, 2: every second, Llama 4)") \
    X(INT, SECTION_MOE, tp_moe, first_dense, "first_dense", "layers", 0, 1e4, P, \
      .doc = "leading dense layers (DeepSeek-V3: 3), of width ffn_hidden") \
    /* ---- model.mla: multi-head latent attention ---- */ \
    X(INT, SECTION_MLA, tp_mla, q_lora_rank, "q_lora_rank", "", 0, 1e6, P, \
      .doc = "query latent rank, at most hidden; 0 projects queries directly (DeepSeek-V2-Lite)") \
    X(INT, SECTION_MLA, tp_mla, kv_lora_rank, "kv_lora_rank", "", 0, 1e6, P, \
      .doc = "key/value latent rank (the cache a token keeps), 1 to hidden") \
    X(INT, SECTION_MLA, tp_mla, qk_nope_head_dim, "qk_nope_head_dim", "", 0, 4096, P, \
      .doc = "per head, the part of Q and K without rotary") \
    X(INT, SECTION_MLA, tp_mla, qk_rope_head_dim, "qk_rope_head_dim", "", 0, 4096, P, \
      .doc = "per head, the rotary part of Q; one rotary key of this size serves all heads") \
    X(INT, SECTION_MLA, tp_mla, v_head_dim, "v_head_dim", "", 0, 4096, P, \
      .doc = "per head, V and the attention output") \
    /* ---- system ---- */ \
    X(INT, SECTION_SYSTEM, tp_system, gpus, "gpus", "GPUs", 1, 1e7, 8, .doc = "GPUs in the job") \
    X(INT, SECTION_SYSTEM, tp_system, gpus_per_node, "gpus_per_node", "GPUs", 1, 1024, 8, \
      .doc = "GPUs sharing the fast (NVLink) domain") \
    X(NUM, SECTION_SYSTEM, tp_system, loader_bytes_per_s, "loader_gb_per_s", "GB/s", UNIT_GB_PER_S, RATE_MIN, 1e6, 0.48, .old_key = "loader_gbps", \
      .doc = "rate at which one training process's data loader delivers sample bytes to its GPU; " "matters with training.dataloader_mask at long sequences") \
    X(NUM, SECTION_SYSTEM, tp_system, step_overhead_s, "step_overhead_s", "s", 1.0, 0, 3600, 0.1, \
      .doc = "seconds per optimizer step the GPUs wait for the host (the framework around the optimizer step, " "the loss's synchronisation, the next step's launch); 0 for a loop whose GPU never idles") \
    /* ---- system.gpu: a preset's, or all of the first five rates ---- */ \
    X(NAME, SECTION_GPU, tp_gpu, name, "name", .doc = "label only") \
    X(NUM, SECTION_GPU, tp_gpu, memory_bytes, "memory_gib", "GiB", UNIT_GIB, RATE_MIN, 1e6, P, \
      .doc = "capacity the device reports to the allocator") \
    X(NUM, SECTION_GPU, tp_gpu, tensor_flop_per_s, "tensor_tflops", "TFLOP/s", UNIT_TERA, RATE_MIN, 1e6, P, \
      .doc = "dense BF16/FP16 tensor-core peak") \
    X(NUM, SECTION_GPU, tp_gpu, hbm_bytes_per_s, "hbm_gb_per_s", "GB/s", UNIT_GB_PER_S, RATE_MIN, 1e6, P, .old_key = "hbm_gbps", \
      .doc = "HBM bandwidth") \
    X(NUM, SECTION_GPU, tp_gpu, nvlink_bytes_per_s, "nvlink_gb_per_s", "GB/s", UNIT_GB_PER_S, RATE_MIN, 1e6, P, .old_key = "nvlink_gbps", \
      .doc = "NVLink bandwidth per GPU, both directions together, as data sheets give it") \
    X(NUM, SECTION_GPU, tp_gpu, network_bytes_per_s, "network_gbit_per_s", "Gbit/s", UNIT_GBIT_PER_S, RATE_MIN, 8e6, P, .old_key = "network_gbps", \
      .doc = "scale-out (InfiniBand or Ethernet) bandwidth per GPU, one direction") \
    X(NUM, SECTION_GPU, tp_gpu, vector_flop_per_s, "vector_tflops", "TFLOP/s", UNIT_TERA, RATE_MIN, 1e6, P, \
      .doc = "16-bit non-tensor (element-wise) peak; without a preset 13.5% of tensor_tflops, the H100's ratio") \
    X(NUM, SECTION_GPU, tp_gpu, matmul_efficiency, "matmul_efficiency", "", 1.0, 1e-3, 1, P, \
      .doc = "fraction of the tensor peak a large GEMM reaches") \
    X(NUM, SECTION_GPU, tp_gpu, attention_efficiency, "attention_efficiency", "", 1.0, 1e-3, 1, P, \
      .doc = "fraction of the tensor peak fused (Flash) attention reaches") \
    X(NUM, SECTION_GPU, tp_gpu, kernel_latency_s, "kernel_latency_us", "µs", UNIT_US, 0, 1e6, P, \
      .doc = "fixed cost of every kernel, with the host dispatch the framework leaves exposed") \
    X(NUM, SECTION_GPU, tp_gpu, overlap_slowdown, "overlap_slowdown", "", 1.0, 0, 1, P, \
      .doc = "fraction of a hidden transfer's time across nodes that the compute hiding it still loses " "(NCCL shares SMs and HBM)") \
    X(NUM, SECTION_GPU, tp_gpu, nvlink_overlap_slowdown, "nvlink_overlap_slowdown", "", 1.0, 0, 1, P, \
      .doc = "the same for a transfer inside a node, whose bytes the SMs copy themselves") \
    X(NUM, SECTION_GPU, tp_gpu, compute_spread, "compute_spread", "", 1.0, 0, 1, P, \
      .doc = "standard deviation of the time GPUs of this kind take for the same matrix work, a fraction of the " "typical time: every step waits for the slowest of system.gpus") \
    /* ---- system.network: a cluster's, or what the GPU implies ---- */ \
    X(NAME, SECTION_NETWORK, tp_network, name, "name", .doc = "label only") \
    X(NUM, SECTION_NETWORK, tp_network, fast.bytes_per_s, "fast_gb_per_s", "GB/s", UNIT_GB_PER_S, RATE_MIN, 1e6, P, .old_key = "fast_gbps", \
      .doc = "NVLink domain bandwidth per GPU, one direction") \
    X(NUM, SECTION_NETWORK, tp_network, fast.latency_s, "fast_latency_us", "µs", UNIT_US, 0, 1e6, P, \
      .doc = "latency per step of a collective inside the domain") \
    X(NUM, SECTION_NETWORK, tp_network, fast.efficiency, "fast_efficiency", "", 1.0, 1e-3, 1, P, \
      .doc = "fraction of fast_gb_per_s collectives reach") \
    X(NUM, SECTION_NETWORK, tp_network, slow.bytes_per_s, "slow_gbit_per_s", "Gbit/s", UNIT_GBIT_PER_S, RATE_MIN, 8e6, P, .old_key = "slow_gbps", \
      .doc = "bandwidth per NIC between nodes, one direction") \
    X(NUM, SECTION_NETWORK, tp_network, slow.latency_s, "slow_latency_us", "µs", UNIT_US, 0, 1e6, P, \
      .doc = "latency per step of a collective across nodes") \
    X(NUM, SECTION_NETWORK, tp_network, slow.efficiency, "slow_efficiency", "", 1.0, 1e-3, 1, P, \
      .doc = "fraction of slow_gbit_per_s collectives reach") \
    X(INT, SECTION_NETWORK, tp_network, nics_per_node, "nics_per_node", "NICs", 1, 1024, P, \
      .doc = "NICs a node's GPUs share") \
    /* ---- training ---- */ \
    X(ENUM, SECTION_TRAINING, tp_training, framework, "framework", framework_names, TP_FRAMEWORK_MEGATRON_CORE, \
      .by_hand = 1, .doc = "the trainer: naming it sets what it does by default (its cross-entropy's workspace, " \
      "overheads.loss_bytes_per_logit) as those fields' defaults; docs/config.md lists each fact and its source") \
    X(INT, SECTION_TRAINING, tp_training, seq_len, "seq_len", "tokens", 1, 1e8, 8192, \
      .doc = "tokens per sample s") \
    X(INT, SECTION_TRAINING, tp_training, global_batch, "global_batch", "samples", 1, 1e8, 1024, \
      .doc = "samples per optimizer step") \
    X(INT, SECTION_TRAINING, tp_training, micro_batch, "micro_batch", "samples", 1, 1e5, 1, \
      .doc = "samples per micro-batch b") \
    X(ENUM, SECTION_TRAINING, tp_training, optimizer, "optimizer", optimizer_names, TP_OPT_ADAM, \
      .doc = "adam and adamw keep two states, sgd one (momentum), adafactor factors the second moment, " "adam8bit keeps two int8 states with an fp32 scale per 2048 values") \
    X(ENUM, SECTION_TRAINING, tp_training, recompute, "recompute", recompute_names, TP_RECOMPUTE_NONE, \
      .doc = "selective recomputes the attention core (Korthikanti et al. 2023); full keeps only each " "layer's input; selective_op keeps every other matrix multiply's output and the attention output, " "recomputing the rest (torchtitan's per-op policy; dense gqa layers with flash attention)") \
    X(INT, SECTION_TRAINING, tp_training, recompute_layers, "recompute_layers", "layers", 0, 1e4, 0, \
      .doc = "with full recompute, the layers of each pipeline stage that recompute, the others keeping all " "their activations (Megatron-LM's --recompute-method block); 0: every layer") \
    X(FLAG, SECTION_TRAINING, tp_training, flash_attention, "flash_attention", 1, \
      .doc = "fused attention: the s x s scores are never stored") \
    X(FLAG, SECTION_TRAINING, tp_training, dataloader_mask, "dataloader_mask", 0, \
      .doc = "the data loader builds a dense s x s causal mask for every sample (Megatron-LM without " "--no-create-attention-mask-in-dataloader)") \
    X(NUM, SECTION_TRAINING, tp_training, capacity_factor, "capacity_factor", "", 1.0, 1, 64, 1, \
      .doc = "MoE: tokens the busiest expert receives over an even share (1: balanced)") \
    X(NUM, SECTION_TRAINING, tp_training, train_tokens, "train_tokens", "tokens", 1.0, 1, 1e18, 1e12, \
      .doc = "tokens of the whole run, for time to train and GPU-hours") \
    X(NUM, SECTION_TRAINING, tp_training, gpu_hour_cost, "gpu_hour_cost", "", 1.0, 0, 1e6, 0, \
      .doc = "price of one GPU-hour; 0 leaves throughput.cost out") \
    /* ---- training.precision ---- */ \
    X(ENUM, SECTION_PRECISION, tp_training, weights_dtype, "weights", dtype_names, TP_DTYPE_BF16, \
      .doc = "working copy of the weights") \
    X(ENUM, SECTION_PRECISION, tp_training, gradients_dtype, "gradients", dtype_names, TP_DTYPE_FP32, \
      .doc = "gradient accumulation buffer") \
    X(ENUM, SECTION_PRECISION, tp_training, optimizer_dtype, "optimizer", dtype_names, TP_DTYPE_FP32, \
      .doc = "optimizer states (not used by adam8bit)") \
    X(FLAG, SECTION_PRECISION, tp_training, master_weights, "master_weights", 1, \
      .doc = "an fp32 master copy of the weights, counted when the weights are not fp32") \
    X(FLAG, SECTION_PRECISION, tp_training, fp8, "fp8", 0, \
      .doc = "fp8 GEMMs (Transformer Engine): an fp8 copy of the weights and its transpose; needs bf16 or fp16 weights") \
    /* ---- parallel ---- */ \
    X(INT, SECTION_PARALLEL, tp_plan, tp, "tp", "ranks", 1, 1e6, 1, .doc = "tensor parallel size") \
    X(INT, SECTION_PARALLEL, tp_plan, pp, "pp", "stages", 1, 1e4, 1, .doc = "pipeline parallel size") \
    X(INT, SECTION_PARALLEL, tp_plan, cp, "cp", "ranks", 1, 1e6, 1, .doc = "context parallel size") \
    X(FLAG, SECTION_PARALLEL, tp_plan, sp, "sp", 1, .doc = "sequence parallelism (Korthikanti et al. 2023)") \
    X(FLAG, SECTION_PARALLEL, tp_plan, tp_overlap, "tp_overlap", 0, \
      .doc = "tensor-parallel collectives pipelined with the GEMMs they feed (Megatron-LM's --tp-comm-overlap, " \
      "torchtitan's async TP): hidden behind them, at the overlap slowdown") \
    X(ENUM, SECTION_PARALLEL, tp_plan, tp_algorithm, "tp_algorithm", tp_algorithm_names, TP_TP_MEGATRON, \
      .doc = "megatron: 1D tensor parallelism, heads and MLP width over tp; summa: 2D, every weight over tp x cp " "(Subramanian et al. 2024, Table A2)") \
    X(INT, SECTION_PARALLEL, tp_plan, summa_panels, "summa_panels", "panels", 0, 4096, 0, .echo = ECHO_SUMMA, \
      .doc = "summa: panels each multiply's inner dimension is cut into; 0: the fastest power of two up to 64") \
    X(INT, SECTION_PARALLEL, tp_plan, ep, "ep", "ranks", 1, 1e6, 1, .echo = ECHO_MOE, \
      .doc = "MoE: expert parallel size, dividing the experts") \
    X(INT, SECTION_PARALLEL, tp_plan, etp, "etp", "ranks", 0, 1e6, 0, .echo = ECHO_BY_HAND, \
      .doc = "MoE: expert tensor parallel size; 0: as tp") \
    X(ENUM, SECTION_PARALLEL, tp_plan, sharding, "sharding", sharding_names, TP_SHARD_ZERO, \
      .doc = "zero (stage parallel.zero), fsdp_full_shard, fsdp_shard_grad_op, fsdp_hybrid_shard or amsp") \
    X(INT, SECTION_PARALLEL, tp_plan, zero, "zero", "", 0, 3, 1, .echo = ECHO_ZERO, \
      .doc = "with sharding zero: 0 none, 1 optimizer states over dp x cp (Megatron-LM's distributed " "optimizer), 2 also gradients, 3 also weights") \
    X(INT, SECTION_PARALLEL, tp_plan, shard_group, "shard_group", "ranks", 0, 1e7, 0, .echo = ECHO_HYBRID, \
      .doc = "with fsdp_hybrid_shard: ranks per shard group; 0: the data-parallel ranks of one node") \
    X(ENUM, SECTION_PARALLEL, tp_plan, schedule, "schedule", schedule_names, TP_SCHEDULE_1F1B, \
      .doc = "1f1b, interleaved (virtual_stages model chunks per GPU) or gpipe") \
    X(INT, SECTION_PARALLEL, tp_plan, virtual_stages, "virtual_stages", "chunks", 1, 1000, 1, \
      .doc = "model chunks per GPU v (interleaved schedule)") \
    /* ---- overheads: memory that is neither model state nor stored activation ---- */ \
    X(NUM, SECTION_OVERHEADS, tp_overheads, cuda_context_bytes, "cuda_context_gib", "GiB", UNIT_GIB, 0, 1000, 739.0 / 1024.0, \
      .doc = "CUDA context, kernels and cuBLAS workspace (739 MiB measured on an H100 with PyTorch 2.11)") \
    X(NUM, SECTION_OVERHEADS, tp_overheads, nccl_bytes_per_group, "nccl_gib_per_group", "GiB", UNIT_GIB, 0, 1000, 0.125, \
      .doc = "NCCL buffers per communicator of size > 1 (4 MiB x 16 channels x send and receive)") \
    X(NUM, SECTION_OVERHEADS, tp_overheads, loss_bytes_per_logit, "loss_bytes_per_logit", "bytes", 1.0, 0, 64, 6, \
      .doc = "cross-entropy temporaries on the LM-head stage beyond the fp32 logits (bf16 logits and a " "shifted fp32 copy)") \
    X(NUM, SECTION_OVERHEADS, tp_overheads, backward_layers, "backward_layers", "layers", 1.0, 0, 1000, 1, \
      .doc = "gradients of one layer's activations alive during its backward, in layers") \
    X(NUM, SECTION_OVERHEADS, tp_overheads, fragmentation_fraction, "fragmentation", "", 1.0, 0, 1, 0.05, \
      .doc = "allocator slack, a fraction of activation memory") \
    X(NUM, SECTION_OVERHEADS, tp_overheads, bucket_params, "bucket_params", "parameters", 1.0, 0, 1e12, 4e7, \
      .doc = "gradient bucket with sharded gradients and whole weights (Megatron-LM DDP's minimum bucket)") \
    X(INT, SECTION_OVERHEADS, tp_overheads, prefetch_layers, "prefetch_layers", "layers", 0, 64, 1, \
      .doc = "with sharded weights, layers gathered ahead of the running one (FSDP's backward prefetch)")

#define AS_ROW(kind, ...) {ROW_##kind(__VA_ARGS__)},
const field field_table[] = {FIELD_ROWS(AS_ROW)};

const int field_count = (int)(sizeof field_table / sizeof field_table[0]);

static const struct {
    const char *path;
    size_t offset; /* of the section's struct in tp_config */
} sections[SECTION_COUNT] = {
    [SECTION_MODEL] = {"model", offsetof(tp_config, model)},
    [SECTION_MOE] = {"model.moe", offsetof(tp_config, model.moe)},
    [SECTION_MLA] = {"model.mla", offsetof(tp_config, model.mla)},
    [SECTION_SYSTEM] = {"system", offsetof(tp_config, system)},
    [SECTION_GPU] = {"system.gpu", offsetof(tp_config, system.gpu)},
    [SECTION_NETWORK] = {"system.network", offsetof(tp_config, system.network)},
    [SECTION_TRAINING] = {"training", offsetof(tp_config, training)},
    [SECTION_PRECISION] = {"training.precision", offsetof(tp_config, training)},
    [SECTION_PARALLEL] = {"parallel", offsetof(tp_config, plan)},
    [SECTION_OVERHEADS] = {"overheads", offsetof(tp_config, overheads)},
};

/* An enum member is read and written as an int. */
_Static_assert(sizeof(tp_arch) == sizeof(int) && sizeof(tp_dtype) == sizeof(int)
                   && sizeof(tp_sharding) == sizeof(int),
               "enums are int-sized");

const char *field_section_path(field_section section)
{
    return (unsigned)section < SECTION_COUNT ? sections[section].path : "";
}

void *field_section_struct(tp_config *c, field_section section)
{
    return (char *)c + sections[section].offset;
}

const void *field_section_struct_const(const tp_config *c, field_section section)
{
    return (const char *)c + sections[section].offset;
}

const field *field_find(field_section section, const char *key, int *renamed)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->section != section)
            continue;
        if (strcmp(f->key, key) == 0) {
            *renamed = 0;
            return f;
        }
        if (f->old_key != NULL && strcmp(f->old_key, key) == 0) {
            *renamed = 1;
            return f;
        }
    }
    return NULL;
}

void field_path(const field *f, char *out, size_t size)
{
    snprintf(out, size, "%s.%s", field_section_path(f->section), f->key);
}

static double field_max(const field *f)
{
    return f->type == FIELD_ENUM ? (double)(f->names->count - 1) : f->max;
}

double field_get(const field *f, const void *section_struct)
{
    const char *at = (const char *)section_struct + f->offset;
    switch (f->type) {
    case FIELD_INT: return (double)*(const int64_t *)at;
    case FIELD_NUMBER: return *(const double *)at / f->scale;
    case FIELD_BOOL:
    case FIELD_ENUM: return (double)*(const int *)at;
    case FIELD_NAME: break;
    }
    return 0.0;
}

void field_set(const field *f, void *section_struct, double json_value)
{
    char *at = (char *)section_struct + f->offset;
    switch (f->type) {
    case FIELD_INT: *(int64_t *)at = (int64_t)json_value; break;
    case FIELD_NUMBER: *(double *)at = json_value * f->scale; break;
    case FIELD_BOOL:
    case FIELD_ENUM: *(int *)at = (int)json_value; break;
    case FIELD_NAME: break;
    }
}

double field_echo_value(const field *f, const void *section_struct)
{
    if (f->type != FIELD_NUMBER || f->scale == 1.0)
        return field_get(f, section_struct);
    /* stored / scale need not read back (x scale) to the same double; a
     * neighbour of it does wherever the stored value came from a JSON
     * number or a preset written in the JSON unit */
    const double stored = *(const double *)((const char *)section_struct + f->offset);
    const double guess = stored / f->scale;
    double up = guess, down = guess;
    for (int step = 0; step < 3; step++) {
        if (up * f->scale == stored)
            return up;
        if (down * f->scale == stored)
            return down;
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
    }
    return guess;
}

void field_format_amount(double v, char *out, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%g", v);
}

void field_range_text(const field *f, char *out, size_t size)
{
    if (f->type == FIELD_BOOL) {
        snprintf(out, size, "true or false");
        return;
    }
    char lo[32], hi[32];
    field_format_amount(f->min, lo, sizeof lo);
    field_format_amount(field_max(f), hi, sizeof hi);
    snprintf(out, size, "%s from %s to %s%s%s", f->type == FIELD_INT ? "an integer" : "a number", lo, hi,
             f->unit[0] != '\0' ? " " : "", f->unit);
}

tp_status field_check_value(const field *f, double json_value, tp_error *err)
{
    if (json_value >= f->min && json_value <= field_max(f))
        return TP_OK;
    char path[64];
    field_path(f, path, sizeof path);
    if (f->type == FIELD_ENUM) {
        char list[192];
        snprintf(list, sizeof list, "%s", f->names->items[0]);
        for (int i = 1; i < f->names->count; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", f->names->items[i]);
        return err_set(err, TP_ERR_INVALID, path, "must be one of %s", list);
    }
    char range[96], got[32];
    field_range_text(f, range, sizeof range);
    field_format_amount(json_value, got, sizeof got);
    return err_set(err, TP_ERR_INVALID, path, "must be %s, got %s", range, got);
}

tp_status field_check(const field *f, const void *section_struct, tp_error *err)
{
    if (f->type != FIELD_NAME)
        return field_check_value(f, field_get(f, section_struct), err);
    const char *text = (const char *)section_struct + f->offset;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            char path[64];
            field_path(f, path, sizeof path);
            return err_set(err, TP_ERR_INVALID, path, "must be printable text (no control characters)");
        }
    }
    return TP_OK;
}

/* Where each section's struct sits in a config, for the check below. */
#define IN_SECTION_MODEL model
#define IN_SECTION_MOE model.moe
#define IN_SECTION_MLA model.mla
#define IN_SECTION_SYSTEM system
#define IN_SECTION_GPU system.gpu
#define IN_SECTION_NETWORK system.network
#define IN_SECTION_TRAINING training
#define IN_SECTION_PRECISION training
#define IN_SECTION_PARALLEL plan
#define IN_SECTION_OVERHEADS overheads

/* Each row as one comparison of the member with constant bounds: the
 * table's check compiled straight (a loop over the rows took three times
 * as long, and it runs on every estimate). */
#define CHECK_INT(sec, st, mem, k, u, lo, hi, def, ...) \
    in &= (c->IN_##sec.mem >= (int64_t)(lo)) & (c->IN_##sec.mem <= (int64_t)(hi));
#define CHECK_NUM(sec, st, mem, k, u, sc, lo, hi, def, ...) \
    in &= (c->IN_##sec.mem >= (lo) * (sc)) & (c->IN_##sec.mem <= (hi) * (sc));
#define CHECK_FLAG(sec, st, mem, k, def, ...) in &= (unsigned)c->IN_##sec.mem <= 1u;
#define CHECK_ENUM(sec, st, mem, k, list, def, ...) in &= (unsigned)c->IN_##sec.mem < (unsigned)list.count;
#define CHECK_NAME(...) /* printable by the time it is stored: the JSON reader checks it */
#define AS_CHECK(kind, ...) CHECK_##kind(__VA_ARGS__)

tp_status fields_check(const tp_config *c, tp_error *err)
{
    int in = 1;
    FIELD_ROWS(AS_CHECK)
    for (int i = 0; !in && i < field_count; i++) { /* the first that is out, to say why */
        const field *f = &field_table[i];
        if (f->type != FIELD_NAME)
            TRY(field_check(f, field_section_struct_const(c, f->section), err));
    }
    return TP_OK;
}

/* The rows' defaults into c (the rows whose section a preset fills keep
 * what c holds). */
static void fields_set_defaults(tp_config *c)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->fallback != FIELD_FROM_PRESET)
            field_set(f, field_section_struct(c, f->section), f->fallback);
    }
}

void tp_config_defaults(tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->model = *tp_model_preset_find("llama-3.1-8b");
    c->system.gpu = *tp_gpu_preset_find("h100-80gb");
    c->system.network = tp_cluster_preset_find("dgx-h100")->network;
    fields_set_defaults(c);
    for (int i = 0; i < 3; i++)
        c->plan.amsp[i][0] = c->plan.amsp[i][1] = 1;
    memcpy(c->plan.order, plan_megatron_order, sizeof c->plan.order);
}
