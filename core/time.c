/*
 * time.c: time of one optimizer step, its breakdown, and throughput.
 *
 * Compute is a roofline per operation (Subramanian et al. 2024 §S2): a GEMM
 * takes kernel_latency + FLOPs / (tensor peak * matmul_efficiency) (the
 * paper's t = t_sf + lambda_f / lambda_fh, with the efficiency GEMMs reach);
 * FlashAttention takes the same with attention_efficiency, over the causal
 * half of the scores, and 2.5 times its forward in backward (it recomputes
 * the scores: five matrix products for two); element-wise work takes the
 * larger of its bytes over HBM bandwidth and its FLOPs over the vector peak,
 * plus kernel_latency for each of its kernels (norms, residual adds,
 * activation, rotary: flops.c), so a layer of few tokens pays its launches.
 *
 * Communication, per micro-batch and layer (Narayanan et al. 2021 §3,
 * Subramanian et al. 2024 Table I):
 *   tp  two all-reduces forward and two backward of the b s/c x h activation,
 *       or with sequence parallelism an all-gather and a reduce-scatter for
 *       each (same volume); exposed, or with parallel.tp_overlap hidden
 *       behind the layer's GEMMs (forward) and their two gradients
 *       (backward) at the overlap slowdown. The LM head adds one pair, the
 *       embedding one all-reduce (never hidden).
 *   cp  c - 1 ring steps exchange the local K and V (forward) and K, V and
 *       their gradients (backward); with parallel.cp_overlap each step
 *       beside the attention of one block of keys (a c-th of the layer's),
 *       so a cp group that crosses nodes, whose steps outlast that
 *       attention, is where the exchange shows. The attention itself runs
 *       as one kernel per step, c launches (docs/calibration.md).
 *   summa (tp_algorithm summa, Subramanian et al. 2024 Table A2) replaces
 *       tp's pairs: two LayerNorm all-reduces and W_O's reduce-scatter over
 *       tp, and each of the Q, K, V, W1, W2 (and head) multiplies broadcasts
 *       activation panels over tp and weight panels over cp, overlapped panel
 *       by panel (summa_multiply_s). Weights are split over tp x cp, so
 *       gradients reduce over dp alone.
 *   ep  (MoE) the routed copies' dispatch and combine all-to-alls over ep
 *       each way (expert_comm_s); with parallel.ep_overlap Megatron-Core's
 *       schedule runs one micro-batch's forward beside another's backward,
 *       each all-to-all beside one step of the other's compute
 *       (ep_overlapped), hidden at the overlap slowdown. A direction with
 *       no other beside it runs alone, its all-to-alls exposed
 *       (time.ep_step_s): with p = 1 the first micro-batch's forward and
 *       the last one's backward (combined_1f1b.py); with p stages the
 *       step's critical path crosses the forwards that fill the pipeline,
 *       p - 1 chunks, and the last stage's own warm-up, (v - 1) p + 1
 *       chunks (schedules.py, get_pp_rank_microbatches: p chunks a model
 *       chunk ahead and one more for the overlap), and as many backwards
 *       draining it: p micro-batches each way (all m where m < p).
 *   pp  one send of the b s/c x h activation / t per stage boundary forward,
 *       one of its gradient backward (scatter/gather optimisation,
 *       Narayanan et al. 2021 §4.1), v times with the interleaved schedule,
 *       where with parallel.pp_overlap they are posted before each chunk's
 *       compute and hidden behind it.
 *   weights sharded (ZeRO-3, FSDP): each layer's parameters are gathered
 *       before its forward and its backward, its gradients reduce-scattered
 *       after, overlapped with the layer's compute as in Wang et al. 2025:
 *       max(T_fwd, T_transfer) + max(T_bwd, T_transfer).
 *   dp  gradients reduced (all-reduce, or reduce-scatter when the optimizer
 *       is sharded) once per step, overlapped with the backward of the last
 *       micro-batch; updated parameters all-gathered, overlapped with the
 *       next step's first forward. Sharded gradients (ZeRO-2) reduce-scatter
 *       every micro-batch, overlapped with its backward.
 *   offload (training.offload_layers N of a stage of L layers, memory.c)
 *       each offloaded layer's activations go to host memory in the
 *       forward and come back in the backward, c = its bytes over
 *       system.gpu.host_bytes_per_s each way, one copy at a time on
 *       Transformer Engine's offload stream. Its synchronizer
 *       (cpu_offload.py, DefaultOffloadSynchronizer) starts layer i's copy
 *       out when layer i + 1 starts and needs it done before layer
 *       L - N + i starts, and starts its copy back when layer L - 1 - N + i
 *       starts backward, needed by layer i's: each copy has L - N - 1
 *       layers to hide behind, and copies queued one after another have
 *       from the second layer to the last. With f a layer's time in that
 *       direction, what stays exposed is the larger of the last copy's
 *       wait, N c - (L - 2) f, and one copy's, c - (L - N - 1) f, if
 *       positive (exact for equal layers): so N = L - 1, which TE warns
 *       "prevents overlapping", exposes a whole copy. The copy engines
 *       move the bytes, not the SMs, so no overlap slowdown is charged.
 *   Every overlap also charges a slowdown of the time it hides: the
 *   communication kernels share SMs and HBM with the compute they hide
 *   behind, so a faster network still runs faster (the 4 x 200 Gb/s runs
 *   of Wang et al. 2025 beat its 4 x 100 Gb/s ones by 5-10%). A collective
 *   inside one node charges nvlink_overlap_slowdown instead of
 *   overlap_slowdown: over NVLink the SMs copy every byte themselves, across
 *   nodes the NIC does.
 *
 * Pipeline (Narayanan et al. 2021 §2.2): with m micro-batches, forward f and
 * backward b per micro-batch on a stage (of its own layers, which an
 * uneven split makes differ: plan_split_layers), the step takes m (f + b) on the
 * slowest stage plus the bubble (p - 1)/v (f + b) averaged over stages; GPipe
 * has the same bubble as 1F1B. The optimizer step reads and writes its states
 * once.
 *
 * Data loader: each training process that reads data (one per tp group, so
 * every cp rank and the first and last pipeline stages) gets each
 * micro-batch from its data loader, which prefetches in worker processes
 * while the GPU computes. Delivering a sample costs its bytes over
 * system.loader_bytes_per_s: 28 bytes a token (tokens, labels and position
 * ids in int64, the loss mask in fp32) and, with training.dataloader_mask,
 * the dense s x s boolean causal mask Megatron-LM builds per sample (its
 * default --create-attention-mask-in-dataloader; FlashAttention ignores
 * it). When a micro-batch takes longer to deliver than to compute, the
 * stage runs at the loader's pace and the difference is data_wait_s. The
 * mask grows as s^2 and the work only as about s^1.4, so this bounds long
 * sequences only: it is why the 32K-token runs of Fujii et al. 2024 (Table 11)
 * reach half the TFLOP/s with tp x cp x pp = 8 that they reach with 4 (each
 * loader feeds twice the GPUs' worth of work at the same pace), and cp groups
 * across nodes at 16K (Table 10) two thirds. Megatron-LM issue #1025 and
 * ROCm/Megatron-LM PR #40 report the mask's cost at long sequences.
 *
 * Slowest GPU: GPUs of one kind differ in speed (manufacturing, power
 * management; system.gpu.compute_spread, core/presets.c cites the
 * measurement), and every step waits for the slowest of the job's GPUs at
 * its collectives. With the time a GPU takes for the same matrix work
 * spread normally by sigma around the typical time, the slowest of n
 * takes 1 + sigma e_n of it, e_n the expected largest of n standard
 * normal draws (slowest_of_n_sigmas): 0 for one GPU, about 1 for 4, 2.6
 * for 128, 3.0 for 512, 3.5 for 3,072. GEMMs and attention slow by that
 * factor (time.slowest_gpu_slowdown = sigma e_n), memory-bound work does
 * not. So the same plan runs at a little fewer TFLOP/s per GPU on more
 * GPUs (at sigma 1%, its GEMMs take 2.6% longer on 128 GPUs than on one,
 * 3% on 512), which ranks the runs of Wang et al. 2025 and Narayanan et al.
 * 2021 across GPU counts better (docs/calibration.md). On one GPU count
 * every plan's GEMMs slow by the same factor, so a search's order changes
 * little (only where compute and transfers overlap differently).
 *
 * Host: each step also waits system.step_overhead_s (0.1 s) for the host,
 * whatever the model: the framework's Python around the optimizer step, the
 * loss's synchronisation and logging, the launch of the next step's first
 * kernels. It is what remains of the measured steps that are short: the 1.3B
 * and 7B runs of Wang et al. 2025, 1.3-3 s a step (on 4 to 64 GPUs of the
 * 200 Gb/s cluster, where the network costs them little), take 0.09-0.13 s
 * longer than their compute and transfers, at any GPU count; the 7B of
 * Chen et al. 2023 takes 0.2 s more than its compute at M = 1, 2 and 4
 * micro-batches alike. Fitted on every table (docs/calibration.md); a bare
 * PyTorch loop whose GPU is busy through the step has none
 * (tests/device/: set it to 0).
 *
 * CUDA graphs (training.cuda_graphs) replay kernels without the host: each
 * replayed kernel keeps GRAPHED_LATENCY_SHARE of its latency, and
 * a step replayed whole (full) waits no step_overhead_s either. Routed
 * experts whose matrices run as one cuBLAS GEMM per local expert
 * (training.grouped_gemm false: Transformer Engine's GroupedLinear) pay a
 * latency for each: a MoE layer of many local experts and few tokens each,
 * eager, is bound by its launches.
 *
 * Each group's ranks per node are the plan's per_node (Subramanian et al.
 * 2024 §III-A S3) or follow from plan.order (default tp, cp, dp, pp): ranks
 * are numbered along it, so a dimension's stride is the product of the sizes
 * listed before it (plan_ranks_per_node, network.c).
 */
#include <math.h>

#include "tp_internal.h"
#include "units.h"

/* What a CUDA graph keeps of a kernel's latency, the host's dispatch
 * gone: a PyTorch call costs about 20 us on the H100 probe's host
 * (tests/device/README.md, small GEMMs timed from Python), two thirds of
 * the H100's fitted 30 us a kernel. A share, not a difference, so that the
 * latency stays a smooth function of kernel_latency_us for calibrate. */
