/*
 * presets.c: models, GPUs and clusters as data, each number with its source.
 *
 * The same table feeds the CLI (`trainplan presets`), the web page (through
 * the wasm binding) and the tests. Names are lowercase with hyphens.
 *
 * GPU memory is the capacity the device reports to the allocator
 * (nvidia-smi "memory.total" in MiB), since that is what a run can fill;
 * where no such reading is known the nominal capacity is used and said so.
 * Tensor rates are dense (no structured sparsity) BF16/FP16 peaks. NVLink
 * is the per-GPU total of both directions as data sheets give it; network is
 * the scale-out bandwidth per GPU in one direction (NIC line rate / 8).
 */
#include <string.h>

#include "tp_internal.h"

#define MIB 1048576.0
#define TFLOP 1e12
#define GB_PER_S 1e9
#define GBIT_PER_S (1e9 / 8.0)

typedef struct {
    tp_model model;
    const char *source;
} model_preset;

typedef struct {
    tp_gpu gpu;
    const char *source;
} gpu_preset;

/* Each model by designator: MODEL gives name, arch, layers, hidden, heads,
 * kv_heads, ffn_hidden and vocab, and the rest are named where they are
 * not 0: positions (learned, GPT and ViT), tied_embeddings, dropout, for a
 * mixture of experts moe = MOE(experts, experts_per_token,
 * expert_ffn_hidden, shared_experts, shared_ffn_hidden, every,
 * first_dense), attention = TP_ATTENTION_MLA with mla = MLA(q_lora_rank,
 * kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim), head_dim
 * (0: hidden / heads), window_tokens and global_every (sliding-window
 * attention) and patch_dim (vit only). */
#define MODEL(name_, arch_, layers_, hidden_, heads_, kv_heads_, ffn_hidden_, vocab_)              \
    .name = name_, .arch = arch_, .layers = layers_, .hidden = hidden_, .heads = heads_,           \
    .kv_heads = kv_heads_, .ffn_hidden = ffn_hidden_, .vocab = vocab_
#define MOE(experts_, per_token, ffn_hidden_, shared, shared_ffn_hidden_, every_, first_dense_)    \
    {.experts = experts_, .experts_per_token = per_token, .expert_ffn_hidden = ffn_hidden_,        \
     .shared_experts = shared, .shared_ffn_hidden = shared_ffn_hidden_, .every = every_,           \
     .first_dense = first_dense_}
#define MLA(q_lora, kv_lora, qk_nope, qk_rope, v_head)                                             \
    {.q_lora_rank = q_lora, .kv_lora_rank = kv_lora, .qk_nope_head_dim = qk_nope,                  \
     .qk_rope_head_dim = qk_rope, .v_head_dim = v_head}
static const model_preset model_presets[] = {
    {{MODEL("llama-3.1-8b", TP_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 128256)},
     "Hugging Face meta-llama/Llama-3.1-8B config.json; Fujii et al. 2024 §4"},
    {{MODEL("llama-3.1-70b", TP_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 128256)},
     "Hugging Face meta-llama/Llama-3.1-70B config.json; Fujii et al. 2024 §4"},
    {{MODEL("llama-3.1-405b", TP_ARCH_LLAMA, 126, 16384, 128, 8, 53248, 128256)},
     "Hugging Face meta-llama/Llama-3.1-405B config.json; Llama 3 paper Table 3"},
    {{MODEL("llama-2-7b", TP_ARCH_LLAMA, 32, 4096, 32, 32, 11008, 32000)},
     "Hugging Face meta-llama/Llama-2-7b-hf config.json"},
    {{MODEL("llama-2-13b", TP_ARCH_LLAMA, 40, 5120, 40, 40, 13824, 32000)},
     "Hugging Face meta-llama/Llama-2-13b-hf config.json"},
    {{MODEL("llama-2-70b", TP_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 32000)},
     "Hugging Face meta-llama/Llama-2-70b-hf config.json"},
    {{MODEL("mistral-7b", TP_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 32000), .window_tokens = 4096},
     "Hugging Face mistralai/Mistral-7B-v0.1 config.json (sliding_window 4,096 on every layer)"},
    {{MODEL("qwen2.5-7b", TP_ARCH_LLAMA, 28, 3584, 28, 4, 18944, 152064)},
     "Hugging Face Qwen/Qwen2.5-7B config.json; its q/k/v biases (129,024 "
     "parameters) are not counted: the llama architecture has no biases"},
    {{MODEL("qwen2.5-72b", TP_ARCH_LLAMA, 80, 8192, 64, 8, 29568, 152064)},
     "Hugging Face Qwen/Qwen2.5-72B config.json; its q/k/v biases are not "
     "counted: the llama architecture has no biases"},
    {{MODEL("mixtral-8x7b", TP_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 32000),
      .moe = MOE(8, 2, 14336, 0, 0, 1, 0)},
     "Hugging Face mistralai/Mixtral-8x7B-v0.1 config.json (8 experts, top 2, every "
     "layer); Mistral AI: 46.7B parameters, 12.9B active"},
    {{MODEL("mixtral-8x22b", TP_ARCH_LLAMA, 56, 6144, 48, 8, 16384, 32768),
      .moe = MOE(8, 2, 16384, 0, 0, 1, 0)},
     "Hugging Face mistralai/Mixtral-8x22B-v0.1 config.json; Mistral AI: 141B "
     "parameters, 39B active"},
    {{MODEL("qwen2-57b-a14b", TP_ARCH_LLAMA, 28, 3584, 28, 4, 18944, 151936),
      .moe = MOE(64, 8, 2560, 1, 20480, 1, 0)},
     "Hugging Face Qwen/Qwen2-57B-A14B config.json (64 experts of 2,560, top 8, one "
     "shared expert of 20,480); Qwen2 report: 57B parameters, 14B active. Not "
     "counted: q/k/v biases and the shared expert's 1 x h gate (230K parameters)"},
    {{MODEL("deepseek-v3", TP_ARCH_LLAMA, 61, 7168, 128, 128, 18432, 129280),
      .moe = MOE(256, 8, 2048, 1, 2048, 1, 3), .attention = TP_ATTENTION_MLA,
      .mla = MLA(1536, 512, 128, 64, 128)},
     "Hugging Face deepseek-ai/DeepSeek-V3 config.json (61 layers, the first 3 dense; "
     "256 routed experts of 2,048, top 8, one shared; MLA); DeepSeek-V3 report: 671B "
     "parameters, 37B active. Not counted: the multi-token-prediction module (14B, "
     "in the released checkpoint's 685B) and the routers' bias terms (15K)"},
    {{MODEL("kimi-k2", TP_ARCH_LLAMA, 61, 7168, 64, 64, 18432, 163840),
      .moe = MOE(384, 8, 2048, 1, 2048, 1, 1), .attention = TP_ATTENTION_MLA,
      .mla = MLA(1536, 512, 128, 64, 128)},
     "Hugging Face moonshotai/Kimi-K2-Instruct config.json (DeepSeek-V3's design: 61 layers, "
     "the first dense; 384 routed experts of 2,048, top 8, one shared; MLA with 64 heads); "
     "Kimi K2 report (Moonshot AI 2025): 1.04T parameters, 32.6B active"},
    {{MODEL("deepseek-v2-lite", TP_ARCH_LLAMA, 27, 2048, 16, 16, 10944, 102400),
      .moe = MOE(64, 6, 1408, 2, 1408, 1, 1), .attention = TP_ATTENTION_MLA,
      .mla = MLA(0, 512, 128, 64, 128)},
     "Hugging Face deepseek-ai/DeepSeek-V2-Lite config.json (27 layers, the first "
     "dense; 64 routed experts of 1,408, top 6, two shared; MLA without a query "
     "latent); DeepSeek-V2 report: 15.7B parameters, 2.4B active"},
    {{MODEL("qwen3-235b-a22b", TP_ARCH_LLAMA, 94, 4096, 64, 4, 12288, 151936),
      .moe = MOE(128, 8, 1536, 0, 0, 1, 0), .head_dim = 128},
     "Hugging Face Qwen/Qwen3-235B-A22B config.json (94 layers, 64 query and 4 key/value "
     "heads of 128, 128 experts of 1,536, top 8, every layer); Qwen3 report: 235B "
     "parameters, 22B active. Not counted: the per-head RMSNorms of Q and K (256 a layer)"},
    {{MODEL("qwen3-30b-a3b", TP_ARCH_LLAMA, 48, 2048, 32, 4, 6144, 151936),
      .moe = MOE(128, 8, 768, 0, 0, 1, 0), .head_dim = 128},
     "Hugging Face Qwen/Qwen3-30B-A3B config.json (48 layers, 32 query and 4 key/value "
     "heads of 128, 128 experts of 768, top 8); Qwen3 report: 30.5B parameters, 3.3B "
     "active. Not counted: the per-head RMSNorms of Q and K"},
    {{MODEL("gpt-oss-120b", TP_ARCH_LLAMA, 36, 2880, 64, 8, 2880, 201088),
      .moe = {.experts = 128, .experts_per_token = 4, .expert_ffn_hidden = 2880, .every = 1,
              .expert_bias = 1, .glu_clamp = 1},
      .head_dim = 64, .window_tokens = 128, .global_every = 2, .yarn_rope = 1},
     "Hugging Face openai/gpt-oss-120b config.json (36 layers, 64 query and 8 key/value heads of "
     "64, 128 experts of 2,880, top 4, every layer; sliding_window 128 on the layers layer_types "
     "calls sliding_attention, every other one; swiglu_limit 7.0, the clamp; rope_scaling yarn, "
     "factor 32); OpenAI's model "
     "card: 116.8B parameters, 5.1B active. Not counted: the parameters of the biases of the "
     "attention and the experts (0.04B) and of the attention sinks (one a head)"},
    {{MODEL("gpt3-175b", TP_ARCH_GPT, 96, 12288, 96, 96, 49152, 51200), .positions = 2048,
      .tied_embeddings = 1, .dropout = 1},
     "Brown et al. 2020 Table 2.1 (96 layers, d_model 12288, 96 heads, n_ctx "
     "2048); vocabulary padded to 51,200 and tied embeddings as in Narayanan et al. 2021 "
     "§5.1"},
    {{MODEL("gpt3-1t", TP_ARCH_GPT, 128, 25600, 160, 160, 102400, 51200), .positions = 2048,
      .tied_embeddings = 1, .dropout = 1},
     "Subramanian et al. 2024 §III-B: GPT3-1T, (l, e, h, d) = (2048, 25600, 160, 128) "
     "with f = 4e; vocabulary 51,200, tied embeddings and learned positions as the 1T "
     "row of Narayanan et al. 2021 Table 1 (128 layers, hidden 25,600, 160 heads: "
     "1008.0B parameters)"},
    {{MODEL("vit-era5", TP_ARCH_VIT, 48, 12288, 64, 64, 49152, 0), .positions = 64800,
      .dropout = 1, .patch_dim = 320},
     "Subramanian et al. 2024 §III-B: long-sequence ViT for ERA5 weather, (l, e, h, d) = "
     "(64800, 12288, 64, 48) with f = 4e: the 720 x 1440 grid in 4 x 4 patches, 64,800 "
     "learned positions; patch_dim 320 = 4 x 4 x 20 channels, the 20 ERA5 variables of "
     "FourCastNet (the paper's ref. [27], Kurth et al. 2023) since the paper gives no "
     "channel count (the patch linears are 0.01% of the parameters)"},
};

