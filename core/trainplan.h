/*
 * trainplan.h: the whole public interface of the trainplan core.
 *
 * trainplan answers, before a large transformer training run: will it fit in
 * GPU memory, how fast will it run, and which parallel configuration is best.
 * This header is the contract; everything else in core/ is an implementation
 * detail reached through it.
 *
 * Order: version, status and errors, units, enums, inputs, outputs, functions.
 *
 * Units. Every quantity carries its unit in its name:
 *   _bytes       bytes (double: exact for integers below 2^53, never overflows)
 *   _flop_per_s  floating-point operations per second
 *   _bytes_per_s bytes per second
 * Counts (layers, gpus, tp, micro_batch, ...) are int64_t. Human units such as
 * GiB or TFLOP/s appear only in the config's JSON keys ("memory_gib"), whose
 * rows below give each one's scale (core/units.h), and in the CLI table.
 *
 * Threading and memory. Every function here is re-entrant: no globals are
 * written. tp_estimate allocates nothing and does no I/O, so a search can call
 * it millions of times.
 */
#ifndef TRAINPLAN_H
#define TRAINPLAN_H

#include <stddef.h>
#include <stdint.h>

#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 1
#define TP_VERSION_PATCH 0
#define TP_VERSION "0.1.0"

#define TP_GIB 1073741824.0        /* GiB, 2^30 bytes: the unit Fujii et al. 2024 reports */
#define TP_SAFE_FRACTION 0.8       /* Fujii et al. 2024 §4.1: at or below 80% of capacity every
                                      one of its 454 runs fitted */
#define TP_MAX_INPUT_BYTES (1 << 20) /* a config document is a few hundred bytes */

/* ===================== status and errors ===================== */

typedef enum {
    TP_OK = 0,
    TP_ERR_INVALID, /* the input is well-formed but a value is wrong */
    TP_ERR_PARSE,   /* the input is not valid JSON or has the wrong shape */
    TP_ERR_NOMEM    /* an allocation failed (JSON layer only) */
} tp_status;

/* path names the offending input field in JSON notation ("parallel.tp"), so a
 * user interface can mark that field; message says why, in words. */
typedef struct {
    tp_status status;
    char path[64];
    char message[192];
} tp_error;

/* "ok", "invalid", "parse", "nomem". Never NULL. */
const char *tp_status_str(tp_status status);

/* ===================== enums ===================== */

typedef enum {
    TP_ARCH_LLAMA = 0, /* RMSNorm, SwiGLU MLP of ffn_hidden, rotary positions, no biases */
    TP_ARCH_GPT,       /* LayerNorm with bias, GeLU MLP of ffn_hidden, biases,
                          learned position embeddings (Megatron GPT, Narayanan et al. 2021) */
    TP_ARCH_VIT        /* encoder: GPT's blocks with non-causal attention, and a
                          patch embedding (a linear of patch_dim inputs per
                          token) and a head back to patch_dim instead of a
                          vocabulary (Subramanian et al. 2024's long-sequence ViT) */
} tp_arch;

typedef enum {
    TP_ATTENTION_GQA = 0, /* multi-head, grouped-query or multi-query attention:
                             kv_heads key/value heads of hidden/heads each */
    TP_ATTENTION_MLA      /* multi-head latent attention (DeepSeek-V2/V3): queries,
                             keys and values up-projected from low-rank latents */
} tp_attention;

typedef enum { TP_DTYPE_FP32 = 0, TP_DTYPE_BF16, TP_DTYPE_FP16 } tp_dtype;

typedef enum {
    TP_OPT_ADAM = 0,  /* two moments (m, v) */
    TP_OPT_ADAMW,     /* same memory as Adam; named apart so configs round-trip */
    TP_OPT_SGD,       /* momentum: one state */
    TP_OPT_ADAFACTOR, /* factored second moment: a row and a column vector per matrix */
    TP_OPT_ADAM8BIT   /* two int8 moments with one fp32 scale per 2048-value block */
} tp_optimizer;

/* Who shards the model states over the dp*cp ranks that hold the same
 * parameters. Every scheme reduces to three sharding factors, one each for
 * weights, gradients and optimizer states (Chen et al. 2023 §IV-B). */
typedef enum {
    TP_SHARD_ZERO = 0,         /* ZeRO stage plan.zero; zero 1 over dp*cp is
                                  Megatron's distributed optimizer (Fujii et al. 2024) */
    TP_SHARD_FSDP_FULL,        /* PyTorch FSDP FULL_SHARD = ZeRO-3 */
    TP_SHARD_FSDP_GRAD_OP,     /* FSDP SHARD_GRAD_OP = ZeRO-2 */
    TP_SHARD_FSDP_HYBRID,      /* FSDP HYBRID_SHARD / MiCS: full shard inside a
                                  group of shard_group ranks, replicated across */
    TP_SHARD_AMSP              /* independent factors per state (Chen et al. 2023) */
} tp_sharding;

/* How a tensor-parallel group splits a layer's matrix multiplies. With cp
 * the grid is Subramanian et al. 2024's n1 x n2 = tp x cp, n2 also splitting the sequence. */
typedef enum {
    TP_TP_MEGATRON = 0, /* 1D TP (Narayanan et al. 2021): heads and MLP width split over tp,
                           two collectives per block; with cp > 1 this is
                           Subramanian et al. 2024's 2D TP (Table II): weights replicated over
                           cp and their gradients reduced with dp's */
    TP_TP_SUMMA         /* 2D TP with SUMMA (Subramanian et al. 2024 Table A2, Algorithm 1):
                           every weight split over tp x cp (no shared weights),
                           each projection a SUMMA multiply that broadcasts
                           activation and weight panels, overlapped panel by
                           panel with the multiply */
} tp_tp_algorithm;

typedef enum {
    TP_RECOMPUTE_NONE = 0,
    TP_RECOMPUTE_SELECTIVE, /* attention core (scores, softmax, dropout) recomputed */
    TP_RECOMPUTE_FULL,      /* only each layer's input kept; one layer live at a time */
    TP_RECOMPUTE_SELECTIVE_OP, /* torchtitan's per-op policy: every second matrix
                                  multiply's output and the element-wise work
                                  recomputed, the rest kept (memory.c) */
    TP_RECOMPUTE_COUNT
} tp_recompute;

/* The software that trains: what it does by default that the estimate
 * counts (frameworks.c). Naming one sets those facts as the defaults of
 * their fields (training.framework; the config may override each). */
typedef enum {
    TP_FRAMEWORK_MEGATRON_CORE = 0, /* Megatron-LM / Megatron-Core */
    TP_FRAMEWORK_NEMO,              /* NVIDIA NeMo, on Megatron-Core */
    TP_FRAMEWORK_TORCHTITAN,        /* PyTorch torchtitan (FSDP2, DTensor) */
    TP_FRAMEWORK_LLM_FOUNDRY,       /* MosaicML llm-foundry (Composer, PyTorch FSDP) */
    TP_FRAMEWORK_DEEPSPEED,         /* Megatron-DeepSpeed */
    TP_FRAMEWORK_COUNT
} tp_framework;

/* The kernels that cast to fp8 (training.precision.fp8_casts). */
typedef enum {
    TP_FP8_CASTS_FUSED = 0, /* Transformer Engine's fused cast(-transpose) kernels */
    TP_FP8_CASTS_COMPILED,  /* torch.compile's kernels for torchao's casts */
    TP_FP8_CASTS_COUNT
} tp_fp8_casts;

/* How a MoE layer's routed tokens reach their experts (parallel.ep_dispatcher). */
typedef enum {
    TP_EP_DISPATCHER_ALLTOALL = 0, /* each routed copy sent to its expert's rank */
    TP_EP_DISPATCHER_FLEX,         /* once per destination node, then NVLink (DeepEP, HybridEP) */
    TP_EP_DISPATCHER_COUNT
} tp_ep_dispatcher;

/* Which of a step's kernels replay from CUDA graphs (training.cuda_graphs). */
typedef enum {
    TP_CUDA_GRAPHS_NONE = 0, /* every kernel launched by the host */
    TP_CUDA_GRAPHS_LAYERS,   /* the layers' kernels, not the routed experts' (per-layer graphs) */
    TP_CUDA_GRAPHS_FULL,     /* the whole step, optimizer and routed experts included */
    TP_CUDA_GRAPHS_COUNT
} tp_cuda_graphs;

/* The fused attention kernel (training.attention_kernel). */
typedef enum {
    TP_ATTENTION_KERNEL_FLASH = 0, /* FlashAttention-2 and its peers */
    TP_ATTENTION_KERNEL_TRITON,    /* FlashAttention in Triton (llm-foundry's attn_impl triton) */
    TP_ATTENTION_KERNEL_CUDNN,     /* cuDNN 9's fused attention, FlashAttention-3: Hopper-native */
    TP_ATTENTION_KERNEL_SDPA,      /* PyTorch's SDPA: flash on NVIDIA, AOTriton's Triton on AMD */
    TP_ATTENTION_KERNEL_COUNT
} tp_attention_kernel;

/* How fp8 GEMMs scale their operands (training.precision.fp8_recipe): the
 * names of Megatron-LM's --fp8-recipe, with torchao's rowwise. */
typedef enum {
    TP_FP8_DELAYED = 0, /* a scale per tensor from earlier steps' amax (Transformer Engine's DelayedScaling) */
    TP_FP8_TENSORWISE,  /* a scale per tensor from its own amax (current scaling; torchao's tensorwise) */
    TP_FP8_ROWWISE,     /* a scale per row (torchao's rowwise) */
    TP_FP8_BLOCKWISE,   /* 1x128 activation and 128x128 weight blocks (DeepSeek-V3; TE's Float8BlockScaling) */
    TP_FP8_MXFP8,       /* 32-value blocks with a power-of-two scale (OCP MX; Blackwell's tensor cores) */
    TP_FP8_RECIPE_COUNT
} tp_fp8_recipe;

typedef enum {
    TP_SCHEDULE_1F1B = 0,    /* PipeDream-flush, Narayanan et al. 2021 §2.2.1 */
    TP_SCHEDULE_INTERLEAVED, /* interleaved 1F1B with v model chunks per GPU */
    TP_SCHEDULE_GPIPE        /* all forwards, then all backwards */
} tp_schedule;

/* Memory zone of the peak stage against the GPU's capacity (Fujii et al. 2024 §4.1):
 * green at or below 80% (safe), yellow up to 100% (temporary buffers and
 * fragmentation decide), red where the tensors alone, without the
 * allocator's slack (other.fragmentation_bytes), exceed it (out of memory).
 * A peak over capacity only with that slack is yellow: PyTorch's caching
 * allocator frees its cached blocks and retries before it fails, so such a
 * run fits or not as its fragmentation falls. */
typedef enum { TP_ZONE_GREEN = 0, TP_ZONE_YELLOW, TP_ZONE_RED } tp_zone;

/* ===================== inputs ===================== */

/* Plain fields. Every field of a config that is one number, flag, choice or
 * name is one row of its JSON section's list, TP_<SECTION>_FIELDS(X), just
 * above the struct that holds it. The struct declares the member from the
 * row (TP_MEMBER), and inside the core (fields.c) the same rows make the
 * JSON reader and writer, the defaults, the range check, docs/config.md and
 * the web page's defaults and bounds. A row is X(kind, member, "json_key",
 * ...), the key naming the JSON unit where there is one, then by kind:
 *   INT   "unit", min, max, default          member int64_t
 *   NUM   "unit", scale, min, max, default   double: the JSON value x scale
 *   FLAG  default                            int, 0 or 1 (JSON false, true)
 *   ENUM  enum type, default                 that enum (JSON its value's name)
 *   NAME                                     char[TP_NAME_SIZE], printable text
 * and last .doc, the member's one line of documentation (docs/config.md
 * prints it), with, where they apply, .old_key (a former key still read),
 * .echo (when the echoed config writes the field: fields.h's field_echo) and
 * .by_hand (its section's reader reads it first, itself). min, max and the
 * default are in the JSON unit, both bounds allowed; a field a preset fills
 * has the default TP_FROM_PRESET. Scales are core/units.h's constants.
 * NUM_NESTED is a NUM whose member lies in a struct written by hand (the two
 * tiers of system.network). Members a row cannot describe (nested structs,
 * arrays) are written by hand beside the rows. */
#define TP_NAME_SIZE 48
#define TP_FROM_PRESET (-1.0)
#define TP_RATE_MIN 1e-3 /* the least rate or capacity: a thousandth of its
                            unit (1 GFLOP/s, 1 MiB, 1 MB/s), so that no product
                            or quotient of allowed values overflows */