#define GRAPHED_LATENCY_SHARE (1.0 / 3.0)

/* Where each parallel dimension's groups sit. */
typedef struct {
    int64_t size[4], per_node[4];
} placement;

static placement place(const tp_config *c, int64_t dp)
{
    placement pl;
    pl.size[TP_DIM_TP] = c->plan.tp;
    pl.size[TP_DIM_CP] = c->plan.cp;
    pl.size[TP_DIM_DP] = dp;
    pl.size[TP_DIM_PP] = c->plan.pp;
    plan_ranks_per_node(c, dp, pl.per_node);
    return pl;
}

/* One micro-batch's forward and backward on one stage, split by kind. */
typedef struct {
    double compute_f, compute_b; /* recompute counted in compute_b */
    double tp_f, tp_b, cp_f, cp_b, shard_f, shard_b;
    double ep_f, ep_b;           /* MoE all-to-all and etp collectives */
    /* with parallel.ep_overlap: what each direction's all-to-alls add where
     * a micro-batch's direction runs alone, no other beside it to hide
     * behind (stage_step_s) */
    double ep_alone;
    double p2p;                  /* forward send + backward send */
    double offload_f, offload_b; /* host copies of offloaded activations left exposed */
    double layer_weights;        /* the stage's layers' weights on one GPU (layer_weights) */
} stage_time;

static double sum_f(const stage_time *t)
{
    return t->compute_f + t->tp_f + t->cp_f + t->shard_f + t->ep_f + t->offload_f;
}
static double sum_b(const stage_time *t)
{
    return t->compute_b + t->tp_b + t->cp_b + t->shard_b + t->ep_b + t->offload_b;
}

static double max_d(double a, double b) { return a > b ? a : b; }

/* Ranks per node of a group of n taken innermost-first from the dp*cp ranks
 * that hold the same parameters (shard groups fill a node first). */
static int64_t shard_per_node(int64_t n, int64_t replicas_per_node)
{
    return n < replicas_per_node ? n : replicas_per_node;
}

/* What training.unfused_expert_extras moves for one routed copy, each way
 * (unfused_expert_extra_bytes). */
typedef struct {
    double clamp_f, clamp_b, bias_f, bias_b;
} expert_extra_bytes;

typedef struct {
    const tp_config *c;
    const tp_gpu *gpu;
    /* what the slowest GPU of the job reaches on GEMMs and on attention */
    double matmul_flop_per_s, attention_flop_per_s;
    /* the linear layers' GEMMs: at the FP8 peak with training.precision.fp8,
     * the FP4 one with fp4 (linear_peak_flop_per_s), as the slowest GPU runs them */
    double linear_peak_flop_per_s, linear_flop_per_s;
    /* with fp8: the bytes each linear layer's casts move per element of
     * its input, forward and again in the backward, and per element of
     * its output's gradient (fp8_costs) */
    double cast_input_f, cast_input_b, cast_gradient;
    /* with fp8: the bytes the weights' casts move per weight in each
     * micro-batch's forward and backward (fp8_costs) */
    double cast_weight_f, cast_weight_b, cast_weight_step;
    flops_layer x, moe_x; /* dense and MoE layers */
    placement pl;
    double tokens;      /* b s / c: tokens of one micro-batch on one GPU */
    double t, kv_split; /* tp, and the split of K and V (min(tp, k)) */
    /* a kernel's fixed cost, the layers' and the routed experts'
     * (GRAPHED_LATENCY_SHARE of the GPU's where CUDA graphs replay them),
     * and the launches of each routed-expert matrix (one grouped kernel,
     * or one per local expert) */
    double kernel_latency_s, expert_kernel_latency_s, expert_gemm_launches;
    expert_extra_bytes expert_extra; /* per routed copy, once per estimate */
    double layer_params;        /* one dense layer's parameters on one GPU */
    double moe_layer_params;    /* a MoE layer's, routed experts aside */
    double expert_params;       /* a MoE layer's routed experts on one GPU */
    int64_t replicas_per_node;  /* of the dp*cp ranks holding the same parameters */
    /* MoE groups: etp innermost, then ep, then edp, over the tp cp dp ranks
     * of a stage (Megatron-Core's expert rank order) */
    int64_t ep, etp, edp, ep_per_node, etp_per_node, edp_per_node;
    /* SUMMA (0 panels with megatron): n_b; one dense layer's multiplies'
     * broadcasts left exposed in its forward; and the all-reduces and
     * reduce-scatter around them, the same each way (summa_prepare) */
    double summa_panels, summa_layer_f, summa_around;
} context;

/* What an fp8 recipe costs beside the bf16 GEMMs it replaces, measured on
 * one H200, whose SMs and clocks are the H100's (tests/device/
 * fp8_probe_2026-11-26.json, docs/calibration.md), and on one H100
 * (fp8_probe_h100_2026-11-26.json): gemm_factor is the GEMMs' share of the
 * FP8 peak over bf16's share of the BF16 peak (68.2% on the H200), over
 * the forward, input-gradient and weight-gradient products of Llama 3 8B's,
 * 70B's and 405B's linear layers at 8,192 tokens; the casts read the bf16
 * tensor (2 B) and write each fp8 copy (1 B) at HBM speed, per element of a
 * linear layer's input (forward; backward) and of its output's gradient:
 *   delayed     92%: 62.9% of the FP8 peak, the forward with fast
 *               accumulation and the gradients with split accumulation, as
 *               Transformer Engine and torchao run them; one pass writes the
 *               copy and the transpose the weight gradient needs: 4; 0; 4
 *   tensorwise  92%, with a first pass reading the tensor for its amax: 6; 0; 6
 *   rowwise     87%: the same split, per row, ran 5.7% slower than per
 *               tensor on the H100 (59.6% of the FP8 peak against 63.2%),
 *               as CUTLASS's row-scaled kernel promotes its sums more
 *               slowly; every operand is scaled along the axis its product
 *               contracts over (torchao's rowwise recipe), so the weight
 *               gradient needs the input and the gradient cast again along
 *               the tokens, a column's amax read in a first pass and the
 *               copy written transposed: 3; 5; 3 + 5
 *   blockwise   81% (55.0%, 1x128 by 128x128 blocks); both directions'
 *               blocks in one pass (Transformer Engine's Float8BlockScaling): 4; 0; 4
 *   mxfp8      100%: Blackwell's tensor cores apply the block scales
 *               themselves (no Blackwell measured): 4; 0; 4
 * The GEMM factors are Hopper's, whose fp8 tensor cores accumulate at
 * reduced precision (split accumulation promotes the sums through the
 * CUDA cores) and take scales outside the MMA; on Blackwell (a GPU with
 * FP4 tensor cores) every recipe runs at 100%, unmeasured. NVFP4
 * (training.precision.fp4) scales its blocks inside the tensor cores as
 * mxfp8 does.
 *   Without fp8 inputs kept (fp8_activations false, or rebuilt with
 * training.recompute_elementwise) the backward casts the saved bf16 input
 * again, at least as the forward did. The weights cast as an input does:
 * once a step with the fp8 cache (time.weight_cast_s), else in every
 * forward and again in every backward (fp8_weight_cache); fp8 weights
 * (fp8_params) are not cast. */
typedef struct {
    double gemm_factor, input_f, input_b, gradient, compiled_factor;
} fp8_cost;

/* compiled_factor: what torch.compile's kernels for a recipe's casts move
 * over the bytes above (training.precision.fp8_casts compiled). Per tensor
 * and per row it is what whole training steps spent on their casts
 * (tests/device/llama_step.py's fp8 cases, test_device_measured): 1.4 puts
 * the five per-tensor steps on the H200 and the H100 within -3.8% .. +3.7%
 * of their fp8/bf16 step ratios, and 2.0 the two per-row steps on the H100
 * within 1%, whose casts took twice the per-tensor ones, one fused
 * column-amax kernel alone 1 ms a call; the H100's 8K-token steps, measured
 * after, come out -2.7% (per tensor) and -0.6% (per row). The same steps'
 * casts took the same milliseconds on both GPUs where the H200's HBM is
 * 1.4 times faster, so no one factor at HBM speed fits either GPU to
 * better than 4%. The other recipes' factors are fp8_probe's casts timed
 * alone on the H200 (8K x 4K and 8K x 16K inputs), which overstate a
 * step's (per tensor alone: 11.4 B a value against 6): delayed 8.7 against
 * 3 (amax recorded beside the cast), 1x128 blocks 5.0 against 3; MXFP8
 * unmeasured, taken as the 1x128 blocks'. */
static const fp8_cost fp8_costs[TP_FP8_RECIPE_COUNT] = {
    [TP_FP8_DELAYED] = {0.922, 4.0, 0.0, 4.0, 8.7 / 3.0},
    [TP_FP8_TENSORWISE] = {0.922, 6.0, 0.0, 6.0, 1.4},
    [TP_FP8_ROWWISE] = {0.870, 3.0, 5.0, 8.0, 2.0},
    [TP_FP8_BLOCKWISE] = {0.806, 4.0, 0.0, 4.0, 5.0 / 3.0},
    [TP_FP8_MXFP8] = {1.0, 4.0, 0.0, 4.0, 5.0 / 3.0},
};

/* The SUMMA multiplies per layer of Subramanian et al. 2024 Table A2: Q, K,
 * V, W1, W2. */
#define SUMMA_MULTIPLIES 5.0

/* FlashAttention written in Triton (training.attention_kernel triton)
 * against the FlashAttention-2 class that system.gpu.attention_efficiency
 * describes: FlashAttention-2 runs it 1.3 to 2.5 times faster over head
 * sizes, masks and sequence lengths (Dao, "FlashAttention-2: Faster
 * Attention with Better Parallelism and Work Partitioning", ICLR 2024,
 * §4.1); 1.8 is the middle of that range on a log scale. */
#define TRITON_ATTENTION_SLOWDOWN 1.8

/* The attention kernels written for Hopper's warpgroup MMA and TMA
 * (training.attention_kernel cudnn: cuDNN 9's fused attention, which
 * Transformer Engine runs, and FlashAttention-3) against FlashAttention-2
 * on the same GPU: on our H100, cuDNN 9.19 ran causal attention at 55-58%
 * of the peak where FlashAttention-2 ran at 32-33%, 16K to 64K tokens
 * (tests/device/attention_probe_2026-11-23.json): 1.7 times, inside the
 * 1.5 to 2 times of Shah et al., "FlashAttention-3: Fast and Accurate
 * Attention with Asynchrony and Low-precision", NeurIPS 2024. On GPUs
 * without FP8 tensor cores (before Hopper) they run as FlashAttention-2
 * does. */
