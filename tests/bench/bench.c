/*
 * bench.c: how fast the native core is. Prints figures, never fails on
 * timing: estimates per second; for each search case of cases.json its
 * time on one core, the plans it covers, the memory and step-time models it
 * runs per second and their ratio to Calculon's search (about 300
 * configurations per second); and the time of each whole document of the
 * "documents" cases, spaces that once ran for minutes; and the time of a
 * calibration of 20 runs, leave-one-out refits included.
 *
 *   build/tests/trainplan_bench tests/bench/cases.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "trainplan.h"

#define CALCULON_PLANS_PER_S 300.0
#define RUNS 7

static double seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC; /* CPU time of this process: one core */
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = malloc(TP_MAX_INPUT_BYTES + 1);
    const size_t n = text ? fread(text, 1, TP_MAX_INPUT_BYTES, f) : 0;
    fclose(f);
    if (text != NULL)
        text[n] = '\0';
    return text;
}

static void bench_estimate(const cJSON *doc)
{
    char *json = cJSON_PrintUnformatted(doc);
    tp_config c;
    tp_error err;
    if (json == NULL || tp_config_from_json(json, &c, &err) != TP_OK) {
        printf("estimate case: %s: %s\n", err.path, err.message);
        free(json);
        return;
    }
    free(json);
    tp_estimate_result r;
    long n = 0;
    volatile double sink = 0.0;
    const double start = seconds();
    double elapsed = 0.0;
    while (elapsed < 1.0) {
        for (int i = 0; i < 100000; i++, n++) {
            c.training.train_tokens = 1e12 + (double)(n & 1); /* defeat hoisting */
            tp_estimate(&c, &r, NULL);
            sink += r.time.step_s;
        }
        elapsed = seconds() - start;
    }
    (void)sink;
    printf("estimate (llama-3.1-70b, tp 8, pp 4, 1024 GPUs): %.2f M estimates/s, %.3f us each\n",
           (double)n / elapsed / 1e6, elapsed / (double)n * 1e6);
}

static void bench_search(const char *name, const cJSON *doc, tp_search_result *r)
{
    char *json = cJSON_PrintUnformatted(doc);
    tp_config c;
    tp_search_space s;
    tp_error err;
    if (json == NULL || tp_search_config_from_json(json, &c, &s, &err) != TP_OK) {
        printf("%s: %s: %s\n", name, err.path, err.message);
        free(json);
        return;
    }
    free(json);
    double times[RUNS];
    for (int i = 0; i < RUNS; i++) {
        const double start = seconds();
        tp_search(&c, &s, r, NULL);
        times[i] = seconds() - start;
    }
    qsort(times, RUNS, sizeof times[0], compare_double);
    const double median = times[RUNS / 2];
    const double models = (double)(r->counts.memory_evaluations + r->counts.time_evaluations);
    /* Calculon evaluates every configuration in full; the fair ratio is
     * models run per second, not plans covered (most are pruned unrun) */
    printf("search %-24s %6.1f ms (median of %d, min %.1f)  %8lld plans (%.0f M/s)  %7.0f models "
           "(%.1f M/s, %.0fx Calculon)\n",
           name, 1e3 * median, RUNS, 1e3 * times[0], (long long)r->counts.candidates,
           (double)r->counts.candidates / median / 1e6, models, models / median / 1e6,
           models / median / CALCULON_PLANS_PER_S);
}

/* A whole search document (scaling list and smallest count included), once:
 * the time a user waits, and whether the work budget cut it short. */
static void bench_document(const char *name, const cJSON *doc)
{
    char *json = cJSON_PrintUnformatted(doc);
    tp_error err;
    const double start = seconds();
    char *out = json != NULL ? tp_search_json(json, 0, &err) : NULL;
    const double elapsed = seconds() - start;
    if (out == NULL)
        printf("document %s: %s: %s\n", name, err.path, err.message);
    else
        printf("document %-28s %6.2f s%s\n", name, elapsed,
               strstr(out, "\"truncated\":true") != NULL ? "  (stopped at its work budget)" : "");
    tp_free(out);
    free(json);
}

/* 20 runs on one cluster (1 to 8 nodes, tp 1-8, pp 1-2, 2k-16k tokens)
 * measured by the estimate itself with other parameters, calibrated
 * whole: the time a user waits for `trainplan calibrate`. */
static void bench_calibrate(void)
{
    enum { N = 20 };
    static tp_calibration_run runs[N];
    static tp_calibration_result result;
    static const int64_t tps[] = {1, 2, 4, 8}, gpus[] = {8, 16, 32, 64, 8};
    for (int i = 0; i < N; i++) {
        tp_calibration_run *r = &runs[i];
        memset(r, 0, sizeof *r);
        tp_config_defaults(&r->config);
        r->config.system.gpus = gpus[i % 5];
        r->config.plan.tp = tps[i % 4];
        r->config.plan.pp = i % 3 == 2 ? 2 : 1;
        r->config.training.seq_len = (int64_t)2048 << (i % 4);
        r->config.training.global_batch = 8 * r->config.system.gpus;
        r->config.training.micro_batch = 1 + i % 2;
        r->config.training.recompute = (tp_recompute)(i % 3);
        tp_config measured = r->config;
        measured.system.gpu.matmul_efficiency = 0.7;
        measured.system.gpu.attention_efficiency = 0.4;
        measured.system.gpu.kernel_latency_s = 20e-6;
        measured.system.step_overhead_s = 0.2;
        tp_estimate_result e;
        if (tp_estimate(&measured, &e, NULL) != TP_OK) {
            printf("calibrate: run %d is invalid\n", i);
            return;
        }
        r->step_s = e.time.step_s;
    }
    double times[RUNS];
    tp_error err;
    for (int k = 0; k < RUNS; k++) {
        const double start = seconds();
        if (tp_calibrate(runs, N, NULL, &result, &err) != TP_OK) {
            printf("calibrate: %s: %s\n", err.path, err.message);
            return;
        }
        times[k] = seconds() - start;
    }
    qsort(times, RUNS, sizeof times[0], compare_double);
    printf("calibrate 20 runs (leave-one-out included) %6.2f ms (median of %d, min %.2f), %d iterations\n",
           1e3 * times[RUNS / 2], RUNS, 1e3 * times[0], result.iterations);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "tests/bench/cases.json";
    char *text = read_file(path);
    cJSON *cases = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (cases == NULL) {
        fprintf(stderr, "bench: cannot read %s\n", path);
        return 1;
    }
    tp_search_result *r = malloc(sizeof *r);
    if (r == NULL)
        return 1;
    printf("trainplan %s native benchmark (one core, CPU time)\n", TP_VERSION);
    bench_estimate(cJSON_GetObjectItem(cases, "estimate"));
    const cJSON *search;
    cJSON_ArrayForEach(search, cJSON_GetObjectItem(cases, "searches"))
        bench_search(search->string, search, r);
    cJSON_ArrayForEach(search, cJSON_GetObjectItem(cases, "documents"))
        if (search->string[0] != '_')
            bench_document(search->string, search);
    bench_calibrate();
    free(r);
    cJSON_Delete(cases);
    return 0;
}
