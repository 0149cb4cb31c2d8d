/*
 * tp_internal.h: declarations shared between core/ files, not public.
 * Each file exports names with its own prefix (Lua style): model_ from
 * model.c, mem_ from memory.c, flops_ from flops.c, net_ from network.c,
 * time_ from time.c, plan_ from plan.c, valid_ from validate.c, field_ from
 * fields.c,
 * estimate_ from estimate.c, search_ from search.c, err_ from status.c; names.c
 * exports the *_names lists of enum names.
 */
#ifndef TP_INTERNAL_H
#define TP_INTERNAL_H

#include "trainplan.h"

/* ---- model.c: one description of a transformer layer ----
 * Parameter and activation counts both derive from this, so they cannot
 * drift apart. Activation bytes are per token of one micro-batch sample. */
typedef struct {
    double attention_params;  /* W_Q, W_O and the Q bias: split over tp */
    double kv_params;         /* W_K, W_V and their biases: split over min(tp, k) */
    double kv_heads;          /* k */
    double mlp_params;        /* MLP matrices and split bias: over tp */
    double replicated_params; /* norms and row-parallel biases: on every tp rank */
    /* the weight matrices alone (no biases): 2 FLOPs per weight per token */
    double attention_matrix_params; /* W_Q and W_O */
    double kv_matrix_params;        /* W_K and W_V */
    double mlp_matrix_params;
    double mlp_width;         /* the MLP every token passes: ffn_hidden, or a MoE
                                 layer's shared experts' total width (0 if none) */
    /* matrices whose weights every tp rank holds whole and which run on
     * sequence-parallel tokens (MLA's down-projections, the MoE router);
     * their parameters are in replicated_params */
    double sp_matrix_params;
    double matrix_rows_plus_cols; /* sum over weight matrices (Adafactor's state) */
    /* attention widths per token (elements): h, 2w, h for gqa */
    double q_width;       /* Q: a x the query/key head size */
    double kv_width;      /* K and V together, as stored and as cp exchanges them */
    double o_width;       /* the attention output, W_O's input: a x the value head size */
    double rope_width;    /* elements rotary embedding touches: Q and K (MLA: their rotary parts) */
    double gather_width;  /* what sequence parallelism gathers before attention:
                             h, or MLA's latents */
    double act_tp_split_bytes_per_token; /* always split over tp */
    double act_kv_bytes_per_token;       /* K and V: split over min(tp, k) */
    double act_sp_split_bytes_per_token; /* split over tp only with sequence parallel */
    double act_input_bytes_per_token;    /* the layer input full recompute keeps */
    /* what selective_op keeps besides the input (a part of the three above):
     * Q, the attention output and the first MLP projection's output (tp
     * split), V (split like K and V), W2's output (Llama; sp split) */
    double act_op_tp_split_bytes_per_token;
    double act_op_kv_bytes_per_token;
    double act_op_sp_split_bytes_per_token;
    double act_score_bytes; /* per token, key and head without FlashAttention */
    /* MoE layers only (0 in a dense layer): the routed experts */
    double experts;             /* E */
    double experts_per_token;   /* k */
    double expert_params;       /* all E routed experts: split over ep and etp */
    double expert_matrix_params_each; /* one routed expert's matrices */
    double act_copy_bytes;      /* per routed token copy: expert input and output
                                   (whole on every etp rank) */
    double act_expert_mlp_bytes; /* per routed token copy: the expert's SwiGLU
                                    tensors (split over etp) */
    /* what the recompute_* modules free, per token (a part of the above):
     * the dense MLP's tensors (tp split) and its norm's output (sp split);
     * one norm's output kept in 16 bits (0 when the linear layers keep an
     * fp8 copy instead, sp split); MLA's Q (tp split) and K and V (as K
     * and V); per routed copy, the expert's SwiGLU output (split over etp) */
    double act_mlp_module_tp_bytes, act_mlp_module_sp_bytes;
    double act_norm_output_bytes;
    double act_up_proj_tp_bytes, act_up_proj_kv_bytes;
    double act_expert_act_bytes;
    /* what training.recompute_elementwise leaves out of the above and the
     * backward rebuilds (0 without it): per token, tp split and sp split;
     * per routed copy, SwiGLU's (split over etp). The layer being
     * back-propagated holds it again. */
    double act_rebuilt_tp_bytes, act_rebuilt_sp_bytes, act_rebuilt_expert_bytes;
} model_layer;

