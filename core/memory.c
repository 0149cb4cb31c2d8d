/*
 * memory.c: per-GPU memory of each pipeline stage (Fujii et al. 2024 §3,
 * eq. 1-18, generalised to the schemes, schedules and recompute modes users
 * train with).
 *
 * Model states. A GPU of a stage holds P parameters (its share after tensor
 * parallelism) and keeps, per parameter (bytes_per_param):
 *   weights    bytes(weights_dtype), plus, with fp8 compute, the fp8
 *              copies of the layers' weights (model_fp8_weight_copies; the
 *              embedding and LM head run in 16 bits, have none and keep
 *              16-bit weights under fp8_params). Transformer Engine caches
 *              an fp8 copy and, where the backward's GEMMs cannot read it
 *              columnwise, a second one (Hopper's transpose; MXFP8's
 *              columnwise cast), 2 B, or 1 B with per-tensor scales on
 *              Blackwell. With fp8 parameters (training.precision.
 *              fp8_params) the working weights are the first fp8 copy, the
 *              16-bit one gone, and the second is kept, not transient: TE
 *              creates primary fp8 weights with columnwise usage whenever
 *              gradients are enabled (module/base.py, reset_parameters:
 *              quantizer.set_usage(rowwise=True, columnwise=
 *              torch.is_grad_enabled())). Without the cache
 *              (training.precision.fp8_weight_cache false, torchao) each
 *              layer's forward casts its weight and keeps the fp8 copy for
 *              its backward (torchao's default, force_recompute_fp8_weight_
 *              in_bwd false): counted the same. Each copy takes the cast's
 *              bytes (model_cast_bytes: 1 + 1/32 B with MXFP8, 0.5625 B
 *              with NVFP4)
 *   gradients  bytes(gradients_dtype)
 *   optimizer  states: Adam/AdamW 2 x bytes(optimizer_dtype); SGD with
 *              momentum 1 x; Adafactor one row and one column vector per
 *              matrix (Shazeer & Stern 2018), full second moment for vectors;
 *              8-bit Adam 2 x (1 B + a 4 B scale per 2048 values, Dettmers
 *              et al. 2022); plus 4 B fp32 master weights when kept and the
 *              working weights are not fp32. Fujii et al. 2024: 2 + 4 + 12 B.
 * Sharding divides weights, gradients and optimizer by their factors
 * (plan_shard_factors): with zero 1 over dp*cp this is eq. 10, (6 + 12/(dc))P;
 * with factors (s_p, s_g, s_os) it is Chen et al. 2023's D_modelstate.
 * With parallel.pp_gather_once under pp > 1, FSDP's weights and gradients
 * stay whole through the step (PyTorch's pipeline schedules), zero 1's.
 *
 * Which parameters sit on which stage (Fujii et al. 2024 §3.1.3, eq. 7-9,
 * with L_i the layers of stage i, L/p unless the split is uneven:
 * plan_split_layers, plan.c):
 *   only  (p = 1)  embedding (+ LM head unless tied) + positions + final norm + L layers
 *   first          embedding/t + positions + L_0 layers
 *   middle         L_i layers (shown: rank 1, the middle with the most)
 *   last           LM head/t + final norm + L_{p-1} layers
 * With p > 1 tied embeddings still cost a copy on both ends: Megatron keeps
 * the matrix on the first and the last stage and all-reduces its gradient.
 *
 * Activations. A stage holds N "layer sets" (one layer's activations for one
 * micro-batch) at its peak; the schedule decides N (stage_shape):
 *   1F1B         stage i holds min(p - i, m) micro-batches of its L_i layers
 *                (Fujii et al. 2024 eq. 16-17): with an even split the
 *                first stage holds L layers' worth
 *   interleaved  rank i runs 2(p - i - 1) + (v - 1)p warm-up forwards of
 *                L_i/v-layer chunks before its first backward (Megatron's
 *                schedule), so at peak it holds W_i = 2(p - i - 1) + (v - 1)p + 1
 *                chunk passes; for i = 0 that is (pv + p - 1) L/(pv) =
 *                L(1 + (p - 1)/(pv)) layers, Korthikanti et al. 2023 §4.2.3
 *   GPipe        every stage holds all m micro-batches of its L_i layers
 * With one layer set of s*b/c tokens split over tp as model.c describes,
 *   none       N x layer (Fujii et al. 2024 eq. 12, 15)
 *   selective  N x layer without the scores, plus one layer's scores while
 *              the attention core is recomputed (nothing changes with
 *              FlashAttention, which never stores scores)
 *   full       (N - 1) x layer input + one whole layer being recomputed
 *              (the stage's largest, dense or MoE); with training.
 *              recompute_layers k of a stage's L_i layers (Megatron's block
 *              method), a share k / L_i of the N sets keeps its input and
 *              the rest everything (a layer of the stage's mean mix of
 *              dense and MoE layers), plus the one layer being recomputed
 *   selective_op  N x what torchtitan's per-op policy keeps of a layer
 *              (model.c: Q, V, attention output, W1's and W2's outputs,
 *              the input), plus the rest of one layer, recomputed during
 *              its backward (K, W_O's and W3's outputs, norms, rotary,
 *              SwiGLU); dense gqa layers with FlashAttention only
 *              (validate.c), so no scores
 * With training.recompute_elementwise a layer keeps less (model.c), but
 * the layer being back-propagated holds what its backward rebuilds again,
 * in every mode: one layer set counts whole (full's and selective_op's
 * layer recomputed, a layer of none or selective with its rebuilt part
 * added), and so does the backward's workspace (below). So full <= selective_op <= none and
 * full <= selective <= none for every N >= 1: the part selective_op keeps
 * of a layer is at least its input and at most all of it. The first stage
 * adds the embedding's 8sbh per micro-batch in flight (eq. 13, as printed), the last
 * stage the LM head's 4sbh(1 + v/h) (eq. 14: fp32 logits for the loss).
 *
 * Activation offloading (training.offload_layers N; Megatron-Core's
 * cpu_offloading, which runs Transformer Engine's cpu_offload): layers
 * 0 .. N-1 of the model copy every tensor they save for backward to host
 * memory during the forward and back before their backward. TE's default
 * synchronizer releases layer i's GPU copy before layer L - N + i runs
 * forward and starts its reload when layer L - 1 - N + i starts backward,
 * so that at every moment the GPU holds L - N layers' activations
 * ("(num_layers - num_offloaded_layers) * T", transformer_engine/pytorch/
 * cpu_offload.py, DefaultOffloadSynchronizer): the copies in flight are
 * among those L - N, no buffer beyond them. So the stage's activations
 * lose the N offloaded layers' sets whole (their dense or MoE mix, as the
 * model places them; tensors under 256K elements stay, and are not
 * counted apart). Megatron-Core allows it with one pipeline stage and no
 * recompute only (validate.c), so one micro-batch is in flight.
 *
 * Other memory (tp_other_memory, assumptions in tp_overheads, plan.c): the
 * CUDA context, NCCL buffers per communicator, the cross-entropy temporaries
 * on the LM-head stage, the gradients of one layer's activations during its
 * backward, gathered full layers with sharded weights (one running plus
 * prefetch, and its unsharded gradient), one gradient bucket with sharded
 * gradients, and allocator fragmentation as a fraction of activations.
 */
