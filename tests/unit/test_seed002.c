/*
 * test_seed002: seed 002's results (Subramanian et al., "Comprehensive
 * Performance Modeling and System Design Insights for Foundation Models")
 * reproduced as checks.
 *
 * Empirical validation (seed 002 §IV, Appendix "Software environment setup
 * for validation"): GPT3-175B trained with Megatron-LM on Perlmutter (4 A100
 * 40 GB per node, 4 Slingshot NICs), 512 GPUs, global batch 1024; the
 * measured optimum was (tp, pp, dp, micro-batch) = (4, 16, 8, 1). Issue 9
 * asks that the search rank it first or within 5% of the first. Seed 002's
 * space is 1D tp with sequence parallelism (its Table I), 1F1B without
 * interleaving, no context parallelism, the distributed optimizer, Megatron's
 * rank order, which we pin; trainplan's whole space (interleaving, cp,
 * recompute, every sharding and placement) is checked too, with the same 5%.
 *
 * 2D tensor parallelism (seed 002 Table II) is trainplan's tp x cp: n1 = tp
 * splits heads and MLP width with sequence parallelism, n2 = cp splits the
 * sequence, K and V are gathered over n2 (b l e / n1 each; cp's ring moves
 * the same (n2 - 1)/n2 of it), weights are replicated over n2, and their
 * gradients reduce over dp x n2 with the data-parallel reduction. Seed 002's
 * qualitative results, in its own space (no recompute, 1F1B, distributed
 * optimizer, B200 of Table A3 in NVS domains of 8, global batch 4096):
 *   - the ViT (64,800 tokens) fits with 2D TP and not with 1D TP (tp inside
 *     the NVS domain; see vit_should_need_2d_tp for tp across domains);
 *   - for GPT3-1T, 2D TP is at most about 10% faster than 1D TP (its
 *     appendix Figure 4: 5-10%), more so at scale.
 */
#include <stdio.h>

#include "check.h"
#include "tp_internal.h"

static tp_search_result result; /* large: kept off the stack */

/* The step time of the fastest plan with these sizes (and no cp) among the
 * search's top plans, or -1 when none is there; with one_f_one_b only
 * plans without interleaving (seed 002's schedule). Recompute is left free:
 * seed 002 does not give it. */
static double step_of(const tp_search_result *r, int64_t tp, int64_t pp, int64_t dp, int64_t mb,
                      int one_f_one_b, int *rank)
{
    for (int i = 0; i < r->top_count; i++) {
        const tp_search_plan *p = &r->top[i];
        if (p->plan.tp == tp && p->plan.pp == pp && p->dp == dp && p->micro_batch == mb
            && p->plan.cp == 1 && (!one_f_one_b || p->plan.virtual_stages == 1)) {
            *rank = i + 1;
            return p->step_s;
        }
    }
    *rank = 0;
    return -1.0;
}

/* A model of seed 002 on gpus GPUs of a cluster preset, in FP16 as seed
 * 002 ran (its validation, and Table A3's what-if studies). */
static tp_config seed002_config(const char *model, const char *cluster, int64_t gpus, int64_t seq_len,
                                int64_t global_batch)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find(model);
    tp_system_use_cluster(&c.system, tp_cluster_preset_find(cluster));
    c.system.gpus = gpus;
    c.training.seq_len = seq_len;
    c.training.global_batch = global_batch;
    c.training.weights_dtype = TP_DTYPE_FP16;
    return c;
}

/* Seed 002's search space: tp (n1) and cp (n2, up to max_cp; 1 is 1D TP),
 * pp and dp, micro-batches, 1F1B without interleaving, the distributed
 * optimizer. */
static tp_search_space seed002_space(int64_t max_cp)
{
    tp_search_space s;
    tp_search_defaults(&s);
    s.cp.max = max_cp;
    s.virtual_stages.min = s.virtual_stages.max = 1;
    for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
        s.sharding[i] = i == TP_SEARCH_ZERO1;
    return s;
}

static void search_should_rank_the_measured_optimum_of_gpt3_175b_first_or_close(void)
{
    const tp_config c = seed002_config("gpt3-175b", "perlmutter", 512, 2048, 1024);
    for (int whole = 0; whole <= 1; whole++) {
        tp_search_space s;
        if (whole) {
            tp_search_defaults(&s);
        } else { /* as measured: sp on, Megatron's rank order */
            s = seed002_space(1);
            s.sp[0] = 0;
            s.placement = 0;
        }
        s.top = TP_SEARCH_MAX_TOP;
        CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
        CHECK(result.top_count > 0);
        if (result.top_count == 0)
            continue;
        int rank, rank_1f1b;
        const double measured_best = step_of(&result, 4, 16, 8, 1, 0, &rank);
        const double as_run = step_of(&result, 4, 16, 8, 1, 1, &rank_1f1b);
        const double first = result.top[0].step_s;
        const tp_search_plan *b = &result.top[0];
        printf("GPT3-175B, 512 A100 (%s space): first is tp %lld cp %lld pp %lld dp %lld mb %lld"
               " v %lld at %.2f s; (4, 16, 8, 1) ranks %d at %.2f s (%+.1f%%), as run (1F1B) %d"
               " at %.2f s (%+.1f%%)\n",
               whole ? "trainplan's whole" : "seed 002's", (long long)b->plan.tp,
               (long long)b->plan.cp, (long long)b->plan.pp, (long long)b->dp,
               (long long)b->micro_batch, (long long)b->plan.virtual_stages, first, rank,
               measured_best, 100.0 * (measured_best - first) / first, rank_1f1b, as_run,
               100.0 * (as_run - first) / first);
        CHECK(rank > 0);
        CHECK(measured_best > 0.0 && measured_best <= 1.05 * first);
        /* In seed 002's own space its optimum is ours. The whole space adds
         * interleaving, which seed 002 did not run: there the 1F1B plan it
         * measured is 5.8% behind the interleaved one, as seed 004 §2.2.2
         * says interleaving shrinks the bubble of 15 stages over 128
         * micro-batches (11.7% -> 2.0% with 6 chunks). */
        if (!whole)
            CHECK_INT(rank_1f1b, 1);
    }
}

