/*
 * fuzz_json: libFuzzer target over trainplan's JSON entry points, built with
 * clang, AddressSanitizer and UndefinedBehaviorSanitizer (ci/fuzz.sh).
 *
 * Each input is a config document as a user would paste it. Built with
 * FUZZ_SEARCH it goes to the search (tp_search_envelope_json) with its work
 * budget held to a two-hundredth of the default, so that a unit stays well inside
 * libFuzzer's time limit under the sanitizers; built with FUZZ_CALIBRATE it
 * is a runs document for the calibration (tp_calibrate_envelope_json and
 * tp_calibrate_json), held to FUZZ_CALIBRATE_RUNS runs and
 * FUZZ_CALIBRATE_ITERATIONS iterations per fit for the same reason; built
 * with FUZZ_CALIBRATE_LOG it is a pasted training log excerpt
 * (tp_calibrate_log_envelope_json and tp_calibrate_log, whose figures must
 * be finite and positive, the median within its range); built
 * with FUZZ_MERGE it is
 * cut at NUL bytes into sweep shard outputs (tp_sweep_merge_json) and read
 * as the bytes of a search part (tp_search_merge_envelope_json), both
 * untrusted; otherwise it goes to the estimate (tp_estimate_envelope_json
 * and tp_estimate_json) and, as a shard output from a file, to sweep
 * --merge. Besides the sanitizers, the target checks what the core promises
 * of any input:
 *   - the envelope is valid UTF-8 and valid JSON with "ok" true, or "ok"
 *     false and an error naming a field (path) and a reason (message);
 *   - an estimate that succeeds passes tests/unit/estimate_sanity.h: every
 *     memory, time and throughput figure finite and non-negative, and every
 *     total the sum of its items (no NaN reaches a user).
 * A broken promise aborts, which libFuzzer reports like a crash.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "estimate_sanity.h"
#include "trainplan.h"

static void require(int ok, const char *what, const char *document)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_json: %s\n%s\n", what, document);
    abort();
}

/* Whether text is valid UTF-8 (what a JSON reader may refuse otherwise). */
static int valid_utf8(const unsigned char *p)
{
    while (*p != '\0') {
        int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0)
            return 0;
        for (p++; n > 0; n--, p++)
            if ((*p & 0xc0) != 0x80)
                return 0;
    }
    return 1;
}

static void check_envelope(const char *envelope)
{
    require(envelope != NULL, "no envelope (out of memory?)", "");
    require(valid_utf8((const unsigned char *)envelope), "envelope is not UTF-8", envelope);
    cJSON *root = cJSON_Parse(envelope);
    require(root != NULL, "envelope is not JSON", envelope);
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(root, "ok");
    require(cJSON_IsBool(ok), "envelope without ok", envelope);
    if (cJSON_IsFalse(ok)) {
        const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(error, "path");
        const cJSON *message = cJSON_GetObjectItemCaseSensitive(error, "message");
        require(cJSON_IsString(path) && cJSON_IsString(message) && message->valuestring[0] != '\0',
                "error without a field and a reason", envelope);
    } else {
        require(cJSON_GetObjectItemCaseSensitive(root, "result") != NULL, "ok without result",
                envelope);
    }
    cJSON_Delete(root);
}

#if !defined(FUZZ_SEARCH) && !defined(FUZZ_CALIBRATE) && !defined(FUZZ_CALIBRATE_LOG)
static void check_estimate(const char *document)
{
    tp_config config;
    tp_estimate_result r;
    if (tp_config_from_json(document, &config, NULL) != TP_OK || tp_estimate(&config, &r, NULL) != TP_OK)
        return;
    require(estimate_memory_sane(&r), "a memory figure is NaN, negative or does not add up", document);
    require(estimate_time_sane(&r), "a time or throughput figure is NaN, negative or does not add up",
            document);
}
#endif

#ifdef FUZZ_SEARCH
/* The document with search.max_evaluations at most a two-hundredth of the
 * default (a document that is no object goes as it is). */