#include "tp_internal.h"

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static double max_d(double a, double b) { return a > b ? a : b; }

static tp_bytes_per_param bytes_per_param(const tp_config *c, const model_layers *layers)
{
    /* Adafactor's ratio is read off the layer that holds most parameters */
    const model_layer *layer = c->model.moe.experts > 0 ? &layers->moe : &layers->dense;
    const tp_training *t = &c->training;
    const double state = tp_dtype_bytes(t->optimizer_dtype);
    tp_bytes_per_param b;
    const double fp8_byte = model_cast_bytes(t, 1); /* with its scale */
    const int copies = t->fp8 ? model_fp8_weight_copies(c) : 0;
    /* fp8 parameters are the first copy, the 16-bit one gone */
    b.weights = t->fp8_params ? fp8_byte : tp_dtype_bytes(t->weights_dtype);
    b.fp8_weights = (t->fp8_params ? copies - 1 : copies) * fp8_byte;
    b.gradients = tp_dtype_bytes(t->gradients_dtype);
    b.master_weights = t->master_weights && t->weights_dtype != TP_DTYPE_FP32 ? 4.0 : 0.0;
    switch (t->optimizer) {
    case TP_OPT_SGD:
        b.optimizer_states = state;
        break;
    case TP_OPT_ADAFACTOR: {
        /* the ratio of factored state to parameters in one layer, applied
         * to every parameter (embeddings factor even better) */
        b.optimizer_states = state * (layer->matrix_rows_plus_cols + layer->replicated_params)
                           / (model_layer_params(layer) + layer->expert_params);
        break;
    }
    case TP_OPT_ADAM8BIT:
        b.optimizer_states = 2.0 * (1.0 + 4.0 / 2048.0);
        break;
    case TP_OPT_ADAM:
    case TP_OPT_ADAMW:
    default:
        b.optimizer_states = 2.0 * state;
        break;
    }
    return b;
}

