/*
 * frameworks.c: what each training framework does by default that changes
 * the estimate, each fact with the code it is read from. A config names its
 * trainer in training.framework; the JSON reader then takes these facts as
 * the defaults of the fields they belong to, before it reads the fields the
 * config gives (config_json.c), so a config can still override each one.
 *
 * The cross-entropy's workspace (overheads.loss_bytes_per_logit) is memory
 * on the LM-head stage beyond the 4 B of fp32 logits per logit that Fujii
 * et al. 2024 eq. 14 counts:
 *   6 B  the bf16 logits (2 B) and a second fp32 tensor (4 B) alive with
 *        the first: Megatron's vocab-parallel cross-entropy subtracting the
 *        max out of place, torchtitan's `cross_entropy(pred.float())`, which
 *        keeps the fp32 copy and the log-softmax for the backward;
 *   2 B  Megatron-Core's fused cross-entropy (--cross-entropy-loss-fusion,
 *        which NeMo's and Megatron-Bridge's recipes turn on): the bf16
 *        logits and one fp32 copy, exponentiated in place
 *        (fusions/fused_cross_entropy.py), 6 B in all;
 *   0 B  a fused kernel over the bf16 logits that keeps only a log-sum-exp
 *        per token (flash-attn's cross-entropy, llm-foundry's default; the
 *        kernels torch.compile builds for torchtitan's loss when its
 *        compile option is on, components/loss.py since bbb1b616e,
 *        2025-04): the bf16 logits and their gradient fit inside eq. 14's
 *        4 B.
 * The compiled figure follows training.eager (tp_framework_compile_defaults),
 * so a torchtitan run with compile on counts 0 B and an eager one 6 B.
 *
 * Element-wise results (training.recompute_elementwise): torch.compile's
 * min-cut partitioner (AOTAutograd's default with Inductor) saves for the
 * backward only what a fused kernel cannot cheaply rebuild, so a compiled
 * torchtitan layer keeps its norms' inputs and its matrix multiplies'
 * outputs and recomputes the norms' outputs and SwiGLU's product inside
 * the backward's kernels; eager PyTorch, Transformer Engine's
 * LayerNormLinear (which saves its normalised input for the weight
 * gradient) and Megatron's fused SwiGLU keep them. It follows
 * training.eager with the loss's figure.
 *
 * SwiGLU (training.fused_swiglu): Megatron-Core runs it as one kernel that
 * saves only its input, the gate and up projections (bias_swiglu_impl,
 * fused_bias_swiglu.py, on by --bias-swiglu-fusion's default and NeMo's
 * Llama configs' bias_activation_fusion); eager PyTorch (torchtitan's and
 * Hugging Face's w2(silu(w1(x)) * w3(x))) keeps the SiLU's output too.
 *
 * fp8 activations (training.precision.fp8_activations): Transformer Engine's
 * Linear and LayerNormLinear save the fp8 cast of their input for the weight
 * gradient (module/linear.py, saved_inputmat), so the norms' outputs and the
 * second MLP matrix's input take 1 B, and the attention projection's fp8
 * input is a copy beside the bf16 output FlashAttention keeps; torchao's
 * Float8Linear, torchtitan's fp8, saves the bf16 input and casts it again in
 * the backward (float8/float8_linear.py, matmul_with_hp_or_float8_args).
 *
 * fp8 weight cache (training.precision.fp8_weight_cache): Transformer
 * Engine's layers cast their weights on the first micro-batch of a step and
 * keep the fp8 copy and its transpose for the others (is_first_microbatch,
 * module/base.py); torchao's Float8Linear casts the bf16 weight in every
 * forward and again in every backward, keeping no copy from one
 * micro-batch to the next.
 *
 * fp8 recipe (training.precision.fp8_recipe): Megatron-LM's --fp8-recipe
 * defaults to delayed (arguments.py), as NeMo's MegatronMixedPrecision and
 * Transformer Engine's DelayedScaling, which llm-foundry's te layers take;
 * torchao's Float8Linear, torchtitan's fp8, scales per tensor from the
 * tensor's own amax (Float8LinearRecipeName.TENSORWISE, its default).
 *
 * Routed experts' GEMMs (training.grouped_gemm): Megatron-Core's MoE with
 * Transformer Engine runs each expert matrix through GroupedLinear, which
 * launches one cuBLAS GEMM per local expert over a few streams
 * (common/gemm/cublaslt_gemm.cu, multi_stream_cublas_gemm, the default path
 * of nvte_multi_tensor_gemm; CUTLASS's grouped kernel only on request,
 * NVTE_USE_CUTLASS_GROUPED_GEMM, Hopper); torchtitan's MoE calls
 * torch._grouped_mm, one kernel a matrix; DeepSpeed-MoE loops over its
 * experts' modules.
 *
 * Routing weights (training.routing_weights_in_activation): since
 * Megatron-Core core_r0.13 (MR 2668, "memory efficient token permutation",
 * 2025-04) the token permutation carries each copy's router weight to the
 * experts, whose fused SwiGLU multiplies it in (weighted_bias_swiglu_impl),
 * and the combine's unpermute adds the outputs unweighted, keeping
 * nothing; NeMo 2 and Megatron-Bridge train through it. torchtitan's MoE
 * multiplies the scores into the tokens or the outputs outside the
 * experts, DeepSpeed-MoE's combine and llm-foundry's MegaBlocks scatter
 * weigh the outputs: each keeps a 2h-byte tensor a copy for that product's
 * backward.
 *
 * Expert biases and the clamped activation (training.unfused_expert_extras),
 * gpt-oss's: Megatron-Core's TEGroupedMLP clamps the first matrix's output
 * in weighted_bias_quick_geglu_impl (fusions/fused_bias_geglu.py, since
 * 2e29a5e1e3, 2025-09) with two clamps and a concatenation in PyTorch
 * before the fused activation, and adds the second matrix's bias after it,
 * weighed by each copy's router weight, in PyTorch (_apply_bias, since
 * a329dd6da5, 2025-09; packed into one pass since 883533e049, 2026-08, with
 * the same traffic); NeMo 2 and Megatron-Bridge train through it. The
 * others' gpt-oss code is not read here, and counts nothing.
 *
 * YaRN's rotary embedding (training.unfused_yarn_rope): Megatron-LM fuses
 * RoPE only where position_embedding_type is rope (training/arguments.py
 * turns apply_rope_fusion off otherwise), Megatron-Bridge likewise
 * (utils/fusions.py, validate_rope_fusion_compatibility), and since
 * core_v0.16 Megatron-Core falls back to its unfused RoPE for any YaRN
 * scale other than 1, which Transformer Engine's fused kernel does not
 * take (models/common/embeddings/rope_utils.py). The others' YaRN code is
 * not read here, and counts nothing.
 *
 * FSDP under pipeline parallelism (parallel.pp_gather_once): PyTorch's
 * pipeline schedules, which torchtitan runs, turn FSDP2's gradient sync
 * and its resharding after backward off for every micro-batch but the
 * last, then reduce-scatter every stage's gradients at once
 * (torch/distributed/pipelining/stage.py, backward_maybe_with_nosync),
 * and torchtitan does not reshard after forward with pp
 * (parallelize.py): weights and gradients stay whole through the step.
 *
 * Tensor-parallel overlap (parallel.tp_overlap_userbuffers): Megatron-Core
 * and NeMo run --tp-comm-overlap through Transformer Engine's userbuffers,
 * whose defaults (pytorch/module/base.py, initialize_ub, 1.x to 2.x) put
 * the all-gathers before the QKV and first MLP GEMMs and the backward's
 * gathers of the output gradients on a ring exchange by the copy engines
 * with one SM (num_sm 1, use_ce), and the forward's reduce-scatters
 * (pipeline) and the backward's overlaps beside the input's dgrad and
 * wgrad (bulk) on 16 SMs. torchtitan's async TP splits each GEMM by rank
 * beside PyTorch's symmetric-memory transfers and is counted, as the
 * others' collectives are, at system.gpu.nvlink_overlap_slowdown.
 *
 * Pipeline sends (parallel.pp_overlap): Megatron-LM posts the interleaved
 * schedule's sends and receives before a chunk's compute and waits after it
 * (--overlap-p2p-communication, default on; arguments.py turns it off
 * without virtual stages); the others are counted exposed.
 *
 * DeepSpeed's pipeline engine (parallel.pp_send_whole, parallel.pp_serial_sends,
 * parallel.grad_all_reduce), which Megatron-DeepSpeed trains through: every
 * tensor-parallel rank sends its stage's whole output tensor to the next
 * stage (runtime/pipe/engine.py, _exec_send_activations), where Megatron-LM
 * sends 1/tp of it and gathers the rest over NVLink (Narayanan et al. SC21
 * section 4.1); its TrainSchedule (runtime/pipe/schedule.py) gives each
 * forward step a SendGrad and a RecvActivation and each backward step a
 * RecvGrad and a SendActivation, each a blocking send or receive, where
 * Megatron-LM posts a send with the opposite receive; and it reduces
 * the gradients once the last micro-batch's backward is done, with bf16
 * through its BF16_Optimizer, ZeRO-1 of its own, which all-reduces the whole
 * fp32 gradient accumulators (_exec_reduce_grads, _bf16_reduce_grads,
 * get_grads_for_reduction) before each rank updates its shard.
 *
 * Attention kernel (training.attention_kernel): llm-foundry's MPT yamls
 * (scripts/train/yamls/pretrain/mpt-*.yaml at 5e85bd62d) and its benchmark
 * script (scripts/train/benchmarking/submit_benchmarks.py, --attn_impl
 * default) run attn_impl triton, FlashAttention written in Triton.
 * Megatron-Core and NeMo run attention through Transformer Engine's
 * DotProductAttention, whose fused backend is cuDNN's (cudnn; with cuDNN 9,
 * written for Hopper). torchtitan calls PyTorch's SDPA (sdpa), counted at
 * FlashAttention-2 on NVIDIA GPUs and at AOTriton's Triton kernels on
 * AMD's (time.c); SDPA chooses its back end at run time (PyTorch 2.11
 * chose cuDNN's on our H100, tests/device/), so a torchtitan run on a
 * recent PyTorch may be faster than this says. Megatron-DeepSpeed is
 * counted at FlashAttention-2 (flash).
 *
 * fp8 casts (training.precision.fp8_casts): Transformer Engine casts with
 * its fused amax, cast and transpose kernels; torchao's Float8Linear, as
 * torchtitan runs it, leaves its casts to torch.compile (torchtitan warns
 * that float8 wants compile on).
 *
 * Element-wise kernels (training.eager): torchtitan trains eager unless
 * its compile option is on (compile = false in its train_configs at
 * 9dec370), and its Llama writes RMSNorm, rotary and SwiGLU in plain
 * PyTorch operations; Megatron-Core and NeMo run Transformer Engine's
 * fused norms and Megatron's fused rotary and SwiGLU; llm-foundry's MPT
 * (LayerNorm, GeLU, ALiBi) and Megatron-DeepSpeed's GPT have no RMSNorm
 * or rotary to unfuse.
 *
 * PyTorch FSDP's mixed precision (training.precision.fsdp_mixed_precision)
 * shards the fp32 parameters themselves and casts to bf16 only what it
 * gathers, where Megatron's distributed optimizer keeps a bf16 copy and a
 * separate fp32 master.
 */