/* GPU efficiencies (matmul, attention, kernel latency) are fitted once per
 * architecture to the published measurements in tests/golden (Fujii et al.
 * 2024 Tables 3, 4, 6 and 10, Narayanan et al. 2021 Table 1 and, for the
 * A100, the FSDP tables of Wang et al. 2025 and the AMSP table of Chen et
 * al. 2023; tests/unit/test_perf_measured.c reports the fit, and Table 11
 * too, which it leaves out); GPUs without measurements there borrow the
 * nearest architecture's fractions, and their source says so.
 * docs/calibration.md gives each constant's data, sweeps and trade-offs.
 *   matmul: a typical GPU's (the job's slowest is slower, by the compute
 *   spread below). The H100's 63% is at the foot of the 64-80% that cuBLAS
 *   reaches on one idle H100 (tests/device/h100_probe_2026-11-22.json), as
 *   GEMMs inside a training step run at lower clocks; the A100's 80% is
 *   about what cuBLAS reports for large BF16 GEMMs there.
 *   attention: the A100's 58% is set mostly by the 51K-token runs of Wang
 *   et al. 2025, where attention is most of the work, close to
 *   FlashAttention-2 on the A100 (Dao 2023: up to 73% of peak forward, less
 *   backward). The H100's 25% sits below FlashAttention-2 on one H100
 *   (32-33% of peak from 16K tokens up) and far below cuDNN's fused
 *   attention (55-58%) (tests/device/attention_probe_2026-11-23.json):
 *   Fujii et al. 2024 do not name their kernel, and the fit folds their
 *   runs' other overheads in.
 *   kernel latency: the fixed cost of each kernel of a layer, GEMM or
 *   element-wise, including the host's dispatch that the framework leaves
 *   exposed (a PyTorch call costs about 20 us on the probe's host). It is
 *   what makes a micro-batch of fewer tokens, or a smaller model, run at
 *   fewer TFLOP/s: in Fujii et al. 2024 micro-batch 2 beats 1. The A100
 *   figure, 55 us, comes from clusters of 2020-2022 (Selene, JUWELS, ABCI),
 *   the H100's 30 us from TSUBAME 4.0.
 *   overlap slowdown: a transfer hidden behind compute still costs 4% of
 *   its time, as NCCL's kernels take SMs and HBM bandwidth from the GEMMs
 *   they run beside. Fitted on Wang et al. 2025, whose runs differ only in
 *   their network (4 x 100 against 4 x 200 Gb/s) and lose 5-10% on the
 *   slower one, where a fully hidden transfer would lose nothing; the H100
 *   borrows it (no published H100 run here has large hidden traffic).
 *   A transfer inside a node costs half of its time: the SMs make NVLink
 *   copies themselves, at 100-200 GB/s, where across nodes the NIC moves
 *   the data and the SMs only stage a tenth of those bytes a second.
 *   Fitted between the 7B runs of Wang et al. 2025 on one node of 4 GPUs
 *   (FSDP over NVLink alone, which want 0.75-1) and the 13B of Chen et al.
 *   2023 Table V (weights gathered inside a node every micro-batch).
 *   compute spread: GPUs of one model and cluster are not equally fast
 *   (manufacturing, power management): Sinha et al. 2022 ("Not All GPUs Are
 *   Created Equal", SC22) find 8% average variation (22% at most) between
 *   the GPUs of each of five clusters, and outliers 1.5 times slower than
 *   the median. Over the thousands of GPUs of a cluster that range spans
 *   about six standard deviations, 1.3%; we take 1%, which the measured
 *   tables bear out. */
