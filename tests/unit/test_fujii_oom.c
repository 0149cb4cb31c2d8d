/*
 * test_fujii_oom: does the predicted total, other_bytes included, tell which
 * of Fujii et al. 2024's measured runs went out of memory? 454 cells of
 * Tables 3, 4, 6, 10 and 11 (tests/golden/seed003_measured.csv: a TFLOP/s
 * figure for a run that trained, "OOM" for one that did not), each estimated
 * with the default model and overheads; OOM is predicted when the peak stage's
 * total exceeds the GPU's capacity.
 *
 * Hardware (DESIGN.md): A100 SXM 40 GB with 8 GPUs per node for Tables 3 and
 * 6; H100 94 GB with 4 per node for Tables 4, 10 and 11.
 *
 * The test prints the confusion matrix for all cells and for the band where
 * model states plus activations alone fill 80-100% of the GPU
 * (Fujii et al. 2024's yellow zone, where buffers and fragmentation decide),
 * and the cells it gets wrong. It asserts:
 *   - outside the band every cell is classified right (no false fit, no
 *     false OOM);
 *   - inside the band, accuracy and false fits no worse than measured when
 *     other_bytes was introduced (64 of 76 right, 8 false fits).
 * The goal is at least 85% in the band with no false fit. The model does not
 * reach that yet, and the reason is in the data: pairs of cells with the same
 * tensors on every GPU (same tp, same b/c, same GPU count) split between ran
 * and OOM, the one with the larger micro-batch and cp failing (e.g. Table 3, 8
 * GPUs: tp 4, cp 1, b 1 ran; tp 4, cp 2, b 2 OOM; Table 4, 4 GPUs, tp 4, b 4
 * at 8K OOM while Tables 10 and 11 ran b 2 at 16K and b 1 at 32K). No per-GPU
 * quantity of the model separates them; the next step is a physical term for
 * context parallelism's communication buffers that does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "seed003_rows.h"
#include "tp_internal.h"

typedef struct {
    int true_oom, false_oom, false_fit, true_fit; /* predicted/actual */
} confusion;

static void count(confusion *c, int predicted_oom, int oom)
{
    if (predicted_oom && oom) c->true_oom++;
    else if (predicted_oom) c->false_oom++;
    else if (oom) c->false_fit++;
    else c->true_fit++;
}

static void print_confusion(const char *label, const confusion *c)
{
    const int total = c->true_oom + c->false_oom + c->false_fit + c->true_fit;
    printf("%-22s %3d cells: predicted OOM and OOM %3d, predicted OOM but ran %3d, "
           "predicted fit but OOM %3d, predicted fit and ran %3d; accuracy %.1f%%\n",
           label, total, c->true_oom, c->false_oom, c->false_fit, c->true_fit,
           total ? 100.0 * (c->true_oom + c->true_fit) / total : 0.0);
}

int main(int argc, char **argv)
{
    FILE *csv = check_open_golden(argc, argv, "seed003_measured.csv");
    if (csv == NULL)
        return check_finish("fujii2024_oom");
    confusion all = {0, 0, 0, 0}, band = {0, 0, 0, 0}, outside = {0, 0, 0, 0};
    int oom_zones[3] = {0, 0, 0}; /* the measured OOMs by memory.zone */
    seed003_row row;
    while (seed003_read_row(csv, &row)) {
        const tp_config c = seed003_config(&row);
        tp_estimate_result r;
        tp_error err;
        CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
        const tp_stage_memory *peak = &r.stages[r.peak_stage];
        /* the band is judged on the paper's own quantity, before other_bytes */
        double base = 0.0;
        for (int i = 0; i < r.stage_count; i++) {
            const double without_other = r.stages[i].total_bytes - r.stages[i].other_bytes;
            if (without_other > base)
                base = without_other;
        }
        const double base_fraction = base / r.capacity_bytes;
        const int in_band = base_fraction > TP_SAFE_FRACTION && base_fraction <= 1.0;
        const int oom = strcmp(row.value, "OOM") == 0;
        const int predicted_oom = peak->total_bytes > r.capacity_bytes;
        count(&all, predicted_oom, oom);
        if (oom)
            oom_zones[r.zone]++;
        count(in_band ? &band : &outside, predicted_oom, oom);
        if (predicted_oom != oom)
            printf("  %s: table %d, %lld GPUs, tp %lld cp %lld pp %lld b %lld: base %.3f, "
                   "with other %.3f of capacity (other %.2f GiB)\n",
                   oom ? "fit but OOM" : "OOM but ran", row.table, row.gpus, row.tp, row.cp, row.pp,
                   row.micro_batch,
                   base_fraction, r.usage_fraction, peak->other_bytes / TP_GIB);
    }
    fclose(csv);
    print_confusion("all", &all);
    print_confusion("outside 80-100% band", &outside);
    print_confusion("inside 80-100% band", &band);
    printf("  measured OOMs by zone: %d green, %d yellow, %d red\n", oom_zones[TP_ZONE_GREEN],
           oom_zones[TP_ZONE_YELLOW], oom_zones[TP_ZONE_RED]);

    CHECK_INT(all.true_oom + all.false_oom + all.false_fit + all.true_fit, 454);
    CHECK_INT(band.true_oom + band.false_oom + band.false_fit + band.true_fit, 76);
    CHECK_INT(outside.false_fit, 0);
    CHECK_INT(outside.false_oom, 0);
    CHECK(band.true_oom + band.true_fit >= 64);
    CHECK(band.false_fit <= 8);
    /* a run that ran out of memory is never shown safe */
    CHECK_INT(oom_zones[TP_ZONE_GREEN], 0);
    return check_finish("fujii2024_oom");
}
