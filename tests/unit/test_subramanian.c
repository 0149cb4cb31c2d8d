/*
 * test_subramanian: the results of Subramanian et al. 2024 ("Comprehensive
 * Performance Modeling and System Design Insights for Foundation Models",
 * docs/references.md) reproduced as checks.
 *
 * Empirical validation (§IV, Appendix "Software environment setup for
 * validation"): GPT3-175B trained with Megatron-LM on Perlmutter (4 A100 40 GB
 * per node, 4 Slingshot NICs), 512 GPUs, global batch 1024; the measured
 * optimum was (tp, pp, dp, micro-batch) = (4, 16, 8, 1). The search must rank
 * it first or within 5% of the first. The paper's space is 1D tp with sequence
 * parallelism (its Table I), 1F1B without interleaving, no context
 * parallelism, the distributed optimizer, Megatron's rank order, which we pin;
 * trainplan's whole space (interleaving, cp, recompute, every sharding and
 * placement) is checked too, with the same 5%.
 *
 * 2D tensor parallelism (Table II) is trainplan's tp x cp: n1 = tp splits
 * heads and MLP width with sequence parallelism, n2 = cp splits the sequence,
 * K and V are gathered over n2 (b l e / n1 each; cp's ring moves the same
 * (n2 - 1)/n2 of it), weights are replicated over n2, and their gradients
 * reduce over dp x n2 with the data-parallel reduction. The paper's
 * qualitative results, in its own space (no recompute, 1F1B, distributed
 * optimizer, B200 of Table A3 in NVS domains of 8, global batch 4096):
 *   - the ViT (64,800 tokens) fits with 2D TP and not with 1D TP (tp inside
 *     the NVS domain; see vit_should_need_2d_tp for tp across domains);
 *   - for GPT3-1T, 2D TP is at most about 10% faster than 1D TP (its
 *     appendix Figure 4: 5-10%), more so at scale.
 * 2D TP with SUMMA (Table A2, Algorithm 1) is parallel.tp_algorithm summa on
 * the same tp x cp grid: its volumes are checked by hand against Table A2, its
 * speedup for GPT3-1T against the same 10%, and the paper's reading of it:
 * more memory-efficient and slower than 2D TP for the ViT, and the way to fit
 * GPT3-1T on few small-capacity GPUs (A100).
 */
#include <stdio.h>

#include "check.h"
#include "tp_internal.h"

static tp_search_result result; /* large: kept off the stack */

/* The step time of the fastest plan with these sizes (and no cp) among the
 * search's top plans, or -1 when none is there; with one_f_one_b only plans
 * without interleaving (the paper's schedule). Recompute is left free: the
 * paper does not give it. */
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

/* A model of the paper on gpus GPUs of a cluster preset, in FP16 as the paper
 * ran it (its validation, and Table A3's what-if studies). */
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

/* The paper's search space: tp (n1) and cp (n2, up to max_cp; 1 is 1D TP), pp
 * and dp, micro-batches, 1F1B without interleaving, the distributed
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
               whole ? "trainplan's whole" : "the paper's", (long long)b->plan.tp,
               (long long)b->plan.cp, (long long)b->plan.pp, (long long)b->dp,
               (long long)b->micro_batch, (long long)b->plan.virtual_stages, first, rank,
               measured_best, 100.0 * (measured_best - first) / first, rank_1f1b, as_run,
               100.0 * (as_run - first) / first);
        CHECK(rank > 0);
        CHECK(measured_best > 0.0 && measured_best <= 1.05 * first);
        /* In the paper's own space its optimum is ours. The whole space adds
         * interleaving, which the paper did not run: there the 1F1B plan it
         * measured is 5.8% behind the interleaved one, as
         * Narayanan et al. 2021 §2.2.2 says interleaving shrinks the bubble of
         * 15 stages over 128 micro-batches (11.7% -> 2.0% with 6 chunks). */
        if (!whole)
            CHECK_INT(rank_1f1b, 1);
    }
}