#define TP_MEMBER(kind, member, ...) TP_MEMBER_##kind(member, __VA_ARGS__)
#define TP_MEMBER_INT(member, ...) int64_t member;
#define TP_MEMBER_NUM(member, ...) double member;
#define TP_MEMBER_NUM_NESTED(member, ...)
#define TP_MEMBER_FLAG(member, ...) int member;
#define TP_MEMBER_ENUM(member, key, type, ...) type member;
#define TP_MEMBER_NAME(member, ...) char member[TP_NAME_SIZE];

/* "model.moe": mixture of experts (llama architecture: SwiGLU experts). A
 * MoE layer replaces the dense MLP by a router over `experts` routed
 * experts, of which each token visits `experts_per_token` (top-k), plus
 * `shared_experts` that every token visits. Layers 0 .. first_dense-1 stay
 * dense; after them every `every`-th layer is MoE (layer i when
 * (i - first_dense + 1) is a multiple of every: 1 makes all of them MoE, 2
 * every second, Llama 4). */
#define TP_MOE_FIELDS(X) \
    X(INT, experts, "experts", "experts", 0, 1e5, TP_FROM_PRESET, \
      .doc = "routed experts E per MoE layer; 0 makes the model dense") \
    X(INT, experts_per_token, "experts_per_token", "experts", 0, 1e5, TP_FROM_PRESET, \
      .doc = "routed experts each token visits (top-k), 1 to experts") \
    X(INT, expert_ffn_hidden, "expert_ffn_hidden", "", 0, 1e7, TP_FROM_PRESET, \
      .doc = "SwiGLU width of one routed expert") \
    X(INT, shared_experts, "shared_experts", "experts", 0, 1000, TP_FROM_PRESET, \
      .doc = "experts every token visits (DeepSeek, Qwen2-MoE)") \
    X(INT, shared_ffn_hidden, "shared_ffn_hidden", "", 0, 1e7, TP_FROM_PRESET, \
      .doc = "width of one shared expert; the routed width when a new MoE model leaves it out") \
    X(INT, every, "every", "layers", 0, 1e4, TP_FROM_PRESET, \
      .doc = "after the dense layers, every n-th layer is MoE (1: all, 2: every second, Llama 4)") \
    X(INT, first_dense, "first_dense", "layers", 0, 1e4, TP_FROM_PRESET, \
      .doc = "leading dense layers (DeepSeek-V3: 3), of width ffn_hidden") \
    X(FLAG, expert_bias, "expert_bias", TP_FROM_PRESET, .echo = ECHO_NONZERO, \
      .doc = "the routed experts' two matrices carry biases (gpt-oss); their parameters, under " \
             "0.1%, are not counted: what changes is the time to add the second one where " \
             "training.unfused_expert_extras says so") \
    X(FLAG, glu_clamp, "glu_clamp", TP_FROM_PRESET, .echo = ECHO_NONZERO, \
      .doc = "the experts' gated activation clamps its two inputs first (gpt-oss: at 7); costs " \
             "time, and without training.recompute_moe_act memory, where " \
             "training.unfused_expert_extras says so")
typedef struct {
    TP_MOE_FIELDS(TP_MEMBER)
} tp_moe;

/* "model.mla": multi-head latent attention (DeepSeek-V2 §2.1, DeepSeek-V3
 * §2.1.1), with the names of the Hugging Face config. Per layer, a heads:
 *   W_DQ  h x q_lora_rank, its RMSNorm, W_UQ q_lora_rank x a (nope + rope)
 *         (with q_lora_rank 0 one W_Q h x a (nope + rope) instead)
 *   W_DKV h x (kv_lora_rank + rope): the latent and one rotary key shared by
 *         all heads; its RMSNorm; W_UKV kv_lora_rank x a (nope + v)
 *   W_O   a v x h
 * Megatron-Core keeps the down-projections whole on every tp rank (on
 * sequence-parallel tokens) and splits the up-projections and W_O by heads. */
#define TP_MLA_FIELDS(X) \
    X(INT, q_lora_rank, "q_lora_rank", "", 0, 1e6, TP_FROM_PRESET, \
      .doc = "query latent rank, at most hidden; 0 projects queries directly (DeepSeek-V2-Lite)") \
    X(INT, kv_lora_rank, "kv_lora_rank", "", 0, 1e6, TP_FROM_PRESET, \
      .doc = "key/value latent rank (the cache a token keeps), 1 to hidden") \
    X(INT, qk_nope_head_dim, "qk_nope_head_dim", "", 0, 4096, TP_FROM_PRESET, \
      .doc = "per head, the part of Q and K without rotary") \
    X(INT, qk_rope_head_dim, "qk_rope_head_dim", "", 0, 4096, TP_FROM_PRESET, \
      .doc = "per head, the rotary part of Q; one rotary key of this size serves all heads") \
    X(INT, v_head_dim, "v_head_dim", "", 0, 4096, TP_FROM_PRESET, \
      .doc = "per head, V and the attention output")
typedef struct {
    TP_MLA_FIELDS(TP_MEMBER)
} tp_mla;

/* "model": the transformer (the application), a preset's or given whole.
 * Symbols follow Fujii et al. 2024 Table 1. */
#define TP_MODEL_FIELDS(X) \
    X(NAME, name, "name", .doc = "label only") \
    X(ENUM, arch, "arch", tp_arch, TP_FROM_PRESET, .by_hand = 1, \
      .doc = "llama: RMSNorm, SwiGLU MLP, rotary positions, no biases; gpt: LayerNorm with bias, " \
             "GeLU MLP, biases, learned positions; vit: an encoder of gpt's blocks reading " \
             "patch_dim values per token") \
    X(INT, layers, "layers", "layers", 1, 1e4, TP_FROM_PRESET, .doc = "transformer layers L") \
    X(INT, hidden, "hidden", "", 1, 1e6, TP_FROM_PRESET, .doc = "hidden size h") \
    X(INT, heads, "heads", "heads", 1, 1e5, TP_FROM_PRESET, .doc = "attention (query) heads a") \
    X(INT, kv_heads, "kv_heads", "heads", 1, 1e5, TP_FROM_PRESET, \
      .doc = "key/value heads k: heads for multi-head, fewer for grouped-query, 1 for " \
             "multi-query attention") \
    X(INT, head_dim, "head_dim", "", 0, 4096, TP_FROM_PRESET, .echo = ECHO_NONZERO, \
      .doc = "gqa: size of each query and key/value head when it is not hidden / heads (Qwen3: " \
             "128); 0: hidden / heads") \
    X(INT, window_tokens, "window_tokens", "tokens", 0, 1e8, TP_FROM_PRESET, .echo = ECHO_NONZERO, \
      .doc = "sliding-window attention: the keys a query of a windowed layer attends over, itself " \
             "included (Mistral 7B v0.1: 4,096; gpt-oss: 128), the rest skipped by a fused attention " \
             "(training.flash_attention) and computed, then masked, by an unfused one; 0: every layer " \
             "attends over the whole sequence") \
    X(INT, global_every, "global_every", "layers", 0, 1e4, TP_FROM_PRESET, .echo = ECHO_NONZERO, \
      .doc = "with window_tokens, every n-th layer attends over the whole sequence and the others " \
             "over the window (gpt-oss: 2, Gemma 3: 6); 0: every layer windowed") \
    X(FLAG, yarn_rope, "yarn_rope", TP_FROM_PRESET, .echo = ECHO_NONZERO, \
      .doc = "the rotary embedding is YaRN's, stretched past the context the model first trained " \
             "on (Peng et al., \"YaRN: Efficient Context Window Extension of Large Language " \
             "Models\", ICLR 2024; gpt-oss: 32 times); counts nothing but the element-wise passes " \
             "where training.unfused_yarn_rope says so") \
    X(INT, ffn_hidden, "ffn_hidden", "", 1, 1e7, TP_FROM_PRESET, .doc = "MLP width h_ffn") \
    X(INT, vocab, "vocab", "tokens", 0, 1e8, TP_FROM_PRESET, .doc = "vocabulary v; 0 for vit") \
    X(INT, positions, "positions", "tokens", 0, 1e8, TP_FROM_PRESET, \
      .doc = "rows of the learned position embedding (gpt, vit); 0: rotary or none") \
    X(INT, patch_dim, "patch_dim", "values", 0, 1e7, TP_FROM_PRESET, .echo = ECHO_VIT, \
      .doc = "vit: values per token in and out (channels x patch height x patch width)") \
    X(FLAG, tied_embeddings, "tied_embeddings", TP_FROM_PRESET, \
      .doc = "input embedding and LM head share one matrix") \
    X(FLAG, dropout, "dropout", TP_FROM_PRESET, \
      .doc = "dropout layers present (their 1-byte masks are stored)") \
    X(ENUM, attention, "attention", tp_attention, TP_FROM_PRESET, .by_hand = 1, \
      .doc = "gqa: multi-head, grouped-query or multi-query by kv_heads; mla: multi-head latent " \
             "attention (DeepSeek-V2/V3), sized in model.mla")
typedef struct {
    TP_MODEL_FIELDS(TP_MEMBER)
    tp_moe moe; /* mixture of experts; moe.experts = 0 for a dense model */
    tp_mla mla; /* read with attention = mla only (then kv_heads = heads); zeros otherwise */
} tp_model;

/* "system.gpu": one GPU. Rates are peaks from data sheets; the efficiency
 * figures turn them into achieved rates (time.c) and are calibrated once per
 * GPU type against published measurements, never per table. The kernel
 * latency is t_sf of Subramanian et al. 2024. */
#define TP_GPU_FIELDS(X) \
    X(NAME, name, "name", .doc = "label only") \
    X(NUM, memory_bytes, "memory_gib", "GiB", UNIT_GIB, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .doc = "capacity the device reports to the allocator") \
    X(NUM, tensor_flop_per_s, "tensor_tflops", "TFLOP/s", UNIT_TERA, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .doc = "dense BF16/FP16 tensor-core peak") \
    X(NUM, fp8_flop_per_s, "fp8_tflops", "TFLOP/s", UNIT_TERA, 0, 1e6, TP_FROM_PRESET, \
      .doc = "dense FP8 tensor-core peak, at which training.precision.fp8 runs the linear layers; " \
             "0: no FP8 tensor cores (A100). Without a preset twice tensor_tflops (Hopper, Blackwell)") \
    X(NUM, fp4_flop_per_s, "fp4_tflops", "TFLOP/s", UNIT_TERA, 0, 1e6, TP_FROM_PRESET, \
      .doc = "dense FP4 tensor-core peak, at which training.precision.fp4 runs the linear layers; " \
             "0: none (before Blackwell). Without a preset 0") \
    X(NUM, hbm_bytes_per_s, "hbm_gb_per_s", "GB/s", UNIT_GB_PER_S, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .old_key = "hbm_gbps", .doc = "HBM bandwidth") \
    X(NUM, nvlink_bytes_per_s, "nvlink_gb_per_s", "GB/s", UNIT_GB_PER_S, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .old_key = "nvlink_gbps", .doc = "NVLink bandwidth per GPU, both directions together, as " \
             "data sheets give it") \
    X(NUM, network_bytes_per_s, "network_gbit_per_s", "Gbit/s", UNIT_GBIT_PER_S, TP_RATE_MIN, 8e6, TP_FROM_PRESET, \
      .old_key = "network_gbps", .doc = "scale-out (InfiniBand or Ethernet) bandwidth per GPU, " \
             "one direction") \
    X(NUM, host_bytes_per_s, "host_gb_per_s", "GB/s", UNIT_GB_PER_S, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .doc = "copies between this GPU and its host's memory, one direction, as a copy engine reaches " \
             "them (PCIe or NVLink-C2C): what training.offload_layers moves") \
    X(NUM, vector_flop_per_s, "vector_tflops", "TFLOP/s", UNIT_TERA, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .doc = "16-bit non-tensor (element-wise) peak; without a preset 13.5% of tensor_tflops, " \
             "the H100's ratio") \
    X(NUM, matmul_efficiency, "matmul_efficiency", "", 1.0, 1e-3, 1, TP_FROM_PRESET, \
      .doc = "fraction of the tensor peak a large GEMM reaches") \
    X(NUM, attention_efficiency, "attention_efficiency", "", 1.0, 1e-3, 1, TP_FROM_PRESET, \
      .doc = "fraction of the tensor peak fused (Flash) attention reaches") \
    X(NUM, kernel_latency_s, "kernel_latency_us", "µs", UNIT_US, 0, 1e6, TP_FROM_PRESET, \
      .doc = "fixed cost of every kernel, with the host dispatch the framework leaves exposed; " \
             "a third of it for the kernels training.cuda_graphs replays") \
    X(NUM, overlap_slowdown, "overlap_slowdown", "", 1.0, 0, 1, TP_FROM_PRESET, \
      .doc = "fraction of a hidden transfer's time across nodes that the compute hiding it still " \
             "loses (NCCL shares SMs and HBM)") \
    X(NUM, nvlink_overlap_slowdown, "nvlink_overlap_slowdown", "", 1.0, 0, 1, TP_FROM_PRESET, \
      .doc = "the same for a transfer inside a node, whose bytes the SMs copy themselves") \
    X(NUM, compute_spread, "compute_spread", "", 1.0, 0, 1, TP_FROM_PRESET, \
      .doc = "standard deviation of the time GPUs of this kind take for the same matrix work, a " \
             "fraction of the typical time: every step waits for the slowest of system.gpus")
