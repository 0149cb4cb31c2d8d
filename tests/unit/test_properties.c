/*
 * test_properties: properties the memory model, the step-time model and the
 * search must keep for every valid config, checked over thousands of random
 * ones. The generator is a fixed-seed xorshift, so a failure reproduces; it
 * prints the config that broke a property.
 *
 * Memory:
 *   - every item is finite and non-negative, and total = the sum of items;
 *   - more data-parallel ranks (same plan, twice the GPUs and batch) never
 *     increase sharded model-state memory;
 *   - a bigger micro-batch (same number of micro-batches) never decreases
 *     activations;
 *   - sequence parallel never increases activations;
 *   - full recompute <= selective <= none, and full <= selective_op <= none
 *     where selective_op is modelled, for activations on every stage;
 *   - a higher ZeRO stage never adds model-state memory, nor peak memory
 *     but for the two physical reasons its function states.
 * Time:
 *   - every item of the breakdown and every throughput figure is finite and
 *     non-negative, the step is longer than zero and the items sum to it;
 *   - more micro-batches per step (twice the global batch, same plan) never
 *     shrink the bubble's time or the step's.
 * Search (fewer configs, each a whole search):
 *   - every plan it returns fits by its own estimate (peak at most the
 *     memory fraction of capacity), and has the step time that estimate
 *     gives.
 * The generator draws every architecture, optimizer, sharding scheme,
 * schedule and recompute mode the config can express.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "estimate_sanity.h"
#include "fields.h"

#define CONFIGS 5000

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t pick(const int64_t *values, size_t count)
{
    return values[next_random() % count];
}

/* A random divisor of n among the powers of two up to limit. */
static int64_t power_of_two_divisor(int64_t n, int64_t limit)
{
    int64_t options[16];
    size_t count = 0;
    for (int64_t d = 1; d <= limit && count < 16; d *= 2)
        if (n % d == 0)
            options[count++] = d;
    return pick(options, count);
}

