/*
 * measured_rows.h: configs for the published runs the measured tests read
 * (Narayanan et al. 2021's Table 1 here; Fujii et al. 2024's rows are in
 * seed003_rows.h). Shared by the performance report and the search's quality
 * test.
 */
#ifndef TP_MEASURED_ROWS_H
#define TP_MEASURED_ROWS_H

#include <stdio.h>

#include "trainplan.h"

/* A config for a measured run: the architecture of base_model reshaped to
 * the paper's layers, hidden size, heads (all key/value heads), MLP width
 * and vocabulary, on gpus GPUs of a cluster preset, with sequence seq. */
tp_config measured_config(const char *base_model, const char *name, long long layers,
                          long long hidden, long long heads, long long ffn_hidden, long long vocab,
                          const char *cluster_name, long long gpus, long long seq);

/* One row of tests/golden/seed004_megatron_table1.csv. */
typedef struct {
    double billions, tflops, percent, pflops;
    long long heads, hidden, layers, tp, pp, gpus, batch, seq, vocab;
} seed004_row;

/* Reads the next row; 0 at the end. A row that does not parse fails a check. */
int seed004_read_row(FILE *csv, seed004_row *row);

/* Narayanan et al. 2021 Table 1 (GPT-3 family on Selene: DGX A100 80 GB, 8 per
 * node, 8 x HDR 200 Gb/s: dgx-a100): full recompute (§5.1: the 96 B s l h^2
 * count includes it), dropout, tied embeddings, a 4h MLP; micro-batch and
 * interleaving as the paper's launch scripts set them per row, and
 * Megatron-LM's software of 2021 (no FlashAttention, sequence parallelism or
 * distributed optimizer; fp16 gradients). */
tp_config seed004_config(const seed004_row *row);

/* Spearman rank correlation of a and b (n values each, n <= 512; ties
 * take their average rank): how well a model orders measured runs. */
double measured_spearman(const double *a, const double *b, int n);

#endif
