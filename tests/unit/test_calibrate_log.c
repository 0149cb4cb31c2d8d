/*
 * test_calibrate_log: trainplan calibrate-log. Lines as Megatron-LM, NeMo
 * (2 and 1), torchtitan (now and before 2024-10) and llm-foundry
 * (Composer) print them give their trainer, the preferred figure's median
 * past the warm-up lines, and the peak memory in GiB of the right kind;
 * other lines, hostile numbers and escape sequences change nothing; logs
 * of no trainer, of two, or of too many steps are refused under "log";
 * and what it prints is what a calibration's "measured" takes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "trainplan.h"

static tp_log_result result; /* large: not on the stack */

/* The log read, or a failed check. */
static int read_log(const char *text)
{
    tp_error err = {TP_OK, "", ""};
    const tp_status status = tp_calibrate_log(text, &result, &err);
    if (status != TP_OK)
        fprintf(stderr, "refused: %s: %s\n", err.path, err.message);
    return status == TP_OK;
}

/* The message a log is refused with under "log" ("" when read). */
static const char *refusal(const char *text)
{
    static tp_error err;
    err = (tp_error){TP_OK, "", ""};
    if (tp_calibrate_log(text, &result, &err) == TP_OK)
        return "";
    CHECK_STR(err.path, "log");
    return err.message;
}

/* torchtitan, metrics.py: colours, the first steps slower, a validation
 * line (not a training step) with a higher tps and memory. */
static const char *const titan =
    "[rank0]:[titan] 2026-01-01 10:00:00,000 - root - INFO - Training starts at step 1.\n"
    "[rank0]:[titan] 2026-01-01 10:00:10,000 - root - INFO - \033[31mstep:  1  \033[32mloss: 12.25000  "
    "\033[38;2;180;60;0mgrad_norm:  3.2000  \033[38;2;54;234;195mmemory: 42.10GiB(53.20%)  \033[34mtps: 1,234  "
    "\033[36mtflops: 70.50  \033[35mmfu: 7.13%\033[39m\n"
    "[rank0]:[titan] - INFO - \033[31mstep: 10  \033[32mloss:  9.10000  memory: 61.20GiB(77.30%)  "
    "\033[34mtps: 5,700  \033[36mtflops: 330.20  \033[35mmfu: 33.40%\033[39m\n"
    "[rank0]:[titan] - INFO - step: 20  loss:  8.10000  grad_norm:  1.0000  memory: 61.20GiB(77.30%)  tps: 5,762  "
    "tflops: 333.00  mfu: 33.70%\n"
    "[rank0]:[titan] - INFO - step: 30  loss:  7.10000  grad_norm:  1.0000  memory: 61.25GiB(77.40%)  tps: 5,770  "
    "tflops: 333.00  mfu: 33.70%\n"
    "[rank0]:[titan] - INFO - step: 40  loss:  7.00000  grad_norm:  1.0000  memory: 61.20GiB(77.30%)  tps: 5,750  "
    "tflops: 333.00  mfu: 33.70%\n"
    "[rank0]:[titan] - INFO - validate step: 40  loss:  7.0000  memory: 70.00GiB(88.00%)  tps: 9,999\n"
    "[rank0]:[titan] - INFO - step: 50  loss:  6.90000  grad_norm:  1.0000  memory: 61.20GiB(77.30%)  tps: 5,765  "
    "tflops: 333.00  mfu: N/A\n"
    "[rank0]:[titan] - INFO - step: 60  loss:  6.80000  grad_norm:  1.0000  memory: 61.20GiB(77.30%)  tps: 5,760  "
    "tflops: 333.00  mfu: 33.70%\n";

