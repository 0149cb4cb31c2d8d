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

static tp_config gpt3_175b_on_perlmutter(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("gpt3-175b");
    const tp_cluster *perlmutter = tp_cluster_preset_find("perlmutter");
    c.system.gpu = *tp_gpu_preset_find(perlmutter->gpu);
    c.system.gpus_per_node = perlmutter->gpus_per_node;
    c.system.network = perlmutter->network;
    c.system.gpus = 512;
    c.training.seq_len = 2048;
    c.training.global_batch = 1024;
    c.training.weights_dtype = TP_DTYPE_FP16; /* seed 002 ran FP16 */
    return c;
}

static void search_should_rank_the_measured_optimum_of_gpt3_175b_first_or_close(void)
{
    const tp_config c = gpt3_175b_on_perlmutter();
    for (int whole = 0; whole <= 1; whole++) {
        tp_search_space s;
        tp_search_defaults(&s);
        s.top = TP_SEARCH_MAX_TOP;
        if (!whole) {
            s.cp.min = s.cp.max = 1;
            s.virtual_stages.min = s.virtual_stages.max = 1;
            s.sp[0] = 0; /* sp on only */
            for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
                s.sharding[i] = i == TP_SEARCH_ZERO1;
            s.placement = 0;
        }
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

int main(void)
{
    search_should_rank_the_measured_optimum_of_gpt3_175b_first_or_close();
    return check_finish("seed002");
}