/* The what-if studies' space: seed 002's, without recompute (its model
 * has none), with cp up to max_cp. */
static tp_search_space what_if_space(int64_t max_cp)
{
    tp_search_space s = seed002_space(max_cp);
    s.recompute[TP_RECOMPUTE_SELECTIVE] = s.recompute[TP_RECOMPUTE_FULL] = 0;
    return s;
}

/* Seed 002 §IV (Q2 iv): the ViT's activations make 1D TP infeasible at
 * every scale, and 2D TP fits. Seed 002 keeps each layer's gathered
 * LayerNorm outputs whole (X~ and Y~ of Table I are (b, l, e) on every
 * rank); trainplan keeps them split over tp as Megatron's sequence
 * parallelism does (Korthikanti et al. 2023 §4.2.2) and so fits 1D TP of 16
 * across two NVS domains, which seed 002 cannot: inside one domain, as the
 * search runs by default, 1D TP does not fit on any count. */
static void vit_should_need_2d_tp(void)
{
    static const int64_t counts[] = {1024, 4096, 16384};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        const tp_config c = seed002_config("vit-seed002", "seed002-b200", counts[i], 64800, 4096);
        tp_search_space one_d = what_if_space(1), two_d = what_if_space(64);
        CHECK_INT(tp_search(&c, &one_d, &result, NULL), TP_OK);
        const int64_t fit_1d = result.counts.fit;
        CHECK_INT(fit_1d, 0);
        CHECK_INT(tp_search(&c, &two_d, &result, NULL), TP_OK);
        CHECK(result.counts.fit > 0);
        if (result.top_count == 0)
            continue;
        const tp_search_plan *b = &result.top[0];
        printf("ViT on %lld B200: 1D TP fits %lld plans; 2D TP %lld, best n1 = tp %lld, n2 = cp %lld,"
               " pp %lld, %.1f s a step, %.0f GiB\n",
               (long long)counts[i], (long long)fit_1d, (long long)result.counts.fit,
               (long long)b->plan.tp, (long long)b->plan.cp, (long long)b->plan.pp, b->step_s,
               b->peak_bytes / TP_GIB);
        CHECK(b->plan.cp > 1);
    }
}

/* Seed 002 appendix Figure 4(b): 2D TP speeds GPT3-1T up by about 5-10%
 * over 1D TP, more at large scale; 1D TP is enough at small scale. */
static void gpt3_1t_should_gain_at_most_about_10_percent_from_2d_tp(void)
{
    static const int64_t counts[] = {512, 2048, 8192, 16384};
    double speedup[4];
    for (size_t i = 0; i < 4; i++) {
        const tp_config c = seed002_config("gpt3-1t", "seed002-b200", counts[i], 2048, 4096);
        tp_search_space one_d = what_if_space(1), two_d = what_if_space(64);
        CHECK_INT(tp_search(&c, &one_d, &result, NULL), TP_OK);
        const double t1 = result.top_count > 0 ? result.top[0].step_s : -1.0;
        CHECK_INT(tp_search(&c, &two_d, &result, NULL), TP_OK);
        const double t2 = result.top_count > 0 ? result.top[0].step_s : -1.0;
        CHECK(t1 > 0.0 && t2 > 0.0);
        speedup[i] = t1 / t2 - 1.0;
        printf("GPT3-1T on %lld B200: 1D TP %.2f s, 2D TP %.2f s (n1 %lld, n2 %lld): %+.1f%%\n",
               (long long)counts[i], t1, t2, (long long)result.top[0].plan.tp,
               (long long)result.top[0].plan.cp, 100.0 * speedup[i]);
        CHECK(speedup[i] >= 0.0 && speedup[i] <= 0.10);
    }
    CHECK(speedup[3] > speedup[0] + 0.02); /* 2D TP pays at scale, not at 512 */
}

int main(void)
{
    search_should_rank_the_measured_optimum_of_gpt3_175b_first_or_close();
    vit_should_need_2d_tp();
    gpt3_1t_should_gain_at_most_about_10_percent_from_2d_tp();
    return check_finish("seed002");
}
