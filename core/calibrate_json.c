/*
 * calibrate_json.c: trainplan calibrate's document in (runs, each a config
 * and what was measured of it, and the parameters to fit) and its output
 * document out (docs/calibrate.md), and what a log excerpt says of its
 * run (calibrate_log.c) out. The allocations: the run list, as many
 * runs as the document holds (at most TP_CALIBRATE_MAX_RUNS), the
 * calibration's result, and a log's result (about 36 KB).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_internal.h"

static const char *const memory_kind_items[] = {"reserved", "allocated"};
static const name_list memory_kind_names = {memory_kind_items, 2};

/* A parameter named in "fit", by its config path or its key alone
 * ("system.gpu.matmul_efficiency" or "matmul_efficiency"); -1 if none. */
static int param_index(const char *name)
{
    for (int k = 0; k < TP_PARAM_COUNT; k++) {
        const char *path = tp_param_str((tp_param)k);
        if (strcmp(name, path) == 0 || strcmp(name, strrchr(path, '.') + 1) == 0)
            return k;
    }
    return -1;
}

/* "fit": the parameters to fit; absent, all of them. */
static tp_status read_fit(const cJSON *fit, tp_calibrate_options *o, tp_error *err)
{
    if (fit == NULL)
        return TP_OK;
    if (!cJSON_IsArray(fit))
        return err_set(err, TP_ERR_INVALID, "fit", "must be a list of parameter names");
    for (int k = 0; k < TP_PARAM_COUNT; k++)
        o->fit[k] = 0;
    int i = 0;
    for (const cJSON *item = fit->child; item != NULL; item = item->next, i++) {
        const int k = cJSON_IsString(item) ? param_index(item->valuestring) : -1;
        if (k < 0) {
            char path[32], names[320] = "";
            snprintf(path, sizeof path, "fit[%d]", i);
            for (int p = 0; p < TP_PARAM_COUNT; p++) {
                const size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s", p == 0 ? "" : p == TP_PARAM_COUNT - 1 ? " or " : ", ",
                         strrchr(tp_param_str((tp_param)p), '.') + 1);
            }
            return err_set(err, TP_ERR_INVALID, path, "must be %s", names);
        }
        o->fit[k] = 1;
    }
    return TP_OK;
}

/* An optional option that is a number from 0 to max, into *out. */
static tp_status read_weight(const cJSON *root, const char *key, double max, double *out, tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < 0.0 || item->valuedouble > max)
        return err_set(err, TP_ERR_INVALID, key, "must be a number from 0 to %g", max);
    *out = item->valuedouble;
    return TP_OK;
}

/* The document's options: "fit", "max_iterations", "leave_one_out", "one_cluster",
 * "prior_weight", "robust_scale". */
static tp_status read_options(const cJSON *root, tp_calibrate_options *o, tp_error *err)
{
    tp_calibrate_defaults(o);
    TRY(read_fit(cJSON_GetObjectItemCaseSensitive(root, "fit"), o, err));
    const cJSON *iterations = cJSON_GetObjectItemCaseSensitive(root, "max_iterations");
    if (iterations != NULL) {
        int64_t n;
        TRY(json_integer(iterations, "max_iterations", &n, err));
        if (n < 1 || n > 10000)
            return err_set(err, TP_ERR_INVALID, "max_iterations", "must be 1 to 10000");
        o->max_iterations = (int)n;
    }
    const cJSON *loo = cJSON_GetObjectItemCaseSensitive(root, "leave_one_out");
    if (loo != NULL && !cJSON_IsBool(loo))
        return err_set(err, TP_ERR_INVALID, "leave_one_out", "must be true or false");
    if (loo != NULL)
        o->leave_one_out = cJSON_IsTrue(loo);
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(root, "one_cluster");
    if (one != NULL && !cJSON_IsBool(one))
        return err_set(err, TP_ERR_INVALID, "one_cluster", "must be true or false");
    if (one != NULL)
        o->one_cluster = cJSON_IsTrue(one);
    TRY(read_weight(root, "prior_weight", 100.0, &o->prior_weight, err));
    return read_weight(root, "robust_scale", 10.0, &o->robust_scale, err);
}

/* One optional measured figure, above 0 when given; scale turns it into
 * the struct's unit. */