typedef struct {
    TP_GPU_FIELDS(TP_MEMBER)
} tp_gpu;

/* One tier of the network. Collectives reach efficiency * bytes_per_s and pay
 * latency_s per step of the algorithm (Subramanian et al. 2024 §S2, alpha and beta). */
typedef struct {
    double bytes_per_s; /* fast: per GPU, one direction; slow: per NIC, one direction */
    double latency_s;
    double efficiency;
} tp_link;

/* "system.network": two tiers as in Subramanian et al. 2024: a fast domain
 * of gpus_per_node GPUs (NVLink, NVSwitch) and a slow one between nodes
 * whose NICs the node's GPUs share. */
#define TP_NETWORK_FIELDS(X) \
    X(NAME, name, "name", .doc = "label only") \
    X(NUM_NESTED, fast.bytes_per_s, "fast_gb_per_s", "GB/s", UNIT_GB_PER_S, TP_RATE_MIN, 1e6, TP_FROM_PRESET, \
      .old_key = "fast_gbps", .doc = "NVLink domain bandwidth per GPU, one direction") \
    X(NUM_NESTED, fast.latency_s, "fast_latency_us", "µs", UNIT_US, 0, 1e6, TP_FROM_PRESET, \
      .doc = "latency per step of a collective inside the domain") \
    X(NUM_NESTED, fast.efficiency, "fast_efficiency", "", 1.0, 1e-3, 1, TP_FROM_PRESET, \
      .doc = "fraction of fast_gb_per_s collectives reach") \
    X(NUM_NESTED, slow.bytes_per_s, "slow_gbit_per_s", "Gbit/s", UNIT_GBIT_PER_S, TP_RATE_MIN, 8e6, TP_FROM_PRESET, \
      .old_key = "slow_gbps", .doc = "bandwidth per NIC between nodes, one direction") \
    X(NUM_NESTED, slow.latency_s, "slow_latency_us", "µs", UNIT_US, 0, 1e6, TP_FROM_PRESET, \
      .doc = "latency per step of a collective across nodes") \
    X(NUM_NESTED, slow.efficiency, "slow_efficiency", "", 1.0, 1e-3, 1, TP_FROM_PRESET, \
      .doc = "fraction of slow_gbit_per_s collectives reach") \
    X(INT, nics_per_node, "nics_per_node", "NICs", 1, 1024, TP_FROM_PRESET, \
      .doc = "NICs a node's GPUs share")
typedef struct {
    TP_NETWORK_FIELDS(TP_MEMBER)
    tp_link fast;
    tp_link slow;
} tp_network;

/* "system": the GPUs and the host. The data loader's rate is that at which
 * one training process's loader delivers sample bytes to its GPU (collated
 * into shared memory by a worker, copied to pinned memory, then to the
 * device): the GPUs wait when a micro-batch takes longer to deliver than to
 * compute (time.c). The step overhead is the host's time per optimizer step
 * in which the GPUs compute nothing (time.c). */
#define TP_SYSTEM_FIELDS(X) \
    X(INT, gpus, "gpus", "GPUs", 1, 1e7, 8, .doc = "GPUs in the job") \
    X(INT, gpus_per_node, "gpus_per_node", "GPUs", 1, 1024, 8, \
      .doc = "GPUs sharing the fast (NVLink) domain") \
    X(NUM, loader_bytes_per_s, "loader_gb_per_s", "GB/s", UNIT_GB_PER_S, TP_RATE_MIN, 1e6, 0.48, \
      .old_key = "loader_gbps", .doc = "rate at which one training process's data loader " \
             "delivers sample bytes to its GPU; matters with training.dataloader_mask at long " \
             "sequences") \
    X(NUM, step_overhead_s, "step_overhead_s", "s", 1.0, 0, 3600, 0.1, \
      .doc = "seconds per optimizer step the GPUs wait for the host (the framework around the " \
             "optimizer step, the loss's synchronisation, the next step's launch); 0 for a loop " \
             "whose GPU never idles; not waited with training.cuda_graphs full")
typedef struct {
    TP_SYSTEM_FIELDS(TP_MEMBER)
    tp_gpu gpu;
    tp_network network;
} tp_system;

/* "training": the batch (micro_batch samples per pipeline), the optimizer,
 * recompute and the run; the members named *_dtype, master_weights and fp8
 * are "training.precision". */
#define TP_TRAINING_FIELDS(X) \
    X(ENUM, framework, "framework", tp_framework, TP_FRAMEWORK_MEGATRON_CORE, .by_hand = 1, \
      .doc = "the trainer: naming it sets what it does by default (its cross-entropy's workspace, " \
             "FSDP's mixed precision, a fused SwiGLU, fp8 inputs kept by the linear layers) as those " \
             "fields' defaults; docs/config.md lists each fact and its source") \
    X(INT, seq_len, "seq_len", "tokens", 1, 1e8, 8192, .doc = "tokens per sample s") \
    X(INT, document_tokens, "document_tokens", "tokens", 0, 1e8, 0, .echo = ECHO_NONZERO, \
      .doc = "packed samples: the mean length of the documents packed into each sample, each " \
             "attending only within itself (a fused attention kernel's variable-length mode: " \
             "Megatron-Core's packed sequences, NeMo's packed fine-tuning, document masking), so " \
             "attention costs documents x their length squared, not the sample's length squared; " \
             "at most seq_len; 0: one document per sample") \
    X(INT, global_batch, "global_batch", "samples", 1, 1e8, 1024, \
      .doc = "samples per optimizer step") \
    X(INT, micro_batch, "micro_batch", "samples", 1, 1e5, 1, .doc = "samples per micro-batch b") \
    X(ENUM, optimizer, "optimizer", tp_optimizer, TP_OPT_ADAM, \
      .doc = "adam and adamw keep two states, sgd one (momentum), adafactor factors the second " \
             "moment, adam8bit keeps two int8 states with an fp32 scale per 2048 values") \
    X(ENUM, recompute, "recompute", tp_recompute, TP_RECOMPUTE_NONE, \
      .doc = "selective recomputes the attention core (Korthikanti et al. 2023); full keeps only " \
             "each layer's input; selective_op keeps every other matrix multiply's output and the " \
             "attention output, recomputing the rest (torchtitan's per-op policy; dense gqa layers " \
             "with flash attention)") \
    X(INT, recompute_layers, "recompute_layers", "layers", 0, 1e4, 0, \
      .doc = "with full recompute, the layers of each pipeline stage that recompute, the others " \
             "keeping all their activations (Megatron-LM's --recompute-method block); 0: every " \
             "layer") \
    X(FLAG, recompute_mlp, "recompute_mlp", 0, .echo = ECHO_NONZERO, \
      .doc = "the dense MLP and its norm run again in the backward, keeping only their input " \
             "(Megatron-Core's recompute_modules mlp); with recompute none or selective") \
    X(FLAG, recompute_norms, "recompute_norms", 0, .echo = ECHO_NONZERO, \
      .doc = "the norms' outputs run again in the backward instead of being kept (Megatron-Core's " \
             "recompute_modules layernorm; with fp8 inputs kept by the linear layers nothing is " \
             "saved); with recompute none or selective") \
    X(FLAG, recompute_mla_up_proj, "recompute_mla_up_proj", 0, .echo = ECHO_NONZERO, \
      .doc = "MLA: Q, K and V run again from their latents in the backward instead of being kept " \
             "(Megatron-Core's recompute_modules mla_up_proj); with recompute none or selective") \
    X(FLAG, recompute_moe_act, "recompute_moe_act", 0, .echo = ECHO_NONZERO, \
      .doc = "MoE: the routed experts' SwiGLU output runs again in the backward instead of being " \
             "kept (Megatron-Core's recompute_modules moe_act), its element-wise work (and " \
             "training.unfused_expert_extras' clamp) counted again; with recompute none or " \
             "selective") \
    X(INT, offload_layers, "offload_layers", "layers", 0, 1e4, 0, .echo = ECHO_NONZERO, \
      .doc = "layers whose stored activations wait in host memory between their forward and " \
             "backward (Megatron-Core's --cpu-offloading-num-layers; pipeline parallel 1, no " \
             "recompute, fewer than model.layers): copied over system.gpu.host_gb_per_s behind " \
             "the other layers' compute; 0: none") \
    X(FLAG, flash_attention, "flash_attention", 1, \
      .doc = "fused attention: the s x s scores are never stored") \
    X(ENUM, attention_kernel, "attention_kernel", tp_attention_kernel, TP_ATTENTION_KERNEL_CUDNN, \
      .doc = "which fused attention kernel runs: flash (FlashAttention-2) at " \
             "system.gpu.attention_efficiency; triton (FlashAttention written in Triton, " \
             "llm-foundry's attn_impl triton) 1.8 times slower, the middle of the 1.3 to 2.5 times " \
             "FlashAttention-2 gains over it (Dao 2023 §4.1); cudnn (cuDNN 9's fused attention, " \
             "which Transformer Engine runs, or FlashAttention-3) on GPUs with FP8 tensor cores " \
             "(Hopper, Blackwell) 1.7 times faster, as measured on an H100 (56% of the peak against " \
             "FlashAttention-2's 33%; Shah et al. 2024 give FlashAttention-3 1.5 to 2 times), " \
             "elsewhere as flash; sdpa (PyTorch's scaled_dot_product_attention, torchtitan's) as " \
             "flash on NVIDIA GPUs and as triton on AMD Instinct GPUs (a system.gpu.name " \
             "starting MI and a digit), where PyTorch's ROCm build runs AOTriton's kernels, " \
             "written in Triton; set by training.framework") \
    X(FLAG, fused_swiglu, "fused_swiglu", 1, \
      .doc = "SwiGLU as one kernel that keeps only its input for the backward (Megatron-Core's " \
             "bias_swiglu fusion): 6 B per element of the MLP's width instead of the 8 B of " \
             "separate operations (gate, up, SiLU, product); set by training.framework") \
    X(FLAG, eager, "eager", 0, \
      .doc = "a Llama layer's element-wise work as PyTorch runs it without torch.compile: each " \
             "RMSNorm in fp32 as separate kernels (36 B per element against a fused kernel's 4), " \
             "rotary through fp32 complex numbers (20 B per element of Q and K against 4), SiLU " \
             "and the product apart (10 B per element of the MLP's width against 6), and " \
             "grouped-query K and V copied out to every head; false: fused kernels (Megatron-Core, " \
             "Transformer Engine) or torch.compile's; set by training.framework") \
    X(FLAG, recompute_elementwise, "recompute_elementwise", 0, \
      .doc = "the backward recomputes each element-wise result (the norms' outputs, SwiGLU's " \
             "product or GeLU's output, the fp8 casts of these) from the tensors it keeps, in " \
             "the fused kernels it runs anyway, as torch.compile's min-cut partitioner does " \
             "(AOTAutograd's default with Inductor): a layer keeps its two norms' inputs, Q, K, V, " \
             "the attention output and the MLP's matrix outputs; not with Megatron-Core's " \
             "recompute modules; set by training.framework and training.eager (torchtitan " \
             "compiled)") \
    X(FLAG, grouped_gemm, "grouped_gemm", 1, \
      .doc = "MoE: each matrix of the local experts runs as one grouped GEMM kernel (torch's " \
             "_grouped_mm in torchtitan, CUTLASS or DeepGEMM grouped GEMMs); false: one cuBLAS GEMM " \
             "per local expert, each launched on its own (Transformer Engine's GroupedLinear, " \
             "multi_stream_cublas_gemm, which Megatron-Core's MoE runs), so a layer pays " \
             "system.gpu.kernel_latency_us for each of its experts/ep local experts and matrices; " \
             "set by training.framework") \
    X(FLAG, routing_weights_in_activation, "routing_weights_in_activation", 1, \
      .doc = "MoE: each routed copy is weighed by its router weight inside its expert's " \
             "activation (Megatron-Core since core_r0.13: the permutation carries the weights " \
             "to the weighted SwiGLU), so the combine keeps no expert output for its backward; " \
             "false: the combine weighs the experts' outputs and keeps each copy's (2h bytes), " \
             "as Megatron-Core before 0.13, DeepSpeed-MoE and torchtitan do; set by " \
             "training.framework") \
    X(FLAG, unfused_expert_extras, "unfused_expert_extras", 0, .echo = ECHO_MOE, \
      .doc = "MoE with model.moe.expert_bias or glu_clamp: the trainer runs them outside its fused " \
             "activation, as separate element-wise passes over each routed copy (Megatron-Core: " \
             "the clamp and concatenation before weighted_bias_quick_geglu_impl, and the second " \
             "bias added expert by expert, weighed by the router's weight, after the second " \
             "matrix, TEGroupedMLP._apply_bias): their bytes at HBM speed, and the clamp's input " \
             "kept beside its output; set by training.framework") \
    X(FLAG, unfused_yarn_rope, "unfused_yarn_rope", 0, .echo = ECHO_YARN, \
      .doc = "with model.yarn_rope: the trainer applies the rotary embedding to Q and K in " \
             "separate element-wise passes, 20 B more per element each way than a fused kernel " \
             "and five launches (Megatron-LM and Megatron-Bridge fuse RoPE only for " \
             "position_embedding_type rope, and Megatron-Core's fused RoPE takes no YaRN scale, " \
             "rope_utils.py); set by training.framework") \
    X(ENUM, cuda_graphs, "cuda_graphs", tp_cuda_graphs, TP_CUDA_GRAPHS_NONE, .echo = ECHO_NONZERO, \
      .doc = "kernels replayed from CUDA graphs, which take the host's dispatch off their launch " \
             "(a third of system.gpu.kernel_latency_us kept: 20 of the H100's 30 us are the host's " \
             "PyTorch call): none; layers, each layer's kernels but the routed " \
             "experts' (Megatron-Core's per-layer graphs, Transformer Engine's make_graphed_" \
             "callables over attn and mlp); full, the whole step, routed experts and optimizer " \
             "included, so system.step_overhead_s is not waited either (cuda_graph_impl " \
             "full_iteration)") \
    X(FLAG, dataloader_mask, "dataloader_mask", 0, \
      .doc = "the data loader builds a dense s x s causal mask for every sample (Megatron-LM " \
             "without --no-create-attention-mask-in-dataloader)") \
    X(NUM, capacity_factor, "capacity_factor", "", 1.0, 1, 64, 1, \
      .doc = "MoE: tokens the busiest expert receives over an even share (1: balanced)") \
    X(NUM, train_tokens, "train_tokens", "tokens", 1.0, 1, 1e18, 1e12, \
      .doc = "tokens of the whole run, for time to train and GPU-hours") \
    X(NUM, gpu_hour_cost, "gpu_hour_cost", "", 1.0, 0, 1e6, 0, \
      .doc = "price of one GPU-hour; 0 leaves throughput.cost out")
