/*
 * test_perf_measured: how well does the performance model predict published
 * training throughput? Prints, per table, the mean absolute percentage error
 * (MAPE) of TFLOP/s per GPU, the Spearman rank correlation of the table's
 * configurations, and the regret of the configuration the model ranks best
 * (its measured TFLOP/s against the best measured), beside the naive
 * baseline "MFU is a constant per GPU type" (the median of the table's own
 * rows: a MAPE, and no ranking at all). Run with "--rows" as the second
 * argument to print every row.
 *
 * Data and our reading of it (the hardware is not printed in the tables):
 *   seed 003 Tables 3 and 6 (A100 SXM 40 GB, 8 per node, 4 x HDR 200 Gb/s:
 *   cluster preset abci-a100) and Tables 4, 10 and 11 (H100 94 GB, 4 per node,
 *   4 x NDR200: tsubame4); Megatron-LM core 0.8 with Transformer Engine,
 *   FlashAttention, sequence parallelism, distributed optimizer, bf16 with
 *   fp32 gradients, no recompute (seed 003 §4, Appendix: a fork of
 *   Megatron-LM mcore v0.8.0). Its data loader builds each sample's causal
 *   mask unless run with --no-create-attention-mask-in-dataloader, which
 *   the paper does not mention: we take the default (training.
 *   dataloader_mask, set for every seed 003 row). The figure is
 *   Megatron's model TFLOP/s (no recompute, attention over all keys).
 *   tests/golden/seed003_measured.csv, the cells that ran.
 *
 *   seed 004 Table 1 (GPT-3 family on Selene: DGX A100 80 GB, 8 per node,
 *   8 x HDR 200 Gb/s: dgx-a100). Full recompute (§5.1: the 96 B s l h^2
 *   count includes it, and the printed TFLOP/s use that count, so they are
 *   compared with hardware TFLOP/s), dropout, tied embeddings, vocabulary
 *   51,200, sequence 2,048. Each row's micro-batch (16 down to 1) and
 *   model chunks (interleaved for 76B-530B) as the paper's own launch
 *   scripts set them (Megatron-LM examples/sc21/run_table_1.sh), and the
 *   software of 2021: no FlashAttention, no sequence parallelism, no
 *   distributed optimizer, fp16 gradients (measured_rows.c).
 *   tests/golden/seed004_megatron_table1.csv.
 *
 *   seed 000 Tables 12, 16 and 20 (tokens per GPU per second of PyTorch
 *   FSDP on JUWELS-like 4-GPU A100 40 GB nodes with 4 x 200 or 4 x 100
 *   Gb/s: cluster presets a100-4x-200g and a100-4x-100g), one row per cell
 *   that ran, its configuration from Tables 4-6 (the tables print values
 *   left-aligned without blanks, so the k-th value of a row belongs to the
 *   k-th model Table 4-6 lists for that GPU count; Table 16's 128-GPU row
 *   prints no throughput for the 175B cell that Table 15 gives MFU 0.03).
 *   tests/golden/seed000_fsdp.csv, built by hand from the paper.
 *
 * Issue 4's thresholds: MAPE <= 15% over all rows, Spearman >= 0.7 in every
 * table with at least 5 rows, regret <= 10% in every table, and a MAPE below
 * the baseline's in every table. The model does not meet them all yet; the
 * report marks each figure that misses its threshold, and the test asserts
 * that no figure gets worse than the model reached when this test was
 * written (reached[] below), so every change to the model must hold or
 * improve the fit. Tighten reached[] as the model improves. Figures have
 * moved the other way six times, each time in a trade stated here:
 *   1. seed 003 Table 3's MAPE rose 12.6% -> 13.1% (its rank correlation
 *      0.605 -> 0.658) when the A100 attention and InfiniBand efficiencies
 *      were refitted on seeds 000 and 001 as well, which took the overall
 *      MAPE from 22.7% to 18.0%.
 *   2. Charging the kernel latency to each element-wise kernel too (norms,
 *      residual adds, activation, rotary), with the GPU efficiencies and
 *      latencies refitted on every table but Table 11, took the overall
 *      MAPE from 17.8% to 16.0% and lifted seven tables (T3's rank
 *      correlation 0.658 -> 0.843, T4's 0.670 -> 0.774, seed 004's 0.250
 *      -> 0.738 with its regret 16.0% -> 0.0%, seed 000 Table 20's MAPE
 *      12.6% -> 6.5%), at the cost of seed 000 Table 16's rank correlation
 *      (0.714 -> 0.683), seed 001 Table V's (0.664 -> 0.517, twelve rows of
 *      three models whose order by TFLOP/s turns on a few percent) and its
 *      MAPE (11.7% -> 14.7%), seed 004's MAPE (8.2% -> 9.6%) and Table
 *      11's (101.1% -> 104.8%).
 *   3. The data loader's pace (time.c; seed 003 rows set
 *      training.dataloader_mask, Megatron-LM core 0.8's default, with the
 *      one loader rate fitted on Tables 10 and 11) took Table 11 from
 *      104.8% to 13.2% (rank 0.347 -> 0.885, regret 7.4% -> 0.0%), Table
 *      10's MAPE from 7.9% to 7.6% and the overall MAPE from 15.9% to
 *      8.7%, at the cost of Table 10's rank correlation (0.813 -> 0.805):
 *      its cp groups across nodes, tp 2 cp 4 and tp 4 cp 2, now sit on one
 *      loader-bound rate where the measurements still tell them apart.
 *   4. A transfer inside a node hides at a higher cost than one across
 *      nodes (nvlink_overlap_slowdown 0.4, now 0.5, beside
 *      overlap_slowdown 0.04:
 *      core/presets.c says why). It took seed 001 Table V from 14.0% /
 *      0.615 / regret 6.3% to 12.1% / 0.720 / 0.0%, the overall MAPE from
 *      8.3% to 8.2%, seed 000 Table 12's rank correlation from 0.766 to
 *      0.772, Table 20 from 6.3% / 0.806 to 6.2% / 0.807 and Table 16's
 *      MAPE from 10.8% to 10.7%, at the cost of Table 16's rank
 *      correlation (0.762 -> 0.751). Sweep (Table V MAPE / Spearman, Table
 *      16 Spearman; seed 003 and 004 do not move): 0.04: 14.0% / 0.615,
 *      0.762; 0.1: 13.8% / 0.664, 0.758; 0.2: 13.3% / 0.720, 0.751; 0.25:
 *      13.0% / 0.748, 0.751; 0.4: 12.1% / 0.720, 0.751; 0.5: 11.6% /
 *      0.699, 0.751; 0.75: 10.9% / 0.580, 0.751; 1.0: 12.1% / 0.580,
 *      0.751. Seed 000's 7B runs on one node of 4 GPUs (FSDP over NVLink
 *      alone), predicted 3.9-11.3% too fast at 0.04, want 0.75-1.0 (+0.7
 *      to +3.4%); Table V's 13B (its weights gathered over 4 GPUs of a
 *      node every micro-batch) wants 0.25-0.5, its 30B (over 8, with
 *      recompute) less: 0.4 lies between.
 *   5. The host's time per step (system.step_overhead_s 0.1 s, time.c
 *      says why) took the overall MAPE from 8.2% to 7.8%, seed 001 Table
 *      V from 12.1% / 0.720 to 9.6% / 0.748, seed 000 Table 16 from
 *      10.7% / 0.751 to 9.6% / 0.763, Table 20's MAPE from 6.2% to 5.1%,
 *      seed 004's from 3.1% to 2.1%, Table 3's from 12.5% to 12.3% and
 *      Tables 10 and 11's rank correlation from 0.805 and 0.885 to 0.810
 *      and 0.918, at the cost of the rank correlation of seed 004 (0.976
 *      -> 0.963), seed 000 Table 12 (0.772 -> 0.755) and Table 20 (0.807
 *      -> 0.803). Sweep (Table V MAPE, Table 12 Spearman, all rows): 0:
 *      12.1%, 0.772, 8.2%; 0.05 s: 10.8%, 0.768, 8.0%; 0.08: 10.1%,
 *      0.758, 7.9%; 0.1: 9.6%, 0.755, 7.8%; 0.12: 9.1%, 0.755, 7.8%;
 *      0.15: 8.4%, 0.730, 7.8%; 0.2: 7.3%, 0.713, 7.8%; 0.3: 7.4%, 0.696,
 *      with Table 16's and 20's regret past 10%. With the host's time
 *      in, and Table V's 30B read as the partial recompute that fits
 *      (read_seed001), nvlink_overlap_slowdown was swept again (Table V
 *      MAPE / Spearman; seed 000, 003 and 004 hold up to 0.6): 0.3: 7.5% /
 *      0.902; 0.4: 5.7% / 0.916; 0.5: 4.0% / 0.930; 0.6: 3.5% / 0.916;
 *      0.75: 4.0% / 0.825, with Table 20's Spearman 0.803 -> 0.796. It is
 *      0.5 now, which also lifts Table 11's to 0.920.
 *   6. The slowest GPU (system.gpu.compute_spread 1%, core/presets.c cites
 *      the spread measured between GPUs of one cluster; time.c: a step
 *      waits for the slowest of n, 1 + sigma e_n of the typical time),
 *      with the matmul efficiencies refitted for a typical GPU (A100 0.79
 *      -> 0.80, H100 0.61 -> 0.63), met every threshold: seed 000 Table
 *      12's regret 12.8% -> 0.0% (the 512-GPU 1.3B row, whose measured
 *      rate fell by a quarter, no longer ranks first), its rank 0.755 ->
 *      0.796, Table 16's 0.763 -> 0.835, Table 20's 0.803 -> 0.838 (regret
 *      3.0% -> 0.0%), seed 004's MAPE 2.1% -> 1.3%, Table V's 4.0% ->
 *      3.5%, Table 3's 12.3% -> 11.9%, Table 10's 7.6% / 0.810 -> 7.5% /
 *      0.817, all rows 7.7% -> 7.5%, at the cost of Table 16's regret
 *      (5.9% -> 9.1%), Table 4's rank (0.775 -> 0.767), Table 3's (0.844
 *      -> 0.841), Table 6's MAPE (3.6% -> 3.8%) and Table 20's (5.1% ->
 *      5.2%). Sweep of the spread with those efficiencies (Table 12
 *      Spearman / regret, Table 16, Table 20, seed 004 MAPE): 0: 0.755 /
 *      12.8%, 0.763 / 5.9%, 0.806 / 3.0%, 2.7%; 0.5%: 0.776 / 12.8%,
 *      0.800 / 5.9%, 0.835 / 3.0%, 1.9%; 0.75%: 0.779 / 12.8%, 0.815 /
 *      9.1%, 0.841 / 0.5%, 1.6%; 1%: 0.796 / 0.0%, 0.835 / 9.1%, 0.838 /
 *      0.0%, 1.3%; 1.25%: 0.808 / 1.3%, 0.849 / 9.1%, 0.823 / 0.0%, 1.1%;
 *      1.5%: 0.821 / 1.3%, 0.857 / 0.0%, 0.794 / 0.0%, 1.0%; 2%: 0.824 /
 *      1.3%, 0.862 / 6.9%, 0.751 / 9.7%, 1.2%, with Table 6's MAPE 4.3%
 *      and Table V's rank 0.916. Table 12's regret turns on the 1.3B rows,
 *      whose predicted rates lie within 1%: it is met from 1% up, not
 *      below.
 * A change that worsens a figure without such a trade, stated in its
 * commit, fails here.
 *
 * Where the model misses, and why we think so:
 *   Table 11 (32K tokens, H100): every plan whose tp x cp x pp is 8 runs
 *   at half the rate of the plans of 4 (178-182 TFLOP/s on 8 GPUs against
 *   337-364), pp 2 (little traffic) as much as cp 4, and micro-batch 2 as
 *   micro-batch 1. That is a pace per data-parallel rank, not per GPU:
 *   each rank's data loader delivers one 32K-token sample, with the dense
 *   1 GiB causal mask Megatron-LM builds in the loader by default, in
 *   about 2.2 s (loader_gbps 0.48), and a rank of 8 GPUs computes a sample
 *   in half the time a rank of 4 does, then waits. time.c models it (trade
 *   3). What is left: throughput still falls with the number of
 *   data-parallel ranks more than any communication explains (tp 4: 364
 *   TFLOP/s with one rank, 235 with 16, the model flat at 332), the same
 *   at 8 ranks whether a rank is 4 or 8 GPUs, less at micro-batch 2 than
 *   1, and about 8 times more at 32K than at 16K (Table 10). A step that
 *   waits for the slowest of many loaders, whose pace varies from sample
 *   to sample, would do that; the model has no such variance.
 *   Attention itself does not slow at 32K: on one H100 its kernels run
 *   at the same fraction of peak from 16K to 64K tokens
 *   (tests/device/attention_probe_2026-11-23.json).
 *   seed 000 at sequence 512 and 2048: measured throughput is 10-20% above
 *   the prediction for 7B-30B (as if fewer layers were recomputed than
 *   "complete re-computation" says). From 128 to 256 GPUs on the 200 Gb/s
 *   cluster, with the same sequence and work per GPU, every model of
 *   Table 12 slows by 10-13% (4.4 s a step for 7B), Table 16's by 6-22%
 *   (1.3B most) and Table 20's by 0-3%, though Table 20's 7B holds the
 *   same 57K tokens per GPU as Table 12's and all three are compute-bound
 *   there: no cost per GPU, per layer or per step of the model grows that
 *   way (a third network tier, JUWELS Booster's DragonFly+ cells of 48
 *   nodes, would slow Table 20 too). The slowest GPU of a larger job
 *   (trade 6) accounts for 0.2% of it from 128 to 256 GPUs and 0.45% to
 *   512; the rest is the runs', not the plans'. Among 1.3B's rows the
 *   model's TFLOP/s lie within 1%, so Table 12's regret turns on those
 *   fractions of a percent.
 *   seed 003 Table 3: the rows predicted 25-60% too fast are micro-batch 1
 *   plans with cp or pp on 128-256 GPUs; the same shape at micro-batch 2
 *   loses far less and at 4 nothing, at the same work per GPU and step,
 *   which no per-step cost (gradient reduction, bubble) reproduces.
 *   seed 001 Table V: 7B and 13B run 4-6% slower than predicted with 8
 *   micro-batches a step and 12% with one. Fitting step = M c + o per
 *   model to the rows: 7B c 0.874 s, o 0.288 s (the model before the
 *   host's 0.1 s: 0.847, 0.094); 13B 1.794, 0.343 (1.717, 0.084). The
 *   table's own rows without the all-reduce's overlap put 7B's all-reduce
 *   at about 0.47 s (the model: 0.59 s), so about half of it stays exposed
 *   behind a 0.57 s backward where the model hides all but its slowdown.
 *   Charging more of each hidden transfer across nodes would say so, but
 *   seed 000's FSDP runs, on the same A100s, forbid it (A100 overlap
 *   slowdown, Table V / Table 16 / Table 20 Spearman, before trades 4, 5):
 *   0.04: 0.615 / 0.762 / 0.806; 0.1: 0.685 / 0.689 / 0.700; 0.2: 0.713 /
 *   0.551 / 0.581; 0.3: 0.748 / 0.385 / 0.427. A slower A800 network
 *   (InfiniBand at 30%) would contradict those same no-overlap rows.
 *
 * Calibration: one matmul efficiency, one attention efficiency, one
 * kernel latency per GPU family, two overlap slowdowns (across nodes and
 * inside one) and one compute spread (trade 6, from a published
 * measurement) shared by both families, and one InfiniBand efficiency per
 * network (core/presets.c),
 * fitted on every table but Table 11: 45% of line rate for every cluster
 * but seed 000's 100 Gb/s one (core/presets.c says why). Its own
 * efficiency, over seed 000's tables (T16 MAPE / Spearman, T20, all rows):
 *   0.45  12.7% / 0.691, 6.4% / 0.800, 8.6%
 *   0.6   11.2% / 0.716, 6.2% / 0.796, 8.4%
 *   0.7   10.8% / 0.762, 6.3% / 0.806, 8.3%   (kept)
 *   0.8   10.9% / 0.769, 6.4% / 0.805, 8.4%
 *   0.9   11.3% / 0.760, 6.4% / 0.790, 8.4%
 * (Table 12, at long sequences and compute-bound, moves by 0.1%). One
 * data loader rate for every host (TP_LOADER_BYTES_PER_S), fitted on
 * Tables 10 and 11, the only ones where it binds (0.44 to 0.48 GB/s give
 * the same overall 8.7%; 0.48 keeps Table 10's MAPE below where it was).
 * One host time per step for every framework (TP_STEP_OVERHEAD_S, 0.1 s,
 * trade 5). No per-table or per-row constant: seed 004's per-row micro-batch and model chunks are
 * how its runs were launched (its scripts), read, not fitted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "measured_rows.h"
#include "seed003_rows.h"
#include "tp_internal.h"

#define MAX_ROWS 512
#define MAX_TABLES 16

typedef struct {
    char name[32];
    int count;
    /* The figure as printed (TFLOP/s or tokens/s per GPU), and the model
     * FLOPs one unit of it stands for: 1e12 for TFLOP/s, the FLOPs per token
     * for tokens/s. figure * work is a FLOP rate, proportional to MFU. */
    double predicted[MAX_ROWS], measured[MAX_ROWS], work[MAX_ROWS];
} table;