#define HOPPER_ATTENTION_SPEEDUP 1.7

/* The attention's rate against system.gpu.attention_efficiency's
 * FlashAttention-2 for the kernel that runs. PyTorch's SDPA (sdpa) picks
 * FlashAttention-2 on NVIDIA GPUs; its ROCm build runs AOTriton's kernels,
 * FlashAttention written in Triton and compiled ahead of time, where AMD's
 * attention_efficiency describes FlashAttention-2's Composable Kernel port
 * (Azure's benchmark, presets.c). So sdpa on an AMD Instinct GPU counts as
 * triton. On an MI300X, SDPA forward tracks a Triton kernel that AMD's
 * own AITER library outruns by 18-62% (midiareshadi.github.io/blog/
 * attn-dsl-bench, 2026); the backward is where SDPA lagged most, 9.6-19.9
 * TFLOP/s on an MI300X against 183 on an H100 in 2024 (pytorch/pytorch
 * issue 135431). */
static double attention_kernel_factor(const tp_config *c)
{
    switch (c->training.attention_kernel) {
    case TP_ATTENTION_KERNEL_SDPA:
        return gpu_amd_instinct(&c->system.gpu) ? 1.0 / TRITON_ATTENTION_SLOWDOWN : 1.0;
    case TP_ATTENTION_KERNEL_TRITON:
        return 1.0 / TRITON_ATTENTION_SLOWDOWN;
    case TP_ATTENTION_KERNEL_CUDNN:
        return gpu_fp8_tensor_cores(&c->system.gpu) ? HOPPER_ATTENTION_SPEEDUP : 1.0;
    default:
        return 1.0;
    }
}

/* A transfer that compute may hide: its time, and that time weighted by
 * the slowdown of the tier each part of it crosses, so that a mix of
 * collectives hides at their average. */
typedef struct {
    double s, slowdown_s;
} transfer;

/* What a collective of n ranks, per_node of them on a node, costs the
 * compute it hides behind, per second hidden: nvlink_overlap_slowdown
 * inside a node, overlap_slowdown across nodes (time.c's header says why
 * they differ). */
static double tier_slowdown(const context *k, int64_t n, int64_t per_node)
{
    return net_within_node(n, per_node) ? k->gpu->nvlink_overlap_slowdown : k->gpu->overlap_slowdown;
}

/* Adds a collective of n ranks, per_node of them on a node, at its tier's
 * slowdown. */
static void transfer_add(const context *k, transfer *t, double s, int64_t n, int64_t per_node)
{
    t->s += s;
    t->slowdown_s += s * tier_slowdown(k, n, per_node);
}

/* Adds one collective's time (network.c) and its tier's slowdown. */
static void add_collective(const context *k, transfer *t, net_collective kind, double bytes, int64_t n,
                           int64_t per_node)
{
    transfer_add(k, t, net_collective_s(&k->c->system, kind, bytes, n, per_node), n, per_node);
}

static transfer transfer_sum(transfer a, transfer b)
{
    return (transfer){a.s + b.s, a.slowdown_s + b.slowdown_s};
}

/* What a transfer of total_s adds when exposed_s of it sticks out of the
 * compute beside it: that part, and the overlap slowdown (a share) of the
 * part hidden. */
static double exposed_and_slowed_s(double exposed_s, double total_s, double slowdown)
{
    return exposed_s + slowdown * (total_s - exposed_s);
}

/* What a transfer overlapped with compute adds to it: the part the compute
 * cannot hide, and its slowdown times the part it hides (Wang et al. 2025's
 * max(T_compute, T_transfer) when the slowdown is 0). */
static double overlapped_s(double compute, transfer t)
{
    if (t.s <= 0.0)
        return 0.0;
    return exposed_and_slowed_s(max_d(0.0, t.s - compute), t.s, t.slowdown_s / t.s);
}

static double gemm_at_s(const context *k, double flop, double kernels, double flop_per_s)
{
    return kernels * k->kernel_latency_s + flop / flop_per_s;
}

/* A GEMM at the BF16 rate (attention's products, the embedding's and the
 * LM head's), or one of the linear layers', at the FP8 rate with fp8. */
static double gemm_s(const context *k, double flop, double kernels)
{
    return gemm_at_s(k, flop, kernels, k->matmul_flop_per_s);
}

static double linear_gemm_s(const context *k, double flop, double kernels)
{
    return gemm_at_s(k, flop, kernels, k->linear_flop_per_s);
}

static double elementwise_s(const context *k, double bytes, double flop)
{
    return max_d(bytes / k->gpu->hbm_bytes_per_s, flop / k->gpu->vector_flop_per_s);
}

/* Forward of one layer on one GPU for one micro-batch: GEMMs, attention,
 * element-wise; set apart so recompute can add it again. */
typedef struct {
    double gemm_s, attention_s, elementwise_s;
    /* element-wise passes counted each way apart from elementwise_s's
     * backward of twice its forward: fp8's casts, a MoE layer's unfused
     * expert extras */
    double apart_f_s, apart_b_s;
    /* a MoE layer's routed copies through their activation (and the clamp
     * before it, training.unfused_expert_extras), one forward: what
     * recompute_moe_act runs again in the backward (Megatron-Core
     * checkpoints the whole bias_act_func, experts.py) */
    double moe_act_s;
    /* a MoE layer's routed experts, already counted above: their GEMMs,
     * and their element-wise work (elementwise_s's share and the apart
     * passes) forward and backward (ep_overlapped) */
    double experts_gemm_s, experts_elementwise_f_s, experts_elementwise_b_s;
} layer_compute;

/* The weights of one layer on one GPU that fp8 casts: a dense layer's,
 * or a MoE layer's with its routed experts here. */
static double layer_weights(const context *k, const flops_layer *x)
{
    return x->experts_per_token > 0.0 ? k->moe_layer_params + k->expert_params : k->layer_params;
}

/* What training.unfused_expert_extras moves for one routed copy in bf16 on
 * one of its etp ranks, each way, fe = expert_ffn_hidden / etp
 * (Megatron-Core's code, frameworks.c):
 *   glu_clamp: two clamps over the first matrix's 2fe outputs, 8fe bytes,
 *     and their concatenation, 8fe; backward, each clamp's gradient reads
 *     its input and the gradient and writes one (12fe) and the chunks'
 *     gradients are concatenated (8fe);
 *   expert_bias: t + b * p over the copy's h outputs, split by expert and
 *     concatenated, with the router weight p in w bytes: b * p writes w, the
 *     sum reads 2 + w and writes w, the concatenation reads and writes w,
 *     and an fp32 result is cast back (6): 2 + 5w (+6); backward, the
 *     gradients of b and p each read the gradient and the other factor and
 *     reduce (3w each), with fp32 two casts more (12). The router's weights
 *     are in the router's dtype, bf16 unless moe_router_dtype says fp32
 *     (Transformer Engine's fused top-k keeps the logits' dtype), and fp32
 *     with the flex dispatcher, whose DeepEP and HybridEP take fp32 only
 *     (token_dispatcher.py). */
static expert_extra_bytes unfused_expert_extra_bytes(const tp_config *c, int64_t etp)
{
    expert_extra_bytes x = {0.0, 0.0, 0.0, 0.0};
    if (!c->training.unfused_expert_extras)
        return x;
    const double h = (double)c->model.hidden, fe = (double)c->model.moe.expert_ffn_hidden / (double)etp;
    if (c->model.moe.glu_clamp) {
        x.clamp_f = 16.0 * fe;
        x.clamp_b = 20.0 * fe;
    }
    if (c->model.moe.expert_bias) {
        const int fp32 = c->plan.ep_dispatcher == TP_EP_DISPATCHER_FLEX;
        const double w = fp32 ? 4.0 : 2.0;
        x.bias_f = (2.0 + 5.0 * w + (fp32 ? 6.0 : 0.0)) * h;
        x.bias_b = (6.0 * w + (fp32 ? 12.0 : 0.0)) * h;
    }
    return x;
}

/* training.unfused_yarn_rope (frameworks.c): Megatron-Core's
 * _apply_rotary_pos_emb_bshd in PyTorch moves, per bf16 element of Q and
 * K, t cos (4 B), rotate_half's negated half (2) and concatenation (4),
 * times sin (4), the sum (6) and the concatenation with the empty
 * pass-through (4): 24 B where the fused kernel moves 4, six launches for
 * one; its backward as many, the products' gradients, the halves put back,
 * their sum and the slice's gradient. One direction's extra time. */
#define UNFUSED_ROPE_EXTRA_BYTES 20.0
#define UNFUSED_ROPE_EXTRA_KERNELS 5.0

static double unfused_rope_s(const context *k, const flops_layer *x)
{
    if (!k->c->model.yarn_rope || !k->c->training.unfused_yarn_rope)
        return 0.0;
    const double bytes = UNFUSED_ROPE_EXTRA_BYTES * k->tokens * x->rope_width / k->t;
    return UNFUSED_ROPE_EXTRA_KERNELS * k->kernel_latency_s + elementwise_s(k, bytes, 0.0);
}

