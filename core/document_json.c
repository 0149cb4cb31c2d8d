/*
 * document_json.c: the public JSON entry points of the estimate, the
 * presets and the field table, on top of the other JSON floors (the search
 * and the sweep keep theirs in search_json.c and sweep_json.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "json_internal.h"

/* A document's config, its plan checked, and its "search" section checked
 * too (estimate and search read the same document). */
static tp_status read_estimate_document(const char *json, tp_config *config, json_notes *notes, tp_error *err)
{
    cJSON *root = json_parse_document(json, err);
    if (root == NULL)
        return err != NULL ? err->status : TP_ERR_PARSE;
    tp_status status = json_read_config(root, config, 1, notes, err);
    const cJSON *search = cJSON_GetObjectItemCaseSensitive(root, "search");
    if (status == TP_OK && search != NULL) {
        tp_search_space space;
        status = json_read_search(search, &space, err);
    }
    cJSON_Delete(root);
    return status;
}

tp_status tp_config_from_json(const char *json, tp_config *config, tp_error *err)
{
    return read_estimate_document(json, config, NULL, err);
}

/* The output document of the estimate a config document asks for, or NULL
 * with err filled. */
static cJSON *estimate_document(const char *json, tp_error *err)
{
    tp_config config;
    tp_estimate_result result;
    json_notes notes;
    if (read_estimate_document(json, &config, &notes, err) != TP_OK || tp_estimate(&config, &result, err) != TP_OK)
        return NULL;
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    if (root != NULL) {
        json_write_result(&w, root, &config, &result);
        json_write_notes(&w, root, &notes);
    }
    return json_finish(root, &w, err);
}

char *tp_estimate_json(const char *json, int pretty, tp_error *err)
{
    return json_print_document(estimate_document(json, err), pretty, err);
}

char *tp_estimate_envelope_json(const char *json)
{
    tp_error err = {TP_OK, "", ""};
    cJSON *result = estimate_document(json, &err);
    return json_envelope(result, &err);
}

char *tp_config_json(const tp_config *c, int pretty)
{
    json_writer w = {0};
    cJSON *config = cJSON_CreateObject();
    if (config != NULL)
        json_write_config(&w, config, c);
    return json_print_and_delete(config, pretty, &w, NULL);
}