/* Where a stage sits in the pipeline and what the schedule makes it hold. */
typedef struct {
    const char *name;
    int has_embedding, has_lm_head;
    int64_t in_flight;        /* micro-batch passes (chunk passes if interleaved) */
    double layer_sets;        /* layers x micro-batches of activations held */
    int64_t embedding_in_flight;
    int64_t lm_head_in_flight;
    int64_t layers;           /* the rank's L_i */
    int64_t moe_layers;       /* of the rank's L_i layers */
} stage_shape;

/* MoE layers a pipeline rank holds: those of its chunks (one without the
 * interleaved schedule), placed as plan_chunk_layers says. */
static int64_t moe_layers_of_rank(const tp_config *c, int64_t rank)
{
    if (c->model.moe.experts == 0)
        return 0;
    const int64_t v = c->plan.schedule == TP_SCHEDULE_INTERLEAVED ? c->plan.virtual_stages : 1;
    int64_t n = 0;
    for (int64_t j = 0; j < v; j++) {
        int64_t first;
        const int64_t count = plan_chunk_layers(c, rank, j, v, &first);
        n += model_moe_layers_in(&c->model, first, count);
    }
    return n;
}

static stage_shape shape_of_rank(const tp_config *c, int64_t rank, int64_t m, const char *name)
{
    const int64_t p = c->plan.pp;
    const int64_t v = c->plan.virtual_stages;
    const int64_t layers = plan_stage_layers(c, rank);
    const double stage_layers = (double)layers;
    stage_shape s = {name, rank == 0, rank == p - 1, 1, 0.0, 0, 0, layers, moe_layers_of_rank(c, rank)};
    if (p == 1) {
        s.in_flight = 1; /* micro-batches run one after another */
    } else if (c->plan.schedule == TP_SCHEDULE_GPIPE) {
        s.in_flight = m;
    } else if (c->plan.schedule == TP_SCHEDULE_INTERLEAVED) {
        s.in_flight = min_i64(2 * (p - rank - 1) + (v - 1) * p + 1, m * v);
    } else {
        s.in_flight = min_i64(p - rank, m);
    }
    s.layer_sets = c->plan.schedule == TP_SCHEDULE_INTERLEAVED && p > 1
                 ? (double)s.in_flight * stage_layers / (double)v
                 : (double)s.in_flight * stage_layers;
    if (s.has_embedding) {
        if (c->plan.schedule == TP_SCHEDULE_INTERLEAVED && p > 1) {
            /* forwards run in groups of p micro-batches, chunk (group mod v):
             * the chunk-0 passes among the first in_flight are p for every
             * whole group g with g mod v = 0, plus the partial last group
             * when it is a chunk-0 one */
            const int64_t groups = s.in_flight / p, rest = s.in_flight % p;
            s.embedding_in_flight = p * ((groups + v - 1) / v) + (groups % v == 0 ? rest : 0);
        } else {
            s.embedding_in_flight = s.in_flight;
        }
    }
    if (s.has_lm_head) /* 1F1B runs each backward right after its forward here */
        s.lm_head_in_flight = c->plan.schedule == TP_SCHEDULE_GPIPE && p > 1 ? m : 1;
    return s;
}