static layer_compute layer_forward(const context *k, const flops_layer *x)
{
    const tp_config *c = k->c;
    layer_compute lc;
    const double gemm_flop = k->tokens * ((x->attention_gemm_flop + x->mlp_gemm_flop) / k->t
                                          + x->kv_gemm_flop / k->kv_split);
    /* SUMMA runs each of its five multiplies (Q, K, V, W1, W2) as n_b
     * panel multiplies: n_b - 1 more launches each */
    const double summa_kernels = k->summa_panels > 0.0 ? SUMMA_MULTIPLIES * (k->summa_panels - 1.0) : 0.0;
    lc.gemm_s = linear_gemm_s(k, gemm_flop, x->gemm_kernels + summa_kernels);
    if (c->training.flash_attention) {
        /* causal: FlashAttention skips the masked half of the blocks */
        const double flop = x->attention_fraction * k->tokens * x->attention_flop / k->t;
        /* with cp, one kernel per ring step: cp launches */
        lc.attention_s = (double)k->pl.size[TP_DIM_CP] * k->kernel_latency_s + flop / k->attention_flop_per_s;
    } else {
        /* two batched GEMMs over every score, and the score tensor written,
         * read by softmax, written and read again: 8 bytes per score; with
         * dropout, the probabilities read once more and written with a
         * 1-byte mask: 5 more (model.c keeps the same tensors) */
        const double flop = k->tokens * x->attention_flop / k->t;
        const double scores = k->tokens * (double)c->training.seq_len * (double)c->model.heads / k->t;
        const double bytes_per_score = 8.0 + (c->model.dropout ? 5.0 : 0.0);
        lc.attention_s = gemm_s(k, flop, 2.0)
                       + elementwise_s(k, bytes_per_score * scores, 5.0 * scores);
    }
    const double sp_split = c->plan.sp ? k->t : 1.0;
    const double bytes = k->tokens * (x->sp_bytes / sp_split + x->tp_bytes / k->t);
    lc.elementwise_s = x->elementwise_kernels * k->kernel_latency_s
                     + elementwise_s(k, bytes, bytes / 2.0);
    lc.apart_f_s = lc.apart_b_s = lc.moe_act_s = 0.0;
    lc.experts_gemm_s = lc.experts_elementwise_f_s = lc.experts_elementwise_b_s = 0.0;
    if (c->training.fp8) { /* the recipe's casts (fp8_costs) */
        const double inputs = k->tokens * (x->linear_input_width + x->linear_split_input_width / k->t);
        const double gradients = k->tokens * (x->linear_output_width + x->linear_split_output_width / k->t);
        const double weights = layer_weights(k, x);
        lc.apart_f_s = elementwise_s(k, k->cast_input_f * inputs + k->cast_weight_f * weights, 0.0);
        lc.apart_b_s = elementwise_s(k, k->cast_input_b * inputs + k->cast_gradient * gradients
                                       + k->cast_weight_b * weights, 0.0);
    }
    const double rope_s = unfused_rope_s(k, x);
    lc.apart_f_s += rope_s;
    lc.apart_b_s += rope_s;
    /* MLA's down-projections and the MoE router, on sequence-parallel
     * tokens (every tp rank runs them whole without sp); their launches
     * are in gemm_kernels */
    lc.gemm_s += k->tokens / sp_split * x->sp_gemm_flop / k->matmul_flop_per_s;
    if (x->experts_per_token > 0.0) {
        /* routed copies on this GPU (as memory.c counts them) through the
         * local experts: two matrices' GEMMs, each the larger of its FLOPs
         * and its read of the E/ep local experts' weights, so a few tokens
         * per expert run at HBM speed; each matrix one grouped kernel or
         * one launch per local expert (training.grouped_gemm) */
        const double copies = model_routed_copies_sent(c, x->experts_per_token) * (double)k->etp;
        const double flop = copies * x->expert_flop_per_copy / (double)k->etp;
        const double weight_bytes = 2.0 * k->expert_params;
        lc.experts_gemm_s = 2.0 * k->expert_gemm_launches * k->expert_kernel_latency_s
                          + max_d(flop / k->linear_flop_per_s,
                                  weight_bytes / k->gpu->hbm_bytes_per_s);
        const double moved = copies * (x->copy_bytes + x->expert_bytes_per_copy / (double)k->etp);
        const double moved_s = elementwise_s(k, moved, moved / 2.0);
        const expert_extra_bytes *extra = &k->expert_extra;
        double apart_f = elementwise_s(k, copies * (extra->clamp_f + extra->bias_f), 0.0);
        double apart_b = elementwise_s(k, copies * (extra->clamp_b + extra->bias_b), 0.0);
        lc.moe_act_s = elementwise_s(k, copies * (x->expert_bytes_per_copy / (double)k->etp + extra->clamp_f), 0.0);
        if (c->training.fp8) { /* each copy's expert: W1 and W2's inputs and outputs */
            const double h = (double)c->model.hidden, fe = (double)c->model.moe.expert_ffn_hidden / (double)k->etp;
            apart_f += elementwise_s(k, k->cast_input_f * copies * (h + fe), 0.0);
            apart_b += elementwise_s(k, copies * (k->cast_input_b * (h + fe) + k->cast_gradient * (2.0 * fe + h)), 0.0);
        }
        lc.gemm_s += lc.experts_gemm_s;
        lc.elementwise_s += moved_s;
        lc.apart_f_s += apart_f;
        lc.apart_b_s += apart_b;
        lc.experts_elementwise_f_s = moved_s + apart_f;
        lc.experts_elementwise_b_s = 2.0 * moved_s + apart_b;
    }
    return lc;
}

/* A MoE layer's expert traffic, one direction (forward, or backward):
 * dispatch and combine all-to-alls of the routed copies over ep, and with
 * etp > 1 the gather of the copies to their etp ranks and the
 * reduce-scatter of the results. */
static double expert_comm_s(const context *k)
{
    const tp_config *c = k->c;
    const tp_system *s = &c->system;
    const double token_bytes = 2.0 * (double)c->model.hidden;
    const double tokens = model_routed_copies_sent(c, 1.0), copies = k->moe_x.experts_per_token;
    const double sent = tokens * copies * token_bytes;
    double t = c->plan.ep_dispatcher == TP_EP_DISPATCHER_FLEX
             ? 2.0 * net_forwarded_all_to_all_s(s, tokens, token_bytes, copies, k->ep, k->ep_per_node)
             : 2.0 * net_collective_s(s, NET_ALL_TO_ALL, sent, k->ep, k->ep_per_node);
    if (k->etp > 1) {
        const double gathered = sent * (double)k->etp;
        t += net_collective_s(s, NET_ALL_GATHER, gathered, k->etp, k->etp_per_node)
           + net_collective_s(s, NET_REDUCE_SCATTER, gathered, k->etp, k->etp_per_node);
    }
    return t;
}

/* The tensor-parallel collectives around one tp region in forward (or
 * backward): an all-reduce of the output, or with sequence parallelism an
 * all-gather of the input (gather_bytes: MLA gathers its latents, not h)
 * and a reduce-scatter of the output. */
static double tp_pair_s(const context *k, double gather_bytes, double bytes)
{
    const tp_system *s = &k->c->system;
    const int64_t n = k->pl.size[TP_DIM_TP];
    const int64_t r = k->pl.per_node[TP_DIM_TP];
    if (k->c->plan.sp)
        return net_collective_s(s, NET_ALL_GATHER, gather_bytes, n, r)
             + net_collective_s(s, NET_REDUCE_SCATTER, bytes, n, r);
    return net_collective_s(s, NET_ALL_REDUCE, bytes, n, r);
}

/* One SUMMA multiply (Subramanian et al. 2024 Algorithm 1) of this GPU's
 * tokens x k_in activation by a k_in x n_out weight on the tp x cp grid, its
 * inner dimension cut into n_b panels; the broadcasts' time left exposed.
 * Volumes as the paper's Table A2 prints them (V1 = ble/n2 + e^2/n1,
 * V2 = V3 = ble/n2 + ef/n1): the activation side moves tokens x min(k_in,
 * n_out) over the tp row (the input broadcast, or for W2, whose output is the
 * narrower, the output reduced), the weight side k_in x n_out / tp over the cp
 * column. The first panel's two broadcasts are the prologue; each later pair
 * hides behind the previous panel's multiply, so
 * t_comm = t_prologue + (n_b - 1) t_exposed (the paper writes n_b t_exposed;
 * with one panel nothing is left to overlap, so the prologue is all). */
static double summa_multiply_s(const context *k, double k_in, double n_out, double weight_split,
                               double panels)
{
    const double activation_bytes = 2.0 * k->tokens * (k_in < n_out ? k_in : n_out) / panels;
    const double weight_bytes = 2.0 * k_in * n_out / weight_split / panels;
    const int64_t tp = k->pl.size[TP_DIM_TP], tp_r = k->pl.per_node[TP_DIM_TP];
    const int64_t cp = k->pl.size[TP_DIM_CP], cp_r = k->pl.per_node[TP_DIM_CP];
    transfer prologue = {0};
    add_collective(k, &prologue, NET_BROADCAST, activation_bytes, tp, tp_r);
    add_collective(k, &prologue, NET_BROADCAST, weight_bytes, cp, cp_r);
    const double panel_s = linear_gemm_s(k, 2.0 * k->tokens * k_in * n_out / weight_split / panels, 1.0);
    return prologue.s + (panels - 1.0) * overlapped_s(panel_s, prologue);
}

/* A dense layer's five SUMMA multiplies in forward: Q, K and V (each its
 * own, as Table A2 lists them), the MLP's up projection (gate and up
 * together for SwiGLU) and its down projection. */
static double summa_layer_s(const context *k, const model_layer *layer, double panels)
{
    const double h = (double)k->c->model.hidden;
    const double f = (double)k->c->model.ffn_hidden;
    const double up = layer->mlp_matrix_params / h - f; /* f, or 2f for SwiGLU */
    return summa_multiply_s(k, h, layer->q_width, k->t, panels)
         + 2.0 * summa_multiply_s(k, h, layer->kv_width / 2.0, k->kv_split, panels)
         + summa_multiply_s(k, h, up, k->t, panels) + summa_multiply_s(k, f, h, k->t, panels);
}

/* Sets k's SUMMA figures, once per estimate: n_b as planned, or the power
 * of two up to 64 that fits (model_summa_panels_fit) and makes one layer's
 * forward and backward (two multiplies per forward one, each a broadcast
 * and a reduce of the same volumes) fastest: more panels hide more of the
 * broadcasts, each panel launches its own kernels (Subramanian et al. 2024
 * §S2 on n_b). */
static void summa_prepare(context *k, const model_layer *layer)
{
    const tp_config *c = k->c;
    const tp_system *sys = &c->system;
    if (c->plan.summa_panels > 0) {
        k->summa_panels = (double)c->plan.summa_panels;
        k->summa_layer_f = summa_layer_s(k, layer, k->summa_panels);
    } else {
        double best_s = -1.0;
        for (int64_t n = 1; n <= 64 && model_summa_panels_fit(&c->model, n); n *= 2) {
            const double panels = (double)n;
            const double layer_f = summa_layer_s(k, layer, panels);
            const double t = 3.0 * (layer_f + SUMMA_MULTIPLIES * (panels - 1.0) * k->kernel_latency_s);
            if (best_s < 0.0 || t < best_s) {
                best_s = t;
                k->summa_panels = panels;
                k->summa_layer_f = layer_f;
            }
        }
    }
    /* the two LayerNorms' all-reduces and W_O's reduce-scatter over tp */
    const double activation_bytes = k->tokens * (double)c->model.hidden * 2.0;
    const int64_t n = k->pl.size[TP_DIM_TP], r = k->pl.per_node[TP_DIM_TP];
    k->summa_around = 2.0 * net_collective_s(sys, NET_ALL_REDUCE, activation_bytes, n, r)
                    + net_collective_s(sys, NET_REDUCE_SCATTER, activation_bytes, n, r);
}

