/*
 * test_search: the configuration search (core/search.c, issue 5).
 *
 *   - against brute force: on a small system, every plan built from the
 *     public config and checked by tp_config_validate gives no faster plan
 *     that fits than the search's best, and none that beats a point of its
 *     Pareto front in both memory and time;
 *   - invariants on Llama 3.1 70B over 1,024 GPUs: counts add up; every
 *     returned plan is valid, fits by its own estimate and has the step time
 *     it was ranked by; the front is sorted and non-dominated;
 *   - a search split into parts and merged is the whole search, exactly;
 *   - precision as a choice: on H100s fp8 beats the best bf16 plan and the
 *     explanation says by how much, the default keeps the config's own
 *     precision, an A100 asked for fp8 is refused at search.precision, and
 *     parts over both precisions merge into the whole;
 *   - pins and ranges hold; validity reasons are counted; errors name the
 *     field; the smallest GPU count that fits is the smallest;
 *   - quality on published measurements (printed, with thresholds): for each
 *     GPU count of seed 003's tables, the measured TFLOP/s of the plan the
 *     search ranks first among the table's configurations against the best
 *     measured (regret), with a column whose best plan has the estimate of
 *     a run that went out of memory counted apart as a conflict in the
 *     data; and for seed 004's Table 1, the search's best plan
 *     beside the paper's with both predicted throughputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "measured_rows.h"
#include "seed003_rows.h"
#include "tp_internal.h"

static tp_search_result result; /* large: kept off the stack */

/* Seed 003 columns whose first choice misses issue 5's 5% regret, and
 * those that miss it because a measured OOM run has the best plan's
 * estimate (test_seed003_columns); both may only fall. */
#define SEED003_COLUMN_MISSES 0
#define SEED003_COLUMN_CONFLICTS 1

static double fraction_capacity(const tp_config *c, const tp_search_space *s)
{
    return s->memory_fraction * c->system.gpu.memory_bytes;
}

/* ---------------- brute force ---------------- */

/* The k-th block of ranks on a node of 8 (seed 002 §III-A S3): per_node
 * of tp, cp, dp, pp each 1, 2, 4 or 8, k in base 4. tp_config_validate
 * keeps those that divide the groups and fill the node exactly: built here
 * from the rule, not from search.c's enumeration. */
static void nth_block(int k, int64_t per_node[4])
{
    for (int d = 0; d < 4; d++, k /= 4)
        per_node[d] = (int64_t)1 << (k % 4);
}

typedef struct {
    double best_step_s;
    int fitting;
    int dominates_front; /* a fitting plan strictly better than a front point */
} brute_result;

static void brute_check(const tp_config *base, const tp_search_space *s, const tp_search_result *r,
                        brute_result *out)
{
    out->best_step_s = -1.0;
    out->fitting = 0;
    out->dominates_front = 0;
    const int64_t n = base->system.gpus;
    tp_config c = *base;
    for (int64_t tp = 1; tp <= n; tp++)
    for (int64_t cp = 1; tp * cp <= n; cp++)
    for (int64_t pp = 1; tp * cp * pp <= n; pp++) {
        if (n % (tp * cp * pp) != 0)
            continue;
        if (cp > 1 && base->training.seq_len % (2 * cp) != 0)
            continue; /* the search's load-balanced cp rule */
        for (int64_t mb = s->micro_batch.min; mb <= s->micro_batch.max; mb++)
        for (int64_t v = s->virtual_stages.min; v <= s->virtual_stages.max; v++)
        for (int sp = 0; sp < 2; sp++)
        for (int scheme = 0; scheme < 5; scheme++)
        for (int rc = 0; rc < 3; rc++)
        for (int o = 0; o < 256; o++) {
            if (tp == 1 && sp == 0)
                continue; /* the search counts sp at tp 1 once, on */
            c.plan.tp = tp;
            c.plan.cp = cp;
            c.plan.pp = pp;
            c.plan.sp = sp;
            c.plan.virtual_stages = v;
            c.plan.schedule = v > 1 ? TP_SCHEDULE_INTERLEAVED : TP_SCHEDULE_1F1B;
            c.plan.sharding = scheme < 4 ? TP_SHARD_ZERO : TP_SHARD_FSDP_HYBRID;
            c.plan.zero = scheme < 4 ? scheme : 0;
            c.plan.shard_group = 0;
            c.training.micro_batch = mb;
            c.training.recompute = (tp_recompute)rc;
            nth_block(o, c.plan.per_node);
            if (tp_config_validate(&c, NULL) != TP_OK || c.plan.per_node[TP_DIM_TP] != tp)
                continue; /* tp stays whole on a node */
            tp_estimate_result e;
            if (tp_estimate(&c, &e, NULL) != TP_OK || e.peak_bytes > fraction_capacity(&c, s))
                continue;
            out->fitting++;
            if (out->best_step_s < 0.0 || e.time.step_s < out->best_step_s)
                out->best_step_s = e.time.step_s;
            for (int i = 0; i < r->pareto_count; i++)
                if (e.peak_bytes < r->pareto[i].peak_bytes * (1.0 - 1e-12)
                    && e.time.step_s < r->pareto[i].step_s * (1.0 - 1e-12))
                    out->dominates_front++;
        }
    }
}

static void test_against_brute_force(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.system.gpus = 16;
    c.training.global_batch = 64;
    c.training.seq_len = 4096;
    tp_search_space s;
    tp_search_defaults(&s);
    s.micro_batch.max = 4;
    s.virtual_stages.max = 4;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    brute_result b;
    brute_check(&c, &s, &result, &b);
    printf("brute force, 8B on 16 GPUs: %d plans fit, best %.6f s; search best %.6f s of %lld fitting\n",
           b.fitting, b.best_step_s, result.top_count > 0 ? result.top[0].step_s : -1.0,
           (long long)result.counts.fit);
    CHECK(result.top_count > 0 && b.fitting > 0);
    if (result.top_count > 0)
        CHECK_NEAR(result.top[0].step_s, b.best_step_s, 1e-12 * b.best_step_s);
    CHECK_INT(b.dominates_front, 0);
    /* brute force counts sharding schemes that coincide (ZeRO stages with
     * one replica, hybrid and ZeRO-3 inside a node) once each; the search
     * once */
    CHECK(result.counts.fit <= b.fitting);
}

/* ---------------- invariants ---------------- */

static tp_config llama70b_on(int64_t gpus)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("llama-3.1-70b");
    c.system.gpus = gpus;
    return c;
}

static int64_t invalid_total(const tp_search_counts *n)
{
    int64_t total = 0;
    for (int i = 0; i < TP_INVALID_COUNT; i++)
        total += n->invalid[i];
    return total;
}

/* Every plan returned is valid, fits, and has the figures it was ranked by. */
static void check_returned_plan(const tp_config *base, const tp_search_space *s, const tp_search_plan *p)
{
    const tp_config c = tp_search_apply(base, p);
    tp_error err;
    CHECK_INT(tp_config_validate(&c, &err), TP_OK);
    if (tp_config_validate(&c, &err) != TP_OK)
        printf("  invalid plan tp %lld cp %lld pp %lld dp %lld sharding %d amsp %lld,%lld %lld,%lld %lld,%lld: %s: %s\n",
               (long long)p->plan.tp, (long long)p->plan.cp, (long long)p->plan.pp, (long long)p->dp,
               p->plan.sharding, (long long)p->plan.amsp[0][0], (long long)p->plan.amsp[0][1],
               (long long)p->plan.amsp[1][0], (long long)p->plan.amsp[1][1], (long long)p->plan.amsp[2][0],
               (long long)p->plan.amsp[2][1], err.path, err.message);
    tp_estimate_result e;
    if (tp_estimate(&c, &e, &err) != TP_OK)
        return;
    CHECK_NEAR(e.time.step_s, p->step_s, 1e-12 * p->step_s);
    CHECK_NEAR(e.peak_bytes, p->peak_bytes, 1e-6);
    CHECK(e.peak_bytes <= fraction_capacity(base, s));
    CHECK_INT(e.dp, p->dp);
    CHECK(p->plan.tp * p->plan.cp * p->plan.pp * p->dp == base->system.gpus);
}