#define TP_PRECISION_FIELDS(X) \
    X(ENUM, weights_dtype, "weights", tp_dtype, TP_DTYPE_BF16, \
      .doc = "working copy of the weights") \
    X(ENUM, gradients_dtype, "gradients", tp_dtype, TP_DTYPE_FP32, \
      .doc = "gradient accumulation buffer") \
    X(ENUM, optimizer_dtype, "optimizer", tp_dtype, TP_DTYPE_FP32, \
      .doc = "optimizer states (not used by adam8bit)") \
    X(FLAG, master_weights, "master_weights", 1, \
      .doc = "an fp32 master copy of the weights, counted when the weights are not fp32") \
    X(FLAG, fsdp_mixed_precision, "fsdp_mixed_precision", 0, \
      .doc = "PyTorch FSDP's mixed precision: the sharded parameters are the fp32 master weights, and " \
             "the working weights exist only gathered (no sharded copy of them); with sharded weights " \
             "and master weights. Set by the torchtitan and llm-foundry frameworks") \
    X(FLAG, fp8, "fp8", 0, \
      .doc = "fp8 GEMMs (Transformer Engine's default recipe): the linear layers at " \
             "system.gpu.fp8_tflops, their inputs cast to fp8, an fp8 copy of the weights and its " \
             "transpose kept (one copy with per-tensor scaling on Blackwell, whose fp8 GEMMs read it " \
             "either way), and with sp the forward all-gathers in fp8 (not with rowwise); attention, " \
             "embedding and LM head stay bf16; needs bf16 or fp16 weights") \
    X(ENUM, fp8_recipe, "fp8_recipe", tp_fp8_recipe, TP_FP8_DELAYED, .echo = ECHO_FP8, \
      .doc = "with fp8: how the GEMMs scale their operands, which sets their speed (measured on " \
             "an H200: per tensor 92%, per row 96%, 1x128/128x128 blocks 81% of bf16's share of " \
             "the peak; mxfp8 100%, scaled inside Blackwell's tensor cores) and the casts each " \
             "linear layer adds (docs/calibration.md), and the scales each fp8 copy keeps (mxfp8 " \
             "and blockwise 1/32 B a value); delayed, tensorwise, rowwise, blockwise, mxfp8 " \
             "(Blackwell); set by training.framework") \
    X(FLAG, fp4, "fp4", 0, .echo = ECHO_NONZERO, \
      .doc = "with fp8: the linear layers' GEMMs in NVFP4 (Transformer Engine's NVFP4BlockScaling " \
             "recipe, Megatron-Bridge's nvfp4) at system.gpu.fp4_tflops; their two weight copies " \
             "and saved inputs at half a byte a value with a 1-byte scale per 16") \
    X(FLAG, fp8_activations, "fp8_activations", 1, \
      .doc = "with fp8: the linear layers keep their inputs for the backward in fp8, 1 B instead " \
             "of 2 (Transformer Engine), beside the attention output FlashAttention keeps in " \
             "bf16; false: in bf16, cast again in the backward (torchao's Float8Linear); set by " \
             "training.framework") \
    X(FLAG, fp8_weight_cache, "fp8_weight_cache", 1, .echo = ECHO_FP8, \
      .doc = "with fp8: the weights are cast once a step and their fp8 copy and its transpose " \
             "reused (Transformer Engine casts on the first micro-batch); false: every micro-batch " \
             "casts them again in its forward and its backward (torchao's Float8Linear), its copies " \
             "counted in memory the same; set by training.framework") \
    X(ENUM, fp8_casts, "fp8_casts", tp_fp8_casts, TP_FP8_CASTS_FUSED, .echo = ECHO_FP8, \
      .doc = "with fp8: the kernels that cast to fp8. fused: Transformer Engine's fused amax, cast " \
             "and transpose, counted at the bytes they must move; compiled: torch.compile's kernels " \
             "for torchao's casts, which cost whole training steps on an H100 and an H200 1.4 (per " \
             "tensor) and 2.0 (per row) times those bytes, and up to 2.9 for the other recipes " \
             "(their casts timed alone); set by training.framework") \
    X(FLAG, fp8_params, "fp8_params", 0, .echo = ECHO_NONZERO, \
      .doc = "with fp8: the layers' working weights are fp8 (Megatron-LM's --fp8-param-gather, " \
             "Transformer Engine's fp8_model_init), 1 B and a 1 B transpose (none on Blackwell with " \
             "per-tensor scaling) instead of bf16 and its fp8 copies (the embedding and LM head stay " \
             "bf16), and sharded weights are gathered in fp8; " \
             "needs fp32 master weights and a sharded optimizer (zero 1 or more, fsdp, amsp)")
typedef struct {
    TP_TRAINING_FIELDS(TP_MEMBER)
    TP_PRECISION_FIELDS(TP_MEMBER)
} tp_training;

/* The parallel dimensions, in the order the placement lists them. */
typedef enum { TP_DIM_TP = 0, TP_DIM_CP, TP_DIM_DP, TP_DIM_PP } tp_dim;

/* "parallel": the execution plan. dp is not an input:
 * dp = gpus / (tp * pp * cp). MoE: the routed experts are split over ep
 * ranks (E/ep each) and each expert's MLP over etp ranks (0: etp = tp). The
 * ep x etp grid folds over the tp x cp x dp ranks of a stage, so the
 * experts' own data-parallel size is edp = tp cp dp / (ep etp)
 * (Megatron-Core). summa_panels is SUMMA's n_b. first_stage_layers and
 * last_stage_layers split the layers unevenly over the stages (plan.c's
 * plan_split_layers has the rule when they are 0). */