char *tp_presets_json(int pretty)
{
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    cJSON *models = json_add_array(&w, root, "models");
    cJSON *gpus = json_add_array(&w, root, "gpus");
    cJSON *clusters = json_add_array(&w, root, "clusters");
    for (size_t i = 0; models != NULL && i < tp_model_preset_count(); i++) {
        cJSON *m = json_add_object(&w, models, NULL);
        json_write_model(&w, m, tp_model_preset(i));
        json_add_number(&w, m, "params_total", (double)tp_model_params_total(tp_model_preset(i)));
        json_add_string(&w, m, "source", tp_model_preset_source(i));
    }
    for (size_t i = 0; gpus != NULL && i < tp_gpu_preset_count(); i++) {
        cJSON *g = json_add_object(&w, gpus, NULL);
        json_write_gpu(&w, g, tp_gpu_preset(i));
        json_add_string(&w, g, "source", tp_gpu_preset_source(i));
    }
    for (size_t i = 0; clusters != NULL && i < tp_cluster_preset_count(); i++) {
        const tp_cluster *cl = tp_cluster_preset(i);
        cJSON *o = json_add_object(&w, clusters, NULL);
        json_add_string(&w, o, "name", cl->name);
        json_add_string(&w, o, "gpu", cl->gpu);
        json_add_number(&w, o, "gpus_per_node", (double)cl->gpus_per_node);
        json_write_network(&w, json_add_object(&w, o, "network"), &cl->network);
        json_add_string(&w, o, "source", tp_cluster_preset_source(i));
    }
    cJSON *frameworks = json_add_array(&w, root, "frameworks");
    for (int f = 0; frameworks != NULL && f < TP_FRAMEWORK_COUNT; f++) {
        tp_config c;
        tp_config_defaults(&c);
        c.training.framework = (tp_framework)f;
        tp_framework_defaults(&c);
        cJSON *o = json_add_object(&w, frameworks, NULL);
        json_add_string(&w, o, "name", tp_framework_str((tp_framework)f));
        json_add_number(&w, o, "loss_bytes_per_logit", c.overheads.loss_bytes_per_logit);
        tp_config compiled = c;
        compiled.training.eager = 0;
        tp_framework_compile_defaults(&compiled);
        json_add_number(&w, o, "compiled_loss_bytes_per_logit", compiled.overheads.loss_bytes_per_logit);
        json_add_bool(&w, o, "compiled_recompute_elementwise", compiled.training.recompute_elementwise);
        json_add_bool(&w, o, "fsdp_mixed_precision", c.training.fsdp_mixed_precision);
        json_add_bool(&w, o, "fused_swiglu", c.training.fused_swiglu);
        json_add_bool(&w, o, "fp8_activations", c.training.fp8_activations);
        json_add_bool(&w, o, "pp_overlap", c.plan.pp_overlap);
        json_add_string(&w, o, "fp8_recipe", tp_fp8_recipe_str(c.training.fp8_recipe));
        json_add_string(&w, o, "attention_kernel", tp_attention_kernel_str(c.training.attention_kernel));
        json_add_string(&w, o, "fp8_casts", tp_fp8_casts_str(c.training.fp8_casts));
        json_add_bool(&w, o, "eager", c.training.eager);
        json_add_bool(&w, o, "grouped_gemm", c.training.grouped_gemm);
        json_add_bool(&w, o, "routing_weights_in_activation", c.training.routing_weights_in_activation);
        json_add_bool(&w, o, "unfused_expert_extras", c.training.unfused_expert_extras);
        json_add_bool(&w, o, "unfused_yarn_rope", c.training.unfused_yarn_rope);
        json_add_bool(&w, o, "pp_gather_once", c.plan.pp_gather_once);
        json_add_bool(&w, o, "pp_send_whole", c.plan.pp_send_whole);
        json_add_bool(&w, o, "pp_serial_sends", c.plan.pp_serial_sends);
        json_add_bool(&w, o, "grad_all_reduce", c.plan.grad_all_reduce);
        json_add_bool(&w, o, "tp_overlap_userbuffers", c.plan.tp_overlap_userbuffers);
        json_add_bool(&w, o, "fp8_weight_cache", c.training.fp8_weight_cache);
        json_add_string(&w, o, "source", tp_framework_source((tp_framework)f));
    }
    return json_print_and_delete(root, pretty, &w, NULL);
}

static const char *const type_names[] = {"integer", "number", "boolean", "choice", "text"};

/* One row of the field table as the page and the docs read it. */
static void write_field(json_writer *w, cJSON *item, const field *f, const tp_config *defaults)
{
    char path[64];
    field_path(f, path, sizeof path);
    json_add_string(w, item, "path", path);
    json_add_string(w, item, "type", type_names[f->type]);
    if (f->old_key != NULL)
        json_add_string(w, item, "old_key", f->old_key);
    json_add_string(w, item, "unit", f->unit);
    if (f->type == FIELD_INT || f->type == FIELD_NUMBER) {
        json_add_number(w, item, "min", f->min);
        json_add_number(w, item, "max", f->max);
    }
    if (f->type == FIELD_ENUM) {
        cJSON *names = json_add_array(w, item, "names");
        for (int i = 0; names != NULL && i < f->names->count; i++)
            json_add_string(w, names, NULL, f->names->items[i]);
    }
    const void *at = field_section_struct_const(defaults, f->section);
    json_add_bool(w, item, "from_preset", f->fallback == FIELD_FROM_PRESET);
    if (f->type == FIELD_NAME)
        json_add_string(w, item, "default", (const char *)at + f->offset);
    else if (f->type == FIELD_ENUM)
        json_add_string(w, item, "default", f->names->items[(int)field_get(f, at)]);
    else if (f->type == FIELD_BOOL)
        json_add_bool(w, item, "default", field_get(f, at) != 0.0);
    else
        json_add_number(w, item, "default", field_echo_value(f, at));
    json_add_string(w, item, "doc", f->doc);
}