/* One layer's sharded parameters around its compute: gathered (over n
 * ranks, per_node of them on a node) before forward and again before
 * backward, their gradients reduce-scattered (over scatter_n) after. */
static void shard_transfer_s(const context *k, const tp_estimate_result *out, double params,
                             int64_t n, int64_t scatter_n, int64_t per_node, transfer *gather,
                             transfer *scatter)
{
    add_collective(k, gather, NET_ALL_GATHER, params * out->bytes_per_param.weights, n, per_node);
    add_collective(k, scatter, NET_REDUCE_SCATTER, params * out->bytes_per_param.gradients, scatter_n,
                   per_node);
}

/* A layer's two tp pairs, the attention's and the MLP's (mlp_pairs: 0 for
 * a MoE layer without shared experts), its input gathered at
 * gather_bytes_per_element. */
static double tp_layer_pairs_s(const context *k, const flops_layer *x, double mlp_pairs,
                               double gather_bytes_per_element)
{
    const double h = (double)k->c->model.hidden;
    const double activation_bytes = k->tokens * h * 2.0;
    const double mlp = tp_pair_s(k, k->tokens * h * gather_bytes_per_element, activation_bytes);
    const double attention = x->gather_width == h
                           ? mlp
                           : tp_pair_s(k, k->tokens * x->gather_width * gather_bytes_per_element, activation_bytes);
    return attention + mlp_pairs * mlp;
}

/* One layer's tensor-parallel time, forward and backward (SUMMA's apart):
 * two collectives each way per layer, one for the attention and one for
 * the MLP (a MoE layer's MLP pair is its shared experts', if any). fp8
 * linear layers gather their sequence-parallel input already cast, 1 B an
 * element: Transformer Engine's LayerNormLinear writes the norm in fp8 and
 * all-gathers that (module/layernorm_linear.py, 1.8 to 2.x), torchao's
 * PrepareFloat8ModuleInput casts before it redistributes (torchtitan's
 * float8 tensor parallel, per-tensor scaling only: rowwise gathers bf16).
 * The backward's collectives stay bf16. */
static void tp_layer_s(const context *k, const flops_layer *x, double *forward, double *backward)
{
    const tp_config *c = k->c;
    if (k->summa_panels > 0.0) {
        /* SUMMA (Subramanian et al. 2024 Table A2): the collectives around
         * the multiplies and their broadcasts; backward the conjugate
         * collectives and two multiplies (broadcast and reduce) per
         * forward one */
        *forward = k->summa_around + k->summa_layer_f;
        *backward = k->summa_around + 2.0 * k->summa_layer_f;
        return;
    }
    const int moe = x->experts_per_token > 0.0;
    const double mlp_pairs = moe ? (c->model.moe.shared_experts > 0 ? 1.0 : 0.0) : 1.0;
    *backward = tp_layer_pairs_s(k, x, mlp_pairs, 2.0);
    const int fp8_gather = c->training.fp8 && c->training.fp8_recipe != TP_FP8_ROWWISE && c->plan.sp;
    *forward = fp8_gather ? tp_layer_pairs_s(k, x, mlp_pairs, 1.0) : *backward;
}

/* What Transformer Engine's userbuffers take from the GEMMs they run beside
 * (parallel.tp_overlap_userbuffers, frameworks.c): of a layer's ten
 * tensor-parallel transfers, the four gathers on the ring exchange hold
 * one SM and move by the copy engines, the six others (two reduce-scatters
 * forward, four bulk transfers backward) hold 16; averaged, 10 of the
 * H100's 132 SMs for the time they run. Blackwell's 148 SMs would make it
 * 0.068; the GPU's SM count is not among its fields. */
#define USERBUFFERS_SM_SHARE ((4.0 * 1.0 + 6.0 * 16.0) / 10.0 / 132.0)

/* What a group's transfer of transfer_s adds when it runs beside
 * compute_s of compute: the part the compute cannot hide, and the group's
 * tier's slowdown of the part it hides (overlapped_s). The overlap
 * switches use it: parallel.tp_overlap (a layer's tp collectives in chunks
 * beside the GEMMs whose inputs they gather and outputs they reduce,
 * Megatron-LM's userbuffers, torchtitan's async TP), ep_overlap and
 * pp_overlap. */
static double hidden_behind_s(const context *k, double compute_s, double transfer_s, int64_t n, int64_t per_node)
{
    transfer t = {0};
    transfer_add(k, &t, transfer_s, n, per_node);
    return overlapped_s(compute_s, t);
}

/* Context parallel: each layer passes the local K and V round the ring,
 * cp - 1 steps, twice the bytes backward (their gradients too); with
 * parallel.cp_overlap each step beside the attention of one block of
 * keys, a cp-th of the layer's (attention_f forward, 2.5 times backward). */
static void add_cp_layers(const context *k, stage_time *st, const flops_layer *x, double layers,
                          double attention_f)
{
    const int64_t cp = k->pl.size[TP_DIM_CP];
    if (cp == 1)
        return;
    const double kv_bytes = k->tokens * x->kv_width / k->kv_split * 2.0;
    const int64_t per_node = k->pl.per_node[TP_DIM_CP];
    const int same_node = per_node == cp;
    double step_f = net_p2p_s(&k->c->system, kv_bytes, same_node);
    double step_b = net_p2p_s(&k->c->system, 2.0 * kv_bytes, same_node);
    if (k->c->plan.cp_overlap) {
        step_f = hidden_behind_s(k, attention_f / (double)cp, step_f, cp, per_node);
        step_b = hidden_behind_s(k, 2.5 * attention_f / (double)cp, step_b, cp, per_node);
    }
    st->cp_f += layers * (double)(cp - 1) * step_f;
    st->cp_b += layers * (double)(cp - 1) * step_b;
}

/* Sharded weights: gather each layer before forward and backward,
 * reduce-scatter its gradients, overlapped with the layer (Wang et al.
 * 2025); a MoE layer's routed experts over their own edp replicas. share:
 * of the layers, those that recompute (their backward is bwd + recompute). */
static void add_shard_layers(const context *k, stage_time *st, const flops_layer *x, double layers,
                             const tp_estimate_result *out, double fwd, double bwd, double recompute,
                             double share)
{
    const tp_config *c = k->c;
    const int moe = x->experts_per_token > 0.0;
    const double params = moe ? k->moe_layer_params : k->layer_params;
    const int amsp = c->plan.sharding == TP_SHARD_AMSP;
    const int64_t n = out->shard_weights;
    const int64_t r = amsp ? c->plan.amsp[0][0] : shard_per_node(n, k->replicas_per_node);
    /* AMSP reduce-scatters over s_p and all-reduces the rest over s_g /
     * s_p (Chen et al. 2023 §IV-C1, C3); ZeRO-3 and FSDP over the
     * gradient shards */
    transfer gather = {0}, scatter = {0};
    shard_transfer_s(k, out, params, n, amsp ? n : out->shard_gradients, r, &gather, &scatter);
    if (moe) {
        const int64_t en = out->expert_shard_weights;
        shard_transfer_s(k, out, k->expert_params, en, out->expert_shard_gradients,
                         shard_per_node(en, k->edp_per_node), &gather, &scatter);
    }
    st->shard_f += layers * overlapped_s(fwd, gather);
    const transfer both = transfer_sum(gather, scatter);
    double shard_b = share * overlapped_s(bwd + recompute, both);
    if (share < 1.0) /* the layers that do not recompute: a partial recompute */
        shard_b += (1.0 - share) * overlapped_s(bwd, both);
    st->shard_b += layers * shard_b;
}

/* selective_op's recompute of one layer in its backward (torchtitan's
 * per-op policy, memory.c): the multiplies it does not keep, Llama's W_K,
 * W_O and W3 (GPT's K, W_O and fc2: half of each pair of matrices, a
 * third of SwiGLU's three), and every element-wise kernel (norms,
 * rotary, activation, residual adds), not the attention kernel. */
static double op_recompute_s(const context *k, const flops_layer *x, const layer_compute *f)
{
    double kv_flop;
    const double tp_split_flop = flops_op_recompute(k->c, x, &kv_flop);
    const double flop = k->tokens * (tp_split_flop / k->t + kv_flop / k->kv_split);
    return linear_gemm_s(k, flop, 3.0) + f->elementwise_s;
}

/* The tensor-parallel collectives selective_op repeats: the policy keeps
 * no collective's output but the reduce-scatter's (_save_list), so with
 * sequence parallelism the recompute gathers the normed inputs of W_K and
 * W3 again (the reduce-scatters after W_O and W2 are kept), and without
 * it runs the all-reduces after W_O and W2 again: the forward's. */
static double op_recompute_tp_s(const context *k, double tp_f)
{
    if (!k->c->plan.sp)
        return tp_f;
    const double bytes = k->tokens * (double)k->c->model.hidden * 2.0;
    return 2.0 * net_collective_s(&k->c->system, NET_ALL_GATHER, bytes, k->pl.size[TP_DIM_TP],
                                  k->pl.per_node[TP_DIM_TP]);
}

/* One direction of a MoE layer's compute as Megatron-Core's combined 1F1B
 * splits it: the rest of the layer (norms, attention, shared experts,
 * router, permutation), and the routed experts, their weight gradients
 * apart in the backward (delay_wgrad_compute). */
typedef struct {
    double rest_s, experts_s, experts_wgrad_s;
} layer_step;