#define TP_PARALLEL_FIELDS(X) \
    X(INT, tp, "tp", "ranks", 1, 1e6, 1, .doc = "tensor parallel size") \
    X(INT, pp, "pp", "stages", 1, 1e4, 1, .doc = "pipeline parallel size") \
    X(INT, cp, "cp", "ranks", 1, 1e6, 1, .doc = "context parallel size") \
    X(FLAG, sp, "sp", 1, .doc = "sequence parallelism (Korthikanti et al. 2023)") \
    X(FLAG, tp_overlap, "tp_overlap", 0, \
      .doc = "tensor-parallel collectives pipelined with the GEMMs they feed (Megatron-LM's " \
             "--tp-comm-overlap, torchtitan's async TP): hidden behind them, at the overlap slowdown") \
    X(FLAG, tp_overlap_userbuffers, "tp_overlap_userbuffers", 1, \
      .doc = "with parallel.tp_overlap inside a node: the transfers run as Transformer Engine's " \
             "userbuffers run them (Megatron-Core's and NeMo's --tp-comm-overlap), the all-gathers " \
             "on the copy engines with one SM and the reduce-scatters and the backward's bulk " \
             "transfers on 16 SMs, so the GEMMs hiding them lose 10/132 of the hidden time, the " \
             "SMs those kernels hold on an H100, instead of system.gpu.nvlink_overlap_slowdown; " \
             "set by training.framework") \
    X(FLAG, pp_overlap, "pp_overlap", 1, \
      .doc = "interleaved schedule: the pipeline's sends and receives posted before the chunk's compute " \
             "and waited for after it (Megatron-LM's --overlap-p2p-communication, on by default there " \
             "with virtual stages): hidden, at the overlap slowdown; set by training.framework") \
    X(FLAG, pp_gather_once, "pp_gather_once", 0, \
      .doc = "with pp > 1 and FSDP sharding: the weights are gathered once per step and kept, and " \
             "the gradients accumulate unsharded until the last micro-batch's backward reduce-" \
             "scatters them (PyTorch's pipeline schedules over FSDP2): the memory and traffic of " \
             "zero 1, the optimizer alone sharded; set by training.framework") \
    X(FLAG, pp_send_whole, "pp_send_whole", 0, .echo = ECHO_NONZERO, \
      .doc = "without sequence parallelism: every tensor-parallel rank sends the stage's whole " \
             "output to the next stage (DeepSpeed's pipeline engine, which Megatron-DeepSpeed " \
             "runs); false: each sends its 1/tp and the next stage gathers it over NVLink " \
             "(Narayanan et al. SC21 section 4.1, Megatron-LM); set by training.framework") \
    X(FLAG, pp_serial_sends, "pp_serial_sends", 0, .echo = ECHO_NONZERO, \
      .doc = "a micro-batch's four pipeline transfers (receive and send forward, receive and send " \
             "backward) one after another, each holding up the compute (DeepSpeed's TrainSchedule " \
             "issues each as its own blocking command); false: each send runs beside the opposite " \
             "receive, two transfers' time (Megatron-LM's send_forward_recv_backward); set by " \
             "training.framework") \
    X(FLAG, grad_all_reduce, "grad_all_reduce", 0, .echo = ECHO_NONZERO, \
      .doc = "the gradients are all-reduced whole once the step's last backward is done, and with " \
             "zero 1 each rank then updates its optimizer shard and the weights are gathered " \
             "(DeepSpeed's pipeline engine and BF16_Optimizer, which Megatron-DeepSpeed runs); " \
             "false: reduced bucket by bucket beside the last backward, reduce-scattered when the " \
             "optimizer is sharded (Megatron-LM's DDP and distributed optimizer); set by " \
             "training.framework") \
    X(FLAG, cp_overlap, "cp_overlap", 1, .echo = ECHO_CP, \
      .doc = "context parallel: each ring step's K/V exchange runs beside the attention of the " \
             "block before it (Transformer Engine's and PyTorch's ring attention post it on a " \
             "second stream): hidden up to that attention's time, at the overlap slowdown; false: " \
             "exposed") \
    X(FLAG, ep_overlap, "ep_overlap", 0, .echo = ECHO_NONZERO, \
      .doc = "MoE: each micro-batch's dispatch and combine all-to-alls run beside another " \
             "micro-batch's compute, each beside one step of it: the backward's combine beside the " \
             "forward's attention, both dispatches beside the experts, the forward's combine beside " \
             "the backward's attention (Megatron-Core's --overlap-moe-expert-parallel-comm with " \
             "--delay-wgrad-compute): hidden, at the overlap slowdown, but for the directions " \
             "that run alone, a pipeline's fill and drain (the first forward and the last " \
             "backward with one stage): p micro-batches each way (time.ep_step_s)") \
    X(ENUM, ep_dispatcher, "ep_dispatcher", tp_ep_dispatcher, TP_EP_DISPATCHER_ALLTOALL, .echo = ECHO_MOE, \
      .doc = "MoE: how routed tokens reach their experts across nodes. alltoall: every copy to its " \
             "expert's GPU (NCCL's all-to-all; Megatron-Core's alltoall dispatcher); flex: a token " \
             "crosses the network once for each other node holding any of its experts, at the 89% " \
             "of the NICs' line rate DeepEP's kernels reach (or the network's slow_efficiency where " \
             "higher), and NVLink carries each copy its last hop (DeepEP, HybridEP: Megatron-Core's " \
             "flex dispatcher; DeepSeek-V3 §3.2.2)") \
    X(ENUM, tp_algorithm, "tp_algorithm", tp_tp_algorithm, TP_TP_MEGATRON, \
      .doc = "megatron: 1D tensor parallelism, heads and MLP width over tp; summa: 2D, every " \
             "weight over tp x cp (Subramanian et al. 2024, Table A2)") \
    X(INT, summa_panels, "summa_panels", "panels", 0, 4096, 0, .echo = ECHO_SUMMA, \
      .doc = "summa: panels each multiply's inner dimension is cut into; 0: the fastest power of " \
             "two up to 64") \
    X(INT, ep, "ep", "ranks", 1, 1e6, 1, .echo = ECHO_MOE, \
      .doc = "MoE: expert parallel size, dividing the experts") \
    X(INT, etp, "etp", "ranks", 0, 1e6, 0, .echo = ECHO_BY_HAND, \
      .doc = "MoE: expert tensor parallel size; 0: as tp") \
    X(ENUM, sharding, "sharding", tp_sharding, TP_SHARD_ZERO, \
      .doc = "zero (stage parallel.zero), fsdp_full_shard, fsdp_shard_grad_op, fsdp_hybrid_shard " \
             "or amsp") \
    X(INT, zero, "zero", "", 0, 3, 1, .echo = ECHO_ZERO, \
      .doc = "with sharding zero: 0 none, 1 optimizer states over dp x cp (Megatron-LM's " \
             "distributed optimizer), 2 also gradients, 3 also weights") \
    X(INT, shard_group, "shard_group", "ranks", 0, 1e7, 0, .echo = ECHO_HYBRID, \
      .doc = "with fsdp_hybrid_shard: ranks per shard group; 0: the data-parallel ranks of one " \
             "node") \
    X(ENUM, schedule, "schedule", tp_schedule, TP_SCHEDULE_1F1B, \
      .doc = "1f1b, interleaved (virtual_stages model chunks per GPU) or gpipe") \
    X(INT, virtual_stages, "virtual_stages", "chunks", 1, 1000, 1, \
      .doc = "model chunks per GPU v (interleaved schedule)") \
    X(INT, first_stage_layers, "first_stage_layers", "layers", 0, 1e4, 0, .echo = ECHO_NONZERO, \
      .doc = "layers of the first pipeline stage (Megatron-LM's --decoder-first-pipeline-num-layers), " \
             "the middle stages sharing the rest evenly; 0: balanced (docs/config.md's rules)") \
    X(INT, last_stage_layers, "last_stage_layers", "layers", 0, 1e4, 0, .echo = ECHO_NONZERO, \
      .doc = "layers of the last pipeline stage (Megatron-LM's --decoder-last-pipeline-num-layers); " \
             "0: balanced, or a middle stage's share when only first_stage_layers is given")
typedef struct {
    TP_PARALLEL_FIELDS(TP_MEMBER)
    /* AMSP factors [weights, gradients, optimizer][intra-node, inter-node]
     * (Chen et al. 2023 eq. 3-6); used only with TP_SHARD_AMSP. */
    int64_t amsp[3][2];
    /* How ranks are numbered, innermost first: consecutive ranks share a
     * node, so the first dimension's groups stay inside nodes longest.
     * Default tp, cp, dp, pp (Megatron's order). A permutation of tp_dim. */
    tp_dim order[4];
    /* Or the placement given outright (Subramanian et al. 2024 §III-A S3): per_node[d]
     * ranks of every group of dimension d (indexed by tp_dim) share a node,
     * which holds a per_node[tp] x per_node[cp] x per_node[dp] x
     * per_node[pp] block of the rank grid. Each divides its group's size and
     * they multiply to gpus_per_node (to gpus on a job smaller than a node):
     * Subramanian et al. 2024's n_NVS1 n_NVS2 n_NVSd n_NVSp = n_NVS. All 0: follow order. */
    int64_t per_node[4];
} tp_plan;

/* "overheads": memory that is neither model state nor stored activation.
 * Each item is an assumption, shown in the output and overridable here. */
#define TP_OVERHEADS_FIELDS(X) \
    X(NUM, cuda_context_bytes, "cuda_context_gib", "GiB", UNIT_GIB, 0, 1000, 739.0 / 1024.0, \
      .doc = "CUDA context, kernels and cuBLAS workspace (739 MiB measured on an H100 with " \
             "PyTorch 2.11)") \
    X(NUM, nccl_bytes_per_group, "nccl_gib_per_group", "GiB", UNIT_GIB, 0, 1000, 0.125, \
      .doc = "NCCL buffers per communicator of size > 1 (4 MiB x 16 channels x send and receive)") \
    X(NUM, loss_bytes_per_logit, "loss_bytes_per_logit", "bytes", 1.0, 0, 64, 6, \
      .doc = "cross-entropy temporaries on the LM-head stage beyond the fp32 logits (bf16 logits " \
             "and a shifted fp32 copy); set by training.framework and, for torchtitan, by " \
             "training.eager (a compiled loss keeps none)") \
    X(NUM, backward_layers, "backward_layers", "layers", 1.0, 0, 1000, 1, \
      .doc = "gradients of one layer's activations alive during its backward, in layers") \
    X(NUM, fragmentation_fraction, "fragmentation", "", 1.0, 0, 1, 0.05, \
      .doc = "allocator slack, a fraction of activation memory") \
    X(NUM, bucket_params, "bucket_params", "parameters", 1.0, 0, 1e12, 4e7, \
      .doc = "gradient bucket with sharded gradients and whole weights (Megatron-LM DDP's " \
             "minimum bucket)") \
    X(INT, prefetch_layers, "prefetch_layers", "layers", 0, 64, 1, \
      .doc = "with sharded weights, layers gathered ahead of the running one (FSDP's backward " \
             "prefetch)")
typedef struct {
    TP_OVERHEADS_FIELDS(TP_MEMBER)
} tp_overheads;

typedef struct {
    tp_model model;
    tp_system system;
    tp_training training;
    tp_plan plan;
    tp_overheads overheads;
} tp_config;

/* ===================== outputs ===================== */

#define TP_MAX_STAGES 3 /* first, middle (the worst one: rank 1, which holds the
                           most layers and micro-batches of the middles), last;
                           or "only" */

/* The line items of other_bytes, each with its assumption in tp_overheads. */
typedef struct {
    double cuda_context_bytes;
    double nccl_bytes;
    double loss_workspace_bytes;     /* stage with the LM head only */
    double backward_workspace_bytes;
    double gathered_params_bytes;    /* sharded weights: full layers gathered */
    double gradient_bucket_bytes;    /* sharded gradients: bucket before reduce-scatter */
    double fragmentation_bytes;
} tp_other_memory;

/* The routed experts' part of a stage's memory (all 0 for a dense model):
 * already counted in the stage's weights, gradients, optimizer and
 * activations, shown apart because experts shard by their own groups. */
typedef struct {
    int64_t moe_layers;       /* MoE layers among the stage's layers */
    double params;            /* routed-expert parameters on one GPU */
    double weights_bytes, gradients_bytes, optimizer_bytes;
    double activations_bytes; /* routed token copies and their expert MLPs */
} tp_expert_memory;

/* What a stage's activations_bytes is made of (Fujii et al. 2024 eq. 12-14), so
 * it can be shown worked out: with n = layers_in_flight,
 *   none:      n (layer + scores) + embedding + lm_head
 *   selective: n layer + scores + embedding + lm_head
 *   full:      r n layer_input + (1 - r) n (mean_layer + scores)
 *              + layer + scores - layer_input + embedding + lm_head
 * with r the share of a stage's layers full recompute re-runs
 * (training.recompute_layers / the stage's layers, at most 1; 1 when it is 0), so
 * (n - 1) layer_input + layer + scores + ... when every layer is
 * (0 for the layers when n is 0). */
typedef struct {
    double layer_bytes;       /* one layer of one micro-batch, attention scores
                                 aside (full recompute: the stage's largest layer) */
    double mean_layer_bytes;  /* the same averaged over the stage's dense and MoE
                                 layers: what a layer that keeps everything
                                 stores (layer_bytes but with full recompute) */
    double scores_bytes;      /* attention scores of one layer (0 with FlashAttention) */
    double layer_input_bytes; /* the input full recompute keeps of one layer */
    double op_layer_bytes;    /* what selective_op keeps of one layer, its input
                                 included (memory.c; of a dense layer) */
    double embedding_bytes;   /* eq. 13 times the micro-batches in flight (first stage) */
    double lm_head_bytes;     /* eq. 14 on the LM-head stage */
    double offloaded_bytes;   /* training.offload_layers: the offloaded layers'
                                 sets, held in host memory, already taken
                                 out of activations_bytes (memory.c) */
} tp_activation_parts;

/* Per-GPU memory of one pipeline stage. total = the five items. */
typedef struct {
    const char *name;  /* "only", "first", "middle", "last" (static string) */
    int has_embedding; /* holds the input embedding (the first stage) */
    int has_lm_head;   /* holds the LM head and the loss (the last stage) */
    int64_t layers;    /* transformer layers on this stage (plan_stage_layers);
                          the middle stage shown is the one with the most */
    int64_t in_flight; /* micro-batch forward passes (per model chunk when
                          interleaved) whose activations it holds at peak */
    double layers_in_flight; /* layer x micro-batch activation sets held */
    double params;     /* parameters held per GPU before ZeRO sharding */
    double weights_bytes;     /* working copy, plus the fp8 cache */
    double gradients_bytes;
    double optimizer_bytes;   /* optimizer states plus master weights */
    double activations_bytes;
    tp_activation_parts activation_parts; /* activations_bytes worked out */
    double other_bytes;       /* the sum of other */
    tp_other_memory other;
    double total_bytes;
    tp_expert_memory experts; /* MoE: the routed experts' share of the items above */
} tp_stage_memory;

/* Bytes per parameter of each model-state item before sharding. */
typedef struct {
    double weights, fp8_weights, gradients, master_weights, optimizer_states;
} tp_bytes_per_param;

/* Time of one optimizer step on the slowest pipeline stage. The items sum
 * to step_s; communication items count only what is not overlapped. */