/* The what-if studies' space: the paper's, without recompute (its model has
 * none), with cp up to max_cp. */
static tp_search_space what_if_space(int64_t max_cp)
{
    tp_search_space s = seed002_space(max_cp);
    s.recompute[TP_RECOMPUTE_SELECTIVE] = s.recompute[TP_RECOMPUTE_FULL] = 0;
    return s;
}

/* The best plan of the what-if space with cp up to max_cp under a tp
 * algorithm (step_s -1 when none fits), and in *fit the plans that fit. */
static tp_search_plan what_if_best(const tp_config *c, int64_t max_cp, tp_tp_algorithm algorithm, int64_t *fit)
{
    tp_config with = *c;
    with.plan.tp_algorithm = algorithm;
    tp_search_space s = what_if_space(max_cp);
    CHECK_INT(tp_search(&with, &s, &result, NULL), TP_OK);
    *fit = result.counts.fit;
    tp_search_plan best = {.step_s = -1.0};
    if (result.top_count > 0)
        best = result.top[0];
    return best;
}

/* §IV (Q2 iv): the ViT's activations make 1D TP infeasible at every scale, and
 * 2D TP fits. The paper keeps each layer's gathered LayerNorm outputs whole
 * (X~ and Y~ of Table I are (b, l, e) on every rank); trainplan keeps them
 * split over tp as Megatron's sequence parallelism does
 * (Korthikanti et al. 2023 §4.2.2) and so fits 1D TP of 16 across two NVS
 * domains, which the paper cannot: inside one domain, as the search runs by
 * default, 1D TP does not fit on any count. And its appendix: "2D TP SUMMA is
 * very similar to 2D TP, with the latter showing better performance (training
 * times) and the former showing better memory utilization": SUMMA's best plan
 * is slower than 2D TP's, and 2D TP's plan run with SUMMA needs less
 * memory. */
static void vit_should_need_2d_tp_and_summa_trade_speed_for_memory(void)
{
    static const int64_t counts[] = {1024, 4096, 16384};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        const tp_config c = seed002_config("vit-era5", "lbnl-b200", counts[i], 64800, 4096);
        int64_t fit_1d, fit_2d, fit_summa;
        what_if_best(&c, 1, TP_TP_MEGATRON, &fit_1d);
        const tp_search_plan two_d = what_if_best(&c, 64, TP_TP_MEGATRON, &fit_2d);
        const tp_search_plan summa = what_if_best(&c, 64, TP_TP_SUMMA, &fit_summa);
        CHECK_INT(fit_1d, 0);
        CHECK(fit_2d > 0 && fit_summa > 0);
        if (two_d.step_s <= 0.0 || summa.step_s <= 0.0)
            continue;
        CHECK(two_d.plan.cp > 1);
        tp_config same = c; /* the 2D TP plan run with SUMMA instead */
        same.plan = two_d.plan;
        same.training.micro_batch = two_d.micro_batch;
        same.training.recompute = two_d.recompute;
        same.plan.tp_algorithm = TP_TP_SUMMA;
        tp_estimate_result r;
        CHECK_INT(tp_estimate(&same, &r, NULL), TP_OK);
        printf("ViT on %lld B200: 1D TP fits %lld plans; 2D TP %lld, best tp %lld cp %lld pp %lld, %.1f s,"
               " %.0f GiB; SUMMA best tp %lld cp %lld pp %lld n_b %lld, %.1f s, %.0f GiB;"
               " 2D TP's plan with SUMMA %.0f GiB\n",
               (long long)counts[i], (long long)fit_1d, (long long)fit_2d, (long long)two_d.plan.tp,
               (long long)two_d.plan.cp, (long long)two_d.plan.pp, two_d.step_s, two_d.peak_bytes / TP_GIB,
               (long long)summa.plan.tp, (long long)summa.plan.cp, (long long)summa.plan.pp,
               (long long)summa.plan.summa_panels, summa.step_s, summa.peak_bytes / TP_GIB,
               r.peak_bytes / TP_GIB);
        CHECK(summa.step_s > two_d.step_s);
        CHECK(r.peak_bytes < two_d.peak_bytes);
    }
}

