/* seed003_rows.c: see seed003_rows.h. */
#include <string.h>

#include "check.h"
#include "seed003_rows.h"

int seed003_read_row(FILE *csv, seed003_row *row)
{
    char line[512];
    while (fgets(line, sizeof line, csv) != NULL) {
        if (sscanf(line, "%d,%47[^,],%lld,%31[^,],%lld,%lld,%lld,%lld,%lld,%lld,%31s", &row->table,
                   row->model, &row->seq_len, row->gpu, &row->gpus, &row->tp, &row->cp, &row->pp,
                   &row->micro_batch, &row->global_batch, row->value) == 11)
            return 1;
        CHECK_FAIL("unreadable CSV row");
    }
    return 0;
}

tp_config seed003_config(const seed003_row *row)
{
    const int a100 = strcmp(row->gpu, "A100-40GB") == 0;
    tp_config c;
    tp_config_defaults(&c);
    const tp_model *model = tp_model_preset_find(row->model);
    if (model != NULL)
        c.model = *model;
    else
        CHECK_FAIL("row names an unknown model preset");
    if (!a100 && strcmp(row->gpu, "H100-94GB") != 0)
        CHECK_FAIL("row names an unknown GPU");
    tp_system_use_cluster(&c.system, tp_cluster_preset_find(a100 ? "abci-a100" : "tsubame4"));
    c.system.gpus = row->gpus;
    c.training.seq_len = row->seq_len;
    c.training.global_batch = row->global_batch;
    c.training.micro_batch = row->micro_batch;
    c.training.dataloader_mask = 1; /* Megatron-LM core 0.8's default */
    /* FlashAttention-2: the paper's runs list flash-attention 2.5.8 beside
     * cuDNN 8.9.7, before cuDNN 9's Hopper attention (§A, environment) */
    c.training.attention_kernel = TP_ATTENTION_KERNEL_FLASH;
    /* eq. 12 counts SwiGLU's four tensors (8f), and the tables print eq. 12 */
    c.training.fused_swiglu = 0;
    c.plan.tp = row->tp;
    c.plan.cp = row->cp;
    c.plan.pp = row->pp;
    return c;
}