static table tables[MAX_TABLES];
static int table_count;
static int print_rows;

static table *table_named(const char *name)
{
    for (int i = 0; i < table_count; i++)
        if (strcmp(tables[i].name, name) == 0)
            return &tables[i];
    if (table_count == MAX_TABLES)
        return NULL;
    table *t = &tables[table_count++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->count = 0;
    return t;
}

static void add_row(const char *table_name, double predicted, double measured, double work,
                    const char *label)
{
    table *t = table_named(table_name);
    if (t == NULL || t->count >= MAX_ROWS) {
        CHECK_FAIL("too many tables or rows");
        return;
    }
    t->predicted[t->count] = predicted;
    t->measured[t->count] = measured;
    t->work[t->count] = work;
    t->count++;
    if (print_rows)
        printf("  %-14s %-44s measured %7.2f predicted %7.2f (%+5.1f%%)\n", table_name, label,
               measured, predicted, 100.0 * (predicted - measured) / measured);
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *x, int n)
{
    static double sorted[MAX_ROWS];
    memcpy(sorted, x, (size_t)n * sizeof *x);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_double);
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

static void read_seed003(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed003_measured.csv");
    if (csv == NULL)
        return;
    seed003_row row;
    while (seed003_read_row(csv, &row)) {
        if (strcmp(row.value, "OOM") == 0)
            continue;
        const tp_config c = seed003_config(&row);
        tp_estimate_result r;
        tp_error err;
        CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
        char name[32], label[64];
        snprintf(name, sizeof name, "seed003 T%d", row.table);
        snprintf(label, sizeof label, "%lld GPUs tp %lld cp %lld pp %lld b %lld", row.gpus, row.tp,
                 row.cp, row.pp, row.micro_batch);
        add_row(name, r.throughput.model_flop_per_s_per_gpu / 1e12, atof(row.value), 1e12, label);
    }
    fclose(csv);
}

static void read_seed004(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed004_megatron_table1.csv");
    if (csv == NULL)
        return;
    seed004_row row;
    while (seed004_read_row(csv, &row)) {
        const tp_config c = seed004_config(&row);
        tp_estimate_result r;
        tp_error err;
        CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
        char label[64];
        snprintf(label, sizeof label, "%.1fB on %lld GPUs tp %lld pp %lld", row.billions, row.gpus,
                 row.tp, row.pp);
        add_row("seed004 T1", r.throughput.hardware_flop_per_s_per_gpu / 1e12, row.tflops, 1e12, label);
    }
    fclose(csv);
}

/* Seed 000's models (its Table 2: layers, hidden, heads; 12 L h^2
 * parameters per model, so a GPT block with a 4h GeLU MLP). The vocabulary
 * is our reading: the paper's MFU figures are reproduced from its TGS only
 * when the LM head of a ~50K vocabulary is counted (checked below), and we
 * take GPT-2's 50,257 with untied embeddings. Its Table 2 prints the 7B
 * hidden size as 4086, a misprint for 4096: 12 L h^2 with 4096 gives its
 * 11.94 GB of bf16 weights (4086 gives 11.88). */
static const struct {
    const char *name;
    long long layers, hidden, heads;
} seed000_models[] = {
    {"1.3b", 24, 2048, 16},  {"7b", 32, 4096, 32},   {"13b", 40, 5120, 40},   {"30b", 60, 6656, 64},
    {"65b", 80, 8192, 64},   {"175b", 96, 12288, 96}, {"310b", 96, 16384, 128},
};

/* How far the paper's MFU is from ours computed from its own TGS. */
static double seed000_mfu_sum, seed000_mfu_worst;
static int seed000_mfu_rows, seed000_mfu_30b_rows;

/* seed 000 (FSDP on 4-GPU A100 40 GB nodes): one row per measured cell of
 * its Tables 12, 16 and 20 (tokens per GPU per second), with the MFU of
 * Tables 11, 15 and 19 beside it; our transcription with the configuration
 * of each cell from its Tables 4-6 is tests/golden/seed000_fsdp.csv. The
 * runs use PyTorch FSDP full shard with full recompute (its §3: "FSDP with
 * complete re-computation"), bf16 weights and gradients with fp32 Adam
 * states (its Table 2: 2 + 2 + 12 bytes per parameter), one micro-batch
 * per step (batch size per GPU times the GPUs is the global batch). */
static void read_seed000(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed000_fsdp.csv");
    if (csv == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, csv) != NULL) {
        int number;
        char cluster[32], model[16];
        long long gpus, seq, micro_batch;
        double tgs, mfu;
        if (sscanf(line, "%d,%31[^,],%15[^,],%lld,%lld,%lld,%lf,%lf", &number, cluster, model, &gpus,
                   &seq, &micro_batch, &tgs, &mfu) != 8) {
            CHECK_FAIL("unreadable seed 000 row");
            continue;
        }
        size_t m = 0;
        while (m < sizeof seed000_models / sizeof seed000_models[0] &&
               strcmp(seed000_models[m].name, model) != 0)
            m++;
        if (m == sizeof seed000_models / sizeof seed000_models[0]) {
            CHECK_FAIL("unknown seed 000 model");
            continue;
        }
        if (tp_cluster_preset_find(cluster) == NULL) {
            CHECK_FAIL("unknown cluster in seed 000 row");
            continue;
        }
        char name[32];
        snprintf(name, sizeof name, "seed000-%s", model);
        const long long hidden = seed000_models[m].hidden;
        tp_config c = measured_config("gpt3-175b", name, seed000_models[m].layers, hidden,
                                      seed000_models[m].heads, 4 * hidden, 50257, cluster, gpus, seq);
        c.model.tied_embeddings = 0;
        c.model.dropout = 0;
        c.training.micro_batch = micro_batch;
        c.training.global_batch = micro_batch * gpus;
        c.training.recompute = TP_RECOMPUTE_FULL;
        c.training.gradients_dtype = TP_DTYPE_BF16;
        c.plan.sharding = TP_SHARD_FSDP_FULL;
        tp_estimate_result r;
        tp_error err;
        CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
        char table_name[32], label[64];
        snprintf(table_name, sizeof table_name, "seed000 T%d", number);
        snprintf(label, sizeof label, "%s on %lld GPUs (%s) s %lld b %lld", model, gpus,
                 cluster + strlen("a100-4x-"), seq, micro_batch);
        const double flop_per_token =
            r.throughput.model_flop_per_step / ((double)c.training.global_batch * (double)seq);
        add_row(table_name, r.throughput.tokens_per_s_per_gpu, tgs, flop_per_token, label);

        /* The paper's MFU is its TGS times its model FLOPs per token over
         * the A100's 312 TFLOP/s; ours from the same TGS must agree with
         * it to a few hundredths, or our FLOP count (and vocabulary) is not
         * the one it used. The 30B column is the exception: its MFU is
         * 0.04-0.16 below what its own TGS gives under the count that
         * reproduces the six other models (its 64-GPU cell in Table 11,
         * 0.52, is 24% below), so we count those rows apart and compare
         * their throughput like every other row. */
        const double our_mfu = tgs * flop_per_token / c.system.gpu.tensor_flop_per_s;
        const double gap = fabs(our_mfu - mfu);
        if (strcmp(model, "30b") == 0) {
            seed000_mfu_30b_rows++;
        } else {
            seed000_mfu_sum += gap;
            seed000_mfu_rows++;
            if (gap > seed000_mfu_worst)
                seed000_mfu_worst = gap;
        }
    }
    fclose(csv);
}