static tp_status read_figure(const cJSON *measured, const char *at, const char *key, double scale, double *out,
                             tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(measured, key);
    if (item == NULL)
        return TP_OK;
    char path[96];
    snprintf(path, sizeof path, "%s.%s", at, key);
    double value;
    TRY(json_number(item, path, &value, err));
    if (!(value > 0.0) || value > 1e300 / scale)
        return err_set(err, TP_ERR_INVALID, path, "must be a positive number");
    *out = value * scale;
    return TP_OK;
}

/* "measured": the step figure and the peak memory of run i. */
static tp_status read_measured(const cJSON *measured, int i, tp_calibration_run *run, tp_error *err)
{
    static const char *const keys[] = {"step_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu", "peak_memory_gib",
                                       "memory_kind", NULL};
    char at[48];
    snprintf(at, sizeof at, "runs[%d].measured", i);
    if (measured == NULL)
        return err_set(err, TP_ERR_INVALID, at, "is required: the step time or the peak memory measured");
    TRY(json_check_object(measured, at, keys, err));
    TRY(read_figure(measured, at, "step_s", 1.0, &run->step_s, err));
    TRY(read_figure(measured, at, "tokens_per_s_per_gpu", 1.0, &run->tokens_per_s_per_gpu, err));
    TRY(read_figure(measured, at, "tflops_per_gpu", 1e12, &run->model_flop_per_s_per_gpu, err));
    TRY(read_figure(measured, at, "mfu", 1.0, &run->mfu, err));
    TRY(read_figure(measured, at, "peak_memory_gib", TP_GIB, &run->peak_memory_bytes, err));
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(measured, "memory_kind");
    char path[96];
    snprintf(path, sizeof path, "%s.memory_kind", at);
    if (kind == NULL && run->peak_memory_bytes > 0.0)
        return err_set(err, TP_ERR_INVALID, path,
                       "is required with peak_memory_gib: \"reserved\" (torch.cuda.max_memory_reserved) or "
                       "\"allocated\" (torch.cuda.max_memory_allocated)");
    if (kind != NULL && run->peak_memory_bytes == 0.0)
        return err_set(err, TP_ERR_INVALID, path, "is given without peak_memory_gib");
    int index = 0;
    if (kind != NULL)
        TRY(json_name_index(kind, path, &memory_kind_names, &index, err));
    run->memory_kind = kind != NULL ? (tp_memory_kind)(index + 1) : TP_MEMORY_NONE;
    return TP_OK;
}

/* Run i: its label, its config (errors located under runs[i].config) and
 * its measurements. */