/* Both kinds of layer a model may have; for a dense model moe is a copy of
 * dense (so a per-kind table can be indexed without asking). */
typedef struct {
    model_layer dense, moe;
} model_layers;

model_layers model_describe_layers(const tp_model *m, const tp_training *t);
/* Megatron-Core's recompute modules (training.recompute_mlp, ...) belong to
 * its selective granularity: whether t names any, and whether a recompute
 * mode takes them (none or selective; validate.c refuses the others, the
 * search offers only those). */
int model_recompute_modules_set(const tp_training *t);
int model_recompute_takes_modules(tp_recompute mode);
/* The bytes of one value of the low-precision cast with fp8 compute
 * (model.c), an activation's (weights 0) or a weight's, with its scale:
 * fp8 1 B, plus under training.precision.fp8_recipe MXFP8's one E8M0 byte
 * per 32 values or blockwise's one fp32 per 1x128 activation block and per
 * 128x128 weight block (per tensor or per row about none); NVFP4 (fp4)
 * half a byte and one E4M3 scale per 16 values (Transformer Engine's
 * NVFP4BlockScaling). */
double model_cast_bytes(const tp_training *t, int weights);
/* Blackwell's tensor cores, the first with FP4 (system.gpu.fp4_tflops > 0):
 * they scale blocks themselves and take fp8 operands in any layout
 * (Transformer Engine's non_tn_fp8_gemm_supported: compute capability 10). */
static inline int gpu_blackwell_tensor_cores(const tp_gpu *g) { return g->fp4_flop_per_s > 0.0; }
/* FP8 tensor cores (system.gpu.fp8_tflops > 0): Hopper and later, whose
 * warpgroup MMA and TMA the Hopper-native attention kernels use. */
static inline int gpu_fp8_tensor_cores(const tp_gpu *g) { return g->fp8_flop_per_s > 0.0; }
/* An AMD Instinct GPU (mi300x, mi325x, mi355x, or a custom one named so):
 * PyTorch's ROCm build runs its own attention kernels there. */
static inline int gpu_amd_instinct(const tp_gpu *g)
{
    return (g->name[0] == 'm' || g->name[0] == 'M') && (g->name[1] == 'i' || g->name[1] == 'I')
           && g->name[2] >= '0' && g->name[2] <= '9';
}
/* The fp8 copies of a weight Transformer Engine keeps (model.c): 1 or 2. */
int model_fp8_weight_copies(const tp_config *c);
/* A dense layer (moe = 0) or a MoE layer (moe = 1) of m. */
model_layer model_describe_layer(const tp_model *m, const tp_training *t, int moe);
/* The routed experts' parameters a token does not visit (0 if dense):
 * tp_model_params_total less this is tp_model_params_active. */
int64_t model_params_inactive(const tp_model *m);
/* A MoE layer's routed experts on one GPU: E/ep experts, each over etp. */
double model_expert_params_per_gpu(const model_layer *layer, int64_t ep, int64_t etp);
/* Routed token copies one GPU sends per MoE layer and micro-batch: k for
 * each of its sequence-parallel tokens, times the capacity factor. Its
 * experts receive as many, and with etp > 1 gather etp times that. */
double model_routed_copies_sent(const tp_config *c, double experts_per_token);
/* MoE layers among layers first .. first + count - 1 (layer i is MoE when
 * i >= first_dense and i - first_dense + 1 is a multiple of every). */