/* One layer set of one micro-batch on one GPU, split into its parts. */
typedef struct {
    double kept;   /* everything stored except the attention scores */
    double scores; /* softmax (and dropout) tensors, 0 with FlashAttention */
    double input;  /* the layer input that full recompute keeps */
    double routed; /* MoE: the routed copies' part of kept */
    double op;     /* the part of kept selective_op keeps, input included */
    double whole;  /* kept and what the backward rebuilds (training.
                      recompute_elementwise): the layer back-propagated */
} layer_set_bytes;

static layer_set_bytes layer_set(const model_layer *layer, const tp_config *c,
                                 const plan_shards *shards)
{
    const tp_plan *p = &c->plan;
    const double s = (double)c->training.seq_len;
    const double tokens = s * (double)c->training.micro_batch / (double)p->cp;
    const double t = (double)p->tp;
    const double sp_split = p->sp ? t : 1.0;
    layer_set_bytes b;
    b.kept = tokens * (layer->act_tp_split_bytes_per_token / t
                       + layer->act_kv_bytes_per_token / model_kv_split(layer, p->tp)
                       + layer->act_sp_split_bytes_per_token / sp_split);
    /* queries of this rank against all s keys, a/t heads */
    b.scores = c->training.flash_attention
             ? 0.0
             : tokens * s * layer->act_score_bytes * (double)c->model.heads / t;
    const double rebuilt = tokens * (layer->act_rebuilt_tp_bytes / t + layer->act_rebuilt_sp_bytes / sp_split);
    b.input = tokens * layer->act_input_bytes_per_token / sp_split;
    b.op = b.input + tokens * (layer->act_op_tp_split_bytes_per_token / t
                               + layer->act_op_kv_bytes_per_token / model_kv_split(layer, p->tp)
                               + layer->act_op_sp_split_bytes_per_token / sp_split);
    /* what the recompute_* modules free (model.c) */
    const tp_training *tr = &c->training;
    if (tr->recompute_mlp || tr->recompute_norms || tr->recompute_mla_up_proj) {
        /* both norms' outputs, or one where the MLP's recompute took its own */
        const int mlp_took_one = tr->recompute_mlp && layer->act_mlp_module_sp_bytes > 0.0;
        const double norms = tr->recompute_norms ? (mlp_took_one ? 1.0 : 2.0) * layer->act_norm_output_bytes : 0.0;
        const double mlp_tp = tr->recompute_mlp ? layer->act_mlp_module_tp_bytes : 0.0;
        const double mlp_sp = tr->recompute_mlp ? layer->act_mlp_module_sp_bytes : 0.0;
        const double up_tp = tr->recompute_mla_up_proj ? layer->act_up_proj_tp_bytes : 0.0;
        const double up_kv = tr->recompute_mla_up_proj ? layer->act_up_proj_kv_bytes : 0.0;
        b.kept -= tokens * ((mlp_tp + up_tp) / t + up_kv / model_kv_split(layer, p->tp) + (mlp_sp + norms) / sp_split);
    }
    /* routed copies: each sits on its etp ranks, whole (input, output)
     * or split (the expert's MLP) */
    b.routed = b.whole = 0.0;
    if (layer->experts_per_token > 0.0) {
        const double copies = model_routed_copies_sent(c, layer->experts_per_token) * (double)shards->etp;
        const double expert_mlp = layer->act_expert_mlp_bytes - (tr->recompute_moe_act ? layer->act_expert_act_bytes : 0.0);
        b.routed = copies * (layer->act_copy_bytes + expert_mlp / (double)shards->etp);
        b.kept += b.routed;
        b.whole = copies * layer->act_rebuilt_expert_bytes / (double)shards->etp;
    }
    b.whole += b.kept + rebuilt;
    return b;
}