static void test_torchtitan(void)
{
    if (!read_log(titan)) {
        CHECK_FAIL("torchtitan read");
        return;
    }
    CHECK_STR(tp_trainer_str(result.trainer), "torchtitan");
    CHECK_STR(tp_step_figure_str(result.figure), "tokens_per_s_per_gpu");
    CHECK_STR(result.key, "tps");
    CHECK_INT(result.steps, 7); /* the validation line is not one */
    CHECK_INT(result.skipped, 3);
    CHECK_NEAR(result.value, 5762.5, 1e-9); /* median of 5750, 5760, 5765, 5770 */
    CHECK_NEAR(result.min, 5750, 1e-9);
    CHECK_NEAR(result.max, 5770, 1e-9);
    CHECK_INT(result.memory_kind, TP_MEMORY_RESERVED);
    CHECK_NEAR(result.peak_memory_gib, 61.25, 1e-9);
    CHECK_INT(result.memory_line.line, 5);
    CHECK_INT(result.read_count, 4);
    CHECK_INT(result.read[0].line, 5);
    CHECK(strstr(result.read[0].text, "tps: 5,770") != NULL);
    for (int i = 0; i < result.read_count; i++)
        CHECK(strchr(result.read[i].text, '\033') == NULL);
    /* before 2024-10 (train.py): "wps" for the same figure */
    const char *old = "step:  1  loss: 10.9000  memory: 30.00GiB(40.00%)  wps: 3,100  mfu: 20.00%\n"
                      "step:  2  loss: 10.8000  memory: 31.00GiB(41.00%)  wps: 3,300  mfu: 21.00%\n";
    if (read_log(old)) {
        CHECK_STR(result.key, "wps");
        CHECK_INT(result.skipped, 1);
        CHECK_NEAR(result.value, 3300, 1e-9);
        CHECK_NEAR(result.peak_memory_gib, 31.0, 1e-9);
    }
}

/* Megatron-LM, training.py training_log and report_memory: the first
 * iteration slow; memory from two ranks, in MiB. */
static const char *const megatron =
    " [2026-08-22 15:22:22.123456] iteration        1/  500000 | consumed samples:          512 | elapsed time per "
    "iteration (ms): 45123.4 | throughput per GPU (TFLOP/s/GPU): 88.2 | learning rate: 1.000000E-06 | global batch "
    "size:   512 | lm loss: 1.100000E+01 | loss scale: 1.0 | grad norm: 12.345 | number of skipped iterations:   0 "
    "| number of nan iterations:   0 |\n"
    "[Rank 0] (after 1 iterations) memory (MB) | allocated: 30000.00 | max allocated: 41234.56 | reserved: 50000.00 "
    "| max reserved: 52345.67\n"
    "[Rank 4] (after 1 iterations) memory (MB) | allocated: 30000.00 | max allocated: 40234.56 | reserved: 50000.00 "
    "| max reserved: 53248.00\n"
    " [2026-08-22 15:22:32.123456] iteration        2/  500000 | elapsed time per iteration (ms): 9900.1 |\n"
    " [2026-08-22 15:22:42.123456] iteration        3/  500000 | elapsed time per iteration (ms): 9812.3 |\n"
    " [2026-08-22 15:22:52.123456] iteration        4/  500000 | elapsed time per iteration (ms): 9810.0 |\n"
    " [2026-08-22 15:23:02.123456] iteration        5/  500000 | elapsed time per iteration (ms): 9815.0 |\n"
    " [2026-08-22 15:23:12.123456] iteration        6/  500000 | elapsed time per iteration (ms): 9820.0 |\n"
    " [2026-08-22 15:23:22.123456] iteration        7/  500000 | elapsed time per iteration (ms): 9818.0 |\n";

static void test_megatron(void)
{
    if (!read_log(megatron)) {
        CHECK_FAIL("Megatron-LM read");
        return;
    }
    CHECK_STR(tp_trainer_str(result.trainer), "Megatron-LM");
    CHECK_STR(tp_step_figure_str(result.figure), "step_s");
    CHECK_INT(result.steps, 7);
    CHECK_INT(result.skipped, 3);
    CHECK_NEAR(result.value, 9.8165, 1e-12); /* median of 9.810, 9.815, 9.818, 9.820 */
    CHECK_INT(result.memory_kind, TP_MEMORY_RESERVED);
    CHECK_NEAR(result.peak_memory_gib, 52.0, 1e-12); /* 53248 MiB, rank 4 */
    CHECK_INT(result.memory_line.line, 3);
    /* the allocated peak only where no reserved one is printed */
    if (read_log(" iteration 5/9 | elapsed time per iteration (ms): 1000.0 |\n"
                 "[Rank 0] (after 5 iterations) memory (MB) | max allocated: 2048.00\n")) {
        CHECK_INT(result.memory_kind, TP_MEMORY_ALLOCATED);
        CHECK_NEAR(result.peak_memory_gib, 2.0, 1e-12);
        CHECK_NEAR(result.value, 1.0, 1e-12);
        CHECK_INT(result.skipped, 0);
    }
}

/* NeMo 2's progress printer (as NeMo's own resiliency demo shows it) and
 * NeMo 1's tqdm bar, whose updates carriage returns part. */