int64_t model_moe_layers_in(const tp_model *m, int64_t first, int64_t count);
/* d: model.head_dim, or hidden / heads when it is 0 (gqa). */
int64_t model_head_dim(const tp_model *m);
/* The keys a query attends over, as the span of a whole causal sequence
 * that costs the same, averaged over the layers: span tokens (the sample or
 * a packed document) where a layer attends globally, less where
 * model.window_tokens holds a layer to a window and a fused kernel skips
 * what the window masks. */
double model_attention_span(const tp_model *m, int64_t span, int fused);
double model_layer_params(const model_layer *layer);
double model_layer_params_per_gpu(const model_layer *layer, int64_t tp);
double model_kv_split(const model_layer *layer, int64_t tp); /* min(tp, k) */
/* GPT and ViT share their blocks: LayerNorms with bias, a GeLU MLP, biases. */
static inline int model_gpt_blocks(const tp_model *m) { return m->arch != TP_ARCH_LLAMA; }
/* Decoders mask the future; a ViT encoder attends over every token. */
static inline int model_causal(const tp_model *m) { return m->arch != TP_ARCH_VIT; }
/* SUMMA's n_b panels cut each multiply's inner dimension: hidden (Q, K, V,
 * W1, head) or ffn_hidden (W2). */
static inline int model_summa_panels_fit(const tp_model *m, int64_t panels)
{
    return m->hidden % panels == 0 && m->ffn_hidden % panels == 0;
}
/* The share of a stage's layers full recompute re-runs (1 for every
 * layer, training.recompute_layers of the stage's stage_layers otherwise,
 * all of them on a stage with fewer; 0 without full recompute): memory,
 * time and FLOPs all scale the recompute by it. */
static inline double recompute_share(const tp_config *c, int64_t stage_layers)
{
    if (c->training.recompute != TP_RECOMPUTE_FULL)
        return 0.0;
    if (c->training.recompute_layers == 0 || c->training.recompute_layers >= stage_layers)
        return 1.0;
    return (double)c->training.recompute_layers / (double)stage_layers;
}
/* Values the head produces per token: logits over the vocabulary, or a
 * ViT's patch (its patch_dim). */
static inline double model_output_width(const tp_model *m)
{
    return (double)(m->arch == TP_ARCH_VIT ? m->patch_dim : m->vocab);
}
double model_embedding_params(const tp_model *m); /* input: the v x h table, or a
                                                     ViT's patch_dim x h linear and bias */
double model_head_params(const tp_model *m);      /* output: h x v, or h x patch_dim and bias */
double model_position_params(const tp_model *m);  /* learned positions: positions*h */
double model_final_norm_params(const tp_model *m);

/* ---- plan.c: sharding factors every scheme reduces to ---- */
typedef struct {
    int64_t weights, gradients, optimizer; /* ranks each state is split over */
    int64_t group;                         /* resolved hybrid shard group, or 0 */
    /* MoE: the routed experts' factors, over their own edp replicas */
    int64_t expert_weights, expert_gradients, expert_optimizer;
    int64_t ep, etp, edp;                  /* resolved expert sizes (1 if dense) */
} plan_shards;

/* The ranks that hold the same parameters: dp*cp (cp ranks share the
 * weights), or dp with SUMMA, which splits the weights over cp too. */
int64_t plan_replicas(const tp_plan *p, int64_t dp);
/* What a layer's tp-split weights are split over besides: cp with SUMMA
 * (Subramanian et al. 2024 Table A2: W is (e/n2, e/n1)), else 1. */
int64_t plan_cp_weight_split(const tp_plan *p);
/* tp, cp, dp, pp: the rank order Megatron-LM (and the default plan) uses. */
extern const tp_dim plan_megatron_order[4];
/* Ranks per node of each dimension's groups (indexed by tp_dim, sizes
 * size[]) when ranks are numbered along order, innermost first. */
void plan_order_ranks_per_node(const tp_dim order[4], const int64_t size[4], int64_t gpus_per_node,
                               int64_t out[4]);
/* Ranks per node of each dimension's groups, indexed by tp_dim: the plan's
 * per_node when given, else what its order puts on a node (network.c). */
