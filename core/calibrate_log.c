/*
 * calibrate_log.c: reads a pasted training log excerpt for what
 * `trainplan calibrate` takes of a run: its step figure and its peak
 * memory (docs/calibrate.md, "Reading a log").
 *
 * A log is read line by line (a line ends at \n, \r or \r\n, so tqdm's
 * carriage returns part its updates); ANSI escape sequences (torchtitan's
 * colours) are left out before a line is matched. A line is a step line
 * when it holds one of the keys below followed by a positive number, and a
 * memory line likewise; every other line is ignored. Two passes: the first
 * counts the lines of each key, which says the trainer and the best figure
 * it printed; the second reads that figure's lines.
 *
 * The figure, in this order of preference: a step time, which needs no
 * count of the model's work; tokens per second per GPU, whose count of
 * tokens is the batch's; last, a FLOP rate or MFU, whose FLOP count is
 * the trainer's and not trainplan's (docs/calibrate.md).
 *
 * Allocates nothing; no globals but the constant tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

/* A key of a step or memory line: the text the trainer prints right
 * before the number. The line's number times `scale` (or, `invert`, one
 * over it) is the figure in its unit. A line must also hold `needs` and
 * must not hold `avoid` (NULL: no condition); `unit`, when given, must
 * follow the number. */
typedef struct {
    tp_trainer trainer;
    int figure;             /* tp_step_figure, or tp_memory_kind for a memory key */
    const char *key;
    const char *name;       /* as the result names it */
    double scale;
    int invert;
    const char *needs, *avoid, *unit;
} log_key;

/* The step keys, each trainer's in its order of preference.
 *
 * Megatron-LM, megatron/training/training.py, training_log() (NVIDIA/
 * Megatron-LM d98e8a6): one line per log interval, averaged over it,
 *   " [2026-08-22 15:22:22.123456] iteration      100/  500000 | consumed
 *   samples: ... | elapsed time per iteration (ms): 9812.3 | throughput per
 *   GPU (TFLOP/s/GPU): 402.1 | ..."
 * (the TFLOP/s are Megatron's count: not read).
 *
 * NeMo, nemo/utils/exp_manager.py, TimingCallback logs
 * "train_step_timing in s" to the progress bar (NVIDIA/NeMo 8cfedd7):
 * NeMo 2's progress printer (nemo/lightning/pytorch/callbacks/
 * progress_printer.py) prints "Training epoch 0, iteration 5/19 | ... |
 * train_step_timing in s: 7.559 | ...", NeMo 1's tqdm bar
 * "... train_step_timing in s=9.81]".
 *
 * torchtitan, torchtitan/components/metrics.py, MetricsProcessor.log()
 * (pytorch/torchtitan b5bcd76):
 *   "step: 100  loss:  2.30000  grad_norm:  0.5000  memory: 61.20GiB(77.30%)
 *   tps: 5,762  tflops: 330.20  mfu: 33.40%"
 * tps being tokens per second per GPU; before 2024-10 train.py printed
 * "wps: 5,762" for the same (2373509). The validation line ("validate
 * step:") is not a training step.
 *
 * llm-foundry trains with Composer, whose console logger
 * (composer/loggers/console_logger.py, log_to_console; mosaicml/composer
 * 6405188) prints each metric on a line of its own, "\t Train
 * throughput/batches_per_sec: 0.1019" under "[batch=100/1000]:"; the
 * metrics come from composer/callbacks/speed_monitor.py (a batch is one
 * optimizer step; tokens_per_sec only when the data spec counts tokens,
 * mfu only when the model counts its FLOPs). */
static const log_key step_keys[] = {
    {TP_TRAINER_MEGATRON, TP_FIGURE_STEP_S, "elapsed time per iteration (ms):", "elapsed time per iteration (ms)",
     1e-3, 0, NULL, NULL, NULL},
    {TP_TRAINER_NEMO, TP_FIGURE_STEP_S, "train_step_timing in s:", "train_step_timing in s", 1.0, 0, NULL, NULL, NULL},
    {TP_TRAINER_NEMO, TP_FIGURE_STEP_S, "train_step_timing in s=", "train_step_timing in s", 1.0, 0, NULL, NULL, NULL},
    {TP_TRAINER_TORCHTITAN, TP_FIGURE_TOKENS_PER_S_PER_GPU, "tps:", "tps", 1.0, 0, "step:", "validate step:", NULL},
    {TP_TRAINER_TORCHTITAN, TP_FIGURE_TOKENS_PER_S_PER_GPU, "wps:", "wps", 1.0, 0, "step:", "validate step:", NULL},
    {TP_TRAINER_COMPOSER, TP_FIGURE_STEP_S, "throughput/batches_per_sec:", "throughput/batches_per_sec", 1.0, 1,
     NULL, NULL, NULL},
    {TP_TRAINER_COMPOSER, TP_FIGURE_TOKENS_PER_S_PER_GPU, "throughput/device/tokens_per_sec:",
     "throughput/device/tokens_per_sec", 1.0, 0, NULL, NULL, NULL},
    {TP_TRAINER_COMPOSER, TP_FIGURE_MFU, "throughput/device/mfu:", "throughput/device/mfu", 1.0, 0, NULL, NULL,
     NULL},
};
#define STEP_KEYS ((int)(sizeof step_keys / sizeof step_keys[0]))