/* With parallel.ep_overlap, Megatron-Core's combined 1F1B runs a MoE
 * layer's forward for one micro-batch beside its backward for another in
 * three steps, each stream's work in order (model_chunk_schedule_plan.py,
 * TransformerLayerSchedulePlan.run):
 *   comm    combine back  | dispatch fwd, dispatch back          | combine fwd
 *   compute rest fwd      | experts back, their wgrad, experts fwd | rest back
 * The backward's dispatch waits for the experts' input gradient and the
 * forward's experts for its dispatch. So each all-to-all hides behind the
 * compute beside it, not behind the whole other direction: a layer whose
 * attention is short next to its experts leaves the combines exposed.
 * ep_f and ep_b (dispatch and combine each, the same bytes) become what
 * each direction's all-to-alls add: what sticks out of the first step is
 * the backward's, of the last the forward's, of the middle theirs by
 * size; what hides costs the tier's overlap slowdown. */
static void ep_overlapped(const context *k, const layer_step *f, const layer_step *b, double *ep_f,
                          double *ep_b)
{
    const double a2a_f = *ep_f / 2.0, a2a_b = *ep_b / 2.0; /* a dispatch or a combine, each way */
    const double first = max_d(0.0, a2a_b - f->rest_s);
    const double last = max_d(0.0, a2a_f - b->rest_s);
    const double comm_end = max_d(a2a_f, b->experts_s) + a2a_b;
    const double compute_end = max_d(b->experts_s + b->experts_wgrad_s, a2a_f) + f->experts_s;
    const double middle = max_d(comm_end, compute_end) - (b->experts_s + b->experts_wgrad_s + f->experts_s);
    const double f_share = a2a_f + a2a_b > 0.0 ? a2a_f / (a2a_f + a2a_b) : 0.5;
    const double exposed_f = last + f_share * middle, exposed_b = first + (1.0 - f_share) * middle;
    const double slowdown = tier_slowdown(k, k->ep, k->ep_per_node);
    *ep_f = exposed_and_slowed_s(exposed_f, *ep_f, slowdown);
    *ep_b = exposed_and_slowed_s(exposed_b, *ep_b, slowdown);
}

/* Adds `layers` layers of one kind (x: dense or MoE) to a stage's
 * micro-batch: compute, tp, cp, expert and sharded-weight traffic. */
static void add_layers(const context *k, stage_time *st, const flops_layer *x, double layers,
                       int64_t stage_layers, const tp_estimate_result *out)
{
    const tp_config *c = k->c;
    const int full = c->training.recompute == TP_RECOMPUTE_FULL;
    /* the share of the layers that recompute: with full recompute
     * training.recompute_layers of the stage's stage_layers, selective
     * every layer */
    const double share = full ? recompute_share(c, stage_layers) : 1.0;

    const layer_compute f = layer_forward(k, x);
    const double fwd = f.gemm_s + f.attention_s + f.elementwise_s + f.apart_f_s;
    /* GEMM backward: two products (input and weight gradients) per forward one */
    const double bwd = 2.0 * f.gemm_s + 2.5 * f.attention_s + 2.0 * f.elementwise_s + f.apart_b_s;
    double recompute = 0.0; /* of one layer that recomputes */
    if (full)
        recompute = fwd;
    else if (c->training.recompute == TP_RECOMPUTE_SELECTIVE)
        recompute = f.attention_s;
    else if (c->training.recompute == TP_RECOMPUTE_SELECTIVE_OP)
        recompute = op_recompute_s(k, x, &f);
    const double module_flop = flops_module_recompute(c, x);
    if (module_flop > 0.0) /* the recompute_* modules' multiplies, two launches */
        recompute += linear_gemm_s(k, k->tokens * module_flop / k->t, 2.0);
    if (c->training.recompute_moe_act)
        recompute += f.moe_act_s;
    st->compute_f += layers * fwd;
    st->compute_b += layers * (bwd + share * recompute);
    st->layer_weights += layers * layer_weights(k, x);

    /* tensor parallel, again when the full recompute repeats the forward
     * (selective_op: its share, op_recompute_tp_s) */
    double tp_f, tp_b;
    tp_layer_s(k, x, &tp_f, &tp_b);
    if (c->plan.tp_overlap && k->summa_panels == 0.0) {
        const int64_t tp = k->pl.size[TP_DIM_TP], tp_per_node = k->pl.per_node[TP_DIM_TP];
        const double slowdown = c->plan.tp_overlap_userbuffers && net_within_node(tp, tp_per_node)
                              ? USERBUFFERS_SM_SHARE : tier_slowdown(k, tp, tp_per_node);
        tp_f = overlapped_s(f.gemm_s, (transfer){tp_f, slowdown * tp_f});
        tp_b = overlapped_s(2.0 * f.gemm_s, (transfer){tp_b, slowdown * tp_b});
    }
    st->tp_f += layers * tp_f;
    st->tp_b += layers * (tp_b + (full ? share * tp_f : 0.0));
    if (c->training.recompute == TP_RECOMPUTE_SELECTIVE_OP)
        st->tp_b += layers * op_recompute_tp_s(k, tp_f);

    /* MoE: dispatch and combine each way, again with full recompute; with
     * parallel.ep_overlap the forward's behind another micro-batch's
     * backward and the backward's behind a forward */
    if (x->experts_per_token > 0.0) {
        const double ep = expert_comm_s(k);
        double ep_f = ep, ep_b = ep * (full ? 1.0 + share : 1.0);
        if (c->plan.ep_overlap) {
            const double alone = ep_f + ep_b;
            const layer_step forward = {fwd - f.experts_gemm_s - f.experts_elementwise_f_s,
                                        f.experts_gemm_s + f.experts_elementwise_f_s, 0.0};
            const double experts_dgrad = f.experts_gemm_s + f.experts_elementwise_b_s
                                       + (c->training.recompute_moe_act ? f.moe_act_s : 0.0);
            const layer_step backward = {bwd + share * recompute - experts_dgrad - f.experts_gemm_s,
                                         experts_dgrad, f.experts_gemm_s};
            ep_overlapped(k, &forward, &backward, &ep_f, &ep_b);
            st->ep_alone += layers * (alone - ep_f - ep_b);
        }
        st->ep_f += layers * ep_f;
        st->ep_b += layers * ep_b;
    }
    add_cp_layers(k, st, x, layers, f.attention_s);
    if (out->shard_weights > 1)
        add_shard_layers(k, st, x, layers, out, fwd, bwd, recompute, share);
}

/* What activation offloading's host copies leave exposed in one direction
 * of one micro-batch (time.c's header): n copies of copy_s each, one after
 * another on the offload stream, beside layers of layer_s each, a stage of
 * `layers`. */
static double offload_exposed_s(double layers, double n, double copy_s, double layer_s)
{
    const transfer all = {n * copy_s, 0.0}, one = {copy_s, 0.0};
    return max_d(overlapped_s((layers - 2.0) * layer_s, all), overlapped_s((layers - n - 1.0) * layer_s, one));
}

/* Activation offloading on a stage whose layers took st's time so far:
 * each offloaded layer's sets (memory.c) cross the host link each way. */
static void add_offload(const context *k, stage_time *st, const tp_stage_memory *stage)
{
    const double n = (double)k->c->training.offload_layers;
    if (n <= 0.0)
        return;
    const double layers = (double)stage->layers;
    const double copy_s = stage->activation_parts.offloaded_bytes / n / k->gpu->host_bytes_per_s;
    st->offload_f = offload_exposed_s(layers, n, copy_s, sum_f(st) / layers);
    st->offload_b = offload_exposed_s(layers, n, copy_s, sum_b(st) / layers);
}

static stage_time stage_micro_batch(const context *k, const tp_stage_memory *stage,
                                    int has_embedding, int has_lm_head,
                                    const tp_estimate_result *out)
{
    const tp_config *c = k->c;
    const tp_system *sys = &c->system;
    const flops_layer *x = &k->x;
    const double activation_bytes = k->tokens * (double)c->model.hidden * 2.0;
    stage_time st = {0};
    const double moe_layers = (double)stage->experts.moe_layers;
    if ((double)stage->layers > moe_layers)
        add_layers(k, &st, &k->x, (double)stage->layers - moe_layers, stage->layers, out);
    if (moe_layers > 0.0)
        add_layers(k, &st, &k->moe_x, moe_layers, stage->layers, out);
    add_offload(k, &st, stage);

    /* the embedding's output: all-reduced over tp, or reduce-scattered
     * into the sequence-parallel layout */
    const int64_t tp_n = k->pl.size[TP_DIM_TP], tp_r = k->pl.per_node[TP_DIM_TP];
    if (has_embedding) {
        st.compute_f += elementwise_s(k, 2.0 * activation_bytes, 0.0);
        st.compute_b += elementwise_s(k, 4.0 * activation_bytes, 0.0);
        if (x->embedding_flop > 0.0) { /* a ViT's patch linear, split like the head */
            const double flop = k->tokens * x->embedding_flop / k->t;
            st.compute_f += gemm_s(k, flop, 1.0);
            st.compute_b += gemm_s(k, 2.0 * flop, 2.0);
        }
        st.tp_f += net_collective_s(sys, c->plan.sp ? NET_REDUCE_SCATTER : NET_ALL_REDUCE,
                                    activation_bytes, tp_n, tp_r);
    }
    if (has_lm_head) {
        const double flop = k->tokens * x->lm_head_flop / k->t;
        const double logits = k->tokens * model_output_width(&c->model) / k->t;
        const double panels = k->summa_panels > 0.0 ? k->summa_panels : 1.0;
        st.compute_f += gemm_s(k, flop, panels) + elementwise_s(k, logits * x->loss_bytes_per_logit / 2.0, 0.0);
        st.compute_b += gemm_s(k, 2.0 * flop, 2.0 * panels) + elementwise_s(k, logits * x->loss_bytes_per_logit / 2.0, 0.0);
        /* with sequence parallelism the head's input is gathered forward and
         * its gradient reduce-scattered backward; without, the input is
         * already whole and its gradient is all-reduced backward; with
         * SUMMA the head is one more SUMMA multiply */
        if (k->summa_panels > 0.0) {
            const double head = summa_multiply_s(k, (double)c->model.hidden, model_output_width(&c->model),
                                                 k->t, k->summa_panels);
            st.tp_f += head;
            st.tp_b += 2.0 * head;
        } else if (c->plan.sp) {
            st.tp_f += net_collective_s(sys, NET_ALL_GATHER, activation_bytes, tp_n, tp_r);
            st.tp_b += net_collective_s(sys, NET_REDUCE_SCATTER, activation_bytes, tp_n, tp_r);
        } else {
            st.tp_b += net_collective_s(sys, NET_ALL_REDUCE, activation_bytes, tp_n, tp_r);
        }
    }

    /* pipeline sends: activation forward, gradient backward, each tp rank's
     * 1/t share of the tensor unless parallel.pp_send_whole; each beside
     * the opposite receive, or after it with parallel.pp_serial_sends */
    const int64_t pp = k->pl.size[TP_DIM_PP];
    if (pp > 1) {
        const int same_node = k->pl.per_node[TP_DIM_PP] > 1;
        const double chunks = (double)c->plan.virtual_stages;
        const double send_bytes = c->plan.pp_send_whole && !c->plan.sp ? activation_bytes : activation_bytes / k->t;
        const double transfers = c->plan.pp_serial_sends ? 4.0 : 2.0;
        st.p2p = transfers * chunks * net_p2p_s(sys, send_bytes, same_node);
        if (c->plan.pp_overlap && c->plan.schedule == TP_SCHEDULE_INTERLEAVED)
            st.p2p = hidden_behind_s(k, sum_f(&st) + sum_b(&st), st.p2p, pp, k->pl.per_node[TP_DIM_PP]);
    }
    return st;
}