void plan_ranks_per_node(const tp_config *c, int64_t dp, int64_t out[4]);
/* Whether the plan gives its placement outright (per_node not all 0). */
int plan_places_explicitly(const tp_plan *p);
/* The replicas (plan_replicas) inside one node. */
int64_t plan_intra_node_dp(const tp_config *c, int64_t dp);
plan_shards plan_shard_factors(const tp_config *c, int64_t dp);
/* Layers of pipeline rank `rank` of pp (v chunks each with the interleaved
 * schedule, else 1), and of the ranks before it, with the given first and
 * last stages' layers (0: balanced): the rule is
 * plan_split_layers' comment; the counts must pass valid_layers. */
int64_t plan_split_layers(int64_t layers, int64_t pp, int64_t v, int64_t first, int64_t last, int64_t rank);
int64_t plan_layers_before(int64_t layers, int64_t pp, int64_t v, int64_t first, int64_t last, int64_t rank);
/* The same for c's model and plan, and the most layers any stage holds. */
int64_t plan_stage_layers(const tp_config *c, int64_t rank);
int64_t plan_stage_layers_before(const tp_config *c, int64_t rank);
int64_t plan_most_stage_layers(const tp_config *c);
/* Chunk j of rank's v model chunks: its layer count, its first layer's
 * index in *first. */
int64_t plan_chunk_layers(const tp_config *c, int64_t rank, int64_t j, int64_t v, int64_t *first);
/* The greatest common divisor of two positive counts (group sizes that
 * must divide both, as the search's expert grid and placements). */
int64_t plan_gcd(int64_t a, int64_t b);
/* etp as set, or tp when it is 0 (the default: experts split like the MLP). */
int64_t plan_expert_tp(const tp_plan *p);

/* ---- validate.c: the rules between fields, each written once ----
 * Each returns TP_OK or fills err (which may be NULL: the search asks
 * only whether a rule holds) with the field at fault and why. */
/* tp splits the heads, the kv heads (or is a multiple of them), the MLP
 * and the shared experts evenly. */
tp_status valid_tp_split(const tp_model *m, int64_t tp, tp_error *err);
/* cp splits the sequence into 2 cp chunks (causal) or cp (an encoder). */
tp_status valid_cp_sequence(const tp_model *m, int64_t seq_len, int64_t cp, tp_error *err);
/* micro_batch x dp divides the global batch. */
tp_status valid_batch(int64_t global_batch, int64_t micro_batch, int64_t dp, tp_error *err);
/* The layers split over pp stages of v equal chunks each, every stage
 * holding at least one, with first and last the given first and last
 * stages' layers (0: balanced; plan_split_layers). */
tp_status valid_layers(int64_t layers, int64_t pp, int64_t v, int64_t first, int64_t last, tp_error *err);
/* v > 1 needs pp >= 2 and micro-batches in groups of pp. */
tp_status valid_interleave(int64_t pp, int64_t v, int64_t micro_batches, tp_error *err);
/* ep divides the experts, etp an expert's width, ep x etp the ranks. */
tp_status valid_expert_grid(const tp_moe *x, int64_t ep, int64_t etp, int64_t ranks, tp_error *err);
/* A shard group of group ranks tiles the replicas. */
tp_status valid_shard_group(int64_t replicas, int64_t group, tp_error *err);
/* tp_config_validate without the plan: every field's range, the model, the
 * training and the tp algorithm (what the search holds fixed). */
tp_status valid_inputs(const tp_config *c, tp_error *err);
/* Why training.recompute "selective_op" is not modelled for c, or NULL. */
const char *recompute_op_refusal(const tp_config *c);

/* ---- memory.c: per-GPU memory of each pipeline stage ---- */
/* Fills stages, peak_stage, peak_bytes and bytes_per_param of out. */
void mem_estimate_stages(const tp_config *c, const model_layers *layers, int64_t dp,
                         int64_t micro_batches,
                         const plan_shards *shards, tp_estimate_result *out);

/* ---- estimate.c: the two halves of tp_estimate, on a valid config ----
 * estimate_memory fills everything but time and throughput. */
void estimate_memory(const tp_config *c, const model_layers *layers, tp_estimate_result *out);

