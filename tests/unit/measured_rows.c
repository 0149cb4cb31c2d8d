/* measured_rows.c: see measured_rows.h. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "measured_rows.h"

tp_config measured_config(const char *base_model, const char *name, long long layers,
                          long long hidden, long long heads, long long ffn_hidden, long long vocab,
                          const char *cluster_name, long long gpus, long long seq)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find(base_model);
    snprintf(c.model.name, sizeof c.model.name, "%s", name);
    c.model.layers = layers;
    c.model.hidden = hidden;
    c.model.heads = c.model.kv_heads = heads;
    c.model.ffn_hidden = ffn_hidden;
    c.model.vocab = vocab;
    if (c.model.positions > 0)
        c.model.positions = seq;
    tp_system_use_cluster(&c.system, tp_cluster_preset_find(cluster_name));
    c.system.gpus = gpus;
    c.training.seq_len = seq;
    return c;
}

int seed004_read_row(FILE *csv, seed004_row *row)
{
    char line[512], gpu[32];
    while (fgets(line, sizeof line, csv) != NULL) {
        if (sscanf(line, "%lf,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%31[^,],%lf,%lf,%lf",
                   &row->billions, &row->heads, &row->hidden, &row->layers, &row->tp, &row->pp,
                   &row->gpus, &row->batch, &row->seq, &row->vocab, gpu, &row->tflops,
                   &row->percent, &row->pflops) == 14)
            return 1;
        CHECK_FAIL("unreadable Narayanan et al. 2021 row");
    }
    return 0;
}

/* How each Table 1 row was launched, from the paper's own scripts
 * (NVIDIA/Megatron-LM examples/sc21/run_table_1.sh and CONFIG.sh): micro-
 * batch size, model chunks per GPU (--num-layers-per-virtual-pipeline-stage
 * gives layers / (pp v)), keyed by layer count. */
static const struct {
    long long layers, micro_batch, virtual_stages;
} seed004_launch[] = {
    {24, 16, 1}, {30, 16, 1}, {36, 16, 1}, {40, 8, 1}, {48, 4, 1},
    {60, 2, 3},  {80, 2, 2},  {96, 1, 2},  {105, 1, 3}, {128, 1, 1},
};

tp_config seed004_config(const seed004_row *row)
{
    char name[32];
    snprintf(name, sizeof name, "gpt-%.1fb", row->billions);
    tp_config c = measured_config("gpt3-175b", name, row->layers, row->hidden, row->heads,
                                  4 * row->hidden, row->vocab, "dgx-a100", row->gpus, row->seq);
    c.training.global_batch = row->batch;
    c.training.recompute = TP_RECOMPUTE_FULL;
    /* Megatron-LM of 2021: no FlashAttention (softmax over stored scores),
     * no sequence parallelism, no distributed optimizer, fp16 gradients
     * all-reduced as they are (CONFIG.sh: --fp16), pipeline sends that
     * block (Narayanan et al. 2021 §4.1 sends, then computes) */
    c.training.flash_attention = 0;
    c.plan.pp_overlap = 0;
    c.training.gradients_dtype = TP_DTYPE_FP16;
    c.plan.sp = 0;
    c.plan.zero = 0;
    c.plan.tp = row->tp;
    c.plan.pp = row->pp;
    c.training.micro_batch = 0;
    for (size_t i = 0; i < sizeof seed004_launch / sizeof seed004_launch[0]; i++)
        if (seed004_launch[i].layers == row->layers) {
            c.training.micro_batch = seed004_launch[i].micro_batch;
            c.plan.virtual_stages = seed004_launch[i].virtual_stages;
            if (c.plan.virtual_stages > 1)
                c.plan.schedule = TP_SCHEDULE_INTERLEAVED;
        }
    CHECK(c.training.micro_batch > 0);
    return c;
}

/* Ranks with ties averaged, 1-based. */
static void ranks(const double *x, int n, double *out)
{
    for (int i = 0; i < n; i++) {
        int below = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            if (x[j] < x[i])
                below++;
            else if (x[j] == x[i])
                equal++;
        }
        out[i] = below + (equal + 1) / 2.0;
    }
}

double measured_spearman(const double *a, const double *b, int n)
{
    static double ra[512], rb[512];
    if (n > 512)
        return 0.0;
    ranks(a, n, ra);
    ranks(b, n, rb);
    double ma = 0, mb = 0;
    for (int i = 0; i < n; i++) {
        ma += ra[i];
        mb += rb[i];
    }
    ma /= n;
    mb /= n;
    double sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0.0;
}