/* mean: a layer set of the stage's mix of layers; rerun: the layer full
 * (or selective_op) recompute re-runs (the stage's largest). share: of the layer sets, those
 * full recompute re-runs (recompute_share); each keeps its input, the
 * others everything, and the one being recomputed holds its whole
 * activations again, the element-wise results the backward rebuilds
 * included */
static double layer_activation_bytes(const layer_set_bytes *mean, const layer_set_bytes *rerun,
                                     double sets, tp_recompute mode, double share)
{
    if (sets <= 0.0)
        return 0.0;
    /* what the layer being back-propagated rebuilds beyond what it kept */
    const double rebuilt = rerun->whole - rerun->kept;
    switch (mode) {
    case TP_RECOMPUTE_FULL:
        return share * sets * mean->input + (1.0 - share) * sets * (mean->kept + mean->scores)
             + rerun->whole + mean->scores - mean->input;
    case TP_RECOMPUTE_SELECTIVE:
        return sets * mean->kept + mean->scores + rebuilt;
    case TP_RECOMPUTE_SELECTIVE_OP: /* dense layers only: mean and rerun alike */
        return sets * mean->op + rerun->whole + mean->scores - rerun->op;
    case TP_RECOMPUTE_NONE:
    default:
        return sets * (mean->kept + mean->scores) + rebuilt;
    }
}

/* Communicators of size > 1 a GPU belongs to: tp, cp, pp, dp, and dp*cp
 * (Megatron's gradient group) when both are > 1 and the weights are shared
 * over cp (not SUMMA's); a hybrid-sharded group adds its replica group. */
static double nccl_groups(const tp_config *c, int64_t dp, const plan_shards *shards)
{
    const tp_plan *p = &c->plan;
    const int64_t replicas = plan_replicas(p, dp);
    double n = (p->tp > 1) + (p->cp > 1) + (p->pp > 1) + (dp > 1) + (replicas > dp && dp > 1);
    if (shards->group > 1 && shards->group < replicas)
        n += 1.0;
    /* MoE: the ep and etp groups, and the experts' own replica group,
     * where they are not groups the dense layers already have */
    n += (shards->ep > 1) + (shards->etp > 1 && shards->etp != p->tp)
       + (shards->edp > 1 && shards->edp != replicas);
    return n;
}

/* What every stage of an estimate shares: per-GPU parameter counts of
 * each kind of unit, one layer set of each kind, bytes per parameter. */
typedef struct {
    double dense_params;  /* one dense layer on one GPU (after tp) */
    double moe_params;    /* a MoE layer's dense part (attention, router, shared experts) */
    double expert_params; /* a MoE layer's routed experts on one GPU (after ep, etp) */
    double embedding, lm_head;
    layer_set_bytes dense_set, moe_set;
    tp_bytes_per_param bpp;
    double embedding_act, lm_head_act; /* eq. 13 and 14 per micro-batch */
    double nccl_bytes;
} stage_inputs;

static stage_inputs prepare_stages(const tp_config *c, const model_layers *layers, int64_t dp,
                                   const plan_shards *shards)
{
    const tp_model *m = &c->model;
    const double t = (double)c->plan.tp;
    stage_inputs in;
    in.dense_params = model_layer_params_per_gpu(&layers->dense, c->plan.tp);
    in.moe_params = model_layer_params_per_gpu(&layers->moe, c->plan.tp);
    in.expert_params = model_expert_params_per_gpu(&layers->moe, shards->ep, shards->etp);
    in.embedding = model_embedding_params(m) / t;
    in.lm_head = c->plan.pp == 1 && m->tied_embeddings ? 0.0 : model_head_params(m) / t;
    in.dense_set = layer_set(&layers->dense, c, shards);
    in.moe_set = m->moe.experts > 0 ? layer_set(&layers->moe, c, shards) : in.dense_set;
    in.bpp = bytes_per_param(c, layers);
    /* sbh/(tc): the scale of eq. 13 and 14 */
    const double tokens = (double)c->training.seq_len * (double)c->training.micro_batch / (double)c->plan.cp;
    const double sbh_per_gpu = tokens * (double)m->hidden / t;
    in.embedding_act = 8.0 * sbh_per_gpu;                                                /* eq. 13 */
    in.lm_head_act = 4.0 * sbh_per_gpu * (1.0 + model_output_width(m) / (double)m->hidden); /* eq. 14 */
    in.nccl_bytes = nccl_groups(c, dp, shards) * c->overheads.nccl_bytes_per_group;
    return in;
}