/* Appendix Figure 4: both 2D variants speed GPT3-1T up over 1D TP by at most
 * about 10% (5-10%).
 * (b) 2D TP: 0-7.2% here, more at large scale; 1D TP is enough at 512.
 * (a) SUMMA: slower than 1D TP here (10-17% at 512-16,384 GPUs) where the
 *     paper finds it 5-10% faster: its 1D TP keeps the gathered LayerNorm
 *     outputs whole on every rank, so SUMMA's smaller footprint buys it less
 *     pipeline and larger micro-batches; trainplan's 1D TP splits them
 *     (sequence parallelism), which leaves SUMMA only its weights over n2 to
 *     gain, while its broadcasts move more than 1D TP's gathers (Table A2
 *     against Table I). The bound holds either way. */
static void gpt3_1t_should_gain_at_most_about_10_percent_from_2d_variants(void)
{
    static const int64_t counts[] = {512, 2048, 8192, 16384};
    double speedup[4];
    for (size_t i = 0; i < 4; i++) {
        const tp_config c = seed002_config("gpt3-1t", "lbnl-b200", counts[i], 2048, 4096);
        int64_t fit;
        const double t1 = what_if_best(&c, 1, TP_TP_MEGATRON, &fit).step_s;
        const tp_search_plan two_d = what_if_best(&c, 64, TP_TP_MEGATRON, &fit);
        const tp_search_plan summa = what_if_best(&c, 64, TP_TP_SUMMA, &fit);
        CHECK(t1 > 0.0 && two_d.step_s > 0.0 && summa.step_s > 0.0);
        speedup[i] = t1 / two_d.step_s - 1.0;
        const double summa_speedup = t1 / summa.step_s - 1.0;
        printf("GPT3-1T on %lld B200: 1D TP %.2f s; 2D TP %.2f s (n1 %lld, n2 %lld): %+.1f%%;"
               " SUMMA %.2f s (n1 %lld, n2 %lld, pp %lld, n_b %lld): %+.1f%%\n",
               (long long)counts[i], t1, two_d.step_s, (long long)two_d.plan.tp, (long long)two_d.plan.cp,
               100.0 * speedup[i], summa.step_s, (long long)summa.plan.tp, (long long)summa.plan.cp,
               (long long)summa.plan.pp, (long long)summa.plan.summa_panels, 100.0 * summa_speedup);
        CHECK(speedup[i] >= 0.0 && speedup[i] <= 0.10);
        CHECK(summa_speedup <= 0.10);
    }
    CHECK(speedup[3] > speedup[0] + 0.02); /* 2D TP pays at scale, not at 512 */
}

/* The best 1D TP plan of the what-if space for GPT3-1T on B200 in NVS
 * domains of nvs GPUs (as many NICs), every placement searched or
 * Megatron's order alone; its ranks per node in per_node. */
static tp_search_plan gpt3_1t_placed(int64_t gpus, int64_t nvs, int all, int64_t per_node[4])
{
    tp_config c = seed002_config("gpt3-1t", "lbnl-b200", gpus, 2048, 4096);
    c.system.gpus_per_node = c.system.network.nics_per_node = nvs;
    tp_search_space s = what_if_space(1);
    s.placement = all;
    CHECK_INT(tp_search(&c, &s, &result, NULL), TP_OK);
    CHECK(result.top_count > 0);
    tp_search_plan best = result.top[0];
    const tp_config applied = tp_search_apply(&c, &best);
    plan_ranks_per_node(&applied, best.dp, per_node);
    return best;
}