static void test_nemo(void)
{
    const char *nemo2 =
        "ining-demo/0 [default0]:Training epoch 0, iteration 0/19 | lr: 1.499e-07 | global_batch_size: 512 | "
        "global_step: 0 | reduced_train_loss: 11.03 | train_step_timing in s: 10.31\n"
        "ining-demo/0 [default0]:Training epoch 0, iteration 1/19 | lr: 2.999e-07 | global_batch_size: 512 | "
        "global_step: 1 | reduced_train_loss: 11.03 | train_step_timing in s: 7.549 | consumed_samples: 1024\n"
        "ining-demo/0 [default0]:Training epoch 0, iteration 2/19 | lr: 4.498e-07 | global_batch_size: 512 | "
        "global_step: 2 | reduced_train_loss: 11.03 | train_step_timing in s: 7.556 | consumed_samples: 1536\n";
    if (read_log(nemo2)) {
        CHECK_STR(tp_trainer_str(result.trainer), "NeMo");
        CHECK_INT(result.steps, 3);
        CHECK_INT(result.skipped, 1);
        CHECK_NEAR(result.value, 0.5 * (7.549 + 7.556), 1e-12);
        CHECK_INT(result.memory_kind, TP_MEMORY_NONE);
    }
    const char *nemo1 =
        "Epoch 0: :   1%|          | 10/1000 [01:40<2:45:00, reduced_train_loss=7.23, global_step=9.0, "
        "train_step_timing in s=9.81]\rEpoch 0: :   1%|          | 11/1000 [01:50<2:45:00, reduced_train_loss=7.20, "
        "global_step=10.0, train_step_timing in s=9.79]\r\nEpoch 0: :   1%|          | 12/1000 [02:00<2:45:00, "
        "train_step_timing in s=9.80]\r\n";
    if (read_log(nemo1)) {
        CHECK_INT(result.steps, 3);
        CHECK_NEAR(result.value, 9.795, 1e-12);
        CHECK_INT(result.read[0].line, 2); /* \r and \r\n end one line each */
    }
}

/* Composer's console logger: one metric a line under each batch. */
static void test_composer(void)
{
    const char *full = "[batch=100/1000]:\n\t Train time/batch: 99\n\t Train throughput/batches_per_sec: 0.1000\n"
                       "\t Train throughput/device/tokens_per_sec: 7695.0000\n\t Train memory/peak_reserved_mem: 61.234\n"
                       "\t Train memory/peak_allocated_mem: 50.000\n"
                       "[batch=110/1000]:\n\t Train throughput/batches_per_sec: 0.2000\n"
                       "\t Train throughput/device/tokens_per_sec: 7710.0000\n\t Train memory/peak_reserved_mem: 62.000\n";
    if (read_log(full)) {
        CHECK_STR(tp_trainer_str(result.trainer), "llm-foundry");
        CHECK_STR(tp_step_figure_str(result.figure), "step_s"); /* batches_per_sec before tokens_per_sec */
        CHECK_STR(result.key, "throughput/batches_per_sec");
        CHECK_NEAR(result.value, 5.0, 1e-12);
        CHECK_INT(result.memory_kind, TP_MEMORY_RESERVED);
        CHECK_NEAR(result.peak_memory_gib, 62e9 / 1073741824.0, 1e-12); /* GB to GiB */
    }
    const char *tokens = "[batch=1/9]:\n\t Train throughput/device/tokens_per_sec: 7695.0000\n"
                         "\t Train memory/peak_allocated_mem: 10.737\n";
    if (read_log(tokens)) {
        CHECK_STR(tp_step_figure_str(result.figure), "tokens_per_s_per_gpu");
        CHECK_NEAR(result.value, 7695, 1e-9);
        CHECK_INT(result.memory_kind, TP_MEMORY_ALLOCATED);
    }
    if (read_log("\t Train throughput/device/mfu: 0.4100\n\t Train throughput/device/mfu: 0.4300\n")) {
        CHECK_STR(tp_step_figure_str(result.figure), "mfu");
        CHECK_NEAR(result.value, 0.43, 1e-12);
    }
}