/* seed 001 Table V, the rows with every overlap on (the model's own
 * assumption): LLaMA 7B, 13B and 30B (LLaMA-1 shapes, 32,000 tokens) on
 * 64 A800 80 GB, 8 per server with 4 x HDR (cluster a800-8x-4hdr),
 * sequence 4096, one sequence per micro-batch and M = 1, 2, 4, 8
 * micro-batches per step, AMSP factors of its Table IV ("Our Work"),
 * activation recomputation only for 30B (§VI-A4, which says no more). We
 * read it as the least recompute that fits: recomputing every layer
 * would put 30B's measured rate at 0.80-0.81 of the A800's peak counting
 * the recompute (7B, with none, reaches 0.70), and without recompute it
 * needs 92.9 GiB of the 80; so each row recomputes the fewest layers
 * (Megatron's block method, training.recompute_layers) whose peak fits
 * the GPU's memory, found here by the memory model: 15 of 60, not fitted
 * to the throughput. Only TGS is compared: the table's MFU does not follow from
 * its TGS by one FLOP count (7B's implies 8% more FLOPs per token than
 * Megatron's formula for LLaMA-7B, 30B's 16% fewer than for the 32.5B
 * LLaMA-1 "30B"), so we cannot tell which count or shape it used.
 * tests/golden/seed001_amsp_table5.csv. */