typedef struct {
    double step_s;
    double compute_s;   /* forward, backward and recompute of all micro-batches */
    double tp_comm_s;   /* tensor-parallel collectives (never overlapped) */
    double cp_comm_s;   /* context-parallel K/V exchange left over by attention */
    double ep_comm_s;   /* MoE: expert all-to-alls (and etp collectives), not overlapped */
    double pp_comm_s;   /* point-to-point sends between stages */
    double dp_comm_s;   /* gradient reduction and parameter gathers left exposed */
    double offload_s;   /* training.offload_layers: host copies of activations left exposed */
    double bubble_s;    /* pipeline fill and drain */
    double optimizer_s; /* the optimizer step itself */
    double data_wait_s; /* waiting for the data loader, when a micro-batch takes
                           longer to deliver than to compute */
    double step_overhead_s; /* the host's time per step (system.step_overhead_s) */
    double slowest_gpu_slowdown; /* how much longer the slowest of system.gpus takes for its
                                    matrix work than a typical GPU (a fraction; in compute_s) */
    double forward_s;   /* one micro-batch's forward on the slowest stage */
    double backward_s;  /* and its backward, recompute included */
    /* How the parts come about, for showing them: on the slowest stage per
     * micro-batch, compute_s = micro_batches x micro_batch_compute_s and the
     * same for tp, cp, ep and pp (p2p); dp_comm_s = micro_batches x
     * micro_batch_dp_s + dp_step_s (the once-per-step reduction and gather
     * left exposed), and ep_comm_s adds ep_step_s; bubble_s = (pp - 1)/v x
     * bubble_micro_batch_s, a micro-batch's forward, backward and sends
     * averaged over the stages;
     * optimizer_s = optimizer_bytes / HBM bandwidth; data_wait_s =
     * micro_batches x max(0, micro_batch_loader_s - micro_batch_s); with
     * fp8 and its weight cache compute_s adds weight_cast_s, the weights
     * cast once a step. */
    double micro_batch_compute_s, micro_batch_tp_s, micro_batch_cp_s, micro_batch_ep_s;
    double micro_batch_p2p_s, micro_batch_dp_s;
    double micro_batch_offload_s; /* offload_s = micro_batches x this */
    double dp_step_s;
    double ep_step_s; /* with parallel.ep_overlap: the all-to-alls of the micro-batch
                         directions that run alone, once a step (in ep_comm_s) */
    double weight_cast_s; /* with fp8 and training.precision.fp8_weight_cache: the stage's
                             weights cast to fp8 once a step (in compute_s) */
    double bubble_micro_batch_s;
    double micro_batch_s;        /* the slowest stage's own time per micro-batch:
                                    forward, backward, sends, exposed transfers */
    double micro_batch_loader_s; /* one micro-batch's delivery by the data loader */
    double optimizer_bytes; /* optimizer states, master weights, gradients and weights read and written */
    int64_t summa_panels; /* summa: the panel count n_b used (0 with megatron) */
} tp_time;

typedef struct {
    double model_flop_per_step;    /* forward and backward, no recompute
                                      (Megatron's count, non-causal attention) */
    double hardware_flop_per_step; /* plus recompute */
    double tokens_per_s_per_gpu;
    double model_flop_per_s_per_gpu;
    double hardware_flop_per_s_per_gpu;
    double mfu, hfu;               /* over the GPU's dense tensor peak */
    double mfu_peak_flop_per_s;    /* that peak: BF16, whatever the GEMMs run at */
    double linear_peak_flop_per_s; /* the peak the linear layers' GEMMs run at:
                                      BF16, FP8 or FP4 (training.precision) */
    double time_to_train_s;        /* training.train_tokens at this rate */
    double gpu_hours;
    double cost;                   /* gpu_hours * training.gpu_hour_cost */
} tp_throughput;

typedef struct {
    int64_t params_total;  /* parameter count of the whole model */
    int64_t params_active; /* parameters one token passes through: the total
                              less the routed experts it does not visit */
    int64_t dp;            /* derived data-parallel size */
    int64_t ep, etp, edp;  /* MoE: resolved expert parallel, expert tensor
                              parallel and expert data-parallel sizes (1 if dense) */
    int64_t expert_shard_weights, expert_shard_gradients, expert_shard_optimizer;
    int64_t micro_batches; /* per pipeline per step: global/(micro_batch*dp) */
    tp_bytes_per_param bytes_per_param;
    int64_t shard_weights, shard_gradients, shard_optimizer; /* resolved factors */
    int64_t shard_group;   /* resolved FSDP hybrid group (0 if not hybrid) */
    int stage_count;
    tp_stage_memory stages[TP_MAX_STAGES];
    int peak_stage;        /* index into stages of the largest total */
    double peak_bytes;
    double capacity_bytes;
    double usage_fraction; /* peak_bytes / capacity_bytes */
    double allocated_peak_bytes; /* the largest stage total less its fragmentation */
    double allocated_fraction;   /* allocated_peak_bytes / capacity_bytes: red above 1 */
    tp_zone zone;
    tp_time time;
    tp_throughput throughput;
} tp_estimate_result;

/* ===================== search ===================== */

/* An inclusive range of a parallel size or count; min == max pins it. */
typedef struct {
    int64_t min, max;
} tp_range;

/* How the search may shard the model states. Each is a pattern of AMSP's
 * factors (Chen et al. 2023) with every factor 1 or the whole data-parallel extent
 * of its axis; the symmetric patterns are ZeRO's stages and FSDP's hybrid
 * shard, and are reported as such. */
typedef enum {
    TP_SEARCH_ZERO0 = 0, /* nothing sharded (plain DDP) */
    TP_SEARCH_ZERO1,     /* optimizer states (Megatron's distributed optimizer) */
    TP_SEARCH_ZERO2,     /* and gradients */
    TP_SEARCH_ZERO3,     /* and weights (FSDP full shard) */
    TP_SEARCH_FSDP_HYBRID, /* all three inside a node, replicated across nodes */
    TP_SEARCH_AMSP,      /* the other patterns: each state sharded inside a
                            node, across nodes, or both (Chen et al. 2023 §IV-B) */
    TP_SEARCH_SHARDING_COUNT
} tp_search_sharding;

/* Why a candidate plan is invalid; each has a sentence (tp_invalid_str). A
 * plan that breaks several rules counts under the first, in this order
 * (the order the search checks them in). */
typedef enum {
    TP_INVALID_TP_SPLIT = 0, /* tp does not split the heads, kv heads and MLP width evenly */
    TP_INVALID_CP_SEQ,       /* seq_len is not a multiple of 2 cp (load-balanced causal
                                cp; of cp for a vit encoder) */
    TP_INVALID_BATCH,        /* micro_batch * dp does not divide the global batch */
    TP_INVALID_LAYERS,       /* the layers do not split over pp stages of v chunks
                                (valid_layers: a stage without a layer, chunks of
                                a stage unequal) */
    TP_INVALID_INTERLEAVE,   /* interleaving needs pp >= 2 and micro-batches in groups of pp */
    TP_INVALID_AMSP_RULE,    /* AMSP's rule weights <= gradients <= optimizer broken */
    TP_INVALID_SHARD_GROUP,  /* a node's data-parallel ranks do not tile dp * cp */
    TP_INVALID_TP_NODE,      /* the tp group would cross a node */
    TP_INVALID_COUNT
} tp_invalid;

/* The space to search and what to keep. tp_search_defaults fills it. */
typedef struct {
    tp_range tp, cp, pp, dp, micro_batch, virtual_stages;
    tp_range ep, etp;                      /* MoE only (a dense model runs ep = 1) */
    int sp[2];                             /* sp off / on allowed */
    int fp8[2];                            /* fp8 compute off ("bf16") / on ("fp8") allowed;
                                              neither (the default): the base config's own
                                              training.precision.fp8 only */
    int sharding[TP_SEARCH_SHARDING_COUNT]; /* each scheme allowed or not */
    int recompute[TP_RECOMPUTE_COUNT];     /* by tp_recompute */
    int placement;        /* 1: also try every placement of the groups on the
                             nodes (Subramanian et al. 2024 §III-A S3); 0: Megatron's order */
    int tp_across_nodes;  /* 1: allow a tp group to span nodes */
    double memory_fraction; /* a plan fits when its peak is at most this share
                               of capacity (default TP_SAFE_FRACTION) */
    int top;                /* plans to keep, at most TP_SEARCH_MAX_TOP */
    /* The work a search may do, in evaluations (a memory model run counts
     * 1, a step-time model 3, each loop step 1): past it the search stops
     * and says so (tp_search_counts.truncated), so that any space the
     * limits allow ends in bounded time. TP_SEARCH_MAX_EVALUATIONS by
     * default, about 1 s native on one core of a 2-core machine. */
    int64_t max_evaluations;
} tp_search_space;

#define TP_SEARCH_MAX_EVALUATIONS 6000000

#define TP_SEARCH_MAX_TOP 64
#define TP_SEARCH_MAX_PARETO 256
#define TP_SEARCH_MAX_SAMPLE 512
#define TP_SEARCH_MAX_PARTS 1024 /* tp_search_part */

/* One plan the search found: the parallel plan and the two training fields it
 * chooses, with the figures it was ranked by. */
typedef struct {
    tp_plan plan;
    int64_t dp;
    int64_t micro_batch;
    tp_recompute recompute;
    int64_t placement; /* its value in the placement dimension (tp_search_value_label) */
    int fp8;           /* training.precision.fp8: 1 when the plan computes in fp8 */
    double step_s;
    double peak_bytes;
    uint64_t key; /* a hash of the plan's choices: breaks exact ties in step
                     time and memory, and draws the sample, so that the
                     result does not depend on the order plans were seen in */
} tp_search_plan;

/* The dimensions the search explains, each with a sentence for the best plan. */
typedef enum {
    TP_SEARCH_DIM_TP = 0, TP_SEARCH_DIM_CP, TP_SEARCH_DIM_PP, TP_SEARCH_DIM_DP,
    TP_SEARCH_DIM_MICRO_BATCH, TP_SEARCH_DIM_VIRTUAL_STAGES, TP_SEARCH_DIM_EP,
    TP_SEARCH_DIM_ETP, TP_SEARCH_DIM_SP,
    TP_SEARCH_DIM_SHARDING, TP_SEARCH_DIM_RECOMPUTE, TP_SEARCH_DIM_PLACEMENT,
    TP_SEARCH_DIM_PRECISION, /* last so that the others keep their indices; searched outermost */
    TP_SEARCH_DIM_COUNT
} tp_search_dim;

/* What the search saw of one value of one dimension (tp 8, recompute full):
 * plans with it that were valid, that fit, the fastest of those, and the
 * invalid ones by the rule they broke. */
#define TP_SEARCH_MAX_VALUES 64
typedef struct {
    int64_t value; /* the size; or the tp_search_sharding, tp_recompute, sp flag,
                      placement (its ranks per node packed: tp_search_value_label
                      names it), or fp8 flag of the precision */
    int64_t valid, fit;
    int64_t invalid[TP_INVALID_COUNT];
    double best_step_s; /* -1 when none fits */
} tp_search_value;

typedef struct {
    int64_t candidates;              /* every plan of the space */
    int64_t invalid[TP_INVALID_COUNT];
    int64_t out_of_memory;           /* valid, peak above memory_fraction */
    int64_t fit;                     /* valid and fits */
    int64_t memory_evaluations;      /* memory models run */
    int64_t time_evaluations;        /* step-time models run */
    int64_t shapes;                  /* (tp, cp, pp) shapes in the space */
    int64_t shapes_searched;         /* of which every plan was looked at */
    int64_t work;                    /* evaluations spent (tp_search_space.max_evaluations) */
    int64_t truncated;               /* 1: stopped at max_evaluations, best of what it saw */
} tp_search_counts;

typedef struct {
    tp_search_counts counts;
    int top_count;
    tp_search_plan top[TP_SEARCH_MAX_TOP]; /* fastest first; ties: less memory, then key */
    int pareto_count;
    int pareto_truncated;                  /* more points than TP_SEARCH_MAX_PARETO */
    tp_search_plan pareto[TP_SEARCH_MAX_PARETO]; /* least memory first */
    /* The fitting plans with the smallest keys, at most
     * TP_SEARCH_MAX_SAMPLE: a uniform, deterministic sample of the cloud
     * behind the front, for a chart (largest key first). */
    int sample_count;
    tp_search_plan sample[TP_SEARCH_MAX_SAMPLE];
    char explain[TP_SEARCH_DIM_COUNT][160];      /* why the best plan chose each value */
    int value_count[TP_SEARCH_DIM_COUNT];        /* values seen, at most TP_SEARCH_MAX_VALUES */
    int values_truncated[TP_SEARCH_DIM_COUNT];   /* 1: more values than the table holds */
    tp_search_value values[TP_SEARCH_DIM_COUNT][TP_SEARCH_MAX_VALUES];
} tp_search_result;