/* §III-A S3: the search tries every block of the rank grid that fills an NVS
 * domain (n_NVS1 n_NVS2 n_NVSp n_NVSd = n_NVS), which "can be quite important
 * with larger NVS domains". Its GPT3-1T results on B200 with 1D TP (Figure 4,
 * Q2 ii, NVS 8): "the full NVS domain is used for TP at 8192 GPUs and beyond";
 * with NVS 64 (Figure 2b, Q1 iii) "the optimal configuration shifts to heavily
 * decreased PP with the entire NVS domain used for DP and TP". Both hold here.
 * At 1024 and 2048 GPUs the paper reports (n_NVS1, n_NVSd, n_NVSp) = (2, 2, 2)
 * and (n_NVS1, n_NVSp) = (4, 2); trainplan picks tp 4 with pp 2 and with dp 2
 * on a node, the same kind of split domain, printed beside them and not
 * asserted: the choice turns on fractions of a percent. What placement search
 * gains over Megatron's order is small on domains of 8 and grows on domains of
 * 64. */
static void placement_should_fill_the_nvs_domain_as_seed002_reports(void)
{
    static const int64_t counts[] = {1024, 2048, 8192, 16384};
    double gain[2] = {0.0, 0.0};
    int64_t pp_8[4];
    for (int large = 0; large <= 1; large++) {
        const int64_t nvs = large ? 64 : 8;
        for (size_t i = 0; i < 4; i++) {
            int64_t order_per_node[4], per_node[4];
            const double t_order = gpt3_1t_placed(counts[i], nvs, 0, order_per_node).step_s;
            const tp_search_plan b = gpt3_1t_placed(counts[i], nvs, 1, per_node);
            const double g = t_order / b.step_s - 1.0;
            gain[large] = g > gain[large] ? g : gain[large];
            printf("GPT3-1T on %lld B200, NVS %lld: tp %lld pp %lld dp %lld, per node tp %lld dp %lld pp %lld,"
                   " %.2f s; Megatron's order %.2f s (%+.1f%%)\n",
                   (long long)counts[i], (long long)nvs, (long long)b.plan.tp, (long long)b.plan.pp,
                   (long long)b.dp, (long long)per_node[TP_DIM_TP], (long long)per_node[TP_DIM_DP],
                   (long long)per_node[TP_DIM_PP], b.step_s, t_order, 100.0 * g);
            CHECK(b.step_s <= t_order);
            if (!large) {
                pp_8[i] = b.plan.pp;
                if (counts[i] >= 8192) /* the whole domain is tp */
                    CHECK_INT(per_node[TP_DIM_TP], 8);
            } else if (counts[i] >= 8192) { /* the whole domain is tp x dp, pp cut */
                CHECK_INT(per_node[TP_DIM_TP] * per_node[TP_DIM_DP], 64);
                CHECK(b.plan.pp * 4 <= pp_8[i]);
            }
        }
    }
    printf("placement search gains at most %.1f%% on NVS 8, %.1f%% on NVS 64\n", 100.0 * gain[0],
           100.0 * gain[1]);
    CHECK(gain[1] > gain[0] + 0.005);
}

/* Table A2 by hand: on one NVS domain with no latency and every link at its
 * line rate, one panel (nothing overlapped), a GPT layer's forward moves two
 * LayerNorm all-reduces and W_O's reduce-scatter of ble/n2 over n1, and the
 * broadcasts of Q, K, V (V1 = ble/n2 + e^2/n1 each), W1 (V2 = ble/n2 + ef/n1)
 * and W2 (V3 = V2 as printed: W2's output (b, l/n2, e/n1) is the narrower
 * side, so it is reduced rather than its input broadcast); backward the same
 * collectives and two multiplies per forward one. The embedding
 * reduce-scatters its output; the head is one more multiply, of ble/n2 +
 * ev/n1. */