char *tp_fields_json(int pretty)
{
    tp_config defaults;
    tp_config_defaults(&defaults);
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    cJSON *list = json_add_array(&w, root, "fields");
    for (int i = 0; list != NULL && i < field_count; i++)
        write_field(&w, json_add_object(&w, list, NULL), &field_table[i], &defaults);
    return json_print_and_delete(root, pretty, &w, NULL);
}

/* Appends to a growing text; *failed when memory runs out. */
typedef struct {
    char *text;
    size_t length, capacity;
    int failed;
} text_buffer;

static void append(text_buffer *b, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void append(text_buffer *b, const char *format, ...)
{
    for (int attempt = 0; attempt < 2 && !b->failed; attempt++) {
        va_list args;
        va_start(args, format);
        const int n = vsnprintf(b->text + b->length, b->capacity - b->length, format, args);
        va_end(args);
        if (n < 0) {
            b->failed = 1;
        } else if ((size_t)n < b->capacity - b->length) {
            b->length += (size_t)n;
            return;
        } else {
            const size_t capacity = 2 * b->capacity + (size_t)n + 1;
            char *grown = cJSON_malloc(capacity);
            if (grown == NULL) {
                b->failed = 1;
                return;
            }
            memcpy(grown, b->text, b->length + 1);
            cJSON_free(b->text);
            b->text = grown;
            b->capacity = capacity;
        }
    }
}

static void markdown_row(text_buffer *b, const field *f, const tp_config *defaults)
{
    char path[64], def[48], lo[32], hi[32];
    field_path(f, path, sizeof path);
    const void *at = field_section_struct_const(defaults, f->section);
    if (f->fallback == FIELD_FROM_PRESET)
        snprintf(def, sizeof def, "preset's");
    else if (f->type == FIELD_ENUM)
        snprintf(def, sizeof def, "`%s`", f->names->items[(int)field_get(f, at)]);
    else if (f->type == FIELD_BOOL)
        snprintf(def, sizeof def, "`%s`", field_get(f, at) != 0.0 ? "true" : "false");
    else
        field_format_amount(field_echo_value(f, at), def, sizeof def);
    append(b, "| `%s`%s%s%s | %s%s%s | %s | ", path, f->old_key ? " (was `" : "", f->old_key ? f->old_key : "",
           f->old_key ? "`)" : "", type_names[f->type], f->unit[0] ? ", " : "", f->unit, def);
    if (f->type == FIELD_INT || f->type == FIELD_NUMBER) {
        field_format_amount(f->min, lo, sizeof lo);
        field_format_amount(f->max, hi, sizeof hi);
        append(b, "%s … %s", lo, hi);
    } else if (f->type == FIELD_ENUM) {
        for (int i = 0; i < f->names->count; i++)
            append(b, "%s`%s`", i > 0 ? ", " : "", f->names->items[i]);
    } else if (f->type == FIELD_NAME) {
        append(b, "printable, at most %zu characters", f->size - 1);
    }
    append(b, " | %s |\n", f->doc);
}

char *tp_fields_markdown(void)
{
    tp_config defaults;
    tp_config_defaults(&defaults);
    text_buffer b = {cJSON_malloc(4096), 0, 4096, 0};
    if (b.text == NULL)
        return NULL;
    b.text[0] = '\0';
    append(&b, "| field | type, unit | default | allowed | meaning |\n| --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < field_count; i++)
        markdown_row(&b, &field_table[i], &defaults);
    if (b.failed) {
        cJSON_free(b.text);
        return NULL;
    }
    return b.text;
}
