/*
 * json_internal.h: what the JSON files of the core share, floor by floor,
 * each floor calling only the ones below it:
 *
 *   json.c          parsing, strictness, typed reads, writing, envelopes
 *   config_json.c   a config in (over the field table), a config out
 *   result_json.c   an estimate's output document
 *   search_json.c   the "search" section in, a search's output out
 *   sweep_json.c    the "sweep" section, sweeps and their merge
 *   calibrate_json.c the runs document in, a calibration's output out;
 *                   a log excerpt read (calibrate_log.c), its output
 *   document_json.c the public entry points of estimate and presets
 *
 * These files (and wasm/bind.c through trainplan.h) are the only code that
 * sees cJSON.
 */
#ifndef TP_JSON_INTERNAL_H
#define TP_JSON_INTERNAL_H

#include <cjson/cJSON.h>

#include "tp_internal.h"

/* ===================== json.c ===================== */

/* The document as cJSON, or NULL with err filled: larger than max_bytes,
 * not UTF-8, a NUL in a string, not JSON, a key given twice. */
cJSON *json_parse_limited(const char *json, size_t max_bytes, tp_error *err);
/* The same for a config document (TP_MAX_INPUT_BYTES). */
cJSON *json_parse_document(const char *json, tp_error *err);
/* Object at path with no keys outside the NULL-terminated list. */
tp_status json_check_object(const cJSON *obj, const char *path, const char *const *keys, tp_error *err);
/* The item as a finite number (-0 read as 0), or as an integer int64
 * holds exactly; errors name path. */
tp_status json_number(const cJSON *item, const char *path, double *out, tp_error *err);
tp_status json_integer(const cJSON *item, const char *path, int64_t *out, tp_error *err);
/* Optional fields of obj, left as they are when absent; errors name
 * section.key. */
tp_status json_read_int(const cJSON *obj, const char *section, const char *key, int64_t *out, tp_error *err);
tp_status json_read_number(const cJSON *obj, const char *section, const char *key, double *out, tp_error *err);
tp_status json_read_bool(const cJSON *obj, const char *section, const char *key, int *out, tp_error *err);
/* The index of a string item in names, or an error listing them. */
tp_status json_name_index(const cJSON *item, const char *path, const name_list *names, int *out, tp_error *err);
/* "\"a\", \"b\" or \"c\"": the names of a list, for an error message. */
void json_name_choices(const name_list *names, char *out, size_t size);

/* Adds to objects and remembers whether anything failed, so the writers
 * read straight through and check once at the end: an allocation, or a
 * number that is not finite (which is never written as null). */
typedef struct {
    int failed;
    int not_finite;
    char not_finite_key[48];
} json_writer;

cJSON *json_add_object(json_writer *w, cJSON *parent, const char *key); /* key NULL: array item */
/* An empty array under key; NULL (and w->failed set) when memory runs out
 * or parent is NULL. */
cJSON *json_add_array(json_writer *w, cJSON *parent, const char *key);
void json_add_number(json_writer *w, cJSON *obj, const char *key, double value); /* key NULL: array item */
void json_add_string(json_writer *w, cJSON *obj, const char *key, const char *value);
void json_add_bool(json_writer *w, cJSON *obj, const char *key, int value);
void json_add_pair(json_writer *w, cJSON *obj, const char *key, const int64_t pair[2]);

/* Every number of a parsed tree in the writer's exact form, so a document
 * read and written again prints as it was first written. */
tp_status json_exact_numbers(cJSON *tree, tp_error *err);
/* Prints root (NULL when a write failed or memory runs out, err filled),
 * then deletes it. */
char *json_print_and_delete(cJSON *root, int pretty, json_writer *w, tp_error *err);
/* A finished document printed and deleted; NULL root (its builder failed
 * and filled err) gives NULL. */
char *json_print_document(cJSON *root, int pretty, tp_error *err);
/* root when w saw no failure, else NULL with err filled (root deleted). */
cJSON *json_finish(cJSON *root, const json_writer *w, tp_error *err);
/* The envelope every JSON-either-way caller reads (the wasm binding):
 * {"ok":true,"result":result} when result is not NULL (it is taken over),
 * else {"ok":false,"error":{"status","path","message"}} from err. NULL only
 * when memory runs out. */
char *json_envelope(cJSON *result, const tp_error *err);

/* ===================== config_json.c ===================== */

/* Keys read under a former name, for the output's "deprecated" list. */
typedef struct {
    int count;
    char text[8][112];
} json_notes;

/* The config of a document's model, system, training, parallel and
 * overheads sections over tp_config_defaults; its "search" and "sweep"
 * keys are left to their readers. check_plan 0 skips the plan's rules, for
 * the search, which ignores the plan and builds its own. notes may be
 * NULL. */
tp_status json_read_config(const cJSON *root, tp_config *config, int check_plan, json_notes *notes,
                           tp_error *err);
/* The resolved config in input form into config (reading it back gives
 * the same config); outputs echo it as their "config". */
void json_write_config(json_writer *w, cJSON *config, const tp_config *c);
/* A preset's model, GPU or network in the input form. */
void json_write_model(json_writer *w, cJSON *obj, const tp_model *m);
void json_write_gpu(json_writer *w, cJSON *obj, const tp_gpu *g);
void json_write_network(json_writer *w, cJSON *obj, const tp_network *n);
/* A system section (gpu and network as objects with every field) and an
 * overheads section in the input form: what a config reads back as is. */
void json_write_system(json_writer *w, cJSON *obj, const tp_system *s);
void json_write_overheads(json_writer *w, cJSON *obj, const tp_overheads *o);
/* "amsp": {"weights": [intra, inter], "gradients": [...], "optimizer": [...]} */
void json_add_amsp(json_writer *w, cJSON *obj, const int64_t amsp[3][2]);
/* "per_node": {"tp": 4, "cp": 1, "dp": 1, "pp": 2}, indexed by tp_dim */
void json_add_per_node(json_writer *w, cJSON *obj, const int64_t per_node[4]);
/* "deprecated": the notes, when there are any. */
void json_write_notes(json_writer *w, cJSON *root, const json_notes *notes);

/* ===================== result_json.c ===================== */

/* The output document of one estimate, as trainplan estimate prints it. */
void json_write_result(json_writer *w, cJSON *root, const tp_config *c, const tp_estimate_result *r);

/* ===================== search_json.c ===================== */

/* The "search" section over tp_search_defaults; NULL section: defaults. */
tp_status json_read_search(const cJSON *section, tp_search_space *space, tp_error *err);
/* A search space in the "search" section's form. */
void json_write_space(json_writer *w, cJSON *obj, const tp_search_space *s, const tp_config *base);
/* "fits", and when r found a plan its "plan", "step_s", throughput, memory
 * and time to train: one point of a scaling list or sweep. */
tp_status json_write_best(json_writer *w, cJSON *item, const tp_config *c, const tp_search_result *r,
                          tp_error *err);
/* A zeroed search result (large: on the heap) and an empty output object,
 * or TP_ERR_NOMEM with neither. */
tp_status json_new_search_output(tp_search_result **r, cJSON **root, tp_error *err);
/* Frees r; root when status is TP_OK and w saw no failure, else NULL with
 * err filled (root deleted). */
cJSON *json_finish_search_output(tp_search_result *r, cJSON *root, tp_status status, const json_writer *w,
                                 tp_error *err);

#endif /* TP_JSON_INTERNAL_H */