/* What no line should be read as, and what no log should break. */
static void test_hostile(void)
{
    /* not a number, zero, negative, overflowing, inside another word */
    CHECK(strstr(refusal("step: 1 tps: nan\nstep: 2 tps: 0\nstep: 3 tps: -5\nstep: 4 tps: 1e999\n"
                         "step: 5 xtps: 9\nsteps: 9 loss: 1\n"),
                 "no step line of Megatron-LM, NeMo, torchtitan or llm-foundry found") != NULL);
    CHECK_STR(refusal(""), "no step line of Megatron-LM, NeMo, torchtitan or llm-foundry found (docs/calibrate.md "
                           "lists the lines read)");
    /* two trainers: the first named first */
    CHECK_STR(refusal("step: 2  tps: 100\n iteration 3/9 | elapsed time per iteration (ms): 1.0 |\n"),
              "holds step lines of torchtitan (line 1) and of Megatron-LM (line 2): paste one run's log");
    /* a long line with invalid UTF-8: read, quoted cut and valid */
    char *line = malloc(20000);
    if (line == NULL) {
        CHECK_FAIL("out of memory");
        return;
    }
    snprintf(line, 20000, "step: 1 \xff\xfe tps: 4,000 %0*d\n", 10000, 7);
    if (read_log(line)) {
        CHECK_NEAR(result.value, 4000, 1e-9);
        CHECK(strstr(result.read[0].text, "step: 1 ?? tps: 4,000 0000") == result.read[0].text);
        CHECK_INT(strlen(result.read[0].text), TP_LOG_LINE_SIZE - 1);
        CHECK(strcmp(result.read[0].text + TP_LOG_LINE_SIZE - 4, "...") == 0);
    }
    free(line);
    /* too many step lines, and too large a log */
    const size_t each = sizeof "step: 1 tps: 5\n" - 1;
    char *many = malloc((TP_LOG_MAX_STEPS + 1) * each + 1);
    if (many == NULL) {
        CHECK_FAIL("out of memory");
        return;
    }
    for (int i = 0; i <= TP_LOG_MAX_STEPS; i++)
        memcpy(many + (size_t)i * each, "step: 1 tps: 5\n", each);
    many[(TP_LOG_MAX_STEPS + 1) * each] = '\0';
    CHECK_STR(refusal(many), "holds 4097 step lines of torchtitan, more than 4096: paste an excerpt of the steady "
                             "state");
    many[TP_LOG_MAX_STEPS * each] = '\0';
    CHECK(read_log(many) && result.steps == TP_LOG_MAX_STEPS);
    free(many);
    char *huge = malloc((size_t)TP_LOG_MAX_BYTES + 2);
    if (huge == NULL) {
        CHECK_FAIL("out of memory");
        return;
    }
    memset(huge, ' ', (size_t)TP_LOG_MAX_BYTES + 1);
    huge[TP_LOG_MAX_BYTES + 1] = '\0';
    CHECK_STR(refusal(huge), "is larger than 16777216 bytes: paste an excerpt");
    free(huge);
}

/* The JSON: "measured" goes into a runs document as it is, and the
 * calibration takes it. */
static void test_json(void)
{
    tp_error err = {TP_OK, "", ""};
    char *text = tp_calibrate_log_json(megatron, 0, &err);
    cJSON *out = cJSON_Parse(text);
    CHECK(out != NULL);
    CHECK_STR(cJSON_GetObjectItem(out, "trainer")->valuestring, "Megatron-LM");
    CHECK_INT(cJSON_GetObjectItem(out, "used")->valueint, 4);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(out, "read")), 4);
    cJSON *measured = cJSON_DetachItemFromObject(out, "measured");
    CHECK_STR(cJSON_GetObjectItem(measured, "memory_kind")->valuestring, "reserved");
    cJSON *doc = cJSON_Parse("{\"runs\": [{\"config\": {\"model\": {\"preset\": \"llama-3.1-70b\"}, \"system\": "
                             "{\"gpus\": 64}, \"training\": {\"seq_len\": 4096, \"global_batch\": 512}, "
                             "\"parallel\": {\"tp\": 8, \"pp\": 4}}}]}");
    cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0), "measured", measured);
    char *runs = cJSON_PrintUnformatted(doc);
    char *fitted = tp_calibrate_json(runs, 0, &err);
    CHECK(fitted != NULL);
    if (fitted == NULL)
        fprintf(stderr, "%s: %s\n", err.path, err.message);
    tp_free(fitted);
    cJSON_free(runs);
    cJSON_Delete(doc);
    cJSON_Delete(out);
    tp_free(text);
    char *envelope = tp_calibrate_log_envelope_json("nothing here");
    CHECK(strstr(envelope, "\"ok\":false") != NULL && strstr(envelope, "\"path\":\"log\"") != NULL);
    tp_free(envelope);
}

int main(void)
{
    test_torchtitan();
    test_megatron();
    test_nemo();
    test_composer();
    test_hostile();
    test_json();
    return check_finish("test_calibrate_log");
}