#define NVLINK_OVERLAP_SLOWDOWN 0.5
#define COMPUTE_SPREAD 0.01
#define A100_EFFICIENCY .matmul_efficiency = 0.80, .attention_efficiency = 0.58, \
                        .kernel_latency_s = 55e-6, .overlap_slowdown = 0.04, \
                        .nvlink_overlap_slowdown = NVLINK_OVERLAP_SLOWDOWN, \
                        .compute_spread = COMPUTE_SPREAD
/* The H100's efficiencies, fitted on the papers' tables (docs/calibration.md),
 * and its maximum achievable matmul TFLOP/s in BF16 over its data-sheet
 * peak (MAMF: the best shape of a search, the mean of 100 runs; Bekman,
 * "Machine Learning Engineering", github.com/stas00/ml-engineering,
 * compute/accelerator/README.md @744d01e, 2026: 794.5 of 989.4). */
#define H100_MATMUL_EFFICIENCY 0.63
#define H100_ATTENTION_EFFICIENCY 0.25
#define H100_PEAK_TFLOPS 989.4
#define H100_MAMF_SHARE (794.5 / H100_PEAK_TFLOPS)
/* A GPU with no training run to fit on, but whose GEMMs someone measured,
 * takes the H100's efficiencies with the matmul one scaled by how close it
 * comes to its own peak on the same benchmark (each preset below gives its
 * MAMF reading and peak, from the same table): a real model's shapes reach
 * 0.63 / 0.803 = 78% of the best shape on an H100, and are taken to reach
 * the same share elsewhere. The published Blackwell runs
 * (docs/validation.md), fitted together by trainplan calibrate, give
 * 0.606, inside the 0.57 to 0.62 this rule sets. MAMF times GEMMs alone,
 * so the attention efficiency stays the H100's unless attention itself
 * was measured on the same benchmark on both (CDNA3_ATTENTION_EFFICIENCY). */
#define H100_EFFICIENCY_AT(mamf_share, attention) \
    .matmul_efficiency = H100_MATMUL_EFFICIENCY * ((mamf_share) / H100_MAMF_SHARE), \
    .attention_efficiency = (attention), .kernel_latency_s = 30e-6, .overlap_slowdown = 0.04, \
    .nvlink_overlap_slowdown = NVLINK_OVERLAP_SLOWDOWN, .compute_spread = COMPUTE_SPREAD
#define H100_EFFICIENCY_AT_MAMF(mamf_tflops, peak_tflops) \
    H100_EFFICIENCY_AT((mamf_tflops) / (peak_tflops), H100_ATTENTION_EFFICIENCY)
#define H100_EFFICIENCY H100_EFFICIENCY_AT(H100_MAMF_SHARE, H100_ATTENTION_EFFICIENCY)
/* The B300's MAMF reading, 1,769 of 2,250 TFLOP/s, which the GB300 (the
 * same Blackwell Ultra GPU, with no reading of its own) takes too.
 * Blackwell Ultra doubles the special-function units' exponentials
 * (MUFU.EX2, 10.7 against Blackwell's 5 tera a second), which bound the
 * softmax inside FlashAttention's loop: NVIDIA measured DeepSeek-V3's
 * attention forward 35% faster on a GB300 than on a GB200 ("Making Softmax
 * More Efficient with NVIDIA Blackwell Ultra", NVIDIA Technical Blog,
 * 2026). Its attention efficiency is Blackwell's (the H100's, above) 1.35
 * times, forward and backward alike. */
#define BLACKWELL_ULTRA_SOFTMAX_SPEEDUP 1.35
#define BLACKWELL_ULTRA_EFFICIENCY \
    H100_EFFICIENCY_AT(1769.0 / 2250, H100_ATTENTION_EFFICIENCY * BLACKWELL_ULTRA_SOFTMAX_SPEEDUP)
/* Azure's AI benchmarking guide (github.com/Azure/AI-benchmarking-guide,
 * Azure_Results/ND_H100_v5_results.md @ae0b6a7; ND_MI300X_v5_results.md
 * as its fork yosoyjay/AI-benchmarking-guide carries it @a8263ef) ran
 * FlashAttention-2's own benchmark, forward and backward at batch 2 and
 * 8,192 tokens, at 327.9 TFLOP/s on an H100 (head size 128) and 328.6 on
 * an MI300X (head size 64, as printed): the same rate, where the MI300X's
 * peak is 1.32 times the H100's. So CDNA 3 (MI300X, and the MI325X on the
 * same compute) takes the H100's attention efficiency at that rate over
 * its own peak, 0.19: its attention no faster than the H100's. Head size
 * 64 runs somewhat slower than 128 (Dao, ICLR 2024, Figs. 4-5), so this
 * is the low end of CDNA 3's rate. */
#define CDNA3_PEAK_TFLOPS 1307.4
#define CDNA3_ATTENTION_EFFICIENCY \
    (H100_ATTENTION_EFFICIENCY * (328.6 / CDNA3_PEAK_TFLOPS) / (327.9 / H100_PEAK_TFLOPS))
#define CDNA3_ATTENTION_SOURCE "; attention at the H100's FlashAttention-2 rate (Azure's AI benchmarking guide)"
#define AT_MAMF_SOURCE "the H100's efficiencies at its own measured matmul share (MAMF, Bekman's ml-engineering)"
#define BLACKWELL_ULTRA_ATTENTION_SOURCE \
    "attention 1.35 times Blackwell's: twice the softmax's exponentials, DeepSeek-V3's attention " \
    "forward 35% faster than on a GB200 (Making Softmax More Efficient with NVIDIA Blackwell Ultra, " \
    "NVIDIA Technical Blog, 2026)"

/* Host link, one direction per GPU, what a copy engine reaches between
 * pinned host memory and the GPU (training.offload_layers' copies). These
 * are data-sheet rates less the protocol's cost, not fitted:
 *   PCIe Gen5 x16 (H100, H200, H800, H20, B200 and B300 boards, MI300X,
 *   MI325X, MI355X): 63 GB/s per direction raw (32 GT/s x 16 lanes,
 *   128b/130b; NVIDIA's H100 data sheet: 128 GB/s both ways); copies
 *   reach 87% of it, 55 GB/s (Azure's HPC health checks, conf/
 *   nd96isr_h100_v5.conf, fail an H100 node whose nvbandwidth
 *   host_to_device_memcpy_ce or device_to_host_memcpy_ce falls below 48).
 *   The B300's ConnectX-8 switch speaks Gen6, its hosts' CPUs Gen5.
 *   PCIe Gen4 x16 (A100, A800): 31.5 GB/s raw, the same 87%: 27.5 GB/s.
 *   NVLink-C2C (GB200, GB300): 900 GB/s both directions between the
 *   Grace CPU and each Blackwell GPU (NVIDIA GB200 NVL72 data sheet), so
 *   450 GB/s per direction, the link's rate; a Grace's LPDDR5X (up to
 *   512 GB/s) is shared by its two GPUs, so two copying at once reach
 *   less. */