static void test_invariants(void)
{
    const tp_config c = llama70b_on(1024);
    tp_search_space s;
    tp_search_defaults(&s);
    s.sharding[TP_SEARCH_AMSP] = 1; /* AMSP's plans must pass its own rules too */
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    const tp_search_counts *n = &result.counts;
    CHECK_INT(invalid_total(n) + n->out_of_memory + n->fit, n->candidates);
    CHECK_INT(n->time_evaluations, n->fit);
    CHECK(n->fit > 0 && n->out_of_memory > 0);
    CHECK_INT(result.top_count, s.top);
    for (int i = 0; i < result.top_count; i++) {
        check_returned_plan(&c, &s, &result.top[i]);
        if (i > 0)
            CHECK(result.top[i - 1].step_s <= result.top[i].step_s);
    }
    CHECK(result.pareto_count > 1 && !result.pareto_truncated);
    for (int i = 0; i < result.pareto_count; i++) {
        check_returned_plan(&c, &s, &result.pareto[i]);
        if (i > 0) { /* more memory buys strictly less time along the front */
            CHECK(result.pareto[i - 1].peak_bytes < result.pareto[i].peak_bytes);
            CHECK(result.pareto[i - 1].step_s > result.pareto[i].step_s);
        }
    }
    /* the sample: full, largest key first, each a real plan */
    CHECK_INT(result.sample_count, TP_SEARCH_MAX_SAMPLE);
    for (int i = 0; i < result.sample_count; i++) {
        if (i > 0)
            CHECK(result.sample[i - 1].key > result.sample[i].key);
        if (i % 17 == 0)
            check_returned_plan(&c, &s, &result.sample[i]);
    }
    /* the fastest plan ends the front */
    CHECK_NEAR(result.pareto[result.pareto_count - 1].step_s, result.top[0].step_s, 0.0);
    int amsp = 0;
    for (int i = 0; i < result.pareto_count; i++)
        amsp += result.pareto[i].plan.sharding == TP_SHARD_AMSP;
    printf("70B on 1024 GPUs: %lld plans, %lld fit; front of %d (%d AMSP)\n",
           (long long)n->candidates, (long long)n->fit, result.pareto_count, amsp);
    /* the explanation starts with the best plan's own value */
    char want[32];
    snprintf(want, sizeof want, "tp %lld: ", (long long)result.top[0].plan.tp);
    CHECK(strncmp(result.explain[TP_SEARCH_DIM_TP], want, strlen(want)) == 0);
    snprintf(want, sizeof want, "pp %lld: ", (long long)result.top[0].plan.pp);
    CHECK(strncmp(result.explain[TP_SEARCH_DIM_PP], want, strlen(want)) == 0);
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++)
        CHECK(strlen(result.explain[d]) > 8);
    /* a value's best fitting step is never faster than the best plan */
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++)
        for (int i = 0; i < result.value_count[d]; i++)
            if (result.values[d][i].fit > 0)
                CHECK(result.values[d][i].best_step_s >= result.top[0].step_s);
}

/* ---------------- a search split into parts ---------------- */

static tp_search_result part, merged;

static int same_plans(const tp_search_plan *a, const tp_search_plan *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].key != b[i].key || a[i].step_s != b[i].step_s || a[i].peak_bytes != b[i].peak_bytes)
            return 0;
    return 1;
}

/* Merging the n parts gives the whole search's result, field by field. */
static void check_parts(const char *name, const tp_config *c, const tp_search_space *s, int parts)
{
    CHECK_INT(tp_search(c, s, &result, NULL), TP_OK);
    memset(&merged, 0, sizeof merged);
    for (int k = 0; k < parts; k++) {
        CHECK_INT(tp_search_part(c, s, k, parts, &part, NULL), TP_OK);
        tp_search_merge(s, &merged, &part);
    }
    printf("%s in %d parts: %lld plans, %lld fit, front of %d, %d sampled\n", name, parts,
           (long long)merged.counts.candidates, (long long)merged.counts.fit, merged.pareto_count,
           merged.sample_count);
    CHECK(memcmp(&merged.counts, &result.counts, sizeof result.counts) == 0);
    CHECK_INT(merged.top_count, result.top_count);
    CHECK(same_plans(merged.top, result.top, result.top_count));
    CHECK_INT(merged.pareto_count, result.pareto_count);
    CHECK_INT(merged.pareto_truncated, result.pareto_truncated);
    CHECK(same_plans(merged.pareto, result.pareto, result.pareto_count));
    CHECK_INT(merged.sample_count, result.sample_count);
    CHECK(same_plans(merged.sample, result.sample, result.sample_count));
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++) {
        CHECK_INT(merged.value_count[d], result.value_count[d]);
        CHECK(memcmp(merged.values[d], result.values[d], (size_t)result.value_count[d] * sizeof result.values[d][0]) == 0);
        CHECK_STR(merged.explain[d], result.explain[d]);
    }
}