/* The whole space: every size of each dimension that divides the GPUs,
 * micro-batches 1-16, up to 8 model chunks, sp on and off, ZeRO 0-3 and
 * FSDP hybrid (AMSP off: its patterns multiply the space by up to 12),
 * every recompute mode, every placement, tp inside a node, 80% of memory,
 * top 10, and the base config's own precision (fp8 neither off nor on).
 * GPipe is never searched: it has 1F1B's bubble and more memory. */
void tp_search_defaults(tp_search_space *space);

/* Searches every plan of space for base's model, system and training (its
 * plan, micro_batch and recompute are ignored; its precision too when
 * space->fp8 names any). Allocates nothing; the result is large (about
 * 310 KB), so callers keep it off small stacks. Checks base and space (a
 * precision the space names that base cannot run, fp8 without FP8 tensor
 * cores say, is an error at "search.precision"); on error fills err. Finding no plan that fits is a
 * result (top_count 0), not an error. */
tp_status tp_search(const tp_config *base, const tp_search_space *space,
                    tp_search_result *out, tp_error *err);

/* One part of a search split n ways (over web workers, say): part k runs
 * the shapes (tp, cp, pp) whose index in the search's loop, numbered across
 * the precisions, is k modulo n, and counts only their plans.
 * tp_search_merge folds a part into another part's result (the first
 * part's, or a zeroed one). Merging all n parts gives
 * tp_search's result exactly, unless the Pareto front or a value table overflowed. The parts
 * must come from the same base, space and n. */
tp_status tp_search_part(const tp_config *base, const tp_search_space *space, int part, int parts,
                         tp_search_result *out, tp_error *err);
void tp_search_merge(const tp_search_space *space, tp_search_result *into, const tp_search_result *part);

/* The smallest power-of-two GPU count up to max_gpus on which some plan of
 * space fits in memory, or 0 when none does; work is scratch space. */
tp_status tp_search_min_gpus(const tp_config *base, const tp_search_space *space, int64_t max_gpus,
                             tp_search_result *work, int64_t *gpus, tp_error *err);

/* The search's name for a plan's sharding fields (ZeRO stage, hybrid, AMSP). */
tp_search_sharding tp_search_plan_sharding(const tp_plan *plan);

/* base with the plan of found applied: the config tp_estimate takes. Its
 * precision too: with fp8 off, fp8_params and fp4 are off; with fp8 on they
 * are base's. */
tp_config tp_search_apply(const tp_config *base, const tp_search_plan *found);

const char *tp_invalid_str(tp_invalid reason);     /* a sentence fragment */
const char *tp_invalid_name(tp_invalid reason);    /* JSON key: "tp_split", ... */
const char *tp_search_sharding_str(tp_search_sharding s); /* "zero0", ..., "amsp" */
const char *tp_search_dim_str(tp_search_dim d);    /* "tp", ..., "placement", "precision" */
/* "tp 8", "sp on", "zero1", "recompute full", "placement tp4 pp2", "fp8" */
void tp_search_value_label(tp_search_dim d, int64_t value, char *out, size_t size);

/* ===================== what-if sweeps ===================== */

/* A hardware parameter a sweep varies (Subramanian et al. 2024 §IV Q3, Figures 5 and 6).
 * Each is the config field of the same name, in its unit. */
typedef enum {
    TP_SWEEP_TENSOR_TFLOPS = 0, /* tensor peak; the vector peak scales with it */
    TP_SWEEP_MEMORY_GIB,        /* HBM capacity */
    TP_SWEEP_HBM_GB_PER_S,      /* HBM bandwidth, GB/s */
    TP_SWEEP_GPUS_PER_NODE,     /* NVS domain size; NICs per node follow (n_NIC = n_NVS) */
    TP_SWEEP_FAST_GB_PER_S,     /* NVS bandwidth per GPU, one way, GB/s */
    TP_SWEEP_SLOW_GBIT_PER_S,   /* InfiniBand per NIC, Gbit/s */
    TP_SWEEP_AXIS_COUNT
} tp_sweep_axis;

#define TP_SWEEP_MAX_VALUES 64
#define TP_SWEEP_MAX_POINTS 4096

/* The grid: the product of the axes in use (value_count > 0), the last
 * axis varying fastest. A point's index runs over that product. */
typedef struct {
    int value_count[TP_SWEEP_AXIS_COUNT];
    double values[TP_SWEEP_AXIS_COUNT][TP_SWEEP_MAX_VALUES];
} tp_sweep;

const char *tp_sweep_axis_str(tp_sweep_axis axis); /* "tensor_tflops", ... */
/* Points of the grid: the product of the used axes' value counts. */
int64_t tp_sweep_point_count(const tp_sweep *sweep);
/* base with every used axis at point's value of it; checks the result (errors
 * name sweep.<axis> when a value makes the config invalid). */
tp_status tp_sweep_point_config(const tp_config *base, const tp_sweep *sweep, int64_t point,
                                tp_config *out, tp_error *err);

/* ===================== calibration ===================== */

/* The physical parameters a calibration fits to measured runs (calibrate.c):
 * each is the config field tp_param_str names, in that field's JSON unit
 * (kernel latency in µs), within the bounds tp_param_bounds gives. All runs
 * share one set: they describe one cluster. */
typedef enum {
    TP_PARAM_MATMUL_EFFICIENCY = 0,   /* system.gpu.matmul_efficiency */
    TP_PARAM_ATTENTION_EFFICIENCY,    /* system.gpu.attention_efficiency */
    TP_PARAM_KERNEL_LATENCY,          /* system.gpu.kernel_latency_us */
    TP_PARAM_FAST_EFFICIENCY,         /* system.network.fast_efficiency */
    TP_PARAM_SLOW_EFFICIENCY,         /* system.network.slow_efficiency */
    TP_PARAM_OVERLAP_SLOWDOWN,        /* system.gpu.overlap_slowdown */
    TP_PARAM_NVLINK_OVERLAP_SLOWDOWN, /* system.gpu.nvlink_overlap_slowdown */
    TP_PARAM_STEP_OVERHEAD,           /* system.step_overhead_s */
    TP_PARAM_FRAGMENTATION,           /* overheads.fragmentation: fitted to memory */
    TP_PARAM_COUNT
} tp_param;

#define TP_CALIBRATE_MAX_RUNS 256        /* runs one calibration takes */
#define TP_CALIBRATE_MAX_ITERATIONS 200  /* default iterations of one fit */
#define TP_CALIBRATE_PRIOR_WEIGHT 0.0    /* default prior_weight */
#define TP_CALIBRATE_ROBUST_SCALE 0.0    /* default robust_scale: least squares */
#define TP_CALIBRATE_CONTRADICTION 2.0   /* two runs the model cannot tell apart
                                            whose measurements differ by more
                                            than this factor contradict */

/* What a measured peak memory counts (PyTorch's caching allocator):
 * reserved (torch.cuda.max_memory_reserved) is the allocator's pool, slack
 * included; allocated (max_memory_allocated) the tensors alone. Neither
 * holds the CUDA context or NCCL's buffers, which are allocated outside
 * the pool, so the estimate's peak less those two is compared. */
typedef enum { TP_MEMORY_NONE = 0, TP_MEMORY_RESERVED, TP_MEMORY_ALLOCATED } tp_memory_kind;

/* One measured run: its config and what was measured. The step time comes
 * from exactly one of step_s, tokens_per_s_per_gpu, model_flop_per_s_per_gpu
 * (trainplan's model FLOP count) and mfu (over the config's tensor peak), the
 * others 0; a run may give none of them when it gives its peak memory. */
typedef struct {
    char name[TP_NAME_SIZE]; /* label only */
    tp_config config;
    double step_s;
    double tokens_per_s_per_gpu;
    double model_flop_per_s_per_gpu;
    double mfu;
    double peak_memory_bytes; /* 0: not measured */
    tp_memory_kind memory_kind;
} tp_calibration_run;

typedef struct {
    int fit[TP_PARAM_COUNT]; /* 1: fit it where the runs inform it; 0: keep the runs' value */
    int max_iterations;      /* per fit, 1 to 10000 */
    int leave_one_out;       /* 1: refit without each run to predict it */
    int one_cluster;         /* 1: the runs share a GPU, a network and every
                                parameter's value; 0: runs of several clusters
                                (a GPU generation's) share the fitted
                                parameters' values only */
    double prior_weight;     /* 0 to 100: each parameter's move from the runs'
                                value, in units of its range, counts as a run's
                                log error of this weight times it (the shipped
                                values as a prior); 0: none */
    double robust_scale;     /* 0 to 10: 0 fits the squares of the runs' log
                                errors; above 0 each log error e counts as
                                c sqrt(2 (sqrt(1 + (e/c)^2) - 1)) with c this
                                scale (soft L1): e below c as itself, a run
                                far off the rest with the square root of its
                                error, so that it pulls the fit less */
} tp_calibrate_options;

typedef struct {
    double default_value;  /* the runs' own value, where the fit starts */
    double fitted;         /* the default when not fitted or not determined */
    int fit;               /* asked for (tp_calibrate_options.fit) */
    int determined;        /* fitted: the runs pin it down (sensitivity at
                              least TP_CALIBRATE_DETERMINED) */
    /* RMS over the runs of the relative change in their predicted figure
     * (step time; peak memory for fragmentation) when this parameter moves
     * 10% of its fitted value (of 1% of its range where that is larger) and the other
     * fitted parameters refit to make up for it (linearised): how visible a
     * 10% error in it is. 0 when no run informs it. */
    double sensitivity;
    /* its standard error from the fit's residuals, in its unit: -1 when
     * unknown (not determined, or no more runs than fitted parameters) */
    double standard_error;
    /* fitted, then set back to its default: with it the runs left out came
     * out no better than with the defaults, beyond two standard errors of
     * the mean gain (calibrate.c, leave_one_out) */
    int reverted;
} tp_calibration_parameter;

#define TP_CALIBRATE_DETERMINED 1e-3

/* A run's figures before the fit (the runs' own parameters), after it, and
 * left out (predicted by a fit to the other runs). Errors are relative:
 * predicted / measured - 1. */
typedef struct {
    int has_step, has_memory; /* the run measured a step time, a peak memory */
    int has_left_out;         /* the step's *_left_out figures were computed */
    int has_memory_left_out;  /* the memory's *_left_out figures were computed */
    double measured_step_s;
    double predicted_step_s_before, predicted_step_s_after, predicted_step_s_left_out;
    double error_before, error_after, error_left_out;
    double measured_memory_bytes;  /* of memory_kind */
    double predicted_memory_bytes_before, predicted_memory_bytes_after, predicted_memory_bytes_left_out;
    double memory_error_before, memory_error_after, memory_error_left_out;
} tp_calibration_run_result;

typedef struct {
    tp_calibration_parameter parameters[TP_PARAM_COUNT];
    int run_count;
    tp_calibration_run_result runs[TP_CALIBRATE_MAX_RUNS];
    /* means of the runs' absolute errors (over the runs that have them) */
    int step_runs, memory_runs;
    int has_left_out, has_memory_left_out;
    double error_before, error_after, error_left_out;
    double memory_error_before, memory_error_after, memory_error_left_out;
    int iterations;        /* of the fit to all runs, passes summed */
    tp_system system;      /* runs[0]'s system with the fitted parameters */
    tp_overheads overheads; /* runs[0]'s overheads with the fitted fragmentation */
} tp_calibration_result;

/* Every parameter fitted, TP_CALIBRATE_MAX_ITERATIONS, leave-one-out on. */
void tp_calibrate_defaults(tp_calibrate_options *options);
/* "system.gpu.matmul_efficiency", ...; NULL out of range. */
const char *tp_param_str(tp_param param);
/* The bounds the fit keeps the parameter within, in its unit. */
void tp_param_bounds(tp_param param, double *min, double *max);

/* Fits the parameters to n runs (1 to TP_CALIBRATE_MAX_RUNS) by bounded
 * least squares (projected Levenberg-Marquardt) on the log ratio of
 * predicted to measured step time, and fragmentation apart on peak memory.
 * The runs must share the GPU, the network, gpus_per_node and the
 * parameters' values. Allocates nothing; the result is large (about 40 KB).
 * Errors name runs[i].config.<path>, runs[i].measured.<figure>, fit or
 * options. options NULL: tp_calibrate_defaults. */
tp_status tp_calibrate(const tp_calibration_run *runs, int n, const tp_calibrate_options *options,
                       tp_calibration_result *out, tp_error *err);

/* ===================== log import ===================== */

/* What a pasted training log excerpt says of its run (calibrate_log.c):
 * the step figure of its step lines, the median over them once the first
 * warm-up lines are skipped, and the largest peak memory its memory lines
 * give, in the units a runs document's "measured" takes
 * (docs/calibrate.md). Lines of no trainer it knows are ignored. */