#include "tp_internal.h"

typedef struct {
    double loss_bytes_per_logit; /* overheads.loss_bytes_per_logit, eager */
    double compiled_loss_bytes_per_logit; /* the same with training.eager false */
    int fsdp_mixed_precision; /* training.precision.fsdp_mixed_precision */
    int fused_swiglu;         /* training.fused_swiglu */
    int fp8_activations;      /* training.precision.fp8_activations */
    int pp_overlap;           /* parallel.pp_overlap */
    tp_fp8_recipe fp8_recipe; /* training.precision.fp8_recipe */
    int pp_gather_once;       /* parallel.pp_gather_once */
    int pp_send_whole;        /* parallel.pp_send_whole */
    int pp_serial_sends;      /* parallel.pp_serial_sends */
    int grad_all_reduce;      /* parallel.grad_all_reduce */
    int tp_overlap_userbuffers; /* parallel.tp_overlap_userbuffers */
    int fp8_weight_cache;     /* training.precision.fp8_weight_cache */
    tp_attention_kernel attention_kernel; /* training.attention_kernel */
    tp_fp8_casts fp8_casts;               /* training.precision.fp8_casts */
    int eager;                            /* training.eager */
    int grouped_gemm;                     /* training.grouped_gemm */
    int routing_weights_in_activation;    /* training.routing_weights_in_activation */
    int unfused_expert_extras;            /* training.unfused_expert_extras */
    int unfused_yarn_rope;                /* training.unfused_yarn_rope */
    int compiled_recompute_elementwise;   /* training.recompute_elementwise, eager false */
    const char *source;
} framework_facts;