/* AMSP's once-per-step and per-micro-batch collectives (Chen et al. 2023
 * §IV-C), each over the mesh of ranks that hold the same parameter shard: s^0
 * of a group's ranks share a node, s^1 span nodes, so a group of x^0 x^1 ranks
 * divided by s_p^0 s_p^1 has x^0 / s_p^0 ranks per node.
 *   T_g    (M - 1) all-reduces of the Phi / s_p gradients over s_g / s_p
 *          ranks, each overlapped with a backward (eq. for T_g);
 *   T_os^0 one all-reduce of them over s_dp / s_p ranks after the last
 *          backward, overlapped with it;
 *   T_os^1 s_os / s_p broadcasts of 2 Phi / s_os bytes (together the
 *          Phi / s_p updated weights) over s_os / s_p ranks, overlapped
 *          with the next step's forward. */
static void amsp_step_s(const context *k, const tp_estimate_result *out, double grad_bytes,
                        int64_t replicas, double backward_s, transfer *reduce, transfer *gather,
                        double *per_micro_batch)
{
    const tp_config *c = k->c;
    const tp_system *sys = &c->system;
    const int64_t (*s)[2] = c->plan.amsp;
    const double shard_bytes = grad_bytes / (double)out->shard_weights;
    const double m = (double)out->micro_batches;

    const int64_t g = out->shard_gradients / out->shard_weights;
    if (g > 1 && m > 1.0) {
        const int64_t g_per_node = s[1][0] / s[0][0];
        transfer t_g = {0};
        add_collective(k, &t_g, NET_ALL_REDUCE, shard_bytes, g, g_per_node);
        *per_micro_batch = (m - 1.0) / m * overlapped_s(backward_s, t_g);
    }
    const int64_t d = replicas / out->shard_weights;
    const int64_t d_per_node = k->replicas_per_node / s[0][0] > 1 ? k->replicas_per_node / s[0][0] : 1;
    add_collective(k, reduce, NET_ALL_REDUCE, shard_bytes, d, d_per_node);

    const int64_t o = out->shard_optimizer / out->shard_weights, o_per_node = s[2][0] / s[0][0];
    const double weight_bytes = shard_bytes / out->bytes_per_param.gradients * out->bytes_per_param.weights;
    const double broadcast_s = net_collective_s(sys, NET_BROADCAST, weight_bytes / (double)o, o, o_per_node);
    transfer_add(k, gather, (double)o * broadcast_s, o, o_per_node);
}

/* Once-per-step traffic of one set of parameters over the replicas that
 * hold it (the dense states over the dp*cp ranks, the routed experts over
 * their edp), sharded weights/gradients/optimizer over w/g/o of them:
 * unsharded gradients are reduced once (reduce-scattered when the optimizer
 * is sharded, unless parallel.grad_all_reduce); sharded ones are
 * reduce-scattered every micro-batch inside the shard group (into *scatter,
 * which each backward hides) and all-reduced across groups; updated weights
 * are gathered when only the optimizer is sharded. Each figure adds to what
 * the caller has. */
static void replica_step_s(const context *k, const tp_estimate_result *out, double params,
                           int64_t w, int64_t g, int64_t o, int64_t replicas, int64_t per_node,
                           transfer *reduce, transfer *gather, transfer *scatter)
{
    const double grad_bytes = params * out->bytes_per_param.gradients;
    if (g == 1) {
        const int scatter_grads = o > 1 && !k->c->plan.grad_all_reduce;
        add_collective(k, reduce, scatter_grads ? NET_REDUCE_SCATTER : NET_ALL_REDUCE, grad_bytes, replicas,
                       per_node);
    } else {
        const int64_t r = shard_per_node(g, per_node);
        if (w == 1)
            add_collective(k, scatter, NET_REDUCE_SCATTER, grad_bytes, g, r);
        /* hybrid: the shards are replicated across replicas / g groups */
        const int64_t gr = per_node / r > 1 ? per_node / r : 1;
        add_collective(k, reduce, NET_ALL_REDUCE, grad_bytes / (double)g, replicas / g, gr);
    }
    if (w == 1 && o > 1) {
        const int64_t r = shard_per_node(o, per_node);
        add_collective(k, gather, NET_ALL_GATHER, params * out->bytes_per_param.weights, o, r);
    }
}

/* The expected largest of n standard normal draws: Blom's formula
 * Phi^-1((n - 0.375)/(n + 0.25)), its upper-tail quantile by Abramowitz
 * and Stegun 26.2.23 (error below 4.5e-4); together within 0.025 of the
 * exact mean (0.025 high at two draws, 0.016 low at a million). 0 for one
 * GPU, which waits for no other. */
static double slowest_of_n_sigmas(int64_t n)
{
    if (n <= 1)
        return 0.0;
    const double tail = 0.625 / ((double)n + 0.25); /* 1 - (n - 0.375)/(n + 0.25) */
    const double t = sqrt(-2.0 * log(tail));
    return t - (2.515517 + t * (0.802853 + t * 0.010328))
             / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
}

/* One micro-batch's delivery by one process's data loader (header). */
static double loader_micro_batch_s(const tp_config *c)
{
    const double s = (double)c->training.seq_len;
    const double sample_bytes = 28.0 * s + (c->training.dataloader_mask ? s * s : 0.0);
    return (double)c->training.micro_batch * sample_bytes / c->system.loader_bytes_per_s;
}

/* What every stage's time shares: the achieved rates, one layer's FLOPs,
 * the placement, SUMMA's figures, the expert grid's groups. */
static void prepare_context(context *k, const tp_config *c, const model_layers *layers, const tp_estimate_result *out,
                            double slowest_gpu)
{
    const model_layer *layer = &layers->dense;
    k->c = c;
    k->gpu = &c->system.gpu;
    const double slowest_peak = k->gpu->tensor_flop_per_s / (1.0 + slowest_gpu);
    k->matmul_flop_per_s = slowest_peak * k->gpu->matmul_efficiency;
    k->attention_flop_per_s = slowest_peak * k->gpu->attention_efficiency * attention_kernel_factor(c);
    k->linear_peak_flop_per_s = c->training.fp4 ? k->gpu->fp4_flop_per_s
                              : c->training.fp8 ? k->gpu->fp8_flop_per_s : k->gpu->tensor_flop_per_s;
    const fp8_cost *recipe = &fp8_costs[c->training.fp4 ? TP_FP8_MXFP8 : c->training.fp8_recipe];
    /* Blackwell's tensor cores accumulate fp8 products at full precision
     * and scale blocks themselves: no recipe slows them */
    const int block_scaled = gpu_blackwell_tensor_cores(k->gpu);
    k->linear_flop_per_s = k->linear_peak_flop_per_s / (1.0 + slowest_gpu) * k->gpu->matmul_efficiency
                         * (c->training.fp8 && !block_scaled ? recipe->gemm_factor : 1.0);
    /* a bf16 tensor cast again in the backward: at least as the forward did */
    const double recast = max_d(recipe->input_b, recipe->input_f);
    const double kernels = c->training.fp8_casts == TP_FP8_CASTS_COMPILED ? recipe->compiled_factor : 1.0;
    k->cast_input_f = kernels * recipe->input_f;
    const int kept_fp8 = c->training.fp8_activations && !c->training.recompute_elementwise;
    k->cast_input_b = kernels * (kept_fp8 ? recipe->input_b : recast);
    k->cast_gradient = kernels * recipe->gradient;
    /* the weights' casts in every micro-batch without the cache; with it
     * once a step (stage_step_s) */
    k->cast_weight_f = k->cast_weight_b = k->cast_weight_step = 0.0;
    if (c->training.fp8 && !c->training.fp8_params) {
        if (c->training.fp8_weight_cache) {
            k->cast_weight_step = kernels * recipe->input_f;
        } else {
            k->cast_weight_f = kernels * recipe->input_f;
            k->cast_weight_b = kernels * recast;
        }
    }
    /* packed documents attend within themselves (validate.c: fused attention only) */
    const double span = model_attention_span(&c->model,
                                             c->training.document_tokens > 0 ? c->training.document_tokens
                                                                             : c->training.seq_len,
                                             c->training.flash_attention);
    k->x = flops_describe_layer(&c->model, layer, span, c->training.eager);
    k->moe_x = c->model.moe.experts > 0 ? flops_describe_layer(&c->model, &layers->moe, span, c->training.eager)
                                          : k->x;
    k->pl = place(c, out->dp);
    k->tokens = (double)c->training.micro_batch * (double)c->training.seq_len / (double)c->plan.cp;
    k->t = (double)c->plan.tp;
    k->kv_split = model_kv_split(layer, c->plan.tp);
    k->layer_params = model_layer_params_per_gpu(layer, c->plan.tp) / (double)plan_cp_weight_split(&c->plan);
    k->moe_layer_params = model_layer_params_per_gpu(&layers->moe, c->plan.tp);
    const int summa = c->plan.tp_algorithm == TP_TP_SUMMA;
    k->replicas_per_node = k->pl.per_node[TP_DIM_DP] * (summa ? 1 : k->pl.per_node[TP_DIM_CP]);
    k->summa_panels = k->summa_layer_f = k->summa_around = 0.0;
    k->ep = out->ep;
    k->etp = out->etp;
    k->edp = out->edp;
    const double graphed_s = GRAPHED_LATENCY_SHARE * k->gpu->kernel_latency_s;
    k->kernel_latency_s = c->training.cuda_graphs != TP_CUDA_GRAPHS_NONE ? graphed_s : k->gpu->kernel_latency_s;
    k->expert_kernel_latency_s = c->training.cuda_graphs == TP_CUDA_GRAPHS_FULL ? graphed_s
                                                                               : k->gpu->kernel_latency_s;
    k->expert_gemm_launches = c->training.grouped_gemm ? 1.0 : (double)c->model.moe.experts / (double)k->ep;
    k->expert_extra = unfused_expert_extra_bytes(c, k->etp);
    k->expert_params = 0.0;
    k->etp_per_node = k->ep_per_node = k->edp_per_node = 1;
    if (c->model.moe.experts > 0) {
        k->expert_params = model_expert_params_per_gpu(&layers->moe, k->ep, k->etp);
        const int64_t pool_per_node = k->pl.per_node[TP_DIM_TP] * k->replicas_per_node;
        k->etp_per_node = k->etp < pool_per_node ? k->etp : pool_per_node;
        k->ep_per_node = net_ranks_per_node(k->ep, k->etp, pool_per_node);
        k->edp_per_node = net_ranks_per_node(k->edp, k->ep * k->etp, pool_per_node);
    }
    if (summa)
        summa_prepare(k, layer);
}