/* ---- sweep.c ---- */
/* The value of every used axis at point (unused axes untouched), the last
 * axis varying fastest. point must be inside the grid. */
void sweep_point_values(const tp_sweep *sweep, int64_t point, double value[TP_SWEEP_AXIS_COUNT]);

/* ---- search.c ---- */
/* Checks every field of a search space; errors name search.<field>. */
tp_status search_validate_space(const tp_search_space *space, tp_error *err);
/* A part's result, as bytes from elsewhere (a web worker), within the
 * bounds every reader of it indexes by, its plans valid plans of base;
 * errors name parts[index]. */
tp_status search_check_part(const tp_config *base, const tp_search_result *r, int index, tp_error *err);
/* The fp8 flags a search runs, in loop order, into fp8; returns how many:
 * those space->fp8 allows, or base's own when it names none. */
int search_precisions(const tp_config *base, const tp_search_space *space, int fp8[2]);
/* parts, the count a search is split into: 1 to TP_SEARCH_MAX_PARTS. */
tp_status search_validate_parts(int parts, tp_error *err);

/* ---- flops.c: operations and element-wise traffic of one layer ----
 * Per token of one sample, forward, whole layer (before any split); the
 * GEMM FLOPs are read off the layer's matrices (model_layer). */
typedef struct {
    double attention_gemm_flop; /* Q projection and output projection: split over tp */
    double kv_gemm_flop;        /* K and V projections: split over min(tp, k) */
    double mlp_gemm_flop;       /* split over tp */
    double sp_gemm_flop;        /* on sequence-parallel tokens, weights on every tp
                                   rank: MLA's down-projections, the MoE router */
    double attention_flop;      /* scores and context over all s keys */
    double attention_fraction;  /* of the score blocks FlashAttention runs: 1/2
                                   causal (the masked half skipped), 1 encoder */
    double kv_width;            /* K and V per token (model_layer) */
    double gather_width;        /* gathered before attention (model_layer) */
    double lm_head_flop;      /* the output layer (per token, not per layer) */
    double embedding_flop;    /* the input layer: 0 for a table lookup, a
                                 ViT's patch linear otherwise (per token) */
    double sp_bytes;          /* norms, residual adds, dropout: sequence-parallel regions */
    double tp_bytes;          /* rotary, activation function: tensor-parallel regions */
    double rope_width;        /* elements the rotary embedding touches (model_layer) */
    double loss_bytes_per_logit; /* cross-entropy, forward and backward */
    /* inputs of the linear layers per token, a shared input once: whole on
     * every tp rank (x for Q, K, V and for the MLP's up-projections), and
     * split over tp (the attention output, the MLP's activation) */
    double linear_input_width, linear_split_input_width;
    /* outputs of the linear layers per token, whose gradients fp8 casts in
     * the backward: whole on every tp rank (W_O's and W2's, gathered with
     * sp), and split over tp (Q, K and V, the MLP's up-projections) */
    double linear_output_width, linear_split_output_width;
    double gemm_kernels;      /* GEMM launches per layer, forward */
    double elementwise_kernels; /* element-wise launches per layer, forward */
    /* MoE layers (0 in a dense layer) */
    double experts_per_token;
    double expert_flop_per_copy; /* one routed copy through its expert */
    double copy_bytes;           /* permute and unpermute traffic per copy */
    double expert_bytes_per_copy; /* SwiGLU traffic per copy, split over etp */
    double up_proj_gemm_flop;    /* MLA: the up-projections' part of attention_gemm_flop */
} flops_layer;

/* attention_span: the keys a query attends over (model_attention_span). */
flops_layer flops_describe_layer(const tp_model *m, const model_layer *layer, double attention_span, int eager);
double flops_layer_forward(const flops_layer *x);
/* selective_op's recomputed multiplies, FLOPs per token of one layer:
 * the part split over tp, and W_K's (split as K and V) in *kv_flop. */