/* With sharded weights each unit (a layer, the embedding, the LM head) is
 * gathered whole before it runs, as FSDP and DeepSpeed's ZeRO-3 do: the
 * running unit and prefetch_layers more, never more units than the stage
 * holds, in the weights' dtype, plus the running unit's whole gradient
 * before its reduce-scatter. Only what is sharded is gathered: a layer's
 * dense part by the dense factor, its routed experts by theirs (experts
 * whole on every GPU of their edp = 1 group are never gathered). */
static double gathered_params_bytes(const tp_config *c, const stage_inputs *in, const stage_shape *sh,
                                    const plan_shards *shards, double dense_layers, double moe_layers)
{
    const double dense_part = shards->weights > 1 ? 1.0 : 0.0;
    const double expert_part = shards->expert_weights > 1 ? 1.0 : 0.0;
    double unit = dense_layers > 0.0 ? dense_part * in->dense_params : 0.0;
    if (moe_layers > 0.0)
        unit = max_d(unit, dense_part * in->moe_params + expert_part * in->expert_params);
    if (sh->has_embedding)
        unit = max_d(unit, dense_part * in->embedding);
    if (sh->has_lm_head)
        unit = max_d(unit, dense_part * in->lm_head);
    unit /= (double)plan_cp_weight_split(&c->plan);
    const double units = dense_layers + moe_layers + sh->has_embedding + sh->has_lm_head;
    const double held = 1.0 + (double)c->overheads.prefetch_layers < units ? 1.0 + (double)c->overheads.prefetch_layers
                                                                            : units;
    return unit * (held * in->bpp.weights + in->bpp.gradients);
}

/* The working weights' bytes per parameter a GPU keeps between steps:
 * none under PyTorch FSDP's mixed precision with sharded weights and a
 * master copy, whose shard is the fp32 parameter itself (the working copy
 * exists only gathered: gathered_params_bytes); else their dtype's. */
static double kept_weights_bytes(const tp_config *c, const tp_bytes_per_param *bpp, int64_t weight_shards)
{
    const int gathered_only = c->training.fsdp_mixed_precision && weight_shards > 1 && bpp->master_weights > 0.0;
    return gathered_only ? 0.0 : bpp->weights;
}

/* The stage's weights, gradients and optimizer states, its dense part and
 * its routed experts each sharded over their own replicas. */
static void stage_states(const tp_config *c, const stage_inputs *in, const stage_shape *sh,
                         const plan_shards *shards, tp_stage_memory *s)
{
    const tp_model *m = &c->model;
    const tp_bytes_per_param *bpp = &in->bpp;
    tp_expert_memory *e = &s->experts;
    const double moe_layers = (double)sh->moe_layers;
    const double dense_layers = (double)s->layers - moe_layers;
    /* SUMMA splits every weight over cp as well (Subramanian et al. 2024,
     * Table A2), the embedding and head as its multiplies' weights too */
    const double cp_split = (double)plan_cp_weight_split(&c->plan);
    const double layer_params = (dense_layers * in->dense_params + moe_layers * in->moe_params) / cp_split;
    const double end_params = ((sh->has_embedding ? in->embedding + model_position_params(m) : 0.0)
                               + (sh->has_lm_head ? in->lm_head + model_final_norm_params(m) : 0.0))
                            / cp_split;
    const double dense = layer_params + end_params;
    e->moe_layers = sh->moe_layers;
    if (sh->moe_layers > 0) { /* estimate_memory zeroed them for dense stages */
        e->params = moe_layers * in->expert_params;
        e->weights_bytes = e->params * (kept_weights_bytes(c, bpp, shards->expert_weights) + bpp->fp8_weights)
                         / (double)shards->expert_weights;
        e->gradients_bytes = e->params * bpp->gradients / (double)shards->expert_gradients;
        e->optimizer_bytes = e->params * (bpp->optimizer_states + bpp->master_weights)
                           / (double)shards->expert_optimizer;
    }
    s->params = dense + e->params;
    /* The embedding and the LM head run in 16 bits (Transformer Engine
     * casts its own layers only; torchtitan's float8 leaves the output
     * layer out): no fp8 copies, and 16-bit weights under fp8_params */
    const double kept = kept_weights_bytes(c, bpp, shards->weights);
    const double end_kept = kept > 0.0 ? tp_dtype_bytes(c->training.weights_dtype) : 0.0;
    s->weights_bytes = (layer_params * (kept + bpp->fp8_weights) + end_params * end_kept)
                     / (double)shards->weights + e->weights_bytes;
    s->gradients_bytes = dense * bpp->gradients / (double)shards->gradients + e->gradients_bytes;
    s->optimizer_bytes = dense * (bpp->optimizer_states + bpp->master_weights) / (double)shards->optimizer
                       + e->optimizer_bytes;
}