typedef enum {
    TP_TRAINER_NONE = 0,
    TP_TRAINER_MEGATRON,   /* Megatron-LM's training_log */
    TP_TRAINER_NEMO,       /* NeMo's train_step_timing (progress printer, tqdm) */
    TP_TRAINER_TORCHTITAN, /* torchtitan's MetricsProcessor.log */
    TP_TRAINER_COMPOSER,   /* llm-foundry: Composer's console logger */
    TP_TRAINER_COUNT
} tp_trainer;

/* The step figure a log gives: a runs document's measured key. */
typedef enum {
    TP_FIGURE_STEP_S = 0,
    TP_FIGURE_TOKENS_PER_S_PER_GPU,
    TP_FIGURE_TFLOPS_PER_GPU,
    TP_FIGURE_MFU
} tp_step_figure;

#define TP_LOG_MAX_BYTES (16 << 20) /* a log excerpt the reader takes */
#define TP_LOG_MAX_STEPS 4096       /* step lines of one excerpt */
#define TP_LOG_WARMUP_LINES 3       /* first step lines skipped, while they
                                       leave at least half of them */
#define TP_LOG_READ_LINES 12        /* lines used that the result quotes */
#define TP_LOG_LINE_SIZE 200        /* a quoted line, cut with "..." */

/* A line of the log: its number (from 1) and its text, escape sequences
 * and control characters left out, cut to TP_LOG_LINE_SIZE - 1 bytes. */
typedef struct {
    int line;
    char text[TP_LOG_LINE_SIZE];
} tp_log_line;

typedef struct {
    tp_trainer trainer;
    tp_step_figure figure;
    const char *key;          /* the figure's name in the log ("tps") */
    int steps;                /* step lines holding the figure */
    int skipped;              /* the first of them, skipped as warm-up */
    double value;             /* median over the others, in the figure's unit */
    double min, max;          /* their range */
    int read_count;
    tp_log_line read[TP_LOG_READ_LINES]; /* the first lines used */
    tp_memory_kind memory_kind; /* TP_MEMORY_NONE: no memory line */
    const char *memory_key;   /* the memory figure's name in the log */
    double peak_memory_gib;   /* the largest of its lines, GiB */
    tp_log_line memory_line;  /* the line it came from */
    double values[TP_LOG_MAX_STEPS]; /* scratch: the figure of each step line */
} tp_log_result;

/* "Megatron-LM", "NeMo", "torchtitan", "llm-foundry"; "step_s",
 * "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu". NULL out of range. */
const char *tp_trainer_str(tp_trainer trainer);
const char *tp_step_figure_str(tp_step_figure figure);
/* Reads a log excerpt (NUL-terminated, at most TP_LOG_MAX_BYTES). Errors
 * name "log": no step line of a known trainer, step lines of two
 * trainers, more than TP_LOG_MAX_STEPS of them. Allocates nothing; the
 * result is large (about 36 KB). */
tp_status tp_calibrate_log(const char *text, tp_log_result *out, tp_error *err);

/* ===================== functions ===================== */

/* Fills *config with the documented defaults: llama-3.1-8b on 8 h100-80gb
 * (8 per node), seq_len 8192, global_batch 1024, micro_batch 1, bf16 weights,
 * fp32 gradients and Adam states, fp32 master weights, FlashAttention, no
 * recompute, tp=pp=cp=1, sp on, 1F1B, zero 1, and the overheads documented
 * in plan.c. */
void tp_config_defaults(tp_config *config);

/* Checks every field and every divisibility rule; on failure fills err (may
 * be NULL) with the JSON path of the field and the reason. Allocates nothing. */
tp_status tp_config_validate(const tp_config *config, tp_error *err);

/* Validates, then estimates. Pure; allocates nothing; err may be NULL.
 * A plan that does not fit is a result (zone red), not an error. */
tp_status tp_estimate(const tp_config *config, tp_estimate_result *out, tp_error *err);

/* Presets: data compiled into the core, each number with its source. The
 * returned pointers are static and never NULL for index < count. */
size_t tp_model_preset_count(void);
const tp_model *tp_model_preset(size_t index);
const char *tp_model_preset_source(size_t index);
const tp_model *tp_model_preset_find(const char *name); /* NULL if unknown */

size_t tp_gpu_preset_count(void);
const tp_gpu *tp_gpu_preset(size_t index);
const char *tp_gpu_preset_source(size_t index);
const tp_gpu *tp_gpu_preset_find(const char *name); /* NULL if unknown */

/* Cluster presets: a GPU, its node size and its network. */
typedef struct {
    char name[TP_NAME_SIZE];
    char gpu[TP_NAME_SIZE]; /* a GPU preset name */
    int64_t gpus_per_node;
    tp_network network;
} tp_cluster;
size_t tp_cluster_preset_count(void);
const tp_cluster *tp_cluster_preset(size_t index);
const char *tp_cluster_preset_source(size_t index);
const tp_cluster *tp_cluster_preset_find(const char *name); /* NULL if unknown */
/* The cluster's GPU, node size and network into *system (its GPU count is
 * left as it is): what "system.cluster" does in a config. */
void tp_system_use_cluster(tp_system *system, const tp_cluster *cluster);

/* The network a GPU implies when no cluster is named: NVLink at half its
 * both-direction rate, one NIC per GPU at the GPU's network rate, and the
 * latencies and 70% efficiency of Subramanian et al. 2024. */
tp_network tp_network_for_gpu(const tp_gpu *gpu, int64_t gpus_per_node);

/* Parameter count of the whole model (Fujii et al. 2024 eq. 3 for Llama, Narayanan et al. 2021
 * §5.1 for GPT, plus the final norm). m must be valid. */
int64_t tp_model_params_total(const tp_model *m);
/* Parameters one token passes through (the total for a dense model). */
int64_t tp_model_params_active(const tp_model *m);

const char *tp_zone_str(tp_zone zone);   /* "green", "yellow", "red" */
const char *tp_dtype_str(tp_dtype dtype); /* "fp32", "bf16", "fp16" */
const char *tp_arch_str(tp_arch arch);            /* "llama", "gpt" */
const char *tp_attention_str(tp_attention kind);  /* "gqa", "mla" */
const char *tp_optimizer_str(tp_optimizer opt);   /* "adam", "adamw", "sgd", ... */
const char *tp_sharding_str(tp_sharding sharding);/* "zero", "fsdp_full_shard", ... */
const char *tp_recompute_str(tp_recompute mode);  /* "none", "selective", "full" */
const char *tp_framework_str(tp_framework framework); /* "megatron-core", "torchtitan", ... */
/* Sets c's fields to the facts of c->training.framework (frameworks.c). */
void tp_framework_defaults(tp_config *c);
/* Sets overheads.loss_bytes_per_logit and training.recompute_elementwise
 * to the framework's facts for c->training.eager (torchtitan compiles its
 * loss and layers with torch.compile): call after changing eager. */
void tp_framework_compile_defaults(tp_config *c);
/* Where a framework's facts are read (its code, at a version). */
const char *tp_framework_source(tp_framework framework);
const char *tp_schedule_str(tp_schedule schedule);/* "1f1b", "interleaved", "gpipe" */
const char *tp_fp8_recipe_str(tp_fp8_recipe recipe); /* "delayed", "tensorwise", ... */
const char *tp_attention_kernel_str(tp_attention_kernel kernel); /* "flash", "triton", "cudnn", "sdpa" */
const char *tp_ep_dispatcher_str(tp_ep_dispatcher dispatcher);   /* "alltoall", "flex" */
const char *tp_fp8_casts_str(tp_fp8_casts casts);                /* "fused", "compiled" */
const char *tp_cuda_graphs_str(tp_cuda_graphs graphs);           /* "none", "layers", "full" */
const char *tp_tp_algorithm_str(tp_tp_algorithm a); /* "megatron", "summa" */
const char *tp_dim_str(tp_dim dim);               /* "tp", "cp", "dp", "pp" */
/* A placement order as the config writes it: "tp-cp-dp-pp". */
void tp_order_str(const tp_dim order[4], char *out, size_t size);
double tp_dtype_bytes(tp_dtype dtype);    /* 4 or 2 */

/* ----- JSON layer (json.c and the *_json.c files; the only code that sees cJSON) ----- */

/* Parses a config document; fields left out keep tp_config_defaults values,
 * and unknown keys are errors. Returns TP_OK and fills *config, or an error. */
tp_status tp_config_from_json(const char *json, tp_config *config, tp_error *err);

/* Runs tp_config_from_json and tp_estimate and returns the output document as
 * a NUL-terminated string that the caller frees with tp_free. On failure it
 * returns NULL and fills err. */
char *tp_estimate_json(const char *json, int pretty, tp_error *err);

/* A config as the input document that reads back to it (the "config" the
 * estimate echoes), for callers that build configs in C. NULL if out of
 * memory; the caller frees it with tp_free. */
char *tp_config_json(const tp_config *c, int pretty);

/* The same envelope for every caller that wants JSON either way (the wasm
 * binding): {"ok":true,"result":{...}} or {"ok":false,"error":{"status",
 * "path","message"}}. Returns NULL only when memory runs out. Free with tp_free. */
char *tp_estimate_envelope_json(const char *json);

/* Reads a search document: a config (its plan is ignored, so it need not
 * suit the GPU count) with an optional "search" section over
 * tp_search_defaults (docs/search.md). */
tp_status tp_search_config_from_json(const char *json, tp_config *config, tp_search_space *space,
                                     tp_error *err);

/* Runs the search a document describes and returns its output document
 * (plans with their full estimates, pareto, counts, explain, values, and
 * scaling when "search.gpus" lists GPU counts). Free with tp_free. */
char *tp_search_json(const char *json, int pretty, tp_error *err);
/* The same in the {"ok":...} envelope of tp_estimate_envelope_json. */
char *tp_search_envelope_json(const char *json);
/* A document's search split in parts (tp_search_part), for callers with
 * several threads or workers: the part's result goes to *out and the
 * envelope holds {"part","parts","counts"}; the merge envelope holds
 * tp_search_json's output for the document from the results of all its
 * parts (the scaling searches run there, whole). */
char *tp_search_part_envelope_json(const char *json, int part, int parts, tp_search_result *out);
char *tp_search_merge_envelope_json(const char *json, const tp_search_result *parts, int count);

/* trainplan sweep: the best plan (tp_search under the document's "search"
 * section) at every point of its "sweep" grid, or of shard `shard` of
 * `shards` (the points whose index is shard modulo shards; 0 of 1 is all).
 * Free with tp_free. */
char *tp_sweep_json(const char *json, int shard, int shards, int pretty, tp_error *err);
/* Shard outputs of one sweep folded into the whole sweep's output; every
 * shard must be there once. Free with tp_free. */
char *tp_sweep_merge_json(const char *const *outputs, int count, int pretty, tp_error *err);
/* The same two in the {"ok":...} envelope of tp_estimate_envelope_json. */
char *tp_sweep_envelope_json(const char *json, int shard, int shards);
char *tp_sweep_merge_envelope_json(const char *const *outputs, int count);

/* trainplan calibrate: a runs document (docs/calibrate.md) fitted by
 * tp_calibrate, its output document. Free with tp_free. */
char *tp_calibrate_json(const char *json, int pretty, tp_error *err);
/* The same in the {"ok":...} envelope of tp_estimate_envelope_json. */
char *tp_calibrate_envelope_json(const char *json);

/* trainplan calibrate-log: what a log excerpt says of its run
 * (tp_calibrate_log) as {"trainer", "figure", "key", "steps", "skipped",
 * "measured": {...}, "read": [...], ...} (docs/calibrate.md). Free with
 * tp_free. */
char *tp_calibrate_log_json(const char *text, int pretty, tp_error *err);
/* The same in the {"ok":...} envelope of tp_estimate_envelope_json. */
char *tp_calibrate_log_envelope_json(const char *text);

/* All model and GPU presets as {"models":[...],"gpus":[...]}. Free with tp_free. */
char *tp_presets_json(int pretty);
/* Every plain config field as {"fields":[{"path","type","unit","min","max",
 * "default","from_preset","doc",...}]}: what docs/config.md and the web
 * page's defaults and bounds are made from. Free with tp_free. */
char *tp_fields_json(int pretty);
/* The same as the Markdown table docs/config.md holds. Free with tp_free. */
char *tp_fields_markdown(void);

void tp_free(void *ptr);

#endif /* TRAINPLAN_H */