static void read_seed001(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed001_amsp_table5.csv");
    if (csv == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, csv) != NULL) {
        char model[16], recompute[16];
        long long layers, hidden, heads, ffn, vocab, gpus, seq, m, f[6];
        double tgs, mfu; /* mfu read to check the row's shape, not compared */
        if (sscanf(line, "%15[^,],%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%15[^,],%lf,%lf",
                   model, &layers, &hidden, &heads, &ffn, &vocab, &gpus, &seq, &m, &f[0], &f[1], &f[2],
                   &f[3], &f[4], &f[5], recompute, &tgs, &mfu) != 18) {
            CHECK_FAIL("unreadable seed 001 row");
            continue;
        }
        tp_config c = measured_config("llama-2-7b", model, layers, hidden, heads, ffn, vocab,
                                      "a800-8x-4hdr", gpus, seq);
        c.training.micro_batch = 1;
        c.training.global_batch = m * gpus;
        c.training.recompute = strcmp(recompute, "full") == 0 ? TP_RECOMPUTE_FULL : TP_RECOMPUTE_NONE;
        c.training.gradients_dtype = TP_DTYPE_BF16;
        c.plan.sharding = TP_SHARD_AMSP;
        for (int i = 0; i < 6; i++)
            c.plan.amsp[i / 2][i % 2] = f[i];
        tp_estimate_result r;
        tp_error err;
        CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
        if (c.training.recompute == TP_RECOMPUTE_FULL) { /* the fewest layers that fit */
            for (long long k = 1; k <= layers; k++) {
                c.training.recompute_layers = k;
                CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
                if (r.peak_bytes <= r.capacity_bytes)
                    break;
            }
            CHECK_INT(c.training.recompute_layers, 15);
        }
        const double flop_per_token =
            r.throughput.model_flop_per_step / ((double)c.training.global_batch * (double)seq);
        char label[64];
        snprintf(label, sizeof label, "%s M %lld", model, m);
        add_row("seed001 TV", r.throughput.tokens_per_s_per_gpu, tgs, flop_per_token, label);
    }
    fclose(csv);
}