/* Each trainer's facts by name; the fields the config sets them in are
 * named beside the struct's members above. */
static const framework_facts facts[TP_FRAMEWORK_COUNT] = {
    [TP_FRAMEWORK_MEGATRON_CORE] = {
        .loss_bytes_per_logit = 6.0, .compiled_loss_bytes_per_logit = 6.0, .fsdp_mixed_precision = 0, .fused_swiglu = 1, .fp8_activations = 1,
        .pp_overlap = 1, .fp8_recipe = TP_FP8_DELAYED, .pp_gather_once = 0, .fp8_weight_cache = 1,
        .tp_overlap_userbuffers = 1,
        .attention_kernel = TP_ATTENTION_KERNEL_CUDNN, .fp8_casts = TP_FP8_CASTS_FUSED, .eager = 0, .grouped_gemm = 0,
        .routing_weights_in_activation = 1, .unfused_expert_extras = 1, .unfused_yarn_rope = 1,
        .source = "NVIDIA/Megatron-LM core r0.8: tensor_parallel/cross_entropy.py, the vocab-parallel "
                  "cross-entropy in fp32 (the fork Fujii et al. 2024 measured; docs/calibration.md); "
                  "fusions/fused_bias_swiglu.py; Transformer Engine's fp8 layers and its "
                  "DotProductAttention (cuDNN's fused attention on Hopper); MoE since core_r0.13: "
                  "moe_utils.py's permutation with probs, weighed in the experts' SwiGLU"},
    [TP_FRAMEWORK_NEMO] = {
        .loss_bytes_per_logit = 2.0, .compiled_loss_bytes_per_logit = 2.0, .fsdp_mixed_precision = 0, .fused_swiglu = 1, .fp8_activations = 1,
        .pp_overlap = 1, .fp8_recipe = TP_FP8_DELAYED, .pp_gather_once = 0, .fp8_weight_cache = 1,
        .tp_overlap_userbuffers = 1,
        .attention_kernel = TP_ATTENTION_KERNEL_CUDNN, .fp8_casts = TP_FP8_CASTS_FUSED, .eager = 0, .grouped_gemm = 0,
        .routing_weights_in_activation = 1, .unfused_expert_extras = 1, .unfused_yarn_rope = 1,
        .source = "NVIDIA NeMo 2 and Megatron-Bridge: train through Megatron-Core's GPT model with its "
                  "fused cross-entropy (cross_entropy_loss_fusion in the recipes), fused SwiGLU and "
                  "Transformer Engine's fp8 layers and attention"},
    [TP_FRAMEWORK_TORCHTITAN] = {
        .loss_bytes_per_logit = 6.0, .compiled_loss_bytes_per_logit = 0.0, .fsdp_mixed_precision = 1, .fused_swiglu = 0, .fp8_activations = 0,
        .pp_overlap = 0, .fp8_recipe = TP_FP8_TENSORWISE, .pp_gather_once = 1, .fp8_weight_cache = 0,
        .attention_kernel = TP_ATTENTION_KERNEL_SDPA, .fp8_casts = TP_FP8_CASTS_COMPILED, .eager = 1, .grouped_gemm = 1,
        .compiled_recompute_elementwise = 1,
        .source = "pytorch/torchtitan 9dec370 (2024-12): train.py loss_fn, cross_entropy(pred.flatten(0, "
                  "1).float(), labels), compiled with the model since bbb1b616e (2025-04, "
                  "components/loss.py); FSDP2 with MixedPrecisionPolicy(param_dtype=bf16) over fp32 "
                  "parameters (parallelisms/parallelize_llama.py apply_fsdp); eager SwiGLU; torchao's "
                  "Float8Linear for fp8"},
    [TP_FRAMEWORK_LLM_FOUNDRY] = {
        .loss_bytes_per_logit = 0.0, .compiled_loss_bytes_per_logit = 0.0, .fsdp_mixed_precision = 1, .fused_swiglu = 0, .fp8_activations = 1,
        .pp_overlap = 0, .fp8_recipe = TP_FP8_DELAYED, .pp_gather_once = 0, .fp8_weight_cache = 1,
        .attention_kernel = TP_ATTENTION_KERNEL_TRITON, .fp8_casts = TP_FP8_CASTS_FUSED, .eager = 0, .grouped_gemm = 1,
        .source = "mosaicml/llm-foundry 5e85bd62d (2024-01): models/mpt/modeling_mpt.py, loss_fn "
                  "fused_crossentropy by default (flash-attn's CrossEntropyLoss); attn_impl triton "
                  "(scripts/train/yamls/pretrain); Composer's FSDP mixed precision over fp32 parameters; "
                  "fp8 through Transformer Engine's layers (fc_type te)"},
    [TP_FRAMEWORK_DEEPSPEED] = {
        .loss_bytes_per_logit = 6.0, .compiled_loss_bytes_per_logit = 6.0, .fsdp_mixed_precision = 0, .fused_swiglu = 0, .fp8_activations = 0,
        .pp_overlap = 0, .fp8_recipe = TP_FP8_DELAYED, .pp_gather_once = 0, .fp8_weight_cache = 1,
        .attention_kernel = TP_ATTENTION_KERNEL_FLASH, .fp8_casts = TP_FP8_CASTS_FUSED, .eager = 0, .grouped_gemm = 0,
        .pp_send_whole = 1, .pp_serial_sends = 1, .grad_all_reduce = 1,
        .source = "microsoft/Megatron-DeepSpeed: Megatron-LM's vocab-parallel cross-entropy in fp32; "
                  "SwiGLU as separate operations; DeepSpeed's pipeline engine sends whole "
                  "activations, each transfer blocking in turn, and its BF16_Optimizer all-reduces "
                  "fp32 gradients (runtime/pipe/engine.py, schedule.py)"},
};