static void test_parts(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.system.gpus = 16;
    c.training.global_batch = 64;
    tp_search_space s;
    tp_search_defaults(&s);
    check_parts("8B on 16 GPUs", &c, &s, 3);
    c = llama70b_on(1024);
    s.sharding[TP_SEARCH_AMSP] = 1;
    s.top = TP_SEARCH_MAX_TOP;
    check_parts("70B on 1024 GPUs with AMSP", &c, &s, 2);
    check_parts("70B on 1024 GPUs with AMSP", &c, &s, 7);
    check_parts("70B on 1024 GPUs with AMSP", &c, &s, 64); /* more parts than shapes */
    /* no plan fits anywhere: still the same counts and explanation */
    s.memory_fraction = 0.01;
    check_parts("70B on 1024 GPUs in 1% of memory", &c, &s, 4);
    tp_error err;
    CHECK_INT(tp_search_part(&c, &s, 4, 4, &part, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "part");
    CHECK_INT(tp_search_part(&c, &s, 0, 0, &part, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "parts");
}

/* ---------------- precision ---------------- */

static tp_search_result bf16_only;

static void test_precision(void)
{
    tp_config c = llama70b_on(256);
    tp_search_space s;
    tp_search_defaults(&s);
    /* the default is the config's own precision: bf16 here */
    CHECK_INT(tp_search(&c, &s, &bf16_only, NULL), TP_OK);
    CHECK(bf16_only.top_count > 0);
    for (int i = 0; i < bf16_only.top_count; i++)
        CHECK_INT(bf16_only.top[i].fp8, 0);
    CHECK_STR(bf16_only.explain[TP_SEARCH_DIM_PRECISION], "bf16: the only choice in the space");

    /* both: fp8's GEMMs run at twice H100's BF16 peak, so the best plan is fp8 */
    s.fp8[0] = s.fp8[1] = 1;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    CHECK_INT(result.top[0].fp8, 1);
    CHECK(result.top[0].step_s < bf16_only.top[0].step_s);
    printf("70B on 256 H100s: best bf16 %.3f s, best of bf16 and fp8 %.3f s (fp8); %s\n",
           bf16_only.top[0].step_s, result.top[0].step_s, result.explain[TP_SEARCH_DIM_PRECISION]);
    for (int i = 0; i < result.top_count; i++)
        check_returned_plan(&c, &s, &result.top[i]);
    /* the bf16 half of the space is the bf16-only search: same plans, same best */
    CHECK_INT(result.value_count[TP_SEARCH_DIM_PRECISION], 2);
    const tp_search_value *bf16 = &result.values[TP_SEARCH_DIM_PRECISION][0];
    CHECK_INT(bf16->value, 0);
    CHECK_INT(bf16->fit, bf16_only.counts.fit);
    CHECK(bf16->best_step_s == bf16_only.top[0].step_s);
    CHECK(result.counts.candidates > bf16_only.counts.candidates);
    char want[64];
    snprintf(want, sizeof want, "fp8: bf16 is %.0f%% slower",
             100.0 * (bf16_only.top[0].step_s / result.top[0].step_s - 1.0));
    CHECK_STR(result.explain[TP_SEARCH_DIM_PRECISION], want);
    char label[16];
    tp_search_value_label(TP_SEARCH_DIM_PRECISION, 1, label, sizeof label);
    CHECK_STR(label, "fp8");

    /* split over parts, both precisions merge into the whole */
    check_parts("70B on 256 GPUs, bf16 and fp8", &c, &s, 3);
    check_parts("70B on 256 GPUs, bf16 and fp8", &c, &s, 200); /* more parts than one precision's shapes */

    /* an fp8 config with fp8 weights searched in bf16: its fp8 companions go
     * too, and so does the rule that kept zero0 out */
    c.training.fp8 = c.training.fp8_params = 1;
    s.fp8[1] = 0;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    for (int i = 0; i < result.top_count; i++) {
        check_returned_plan(&c, &s, &result.top[i]);
        const tp_config applied = tp_search_apply(&c, &result.top[i]);
        CHECK(!applied.training.fp8 && !applied.training.fp8_params);
    }
    CHECK(result.value_count[TP_SEARCH_DIM_SHARDING] > 0
          && result.values[TP_SEARCH_DIM_SHARDING][0].value == TP_SEARCH_ZERO0);
    /* and by default it stays fp8, with its fp8 weights */
    s.fp8[0] = 0;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    const tp_config applied = tp_search_apply(&c, &result.top[0]);
    CHECK(applied.training.fp8 && applied.training.fp8_params);

    /* an A100 has no FP8 tensor cores: asking for fp8 is refused, naming why */
    c = llama70b_on(256);
    c.system.gpu = *tp_gpu_preset_find("a100-80gb");
    s.fp8[0] = s.fp8[1] = 1;
    tp_error err;
    CHECK_INT(tp_search(&c, &s, &result, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "search.precision");
    CHECK(strstr(err.message, "fp8: training.precision.fp8: ") == err.message);
    CHECK(strstr(err.message, "system.gpu.fp8_tflops is 0") != NULL);
    CHECK_INT(tp_search_part(&c, &s, 0, 2, &result, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "search.precision");
    /* bf16 alone is fine there */
    s.fp8[1] = 0;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
}

/* ---------------- pins, ranges, reasons ---------------- */

static void test_pins_and_ranges(void)
{
    const tp_config c = llama70b_on(512);
    tp_search_space s;
    tp_search_defaults(&s);
    s.tp = (tp_range){8, 8};
    s.pp = (tp_range){2, 4};
    for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
        s.sharding[i] = i == TP_SEARCH_ZERO1;
    s.recompute[0] = s.recompute[1] = 0;
    s.placement = 0;
    s.top = 20;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    for (int i = 0; i < result.top_count; i++) {
        const tp_search_plan *p = &result.top[i];
        CHECK_INT(p->plan.tp, 8);
        CHECK(p->plan.pp >= 2 && p->plan.pp <= 4);
        CHECK(p->plan.sharding == TP_SHARD_ZERO && p->plan.zero == 1);
        CHECK_INT(p->recompute, TP_RECOMPUTE_FULL);
        CHECK(p->plan.order[0] == TP_DIM_TP && p->plan.order[1] == TP_DIM_CP
              && p->plan.order[2] == TP_DIM_DP && p->plan.order[3] == TP_DIM_PP);
    }
    CHECK(strstr(result.explain[TP_SEARCH_DIM_TP], "only choice") != NULL);

    /* tp 16 on 8-GPU nodes crosses a node unless allowed */
    tp_search_defaults(&s);
    s.tp = (tp_range){16, 16};
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK_INT(result.top_count, 0);
    CHECK_INT(result.counts.fit, 0);
    CHECK(result.counts.invalid[TP_INVALID_TP_NODE] > 0);
    s.tp_across_nodes = 1;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK_INT(result.counts.invalid[TP_INVALID_TP_NODE], 0);
    CHECK(result.top_count > 0);

    /* tp 3 splits no head count of 64 */
    tp_search_defaults(&s);
    tp_config c3 = llama70b_on(48);
    s.tp = (tp_range){3, 3};
    CHECK_INT(tp_search(&c3, &s, &result, NULL), TP_OK);
    CHECK_INT(result.counts.invalid[TP_INVALID_TP_SPLIT], result.counts.candidates);
    /* less memory allowed never finds more plans */
    tp_search_defaults(&s);
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    const int64_t fit_80 = result.counts.fit;
    s.memory_fraction = 0.5;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.counts.fit < fit_80);
    s.memory_fraction = 0.01;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK_INT(result.top_count, 0);
    CHECK_INT(result.pareto_count, 0);
}

/* Llama 3.1 405B on 16,384 H100 at 8K tokens and 16M tokens a step, as
 * torchtitan trains it: Dubey et al. 2024 Table 4 ran tp 8, pp 16 at 400
 * TFLOP/s per GPU. The search's best plan reaches within 10% of that,
 * under the 80% memory rule, and pipelines (pure FSDP, which the search
 * picked while each micro-batch's gradients were reduce-scattered across
 * the job, ran at half of it). */
static void test_llama405b_on_16k(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("llama-3.1-405b");
    tp_system_use_cluster(&c.system, tp_cluster_preset_find("dgx-h100"));
    c.system.gpus = 16384;
    c.training.framework = TP_FRAMEWORK_TORCHTITAN;
    tp_framework_defaults(&c);
    c.training.seq_len = 8192;
    c.training.global_batch = 2048;
    tp_search_space s;
    tp_search_defaults(&s);
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    const tp_search_plan *best = &result.top[0];
    const tp_config applied = tp_search_apply(&c, best);
    tp_estimate_result e;
    CHECK_INT(tp_estimate(&applied, &e, NULL), TP_OK);
    const double tflops = e.throughput.model_flop_per_s_per_gpu / 1e12;
    printf("Llama 3.1 405B on 16,384 H100: tp %lld cp %lld pp %lld v %lld, %.0f TFLOP/s per GPU, %.1f GiB\n",
           (long long)best->plan.tp, (long long)best->plan.cp, (long long)best->plan.pp,
           (long long)best->plan.virtual_stages, tflops, best->peak_bytes / 1073741824.0);
    CHECK(tflops > 0.9 * 400.0);
    CHECK(best->peak_bytes <= 0.8 * c.system.gpu.memory_bytes);
    CHECK(best->plan.pp > 1);
}

/* Seed 002 §III-A S3: every block of the rank grid that fills a node is a
 * placement, counted and estimated once. */
static void test_placements(void)
{
    tp_config c;
    tp_config_defaults(&c); /* Llama 3.1 8B: fits anywhere on 64 GPUs */
    c.system.gpus = 64;
    c.training.global_batch = 64;
    tp_search_space s;
    tp_search_defaults(&s);
    s.tp = (tp_range){2, 2};
    s.cp = (tp_range){2, 2};
    s.pp = (tp_range){4, 4};
    s.micro_batch = s.virtual_stages = (tp_range){1, 1};
    s.sp[0] = 0;
    for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
        s.sharding[i] = i == TP_SEARCH_ZERO1;
    s.recompute[0] = s.recompute[1] = 0;
    s.memory_fraction = 1.0;
    s.top = TP_SEARCH_MAX_TOP;
    /* the blocks by the rule: tp 2, cp 2, dp 4, pp 4 ranks per node each
     * dividing its size, multiplying to 8 */
    int blocks = 0, whole_tp = 0;
    for (int k = 0; k < 256; k++) {
        tp_config b = c;
        b.plan.tp = b.plan.cp = 2;
        b.plan.pp = 4;
        b.training.micro_batch = 1;
        nth_block(k, b.plan.per_node);
        if (tp_config_validate(&b, NULL) == TP_OK) {
            blocks++;
            whole_tp += b.plan.per_node[TP_DIM_TP] == 2;
        }
    }
    CHECK_INT(blocks, 10);  /* powers of two 2^(a+b+c+d), a, b <= 1, c, d <= 2, a+b+c+d = 3 */
    CHECK_INT(whole_tp, 5); /* of which a = 1: tp 2 on a node */
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK_INT(result.counts.candidates, blocks);
    CHECK_INT(result.counts.invalid[TP_INVALID_TP_NODE], blocks - whole_tp);
    CHECK_INT(result.counts.fit, whole_tp);
    CHECK_INT(result.counts.memory_evaluations, 1); /* memory does not depend on placement */
    CHECK_INT(result.top_count, whole_tp);
    int64_t per_node[TP_SEARCH_MAX_TOP][4];
    int megatron = 0;
    for (int i = 0; i < result.top_count; i++) {
        const tp_search_plan *p = &result.top[i];
        const tp_config applied = tp_search_apply(&c, p);
        plan_ranks_per_node(&applied, p->dp, per_node[i]);
        CHECK_INT(per_node[i][TP_DIM_TP], 2);
        for (int j = 0; j < i; j++)
            CHECK(memcmp(per_node[i], per_node[j], sizeof per_node[i]) != 0);
        /* Megatron's own block (tp 2, cp 2, dp 2) is written as its order */
        megatron += !plan_places_explicitly(&p->plan);
        tp_estimate_result e;
        CHECK_INT(tp_estimate(&applied, &e, NULL), TP_OK);
        CHECK_NEAR(e.time.step_s, p->step_s, 1e-12 * p->step_s);
    }
    CHECK_INT(megatron, 1);
    /* behind the attention (parallel.cp_overlap) cp's K/V exchange costs
     * its tier's overlap slowdown only, NVLink's no less than the
     * network's: the placements with pp in two nodes or fewer lie within
     * 1% of each other. Exposed, it gains most from the node: the
     * placements that keep cp whole come first, ahead by most of what the
     * exchange costs more across nodes. */
    CHECK(result.top[3].step_s < 1.01 * result.top[0].step_s);
    CHECK(per_node[0][TP_DIM_PP] <= 2 && per_node[3][TP_DIM_PP] <= 2);
    c.plan.cp_overlap = 0;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    for (int i = 0; i < 2; i++) {
        const tp_config applied = tp_search_apply(&c, &result.top[i]);
        plan_ranks_per_node(&applied, result.top[i].dp, per_node[i]);
        CHECK_INT(per_node[i][TP_DIM_CP], 2);
    }
    tp_estimate_result whole_cp, split_cp;
    const tp_config second = tp_search_apply(&c, &result.top[1]), third = tp_search_apply(&c, &result.top[2]);
    CHECK_INT(tp_estimate(&second, &whole_cp, NULL), TP_OK);
    CHECK_INT(tp_estimate(&third, &split_cp, NULL), TP_OK);
    CHECK(split_cp.time.cp_comm_s > 4.0 * whole_cp.time.cp_comm_s);
    CHECK(result.top[2].step_s - result.top[1].step_s
          > 0.8 * (split_cp.time.cp_comm_s - whole_cp.time.cp_comm_s));
    c.plan.cp_overlap = 1;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    char label[48];
    tp_search_value_label(TP_SEARCH_DIM_PLACEMENT, result.values[TP_SEARCH_DIM_PLACEMENT][0].value, label,
                          sizeof label);
    CHECK(strncmp(label, "placement tp2 ", 14) == 0);
    printf("placements of tp 2, cp 2, dp 4, pp 4 on nodes of 8: %d blocks, %d with tp whole; best %s\n",
           blocks, whole_tp, result.explain[TP_SEARCH_DIM_PLACEMENT]);

    /* 12 GPUs fill no node of 8 with a block: Megatron's order, once */
    c.system.gpus = 12;
    c.training.global_batch = 12;
    s.tp = (tp_range){1, 1};
    s.cp = s.pp = (tp_range){1, 1};
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK_INT(result.counts.candidates, 1);
    CHECK_INT(result.top_count, 1);
    CHECK(!result.top[0].plan.per_node[0] && !result.top[0].plan.per_node[3]);
    tp_search_value_label(TP_SEARCH_DIM_PLACEMENT, result.values[TP_SEARCH_DIM_PLACEMENT][0].value, label,
                          sizeof label);
    CHECK_STR(label, "placement tp-cp-dp-pp");
}

static void test_space_errors(void)
{
    tp_config c = llama70b_on(64);
    tp_search_space s;
    tp_error err;
    tp_search_defaults(&s);
    s.tp = (tp_range){0, 4};
    CHECK_INT(tp_search(&c, &s, &result, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "search.tp");
    tp_search_defaults(&s);
    s.recompute[0] = s.recompute[1] = s.recompute[2] = 0;
    CHECK_INT(tp_search(&c, &s, &result, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "search.recompute");
    tp_search_defaults(&s);
    s.memory_fraction = 1.5;
    CHECK_INT(tp_search(&c, &s, &result, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "search.memory_fraction");
    tp_search_defaults(&s);
    c.training.seq_len = 0;
    CHECK_INT(tp_search(&c, &s, &result, &err), TP_ERR_INVALID);
    CHECK_STR(err.path, "training.seq_len");
}

static void test_min_gpus(void)
{
    const tp_config c = llama70b_on(8);
    tp_search_space s;
    tp_search_defaults(&s);
    int64_t n = 0;
    CHECK_INT(tp_search_min_gpus(&c, &s, 10000000, &result, &n, NULL), TP_OK);
    printf("70B, seq 8192, global batch 1024: fits from %lld GPUs\n", (long long)n);
    CHECK(n > 1);
    tp_config at = c;
    at.system.gpus = n;
    CHECK_INT(tp_search(&at, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    at.system.gpus = n / 2;
    CHECK_INT(tp_search(&at, &s, &result, NULL), TP_OK);
    CHECK_INT(result.top_count, 0);
}

/* ---------------- JSON ---------------- */

static cJSON *search_doc(const char *json)
{
    tp_error err;
    char *text = tp_search_json(json, 0, &err);
    if (text == NULL) {
        printf("search_json: %s: %s\n", err.path, err.message);
        return NULL;
    }
    cJSON *doc = cJSON_Parse(text);
    tp_free(text);
    return doc;
}

static void expect_error(const char *json, const char *path)
{
    tp_error err;
    char *text = tp_search_json(json, 0, &err);
    CHECK(text == NULL);
    tp_free(text);
    if (text == NULL)
        CHECK_STR(err.path, path);
}

static void test_json(void)
{
    /* the plan need not suit the GPU count: the search ignores it */
    cJSON *doc = search_doc("{\"model\":{\"preset\":\"llama-3.1-70b\"},\"system\":{\"gpus\":256},"
                            "\"parallel\":{\"tp\":8},\"training\":{\"global_batch\":512},"
                            "\"search\":{\"top\":3,\"pp\":[1,8],\"gpus\":[64,128]}}");
    CHECK(doc != NULL);
    if (doc == NULL)
        return;
    const cJSON *plans = cJSON_GetObjectItem(doc, "plans");
    CHECK_INT(cJSON_GetArraySize(plans), 3);
    const cJSON *first = cJSON_GetArrayItem(plans, 0);
    const cJSON *plan = cJSON_GetObjectItem(first, "plan");
    const char *keys[] = {"tp", "pp", "cp", "dp", "micro_batch", "vpp", "sp", "sharding", "recompute",
                          "schedule", "per_node"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CHECK(cJSON_GetObjectItem(plan, keys[i]) != NULL);
    CHECK(cJSON_GetObjectItem(plan, "pp")->valuedouble <= 8);
    /* the plan's estimate, fed back to the estimator, gives its numbers */
    const cJSON *estimate = cJSON_GetObjectItem(first, "estimate");
    char *config = cJSON_PrintUnformatted(cJSON_GetObjectItem(estimate, "config"));
    tp_error err;
    char *again = tp_estimate_json(config, 0, &err);
    CHECK(again != NULL);
    if (again != NULL) {
        cJSON *e = cJSON_Parse(again);
        const double step = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "time"), "step_s")->valuedouble;
        const double want = cJSON_GetObjectItem(cJSON_GetObjectItem(estimate, "time"), "step_s")->valuedouble;
        CHECK_NEAR(step, want, 1e-9 * want);
        cJSON_Delete(e);
    }
    tp_free(again);
    free(config);
    const cJSON *counts = cJSON_GetObjectItem(doc, "counts");
    CHECK(cJSON_GetObjectItem(counts, "candidates")->valuedouble > 1000);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(counts, "invalid"), "tp_crosses_node") != NULL);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "pareto")) > 0);
    /* a full sample, and the stride it stands for */
    const int64_t fit = (int64_t)cJSON_GetObjectItem(counts, "fit")->valuedouble;
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "sample")), TP_SEARCH_MAX_SAMPLE);
    CHECK_INT((int64_t)cJSON_GetObjectItem(doc, "sample_stride")->valuedouble,
              (fit + TP_SEARCH_MAX_SAMPLE - 1) / TP_SEARCH_MAX_SAMPLE);
    CHECK(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "explain"), "tp")));
    const cJSON *scaling = cJSON_GetObjectItem(doc, "scaling");
    CHECK_INT(cJSON_GetArraySize(scaling), 2);
    CHECK_INT((int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(scaling, 1), "gpus")->valuedouble, 128);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(doc, "min_gpus")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(plan, "fp8")));
    /* the space says the precision it searched: the config's own by default */
    const cJSON *precision = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "search"), "precision");
    CHECK_INT(cJSON_GetArraySize(precision), 1);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(precision, 0)), "bf16");
    cJSON_Delete(doc);

    /* both precisions: each plan says its own, and its estimate's config reproduces it */
    doc = search_doc("{\"model\":{\"preset\":\"llama-3.1-8b\"},\"system\":{\"gpus\":16},"
                     "\"training\":{\"global_batch\":64},\"search\":{\"top\":2,\"precision\":[\"bf16\",\"fp8\"]}}");
    CHECK(doc != NULL);
    if (doc == NULL)
        return;
    first = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "plans"), 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "plan"), "fp8")));
    const cJSON *config_precision = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "estimate"), "config"), "training"),
        "precision");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(config_precision, "fp8")));
    precision = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "search"), "precision");
    CHECK_INT(cJSON_GetArraySize(precision), 2);
    CHECK(strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "explain"), "precision")),
                  "fp8: bf16 is ", 13) == 0);
    cJSON_Delete(doc);

    expect_error("{\"search\":{\"tp\":[0,4]}}", "search.tp");
    expect_error("{\"search\":{\"tp\":[1]}}", "search.tp");
    expect_error("{\"search\":{\"sharding\":[\"zero1\",\"zero9\"]}}", "search.sharding[1]");
    expect_error("{\"search\":{\"recompute\":[]}}", "search.recompute");
    expect_error("{\"search\":{\"sp\":\"yes\"}}", "search.sp");
    expect_error("{\"search\":{\"top\":0}}", "search.top");
    expect_error("{\"search\":{\"gpus\":[64,-1]}}", "search.gpus");
    expect_error("{\"search\":{\"tpp\":2}}", "search.tpp");
    expect_error("{\"search\":{\"precision\":[]}}", "search.precision");
    expect_error("{\"search\":{\"precision\":[\"bf16\",\"fp9\"]}}", "search.precision[1]");
    expect_error("{\"system\":{\"gpu\":\"a100-80gb\"},\"search\":{\"precision\":\"fp8\"}}", "search.precision");
    expect_error("{\"search\":[]}", "search");
    /* the estimator checks a search section it carries, and otherwise ignores it */
    char *text = tp_estimate_json("{\"search\":{\"pp\":\"x\"}}", 0, &err);
    CHECK(text == NULL);
    CHECK_STR(err.path, "search.pp");
    tp_free(text);
    text = tp_estimate_json("{\"search\":{\"pp\":[1,4]}}", 0, &err);
    CHECK(text != NULL);
    tp_free(text);
    /* the envelope the page's worker reads */
    text = tp_search_envelope_json("{\"search\":{\"top\":1}}");
    CHECK(text != NULL && strncmp(text, "{\"ok\":true", 10) == 0);
    tp_free(text);
    text = tp_search_envelope_json("{\"search\":{\"top\":100}}");
    CHECK(text != NULL && strstr(text, "\"path\":\"search.top\"") != NULL);
    tp_free(text);
}