/* Figures the model reached per table when they were last improved. */
static const struct {
    const char *table;
    double mape, rho, regret;
} reached[] = {
    {"seed003 T3", 0.119, 0.841, 0.013},  /* rank 0.844 before trade 6 */
    {"seed003 T6", 0.038, 0.864, 0.000},  /* 0.036 before trade 6 */
    {"seed003 T4", 0.037, 0.767, 0.000},  /* rank 0.775 before trade 6 */
    {"seed003 T10", 0.075, 0.817, 0.000}, /* rank 0.813 before trade 3 */
    {"seed003 T11", 0.132, 0.921, 0.000}, /* 1.048, 0.347, 0.074 before trade 3 */
    {"seed004 T1", 0.013, 0.963, 0.000},  /* rank 0.976 before trade 5 */
    {"seed000 T12", 0.045, 0.796, 0.000},
    {"seed000 T16", 0.096, 0.835, 0.091}, /* regret 0.059 before trade 6 */
    {"seed000 T20", 0.052, 0.838, 0.000}, /* 0.051 before trade 6 */
    {"seed001 TV", 0.035, 0.930, 0.000},  /* 0.117, 0.664 before trade 2 */
};

static const char *mark(int ok) { return ok ? " " : "*"; }

int main(int argc, char **argv)
{
    print_rows = argc > 2 && strcmp(argv[2], "--rows") == 0;
    read_seed003(argc, argv);
    read_seed004(argc, argv);
    read_seed000(argc, argv);
    read_seed001(argc, argv);
    printf("seed 000 MFU from its own TGS by our FLOP count: mean gap %.3f, worst %.3f (%d rows;"
           " %d rows of 30B apart)\n",
           seed000_mfu_sum / seed000_mfu_rows, seed000_mfu_worst, seed000_mfu_rows,
           seed000_mfu_30b_rows);
    CHECK(seed000_mfu_sum / seed000_mfu_rows <= 0.01);
    CHECK(seed000_mfu_worst <= 0.04);
    CHECK_INT(seed000_mfu_30b_rows, 23);

    double error_sum = 0.0;
    int rows = 0;
    printf("%-12s %5s %9s %10s %9s %13s\n", "table", "rows", "MAPE", "Spearman", "regret",
           "baseline MAPE");
    for (int i = 0; i < table_count; i++) {
        const table *t = &tables[i];
        /* Ranks, regret and the baseline compare FLOP rates (figure times
         * work), so a table that mixes models ranks how well each uses the
         * GPU, not which model has the fewest FLOPs per token. */
        static double predicted_rate[MAX_ROWS], measured_rate[MAX_ROWS];
        for (int j = 0; j < t->count; j++) {
            predicted_rate[j] = t->predicted[j] * t->work[j];
            measured_rate[j] = t->measured[j] * t->work[j];
        }
        const double constant_rate = median(measured_rate, t->count);
        double mape = 0.0, base_mape = 0.0;
        int best_predicted = 0, best_measured = 0;
        for (int j = 0; j < t->count; j++) {
            mape += fabs(t->predicted[j] - t->measured[j]) / t->measured[j];
            base_mape += fabs(constant_rate - measured_rate[j]) / measured_rate[j];
            if (predicted_rate[j] > predicted_rate[best_predicted])
                best_predicted = j;
            if (measured_rate[j] > measured_rate[best_measured])
                best_measured = j;
        }
        error_sum += mape;
        rows += t->count;
        mape /= t->count;
        base_mape /= t->count;
        const double rho = measured_spearman(predicted_rate, measured_rate, t->count);
        const double regret = 1.0 - measured_rate[best_predicted] / measured_rate[best_measured];
        printf("%-12s %5d %7.1f%%%s %9.3f%s %7.1f%%%s %12.1f%%\n", t->name, t->count, 100.0 * mape,
               mark(mape < base_mape), rho, mark(t->count < 5 || rho >= 0.7), 100.0 * regret,
               mark(regret <= 0.10), 100.0 * base_mape);
        int found = 0;
        for (size_t j = 0; j < sizeof reached / sizeof reached[0]; j++) {
            if (strcmp(reached[j].table, t->name) != 0)
                continue;
            found = 1;
            CHECK(mape <= reached[j].mape + 0.0005);
            CHECK(rho >= reached[j].rho - 0.0005);
            CHECK(regret <= reached[j].regret + 0.0005);
        }
        CHECK(found);
    }
    const double overall = error_sum / rows;
    printf("%-12s %5d %7.1f%%%s\n", "all", rows, 100.0 * overall, mark(overall <= 0.15));
    printf("* misses issue 4's threshold (MAPE below baseline and 15%% overall, Spearman >= 0.7,"
           " regret <= 10%%)\n");
    CHECK_INT(rows, 422); /* 241 seed 003 cells that ran, 10 rows of seed 004 Table 1, 159 of
                             seed 000, 12 of seed 001 */
    CHECK(overall <= 0.075 + 0.0005);
    return check_finish("perf_measured");
}