void tp_framework_defaults(tp_config *c)
{
    const tp_framework f = c->training.framework;
    if ((unsigned)f >= TP_FRAMEWORK_COUNT)
        return;
    c->training.fsdp_mixed_precision = facts[f].fsdp_mixed_precision;
    c->training.fused_swiglu = facts[f].fused_swiglu;
    c->training.fp8_activations = facts[f].fp8_activations;
    c->plan.pp_overlap = facts[f].pp_overlap;
    c->training.fp8_recipe = facts[f].fp8_recipe;
    c->plan.pp_gather_once = facts[f].pp_gather_once;
    c->plan.pp_send_whole = facts[f].pp_send_whole;
    c->plan.pp_serial_sends = facts[f].pp_serial_sends;
    c->plan.grad_all_reduce = facts[f].grad_all_reduce;
    c->plan.tp_overlap_userbuffers = facts[f].tp_overlap_userbuffers;
    c->training.fp8_weight_cache = facts[f].fp8_weight_cache;
    c->training.attention_kernel = facts[f].attention_kernel;
    c->training.fp8_casts = facts[f].fp8_casts;
    c->training.eager = facts[f].eager;
    c->training.grouped_gemm = facts[f].grouped_gemm;
    c->training.routing_weights_in_activation = facts[f].routing_weights_in_activation;
    c->training.unfused_expert_extras = facts[f].unfused_expert_extras;
    c->training.unfused_yarn_rope = facts[f].unfused_yarn_rope;
    tp_framework_compile_defaults(c);
}

void tp_framework_compile_defaults(tp_config *c)
{
    const tp_framework f = c->training.framework;
    if ((unsigned)f >= TP_FRAMEWORK_COUNT)
        return;
    const int compiled = !c->training.eager;
    c->overheads.loss_bytes_per_logit = compiled ? facts[f].compiled_loss_bytes_per_logit
                                                 : facts[f].loss_bytes_per_logit;
    c->training.recompute_elementwise = compiled && facts[f].compiled_recompute_elementwise;
}

const char *tp_framework_source(tp_framework framework)
{
    return (unsigned)framework < TP_FRAMEWORK_COUNT ? facts[framework].source : NULL;
}