/* ---------------- quality on published measurements ---------------- */

/* The search pinned to one measured configuration: its step time if the
 * plan fits in the whole memory, else -1 (seed 003 ran them all: its
 * yellow zone counts as fitting here). */
static double pinned_step_s(const tp_config *c)
{
    tp_search_space s;
    tp_search_defaults(&s);
    s.tp = (tp_range){c->plan.tp, c->plan.tp};
    s.cp = (tp_range){c->plan.cp, c->plan.cp};
    s.pp = (tp_range){c->plan.pp, c->plan.pp};
    s.micro_batch = (tp_range){c->training.micro_batch, c->training.micro_batch};
    s.virtual_stages = (tp_range){1, 1};
    s.sp[0] = 0;
    for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
        s.sharding[i] = i == TP_SEARCH_ZERO1;
    s.recompute[1] = s.recompute[2] = 0;
    s.placement = 0;
    s.memory_fraction = 1.0;
    CHECK_INT(tp_search(c, &s, &result, NULL), TP_OK);
    CHECK(result.counts.candidates == 1);
    return result.top_count > 0 ? result.top[0].step_s : -1.0;
}

typedef struct {
    int table;
    long long gpus;
    int rows;
    double best_measured, chosen_measured, chosen_step;
    char chosen[40], best[40], gpu[32];
    tp_config best_config;
} column;