/* What activation offloading takes off the GPU (memory.c's header): the
 * sets of the model's first N layers, dense or MoE as placed, for each
 * micro-batch in flight (one: validate.c allows it with pp 1 only); their
 * routed copies' part into *routed. */
static double offloaded_bytes(const tp_config *c, const stage_inputs *in, const stage_shape *sh, double *routed)
{
    const int64_t n = c->training.offload_layers;
    const double moe = (double)model_moe_layers_in(&c->model, 0, n);
    const double dense = (double)n - moe, passes = (double)sh->in_flight;
    *routed = passes * moe * in->moe_set.routed;
    return passes * (dense * (in->dense_set.kept + in->dense_set.scores)
                     + moe * (in->moe_set.kept + in->moe_set.scores));
}

/* The stage's activations: one layer set of the stage's mix of layers
 * (mean), the layer full recompute re-runs (its largest), eq. 13 and 14. */
static const layer_set_bytes *stage_activations(const tp_config *c, const stage_inputs *in, const stage_shape *sh,
                                                tp_stage_memory *s)
{
    const double moe_layers = (double)sh->moe_layers;
    layer_set_bytes mean = in->dense_set;
    const layer_set_bytes *largest = &in->dense_set;
    if (moe_layers > 0.0) {
        const double share = moe_layers / (double)s->layers;
        mean.kept = (1.0 - share) * in->dense_set.kept + share * in->moe_set.kept;
        mean.routed = share * in->moe_set.routed;
        mean.whole = (1.0 - share) * in->dense_set.whole + share * in->moe_set.whole;
        if (in->moe_set.kept > in->dense_set.kept)
            largest = &in->moe_set;
    }
    const layer_set_bytes *rerun = c->training.recompute == TP_RECOMPUTE_FULL ? largest : &mean;
    tp_activation_parts *a = &s->activation_parts;
    a->layer_bytes = rerun->kept;
    a->mean_layer_bytes = mean.kept;
    a->scores_bytes = mean.scores;
    a->layer_input_bytes = mean.input;
    a->op_layer_bytes = mean.op;
    a->embedding_bytes = (double)sh->embedding_in_flight * in->embedding_act;
    a->lm_head_bytes = (double)sh->lm_head_in_flight * in->lm_head_act;
    const double share = recompute_share(c, s->layers);
    s->activations_bytes = layer_activation_bytes(&mean, rerun, sh->layer_sets, c->training.recompute, share)
                         + a->embedding_bytes + a->lm_head_bytes;
    s->experts.activations_bytes = c->training.recompute == TP_RECOMPUTE_FULL
                                 ? (1.0 - share) * sh->layer_sets * mean.routed + rerun->routed
                                 : sh->layer_sets * mean.routed;
    a->offloaded_bytes = 0.0;
    if (c->training.offload_layers > 0) {
        double routed;
        a->offloaded_bytes = offloaded_bytes(c, in, sh, &routed);
        s->activations_bytes -= a->offloaded_bytes;
        s->experts.activations_bytes -= routed;
    }
    return largest;
}