static tp_status read_run(const cJSON *item, int i, tp_calibration_run *run, tp_error *err)
{
    static const char *const keys[] = {"name", "config", "measured", NULL};
    static const char *const config_keys[] = {"model", "system", "training", "parallel", "overheads", NULL};
    char at[48];
    snprintf(at, sizeof at, "runs[%d]", i);
    memset(run, 0, sizeof *run);
    TRY(json_check_object(item, at, keys, err));
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(item, "name");
    char path[96];
    snprintf(path, sizeof path, "%s.name", at);
    if (name != NULL && (!cJSON_IsString(name) || strlen(name->valuestring) >= sizeof run->name))
        return err_set(err, TP_ERR_INVALID, path, "must be a string of at most %zu characters", sizeof run->name - 1);
    for (const char *c = name != NULL ? name->valuestring : ""; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return err_set(err, TP_ERR_INVALID, path, "must be printable text");
    if (name != NULL)
        snprintf(run->name, sizeof run->name, "%s", name->valuestring);
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(item, "config");
    snprintf(path, sizeof path, "%s.config", at);
    if (config == NULL)
        return err_set(err, TP_ERR_INVALID, path, "is required: the run's config, as estimate reads it");
    if (json_check_object(config, "", config_keys, err) != TP_OK
        || json_read_config(config, &run->config, 1, NULL, err) != TP_OK)
        return err_locate(err, path);
    return read_measured(cJSON_GetObjectItemCaseSensitive(item, "measured"), i, run, err);
}

/* The runs of a document, into a list of as many (cJSON_malloc'd). */
static tp_status read_runs(const cJSON *root, tp_calibration_run **runs, int *n, tp_error *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (!cJSON_IsArray(list))
        return err_set(err, TP_ERR_INVALID, "runs", "is required: a list of measured runs");
    const int count = cJSON_GetArraySize(list);
    if (count < 1 || count > TP_CALIBRATE_MAX_RUNS)
        return err_set(err, TP_ERR_INVALID, "runs", "holds %d runs; a calibration takes 1 to %d", count,
                       TP_CALIBRATE_MAX_RUNS);
    *runs = cJSON_malloc((size_t)count * sizeof **runs);
    if (*runs == NULL)
        return err_set(err, TP_ERR_NOMEM, "", "out of memory");
    *n = count;
    int i = 0;
    for (const cJSON *item = list->child; item != NULL; item = item->next, i++)
        TRY(read_run(item, i, &(*runs)[i], err));
    return TP_OK;
}

/* ===================== writing ===================== */

static void write_parameters(json_writer *w, cJSON *root, const tp_calibration_result *r)
{
    cJSON *list = json_add_array(w, root, "parameters");
    for (int k = 0; list != NULL && k < TP_PARAM_COUNT; k++) {
        const tp_calibration_parameter *p = &r->parameters[k];
        cJSON *o = json_add_object(w, list, NULL);
        json_add_string(w, o, "name", tp_param_str((tp_param)k));
        json_add_number(w, o, "default", p->default_value);
        json_add_number(w, o, "fitted", p->fitted);
        json_add_bool(w, o, "fit", p->fit);
        json_add_bool(w, o, "determined", p->determined);
        json_add_number(w, o, "sensitivity", p->sensitivity);
        if (p->standard_error >= 0.0)
            json_add_number(w, o, "standard_error", p->standard_error);
        if (!p->fit)
            json_add_string(w, o, "note", "not fitted: not named in \"fit\"");
        else if (p->reverted)
            json_add_string(w, o, "note", "set back to its default: fitted, it predicted the runs left out "
                                          "no better than the default did, beyond their noise");
        else if (!p->determined)
            json_add_string(w, o, "note", "not determined by these runs");
    }
}

static void write_run(json_writer *w, cJSON *o, const tp_calibration_run *run, const tp_calibration_run_result *x)
{
    if (run->name[0] != '\0')
        json_add_string(w, o, "name", run->name);
    if (x->has_step) {
        json_add_number(w, o, "measured_step_s", x->measured_step_s);
        json_add_number(w, o, "predicted_step_s_before", x->predicted_step_s_before);
        json_add_number(w, o, "predicted_step_s_after", x->predicted_step_s_after);
        json_add_number(w, o, "error_before", x->error_before);
        json_add_number(w, o, "error_after", x->error_after);
        if (x->has_left_out) {
            json_add_number(w, o, "predicted_step_s_left_out", x->predicted_step_s_left_out);
            json_add_number(w, o, "error_left_out", x->error_left_out);
        }
    }
    if (x->has_memory) {
        json_add_string(w, o, "memory_kind", memory_kind_items[run->memory_kind == TP_MEMORY_ALLOCATED]);
        json_add_number(w, o, "measured_memory_gib", x->measured_memory_bytes / TP_GIB);
        json_add_number(w, o, "predicted_memory_gib_before", x->predicted_memory_bytes_before / TP_GIB);
        json_add_number(w, o, "predicted_memory_gib_after", x->predicted_memory_bytes_after / TP_GIB);
        json_add_number(w, o, "memory_error_before", x->memory_error_before);
        json_add_number(w, o, "memory_error_after", x->memory_error_after);
        if (x->has_memory_left_out) {
            json_add_number(w, o, "predicted_memory_gib_left_out", x->predicted_memory_bytes_left_out / TP_GIB);
            json_add_number(w, o, "memory_error_left_out", x->memory_error_left_out);
        }
    }
}

/* The means, written only over runs that have them. */
static void write_means(json_writer *w, cJSON *root, const tp_calibration_result *r)
{
    if (r->step_runs > 0) {
        json_add_number(w, root, "error_before", r->error_before);
        json_add_number(w, root, "error_after", r->error_after);
        if (r->has_left_out)
            json_add_number(w, root, "error_left_out", r->error_left_out);
    }
    if (r->memory_runs > 0) {
        json_add_number(w, root, "memory_error_before", r->memory_error_before);
        json_add_number(w, root, "memory_error_after", r->memory_error_after);
        if (r->has_memory_left_out)
            json_add_number(w, root, "memory_error_left_out", r->memory_error_left_out);
    }
    json_add_number(w, root, "iterations", (double)r->iterations);
}

static cJSON *write_result(const tp_calibration_run *runs, const tp_calibration_result *r, tp_error *err)
{
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    write_parameters(&w, root, r);
    cJSON *list = json_add_array(&w, root, "runs");
    for (int i = 0; list != NULL && i < r->run_count; i++)
        write_run(&w, json_add_object(&w, list, NULL), &runs[i], &r->runs[i]);
    write_means(&w, root, r);
    json_write_system(&w, json_add_object(&w, root, "system"), &r->system);
    json_write_overheads(&w, json_add_object(&w, root, "overheads"), &r->overheads);
    return json_finish(root, &w, err);
}

/* The output document of the calibration a runs document asks for, or
 * NULL with err filled. */
static cJSON *calibrate_document(const char *json, tp_error *err)
{
    static const char *const keys[] = {"runs", "fit", "max_iterations", "leave_one_out", "one_cluster", "prior_weight",
                                       "robust_scale", NULL};
    cJSON *root = json_parse_document(json, err);
    if (root == NULL)
        return NULL;
    tp_calibration_run *runs = NULL;
    tp_calibration_result *result = NULL;
    tp_calibrate_options options;
    int n = 0;
    tp_status status = json_check_object(root, "", keys, err);
    if (status == TP_OK)
        status = read_options(root, &options, err);
    if (status == TP_OK)
        status = read_runs(root, &runs, &n, err);
    cJSON_Delete(root);
    if (status == TP_OK && (result = cJSON_malloc(sizeof *result)) == NULL)
        status = err_set(err, TP_ERR_NOMEM, "", "out of memory");
    if (status == TP_OK)
        status = tp_calibrate(runs, n, &options, result, err);
    cJSON *out = status == TP_OK ? write_result(runs, result, err) : NULL;
    cJSON_free(runs);
    cJSON_free(result);
    return out;
}

char *tp_calibrate_json(const char *json, int pretty, tp_error *err)
{
    return json_print_document(calibrate_document(json, err), pretty, err);
}

char *tp_calibrate_envelope_json(const char *json)
{
    tp_error err = {TP_OK, "", ""};
    return json_envelope(calibrate_document(json, &err), &err);
}

/* ===================== log import ===================== */

static void write_log_line(json_writer *w, cJSON *o, const tp_log_line *line)
{
    json_add_number(w, o, "line", (double)line->line);
    json_add_string(w, o, "text", line->text);
}

/* "measured": the figures a run of a runs document takes as they are. */
static void write_log_measured(json_writer *w, cJSON *root, const tp_log_result *r)
{
    cJSON *measured = json_add_object(w, root, "measured");
    json_add_number(w, measured, tp_step_figure_str(r->figure), r->value);
    if (r->memory_kind != TP_MEMORY_NONE) {
        json_add_number(w, measured, "peak_memory_gib", r->peak_memory_gib);
        json_add_string(w, measured, "memory_kind", memory_kind_items[r->memory_kind == TP_MEMORY_ALLOCATED]);
    }
}

static cJSON *write_log_result(const tp_log_result *r, tp_error *err)
{
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    json_add_string(&w, root, "trainer", tp_trainer_str(r->trainer));
    json_add_string(&w, root, "figure", tp_step_figure_str(r->figure));
    json_add_string(&w, root, "key", r->key);
    json_add_number(&w, root, "steps", (double)r->steps);
    json_add_number(&w, root, "skipped", (double)r->skipped);
    json_add_number(&w, root, "used", (double)(r->steps - r->skipped));
    json_add_number(&w, root, "min", r->min);
    json_add_number(&w, root, "max", r->max);
    write_log_measured(&w, root, r);
    cJSON *read = json_add_array(&w, root, "read");
    for (int i = 0; read != NULL && i < r->read_count; i++)
        write_log_line(&w, json_add_object(&w, read, NULL), &r->read[i]);
    if (r->memory_kind != TP_MEMORY_NONE) {
        json_add_string(&w, root, "memory_key", r->memory_key);
        write_log_line(&w, json_add_object(&w, root, "memory_line"), &r->memory_line);
    }
    return json_finish(root, &w, err);
}

/* The output document of a log excerpt read, or NULL with err filled. */
static cJSON *log_document(const char *text, tp_error *err)
{
    tp_log_result *r = cJSON_malloc(sizeof *r);
    if (r == NULL) {
        err_set(err, TP_ERR_NOMEM, "", "out of memory");
        return NULL;
    }
    cJSON *out = tp_calibrate_log(text, r, err) == TP_OK ? write_log_result(r, err) : NULL;
    cJSON_free(r);
    return out;
}

char *tp_calibrate_log_json(const char *text, int pretty, tp_error *err)
{
    return json_print_document(log_document(text, err), pretty, err);
}

char *tp_calibrate_log_envelope_json(const char *text)
{
    tp_error err = {TP_OK, "", ""};
    return json_envelope(log_document(text, &err), &err);
}