/* A measured run that went out of memory, by its estimated peak. */
typedef struct {
    int table;
    char gpu[32];
    long long gpus;
    double peak_bytes;
    char label[40];
} oom_run;

static double peak_bytes(const tp_config *c)
{
    tp_estimate_result e;
    CHECK_INT(tp_estimate(c, &e, NULL), TP_OK);
    return e.peak_bytes;
}

/* The first measured OOM run from index `from` on the same GPU whose
 * estimated peak is `peak`, to the last bits of the sums: a twin; -1 if
 * there is none. */
static int oom_twin(const oom_run *ooms, int oom_count, int from, const char *gpu, double peak)
{
    for (int i = from; i < oom_count; i++)
        if (strcmp(ooms[i].gpu, gpu) == 0 && fabs(ooms[i].peak_bytes - peak) <= 1e-12 * peak)
            return i;
    return -1;
}

static void test_seed003_columns(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed003_measured.csv");
    if (csv == NULL)
        return;
    static column columns[64];
    static oom_run ooms[512];
    int count = 0, oom_count = 0;
    seed003_row row;
    while (seed003_read_row(csv, &row)) {
        const tp_config config = seed003_config(&row);
        char label[40];
        snprintf(label, sizeof label, "(%lld, %lld, %lld, %lld)", row.tp, row.cp, row.pp, row.micro_batch);
        if (strcmp(row.value, "OOM") == 0) {
            CHECK(oom_count < 512);
            if (oom_count == 512)
                continue;
            oom_run *o = &ooms[oom_count++];
            *o = (oom_run){row.table, "", row.gpus, peak_bytes(&config), ""};
            snprintf(o->gpu, sizeof o->gpu, "%s", row.gpu);
            snprintf(o->label, sizeof o->label, "%s", label);
            continue;
        }
        int k = 0;
        while (k < count && !(columns[k].table == row.table && columns[k].gpus == row.gpus))
            k++;
        if (k == count) {
            if (count == 64)
                continue;
            columns[count] = (column){row.table, row.gpus, 0, 0.0, 0.0, -1.0, "", "", "", config};
            snprintf(columns[count].gpu, sizeof columns[count].gpu, "%s", row.gpu);
            count++;
        }
        column *col = &columns[k];
        const double measured = atof(row.value);
        const double step = pinned_step_s(&config);
        col->rows++;
        if (measured > col->best_measured) {
            col->best_measured = measured;
            col->best_config = config;
            snprintf(col->best, sizeof col->best, "%s", label);
        }
        if (step > 0.0 && (col->chosen_step < 0.0 || step < col->chosen_step)) {
            col->chosen_step = step;
            col->chosen_measured = measured;
            snprintf(col->chosen, sizeof col->chosen, "%s", label);
        }
    }
    fclose(csv);
    printf("\nseed 003: the search's first choice among each column's measured plans\n");
    printf("table  GPUs  plans  best measured (tp, cp, pp, b)    chosen's measured (tp, cp, pp, b)  regret\n");
    int misses = 0, conflicts = 0;
    double worst = 0.0, sum = 0.0;
    for (int k = 0; k < count; k++) {
        const column *col = &columns[k];
        const double regret = 1.0 - col->chosen_measured / col->best_measured;
        sum += regret;
        worst = regret > worst ? regret : worst;
        /* A miss whose best measured plan the search could not take
         * without also taking a run that crashed: the estimate is a
         * function of the tensors each GPU holds, and a measured OOM run
         * holds the same ones (same peak, to the bit). Admitting the one
         * means predicting the other fits: a false fit, the error that
         * costs a user hours in a queue, where this costs some speed. */
        const double best_peak = regret > 0.05 ? peak_bytes(&col->best_config) : 0.0;
        const int twin = regret > 0.05 ? oom_twin(ooms, oom_count, 0, col->gpu, best_peak) : -1;
        misses += regret > 0.05 && twin < 0;
        conflicts += twin >= 0;
        printf("T%-4d %5lld  %5d  %13.1f %-18s %17.1f %-16s %5.1f%%%s\n", col->table, col->gpus,
               col->rows, col->best_measured, col->best, col->chosen_measured, col->chosen,
               100.0 * regret, regret <= 0.05 ? "" : twin >= 0 ? " +" : " *");
        for (int t = twin; t >= 0; t = oom_twin(ooms, oom_count, t + 1, col->gpu, best_peak))
            printf("       + the best has the estimate of Table %d's %s on %lld GPUs, which went out "
                   "of memory\n", ooms[t].table, ooms[t].label, ooms[t].gpus);
    }
    printf("%d columns: mean regret %.1f%%, worst %.1f%%; %d above issue 5's 5%% (*), %d more where "
           "the measurements conflict (+)\n", count, 100.0 * sum / count, 100.0 * worst, misses, conflicts);
    /* Issue 5 asks for every column within 5%. Seven columns missed it
     * until the kernel latency was charged to element-wise kernels too
     * (issue 4). The one column left over 5%, Table 10 on 4 GPUs (6.3%),
     * is a conflict in the data, not in the model: its best, (2, 2, 1, 2)
     * at 16K tokens, holds on each GPU what four runs on the same 4 GPUs
     * that went out of memory hold (16,384 tokens per GPU, tp 2, the
     * optimizer over 2): Table 10's own (2, 1, 1, 1), Table 4's (2, 1, 1,
     * 2) and (2, 2, 1, 4) at 8K, and Table 11's (2, 2, 1, 1) at 32K. The
     * estimate puts all five at 107% of the 94 GB. Conflicts are printed and counted apart; their
     * count, like the misses', may only fall. */
    CHECK(count == 23);
    CHECK(misses <= SEED003_COLUMN_MISSES);
    CHECK(conflicts <= SEED003_COLUMN_CONFLICTS);
}