static void stage_other(const tp_config *c, const stage_inputs *in, const stage_shape *sh,
                        const plan_shards *shards, const layer_set_bytes *largest, tp_stage_memory *s)
{
    const tp_overheads *o = &c->overheads;
    tp_other_memory *x = &s->other;
    const double tokens = (double)c->training.seq_len * (double)c->training.micro_batch / (double)c->plan.cp;
    x->cuda_context_bytes = o->cuda_context_bytes;
    x->nccl_bytes = in->nccl_bytes;
    x->loss_workspace_bytes = sh->has_lm_head
        ? o->loss_bytes_per_logit * tokens * model_output_width(&c->model) / (double)c->plan.tp : 0.0;
    x->backward_workspace_bytes = o->backward_layers * largest->whole;
    const double moe_layers = (double)sh->moe_layers;
    x->gathered_params_bytes = shards->weights > 1 || shards->expert_weights > 1
        ? gathered_params_bytes(c, in, sh, shards, (double)s->layers - moe_layers, moe_layers) : 0.0;
    /* sharded gradients with whole weights reduce-scatter a bucket at a
     * time; only the parameters whose gradients are sharded fill it */
    const double sharded = (shards->gradients > 1 ? s->params - s->experts.params : 0.0)
                         + (shards->expert_gradients > 1 ? s->experts.params : 0.0);
    x->gradient_bucket_bytes = shards->weights == 1 && shards->expert_weights == 1
        ? (o->bucket_params < sharded ? o->bucket_params : sharded) * in->bpp.gradients
        : 0.0;
    x->fragmentation_bytes = o->fragmentation_fraction * s->activations_bytes;
    s->other_bytes = x->cuda_context_bytes + x->nccl_bytes + x->loss_workspace_bytes + x->backward_workspace_bytes
                   + x->gathered_params_bytes + x->gradient_bucket_bytes + x->fragmentation_bytes;
}

void mem_estimate_stages(const tp_config *c, const model_layers *layers, int64_t dp,
                         int64_t micro_batches, const plan_shards *shards,
                         tp_estimate_result *out)
{
    const int64_t pp = c->plan.pp;
    const stage_inputs in = prepare_stages(c, layers, dp, shards);
    stage_shape shapes[TP_MAX_STAGES];
    int n = 0;
    if (pp == 1) {
        shapes[n++] = shape_of_rank(c, 0, micro_batches, "only");
    } else {
        shapes[n++] = shape_of_rank(c, 0, micro_batches, "first");
        if (pp > 2) /* the worst middle stage is the one right after the first:
                     * it holds the most micro-batches and the most layers */
            shapes[n++] = shape_of_rank(c, 1, micro_batches, "middle");
        shapes[n++] = shape_of_rank(c, pp - 1, micro_batches, "last");
    }
    out->bytes_per_param = in.bpp;
    out->stage_count = n;
    out->peak_stage = 0;
    out->allocated_peak_bytes = 0.0;
    for (int i = 0; i < n; i++) {
        const stage_shape *sh = &shapes[i];
        tp_stage_memory *s = &out->stages[i];
        s->name = sh->name;
        s->has_embedding = sh->has_embedding;
        s->has_lm_head = sh->has_lm_head;
        s->layers = sh->layers;
        s->in_flight = sh->in_flight;
        s->layers_in_flight = sh->layer_sets;
        stage_states(c, &in, sh, shards, s);
        const layer_set_bytes *largest = stage_activations(c, &in, sh, s);
        stage_other(c, &in, sh, shards, largest, s);
        s->total_bytes = s->weights_bytes + s->gradients_bytes + s->optimizer_bytes + s->activations_bytes
                       + s->other_bytes;
        if (s->total_bytes > out->stages[out->peak_stage].total_bytes)
            out->peak_stage = i;
        /* the tensors alone, without the allocator's slack: the zone's red */
        out->allocated_peak_bytes = max_d(out->allocated_peak_bytes, s->total_bytes - s->other.fragmentation_bytes);
    }
    out->peak_bytes = out->stages[out->peak_stage].total_bytes;
}