static tp_config random_config(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset(next_random() % tp_model_preset_count());
    c.system.gpu = *tp_gpu_preset(next_random() % tp_gpu_preset_count());
    static const int64_t seqs[] = {1024, 2048, 4096, 8192, 32768, 131072};
    c.training.seq_len = pick(seqs, 6);
    if (c.model.positions > 0 && c.training.seq_len > c.model.positions)
        c.training.seq_len = c.model.positions;
    c.plan.tp = power_of_two_divisor(c.model.heads, 16);
    if (c.model.ffn_hidden % c.plan.tp != 0
        || (c.model.kv_heads % c.plan.tp != 0 && c.plan.tp % c.model.kv_heads != 0))
        c.plan.tp = 1;
    c.plan.pp = power_of_two_divisor(c.model.layers, 32);
    c.plan.cp = power_of_two_divisor(c.training.seq_len, 8);
    c.plan.sp = (int)(next_random() % 2);
    c.plan.zero = (int64_t)(next_random() % 4);
    const int64_t dp = (int64_t)1 << (next_random() % 8);
    c.system.gpus = c.plan.tp * c.plan.pp * c.plan.cp * dp;
    c.training.micro_batch = (int64_t)1 << (next_random() % 4);
    const int64_t micro_batches = 1 + (int64_t)(next_random() % 64);
    c.training.global_batch = c.training.micro_batch * dp * micro_batches;
    static const tp_dtype dtypes[] = {TP_DTYPE_FP32, TP_DTYPE_BF16, TP_DTYPE_FP16};
    c.training.weights_dtype = dtypes[next_random() % 3];
    c.training.gradients_dtype = dtypes[next_random() % 3];
    c.training.optimizer_dtype = dtypes[next_random() % 3];
    c.training.master_weights = (int)(next_random() % 2);
    c.training.fp8 = c.training.weights_dtype != TP_DTYPE_FP32 && c.system.gpu.fp8_flop_per_s > 0.0 && next_random() % 4 == 0;
    c.training.optimizer = (tp_optimizer)(next_random() % 5);
    c.training.recompute = (tp_recompute)(next_random() % 3);
    c.training.flash_attention = (int)(next_random() % 2);
    c.plan.sharding = (tp_sharding)(next_random() % 5);
    if (c.plan.sharding == TP_SHARD_AMSP) {
        /* a valid factor ladder: weights <= gradients <= optimizer on each axis */
        const int64_t dp_group = dp * c.plan.cp;
        const int64_t intra = plan_intra_node_dp(&c, dp);
        if (dp_group % intra != 0) {
            c.plan.sharding = TP_SHARD_ZERO;
        } else {
            const int64_t extent[2] = {intra, dp_group / intra};
            for (int axis = 0; axis < 2; axis++) {
                const int64_t os = power_of_two_divisor(extent[axis], extent[axis]);
                const int64_t g = power_of_two_divisor(os, os);
                c.plan.amsp[2][axis] = os;
                c.plan.amsp[1][axis] = g;
                c.plan.amsp[0][axis] = power_of_two_divisor(g, g);
            }
        }
    }
    if (c.model.moe.experts > 0) {
        /* MoE: sequence parallel with tp, no AMSP, an expert grid that
         * tiles the stage's tp x cp x dp ranks, some imbalance */
        if (c.plan.tp > 1)
            c.plan.sp = 1;
        if (c.plan.sharding == TP_SHARD_AMSP)
            c.plan.sharding = TP_SHARD_ZERO;
        c.plan.etp = next_random() % 2 ? 1 : 0;
        const int64_t etp = c.plan.etp > 0 ? c.plan.etp : c.plan.tp;
        const int64_t pool = c.plan.tp * c.plan.cp * dp / etp;
        c.plan.ep = power_of_two_divisor(c.model.moe.experts, pool < 64 ? pool : 64);
        while (pool % c.plan.ep != 0)
            c.plan.ep /= 2;
        c.training.capacity_factor = 1.0 + (double)(next_random() % 5) / 10.0;
    }
    c.plan.schedule = (tp_schedule)(next_random() % 3);
    if (c.plan.schedule == TP_SCHEDULE_INTERLEAVED) {
        if (c.plan.pp >= 2 && c.model.layers % (2 * c.plan.pp) == 0) {
            c.plan.virtual_stages = 2;
            c.training.global_batch = c.training.micro_batch * dp * c.plan.pp * (1 + micro_batches % 8);
        } else {
            c.plan.schedule = TP_SCHEDULE_1F1B;
        }
    }
    /* the loader's mask, at times with a slow loader, so that some steps
     * wait for it (drawn last: the draws above stay as they were) */
    c.training.dataloader_mask = next_random() % 2 == 0;
    if (next_random() % 2 == 0)
        c.system.loader_bytes_per_s = 0.05e9;
    /* a quarter of the layers rebuild their element-wise results (torch.
     * compile's partitioner), so the recompute order holds with it too */
    c.training.recompute_elementwise = next_random() % 4 == 0;
    return c;
}

static void describe(const char *property, const tp_config *c)
{
    fprintf(stderr, "%s broken by %s on %lld %s: tp=%lld pp=%lld cp=%lld sp=%d sharding=%s zero=%lld "
            "ep=%lld etp=%lld mbs=%lld gbs=%lld seq=%lld\n",
            property, c->model.name, (long long)c->system.gpus, c->system.gpu.name, (long long)c->plan.tp,
            (long long)c->plan.pp, (long long)c->plan.cp, c->plan.sp, tp_sharding_str(c->plan.sharding),
            (long long)c->plan.zero, (long long)c->plan.ep, (long long)c->plan.etp,
            (long long)c->training.micro_batch, (long long)c->training.global_batch,
            (long long)c->training.seq_len);
}

