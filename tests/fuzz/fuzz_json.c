/*
 * fuzz_json: libFuzzer target over trainplan's JSON entry points, built with
 * clang, AddressSanitizer and UndefinedBehaviorSanitizer (ci/fuzz.sh).
 *
 * Each input is a config document as a user would paste it. Built with
 * FUZZ_SEARCH it goes to the search (tp_search_envelope_json), otherwise to
 * the estimate (tp_estimate_envelope_json and tp_estimate_json) and, as a
 * shard output from a file, to sweep --merge (tp_sweep_merge_json). Besides
 * the sanitizers, the target checks what the core promises of any input:
 *   - the envelope is valid JSON with "ok" true, or "ok" false and an error
 *     naming a field (path) and a reason (message);
 *   - an estimate that succeeds passes tests/unit/estimate_sanity.h: every
 *     memory, time and throughput figure finite and non-negative, and every
 *     total the sum of its items (no NaN reaches a user).
 * A broken promise aborts, which libFuzzer reports like a crash.
 */
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

static void check_envelope(const char *envelope)
{
    require(envelope != NULL, "no envelope (out of memory?)", "");
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

#ifndef FUZZ_SEARCH
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *document = malloc(size + 1);
    if (document == NULL)
        return 0;
    memcpy(document, data, size);
    document[size] = '\0';
#ifdef FUZZ_SEARCH
    char *envelope = tp_search_envelope_json(document);
    check_envelope(envelope);
    tp_free(envelope);
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