/* The memory keys, each trainer's reserved (torch.cuda.max_memory_reserved)
 * before allocated.
 *
 * Megatron-LM, megatron/training/utils/common_utils.py, report_memory()
 * (d98e8a6), after the first iterations and every --log-memory-interval:
 *   "[Rank 0] (after 10 iterations) memory (MB) | allocated: ... | max
 *   allocated: 41234.56 | reserved: ... | max reserved: 52345.67"
 * in MiB (1024 * 1024 bytes). NeMo runs Megatron's core and may print it.
 *
 * torchtitan: "memory: 61.20GiB(77.30%)" on the step line above, the
 * reserved peak since the last step line.
 *
 * Composer, composer/callbacks/memory_monitor.py (6405188):
 * "memory/peak_reserved_mem: 61.234" and "memory/peak_allocated_mem", in
 * GB (10^9 bytes). */
static const log_key memory_keys[] = {
    {TP_TRAINER_MEGATRON, TP_MEMORY_RESERVED, "max reserved:", "max reserved (MB)", 1.0 / 1024.0, 0, "memory (MB)",
     NULL, NULL},
    {TP_TRAINER_MEGATRON, TP_MEMORY_ALLOCATED, "max allocated:", "max allocated (MB)", 1.0 / 1024.0, 0,
     "memory (MB)", NULL, NULL},
    {TP_TRAINER_TORCHTITAN, TP_MEMORY_RESERVED, "memory:", "memory", 1.0, 0, "step:", "validate step:", "GiB"},
    {TP_TRAINER_COMPOSER, TP_MEMORY_RESERVED, "memory/peak_reserved_mem:", "memory/peak_reserved_mem (GB)",
     1e9 / TP_GIB, 0, NULL, NULL, NULL},
    {TP_TRAINER_COMPOSER, TP_MEMORY_ALLOCATED, "memory/peak_allocated_mem:", "memory/peak_allocated_mem (GB)",
     1e9 / TP_GIB, 0, NULL, NULL, NULL},
};
#define MEMORY_KEYS ((int)(sizeof memory_keys / sizeof memory_keys[0]))

static const char *const trainer_names[TP_TRAINER_COUNT] = {"", "Megatron-LM", "NeMo", "torchtitan",
                                                            "llm-foundry"};
static const char *const figure_names[] = {"step_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu"};

const char *tp_trainer_str(tp_trainer trainer)
{
    return trainer > TP_TRAINER_NONE && trainer < TP_TRAINER_COUNT ? trainer_names[trainer] : NULL;
}

const char *tp_step_figure_str(tp_step_figure figure)
{
    return (int)figure >= 0 && figure <= TP_FIGURE_MFU ? figure_names[figure] : NULL;
}

/* The trainer whose memory lines a step trainer's log may hold: NeMo
 * prints Megatron's. */
static tp_trainer memory_family(tp_trainer trainer)
{
    return trainer == TP_TRAINER_NEMO ? TP_TRAINER_MEGATRON : trainer;
}

#define LINE_MAX_BYTES 8192 /* of a line, what is matched; the rest is ignored */

/* One line of the log as matched: its text without escape sequences, its
 * other control characters made spaces, cut at LINE_MAX_BYTES - 1. */
typedef struct {
    char text[LINE_MAX_BYTES];
    int number;
} log_line;

/* The line that starts at *at, into line; *at moves past its end. 0 at
 * the end of the text. */
