/*
 * seed003_rows.h: the rows of Fujii et al. 2024's tables as tests/golden keeps
 * them (table, model, seq_len, gpu, gpus, tp, cp, pp, micro_batch,
 * global_batch, value), and the config each row describes. Shared by the
 * estimated-memory and the measured-OOM tests.
 */
#ifndef TP_SEED003_ROWS_H
#define TP_SEED003_ROWS_H

#include <stdio.h>

#include "trainplan.h"

typedef struct {
    int table;
    char model[48], gpu[32];
    long long seq_len, gpus, tp, cp, pp, micro_batch, global_batch;
    char value[32]; /* a number in GiB or TFLOP/s, or "OOM" */
} seed003_row;

/* Reads the next row; 0 at the end of the file. A row that does not parse
 * fails a check and is skipped. */
int seed003_read_row(FILE *csv, seed003_row *row);

/* The default config with the row's model, GPU, sizes and plan. Hardware as
 * DESIGN.md records it: A100 SXM 40 GB, 8 per node (cluster preset
 * abci-a100); H100 94 GB, 4 per node (tsubame4). */
tp_config seed003_config(const seed003_row *row);

#endif