static int estimate_ok(const tp_config *c, tp_estimate_result *r)
{
    tp_error err;
    if (tp_estimate(c, r, &err) == TP_OK)
        return 1;
    fprintf(stderr, "generator made an invalid config: %s: %s\n", err.path, err.message);
    describe("validity", c);
    return 0;
}

static double model_state_bytes(const tp_stage_memory *s)
{
    return s->weights_bytes + s->gradients_bytes + s->optimizer_bytes;
}

/* Searches from random configs (their plans ignored) on up to 256 GPUs, and
 * estimates every plan returned, top and Pareto front alike. */
#define SEARCHES 150
static tp_search_result found; /* large: kept off the stack */

static void search_returns_only_fitting_plans(void)
{
    int searches = 0, plans = 0, fitting = 0, same_step = 0;
    for (int n = 0; n < SEARCHES; n++) {
        tp_config c = random_config();
        if (c.system.gpus > 256)
            continue;
        tp_search_space space;
        tp_search_defaults(&space);
        space.memory_fraction = 0.5 + 0.1 * (double)(next_random() % 6);
        tp_error err;
        if (tp_search(&c, &space, &found, &err) != TP_OK) {
            fprintf(stderr, "search refused a valid config: %s: %s\n", err.path, err.message);
            describe("search", &c);
            CHECK(0);
            continue;
        }
        searches++;
        const double capacity = space.memory_fraction * c.system.gpu.memory_bytes;
        for (int i = 0; i < found.top_count + found.pareto_count; i++) {
            const tp_search_plan *p = i < found.top_count ? &found.top[i]
                                                          : &found.pareto[i - found.top_count];
            const tp_config applied = tp_search_apply(&c, p);
            tp_estimate_result r;
            plans++;
            if (!estimate_ok(&applied, &r))
                continue;
            if (r.peak_bytes <= capacity) fitting++; else describe("search returned a plan that does not fit", &applied);
            if (r.time.step_s == p->step_s) same_step++; else describe("search's step time", &applied);
        }
    }
    printf("%d searches: %d plans returned, %d fit by their own estimate, %d with its step time\n",
           searches, plans, fitting, same_step);
    CHECK(searches >= 50);
    CHECK(plans > 0);
    CHECK_INT(fitting, plans);
    CHECK_INT(same_step, plans);
}

/* Everything a stage holds but the model states and the two buffers a
 * ZeRO stage brings (the gather of sharded weights, the gradient bucket). */
static double stage_rest_bytes(const tp_stage_memory *s)
{
    const tp_other_memory *x = &s->other;
    return s->activations_bytes + x->cuda_context_bytes + x->nccl_bytes + x->loss_workspace_bytes
         + x->backward_workspace_bytes + x->fragmentation_bytes;
}

static double stage_buffer_bytes(const tp_stage_memory *s)
{
    return s->other.gathered_params_bytes + s->other.gradient_bucket_bytes;
}

/* A higher ZeRO stage never adds model-state memory and changes nothing
 * else a stage holds but its buffers: ZeRO-2 reduce-scatters whole
 * gradient buckets (40 M parameters, Megatron-LM's DDP), ZeRO-3 gathers
 * each unit whole before it runs (the running one, prefetch_layers more,
 * and its gradient: FSDP and DeepSpeed). So the peak grows only where a
 * buffer outweighs the states sharded away: on a stage of fewer
 * parameters than a bucket, or of a few units (layers, the embedding, the
 * LM head) of which ZeRO-3 holds one or two whole at once. The test checks
 * that this is the reason wherever the peak grows, and counts them. */