static int next_line(const char **at, log_line *line)
{
    const char *p = *at;
    if (*p == '\0')
        return 0;
    size_t n = 0;
    while (*p != '\0' && *p != '\n' && *p != '\r') {
        if (*p == '\033' && p[1] == '[') { /* CSI: ESC [ parameters final byte */
            p += 2;
            while (*p != '\0' && *p != '\n' && *p != '\r' && !(*p >= 0x40 && *p <= 0x7e))
                p++;
            if (*p >= 0x40 && *p <= 0x7e)
                p++;
            continue;
        }
        const unsigned char c = (unsigned char)*p++;
        if (n + 1 < sizeof line->text)
            line->text[n++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    line->text[n] = '\0';
    if (*p == '\r' && p[1] == '\n')
        p++;
    if (*p != '\0')
        p++;
    *at = p;
    line->number++;
    return 1;
}

/* Whether c may end a word before a key ("tps:" in "tps: 5,762" and not in
 * "steps:"). */
static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/';
}

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The number at p (digits with optional thousands commas, a fraction, an
 * exponent; no sign) into *out, *end after it; 0 when there is none. */
static int read_number(const char *p, const char **end, double *out)
{
    char text[64];
    size_t n = 0;
    const char *q = p;
    while (n + 1 < sizeof text) {
        if (*q == ',' && n > 0 && digit(q[-1]) && digit(q[1])) { /* 5,762 */
            q++;
            continue;
        }
        const int exponent_sign = (*q == '+' || *q == '-') && n > 0 && (text[n - 1] == 'e' || text[n - 1] == 'E');
        if (!(digit(*q) || *q == '.' || *q == 'e' || *q == 'E' || exponent_sign))
            break;
        text[n++] = *q++;
    }
    text[n] = '\0';
    if (n == 0 || !(digit(text[0]) || (text[0] == '.' && digit(text[1]))))
        return 0;
    char *stop;
    *out = strtod(text, &stop);
    /* *end: p past as many characters (commas aside) as strtod read */
    size_t used = (size_t)(stop - text);
    for (*end = p; used > 0; (*end)++)
        if (**end != ',')
            used--;
    return stop > text && isfinite(*out);
}

/* The figure k reads from a line, in its unit, into *out: 1 when the line
 * holds k's key and a positive finite number after it. */
static int read_key(const log_key *k, const char *text, double *out)
{
    if ((k->needs != NULL && strstr(text, k->needs) == NULL) || (k->avoid != NULL && strstr(text, k->avoid) != NULL))
        return 0;
    const size_t length = strlen(k->key);
    for (const char *at = strstr(text, k->key); at != NULL; at = strstr(at + 1, k->key)) {
        if (at > text && word_char(at[-1]))
            continue;
        const char *p = at + length, *end;
        while (*p == ' ' || *p == '\t')
            p++;
        double number;
        if (!read_number(p, &end, &number) || !(number > 0.0) || number > 1e300)
            continue;
        if (k->unit != NULL && strncmp(end, k->unit, strlen(k->unit)) != 0)
            continue;
        *out = k->invert ? 1.0 / (number * k->scale) : number * k->scale;
        return isfinite(*out) && *out > 0.0;
    }
    return 0;
}

/* The line as a result quotes it: valid UTF-8 (a stray byte becomes '?'),
 * leading blanks left out, cut with "..." to fit. */
static void quote_line(const log_line *line, tp_log_line *out)
{
    const unsigned char *p = (const unsigned char *)line->text;
    while (*p == ' ')
        p++;
    size_t n = 0;
    const size_t room = sizeof out->text - 4; /* "..." and the NUL */
    while (*p != '\0' && n < room) {
        const int more = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        int ok = more >= 0 && n + (size_t)more < room;
        for (int i = 1; ok && i <= more; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (!ok) {
            out->text[n++] = '?';
            p++;
            continue;
        }
        for (int i = 0; i <= more; i++)
            out->text[n++] = (char)*p++;
    }
    snprintf(out->text + n, sizeof out->text - n, "%s", *p != '\0' ? "..." : "");
    out->line = line->number;
}

/* ===================== the first pass ===================== */

/* How many lines of each key the log holds, and the first of each. */
typedef struct {
    int step_lines[STEP_KEYS], step_first[STEP_KEYS];
    int memory_lines[MEMORY_KEYS];
} log_survey;

static void survey(const char *text, log_survey *s, log_line *line)
{
    memset(s, 0, sizeof *s);
    line->number = 0;
    double value;
    for (const char *at = text; next_line(&at, line);) {
        for (int k = 0; k < STEP_KEYS; k++)
            if (read_key(&step_keys[k], line->text, &value) && s->step_lines[k]++ == 0)
                s->step_first[k] = line->number;
        for (int k = 0; k < MEMORY_KEYS; k++)
            if (read_key(&memory_keys[k], line->text, &value))
                s->memory_lines[k]++;
    }
}

/* The step key to read: the first of its trainer's keys found, the
 * trainer being the only one whose step lines the log holds. */
static tp_status choose_step_key(const log_survey *s, int *chosen, tp_error *err)
{
    *chosen = -1;
    for (int k = 0; k < STEP_KEYS; k++) {
        if (s->step_lines[k] == 0)
            continue;
        if (*chosen < 0) {
            *chosen = k;
            continue;
        }
        if (step_keys[k].trainer == step_keys[*chosen].trainer)
            continue;
        const int first = s->step_first[k] < s->step_first[*chosen] ? k : *chosen; /* named first */
        const int second = first == k ? *chosen : k;
        return err_set(err, TP_ERR_INVALID, "log",
                       "holds step lines of %s (line %d) and of %s (line %d): paste one run's log",
                       trainer_names[step_keys[first].trainer], s->step_first[first],
                       trainer_names[step_keys[second].trainer], s->step_first[second]);
    }
    if (*chosen < 0)
        return err_set(err, TP_ERR_INVALID, "log",
                       "no step line of Megatron-LM, NeMo, torchtitan or llm-foundry found (docs/calibrate.md "
                       "lists the lines read)");
    if (s->step_lines[*chosen] > TP_LOG_MAX_STEPS)
        return err_set(err, TP_ERR_INVALID, "log",
                       "holds %d step lines of %s, more than %d: paste an excerpt of the steady state",
                       s->step_lines[*chosen], trainer_names[step_keys[*chosen].trainer], TP_LOG_MAX_STEPS);
    return TP_OK;
}

/* The memory key to read: the trainer's first found, or -1. */
static int choose_memory_key(const log_survey *s, tp_trainer trainer)
{
    for (int k = 0; k < MEMORY_KEYS; k++)
        if (memory_keys[k].trainer == memory_family(trainer) && s->memory_lines[k] > 0)
            return k;
    return -1;
}

/* ===================== the second pass ===================== */

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The figure of every step line into out->values, the first lines used
 * into out->read, and the largest memory figure. */
static void read_lines(const char *text, int step_key, int memory_key, tp_log_result *out, log_line *line)
{
    line->number = 0;
    double value;
    for (const char *at = text; next_line(&at, line);) {
        if (read_key(&step_keys[step_key], line->text, &value)) {
            if (out->steps >= out->skipped && out->read_count < TP_LOG_READ_LINES)
                quote_line(line, &out->read[out->read_count++]);
            out->values[out->steps++] = value;
        }
        if (memory_key >= 0 && read_key(&memory_keys[memory_key], line->text, &value)
            && value > out->peak_memory_gib) {
            out->peak_memory_gib = value;
            quote_line(line, &out->memory_line);
        }
    }
}

/* The median, least and largest of the values past the warm-up. */
static void summarise(tp_log_result *out)
{
    double *used = out->values + out->skipped;
    const int n = out->steps - out->skipped;
    qsort(used, (size_t)n, sizeof *used, compare_doubles);
    out->value = n % 2 == 1 ? used[n / 2] : 0.5 * (used[n / 2 - 1] + used[n / 2]);
    out->min = used[0];
    out->max = used[n - 1];
}

tp_status tp_calibrate_log(const char *text, tp_log_result *out, tp_error *err)
{
    if (text == NULL || out == NULL)
        return err_set(err, TP_ERR_INVALID, "log", "is required: a training log excerpt");
    memset(out, 0, sizeof *out);
    size_t length = 0;
    while (text[length] != '\0' && length <= (size_t)TP_LOG_MAX_BYTES)
        length++;
    if (length > (size_t)TP_LOG_MAX_BYTES)
        return err_set(err, TP_ERR_INVALID, "log", "is larger than %d bytes: paste an excerpt", TP_LOG_MAX_BYTES);
    log_line line;
    log_survey s;
    survey(text, &s, &line);
    int step_key;
    TRY(choose_step_key(&s, &step_key, err));
    const int memory_key = choose_memory_key(&s, step_keys[step_key].trainer);
    const int steps = s.step_lines[step_key];
    out->trainer = step_keys[step_key].trainer;
    out->figure = (tp_step_figure)step_keys[step_key].figure;
    out->key = step_keys[step_key].name;
    out->skipped = steps / 2 < TP_LOG_WARMUP_LINES ? steps / 2 : TP_LOG_WARMUP_LINES;
    if (memory_key >= 0) {
        out->memory_kind = (tp_memory_kind)memory_keys[memory_key].figure;
        out->memory_key = memory_keys[memory_key].name;
    }
    read_lines(text, step_key, memory_key, out, &line);
    summarise(out);
    return TP_OK;
}