static void test_seed004_plans(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed004_megatron_table1.csv");
    if (csv == NULL)
        return;
    printf("\nseed 004 Table 1: the paper's plan and the search's best (model TFLOP/s per GPU, predicted)\n");
    printf("%7s %5s  %-22s %8s  %-40s %8s\n", "model", "GPUs", "paper (tp, pp)", "TFLOP/s", "search",
           "TFLOP/s");
    seed004_row row;
    while (seed004_read_row(csv, &row)) {
        const tp_config paper = seed004_config(&row);
        tp_estimate_result e;
        CHECK_INT(tp_estimate(&paper, &e, NULL), TP_OK);
        tp_search_space s;
        tp_search_defaults(&s);
        CHECK_INT(tp_search(&paper, &s, &result, NULL), TP_OK);
        CHECK(result.top_count > 0);
        if (result.top_count == 0)
            continue;
        const tp_search_plan *p = &result.top[0];
        const tp_config best = tp_search_apply(&paper, p);
        tp_estimate_result b;
        CHECK_INT(tp_estimate(&best, &b, NULL), TP_OK);
        char label[64], paper_label[32];
        snprintf(label, sizeof label, "tp %lld cp %lld pp %lld v %lld b %lld %s %s", (long long)p->plan.tp,
                 (long long)p->plan.cp, (long long)p->plan.pp, (long long)p->plan.virtual_stages,
                 (long long)p->micro_batch, tp_recompute_str(p->recompute),
                 p->plan.sharding == TP_SHARD_ZERO ? (p->plan.zero ? "zero>0" : "zero0") : "sharded");
        snprintf(paper_label, sizeof paper_label, "(%lld, %lld)%s", row.tp, row.pp,
                 e.usage_fraction > s.memory_fraction ? " above 80%" : "");
        printf("%6.1fB %5lld  %-22s %8.1f  %-40s %8.1f\n", row.billions, row.gpus, paper_label,
               e.throughput.model_flop_per_s_per_gpu / 1e12, label,
               b.throughput.model_flop_per_s_per_gpu / 1e12);
        /* the paper's plan is in the space: when it fits, the best is no slower */
        if (e.usage_fraction <= s.memory_fraction)
            CHECK(b.time.step_s <= e.time.step_s * (1.0 + 1e-12));
    }
    fclose(csv);
}