static void higher_zero_stage_never_adds_memory(void)
{
    int compared = 0, states_ok = 0, rest_ok = 0, explained = 0, grows[3] = {0, 0, 0};
    for (int n = 0; n < CONFIGS; n++) {
        tp_config c = random_config();
        if (c.plan.sharding != TP_SHARD_ZERO)
            continue;
        tp_estimate_result r[4];
        int ok = 1;
        for (int z = 0; z < 4 && ok; z++) {
            tp_config d = c;
            d.plan.zero = z;
            ok = estimate_ok(&d, &r[z]);
        }
        if (!ok) {
            CHECK(0);
            continue;
        }
        compared++;
        int states = 1, rest = 1, reason = 1;
        for (int z = 0; z < 3; z++) {
            for (int i = 0; i < r[z].stage_count; i++) {
                const tp_stage_memory *lo = &r[z].stages[i], *hi = &r[z + 1].stages[i];
                const double saved = model_state_bytes(lo) - model_state_bytes(hi);
                states &= saved >= -1e-12 * model_state_bytes(lo);
                rest &= stage_rest_bytes(hi) == stage_rest_bytes(lo);
                /* where the stage grows, its buffer grew by more than the states saved */
                if (hi->total_bytes > lo->total_bytes * (1 + 1e-12))
                    reason &= stage_buffer_bytes(hi) - stage_buffer_bytes(lo) > saved;
            }
            grows[z] += r[z + 1].peak_bytes > r[z].peak_bytes * (1 + 1e-12);
        }
        if (states) states_ok++; else describe("a higher ZeRO stage adds model-state memory", &c);
        if (rest) rest_ok++; else describe("a ZeRO stage changes more than states and buffers", &c);
        if (reason) explained++; else describe("a higher ZeRO stage grows for another reason", &c);
    }
    printf("%d configs at ZeRO 0-3: model states never grow %d, nothing else but the buffers changes %d; "
           "the peak grows from ZeRO-0 to 1 in %d, 1 to 2 in %d (a gradient bucket larger than the "
           "gradients sharded away), 2 to 3 in %d (the units gathered whole outweigh the weights sharded "
           "away), each for that reason %d\n",
           compared, states_ok, rest_ok, grows[0], grows[1], grows[2], explained);
    CHECK(compared >= CONFIGS / 4);
    CHECK_INT(states_ok, compared);
    CHECK_INT(rest_ok, compared);
    CHECK_INT(explained, compared);
    CHECK_INT(grows[0], 0);
    CHECK(grows[1] + grows[2] < compared / 10); /* exceptions, not the rule */
}

/* A uniform draw in [0, 1). */
static double unit_random(void)
{
    return (double)(next_random() >> 11) / 9007199254740992.0;
}

/* A custom llama model of random shape within the fields' limits. */
static tp_model random_model(void)
{
    tp_model m = *tp_model_preset_find("llama-3.1-8b");
    snprintf(m.name, sizeof m.name, "custom");
    m.heads = (int64_t)1 << (next_random() % 8);
    m.kv_heads = power_of_two_divisor(m.heads, m.heads);
    m.hidden = m.heads * 64 * (1 + (int64_t)(next_random() % 4));
    m.ffn_hidden = 64 * (1 + (int64_t)(next_random() % 2000));
    m.vocab = 1 + (int64_t)(next_random() % 1000000);
    m.layers = 1 + (int64_t)(next_random() % 200);
    if (next_random() % 3 == 0) { /* experts too */
        m.moe.experts = (int64_t)1 << (next_random() % 9);
        m.moe.experts_per_token = 1 + (int64_t)(next_random() % (uint64_t)m.moe.experts);
        m.moe.expert_ffn_hidden = 64 * (1 + (int64_t)(next_random() % 100));
        m.moe.every = 1 + (int64_t)(next_random() % 2);
        m.moe.first_dense = m.layers > 2 ? (int64_t)(next_random() % 2) : 0;
    }
    return m;
}

/* Every plain number the GPU, the network and the system hold, a third
 * of the time drawn anywhere in its range, log-uniform (the bounds the
 * field table gives, rates down to a thousandth of their unit). */