/* Once per step on a stage: gradient reduction and parameter gather over
 * the data-parallel replicas, overlapped with the last backward (unless
 * parallel.grad_all_reduce) and the next first forward (exposed), and what
 * each micro-batch's backward leaves exposed of its own reduce-scatter
 * (per_micro_batch). */
static void stage_replica_s(const context *k, const tp_estimate_result *out, const tp_stage_memory *stage, double f,
                            double b, double *exposed, double *per_micro_batch)
{
    const tp_config *c = k->c;
    const int64_t replicas = plan_replicas(&c->plan, out->dp); /* ranks holding the same parameters */
    const double params = stage->params - stage->experts.params;
    transfer reduce = {0}, gather = {0}, per_micro_batch_transfer = {0};
    *per_micro_batch = 0.0;
    if (c->plan.sharding == TP_SHARD_AMSP) {
        amsp_step_s(k, out, params * out->bytes_per_param.gradients, replicas, b, &reduce, &gather, per_micro_batch);
    } else {
        replica_step_s(k, out, params, out->shard_weights, out->shard_gradients, out->shard_optimizer, replicas,
                       k->replicas_per_node, &reduce, &gather, &per_micro_batch_transfer);
        if (stage->experts.params > 0.0) /* MoE is never AMSP */
            replica_step_s(k, out, stage->experts.params, out->expert_shard_weights, out->expert_shard_gradients,
                           out->expert_shard_optimizer, k->edp, k->edp_per_node, &reduce, &gather,
                           &per_micro_batch_transfer);
        *per_micro_batch = overlapped_s(b, per_micro_batch_transfer);
    }
    /* DeepSpeed's pipeline engine reduces once the last backward is done */
    const double reduce_behind_s = c->plan.grad_all_reduce ? 0.0 : b;
    *exposed = overlapped_s(reduce_behind_s, reduce) + overlapped_s(f, gather);
}

/* One stage's step, its parts in *t (the micro-batch figures and the
 * once-per-step ones); returns its length without the bubble. */
static double stage_step_s(const context *k, const tp_estimate_result *out, const tp_stage_memory *stage,
                           const stage_time *st, double loader, tp_time *t)
{
    const double m = (double)out->micro_batches;
    const double f = sum_f(st), b = sum_b(st);
    double exposed, per_micro_batch;
    stage_replica_s(k, out, stage, f, b, &exposed, &per_micro_batch);
    const tp_bytes_per_param *bpp = &out->bytes_per_param;
    const double params = stage->params - stage->experts.params;
    const double opt_bytes = (params / (double)out->shard_optimizer
                              + stage->experts.params / (double)out->expert_shard_optimizer)
                           * (2.0 * (bpp->optimizer_states + bpp->master_weights) + bpp->gradients + bpp->weights);
    const double own = f + b + st->p2p + per_micro_batch;
    const double wait = loader > own ? loader - own : 0.0; /* the loader sets the pace */
    t->micro_batch_compute_s = st->compute_f + st->compute_b;
    t->micro_batch_tp_s = st->tp_f + st->tp_b;
    t->micro_batch_cp_s = st->cp_f + st->cp_b;
    t->micro_batch_ep_s = st->ep_f + st->ep_b;
    t->micro_batch_p2p_s = st->p2p;
    t->micro_batch_offload_s = st->offload_f + st->offload_b;
    t->micro_batch_dp_s = st->shard_f + st->shard_b + per_micro_batch;
    t->dp_step_s = exposed;
    /* with ep_overlap: the micro-batch directions that run alone (header),
     * no more than there are */
    const double pp = (double)k->c->plan.pp;
    t->ep_step_s = (pp < m ? pp : m) * st->ep_alone;
    t->weight_cast_s = elementwise_s(k, k->cast_weight_step * st->layer_weights, 0.0);
    t->optimizer_bytes = opt_bytes;
    t->optimizer_s = opt_bytes / k->gpu->hbm_bytes_per_s;
    t->forward_s = f;
    t->backward_s = b;
    t->micro_batch_s = own;
    t->data_wait_s = m * wait;
    return m * (own + wait) + exposed + t->ep_step_s + t->weight_cast_s + t->optimizer_s;
}

/* The step's items from its slowest stage's micro-batch figures. */
static void finish_step(tp_time *t, const tp_estimate_result *out, const tp_config *c)
{
    const double m = (double)out->micro_batches;
    const double p = (double)c->plan.pp;
    t->compute_s = m * t->micro_batch_compute_s + t->weight_cast_s;
    t->tp_comm_s = m * t->micro_batch_tp_s;
    t->cp_comm_s = m * t->micro_batch_cp_s;
    t->ep_comm_s = m * t->micro_batch_ep_s + t->ep_step_s;
    t->pp_comm_s = m * t->micro_batch_p2p_s;
    t->offload_s = m * t->micro_batch_offload_s;
    t->dp_comm_s = m * t->micro_batch_dp_s + t->dp_step_s;
    t->bubble_s = p > 1.0 ? (p - 1.0) / (double)c->plan.virtual_stages * t->bubble_micro_batch_s : 0.0;
    t->step_overhead_s = c->training.cuda_graphs == TP_CUDA_GRAPHS_FULL ? 0.0 : c->system.step_overhead_s;
    t->step_s = t->compute_s + t->tp_comm_s + t->cp_comm_s + t->ep_comm_s + t->pp_comm_s + t->dp_comm_s
              + t->offload_s + t->bubble_s + t->optimizer_s + t->data_wait_s + t->step_overhead_s;
}

static void throughput(const tp_config *c, const context *k, const tp_time *t, tp_throughput *th)
{
    flops_per_step(c, &k->x, &k->moe_x, &th->model_flop_per_step, &th->hardware_flop_per_step);
    const double gpus = (double)c->system.gpus;
    const double tokens = (double)c->training.global_batch * (double)c->training.seq_len;
    th->tokens_per_s_per_gpu = tokens / t->step_s / gpus;
    th->model_flop_per_s_per_gpu = th->model_flop_per_step / t->step_s / gpus;
    th->hardware_flop_per_s_per_gpu = th->hardware_flop_per_step / t->step_s / gpus;
    th->mfu = th->model_flop_per_s_per_gpu / k->gpu->tensor_flop_per_s;
    th->hfu = th->hardware_flop_per_s_per_gpu / k->gpu->tensor_flop_per_s;
    th->mfu_peak_flop_per_s = k->gpu->tensor_flop_per_s;
    th->linear_peak_flop_per_s = k->linear_peak_flop_per_s;
    th->time_to_train_s = c->training.train_tokens / (th->tokens_per_s_per_gpu * gpus);
    th->gpu_hours = th->time_to_train_s * gpus / UNIT_HOUR_S;
    th->cost = th->gpu_hours * c->training.gpu_hour_cost;
}

/* The mean layers of the p - 2 middle stages: what the first and the last
 * leave (out's stages are first, middle, last). */
static double middle_mean_layers(const tp_config *c, const tp_estimate_result *out)
{
    const int64_t ends = out->stages[0].layers + out->stages[out->stage_count - 1].layers;
    return (double)(c->model.layers - ends) / (double)(c->plan.pp - 2);
}

void time_estimate(const tp_config *c, const model_layers *layers, tp_estimate_result *out)
{
    const double slowest_gpu = c->system.gpu.compute_spread * slowest_of_n_sigmas(c->system.gpus);
    context k;
    prepare_context(&k, c, layers, out, slowest_gpu);
    const double loader = loader_micro_batch_s(c);
    const double p = (double)c->plan.pp;
    tp_time best = {0};
    double stage_sum = 0.0, stage_weight = 0.0, slowest = -1.0;
    for (int i = 0; i < out->stage_count; i++) {
        const tp_stage_memory *stage = &out->stages[i];
        const stage_time st = stage_micro_batch(&k, stage, stage->has_embedding, stage->has_lm_head, out);
        /* the bubble: a micro-batch averaged over the pipeline's stages,
         * the middle one standing for the p - 2 between the ends: with an
         * uneven split (plan_split_layers) it holds the most layers of
         * them, so its layers' time is scaled to their mean (the same mix
         * of dense and MoE layers assumed), its sends kept */
        const int end = stage->has_embedding || stage->has_lm_head;
        const double weight = end ? 1.0 : p - 2.0;
        const double layer_scale = end ? 1.0 : middle_mean_layers(c, out) / (double)stage->layers;
        stage_sum += weight * (layer_scale * (sum_f(&st) + sum_b(&st)) + st.p2p);
        stage_weight += weight;
        tp_time t = {0};
        const double length = stage_step_s(&k, out, stage, &st, loader, &t);
        if (length > slowest) {
            slowest = length;
            best = t;
        }
    }
    best.bubble_micro_batch_s = stage_sum / stage_weight;
    best.summa_panels = (int64_t)k.summa_panels;
    best.micro_batch_loader_s = loader;
    best.slowest_gpu_slowdown = slowest_gpu;
    finish_step(&best, out, c);
    out->time = best;
    throughput(c, &k, &best, &out->throughput);
}