static void summa_should_move_table_a2_volumes(void)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find("gpt3-175b");
    c.model.layers = 4;
    c.system.gpus = c.system.gpus_per_node = 8;
    c.system.network.fast.latency_s = 0.0;
    c.system.network.fast.efficiency = 1.0;
    c.training.seq_len = 2048;
    c.training.global_batch = 2;
    c.plan.tp = 4;
    c.plan.cp = 2;
    c.plan.tp_algorithm = TP_TP_SUMMA;
    c.plan.summa_panels = 1;
    tp_estimate_result r;
    tp_error err;
    CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
    const double n1 = 4.0, n2 = 2.0, b = 1.0, l = 2048.0, L = 4.0;
    const double e = (double)c.model.hidden, f = (double)c.model.ffn_hidden, v = (double)c.model.vocab;
    const double bw = c.system.network.fast.bytes_per_s, bytes = 2.0 * b * l / n2 * e;
    const double ble = b * l * e / n2;
    const double v1 = ble + e * e / n1, v2 = ble + e * f / n1, v3 = v2;
    const double summa = 2.0 * (3.0 * v1 + v2 + v3) / bw;
    const double around = 2.0 * (2.0 * (n1 - 1.0) / n1 * bytes / bw) + (n1 - 1.0) / n1 * bytes / bw;
    const double head = 2.0 * (ble + e * v / n1) / bw;
    const double m = (double)r.micro_batches;
    const double expected = m * (L * (2.0 * around + 3.0 * summa) + (n1 - 1.0) / n1 * bytes / bw + 3.0 * head);
    printf("SUMMA on a 4 x 2 grid: tp_comm_s %.6f s, Table A2 by hand %.6f s\n", r.time.tp_comm_s, expected);
    CHECK_NEAR(r.time.tp_comm_s, expected, 1e-12 * expected);
    CHECK_INT(r.time.summa_panels, 1);
    /* no shared weights: what 1D TP keeps on a rank is split over n2 too */
    tp_config one_d = c;
    one_d.plan.tp_algorithm = TP_TP_MEGATRON;
    one_d.plan.summa_panels = 0;
    tp_estimate_result r1;
    CHECK_INT(tp_estimate(&one_d, &r1, &err), TP_OK);
    CHECK_NEAR(r.stages[0].params, r1.stages[0].params / n2, 1e-12 * r.stages[0].params);
}

/* §IV (Q3 iii): "2D TP SUMMA can particularly help in the
 * resource constrained regime: smaller number of GPUs, small capacity (as
 * in A100)". On 512 of Table A3's A100s GPT3-1T fits no 1D or 2D TP plan
 * of the what-if space (no recompute) and fits with SUMMA; on 1,024 SUMMA
 * fits many times the plans. */
static void gpt3_1t_should_fit_more_plans_with_summa_on_a100(void)
{
    static const int64_t counts[] = {512, 1024};
    for (size_t i = 0; i < 2; i++) {
        const tp_config c = seed002_config("gpt3-1t", "lbnl-a100", counts[i], 2048, 4096);
        int64_t fit_megatron, fit_summa;
        what_if_best(&c, 64, TP_TP_MEGATRON, &fit_megatron);
        what_if_best(&c, 64, TP_TP_SUMMA, &fit_summa);
        printf("GPT3-1T on %lld A100: 1D and 2D TP fit %lld plans, SUMMA %lld\n", (long long)counts[i],
               (long long)fit_megatron, (long long)fit_summa);
        CHECK(fit_summa > 10 * fit_megatron);
        if (i == 0)
            CHECK_INT(fit_megatron, 0);
    }
}

int main(void)
{
    search_should_rank_the_measured_optimum_of_gpt3_175b_first_or_close();
    placement_should_fill_the_nvs_domain_as_seed002_reports();
    vit_should_need_2d_tp_and_summa_trade_speed_for_memory();
    gpt3_1t_should_gain_at_most_about_10_percent_from_2d_variants();
    summa_should_move_table_a2_volumes();
    gpt3_1t_should_fit_more_plans_with_summa_on_a100();
    return check_finish("subramanian2024");
}