/* ---------------- one rule for the estimate and the search ---------------- */

/* The search's valid plans of one pinned choice: candidates less invalid. */
static int64_t pinned_valid(const tp_config *base, const tp_search_space *s)
{
    if (tp_search(base, s, &result, NULL) != TP_OK)
        return -1;
    return result.counts.candidates - invalid_total(&result.counts);
}

static tp_range pin(int64_t v)
{
    return (tp_range){v, v};
}

/* Whether tp_config_validate accepts the plan, under one of the sharding
 * kinds the search may label it with (ZeRO 0-3 or, when hybrid, hybrid). */
static int estimate_accepts(tp_config c, int hybrid)
{
    for (int zero = 0; zero < 4; zero++) {
        c.plan.sharding = hybrid ? TP_SHARD_FSDP_HYBRID : TP_SHARD_ZERO;
        c.plan.zero = hybrid ? 0 : zero;
        if (tp_config_validate(&c, NULL) == TP_OK)
            return 1;
        if (hybrid)
            break;
    }
    return 0;
}

/* Every choice of a small space, each asked of tp_config_validate and of a
 * search pinned to it: both must accept exactly the same ones. */
static int agree_on_space(const tp_config *base, int64_t max_mb, int64_t max_v, int64_t max_ep, int64_t max_etp,
                          int *checked)
{
    const int moe = base->model.moe.experts > 0;
    const int64_t n = base->system.gpus;
    int disagree = 0;
    tp_config c = *base;
    tp_search_space s;
    tp_search_defaults(&s);
    s.placement = 0;
    s.tp_across_nodes = 1;
    s.memory_fraction = 1.0;
    for (int64_t tp = 1; tp <= n; tp++)
    for (int64_t cp = 1; tp * cp <= n; cp++)
    for (int64_t pp = 1; tp * cp * pp <= n; pp++) {
        if (n % (tp * cp * pp) != 0)
            continue;
        for (int64_t mb = 1; mb <= max_mb; mb++)
        for (int64_t v = 1; v <= max_v; v++)
        for (int64_t ep = 1; ep <= (moe ? max_ep : 1); ep++)
        for (int64_t etp = 1; etp <= (moe ? max_etp : 1); etp++)
        for (int sp = tp == 1; sp < 2; sp++) /* sp at tp 1 is one plan, on */
        for (int hybrid = 0; hybrid < 2; hybrid++)
        for (int op = 0; op < 2; op++) { /* recompute none, or selective_op (refused for MoE) */
            if (moe && tp > 1 && !sp)
                continue; /* never enumerated: the search runs MoE with sp */
            c.plan.tp = tp;
            c.plan.cp = cp;
            c.plan.pp = pp;
            c.plan.sp = sp;
            c.plan.virtual_stages = v;
            c.plan.schedule = v > 1 ? TP_SCHEDULE_INTERLEAVED : TP_SCHEDULE_1F1B;
            c.plan.ep = ep;
            c.plan.etp = moe ? etp : 0;
            c.training.micro_batch = mb;
            const tp_recompute rc = op ? TP_RECOMPUTE_SELECTIVE_OP : TP_RECOMPUTE_NONE;
            c.training.recompute = rc;
            const int accepted = estimate_accepts(c, hybrid);
            s.tp = pin(tp), s.cp = pin(cp), s.pp = pin(pp), s.micro_batch = pin(mb), s.virtual_stages = pin(v);
            s.ep = pin(ep), s.etp = pin(etp);
            s.sp[0] = !sp, s.sp[1] = sp;
            /* hybrid inside one node is ZeRO-3, over one rank a node ZeRO-0:
             * the search counts each such plan once, under that name */
            const int64_t dp = n / (tp * cp * pp), replicas = plan_replicas(&c.plan, dp);
            const int64_t intra = plan_intra_node_dp(&c, dp);
            const int label = intra == replicas && replicas > 1 ? TP_SEARCH_ZERO3
                            : intra == 1 && replicas > 1 ? TP_SEARCH_ZERO0 : TP_SEARCH_FSDP_HYBRID;
            for (int k = 0; k < TP_SEARCH_SHARDING_COUNT; k++)
                s.sharding[k] = hybrid ? k == label : k <= TP_SEARCH_ZERO3;
            for (int k = 0; k < TP_RECOMPUTE_COUNT; k++)
                s.recompute[k] = k == (int)rc;
            const int searched = pinned_valid(&c, &s) > 0;
            (*checked)++;
            if (accepted != searched) {
                disagree++;
                if (disagree <= 5)
                    fprintf(stderr, "%s on %lld GPUs: tp %lld cp %lld pp %lld mb %lld v %lld ep %lld etp %lld "
                            "sp %d %s: estimate %s, search %s\n", c.model.name, (long long)n, (long long)tp,
                            (long long)cp, (long long)pp, (long long)mb, (long long)v, (long long)ep,
                            (long long)etp, sp, hybrid ? "hybrid" : "zero", accepted ? "accepts" : "refuses",
                            searched ? "accepts" : "refuses");
            }
        }
    }
    return disagree;
}

static void test_estimate_and_search_agree(void)
{
    int checked = 0, disagree = 0;
    tp_config c;
    tp_config_defaults(&c); /* llama-3.1-8b: 32 heads, 8 kv heads, 32 layers */
    c.system.gpus = 16;
    c.training.global_batch = 48;
    disagree += agree_on_space(&c, 4, 4, 1, 1, &checked);
    /* a sequence 2 splits but 4 does not: causal cp needs 2 cp chunks */
    c.training.seq_len = 4098;
    c.system.gpus = 12;
    c.training.global_batch = 36;
    disagree += agree_on_space(&c, 3, 3, 1, 1, &checked);
    /* an encoder: cp chunks of its own */
    CHECK_INT(tp_config_from_json("{\"model\":{\"arch\":\"vit\",\"layers\":6,\"hidden\":384,\"heads\":6,"
                                  "\"ffn_hidden\":1536,\"patch_dim\":48},\"system\":{\"gpus\":12},"
                                  "\"training\":{\"seq_len\":1026,\"global_batch\":24}}", &c, NULL), TP_OK);
    disagree += agree_on_space(&c, 2, 3, 1, 1, &checked);
    /* experts: ep and etp over the stage's ranks, shared experts split by tp */
    CHECK_INT(tp_config_from_json("{\"model\":{\"preset\":\"qwen2-57b-a14b\",\"layers\":4},"
                                  "\"system\":{\"gpus\":8},\"training\":{\"global_batch\":16}}", &c, NULL), TP_OK);
    disagree += agree_on_space(&c, 2, 2, 8, 4, &checked);
    /* 61 layers (DeepSeek-V3's count), which no pp > 1 divides: balanced
     * splits up to the 2 pp - 2 <= 63 limit, interleaved into any pp v <= 63
     * chunks; then the ends given, which only some pp leave equal middle
     * shares */
    tp_config_defaults(&c);
    c.model.layers = 61;
    c.system.gpus = 48;
    c.training.global_batch = 96;
    disagree += agree_on_space(&c, 2, 2, 1, 1, &checked);
    c.system.gpus = 24;
    c.training.global_batch = 48;
    c.plan.first_stage_layers = 5;
    c.plan.last_stage_layers = 4;
    disagree += agree_on_space(&c, 2, 2, 1, 1, &checked);
    /* 30 layers: 32 units with the embedding and the LM head, which a pp
     * that does not divide 30 (pp 4) splits interleaved into any pp v <= 32
     * chunks */
    tp_config_defaults(&c);
    c.model.layers = 30;
    c.system.gpus = 16;
    c.training.global_batch = 64;
    disagree += agree_on_space(&c, 1, 4, 1, 1, &checked);
    printf("estimate and search on %d pinned choices of seven spaces: %d disagree\n", checked, disagree);
    CHECK(checked > 2000);
    CHECK_INT(disagree, 0);
}