static char *with_small_budget(const char *document)
{
    cJSON *root = cJSON_Parse(document);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    cJSON *search = cJSON_GetObjectItemCaseSensitive(root, "search");
    if (search == NULL)
        search = cJSON_AddObjectToObject(root, "search");
    if (cJSON_IsObject(search)) {
        const cJSON *given = cJSON_GetObjectItemCaseSensitive(search, "max_evaluations");
        const double cap = TP_SEARCH_MAX_EVALUATIONS / 200;
        if (!cJSON_IsNumber(given) || given->valuedouble > cap) {
            cJSON_DeleteItemFromObjectCaseSensitive(search, "max_evaluations");
            cJSON_AddNumberToObject(search, "max_evaluations", cap);
        }
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}
#endif

#ifdef FUZZ_CALIBRATE
#define FUZZ_CALIBRATE_RUNS 6
#define FUZZ_CALIBRATE_ITERATIONS 20
/* The document with at most FUZZ_CALIBRATE_RUNS runs and
 * max_iterations at most FUZZ_CALIBRATE_ITERATIONS (a document that is no
 * object goes as it is): a unit of about 10^4 estimates. */
static char *with_few_runs(const char *document)
{
    cJSON *root = cJSON_Parse(document);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    while (cJSON_IsArray(runs) && cJSON_GetArraySize(runs) > FUZZ_CALIBRATE_RUNS)
        cJSON_DeleteItemFromArray(runs, FUZZ_CALIBRATE_RUNS);
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(root, "max_iterations");
    if (!cJSON_IsNumber(given) || given->valuedouble > FUZZ_CALIBRATE_ITERATIONS) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "max_iterations");
        cJSON_AddNumberToObject(root, "max_iterations", FUZZ_CALIBRATE_ITERATIONS);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* A calibration: its envelope, and the document either way with a reason
 * when refused and no NaN or infinity when not (the writer refuses them,
 * so a document that holds one would be a refusal here). */
static void fuzz_calibrate(const char *document)
{
    char *bounded = with_few_runs(document);
    const char *input = bounded != NULL ? bounded : document;
    char *envelope = tp_calibrate_envelope_json(input);
    check_envelope(envelope);
    tp_free(envelope);
    tp_error err;
    char *out = tp_calibrate_json(input, 1, &err);
    if (out == NULL) {
        require(err.message[0] != '\0', "calibration refused without a reason", input);
        /* json_finish's refusal of a NaN or an infinity the output held (a
         * run's estimate that is not finite says more words) */
        require(strcmp(err.message, "is not a finite number") != 0, "a calibration figure is not finite", input);
    }
    tp_free(out);
    cJSON_free(bounded);
}
#endif

#ifdef FUZZ_CALIBRATE_LOG
/* A log excerpt: its envelope, and the figures read either refused with
 * a reason or finite, positive and consistent. */
static void fuzz_calibrate_log(const char *text)
{
    char *envelope = tp_calibrate_log_envelope_json(text);
    check_envelope(envelope);
    tp_free(envelope);
    static tp_log_result r; /* large: not on the stack */
    tp_error err;
    if (tp_calibrate_log(text, &r, &err) != TP_OK) {
        require(err.message[0] != '\0' && strcmp(err.path, "log") == 0, "log refused without a reason", text);
        return;
    }
    require(r.steps >= 1 && r.steps <= TP_LOG_MAX_STEPS && r.skipped <= r.steps / 2, "step counts out of range",
            text);
    require(isfinite(r.value) && r.value > 0.0 && r.min <= r.value && r.value <= r.max, "median out of range", text);
    require(r.memory_kind == TP_MEMORY_NONE || (isfinite(r.peak_memory_gib) && r.peak_memory_gib > 0.0),
            "peak memory not finite and positive", text);
    for (int i = 0; i < r.read_count; i++)
        require(valid_utf8((const unsigned char *)r.read[i].text), "a quoted line is not UTF-8", text);
}
#endif

#ifdef FUZZ_MERGE
/* The input cut at NUL bytes into up to 4 shard outputs, merged; and its
 * bytes, padded, as one part of a search (a worker's result in the page). */
static void fuzz_merges(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    const char *shards[4];
    int count = 0;
    for (size_t at = 0; at <= size && count < 4; at += strlen(text + at) + 1)
        shards[count++] = text + at;
    tp_error err;
    char *merged = tp_sweep_merge_json(shards, count, 0, &err);
    require(merged != NULL || err.message[0] != '\0', "sweep merge refused without a reason", text);
    tp_free(merged);
    free(text);
    tp_search_result *part = calloc(1, sizeof *part);
    if (part == NULL)
        return;
    memcpy(part, data, size < sizeof *part ? size : sizeof *part);
    char *envelope = tp_search_merge_envelope_json("{\"system\":{\"gpus\":8}}", part, 1);
    check_envelope(envelope);
    tp_free(envelope);
    free(part);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_MERGE
    fuzz_merges(data, size);
    return 0;
#endif
    char *document = malloc(size + 1);
    if (document == NULL)
        return 0;
    memcpy(document, data, size);
    document[size] = '\0';
#if defined(FUZZ_CALIBRATE_LOG)
    fuzz_calibrate_log(document);
#elif defined(FUZZ_CALIBRATE)
    fuzz_calibrate(document);
#elif defined(FUZZ_SEARCH)
    char *bounded = with_small_budget(document);
    char *envelope = tp_search_envelope_json(bounded != NULL ? bounded : document);
    check_envelope(envelope);
    tp_free(envelope);
    cJSON_free(bounded);
#else
    char *envelope = tp_estimate_envelope_json(document);
    check_envelope(envelope);
    tp_free(envelope);
    tp_error err;
    char *pretty = tp_estimate_json(document, 1, &err);
    tp_free(pretty);
    check_estimate(document);
    /* a shard file is untrusted too: merged, or refused with a reason */
    const char *const shard[1] = {document};
    char *merged = tp_sweep_merge_json(shard, 1, 0, &err);
    if (merged == NULL)
        require(err.message[0] != '\0', "sweep merge refused without a reason", document);
    else
        require(strstr(merged, "\"points\"") != NULL, "merged sweep without points", document);
    tp_free(merged);
#endif
    free(document);
    return 0;
}