double flops_op_recompute(const tp_config *c, const flops_layer *x, double *kv_flop);
/* The recompute_* modules' recomputed multiplies, FLOPs per token of one
 * layer, all split over tp. */
double flops_module_recompute(const tp_config *c, const flops_layer *x);
/* Model FLOPs (forward + backward) and hardware FLOPs (plus recompute) of
 * one optimizer step of the whole job; layer from flops_describe_layer. */
void flops_per_step(const tp_config *c, const flops_layer *dense, const flops_layer *moe,
                    double *model_flop, double *hardware_flop);

/* ---- network.c: collectives on the two-tier network ---- */
typedef enum {
    NET_ALL_REDUCE, NET_ALL_GATHER, NET_REDUCE_SCATTER, NET_BROADCAST, NET_ALL_TO_ALL
} net_collective;

/* What a 400 Gb/s ConnectX-7 (NDR) keeps of its line rate: DeepEP's README
 * measures 43 to 46 GB/s of its ~50 (H800 nodes, dispatch and combine
 * over 16 to 64 expert-parallel ranks; their mean, 44.7 GB/s), and NCCL's
 * collectives move as much: "up to 48-49 GB/s per NIC" at NDR (NVIDIA's
 * answer in NVIDIA/nccl-tests issue 267), 46 GB/s of all-to-all between
 * two DGX H100 (deepseek-ai/DeepEP issue 3). The slow tier of every
 * network of 400 Gb/s NICs and faster (presets.c), and the flex
 * dispatcher's network part on any network. */
#define NET_NDR_EFFICIENCY 0.89

/* Ranks of one group on each node: size ranks stride apart. */
int64_t net_ranks_per_node(int64_t size, int64_t stride, int64_t gpus_per_node);
/* Whether a group of n ranks, per_node of them on a node, stays on the
 * fast tier (one node) rather than crossing the slow one. */
static inline int net_within_node(int64_t n, int64_t per_node) { return per_node >= n; }
/* bytes: the whole buffer (gathered size for all-gather, input size for
 * reduce-scatter and all-reduce). per_node: the group's ranks per node. */
double net_collective_s(const tp_system *s, net_collective kind, double bytes, int64_t n,
                        int64_t per_node);
double net_p2p_s(const tp_system *s, double bytes, int same_node);
/* parallel.ep_dispatcher flex: the all-to-all of tokens (each token_bytes,
 * `copies` routed copies of it) over n ranks, per_node on each node, each
 * token crossing the network once per other node it reaches. */
double net_forwarded_all_to_all_s(const tp_system *s, double tokens, double token_bytes, double copies,
                                  int64_t n, int64_t per_node);

/* ---- time.c: step time and throughput ---- */
/* Fills out->time and out->throughput; needs the memory result (stages,
 * dp, micro_batches, shard factors) already in out. */
void time_estimate(const tp_config *c, const model_layers *layers, tp_estimate_result *out);

/* ---- names.c: the JSON names of enum values, value i at index i ---- */
typedef struct {
    const char *const *items;
    int count;
} name_list;

extern const name_list zone_names, dtype_names, arch_names, attention_names, optimizer_names, sharding_names,
    recompute_names, framework_names, schedule_names, fp8_recipe_names, attention_kernel_names, ep_dispatcher_names, fp8_casts_names, cuda_graphs_names, tp_algorithm_names, dim_names, search_sharding_names, invalid_names,
    search_dim_names, search_precision_names;

/* ---- status.c: error helpers ---- */
/* Fills err (if not NULL) and returns status. printf-style message. */
tp_status err_set(tp_error *err, tp_status status, const char *path,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Puts within before err's path ("runs[3].config" and "parallel.tp" make
 * "runs[3].config.parallel.tp"): an error of a part, located in the whole
 * document. Returns err's status. */
tp_status err_locate(tp_error *err, const char *within);

/* Returns from the calling function when call fails. */
#define TRY(call)                                          \
    do {                                                   \
        const tp_status try_status_ = (call);              \
        if (try_status_ != TP_OK)                          \
            return try_status_;                            \
    } while (0)

#endif /* TP_INTERNAL_H */