/* ---------------- bounded work ---------------- */

static void test_work_budget(void)
{
    tp_config c = llama70b_on(1024);
    tp_search_space s;
    tp_search_defaults(&s);
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    const double whole_best = result.top[0].step_s;
    const int64_t whole_work = result.counts.work;
    CHECK_INT(result.counts.truncated, 0);
    const int64_t whole_candidates = result.counts.candidates;
    CHECK_INT(result.counts.candidates, invalid_total(&result.counts) + result.counts.out_of_memory + result.counts.fit);
    CHECK_INT(result.counts.shapes_searched, result.counts.shapes);
    /* a tenth of the work it needs: it stops, says so, and keeps its counts whole */
    s.max_evaluations = whole_work / 10;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    const tp_search_counts *n = &result.counts;
    const int64_t unsearched = n->candidates - invalid_total(n) - n->out_of_memory - n->fit;
    printf("70B on 1024 GPUs: %lld evaluations in all; within %lld it stops after %lld of %lld shapes, "
           "%lld plans unsearched, best %.3f s against %.3f s\n", (long long)whole_work,
           (long long)s.max_evaluations, (long long)n->shapes_searched, (long long)n->shapes,
           (long long)unsearched, result.top_count > 0 ? result.top[0].step_s : -1.0, whole_best);
    CHECK_INT(n->truncated, 1);
    CHECK(n->shapes_searched < n->shapes && unsearched > 0);
    /* a step of the loops and one memory model with its placements' step times past the budget, at most */
    CHECK(n->work <= s.max_evaluations + 1 + 3 * 1400);
    /* stopping changes what it saw, not the space it counts */
    CHECK_INT(n->candidates, whole_candidates);
    for (int i = 0; i < result.top_count; i++)
        check_returned_plan(&c, &s, &result.top[i]);
    CHECK(result.top_count == 0 || result.top[0].step_s >= whole_best);
    /* the parts share the budget */
    int64_t work = 0;
    for (int k = 0; k < 4; k++) {
        CHECK_INT(tp_search_part(&c, &s, k, 4, &part, NULL), TP_OK);
        work += part.counts.work;
    }
    CHECK(work <= s.max_evaluations + 4 * (1 + 3 * 1400));
}

/* The documents that once ran for minutes or hours: each ends within its
 * budget, its output says whether it was cut short, and every search in it
 * did at most its share of the work (no timing: the benchmark prints the
 * seconds, tests/bench/cases.json "documents"). */
static void test_hostile_documents(void)
{
    static const char *const documents[] = {
        "{\"model\":{\"name\":\"moe\",\"layers\":1,\"hidden\":64,\"heads\":1,\"ffn_hidden\":64,\"vocab\":100,"
        "\"moe\":{\"experts\":100000,\"experts_per_token\":1,\"expert_ffn_hidden\":10000000}},"
        "\"system\":{\"gpus\":720},\"search\":{\"etp\":[1,10000000]}}",
        "{\"model\":{\"name\":\"moe\",\"layers\":1,\"hidden\":64,\"heads\":1,\"ffn_hidden\":64,\"vocab\":100,"
        "\"moe\":{\"experts\":100000,\"experts_per_token\":1,\"expert_ffn_hidden\":10000000}},"
        "\"system\":{\"gpus\":8648640}}",
        "{\"model\":{\"preset\":\"deepseek-v3\"},\"system\":{\"cluster\":\"dgx-h100\",\"gpus\":2048},"
        "\"search\":{\"ep\":[1,10000000],\"etp\":[1,10000000],\"gpus\":[8,16,32,64,128,256,512,1024,2048,"
        "4096,8192,16384,24,48,96,192,384,768,1536,3072,6144,12288,40,80,160,320,640]}}",
        "{\"model\":{\"preset\":\"llama-3.1-405b\"},\"system\":{\"cluster\":\"dgx-h100\",\"gpus\":8648640},"
        "\"training\":{\"global_batch\":73513440},\"search\":{\"micro_batch\":[1,100000],"
        "\"virtual_stages\":[1,1000],\"tp_across_nodes\":true}}",
    };
    for (size_t i = 0; i < sizeof documents / sizeof documents[0]; i++) {
        tp_error err;
        char *out = tp_search_json(documents[i], 0, &err);
        CHECK(out != NULL);
        cJSON *doc = out != NULL ? cJSON_Parse(out) : NULL;
        const cJSON *counts = cJSON_GetObjectItem(doc, "counts");
        const double work = cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "work"));
        CHECK(work <= TP_SEARCH_MAX_EVALUATIONS + 1 + 3 * 1400);
        CHECK(cJSON_IsBool(cJSON_GetObjectItem(doc, "truncated")));
        const cJSON *point;
        cJSON_ArrayForEach(point, cJSON_GetObjectItem(doc, "scaling"))
            CHECK(cJSON_IsBool(cJSON_GetObjectItem(point, "fits")));
        printf("hostile document %zu: %.0f evaluations, %s\n", i + 1, work,
               cJSON_IsTrue(cJSON_GetObjectItem(doc, "truncated")) ? "stopped at its budget" : "whole");
        cJSON_Delete(doc);
        tp_free(out);
    }
}

/* A part arrives as bytes from a web worker: a plan in it that its
 * configuration would refuse (a rank order that is no permutation, a dp
 * the GPUs do not leave, a tp the heads do not split by) is refused with
 * the part's name, and never indexed by. The libFuzzer target met the
 * first of these. */
static void test_hostile_parts(void)
{
    static const char *const document = "{\"system\":{\"gpus\":16},\"training\":{\"global_batch\":64}}";
    char *envelope = tp_search_part_envelope_json(document, 0, 1, &part);
    CHECK(envelope != NULL && strstr(envelope, "\"ok\":true") != NULL);
    tp_free(envelope);
    CHECK(part.top_count > 0);
    envelope = tp_search_merge_envelope_json(document, &part, 1);
    CHECK(envelope != NULL && strstr(envelope, "\"ok\":true") != NULL);
    tp_free(envelope);
    const tp_search_plan good = part.top[0];
    for (int corruption = 0; corruption < 4; corruption++) {
        part.top[0] = good;
        switch (corruption) {
        case 0: part.top[0].plan.order[0] = (tp_dim)99999; break;
        case 1: part.top[0].plan.order[1] = part.top[0].plan.order[0]; break;
        case 2: part.top[0].dp = good.dp * 2; break;
        default: part.top[0].plan.tp = 3; break;
        }
        envelope = tp_search_merge_envelope_json(document, &part, 1);
        CHECK(envelope != NULL && strstr(envelope, "\"ok\":false") != NULL
              && strstr(envelope, "parts[0]") != NULL && strstr(envelope, "a plan is out of bounds") != NULL);
        tp_free(envelope);
    }
    part.top[0] = good;
}

int main(int argc, char **argv)
{
    test_against_brute_force();
    test_invariants();
    test_parts();
    test_precision();
    test_pins_and_ranges();
    test_placements();
    test_space_errors();
    test_min_gpus();
    test_json();
    test_estimate_and_search_agree();
    test_work_budget();
    test_hostile_documents();
    test_hostile_parts();
    test_llama405b_on_16k();
    test_seed003_columns(argc, argv);
    test_seed004_plans(argc, argv);
    return check_finish("search");
}