#define PCIE5_HOST (55 * GB_PER_S)
#define PCIE4_HOST (27.5 * GB_PER_S)
#define C2C_HOST (450 * GB_PER_S)

static const gpu_preset gpu_presets[] = {
    {{.name = "a100-40gb", .memory_bytes = 40960 * MIB, .tensor_flop_per_s = 312 * TFLOP,
      .fp8_flop_per_s = 0,
      .vector_flop_per_s = 78 * TFLOP, .hbm_bytes_per_s = 1555 * GB_PER_S,
      .nvlink_bytes_per_s = 600 * GB_PER_S, .network_bytes_per_s = 200 * GBIT_PER_S, .host_bytes_per_s = PCIE4_HOST,
      A100_EFFICIENCY},
     "NVIDIA A100 data sheet (SXM4 40 GB: 312 TFLOP/s BF16 dense, 78 TFLOP/s FP16 "
     "non-tensor, 1,555 GB/s, NVLink 600 GB/s); 40,960 MiB reported; one 200 Gb/s HDR NIC "
     "per GPU as in DGX A100"},
    {{.name = "a100-80gb", .memory_bytes = 81920 * MIB, .tensor_flop_per_s = 312 * TFLOP,
      .fp8_flop_per_s = 0,
      .vector_flop_per_s = 78 * TFLOP, .hbm_bytes_per_s = 2039 * GB_PER_S,
      .nvlink_bytes_per_s = 600 * GB_PER_S, .network_bytes_per_s = 200 * GBIT_PER_S, .host_bytes_per_s = PCIE4_HOST,
      A100_EFFICIENCY},
     "NVIDIA A100 data sheet (SXM4 80 GB: 312 TFLOP/s, 78 TFLOP/s FP16 non-tensor, "
     "2,039 GB/s, NVLink 600 GB/s); 81,920 MiB reported; one 200 Gb/s HDR NIC per GPU as "
     "in DGX A100"},
    {{.name = "a800-80gb", .memory_bytes = 81920 * MIB, .tensor_flop_per_s = 312 * TFLOP,
      .fp8_flop_per_s = 0,
      .vector_flop_per_s = 78 * TFLOP, .hbm_bytes_per_s = 2039 * GB_PER_S,
      .nvlink_bytes_per_s = 400 * GB_PER_S, .network_bytes_per_s = 200 * GBIT_PER_S, .host_bytes_per_s = PCIE4_HOST,
      A100_EFFICIENCY},
     "NVIDIA A800 SXM4 80 GB data sheet: the A100 80 GB (312 TFLOP/s BF16, 2,039 GB/s) with "
     "NVLink cut to 400 GB/s; the GPU of the AMSP testbed (Chen et al. 2023); A100 "
     "efficiencies"},
    {{.name = "h100-80gb", .memory_bytes = 81559 * MIB, .tensor_flop_per_s = H100_PEAK_TFLOPS * TFLOP,
      .fp8_flop_per_s = 1978.9 * TFLOP,
      .vector_flop_per_s = 133.8 * TFLOP, .hbm_bytes_per_s = 3350 * GB_PER_S,
      .nvlink_bytes_per_s = 900 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "NVIDIA H100 data sheet (SXM5 80 GB: 1,979 TFLOP/s BF16 with sparsity, so 989.4 "
     "dense, 3,958 FP8 with sparsity, so 1,978.9 dense, 133.8 TFLOP/s FP16 non-tensor, 3.35 TB/s, NVLink 900 GB/s); 81,559 MiB "
     "reported by nvidia-smi; one 400 Gb/s NDR NIC per GPU as in DGX H100"},
    {{.name = "h100-94gb", .memory_bytes = 94 * 1024 * MIB, .tensor_flop_per_s = H100_PEAK_TFLOPS * TFLOP,
      .fp8_flop_per_s = 1978.9 * TFLOP,
      .vector_flop_per_s = 133.8 * TFLOP, .hbm_bytes_per_s = 3350 * GB_PER_S,
      .nvlink_bytes_per_s = 900 * GB_PER_S, .network_bytes_per_s = 200 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "H100 SXM5 94 GB as in Fujii et al. 2024 (TSUBAME 4.0, 4 per node): capacity taken as "
     "the nominal 94 GiB that paper compares against; compute (FP8 too) and NVLink as the SXM5 80 GB; "
     "HBM bandwidth assumed equal to the SXM5 80 GB (not separately published); "
     "one 200 Gb/s NDR200 port per GPU"},
    /* The peak is only bounded: the midpoint of the two data sheets'. */
    {{.name = "h100-95gb-hbm2e", .memory_bytes = 94 * 1024 * MIB, .tensor_flop_per_s = 912.45 * TFLOP,
      .fp8_flop_per_s = 1824.7 * TFLOP,
      .vector_flop_per_s = 123.4 * TFLOP, .hbm_bytes_per_s = 2400 * GB_PER_S,
      .nvlink_bytes_per_s = 900 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "H100 SXM with 96 GB of HBM2e at a 500 W power limit, Meta's Grand Teton GPU behind "
     "torchtitan's published benchmarks (benchmarks/llama3_h100_202412_torchtitan.md: 96 GB "
     "HBM2e at 2.4 TB/s, the default 500 W limit, 400 Gb/s RDMA per GPU); its docs/performance.md "
     "(3faaa1a0d, 2024) says its peak lies between the H100 SXM's and the H100 NVL's and is not "
     "known exactly: taken as their midpoint, 912.45 TFLOP/s BF16 and 1,824.7 FP8 dense (SXM "
     "989.4 and 1,978.9; NVL data sheet 1,671 and 3,341 with sparsity, so 835.5 and 1,670.5 "
     "dense), non-tensor FP16 scaled alike; capacity the 94 GiB torchtitan reports; NVLink as "
     "the SXM5"},
    {{.name = "h200", .memory_bytes = 143771 * MIB, .tensor_flop_per_s = H100_PEAK_TFLOPS * TFLOP,
      .fp8_flop_per_s = 1978.9 * TFLOP,
      .vector_flop_per_s = 133.8 * TFLOP, .hbm_bytes_per_s = 4800 * GB_PER_S,
      .nvlink_bytes_per_s = 900 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "NVIDIA H200 data sheet (SXM 141 GB, 4.8 TB/s, 989 TFLOP/s BF16 and 1,979 FP8 dense, NVLink "
     "900 GB/s); 143,771 MiB reported by nvidia-smi; one 400 Gb/s NIC per GPU as in DGX "
     "H200; efficiencies borrowed from the H100 (same Hopper core, no H200 measurement in "
     "the published measurements trainplan is fitted on)"},
    {{.name = "b200", .memory_bytes = 183359 * MIB, .tensor_flop_per_s = 2250 * TFLOP,
      .fp8_flop_per_s = 4500 * TFLOP, .fp4_flop_per_s = 9000 * TFLOP,
      .vector_flop_per_s = 339 * TFLOP, .hbm_bytes_per_s = 8000 * GB_PER_S,
      .nvlink_bytes_per_s = 1800 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY_AT_MAMF(1745.0, 2250)},
     "NVIDIA DGX B200 data sheet (180 GB per GPU; 2.25 PFLOP/s BF16 dense, half the "
     "sparse 4.5; FP8 4.5 dense, half the sparse 9 (72 PFLOP/s training for 8); FP4 9 dense, "
     "half the sparse 18 (144 PFLOP/s for 8, HGX B200); 8 TB/s; NVLink 5 1.8 TB/s); 339 TFLOP/s vector from Subramanian et al. "
     "2024 Table A3; 183,359 MiB reported by nvidia-smi; one 400 Gb/s ConnectX-7 per GPU; "
     AT_MAMF_SOURCE},
    /* Subramanian et al. 2024 Table A3, the three GPU generations of its
     * what-if studies, as the paper gives them (its B200 runs at 2,500
     * TFLOP/s, above the HGX B200 data sheet's 2,250, and its A100 pairs 80 GB
     * with the 40 GB part's 1,555 GB/s). Capacity in GB read as 10^9 bytes. Efficiencies
     * are trainplan's calibrated ones for the architecture, not Table A3's
     * plain roofline. */
    {{.name = "a100-lbnl", .memory_bytes = 80e9, .tensor_flop_per_s = 312 * TFLOP,
      .fp8_flop_per_s = 0,
      .vector_flop_per_s = 78 * TFLOP, .hbm_bytes_per_s = 1555 * GB_PER_S,
      .nvlink_bytes_per_s = 600 * GB_PER_S, .network_bytes_per_s = 25 * GB_PER_S, .host_bytes_per_s = PCIE4_HOST,
      A100_EFFICIENCY},
     "Subramanian et al. 2024 Table A3, A100: 312 TFLOP/s tensor, 78 TFLOP/s vector, "
     "1,555 GB/s, 80 GB, NVSwitch 300 GB/s one way, InfiniBand 25 GB/s per NIC "
     "(ConnectX-6); A100 efficiencies; no FP8"},
    {{.name = "h200-lbnl", .memory_bytes = 141e9, .tensor_flop_per_s = 990 * TFLOP,
      .fp8_flop_per_s = 1980 * TFLOP,
      .vector_flop_per_s = 134 * TFLOP, .hbm_bytes_per_s = 4800 * GB_PER_S,
      .nvlink_bytes_per_s = 900 * GB_PER_S, .network_bytes_per_s = 50 * GB_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "Subramanian et al. 2024 Table A3, H200: 990 TFLOP/s tensor, 134 TFLOP/s vector, "
     "4,800 GB/s, 141 GB, NVSwitch 450 GB/s one way, InfiniBand 50 GB/s per NIC "
     "(ConnectX-7); H100 efficiencies; FP8 twice the tensor peak (not in Table A3)"},
    {{.name = "b200-lbnl", .memory_bytes = 192e9, .tensor_flop_per_s = 2500 * TFLOP,
      .fp8_flop_per_s = 5000 * TFLOP,
      .vector_flop_per_s = 339 * TFLOP, .hbm_bytes_per_s = 8000 * GB_PER_S,
      .nvlink_bytes_per_s = 1800 * GB_PER_S, .network_bytes_per_s = 100 * GB_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "Subramanian et al. 2024 Table A3, B200: 2,500 TFLOP/s tensor, 339 TFLOP/s vector, "
     "8,000 GB/s, 192 GB, NVSwitch 900 GB/s one way, InfiniBand 100 GB/s per NIC "
     "(ConnectX-8); H100 efficiencies; FP8 twice the tensor peak (not in Table A3) "
     "(no published B200 measurement to fit on)"},
    {{.name = "mi300x", .memory_bytes = 196592 * MIB, .tensor_flop_per_s = CDNA3_PEAK_TFLOPS * TFLOP,
      .fp8_flop_per_s = 2614.9 * TFLOP,
      .vector_flop_per_s = 163.4 * TFLOP, .hbm_bytes_per_s = 5300 * GB_PER_S,
      .nvlink_bytes_per_s = 896 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY_AT(668.4 / CDNA3_PEAK_TFLOPS, CDNA3_ATTENTION_EFFICIENCY)}, /* MAMF with torch 2.5.1, ROCm 6.3 */
     "AMD Instinct MI300X data sheet (192 GB HBM3, 5.3 TB/s, 1,307.4 TFLOP/s BF16 and 2,614.9 FP8 dense, "
     "163.4 TFLOP/s FP16 vector, Infinity Fabric 896 GB/s peer aggregate); 196,592 MiB "
     "assumed usable; one 400 Gb/s NIC per GPU; "
     AT_MAMF_SOURCE CDNA3_ATTENTION_SOURCE},
    /* The hardware of 2025. Data sheets of this generation print sparse
     * tensor rates; each figure below is the dense one (half the sparse),
     * and its source says which it halved. Blackwell and AMD parts take
     * the H100's fitted efficiencies at their own matmul reading, as b200
     * and mi300x do: no published training run on them is among the
     * measurements trainplan is fitted on. */
    {{.name = "gb200", .memory_bytes = 189471 * MIB, .tensor_flop_per_s = 2500 * TFLOP,
      .fp8_flop_per_s = 5000 * TFLOP, .fp4_flop_per_s = 10000 * TFLOP,
      .vector_flop_per_s = 339 * TFLOP, .hbm_bytes_per_s = 8000 * GB_PER_S,
      .nvlink_bytes_per_s = 1800 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = C2C_HOST,
      H100_EFFICIENCY_AT_MAMF(1822.0, 2500)},
     "NVIDIA GB200 NVL72 data sheet (2024), per GB200 superchip of two B200: 10 PFLOP/s "
     "FP16/BF16, 20 FP8 and 40 FP4 with sparsity, so per GPU 2.5 BF16, 5 FP8 and 10 FP4 dense; "
     "16 TB/s HBM3e "
     "and NVLink 5 3.6 TB/s, so 8 TB/s and 1.8 TB/s per GPU; 186 GB HBM3e per GPU "
     "(MLCommons GB200-NVL72 system descriptions), 189,471 MiB reported by nvidia-smi on a "
     "GB200 NVL72 compute tray; 339 TFLOP/s vector from Subramanian et al. 2024 Table A3, "
     "whose B200 has this 2,500 TFLOP/s peak; one 400 Gb/s ConnectX-7 per GPU (4 per "
     "4-GPU tray); "
     AT_MAMF_SOURCE},
    {{.name = "gb300", .memory_bytes = 284208 * MIB, .tensor_flop_per_s = 2500 * TFLOP,
      .fp8_flop_per_s = 5000 * TFLOP, .fp4_flop_per_s = 15000 * TFLOP,
      .vector_flop_per_s = 339 * TFLOP, .hbm_bytes_per_s = 8000 * GB_PER_S,
      .nvlink_bytes_per_s = 1800 * GB_PER_S, .network_bytes_per_s = 800 * GBIT_PER_S, .host_bytes_per_s = C2C_HOST,
      BLACKWELL_ULTRA_EFFICIENCY},
     "NVIDIA GB300 NVL72 data sheet (2025), Blackwell Ultra: per rack of 72 GPUs 360 "
     "PFLOP/s FP16/BF16 and 720 FP8 with sparsity, so per GPU 2.5 BF16 and 5 FP8 dense (the "
     "rack's 360 PFLOP/s FP8 dense for training); its gain over the GB200 is in NVFP4 (1.1 "
     "EFLOP/s dense per rack, 15 PFLOP/s per GPU); 288 GB HBM3e "
     "at 576 TB/s per rack, so 8 TB/s per GPU; NVLink 5 1.8 TB/s; 284,208 MiB reported by "
     "nvidia-smi on a GB300 NVL72 tray; vector 339 TFLOP/s assumed as the GB200's (not "
     "published); one 800 Gb/s ConnectX-8 per GPU (72 per rack); "
     "the H100's efficiencies at the B300's measured matmul share (the same Blackwell Ultra "
     "GPU; MAMF, Bekman's ml-engineering, has no GB300 reading); " BLACKWELL_ULTRA_ATTENTION_SOURCE},
    {{.name = "b300", .memory_bytes = 275040 * MIB, .tensor_flop_per_s = 2250 * TFLOP,
      .fp8_flop_per_s = 4500 * TFLOP, .fp4_flop_per_s = 13500 * TFLOP,
      .vector_flop_per_s = 339 * TFLOP, .hbm_bytes_per_s = 8000 * GB_PER_S,
      .nvlink_bytes_per_s = 1800 * GB_PER_S, .network_bytes_per_s = 800 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      BLACKWELL_ULTRA_EFFICIENCY},
     "NVIDIA HGX B300 data sheet (2025), Blackwell Ultra SXM: for 8 GPUs 36 PFLOP/s "
     "FP16/BF16 and 72 FP8 with sparsity, so per GPU 2.25 BF16 and 4.5 FP8 dense (as the "
     "HGX B200), and 108 PFLOP/s FP4 dense, 13.5 per GPU, NVSwitch 1.8 TB/s per GPU, networking 1.6 TB/s (8 x 800 Gb/s both ways); "
     "288 GB HBM3e at 8 TB/s; 275,040 MiB reported by nvidia-smi (\"NVIDIA B300 SXM6 AC\", "
     "e.g. AWS p6-b300.48xlarge); vector 339 TFLOP/s assumed as the b200 preset's (not "
     "published); one 800 Gb/s ConnectX-8 per GPU as in DGX B300; "
     AT_MAMF_SOURCE "; " BLACKWELL_ULTRA_ATTENTION_SOURCE},
    {{.name = "h800", .memory_bytes = 81559 * MIB, .tensor_flop_per_s = H100_PEAK_TFLOPS * TFLOP,
      .fp8_flop_per_s = 1978.9 * TFLOP,
      .vector_flop_per_s = 133.8 * TFLOP, .hbm_bytes_per_s = 3350 * GB_PER_S,
      .nvlink_bytes_per_s = 400 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "NVIDIA H800 SXM5 80 GB: the H100 SXM5 (989 TFLOP/s BF16 and 1,979 FP8 dense, 3.35 TB/s) "
     "with NVLink cut to 400 GB/s (Zhao et al. 2025, Insights into DeepSeek-V3, ISCA; the "
     "H20/H800 table of Ant Group's SGLang post, LMSYS 2025: 989 and 1,979 TFLOP/s, 3,352 "
     "GB/s); 81,559 MiB assumed as the H100 80 GB HBM3 reports (the same memory, no H800 "
     "reading found); one 400 Gb/s NIC per GPU as in DeepSeek's H800 cluster; H100 "
     "efficiencies (the same chip)"},
    {{.name = "h20", .memory_bytes = 97871 * MIB, .tensor_flop_per_s = 148 * TFLOP,
      .fp8_flop_per_s = 296 * TFLOP,
      .vector_flop_per_s = 88 * TFLOP, .hbm_bytes_per_s = 4000 * GB_PER_S,
      .nvlink_bytes_per_s = 900 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY},
     "NVIDIA H20 96 GB (for China, 2024; NVIDIA publishes no data sheet), as Ant Group's "
     "SGLang post gives it (LMSYS 2025, H20-96G against H800-80G): 148 TFLOP/s BF16 and 296 "
     "FP8 dense, 96 GB HBM3 at 4,000 GB/s, NVLink 900 GB/s; 97,871 MiB reported by "
     "nvidia-smi; vector 88 TFLOP/s assumed twice its 44 TFLOP/s FP32, the H100's ratio "
     "(133.8 = 2 x 66.9); one 400 Gb/s NIC per GPU assumed as in HGX H100 (H20 servers "
     "vary: some carry 4 x 400 Gb/s for 8 GPUs); efficiencies borrowed from the H100 (the "
     "same Hopper core; its fixed per-kernel costs weigh more against a seventh of the "
     "compute, and no H20 training run is there to fit them on)"},
    {{.name = "mi325x", .memory_bytes = 256 * 1024 * MIB, .tensor_flop_per_s = CDNA3_PEAK_TFLOPS * TFLOP,
      .fp8_flop_per_s = 2614.9 * TFLOP,
      .vector_flop_per_s = 163.4 * TFLOP, .hbm_bytes_per_s = 6000 * GB_PER_S,
      .nvlink_bytes_per_s = 896 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY_AT(784.9 / CDNA3_PEAK_TFLOPS, CDNA3_ATTENTION_EFFICIENCY)},
     "AMD Instinct MI325X data sheet (2024): the MI300X's CDNA 3 compute (1,307.4 TFLOP/s "
     "BF16 and 2,614.9 FP8 dense, 163.4 TFLOP/s vector) with 256 GB HBM3E at 6 TB/s; "
     "Infinity Fabric 7 links x 128 GB/s = 896 GB/s peer aggregate; capacity the 256 GiB "
     "of ROCm's GPU specification table (no allocator reading found); one 400 Gb/s NIC per "
     "GPU assumed as for the mi300x; "
     AT_MAMF_SOURCE CDNA3_ATTENTION_SOURCE},
    {{.name = "mi355x", .memory_bytes = 288 * 1024 * MIB, .tensor_flop_per_s = 2516.6 * TFLOP,
      .fp8_flop_per_s = 5033.2 * TFLOP,
      .vector_flop_per_s = 157.3 * TFLOP, .hbm_bytes_per_s = 8000 * GB_PER_S,
      .nvlink_bytes_per_s = 1075.2 * GB_PER_S, .network_bytes_per_s = 400 * GBIT_PER_S, .host_bytes_per_s = PCIE5_HOST,
      H100_EFFICIENCY_AT_MAMF(1565.0, 2516.6)},
     "AMD Instinct MI355X data sheet (2025), CDNA 4 at 2.4 GHz: 2.5 PFLOP/s FP16/BF16 and 5 "
     "FP8 dense (2,516.6 and 5,033.2: 256 CUs x 8,192 FP8 FLOP per clock, ISSCC 2026; twice "
     "with sparsity), 288 GB HBM3E at 8 TB/s; Infinity Fabric 7 links x 153.6 GB/s = 1,075.2 "
     "GB/s peer aggregate; vector 157.3 TFLOP/s, its FP32 vector peak, assumed for FP16 as "
     "on the MI300X where the two are equal; capacity the 288 GiB of ROCm's GPU "
     "specification table; one 400 Gb/s NIC per GPU (AMD Pollara 400) assumed; "
     AT_MAMF_SOURCE},
};

/* Link latencies: Subramanian et al. 2024 Table A3 (NVSwitch 2.5 us,
 * InfiniBand 5 us, measured on Perlmutter). Efficiencies: NVLink at the 70%
 * of the line rate Subramanian et al. 2024 observe; InfiniBand at 45%,
 * fitted to the measured tables of Wang et al. 2025, Fujii et al. 2024 and
 * Narayanan et al. 2021 (tests/unit/test_perf_measured.c: 70% predicts the
 * bandwidth-bound FSDP runs of Wang et al. 2025 several times too fast, and
 * every table but one fits better at 45%), what NCCL keeps of the line rate
 * while training kernels share the GPU, on clusters of 200 Gb/s NICs with
 * runs of up to hundreds of nodes. One network is measured apart: the
 * 100 Gb/s cluster of Wang et al. 2025 keeps 70% of its line rate. Its
 * bandwidth-bound runs (Table 16: 13B on 8 GPUs, 30B on 32, 65B on 64)
 * reach 0.89 of the 200 Gb/s cluster's throughput, where 45% of each line
 * rate would give 0.60: the 200 Gb/s cluster delivers about 1.3 times the
 * 100 Gb/s one's bandwidth, not twice. Both have PCIe 4 A100 nodes with 4
 * NICs; the slower one is the smaller (32 nodes against 128), and its runs
 * stay within it, where the faster one's cross a larger fabric. 0.6-0.9 all
 * fit its rows better than 0.45; 0.7 fits best (docs/calibration.md has
 * the figures). */
#define IB_EFFICIENCY 0.45
/* NICs of 400 Gb/s and faster (NDR InfiniBand on ConnectX-7 and later)
 * keep NET_NDR_EFFICIENCY, as measured (tp_internal.h). No paper table
 * runs on one; at 45% the published runs of Megatron-LM's README and of
 * Nemotron-4 (DGX H100) came out 23% and 47% too slow in the median:
 * their data-parallel traffic, hidden behind the last backward in the
 * measured steps, was not at that rate. */
#define NIC_EFFICIENCY(gbit_per_s) ((gbit_per_s) >= 400 ? NET_NDR_EFFICIENCY : IB_EFFICIENCY)
#define FAST(gb_per_s) {(gb_per_s) * GB_PER_S, 2.5e-6, 0.7}
#define SLOW(gbit_per_s, efficiency) {(gbit_per_s) * GBIT_PER_S, 5e-6, efficiency}

typedef struct {
    tp_cluster cluster;
    const char *source;
} cluster_preset;

/* A cluster and its network share one name: name, GPU preset, GPUs per
 * node, fast tier (GB/s per GPU, one way), slow tier (Gb/s per NIC), NICs;
 * CLUSTER_AT also gives the slow tier's efficiency. */
#define CLUSTER(name, gpu, gpus_per_node, fast_gb_per_s, slow_gbit_per_s, nics)               \
    CLUSTER_AT(name, gpu, gpus_per_node, fast_gb_per_s, slow_gbit_per_s, nics, NIC_EFFICIENCY(slow_gbit_per_s))
#define CLUSTER_AT(name_, gpu, gpus_per_node, fast_gb_per_s, slow_gbit_per_s, nics, slow_efficiency) \
    {name_, gpu, gpus_per_node,                                                                   \
     {.name = name_, .fast = FAST(fast_gb_per_s), .slow = SLOW(slow_gbit_per_s, slow_efficiency),  \
      .nics_per_node = nics}}

static const cluster_preset cluster_presets[] = {
    {CLUSTER("dgx-a100", "a100-80gb", 8, 300, 200, 8),
     "NVIDIA DGX A100 data sheet: 8 A100 80 GB on NVSwitch (600 GB/s per GPU, both ways), "
     "8 x 200 Gb/s HDR InfiniBand for compute; Selene, the cluster of Narayanan et al. "
     "2021, is built of these"},
    {CLUSTER("dgx-h100", "h100-80gb", 8, 450, 400, 8),
     "NVIDIA DGX H100 data sheet: 8 H100 80 GB on NVSwitch (900 GB/s per GPU, both ways), "
     "8 x 400 Gb/s NDR InfiniBand (ConnectX-7)"},
    {CLUSTER("dgx-b200", "b200", 8, 900, 400, 8),
     "NVIDIA DGX B200 data sheet: 8 B200 on NVLink 5 (1.8 TB/s per GPU, both ways), "
     "8 x 400 Gb/s ConnectX-7"},
    {CLUSTER("abci-a100", "a100-40gb", 8, 300, 200, 4),
     "ABCI (AIST) compute node (A): 8 A100 SXM4 40 GB on NVSwitch, 4 x 200 Gb/s HDR "
     "InfiniBand; our reading of the A100 system behind Fujii et al. 2024 Tables 3 and 6"},
    {CLUSTER("tsubame4", "h100-94gb", 4, 450, 200, 4),
     "TSUBAME 4.0 (Science Tokyo) node: 4 H100 SXM5 94 GB fully connected by NVLink 4 "
     "(900 GB/s per GPU, both ways), 4 x 200 Gb/s NDR200 InfiniBand; the H100 system "
     "behind Fujii et al. 2024 Tables 4, 10 and 11"},
    {CLUSTER("perlmutter", "a100-40gb", 4, 300, 200, 4),
     "NERSC Perlmutter GPU node (Subramanian et al. 2024 §S2): 4 A100 40 GB, 4 NVLink 3 "
     "links between each pair (300 GB/s per GPU one way), 4 x 200 Gb/s Slingshot NICs"},
    {CLUSTER("a100-4x-200g", "a100-40gb", 4, 300, 200, 4),
     "Wang et al. 2025 Table 1, cluster 40GB-A100-200Gbps: 4 A100 40 GB per node, "
     "800 Gb/s per node"},
    {CLUSTER_AT("a100-4x-100g", "a100-40gb", 4, 300, 100, 4, 0.7),
     "Wang et al. 2025 Table 1, cluster 40GB-A100-100Gbps: 4 A100 40 GB per node, "
     "400 Gb/s per node; InfiniBand at 70% of line rate, fitted on its runs in the "
     "paper's Tables 12, 16 and 20"},
    /* The systems of Subramanian et al. 2024: one NIC per GPU of an NVS
     * domain of 8 (its n_NIC = n_NVS); a sweep over the domain size changes
     * both. */
    {CLUSTER("lbnl-a100", "a100-lbnl", 8, 300, 200, 8),
     "Subramanian et al. 2024 Table A3, A100 generation: NVS domain of 8 at 300 GB/s per "
     "GPU one way, one 25 GB/s (200 Gb/s) InfiniBand NIC per GPU, latencies 2.5 us "
     "and 5 us"},
    {CLUSTER("lbnl-h200", "h200-lbnl", 8, 450, 400, 8),
     "Subramanian et al. 2024 Table A3, H200 generation: NVS domain of 8 at 450 GB/s per "
     "GPU one way, one 50 GB/s (400 Gb/s) InfiniBand NIC per GPU, latencies 2.5 us "
     "and 5 us"},
    {CLUSTER("lbnl-b200", "b200-lbnl", 8, 900, 800, 8),
     "Subramanian et al. 2024 Table A3, B200 generation: NVS domain of 8 at 900 GB/s per "
     "GPU one way, one 100 GB/s (800 Gb/s) InfiniBand NIC per GPU, latencies 2.5 us "
     "and 5 us"},
    {CLUSTER("a800-8x-4hdr", "a800-80gb", 8, 200, 200, 4),
     "Chen et al. 2023 (AMSP) §VI-A2: 8 A800 80 GB per server on NVLink (400 GB/s per "
     "GPU, both ways), 4 x 200 Gb/s HDR InfiniBand without SHARP"},
    /* Rack-scale NVLink: a "node" is the NVLink domain, here a rack of 72
     * GPUs on NVLink Switch trays, so tp, cp and dp groups of up to 72 stay
     * on the fast tier and only what spans racks meets the NICs. The fast
     * tier keeps Table A3's NVSwitch latency and 70% efficiency: no
     * measurement of the rack's two-hop switch fabric is published. */
    {CLUSTER("gb200-nvl72", "gb200", 72, 900, 400, 72),
     "NVIDIA GB200 NVL72 data sheet (2024): 72 B200 (36 GB200 superchips) in one NVLink 5 "
     "domain, 1.8 TB/s per GPU both ways (130 TB/s in all); 18 compute trays of 4 GPUs, "
     "each with 4 x 400 Gb/s ConnectX-7 (or BlueField-3) for scale-out (MLCommons "
     "GB200-NVL72 system descriptions), so 72 NICs per rack"},
    {CLUSTER("gb300-nvl72", "gb300", 72, 900, 800, 72),
     "NVIDIA GB300 NVL72 data sheet (2025): 72 Blackwell Ultra GPUs in one NVLink 5 domain, "
     "1.8 TB/s per GPU both ways (130 TB/s in all); 72 ConnectX-8 SuperNICs at 800 Gb/s, one "
     "per GPU"},
    {CLUSTER("dgx-b300", "b300", 8, 900, 800, 8),
     "NVIDIA DGX B300 data sheet (2025): 8 Blackwell Ultra SXM on NVLink 5 (1.8 TB/s per "
     "GPU, both ways; 14.4 TB/s in all), 8 x 800 Gb/s ConnectX-8 for compute"},
    {CLUSTER("h800-8x-400g", "h800", 8, 200, 400, 8),
     "The H800 cluster of DeepSeek-V3 (Liu et al. 2024, DeepSeek-V3 Technical Report §3.1: "
     "2,048 H800, 8 per node on NVLink and NVSwitch, InfiniBand between nodes; §3.2.2: IB "
     "50 GB/s per GPU, NVLink 160 GB/s reached); 8 x 400 Gb/s CX7 InfiniBand per node and "
     "NVLink 400 GB/s per GPU both ways (Zhao et al. 2025, Insights into DeepSeek-V3, "
     "ISCA). The 70% of 200 GB/s one way modelled inside a node, 140 GB/s, is near the 160 "
     "GB/s the report reaches"},
    /* AMD's 8-GPU platforms connect each GPU to the other seven by its own
     * Infinity Fabric link (a mesh, not a switch): the fast tier here is a
     * GPU's seven links together, one way, which a collective over all 8
     * reaches; a group of fewer GPUs uses fewer links and gets less than
     * this, which the two-tier model does not show. */
    {CLUSTER("mi325x-platform", "mi325x", 8, 448, 400, 8),
     "AMD Instinct MI325X Platform (2024): 8 MI325X (2 TB HBM3E) fully meshed by 4th-gen "
     "Infinity Fabric, 7 x 128 GB/s per GPU both ways (448 GB/s one way); 8 x 400 Gb/s NICs "
     "assumed, one per GPU as in OEM MI325X servers (the platform leaves the NICs to the "
     "server)"},
    {CLUSTER("mi355x-platform", "mi355x", 8, 537.6, 400, 8),
     "AMD Instinct MI355X Platform (2025): 8 MI355X (2.3 TB HBM3E) fully meshed by Infinity "
     "Fabric, 7 x 153.6 GB/s per GPU both ways (537.6 GB/s one way); 8 x 400 Gb/s NICs "
     "(AMD Pollara 400) assumed, one per GPU (the platform leaves the NICs to the server)"},
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Names presets had before, which saved configs and shared links may still
 * carry: each lookup below reads them as the preset's name today. Old and
 * new names never collide with another preset's (test_presets). */
static const struct {
    const char *old_name, *name;
} preset_aliases[] = {
    {"vit-seed002", "vit-era5"},   {"a100-seed002", "a100-lbnl"}, {"h200-seed002", "h200-lbnl"},
    {"b200-seed002", "b200-lbnl"}, {"seed002-a100", "lbnl-a100"}, {"seed002-h200", "lbnl-h200"},
    {"seed002-b200", "lbnl-b200"},
};

/* The preset name an old or current name stands for (NULL stays NULL). */
static const char *preset_name(const char *name)
{
    for (size_t i = 0; name != NULL && i < COUNT(preset_aliases); i++)
        if (strcmp(preset_aliases[i].old_name, name) == 0)
            return preset_aliases[i].name;
    return name;
}


size_t tp_model_preset_count(void) { return COUNT(model_presets); }
const tp_model *tp_model_preset(size_t i) { return i < COUNT(model_presets) ? &model_presets[i].model : NULL; }
const char *tp_model_preset_source(size_t i) { return i < COUNT(model_presets) ? model_presets[i].source : NULL; }

const tp_model *tp_model_preset_find(const char *name)
{
    name = preset_name(name);
    for (size_t i = 0; name != NULL && i < COUNT(model_presets); i++)
        if (strcmp(model_presets[i].model.name, name) == 0)
            return &model_presets[i].model;
    return NULL;
}

size_t tp_gpu_preset_count(void) { return COUNT(gpu_presets); }
const tp_gpu *tp_gpu_preset(size_t i) { return i < COUNT(gpu_presets) ? &gpu_presets[i].gpu : NULL; }
const char *tp_gpu_preset_source(size_t i) { return i < COUNT(gpu_presets) ? gpu_presets[i].source : NULL; }

const tp_gpu *tp_gpu_preset_find(const char *name)
{
    name = preset_name(name);
    for (size_t i = 0; name != NULL && i < COUNT(gpu_presets); i++)
        if (strcmp(gpu_presets[i].gpu.name, name) == 0)
            return &gpu_presets[i].gpu;
    return NULL;
}

size_t tp_cluster_preset_count(void) { return COUNT(cluster_presets); }
const tp_cluster *tp_cluster_preset(size_t i) { return i < COUNT(cluster_presets) ? &cluster_presets[i].cluster : NULL; }
const char *tp_cluster_preset_source(size_t i) { return i < COUNT(cluster_presets) ? cluster_presets[i].source : NULL; }

const tp_cluster *tp_cluster_preset_find(const char *name)
{
    name = preset_name(name);
    for (size_t i = 0; name != NULL && i < COUNT(cluster_presets); i++)
        if (strcmp(cluster_presets[i].cluster.name, name) == 0)
            return &cluster_presets[i].cluster;
    return NULL;
}

void tp_system_use_cluster(tp_system *s, const tp_cluster *cluster)
{
    s->gpu = *tp_gpu_preset_find(cluster->gpu); /* every cluster names a GPU preset (test_presets) */
    s->gpus_per_node = cluster->gpus_per_node;
    s->network = cluster->network;
}

tp_network tp_network_for_gpu(const tp_gpu *gpu, int64_t gpus_per_node)
{
    tp_network n;
    memset(&n, 0, sizeof n);
    strcpy(n.name, "from-gpu");
    const tp_link fast = FAST(gpu->nvlink_bytes_per_s / 2.0 / GB_PER_S);
    const double gbit_per_s = gpu->network_bytes_per_s / GBIT_PER_S;
    const tp_link slow = SLOW(gbit_per_s, NIC_EFFICIENCY(gbit_per_s));
    n.fast = fast;
    n.slow = slow;
    n.nics_per_node = gpus_per_node;
    return n;
}