static void random_extremes(tp_config *c)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->type != FIELD_NUMBER || next_random() % 3 != 0
            || (f->section != SECTION_GPU && f->section != SECTION_NETWORK && f->section != SECTION_SYSTEM))
            continue;
        const double lo = f->min > 0.0 ? f->min : 1e-9, hi = f->max;
        field_set(f, field_section_struct(c, f->section), lo * pow(hi / lo, unit_random()));
    }
}

/* Any valid config gives finite figures whose items sum: random shapes,
 * plans and rates anywhere in their ranges. */
#if defined(__SANITIZE_ADDRESS__) || defined(__has_feature)
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define EXTREMES 10000 /* under the sanitizers: memory safety, at a tenth of the count */
#endif
#endif
#ifndef EXTREMES
#define EXTREMES 100000
#endif
static void extremes_stay_finite(void)
{
    int valid = 0, sane = 0;
    for (int n = 0; n < EXTREMES; n++) {
        tp_config c = random_config();
        if (next_random() % 2 == 0) {
            tp_config custom = c;
            custom.model = random_model();
            custom.plan.tp = power_of_two_divisor(custom.model.kv_heads, 8);
            custom.plan.pp = power_of_two_divisor(custom.model.layers, 16);
            custom.plan.cp = 1;
            custom.plan.ep = power_of_two_divisor(custom.model.moe.experts > 0 ? custom.model.moe.experts : 1, 4);
            custom.plan.etp = 0;
            custom.plan.sp = 1;
            custom.plan.schedule = TP_SCHEDULE_1F1B;
            custom.plan.virtual_stages = 1;
            custom.plan.sharding = TP_SHARD_ZERO;
            const int64_t dp = 4 * custom.plan.ep;
            custom.system.gpus = custom.plan.tp * custom.plan.pp * dp;
            custom.training.global_batch = custom.training.micro_batch * dp * (1 + (int64_t)(next_random() % 8));
            c = custom;
        }
        random_extremes(&c);
        tp_estimate_result r;
        tp_error err;
        if (tp_estimate(&c, &r, &err) != TP_OK)
            continue; /* the generator's shapes need not all be valid */
        valid++;
        if (estimate_memory_sane(&r) && estimate_time_sane(&r))
            sane++;
        else
            describe("finite figures whose items sum", &c);
    }
    printf("%d random configs, rates anywhere in their ranges: %d valid, %d of them finite with items "
           "that sum\n", EXTREMES, valid, sane);
    CHECK(valid > EXTREMES / 2);
    CHECK_INT(sane, valid);
}

int main(void)
{
    int sane = 0, dp_monotone = 0, micro_batch_monotone = 0, sp_helps = 0, recompute_order = 0;
    int op_order = 0, op_checked = 0;
    int time_ok = 0, more_micro_batches = 0, waiting = 0;
    for (int n = 0; n < CONFIGS; n++) {
        tp_config c = random_config();
        tp_estimate_result base;
        if (!estimate_ok(&c, &base)) {
            CHECK(0);
            continue;
        }
        if (estimate_memory_sane(&base)) sane++; else describe("sanity", &c);
        if (estimate_time_sane(&base)) time_ok++; else describe("time sanity", &c);
        waiting += base.time.data_wait_s > 0.0;

        tp_config longer = c;
        longer.training.global_batch *= 2;
        tp_estimate_result twice;
        int ok = estimate_ok(&longer, &twice) && twice.time.bubble_s >= base.time.bubble_s
              && twice.time.step_s >= base.time.step_s;
        if (ok) more_micro_batches++; else describe("more micro-batches", &c);

        tp_config more_dp = c;
        more_dp.system.gpus *= 2;
        more_dp.training.global_batch *= 2;
        tp_estimate_result wider;
        ok = estimate_ok(&more_dp, &wider);
        for (int i = 0; ok && i < base.stage_count; i++)
            ok = model_state_bytes(&wider.stages[i]) <= model_state_bytes(&base.stages[i]);
        if (ok) dp_monotone++; else describe("dp monotone", &c);

        tp_config bigger = c;
        bigger.training.micro_batch *= 2;
        bigger.training.global_batch *= 2;
        tp_estimate_result heavier;
        ok = estimate_ok(&bigger, &heavier);
        for (int i = 0; ok && i < base.stage_count; i++)
            ok = heavier.stages[i].activations_bytes >= base.stages[i].activations_bytes;
        if (ok) micro_batch_monotone++; else describe("micro-batch monotone", &c);

        tp_config flip = c;
        flip.plan.sp = 1 - c.plan.sp;
        tp_estimate_result other;
        /* a MoE model with tp > 1 runs only with sp on: nothing to compare */
        if (c.model.moe.experts > 0 && c.plan.tp > 1)
            flip = c;
        ok = estimate_ok(&flip, &other);
        const tp_estimate_result *on = c.plan.sp ? &base : &other;
        const tp_estimate_result *off = c.plan.sp ? &other : &base;
        for (int i = 0; ok && i < base.stage_count; i++)
            ok = on->stages[i].activations_bytes <= off->stages[i].activations_bytes;
        if (ok) sp_helps++; else describe("sequence parallel", &c);

        tp_estimate_result by_mode[3];
        ok = 1;
        for (int mode = 0; mode < 3; mode++) {
            tp_config r = c;
            r.training.recompute = (tp_recompute)mode;
            ok = ok && estimate_ok(&r, &by_mode[mode]);
        }
        for (int i = 0; ok && i < base.stage_count; i++)
            ok = by_mode[TP_RECOMPUTE_FULL].stages[i].activations_bytes
                     <= by_mode[TP_RECOMPUTE_SELECTIVE].stages[i].activations_bytes
              && by_mode[TP_RECOMPUTE_SELECTIVE].stages[i].activations_bytes
                     <= by_mode[TP_RECOMPUTE_NONE].stages[i].activations_bytes;
        if (ok) recompute_order++; else describe("full <= selective <= none", &c);

        /* torchtitan's per-op policy keeps a part of each layer between
         * its input and all of it (memory.c) */
        if (recompute_op_refusal(&c) == NULL) {
            tp_config r = c;
            r.training.recompute = TP_RECOMPUTE_SELECTIVE_OP;
            tp_estimate_result op;
            ok = estimate_ok(&r, &op);
            for (int i = 0; ok && i < base.stage_count; i++)
                ok = by_mode[TP_RECOMPUTE_FULL].stages[i].activations_bytes <= op.stages[i].activations_bytes
                  && op.stages[i].activations_bytes <= by_mode[TP_RECOMPUTE_NONE].stages[i].activations_bytes;
            op_checked++;
            if (ok) op_order++; else describe("full <= selective_op <= none", &c);
        }
    }
    printf("%d random configs: sane %d, dp monotone %d, micro-batch monotone %d, "
           "sp never worse %d, full <= selective <= none %d, full <= selective_op <= none %d of %d\n",
           CONFIGS, sane, dp_monotone, micro_batch_monotone, sp_helps, recompute_order, op_order, op_checked);
    CHECK_INT(sane, CONFIGS);
    CHECK_INT(dp_monotone, CONFIGS);
    CHECK_INT(micro_batch_monotone, CONFIGS);
    CHECK_INT(sp_helps, CONFIGS);
    CHECK_INT(recompute_order, CONFIGS);
    CHECK_INT(op_order, op_checked);
    CHECK(op_checked >= CONFIGS / 4);
    printf("%d random configs: time sane %d (%d waiting for the data loader), more micro-batches "
           "never shorten bubble or step %d\n", CONFIGS, time_ok, waiting, more_micro_batches);
    CHECK_INT(time_ok, CONFIGS);
    CHECK_INT(more_micro_batches, CONFIGS);
    CHECK(waiting >= CONFIGS / 20); /* the sums above cover the loader's wait */
    search_returns_only_fitting_plans();
    higher_zero_stage_never_adds_memory();
    extremes_stay_finite();
    return check_finish("properties");
}
